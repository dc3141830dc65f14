"""Tiles in launches of several warps: each warp has its own tile stack.

    2 1 1 GRID 64 1 1 THREADS                 \\ 2 blocks of 2 warps
    : W# ( -- n ) BID-X 2 *  WARP-ID + ;    \\ the warp's number in the grid
    TZERO  A W# 512 * + 16 TLOAD-A  B 16 TLOAD-B  TMMA  C W# 1024 * + 16 TSTORE

Warp w multiplies rows 16w .. 16w+15 of A; the host reads warp w's tiles
with tile_stack(warp=w).
"""

import numpy as np
import pytest

import forthtest
from tiletest import assert_mma, f64, fails, rand, rand_int, tile_session

RNG = np.random.default_rng(32)

LAUNCHES = [
    ("2 1 1 GRID 64 1 1 THREADS", "BID-X 2 * WARP-ID +"),
    ("4 1 1 GRID 32 1 1 THREADS", "BID-X"),
    ("1 1 1 GRID 32 4 1 THREADS", "WARP-ID"),          # warps along y: WARP-ID = TID-Y
    ("1 2 1 GRID 32 2 1 THREADS", "BID-Y 2 * TID-Y +"),
]


@pytest.fixture(params=LAUNCHES, ids=[s for s, _ in LAUNCHES])
def launch(request):
    shape, warp_no = request.param
    f = tile_session(request.module.__name__, shape)
    f.eval(f": W# ( -- n ) {warp_no} ;")
    yield f
    n = len(f.tile_stack())
    if n:
        f.eval("TDROP " * n)


def test_each_warp_multiplies_its_own_rows(launch):
    f = launch
    f.eval("64 16 F16 MATRIX A  16 16 F16 MATRIX B  64 16 F32 MATRIX C")
    a, b = rand(RNG, (64, 16), np.float16), rand(RNG, (16, 16), np.float16)
    f.set_array("A", a), f.set_array("B", b)
    f.eval("TZERO  A W# 512 * + 16 TLOAD-A  B 16 TLOAD-B  TMMA")
    for w in range(4):                                     # the tiles live on, per warp
        (t,) = f.tile_stack(warp=w)
        assert t.kind == "acc"
        assert_mma(t.values, [(a[16 * w:16 * w + 16], b)], np.zeros((16, 16), np.float32))
    f.eval("C W# 1024 * + 16 TSTORE")
    assert all(f.tile_stack(warp=w) == [] for w in range(4))
    assert_mma(f.array("C"), [(a, b)], np.zeros((64, 16), np.float32))


def test_warp_uniform_branches(launch):
    """A condition that is the same for the 32 lanes of a warp may differ
    between warps: each warp runs its own branch."""
    f = launch
    f.eval("W# 2 MOD IF 1e TFILL ELSE W# S>F TFILL 3e TSCALE THEN")
    for w in range(4):
        (t,) = f.tile_stack(warp=w)
        assert (t.values == (1.0 if w % 2 else 3.0 * w)).all()
    # only warp 2 runs the tile ops in this IF
    f.eval("W# 2 = IF 10e TFILL T+ THEN")
    assert [float(f.tile_stack(warp=w)[0].values[0, 0]) for w in range(4)] == [0.0, 1.0, 16.0, 1.0]
    # the launch shape cannot change while the warps hold different tiles
    fails(f, "1 1 1 GRID", "TDROP", word="GRID")
    f.eval("TDROP")


def test_tiled_gemm_over_a_grid_of_blocks():
    """C (32x32) = A (32x64) . B (64x32) on a 2 x 2 grid of one-warp blocks:
    block (x, y) computes the tile at row y, column x, looping over k."""
    f = tile_session(__name__ + "-gemm", "2 2 1 GRID 32 1 1 THREADS")
    f.eval("32 64 F16 MATRIX GA  64 32 F16 MATRIX GB  32 32 F32 MATRIX GC  32 32 F32 MATRIX GC0")
    a, b = rand(RNG, (32, 64), np.float16), rand(RNG, (64, 32), np.float16)
    c0 = rand(RNG, (32, 32), np.float32)
    f.set_array("GA", a), f.set_array("GB", b), f.set_array("GC0", c0)
    f.eval(""": GEMM ( -- )
        GC0 BID-Y 16 32 * * BID-X 16 * + 4 * + 32 TLOAD-C
        4 0 DO
          GA  BID-Y 16 64 * *  I 16 * + 2 * +  64 TLOAD-A
          GB  I 16 * 32 *  BID-X 16 * + 2 * +  32 TLOAD-B
          TMMA
        LOOP
        GC BID-Y 16 32 * * BID-X 16 * + 4 * + 32 TSTORE ;""")
    f.eval("GEMM")
    got = f.array("GC")
    for y in range(2):
        for x in range(2):
            rows, cols = slice(16 * y, 16 * y + 16), slice(16 * x, 16 * x + 16)
            pairs = [(a[rows, 16 * i:16 * i + 16], b[16 * i:16 * i + 16, cols]) for i in range(4)]
            assert_mma(got[rows, cols], pairs, c0[rows, cols])


def test_blocks_of_several_warps_with_integers():
    """8 warps in 2 blocks of 128 threads, each storing its own exact tile."""
    f = tile_session(__name__ + "-8w", "2 1 1 GRID 128 1 1 THREADS")
    f.eval("128 16 F16 MATRIX A  16 16 F16 MATRIX B  128 16 F32 MATRIX C")
    a, b = rand_int(RNG, (128, 16), np.float16), rand_int(RNG, (16, 16), np.float16)
    f.set_array("A", a), f.set_array("B", b)
    f.eval("BID-X 4 * WARP-ID +  TZERO DUP 512 * A + 16 TLOAD-A  B 16 TLOAD-B  TMMA  1024 * C + 16 TSTORE")
    np.testing.assert_array_equal(f64(f.array("C")), f64(a) @ f64(b))
    forthtest.reset(f)


def test_launch_shape_change_keeps_a_uniform_tile_stack():
    """GRID and THREADS keep the tile stack when every warp holds the same
    tiles: each new warp starts with a copy."""
    f = tile_session(__name__ + "-reshape")
    f.eval("3e TFILL TZERO")
    f.eval("2 1 1 GRID 64 1 1 THREADS")
    for w in range(4):
        assert [float(t.values[0, 0]) for t in f.tile_stack(warp=w)] == [3.0, 0.0]
    f.eval("BID-X 2 * WARP-ID + S>F TFILL T+ T+")            # warp w: 3 + 0 + w
    assert [float(f.tile_stack(warp=w)[0].values[0, 0]) for w in range(4)] == [3.0, 4.0, 5.0, 6.0]
    fails(f, "1 1 1 GRID 32 1 1 THREADS", "every warp holds the same tiles", word="GRID")
    f.eval("0e TSCALE 1e TFILL T+ 1 1 1 GRID 32 1 1 THREADS")
    assert [float(t.values[0, 0]) for t in f.tile_stack()] == [1.0]
    f.eval("TDROP")


def test_warps_may_loop_a_different_number_of_times():
    """Warp w runs w+1 iterations: the lanes of each warp stay together."""
    f = tile_session(__name__ + "-trips", "2 1 1 GRID 64 1 1 THREADS")
    f.eval("TZERO  BID-X 2 * WARP-ID + 1+ 0 DO 1e TFILL T+ LOOP")
    assert [float(f.tile_stack(warp=w)[0].values[0, 0]) for w in range(4)] == [1.0, 2.0, 3.0, 4.0]
    f.eval("0e TSCALE")            # uniform again, so the session can be reset
    f.eval("TDROP")


def test_divergence_in_the_second_warp_of_the_second_block():
    f = forthtest.new_forth()      # (a divergent warp breaks its session: see test_tiles_errors)
    f.eval("2 1 1 GRID 64 1 1 THREADS")
    fails(f, "BID-X 1 = TID-X 40 < AND IF TZERO TDROP THEN", "divergent warp in block 1")
