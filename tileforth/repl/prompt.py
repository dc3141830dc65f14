"""The interactive prompt: prompt_toolkit line editing, and running a line so
that Ctrl-C can stop it.

Editing (editor.py): words complete with Tab (their stack effects alongside),
tokens are coloured by kind, Enter inside an open definition or control
structure continues on a `...` line, and a line that would underflow a stack
is refused with the cursor on the word: Enter again runs it as it is (the
real error shows), typing starts a fresh line instead.  Ctrl-C at the prompt
clears the line; Ctrl-D (or BYE) leaves.

Running: on the cpu backend the line runs in a worker thread (the JIT code
runs in ctypes calls, which release the GIL) while this thread watches the
keyboard.  Ctrl-C then asks the backend to abort; every loop back-edge polls
that flag, so even `BEGIN AGAIN` stops, the line fails with "interrupted" and
the session's stacks are as they were before it.  Keys typed ahead while a
line runs are kept for the next prompt.

History lives in the user's data directory (``$XDG_DATA_HOME/tileforth/history``,
by default ``~/.local/share/tileforth/history``; the platform's equivalent on
macOS and Windows).  When that cannot be written the session keeps history
in memory only.
"""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
import threading
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, merge_key_bindings
from prompt_toolkit.keys import Keys

from . import editor
from .display import Display
from .session import ABORT_REPEAT_S, Bye, LineResult, Session, Terminated


def data_dir() -> Path:
    if sys.platform == "win32":
        base = os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "tileforth"


def open_history(path: Path | None = None) -> History:
    path = path or data_dir() / "history"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError:
        return InMemoryHistory()
    return FileHistory(str(path))


# the step debugger's keys (core/session/debugger.py): at an empty prompt while DEBUG has a line stopped,
# each key types its word and runs it
PROGRESS_AFTER_S = 0.5  # a line running longer shows how long it has run (Repl._progress)
DEBUG_KEYS = {"s": "DSTEP", "n": "DSYNC", "c": "DCONT", "f": "DFINISH", "t": "0 DTILE", "q": "DQUIT"}


def debugging(session: Session) -> bool:
    from tileforth.core.session.debugger import state_of

    try:
        return state_of(session.forth).debugger is not None
    except TypeError:  # a session object that cannot be weakly referenced: no debugger
        return False


def debug_key_bindings(session: Session) -> KeyBindings:
    kb = KeyBindings()

    @Condition
    def stopped() -> bool:
        from prompt_toolkit.application.current import get_app

        return debugging(session) and not get_app().current_buffer.text

    for key, word in DEBUG_KEYS.items():
        def run(event, word: str = word) -> None:
            buf = event.current_buffer
            buf.text = word
            buf.validate_and_handle()
        kb.add(key, filter=stopped)(run)
    return kb


def debug_toolbar() -> list[tuple[str, str]]:
    return [("class:bottom-toolbar", " debug: " + "  ".join(f"{k} {w}" for k, w in DEBUG_KEYS.items())
             + "  (n DWARP, n DBLOCK pick; n DTILE: tile n) ")]


def _toolbar(session: Session) -> str:
    """The bottom toolbar as plain text."""
    return editor.toolbar_text(session)


TOOLBAR_SEP = "│"


def fit_toolbar(fragments: list[tuple[str, str]], width: int) -> list[tuple[str, str]]:
    """The toolbar's fragments shortened to `width` columns, never cut in
    the middle of a word by the terminal.  It is parts between `│`
    separators: the backend (and its device), the launch shape, then notes.
    What gives way first: the device's name, then the notes from the right
    (the red `unchecked` warning is kept, shortened to UNCHECKED if need
    be), then the separators' spaces, then the backend's name if the warning
    would not fit; what is still too long ends in `…`."""
    def length(frags) -> int:
        return sum(len(t) for _, t in frags)

    def join(parts) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for i, part in enumerate(parts):
            if i:
                out.append(sep)
            out += part
        return out

    parts: list[list[tuple[str, str]]] = [[]]
    sep = ("", f"  {TOOLBAR_SEP} ")
    for frag in fragments:
        if frag[1].strip() == TOOLBAR_SEP:
            sep = frag
            parts.append([])
        else:
            parts[-1].append(frag)
    if length(join(parts)) <= width:
        return join(parts)
    parts[0] = parts[0][:1]  # the backend without its device's name
    for i in range(len(parts) - 1, 1, -1):  # the notes, from the right; a warning stays
        if length(join(parts)) <= width:
            break
        if not any("unchecked" in style for style, _ in parts[i]):
            del parts[i]
    for i, part in enumerate(parts):
        if length(join(parts)) > width and any("unchecked" in style for style, _ in part):
            parts[i] = [(style, "UNCHECKED") if "unchecked" in style else (style, t) for style, t in part]
    if length(join(parts)) > width:
        sep = (sep[0], f" {TOOLBAR_SEP} ")
    if length(join(parts)) > width and any("unchecked" in style for part in parts for style, _ in part):
        parts = parts[1:]  # the warning matters more than the backend's name
        parts[0] = [(parts[0][0][0], " " + parts[0][0][1].lstrip())] + parts[0][1:]
    out = join(parts)
    if length(out) > width:  # cut at the width, with an ellipsis
        cut: list[tuple[str, str]] = []
        room = max(0, width - 1)
        for style, text in out:
            cut.append((style, text[:room]))
            room -= len(cut[-1][1])
            if room <= 0:
                break
        out = cut + [("", "…")]
    return out


def fit_note(text: str, width: int) -> str:
    """A note (the banner, the time line) wrapped at blanks to `width`
    columns, so the terminal never breaks it inside a word."""
    return "\n".join(textwrap.wrap(text, max(20, width), break_long_words=False, break_on_hyphens=False))


def banner(session: Session) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("tileforth")
    except PackageNotFoundError:
        v = "?"
    text = (f"tileforth {v} on the {session.forth.backend_name} backend. Tab completes, "
            "Ctrl-C interrupts, BYE or Ctrl-D leaves.")
    if not getattr(session.forth, "checked", True):
        text += (" UNCHECKED (--unchecked): memory accesses are not checked, so a bad address can crash the "
                 "process (segmentation fault) or read freed memory; leave it off except for benchmarks.")
    return text


EMULATED_NOTE = "(run time on the CPU emulator, not a GPU's)"


def timing_text(t: dict[str, float], *, emulated: bool = False) -> str:
    """compile, run and read-back time of the last line, summed over its
    launches; `emulated`: the line ran on the cpu emulator, and the text says so."""
    text = "time  " + "  ".join(f"{k} {t.get(k, 0.0) * 1e3:.1f} ms" for k in ("compile", "run", "read"))
    return f"{text}  {EMULATED_NOTE}" if emulated else text


class Repl:
    """The read-eval-print loop over one session.

    `input`/`output` are prompt_toolkit's (tests pass a pipe input and a
    dummy output); `history` defaults to the history file; `timing`: show
    the time line after each line (`tileforth --no-timing` turns it off).
    """

    def __init__(self, session: Session, display: Display, *, input=None, output=None,
                 history: History | None = None, timing: bool = True) -> None:
        self.session, self.display = session, display
        self.timing = timing
        self.state = editor.EditorState(session)
        self.state.refresh()
        self.busy = threading.Event()  # set while a line runs
        self.entries = 0  # entries run so far (the tests wait on it)
        self.abandoned = 0  # refused lines typed over, not run
        self.threaded: bool | None = None  # run lines in a worker thread? None: by the backend
        self._wake = None
        self.prompt = PromptSession(
            history=history if history is not None else open_history(),
            input=input, output=output,
            multiline=True,
            prompt_continuation=editor.continuation,
            key_bindings=merge_key_bindings([editor.key_bindings(self.state), debug_key_bindings(session)]),
            lexer=editor.ForthLexer(self.state),
            completer=editor.WordCompleter(self.state),
            complete_while_typing=False,
            validator=editor.StackValidator(self.state),
            validate_while_typing=False,
            auto_suggest=AutoSuggestFromHistory(),
            style=editor.STYLE,
            include_default_pygments_style=False,
            bottom_toolbar=self.toolbar,
        )

    def toolbar(self) -> list[tuple[str, str]]:
        """The bottom toolbar, fitted to the terminal's width as it is now."""
        try:
            width = self.prompt.app.output.get_size().columns
        except Exception:  # an output that cannot say: the toolbar as it is
            width = None
        frags = debug_toolbar() if debugging(self.session) else editor.toolbar_fragments(self.session)
        return frags if not width else fit_toolbar(frags, width)

    def run(self) -> int:
        """Read-eval-print until BYE or end of input; errors never end it."""
        self.display.note(fit_note(banner(self.session), self.display.width))
        self.session.set_source("<prompt>")
        typed = ""  # keys typed over a refused line: they start the next one
        while True:
            self.state.refused = None
            try:
                text = self.prompt.prompt("... " if self.session.compiling else "> ", default=typed)
            except KeyboardInterrupt:
                typed = ""
                continue  # Ctrl-C drops the text being edited
            except EOFError:
                if self.session.compiling:  # a definition opened on an earlier entry: say it is lost
                    self.display.note("the session ends inside an unfinished definition (no ;): it is lost")
                return 0
            typed = ""
            if isinstance(text, editor.Abandoned):  # typed over a refused line: it did not run
                self.display.note(f"not run: {text.message} (Up brings the line back)")
                typed = text.typed
                self.abandoned += 1
                continue
            try:
                result = self.run_line(text)
            except Bye as bye:
                sys.stdout.write(bye.output)
                return 0
            finally:
                self.state.refresh()
            try:
                self.show(result)
            except KeyboardInterrupt:  # Ctrl-C while a large view prints: only the view stops
                self.display.note("(interrupted)")
            self.entries += 1

    def show(self, result: LineResult) -> None:
        self.display.output(result.output)
        for note in result.warnings:
            self.display.note(note)
        if result.error is not None:
            self.display.forget_stacks_shown()
            self.display.error(result, located=False)
        elif self.session.compiling:
            self.display.forget_stacks_shown()
            self.display.note("compiled")
        else:
            f = self.session.forth
            self.display.stacks_after(f, result.output)  # not again after a `.S` that ended the line
            timing = f.line_timing
            if self.timing and any(timing.values()):  # not after a line that launched nothing
                self.display.note(fit_note(timing_text(timing, emulated=f.backend_name == "cpu"),
                                           self.display.width))

    # ---- running a line, interruptibly ----------------------------------------------
    def run_line(self, text: str) -> LineResult:
        """Run one (possibly multi-line) entry; Ctrl-C interrupts it.

        On the cpu backend the line runs in a worker thread and this thread
        watches the keys (and takes SIGINT).  A backend whose state belongs to
        the thread that made it (a CUDA context) runs the line here, and a
        helper thread watches the keys; its abort flag is host memory, so
        either way Ctrl-C reaches the running kernel.
        """
        box: dict = {}
        done = threading.Event()

        def work() -> None:
            try:
                box["result"] = self.session.run_line(text, spanning=True)
            except BaseException as e:  # Bye, a bug, or SIGINT: handed to the caller
                box["error"] = e
            finally:
                done.set()
                wake = self._wake
                if wake is not None:
                    try:
                        wake()
                    except RuntimeError:  # the watcher's loop already closed
                        pass

        self.busy.set()
        progress = threading.Thread(target=self._progress, args=(done,), name="tileforth-progress", daemon=True)
        progress.start()
        try:
            if self._threaded():
                worker = threading.Thread(target=work, name="tileforth-line", daemon=True)
                worker.start()
                self._wait(done)
                worker.join()
            else:
                watcher = threading.Thread(target=self._wait, args=(done,), name="tileforth-keys",
                                           daemon=True)
                watcher.start()
                work()
                while watcher.is_alive():
                    try:
                        watcher.join(0.1)
                    except KeyboardInterrupt:  # the line has ended: nothing left to stop
                        pass
        finally:
            self.busy.clear()
            done.set()
            progress.join()
        err = box.get("error")
        if isinstance(err, KeyboardInterrupt):  # SIGINT while the line ran in this thread
            from tileforth.core import ForthError

            return LineResult(error=ForthError("interrupted"), where="<prompt>", source_line=text)
        if err is not None:
            raise err
        return box["result"]

    def _progress(self, done: threading.Event) -> None:
        """A line that runs longer than PROGRESS_AFTER_S shows how long it has run and, while a launch runs,
        its blocks and threads done (progress.py), on one line that the line's end clears (Ctrl-C stops the
        line as ever: the keys are watched elsewhere)."""
        if not sys.stderr.isatty():
            return
        from .progress import TerminalProgress

        shown = TerminalProgress(getattr(self.session.forth, "backend", None), sys.stderr, after=PROGRESS_AFTER_S)
        with shown.line():
            done.wait()
        shown.close()

    def _threaded(self) -> bool:
        if self.threaded is not None:
            return self.threaded
        return self.session.forth.backend_name == "cpu"

    def _abort(self) -> None:
        try:
            self.session.forth.backend.abort()
        except Exception:  # nothing more to do: the line ends by itself
            pass

    def _wait(self, done: threading.Event) -> None:
        interrupted = False
        watching = True
        ended: Terminated | None = None  # SIGTERM/SIGHUP: the line is stopped first, then the session ends
        while not done.is_set():
            try:
                if watching and not interrupted:
                    got = self._watch_keys(done)
                    interrupted = got == "interrupt"
                    watching = got != "closed"
                else:
                    done.wait(ABORT_REPEAT_S)
            except KeyboardInterrupt:  # SIGINT while the terminal was not in raw mode
                interrupted = True
            except Terminated as t:
                interrupted, ended = True, t
            if interrupted and not done.is_set():
                self._abort()
        if ended is not None:
            raise ended

    def _watch_keys(self, done: threading.Event) -> str:
        """Read keys until the line ends ("done"), Ctrl-C is pressed
        ("interrupt") or the input cannot be read ("closed")."""
        try:
            inp = self.prompt.input
            if inp.closed:
                return "closed"
            return asyncio.run(self._watch(inp, done))
        except (OSError, NotImplementedError, ValueError, AttributeError):  # input that cannot be watched
            return "closed"

    async def _watch(self, inp, done: threading.Event) -> str:
        loop = asyncio.get_running_loop()
        woken = asyncio.Event()
        kept: list = []
        hit = closed = False

        def take(keys) -> None:
            nonlocal hit, closed
            if inp.closed:
                closed = True
                woken.set()
            for kp in keys:
                if kp.key == Keys.ControlC:
                    hit = True
                    kept.clear()  # like a terminal's interrupt: type-ahead before it is dropped
                    woken.set()
                else:
                    kept.append(kp)

        self._wake = lambda: loop.call_soon_threadsafe(woken.set)
        try:
            take(get_typeahead(inp))
            if not hit and not done.is_set():
                with inp.raw_mode(), inp.attach(lambda: take(inp.read_keys())):
                    while not (hit or closed or done.is_set()):
                        woken.clear()
                        try:
                            await asyncio.wait_for(woken.wait(), 0.25)
                        except TimeoutError:
                            pass
        finally:
            self._wake = None
            store_typeahead(inp, kept)
        return "interrupt" if hit else "closed" if closed else "done"


def interact(session: Session, display: Display, **kw) -> int:
    """Read-eval-print until BYE or end of input; errors never end it."""
    return Repl(session, display, **kw).run()
