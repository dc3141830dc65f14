"""The tile stack in the REPL: tensor-core tiles are shown after each line.

When a warp holds tiles, the stack view ends with them, bottom first, top
last.  Piped (not a terminal) each tile is one summary line::

    data  <0>
    float <0>
    tiles <2>
      acc 16x16 f32  min 0.0 max 0.0 mean 0.0
      acc 16x16 f32  min 2.0 max 2.0 mean 2.0

On a colour terminal each tile is a small heat map instead (two matrix rows
per text line, as `▀` cells), panels side by side within 80 columns.
Expected shapes and statistics are computed here with numpy from the tile
settings and the values the Forth lines write.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from rich.console import Console
from tileforth.core import Forth
from tileforth.repl import render as views
from tileforth.repl.display import Display
from tileforth.repl.prompt import _toolbar
from tileforth.repl.session import Session

CLI = [sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu"]
WARP = 32

TILE_LINE = re.compile(r"^  (?P<kind>a|b|acc) (?P<rows>\d+)x(?P<cols>\d+) (?P<dtype>\w+)(?P<col> col)?"
                       r"  min (?P<min>\S+) max (?P<max>\S+) mean (?P<mean>\S+)$")


def run(*args, stdin=""):
    env = dict(os.environ)
    for var in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR"):
        env.pop(var, None)
    env["COLUMNS"] = "80"
    return subprocess.run(CLI + list(args), input=stdin, capture_output=True, text=True, check=False,
                          encoding="utf-8", env=env, timeout=300)


def tile_views(stdout: str) -> list[dict]:
    """Each `tiles <n> [note]` view: its note and its n parsed tile lines."""
    lines = stdout.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"^tiles <(\d+)>(.*)$", line)
        if not m:
            continue
        n = int(m.group(1))
        tiles = []
        for text in lines[i + 1:i + 1 + n]:
            t = TILE_LINE.match(text)
            assert t, f"not a tile summary: {text!r}"
            tiles.append(t.groupdict())
        out.append({"note": m.group(2).strip(), "tiles": tiles})
    return out


def acc_shape(m=16, n=16, k=16):
    return (m, n)  # an accumulator is m x n


def assert_summary(tile: dict, kind: str, shape, dtype: str, values: np.ndarray, col=False):
    assert tile["kind"] == kind
    assert (int(tile["rows"]), int(tile["cols"])) == tuple(shape)
    assert tile["dtype"] == dtype
    assert bool(tile["col"]) == col
    v = values.astype(np.float64)
    assert float(tile["min"]) == v.min()
    assert float(tile["max"]) == v.max()
    assert float(tile["mean"]) == pytest.approx(v.mean(), rel=1e-6, abs=1e-7)


# ------------------------------------------------------------------ piped: summaries


def test_tzero_shows_an_accumulator_of_zeros():
    r = run(stdin="TZERO\n")
    assert r.returncode == 0, r.stderr
    (view,) = tile_views(r.stdout)
    (tile,) = view["tiles"]
    assert_summary(tile, "acc", acc_shape(), "f32", np.zeros(acc_shape(), np.float32))


def test_tfill_summary_shows_the_value():
    r = run(stdin="TZERO\n2e TFILL\n")
    assert r.returncode == 0, r.stderr
    first, second = tile_views(r.stdout)
    assert len(first["tiles"]) == 1 and len(second["tiles"]) == 2
    bottom, top = second["tiles"]  # top last, like the data stack
    assert_summary(bottom, "acc", acc_shape(), "f32", np.zeros(acc_shape(), np.float32))
    assert_summary(top, "acc", acc_shape(), "f32", np.full(acc_shape(), 2.0, np.float32))


def test_no_tile_view_when_the_tile_stack_is_empty():
    r = run(stdin="2 3 +\nTZERO\nTDROP\n")
    assert r.returncode == 0, r.stderr
    assert len(tile_views(r.stdout)) == 1  # only after TZERO
    assert r.stdout.count("data ") == 3


def test_piped_output_has_no_colour():
    r = run(stdin="TZERO\n1e TFILL\n")
    assert "\x1b[" not in r.stdout
    assert "▀" not in r.stdout


def test_loaded_operands_and_their_layout():
    # A holds (3r - 2c)/4: quarters, exact in f16; each thread writes every
    # 32nd element. TLOAD-A-COL reads the same numbers as the transpose.
    src = ("16 16 F16 MATRIX A\n"
           ": fill  256 TID-X DO  I 16 /MOD 3 * SWAP 2 * - S>F 4e F/  A I 2 * + HF!  32 +LOOP ;\n"
           "fill\n"
           "A 16 TLOAD-A\n"
           "A 16 TLOAD-B-COL\n")
    r = run(stdin=src)
    assert r.returncode == 0, r.stderr
    rows, cols = np.indices((16, 16))
    a = ((3 * rows - 2 * cols) / 4).astype(np.float16)
    *_, view = tile_views(r.stdout)
    first, second = view["tiles"]
    assert_summary(first, "a", (16, 16), "f16", a)
    assert_summary(second, "b", (16, 16), "f16", a.T, col=True)


def test_other_shapes_and_types():
    r = run(stdin="32 8 16 TILE-SHAPE TZERO\nBF16 TILE-IN 8 32 16 TILE-SHAPE 1.5e TFILL\n")
    assert r.returncode == 0, r.stderr
    *_, view = tile_views(r.stdout)
    tall, wide = view["tiles"]
    assert_summary(tall, "acc", acc_shape(32, 8, 16), "f32", np.zeros(acc_shape(32, 8, 16)))
    assert_summary(wide, "acc", acc_shape(8, 32, 16), "f32", np.full(acc_shape(8, 32, 16), 1.5))


def test_several_warps_note_whether_they_agree():
    r = run(stdin="4 1 1 GRID\nTZERO\nTDROP\n: per-warp  BID-X S>F TFILL ;\nper-warp\n")
    assert r.returncode == 0, r.stderr
    alike, differ = tile_views(r.stdout)
    warps = 4 * (32 // WARP)
    assert alike["note"] == f"warp 0 of {warps} (all alike)"
    assert differ["note"] == f"warp 0 of {warps} (the warps differ)"
    assert_summary(differ["tiles"][0], "acc", acc_shape(), "f32", np.zeros(acc_shape()))  # warp 0: BID-X = 0


def test_stacks_at_end_include_tiles():
    r = run("-e", "TZERO")
    assert r.returncode == 0, r.stderr
    (view,) = tile_views(r.stdout)
    assert [t["kind"] for t in view["tiles"]] == ["acc"]


def test_failed_line_leaves_the_tiles_as_they_were():
    r = run(stdin="TZERO\nTZERO TMMA\n")
    assert r.returncode == 1
    assert "TMMA expects ( acc a b )" in r.stderr
    assert len(tile_views(r.stdout)) == 1


# ------------------------------------------------------------------ colour view, in-process


MIXED = [  # eight tiles (the most a warp holds), every shape and layout
    "32 32 F16 MATRIX A  32 32 F32 MATRIX C",
    ": fill  1024 TID-X DO  I 32 /MOD 3 * SWAP 2 * - S>F 4e F/  A I 2 * + HF!  32 +LOOP ;  fill",
    ": cfill  1024 TID-X DO  I 32 /MOD - S>F  C I 4 * + F!  32 +LOOP ;  cfill",
    "TZERO  -3e TFILL  A 32 TLOAD-A  A 32 TLOAD-B-COL",
    "32 8 16 TILE-SHAPE  C 32 TLOAD-C  8 32 16 TILE-SHAPE  C 32 TLOAD-C",
    "8 32 16 TILE-SHAPE  A 32 TLOAD-B  32 8 16 TILE-SHAPE  A 32 TLOAD-A-COL",
]


@pytest.fixture(scope="module")
def mixed():
    f = Forth(backend="cpu")
    for line in MIXED:
        f.eval(line)
    return f


def render(forth, width, colour=True):
    console = Console(width=width, record=True, force_terminal=True, color_system="truecolor",
                      legacy_windows=False)
    for line in views.render_tiles(forth, width=width, colour=colour):
        console.print(line)
    return console


@pytest.mark.parametrize("width", [80, 40])
def test_colour_view_fits_the_width(mixed, width):
    console = render(mixed, width)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= width
    assert "▀" in text


def test_colour_view_has_one_panel_per_tile(mixed):
    tiles = mixed.tile_stack()
    assert len(tiles) == 8
    text = render(mixed, 80).export_text()
    labels = [f"{t.kind} {t.shape[0]}x{t.shape[1]} {t.dtype}" for t in tiles]
    for label in labels:
        assert label in text
    # each panel: label, rows/2 lines of half blocks, min/max
    cells = sum(t.shape[1] * ((t.shape[0] + 1) // 2) for t in tiles)
    assert text.count("▀") == cells
    assert text.count("min ") == len(tiles)


def _rgb(style):
    t = style.color.get_truecolor()
    return t.red, t.green, t.blue


def test_colours_diverge_around_zero():
    # one tile: the values of A, (3r - 2c)/4; negative cells bluish,
    # positive reddish, zero grey (equal r, g, b)
    f = Forth(backend="cpu")
    f.eval("16 16 F16 MATRIX A")
    f.eval(": fill  256 TID-X DO  I 16 /MOD 3 * SWAP 2 * - S>F 4e F/  A I 2 * + HF!  32 +LOOP ;  fill")
    f.eval("A 16 TLOAD-A")
    rows, cols = np.indices((16, 16))
    a = (3 * rows - 2 * cols) / 4
    console = Console(width=80, force_terminal=True, color_system="truecolor")
    lines = views.render_tiles(f, width=80, colour=True)
    heat = lines[2:2 + 8]  # after "tiles <1>" and the panel's label
    seen = set()
    for li, line in enumerate(heat):
        col = 0
        for seg in console.render(line):
            for _ in seg.text:
                if seg.text.strip("▀"):
                    break
                for r, style_rgb in ((2 * li, _rgb(seg.style)),
                                     (2 * li + 1, seg.style.bgcolor.get_truecolor())):
                    red, green, blue = style_rgb
                    v = a[r, col]
                    if v < 0:
                        assert blue > red, (r, col, v, style_rgb)
                    elif v > 0:
                        assert red > blue, (r, col, v, style_rgb)
                    else:
                        assert red == green == blue, (r, col, v, style_rgb)
                    seen.add(np.sign(v))
                col += 1
        assert col == 16
    assert seen == {-1.0, 0.0, 1.0}


def test_panels_stay_in_stack_order(mixed):
    # reading order (left to right, then the next row of panels) is stack order
    text = render(mixed, 80).export_text()
    label = re.compile(r"\b(?:a|b|acc) \d+x\d+ (?:f16|bf16|f32)(?: col)?")
    found = [m.group(0) for line in text.splitlines() for m in label.finditer(line)]
    want = []
    for t in mixed.tile_stack():
        lay = " col" if t.kind != "acc" and t.layout == "col" else ""
        want.append(f"{t.kind} {t.shape[0]}x{t.shape[1]} {t.dtype}{lay}")
    assert found == want


# ------------------------------------------------------------------ display, toolbar


class FakeTerminal(io.StringIO):
    encoding = "utf-8"

    def isatty(self):
        return True


def test_display_colours_tiles_only_on_a_colour_terminal(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("COLORTERM", "truecolor")
    monkeypatch.setenv("TERM", "xterm-256color")
    f = Forth(backend="cpu")
    f.eval("TZERO")
    term = FakeTerminal()
    Display(term, io.StringIO()).stacks(f)
    assert "▀" in term.getvalue() and "\x1b[" in term.getvalue()

    monkeypatch.setenv("NO_COLOR", "1")
    term = FakeTerminal()
    Display(term, io.StringIO()).stacks(f)
    assert "▀" not in term.getvalue()
    assert "acc 16x16 f32  min 0.0 max 0.0 mean 0.0" in term.getvalue()

    piped = io.StringIO()
    Display(piped, io.StringIO()).stacks(f)
    assert "▀" not in piped.getvalue() and "\x1b[" not in piped.getvalue()


def test_ascii_terminals_get_the_summary():
    assert views.Glyphs.for_encoding("ascii").half_block is None
    assert views.Glyphs.for_encoding("cp1252").half_block is None
    assert views.Glyphs.for_encoding("utf-8").half_block == "▀"


@pytest.mark.parametrize("shape,in_type,acc_type", [((16, 16, 16), "F16", "F32"),
                                                     ((32, 8, 16), "BF16", "F32"),
                                                     ((8, 32, 16), "F16", "F16")])
def test_toolbar_names_the_tile_settings(shape, in_type, acc_type):
    s = Session.start("cpu")
    m, n, k = shape
    for line in (f"{m} {n} {k} TILE-SHAPE", f"{acc_type} TILE-ACC", f"{in_type} TILE-IN"):
        assert s.run_line(line).error is None, line
    assert f"tiles m{m}n{n}k{k} {in_type.lower()}->{acc_type.lower()}" in _toolbar(s)
