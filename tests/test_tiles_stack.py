"""The tile stack as a stack: TZERO TFILL TSCALE T+ and the shuffling words
TDUP TDROP TSWAP TOVER TROT TROLL, compared with a Python list and numpy.

    1e TFILL 2e TFILL      ( T: 1 2 )       every element 1, every element 2
    TSWAP                  ( T: 2 1 )
    TOVER T+               ( T: 2 3 )
    3 TROLL                ( T: t2 t1 t0 t3 )   the literal picks the tile

Several accumulators compose with them: a 32x32 product as four 16x16
accumulators rotated with 3 TROLL.
"""

import numpy as np
import pytest

from tiletest import ACC_DTYPE, SHAPES, assert_mma, f64, kinds, rand, rand_int, settings, tile_session

RNG = np.random.default_rng(8)


@pytest.fixture
def f(request):
    return tile_session(request.module.__name__)


def lit(x) -> str:
    """A Forth float literal for the f32 value x."""
    r = repr(float(np.float32(x))).replace("e+", "e")
    return r if "e" in r else r + "e0"


def fills(f) -> list[float]:
    """The tile stack of uniform tiles as their values (checks uniformity)."""
    out = []
    for t in f.tile_stack():
        v = t.values
        assert (v == v.flat[0]).all(), "a tile that should be uniform is not"
        out.append(float(v.flat[0]))
    return out


# ------------------------------------------------------------ TZERO TFILL TSCALE T+

@pytest.mark.parametrize("shape", SHAPES, ids=[f"m{m}n{n}k{k}" for m, n, k in SHAPES])
@pytest.mark.parametrize("acc", ["f32", "f16"])
def test_tzero_and_tfill(f, shape, acc):
    settings(f, shape, acc=acc)
    m, n, _ = shape
    values = [0.1, -2.5, 1 / 3, 1e4, 2.0**-20]
    f.eval("TZERO " + " ".join(f"{lit(v)} TFILL" for v in values))
    assert f.float_stack() == []                     # TFILL consumed its float
    tiles = f.tile_stack()
    assert [(t.kind, t.shape, t.dtype, t.mnk) for t in tiles] == [("acc", (m, n), acc, shape)] * 6
    for t, v in zip(tiles, [0.0] + values):
        assert t.values.dtype == ACC_DTYPE[acc]
        np.testing.assert_array_equal(t.values, np.full((m, n), np.float32(v)).astype(ACC_DTYPE[acc]))
    f.eval("TDROP " * 6)


@pytest.mark.parametrize("shape", SHAPES, ids=[f"m{m}n{n}k{k}" for m, n, k in SHAPES])
@pytest.mark.parametrize("acc", ["f32", "f16"])
def test_tscale(f, shape, acc):
    m, n, _ = shape
    settings(f, shape, acc=acc)
    f.eval(f"{m} {n} {acc.upper()} MATRIX C")
    c = rand(RNG, (m, n), ACC_DTYPE[acc], -100, 100)
    f.set_array("C", c)
    for r in [0.3, -2.0, 0.0, 1e-3]:
        f.eval(f"C {n} TLOAD-C {lit(r)} TSCALE")
        (t,) = f.tile_stack()
        assert (t.kind, t.dtype) == ("acc", acc) and f.float_stack() == []
        exact = f64(c) * f64(np.float32(r))
        if acc == "f32":          # one f32 multiplication per element, as numpy does it
            np.testing.assert_array_equal(t.values, c * np.float32(r))
        else:                     # rounded to f16: within half an f16 ulp of the exact product
            assert (np.abs(f64(t.values) - exact) <= 2.0**-11 * np.abs(exact) + 2.0**-25).all()
        f.eval("TDROP")


@pytest.mark.parametrize("shape", SHAPES, ids=[f"m{m}n{n}k{k}" for m, n, k in SHAPES])
@pytest.mark.parametrize("acc", ["f32", "f16"])
def test_t_plus(f, shape, acc):
    m, n, _ = shape
    settings(f, shape, acc=acc)
    f.eval(f"{m} {n} {acc.upper()} MATRIX C  {m} {n} {acc.upper()} MATRIX D")
    c, d = rand(RNG, (m, n), ACC_DTYPE[acc]), rand(RNG, (m, n), ACC_DTYPE[acc])
    f.set_array("C", c), f.set_array("D", d)
    f.eval(f"C {n} TLOAD-C D {n} TLOAD-C T+")
    (t,) = f.tile_stack()
    assert (t.shape, t.dtype) == ((m, n), acc)
    # the sum of two such values is exact in f64, so one rounding gives numpy's answer
    np.testing.assert_array_equal(t.values, (f64(c) + f64(d)).astype(ACC_DTYPE[acc]))
    f.eval(f"C {n} TSTORE")
    np.testing.assert_array_equal(f.array("C"), (f64(c) + f64(d)).astype(ACC_DTYPE[acc]))


def test_copies_are_independent(f):
    """TDUP and TOVER copy: changing the copy leaves the original alone."""
    f.eval("1e TFILL TDUP 2e TSCALE")
    assert fills(f) == [1.0, 2.0]
    f.eval("TOVER 10e TSCALE")
    assert fills(f) == [1.0, 2.0, 10.0]
    f.eval("T+ TSWAP 3e TFILL T+")
    assert fills(f) == [12.0, 4.0]
    f.eval("TDROP TDROP")


# ------------------------------------------------------------ shuffles against a Python list

def model(stack: list, word: str) -> None:
    """What each shuffle does to a Python list (top last)."""
    if word == "TDUP":
        stack.append(stack[-1])
    elif word == "TDROP":
        stack.pop()
    elif word == "TSWAP":
        stack[-2:] = stack[-1], stack[-2]
    elif word == "TOVER":
        stack.append(stack[-2])
    elif word == "TROT":
        stack.append(stack.pop(-3))
    elif word.endswith(" TROLL"):
        n = int(word.split()[0])
        stack.append(stack.pop(-1 - n))
    else:
        raise AssertionError(word)


@pytest.mark.parametrize("word, need", [("TDUP", 1), ("TDROP", 1), ("TSWAP", 2), ("TOVER", 2), ("TROT", 3)]
                         + [(f"{n} TROLL", n + 1) for n in range(8)])
def test_each_shuffle(f, word, need):
    """Each word on a stack of distinct tiles 1 .. d (d = 8 when it pushes)."""
    depth = 7 if word in ("TDUP", "TOVER") else 8
    f.eval(" ".join(f"{i}e TFILL" for i in range(1, depth + 1)))
    expected = [float(i) for i in range(1, depth + 1)]
    model(expected, word)
    f.eval(word)
    assert fills(f) == expected
    f.eval("TDROP " * len(expected))


def test_troll_literal_forms(f):
    """0 TROLL does nothing, 1 TROLL is TSWAP, 2 TROLL is TROT; the count may
    be written in any base and the literal is not left on the data stack."""
    f.eval("1e TFILL 2e TFILL 3e TFILL 0 TROLL")
    assert fills(f) == [1.0, 2.0, 3.0]
    f.eval("1 TROLL")
    assert fills(f) == [1.0, 3.0, 2.0]
    f.eval("2 TROLL")
    assert fills(f) == [3.0, 2.0, 1.0]
    f.eval("HEX 2 TROLL DECIMAL")
    assert fills(f) == [2.0, 1.0, 3.0]
    assert f.data_stack() == []
    f.eval("TDROP TDROP TDROP")


@pytest.mark.parametrize("seed", range(6))
def test_random_shuffle_programs(f, seed):
    """Random programs of pushes (TFILL, TLOAD-A, TLOAD-B) and shuffles, a few
    words per line, compared after each line with a Python list of (kind,
    value)."""
    rng = np.random.default_rng(seed)
    f.eval("16 16 F16 MATRIX SA  16 16 F16 MATRIX SB")
    f.set_array("SA", np.full((16, 16), 101, np.float16))
    f.set_array("SB", np.full((16, 16), 202, np.float16))
    stack: list = []
    counter = 0
    for _ in range(8):
        line = []
        for _ in range(rng.integers(1, 5)):
            choices = []
            if len(stack) < 8:
                choices += ["push", "push"] + (["TDUP"] if stack else []) + (["TOVER"] if len(stack) >= 2 else [])
            if stack:
                choices += ["TDROP"]
            if len(stack) >= 2:
                choices += ["TSWAP", "ROLL"]
            if len(stack) >= 3:
                choices += ["TROT", "ROLL"]
            word = str(rng.choice(choices))
            if word == "push":
                which = int(rng.integers(3))
                if which == 0:
                    counter += 1
                    stack.append(("acc", float(counter)))
                    line.append(f"{counter}e TFILL")
                else:
                    stack.append(("a", 101.0) if which == 1 else ("b", 202.0))
                    line.append("SA 16 TLOAD-A" if which == 1 else "SB 16 TLOAD-B")
                continue
            if word == "ROLL":
                word = f"{int(rng.integers(len(stack)))} TROLL"
            model(stack, word)
            line.append(word)
        f.eval(" ".join(line))
        assert [(k, v) for k, v in zip(kinds(f), fills(f))] == stack, " ".join(line)
    f.eval("TDROP " * len(stack))


# ------------------------------------------------------------ several accumulators

def test_four_accumulators_rotated_with_troll(f):
    """C (32x32) = A (32x16) . B (16x32) as four 16x16 accumulators: each step
    brings the oldest to the top with 3 TROLL, multiplies into it, and the
    stores take them off in reverse."""
    f.eval("32 16 F16 MATRIX A2  16 32 F16 MATRIX B2  32 32 F32 MATRIX C2")
    a, b = rand(RNG, (32, 16), np.float16), rand(RNG, (16, 32), np.float16)
    f.set_array("A2", a), f.set_array("B2", b)
    f.eval("TZERO TZERO TZERO TZERO")                          # ( c00 c01 c10 c11 )
    steps = []
    for i in range(2):
        for j in range(2):
            steps.append(f"3 TROLL  A2 {i * 16 * 16 * 2} + 16 TLOAD-A  B2 {j * 32} + 32 TLOAD-B  TMMA")
    for s in steps:                                            # one line each
        f.eval(s)
    assert kinds(f) == ["acc"] * 4
    f.eval(" ".join(f"C2 {i * 16 * 32 * 4 + j * 64} + 32 TSTORE" for i in (1, 0) for j in (1, 0)))
    assert f.tile_stack() == []
    assert_mma(f.array("C2"), [(a, b)], np.zeros((32, 32), np.float32))


def test_one_b_shared_by_two_accumulators(f):
    """c1 += a1.b and c2 += a2.b with b loaded once, kept at the bottom and
    copied up with TOVER/TROT/TSWAP/TDUP (small integers: exact)."""
    f.eval("16 16 F16 MATRIX A1  16 16 F16 MATRIX A3  16 16 F16 MATRIX B1  16 16 F32 MATRIX C1"
           "  16 16 F32 MATRIX C3")
    a1, a3, b = (rand_int(RNG, (16, 16), np.float16) for _ in range(3))
    c1 = RNG.integers(-100, 101, (16, 16)).astype(np.float32)
    for name, v in [("A1", a1), ("A3", a3), ("B1", b), ("C1", c1)]:
        f.set_array(name, v)
    f.eval("B1 16 TLOAD-B  C1 16 TLOAD-C")                     # ( b c1 )
    f.eval("TOVER  A1 16 TLOAD-A  TSWAP  TMMA")                # ( b c1' )
    assert kinds(f) == ["b", "acc"]
    f.eval("TZERO  TROT")                                      # ( c1' c2 b )
    f.eval("TDUP  A3 16 TLOAD-A  TSWAP")                       # ( c1' c2 b a3 b )
    f.eval("3 TROLL  TROT TROT TMMA")                          # ( c1' b c2' )
    assert kinds(f) == ["acc", "b", "acc"]
    f.eval("C3 16 TSTORE  TDROP  C1 16 TSTORE")
    assert f.tile_stack() == []
    np.testing.assert_array_equal(f64(f.array("C1")), f64(c1) + f64(a1) @ f64(b))
    np.testing.assert_array_equal(f64(f.array("C3")), f64(a3) @ f64(b))


def test_shared_product_reused(f):
    """p = A.B once; D = p + C and E = 4p from copies of p."""
    f.eval("16 16 F16 MATRIX PA  16 16 F16 MATRIX PB  16 16 F32 MATRIX PC  16 16 F32 MATRIX PD"
           "  16 16 F32 MATRIX PE")
    a, b = rand_int(RNG, (16, 16), np.float16), rand_int(RNG, (16, 16), np.float16)
    c = RNG.integers(-100, 101, (16, 16)).astype(np.float32)
    f.set_array("PA", a), f.set_array("PB", b), f.set_array("PC", c)
    f.eval("TZERO PA 16 TLOAD-A PB 16 TLOAD-B TMMA")           # ( p )
    f.eval("TDUP 2e TSCALE")                                   # ( p 2p )
    f.eval("TSWAP PC 16 TLOAD-C T+")                           # ( 2p p+c )
    f.eval("TOVER TROT T+")                                    # ( p+c 4p )
    f.eval("PE 16 TSTORE PD 16 TSTORE")
    p = f64(a) @ f64(b)
    np.testing.assert_array_equal(f64(f.array("PD")), p + f64(c))
    np.testing.assert_array_equal(f64(f.array("PE")), 4 * p)


def test_if_with_matching_branches(f):
    """Branches that leave the same tile stack are fine, whichever runs."""
    f.eval("1 IF TZERO ELSE 2e TFILL THEN  0 IF TZERO ELSE 2e TFILL THEN")
    assert fills(f) == [0.0, 2.0]
    f.eval("5 3 > IF TSWAP THEN  0 IF TDROP 7e TFILL THEN")
    assert fills(f) == [2.0, 0.0]
    f.eval("TDROP TDROP")


@pytest.mark.parametrize("definition, run, expected", [
    (": SCALES ( n -- ) ( T: acc -- acc ) 0 ?DO 2e TSCALE LOOP ;", "1e TFILL 3 SCALES", [8.0]),
    (": HALVE? ( flag -- ) ( T: acc -- acc ) IF 0.5e TSCALE THEN ;", "1e TFILL 1 HALVE? 2e TFILL 0 HALVE?",
     [0.5, 2.0]),
    (": DOUBLE? ( flag -- ) ( T: acc -- acc ) IF TDUP T+ THEN ;", "3e TFILL 1 DOUBLE? 0 DOUBLE?", [6.0]),
    (": DROP1 ( flag -- ) ( T: t -- ) IF TDROP ELSE TDROP THEN ;", "1e TFILL 2e TFILL 0 DROP1 3e TFILL 1 DROP1",
     [1.0]),
    (": HALVES ( n -- ) ( T: acc -- acc ) BEGIN DUP WHILE 0.5e TSCALE 1- REPEAT DROP ;", "8e TFILL 2 HALVES",
     [2.0]),
    (": SCALE-OR-ADD ( flag -- ) ( T: acc -- acc ) IF 3e TSCALE ELSE 1e TFILL T+ THEN ;",
     "1e TFILL 1 SCALE-OR-ADD 0 SCALE-OR-ADD", [4.0]),
    (": UNDER ( T: t1 t2 -- t2 ) TSWAP TDROP ;", "1e TFILL 2e TFILL UNDER", [2.0]),
    (": EARLY ( flag -- ) ( T: acc -- acc ) IF 2e TSCALE EXIT THEN 3e TSCALE ;", "1e TFILL 1 EARLY 0 EARLY",
     [6.0]),
])
def test_definitions_use_tiles_from_below_their_entry(f, definition, run, expected):
    """A definition is checked on its own, before the tiles it works on exist:
    inside IFs and loops too. Where it is called the tiles are there."""
    f.eval(definition)
    f.eval(run)
    assert fills(f) == expected
    f.eval("TDROP " * len(expected))
