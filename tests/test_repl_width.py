"""Views laid out for the terminal's width (issue 14, item 2), at 40, 80 and
120 columns: in a pseudo-terminal of that size (the REPL as a user runs
it), on a pipe with $COLUMNS, and on a pipe without it (a plain 80).

No line of a view may be wider than the terminal (the terminal would wrap
it); a 16-column tile is not cut into blocks of columns where it fits
(120); WORDS and the banner break between words only; the toolbar is
shortened to the width, never cut inside a word by the terminal."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from tileforth.core import Forth
from tileforth.repl.display import Display
from tileforth.repl.prompt import Repl, banner
from tileforth.repl.session import Session

WIDTHS = (40, 80, 120)
CLI = [sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu"]
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\x1b[=>]")

TILE = "16 16 F32 MATRIX C  42 RANDOM C  C 16 TLOAD-C .TILE"  # values in [-1, 1): `-0.122`, 6 characters
LANES = "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 TID-X .LANES"  # rows of 17 items
LINES = [TILE, "TDROP CLEARSTACK " + LANES, "HELP .LANES", "WORDS",
         "CLEARSTACK TID-X TID-X 16 < 2.5e 40 0 DO I 1000 * LOOP .S"]


def dictionary_names() -> set[str]:
    return {getattr(e, "name", k).upper() for k, e in Forth(backend="cpu").dict.items()}


def tile_block_headers(lines: list[str]) -> list[list[str]]:
    """The column-label lines of a .TILE grid: consecutive column numbers,
    the first line of the grid or of a block after its `columns a-b` note."""
    out = []
    for prev, ln in zip([""] + lines, lines):
        words = ln.split()
        if words and all(w.isdigit() for w in words) and words == [str(int(words[0]) + i) for i in range(len(words))]:
            if (len(words) > 1 and words[0] == "0") or prev.startswith("columns"):
                out.append(words)
    return out


def check_views(width: int, views: dict[str, list[str]]) -> None:
    """What every width must satisfy, on a terminal or a pipe."""
    for line, lines in views.items():
        too_wide = [ln for ln in lines if len(ln) > width]
        assert not too_wide, f"{line!r} at {width} columns: {too_wide}"
    tile = views[TILE]
    headers = tile_block_headers(tile)
    assert [w for h in headers for w in h] == [str(c) for c in range(16)], tile
    if width >= 120:
        assert len(headers) == 1 and not any(ln.startswith("columns") for ln in tile), tile  # not split
    if width <= 40:
        assert len(headers) > 1 and any(ln.startswith("columns") for ln in tile), tile
    cells = [c.split() for ln in views["TDROP CLEARSTACK " + LANES] if re.match(r"\s*\d", ln)
             for c in ln.split(" | ")]
    assert sorted(int(c[0]) for c in cells) == list(range(32)), cells  # every thread, one row each
    for c in cells:  # the depth and the top items stay: `<17> … 15 16 t` where the row is narrow
        assert c[1] == "<17>" and c[-2:] == ["16", c[0]], cells
    names = dictionary_names() | {"C"}  # and the user's matrix
    words = [w for ln in views["WORDS"] if ln.startswith("  ") for w in ln.split()]
    assert len(words) > 300 and {w.upper() for w in words} <= names, set(words) - names  # no word cut


# ---- a pseudo-terminal -------------------------------------------------------------------------------
def run_in_terminal(width: int, lines: list[str], tmp_path) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """The banner's lines, each line's views (what it printed, without the
    editor's redraw), and the time lines, from the REPL in a terminal of
    `width` columns."""
    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES")}
    env.update(TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", XDG_DATA_HOME=str(tmp_path / "data"))
    child = pexpect.spawn(CLI[0], CLI[1:], env=env, encoding="utf-8", timeout=300, dimensions=(50, width))
    prompt = "\x1b[?2004h"  # bracketed paste on: the editor takes over
    views, times = {}, []
    try:
        child.expect_exact(prompt)
        head = [ln for ln in ANSI.sub("", child.before).replace("\r", "").split("\n") if ln.strip()]
        for line in lines:
            child.sendline(line)
            child.expect_exact(prompt)
            printed = child.before.rsplit("\x1b[?2004l", 1)[-1]  # after the editor let go of the line
            text = [ln for ln in ANSI.sub("", printed).replace("\r", "").split("\n") if ln.strip()]
            # the time line, after a line that launched something (HELP and WORDS launch nothing: none)
            at = next((i for i, ln in enumerate(text) if ln.startswith("time  ")), len(text))
            views[line], times = text[:at], times + text[at:]
        child.sendline("BYE")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    return head, views, times


@pytest.mark.parametrize("width", WIDTHS)
def test_a_terminal_of_each_width(width, tmp_path):
    head, views, times = run_in_terminal(width, LINES, tmp_path)
    check_views(width, views)
    expected = banner(Session(Forth(backend="cpu")))
    assert all(len(ln) <= width for ln in head) and " ".join(head).split() == expected.split(), head
    assert all(len(ln) <= width for ln in times), times
    assert any("emulator" in ln for ln in times)


# ---- a pipe -----------------------------------------------------------------------------------------
def run_on_a_pipe(columns: int | None) -> dict[str, list[str]]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES")}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    marker = "CHAR | EMIT CHAR | EMIT CR"  # prints `||` between the lines' views
    script = "\n".join(f"{line}\n{marker}" for line in LINES) + "\n"
    r = subprocess.run(CLI, input=script, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    chunks = r.stdout.split("||\n")
    # each chunk: the line's views, then (after the marker line) the stacks of the marker line
    return {line: [ln for ln in chunk.splitlines() if ln.strip()] for line, chunk in zip(LINES, chunks)}


@pytest.mark.parametrize("width", WIDTHS)
def test_a_pipe_with_columns(width):
    check_views(width, run_on_a_pipe(width))


def test_a_pipe_without_columns_is_laid_out_at_80():
    views = run_on_a_pipe(None)
    check_views(80, views)
    assert max(len(ln) for lines in views.values() for ln in lines) > 60  # 80, not some narrow default


# ---- the toolbar --------------------------------------------------------------------------------------
class SizedOutput(DummyOutput):
    def __init__(self, columns: int) -> None:
        self.columns = columns

    def get_size(self) -> Size:
        return Size(rows=24, columns=self.columns)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("checked", [True, False])
def test_the_toolbar_fits_each_width(width, checked):
    session = Session(Forth(backend="cpu", checked=checked))
    with create_pipe_input() as pipe:
        repl = Repl(session, Display(open(os.devnull, "w"), open(os.devnull, "w")), input=pipe,
                    output=SizedOutput(width), history=None)
        text = "".join(t for _, t in repl.toolbar())
    assert len(text) <= width, text
    assert "1 1 1 GRID 32 1 1 THREADS" in text  # the launch shape is never cut
    parts = [p.strip() for p in text.split("│")]
    if parts[0] != "1 1 1 GRID 32 1 1 THREADS":  # the backend gives way only to the warning, at 40
        assert parts[0] == "cpu" or parts[0].startswith("cpu "), text
        parts = parts[1:]
    else:
        assert not checked and width <= 40, text
    for p in parts[1:]:  # whole notes only: nothing like `che`
        assert p in ("checked", "UNCHECKED") or p.startswith(("tiles ", "unchecked: a bad address")), text
    if not checked:
        assert "UNCHECKED" in text or "unchecked: a bad address can crash the process" in text
    if width >= 120:  # room for all of it, but for the device's name beside the long warning
        assert ("SIMT emulator" in text and "checked" in parts) if checked else \
            "unchecked: a bad address can crash the process" in text
