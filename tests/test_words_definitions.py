"""Defining words and data space, compared with gforth.

Addresses differ between the two systems, so the tests look at what is
stored and at differences of addresses, never at raw addresses.

    VARIABLE V  5 V !  V @      ( -- 5 )
"""

import pytest

import forthtest
import gforth
from forthtest import check, raises
from tileforth.core import ForthError



@pytest.fixture
def f(f1):
    """One thread: VARIABLE updates (+!) happen once, as in gforth."""
    return f1


DEFINING_CASES = [
    # : ;
    ": SQUARE DUP * ; 7 SQUARE -3 SQUARE",
    ": SQUARE DUP * ; : CUBE DUP SQUARE * ; 3 CUBE",
    ": NOTHING ; 1 NOTHING 2",
    # CONSTANT
    "42 CONSTANT ANSWER ANSWER ANSWER +",
    "-1 CONSTANT NEG : TWICE-NEG NEG 2 * ; TWICE-NEG",
    # VARIABLE
    "VARIABLE V 5 V ! V @",
    "VARIABLE V 5 V ! 3 V +! V @",
    "VARIABLE V1 VARIABLE V2 1 V1 ! 2 V2 ! V1 @ V2 @",
    "VARIABLE CNT 0 CNT ! : BUMP 1 CNT +! ; BUMP BUMP BUMP CNT @",
    # CREATE , C, ALLOT
    "CREATE T 10 , 20 , 30 , T @ T CELL+ @ T 2 CELLS + @",
    "CREATE B 1 C, 2 C, 3 C, B C@ B CHAR+ C@ B 2 CHARS + C@",
    "CREATE T 3 CELLS ALLOT 7 T CELL+ ! T CELL+ @",
    "CREATE T 5 , : T@ T @ ; T@",
    # BUFFER:
    "16 BUFFER: BUF 7 BUF 8 + ! 9 BUF ! BUF 8 + @ BUF @",
    # CELLS CELL+ CHARS CHAR+ ALIGNED
    "3 CELLS 0 CELLS 1 CELLS",
    "0 CELL+ 8 CELL+",
    "3 CHARS 0 CHAR+",
    "0 ALIGNED 1 ALIGNED 7 ALIGNED 8 ALIGNED 9 ALIGNED 16 ALIGNED",
]


@pytest.mark.parametrize("src", DEFINING_CASES)
def test_defining_words(f, need_gforth, src):
    check(f, src)


def test_here_moves_by_allot(f, need_gforth):
    check(f, "HERE 10 ALLOT HERE SWAP -")


def test_here_moves_by_comma(f, need_gforth):
    check(f, "ALIGN HERE 1 , 2 , HERE SWAP -")


def test_here_moves_by_c_comma(f, need_gforth):
    check(f, "HERE 1 C, 2 C, 3 C, HERE SWAP -")


def test_align_after_c_comma(f, need_gforth):
    check(f, "ALIGN HERE 1 C, ALIGN HERE SWAP -")


def test_create_points_at_here(f, need_gforth):
    check(f, "CREATE X HERE X =")


def test_variable_holds_one_cell(f, need_gforth):
    check(f, "VARIABLE A VARIABLE B B A - ABS 8 >=")


def test_definition_spanning_lines(f, need_gforth):
    # Each line is one f.eval; the stack and dictionary carry over.
    f.eval(": DOUBLE 2 * ;")
    f.eval("21 DOUBLE")
    assert f.data_stack() == gforth.stack(": DOUBLE 2 * ;\n21 DOUBLE")


def test_redefinition_keeps_earlier_binding(f, need_gforth):
    # Forth: words compiled earlier keep the definition they were compiled with.
    f.eval(": A 1 ;")
    f.eval(": B A ;")
    f.eval(": A 2 ;")
    f.eval("B A")
    assert f.data_stack() == gforth.stack(": A 1 ;\n: B A ;\n: A 2 ;\nB A")


def test_constant_redefined(f, need_gforth):
    check(f, "1 CONSTANT K : USE-K K ; 2 CONSTANT K USE-K K")


def test_words_are_case_insensitive(f, need_gforth):
    check(f, ": sq dup * ; 5 SQ 6 sq 7 Sq")


def test_comments(f, need_gforth):
    check(f, "1 ( a comment ) 2 : T ( n -- n ) 1+ ; 3 T \\ the rest is ignored 99")


def test_a_comment_goes_on_over_the_lines_fed_to_eval(f, need_gforth):
    """As in a file (coretest's `T{ ( 1 2 3` on three lines): a `(` without its
    `)` goes on over the next lines given to f.eval, in a definition too."""
    lines = ["1 ( a", "2 b", "c ) 3 : T ( n", "-- n ) 1+ ; 4 T"]
    for line in lines:
        f.eval(line)
    assert f.data_stack() == gforth.stack("\n".join(lines)) == [1, 3, 5]


def test_a_comment_in_a_failed_line_does_not_stay_open(f):
    with pytest.raises(ForthError):
        f.eval("1 0 / ( a")  # the line fails as it runs: its comment does not swallow the next line
    f.eval("7")
    assert f.data_stack() == [7]


def test_evaluate_and_include_close_their_own_comments(f, tmp_path):
    with pytest.raises(ForthError, match=r"\( comment is not closed"):
        f.eval('S" 1 ( a" EVALUATE')
    path = tmp_path / "open.fth"
    path.write_text("1 ( a\n")
    with pytest.raises(ForthError, match=r"\( comment is not closed"):
        f.eval(f"INCLUDE {path}")
    f.eval("2")
    assert f.data_stack() == [2]


def test_multi_line_source_in_one_eval(f, need_gforth):
    src = ": SQ ( n -- n*n )\n  DUP * ;\n3 SQ\n4 SQ"
    assert forthtest.stack(f, src) == gforth.stack(src)


def test_deep_recursion(f, need_gforth):
    check(f, ": DOWN ( n -- 0 ) DUP IF 1- RECURSE THEN ; 1000 DOWN "
             ": SUMTO ( acc n -- s ) DUP IF TUCK + SWAP 1- RECURSE ELSE DROP THEN ; 0 1500 SUMTO")


def test_failed_line_keeps_the_old_definition(f, need_gforth):
    f.eval(": OLDDEF 1 ;")
    raises(f, ": OLDDEF 2 ; NOT-A-WORD", word="NOT-A-WORD")
    assert forthtest.stack(f, "OLDDEF") == [1]


# ---------------------------------------------------------- locals


LOCALS_CASES = [
    ": SUB3 { a b c -- } a b - c - ; 10 3 2 SUB3",
    ": HYP2 { x y -- } x x * y y * + ; 3 4 HYP2",
    ": ONE { n -- } n n n ; 9 ONE",
    ": LOOPER { n -- } 0 n 0 DO I n * + LOOP ; 4 LOOPER",
    ": POS? { n -- } n 0> IF n ELSE n NEGATE THEN ; -5 POS? 6 POS?",
    # LOCALS| (13.6.2.1795): the first name takes the top of the stack
    ": LB3 LOCALS| a b c | a b - c - ; 10 3 2 LB3",
    ": LB1 LOCALS| n | 0 n 0 DO I n * + LOOP ; 4 LB1",
    ": LBT LOCALS| x y | x 10 * y + ; 1 2 LBT",
]


@pytest.mark.parametrize("src", LOCALS_CASES)
def test_locals(f, need_gforth, src):
    check(f, src)


# ---------------------------------------------------------- errors


def test_unknown_word(f):
    f.eval("1 2")
    err = raises(f, "3 FROBNICATE 4", word="FROBNICATE", line=1, col=3)
    assert "FROBNICATE" in str(err).upper()
    assert f.data_stack() == [1, 2]


def test_unknown_word_on_a_later_line(f):
    f.eval("1")
    raises(f, "2 3\n  4 NOSUCHWORD", word="NOSUCHWORD", line=2, col=5)
    assert f.data_stack() == [1]


def test_unknown_word_inside_a_definition(f):
    raises(f, ": BROKEN 1 NOSUCH ;", word="NOSUCH", col=12)
    raises(f, "BROKEN", word="BROKEN", col=1)   # not defined


def test_failed_line_does_not_define(f):
    # The definition is complete, but the line fails later: nothing is kept.
    raises(f, ": KEPT? 1 ; UNDEFINED-WORD", word="UNDEFINED-WORD")
    raises(f, "KEPT?", word="KEPT?")


def test_constant_needs_a_value(f):
    raises(f, "CONSTANT NOVALUE")
    raises(f, "NOVALUE", word="NOVALUE")


def test_gforth_rejects_unknown_words_too(need_gforth):
    assert gforth.fails("3 FROBNICATE 4")


def test_see_shows_a_definition_fed_line_by_line(f):
    """A definition whose lines come in separate f.eval calls (a file fed line
    by line) keeps its whole text for SEE, not only its first line."""
    for line in [": sq ( n -- n*n )", "  DUP", "  * ;  3 sq"]:
        f.eval(line)
    assert f.data_stack() == [9]
    shown = f.eval("SEE sq")
    assert "DUP" in shown and "*" in shown and "3 sq" not in shown
