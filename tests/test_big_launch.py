"""Launches beyond 1,048,576 threads (issue 27, point 4): a 2M-thread line runs on the cpu backend within
bounded memory, its results checked against numpy; a launch whose stacks and records do not fit in the
memory free is a ForthError that names the sizes and what to do."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.compile.machine import sized_for

THREADS = 2048 * 1024

CHILD = textwrap.dedent("""
    import json, resource, sys
    import numpy as np
    from tileforth.core import Forth
    from tileforth.core.compile.state import StackView
    f = Forth(backend="cpu")
    f.eval("2048 1 1 GRID 1024 1 1 THREADS  GLOBAL-ID 3 * 7 +")
    v = StackView.read(f.backend)
    ok = bool((v.dsp == 1).all() and (v.fsp == 0).all()
              and np.array_equal(v.ds[:, 0], np.arange(2048 * 1024, dtype=np.int64) * 3 + 7))
    print(json.dumps({"ok": ok, "threads": len(v.dsp), "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      "cells": f.backend.machine.ds_max, "state_bytes": f.backend.machine.state_bytes}))
""")


def test_a_2m_thread_line_runs_on_cpu_within_bounded_memory():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["ok"] and got["threads"] == THREADS
    # the stack state and the thread records of 2M threads (64 cells and 32 floats each: 656 + 288 bytes a
    # thread, 1.9 GiB), a copy of the depths, and the interpreter: bounded by what the launch itself takes
    records = THREADS * (got["state_bytes"] + 288)
    assert got["peak_kib"] * 1024 < records + (600 << 20), (got["peak_kib"] >> 10, records >> 20)


def test_stacks_shrink_past_a_million_threads_and_the_state_stays_bounded():
    f = Forth(backend="cpu")
    base = f.device.base
    at_1m = (1 << 20) * sized_for(base, 1 << 20, None).state_bytes
    for n in (2 << 20, 4 << 20, 8 << 20):
        m = sized_for(base, n, None)
        assert m.ds_max >= 16 and m.fs_max >= 8 and n * m.state_bytes <= 1.1 * at_1m
    assert sized_for(base, 4 << 20, (128, 64)).ds_max == 128  # stacks asked for are kept


def test_a_launch_that_does_not_fit_in_memory_is_a_forth_error_and_the_session_goes_on(monkeypatch):
    f = Forth(backend="cpu")
    f.eval("1 2")
    monkeypatch.setattr(f.backend, "free_memory", lambda: 1 << 30)  # 1 GiB free
    with pytest.raises(ForthError, match=r"a launch of 4,194,304 threads needs 2,496 MiB of memory for its stacks "
                       r"\(32 cells and 16 floats a thread\) and thread records, more than the 1,024 MiB of memory "
                       r"free on the cpu backend: use fewer threads"):
        f.eval("4096 1 1 GRID 1024 1 1 THREADS")
    assert f.launch_shape == ((1, 1, 1), (32, 1, 1)) and f.data_stack() == [1, 2]
    f.eval("+")
    assert f.data_stack(lane=None) == [[3]] * 32


def test_a_refused_buffer_is_the_same_error(monkeypatch):
    f = Forth(backend="cpu")
    monkeypatch.setattr(f.backend, "free_memory", lambda: None)  # unknown: the system itself refuses
    real = f.backend._make_shape

    def refuse(grid, block):
        if grid[0] > 1000:
            raise MemoryError
        return real(grid, block)
    monkeypatch.setattr(f.backend, "_make_shape", refuse)
    with pytest.raises(ForthError, match="a launch of 65,536 threads needs .* more than the memory there is"):
        f.eval("2048 1 1 GRID")  # 2048 blocks of 32 threads
    f.eval("5 DUP *")
    assert f.data_stack() == [25] and np.array_equal(np.array(f.data_stack(lane=None)), np.full((32, 1), 25))


def test_ctrl_c_during_a_huge_grid_lands_while_the_records_fill():
    """`1025 7 33 GRID` (7.5M threads, 2.4 GB of thread records, filled in 64 MiB chunks with no single
    uninterruptible call over all of them): a Ctrl-C arriving while they fill (from a timer, as the
    REPL's SIGINT handler delivers it) stops the line there, and the session keeps its stacks and shape."""
    import _thread
    import threading
    f = Forth(backend="cpu")
    f.eval("1 2")
    filled: list[int] = []
    backend = f.backend
    make = backend._make_shape

    def watched(*args, **kwargs):  # note that the fill began: the interrupt comes only after it did
        filled.append(1)
        threading.Timer(0.05, _thread.interrupt_main).start()
        out = make(*args, **kwargs)
        filled.append(2)  # all 2.4 GB written: the interrupt waited for the fill
        return out

    backend._make_shape = watched
    with pytest.raises(KeyboardInterrupt):
        f.eval("1025 7 33 GRID")
    backend._make_shape = make
    assert filled == [1] and f.data_stack() == [1, 2] and f.launch_shape == ((1, 1, 1), (32, 1, 1))
    assert f.eval("3 .") == "3 "
