"""Blocks, on the host (Forth-2012 7, BLOCK and BLOCK-EXT, and gforth's OPEN-BLOCKS):

    BLOCK BUFFER UPDATE SAVE-BUFFERS FLUSH EMPTY-BUFFERS LOAD THRU BLK SCR LIST
    OPEN-BLOCKS

Block storage is a file, as in gforth: block u is the 1024 bytes at offset
u * 1024 of `blocks.fb` in the current directory (or the file OPEN-BLOCKS
names). Blocks are numbered from 1 (BLK 0 means the input is not a block), so
the file's first 1024 bytes are not used, and gforth reads and writes the same
files. The file is created only when a block is written; a block past its end
reads as blanks.

The buffers are memory from the backend (like ALLOCATE's and the input
buffer's), so device code reads and writes them with `C@ C!` and the rest;
BLK and SCR are cells of the same allocation. There are BUFFERS of them, each
assigned to a block or free; when all are assigned, the least recently used
goes, written back first if it was UPDATEd. The words are host words: they run
between launches, take their arguments from the stacks (the same in every
thread), and a definition that uses one is host-level (docs/architecture.md,
"Standard Forth"), so device code cannot call them.

LOAD interprets a block with a `BlockReader`: the 1024 characters are one line
of the reader, so `>IN` is an offset in the block and SOURCE is the buffer
(`BlockReader.address`); `\\` skips to the end of the 64-character
line, REFILL goes on to the next block, SAVE-INPUT saves the block number.
The session's store is `Forth.blocks`, made when a block word first runs; the
session's `close()` writes the UPDATEd buffers back and closes the file.
"""
from __future__ import annotations

import contextlib
import os
from collections import OrderedDict
from typing import TYPE_CHECKING

from ...errors import ForthError, SourcePos
from ...front.reader import Reader, Token
from ...lazy import np
from ...records import record
from ..hostbound import RAISE_BUDGET, REREAD_COST, host_steps
from . import textin
from .files import _path
from .table import host

if TYPE_CHECKING:
    from ..interpreter import Forth


BYTES = 1024  # a block
LINE = 64  # characters per line of a block (C/L): LIST shows 16 of them, `\` skips to the end of one
BUFFERS = 8  # block buffers per session
MAX_BLOCK = (1 << 21) - 1  # the last block number (a block file of at most 2 GiB, as gforth's block-limit)
DEFAULT_FILE = b"blocks.fb"
IOR_READ, IOR_WRITE, IOR_BLOCK = -33, -34, -35  # Forth-2012 table 9.1: block read / write exception, invalid block
BLANKS = b" " * BYTES
GROUP = "Blocks (host words)"


_HOST = "A host word, so a definition that uses it runs on the host."


@record(eq=False)
class Buffer:
    """A block buffer: its address, the block it holds, whether UPDATE marked it."""

    addr: int
    blk: int = 0  # the block it holds, 0: unassigned
    dirty: bool = False  # UPDATEd since it was read or written


class BlockStore:
    """The session's block file and buffers (one per session, in `f.blocks`)."""

    def __init__(self, f: "Forth") -> None:
        base = f.backend.alloc(BUFFERS * BYTES + 16)
        f.backend.write(base, np.frombuffer(BLANKS * BUFFERS + bytes(16), np.uint8))
        self.free = [Buffer(base + i * BYTES) for i in range(BUFFERS)]
        self.assigned: OrderedDict[int, Buffer] = OrderedDict()  # block -> buffer, the least recently used first
        self.current: Buffer | None = None  # what UPDATE marks: the buffer BLOCK or BUFFER gave last
        self.blk_cell = base + BUFFERS * BYTES
        self.scr_cell = self.blk_cell + 8
        self.path = DEFAULT_FILE
        self.fd: int | None = None
        self.write_error = ""  # why the last write failed
        self.read_only = False  # fd was opened for reading only (the file is not writable)

    # ---- the file ---------------------------------------------------------------------
    def _name(self) -> str:
        return os.fsdecode(self.path)

    def _open(self, create: bool) -> int | None:
        """The block file's descriptor; None when it is not there and `create` is false.
        For writing (`create`), a descriptor opened for reading only is opened again for
        writing, so that a file that cannot be written says why (not "Bad file descriptor")."""
        if create and self.read_only:
            self.close_file()
        if self.fd is None:
            try:
                self.fd = os.open(self.path, os.O_RDWR | (os.O_CREAT if create else 0), 0o666)
            except FileNotFoundError:
                if create:
                    raise
                return None
            except PermissionError:
                if create:
                    raise
                self.fd = os.open(self.path, os.O_RDONLY)
                self.read_only = True
        return self.fd

    def _read(self, blk: int) -> bytes:
        try:
            fd = self._open(create=False)
            data = os.pread(fd, BYTES, blk * BYTES) if fd is not None else b""
        except OSError as exc:
            raise ForthError(f"cannot read block {blk} from {self._name()}: {exc.strerror or exc}; check the "
                             "file (OPEN-BLOCKS chooses another)", code=IOR_READ) from None
        return data + BLANKS[len(data):]

    def _write(self, f: "Forth", buf: Buffer) -> None:
        data = f.read_bytes(buf.addr, BYTES)
        try:
            fd = self._open(create=True)
            if os.pwrite(fd, data, buf.blk * BYTES) != BYTES:
                raise OSError("short write")
        except OSError as exc:
            self.write_error = exc.strerror or str(exc)
            raise ForthError(f"cannot write block {buf.blk} to {self._name()}: {exc.strerror or exc}; the "
                             "buffer stays UPDATEd (EMPTY-BUFFERS drops it)", code=IOR_WRITE) from None
        buf.dirty = False

    def close_file(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        self.read_only = False

    # ---- buffers ------------------------------------------------------------------------
    def buffer(self, f: "Forth", blk: int, word: str, read: bool, current: bool = True) -> int:
        """The address of block `blk`'s buffer, assigned (and, with `read`, read) if it
        was not; `current`: the buffer UPDATE marks from now on."""
        check_block(blk, word)
        buf = self.assigned.get(blk)
        if buf is None:
            buf = self._assign(f, blk)
            if read:
                f.backend.write(buf.addr, np.frombuffer(self._read(blk), np.uint8))
        else:
            self.assigned.move_to_end(blk)
        if current:
            self.current = buf
        return buf.addr

    def _assign(self, f: "Forth", blk: int) -> Buffer:
        if self.free:
            buf = self.free.pop(0)
        else:
            old = next(iter(self.assigned.values()))  # the least recently used
            if old.dirty:
                self._write(f, old)
            del self.assigned[old.blk]
            buf = old
            if self.current is buf:
                self.current = None
        buf.blk, buf.dirty = blk, False
        self.assigned[blk] = buf
        return buf

    def update(self) -> None:
        if self.current is None:
            raise ForthError("UPDATE marks the block buffer BLOCK or BUFFER gave last, and there is none (FLUSH "
                             "and EMPTY-BUFFERS unassign the buffers): BLOCK the block first")
        self.current.dirty = True

    def save(self, f: "Forth") -> None:
        for buf in list(self.assigned.values()):
            if buf.dirty:
                self._write(f, buf)

    def empty(self) -> None:
        for buf in self.assigned.values():
            buf.blk, buf.dirty = 0, False
            self.free.append(buf)
        self.assigned.clear()
        self.current = None

    def flush(self, f: "Forth") -> None:
        self.save(f)
        self.empty()

    def close(self, f: "Forth") -> None:
        """At the session's end: write the UPDATEd buffers back and close the file. When
        they cannot be written (a read-only file, a full disk), they are saved in a rescue
        block file (`rescue`) and a ForthError says where and what to do; the buffers
        stay UPDATEd."""
        failure = None
        try:
            for buf in list(self.assigned.values()):  # each one that can be written is
                if buf.dirty:
                    try:
                        self._write(f, buf)
                    except ForthError as exc:
                        failure = exc
            if failure is not None:
                raise ForthError(self.rescue(f, failure), code=IOR_WRITE) from None
        finally:
            self.close_file()

    def rescue(self, f: "Forth", failure: ForthError) -> str:
        """Write the UPDATEd buffers to a new block file (the same block numbers), beside
        the block file or else in the temporary folder; the message for the user."""
        import tempfile

        dirty = sorted(blk for blk, buf in self.assigned.items() if buf.dirty)
        name = self._name()
        which = f"block{'s' * (len(dirty) != 1)} {' '.join(map(str, dirty))}"
        why = self.write_error or failure.message
        start = f"at the session's end the UPDATEd {which} could not be written to {name}"
        reasons = []
        beside = os.path.dirname(os.path.abspath(name)) if os.path.isfile(name) or not os.path.exists(name) else None
        for folder in dict.fromkeys((beside, None)):  # beside a regular file (not /dev/full), else in $TMPDIR
            try:
                fd, saved = tempfile.mkstemp(prefix=os.path.basename(name) + ".unsaved-", suffix=".fb", dir=folder)
            except OSError as exc:
                reasons.append(exc.strerror or str(exc))
                continue
            try:
                for blk in dirty:
                    data = f.read_bytes(self.assigned[blk].addr, BYTES)
                    if os.pwrite(fd, data, blk * BYTES) != BYTES:
                        raise OSError("short write")
                os.fsync(fd)
            except OSError as exc:
                reasons.append(exc.strerror or str(exc))
                os.close(fd)
                with contextlib.suppress(OSError):
                    os.unlink(saved)
                continue
            os.close(fd)
            return (f"{start} ({why}); they were saved in {saved} instead, at the same block numbers "
                    f"(S\" {saved}\" OPEN-BLOCKS {dirty[0]} BLOCK reads block {dirty[0]} back): make {name} "
                    "writable or free disk space, then copy them back")
        return (f"{start} ({why}), nor saved in a file elsewhere ({'; '.join(reasons)}): their changes are lost; "
                f"next time make {name} writable or free disk space, and FLUSH before the session ends")

    def show_blk(self, f: "Forth", blk: int) -> None:
        """BLK, as device code reads it: the block being interpreted (0: none)."""
        f.write_cell(self.blk_cell, blk)


def store(f: "Forth") -> BlockStore:
    """The session's blocks (`Forth.blocks`, made when a block word first runs)."""
    if f.blocks is None:
        f.blocks = BlockStore(f)
        f.blocks.show_blk(f, textin.block_of(getattr(f, "reader", None)))
    return f.blocks


def check_block(blk: int, word: str) -> None:
    if not 1 <= blk <= MAX_BLOCK:
        raise ForthError(f"{word}: {blk} is not a block number: blocks are numbered 1 to {MAX_BLOCK} (block 0 "
                         "does not exist here: BLK 0 means the input is not a block)", code=IOR_BLOCK)


def block_address(f: "Forth", blk: int) -> int:
    """Block `blk`'s buffer for the interpreter (LOAD, SOURCE), which leaves UPDATE's buffer as it is."""
    return store(f).buffer(f, blk, "LOAD", read=True, current=False)


class BlockReader(Reader):
    """The input while a block is interpreted: its 1024 characters as one line, so the
    reader's column is `>IN`. Positions in errors are the block's line and column."""

    def __init__(self, f: "Forth", blk: int) -> None:
        super().__init__("", f"block {blk}")
        self.blk = 0
        self.goto(f, blk, 0)

    def goto(self, f: "Forth", blk: int, col: int) -> None:
        """Interpret block `blk` from offset `col` (LOAD, REFILL, RESTORE-INPUT)."""
        text = f.read_bytes(block_address(f, blk), BYTES).decode("latin-1")
        self.lines, self.row, self.col = [text], 0, max(0, col)
        self.past_delimiter = True
        self.blk, self.name = blk, f"block {blk}"
        store(f).show_blk(f, blk)

    def address(self, f: "Forth") -> int:
        """SOURCE's address: the block's buffer, read again if it was reassigned meanwhile."""
        return block_address(f, self.blk)

    def restore(self, f: "Forth", blk: int, col: int) -> bool:
        """RESTORE-INPUT of what SAVE-INPUT saved in a block; false if `blk` is no block number."""
        if not 1 <= blk <= MAX_BLOCK:
            return False
        self.goto(f, blk, col)
        return True

    def refill(self, f: "Forth") -> bool:
        """REFILL in a block: the next block, from its start."""
        if self.blk >= MAX_BLOCK:
            return False
        self.goto(f, self.blk + 1, 0)
        return True

    def skip_line(self) -> None:
        """`\\` in a block: >IN to the next multiple of 64 (the next line of the block)."""
        line = self.lines[0]
        at = self.col + 1 if self.col < len(line) and not self.past_delimiter else self.col
        self.col = min(len(line), (at // LINE + 1) * LINE)
        self.past_delimiter = True

    def _pos(self, row: int, col: int) -> SourcePos:
        first = col - col % LINE
        return SourcePos(col // LINE + 1, col % LINE + 1, self.lines[row][first:first + LINE], self.name)


def load(f: "Forth", blk: int, word: str) -> None:
    if blk == 0:
        raise ForthError(f"{word}: block 0 cannot be loaded: BLK 0 means the input is not a block; blocks are "
                         "numbered from 1", code=IOR_BLOCK)
    check_block(blk, word)
    textin.interpret(f, BlockReader(f, blk))


# ---- the words ------------------------------------------------------------------------------
@host("BLOCK", "( u -- a-addr )", "The address of block u's 1024-byte buffer, read from the block file if "
      "no buffer holds it (blanks past the end of the file); the least recently used buffer is reassigned, "
      "written back first if UPDATEd. " + _HOST, "1 BLOCK 1 BLOCK = . \\ -1", wordset="BLOCK", group=GROUP)
def w_block(f: "Forth", tok: Token) -> None:
    (blk,) = f.pop_uniform(1, "BLOCK")
    f.push_uniform(store(f).buffer(f, blk, "BLOCK", read=True))


@host("BUFFER", "( u -- a-addr )", "As BLOCK, but a buffer newly assigned to block u is not read: its "
      "contents are left as they were. " + _HOST, "2 BUFFER 2 BLOCK = . \\ -1", wordset="BLOCK", group=GROUP)
def w_buffer(f: "Forth", tok: Token) -> None:
    (blk,) = f.pop_uniform(1, "BUFFER")
    f.push_uniform(store(f).buffer(f, blk, "BUFFER", read=False))


@host("UPDATE", "( -- )", "Mark the buffer BLOCK or BUFFER gave last as changed, so that it is written "
      "back (SAVE-BUFFERS, FLUSH, or when it is reassigned).", "1 BLOCK DROP UPDATE", wordset="BLOCK", group=GROUP)
def w_update(f: "Forth", tok: Token) -> None:
    store(f).update()


@host("SAVE-BUFFERS", "( -- )", "Write every UPDATEd buffer to the block file (created then); the buffers "
      "stay assigned.", "SAVE-BUFFERS", wordset="BLOCK", group=GROUP)
def w_save_buffers(f: "Forth", tok: Token) -> None:
    store(f).save(f)


@host("FLUSH", "( -- )", "SAVE-BUFFERS, then EMPTY-BUFFERS.", "FLUSH", wordset="BLOCK", group=GROUP)
def w_flush(f: "Forth", tok: Token) -> None:
    store(f).flush(f)


@host("EMPTY-BUFFERS", "( -- )", "Unassign every block buffer; UPDATEd ones are not written.", "EMPTY-BUFFERS",
      wordset="BLOCK-EXT", group=GROUP)
def w_empty_buffers(f: "Forth", tok: Token) -> None:
    store(f).empty()


@host("LOAD", "( i*x u -- j*x )", "Interpret block u (BLK holds u meanwhile): its 1024 characters are the "
      "input; `\\` skips to the end of a 64-character line and REFILL goes on to the next block. " + _HOST, "1 LOAD",
      wordset="BLOCK", group=GROUP)
def w_load(f: "Forth", tok: Token) -> None:
    (blk,) = f.pop_uniform(1, "LOAD")
    load(f, blk, "LOAD")


@host("THRU", "( i*x u1 u2 -- j*x )", "LOAD blocks u1 to u2 in turn. " + _HOST, "1 2 THRU", wordset="BLOCK-EXT",
      group=GROUP)
def w_thru(f: "Forth", tok: Token) -> None:
    first, last = f.pop_uniform(2, "THRU")
    limit = host_steps(f, REREAD_COST)  # each block a line read: bounded as re-reads are (hostbound.py)
    if last - first >= limit:
        raise ForthError(f"THRU: {last - first + 1} blocks are more than the {limit} loads the step budget allows "
                         f"(each counts {REREAD_COST} steps); load fewer at a time ({RAISE_BUDGET.replace('if it is not, ', 'or ')})", code=None)
    for blk in range(first, last + 1):
        load(f, blk, "THRU")


@host("BLK", "( -- a-addr )", "The cell holding the number of the block being interpreted (0 when the "
      "input is not a block).", "BLK @ . \\ 0", wordset="BLOCK", group=GROUP)
def w_blk(f: "Forth", tok: Token) -> None:
    f.push_uniform(store(f).blk_cell)


@host("SCR", "( -- a-addr )", "The cell holding the number of the block LIST showed last.", "SCR @ . \\ 0",
      wordset="BLOCK-EXT", group=GROUP)
def w_scr(f: "Forth", tok: Token) -> None:
    f.push_uniform(store(f).scr_cell)


@host("LIST", "( u -- )", "Show block u as 16 numbered lines of 64 characters (as gforth does) and store u "
      "in SCR.", "3 LIST", wordset="BLOCK-EXT", group=GROUP)
def w_list(f: "Forth", tok: Token) -> None:
    """As gforth shows a block: a heading, then 16 numbered lines of 64 characters."""
    (blk,) = f.pop_uniform(1, "LIST")
    blocks = store(f)
    addr = blocks.buffer(f, blk, "LIST", read=True)
    f.write_cell(blocks.scr_cell, blk)
    text = f.read_bytes(addr, BYTES).decode("latin-1")
    modified = "" if blocks.assigned[blk].dirty else "not "
    lines = [f"Screen {blk} {modified}modified     \n"]
    lines += [f"{i:2d} {text[i * LINE:(i + 1) * LINE]}\n" for i in range(BYTES // LINE)]
    f.print_text("".join(lines))


@host("OPEN-BLOCKS", "( c-addr u -- )", "Use the named file as the block file (gforth's word): the buffers "
      "of the file in use are written back and emptied first. The default is blocks.fb in the current "
      "directory; the file is created when a block is first written.", 'S" my.fb" OPEN-BLOCKS', wordset="gforth",
      group=GROUP)
def w_open_blocks(f: "Forth", tok: Token) -> None:
    """Write back and empty the buffers of the file in use, then use the named one."""
    addr, n = f.pop_uniform(2, "OPEN-BLOCKS")
    name = _path(f, addr, n)
    if not name:
        raise ForthError("OPEN-BLOCKS needs a file name, e.g. S\" my.fb\" OPEN-BLOCKS")
    if os.path.isdir(name):
        raise ForthError(f"OPEN-BLOCKS: {os.fsdecode(name)} is a directory; name a file")
    blocks = store(f)
    blocks.flush(f)
    blocks.close_file()
    blocks.path = os.path.abspath(name)
