"""Interpretation-time conditionals: `[IF] [ELSE] [THEN]` (Forth-2012 15.6.2),
and `TILES-KEPT?`, the question a portable script asks before it leaves
tiles on the tile stack at the end of a line.

    TILES-KEPT? [IF]   TZERO .S   ...   [ELSE]   ...   [THEN]

`[IF]` takes a flag that every thread agrees on when it is read, at the
prompt or inside a definition (`: f [ 0 ] [IF] 1 [ELSE] 2 [THEN] ;`, the
flag taken as it is compiled), not inside an IF/DO at the prompt; when the flag is false it
skips words, across lines (also lines given to later `eval` calls, as the
REPL does), up to the matching `[ELSE]` or `[THEN]`.  Skipped text is read
word by word and not interpreted, comments included, as the standard says
(gforth too): `0 [IF] \\ x [ELSE] 2 [THEN]` leaves 2.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ForthError
from ...front.reader import Token
from .table import NAME_NEXT, RUNTIME_INPUT, immediate
from .textin import _name

if TYPE_CHECKING:
    from ..interpreter import Forth


def _at_prompt(f: "Forth", tok: Token) -> None:
    """In a definition [IF] takes its flag as it is compiled (`[ 0 ] [IF]`, as the standard
    allows); in a control structure at the prompt the flag would be compiled, not there."""
    if f.colon is None and f.frames:
        raise ForthError(f"{tok.text.upper()} cannot be used inside a control structure at the prompt (its "
                         "flag would be compiled, not there yet); close the structure first, or use IF ... THEN",
                         tok.pos, tok.text)


class Skip:
    """Skipping words up to the matching [THEN] (or [ELSE] when stop_at_else).
    It lives in `Forth.skipping` while the source is read line by line."""

    def __init__(self, stop_at_else: bool) -> None:
        self.depth = 0
        self.stop_at_else = stop_at_else

    def feed(self, f: "Forth", t: Token) -> bool:
        """Skip one word; True when the skipping ends with it."""
        key = t.key
        if key == "[IF]":
            self.depth += 1
        elif key == "[THEN]":
            if self.depth == 0:
                return True
            self.depth -= 1
        elif key == "[ELSE]" and self.depth == 0 and self.stop_at_else:
            return True
        return False


def _skip(f: "Forth", stop_at_else: bool) -> None:
    """Skip the rest of this source; if it ends first, the next lines read
    go on skipping (the interpreter hands them to Forth.skipping)."""
    state = Skip(stop_at_else)
    while (t := f.reader.next_token()) is not None:
        if state.feed(f, t):
            return
    f.skipping = state


@immediate("[IF]", "( flag -- )", "At the prompt: interpret what follows if flag is non-zero, else skip "
           "to the matching [ELSE] or [THEN] (across lines).", "1 [IF] 2 . [ELSE] 3 . [THEN] \\ 2",
           wordset="PROGRAMMING-TOOLS-EXT", parses=RUNTIME_INPUT)
def i_bracket_if(f: "Forth", tok: Token) -> None:
    _at_prompt(f, tok)
    (flag,) = f.pop_uniform(1, "[IF]")  # after the words before [IF], which compute it
    if not flag:
        _skip(f, stop_at_else=True)


@immediate("[ELSE]", "( -- )", "The other branch of [IF].", "0 [IF] 2 . [ELSE] 3 . [THEN] \\ 3",
           wordset="PROGRAMMING-TOOLS-EXT", parses=RUNTIME_INPUT)
def i_bracket_else(f: "Forth", tok: Token) -> None:
    _at_prompt(f, tok)
    _skip(f, stop_at_else=False)  # reached after the true branch: skip the false one


@immediate("[THEN]", "( -- )", "End [IF] ... [ELSE].", "1 [IF] 2 . [THEN] \\ 2", wordset="PROGRAMMING-TOOLS-EXT")
def i_bracket_then(f: "Forth", tok: Token) -> None:
    pass


@immediate("[DEFINED]", '( "name" -- flag )', "True if the word named next is defined.", "[DEFINED] DUP . \\ -1",
           wordset="PROGRAMMING-TOOLS-EXT", parses=NAME_NEXT)
@immediate("[UNDEFINED]", '( "name" -- flag )', "True if the word named next is not defined.",
           "[UNDEFINED] DUP . \\ 0", wordset="PROGRAMMING-TOOLS-EXT", parses=NAME_NEXT)
def i_defined(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    found = f.lookup(name.key) is not None
    f.push_uniform(-1 if found == (tok.key == "[DEFINED]") else 0)
