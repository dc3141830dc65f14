"""A typed view of the stack state buffer, the one place the host decodes it.

A backend keeps one record per thread (layout.py), `get_state()` gives them
as an array of shape (threads, m.state_bytes) uint8, and `set_state()` takes
one back; `m` is the session's Machine (machine.py), which the backend holds:

    offset  S_DSP   S_FSP   S_DS                 m.s_fs
            dsp i64 fsp i64 ds[m.ds_max] i64     fs[m.fs_max] f32 (f64 in an f64 session: m.float_dtype)

`StackState` wraps such an array with numpy views of its fields, so code
reads `st.dsp`, `st.ds[lane, :n]` or `st.top(2)` instead of byte offsets.
The views share memory with the array: writing through them changes the
buffer, which `save()` hands back to the backend.

`StackState.load` is a copy; `StackState.live` is the backend's buffer itself
where the backend keeps it in host memory (the cpu backend's `state_buffer()`),
so a host word that pops three cells at 65,536 threads copies nothing. A
line's `Snapshot` (what a failing line restores) keeps each thread's depths
and the cells below the deepest stack, not the whole buffer; the cuda backend
keeps a device copy instead (Backend.take_stacks), so nothing comes back.
`StackView` is what the views read (data_stack, the stacks shown after a
line): the depth columns, then the cells in use, column by column.

Everything here is vectorised over threads (a launch may have 65,536 of
them); nothing loops over threads in Python.  Errors are the caller's to
word: the view says *which* threads are short or differ, the host word says
what that means for it.
"""
from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Sequence

from ..buffers import zeroed
from ..lazy import np
from . import layout as L
from .machine import DEFAULT, Machine

if TYPE_CHECKING:
    from .target import Backend

# the i64 fields are read through one int64 view of each row (StackState.__init__; state_bytes is one too)
assert L.S_DSP % 8 == L.S_FSP % 8 == L.S_DS % 8 == 0


LIVE_ROOM = 16  # cells and floats a partial copy of the stacks has above the deepest (StackState.partial)
LIVE_ROOM_BYTES = 16 << 20  # at most (over all threads), else one cell and one float: at 2M threads 16 each
# would be 400 MiB, for a host word that pushes a cell or none (a push past the room widens the copy)


def _narrow(m: Machine, ds: int, fs: int) -> Machine:
    """`m` with stacks of ds cells and fs floats (at least one each: a Machine's rule)."""
    return Machine(float_bits=m.float_bits, ds_max=max(ds, 1), fs_max=max(fs, 1), out_cap=m.out_cap)


def new_buffer(threads: int, m: Machine = DEFAULT) -> np.ndarray:
    """A zeroed state buffer for `threads` threads (empty stacks)."""
    return zeroed((threads, m.state_bytes), np.uint8)


def buffer_bytes(threads: int, m: Machine = DEFAULT) -> int:
    """The size of the state buffer of `threads` threads."""
    return threads * m.state_bytes


def record_addresses(base: int, threads: int, m: Machine = DEFAULT) -> np.ndarray:
    """The address of each thread's record in a buffer that starts at `base`."""
    return base + np.arange(threads, dtype=np.int64) * m.state_bytes


def as_rows(flat: np.ndarray, threads: int, m: Machine = DEFAULT) -> np.ndarray:
    """A flat byte copy of the buffer (as read from device memory) as one row per thread."""
    return flat.reshape(threads, m.state_bytes)


class StackState:
    """The stacks of every thread of a launch, as numpy views of one state buffer.

    dsp, fsp  (threads,) int64           depths of the data and float stacks
    ds        (threads, m.ds_max) int64  data stack cells, bottom first
    fs        (threads, m.fs_max) float  float stack entries, bottom first (m.float_dtype)
    raw       (threads, m.state_bytes) uint8, the buffer itself
    m         the session's Machine, which lays the buffer out
    """

    __slots__ = ("raw", "dsp", "fsp", "ds", "fs", "m", "full")

    def __init__(self, raw: np.ndarray, m: Machine = DEFAULT, full: Machine | None = None) -> None:
        if raw.dtype != np.uint8 or raw.ndim != 2 or raw.shape[1] != m.state_bytes:
            raise ValueError(f"a state buffer is (threads, {m.state_bytes}) uint8, not {raw.shape} {raw.dtype}")
        self.m = m
        # a partial copy (StackState.live on a backend whose stacks are device memory): laid out for the
        # narrower stacks `m` (the cells in use and some room), standing for the backend's stacks of `full`
        self.full = full
        if raw.strides[1] != 1 or raw.strides[0] % 8:
            raw = np.ascontiguousarray(raw)
        self.raw = raw
        cells = raw.view(np.int64)  # the i64 fields, indexed in cells (offsets are multiples of 8)
        self.dsp = cells[:, L.S_DSP // 8]
        self.fsp = cells[:, L.S_FSP // 8]
        self.ds = cells[:, L.S_DS // 8:L.S_DS // 8 + m.ds_max]
        self.fs = raw[:, m.s_fs:m.s_fs + m.float_bytes * m.fs_max].view(m.float_dtype)

    # ---- to and from a backend ---------------------------------------------------
    @classmethod
    def load(cls, backend: "Backend") -> "StackState":
        """A copy of the backend's stacks (changes reach it only through save): the whole buffer where it is
        host memory, else a partial copy (the depths and the cells in use), not every thread's whole state
        (2M threads' on the cpu backend, which keeps a big shape's stacks lazily: 1.3 GB)."""
        if backend.state_buffer() is None and hasattr(backend, "state_columns"):
            return cls.partial(backend)
        return cls(backend.get_state(), backend.machine)

    @classmethod
    def live(cls, backend: "Backend") -> "StackState":
        """The backend's stacks to read and change now, without a copy where the
        backend keeps them in host memory (`state_buffer()`: the cpu backend);
        elsewhere a partial copy (the depths and the cells in use: `partial`). Either way `save()` makes the changes the backend's
        (a no-op for the buffer itself): write nothing before the checks that
        may refuse the change."""
        raw = backend.state_buffer()
        if raw is not None:
            return cls(raw, backend.machine)
        if not hasattr(backend, "state_columns"):  # only get_state and set_state (Backend has the rest)
            return cls(backend.get_state(), backend.machine)
        return cls.partial(backend)

    @classmethod
    def partial(cls, backend: "Backend", room: int | None = None) -> "StackState":
        """A copy of what counts of the backend's stacks: every thread's depths and the cells below the
        deepest stack (read column by column: Backend.state_columns), with `room` more cells and floats
        (zeros: slots above a depth don't count), laid out for those narrower stacks; a push past them
        widens the copy. save() writes back the depths and the cells in use."""
        m = backend.machine
        dsp, fsp = read_depths(backend)
        n = len(dsp)
        if room is None:
            room = LIVE_ROOM if n * LIVE_ROOM * (8 + m.float_bytes) <= LIVE_ROOM_BYTES else 1
        d = min(max(int(dsp.max()), 0), m.ds_max) if n else 0
        f = min(max(int(fsp.max()), 0), m.fs_max) if n else 0
        st = cls.empty(n, _narrow(m, min(m.ds_max, d + room), min(m.fs_max, f + room)))
        st.full = m
        st.dsp[:], st.fsp[:] = dsp, fsp
        if d:
            st.ds[:, :d] = backend.state_columns(L.S_DS, 8 * d).view(np.int64)
        if f:
            st.fs[:, :f] = backend.state_columns(m.s_fs, m.float_bytes * f).view(m.float_dtype)
        return st

    def ensure(self, d: int, f: int) -> None:
        """Room for d cells and f floats in every thread (a partial copy widens; the backend's own
        stacks must be that deep already: its machine's ds_max, fs_max)."""
        if d <= self.m.ds_max and f <= self.m.fs_max:
            return
        if self.full is None or d > self.full.ds_max or f > self.full.fs_max:
            raise ValueError(f"{d} cells and {f} floats do not fit stacks of {self.m.ds_max} and {self.m.fs_max}")
        wide = StackState.empty(self.threads, _narrow(self.full, max(d, self.m.ds_max), max(f, self.m.fs_max)))
        wide.raw[:, :L.S_DS + 8 * self.m.ds_max] = self.raw[:, :L.S_DS + 8 * self.m.ds_max]
        wide.fs[:, :self.m.fs_max] = self.fs
        self.raw, self.m = wide.raw, wide.m
        self.dsp, self.fsp, self.ds, self.fs = wide.dsp, wide.fsp, wide.ds, wide.fs

    def save(self, backend: "Backend") -> None:
        if backend.state_buffer() is self.raw:
            return  # a live view: the changes are already there
        if self.full is None:
            backend.set_state(self.raw)
            return
        d, f = self.depths()  # a partial copy: the depths and the cells in use go back
        backend.set_state_columns(L.S_DSP, self.raw[:, :L.S_DS + 8 * d])
        if f:
            backend.set_state_columns(self.full.s_fs, self.raw[:, self.m.s_fs:self.m.s_fs + self.m.float_bytes * f])

    @classmethod
    def empty(cls, threads: int, m: Machine = DEFAULT) -> "StackState":
        return cls(new_buffer(threads, m), m)

    @property
    def threads(self) -> int:
        return len(self.raw)

    # ---- reading --------------------------------------------------------------------
    def data(self, lane: int) -> list[int]:
        """One thread's data stack, bottom first."""
        return self.ds[lane, :self.dsp[lane]].tolist()

    def floats(self, lane: int) -> list[float]:
        """One thread's float stack, bottom first (as Python floats)."""
        return self.fs[lane, :self.fsp[lane]].tolist()

    def data_rows(self) -> list[list[int]]:
        """Every thread's data stack, bottom first."""
        return _rows(self.ds, self.dsp)

    def float_rows(self) -> list[list[float]]:
        """Every thread's float stack, bottom first."""
        return _rows(self.fs, self.fsp)

    def short(self, n: int, floats: bool = False) -> int | None:
        """The first thread with fewer than n items on the data (float) stack, or None."""
        depth = self.fsp if floats else self.dsp
        bad = np.flatnonzero(depth < n)
        return int(bad[0]) if len(bad) else None

    def top(self, n: int) -> np.ndarray:
        """The top n cells of every thread, shape (threads, n), deepest first
        (each thread must hold n: see short)."""
        d = self.dsp
        d0 = int(d[0]) if len(d) else 0
        if (d == d0).all():
            return self.ds[:, d0 - n:d0].copy()
        idx = d[:, None] - n + np.arange(n)[None, :]
        return np.take_along_axis(self.ds, idx, axis=1)

    def ftop(self) -> np.ndarray:
        """The top float of every thread, shape (threads,) (each must hold one)."""
        return self.fs[np.arange(self.threads), self.fsp - 1]

    def uniform(self) -> bool:
        """Every thread has the same data and float stacks (slots above the depth
        don't count; floats compare bit for bit)."""
        # the i64 slots from the depths to thread 0's top cell, then its floats'
        # bits: equal slots are equal depths and cells, equal bits equal floats
        head = self.raw.view(np.int64)[:, :L.S_DS // 8 + int(self.dsp[0])]
        bits = self.fs.view(self.m.float_bits_dtype)[:, :int(self.fsp[0])]
        return bool((head == head[0]).all() and (bits == bits[0]).all())

    # ---- writing (in the buffer; save() hands it back) -------------------------------
    def drop(self, n: int) -> None:
        self.dsp -= n

    def fdrop(self, n: int) -> None:
        self.fsp -= n

    def push(self, values: Sequence[int] | np.ndarray) -> None:
        """Push the same cells (already wrapped to int64) on every thread's data
        stack (each must have room: dsp + len(values) <= m.ds_max)."""
        self.ensure(self.depths()[0] + len(values), 0)
        _push_all(self.ds, self.dsp, np.asarray(values, np.int64))

    def fpush(self, values: Sequence[float]) -> None:
        """Push the same floats (rounded to the float type) on every thread's float stack
        (each must have room: fsp + len(values) <= m.fs_max)."""
        self.ensure(0, self.depths()[1] + len(values))
        _push_all(self.fs, self.fsp, np.asarray(values, self.m.float_dtype))

    def set_floats(self, values: Sequence[float]) -> None:
        """Every thread's float stack becomes exactly `values` (bottom first)."""
        self.ensure(0, len(values))
        self.fsp[:] = len(values)
        self.fs[:, :len(values)] = np.asarray(values, self.m.float_dtype)

    def broadcast(self, lane: int, threads: int) -> "StackState":
        """A new state of `threads` threads, each with the stacks of `lane`."""
        return StackState(np.broadcast_to(self.raw[lane], (threads, self.m.state_bytes)).copy(), self.m)

    def depths(self) -> tuple[int, int]:
        """The deepest data and float stacks of any thread (clipped to the stacks' size)."""
        if not self.threads:
            return 0, 0
        return (min(max(int(self.dsp.max()), 0), self.m.ds_max), min(max(int(self.fsp.max()), 0), self.m.fs_max))

    def live_spans(self, d: int, f: int) -> tuple[slice, slice]:
        """The byte columns of each record that hold the depths and `d` data cells,
        and `f` floats: all that counts in stacks no deeper than those."""
        return slice(0, L.S_DS + 8 * d), slice(self.m.s_fs, self.m.s_fs + self.m.float_bytes * f)

    def fill(self, src: "StackState", lane: int = 0) -> None:
        """Every thread's stacks become those of `src`'s thread `lane` (src may be laid out for
        another machine: stacks of another depth; they must fit in these), writing only the
        cells they use, so an empty stack writes nothing into a state that is empty already
        (a fresh launch shape)."""
        d, f = int(src.dsp[lane]), int(src.fsp[lane])
        self.ensure(d, f)
        if d == f == 0 and not (self.dsp.any() or self.fsp.any()):
            return
        self.dsp[:], self.fsp[:] = d, f
        self.ds[:, :d] = src.ds[lane, :d]
        self.fs[:, :f] = src.fs[lane, :f]


class Snapshot:
    """What a line may change of the stacks, copied before it runs, to restore when
    it fails: each thread's depths and the cells below the deepest stack (slots
    above a depth don't count), not the whole buffer: an empty stack costs 16
    bytes a thread instead of the whole state. Every line takes one, so it is read
    with few numpy calls (at 32 threads each costs more than the copy it makes)."""

    __slots__ = ("threads", "head", "floats")

    def __init__(self, st: StackState) -> None:
        self._take(st.raw, st.m)

    def _take(self, raw: np.ndarray, m: Machine) -> None:
        # one pass over the records for the depths (at 1M threads a strided pass costs ~10 ms), a second
        # only for the cells in use: the deepest stacks are read from the copy
        head = copy_columns(raw, L.S_DSP, L.S_DS - L.S_DSP).view(np.int64)  # dsp, fsp
        d, f = _deepest(head, m)
        self.threads = len(raw)
        # dsp, fsp, d cells (i64 columns)
        self.head = copy_columns(raw, L.S_DSP, L.S_DS + 8 * d).view(np.int64) if d else head
        self.floats = (raw[:, m.s_fs:m.s_fs + m.float_bytes * f].copy().view(m.float_dtype) if f
                       else np.empty((len(raw), 0), m.float_dtype))

    @classmethod
    def take(cls, backend: "Backend") -> "Snapshot":
        """A host copy (Backend.take_stacks's by default; the cuda backend keeps a device copy instead)."""
        raw = backend.state_buffer()
        if raw is None or raw.strides[1] != 1 or raw.strides[0] % 8:
            return cls(StackState.live(backend))
        snap = cls.__new__(cls)  # the buffer itself, read without StackState's views
        snap._take(raw, backend.machine)
        return snap

    def restore(self, backend: "Backend") -> None:
        """The stacks back as they were (the backend has the launch shape of then)."""
        st = StackState.live(backend)
        if st.threads != self.threads:
            raise ValueError(f"a snapshot of {self.threads} threads restored into {st.threads}")
        st.ensure(self.head.shape[1] - L.S_DS // 8, self.floats.shape[1])
        st.raw.view(np.int64)[:, :self.head.shape[1]] = self.head
        st.fs[:, :self.floats.shape[1]] = self.floats
        st.save(backend)


def _deepest(heads: np.ndarray, m: Machine) -> tuple[int, int]:
    """The deepest data and float stacks of (threads, 2) int64 depths, each clipped to the stack's size
    (one reduction, not one per column: at 32 threads a numpy call costs more than its work)."""
    if not len(heads):
        return 0, 0
    d, f = np.maximum.reduce(heads, axis=0).tolist()
    return min(max(d, 0), m.ds_max), min(max(f, 0), m.fs_max)


class StackView:
    """A read-only copy of the stacks in use, for the views (data_stack, .S, the stacks shown after a
    line): each thread's depths, then only the cells below the deepest stack, read from the backend
    column by column (Backend.state_columns), so a backend whose stacks are device memory sends back
    16 bytes a thread and the items in use, not the whole state.

    dsp, fsp  (threads,) int64; ds (threads, d) int64; fs (threads, f) float (the deepest d and f)"""

    __slots__ = ("dsp", "fsp", "ds", "fs")

    def __init__(self, dsp: np.ndarray, fsp: np.ndarray, ds: np.ndarray, fs: np.ndarray) -> None:
        self.dsp, self.fsp, self.ds, self.fs = dsp, fsp, ds, fs

    @classmethod
    def read(cls, backend: "Backend") -> "StackView":
        m = backend.machine
        heads = backend.state_columns(L.S_DSP, L.S_DS - L.S_DSP).view(np.int64)  # a copy: its columns are ours
        n = len(heads)
        d, f = _deepest(heads, m)
        ds = backend.state_columns(L.S_DS, 8 * d).view(np.int64).reshape(n, d) if d else np.zeros((n, 0), np.int64)
        fs = backend.state_columns(m.s_fs, m.float_bytes * f).view(m.float_dtype).reshape(n, f) if f else None
        return cls(heads[:, 0], heads[:, 1], ds, np.zeros((n, 0), m.float_dtype) if fs is None else fs)

    @property
    def threads(self) -> int:
        return len(self.dsp)

    def depths(self) -> tuple[int, int]:
        return self.ds.shape[1], self.fs.shape[1]

    def data(self, lane: int) -> list[int]:
        return self.ds[lane, :max(int(self.dsp[lane]), 0)].tolist()

    def floats(self, lane: int) -> list[float]:
        return self.fs[lane, :max(int(self.fsp[lane]), 0)].tolist()

    def data_rows(self) -> list[list[int]]:
        d = self.ds.shape[1]
        return _rows(self.ds, np.minimum(np.maximum(self.dsp, 0), d)) if d else _empty_rows(len(self.dsp))

    def float_rows(self) -> list[list[float]]:
        f = self.fs.shape[1]
        return _rows(self.fs, np.minimum(np.maximum(self.fsp, 0), f)) if f else _empty_rows(len(self.fsp))


def copy_columns(raw: np.ndarray, start: int, width: int) -> np.ndarray:
    """Bytes [start, start+width) of every row of a (threads, state_bytes) uint8 buffer, as a contiguous
    (threads, width) uint8 copy: each row's span is copied as one item (a void view), not byte by byte
    (the depths of 1M threads: 10 ms, against 30 ms for their two int64 columns)."""
    if width <= 0:
        return np.zeros((len(raw), 0), np.uint8)
    span = raw[:, start:start + width]
    if span.strides[1] != 1:
        return span.copy()
    item = _VOID.get(width)
    if item is None:  # (a dtype costs about what the copy of 32 threads' depths does: made once a width)
        item = _VOID[width] = np.dtype((np.void, width))
    return span.view(item).copy().view(np.uint8).reshape(len(raw), width)


_VOID: dict[int, "np.dtype"] = {}  # copy_columns' item of each width


def read_depths(backend: "Backend") -> tuple[np.ndarray, np.ndarray]:
    """Every thread's data and float depths (16 bytes a thread come back)."""
    heads = backend.state_columns(L.S_DSP, L.S_DS - L.S_DSP).view(np.int64)
    return heads[:, 0].copy(), heads[:, 1].copy()


def _push_all(items: np.ndarray, depth: np.ndarray, vals: np.ndarray) -> None:
    """Push `vals` on every thread's stack (`items` threads x capacity, `depth` per thread)."""
    k = len(vals)
    if k == 0:
        return
    d0 = int(depth[0]) if len(depth) else 0
    if (depth == d0).all():
        items[:, d0:d0 + k] = vals
    else:
        items[np.arange(len(depth))[:, None], depth[:, None] + np.arange(k)[None, :]] = vals
    depth += k


def uniform_top(backend: "Backend", n: int) -> tuple[np.ndarray, np.ndarray] | None:
    """For a host word at a big shape: the top n cells of every thread's data stack, (threads, n) deepest
    first, and the depths (threads, 2: data, float), read column by column (8n + 16 bytes a thread, not a
    copy of every stack: StackState.partial), when the backend keeps its stacks away from host memory and
    every thread holds the same n or more cells; None otherwise (StackState.live's path says why not)."""
    if backend.state_buffer() is not None or not hasattr(backend, "state_columns"):
        return None
    heads = backend.state_columns(L.S_DSP, L.S_DS - L.S_DSP).view(np.int64)
    d = int(heads[0, 0]) if len(heads) else -1
    if d < n or d > backend.machine.ds_max or not (heads[:, 0] == d).all():
        return None
    return backend.state_columns(L.S_DS + 8 * (d - n), 8 * n).view(np.int64), heads


def set_depths(backend: "Backend", heads: np.ndarray) -> None:
    """Every thread's depths (threads, 2: data, float) made the backend's; the cells stay (a drop)."""
    backend.set_state_columns(L.S_DSP, np.ascontiguousarray(heads, np.int64).view(np.uint8))


def differing(rows: np.ndarray) -> list[int]:
    """The threads whose row differs from thread 0's (rows: one per thread)."""
    ne = rows != rows[0]
    if ne.ndim > 1:
        ne = ne.reshape(len(ne), -1).any(axis=1)
    return np.flatnonzero(ne).tolist()


def differing_warps(tiles: list[list[np.ndarray]]) -> list[int]:
    """The warps whose tile stack differs from warp 0's, compared bit for bit
    (shape, type and bytes), so a tile holding a NaN agrees with itself."""
    def same(x: np.ndarray, y: np.ndarray) -> bool:
        return x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()
    return [w for w, stack in enumerate(tiles)
            if len(stack) != len(tiles[0]) or not all(same(x, y) for x, y in zip(stack, tiles[0]))]


def _empty_rows(n: int) -> list[list]:
    """n empty stacks, each a list of its own (the collector waits meanwhile, as in _rows)."""
    if n < 1024:
        return [[] for _ in range(n)]
    was = gc.isenabled()
    gc.disable()
    try:
        return [[] for _ in range(n)]
    finally:
        if was:
            gc.enable()


def _rows(items: np.ndarray, depth: np.ndarray) -> list[list]:
    """items[t, :depth[t]] for every thread t, as lists (vectorised: one tolist).
    The collector waits meanwhile: a list per thread (65,536 of them) would
    otherwise start collections that walk every object of the process, for
    lists that hold no cycles."""
    if len(depth) == 0:
        return []
    lo, hi = max(int(depth.min()), 0), max(int(depth.max()), 0)
    was = gc.isenabled()
    gc.disable()
    try:
        if lo == hi:
            return np.ascontiguousarray(items[:, :hi]).tolist()
        return [row[:k] for row, k in zip(np.ascontiguousarray(items[:, :hi]).tolist(), depth.tolist())]
    finally:
        if was:
            gc.enable()
