"""The session's dictionary: its word lists, the search order and where new words go.

`Dictionary` owns the word lists (FORTH-WORDLIST is wid 1, gforth's ROOT
vocabulary wid 2, ENVIRONMENT-WORDLIST wid 3, WORDLIST makes more), the names
of the vocabularies (ORDER shows them), the name NEXTNAME gave the next
definition, the search order (first searched first), the word list definitions go
into, the last word defined (IMMEDIATE and DOES> change it) and which word
each redefinition hid. A failed line restores its snapshot.
"""
from __future__ import annotations

from typing import Any

from ..records import record


@record(frozen=True)
class DictionarySnapshot:
    wordlists: tuple[dict, ...]
    order: tuple[int, ...]
    current: int
    names: tuple[tuple[int, str], ...] = ()
    last_defined: Any = None  # what IMMEDIATE marks and DOES> changes, and whether it was immediate:
    last_immediate: bool = False  # the one change a line makes to an entry in place (IMMEDIATE)


FORTH_WORDLIST, ROOT_WORDLIST, ENVIRONMENT_WORDLIST = 1, 2, 3  # the word lists every session has


class Dictionary:
    __slots__ = ("forth", "wordlists", "order", "current", "last_defined", "shadowed", "names", "next_name")

    def __init__(self) -> None:
        self.forth: dict[str, Any] = {}  # FORTH-WORDLIST (wid 1)
        # wid i+1 is wordlists[i]: FORTH-WORDLIST, ROOT's (filled when ROOT runs), ENVIRONMENT-WORDLIST's
        self.wordlists: list[dict[str, Any]] = [self.forth, {}, {}]
        self.names: dict[int, str] = {FORTH_WORDLIST: "FORTH", ROOT_WORDLIST: "ROOT",
                                      ENVIRONMENT_WORDLIST: "ENVIRONMENT"}  # the vocabularies' names
        self.next_name: str | None = None  # NEXTNAME's name for the next word defined
        self.order: list[int] = [1]  # the search order, first searched first
        self.current = 1  # the word list new definitions go into
        self.last_defined: Any = None  # what IMMEDIATE marks, DOES> changes
        self.shadowed: dict[int, tuple[Any, Any]] = {}  # id(word) -> (word, the word of its name it hides)

    def lookup(self, key: str) -> Any:
        """The entry named `key` (upper case) in the search order, or None."""
        for wid in self.order:
            entry = self.wordlists[wid - 1].get(key)
            if entry is not None:
                return entry
        return None

    def add(self, entry: Any) -> Any:
        """Put `entry` in the current word list, newest last (TRAVERSE-WORDLIST goes newest
        first); returns the entry of the same name it hides there, or None."""
        key = entry.name.upper()
        target = self.wordlists[self.current - 1]
        shadowed = target.pop(key, None)
        if shadowed is not None:
            self.shadowed[id(entry)] = (entry, shadowed)
        target[key] = entry
        self.last_defined = entry
        return shadowed

    def hidden_by(self, entry: Any) -> Any:
        """The word of the same name that `entry` hid when it was defined, or None."""
        word, hidden = self.shadowed.get(id(entry), (None, None))
        return hidden if word is entry else None

    def snapshot(self) -> DictionarySnapshot:
        last = self.last_defined
        return DictionarySnapshot(tuple(dict(w) for w in self.wordlists), tuple(self.order), self.current,
                                  tuple(self.names.items()), last, bool(getattr(last, "immediate", False)))

    def restore(self, snap: DictionarySnapshot) -> None:
        self.wordlists = [dict(w) for w in snap.wordlists]
        self.forth = self.wordlists[0]
        self.order, self.current = list(snap.order), snap.current
        self.names, self.next_name = dict(snap.names), None
        self.last_defined = snap.last_defined
        if hasattr(snap.last_defined, "immediate"):
            snap.last_defined.immediate = snap.last_immediate
