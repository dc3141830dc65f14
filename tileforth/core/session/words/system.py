"""The system around a session (Forth-2012 6.1, 10.6.2, 15.6.2): ENVIRONMENT?,
BYE, MS, TIME&DATE, gforth's CLEARSTACK UTIME ARGC ARGV EXCEPTION, and tileforth's step
budget (GET-STEP-BUDGET SET-STEP-BUDGET; the command line's --steps)."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ...compile.state import StackState
from ...errors import Bye, ForthError
from ...front.dictionary import Constant
from ...front.reader import Token
from ...front.tree import Lit
from ...lazy import np
from ..hostbound import wait
from .table import host

if TYPE_CHECKING:
    from ..interpreter import Forth


ENVIRONMENT = {  # what ENVIRONMENT? answers (Forth-2012 table 3.5 and x.3), honestly for this system
    "/COUNTED-STRING": [255], "/HOLD": [256], "/PAD": [84], "ADDRESS-UNIT-BITS": [8], "FLOORED": [-1],
    "MAX-CHAR": [255], "MAX-N": [2**63 - 1], "MAX-U": [-1], "MAX-D": [-1, 2**63 - 1], "MAX-UD": [-1, -1],
    "RETURN-STACK-CELLS": [32], "#LOCALS": [64], "WORDLISTS": [64],
}

# The word-set queries (obsolescent in Forth-2012, answered by gforth and looked for by ttester.fs and
# other real programs): each name, the word sets of wordsets.py it stands for. An -EXT query stands for
# the set and its extensions, as Forth-94 says.
WORDSET_QUERIES: dict[str, tuple[str, ...]] = {
    "CORE": ("CORE",), "DOUBLE": ("DOUBLE",), "EXCEPTION": ("EXCEPTION",), "FACILITY": ("FACILITY",),
    "FILE": ("FILE",), "FLOATING": ("FLOATING",), "LOCALS": ("LOCALS",), "MEMORY-ALLOC": ("MEMORY",),
    "TOOLS": ("PROGRAMMING-TOOLS",), "SEARCH-ORDER": ("SEARCH",), "STRING": ("STRING",), "BLOCK": ("BLOCK",),
}
WORDSET_QUERIES.update({f"{q}-EXT": sets + tuple(f"{s}-EXT" for s in sets) for q, sets in list(WORDSET_QUERIES.items())})


def provided_wordsets(f: "Forth") -> set[str]:
    """The word sets this session provides: every word of the set is in the dictionary with the
    standard's meaning, but for those its note says cannot make sense on a GPU (KEY QUIT: they are
    there to refuse with the reason), and it has at least one word."""
    from ..wordsets import status
    return {st.wordset.name for st in status(f.dict)
            if st.present and all(w in st.wordset.cannot for w in st.missing)}


def environment(f: "Forth") -> dict[str, list[int | float]]:
    """Every query ENVIRONMENT? answers true, with what it pushes before the flag (a float: on the float
    stack). The stack sizes are the session's (its Machine); a word-set query answers only when the set is
    provided."""
    from ...lazy import np
    m = f.machine
    out: dict[str, list[int | float]] = {k: list(v) for k, v in ENVIRONMENT.items()}
    out.update({"STACK-CELLS": [m.ds_max], "FLOATING-STACK": [m.fs_max],
                "MAX-FLOAT": [float(np.finfo(m.float_dtype).max)]})
    have = provided_wordsets(f)
    wordset_names = {ws.name for ws in _wordsets()}
    for query, sets in WORDSET_QUERIES.items():
        if all(s in have or s not in wordset_names for s in sets) and sets[0] in have:
            out[query] = [-1]
    return out


def _wordsets() -> list:
    from ..wordsets import WORDSETS
    return WORDSETS


def environment_words(f: "Forth") -> dict[str, object]:
    """ENVIRONMENT-WORDLIST's words: each pushes what its query answers (without the flag)."""
    out: dict[str, object] = {}
    for name, values in environment(f).items():
        if len(values) == 1 and isinstance(values[0], float):
            out[name] = Constant(name, values[0], is_float=True, help="( F: -- r ) an environment query")
        elif len(values) == 1:
            out[name] = Constant(name, values[0], help="( -- x ) an environment query")
        else:
            out[name] = f.make_word(name, [Lit(int(v), None) for v in values])
    return out


@host("ENVIRONMENT?", "( c-addr u -- false | i*x true )", "Ask about the system: MAX-N, FLOORED, "
      "/COUNTED-STRING, STACK-CELLS, MAX-FLOAT (on the float stack) ... of Forth-2012's table, and whether a "
      "word set is provided (CORE, FLOATING-EXT ...: true where it is, as far as a GPU allows).",
      'S" MAX-N" ENVIRONMENT? . . \\ -1 9223372036854775807', wordset="CORE")
def w_environment(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "ENVIRONMENT?")
    query = f.read_bytes(addr, n).decode("latin-1").upper()
    answer = environment(f).get(query)
    if answer is None:
        f.push_uniform(0)
        return
    for v in answer:
        if isinstance(v, float):
            f.push_uniform_float(v)
        else:
            f.push_uniform(v)
    f.push_uniform(-1)


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
    wait(f, max(n, 0) / 1000, tok.pos)  # Ctrl-C ends it (any count: 2^63 ms waits until then)


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
      "removes it, and Ctrl+C still stops a line that runs away. A host loop's iteration draws 64 steps and a "
      "re-read of the input (>IN moved back, a block LOADed by THRU) 4096: each costs that much more time.", "0 SET-STEP-BUDGET  GET-STEP-BUDGET . \\ 0",
      wordset="tileforth")
def w_set_step_budget(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "SET-STEP-BUDGET")
    set_step_budget(f, n)


# ---- gforth's system words that real programs read (FFL's config.fs) -------------------------
@host("UTIME", "( -- ud )", "The host's time in microseconds since 1970 (gforth's), as an unsigned double.",
      "UTIME DROP 0> . \\ -1", wordset="gforth")
def w_utime(f: "Forth", tok: Token) -> None:
    us = time.time_ns() // 1000
    f.push_uniform(us, 0)  # below 2**63 until the year 294247


PROGRAM_NAME = b"tileforth"


def _arguments(f: "Forth") -> tuple[int, int]:
    """ARGC's and ARGV's cells, made on first use (outside data space, as PAD): ARGC holds 1 (the
    program's name only: a program sees no command-line arguments), ARGV the address of a
    zero-ended array of C strings, whose first is the name."""
    cells = f.space.areas.get("arguments")
    if cells is None:
        argc, argv = f.backend.alloc(16), f.backend.alloc(16 + len(PROGRAM_NAME) + 1)
        name = argv + 16
        f.backend.write(argv, np.array([name, 0], np.int64))
        f.backend.write(name, PROGRAM_NAME + b"\0")
        f.write_cell(argc, 1)
        f.write_cell(argc + 8, argv)
        cells = f.space.areas["arguments"] = (argc, argc + 8)
    return cells


@host("ARGC", "( -- a-addr )", "gforth's variable of the number of command-line arguments, the program's "
      "name included: 1 here (a program sees none).", "ARGC @ . \\ 1", wordset="gforth")
def w_argc(f: "Forth", tok: Token) -> None:
    f.push_uniform(_arguments(f)[0])


@host("ARGV", "( -- a-addr )", "gforth's variable of the address of the command-line arguments: an array of "
      "zero-ended strings (CSTRING>SSTRING reads one), ended by 0; the first is the program's name.",
      "ARGV @ @ CSTRING>SSTRING TYPE \\ tileforth", wordset="gforth")
def w_argv(f: "Forth", tok: Token) -> None:
    f.push_uniform(_arguments(f)[1])


FIRST_EXCEPTION = -2051  # the code gforth 0.7.3's first EXCEPTION in a session gives; each next one is 1 less


def exception_messages(f: "Forth") -> dict[int, str]:
    """The THROW codes EXCEPTION made in this session, each with its message (an uncaught THROW shows it)."""
    return f.space.areas.setdefault("exceptions", {})


@host("EXCEPTION", "( c-addr u -- n )", "A new THROW code (gforth's: -2051, then -2052 ...) whose message, "
      "shown when it is not caught, is the string.",
      'S" disk full" EXCEPTION . \\ -2051', wordset="gforth")
def w_exception(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "EXCEPTION")
    messages = exception_messages(f)
    code = FIRST_EXCEPTION - len(messages)
    messages[code] = f.read_bytes(addr, n).decode("latin-1")
    f.push_uniform(code)
