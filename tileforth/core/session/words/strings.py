"""String literals and the pictured-output area: parsing words whose bytes
live in device memory, so that TYPE, COUNT and C@ read them on the device.

    S" text"      ( -- c-addr u )    the text's bytes (UTF-8)
    S\\" a\\tb\\n"  ( -- c-addr u )    the same, with the standard escapes
    C" text"      ( -- c-addr )      a counted string: a length byte, then the bytes
    HLD           ( -- addr )        the hold pointer of <# # #S HOLD #> (prelude.fth)

Each parses its text when the line is read and writes the bytes on the host
(`backend.write`), then compiles literals: the address and the length.
Where the bytes go:

* Inside a definition, into data space at HERE (rounded up to a cell, so
  HERE stays aligned), for as long as the definition lives; a line that
  fails gives the bytes back with the rest of its data space.
* At the prompt, into a transient ring of STRING_RING bytes of its own
  (the standard's "transient buffer" for interpreted S"), allocated on the
  first use: a string stays valid until 64 KiB of later prompt strings
  have been placed, and typing the same line again reuses the bytes (when
  nothing wrote over them), so the line's kernel comes from the cache.

The strings are shared by every thread and read-only (the standard forbids
writing into them). HLD's area is one 256-byte allocation of its own per
session, shared by every thread too: on the emulator threads run one after
the other between BARRIERs, so each thread's `<# ... #> TYPE` is whole; on a
GPU threads run at once and would race on it, so print with `.` or `.R`
there, which send the number to the host in each thread's own record.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...compile.primitives import TABLE as PRIMS
from ...errors import ForthError
from ...front.reader import Token
from ...front.tree import Lit, Prim
from ...lazy import np
from .compiling import _compiling
from .table import host, immediate, text

if TYPE_CHECKING:
    from ..interpreter import Forth


STRING_RING = 1 << 16  # bytes of the transient ring for strings typed at the prompt
HOLD_BYTES = 256  # the pictured numeric output area (the standard asks for 2*64+2 at least)
COUNTED_MAX = 255  # a counted string's length is one byte


ESCAPES = {"a": b"\a", "b": b"\b", "e": b"\x1b", "f": b"\f", "l": b"\n", "m": b"\r\n", "n": b"\n",
           "q": b'"', "r": b"\r", "t": b"\t", "v": b"\v", "z": b"\0", '"': b'"', "\\": b"\\"}


class _Ring:
    """The transient buffer of prompt strings: placed one after another,
    wrapping around; identical text still in place is reused."""

    def __init__(self, addr: int, size: int) -> None:
        self.addr, self.size, self.pos = addr, size, 0
        self.live: dict[bytes, int] = {}  # text -> offset, for the strings not yet overwritten

    def place(self, f: "Forth", data: bytes) -> int:
        n = len(data)
        off = self.live.get(data)
        if off is not None and bytes(f.backend.read(self.addr + off, n)) == data:
            return self.addr + off
        if self.pos + n > self.size:
            self.pos = 0
        off, self.pos = self.pos, self.pos + n
        self.live = {d: o for d, o in self.live.items() if o + len(d) <= off or o >= off + n}
        if n:
            f.backend.write(self.addr + off, data)
            self.live[data] = off
        return self.addr + off


def _session_alloc(f: "Forth", attr: str, nbytes: int) -> int:
    """A per-session allocation of its own, made on first use (kept in data space's areas)."""
    addr = f.space.areas.get(attr)
    if addr is None:
        addr = f.space.areas[attr] = f.backend.alloc(nbytes)
    return addr


def _ring(f: "Forth") -> _Ring:
    ring = f.space.areas.get("string_ring")
    if ring is None:
        ring = f.space.areas["string_ring"] = _Ring(f.backend.alloc(STRING_RING), STRING_RING)
    return ring


def place(f: "Forth", data: bytes, tok: Token) -> int:
    """The address of `data` in device memory: in data space inside a
    definition, in the transient ring at the prompt."""
    if f.colon is None:
        if len(data) > STRING_RING:
            raise ForthError(f"{tok.text} at the prompt holds at most {STRING_RING} bytes ({len(data)} here); "
                             "put the string in a definition", tok.pos, tok.text)
        return _ring(f).place(f, data)
    size = (len(data) + 7) & ~7  # HERE stays cell-aligned
    if f.here + size > f.data_space_size:
        raise ForthError(f"data space exhausted: the {len(data)} bytes of this string do not fit "
                         f"({f.data_space_size - f.here} left)", tok.pos, tok.text)
    addr = f.data_addr + f.here
    f.here += size
    if data:
        f.backend.write(addr, data)
    return addr


def _text(f: "Forth", tok: Token) -> str:
    text, found = f.reader.parse_until('"')
    if not found:
        raise ForthError(f'{tok.text} needs a closing " on the same line, e.g. `{tok.text} hello"`',
                         tok.pos, tok.text)
    return text


def unescape(f: "Forth", tok: Token) -> bytes:
    """S\\"'s text up to an unescaped ", its escapes replaced."""
    r = f.reader
    line = r.lines[r.row] if r.row < len(r.lines) else ""
    i = r.col + 1 if r.col < len(line) else r.col  # the one blank after S\"
    out = bytearray()
    while i < len(line):
        c = line[i]
        if c == '"':
            r.col = i + 1
            return bytes(out)
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        e = line[i + 1:i + 2]
        if e == "x":
            digits = line[i + 2:i + 4]
            if len(digits) < 2 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                r.col = len(line)
                raise ForthError(f'{tok.text}: \\x needs two hex digits, e.g. \\x41 (got "\\x{digits}")',
                                 tok.pos, tok.text)
            out.append(int(digits, 16))
            i += 4
        elif e in ESCAPES:
            out += ESCAPES[e]
            i += 2
        else:
            r.col = len(line)
            raise ForthError(f"{tok.text}: unknown escape \\{e}; the escapes are \\a \\b \\e \\f \\l \\m \\n \\q "
                             '\\r \\t \\v \\z \\" \\\\ and \\xHH', tok.pos, tok.text)
    r.col = len(line)
    raise ForthError(f'{tok.text} needs a closing " on the same line, e.g. `{tok.text} a\\tb"`', tok.pos, tok.text)


@immediate('S"', '( "text" -- c-addr u )', 'The text up to the next " as a string in device memory (UTF-8 '
           "bytes): inside a definition in data space, at the prompt in a transient 64 KiB ring (valid until "
           "that much more prompt text). Read-only.", 'S" hello" TYPE \\ hello', wordset="CORE", parses=text('"'))
def i_s_quote(f: "Forth", tok: Token) -> None:
    data = _text(f, tok).encode()
    f.append(Lit(place(f, data, tok), tok.pos, "global"))
    f.append(Lit(len(data), tok.pos))


@immediate('S\\"', '( "text" -- c-addr u )', 'S" with escapes: \\a \\b \\e \\f \\l \\m (CR LF) \\n \\q \\r \\t '
           '\\v \\z (NUL) \\" \\\\ and \\xHH (a byte in hex).', 'S\\" a\\x42\\qc\\q" TYPE \\ aB"c"',
           wordset="CORE-EXT", parses=text('"', escapes=True))
def i_s_backslash_quote(f: "Forth", tok: Token) -> None:
    data = unescape(f, tok)
    f.append(Lit(place(f, data, tok), tok.pos, "global"))
    f.append(Lit(len(data), tok.pos))


@immediate('C"', '( "text" -- c-addr )', "The text up to the next \" as a counted string (a length byte, "
           "then at most 255 bytes); COUNT gives c-addr u. Stored like S\"'s.",
           ': hi C" hello" COUNT TYPE ; hi \\ hello', wordset="CORE-EXT", parses=text('"'))
def i_c_quote(f: "Forth", tok: Token) -> None:
    data = _text(f, tok).encode()
    if len(data) > COUNTED_MAX:
        raise ForthError(f"C\" holds at most {COUNTED_MAX} bytes, its length being one byte ({len(data)} here); "
                         "use S\" for longer text", tok.pos, tok.text)
    f.append(Lit(place(f, bytes([len(data)]) + data, tok), tok.pos, "global"))


@immediate('ABORT"', '( flag "text" -- )', 'If flag is not 0, end with exception -2 and the text as its message.',
           ': f ABORT" no!" ; 0 f', wordset="CORE", parses=text('"'))
def i_abort_quote(f: "Forth", tok: Token) -> None:
    text, found = f.reader.parse_until('"')
    if not found:
        raise ForthError('ABORT" needs a closing " on the same line', tok.pos, tok.text)
    f.append(Prim(PRIMS['(ABORT")'], tok.pos, arg=f.strings.id_of(text)))


@immediate("SLITERAL", "( c-addr u -- )", "Compile a string (taken from the stack now) into the definition.",
           ': f [ S" abc" ] SLITERAL ; f TYPE \\ abc', wordset="STRING")
def i_sliteral(f: "Forth", tok: Token) -> None:
    _compiling(f, tok)
    addr, n = f.pop_uniform(2, "SLITERAL")
    data = f.read_bytes(addr, n)
    f.append(Lit(place(f, data, tok), tok.pos))
    f.append(Lit(len(data), tok.pos))


# ---- text substitution (STRING-EXT) -------------------------------------------------------
@host("REPLACES", "( c-addr1 u1 c-addr2 u2 -- )", "Let SUBSTITUTE replace %name% (name: string 2) with string 1.",
      'S" world" S" who" REPLACES', wordset="STRING-EXT", group="Memory (heap)")
def w_replaces(f: "Forth", tok: Token) -> None:
    a1, n1, a2, n2 = f.pop_uniform(4, "REPLACES")
    f.substitutions[f.read_bytes(a2, n2).upper()] = f.read_bytes(a1, n1)


_NAME = re.compile(rb"%([^%]*)%")


@host("SUBSTITUTE", "( c-addr1 u1 c-addr2 u2 -- c-addr2 u3 n )", "Copy string 1 into the buffer "
      "c-addr2 u2, replacing each %name% given by REPLACES (and %% by %); n: how many, or negative if it "
      "does not fit.", 'S" Forth" S" lang" REPLACES S" hello %lang%" PAD 84 SUBSTITUTE . TYPE \\ 1 hello Forth',
      wordset="STRING-EXT", group="Memory (heap)")
def w_substitute(f: "Forth", tok: Token) -> None:
    a1, n1, a2, n2 = f.pop_uniform(4, "SUBSTITUTE")
    subs = f.substitutions
    count = 0

    def repl(m: re.Match) -> bytes:
        nonlocal count
        name = m.group(1)
        if not name:
            return b"%"  # %% is one %
        if name.upper() in subs:
            count += 1
            return subs[name.upper()]
        return m.group(0)  # an unknown name stays as it was
    out = _NAME.sub(repl, f.read_bytes(a1, n1))
    if len(out) > n2:
        f.push_uniform(a2, 0, -78)  # the result does not fit the buffer (ior: ambiguous, negative)
        return
    if out:
        f.backend.write(a2, np.frombuffer(out, np.uint8))
    f.push_uniform(a2, len(out), count)


@host("UNESCAPE", "( c-addr1 u1 c-addr2 -- c-addr2 u2 )", "Copy a string doubling each %, so SUBSTITUTE "
      "leaves it as it is.", 'S" 100%" PAD UNESCAPE TYPE \\ 100%%', wordset="STRING-EXT", group="Memory (heap)")
def w_unescape(f: "Forth", tok: Token) -> None:
    a1, n1, a2 = f.pop_uniform(3, "UNESCAPE")
    out = f.read_bytes(a1, n1).replace(b"%", b"%%")
    if out:
        f.backend.write(a2, np.frombuffer(out, np.uint8))
    f.push_uniform(a2, len(out))


@immediate("HLD", "( -- addr )", "The hold pointer of pictured numeric output (<# HOLD #>): a cell holding "
           "the address of the last character held; the 256-byte area ends at HLD. One area per session, "
           "shared by all threads: fine on the emulator, where threads run one at a time between "
           "BARRIERs; on a GPU threads would race, so print with . or .R there.", "<# 65 HOLD HLD @ C@ EMIT \\ A",
           wordset="gforth")
def i_hld(f: "Forth", tok: Token) -> None:
    area = _session_alloc(f, "_hold_area", HOLD_BYTES + 8)
    f.backend.race_exempt(area)  # threads share it on purpose (see HLD's help): not race-checked
    f.append(Lit(area + HOLD_BYTES, tok.pos, "global"))
