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
    assert DOCS.read_text() == markdown(Forth().dict), "run: python -m tileforth.repl.wordsdoc > docs/words.md"


def test_every_dictionary_word_is_documented():
    f = Forth()
    documented = {e.name.upper() for e in entries()}
    assert set(f.dict) - documented == set()


EXAMPLES = [(e.name, e.example) for e in entries() if e.example]

# What the examples that name a file find in the directory they run in, as a user's would.
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


def test_there_are_examples_with_claims():
    assert len([ex for _, ex in EXAMPLES if ex.partition("\\ ")[0].strip() and "\\ " in ex]) > 150


@pytest.mark.parametrize("name,example", EXAMPLES, ids=[c[0] for c in EXAMPLES])
def test_reference_example_runs_and_prints_what_it_claims(name, example, in_a_folder_with_the_files):
    """Each example runs as a user would copy it: in a fresh session, on the
    default launch (32 threads; an example that needs another shape sets it),
    and prints what its `\\ ` comment says (the whole of it: a line whose
    threads print different things shows each thread's output). An example
    that is all comment (`\\ a comment`) prints nothing."""
    code, sep, claim = example.partition("\\ ")
    f = Forth()
    out = f.eval(example)
    assert not f.compiling, f"{name}: {example!r} leaves a definition open"
    if code.strip() and sep:
        assert out.split() == claim.split(), f"{name}: {example!r} printed {out!r}"
    elif not code.strip():
        assert out == "", f"{name}: {example!r} printed {out!r}"


ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def architecture_examples() -> list[str]:
    """The lines of the ```forth blocks of docs/architecture.md."""
    text = ARCHITECTURE.read_text()
    blocks = re.findall(r"^```forth\n(.*?)^```", text, re.M | re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_the_architecture_guide_has_examples():
    assert len(architecture_examples()) >= 5


@pytest.mark.parametrize("line", architecture_examples())
def test_architecture_example_prints_what_it_claims(line):
    """Each line runs as a user would copy it, in a fresh session on the
    default launch (32 threads, which agree, so the output is printed once),
    and prints what its `\\ ` comment says."""
    f = Forth()
    code, _, claim = line.partition("\\ ")
    assert f.eval(line).split() == claim.split(), line
    assert f.data_stack() == [], line
