"""Integer arithmetic and logic, compared with gforth.

Division in tileforth floors, as gforth's does (/ MOD /MOD */ */MOD are
compared with gforth's own); SM/REM gives the symmetric (C-like) one.

    -7 2 /      ( -- -4 )
    -7 2 MOD    ( -- 1 )
"""

import itertools

import pytest

from forthtest import check, check_many, raises

MIN, MAX = -(1 << 63), (1 << 63) - 1

ADD_SUB_MUL = [
    "1 2 +", "-5 3 +", "1000000007 998244353 +",
    "1 2 -", "-5 -3 -", "0 9223372036854775807 -",
    "6 7 *", "-6 7 *", "-3037000499 3037000499 *", "0 -5 *",
    "5 NEGATE", "-5 NEGATE", "0 NEGATE", "9223372036854775807 NEGATE",
    "5 ABS", "-5 ABS", "0 ABS", "-9223372036854775807 ABS",
    "3 7 MIN", "-3 7 MIN", "-9223372036854775808 9223372036854775807 MIN",
    "3 7 MAX", "-3 -7 MAX", "-9223372036854775808 9223372036854775807 MAX",
    "41 1+", "-1 1+", "43 1-", "0 1-",
    "21 2*", "-21 2*", "4611686018427387903 2*",
    "42 2/", "-7 2/", "-1 2/", "7 2/", "-9223372036854775808 2/",
]


@pytest.mark.parametrize("src", ADD_SUB_MUL)
def test_add_sub_mul(f, need_gforth, src):
    check(f, src)


@pytest.mark.parametrize("src", [
    "9223372036854775807 1 +",
    "-9223372036854775808 1 -",
    "4611686018427387904 2 *",
    "-9223372036854775808 NEGATE",
])
def test_twos_complement_wraparound(f, need_gforth, src):
    # Cells are 64-bit two's complement; + - * wrap around as in gforth.
    check(f, src)


DIVIDENDS = [7, -7, 6, -6, 0, 1, -1, 100, MAX, MIN]
DIVISORS = [2, -2, 3, -3, 1, -1, 7, MAX]


@pytest.mark.parametrize("op", ["/", "MOD", "/MOD"])
def test_floored_division(f, need_gforth, op):
    # every dividend with every divisor, one line: "7 2 / 7 -2 / ..."
    check_many(f, [f"{a} {b} {op}" for a, b in itertools.product(DIVIDENDS, DIVISORS)
                   if not (a == MIN and b == -1)])


def test_division_floors_toward_negative_infinity(f, need_gforth):
    # Checked here without gforth's help too: -7/2 = -3.5 floors to -4, remainder -7 - (-4*2) = 1 (the
    # divisor's sign); 7/-2 floors to -4, remainder 7 - 8 = -1; SM/REM truncates (-3, -1), as C does.
    assert check(f, "-7 2 / -7 2 MOD 7 -2 / 7 -2 MOD -7 S>D 2 SM/REM") == [-4, 1, -4, -1, -1, -3]


STAR_SLASH = [
    f"{a} {b} {c} {op}"
    for a, b, c in [(7, 3, 2), (-7, 3, 2), (7, -3, 2), (7, 3, -2), (-7, -3, -2),
                    (1000, 1000, 7), (0, 5, 3), (123456789, 1000, -1000)]
    for op in ["*/", "*/MOD"]
]


@pytest.mark.parametrize("src", STAR_SLASH)
def test_star_slash(f, need_gforth, src):
    check(f, src)


@pytest.mark.parametrize("src", [
    "1099511627776 1073741824 34359738368 */",       # 2^40 * 2^30 / 2^35 = 2^35
    "9223372036854775807 9223372036854775807 9223372036854775807 */",
    "-9223372036854775807 3 6 */MOD",
])
def test_star_slash_uses_a_double_cell_intermediate(f, need_gforth, src):
    # Forth-2012: */ and */MOD keep the product n1*n2 as a double cell.
    check(f, src)


@pytest.mark.parametrize("src", [
    "5 S>D", "-5 S>D", "0 S>D",
    "-7 S>D 2 FM/MOD", "7 S>D -2 FM/MOD", "-7 S>D -2 FM/MOD", "7 S>D 2 FM/MOD",
    "-7 S>D 2 SM/REM", "7 S>D -2 SM/REM", "-7 S>D -2 SM/REM", "7 S>D 2 SM/REM",
    "-9223372036854775808 S>D 3 FM/MOD", "-9223372036854775808 S>D 3 SM/REM",
])
def test_mixed_division(f, need_gforth, src):
    check(f, src)


BITS = [
    "12 10 AND", "-1 255 AND", "12 10 OR", "-256 255 OR", "12 10 XOR", "-1 5 XOR",
    "0 INVERT", "5 INVERT", "-9223372036854775808 INVERT",
    "1 0 LSHIFT", "1 10 LSHIFT", "1 63 LSHIFT", "-1 4 LSHIFT", "3 62 LSHIFT",
    "1024 10 RSHIFT", "-1 1 RSHIFT", "-1 63 RSHIFT", "-16 2 RSHIFT", "5 0 RSHIFT",
]


@pytest.mark.parametrize("src", BITS)
def test_bitwise(f, need_gforth, src):
    check(f, src)


@pytest.mark.parametrize("src", [
    "5 0 10 WITHIN", "0 0 10 WITHIN", "10 0 10 WITHIN", "-1 0 10 WITHIN",
    "5 10 0 WITHIN", "-5 -10 -1 WITHIN", "3 3 3 WITHIN",
    "-9223372036854775808 -9223372036854775808 9223372036854775807 WITHIN",
])
def test_within(f, need_gforth, src):
    check(f, src)


def test_true_false(f, need_gforth):
    assert check(f, "TRUE FALSE") == [-1, 0]


def test_arithmetic_in_a_definition(f, need_gforth):
    check(f, ": POLY ( x -- 3x^2-2x+7 ) DUP DUP * 3 * SWAP 2 * - 7 + ; -5 POLY 4 POLY")


# ----------------------------------------------------------- errors


@pytest.mark.parametrize("src, word, col", [
    ("1 0 /", "/", 5),
    ("1 0 MOD", "MOD", 5),
    ("1 0 /MOD", "/MOD", 5),
    ("1 2 0 */", "*/", 7),
])
def test_division_by_zero(f, src, word, col):
    f.eval("99")
    raises(f, src, word=word, line=1, col=col)
    assert f.data_stack() == [99]


def test_division_by_zero_in_a_definition(f):
    f.eval(": SAFE? ( n d -- q ) / ;")
    f.eval("1")
    raises(f, "10 0 SAFE?")
    assert f.data_stack() == [1]
