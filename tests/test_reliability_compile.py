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
def test_literal_count_beyond_data_stack(src, word):
    from tileforth.core import Forth
    from tileforth.core.compile.machine import Machine
    f = Forth(machine=Machine(ds_max=128))  # stacks of 128 cells, whatever the launch
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
    assert {p.name for p in PRIMS.values() if p.takes_literal} == {"PICK", "ROLL", "TROLL", "CP.WAIT",
                                                                          "REGS+", "REGS-", "WGMMA-WAIT"}
    assert not hasattr(scan, "LITERAL_ARG")


# ---- item 3: inlining by inlined size, not by node count ---------------------------
def test_doubling_chain_compiles_in_linear_time(fresh):
    f = fresh
    f.eval(": a0 1+ ;")
    for i in range(1, 16):
        f.eval(f": a{i} a{i-1} a{i-1} ;")
    assert f.eval("0 a15 .").split() == ["32768"]
    ir_text = f.eval("SEE-IR a15")
    assert 1 <= ir_text.count("call i1 @w") <= 16  # a15 calls words: it is not 2^15 inlined copies
    # linear, not exponential, in the chain: a15's IR is about as long as a5's (2^10 times fewer copies)
    assert len(ir_text) < 4 * len(f.eval("SEE-IR a5")) + 20000
    f.eval(": s0 1+ ; : s1 s0 s0 ;")
    assert "_s0(" not in f.eval("SEE-IR s1")  # a small word is still inlined


def test_barrier_chain_refused_when_too_large_once_inlined(fresh):
    f = fresh
    f.eval(": b0 BARRIER ;")
    err = None
    for i in range(1, 16):
        try:
            f.eval(f": b{i} b{i-1} b{i-1} ;")
        except ForthError as e:
            err, last = e, i
            break
    assert err is not None and err.pos is not None
    assert "too large once inlined" in err.message and "loop" in err.message
    assert last <= 12  # refused at the level where the inlined size passes the limit, not after 2^15 copies
    with pytest.raises(ForthError, match="undefined|unknown|not defined|not found"):
        f.eval(f"b{last}")  # the failed definition was not kept
    f.eval(f"7 b{last - 2} b{last - 3}")  # the session goes on
    assert f.data_stack() == [7]
    with pytest.raises(ForthError, match="too large once inlined"):
        f.eval(f"b{last - 1} b{last - 1} b{last - 1}")  # a line's inlines count together
    assert f.data_stack() == [7]


# ---- item 2: calls count against the step budget and poll the abort flag ------------
FIB = ": fib DUP 2 < IF EXIT THEN DUP 1- RECURSE SWAP 2 - RECURSE + ;"


def test_runaway_recursion_meets_the_step_budget(fresh):
    f = fresh
    f.eval("1 1 1 GRID 1 1 1 THREADS " + FIB)
    assert f.eval("20 fib .").split() == ["6765"]
    f.eval("5")
    f.step_budget = 100_000
    t = time.perf_counter()
    err = _fails(f, "60 fib .", "fib")
    assert err.pos is not None and time.perf_counter() - t < 5
    assert f.data_stack() == [5]


def test_runaway_recursion_stops_on_abort(fresh):
    f = fresh
    f.eval("1 1 1 GRID 1 1 1 THREADS " + FIB)
    f.step_budget = 10 ** 15
    timer = threading.Timer(0.3, f.backend.abort)
    timer.start()
    t = time.perf_counter()
    with pytest.raises(ForthError, match="interrupted"):
        f.eval("60 fib .")
    assert time.perf_counter() - t < 0.3 + 1
    timer.join()
    assert f.data_stack() == []


def test_a_call_tree_that_doubles_per_level_meets_the_budget(fresh):
    f = fresh
    f.eval("1 1 1 GRID 1 1 1 THREADS : c0 1+ ;")
    for i in range(1, 61):
        f.eval(f": c{i} c{i-1} c{i-1} ;")
    f.step_budget = 100_000
    t = time.perf_counter()
    _fails(f, "0 c60 .")
    assert time.perf_counter() - t < 5


# ---- item 1: recursion is bounded by the bytes of native stack, not only by count -----
DEEP = r'''
import sys, threading
from tileforth.core import Forth
from tileforth.core.errors import ForthError
f = Forth(backend="cpu")
f.eval("1 1 1 GRID 1 1 1 THREADS VARIABLE c 5 c !")
# 64 distinct values live across each RECURSE: a frame of about half a KiB
f.eval(": r DUP 0> IF 1- " + "c @ 7 * 3 XOR DUP c ! >R " * 64 + "RECURSE " + "R> + " * 64 + "THEN ;")
f.eval("42")
def work():
    try:
        f.eval("1999 r .")
        print("NO ERROR")
    except ForthError as e:
        print("ERROR", e.pos is not None, e)
    f.eval("3 r DROP")  # the session goes on
    print("STACK", f.data_stack())
threading.stack_size(512 * 1024)  # 1999 frames need about 1 MiB: twice this thread's stack
t = threading.Thread(target=work)
t.start()
t.join()
'''


def test_recursion_with_large_frames_is_an_error_not_a_segfault():
    res = subprocess.run([sys.executable, "-c", DEEP], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, (res.returncode, res.stderr[-2000:])
    assert "ERROR True" in res.stdout and "used up the stack the cpu backend allows" in res.stdout, res.stdout
    assert "STACK [42]" in res.stdout, res.stdout


def test_small_frames_still_recurse_to_the_count_limit(fresh):
    f = fresh
    f.eval("1 1 1 GRID 1 1 1 THREADS : down DUP 0> IF 1- RECURSE THEN ;")
    f.eval("1999 down")
    assert f.data_stack() == [0]
