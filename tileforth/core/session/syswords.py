"""The system around the dictionary (Forth-2012 10.6.2, 15.6.2, 16):

    MS  TIME&DATE  NAME>STRING NAME>INTERPRET NAME>COMPILE  TRAVERSE-WORDLIST
    AHEAD   and the search order: FORTH-WORDLIST WORDLIST GET-ORDER SET-ORDER
    GET-CURRENT SET-CURRENT DEFINITIONS SEARCH-WORDLIST ONLY ALSO PREVIOUS FORTH ORDER
    and the step budget that stops a runaway line: GET-STEP-BUDGET SET-STEP-BUDGET

A name token is the word's execution token (tileforth has one table of
tokens). A word list is a dictionary of names (`Forth.wordlists`, wid i+1
is the i-th; FORTH-WORDLIST, wid 1, is `Forth.dict`); the interpreter looks a
name up in the word lists of `Forth.order`, first to last, and defines into
`Forth.current`. All of these words run on the host.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..compile.state import StackState
from ..errors import Bye, ForthError
from ..front.dictionary import Colon, HostWord, Immediate, is_immediate
from ..front.reader import Token
from ..front.tree import Lit
from .hostwords import Frame
from .strings import place

if TYPE_CHECKING:
    from .interpreter import Forth

FORTH_WORDLIST = 1  # the dictionary's word list (its id)


def w_ms(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "MS")
    time.sleep(max(n, 0) / 1000)


def w_time_and_date(f: "Forth", tok: Token) -> None:
    t = time.localtime()
    f.push_uniform(t.tm_sec, t.tm_min, t.tm_hour, t.tm_mday, t.tm_mon, t.tm_year)


def w_name_to_string(f: "Forth", tok: Token) -> None:
    (nt,) = f.pop_uniform(1, "NAME>STRING")
    name = f.tokens.entry_of(nt, "NAME>STRING").name.encode("latin-1", "replace")
    f.push_uniform(place(f, name, tok), len(name))


def w_name_to_interpret(f: "Forth", tok: Token) -> None:
    (nt,) = f.pop_uniform(1, "NAME>INTERPRET")
    f.tokens.entry_of(nt, "NAME>INTERPRET")
    f.push_uniform(nt)


def w_name_to_compile(f: "Forth", tok: Token) -> None:
    (nt,) = f.pop_uniform(1, "NAME>COMPILE")
    entry = f.tokens.entry_of(nt, "NAME>COMPILE")
    f.push_uniform(nt, f.tokens.xt_of(f.dict["EXECUTE" if is_immediate(entry) else "COMPILE,"]))


def _wordlist(f: "Forth", wid: int, word: str) -> dict:
    if not 1 <= wid <= len(f.wordlists):
        raise ForthError(f"{word}: {wid} is not a word list; FORTH-WORDLIST and WORDLIST give them")
    return f.wordlists[wid - 1]


def w_traverse_wordlist(f: "Forth", tok: Token) -> None:
    xt, wid = f.pop_uniform(2, "TRAVERSE-WORDLIST")
    words = _wordlist(f, wid, "TRAVERSE-WORDLIST")
    visit = f.tokens.entry_of(xt, "TRAVERSE-WORDLIST")
    for newest in reversed(list(words.values())):  # the newest name first, then the words it hides
        entry = newest
        while entry is not None:
            f.push_uniform(f.tokens.xt_of(entry))
            f.run_entry(visit, tok)
            (go_on,) = f.pop_uniform(1, "TRAVERSE-WORDLIST")
            if not go_on:
                return
            entry = f.hidden_by(entry)


def w_forth_wordlist(f: "Forth", tok: Token) -> None:
    f.push_uniform(FORTH_WORDLIST)


def w_wordlist(f: "Forth", tok: Token) -> None:
    f.wordlists.append({})
    f.push_uniform(len(f.wordlists))


def w_get_order(f: "Forth", tok: Token) -> None:
    f.push_uniform(*reversed(f.order), len(f.order))


def w_set_order(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "SET-ORDER")
    if n == -1:
        f.order = [FORTH_WORDLIST]
        return
    if not 0 <= n <= 64:
        raise ForthError(f"SET-ORDER: {n} word lists: give 0 to 64 (or -1 for the minimum order)")
    wids = list(reversed(f.pop_uniform(n, "SET-ORDER"))) if n else []
    for wid in wids:
        _wordlist(f, wid, "SET-ORDER")
    f.order = wids


def w_get_current(f: "Forth", tok: Token) -> None:
    f.push_uniform(f.current)


def w_set_current(f: "Forth", tok: Token) -> None:
    (wid,) = f.pop_uniform(1, "SET-CURRENT")
    _wordlist(f, wid, "SET-CURRENT")
    f.current = wid


def w_definitions(f: "Forth", tok: Token) -> None:
    if not f.order:
        raise ForthError("DEFINITIONS: the search order is empty; ONLY or SET-ORDER first")
    f.current = f.order[0]


def w_search_wordlist(f: "Forth", tok: Token) -> None:
    addr, n, wid = f.pop_uniform(3, "SEARCH-WORDLIST")
    name = f.read_bytes(addr, n).decode("latin-1").upper()
    entry = _wordlist(f, wid, "SEARCH-WORDLIST").get(name)
    if entry is None:
        f.push_uniform(0)
    else:
        f.push_uniform(f.tokens.xt_of(entry), 1 if is_immediate(entry) else -1)


def w_only(f: "Forth", tok: Token) -> None:
    f.order = [FORTH_WORDLIST]


def w_also(f: "Forth", tok: Token) -> None:
    if not f.order:
        raise ForthError("ALSO: the search order is empty; ONLY first")
    f.order.insert(0, f.order[0])


def w_previous(f: "Forth", tok: Token) -> None:
    if not f.order:
        raise ForthError("PREVIOUS: the search order is already empty")
    f.order.pop(0)


def w_forth(f: "Forth", tok: Token) -> None:
    if f.order:
        f.order[0] = FORTH_WORDLIST
    else:
        f.order = [FORTH_WORDLIST]


def w_order(f: "Forth", tok: Token) -> None:
    names = ["FORTH" if w == FORTH_WORDLIST else f"wid{w}" for w in f.order]
    cur = "FORTH" if f.current == FORTH_WORDLIST else f"wid{f.current}"
    f.print_text(" ".join(names) + f"  (definitions go into {cur})\n")


def w_bye(f: "Forth", tok: Token) -> None:
    raise Bye(f.printed())


def w_clearstack(f: "Forth", tok: Token) -> None:
    f.flush_segment()
    st = StackState.load(f.backend)
    st.dsp[:] = 0
    st.fsp[:] = 0
    st.save(f.backend)


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


def w_get_step_budget(f: "Forth", tok: Token) -> None:
    f.push_uniform(step_budget(f))


def w_set_step_budget(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "SET-STEP-BUDGET")
    set_step_budget(f, n)


def i_ahead(f: "Forth", tok: Token) -> None:
    """AHEAD ... THEN: a forward branch taken always (an IF whose flag is false)."""
    if not isinstance(f.colon, Colon) and not f.frames:
        raise ForthError("AHEAD works inside a definition", tok.pos, tok.text)
    f.append(Lit(0, tok.pos))
    f.frames.append(Frame("if", tok.pos))


HOST_WORDS: list[HostWord] = [
    HostWord("BYE", "( -- )", "End the session: the REPL and `tileforth FILE` stop (from Python, f.eval raises "
             "tileforth.core.errors.Bye).", w_bye, ""),
    HostWord("CLEARSTACK", "( i*x -- ) ( F: i*r -- )", "Empty the data and float stacks of every thread.",
             w_clearstack, "1 2 3 CLEARSTACK DEPTH . \\ 0"),
    HostWord("MS", "( u -- )", "Wait u milliseconds (on the host, after the launch before it).", w_ms, "10 MS"),
    HostWord("TIME&DATE", "( -- sec min hour day month year )", "The host's local time and date.",
             w_time_and_date, "TIME&DATE 2000 > . 2DROP 2DROP DROP \\ -1"),
    HostWord("NAME>STRING", "( nt -- c-addr u )", "The name of a word (a name token is its execution token).",
             w_name_to_string, "' DUP NAME>STRING TYPE \\ DUP"),
    HostWord("NAME>INTERPRET", "( nt -- xt )", "The execution token of a name token (the same number here).",
             w_name_to_interpret, "' DUP NAME>INTERPRET ' DUP = . \\ -1"),
    HostWord("NAME>COMPILE", "( nt -- x xt )", "What compiles the word: x and the token of COMPILE, (or EXECUTE "
             "for an immediate word).", w_name_to_compile, "' DUP NAME>COMPILE ' COMPILE, = . DROP \\ -1"),
    HostWord("TRAVERSE-WORDLIST", "( i*x xt wid -- j*x )", "Run xt ( nt -- flag ) on each word, newest first, "
             "while it returns true.", w_traverse_wordlist,
             ": zz 1 ; :NONAME NAME>STRING TYPE 0 ; FORTH-WORDLIST TRAVERSE-WORDLIST \\ zz"),
    HostWord("FORTH-WORDLIST", "( -- wid )", "The word list of the dictionary's words.", w_forth_wordlist,
             "FORTH-WORDLIST ."),
    HostWord("WORDLIST", "( -- wid )", "A new, empty word list.", w_wordlist, "WORDLIST DROP"),
    HostWord("GET-ORDER", "( -- widn .. wid1 n )", "The search order (wid1 is searched first).", w_get_order,
             "GET-ORDER . . \\ 1 1"),
    HostWord("SET-ORDER", "( widn .. wid1 n -- )", "Set the search order (n = -1: the minimum, FORTH only).",
             w_set_order, "-1 SET-ORDER"),
    HostWord("GET-CURRENT", "( -- wid )", "The word list new definitions go into.", w_get_current,
             "GET-CURRENT . \\ 1"),
    HostWord("SET-CURRENT", "( wid -- )", "Make new definitions go into wid.", w_set_current,
             "FORTH-WORDLIST SET-CURRENT"),
    HostWord("DEFINITIONS", "( -- )", "New definitions go into the first word list of the search order.",
             w_definitions, "DEFINITIONS"),
    HostWord("SEARCH-WORDLIST", "( c-addr u wid -- 0 | xt 1 | xt -1 )", "Look a name up in one word list.",
             w_search_wordlist, 'S" DUP" FORTH-WORDLIST SEARCH-WORDLIST . DROP \\ -1'),
    HostWord("ONLY", "( -- )", "The minimum search order: FORTH-WORDLIST only.", w_only, "ONLY"),
    HostWord("ALSO", "( -- )", "Duplicate the first word list of the search order.", w_also, "ALSO PREVIOUS"),
    HostWord("PREVIOUS", "( -- )", "Remove the first word list from the search order.", w_previous,
             "ALSO PREVIOUS"),
    HostWord("FORTH", "( -- )", "Replace the first word list of the search order with FORTH-WORDLIST.", w_forth,
             "ONLY FORTH"),
    HostWord("GET-STEP-BUDGET", "( -- u )", "The step budget: how many loop iterations and calls a line may "
             "run (summed over its threads) before it is stopped as a runaway; 0 when there is none.",
             w_get_step_budget, "GET-STEP-BUDGET . \\ 67108864"),
    HostWord("SET-STEP-BUDGET", "( u -- )", "Set the step budget (the command line option is --steps); 0 "
             "removes it, and Ctrl+C still stops a line that runs away.", w_set_step_budget,
             "0 SET-STEP-BUDGET  GET-STEP-BUDGET . \\ 0"),
    HostWord("ORDER", "( -- )", "Print the search order and where definitions go.", w_order,
             "ORDER \\ FORTH  (definitions go into FORTH)"),
]

IMMEDIATES: list[Immediate] = [
    Immediate("AHEAD", "( -- )", "Jump forward to THEN always (compile-time control flow).", i_ahead,
              ": f 1 AHEAD 2 THEN 3 ; f . . \\ 3 1"),
]
