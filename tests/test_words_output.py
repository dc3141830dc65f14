"""Output words: what a line prints, compared with gforth's text.

    1 2 + .        \\ prints "3 "
"""

import re
import subprocess

import numpy as np
import pytest

import forthtest
from tileforth.core import Forth
from forthtest import check_output, raises

OUTPUT_CASES = [
    "1 2 + .",
    "-5 .",
    "0 .",
    "9223372036854775807 .",
    "-9223372036854775808 .",
    "1 . 2 . 3 .",
    "65 EMIT 66 EMIT",
    "72 EMIT 105 EMIT 33 EMIT",
    "CR",
    "1 . CR 2 .",
    '." hello world"',
    '." a" ." b"',
    '." two  spaces" ." "',
    '." x=" 42 . CR',
    "255 HEX . DECIMAL",
    "-255 HEX . DECIMAL",
    "3 4 5 .",                       # prints the top only
]


@pytest.mark.parametrize("src", OUTPUT_CASES)
def test_output(f, need_gforth, src):
    check_output(f, src)


@pytest.mark.parametrize("src", [
    "5 0 DO I . LOOP",
    "3 0 DO 42 EMIT LOOP CR",
    "4 0 DO I 2 MOD IF .\" odd \" ELSE .\" even \" THEN LOOP",
])
def test_output_in_control_at_the_prompt(f, need_gforth, src):
    check_output(f, src, wrap=True)


@pytest.mark.parametrize("src", [
    ': GREET ." Hello, " ." Forth!" CR ; GREET GREET',
    ": STARS 0 ?DO 42 EMIT LOOP ; 5 STARS CR 0 STARS 1 STARS",
    ": SHOW-SQUARES 6 1 DO I DUP * . LOOP ; SHOW-SQUARES",
])
def test_output_from_definitions(f, need_gforth, src):
    check_output(f, src)


def test_a_line_without_output_prints_nothing(f):
    assert f.eval("1 2 +") == ""


def test_dot_s_shows_the_stack_and_keeps_it(f):
    f.eval("1 -2 3")
    out = f.eval(".S")
    assert [int(x) for x in re.findall(r"-?\d+", out)][-3:] == [1, -2, 3]
    assert f.data_stack() == [1, -2, 3]


def test_dot_s_like_gforth(f, need_gforth):
    import gforth

    out = f.eval("7 8 .S")
    ref = gforth.output("7 8 .S")          # "<2> 7 8 "
    assert out.split() == ref.split()


@pytest.mark.parametrize("x", [1.5, -2.25, 0.0, 3.0, 100.0, 0.125, 0.1, -1e-3, 1e10])
def test_f_dot_prints_the_value(f, x):
    """F. prints the number then a space; the text reads back as the f32."""
    lit = repr(float(np.float32(x))).replace("e+", "e")
    out = f.eval(lit + ("" if "e" in lit else "e0") + " F.")
    assert out.endswith(" ")
    value = float(out.strip())
    assert np.float32(value) == np.float32(x) or abs(value - x) <= 1e-6 * max(1.0, abs(x))
    assert f.float_stack() == []


def test_f_dot_like_gforth_for_simple_values(f, need_gforth):
    import gforth

    src = "1.5e0 F. -2.25e0 F. 0.125e0 F."
    assert f.eval(src) == gforth.output(src)


def test_uniform_output_is_printed_once(f, need_gforth):
    # 32 threads all print 7: shown once, as gforth would
    import gforth

    assert f.eval("7 .") == gforth.output("7 .")


def test_divergent_output_names_every_thread_value(f):
    # each thread prints its own TID-X: all 32 values appear
    out = f.eval("TID-X .")
    numbers = set(re.findall(r"\d+", out))
    assert {str(i) for i in range(32)} <= numbers


def test_dot_underflow(f):
    raises(f, ".", word=".", col=1)


def test_emit_underflow(f):
    f.eval("1e")
    raises(f, "EMIT", word="EMIT")
    assert f.float_stack() == [1.0]


def test_output_of_a_failed_line(f):
    # the line fails; stacks are as before it
    f.eval("5")
    raises(f, "1 . NOSUCH")
    assert forthtest.stack(f, "") == [5]


@pytest.mark.parametrize("line", ["PAGE", "0 0 AT-XY", "3 5 AT-XY", "123 45 AT-XY 9 10 AT-XY", 'PAGE 2 1 AT-XY ." moof" CR'])
def test_page_and_at_xy_print_gforths_control_sequences(line):
    """FACILITY's PAGE and AT-XY: the bytes gforth writes (ANSI ESC[2J ESC[1;1H and ESC[row+1;col+1H)."""
    want = subprocess.run(["gforth", "-e", line + " bye"], capture_output=True, timeout=30).stdout
    f = Forth()
    f.eval("1 1 1 THREADS")
    assert f.eval(line).encode() == want
    assert f.eval("255 16 BASE ! EMIT-DECIMAL DECIMAL") == "255"  # in decimal whatever BASE is
