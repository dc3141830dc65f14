"""Redefining a word is allowed (earlier words keep the old one) and noted,
as gforth notes it ("redefined x")."""
from tileforth.core import Forth


def test_redefinition_is_noted_and_earlier_words_keep_the_old_meaning():
    f = Forth()
    f.eval(": x 1 ;  : y x ;")
    assert f.warnings == []
    f.eval(": x 2 ;")
    assert f.warnings == ["redefined x"]
    f.eval("y x")
    assert f.data_stack() == [1, 2]
    assert f.warnings == []  # the note belongs to the line that redefined
    f.eval("5 CONSTANT x")
    assert f.warnings == ["redefined x"]


def test_the_prelude_defines_quietly_and_new_names_are_not_noted():
    f = Forth()
    f.eval("VARIABLE fresh  3 CONSTANT three")
    assert f.warnings == []
