"""docs/repl.md stays true: its transcript of the tour is what the tour
prints now, and its example views are what those lines show."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tileforth.repl.transcript import transcript

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "repl.md"
CLI = [sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu"]


def doc_blocks() -> list[tuple[str, str]]:
    """(text before the block, block) for every ```text block of the page."""
    text = DOC.read_text()
    return [(text[:m.start()], m.group(1)) for m in re.finditer(r"```text\n(.*?)```", text, re.S)]


def test_tour_transcript_in_the_doc_is_current():
    before, block = next((b, blk) for b, blk in doc_blocks() if b.rstrip().endswith(
        "<!-- tour transcript: python -m tileforth.repl.transcript demos/tour.fth -->"))
    lines = (ROOT / "demos" / "tour.fth").read_text().splitlines()
    fresh = transcript(lines, name="demos/tour.fth")
    assert block == fresh, "regenerate the transcript: python -m tileforth.repl.transcript demos/tour.fth"


def test_transcript_matches_what_the_cli_prints_for_the_tour():
    """Without the typed lines, the transcript is exactly `tileforth demos/tour.fth`."""
    env = dict(os.environ, COLUMNS="80")
    for var in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR"):
        env.pop(var, None)
    res = subprocess.run(CLI + ["demos/tour.fth"], cwd=ROOT, capture_output=True, text=True,
                         encoding="utf-8", env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    lines = (ROOT / "demos" / "tour.fth").read_text().splitlines()
    typed = [ln for ln in transcript(lines, name="demos/tour.fth").splitlines()
             if not ln.startswith("> ") and ln != ""]
    printed = [ln.rstrip() for ln in res.stdout.splitlines() if ln.strip()]
    assert printed == typed


def test_echo_prints_the_tour_as_the_transcript_in_the_doc():
    """`tileforth --echo demos/tour.fth` reads like the transcript: each line
    as typed (`> line`), then its output."""
    env = dict(os.environ, COLUMNS="80")
    for var in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR"):
        env.pop(var, None)
    res = subprocess.run(CLI + ["--echo", "demos/tour.fth"], cwd=ROOT, capture_output=True, text=True,
                         encoding="utf-8", env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    _, block = next((b, blk) for b, blk in doc_blocks() if b.rstrip().endswith(
        "<!-- tour transcript: python -m tileforth.repl.transcript demos/tour.fth -->"))
    assert [ln.rstrip() for ln in res.stdout.splitlines()] == block.splitlines()


def _cli(stdin: str) -> str:
    env = dict(os.environ, COLUMNS="80")
    for var in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR"):
        env.pop(var, None)
    res = subprocess.run(CLI, input=stdin, capture_output=True, text=True, encoding="utf-8", env=env,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_the_docs_example_views_are_what_those_lines_show():
    blocks = doc_blocks()
    for line in ("5 TID-X TID-X 16 < 2.5e TZERO", "TID-X DUP 3 MOD .LANES"):
        before, block = next((b, blk) for b, blk in blocks if b.rstrip().endswith(f"After `{line}`:"))
        shown = [ln for ln in block.splitlines() if ln != "…"]
        out = _cli(line + "\n").splitlines()
        assert out[:len(shown)] == shown
