"""The `tileforth` command, driven as a user would: files, -e, stdin, a terminal.

After each line read from stdin the REPL prints what the line printed, then
the stacks, e.g. after `2 3 +`::

    data  <1> 5
    float <0>

An entry is shown once when every thread holds the same value, compactly
otherwise: `TID-X` in the default launch (one block of 32 threads) is
`[0 1 2 … 31]`.  Expected values are computed here from the launch shape.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from tileforth.repl.prompt import open_history

CLI = [sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu"]
BLOCK = 32  # default launch: 1 1 1 GRID 32 1 1 THREADS


def run(*args, stdin="", tmp_path=None, **kw):
    env = dict(os.environ)
    env.pop("FORCE_COLOR", None)
    env.pop("TTY_COMPATIBLE", None)
    env["COLUMNS"] = "80"
    if tmp_path is not None:
        env["XDG_DATA_HOME"] = str(tmp_path / "data")
    return subprocess.run(CLI + list(args), input=stdin, capture_output=True,
                          text=True, encoding="utf-8", env=env, timeout=300, **kw)


def stack_views(stdout: str, label: str) -> list[list[str]]:
    """Every `label <depth> entries…` line, as its entries (after the tag)."""
    views = []
    for line in stdout.splitlines():
        if line.startswith(label + " ") or line == label:
            words = line[len(label):].split(maxsplit=1)
            assert words[0].startswith("<"), line
            views.append(_entries(words[1] if len(words) > 1 else ""))
    return views


def _entries(text: str) -> list[str]:
    """Split entries, keeping a bracketed per-thread summary as one entry."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == " " and depth == 0:
            if cur:
                out.append(cur)
            cur = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        cur += ch
    if cur:
        out.append(cur)
    return out


def ramp(vals) -> str:
    vals = list(vals)
    return f"[{vals[0]} {vals[1]} {vals[2]} … {vals[-1]}]"


# ------------------------------------------------------------------ stdin


def test_stdin_shows_uniform_value_once(tmp_path):
    r = run(stdin="2 3 +\n", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert stack_views(r.stdout, "data") == [[str(2 + 3)]]
    assert stack_views(r.stdout, "float") == [[]]


def test_stdin_shows_lanes_compactly(tmp_path):
    r = run(stdin="TID-X\n", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert stack_views(r.stdout, "data") == [[ramp(range(BLOCK))]]
    assert all(len(line) <= 80 for line in r.stdout.splitlines())


def test_stdin_varying_values_that_are_not_a_ramp(tmp_path):
    squares = np.arange(BLOCK) ** 2
    r = run(stdin="2 3 +\nTID-X DUP *\n", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert stack_views(r.stdout, "data") == [
        ["5"],
        ["5", f"[{squares.min()}–{squares.max()} ({BLOCK} lanes)]"],
    ]


def test_stdin_float_stack(tmp_path):
    r = run(stdin="TID-X S>F\n", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    lanes = [f"{float(t)}" for t in range(BLOCK)]
    assert stack_views(r.stdout, "float") == [[ramp(lanes)]]
    assert stack_views(r.stdout, "data") == [[]]


def test_stdin_two_blocks_repeat_the_lane_ramp(tmp_path):
    r = run(stdin=f"2 1 1 GRID {BLOCK} 1 1 THREADS\nTID-X GLOBAL-ID\n", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    lane_ramp = ramp(range(BLOCK))[1:-1]
    assert stack_views(r.stdout, "data")[-1] == [
        f"[({lane_ramp})×2]",
        ramp(range(2 * BLOCK)),
    ]


def test_stacks_are_shown_in_the_current_base(tmp_path):
    r = run(stdin="255\nHEX\nTID-X\nDECIMAL\n", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    views = stack_views(r.stdout, "data")
    assert views[0] == [str(255)]
    assert views[1] == [format(255, "X")]  # as .S prints it in HEX
    assert views[2] == [format(255, "X"), ramp(format(t, "X") for t in range(BLOCK))]
    assert views[3] == [str(255), ramp(range(BLOCK))]


def test_output_comes_before_the_stacks(tmp_path):
    r = run(stdin="6 7 * .\n", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == [str(6 * 7)]
    assert lines[1].startswith("data")


def test_definition_across_lines(tmp_path):
    r = run(stdin=": SQ\n  DUP * ;\n7 SQ .\n", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert str(7 * 7) in r.stdout.split()


def test_piped_output_has_no_colour(tmp_path):
    r = run(stdin="TID-X DUP S>F\n", tmp_path=tmp_path)
    assert "\x1b[" not in r.stdout + r.stderr


def test_caret_under_unknown_word(tmp_path):
    line = "1 2 FROBNICATE +"
    r = run(stdin=line + "\n", tmp_path=tmp_path)
    assert r.returncode == 1
    err = r.stderr.splitlines()
    shown = [i for i, text in enumerate(err) if text.strip() == line]
    assert shown, r.stderr
    caret = err[shown[0] + 1]
    indent = err[shown[0]].index(line)
    assert caret.index("^") - indent == line.index("FROBNICATE")
    assert caret.strip() == "^" * len("FROBNICATE")
    assert "FROBNICATE" in err[0]
    assert err[0].startswith(f"<stdin>:1:{line.index('FROBNICATE') + 1}: error:")


def test_stdin_continues_after_an_error(tmp_path):
    r = run(stdin="1 2 FROBNICATE +\n7 8 + .\n40 2 +\n", tmp_path=tmp_path)
    assert r.returncode == 1  # some line failed
    assert str(7 + 8) in r.stdout.split()
    # the failed line left the stacks as they were: only 42 is there
    assert stack_views(r.stdout, "data")[-1] == [str(40 + 2)]


def test_output_before_an_error_is_shown(tmp_path):
    line = "1 2 . . . 3 ."
    r = run(stdin=line + "\n", tmp_path=tmp_path)
    assert r.returncode == 1
    assert r.stdout.split()[:2] == ["2", "1"]  # printed before the underflow
    third_dot = [i for i, ch in enumerate(line) if ch == "."][2]
    assert f"<stdin>:1:{third_dot + 1}: error:" in r.stderr
    assert "underflow" in r.stderr
    # the position is shown once, in front, not repeated in the message
    assert "column" not in r.stderr


def test_error_found_at_semicolon_points_into_an_earlier_line(tmp_path):
    r = run(stdin=": HALF? IF\n  1\n;\n2 3 + .\n", tmp_path=tmp_path)
    assert r.returncode == 1
    col = ": HALF? IF".index("IF") + 1
    assert r.stderr.startswith(f"<stdin>:1:{col}: error:")
    assert "IF" in r.stderr and "THEN" in r.stderr
    assert str(2 + 3) in r.stdout.split()  # and the session went on


# ------------------------------------------------------------------ files, -e


def test_file_runs_line_by_line(tmp_path):
    src = tmp_path / "squares.fth"
    src.write_text(": SQ DUP * ;\n3 SQ .\n4 SQ .\n")
    r = run(str(src), tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(3 * 3), str(4 * 4)]


def test_file_error_stops_with_file_and_line(tmp_path):
    src = tmp_path / "bad.fth"
    src.write_text("1 2 + .\n3 NOSUCHWORD\n5 6 + .\n")
    r = run(str(src), tmp_path=tmp_path)
    assert r.returncode == 1
    assert r.stdout.split() == [str(1 + 2)]  # line 3 never ran
    col = "3 NOSUCHWORD".index("NOSUCHWORD") + 1
    assert r.stderr.startswith(f"{src}:2:{col}: error:")
    assert "^" * len("NOSUCHWORD") in r.stderr


def test_file_leaving_values_shows_final_stacks(tmp_path):
    src = tmp_path / "left.fth"
    src.write_text("1 2\n3\n")
    r = run(str(src), tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert stack_views(r.stdout, "data") == [["1", "2", "3"]]


def test_dash_e_runs_after_files(tmp_path):
    src = tmp_path / "def.fth"
    src.write_text(": CUBE DUP DUP * * ;\n")
    r = run(str(src), "-e", "5 CUBE .", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(5**3)]


def test_missing_file(tmp_path):
    r = run(str(tmp_path / "nope.fth"), tmp_path=tmp_path)
    assert r.returncode == 2
    assert "cannot read" in r.stderr


def test_file_ending_inside_a_definition(tmp_path):
    src = tmp_path / "open.fth"
    src.write_text(": HALF 2 /\n")
    r = run(str(src), tmp_path=tmp_path)
    assert r.returncode == 1
    assert "missing ;" in r.stderr


# ------------------------------------------------------------------ history


def test_history_falls_back_to_memory_when_not_writable(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    assert isinstance(open_history(blocker / "sub" / "history"), InMemoryHistory)
    path = tmp_path / "data" / "tileforth" / "history"
    assert isinstance(open_history(path), FileHistory)
    assert path.exists()


# ------------------------------------------------------------------ terminal


def test_interactive_prompt(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), TERM="xterm",
               PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(CLI[0], CLI[1:], env=env, encoding="utf-8", timeout=120,
                          dimensions=(24, 80))
    try:
        child.expect("BYE or Ctrl-D leaves")
        child.expect(">")
        child.sendline("20 22 + .")
        child.expect(str(20 + 22))
        child.expect("data")
        child.sendline("1 FROBNICATE")
        child.expect(r"\^{10}")  # caret under the unknown word
        child.sendline("7 8 + .")  # the session goes on
        child.expect(str(7 + 8))
        child.sendline("BYE")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    history = (tmp_path / "data" / "tileforth" / "history").read_text()
    assert "+20 22 + ." in history and "+7 8 + ." in history


def test_the_session_is_closed_at_the_end_of_a_run(tmp_path):
    """UPDATEd block buffers are written back and open files closed when the
    CLI ends, after BYE as at the end of the input (gforth's BYE saves blocks)."""
    for how in ("BYE", ""):
        r = run("-e", f'1 1 1 GRID 1 1 1 THREADS  CHAR Z 3 BLOCK C! UPDATE {how}', cwd=tmp_path, tmp_path=tmp_path)
        assert r.returncode == 0, r.stderr
        data = (tmp_path / "blocks.fb").read_bytes()
        assert data[3 * 1024:3 * 1024 + 1] == b"Z" and len(data) == 4 * 1024
        (tmp_path / "blocks.fb").unlink()
