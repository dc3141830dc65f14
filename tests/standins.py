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


class CudaSessions:
    """Makes cuda sessions on the stand-in driver (`make()`); `close_all()` closes each, then checks that
    they gave every context back: nothing left current on this thread, no primary context retained."""

    def __init__(self, driver) -> None:
        self.driver = driver
        self.made: list = []

    def __call__(self, **kw):
        from tileforth.core import Forth
        self.made.append(Forth(backend="cuda", **kw))
        return self.made[-1]

    def close_all(self) -> None:
        made, self.made = self.made, []
        for f in made:
            f.close()
        refs = {n: self.driver.primary_refs(n) for n in range(self.driver.CONFIG["count"])}
        assert self.driver.context_stack() == [] and set(refs.values()) <= {0}, refs


@pytest.fixture
def cuda_sessions(drv):
    """`cuda_sessions()` makes a cuda session on the stand-in; all are closed after the test, which
    checks that they released their contexts."""
    sessions = CudaSessions(drv)
    yield sessions
    sessions.close_all()


@pytest.fixture
def cuda_session(cuda_sessions):
    """One cuda session on the stand-in driver (closed after the test, its contexts checked released)."""
    return cuda_sessions()
