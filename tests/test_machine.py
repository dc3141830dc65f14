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


# ---- stacks sized by the launch (issue 25, point 5) ------------------------------------------------
def _env(f: Forth, query: str) -> int:
    f.eval(f'S" {query}" ENVIRONMENT? DROP')
    n = f.data_stack()[-1]
    f.eval("DROP")
    return n


def test_one_thread_holds_deep_stacks_as_gforth_does():
    import gforth
    program = ": d 0 ?DO I LOOP ; 1000 d  : s 0 SWAP 0 ?DO + LOOP ; 1000 s . DEPTH ."
    f = Forth()
    f.eval("1 1 1 GRID 1 1 1 THREADS")
    out = f.eval(program)
    gforth.require()
    assert out == gforth.output(program)  # 1000 cells on the data stack, as gforth holds them
    f.eval(": deep 0 ?DO I LOOP ; 10000 deep")
    assert len(f.data_stack()) == 10000
    f.eval("DEPTH 0 ?DO DROP LOOP : fdeep 0 ?DO 1e LOOP ; 1000 fdeep")
    assert len(f.float_stack()) == 1000
    assert _env(f, "STACK-CELLS") >= 10000 and _env(f, "FLOATING-STACK") >= 1000


def test_big_launches_get_smaller_stacks_and_bounded_memory():
    f = Forth()
    sizes = {}
    for threads in (1, 32, 256, 1024, 8192):
        f.eval(f"{threads} 1 1 GRID 1 1 1 THREADS")
        sizes[threads] = (_env(f, "STACK-CELLS"), _env(f, "FLOATING-STACK"))
        assert f.backend.state_buffer().nbytes <= 32 << 20, threads  # the stacks' memory stays bounded
    assert sizes[1] == sizes[32] == (16384, 2048)
    assert sizes[8192] == (128, 64)  # a big launch has the stacks it always had
    assert all(a[0] >= b[0] for a, b in zip(list(sizes.values()), list(sizes.values())[1:]))
    with pytest.raises(ForthError, match="more than 128 items"):
        f.eval(" ".join(["7"] * 129))  # the message names the launch's limit


def test_stack_size_sets_the_depth_and_keeps_the_stacks():
    f = Forth()
    f.eval("1 1 1 THREADS 1 2 3 1.5e")
    f.eval("20 4 STACK-SIZE")
    assert f.data_stack() == [1, 2, 3] and f.float_stack() == [1.5]
    assert _env(f, "STACK-CELLS") == 20
    with pytest.raises(ForthError, match="more than 20 items"):
        f.eval(": d 0 ?DO I LOOP ; 18 d")
    assert f.data_stack() == [1, 2, 3]
    with pytest.raises(ForthError, match="STACK-SIZE: the stacks hold 3 cells and 1 floats, but .* hold 2 cells"):
        f.eval("2 2 STACK-SIZE")
    with pytest.raises(ForthError, match="ask for smaller stacks"):
        f.eval("1000000 1000 STACK-SIZE 1024 1 1 GRID 1024 1 1 THREADS")
    assert _env(f, "STACK-CELLS") == 20 and f.data_stack() == [1, 2, 3]  # the failed line changed nothing
    f.eval("0 0 STACK-SIZE")
    assert _env(f, "STACK-CELLS") == 16384 and f.data_stack() == [1, 2, 3]
    with pytest.raises(ForthError, match="from 1 to"):
        f.eval("-1 5 STACK-SIZE")


def test_a_shape_too_small_for_the_stacks_is_refused_with_the_stacks_kept():
    f = Forth()
    f.eval("1 1 1 THREADS : d 0 ?DO I LOOP ; 500 d")
    with pytest.raises(ForthError, match="THREADS: the stacks hold 500 cells .* 128 cells"):
        f.eval("64 1 1 GRID 1024 1 1 THREADS")
    assert len(f.data_stack()) == 500 and f.launch_shape == ((1, 1, 1), (1, 1, 1))


def test_exported_kernels_keep_private_stacks_of_the_default_depth():
    from tileforth.export.kernels import word_ptx
    f = Forth()
    f.eval("1 1 1 THREADS : m ( F: r -- r ) FDUP F* ;")
    assert f.machine.ds_max == 16384
    from tileforth.export.kernels import nvptx_compiler, kernel_name
    from tileforth.core.session.words.arrays import export_memory
    comp = nvptx_compiler(f, "sm_80", checked=False, export=True)
    ir_text = str(comp.export(f.dict["M"], kernel_name("m"), export_memory(f)).module)
    assert "alloca i64, i64 128" in ir_text and "alloca float, i64 64" in ir_text  # the default depths
    word_ptx(f, "m")  # and it compiles
