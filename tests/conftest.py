"""Shared fixtures: a tileforth session per test, and gforth as a reference."""

import os
import sys

import pytest

# The cuda backend's disk cache of cubins stays off unless a test turns it on (with a directory of its own):
# tests must not depend on, or fill, the user's ~/.cache
os.environ.setdefault("TILEFORTH_CUBIN_CACHE", "off")

# The helpers (gforth.py, forthtest.py) live next to the tests.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import forthtest  # noqa: E402
import gforth  # noqa: E402
from standins import cuda_session, cuda_sessions, drv  # noqa: E402,F401 - the stand-in driver's fixtures, for every file


@pytest.fixture
def f(request):
    """A tileforth session on the cpu backend, in its default launch shape
    (one block of 32 threads), with empty stacks and BASE decimal. It is
    shared by the tests of one module (reset between them)."""
    return forthtest.session(request.module.__name__)


@pytest.fixture
def f1(request):
    """A tileforth session launched as ONE thread (1 1 1 GRID 1 1 1 THREADS):
    for memory updates that must happen once, as in gforth. Shared by the
    tests of one module."""
    return forthtest.one_thread_session(request.module.__name__)


@pytest.fixture
def fresh():
    """A brand-new tileforth session (never shared with another test)."""
    return forthtest.new_forth()


@pytest.fixture
def need_gforth():
    gforth.require()
