"""Failures the fuzzing of issue 26 found, each at its root.

EXECUTE checks the inputs of the word it runs, as a call does (issue 26's first finding: `' DROP
EXECUTE` on an empty stack made the depth -1 and broke the session). A word of a static effect is
compiled trusting its caller's check, so the token switch (compile/xtgen.py) checks: too few
items is "stack underflow" at the EXECUTE, the stacks as they were. Held to gforth where it
checks (the exception code CATCH gives) and to the standard's codes (-4 data, -45 float)."""
from __future__ import annotations

import gforth
import pytest
from tileforth.core import Forth, ForthError

CASES = [
    ("' DROP EXECUTE", "data stack underflow", 8),
    ("' + EXECUTE", "data stack underflow", 5),
    ("1 ' + EXECUTE", "data stack underflow", 7),
    ("' DUP EXECUTE", "data stack underflow", 7),
    ("' FDROP EXECUTE", "float stack underflow", 9),
    (": t ['] DROP EXECUTE ; t", "data stack underflow in t", 14),
    ("DEFER d ' DROP IS d d", "data stack underflow in d", 21),  # where the deferred word runs
    (":NONAME DROP ; EXECUTE", "data stack underflow", 16),
]


@pytest.mark.parametrize("line,message,col", CASES)
def test_too_few_inputs_fail_at_the_execute_and_keep_the_session(line, message, col):
    f = Forth()
    f.eval("10 20")
    with pytest.raises(ForthError, match=message) as err:
        f.eval("CLEARSTACK " + line)
    assert err.value.col == col + len("CLEARSTACK ")  # at the EXECUTE (or the word that runs it)
    assert f.data_stack() == [10, 20]  # the failed line is undone
    assert f.eval("1 2 3 .S") == "<5> 10 20 1 2 3 "  # the depths are whole: no wrapped count


def test_enough_inputs_run_as_before():
    f = Forth()
    assert f.eval("5 ' DUP EXECUTE . .") == "5 5 "
    assert f.eval("2e ' FDUP EXECUTE F* F.") == "4. "
    assert f.eval("3 4 ' + EXECUTE .") == "7 "


def test_catch_gets_the_standard_codes():
    f = Forth()
    got = f.eval(": t ['] DROP CATCH ; t .  : u ['] FDROP CATCH ; u .").split()
    assert got == ["-4", "-45"]
    gforth.require()
    assert gforth.output(": t ['] DROP CATCH ; t .").split() == ["-4"]


def test_every_thread_checks_its_own_stack():
    """Threads whose stacks differ: the ones with too few items make the error, named in it."""
    f = Forth()
    with pytest.raises(ForthError, match="data stack underflow: thread 0 ") as err:
        f.eval("TID-X 16 >= IF 1 THEN ' DROP EXECUTE")  # threads 16-31 have the item, 0-15 do not
    assert err.value.col == len("TID-X 16 >= IF 1 THEN ' DROP ") + 1
    assert f.data_stack(lane=None) == [[]] * 32


@pytest.mark.parametrize("line", ['S\\" a\\x00b.fs" R/O OPEN-FILE', 'S\\" a\\x00b.fs" DELETE-FILE',
                                  'S\\" a\\x00b.fs" INCLUDED', 'S\\" a\\x00b.fs" REQUIRED',
                                  'S\\" a\\x00b.blk" OPEN-BLOCKS', 'S\\" a\\x00b" S" c" RENAME-FILE'])
def test_a_nul_byte_in_a_file_name_is_a_forth_error(line):
    """(Issue 26: a Python ValueError.) The name comes from memory, so any word that takes one may meet it."""
    f = Forth()
    f.eval("42")
    with pytest.raises(ForthError, match="holds a NUL byte, which no file name can"):
        f.eval(line)
    assert f.data_stack() == [42]
