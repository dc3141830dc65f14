"""Warp-collective operations on the emulator: tile operations, shuffles and votes.

When every thread of a block is parked (at a barrier, a warp op, or done),
the scheduler returns to the host. For each warp whose 32 lanes all wait at
the same tile operation with the same operands, the operation runs here once,
on the warp's tile stack: a list of logical matrices (numpy), bottom first.
Anything else is a divergent warp and becomes a ForthError naming the lanes.

Numerics follow PTX's guarantees: a and b hold exact f16/bf16 values, the
products are exact and the sum of one TMMA is rounded once to the
accumulator type (computed in float64, then rounded).

The race detector sees tile loads and stores too (when the launch checks for
races): each line of the tile is one access, by the warp's first lane, through
tf_race_many (races.py), before the memory is read or written. A tile op is one
access of its warp: its lanes never race with each other, but a scalar access of
another lane of the warp does, without a SYNCWARP between, as in CUDA. A race
is recorded in the context as tf_race records it (_Raced here), and the launch
ends with it.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import struct
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np
from tileforth.core.compile import layout as L
from tileforth.core.compile.codegen import DEBUG
from tileforth.core.compile.tilegen import CheckedLoad, CheckedStore
from tileforth.core.compile.tileops import (Add, Copy, Fill, LaneGet, LanePut, LdMatrix, Load, Mma, Perm, Scale,
                                             StMatrix, Store, TileOp, Zero, lane_chunk)
from tileforth.core.compile.tiles import ACC_TYPES, IN_TYPES, MMA_ELEMS, WARP, Tile, elem_bytes, mma_coords
from tileforth.core.compile.tileops import Shuffle, SyncWarp, Vote, WarpOp
from tileforth.core.compile.mbarrier import HopperOp
from tileforth.core.compile.smem import CHUNK, AsyncOp
from tileforth.core.compile.wgmma import WgLaneGet, WgLanePut, WgOp
from tileforth.core.errors import ForthError
from tileforth.core.compile.eltypes import BY_NAME, ELTYPES
from tileforth.core.errors import ranges

from . import mbarriers, wgmma
from .races import READ, STORE_VALUE, WRITE
from .scheduler import RUN_DIVERGENT

if TYPE_CHECKING:
    from tileforth.core.compile.codegen import Sites

# the cpu backend (backend.py), whose launches call this module: named, not imported (it imports this)
CpuBackend = Any

# what one warp op costs the launch's step pool (ctx[CTX_STEPS_USED]), in loop iterations: a round
# trip to the host takes about as long as a few thousand iterations of compiled code, so a runaway
# loop of tile ops stops, with the default budget, as soon as a runaway loop of arithmetic does
WARP_OP_STEPS = 1024
# the most bytes a tile's lines may span (far beyond any allocation; below where int64 arithmetic wraps)
SPAN_MAX = 1 << 48


def _mem_dtype(tile_type: str) -> np.dtype:
    """A tile's element type in memory ("f16", "bf16", "f32") as its numpy dtype, from the element-type
    table: ml_dtypes (about a second to import on a small machine) is loaded at the first bf16 tile."""
    return BY_NAME[tile_type.upper()].dtype


_ACC_DTYPE = {"f32": np.float32, "f16": np.float16}


_NO_LOCK = contextlib.nullcontext()


class _Raced(Exception):
    """A tile load or store raced: tf_race recorded it in the context (the launch's error record)."""


def _f32(bits: int) -> np.float32:
    return np.float32(struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0])


def _mask(lanes: np.ndarray) -> int:
    """Bit i set for each true lanes[i]: a 32-bit lane mask, as a nonnegative cell."""
    return int(np.sum(np.left_shift(1, np.flatnonzero(lanes), dtype=np.int64)))


_LANES = np.arange(WARP)  # a warp's lane numbers
_ROW16 = Tile("acc", (1, 8, 16), "f16")  # one 16-byte row of ldmatrix or stmatrix, for the copy model and the race detector
_BITS = np.left_shift(1, _LANES, dtype=np.int64)  # lane i's bit in a mask


def _shuffle_sources(mode: str, b: np.ndarray, lane: np.ndarray) -> np.ndarray:
    """The lane each lane reads (PTX's shfl.sync with a width of 32: b's low 5 bits; up and down
    read their own lane when the source is outside the warp); lane: the lanes' numbers, which b
    broadcasts against (one warp's lanes, or warps × 32)."""
    bval = b & 31
    src = {"idx": bval, "up": lane - bval, "down": lane + bval, "xor": lane ^ bval}[mode]
    return np.where((src >= 0) & (src < WARP), src, lane)


def _votes(mode: str, flags: np.ndarray) -> np.ndarray:
    """Each warp's result of a vote on its lanes' flags (warps × lanes, booleans): BALLOT's mask
    (bit i for lane i, nonnegative), ANY's and ALL's Forth flag."""
    if mode == "ballot":
        return np.where(flags, _BITS[:flags.shape[1]], 0).sum(axis=1)
    return -(flags.any(axis=1) if mode == "any" else flags.all(axis=1)).astype(np.int64)


def _lanes(ids: list[int]) -> str:
    return f"lane {ids[0]}" if len(ids) == 1 else f"lanes {ranges(ids)}"


def _put(stack: list[np.ndarray], pos: int, value: np.ndarray) -> None:
    del stack[pos:]
    stack.append(value)


@functools.cache
def _frag_coords(kind: str) -> tuple["np.ndarray", "np.ndarray"]:
    """(rows, cols) of every (lane, element) of a kind's MMA_SYNC fragment, lane-major (mma_coords for all)."""
    rc = np.array([mma_coords(kind, lane, e) for lane in range(WARP) for e in range(MMA_ELEMS[kind])]).T
    return rc[0], rc[1]


@functools.cache
def _ldmatrix_map(kind: str) -> tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
    """Where ldmatrix takes each (lane, element) of a kind's fragment from, in the 8x8 matrices the rows
    form ((matrix, row, col) index arrays, lane-major as _frag_coords): register j of lane L holds elements
    (L/4, 2(L%4)) and (L/4, 2(L%4)+1) of matrix j (b: .trans, the transposed places; bcol, b from an
    n-major tile: .x2 without .trans, a's places), and register j is fragment elements 2j and 2j+1."""
    src = [(e >> 1, 2 * (lane & 3) + (e & 1), lane >> 2) if kind == "b" else (e >> 1, lane >> 2, 2 * (lane & 3) + (e & 1))
           for lane in range(WARP) for e in range(MMA_ELEMS["b" if kind == "bcol" else kind])]
    s = np.array(src).T
    return s[0], s[1], s[2]


@functools.cache
def _lane_offsets(kind: str, grid: tuple[int, int], frag: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(row, chunk) of the row each addressing lane of each fragment of a grid gives to ldmatrix, from
    the block's first row and chunk (lane_chunk, each fragment frag's rows and columns further on),
    fragment-major as _lane_addresses takes them: one ldmatrix per fragment."""
    fr, fc = frag
    lanes = 32 if kind == "a" else 16
    rc = [(bj * fc + r, bi * fr // 8 + c) if kind == "bcol" else (bi * fr + r, bj * fc // 8 + c)
          for bi in range(grid[0]) for bj in range(grid[1]) for r, c in (lane_chunk(lane, kind) for lane in range(lanes))]
    a = np.array(rc, np.int64).T
    return a[0], a[1]


LDSM_ROWS_KEPT = 4096  # the batched ldmatrix row addresses kept (_LDSM_ROWS), by op and operands
_LDSM_ROWS: dict[tuple, tuple] = {}


def _ldmatrix_rows(op: LdMatrix, ops: np.ndarray) -> tuple:
    """_ldmatrix_plan's addresses of the rows (read-only), the first one and the bytes from it to the end of
    the last, and where each warp's matrix is in the elements from the first row on (_ldmatrix_batch's
    gather), from the warps' operands (saddr row col geom); (None, 0, 0, None) when a warp's fail its checks."""
    saddr, row, col, geom = (ops[:, i] for i in range(4))
    t = op.tile
    rows_n, chunks, swz = geom & 0xFFFF, (geom >> 16) & 0xFFFF, (geom >> 32) & 1
    brows, bcols = t.rows_cols[::-1] if op.n_major else t.rows_cols
    if ((geom >> 33 != 0) | (rows_n == 0) | (chunks == 0) | (col % 8 != 0) | (row < 0) | (col < 0)
            | (row + brows > rows_n) | (col // 8 + bcols // 8 > chunks) | (saddr % 16 != 0)).any():
        return None, 0, 0, None
    dr, dc = _lane_offsets(op.lanes_kind, t.grid, t.frag_shape)
    r = row[:, None] + dr
    ch = col[:, None] // 8 + dc
    ch = np.where(swz[:, None] == 1, ch ^ (r & 7), ch)
    addrs = saddr[:, None] + (r * chunks[:, None] + ch) * 16
    addrs.flags.writeable = False
    first = int(addrs.min())
    gather = ((addrs - first) >> 4)[:, _ldmatrix_rows_of(op)] * 8 + _ldmatrix_cols_of(op)
    gather.flags.writeable = False
    return addrs, first, int(addrs.max()) + 16 - first, gather


@functools.cache
def _ldmatrix_places(kind: str, lanes_kind: str, grid: tuple[int, int], frag: tuple[int, int],
                     rows_cols: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """For every element of a grid's logical matrix, row-major: the row (of the warp's rows, fragment-major
    as _lane_offsets orders them) ldmatrix takes it from and its element in that 16-byte row -- _frag_places
    and _ldmatrix_map composed and inverted, so a warp's whole matrix is one gather."""
    rr, cc = _frag_places(kind, grid, frag)
    mi, ri, ci = _ldmatrix_map(lanes_kind)
    frags = grid[0] * grid[1]
    per = len(mi)  # elements of one fragment (lane-major)
    rows_per = 8 * (int(mi.max()) + 1)  # the rows of one fragment: 8 per matrix
    f = np.repeat(np.arange(frags), per)
    src_row = f * rows_per + np.tile(mi * 8 + ri, frags)
    src_col = np.tile(ci, frags)
    inv = np.argsort(rr * rows_cols[1] + cc, kind="stable")
    assert len(inv) == rows_cols[0] * rows_cols[1], "a fragment grid covers its matrix once"
    return src_row[inv], src_col[inv]


def _ldmatrix_rows_of(op: LdMatrix) -> np.ndarray:
    t = op.tile
    return _ldmatrix_places(t.kind, op.lanes_kind, t.grid, t.frag_shape, t.rows_cols)[0]


def _ldmatrix_cols_of(op: LdMatrix) -> np.ndarray:
    t = op.tile
    return _ldmatrix_places(t.kind, op.lanes_kind, t.grid, t.frag_shape, t.rows_cols)[1]


@functools.cache
def _frag_places(kind: str, grid: tuple[int, int], frag: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) in a grid's logical matrix of every (fragment, lane, element), fragment-major, each
    fragment's as _frag_coords orders them."""
    fr, fc = frag
    r0, c0 = _frag_coords(kind)
    rr = [r0 + bi * fr for bi in range(grid[0]) for _ in range(grid[1])]
    cc = [c0 + bj * fc for _ in range(grid[0]) for bj in range(grid[1])]
    return np.concatenate(rr), np.concatenate(cc)


# a debug launch's WarpOps by the address of their context: the newest of each (debugstate.py reads a
# stopped warp's tiles there, batched stacks included)
LIVE: "weakref.WeakValueDictionary[int, WarpOps]" = weakref.WeakValueDictionary()


class WarpOps:
    def __init__(self, backend: "CpuBackend", sites: "Sites", ctx: "np.ndarray | None" = None) -> None:
        self.be = backend
        self.sites = sites
        self.ctx = backend.ctx if ctx is None else ctx  # the context of the worker running the block
        # warps that go through tile ops together keep their tile stacks as batched arrays (position ->
        # (warps, rows, cols)) between launch steps: key (their global warp indices) -> (warps, stack);
        # flush() writes them back to the backend's tile_data, one list of matrices per warp
        self._stacks: dict[bytes, tuple[np.ndarray, list[np.ndarray]]] = {}
        self._where: dict[int, bytes] = {}  # global warp -> the key of the batched stack that holds it
        self._windows: dict[tuple, np.ndarray] = {}  # (allocation, element type, line length) -> its lines
        self._every: dict[int, np.ndarray] = {}  # n -> arange(n)
        self._pointers: tuple[int, int] | None = None  # the addresses of ctx and the thread records (_addresses)
        if DEBUG.on:  # a debug launch: its stops read the warps' tiles through the context (warp_tiles)
            LIVE[int(self.ctx.ctypes.data)] = self

    def warp_tiles(self, g: int) -> list[np.ndarray]:
        """Global warp g's tile stack now, bottom first (copies): from its batched stack when it has one."""
        key = self._where.get(g)
        if key is None:
            return [t.copy() for t in self.be.tile_data[g]]
        gws, stack = self._stacks[key]
        i = int(np.flatnonzero(gws == g)[0])
        return [np.array(x[i], np.float32 if x.dtype == np.float64 else x.dtype) for x in stack]

    def error(self, site: int, message: str, word: str | None = None) -> ForthError:
        name, pos = self.sites.entries[site] if 0 <= site < len(self.sites.entries) else ("", None)
        where = f" in {name}" if name and name != "<line>" else ""
        return ForthError(message.replace("{where}", where), pos, word)

    def run_block(self, block: int, keep: bool = False) -> None:
        """Perform every warp op the block's warps are waiting at. keep: the batched tile stacks stay
        batched for the block's next step (the caller flushes once the block is done, as run_together does
        once its blocks are: restacking a 4x8 grid's tiles every step cost more than the ops); a failure
        flushes them all the same."""
        failed = self.run_blocks(block, block + 1)
        if not keep or failed is not None:
            self.flush()
        if failed is not None and failed[1] is not None:
            raise failed[1]  # a race is in the context's error record

    def run_blocks(self, lo: int, hi: int, live: np.ndarray | None = None) -> tuple[int, ForthError] | None:
        """Perform every warp op the warps of blocks lo..hi-1 (those with a true `live`, one flag
        per block; default all) wait at: batched, one numpy call per op for all the warps at it,
        when every waiting warp is whole, converged at one tile op with uniform operands and its
        memory checks pass; else warp by warp in block order, as far as the first error. The
        block and its error, (block, None) for a race (recorded in the context), or None."""
        with self.be.warp_steps if self.ctx[L.CTX_RACE_GEN] else _NO_LOCK:  # (CpuBackend.warp_steps)
            try:
                if self._batched(lo, hi, live):
                    return None
            except ForthError as exc:  # a copy-model op of one block (_loose_batched), as warp by warp words it
                return lo, exc
            self.flush()
            for b in range(lo, hi):
                if live is None or live[b - lo]:
                    try:
                        self._run_block_slow(b)
                    except ForthError as exc:
                        return b, exc
                    except _Raced:
                        return b, None
        return None

    def _run_block_slow(self, block: int) -> None:
        """run_block warp by warp: the reference, and the path that finds and words every error."""
        be = self.be
        bs = be.block_size
        rows = be.thr[block * bs:(block + 1) * bs]
        status, site = rows[:, L.T_STATUS], rows[:, L.T_SITE]
        for w in range(0, bs, WARP):
            lanes = slice(w, min(w + WARP, bs))
            st = status[lanes]
            waiting = st == L.ST_WARP
            if not waiting.any():
                continue
            gw = block * be.warps_per_block + w // WARP
            if self._loose_ops(rows[lanes], waiting, gw, block * bs + w):
                continue  # ACTIVEMASK went first: the lanes it released may yet join the others
            first = int(site[lanes][np.argmax(waiting)])
            op = self.sites.info[first]
            if isinstance(op, WarpOp):
                self._warp_op(op, first, block, w, rows[lanes])
                continue
            if st.size < WARP:
                raise self.error(first, f"tile operations need whole warps of 32 threads, but warp {w // WARP} "
                                        f"of the block has {st.size}: make the block size a multiple of 32")
            same = waiting & (site[lanes] == first)
            if not same.all():
                raise self._divergence(first, block, w, st, site[lanes])
            ops = rows[lanes, L.T_OP:L.T_OP + op.operands]
            bad = np.flatnonzero((ops != ops[0]).any(axis=1))
            if bad.size:
                raise self.error(first, f"the lanes of warp {gw} disagree on the operands of a tile operation"
                                        "{where}: " + f"lanes {ranges((bad + w).tolist())} differ from lane {w} "
                                        "(every lane must pass the same address, stride and value)")
            self.perform(op, [int(x) for x in ops[0]] if len(ops) else [], be.tile_data[gw], first,
                         block * bs + w)
            status[lanes] = L.ST_RUN
            self.ctx[L.CTX_STEPS_USED] += WARP_OP_STEPS

    # ---- batched: every warp of a launch step at once ---------------------------
    def _batched(self, lo: int, hi: int, live: np.ndarray | None) -> bool:
        """Perform the waiting warps' tile ops batched, when nothing can go wrong: every waiting warp
        whole and converged at a tile op, its lanes' operands uniform, its loads and stores aligned,
        in bounds and of their arrays' types; or every lane of the step at one shuffle, vote or
        SYNCWARP (_warp_ops). All checks come before anything changes, so False (not batched)
        leaves everything as it was for the warp-by-warp path, which words the error."""
        be = self.be
        bs = be.block_size
        if bs % WARP:
            return False
        rows = be.thr[lo * bs:hi * bs]
        plans = []
        ops = None
        if live is None or live.all():
            site = int(rows[0, L.T_SITE])
            op = self.sites.info.get(site)
            if isinstance(op, WarpOp):
                if op.collective:
                    return self._warp_ops(op, rows, lo)
                return self._loose_batched(op, rows, lo, hi, site)
            if isinstance(op, TileOp):
                ops = self._uniform(op, rows, lo)
        if ops is not None:  # the common case: every lane at one tile op, checked in one native pass
            warps = self._every.get(len(ops))
            if warps is None:
                warps = self._every[len(ops)] = np.arange(len(ops))
            if not self._add_plan(plans, op, ops, site, warps, slice(None), lo):
                return False
        elif not self._plans(plans, rows, lo, live):
            return False
        if not plans:
            return True
        reads = self._async_batched(plans, lo * bs) if self.ctx[L.CTX_ASYNC] else ()
        if reads is None:  # a copy in flight, or landed with no BARRIER since: warp by warp words it
            return False
        if self.ctx[L.CTX_RACE_GEN] and not self._races_batched(plans, lo * bs):
            return False
        if reads:
            st, readers, writers = reads
            if readers:
                self.be.asyncs.note_reads(st, readers)
            if writers is not None:
                self.be.asyncs.note_writers(st, *writers)
        for op, plan, stack, lanes, mine, _, site in plans:
            if isinstance(op, LdMatrix) and self.ctx[L.CTX_TRACE]:
                self._trace_rows(op, plan[0], lo * bs + mine.astype(np.int64) * WARP, READ, site)
            self._perform_batch(op, plan, stack, len(mine))
            rows[lanes, L.T_STATUS] = L.ST_RUN
            self.ctx[L.CTX_STEPS_USED] += WARP_OP_STEPS * len(mine)
        return True

    def _warp_ops(self, op: WarpOp, rows: np.ndarray, lo: int) -> bool:
        """A shuffle, vote or SYNCWARP that every lane of every warp of rows waits at, for all the
        warps at once (_warp_op's results, warp by warp); False (nothing done) when not every lane is there."""
        if isinstance(op, WgOp) or self._at_one_op(rows, lo, 0, None) != 0:  # (wgmma.py: warpgroup by warpgroup)
            return False
        ops = rows[:, L.T_OP:L.T_OP + op.operands]
        match op:
            case Shuffle(mode=mode):
                x, b = (ops[:, i].reshape(-1, WARP) for i in (0, 1))
                rows[:, L.T_OP] = np.take_along_axis(x, _shuffle_sources(mode, b, _LANES), axis=1).ravel()
            case Vote(mode=mode):
                rows[:, L.T_OP] = np.repeat(_votes(mode, ops[:, 0].reshape(-1, WARP) != 0), WARP)
            case SyncWarp():
                rows[:, L.T_EPOCH] += 1  # the race detector's clock: the warp's lanes are ordered here
            case _:  # pragma: no cover - warpgen emits only the ops above
                raise AssertionError(op)
        rows[:, L.T_STATUS] = L.ST_RUN
        self.ctx[L.CTX_STEPS_USED] += WARP_OP_STEPS * (len(rows) // WARP)
        return True

    def _at_one_op(self, rows: np.ndarray, lo: int, k: int, ops: np.ndarray | None) -> int:
        """tf_warp_ops on rows (the threads from block lo on): 0 when every thread waits at the first
        one's site with its warp's k operands (then in ops), else 1."""
        first = self._addresses()[1] + lo * self.be.block_size * L.THR_SLOTS * 8
        return self.be.rt.warp_ops(first, len(rows), k, None if ops is None else ops.ctypes.data)

    def _addresses(self) -> tuple[int, int]:
        """The addresses of the context and the thread records, for the native helpers (they stay
        where they are for the launch)."""
        if self._pointers is None:
            self._pointers = (self.ctx.ctypes.data, self.be.thr.ctypes.data)
        return self._pointers

    def _uniform(self, op: TileOp, rows: np.ndarray, lo: int) -> np.ndarray | None:
        """Each warp's operands (warps × op.operands) when every thread of rows waits at the first
        one's tile op, op, with its warp's operands (the scheduler's tf_warp_ops); else None."""
        ops = np.empty((len(rows) // WARP, op.operands), np.int64)
        return ops if self._at_one_op(rows, lo, op.operands, ops) == 0 else None

    def _plans(self, plans: list, rows: np.ndarray, lo: int, live: np.ndarray | None) -> bool:
        """_batched's plans when the warps are not all at one op (or some blocks are not live): False
        when they cannot be batched."""
        bs = self.be.block_size
        status, site = rows[:, L.T_STATUS], rows[:, L.T_SITE]
        wait = (status == L.ST_WARP).reshape(-1, WARP)
        if live is not None and not live.all():
            wait &= np.repeat(np.asarray(live, bool), bs // WARP)[:, None]
        everyone = bool(wait.all())
        warps = np.arange(len(wait)) if everyone else np.flatnonzero(wait.any(axis=1))  # the waiting warps
        if warps.size == 0:
            return True
        if not everyone and not wait[warps].all():
            return False  # some lanes are elsewhere: divergence, or ACTIVEMASK
        at = site.reshape(-1, WARP)[warps]
        first = at[:, 0]
        if (at != first[:, None]).any():
            return False
        sites, pos = np.unique(first, return_index=True)
        for s in sites[np.argsort(pos, kind="stable")]:  # the ops in the order of their first warp
            op = self.sites.info.get(int(s))
            if not isinstance(op, TileOp):
                return False  # shuffles, votes, SYNCWARP: warp by warp
            k = op.operands
            mine = warps[first == s]
            lanes = (mine[:, None] * WARP + np.arange(WARP)).ravel()
            given = rows[lanes, L.T_OP:L.T_OP + k].reshape(len(mine), WARP, k)
            if k and (given != given[:, :1]).any():  # every lane's operands must be lane 0's
                return False
            if not self._add_plan(plans, op, given[:, 0].copy(), int(s), mine, lanes, lo):
                return False
        return True

    def _add_plan(self, plans: list, op: TileOp, ops: np.ndarray, site: int, mine: np.ndarray, lanes, lo: int) -> bool:
        """The plan of op for the warps `mine` (block-relative to lo) with their operands ops: False when
        a check fails or their tile stacks differ."""
        plan = self._plan(op, ops, site)
        if plan is None:
            return False
        stack = self._stack(mine + lo * self.be.warps_per_block)
        if stack is None:
            return False
        plans.append((op, plan, stack, lanes, mine, ops, site))
        return True

    def _stack(self, gws: np.ndarray) -> list[np.ndarray] | None:
        """The batched tile stack of the warps gws (global indices, in order): kept from the last
        step when they went together, else stacked from their tile stacks; None when those differ
        in depth or in a tile's shape or type (then the warp-by-warp path takes them)."""
        key = gws.tobytes()
        kept = self._stacks.get(key)
        if kept is not None:
            return kept[1]
        for other in {self._where[g] for g in gws.tolist() if g in self._where}:
            self._flush(other)
        data = self.be.tile_data
        stacks = [data[g] for g in gws.tolist()]
        depth = len(stacks[0])
        if any(len(st) != depth for st in stacks):
            return None
        stack = []
        for p in range(depth):
            first = stacks[0][p]
            if any(st[p].dtype != first.dtype or st[p].shape != first.shape for st in stacks):
                return None
            stack.append(np.stack([st[p] for st in stacks]))
        self._stacks[key] = (gws, stack)
        for g in gws.tolist():
            self._where[g] = key
        return stack

    def _flush(self, key: bytes) -> None:
        gws, stack = self._stacks.pop(key)
        data = self.be.tile_data
        stack = [x.astype(np.float32) if x.dtype == np.float64 else x for x in stack]  # operands: float32
        for i, g in enumerate(gws.tolist()):
            data[g][:] = [x[i] for x in stack]
            del self._where[g]

    def flush(self) -> None:
        """Write the batched tile stacks back to the backend's tile_data."""
        for key in list(self._stacks):
            self._flush(key)

    def _plan(self, op: TileOp, ops: np.ndarray, site: int):
        """What a batched op needs beyond the tile stacks: the f32 values of TFILL/TSCALE, the
        memory (element array and indices) of a load or store; None when a check fails."""
        if isinstance(op, (Fill, Scale)):
            return (ops[:, 0] & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
        if isinstance(op, Load):
            return self._memory(op.tile, ops[:, 0], ops[:, 1], isinstance(op, CheckedLoad))
        if isinstance(op, Store):
            return self._memory(op.tile, ops[:, 0], ops[:, 1], isinstance(op, CheckedStore))
        if isinstance(op, LdMatrix):
            return self._ldmatrix_plan(op, ops)
        if isinstance(op, StMatrix):
            return None  # warp by warp (perform)
        return ()

    def _memory(self, t: Tile, addr: np.ndarray, stride: np.ndarray, typed: bool):
        """For loads or stores of the tile t at addr with stride (one per warp): [(the lines of
        `lead` elements of an allocation, by first element; the warps that use it; the first
        elements of their tiles' lines (warps, lines))], when each passes _index's checks (and
        _check_type's when typed); else None."""
        rows, cols = t.rows_cols
        esize = elem_bytes(t.dtype)  # 1, 2, 4 or 8: `& (m - 1)` is `% m` below
        lead, outer = (cols, rows) if t.layout == "row" else (rows, cols)
        if ((addr & 31) | ((stride * esize) & 15)).any() or int(stride.min()) < lead:
            return None
        if ((outer - 1) * int(stride.max()) + lead) * esize > SPAN_MAX:  # (Python ints: no wrap-around)
            return None  # reaches past any allocation: the warp-by-warp path says so
        span = ((outer - 1) * stride + lead) * esize
        table = self.be.alloc_table
        ends = addr + span
        first = int(np.searchsorted(table[:, 0], int(addr.min()), side="right")) - 1
        if first >= 0 and int(ends.max()) <= table[first, 1] and table[first, 0] % esize == 0:
            k, one = first, True  # the common case: one allocation, every address (32-byte aligned) on an element
        else:
            k = np.searchsorted(table[:, 0], addr, side="right") - 1
            if (k < 0).any():
                return None
            start, end = table[k, 0], table[k, 1]
            if (ends > end).any() or ((addr - start) % esize).any():
                return None
            one = False
        lines = np.arange(outer) * stride[:, None]  # a tile is `outer` lines (rows, or columns) of `lead` elements
        dtype = _mem_dtype(t.dtype)
        parts = []
        for kk in (k,) if one else np.unique(k):
            base, size = int(table[kk, 0]), int(table[kk, 1] - table[kk, 0])
            if typed and self.be.elem_types:
                have = self.be.elem_types.get(base)
                if have is not None and have != dtype:
                    return None
            windows = self._windows.get((base, dtype, lead))
            if windows is None:
                view = self.be.allocation_view(base, size - size % esize)
                if view is None:
                    return None
                mem = view.view(dtype)
                # every run of `lead` elements of the allocation, by its first element: a tile's line is one
                windows = np.lib.stride_tricks.as_strided(mem, (len(mem) - lead + 1, lead), (esize, esize))
                self._windows[(base, dtype, lead)] = windows
            sel = slice(None) if one else np.flatnonzero(k == kk)
            starts = ((addr[sel] - base) // esize)[:, None] + lines[sel]
            parts.append((windows, sel, starts, base))
        return parts

    def _perform_batch(self, op: TileOp, plan, stack: list[np.ndarray], n: int) -> None:
        """perform, for all the warps of a batched tile stack (each entry: warps × rows × cols) at once."""
        match op:
            case Zero(dst, t):
                _put(stack, dst, np.zeros((n, *t.rows_cols), _ACC_DTYPE[t.dtype]))
            case Fill(dst, t):
                values = np.empty((len(plan), *t.rows_cols), _ACC_DTYPE[t.dtype])
                values[...] = plan[:, None, None]
                _put(stack, dst, values)
            case Load(dst, t, _):
                # operands in float64 while batched (exact, as float32; flush makes them float32): TMMA's type
                dtype = _ACC_DTYPE[t.dtype] if t.kind == "acc" else np.float64
                if len(plan) == 1:
                    values = plan[0][0][plan[0][2]].astype(dtype)
                else:
                    values = np.empty((n, *t.rows_cols[::1 if t.layout == "row" else -1]), dtype)
                    for windows, sel, starts, _ in plan:
                        values[sel] = windows[starts]
                _put(stack, dst, values if t.layout == "row" else values.transpose(0, 2, 1))
            case Store(src, t):
                values = stack[src]
                for windows, sel, starts, _ in plan:  # warp by warp in order where tiles overlap: the last stays
                    mine = values[sel].astype(windows.dtype)
                    windows[starts] = mine if t.layout == "row" else mine.transpose(0, 2, 1)
                del stack[src:]
            case LdMatrix(dst, t):
                _put(stack, dst, self._ldmatrix_batch(op, plan, n))
            case Mma(acc_at, a_at, b_at):
                acc = stack[acc_at]
                a, b = (x if x.dtype == np.float64 else x.astype(np.float64) for x in (stack[a_at], stack[b_at]))
                exact = acc.astype(np.float64) + a @ b
                _put(stack, acc_at, exact.astype(acc.dtype))  # exact products, one rounding per TMMA
            case Scale(dst):
                x = stack[dst]
                stack[dst] = (x.astype(np.float32) * plan[:, None, None]).astype(x.dtype)
            case Add(dst, src):
                x, y = stack[dst], stack[src]
                _put(stack, dst, (x.astype(np.float32) + y.astype(np.float32)).astype(x.dtype))
            case _:  # Copy, Perm: list operations
                self.perform(op, [], stack, -1)

    # ---- batched: the ops each lane does on its own, every lane of the step at one ------------------
    def _loose_batched(self, op: WarpOp, rows: np.ndarray, lo: int, hi: int, site: int) -> bool:
        """An op that does not synchronise (_loose_ops's), for every thread of rows at once when every
        one waits at it: a copy-model op (CP.ASYNC, CP.COMMIT, CP.WAIT) of one block, thread after
        thread as warp by warp takes them (its ForthError is that path's); TLANE@ / TLANE! on the batched
        tile stacks. False (nothing done) otherwise."""
        if self._at_one_op(rows, lo, 0, None) != 0:
            return False
        if isinstance(op, AsyncOp):
            if hi - lo != 1:
                return False
            self.be.asyncs.perform(op, rows, self.ctx, site, lambda m, w: self.error(site, m, w))
        elif not isinstance(op, (LaneGet, LanePut)) or not self._lane_elements_batched(op, rows, lo):
            return False
        rows[:, L.T_STATUS] = L.ST_RUN
        self.ctx[L.CTX_STEPS_USED] += WARP_OP_STEPS * (len(rows) // WARP)
        return True

    def _lane_elements_batched(self, op: "LaneGet | LanePut", rows: np.ndarray, lo: int) -> bool:
        """_lane_elements for every lane of rows' warps at once, on their batched tile stack: False
        (nothing done) when an index is out of range (warp by warp words it) or the stacks differ."""
        n = len(rows) // WARP
        t = op.tile
        gm, gn = t.grid if t is not None else (1, 1)
        per = MMA_ELEMS["acc"]
        i = rows[:, L.T_OP].reshape(n, WARP)
        if ((i < 0) | (i >= per * gm * gn)).any():
            return False
        stack = self._stack(np.arange(n) + lo * self.be.warps_per_block)
        if stack is None:
            return False
        fr, fc = _frag_coords("acc")
        e, (bi, bj) = i % per, divmod(i // per, gn)
        r = fr.reshape(WARP, per)[_LANES, e] + 16 * bi
        c = fc.reshape(WARP, per)[_LANES, e] + 8 * bj
        acc = stack[op.pos]
        w = np.arange(n)[:, None]
        if isinstance(op, LaneGet):
            rows[:, L.T_OP] = acc[w, r, c].astype(np.float32).view(np.uint32).astype(np.int64).ravel()
        else:  # rounded to the accumulator's type
            acc[w, r, c] = (rows[:, L.T_OP + 1] & 0xFFFFFFFF).astype(np.uint32).view(np.float32).reshape(n, WARP)
        return True

    # ---- batched ldmatrix, and the copy model's checks of batched loads --------------------------
    def _ldmatrix_plan(self, op: LdMatrix, ops: np.ndarray):
        """The rows a batched ldmatrix reads: (their addresses, warps x (fragments x addressing lanes), in
        the order warp by warp takes them; the shared bytes that hold them all; the first one's address;
        each warp's matrix as indices of those bytes' elements, _ldmatrix_batch's gather; the base of the
        allocation), computed as _lane_addresses computes one warp's; None when a warp's operands fail its checks or
        the rows are not in one allocation (warp by warp words it)."""
        t = op.tile
        key = (op.lanes_kind, t.grid, t.frag_shape, t.rows_cols, op.n_major, ops.shape, ops.tobytes())
        got = _LDSM_ROWS.get(key)  # (a pipeline's k loop asks for the same few stages again and again)
        if got is None:
            got = _ldmatrix_rows(op, ops)
            if len(_LDSM_ROWS) >= LDSM_ROWS_KEPT:
                _LDSM_ROWS.clear()
            _LDSM_ROWS[key] = got
        if got[0] is None:
            return None
        addrs, first, span, gather = got
        base = self.be.allocation_base(first, span)  # the one allocation that holds every row (the race detector's)
        if base is None:
            return None
        return addrs, self.be.allocation_view(first, span), first, gather, base

    def _ldmatrix_batch(self, op: LdMatrix, plan, n: int) -> np.ndarray:
        """ldmatrix for n warps at once (its plan: _ldmatrix_plan's): warps x the grid's logical matrix,
        in float64 (exact), as the batched loads leave operands."""
        _, view, _, gather, _ = plan
        t = op.tile
        # the view from the first row on, as elements (every row address is 16-byte aligned): each warp's
        # matrix, row-major, is one gather of them (_ldmatrix_places: the lanes' registers composed)
        mem = view.view(_mem_dtype(t.dtype))
        return mem[gather].astype(np.float64).reshape(n, *t.rows_cols)

    def _async_batched(self, plans: list, first: int) -> tuple | None:
        """The copy model's checks of a step's batched loads, stores and ldmatrix (first: the record of
        the step's first thread), as check_tile and rows_landed make them warp by warp, before anything
        changes: None when one fails; else (the launch's state, the reads and the writes to note once the step
        goes ahead: note_reads' list and note_writers' arguments, None for none), or () when there are none."""
        asyncs = self.be.asyncs
        st = asyncs.launch_of(self.ctx)
        if st is None:
            return ()
        thr = self.be.thr
        notes: list = []  # loads and ldmatrix: the chunks they read
        writes: list = []  # stores: the chunks they write
        for op, plan, _, _, mine, ops, _ in plans:
            if isinstance(op, (Load, Store)):
                ch = asyncs.tile_chunks(st, op.tile, ops[:, 0], ops[:, 1])
                inside = False
            elif isinstance(op, LdMatrix):
                ch = (plan[0] - st.region) // CHUNK
                if int(ch.min()) < 0 or int(ch.max()) >= len(st.pending):
                    return None
                inside = True
            else:
                continue
            readers = first + mine.astype(np.int64) * WARP
            epochs = thr[readers, L.T_EPOCH] & 0xFFFFFFFF
            if not asyncs.chunks_clear(st, ch, readers, epochs, inside):
                return None
            if isinstance(op, Store):
                k = ch.shape[1]
                writes.append((ch.ravel(), np.repeat(readers, k), np.repeat(epochs, k)))
            else:
                notes.append((ch, readers, epochs))
        if not notes and not writes:
            return ()
        return st, notes or None, tuple(np.concatenate(x) for x in zip(*writes)) if writes else None

    def _loose_ops(self, rows: np.ndarray, waiting: np.ndarray, gw: int = -1, first: int = -1) -> bool:
        """Release the lanes of a warp that wait at an op that does not synchronise
        (ACTIVEMASK): the lanes at one such site get the mask of the lanes there.
        True when there were any."""
        sites = rows[:, L.T_SITE]
        loose = [int(s) for s in np.unique(sites[waiting]) if not getattr(self.sites.info[int(s)], "collective", True)]
        for s in loose:
            here = waiting & (sites == s)
            op = self.sites.info[s]
            if isinstance(op, AsyncOp):  # CP.ASYNC CP.COMMIT CP.WAIT: the copy model, lane by lane
                self.be.asyncs.perform(op, rows[here], self.ctx, s, lambda m, w, s=s: self.error(s, m, w))
            elif isinstance(op, HopperOp):  # mbarriers, TMA: mbarriers.py, lane by lane, each its result
                rows[here, L.T_OP] = mbarriers.perform(self.be, op, rows[here], self.ctx, s, self.sites,
                                                       functools.partial(self.error, s))
            elif isinstance(op, (WgLaneGet, WgLanePut)):  # WGLANE@ WGLANE!: each lane its own element (wgmma.py)
                wgmma.lanes(self, op, rows, here, gw, s)
            elif isinstance(op, (LaneGet, LanePut)):  # TLANE@ TLANE!: each lane its own element
                self._lane_elements(op, rows, here, self.be.tile_data[gw], s)
            else:
                rows[here, L.T_OP] = _mask(here)
            rows[here, L.T_STATUS] = L.ST_RUN
            self.ctx[L.CTX_STEPS_USED] += WARP_OP_STEPS
        return bool(loose)

    def _lane_elements(self, op: "LaneGet | LanePut", rows: np.ndarray, here: np.ndarray,
                       stack: list[np.ndarray], site: int) -> None:
        """TLANE@ / TLANE! for the lanes `here` of one warp: element i of lane L's fragment of the
        m16n8k16 accumulator is at mma_coords("acc", L, i) of the logical matrix (the PTX ISA's layout);
        in an m x n grid, i = 4f + e is element e of fragment f = (f / n, f mod n), 16 rows and 8 columns
        per fragment."""
        acc = stack[op.pos]
        t = op.tile
        gm, gn = t.grid if t is not None else (1, 1)
        per = MMA_ELEMS["acc"]
        nel = per * gm * gn
        for lane in np.flatnonzero(here).tolist():
            i = int(rows[lane, L.T_OP])
            if not 0 <= i < nel:
                what = "an m16n8k16 accumulator (c0..c3); give an index from 0 to 3" if nel == per else \
                    f"a {gm}x{gn} grid of m16n8k16 accumulators (4 per fragment); give an index from 0 to {nel - 1}"
                raise self.error(site, f"{op.word}" + "{where}" + f": lane {lane} asks for element {i}, but a lane "
                                 f"holds elements 0 to {nel - 1} of {what}", op.word)
            bi, bj = divmod(i // per, gn)
            r, c = mma_coords("acc", lane, i % per)
            r, c = r + 16 * bi, c + 8 * bj
            if isinstance(op, LaneGet):
                rows[lane, L.T_OP] = int(np.float32(acc[r, c]).view(np.uint32))
            else:
                acc[r, c] = _f32(int(rows[lane, L.T_OP + 1]))  # rounded to the accumulator's type

    # ---- ldmatrix and stmatrix: the lanes' addresses, as the hardware takes them ----------------
    def _lane_addresses(self, op: "LdMatrix | StMatrix", ops: list[int], site: int,
                        frag: tuple[int, int] = (0, 0)) -> list[int]:
        """The shared address each addressing lane gives (32 for .x4, 16 for .x2), from the warp's
        operands (saddr row col geom) and lane_chunk, swizzled as geom says, for fragment frag of a
        grid (its first element frag's block of rows and columns further on); checked against the tile's
        geometry first (a block outside the tile reads or writes other bytes on a GPU, silently)."""
        saddr, row, col, geom = ops
        t = op.tile
        rows_n, chunks, swz = geom & 0xFFFF, (geom >> 16) & 0xFFFF, (geom >> 32) & 1
        kind = getattr(op, "lanes_kind", t.kind)
        brows, bcols = t.rows_cols[::-1] if kind == "bcol" else t.rows_cols  # the whole grid must lie inside the tile
        word = op.word
        if geom >> 33 or rows_n == 0 or chunks == 0:
            raise self.error(site, f"{word}: {geom} is not a shared tile's shape" + "{where}" + "; give the "
                             "name-GEOM of the SMEM-TILE the address is a stage of", word)
        if col % 8 or row < 0 or col < 0 or row + brows > rows_n or col // 8 + bcols // 8 > chunks:
            raise self.error(site, f"{word}: the {brows}x{bcols} block at row {row}, column {col} is not inside "
                             f"the {rows_n}x{chunks * 8} shared tile" + "{where}" + "; give a row from 0 to "
                             f"{rows_n - brows} and a column that is a multiple of 8 from 0 to {chunks * 8 - bcols}"
                             " (in 16-bit elements)", word)
        if saddr % 16:
            raise self.error(site, f"{word}: the shared tile's address ${saddr & (2**64 - 1):x} is not 16-byte "
                             "aligned" + "{where}" + "; give a stage of a SMEM-TILE, e.g. `0 As`", word)
        fr, fc = t.frag_shape
        if kind == "bcol":  # the tile holds B transposed: a fragment's n are rows, its k columns
            row, col = row + frag[1] * fc, col + frag[0] * fr
        else:
            row, col = row + frag[0] * fr, col + frag[1] * fc
        out = []
        for lane in range(32 if t.kind == "a" else 16):
            dr, dc = lane_chunk(lane, kind)
            r, ch = row + dr, col // 8 + dc
            out.append(saddr + (r * chunks + (ch ^ (r & 7) if swz else ch)) * 16)
        return out

    def _shared_rows(self, op: "LdMatrix | StMatrix", addrs: list[int], site: int, write: bool,
                     row: int) -> list[np.ndarray]:
        """The 16 bytes at each address as a view of 8 elements of the tile's memory type, after the
        copy model's check (copies in flight) and the race detector's (each row one access of the warp)."""
        t16 = _ROW16
        dtype = _mem_dtype(op.store_type if isinstance(op, StMatrix) else op.tile.dtype)
        out: list[np.ndarray] = []
        # the copy model's check of all rows at once; row by row (which words an error) only when one fails
        armed = bool(self.ctx[L.CTX_ASYNC]) and not self.be.asyncs.rows_landed(
            self.ctx, np.array(addrs, np.int64), row, write)
        for addr in addrs:
            view = self.be.allocation_view(addr, 16)
            if view is None:
                raise self.error(site, f"{op.word}: lane {len(out)}'s row at ${addr & (2**64 - 1):x} is outside "
                                 "the block's shared memory" + "{where}", op.word)
            if armed:
                self.be.asyncs.check_tile(self.ctx, t16, addr, 8, row, op.word, write,
                                          lambda m: self.error(site, m, op.word))
            out.append(view.view(dtype))
        if row >= 0 and self.ctx[L.CTX_RACE_GEN]:
            n = len(addrs)
            a = np.array(addrs, np.int64)
            same = first8 = None
            if write:
                same, first8 = np.zeros((n, 1), bool), np.zeros((n, 1), np.int64)
            if self._races(t16, np.full(n, row, np.int64), a, np.full(n, 8, np.int64), WRITE if write else READ,
                           site, same, first8) >= 0:
                raise _Raced()
        return out

    def _trace_rows(self, op: "LdMatrix | StMatrix", addrs: np.ndarray, rows: np.ndarray, kind: int,
                    site: int) -> None:
        """PROFILE's records of ldmatrix or stmatrix (a traced launch): each addressing lane's 16-byte row one
        access of that lane (addrs: warps x (fragments x addressing lanes), as the warps' ops take them; rows:
        each warp's first lane's record), so each instruction is one request of 16-byte accesses, served in
        phases of 8 lanes, one 8x8 matrix each, as the hardware serves it (accessprofile.py)."""
        per = 32 if op.tile.kind == "a" else 16  # .x4, or .x2: its addressing lanes (_lane_addresses)
        lanes = rows[:, None] + np.tile(np.arange(per, dtype=np.int64), addrs.shape[1] // per)
        thr = self.be.thr
        self.be.asyncs.append_trace(self.ctx, thr[lanes.ravel(), L.T_LINEAR], kind | site << 2,
                                    addrs.ravel(), thr[lanes.ravel(), L.T_EPOCH], 16)

    def ldmatrix(self, op: LdMatrix, ops: list[int], site: int, row: int = -1) -> np.ndarray:
        """ldmatrix.sync.aligned.m8n8 (.x4 for a, .x2.trans for b) as the PTX ISA describes it: the rows
        the lanes address form 8x8 matrices (matrix j: lanes 8j..8j+7); lane L receives register j =
        elements (L/4, 2(L%4)) and (L/4, 2(L%4)+1) of matrix j, or with .trans (2(L%4), L/4) and
        (2(L%4)+1, L/4); register j holds fragment elements 2j and 2j+1, which mma_coords places."""
        t = op.tile
        out = np.zeros(t.rows_cols, np.float32)
        fr, fc = t.frag_shape
        for bi in range(t.grid[0]):  # a grid: one ldmatrix per fragment, as the GPU code does
            for bj in range(t.grid[1]):
                addrs = self._lane_addresses(op, ops, site, (bi, bj))
                mats = np.stack(self._shared_rows(op, addrs, site, False, row))
                if row >= 0 and self.ctx[L.CTX_TRACE]:
                    self._trace_rows(op, np.array([addrs], np.int64), np.array([row], np.int64), READ, site)
                mats = mats.astype(np.float32).reshape(-1, 8, 8)  # (matrices, rows, 8)
                block = out[bi * fr:(bi + 1) * fr, bj * fc:(bj + 1) * fc]
                block[_frag_coords(t.kind)] = mats[_ldmatrix_map(op.lanes_kind)]
        return out

    def stmatrix(self, op: StMatrix, value: np.ndarray, ops: list[int], site: int, row: int = -1) -> None:
        """stmatrix.sync.aligned.m8n8.x2: lane L (L < 16) addresses row L % 8 of matrix L / 8, which
        receives register j = L / 8 of lanes 4(L%8) .. 4(L%8)+3 (two 16-bit elements each, in order)."""
        dtype = _mem_dtype(op.store_type)
        fr, fc = op.tile.frag_shape
        for bi in range(op.tile.grid[0]):  # a grid: one stmatrix per fragment
            for bj in range(op.tile.grid[1]):
                block = value[bi * fr:(bi + 1) * fr, bj * fc:(bj + 1) * fc]
                regs = block[_frag_coords("acc")].astype(np.float32).reshape(WARP, MMA_ELEMS["acc"])
                halves = regs.astype(dtype)  # rounded to nearest even, as cvt.rn does
                addrs = self._lane_addresses(op, ops, site, (bi, bj))
                mems = self._shared_rows(op, addrs, site, True, row)
                if row >= 0 and self.ctx[L.CTX_TRACE]:
                    self._trace_rows(op, np.array([addrs], np.int64), np.array([row], np.int64), WRITE, site)
                for lane, mem in enumerate(mems):
                    j, r = lane >> 3, lane & 7
                    mem[:] = np.concatenate([halves[4 * r + q, 2 * j:2 * j + 2] for q in range(4)])

    def _warp_op(self, op: WarpOp, site: int, block: int, w: int, rows: np.ndarray) -> None:
        """A shuffle, vote or SYNCWARP: every thread of the warp must be there (a
        full mask); each lane gets its result in its first operand slot."""
        st, sites = rows[:, L.T_STATUS], rows[:, L.T_SITE]
        if not ((st == L.ST_WARP) & (sites == site)).all():
            raise self._divergence(site, block, w, st, sites, op.word)
        if isinstance(op, WgOp):  # warpgroup MMA (wgmma.py): the warpgroup's four warps together
            wgmma.perform(self, op, site, block, w, rows)
            return
        ops = rows[:, L.T_OP:L.T_OP + op.operands]
        match op:
            case Shuffle(mode=mode):
                rows[:, L.T_OP] = ops[:, 0][self._sources(op, mode, ops[:, 1], site, block, w)]
            case Vote(mode=mode):
                rows[:, L.T_OP] = _votes(mode, (ops[:, 0] != 0)[None])[0]
            case SyncWarp():
                rows[:, L.T_EPOCH] += 1  # the race detector's clock: the warp's lanes are ordered here
            case _:  # pragma: no cover - warpgen emits only the ops above
                raise AssertionError(op)
        st[:] = L.ST_RUN
        self.ctx[L.CTX_STEPS_USED] += WARP_OP_STEPS

    def _sources(self, op: WarpOp, mode: str, b: np.ndarray, site: int, block: int, w: int) -> np.ndarray:
        """The lane each lane of one warp reads (_shuffle_sources). A lane past the warp's
        threads (a block that is not a multiple of 32) has no value: on a GPU the result is
        undefined, here an error."""
        n = len(b)
        src = _shuffle_sources(mode, b, _LANES[:n])
        missing = np.flatnonzero(src >= n)
        if missing.size:
            readers = _lanes(missing.tolist())
            gone = _lanes(sorted(set(src[missing].tolist())))
            verb = "reads" if missing.size == 1 else "read"
            raise self.error(site, f"{op.word}" + "{where}" + f": {readers} of warp {w // WARP} in block "
                             f"{block} {verb} {gone}, past the warp's {n} thread{'s' * (n > 1)} ({_lanes(list(range(n)))}): a GPU "
                             "leaves such a value undefined. Make the block size a multiple "
                             f"of 32, or read only lanes below {n}", op.word)
        return src

    def _divergence(self, site: int, block: int, w: int, st: np.ndarray, sites: np.ndarray,
                    word: str | None = None) -> ForthError:
        at = np.flatnonzero((st == L.ST_WARP) & (sites == site)) + w
        others = np.flatnonzero(~((st == L.ST_WARP) & (sites == site))) + w
        what = {L.ST_DONE: "finished", L.ST_BARRIER: "wait at a BARRIER",
                L.ST_WARP: "wait at another tile op" if word is None else "wait at another warp operation"}
        kinds = sorted({what.get(int(x), "are elsewhere") for x in st[others - w]})
        name, pos = self.sites.entries[site]
        def who(ids: np.ndarray) -> str:
            lanes = f"lanes {ranges((ids - w).tolist())}"
            return lanes if w == 0 else f"{lanes} (threads {ranges(ids.tolist())})"
        if word is None:
            return ForthError(f"divergent warp in block {block} (warp {w // WARP}): {who(at)} reached a tile "
                              f"operation but {who(others)} {' or '.join(kinds)}. A tile operation is executed "
                              "by the whole warp together: keep it out of IFs whose condition differs between "
                              "lanes", pos)
        where = f" in {name}" if name and name != "<line>" else ""
        return ForthError(f"divergent warp in block {block} (warp {w // WARP}): {who(at)} reached {word}{where} "
                          f"but {who(others)} {' or '.join(kinds)}. {word} is executed by every lane of the warp "
                          "together (a full mask, 0xffffffff): keep it out of IFs whose condition differs between "
                          "lanes", pos, word)

    # ---- the operations ----------------------------------------------------
    def perform(self, op: TileOp, ops: list[int], stack: list[np.ndarray], site: int, row: int = -1) -> None:
        """The op for one warp; row: its first lane's thread record (the accessor the race detector
        sees), -1 for ops without memory."""
        match op:
            case Zero(dst, t):
                _put(stack, dst, np.zeros(t.rows_cols, _ACC_DTYPE[t.dtype]))
            case Fill(dst, t):
                _put(stack, dst, np.full(t.rows_cols, _f32(ops[0]), _ACC_DTYPE[t.dtype]))
            case Load(dst, t, word):
                _put(stack, dst, self.load(t, ops[0], ops[1], site, word, isinstance(op, CheckedLoad), row))
            case Store(src, t):
                self.store(t, stack[src], ops[0], ops[1], site, isinstance(op, CheckedStore), row)
                del stack[src:]
            case LdMatrix(dst):
                _put(stack, dst, self.ldmatrix(op, ops, site, row))
            case StMatrix(src):
                self.stmatrix(op, stack[src], ops, site, row)
                del stack[src:]
            case Mma(acc_at, a_at, b_at):
                acc, a, b = stack[acc_at], stack[a_at], stack[b_at]
                exact = acc.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
                _put(stack, acc_at, exact.astype(acc.dtype))
            case Copy(src, dst):
                _put(stack, dst, stack[src].copy())
            case Perm(base, order):
                top = stack[base:base + len(order)]
                stack[base:base + len(order)] = [top[i] for i in order]
            case Scale(dst):
                x = stack[dst]
                stack[dst] = (x.astype(np.float32) * _f32(ops[0])).astype(x.dtype)
            case Add(dst, src):
                x, y = stack[dst], stack[src]
                _put(stack, dst, (x.astype(np.float32) + y.astype(np.float32)).astype(x.dtype))
            case _:  # pragma: no cover - tilegen emits only the ops above
                raise AssertionError(op)

    def _index(self, t: Tile, addr: int, stride: int, site: int, word: str,
               typed: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Byte view of the allocation and element indices of the tile, after
        the checks PTX/CUDA impose (alignment, stride, bounds) and, when typed
        (checked mode), that a typed allocation holds the tile's element type."""
        rows, cols = t.rows_cols
        esize = elem_bytes(t.dtype)
        lead = cols if t.layout == "row" else rows
        if addr % 32:
            raise self.error(site, f"{word}: address ${addr & (2**64 - 1):x} is not 32-byte aligned" + "{where}; "
                             "tile loads and stores need 32-byte aligned addresses (allocate with ARRAY/MATRIX, "
                             "whose data is 256-byte aligned, and use offsets that are multiples of 32)", word)
        if stride < lead:
            raise self.error(site, f"{word}: stride {stride} is shorter than a {t.layout} of the tile ({lead} "
                             "elements){where}; the stride is the row length of the matrix in memory", word)
        if (stride * esize) % 16:
            raise self.error(site, f"{word}: stride {stride} elements = {stride * esize} bytes is not a multiple "
                             "of 16 bytes{where}; pad the rows of the matrix to a multiple of "
                             f"{16 // esize} elements", word)
        outer = rows if t.layout == "row" else cols
        span = ((outer - 1) * stride + lead) * esize  # Python ints: a huge stride cannot wrap around
        if span > SPAN_MAX:
            raise self.error(site, f"{word}: the tile at ${addr & (2**64 - 1):x} ({rows}x{cols} {t.dtype}, "
                             f"stride {stride}) spans {span:,} bytes, past every allocation" + "{where}; "
                             "the stride is the row length of the matrix in memory, in elements", word)
        i = np.arange(rows)[:, None]
        j = np.arange(cols)[None, :]
        idx = i * stride + j if t.layout == "row" else j * stride + i
        if typed and self.be.elem_types:  # before the bounds: a tile of the wrong type is often too long too
            self._check_type(t, addr, site, word)
        view = self.be.allocation_view(addr, span)
        if view is None:
            raise self.error(site, f"{word}: the tile at ${addr & (2**64 - 1):x} ({rows}x{cols} {t.dtype}, "
                             f"stride {stride}) reaches outside every allocation" + "{where}", word)
        return view, idx

    def _check_type(self, t: Tile, addr: int, site: int, word: str) -> None:
        """The ARRAY or MATRIX that holds the tile's first element must be of the
        tile's element type (the backend's elem_types; the metadata of its dtypes
        names the array). Untyped memory (CREATE ALLOT, VARIABLE) is not checked."""
        base = self.be.allocation_base(addr, elem_bytes(t.dtype))
        have = self.be.elem_types.get(base) if base is not None else None
        want = _mem_dtype(t.dtype)
        if have is None or have == want:
            return
        meta = have.metadata or {}
        name, shape = meta.get("name") or f"${base:x}", meta.get("shape")
        ty = next((e.name for e in ELTYPES if e.dtype == have), str(have))
        tile, mine = t.dtype, t.dtype.upper()
        what = "an accumulator" if t.kind == "acc" else f"{'an' if t.kind == 'a' else 'a'} {t.kind} operand"
        if shape:
            kind = "MATRIX" if len(shape) == 2 else "ARRAY"
            array = f"a {'x'.join(map(str, shape))} {ty} {kind.lower()}"
            declare = f"declare {name} {mine} (`{' '.join(map(str, shape))} {mine} {kind} {name}`)"
        else:
            array, declare = f"an array of {ty}", f"make {name} an array of {mine}"
        allowed, setting = (ACC_TYPES, "TILE-ACC") if t.kind == "acc" else (IN_TYPES, "TILE-IN")
        if ty.lower() in allowed:
            fix = (f"{declare[0].upper()}{declare[1:]}, or use {ty} tiles (`{ty} {setting}` before the tile "
                   "words are compiled)")
        else:
            kinds = "Accumulators" if t.kind == "acc" else "Tensor-core operands"
            fix = f"{kinds} are {' or '.join(allowed)}: {declare}"
        at = "" if addr == base else f" (at {name}+{addr - base})"
        verb = "written" if word == "TSTORE" else "read"
        raise self.error(site, f"{word}: {name} is {array}, but the tile{at} is {what} of {tile}" + "{where}" +
                         f", so its bytes would be {verb} as {tile}. {fix}", word)

    def load(self, t: Tile, addr: int, stride: int, site: int, word: str, typed: bool = False,
             row: int = -1) -> np.ndarray:
        view, idx = self._index(t, addr, stride, site, word, typed)
        if self.ctx[L.CTX_ASYNC]:  # copies in flight this launch: the tile's lines must have landed
            self.be.asyncs.check_tile(self.ctx, t, addr, stride, row, word, False, lambda m: self.error(site, m, word))
        self._race_one(t, addr, stride, row, READ, site)
        mem = view.view(_mem_dtype(t.dtype))[idx]
        if t.kind == "acc":
            return mem.astype(_ACC_DTYPE[t.dtype])
        return mem.astype(np.float32)  # exact: f16 and bf16 values are f32 values

    def store(self, t: Tile, value: np.ndarray, addr: int, stride: int, site: int, typed: bool = False,
              row: int = -1) -> None:
        view, idx = self._index(t, addr, stride, site, "TSTORE", typed)
        if self.ctx[L.CTX_ASYNC]:
            self.be.asyncs.check_tile(self.ctx, t, addr, stride, row, "TSTORE", True,
                                      lambda m: self.error(site, m, "TSTORE"))
        mem = view.view(_mem_dtype(t.dtype))
        new = value.astype(_mem_dtype(t.dtype))
        self._race_one(t, addr, stride, row, WRITE, site, new, mem[idx])
        mem[idx] = new

    # ---- the race detector: a tile's lines as accesses of its warp's first lane ----------------
    def _races(self, t: Tile, rows: np.ndarray, addr: np.ndarray, stride: np.ndarray, kind: int, site: int,
               same: np.ndarray | None = None, first8: np.ndarray | None = None, base: int | None = None) -> int:
        """tf_race_many for the tiles t at addr with stride (int64, one per warp; rows: the warps' first
        lanes' records), each line one access: the index of the first warp that races, or -1. same
        (warps × lines, for a store): the line already holds the bits stored, which like a scalar
        store of the same bits is not checked but makes the warp the writer (a STORE_VALUE whose bits,
        first8, are the line's first 8 bytes: what tf_race compares). The lines stay out of PROFILE's
        trace (ctx[CTX_TRACE] is off meanwhile). base: the allocation that holds them all, if known."""
        be, ctx = self.be, self.ctx
        rows_n, cols = t.rows_cols
        esize = elem_bytes(t.dtype)
        lead, outer = (cols, rows_n) if t.layout == "row" else (rows_n, cols)
        parts = _pieces(lead * esize)
        part = lead // parts  # tf_race's size is 8 bits: a line of a big grid is checked as `parts` accesses
        n = len(rows)
        table = be.alloc_table
        # race_many's four arrays, passed by address: one buffer of rows, addresses, strides, allocations
        args = np.empty((4, n), np.int64)
        args[0], args[1] = rows, addr
        np.multiply(stride, esize, out=args[2])
        args[3] = table[np.searchsorted(table[:, 0], addr, side="right") - 1, 0] if base is None else base
        if same is not None and first8 is not None and same.ndim == 2:
            same, first8 = same[..., None], first8[..., None]
        trace = int(ctx[L.CTX_TRACE])
        ctx[L.CTX_TRACE] = 0
        try:
            if parts == 1:
                return self._race_call(args, same, first8, 0, outer, lead * esize, kind, site)
            # a line in pieces: warp by warp, each warp's lines piece by piece (the order of one call per warp)
            for w in range(n):
                one = args[:, w:w + 1].copy()
                for j in range(parts):
                    one[1, 0] = args[1, w] + j * part * esize
                    if self._race_call(one, None if same is None else same[w:w + 1],
                                       None if first8 is None else first8[w:w + 1], j, outer, part * esize,
                                       kind, site) >= 0:
                        return w
            return -1
        finally:
            ctx[L.CTX_TRACE] = trace

    def _race_call(self, args: np.ndarray, same: np.ndarray | None, first8: np.ndarray | None, j: int,
                   lines: int, size: int, kind: int, site: int) -> int:
        """One tf_race_many over args' warps (rows, addresses, strides, allocations), `lines` accesses of
        `size` bytes each, with piece j of same and first8: the first warp that races, or -1."""
        n = args.shape[1]
        args = np.ascontiguousarray(args)
        p = args.ctypes.data
        kinds = bits = None
        if same is not None and first8 is not None and same[..., j].any():
            kinds = np.where(same[..., j], STORE_VALUE | site << 2, kind | site << 2).astype(np.int64).ravel()
            bits = np.where(same[..., j], first8[..., j], 0).astype(np.int64).ravel()
        k = self.be.rt.race_many(*self._addresses(), p, p + 8 * n, p + 16 * n, p + 24 * n,
                                 None if kinds is None else kinds.ctypes.data,
                                 None if bits is None else bits.ctypes.data, n, lines, size, kind | site << 2)
        return -1 if k == n else k

    def _race_one(self, t: Tile, addr: int, stride: int, row: int, kind: int, site: int,
                  value: np.ndarray | None = None, mem: np.ndarray | None = None) -> None:
        """One warp's tile load, or store of value over mem (both logical, in memory's type), warp by
        warp: _Raced when it races."""
        if row < 0 or not self.ctx[L.CTX_RACE_GEN]:
            return
        same = first8 = None
        if value is not None and mem is not None:
            new, old = (value, mem) if t.layout == "row" else (value.T, mem.T)  # lines × lead
            same, first8 = _unchanged(new[None], old[None], _pieces(new.shape[1] * mem.itemsize))
        one = np.array([addr], np.int64)
        if self._races(t, np.array([row], np.int64), one, np.array([stride], np.int64), kind, site,
                       same, first8) >= 0:
            raise _Raced()

    def _races_batched(self, plans: list, first: int) -> bool:
        """The batched loads and stores of a launch step (_batched's plans), checked before any is
        performed (first: the record of the step's first thread): True when none races. Else the race's record is taken
        back (error record, and the status tf_fail gave the lane) and False sends the step warp by
        warp, which finds the race again where running the warps in order finds it. What the
        accesses before it left in the shadows is what that path's same accesses leave."""
        ctx, thr = self.ctx, self.be.thr
        record = ctx[:5].copy()
        for op, plan, stack, _, mine, ops, site in plans:
            if isinstance(op, LdMatrix):  # each 16-byte row one access of its warp (_shared_rows)
                rows = np.repeat(first + mine.astype(np.int64) * WARP, plan[0].shape[1])
                a = plan[0].ravel()
                k = self._races(_ROW16, rows, a, np.full(len(a), 8, np.int64), READ, site, base=plan[4])
                if k >= 0:
                    thr[rows[k], L.T_STATUS] = L.ST_WARP
                    ctx[:5] = record
                    return False
                continue
            if not isinstance(op, (Load, Store)):
                continue
            rows = first + mine.astype(np.int64) * WARP
            same = first8 = None
            if isinstance(op, Store):
                rows_n, cols = op.tile.rows_cols
                outer = rows_n if op.tile.layout == "row" else cols
                lead = cols if op.tile.layout == "row" else rows_n
                parts = _pieces(lead * elem_bytes(op.tile.dtype))
                same = np.zeros((len(mine), outer, parts), bool)
                first8 = np.zeros((len(mine), outer, parts), np.int64)
                values = stack[op.src]
                for windows, sel, starts, _ in plan:
                    new = values[sel].astype(windows.dtype)
                    s8, f8 = _unchanged(new if op.tile.layout == "row" else new.transpose(0, 2, 1), windows[starts],
                                        parts)
                    same[sel], first8[sel] = s8, f8
            k = self._races(op.tile, rows, ops[:, 0], ops[:, 1], WRITE if isinstance(op, Store) else READ, site,
                            same, first8, plan[0][3] if len(plan) == 1 else None)
            if k >= 0:
                thr[rows[k], L.T_STATUS] = L.ST_WARP
                ctx[:5] = record
                return False
        return True


def _pieces(line_bytes: int) -> int:
    """How many accesses the race detector sees a tile's line as: tf_race takes at most 255 bytes at once
    (its size argument's low 8 bits), and a line of a big register tile can be 256 or 512 (lines are a
    multiple of 8 elements, so 2 and 4 divide them)."""
    return next(p for p in (1, 2, 4, 8) if line_bytes // p <= 255)


def _unchanged(new: np.ndarray, mem: np.ndarray, parts: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """For tiles' lines (warps × lines × lead, in memory's element type) to store over mem, each line
    cut in `parts` equal pieces (_pieces): which pieces would not change (their bits are the same), and
    each piece's first 8 bytes in memory (warps × lines × parts)."""
    uint = np.dtype(f"u{mem.dtype.itemsize}")
    w, lines, lead = mem.shape
    cut = (w, lines, parts, lead // parts)
    same = (np.ascontiguousarray(new).view(uint).reshape(cut) ==
            np.ascontiguousarray(mem).view(uint).reshape(cut)).all(axis=3)
    first8 = np.ascontiguousarray(mem.reshape(cut)[..., :8 // mem.dtype.itemsize]).view(np.int64)[..., 0]
    return same, first8


# a launch step gathers at most this many threads' blocks (each suspended thread keeps its coroutine frame)
GATHER_THREADS = 1 << 16


def gathers(backend: "CpuBackend", ctx: np.ndarray) -> bool:
    """Whether the blocks of a launch can wait for each other at warp ops (run_together): warps of
    32, no shared memory (one region per worker) and no memory-access trace (PROFILE's order)."""
    return backend.block_size % WARP == 0 and not ctx[L.CTX_SHARED_SIZE] and not backend.trace_cap


# blocks a worker takes at least when a launch's blocks are gathered: each worker does the host work of
# every launch step (Python, mostly under the GIL) for its blocks, which pays off only for many blocks
GATHER_BLOCKS_PER_WORKER = 512


def gathered_chunks(nblocks: int, workers: int) -> list[tuple[int, int]]:
    """The ranges of blocks the workers take when the blocks are gathered (at most `workers`)."""
    n = max(1, min(workers, nblocks // GATHER_BLOCKS_PER_WORKER))
    cuts = [nblocks * i // n for i in range(n + 1)]
    return [(cuts[i], cuts[i + 1]) for i in range(n)]


def run_together(be: "CpuBackend", handle, ctx: np.ndarray, lo: int, hi: int,
                 sites: "Sites") -> tuple[object, ForthError | None]:
    """Blocks lo..hi-1 of a suspending kernel in launch steps (backend._run_blocks' contract): each
    block runs until its warps wait at warp ops; then the ops of all the waiting blocks are performed
    together (WarpOps.run_blocks: one numpy call per op), and each block continues, in block order.
    What it leaves is what running the blocks one after another leaves: an error ends its block and
    gives up the blocks above it (they would not have run), but the blocks below run on, and the
    error of the lowest failing block is the range's; the output records are in block order, without
    those of the blocks given up. Blocks go in groups of GATHER_THREADS threads at most."""
    group = max(1, GATHER_THREADS // be.block_size)
    for g in range(lo, hi, group):
        result = _together(be, handle, ctx, g, min(hi, g + group), sites)
        if result is not None:
            return result
        be.progress.add(min(hi, g + group) - g)
    return None, None


def _together(be: "CpuBackend", handle, ctx: np.ndarray, lo: int, hi: int, sites: "Sites"):
    """run_together for one group: None when every block finished, else the range's result."""
    rt, bs = be.rt, be.block_size
    step_blocks = be.rt.step_blocks
    entries = (ctypes.cast(rt.run_block, ctypes.c_void_p).value, ctypes.cast(rt.continue_block, ctypes.c_void_p).value)
    pctx, pthr = ctx.ctypes.data, be.thr.ctypes.data
    live = np.zeros(be.nblocks, np.bool_)  # blocks waiting at warp ops (to start, at first)
    live[lo:hi] = True
    codes = np.zeros(be.nblocks, np.int64)
    failed: list = []  # [block, kind, what]: the lowest failing block so far
    limit = hi  # blocks from here up are given up
    out_len0 = int(ctx[L.CTX_OUT_LEN])

    def fail(b: int, kind: str, what) -> None:
        nonlocal limit
        for c in np.flatnonzero(live[b:limit]) + b:  # b's own frames too, when it still has them
            rt.free_frames(pthr + int(c) * bs * L.THR_SLOTS * 8, bs)
        live[b:limit] = False
        failed[:] = [b, kind, what]
        limit = b

    def advance(fresh: int) -> None:
        """Start or continue every live block below the limit, as far as the first that fails."""
        b = step_blocks(pctx, handle.addr, pthr, bs, live.ctypes.data, codes.ctypes.data, lo, limit, fresh, *entries)
        if b < 0:
            return
        if codes[b] == RUN_DIVERGENT:
            rows = be.thr[b * bs:(b + 1) * bs]
            fail(b, "divergent", (rows[:, L.T_STATUS].copy(), rows[:, L.T_SITE].copy(), b))
        else:
            record = ctx[:5].copy()
            ctx[:5] = 0  # the blocks below run on, and may record their own
            fail(b, "record", record)

    ops = WarpOps(be, sites, ctx)
    try:
        advance(1)
        while live[lo:limit].any():
            bad = ops.run_blocks(lo, limit, live[lo:limit])
            if bad is not None and bad[1] is None:  # a tile load or store raced: the context's record
                record = ctx[:5].copy()
                ctx[:5] = 0
                fail(bad[0], "record", record)
            elif bad is not None:
                fail(bad[0], "exception", bad[1])
            if ctx[L.CTX_STEPS_USED] > ctx[L.CTX_STEPS_MAX] and live[lo:limit].any():  # the warp ops spent the pool
                b = lo + int(np.argmax(live[lo:limit]))
                be._out_of_steps(b, ctx)
                record = ctx[:5].copy()
                ctx[:5] = 0
                fail(b, "record", record)
            advance(0)
    finally:
        ops.flush()
    _block_order(be, ctx, out_len0, (failed[0] + 1) * bs if failed else None)
    if not failed:
        return None
    b, kind, what = failed
    if kind == "divergent":
        return what, None
    if kind == "exception":
        return None, what
    ctx[:5] = what
    return None, None


def _block_order(be: "CpuBackend", ctx: np.ndarray, start: int, end_thread: int | None) -> None:
    """The output records this group added (from `start`), in block order, as running the blocks one
    after another leaves them; without those of threads from end_thread up (blocks given up)."""
    cap = int(ctx[L.CTX_OUT_CAP])
    total = int(ctx[L.CTX_OUT_LEN])
    n = min(total, cap) - start
    if n <= 0:
        return
    buf = np.ctypeslib.as_array((ctypes.c_int64 * (min(total, cap) * L.OUT_SLOTS)).from_address(
        int(ctx[L.CTX_OUT]))).reshape(-1, L.OUT_SLOTS)
    recs = buf[start:]
    order = np.argsort(recs[:, 0] // be.block_size, kind="stable")
    recs = recs[order]
    if end_thread is not None:
        recs = recs[recs[:, 0] < end_thread]
    buf[start:start + len(recs)] = recs
    ctx[L.CTX_OUT_LEN] = total - (n - len(recs))
