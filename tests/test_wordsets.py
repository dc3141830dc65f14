"""The Forth-2012 word-set table of docs/words.md: its lists are the
standard's, and what it claims about the dictionary is true."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tileforth.core import Forth, ForthError
from tileforth.core.session.wordsets import DIFFERENT, REFUSED, WORDSETS, status

DOCS = Path(__file__).resolve().parents[1] / "docs" / "words.md"
BY_NAME = {ws.name: ws for ws in WORDSETS}


@pytest.fixture(scope="module")
def forth() -> Forth:
    return Forth()


@pytest.mark.parametrize("name,count", [
    ("CORE", 133), ("CORE-EXT", 49), ("DOUBLE", 20), ("DOUBLE-EXT", 3), ("EXCEPTION", 2), ("EXCEPTION-EXT", 2),
    ("FACILITY", 3), ("FILE", 21), ("FLOATING", 31), ("LOCALS", 1), ("MEMORY", 3), ("PROGRAMMING-TOOLS", 5),
    ("SEARCH", 9), ("STRING", 8), ("BLOCK", 8),
])
def test_the_lists_have_the_standards_counts(name, count):
    assert len(BY_NAME[name].words) == count


def test_the_lists_hold_each_word_once_in_the_standards_spelling():
    for ws in WORDSETS:
        assert len(set(ws.words)) == len(ws.words), ws.name
        assert all(w == w.upper() for w in ws.words), ws.name
    core = BY_NAME["CORE"].words
    assert ("!", "#", "#>", "#S", "'", "(") == core[:6] and core[-4:] == ("[", "[']", "[CHAR]", "]")
    assert BY_NAME["CORE-EXT"].words[-2:] == ("[COMPILE]", "\\")
    assert 'S\\"' in BY_NAME["CORE-EXT"].words and "LOCALS|" in BY_NAME["LOCALS-EXT"].words
    assert not {"#TIB", "CONVERT", "EXPECT", "QUERY", "SPAN", "TIB"} & set(BY_NAME["CORE-EXT"].words)


def _table(text: str) -> dict[str, tuple[int, int, list[str]]]:
    """set -> (has, of, missing) from the rows of the table in docs/words.md."""
    section = text[text.index("## Forth-2012 word sets"):]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"\| (\S+) \| [\d.]+ \| (\d+) of (\d+) \| (.*?) \| .*\|$", line)
        if m:
            missing = [w.replace("\\|", "|") for w in re.findall(r"`((?:[^`\\]|\\.)+)`", m.group(4))]
            rows[m.group(1)] = (int(m.group(2)), int(m.group(3)), missing)
    return rows


def test_the_table_lists_every_set():
    assert list(_table(DOCS.read_text())) == [ws.name for ws in WORDSETS]


def test_what_the_table_claims_is_in_the_dictionary(forth):
    have = set(forth.dict)
    for name, (n, of, missing) in _table(DOCS.read_text()).items():
        ws = BY_NAME[name]
        present = [w for w in ws.words if w not in missing]
        assert of == len(ws.words) and n == len(present), name
        assert set(missing) <= set(ws.words), name
        assert all(w in have for w in present), (name, [w for w in present if w not in have])
        # a missing word is absent, or there with another meaning, or there only to refuse
        assert all(w not in have or w in DIFFERENT or w in REFUSED for w in missing), name


def test_status_follows_the_dictionary():
    st = {s.wordset.name: s for s in status(["dup", "KEY"])}
    assert "DUP" in st["CORE"].present and "KEY" in st["CORE"].missing and "BLOCK" in st["BLOCK"].missing
    assert len(st["CORE"].present) == 1


def test_refused_words_refuse_and_different_names_exist(forth):
    for w in REFUSED:
        assert w in forth.dict
        with pytest.raises(ForthError):
            Forth().eval(f"8 {w}")
    assert all(w in forth.dict for w in DIFFERENT)


def test_the_notes_say_true_things(forth):
    for ws in WORDSETS:
        assert set(ws.cannot) <= set(ws.words), ws.name
        for w in ws.cannot:
            assert w not in forth.dict or w in DIFFERENT or w in REFUSED, (ws.name, w)
        for w in ws.instead:
            assert w.upper() in forth.dict, (ws.name, w)
            assert w in ws.note, (ws.name, w)
        for w in ws.cannot:
            assert w in ws.note or w.startswith("K-"), (ws.name, w)
