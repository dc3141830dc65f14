"""The stand-in GPU drivers of tests/standin (PyCUDA, CuPy, cuda-python) put on sys.path for a test:

    with standins("pycuda"):
        import pycuda.driver

Fresh each time, with only the named package's stand-in importable (the other drivers as if not
installed); real modules, if any, are put back after."""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import pytest

STANDIN = str(Path(__file__).parent / "standin")
DRIVERS = ("pycuda", "cupy", "cuda")  # the stand-ins' top-level packages


def _standin_modules() -> list[str]:
    return [k for k in sys.modules if k.split(".")[0] in DRIVERS + ("standin_device",)]


@contextlib.contextmanager
def standins(only: str):
    saved = {k: sys.modules.pop(k) for k in _standin_modules()}
    sys.path.insert(0, STANDIN)
    for other in DRIVERS:
        if other != only:
            sys.modules[other] = None  # import fails: not installed
    try:
        yield
    finally:
        sys.path.remove(STANDIN)
        for k in _standin_modules():
            del sys.modules[k]
        sys.modules.update(saved)


@pytest.fixture
def drv():
    """A fresh stand-in `pycuda.driver` for a test (a real PyCUDA, if any, is put back after); test files that
    use it import it from here."""
    with standins("pycuda"):
        import pycuda.driver as driver
        yield driver
