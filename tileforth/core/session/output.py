"""Numbers as text, and a launch's output records as text.

Every number tileforth shows is formatted here, once: `format_int` (a cell
in BASE, as `.` prints it), `format_float` (F.'s shortest digits),
`format_fs` (FS. and FE.), `float_digits` (their digits, and REPRESENT's),
`format_f32` (a float-stack entry in a view), `format_numbers` (the cells of
a matrix or tile view, rounded alike).  The inspection views (tileforth/core/session/views.py)
and the REPL's (tileforth/repl/render.py) use these.

Each output record is (thread, kind, aux, value). Threads that printed the
same text are shown once; when threads differ, each group is shown with its
threads. `.R`/`U.R` records carry the width with the base (aux = width << 8
| base), so each thread's number is padded here; F. FS. FE. records carry
PRECISION (aux), so each is formatted with the digits it was asked for;
EMITted bytes in a row are decoded as UTF-8 where they form it (TYPE of a
UTF-8 string), else each byte is its own character.
"""
from __future__ import annotations

import math
import re
import struct

from ..errors import ForthError, ranges
from ..compile import layout as L
from ..lazy import np

_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def bad_base_message(base: int, what: str) -> str:
    """The error when BASE is outside 2..36 (gforth reads and prints in such a base, or fails)."""
    return (f"{what}: BASE is {base}, and numbers are read and printed in bases 2 to 36; set it back with DECIMAL "
            "(or HEX, or n BASE ! with n from 2 to 36)")


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


def float_of(x, float_bits: int = 32) -> np.floating:
    """x as a float stack's type (f32, or f64 in an f64 session), whose bits its records carry; a numpy
    float keeps its own type."""
    if isinstance(x, np.floating):
        return x
    return np.float64(x) if float_bits == 64 else np.float32(x)


def _from_bits(bits: int, float_bits: int) -> np.floating:
    """A float from the bits of an output record (the float stack's type: float_bits wide)."""
    if float_bits == 64:
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
    x = abs(float_of(x))
    if x == 0:
        return "0" * p, 1
    digits, n = _shortest(x)
    if len(digits) > p:
        mant, _, exp = f"{float(x):.{p - 1}e}".partition("e")
        digits, n = mant.replace(".", ""), int(exp) + 1
    return digits.ljust(p, "0"), n


def format_float(bits: int, precision: int = 0, float_bits: int = 32) -> str:
    """gforth-style F.: shortest round-trip digits of the f32, with a '.'; when a
    precision p > 0 is fewer digits than those, the f32 rounded to p significant
    digits (trailing zeros after the point dropped, as gforth does)."""
    x = _from_bits(bits, float_bits)
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


def format_fs(bits: int, precision: int, engineering: bool = False, float_bits: int = 32) -> str:
    """FS. (scientific: d.ddd) or FE. (engineering: 1 to 3 digits before the point,
    an exponent that is a multiple of 3) with `precision` significant digits, gforth's
    form: `1.50000000E0`, `333.E-3`; more digits before the point than the precision
    are zeros (`12345e` at 1 digit: `10.E3`). Not finite: inf, -inf, NaN as F. prints."""
    x = _from_bits(bits, float_bits)
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
    """A float-stack entry in a view: the shortest text that round-trips it (a numpy float of its own
    type, f32 or f64; a Python float as an f32)."""
    x = float_of(x)
    return nonfinite(x) or str(x)


def format_value(v, *, is_float: bool, base: int = 10) -> str:
    """One stack entry as the user would write it: cells in BASE, floats as f32."""
    return format_f32(v) if is_float else format_int(v, base)


def format_numbers(values: np.ndarray, is_float: bool, base: int = 10,
                   significant: int | None = None) -> tuple[list[str], str]:
    """Each value as short text, and a note saying how floats were rounded
    ("" when every value is exact): the cells of a matrix or tile view.

    Integers exactly (in BASE); floats exactly when every one is an integer
    below 1e7, else with 3 decimals when the largest is in [0.001, 1e5),
    else in scientific notation with 4 significant digits.  `significant`
    (a view that must fit a narrow width): floats that are not all exact
    integers get that many significant digits instead."""
    flat = np.asarray(values).ravel()
    if not is_float:
        return [format_int(int(v), base) for v in flat], ""
    v64 = flat.astype(np.float64)
    finite = v64[np.isfinite(v64)]
    if (finite == np.round(finite)).all() and (np.abs(finite) < 1e7).all():
        fmt, note = (lambda x: str(int(x))), ""
    elif significant is not None:
        fmt, note = (lambda x: _short_g(x, significant)), f"values rounded to {significant} significant digits"
    elif 1e-3 <= np.abs(finite).max() < 1e5:
        fmt, note = (lambda x: f"{x:.3f}"), "values rounded to 3 decimals"
    else:
        fmt, note = (lambda x: f"{x:.3e}"), "values rounded to 4 significant digits"
    texts = [nonfinite(x) or fmt(x) for x in (float(x) for x in v64)]
    exact = all(t in ("nan", "inf", "-inf") or float(t) == x for t, x in zip(texts, v64))
    return texts, "" if exact else note


def _short_g(x: float, digits: int) -> str:
    """x to `digits` significant digits, as short as numpy's %g allows
    (`0.5`, `-12.3`, `1.2e+05` without the `+0` padding: `1.2e5`)."""
    text = f"{x:.{digits}g}"
    if "e" in text:
        mant, _, exp = text.partition("e")
        text = f"{mant}e{int(exp)}"
    return "0" if text == "-0" else text


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


def render_records(records: np.ndarray, strings: list[str], float_bits: int = 32) -> str:
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
        if kind in (L.OUT_INT, L.OUT_UINT, L.OUT_INT_R, L.OUT_UINT_R) and not 2 <= (
                aux if kind in (L.OUT_INT, L.OUT_UINT) else aux & 0xFF) <= 36:
            raise ForthError(bad_base_message(aux if kind in (L.OUT_INT, L.OUT_UINT) else aux & 0xFF,
                                              "a number cannot be printed"))
        if kind == L.OUT_INT:
            parts.append(format_int(value, aux) + " ")
        elif kind == L.OUT_UINT:
            parts.append(format_int(value, aux, unsigned=True) + " ")
        elif kind in (L.OUT_INT_R, L.OUT_UINT_R):  # .R U.R: aux is width << 8 | base
            text = format_int(value, aux & 0xFF, unsigned=kind == L.OUT_UINT_R)
            parts.append(text.rjust(aux >> 8))
        elif kind == L.OUT_FLOAT:
            parts.append(format_float(value, aux, float_bits) + " ")
        elif kind in (L.OUT_FLOAT_S, L.OUT_FLOAT_E):
            parts.append(format_fs(value, aux, kind == L.OUT_FLOAT_E, float_bits) + " ")
        elif kind == L.OUT_CHAR:
            parts.append(_char(value))
        elif kind == L.OUT_STR:
            parts.append(strings[value])
        elif kind == L.OUT_DEPTH:
            parts.append(f"<{value}> ")
    if run:
        parts.append(_bytes_text(run))
    return "".join(parts)


MAX_OUTPUT_LINES = 32  # a warp's worth: more lines than this are summarised
LISTED_IDS = 16  # a thread list with more parts than this is abbreviated
RUN_MIN = 3  # threads in a row whose output steps arithmetically: one line


def format_output(records: np.ndarray, strings: list[str], dropped: int = 0, *,
                  shape: tuple | None = None, max_lines: int | None = MAX_OUTPUT_LINES,
                  float_bits: int = 32, every_thread_ran: bool = True) -> str:
    """A launch's output records as text: printed once when every thread
    printed the same, else one line per group of threads with the same
    output, in thread order.

    More than `max_lines` groups (None: no limit) are summarised: threads in
    a row whose one-line outputs differ only in integers that step evenly
    become one line (`[threads 0-255] 0 1 2 … 255`), and what is still more
    than `max_lines` lines ends with a `… N more lines` line.  `shape`, the
    launch's (grid, block): with more than one block threads are labelled
    by block and thread (`b1 t31`, `b0-3 t0-15`). Float records are `float_bits` wide (the session's).
    Output that only some of the launch's threads printed is labelled with them (`[thread 0]
    5`), unless not `every_thread_ran` (a launch an error ended: the others may not have run)."""
    if len(records) == 0:
        return ""
    texts = thread_texts(records, strings, float_bits)
    if shape is not None and every_thread_ran and not dropped:  # only some threads printed: labelled with them
        ids = np.unique(records[:, 0]).tolist() if isinstance(texts, str) else list(texts)
        if len(ids) < math.prod(shape[0]) * math.prod(shape[1]):
            texts = {int(t): texts for t in ids} if isinstance(texts, str) else texts
            return _with_dropped("".join(line + "\n" for line in output_lines(texts, shape=shape,
                                                                             max_lines=max_lines)), dropped)
    distinct = set(texts.values()) if isinstance(texts, dict) else {texts}
    if len(distinct) == 1:
        text = distinct.pop()
    else:
        text = "".join(line + "\n" for line in output_lines(texts, shape=shape, max_lines=max_lines))
    return _with_dropped(text, dropped)


def _with_dropped(text: str, dropped: int) -> str:
    if dropped:
        text += f"\n[{dropped} output records dropped: the output buffer is full]\n"
    return text


def thread_texts(records: np.ndarray, strings: list[str], float_bits: int = 32) -> dict[int, str] | str:
    """Each thread's output as text (thread -> text), or the one text every thread
    printed when all printed the same records. Vectorised over threads: records
    are grouped by thread with numpy, and each distinct sequence of records is
    rendered once (65,536 threads printing `7 .` render one record)."""
    threads = records[:, 0]
    if len(threads) > 1 and (threads[1:] < threads[:-1]).any():  # in thread order, each thread's in its order
        records = records[np.argsort(threads, kind="stable")]
        threads = records[:, 0]
    starts = np.flatnonzero(np.r_[True, threads[1:] != threads[:-1]])
    ids = threads[starts]
    counts = np.diff(np.r_[starts, len(records)])
    body = records[:, 1:]  # kind, aux, value
    k = int(counts[0])
    if (counts == k).all():
        rows = body.reshape(len(ids), k * (L.OUT_SLOTS - 1))
        if (rows == rows[0]).all():  # every thread printed the same records
            return render_records(records[:k], strings, float_bits)
    texts: dict[int, str] = {}
    for c in np.unique(counts).tolist():  # threads that printed c records: their distinct sequences
        sel = np.flatnonzero(counts == c)
        idx = starts[sel][:, None] + np.arange(c)[None, :]
        rows = body[idx].reshape(len(sel), c * (L.OUT_SLOTS - 1))
        if c == 1 and (rows[:, 0] == L.OUT_INT).all() and (rows[:, 1] == 10).all():  # `.` in decimal: str()
            texts.update(zip(ids[sel].tolist(), [f"{v} " for v in rows[:, 2].tolist()]))
            continue
        _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
        rendered = [render_records(records[starts[sel[i]]:starts[sel[i]] + c], strings, float_bits)
                    for i in first.tolist()]
        texts.update(zip(ids[sel].tolist(), [rendered[i] for i in inverse.reshape(-1).tolist()]))
    return texts


def _block_threads(shape) -> int | None:
    """Threads per block when the launch has more than one block, else None."""
    if shape is None:
        return None
    (gx, gy, gz), (bx, by, bz) = shape
    return bx * by * bz if gx * gy * gz > 1 else None


def output_lines(texts: dict[int, str], *, shape=None, max_lines: int | None = MAX_OUTPUT_LINES) -> list[str]:
    """The lines of output that differs between threads (`texts`: each
    thread's output); see format_output."""
    per_block = _block_threads(shape)
    label = (lambda ts: f"[{block_list(ts, per_block)}]") if per_block else (lambda ts: f"[thread {thread_list(ts)}]")
    run_label = (lambda ts: f"[{block_list(ts, per_block)}]") if per_block else (lambda ts: f"[threads {thread_list(ts)}]")
    groups: dict[str, list[int]] = {}
    for t in sorted(texts):
        groups.setdefault(texts[t], []).append(t)
    items: list[tuple[list[int], str]] = []  # (the line's threads, the line)
    if max_lines is not None and len(groups) > max_lines:
        single = [t for t in sorted(texts) if len(groups[texts[t]]) == 1]
        for run in _arithmetic_runs(single, texts):
            for t in run:
                del groups[texts[t]]
            vals = [texts[t].rstrip() for t in run]
            shown = vals if len(vals) <= 4 else vals[:3] + ["…", vals[-1]]
            items.append((run, f"{run_label(run)} {' '.join(shown)}"))
    for txt, ts in groups.items():
        # one line per group: its own final newline is the separator
        items.append((ts, f"{label(ts)} {txt[:-1] if txt.endswith(chr(10)) else txt}"))
    items.sort(key=lambda it: it[0][0])
    lines = [line for _, line in items]
    if max_lines is not None and len(lines) > max_lines:
        hidden = items[max_lines - 1:]
        rest = sorted(t for ts, _ in hidden for t in ts)
        where = block_list(rest, per_block) if per_block else f"threads {thread_list(rest)}"
        lines = lines[:max_lines - 1] + [f"… {len(hidden)} more lines ({where})"]
    return lines


_NUMBER = re.compile(r"-?\d+")


def _arithmetic_runs(ids: list[int], texts: dict[int, str]) -> list[list[int]]:
    """Maximal runs (at least RUN_MIN long) of the threads `ids` (ascending)
    whose outputs are one line each, alike but for integers that change by
    the same step from one thread to the next, the threads themselves
    evenly spaced."""
    keys: list[tuple[str, tuple[int, ...]] | None] = []
    for t in ids:
        txt = texts[t].rstrip("\n")
        numbers = tuple(int(n) for n in _NUMBER.findall(txt))
        keys.append(None if "\n" in txt or not numbers else (_NUMBER.sub("#", txt), numbers))

    def step(a: int, b: int):
        if keys[a] is None or keys[b] is None or keys[a][0] != keys[b][0]:
            return None
        return ids[b] - ids[a], tuple(y - x for x, y in zip(keys[a][1], keys[b][1]))

    runs: list[list[int]] = []
    i = 0
    while i < len(ids):
        j = i + 1
        first = step(i, i + 1) if i + 1 < len(ids) else None
        if first is not None:
            j = i + 2
            while j < len(ids) and step(j - 1, j) == first:
                j += 1
        if j - i >= RUN_MIN:
            runs.append(ids[i:j])
            i = j
        else:
            i += 1
    return runs


def thread_list(ids: list[int]) -> str:
    """Thread numbers, short: `0-15`, `0, 2, 4, 6`; more than LISTED_IDS
    parts abbreviated: `0, 2, 4, … 254` when evenly spaced, else the first
    parts and how many threads in all."""
    text = ranges(ids)
    parts = text.split(", ")
    if len(parts) <= LISTED_IDS:
        return text
    steps = {b - a for a, b in zip(ids, ids[1:])}
    if len(steps) == 1:
        return f"{ids[0]}, {ids[1]}, {ids[2]}, … {ids[-1]}"
    return ", ".join(parts[:LISTED_IDS // 2]) + f", … ({len(ids)} threads)"


def block_list(ids: list[int], per_block: int) -> str:
    """Threads as block and thread: `b1 t31`, `b0-3` (whole blocks),
    `b0-3 t0-15` (the same threads of each of blocks 0 to 3)."""
    by_block: dict[int, list[int]] = {}
    for t in ids:
        by_block.setdefault(t // per_block, []).append(t % per_block)
    merged: list[tuple[list[int], str]] = []  # (blocks, their threads' text)
    for b, local in by_block.items():
        desc = "" if len(local) == per_block else " t" + thread_list(local)
        if merged and merged[-1][1] == desc and merged[-1][0][-1] == b - 1:
            merged[-1][0].append(b)
        else:
            merged.append(([b], desc))
    parts = [f"b{ranges(bs)}{desc}" for bs, desc in merged]
    if len(parts) > LISTED_IDS // 2:
        return ", ".join(parts[:LISTED_IDS // 4]) + f", … ({len(ids)} threads)"
    return ", ".join(parts)
