"""ALLOCATE's heap: the blocks a session's program allocated, and the three operations on them
with their iors (Forth-2012 14.6.1), the one implementation both ways of running them use:

- the host words ALLOCATE FREE RESIZE (tileforth/core/session/words/memory.py: a line's own
  ALLOCATE, and every backend's that runs them only there);
- device code on a backend whose caps say `device_heap` (the cpu backend: a compiled
  definition's ALLOCATE calls the runtime helper `tf_heap`, which reaches `Heap` through the
  backend without ending the launch; tileforth/core/compile/heapgen.py).

A block is a backend allocation of its own (zeroed, its size rounded up to whole cells), so
checked accesses and the race detector see it as they see an ARRAY: an access past its end, or
into it after FREE, is an error. Each operation costs the same whatever the number of live blocks (a dict, and the
backend's allocation table, core/alloctable.py). As in gforth, `0 u RESIZE` allocates (C's
realloc of NULL); FREE or RESIZE of an address ALLOCATE did not give answers a nonzero ior
(gforth's C library aborts the process there).
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from .errors import ForthError

if TYPE_CHECKING:
    from .compile.target import Backend

IOR_ALLOCATE, IOR_FREE, IOR_RESIZE = -59, -60, -61  # Forth-2012 table 9.1
HEAP_MAX = 1 << 34  # bytes one ALLOCATE may ask for before it answers with an ior
CELL = 8


def extent(n: int) -> int:
    """The bytes a block of n has (what checked accesses allow): n rounded up to whole cells, as C's
    malloc rounds; programs rely on it (FFL's tree nodes store a cell into their last, one-char field)."""
    return max(-(-n // CELL) * CELL, CELL)


class Heap:
    """The live blocks (address -> size) over a backend's memory."""

    __slots__ = ("backend", "blocks")

    def __init__(self, backend: "Backend") -> None:
        # a proxy: the backend holds its heap (Backend.heap), and a cycle would keep a closed
        # session's device memory until a second garbage collection
        self.backend = weakref.proxy(backend)
        self.blocks: dict[int, int] = {}

    def __contains__(self, addr: int) -> bool:
        return addr in self.blocks

    def __len__(self) -> int:
        return len(self.blocks)

    def _new(self, n: int) -> int | None:
        if n < 0 or n > HEAP_MAX:
            return None
        try:
            addr = self.backend.alloc(extent(n))  # zeroed, on every backend
        except (MemoryError, ForthError):
            return None
        self.blocks[addr] = n
        return addr

    def allocate(self, n: int) -> tuple[int, int]:
        """ALLOCATE ( u -- a-addr ior )."""
        addr = self._new(n)
        return (0, IOR_ALLOCATE) if addr is None else (addr, 0)

    def free(self, addr: int) -> int:
        """FREE ( a-addr -- ior )."""
        if self.blocks.pop(addr, None) is None:
            return IOR_FREE
        self.backend.free(addr)
        return 0

    def resize(self, addr: int, n: int) -> tuple[int, int]:
        """RESIZE ( a-addr1 u -- a-addr2 ior ): a new block with the old one's first min(old, u)
        bytes; the old one stays (and a-addr2 is a-addr1) when the new one cannot be had."""
        if addr == 0:  # gforth: realloc(NULL, u) allocates
            new = self._new(n)
            return (0, IOR_RESIZE) if new is None else (new, 0)
        old = self.blocks.get(addr)
        if old is None:
            return addr, IOR_RESIZE
        new = self._new(n)
        if new is None:
            return addr, IOR_RESIZE
        keep = min(extent(old), extent(n))  # (what the old block's last cell held beyond old, too)
        if keep:
            be = self.backend
            view = be.allocation_view(new, keep)
            data = be.read(addr, keep)
            if view is not None:  # device memory is host memory: no second copy
                view[:] = data
            else:
                be.write(new, data)
        del self.blocks[addr]
        self.backend.free(addr)
        return new, 0
