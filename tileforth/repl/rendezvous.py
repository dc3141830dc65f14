"""Where a `tileforth` command and a resident server meet: the user's private folder, the key that
names a server's socket, the messages they exchange, TILEFORTH_SERVER's settings, and the start of
a server in the background. resident.py (the client), server.py (the server) and serverctl.py (the
commands that start, show and stop servers) share it; it imports none of them, and nothing heavy:
the command loads it on every run.
"""
from __future__ import annotations

import _socket  # the socket module's C part: `socket` itself loads selectors and enum (~8 ms)
import os
import struct
import sys

PROTOCOL = 1
FDS = (0, 1, 2)  # stdin, stdout, stderr: the child uses them as its own
IDLE_DEFAULT_S = 900.0
HANDSHAKE_S = 10.0  # how long a server's child waits for its client's request and go (a client sends at once)
LOG_BYTES = 1 << 20  # server.log is begun again past this size
# environment variables read while the server imports and warms up: a client whose values
# differ needs a server of its own (the rest of the environment is the child's, set per run)
KEY_ENV_PREFIXES = ("PYTHON", "TILEFORTH_", "NUMPY", "OPENBLAS", "OMP_", "MKL", "LLVM", "LANG", "LC_")
# tileforth's packages (every file is in the key) and the dependencies the server imports
OWN_PACKAGES = ("tileforth", "tileforth.core", "tileforth.backends", "tileforth.repl")
DEPENDENCIES = ("numpy", "ml_dtypes", "llvmlite", "rich", "prompt_toolkit")
# TILEFORTH_SERVER's values: "auto" (unset: a running server is used, none is started), "on" (one is
# started when none runs), "off" (never one), "only" (a server or an error)
MODES = {"": "auto", "auto": "auto", "1": "on", "on": "on", "yes": "on", "true": "on",
         "0": "off", "off": "off", "no": "off", "false": "off", "only": "only"}


def mode(env=os.environ) -> str | None:
    """TILEFORTH_SERVER's mode (MODES), or None for a value it does not have."""
    return MODES.get(env.get("TILEFORTH_SERVER", "").strip().lower())


def idle_seconds(env=os.environ) -> float:
    try:
        return max(1.0, float(env.get("TILEFORTH_SERVER_IDLE", IDLE_DEFAULT_S)))
    except ValueError:
        return IDLE_DEFAULT_S


def base_folder() -> str:
    """Where the user's private folder for sockets is (made by `folder`): in $XDG_RUNTIME_DIR, else
    $TMPDIR, else /tmp. A relative one is passed over (the XDG rule): it would name another folder
    from each working folder, and the server changes its own."""
    given = (os.environ.get(name, "") for name in ("XDG_RUNTIME_DIR", "TMPDIR"))
    base = next((path for path in given if os.path.isabs(path)), "/tmp")
    return os.path.join(base, f"tileforth-{os.getuid()}")


def folder() -> str | None:
    """The user's private folder for the socket, made if missing; None if it is not private
    (another user's, or open to others): then no server is used."""
    path = base_folder()
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


def may_be_serving() -> bool:
    """Whether some server may be running: a socket in the user's folder (one listing, about 20 µs;
    the key, a digest of every source file's time, is computed only then)."""
    try:
        return any(name.endswith(".sock") for name in os.listdir(base_folder()))
    except OSError:
        return False


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
# then "X" and the exit status once the child has ended; or "N" and an index into REFUSALS: the
# child cannot be the process the client would be (the client then runs the command itself)
REPLY = struct.Struct("!ci")
REFUSALS = ("its nice value (a child may not raise its priority above the server's)",
            "its CPU affinity (CPUs the server may not use)",
            "a resource limit above the server's hard limit")


def start_server():
    """Start a server in the background (its own session, no terminal): the subprocess.Popen, or None
    without a private folder. It writes what goes wrong to server.log next to its socket."""
    where = folder()
    if where is None:
        return None
    import subprocess

    path = os.path.join(where, "server.log")
    try:
        full = os.path.getsize(path) > LOG_BYTES
    except OSError:
        full = False
    with open(path, "wb" if full else "ab") as log:  # begun again when full
        return subprocess.Popen([sys.executable, "-P", "-m", "tileforth.repl.server"], stdin=subprocess.DEVNULL,
                                stdout=log, stderr=log, start_new_session=True, close_fds=True)
