"""The text interpreter's input, as Forth words see it (Forth-2012 6.1, 6.2):
what reads the source after a word (the comments `(` and `\\`, the printed
text of `."` and `.(`, CHAR [CHAR], WORD PARSE PARSE-NAME), where the input is
(SOURCE >IN REFILL SAVE-INPUT RESTORE-INPUT SOURCE-ID) and what feeds it
(EVALUATE; KEY and ACCEPT, which have no keyboard in a launch).

SOURCE is the line being interpreted, copied into a buffer in device memory
when first asked for (INPUT_BYTES), with the >IN cell and WORD's buffer after
it; the interpreter reads >IN back before each word (sync_in) and writes it
after (note_in), so Forth code may move it."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...compile.primitives import TABLE as PRIMS
from ...errors import ForthError
from ...front.reader import Reader, Token
from ...front.tree import HostOp, Lit, Prim
from ...lazy import np
from ..inputpos import note_in, offset, sync_in  # noqa: F401 - >IN's words use them
from .table import INTERPRETING, NEW, NEXT_WORD, RUNTIME_INPUT, WORD, WORDS, Parse, comment, host, immediate, text

if TYPE_CHECKING:
    from ..interpreter import Forth


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


def _name(f: "Forth", tok: Token) -> Token:
    pending = f.words.next_name
    if pending is not None and _defines(tok):  # NEXTNAME gave the name of the next word defined
        f.words.next_name = None
        return Token(pending, tok.pos)
    nxt = f.reader.next_token()
    if nxt is None:
        raise ForthError(f"{tok.text} needs a name after it, e.g. `{tok.text} foo`", tok.pos, tok.text)
    return nxt


def _defines(tok: Token) -> bool:
    """`tok` is a word that defines a new name (its declaration reads one: `:` CREATE CONSTANT ...)."""
    parses = getattr(WORDS.rows.get(tok.key), "parses", None)
    return parses is not None and parses.reads == NEW


@immediate("(", "( -- )", "Comment up to ).", "( this is a comment )", wordset="CORE",
           parses=comment(")", lines=True))
def i_paren(f: "Forth", tok: Token) -> None:
    """A comment up to `)`. Read from a file or fed line by line to f.eval, it
    goes on over the next lines (Forth-2012 11.6.1.0080); EVALUATE's string
    and an INCLUDEd file must close their own."""
    _, found = f.reader.parse_until(")", multiline=True)
    if found:
        return
    if f.reader is f.line_reader:
        f.comment_open = tok.pos
        return
    raise ForthError("( comment is not closed: add )", tok.pos, "(")


@immediate("\\", "( -- )", "Comment to the end of the line.", "\\ a comment", wordset="CORE-EXT", parses=comment())
def i_backslash(f: "Forth", tok: Token) -> None:
    f.reader.skip_line()


@immediate('."', "( -- )", 'Print text up to " (when the code runs).', '." hello"', wordset="CORE", parses=text('"'))
def i_dot_quote(f: "Forth", tok: Token) -> None:
    text, found = f.reader.parse_until('"')
    if not found:
        raise ForthError('." needs a closing " on the same line', tok.pos, tok.text)
    f.append(Prim(PRIMS['."'], tok.pos, arg=f.strings.id_of(text)))


@immediate(".(", "( -- )", "Print text up to ) immediately.", ".( compiling...)", wordset="CORE-EXT",
           parses=text(")"))
def i_dot_paren(f: "Forth", tok: Token) -> None:
    text, found = f.reader.parse_until(")")
    f.print_text(text)


@immediate("[CHAR]", "( -- char )", "CHAR inside a definition.", ": a [CHAR] A ;", wordset="CORE", parses=NEXT_WORD)
def i_char(f: "Forth", tok: Token) -> None:
    """[CHAR], and CHAR outside definitions: the character of the next word, now."""
    t = _name(f, tok)
    f.append(Lit(ord(t.text[0]), tok.pos))


@immediate("CHAR", "( -- char )", "The code of the first character of the next word (inside a definition: "
           "the word after the definition's name when it runs; [CHAR] reads it as it compiles).", "CHAR A .",
           wordset="CORE", parses=Parse(WORD, INTERPRETING))
def i_char_word(f: "Forth", tok: Token) -> None:
    """CHAR: inside a definition it reads its word when the definition runs
    (`: MARK CHAR HOLD ; IMMEDIATE`), as the standard's CHAR does."""
    if not f.compile_state:
        i_char(f, tok)
        return
    f.append(HostOp("CHAR", lambda f, n: f.push_uniform(ord(_name(f, Token("CHAR", n.pos)).text[0])), None,
                    tok.pos))


@host("SOURCE", "( -- c-addr u )", "The line being interpreted.", "SOURCE NIP 0> . \\ -1", wordset="CORE")
def w_source(f: "Forth", tok: Token) -> None:
    addr, n, _ = source(f)
    f.push_uniform(addr, n)


@host(">IN", "( -- addr )", "The cell holding the offset of the next character to read in SOURCE.",
      ">IN @ 0> . \\ -1", wordset="CORE")
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


@host("PARSE", '( char "ccc<char>" -- c-addr u )', "Parse text up to char.", "CHAR ) PARSE abc) TYPE \\ abc",
      wordset="CORE-EXT", parses=RUNTIME_INPUT)
def w_parse(f: "Forth", tok: Token) -> None:
    (c,) = f.pop_uniform(1, "PARSE")
    start, n = _parse(f, chr(c & 0xFF), skip_leading=False)
    f.push_uniform(source(f)[0] + start, n)


@host("PARSE-NAME", '( "<spaces>name" -- c-addr u )', "Parse the next word.", "PARSE-NAME hello TYPE \\ hello",
      wordset="CORE-EXT", parses=NEXT_WORD)
def w_parse_name(f: "Forth", tok: Token) -> None:
    start, n = _parse(f, " ", skip_leading=True)
    f.push_uniform(source(f)[0] + start, n)


@host("WORD", '( char "<chars>ccc<char>" -- c-addr )', "Parse a word delimited by char into a counted "
      "string (leading delimiters skipped).", "BL WORD hello COUNT TYPE \\ hello", wordset="CORE",
      parses=RUNTIME_INPUT)
def w_word(f: "Forth", tok: Token) -> None:
    (c,) = f.pop_uniform(1, "WORD")
    start, n = _parse(f, chr(c & 0xFF), skip_leading=True)
    text = source(f)[2][start:start + n].encode("latin-1", "replace")[:WORD_BYTES - 2]
    buf = _buffer(f)
    f.backend.write(buf.word_buf, np.frombuffer(bytes([len(text)]) + text + b" ", np.uint8))
    f.push_uniform(buf.word_buf)


@host("REFILL", "( -- flag )", "Go on to the next line of the source; false at its end.", "REFILL DROP",
      wordset="CORE-EXT", parses=RUNTIME_INPUT)
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


@host("SAVE-INPUT", "( -- x1 x2 2 )", "Save the position in the input, for RESTORE-INPUT.", "SAVE-INPUT DROP 2DROP",
      wordset="CORE-EXT")
def w_save_input(f: "Forth", tok: Token) -> None:
    r = f.reader
    f.push_uniform(block_of(r) or r.row, offset(f), 2)  # in a block: the block, else the line


@host("RESTORE-INPUT", "( x1 x2 2 -- flag )", "Go back to a position SAVE-INPUT saved in the same "
      "source; false on success.", "SAVE-INPUT RESTORE-INPUT DROP", wordset="CORE-EXT", parses=RUNTIME_INPUT)
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


@host("SOURCE-ID", "( -- 0 | -1 )", "0 when the input is the user's, -1 in EVALUATE.", "SOURCE-ID . \\ 0",
      wordset="CORE-EXT")
def w_source_id(f: "Forth", tok: Token) -> None:
    """-1 in EVALUATE, the file id in INCLUDE-FILE (files.py sets it), else 0."""
    r = f.reader
    f.push_uniform(-1 if getattr(r, "addr", None) is not None else getattr(r, "source_id", None) or 0)


MAX_NESTING = 48  # inputs (EVALUATE, INCLUDED, LOAD) one inside another: more is taken for a recursion
_nesting: dict[int, int] = {}  # id(Forth) -> how many interpret() calls are open in it


def _what(reader: Reader) -> str:
    blk = block_of(reader)
    if blk:
        return f"LOAD of block {blk}"
    return "EVALUATE of a string" if reader.name == "<evaluate>" else f"INCLUDE of {reader.name}"


def interpret(f: "Forth", reader: Reader) -> None:
    """Interpret all of `reader` as part of the current line (EVALUATE, INCLUDED, LOAD)."""
    depth = _nesting.get(id(f), 0)
    if depth >= MAX_NESTING:
        inner = _what(f.reader) if f.reader is not None else ""
        within = "" if inner == _what(reader) or not inner else f", inside {inner}"
        raise ForthError(f"{_what(reader)}{within} nests too deeply: it would be input {depth + 1} of EVALUATE, "
                         f"INCLUDE and LOAD nested one inside another, and at most {MAX_NESTING} may be; an input "
                         "that interprets itself again needs a condition that ends the recursion")
    _nesting[id(f)] = depth + 1
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
        if depth:
            _nesting[id(f)] = depth
        else:
            _nesting.pop(id(f), None)


@host("EVALUATE", "( c-addr u -- )", "Interpret a string as if it were typed.", 'S" 2 3 +" EVALUATE . \\ 5',
      wordset="CORE")
def w_evaluate(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "EVALUATE")
    if n < 0:
        raise ForthError(f"EVALUATE needs a length of 0 or more, got {n}")
    text = f.read_bytes(addr, n).decode("latin-1")
    reader = Reader(text, "<evaluate>")
    reader.addr = addr  # SOURCE shows the string where it is
    interpret(f, reader)


@host("ACCEPT", "( c-addr +n -- +n )", "Read a line of at most n characters into c-addr: the next line "
      "a program feeding lines hands over (Forth.more_input); there is no keyboard in a launch.", "", wordset="CORE")
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


host("KEY", "( -- char )", "Not available: there is no keyboard in a launch (an error says what to do).", "",
     fn=_no_keyboard("KEY"), wordset="CORE", refuses="there is no keyboard in a launch")
