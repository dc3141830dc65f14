"""Inspection words: look at the stacks, a tile, its fragments, an array, the
code generated for a word, and the reference entry of any word.

    .STACKS   every stack (the REPL maps `.S` at the prompt to it)
    .LANES    each thread's data stack          .TILE   the top tile's values
    .FRAG     which lane holds which element    .M      an array or a matrix
    SEE  SEE-IR  SEE-PTX  HELP

Each word builds a `View`: lines of spans `(text, tag)`.  Its plain text is
the text of the spans, and that is what `Forth.eval` returns.  A front end
may set `Forth.display(kind, view) -> str | None` to render the same view
with colour (lane colours, heat maps, syntax highlighting); when the hook
returns None the plain text is used.  Tags say what a span is, never how it
looks:

    "head"  a title        "note"  an explanation    "label"  a row/column index
    "sep"   a separator    "name" "effect" "example"  parts of a HELP entry
    ("lane", n)            the number of the lane that holds an element
    ("heat", value)        a number, for a colour scale (view.data["scale"])
    "code"                 a line of IR or PTX
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from . import fragments
from . import layout as L
from .dictionary import Colon, Constant, HostWord
from .errors import ForthError
from .output import format_int
from .reader import Token

if TYPE_CHECKING:
    from .interpreter import Forth

WIDTH = 80
SMALL_MATRIX = 256  # elements: .M shows every number up to this size
CORNER = 3  # rows/columns of each corner of a large matrix
LANE_ROWS = 16  # .LANES lists up to this many rows in one column
MAX_LANE_ROWS = 64  # and elides the middle beyond this many

Span = tuple[str, Any]


@dataclass
class View:
    """What an inspection word shows: tagged lines, plus the data behind them."""

    kind: str  # "stacks" "lanes" "tile" "frag" "matrix" "ir" "ptx" "see" "help"
    lines: list[list[Span]]
    data: dict = field(default_factory=dict)

    def plain(self) -> str:
        return "".join("".join(t for t, _ in line).rstrip() + "\n" for line in self.lines)


def show(f: "Forth", view: View) -> None:
    """Append a view to the line's output, through the display hook if set.
    A view starts on a fresh line; a hook that fails falls back to text."""
    text = None
    hook = getattr(f, "display", None)
    if hook is not None:
        try:
            text = hook(view.kind, view)
        except Exception:  # a view never fails the line
            text = None
    if text is None:
        text = view.plain()
    if text and not text.endswith("\n"):
        text += "\n"
    before = "".join(f.out_parts)
    if before and not before.endswith("\n"):
        text = "\n" + text
    f.out_parts.append(text)


def _para(text: str, tag: str = "note", width: int = WIDTH) -> list[list[Span]]:
    return [[(ln, tag)] for ln in textwrap.wrap(text, width)]


# ---- numbers and grids -----------------------------------------------------------------
def format_numbers(values: np.ndarray, is_float: bool, base: int = 10) -> tuple[list[str], str]:
    """Each value as short text, and a note saying how floats were rounded
    ("" when every value is exact).

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

    def one(x: float) -> str:
        if np.isnan(x):
            return "nan"
        if np.isinf(x):
            return "inf" if x > 0 else "-inf"
        return fmt(x)
    texts = [one(float(x)) for x in v64]
    exact = all(t in ("nan", "inf", "-inf") or float(t) == x for t, x in zip(texts, v64))
    return texts, "" if exact else note


def grid(cells: list[list[str]], tags: list[list[Any]], width: int = WIDTH, *,
         row_labels: list[str] | None = None, col_labels: list[str] | None = None,
         col_group: int | None = None, row_group: int | None = None) -> list[list[Span]]:
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
    out: list[list[Span]] = []
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


def _heat_grid(values: np.ndarray, is_float: bool, base: int, width: int, **kw) -> tuple[list[list[Span]], str]:
    v = np.asarray(values)
    texts, rounded = format_numbers(v, is_float, base)
    rows, cols = v.shape
    cells = [texts[r * cols:(r + 1) * cols] for r in range(rows)]
    tags = [[("heat", float(v[r, c])) for c in range(cols)] for r in range(rows)]
    return grid(cells, tags, width, **kw), rounded


def _scale(values: np.ndarray) -> float:
    v = np.abs(np.asarray(values, np.float64))
    v = v[np.isfinite(v)]
    return float(v.max()) if v.size else 0.0


# ---- reading names ----------------------------------------------------------------------
def next_on_line(f: "Forth", tok: Token) -> Token | None:
    """The next word if it is on the same line as `tok` (else None, unread)."""
    r = f.reader
    row, col = r.row, r.col
    nxt = r.next_token()
    if nxt is None or nxt.pos.line != tok.pos.line:
        r.row, r.col = row, col
        return None
    return nxt


def word_name(f: "Forth", tok: Token, example: str) -> Token:
    nxt = next_on_line(f, tok)
    if nxt is None:
        raise ForthError(f"{tok.text.upper()} needs a word's name after it on the same line, e.g. `{example}`",
                         tok.pos, tok.text)
    return nxt


def _colon(f: "Forth", tok: Token, name: Token) -> Colon:
    e = f.dict.get(name.key)
    word = tok.text.upper()
    if e is None:
        raise ForthError(f"{word}: unknown word {name.text}; WORDS lists the dictionary", name.pos, name.text)
    if not isinstance(e, Colon):
        raise ForthError(f"{word} shows the code of colon definitions, but {name.text} is a {e.kind} word "
                         f"(HELP {name.text} says what it does)", name.pos, name.text)
    return e


# ---- .STACKS and .LANES -----------------------------------------------------------------
def _depths(f: "Forth") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    st = f.backend.get_state()
    dsp = st[:, L.S_DSP:L.S_DSP + 8].view(np.int64)[:, 0]
    fsp = st[:, L.S_FSP:L.S_FSP + 8].view(np.int64)[:, 0]
    cells = st[:, L.S_DS:L.S_FS].view(np.int64)
    floats = st[:, L.S_FS:L.S_FS + 4 * L.FS_MAX].view(np.float32)
    return dsp, fsp, cells, floats


def _fmt_float(x: float) -> str:
    x = np.float32(x)
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return str(x)


def _stack_line(label: str, depth: np.ndarray, items: np.ndarray, fmt) -> list[Span]:
    lo, hi = int(depth.min()), int(depth.max())
    line: list[Span] = [(label, "head"), (f" <{lo}>" if lo == hi else f" <{lo}-{hi}>", "note")]
    for i in range(hi):
        have = depth > i
        col = items[have, i]
        if (col == col[0]).all() and have.all():
            line.append((" " + fmt(col[0]), None))
        else:
            line.append((f" [{fmt(col.min())}..{fmt(col.max())}]", "note"))
    return line


def tile_summary(t) -> str:
    """kind RxC type [col]  min .. max .. mean .. (as the REPL's stack view)."""
    lay = " col" if t.kind != "acc" and t.layout == "col" else ""
    v = np.asarray(t.values, np.float64)
    fin = v[np.isfinite(v)]
    head = f"{t.kind} {t.shape[0]}x{t.shape[1]} {t.dtype}{lay}"
    if not fin.size:
        return f"{head}  all nan/inf"
    text = f"{head}  min {_fmt_float(fin.min())} max {_fmt_float(fin.max())} mean {_fmt_float(fin.mean())}"
    return text + (f" ({v.size - fin.size} nan/inf)" if fin.size < v.size else "")


def stacks_view(f: "Forth") -> View:
    """The data, float and tile stacks; entries that differ between threads
    are shown as their range (.LANES lists each thread)."""
    dsp, fsp, cells, floats = _depths(f)
    base = f.base()
    lines = [_stack_line("data ", dsp, cells, lambda v: format_int(int(v), base)),
             _stack_line("float", fsp, floats, _fmt_float)]
    tiles = f.tile_stack(0)
    if tiles:
        lines.append([("tiles", "head"), (f" <{len(tiles)}>", "note")])
        lines += [[("  " + tile_summary(t), None)] for t in tiles]
    return View("stacks", lines)


def w_stacks(f: "Forth", tok: Token) -> None:
    show(f, stacks_view(f))


def _runs(keys: list) -> list[tuple[int, int]]:
    """(first, last) of each run of equal consecutive keys."""
    out: list[tuple[int, int]] = []
    for i, k in enumerate(keys):
        if out and keys[out[-1][0]] == k:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


def lanes_view(f: "Forth", width: int = WIDTH) -> View:
    """Each thread's data stack (and float stack when one is not empty):
    threads with the same stacks share a row; many rows go in columns."""
    dsp, fsp, cells, floats = _depths(f)
    base = f.base()
    n = len(dsp)
    show_f = bool((fsp > 0).any())
    texts = []
    for t in range(n):
        d = " ".join(format_int(int(v), base) for v in cells[t, :dsp[t]])
        text = f"<{dsp[t]}>" + (f" {d}" if d else "")
        if show_f:
            fl = " ".join(_fmt_float(v) for v in floats[t, :fsp[t]])
            text += f"  F: <{fsp[t]}>" + (f" {fl}" if fl else "")
        texts.append(text)
    rows = [(str(a) if a == b else f"{a}-{b}", texts[a]) for a, b in _runs(texts)]
    elided = 0
    if len(rows) > MAX_LANE_ROWS:
        keep_head, keep_tail = MAX_LANE_ROWS // 2, MAX_LANE_ROWS // 4
        elided = len(rows) - keep_head - keep_tail
        rows = rows[:keep_head] + [("...", f"{elided} more")] + rows[-keep_tail:]
    lw = max(max(len(a) for a, _ in rows), len("thread"))
    tw = max(len(b) for _, b in rows)
    cell_w = lw + 2 + tw
    ncols = 1
    if len(rows) > LANE_ROWS:
        ncols = max(1, (width + 3) // (cell_w + 3))
    nrows = -(-len(rows) // ncols)
    ncols = -(-len(rows) // nrows)
    what = "data stack" + (" and float stack" if show_f else "")
    lines: list[list[Span]] = [[(f"{what} of each of the {n} threads (<depth> then the items, top on the right)",
                                 "head")]]
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
            line.append(("  " + (text.ljust(tw) if c < ncols - 1 else text), "note" if label == "..." else None))
        lines.append(line)
    return View("lanes", lines, {"threads": n})


def w_lanes(f: "Forth", tok: Token) -> None:
    show(f, lanes_view(f))


# ---- .TILE and .FRAG ----------------------------------------------------------------------
def _top_tile(f: "Forth", word: str):
    tiles = f.tile_stack(0)
    if not tiles:
        raise ForthError(f"{word} shows the top of the tile stack, but the tile stack is empty: push a tile "
                         "first, e.g. `TZERO` or `A 16 TLOAD-A`")
    return tiles[-1], len(tiles)


def _warp_note(f: "Forth") -> str:
    (gx, gy, gz), (bx, by, bz) = f.launch_shape
    warps = gx * gy * gz * -(-(bx * by * bz) // fragments.WARP)
    return f", warp 0 of {warps}" if warps > 1 else ""


def tile_view(f: "Forth", width: int = WIDTH) -> View:
    t, depth = _top_tile(f, ".TILE")
    lay = f", loaded {t.layout}-major" if t.kind != "acc" else ""
    m, n, k = t.mnk
    head = (f"{t.kind} {t.shape[0]}x{t.shape[1]} {t.dtype}: the top of the tile stack <{depth}>"
            f"{_warp_note(f)} (m{m}n{n}k{k}{lay})")
    lines = _para(head, "head", width)
    body, rounded = _heat_grid(t.values, True, 10, width)
    if rounded:
        lines += _para(rounded, "note", width)
    lines += body
    return View("tile", lines, {"tile": t, "scale": _scale(t.values)})


def w_tile(f: "Forth", tok: Token) -> None:
    show(f, tile_view(f))


def frag_view(f: "Forth", width: int = WIDTH) -> View:
    t, depth = _top_tile(f, ".FRAG")
    rows, cols = t.shape
    lane, reg = fragments.tile_maps(t.kind, rows, cols)
    br, bc, _, _ = fragments.BLOCKS[t.kind]
    lines = _para(f"{t.kind} {rows}x{cols} {t.dtype} (top of the tile stack <{depth}>{_warp_note(f)}): the lane "
                  "that holds each element.", "head", width)
    lines += _para("Layout shown: the documented mma.sync m16n8k16 one (PTX ISA 9.7.14.5.8). wmma, which "
                   "tileforth uses on the GPU, does not specify its layout, and it differs between GPU "
                   "generations.", "note", width)
    for text in fragments.describe(t.kind, rows, cols):
        lines += _para(text, "note", width)
    cells = [[str(int(lane[r, c])) for c in range(cols)] for r in range(rows)]
    tags = [[("lane", int(lane[r, c])) for c in range(cols)] for r in range(rows)]
    lines += grid(cells, tags, width, col_group=bc if cols > bc else None,
                  row_group=br if rows > br else None)
    held = [(r, c) for r in range(min(rows, br)) for c in range(min(cols, bc)) if lane[r, c] == 0]
    held.sort(key=lambda rc: reg[rc])
    name = fragments.REG[t.kind]
    lines += _para("lane 0 holds " + ", ".join(f"{name}{reg[rc]}=({rc[0]},{rc[1]})" for rc in held)
                   + " in the first block", "note", width)
    return View("frag", lines, {"tile": t, "lanes": lane, "regs": reg})


def w_frag(f: "Forth", tok: Token) -> None:
    show(f, frag_view(f))


# ---- .M -----------------------------------------------------------------------------------
def _array_by_addr(f: "Forth", addr: int) -> tuple[str, tuple] | None:
    for name, e in f.dict.items():
        if isinstance(e, Constant) and e.array is not None and e.array[0] == addr:
            return e.name, e.array
    return None


def _top_is_array(f: "Forth") -> bool:
    dsp, _, cells, _ = _depths(f)
    if (dsp < 1).any():
        return False
    top = cells[np.arange(len(dsp)), dsp - 1]
    return bool((top == top[0]).all()) and _array_by_addr(f, int(top[0])) is not None


def matrix_view(f: "Forth", name: str, values: np.ndarray, et, width: int = WIDTH) -> View:
    v = np.asarray(values)
    shape = "x".join(map(str, v.shape))
    is_float = et.is_float
    base = 10 if is_float else f.base()
    data = {"name": name, "values": v, "eltype": et.name, "scale": _scale(v)}
    lines: list[list[Span]] = []
    if v.size <= SMALL_MATRIX:
        data["large"] = False
        lines.append([(f"{name}: {shape} {et.name.lower()}", "head")])
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
        return View("matrix", lines + body, data)
    data["large"] = True
    fin = v[np.isfinite(v)] if is_float else v
    stats = ""
    if fin.size:
        mean = float(np.mean(fin.astype(np.float64)))
        lo, hi = ((f"{float(x):.4g}" if is_float else format_int(int(x), base)) for x in (fin.min(), fin.max()))
        stats = f"  min {lo} max {hi} mean {mean:.4g}"
    lines.append([(f"{name}: {shape} {et.name.lower()}{stats}", "head")])
    if v.ndim == 1:
        idx = list(range(CORNER)) + list(range(v.size - CORNER, v.size))
        texts, rounded = format_numbers(v[idx], is_float, base)
        body = grid([texts[:CORNER] + ["..."] + texts[CORNER:]],
                    [[("heat", float(v[i])) for i in idx[:CORNER]] + ["note"] +
                     [("heat", float(v[i])) for i in idx[CORNER:]]],
                    width, row_labels=[""], col_labels=[str(i) for i in idx[:CORNER]] + ["..."] +
                    [str(i) for i in idx[CORNER:]])
    else:
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
    lines += _para("the corners only; SAVE-NPY writes every value to a file", "note", width)
    if rounded:
        lines += _para(rounded, "note", width)
    return View("matrix", lines + body, data)


def _corner_idx(n: int) -> list[int]:
    """Indices of the first and last CORNER rows, -1 marking the gap."""
    if n <= 2 * CORNER + 1:
        return list(range(n))
    return list(range(CORNER)) + [-1] + list(range(n - CORNER, n))


def w_dot_m(f: "Forth", tok: Token) -> None:
    if _top_is_array(f):
        (addr,) = f.pop_uniform(1, ".M")
        name, _ = _array_by_addr(f, addr)
    else:
        nxt = next_on_line(f, tok)
        if nxt is None:
            raise ForthError(".M shows an array: put its address on the stack (`xs .M`) or name it (`.M xs`); "
                             "create one with ARRAY or MATRIX", tok.pos, tok.text)
        e = f.dict.get(nxt.key)
        if not isinstance(e, Constant) or e.array is None:
            what = "an unknown word" if e is None else f"a {e.kind} word"
            raise ForthError(f".M shows an array, but {nxt.text} is {what}: create one with ARRAY or MATRIX, "
                             f"e.g. `16 F32 ARRAY {nxt.text}`", nxt.pos, nxt.text)
        name = e.name
    addr, shape, et = f.dict[name.upper()].array
    show(f, matrix_view(f, name, f.array(name), et))


# ---- SEE, SEE-IR, SEE-PTX, HELP -----------------------------------------------------------
def _entry_lines(name: str, effect: str, text: str, example: str, group: str) -> list[list[Span]]:
    lines: list[list[Span]] = [[(name, "name"), ("  ", None), (effect, "effect")] +
                               ([("  " + group, "note")] if group else [])]
    lines += [[("  " + ln, None)] for ln in textwrap.wrap(text, WIDTH - 2)]
    if example:
        lines.append([("  example: ", "note"), (example, "example")])
    return lines


def _reference() -> dict[str, Any]:
    from .reference import entries  # the reference imports the host word tables: import late
    out: dict[str, Any] = {}
    for e in entries():
        out.setdefault(e.name.upper(), e)
    return out


def _tile_notation(tiles) -> str:
    return " ".join(t.kind for t in tiles)


def effect_header(e: Colon) -> str:
    """`: name ( data effect ) [( T: tile effect )]`, as inferred at `;`."""
    text = f": {e.name} {e.effect.notation()}"
    if e.tile_effect is not None:
        ins, outs = e.tile_effect
        text += f" ( T: {_tile_notation(ins)} -- {_tile_notation(outs)} )".replace("(  ", "( ").replace("  )", " )")
    return text


def colon_notes(e: Colon) -> list[str]:
    out = []
    if not e.effect.static:
        out.append("dynamic: the depth depends on the data, so run-time stack checks stay on")
    callees = [w.name for w in e.callees()]
    if callees:
        out.append("calls: " + " ".join(callees))
    if e.suspends:
        out.append("suspends (BARRIER or a warp operation): inlined into the kernels that call it")
    return out


def w_see(f: "Forth", tok: Token) -> None:
    name = word_name(f, tok, "SEE square")
    e = f.dict.get(name.key)
    if e is None:
        raise ForthError(f"SEE: unknown word {name.text}; WORDS lists the dictionary", name.pos, name.text)
    if isinstance(e, Colon):
        lines = [[(effect_header(e), "head")]]
        lines += [[("  " + ln, "code")] for ln in e.source.strip().splitlines()]
        lines += [[("\\ " + ln, "note")] for ln in colon_notes(e)]
        show(f, View("see", lines, {"word": e.name}))
        return
    show(f, help_view(f, name.text))


BUILTIN_CONSTANT_GROUPS = ("Element types", "Constants and variables")


def help_view(f: "Forth", name: str) -> View:
    e = f.dict.get(name.upper())
    ref = _reference().get(name.upper())
    if e is None:
        raise ForthError(f"HELP: unknown word {name}; WORDS lists the dictionary")
    if isinstance(e, Colon) and e.prelude and ref is not None:
        lines = _entry_lines(ref.name, ref.effect, ref.help, ref.example, ref.group)
    elif isinstance(e, Colon):
        lines = _entry_lines(e.name, effect_header(e)[len(e.name) + 3:], "A colon definition (effects "
                             "inferred); SEE shows its source.", "", "")
        lines += [[("  " + ln, "note")] for ln in colon_notes(e)]
    elif ref is not None and (not isinstance(e, Constant) or ref.group in BUILTIN_CONSTANT_GROUPS):
        lines = _entry_lines(ref.name, ref.effect, ref.help, ref.example, ref.group)
    else:  # a user's constant, variable or array: its help starts with its effect
        text = getattr(e, "help", "") or f"a {e.kind} word"
        effect, _, rest = text.partition(") ") if text.startswith("(") else ("", "", text)
        lines = _entry_lines(e.name, effect + ")" if effect else "", rest, "", "")
    return View("help", lines, {"word": name})


HELP_TEXT = """\
HELP word       a word's stack effect, meaning and an example
WORDS           every word;  SEE word  a definition's source and effects
.S              every stack at the prompt (in a definition: the data stack)
.LANES          each thread's data stack
.TILE  .FRAG    the top tile's values; which lane holds which element
.M name         an array or a matrix (also: addr .M)
SEE-IR word     the LLVM IR of a word;  SEE-PTX word  its PTX
ZEROS FILL RAMP IDENTITY RANDOM LOAD-NPY SAVE-NPY   fill and move arrays"""


def w_help(f: "Forth", tok: Token) -> None:
    nxt = next_on_line(f, tok)
    if nxt is None:
        show(f, View("help", [[(ln, None)] for ln in HELP_TEXT.splitlines()], {"word": None}))
        return
    try:
        show(f, help_view(f, nxt.text))
    except ForthError as err:
        raise ForthError(err.message, nxt.pos, nxt.text)


def ir_text(f: "Forth", word: Colon) -> tuple[str, str]:
    """(a comment saying what is shown, the IR)."""
    from .tree import Call
    target = f.backend.target.name if hasattr(f.backend.target, "name") else f.backend_name
    if word.suspends:
        km = f.compiler.kernel([Call(word, word.pos)], holes=True)
        return (f"; {word.name} reaches a suspend point (BARRIER or a warp operation), so it is inlined "
                f"into its callers: this is a kernel that calls it, for the {target} target",
                str(km.module.get_function(km.name)).strip())
    return f"; {word.name}: LLVM IR for the {target} target", f.compiler.word_ir(word).rstrip()


def w_see_ir(f: "Forth", tok: Token) -> None:
    word = _colon(f, tok, word_name(f, tok, "SEE-IR square"))
    note, text = ir_text(f, word)
    lines = [[(ln, "note")] for ln in textwrap.wrap(note, WIDTH, subsequent_indent="; ")]
    lines += [[(ln, "code")] for ln in text.splitlines()]
    show(f, View("ir", lines, {"word": word.name, "text": text}))


def w_see_ptx(f: "Forth", tok: Token) -> None:
    word = _colon(f, tok, word_name(f, tok, "SEE-PTX square"))
    arch = getattr(f, "ptx_arch", None) or "sm_80"
    try:
        ptx = f.ptx(word.name, arch)
    except ForthError:
        raise
    except Exception as exc:  # the NVPTX back end refused: say so, keep the session
        raise ForthError(f"SEE-PTX: LLVM could not make PTX for {word.name} ({arch}): {exc}") from exc
    lines = [[(f"// {word.name} as a kernel for {arch} (tileforth --arch, or Forth.ptx_arch, changes it)",
                "note")]]
    eff = word.effect
    if eff.static and (eff.dneed + eff.dnet > 0 or eff.fneed + eff.fnet > 0):
        lines.append([("// a kernel returns nothing: the results it leaves on the stacks are dropped, so code "
                       "that only computes them is removed; store them (! F!) to see it", "note")])
    lines += [[(ln, "code")] for ln in ptx.rstrip().splitlines()]
    show(f, View("ptx", lines, {"word": word.name, "text": ptx, "arch": arch}))


INSPECT_GROUP = "Inspection (host words)"
INSPECT_WORDS: list[HostWord] = [
    HostWord(".STACKS", "( -- )", "Show every stack: data and float (entries that differ between threads as "
             "their range) and the tile stack. At the prompt of the REPL `.S` does this too.", w_stacks,
             "1 2 .STACKS", group=INSPECT_GROUP),
    HostWord(".LANES", "( -- )", "Show each thread's data stack (and float stack), threads with equal stacks "
             "on one row.", w_lanes, "TID-X .LANES", group=INSPECT_GROUP),
    HostWord(".TILE", "( -- )", "Show every value of the top tile, with its kind, shape and type.", w_tile,
             "2e TFILL .TILE", group=INSPECT_GROUP),
    HostWord(".FRAG", "( -- )", "Show which lane holds which element of the top tile, in the documented "
             "mma.sync m16n8k16 layout (wmma's own is unspecified).", w_frag, "TZERO .FRAG", group=INSPECT_GROUP),
    HostWord(".M", "( addr -- ) or ( -- )", "Show an array or matrix: every number when small, a summary and "
             "the corners when large. Takes the address of an array on the stack, or a name after it.",
             w_dot_m, "4 F32 ARRAY xs  RAMP xs  .M xs", group=INSPECT_GROUP),
    HostWord("SEE", "( -- )", "Show a colon definition's source and its inferred data, float and tile "
             "effects (other words: their reference entry).", w_see, ": sq DUP * ;  SEE sq",
             group=INSPECT_GROUP),
    HostWord("SEE-IR", "( -- )", "Show the LLVM IR generated for a colon definition.", w_see_ir,
             ": sq DUP * ;  SEE-IR sq", group=INSPECT_GROUP),
    HostWord("SEE-PTX", "( -- )", "Show the PTX of a colon definition launched as a kernel (Forth.ptx_arch, "
             "default sm_80).", w_see_ptx, ": sq DUP * ;  SEE-PTX sq", group=INSPECT_GROUP),
    HostWord("HELP", "( -- )", "Show a word's stack effect, meaning and an example; alone, a summary of the "
             "inspection words.", w_help, "HELP DUP", group=INSPECT_GROUP),
]
