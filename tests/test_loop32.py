"""Issue 28, point 5: a DO loop whose index provably fits in 32 bits counts in i32 on the GPU
(tileforth/core/compile/ranges.py, codegen.Gen.narrow_loop), and the program sees the same indices.

* The proof rule (ranges.loop_fits_32) against a brute-force model: gforth's loop rule run in exact
  integers and in wrapping i32 arithmetic gives the same indices whenever the rule says it fits.
* The lowering itself, executed: the cpu target with i32 loops forced on (every loop the rule
  admits, short ones too) against gforth, for many bound shapes: LOOP, +LOOP with positive and
  negative steps, ?DO, crossings, nested J, bounds near 2^31 that must not narrow.
* The GPU code: PTX and SASS of the provable loop count in 32 bits; a loop with a bound of
  2^31 or an unknown step keeps 64-bit arithmetic.
"""
from __future__ import annotations

import itertools
import re

import gforth
import pytest
from tileforth.core import Forth
from tileforth.core.compile import codegen
from tileforth.core.compile.ranges import MAX32, MIN32, loop_fits_32, value_range

# ---- the rule against a model ------------------------------------------------------------------


def _wrap32(x: int) -> int:
    return (x + 2**31) % 2**32 - 2**31


def _indices(start: int, limit: int, step: int, query: bool, wrap, cap: int = 200) -> list[int]:
    """gforth's DO/+LOOP: the indices the body sees (at most cap), the arithmetic through `wrap`."""
    if query and start == limit:
        return []
    i, seen = wrap(start), []
    lim = wrap(limit)
    while len(seen) < cap:
        seen.append(i)
        old = wrap(i - lim)
        new = wrap(old + step)
        i = wrap(i + step)
        if ((old ^ new) & (old ^ step)) < 0:  # the boundary between limit-1 and limit was crossed
            break
    return seen


EDGES = [MIN32, MIN32 + 1, MIN32 + 7, -9, -1, 0, 1, 5, 9, MAX32 - 7, MAX32 - 1, MAX32, MAX32 + 1, 2**32]


@pytest.mark.parametrize("step", [1, 2, 3, 100, 2**30, MAX32, -1, -2, -7, -(2**30), MIN32])
def test_the_rule_admits_only_loops_whose_i32_indices_are_the_i64_ones(step):
    admitted = 0
    for start, limit, query in itertools.product(EDGES, EDGES, (False, True)):
        if loop_fits_32((start, start), (limit, limit), step, query):
            admitted += 1
            exact = _indices(start, limit, step, query, lambda x: x)
            narrow = _indices(start, limit, step, query, _wrap32)
            assert narrow == exact, (start, limit, step, query)
            assert all(MIN32 <= i <= MAX32 for i in exact), (start, limit, step, query)
            # the last indices too: the same loop started a few steps before its end
            if len(exact) == 200:
                near = limit - step * 5 if step > 0 else limit - step * 5 - 1
                if loop_fits_32((near, near), (limit, limit), step, query):
                    assert _indices(near, limit, step, query, _wrap32) == _indices(near, limit, step, query,
                                                                                   lambda x: x)
    assert admitted  # the rule is not vacuous


def test_the_rule_refuses_the_loops_that_wrap_or_leave_i32():
    assert not loop_fits_32((0, 0), (0, 0), 1, False)  # DO with start = limit: 2^64 iterations
    assert loop_fits_32((0, 0), (0, 0), 1, True)  # ?DO skips it
    assert not loop_fits_32((10, 10), (0, 0), 1, False)  # start above the limit: wraps around
    assert not loop_fits_32((0, 0), (2**31, 2**31), 1, False)  # the limit is not an i32
    assert not loop_fits_32((0, 0), (10, 10), None, False)  # an unknown step
    assert not loop_fits_32((MIN32, MIN32), (MAX32, MAX32), 1, False)  # i - limit leaves i32
    assert not loop_fits_32((0, 5), (3, 10), 1, False)  # ranges that overlap: a start may pass a limit
    assert loop_fits_32((0, 1023), (1024, 1024), 1, False)  # TID-X 1024: every start below the limit


def test_value_ranges_of_thread_indices_and_arithmetic():
    from llvmlite import ir
    m = ir.Module()
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), []), "f")
    b = ir.IRBuilder(fn.append_basic_block())
    i32, i64 = ir.IntType(32), ir.IntType(64)
    sreg = ir.Function(m, ir.FunctionType(i32, []), "llvm.nvvm.read.ptx.sreg.tid.x")
    tid = b.zext(b.call(sreg, []), i64)
    assert value_range(tid) == (0, 1023)
    x = b.add(b.mul(tid, ir.Constant(i64, 16)), ir.Constant(i64, -5))
    assert value_range(x) == (-5, 1023 * 16 - 5)
    assert value_range(b.shl(tid, ir.Constant(i64, 4))) == (0, 1023 * 16)
    assert value_range(b.sub(ir.Constant(i64, 0), tid)) == (-1023, 0)
    other = ir.Function(m, ir.FunctionType(i64, []), "opaque")
    assert value_range(b.add(tid, b.call(other, []))) is None


# ---- the lowering, run: the cpu target with i32 loops on, against gforth ----------------------------------
LOOPS = [
    "10 0 DO I . LOOP",
    "0 -10 DO I . LOOP",
    "5 5 ?DO I . LOOP",
    "3 7 ?DO I . -1 +LOOP",
    "0 10 DO I . -1 +LOOP",
    "0 10 DO I . -3 +LOOP",
    "-20 10 DO I . -7 +LOOP",
    "10 0 DO I . 3 +LOOP",
    "100 0 DO I . 25 +LOOP",
    "1 0 DO I . 1000 +LOOP",
    "10 10 DO I . -1 +LOOP",
    "4 0 DO 3 0 DO J 10 * I + . LOOP LOOP",
    "2147483647 2147483640 DO I . LOOP",
    "2147483647 2147483600 DO I . 10 +LOOP",
    "-2147483648 -2147483600 DO I . -10 +LOOP",
    "-2147483600 -2147483648 DO I . 9 +LOOP",
    "2147483650 2147483640 DO I . LOOP",  # crosses 2^31: must count in i64
    "2147483648 2147483647 ?DO I . LOOP",
    "-2147483650 -2147483645 DO I . -1 +LOOP",
    "2147483647 -2147483648 DO I . 1073741824 +LOOP",
    "-2147483648 2147483647 DO I . -1073741824 +LOOP",
    "12 0 DO I 5 = IF LEAVE THEN I . LOOP",
    "20 0 DO I . I 7 + 3 / +LOOP",  # a computed step: i64
]


@pytest.fixture()
def narrow_cpu(monkeypatch):
    """The cpu target lowering DO loops as the cuda target does (i32 where provable), short loops too."""
    from tileforth.backends.cpu.target import CpuTarget
    monkeypatch.setattr(CpuTarget, "narrow_loops", True)
    monkeypatch.setattr(codegen, "SHORT_LOOP", 0)
    narrowed: list[bool] = []
    real = codegen.Gen.narrow_loop

    def spy(self, n, start, limit):
        narrowed.append(real(self, n, start, limit))
        return narrowed[-1]
    monkeypatch.setattr(codegen.Gen, "narrow_loop", spy)
    f = Forth(backend="cpu")
    f.eval("1 1 1 GRID 1 1 1 THREADS")
    return f, narrowed


def test_i32_loops_print_what_gforth_prints(narrow_cpu):
    gforth.require()
    f, narrowed = narrow_cpu
    for k, loop in enumerate(LOOPS):
        want = gforth.output(f": t{k} {loop} ; t{k}")
        got = f.eval(f": t{k} {loop} ; t{k}")
        assert got.split() == want.split(), loop
    # the i32 lowering really ran (literal bounds that fit), and the bounds past 2^31 kept i64
    assert any(narrowed) and not all(narrowed)


def test_a_loop_past_2_31_is_not_narrowed(narrow_cpu):
    f, narrowed = narrow_cpu
    f.eval(": w 2147483650 2147483640 DO LOOP ;")
    f.eval(": n 2147483647 2147483640 DO LOOP ;")
    f.eval(": u ( step -- ) 100 0 DO DUP +LOOP DROP ;")
    assert narrowed[-3:] == [False, True, False]


# ---- the GPU code ------------------------------------------------------------------------------------


def _loop_ptx(src: str, word: str) -> str:
    pytest.importorskip("llvmlite")
    from tileforth.backends.cuda.ptx import ptxas_path
    from tileforth.export.kernels import word_ptx
    if ptxas_path() is None:
        pytest.skip("ptxas (nvidia-cuda-nvcc wheel) not installed")
    f = Forth()
    f.eval(src)
    return word_ptx(f, word, "sm_90", unchecked=True)


SUM = "1024 F32 ARRAY X  : {name} ( -- ) 0e {hi} {lo} DO I 4 * X + F@ F+ LOOP X F! ;"


def test_a_provable_loop_counts_in_32_bits_in_ptx_and_sass():
    import sass
    ptx = _loop_ptx(SUM.format(name="s32", lo=0, hi=1000), "s32")
    body = ptx[ptx.index(".entry"):]
    # LLVM strength-reduces I 4 * X + to a 64-bit pointer step; the loop's own test is a 32-bit compare
    assert re.search(r"setp\.\w+\.[bsu]32\s", body), body
    assert not re.search(r"setp\.\w+\.[bsu]64\s", body), body
    loop = sass.inner_loop(sass.sass(sass.cubin(ptx, "sm_90"))["s32"])
    ops = sass.opcodes(loop)
    # 64-bit compares are ISETP + ISETP.EX: a 32-bit loop has no .EX compare of its index
    assert not any(i.opcode.startswith("ISETP") and "EX" in i.modifiers for i in loop), sass.listing(loop)
    assert "LDG" in ops and "LD" not in ops, sass.listing(loop)


def test_a_loop_with_a_thread_index_bound_counts_in_32_bits():
    ptx = _loop_ptx("1024 F32 ARRAY X : tb 0e 1024 TID-X DO I 4 * X + F@ F+ LOOP X F! ;", "tb")
    body = ptx[ptx.index(".entry"):]
    assert re.search(r"setp\.\w+\.[bsu]32\s", body) and not re.search(r"setp\.\w+\.[bsu]64\s", body), body


def test_a_loop_with_a_limit_past_2_31_keeps_64_bits():
    ptx = _loop_ptx("1024 F32 ARRAY X : big 0e 2147484672 2147483648 DO I 2147483648 - 4 * X + F@ F+ LOOP X F! ;",
                    "big")
    body = ptx[ptx.index(".entry"):]
    assert re.search(r"setp\.\w+\.[bsu]64\s", body), body
