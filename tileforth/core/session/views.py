"""What the inspection words show, as data, and its one layout.

An inspection word (tileforth/core/session/words/inspection.py) reads the session and makes a
*view record*: plain data, no text yet (compared by identity: most records
hold numpy arrays, whose == compares elements).

    Stacks     the data and float stacks of every thread, the tile stack    .STACKS (.S at the prompt)
    Lanes      the same stacks, listed thread by thread                    .LANES
    TileValues the top tile (kind, shape, type, values)                    .TILE
    Fragments  the top tile and the lane/register of each element           .FRAG
    Matrix     an array's name, element type and values                    .M
    Definition a colon definition's source, effects and notes               SEE
    HelpEntry  a word's reference entry; HelpSummary: HELP alone            HELP (SEE of other words)
    IRCode     a word's LLVM IR;  PTXCode  its PTX                          SEE-IR  SEE-PTX

`record.lines(width)` lays a record out once, as lines of spans
`(text, tag)`; `record.plain()` is their text, which is what `Forth.eval`
returns.  A front end renders the same lines with styles chosen by tag
(tileforth/repl/render.py), or draws the record's data its own way (the REPL's stack
summary, a large matrix as a heat map).  Tags say what a span is, never how
it looks:

    "head"  a title        "note"  an explanation    "label"  a row/column index
    "sep"   a separator    "name" "effect" "example"  parts of a HELP entry
    ("lane", n)            the number of the lane that holds an element
    ("heat", value)        a number, for a colour scale (`record.scale`)
    "code"                 a line of source, IR or PTX

Numbers are formatted by tileforth/core/session/output.py only.  This module imports nothing
of the session: records are built by tileforth/core/session/words/inspection.py.
"""
from __future__ import annotations

import textwrap
from typing import Any, ClassVar

from ..lazy import np
from ..records import field, record
from .output import format_f32, format_int, format_numbers

WIDTH = 80
SMALL_MATRIX = 256  # elements: .M shows every number up to this size
CORNER = 3  # rows/columns of each corner of a large matrix
LANE_ROWS = 16  # .LANES lists up to this many rows in one column
MAX_LANE_ROWS = 64  # and elides the middle beyond this many

Span = tuple[str, Any]
Lines = list[list[Span]]


def plain(lines: Lines) -> str:
    """The text of laid-out lines (trailing blanks dropped, one newline each)."""
    return "".join("".join(t for t, _ in line).rstrip() + "\n" for line in lines)


class View:
    """A view record: `kind` names it for a front end, `lines` lays it out."""

    kind: ClassVar[str] = ""

    def lines(self, width: int = WIDTH) -> Lines:
        raise NotImplementedError

    def plain(self, width: int = WIDTH) -> str:
        return plain(self.lines(width))

    @property
    def scale(self) -> float:
        """The largest finite |value| of a view with "heat" spans (0: none)."""
        return 0.0


def _para(text: str, tag: str = "note", width: int = WIDTH) -> Lines:
    return [[(ln, tag)] for ln in textwrap.wrap(text, width)]


def _scale(values: np.ndarray) -> float:
    v = np.abs(np.asarray(values, np.float64))
    v = v[np.isfinite(v)]
    return float(v.max()) if v.size else 0.0


# ---- tables -------------------------------------------------------------------------------
def grid(cells: list[list[str]], tags: list[list[Any]], width: int = WIDTH, *,
         row_labels: list[str] | None = None, col_labels: list[str] | None = None,
         col_group: int | None = None, row_group: int | None = None) -> Lines:
    """A table of right-aligned cells with row and column labels, cut into
    blocks of columns that fit `width`; `col_group`/`row_group` draw a
    separator between groups of columns/rows (e.g. fragment blocks)."""
    rows, cols = len(cells), len(cells[0]) if cells else 0
    row_labels = row_labels or [str(r) for r in range(rows)]
    col_labels = col_labels or [str(c) for c in range(cols)]
    lw = max(len(x) for x in row_labels)
    cw = max([len(x) for r in cells for x in r] + [len(x) for x in col_labels])

    def line_width(n: int) -> int:
        return lw + n * (cw + 1) + (2 * ((n - 1) // col_group) if col_group else 0)

    per = cols
    while per > 1 and line_width(per) > width:
        per -= 1
    if col_group and col_group <= per < cols:
        per -= per % col_group
    out: Lines = []
    for s in range(0, cols, per):
        e = min(s + per, cols)
        if per < cols:
            out.append([(f"columns {col_labels[s]}-{col_labels[e - 1]}", "note")])
        head: list[Span] = [(" " * lw, None)]
        for c in range(s, e):
            if col_group and c > s and c % col_group == 0:
                head.append((" |", "sep"))
            head.append((" " + col_labels[c].rjust(cw), "label"))
        out.append(head)
        for r in range(rows):
            if row_group and r and r % row_group == 0:
                out.append([(" " * lw + " " + "-" * (line_width(e - s) - lw - 1), "sep")])
            line: list[Span] = [(row_labels[r].rjust(lw), "label")]
            for c in range(s, e):
                if col_group and c > s and c % col_group == 0:
                    line.append((" |", "sep"))
                line.append((" ", None))
                line.append((cells[r][c].rjust(cw), tags[r][c]))
            out.append(line)
    return out


def _heat_grid(values: np.ndarray, is_float: bool, base: int, width: int, **kw) -> tuple[Lines, str]:
    """The values as a table of numbers tagged for a heat map.  Floats that do
    not fit the width with every column are rounded to fewer significant
    digits (4, then 3, then 2) when that makes them fit; else the table is cut
    into blocks of columns."""
    v = np.asarray(values)
    rows, cols = v.shape
    texts, rounded = format_numbers(v, is_float, base)
    if is_float and not _fits(texts, rows, cols, width):
        for digits in (4, 3, 2):
            short = format_numbers(v, is_float, base, significant=digits)
            if _fits(short[0], rows, cols, width):
                texts, rounded = short
                break
    cells = [texts[r * cols:(r + 1) * cols] for r in range(rows)]
    tags = [[("heat", float(v[r, c])) for c in range(cols)] for r in range(rows)]
    return grid(cells, tags, width, **kw), rounded


def _fits(texts: list[str], rows: int, cols: int, width: int) -> bool:
    """Whether a grid of these cells, with row and column labels, fits `width` in one block."""
    cw = max([len(t) for t in texts] + [len(str(cols - 1))])
    return len(str(rows - 1)) + cols * (cw + 1) + 2 * ((cols - 1) // 8) <= width


# ---- tiles --------------------------------------------------------------------------------
def tile_label(t) -> str:
    """acc 16x16 f32, a 16x16 f16 col: kind, rows x cols, type, layout if col."""
    rows, cols = t.shape
    lay = " col" if t.kind != "acc" and t.layout == "col" else ""
    return f"{t.kind} {rows}x{cols} {t.dtype}{lay}"


def tile_stats(values) -> tuple[float | None, float | None, float | None, int]:
    """(min, max, mean) of the finite elements, and how many are NaN/inf."""
    v = np.asarray(values, dtype=np.float64)
    finite = v[np.isfinite(v)]
    bad = int(v.size - finite.size)
    if finite.size == 0:
        return None, None, None, bad
    return float(finite.min()), float(finite.max()), float(finite.mean()), bad


def tile_summary(t) -> str:
    """One line: label, min, max, mean (f32, shortest text that round-trips)."""
    lo, hi, mean, bad = tile_stats(t.values)
    if lo is None:
        return f"{tile_label(t)}  all nan/inf"
    text = f"{tile_label(t)}  min {format_f32(lo)} max {format_f32(hi)} mean {format_f32(mean)}"
    return text + (f" ({bad} nan/inf)" if bad else "")


def _warp_note(warps: int, warp: int = 0) -> str:
    return f", warp {warp} of {warps}" if warps > 1 else ""


# ---- .STACKS and .LANES -------------------------------------------------------------------
@record(eq=False)
class Stacks(View):
    """The data and float stacks of every thread (bottom first, rows padded
    past each thread's depth), the tile stack of warp 0, and how many warps
    the launch has (`warps_alike`: whether they all hold the same tiles, None
    when not compared); `warp`: the warp the tiles are of (VIEW-WARP)."""

    kind: ClassVar[str] = "stacks"
    depth: np.ndarray  # (threads,) data stack depths
    cells: np.ndarray  # (threads, deepest data stack) int64
    fdepth: np.ndarray  # (threads,) float stack depths
    floats: np.ndarray  # (threads, deepest float stack) of the float stack's type
    base: int = 10
    tiles: list = field(default_factory=list)
    warps: int = 1
    warps_alike: bool | None = None
    warp: int = 0  # the warp whose tiles these are (VIEW-WARP)

    def data_lists(self) -> list[list[int]]:
        return [[int(v) for v in self.cells[t, :self.depth[t]]] for t in range(len(self.depth))]

    def float_lists(self) -> list[list[float]]:
        return [[float(v) for v in self.floats[t, :self.fdepth[t]]] for t in range(len(self.fdepth))]

    def lines(self, width: int = WIDTH) -> Lines:
        """Entries that differ between threads are shown as their range."""
        base = self.base
        lines = [_stack_line("data ", self.depth, self.cells, lambda v: format_int(v, base), ("int", base)),
                 _stack_line("float", self.fdepth, self.floats, format_f32, ("f32",))]
        if self.tiles:
            lines.append([("tiles", "head"), (f" <{len(self.tiles)}>", "note")])
            lines += [[("  " + tile_summary(t), None)] for t in self.tiles]
        return lines


# The last line _stack_line laid out for each label, with what it was made of: `.S` in a host-level loop
# (`: t 1000 0 DO .STACKS LOOP ;`) shows the same stacks again and again, laid out once
_last_stack_line: dict[str, tuple[tuple, list[Span]]] = {}


def _stack_line(label: str, depth: np.ndarray, items: np.ndarray, fmt, fmt_key: tuple = ()) -> list[Span]:
    """`label <depth> item ...`: an item every thread holds alike as itself, else as the range of the
    threads that hold it (`<lo-hi>`: the depths differ). Whole columns at once (numpy), not thread by
    thread; the same stacks as the last time (and the same `fmt_key`): the same spans."""
    lo, hi = int(depth.min()), int(depth.max())
    cols = items[:, :hi]
    key = (fmt_key, depth.dtype.str, depth.tobytes(), cols.dtype.str, cols.shape, cols.tobytes())
    last = _last_stack_line.get(label)
    if last is not None and last[0] == key:
        return list(last[1])
    line: list[Span] = [(label, "head"), (f" <{lo}>" if lo == hi else f" <{lo}-{hi}>", "note")]
    if hi and lo == hi and (cols == cols[0]).all():  # every thread holds the same stacks: the common case
        line += [(" " + fmt(v), None) for v in cols[0]]
    elif hi:
        alike = np.zeros(hi, bool)
        alike[:lo] = (cols[:, :lo] == cols[:1, :lo]).all(axis=0)  # NaN is never alike (as ==)
        spread = ~alike
        if spread.any():
            held = cols[:, spread]
            have = depth[:, None] > np.nonzero(spread)[0][None, :]  # which threads hold each such column
            if cols.dtype.kind == "f":
                big, small = np.inf, -np.inf
            else:
                big, small = np.iinfo(cols.dtype).max, np.iinfo(cols.dtype).min
            mins = np.where(have, held, big).min(axis=0)  # (a NaN a thread holds makes its column's NaN)
            maxs = np.where(have, held, small).max(axis=0)
            ranges = iter(zip(mins.astype(cols.dtype), maxs.astype(cols.dtype)))
        for i in range(hi):
            if alike[i]:
                line.append((" " + fmt(cols[0, i]), None))
            else:
                a, b = next(ranges)
                line.append((f" [{fmt(a)}..{fmt(b)}]", "note"))
    _last_stack_line[label] = (key, list(line))
    return line


def _fit_stack(text: str, width: int) -> str:
    """A thread's stack text (`<3> 1 2 3`) in `width` columns: the deepest
    items give way to `…` (the depth and the top stay)."""
    if len(text) <= width:
        return text
    words = text.split(" ")
    kept: list[str] = []
    for w in reversed(words[1:]):
        if len(" ".join([words[0], "…", w, *kept])) > width:
            break
        kept.insert(0, w)
    short = " ".join([words[0], "…", *kept])
    return short if len(short) <= width else text[:max(1, width - 1)] + "…"


def _runs(keys: list) -> list[tuple[int, int]]:
    """(first, last) of each run of equal consecutive keys."""
    out: list[tuple[int, int]] = []
    for i, k in enumerate(keys):
        if out and keys[out[-1][0]] == k:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


@record(eq=False)
class Lanes(Stacks):
    """The same stacks, one row per run of threads with equal stacks."""

    kind: ClassVar[str] = "lanes"

    @property
    def threads(self) -> int:
        return len(self.depth)

    def lines(self, width: int = WIDTH) -> Lines:
        """Each thread's data stack (and float stack when one is not empty):
        threads with the same stacks share a row; many rows go in columns."""
        dsp, fsp, base = self.depth, self.fdepth, self.base
        n = len(dsp)
        show_f = bool((fsp > 0).any())
        texts = []
        for t in range(n):
            d = " ".join(format_int(v, base) for v in self.cells[t, :dsp[t]])
            texts.append(f"<{dsp[t]}>" + (f" {d}" if d else ""))
        if show_f:  # the float stacks in a column of their own: `F:` at one place on every row
            dw = max(len(t) for t in texts)
            for t in range(n):
                fl = " ".join(format_f32(v) for v in self.floats[t, :fsp[t]])
                texts[t] = texts[t].ljust(dw) + f"  F: <{fsp[t]}>" + (f" {fl}" if fl else "")
        rows = [(str(a) if a == b else f"{a}-{b}", texts[a]) for a, b in _runs(texts)]
        if len(rows) > MAX_LANE_ROWS:
            keep_head, keep_tail = MAX_LANE_ROWS // 2, MAX_LANE_ROWS // 4
            elided = len(rows) - keep_head - keep_tail
            rows = rows[:keep_head] + [("...", f"{elided} more")] + rows[-keep_tail:]
        lw = max(max(len(a) for a, _ in rows), len("thread"))
        rows = [(a, _fit_stack(b, width - lw - 2)) for a, b in rows]  # a row never wraps: deepest items elided
        tw = max(len(b) for _, b in rows)
        cell_w = lw + 2 + tw
        ncols = 1
        if len(rows) > LANE_ROWS:
            ncols = max(1, (width + 3) // (cell_w + 3))
        nrows = -(-len(rows) // ncols)
        ncols = -(-len(rows) // nrows)
        what = "data stack" + (" and float stack" if show_f else "")
        lines: Lines = _para(f"{what} of each of the {n} threads (<depth> then the items, top on the right)",
                             "head", width)
        head: list[Span] = []
        for c in range(ncols):
            if c:
                head.append((" | ", "sep"))
            head.append(("thread".rjust(lw) + "  " + "stack".ljust(tw if c < ncols - 1 else 0), "label"))
        lines.append(head)
        for r in range(nrows):
            line: list[Span] = []
            for c in range(ncols):
                i = c * nrows + r
                if i >= len(rows):
                    break
                if c:
                    line.append((" | ", "sep"))
                label, text = rows[i]
                line.append((label.rjust(lw), "label"))
                line.append(("  " + (text.ljust(tw) if c < ncols - 1 else text),
                             "note" if label == "..." else None))
            lines.append(line)
        return lines


# ---- .TILE and .FRAG ----------------------------------------------------------------------
def _tile_lines(head: str, values: "np.ndarray", width: int) -> Lines:
    """A tile's view: its heading, then its values as a heat grid (with the note on rounding, if any)."""
    lines = _para(head, "head", width)
    body, rounded = _heat_grid(values, True, 10, width)
    if rounded:
        lines += _para(rounded, "note", width)
    return lines + body


@record(eq=False)
class TileValues(View):
    """The top tile of the viewed warp (`depth`: the tile stack's depth)."""

    kind: ClassVar[str] = "tile"
    tile: Any
    depth: int
    warps: int = 1
    warp: int = 0

    @property
    def scale(self) -> float:
        return _scale(self.tile.values)

    def lines(self, width: int = WIDTH) -> Lines:
        t = self.tile
        lay = f", loaded {t.layout}-major" if t.kind != "acc" else ""
        m, n, k = t.mnk
        head = (f"{t.kind} {t.shape[0]}x{t.shape[1]} {t.dtype}: the top of the tile stack <{self.depth}>"
                f"{_warp_note(self.warps, self.warp)} (m{m}n{n}k{k}{lay})")
        return _tile_lines(head, t.values, width)


@record(eq=False)
class Fragments(View):
    """The top tile and, for each element, the lane and register that hold
    it in the documented mma.sync layout (tileforth/core/session/fragments.py)."""

    kind: ClassVar[str] = "frag"
    tile: Any
    depth: int
    warps: int
    lanes: np.ndarray  # (rows, cols) lane of each element
    regs: np.ndarray  # (rows, cols) register of each element
    block: tuple[int, int]  # rows, cols of one mma.sync block
    reg_name: str  # PTX's register letter: a b c
    notes: list[str] = field(default_factory=list)  # how the tile is made of blocks
    warp: int = 0

    def lines(self, width: int = WIDTH) -> Lines:
        t, lane, reg = self.tile, self.lanes, self.regs
        rows, cols = t.shape
        br, bc = self.block
        lines = _para(f"{t.kind} {rows}x{cols} {t.dtype} (top of the tile stack <{self.depth}>"
                      f"{_warp_note(self.warps, self.warp)}): the lane that holds each element.", "head", width)
        if tuple(t.mnk) == (16, 8, 16):  # an mma.sync tile: the GPU holds it exactly so
            lines += _para("Layout: the documented mma.sync m16n8k16 one (PTX ISA 9.7.14.5.8), which the GPU "
                           "uses for this tile (TMMA is mma.sync, TLDSM-A/-B ldmatrix) and TLANE@ reads.",
                           "note", width)
        else:
            lines += _para("Layout shown: the documented mma.sync m16n8k16 one (PTX ISA 9.7.14.5.8). wmma, which "
                           "tileforth uses on the GPU, does not specify its layout, and it differs between GPU "
                           "generations.", "note", width)
        for text in self.notes:
            lines += _para(text, "note", width)
        cells = [[str(int(lane[r, c])) for c in range(cols)] for r in range(rows)]
        tags = [[("lane", int(lane[r, c])) for c in range(cols)] for r in range(rows)]
        lines += grid(cells, tags, width, col_group=bc if cols > bc else None,
                      row_group=br if rows > br else None)
        held = [(r, c) for r in range(min(rows, br)) for c in range(min(cols, bc)) if lane[r, c] == 0]
        held.sort(key=lambda rc: reg[rc])
        lines += _para("lane 0 holds " + ", ".join(f"{self.reg_name}{reg[rc]}=({rc[0]},{rc[1]})" for rc in held)
                       + " in the first block", "note", width)
        return lines


# ---- .M -----------------------------------------------------------------------------------
@record(eq=False)
class Matrix(View):
    """An array or matrix: its name, values and element type (`base`: the
    BASE its integers are shown in)."""

    kind: ClassVar[str] = "matrix"
    name: str
    values: np.ndarray
    eltype: str  # "F32", "I16", ...
    is_float: bool
    base: int = 10

    @property
    def large(self) -> bool:
        """Too many values to list: a summary and the corners."""
        return np.asarray(self.values).size > SMALL_MATRIX

    @property
    def scale(self) -> float:
        return _scale(self.values)

    def lines(self, width: int = WIDTH) -> Lines:
        v = np.asarray(self.values)
        shape = "x".join(map(str, v.shape))
        is_float, name, et = self.is_float, self.name, self.eltype.lower()
        base = 10 if is_float else self.base
        lines: Lines = []
        if not self.large:
            lines += _para(f"{name}: {shape} {et}", "head", width)
            if v.ndim == 1:
                n = v.size
                per = min(8, n)
                rows = -(-n // per)
                texts, rounded = format_numbers(v, is_float, base)
                cells = [[texts[r * per + c] if r * per + c < n else "" for c in range(per)] for r in range(rows)]
                tags = [[("heat", float(v[r * per + c])) if r * per + c < n else None for c in range(per)]
                        for r in range(rows)]
                body = grid(cells, tags, width, row_labels=[str(r * per) for r in range(rows)],
                            col_labels=[f"+{c}" for c in range(per)])
            else:
                body, rounded = _heat_grid(v, is_float, base, width)
            if rounded:
                lines.append([(rounded, "note")])
            return lines + body
        fin = v[np.isfinite(v)] if is_float else v
        stats = ""
        if fin.size:
            mean = float(np.mean(fin.astype(np.float64)))
            lo, hi = ((f"{float(x):.4g}" if is_float else format_int(x, base)) for x in (fin.min(), fin.max()))
            stats = f"  min {lo} max {hi} mean {mean:.4g}"
        lines += _para(f"{name}: {shape} {et}{stats}", "head", width)
        if v.ndim == 1:
            idx = list(range(CORNER)) + list(range(v.size - CORNER, v.size))
            texts, rounded = format_numbers(v[idx], is_float, base)
            body = grid([texts[:CORNER] + ["..."] + texts[CORNER:]],
                        [[("heat", float(v[i])) for i in idx[:CORNER]] + ["note"] +
                         [("heat", float(v[i])) for i in idx[CORNER:]]],
                        width, row_labels=[""], col_labels=[str(i) for i in idx[:CORNER]] + ["..."] +
                        [str(i) for i in idx[CORNER:]])
        else:
            body, rounded = _corners(v, is_float, base, width)
        lines += _para("the corners only; SAVE-NPY writes every value to a file", "note", width)
        if rounded:
            lines += _para(rounded, "note", width)
        return lines + body


def _corners(v: np.ndarray, is_float: bool, base: int, width: int) -> tuple[Lines, str]:
    """The first and last CORNER rows and columns of a large matrix, with
    "..." rows and columns at the gaps."""
    r_idx = _corner_idx(v.shape[0])
    c_idx = _corner_idx(v.shape[1])
    sub = v[np.ix_([i for i in r_idx if i >= 0], [j for j in c_idx if j >= 0])]
    texts, rounded = format_numbers(sub, is_float, base)
    nc = sub.shape[1]
    cells, tags = [], []
    ri = 0
    for i in r_idx:
        if i < 0:
            cells.append(["..."] * len(c_idx))
            tags.append(["note"] * len(c_idx))
            continue
        row, trow, ci = [], [], 0
        for j in c_idx:
            if j < 0:
                row.append("...")
                trow.append("note")
            else:
                row.append(texts[ri * nc + ci])
                trow.append(("heat", float(sub[ri, ci])))
                ci += 1
        cells.append(row)
        tags.append(trow)
        ri += 1
    body = grid(cells, tags, width, row_labels=[str(i) if i >= 0 else "..." for i in r_idx],
                col_labels=[str(j) if j >= 0 else "..." for j in c_idx])
    return body, rounded


def _corner_idx(n: int) -> list[int]:
    """Indices of the first and last CORNER rows, -1 marking the gap."""
    if n <= 2 * CORNER + 1:
        return list(range(n))
    return list(range(CORNER)) + [-1] + list(range(n - CORNER, n))


# ---- SEE, HELP ----------------------------------------------------------------------------
@record(eq=False)
class Definition(View):
    """A colon definition: `: name ( effects )`, its source, and notes."""

    kind: ClassVar[str] = "see"
    word: str
    header: str
    source: str
    notes: list[str] = field(default_factory=list)

    def lines(self, width: int = WIDTH) -> Lines:
        lines: Lines = [[(self.header, "head")]]
        lines += [[("  " + ln, "code")] for ln in self.source.strip().splitlines()]
        return lines + [[("\\ " + ln, "note")] for ln in self.notes]


@record(eq=False)
class HelpEntry(View):
    """A word's entry: name, stack effect, group, meaning, example, notes."""

    kind: ClassVar[str] = "help"
    word: str  # the name as typed
    name: str
    effect: str
    text: str
    example: str = ""
    group: str = ""
    notes: list[str] = field(default_factory=list)

    def lines(self, width: int = WIDTH) -> Lines:
        lines: Lines = [[(self.name, "name"), ("  ", None), (self.effect, "effect")] +
                        ([("  " + self.group, "note")] if self.group else [])]
        lines += [[("  " + ln, None)] for ln in textwrap.wrap(self.text, max(20, width - 2))]
        if self.example:
            lines.append([("  example: ", "note"), (self.example, "example")])
        return lines + [[("  " + ln, "note")] for ln in self.notes]


@record(eq=False)
class HelpSummary(View):
    """HELP alone: one line per group of inspection words."""

    kind: ClassVar[str] = "help"
    text: str
    word: None = None

    def lines(self, width: int = WIDTH) -> Lines:
        return [[(ln, None)] for ln in self.text.splitlines()]


# ---- SEE-IR, SEE-PTX ----------------------------------------------------------------------
@record(eq=False)
class IRCode(View):
    """A word's LLVM IR, and a note saying what is shown."""

    kind: ClassVar[str] = "ir"
    word: str
    note: str
    text: str

    def lines(self, width: int = WIDTH) -> Lines:
        lines: Lines = [[(ln, "note")] for ln in textwrap.wrap(self.note, width, subsequent_indent="; ")]
        return lines + [[(ln, "code")] for ln in self.text.splitlines()]


@record(eq=False)
class PTXCode(View):
    """A word's PTX for `arch`, and notes (PTX comments) saying what is shown."""

    kind: ClassVar[str] = "ptx"
    word: str
    notes: list[str]
    text: str
    arch: str

    def lines(self, width: int = WIDTH) -> Lines:
        lines: Lines = [[(ln, "note")] for ln in self.notes]
        return lines + [[(ln, "code")] for ln in self.text.rstrip().splitlines()]
