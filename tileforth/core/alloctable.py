"""A backend's table of allocations: rows (start, end) sorted by start, in one int64 array that
kernels read in place (ctx[CTX_ALLOCS], ctx[CTX_N_ALLOCS]: their range check's table) and that
the host searches by bisection.

An allocation is added or removed in place (the rows above it move by one, a memmove; the array
doubles when full): a bisection and a memmove of the rows above: nothing to move where the new row
lands last (blocks mostly come in address order), about 10 µs at 10,000 live rows and 100 µs at
100,000 where it lands first; rebuilding a sorted table on each one made a program's allocations
quadratic in their number (issue 25, F9). `version` counts the changes, for a backend that copies the table to the
device only when it changed.
"""
from __future__ import annotations

import ctypes
from bisect import bisect_right

from .lazy import np


class AllocTable:
    __slots__ = ("_rows", "_cells", "_addr", "_starts", "_ends", "n", "version")

    def __init__(self, capacity: int = 64) -> None:
        self._starts: list[int] = []  # the rows' starts as Python ints, for bisect
        self._ends: dict[int, int] = {}  # start -> end
        self.n = 0
        self.version = 0
        self._place(np.zeros((max(capacity, 1), 2), np.int64))

    def _place(self, rows: "np.ndarray") -> None:
        self._rows = rows
        self._addr = rows.ctypes.data
        self._cells = (ctypes.c_int64 * rows.size).from_address(self._addr)  # the rows' cells, written in place

    @property
    def rows(self) -> "np.ndarray":
        """The live rows (a view: valid until the next add or remove)."""
        return self._rows[:self.n]

    def __len__(self) -> int:
        return self.n

    @property
    def address(self) -> int:
        """Where the rows are (ctx[CTX_ALLOCS]): valid until the next add, which may move them."""
        return self._addr

    def _index(self, addr: int) -> int:
        """The number of rows whose start is at most addr."""
        return bisect_right(self._starts, addr)

    def add(self, start: int, nbytes: int) -> None:
        """The allocation [start, start+nbytes); one that starts where another does replaces it."""
        i = self._index(start)
        if start in self._ends:
            self._cells[2 * i - 1] = self._ends[start] = start + nbytes
            self.version += 1
            return
        n = self.n
        if n == len(self._rows):
            grown = np.zeros((2 * len(self._rows), 2), np.int64)
            grown[:n] = self._rows[:n]
            self._place(grown)
        if i < n:  # the rows above move up by one (a memmove: numpy copies overlapping slices through a buffer)
            ctypes.memmove(self._addr + 16 * (i + 1), self._addr + 16 * i, 16 * (n - i))
        cells = self._cells
        cells[2 * i] = start
        cells[2 * i + 1] = start + nbytes
        self._starts.insert(i, start)
        self._ends[start] = start + nbytes
        self.n = n + 1
        self.version += 1

    def remove(self, start: int) -> bool:
        """Forget the allocation that starts at `start`; False when there is none."""
        if self._ends.pop(start, None) is None:
            return False
        i = self._index(start) - 1
        n = self.n
        if i < n - 1:
            ctypes.memmove(self._addr + 16 * i, self._addr + 16 * (i + 1), 16 * (n - 1 - i))
        del self._starts[i]
        self.n = n - 1
        self.version += 1
        return True

    def find(self, addr: int, nbytes: int) -> int | None:
        """The start of the allocation that holds [addr, addr+nbytes), or None."""
        i = self._index(addr) - 1
        if i < 0 or nbytes < 0:
            return None
        start = self._starts[i]
        return start if addr + nbytes <= self._ends[start] else None
