"""The `tileforth` command's front door: hand the run to a resident server, or run it here.

Most of `tileforth -e "1 2 + ."` is spent before the line: the interpreter, numpy and LLVM's
shared library (about 150 ms on a small machine), then tileforth's own modules and its JIT.
A resident server (tileforth/repl/server.py) has all of that loaded once. For each run it forks a
child, a copy of itself, that takes this process's stdin, stdout and stderr, its working
folder, environment, umask, resource limits and arguments, runs `cli.main` as this process
would, and exits; its exit status becomes this process's (a child killed by a signal kills
this process by the same signal). Ctrl-C and other stop signals sent to this process are
passed on to it, and Ctrl-Z stops both (`fg` continues both). Every run starts from the same
fresh state, so a run through the server prints and returns exactly what it would here.

    - The server is used for runs that do not open the prompt: files, -e sources, lines on
      stdin, `tileforth compile` and `tileforth run`. The prompt runs here.
    - The first run has no server to use: it runs here, then starts one in the background.
      The server stops after TILEFORTH_SERVER_IDLE seconds (default 900) without a run.
    - TILEFORTH_SERVER=0 never uses or starts one; TILEFORTH_SERVER=only uses one or fails
      (exit status 2), and never runs here.
    - `python -m tileforth.repl.server` starts one in the foreground (Ctrl-C or SIGTERM stops it).
    - A server serves only clients that would run the same code: its socket's name is a
      digest of the Python, the files of tileforth and its dependencies, and the
      environment variables read when they are imported (`key`). Edit a source file and
      the next run starts a new server; the old one stops when idle.
    - The socket lives in a folder only the user can open ($XDG_RUNTIME_DIR or the
      temporary folder, `tileforth-UID`); the server also checks the caller's user id.

This module imports nothing heavy: it is what every run of the command loads first.
"""
from __future__ import annotations

import _socket  # the socket module's C part: `socket` itself loads selectors and enum (~8 ms)
import os
import struct
import sys

from .args import FLAG_OPTIONS, KERNEL_COMMANDS, VALUE_OPTIONS

PROTOCOL = 1
FDS = (0, 1, 2)  # stdin, stdout, stderr: the child uses them as its own
START_TIMEOUT_S = 10.0  # how long a client waits for its child to start before running here
IDLE_DEFAULT_S = 900.0
LOG_BYTES = 1 << 20  # server.log is begun again past this size
# environment variables read while the server imports and warms up: a client whose values
# differ needs a server of its own (the rest of the environment is the child's, set per run)
KEY_ENV_PREFIXES = ("PYTHON", "TILEFORTH_", "NUMPY", "OPENBLAS", "OMP_", "MKL", "LLVM", "LANG", "LC_")
# tileforth's packages (every file is in the key) and the dependencies the server imports
OWN_PACKAGES = ("tileforth", "tileforth.core", "tileforth.backends", "tileforth.repl")
DEPENDENCIES = ("numpy", "ml_dtypes", "llvmlite", "rich", "prompt_toolkit")


def mode(env=os.environ) -> str:
    """TILEFORTH_SERVER: "off" (0, no, false: never a server), "only" (a server or an error: what
    benchmarks/startup.py and the tests use, to know which path they measure), else "on"."""
    value = env.get("TILEFORTH_SERVER", "on").strip().lower()
    return "off" if value in ("0", "no", "off", "false") else "only" if value == "only" else "on"


def idle_seconds(env=os.environ) -> float:
    try:
        return max(1.0, float(env.get("TILEFORTH_SERVER_IDLE", IDLE_DEFAULT_S)))
    except ValueError:
        return IDLE_DEFAULT_S


def folder() -> str | None:
    """The user's private folder for the socket, made if missing; None if it is not private
    (another user's, or open to others): then no server is used."""
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("TMPDIR") or "/tmp"
    path = os.path.join(base, f"tileforth-{os.getuid()}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    import stat

    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return None
    return path


def key() -> str:
    """A digest of what the server would run: the Python, every file of tileforth's
    packages (path, size, modification time), where each dependency is imported from
    (with its folder's modification time), and the environment read at import."""
    try:
        from _blake2 import blake2b  # hashlib loads OpenSSL's library first (~3 ms)
    except ImportError:  # pragma: no cover - a Python built without it
        from hashlib import blake2b

    h = blake2b(digest_size=12)
    # the interpreter by its file and its environment: `python`, `python3` and the console script's
    # `python3.11` are one interpreter (a venv's python is a link to its base's, so sys.prefix tells them apart)
    h.update(f"{PROTOCOL}\0{os.path.realpath(sys.executable)}\0{sys.prefix}\0{sys.version}\0".encode())
    folders = []
    for name in OWN_PACKAGES:
        spec = find_spec(name)
        folders += list(spec.submodule_search_locations or []) if spec else [f"missing {name}"]
    for path in folders:
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith((".py", ".fth")):
                    try:
                        st = os.stat(os.path.join(root, name))
                    except OSError:  # gone since the listing (an editor saving it): the next key differs
                        continue
                    h.update(f"{root}/{name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    for name in DEPENDENCIES:
        spec = find_spec(name)
        origin = spec.origin if spec and spec.origin else f"missing {name}"
        try:
            mtime = os.stat(os.path.dirname(origin)).st_mtime_ns
        except OSError:
            mtime = 0
        h.update(f"{origin}\0{mtime}\0".encode())
    for var in sorted(os.environ):
        if var.startswith(KEY_ENV_PREFIXES) and not var.startswith("TILEFORTH_SERVER"):
            h.update(f"{var}={os.environ[var]}\0".encode())
    return h.hexdigest()


def find_spec(name: str):
    """importlib.util.find_spec without importing importlib.util (~4 ms): the module's spec from
    the import system's finders, its package's first (a loaded module: its own spec)."""
    module = sys.modules.get(name)
    if module is not None:
        return module.__spec__
    parent, _, _ = name.rpartition(".")
    path = None
    if parent:
        spec = find_spec(parent)
        if spec is None or spec.submodule_search_locations is None:
            return None
        path = spec.submodule_search_locations
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find(name, path) if find is not None else None
        if spec is not None:
            return spec
    return None


def socket_path(where: str, digest: str) -> str:
    return os.path.join(where, f"{digest}.sock")


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


# ---- messages: a 4-byte length, then that many bytes --------------------------------------
def send_message(sock, payload: bytes, fds: tuple[int, ...] = ()) -> None:
    """On a socket (socket.socket or _socket.socket): payload's length, payload, and the descriptors."""
    data = struct.pack("!I", len(payload)) + payload
    if fds:
        rights = struct.pack(f"{len(fds)}i", *fds)
        sent = sock.sendmsg([data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, rights)])
        data = data[sent:]
    if data:
        sock.sendall(data)


def recv_exact(sock, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            raise EOFError("the connection closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


# the server's replies: "P" and the child's process id (it waits for "G" before it runs),
# then "X" and the exit status once the child has ended
REPLY = struct.Struct("!ci")


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
               "limits": _limits()}
    try:
        send_message(sock, json.dumps(request).encode(), FDS)
        tag, pid = REPLY.unpack(recv_exact(sock, REPLY.size))
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
        except (OSError, EOFError):
            print("tileforth: error: the resident server went away during the run; run again (or set "
                  "TILEFORTH_SERVER=0 to run without it)", file=sys.stderr)
            return 1
        if tag == b"X":
            return status if status >= 0 else _die_as_child(-status)


LIMITS = ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE")


def _limits() -> dict[str, list[int]]:
    """This process's resource limits (ulimit) that the child takes: a run under `ulimit -t 5` or
    `ulimit -v ...` is held to them through the server too."""
    import resource

    return {name: list(resource.getrlimit(getattr(resource, name))) for name in LIMITS if hasattr(resource, name)}


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
        try:
            os.kill(self.pid, signum)
        except OSError:  # it has just ended
            pass

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


def start_server() -> None:
    """Start a server in the background for the next runs (its own session, no terminal);
    it writes what goes wrong to server.log next to its socket."""
    where = folder()
    if where is None:
        return
    import subprocess

    path = os.path.join(where, "server.log")
    try:
        full = os.path.getsize(path) > LOG_BYTES
    except OSError:
        full = False
    with open(path, "wb" if full else "ab") as log:  # begun again when full
        subprocess.Popen([sys.executable, "-P", "-m", "tileforth.repl.server"], stdin=subprocess.DEVNULL,
                         stdout=log, stderr=log, start_new_session=True, close_fds=True)


def entry() -> None:
    """The `tileforth` console script."""
    argv = sys.argv[1:]
    prompt = opens_prompt(argv)
    terminal = prompt is not False and sys.stdin.isatty() and sys.stdout.isatty()
    how = mode()
    if how == "off" or terminal or prompt is None:
        from .cli import entry as here

        here()
        return
    status = run_through_server(argv)
    if status is None and how == "only":
        print("tileforth: error: TILEFORTH_SERVER=only, but no resident server is running for this Python, "
              "tileforth and environment; start one with `python -m tileforth.repl.server`", file=sys.stderr)
        status = 2
    elif status is None:
        from .cli import main

        status = main(argv)
        import gc

        gc.freeze()  # cli.entry's reason: no last collection of everything at exit
        try:
            start_server()
        except OSError:
            pass
    sys.exit(status)
