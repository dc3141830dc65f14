"""Defects of issue 26 ("Reliability 3"), each with the test that failed before its fix.

Blocks: a write-back that fails when the session ends (a full disk, a read-only file) is
an error that names the file and says where the UPDATEd blocks went instead, never a
traceback; SIGTERM and SIGHUP write them back as Ctrl-C does. READ-FILE checks its buffer
before it reads the file."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from forthtest import ONE_THREAD
from tileforth.core import Forth, ForthError
from tileforth.core.session.words import blocks as blockwords

CLI = [sys.executable, "-m", "tileforth.repl.cli"]
ROOT = Path(__file__).resolve().parent.parent
full_disk = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full to stand for a full disk")


def _env(tmp_path: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}


# ---- blocks at the session's end ------------------------------------------------------------
@full_disk
def test_full_disk_at_close_saves_the_blocks_elsewhere(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    f.eval('S" /dev/full" OPEN-BLOCKS  1 BLOCK 66 SWAP C! UPDATE  3 BLOCK 67 SWAP C! UPDATE')
    with pytest.raises(ForthError) as err:
        f.close()
    msg = err.value.message
    assert "/dev/full" in msg and "No space left on device" in msg and "blocks 1 3" in msg
    saved = [p for p in tmp_path.iterdir() if p.name.startswith("full.unsaved-")]
    assert len(saved) == 1 and str(saved[0]) in msg
    data = saved[0].read_bytes()
    assert data[1024:1025] == b"B" and data[3 * 1024:3 * 1024 + 1] == b"C"  # the same block numbers


def test_read_only_block_file_says_why_and_keeps_the_data(tmp_path, monkeypatch):
    """Opened for reading (the file is not writable), then written at the end: the reason
    is the permission, not "Bad file descriptor"; the block is saved beside the file."""
    fb = tmp_path / "ro.fb"
    fb.write_bytes(b" " * 2048)
    real_open = os.open

    def no_writing(path, flags, *a):  # a read-only file, also for root
        if os.fsdecode(path) == str(fb) and flags & (os.O_RDWR | os.O_WRONLY):
            raise PermissionError(13, "Permission denied", str(fb))
        return real_open(path, flags, *a)

    monkeypatch.setattr(blockwords.os, "open", no_writing)
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    f.eval(f'S" {fb}" OPEN-BLOCKS  1 BLOCK C@ .  1 BLOCK 88 SWAP C! UPDATE')
    with pytest.raises(ForthError) as err:
        f.close()
    msg = err.value.message
    assert "Permission denied" in msg and "Bad file descriptor" not in msg and str(fb) in msg
    saved = [p for p in tmp_path.iterdir() if p.name.startswith("ro.fb.unsaved-")]
    assert len(saved) == 1 and saved[0].read_bytes()[1024:1025] == b"X"
    assert fb.read_bytes() == b" " * 2048


@full_disk
def test_cli_full_disk_at_exit_is_an_error_not_a_traceback(tmp_path):
    r = subprocess.run([*CLI, "-e", 'S" /dev/full" OPEN-BLOCKS 1 BLOCK 66 SWAP C! UPDATE'], cwd=tmp_path,
                       env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode == 1
    assert "/dev/full" in r.stderr and "saved in" in r.stderr
    assert any(p.name.startswith("full.unsaved-") for p in tmp_path.iterdir())


def test_cli_writable_blocks_saved_at_exit(tmp_path):
    r = subprocess.run([*CLI, "-e", "1 BLOCK 66 SWAP C! UPDATE"], cwd=tmp_path, env=_env(tmp_path),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "blocks.fb").read_bytes()[1024:1025] == b"B"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_write_the_blocks_back(tmp_path, sig):
    """As Ctrl-C does: the line running is stopped, the UPDATEd blocks are written back and
    the status is 128 + the signal. The signal is sent once the first line has printed."""
    prog = tmp_path / "p.fth"
    prog.write_text("1 BLOCK 66 SWAP C! UPDATE .( ready) CR\n0 SET-STEP-BUDGET BEGIN AGAIN\n")
    p = subprocess.Popen([*CLI, str(prog)], cwd=tmp_path, env=_env(tmp_path), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert p.stdout is not None
        assert p.stdout.readline().strip() == "ready"
        p.send_signal(sig)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 128 + sig, err
    assert "Traceback" not in err
    assert (tmp_path / "blocks.fb").read_bytes()[1024:1025] == b"B"


# ---- READ-FILE ---------------------------------------------------------------------------------
def test_read_file_checks_the_buffer_before_reading(tmp_path):
    src = tmp_path / "data.txt"
    src.write_bytes(b"abcdefghij")
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    f.eval(f'S" {src}" R/O OPEN-FILE DROP VALUE fd')
    with pytest.raises(ForthError) as err:
        f.eval("PAD 2000000000 fd READ-FILE")
    assert "READ-FILE" in err.value.message and "buffer" in err.value.message
    f.eval("PAD 4 fd READ-FILE")  # nothing was taken from the file by the failed read
    assert f.data_stack() == [4, 0]
    f.eval("2DROP")
    assert f.eval("PAD 4 TYPE") == "abcd"
    f.close()


def test_read_file_reads_at_most_u_bytes_in_pieces(tmp_path, monkeypatch):
    from tileforth.core.session.words import files

    monkeypatch.setattr(files, "READ_CHUNK", 4)  # several pieces: the count and the bytes still right
    src = tmp_path / "data.txt"
    src.write_bytes(b"0123456789")
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    f.eval(f'S" {src}" R/O OPEN-FILE DROP VALUE fd  CREATE B 32 ALLOT')
    f.eval("B 9 fd READ-FILE")
    assert f.data_stack() == [9, 0]
    f.eval("2DROP B 5 fd READ-FILE")
    assert f.data_stack() == [1, 0]
    assert f.eval("2DROP B 9 TYPE") == "912345678"
    f.close()


# ---- the Low list ----------------------------------------------------------------------------
def _cli(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True,
                          timeout=120, input=stdin)


def test_dot_s_at_the_end_of_a_run_is_not_shown_twice(tmp_path):
    r = _cli(tmp_path, "-e", "1 2 .S")
    assert r.returncode == 0 and r.stdout.count("<2> 1 2") == 1, r.stdout
    (tmp_path / "s.fth").write_text("1 2 .S\n\n")  # a blank line after the .S: still once
    assert _cli(tmp_path, "s.fth").stdout.count("<2> 1 2") == 1
    r = _cli(tmp_path, "-e", "1 2 .S 3")  # the stacks changed after the .S: shown again, as they are now
    assert r.stdout.count("<2> 1 2") == 1 and r.stdout.count("<3> 1 2 3") == 1


def test_output_of_only_some_threads_is_labelled():
    f = Forth(backend="cpu")
    f.eval("256 1 1 THREADS")
    assert f.eval("GLOBAL-ID 2 MOD 0= IF 0 . THEN") == "[thread 0, 2, 4, … 254] 0 \n"
    assert f.eval("GLOBAL-ID 0= IF 5 . THEN") == "[thread 0] 5 \n"
    assert f.eval("5 .") == "5 "  # every thread printed the same: once, unlabelled
    f.close()


def test_negative_type_prints_nothing_as_gforth():
    import gforth

    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    got = f.eval("PAD -1 TYPE 7 .")
    assert "\0" not in got and got == "7 "
    if gforth.available():
        assert gforth.output("PAD -1 TYPE 7 .") == got
    f.close()


def test_negative_allot_past_the_start_says_so():
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    used = f.eval("HERE .")
    with pytest.raises(ForthError) as err:
        f.eval("-100000000 ALLOT")
    assert "give back" in err.value.message and "do not fit" not in err.value.message
    assert f.eval("HERE .") == used  # nothing changed
    f.eval("16 ALLOT -16 ALLOT")
    assert f.eval("HERE .") == used
    f.close()


def test_base_outside_2_to_36_is_an_error_when_a_number_is_read_or_printed():
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    f.eval("37 BASE !")
    with pytest.raises(ForthError) as err:
        f.eval("10")
    assert "BASE is 37" in err.value.message and "DECIMAL" in err.value.message
    assert f.data_stack() == []
    f.eval("DECIMAL")
    f.eval(": PR 37 BASE ! . ;")
    with pytest.raises(ForthError) as err:
        f.eval("5 PR")
    assert "BASE is 37" in err.value.message
    f.eval("DECIMAL")
    assert f.eval("36 BASE ! Z DECIMAL 35 = .") == "-1 "  # 36 is still a base: Z is 35
    f.close()


def test_nul_in_an_unknown_word_is_shown_escaped():
    f = Forth(backend="cpu")
    with pytest.raises(ForthError) as err:
        f.eval("DUP\0X")
    assert "DUP\\x00X" in err.value.message and "\0" not in err.value.message
    f.close()


def test_recursive_evaluate_and_include_say_what_recursed_and_the_limit(tmp_path):
    from tileforth.core.session.words.textin import MAX_NESTING

    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    f.eval(': R S" R" EVALUATE ;')
    with pytest.raises(ForthError) as err:
        f.eval("R")
    msg = err.value.message
    assert "EVALUATE" in msg and str(MAX_NESTING) in msg and "thousands" not in msg
    inc = tmp_path / "inc.fth"
    inc.write_text(f'S" {inc}" INCLUDED\n')
    with pytest.raises(ForthError) as err:
        f.eval(f'S" {inc}" INCLUDED')
    assert f"INCLUDE of {inc}" in err.value.message and str(MAX_NESTING) in err.value.message
    assert f.eval("1 2 + .") == "3 "  # the session goes on
    f.eval(f'S" {tmp_path}/ok.fth" W/O CREATE-FILE DROP CLOSE-FILE DROP')
    f.eval('VARIABLE N  : DEEP N @ 40 < IF 1 N +! S" DEEP" EVALUATE THEN ;  0 N ! DEEP')  # deep, but ends
    assert f.eval("N @ .") == "40 "
    f.close()


def test_include_of_a_file_that_is_not_utf8_names_the_byte(tmp_path):
    src = tmp_path / "latin.fth"
    src.write_bytes(b"1 .\n2 \xe9 .\n")
    f = Forth(backend="cpu")
    with pytest.raises(ForthError) as err:
        f.eval(f"INCLUDE {src}")
    msg = err.value.message
    assert str(src) in msg and "0xe9" in msg and "line 2, column 3" in msg and "codec" not in msg
    f.close()


def test_time_line_only_after_a_line_that_ran_something():
    import io

    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from tileforth.repl.display import Display
    from tileforth.repl.prompt import Repl
    from tileforth.repl.session import Session

    s = Session.start("cpu")
    out = io.StringIO()
    with create_pipe_input() as pipe:
        repl = Repl(s, Display(out, io.StringIO()), input=pipe, output=DummyOutput(), history=InMemoryHistory())
        repl.threaded = False
        for line in ("", "\\ a comment", "( nothing )"):
            out.seek(0)
            out.truncate(0)
            repl.show(repl.run_line(line))
            assert "time " not in out.getvalue(), (line, out.getvalue())
        out.seek(0)
        out.truncate(0)
        repl.show(repl.run_line("1 DUP + ."))
        assert "time " in out.getvalue()
    s.forth.close()


def test_steps_help_says_what_the_docs_say():
    from tileforth.repl.args import parse_args  # noqa: F401  (the parser the help comes from)

    r = subprocess.run([*CLI, "--help"], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "400"})
    line = next(ln for ln in r.stdout.replace("\n ", " ").splitlines() if "--steps" in ln and "budget" in ln)
    assert "summed over its threads" not in line and "each thread" in line
    assert "each thread may run" in (ROOT / "docs" / "repl.md").read_text()


def test_stack_overflow_caret_is_under_the_item_that_does_not_fit():
    from tileforth.repl.render import render_error

    from tileforth.core.compile.machine import Machine
    f = Forth(backend="cpu", machine=Machine(ds_max=128))  # a data stack of 128 cells, whatever the launch
    f.eval(ONE_THREAD)
    line = " ".join(str(i) for i in range(1, 140))
    with pytest.raises(ForthError) as err:
        f.eval(line)
    assert err.value.col == line.index(" 129 ") + 2  # the 129th item: the first past the 128 there is room for
    rows = render_error(err.value).plain.splitlines()
    caret = rows[2].index("^") - 2
    assert rows[1][2:][caret:caret + 3] == "129"
    f.close()


def test_a_long_line_is_cut_to_a_window_around_the_error_caret_aligned():
    from tileforth.repl.render import render_error

    f = Forth(backend="cpu")
    line = " ".join(str(i) for i in range(3000)) + " FOO " + " ".join(str(i) for i in range(3000))
    with pytest.raises(ForthError) as err:
        f.eval(line)
    for width in (60, 100, 240):
        rows = render_error(err.value, where="x.fth:1", width=width).plain.splitlines()
        assert len(rows[1]) <= width and len(rows[2]) <= width
        at = rows[2].index("^")
        assert rows[1][at:at + 3] == "FOO" and rows[2][at:] == "^^^"
        assert rows[1].startswith("  …") and rows[1].endswith("…")
    short = render_error(err.value, width=None).plain.splitlines()  # no width: the whole line, as before
    assert len(short[1]) == len(line) + 2
    f.close()


def test_a_message_wraps_between_words_on_a_terminal():
    from tileforth.repl.render import render_error

    f = Forth(backend="cpu")
    with pytest.raises(ForthError) as err:
        f.eval("1 2 FROBNICATE-THE-WIDGETS")
    rows = render_error(err.value, where="x.fth:1", width=40, wrap=True).plain.splitlines()
    words = err.value.message.split()
    text_rows = rows[:-2]
    assert all(len(r) <= 40 or " " not in r for r in text_rows)
    assert " ".join(" ".join(text_rows).split()[2:]) == " ".join(words)  # no word broken ("x.fth:1:5: error:")
    f.close()


def test_cli_error_in_a_long_line_is_cut(tmp_path):
    (tmp_path / "long.fth").write_text(" ".join(str(i) for i in range(3000)) + " FOO\n")
    r = _cli(tmp_path, "long.fth")
    assert r.returncode == 1 and "unknown word FOO" in r.stderr
    assert max(len(ln) for ln in r.stderr.splitlines()[1:]) <= 240


def test_ctrl_d_inside_an_open_definition_says_what_it_loses_then_ends():
    from test_repl_editor import Typist, wait_until
    from tileforth.repl import editor

    t = Typist()
    try:
        t.type(": half 2")
        wait_until(lambda: t.buffer.text == ": half 2")
        t.type("\r")  # Enter in an open definition: a new line in the editor
        wait_until(lambda: t.buffer.text.startswith(": half 2\n"))
        t.type("\x04")  # Ctrl-D: a message, nothing lost yet
        wait_until(lambda: t.buffer.validation_error is not None, what="the Ctrl-D message")
        assert t.buffer.validation_error.message == editor.EOF_IN_DEFINITION
        assert t.thread.is_alive()
        t.type("\x04")  # again: the session ends
        t.thread.join(30)
        assert not t.thread.is_alive() and t.status == 0
    finally:
        t.close()


def test_ctrl_c_while_the_session_starts_exits_130_quietly(tmp_path):
    """SIGINT that lands while the session is being made (here: sent from inside Session.start,
    so it lands there every time) ends the command as Ctrl-C does later: status 130, no traceback."""
    code = ("import os, signal\n"
            "from tileforth.repl import cli, session\n"
            "start = session.Session.start\n"
            "def interrupted(*a, **k):\n"
            "    os.kill(os.getpid(), signal.SIGINT)\n"
            "    return start(*a, **k)\n"
            "session.Session.start = interrupted\n"
            "cli.entry()\n")
    r = subprocess.run([sys.executable, "-c", code, "--backend", "cpu", "-e", "1 ."], cwd=tmp_path,
                       env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert r.returncode == 130 and "Traceback" not in r.stderr, r.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_at_the_prompt_write_the_blocks_back(tmp_path, sig):
    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in _env(tmp_path).items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", XDG_DATA_HOME=str(tmp_path / "data"))
    child = pexpect.spawn(CLI[0], CLI[1:], env=env, cwd=str(tmp_path), encoding="utf-8", timeout=120,
                          dimensions=(24, 100))
    try:
        child.expect("BYE or Ctrl-D leaves")
        child.sendline("1 BLOCK 66 SWAP C! UPDATE 6 7 * .")
        child.expect("42 ")
        child.expect_exact("\x1b[?2004h")  # the next prompt (bracketed paste on again): the line is over
        child.kill(sig)
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 128 + sig and "Traceback" not in child.before
    assert (tmp_path / "blocks.fb").read_bytes()[1024:1025] == b"B"


# ---- a quotient that does not fit a cell ------------------------------------------------------
MIN_CELL = -(1 << 63)
QUOTIENT_CASES = {  # the words, gforth 0.7.3's own (no prelude): a CATCH of each, its code
    "/": f"{MIN_CELL} -1", "MOD": f"{MIN_CELL} -1", "/MOD": f"{MIN_CELL} -1",
    "*/": f"{MIN_CELL} 1 -1", "*/MOD": f"{MIN_CELL} 1 -1",
    "SM/REM": f"{MIN_CELL} S>D -1", "FM/MOD": f"{MIN_CELL} S>D -1", "UM/MOD": "0 1 1",
}


@pytest.mark.parametrize("word", sorted(QUOTIENT_CASES))
def test_a_quotient_that_does_not_fit_a_cell_fails_as_in_gforth(word):
    """Issue 26: `MIN-INT -1 /` silently gave MIN-INT (and SM/REM, */ ... a wrapped quotient);
    gforth throws -11 (result out of range) for / MOD /MOD and -10 for the others."""
    import gforth

    gforth.require()
    line = f"{QUOTIENT_CASES[word]} ' {word} CATCH ."
    want = subprocess.run(["gforth", "-e", f"{line} bye"], capture_output=True, text=True, timeout=30).stdout
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    assert f.eval(line) == want and want.strip() in ("-10", "-11")
    f.eval("DEPTH 0 ?DO DROP LOOP")
    with pytest.raises(ForthError) as err:
        f.eval(f"{QUOTIENT_CASES[word]} {word}")
    assert err.value.code == int(want) and "does not fit a cell" in err.value.message
    assert f.data_stack() == []  # the failed line left the stacks as they were
    f.close()


# ---- a period that does not divide the thread count -------------------------------------------
def _expand(listed: str) -> list[int]:
    """Values written as the stack view writes them: `a b c` or a ramp `a b c … z`."""
    items = listed.split()
    if "…" not in items:
        return [int(x) for x in items]
    a, b, last = int(items[0]), int(items[1]), int(items[-1])
    return list(range(a, last + (b - a), b - a))


def _unsummarize(text: str, n: int) -> list[int]:
    import re

    m = re.fullmatch(r"\[\((.*)\)×(\d+)(?: (.*))?\]", text)
    assert m, text
    return _expand(m.group(1)) * int(m.group(2)) + (_expand(m.group(3)) if m.group(3) else [])


@pytest.mark.parametrize("threads, mod, scale", [(96, 5, 1), (96, 7, 3), (100, 32, 1), (100, 3, 1), (96, 4, 1)])
def test_a_period_that_does_not_divide_the_thread_count_is_summarised(threads, mod, scale):
    """Issue 26: `TID-X 5 MOD` on 96 threads showed only its range; now the period, its count and
    the values after the last whole period, which expand back to numpy's values."""
    f = Forth(backend="cpu")
    f.eval(f"{threads} 1 1 THREADS TID-X {mod} MOD {scale} *")
    from tileforth.repl.render import stack_entries

    _, (entry,) = stack_entries(f.data_stack(lane=None))
    assert _unsummarize(entry, threads) == list((np.arange(threads) % mod) * scale)
    f.close()


@pytest.mark.parametrize("columns", ["60", "100"])
def test_lanes_float_column_lines_up(tmp_path, columns):
    """Issue 26: `.LANES`' `F:` moved right on rows whose data stack was wider (10 after 9)."""
    r = subprocess.run([*CLI, "--backend", "cpu", "-e", "64 1 1 THREADS TID-X 1e .LANES"], cwd=tmp_path,
                       env={**_env(tmp_path), "COLUMNS": columns}, capture_output=True, text=True, timeout=120)
    rows = [ln for ln in r.stdout.splitlines() if "F: <1> 1.0" in ln]
    assert len(rows) >= 16 and all(len(ln) <= int(columns) for ln in rows)
    places = {tuple(i for i in range(len(ln)) if ln.startswith("F:", i)) for ln in rows if ln == rows[0] or
              ln.count("F:") == rows[0].count("F:")}
    assert len(places) == 1, r.stdout
    for ln in rows:  # each thread's own values, as numpy counts them
        for cell in ln.split("|"):
            t, depth, v = cell.split()[:3]
            assert (depth, int(v)) == ("<1>", int(t))


# ---- tileforth run ------------------------------------------------------------------------------
KERNEL_HEAD = "\\! kernel k\n\\! param X f32[N]\n\\! param N i32\n"


def test_run_reports_the_bodys_error_before_a_bad_parameter_value(tmp_path):
    """Issue 26: `tileforth run` checked --param values before it read the body, so a file with an
    error said only that N=zz is not an integer; fixed, it says what is wrong with the file first."""
    (tmp_path / "bad.fth").write_text(KERNEL_HEAD + "GLOBAL-ID FROB\n")
    r = _cli(tmp_path, "run", "bad.fth", "--param", "X=1,2", "--param", "N=zz")
    assert r.returncode == 1 and "bad.fth:4:11: error: unknown word FROB" in r.stderr, r.stderr
    (tmp_path / "good.fth").write_text(KERNEL_HEAD + "GLOBAL-ID N < IF GLOBAL-ID 4 * X + DUP F@ 2e F* F! THEN\n")
    r = _cli(tmp_path, "run", "good.fth", "--param", "X=1,2", "--param", "N=zz")
    assert r.returncode == 1 and "--param N: 'zz' is not an integer" in r.stderr
    r = _cli(tmp_path, "run", "good.fth", "--param", "X=1,2", "--param", "N=2", "--output-param", "X")
    assert r.returncode == 0 and r.stdout.split("=")[1].split() == ["[2.", "4.]"], r.stdout


def test_a_kernel_files_bad_address_names_the_header_not_array(tmp_path):
    """Issue 26: the hint said to use ARRAY, MATRIX ... SHARED:, which a kernel file's body refuses."""
    (tmp_path / "bad.fth").write_text(KERNEL_HEAD + "123456789 @ DROP\n")
    r = _cli(tmp_path, "run", "bad.fth", "--param", "X=1,2", "--param", "N=2")
    assert r.returncode == 1 and "bad address" in r.stderr
    assert "\\! param NAME TYPE[N]" in r.stderr and "ARRAY" not in r.stderr and "SHARED:" not in r.stderr
    (tmp_path / "body.fth").write_text(KERNEL_HEAD + "10 ARRAY Q\n")  # what the old hint said to do
    assert "ARRAY is a host word" in _cli(tmp_path, "run", "body.fth", "--param", "X=1", "--param", "N=1").stderr


def test_no_demo_redefines_a_word_of_the_system():
    """Issue 26: demos/gemm.fth defined `fill`, hiding the standard FILL (`redefined FILL` once run)."""
    import re

    system = set(Forth(backend="cpu").dict)
    for demo in sorted((ROOT / "demos").glob("*.fth")):
        text = re.sub(r"\\\s.*", "", demo.read_text())  # comments out
        names = re.findall(r"(?:^|\s):\s+(\S+)", text) + re.findall(
            r"\b(?:CONSTANT|VARIABLE|VALUE|CREATE|ARRAY|MATRIX|SHARED:|FCONSTANT)\s+(\S+)", text, re.I)
        assert not [n for n in names if n.upper() in system], demo.name


def test_see_lists_the_calls_after_does_and_shows_the_definition_alone():
    """Issue 26: SEE listed only some calls: those after DOES> (run by the words it CREATEs) were
    left out; and a defining word typed on one line with others showed that whole line."""
    f = Forth(backend="cpu")
    line = ": a 1 ;  : b 2 ;  : mk CREATE a , DOES> @ b + ;  : other a ;"
    f.eval(line)
    shown = f.eval("SEE mk").splitlines()
    assert shown[1].strip().removeprefix(": mk ") == "CREATE a , DOES> @ b + ;"  # its own text, cut from the line
    calls = [ln for ln in shown if "call" in ln]
    assert any(ln.endswith("calls: a") for ln in calls) and any(ln.endswith("DOES>): b") for ln in calls)
    f.eval("5 mk five")
    assert "mk's DOES> part" in f.eval("SEE five")
    assert f.eval("five .") == "3 "  # a , stored 1; DOES> @ b + gives 1 + 2
    f.close()


def test_a_soft_wrapped_line_shows_no_open_definition_marker():
    """Issue 26: a line longer than the terminal went on under `... `, the marker of a definition
    that goes on; the REPL's prompt now puts blanks before a wrapped part, `... ` before a new line."""
    import io

    from prompt_toolkit.formatted_text import fragment_list_to_text, to_formatted_text
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from tileforth.repl.display import Display
    from tileforth.repl.prompt import Repl
    from tileforth.repl.session import Session

    s = Session.start("cpu")
    with create_pipe_input() as pipe:
        repl = Repl(s, Display(io.StringIO(), io.StringIO()), input=pipe, output=DummyOutput(),
                    history=InMemoryHistory())
        prompt = lambda: [("", "> ")]  # noqa: E731
        text = lambda line, wraps: fragment_list_to_text(to_formatted_text(  # noqa: E731
            repl.prompt._get_line_prefix(line, wraps, prompt)))
        assert text(0, 0) == "> "
        assert text(0, 1) == "  " and text(1, 2) == "  "  # the first line, and a later one, wrapped
        assert text(1, 0).strip() == "..."  # a line of its own in the entry
    s.forth.close()


def test_the_block_labels_docs_repl_describes():
    """Issue 26: multi-block labels such as `[b0-3]` were undocumented; docs/repl.md's sentence on
    them, each claim run here as a user would copy it."""
    import re

    doc = " ".join((ROOT / "docs" / "repl.md").read_text().split())
    claims = re.findall(r"`(BID-X [^`]*THEN)`(?: prints|,)? (?:prints )?`(\[[^`]*)`", doc)
    assert len(claims) == 3, claims
    f = Forth(backend="cpu")
    f.eval("4 1 1 GRID 32 1 1 THREADS")
    assert "`4 1 1 GRID 32 1 1 THREADS`" in doc
    for line, shown in claims:
        assert f.eval(line) == shown + "\n"
    f.close()
