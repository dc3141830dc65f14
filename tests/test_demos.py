"""Every demo runs, and what it computes matches an independent reference."""
from pathlib import Path

import numpy as np

from tileforth.core import Forth

DEMOS = Path(__file__).resolve().parents[1] / "demos"


def test_tour_runs_and_shows_lanes_divergence_and_a_barrier():
    f = Forth()
    out = f.eval((DEMOS / "tour.fth").read_text(), source="tour.fth")
    # 1. every lane prints its own square
    for lane in range(32):
        assert f"[thread {lane}] {lane * lane} " in out
    # 2. even and odd lanes took different branches
    assert "even" in out and "odd" in out
    # 3. the block of 256 threads reversed its indices through shared memory
    np.testing.assert_array_equal(f.array("out"), np.arange(256)[::-1])
    assert "255 0" in out
    # 4. only the last lane of the warp spoke
    assert out.count("the last lane says hi") == 1
    assert f.launch_shape == ((1, 1, 1), (32, 1, 1))


def test_unchecked_mode_computes_the_same_as_checked_mode():
    src = """
    1 1 1 GRID 64 1 1 BLOCK
    64 I64 ARRAY xs
    : fill  TID-X DUP * TID-X CELLS xs + ! ;
    fill
    """
    results = []
    for checked in (True, False):
        f = Forth(checked=checked)
        f.eval(src)
        results.append(f.array("xs"))
    np.testing.assert_array_equal(results[0], np.arange(64) ** 2)
    np.testing.assert_array_equal(results[1], results[0])


def test_tour_leaves_the_stacks_empty():
    f = Forth()
    f.eval((DEMOS / "tour.fth").read_text(), source="tour.fth")
    assert f.data_stack(lane=None) == [[]] * 32
    assert f.float_stack(lane=None) == [[]] * 32
