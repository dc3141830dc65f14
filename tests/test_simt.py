"""SIMT: every thread runs each line on its own stacks.

The default launch shape is one block of one warp (32 threads):

    TID-X          \\ thread t leaves t
    TID-X DUP *    \\ thread t leaves t*t

Results are checked per thread with `data_stack(lane=None)` and, for kernels
that write device arrays, against numpy.
"""

import itertools

import numpy as np

from forthtest import raises


def threads(f):
    return f.data_stack(lane=None)


# ------------------------------------------------------ per-thread stacks

def test_tid_x_over_one_warp(f):
    f.eval("TID-X")
    assert threads(f) == [[t] for t in range(32)]
    assert f.data_stack() == [0]          # thread 0 of block 0


def test_per_thread_arithmetic(f):
    f.eval("TID-X DUP * 7 MOD  TID-X 3 -")
    t = np.arange(32)
    assert threads(f) == [[int(a), int(b)] for a, b in zip(t * t % 7, t - 3)]


def test_divergent_if(f):
    f.eval("TID-X 2 MOD IF 100 ELSE 200 THEN")
    assert threads(f) == [[100 if t % 2 else 200] for t in range(32)]


def test_per_thread_depth_differs(f):
    # thread t runs t iterations: stacks of different depths
    f.eval("TID-X 0 ?DO I LOOP")
    assert threads(f) == [list(range(t)) for t in range(32)]


def test_per_thread_definition(f):
    f.eval(": TRI ( n -- n*[n+1]/2 ) DUP 1+ * 2 / ;")
    f.eval("TID-X TRI")
    assert threads(f) == [[t * (t + 1) // 2] for t in range(32)]


def test_per_thread_floats(f):
    f.eval("TID-X S>F FSQRT")
    expected = np.sqrt(np.arange(32, dtype=np.float32))
    assert f.float_stack(lane=None) == [[float(x)] for x in expected]


def test_uniform_literal_in_every_thread(f):
    f.eval("1 2 +")
    assert threads(f) == [[3]] * 32


def test_lane_and_warp_ids(fresh):
    f = fresh
    f.eval("1 1 1 GRID 64 1 1 THREADS")
    f.eval("TID-X LANE-ID WARP-ID")
    st = threads(f)
    assert len(st) == 64
    assert sorted(st) == sorted([t, t % 32, t // 32] for t in range(64))


def test_dimensions_are_uniform(fresh):
    f = fresh
    f.eval("4 2 1 GRID 8 4 2 THREADS")
    f.eval("BDIM-X BDIM-Y BDIM-Z GDIM-X GDIM-Y GDIM-Z")
    st = threads(f)
    assert len(st) == 4 * 2 * 1 * 8 * 4 * 2
    assert all(s == [8, 4, 2, 4, 2, 1] for s in st)


def test_3d_thread_and_block_ids(fresh):
    f = fresh
    f.eval("2 2 2 GRID 4 2 2 THREADS")
    f.eval("TID-X TID-Y TID-Z BID-X BID-Y BID-Z")
    st = threads(f)
    expected = [[tx, ty, tz, bx, by, bz]
                for bx, by, bz in itertools.product(range(2), range(2), range(2))
                for tx, ty, tz in itertools.product(range(4), range(2), range(2))]
    assert sorted(st) == sorted(expected)


def test_global_id_over_several_blocks(fresh):
    f = fresh
    f.eval("4 1 1 GRID 64 1 1 THREADS")
    f.eval("GLOBAL-ID  BID-X BDIM-X * TID-X +")
    st = threads(f)
    assert len(st) == 256
    assert all(g == h for g, h in st)                # GLOBAL-ID = BID-X*BDIM-X + TID-X
    assert sorted(g for g, _ in st) == list(range(256))
    assert f.data_stack() == [0, 0]


def test_global_id_writes_every_element(fresh):
    f = fresh
    f.eval("4 1 1 GRID 64 1 1 THREADS")
    f.eval("256 I32 ARRAY IDS")
    f.eval("GLOBAL-ID DUP * 1+  IDS GLOBAL-ID 4 * + I32!")
    np.testing.assert_array_equal(f.array("IDS"), np.arange(256, dtype=np.int32) ** 2 + 1)


def test_saxpy_kernel(fresh):
    f = fresh
    n = 1024
    rng = np.random.default_rng(7)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    f.eval(f"{n} F32 ARRAY X  {n} F32 ARRAY Y")
    f.set_array("X", x)
    f.set_array("Y", y)
    f.eval(": SAXPY ( F: a -- ) GLOBAL-ID 4 * DUP X + F@ F* Y + DUP F@ F+ F! ;")
    f.eval(f"{n // 128} 1 1 GRID 128 1 1 THREADS")
    f.eval("2.5e0 SAXPY")
    expected = np.float32(2.5) * x + y
    np.testing.assert_allclose(f.array("Y"), expected, rtol=1e-6, atol=1e-6)
    assert f.float_stack(lane=None) == [[]] * n


# ------------------------------------------------------ shared memory, BARRIER

def test_shared_memory_reversal(fresh):
    """Each thread writes into a SHARED: buffer, waits at BARRIER, then reads
    the element of its mirror thread."""
    f = fresh
    f.eval("1 1 1 GRID 256 1 1 THREADS")
    f.eval("256 I64 ARRAY OUT")
    f.eval("256 CELLS SHARED: BUF")
    f.eval(": REVERSE  TID-X 3 * 1+  BUF TID-X CELLS + !  BARRIER "
           "BUF 255 TID-X - CELLS + @  OUT TID-X CELLS + ! ;")
    f.eval("REVERSE")
    t = np.arange(256, dtype=np.int64)
    np.testing.assert_array_equal(f.array("OUT"), (255 - t) * 3 + 1)


def test_shared_memory_reversal_at_the_prompt(fresh):
    f = fresh
    f.eval("1 1 1 GRID 256 1 1 THREADS")
    f.eval("256 I32 ARRAY OUT2")
    f.eval("1024 SHARED: BUF2")
    f.eval("TID-X BUF2 TID-X 4 * + I32! BARRIER BUF2 255 TID-X - 4 * + I32@ OUT2 TID-X 4 * + I32!")
    np.testing.assert_array_equal(f.array("OUT2"), np.arange(255, -1, -1, dtype=np.int32))


def test_shared_memory_is_per_block(fresh):
    """Each block sees its own copy of the SHARED: buffer."""
    f = fresh
    f.eval("3 1 1 GRID 64 1 1 THREADS")
    f.eval("192 I64 ARRAY NB")
    f.eval("64 CELLS SHARED: ROWBUF")
    f.eval(": NEIGHBOUR  BID-X 1000 * TID-X +  ROWBUF TID-X CELLS + !  BARRIER "
           "ROWBUF TID-X 1+ 64 MOD CELLS + @  NB GLOBAL-ID CELLS + ! ;")
    f.eval("NEIGHBOUR")
    b, t = np.divmod(np.arange(192), 64)
    np.testing.assert_array_equal(f.array("NB"), b * 1000 + (t + 1) % 64)


def test_shared_address_is_uniform_in_a_block(fresh):
    f = fresh
    f.eval("1 1 1 GRID 64 1 1 THREADS")
    f.eval("64 SHARED: SBUF")
    f.eval("SBUF")
    st = threads(f)
    assert len(st) == 64 and len({tuple(s) for s in st}) == 1


def test_block_reduction_with_barriers(fresh):
    """Tree sum in shared memory: log2(256) steps, a BARRIER after each."""
    f = fresh
    rng = np.random.default_rng(3)
    data = rng.integers(-1000, 1000, size=512, dtype=np.int64)
    f.eval("2 1 1 GRID 256 1 1 THREADS")
    f.eval("512 I64 ARRAY DATA  2 I64 ARRAY SUMS")
    f.set_array("DATA", data)
    f.eval("256 CELLS SHARED: PART")
    f.eval(": S[] ( i -- addr ) CELLS PART + ;")
    f.eval(": BLOCK-SUM  DATA GLOBAL-ID CELLS + @  TID-X S[] !  BARRIER "
           "128 BEGIN DUP 0> WHILE "
           "  TID-X OVER < IF TID-X S[] @  OVER TID-X + S[] @ +  TID-X S[] ! THEN "
           "  BARRIER 2/ REPEAT DROP "
           "TID-X 0= IF 0 S[] @  SUMS BID-X CELLS + ! THEN ;")
    f.eval("BLOCK-SUM")
    np.testing.assert_array_equal(f.array("SUMS"), data.reshape(2, 256).sum(axis=1))


def test_tiled_matmul_in_shared_memory(fresh):
    """C = A @ B with 16x16 tiles staged in shared memory: per tile step, every
    thread loads one element of A and of B, BARRIER, 16 multiply-adds,
    BARRIER. One thread per element of C; the grid covers C."""
    f = fresh
    M, K, N = 32, 48, 64
    rng = np.random.default_rng(42)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    f.eval(f"{M} {K} F32 MATRIX A")
    f.eval(f"{K} {N} F32 MATRIX B")
    f.eval(f"{M} {N} F32 MATRIX C")
    f.set_array("A", a)
    f.set_array("B", b)
    f.eval("16 16 * 4 * SHARED: AS")
    f.eval("16 16 * 4 * SHARED: BS")
    f.eval(f"{K} CONSTANT KDIM  {N} CONSTANT NDIM")
    for line in [
        ": ROW ( -- r ) BID-Y 16 * TID-Y + ;",
        ": COL ( -- c ) BID-X 16 * TID-X + ;",
        ": TILE ( r c -- offset ) SWAP 16 * + 4 * ;",
        ": A-AT ( r c -- addr ) SWAP KDIM * + 4 * A + ;",
        ": B-AT ( r c -- addr ) SWAP NDIM * + 4 * B + ;",
        ": C-AT ( r c -- addr ) SWAP NDIM * + 4 * C + ;",
        ": LOAD-TILES { t -- } "
        "  ROW  t 16 * TID-X +  A-AT F@  TID-Y TID-X TILE AS + F! "
        "  t 16 * TID-Y +  COL  B-AT F@  TID-Y TID-X TILE BS + F! ;",
        ": MAC-TILE ( F: acc -- acc' ) "
        "  16 0 DO  TID-Y I TILE AS + F@  I TID-X TILE BS + F@  F* F+  LOOP ;",
        ": MATMUL ( -- ) 0e  KDIM 16 / 0 DO  I LOAD-TILES BARRIER MAC-TILE BARRIER  LOOP "
        "  ROW COL C-AT F! ;",
    ]:
        f.eval(line)
    f.eval(f"{N // 16} {M // 16} 1 GRID 16 16 1 THREADS")
    f.eval("MATMUL")
    c = f.array("C")
    assert c.shape == (M, N) and c.dtype == np.float32
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64),
                               rtol=1e-4, atol=1e-4)
    assert f.data_stack() == [] and f.float_stack() == []


def test_uniform_barrier_is_fine(f):
    f.eval("5")
    f.eval("BARRIER 1 IF BARRIER THEN")
    assert threads(f) == [[5]] * 32


# ------------------------------------------------------ errors

def test_divergent_barrier_names_lanes(f):
    f.eval("7")
    err = raises(f, "TID-X 16 < IF BARRIER THEN", line=1)
    msg = str(err).lower()
    assert "lane" in msg or "thread" in msg
    assert "15" in msg or "16" in msg, msg
    assert threads(f) == [[7]] * 32


def test_divergent_barrier_in_a_definition(f):
    f.eval(": HALF-SYNC TID-X 2 MOD IF BARRIER THEN ;")
    err = raises(f, "HALF-SYNC")
    assert "lane" in str(err).lower() or "thread" in str(err).lower()


def test_barrier_reached_by_one_warp_only(fresh):
    f = fresh
    f.eval("1 1 1 GRID 64 1 1 THREADS")
    err = raises(f, "WARP-ID 0= IF BARRIER THEN")
    assert "barrier" in str(err).lower()


def test_host_word_needs_a_uniform_value(f):
    # CONSTANT takes one value for the whole machine; per-thread values differ
    err = raises(f, "TID-X CONSTANT PER-LANE")
    assert "uniform" in str(err).lower() or "thread" in str(err).lower() or "lane" in str(err).lower()
    raises(f, "PER-LANE", word="PER-LANE")


def test_grid_needs_uniform_values(f):
    raises(f, "TID-X 1 1 GRID")


def test_bad_address_names_the_lane(f):
    # only lane 5 reads address 0
    err = raises(f, "TID-X 5 = IF 0 @ DROP THEN", word="@")
    assert "5" in str(err)


def test_shape_words_change_the_thread_count(fresh):
    f = fresh
    f.eval("2 1 1 GRID 16 1 1 THREADS")
    f.eval("GLOBAL-ID")
    assert sorted(threads(f)) == [[g] for g in range(32)]
