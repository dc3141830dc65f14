"""Issue 27, point 1: the kernel cache is structural. Lines that differ only in
their numbers or in where they stand (another column, another line of an
INCLUDEd file) share one kernel: the literals travel in the launch's literal
table, the error sites are filled in with the line's positions before each
launch. The results are checked against Python's and numpy's arithmetic, the
positions against where the token is in the text."""
from __future__ import annotations

import re

import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.compile import layout as L
from tileforth.core.compile.machine import Machine
from tileforth.core.front.linekey import LITS_MAX

FIB = ": fib DUP 2 < IF EXIT THEN DUP 1- RECURSE SWAP 2 - RECURSE + ;"


def fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@pytest.fixture
def f() -> Forth:
    s = Forth(backend="cpu")
    s.eval("1 1 1 GRID 1 1 1 THREADS")
    return s


def compiles(f: Forth, line: str, **kw) -> tuple[str, int]:
    """What `line` prints, and how many kernels it compiled."""
    before = f.device.compiled
    out = f.eval(line, **kw)
    return out, f.device.compiled - before


def test_a_line_with_other_numbers_compiles_no_new_kernel(f):
    f.eval(FIB)
    assert compiles(f, "7 fib .") == (f"{fib(7)} ", 1)
    for n in (8, 12, 0, 1, 20):
        assert compiles(f, f"{n} fib .") == (f"{fib(n)} ", 0)
    big = (1 << 63) - 1, -(1 << 63), -1, 1 << 40
    for a in big:  # every 64-bit pattern travels exactly
        assert compiles(f, f"{a} 3 + .") [0] == f"{((a + 3 + (1 << 63)) % (1 << 64)) - (1 << 63)} "
    assert compiles(f, "5 3 + .")[1] == 0


def test_float_literals_round_as_the_sessions_float_type():
    for bits, dtype in ((32, np.float32), (64, np.float64)):
        f = Forth(backend="cpu", float_bits=bits)
        f.eval("1 1 1 GRID 1 1 1 THREADS")
        f.eval("0.1e 0.2e F+")
        n = f.device.compiled
        values = (1.0 / 3.0, 2.0 ** -140, 1e-30, 123456789.123, -0.0, 16777217.0)
        for v in values:
            f.eval("FDROP")
            text = repr(v) if "e" in repr(v) else repr(v) + "e"
            f.eval(f"{text} 0.5e F+")
            (got,) = f.float_stack()
            assert got == float(dtype(dtype(v) + dtype(0.5))), (bits, v)
        assert f.device.compiled == n + 1  # FDROP's line, then one kernel for every float line


def test_the_same_line_at_another_column_reports_its_own_position(f):
    f.eval("1 2 + DROP")
    for pad in ("", "   ", "         "):
        line = pad + "10 0 / ."
        before = f.device.compiled
        with pytest.raises(ForthError) as e:
            f.eval(line)
        assert (e.value.pos.line, e.value.pos.col) == (1, line.index("/") + 1)
        assert e.value.pos.text == line
        assert f.device.compiled - before == (1 if pad == "" else 0)
    assert f.data_stack(lane=0) == []  # the session kept its state


def test_lines_of_an_included_file_share_a_kernel_and_name_their_line(f, tmp_path):
    src = "\n".join(f"{7 * i} {i} / ." for i in range(1, 6)) + "\n3 0 / .\n"
    (tmp_path / "lines.fth").write_text(src)
    before = f.device.compiled
    with pytest.raises(ForthError) as e:
        f.eval(f"INCLUDE {tmp_path / 'lines.fth'}")
    assert e.value.output == "7 " * 5
    assert f.device.compiled - before == 1  # five lines of one structure, and the failing one too
    assert (e.value.pos.line, e.value.pos.col) == (6, 5) and e.value.pos.source.endswith("lines.fth")


def test_errors_inside_loops_and_words_keep_their_positions(f):
    f.eval(": chk ( n -- n ) DUP 0= IF 1 0 / THEN ;")
    f.eval("3 1 DO I chk DROP LOOP")
    with pytest.raises(ForthError) as e:
        f.eval("  0 5 DO I chk DROP -1 +LOOP")
    assert e.value.pos.line == 1 and "chk" in str(e.value)


def test_counts_folded_into_words_stay_constants(f):
    assert f.eval("11 22 33 2 PICK . 1 PICK . 0 PICK . DROP DROP DROP") == "11 22 33 "
    assert f.eval("1 2 3 4 3 ROLL . . . .") == "1 4 3 2 "
    assert f.eval("1 2 3 4 2 ROLL . . . .") == "2 4 3 1 "


def test_array_addresses_stay_constants_and_strings_share_ids(f):
    f.eval("4 F32 ARRAY a  4 F32 ARRAY b")
    f.eval("1e a F!  2e b F!")
    assert f.eval("a F@ F.") == "1. " and f.eval("b F@ F.") == "2. "
    n = f.device.compiled
    assert compiles(f, '." hello" 1 .') == ("hello1 ", 1)
    assert compiles(f, '." hello" 2 .') == ("hello2 ", 0)
    assert compiles(f, '." other" 2 .') == ("other2 ", 1)
    assert f.device.compiled == n + 2


def test_more_literals_than_the_table_holds_are_constants(f):
    n = LITS_MAX + 40
    f.eval(FIB)
    line = "0" + "".join(f" {i} +" for i in range(1, n)) + " ."  # literals among words (a leading run is pushed)
    assert f.eval(line) == f"{n * (n - 1) // 2} "
    assert compiles(f, "5" + line[1:]) == (f"{n * (n - 1) // 2 + 5} ", 0)
    assert compiles(f, line.replace(f" {n - 1} +", f" {n} +", 1)) == (f"{n * (n - 1) // 2 + 1} ", 1)


def test_each_thread_reads_the_same_table(f):
    f.eval("2 1 1 GRID 64 1 1 THREADS")
    f.eval("GLOBAL-ID 3 * 7 +")
    assert [s[-1] for s in f.data_stack(lane=None)] == [t * 3 + 7 for t in range(128)]
    f.eval("DROP")
    n = f.device.compiled
    f.eval("GLOBAL-ID 5 * 1 +")
    assert [s[-1] for s in f.data_stack(lane=None)] == [t * 5 + 1 for t in range(128)]
    assert f.device.compiled == n


def test_literals_of_a_line_that_suspends_survive_the_barrier(f):
    f.eval("1 1 1 GRID 64 1 1 THREADS")
    f.eval("TID-X 2 * BARRIER 9 +")
    f.eval("DROP")
    n = f.device.compiled
    f.eval("TID-X 3 * BARRIER 100 + ")
    assert [s[-1] for s in f.data_stack(lane=None)] == [t * 3 + 100 for t in range(64)]
    assert f.device.compiled == n


def test_the_cuda_line_reads_its_literals_from_the_context(monkeypatch):
    """The stand-in driver records the launch: the literal table follows the context record,
    and ctx[CTX_LITS] points at it."""
    from standins import standins
    with standins("pycuda"):
        import pycuda.driver as drv
        f = Forth(backend="cuda", machine=Machine(ds_max=64, fs_max=16))
        try:
            drv.launches.clear()
            f.eval("12345 -6 + 2.5e FDUP F+")
            (launch,) = drv.launches
            ctx, _ = launch.args
            words = f.backend.read(ctx, (L.CTX_SLOTS + L.THR_SLOTS + 3) * 8).view(np.int64)
            at = (int(words[L.CTX_LITS]) - int(ctx)) // 8
            assert at == L.CTX_SLOTS + L.THR_SLOTS
            assert list(words[at:at + 3]) == [12345, -6, np.float64(2.5).view(np.int64)]
            assert f.device.compiled == 1
        finally:
            f.backend.close()


def test_the_ptx_of_a_line_with_literals_assembles():
    from tileforth.backends.cuda.ptx import ptxas, ptxas_path
    from tileforth.export.kernels import segment_ptx
    if ptxas_path() is None:
        pytest.skip("ptxas (nvidia-cuda-nvcc wheel) not installed")
    from tileforth.core.front.linekey import line_shape
    f = Forth(backend="cpu")
    f.eval(FIB)
    seen = []
    f.on_segment = lambda nodes, tiles: seen.append(nodes)
    f.eval("7 fib 2.5e F>S + 10 0 DO I + LOOP .")
    (nodes,) = seen
    assert line_shape(nodes).lits[:2] == [7, np.float64(2.5).view(np.int64)]
    for arch in ("sm_80", "sm_90"):
        ptx = segment_ptx(f, nodes, [], arch)
        assert re.search(rf"ld\.global(\.nc)?\.b64\s+%rd\d+, \[%rd\d+\+{8 * L.CTX_LITS}\]", ptx)  # ctx[CTX_LITS]
        ptxas(ptx, arch)
