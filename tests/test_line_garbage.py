"""A new line's kernel leaves nothing for the cyclic garbage collector (compile/compiler.py: _dismantle):
its IR objects are freed by reference counting as the compile ends, so new lines at the prompt do not
pay the collector's passes (issue 27). The lines still compute what gforth computes, and the kernels'
code (cpu target: nounwind, no unwind tables) still reports errors at the right position."""
from __future__ import annotations

import gc
import itertools

import pytest

from tileforth.core import Forth, ForthError

import gforth

OPS = ("+", "-", "*", "MAX", "MIN", "XOR", "AND", "OR")


def _lines(n: int) -> list[str]:
    """n structurally different straight lines (each a new kernel)."""
    shapes = itertools.islice(itertools.product(OPS, repeat=3), n)
    return [f"3 5 {a} DUP {b} 7 {c} 11" for a, b, c in shapes]


@pytest.fixture
def forth():
    f = Forth(backend="cpu")
    yield f
    f.close()


def _cyclic_garbage(run) -> list[object]:
    """The objects that only the cyclic collector would free, of what `run()` left behind."""
    gc.collect()
    flags = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        found = list(gc.garbage)
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()
    return found


def test_new_lines_leave_no_cyclic_ir_garbage(forth):
    forth.eval("1 2 + DROP")  # the JIT and the scheduler set up first
    lines = _lines(12)
    compiled = forth.device.compiled
    stacks: list[list[int]] = []

    def run() -> None:
        for line in lines:
            forth.eval(line)
            stacks.append(forth.data_stack())
            forth.eval("DROP DROP")

    garbage = _cyclic_garbage(run)
    assert forth.device.compiled - compiled >= len(lines)  # each line was a new kernel (and DROP DROP one)
    ir_objects = [o for o in garbage if type(o).__module__.startswith("llvmlite.ir")]
    assert ir_objects == [], f"{len(ir_objects)} llvmlite IR objects left in cycles, e.g. {ir_objects[:3]}"
    gforth.require()
    assert stacks == [gforth.stack(line) for line in lines]


def test_kernels_still_report_errors_at_their_position(forth):
    """A plain kernel (no unwind tables) that fails: the error names the word's column, and the
    session keeps its state, as before."""
    forth.eval("7")  # then 7 3, 7, empty: the third DROP (column 17) underflows
    with pytest.raises(ForthError) as exc:
        forth.eval("1 2 + DROP DROP DROP DROP")
    assert "column 17" in str(exc.value) and "underflow" in str(exc.value)
    assert forth.data_stack() == [7]
