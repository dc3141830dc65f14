"""Pictures of views to keep: `.TILE`, `.FRAG`, `.LANES`, `PROFILE` and the step debugger's stop as SVG or
PNG files (SAVE-VIEW, `save`), and as images in notebooks.

Each view becomes a `Picture`, a grid of coloured cells with a title and a tooltip per cell:

- `.TILE`: the tile's rows x cols elements, coloured blue < 0 < red, scaled to the largest |value|
  (`heat`: the grey of zero blended towards the end colour by |value| / max; NaN and inf magenta);
- `.FRAG`: the tile's elements, each in the colour of the lane that holds it (`lane_colour`: 32 hues);
- `.LANES`: a row per thread, a cell per data stack item (bottom first; white past the thread's depth),
  coloured as `.TILE` colours its elements, scaled to the largest |item|;
- `PROFILE`: a row per load/store site (every launch's, in order), three cells: the lanes (yellow where
  a request had fewer lanes than its warp, else green), the sectors (global memory: yellow beyond the
  ideal, else green), the bank conflicts (shared memory: red when any, else green); grey where the
  figure does not apply;
- the debugger's stop: the warp's 32 lanes (green: active) then a row of the block's warps coloured by
  state (debugsvg.COLOURS). Its SVG is debugsvg's fuller picture (the source, the lanes' stacks).

`svg(p)` draws a picture with <rect class="cell"> per cell (CELL pixels, under a title line); `png(p)`
is the cell grid alone, PNG_CELL pixels a cell (png.py writes the file). Core knows no terminal: the
colours here are the REPL's palette ends (repl/render.py TILE_NEG, TILE_MID, TILE_POS) as numbers.
"""
from __future__ import annotations

import colorsys
import weakref
from html import escape
from typing import Any

import numpy as np

from ..errors import ForthError
from ..records import field, record
from . import png as png_file

CELL = 14  # an SVG cell's side, in pixels
PNG_CELL = 8  # a PNG cell's side, in pixels
TITLE = 22  # the SVG's title line
MARGIN = 10
NEG, MID, POS = (59, 76, 192), (221, 221, 221), (180, 4, 38)
NAN = (255, 0, 255)
EMPTY = (255, 255, 255)
GREEN, YELLOW, RED, NA = (76, 154, 42), (208, 140, 0), (200, 30, 30), (238, 238, 238)
STATE = {"running": (76, 154, 42), "diverged": (208, 140, 0), "barrier": (42, 111, 176), "ready": (153, 153, 153),
         "done": (85, 85, 85)}
KINDS = ("tile", "frag", "lanes", "profile", "debug")


@record
class Picture:
    """A view as cells: (rows, cols, 3) uint8 colours, a tooltip per cell, a title."""

    kind: str
    title: str
    rgb: np.ndarray
    tips: list[list[str]] = field(default_factory=list)

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.rgb.shape[0]), int(self.rgb.shape[1])


def heat(values: np.ndarray) -> np.ndarray:
    """(…, 3) uint8 colours of values: MID blended towards POS (> 0) or NEG (< 0) by |v| / max |v|."""
    v = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(v)
    scale = float(np.abs(v[finite]).max()) if finite.any() else 0.0
    t = np.where(finite, v, 0.0) / scale if scale else np.zeros_like(v)
    mid, pos, neg = (np.array(c, np.float64) for c in (MID, POS, NEG))
    a = np.abs(t)[..., None]
    out = mid + (np.where(t[..., None] > 0, pos, neg) - mid) * a
    out = np.rint(out)
    out[~finite] = NAN
    return out.astype(np.uint8)


def lane_colour(lane: int) -> tuple[int, int, int]:
    """A lane's colour: hue lane/32 of the wheel, saturation 0.45, value 1 (the REPL's .FRAG colours)."""
    r, g, b = colorsys.hsv_to_rgb((lane % 32) / 32, 0.45, 1.0)
    return round(r * 255), round(g * 255), round(b * 255)


def _tips(values: np.ndarray, fmt=lambda x: f"{x:g}") -> list[list[str]]:
    return [[f"({r},{c}) {fmt(values[r, c])}" for c in range(values.shape[1])] for r in range(values.shape[0])]


def picture(view: Any) -> Picture:
    """The picture of a view record (views.TileValues, Fragments, Lanes, accessprofile.Profile, a debugger
    View)."""
    from .debugger import View as Stop

    if isinstance(view, Stop):
        return _stop(view)
    kind = getattr(view, "kind", "")
    if kind == "tile":
        t = view.tile
        vals = np.asarray(t.values, dtype=np.float64)
        return Picture("tile", f"{t.kind} {vals.shape[0]}x{vals.shape[1]} {t.dtype} (.TILE)", heat(vals), _tips(vals))
    if kind == "frag":
        lanes = np.asarray(view.lanes)
        rgb = np.array([[lane_colour(int(x)) for x in row] for row in lanes], np.uint8).reshape(*lanes.shape, 3)
        return Picture("frag", f"{view.tile.kind} {lanes.shape[0]}x{lanes.shape[1]}: the lane of each element (.FRAG)",
                       rgb, _tips(lanes, lambda x: f"lane {int(x)}"))
    if kind == "lanes":
        depth = np.asarray(view.depth)
        cols = max(1, int(depth.max()) if depth.size else 1)
        vals = np.zeros((len(depth), cols))
        have = np.arange(cols)[None, :] < depth[:, None]
        vals[:, :min(cols, view.cells.shape[1])] = view.cells[:, :cols]
        rgb = heat(np.where(have, vals, 0.0))
        rgb[~have] = EMPTY
        tips = [[f"thread {t} item {i}: {int(vals[t, i])}" if have[t, i] else f"thread {t}: <{depth[t]}>"
                 for i in range(cols)] for t in range(len(depth))]
        return Picture("lanes", f"the data stack of each of the {len(depth)} threads (.LANES)", rgb, tips)
    if kind == "profile":
        sites = [s for p in view.launches for s in p.sites]
        if not sites:
            raise ForthError("the profile has no load or store sites to draw: PROFILE a line that reads or "
                             "writes memory")
        rgb = np.zeros((len(sites), 3, 3), np.uint8)
        tips = []
        for r, s in enumerate(sites):
            row = [YELLOW if s.divergent else GREEN]
            if s.space == "global":
                row += [YELLOW if s.sectors_per_request > s.ideal_sectors_per_request else GREEN, NA]
            else:
                row += [NA, RED if s.bank_conflicts else GREEN]
            rgb[r] = row
            tips.append([f"{s.where} {s.token}: {s.lanes_per_request:.1f} lanes per request",
                         f"{s.sectors_per_request:.1f} sectors per request (ideal {s.ideal_sectors_per_request:.1f})",
                         f"{s.bank_conflicts} bank conflicts"])
        return Picture("profile", view.title, rgb, tips)
    raise ForthError(f"a {kind or type(view).__name__} view has no picture: SAVE-VIEW draws .TILE, .FRAG, .LANES, "
                     "PROFILE and the debugger's stop")


def _stop(v: Any) -> Picture:
    n = max(32, len(v.warps))
    rgb = np.full((2, n, 3), 255, np.uint8)
    tips = [[""] * n, [""] * n]
    for i, on in enumerate(v.mask):
        rgb[0, i] = GREEN if on else (238, 238, 238)
        tips[0][i] = f"lane {i}" + (" runs " + v.word if on else "")
    for i, st in enumerate(v.warps):
        rgb[1, i] = STATE.get(st, (153, 153, 153))
        tips[1][i] = f"warp {i}: {st}"
    return Picture("debug", f"launch {v.launch} block {v.block} warp {v.warp} next: {v.word}", rgb, tips)


def svg(p: Picture) -> str:
    """The SVG text of a picture: a title, then one <rect class="cell"> per cell with its tooltip."""
    rows, cols = p.shape
    w, h = 2 * MARGIN + cols * CELL, TITLE + 2 * MARGIN + rows * CELL
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">',
             '<rect width="100%" height="100%" fill="white"/>',
             f'<text x="{MARGIN}" y="{MARGIN + 12}" font-family="monospace" font-size="12">{escape(p.title)}</text>']
    for r in range(rows):
        for c in range(cols):
            fill = "#%02x%02x%02x" % tuple(int(x) for x in p.rgb[r, c])
            tip = p.tips[r][c] if p.tips else ""
            parts.append(f'<rect class="cell" x="{MARGIN + c * CELL}" y="{TITLE + MARGIN + r * CELL}" width="{CELL}" '
                         f'height="{CELL}" fill="{fill}"><title>{escape(tip)}</title></rect>')
    return "".join(parts) + "</svg>\n"


def png(p: Picture) -> bytes:
    """The PNG bytes of a picture's cells, PNG_CELL pixels each (no title: a PNG has no text)."""
    return png_file.encode(np.repeat(np.repeat(p.rgb, PNG_CELL, axis=0), PNG_CELL, axis=1))


# ---- what SAVE-VIEW saves ---------------------------------------------------------------------
_last: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()
_watchers: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()  # session -> fn(view) (watch)


def note(f: Any, view: Any) -> None:
    """A view was shown (words/inspection.show): the last one with a picture is what SAVE-VIEW saves, and
    the session's watcher, if any, is handed it."""
    if getattr(view, "kind", "") in KINDS:
        try:
            _last[f] = view
            fn = _watchers.get(f)
        except TypeError:  # a session that cannot be a weak key keeps no last view
            return
        if fn is not None:
            fn(view)


def watch(f: Any, fn: Any) -> None:
    """Hand each view with a picture the session shows from now on to fn(view) (`tileforth --save-view
    view-{n}.svg`); None stops."""
    if fn is None:
        _watchers.pop(f, None)
    else:
        _watchers[f] = fn


def last(f: Any) -> Any | None:
    return _last.get(f)


def file_text(view: Any, path: str) -> str | bytes:
    """What a file named path holds for the view: SVG text (.svg) or PNG bytes (.png)."""
    from .debugger import View as Stop

    low = path.lower()
    if low.endswith(".svg"):
        if isinstance(view, Stop):
            from .debugsvg import view_svg

            return view_svg(view)
        return svg(picture(view))
    if low.endswith(".png"):
        return png(picture(view))
    raise ForthError(f"SAVE-VIEW writes .svg or .png files, not {path}: `SAVE-VIEW stop.svg` or `SAVE-VIEW tile.png`")


def save(view: Any, path: str) -> None:
    """Write the view's picture to path (.svg or .png); a ForthError if it cannot be written."""
    data = file_text(view, path)
    try:
        if isinstance(data, bytes):
            with open(path, "wb") as out:
                out.write(data)
        else:
            with open(path, "w", encoding="utf-8") as out:
                out.write(data)
    except OSError as exc:
        raise ForthError(f"SAVE-VIEW cannot write {path}: {exc.strerror}; name a file in a folder you can "
                         "write to") from None


def current(f: Any) -> Any:
    """What SAVE-VIEW saves now: the debugged line's stop, else the last .TILE .FRAG .LANES or PROFILE shown."""
    from .debugger import state_of

    d = state_of(f).debugger
    if d is not None:
        return d.view()
    view = last(f)
    if view is None:
        raise ForthError("SAVE-VIEW saves the debugger's stop or the last .TILE, .FRAG, .LANES or PROFILE view, "
                         "and none was shown yet: show one first (`.TILE`, then `SAVE-VIEW tile.png`)")
    return view


def save_view(f: Any, path: str) -> None:
    """Python's SAVE-VIEW: `save_view(f, "tile.png")` writes what SAVE-VIEW would."""
    save(current(f), path)


def stacked(pics: list[Picture]) -> Picture:
    """Pictures one under the other (a white row between, the narrower padded with white), as one."""
    if len(pics) == 1:
        return pics[0]
    width = max(p.shape[1] for p in pics)
    rows, tips = [], []
    for i, p in enumerate(pics):
        if i:
            rows.append(np.full((1, width, 3), 255, np.uint8))
            tips.append([""] * width)
        pad = np.full((p.shape[0], width, 3), 255, np.uint8)
        pad[:, :p.shape[1]] = p.rgb
        rows.append(pad)
        tips += [list(r) + [""] * (width - len(r)) for r in (p.tips or [[""] * p.shape[1]] * p.shape[0])]
    return Picture("stacked", "; ".join(p.title for p in pics), np.concatenate(rows), tips)
