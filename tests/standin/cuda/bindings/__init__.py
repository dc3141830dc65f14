"""A stand-in for cuda-python's cuda.bindings (only its driver module: see driver.py)."""
