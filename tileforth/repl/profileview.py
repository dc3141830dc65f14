"""PROFILE's view in the REPL: on a colour terminal wide enough, a rich table per launch, one row
per load/store site, pointing at the source (the definition, line:col and the source around
the word), with the figures that cost time marked: sectors beyond the ideal
and partly active warps in yellow, bank conflicts in red. In a pipe, or where a table would
cut a heading or a figure, the record's own layout (a row, then the source line and a caret,
per site; a block per site where a row does not fit), as docs/simt.md shows it.

The record and its plain layout are tileforth/core/session/accessprofile.py's; the cells'
text comes from there too (`site_cells`), so the numbers read the same in a
pipe, in `Forth.eval`'s text and here.
"""
from __future__ import annotations

import io

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..core.session.accessprofile import HEADS, LaunchProfile, Profile, dropped_note, launch_head, site_cells

WARN, BAD, GOOD = "yellow", "bold red", "green"


def _source(s, width: int) -> Text:
    """The source around the site's word, the word itself in bold."""
    text, col = s.source.rstrip(), (s.col or 1) - 1
    room = max(0, width - len(s.token) - 1)
    start = max(0, col - room)
    pre = ("…" if start else "") + text[start:col]
    t = Text(pre, style="dim")
    t.append(s.token, style="bold")
    return t


def launch_table(p: LaunchProfile, width: int, ascii_only: bool = False) -> Table:
    t = Table(box=box.ASCII if ascii_only else box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
              padding=(0, 0), header_style="dim cyan")
    t.add_column(HEADS[0], no_wrap=True)
    t.add_column("source", no_wrap=True, overflow="ellipsis", max_width=max(8, width // 6))
    t.add_column(HEADS[1], no_wrap=True)
    for h in HEADS[2:]:
        t.add_column(h, justify="right", no_wrap=True)
    for s in p.sites:
        cells = [Text(c) for c in site_cells(s)]
        if s.divergent:
            cells[3].stylize(WARN)
        if s.space == "global":
            cells[4].stylize(WARN if s.sectors_per_request > s.ideal_sectors_per_request else GOOD)
        else:
            cells[5].stylize(BAD if s.bank_conflicts else GOOD)
        t.add_row(cells[0], _source(s, max(8, width // 6)), *cells[1:])
    return t


def fits(p: LaunchProfile, width: int, con: Console, ascii_only: bool = False) -> bool:
    """Whether the launch's table shows every heading and figure whole at `width`."""
    from rich.measure import Measurement

    table = launch_table(p, width, ascii_only)  # its source column as wide as at `width`
    return Measurement.get(con, con.options.update(width=10_000), table).maximum <= width


def render_profile(view: Profile, *, width: int = 80, colour: bool = False, glyphs=None) -> list[Text] | None:
    """rich lines for a Profile record at `width`: on a colour terminal a table per launch, styled,
    where every launch's table fits whole; otherwise (a pipe, a narrow terminal) None: the caller
    (render.render) shows the record's own layout, what `Forth.eval` returns (a row and the source
    per site, or a block per site when a row does not fit): a figure is never cut."""
    ascii_only = glyphs is not None and glyphs.ellipsis == "..."
    out = [Text(view.title, style="bold")]
    shown = [p for p in view.launches if p.records or any(p.barriers)]
    if not shown:
        return out + [Text("no loads or stores were traced (tile loads and stores are not traced)", style="dim")]
    con = Console(file=io.StringIO(), width=width, highlight=False, force_terminal=colour, no_color=not colour,
                  color_system="truecolor" if colour else None)
    if not colour or not all(fits(p, width, con, ascii_only) for p in shown if p.sites):
        return None
    for i, p in enumerate(shown):
        out.append(Text(launch_head(p, i, len(shown)), style="dim"))
        note = dropped_note(p)
        if note:
            out.append(Text(note, style=WARN))
        if not p.sites:
            continue
        for line in con.render_lines(launch_table(p, width, ascii_only), con.options.update(width=width),
                                     pad=False):
            text = Text()
            for seg in line:
                if not seg.control:
                    text.append(seg.text, style=seg.style if colour else None)
            text.rstrip()
            out.append(text)
    return out
