"""The line editor, driven as a user drives it: keys in, what the REPL shows out.

The real prompt_toolkit application reads keys from a pipe and draws into a
dummy output; what the REPL prints (stacks, errors) goes to a Display on
strings.  A session typed at looks like this::

    > : cube                     Enter inside an open definition ...
    ...   dup dup                ... starts a new line,
    ...   * * ;                  and the whole definition compiles at ;
    > 3 cube .
    27
    data  <0>

    > 1 DROP DROP                refused before it runs: the cursor goes
                                 to the second DROP, the stack holds one item

The last test starts the real `tileforth` command in a pseudo-terminal and
reads what a person would see.
"""

from __future__ import annotations

import io
import os
import re
import sys
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.validation import ValidationError
from tileforth.core import Forth, ForthError
from tileforth.repl import cli, editor
from tileforth.repl.display import Display
from tileforth.repl.prompt import Repl
from tileforth.repl.scan import scan, underflow, word_effect
from tileforth.repl.session import Session

WAIT = 30  # seconds: an upper bound for things that take milliseconds
CLI = [sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu"]


def wait_until(cond, timeout=WAIT, what=""):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what or cond}")
        time.sleep(0.005)


class Typist:
    """A REPL running in a thread, and a keyboard in front of it."""

    def __init__(self, session: Session | None = None) -> None:
        self.session = session or Session.start("cpu")
        self.out, self.err = io.StringIO(), io.StringIO()
        self._pipe_cm = create_pipe_input()
        self.pipe = self._pipe_cm.__enter__()
        self.history = InMemoryHistory()
        self.repl = Repl(self.session, Display(self.out, self.err), input=self.pipe,
                         output=DummyOutput(), history=self.history)
        self.status = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.wait_for_prompt()

    def _run(self) -> None:
        self.status = self.repl.run()

    @property
    def forth(self):
        return self.session.forth

    @property
    def buffer(self):
        return self.repl.prompt.default_buffer

    def wait_for_prompt(self) -> None:
        wait_until(lambda: self.repl.prompt.app.is_running and not self.repl.busy.is_set(),
                   what="the prompt")

    def type(self, keys: str) -> None:
        self.pipe.send_text(keys)

    def enter(self, line: str) -> None:
        """Type a line and Enter; wait until it has run and its result shows."""
        n = self.repl.entries
        self.wait_for_prompt()
        self.type(line + "\r")
        wait_until(lambda: self.repl.entries > n, what=f"{line!r} to run")

    def close(self) -> None:
        if self.thread.is_alive():
            deadline = time.monotonic() + WAIT
            while self.repl.busy.is_set() and time.monotonic() < deadline:
                self.forth.backend.abort()  # a test that failed mid-line: stop it
                time.sleep(0.05)
            self.type("\x04")  # Ctrl-D on an empty line leaves
            self.thread.join(WAIT)
        self._pipe_cm.__exit__(None, None, None)
        self.thread.join(WAIT)
        assert not self.thread.is_alive()


@pytest.fixture
def typist():
    t = Typist()
    yield t
    t.close()


# ------------------------------------------------------------------ completion


def test_tab_completes_a_user_word(typist):
    typist.enter(": myword 1 ;")
    typist.type("myw")
    wait_until(lambda: typist.buffer.text == "myw")
    typist.type("\t")
    wait_until(lambda: typist.buffer.text == "myword", what="the completion")
    typist.enter("")
    assert typist.forth.data_stack() == [1]


def test_completions_show_stack_effects():
    s = Session.start("cpu")
    assert s.run_line(": myword2 ( x -- x x ) DUP ;").error is None
    state = editor.EditorState(s)
    got = {c.text: c.display_meta_text for c in editor.WordCompleter(state).get_completions(
        Document("myw"), CompleteEvent(completion_requested=True))}
    assert got == {"myword2": "( x1 -- x'1 x'2 )"}
    prims = {c.text: c.display_meta_text for c in editor.WordCompleter(state).get_completions(
        Document("1 2 SWA"), CompleteEvent(completion_requested=True))}
    assert prims["SWAP"] == s.forth.dict["SWAP"].effect
    # typed in lower case, built-in words complete in lower case
    lower = [c.text for c in editor.WordCompleter(state).get_completions(
        Document("tzer"), CompleteEvent(completion_requested=True))]
    assert lower == ["tzero"]
    # nothing to complete inside a comment
    assert not list(editor.WordCompleter(state).get_completions(
        Document("( SWA"), CompleteEvent(completion_requested=True)))


# ------------------------------------------------------------------ multi-line input


def test_definition_typed_over_three_lines(typist):
    n = typist.repl.entries
    typist.type(": cube\r")
    wait_until(lambda: typist.buffer.text.count("\n") == 1, what="a continuation line")
    typist.type("dup dup\r")
    wait_until(lambda: typist.buffer.text.count("\n") == 2, what="a second continuation line")
    assert typist.repl.entries == n and not typist.session.compiling  # nothing ran yet
    typist.type("* * ;\r")
    wait_until(lambda: typist.repl.entries > n, what="the definition")
    assert typist.err.getvalue() == ""
    typist.enter("3 cube .")
    assert str(3 ** 3) in typist.out.getvalue().split()
    entry = typist.history.get_strings()[-2]
    assert entry.split("\n")[0] == ": cube" and entry.split() == [":", "cube", "dup", "dup", "*", "*", ";"]


def test_control_structure_over_lines_at_the_prompt(typist):
    n = typist.repl.entries
    typist.type("0 BEGIN\r1+ DUP 5 =\rUNTIL\r")
    wait_until(lambda: typist.repl.entries > n)
    assert typist.err.getvalue() == ""
    assert typist.forth.data_stack() == [5]


def test_escape_enter_runs_an_open_definition_line_by_line(typist):
    n = typist.repl.entries
    typist.type(": half\x1b\r")  # Esc Enter: run it as it is
    wait_until(lambda: typist.repl.entries > n)
    assert typist.session.compiling
    assert "compiled" in typist.out.getvalue()
    typist.enter("2 / ;")
    typist.enter("10 half .")
    assert str(10 // 2) in typist.out.getvalue().split()


def test_continuation_prompt():
    assert editor.continuation(4, 1, False) == [("class:continuation", "... ")]


# ------------------------------------------------------------------ errors and Ctrl-C


def test_error_shows_a_caret_and_keeps_the_stacks(typist):
    typist.enter("1 2")
    line = "3 FROBNICATE +"
    typist.enter(line)
    err = typist.err.getvalue().splitlines()
    shown = [i for i, text in enumerate(err) if text.strip() == line]
    assert shown, err
    caret = err[shown[0] + 1]
    indent = err[shown[0]].index(line)
    assert caret.index("^") - indent == line.index("FROBNICATE")
    assert caret.strip() == "^" * len("FROBNICATE")
    assert typist.forth.data_stack() == [1, 2]
    typist.enter("+")
    assert typist.forth.data_stack() == [3]


@pytest.mark.parametrize("threaded", [True, False], ids=["line-in-worker", "keys-in-helper"])
def test_ctrl_c_interrupts_a_runaway_loop(typist, threaded):
    # the cpu backend runs a line in a worker thread; a backend whose state
    # belongs to its thread (cuda) runs it in the prompt's thread instead
    typist.repl.threaded = threaded
    typist.forth.step_budget = 1 << 62  # it would never stop by itself
    typist.enter("1 2")
    n = typist.repl.entries
    typist.type("BEGIN AGAIN\r")
    wait_until(typist.repl.busy.is_set, what="the loop to start")
    typist.type("\x03")
    wait_until(lambda: typist.repl.entries > n, timeout=60, what="Ctrl-C to stop the loop")  # (a bound, not a timing)
    assert "interrupted" in typist.err.getvalue()
    # the session is intact: the stacks are as before the line, and it goes on
    assert typist.forth.data_stack() == [1, 2]
    typist.enter("+")
    assert typist.forth.data_stack() == [3]


def test_sigint_in_the_lines_own_thread_leaves_the_session_as_it_was(monkeypatch):
    # (keys-in-helper mode: a SIGINT lands in the thread running the line)
    s = Session.start("cpu")
    assert s.run_line("1 2").error is None
    compiler = s.forth.compiler
    real = compiler.check_word  # what `;` calls

    def interrupted(*args, **kw):
        monkeypatch.setattr(compiler, "check_word", real)
        raise KeyboardInterrupt

    monkeypatch.setattr(compiler, "check_word", interrupted)
    with create_pipe_input() as pipe:
        repl = Repl(s, Display(io.StringIO(), io.StringIO()), input=pipe, output=DummyOutput(),
                    history=InMemoryHistory())
        repl.threaded = False
        result = repl.run_line("3 CONSTANT three : x 1 ;")
    assert "interrupted" in str(result.error)
    assert not s.compiling and "THREE" not in s.forth.dict and "X" not in s.forth.dict
    assert s.forth.data_stack() == [1, 2]


def test_ctrl_c_at_the_prompt_clears_the_line(typist):
    typist.type("1 2 3")
    wait_until(lambda: typist.buffer.text == "1 2 3")
    typist.type("\x03")
    wait_until(lambda: typist.buffer.text == "")
    typist.enter("4")
    assert typist.forth.data_stack() == [4]


# ------------------------------------------------------------------ the validator


def test_validator_refuses_drop_on_an_empty_stack(typist):
    n = typist.repl.entries
    typist.type("DROP\r")
    wait_until(lambda: typist.buffer.validation_error is not None, what="the refusal")
    assert typist.buffer.cursor_position == 0  # moved from the end to the word
    assert "DROP" in typist.buffer.validation_error.message
    typist.type("\x03")
    wait_until(lambda: typist.buffer.text == "" and typist.buffer.validation_error is None)
    assert typist.repl.entries == n  # it never ran

    typist.enter("7")
    line = "1 2 + DROP DROP DROP"
    typist.type(line + "\r")
    wait_until(lambda: typist.buffer.validation_error is not None, what="the refusal")
    assert typist.buffer.cursor_position == line.rindex("DROP")
    typist.type("\x03")
    assert typist.forth.data_stack() == [7]


def refused(typist, line: str) -> None:
    """Type `line` and Enter; wait until the validator refuses it."""
    typist.wait_for_prompt()
    typist.type(line + "\r")
    wait_until(lambda: typist.buffer.validation_error is not None, what=f"{line!r} refused")


def test_typing_after_a_refusal_starts_a_fresh_line(typist):
    """`.` on an empty stack is refused; `2 3 +` typed next must run alone
    (not as `2 3 +.` or `.2 3 +`), and the refused line is in the history."""
    n = typist.repl.entries
    refused(typist, ".")
    assert "Enter runs it anyway" in typist.buffer.validation_error.message
    typist.type("2 3 +\r")
    wait_until(lambda: typist.repl.entries > n, what="2 3 + to run")
    assert typist.forth.data_stack() == [5]
    assert typist.err.getvalue() == ""
    assert "not run: . needs 1" in typist.out.getvalue()
    assert typist.history.get_strings()[-2:] == [".", "2 3 +"]
    assert typist.repl.abandoned == 1

    # the tile tutorial's case: the refused line never absorbs the next one
    refused(typist, "TZERO TMMA")
    typist.enter("DROP")
    assert typist.forth.data_stack() == [] and typist.forth.tile_stack(0) == []
    assert "TMMA" not in typist.history.get_strings()[-1]


def test_enter_again_runs_a_refused_line_and_shows_the_real_error(typist):
    n = typist.repl.entries
    refused(typist, "1 2 . . .")
    assert typist.repl.entries == n  # refused: not run
    typist.type("\r")  # Enter on the unchanged line runs it
    wait_until(lambda: typist.repl.entries > n, what="the refused line to run")
    assert "2 1" in typist.out.getvalue()  # what it printed before it failed
    err = typist.err.getvalue()
    assert "underflow" in err and "^" in err  # the ForthError with its caret
    assert err.splitlines()[-2].strip() == "1 2 . . ."  # the line, and the caret under the third `.`
    assert err.splitlines()[-1].index("^") == err.splitlines()[-2].index("1") + len("1 2 . . ")
    assert typist.forth.data_stack() == []
    # and then a fresh prompt: the next line runs by itself
    typist.enter("7")
    assert typist.forth.data_stack() == [7]


def test_an_edited_refused_line_is_checked_again(typist):
    """Moving the cursor and typing edits the refused line on purpose."""
    n = typist.repl.entries
    refused(typist, "DROP")
    assert typist.buffer.cursor_position == 0
    typist.type("1 ")  # typed at once over the refusal: a new line "1 "
    wait_until(lambda: typist.repl.abandoned == 1)
    typist.type("\r")
    wait_until(lambda: typist.repl.entries > n)
    assert typist.forth.data_stack() == [1]
    refused(typist, "DROP DROP")
    typist.type("\x1b[H")  # Home: an edit of the refused line, so typing inserts there
    wait_until(lambda: typist.buffer.cursor_position == 0)
    typist.type("2 ")
    wait_until(lambda: typist.buffer.text == "2 DROP DROP")
    typist.enter("")
    assert typist.forth.data_stack() == []
    assert typist.repl.abandoned == 1


# ------------------------------------------------------------------ after a line (issue 14, item 3)


def test_dot_s_at_the_prompt_shows_the_stacks_once(typist):
    typist.repl.display.attach(typist.forth)  # as `tileforth` does: .S shows every stack
    typist.enter("1 2 .S")
    assert typist.out.getvalue().count("data  <2> 1 2") == 1
    typist.enter(".S 3")  # the stacks changed after .S: its view, then the new one
    out = typist.out.getvalue()
    assert out.count("data  <2> 1 2") == 2 and out.count("data  <3> 1 2 3") == 1
    typist.enter("DROP DROP DROP .S")
    assert typist.out.getvalue().count("data  <0>") == 1


def test_see_at_the_prompt_shows_a_multi_line_definition_with_one_header(typist):
    typist.repl.display.attach(typist.forth)  # the views as `tileforth` renders them
    typist.wait_for_prompt()
    n = typist.repl.entries
    typist.type(": cube\rdup dup\r* * ;\r")
    wait_until(lambda: typist.repl.entries > n, what="the definition")
    typist.enter("SEE cube")
    out = typist.out.getvalue()
    see = out[out.index(": cube ("):].splitlines()
    assert see[0] == ": cube ( x1 -- x'1 )"
    assert [ln.strip() for ln in see[1:3]] == ["dup dup", "* * ;"]
    assert out.count(": cube") == 1


def test_the_time_line_says_emulated_and_can_be_turned_off():
    t = Typist()
    try:
        t.enter("1 2 +")
        timing = [ln for ln in t.out.getvalue().splitlines() if ln.startswith("time")]
        assert len(timing) == 1 and "compile" in timing[0] and "CPU emulator" in timing[0]
    finally:
        t.close()
    t = Typist()
    t.repl.timing = False  # what `tileforth --no-timing` sets
    try:
        t.enter("1 2 +")
        assert "data  <1> 3" in t.out.getvalue()
        assert not any(ln.startswith("time") for ln in t.out.getvalue().splitlines())
    finally:
        t.close()


def test_validator_accepts_valid_lines(typist):
    typist.enter("1 DROP")
    typist.enter("TZERO TDROP 2e FDROP")
    assert typist.err.getvalue() == ""
    assert typist.forth.data_stack() == []


def check(session: Session, text: str, tiles: int | None = None) -> int | None:
    """Where the validator puts the cursor, or None when it accepts."""
    state = editor.EditorState(session)
    state.refresh()
    try:
        editor.StackValidator(state).validate(Document(text))
    except ValidationError as e:
        return e.cursor_position
    return None


@pytest.mark.parametrize("line", [
    "1 2 +", "2e 3e F+ F.", ": two 2 ; two two +", "0 ?DUP DROP", "1 IF DROP THEN", "DEPTH DROP",
    "FROBNICATE DROP",  # unknown: let it run and fail with its own message
    "1 2 3 2 PICK", "( DROP ) 1 DROP", "\\ DROP", "CHAR A DROP", "BASE @ DROP", "TZERO TDROP",
    "1 2 3 GRID", "HEX FF DROP", '." hi" 1 DROP',
])
def test_validator_accepts_lines_it_cannot_judge_or_that_are_fine(line):
    assert check(Session.start("cpu"), line) is None


@pytest.mark.parametrize("line, word_at", [
    ("DROP", 0), ("1 + 2", 2), ("F+", 0), ("1e F+", 3), ("TMMA", 0), ("TZERO TDROP TDROP", 12),
    ("1 2 TSTORE", 4), ("1 DUP 2DROP DROP", 12), ("( DROP ) \\ x\nDROP", 13),
])
def test_validator_refuses_underflows(line, word_at):
    assert check(Session.start("cpu"), line) == word_at


def test_validator_counts_what_is_on_the_stacks():
    s = Session.start("cpu")
    assert s.run_line("1 2 3e TZERO").error is None
    assert check(s, "+ DROP DROP") == len("+ DROP ")
    assert check(s, "F. F.") == len("F. ")
    assert check(s, "TDROP TDROP") == len("TDROP ")
    assert check(s, "+ FDROP TDROP") is None


def test_validator_uses_the_thread_with_the_fewest_items():
    s = Session.start("cpu")
    assert s.run_line("TID-X 0= IF 1 THEN").error is None  # only thread 0 holds an item
    assert check(s, "DROP") == 0
    assert s.run_line("DROP").error is not None  # indeed: the other threads underflow


# Every word with a static effect agrees with the compiler: one item fewer
# than its effect says is refused and fails when run; exactly enough is
# accepted, and the line leaves what the effect says.

_F = None


def _forth():
    global _F
    if _F is None:
        _F = Forth("cpu")
    return _F


def _provide(d, f, t):
    return "1 " * d + "1e " * f + "TZERO " * t


def _static_words():
    f = _forth()
    return sorted(k for k, e in f.dict.items() if word_effect(e) is not None)


MMA_ONLY = {"TLANE@", "TLANE!", "TLDSM-A", "TLDSM-B", "TLDSM-B-COL", "TSTSM", "TROW", "TCOL"}


def test_every_static_word_agrees_with_the_compiler():
    f = _forth()
    names = _static_words()
    assert {"DUP", "F+", "TMMA", "2DUP"} <= set(names)
    for name in names:
        e = word_effect(f.dict[name])
        # the words of mma.sync's documented fragments need its shape (their error says so otherwise)
        f.eval("16 8 16 TILE-SHAPE" if name in MMA_ONLY else "16 16 16 TILE-SHAPE")
        needs = {"d": e.dneed, "f": e.fneed, "t": e.tneed}
        for stack in "dft":
            if needs[stack] == 0:
                continue
            short = dict(needs, **{stack: needs[stack] - 1})
            line = _provide(short["d"], short["f"], short["t"]) + name
            assert underflow(scan(line, f.dict), 0, 0, 0) is not None, line
            with pytest.raises(ForthError, match="underflow|tile stack"):
                f.eval(line)
        line = _provide(e.dneed, e.fneed, e.tneed) + name
        assert underflow(scan(line, f.dict), 0, 0, 0) is None, line
        try:
            f.eval(line)
        except ForthError:
            continue  # e.g. @ of address 1: not about the stacks
        depths = ({len(s) for s in f.data_stack(lane=None)}, {len(s) for s in f.float_stack(lane=None)},
                  len(f.tiles))
        assert depths == ({e.dneed + e.dnet}, {e.fneed + e.fnet}, e.tneed + e.tnet), line
        f.eval("DROP " * (e.dneed + e.dnet) + "FDROP " * (e.fneed + e.fnet) + "TDROP " * (e.tneed + e.tnet))


WORDS = ["DUP", "DROP", "SWAP", "OVER", "ROT", "+", "*", "NEGATE", "2DUP", "NIP", "F+", "FDUP", "FDROP",
         "FSWAP", "S>F", "F>S", "TZERO", "TDUP", "TDROP", "TSWAP", "T+", "?DUP", "1", "2", "1e", "IF", "THEN",
         "FROB"]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8))
def test_a_refused_line_would_have_failed(words):
    f = _forth()
    line = " ".join(words)
    data, floats = editor.stack_depths(f)  # what earlier examples left
    if underflow(scan(line, f.dict), data, floats, len(f.tiles)) is None:
        try:
            f.eval(line)  # what it leaves is where the next example starts
        except ForthError:
            pass
        return
    with pytest.raises(ForthError):
        f.eval(line)


# ------------------------------------------------------------------ colours, completeness


def styles(session, text, row=0):
    state = editor.EditorState(session)
    state.refresh()
    frags = editor.ForthLexer(state).lex_document(Document(text, 0))(row)
    return [(style.replace("class:", ""), t) for style, t in frags if t.strip()]


def test_lexer_colours_words_by_kind():
    s = Session.start("cpu")
    assert s.run_line(": sq DUP * ;").error is None
    text = '3 sq DUP TZERO BASE GRID IF ( c ) ." s" FROB 2.5e \\ rest'
    assert styles(s, text) == [
        ("number", "3"), ("colon", "sq"), ("primitive", "DUP"), ("tile", "TZERO"), ("constant", "BASE"),
        ("host", "GRID"), ("control", "IF"), ("comment", "( c )"), ("string", '." s"'),
        ("unknown", "FROB"), ("number", "2.5e"), ("comment", "\\ rest")]


def test_lexer_knows_words_defined_in_the_same_text():
    s = Session.start("cpu")
    assert styles(s, ": new 1 ; new 5 CONSTANT five five") == [
        ("immediate", ":"), ("defined", "new"), ("number", "1"), ("immediate", ";"), ("colon", "new"),
        ("number", "5"), ("host", "CONSTANT"), ("defined", "five"), ("constant", "five")]
    # a comment over two lines
    assert styles(s, "( one\ntwo ) 1", row=1) == [("comment", "two )"), ("number", "1")]


def test_lexer_colours_the_name_a_2value_defines():
    """2VALUE reads the name of a new word, as its declaration in the word table says (the
    scanner's own list of defining words once lacked it and coloured `pair` unknown)."""
    s = Session.start("cpu")
    assert styles(s, "1 2 2VALUE pair  pair") == [
        ("number", "1"), ("number", "2"), ("host", "2VALUE"), ("defined", "pair"), ("colon", "pair")]


@pytest.mark.parametrize("text, complete", [
    ("2 3 +", True), (": sq", False), (": sq DUP *", False), (": sq DUP * ;", True), ("1 IF", False),
    ("1 IF 2 ELSE", False), ("1 IF 2 THEN", True), ("BEGIN 1 UNTIL", True), ("10 0 DO", False),
    (": f 10 0 DO I\n LOOP ;", True), ("( open", False), ("( open\n closed )", True), ("\\ IF", True),
    ('." IF"', True), ("", True),
])
def test_complete_text(text, complete):
    s = Session.start("cpu")
    assert editor.EditorState(s).complete(text) is complete


# ------------------------------------------------------------------ toolbar and options


def test_toolbar():
    s = Session.start("cpu")
    text = editor.toolbar_text(s)
    for part in ("cpu", "SIMT emulator", "1 1 1 GRID 32 1 1 THREADS", "tiles m16n16k16 f16->f32", "checked"):
        assert part in text
    assert "unchecked" not in text
    assert "unchecked" in editor.toolbar_text(Session.start("cpu", checked=False))


def test_options():
    args = cli.parse_args(["-i", "--unchecked", "--arch", "sm_90", "a.fth"])
    assert args.interactive and args.unchecked and args.arch == "sm_90" and args.files == ["a.fth"]
    assert cli.parse_args([]).arch is None  # the session's own: the GPU's arch on cuda, sm_80 on cpu
    assert Session.start("cpu").forth.ptx_arch == "sm_80"
    s = Session.start("cpu", checked=False, arch="sm_90")
    assert s.forth.checked is False and s.arch == "sm_90" and s.forth.ptx_arch == "sm_90"


def _run(*args, stdin=""):
    import subprocess

    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    return subprocess.run(CLI + list(args), input=stdin, capture_output=True, text=True,
                          encoding="utf-8", env=env, timeout=300, check=False)


def test_dash_i_goes_on_after_the_files(tmp_path):
    src = tmp_path / "cube.fth"
    src.write_text(": CUBE DUP DUP * * ;\n")
    r = _run("-i", str(src), stdin="5 CUBE .\n")
    assert r.returncode == 0, r.stderr
    assert str(5 ** 3) in r.stdout.split()
    r = _run(str(src), stdin="5 CUBE .\n")  # without -i stdin is not read
    assert r.returncode == 0 and r.stdout.split() == []


def test_unchecked_runs():
    r = _run("--unchecked", "-e", "2 3 + .")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(2 + 3)]


# ------------------------------------------------------------------ a real terminal


ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_=>]|\r")


class Screen:
    """What the pseudo-terminal shows, as text without escape sequences.

    It answers the cursor-position requests (CPR) a terminal answers, so
    prompt_toolkit knows the screen's height and draws its bottom toolbar.
    """

    CPR = "\x1b[6n"

    def __init__(self, child) -> None:
        self.child, self.raw, self.seen = child, "", 0
        self.answered = 0  # CPR requests answered so far

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw)

    def wait_for(self, pattern: str, timeout: float = 60) -> re.Match:
        import pexpect

        end = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            m = rx.search(self.text, self.seen)
            if m:
                self.seen = m.end()
                return m
            if time.monotonic() > end:
                raise AssertionError(f"{pattern!r} not on the screen:\n{self.text[-2000:]}")
            try:
                self.raw += self.child.read_nonblocking(65536, timeout=0.1)
            except pexpect.TIMEOUT:
                pass
            while self.raw.count(self.CPR) > self.answered:
                self.answered += 1
                self.child.send("\x1b[1;1R")  # the cursor is in the top row: the screen is free below


def test_terminal_end_to_end(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), TERM="xterm-256color", LANG="C.UTF-8",
               LC_ALL="C.UTF-8")
    child = pexpect.spawn(CLI[0], CLI[1:], env=env, encoding="utf-8", timeout=60, dimensions=(40, 100))
    screen = Screen(child)
    try:
        screen.wait_for("Ctrl-D leaves")
        screen.wait_for(r"SIMT emulator.*GRID.*checked")  # the bottom toolbar
        child.send("2 3 +\r")
        screen.wait_for(r"data +<1> 5\s+float <0>")
        child.send("TID-X\r")
        screen.wait_for(r"data +<2> 5 \[0 1 2 … 31\]")
        child.send("TZERO\r")
        screen.wait_for(r"tiles <1>\s+acc 16x16 f32\s+▀{16}")  # a heat map panel, 16 cells wide
        screen.wait_for(r"min 0 max 0")
        child.send("\x04")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_terminal_refused_line_then_fresh_line(tmp_path):
    """Issue 14 item 1 in a real terminal: a refused `.` does not swallow the
    next line, and Enter on an unchanged refused line shows the real error."""
    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), TERM="xterm-256color", LANG="C.UTF-8",
               LC_ALL="C.UTF-8")
    child = pexpect.spawn(CLI[0], CLI[1:] + ["--no-timing"], env=env, encoding="utf-8", timeout=60,
                          dimensions=(40, 120))
    screen = Screen(child)
    try:
        screen.wait_for("Ctrl-D leaves")
        child.send(".\r")
        screen.wait_for(r"needs 1 .*Enter runs it anyway")
        child.send("2 3 +\r")
        screen.wait_for(r"not run: \. needs 1")
        screen.wait_for(r"data +<1> 5\s+float <0>")  # 2 3 + ran by itself
        child.send("DROP .\r")
        screen.wait_for(r"Enter runs it anyway")
        child.send("\r")  # unchanged: run it
        screen.wait_for(r"underflow.*\s+DROP \.\s+\^")  # the error, with its caret under `.`
        child.send("7 .\r")
        screen.wait_for(r"7 \s*data +<1> 5")  # a fresh prompt (the failed line left the stacks as they were)
        child.send("\x04")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
