"""Compiling and execution tokens (Forth-2012 6.1, 6.2, 9): [ ] LITERAL
POSTPONE [COMPILE] COMPILE, STATE, ' ['] FIND and CATCH (EXECUTE and THROW
are primitives: tileforth/core/compile/xtgen.py).

The model. A word runs either on the device (every thread) or on the host
(tileforth/core/session/hostexec.py). Compile-time execution is host execution: a
user's IMMEDIATE word runs when the compiler meets it, on the host, and
the device code in it runs on the session's stacks as a line would (so
`[ 2 3 + ] LITERAL` computes 5 on the device and the host compiles it in).
A compile-time word may touch the stacks, data space (`,` `ALLOT` HERE),
the dictionary and the definition being built, and read the input (PARSE,
WORD, the name after it); every thread must agree on the values the host
takes from the stacks."""
from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator, cast

from ...compile.state import StackState
from ...errors import ForthError
from ...front.dictionary import POSTPONED, Colon, Immediate, Parse, is_immediate
from ...front.reader import Token, parse_double, parse_float, parse_integer, wrap64
from ...front.tree import Call, FLit, HostOp, Lit
from .table import NAME_NEXT, constant, host, immediate
from .textin import _name

if TYPE_CHECKING:
    from ..interpreter import Forth


def _entry(f: "Forth", tok: Token, word: str):
    name = _name(f, tok)
    entry = f.lookup(name.key)
    if entry is None:
        raise ForthError(f"{word} {name.text}: {name.text} is not defined; define it first (WORDS lists the "
                         "dictionary)", name.pos, name.text)
    return entry, name


def _compiling(f: "Forth", tok: Token) -> None:
    if not f.compile_state:
        raise ForthError(f"{tok.text.upper()} works only inside a definition (: ... ;)", tok.pos, tok.text)


@immediate("[", "( -- )", "Stop compiling: the words up to ] run now.", ": f [ 2 3 + ] LITERAL ; f . \\ 5",
           wordset="CORE")
def i_left_bracket(f: "Forth", tok: Token) -> None:
    _compiling(f, tok)
    f.interpreting, f.interp_floor = True, len(f.frames)


@immediate("]", "( -- )", "Compile again after [.", ": f [ 2 3 + ] LITERAL ; f . \\ 5", wordset="CORE")
def i_right_bracket(f: "Forth", tok: Token) -> None:
    """`]`: back to compiling. Not immediate in the standard: in a definition being compiled it
    is compiled, and runs when that word does (`: ]x ] ;` used inside `[ ... ]`, `]L`)."""
    if f.compile_state:
        f.append(HostOp("]", lambda f, n: i_right_bracket(f, tok), None, tok.pos))
        return
    if f.colon is None:
        raise ForthError("] without [ : it goes back to compiling inside a definition", tok.pos, tok.text)
    f.flush_segment()
    f.interpreting = False


@immediate("LITERAL", "( x -- )", "Compile x (taken from the stack now) into the definition.",
           ": f [ 6 7 * ] LITERAL ; f . \\ 42", wordset="CORE")
def i_literal(f: "Forth", tok: Token) -> None:
    _compiling(f, tok)
    (v,) = f.pop_uniform(1, "LITERAL")
    f.append(Lit(v, tok.pos))


@contextmanager
def _into_definition(f: "Forth", word: str) -> Iterator[None]:
    """Compile into the open definition, even from inside `[ ... ]` (COMPILE,
    and POSTPONE's actions add to the definition whatever STATE is)."""
    if f.colon is None:
        raise ForthError(f"{word} adds to a definition, but none is being compiled; use it inside an "
                         "IMMEDIATE word or [ ... ]")
    saved, f.interpreting = f.interpreting, False
    try:
        yield
    finally:
        if not f.interpreting:  # unless the word itself stopped compiling (a POSTPONEd `[`)
            f.interpreting = saved


def _compile_later(f: "Forth", node: HostOp) -> None:
    with _into_definition(f, node.name):
        f.compile_entry(node.arg, Token(node.arg.name, node.pos))


def _run_immediate_later(f: "Forth", node: HostOp) -> None:
    """A POSTPONEd immediate word runs: into the open definition, if any (IF, THEN ...,
    even from inside [ ]), else as it is (a comment: POSTPONE ( in an IMMEDIATE word)."""
    if f.colon is None:
        node.arg.fn(f, Token(node.arg.name, node.pos))
        return
    with _into_definition(f, node.name):
        node.arg.fn(f, Token(node.arg.name, node.pos))


@immediate("POSTPONE", '( "name" -- )', "Compile the compile-time behaviour of the word named next.",
           ": my-if POSTPONE IF ; IMMEDIATE", wordset="CORE", parses=NAME_NEXT)
@immediate("[COMPILE]", '( "name" -- )', "Compile the (immediate) word named next.",
           ": my-then [COMPILE] THEN ; IMMEDIATE", wordset="CORE-EXT", parses=NAME_NEXT)
def i_postpone(f: "Forth", tok: Token) -> None:
    _compiling(f, tok)
    entry, name = _entry(f, tok, tok.text.upper())
    _postpone(f, tok, entry, name)


def _postpone(f: "Forth", tok: Token, entry, name: Token) -> None:
    if isinstance(entry, Immediate):  # its compile-time action, when the word being defined runs
        f.append(HostOp(f"POSTPONE {entry.name}", _run_immediate_later, entry, name.pos))
    elif isinstance(entry, Colon) and entry.immediate:
        f.append(Call(entry, name.pos))
    elif tok.key == "[COMPILE]":
        f.compile_entry(entry, name)
    else:  # compiled into the definition that is open when the word being defined runs
        f.append(HostOp(f"POSTPONE {entry.name}", _compile_later, entry, name.pos))


@immediate("]L", "( x -- )", "End [ ... ] and compile x, taken from the stack (gforth's; `] LITERAL`).",
           ": f [ 6 7 * ]L ; f . \\ 42", wordset="gforth")
def i_right_bracket_literal(f: "Forth", tok: Token) -> None:
    if f.colon is None or not f.interpreting:
        raise ForthError("]L ends a [ ... ] inside a definition: use it after [", tok.pos, tok.text)
    i_right_bracket(f, tok)
    (v,) = f.pop_uniform(1, "]L")
    f.append(Lit(v, tok.pos))


def _literals(f: "Forth", t: Token) -> list[tuple[str, int | float]] | None:
    """What a number in ]] ... [[ compiles, as the interpreter reads it: its cells or its float."""
    base = f.base()
    v = parse_integer(t.text, base)
    if v is not None:
        return [("cell", wrap64(v))]
    d = parse_double(t.text, base)
    if d is not None:
        return [("cell", wrap64(d)), ("cell", d >> 64)]
    r = parse_float(t.text) if base == 10 else None
    return None if r is None else [("float", r)]


def _compile_literals_later(f: "Forth", node: HostOp) -> None:
    with _into_definition(f, node.name):
        literals = cast("list[tuple[str, int | float]]", node.arg)  # what _literals read
        for kind, v in literals:
            f.append(Lit(int(v), node.pos) if kind == "cell" else FLit(float(v), node.pos))


@immediate("]]", "( -- )", "Postpone every word up to [[ (gforth's): the definition being built compiles "
           "them into the one open when it runs; a number there is compiled as a literal.",
           ": sq ]] DUP * [[ ; IMMEDIATE  : f sq ; 4 f . \\ 16", wordset="gforth",
           parses=Parse(POSTPONED, end="[["))
def i_postpone_all(f: "Forth", tok: Token) -> None:
    _compiling(f, tok)
    while (t := f.reader.next_token()) is not None:
        if t.key == "[[":
            return
        entry = f.lookup(t.key)
        if entry is not None:
            _postpone(f, t, entry, t)
            continue
        lits = _literals(f, t)
        if lits is None:
            raise ForthError(f"]] {t.text}: {t.text} is not defined and is not a number; define it first",
                             t.pos, t.text)
        f.append(HostOp(f"POSTPONE {t.text}", _compile_literals_later, lits, t.pos))
    raise ForthError("]] without [[: end the words to postpone with [[ (on the same line)", tok.pos, tok.text)


@immediate("[[", "( -- )", "End ]] ... (gforth's): alone it is an error.", ": sq ]] DUP * [[ ; IMMEDIATE",
           wordset="gforth")
def i_end_postpone_all(f: "Forth", tok: Token) -> None:
    raise ForthError("[[ without ]]: it ends the words ]] postpones", tok.pos, tok.text)


@host("COMPILE,", "( xt -- )", "Compile the word of xt into the definition being built.",
      ": lit, ['] DUP COMPILE, ; IMMEDIATE", wordset="CORE-EXT")
def w_compile_comma(f: "Forth", tok: Token) -> None:
    (xt,) = f.pop_uniform(1, "COMPILE,")
    entry = f.tokens.entry_of(xt, "COMPILE,")
    with _into_definition(f, "COMPILE,"):
        f.compile_entry(entry, Token(entry.name, tok.pos))


# ---- execution tokens --------------------------------------------------------------------
@host("'", '( "name" -- xt )', "The execution token of the word named next.", "5 ' DUP EXECUTE . . \\ 5 5", wordset="CORE",
      parses=NAME_NEXT)
def w_tick(f: "Forth", tok: Token) -> None:
    entry, _ = _entry(f, tok, "'")
    f.push_uniform(f.tokens.xt_of(entry))


@immediate("[']", '( "name" -- xt )', "Compile the execution token of the word named next.",
           ": f ['] DUP ; 3 f EXECUTE . . \\ 3 3", wordset="CORE", parses=NAME_NEXT)
def i_bracket_tick(f: "Forth", tok: Token) -> None:
    entry, name = _entry(f, tok, "[']")
    f.append(Lit(f.tokens.xt_of(entry), name.pos))


@host("FIND", "( c-addr -- c-addr 0 | xt 1 | xt -1 )", "Look up a counted string: its xt and 1 if "
      "immediate, -1 if not; 0 if not found.", "HERE 3 C, CHAR D C, CHAR U C, CHAR P C, FIND . DROP \\ -1",
      wordset="CORE")
def w_find(f: "Forth", tok: Token) -> None:
    (addr,) = f.pop_uniform(1, "FIND")
    name = f.read_bytes(addr + 1, f.read_bytes(addr, 1)[0]).decode("latin-1")
    entry = f.lookup(name.upper())
    if entry is None:
        f.push_uniform(addr, 0)
    else:
        f.push_uniform(f.tokens.xt_of(entry), 1 if is_immediate(entry) else -1)


@host("CATCH", "( i*x xt -- j*x 0 | i*x n )", "Run xt; if it THROWs n (or fails with the error of code "
      "n), restore the stacks and push n, else push 0.", "' ABORT CATCH . \\ -1", wordset="EXCEPTION")
def w_catch(f: "Forth", tok: Token) -> None:
    (xt,) = f.pop_uniform(1, "CATCH")
    entry = f.tokens.entry_of(xt, "CATCH")
    before = StackState.load(f.backend)
    depths = before.dsp.copy(), before.fsp.copy()
    try:
        f.run_entry(entry, tok)
    except ForthError as err:
        if err.code is None:  # an interrupt or a runaway loop is the user's, not the program's
            raise
        f.segment = []
        st = StackState.load(f.backend)  # the depths come back; the cells hold what THROW left there
        st.dsp[:], st.fsp[:] = depths
        st.save(f.backend)
        f.push_uniform(err.code)
        return
    f.push_uniform(0)


constant("STATE", "( -- addr )", "The compile-state variable: true while a definition is compiled (not inside [ ]).",
         ": s STATE @ ; IMMEDIATE : t s LITERAL ; t . \\ -1", wordset="CORE",
         group="Constants and variables")  # its address is the session's (Forth._install)
