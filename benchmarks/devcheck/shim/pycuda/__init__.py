"""Device-check shim for PyCUDA (see driver.py): NOT PyCUDA."""
VERSION = (0, 0)
VERSION_STATUS = "shim"
VERSION_TEXT = "shim(ctypes)"
