"""The `tileforth` command's front door: run here, or hand the run to a resident server.

By default a run is a plain process: it loads Python's modules, runs and exits, and leaves
nothing behind. Most of `tileforth -e "1 2 + ."` is spent before the line: the interpreter,
numpy and LLVM's shared library, then tileforth's own modules and its JIT. A resident server
(tileforth/repl/server.py), which the user starts, has all of that loaded once. For each run it
forks a child, a copy of itself, that takes this process's stdin, stdout and stderr, its working
folder, environment (TZ included), umask, resource limits, nice value, CPU affinity and
arguments, runs `cli.main` as this process would, and exits (a child that cannot take them, a
nice value or a limit beyond the server's, says so, and the run goes on here); its exit status
becomes this process's (a child killed by a signal kills this process by the same signal), and
it dies with its server (`kill -9` of a server ends its runs; they do not go on writing to the
terminal). Ctrl-C and other stop signals sent to this process are
passed on to it, and Ctrl-Z stops both (`fg` continues both). Every run starts from the same
fresh state, so a run through the server prints and returns exactly what it would here.

    - A server is opt-in: `tileforth serve` starts one in the background, `tileforth server
      status` shows it and `tileforth server stop` stops it (serverctl.py). While one is
      running for this tileforth, runs that do not open the prompt go through it: files, -e
      sources, lines on stdin, `tileforth compile` and `tileforth run`. The prompt runs here.
    - TILEFORTH_SERVER (rendezvous.mode): unset, runs use a running server and start none (the check is
      one listing of the user's folder: no socket, no more); 1 also starts one when none is
      running (that run runs here); 0 never uses one; `only` uses one or fails (exit status 2),
      and never runs here (what the tests and benchmarks/startup.py use to know which path
      they measure). Another value is an error.
    - A server stops after TILEFORTH_SERVER_IDLE seconds (default 900) without a run.
    - A server serves only clients that would run the same code: its socket's name is a
      digest of the Python, the files of tileforth and its dependencies, and the
      environment variables read when they are imported (rendezvous.key). Edit a source file and
      the server stops; `tileforth serve` starts a new one.
    - The socket lives in a folder only the user can open ($XDG_RUNTIME_DIR or the
      temporary folder, `tileforth-UID`); the server also checks the caller's user id.

This module imports nothing heavy: it is what every run of the command loads first (with
rendezvous.py, where the client and the server meet, and args.py's names).
"""
from __future__ import annotations

import _socket  # the socket module's C part: `socket` itself loads selectors and enum (~8 ms)
import os
import struct
import sys

from .args import FLAG_OPTIONS, KERNEL_COMMANDS, SERVER_COMMANDS, VALUE_OPTIONS
from .rendezvous import FDS, REFUSALS, REPLY, folder, key, may_be_serving, mode, recv_exact, send_message, socket_path, start_server

START_TIMEOUT_S = 10.0  # how long a client waits for its child to start before running here


def opens_prompt(argv: list[str]) -> bool | None:
    """Whether these arguments would reach the prompt (True), would not (False), or
    cannot be told without argparse (None: an option this scan does not know)."""
    if argv[:1] and argv[0] in KERNEL_COMMANDS:
        return False
    batch, i = False, 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            batch = batch or i + 1 < len(argv)
            break
        if a == "-i" or (a.startswith("-i") and not a.startswith("--")):
            return True
        if a in VALUE_OPTIONS:
            batch = batch or a == "-e"
            i += 2
            continue
        if a.startswith("-e") or a.startswith("--") and a.split("=", 1)[0] in VALUE_OPTIONS and "=" in a:
            batch = batch or a.startswith("-e")
        elif a.startswith("-") and a != "-" and a not in FLAG_OPTIONS:
            return None  # -h, --help, a misspelt option: argparse answers, here
        elif not a.startswith("-") or a == "-":
            batch = True
        i += 1
    return not batch


def run_through_server(argv: list[str]) -> int | None:
    """Run the command in a server's child; its exit status, or None when no server took
    the run (nothing of it has run then: the caller runs it here)."""
    where = folder()
    if where is None:
        return None
    try:
        for fd in FDS:
            os.fstat(fd)
    except OSError:  # a closed stdin/stdout/stderr cannot be handed over
        return None
    path = socket_path(where, key())
    relay = Relay()  # from here on no signal is lost: held until the child is known
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    status = None
    try:
        status = _hand_over(sock, path, argv, relay)
        return status
    finally:
        sock.close()
        if status is None:
            relay.give_back()


def connect(sock, path: str) -> None:
    """Connect to the socket at `path`; a path longer than a socket address holds (107 bytes: a long
    TMPDIR) by its name, from its folder, and back to this process's working folder."""
    if len(os.fsencode(path)) < 100:
        sock.connect(path)
        return
    here = os.open(".", os.O_RDONLY)
    try:
        os.chdir(os.path.dirname(path))
        try:
            sock.connect(os.path.basename(path))
        finally:
            os.fchdir(here)
    finally:
        os.close(here)


def _hand_over(sock, path: str, argv: list[str], relay: "Relay") -> int | None:
    sock.settimeout(START_TIMEOUT_S)
    try:
        connect(sock, path)
    except OSError:
        return None
    import json

    try:
        cwd = os.getcwd()
    except OSError:  # a folder removed under this process: the run goes on here, where it still is
        return None
    request = {"argv": argv, "argv0": sys.argv[0], "cwd": cwd, "env": dict(os.environ), "umask": _umask(),
               "limits": _limits(), "nice": os.getpriority(os.PRIO_PROCESS, 0), "cpus": _cpus()}
    try:
        send_message(sock, json.dumps(request).encode(), FDS)
        tag, pid = REPLY.unpack(recv_exact(sock, REPLY.size))
        if tag == b"N":  # the child cannot be this process (a higher priority, other CPUs): run here
            global refused
            refused = REFUSALS[pid] if 0 <= pid < len(REFUSALS) else "its process state"
            return None
        if tag != b"P":
            return None
        sock.sendall(b"G")
    except (OSError, EOFError, struct.error):  # no child started, or it will not run
        return None
    sock.settimeout(None)
    relay.attach(pid)
    while True:  # until the server reports the child's exit status
        try:
            tag, status = REPLY.unpack(recv_exact(sock, REPLY.size))
        except InterruptedError:
            continue
        except (OSError, EOFError):  # the server was killed: its child dies with it (server.child), here too
            relay.kill()
            print("tileforth: error: the resident server went away during the run; run again (or set "
                  "TILEFORTH_SERVER=0 to run without one)", file=sys.stderr)
            return 1
        if tag == b"X":
            return status if status >= 0 else _die_as_child(-status)


refused: str | None = None  # why the last server's child could not run as this process would (REFUSALS)


def _limits() -> dict[str, list[int]]:
    """This process's resource limits (ulimit), every one, that the child takes: a run under
    `ulimit -t 5`, `ulimit -v ...` or `ulimit -s ...` is held to them through the server too."""
    import resource

    return {name: list(resource.getrlimit(getattr(resource, name))) for name in dir(resource)
            if name.startswith("RLIMIT_")}


def _cpus() -> list[int] | None:
    """The CPUs this process may run on (taskset), which the child takes; None where unknown."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGTSTP")


class Relay:
    """The signals this process gets, for the child: held from before the connection until the
    child's process id is known, then passed on (Ctrl-Z stops the child, then this process, and
    `fg` continues both); handed back to this process if no server takes the run. A signal this
    process ignores is left alone: the child would ignore it too."""

    def __init__(self) -> None:
        import signal

        self.pid: int | None = None
        self.held: list[int] = []
        self.previous = {}
        for name in FORWARDED:
            signum = getattr(signal, name)
            if signal.getsignal(signum) is not signal.SIG_IGN:
                self.previous[signum] = signal.signal(signum, self._on_signal)

    def _on_signal(self, signum: int, frame) -> None:
        import signal

        if self.pid is None:
            self.held.append(signum)
        elif signum == signal.SIGTSTP:
            self._send(signal.SIGSTOP)
            signal.signal(signal.SIGTSTP, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTSTP)  # stopped here until SIGCONT
            signal.signal(signal.SIGTSTP, self._on_signal)
            self._send(signal.SIGCONT)
        else:
            self._send(signum)

    def _send(self, signum: int) -> None:
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signum)
        except OSError:  # it has just ended
            pass

    def kill(self) -> None:
        """End the child now (its server went away, so nothing else will)."""
        import signal

        self._send(signal.SIGKILL)

    def attach(self, pid: int) -> None:
        self.pid = pid
        held, self.held = self.held, []
        for signum in held:
            self._on_signal(signum, None)

    def give_back(self) -> None:
        """No child: this process's own handlers again, and the held signals delivered to it."""
        import signal

        for signum, handler in self.previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        held, self.held = self.held, []
        for signum in held:
            os.kill(os.getpid(), signum)


def _die_as_child(signum: int) -> int:
    """The child was killed by a signal: end this process by the same one (the shell then reports it,
    e.g. `Segmentation fault`), else exit with 128 + its number as a shell would report it."""
    import signal

    try:
        signal.signal(signum, signal.SIG_DFL)
        sys.stdout.flush()
        os.kill(os.getpid(), signum)
    except (OSError, ValueError):
        pass
    return 128 + signum


def entry() -> None:
    """The `tileforth` console script (Ctrl-C while it starts: exit status 130, no traceback)."""
    try:
        _entry()
    except KeyboardInterrupt:
        sys.exit(130)


def _entry() -> None:
    argv = sys.argv[1:]
    if argv[:1] and argv[0] in SERVER_COMMANDS:  # serve, server status|stop: never through a server
        from .serverctl import command

        sys.exit(command(argv))
    how = mode()
    if how is None:
        print(f"tileforth: error: TILEFORTH_SERVER={os.environ['TILEFORTH_SERVER']!r} is not a setting; set it to "
              "1 (use a resident server, starting one when none is running), 0 (never use one), or unset it "
              "(use one only while `tileforth serve` has one running)", file=sys.stderr)
        sys.exit(2)
    prompt = opens_prompt(argv)
    terminal = prompt is not False and sys.stdin.isatty() and sys.stdout.isatty()
    if how == "off" or terminal or prompt is None or (how == "auto" and not may_be_serving()):
        from .cli import entry as here

        here()
        return
    status = run_through_server(argv)
    if status is None and how == "only":
        if refused is not None:
            print(f"tileforth: error: TILEFORTH_SERVER=only, but the resident server's child cannot run as this "
                  f"process would: {refused}; run without TILEFORTH_SERVER=only, or start the server "
                  "(`tileforth serve`) from a shell like this one", file=sys.stderr)
        else:
            print("tileforth: error: TILEFORTH_SERVER=only, but no resident server is running for this Python, "
                  "tileforth and environment; start one with `python -m tileforth.repl.server` (in the "
                  "foreground) or `tileforth serve` (in the background)", file=sys.stderr)
        status = 2
    elif status is None:
        from .cli import main

        status = main(argv)
        import gc

        gc.freeze()  # cli.entry's reason: no last collection of everything at exit
        if how == "on":
            try:
                start_server()
            except OSError:
                pass
    sys.exit(status)
