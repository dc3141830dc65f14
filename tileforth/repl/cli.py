"""The `tileforth` command.

    tileforth                      interactive prompt (stdin a terminal)
    tileforth FILE...              run the files line by line, then exit
    tileforth -e '2 3 + .'         run source given on the command line
    tileforth -i FILE...           run the files, then the prompt
    tileforth --echo FILE          each line as typed at the prompt (`> line`), then its output
    tileforth --save-view V.svg FILE   the run's last view (SAVE-VIEW) saved as a picture; V-{n}.png: each
    echo '2 3 +' | tileforth       read lines from stdin, like the prompt
    tileforth compile K.fth -o k.ptx --arch sm_80     a kernel file to PTX
    tileforth run K.fth --param X=1,2,3 --grid 1,1,1 --block 32,1,1 --output-param X
                                   one launch of a kernel file, on either backend

Files run first, then each -e source, in order.  In a file or -e source an
error is printed as ``file:line:col: error: ...`` and the run stops with
exit status 1.  Reading stdin or at the prompt, an error is printed and the
session goes on; stdin's exit status is then 1 if any line failed.
"""

from __future__ import annotations

import gc
import os
import signal
import socket
import sys
import threading
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Iterable

from tileforth.core.session.words.system import set_step_budget

from .args import KERNEL_COMMANDS, SERVER_COMMANDS, parse_args
from .display import Display
from .session import ABORT_REPEAT_S, Bye, Session, Terminated

if TYPE_CHECKING:
    from .progress import TerminalProgress


def run_lines(session: Session, display: Display, lines: Iterable[str], *,
              stop_on_error: bool, stacks: str, echo: bool = False, progress: "TerminalProgress | None" = None) -> int:
    """Run lines; return 0, or 1 after a failed line.  `echo`: print each
    line first, as typed at the prompt (`> line`; a blank line as it is). `progress`: a line that runs
    long shows its progress there (progress.py: on stderr, cleared before the line's output).

    With no stacks shown (and no echo) the output is the program's, as it printed it: no
    newline is added after a line (gforth's output, also when it is built over lines), and
    notes (`redefined X`) go to stderr, as gforth's do."""
    status = 0
    raw = stacks == "none" and not echo
    for lineno, text in enumerate(lines, start=1):
        text = text.rstrip("\r\n")
        if echo:
            display.echo(text)
        with progress.line() if progress is not None else nullcontext():
            result = session.run_line(text, lineno)  # BYE raises Bye: main ends the run
        if raw:
            display.program_output(result.output)
        else:
            display.output(result.output)
        for note in result.warnings:
            display.note(note, stderr=not echo)
        if result.error is not None:
            display.forget_stacks_shown()
            display.error(result)
            status = 2 if result.internal else 1
            if stop_on_error:
                return status
            continue
        if stacks == "each" and not session.compiling:
            display.stacks_after(session.forth, result.output)  # not twice after a `.S`
        elif stacks == "none" and not echo:  # the stacks may be shown at the end (_batch): not after a last `.S`
            if result.output:
                display.last_output = result.output
        else:
            display.forget_stacks_shown()
    if session.compiling:
        display.fatal(f"error: {session.source} ended inside a colon definition (missing ;)")
        return 1
    return status


def _stacks_empty(forth) -> bool:
    try:
        tiles = forth.tile_stack(0)
    except Exception:  # a backend without tiles
        tiles = []
    return not any(forth.data_stack(lane=None)) and not any(forth.float_stack(lane=None)) and not tiles


def main(argv=None) -> int:
    for name in ("stdout", "stderr"):  # started without one (`tileforth ... >&-`): Python makes it None;
        if getattr(sys, name) is None:  # it writes nowhere, as print does and gforth does
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))
    try:
        return _main(argv)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:  # Ctrl-C before the session runs lines (while it starts): quietly, as after
        return 130


def _main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in KERNEL_COMMANDS:
        return kernel_command(argv)
    if argv and argv[0] in SERVER_COMMANDS:  # tileforth serve, tileforth server status|stop
        from .serverctl import command

        return command(argv)
    args = parse_args(argv)
    display = Display.standard()
    if args.save_view is not None:
        from .saveview import check

        bad = check(args.save_view)
        if bad is not None:
            display.fatal(f"error: {bad}")
            return 2
    try:
        session = Session.start(args.backend, checked=not args.unchecked, arch=args.arch)
    except Exception as e:  # no GPU for --backend cuda, or a broken install
        display.fatal(f"error: cannot start the {args.backend} backend: {e}")
        return 2
    display.attach(session.forth)  # inspection views (.S .TILE .FRAG …) for this terminal
    if args.steps is not None:
        set_step_budget(session.forth, args.steps)

    status = 1
    saver = None
    if args.save_view is not None:
        from .saveview import ViewSaver

        saver = ViewSaver(session.forth, args.save_view)
        saver.start()
    try:
        with ends_on_hangup():
            status = _session(args, session, display)
        if saver is not None:
            why = saver.finish()
            if why is not None:
                display.fatal(f"error: {why}")
                status = status or 1
    finally:  # open files closed, UPDATEd blocks written back (gforth's BYE saves them too)
        if not close_session(session.forth, display):
            status = status or 1
    return status


@contextmanager
def ends_on_hangup():
    """SIGTERM and SIGHUP end the session as Ctrl-C does: a `Terminated` unwinds it, so that
    the UPDATEd block buffers are written back and the open files closed (the default
    action would drop them). A signal the caller ignores (nohup) stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is signal.SIG_DFL:
            previous[sig] = signal.signal(sig, _hang_up)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _hang_up(signum, frame):
    raise Terminated(128 + signum)


def close_session(forth, display: Display) -> bool:
    """Close the session (the blocks written back); false after printing why that failed
    (a block file that cannot be written: the error says where the blocks went instead)."""
    from tileforth.core.errors import ForthError

    try:
        forth.close()
    except ForthError as e:
        display.fatal(f"error: {e.message}")
        return False
    return True


def terminal_progress(forth) -> "TerminalProgress | None":
    """A file's or stdin's long lines show their progress on stderr when it is a terminal (progress.py)."""
    try:
        if not sys.stderr.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    from .progress import TerminalProgress

    return TerminalProgress(forth.backend, sys.stderr)


def _session(args, session: Session, display: Display) -> int:
    """The files, -e sources, then the prompt or stdin: the exit status."""
    progress = terminal_progress(session.forth)
    try:
        return _lines(args, session, display, progress)
    finally:
        if progress is not None:
            progress.close()


def _lines(args, session: Session, display: Display, progress: "TerminalProgress | None") -> int:
    try:
        with ctrl_c_stops_lines(session.forth):
            status = _batch(args, session, display, progress)
        if status is not None:
            display.end_run()
            return status
        if sys.stdin.isatty() and sys.stdout.isatty():
            from .prompt import interact

            return interact(session, display, timing=args.timing)

        session.set_source("<stdin>")
        with ctrl_c_stops_lines(session.forth):
            return run_lines(session, display, sys.stdin, stop_on_error=False,
                             stacks=args.stacks or "each", echo=args.echo, progress=progress)
    except Bye as bye:
        display.program_output(bye.output)  # what the line printed before BYE
        display.end_run()
        return 0
    except KeyboardInterrupt:
        return 130
    except Terminated as t:
        return int(t.code or 1)


def _batch(args, session: Session, display: Display, progress: "TerminalProgress | None" = None) -> int | None:
    """The files and -e sources: their exit status, or None to go on to the prompt or stdin (-i)."""
    if not (args.files or args.sources):
        return None
    stacks = args.stacks or "end"
    batch = [(name, _read(name, display)) for name in args.files]
    if any(lines is None for _, lines in batch):
        return 2
    batch += [("-e" if len(args.sources) == 1 else f"-e#{i}", src.splitlines())
              for i, src in enumerate(args.sources, 1)]
    for name, lines in batch:
        session.set_source(name)
        status = run_lines(session, display, lines, stop_on_error=True,
                           stacks="none" if stacks == "end" else stacks, echo=args.echo, progress=progress)
        if status and not args.interactive:
            return status
        if status:  # -i: the session is intact; go to the prompt
            break
    if stacks == "end" and not _stacks_empty(session.forth):
        display.stacks_after(session.forth, display.last_output)  # not again after a `.S` that ended the run
    return None if args.interactive else 0


@contextmanager
def ctrl_c_stops_lines(forth):
    """Ctrl-C (SIGINT) stops a running line outside the prompt too: a kernel runs in a foreign
    call, where Python's own handler waits for it to return. The signal's byte, written to a
    wake-up socket by the C handler, makes a thread ask the backend to abort (every ABORT_REPEAT_S,
    until the run is over); the handler's KeyboardInterrupt then ends the run (exit status 130)."""
    if threading.current_thread() is not threading.main_thread() or (
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler and
            signal.getsignal(signal.SIGTERM) is not _hang_up):
        yield  # not the main thread, or SIGINT ignored (a background job) or handled by the caller
        return
    wake_r, wake_w = socket.socketpair()
    wake_w.setblocking(False)
    previous = signal.set_wakeup_fd(wake_w.fileno(), warn_on_full_buffer=False)

    def watch() -> None:
        interrupted = False
        while True:
            try:
                data = wake_r.recv(64)
            except TimeoutError:
                data = None
            except OSError:
                return
            if data == b"":  # the run is over
                return
            if data and any(sig in data for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)):
                interrupted = True
                wake_r.settimeout(ABORT_REPEAT_S)
            if interrupted:
                forth.backend.abort()

    watcher = threading.Thread(target=watch, name="tileforth-ctrl-c", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        wake_w.close()
        watcher.join()
        wake_r.close()
        forth.backend.reset_abort()


def read_source(name: str, display: Display) -> str | None:
    """A script or kernel file's text; None after printing why it cannot be
    read (missing, unreadable, or not UTF-8: the first bad byte's place)."""
    try:
        with open(name, "rb") as fh:
            data = fh.read()
    except OSError as e:
        display.fatal(f"error: cannot read {name}: {e.strerror or e}")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        display.out.flush()
        display.err_console.print(f"{name}:{line}:{col}: error: byte 0x{data[e.start]:02x} is not UTF-8 text; "
                                  "save the file as UTF-8", style="bold red", markup=False)
        display.err.flush()
        return None


def _read(name: str, display: Display) -> list[str] | None:
    text = read_source(name, display)
    if text is None:
        return None
    from tileforth.export.kernelfile import is_kernel_file

    if is_kernel_file(text):
        display.fatal(f"error: {name} is a kernel file (\\! header lines): run it with `tileforth run {name} "
                      f"--param NAME=...` or compile it with `tileforth compile {name} -o out.ptx`")
        return None
    return text.splitlines()


# ---- kernel files: `tileforth compile` and `tileforth run` (tileforth/export/commands.py) ---------
def kernel_command(argv) -> int:
    from tileforth.export.commands import kernel_command as run

    return run(argv, KernelConsole(Display.standard()))


class KernelConsole:
    """The terminal as tileforth.export.commands sees it (its Console): this Display."""

    def __init__(self, display: Display) -> None:
        self.display = display

    def read(self, name: str) -> str | None:
        return read_source(name, self.display)

    def output(self, text: str) -> None:
        self.display.output(text)

    def fatal(self, message: str) -> None:
        self.display.fatal(message)

    def error(self, err, where: str) -> None:
        from .session import LineResult

        self.display.error(LineResult(error=err, where=where, source_line=err.source_line))


def _quiet_broken_pipe() -> int:
    """stdout's reader went away (`tileforth run ... | head`): stop quietly,
    as a command killed by SIGPIPE would, with nothing more written to it."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # a stdout without a file descriptor
        pass
    return 141  # 128 + SIGPIPE, what a shell reports for such a command


def entry() -> None:
    """The `tileforth` command (and `python -m tileforth.repl.cli`): main, then the exit. Before it,
    what the process made is frozen (gc.freeze): the interpreter's shutdown would otherwise walk all
    of it in a last collection (~30 ms of `tileforth -e`) for memory the exit gives back anyway.
    Code that calls main() itself (tests, a notebook) is not frozen."""
    status = main()
    gc.freeze()
    sys.exit(status)


if __name__ == "__main__":
    entry()
