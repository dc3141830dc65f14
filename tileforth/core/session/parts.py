"""The smaller named parts of a session, each owning its state and its snapshot.

    DataSpace   data space (HERE, BASE, STATE, PAD), shared memory, the heap, the session's own areas
    Builder     the definition being compiled: the colon, its control frames, `[ ]`, the segment
    TextInput   the text interpreter's input: readers, SOURCE/>IN, REFILL, [IF] skipping, open comments
    HostIO      files, blocks, INCLUDED files, REPLACES substitutions
    Views       what the inspection words show and how (VIEW-WARP, PROFILE, the front end's renderer)

The `Forth` façade (interpreter.py) holds one of each, with the dictionary
(wordlists.py) and the device (device.py); a failed line restores the
snapshots of those that have one and abandons the definition being built.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..heap import Heap
from ..lazy import np
from ..records import record

if TYPE_CHECKING:
    from ..errors import SourcePos
    from ..front.dictionary import Colon
    from ..front.reader import Reader
    from ..front.tree import Node
    from .device import Device

DATA_SPACE = 1 << 20
PAD_BYTES = 128
STATE_OFFSET = 8  # the STATE cell, after BASE at the start of data space


@record(frozen=True)
class DataSnapshot:
    here: int
    shared_bytes: int
    base: int


class DataSpace:
    """The session's memory on the device: data space (BASE at its start, then STATE, then
    what `,` ALLOT CREATE ... put there up to HERE), PAD, the per-block shared memory that
    SHARED: lays out, ALLOCATE's heap, and areas the session makes for itself on first use."""

    __slots__ = ("_device", "data_addr", "data_space_size", "base_addr", "state_addr", "here", "pad_addr",
                 "shared_bytes", "heap", "areas", "state_written", "_base_cell")

    def __init__(self, device: "Device") -> None:
        be = device.backend
        self._device = device  # (the device holds the backend: data space reaches memory through it)
        self.data_addr = be.alloc(DATA_SPACE)
        self.data_space_size = DATA_SPACE
        self.base_addr = self.data_addr
        self.state_addr = self.data_addr + STATE_OFFSET
        self.here = 64
        self.pad_addr = be.alloc(PAD_BYTES)  # PAD: scratch memory outside data space, as the standard wants
        self.shared_bytes = 0
        # ALLOCATE's blocks (core/heap.py); device code's ALLOCATE reaches them through the backend
        self.heap = be.heap = Heap(be)
        self.areas: dict[str, Any] = {}  # the session's own areas (HLD's, the string ring), made on first use
        self.state_written = 0  # the value of the STATE cell in data space
        # BASE itself where device memory is host memory (the cpu backend's allocation_view: every
        # number the interpreter reads asks for BASE), else None: read through the backend
        view = be.allocation_view(self.base_addr, 8)
        self._base_cell = None if view is None else view.view(np.int64)
        self.write_cell(self.base_addr, 10)

    def read_cell(self, addr: int) -> int:
        return int(self._device.backend.read(addr, 8).view(np.int64)[0])

    def write_cell(self, addr: int, value: int) -> None:
        self._device.backend.write(addr, np.array([value], np.int64))

    def base(self) -> int:
        cell = self._base_cell
        return self.read_cell(self.base_addr) if cell is None else int(cell[0])

    def write_state(self, state: int) -> None:
        """STATE as device code reads it (written only when it changes)."""
        if state != self.state_written:
            self.write_cell(self.state_addr, state)
            self.state_written = state

    def snapshot(self) -> DataSnapshot:
        return DataSnapshot(self.here, self.shared_bytes, self.base())

    def restore(self, snap: DataSnapshot) -> None:
        """HERE and SHARED:'s layout back, and BASE (a cell in device memory, which a failed
        line would otherwise keep)."""
        if self.base() != snap.base:
            self.write_cell(self.base_addr, snap.base)
        self.here, self.shared_bytes = snap.here, snap.shared_bytes


class Builder:
    """What is being built: the colon definition (None outside one), its open control
    structures, `[ ... ]` inside it, and the segment of device code the line gathers."""

    __slots__ = ("colon", "interpreting", "interp_floor", "frames", "colon_text", "colon_start", "segment",
                 "segment_uses_base")

    def __init__(self) -> None:
        self.colon: "Colon | None" = None
        self.interpreting = False  # `[` inside a definition: words run until `]`
        self.interp_floor = 0  # the definition's open control structures at `[` (paused until `]`)
        self.frames: list[Any] = []  # building.Frame: the open control structures
        self.colon_text: list[str] = []  # an open definition's lines from earlier f.evals
        self.colon_start: "tuple[Reader | None, SourcePos | None]" = (None, None)  # where `:` was read
        self.segment: list["Node"] = []
        self.segment_uses_base = False

    def abandon(self) -> None:
        """A failed line: the open definition is abandoned, as in gforth."""
        self.colon, self.frames, self.segment, self.interpreting = None, [], [], False
        self.segment_uses_base = False


@record(frozen=True)
class InputSnapshot:
    skipping: object
    comment_open: "SourcePos | None"


class TextInput:
    """Where the text interpreter reads: the reader of the source being interpreted (and of
    the source f.eval was given), SOURCE/>IN's buffer, where REFILL gets the next line, the
    false branch of an [IF] being skipped, and a `(` whose `)` is on a later line."""

    __slots__ = ("reader", "line_reader", "input", "more_input", "skipping", "comment_open")

    def __init__(self) -> None:
        self.reader: "Reader | None" = None
        self.line_reader: "Reader | None" = None
        self.input: Any = None  # textin.InputBuffer: SOURCE, >IN and WORD's memory, made when first used
        # where REFILL gets the line after the source f.eval was given (None: REFILL there is false): a
        # program that feeds a file line by line hands over its next line
        self.more_input: Callable[[], str | None] | None = None
        self.skipping: Any = None  # a false [IF] skipping words, also across lines (conditional.py)
        self.comment_open: "SourcePos | None" = None  # a `(` whose `)` is on a later line (i_paren)

    def snapshot(self) -> InputSnapshot:
        import copy
        return InputSnapshot(copy.copy(self.skipping), self.comment_open)

    def restore(self, snap: InputSnapshot) -> None:
        self.skipping, self.comment_open = snap.skipping, snap.comment_open


class HostIO:
    """The host's files and blocks: the open files (filewords.FileTable) and the block file
    (blockwords.BlockStore), each made on first use; the files INCLUDED so far; REPLACES's
    substitutions."""

    __slots__ = ("files", "blocks", "included", "substitutions")

    def __init__(self) -> None:
        self.files: Any = None
        self.blocks: Any = None
        self.included: set[str] = set()
        self.substitutions: dict[bytes, bytes] = {}  # REPLACES: name -> text, for SUBSTITUTE

    def close(self, forth: Any) -> None:
        """UPDATEd block buffers written back, the files left open closed."""
        try:
            if self.blocks is not None:
                self.blocks.close(forth)
        finally:
            if self.files is not None:
                self.files.close_all()


class Views:
    """How the session shows itself: the front end's renderer of inspection views (None:
    plain text), whether `.S` at the prompt shows every stack, the warp the tile views show
    (VIEW-WARP), the PROFILE{ … }PROFILE recorder while one is open, and the last profile."""

    __slots__ = ("display", "dot_s_shows_all", "view_warp", "profiling", "last_profile")

    def __init__(self) -> None:
        self.display: Callable[[str, object], str | None] | None = None
        self.dot_s_shows_all = False
        self.view_warp = 0
        self.profiling: Any = None
        self.last_profile: Any = None
