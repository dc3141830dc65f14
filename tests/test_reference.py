"""The word reference is generated from the compiler's tables: it must be
current, cover every word, and its examples must print what they claim;
so must the examples of the architecture guide."""
import re
from pathlib import Path

import pytest

from tileforth.core import Forth
from tileforth.core.session.reference import entries, markdown

DOCS = Path(__file__).resolve().parents[1] / "docs" / "words.md"


def test_docs_words_md_is_generated_from_the_tables():
    assert DOCS.read_text() == markdown(Forth().dict), "run: python -m tileforth.core.session.reference > docs/words.md"


def test_every_dictionary_word_is_documented():
    f = Forth()
    documented = {e.name.upper() for e in entries()}
    assert set(f.dict) - documented == set()


CLAIMS = [(e.name, e.example) for e in entries() if e.example.partition("\\ ")[0].strip() and "\\ " in e.example]


@pytest.mark.parametrize("name,example", CLAIMS, ids=[c[0] for c in CLAIMS])
def test_reference_example_prints_what_it_claims(name, example):
    code, _, claim = example.partition("\\ ")
    f = Forth()
    f.eval("1 1 1 THREADS")  # one thread, so the output is printed once
    assert f.eval(code).split() == claim.split()


ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def architecture_examples() -> list[str]:
    """The lines of the ```forth blocks of docs/architecture.md."""
    text = ARCHITECTURE.read_text()
    blocks = re.findall(r"^```forth\n(.*?)^```", text, re.M | re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_the_architecture_guide_has_examples():
    assert len(architecture_examples()) >= 5


def test_architecture_examples_print_what_they_claim():
    """Each line runs in one session on the default launch (32 threads, which
    agree, so the output is printed once) and prints what its `\\ ` comment says."""
    f = Forth()
    for line in architecture_examples():
        code, _, claim = line.partition("\\ ")
        assert f.eval(line).split() == claim.split(), line
        assert f.data_stack() == [], line
