"""The inspection words hand the front end data (view records), and text is
made in one place: core lays a record out once (its plain text is what
`Forth.eval` returns), the REPL styles the same layout; numbers are
formatted by tileforth/core/session/output.py only."""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest

from tileforth.core import Forth

from tileforth.core.session import output
from tileforth.core.session import views as records
from tileforth.repl import render as rviews

CORE = pathlib.Path(records.__file__).parent


def imports(path: pathlib.Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


@pytest.mark.parametrize("module", ["views.py", "words/inspection.py", "output.py"])
def test_core_presentation_imports_no_terminal_library_and_no_repl(module):
    names = imports(CORE / module)
    assert not any(n.split(".")[0] == "rich" or "repl" in n for n in names), names


def test_numbers_and_tile_summaries_are_formatted_once():
    assert rviews.format_int is output.format_int and rviews.format_value is output.format_value
    assert rviews.tile_summary is records.tile_summary
    assert output.format_int(-(2**63), 16) == "-8" + "0" * 15 and output.format_int(np.int64(-5)) == "-5"
    assert [output.format_f32(x) for x in (np.nan, np.inf, -np.inf, 0.1)] == ["nan", "inf", "-inf", "0.1"]


@pytest.fixture
def f():
    return Forth(backend="cpu")


def records_of(f, src):
    seen = []
    f.display = lambda kind, rec: seen.append((kind, rec)) and None
    text = f.eval(src)
    f.display = None
    return text, seen


@pytest.mark.parametrize("src,cls", [
    ("1 TID-X .STACKS", records.Stacks), ("TID-X .LANES", records.Lanes), ("TZERO .TILE", records.TileValues),
    ("TZERO .FRAG", records.Fragments), ("3 F32 ARRAY xs .M xs", records.Matrix),
    (": sq DUP * ; SEE sq", records.Definition), ("HELP DUP", records.HelpEntry), ("HELP", records.HelpSummary),
    (": sq DUP * ; SEE-IR sq", records.IRCode),
])
def test_each_inspection_word_hands_over_a_record_whose_plain_text_eval_returns(f, src, cls):
    text, seen = records_of(f, src)
    (kind, rec), = seen
    assert type(rec) is cls and kind == cls.kind
    assert text == rec.plain()


def test_records_hold_the_data(f):
    _, [(_, stacks)] = records_of(f, "7 TID-X 2.5e .STACKS")
    assert stacks.data_lists() == [[7, t] for t in range(32)] and stacks.float_lists() == [[2.5]] * 32
    _, [(_, m)] = records_of(f, "2 3 I32 MATRIX m  RAMP m  .M m")
    np.testing.assert_array_equal(m.values, np.arange(6).reshape(2, 3))
    assert (m.name, m.eltype, m.is_float, m.large) == ("m", "I32", False, False)
    _, [(_, frag)] = records_of(f, "TZERO .FRAG")
    assert frag.lanes.shape == (16, 16) and sorted(set(frag.lanes.ravel())) == list(range(32))


def test_the_repl_styles_the_same_layout(f):
    _, [(_, rec)] = records_of(f, "TZERO .FRAG")
    styled = rviews.render(rec.kind, rec, colour=True)
    assert [t.plain for t in styled] == rec.plain().splitlines()
