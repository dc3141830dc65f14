"""Execution tokens: the numbers `'`, `[']`, `:NONAME` and DEFER hand out.

A token is XT_BASE + its index in the session's table; each dictionary entry
gets one token, kept for the session. Device code runs a token through the
switch tileforth/core/compile/xtgen.py builds from `Tokens.table()`: a colon definition
runs as itself, a primitive or a constant as a one-node definition made once;
host-level words and words that suspend are in the table as "cannot" rows,
so that executing one on the device says why.
"""
from __future__ import annotations

from typing import Any, Callable

from ..compile import layout as L
from ..compile.primitive import Primitive
from ..compile.primitives import LOOP_WORDS, RSTACK_WORDS
from ..errors import ForthError
from ..front.dictionary import Colon, Constant
from ..front.effects import body_effect
from ..front.reader import Token
from ..front.tree import Node, Prim

XT_BASE = L.XT_BASE  # tokens are XT_BASE + an index (so 0, an unset DEFER, is never one)


class Tokens:
    def __init__(self, node_for: Callable[[Any, Token], Node]) -> None:
        self.entries: list[Any] = []
        self._index: dict[int, int] = {}  # id(entry) -> index
        self._runs_as: dict[int, Colon | None] = {}  # index -> the colon the device runs (None: cannot)
        self._node_for = node_for
        self.forgotten = 0  # times MARKER took tokens back (a token may now name another word)
        self._hosted: tuple[tuple[int, int], bool] = ((0, 0), False)  # version -> a token names a host word

    @property
    def version(self) -> tuple[int, int]:
        """What a compiled kernel that reaches EXECUTE depends on (the kernel cache's key holds it)."""
        return len(self.entries), self.forgotten

    def __len__(self) -> int:
        return len(self.entries)

    def xt_of(self, entry: Any) -> int:
        """The token of a dictionary entry (made on first use)."""
        i = self._index.get(id(entry))
        if i is None:
            i = self._index[id(entry)] = len(self.entries)
            self.entries.append(entry)
        return XT_BASE + i

    def find(self, xt: int) -> Any:
        """The entry a token names, or None."""
        i = xt - XT_BASE
        return self.entries[i] if 0 <= i < len(self.entries) else None

    def entry_of(self, xt: int, word: str) -> Any:
        """The entry a token names, or a ForthError that says what to do."""
        entry = self.find(xt)
        if entry is None:
            raise ForthError(f"{word}: {xt} is not an execution token; get one with ' or [']")
        return entry

    def forget(self, count: int) -> None:
        """Keep only the first `count` tokens (MARKER)."""
        if count < len(self.entries):
            self.forgotten += 1
        for e in self.entries[count:]:
            self._index.pop(id(e), None)
        for i in [i for i in self._runs_as if i >= count]:
            del self._runs_as[i]
        del self.entries[count:]

    def table(self) -> list[tuple[int, Colon | None, int]]:
        """EXECUTE's table for device code: (token, the colon that runs it or None, why not)."""
        return [self.row(XT_BASE + i) for i in range(len(self.entries))]

    def names_host_words(self) -> bool:
        """Some token names a word that device code cannot run because it runs on the host or waits
        for the warp or the block: at one thread the host walks what reaches EXECUTE then
        (tileforth/core/session/hostexec.py)."""
        version, hit = self._hosted
        if version != self.version:
            hit = any(self.row(XT_BASE + i)[2] in (L.XT_HOST, L.XT_SUSPENDS) for i in range(len(self.entries)))
            self._hosted = (self.version, hit)
        return hit

    def row(self, xt: int) -> tuple[int, Colon | None, int]:
        """One token's row of the table (a token that names no entry: no colon, XT_UNKNOWN)."""
        i = xt - XT_BASE
        if not 0 <= i < len(self.entries):
            return xt, None, L.XT_UNKNOWN
        e = self.entries[i]
        if isinstance(e, Colon) and e.open:  # a :NONAME being defined: nothing to run yet
            return xt, None, L.XT_UNKNOWN
        if i not in self._runs_as:
            word = None
            if isinstance(e, Colon):
                word = e
            elif isinstance(e, (Primitive, Constant)) and not getattr(e, "takes_literal", False):
                node = self._node_for(e, Token(e.name, None)) if isinstance(e, Constant) else Prim(e, None)
                word = Colon(e.name, [node], None, prelude=True)
                word.effect = body_effect(word.body)
            self._runs_as[i] = word
        word = self._runs_as[i]
        if isinstance(e, Primitive) and (e.name in RSTACK_WORDS or e.name in LOOP_WORDS):
            return xt, None, L.XT_FRAME
        if word is None or word.host:
            return xt, None, L.XT_HOST
        if word.suspends:
            return xt, None, L.XT_SUSPENDS
        return xt, word, 0
