"""Big words compiled once, on their own (issue 13): a word with loops of SEPARATE_MIN nodes or
more is compiled the first time a line reaches it; later lines call it through its symbol and
cost only themselves. Results, errors (with their positions), the step budget and recursion
are those of the linked path (a session whose target links every word into every kernel)."""
from __future__ import annotations

import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.compile import compiler

STEP = "DUP 3 AND IF 3 * 1+ ELSE 2/ THEN 4 0 DO I + LOOP "
BIG = ": big ( n -- n ) " + STEP * 12 + ";"


def reference(n: int) -> int:
    for _ in range(12):
        n = n * 3 + 1 if n & 3 else n >> 1
        n += 0 + 1 + 2 + 3
    return n


def sessions() -> tuple[Forth, Forth, list]:
    calls: list[str] = []
    alone = Forth(backend="cpu")
    real = alone.backend.target.compile_word

    def spy(module, name):
        calls.append(name)
        real(module, name)
    alone.backend.target.compile_word = spy
    linked = Forth(backend="cpu")
    linked.backend.target.compile_word = None
    for f in (alone, linked):
        f.eval("1 1 1 THREADS")
    return alone, linked, calls


def test_a_big_word_is_compiled_once_and_computes_what_the_linked_one_does():
    alone, linked, calls = sessions()
    for f in (alone, linked):
        f.eval(BIG)
    assert alone.dict["BIG"].inline_size() >= compiler.SEPARATE_MIN
    for n in (5, 6, 1000, -7):
        got = [f.eval(f"{n} big . ") for f in (alone, linked)]
        assert got[0] == got[1] == f"{reference(n)} "
    assert calls == [alone.dict["BIG"].ir_name]  # compiled the first time, called after


def test_a_small_word_or_one_without_loops_is_still_linked():
    alone, _, calls = sessions()
    alone.eval(": small 4 0 DO I + LOOP ;  : flat " + "1+ " * 100 + ";  0 small flat .")
    assert calls == []


def test_errors_inside_keep_their_position_and_the_session_its_state():
    alone, linked, _ = sessions()
    text = ": divs ( n -- n ) " + STEP * 8 + "0 / ;"
    msgs = []
    for f in (alone, linked):
        f.eval(text)
        f.eval("3")
        with pytest.raises(ForthError) as e:
            f.eval("5 divs")
        msgs.append(str(e.value))
        assert f.data_stack() == [3]
    assert msgs[0] == msgs[1] and "division by zero" in msgs[0]


def test_the_step_budget_stops_a_runaway_inside():
    alone, _, calls = sessions()
    alone.eval(": spin ( -- ) " + STEP.replace("DUP", "7 DUP") * 6 + "BEGIN 1 DROP AGAIN ;")
    alone.step_budget = 100_000
    with pytest.raises(ForthError) as e:
        alone.eval("spin")
    assert "loop" in str(e.value) and calls


def test_recursion_and_execute():
    alone, linked, calls = sessions()
    rec = ": down ( n -- n ) DUP 0> IF 1- DUP " + STEP * 6 + "DROP RECURSE THEN ;"
    xt = ": viaxt ( n -- n ) " + STEP * 6 + "['] 1+ EXECUTE ;"
    for f in (alone, linked):
        f.eval(rec)
        f.eval(xt)
    got = [(f.eval("5 down . "), f.eval("5 viaxt . ")) for f in (alone, linked)]
    assert got[0] == got[1]
    assert alone.dict["DOWN"].ir_name in calls  # recursive: compiled alone, calls itself
    assert alone.dict["VIAXT"].ir_name in calls  # reaches EXECUTE: compiled alone (the tokens' table, xttable.py)


def test_many_threads_and_blocks_call_it():
    alone, linked, _ = sessions()
    outs = []
    for f in (alone, linked):
        f.eval("4 1 1 GRID 64 1 1 THREADS")
        f.eval(BIG)
        f.eval("GLOBAL-ID big")
        outs.append(f.data_stack(lane=None))
    assert outs[0] == outs[1]
    assert [row[-1] for row in outs[0]] == [reference(g) for g in range(256)]


def test_a_big_word_can_be_the_first_code_a_process_compiles():
    """Compiling a word alone sets up the JIT itself (LLVM's targets, the scheduler with tf_race):
    a fresh process whose first launch calls a big word works."""
    import subprocess
    import sys
    code = ("from tileforth.core import Forth\nf = Forth()\nf.eval('1 1 1 THREADS')\n"
            f"f.eval({BIG!r})\nprint(f.eval('5 big .'))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**__import__("os").environ, "TILEFORTH_CACHE_DIR": "off"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(reference(5))
