"""The system around the dictionary (Forth-2012 10.6.2, 15.6.2, 16.6.1):

    MS  TIME&DATE  NAME>STRING NAME>INTERPRET NAME>COMPILE  TRAVERSE-WORDLIST
    FORTH-WORDLIST  AHEAD

A name token is the word's execution token (tileforth has one table of
tokens), and the dictionary is one word list, FORTH-WORDLIST. All of them
run on the host.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..errors import ForthError
from ..front.dictionary import Colon, HostWord, Immediate
from ..front.reader import Token
from ..front.tree import Lit
from .hostwords import Frame
from .strings import place

if TYPE_CHECKING:
    from .interpreter import Forth

FORTH_WORDLIST = 1  # the one word list (its id)


def w_ms(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "MS")
    time.sleep(max(n, 0) / 1000)


def w_time_and_date(f: "Forth", tok: Token) -> None:
    t = time.localtime()
    f.push_uniform(t.tm_sec, t.tm_min, t.tm_hour, t.tm_mday, t.tm_mon, t.tm_year)


def w_name_to_string(f: "Forth", tok: Token) -> None:
    (nt,) = f.pop_uniform(1, "NAME>STRING")
    name = f.entry_of(nt, "NAME>STRING").name.encode("latin-1", "replace")
    f.push_uniform(place(f, name, tok), len(name))


def w_name_to_interpret(f: "Forth", tok: Token) -> None:
    (nt,) = f.pop_uniform(1, "NAME>INTERPRET")
    f.entry_of(nt, "NAME>INTERPRET")
    f.push_uniform(nt)


def w_name_to_compile(f: "Forth", tok: Token) -> None:
    (nt,) = f.pop_uniform(1, "NAME>COMPILE")
    entry = f.entry_of(nt, "NAME>COMPILE")
    immediate = isinstance(entry, Immediate) or getattr(entry, "immediate", False)
    f.push_uniform(nt, f.xt_of(f.dict["EXECUTE" if immediate else "COMPILE,"]))


def w_traverse_wordlist(f: "Forth", tok: Token) -> None:
    xt, wid = f.pop_uniform(2, "TRAVERSE-WORDLIST")
    if wid != FORTH_WORDLIST:
        raise ForthError(f"TRAVERSE-WORDLIST: {wid} is not a word list; tileforth has one, FORTH-WORDLIST")
    visit = f.entry_of(xt, "TRAVERSE-WORDLIST")
    for entry in reversed(list(f.dict.values())):  # the newest first
        f.push_uniform(f.xt_of(entry))
        f.run_entry(visit, tok)
        (go_on,) = f.pop_uniform(1, "TRAVERSE-WORDLIST")
        if not go_on:
            return


def w_forth_wordlist(f: "Forth", tok: Token) -> None:
    f.push_uniform(FORTH_WORDLIST)


def i_ahead(f: "Forth", tok: Token) -> None:
    """AHEAD ... THEN: a forward branch taken always (an IF whose flag is false)."""
    if not isinstance(f.colon, Colon) and not f.frames:
        raise ForthError("AHEAD works inside a definition", tok.pos, tok.text)
    f.append(Lit(0, tok.pos))
    f.frames.append(Frame("if", tok.pos))


HOST_WORDS: list[HostWord] = [
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
    HostWord("FORTH-WORDLIST", "( -- wid )", "The word list of the dictionary (tileforth has one).",
             w_forth_wordlist, "FORTH-WORDLIST ."),
]

IMMEDIATES: list[Immediate] = [
    Immediate("AHEAD", "( -- )", "Jump forward to THEN always (compile-time control flow).", i_ahead,
              ": f 1 AHEAD 2 THEN 3 ; f . . \\ 3 1"),
]
