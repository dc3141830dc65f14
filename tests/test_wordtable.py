"""The word table (tileforth/core/session/words/table.py): every host word,
immediate word and built-in constant declared once, and each declaration true.

- a session's dictionary holds every row, and nothing else of those kinds;
- the word set a row names is the Forth-2012 glossary that defines it (the
  first of the standard's lists that has it: wordsets.py), or "gforth" or
  "tileforth" for a word none of them has;
- what a row says it reads after its name is what the interpreter reads: run
  each example with every table word watched, and a word that moved the
  input declares it, and a word that declares it moved the input;
- the kind of word a defining word's name becomes is the kind the scanner
  colours it (`defines`): what the dictionary then holds.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tileforth

from tileforth.core import Forth
from tileforth.core.front.dictionary import NEW, RUNTIME, HostWord, Immediate
from tileforth.core.front.reader import Reader
from tileforth.core.records import replace
from tileforth.core.session.words import WORDS, BuiltinConstant, WordTable
from tileforth.core.session.words.table import OWN_SETS
from tileforth.core.session.wordsets import REFUSED, WORDSETS
from tileforth.repl.scan import kind_of

WORD_ROWS = WORDS.of(HostWord) + WORDS.of(Immediate)


def test_the_dictionary_holds_every_row_and_no_other_host_or_immediate_word():
    f = Forth()
    for row in WORDS:
        entry = f.dict[row.name.upper()]
        if isinstance(row, BuiltinConstant):
            assert entry.name == row.name and entry.help.startswith(row.effect)
        else:
            assert entry is row
    kinds = (HostWord, Immediate)
    assert {k for k, e in f.dict.items() if isinstance(e, kinds)} == {w.name.upper() for w in WORD_ROWS}
    assert f.dict["BASE"].value == f.base_addr and f.dict["F32"].value == 6


def test_host_and_immediate_words_are_made_only_by_the_table():
    """One way to declare a word: no module but words/table.py makes a HostWord
    or an Immediate (the REPL's WORDS is the table's, with another function)."""
    root = Path(tileforth.__file__).parent
    makers = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("HostWord", "Immediate"):
                makers.append(str(path.relative_to(root)))
    assert set(makers) == {"core/session/words/table.py"}


def test_a_name_is_declared_once():
    table = WordTable()
    table.host("TWICE", "( -- )", "", fn=lambda f, tok: None, wordset="tileforth")
    with pytest.raises(ValueError, match="declared twice"):
        table.immediate("twice", "( -- )", "", fn=lambda f, tok: None, wordset="tileforth")


def _first_set(name: str) -> str | None:
    return next((ws.name for ws in WORDSETS if name in ws.words), None)


@pytest.mark.parametrize("row", list(WORDS), ids=[r.name for r in WORDS])
def test_the_word_set_is_the_glossary_that_defines_it(row):
    standard = _first_set(row.name)
    if standard is None:
        assert row.wordset in OWN_SETS, f"{row.name}: not in a Forth-2012 list, so gforth's or tileforth's"
    else:
        assert row.wordset == standard, f"{row.name} is defined by {standard}"


def test_refused_words_come_from_the_table():
    assert REFUSED == {"KEY": "there is no keyboard in a launch"}
    assert WORDS.rows["KEY"].refuses == REFUSED["KEY"]


# ---- what a word reads, as the interpreter reads it ---------------------------------------------

FILES = {"lib.fth": ": from-lib 42 ;\n", "data.npy": None}


@pytest.fixture
def in_a_folder_with_the_files(tmp_path, monkeypatch):
    import numpy as np
    for name, text in FILES.items():
        if text is None:
            np.save(tmp_path / name, np.arange(16, dtype=np.float32))
        else:
            (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)


def _watched(f: Forth, moved: set[str]) -> None:
    """Replace every table word of f's dictionary by one that notes whether
    its function moved the reader it was called with."""
    def watch(row):
        def fn(f, tok):
            r = f.reader
            at = (r.row, r.col)
            try:
                return row.fn(f, tok)
            finally:
                if f.reader is r and (r.row, r.col) != at:
                    moved.add(row.name)
        return fn
    for key, entry in list(f.dict.items()):
        if isinstance(entry, (HostWord, Immediate)):
            f.dict[key] = replace(entry, fn=watch(entry))


def test_a_word_reads_the_source_exactly_when_it_declares_so(in_a_folder_with_the_files):
    """Every example of the table runs with each word watched: a word whose
    function moved the input declares what it reads (`parses`), and a word
    that declares it, other than the ones only running tells (RUNTIME: WORD
    PARSE REFILL RESTORE-INPUT [IF] [ELSE]), moved it in its own example."""
    moved: set[str] = set()
    ran: set[str] = set()
    for row in WORD_ROWS:
        if not row.example:
            continue
        f = Forth()
        _watched(f, moved)
        f.eval(row.example)
        ran.add(row.name)
    declared = {w.name for w in WORD_ROWS if w.parses is not None}
    assert moved - declared == set(), "these words read the source: declare `parses`"
    exercised = {w.name for w in WORD_ROWS if w.parses is not None and w.parses.reads != RUNTIME} & ran
    assert exercised - moved == set(), "these words declare that they read, but their examples read nothing"
    assert len(exercised) > 40


def _defining_rows() -> list:
    return [w for w in WORD_ROWS if w.parses is not None and w.parses.reads == NEW]


@pytest.mark.parametrize("row", _defining_rows(), ids=[w.name for w in _defining_rows()])
def test_a_defined_name_becomes_the_kind_the_scanner_colours(row):
    """The example up to the new name (and the old one of SYNONYM) defines
    it; the dictionary's entry is of the kind `defines` says."""
    tokens = list(iter(Reader(row.example).next_token, None))
    at = next(i for i, t in enumerate(tokens) if t.key == row.name.upper())
    last = tokens[at + len(row.parses.sequence())]
    f = Forth()
    f.eval(row.example[:last.pos.col - 1 + len(last.text)])
    if f.compiling:
        f.eval(";")
    entry = f.dict[tokens[at + 1].key]
    want = row.parses.defines or kind_of(f.dict[last.key])
    assert kind_of(entry) == want
