"""Colon definitions and defining words (Forth-2012 6.1, 6.2, 15.6.2): : ;
:NONAME DOES> IMMEDIATE, CONSTANT VARIABLE CREATE BUFFER: >BODY, VALUE TO +TO,
DEFER IS ACTION-OF DEFER@ DEFER!, SYNONYM and MARKER."""
from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from ...compile.primitives import TABLE as PRIMS
from ...errors import ForthError, SourcePos
from ...front.dictionary import Colon, Constant
from ...front.reader import Token
from ...front.tree import Call, HostOp, Lit, LocalGet, LocalSet, Prim
from ...lazy import np
from ..hostexec import EXIT
from .compiling import _compiling, _entry
from .dataspace import _align, _allot
from ..building import definition_text, read_end
from .table import INTERPRETING, NAME_NEXT, NEW, NEW_NAME, Parse, host, immediate
from .textin import _name

if TYPE_CHECKING:
    from ..interpreter import Forth


def _define(f: "Forth", entry) -> None:
    f.define(entry)


# ---- defining words ----------------------------------------------------------------
@host("CONSTANT", "( x -- )", "Define a word that pushes x.", "42 CONSTANT answer", wordset="CORE", parses=NEW_NAME)
def w_constant(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    (v,) = f.pop_uniform(1, "CONSTANT")
    _define(f, Constant(name.text, v, help="( -- x ) a constant"))


@host("VARIABLE", "( -- )", "Define a cell variable in data space; the name pushes its address.",
      "VARIABLE v  5 v !  v @ .", wordset="CORE", parses=NEW_NAME)
def w_variable(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    _align(f)
    addr = _allot(f, 8)
    f.write_cell(addr, 0)
    _define(f, Constant(name.text, addr, help="( -- addr ) a variable"))


@host("CREATE", "( -- )", "Define a name that pushes the current data-space address.",
      "CREATE t 1 , 2 ,  t CELL+ @ .", wordset="CORE", parses=NEW_NAME)
def w_create(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    _align(f)
    _define(f, Constant(name.text, f.data_addr + f.here, help="( -- addr ) created data", created=True))


@host("BUFFER:", "( u -- )", "Define a zeroed buffer of u bytes in data space.", "64 BUFFER: buf", wordset="CORE-EXT",
      parses=NEW_NAME)
def w_buffer(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    (n,) = f.pop_uniform(1, "BUFFER:")
    if n < 0:
        raise ForthError(f"BUFFER: needs a size of 0 or more bytes, got {n}, e.g. `64 BUFFER: {name.text}`")
    _align(f)
    addr = _allot(f, n)
    f.backend.write(addr, np.zeros(n, np.uint8))
    _define(f, Constant(name.text, addr, help="( -- addr ) a buffer"))


# ---- colon definitions -------------------------------------------------------------------
@immediate(":", "( -- )", "Start a colon definition.", ": square DUP * ;", wordset="CORE",
           parses=Parse(NEW, INTERPRETING, defines="colon"))
def i_colon(f: "Forth", tok: Token, named: bool = True, running: bool = False) -> None:
    """`:` (and :NONAME, not `named`) read from the text, or `running`: compiled into a word
    (`: def-word : POSTPONE ; ;`, `: mk :NONAME ... POSTPONE ; ;`) that now runs."""
    if f.compile_state and not running:  # `:` or :NONAME runs when the word being defined does
        f.append(HostOp(tok.text.upper(), _colon_later, (named, tok), tok.pos))
        return
    if f.colon is not None:
        raise ForthError(f"`{tok.text}` inside the definition of {f.colon.name}: finish it with ; first",
                         tok.pos, tok.text)
    if f.frames:
        raise ForthError(f"`{tok.text}` cannot start inside an open control structure", tok.pos, tok.text)
    name = _name(f, tok) if named else tok
    f.colon = Colon(name.text, [], name.pos, source=name.pos.text, prelude=f.reader.name == "prelude.fth",
                    anonymous=not named)
    # SEE's text: from the `:` read here; a word that runs `:` leaves the line its name is on
    f.colon_start = (None, None) if running else (f.reader, tok.pos)
    f.colon_text = []
    if not named and name.text.upper() == ":NONAME":  # ( -- xt ) at once, as the standard says: the
        f.colon.open = True  # definition may use it (LATESTXT, POSTPONE LITERAL: gforth's recursive closures)
        f.last_defined = f.colon
        f.push_uniform(f.tokens.xt_of(f.colon))


def _colon_later(f: "Forth", node: HostOp) -> None:
    """A `:` or :NONAME compiled into a word, as that word runs (node.arg: named, and the token)."""
    arg: tuple[bool, Token] = node.arg  # type: ignore[assignment]
    i_colon(f, arg[1], named=arg[0], running=True)


@immediate(";", "( -- )", "End a colon definition.", ": square DUP * ;", wordset="CORE")
def i_semicolon(f: "Forth", tok: Token) -> None:
    if f.colon is None:
        raise ForthError("; without a matching `:`", tok.pos, ";")
    text = definition_text(f, f.reader, read_end(f.reader, tok))  # the definition's own text, for SEE
    if text is not None:
        f.colon.source = "\n".join(text)
        outer = _DOES_OF.pop(f.colon, None)
        if outer is not None and text:  # a DOES> part: its defining word's text is both parts
            word, head = outer  # head ends where the DOES> part's text starts: on the line of DOES>
            word.source = "\n".join(head[:-1] + [head[-1] + text[0]] + text[1:])
    colon = f.colon
    f.finish_definition(tok)
    last = _INTERPRETED.pop(colon, None)
    if last is not None:  # a DOES> part begun outside a definition: now the code of its word
        _give_code(f, last, colon, tok.pos)


@host("IMMEDIATE", "( -- )", "Make the last definition immediate: it runs when a definition that "
      "uses it is compiled.", ": [five] 5 ; IMMEDIATE", wordset="CORE")
def w_immediate(f: "Forth", tok: Token) -> None:
    last = f.last_defined
    if not isinstance(last, (Colon, Constant)):
        raise ForthError("IMMEDIATE marks the last definition (: CONSTANT VARIABLE CREATE ...); define one first")
    last.immediate = True


# ---- :NONAME, DOES>, >BODY, VALUE, DEFER, SYNONYM, MARKER ----------------------------------------
@immediate(":NONAME", "( -- xt )", "Start a definition without a name; its xt is pushed at once.",
           ":NONAME 2 * ; 21 SWAP EXECUTE . \\ 42", wordset="CORE-EXT")
def i_noname(f: "Forth", tok: Token) -> None:
    i_colon(f, Token(":NONAME", tok.pos), named=False)


@immediate("DOES>", "( -- )", "In a defining word: what the words it CREATEs do, with their data address. "
           "Outside a definition (gforth's): the code up to ; becomes what the word CREATE made last does.",
           ": const CREATE , DOES> @ ;  7 const seven  seven . \\ 7", wordset="CORE")
def i_does(f: "Forth", tok: Token) -> None:
    if f.colon is None and not f.compile_state:
        _interpreted_does(f, tok)
        return
    _compiling(f, tok)
    outer = f.colon
    does = Colon(f"{outer.name} DOES>", [], tok.pos, anonymous=True, source=outer.source, prelude=outer.prelude)
    f.append(HostOp("DOES>", _run_does, does, tok.pos))
    before = SourcePos(tok.pos.line, tok.pos.col - 1, tok.pos.text, tok.pos.source)  # up to DOES>
    head = definition_text(f, f.reader, before) if tok.pos.source == f.reader.name else None
    if head is not None:  # SEE shows the whole definition: this part, then the DOES> part's at `;`
        _DOES_OF[does] = (outer, head)
    f.finish_definition(tok)
    f.colon = does
    f.colon_start = (f.reader, tok.pos)
    f.colon_text = []


# a DOES> part begun outside a definition -> the word made by CREATE it is for (given its code at ;)
_INTERPRETED: "WeakKeyDictionary[Colon, object]" = WeakKeyDictionary()
# a DOES> part read from a source -> (its defining word, the defining word's lines up to DOES>)
_DOES_OF: "WeakKeyDictionary[Colon, tuple[Colon, list[str]]]" = WeakKeyDictionary()


def _interpreted_does(f: "Forth", tok: Token) -> None:
    """DOES> at the prompt, as gforth runs it: `CREATE r 1 , 2 ,  DOES> SWAP CELLS + @ ;` starts a
    nameless definition that, at its ;, becomes the code of the word CREATE made last."""
    last = f.last_defined
    if _data_address(last) is None:
        raise ForthError("DOES> outside a definition gives the word CREATE made last its code, but the last word "
                         "defined was not made by CREATE: `CREATE name ... DOES> ... ;`", tok.pos, tok.text)
    if f.frames:
        raise ForthError(f"`{tok.text}` cannot start inside an open control structure", tok.pos, tok.text)
    does = Colon(f"{last.name} DOES>", [], tok.pos, anonymous=True, source=tok.pos.text,
                 prelude=f.reader.name == "prelude.fth")
    _INTERPRETED[does] = last
    f.colon = does
    f.colon_start = (f.reader, tok.pos)
    f.colon_text = []


def _data_address(word: object) -> int | None:
    """The data address of a word made by CREATE (one DOES> changed included), else None."""
    if isinstance(word, Colon):
        return word.body_addr
    return word.value if isinstance(word, Constant) and word.created else None  # type: ignore[return-value]


def _give_code(f: "Forth", last: object, does: Colon, pos) -> None:
    """The word `last` made by CREATE becomes: push its data address, then run `does`."""
    addr = _data_address(last)
    assert addr is not None and isinstance(last, (Colon, Constant))
    word = f.make_word(last.name, [Lit(addr, pos), Call(does, pos)], body_addr=addr, immediate=last.immediate)
    for wordlist in f.wordlists:  # the word list CREATE put it in
        if wordlist.get(word.name.upper()) is last:
            wordlist[word.name.upper()] = word
    f.last_defined = word


def _run_does(f: "Forth", node: HostOp) -> object:
    """DOES> as its defining word runs: the word CREATE made last gets the
    code after DOES>, called with its data address; the defining word ends."""
    last = f.last_defined
    if _data_address(last) is None:
        raise ForthError("DOES> changes the word CREATE made last, but the last word defined was not made by "
                         "CREATE; call CREATE first in the defining word", node.pos, "DOES>")
    _give_code(f, last, node.arg, node.pos)  # type: ignore[arg-type]
    return EXIT


@host(">BODY", "( xt -- addr )", "The data address of a word made by CREATE.", "CREATE t 7 , ' t >BODY @ . \\ 7",
      wordset="CORE")
def w_to_body(f: "Forth", tok: Token) -> None:
    (xt,) = f.pop_uniform(1, ">BODY")
    entry = f.tokens.entry_of(xt, ">BODY")
    addr = entry.body_addr if isinstance(entry, Colon) else (entry.value if getattr(entry, "created", False)
                                                             else None)
    if addr is None:
        raise ForthError(f">BODY: {entry.name} has no data field; >BODY takes the token of a word made by "
                         "CREATE (or VALUE, DEFER)")
    f.push_uniform(addr)


def _data_word(f: "Forth", tok: Token, value: int, kind: str, tail: list[str]) -> None:
    name = _name(f, tok)
    _align(f)
    addr = _allot(f, 8)
    f.write_cell(addr, value)
    at = None if kind == "defer" else name.pos  # a DEFER's EXECUTE fails where the DEFER word is called
    word = f.make_word(name.text, [Lit(addr, at)] + [Prim(PRIMS[w], at) for w in tail], body_addr=addr,
                       data_kind=kind)
    word.pos = name.pos
    f.define(word)


@host("VALUE", '( x "name" -- )', "Define a word that pushes x; change it with TO.", "5 VALUE v  7 TO v  v . \\ 7",
      wordset="CORE-EXT", parses=Parse(NEW, defines="colon"))
def w_value(f: "Forth", tok: Token) -> None:
    (v,) = f.pop_uniform(1, "VALUE")
    _data_word(f, tok, v, "value", ["@"])


@host("DEFER", '( "name" -- )', "Define a word that runs the word it is set to with IS.", "DEFER act  ' DUP IS act",
      wordset="CORE-EXT", parses=Parse(NEW, defines="colon"))
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


@host("DEFER@", "( xt1 -- xt2 )", "The token a DEFER word runs.", "DEFER a ' DUP IS a ' a DEFER@ ' DUP = . \\ -1",
      wordset="CORE-EXT")
def w_defer_fetch(f: "Forth", tok: Token) -> None:
    (xt,) = f.pop_uniform(1, "DEFER@")
    f.push_uniform(f.read_cell(_defer_cell(f, xt, "DEFER@")))


@host("DEFER!", "( xt2 xt1 -- )", "Set the DEFER word of xt1 to run xt2.", "DEFER a ' DUP ' a DEFER!",
      wordset="CORE-EXT")
def w_defer_store(f: "Forth", tok: Token) -> None:
    new, xt = f.pop_uniform(2, "DEFER!")
    f.write_cell(_defer_cell(f, xt, "DEFER!"), new)


def _defer_cell(f: "Forth", xt: int, word: str) -> int:
    entry = f.tokens.entry_of(xt, word)
    if not isinstance(entry, Colon) or entry.data_kind != "defer":
        raise ForthError(f"{word}: {entry.name} is not a DEFER word")
    return entry.body_addr


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


@immediate("+TO", '( n "name" -- )', "Add n to the VALUE (or local) named next.",
           "1 1 1 THREADS  5 VALUE v  2 +TO v  v . \\ 7", wordset="gforth", parses=NAME_NEXT)
def i_plus_to(f: "Forth", tok: Token) -> None:
    if not _local(f, tok):
        _store_into(("value",), "a VALUE", ("+!",))(f, tok)


@immediate("TO", '( x "name" -- ) or ( F: r "name" -- )', "Store in the VALUE (or FVALUE) named next.",
           "5 VALUE v  7 TO v  v . \\ 7", wordset="CORE-EXT", parses=NAME_NEXT)
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


@host("SYNONYM", '( "new" "old" -- )', "Define new as another name of old.", "SYNONYM twice 2* 5 twice . \\ 10",
      wordset="PROGRAMMING-TOOLS-EXT", parses=Parse(NEW, defines="", then=NAME_NEXT))
def w_synonym(f: "Forth", tok: Token) -> None:
    new = _name(f, tok)
    entry, _ = _entry(f, tok, "SYNONYM")
    f.wordlists[f.current - 1][new.key] = entry
    f.last_defined = entry


@host("ALIAS", '( xt "name" -- )', "Define name as another name of the word of xt (gforth's; SYNONYM by token).",
      "' 2* ALIAS twice  5 twice . \\ 10", wordset="gforth", parses=Parse(NEW, defines="colon"))  # the scanner cannot know xt: a word
def w_alias(f: "Forth", tok: Token) -> None:
    (xt,) = f.pop_uniform(1, "ALIAS")
    entry = f.tokens.entry_of(xt, "ALIAS")
    new = _name(f, tok)
    f.wordlists[f.current - 1][new.key] = entry
    f.last_defined = entry


@host("NEXTNAME", "( c-addr u -- )", "The next defining word (: CREATE CONSTANT VARIABLE ...) takes this name "
      "instead of reading one.", 'S" seven" NEXTNAME 7 CONSTANT  seven . \\ 7', wordset="gforth")
def w_nextname(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "NEXTNAME")
    name = f.read_bytes(addr, n).decode("latin-1")
    if not name or any(c.isspace() for c in name):
        raise ForthError(f"NEXTNAME: {name!r} is not a name: give one word without blanks", tok.pos, tok.text)
    f.words.next_name = name


@host("LATESTXT", "( -- xt )", "The execution token of the word defined last.",
      ": five 5 ;  LATESTXT EXECUTE . \\ 5", wordset="gforth")
def w_latestxt(f: "Forth", tok: Token) -> None:
    if f.last_defined is None:
        raise ForthError("LATESTXT: no word has been defined yet", tok.pos, tok.text)
    f.push_uniform(f.tokens.xt_of(f.last_defined))


@host("MARKER", '( "name" -- )', "Define name: running it forgets it and every word defined after it.",
      "MARKER undo : tmp 1 ; undo", wordset="CORE-EXT", parses=Parse(NEW, defines="colon"))
def w_marker(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    saved = ([dict(w) for w in f.wordlists], list(f.order), f.current, f.here, len(f.tokens), dict(f.words.names))

    def forget(f: "Forth", node: HostOp) -> None:
        wordlists, order, current, here, tokens, names = saved
        f.words.names = dict(names)  # the vocabularies' names go with their word lists
        for mine, then in zip(f.wordlists, wordlists):  # the same dicts (FORTH-WORDLIST is f.dict)
            mine.clear()
            mine.update(then)
        del f.wordlists[len(wordlists):]
        f.order, f.current, f.here = list(order), current, here
        f.tokens.forget(tokens)
    f.define(Colon(name.text, [HostOp(name.text, forget, None, name.pos)], name.pos))


immediate("IS", '( xt "name" -- )', "Set the DEFER word named next to run xt.",
          "DEFER act  ' DUP IS act  4 act . . \\ 4 4", fn=_store_into(("defer",), "a DEFER word", ("!",)),
          wordset="CORE-EXT", parses=NAME_NEXT)
immediate("ACTION-OF", '( "name" -- xt )', "The token the DEFER word named next runs.",
          "DEFER act  ' DUP IS act  ACTION-OF act ' DUP = . \\ -1",
          fn=_store_into(("defer",), "a DEFER word", ("@",)), wordset="CORE-EXT", parses=NAME_NEXT)
