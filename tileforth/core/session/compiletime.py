"""Compile-time words and execution tokens: what makes Forth extend itself.

    IMMEDIATE  [  ]  LITERAL  POSTPONE  [COMPILE]  COMPILE,  STATE
    '  [']  EXECUTE (tileforth/core/compile/xtgen.py)  >BODY  FIND
    :NONAME  DOES>  VALUE TO +TO  DEFER IS ACTION-OF DEFER@ DEFER!
    CASE OF ENDOF ENDCASE  ENVIRONMENT?  CATCH THROW (xtgen.py)

The model. A word runs either on the device (every thread) or on the host
(tileforth/core/session/hostexec.py). Compile-time execution is host execution: a
user's IMMEDIATE word runs when the compiler meets it, on the host, and
the device code in it runs on the session's stacks as a line would (so
`[ 2 3 + ] LITERAL` computes 5 on the device and the host compiles it in).
A compile-time word may touch the stacks, data space (`,` `ALLOT` HERE),
the dictionary and the definition being built, and read the input (PARSE,
WORD, the name after it); every thread must agree on the values the host
takes from the stacks.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from ..compile import layout as L
from ..compile.primitives import TABLE as PRIMS
from ..compile.state import StackState
from ..errors import ForthError
from ..front.dictionary import Colon, Constant, HostWord, Immediate, is_immediate
from ..front.reader import Token
from ..front.tree import Call, HostOp, Lit, LocalGet, LocalSet, Prim
from ..lazy import np
from .hostexec import EXIT
from .hostwords import Frame, _align, _allot, _close, _name, declare_locals, i_colon
from .strings import place

if TYPE_CHECKING:
    from .interpreter import Forth


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


def w_immediate(f: "Forth", tok: Token) -> None:
    last = f.last_defined
    if not isinstance(last, (Colon, Constant)):
        raise ForthError("IMMEDIATE marks the last definition (: CONSTANT VARIABLE CREATE ...); define one first")
    last.immediate = True


def i_left_bracket(f: "Forth", tok: Token) -> None:
    _compiling(f, tok)
    f.interpreting, f.interp_floor = True, len(f.frames)


def i_right_bracket(f: "Forth", tok: Token) -> None:
    if f.colon is None:
        raise ForthError("] without [ : it goes back to compiling inside a definition", tok.pos, tok.text)
    f.flush_segment()
    f.interpreting = False


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


def i_postpone(f: "Forth", tok: Token) -> None:
    _compiling(f, tok)
    entry, name = _entry(f, tok, tok.text.upper())
    if isinstance(entry, Immediate):  # its compile-time action, when the word being defined runs
        f.append(HostOp(f"POSTPONE {entry.name}", _run_immediate_later, entry, name.pos))
    elif isinstance(entry, Colon) and entry.immediate:
        f.append(Call(entry, name.pos))
    elif tok.key == "[COMPILE]":
        f.compile_entry(entry, name)
    else:  # compiled into the definition that is open when the word being defined runs
        f.append(HostOp(f"POSTPONE {entry.name}", _compile_later, entry, name.pos))


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


def w_compile_comma(f: "Forth", tok: Token) -> None:
    (xt,) = f.pop_uniform(1, "COMPILE,")
    entry = f.tokens.entry_of(xt, "COMPILE,")
    with _into_definition(f, "COMPILE,"):
        f.compile_entry(entry, Token(entry.name, tok.pos))


# ---- execution tokens --------------------------------------------------------------------
def w_tick(f: "Forth", tok: Token) -> None:
    entry, _ = _entry(f, tok, "'")
    f.push_uniform(f.tokens.xt_of(entry))


def i_bracket_tick(f: "Forth", tok: Token) -> None:
    entry, name = _entry(f, tok, "[']")
    f.append(Lit(f.tokens.xt_of(entry), name.pos))


def w_to_body(f: "Forth", tok: Token) -> None:
    (xt,) = f.pop_uniform(1, ">BODY")
    entry = f.tokens.entry_of(xt, ">BODY")
    addr = entry.body_addr if isinstance(entry, Colon) else (entry.value if getattr(entry, "created", False)
                                                             else None)
    if addr is None:
        raise ForthError(f">BODY: {entry.name} has no data field; >BODY takes the token of a word made by "
                         "CREATE (or VALUE, DEFER)")
    f.push_uniform(addr)


def w_find(f: "Forth", tok: Token) -> None:
    (addr,) = f.pop_uniform(1, "FIND")
    name = f.read_bytes(addr + 1, f.read_bytes(addr, 1)[0]).decode("latin-1")
    entry = f.lookup(name.upper())
    if entry is None:
        f.push_uniform(addr, 0)
    else:
        f.push_uniform(f.tokens.xt_of(entry), 1 if is_immediate(entry) else -1)


# ---- defining words ----------------------------------------------------------------------
def i_noname(f: "Forth", tok: Token) -> None:
    i_colon(f, Token(":NONAME", tok.pos), named=False)


def i_does(f: "Forth", tok: Token) -> None:
    _compiling(f, tok)
    outer = f.colon
    does = Colon(f"{outer.name} DOES>", [], tok.pos, anonymous=True, source=outer.source, prelude=outer.prelude)
    f.append(HostOp("DOES>", _run_does, does, tok.pos))
    f.finish_definition(tok)
    f.colon = does
    f.colon_start = (f.reader, tok.pos)
    f.colon_text = []


def _run_does(f: "Forth", node: HostOp) -> object:
    """DOES> as its defining word runs: the word CREATE made last gets the
    code after DOES>, called with its data address; the defining word ends."""
    last = f.last_defined
    addr = last.body_addr if isinstance(last, Colon) else (last.value if getattr(last, "created", False) else None)
    if addr is None:
        raise ForthError("DOES> changes the word CREATE made last, but the last word defined was not made by "
                         "CREATE; call CREATE first in the defining word", node.pos, "DOES>")
    word = f.make_word(last.name, [Lit(addr, node.pos), Call(node.arg, node.pos)], body_addr=addr,
                       immediate=last.immediate)
    for wordlist in f.wordlists:  # the word list CREATE put it in
        if wordlist.get(word.name.upper()) is last:
            wordlist[word.name.upper()] = word
    f.last_defined = word
    return EXIT


def _data_word(f: "Forth", tok: Token, value: int, kind: str, tail: list[str]) -> None:
    name = _name(f, tok)
    _align(f)
    addr = _allot(f, 8)
    f.write_cell(addr, value)
    f.define(f.make_word(name.text, [Lit(addr, name.pos)] + [Prim(PRIMS[w], name.pos) for w in tail],
                         body_addr=addr, data_kind=kind))


def w_value(f: "Forth", tok: Token) -> None:
    (v,) = f.pop_uniform(1, "VALUE")
    _data_word(f, tok, v, "value", ["@"])


def w_defer(f: "Forth", tok: Token) -> None:
    _data_word(f, tok, 0, "defer", ["@", "EXECUTE"])


def _data_of(f: "Forth", tok: Token, kinds: tuple[str, ...], what: str) -> tuple[int, Token]:
    entry, name = _entry(f, tok, tok.text.upper())
    if not isinstance(entry, Colon) or entry.data_kind not in kinds:
        raise ForthError(f"{tok.text.upper()} {name.text}: {name.text} is not {what}", name.pos, name.text)
    return entry.body_addr, name


def _store_into(kinds: tuple[str, ...], what: str, words: tuple[str, ...]):
    """TO, +TO, IS, ACTION-OF: the data cell of the word named next, then
    `words` (compiled into a definition, or run by the line)."""
    def fn(f: "Forth", tok: Token) -> None:
        addr, name = _data_of(f, tok, kinds, what)
        f.append(Lit(addr, name.pos))
        for w in words:
            f.append(Prim(PRIMS[w], tok.pos))
    return fn


def w_defer_fetch(f: "Forth", tok: Token) -> None:
    (xt,) = f.pop_uniform(1, "DEFER@")
    f.push_uniform(f.read_cell(_defer_cell(f, xt, "DEFER@")))


def w_defer_store(f: "Forth", tok: Token) -> None:
    new, xt = f.pop_uniform(2, "DEFER!")
    f.write_cell(_defer_cell(f, xt, "DEFER!"), new)


def _defer_cell(f: "Forth", xt: int, word: str) -> int:
    entry = f.tokens.entry_of(xt, word)
    if not isinstance(entry, Colon) or entry.data_kind != "defer":
        raise ForthError(f"{word}: {entry.name} is not a DEFER word")
    return entry.body_addr


def w_two_constant(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    lo, hi = f.pop_uniform(2, "2CONSTANT")
    f.define(f.make_word(name.text, [Lit(lo, name.pos), Lit(hi, name.pos)]))


def w_two_variable(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    _align(f)
    addr = _allot(f, 16)
    f.backend.write(addr, np.zeros(2, np.int64))
    f.define(Constant(name.text, addr, help="( -- addr ) a two-cell variable"))


def i_two_literal(f: "Forth", tok: Token) -> None:
    _compiling(f, tok)
    lo, hi = f.pop_uniform(2, "2LITERAL")
    f.append(Lit(lo, tok.pos))
    f.append(Lit(hi, tok.pos))


def w_two_value(f: "Forth", tok: Token) -> None:
    lo, hi = f.pop_uniform(2, "2VALUE")
    name = _name(f, tok)
    _align(f)
    addr = _allot(f, 16)
    f.backend.write(addr, np.array([hi, lo], np.int64))  # as 2! stores it
    f.define(f.make_word(name.text, [Lit(addr, name.pos), Prim(PRIMS["2@"], name.pos)], body_addr=addr,
                         data_kind="2value"))


def i_sliteral(f: "Forth", tok: Token) -> None:
    _compiling(f, tok)
    addr, n = f.pop_uniform(2, "SLITERAL")
    data = f.read_bytes(addr, n)
    f.append(Lit(place(f, data, tok), tok.pos))
    f.append(Lit(len(data), tok.pos))


def i_fliteral(f: "Forth", tok: Token) -> None:
    from ..front.tree import FLit
    _compiling(f, tok)
    f.append(FLit(f.pop_uniform_float("FLITERAL"), tok.pos))


def w_fvariable(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    _align(f)
    addr = _allot(f, 8)
    f.write_cell(addr, 0)
    f.define(Constant(name.text, addr, help="( -- addr ) a float variable (f32)"))


def w_fvalue(f: "Forth", tok: Token) -> None:
    r = f.pop_uniform_float("FVALUE")
    name = _name(f, tok)
    _align(f)
    addr = _allot(f, 8)
    f.backend.write(addr, np.array([r, 0], L.FLOAT_DTYPE)[:8 // L.FLOAT_BYTES])  # one float in a cell
    f.define(f.make_word(name.text, [Lit(addr, name.pos), Prim(PRIMS["F@"], name.pos)], body_addr=addr,
                         data_kind="fvalue"))


def _local(f: "Forth", tok: Token) -> bool:
    """TO or +TO of a local (the name after it is one): compiled, True."""
    name = f.reader.peek_token()
    if name is None or not f.compile_state or name.key not in f._local_names:
        return False
    f.reader.next_token()
    index = f._local_names[name.key]
    if tok.key == "+TO":
        f.append(LocalGet(index, name.key, name.pos))
        f.append(Prim(PRIMS["+"], tok.pos))
    f.append(LocalSet(index, name.key, name.pos))
    return True


def i_plus_to(f: "Forth", tok: Token) -> None:
    if not _local(f, tok):
        _store_into(("value",), "a VALUE", ("+!",))(f, tok)


def i_to(f: "Forth", tok: Token) -> None:
    if _local(f, tok):
        return
    entry, name = _entry(f, tok, tok.text.upper())
    kind = getattr(entry, "data_kind", "")
    store = {"value": "!", "fvalue": "F!", "2value": "2!"}.get(kind)
    if store is None:
        raise ForthError(f"TO {name.text}: {name.text} is not a VALUE, 2VALUE or FVALUE", name.pos, name.text)
    f.append(Lit(entry.body_addr, name.pos))
    f.append(Prim(PRIMS[store], tok.pos))


def i_defined(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    found = f.lookup(name.key) is not None
    f.push_uniform(-1 if found == (tok.key == "[DEFINED]") else 0)


def w_synonym(f: "Forth", tok: Token) -> None:
    new = _name(f, tok)
    entry, _ = _entry(f, tok, "SYNONYM")
    f.wordlists[f.current - 1][new.key] = entry
    f.last_defined = entry


def w_marker(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    saved = ([dict(w) for w in f.wordlists], list(f.order), f.current, f.here, len(f.tokens))

    def forget(f: "Forth", node: HostOp) -> None:
        wordlists, order, current, here, tokens = saved
        for mine, then in zip(f.wordlists, wordlists):  # the same dicts (FORTH-WORDLIST is f.dict)
            mine.clear()
            mine.update(then)
        del f.wordlists[len(wordlists):]
        f.order, f.current, f.here = list(order), current, here
        f.tokens.forget(tokens)
    f.define(Colon(name.text, [HostOp(name.text, forget, None, name.pos)], name.pos))


def w_pad(f: "Forth", tok: Token) -> None:
    f.push_uniform(f.pad_addr)


def w_unused(f: "Forth", tok: Token) -> None:
    f.push_uniform(f.data_space_size - f.here)


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


def i_abort_quote(f: "Forth", tok: Token) -> None:
    text, found = f.reader.parse_until('"')
    if not found:
        raise ForthError('ABORT" needs a closing " on the same line', tok.pos, tok.text)
    f.strings.append(text)
    f.append(Prim(PRIMS['(ABORT")'], tok.pos, arg=len(f.strings) - 1))


# ---- CASE ---------------------------------------------------------------------------------
def i_case(f: "Forth", tok: Token) -> None:
    f.frames.append(Frame("case", tok.pos))


def i_of(f: "Forth", tok: Token) -> None:
    if not f.frames or f.frames[-1].kind not in ("case", "endof"):
        raise ForthError("OF without CASE: write CASE x OF ... ENDOF ... ENDCASE", tok.pos, tok.text)
    f.append(Prim(PRIMS["OVER"], tok.pos))
    f.append(Prim(PRIMS["="], tok.pos))
    f.frames.append(Frame("of", tok.pos))
    f.append(Prim(PRIMS["DROP"], tok.pos))


def i_endof(f: "Forth", tok: Token) -> None:
    fr = _close(f, tok, ("of",))
    fr.kind = "endof"
    f.frames.append(fr)


def i_endcase(f: "Forth", tok: Token) -> None:
    if not any(fr.kind == "case" for fr in f.frames) or f.frames[-1].kind not in ("case", "endof"):
        raise ForthError("ENDCASE without CASE (or an OF without ENDOF)", tok.pos, tok.text)
    f.append(Prim(PRIMS["DROP"], tok.pos))
    from ..front.tree import If
    while f.frames[-1].kind == "endof":
        fr = f.frames.pop()
        f.append(If(fr.a, fr.b, fr.pos))
    case = f.frames.pop()
    for node in case.a:
        f.append(node)


ENVIRONMENT = {  # what ENVIRONMENT? answers (Forth-2012 table 3.5), honestly for this system
    "/COUNTED-STRING": [255], "/HOLD": [256], "/PAD": [84], "ADDRESS-UNIT-BITS": [8], "FLOORED": [0],
    "MAX-CHAR": [255], "MAX-N": [2**63 - 1], "MAX-U": [-1], "MAX-D": [-1, 2**63 - 1], "MAX-UD": [-1, -1],
    "RETURN-STACK-CELLS": [32], "STACK-CELLS": [128], "FLOATING-STACK": [64], "#LOCALS": [64],
}


def w_environment(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "ENVIRONMENT?")
    query = f.read_bytes(addr, n).decode("latin-1").upper()
    answer = ENVIRONMENT.get(query)
    if answer is None:
        f.push_uniform(0)
    else:
        f.push_uniform(*answer, -1)


HOST_WORDS: list[HostWord] = [
    HostWord("2CONSTANT", '( x1 x2 "name" -- )', "Define a word that pushes two cells.", w_two_constant,
             "1 2 2CONSTANT two  two . . \\ 2 1"),
    HostWord("2VARIABLE", '( "name" -- )', "Define a two-cell variable.", w_two_variable,
             "2VARIABLE d  1 2 d 2!  d 2@ . . \\ 2 1"),
    HostWord("2VALUE", '( x1 x2 "name" -- )', "Define a word that pushes two cells; change them with TO.",
             w_two_value, "1 2 2VALUE p  3 4 TO p  p . . \\ 4 3"),
    HostWord("FVARIABLE", '( "name" -- )', "Define a float (f32) variable.", w_fvariable,
             "FVARIABLE x  1.5e x F!  x F@ F. \\ 1.5"),
    HostWord("FVALUE", '( F: r "name" -- )', "Define a word that pushes the float r; change it with TO.", w_fvalue,
             "1.5e FVALUE x  2.5e TO x  x F. \\ 2.5"),
    HostWord("SYNONYM", '( "new" "old" -- )', "Define new as another name of old.", w_synonym,
             "SYNONYM twice 2* 5 twice . \\ 10"),
    HostWord("MARKER", '( "name" -- )', "Define name: running it forgets it and every word defined after it.",
             w_marker, "MARKER undo : tmp 1 ; undo"),
    HostWord("PAD", "( -- addr )", "A scratch area of 84 bytes in data space.", w_pad, "PAD 84 ERASE"),
    HostWord("UNUSED", "( -- u )", "The bytes of data space left.", w_unused, "UNUSED 0> . \\ -1"),
    HostWord("CATCH", "( i*x xt -- j*x 0 | i*x n )", "Run xt; if it THROWs n (or fails with the error of code "
             "n), restore the stacks and push n, else push 0.", w_catch, "' ABORT CATCH . \\ -1"),
    HostWord("IMMEDIATE", "( -- )", "Make the last definition immediate: it runs when a definition that "
             "uses it is compiled.", w_immediate, ": [five] 5 ; IMMEDIATE"),
    HostWord("'", '( "name" -- xt )', "The execution token of the word named next.", w_tick, "' DUP EXECUTE"),
    HostWord("(LOCAL)", "( c-addr u -- )", "Declare a local named by the string in the definition being compiled; "
             "u = 0 ends the list (the first declared takes the top cell).", w_paren_local,
             ": LOCAL BL WORD COUNT (LOCAL) ; IMMEDIATE"),
    HostWord("COMPILE,", "( xt -- )", "Compile the word of xt into the definition being built.",
             w_compile_comma, ": lit, ['] DUP COMPILE, ; IMMEDIATE"),
    HostWord(">BODY", "( xt -- addr )", "The data address of a word made by CREATE.", w_to_body,
             "CREATE t 7 , ' t >BODY @ . \\ 7"),
    HostWord("FIND", "( c-addr -- c-addr 0 | xt 1 | xt -1 )", "Look up a counted string: its xt and 1 if "
             "immediate, -1 if not; 0 if not found.", w_find, "HERE 3 C, CHAR D C, CHAR U C, CHAR P C, FIND . DROP \\ -1"),
    HostWord("VALUE", '( x "name" -- )', "Define a word that pushes x; change it with TO.", w_value,
             "5 VALUE v  7 TO v  v . \\ 7"),
    HostWord("DEFER", '( "name" -- )', "Define a word that runs the word it is set to with IS.", w_defer,
             "DEFER act  ' DUP IS act"),
    HostWord("DEFER@", "( xt1 -- xt2 )", "The token a DEFER word runs.", w_defer_fetch,
             "DEFER a ' DUP IS a ' a DEFER@ ' DUP = . \\ -1"),
    HostWord("DEFER!", "( xt2 xt1 -- )", "Set the DEFER word of xt1 to run xt2.", w_defer_store,
             "DEFER a ' DUP ' a DEFER!"),
    HostWord("ENVIRONMENT?", "( c-addr u -- false | i*x true )", "Ask about the system (MAX-N, FLOORED, "
             "/COUNTED-STRING ...).", w_environment, 'S" MAX-N" ENVIRONMENT? . . \\ -1 9223372036854775807'),
]

IMMEDIATES: list[Immediate] = [
    Immediate("[", "( -- )", "Stop compiling: the words up to ] run now.", i_left_bracket,
              ": f [ 2 3 + ] LITERAL ; f . \\ 5"),
    Immediate("]", "( -- )", "Compile again after [.", i_right_bracket, ": f [ 2 3 + ] LITERAL ; f . \\ 5"),
    Immediate("LITERAL", "( x -- )", "Compile x (taken from the stack now) into the definition.", i_literal,
              ": f [ 6 7 * ] LITERAL ; f . \\ 42"),
    Immediate("POSTPONE", '( "name" -- )', "Compile the compile-time behaviour of the word named next.",
              i_postpone, ": my-if POSTPONE IF ; IMMEDIATE"),
    Immediate("[COMPILE]", '( "name" -- )', "Compile the (immediate) word named next.", i_postpone,
              ": my-then [COMPILE] THEN ; IMMEDIATE"),
    Immediate("[']", '( "name" -- xt )', "Compile the execution token of the word named next.",
              i_bracket_tick, ": f ['] DUP ; 3 f EXECUTE . . \\ 3 3"),
    Immediate(":NONAME", "( -- )", "Start a definition without a name; ; leaves its xt.", i_noname,
              ":NONAME 2 * ; 21 SWAP EXECUTE . \\ 42"),
    Immediate("DOES>", "( -- )", "In a defining word: what the words it CREATEs do, with their data address.",
              i_does, ": const CREATE , DOES> @ ;  7 const seven  seven . \\ 7"),
    Immediate("TO", '( x "name" -- ) or ( F: r "name" -- )', "Store in the VALUE (or FVALUE) named next.", i_to,
              "5 VALUE v  7 TO v  v . \\ 7"),
    Immediate("2LITERAL", "( x1 x2 -- )", "Compile two cells (taken from the stack now).", i_two_literal,
              ": f [ 1 2 ] 2LITERAL ; f . . \\ 2 1"),
    Immediate("SLITERAL", "( c-addr u -- )", "Compile a string (taken from the stack now) into the definition.",
              i_sliteral, ': f [ S" abc" ] SLITERAL ; f TYPE \\ abc'),
    Immediate("FLITERAL", "( F: r -- )", "Compile a float (taken from the float stack now).", i_fliteral,
              ": f [ 2e FSQRT ] FLITERAL ; f F. \\ 1.4142135"),
    Immediate("[DEFINED]", '( "name" -- flag )', "True if the word named next is defined.", i_defined,
              "[DEFINED] DUP . \\ -1"),
    Immediate("[UNDEFINED]", '( "name" -- flag )', "True if the word named next is not defined.", i_defined,
              "[UNDEFINED] DUP . \\ 0"),
    Immediate('ABORT"', '( flag "text" -- )', 'If flag is not 0, end with exception -2 and the text as its message.',
              i_abort_quote, ': f ABORT" no!" ; 0 f'),
    Immediate("+TO", '( n "name" -- )', "Add n to the VALUE (or local) named next.", i_plus_to, "1 1 1 THREADS  5 VALUE v  2 +TO v  v . \\ 7"),
    Immediate("IS", '( xt "name" -- )', "Set the DEFER word named next to run xt.",
              _store_into(("defer",), "a DEFER word", ("!",)), "DEFER act  ' DUP IS act  4 act . . \\ 4 4"),
    Immediate("ACTION-OF", '( "name" -- xt )', "The token the DEFER word named next runs.",
              _store_into(("defer",), "a DEFER word", ("@",)),
              "DEFER act  ' DUP IS act  ACTION-OF act ' DUP = . \\ -1"),
    Immediate("CASE", "( -- )", "Start CASE x OF ... ENDOF ... ENDCASE.", i_case,
              ": f CASE 1 OF 10 ENDOF 2 OF 20 ENDOF 0 SWAP ENDCASE ; 2 f . \\ 20"),
    Immediate("OF", "( x1 x2 -- | x1 )", "Run up to ENDOF if x1 = x2 (dropping it), else go on.", i_of,
              ": f CASE 1 OF 10 ENDOF 0 SWAP ENDCASE ; 1 f . \\ 10"),
    Immediate("ENDOF", "( -- )", "End an OF branch.", i_endof, ": f CASE 1 OF 10 ENDOF 0 SWAP ENDCASE ; 5 f . \\ 0"),
    Immediate("ENDCASE", "( x -- )", "End CASE, dropping the selector.", i_endcase,
              ": f CASE 1 OF 10 ENDOF 99 SWAP ENDCASE ; 3 f . \\ 99"),
]
