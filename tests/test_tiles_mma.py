"""Tensor-core tiles: TLOAD, TMMA and TSTORE compared with numpy.

One warp multiplies 16x16 f16 matrices into an f32 accumulator:

    16 16 F16 MATRIX A   16 16 F16 MATRIX B   16 16 F32 MATRIX C
    TZERO                ( T: -- acc )
    A 16 TLOAD-A         ( T: acc -- acc a )       addr, stride in elements
    B 16 TLOAD-B         ( T: acc a -- acc a b )
    TMMA                 ( T: acc a b -- acc' )    acc' = acc + a.b
    C 16 TSTORE          ( T: acc -- )

Every shape (16 16 16, 32 8 16, 8 32 16 TILE-SHAPE) and type (F16/BF16
TILE-IN, F32/F16 TILE-ACC) is checked: exactly with small-integer data, and
within the tolerance of reference/tensor_cores.md §9 with random data.
"""

import numpy as np
import pytest

from tiletest import (ACC_DTYPE, ELEM_BYTES, IN_DTYPE, SHAPES, TYPES, assert_mma, f64, rand, rand_int,
                      settings, tile_session)

RNG = np.random.default_rng(16)
ALL = [(s, t) for s in SHAPES for t in TYPES]
IDS = [f"m{s[0]}n{s[1]}k{s[2]}-{t[0]}-{t[1]}" for s, t in ALL]


@pytest.fixture
def f(request):
    return tile_session(request.module.__name__)


def matrices(f, shape, in_type, acc, **extra):
    """MATRIX A (m x k), B (k x n), C and D (m x n) for one configuration."""
    m, n, k = shape
    it, at = in_type.upper(), acc.upper()
    f.eval(f"{m} {k} {it} MATRIX A  {k} {n} {it} MATRIX B  {m} {n} {at} MATRIX C  {m} {n} {at} MATRIX D")
    for name, (rows, cols, typ) in extra.items():
        f.eval(f"{rows} {cols} {typ.upper()} MATRIX {name}")


# ------------------------------------------------------------ exact results

@pytest.mark.parametrize("shape, types", ALL, ids=IDS)
def test_mma_small_integers_is_exact(f, shape, types):
    """Integers |a|, |b| <= 8 and |c| <= 1000: every partial sum is an exact
    integer (below 2048 for f16 accumulators), so D = C + A.B exactly."""
    (m, n, k), (in_type, acc) = shape, types
    settings(f, shape, in_type, acc)
    matrices(f, shape, in_type, acc)
    a, b = rand_int(RNG, (m, k), IN_DTYPE[in_type]), rand_int(RNG, (k, n), IN_DTYPE[in_type])
    c = RNG.integers(-1000, 1001, (m, n)).astype(ACC_DTYPE[acc])
    f.set_array("A", a), f.set_array("B", b), f.set_array("C", c)
    f.eval(f"C {n} TLOAD-C  A {k} TLOAD-A  B {n} TLOAD-B  TMMA  D {n} TSTORE")
    assert f.tile_stack() == []
    d = f.array("D")
    assert d.dtype == ACC_DTYPE[acc]
    np.testing.assert_array_equal(f64(d), f64(c) + f64(a) @ f64(b))
    np.testing.assert_array_equal(f.array("C"), c)          # the source of TLOAD-C is untouched


@pytest.mark.parametrize("shape, types", ALL, ids=IDS)
def test_values_persist_across_lines(f, shape, types):
    """The tile stack lives between lines, like the data stack: one line
    pushes, the next multiplies, a third stores. At each step the host sees
    each entry's kind, shape, type and values."""
    (m, n, k), (in_type, acc) = shape, types
    settings(f, shape, in_type, acc)
    matrices(f, shape, in_type, acc)
    a, b = rand_int(RNG, (m, k), IN_DTYPE[in_type]), rand_int(RNG, (k, n), IN_DTYPE[in_type])
    c = RNG.integers(-500, 501, (m, n)).astype(ACC_DTYPE[acc])
    f.set_array("A", a), f.set_array("B", b), f.set_array("C", c)

    f.eval("TZERO")
    (z,) = f.tile_stack()
    assert (z.kind, z.shape, z.dtype, z.mnk) == ("acc", (m, n), acc, shape)
    np.testing.assert_array_equal(z.values, np.zeros((m, n)))
    f.eval("TDROP")
    f.eval(f"C {n} TLOAD-C")
    f.eval(f"A {k} TLOAD-A  B {n} TLOAD-B")
    tc, ta, tb = f.tile_stack()
    assert [(t.kind, t.shape, t.dtype, t.layout, t.mnk) for t in (tc, ta, tb)] == [
        ("acc", (m, n), acc, "row", shape), ("a", (m, k), in_type, "row", shape),
        ("b", (k, n), in_type, "row", shape)]
    np.testing.assert_array_equal(f64(tc.values), f64(c))
    np.testing.assert_array_equal(f64(ta.values), f64(a))
    np.testing.assert_array_equal(f64(tb.values), f64(b))
    f.eval("TMMA")
    (t,) = f.tile_stack()
    expected = f64(c) + f64(a) @ f64(b)
    assert (t.kind, t.shape, t.dtype) == ("acc", (m, n), acc)
    np.testing.assert_array_equal(f64(t.values), expected)
    assert not f.array("D").any()                            # nothing stored yet
    f.eval(f"D {n} TSTORE")
    assert f.tile_stack() == []
    np.testing.assert_array_equal(f64(f.array("D")), expected)


# ------------------------------------------------------------ random data, tolerance

@pytest.mark.parametrize("shape, types", ALL, ids=IDS)
def test_mma_random_within_tolerance(f, shape, types):
    (m, n, k), (in_type, acc) = shape, types
    settings(f, shape, in_type, acc)
    matrices(f, shape, in_type, acc)
    a, b = rand(RNG, (m, k), IN_DTYPE[in_type]), rand(RNG, (k, n), IN_DTYPE[in_type])
    c = rand(RNG, (m, n), ACC_DTYPE[acc])
    f.set_array("A", a), f.set_array("B", b), f.set_array("C", c)
    f.eval(f"C {n} TLOAD-C A {k} TLOAD-A B {n} TLOAD-B TMMA TDUP D {n} TSTORE")
    d = f.array("D")
    assert_mma(d, [(a, b)], c, acc)
    (t,) = f.tile_stack()
    assert t.values.tobytes() == d.tobytes()                 # TSTORE writes the tile as it is
    f.eval("TDROP")


@pytest.mark.parametrize("dist", ["u[-1,1]", "u[0,1]", "normal"])
def test_mma_f16_f32_distributions(f, dist):
    """The distributions of the §9 experiment; same-sign data is the hard case
    for a truncating tensor core."""
    matrices(f, (16, 16, 16), "f16", "f32")
    gen = {"u[-1,1]": lambda s: rand(RNG, s, np.float16),
           "u[0,1]": lambda s: rand(RNG, s, np.float16, 2**-10, 1.0),
           "normal": lambda s: np.clip(RNG.normal(0, 1, s), -60000, 60000).astype(np.float16)}[dist]
    for _ in range(3):
        a, b, c = gen((16, 16)), gen((16, 16)), gen((16, 16)).astype(np.float32)
        f.set_array("A", a), f.set_array("B", b), f.set_array("C", c)
        f.eval("C 16 TLOAD-C A 16 TLOAD-A B 16 TLOAD-B TMMA D 16 TSTORE")
        assert_mma(f.array("D"), [(a, b)], c)


def test_bf16_range_beyond_f16(f):
    """bf16 keeps the f32 exponent range: values f16 cannot hold."""
    settings(f, in_type="bf16")
    matrices(f, (16, 16, 16), "bf16", "f32")
    a = (rand(RNG, (16, 16), np.float32) * 1e20).astype(IN_DTYPE["bf16"])
    b = (rand(RNG, (16, 16), np.float32) * 1e-30).astype(IN_DTYPE["bf16"])
    f.set_array("A", a), f.set_array("B", b)
    f.eval("TZERO A 16 TLOAD-A B 16 TLOAD-B TMMA D 16 TSTORE")
    assert_mma(f.array("D"), [(a, b)], np.zeros((16, 16), np.float32))


def test_f16_accumulator_rounds_to_f16(f):
    """An f16 accumulator holds f16 values: 2048 + 1 is not representable."""
    settings(f, acc="f16")
    matrices(f, (16, 16, 16), "f16", "f16")
    a = np.zeros((16, 16), np.float16)
    a[:, 0] = 1
    b = np.zeros((16, 16), np.float16)
    b[0, :] = np.arange(16) + 2048          # f16 spacing is 2 above 2048
    f.set_array("A", a), f.set_array("B", b)
    f.eval("TZERO A 16 TLOAD-A B 16 TLOAD-B TMMA D 16 TSTORE")
    expected = (f64(a) @ f64(b)).astype(np.float16)
    np.testing.assert_array_equal(f.array("D"), np.tile(expected[0], (16, 1)))


# ------------------------------------------------------------ column-major loads

@pytest.mark.parametrize("shape", SHAPES, ids=[f"m{m}n{n}k{k}" for m, n, k in SHAPES])
@pytest.mark.parametrize("in_type", ["f16", "bf16"])
@pytest.mark.parametrize("pad", [0, 8])
def test_column_major_loads(f, shape, in_type, pad):
    """TLOAD-A-COL reads a stored column by column (stride = column length,
    here optionally padded by 8 elements); likewise TLOAD-B-COL. Every
    combination of row and column operands gives the same product."""
    m, n, k = shape
    dt = IN_DTYPE[in_type]
    settings(f, shape, in_type)
    matrices(f, shape, in_type, "f32", AT=(k, m + pad, in_type), BT=(n, k + pad, in_type))
    a, b = rand_int(RNG, (m, k), dt), rand_int(RNG, (k, n), dt)
    at = np.zeros((k, m + pad), dt)
    at[:, :m] = a.T                          # column j of a is row j of AT
    bt = np.zeros((n, k + pad), dt)
    bt[:, :k] = b.T
    f.set_array("A", a), f.set_array("B", b), f.set_array("AT", at), f.set_array("BT", bt)
    expected = f64(a) @ f64(b)
    sa, sb = m + pad, k + pad

    f.eval(f"AT {sa} TLOAD-A-COL BT {sb} TLOAD-B-COL")
    ta, tb = f.tile_stack()
    assert (ta.kind, ta.shape, ta.layout, tb.kind, tb.shape, tb.layout) == ("a", (m, k), "col", "b", (k, n), "col")
    np.testing.assert_array_equal(f64(ta.values), f64(a))
    np.testing.assert_array_equal(f64(tb.values), f64(b))
    f.eval("TDROP TDROP")
    for la, lb in [(f"AT {sa} TLOAD-A-COL", f"B {n} TLOAD-B"), (f"A {k} TLOAD-A", f"BT {sb} TLOAD-B-COL"),
                   (f"AT {sa} TLOAD-A-COL", f"BT {sb} TLOAD-B-COL")]:
        f.eval(f"TZERO {la} {lb} TMMA D {n} TSTORE")
        np.testing.assert_array_equal(f64(f.array("D")), expected, err_msg=f"{la} {lb}")
        f.set_array("D", np.zeros((m, n), np.float32))


def test_column_major_bf16(f):
    settings(f, in_type="bf16")
    matrices(f, (16, 16, 16), "bf16", "f32", AT=(16, 16, "bf16"), BT=(16, 16, "bf16"))
    a, b = rand(RNG, (16, 16), IN_DTYPE["bf16"]), rand(RNG, (16, 16), IN_DTYPE["bf16"])
    f.set_array("AT", a.T), f.set_array("BT", b.T)
    f.eval("TZERO AT 16 TLOAD-A-COL BT 16 TLOAD-B-COL TMMA D 16 TSTORE")
    assert_mma(f.array("D"), [(a, b)], np.zeros((16, 16), np.float32))


# ------------------------------------------------------------ tiles inside bigger matrices

@pytest.mark.parametrize("shape, types", [(s, t) for s in SHAPES for t in TYPES if t[0] == "f16"],
                         ids=[f"m{s[0]}n{s[1]}k{s[2]}-{t[1]}" for s in SHAPES for t in TYPES if t[0] == "f16"])
def test_tile_inside_a_bigger_matrix(f, shape, types):
    """C[m:2m, 16:16+n] += A[m:2m, 0:k] . B[:, 16:16+n] with strides larger
    than the tile; the rest of C stays as it was."""
    (m, n, k), (in_type, acc) = shape, types
    settings(f, shape, in_type, acc)
    ra, ca, cb, cc = 2 * m, k + 8, n + 16, n + 16          # rows/cols of the big matrices
    f.eval(f"{ra} {ca} F16 MATRIX BIGA  {k} {cb} F16 MATRIX BIGB  {ra} {cc} {acc.upper()} MATRIX BIGC")
    a, b = rand(RNG, (ra, ca), np.float16), rand(RNG, (k, cb), np.float16)
    c = rand(RNG, (ra, cc), ACC_DTYPE[acc])
    f.set_array("BIGA", a), f.set_array("BIGB", b), f.set_array("BIGC", c)
    ea, ec = 2, ELEM_BYTES[acc]
    off_a, off_b, off_c = m * ca * ea, 16 * ea, (m * cc + 16) * ec
    assert off_a % 32 == off_b % 32 == off_c % 32 == 0          # the rules, for this test's own layout
    assert (ca * ea) % 16 == (cb * ea) % 16 == (cc * ec) % 16 == 0
    f.eval(f"BIGC {off_c} + {cc} TLOAD-C  BIGA {off_a} + {ca} TLOAD-A  BIGB {off_b} + {cb} TLOAD-B  TMMA "
           f"BIGC {off_c} + {cc} TSTORE")
    got = f.array("BIGC")
    tile = (slice(m, 2 * m), slice(16, 16 + n))
    assert_mma(got[tile], [(a[m:2 * m, :k], b[:, 16:16 + n])], c[tile], acc)
    rest = np.ones(c.shape, bool)
    rest[tile] = False
    np.testing.assert_array_equal(got[rest], c[rest])


def test_k_loop_accumulates_over_a_wide_matrix(f):
    """C = A.B with A 16x64 and B 64x16: four TMMAs into one accumulator, in
    a DO loop whose body leaves the tile stack as it found it."""
    f.eval("16 64 F16 MATRIX WA  64 16 F16 MATRIX WB")
    matrices(f, (16, 16, 16), "f16", "f32")
    a, b = rand(RNG, (16, 64), np.float16), rand(RNG, (64, 16), np.float16)
    f.set_array("WA", a), f.set_array("WB", b)
    f.eval("TZERO  4 0 DO  WA I 32 * + 64 TLOAD-A  WB I 512 * + 16 TLOAD-B  TMMA  LOOP  D 16 TSTORE")
    pairs = [(a[:, 16 * i:16 * i + 16], b[16 * i:16 * i + 16]) for i in range(4)]
    assert_mma(f.array("D"), pairs, np.zeros((16, 16), np.float32))
    # the same with BEGIN ... WHILE ... REPEAT, leaving the accumulator for the next line
    f.eval("TZERO  0 BEGIN DUP 4 < WHILE  WA OVER 32 * + 64 TLOAD-A  WB OVER 512 * + 16 TLOAD-B  TMMA  1+ "
           "REPEAT DROP")
    (t,) = f.tile_stack()
    assert t.values.tobytes() == f.array("D").tobytes()
    f.eval("TDROP")


def test_shared_memory_round_trip(f):
    """Tiles load from and store to SHARED: memory as from global memory."""
    matrices(f, (16, 16, 16), "f16", "f32")
    f.eval("1024 SHARED: SBUF")
    a, b = rand_int(RNG, (16, 16), np.float16), rand_int(RNG, (16, 16), np.float16)
    f.set_array("A", a), f.set_array("B", b)
    f.eval("TZERO A 16 TLOAD-A B 16 TLOAD-B TMMA SBUF 16 TSTORE BARRIER SBUF 16 TLOAD-C 2e TSCALE D 16 TSTORE")
    np.testing.assert_array_equal(f64(f.array("D")), 2 * (f64(a) @ f64(b)))


# ------------------------------------------------------------ definitions and settings

def test_colon_definitions_with_a_tile_effect(f):
    matrices(f, (16, 16, 16), "f16", "f32")
    a, b = rand_int(RNG, (16, 16), np.float16), rand_int(RNG, (16, 16), np.float16)
    c = RNG.integers(-100, 101, (16, 16)).astype(np.float32)
    f.set_array("A", a), f.set_array("B", b), f.set_array("C", c)
    f.eval(": MAC ( T: acc -- acc ) A 16 TLOAD-A B 16 TLOAD-B TMMA ;")
    f.eval(": MMA-AT ( a b -- ) ( T: acc -- acc' ) >R 16 TLOAD-A R> 16 TLOAD-B TMMA ;")
    f.eval(": ACC-C ( T: -- acc ) C 16 TLOAD-C ;")
    f.eval(": STORE-D ( T: acc -- ) D 16 TSTORE ;")
    f.eval(": MACS ( n -- ) ( T: acc -- acc ) 0 ?DO MAC LOOP ;")
    ab = f64(a) @ f64(b)
    f.eval("TZERO MAC MAC STORE-D")
    np.testing.assert_array_equal(f64(f.array("D")), 2 * ab)
    f.eval("ACC-C A B MMA-AT")
    f.eval("STORE-D")
    np.testing.assert_array_equal(f64(f.array("D")), f64(c) + ab)
    f.eval("ACC-C 3 MACS STORE-D")
    np.testing.assert_array_equal(f64(f.array("D")), f64(c) + 3 * ab)
    assert f.tile_stack() == [] and f.data_stack() == []
    # a word that uses and leaves tiles, with an IF whose branches agree
    f.eval(": MAYBE ( flag -- ) ( T: acc -- acc ) IF MAC ELSE 2e TSCALE THEN ;")
    f.eval("ACC-C 1 MAYBE 0 MAYBE STORE-D")
    np.testing.assert_array_equal(f64(f.array("D")), 2 * (f64(c) + ab))


def test_words_keep_the_settings_they_were_compiled_with(f):
    settings(f, shape=(32, 8, 16))
    f.eval(": Z328 TZERO ;")
    settings(f, shape=(8, 32, 16), acc="f16")
    f.eval(": Z832H TZERO ;")
    settings(f, in_type="bf16")
    f.eval("16 16 BF16 MATRIX A")
    f.eval(": LOAD-BF A 16 TLOAD-A ;")
    settings(f)
    f.eval("Z328 Z832H TZERO LOAD-BF")
    z328, z832h, z, a = [("acc", (32, 8), (32, 8, 16), "f32"), ("acc", (8, 32), (8, 32, 16), "f16"),
                         ("acc", (16, 16), (16, 16, 16), "f32"), ("a", (16, 16), (16, 16, 16), "bf16")]
    assert [(t.kind, t.shape, t.mnk, t.dtype) for t in f.tile_stack()] == [z328, z832h, z, a]
    # the shuffles move tiles of any configuration
    f.eval("TROT TSWAP")
    assert [(t.kind, t.shape, t.mnk, t.dtype) for t in f.tile_stack()] == [z328, z, z832h, a]
    f.eval("3 TROLL TOVER")
    assert [(t.kind, t.shape, t.mnk, t.dtype) for t in f.tile_stack()] == [z, z832h, a, z328, a]
    f.eval("TDROP TDROP TDROP TDROP TDROP")


@pytest.mark.parametrize("shape", SHAPES, ids=[f"m{m}n{n}k{k}" for m, n, k in SHAPES])
def test_gemm_word_compiled_under_a_shape(f, shape):
    """A whole GEMM word compiled under one shape and run after the settings
    changed back: C (2m x 2n) = A (2m x 2k) . B (2k x 2n), tile by tile, B
    stored column-major (a row-major B tile at column 8 of an f16 matrix
    would not be 32-byte aligned)."""
    m, n, k = shape
    M, N, K = 2 * m, 2 * n, 2 * k
    f.eval(f"{M} {K} F16 MATRIX GA  {N} {K} F16 MATRIX GBT  {M} {N} F32 MATRIX GC")
    settings(f, shape)
    f.eval(f""": TILE-MMA ( row col -- ) ( T: -- )
        TZERO
        2 0 DO
          OVER {m * K * 2} *  I {k * 2} * +  GA +  {K} TLOAD-A
          DUP {n * K * 2} *  I {k * 2} * +  GBT +  {K} TLOAD-B-COL
          TMMA
        LOOP
        SWAP {m * N * 4} *  SWAP {n * 4} * +  GC +  {N} TSTORE ;""")
    f.eval(": GEMM ( -- ) 2 0 DO 2 0 DO J I TILE-MMA LOOP LOOP ;")
    settings(f)
    a, b = rand(RNG, (M, K), np.float16), rand(RNG, (K, N), np.float16)
    f.set_array("GA", a), f.set_array("GBT", b.T)
    f.eval("GEMM")
    assert f.tile_stack() == [] and f.data_stack() == []
    got = f.array("GC")
    for r in range(2):
        for c in range(2):
            tile = (slice(r * m, r * m + m), slice(c * n, c * n + n))
            pairs = [(a[tile[0], i * k:i * k + k], b[i * k:i * k + k, tile[1]]) for i in range(2)]
            assert_mma(got[tile], pairs, np.zeros((m, n), np.float32))
