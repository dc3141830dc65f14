"""The commands that start, show and stop resident servers (tileforth/repl/server.py; resident.py
says what they are for):

    tileforth serve                start one in the background unless one serves this tileforth; say which
    tileforth serve --foreground   serve in this terminal until idle or Ctrl-C
    tileforth server [status]      each of this user's servers: process, socket, age, memory, runs in progress
    tileforth server stop          stop them all (SIGTERM: a run in progress ends first) and wait for them

A server is found by its lock file in the user's private folder (rendezvous.folder), where it
records its process id (server._record); the process is checked to be a live tileforth server,
since a process id is reused once its process is gone. Linux: /proc (as the server's SO_PEERCRED).
This module imports neither the server nor the command's session (the server runs in a process of
its own), so the command loads it only for these commands.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import time

from . import rendezvous
from .args import server_args

STOP_WAIT_S = 30.0  # how long `tileforth server stop` waits for a server's runs in progress to end
READY_WAIT_S = 120.0  # how long `tileforth serve` waits for the server it started to serve


def command(argv: list[str]) -> int:
    """`tileforth serve ...` or `tileforth server ...` (argv[0] says which); the exit status."""
    args = server_args(argv)
    if argv[0] == "serve":
        return foreground() if args.foreground else serve()
    return stop() if args.action == "stop" else status()


def servers() -> list[dict]:
    """This user's running servers, from their lock files (their `_record`s), oldest first."""
    where = rendezvous.folder()
    if where is None:
        return []
    found = []
    for name in os.listdir(where):
        if not name.endswith(".lock"):
            continue
        try:
            with open(os.path.join(where, name)) as fh:
                info = json.load(fh)
            pid = int(info["pid"])
        except (OSError, ValueError, KeyError, TypeError):  # gone, being written, or a server that is starting
            continue
        if is_server(pid):
            found.append(info)
    return sorted(found, key=lambda i: i.get("started", 0))


def is_server(pid: int) -> bool:
    """Whether `pid` is a live (not a zombie) tileforth server: its process id may have been reused."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rsplit(b")", 1)[1].split()[0]
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmdline = fh.read()
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X") and b"tileforth.repl.server" in cmdline


def _children(pid: int) -> int:
    """How many runs the server has in progress (its child processes)."""
    n = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    n += int(fh.read().rsplit(b")", 1)[1].split()[1]) == pid
            except (OSError, IndexError, ValueError):
                pass
    return n


def _resident_mib(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/status") as fh:
            kib = next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))
    except (OSError, StopIteration, ValueError, IndexError):
        return "? MiB"
    return f"{kib / 1024:.0f} MiB"


def _ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def describe(info: dict, digest: str) -> str:
    pid = info["pid"]
    whose = "this tileforth" if info.get("key") == digest else "another tileforth, Python or environment"
    runs = _children(pid)
    return (f"tileforth server: process {pid} serves {whose} ({info.get('tileforth')}, {info.get('python')})\n"
            f"  socket {info.get('socket')}; up {_ago(time.time() - info.get('started', time.time()))}; "
            f"{_resident_mib(pid)} resident; {runs} run{'' if runs == 1 else 's'} in progress; "
            f"stops after {info.get('idle_s', 0):g} s without a run")


def status() -> int:
    """Print each of this user's servers; 0 if one serves this tileforth, else 1."""
    digest = rendezvous.key()
    found = servers()
    for info in found:
        print(describe(info, digest))
    if not found:
        print("tileforth server: none is running; `tileforth serve` starts one")
    return 0 if any(info.get("key") == digest for info in found) else 1


def stop() -> int:
    """Stop every one of this user's servers (SIGTERM: the runs in progress end first) and wait for them."""
    found = servers()
    if not found:
        print("tileforth server: none is running")
        return 0
    for info in found:
        try:
            os.kill(info["pid"], signal.SIGTERM)
        except OSError:
            pass
    end = time.monotonic() + STOP_WAIT_S
    waiting = [info["pid"] for info in found]
    while waiting and time.monotonic() < end:
        for pid in [p for p in waiting if not is_server(p)]:
            print(f"tileforth server: stopped process {pid}")
            waiting.remove(pid)
        if waiting:
            time.sleep(0.05)
    for pid in waiting:
        print(f"tileforth server: process {pid} takes no more runs and stops when its {_children(pid)} run(s) in "
              f"progress end (`kill -9 {pid}` ends them now)", file=sys.stderr)
    return 1 if waiting else 0


def serve() -> int:
    """Start a server in the background unless one serves this tileforth, and wait until one does."""
    where = rendezvous.folder()
    if where is None:
        print(f"tileforth serve: error: {rendezvous.base_folder()} is not a folder only you can open (it must be "
              "yours, mode 700), so no server can be started; fix its owner or mode, or set XDG_RUNTIME_DIR",
              file=sys.stderr)
        return 1
    digest = rendezvous.key()
    mine = [info for info in servers() if info.get("key") == digest]
    if mine:
        print(f"tileforth server: process {mine[0]['pid']} already serves this tileforth "
              f"({mine[0].get('socket')}); `tileforth server stop` stops it")
        return 0
    proc = rendezvous.start_server()
    end = time.monotonic() + READY_WAIT_S
    while time.monotonic() < end:
        mine = [info for info in servers() if info.get("key") == digest]
        if mine and os.path.exists(mine[0]["socket"]):
            info = mine[0]
            print(f"tileforth server: process {info['pid']} serves this tileforth ({info['socket']}): runs that do "
                  f"not open the prompt go through it; it stops after {info['idle_s']:g} s without a run, or with "
                  "`tileforth server stop`")
            return 0
        if proc.poll() not in (None, 0):
            break  # it failed (its message is in the log); 0: another server took the lock, wait for it
        time.sleep(0.02)
    print(f"tileforth serve: error: the server did not start; see {os.path.join(where, 'server.log')}",
          file=sys.stderr)
    return 1


def foreground() -> int:
    """`tileforth serve --foreground`: this process becomes the server (`python -m tileforth.repl.server`)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, "-P", "-m", "tileforth.repl.server"])
    return 1  # not reached: execv replaces the process or raises OSError
