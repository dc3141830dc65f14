"""The copies in flight of one launch context, as arrays (asynccopy.py's model; mbarriers.py's TMA boxes).

A block's threads issue their cp.async copies together, 128 or 256 at a time, and commit and wait for
them together: the table keeps every copy as a row of numpy arrays (its id, thread, block, destination,
16 bytes, site and group, -1 while not committed), so that issuing, committing and landing a block's
copies are a few numpy calls, not a Python object per copy. A Copy record is made only when one is
asked for by id (the messages, .PIPE, the end of a launch). The mapping methods are a dict's, so the
TMA model (mbarriers.py) keeps its copies here as it would in a dict of Copy records.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np
from tileforth.core.records import record

CHUNK = 16  # the bytes of one copy


@record(eq=False)
class Copy:
    id: int
    thread: int
    block: int
    dst: int  # the shared address
    data: "bytes | np.ndarray"  # the 16 bytes it lands
    site: int
    group: int | None = None  # the thread's group number, once committed


_INT_FIELDS = ("id", "thread", "block", "dst", "site", "group", "src", "nbytes")


class CopyTable:
    """Copies by id (a dict's methods), rows of arrays underneath: `live` rows are in flight."""

    # one entry per row (_alloc makes them): the _INT_FIELDS, the 16 bytes, in flight, a cp.async copy
    id: np.ndarray
    thread: np.ndarray
    block: np.ndarray
    dst: np.ndarray
    site: np.ndarray
    group: np.ndarray
    src: np.ndarray  # the global address it read (0 with nbytes 0: a TMA box's chunk, or a zero-fill)
    nbytes: np.ndarray  # the bytes it read there
    data: np.ndarray
    live: np.ndarray
    cp: np.ndarray

    def __init__(self, capacity: int = 1024) -> None:
        self.n = 0  # rows used (live or not)
        self.live_count = 0
        self._rows: dict[int, int] = {}  # id -> row, for the rows below _indexed (a dead row's entry may stay)
        self._indexed = 0  # rows up to here are in _rows: adding a block's copies is numpy only, the ids are
        # indexed at the first look-up by id after it (messages, .PIPE, the TMA model's pops)
        self._alloc(capacity)

    def _alloc(self, cap: int) -> None:
        old = {k: getattr(self, k) for k in (*_INT_FIELDS, "data", "live", "cp")} if "live" in self.__dict__ else None
        for k in _INT_FIELDS:
            setattr(self, k, np.zeros(cap, np.int64))
        self.data = np.zeros((cap, CHUNK), np.uint8)
        self.live = np.zeros(cap, np.bool_)
        self.cp = np.zeros(cap, np.bool_)  # a cp.async copy (CP.COMMIT and CP.WAIT take it), not a TMA box's
        if old is not None:
            for k, v in old.items():
                getattr(self, k)[:self.n] = v[:self.n]

    def _room(self, k: int) -> None:
        """Room for k more rows: the copies no longer in flight are dropped first when that is enough."""
        if self.n + k <= len(self.live):
            return
        if self.live_count + k <= len(self.live) // 2:
            keep = np.flatnonzero(self.live[:self.n])
            for name in (*_INT_FIELDS, "data", "live", "cp"):
                arr = getattr(self, name)
                arr[:len(keep)] = arr[keep]
            self.n = len(keep)
            self.live[self.n:] = False
            self._rows = dict(zip(self.id[:self.n].tolist(), range(self.n)))
            self._indexed = self.n
            return
        self._alloc(max(2 * len(self.live), self.n + k))

    # ---- adding -------------------------------------------------------------------------------------
    def add_many(self, ids: np.ndarray, threads: np.ndarray, block: int, dsts: np.ndarray, data: np.ndarray,
                 site: int, cp: bool = True, src: np.ndarray | None = None, nbytes: np.ndarray | None = None) -> None:
        """Copies issued together, in this order (cp: cp.async copies; src, nbytes: what each read)."""
        k = len(ids)
        self._room(k)
        s = slice(self.n, self.n + k)
        self.id[s], self.thread[s], self.block[s], self.dst[s] = ids, threads, block, dsts
        self.site[s], self.group[s], self.live[s], self.cp[s] = site, -1, True, cp
        self.data[s] = data
        self.src[s] = 0 if src is None else src
        self.nbytes[s] = 0 if nbytes is None else nbytes
        self.n += k
        self.live_count += k

    def __setitem__(self, cid: int, c: Copy) -> None:
        """Another model's copy (a TMA box's chunk): kept, but no CP.COMMIT or CP.WAIT takes it."""
        self.pop(cid, None)
        data = np.zeros(CHUNK, np.uint8)
        if len(c.data):
            data[:] = np.frombuffer(bytes(c.data), np.uint8)[:CHUNK]
        self.add_many(np.array([cid], np.int64), np.array([c.thread], np.int64), c.block,
                      np.array([c.dst], np.int64), data[None], c.site, cp=False)
        if c.group is not None:
            self.group[self.n - 1] = c.group

    # ---- reading ------------------------------------------------------------------------------------
    def row(self, cid: int) -> int | None:
        self._index()
        r = self._rows.get(cid)
        return r if r is not None and r < self.n and self.live[r] and self.id[r] == cid else None

    def _index(self) -> None:
        """The ids of the rows added since the last look-up, into _rows."""
        if self._indexed < self.n:
            self._rows.update(zip(self.id[self._indexed:self.n].tolist(), range(self._indexed, self.n)))
            self._indexed = self.n

    def record(self, r: int) -> Copy:
        g = int(self.group[r])
        return Copy(int(self.id[r]), int(self.thread[r]), int(self.block[r]), int(self.dst[r]),
                    self.data[r].tobytes(), int(self.site[r]), None if g < 0 else g)

    def __getitem__(self, cid: int) -> Copy:
        r = self.row(cid)
        if r is None:
            raise KeyError(cid)
        return self.record(r)

    def get(self, cid: int, default: Copy | None = None) -> Copy | None:
        r = self.row(cid)
        return default if r is None else self.record(r)

    def __contains__(self, cid: object) -> bool:
        return isinstance(cid, (int, np.integer)) and self.row(int(cid)) is not None

    def __len__(self) -> int:
        return self.live_count

    def __bool__(self) -> bool:
        return self.live_count > 0

    def live_rows(self) -> np.ndarray:
        return np.flatnonzero(self.live[:self.n])

    def values(self) -> list[Copy]:
        """The copies in flight, in the order they were issued."""
        return [self.record(int(r)) for r in self.live_rows()]

    def __iter__(self) -> Iterator[int]:
        return iter(self.id[self.live_rows()].tolist())

    def groups_of(self, ids: np.ndarray) -> np.ndarray:
        """The groups (-1: not committed) of the copies in flight with these ids."""
        live = self.live_rows()
        return self.group[live[np.isin(self.id[live], ids)]]

    # ---- removing -----------------------------------------------------------------------------------
    def kill(self, rows: np.ndarray) -> None:
        """The copies of these rows are no longer in flight."""
        rows = rows[self.live[rows]]
        self.live[rows] = False
        self.live_count -= len(rows)  # (their ids stay in _rows: row() reads live and id)

    def pop(self, cid: int, *default: Copy | None) -> Copy | None:
        r = self.row(cid)
        if r is None:
            if default:
                return default[0]
            raise KeyError(cid)
        c = self.record(r)
        self.kill(np.array([r], np.int64))
        return c

    def clear(self) -> None:
        self.live[:self.n] = False
        self.n = self.live_count = self._indexed = 0
        self._rows.clear()
