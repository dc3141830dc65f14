"""The host words of FLOATING / FLOATING-EXT (Forth-2012 12.6):

    >FLOAT  REPRESENT    SET-PRECISION    FALIGN SFALIGN DFALIGN

>FLOAT and REPRESENT convert between text in memory and the f32 float stack
on the host, between launches, so every thread must agree on their inputs
(the word runs once for all). The device words of the set (F. FS. FE.
PRECISION, FALIGNED ...) are in tileforth/core/compile/floatwords.py.

* >FLOAT accepts the standard's syntax (12.6.1.0558): a significand (`1`,
  `1.`, `.5`, `1.5`, signed) and an optional exponent, E, e, D or d with an
  optional sign, or a sign alone (`1+5`), then digits, maybe none (`1E`,
  `1.5e+`); a string of blanks (or an empty one) is zero. Anything else,
  blanks around a number included, gives false (as gforth). The value is
  the nearest f32 of the exact decimal (ties to even): no double rounding
  through an f64. Out of the f32 range it is +-inf (and true), below it +-0,
  as gforth does with f64: the standard leaves the range to the system.
* REPRESENT writes u digits of |r| (float_digits in tileforth/core/session/output.py,
  as FS. shows them: the shortest digits that give the f32 back, padded with
  zeros, when there are at most u, else rounded to u), n the exponent of
  0.ddd * 10^n (1 for zero, whose digits are zeros), flag1 the sign (true for
  -0e too), flag2 true. For inf and NaN flag2 is false and the buffer holds
  "inf" or "nan" (blank-padded, cut to u), flag1 true for -inf, n 0. With
  u = 0 nothing is written and n is r's exponent (flag2 still true: the
  standard's flag2 says r was in range).
* SET-PRECISION sets a session setting: it writes PRECISION's cell in data
  space (floatwords.PRECISION_OFFSET) between launches, so each launch sees
  one value in all its threads (a store from the device would race with the
  other threads' reads, as `PRECISION . 4 SET-PRECISION` on 32 threads
  would show). u is unsigned and kept in 1..PRECISION_MAX.
* FALIGN SFALIGN align HERE to 4 bytes (a float is an f32), DFALIGN to 8.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...compile.floatwords import (
    DFLOAT_BYTES,
    PRECISION_MAX,
    PRECISION_OFFSET,
    SFLOAT_BYTES,
)
from ...compile.primitives import TABLE as PRIMS
from ...compile.state import StackState, differing
from ...errors import ForthError
from ...front.dictionary import Constant
from ...front.reader import Token
from ...front.tree import Lit, Prim
from ...lazy import np
from ..output import float_digits, float_of
from .compiling import _compiling
from .dataspace import _align, _allot
from .definitions import _define
from .table import NEW, NEW_NAME, Parse, host, immediate
from .textin import _name

if TYPE_CHECKING:
    from decimal import Decimal

    from ..interpreter import Forth


@host("FCONSTANT", "( F: r -- )", "Define a word that pushes the float r.", "3.14e FCONSTANT pi", wordset="FLOATING",
      parses=NEW_NAME)
def w_fconstant(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    r = f.pop_uniform_float("FCONSTANT")
    _define(f, Constant(name.text, r, is_float=True, help="( F: -- r ) a float constant"))


@host("FVARIABLE", '( "name" -- )', "Define a float variable (a cell: room for an f32, or an f64).", "FVARIABLE x  1.5e x F!  x F@ F. \\ 1.5",
      wordset="FLOATING", parses=NEW_NAME)
def w_fvariable(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    _align(f)
    addr = _allot(f, 8)
    f.write_cell(addr, 0)
    f.define(Constant(name.text, addr, help="( -- addr ) a float variable"))


@host("F,", "( F: r -- )", "Store a float at HERE and advance it by a float (1 FLOATS), without aligning "
      "first (gforth's).", "FALIGN HERE 2.5e F,  F@ F. \\ 2.5", wordset="gforth")
def w_f_comma(f: "Forth", tok: Token) -> None:
    r = f.pop_uniform_float("F,", "1.5e F,")
    addr = _allot(f, f.machine.float_bytes)
    f.backend.write(addr, np.array([r], f.machine.float_dtype))


@host("FVALUE", '( F: r "name" -- )', "Define a word that pushes the float r; change it with TO.",
      "1.5e FVALUE x  2.5e TO x  x F. \\ 2.5", wordset="FLOATING-EXT", parses=Parse(NEW, defines="colon"))
def w_fvalue(f: "Forth", tok: Token) -> None:
    r = f.pop_uniform_float("FVALUE")
    name = _name(f, tok)
    _align(f)
    addr = _allot(f, 8)
    m = f.machine
    f.backend.write(addr, np.array([r, 0], m.float_dtype)[:8 // m.float_bytes])  # one float in a cell
    f.define(f.make_word(name.text, [Lit(addr, name.pos), Prim(PRIMS["F@"], name.pos)], body_addr=addr,
                         data_kind="fvalue"))


@immediate("FLITERAL", "( F: r -- )", "Compile a float (taken from the float stack now).",
           ": f [ 2e FSQRT ] FLITERAL ; f F. \\ 1.4142135", wordset="FLOATING")
def i_fliteral(f: "Forth", tok: Token) -> None:
    from ...front.tree import FLit
    _compiling(f, tok)
    f.append(FLit(f.pop_uniform_float("FLITERAL"), tok.pos))


REPRESENT_MAX = 1 << 16  # the longest buffer REPRESENT fills


# Forth-2012 12.6.1.0558's convertible string: <significand>[<exponent>]
# (sign, significand, the exponent's sign after E or D, a sign alone as the marker, exponent digits);
# compiled on first use (re's cache), not at start-up
_FLOAT = r"([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(?:[EeDd]([+-]?)|([+-]))(\d*))?"


def _nearest_f32(value: Decimal) -> float:
    """The f32 nearest to an exact decimal (ties to even; beyond the largest f32 by half
    an ulp or more: inf), with its sign (-0 for a negative zero)."""
    neg = value.is_signed()
    mag = value.copy_abs()  # exact, whatever the decimal context
    if mag == 0:
        return -0.0 if neg else 0.0
    if mag.adjusted() > 38:  # >= 1e39: beyond 3.4e38
        r = np.inf
    elif mag.adjusted() < -46:  # < 1e-46: below half the smallest subnormal (7e-46)
        r = 0.0
    else:
        from fractions import Fraction  # imported on first use: start-up does not need it

        exact = Fraction(mag)
        with np.errstate(over="ignore"):
            guess = np.float32(float(exact))  # through f64: at most one f32 away
        best = None
        for c in (np.nextafter(guess, np.float32(0)), guess, np.nextafter(guess, np.float32(np.inf))):
            if np.isinf(c):
                dist, even = abs(Fraction(2**128) - exact), True  # inf rounds like the next binade's 2^128
            else:
                dist, even = abs(Fraction(float(c)) - exact), not int(c.view(np.uint32)) & 1
            key = (dist, not even)
            if best is None or key < best[0]:
                best = (key, c)
        r = best[1]
    return -float(r) if neg else float(r)


def _nearest(value: Decimal, float_bits: int) -> float:
    """The float-stack value nearest to an exact decimal: the f32's, or in an f64 session
    Python's float (correctly rounded, inf beyond the range, a signed 0 below)."""
    if float_bits == 64:
        return float(value)
    return _nearest_f32(value)


def parse_float(text: bytes, float_bits: int = 32) -> float | None:
    """>FLOAT's conversion: the value (f32, or f64 with float_bits=64) of a convertible string, or None."""
    if text.strip(b" ") == b"":
        return 0.0
    try:
        s = text.decode("ascii")
    except UnicodeDecodeError:
        return None
    m = re.fullmatch(_FLOAT, s)
    if m is None:
        return None
    sign, significand, e_sign, marker_sign, exp_digits = m.groups()
    digits = (exp_digits or "").lstrip("0")
    exponent = min(int(digits or "0"), 10**6) if len(digits) <= 7 else 10**6  # beyond 1e6: surely out of range
    if "-" in (e_sign, marker_sign):
        exponent = -exponent
    if significand.startswith("."):
        significand = "0" + significand
    from decimal import Decimal  # imported on first use: start-up does not need it

    return _nearest(Decimal(f"{sign}{significand.rstrip('.') or '0'}E{exponent}"), float_bits)


@host(">FLOAT", "( c-addr u -- true | false ) ( F: -- r | )", "Convert a string to a float: its nearest "
      "f32 and true, or false if it is not a number (`1`, `1.5`, `.5e-3`, `+1.E+2`, `1D5`, `1+5`; "
      "blanks only: 0). Blanks around the number make it false.", 'S" 1.5e-3" >FLOAT . F. \\ -1 0.0015',
      wordset="FLOATING", group="Floats")
def w_to_float(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, ">FLOAT")
    text = f.read_bytes(addr, n)
    r = parse_float(text, f.machine.float_bits)
    if r is None:
        f.push_uniform(0)
        return
    f.push_uniform_float(r)
    f.push_uniform(-1)


def represent(r: float, u: int) -> tuple[bytes, int, bool, bool]:
    """REPRESENT of r (a float of the float stack's type: an f32 for a Python float) into u
    characters: (text, n, negative, valid)."""
    x = float_of(r)
    if np.isnan(x) or np.isinf(x):
        word = b"nan" if np.isnan(x) else b"inf"
        return word.ljust(u)[:u], 0, bool(np.isinf(x) and x < 0), False
    negative = bool(np.signbit(x))
    if u == 0:
        return b"", float_digits(x, 1)[1] if x != 0 else 1, negative, True
    digits, n = float_digits(x, u)
    return digits.encode(), n, negative, True


@host("REPRESENT", "( c-addr u -- n flag1 flag2 ) ( F: r -- )", "Write u significant digits of r at c-addr "
      "(|r| = 0.ddd * 10^n), its sign flag1 and flag2 true; for inf and NaN flag2 is false. Digits as FS. "
      "shows them: the f32's shortest digits padded with zeros, else rounded to u.",
      "-1.5e PAD 4 REPRESENT . . . PAD 4 TYPE \\ -1 -1 1 1500", wordset="FLOATING", group="Floats")
def w_represent(f: "Forth", tok: Token) -> None:
    st = StackState.load(f.backend)
    if st.short(2) is not None or st.short(1, floats=True) is not None:
        raise ForthError("stack underflow: REPRESENT needs c-addr u on the data stack and r on the float stack")
    cells, top = st.top(2), st.ftop()
    lanes = sorted(set(differing(cells)) | set(differing(top.view(f.machine.float_bits_dtype))))
    if lanes:
        raise ForthError(f"REPRESENT needs the same c-addr u and r in every thread, but threads {lanes[:8]} differ "
                         "from thread 0; it runs once on the host")
    addr, u = (int(v) for v in cells[0])
    if not 0 <= u <= REPRESENT_MAX:
        raise ForthError(f"REPRESENT: a buffer of {u} characters (0 to {REPRESENT_MAX})")
    text, n, negative, valid = represent(top[0], u)  # its own type: f32, or f64
    if text:
        f.backend.write(addr, np.frombuffer(text, np.uint8))
    st.drop(2)
    st.fdrop(1)
    st.push([n, -int(negative), -int(valid)])
    st.save(f.backend)


@host("SET-PRECISION", "( u -- )", f"Set the significant digits of F. FS. FE. (kept in 1..{PRECISION_MAX}; "
      "default 9, 17 in an f64 session): FS. and FE. show u digits, F. at most u (the shortest that give the "
      "f32 back, if no more). A session setting, the same for every thread.",
      "3 SET-PRECISION 2e FSQRT F. 1e 3e F/ FS. \\ 1.41 3.33E-1", wordset="FLOATING-EXT", group="Floats")
def w_set_precision(f: "Forth", tok: Token) -> None:
    (u,) = f.pop_uniform(1, "SET-PRECISION")
    f.write_cell(f.base_addr + PRECISION_OFFSET, min(max(u & (1 << 64) - 1, 1), PRECISION_MAX))


def _align_here(size: int | None):
    """Align HERE to `size` bytes (None: a float of the session's float stack)."""
    def fn(f: "Forth", tok: Token) -> None:
        n = size or f.machine.float_bytes
        f.here = (f.here + n - 1) & -n
    return fn


host("FALIGN", "( -- )", "Align HERE for a float (4 bytes; 8 in an f64 session).", "1 C, FALIGN HERE 4 MOD . \\ 0",
     fn=_align_here(None), wordset="FLOATING", group="Floats")
host("SFALIGN", "( -- )", f"Align HERE for an sfloat ({SFLOAT_BYTES} bytes, an f32).",
     "1 C, SFALIGN HERE 4 MOD . \\ 0", fn=_align_here(SFLOAT_BYTES), wordset="FLOATING-EXT", group="Floats")
host("DFALIGN", "( -- )", f"Align HERE for a dfloat ({DFLOAT_BYTES} bytes, an f64).",
     "1 C, DFALIGN HERE 8 MOD . \\ 0", fn=_align_here(DFLOAT_BYTES), wordset="FLOATING-EXT", group="Floats")
