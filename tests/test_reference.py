"""The word reference is generated from the compiler's tables: it must be
current, cover every word, and its examples must print what they claim."""
from pathlib import Path

import pytest

from tileforth.core import Forth
from tileforth.core.session.reference import entries, markdown

DOCS = Path(__file__).resolve().parents[1] / "docs" / "words.md"


def test_docs_words_md_is_generated_from_the_tables():
    assert DOCS.read_text() == markdown(), "run: python -m tileforth.core.session.reference > docs/words.md"


def test_every_dictionary_word_is_documented():
    f = Forth()
    documented = {e.name.upper() for e in entries()}
    assert set(f.dict) - documented == set()


CLAIMS = [(e.name, e.example) for e in entries() if e.example.partition("\\ ")[0].strip() and "\\ " in e.example]


@pytest.mark.parametrize("name,example", CLAIMS, ids=[c[0] for c in CLAIMS])
def test_reference_example_prints_what_it_claims(name, example):
    code, _, claim = example.partition("\\ ")
    f = Forth()
    f.eval("1 1 1 BLOCK")  # one thread, so the output is printed once
    assert f.eval(code).split() == claim.split()
