"""A stand-in for PyCUDA, for tests on machines without a GPU.

Put tests/standin on sys.path (or PYTHONPATH) and `import pycuda.driver`
finds `driver.py` here: the host side of PyCUDA's driver API as tileforth
uses it, with the driver's rules enforced. Kernels do not run; see driver.py.
"""

VERSION = (2025, 1, 0)
VERSION_STATUS = "stand-in"
VERSION_TEXT = "2025.1 (tileforth test stand-in)"
