"""Stack words, each compared with gforth.

    1 2 SWAP      ( -- 2 1 )
"""

import pytest

import gforth
from forthtest import check, raises

# (source typed at the prompt)
STACK_CASES = [
    "1 DUP",
    "-7 DUP DUP",
    "1 2 DROP",
    "1 2 SWAP",
    "1 2 OVER",
    "1 2 3 ROT",
    "1 2 3 -ROT",
    "1 2 3 ROT ROT",
    "1 2 NIP",
    "1 2 TUCK",
    "10 20 30 0 PICK",
    "10 20 30 2 PICK",
    "10 20 30 40 3 ROLL",
    "10 20 30 1 ROLL",
    "10 20 30 0 ROLL",
    "5 ?DUP",
    "0 ?DUP",
    "-1 ?DUP",
    "DEPTH",
    "1 2 3 DEPTH",
    "1 2 2DUP",
    "1 2 3 2DROP",
    "1 2 3 4 2SWAP",
    "1 2 3 4 2OVER",
    "-9223372036854775808 9223372036854775807 SWAP DUP",
    # computed (dynamic) indices
    "10 20 30 DEPTH 1- PICK",
    "10 20 30 40 DEPTH 1- ROLL",
    "1 2 3 4 5 6 7 8 9 10 11 12 DEPTH 2 - PICK",
]


@pytest.mark.parametrize("src", STACK_CASES)
def test_stack_word(f, need_gforth, src):
    check(f, src)


def test_depth_counts_items_from_earlier_lines(f, need_gforth):
    f.eval("7 8 9")
    f.eval("DEPTH")
    assert f.data_stack() == gforth.stack("7 8 9 DEPTH")


def test_stack_persists_between_lines(f, need_gforth):
    # The REPL keeps the stacks between lines, as gforth does.
    f.eval("1 2")
    f.eval("3")
    f.eval("ROT")
    assert f.data_stack() == gforth.stack("1 2\n3\nROT")


# The return stack: in gforth >R R> are allowed at the prompt within a line.
RETURN_STACK_CASES = [
    "1 2 >R 3 R>",
    "1 2 >R R@ R>",
    "1 >R 2 >R R> R> SWAP",
    "5 >R R@ R@ * R> +",
]


@pytest.mark.parametrize("src", RETURN_STACK_CASES)
def test_return_stack_at_prompt(f, need_gforth, src):
    check(f, src, wrap=True)


@pytest.mark.parametrize("src", [
    ": T >R 10 R> ; 1 T",
    ": T ( a b -- b a ) >R >R R@ R> R> ROT DROP SWAP ; 1 2 T",
    ": T 3 0 DO I >R R@ R> LOOP ; T",
])
def test_return_stack_in_definitions(f, need_gforth, src):
    check(f, src)


# ----------------------------------------------------------- errors


def test_underflow_names_the_word(f):
    f.eval("10 20")
    raises(f, "DROP DROP DROP", word="DROP", line=1, col=11)
    assert f.data_stack() == [10, 20]


@pytest.mark.parametrize("src", ["SWAP", "ROT", "2DROP", "2SWAP", "+", "NIP"])
def test_underflow_with_one_item(f, src):
    f.eval("42")
    raises(f, src, word=src, col=1)
    assert f.data_stack() == [42]


def test_pick_beyond_the_stack(f):
    f.eval("1 2")
    raises(f, "5 PICK", word="PICK")
    assert f.data_stack() == [1, 2]


def test_underflow_inside_a_definition(f):
    f.eval(": TWO-DROPS DROP DROP ;")
    f.eval("1")
    raises(f, "TWO-DROPS")
    assert f.data_stack() == [1]


def test_r_from_with_empty_return_stack(f):
    f.eval("1")
    raises(f, "R>")
    assert f.data_stack() == [1]


def test_data_stack_overflow_is_an_error(f):
    # checked mode: pushing far too many items is a ForthError, not a crash
    f.eval("1 2")
    raises(f, "100000 0 DO I LOOP", line=1)
    assert f.data_stack() == [1, 2]


def test_float_stack_overflow_is_an_error(f):
    f.eval("1e")
    raises(f, "100000 0 DO 1e LOOP", line=1)
    assert f.float_stack() == [1.0]
