"""Numbers as text, and a launch's output records as text.

Every number tileforth shows is formatted here, once: `format_int` (a cell
in BASE, as `.` prints it), `format_float` (F.'s shortest digits),
`format_fs` (FS. and FE.), `float_digits` (their digits, and REPRESENT's),
`format_f32` (a float-stack entry in a view), `format_numbers` (the cells of
a matrix or tile view, rounded alike).  The inspection views (core/session/views.py)
and the REPL's (repl/views.py) use these.

Each output record is (thread, kind, aux, value). Threads that printed the
same text are shown once; when threads differ, each group is shown with its
threads. `.R`/`U.R` records carry the width with the base (aux = width << 8
| base), so each thread's number is padded here; F. FS. FE. records carry
PRECISION (aux), so each is formatted with the digits it was asked for;
EMITted bytes in a row are decoded as UTF-8 where they form it (TYPE of a
UTF-8 string), else each byte is its own character.
"""
from __future__ import annotations

import struct

import numpy as np

from ..compile import layout as L

_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def format_int(value: int, base: int = 10, unsigned: bool = False) -> str:
    """A cell in BASE, as `.` prints it (signed unless `unsigned`, digits 0-9 A-Z);
    a base outside 2..36 counts as 10."""
    value = int(value)
    if not 2 <= base <= 36:
        base = 10
    if unsigned:
        value &= (1 << 64) - 1
    neg = value < 0
    v = -value if neg else value
    digits = ""
    while True:
        v, r = divmod(v, base)
        digits = _DIGITS[r] + digits
        if v == 0:
            break
    return ("-" if neg else "") + digits


def nonfinite(x: float) -> str | None:
    """"nan", "inf" or "-inf" for a value that is not finite, else None."""
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return None


# the float stack's type (f32, or f64 with TILEFORTH_FLOAT=f64): its records carry its bits
FLOAT_TYPE = np.dtype(L.FLOAT_DTYPE).type


def _f32(bits: int) -> np.floating:
    """A float from the bits of an output record (the float stack's type; the name says f32, its default)."""
    if L.FLOAT_BITS == 64:
        return np.float64(struct.unpack("<d", struct.pack("<Q", bits & 0xFFFFFFFFFFFFFFFF))[0])
    return np.float32(struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0])


def _shortest(x: np.float32) -> tuple[str, int]:
    """The shortest significant digits that give the finite, nonzero f32 |x| back, and n
    with |x| = 0.d1d2... * 10^n."""
    mant, _, exp = np.format_float_scientific(abs(x), unique=True, trim="-").partition("e")
    return mant.replace(".", ""), int(exp) + 1


def float_digits(x: float, p: int) -> tuple[str, int]:
    """p >= 1 significant digits of the finite f32 |x|, and n with |x| = 0.d1d2...dp * 10^n
    (REPRESENT's form): the shortest digits that give the f32 back, padded with zeros,
    when there are at most p of them (at p = 9 there always are); else |x| rounded to p
    digits (to nearest, ties to even, from its exact binary value). Zero is p zeros, n = 1."""
    x = abs(FLOAT_TYPE(x))
    if x == 0:
        return "0" * p, 1
    digits, n = _shortest(x)
    if len(digits) > p:
        mant, _, exp = f"{float(x):.{p - 1}e}".partition("e")
        digits, n = mant.replace(".", ""), int(exp) + 1
    return digits.ljust(p, "0"), n


def format_float(bits: int, precision: int = 0) -> str:
    """gforth-style F.: shortest round-trip digits of the f32, with a '.'; when a
    precision p > 0 is fewer digits than those, the f32 rounded to p significant
    digits (trailing zeros after the point dropped, as gforth does)."""
    x = _f32(bits)
    special = nonfinite(x)
    if special is not None:
        return "NaN" if special == "nan" else special  # gforth's spelling
    if precision > 0 and x != 0 and len(_shortest(x)[0]) > precision:
        digits, n = float_digits(x, precision)
        if n <= 0:
            text = "0." + "0" * -n + digits.rstrip("0")
        elif n >= len(digits):
            text = digits + "0" * (n - len(digits)) + "."
        else:
            text = digits[:n] + "." + digits[n:].rstrip("0")
        return ("-" if np.signbit(x) else "") + text
    return np.format_float_positional(x, unique=True, trim=".")


def format_fs(bits: int, precision: int, engineering: bool = False) -> str:
    """FS. (scientific: d.ddd) or FE. (engineering: 1 to 3 digits before the point,
    an exponent that is a multiple of 3) with `precision` significant digits, gforth's
    form: `1.50000000E0`, `333.E-3`; more digits before the point than the precision
    are zeros (`12345e` at 1 digit: `10.E3`). Not finite: inf, -inf, NaN as F. prints."""
    x = _f32(bits)
    special = nonfinite(x)
    if special is not None:
        return "NaN" if special == "nan" else special
    p = max(1, precision)
    digits, n = float_digits(x, p)
    exp = n - 1
    lead = 1
    if engineering:
        lead = exp - exp // 3 * 3 + 1  # 1..3
        exp -= lead - 1
        digits = digits.ljust(lead, "0")
    return f"{'-' if np.signbit(x) else ''}{digits[:lead]}.{digits[lead:]}E{exp}"


def format_f32(x: float) -> str:
    """A float-stack entry in a view: the shortest text that round-trips the f32."""
    x = FLOAT_TYPE(x)
    return nonfinite(x) or str(x)


def format_value(v, *, is_float: bool, base: int = 10) -> str:
    """One stack entry as the user would write it: cells in BASE, floats as f32."""
    return format_f32(v) if is_float else format_int(v, base)


def format_numbers(values: np.ndarray, is_float: bool, base: int = 10) -> tuple[list[str], str]:
    """Each value as short text, and a note saying how floats were rounded
    ("" when every value is exact): the cells of a matrix or tile view.

    Integers exactly (in BASE); floats exactly when every one is an integer
    below 1e7, else with 3 decimals when the largest is in [0.001, 1e5),
    else in scientific notation with 4 significant digits."""
    flat = np.asarray(values).ravel()
    if not is_float:
        return [format_int(int(v), base) for v in flat], ""
    v64 = flat.astype(np.float64)
    finite = v64[np.isfinite(v64)]
    if (finite == np.round(finite)).all() and (np.abs(finite) < 1e7).all():
        fmt, note = (lambda x: str(int(x))), ""
    elif 1e-3 <= np.abs(finite).max() < 1e5:
        fmt, note = (lambda x: f"{x:.3f}"), "values rounded to 3 decimals"
    else:
        fmt, note = (lambda x: f"{x:.3e}"), "values rounded to 4 significant digits"
    texts = [nonfinite(x) or fmt(x) for x in (float(x) for x in v64)]
    exact = all(t in ("nan", "inf", "-inf") or float(t) == x for t, x in zip(texts, v64))
    return texts, "" if exact else note


def _char(value: int) -> str:
    """EMIT's character: the code point (masked to Unicode's range); a
    surrogate (U+D800-U+DFFF), which no encoding can print, is U+FFFD."""
    c = value & 0x10FFFF
    return "\ufffd" if 0xD800 <= c <= 0xDFFF else chr(c)


def _bytes_text(run: list[int]) -> str:
    """EMITted characters below 256 in a row: UTF-8 sequences among them are
    decoded (TYPE of a string with é prints é, as gforth does in a UTF-8
    terminal); any other byte is its own character (Latin-1), as before."""
    text = bytes(run).decode("utf-8", errors="surrogateescape")
    return "".join(chr(ord(c) - 0xDC00) if 0xDC80 <= ord(c) <= 0xDCFF else c for c in text)


def render_records(records: np.ndarray, strings: list[str]) -> str:
    parts: list[str] = []
    run: list[int] = []  # EMITted bytes not yet decoded
    for _, kind, aux, value in records:
        kind, aux, value = int(kind), int(aux), int(value)
        if kind == L.OUT_CHAR and 0 <= value < 256:
            run.append(value)
            continue
        if run:
            parts.append(_bytes_text(run))
            run = []
        if kind == L.OUT_INT:
            parts.append(format_int(value, aux) + " ")
        elif kind == L.OUT_UINT:
            parts.append(format_int(value, aux, unsigned=True) + " ")
        elif kind in (L.OUT_INT_R, L.OUT_UINT_R):  # .R U.R: aux is width << 8 | base
            text = format_int(value, aux & 0xFF, unsigned=kind == L.OUT_UINT_R)
            parts.append(text.rjust(aux >> 8))
        elif kind == L.OUT_FLOAT:
            parts.append(format_float(value, aux) + " ")
        elif kind in (L.OUT_FLOAT_S, L.OUT_FLOAT_E):
            parts.append(format_fs(value, aux, engineering=kind == L.OUT_FLOAT_E) + " ")
        elif kind == L.OUT_CHAR:
            parts.append(_char(value))
        elif kind == L.OUT_STR:
            parts.append(strings[value])
        elif kind == L.OUT_DEPTH:
            parts.append(f"<{value}> ")
    if run:
        parts.append(_bytes_text(run))
    return "".join(parts)


def format_output(records: np.ndarray, strings: list[str], dropped: int = 0) -> str:
    if len(records) == 0:
        return ""
    threads = records[:, 0]
    order = np.argsort(threads, kind="stable")
    records = records[order]
    threads = records[:, 0]
    ids, starts = np.unique(threads, return_index=True)
    bounds = list(starts[1:]) + [len(records)]
    texts = {int(t): render_records(records[s:e], strings) for t, s, e in zip(ids, starts, bounds)}
    distinct = set(texts.values())
    if len(distinct) == 1:
        text = distinct.pop()
    else:
        groups: dict[str, list[int]] = {}
        for t, txt in texts.items():
            groups.setdefault(txt, []).append(t)
        lines = []
        for txt, ts in sorted(groups.items(), key=lambda kv: kv[1][0]):
            # one line per group: its own final newline is the separator
            lines.append(f"[thread {ranges(ts)}] {txt[:-1] if txt.endswith(chr(10)) else txt}")
        text = "\n".join(lines) + "\n"
    if dropped:
        text += f"\n[{dropped} output records dropped: the output buffer is full]\n"
    return text


def ranges(ids: list[int]) -> str:
    """[0,1,2,5] -> '0-2, 5'"""
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
