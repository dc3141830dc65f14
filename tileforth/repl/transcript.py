"""A screenshot-like transcript of a Forth file: each line as typed at the
prompt (`> line`), then what the REPL prints for it, in plain text at 80
columns.  docs/repl.md shows the tour this way, and a test regenerates it so
the page cannot drift from what the tour prints:

    python -m tileforth.repl.transcript demos/tour.fth

Lines run through the same Session, Display and loop as `tileforth --echo
FILE` (with `--stacks none`: the tour shows stacks with `.S` where it wants
them, and it ends with them empty, so `tileforth --echo demos/tour.fth`
prints this transcript).
"""

from __future__ import annotations

import argparse
import io
import sys

from tileforth import registry

from .cli import run_lines
from .display import Display
from .session import Session
from .render import Glyphs

WIDTH = 80


def transcript(lines: list[str], *, name: str = "<transcript>", backend: str = "cpu",
               width: int = WIDTH) -> str:
    """Run `lines` in a fresh session; return the typed lines and their output.
    An error is shown as the REPL shows it, and ends the transcript."""
    out = io.StringIO()
    display = Display(out, out)
    display.glyphs = Glyphs.for_encoding("utf-8")  # as on a UTF-8 terminal or pipe
    for console in (display.out_console, display.err_console):
        console.width = width
    session = Session.start(backend)
    display.attach(session.forth)
    session.set_source(name)
    run_lines(session, display, lines, stop_on_error=True, stacks="none", echo=True)
    return "".join(line.rstrip() + "\n" for line in out.getvalue().splitlines())


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tileforth.repl.transcript",
                                description="Print a Forth file as typed at the prompt, with its output.")
    p.add_argument("file")
    p.add_argument("--backend", choices=registry.backend_choices(), default="cpu")
    args = p.parse_args(argv)
    with open(args.file, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    sys.stdout.write(transcript(lines, name=args.file, backend=args.backend))
    return 0


if __name__ == "__main__":
    sys.exit(main())
