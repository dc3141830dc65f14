"""Stack and error views, on values made here (no Forth needed).

A stack entry holds one value per thread; the view shows it once when all
threads agree, otherwise a short summary.  Expected strings are built from
the same numbers the inputs are built from, not copied from the program.
"""

import numpy as np
import pytest

from tileforth.repl import render as views
from tileforth.repl.render import Glyphs, caret_line, fit_line, stack_entries, summarize

ELL, DASH, TIMES = "…", "–", "×"


def ramp_text(vals):
    return f"[{vals[0]} {vals[1]} {vals[2]} {ELL} {vals[-1]}]"


def test_uniform_value_shown_once():
    assert summarize([5] * 32) == "5"
    assert summarize([-7] * 1) == "-7"


def test_ramp_is_compact():
    lanes = list(range(32))
    assert summarize(lanes) == ramp_text(lanes)
    evens = [2 * t + 10 for t in range(32)]
    assert summarize(evens) == ramp_text(evens)
    down = [100 - t for t in range(64)]
    assert summarize(down) == ramp_text(down)


def test_short_vectors_list_every_value():
    assert summarize([3, 9, 1]) == "[3 9 1]"
    assert summarize([1, 2]) == "[1 2]"


def test_runs():
    half = [-1] * 16 + [0] * 16
    assert summarize(half) == f"[-1{TIMES}16 0{TIMES}16]"
    first = [-1] + [0] * 31
    assert summarize(first) == f"[-1 0{TIMES}31]"


def test_period_of_a_ramp_across_blocks():
    tid = [t for _ in range(4) for t in range(32)]
    assert summarize(tid) == f"({ramp_text(list(range(32)))[1:-1]}){TIMES}4".join("[]")


def test_short_period():
    parity = [t % 2 for t in range(32)]
    assert summarize(parity) == f"[(0 1){TIMES}16]"


def test_range_for_anything_else():
    squares = [t * t for t in range(32)]
    assert summarize(squares) == f"[{min(squares)}{DASH}{max(squares)} (32 lanes)]"
    rng = np.random.default_rng(1)
    vals = rng.integers(-1000, 1000, size=128)
    assert summarize(vals) == f"[{vals.min()}{DASH}{vals.max()} (128 threads)]"


def test_huge_ramp_falls_back_to_range():
    big = [2**62 + 3 * t for t in range(32)]
    assert summarize(big) == f"[{big[0]}{DASH}{big[-1]} (32 lanes)]"


def test_floats():
    assert summarize([1.5] * 32, is_float=True) == "1.5"
    lanes = [float(t) for t in range(32)]
    assert summarize(lanes, is_float=True) == "[0.0 1.0 2.0 … 31.0]"
    # f32 values print with the shortest text that reads back as that f32
    assert summarize([0.1] * 4, is_float=True) == "0.1"
    sq = [t * t / 4 for t in range(32)]
    assert summarize(sq, is_float=True) == f"[0.0{DASH}{31 * 31 / 4} (32 lanes)]"


def test_ascii_glyphs():
    g = Glyphs.for_encoding("ascii")
    assert summarize(list(range(32)), glyphs=g) == "[0 1 2 ... 31]"
    assert Glyphs.for_encoding("utf-8") == views.UNICODE


def test_stack_entries_uniform_and_varying():
    threads = [[5, t] for t in range(32)]
    tag, entries = stack_entries(threads)
    assert tag == "<2>"
    assert entries == ["5", ramp_text(list(range(32)))]


def test_stack_entries_uneven_depth():
    # odd threads pushed one more value (an unbalanced IF)
    threads = [[7, 1] if t % 2 else [7] for t in range(32)]
    tag, entries = stack_entries(threads)
    assert tag == f"<1{DASH}2>"
    assert entries[0] == "7"
    assert entries[1] == "1?"  # present in some threads only


def test_empty_stack():
    assert stack_entries([[] for _ in range(32)]) == ("<0>", [])


def test_long_stack_drops_deepest_entries_to_fit():
    threads = [list(range(1000, 1040)) for _ in range(32)]
    tag, entries = stack_entries(threads)
    marker, shown = fit_line("data ", tag, entries)
    line = " ".join(["data ", tag, marker] + shown)
    assert len(line) <= views.WIDTH
    assert shown[-1] == "1039"  # top of stack always shown
    hidden = 40 - len(shown)
    assert marker == f"{ELL}{hidden} more"
    assert shown == [str(v) for v in range(1000 + hidden, 1040)]


def test_stack_line_fits_80_columns_with_varying_entries():
    threads = [[t * 1_000_003 + k for k in range(12)] for t in range(32)]
    line = views.stack_line("data ", threads)
    assert len(line.plain) <= 80


@pytest.mark.parametrize("line, word", [
    ("1 2 FOOBAR +", "FOOBAR"),
    ("FOO", "FOO"),
    ("  : SQ DUP * ; 3 sq", "sq"),
])
def test_caret_under_word(line, word):
    col = line.index(word) + 1  # 1-based, as ForthError.col
    caret = caret_line(line, col, word)
    assert caret.index("^") == line.index(word)
    assert caret.strip() == "^" * len(word)


def test_caret_keeps_tabs_aligned():
    line = "\t1\tBAD"
    caret = caret_line(line, line.index("BAD") + 1, "BAD")
    assert caret == "\t \t^^^"


def test_caret_without_column():
    assert caret_line("1 2 +", None, "+") is None


class FakeError(Exception):
    def __init__(self, msg, line=None, col=None, word=None, source_line=None):
        super().__init__(msg)
        self.line, self.col, self.word, self.source_line = line, col, word, source_line


def test_render_error_with_location():
    src = "1 2 FOOBAR +"
    e = FakeError("FOOBAR is not a word. Define it first.", 1, 5, "FOOBAR", src)
    text = views.render_error(e, where="demo.fth:3").plain.splitlines()
    assert text[0] == "demo.fth:3:5: error: FOOBAR is not a word. Define it first."
    assert text[1] == "  " + src
    assert text[2] == "  " + " " * 4 + "^" * 6


def test_render_error_without_source_line_uses_given_one():
    e = FakeError("stack underflow", None, 1, "+", None)
    text = views.render_error(e, source_line="+").plain.splitlines()
    assert text == ["error: stack underflow", "  +", "  ^"]


@pytest.mark.parametrize("n", [0, 1, 255, -255, 2**63 - 1, -(2**63)])
@pytest.mark.parametrize("base", [2, 8, 16, 36])
def test_cells_in_base(n, base):
    assert int(views.format_int(n, base), base) == n
    if base == 16:
        assert views.format_int(n, 16) == ("-" if n < 0 else "") + format(abs(n), "X")


def test_ramp_in_hex():
    lanes = list(range(32))
    hexes = [format(t, "X") for t in lanes]
    assert summarize(lanes, base=16) == ramp_text(hexes)


def test_current_base_is_optional():
    class NoBase:
        pass

    class Hex:
        def base(self):
            return 16

    assert views.current_base(NoBase()) == 10
    assert views.current_base(Hex()) == 16
