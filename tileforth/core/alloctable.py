"""A backend's table of allocations: rows (start, end) sorted by start, in one int64 array that
kernels read in place (ctx[CTX_ALLOCS], ctx[CTX_N_ALLOCS]: their range check's table) and that
the host searches by bisection.

An allocation is added or removed in place (the rows above it move by one, a memmove; the array
doubles when full), so an ALLOCATE or FREE costs the same whether 10 or 10,000 allocations are
live: rebuilding a sorted table on each one made a program's allocations quadratic in their
number (issue 25, F9). `version` counts the changes, for a backend that copies the table to the
device only when it changed.
"""
from __future__ import annotations

from bisect import bisect_right

from .lazy import np


class AllocTable:
    __slots__ = ("_rows", "_starts", "_ends", "n", "version")

    def __init__(self, capacity: int = 64) -> None:
        self._rows = np.zeros((max(capacity, 1), 2), np.int64)
        self._starts: list[int] = []  # the rows' starts as Python ints, for bisect
        self._ends: dict[int, int] = {}  # start -> end
        self.n = 0
        self.version = 0

    @property
    def rows(self) -> "np.ndarray":
        """The live rows (a view: valid until the next add or remove)."""
        return self._rows[:self.n]

    def __len__(self) -> int:
        return self.n

    @property
    def address(self) -> int:
        """Where the rows are (ctx[CTX_ALLOCS]): valid until the next add, which may move them."""
        return self._rows.ctypes.data

    def _index(self, addr: int) -> int:
        """The number of rows whose start is at most addr."""
        return bisect_right(self._starts, addr)

    def add(self, start: int, nbytes: int) -> None:
        """The allocation [start, start+nbytes); one that starts where another does replaces it."""
        i = self._index(start)
        if start in self._ends:
            self._rows[i - 1, 1] = self._ends[start] = start + nbytes
            self.version += 1
            return
        if self.n == len(self._rows):
            grown = np.zeros((2 * len(self._rows), 2), np.int64)
            grown[:self.n] = self._rows[:self.n]
            self._rows = grown
        rows = self._rows
        if i < self.n:
            rows[i + 1:self.n + 1] = rows[i:self.n]  # (numpy copies overlapping ranges as memmove does)
        rows[i] = (start, start + nbytes)
        self._starts.insert(i, start)
        self._ends[start] = start + nbytes
        self.n += 1
        self.version += 1

    def remove(self, start: int) -> bool:
        """Forget the allocation that starts at `start`; False when there is none."""
        if self._ends.pop(start, None) is None:
            return False
        i = self._index(start) - 1
        rows = self._rows
        rows[i:self.n - 1] = rows[i + 1:self.n]
        del self._starts[i]
        self.n -= 1
        self.version += 1
        return True

    def find(self, addr: int, nbytes: int) -> int | None:
        """The start of the allocation that holds [addr, addr+nbytes), or None."""
        i = self._index(addr) - 1
        if i < 0 or nbytes < 0:
            return None
        start = self._starts[i]
        return start if addr + nbytes <= self._ends[start] else None
