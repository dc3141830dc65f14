r"""Real Forth programs run as files print what gforth prints (issue 25: F1 F2 F3 F5 F6 F11).

Each program runs as a file through the `tileforth` command at one thread (a first line of
`1 1 1 GRID 1 1 1 THREADS`, which gforth does not see) and as a file in gforth 0.7.3
(`gforth FILE -e bye`); their standard outputs must be the same, byte for byte:

- F1: no newline is added after a line whose output does not end in one (`1 .` then `2 .`
  prints `1 2 `), in file and -e runs;
- F2: output comes in program order, also from words that print on the host (`.(`);
- F3: "redefined X" goes to standard error, not into the program's output;
- F5: a `;` compiled with POSTPONE and run on a later line ends the definition;
- F6: a word that runs `]` switches to compiling, and `[` after it works (`]L`-style words);
- F11: `:` and `:NONAME` compiled into a word define words when it runs.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import gforth

CLI = [sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu"]
ONE_THREAD = "1 1 1 GRID 1 1 1 THREADS\n"


def tileforth(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=300, cwd=cwd,
                          stdin=subprocess.DEVNULL)


def gforth_file(path: Path, *extra: str) -> subprocess.CompletedProcess:
    """gforth 0.7.3 running the file (then `extra` -e sources, then BYE), as a user would."""
    gforth.require()
    args = [gforth.GFORTH, str(path)]
    for src in extra:
        args += ["-e", src]
    r = subprocess.run(args + ["-e", "bye"], capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL, cwd=path.parent)
    assert r.returncode == 0, f"gforth failed: {r.stderr}"
    return r


def both(tmp_path: Path, program: str) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    """The program run as a file by gforth and by tileforth (at one thread)."""
    ref = tmp_path / "prog.fs"
    ref.write_text(program)
    ours = tmp_path / "prog.fth"
    ours.write_text(ONE_THREAD + program)
    g = gforth_file(ref)
    t = tileforth(str(ours), cwd=tmp_path)
    assert t.returncode == 0, t.stderr
    assert "Traceback" not in t.stderr and "internal error" not in t.stderr, t.stderr
    return g, t


def same_output(tmp_path: Path, program: str) -> str:
    g, t = both(tmp_path, program)
    assert t.stdout == g.stdout, f"tileforth {t.stdout!r} != gforth {g.stdout!r}"
    return t.stdout


# ---- F1: output is exactly the program's -----------------------------------------------------
def test_output_built_over_lines_has_no_added_newlines(tmp_path):
    out = same_output(tmp_path, "1 .\n2 .\n3 . cr\n")
    assert out == "1 2 3 \n"


def test_a_picture_drawn_line_by_line(tmp_path):
    same_output(tmp_path, ": star 42 emit ;\n: stars 0 ?do star loop ;\nstar\n3 stars\n.( |)\n"
                          "space 2 stars cr\n5 .\n")


def test_output_not_ended_by_a_newline_stays_so(tmp_path):
    out = same_output(tmp_path, "1 .\n2 .\n")
    assert out == "1 2 "


def test_stacks_none_prints_the_program_output_only(tmp_path):
    (tmp_path / "p.fs").write_text("7 .\n8 .\n")
    (tmp_path / "p.fth").write_text(ONE_THREAD + "7 .\n8 .\n")
    g = gforth_file(tmp_path / "p.fs")
    t = tileforth("--stacks", "none", str(tmp_path / "p.fth"))
    assert t.returncode == 0, t.stderr
    assert t.stdout == g.stdout == "7 8 "


def test_e_sources_run_as_gforth_runs_them(tmp_path):
    (tmp_path / "p.fs").write_text("1 .\n")
    (tmp_path / "p.fth").write_text(ONE_THREAD + "1 .\n")
    g = gforth_file(tmp_path / "p.fs", "2 .", "3 . 4 .")
    t = tileforth(str(tmp_path / "p.fth"), "-e", "2 .", "-e", "3 . 4 .")
    assert t.returncode == 0, t.stderr
    assert t.stdout == g.stdout == "1 2 3 4 "


def test_an_included_file_and_the_lines_around_it(tmp_path):
    (tmp_path / "inc.fs").write_text("10 .\n11 .\n")
    same_output(tmp_path, "1 .\ns\" inc.fs\" included\n2 .\ninclude inc.fs\ncr\n")


def test_stacks_left_at_the_end_start_on_a_line_of_their_own(tmp_path):
    """The stacks shown at the end (default --stacks end) come after the output's last line."""
    (tmp_path / "p.fth").write_text(ONE_THREAD + "1 .\n42\n")
    t = tileforth(str(tmp_path / "p.fth"))
    assert t.returncode == 0, t.stderr
    first, *rest = t.stdout.split("\n")
    assert first == "1 " and rest[0].startswith("data") and "42" in rest[0], t.stdout


def test_an_error_starts_its_line_on_stderr_after_the_output(tmp_path):
    (tmp_path / "p.fth").write_text(ONE_THREAD + "1 .\nnosuchword\n")
    (tmp_path / "p.fs").write_text("1 .\nnosuchword\n")
    t = tileforth(str(tmp_path / "p.fth"))
    g = subprocess.run([gforth.GFORTH, str(tmp_path / "p.fs"), "-e", "bye"], capture_output=True, text=True,
                       timeout=60) if gforth.available() else None
    assert t.returncode == 1 and "nosuchword" in t.stderr
    assert t.stdout == "1 \n"
    if g is not None:
        assert g.stdout == t.stdout  # gforth too ends the output's line when the error comes


def test_on_a_terminal_the_last_line_is_ended():
    """Into a pipe the output is the program's exactly; on a terminal the run's last line is ended,
    so the shell's prompt starts a line of its own."""
    import io

    from tileforth.repl.display import Display

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for out, ended in ((Terminal(), "1 2 \n"), (io.StringIO(), "1 2 ")):
        d = Display(out, io.StringIO())
        d.program_output("1 ")
        d.program_output("2 ")
        d.end_run()
        assert out.getvalue() == ended


def test_on_a_pty_the_command_ends_the_last_line():
    import os
    import pty

    primary, secondary = pty.openpty()
    try:
        r = subprocess.run(CLI + ["-e", "1 .", "-e", "2 ."], stdout=secondary, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=300)
        os.close(secondary)
        secondary = -1
        data = b""
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # the pty's other side is closed: all was read
                break
            if not chunk:
                break
            data += chunk
    finally:
        os.close(primary)
        if secondary != -1:
            os.close(secondary)
    assert r.returncode == 0, r.stderr
    assert data.replace(b"\r\n", b"\n") == b"1 2 \n"


def test_stdin_still_shows_the_stacks_after_each_line():
    """Lines read from stdin show the stacks after each line, as at the prompt: on a line of their own."""
    r = subprocess.run(CLI, input="1 .\n2\n", capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "1 " and lines[1].startswith("data")


# ---- F2: output in program order ---------------------------------------------------------------
def test_dot_paren_prints_after_the_device_words_before_it(tmp_path):
    out = same_output(tmp_path, "3 . .( c) 4 . cr\n")
    assert out == "3 c4 \n"


def test_dot_paren_between_calls_and_in_definitions(tmp_path):
    same_output(tmp_path, ": w 1 . ; w .( x) w .( y) cr\n"
                          ": v [ .( compiling) ] 2 . ; .( ran) v cr\n"
                          "5 . 6 emit .( z) 7 . cr\n")


def test_host_words_print_in_program_order():
    """WORDS, SEE and ORDER print on the host: after what the device code before them printed."""
    from tileforth.core import Forth

    f = Forth("cpu")
    f.eval("1 1 1 GRID 1 1 1 THREADS")
    f.eval(": sq dup * ;")
    out = f.eval("1 . see sq 2 . order 3 . words 4 .")
    assert out.startswith("1 ")
    see, order, words = out.index(": sq"), out.index("(definitions go into"), out.index(" DUP ")
    assert 0 < out.index("2 ") < order < out.index("3 ") < words < out.rindex("4 ")
    assert see < out.index("2 ")


# ---- F3: notes go to stderr ------------------------------------------------------------------------
def test_redefined_notes_go_to_stderr(tmp_path):
    g, t = both(tmp_path, ": foo 1 ;\n: foo 2 ;\nfoo .\n")
    assert t.stdout == g.stdout == "2 "
    assert "redefined foo" in t.stderr and "redefined" not in t.stdout
    assert "redefined foo" in g.stderr  # where gforth writes it


def test_redefined_notes_of_e_sources_go_to_stderr():
    t = tileforth("-e", ": foo ; : foo ; 1 .")
    assert t.returncode == 0, t.stderr
    assert t.stdout == "1 " and "redefined foo" in t.stderr


# ---- F5: a `;` compiled with POSTPONE ---------------------------------------------------------------
def test_a_postponed_semicolon_run_on_a_later_line(tmp_path):
    out = same_output(tmp_path, ": mkc : 7 postpone literal postpone ; ;\nmkc seven\nseven .\n")
    assert out == "7 "


def test_a_postponed_semicolon_ends_a_definition_typed_in_the_text(tmp_path):
    same_output(tmp_path, ": end-def postpone ; ; immediate\n: foo 1 2 end-def\nfoo . .\n"
                          ": bar 3\n4 end-def bar . .\n")


def test_see_keeps_the_text_of_words_made_by_words():
    from tileforth.core import Forth

    f = Forth("cpu")
    f.eval(": mkc : 7 postpone literal postpone ; ;", source="p.fth", line=1)
    f.eval("mkc seven", source="p.fth", line=2)
    assert f.eval("seven .") == "7 "
    assert "mkc seven" in f.eval("see seven")  # the line that made it, not a slice of another line
    f.eval(": end-def postpone ; ; immediate", source="p.fth", line=3)
    f.eval(": foo 1 2 end-def", source="p.fth", line=4)
    see = f.eval("see foo")
    assert "1 2 end-def" in see and "postpone" not in see
    f.eval(": bar 3", source="p.fth", line=5)
    f.eval("4 end-def 5", source="p.fth", line=6)  # the text after the end is not the definition's
    see = f.eval("see bar")
    assert ": bar 3" in see and "4 end-def" in see and "5" not in see.split("end-def", 1)[1]
    assert f.eval("bar . . .") == "4 3 5 "


# ---- F6: `]` run by a word ------------------------------------------------------------------------
def test_a_word_that_runs_right_bracket(tmp_path):
    out = same_output(tmp_path, ": ]x ] ;  : t4 [ ]x 5 [ ] 1 + ;\nt4 .\n")
    assert out == "6 "


def test_bracket_literal_macros(tmp_path):
    same_output(tmp_path, ": ]lit ] postpone literal ;\n"
                          ": t5 [ 2 3 + ]lit ; t5 .\n"
                          ": t6 [ 10 ] literal [ 3 ]lit + ; t6 .\n"
                          ": [lit postpone [ ; immediate\n"
                          ": t7 [lit 4 ]lit ; t7 .\n"
                          ": t8 0 [ 6 ]lit 0 do i + loop ; t8 .\n")


# ---- F11: defining words compiled into definitions ----------------------------------------------------
def test_noname_compiled_into_a_definition(tmp_path):
    out = same_output(tmp_path, ": mk >r :noname r> postpone literal postpone ; ;\n5 mk execute .\n")
    assert out == "5 "


def test_words_that_build_words(tmp_path):
    same_output(tmp_path, "defer d  : setd :noname postpone dup postpone * postpone ; is d ;\n"
                          "setd 7 d .\n"
                          "create tbl 3 cells allot\n"
                          ": fill-tbl 3 0 do :noname i postpone literal postpone ; tbl i cells + ! loop ;\n"
                          "fill-tbl tbl 2 cells + @ execute . tbl @ execute .\n"
                          ": mkabs : postpone dup postpone 0< postpone if postpone negate postpone then "
                          "postpone ; ;\n"
                          "mkabs myabs -5 myabs . 4 myabs .\n"
                          ": mkconst ( n \"name\" -- ) >r : r> postpone literal postpone ; ;\n"
                          "9 mkconst nine nine . cr\n")


@pytest.mark.parametrize("program", [
    ": mkc : 7 postpone literal postpone ; ; mkc seven seven .\n",  # all on one line
    ": mk2 :noname postpone ; ; mk2 execute 1 .\n",
])
def test_one_line_variants(tmp_path, program):
    same_output(tmp_path, program)
