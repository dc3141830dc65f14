"""The step debugger's view (debugger.View) as a hand-written SVG picture: the word and its line with a
caret, the active mask as 32 cells, each lane's top stack items, the block's warps, then each warp's tile
stack, the cp.async groups and the mbarriers (debugger.extra_lines; SAVE-VIEW)."""
from __future__ import annotations

from html import escape

from .debugger import WARP, View, extra_lines

CELL = 18  # a mask cell's side, in pixels
ROW = 16  # a text row's height
WIDTH = 40 + WARP * CELL
COLOURS = {"running": "#4c9a2a", "diverged": "#d08c00", "barrier": "#2a6fb0", "ready": "#999999", "done": "#555555"}


def view_svg(v: View) -> str:
    """The SVG text of a view: WIDTH wide, as tall as its rows; one <rect class="lane"> per mask cell."""
    parts: list[str] = []
    y = 20

    def text(x: int, s: str, cls: str = "t") -> None:
        parts.append(f'<text class="{cls}" x="{x}" y="{y}">{escape(s)}</text>')

    text(10, f"launch {v.launch}  block {v.block}  warp {v.warp}  next: {v.word}")
    if v.pos is not None:
        for line in v.source_line.splitlines():
            y += ROW
            text(10, line, "src")
    y += 8
    for i, on in enumerate(v.mask):
        fill = "#4c9a2a" if on else "#eeeeee"
        parts.append(f'<rect class="lane" x="{10 + i * CELL}" y="{y}" width="{CELL - 2}" height="{CELL - 2}" '
                     f'fill="{fill}"><title>lane {i}</title></rect>')
    y += CELL + ROW
    for i, st in enumerate(v.warps):
        parts.append(f'<rect class="warp" x="{10 + i * 4 * CELL}" y="{y - 12}" width="{4 * CELL - 4}" height="14" '
                     f'fill="{COLOURS.get(st, "#999999")}"/>')
        parts.append(f'<text class="w" x="{14 + i * 4 * CELL}" y="{y}">{i}:{escape(st)}</text>')
    for ln in v.lanes:
        if ln.done:
            continue
        y += ROW
        text(10, f"{'*' if ln.active else ' '}{ln.lane:2} <{ln.depth}> " + " ".join(str(x) for x in ln.top))
    for line in extra_lines(v):  # one <text class="extra"> per row: tiles, cp.async, each mbarrier
        y += ROW
        text(10, line, "extra")
    height = y + 12
    style = ("<style>text{font-family:monospace;font-size:12px}.w{fill:white;font-size:10px}"
             ".src{white-space:pre}</style>")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH + 20}" height="{height}" '
            f'viewBox="0 0 {WIDTH + 20} {height}">{style}<rect width="100%" height="100%" fill="white"/>'
            + "".join(parts) + "</svg>\n")
