"""Checked mode on the emulator: a float word on an array of another float type is an error
(issue 12, item 4): an f32 word given a float64 array by f.kernel, SF@ on an F64 ARRAY, BF@ on
an F16 one. Untyped memory, integer words and unchecked sessions are not checked."""
from __future__ import annotations

import numpy as np
import pytest
from tileforth.core import Forth, ForthError

SCALE = ": scale ( addr -- ) GLOBAL-ID SFLOATS + DUP SF@ 2e F* SF! ;"


@pytest.fixture
def f() -> Forth:
    return Forth(backend="cpu")


def test_a_kernel_given_an_array_of_its_float_type_runs(f):
    f.eval(SCALE)
    x = np.linspace(-3, 3, 32, dtype=np.float32)
    f.kernel("scale")(x)
    np.testing.assert_array_equal(x, np.linspace(-3, 3, 32, dtype=np.float32) * 2)


def test_a_kernel_given_a_float64_array_for_an_f32_word_is_refused(f):
    f.eval(SCALE)
    y = np.arange(32, dtype=np.float64)
    with pytest.raises(ForthError) as e:
        f.kernel("scale")(y)
    msg = str(e.value)
    assert "argument 1 of scale" in msg and "float64" in msg and "SF@" in msg and "float32" in msg
    np.testing.assert_array_equal(y, np.arange(32))  # nothing written back


@pytest.mark.parametrize("etype,word,ok", [
    ("F64", "DF@", True), ("F64", "SF@", False), ("F32", "SF@", True), ("F32", "DF@", False),
    ("F16", "HF@", True), ("F16", "BF@", False), ("BF16", "BF@", True), ("BF16", "HF@", False),
    # issue 30.4: integer words are typed by their width (a float array read as cells is a mistake);
    # bytes are untyped
    ("F32", "I32@", False), ("F64", "@", False), ("I32", "@", False), ("I32", "I32@", True), ("I32", "L@", True),
    ("I64", "@", True), ("I64", "2@", True), ("I16", "W@", True), ("I16", "I32@", False), ("I32", "SF@", False),
    ("F32", "C@", True), ("I64", "C@", True),
])
def test_float_words_on_typed_arrays(f, etype, word, ok):
    f.eval(f"4 {etype} ARRAY a")
    line = f"a {word} " + ("FDROP" if "F" in word else "2DROP" if word == "2@" else "DROP")
    if ok:
        f.eval(line)
        return
    with pytest.raises(ForthError) as e:
        f.eval(line)
    assert f"but {word} accesses it" in str(e.value) and "a holds" in str(e.value)


def test_untyped_memory_takes_any_float_word(f):
    f.eval("CREATE buf 16 ALLOT  1.5e buf DF!  buf DF@ F.")
    f.eval("2.5e buf SF!  buf SF@ F.")


def test_unchecked_sessions_do_not_check_types():
    f = Forth(backend="cpu", checked=False)
    f.eval("4 F64 ARRAY a  a SF@ FDROP")


def test_one_thread_has_no_race_to_find_but_types_are_still_checked(f):
    f.eval("1 1 1 THREADS 4 F64 ARRAY a")
    with pytest.raises(ForthError) as e:
        f.eval("a SF@ FDROP")
    assert "but SF@ accesses it as float32" in str(e.value)
