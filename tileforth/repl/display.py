"""Where a line's results go: its output, then the stacks; errors to stderr.

Colour only on a terminal: a console whose file is not a tty prints plain
text (rich also honours NO_COLOR).  Program output is written as is, never
wrapped or styled, so `.` and `EMIT` output can be piped and compared.

rich (and the views, which bring pygments) are imported when something is
first rendered, not at start: `tileforth -e '1 2 + .'` prints through
`output` alone.
"""

from __future__ import annotations

import io
import sys
import traceback
from functools import cached_property
from typing import TYPE_CHECKING, TextIO

from tileforth.core.records import record

from ..core.session.words.inspection import stacks_record

if TYPE_CHECKING:
    from rich.console import Console


PIPE_ERROR_WIDTH = 240  # columns of a source line an error shows when stderr is no terminal (then cut around the error)


def _isatty(file: TextIO) -> bool:
    try:
        return file.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def make_console(file: TextIO) -> Console:
    from rich.console import Console

    tty = file.isatty()
    # on a terminal no_color=None lets rich honour NO_COLOR
    return Console(file=file, highlight=False, force_terminal=tty, no_color=None if tty else True,
                   soft_wrap=True)


@record
class Display:
    out: TextIO
    err: TextIO

    def __post_init__(self) -> None:
        self._stacks_shown: tuple[str, str] | None = None  # the last `.S` view: (its text, the stacks then)
        self.last_output = ""  # what the last line of a file run that printed something printed (cli)
        self._mid_line = False  # program output written as is (program_output) did not end its line

    # made when first used (each may be replaced: tests and transcripts set their own)
    @cached_property
    def out_console(self) -> Console:
        return make_console(self.out)

    @cached_property
    def err_console(self) -> Console:
        return make_console(self.err)

    @cached_property
    def glyphs(self):
        from . import render

        return render.Glyphs.for_encoding(getattr(self.out, "encoding", None))

    @classmethod
    def standard(cls) -> "Display":
        return cls(sys.stdout, sys.stderr)

    @property
    def width(self) -> int:
        from . import render

        return min(self.out_console.width, render.WIDTH)

    def echo(self, line: str) -> None:
        """A source line as typed at the prompt (`tileforth --echo`): `> line`,
        a blank line as it is."""
        self.fresh_line()
        self.out.write(f"> {line}\n" if line.strip() else "\n")
        self.out.flush()

    def output(self, text: str) -> None:
        """What the line printed, then a newline so the stacks start fresh."""
        if text:
            self.fresh_line()
            self.out.write(text if text.endswith("\n") else text + "\n")
            self.out.flush()

    def program_output(self, text: str) -> None:
        """What the line printed, exactly: a file or -e run with no stacks shown prints what the
        program prints, as gforth does (`1 .` then `2 .` on the next line: `1 2 `). What this
        display writes next on stdout (stacks, a note, an error) starts on a fresh line."""
        if text:
            self.out.write(text)
            self.out.flush()
            self._mid_line = not text.endswith("\n")

    def end_run(self) -> None:
        """A file or -e run is over: on a terminal its last line is ended (the shell's prompt starts
        a line of its own); into a pipe or a file the output stays exactly the program's."""
        isatty = getattr(self.out, "isatty", None)
        if self._mid_line and isatty is not None and isatty():
            self.fresh_line()

    def fresh_line(self) -> None:
        """End the line program_output left open, if it did."""
        if self._mid_line:
            self._mid_line = False
            self.out.write("\n")
            self.out.flush()

    @property
    def colour(self) -> bool:
        """Colour views (the tile heat maps): a terminal with colours on."""
        c = self.out_console
        return c.is_terminal and c.color_system is not None and not c.no_color

    def stacks(self, forth) -> None:
        """The data and float stacks, then the tile stack if not empty."""
        from . import render

        lines = render.render_stack_view(stacks_record(forth), width=self.width, glyphs=self.glyphs,
                                        colour=self.colour)
        self.fresh_line()
        for line in lines:
            self.out_console.print(line)
        self.out.flush()

    def attach(self, forth) -> None:
        """Render the inspection words' views (.S .TILE .FRAG .M SEE-IR …)
        for this display, and let `.S` at the prompt show every stack."""
        forth.display = lambda kind, view: self.inspect_view(forth, kind, view)
        forth.dot_s_shows_all = True

    def inspect_view(self, forth, kind: str, view) -> str | None:
        """A view record as text for this terminal (None: the plain text will
        do).  `.S` shows the same stack view as after a line, colour or not."""
        from rich.console import Console

        from . import render

        if kind not in ("stacks", *render.OWN_LAYOUT) and not self.colour:
            return None
        lines = render.render(kind, view, width=self.width, colour=self.colour, glyphs=self.glyphs)
        buf = io.StringIO()
        con = Console(file=buf, width=self.width, highlight=False, soft_wrap=True,
                      force_terminal=self.colour, no_color=not self.colour,
                      color_system=self.out_console.color_system if self.colour else None)
        for line in lines:
            con.print(line)
        text = buf.getvalue()
        if kind == "stacks":
            self._stacks_shown = (text, self._stacks_plain(forth))
        return text

    def _stacks_plain(self, forth) -> str:
        from . import render

        lines = render.render_stack_view(stacks_record(forth), width=self.width, glyphs=self.glyphs, colour=False)
        return "\n".join(line.plain for line in lines)

    def stacks_after(self, forth, output: str) -> None:
        """The stacks after a line, unless the line itself ended by showing
        them as they are now (`.S` at the prompt: one view, not two)."""
        shown, self._stacks_shown = self._stacks_shown, None
        if shown is not None and output.rstrip("\n").endswith(shown[0].rstrip("\n")):
            try:
                if self._stacks_plain(forth) == shown[1]:
                    return
            except Exception:  # a view never fails the session: show them again
                pass
        self.stacks(forth)

    def forget_stacks_shown(self) -> None:
        self._stacks_shown = None

    def note(self, message: str, *, stderr: bool = False) -> None:
        """A note for the user (`redefined X`): at the prompt among the output; `stderr`: on
        standard error, out of the program's output (a file run's, as gforth's)."""
        if stderr:
            self.out.flush()
            self.err_console.print(message, style="dim", markup=False)
            self.err.flush()
            return
        self.fresh_line()
        self.out_console.print(message, style="dim", markup=False)
        self.out.flush()

    def error(self, result, *, located: bool = True) -> None:
        """A failed line (a session.LineResult) on stderr.

        `located` adds "file:line:col:"; at the prompt the line is in view
        (but not a failing word's definition: where that is, is always said).
        """
        from . import render

        where = result.where if located or result.running else None
        self.fresh_line()  # the error starts a line of its own (gforth too ends stdout's line)
        self.out.flush()
        if result.internal:
            e = result.error
            self.err_console.print(
                f"{where + ': ' if where else ''}internal error (a bug in tileforth, please report it):",
                style="bold red", markup=False)
            self.err.write("".join(traceback.format_exception(type(e), e, e.__traceback__)))
        else:
            tty = _isatty(self.err)  # a terminal: its width, messages broken between words; else a wide window
            self.err_console.print(
                render.render_error(result.error, where=where, source_line=result.source_line,
                                    running=result.running if located else None,
                                    width=self.err_console.width if tty else PIPE_ERROR_WIDTH, wrap=tty))
        self.err.flush()

    def fatal(self, message: str) -> None:
        self.fresh_line()
        self.out.flush()
        self.err_console.print(f"tileforth: {message}", style="bold red", markup=False)
        self.err.flush()
