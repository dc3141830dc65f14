"""The FLOATING and FLOATING-EXT words (tileforth/core/compile/floatwords.py) against gforth.

gforth computes in f64 on the same inputs (every input is an f32 value, and its
literal denotes it exactly), so gforth's result rounded to f32 is the correctly
rounded answer; tileforth's f32 functions (libm on the cpu backend) must be
within 2 ulp of it, NaN where it is NaN (domain errors), the same infinity:

    2e FASIN            ( F: -- NaN )
    1e FATANH           ( F: -- inf )
    100e FLOG           ( F: -- 2.0 )   FLOG is log10, FLN is ln

Each word runs twice: on literals (one line, which LLVM may fold) and on an
F32 ARRAY read by 32 threads, each thread its own element (the code that runs).
The float words without an f64 counterpart (FLOATS FLOAT+ FALIGNED: a float
is 4 bytes) are compared with gforth's SFLOATS SFLOAT+ SFALIGNED. The last
test compiles them for the GPU: PTX that ptxas accepts, libdevice inlined.
"""

import math
import struct

import numpy as np
import pytest

import gforth
from forthtest import run_chunks

F32 = np.float32
INF, NAN = math.inf, math.nan

GPRELUDE = "create fbuf 8 allot : fbits ( F: r -- n ) fbuf df! fbuf @ ;\n"


def lit(x) -> str:
    """A Forth expression (tileforth and gforth) for the f32 value x."""
    x = float(F32(x))
    if math.isnan(x):
        return "0e 0e F/"
    if math.isinf(x):
        return "1e 0e F/" if x > 0 else "-1e 0e F/"
    r = repr(x).replace("e+", "e")
    return r if "e" in r else r + "e0"


def to_f32(v: float) -> float:
    with np.errstate(over="ignore"):
        return float(F32(v))


def gforth_floats(snippets: list[str]) -> list[float]:
    """Each snippet leaves floats in gforth: their values (f64, exact), in order."""
    ints = gforth.stack(GPRELUDE + " ".join(snippets))
    return [struct.unpack("<d", struct.pack("<q", n))[0] for n in ints]


def ordered(x: float) -> int:
    """f32 bits mapped so that adjacent floats differ by 1 (and -0 == +0)."""
    n = struct.unpack("<i", struct.pack("<f", x))[0]
    return n if n >= 0 else -(n & 0x7FFFFFFF)


def agree(got: float, want: float, ulps: int) -> bool:
    want = to_f32(want)
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want) or math.isinf(got):
        return got == want
    if want == 0 and got == 0:
        return math.copysign(1, got) == math.copysign(1, want)
    return abs(ordered(got) - ordered(want)) <= ulps


def assert_agree(inputs, got, want, ulps):
    bad = [(x, g, w) for x, g, w in zip(inputs, got, want) if not agree(g, w, ulps)]
    assert len(got) == len(want) and not bad, f"(input, tileforth, gforth): {bad[:6]}"


def lanes(f, inputs: list[tuple], code: str, nfloats: int = 1) -> list:
    """Run `code` on 32 threads, thread t reading inputs[t] (tuples of floats)
    from F32 arrays X0 X1 ...; the floats each thread leaves, by thread."""
    out = []
    arity = len(inputs[0])
    for start in range(0, len(inputs), 32):
        chunk = inputs[start:start + 32]
        for k in range(arity):
            col = np.array([c[k] for c in chunk] + [1.0] * (32 - len(chunk)), dtype=np.float32)
            if f"X{k}" not in f.dict:
                f.eval(f"32 F32 ARRAY X{k}")
            f.set_array(f"X{k}", col)
        loads = " ".join(f"X{k} TID-X 4 * + F@" for k in range(arity))
        f.eval(f"{loads} {code}")
        per = f.float_stack(lane=None)
        ints = f.data_stack(lane=None)
        f.eval("FDROP " * nfloats + "DROP " * len(ints[0]))
        out += [(p, i) for p, i in zip(per, ints)][:len(chunk)]
    return out


# ------------------------------------------------------------ unary functions

UNARY = {
    "FLOG": [1, 10, 100, 1e-3, 2, 0.5, 12345, 3.4e38, 1e-30, 0.0, -0.0, -1, INF, NAN],
    "FLN": [1, math.e, 0.5, 1e-5, 1e30, 2, 0.0, -1, INF],
    "FALOG": [0, 1, 2, -1, 0.5, -3.3, 38, 39, -37, -50, -INF, NAN],
    "FEXPM1": [0.0, -0.0, 1e-7, -1e-7, 1e-3, 0.5, -0.5, 1, 10, -20, 88, 89, -INF, NAN],
    "FLNP1": [0.0, 1e-7, -1e-7, 1e-3, -0.5, 1, 1e10, -1, -2, INF],
    "FTAN": [0.0, -0.0, 0.5, 1, -1, 1.5707964, 3, 100, -1000, 1e-6, INF],
    "FASIN": [0.0, 0.5, -0.5, 1, -1, 0.999, 1e-5, 1.0000001, 2, -2],
    "FACOS": [0.0, 0.5, -0.5, 1, -1, 0.999, 1e-5, 1.0000001, 2, -2],
    "FATAN": [0.0, -0.0, 0.5, -0.5, 1, -1, 10, -1e6, 1e30, INF, -INF, 1e-6],
    "FSINH": [0.0, 0.5, -0.5, 1, -3, 10, 88, 90, 1e-6, -INF],
    "FCOSH": [0.0, 0.5, -0.5, 1, -3, 10, 88, 90, -INF],
    "FTANH": [0.0, -0.0, 0.5, -0.5, 1, -3, 10, 1e-6, INF, -INF],
    "FASINH": [0.0, 0.5, -0.5, 1, -3, 10, 1e6, 1e30, 1e-6, -INF],
    "FACOSH": [1, 1.5, 2, 10, 1e6, 1e30, 0.5, 0.0, -1, INF],
    "FATANH": [0.0, 0.5, -0.5, 0.99, -0.999, 1e-6, 1, -1, 2, -2],
    "FTRUNC": [-2.5, 2.5, -0.5, 0.7, -2.7, 1e10, -1e30, 8388607.5, -8388607.5, 0.0, -0.0, INF, -INF, NAN],
    # the words that were here before, now in one table with the new ones
    "FEXP": [0.0, 1, -1, 0.5, 10, -20, 88, 89],
    "FSIN": [0.0, 0.5, -1, math.pi / 2, 3, -6, 100],
    "FCOS": [0.0, 0.5, -1, math.pi, 3, -6, 100],
}
RNG = np.random.default_rng(11)


def spread(word: str) -> list[float]:
    """The table's inputs, then random ones in the function's domain."""
    xs = [to_f32(x) for x in UNARY[word]]
    lo, hi = {"FASIN": (-1, 1), "FACOS": (-1, 1), "FATANH": (-1, 1), "FACOSH": (1, 50), "FLOG": (0, 1e6),
              "FLN": (0, 1e6), "FLNP1": (-1, 100), "FALOG": (-30, 30)}.get(word, (-20, 20))
    return xs + [to_f32(x) for x in RNG.uniform(lo, hi, 40 - len(xs))]


@pytest.mark.parametrize("word", sorted(UNARY))
def test_unary_like_gforth(f, need_gforth, word):
    xs = spread(word)
    want = gforth_floats([f"{lit(x)} {word} fbits" for x in xs])
    ulps = 0 if word == "FTRUNC" else 2
    if word == "FTRUNC":
        # gforth 0.7.3's FTRUNC goes through a double (F>D D>F): -0.5 gives +0, inf 0; the
        # standard's "round toward zero" is IEEE trunc, which keeps the sign and infinities
        assert all(w == np.trunc(x) for x, w in zip(xs, want) if abs(x) < 2.0**63)
        want = [float(np.trunc(F32(x))) for x in xs]
    _, got = run_chunks(f, [f"{lit(x)} {word}" for x in xs])        # literals
    assert_agree(xs, got, want, ulps)
    got = [p[0] for p, _ in lanes(f, [(x,) for x in xs], word)]     # 32 threads, values from memory
    assert_agree(xs, got, want, ulps)


def test_flog_is_log10_and_fln_is_ln(f):
    _, got = run_chunks(f, ["1000e FLOG", "1e-2 FLOG", "1e FLN", f"{lit(math.e)} FLN", "-1e FLOG", "0e FLN"])
    assert got[:3] == [3.0, -2.0, 0.0] and math.isnan(got[4]) and got[5] == -INF
    assert got[3] == to_f32(math.log(to_f32(math.e)))       # ln of the f32 nearest e


# ------------------------------------------------------------ binary functions

BINARY = {
    "F**": [(2, 10), (2, -1), (2, 0.5), (-8, 1 / 3), (-2, 3), (-2, 2), (0.0, -1), (-0.0, -1), (0.0, 0.0),
            (1, NAN), (NAN, 0.0), (10, 38), (10, 39), (0.5, 100), (1.5, -7.3), (-0.0, 3), (INF, -1),
            (3, 0.5), (-INF, 3), (0.9, INF), (1.1, -INF), (7, 1e-3)],
    # atan2(y=r1, x=r2): every quadrant, the axes, signed zeros and infinities
    "FATAN2": [(1, 1), (1, -1), (-1, -1), (-1, 1), (0.0, 1), (0.0, -1), (-0.0, -1), (-0.0, 1), (0.0, 0.0),
               (0.0, -0.0), (-0.0, -0.0), (-0.0, 0.0), (1, 0.0), (-1, 0.0), (1, -0.0), (INF, INF), (INF, -INF),
               (-INF, -INF), (-INF, 3), (3, INF), (3, -INF), (3, 1e-30), (1e-30, -3), (2.5, -7), (NAN, 1),
               (1, NAN), (-4.5, -0.25), (0.25, 4.5)],
}


@pytest.mark.parametrize("word", sorted(BINARY))
def test_binary_like_gforth(f, need_gforth, word):
    pairs = BINARY[word] + [tuple(to_f32(v) for v in p) for p in RNG.uniform(0.1, 9, (10, 2))]
    want = gforth_floats([f"{lit(a)} {lit(b)} {word} fbits" for a, b in pairs])
    _, got = run_chunks(f, [f"{lit(a)} {lit(b)} {word}" for a, b in pairs])
    assert_agree(pairs, got, want, 2)
    got = [p[0] for p, _ in lanes(f, pairs, word)]
    assert_agree(pairs, got, want, 2)


def test_fatan2_quadrants(f):
    _, got = run_chunks(f, [f"{lit(y)} {lit(x)} FATAN2" for y, x in [(1, 1), (1, -1), (-1, -1), (-1, 1)]])
    assert [round(g / math.pi * 4) for g in got] == [1, 3, -3, -1]


def test_fsincos_like_gforth(f, need_gforth):
    xs = [0.0, -0.0, 0.3, -1, 3.14159, 100, -1e4, 1e-7, 2.5]
    want = gforth_floats([f"{lit(x)} fsincos fswap fbits fbits" for x in xs])   # sin (below) cos (top)
    _, got = run_chunks(f, [f"{lit(x)} FSINCOS" for x in xs])
    assert_agree([x for x in xs for _ in "sc"], got, want, 2)
    got = [v for p, _ in lanes(f, [(x,) for x in xs], "FSINCOS", 2) for v in p]
    assert_agree([x for x in xs for _ in "sc"], got, want, 2)


# ------------------------------------------------------------ F~ F0> FROT FDEPTH

APPROX = [
    # r3 > 0: |r1 - r2| < r3
    (1, 1.05, 0.1), (1, 1.5, 0.5), (1, 1.5, 0.75), (-1, 1, 2.5), (-1, 1, 1.5), (5, 5, 1e-30), (NAN, 1, 1),
    (1, 2, INF), (INF, INF, 1),
    # r3 = 0 (and -0): identical encodings; 0e and -0e differ, a NaN is identical to itself
    (1, 1, 0.0), (1, 1.0000001, 0.0), (0.0, -0.0, 0.0), (0.0, 0.0, 0.0), (-0.0, -0.0, -0.0), (0.0, -0.0, -0.0),
    (INF, INF, 0.0), (2.5, -2.5, 0.0),
    # r3 < 0: |r1 - r2| < |r3| * (|r1| + |r2|)
    (1, 1.1, -0.01), (1, 1.1, -0.1), (100, 101, -0.01), (100, 101, -0.001), (-3, 3, -1.5), (0.0, 0.0, -1),
    (1e-30, 2e-30, -0.5), (1e30, 1.1e30, -0.01),
]


def test_f_approx_like_gforth(f, need_gforth):
    snippets = [f"{lit(a)} {lit(b)} {lit(c)} F~" for a, b, c in APPROX]
    want = gforth.stack(" ".join(snippets))
    ints, floats = run_chunks(f, snippets)
    assert floats == [] and ints == want
    # the three cases, spelled out
    assert want[:2] == [-1, 0] and want[9:12] == [-1, 0, 0] and want[17:19] == [0, -1]


def test_f_approx_nan_to_itself(f):
    ints, _ = run_chunks(f, ["0e 0e F/ FDUP 0e F~", "0e 0e F/ FDUP 1e F~", "0e 0e F/ FDUP -1e F~"])
    assert ints == [-1, 0, 0]


def test_f_approx_on_32_threads(f):
    got = lanes(f, [tuple(to_f32(v) for v in t) for t in APPROX], "F~", 0)
    expected = []
    for a, b, c in APPROX:
        a, b, c = F32(a), F32(b), F32(c)
        with np.errstate(all="ignore"):
            if c > 0:
                flag = abs(a - b) < c
            elif c == 0:
                flag = np.array(a).view(np.uint32) == np.array(b).view(np.uint32)
            else:
                flag = abs(a - b) < abs(c) * (abs(a) + abs(b))
        expected.append(-1 if flag else 0)
    assert [i for p, i in got] == [[e] for e in expected]
    assert all(p == [] for p, _ in got)


def test_f0_greater_like_gforth(f, need_gforth):
    snippets = [f"{lit(x)} F0>" for x in [1, 0.0, -0.0, -1, 1e-30, -1e-30, NAN, INF, -INF]]
    want = gforth.stack(" ".join(snippets))
    ints, floats = run_chunks(f, snippets)
    assert floats == [] and ints == want == [-1, 0, 0, 0, -1, 0, 0, -1, 0]


def test_frot_and_fdepth_like_gforth(f, need_gforth):
    src = "FDEPTH 1e 2e 3e FROT FDEPTH 4e FROT FDEPTH"
    want = gforth.stack(GPRELUDE + src + " fbits fbits fbits fbits")
    f.eval(src)
    ints = f.data_stack()
    fl = f.float_stack()
    assert ints == want[:3] == [0, 3, 4]
    assert fl[::-1] == [struct.unpack("<d", struct.pack("<q", n))[0] for n in want[3:]]
    assert fl == [2.0, 1.0, 4.0, 3.0]


def test_fdepth_per_thread(f):
    f.eval("TID-X 3 MOD 0 ?DO I S>F LOOP FDEPTH")
    assert f.data_stack(lane=None) == [[t % 3] for t in range(32)]
    assert f.float_stack(lane=None) == [[float(i) for i in range(t % 3)] for t in range(32)]


# ------------------------------------------------------------ F>D D>F

def cells(d: int) -> tuple[int, int]:
    lo = d & (2**64 - 1)
    hi = d >> 64
    return (lo - 2**64 if lo >= 2**63 else lo), hi


def double(lo: int, hi: int) -> int:
    return (hi << 64) | (lo & (2**64 - 1))


def exact_f32(n: int) -> float:
    """The integer n rounded to the nearest f32, ties to even (no double rounding)."""
    m = abs(n)
    if m.bit_length() > 24:
        shift = m.bit_length() - 24
        q, r = divmod(m, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        m = q << shift
    return to_f32(math.copysign(float(m), n)) if n else 0.0


F_TO_D = [0.0, -0.0, 0.5, -0.5, 2.5, -2.5, 2.7, -2.7, 1e9, -1e9, 2.0**62, -2.0**62, 2.0**63, -2.0**63, 2.0**64,
          -2.0**64, 1e20, -1e20, 1e30, -1e30, 2.0**100, -(2.0**126), to_f32(1.7014117e38), -to_f32(1.7014117e38),
          12345.678, -16777217, 9.2233715e18]


def test_f_to_d_like_gforth(f, need_gforth):
    xs = [to_f32(x) for x in F_TO_D]
    snippets = [f"{lit(x)} F>D" for x in xs]
    want = gforth.stack(" ".join(snippets))
    ints, floats = run_chunks(f, snippets)
    assert floats == [] and ints == want
    assert [double(ints[2 * i], ints[2 * i + 1]) for i in range(len(xs))] == [int(x) for x in xs]


def test_f_to_d_on_32_threads(f):
    xs = [to_f32(x) for x in F_TO_D] + [to_f32(x) for x in RNG.normal(0, 1e25, 5)]
    got = lanes(f, [(x,) for x in xs], "F>D", 0)
    assert [double(*i) for _, i in got] == [int(x) for x in xs]


def test_f_to_d_saturates_beyond_the_double_range(f):
    # an f32 reaches 3.4e38 > 2^127: clamped like fptosi.sat; NaN -> 0
    ints, _ = run_chunks(f, ["1.7014118e38 F>D", "-1.7014118e38 F>D", "3e38 F>D", "1e 0e F/ F>D",
                             "-1e 0e F/ F>D", "0e 0e F/ F>D"])
    ds = [double(ints[i], ints[i + 1]) for i in range(0, len(ints), 2)]
    top = 2**127 - 1
    assert ds == [top, -top - 1, top, top, -top - 1, 0]


D_TO_F = [0, 1, -1, 5, -5, 2**53 + 1, 2**63, -2**63 - 1, 2**64 + 1, 2**24 + 1, 2**24 + 3, -(2**24 + 1),
          (2**24 + 1) << 80, ((2**24 + 1) << 80) + 1, ((2**24 + 3) << 40), -((2**24 + 3) << 40) - 1,
          2**100 + 2**76 + 1, 2**127 - 1, -2**127, 2**64 - 1, -2**64, (2**25 - 1) << 90]


def test_d_to_f_rounds_to_nearest_even(f):
    ds = D_TO_F + [int(v) for v in RNG.integers(-2**62, 2**62, 10)] + \
        [int(a) << int(s) for a, s in zip(RNG.integers(-2**62, 2**62, 20), RNG.integers(1, 65, 20))]
    _, got = run_chunks(f, ["{} {} D>F".format(*cells(d)) for d in ds])
    assert got == [exact_f32(d) for d in ds]
    got = [p[0] for p, _ in lanes_d(f, ds)]
    assert got == [exact_f32(d) for d in ds]


def lanes_d(f, ds):
    out = []
    for start in range(0, len(ds), 32):
        chunk = ds[start:start + 32]
        lo = np.array([cells(d)[0] for d in chunk] + [0] * (32 - len(chunk)), dtype=np.int64)
        hi = np.array([cells(d)[1] for d in chunk] + [0] * (32 - len(chunk)), dtype=np.int64)
        if "LO" not in f.dict:
            f.eval("32 I64 ARRAY LO 32 I64 ARRAY HI")
        f.set_array("LO", lo)
        f.set_array("HI", hi)
        f.eval("LO TID-X 8 * + @ HI TID-X 8 * + @ D>F")
        out += [(p, None) for p in f.float_stack(lane=None)][:len(chunk)]
        f.eval("FDROP")
    return out


def test_d_to_f_like_gforth(f, need_gforth):
    # gforth rounds to f64: compare where that is exact, or the f32 rounding of it is unambiguous
    ds = [0, 1, -1, 5, 12345678, -2**40, 2**63, -2**63 - 1, 2**64 + 2**40, 10**30, -(10**25)]
    snippets = ["{} {} D>F".format(*cells(d)) for d in ds]
    want = gforth_floats([s + " fbits" for s in snippets])
    _, got = run_chunks(f, snippets)
    assert got == [to_f32(w) for w in want]


def test_f_to_d_round_trip(f):
    xs = [to_f32(x) for x in RNG.normal(0, 1e30, 30)]
    _, got = run_chunks(f, [f"{lit(x)} F>D D>F" for x in xs])
    assert got == xs


# ------------------------------------------------------------ memory and addresses

def test_float_address_words_like_gforth_sfloats(f, need_gforth):
    # a float in memory is an f32: gforth's SFLOATS SFLOAT+ SFALIGNED
    ns = [0, 1, 3, -2, 1000]
    addrs = [0, 1, 2, 3, 4, 5, 7, 8, 100, 1001]
    src = " ".join([f"{n} FLOATS" for n in ns] + [f"{a} FLOAT+" for a in addrs] + [f"{a} FALIGNED" for a in addrs])
    want = gforth.stack(src.replace("FLOATS", "SFLOATS").replace("FLOAT+", "SFLOAT+").replace("FALIGNED", "SFALIGNED"))
    ints, _ = run_chunks(f, [src])
    assert ints == want


def test_sf_fetch_and_store(f1):
    f = f1
    vals = np.array([1.5, -0.1, 3.4e38, 1e-40, 0.0, -0.0, np.inf], dtype=np.float32)
    f.eval(f"{len(vals)} F32 ARRAY SA")
    run_chunks(f, [f"{lit(v)} SA {4 * i} + SF!" for i, v in enumerate(vals)])
    np.testing.assert_array_equal(f.array("SA"), vals)
    _, back = run_chunks(f, [f"SA {4 * i} + SF@" for i in range(len(vals))])
    _, back_f = run_chunks(f, [f"SA {4 * i} + F@" for i in range(len(vals))])
    assert back == back_f == [float(v) for v in vals]
    # FLOAT+ walks an array of floats
    f.eval("SA FLOAT+ FLOAT+ SF@")
    assert f.float_stack() == [float(vals[2])]


def test_sf_fetch_checks_alignment_and_range(f1):
    from forthtest import raises
    f1.eval("2 F32 ARRAY SB")
    raises(f1, "SB 2 + SF@", word="SF@")
    raises(f1, "1e SB 8 + SF!", word="SF!")


# ------------------------------------------------------------ the GPU

def test_new_float_words_compile_to_ptx_with_libdevice():
    from tileforth.backends.cuda.ptx import ptxas, ptxas_path
    from tileforth.core import Forth

    if ptxas_path() is None:
        pytest.skip("ptxas (nvidia-cuda-nvcc wheel) not installed")
    f = Forth()
    f.eval("4 F32 ARRAY xs  2 I64 ARRAY ds")
    f.eval(": m ( -- ) xs F@ FTAN xs 4 + F@ F** FEXPM1 FASINH FDUP xs 8 + F@ FATAN2 xs F! "
           "F>D ds 8 + ! ds !  ds @ ds 8 + @ D>F xs 12 + F! ;")
    f.eval(": m2 ( -- ) xs F@ FLOG FALOG FLNP1 FASIN FACOS FATAN FSINH FCOSH FTANH FACOSH FATANH FTRUNC FLN "
           "FSINCOS F+ xs F! ;")
    for word in ("m", "m2"):
        for arch in ("sm_80", "sm_90"):
            ptx = f.ptx(word, arch)
            # libdevice is linked and inlined: no unresolved external, no llvm.* left for ptxas
            assert ".extern" not in ptx and "llvm." not in ptx and "__nv_" not in ptx
            assert ptxas(ptx, arch)[word].stack_frame == 0
