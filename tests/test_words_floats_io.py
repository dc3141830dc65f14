"""Float text in and out (tileforth/core/session/words/floats.py, tileforth/core/compile/floatwords.py,
tileforth/core/session/output.py): >FLOAT REPRESENT F. FS. FE. PRECISION SET-PRECISION,
and the sfloat/dfloat address words, against gforth where it has them.

gforth's floats are f64, tileforth's f32. The values compared are decimals of
at most 6 significant digits (FLT_DIG): their f32 and their f64 have the same
shortest digits, so with PRECISION at least that many both print the decimal
padded with zeros, and rounded to fewer digits both print the same unless the
decimal lies exactly halfway (the cases are chosen so that it does not).
>FLOAT's result is compared with gforth's f64 rounded to f32, on strings whose
f64 is not a halfway point between f32s (where that rounding would round
twice); those are checked against the bits the Forth-2012 suite's fpio-test
expects for single precision.
"""
import math
import re
import struct
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import gforth
from forthtest import raises

GPRELUDE = ("create fbuf 8 allot : fbits ( F: r -- n ) fbuf df! fbuf @ ;\n"
            ": tf>f ( c-addr u -- flag bits ) >float if -1 fbits else 0 0 then ;\n"
            "create rbuf 64 allot\n")


@pytest.fixture
def fp(f):
    """The module's session (32 threads) with PRECISION back at its default."""
    f.eval("9 SET-PRECISION")
    yield f
    f.eval("9 SET-PRECISION")


def bits_to_f64(n: int) -> float:
    return struct.unpack("<d", struct.pack("<q", n))[0]


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


# decimals of at most 6 significant digits, none halfway at a precision of 1 to 5
VALUES = ["1.5", "-2.25", "0.1", "1234.5", "12345", "-0.00123", "9.87654e20", "3.14159", "2.71828e-20",
          "999.9", "0.0009999", "123456", "7e-3", "-6.02214e23", "1e10", "100", "0.5", "-1", "8.7e-9",
          "4.4e37", "1.17549e-38", "65504", "0.333333", "-77.7"]


def flit(v: str) -> str:
    """The decimal as a float literal (both Forths)."""
    return v if "e" in v else v + "e"


def halfway(text: str, p: int) -> bool:
    """The decimal lies exactly halfway between two p-digit numbers."""
    digits = Decimal(text).normalize().as_tuple().digits
    return len(digits) == p + 1 and digits[-1] == 5


# ------------------------------------------------------------ FS. FE. F. PRECISION

@pytest.mark.parametrize("word", ["FS.", "FE.", "F."])
def test_float_output_like_gforth(fp, need_gforth, word):
    cases = [(p, v) for p in (3, 4, 5, 6, 7, 9) for v in VALUES if not halfway(v, p)]
    if word == "F.":
        cases += [(p, v) for p in (1, 2) for v in VALUES if not halfway(v, p)]
    if word == "FS.":  # gforth's FE. pads with garbage where the digits are fewer than those before the point
        cases += [(p, v) for p in (1, 2) for v in VALUES if not halfway(v, p)]
    src = " ".join(f"{p} set-precision {flit(v)} {word} .\" |\"" for p, v in cases)
    want = gforth.output(src).split("|")[:-1]
    got = fp.eval(src.replace("set-precision", "SET-PRECISION")).split("|")[:-1]
    bad = [(c, g, w) for c, g, w in zip(cases, got, want) if g != w]
    assert len(got) == len(cases) and not bad, f"(precision, value), tileforth, gforth: {bad[:8]}"


def test_fs_fe_forms(fp):
    assert fp.eval("1234.5e FS. 12345e FE. 1e 3e F/ FE.") == "1.23450000E3 12.3450000E3 333.333340E-3 "
    assert fp.eval("0e FS. -0e FE. 0e F. -0e F.") == "0.00000000E0 -0.00000000E0 0. -0. "
    assert fp.eval("1e 0e F/ FS. -1e 0e F/ FE. 0e 0e F/ FS.") == "inf -inf NaN "
    assert fp.eval("3 SET-PRECISION 999.9e FS. 999.9e FE. 0.0009999e FE. 1e-3 FE. 1e FE.") == \
        "1.00E3 1.00E3 1.00E-3 1.00E-3 1.00E0 "
    # fewer digits than FE. shows before the point: the rest are zeros (gforth prints garbage there)
    assert fp.eval("1 SET-PRECISION 12345e FE. 99e FE. 3e FE.") == "10.E3 100.E0 3.E0 "
    # rounding is to nearest, ties to even, from the f32's exact value
    assert fp.eval("1 SET-PRECISION 15e FS. 25e FS. 35e FS. 0.25e FS.") == "2.E1 2.E1 4.E1 2.E-1 "
    # the f32's own digits where the precision asks for fewer than its shortest ones
    assert fp.eval("8 SET-PRECISION 0.1e FS. 1e 3e F/ FS. 1e 3e F/ F.") == "1.0000000E-1 3.3333334E-1 0.33333334 "
    assert fp.eval("7 SET-PRECISION 1e 3e F/ FS. 1e 3e F/ F. 16777217e F.") == "3.333333E-1 0.3333333 16777220. "


def test_f_dot_is_unchanged_at_the_default_precision(fp):
    """F. prints the shortest digits that give the f32 back: every f32 has at most 9 of them."""
    xs = [np.float32(v) for v in (1.5, 0.1, 1 / 3, math.pi, 1e20, 3.4028235e38, 1.4e-45, 123456789, -2.5e-7)]
    got = fp.eval(" ".join(f"{np.format_float_scientific(x, unique=True)} F." for x in xs)).split()
    assert got == [np.format_float_positional(x, unique=True, trim=".") for x in xs]
    assert fp.eval("PRECISION .") == "9 "


def test_precision_setting(fp):
    assert fp.eval("PRECISION . 4 SET-PRECISION PRECISION . 2e FSQRT F. 2e FSQRT FS.") == "9 4 1.414 1.414E0 "
    # kept in 1..64: u is unsigned, so -1 is large
    assert fp.eval("0 SET-PRECISION PRECISION . -1 SET-PRECISION PRECISION . 65 SET-PRECISION PRECISION . "
                   "64 SET-PRECISION PRECISION .") == "1 64 64 64 "
    assert fp.eval("20 SET-PRECISION 0.1e FS.") == "1.0000000000000000000E-1 "  # as gforth's at 20
    # a device word may read and set it; the setting outlives the line
    fp.eval(": with3 ( F: r -- ) PRECISION >R 3 SET-PRECISION FS. R> SET-PRECISION ;")
    fp.eval("5 SET-PRECISION")
    assert fp.eval("2e FSQRT with3 2e FSQRT FS. PRECISION .") == "1.41E0 1.4142E0 5 "
    assert fp.eval("9 SET-PRECISION") == ""
    assert fp.eval("PRECISION .") == "9 "
    # a session setting: every thread must ask for the same (a device store would race with the reads)
    raises(fp, "TID-X 1+ SET-PRECISION", word="SET-PRECISION")
    assert fp.eval("PRECISION . 4 SET-PRECISION PRECISION .") == "9 4 "


def test_fs_fe_on_32_threads_each_its_own_value(fp, need_gforth):
    """Each thread prints its own value; every thread's line is gforth's text for it."""
    values = [f"{1 + 0.25 * t:.2f}e{3 * t - 45}" for t in range(28)] + ["0e", "-0e", "-1.5e", "123456e"]
    fp.eval("32 F32 ARRAY XS")
    fp.set_array("XS", np.array([float(v + "0" if v.endswith("e") else v) for v in values], np.float32))
    for p, word in ((9, "FS."), (4, "FE."), (3, "FS."), (9, "F.")):
        out = fp.eval(f"{p} SET-PRECISION XS TID-X 4 * + F@ {word}")
        lines = dict(re.findall(r"\[thread (\d+)\] (.*)\n", out))
        want = gforth.output(" ".join(f"{p} set-precision {v} {word} .\" |\"" for v in values)).split("|")[:-1]
        got = [lines[str(t)] for t in range(32)]
        assert got == want, (word, p)


# ------------------------------------------------------------ >FLOAT

GOOD = ["1", "1e", "1E", "1.5e-3", "+1.E+2", "1d5", "1D5", "1+5", "1-5", ".5", "5.", "-.5e1", "-0", "1.e",
        "1.5e+", "12345678901234567890", "3.14159", "-2.5E-7", "0.1", "1e38", "3.4e38", "1e39", "1e400",
        "-1e400", "1e-46", "1e-400", "1.17549435e-38", "1e-45", "0e0", "00012.50", "1+", "2D-3"]
BAD = [".", "e5", "1e5x", " 1", "1 ", "inf", "nan", "1e--5", "abc", "+", "-", "1.2.3", "1,5", "0x10", "1e 5",
       "1 2", "1ee5", "1e+-5", "1_000", "E", "-e1", "+.e1", "1.5f", "..5"]


def to_float(f, text: str) -> tuple[int, list[float]]:
    """>FLOAT of text in tileforth: the flag and what it left on the float stack (then drops them)."""
    f.eval(f'S" {text}" >FLOAT')
    flag, floats = f.data_stack(), f.float_stack()
    f.eval("DROP" + " FDROP" * len(floats))
    assert len(flag) == 1
    return flag[0], floats


def test_to_float_like_gforth(fp, need_gforth):
    texts = GOOD + BAD + ["", "   "]
    stack = gforth.stack(GPRELUDE + " ".join(f's" {t}" tf>f' for t in texts))
    for i, t in enumerate(texts):
        gflag, gbits = stack[2 * i], stack[2 * i + 1]
        flag, floats = to_float(fp, t)
        assert flag == gflag, t
        if flag:
            with np.errstate(over="ignore"):
                want = np.float32(bits_to_f64(gbits))
            assert len(floats) == 1 and f32_bits(floats[0]) == f32_bits(float(want)), (t, floats, want)
        else:
            assert floats == [], t


def test_to_float_edges(fp):
    assert to_float(fp, "") == (-1, [0.0]) and to_float(fp, "     ") == (-1, [0.0])
    # out of the f32 range: +-inf (the standard leaves the range to the system; gforth does the same with f64)
    assert to_float(fp, "1e39") == (-1, [math.inf]) and to_float(fp, "-3.5e38") == (-1, [-math.inf])
    assert to_float(fp, "1e99999999999999") == (-1, [math.inf])
    flag, (r,) = to_float(fp, "-1e-99999999999")
    assert flag == -1 and r == 0 and math.copysign(1, r) == -1
    assert to_float(fp, "0e99999999999") == (-1, [0.0])
    assert to_float(fp, "1e" + "9" * 5000) == (-1, [math.inf])                 # more digits than int() reads
    assert to_float(fp, "1" * 5000 + "e-4999") == (-1, [float(np.float32(10 / 9))])
    # the f32 range's edges, rounded once from the exact decimal
    assert to_float(fp, "3.4028235677973366e38") == (-1, [float(np.finfo(np.float32).max)])
    assert to_float(fp, "3.40282357e38") == (-1, [math.inf])
    tiny = float(np.float32(1.4e-45))
    half = "0." + str(5**150).rjust(150, "0")  # 2^-150 = 5^150 / 10^150: half the smallest subnormal, exactly
    assert Fraction(Decimal(half)) == Fraction(1, 2**150)
    assert to_float(fp, half) == (-1, [0.0])                    # exactly halfway: to even, 0
    assert to_float(fp, half[:-1] + "6") == (-1, [tiny])
    assert to_float(fp, "7.006e-46") == (-1, [0.0])
    for bad in ("é1", "1\t", "\t", "1e5 "):
        assert to_float(fp, bad) == (0, [])
    # several threads read the same string; each gets the value
    fp.eval('S" 2.5e1" >FLOAT')
    assert fp.data_stack(lane=None) == [[-1]] * 32 and fp.float_stack(lane=None) == [[25.0]] * 32
    fp.eval("DROP FDROP")


# fpio-test.4th's single-precision rounding section: the decimal -> bits the suite expects
FPIO = [("1.0e-10", 0x2edbe6ff), ("2.71828182845904523536e0", 0x402df854), ("3.14159265358979323846e0", 0x40490fdb),
        ("3.518437208883201171875E+013", 0x56000000), ("1.00000005960464477550e0", 0x3f800001),
        ("5.00000000000000166533453693773481063544750213623046875e-1", 0x3f000000),
        ("62.5364939768271845828e0", 0x427a255f), ("8.10109172351e-10", 0x305eae5d),
        ("1.50000000000000011102230246251565404236316680908203125e0", 0x3fc00000),
        ("9007199254740991.4999999999999999999999999999999995e0", 0x5a000000),
        ("1.000000000000000111022302462515654042363166809082031251e+00", 0x3f800000),
        ("9.99999935045640392457461415399766451285519391957298315801212e-39", 0x006ce3ee),
        ("-1.00000001335143196001808973960578441619873046875e-10", 0xaedbe6ff),
        ("0.100000001490116119384765625e0", 0x3dcccccd), ("0.0000000000000000000000000000000000010e37", 0x41200000),
        ("9999999933815812510711506376257961984e0", 0x7cf0bdc2)]


@pytest.mark.parametrize("text,bits", FPIO, ids=[t[:24] for t, _ in FPIO])
def test_to_float_rounds_once(fp, text, bits):
    flag, (r,) = to_float(fp, text)
    assert flag == -1 and f32_bits(r) == bits


# ------------------------------------------------------------ REPRESENT

def represent(f, r: str, u: int) -> tuple[str, int, int, int]:
    f.eval(f"{r} PAD {u} REPRESENT")
    n, flag1, flag2 = f.data_stack()
    text = f.eval(f"DROP DROP DROP PAD {u} TYPE")
    return text, n, flag1, flag2


def test_represent_like_gforth(fp, need_gforth):
    cases = [(v, u) for v in VALUES for u in (1, 2, 3, 5, 6, 9, 12) if not halfway(v, u)]
    src = GPRELUDE + " ".join(f"{flit(v)} rbuf {u} represent rbuf {u} type .\" |\"" for v, u in cases)
    res = gforth.run(src)
    texts = res.output.split("|")[:-1]
    for i, (v, u) in enumerate(cases):
        want = (texts[i], *res.stack[3 * i:3 * i + 3])
        assert represent(fp, flit(v), u) == want, (v, u)


def test_represent_edges(fp):
    assert represent(fp, "0e", 5) == ("00000", 1, 0, -1)
    assert represent(fp, "-0e", 5) == ("00000", 1, -1, -1)          # the sign of -0 is negative
    assert represent(fp, "-1.5e", 4) == ("1500", 1, -1, -1)
    assert represent(fp, "9.99999e", 3) == ("100", 2, 0, -1)        # rounding carries into n
    assert represent(fp, "0.1e", 20) == ("1" + "0" * 19, 0, 0, -1)  # the f32's shortest digits, padded
    assert represent(fp, "0.1e", 9) == ("100000000", 0, 0, -1)
    assert represent(fp, "1e 3e F/", 7) == ("3333333", 0, 0, -1)
    assert represent(fp, "1e 3e F/", 12) == ("333333340000", 0, 0, -1)
    assert represent(fp, "1.4e-45", 3) == ("100", -44, 0, -1)     # 2^-149: 1e-45 is its shortest text
    assert represent(fp, "3.4028235e38", 9) == ("340282350", 39, 0, -1)
    # not a finite number: flag2 false, the word in the buffer, flag1 the sign of -inf
    assert represent(fp, "1e 0e F/", 5) == ("inf  ", 0, 0, 0)
    assert represent(fp, "-1e 0e F/", 5) == ("inf  ", 0, -1, 0)
    assert represent(fp, "0e 0e F/", 2) == ("na", 0, 0, 0)
    # u = 0 writes nothing: n is the exponent, flag2 says r is in range
    fp.eval("PAD 4 BL FILL")
    assert represent(fp, "123e", 0) == ("", 3, 0, -1) and fp.eval("PAD 4 TYPE") == "    "
    assert represent(fp, "-0.05e", 0) == ("", -1, -1, -1)


def test_represent_refuses_what_threads_disagree_on(fp):
    fp.eval("32 F32 ARRAY RS")
    fp.set_array("RS", np.arange(32, dtype=np.float32))
    raises(fp, "RS TID-X 4 * + F@ PAD 5 REPRESENT", word="REPRESENT")
    raises(fp, "1e PAD -1 REPRESENT", word="REPRESENT")


def test_represent_in_a_definition(fp):
    """A host word makes the definition host-level: it runs when called."""
    fp.eval(": digits ( F: r -- ) PAD 6 REPRESENT DROP DROP DROP PAD 6 TYPE ;")
    assert fp.eval("2.5e digits") == "250000"


# ------------------------------------------------------------ sfloats, dfloats, alignment

def test_address_words_like_gforth(fp, need_gforth):
    ns = [0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 100, 1001]
    words = ["sfloats", "dfloats", "sfloat+", "dfloat+", "sfaligned", "dfaligned"]
    src = " ".join(f"{n} {w}" for w in words for n in ns)
    want = gforth.stack(src)
    fp.eval(src.upper())
    assert fp.data_stack() == want and all(s == want for s in fp.data_stack(lane=None))
    fp.eval("DROP " * len(want))


def test_address_words_in_device_code(fp):
    fp.eval(": sizes ( -- n ) 3 SFLOATS 2 DFLOATS + ;  : nxt ( addr -- addr' ) DFALIGNED DFLOAT+ SFLOAT+ ;")
    assert fp.eval("sizes . 5 nxt .") == "28 20 "
    fp.eval("CREATE dfs 4 DFLOATS ALLOT  1.5e dfs DFLOAT+ DF!  2.5e dfs 3 DFLOATS + DF!")
    assert fp.eval("dfs DFLOAT+ DF@ F. dfs 3 DFLOATS + DF@ F.") == "1.5 2.5 "


def test_falign_sfalign_dfalign_move_here(f1):
    for word, size in (("FALIGN", 4), ("SFALIGN", 4), ("DFALIGN", 8)):
        f1.eval(f"ALIGN 1 C, {word}")
        assert f1.eval(f"HERE {size} MOD .") == "0 "
        f1.eval("HERE")
        f1.eval(f"{word} HERE")
        a, b = f1.data_stack()
        assert a == b  # an aligned HERE stays
        f1.eval("DROP DROP")
    f1.eval("ALIGN 5 ALLOT FALIGN HERE 4 ALLOT DFALIGN HERE")
    a, b = f1.data_stack()
    assert a % 4 == 0 and b % 8 == 0 and b - a in (4, 8)
    f1.eval("DROP DROP")


def test_output_and_address_words_compile_to_ptx():
    from tileforth.backends.cuda.ptx import ptxas, ptxas_path
    from tileforth.core import Forth

    if ptxas_path() is None:
        pytest.skip("ptxas (nvidia-cuda-nvcc wheel) not installed")
    f = Forth()
    f.eval("4 F32 ARRAY xs")
    f.eval(": m ( -- ) xs F@ FDUP FS. FDUP FE. F. PRECISION xs 4 + ! xs 8 + SFALIGNED DFLOAT+ SFLOAT+ "
           "3 DFLOATS + 2 SFLOATS + DFALIGNED xs ! ;")
    for arch in ("sm_80", "sm_90"):
        assert ptxas(f.ptx("m", arch), arch)["m"].stack_frame == 0
