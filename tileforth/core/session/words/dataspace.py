"""Data space (Forth-2012 6.1, 6.2): HERE , C, ALLOT ALIGN PAD UNUSED, gforth's
S, STRING, and ," (a counted string at HERE), and the number base, its first cell
(BASE, HEX, DECIMAL)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ForthError
from ...front.reader import Token
from .table import constant, host, text

if TYPE_CHECKING:
    from ..interpreter import Forth


def _align(f: "Forth") -> None:
    f.here = (f.here + 7) & ~7


def _allot(f: "Forth", n: int) -> int:
    if n < 0 and f.here + n < 64:  # a negative ALLOT gives back data space: only what was taken
        raise ForthError(f"ALLOT: {n} would give back {-n} byte{'s' * (n != -1)} of data space, but only {f.here - 64} are in use "
                         f"(HERE is at its start{'' if f.here == 64 else f' + {f.here - 64}'}); give back at most "
                         "that many")
    if f.here + n > f.data_space_size or f.here + n < 64:
        raise ForthError(f"data space exhausted: {n} bytes do not fit ({f.data_space_size - f.here} left); "
                         "use ARRAY for large buffers")
    addr = f.data_addr + f.here
    f.here += n
    return addr


@host("ALLOT", "( n -- )", "Reserve n bytes of data space.", "CREATE t 16 ALLOT", wordset="CORE")
def w_allot(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "ALLOT")
    _allot(f, n)


@host(",", "( x -- )", "Store a cell at HERE and advance it.", "CREATE t 1 , 2 ,", wordset="CORE")
def w_comma(f: "Forth", tok: Token) -> None:
    (x,) = f.pop_uniform(1, ",")
    addr = _allot(f, 8)
    f.write_cell(addr, x)


@host("C,", "( char -- )", "Store a byte at HERE and advance it.", "CREATE s 65 C,", wordset="CORE")
def w_ccomma(f: "Forth", tok: Token) -> None:
    (x,) = f.pop_uniform(1, "C,")
    addr = _allot(f, 1)
    f.backend.write(addr, bytes([x & 0xFF]))


def _counted_comma(f: "Forth", data: bytes, tok: Token, align: bool = True) -> None:
    """Store a counted string at HERE and (`align`) align HERE after it, as gforth's S, and ," do."""
    if len(data) > 255:
        raise ForthError(f"{tok.text}: a counted string holds at most 255 characters ({len(data)} here)",
                         tok.pos, tok.text)
    addr = _allot(f, len(data) + 1)
    f.backend.write(addr, bytes([len(data)]) + data)
    if align:
        _align(f)


@host("S,", "( c-addr u -- )", "Store the string as a counted string at HERE, then align HERE (gforth's).",
      'CREATE s  S" abc" S,  s COUNT TYPE \\ abc', wordset="gforth")
def w_s_comma(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "S,")
    _counted_comma(f, f.read_bytes(addr, n), tok)


@host("STRING,", "( c-addr u -- )", "Store the string as a counted string at HERE, without aligning "
      "HERE after it (gforth's).", 'CREATE s  S" abc" STRING,  s COUNT TYPE \\ abc', wordset="gforth")
def w_string_comma(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "STRING,")
    _counted_comma(f, f.read_bytes(addr, n), tok, align=False)


@host(',"', '( "text<quote>" -- )', "Store the text up to \" as a counted string at HERE, then align HERE "
      "(gforth's).", 'CREATE s ," abc"  s COUNT TYPE \\ abc', wordset="gforth", parses=text('"'))
def w_quote_comma(f: "Forth", tok: Token) -> None:
    body, found = f.reader.parse_until('"')
    if not found:
        raise ForthError(',": the text has no closing " on its line: add it', tok.pos, tok.text)
    _counted_comma(f, body.encode("latin-1", "replace"), tok)


@host("HERE", "( -- addr )", "The next free data-space address.", "HERE .", wordset="CORE")
def w_here(f: "Forth", tok: Token) -> None:
    f.push_uniform(f.data_addr + f.here)


@host("ALIGN", "( -- )", "Align HERE to a cell boundary.", "1 C, ALIGN", wordset="CORE")
def w_align(f: "Forth", tok: Token) -> None:
    _align(f)


@host("HEX", "( -- )", "Set BASE to 16.", "HEX FF DECIMAL . \\ 255", wordset="CORE-EXT", compiled="16 BASE !")
def w_hex(f: "Forth", tok: Token) -> None:
    f.write_cell(f.base_addr, 16)


@host("DECIMAL", "( -- )", "Set BASE to 10.", "DECIMAL", wordset="CORE", compiled="10 BASE !")
def w_decimal(f: "Forth", tok: Token) -> None:
    f.write_cell(f.base_addr, 10)


@host("PAD", "( -- addr )", "A scratch area of 84 bytes in data space.", "PAD 84 ERASE", wordset="CORE-EXT")
def w_pad(f: "Forth", tok: Token) -> None:
    f.push_uniform(f.pad_addr)


@host("UNUSED", "( -- u )", "The bytes of data space left.", "UNUSED 0> . \\ -1", wordset="CORE-EXT")
def w_unused(f: "Forth", tok: Token) -> None:
    f.push_uniform(f.data_space_size - f.here)


constant("BASE", "( -- addr )", "The number-base variable (input and output).", "BASE @ .", wordset="CORE",
         group="Constants and variables")  # its address is the session's (Forth._install)
