"""The disk cache of cubins: a line's machine code kept across sessions.

A new line on cuda costs its PTX (LLVM) and the driver's JIT of that PTX, most
of which is a fixed cost per module. A line's PTX is the same in every session
(session addresses are launch data, core/compile/addresses.py; names come from
the module's content, ptx.canonical_names), so the cubin made from it serves
every later session that runs the same line: a file or demo run again in a new
process loads its cubins instead of JIT-compiling them.

* **Where**: `$TILEFORTH_CUBIN_CACHE` if set (a directory; `off`, `0` or an
  empty value turn the cache off), else `$XDG_CACHE_HOME/tileforth/cubins`
  (`~/.cache/tileforth/cubins`).
* **Key**: sha256 of the PTX, the architecture it is assembled for, the
  driver's version, the assembler's version and its optimisation level
  (cubin_key). Two lines whose PTX differs in one byte are two entries; a hit
  is code made from exactly this PTX.
* **Entry**: a file `<key[:2]>/<key>.cubin`: a header (magic, lengths, sha256
  of the rest), the assembler's verbose log (the stack frames the backend
  sizes a recursive kernel's stack by) and the cubin. An entry that does not
  check out (truncated, overwritten, another version's) is removed and
  reported as a miss: the line is compiled again.
* **Bounded**: at most `$TILEFORTH_CUBIN_CACHE_MB` MiB (DEFAULT_MB); after each
  write the least recently used entries go (a hit touches its file's time)
  until the files' bytes fit.
* **Two processes at once**: an entry is written to a temporary file in its
  directory and renamed into place (atomic on POSIX), so a reader sees a whole
  entry or none; evicting or dropping a file another process just removed is
  not an error.
"""
from __future__ import annotations

import hashlib
import os
import queue
import struct
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

from tileforth.core.records import record

ENV = "TILEFORTH_CUBIN_CACHE"
ENV_MB = "TILEFORTH_CUBIN_CACHE_MB"
DEFAULT_MB = 256
OFF = ("", "0", "off", "no", "false", "none")
MAGIC = b"TFCUBIN1"
HEADER = struct.Struct("<8sIQ32s")  # magic, log bytes, cubin bytes, sha256(log + cubin)
SUFFIX = ".cubin"
STALE_TEMP_S = 3600  # a temporary file this old was left by a process that died while writing
GIVE_UP = 3  # entries the assembler fails to make in a row, after which a writer takes no more (it cannot)


@record(frozen=True)
class Entry:
    cubin: bytes
    log: str = ""  # the assembler's verbose log (ptxas -v's text)


def cubin_key(ptx: str, arch: str, driver: str, assembler: str) -> str:
    """The entry's name: what the cubin is made from and by (assembler: its version and options)."""
    h = hashlib.sha256()
    for part in (arch, driver, assembler, ptx):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def default_dir() -> Path | None:
    """Where the cache lives, or None when TILEFORTH_CUBIN_CACHE turns it off."""
    env = os.environ.get(ENV)
    if env is not None:
        return None if env.strip().lower() in OFF else Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "tileforth" / "cubins"


def default_bytes() -> int:
    try:
        mb = float(os.environ.get(ENV_MB, DEFAULT_MB))
    except ValueError:
        mb = DEFAULT_MB
    return max(int(mb * (1 << 20)), 0)


def pack(entry: Entry) -> bytes:
    log = entry.log.encode()
    body = log + entry.cubin
    return HEADER.pack(MAGIC, len(log), len(entry.cubin), hashlib.sha256(body).digest()) + body


def unpack(data: bytes) -> Entry | None:
    """The entry a file holds, or None when it does not check out."""
    if len(data) < HEADER.size:
        return None
    magic, nlog, ncubin, digest = HEADER.unpack_from(data)
    body = data[HEADER.size:]
    if magic != MAGIC or len(body) != nlog + ncubin or hashlib.sha256(body).digest() != digest:
        return None
    try:
        log = body[:nlog].decode()
    except UnicodeDecodeError:
        return None
    return Entry(body[nlog:], log)


class CubinCache:
    """Entries on disk under `root`, at most `max_bytes` of them."""

    def __init__(self, root: Path | str, max_bytes: int | None = None) -> None:
        self.root = Path(root)
        self.max_bytes = default_bytes() if max_bytes is None else max_bytes
        self.hits = self.misses = self.corrupt = self.writes = self.evicted = 0
        self.unwritable: OSError | None = None  # why the last write failed (a read-only or full disk), if it did

    @classmethod
    def default(cls) -> "CubinCache | None":
        root = default_dir()
        return None if root is None else cls(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / (key + SUFFIX)

    def get(self, key: str) -> Entry | None:
        path = self.path(key)
        try:
            data = path.read_bytes()
        except OSError:
            self.misses += 1
            return None
        entry = unpack(data)
        if entry is None:  # truncated or overwritten: made again by the caller
            self.corrupt += 1
            self.misses += 1
            self.drop(key)
            return None
        try:
            os.utime(path)  # recently used: the last to be evicted
        except OSError:
            pass
        self.hits += 1
        return entry

    def put(self, key: str, entry: Entry) -> bool:
        """Write the entry (a temporary file renamed into place), then evict down to the bound.
        False when it was not written (bigger than the bound, or the disk refused)."""
        data = pack(entry)
        if len(data) > self.max_bytes:
            return False
        path = self.path(key)
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=SUFFIX)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
            tmp = None
        except OSError as exc:
            self.unwritable = exc
            return False
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        self.writes += 1
        self.unwritable = None
        self.evict()
        return True

    def drop(self, key: str) -> None:
        try:
            self.path(key).unlink()
        except OSError:
            pass

    def entries(self) -> list[tuple[float, int, Path]]:
        """(last use, bytes, path) of every entry; temporary files a dead writer left are removed."""
        out: list[tuple[float, int, Path]] = []
        now = time.time()
        try:
            subdirs = list(os.scandir(self.root))
        except OSError:
            return out
        for sub in subdirs:
            try:
                files = list(os.scandir(sub.path)) if sub.is_dir() else []
            except OSError:
                continue
            for f in files:
                try:
                    st = f.stat()
                except OSError:
                    continue
                if f.name.startswith(".tmp-"):
                    if now - st.st_mtime > STALE_TEMP_S:
                        try:
                            os.unlink(f.path)
                        except OSError:
                            pass
                elif f.name.endswith(SUFFIX):
                    out.append((st.st_mtime, st.st_size, Path(f.path)))
        return out

    def total_bytes(self) -> int:
        return sum(size for _, size, _ in self.entries())

    def evict(self) -> None:
        """The least recently used entries go until the rest fit in max_bytes."""
        entries = sorted(self.entries())
        total = sum(size for _, size, _ in entries)
        for _, size, path in entries:
            if total <= self.max_bytes:
                break
            try:
                path.unlink()
                self.evicted += 1
            except OSError:
                pass
            total -= size


class Writer:
    """Entries made and written on a thread of their own (an assembler run takes tens of milliseconds,
    which the line that needed the kernel does not wait for); wait() and close() join it."""

    def __init__(self, cache: CubinCache) -> None:
        self.cache = cache
        self._jobs: queue.Queue = queue.Queue()
        self._thread: threading.Thread | None = None
        self.submitted = self.failed = self.in_a_row = 0

    def submit(self, key: str, make: Callable[[], Entry | None]) -> None:
        if self.in_a_row >= GIVE_UP:  # this ptxas cannot make this GPU's cubins (or cannot run): no more tries
            return
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="tileforth-cubins", daemon=True)
            self._thread.start()
        self.submitted += 1
        self._jobs.put((key, make))

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                if job is None:
                    return
                key, make = job
                try:
                    entry = make()
                except Exception:  # noqa: BLE001 - a kernel the assembler refuses is simply not cached
                    entry = None
                if entry is None:
                    self.failed += 1
                    self.in_a_row += 1
                else:
                    self.in_a_row = 0
                    self.cache.put(key, entry)
            finally:
                self._jobs.task_done()

    def wait(self) -> None:
        """Every entry submitted so far is written (or failed)."""
        if self._thread is not None and self._thread.is_alive():
            self._jobs.join()

    def close(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            self._jobs.put(None)
            self._thread.join()
        self._thread = None
