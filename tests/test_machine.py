"""Per-session machine settings (issue 24, point 6): the float width and the stacks' capacities are a
session's `Machine`, carried by its backend and its code generator's target, never read from the
environment when tileforth is imported."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tileforth.core import Forth, ForthError
from tileforth.core.compile.machine import Machine


def test_import_reads_no_setting():
    """A bad TILEFORTH_FLOAT does not break `import tileforth`: only a session that would use it says so."""
    code = ("import tileforth, tileforth.core, tileforth.backends.cpu.backend\n"
            "from tileforth.core import Forth, ForthError\n"
            "try:\n    Forth()\nexcept ForthError as e:\n    print('refused:', e.message)\n"
            "print(Forth(float_bits=32).eval('1 FLOATS .'))")
    env = dict(os.environ, TILEFORTH_FLOAT="f128")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "refused: TILEFORTH_FLOAT='f128': write f32 or f64" in out.stdout and out.stdout.endswith("4 \n")


def test_a_small_data_stack_is_the_sessions_own():
    small = Forth(machine=Machine(ds_max=16))
    big = Forth()
    small.eval("1 1 1 GRID 1 1 1 THREADS : f 0 ?DO I LOOP ;")
    big.eval("1 1 1 GRID 1 1 1 THREADS : f 0 ?DO I LOOP ;")
    small.eval("16 f")
    assert small.data_stack() == list(range(16))
    with pytest.raises(ForthError, match="more than 16 items"):
        small.eval("DEPTH 0 DO DROP LOOP 17 f")
    assert small.data_stack() == list(range(16))  # the failed line changed nothing
    big.eval("17 f")
    assert big.data_stack() == list(range(17))  # the other session holds 128


def test_host_pushes_and_pick_counts_follow_the_machine():
    f = Forth(machine=Machine(ds_max=8, fs_max=2))
    with pytest.raises(ForthError, match="more than 8 items"):
        f.eval("1 2 3 4 5 6 7 8 9")
    with pytest.raises(ForthError, match="data stack holds 8 cells, so use a count from 0 to 7"):
        f.eval("1 2 8 PICK")
    assert f.data_stack() == []
    f.eval("1e 2e")
    with pytest.raises(ForthError, match="more than 2 floats"):
        f.eval("3e F+ 4e 5e")
    assert f.float_stack() == [1.0, 2.0]


def test_settings_are_checked():
    with pytest.raises(ForthError, match="ds_max=0"):
        Machine(ds_max=0)
    with pytest.raises(ForthError, match="give one"):
        Forth(float_bits=64, machine=Machine())
    assert Machine(float_bits=64).state_bytes == 16 + 128 * 8 + 64 * 8
    assert Machine().state_bytes == 1296  # 16 + 128 cells + 64 f32s, as docs/architecture.md draws it


def test_an_f64_session_exports_f64_ptx_beside_an_f32_one():
    from tileforth.export.kernels import word_ptx
    f32, f64 = Forth(), Forth(float_bits=64)
    for f in (f32, f64):
        f.eval(": m ( F: r -- r ) FDUP F* ;")
    p32, p64 = word_ptx(f32, "m"), word_ptx(f64, "m")
    assert "mul.rn.f32" in p32 or "mul.f32" in p32
    assert "mul.rn.f64" in p64 or "mul.f64" in p64
    assert ".f64" not in p32
