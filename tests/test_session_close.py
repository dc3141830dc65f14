"""Forth.close() gives a session's big buffers back at once (issue 26): the parts of a session hold
one another, and the cpu backend is in reference cycles of its own, so before, a closed session's
state buffer, thread records, data space and arrays stayed until the next garbage collection. Here
the garbage collector is off: what close() frees, it frees by itself. The references the tests compare
against are outside the code under test: weak references on the numpy buffers, the process's
resident memory (/proc/self/statm), and the stand-in driver's table of live device allocations."""
from __future__ import annotations

import gc
import os
import weakref

import numpy as np
import pytest
from tileforth.core import Forth, ForthError

BIG = "256 1 1 GRID 256 1 1 THREADS"  # 65,536 threads: the state buffer alone is tens of MiB
CLOSED = "this session is closed"


@pytest.fixture
def no_gc():
    """The garbage collector off for the test (what is freed, is freed by reference counts)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _rss() -> int:
    """The process's resident memory, bytes (the kernel's count, not the allocator's)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _big_buffers(f: Forth) -> dict[str, weakref.ref]:
    """Weak references on the session's big numpy buffers: its launch shape's stacks and thread records,
    the output buffer, and each allocation (data space, arrays)."""
    be = f.backend
    arrays = {"state": be.state, "thr": be.thr, "out": be.out}
    arrays.update({f"alloc {addr:#x}": buf for addr, buf in be._buffers.items() if buf.nbytes >= 1 << 16})
    return {name: weakref.ref(a) for name, a in arrays.items()}


def test_close_frees_the_cpu_sessions_buffers_without_a_collection(no_gc):
    f = Forth(backend="cpu")
    f.eval(BIG)
    f.eval("1048576 F32 ARRAY big  GLOBAL-ID 1+ DROP")  # a launch over the shape: its pages are touched
    f.array("big")[:] = 1.0  # the array's pages too
    refs = _big_buffers(f)
    held = f.backend.state.nbytes + f.backend.thr.nbytes + f.array("big").nbytes
    assert held > 64 << 20 and "state" in refs and any(k.startswith("alloc") for k in refs)
    before = _rss()
    f.close()
    after = _rss()
    assert [name for name, r in refs.items() if r() is not None] == []
    assert before - after > held // 2, (before, after, held)  # given back to the system, not only to numpy
    print(f"resident memory: {before >> 20} MiB open, {after >> 20} MiB after close ({held >> 20} MiB of buffers)")


def test_sessions_made_and_closed_in_turn_do_not_add_up(no_gc):
    """Ten sessions with the big shape, each closed before the next: the memory of the last is that of the
    first (before, each closed session's buffers stayed until a collection, and the garbage collector is
    off here)."""
    state = []

    def one() -> int:
        f = Forth(backend="cpu")
        f.eval(BIG + "  1 DROP")
        state.append(f.backend.state.nbytes)
        f.close()
        return _rss()
    first = one()
    for _ in range(8):
        one()
    last = one()
    state = min(state)  # one session's state buffer
    assert last - first < state, (first >> 20, last >> 20, state >> 20)


def test_closing_twice_is_harmless_and_a_closed_session_says_to_make_a_new_one():
    f = Forth(backend="cpu")
    f.eval("VARIABLE v  3 v !")
    be = f.backend
    f.close()
    f.close()
    be.close()  # the backend's own close, after the session's: nothing left to do
    assert f.closed
    uses = [lambda: f.eval("1 2 +"), lambda: f.eval(""), lambda: f.data_stack(), lambda: f.push_uniform(1),
            lambda: f.array("v"), lambda: f.kernel("v"), lambda: f.here, lambda: f.backend.state]
    for use in uses:
        with pytest.raises(ForthError, match=CLOSED) as e:
            use()
        assert "make a new one" in str(e.value)
    g = Forth(backend="cpu")  # a new session is whole
    assert g.eval("1 2 + .") == "3 "
    g.close()


def test_with_block_closes_the_session():
    with Forth(backend="cpu") as f:
        f.eval("1 DROP")
        ref = weakref.ref(f.backend.state)
    assert f.closed and ref() is None


def test_close_frees_the_cuda_sessions_device_memory_and_host_copies(drv, no_gc):
    f = Forth(backend="cuda")
    f.eval(BIG)
    f.push_uniform(1 << 20, 6)  # (the stand-in runs no kernel: the host words take their operands so)
    f.eval("ARRAY big")
    f.set_array("big", np.ones(1 << 20, np.float32))
    assert sum(size for _, size, _ in drv.allocations()) > 4 << 20
    shadows = [weakref.ref(a.shadow) for a in f.backend._res.allocs.values() if a.shadow is not None]
    assert shadows
    f.close()
    assert drv.allocations() == []  # the stand-in's record of live device memory
    assert drv.primary_refs() == 0 and drv.context_stack() == []
    assert [r for r in shadows if r() is not None] == []
    f.close()
    with pytest.raises(ForthError, match=CLOSED):
        f.eval("1")
