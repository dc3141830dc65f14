"""Large launches (issue 14, item 4): per-thread output is summarised, the
GRID message names CLEARSTACK, and the views show any warp's tiles.

Output of more than a warp's worth of lines (32) is summarised: identical
output is grouped (long thread lists abbreviated), threads in a row whose
output steps evenly become one line (`[threads 0-255] 0 1 2 … 255`), and
what is still more than 32 lines ends with `… N more lines`; with more than
one block, threads are labelled `b1 t31`.  Expected lines are computed
here from what each thread prints."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.session import interpreter, output

CLI = [sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu", "--stacks", "none"]


def cli(*lines: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS="80")
    return subprocess.run(CLI, input="\n".join(lines) + "\n", capture_output=True, text=True, env=env,
                          timeout=300)


def test_an_arithmetic_run_of_threads_is_one_line():
    """The issue's `GLOBAL-ID .` over 256 threads: 256 lines before."""
    r = cli("1 1 1 GRID 256 1 1 THREADS  GLOBAL-ID .")
    assert r.returncode == 0, r.stderr
    ids = list(range(256))
    assert r.stdout == f"[threads {ids[0]}-{ids[-1]}] {ids[0]} {ids[1]} {ids[2]} … {ids[-1]}\n"


def test_a_warps_worth_of_lines_is_shown_as_before():
    f = Forth(backend="cpu")
    out = f.eval("TID-X DUP * .")
    assert out == "".join(f"[thread {t}] {t * t} \n" for t in range(32))


def test_many_different_lines_are_capped_with_a_more_line():
    f = Forth(backend="cpu")
    out = f.eval("1 1 1 GRID 256 1 1 THREADS  TID-X DUP * .")  # squares: no even step
    lines = out.splitlines()
    assert len(lines) == output.MAX_OUTPUT_LINES
    shown = output.MAX_OUTPUT_LINES - 1
    assert lines[:-1] == [f"[thread {t}] {t * t} " for t in range(shown)]
    assert lines[-1] == f"… {256 - shown} more lines (threads {shown}-255)"


def test_identical_output_of_many_threads_has_a_short_label():
    f = Forth(backend="cpu")
    out = f.eval("1 1 1 GRID 256 1 1 THREADS  TID-X 2 MOD .")
    assert out == "[thread 0, 2, 4, … 254] 0 \n[thread 1, 3, 5, … 255] 1 \n"


def test_runs_and_groups_mix_in_thread_order():
    f = Forth(backend="cpu")
    out = f.eval('1 1 1 GRID 256 1 1 THREADS  TID-X 100 < IF ." lo " TID-X . ELSE ." hi" THEN CR')
    assert out == "[threads 0-99] lo 0 lo 1 lo 2 … lo 99\n[thread 100-255] hi\n"


@pytest.fixture
def labelled_by_block():
    """A session: it passes its launch shape to format_output."""
    return Forth(backend="cpu")


def test_threads_of_several_blocks_are_labelled_block_and_thread(labelled_by_block):
    f = labelled_by_block
    f.eval("4 1 1 GRID 64 1 1 THREADS")
    assert f.eval('TID-X 16 < IF ." lo" ELSE ." hi" THEN') == "[b0-3 t0-15] lo\n[b0-3 t16-63] hi\n"
    assert f.eval('GLOBAL-ID 95 = IF ." x" ELSE ." y" THEN') == "[b0, b1 t0-30, 32-63, b2-3] y\n[b1 t31] x\n"
    assert f.eval("GLOBAL-ID .") == "[b0-3] 0 1 2 … 255\n"


def test_block_labels_from_the_records():
    """format_output itself, on records made here: thread 64 + 31 is b1 t31."""
    L = interpreter.L
    recs = np.array([[t, L.OUT_INT, 10, 7 if t == 95 else 0] for t in range(128)], dtype=np.int64)
    text = output.format_output(recs, [], shape=((2, 1, 1), (64, 1, 1)))
    assert text == "[b0, b1 t0-30, 32-63] 0 \n[b1 t31] 7 \n"
    assert output.format_output(recs, []) == "[thread 0-94, 96-127] 0 \n[thread 95] 7 \n"  # one block: as before


def test_the_grid_message_names_clearstack():
    f = Forth(backend="cpu")
    with pytest.raises(ForthError) as info:
        f.eval("TID-X 4 1 1 GRID")
    assert "CLEARSTACK" in info.value.message and "?DO" not in info.value.message
    f.eval("CLEARSTACK 4 1 1 GRID")  # what it says works
    assert f.launch_shape[0] == (4, 1, 1)


# ---- any warp's tiles -----------------------------------------------------------------------------
SETUP = ["2 1 1 GRID", "TZERO BID-X S>F TFILL"]  # warp w (block w) holds a tile of w's


def test_view_warp_shows_another_warps_tiles_at_the_prompt():
    r = cli(*SETUP, "1 VIEW-WARP .TILE", ".STACKS", "0 VIEW-WARP .STACKS")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    head = "acc 16x16 f32: the top of the tile stack <2>, warp 1 of 2"
    assert head in out
    rows = [ln.split() for ln in out.splitlines() if ln[:2].strip().isdigit() and len(ln.split()) == 17]
    assert len(rows) == 16 and all(r[1:] == ["1"] * 16 for r in rows)  # BID-X of block 1
    views = out.split("tiles <2>")[1:]
    assert len(views) == 2
    assert views[0].startswith(" warp 1 of 2 (the warps differ)") and "min 1.0 max 1.0 mean 1.0" in views[0]
    assert views[1].startswith(" warp 0 of 2 (the warps differ)") and "min 1.0" not in views[1]


def test_view_warp_refuses_a_warp_the_launch_lacks():
    f = Forth(backend="cpu")
    f.eval("2 1 1 GRID")
    with pytest.raises(ForthError) as info:
        f.eval("5 VIEW-WARP")
    assert "the launch has warps 0 to 1, not warp 5" in info.value.message
    f.eval("1 VIEW-WARP  TZERO")
    assert "warp 1 of 2" in f.eval(".TILE")
    f.eval("TDROP 1 1 1 GRID  TZERO")  # a launch smaller than the warp: warp 0 again
    assert "warp" not in f.eval(".TILE").splitlines()[0]
