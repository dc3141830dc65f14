"""What a new line's tier-0 kernel holds (tiers.py: no IR passes run on it, so whatever the code
generator emits is printed, parsed and compiled while the user waits): the entry's set-up of what the
body does not use is left out (codegen.py: Env.steps, Gen.range_cache, _drop_unused; the cpu target's
_scan), and the code still computes what the lines mean, keeps the stacks it does not touch,
counts steps in loops and calls, and bounds recursion.

The references: Python's integer arithmetic and numpy's float32 for the results, the LLVM IR
language (an alloca, a load from the literal table) for what the text of the kernel must not hold."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tileforth.core import Forth
from tileforth.core.errors import ForthError


@pytest.fixture
def f():
    s = Forth(backend="cpu")
    yield s
    s.close()


def kernel_ir(f: Forth, line: str) -> str:
    """The raw (tier-0) IR of the kernel function of the last segment `line` runs (the line runs too)."""
    segs: list = []
    f.on_segment = lambda nodes, tiles: segs.append((nodes, tiles))
    try:
        f.eval(line)
    finally:
        f.on_segment = None
    nodes, tiles = segs[-1]
    from tileforth.core.front.linekey import line_shape
    km = f.compiler.kernel(nodes, tiles, block=f.backend.block, line=line_shape(nodes))
    text = km.text
    start = re.search(rf'define .*@"?{km.name}"?\(', text).start()  # (as LLVM prints the linked module)
    return text[start:text.index("\n}", start)]


def test_a_straight_integer_line_has_no_unused_setup(f):
    body = kernel_ir(f, "3 5 + DUP * 7 - 2 MAX DROP")
    assert "alloca" not in body  # no depth slots, step counter, range cache or stack-top marker
    assert "stack_top" not in body and '%steps' not in body and "range_lo" not in body
    assert "\nfail:" not in body  # none of its instructions can fail: no block for failing
    # the literal table's address is read once: one load of it, then one load per literal (4)
    assert len(re.findall(r"= load i64, ptr %[^,]+, align 8, !invariant.load", body)) == 1 + 4


def test_results_are_what_the_arithmetic_says(f):
    a, b, c, d = 3, 5, 7, 2
    f.eval(f"{a} {b} + DUP * {c} - {d} MAX")
    assert f.data_stack() == [max((a + b) ** 2 - c, d)]
    f.eval("DROP 1.5e 2.25e F* 0.5e F-")
    assert f.float_stack() == [float(np.float32(1.5) * np.float32(2.25) - np.float32(0.5))]
    assert f.data_stack() == []


def test_a_stack_the_line_does_not_touch_keeps_its_items(f):
    f.eval("1.25e 2.5e")  # floats first, then lines of cells only: their kernels leave the float depth alone
    for line in ("10 20 30", "+ *", "DUP 7 XOR", "DROP"):
        f.eval(line)
        assert f.float_stack() == [1.25, 2.5], line
    assert f.data_stack() == [10 * (20 + 30)]
    f.eval("F+ 3e F*")  # and a float line leaves the cells alone
    assert f.data_stack() == [500]
    assert f.float_stack() == [float((np.float32(1.25) + np.float32(2.5)) * np.float32(3))]
    assert "fsp" not in kernel_ir(f, "1 2 + DROP")
    assert "dsp" not in kernel_ir(f, "FDUP F* FDROP")


def test_a_failing_line_still_leaves_the_stacks_as_they_were(f):
    f.eval("4.5e 11 22")
    with pytest.raises(ForthError) as err:
        f.eval("DUP 0 /")
    assert "zero" in err.value.message.lower()
    assert f.data_stack() == [11, 22] and f.float_stack() == [4.5]


def test_loops_and_calls_still_count_steps(f):
    body = kernel_ir(f, "0 10 0 DO I + LOOP DROP")
    assert '%steps' in body  # a loop reads the step counter: it is made
    assert "\nfail:" in body  # and it may run out of steps
    f.eval(": spin  BEGIN 1 DROP AGAIN ;")
    f.step_budget = 100_000
    with pytest.raises(ForthError) as err:
        f.eval("spin")
    assert "step" in err.value.message.lower()
    with pytest.raises(ForthError):
        f.eval("BEGIN 0 UNTIL")
    f.step_budget = 1 << 26
    f.eval("0 100 0 DO I + LOOP")
    assert f.data_stack() == [sum(range(100))]


def test_a_line_that_calls_a_word_bounds_its_recursion(f):
    f.eval(": down ( n -- ) ?DUP IF 1- RECURSE THEN ;")
    assert "stack_top" in kernel_ir(f, "3 down")  # the callee checks the limit the kernel's entry sets
    f.eval("100 down")
    assert f.data_stack() == []
    with pytest.raises(ForthError) as err:
        f.eval("100000000 down")
    assert "recurs" in err.value.message.lower() or "stack" in err.value.message.lower()
    assert f.data_stack() == []
    f.eval("5 down 7")
    assert f.data_stack() == [7]


def test_checked_accesses_keep_their_range_cache(f):
    f.eval("CREATE buf 4 CELLS ALLOT")
    body = kernel_ir(f, "5 buf ! buf @ 1+ buf CELL+ ! buf CELL+ @ buf @ +")
    assert "range_lo" in body
    assert f.data_stack() == [11]
    with pytest.raises(ForthError) as err:
        f.eval("buf 100000000 + @")
    assert err.value.pos is not None and err.value.pos.col == 1 + len("buf 100000000 + ")
