"""The host and immediate words of DOUBLE (Forth-2012 8): 2CONSTANT 2VARIABLE
2VALUE 2LITERAL (the arithmetic is primitives)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...compile.primitives import TABLE as PRIMS
from ...front.dictionary import Constant
from ...front.reader import Token
from ...front.tree import Lit, Prim
from ...lazy import np
from .compiling import _compiling
from .dataspace import _align, _allot
from .table import NEW, NEW_NAME, Parse, host, immediate
from .textin import _name

if TYPE_CHECKING:
    from ..interpreter import Forth


@host("2CONSTANT", '( x1 x2 "name" -- )', "Define a word that pushes two cells.", "1 2 2CONSTANT two  two . . \\ 2 1",
      wordset="DOUBLE", parses=Parse(NEW, defines="colon"))
def w_two_constant(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    lo, hi = f.pop_uniform(2, "2CONSTANT")
    f.define(f.make_word(name.text, [Lit(lo, name.pos), Lit(hi, name.pos)]))


@host("2VARIABLE", '( "name" -- )', "Define a two-cell variable.", "2VARIABLE d  1 2 d 2!  d 2@ . . \\ 2 1",
      wordset="DOUBLE", parses=NEW_NAME)
def w_two_variable(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    _align(f)
    addr = _allot(f, 16)
    f.backend.write(addr, np.zeros(2, np.int64))
    f.define(Constant(name.text, addr, help="( -- addr ) a two-cell variable"))


@immediate("2LITERAL", "( x1 x2 -- )", "Compile two cells (taken from the stack now).",
           ": f [ 1 2 ] 2LITERAL ; f . . \\ 2 1", wordset="DOUBLE")
def i_two_literal(f: "Forth", tok: Token) -> None:
    _compiling(f, tok)
    lo, hi = f.pop_uniform(2, "2LITERAL")
    f.append(Lit(lo, tok.pos))
    f.append(Lit(hi, tok.pos))


@host("2VALUE", '( x1 x2 "name" -- )', "Define a word that pushes two cells; change them with TO.",
      "1 2 2VALUE p  3 4 TO p  p . . \\ 4 3", wordset="DOUBLE-EXT", parses=Parse(NEW, defines="colon"))
def w_two_value(f: "Forth", tok: Token) -> None:
    lo, hi = f.pop_uniform(2, "2VALUE")
    name = _name(f, tok)
    _align(f)
    addr = _allot(f, 16)
    f.backend.write(addr, np.array([hi, lo], np.int64))  # as 2! stores it
    f.define(f.make_word(name.text, [Lit(addr, name.pos), Prim(PRIMS["2@"], name.pos)], body_addr=addr,
                         data_kind="2value"))
