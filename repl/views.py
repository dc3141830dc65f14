"""What the REPL shows after a line: the stacks, compactly, and errors.

Every thread of the launch has its own stacks, so one stack entry is really a
vector with one value per thread.  An entry is shown once when every thread
holds the same value, otherwise as a short summary of the vector::

    data  <3> 5 [0 1 2 … 31] [-1×16 0×16]
    float <1> [0.0–7.5 (32 lanes)]

Summaries, tried in this order (the first that applies wins):

    5                       uniform: the same in every thread
    [0 1 2 … 31]            a ramp (arithmetic progression), e.g. TID-X
    [3 9 1]                 up to four threads: every value
    [-1×16 0×16]            up to four runs of equal values
    [(0 1 2 … 31)×4]        a short period repeated, e.g. TID-X over 4 blocks
    [0–99 (32 lanes)]       otherwise: the range and the thread count

The top of the stack is on the right, and cells are written in the current
BASE, as Forth's `.S` does; when a stack does not fit the width the deepest
entries are elided (``…12 more``).

The functions here turn values into plain strings; `render_*` wraps them in
rich ``Text`` with styles, which a console without a terminal prints plainly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from rich.text import Text

WIDTH = 80
MAX_RUNS = 4
MAX_PERIOD_LISTED = 4
MAX_RAMP_CHARS = 40


@dataclass(frozen=True)
class Glyphs:
    """The few non-ASCII characters, with ASCII stand-ins for old terminals."""

    ellipsis: str = "…"
    dash: str = "–"
    times: str = "×"

    @classmethod
    def for_encoding(cls, encoding: str | None) -> "Glyphs":
        try:
            "…–×".encode(encoding or "ascii")
            return cls()
        except (UnicodeEncodeError, LookupError):
            return cls("...", "-", "x")


UNICODE = Glyphs()


# ---------------------------------------------------------------- values


DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def format_int(n: int, base: int = 10) -> str:
    """n in BASE, as `.` prints it (signed, digits 0-9 A-Z)."""
    n = int(n)
    if base == 10 or not 2 <= base <= 36:
        return str(n)
    digits, m = [], abs(n)
    while True:
        m, d = divmod(m, base)
        digits.append(DIGITS[d])
        if m == 0:
            break
    return ("-" if n < 0 else "") + "".join(reversed(digits))


def format_value(v, *, is_float: bool, base: int = 10) -> str:
    """One value as the user would write it: ints in BASE, f32 shortest."""
    if is_float:
        f = np.float32(v)
        if np.isnan(f):
            return "nan"
        if np.isinf(f):
            return "inf" if f > 0 else "-inf"
        return str(f)  # numpy prints the shortest text that round-trips f32
    return format_int(v, base)


def _is_ramp(vals: np.ndarray) -> bool:
    if len(vals) < 3:
        return False
    d = np.diff(vals)
    return bool(d[0] != 0 and np.all(d == d[0]))


def _runs(vals: np.ndarray) -> list[tuple[object, int]]:
    cuts = np.flatnonzero(vals[1:] != vals[:-1]) + 1
    starts = np.concatenate(([0], cuts))
    ends = np.concatenate((cuts, [len(vals)]))
    return [(vals[s], int(e - s)) for s, e in zip(starts, ends)]


def _period(vals: np.ndarray) -> int | None:
    """Smallest p < n, dividing n, with vals the first p values repeated."""
    n = len(vals)
    for p in range(1, n // 2 + 1):
        if n % p == 0 and np.array_equal(vals, np.tile(vals[:p], n // p)):
            return p
    return None


def summarize(values: Sequence, *, is_float: bool = False, glyphs: Glyphs = UNICODE,
              base: int = 10) -> str:
    """One stack entry across threads, as a short string (see module doc)."""
    vals = np.asarray(values, dtype=np.float32 if is_float else np.int64)
    n = len(vals)
    fmt = lambda v: format_value(v, is_float=is_float, base=base)  # noqa: E731
    if n == 0:
        return ""
    if np.all(vals == vals[0]) and not (is_float and np.isnan(vals[0])):
        return fmt(vals[0])
    inner = _inner(vals, is_float, glyphs, base)
    if inner is None:
        p = _period(vals)
        if p is not None:
            rep = _inner(vals[:p], is_float, glyphs, base, allow_runs=False)
            if rep is not None and (p <= MAX_PERIOD_LISTED or _is_ramp(vals[:p])):
                inner = f"({rep}){glyphs.times}{n // p}"
    if inner is None:
        inner = _range(vals, is_float, glyphs, base)
    return f"[{inner}]"


def _inner(vals, is_float, glyphs, base, allow_runs=True) -> str | None:
    fmt = lambda v: format_value(v, is_float=is_float, base=base)  # noqa: E731
    n = len(vals)
    if _is_ramp(vals):
        text = f"{fmt(vals[0])} {fmt(vals[1])} {fmt(vals[2])}"
        if n > 4:
            text += f" {glyphs.ellipsis}"
        if n > 3:
            text += f" {fmt(vals[-1])}"
        if len(text) <= MAX_RAMP_CHARS:
            return text
        return None
    if n <= MAX_PERIOD_LISTED:
        return " ".join(fmt(v) for v in vals)
    if allow_runs:
        runs = _runs(vals)
        if len(runs) <= MAX_RUNS:
            return " ".join(fmt(v) if k == 1 else f"{fmt(v)}{glyphs.times}{k}" for v, k in runs)
    return None


def _range(vals, is_float, glyphs, base) -> str:
    fmt = lambda v: format_value(v, is_float=is_float, base=base)  # noqa: E731
    n = len(vals)
    finite = vals[np.isfinite(vals)] if is_float else vals
    unit = "lanes" if n <= 32 else "threads"
    if len(finite) == 0:
        return f"nan ({n} {unit})"
    lo, hi = fmt(finite.min()), fmt(finite.max())
    extra = "" if len(finite) == n else ", some nan/inf"
    return f"{lo}{glyphs.dash}{hi} ({n} {unit}{extra})"


# ---------------------------------------------------------------- stacks


def stack_entries(per_thread: Sequence[Sequence], *, is_float: bool = False,
                  glyphs: Glyphs = UNICODE, base: int = 10) -> tuple[str, list[str]]:
    """(depth tag, entry strings bottom first) for one stack of every thread.

    Threads may hold stacks of different depths (dynamic-depth code); entries
    are aligned at the bottom, and entry i is summarized over the threads
    deep enough to have one.
    """
    depths = [len(s) for s in per_thread]
    if not depths:
        return "<0>", []
    lo, hi = min(depths), max(depths)
    tag = f"<{lo}>" if lo == hi else f"<{lo}{glyphs.dash}{hi}>"
    entries = []
    for i in range(hi):
        column = [s[i] for s in per_thread if len(s) > i]
        text = summarize(column, is_float=is_float, glyphs=glyphs, base=base)
        if len(column) < len(per_thread) and not text.startswith("["):
            text = f"{text}?"  # present only in some threads
        entries.append(text)
    return tag, entries


def fit_line(label: str, tag: str, entries: list[str], width: int = WIDTH,
             glyphs: Glyphs = UNICODE) -> tuple[str, list[str]]:
    """Drop the deepest entries until `label tag [marker] entries` fits."""
    head = f"{label} {tag}"
    shown = list(entries)
    hidden = 0

    def length() -> int:
        parts = [head] + ([f"{glyphs.ellipsis}{hidden} more"] if hidden else []) + shown
        return len(" ".join(parts))

    while shown and length() > width and len(shown) > 1:
        shown.pop(0)
        hidden += 1
    marker = f"{glyphs.ellipsis}{hidden} more" if hidden else ""
    return marker, shown


def stack_line(label: str, per_thread, *, is_float=False, width=WIDTH, glyphs=UNICODE,
               base=10) -> Text:
    tag, entries = stack_entries(per_thread, is_float=is_float, glyphs=glyphs, base=base)
    marker, shown = fit_line(label, tag, entries, width, glyphs)
    text = Text()
    text.append(label, style="bold cyan")
    text.append(" ")
    text.append(tag, style="dim")
    if marker:
        text.append(" ")
        text.append(marker, style="dim italic")
    for e in shown:
        text.append(" ")
        text.append(e, style="yellow" if e.startswith("[") else "bold")
    return text


def current_base(forth) -> int:
    """The session's BASE, so cells read as `.S` would print them."""
    base = getattr(forth, "base", None)
    try:
        value = base() if callable(base) else base
        return int(value) if value is not None and 2 <= int(value) <= 36 else 10
    except Exception:  # an optional nicety: never let the view fail on it
        return 10


def render_stacks(forth, *, width: int = WIDTH, glyphs: Glyphs = UNICODE) -> list[Text]:
    """The data and float stack lines for the whole launch."""
    return [
        stack_line("data ", forth.data_stack(lane=None), width=width, glyphs=glyphs,
                   base=current_base(forth)),
        stack_line("float", forth.float_stack(lane=None), is_float=True,
                   width=width, glyphs=glyphs),
    ]


# ---------------------------------------------------------------- errors


def caret_line(source: str, col: int | None, word: str | None) -> str | None:
    """Spaces (tabs kept, so it lines up) then ^ under the failing word."""
    if col is None or col < 1:
        return None
    prefix = "".join("\t" if ch == "\t" else " " for ch in source[: col - 1])
    return prefix + "^" * max(1, len(word or ""))


def render_error(err, *, where: str | None = None, source_line: str | None = None) -> Text:
    """An error as `where: error:` message, then the line and the caret.

    `where` is "file:line" (":col" is added here) or None at the prompt.
    """
    line = getattr(err, "source_line", None) or source_line
    col = getattr(err, "col", None)
    word = getattr(err, "word", None)
    text = Text()
    if where:
        loc = f"{where}:{col}" if col else where
        text.append(f"{loc}: ", style="bold")
    text.append("error: ", style="bold red")
    # ForthError.message is str(err) without its "line L, column C: " prefix,
    # which `where` and the caret already show.
    text.append(getattr(err, "message", None) or str(err))
    if line is not None and line.strip():
        text.append("\n  ")
        text.append(line.rstrip("\n"))
        caret = caret_line(line, col, word)
        if caret is not None:
            text.append("\n  ")
            text.append(caret, style="bold red")
    return text
