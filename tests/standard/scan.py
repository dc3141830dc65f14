"""Counting the tests of a test file, per line, without running it.

A test is one opener token (``T{``, or ``{`` for gforth's coretest.fs)
outside comments, strings and ``0 [IF]``/``FALSE [IF]`` blocks.  Both
systems are measured against this count, so a test that never ran (its line
failed, or the file stopped early) counts as failed.
"""

from __future__ import annotations

_STRING_WORDS = {'."', 'S"', 'C"', 'ABORT"', 'S\\"', '$"', '$2"'}
_SKIP_NEXT = {"CHAR", "[CHAR]", ":", "CREATE", "VARIABLE", "CONSTANT",
              "VALUE", "FVARIABLE", "FCONSTANT", "2CONSTANT", "2VARIABLE"}
_FALSE_FLAGS = {"0", "FALSE"}


class _Cursor:
    """The text of a file as a stream of tokens with their line index."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.row = 0
        self.col = 0

    def token(self) -> tuple[int, str] | None:
        """The next blank-delimited token and its line, or None at the end."""
        while self.row < len(self.lines):
            line = self.lines[self.row]
            while self.col < len(line) and line[self.col].isspace():
                self.col += 1
            if self.col < len(line):
                start = self.col
                while self.col < len(line) and not line[self.col].isspace():
                    self.col += 1
                return self.row, line[start:self.col]
            self.row, self.col = self.row + 1, 0
        return None

    def skip_line(self) -> None:
        self.row, self.col = self.row + 1, 0

    def skip_past(self, char: str, *, across_lines: bool) -> None:
        """Skip the text up to and including `char` (or to the end of the
        line, unless `across_lines`)."""
        while self.row < len(self.lines):
            found = self.lines[self.row].find(char, self.col)
            if found >= 0:
                self.col = found + 1
                return
            self.skip_line()
            if not across_lines:
                return

    def skip_false_branch(self) -> None:
        """Skip to the [ELSE] or [THEN] that ends a false [IF] (nesting)."""
        depth = 0
        while (tok := self.token()) is not None:
            word = tok[1].upper()
            if word == "[IF]":
                depth += 1
            elif word == "[THEN]" and depth:
                depth -= 1
            elif word in ("[ELSE]", "[THEN]") and not depth:
                return
            elif word == "\\":
                self.skip_line()


def tests_per_line(lines: list[str], opener: str = "T{") -> list[int]:
    """How many tests (opener tokens) each line starts."""
    counts = [0] * len(lines)
    cur = _Cursor(lines)
    previous = ""
    opener = opener.upper()
    while (tok := cur.token()) is not None:
        row, text = tok
        word = text.upper()
        if word == opener:
            counts[row] += 1
        elif word in ("\\", "TESTING"):
            cur.skip_line()
        elif word in ("(", ".("):
            cur.skip_past(")", across_lines=True)
        elif word in _STRING_WORDS:
            cur.skip_past('"', across_lines=False)
        elif word in _SKIP_NEXT:
            cur.token()
        elif word == "[IF]" and previous in _FALSE_FLAGS:
            cur.skip_false_branch()
        previous = word
    return counts


def defined_names(lines: list[str]) -> set[str]:
    """The names a file defines (after `:` CREATE VARIABLE CONSTANT ...),
    upper-cased: an unknown word among them failed on an earlier line."""
    names: set[str] = set()
    cur = _Cursor(lines)
    while (tok := cur.token()) is not None:
        if tok[1].upper() in _SKIP_NEXT - {"CHAR", "[CHAR]"}:
            name = cur.token()
            if name is not None:
                names.add(name[1].upper())
        elif tok[1] == "\\":
            cur.skip_line()
    return names
