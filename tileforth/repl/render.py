"""What the REPL shows after a line: the stacks, compactly, and errors.

Every thread of the launch has its own stacks, so one stack entry is really a
vector with one value per thread.  An entry is shown once when every thread
holds the same value, otherwise as a short summary of the vector::

    data  <3> 5 [0 1 2 … 31] [-1×16 0×16]
    float <1> [0.0–7.5 (32 lanes)]

and then, when a warp holds tensor-core tiles, the tile stack (see "tiles"
below): a summary line per tile, or on a colour terminal a small heat map.

Summaries, tried in this order (the first that applies wins):

    5                       uniform: the same in every thread
    [0 1 2 … 31]            a ramp (arithmetic progression), e.g. TID-X
    [3 9 1]                 up to four threads: every value
    [-1×16 0×16]            up to four runs of equal values
    [(0 1 2 … 31)×4]        a short period repeated, e.g. TID-X over 4 blocks
    [(0 1 2 … 4)×19 0]      ... whose last repetition stops short, e.g. TID-X 5 MOD on 96 threads
    [0–99 (32 lanes)]       otherwise: the range and the thread count

The top of the stack is on the right, and cells are written in the current
BASE, as Forth's `.S` does; when a stack does not fit the width the deepest
entries are elided (``…12 more``).

The functions here turn values into plain strings; `render_*` wraps them in
rich ``Text`` with styles, which a console without a terminal prints plainly.
Numbers are formatted by tileforth/core/session/output.py and tile summaries by tileforth/core/session/views.py;
this module only chooses what to show and how it looks.  It is the REPL's one
renderer: the stack view after a line, tiles, errors, and the inspection
words' view records (`render`, at the end).
"""

from __future__ import annotations

import colorsys
import re
import textwrap
import warnings
from typing import Sequence

import numpy as np
from rich.text import Text
from tileforth.core.records import record

from ..core.session.words.inspection import session_base, stacks_record
from ..core.session.output import format_int, format_value  # noqa: F401  (numbers are formatted there only)
from ..core.session.views import WIDTH as PLAIN_WIDTH
from ..core.session.views import Stacks, View, tile_label, tile_stats, tile_summary

# Views are laid out for the width of the console they print on: a terminal's
# own width (read again for every view, so a resized window is followed), and
# for a pipe or a file PLAIN_WIDTH (80) or $COLUMNS when set.  The Display
# takes min(its console's width, WIDTH): WIDTH is only a bound on absurd sizes.
WIDTH = 1000
MIN_WIDTH = 20  # narrower terminals get the layout for this width

MAX_RUNS = 4
MAX_PERIOD_LISTED = 4
MAX_RAMP_CHARS = 40


@record(frozen=True)
class Glyphs:
    """The few non-ASCII characters, with ASCII stand-ins for old terminals."""

    ellipsis: str = "…"
    dash: str = "–"
    times: str = "×"
    half_block: str | None = "▀"  # None: no colour view of tiles, only their summary

    @classmethod
    def for_encoding(cls, encoding: str | None) -> "Glyphs":
        def can(chars: str) -> bool:
            try:
                chars.encode(encoding or "ascii")
                return True
            except (UnicodeEncodeError, LookupError):
                return False

        if can("…–×▀"):
            return cls()
        if can("…–×"):
            return cls(half_block=None)
        return cls("...", "-", "x", None)


UNICODE = Glyphs()


# ---------------------------------------------------------------- values


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
    """Smallest p <= n/2 with vals the first p values repeated (the last repetition may stop short:
    96 threads of TID-X 5 MOD are 19 periods of 5 and the first value again)."""
    n = len(vals)
    for p in range(1, n // 2 + 1):
        if np.array_equal(vals, np.resize(vals[:p], n)):
            return p
    return None


def summarize(values: Sequence, *, is_float: bool = False, glyphs: Glyphs = UNICODE,
              base: int = 10) -> str:
    """One stack entry across threads, as a short string (see module doc)."""
    vals = np.asarray(values) if is_float else np.asarray(values, dtype=np.int64)
    if is_float and vals.dtype.kind != "f":
        vals = vals.astype(np.float32)  # floats keep their width (the session's: f32, or f64); others are f32
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
            rest = vals[n // p * p:]  # a start of the period: listed, or a ramp as the period is
            tail = _inner(rest, is_float, glyphs, base, allow_runs=False) if len(rest) else ""
            if rep is not None and tail is not None and (p <= MAX_PERIOD_LISTED or _is_ramp(vals[:p])):
                inner = f"({rep}){glyphs.times}{n // p}" + (f" {tail}" if tail else "")
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


def fit_line(label: str, tag: str, entries: list[str], width: int = PLAIN_WIDTH,
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


def stack_line(label: str, per_thread, *, is_float=False, width=PLAIN_WIDTH, glyphs=UNICODE,
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


current_base = session_base  # the session's BASE, so cells read as `.S` would print them


def stack_lines(rec: Stacks, *, width: int = PLAIN_WIDTH, glyphs: Glyphs = UNICODE) -> list[Text]:
    """The data and float stack lines of a stacks record (every thread)."""
    return [
        fit_text(stack_line("data ", rec.data_lists(), width=width, glyphs=glyphs, base=rec.base), width, glyphs),
        fit_text(stack_line("float", rec.float_lists(), is_float=True, width=width, glyphs=glyphs), width, glyphs),
    ]


def render_stack_view(rec: Stacks, *, width: int = PLAIN_WIDTH, glyphs: Glyphs = UNICODE,
                      colour: bool = False) -> list[Text]:
    """What the REPL shows after a line (and for `.S`): stacks, then tiles."""
    return (stack_lines(rec, width=width, glyphs=glyphs)
            + tile_lines(rec, width=width, glyphs=glyphs, colour=colour))


# ---------------------------------------------------------------- tiles
#
# The tile stack (tensor-core fragments) of one warp (warp 0, or the one
# VIEW-WARP chose) follows the data and float
# stacks when it is not empty, bottom first, top last.  Without colour (not a
# terminal, NO_COLOR, TERM=dumb) one summary line per tile, for scripts:
#
#     tiles <2>
#       acc 16x16 f32  min 0.0 max 0.0 mean 0.0
#       a 16x16 f16 col  min -1.0 max 1.0 mean 0.0078125
#
# On a colour terminal one panel per tile, side by side: the label, the
# matrix as `▀` cells (each text line holds two matrix rows: the upper in the
# foreground colour, the lower in the background, so a cell is about square
# and a 16x16 tile takes 8 lines of 16 columns), then min and max.  Colours
# are diverging: blue < 0 < red, scaled to the tile's largest |value|, in
# TILE_LEVELS steps each side; only zero is grey, NaN is magenta.

TILE_NEG = (59, 76, 192)
TILE_MID = (221, 221, 221)
TILE_POS = (180, 4, 38)
TILE_NAN = "#ff00ff"
TILE_LEVELS = 8  # colour steps on each side of zero
PANEL_GAP = 2


def _hex(rgb) -> str:
    return "#" + "".join(f"{round(c):02x}" for c in rgb)


def _palette() -> list[str]:
    """Colours for levels -TILE_LEVELS..TILE_LEVELS, then NaN."""
    out = []
    for lv in range(-TILE_LEVELS, TILE_LEVELS + 1):
        a = abs(lv) / TILE_LEVELS
        end = TILE_POS if lv > 0 else TILE_NEG
        out.append(_hex(m + (e - m) * a for m, e in zip(TILE_MID, end)))
    return out + [TILE_NAN]


PALETTE = _palette()


def tile_levels(values, scale: float | None = None) -> np.ndarray:
    """Palette indices: 0 = most negative, TILE_LEVELS = zero, last = NaN."""
    v = np.asarray(values, dtype=np.float64)
    if scale is None:
        finite = np.abs(v[np.isfinite(v)])
        scale = float(finite.max()) if finite.size else 0.0
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        t = np.sign(v) if scale == 0 else np.clip(v / scale, -1.0, 1.0)
    t = np.nan_to_num(t)
    # only zero is grey: a non-zero value is at least one step away from it
    steps = np.sign(t) * np.maximum(np.rint(np.abs(t) * TILE_LEVELS), t != 0)
    idx = steps.astype(np.int64) + TILE_LEVELS
    idx[np.isnan(v)] = len(PALETTE) - 1
    return idx


def _compact(x: float) -> str:
    text = f"{x:.4g}"
    return "0" if text == "-0" else text


def heatmap(values, glyph: str = "▀") -> list[Text]:
    """Two matrix rows per text line, as half blocks (fg upper, bg lower)."""
    v = np.asarray(values)
    idx = tile_levels(v)
    rows, cols = idx.shape
    lines = []
    for r in range(0, rows, 2):
        top = idx[r]
        bottom = idx[r + 1] if r + 1 < rows else None
        line = Text()
        c = 0
        while c < cols:  # one span per run of equal cells
            key = (top[c], None if bottom is None else bottom[c])
            e = c + 1
            while e < cols and (top[e], None if bottom is None else bottom[e]) == key:
                e += 1
            style = f"{PALETTE[key[0]]}" + ("" if key[1] is None else f" on {PALETTE[key[1]]}")
            line.append(glyph * (e - c), style=style)
            c = e
        lines.append(line)
    return lines


def tile_panel(t, glyph: str = "▀") -> list[Text]:
    """Label, the matrix in colour, `min lo max hi`; all lines one width."""
    lines = [Text(tile_label(t), style="bold")]
    lines += heatmap(t.values, glyph)
    lo, hi, _, bad = tile_stats(t.values)
    rng = Text()
    if lo is None:
        rng.append("all nan/inf", style="dim")
    else:
        scale = max(abs(lo), abs(hi))
        c_lo, c_hi = (PALETTE[int(i)] for i in tile_levels([lo, hi], scale))
        rng.append("min ", style="dim")
        rng.append(_compact(lo), style=f"bold {c_lo}")
        rng.append(" max ", style="dim")
        rng.append(_compact(hi), style=f"bold {c_hi}")
        if bad:
            rng.append(" nan/inf", style=f"bold {TILE_NAN}")
    lines.append(rng)
    w = max(line.cell_len for line in lines)
    for line in lines:
        line.pad_right(w - line.cell_len)
    return lines


def pack_panels(panels: list[list[Text]], width: int = PLAIN_WIDTH, gap: int = PANEL_GAP) -> list[Text]:
    """Panels left to right, in rows that fit `width`."""
    rows: list[list[list[Text]]] = [[]]
    used = 0
    for p in panels:
        w = p[0].cell_len
        if rows[-1] and used + gap + w > width:
            rows.append([])
            used = 0
        used += (gap if rows[-1] else 0) + w
        rows[-1].append(p)
    out = []
    for row in rows:
        height = max(len(p) for p in row)
        for i in range(height):
            line = Text()
            for j, p in enumerate(row):
                if j:
                    line.append(" " * gap)
                line.append_text(p[i] if i < len(p) else Text(" " * p[0].cell_len))
            line.rstrip()
            line.truncate(width)
            out.append(line)
    return out


def tile_lines(rec: Stacks, *, width: int = PLAIN_WIDTH, glyphs: Glyphs = UNICODE,
               colour: bool = False) -> list[Text]:
    """The tile stack of the viewed warp (VIEW-WARP; nothing when it is empty)."""
    tiles = rec.tiles
    if not tiles:
        return []
    head = Text()
    head.append("tiles", style="bold cyan")
    head.append(" ")
    head.append(f"<{len(tiles)}>", style="dim")
    n, alike = rec.warps, rec.warps_alike
    if n > 1:
        note = f"warp {getattr(rec, 'warp', 0)} of {n}"
        if alike is not None:
            note += " (all alike)" if alike else " (the warps differ)"
        head.append(" " + note, style="dim")
    head = fit_text(head, width, glyphs)
    if colour and glyphs.half_block:
        return [head] + pack_panels([tile_panel(t, glyphs.half_block) for t in tiles], width)
    lines = [head]
    for t in tiles:
        lines.append(fit_text(Text("  " + fit_summary(t, width - 2)), width, glyphs))
    return lines


def fit_summary(t, width: int) -> str:
    """A tile's summary line in `width` columns: in full, else without its
    mean (the label, min and max are what a narrow terminal keeps)."""
    text = tile_summary(t)
    if len(text) <= width:
        return text
    return re.sub(r" mean \S+", "", text)


def fit_text(text: Text, width: int, glyphs: Glyphs = UNICODE) -> Text:
    """A line cut to `width` columns, ending in an ellipsis when cut (never
    left for the terminal to wrap)."""
    if text.cell_len <= width:
        return text
    text = text.copy()
    text.truncate(max(1, width - len(glyphs.ellipsis)))
    text.append(glyphs.ellipsis, style="dim")
    return text


def render_tiles(forth, *, width: int = PLAIN_WIDTH, glyphs: Glyphs = UNICODE,
                 colour: bool = False) -> list[Text]:
    """The tile stack of the viewed warp of a session (nothing when it is empty)."""
    return tile_lines(stacks_record(forth), width=width, glyphs=glyphs, colour=colour)


# ---------------------------------------------------------------- errors


def _wrap_message(message: str, width: int, first: int) -> str:
    """The message broken between words into lines of at most `width` columns (the first
    line starts `first` columns in), each of its own lines kept."""
    import textwrap

    out = []
    for i, part in enumerate(message.split("\n")):
        indent = "x" * first if i == 0 else ""
        lines = textwrap.wrap(indent + part, width, break_long_words=False, break_on_hyphens=False) or [""]
        lines[0] = lines[0][len(indent):]
        out.extend(lines)
    return "\n".join(out)


def caret_line(source: str, col: int | None, word: str | None) -> str | None:
    """Spaces (tabs kept, so it lines up) then ^ under the failing word."""
    if col is None or col < 1:
        return None
    prefix = "".join("\t" if ch == "\t" else " " for ch in source[: col - 1])
    return prefix + "^" * max(1, len(word or ""))


def source_window(line: str, col: int | None, word: str | None, room: int) -> tuple[str, int | None]:
    """The part of a source line an error shows, at most `room` characters: all of it when
    it fits, else a window around column `col` (the failing word in it, about a third of
    the way in) with `…` where it was cut; and the column in that window."""
    if len(line) <= room:
        return line, col
    room = max(room, 20)
    at = (col or 1) - 1
    span = min(max(1, len(word or "")), room - 4)
    start = max(0, min(at - max(0, (room - span) // 3), len(line) - room + 2))
    left = "…" if start > 0 else ""
    keep = room - len(left) - 1  # one for a `…` on the right
    if start + keep + 1 >= len(line):
        keep += 1
    right = "…" if start + keep < len(line) else ""
    shown = left + line[start:start + keep] + right
    return shown, None if col is None else at - start + len(left) + 1


def render_error(err, *, where: str | None = None, source_line: str | None = None,
                 running: str | None = None, width: int | None = None, wrap: bool = False) -> Text:
    """An error as `where: error:` message, then the line and the caret, and
    `running`: the "file:line" of the line that ran, when the error is in a
    word defined elsewhere (then `source_line` is the definition's line).

    `where` is "file:line" (":col" is added here) or None at the prompt.
    `width`: the columns there are; a longer source line is cut to a window around the
    error (source_window), the caret under the same text; `wrap`: the message is also
    broken between words to fit (a terminal, which would break it mid-word).
    """
    line = source_line if running else getattr(err, "source_line", None) or source_line
    col = getattr(err, "col", None)
    word = getattr(err, "word", None)
    text = Text()
    head = ""
    if where:
        loc = f"{where}:{col}" if col else where
        head = f"{loc}: "
        text.append(head, style="bold")
    text.append("error: ", style="bold red")
    # ForthError.message is str(err) without its "line L, column C: " prefix,
    # which `where` and the caret already show.
    message = getattr(err, "message", None) or str(err)
    if wrap and width:
        message = _wrap_message(message, width, len(head) + len("error: "))
    text.append(message)
    if line is not None and line.strip():
        line = line.rstrip("\n")
        if width:
            line, col = source_window(line, col, word, width - 2)
            if word and col is not None and len(word) > len(line) - col + 1:
                word = word[:max(1, len(line) - col + 1)]
        text.append("\n  ")
        text.append(line)
        caret = caret_line(line, col, word)
        if caret is not None:
            text.append("\n  ")
            text.append(caret, style="bold red")
    if running:
        text.append(f"\n  (while running {running})", style="dim")
    return text


# ---------------------------------------------------------------- inspection views
#
# The inspection words (.S .LANES .TILE .FRAG .M SEE SEE-IR SEE-PTX HELP)
# make view records (tileforth/core/session/views.py).  A record's lines of tagged spans, whose
# text is what `Forth.eval` returns, become rich `Text` here, styled by tag:
#
#     ("lane", n)    the lane's own background colour (32 hues), black digits
#     ("heat", v)    the tile heat-map palette above (blue < 0 < red, grey 0)
#     "head" "note" "label" "sep" "name" "effect" "example"   text styles
#
# and a few records are drawn from their data on a colour terminal:
#
#     "stacks"   the REPL's own stack view (render_stack_view), colour or not
#     "matrix"   a large array as a heat map (`▀` cells, two rows per line)
#     "ir"       LLVM IR highlighted by pygments; tensor-core intrinsics stand out
#     "ptx"      PTX by a small regex highlighter; wmma/mma instructions in bold magenta
#
# Without colour every view but "stacks" prints as its plain text, so what a
# script sees does not depend on this module.

STYLES = {
    "head": "bold",
    "note": "dim",
    "label": "dim cyan",
    "sep": "dim",
    "name": "bold cyan",
    "effect": "yellow",
    "example": "green",
    "code": "",
}
TENSOR_CORE = "bold magenta"  # wmma / mma instructions and intrinsics
MAX_HEAT_COLS = 64  # a large matrix is averaged down to this many columns
MAX_HEAT_ROWS = 64  # and rows (32 text lines)


def lane_colour(lane: int) -> str:
    """A background colour per lane: 32 hues around the wheel."""
    r, g, b = colorsys.hsv_to_rgb((lane % 32) / 32, 0.45, 1.0)
    return "#" + "".join(f"{round(c * 255):02x}" for c in (r, g, b))


def _contrast(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "white"


def heat_style(value: float, scale: float) -> str:
    """A number's cell in the heat-map palette (readable text on top)."""
    bg = PALETTE[int(tile_levels([value], scale)[0])]
    return f"{_contrast(bg)} on {bg}"


def span_style(tag, scale: float = 0.0) -> str:
    if tag is None:
        return ""
    if isinstance(tag, tuple):
        if tag[0] == "lane":
            return f"black on {lane_colour(int(tag[1]))}"
        if tag[0] == "heat":
            return heat_style(float(tag[1]), scale)
        return ""
    return STYLES.get(tag, "")


def styled(view: View, width: int | None = None) -> list[Text]:
    """The view's own lines (its plain-text layout, at `width`: else the record's own), styled by their tags."""
    return _styled_lines(view.lines() if width is None else view.lines(width), view.scale)


def _styled_lines(lines, scale: float) -> list[Text]:
    out = []
    for line in lines:
        text = Text()
        for chunk, tag in line:
            text.append(chunk, style=span_style(tag, scale))
        text.rstrip()
        out.append(text)
    return out


_TC_IR = re.compile(r'@"?llvm\.nvvm\.(?:wmma|mma)[\w.]*"?')
PTX_RULES = [  # later rules win where they overlap
    (re.compile(r"-?\b(?:0[fFdD][0-9a-fA-F]+|0x[0-9a-fA-F]+|\d+)\b"), "cyan"),
    (re.compile(r"%[\w.]+"), "yellow"),
    (re.compile(r"(?m)^\s*(?:@!?%\w+\s+)?([a-z][\w.]*)"), "bold blue"),
    (re.compile(r"(?<![\w%])\.(?:version|target|address_size|visible|entry|func|extern|param|reg|shared|"
                r"global|local|const|align|ptr|maxntid|b8|b16|b32|b64|u8|u16|u32|u64|s8|s16|s32|s64|f16|"
                r"f16x2|bf16|f32|f64|pred)\b"), "green"),
    (re.compile(r"\b(?:wmma|mma)(?:\.[\w]+)+"), TENSOR_CORE),
    (re.compile(r"//.*$", re.M), "dim"),
]


def highlight_ptx(text: str) -> Text:
    t = Text(text)
    for rx, style in PTX_RULES:
        for m in rx.finditer(text):
            g = 1 if rx.groups else 0
            if m.group(g) is not None:
                t.stylize(style, m.start(g), m.end(g))
    return t


def highlight_ir(text: str) -> Text:
    from rich.syntax import Syntax  # pygments: imported when IR is first shown

    t = Syntax(text, "llvm", theme="ansi_dark").highlight(text)
    t.rstrip()
    for m in _TC_IR.finditer(text):
        t.stylize(TENSOR_CORE, m.start(), m.end())
    return t


def _code(view, highlight) -> list[Text]:
    head = [Text("".join(s for s, _ in line), style="dim") for line in view.lines() if line[0][1] == "note"]
    return head + [highlight(view.text.rstrip("\n"))]


def _pool(v: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, int, int]:
    """Block means so that the matrix has at most rows x cols cells."""
    fr, fc = -(-v.shape[0] // rows), -(-v.shape[1] // cols)
    if fr == 1 and fc == 1:
        return v, 1, 1
    pr, pc = -(-v.shape[0] // fr) * fr, -(-v.shape[1] // fc) * fc
    padded = np.full((pr, pc), np.nan)
    padded[:v.shape[0], :v.shape[1]] = v
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN block (padding) stays NaN
        pooled = np.nanmean(padded.reshape(pr // fr, fr, pc // fc, fc), axis=(1, 3))
    return pooled, fr, fc


def matrix_heatmap(view, glyphs: Glyphs, width: int) -> list[Text]:
    v = np.asarray(view.values, dtype=np.float64)
    if v.ndim == 1:
        cols = min(MAX_HEAT_COLS, width - 4)
        v = np.concatenate([v, np.full(-len(v) % cols, np.nan)]).reshape(-1, cols) if len(v) > cols else v[None]
    pooled, fr, fc = _pool(v, MAX_HEAT_ROWS, min(MAX_HEAT_COLS, width - 4))
    head = styled(view)[:1]
    note = "each cell is one element" if fr == fc == 1 else f"each cell is the mean of {fr}x{fc} elements"
    lines = head + [Text(f"{note}; two rows per line; blue < 0 < red, grey = 0", style="dim")]
    lines += heatmap(pooled, glyphs.half_block)
    return lines


def _see_lines(view, width: int):
    from .listing import definition_lines

    return definition_lines(view)


def _laid_out(view, width: int):
    return view.lines(width)


def _words_lines(view, width: int):
    """WORDS for the width: its lists wrap there already; a group's title
    longer than the width is wrapped at blanks too."""
    out = []
    for line in view.lines(width):
        text = "".join(t for t, _ in line)
        if len(text) > width and len(line) == 1:
            indent = text[:len(text) - len(text.lstrip())]
            out += [[(ln, line[0][1])] for ln in textwrap.wrap(text, width, subsequent_indent=indent + " ",
                                                                   break_on_hyphens=False)]
        else:
            out.append(line)
    return out


# views the REPL lays out itself, colour or not: SEE with its header once (the
# record's own plain text repeats it), and the views whose layout depends on
# the width, laid out for the display's (WORDS, .LANES, .TILE, .FRAG, .M, HELP)
OWN_LAYOUT = {"see": _see_lines, "words": _words_lines, "lanes": _laid_out, "tile": _laid_out,
              "frag": _laid_out, "matrix": _laid_out, "help": _laid_out, "profile": _laid_out,
              "pipe": _laid_out}


def render(kind: str, view: View, *, forth=None, width: int = PLAIN_WIDTH, colour: bool = False,
           glyphs: Glyphs = UNICODE) -> list[Text]:
    """rich lines for one inspection view record (`forth` is not needed: the
    record holds what is shown; it is accepted for older callers)."""
    width = max(MIN_WIDTH, width)
    if kind == "stacks" and isinstance(view, Stacks):
        return render_stack_view(view, width=width, glyphs=glyphs, colour=colour)
    if colour and kind == "matrix" and view.large and glyphs.half_block:
        return matrix_heatmap(view, glyphs, width)
    if colour and kind == "ir":
        return _code(view, highlight_ir)
    if colour and kind == "ptx":
        return _code(view, highlight_ptx)
    if kind == "profile":  # PROFILE's figures: on a colour terminal that has room, a rich table per launch
        from .profileview import render_profile  # (profileview.py); else the record's own layout, below
        table = render_profile(view, width=width, colour=colour, glyphs=glyphs)
        if table is not None:
            return table
    if kind == "pipe":  # .PIPE: on a colour terminal a rich table of stages per wait (pipeview.py)
        from ..core.session.pipeview import Pipe
        from .pipeview import render_pipe
        drawn = render_pipe(view, width=width, colour=colour, glyphs=glyphs) if isinstance(view, Pipe) else None
        if drawn is not None:
            return drawn
    if kind in OWN_LAYOUT:
        return _styled_lines(OWN_LAYOUT[kind](view, width), view.scale)
    return styled(view)
