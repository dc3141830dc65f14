"""The one way a host word, an immediate word or a built-in constant is declared.

Each declaration names the word, its stack effect, help, example, the
Forth-2012 word set that defines it (wordsets.py holds the standard's lists;
"gforth" or "tileforth" for a word of neither) and what it reads from the
source after its name (a `Parse` of tileforth/core/front/dictionary.py). The
same table fills a session's dictionary (`WordTable.install`), the word
reference (HELP, docs/words.md: tileforth/core/session/reference.py), the words
only there to refuse (wordsets.REFUSED) and the REPL's scanner, which reads the
`parses` of the dictionary's entries (tileforth/repl/scan.py). As the
primitives' registry (tileforth/core/compile/primitives.py), a declaration is a
decorator over the word's function or, with `fn` given, a table row:

    @host("CONSTANT", "( x -- )", "Define a word that pushes x.", "42 CONSTANT answer",
          wordset="CORE", parses=NEW_NAME)
    def w_constant(f, tok): ...

    host("R/O", "( -- fam )", "The file access method read-only (0).", "R/O . \\\\ 0", fn=_fam(R_O),
         wordset="FILE", compiled="0")

A host word's function runs between launches, `fn(f, tok)`; an immediate
word's acts on the code being built. The modules of this package declare
their words when they are imported (tileforth/core/session/words/__init__.py
imports them all, in the reference's order).
"""
from __future__ import annotations

from typing import Callable, Iterator

from ...front.dictionary import (
    COMMENT,
    COMPILING,
    FILE,
    INTERPRETING,
    LOCALS,
    NAME,
    NEW,
    READ,
    RUNS,
    RUNTIME,
    TEXT,
    WORD,
    Constant,
    HostWord,
    Immediate,
    Parse,
)
from ...records import record, replace

HOST_GROUP = "Host words (run between launches)"
IMMEDIATE_GROUP = "Control structures, definitions and parsing words"
OWN_SETS = ("gforth", "tileforth")  # the word set of a word the standard does not have: gforth's, or tileforth's

# what the words of this package read after their names, by the declarations' names for them
NEW_NAME = Parse(NEW)  # CONSTANT VARIABLE CREATE ...
NAME_NEXT = Parse(NAME)  # ' POSTPONE TO ...
NAME_ON_LINE = Parse(NAME, same_line=True)  # SEE HELP .M ...: a name on the same line only
FILE_NAME = Parse(FILE)  # INCLUDE REQUIRE
NEXT_WORD = Parse(WORD)  # CHAR PARSE-NAME: the next word, as text
RUNTIME_INPUT = Parse(RUNTIME)  # WORD PARSE REFILL RESTORE-INPUT [IF]: only running it tells


def text(end: str, escapes: bool = False) -> Parse:
    """Text up to `end` on the same line (S" ." .( ABORT")."""
    return Parse(TEXT, end=end, escapes=escapes)


def comment(end: str = "", lines: bool = False) -> Parse:
    """A comment up to `end` (over lines with `lines`), or to the line's end."""
    return Parse(COMMENT, end=end, lines=lines)


def local_names(close: str, when: str) -> Parse:
    """The names of locals, up to the word `close`."""
    return Parse(LOCALS, when, end=close)


@record(eq=False)
class BuiltinConstant:
    """A constant every session has (the element types, BASE, STATE): its
    declaration; the dictionary holds a `Constant` made from it, with the
    session's own address for BASE and STATE."""

    name: str
    effect: str
    help: str
    example: str
    group: str
    wordset: str
    value: int | None = None  # None: an address of the session, given to WordTable.install

    @property
    def kind(self) -> str:
        return "constant"

    def entry(self, value: int) -> Constant:
        return Constant(self.name, value, help=f"{self.effect} {self.help}")


Row = HostWord | Immediate | BuiltinConstant


class WordTable:
    """Every declared word by name, in the order of declaration (the reference's order)."""

    def __init__(self) -> None:
        self.rows: dict[str, Row] = {}

    def _add(self, row: Row) -> Row:
        key = row.name.upper()
        if key in self.rows:
            raise ValueError(f"{row.name} is declared twice")
        self.rows[key] = row
        return row

    def host(self, name: str, effect: str, help: str, example: str = "", fn: Callable | None = None, *,
             wordset: str, parses: Parse | None = None, compiled: str | None = None, group: str = HOST_GROUP,
             refuses: str = "") -> Callable[[Callable], Callable]:
        """Declare a host word: as a decorator over `fn(f, tok)`, or with `fn` given (a table row).
        `compiled`: Forth source compiled in its place inside definitions; `refuses`: why it is
        there only to refuse (not counted in its word set)."""
        if parses is not None and not parses.when:
            parses = replace(parses, when=RUNS)

        def register(word_fn: Callable) -> Callable:
            self._add(HostWord(name, effect, help, word_fn, example, compiled, group, wordset, parses, refuses))
            return word_fn
        if fn is not None:
            register(fn)
        return register

    def immediate(self, name: str, effect: str, help: str, example: str = "", fn: Callable | None = None, *,
                  wordset: str, parses: Parse | None = None, control: int | None = None,
                  group: str = IMMEDIATE_GROUP) -> Callable[[Callable], Callable]:
        """Declare an immediate word, as `host` does; `control`: a control-structure word, with the
        entries it adds to the control-flow stack (ELSE 0, THEN -1)."""
        if parses is not None and not parses.when:
            parses = replace(parses, when=READ)

        def register(word_fn: Callable) -> Callable:
            self._add(Immediate(name, effect, help, word_fn, example, group, wordset, parses, control))
            return word_fn
        if fn is not None:
            register(fn)
        return register

    def constant(self, name: str, effect: str, help: str, example: str, *, wordset: str, group: str,
                 value: int | None = None) -> None:
        """Declare a built-in constant: its value, or None for an address the session gives at install."""
        self._add(BuiltinConstant(name, effect, help, example, group, wordset, value))

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows.values())

    def __len__(self) -> int:
        return len(self.rows)

    def of(self, kind: type) -> list:
        """The rows of one kind (HostWord, Immediate, BuiltinConstant), in order."""
        return [r for r in self.rows.values() if isinstance(r, kind)]

    def install(self, dictionary: dict, **addresses: int) -> None:
        """Put every word into a session's dictionary; `addresses`: the session's value of each
        constant declared without one (BASE, STATE)."""
        for key, row in self.rows.items():
            if isinstance(row, BuiltinConstant):
                value = row.value if row.value is not None else addresses[row.name]
                dictionary[key] = row.entry(value)
            else:
                dictionary[key] = row


WORDS = WordTable()
host = WORDS.host
immediate = WORDS.immediate
constant = WORDS.constant

__all__ = ["WORDS", "WordTable", "BuiltinConstant", "host", "immediate", "constant", "text", "comment",
           "local_names", "NEW_NAME", "NAME_NEXT", "NAME_ON_LINE", "FILE_NAME", "NEXT_WORD", "RUNTIME_INPUT",
           "Parse", "NEW", "NAME", "FILE", "WORD", "TEXT", "COMMENT", "LOCALS", "RUNTIME", "RUNS", "READ",
           "INTERPRETING", "COMPILING", "OWN_SETS"]
