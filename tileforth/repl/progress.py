"""What a long line shows while it runs, at the prompt (prompt.py), in a file run (cli.py) and in a notebook
cell (notebook.py): after PROGRESS_AFTER_S, a line that says how long it has run and, while a launch runs
on the emulator, its blocks and threads done of all, with a bar (the backend's LaunchProgress,
tileforth/core/compile/progress.py, which the cpu backend's workers count). A line that ends sooner shows nothing;
the display only reads, so Ctrl-C (or interrupting a notebook's kernel) stops the line as ever.

`Progress` is one line's figures and their text, rich text and HTML; `TerminalProgress` draws them on a
terminal's stderr from a thread of its own, on one line that the end of each line of work clears.
"""
from __future__ import annotations

import html
import shutil
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, TextIO

from rich.text import Text

PROGRESS_AFTER_S = 0.5  # a line running longer shows its progress
TICK_S = 0.25  # how often the progress shown is brought up to date
BAR_CELLS = 20
CLEAR = "\r\x1b[K"  # back to the line's start, the line erased


class Progress:
    """The figures of one line of work from its start: its elapsed time and, while one of its launches
    runs, that launch's number in the line and its blocks and threads done (`counter`: the backend's
    LaunchProgress, or None for a backend that counts none)."""

    def __init__(self, backend: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.counter = getattr(backend, "progress", None)
        self.clock = clock
        self.start = clock()
        self.first = self.counter.snapshot().launches if self.counter is not None else 0

    def elapsed(self) -> float:
        return self.clock() - self.start

    def launch(self) -> Any | None:
        """The snapshot of this line's launch under way (core/progress.Snapshot), or None when none runs."""
        if self.counter is None:
            return None
        snap = self.counter.snapshot()
        return snap if snap.running and snap.launches > self.first and snap.blocks else None

    def parts(self, hint: str, elapsed: float | None = None) -> tuple[str, str, float | None, str]:
        """(the elapsed part, the launch's figures or "", the fraction of its blocks done or None, the hint);
        `elapsed`: the time to say (default: the time since the start)."""
        head = f"… running {self.elapsed() if elapsed is None else elapsed:.1f} s"
        snap = self.launch()
        if snap is None:
            return head, "", None, f"({hint})"
        figures = (f"launch {snap.launches - self.first}: {snap.done:,} of {snap.blocks:,} blocks, "
                   f"{snap.threads_done:,} of {snap.threads:,} threads")
        return head, figures, snap.done / snap.blocks, f"({hint})"

    def text(self, hint: str, elapsed: float | None = None) -> str:
        head, figures, frac, tail = self.parts(hint, elapsed)
        if frac is None:
            return f"{head} {tail}"
        return f"{head} · {figures} {bar(frac)} {frac:4.0%} {tail}"

    def rich(self, hint: str, elapsed: float | None = None) -> Text:
        head, figures, frac, tail = self.parts(hint, elapsed)
        out = Text()
        out.append(head, style="bold")
        if frac is not None:
            cells = round(frac * BAR_CELLS)
            out.append(" · " + figures + " ")
            out.append("█" * cells, style="green")
            out.append("░" * (BAR_CELLS - cells), style="grey50")
            out.append(f" {frac:4.0%}")
        out.append(" " + tail, style="dim")
        return out

    def html(self, hint: str, elapsed: float | None = None) -> str:
        head, figures, frac, tail = self.parts(hint, elapsed)
        body = html.escape(head)
        if frac is not None:
            snap = self.launch()
            done, blocks = (snap.done, snap.blocks) if snap is not None else (round(frac * 100), 100)
            body += (f" · {html.escape(figures)} <progress value=\"{done}\" max=\"{blocks}\" "
                     f"style=\"vertical-align:middle\"></progress> {frac:.0%}")
        return f'<span style="opacity:0.7">{body} {html.escape(tail)}</span>'


def bar(frac: float) -> str:
    cells = round(max(0.0, min(1.0, frac)) * BAR_CELLS)
    return "█" * cells + "░" * (BAR_CELLS - cells)


class TerminalProgress:
    """Draws a line of work's Progress on `stream` (a terminal's stderr) once it has run `after` seconds,
    every `tick` seconds, from one thread (made at the first line); `line()` brackets each line of work
    and clears what was drawn before it returns, so that the line's own output starts on a clean line."""

    def __init__(self, backend: Any, stream: TextIO, *, after: float = PROGRESS_AFTER_S, tick: float = TICK_S,
                 hint: str = "Ctrl-C stops it", clock: Callable[[], float] = time.monotonic,
                 width: int | None = None) -> None:
        self.backend, self.stream, self.after, self.tick, self.hint = backend, stream, after, tick, hint
        self.clock, self.width = clock, width
        self._cond = threading.Condition()
        self._line: Progress | None = None
        self._shown = False
        self._closed = False
        self._thread: threading.Thread | None = None
        self.frames = 0  # frames drawn (tests read it)

    @contextmanager
    def line(self) -> Iterator[None]:
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="tileforth-progress", daemon=True)
                self._thread.start()
            self._line = Progress(self.backend, self.clock)
            self._cond.notify()
        try:
            yield
        finally:
            with self._cond:
                self._line = None
                if self._shown:
                    self._write(CLEAR)
                    self._shown = False
                self._cond.notify()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join()

    def _write(self, s: str) -> None:
        try:
            self.stream.write(s)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: nothing to show
            pass

    def _draw(self, p: Progress) -> None:
        from rich.console import Console

        width = self.width or shutil.get_terminal_size((80, 24)).columns
        text = p.rich(self.hint)
        text.truncate(max(10, width - 1))
        console = Console(file=self.stream, force_terminal=True, width=width, highlight=False)
        self._write(CLEAR)
        try:
            console.print(text, end="", no_wrap=True, overflow="crop")
            self.stream.flush()
        except (OSError, ValueError):
            return
        self._shown = True
        self.frames += 1

    def _run(self) -> None:
        with self._cond:
            while not self._closed:
                p = self._line
                if p is None:
                    self._cond.wait()
                    continue
                wait = p.start + self.after - self.clock()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                self._draw(p)
                self._cond.wait(self.tick)
