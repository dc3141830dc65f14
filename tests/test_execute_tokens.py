"""EXECUTE through the tokens' table (issue 25, F8): on the cpu backend a token's word is compiled
once, on its own, and device code reaches it through a table of function addresses
(tileforth/core/compile/xttable.py), instead of a switch over every token linked into every
kernel that reaches EXECUTE. Results are gforth's; errors (a bad token, a host word, too few
inputs, CATCH) are those of the switch (a session whose target links every word: compile_word
None), position and all."""
from __future__ import annotations

import pytest
from gforth import output, require
from tileforth.core import Forth, ForthError

WORDS = 40
PROGRAM = (" ".join(f": w{i} ( n -- n ) {i} + DUP 1 AND IF 3 * THEN ;" for i in range(WORDS))
           + f" CREATE xts {WORDS} CELLS ALLOT "
           + " ".join(f"' w{i} xts {i} CELLS + !" for i in range(WORDS))
           + " : via ( n i -- n ) CELLS xts + @ EXECUTE ;"
           + f" : all ( n -- n ) {WORDS} 0 DO I via LOOP ; 1 all . 5 7 via . 6 {WORDS - 1} via . CR")


def session(linked: bool = False, spy: list | None = None) -> Forth:
    f = Forth(backend="cpu")
    f.eval("1 1 1 GRID 1 1 1 THREADS")
    if linked:
        f.backend.target.compile_word = None  # the switch in every kernel (what nvptx keeps)
    elif spy is not None:
        real = f.backend.target.compile_word

        def record(module, name):
            spy.append(name)
            real(module, name)
        f.backend.target.compile_word = record
    return f


def test_many_tokens_compute_what_gforth_does():
    require()
    assert session().eval(PROGRAM) == output(PROGRAM)


def test_a_token_is_compiled_once_and_new_ones_in_a_batch_of_their_own():
    calls: list[str] = []
    f = session(spy=calls)
    f.eval(PROGRAM)
    batches = [c for c in calls if c.startswith("tf_xtfill")]
    assert len(batches) == 1  # the first line that reached EXECUTE compiled the entries
    for k in range(5):  # new lines reaching EXECUTE: no entry compiled again
        assert f.eval(f"{k} 3 via .") == f"{((k + 3) * 3) if (k + 3) & 1 else k + 3} "
    assert [c for c in calls if c.startswith("tf_xtfill")] == batches
    f.eval(": late 100 + ; ' late xts !")
    assert f.eval("1 0 via .") == "101 "
    assert len([c for c in calls if c.startswith("tf_xtfill")]) == 2  # only the new token's entry


def test_a_line_that_reaches_execute_does_not_hold_the_tokens_words():
    f = session()
    f.eval(PROGRAM)
    made = []
    real = f.compiler.kernel

    def kernel(*args, **kw):
        made.append(real(*args, **kw))
        return made[-1]
    f.compiler.kernel = kernel
    assert f.eval("5 2 via .") == "21 "  # 5 2 + is odd: 3 *
    (km,) = made
    assert not any(w.name.startswith("W") for w in km.words)  # the tokens' words are the table's
    assert "switch" not in km.text and len(km.text) < 20_000


ERRORS = [
    ": run EXECUTE ; 5 99 run",  # not a token
    ": run EXECUTE ; ' : run",  # a host word
    ": a + + ; : run EXECUTE ; ' a run",  # too few items for a static effect
    ": f 1 F+ ; : run EXECUTE ; ' f run",  # too few floats
    ": run EXECUTE ; 0 run",  # an unset DEFER's 0
    ": run EXECUTE ; ' >R run",  # the caller's frame
    "DEFER d : run d ; run",  # an unset DEFER
]


@pytest.mark.parametrize("text", ERRORS)
def test_errors_are_those_of_the_switch(text):
    msgs = []
    for f in (session(), session(linked=True)):
        f.eval("3")
        with pytest.raises(ForthError) as e:
            f.eval(text)
        msgs.append(str(e.value))
        assert f.data_stack() == [3]
    assert msgs[0] == msgs[1]


CATCHES = [
    ": a 1+ ; : t ['] a CATCH ; t . DEPTH .",
    ": z 0 / ; : t ['] z CATCH ; 5 t . DEPTH .",
    ": th 7 THROW ; : t ['] th CATCH ; t .",
    ": run EXECUTE ; : t ['] run CATCH ; 99 t . DEPTH .",
    "DEFER d : one 1 ; ' one IS d : t d d + ; t .",
    "DEFER d : one 1 ; : two 2 ; ' one IS d : t d ; t . ' two IS d t .",
    ": r ( n -- n ) DUP 0> IF 1- ['] r EXECUTE 1+ THEN ; 10 r .",
]


@pytest.mark.parametrize("text", CATCHES)
def test_catch_defer_and_recursion_through_tokens_match_the_switch(text):
    got = []
    for f in (session(), session(linked=True)):
        try:
            got.append(f.eval(text))
        except ForthError as exc:
            got.append(f"error: {exc}")
    assert got[0] == got[1]


def test_marker_forgets_tokens_and_a_new_word_takes_the_row():
    f = session()
    f.eval(": run EXECUTE ; MARKER gone : a 10 + ; ' a CONSTANT xa")
    assert f.eval("1 xa run .") == "11 "
    f.eval("gone : b 20 + ; ' b CONSTANT xb")
    assert f.eval("1 xb run .") == "21 "


def test_many_threads_run_their_own_tokens():
    f = session()
    f.eval(": a 1+ ; : b 2* ; : pick-xt ( i -- xt ) 1 AND IF ['] a ELSE ['] b THEN ; 1 1 1 GRID 8 1 1 THREADS")
    f.eval("GLOBAL-ID DUP pick-xt EXECUTE")
    assert [row[-1] for row in f.data_stack(lane=None)] == [t + 1 if t & 1 else 2 * t for t in range(8)]


def test_a_token_made_after_the_word_that_executes_it_was_compiled_alone():
    """A word that reaches EXECUTE is compiled on its own, once; tokens handed out later reach it.
    (The case that failed, a line that only calls such a word, is FFL's chs test in
    tests/test_programs.py: its chs-execute? saw a token made after the table was last filled.)"""
    import gforth
    defs = ": run ( x xt -- y ) 0 ?DO LOOP EXECUTE ;  : inc 1+ ;"
    program = defs + "  5 ' inc 0 run .  : dbl 2* ;  7 ' dbl 0 run .  : sq DUP * ;  9 ' sq 0 run ."
    f = Forth()
    f.eval("1 1 1 GRID 1 1 1 THREADS")
    out = f.eval(defs) + f.eval("5 ' inc 0 run .") + f.eval(": dbl 2* ;") + f.eval("7 ' dbl 0 run .")
    out += f.eval(": sq DUP * ;") + f.eval("9 ' sq 0 run .")
    gforth.require()
    assert out == gforth.output(program) == "6 14 81 "
