"""What the builder works with while code is being built (parts.py's Builder holds it): the open
control structures (`Frame`, with what opens and closes each kind, for the errors) and the text of
the definition being compiled (SEE's source).

The interpreter and the control words (words/control.py, words/definitions.py) use these; the
session is named through the protocol of api.py (this module is below interpreter.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import SourcePos
from ..front.reader import Reader, Token
from ..front.tree import Node
from ..records import field, record

if TYPE_CHECKING:
    from .api import Session as Forth


@record
class Frame:
    """An open control structure while code is being built."""

    kind: str  # if else begin while while2 do case of endof, dest rest (CS-PICK), orig fdest (jumps: CS-ROLL)
    pos: SourcePos
    a: list[Node] = field(default_factory=list)
    b: list[Node] = field(default_factory=list)
    query: bool = False
    exit: list[Node] = field(default_factory=list)  # a WHILE's exit path, after REPEAT or ELSE (see i_repeat)
    exiting: bool = False
    label: int = 0  # orig, fdest: the Label their jumps go to (their `a` is the list the jumps are in)

    def items(self) -> list[Node]:
        if self.exiting:
            return self.exit
        return self.b if self.kind in ("else", "while", "endof") else self.a


CLOSERS = {"if": "THEN", "else": "THEN", "begin": "UNTIL, AGAIN or WHILE ... REPEAT", "while": "REPEAT",
           "while2": "REPEAT ... THEN",
           "do": "LOOP or +LOOP", "case": "ENDCASE", "of": "ENDOF", "endof": "ENDCASE",
           "dest": "UNTIL", "rest": "the loop's UNTIL or AGAIN", "orig": "THEN", "fdest": "UNTIL, AGAIN or REPEAT"}


OPENERS = {"if": "IF", "else": "ELSE", "begin": "BEGIN", "while": "WHILE", "while2": "WHILE", "do": "DO",
           "case": "CASE", "of": "OF", "endof": "OF", "dest": "CS-PICK", "rest": "a jump back made with CS-PICK",
           "orig": "IF or AHEAD", "fdest": "BEGIN"}


def definition_text(f: "Forth", reader: Reader, end: SourcePos | None = None) -> list[str] | None:
    """The open definition's lines as read so far through `reader`, up to
    `end` (or the end of the source): from its `:` in this source, or after
    the lines kept from earlier f.eval calls (Forth.colon_text, a file fed line
    by line); None when neither holds (a definition begun inside EVALUATE)."""
    stop = None if end is None else end.line - reader.first_line + 1
    start_reader, start = f.colon_start
    if start_reader is reader and start is not None:
        first = start.line - reader.first_line
        # one slice (lines[:stop][first:] is lines[first:stop] when first >= 0): no copy of the lines before
        kept, lines = [], reader.lines[first:stop] if first >= 0 else reader.lines[:stop][first:]
    elif f.colon_text and reader is f.line_reader:
        kept, start, lines = f.colon_text, None, reader.lines[:stop]
    else:
        return None
    if not lines:  # pragma: no cover - an end before the start (read_end keeps them in order)
        return None
    if end is not None:
        lines[-1] = lines[-1][:end.col]
    if start is not None:
        lines[0] = lines[0][start.col - 1:]
    return kept + lines


def read_end(reader: Reader, tok: Token) -> SourcePos:
    """Where the definition that `tok` (a `;`) ends ends in `reader`'s text, as
    definition_text's `end`: the token itself when it was just read from that text,
    else (a `;` compiled with POSTPONE, run by a word) what has been read so far."""
    pos = tok.pos
    if (pos.source == reader.name and pos.line == reader.first_line + reader.row
            and pos.col - 1 + len(tok.text) == reader.col):
        return pos
    row = min(reader.row, len(reader.lines) - 1)
    col = reader.col if row == reader.row else len(reader.lines[row])
    return SourcePos(reader.first_line + row, col, reader.lines[row], reader.name)
