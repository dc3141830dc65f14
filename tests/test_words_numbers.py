"""Number literals and BASE, compared with gforth.

    $FF #99 %101 -42     ( -- 255 99 5 -42 )
    HEX FF DECIMAL       ( -- 255 )
"""

import pytest

from forthtest import check, check_output, raises

LITERAL_CASES = [
    "0 1 -1 42 -42",
    "9223372036854775807 -9223372036854775808",
    "$FF $ff $0 $10 $-10",
    "#99 #0 #-7",
    "%1011 %0 %-101",
    "$7FFFFFFFFFFFFFFF",
    "1 $10 #10 %10",
]


@pytest.mark.parametrize("src", LITERAL_CASES)
def test_number_literals(f, need_gforth, src):
    check(f, src)


BASE_CASES = [
    "HEX FF 10 DECIMAL 10",
    "BASE @",
    "HEX BASE @ DECIMAL",
    "2 BASE ! 1010 DECIMAL",
    "8 BASE ! 17 DECIMAL",
    "HEX -FF DECIMAL",
    "HEX #10 DECIMAL",
    "HEX 7fffffffffffffff DECIMAL",
    "36 BASE ! Z 10 DECIMAL",
]


@pytest.mark.parametrize("src", BASE_CASES)
def test_base(f, need_gforth, src):
    check(f, src)


def test_base_carries_over_to_the_next_line(f, need_gforth):
    import gforth

    f.eval("HEX")
    f.eval("FF 10")
    f.eval("DECIMAL 10")
    assert f.data_stack() == gforth.stack("HEX\nFF 10\nDECIMAL 10")


@pytest.mark.parametrize("src", [
    "255 HEX . DECIMAL",
    "HEX 1F . DECIMAL",
    "2 BASE ! 10 . DECIMAL",
    "-10 2 BASE ! . DECIMAL",
    "HEX : SHOW 100 . ; DECIMAL SHOW",
])
def test_base_in_output(f, need_gforth, src):
    check_output(f, src)


def test_base_inside_a_definition(f, need_gforth):
    # BASE is read when the word runs, not when it is compiled
    check(f, ": AS-HEX 16 BASE ! ; AS-HEX BASE @ DECIMAL BASE @")


def test_literals_in_a_definition_use_compile_time_base(f, need_gforth):
    check(f, "HEX : K 10 ; DECIMAL K")


@pytest.mark.parametrize("src, word", [
    ("12Z", "12Z"),
    ("$G", "$G"),
    ("%2", "%2"),
    ("HEX G DECIMAL", "G"),
    ("1-2", "1-2"),
])
def test_not_a_number(f, src, word):
    f.eval("1")
    raises(f, src, word=word)
    assert f.data_stack() == [1]
    if "HEX" not in src:
        # nothing on the line changed BASE
        f.eval("BASE @")
        assert f.data_stack() == [1, 10]
