"""A backend's table of allocations: rows (start, end) in one int64 array that kernels read in
place (ctx[CTX_ALLOCS], ctx[CTX_N_ALLOCS] = `address`, `n`: their range check's table,
target.py's tf_addr_scan) and that the host searches by bisection.

The rows are sorted by start, with gaps: a gap is a row that copies the nearest live row to its
left ((0, 0) where there is none), so the starts never decrease and the last row whose start is
at most an address is the allocation that may hold it, gap or not (a bisection, then one probe).
An allocation is added where its start belongs: into a gap there, or by moving the live rows
between it and the nearest gap by one (a memmove of at most FAR rows); when the nearest gap is
farther, the smallest window around the place that is at most three quarters full is spread
out evenly (a packed-memory array's rebalance: blocks that keep landing in one place, as a
program's do, cost a window now and then), or, when none is, the whole table, each live row
followed by a gap, in a table twice as big. Removing one turns its row (and the gaps after it, which copied it) into
copies of the row before. So an ALLOCATE or FREE costs the same whether 10 or 100,000 blocks
are live: inserting into a dense sorted table moved up to every row (100,000 of them: 1 ms),
and rebuilding it on each change made a program's allocations quadratic in their number
(issue 25, F9). `version` counts the changes, for a backend that copies the table to the device
only when it changed.
"""
from __future__ import annotations

import ctypes

from .lazy import np

FAR = 64  # rows moved at most to reach a gap; farther, the table is spread out again
ROW = 16  # bytes of a row (start, end)


class AllocTable:
    __slots__ = ("_rows", "_starts", "_live", "_addr", "_cells", "_scells", "_ends", "n", "version")

    def __init__(self, capacity: int = 64) -> None:
        self._ends: dict[int, int] = {}  # start -> end of the live rows
        self.n = 0  # rows in use, live and gaps: what kernels search
        self.version = 0
        self._place(max(capacity, 4))

    def _place(self, capacity: int) -> None:
        """Empty arrays of `capacity` rows."""
        self._rows = np.zeros((capacity, 2), np.int64)
        self._starts = np.zeros(capacity, np.int64)  # column 0 again, contiguous, for searchsorted
        self._live = bytearray(capacity)  # 1: a live row, 0: a gap
        self._addr = self._rows.ctypes.data
        self._cells = (ctypes.c_int64 * (2 * capacity)).from_address(self._addr)  # written in place (faster
        self._scells = (ctypes.c_int64 * capacity).from_address(self._starts.ctypes.data)  # than numpy's items)

    @property
    def rows(self) -> "np.ndarray":
        """The rows kernels search, gaps included (a view: valid until the next add or remove)."""
        return self._rows[:self.n]

    def live(self) -> "np.ndarray":
        """The live rows (start, end), sorted (a copy)."""
        return self._rows[:self.n][np.frombuffer(bytes(self._live[:self.n]), np.uint8).astype(bool)]

    def __len__(self) -> int:
        return len(self._ends)

    @property
    def address(self) -> int:
        """Where the rows are (ctx[CTX_ALLOCS]): valid until the next add, which may move them."""
        return self._addr

    def _after(self, addr: int) -> int:
        """The number of rows whose start is at most addr."""
        return int(self._starts[:self.n].searchsorted(addr, "right"))

    def _set(self, i: int, start: int, end: int) -> None:
        cells = self._cells
        cells[2 * i] = start
        cells[2 * i + 1] = end
        self._scells[i] = start

    def _fill_gaps(self, i: int, start: int, end: int) -> None:
        """The gaps after row i copy (start, end), up to the next live row."""
        live, n = self._live, self.n
        j = i + 1
        while j < n and not live[j]:
            self._set(j, start, end)
            j += 1

    def _move(self, dst: int, src: int, count: int) -> None:
        """Rows src..src+count-1 to dst.. (overlapping: a memmove), starts and live flags too."""
        if count <= 0:
            return
        ctypes.memmove(self._addr + ROW * dst, self._addr + ROW * src, ROW * count)
        s = self._starts.ctypes.data
        ctypes.memmove(s + 8 * dst, s + 8 * src, 8 * count)
        self._live[dst:dst + count] = self._live[src:src + count]

    def add(self, start: int, nbytes: int) -> None:
        """The allocation [start, start+nbytes); one that starts where another does replaces it."""
        end = start + nbytes
        self.version += 1
        if start in self._ends:
            self._ends[start] = end
            i = int(self._starts[:self.n].searchsorted(start, "left"))  # the live row: its gaps follow it
            self._set(i, start, end)
            self._fill_gaps(i, start, end)
            return
        self._ends[start] = end
        for _ in range(3):  # (a gap is near after the first rebalance; the full spread below always has one)
            if self._insert(start, end):
                return
            self._rebalance(self._after(start))
        self._spread(extra=1)
        self._insert(start, end)

    def _insert(self, start: int, end: int) -> bool:
        """Put the row in, moving at most FAR rows; False when there is no gap that near."""
        i = self._after(start)  # the new row goes after rows 0..i-1
        live, n = self._live, self.n
        if i > 0 and not live[i - 1]:  # a gap just before: the row takes it
            at = i - 1
        elif i == n and n < len(live):  # past the last row
            at = n
            self.n = n + 1
        else:
            j = live.find(0, i, min(n, i + FAR))  # the nearest gap after, then before
            k = live.rfind(0, max(0, i - FAR), i) if j < 0 else -1
            if j >= 0:
                self._move(i + 1, i, j - i)
                at = i
            elif k >= 0:
                self._move(k, k + 1, i - 1 - k)
                at = i - 1
            elif n < len(live) and n - i <= FAR:
                self._move(i + 1, i, n - i)
                self.n = n + 1
                at = i
            else:
                return False
        self._set(at, start, end)
        live[at] = 1
        self._fill_gaps(at, start, end)
        return True

    def _rebalance(self, i: int) -> None:
        """Spread the live rows of the smallest window around row i that is at most three quarters
        full evenly over it (a packed-memory array's step: rows that keep landing in one place, as
        a program's blocks do, cost a window's rows now and then, not the table's); the whole table
        when no window is."""
        n, size = self.n, 2 * FAR
        while size < n:
            lo = max(0, min(i - size // 2, n - size))
            hi = lo + size
            m = self._live.count(1, lo, hi)
            if 4 * m <= 3 * size:
                break
            size *= 2
        else:
            self._spread(extra=1)
            return
        rows = self._rows[lo:hi]
        keep = rows[np.frombuffer(bytes(self._live[lo:hi]), np.uint8).astype(bool)].copy()
        at = (np.arange(m) * size) // m  # where each live row goes in the window
        owner = np.full(size, -1, np.int64)
        owner[at] = np.arange(m)
        owner = np.maximum.accumulate(owner)  # each slot: the live row at or before it
        left = self._rows[lo - 1].copy() if lo > 0 else np.zeros(2, np.int64)  # before the window's first
        vals = np.where((owner >= 0)[:, None], keep[np.maximum(owner, 0)], left)
        rows[:] = vals
        self._starts[lo:hi] = vals[:, 0]
        flags = bytearray(size)
        for p in at.tolist():
            flags[p] = 1
        self._live[lo:hi] = flags

    def _spread(self, extra: int = 0) -> None:
        """Every live row followed by a gap, in a table with room for twice as many rows again."""
        keep = self.live()
        m = len(keep)
        capacity = max(4 * (m + extra), 64)
        self._place(capacity)
        rows = self._rows
        rows[0:2 * m:2] = keep
        rows[1:2 * m:2] = keep
        self._starts[:2 * m] = rows[:2 * m, 0]
        self._live[0:2 * m:2] = b"\x01" * m
        self.n = 2 * m

    def remove(self, start: int) -> bool:
        """Forget the allocation that starts at `start`; False when there is none."""
        if self._ends.pop(start, None) is None:
            return False
        self.version += 1
        i = int(self._starts[:self.n].searchsorted(start, "left"))
        left = (int(self._rows[i - 1, 0]), int(self._rows[i - 1, 1])) if i > 0 else (0, 0)
        self._live[i] = 0
        self._set(i, *left)
        self._fill_gaps(i, *left)
        while self.n and not self._live[self.n - 1]:  # gaps at the end: kernels need not search them
            self.n -= 1
        return True

    def find(self, addr: int, nbytes: int) -> int | None:
        """The start of the allocation that holds [addr, addr+nbytes), or None."""
        i = self._after(addr) - 1
        if i < 0 or nbytes < 0:
            return None
        start, end = int(self._rows[i, 0]), int(self._rows[i, 1])
        return start if start in self._ends and addr + nbytes <= end else None
