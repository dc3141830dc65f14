"""The text interpreter's input, as Forth words see it (Forth-2012 6.1 and 11):

    SOURCE  >IN  WORD  PARSE  PARSE-NAME  REFILL  SOURCE-ID
    EVALUATE  INCLUDED  INCLUDE  REQUIRED  REQUIRE

The interpreter reads its input with a `Reader` (tileforth/core/front/reader.py); these
words show the reader's current line to Forth code as memory: SOURCE copies
the line into the session's input buffer (host memory the device can read:
a string given to EVALUATE is shown at its own address instead), and `>IN`
is a cell holding the reader's offset in it. The offset is written when
`>IN` is taken and read back before the next word is read, so `0 >IN !`
rescans the line as in any Forth. All of them run on the host.

While a block is interpreted (LOAD, blockwords.py) the reader is a
`BlockReader`: SOURCE is the block's buffer, REFILL goes on to the next
block, SAVE-INPUT saves the block number, and BLK (a cell the block words
keep) holds the block's number; EVALUATE and INCLUDED set it to 0 while
they run.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..errors import ForthError
from ..front.dictionary import HostWord
from ..front.reader import Reader, Token
from ..lazy import np
from .hostwords import _name

if TYPE_CHECKING:
    from .interpreter import Forth

INPUT_BYTES = 1 << 16  # the input buffer: the longest line SOURCE can show, then the >IN cell and WORD's buffer
WORD_BYTES = 256


class InputBuffer:
    """Where SOURCE, >IN and WORD put what they show (one allocation per session)."""

    def __init__(self, f: "Forth") -> None:
        self.addr = f.backend.alloc(INPUT_BYTES + 8 + WORD_BYTES)
        self.in_cell = self.addr + INPUT_BYTES
        self.word_buf = self.in_cell + 8
        self.shown: tuple | None = None  # (reader, row) whose line is in the buffer
        self.live: tuple | None = None  # (reader, row) whose >IN cell is in use (sync_in, note_in)
        self.written = 0  # what the host last wrote there


def _buffer(f: "Forth") -> InputBuffer:
    if f.input is None:
        f.input = InputBuffer(f)
    return f.input


def block_of(r: Reader | None) -> int:
    """The block a reader interprets (BLK): 0 unless it is a blockwords.BlockReader."""
    return getattr(r, "blk", 0)


def show_blk(f: "Forth", r: Reader) -> None:
    """Bring BLK up to date with the input `r` (once the block words have made the cell)."""
    if f.blocks is not None:
        f.blocks.show_blk(f, block_of(r))


def source(f: "Forth") -> tuple[int, int, str]:
    """The current line: its address, length and text (copied into the input buffer once)."""
    r = f.reader
    line = r.lines[r.row] if r.row < len(r.lines) else ""
    data = line.encode("latin-1", "replace")
    if getattr(r, "addr", None) is not None:  # EVALUATE's string: shown where it is
        return r.addr, len(data), line
    if block_of(r):  # a block: its buffer (read again if it was reassigned meanwhile)
        return r.address(f), len(data), line
    buf = _buffer(f)
    if len(data) > INPUT_BYTES:
        raise ForthError(f"SOURCE: the line is {len(data)} characters, more than the {INPUT_BYTES} the input "
                         "buffer holds; split it")
    if buf.shown != (r, r.row):
        if data:
            f.backend.write(buf.addr, np.frombuffer(data, np.uint8))
        buf.shown = (r, r.row)
    return buf.addr, len(data), line


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


def w_source(f: "Forth", tok: Token) -> None:
    addr, n, _ = source(f)
    f.push_uniform(addr, n)


def w_to_in(f: "Forth", tok: Token) -> None:
    buf = _buffer(f)
    source(f)
    buf.written = offset(f)
    f.write_cell(buf.in_cell, buf.written)
    buf.live = (f.reader, f.reader.row)
    f.push_uniform(buf.in_cell)


def _parse(f: "Forth", delim: str, skip_leading: bool) -> tuple[int, int]:
    """Parse the current line from the reader's offset: (offset, length) of the text up to `delim`."""
    addr, _, line = source(f)
    r = f.reader
    i = offset(f)
    blank = delim == " "

    def is_delim(c: str) -> bool:
        return c.isspace() if blank else c == delim
    if skip_leading:
        while i < len(line) and is_delim(line[i]):
            i += 1
    start = i
    while i < len(line) and not is_delim(line[i]):
        i += 1
    r.col = i + 1 if i < len(line) else i  # past the delimiter
    r.past_delimiter = True
    return start, i - start


def w_parse(f: "Forth", tok: Token) -> None:
    (c,) = f.pop_uniform(1, "PARSE")
    start, n = _parse(f, chr(c & 0xFF), skip_leading=False)
    f.push_uniform(source(f)[0] + start, n)


def w_parse_name(f: "Forth", tok: Token) -> None:
    start, n = _parse(f, " ", skip_leading=True)
    f.push_uniform(source(f)[0] + start, n)


def w_word(f: "Forth", tok: Token) -> None:
    (c,) = f.pop_uniform(1, "WORD")
    start, n = _parse(f, chr(c & 0xFF), skip_leading=True)
    text = source(f)[2][start:start + n].encode("latin-1", "replace")[:WORD_BYTES - 2]
    buf = _buffer(f)
    f.backend.write(buf.word_buf, np.frombuffer(bytes([len(text)]) + text + b" ", np.uint8))
    f.push_uniform(buf.word_buf)


def w_refill(f: "Forth", tok: Token) -> None:
    r = f.reader
    if block_of(r):
        f.push_uniform(-1 if r.refill(f) else 0)
        return
    if getattr(r, "addr", None) is None and r.row + 1 >= len(r.lines) and r is f.line_reader \
            and f.more_input is not None:  # the line f.eval was given: the next comes from more_input
        line = f.more_input()
        if line is not None:
            r.lines.append(line)
    if getattr(r, "addr", None) is not None or r.row + 1 >= len(r.lines):
        f.push_uniform(0)  # EVALUATE's string has no next line; at the prompt, the next line is the user's
        return
    r.row += 1
    r.col = 0
    r.past_delimiter = True
    f.push_uniform(-1)


def w_save_input(f: "Forth", tok: Token) -> None:
    r = f.reader
    f.push_uniform(block_of(r) or r.row, offset(f), 2)  # in a block: the block, else the line


def w_restore_input(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "RESTORE-INPUT")
    if n != 2:
        f.pop_uniform(max(n, 0), "RESTORE-INPUT")
        f.push_uniform(-1)  # not what SAVE-INPUT saved here: refused
        return
    row, col = f.pop_uniform(2, "RESTORE-INPUT")
    r = f.reader
    if block_of(r):
        if not r.restore(f, row, col):
            f.push_uniform(-1)
            return
    elif not 0 <= row < len(r.lines):
        f.push_uniform(-1)
        return
    else:
        r.row, r.col = row, col
        r.past_delimiter = True
    if f.input is not None:
        f.input.live = None
    f.push_uniform(0)


def w_source_id(f: "Forth", tok: Token) -> None:
    """-1 in EVALUATE, the file id in INCLUDE-FILE (filewords.py sets it), else 0."""
    r = f.reader
    f.push_uniform(-1 if getattr(r, "addr", None) is not None else getattr(r, "source_id", None) or 0)


def interpret(f: "Forth", reader: Reader) -> None:
    """Interpret all of `reader` as part of the current line (EVALUATE, INCLUDED, LOAD)."""
    saved = f.reader
    f.reader = reader
    show_blk(f, reader)
    line = None
    try:
        while True:
            sync_in(f)
            t = reader.next_token()
            if t is None:
                break
            if t.pos.line != line:  # a new line of a file (or of a string with newlines): as at the
                if line is not None and (f.interpreting or (f.colon is None and not f.frames)):  # prompt,
                    f.flush_segment()  # the last one's device words run as it ends (a launch of its own)
                line = t.pos.line
            note_in(f)
            f._token(t)
        if f.blocks is not None and block_of(reader) != block_of(saved):
            f.flush_segment()  # its device code reads BLK as it is now
    finally:
        f.reader = saved
        show_blk(f, saved)


def w_evaluate(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "EVALUATE")
    if n < 0:
        raise ForthError(f"EVALUATE needs a length of 0 or more, got {n}")
    text = f.read_bytes(addr, n).decode("latin-1")
    reader = Reader(text, "<evaluate>")
    reader.addr = addr  # SOURCE shows the string where it is
    interpret(f, reader)


def _include(f: "Forth", path_text: str, word: str, once: bool) -> None:
    from pathlib import Path  # imported by the first INCLUDE (import tileforth.core stays lean)

    path = Path(os.path.expanduser(path_text))
    key = str(path.resolve())
    if once and key in f.included:
        return
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ForthError(f"{word}: cannot read {path_text}: {getattr(exc, 'strerror', None) or exc}") from None
    f.included.add(key)
    interpret(f, Reader(text, str(path)))


def _string(f: "Forth", word: str) -> str:
    addr, n = f.pop_uniform(2, word)
    return f.read_bytes(addr, n).decode("utf-8", "replace")


def w_included(f: "Forth", tok: Token) -> None:
    _include(f, _string(f, "INCLUDED"), "INCLUDED", once=False)


def w_required(f: "Forth", tok: Token) -> None:
    _include(f, _string(f, "REQUIRED"), "REQUIRED", once=True)


def w_include(f: "Forth", tok: Token) -> None:
    _include(f, _name(f, tok).text, "INCLUDE", once=False)


def w_require(f: "Forth", tok: Token) -> None:
    _include(f, _name(f, tok).text, "REQUIRE", once=True)


def w_accept(f: "Forth", tok: Token) -> None:
    """ACCEPT reads the next line of the user input device: what a program
    feeding lines hands over through Forth.more_input (the standard runner
    gives the file's next line, as gforth reading a file on stdin does)."""
    addr, n = f.pop_uniform(2, "ACCEPT")
    if f.more_input is None:
        _no_keyboard("ACCEPT")(f, tok)
    data = (f.more_input() or "").encode("latin-1", "replace")[:max(n, 0)]
    if data:
        f.backend.write(addr, np.frombuffer(data, np.uint8))
    f.push_uniform(len(data))


def _no_keyboard(name: str):
    def fn(f: "Forth", tok: Token) -> None:
        raise ForthError(f"{name} reads the keyboard, which tileforth's words cannot: a line runs on the device as "
                         "a whole. Put the data in the source (numbers, S\" ...\") or in an array (LOAD-NPY)",
                         tok.pos, tok.text)
    return fn


HOST_WORDS: list[HostWord] = [
    HostWord("SOURCE", "( -- c-addr u )", "The line being interpreted.", w_source, "SOURCE NIP 0> . \\ -1"),
    HostWord(">IN", "( -- addr )", "The cell holding the offset of the next character to read in SOURCE.", w_to_in,
             ">IN @ 0> . \\ -1"),
    HostWord("WORD", '( char "<chars>ccc<char>" -- c-addr )', "Parse a word delimited by char into a counted "
             "string (leading delimiters skipped).", w_word, "BL WORD hello COUNT TYPE \\ hello"),
    HostWord("PARSE", '( char "ccc<char>" -- c-addr u )', "Parse text up to char.", w_parse,
             "CHAR ) PARSE abc) TYPE \\ abc"),
    HostWord("PARSE-NAME", '( "<spaces>name" -- c-addr u )', "Parse the next word.", w_parse_name,
             "PARSE-NAME hello TYPE \\ hello"),
    HostWord("REFILL", "( -- flag )", "Go on to the next line of the source; false at its end.", w_refill,
             "REFILL DROP"),
    HostWord("SAVE-INPUT", "( -- x1 x2 2 )", "Save the position in the input, for RESTORE-INPUT.", w_save_input,
             "SAVE-INPUT DROP 2DROP"),
    HostWord("RESTORE-INPUT", "( x1 x2 2 -- flag )", "Go back to a position SAVE-INPUT saved in the same "
             "source; false on success.", w_restore_input, "SAVE-INPUT RESTORE-INPUT DROP"),
    HostWord("SOURCE-ID", "( -- 0 | -1 )", "0 when the input is the user's, -1 in EVALUATE.", w_source_id,
             "SOURCE-ID . \\ 0"),
    HostWord("EVALUATE", "( c-addr u -- )", "Interpret a string as if it were typed.", w_evaluate,
             'S" 2 3 +" EVALUATE . \\ 5'),
    HostWord("INCLUDED", "( c-addr u -- )", "Interpret the file whose name is the string.", w_included,
             'S" lib.fth" INCLUDED'),
    HostWord("INCLUDE", '( "name" -- )', "Interpret the file named next.", w_include, "INCLUDE lib.fth"),
    HostWord("REQUIRED", "( c-addr u -- )", "INCLUDED, unless the file was included already.", w_required,
             'S" lib.fth" REQUIRED'),
    HostWord("REQUIRE", '( "name" -- )', "INCLUDE, unless the file was included already.", w_require,
             "REQUIRE lib.fth"),
    HostWord("KEY", "( -- char )", "Not available: there is no keyboard in a launch (an error says what to do).",
             _no_keyboard("KEY"), ""),
    HostWord("ACCEPT", "( c-addr +n -- +n )", "Read a line of at most n characters into c-addr: the next line "
             "a program feeding lines hands over (Forth.more_input); there is no keyboard in a launch.",
             w_accept, ""),
]
