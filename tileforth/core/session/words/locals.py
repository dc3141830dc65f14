"""Locals (Forth-2012 13): `{: a b | c -- d :}`, gforth's `{ a b }`, the older
`LOCALS| a b |` and (LOCAL), one declaration for all four (declare_locals)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ForthError
from ...front.reader import Token
from ...front.tree import LocalsDef
from .compiling import _into_definition
from .table import COMPILING, host, immediate, local_names

if TYPE_CHECKING:
    from ..interpreter import Forth


def _locals_here(f: "Forth", tok: Token, spelling: str) -> None:
    """Locals are declared inside a definition, outside control structures."""
    if not f.compile_state or f.frames:
        raise ForthError(f"locals {spelling} are allowed inside a definition, outside IF, loops and other "
                         "control structures", tok.pos, tok.text)


def declare_locals(f: "Forth", taken: list[str], extra: list[str], pos) -> None:
    """Locals of the open definition: `taken` take cells from the stack (the last named the top
    one), `extra` start at 0."""
    f.append(LocalsDef(len(taken), len(extra), pos))
    f.colon.locals.extend(taken + extra)


@immediate("{:", "( x1 .. xn -- )", "Locals (Forth-2012): `{: a b | c -- :}` takes a and b from the stack, "
           "c starts at 0; TO changes one. Anywhere outside control structures.",
           ": f {: a b :} a b - ; 5 3 f . \\ 2", wordset="LOCALS-EXT", parses=local_names(":}", COMPILING))
@immediate("{", "( x1 .. xn -- )", "Locals, gforth's spelling: `{ a b | c -- }`.",
           ": f { a b -- } a b - ; 5 3 f . \\ 2", wordset="gforth", parses=local_names("}", COMPILING))
def i_locals(f: "Forth", tok: Token) -> None:
    """`{: a b | c -- d :}` (Forth-2012) or `{ a b | c -- d }` (gforth), anywhere in
    a definition outside control structures: a b take cells, c starts at 0."""
    close = ":}" if tok.text == "{:" else "}"
    _locals_here(f, tok, f"{tok.text} a b {close}")
    taken: list[str] = []
    extra: list[str] = []
    part = taken
    while True:
        t = f.reader.next_token()
        if t is None:
            raise ForthError(f"{tok.text} without {close}: close the locals list", tok.pos, tok.text)
        if t.text == close:
            break
        if t.text == "--":
            part = None
        elif t.text == "|" and part is taken:
            part = extra
        elif part is not None:
            if t.text.endswith(":") and len(t.text) <= 3:  # gforth's type prefixes (F: W: D: ...)
                raise ForthError(f"typed locals ({t.text}) are not supported: locals are cells", t.pos, t.text)
            part.append(t.key)
    declare_locals(f, taken, extra, tok.pos)


@immediate("LOCALS|", "( xn .. x1 -- )", "Locals, the older standard spelling (obsolescent): `LOCALS| a b |` "
           "takes a from the top of the stack, then b.", ": f LOCALS| a b | a b - ; 5 3 f . \\ -2",
           wordset="LOCALS-EXT", parses=local_names("|", COMPILING))
def i_locals_bar(f: "Forth", tok: Token) -> None:
    """`LOCALS| a b |` (Forth-2012 13.6.2.1795, obsolescent; gforth has it): locals that take cells
    from the stack, the first named the top one, as (LOCAL) declares them: `{ b a }`."""
    _locals_here(f, tok, "LOCALS| a b |")
    names: list[str] = []
    while True:
        t = f.reader.next_token()
        if t is None:
            raise ForthError("LOCALS| without |: close the locals list with | (LOCALS| a b |)", tok.pos, tok.text)
        if t.text == "|":
            break
        names.append(t.key)
    declare_locals(f, names[::-1], [], tok.pos)  # the first named takes the top of the stack


@host("(LOCAL)", "( c-addr u -- )", "Declare a local named by the string in the definition being compiled; "
      "u = 0 ends the list (the first declared takes the top cell).", ": LOCAL BL WORD COUNT (LOCAL) ; IMMEDIATE",
      wordset="LOCALS")
def w_paren_local(f: "Forth", tok: Token) -> None:
    """(LOCAL): each call with a name declares a local; a call with length 0 ends the list,
    and the locals take cells from the stack, the first declared the top one."""
    addr, n = f.pop_uniform(2, "(LOCAL)")
    with _into_definition(f, "(LOCAL)"):
        pending = f.colon.__dict__.setdefault("pending_locals", [])
        if n:
            pending.append(f.read_bytes(addr, n).decode("latin-1").upper())
            return
        names = list(reversed(pending))
        pending.clear()
        declare_locals(f, names, [], tok.pos)
