"""`WORDS` and `SEE` as the REPL shows them.

WORDS lists the user's own words first, newest first (as gforth does), then
the built-in words by their group in the word reference (docs/words.md)::

    your words, newest first:
      cube sq
    Stack:
      ?DUP DROP DUP NIP OVER ...

Every `Session` (the REPL, `tileforth FILE`, stdin) puts this WORDS in its
dictionary in place of the plain one (`Forth.eval("WORDS")` from Python
lists every name in alphabetical order).  A word is the user's when the
dictionary's entry for its name is not the one the session started with: a
redefined built-in counts as the user's.  The dictionary keeps the newest
definition last, so its order is the order of definition.

SEE shows a colon definition's inferred header once, then its body: the core's
plain record repeats `: name` (the header, then the source as typed).
"""

from __future__ import annotations

import textwrap
from typing import ClassVar

from tileforth.core.front.dictionary import HostWord
from tileforth.core.records import field, record, replace
from tileforth.core.session.views import WIDTH, Lines, View

USER_HEADING = "your words, newest first:"
NO_USER_WORDS = "no words of your own yet (define one: `: sq DUP * ;`)"
OTHER_GROUP = "Other words"
INDENT = "  "


@record
class WordList(View):
    """The dictionary for WORDS: the user's words, then built-ins by group."""

    kind: ClassVar[str] = "words"
    user: list[str] = field(default_factory=list)  # newest first
    groups: list[tuple[str, list[str]]] = field(default_factory=list)

    def lines(self, width: int = WIDTH) -> Lines:
        def words(names: list[str]) -> Lines:
            text = " ".join(names)
            return [[(ln, "code")] for ln in textwrap.wrap(text, max(20, width), initial_indent=INDENT,
                                                            subsequent_indent=INDENT, break_long_words=False,
                                                            break_on_hyphens=False)]

        out: Lines = []
        if self.user:
            out += [[(USER_HEADING, "name")]] + words(self.user)
        else:
            out.append([(NO_USER_WORDS, "note")])
        for group, names in self.groups:
            out += [[(group + ":", "head")]] + words(names)
        return out


def word_list(forth, builtin: dict[str, object]) -> WordList:
    """The dictionary of `forth` for WORDS; `builtin`: its entries when the session started."""
    ref = forth.reference()
    user: list[str] = []
    grouped: dict[str, list[str]] = {}
    order = {}  # each group where the reference first names it: the reference's order of topics
    for i, entry in enumerate(ref.values()):
        order.setdefault(entry.group, i)
    for key, entry in forth.dict.items():
        if builtin.get(key) is not entry:
            user.append(getattr(entry, "name", key))
            continue
        r = ref.get(key)
        grouped.setdefault(r.group if r is not None else OTHER_GROUP, []).append(r.name if r is not None else key)
    groups = sorted(grouped.items(), key=lambda kv: order.get(kv[0], len(order)))
    return WordList(user[::-1], [(g, sorted(names, key=str.upper)) for g, names in groups])


def install(forth) -> None:
    """Put the REPL's WORDS into `forth`'s dictionary (its position and help stay)."""
    from tileforth.core.session.words.inspection import show

    old = forth.dict.get("WORDS")
    if not isinstance(old, HostWord) or getattr(old, "repl", False):
        return

    def w_words(f, tok) -> None:
        show(f, word_list(f, builtin))

    # the table's WORDS (its effect, group, word set) with the REPL's list
    word = replace(old, fn=w_words, help="List the dictionary: your words first, newest first, then the "
                   "built-in words by group.")
    word.repl = True  # the REPL's own: installed once
    forth.dict["WORDS"] = word
    builtin = dict(forth.dict)


# ---- SEE ---------------------------------------------------------------------------------
def definition_lines(view) -> Lines:
    """A `see` record (tileforth/core/session/views.Definition) with its header once:
    `: name ( effects )`, then the body as typed without its own `: name`."""
    body = view.source.strip("\n").splitlines()
    if body:
        parts = body[0].split(None, 2)
        if len(parts) >= 2 and parts[0] == ":" and parts[1].upper() == view.word.upper():
            first = parts[2] if len(parts) > 2 else ""
            body = ([first] if first.strip() else []) + textwrap.dedent("\n".join(body[1:])).splitlines()
    lines: Lines = [[(view.header, "head")]]
    lines += [[(INDENT + ln, "code")] for ln in body]
    notes = list(view.notes)
    return lines + [[("\\ " + ln, "note")] for ln in notes]
