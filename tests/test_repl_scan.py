"""The REPL's scanner and the standard words that read text (issue 11).

The scanner (tileforth/repl/scan.py) decides whether typed text is complete: Enter
runs a complete entry, and starts a new line inside an open definition,
control structure or comment.  It has to cut the text as the interpreter
does, or a string or a name read by a parsing word is taken for a word of
the program::

    > S" a : b" TYPE          the `:` is text: this runs at once
    a : b
    > 1 CASE 1 OF 10 ENDOF    an open CASE waits for its ENDCASE
    ... ENDCASE

Each case is checked against the interpreter too: a line the scanner calls
complete does not leave a definition open or fail for a structure left
open, and one it calls open does.
"""

from __future__ import annotations

import pytest
from test_repl_editor import Typist, wait_until
from tileforth.core.front.dictionary import (
    COMMENT,
    COMPILING,
    FILE,
    INTERPRETING,
    LOCALS,
    POSTPONED,
    NAME,
    NEW,
    READ,
    RUNS,
    RUNTIME,
    TEXT,
    WORD,
    HostWord,
    Immediate,
)
from tileforth.core.session.words import WORDS
from tileforth.repl import editor
from tileforth.repl.scan import scan, underflow
from tileforth.repl.session import Session


def complete(text: str, session: Session | None = None) -> bool:
    return editor.EditorState(session or Session.start("cpu")).complete(text)


def spans(text: str, session: Session | None = None) -> list[tuple[str, str]]:
    """(kind, text) of each span, on one line of text."""
    s = session or Session.start("cpu")
    return [(kind, text[a:b]) for _, a, b, kind in editor.EditorState(s).scan(text).spans]


# text the scanner once cut wrongly: a parsing word's text or name taken for a
# word (`:` opened a definition, `(` a comment), or a structure it did not know
COMPLETE_NOW = [
    'S" a : b" TYPE',
    'S" ( x" TYPE',
    'S\\" a\\" : b" TYPE',             # \" does not end S\"'s text
    'C" one : two" COUNT TYPE',
    '0 ABORT" : no"',
    ": p POSTPONE ( ;",                # POSTPONE reads a name: ( opens no comment
    ": q [COMPILE] ( ;",
    ": r POSTPONE : ;",
    "[DEFINED] : .",
    "[UNDEFINED] ( .",
    ": begin-def : ;",                 # `:` compiled into a definition reads its name when that runs
    ": named CREATE ;",                # CREATE compiled: it reads its name when `named` runs
    ": con CONSTANT ;",
    ": tick ' ;",
]

# constructs that are open at the end of the text, which the scanner took for complete
OPEN_NOW = [
    "1 CASE 1 OF 10 ENDOF",
    "1 CASE 1 OF",
    ": f CASE 1 OF 10 ENDOF ENDCASE",  # the definition still needs its ;
    ":NONAME 1",
    ":NONAME",
    "1 BEGIN DUP WHILE 1- DUP WHILE REPEAT DROP",  # the second WHILE is resolved by THEN
    "1 BEGIN DUP WHILE 1- DUP WHILE REPEAT DROP ELSE",
]

# already right before, and to stay so
COMPLETE_STILL = [
    'S" IF" TYPE', ": ld REQUIRE ;",
    "1 IF ' DUP THEN DROP",            # ' in an open structure is compiled too: DUP is a word
    '." : x"', ".( : x) 1", "CHAR : DROP", ": y [CHAR] ( ;", "' : DROP",
    ": def-word : POSTPONE ; ;",
    "1 CASE 1 OF 10 ENDOF ENDCASE",
    ": f CASE 1 OF 10 ENDOF 2 OF 20 ENDOF 99 SWAP ENDCASE ;",
    ":NONAME 42 ; EXECUTE",
    ": x8 BEGIN DUP WHILE DUP 5 > WHILE 1- REPEAT DROP 100 ELSE DROP 200 THEN ;",
    "1 BEGIN DUP WHILE 1- DUP WHILE REPEAT DROP ELSE THEN",
    "1 BEGIN DUP WHILE 1- REPEAT DROP",
    ": x4 {: a b | c -- d :} a b + ;",
    ": x5 1 { a } a 2 { b } a b + ;",
    ": x7 [ 1 2 + ] LITERAL ;",
    ": x6 [ ' ( ] LITERAL ;",          # inside [ ] ' runs now: it reads ( as a name
    ": const CREATE , DOES> @ ;",
    ": mk3 CREATE DOES> DROP 7 ;",
    'S\\" a\\\\" TYPE',                # \\ is a backslash: the " after it ends the text
]

OPEN_STILL = [": sq DUP", "1 IF", ": const CREATE , DOES> @", "( open", ": x6 [ 1 2 + ]"]


@pytest.mark.parametrize("text", COMPLETE_NOW + COMPLETE_STILL)
def test_complete(text):
    assert complete(text) is True


@pytest.mark.parametrize("text", OPEN_NOW + OPEN_STILL)
def test_open(text):
    assert complete(text) is False


NOT_CLOSED = ("is not closed", "needs", "without")


@pytest.mark.parametrize("text", COMPLETE_NOW + COMPLETE_STILL)
def test_the_interpreter_finishes_what_the_scanner_calls_complete(text):
    s = Session.start("cpu")
    r = s.run_line(text, spanning=True)
    assert not s.compiling, text
    assert r.error is None or "is not closed" not in str(r.error), (text, r.error)


@pytest.mark.parametrize("text", [t for t in OPEN_NOW + OPEN_STILL if not t.startswith("(")])
def test_the_interpreter_leaves_open_what_the_scanner_calls_open(text):
    s = Session.start("cpu")
    r = s.run_line(text, spanning=True)
    assert s.compiling or "is not closed" in str(r.error), (text, r.error)


def test_strings_and_names_are_text():
    assert spans('S" a : b" TYPE') == [("string", 'S" a : b"'), ("colon", "TYPE")]
    assert spans('S\\" x\\" (" TYPE') == [("string", 'S\\" x\\" ("'), ("colon", "TYPE")]
    assert spans("REQUIRE lib.fth") == [("host", "REQUIRE"), ("string", "lib.fth")]
    assert spans("[DEFINED] DUP") == [("immediate", "[DEFINED]"), ("primitive", "DUP")]
    assert spans(": p POSTPONE IF ;")[3] == ("control", "IF")  # the name is the word, not a structure
    # a string without its closing quote ends with its line; the line then fails when it runs
    assert spans('S" open\n1', )[0] == ("string", 'S" open')
    assert complete('S" open') is True


def test_locals_are_names():
    got = spans(": f {: a b | c -- d :} a c + TO d 5 +TO a ;")
    assert [t for k, t in got if k == "local"] == ["a", "b", "c", "a", "c", "a"]
    assert ("comment", "d") in got  # after --: a comment
    got = spans(": g { x -- y } x ;")
    assert [t for k, t in got if k == "local"] == ["x", "x"]
    got = spans(": k LOCALS| p q | p q - ;")
    assert [t for k, t in got if k == "local"] == ["p", "q", "p", "q"] and ("immediate", "|") in got
    # a local is a name only inside its definition, and DOES> starts a new one
    got = spans(": h {: a :} CREATE DOES> a ;")
    assert got[-2] == ("unknown", "a")


def test_case_words_are_control_structures():
    kinds = {t: k for k, t in spans("1 CASE 1 OF 2 ENDOF ENDCASE")}
    assert all(kinds[w] == "control" for w in ("CASE", "OF", "ENDOF", "ENDCASE"))


def test_host_words_that_parse_read_their_name_only_when_they_run():
    # at the prompt CREATE runs now: foo is the name it defines
    assert ("defined", "foo") in spans("CREATE foo")
    # in a definition it is compiled; the ; after it ends the definition
    assert spans(": mk CREATE ;")[-1] == ("immediate", ";")
    # inside [ ] it runs now again
    assert ("primitive", "DUP") in spans(": t [ ' DUP ] LITERAL ;")


def test_an_open_definition_from_an_earlier_line():
    s = Session.start("cpu")
    assert s.run_line(": x [").error is None and s.compiling and s.forth.interpreting
    # inside [ ] (from the line before), ' runs now and reads ( as a name
    assert complete("' ( ] LITERAL ;", s) is True
    assert s.run_line("' ( ] LITERAL ;").error is None and not s.compiling


def test_string_words_at_the_prompt_have_stack_effects():
    f = Session.start("cpu").forth
    assert underflow(scan('S" hi" TYPE', f.dict), 0, 0, 0) is None
    assert underflow(scan('C" hi" DROP DROP', f.dict), 0, 0, 0).offset == len('C" hi" DROP ')
    assert underflow(scan('ABORT" no"', f.dict), 0, 0, 0).word == 'ABORT"'
    assert underflow(scan('S" a ; DROP DROP DROP" TYPE', f.dict), 0, 0, 0) is None


# ------------------------------------------------------------------ the real application


def submit(typist: Typist, line: str) -> bool:
    """Type a line and Enter: True when it ran, False when the REPL waits for more."""
    n = typist.repl.entries
    typist.wait_for_prompt()
    typist.type(line + "\r")
    wait_until(lambda: typist.repl.entries > n or "\n" in typist.buffer.text, what=f"{line!r} to run or wait")
    return typist.repl.entries > n


@pytest.fixture
def typist():
    t = Typist()
    yield t
    t.close()


def test_strings_with_colon_and_paren_run_at_once(typist):
    assert submit(typist, 'S" a : b" TYPE')
    assert submit(typist, 'S" ( x" TYPE')
    assert submit(typist, 'S\\" q\\" : r" TYPE')
    assert typist.err.getvalue() == ""
    out = typist.out.getvalue()
    assert "a : b" in out and "( x" in out and 'q" : r' in out
    assert not typist.session.compiling


def test_parsing_words_in_definitions_run_at_once(typist):
    assert submit(typist, ": named CREATE ;")
    assert submit(typist, ": p POSTPONE ( ; IMMEDIATE")
    assert submit(typist, "named foo  foo DROP  [DEFINED] foo .")
    assert typist.err.getvalue() == ""
    assert "-1" in typist.out.getvalue().split()


def test_an_open_case_waits_for_endcase(typist):
    assert not submit(typist, "1 CASE 1 OF 10 ENDOF")
    n = typist.repl.entries
    typist.type("ENDCASE\r")
    wait_until(lambda: typist.repl.entries > n, what="the CASE to run")
    assert typist.err.getvalue() == ""
    assert typist.forth.data_stack() == [10]


def test_an_open_noname_waits_for_its_semicolon(typist):
    assert not submit(typist, ":NONAME 42")
    assert not typist.session.compiling  # nothing ran yet
    n = typist.repl.entries
    typist.type("; EXECUTE\r")
    wait_until(lambda: typist.repl.entries > n, what="the definition")
    assert typist.err.getvalue() == ""
    assert typist.forth.data_stack() == [42]


def test_two_whiles_wait_for_the_then(typist):
    assert not submit(typist, "10 BEGIN DUP WHILE DUP 5 > WHILE 1- REPEAT DROP 100")
    n = typist.repl.entries
    typist.type("ELSE DROP 200 THEN\r")
    wait_until(lambda: typist.repl.entries > n, what="the loop")
    assert typist.err.getvalue() == ""
    assert typist.forth.data_stack() == [100]  # 10 counts down to 5, where the second WHILE leaves


# ------------------------------------------------------------------ the word table's parsing words
# The scanner knows what a word reads only from its declaration in the word table
# (tileforth/core/session/words/table.py); tests/test_wordtable.py holds the declarations to
# what the interpreter reads. Each parsing word of the table is scanned here as it declares.

PARSING = [w for w in WORDS.of(HostWord) + WORDS.of(Immediate) if w.parses is not None]
IDS = [w.name for w in PARSING]


def test_two_value_names_its_pair():
    s = Session.start("cpu")
    assert spans("1 2 2VALUE pair", s) == [("number", "1"), ("number", "2"), ("host", "2VALUE"), ("defined", "pair")]
    later = spans("1 2 2VALUE pair  pair . .", s)[4]
    assert s.run_line("1 2 2VALUE pair").error is None
    assert later == spans("pair", s)[0] == ("colon", "pair")  # as the dictionary's pair is, once it runs


@pytest.mark.parametrize("row", PARSING, ids=IDS)
def test_the_scanner_reads_what_each_parsing_word_declares(row):
    w, spec = row.name, row.parses
    pre, post = (": t ", " ;") if spec.when == COMPILING else ("", "")
    s = Session.start("cpu")
    if spec.reads == NEW:
        old = " DUP" if spec.then is not None else ""  # SYNONYM new old
        got = spans(f"{w} zz9{old} zz9", s)
        assert got[1] == ("defined", "zz9")
        assert got[-1] == ("colon" if spec.defines == "colon" else "constant" if spec.defines else "primitive", "zz9")
    elif spec.reads == NAME:
        file = " x.npy" if spec.then is not None else ""  # LOAD-NPY xs data.npy
        got = spans(f"{w} ({file} 1", s)
        assert got[1] == ("immediate", "(") and ("number", "1") in got  # a name, not a comment
        if spec.then is not None:
            assert got[2] == ("string", "x.npy")
        if spec.same_line:  # a name only on its line: on the next, ( is a comment
            rows = editor.EditorState(s).scan(f"{w}\n( a )").spans
            assert (1, 0, 5, "comment") in rows
    elif spec.reads in (FILE, WORD):
        assert spans(f"{w} ( 1", s)[1:] == [("string", "("), ("number", "1")]
    elif spec.reads == TEXT:
        body = f"a\\{spec.end} ( : b{spec.end}" if spec.escapes else f"a ( : b{spec.end}"
        assert spans(f"{w} {body} 1", s) == [("string", f"{w} {body}"), ("number", "1")]
    elif spec.reads == COMMENT and spec.end:
        assert spans(f"{w} a : b{spec.end} 1", s) == [("comment", f"{w} a : b{spec.end}"), ("number", "1")]
        if spec.lines:
            assert complete(f"{w} a", s) is False and complete(f"{w} a\n: b{spec.end}", s) is True
    elif spec.reads == COMMENT:
        assert spans(f"{w} a : b", s) == [("comment", f"{w} a : b")] and complete(f"{w} : b", s) is True
    elif spec.reads == LOCALS:
        got = spans(f"{pre}{w} a b {spec.end} a{post}", s)
        assert [t for k, t in got if k == "local"] == ["a", "b", "a"]
        assert [t for k, t in spans(f"{w} a b {spec.end}", s) if k == "local"] == []  # at the prompt: none
    elif spec.reads == POSTPONED:  # ]] words [[: coloured as the words they are, none of them run now
        got = spans(f": t {w} DUP ; IF 1 {spec.end} ;", s)
        assert got[2:] == [("immediate", w), ("primitive", "DUP"), ("immediate", ";"), ("control", "IF"),
                           ("number", "1"), ("immediate", spec.end), ("immediate", ";")]
        assert complete(f": t {w} IF ; {spec.end} ;", s) is True and complete(f": t {w} ; ;", s) is False
    else:  # RUNTIME: where it stops only running tells; the scanner reads nothing
        assert spec.reads == RUNTIME and ("comment", "( a )") in spans(f"{w} ( a )", s)


@pytest.mark.parametrize("row", [w for w in PARSING if w.parses.when in (RUNS, INTERPRETING)],
                         ids=[w.name for w in PARSING if w.parses.when in (RUNS, INTERPRETING)])
def test_a_word_that_reads_when_it_runs_is_compiled_into_a_definition(row):
    """Inside a definition (or, for a host word, an open control structure)
    it reads nothing now: the `;` after it ends the definition."""
    text = f": t {row.name} ;"
    assert complete(text) is True and spans(text)[-1] == ("immediate", ";")
    if row.parses.when == RUNS:
        assert complete(f"1 IF {row.name} THEN") is True


READ_NOW = [w for w in PARSING if w.parses.when == READ and w.parses.reads != RUNTIME]


@pytest.mark.parametrize("row", READ_NOW, ids=[w.name for w in READ_NOW])
def test_a_word_that_reads_as_it_is_read_reads_inside_a_definition_too(row):
    spec = row.parses
    text = {TEXT: f": t {row.name} ;{spec.end} ;", COMMENT: f": t {row.name} ;{spec.end}\n;",
            POSTPONED: f": t {row.name} ; {spec.end} ;"}.get(spec.reads, f": t {row.name} ; ;")  # the first ;: what it reads
    assert complete(text) is True
    assert complete(text.rpartition(";")[0]) is False
