"""Floats: a separate stack of f32, compared with numpy float32.

    1.5e 2e F*         ( F: -- 3.0 )
    16777217 S>F       ( F: -- 16777216.0 )   f32 has a 24-bit significand

Memory words convert between f32 on the stack and the type in memory:
F@ F! (f32), DF@ DF! (f64), HF@ HF! (f16), BF@ BF! (bf16, round to nearest
even), checked against numpy / ml_dtypes.
"""

import math

import ml_dtypes
import numpy as np
import pytest

import forthtest
from forthtest import f32, raises, run_chunks

F32 = np.float32
BF16 = ml_dtypes.bfloat16


def lit(x) -> str:
    """A Forth float literal that denotes exactly the f32 value x."""
    r = repr(float(F32(x))).replace("e+", "e")
    return r if "e" in r else r + "e0"


def floats_after(f, snippets, chunk=8) -> list[float]:
    _, floats = run_chunks(f, snippets, chunk)
    return floats


def test_lit_helper_is_exact():
    for x in [0.1, 1 / 3, -2.5, 1e-30, 3.4e38, 1.17549435e-38, 7.0]:
        assert "e" in lit(x) and F32(float(lit(x))) == F32(x)


# ------------------------------------------------------------ literals

@pytest.mark.parametrize("src, value", [
    ("1e3", 1e3), ("2.5e-1", 0.25), ("0e", 0.0), ("3.14", 3.14), ("-1.5e2", -150.0),
    ("1e", 1.0), ("1.0e0", 1.0), ("-0.5e0", -0.5), ("1e-3", 1e-3), ("6.02e23", 6.02e23),
    ("0.1e0", 0.1), ("123.456", 123.456), ("-3.14", -3.14), ("1E3", 1e3), ("2.5E-1", 0.25),
])
def test_float_literal(f, src, value):
    f.eval(src)
    assert f.float_stack() == [f32(value)]
    assert f.data_stack() == []          # floats do not touch the data stack


def test_float_literals_mix_with_integers(f):
    f.eval("1 2.5e0 3 4e0")
    assert f.data_stack() == [1, 3]
    assert f.float_stack() == [2.5, 4.0]


# ------------------------------------------------------------ arithmetic

RNG = np.random.default_rng(2024)
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.1, 1 / 3, 1e-7, 3.0e7, 65504.0, -123.456, 2.0**-20]
OPERANDS = [F32(x) for x in SPECIAL] + [F32(x) for x in RNG.normal(0, 100, 13)]
PAIRS = [(OPERANDS[i], OPERANDS[(i * 7 + 3) % len(OPERANDS)]) for i in range(len(OPERANDS))]

BINARY = {
    "F+": lambda a, b: a + b,
    "F-": lambda a, b: a - b,
    "F*": lambda a, b: a * b,
    "F/": lambda a, b: a / b,
    "FMAX": lambda a, b: np.maximum(a, b),
    "FMIN": lambda a, b: np.minimum(a, b),
}


@pytest.mark.parametrize("word", sorted(BINARY))
def test_binary_float_op(f, word):
    pairs = [(a, b) for a, b in PAIRS if not (word == "F/" and b == 0)]
    got = floats_after(f, [f"{lit(a)} {lit(b)} {word}" for a, b in pairs])
    expected = [float(BINARY[word](a, b)) for a, b in pairs]
    # f32 + - * / are exactly rounded: compare bit for bit (0.0 == -0.0 aside)
    assert got == expected


UNARY_EXACT = {
    "FNEGATE": np.negative,
    "FABS": np.abs,
    "FSQRT": np.sqrt,
    "FLOOR": np.floor,
    "FROUND": np.rint,          # round to nearest, ties to even (as gforth)
}


@pytest.mark.parametrize("word", sorted(UNARY_EXACT))
def test_unary_float_op(f, word):
    xs = OPERANDS + [F32(v) for v in (2.5, -2.5, 3.5, 0.5, -0.5, 1.5, -7.25)]
    if word == "FSQRT":
        xs = [abs(x) for x in xs]
    got = floats_after(f, [f"{lit(x)} {word}" for x in xs])
    assert got == [float(UNARY_EXACT[word](x)) for x in xs]


def test_fround_ties_to_even_like_gforth(f, need_gforth):
    import gforth

    # gforth (f64) agrees on these exactly representable ties
    xs = [0.5, 1.5, 2.5, -2.5, 3.5]
    got = floats_after(f, [f"{x}e0 FROUND" for x in xs])
    ref = gforth.stack(" ".join(f"{x}e0 FROUND F>S" for x in xs))
    assert [int(g) for g in got] == ref


TRANSCENDENTAL = {
    "FEXP": (np.exp, [0.0, 1.0, -1.0, 0.5, 10.0, -20.0, 3.3]),
    "FLN": (np.log, [1.0, 2.0, 0.5, 10.0, 1e-5, 12345.0, math.e]),
    "FSIN": (np.sin, [0.0, 0.5, 1.0, -1.0, math.pi / 2, 3.0, -6.0]),
    "FCOS": (np.cos, [0.0, 0.5, 1.0, -1.0, math.pi, 3.0, -6.0]),
}


@pytest.mark.parametrize("word", sorted(TRANSCENDENTAL))
def test_transcendental(f, word):
    fn, xs = TRANSCENDENTAL[word]
    xs = [F32(x) for x in xs]
    got = np.array(floats_after(f, [f"{lit(x)} {word}" for x in xs]), dtype=np.float32)
    expected = fn(np.array(xs, dtype=np.float32))
    # a few ulp of f32
    np.testing.assert_allclose(got, expected, rtol=4e-7 * 4, atol=1e-7)


# ------------------------------------------------------------ float stack

@pytest.mark.parametrize("src, floats", [
    ("1e 2e FDUP", [1.0, 2.0, 2.0]),
    ("1e 2e FDROP", [1.0]),
    ("1e 2e FSWAP", [2.0, 1.0]),
    ("1e 2e FOVER", [1.0, 2.0, 1.0]),
])
def test_float_stack_words(f, src, floats):
    # the same shuffles as DUP DROP SWAP OVER, on the float stack
    f.eval(src)
    assert f.float_stack() == floats
    assert f.data_stack() == []


def test_float_stack_words_against_data_stack_words(f):
    f.eval("1 2 3 DUP SWAP OVER DROP")
    f.eval("1e 2e 3e FDUP FSWAP FOVER FDROP")
    assert f.float_stack() == [float(x) for x in f.data_stack()]


# ------------------------------------------------------------ conversions

def test_s_to_f(f):
    ns = [0, 1, -1, 42, -123456, 16777216, 16777217, 2**31 + 1, -(2**53) - 1, 2**62 + 12345]
    got = floats_after(f, [f"{n} S>F" for n in ns])
    assert got == [float(x) for x in np.array(ns, dtype=np.int64).astype(np.float32)]


def test_f_to_s_truncates(f):
    xs = [0.0, 2.7, -2.7, 2.5, -2.5, 1e9, -1e9, 0.999, -0.999, 16777216.0]
    ints, _ = run_chunks(f, [f"{lit(x)} F>S" for x in xs])
    assert ints == [int(np.trunc(F32(x))) for x in xs]


def test_f_to_s_like_gforth(f, need_gforth):
    import gforth

    src = "2.75e0 F>S -2.75e0 F>S 100.5e0 F>S -0.25e0 F>S"
    assert forthtest.stack(f, src) == gforth.stack(src)


@pytest.mark.parametrize("word, fn", [
    ("F<", lambda a, b: a < b),
    ("F=", lambda a, b: a == b),
])
def test_float_comparisons(f, word, fn):
    pairs = PAIRS + [(F32(1), F32(1)), (F32(0.0), F32(-0.0)), (F32(-1), F32(1))]
    ints, floats = run_chunks(f, [f"{lit(a)} {lit(b)} {word}" for a, b in pairs])
    assert floats == []
    assert ints == [-1 if fn(a, b) else 0 for a, b in pairs]


@pytest.mark.parametrize("word, fn", [
    ("F0<", lambda a: a < 0),
    ("F0=", lambda a: a == 0),
])
def test_float_zero_comparisons(f, word, fn):
    xs = OPERANDS + [F32(-0.0), F32(-1e-30)]
    ints, floats = run_chunks(f, [f"{lit(x)} {word}" for x in xs])
    assert floats == []
    assert ints == [-1 if fn(x) else 0 for x in xs]


def test_float_loop_sum(f):
    # sum 1/i for i = 1..100 in f32, in order, like a sequential kernel would
    f.eval(": HARMONIC ( -- F: s ) 0e 101 1 DO 1e I S>F F/ F+ LOOP ; HARMONIC")
    s = F32(0)
    for i in range(1, 101):
        s = F32(s + F32(F32(1) / F32(i)))
    assert f.float_stack() == [float(s)]


# ------------------------------------------------------------ float memory

VALUES = [0.0, 1.0, -2.5, 0.1, 1 / 3, 3.14159, 65504.0, 70000.0, 1e-6, 6e-8, -1e-3,
          1.00390625, 1.01171875, 1.0 + 2**-8 + 2**-20, 3.0e38, 1e-40]


def store_and_read(f, tname, fetch, store, values):
    """Store each value through `store` into an array of `tname`, return the
    array (copied out) and what `fetch` reads back onto the float stack."""
    n = len(values)
    f.eval(f"{n} {tname} ARRAY FA")
    size = f.array("FA").dtype.itemsize
    run_chunks(f, [f"{lit(v)} FA {i * size} + {store}" for i, v in enumerate(values)])
    back = floats_after(f, [f"FA {i * size} + {fetch}" for i in range(n)])
    return f.array("FA"), back


def test_f32_memory(f):
    arr, back = store_and_read(f, "F32", "F@", "F!", VALUES)
    expected = np.array(VALUES, dtype=np.float32)
    assert arr.dtype == np.float32
    np.testing.assert_array_equal(arr, expected)
    assert back == [float(x) for x in expected]


def test_f64_memory(f):
    arr, back = store_and_read(f, "F64", "DF@", "DF!", VALUES)
    expected = np.array(VALUES, dtype=np.float32).astype(np.float64)  # f32 widened exactly
    assert arr.dtype == np.float64
    np.testing.assert_array_equal(arr, expected)
    assert back == [float(x) for x in expected]


def test_f64_memory_read_rounds_to_f32(f):
    d = np.array([0.1, 1 / 3, 2.0 ** 100, 1.0 + 2.0**-30, -7.000000001], dtype=np.float64)
    f.eval(f"{len(d)} F64 ARRAY D")
    f.set_array("D", d)
    got = floats_after(f, [f"D {i * 8} + DF@" for i in range(len(d))])
    assert got == [float(x) for x in d.astype(np.float32)]


def test_f16_memory(f):
    arr, back = store_and_read(f, "F16", "HF@", "HF!", VALUES)
    with np.errstate(over="ignore"):                                    # 70000 -> inf is meant
        expected = np.array(VALUES, dtype=np.float32).astype(np.float16)   # RNE, overflow -> inf
    assert arr.dtype == np.float16
    np.testing.assert_array_equal(arr, expected)
    assert back == [float(x) for x in expected.astype(np.float32)]


def test_f16_memory_read(f):
    h = np.array([0.5, -1.25, 65504, 6e-8, 1e-4, 0.1, -0.0, 1000.5], dtype=np.float16)
    f.eval(f"{len(h)} F16 ARRAY H")
    f.set_array("H", h)
    got = floats_after(f, [f"H {2 * i} + HF@" for i in range(len(h))])
    assert got == [float(x) for x in h.astype(np.float32)]


def test_bf16_memory(f):
    arr, back = store_and_read(f, "BF16", "BF@", "BF!", VALUES)
    expected = np.array(VALUES, dtype=np.float32).astype(BF16)       # RNE
    assert arr.dtype == np.dtype(BF16)
    np.testing.assert_array_equal(arr.view(np.uint16), expected.view(np.uint16))
    assert back == [float(x) for x in expected.astype(np.float32)]


def test_bf16_rounds_to_nearest_even(f):
    # halfway cases: 1 + 3*2^-8 lies between two bf16 values; RNE picks the even one
    f.eval("2 BF16 ARRAY BB")
    f.eval(f"{lit(1.01171875)} BB BF!  {lit(1.0 + 2**-8 + 2**-20)} BB 2 + BF!")
    expected = np.array([1.01171875, 1.0 + 2**-8 + 2**-20], dtype=np.float32).astype(BF16)
    np.testing.assert_array_equal(f.array("BB").view(np.uint16), expected.view(np.uint16))


def test_f32_matrix(f1):
    f = f1                       # one thread: each element is doubled once
    f.eval("2 3 F32 MATRIX FM")
    m = np.array([[1.5, -2, 3], [0.25, 5, -6.5]], dtype=np.float32)
    f.set_array("FM", m)
    # FM[r][c] at FM + (r*3 + c)*4; double every element in place
    f.eval(": DOUBLE-ALL 6 0 DO FM I 4 * + DUP F@ 2e F* F! LOOP ; DOUBLE-ALL")
    np.testing.assert_array_equal(f.array("FM"), m * 2)


# ------------------------------------------------------------ errors

def test_float_stack_underflow(f):
    f.eval("1e 7")
    raises(f, "F+", word="F+", col=1)
    assert f.float_stack() == [1.0] and f.data_stack() == [7]


def test_fdrop_on_empty_float_stack(f):
    raises(f, "FDROP", word="FDROP")


def test_float_memory_out_of_range(f):
    f.eval("4 F32 ARRAY SMALL")
    raises(f, "SMALL 16 + F@", word="F@")
    raises(f, "1e SMALL 16 + F!", word="F!")
    np.testing.assert_array_equal(f.array("SMALL"), np.zeros(4, np.float32))
