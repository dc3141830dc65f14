"""The inspection words' views in colour (core/inspect.py builds them).

A view is lines of spans `(text, tag)`; its plain text is what `Forth.eval`
returns.  Here the same lines become rich `Text`, styled by tag:

    ("lane", n)    the lane's own background colour (32 hues), black digits
    ("heat", v)    the tile heat-map palette of views.py (blue < 0 < red, grey 0)
    "head" "note" "label" "sep" "name" "effect" "example"   text styles

and a few views get a different body on a colour terminal:

    "stacks"   the REPL's own stack view (views.render_stacks/render_tiles)
    "matrix"   a large array as a heat map (`▀` cells, two rows per line)
    "ir"       LLVM IR highlighted by pygments; tensor-core intrinsics stand out
    "ptx"      PTX by a small regex highlighter; wmma/mma instructions in bold magenta

Without colour every view but "stacks" prints as its plain text, so what a
script sees does not depend on this module.
"""

from __future__ import annotations

import colorsys
import re
import warnings

import numpy as np
from rich.syntax import Syntax
from rich.text import Text

from . import views
from .views import Glyphs, UNICODE, WIDTH

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
    bg = views.PALETTE[int(views.tile_levels([value], scale)[0])]
    return f"{_contrast(bg)} on {bg}"


def span_style(tag, data: dict) -> str:
    if tag is None:
        return ""
    if isinstance(tag, tuple):
        if tag[0] == "lane":
            return f"black on {lane_colour(int(tag[1]))}"
        if tag[0] == "heat":
            return heat_style(float(tag[1]), float(data.get("scale", 0.0)))
        return ""
    return STYLES.get(tag, "")


def styled(view) -> list[Text]:
    """The view's own lines, styled by their tags."""
    out = []
    for line in view.lines:
        text = Text()
        for chunk, tag in line:
            text.append(chunk, style=span_style(tag, view.data))
        text.rstrip()
        out.append(text)
    return out


# ---- code -----------------------------------------------------------------------------------
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
    t = Syntax(text, "llvm", theme="ansi_dark").highlight(text)
    t.rstrip()
    for m in _TC_IR.finditer(text):
        t.stylize(TENSOR_CORE, m.start(), m.end())
    return t


def _code(view, highlight) -> list[Text]:
    head = [Text("".join(s for s, _ in line), style="dim") for line in view.lines if line[0][1] == "note"]
    return head + [highlight(view.data["text"].rstrip("\n"))]


# ---- large matrices -------------------------------------------------------------------------
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
    v = np.asarray(view.data["values"], dtype=np.float64)
    if v.ndim == 1:
        cols = min(MAX_HEAT_COLS, width - 4)
        v = np.concatenate([v, np.full(-len(v) % cols, np.nan)]).reshape(-1, cols) if len(v) > cols else v[None]
    pooled, fr, fc = _pool(v, MAX_HEAT_ROWS, min(MAX_HEAT_COLS, width - 4))
    head = styled(view)[:1]
    note = "each cell is one element" if fr == fc == 1 else f"each cell is the mean of {fr}x{fc} elements"
    lines = head + [Text(f"{note}; two rows per line; blue < 0 < red, grey = 0", style="dim")]
    lines += views.heatmap(pooled, glyphs.half_block)
    return lines


# ---- dispatch -------------------------------------------------------------------------------
def render(kind: str, view, *, forth=None, width: int = WIDTH, colour: bool = False,
           glyphs: Glyphs = UNICODE) -> list[Text]:
    """rich lines for one inspection view."""
    if kind == "stacks" and forth is not None:
        return (views.render_stacks(forth, width=width, glyphs=glyphs)
                + views.render_tiles(forth, width=width, glyphs=glyphs, colour=colour))
    if colour and kind == "matrix" and view.data.get("large") and glyphs.half_block:
        return matrix_heatmap(view, glyphs, width)
    if colour and kind == "ir" and "text" in view.data:
        return _code(view, highlight_ir)
    if colour and kind == "ptx" and "text" in view.data:
        return _code(view, highlight_ptx)
    return styled(view)
