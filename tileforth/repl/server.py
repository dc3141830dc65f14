"""The resident server behind the `tileforth` command (tileforth/repl/resident.py says why and when;
tileforth/repl/serverctl.py holds `tileforth serve` and `tileforth server status|stop`).

    python -m tileforth.repl.server    serve here until idle (what `tileforth serve` starts, in the background)

It takes its socket's lock first (one server per key: a second one stops at once), imports what
a run needs and warms it up (a cpu session runs a line and is closed, so the JIT's shared engines and the
scheduler exist), freezes its objects for the garbage collector (children then do not copy them
page by page), writes its process id and start into the lock file (what `tileforth server
status` reads), and waits. For each client it forks a child, which:
    - dies with the server (PR_SET_PDEATHSIG: a server killed, even by SIGKILL, leaves no run
      writing to a terminal);
    - checks the client's user id, takes its stdin/stdout/stderr, working folder,
      environment (and TZ with it), umask, nice value, CPU affinity, resource limits and arguments;
      one it cannot take (a priority or a limit above the server's, a CPU it may not use) it
      refuses, and the client runs the command itself;
    - sends its process id and waits for the client's go (a client that gave up gets no run, nor
      one that sends nothing for rendezvous.HANDSHAKE_S);
    - runs `cli.main` as the command would, then the exit functions, and exits with its status.
The server reaps its children and sends each client its child's exit status (killed by a
signal: minus its number, and the client ends itself by the same signal). A client that goes away
takes its child with it (SIGKILL), as closing a terminal would. The server stops after
TILEFORTH_SERVER_IDLE seconds without a client, when its socket file is removed or replaced, or
when its key has changed (a source file edited: checked every STALE_CHECK_S while idle), so old
servers do not pile up; on SIGTERM (`tileforth server stop`) it takes no more runs, lets those in
progress end, and stops.

Fork without exec is safe only in a process of one thread (POSIX: the copy has only the forking
thread, and a lock another thread held stays held in it for ever). The server starts no thread;
numpy's BLAS (OpenBLAS) starts worker threads at import and stops them in its own fork handler
(pthread_atfork), so the server forks once, a child that exits at once, before it serves, and
from then on has one thread, since it multiplies no matrix. `fork_hazard` checks that before
each fork and that no CUDA library is loaded (a CUDA context does not survive a fork: a child
that runs on the cuda backend makes its own) at its start: a server that finds either stops,
and the runs go on without it.
"""
from __future__ import annotations

import fcntl
import json
import os
import selectors
import signal
import socket
import struct
import sys
import time

from . import rendezvous

STALE_CHECK_S = 2.0


def threads() -> int:
    """How many threads this process has (Linux: /proc; the server needs SO_PEERCRED, Linux's, anyway)."""
    return len(os.listdir("/proc/self/task"))


def fork_hazard(*, cuda: bool = False) -> str | None:
    """Why forking this process now would be unsafe, as a sentence; None if it is safe: one thread and,
    with `cuda`, no CUDA driver library mapped."""
    try:
        n = threads()
    except OSError:
        return "this system has no /proc/self/task to count the server's threads with"
    if n != 1:
        return (f"the server has {n} threads, and a process of more than one thread may not fork without exec "
                "(another thread may hold a lock the copy would wait on for ever)")
    if cuda:
        try:
            with open("/proc/self/maps", "rb") as fh:
                mapped = b"libcuda.so" in fh.read()
        except OSError:
            mapped = False
        if mapped or any(m in sys.modules for m in ("pycuda.driver", "cupy")):
            return "a CUDA library is loaded in the server, and a CUDA context does not survive a fork"
    return None


class Server:
    def __init__(self, path: str, idle_s: float, lock, digest: str) -> None:
        self.path, self.idle_s, self.lock, self.digest = path, idle_s, lock, digest
        self.checked = time.monotonic()  # when the key was last compared
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.clients: dict[int, socket.socket] = {}  # child pid -> its client's connection
        self.selector = selectors.DefaultSelector()
        self.wake_r, self.wake_w = socket.socketpair()
        self.stopping = False

    def listen(self) -> None:
        # bound and listening under a name of its own, then renamed into place (replacing a dead
        # server's socket; the lock says none is alive): a client never finds a socket that refuses it.
        # Bound by its name in the folder, the server's working folder from now on: a socket's whole
        # path may be at most 107 bytes, a long TMPDIR's is longer (each child goes to its caller's)
        os.chdir(os.path.dirname(self.path))
        staging = f"{os.getpid()}.new"
        try:
            os.unlink(staging)
        except FileNotFoundError:
            pass
        self.listener.bind(staging)
        self.listener.listen(64)
        os.rename(staging, self.path)
        self.inode = os.stat(self.path).st_ino
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.wake_r.setblocking(False)
        self.wake_w.setblocking(False)
        self.selector.register(self.wake_r, selectors.EVENT_READ, "signal")
        signal.set_wakeup_fd(self.wake_w.fileno())
        signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes the loop (set_wakeup_fd)
        signal.signal(signal.SIGTERM, self._stop)

    def _stop(self, *_) -> None:
        self.stopping = True

    def serve(self) -> None:
        last = time.monotonic()
        while not self.stopping or self.clients:  # stopping: the runs in progress end first
            if self.stopping:
                self.stop_listening()
            events = self.selector.select(timeout=min(STALE_CHECK_S, self.idle_s))
            for sel_key, _ in events:
                if sel_key.data == "accept":
                    self.accept()
                elif sel_key.data == "signal":
                    try:
                        self.wake_r.recv(512)
                    except BlockingIOError:
                        pass
                else:  # a client's connection: readable only when it went away
                    self.client_gone(sel_key.data)
            self.reap()
            if self.clients:
                last = time.monotonic()
            elif self.stopping or time.monotonic() - last >= self.idle_s or not self.socket_is_ours() \
                    or self.stale():
                break

    def stop_listening(self) -> None:
        """No more runs: the socket removed (a client then runs the command itself), the listener closed."""
        if self.listener.fileno() < 0:
            return
        self.selector.unregister(self.listener)
        if self.socket_is_ours():
            os.unlink(self.path)
        self.listener.close()

    def stale(self) -> bool:
        """Whether what it serves has changed (an edited source, another dependency): the next run
        starts a new server, so this one stops (checked when idle, every few seconds)."""
        now = time.monotonic()
        if now - self.checked < STALE_CHECK_S:
            return False
        self.checked = now
        return rendezvous.key() != self.digest

    def socket_is_ours(self) -> bool:
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def accept(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        hazard = fork_hazard()
        if hazard is not None:  # the client gets no child: it runs the command itself
            conn.close()
            print(f"tileforth server: process {os.getpid()} stops: {hazard}", file=sys.stderr, flush=True)
            self.stopping = True
            self.stop_listening()
            return
        server_pid = os.getpid()
        pid = os.fork()
        if pid == 0:  # the child: it dies with the server, the signals as a fresh process has them, the
            die_with_parent(server_pid)  # server's descriptors closed (its lock too), then the run
            signal.set_wakeup_fd(-1)
            for sig in (signal.SIGCHLD, signal.SIGTERM):
                signal.signal(sig, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            for fd in (self.listener, self.wake_r, self.wake_w, self.lock, *self.clients.values()):
                fd.close()
            self.selector.close()
            child(conn)
        self.clients[pid] = conn
        self.selector.register(conn, selectors.EVENT_READ, pid)

    def client_gone(self, pid: int) -> None:
        conn = self.clients.get(pid)
        if conn is None:
            return
        try:
            if conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT):
                return  # not gone (a client sends nothing more after its go)
        except BlockingIOError:
            return
        except OSError:
            pass
        self.selector.unregister(conn)
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass

    def reap(self) -> None:
        while self.clients:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.clients.pop(pid, None)
            if conn is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            try:
                conn.sendall(rendezvous.REPLY.pack(b"X", code))  # -N: killed by signal N
            except OSError:
                pass
            try:
                self.selector.unregister(conn)
            except (KeyError, ValueError):
                pass
            conn.close()

    def close(self) -> None:
        if self.listener.fileno() >= 0 and self.socket_is_ours():
            os.unlink(self.path)
        self.listener.close()


PR_SET_PDEATHSIG = 1  # Linux's prctl option: a signal for this process when its parent ends


def die_with_parent(parent: int) -> None:
    """SIGKILL for this process (a server's child) when the server ends, however it ends (`kill -9`
    included): a run must not go on writing to a terminal with no command waiting for it."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the client kills it when the server goes (resident.Relay)
        pass
    if os.getppid() != parent:  # the server ended before the prctl: nobody would report this run
        os._exit(1)


class Refused(Exception):
    """The child cannot become the process the client would be; args[0] indexes rendezvous.REFUSALS."""


def child(conn: socket.socket) -> None:
    """One run, in a forked copy of the warmed-up server; ends the process. A client that sends
    nothing (or no go) within rendezvous.HANDSHAKE_S gets no run: the child does not wait for ever."""
    status = 1
    try:
        request = handshake(conn)
        if request is None:
            os._exit(1)
        from .cli import main

        try:
            status = main(request["argv"])
        except SystemExit as e:  # argparse: --help, a bad option
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except KeyboardInterrupt:
            status = 130
        import atexit

        atexit._run_exitfuncs()
    except KeyboardInterrupt:  # Ctrl-C before main ran (or after it returned)
        status = 130
    except BaseException:  # a bug: its traceback, as the command would print it
        import traceback

        traceback.print_exc()
        status = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(status)


def handshake(conn: socket.socket) -> dict | None:
    """The client's request taken (receive), its go received; None: no run (a client that sent nothing
    in time, went away, or whose process this child cannot become: it is told so, and runs itself)."""
    conn.settimeout(rendezvous.HANDSHAKE_S)
    try:
        try:
            request = receive(conn)
        except Refused as why:
            conn.sendall(rendezvous.REPLY.pack(b"N", why.args[0]))
            return None
        if request is None:
            return None
        conn.sendall(rendezvous.REPLY.pack(b"P", os.getpid()))
        if rendezvous.recv_exact(conn, 1) != b"G":
            return None
    except (OSError, EOFError, ValueError, struct.error):  # TimeoutError is an OSError
        return None
    conn.settimeout(None)
    return request


def receive(conn: socket.socket) -> dict | None:
    """Take over the client: its user id checked, its descriptors and state made this process's."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _, uid, _ = struct.unpack("3i", creds)
    if uid != os.getuid():
        return None
    head, fds, _, _ = socket.recv_fds(conn, 4096, len(rendezvous.FDS))
    if len(head) < 4 or len(fds) != len(rendezvous.FDS):
        return None
    size = struct.unpack("!I", head[:4])[0]
    body = head[4:]
    if len(body) < size:
        body += rendezvous.recv_exact(conn, size - len(body))
    request = json.loads(body)
    for target, fd in zip(rendezvous.FDS, fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    os.umask(request["umask"])
    time.tzset()  # TZ as the client has it (localtime would go on with the server's)
    become(request)
    sys.argv = [request["argv0"], *request["argv"]]
    sys.stdin, sys.stdout, sys.stderr = (_stream(fd, old) for fd, old in zip(rendezvous.FDS, (
        sys.__stdin__, sys.__stdout__, sys.__stderr__)))
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr  # type: ignore[misc]
    return request


def become(request: dict) -> None:
    """The client's nice value, CPU affinity and resource limits; Refused when one cannot be had (a
    priority above the server's, a CPU the server may not use, a limit above the server's hard one)."""
    nice = request.get("nice")
    if nice is not None and nice != os.getpriority(os.PRIO_PROCESS, 0):
        try:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
        except OSError:
            raise Refused(0) from None
    cpus = request.get("cpus")
    if cpus is not None and hasattr(os, "sched_setaffinity") and set(cpus) != os.sched_getaffinity(0):
        try:
            os.sched_setaffinity(0, cpus)
        except OSError:
            raise Refused(1) from None
    import resource

    for name, (soft, hard) in request.get("limits", {}).items():
        which = getattr(resource, name, None)
        if which is None or resource.getrlimit(which) == (soft, hard):
            continue
        try:
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError):
            raise Refused(2) from None


def _stream(fd: int, like):
    """A text stream on `fd` as Python makes one at start-up: line-buffered on a terminal
    (stderr always), in the server's encoding (its key holds the locale's variables)."""
    stream = open(fd, "r" if fd == 0 else "w", encoding=like.encoding, errors=like.errors, closefd=False)
    if fd:
        stream.reconfigure(line_buffering=fd == 2 or os.isatty(fd))
    return stream


def warm_up() -> None:
    """Load and build what every run needs, in a session that is then closed; and import what
    errors, stacks, kernel files and PTX need (a child imports nothing the server did)."""
    import gc
    import importlib

    for name in ("tileforth.repl.cli", "tileforth.repl.render", "rich.console", "tileforth.export.kernelfile",
                 "ml_dtypes",  # a plain run leaves it to the first bf16 dtype (about a second): here it is paid once
                 "tileforth.export.kernels"):  # the last makes PTX only: no GPU is touched
        importlib.import_module(name)
    from .session import Session

    session = Session.start("cpu")
    session.run_line("1 2 + DROP", 1)
    session.forth.close()
    del session
    gc.collect()
    gc.freeze()
    pid = os.fork()  # the fork handlers run once: OpenBLAS's stops its worker threads (module docstring)
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


def main() -> int:
    where = rendezvous.folder()
    if where is None:
        print("tileforth server: no private folder for the socket", file=sys.stderr)
        return 1
    digest = rendezvous.key()
    # opened without truncating it: a running server's record stays until this one holds the lock
    lock = open(os.path.join(where, f"{digest}.lock"), "a+")  # (a+: writes go to its end, 0 once truncated)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # one is already serving this key
    warm_up()
    hazard = fork_hazard(cuda=True)
    if hazard is not None:
        print(f"tileforth server: not serving: {hazard}", file=sys.stderr, flush=True)
        _drop_lock(lock)
        return 1
    server = Server(rendezvous.socket_path(where, digest), rendezvous.idle_seconds(), lock, digest)
    server.listen()
    _record(lock, server)
    print(f"tileforth server: process {os.getpid()} serves {server.path}; it stops after {server.idle_s:g} s "
          "without a run", file=sys.stderr, flush=True)
    try:
        server.serve()
    except KeyboardInterrupt:  # Ctrl-C in the foreground
        pass
    finally:
        server.close()
        _drop_lock(lock)
    return 0


def _record(lock, server: Server) -> None:
    """What `tileforth server status` says of this server, in its lock file (JSON)."""
    lock.seek(0)
    lock.truncate()
    json.dump({"pid": os.getpid(), "started": time.time(), "idle_s": server.idle_s, "socket": server.path,
               "key": server.digest, "python": sys.executable,
               "tileforth": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}, lock)
    lock.flush()


def _drop_lock(lock) -> None:
    """Remove the lock file while it is still this server's (each key makes one, and every source edit
    a new key), then let go of it. A server that opened it just before takes the lock and serves; if
    one after it makes a new file, the two share a socket path until the first sees its socket
    replaced and stops (Server.socket_is_ours)."""
    try:
        if os.fstat(lock.fileno()).st_ino == os.stat(lock.name).st_ino:
            os.unlink(lock.name)
    except OSError:
        pass
    lock.close()


if __name__ == "__main__":
    sys.exit(main())
