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
import re
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
        child.expect(r"leaves\.")  # the banner ends "BYE or Ctrl-D leaves.", wrapped at the width
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


# ------------------------------------------------------------------ views shown once, WORDS (issue 14)


def test_dot_s_on_stdin_shows_the_stacks_once(tmp_path):
    """`.S` shows every stack; the view after the line is not printed again
    when `.S` ended the line and nothing changed since."""
    r = run(stdin="1 2 .S\n.S 3\n4 .S DROP\n", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert stack_views(r.stdout, "data") == [
        ["1", "2"],                              # 1 2 .S: once
        ["1", "2"], ["1", "2", "3"],             # .S 3: the stacks changed after .S, so both
        ["1", "2", "3", "4"], ["1", "2", "3"],   # 4 .S DROP: likewise
    ]
    assert len(stack_views(r.stdout, "float")) == 5


def test_see_shows_the_header_once(tmp_path):
    r = run("--stacks", "none", stdin=": sq DUP * ;\nSEE sq\n: cube ( n -- n^3 ) DUP sq * ;\nSEE cube\n",
            tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:2] == [": sq ( x1 -- x'1 )", "  DUP * ;"]
    assert lines[2] == ": cube ( x1 -- x'1 )"
    assert lines[3] == "  ( n -- n^3 ) DUP sq * ;"
    assert lines[4] == "\\ calls: sq"
    assert sum(ln.startswith(": sq") for ln in lines) == 1 and sum(ln.startswith(": cube") for ln in lines) == 1


def test_see_of_a_definition_over_several_lines_of_a_file(tmp_path):
    r = run("--stacks", "none", stdin=": cube\n  DUP DUP\n  * * ;\nSEE cube\n", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:3] == [": cube ( x1 -- x'1 )", "  DUP DUP", "  * * ;"]


def words_sections(stdout: str) -> list[tuple[str, list[str]]]:
    """WORDS' output as (heading, names) pairs; the first is the user's words."""
    sections: list[tuple[str, list[str]]] = []
    for line in stdout.splitlines():
        if line.startswith("  "):
            sections[-1][1].extend(line.split())
        elif line:
            sections.append((line, []))
    return sections


def test_words_lists_the_users_words_newest_first_then_builtins_by_group(tmp_path):
    from tileforth.repl.session import Session

    r = run("--stacks", "none", stdin="WORDS\n", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    fresh = words_sections(r.stdout)
    assert fresh[0][0].startswith("no words of your own yet")
    every = [n for _, names in fresh for n in names]
    assert sorted(every) == sorted(Session.start("cpu").forth.dict)  # each word once
    groups = dict(fresh[1:])
    assert "DUP" in groups["Stack:"] and "TMMA" in groups["Tiles (tensor cores):"]
    assert "WORDS" in groups["Host words (run between launches):"]

    r = run("--stacks", "none", stdin=": sq DUP * ;\n3 CONSTANT three\n: cube DUP sq * ;\n"
            "VARIABLE v\n: DUP DUP ;\nWORDS\n", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    sections = words_sections(r.stdout.split("redefined DUP", 1)[-1])
    assert sections[0] == ("your words, newest first:", ["DUP", "v", "cube", "three", "sq"])
    assert "DUP" not in dict(sections[1:])["Stack:"]  # redefined: now the user's


def test_echo_prints_each_line_before_its_output(tmp_path):
    src = tmp_path / "two.fth"
    src.write_text("\\ two lines\n\n2 3 + .\n")
    r = run("--echo", str(src), "-e", "7 .", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["> \\ two lines", "", "> 2 3 + .", "5 ", "> 7 .", "7 "]
    r = run("--echo", "--stacks", "none", stdin="1 .\nFROBNICATE\n", tmp_path=tmp_path)
    assert r.stdout.splitlines() == ["> 1 .", "1 ", "> FROBNICATE"]
    assert "FROBNICATE" in r.stderr and r.returncode == 1
    r = run(str(src), tmp_path=tmp_path)  # without --echo: only the output
    assert r.stdout.splitlines() == ["5 "]


def test_help_lists_the_kernel_subcommands(tmp_path):
    r = run("--help", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    text = r.stdout
    assert re.search(r"^\s+tileforth compile FILE", text, re.M), text
    assert re.search(r"^\s+tileforth run FILE", text, re.M), text
    assert re.search(r"^\s+compile FILE .*PTX", text, re.M) and re.search(r"^\s+run FILE .*once", text, re.M)
    for flag in ("--echo", "--no-timing"):
        assert flag in text
    for sub in ("compile", "run"):  # and each subcommand's own help works
        r = run(sub, "--help", tmp_path=tmp_path)
        assert r.returncode == 0 and f"tileforth {sub}" in r.stdout, r.stderr


def test_every_word_the_repl_accepts_has_help(tmp_path):
    """HELP for each dictionary word of a REPL session and each command the
    REPL itself takes (BYE): its name, stack effect and meaning."""
    from tileforth.repl.session import REPL_COMMANDS, Session

    names = sorted(set(Session.start("cpu").forth.dict) | set(REPL_COMMANDS))
    assert "BYE" in names and "WORDS" in names and len(names) > 300
    r = run("--echo", "--stacks", "none", stdin="".join(f"HELP {n}\n" for n in names), tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    blocks = re.split(r"^> HELP (.*)\n", r.stdout, flags=re.M)[1:]
    got = dict(zip(blocks[::2], blocks[1::2]))
    assert sorted(got) == names
    for name, text in got.items():
        lines = text.splitlines()
        assert lines and lines[0].upper().startswith(name.upper() + "  "), (name, text)
        assert "(" in lines[0] and "--" in lines[0], (name, text)  # the stack effect
        meaning = " ".join(ln.strip() for ln in lines[1:] if not ln.strip().startswith("example:"))
        assert re.search(r"[A-Za-z]{3}", meaning), (name, text)
    assert "End the session" in got["BYE"]


def test_no_timing_leaves_the_time_line_out(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    ansi = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\r")
    seen = {}
    for flag in ("--timing", "--no-timing"):
        child = pexpect.spawn(CLI[0], CLI[1:] + [flag], env=env, encoding="utf-8", timeout=120,
                              dimensions=(24, 100))
        try:
            child.expect("BYE or Ctrl-D leaves")
            child.sendline("20 22 + .")
            child.expect(str(20 + 22))
            child.sendline("BYE")
            child.expect(pexpect.EOF)
            seen[flag] = ansi.sub("", child.before)
        finally:
            child.close()
    assert re.search(r"data +<0>\s+float <0>", seen["--timing"]) and re.search(r"data +<0>\s+float <0>",
                                                                              seen["--no-timing"])
    assert re.search(r"time +compile [\d.]+ ms +run [\d.]+ ms +read [\d.]+ ms +\(run time on the CPU "
                     r"emulator", seen["--timing"]), seen["--timing"]
    assert " ms" not in seen["--no-timing"], seen["--no-timing"]


# ---- errors in words defined elsewhere: the definition's place, then the line that ran ----------------

LIB = ": good 1 2 + ;\n\n: bad ( -- )\n  1 0 /\n  DROP ;\n"


def _place(text: str, line: int, word: str) -> tuple[int, int]:
    """(line, column) of `word` on 1-based `line` of text: where an error there must point."""
    return line, text.splitlines()[line - 1].index(word) + 1


def test_a_word_from_an_included_file_fails_at_its_definition(tmp_path):
    (tmp_path / "lib.fth").write_text(LIB)
    r = run("--stacks", "none", stdin="INCLUDE lib.fth\ngood .\nbad\n", cwd=tmp_path)
    line, col = _place(LIB, 4, "/")
    assert r.stdout == "3 \n"
    err = r.stderr.splitlines()
    assert err[0].startswith(f"lib.fth:{line}:{col}: error: division by zero in bad")
    assert err[1:3] == ["    1 0 /", " " * (2 + col - 1) + "^"]  # the line, indented 2, and the caret
    assert err[3] == "  (while running <stdin>:3)"
    e = run("lib.fth", "-e", "good . bad", cwd=tmp_path)  # a file on the command line, then -e
    assert e.stderr.startswith(f"lib.fth:{line}:{col}: error:") and "(while running -e:1)" in e.stderr


def test_a_word_defined_on_an_earlier_line_fails_at_its_definition():
    src = ": w2\n  0 @ ;\n1 2 + DROP\nw2\n"
    r = run("--stacks", "none", stdin=src)
    line, col = _place(src, 2, "@")
    assert r.stderr.startswith(f"<stdin>:{line}:{col}: error: bad address $0 in w2")
    assert "  (while running <stdin>:4)" in r.stderr.splitlines()


def test_an_error_in_an_open_definition_is_no_call():
    src = ": w3\n  IF 1\n;\n"
    r = run("--stacks", "none", stdin=src)
    line, col = _place(src, 2, "IF")
    assert r.stderr.startswith(f"<stdin>:{line}:{col}: error: IF in w3 is not closed")
    assert "while running" not in r.stderr


def test_eval_names_its_source_and_first_line():
    from tileforth.core import Forth, ForthError

    f = Forth(backend="cpu")
    f.eval("\n: bad ( -- )\n  1 0 / DROP ;", source="lib.fth", line=10)
    with pytest.raises(ForthError) as e:
        f.eval("bad", source="main.fth", line=3)
    assert (e.value.pos.source, e.value.pos.line, e.value.pos.col) == ("lib.fth", 12, 7)
    with pytest.raises(ForthError) as e:
        f.eval("1 2\n+ NOPE", source="main.fth", line=7)
    assert (e.value.pos.source, e.value.pos.line, e.value.pos.col) == ("main.fth", 8, 3)


def test_a_multi_line_entry_numbers_its_lines_on():
    """The prompt's entry of several lines: its lines are numbered on from the entry's first, an
    error on its second line is placed there, and the next entry's number follows its last line."""
    from tileforth.repl.session import Session

    s = Session.start("cpu")
    s.set_source("<prompt>")
    assert s.run_line(": w ( -- )\n  1 0 /\n  DROP ;", spanning=True).error is None  # lines 1-3
    r = s.run_line("w", spanning=True)  # line 4
    assert (r.where, r.running, r.source_line) == ("<prompt>:2", "<prompt>:4", "  1 0 /")
    r = s.run_line("1 2\n3 NOPE", spanning=True)  # lines 5-6
    assert (r.where, r.running, r.source_line) == ("<prompt>:6", None, "3 NOPE")
    assert s.run_line("7", spanning=True).error is None and s.lineno == 7
