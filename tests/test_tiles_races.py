"""The race detector sees tile loads and stores (tileforth/backends/cpu/warpops.py, races.tf_race_many): each
line of a tile is one access of its warp, by the warp's first lane, in global and shared memory,
in the steps where the emulator performs warp ops (batched across warps, or warp by warp: both
paths), across the blocks of a launch and with several workers.

The expected reports come from test_races.py's reference model (first_race: the first access that
conflicts with an earlier one of another thread, not ordered by a BARRIER or, in one warp, a
SYNCWARP; blocks never ordered), given the accesses in the order the emulator makes them: a block's
threads run one after another up to a warp op, then the warps' tile ops are performed in warp
order. Values are checked against numpy."""
from __future__ import annotations

import numpy as np
import pytest
from test_races import check, first_race, parsed, report
from tileforth.backends.cpu import backend as cpu_backend
from tileforth.core import Forth, ForthError

LINE = 16 * 4  # a row of a 16×16 f32 tile, in bytes


def tile(block: int, warp: int, kind: str, base: int = 0, barriers: int = 0, syncwarps: int = 0) -> list[tuple]:
    """The 16 row accesses of a 16×16 f32 tile at byte offset `base` (stride 16), by the first lane of
    warp `warp` (block-relative, in a block of `per` threads set by the caller through `thread`)."""
    return [(block, None, warp, barriers, syncwarps, kind, base + r * LINE, LINE) for r in range(16)]


def by(accesses: list[tuple], thread: int) -> list[tuple]:
    return [(b, thread, w, e, s, k, a, n) for (b, _, w, e, s, k, a, n) in accesses]


@pytest.fixture
def f() -> Forth:
    f = Forth(backend="cpu")
    f.eval("16 16 F32 MATRIX C  32 16 F32 MATRIX D")
    return f


def test_two_warps_storing_over_each_other_race(f):
    f.eval("1 1 1 GRID 64 1 1 THREADS")
    msg = report(f, "WARP-ID 1+ S>F TFILL  C 16 TSTORE")
    expected = first_race(by(tile(0, 0, "w"), 0) + by(tile(0, 1, "w"), 32))
    check(msg, expected, "C")
    assert parsed(msg)["space"] == "global" and "line 1, column 28" in msg  # at TSTORE
    assert ("the warp of threads 0-31 wrote it with TSTORE (at <input>:1:28), then the warp of threads 32-63 "
            "wrote it with TSTORE, with no BARRIER") in msg
    # memory keeps what was stored before the race (warp 0's tile), as for scalar stores
    np.testing.assert_array_equal(f.array("C"), np.ones((16, 16), np.float32))


def test_each_warp_its_own_tile_is_no_race(f):
    f.eval("1 1 1 GRID 64 1 1 THREADS")
    f.eval("WARP-ID 1+ S>F TFILL  D WARP-ID 1024 * + 16 TSTORE")
    np.testing.assert_array_equal(f.array("D"), np.repeat([1.0, 2.0], 16)[:, None] * np.ones((32, 16), np.float32))
    assert first_race(by(tile(0, 0, "w"), 0) + by(tile(0, 1, "w", 1024), 32)) is None


def test_a_store_that_leaves_memory_as_it_was_is_no_race(f):
    """As for a scalar store of the bits memory holds: every warp storing the same tile."""
    f.eval("1 1 1 GRID 128 1 1 THREADS")
    f.eval("TZERO C 16 TSTORE")
    f.eval("3e TFILL C 16 TSTORE")
    np.testing.assert_array_equal(f.array("C"), np.full((16, 16), 3.0, np.float32))


def test_a_lanes_store_then_another_warps_tile_load_race(f):
    """Thread 32 stores into C's first row while warp 0 waits at its TLOAD-C; warp 0's load comes after."""
    f.eval("1 1 1 GRID 64 1 1 THREADS")
    msg = report(f, "TID-X 32 = IF 5e C SF! THEN  C 16 TLOAD-C TDROP")
    expected = first_race([(0, 32, 1, 0, 0, "w", 0, 4)] + by(tile(0, 0, "r"), 0) + by(tile(0, 1, "r"), 32))
    check(msg, expected, "C")
    assert "thread 32 wrote it (at <input>:1:20), then the warp of threads 0-31 read it with TLOAD-C," in msg
    assert report(f, "TID-X 32 = IF 5e C SF! THEN  BARRIER  C 16 TLOAD-C TDROP") is None


@pytest.mark.parametrize("offset", [0, 24, 56, 3 * LINE + 40])
def test_a_store_into_one_granule_of_a_line_is_found_wherever_it_is(f, offset):
    """A tile line's granules are checked one by one; the detector skips a granule whose shadow entry
    is the previous granule's (races.py): an f32 stored into the middle or the end of a line (SF!: C holds f32s), whose
    granules before it are alike, is still found where it is."""
    f.eval("1 1 1 GRID 64 1 1 THREADS")
    msg = report(f, f"TID-X 32 = IF 5e C {offset} + SF! THEN  C 16 TLOAD-C TDROP")
    expected = first_race([(0, 32, 1, 0, 0, "w", offset, 4)] + by(tile(0, 0, "r"), 0) + by(tile(0, 1, "r"), 32))
    check(msg, expected, "C")


def test_a_load_then_another_warps_store_race(f):
    f.eval("1 1 1 GRID 64 1 1 THREADS")
    msg = report(f, "WARP-ID 0= IF C 16 TLOAD-C TDROP THEN  WARP-ID 1 = IF 1e TFILL C 16 TSTORE THEN")
    expected = first_race(by(tile(0, 0, "r"), 0) + by(tile(0, 1, "w"), 32))
    check(msg, expected, "C")


def test_two_warps_loading_one_tile_is_no_race(f):
    f.eval("1 1 1 GRID 128 1 1 THREADS")
    f.eval("C 16 TLOAD-C TDROP")
    assert first_race(sum((by(tile(0, w, "r"), 32 * w) for w in range(4)), [])) is None


def test_a_lane_and_its_own_warps_tile_store_race_without_syncwarp(f):
    """A tile's elements are spread over the lanes (CUDA): lane 5's store and its warp's TSTORE of the
    same bytes race unless a SYNCWARP orders them."""
    f.eval("1 1 1 GRID 32 1 1 THREADS")
    msg = report(f, "TID-X 5 = IF 5e C SF! THEN  1e TFILL C 16 TSTORE")
    expected = first_race([(0, 5, 0, 0, 0, "w", 0, 4)] + by(tile(0, 0, "w"), 0))
    check(msg, expected, "C")
    assert report(f, "TID-X 5 = IF 5e C SF! THEN  SYNCWARP  1e TFILL C 16 TSTORE") is None
    assert first_race([(0, 5, 0, 0, 0, "w", 0, 4)] + by(tile(0, 0, "w", syncwarps=1), 0)) is None


def test_blocks_storing_over_each_other_race(f):
    f.eval("2 1 1 GRID 32 1 1 THREADS")
    msg = report(f, "BID-X 1+ S>F TFILL  C 16 TSTORE")
    expected = first_race(by(tile(0, 0, "w"), 0) + by(tile(1, 0, "w"), 32))
    check(msg, expected, "C")
    assert parsed(msg)["blocks"]


def test_tiles_in_shared_memory_race(f):
    """A launch with shared memory runs its blocks one after another (no gathering): the other path."""
    f.eval("1 1 1 GRID 64 1 1 THREADS  1024 SHARED: sh")
    msg = report(f, "WARP-ID 1+ S>F TFILL  sh 16 TSTORE")
    expected = first_race(by(tile(0, 0, "w"), 0) + by(tile(0, 1, "w"), 32))
    check(msg, expected, "sh")
    assert parsed(msg)["space"] == "shared"
    f.eval("2048 SHARED: sh2")
    f.eval("WARP-ID 1+ S>F TFILL  sh2 WARP-ID 1024 * + 16 TSTORE  BARRIER  sh2 1024 + 16 TLOAD-C")
    assert f.tile_stack(0)[0].values.tolist() == np.full((16, 16), 2.0).tolist()


def test_the_session_goes_on_after_a_tile_race(f):
    f.eval("1 1 1 GRID 64 1 1 THREADS 7")
    with pytest.raises(ForthError):
        f.eval("WARP-ID 1+ S>F TFILL  C 16 TSTORE")
    assert f.data_stack() == [7] and f.tile_stack(0) == []
    f.eval("WARP-ID 1+ S>F TFILL  D WARP-ID 1024 * + 16 TSTORE")
    assert f.array("D")[31, 15] == 2.0


def test_unchecked_sessions_do_not_look():
    g = Forth(backend="cpu", checked=False)
    g.eval("16 16 F32 MATRIX C  1 1 1 GRID 64 1 1 THREADS")
    g.eval("WARP-ID 1+ S>F TFILL  C 16 TSTORE")  # the last warp's tile stays
    np.testing.assert_array_equal(g.array("C"), np.full((16, 16), 2.0, np.float32))


@pytest.mark.parametrize("workers", [1, 4])
def test_several_workers_find_the_race_one_worker_finds(workers, monkeypatch):
    monkeypatch.setattr(cpu_backend, "PARALLEL_THREADS", 0)
    g = Forth(backend="cpu")
    g.backend.workers = workers
    g.eval("8 1 1 GRID 32 1 1 THREADS  160 16 F32 MATRIX C")
    msg = report(g, ": t BID-X S>F TFILL C BID-X 3 = BID-X 6 = OR 0= IF BID-X 1+ 1024 * + THEN 16 TSTORE ; t")
    expected = first_race(by(tile(3, 0, "w"), 96) + by(tile(6, 0, "w"), 192))
    check(msg, expected, "C")


def test_lanes_read_what_their_warps_store_wrote_after_a_syncwarp(f):
    """tensor_cores.md §8.8: lanes reading elements another lane's wmma.store wrote need a warp barrier
    first. Lane 0 stores the tile here (its warp's access); lane 1 is the first other lane to read."""
    f.eval("1 1 1 GRID 32 1 1 THREADS")
    msg = report(f, "2e TFILL C 16 TSTORE  C SF@ FDROP")
    expected = first_race(by(tile(0, 0, "w"), 0) + [(0, t, 0, 0, 0, "r", 0, 4) for t in range(32)])
    check(msg, expected, "C")
    f.eval("2e TFILL C 16 TSTORE  SYNCWARP  C SF@")
    assert f.float_stack(lane=None) == [[2.0]] * 32


def test_blocks_on_several_workers_storing_the_same_tile_do_not_race(monkeypatch):
    """Every warp of two blocks stores the same tile over C (the tour, in a session whose launch has two
    blocks): no race, as when the blocks run one after another, where every store after the first
    leaves memory as it was. Two workers run the blocks at once (shared memory declared: each runs its
    block alone): the warp ops of a step go one worker at a time (CpuBackend.warp_steps), or a store's
    check could see memory before the other block's write. It failed about one run in ten without."""
    monkeypatch.setattr(cpu_backend, "PARALLEL_THREADS", 0)
    for _ in range(30):
        g = Forth(backend="cpu")
        g.backend.workers = 2
        g.eval("16 16 F32 MATRIX C  2 1 1 GRID 256 1 1 THREADS  64 SHARED: sh")
        g.eval("2e TFILL C 16 TSTORE")
        np.testing.assert_array_equal(g.array("C"), np.full((16, 16), 2.0, np.float32))
