"""Issue 10, items 5 and 8: a launch's work is bounded as a whole (loops spread
over threads, barriers, warp ops), and the smaller reliability fixes."""
from __future__ import annotations

import time

import pytest

from tileforth.core import Forth
from tileforth.core.errors import ForthError

RUNAWAYS = {
    "tile ops": ": t BEGIN TZERO TDROP AGAIN ; t",
    "barriers": ": h BEGIN BARRIER AGAIN ; h",
    "barriers, 1024 threads": "1024 1 1 BLOCK : h BEGIN BARRIER AGAIN ; h",
    "threads": "256 1 1 BLOCK VARIABLE v : w 60000000 0 DO 1 v +! LOOP ; w",
}
INFINITE = "the loop looks infinite (raise Forth.step_budget if it is not)"


def _runaway(f: Forth, src: str) -> tuple[ForthError, float]:
    t = time.perf_counter()
    with pytest.raises(ForthError) as exc:
        f.eval(src)
    secs = time.perf_counter() - t
    err = exc.value
    assert f"ran {f.step_budget} loop iterations" in err.message, err.message
    assert INFINITE in err.message and err.pos is not None, err.message
    return err, secs


def _still_works(f: Forth) -> None:
    assert f.eval("2 3 + .").strip() == "5"
    assert f.data_stack(lane=None) == [[] for _ in range(f.backend.nthreads)]
    assert f.tiles == []


# ---- item 5: the launch's step pool ----------------------------------------------------------
@pytest.mark.parametrize("name", RUNAWAYS)
def test_a_runaway_launch_stops_with_a_small_budget(name):
    f = Forth(backend="cpu")
    f.step_budget = 1 << 16
    err, secs = _runaway(f, RUNAWAYS[name])
    assert secs < 5, secs
    if name != "threads":  # there thread 0 alone runs past the small budget
        assert "summed over its" in err.message
    _still_works(f)


def test_the_default_budget_stops_each_runaway_within_seconds():
    """With the default Forth.step_budget every shape of runaway ends in a few
    seconds (before: ~11 min for the tile ops, minutes for the barriers, hours
    for 256 threads of a 60M-iteration loop)."""
    for name, src in RUNAWAYS.items():
        f = Forth(backend="cpu")
        _, secs = _runaway(f, src)
        assert secs < 5, (name, secs)
        _still_works(f)


def test_one_runaway_thread_is_still_named():
    f = Forth(backend="cpu")
    f.step_budget = 10_000
    err, _ = _runaway(f, ": x BEGIN AGAIN ; x")
    assert err.message.startswith("thread 0 ran 10000 loop iterations in x"), err.message


def test_the_budget_counts_the_whole_launch_and_is_settable():
    """256 threads of 10000 iterations are 2.56M iterations: over a budget of
    1M (each thread alone is well within it), fine under a larger one."""
    f = Forth(backend="cpu")
    f.eval("256 1 1 BLOCK : w 0 10000 0 DO 1+ LOOP ;")
    f.step_budget = 1_000_000
    err, _ = _runaway(f, "w")
    assert "summed over its 256 threads" in err.message and "in w" in err.message
    f.step_budget = 3_000_000
    f.eval("w")
    assert f.data_stack(lane=None) == [[10000]] * 256


def test_warp_ops_and_barriers_are_charged_to_the_budget():
    """A finite loop of tile ops or barriers runs under a budget that covers
    it and stops under one that does not."""
    f = Forth(backend="cpu")
    f.step_budget = 1 << 26
    f.eval(": t 100 0 DO TZERO TDROP LOOP ;  t  : h 1000 0 DO BARRIER LOOP ;  h")
    f.step_budget = 10_000  # 100 iterations of 2 tile ops cost more than this
    _runaway(f, "t")
    f.step_budget = 20_000  # 1000 barriers of 32 threads cost more than this
    _runaway(f, "h")
    _still_works(f)
