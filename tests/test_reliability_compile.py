"""Issue 10, items 1-4: inputs that crashed, hung or exhausted the session
while compiling or running recursion: each is now a ForthError at the word,
and the session keeps its state."""
from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from tileforth.core.errors import ForthError


def _fails(f, src: str, *phrases: str) -> ForthError:
    """`src` fails with a positioned ForthError naming `phrases`; the stacks are untouched."""
    before = (f.data_stack(lane=None), f.float_stack(lane=None))
    with pytest.raises(ForthError) as exc:
        f.eval(src)
    err = exc.value
    assert err.pos is not None, err
    for p in phrases:
        assert p in err.message, err.message
    assert (f.data_stack(lane=None), f.float_stack(lane=None)) == before
    return err


# ---- item 4: literal counts beyond the stack ------------------------------------
@pytest.mark.parametrize("src, word", [
    ("1 2 3 10000 PICK", "PICK"),
    ("1 2 3 9223372036854775807 PICK", "PICK"),
    ("1 2 3 9223372036854775807 ROLL", "ROLL"),
    ("1 2 3 128 ROLL", "ROLL"),
    (": bad 1 2 3 10000 PICK ;", "PICK"),
])
def test_literal_count_beyond_data_stack(f, src, word):
    f.eval("7")
    t = time.perf_counter()
    err = _fails(f, src, word, "128 cells", "0 to 127")
    assert time.perf_counter() - t < 2
    assert err.pos.col == src.index(word) + 1 or err.pos.col == src.index(word)
    assert f.data_stack() == [7]


def test_literal_count_beyond_tile_stack(f):
    t = time.perf_counter()
    err = _fails(f, "TZERO 10000000000 TROLL", "TROLL", "8 tiles", "0 to 7")
    assert time.perf_counter() - t < 2
    assert err.word == "TROLL"


def test_literal_counts_within_the_stack_still_work(f):
    assert f.eval("1 2 3 2 PICK . 2 ROLL . . . ") .split() == ["1", "1", "3", "2"]
    f.eval(" ".join(str(i) for i in range(127)) + " 126 PICK")
    assert f.data_stack()[-1] == 0 and len(f.data_stack()) == 128
    f.eval("DROP 126 ROLL")
    assert f.data_stack()[-1] == 0 and len(f.data_stack()) == 127


def test_takes_literal_is_one_rule():
    from tileforth.core.compile.primitives import TABLE as PRIMS
    from tileforth.repl import scan
    assert {p.name for p in PRIMS.values() if p.takes_literal} == {"PICK", "ROLL", "TROLL"}
    assert not hasattr(scan, "LITERAL_ARG")
