""">IN kept in step with the reader: while Forth code uses `>IN` on a line, the interpreter moves
its reader to what Forth code stored there (sync_in) and stores where the reader is after each word
(note_in). The text-input words are in words/textin.py; the interpreter calls these between words.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import np
from .hostbound import reread

if TYPE_CHECKING:
    from .api import Session as Forth


def sync_in(f: "Forth") -> None:
    """Before the interpreter reads on, while `>IN` is in use on this line: a
    value Forth code stored there moves the reader."""
    buf = f.input
    if buf is None or buf.live is None:
        return
    r, row = buf.live
    if r is not f.reader or r.row != row:
        buf.live = None
        return
    f.flush_segment()
    col = int(f.backend.read(buf.in_cell, 8).view(np.int64)[0])
    if col != buf.written:
        if col < buf.written:  # back: part of the line is read again
            reread(f, r)
        r.col = max(0, col)
        r.past_delimiter = True


def note_in(f: "Forth") -> None:
    """After the interpreter read a word, while `>IN` is in use: the cell follows the reader."""
    buf = f.input
    if buf is not None and buf.live is not None and buf.live[0] is f.reader:
        buf.written = offset(f)
        f.write_cell(buf.in_cell, buf.written)


def offset(f: "Forth") -> int:
    """>IN: the reader stops at the blank after a word; the standard's offset is past it."""
    r = f.reader
    line = r.lines[r.row] if r.row < len(r.lines) else ""
    return r.col + 1 if r.col < len(line) and not r.past_delimiter else r.col
