"""Jupyter: `%load_ext tileforth`, the `%%forth` cell magic, the `%forth` line magic and `%forth_session`.

    %load_ext tileforth
    %%forth --backend cpu --grid 1 1 1 --threads 32 1 1
    TID-X DUP *

    %forth 2 3 + .              one line of Forth, in the same session, shown as a cell is

One Forth session per IPython kernel, made by the first `%%forth` cell (or
`%forth_session`).  A cell runs line by line, as `tileforth FILE` runs a
script (a definition or `[IF]` may go on over lines); it shows what the lines
printed, the inspection words' views (.S .LANES .TILE .FRAG .M SEE HELP ...)
where they were printed, then the stacks, as the REPL shows them after a
line.  Each cell's result is one display bundle: ``text/plain`` is exactly
what the REPL prints without a terminal (what a test or `nbconvert --to
markdown` reads), ``text/html`` the same views in colour: rich renders the
text views, and tiles, `.TILE`, `.FRAG` and small `.M` arrays become coloured
HTML tables (heat maps: blue < 0 < red; `.FRAG`: one colour per lane).  An
error stops the cell and shows the message, the line and the caret, never a
Python traceback; the session stays as it was before the failing line.

    f = %forth_session          the session's Forth object (tileforth.core.Forth), the Python API

Options of `%%forth` (and of `%forth_session`):

    --backend cpu|cuda|auto     start the session on this backend (a session on another backend is
                                closed: the new one starts with an empty dictionary and stacks);
                                without it the first session's is $TILEFORTH_BACKEND, else auto
    --grid X Y Z                `X Y Z GRID` before the cell's lines (it stays, as GRID does)
    --threads X Y Z             `X Y Z THREADS` before the cell's lines
    --new                       a fresh session (on the same backend unless --backend says otherwise)
    --no-stacks                 leave out the stacks after the cell
    --trace [N]                 run the cell under the step debugger (the emulator: core/session/debugger.py)
                                and show its first N stops (default 200), word by word for the warp that
                                runs, as a scrollable list of pictures (each stop's view as inline SVG;
                                text/plain: the views as the REPL prints them), then what the cell
                                printed and the stacks
    --save-view FILE            after the cell, write SAVE-VIEW's picture to FILE (.svg or .png): the last
                                .TILE, .FRAG, .LANES or PROFILE view the session showed

A cell that runs longer than half a second shows how long it has run and its launch's blocks done until
it ends (Progress).

`%load_ext tileforth` in a kernel also sends the Javascript that highlights `%%forth` cells as
tileforth (tileforth/repl/highlight.py: the classic notebook with this word list; JupyterLab 4 and
Notebook 7 with their own Forth mode when started with --expose-app-in-browser, else not at all).

The session and the views are the REPL's own (tileforth/repl/session.py, tileforth/repl/render.py);
core knows nothing of this module.  IPython is imported only by
`load_ipython_extension`, so the module itself imports without it.
"""

from __future__ import annotations

import argparse
import html
import io
import os
import re
import shlex
from typing import Any

import numpy as np
from rich.console import Console
from rich.text import Text

from tileforth import registry
from tileforth.core.records import field, record

from ..core.session.output import format_numbers
from ..core.session.views import WIDTH, tile_label, tile_stats
from . import render
from .session import Bye, LineResult, Session

MARK = "\ue000"  # a private-use character around a view's number in the line's output
_VIEW_RX = re.compile(MARK + r"(\d+)" + MARK)
HTML_WIDTH = 120  # columns of the rich views in HTML (a notebook is wider than a terminal)

PRE = ('<pre style="font-family:var(--jp-code-font-family,monospace);font-size:13px;line-height:1.35;'
       'margin:2px 0;white-space:pre;background:transparent">{code}</pre>')
# an error: its message broken between words at ERROR_WIDTH columns, its source line cut to a window
# there (render.render_error), and what is still wider than the output area wrapped, not cut off
ERROR_WIDTH = 100
TRACE_STOPS = 200  # the stops `%%forth --trace` shows unless told (the line runs to its end either way)
TRACE_MAX = 5000
TRACE_HEIGHT = 520  # pixels of the trace's scrolling box
PROGRESS_AFTER_S = 0.5  # a cell running longer shows how long it has run (as the REPL's lines: prompt.py)
PRE_WRAP = PRE.replace("white-space:pre;", "white-space:pre-wrap;overflow-wrap:anywhere;")


# ---------------------------------------------------------------- options


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # a usage error is shown as a short message, not SystemExit
        raise ValueError(message)


def _parser(prog: str) -> _Parser:
    p = _Parser(prog=prog, add_help=False)
    p.add_argument("--backend", choices=registry.backend_choices(), default=None)
    p.add_argument("--grid", type=int, nargs="+", metavar="N", default=None)
    p.add_argument("--threads", "--block", dest="threads", type=int, nargs="+", metavar="N", default=None)
    p.add_argument("--new", action="store_true")
    p.add_argument("--no-stacks", dest="stacks", action="store_false")
    p.add_argument("--save-view", dest="save_view", default=None, metavar="FILE")
    p.add_argument("--trace", type=int, nargs="?", const=TRACE_STOPS, default=None, metavar="N")
    return p


def parse_options(line: str, prog: str = "%%forth") -> argparse.Namespace:
    args = _parser(prog).parse_args(shlex.split(line))
    for name in ("grid", "threads"):
        v = getattr(args, name)
        if v is not None:
            if not 1 <= len(v) <= 3 or min(v) < 1:
                raise ValueError(f"--{name} takes one to three positive numbers (X [Y [Z]]), e.g. --{name} 2 1 1")
            setattr(args, name, tuple(v) + (1,) * (3 - len(v)))
    if args.trace is not None and not 1 <= args.trace <= TRACE_MAX:
        raise ValueError(f"--trace takes the number of stops to show, 1 to {TRACE_MAX}, e.g. --trace 50")
    return args


# ---------------------------------------------------------------- a cell's result


@record
class CellResult:
    """What a cell showed: parts in order, each ("text", str) for program
    output and notes, ("view", (kind, record)) for an inspection view, then
    the stacks record (None: not shown) and the failed line (None: none)."""

    parts: list = field(default_factory=list)
    stacks: object = None
    error: LineResult | None = None
    notes: list[str] = field(default_factory=list)

    def plain(self) -> str:
        out = []
        for what, item in self.parts:
            out.append(item if what == "text" else plain_view(*item))
        if self.stacks is not None:
            out.append(plain_view("stacks", self.stacks))
        out += [n + "\n" for n in self.notes]
        if self.error is not None:
            out.append(plain_error(self.error) + "\n")
        return "".join(out)

    def html(self) -> str:
        out = ['<div class="tileforth-output">']
        for what, item in self.parts:
            if what == "text":
                if item:
                    out.append(PRE.format(code=html.escape(item.rstrip("\n"))))
            else:
                out.append(html_view(*item))
        if self.stacks is not None:
            out.append(html_view("stacks", self.stacks))
        for n in self.notes:
            out.append(PRE.format(code=f'<span style="opacity:0.7">{html.escape(n)}</span>'))
        if self.error is not None:
            out.append(_rich_html([_error_text(self.error, ERROR_WIDTH)], code_format=PRE_WRAP))
        out.append("</div>")
        return "\n".join(out)

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": self.plain(), "text/html": self.html()}
        bundle.update(image_bundle([item for what, item in self.parts if what == "view"]))
        return bundle


def image_bundle(views: list) -> dict:
    """The heat maps among a cell's views (.TILE .FRAG .LANES PROFILE) as one picture, image/png (base64)
    and image/svg+xml, which outlive the HTML where a reader drops its styles (nbconvert to PDF or
    markdown, sites that render notebooks); {} when the cell showed none."""
    import base64

    from ..core.session import viewexport

    pics = []
    for kind, view in views:
        if kind in viewexport.KINDS:
            try:
                pics.append(viewexport.picture(view))
            except Exception:  # a view without a picture (an empty profile): the HTML shows it
                continue
    if not pics:
        return {}
    pic = viewexport.stacked(pics)
    return {"image/png": base64.b64encode(viewexport.png(pic)).decode("ascii"), "image/svg+xml": viewexport.svg(pic)}


@record
class TraceResult:
    """`%%forth --trace`: the stops shown (debugger.View records), how many the cell's launches made in all,
    then the cell's result after them (what it printed and the stacks, or why it failed)."""

    stops: list = field(default_factory=list)
    total: int = 0
    after: CellResult | None = None

    def plain(self) -> str:
        from ..core.session.debugger import render as render_stop

        out = []
        for i, v in enumerate(self.stops):
            out.append(f"-- stop {i + 1} of {self.total} --\n{render_stop(v)}\n")
        if self.total > len(self.stops):
            out.append(f"({self.total - len(self.stops)} more stops not shown: --trace N shows N)\n")
        if not self.total:
            out.append("(no stops: the cell launched nothing on the device)\n")
        return "".join(out) + (self.after.plain() if self.after is not None else "")

    def html(self) -> str:
        from ..core.session.debugsvg import view_svg

        out = [f'<div class="tf-trace" style="max-height:{TRACE_HEIGHT}px;overflow:auto;border:1px solid #ccc;'
               'padding:4px">']
        for i, v in enumerate(self.stops):
            out.append(f'<div class="tf-stop" data-stop="{i + 1}" style="margin:0 0 8px 0">'
                       + PRE.format(code=html.escape(f"stop {i + 1} of {self.total}")) + view_svg(v) + "</div>")
        if self.total > len(self.stops):
            out.append(PRE.format(code=html.escape(f"({self.total - len(self.stops)} more stops not shown: "
                                                   "--trace N shows N)")))
        out.append("</div>")
        if self.after is not None:
            out.append(self.after.html())
        return "\n".join(out)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": self.plain(), "text/html": self.html()}


def _error_text(result: LineResult, width: int | None = None) -> Text:
    if result.internal:
        e = result.error
        text = Text()
        if result.where:
            text.append(f"{result.where}: ", style="bold")
        text.append("internal error (a bug in tileforth, please report it): ", style="bold red")
        text.append(f"{type(e).__name__}: {e}")
        return text
    return render.render_error(result.error, where=result.where, source_line=result.source_line,
                              running=result.running, width=width, wrap=width is not None)


def plain_error(result: LineResult) -> str:
    return _error_text(result).plain


# ---------------------------------------------------------------- views


def plain_view(kind: str, view) -> str:
    """A view as the REPL prints it without a terminal (Display.inspect_view)."""
    if kind in ("stacks", *render.OWN_LAYOUT):
        lines = render.render(kind, view, width=WIDTH, colour=False)
        return "".join(line.plain.rstrip() + "\n" for line in lines)
    return view.plain()


def _rich_html(lines: list[Text], width: int = HTML_WIDTH, code_format: str = PRE) -> str:
    con = Console(file=io.StringIO(), record=True, width=width, force_terminal=True, force_jupyter=False,
                  color_system="truecolor",
                  highlight=False, soft_wrap=True)
    for line in lines:
        con.print(line)
    return con.export_html(inline_styles=True, code_format=code_format)


def _contrast(colour: str) -> str:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#fff"


TABLE = ('<table class="{cls}" style="border-collapse:collapse;font-family:monospace;font-size:{size}px;'
         'margin:4px 0;table-layout:fixed">')
HEAD = '<th style="padding:0 4px;font-weight:normal;opacity:0.6;text-align:right">{}</th>'


def heat_table(values, *, is_float: bool = True, base: int = 10, numbers: bool = True, cls: str = "tf-heat",
               caption: str | None = None) -> str:
    """A matrix as an HTML table coloured by the tile palette (blue < 0 <
    red, scaled to the largest |value|, grey only for zero; NaN magenta):
    each cell its number, or (numbers=False) a small square with the
    number as its tooltip."""
    v = np.asarray(values)
    row_labels = col_labels = None
    texts, rounded = format_numbers(v, is_float, base)
    if v.ndim == 1:  # a vector: 16 to a row, as `.M` lists it (8 to a row there)
        n = v.size
        cols = min(16, max(n, 1))
        rows = -(-n // cols)
        pad = rows * cols - n
        v = np.concatenate([v.astype(np.float64), np.full(pad, np.nan)]).reshape(rows, cols)
        texts = texts + [""] * pad
        row_labels = [str(r * cols) for r in range(rows)]
        col_labels = [f"+{c}" for c in range(cols)]
    rows, cols = v.shape
    levels = render.tile_levels(v.astype(np.float64)) if v.size else v
    out = [TABLE.format(cls=cls, size=11 if numbers else 9)]
    if caption:
        out.append(f'<caption style="text-align:left;font-weight:bold">{html.escape(caption)}</caption>')
    if numbers:
        out.append("<tr><th></th>" + "".join(HEAD.format(c) for c in (col_labels or range(cols))) + "</tr>")
    for r in range(rows):
        cells = [HEAD.format(row_labels[r] if row_labels else r)] if numbers else []
        for c in range(cols):
            text = texts[r * cols + c]
            if text == "":  # past the end of a vector
                cells.append("<td></td>")
                continue
            bg = render.PALETTE[int(levels[r, c])]
            title = f"({r},{c}) {text}"
            if numbers:
                cells.append(f'<td title="{title}" style="background:{bg};color:{_contrast(bg)};padding:1px 4px;'
                             f'text-align:right;border:1px solid rgba(255,255,255,0.35)">{html.escape(text)}</td>')
            else:
                cells.append(f'<td title="{title}" style="background:{bg};width:9px;height:9px;padding:0;'
                             'border:0"></td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    if rounded and numbers:
        out.append(PRE.format(code=f'<span style="opacity:0.7">{html.escape(rounded)}</span>'))
    return "".join(out)


def lane_table(lanes: np.ndarray, block: tuple[int, int]) -> str:
    """`.FRAG`: each element's lane, in the lane's own colour; a thicker
    line between mma.sync blocks."""
    rows, cols = lanes.shape
    br, bc = block
    out = [TABLE.format(cls="tf-frag", size=11)]
    out.append("<tr><th></th>" + "".join(HEAD.format(c) for c in range(cols)) + "</tr>")
    for r in range(rows):
        cells = [HEAD.format(r)]
        for c in range(cols):
            lane = int(lanes[r, c])
            bg = render.lane_colour(lane)
            left = "2px solid #555" if c and c % bc == 0 else "1px solid #fff"
            top = "2px solid #555" if r and r % br == 0 else "1px solid #fff"
            cells.append(f'<td title="({r},{c}) lane {lane}" style="background:{bg};color:#000;padding:1px 4px;'
                         f'text-align:right;border:1px solid #fff;border-left:{left};border-top:{top}">{lane}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _tile_panel(t) -> str:
    lo, hi, _, bad = tile_stats(t.values)
    stats = "all nan/inf" if lo is None else f"min {lo:.4g} max {hi:.4g}" + (" nan/inf" if bad else "")
    return ('<div style="display:inline-block;vertical-align:top;margin:0 14px 4px 0">'
            + heat_table(t.values, numbers=False, caption=tile_label(t))
            + f'<div style="font-family:monospace;font-size:11px;opacity:0.7">{html.escape(stats)}</div></div>')


def _note_lines(view, keep) -> tuple[list[Text], list[Text]]:
    """The record's own lines (at HTML_WIDTH) whose first span's tag is in `keep`, styled: those before
    its first other line (the title, the notes above a grid) and those after its last (below it)."""
    raw = view.lines(HTML_WIDTH)
    lines = render.styled(view, HTML_WIDTH)  # the same lines: wrapped at the same width
    noted = [bool(r) and r[0][1] in keep for r in raw]
    if all(noted):
        return lines, []
    first = noted.index(False)
    last = len(noted) - noted[::-1].index(False)
    return ([ln for ln, n in zip(lines[:first], noted) if n],
            [ln for ln, n in zip(lines[last:], noted[last:]) if n])


def html_view(kind: str, view) -> str:
    """A view record as HTML: tables for tiles, `.TILE`, `.FRAG` and small
    arrays, rich's HTML for the rest."""
    try:
        if kind == "stacks":
            out = _rich_html(render.stack_lines(view, width=HTML_WIDTH))
            if view.tiles:
                head = Text()
                head.append("tiles", style="bold cyan")
                head.append(f" <{len(view.tiles)}>", style="dim")
                if view.warps > 1:
                    note = f" warp 0 of {view.warps}"
                    if view.warps_alike is not None:
                        note += " (all alike)" if view.warps_alike else " (the warps differ)"
                    head.append(note, style="dim")
                out += _rich_html([head]) + "<div>" + "".join(_tile_panel(t) for t in view.tiles) + "</div>"
            return out
        if kind == "tile":
            above, below = _note_lines(view, ("head", "note"))
            return (_rich_html(above) + heat_table(view.tile.values, is_float=True)
                    + (_rich_html(below) if below else ""))
        if kind == "frag":  # the title and notes, the lanes' table, then which elements lane 0 holds
            above, below = _note_lines(view, ("head", "note"))
            return _rich_html(above) + lane_table(view.lanes, view.block) + _rich_html(below)
        if kind == "matrix" and not view.large:
            base = 10 if view.is_float else view.base
            v = np.asarray(view.values)
            shape = "x".join(map(str, v.shape))
            return heat_table(v, is_float=view.is_float, base=base,
                              caption=f"{view.name}: {shape} {view.eltype.lower()}")
        return _rich_html(render.render(kind, view, width=HTML_WIDTH, colour=True))
    except Exception:  # a view never fails the cell: its plain text will do
        return PRE.format(code=html.escape(plain_view(kind, view).rstrip("\n")))


# ---------------------------------------------------------------- the session


class Notebook:
    """One Forth session for a kernel, and how a cell runs in it."""

    def __init__(self, backend: str = "auto") -> None:
        self.session = Session.start(backend)
        self.session.set_source("<cell>")
        self._views: list[tuple[str, object]] = []

    @property
    def forth(self):
        return self.session.forth

    def close(self) -> None:
        self.forth.close()

    def _hook(self, kind: str, view) -> str:
        self._views.append((kind, view))
        return f"{MARK}{len(self._views) - 1}{MARK}"

    def _split(self, text: str) -> list:
        parts = []
        pos = 0
        for m in _VIEW_RX.finditer(text):
            if m.start() > pos:
                parts.append(("text", text[pos:m.start()]))
            parts.append(("view", self._views[int(m.group(1))]))
            pos = m.end()
            if text.startswith("\n", pos):  # the view's own line end: its layout ends the line
                pos += 1
        if pos < len(text):
            parts.append(("text", text[pos:]))
        return parts

    def run_cell(self, cell: str, *, grid=None, threads=None, stacks: bool = True) -> CellResult:
        """Run a cell's lines; stop at the first failing one."""
        forth = self.forth
        result = CellResult()
        lines = cell.splitlines()
        prologue = []
        if grid is not None:
            prologue.append("{} {} {} GRID".format(*grid))
        if threads is not None:
            prologue.append("{} {} {} THREADS".format(*threads))
        saved = forth.display, forth.dot_s_shows_all
        forth.display, forth.dot_s_shows_all = self._hook, True  # only while a cell runs: the Python API sees text
        self._views = []
        try:
            for text in prologue:
                res = self.session.run_line(text, 0)
                if res.error is not None:
                    res.where = f"--grid/--threads ({text})"
                    result.parts += self._split(res.output if res.output.endswith("\n") or not res.output
                                                else res.output + "\n")
                    result.error = res
                    return result
            last_output = ""
            for lineno, text in enumerate(lines, start=1):
                res = self.session.run_line(text, lineno)
                out = res.output
                if out and not out.endswith("\n"):  # as the REPL: the next line's output starts fresh
                    out += "\n"
                result.parts += self._split(out)
                result.notes += list(res.warnings)
                if res.error is not None:
                    if len(lines) == 1 and not prologue and res.running is None:
                        res.where = None  # one line: in view, as at the prompt
                    result.error = res
                    return result
                last_output = res.output
        except Bye:
            result.notes.append("BYE ends a tileforth session at the prompt; in a notebook the session stays "
                                "(%%forth --new starts a fresh one)")
            return result
        finally:
            forth.display, forth.dot_s_shows_all = saved
        if self.session.compiling:
            result.notes.append(f"(inside the definition of {_open_name(forth)}: the next cell may go on; "
                                "end it with ;)")
        elif stacks and not self._ended_with_stacks(result, last_output):
            from ..core.session.words.inspection import stacks_record

            result.stacks = stacks_record(forth)
        return result

    def trace_cell(self, cell: str, stops: int = TRACE_STOPS, *, grid=None, threads=None,
                   stacks: bool = True) -> TraceResult | CellResult:
        """Run the cell under the step debugger: its first `stops` stops, then its result."""
        from ..core.errors import ForthError
        from ..core.session.debugger import STEP_CAP

        if grid is not None or threads is not None:  # GRID and THREADS first, as a cell without --trace
            first = self.run_cell("", grid=grid, threads=threads, stacks=False)
            if first.error is not None:
                return first
        forth = self.forth
        after = CellResult()
        result = TraceResult(after=after)
        try:
            d = forth.debug(cell)
        except ForthError as e:
            after.error = LineResult(output="", error=e, source_line=getattr(e.pos, "text", None))
            return result
        while not d.finished and result.total < STEP_CAP:  # (once finished, a view has no word: not a stop)
            if len(result.stops) < stops:
                result.stops.append(d.view())
            result.total += 1
            d.advance()
        if d.output:
            after.parts.append(("text", d.output if d.output.endswith("\n") else d.output + "\n"))
        if d.error is not None:
            d.quit()
            after.error = LineResult(output=d.output, error=d.error, source_line=getattr(d.error.pos, "text", None))
        elif stacks:
            from ..core.session.words.inspection import stacks_record

            after.stacks = stacks_record(forth)
        return result

    def _ended_with_stacks(self, result: CellResult, last_output: str) -> bool:
        """The last line ended by showing the stacks as they are (`.S`): once, not twice."""
        m = None
        for m in _VIEW_RX.finditer(last_output):
            pass
        if m is None or last_output[m.end():].strip() or self._views[int(m.group(1))][0] != "stacks":
            return False
        from ..core.session.words.inspection import stacks_record

        return plain_view("stacks", self._views[int(m.group(1))][1]) == plain_view("stacks", stacks_record(self.forth))


def save_view_note(forth, path: str) -> str:
    """--save-view: write the picture; the note saying so (or why not)."""
    from ..core.errors import ForthError
    from ..core.session import viewexport

    try:
        viewexport.save_view(forth, path)
    except ForthError as e:
        return f"--save-view: {e.message}"
    return f"saved the view to {path}"


class Progress:
    """While a cell runs: after PROGRESS_AFTER_S, an output that says how long it has run and, while a launch
    runs on the emulator, its blocks and threads done with a bar (progress.py), updated four times a second
    and emptied when the cell ends (a cell that ends sooner shows none). `show(bundle)` makes the output and
    returns a handle whose `update(bundle, raw=True)` replaces it (IPython's display_id); `backend`: the
    session's backend, whose launches' blocks it counts."""

    HINT = "interrupt the kernel to stop it"

    def __init__(self, show, after: float = PROGRESS_AFTER_S, backend=None, tick: float = 0.25) -> None:
        import threading

        self.show, self.after, self.backend, self.tick = show, after, backend, tick
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, name="tileforth-progress", daemon=True)
        self.shown = False
        self.line: Any = None  # the cell's progress.Progress, from __enter__

    def bundle(self, elapsed: float | None = None) -> dict:
        p = self.line
        return {"text/plain": p.text(self.HINT, elapsed), "text/html": PRE.format(code=p.html(self.HINT, elapsed))}

    def _run(self) -> None:
        if self.done.wait(self.after):
            return
        handle = self.show(self.bundle(self.after))  # (the first says the threshold: it is shown then)
        self.shown = True
        while not self.done.wait(self.tick):
            handle.update(self.bundle(), raw=True)
        handle.update({"text/plain": ""}, raw=True)

    def __enter__(self) -> "Progress":
        from .progress import Progress as Figures

        self.line = Figures(self.backend)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        self.thread.join()


def _open_name(forth) -> str:
    name = getattr(getattr(forth, "colon", None), "name", None)
    return str(name) if name else "a word"


# ---------------------------------------------------------------- IPython


_SESSIONS: dict[int, Notebook] = {}  # id(shell) -> its session: one per kernel


def default_backend() -> str:
    """The backend of a session no option names: $TILEFORTH_BACKEND, else auto."""
    name = os.environ.get("TILEFORTH_BACKEND", "auto").strip().lower() or "auto"
    if name not in registry.backend_choices():
        raise ValueError(f"TILEFORTH_BACKEND={name}: say one of {', '.join(registry.backend_choices())}")
    return name


def notebook_for(shell, backend: str | None = None, new: bool = False) -> tuple[Notebook, str | None]:
    """The kernel's session (made on first use); a note when one was (re)started."""
    nb = _SESSIONS.get(id(shell))
    note = None
    if nb is not None and (new or (backend not in (None, "auto") and backend != nb.forth.backend_name)):
        old = nb.forth.backend_name
        nb.close()
        nb = None
        note = f"a new {{}} session (the {old} session's words and stacks are gone)"
    if nb is None:
        nb = Notebook(backend or default_backend())
        _SESSIONS[id(shell)] = nb
        if note is not None:
            note = note.format(nb.forth.backend_name)
    return nb, note


def _short_error(message: str):
    return _Message(f"%%forth: {message}")


@record
class _Message:
    text: str

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": self.text,
                "text/html": PRE.format(code=f'<span style="color:#b00">{html.escape(self.text)}</span>')}


def load_ipython_extension(ipython) -> None:
    """`%load_ext tileforth`: register %%forth, %forth and %forth_session."""
    from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
    from IPython.display import display

    @magics_class
    class ForthMagics(Magics):
        @line_cell_magic
        def forth(self, line, cell=None):
            """`%%forth [options]`: run the cell's lines as Forth in this kernel's tileforth session
            (`%%forth --backend cpu --grid X Y Z --threads X Y Z --new --no-stacks`);
            `%forth LINE`: run one line of Forth there (no options: the line is all Forth);
            see tileforth.repl.notebook."""
            if cell is None:  # the line magic
                try:
                    nb, note = notebook_for(self.shell)
                except Exception as e:  # a backend that cannot start: a message, no traceback
                    display(_short_error(f"cannot start the session: {type(e).__name__}: {e}"))
                    return None
                if note:
                    display(_Message(note))
                with Progress(lambda bundle: display(bundle, raw=True, display_id=True), backend=nb.forth.backend):
                    result = nb.run_cell(line)
                display(result)
                return None
            try:
                args = parse_options(line)
                nb, note = notebook_for(self.shell, args.backend, args.new)
            except Exception as e:  # a bad option, or a backend that cannot start: a message, no traceback
                display(_short_error(str(e) if isinstance(e, ValueError) else
                                     f"cannot start the {line} session: {type(e).__name__}: {e}"))
                return None
            if note:
                display(_Message(note))
            with Progress(lambda bundle: display(bundle, raw=True, display_id=True), backend=nb.forth.backend):
                if args.trace is not None:
                    traced = nb.trace_cell(cell, args.trace, grid=args.grid, threads=args.threads,
                                           stacks=args.stacks)
                else:
                    result = nb.run_cell(cell, grid=args.grid, threads=args.threads, stacks=args.stacks)
            if args.trace is not None:
                display(traced)
                return None
            if args.save_view and result.error is None:
                result.notes.append(save_view_note(nb.forth, args.save_view))
            display(result)
            return None

        @line_magic
        def forth_session(self, line):
            """`f = %forth_session`: this kernel's tileforth session, a
            tileforth.core.Forth (the Python API: f.eval, f.data_stack, f.array ...)."""
            try:
                args = parse_options(line, "%forth_session")
                nb, note = notebook_for(self.shell, args.backend, args.new)
            except Exception as e:
                display(_short_error(str(e)))
                return None
            if note:
                display(_Message(note))
            if args.grid or args.threads:
                display(nb.run_cell("", grid=args.grid, threads=args.threads, stacks=False))
            return nb.forth

    ipython.register_magics(ForthMagics)
    from . import highlight

    if highlight.wanted(ipython):  # a raw bundle: the front end runs it, whatever formatters the shell has on
        display({"application/javascript": highlight.javascript(),
                 "text/plain": "(tileforth: %%forth cells highlighted as Forth)"}, raw=True)


def unload_ipython_extension(ipython) -> None:
    nb = _SESSIONS.pop(id(ipython), None)
    if nb is not None:
        nb.close()
