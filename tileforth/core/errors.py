"""ForthError: every user-facing failure, with the source position and a hint."""
from __future__ import annotations

from .records import record


@record(frozen=True)
class SourcePos:
    """Where a token came from: 1-based line and column, and the line's text."""

    line: int
    col: int
    text: str = ""
    source: str = "<input>"

    def __str__(self) -> str:
        return f"{self.source}:{self.line}:{self.col}"


class ForthError(Exception):
    """A Forth-level error. The session keeps its state when one is raised."""

    def __init__(self, message: str, pos: SourcePos | None = None, word: str | None = None,
                 output: str = "", code: int | None = -1) -> None:
        self.message = message
        self.code = code  # the exception code CATCH gives (-1 ABORT, -4 stack underflow ...); None: not caught
        self.pos = pos
        self.word = word
        self.output = output  # what the failing line printed before the error
        super().__init__(self._render())

    @property
    def line(self) -> int | None:
        return self.pos.line if self.pos else None

    @property
    def col(self) -> int | None:
        return self.pos.col if self.pos else None

    @property
    def source_line(self) -> str | None:
        return self.pos.text if self.pos else None

    def _render(self) -> str:
        where = f"line {self.pos.line}, column {self.pos.col}: " if self.pos else ""
        return where + self.message

    def at(self, pos: SourcePos | None, word: str | None = None) -> "ForthError":
        """The same error, positioned at `pos` unless it already has a position."""
        if self.pos is not None or pos is None:
            return self
        err = ForthError(self.message, pos, word or self.word, self.output, self.code)
        return err


class Bye(Exception):
    """BYE: the program asked to end the session (the REPL and the CLI stop;
    `output` is what the line printed before it)."""

    def __init__(self, output: str = "") -> None:
        super().__init__("BYE")
        self.output = output


SESSION_CLOSED = "this session is closed (Forth.close): make a new one, Forth(), to go on"


def ranges(ids: list[int]) -> str:
    """Thread numbers as messages and output show them: [0,1,2,5] -> '0-2, 5'."""
    if not ids:
        return ""
    parts = []
    start = prev = ids[0]
    for i in ids[1:] + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
        if i is not None:
            start = prev = i
    return ", ".join(parts)
