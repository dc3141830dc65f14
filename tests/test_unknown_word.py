"""The error for a name that is not in the dictionary tells a misspelt name
from a standard Forth word tileforth does not have (issue 14, item 9) and
from a command of the prompt."""
import pytest

from tileforth.core import Forth, ForthError
from tileforth.core.session.wordsets import status


@pytest.fixture(scope="module")
def f():
    return Forth()


def _message(f, line):
    with pytest.raises(ForthError) as err:
        f.eval(line)
    return err.value.message


def test_a_misspelt_name_is_asked_to_be_checked_or_defined(f):
    msg = _message(f, "3 sqaure")
    assert msg.startswith("unknown word sqaure: check the spelling, or define it first (`: sqaure ... ;`)"), msg


def test_a_missing_standard_word_is_not_available_and_points_to_the_reference(f):
    missing = [w for st in status(f.dict) for w in st.missing if w not in f.dict]
    assert "FORGET" in missing  # PROGRAMMING-TOOLS-EXT: not there (yet)
    msg = _message(f, "FORGET")
    assert msg.startswith("unknown word FORGET: it is a standard Forth word (PROGRAMMING-TOOLS-EXT word set, "
                          "15.6.2) that tileforth does not have (yet)"), msg
    assert "docs/words.md" in msg and "define it first" not in msg


def test_a_standard_word_left_out_on_purpose_says_where_the_reason_is(f):
    msg = _message(f, "QUIT")
    assert "standard Forth word (CORE word set, 6.1)" in msg and "leaves out on purpose" in msg, msg
    assert "docs/words.md" in msg and "define it first" not in msg


def test_every_missing_standard_word_gets_the_standard_message(f):
    for st in status(f.dict):
        for w in st.missing:
            if w in f.dict:  # KEY: there, to refuse with its own reason
                continue
            assert "is a standard Forth word" in _message(f, w), w


def test_a_prompt_command_says_it_works_only_at_the_prompt():
    g = Forth()
    g.prompt_words = {"HISTORY": "the tileforth prompt"}
    msg = _message(g, ": f HISTORY ;")
    assert "a command of the tileforth prompt, not a dictionary word" in msg and "alone on a line" in msg, msg
