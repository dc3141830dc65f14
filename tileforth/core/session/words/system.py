"""The system around a session (Forth-2012 6.1, 10.6.2, 15.6.2): ENVIRONMENT?,
BYE, MS, TIME&DATE, gforth's CLEARSTACK, and tileforth's step budget
(GET-STEP-BUDGET SET-STEP-BUDGET; the command line's --steps)."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ...compile.state import StackState
from ...errors import Bye, ForthError
from ...front.reader import Token
from .table import host

if TYPE_CHECKING:
    from ..interpreter import Forth


ENVIRONMENT = {  # what ENVIRONMENT? answers (Forth-2012 table 3.5), honestly for this system
    "/COUNTED-STRING": [255], "/HOLD": [256], "/PAD": [84], "ADDRESS-UNIT-BITS": [8], "FLOORED": [0],
    "MAX-CHAR": [255], "MAX-N": [2**63 - 1], "MAX-U": [-1], "MAX-D": [-1, 2**63 - 1], "MAX-UD": [-1, -1],
    "RETURN-STACK-CELLS": [32], "STACK-CELLS": [128], "FLOATING-STACK": [64], "#LOCALS": [64],
}


@host("ENVIRONMENT?", "( c-addr u -- false | i*x true )", "Ask about the system (MAX-N, FLOORED, "
      "/COUNTED-STRING ...).", 'S" MAX-N" ENVIRONMENT? . . \\ -1 9223372036854775807', wordset="CORE")
def w_environment(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "ENVIRONMENT?")
    query = f.read_bytes(addr, n).decode("latin-1").upper()
    answer = ENVIRONMENT.get(query)
    if answer is None:
        f.push_uniform(0)
    else:
        f.push_uniform(*answer, -1)


@host("BYE", "( -- )", "End the session: the REPL and `tileforth FILE` stop (from Python, f.eval raises "
      "tileforth.core.errors.Bye).", "", wordset="PROGRAMMING-TOOLS-EXT")
def w_bye(f: "Forth", tok: Token) -> None:
    raise Bye(f.printed())


@host("CLEARSTACK", "( i*x -- ) ( F: i*r -- )", "Empty the data and float stacks of every thread.",
      "1 2 3 CLEARSTACK DEPTH . \\ 0", wordset="gforth")
def w_clearstack(f: "Forth", tok: Token) -> None:
    f.flush_segment()
    st = StackState.load(f.backend)
    st.dsp[:] = 0
    st.fsp[:] = 0
    st.save(f.backend)


@host("MS", "( u -- )", "Wait u milliseconds (on the host, after the launch before it).", "10 MS",
      wordset="FACILITY-EXT")
def w_ms(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "MS")
    time.sleep(max(n, 0) / 1000)


@host("TIME&DATE", "( -- sec min hour day month year )", "The host's local time and date.",
      "TIME&DATE 2000 > . 2DROP 2DROP DROP \\ -1", wordset="FACILITY-EXT")
def w_time_and_date(f: "Forth", tok: Token) -> None:
    t = time.localtime()
    f.push_uniform(t.tm_sec, t.tm_min, t.tm_hour, t.tm_mday, t.tm_mon, t.tm_year)


NO_BUDGET = 1 << 62  # what "no step budget" (0 SET-STEP-BUDGET, --steps 0) stores in Forth.step_budget


def set_step_budget(f: "Forth", n: int, word: str = "SET-STEP-BUDGET") -> None:
    """The loop iterations and calls a launch (or a host-level word) may run
    before it is stopped as a runaway; 0: no budget (Ctrl-C still stops it)."""
    if n < 0:
        raise ForthError(f"{word}: {n} steps: give a positive number, or 0 for no budget")
    f.step_budget = min(n, NO_BUDGET) if n else NO_BUDGET


def step_budget(f: "Forth") -> int:
    """The step budget as SET-STEP-BUDGET takes it: 0 when there is none."""
    return 0 if f.step_budget >= NO_BUDGET else f.step_budget


@host("GET-STEP-BUDGET", "( -- u )", "The step budget: how many loop iterations and calls a line may "
      "run (summed over its threads) before it is stopped as a runaway; 0 when there is none.",
      "GET-STEP-BUDGET . \\ 67108864", wordset="tileforth")
def w_get_step_budget(f: "Forth", tok: Token) -> None:
    f.push_uniform(step_budget(f))


@host("SET-STEP-BUDGET", "( u -- )", "Set the step budget (the command line option is --steps); 0 "
      "removes it, and Ctrl+C still stops a line that runs away.", "0 SET-STEP-BUDGET  GET-STEP-BUDGET . \\ 0",
      wordset="tileforth")
def w_set_step_budget(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "SET-STEP-BUDGET")
    set_step_budget(f, n)
