""".PIPE's view in the REPL: on a colour terminal, each wait of the shown block of the last launch as a
rich table (a row per SMEM-TILE, a column per stage; landed stages green, stages in flight yellow,
empty ones dim), then a line per warp saying what its wait had in flight and landed. In a pipe the
record's own layout (tileforth/core/session/pipeview.py), whose cell texts these are."""
from __future__ import annotations

import io

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..core.session.pipeview import Pipe, wait_text

STYLE = {"landed": "green", "in flight": "yellow", "landing": "yellow", "partly landed": "cyan", "empty": "dim"}


def render_pipe(view: Pipe, *, width: int = 80, colour: bool = False, glyphs=None) -> list[Text] | None:
    """rich lines for a Pipe record, or None where there is no colour (the caller lays the record out)."""
    if not colour:
        return None
    ascii_only = glyphs is not None and glyphs.ellipsis == "..."
    con = Console(file=io.StringIO(), width=width, highlight=False, force_terminal=True,
                  color_system="truecolor")
    plain = view.lines(width)
    out = [Text(plain[0][0][0], style="bold")]
    phases = [Text(t, style="bold cyan" if k == 0 else "dim") for k, line in enumerate(view.phase_lines(width))
              for t, _ in line]
    if not view.steps:
        return out + [Text(t, style="dim") for line in plain[1:len(plain) - len(phases)] for t, _ in line] + phases
    for step in view.steps:
        out.append(Text(view.where(step), style="bold cyan"))
        head, rows = view.table(step)
        if rows:
            t = Table(box=box.ASCII if ascii_only else box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                      padding=(0, 1), header_style="dim cyan")
            for h in head:
                t.add_column(h, no_wrap=True)
            for row in rows:
                states = {s.stage: s.state for s in step.stages if s.tile == row[0]}
                t.add_row(Text(row[0], style="bold"),
                          *[Text(c, style=STYLE.get(states.get(i, "empty"), "")) for i, c in enumerate(row[1:])])
            for line in con.render_lines(t, con.options.update(width=width), pad=False):
                text = Text()
                for seg in line:
                    if not seg.control:
                        text.append(seg.text, style=seg.style)
                text.rstrip()
                out.append(text)
        for w in step.waits:
            out.append(Text("  " + wait_text(w), style="dim"))
    return out + [Text(t, style="dim") for line in view.wait_note(width) for t, _ in line] + phases
