"""Files, on the host (Forth-2012 11, FILE and FILE-EXT):

    R/O R/W W/O BIN   CREATE-FILE OPEN-FILE CLOSE-FILE DELETE-FILE RENAME-FILE
    READ-FILE READ-LINE WRITE-FILE WRITE-LINE FLUSH-FILE INCLUDE-FILE
    FILE-POSITION REPOSITION-FILE FILE-SIZE RESIZE-FILE FILE-STATUS

Files live on the host and device code never touches them: each of these is a
host word, so it runs between launches (after the device code before it on
the line), takes its arguments from the stacks (the same in every thread) and
moves bytes between the file and memory with `backend.read`/`backend.write`.
A colon definition that uses one is host-level (docs/architecture.md,
"Standard Forth"), and runs on the host.

A file id is a small integer the session hands out (1, 2, 3 ... never reused
in a session, so a closed id stays invalid); the open files are a dict on the
session, `f.files` (fileid -> `OpenFile`), made here on first use. Every file
is opened unbuffered and in binary (BIN changes nothing, as on POSIX), so the
data is the bytes in memory. File names are bytes, relative to the current
directory (`~` expanded, as INCLUDED does). INCLUDED, INCLUDE, REQUIRED and
REQUIRE look for a relative name next to the file being interpreted first
(as gforth does, so that a library's files find each other), then in the
current directory.

The fam values are gforth's: R/O 0, R/W 2, W/O 4, BIN sets bit 0.

The iors (0: success) are the negative codes of Forth-2012 table 9.1:
-38 (non-existent file) when the file is not there (OPEN-FILE, DELETE-FILE,
RENAME-FILE, FILE-STATUS), -36 (invalid file position) for a position
REPOSITION-FILE cannot take, -24 (invalid numeric argument) for a length
that is negative or too large, and -37 (file I/O exception) for everything
else: a file id that is not open, a fam that is none of the above, a read of
a write-only file, a failed system call.
"""
from __future__ import annotations

import io
import itertools
import os
from typing import TYPE_CHECKING

from ...errors import ForthError
from ...front.reader import Reader, Token
from ...lazy import np
from ...records import record
from . import textin
from .table import FILE_NAME, host
from .textin import _name, interpret

if TYPE_CHECKING:
    from pathlib import Path

    from ..interpreter import Forth


IOR_NUMBER, IOR_POSITION, IOR_IO, IOR_NO_FILE = -24, -36, -37, -38  # Forth-2012 table 9.1
R_O, R_W, W_O, BIN = 0, 2, 4, 1  # gforth's values
CELL_MASK = (1 << 64) - 1
READ_CHUNK = 1 << 20  # bytes READ-FILE reads from the file at a time
MAX_IO = 1 << 31  # bytes one READ-FILE or WRITE-FILE may move (more: ior -24)
GROUP = "Files (host words)"


_HOST = "A host word: files live on the host, so a definition using it is host-level."


@record(eq=False)
class OpenFile:
    """An open file: the file object, its name and its file access method."""

    raw: io.FileIO
    name: bytes
    fam: int


class FileTable:
    """The session's open files (one per session, in `f.files`)."""

    def __init__(self) -> None:
        self.open: dict[int, OpenFile] = {}
        self.ids = itertools.count(1)

    def add(self, entry: OpenFile) -> int:
        fid = next(self.ids)
        self.open[fid] = entry
        return fid

    def close_all(self) -> None:
        """When the session closes: every file still open is closed (written out)."""
        for entry in self.open.values():
            entry.raw.close()
        self.open.clear()


def _table(f: "Forth") -> FileTable:
    """The session's open files (`Forth.files`, made when a file word first runs)."""
    if f.files is None:
        f.files = FileTable()
    return f.files


def _file(f: "Forth", fid: int) -> OpenFile | None:
    return _table(f).open.get(fid)


def _ior(exc: BaseException) -> int:
    return IOR_NO_FILE if isinstance(exc, FileNotFoundError) else IOR_IO


def _path(f: "Forth", addr: int, n: int) -> bytes:
    """A file name given as c-addr u (a leading ~ is the home folder)."""
    name = f.read_bytes(addr, n)
    _no_nul(name)
    return os.path.expanduser(name)


def _no_nul(name: bytes | str) -> None:
    """The system's file names cannot hold a NUL byte: say so, at the word that was given one."""
    if "\0" in (os.fsdecode(name) if isinstance(name, bytes) else name):
        raise ForthError(f"the file name {os.fsdecode(name)!r} holds a NUL byte, which no file name can; "
                         "build the name without CHAR 0 (or 0 C,)")


def _ud(lo: int, hi: int) -> int:
    return (lo & CELL_MASK) | ((hi & CELL_MASK) << 64)


# ---- file access methods ------------------------------------------------------------------
def _fam(value: int):
    def fn(f: "Forth", tok: Token) -> None:
        f.push_uniform(value)
    return fn


@host("BIN", "( fam1 -- fam2 )", "The binary form of a file access method (files are always binary "
      "here: the bytes are the data).", "R/O BIN . \\ 1", wordset="FILE", compiled=f"{BIN} OR", group=GROUP)
def w_bin(f: "Forth", tok: Token) -> None:
    (fam,) = f.pop_uniform(1, "BIN")
    f.push_uniform(fam | BIN)


_FLAGS = {R_O: (os.O_RDONLY, "rb"), W_O: (os.O_WRONLY, "wb"), R_W: (os.O_RDWR, "r+b")}


def _open(f: "Forth", word: str, create: bool) -> None:
    addr, n, fam = f.pop_uniform(3, word)
    flags = _FLAGS.get(fam & ~BIN)
    if flags is None or n < 0:
        f.push_uniform(0, IOR_IO)
        return
    name = _path(f, addr, n)
    os_flags = flags[0] | getattr(os, "O_BINARY", 0) | (os.O_CREAT | os.O_TRUNC if create else 0)
    try:
        fd = os.open(name, os_flags, 0o666)
        if os.path.isdir(name):
            os.close(fd)
            raise IsADirectoryError(name)
        raw = io.FileIO(fd, flags[1].replace("b", ""), closefd=True)
    except (OSError, ValueError) as exc:
        f.push_uniform(0, _ior(exc))
        return
    f.push_uniform(_table(f).add(OpenFile(raw, name, fam)), 0)


@host("CREATE-FILE", "( c-addr u fam -- fileid ior )", "Create the file named by the string (emptied if it "
      "is there) and open it. " + _HOST, 'S" out.txt" W/O CREATE-FILE THROW CLOSE-FILE THROW', wordset="FILE",
      group=GROUP)
def w_create_file(f: "Forth", tok: Token) -> None:
    _open(f, "CREATE-FILE", create=True)


@host("OPEN-FILE", "( c-addr u fam -- fileid ior )", "Open the file named by the string; ior -38 if it "
      "is not there. " + _HOST, 'S" no-such-file" R/O OPEN-FILE . DROP \\ -38', wordset="FILE", group=GROUP)
def w_open_file(f: "Forth", tok: Token) -> None:
    _open(f, "OPEN-FILE", create=False)


@host("CLOSE-FILE", "( fileid -- ior )", "Close an open file. " + _HOST, "0 CLOSE-FILE . \\ -37", wordset="FILE",
      group=GROUP)
def w_close_file(f: "Forth", tok: Token) -> None:
    (fid,) = f.pop_uniform(1, "CLOSE-FILE")
    entry = _table(f).open.pop(fid, None)
    if entry is None:
        f.push_uniform(IOR_IO)
        return
    try:
        entry.raw.close()
    except OSError as exc:
        f.push_uniform(_ior(exc))
        return
    f.push_uniform(0)


@host("DELETE-FILE", "( c-addr u -- ior )", "Delete the file named by the string. " + _HOST,
      'S" no-such-file" DELETE-FILE . \\ -38', wordset="FILE", group=GROUP)
def w_delete_file(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "DELETE-FILE")
    try:
        os.remove(_path(f, addr, n))
    except OSError as exc:
        f.push_uniform(_ior(exc))
        return
    f.push_uniform(0)


@host("RENAME-FILE", "( c-addr1 u1 c-addr2 u2 -- ior )", "Rename file 1 to name 2. " + _HOST,
      'S" old.txt" S" new.txt" RENAME-FILE DROP', wordset="FILE-EXT", group=GROUP)
def w_rename_file(f: "Forth", tok: Token) -> None:
    a1, n1, a2, n2 = f.pop_uniform(4, "RENAME-FILE")
    try:
        os.rename(_path(f, a1, n1), _path(f, a2, n2))
    except OSError as exc:
        f.push_uniform(_ior(exc))
        return
    f.push_uniform(0)


@host("FILE-STATUS", "( c-addr u -- x ior )", "Whether the named file is there (ior 0); x: the fam it "
      "can be opened with. " + _HOST, 'S" no-such-file" FILE-STATUS . DROP \\ -38', wordset="FILE-EXT", group=GROUP)
def w_file_status(f: "Forth", tok: Token) -> None:
    """x: the fam the file could be opened with (R/O, W/O or R/W), as gforth does."""
    addr, n = f.pop_uniform(2, "FILE-STATUS")
    name = _path(f, addr, n)
    if not os.path.exists(name):
        f.push_uniform(0, IOR_NO_FILE)
        return
    r, w = os.access(name, os.R_OK), os.access(name, os.W_OK)
    f.push_uniform(R_W if r and w else W_O if w else R_O, 0)


# ---- reading and writing ------------------------------------------------------------------
@host("READ-FILE", "( c-addr u1 fileid -- u2 ior )", "Read up to u1 bytes into memory; u2: how many "
      "(0 at the end of the file). " + _HOST, "PAD 10 0 READ-FILE . . \\ -37 0", wordset="FILE", group=GROUP)
def w_read_file(f: "Forth", tok: Token) -> None:
    addr, n, fid = f.pop_uniform(3, "READ-FILE")
    entry = _file(f, fid)
    if entry is None or n < 0 or n > MAX_IO:
        f.push_uniform(0, IOR_IO if entry is None else IOR_NUMBER)
        return
    if n:
        try:  # the buffer first: a bad one takes nothing from the file
            f.backend.check_span(addr, n)
        except ForthError as exc:
            raise ForthError(f"READ-FILE: the buffer (c-addr u) is not memory: {exc.message}; give it a buffer "
                             "of u bytes (e.g. HERE u ALLOT, or u ALLOCATE DROP)") from None
    done = 0
    try:
        while done < n:  # at most READ_CHUNK bytes at a time: Python allocates what one read asks for
            want = min(n - done, READ_CHUNK)
            data = entry.raw.read(want) or b""
            if data:
                f.backend.write(addr + done, np.frombuffer(data, np.uint8))
                done += len(data)
            if len(data) < want:
                break  # the end of the file (or all a pipe or terminal has now)
    except (OSError, ValueError) as exc:
        f.push_uniform(0, _ior(exc))
        return
    f.push_uniform(done, 0)


def _line(data: bytes, u1: int) -> tuple[int, int]:
    """READ-LINE on the bytes from the file position (at least u1 + 2 of them, or up to
    the end of the file): (u2, bytes to consume). A line ends at LF or CR LF; a line of
    u1 characters or more fills the buffer and leaves the terminator to the next read
    (as the standard says: when u2 = u1 the terminator has yet to be reached)."""
    j = data.find(b"\n", 0, u1 + 2)
    if j >= 0:
        end = j - 1 if j > 0 and data[j - 1] == 0x0D else j
        if end < u1:
            return end, j + 1
    u2 = min(u1, len(data))
    return u2, u2


@host("READ-LINE", "( c-addr u1 fileid -- u2 flag ior )", "Read the next line (up to u1 characters, its "
      "LF or CR LF not counted) into memory; flag false at the end of the file. " + _HOST,
      "PAD 80 0 READ-LINE . . . \\ -37 0 0", wordset="FILE", group=GROUP)
def w_read_line(f: "Forth", tok: Token) -> None:
    addr, n, fid = f.pop_uniform(3, "READ-LINE")
    entry = _file(f, fid)
    if entry is None or n < 0 or n > MAX_IO:
        f.push_uniform(0, 0, IOR_IO if entry is None else IOR_NUMBER)
        return
    raw = entry.raw
    try:
        start = raw.tell()
        data = raw.read(n + 2)
        if not data:
            f.push_uniform(0, 0, 0)  # at the end of the file: flag false
            return
        u2, used = _line(data, n)
        raw.seek(start + used)
    except (OSError, ValueError) as exc:
        f.push_uniform(0, 0, _ior(exc))
        return
    if u2:
        f.backend.write(addr, np.frombuffer(data[:u2], np.uint8))
    f.push_uniform(u2, -1, 0)


def _write(f: "Forth", word: str, end: bytes) -> None:
    addr, n, fid = f.pop_uniform(3, word)
    entry = _file(f, fid)
    if entry is None or n < 0 or n > MAX_IO:
        f.push_uniform(IOR_IO if entry is None else IOR_NUMBER)
        return
    data = f.read_bytes(addr, n) + end
    try:
        view = memoryview(data)
        while view:
            done = entry.raw.write(view)
            if not done:
                raise OSError("no progress")
            view = view[done:]
    except (OSError, ValueError) as exc:
        f.push_uniform(_ior(exc))
        return
    f.push_uniform(0)


@host("WRITE-FILE", "( c-addr u fileid -- ior )", "Write u bytes from memory to the file. " + _HOST,
      'S" data" 0 WRITE-FILE . \\ -37', wordset="FILE", group=GROUP)
def w_write_file(f: "Forth", tok: Token) -> None:
    _write(f, "WRITE-FILE", b"")


@host("WRITE-LINE", "( c-addr u fileid -- ior )", "Write the string and a line feed to the file. " + _HOST,
      'S" a line" 0 WRITE-LINE . \\ -37', wordset="FILE", group=GROUP)
def w_write_line(f: "Forth", tok: Token) -> None:
    _write(f, "WRITE-LINE", b"\n")


@host("FLUSH-FILE", "( fileid -- ior )", "Write what is buffered for the file (nothing is: files are "
      "unbuffered here). " + _HOST, "0 FLUSH-FILE . \\ -37", wordset="FILE-EXT", group=GROUP)
def w_flush_file(f: "Forth", tok: Token) -> None:
    """The files are unbuffered: FLUSH-FILE only checks the file id (and asks the system to write)."""
    (fid,) = f.pop_uniform(1, "FLUSH-FILE")
    entry = _file(f, fid)
    if entry is None:
        f.push_uniform(IOR_IO)
        return
    try:
        entry.raw.flush()
    except (OSError, ValueError) as exc:
        f.push_uniform(_ior(exc))
        return
    f.push_uniform(0)


# ---- positions and sizes (ud: two cells, the high one on top; always 0 here) --------------
@host("FILE-POSITION", "( fileid -- ud ior )", "The offset of the next byte read or written. " + _HOST,
      "0 FILE-POSITION . 2DROP \\ -37", wordset="FILE", group=GROUP)
def w_file_position(f: "Forth", tok: Token) -> None:
    (fid,) = f.pop_uniform(1, "FILE-POSITION")
    entry = _file(f, fid)
    try:
        if entry is None:
            raise OSError("not an open file id")
        pos = entry.raw.tell()
    except (OSError, ValueError) as exc:
        f.push_uniform(0, 0, _ior(exc))
        return
    f.push_uniform(pos, 0, 0)


@host("FILE-SIZE", "( fileid -- ud ior )", "The size of the file in bytes. " + _HOST, "0 FILE-SIZE . 2DROP \\ -37",
      wordset="FILE", group=GROUP)
def w_file_size(f: "Forth", tok: Token) -> None:
    (fid,) = f.pop_uniform(1, "FILE-SIZE")
    entry = _file(f, fid)
    try:
        if entry is None:
            raise OSError("not an open file id")
        size = os.fstat(entry.raw.fileno()).st_size
    except (OSError, ValueError) as exc:
        f.push_uniform(0, 0, _ior(exc))
        return
    f.push_uniform(size, 0, 0)


def _file_and_offset(f: "Forth", word: str, too_far: int) -> tuple[OpenFile, int] | None:
    """( ud fileid -- ) of REPOSITION-FILE and RESIZE-FILE: the open file and
    the offset, or None after pushing the ior (no such file, or `too_far`
    for an offset past what a file can hold)."""
    lo, hi, fid = f.pop_uniform(3, word)
    entry = _file(f, fid)
    if entry is None:
        f.push_uniform(IOR_IO)
        return None
    offset = _ud(lo, hi)
    if offset >= 1 << 63:
        f.push_uniform(too_far)
        return None
    return entry, offset


@host("REPOSITION-FILE", "( ud fileid -- ior )", "Move the file position to ud. " + _HOST,
      "0 0 0 REPOSITION-FILE . \\ -37", wordset="FILE", group=GROUP)
def w_reposition_file(f: "Forth", tok: Token) -> None:
    got = _file_and_offset(f, "REPOSITION-FILE", IOR_POSITION)
    if got is None:
        return
    entry, pos = got
    try:
        entry.raw.seek(pos)
    except (OSError, ValueError, OverflowError):
        f.push_uniform(IOR_POSITION)
        return
    f.push_uniform(0)


@host("RESIZE-FILE", "( ud fileid -- ior )", "Make the file ud bytes long (cut, or grown with zeros). " + _HOST,
      "0 0 0 RESIZE-FILE . \\ -37", wordset="FILE", group=GROUP)
def w_resize_file(f: "Forth", tok: Token) -> None:
    got = _file_and_offset(f, "RESIZE-FILE", IOR_NUMBER)
    if got is None:
        return
    entry, size = got
    try:
        os.ftruncate(entry.raw.fileno(), size)
    except (OSError, ValueError, OverflowError) as exc:
        f.push_uniform(_ior(exc))
        return
    f.push_uniform(0)


# ---- source from an open file -------------------------------------------------------------
@host("INCLUDE-FILE", "( i*x fileid -- j*x )", "Interpret the rest of the open file, then close it. " + _HOST,
      'S" lib.fth" R/O OPEN-FILE THROW INCLUDE-FILE', wordset="FILE", group=GROUP)
def w_include_file(f: "Forth", tok: Token) -> None:
    """Interpret the rest of the file (from its position), then close it."""
    (fid,) = f.pop_uniform(1, "INCLUDE-FILE")
    entry = _file(f, fid)
    if entry is None:
        raise ForthError(f"INCLUDE-FILE: {fid} is not an open file id (OPEN-FILE gives one)", code=IOR_IO)
    try:
        data = entry.raw.read()
    except (OSError, ValueError) as exc:
        raise ForthError(f"INCLUDE-FILE: cannot read {os.fsdecode(entry.name)}: {exc}", code=IOR_IO) from None
    finally:
        _table(f).open.pop(fid, None)
        entry.raw.close()
    reader = Reader(data.decode("utf-8", "replace"), os.fsdecode(entry.name))
    reader.source_id = fid  # what SOURCE-ID gives inside it (textin.py)
    textin.interpret(f, reader)


def _not_utf8(word: str, name: str, exc: UnicodeDecodeError) -> str:
    """A source file that is not UTF-8: where its first bad byte is (as the CLI says of a script)."""
    data = exc.object
    line = data.count(b"\n", 0, exc.start) + 1
    col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
    return (f"{word}: {name} is not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line}, column {col} (byte "
            f"offset {exc.start}); save the file as UTF-8")


def _include(f: "Forth", path_text: str, word: str, once: bool) -> None:
    from pathlib import Path  # imported by the first INCLUDE (import tileforth.core stays lean)

    _no_nul(path_text)
    path = Path(os.path.expanduser(path_text))
    folder = _including_folder(f)
    if not path.is_absolute() and folder is not None and (folder / path).is_file():
        path = folder / path  # next to the file that includes it first, as gforth does; else the working directory
    key = str(path.resolve())
    if once and key in f.included:
        return
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ForthError(_not_utf8(word, path_text, exc)) from None
    except OSError as exc:
        looked = "" if path.is_absolute() or folder is None else f" (looked in {folder} and the working directory)"
        raise ForthError(f"{word}: cannot read {path_text}{looked}: {getattr(exc, 'strerror', None) or exc}") from None
    f.included.add(key)
    interpret(f, Reader(text, str(path)))


def _including_folder(f: "Forth") -> "Path | None":
    """The folder of the file being interpreted (None at the prompt, in EVALUATE's string, in a block)."""
    from pathlib import Path
    name = getattr(f.reader, "name", None)
    if not name or not os.path.isfile(name):
        return None
    folder = Path(name).parent
    return None if folder == Path(".") else folder


def _string(f: "Forth", word: str) -> str:
    addr, n = f.pop_uniform(2, word)
    return f.read_bytes(addr, n).decode("utf-8", "replace")


@host("INCLUDED", "( c-addr u -- )", "Interpret the file whose name is the string; a relative name is looked for "
      "next to the file being interpreted first, then in the working directory (gforth looks next to it, then "
      "in its search path).", 'S" lib.fth" INCLUDED',
      wordset="FILE")
def w_included(f: "Forth", tok: Token) -> None:
    _include(f, _string(f, "INCLUDED"), "INCLUDED", once=False)


@host("REQUIRED", "( c-addr u -- )", "INCLUDED, unless the file was included already.", 'S" lib.fth" REQUIRED',
      wordset="FILE-EXT")
def w_required(f: "Forth", tok: Token) -> None:
    _include(f, _string(f, "REQUIRED"), "REQUIRED", once=True)


@host("INCLUDE", '( "name" -- )', "Interpret the file named next (found as INCLUDED finds it).", "INCLUDE lib.fth", wordset="FILE-EXT",
      parses=FILE_NAME)
def w_include(f: "Forth", tok: Token) -> None:
    _include(f, _name(f, tok).text, "INCLUDE", once=False)


@host("REQUIRE", '( "name" -- )', "INCLUDE, unless the file was included already.", "REQUIRE lib.fth",
      wordset="FILE-EXT", parses=FILE_NAME)
def w_require(f: "Forth", tok: Token) -> None:
    _include(f, _name(f, tok).text, "REQUIRE", once=True)


host("R/O", "( -- fam )", "The file access method read-only (0).", "R/O . \\ 0", fn=_fam(R_O), wordset="FILE",
     compiled=str(R_O), group=GROUP)
host("R/W", "( -- fam )", "The file access method read-write (2).", "R/W . \\ 2", fn=_fam(R_W), wordset="FILE",
     compiled=str(R_W), group=GROUP)
host("W/O", "( -- fam )", "The file access method write-only (4).", "W/O . \\ 4", fn=_fam(W_O), wordset="FILE",
     compiled=str(W_O), group=GROUP)
