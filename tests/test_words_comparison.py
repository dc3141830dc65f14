"""Comparisons leave a well-formed flag: true is -1 (all bits set), false 0.

    3 4 <      ( -- -1 )
"""

import itertools

import pytest

from forthtest import check, check_many

MIN, MAX = -(1 << 63), (1 << 63) - 1
VALUES = [0, 1, -1, 2, MAX, MIN]


@pytest.mark.parametrize("op", ["=", "<>", "<", ">", "<=", ">=", "U<"])
def test_binary_comparison(f, need_gforth, op):
    # every pair of VALUES, one line: "0 0 = 0 1 = ..."
    check_many(f, [f"{a} {b} {op}" for a, b in itertools.product(VALUES, VALUES)])


@pytest.mark.parametrize("op", ["0=", "0<>", "0<", "0>"])
def test_unary_comparison(f, need_gforth, op):
    check_many(f, [f"{a} {op}" for a in VALUES + [-2]])


def test_flags_are_all_bits(f, need_gforth):
    # A true flag is -1, so it works as a mask.
    assert check(f, "3 4 < 255 AND  4 3 < 255 AND") == [255, 0]


def test_comparison_in_a_definition(f, need_gforth):
    check(f, ": CLAMP ( n -- n' ) DUP 0< IF DROP 0 THEN DUP 100 > IF DROP 100 THEN ; "
             "-5 CLAMP 50 CLAMP 500 CLAMP")
