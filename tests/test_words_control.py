"""Control flow, compared with gforth.

tileforth allows control structures at the prompt when they close within
the line; gforth only inside definitions, so its side runs such a line as
`:noname <line> ; execute`.

    5 0 DO I LOOP        ( -- 0 1 2 3 4 )
"""

import json
import subprocess
import sys
import textwrap

import pytest

import gforth
from forthtest import check, raises

# ------------------------------------------------------ at the prompt

PROMPT_CASES = [
    # IF ELSE THEN
    "1 IF 10 THEN",
    "0 IF 10 THEN",
    "7 IF 10 ELSE 20 THEN",
    "0 IF 10 ELSE 20 THEN",
    "-1 IF 1 IF 11 ELSE 12 THEN ELSE 13 THEN",
    "3 DUP 2 > IF 1+ ELSE 1- THEN",
    # BEGIN UNTIL / WHILE REPEAT
    "0 BEGIN 1+ DUP 5 = UNTIL",
    "1 BEGIN 2* DUP 1000 > UNTIL",
    "0 10 BEGIN DUP 0> WHILE SWAP OVER + SWAP 1- REPEAT DROP",
    "0 BEGIN DUP 0< WHILE 1+ REPEAT",
    # DO LOOP, ?DO, +LOOP, I J K
    "5 0 DO I LOOP",
    "0 10 0 DO I + LOOP",
    "-2 -5 DO I LOOP",
    "0 0 ?DO I LOOP",
    "3 0 ?DO I LOOP",
    "10 0 DO I 3 +LOOP",
    "0 10 DO I -1 +LOOP",
    "0 10 DO I -3 +LOOP",
    "10 1 DO I 2 +LOOP",
    "3 0 DO 2 0 DO J 10 * I + LOOP LOOP",
    "2 0 DO 2 0 DO 2 0 DO K 100 * J 10 * + I + LOOP LOOP LOOP",
    # LEAVE
    "10 0 DO I DUP 3 = IF LEAVE THEN LOOP",
    "3 0 DO 10 0 DO I J + I 2 = IF LEAVE THEN LOOP LOOP",
    # nested mix
    "0 5 0 DO I 2 MOD IF I + ELSE I - THEN LOOP",
    "0 4 0 DO 0 BEGIN 1+ DUP I >= UNTIL + LOOP",
]


@pytest.mark.parametrize("src", PROMPT_CASES)
def test_control_at_the_prompt(f, need_gforth, src):
    check(f, src, wrap=True)


def test_do_loop_index_counts_up(f, need_gforth):
    # the classic: indices of 5 0 DO ... LOOP
    assert check(f, "5 0 DO I LOOP", wrap=True) == [0, 1, 2, 3, 4]


# ------------------------------------------------------ in definitions

DEFINITION_CASES = [
    ": SIGN ( n -- s ) DUP 0< IF DROP -1 ELSE 0> IF 1 ELSE 0 THEN THEN ; -5 SIGN 0 SIGN 9 SIGN",
    ": FACT ( n -- n! ) DUP 1 > IF DUP 1- RECURSE * ELSE DROP 1 THEN ; 0 FACT 1 FACT 5 FACT 20 FACT",
    ": FIB ( n -- f ) DUP 2 < IF EXIT THEN DUP 1- RECURSE SWAP 2 - RECURSE + ; 0 FIB 1 FIB 10 FIB 20 FIB",
    ": GCD ( a b -- g ) BEGIN DUP WHILE TUCK MOD REPEAT DROP ; 48 18 GCD 17 5 GCD 0 9 GCD",
    ": SUM ( n -- s ) 0 SWAP 0 ?DO I + LOOP ; 0 SUM 1 SUM 100 SUM",
    ": FIND3 ( -- i ) 10 0 DO I 3 = IF I UNLOOP EXIT THEN LOOP -1 ; FIND3",
    ": FIRST> ( lim -- i ) 100 0 DO I DUP * OVER > IF DROP I UNLOOP EXIT THEN LOOP DROP -1 ; 50 FIRST> 1000000 FIRST>",
    ": COUNTDOWN ( n -- ... ) BEGIN DUP WHILE DUP 1- REPEAT ; 4 COUNTDOWN",
    ": FOREVER ( -- n ) 0 BEGIN 1+ DUP 7 = IF EXIT THEN AGAIN ; FOREVER",
    ": EARLY ( f -- n ) IF 1 EXIT THEN 2 ; TRUE EARLY FALSE EARLY",
    ": TRI ( -- ) 4 1 DO I 0 DO J LOOP LOOP ; TRI",
    ": STEPS ( -- ) 100 0 DO I 25 +LOOP ; STEPS",
    ": DOWN ( -- ) -10 0 DO I -5 +LOOP ; DOWN",
    ": COLLATZ ( n -- steps ) 0 SWAP BEGIN DUP 1 <> WHILE DUP 2 MOD IF 3 * 1+ ELSE 2/ THEN SWAP 1+ SWAP REPEAT DROP ; 27 COLLATZ",
    ": INC-NONZERO ( n -- n' ) ?DUP IF 1+ THEN ; 0 INC-NONZERO 5 INC-NONZERO",
    ": PAIR? ( f -- ... ) IF 1 2 THEN ; 0 PAIR? -1 PAIR? 0 PAIR?",
    ": DROPS ( ... n -- ) 0 ?DO DROP LOOP ; 1 2 3 4 5 3 DROPS",
    ": ACK ( m n -- a ) OVER 0= IF NIP 1+ EXIT THEN DUP 0= IF DROP 1- 1 RECURSE EXIT THEN "
    "OVER SWAP 1- RECURSE SWAP 1- SWAP RECURSE ; 2 3 ACK",
]


@pytest.mark.parametrize("src", DEFINITION_CASES)
def test_control_in_definitions(f, need_gforth, src):
    check(f, src)


def test_loop_index_of_called_word_is_its_own(f, need_gforth):
    check(f, ": INNER 3 0 DO I LOOP ; : OUTER 2 0 DO I INNER LOOP ; OUTER")


# ------------------------------------------------------ errors


@pytest.mark.parametrize("src", [
    "1 IF 2",               # IF without THEN at the prompt
    "1 IF 2 ELSE 3",
    "THEN",
    "1 ELSE 2 THEN",
    "BEGIN 1",
    "0 UNTIL",
    "BEGIN 1 WHILE 2 UNTIL",
    "5 0 DO I",
    "LOOP",
    "5 0 DO I THEN",
    "I",                    # loop index outside a loop
    "LEAVE",
])
def test_unbalanced_control_at_the_prompt(f, src):
    f.eval("123")
    raises(f, src, line=1)
    assert f.data_stack() == [123]


@pytest.mark.parametrize("src", [
    ": BAD1 IF ;",
    ": BAD2 BEGIN ;",
    ": BAD3 10 0 DO ;",
    ": BAD4 THEN ;",
    ": BAD5 1 IF 2 ELSE 3 LOOP ;",
])
def test_unbalanced_control_in_a_definition(f, src):
    f.eval("123")
    raises(f, src, line=1)
    assert f.data_stack() == [123]
    # the dictionary is unchanged too: the name was not defined
    name = src.split()[1]
    raises(f, name, word=name, col=1)


def test_semicolon_without_colon(f):
    raises(f, "1 2 ;", word=";", col=5)


# ------------------------------------------------------ runaway loops

RUNAWAY = [
    "BEGIN AGAIN",
    "BEGIN 0 UNTIL",
    "BEGIN 1 WHILE REPEAT",
    ": SPIN BEGIN AGAIN ; SPIN",
    ": SPIN2 BEGIN 1+ DUP 0= UNTIL ; 1 SPIN2",
]

RUNAWAY_SCRIPT = textwrap.dedent("""
    import json, sys, time
    from tileforth.core import Forth, ForthError
    f = Forth(backend="cpu")
    f.eval("7")
    before = f.data_stack()
    for src in sys.argv[1:]:
        t0 = time.monotonic()
        try:
            f.eval(src)
            result = {"src": src, "raised": False}
        except ForthError as e:
            result = {"src": src, "raised": True, "line": e.line, "col": e.col}
        result["seconds"] = round(time.monotonic() - t0, 2)
        result["unchanged"] = f.data_stack() == before
        print(json.dumps(result), flush=True)
""")


def test_runaway_loops_are_stopped():
    """A loop that never ends must become a ForthError (the step budget), not
    a hang. Runs in a child process so that a hang fails this test instead of
    blocking the suite; the child reports each line as it finishes."""
    limit = 90
    try:
        proc = subprocess.run([sys.executable, "-c", RUNAWAY_SCRIPT, *RUNAWAY],
                              capture_output=True, text=True, timeout=limit)
        stdout = proc.stdout
    except subprocess.TimeoutExpired as exc:
        done = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        pytest.fail(f"still running after {limit}s; finished only:\n{done}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    assert [r["src"] for r in results] == RUNAWAY
    for r in results:
        assert r["raised"], f"{r['src']!r} returned instead of raising ForthError"
        assert r["line"] == 1 and r["col"] >= 1, r
        assert r["unchanged"], f"{r['src']!r} changed the stack"
        assert r["seconds"] < 15, f"{r['src']!r} took {r['seconds']}s to stop"


def test_gforth_reference_for_unbalanced_code(need_gforth):
    # gforth rejects the same unbalanced definitions (sanity of the cases).
    for src in [": BAD1 IF ;", ": BAD4 THEN ;", ": BAD3 10 0 DO ;"]:
        assert gforth.fails(src)


def test_a_word_needs_only_the_items_of_the_path_taken(f, need_gforth):
    """Found by the differential test: `: W0 IF 0 * THEN ;` needs a second item
    only when the flag is true, so `0 W0` on a one-item stack is fine."""
    f.eval(": W0 IF 0 * THEN ;")
    check(f, ": W0 IF 0 * THEN ; 0 W0 7 1 W0")
    f.eval("DEPTH 0 ?DO DROP LOOP")
    err = raises(f, "1 W0", word="*")
    assert "underflow in W0" in str(err)
