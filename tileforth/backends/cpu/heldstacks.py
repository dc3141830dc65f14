"""The emulator's stacks at big launch shapes, between launches: every thread's depths, and cells only for
the threads that hold items (issue 27, point 4).

A small launch keeps one record of stack state per thread (state.py's layout, `m.state_bytes` each: 1,296
bytes at 128 cells and 64 floats), as a GPU would. At a million threads that is 1.3 GB, although a line
run there usually leaves nothing on the stacks, or a cell or two. A `Held` keeps instead, in one of two
forms,

    sparse  heads (threads, 2) int64    dsp, fsp of every thread (16 bytes a thread)
            who   (k,) int64, sorted    the threads whose stacks hold anything (dsp or fsp not 0)
            rows  (k, width)            their records, narrow: the depths, d cells, f floats
    dense   rows  (threads, width)      every thread's narrow record (heads is a view of its depths),
                                        when a quarter of the threads or more hold items

where d and f are the deepest stacks held, and a narrow record is laid out as state.py's, narrower:

    offset  0     8     16            16 + 8d          16 + 8d + f * float bytes (rounded up to 8)
            dsp   fsp   cells[d] i64   floats[f]

(cells and floats above a thread's depths are 0). A launch runs its threads chunk by chunk
(backend.py: CpuBackend._run_lazy) over a scratch region of full-size records, one per worker:
`stage_in` writes a chunk's depths and its cells there, the chunk runs, `stage_out` reads back what it
left as a `Piece`, and `Held.of_pieces` makes the launch's new `Held`. A `Held` is never changed once
made: a launch or a host word (`with_columns`) makes a new one, so a line's snapshot is the `Held` it
started with (no copy), and restoring it is taking it back.

The views of the stacks (state.py: StackState.partial, StackView, Snapshot) read a `Held` through
`columns`, as they read the cuda backend's device memory: byte columns of the full layout, for every
thread (the depths; the cells below the deepest stack).
"""
from __future__ import annotations

import numpy as np
from tileforth.core.compile import layout as L
from tileforth.core.compile.machine import Machine

HEAD = L.S_DS - L.S_DSP  # bytes of a record's depths (dsp, fsp)
DENSE_SHARE = 4  # a chunk or a launch in which 1/DENSE_SHARE of the threads or more hold items is kept dense


def _fo(d: int) -> int:
    """Where the floats of a narrow record of d cells start."""
    return L.S_DS + 8 * d


def _width(d: int, f: int, fb: int) -> int:
    """The bytes of a narrow record of d cells and f floats of fb bytes."""
    return -(-(_fo(d) + f * fb) // 8) * 8


def _copy(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[...] = src for two (rows, width) uint8 arrays whose rows are contiguous, a row's span as one
    item (numpy's byte-by-byte copy of a strided span costs three times as much)."""
    w = src.shape[1]
    if w == 0 or len(src) == 0:
        return
    if dst.strides[1] == 1 and src.strides[1] == 1:
        t = np.dtype((np.void, w))
        dst.view(t)[:, 0] = src.view(t)[:, 0]
    else:
        dst[...] = src


def _clear_above(rows: np.ndarray, d: int, f: int, fb: int, dsp: np.ndarray, fsp: np.ndarray) -> None:
    """Zero the cells and floats of narrow records `rows` above each thread's depths."""
    if d and not (dsp >= d).all():
        rows[:, L.S_DS:_fo(d)].view(np.int64)[np.arange(d)[None, :] >= dsp[:, None]] = 0
    if f and not (fsp >= f).all():
        rows[:, _fo(d):_fo(d) + f * fb].reshape(len(rows), f, fb)[np.arange(f)[None, :] >= fsp[:, None]] = 0


def _relayout(dst: np.ndarray, dd: int, src: np.ndarray, sd: int, sf: int, fb: int) -> None:
    """Narrow records `src` (sd cells, sf floats) into `dst` (dd >= sd cells, as many floats or more)."""
    _copy(dst[:, :_fo(sd)], src[:, :_fo(sd)])
    if sf:
        _copy(dst[:, _fo(dd):_fo(dd) + sf * fb], src[:, _fo(sd):_fo(sd) + sf * fb])


class Piece:
    """Threads [lo, lo + n) after a launch ran them (stage_out), or as they were when it did not
    (Held.piece): their depths, whether they are all 0, and the narrow records (d cells, f floats)
    of those that hold items (`who`: their thread indices), or of all n (`who` None: dense)."""

    __slots__ = ("lo", "heads", "blank", "who", "d", "f", "rows")

    def __init__(self, lo: int, heads: np.ndarray, blank: bool, who: np.ndarray | None, d: int, f: int,
                 rows: np.ndarray) -> None:
        self.lo, self.heads, self.blank, self.who, self.d, self.f, self.rows = lo, heads, blank, who, d, f, rows

    @property
    def holders(self) -> int:
        if self.who is None:
            return int(np.count_nonzero((self.heads[:, 0] != 0) | (self.heads[:, 1] != 0)))
        return len(self.who)


class Held:
    """The stacks of every thread of a launch shape (module docstring); never changed once made."""

    __slots__ = ("m", "heads", "who", "rows", "d", "f", "empty")

    def __init__(self, m: Machine, heads: np.ndarray, who: np.ndarray | None, rows: np.ndarray, d: int, f: int,
                 empty: bool = False) -> None:
        self.m, self.heads, self.who, self.rows, self.d, self.f = m, heads, who, rows, d, f
        self.empty = empty  # every stack is empty (heads all zero, maybe Held.fresh's shared zeros)

    @property
    def threads(self) -> int:
        return len(self.heads)

    @property
    def nbytes(self) -> int:
        """The memory it holds (the shared zeros of an empty one count nothing)."""
        return 0 if self.empty else self.rows.nbytes + (self.heads.nbytes if self.who is not None else 0)

    # ---- making one ----------------------------------------------------------------------
    @classmethod
    def fresh(cls, m: Machine, zeros: np.ndarray) -> "Held":
        """Empty stacks, over `zeros`, a (threads, 2) int64 array of zeros no one writes."""
        return cls(m, zeros, np.zeros(0, np.int64), np.zeros((0, HEAD), np.uint8), 0, 0, empty=True)

    @classmethod
    def of_pieces(cls, m: Machine, pieces: list[Piece], zeros: np.ndarray) -> "Held":
        """The stacks the pieces hold (they cover every thread, in order); all empty, they share `zeros`
        (Held.fresh's) and no new array is made."""
        if all(p.blank for p in pieces):
            return cls.fresh(m, zeros)
        fb, n = m.float_bytes, len(zeros)
        d, f = max(p.d for p in pieces), max(p.f for p in pieces)
        width = _width(d, f, fb)
        if any(p.who is None for p in pieces) or DENSE_SHARE * sum(p.holders for p in pieces) >= n:
            rows = np.zeros((n, width), np.uint8)  # (the heap's: a launch makes one, as the last goes)
            for p in pieces:
                c = len(p.heads)
                if p.who is None and (p.d, p.f) == (d, f):
                    rows[p.lo:p.lo + c] = p.rows  # contiguous: one copy
                elif p.who is None:
                    _relayout(rows[p.lo:p.lo + c], d, p.rows, p.d, p.f, fb)
                elif len(p.who):
                    part = np.zeros((len(p.who), width), np.uint8)
                    _relayout(part, d, p.rows, p.d, p.f, fb)
                    rows[p.who] = part
            return cls(m, rows[:, :HEAD].view(np.int64), None, rows, d, f)
        heads = np.concatenate([p.heads for p in pieces]) if len(pieces) > 1 else pieces[0].heads.copy()
        have = [(p, p.who) for p in pieces if p.who is not None and len(p.who)]
        who = np.concatenate([w for _, w in have]) if have else np.zeros(0, np.int64)
        rows = np.zeros((len(who), width), np.uint8)
        at = 0
        for p, w in have:
            _relayout(rows[at:at + len(w)], d, p.rows, p.d, p.f, fb)
            at += len(w)
        return cls(m, heads, who, rows, d, f)

    @classmethod
    def of_records(cls, m: Machine, heads: np.ndarray, who: np.ndarray, rows: np.ndarray, d: int, f: int,
                   zeros: np.ndarray) -> "Held":
        """The stacks of `heads` (every thread's) whose holders `who` have the narrow records `rows`."""
        return cls.of_pieces(m, [Piece(0, heads, not len(who), who, d, f, rows)], zeros)

    # ---- the full layout's byte columns (Backend.state_columns / set_state_columns) --------------
    def _spans(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """The parts of the full layout's bytes [start, end) that a narrow record holds: (full offset,
        narrow offset, bytes), for its depths, cells and floats."""
        m, fb = self.m, self.m.float_bytes
        out = []
        for full, narrow, size in ((0, 0, HEAD), (L.S_DS, L.S_DS, 8 * self.d), (m.s_fs, _fo(self.d), fb * self.f)):
            a, b = max(start, full), min(end, full + size)
            if a < b:
                out.append((a, a - full + narrow, b - a))
        return out

    def columns(self, start: int, width: int) -> np.ndarray:
        """Bytes [start, start+width) of every thread's record in the full layout (m's), as a
        (threads, width) uint8 array; slots above a depth read 0."""
        out = np.zeros((self.threads, max(width, 0)), np.uint8)
        for full, narrow, size in self._spans(start, start + width):
            if full < HEAD:
                _copy(out[:, full - start:full - start + size], self.heads.view(np.uint8)[:, full:full + size])
            elif self.who is None:
                _copy(out[:, full - start:full - start + size], self.rows[:, narrow:narrow + size])
            elif len(self.who):
                out[self.who, full - start:full - start + size] = self.rows[:, narrow:narrow + size]
        return out

    def with_columns(self, start: int, data: np.ndarray, zeros: np.ndarray) -> "Held":
        """A new Held whose records' bytes [start, start + data.shape[1]) are `data` ((threads, width)
        uint8, in the full layout), the rest as here; `zeros`: Held.fresh's."""
        m, fb = self.m, self.m.float_bytes
        n, width = data.shape
        if n != self.threads:
            raise ValueError(f"{n} rows of stack state for {self.threads} threads")
        end = start + width
        heads = np.ascontiguousarray(self.heads)
        if start < HEAD:
            heads = heads.copy()
            heads.view(np.uint8)[:, start:min(end, HEAD)] = data[:, :min(end, HEAD) - start]
        who = np.flatnonzero((heads[:, 0] != 0) | (heads[:, 1] != 0))
        dsp = np.clip(heads[who, 0], 0, m.ds_max)
        fsp = np.clip(heads[who, 1], 0, m.fs_max)
        d, f = (int(dsp.max()), int(fsp.max())) if len(who) else (0, 0)
        rows = np.zeros((len(who), _width(d, f, fb)), np.uint8)
        if len(who):
            mine = self._records_of(who)  # what the threads held before, in this Held's narrow layout
            if mine is not None:
                sd, sf = min(self.d, d), min(self.f, f)
                _copy(rows[:, L.S_DS:_fo(sd)], mine[:, L.S_DS:_fo(sd)])
                _copy(rows[:, _fo(d):_fo(d) + sf * fb], mine[:, _fo(self.d):_fo(self.d) + sf * fb])
            new = Held(m, heads, who, rows, d, f)  # (its layout, to find the data's spans in it)
            for full, narrow, size in new._spans(max(start, HEAD), end):
                rows[:, narrow:narrow + size] = data[who, full - start:full - start + size]
            _clear_above(rows, d, f, fb, dsp, fsp)
            rows[:, :HEAD] = heads[who].view(np.uint8)
        return Held.of_records(m, heads, who, rows, d, f, zeros)

    def _records_of(self, who: np.ndarray) -> np.ndarray | None:
        """The narrow records of threads `who` (sorted), zeros for those that hold nothing here."""
        if self.who is None:
            return self.rows[who]
        if not len(self.who):
            return None
        pos = np.minimum(np.searchsorted(self.who, who), len(self.who) - 1)
        same = self.who[pos] == who
        out = np.zeros((len(who), self.rows.shape[1]), np.uint8)
        out[same] = self.rows[pos[same]]
        return out

    # ---- a launch's chunks ----------------------------------------------------------------
    def stage_in(self, lo: int, n: int, scratch: np.ndarray) -> None:
        """Threads [lo, lo+n) into the first n records of `scratch` ((rows, m.state_bytes) uint8, the
        full layout): their depths, and the cells and floats of those that hold items."""
        m, fb, d, f = self.m, self.m.float_bytes, self.d, self.f
        if self.who is None:
            _copy(scratch[:n, :_fo(d)], self.rows[lo:lo + n, :_fo(d)])
            if f:
                _copy(scratch[:n, m.s_fs:m.s_fs + f * fb], self.rows[lo:lo + n, _fo(d):_fo(d) + f * fb])
            return
        _copy(scratch[:n, :HEAD], self.heads[lo:lo + n].view(np.uint8))
        if not len(self.who):
            return
        j0, j1 = np.searchsorted(self.who, (lo, lo + n))
        if j1 == j0:
            return
        r = self.who[j0:j1] - lo
        scratch[r, L.S_DS:_fo(d)] = self.rows[j0:j1, L.S_DS:_fo(d)]
        scratch[r, m.s_fs:m.s_fs + f * fb] = self.rows[j0:j1, _fo(d):_fo(d) + f * fb]

    def piece(self, lo: int, n: int) -> Piece:
        """Threads [lo, lo+n) as they are here (a chunk the launch did not run)."""
        if self.who is None:
            return Piece(lo, self.heads[lo:lo + n], False, None, self.d, self.f, self.rows[lo:lo + n])
        j0, j1 = np.searchsorted(self.who, (lo, lo + n)) if len(self.who) else (0, 0)
        return Piece(lo, self.heads[lo:lo + n], self.empty, self.who[j0:j1], self.d, self.f, self.rows[j0:j1])


def stage_out(m: Machine, lo: int, n: int, scratch: np.ndarray) -> Piece:
    """Threads [lo, lo+n) back from the first n records of `scratch` after their chunk ran: their
    depths, and the narrow records of those that hold items (of all n when a quarter of them or
    more do), cells above a thread's depth cleared (another thread of the chunk may have left them)."""
    fb = m.float_bytes
    h = np.empty((n, 2), np.int64)
    _copy(h.view(np.uint8), scratch[:n, :HEAD])
    if not h.any():
        return Piece(lo, h, True, np.zeros(0, np.int64), 0, 0, np.zeros((0, HEAD), np.uint8))
    holds = (h[:, 0] != 0) | (h[:, 1] != 0)
    dsp = np.clip(h[:, 0], 0, m.ds_max)
    fsp = np.clip(h[:, 1], 0, m.fs_max)
    d, f = int(dsp.max()), int(fsp.max())
    k = int(np.count_nonzero(holds))
    if DENSE_SHARE * k >= n:
        rows = np.empty((n, _width(d, f, fb)), np.uint8)
        _copy(rows[:, :_fo(d)], scratch[:n, :_fo(d)])
        if f:
            _copy(rows[:, _fo(d):_fo(d) + f * fb], scratch[:n, m.s_fs:m.s_fs + f * fb])
        rows[:, _fo(d) + f * fb:] = 0
        _clear_above(rows, d, f, fb, dsp, fsp)
        return Piece(lo, h, False, None, d, f, rows)
    nz = np.flatnonzero(holds)
    rows = np.zeros((k, _width(d, f, fb)), np.uint8)
    rows[:, :_fo(d)] = scratch[nz, :_fo(d)]
    rows[:, _fo(d):_fo(d) + f * fb] = scratch[nz, m.s_fs:m.s_fs + f * fb]
    _clear_above(rows, d, f, fb, dsp[nz], fsp[nz])
    return Piece(lo, h, False, nz + lo, d, f, rows)
