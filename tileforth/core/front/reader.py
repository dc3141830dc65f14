"""The reader: source text -> tokens with line and column, and number literals.

Parsing words (`(`, `\\`, `."`, `:`) pull raw text from the same cursor, so the
reader is a cursor over the whole source rather than a token list.
"""
from __future__ import annotations

import math
import re
import struct

from ..errors import SourcePos
from ..records import fields, record

_WORD = re.compile(r"\S+")  # a blank-delimited word: blanks are what str.isspace says


@record(frozen=True)
class Token:
    """A blank-delimited word of the source and where it starts."""

    text: str
    pos: SourcePos

    @property
    def key(self) -> str:
        return self.text.upper()


def _plain(cls: type, names: tuple[str, ...]) -> bool:
    """`cls` is a record (tileforth/core/records.py) of exactly these fields, all set by
    records' __init__, with nothing else to run and an instance __dict__ to hold them."""
    return (hasattr(cls, "__record_fields__") and getattr(cls.__init__, "__module__", None) == fields.__module__
            and "__slots__" not in vars(cls) and not hasattr(cls, "__post_init__")
            and tuple(f.name for f in fields(cls)) == names)


_new = object.__new__


def _token(text: str, pos: SourcePos) -> Token:
    """Token(text, pos), made as records' __init__ makes it but without its
    checks of the arguments (the reader makes a token
    and a position for every word it reads: this halves their cost)."""
    t = _new(Token)
    d = t.__dict__
    d["text"] = text
    d["pos"] = pos
    return t


def _source_pos(line: int, col: int, text: str, source: str) -> SourcePos:
    """SourcePos(line, col, text, source), made as _token makes a Token."""
    p = _new(SourcePos)
    d = p.__dict__
    d["line"] = line
    d["col"] = col
    d["text"] = text
    d["source"] = source
    return p


if not _plain(Token, ("text", "pos")):  # pragma: no cover - the classes changed: use their constructors
    _token = Token  # noqa: F811
if not _plain(SourcePos, ("line", "col", "text", "source")):  # pragma: no cover
    _source_pos = SourcePos  # noqa: F811

position = _source_pos  # SourcePos(line, col, text, source) at the reader's cost (session/linecache.py moves a kept
# line's positions to its new line with it)


class Reader:
    def __init__(self, source: str, name: str = "<input>", first_line: int = 1) -> None:
        self.lines = source.split("\n")
        self.name = name
        self.first_line = first_line
        self.row = 0
        self.col = 0
        self.past_delimiter = False  # col is past a word's delimiter (PARSE, >IN), not at it (next_token)
        self.rereads = 0  # times Forth code moved >IN back (session/hostbound.py: on the step budget)

    def _pos(self, row: int, col: int) -> SourcePos:
        return _source_pos(self.first_line + row, col + 1, self.lines[row], self.name)

    def next_token(self) -> Token | None:
        """The next blank-delimited word, or None at the end of the source."""
        lines, row, search = self.lines, self.row, _WORD.search
        while row < len(lines):
            m = search(lines[row], self.col)  # \S is exactly what str.isspace is not
            if m is None:
                row += 1
                self.row, self.col = row, 0
                continue
            start, self.col = m.span()
            self.past_delimiter = False
            return _token(m.group(), self._pos(row, start))
        return None

    def peek_token(self) -> Token | None:
        """The next word, left unread."""
        row, col = self.row, self.col
        tok = self.next_token()
        self.row, self.col = row, col
        return tok

    def parse_until(self, delim: str, multiline: bool = False) -> tuple[str, bool]:
        """Text up to `delim` (consumed); skips the one blank after the word
        that asked. Returns (text, found)."""
        if self.row >= len(self.lines):
            return "", False
        line = self.lines[self.row]
        if self.col < len(line):
            self.col += 1  # the single separating blank
        parts: list[str] = []
        while self.row < len(self.lines):
            line = self.lines[self.row]
            idx = line.find(delim, self.col)
            if idx >= 0:
                parts.append(line[self.col:idx])
                self.col = idx + len(delim)
                return "\n".join(parts), True
            parts.append(line[self.col:])
            if not multiline:
                self.col = len(line)
                return "\n".join(parts), False
            self.row += 1
            self.col = 0
        return "\n".join(parts), False

    def skip_line(self) -> None:
        if self.row < len(self.lines):
            self.col = len(self.lines[self.row])


_PREFIX_BASE = {"$": 16, "#": 10, "%": 2}


def parse_integer(text: str, base: int) -> int | None:
    """Forth-2012 integer literal: optional $ # % prefix, optional '-', digits
    in the base; also 'c' character literals. None when not a number."""
    if len(text) == 3 and text[0] == "'" and text[2] == "'":
        return ord(text[1])
    s = text
    if s and s[0] in _PREFIX_BASE:
        base = _PREFIX_BASE[s[0]]
        s = s[1:]
    neg = False
    if s.startswith("-"):
        neg, s = True, s[1:]
    if not s:
        return None
    value = 0
    for ch in s.lower():
        if ch.isdigit():
            d = ord(ch) - 48
        elif "a" <= ch <= "z":
            d = ord(ch) - 87
        else:
            return None
        if d >= base:
            return None
        value = value * base + d
    return -value if neg else value


def parse_double(text: str, base: int) -> int | None:
    """A double-cell literal: an integer with a trailing '.' (e.g. `1.`), as
    the signed 128-bit value the two cells hold (wrapped, as gforth does: the
    high cell of `99999999999999999999.` is 5, its low cell the rest)."""
    if len(text) > 1 and text.endswith(".") and text.count(".") == 1:
        v = parse_integer(text[:-1], base)
        if v is None:
            return None
        v &= (1 << 128) - 1
        return v - (1 << 128) if v >> 127 else v
    return None


def parse_float(text: str, float_bits: int = 32) -> float | None:
    """Float literal: mantissa with an exponent (`1e3`, `0e`, `-2.5e-1`) or a
    mantissa with a '.' followed by digits (`3.14`).  The value is the float the
    float stack holds (f32, or f64 with float_bits=64) (IEEE round to nearest: beyond f32, `1e39`, is inf, as
    it is in a definition; below, `1e-50`, is 0)."""
    t = text.lower()
    mant, e, exp = t.partition("e")
    if e:
        if exp in ("", "+", "-"):
            exp = "0"
        if not _is_signed_digits(exp):
            return None
    else:
        if "." not in mant or mant.endswith("."):
            return None
    sign = ""
    if mant[:1] in "+-" and mant:
        sign, mant = mant[0], mant[1:]
    whole, dot, frac = mant.partition(".")
    if not whole and not frac:
        return None
    if (whole and not whole.isdigit()) or (frac and not frac.isdigit()):
        return None
    try:
        return to_float(float(f"{sign}{whole or '0'}.{frac or '0'}e{exp if e else '0'}"), float_bits)
    except ValueError:
        return None


def to_f32(x: float) -> float:
    """x rounded to the nearest f32 (IEEE: beyond the largest f32 is inf)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:  # struct refuses what rounds to inf
        return math.copysign(math.inf, x)


def to_float(x: float, float_bits: int = 32) -> float:
    """x rounded to a float stack's type (f32, or f64: a Python float already is one)."""
    return x if float_bits == 64 else to_f32(x)


def _is_signed_digits(s: str) -> bool:
    if s[:1] in "+-":
        s = s[1:]
    return s.isdigit()


def wrap64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v
