"""Warp-collective operations on the emulator: tile operations, shuffles and votes.

When every thread of a block is parked (at a barrier, a warp op, or done),
the scheduler returns to the host. For each warp whose 32 lanes all wait at
the same tile operation with the same operands, the operation runs here once,
on the warp's tile stack: a list of logical matrices (numpy), bottom first.
Anything else is a divergent warp and becomes a ForthError naming the lanes.

Numerics follow PTX's guarantees: a and b hold exact f16/bf16 values, the
products are exact and the sum of one TMMA is rounded once to the
accumulator type (computed in float64, then rounded).
"""
from __future__ import annotations

import struct
from typing import TYPE_CHECKING

import ml_dtypes
import numpy as np
from tileforth.core.compile import layout as L
from tileforth.core.compile.tilegen import CheckedLoad, CheckedStore
from tileforth.core.compile.tileops import Add, Copy, Fill, Load, Mma, Perm, Scale, Store, TileOp, Zero
from tileforth.core.compile.tiles import ACC_TYPES, IN_TYPES, WARP, Tile, elem_bytes
from tileforth.core.compile.warpgen import Shuffle, SyncWarp, Vote, WarpOp
from tileforth.core.errors import ForthError
from tileforth.core.session.eltypes import ELTYPES
from tileforth.core.session.output import ranges

if TYPE_CHECKING:
    from tileforth.core.compile.codegen import Sites

    from .backend import CpuBackend

# what one warp op costs the launch's step pool (ctx[CTX_STEPS_USED]), in loop iterations: a round
# trip to the host takes about as long as a few thousand iterations of compiled code, so a runaway
# loop of tile ops stops, with the default budget, as soon as a runaway loop of arithmetic does
WARP_OP_STEPS = 1024

_MEM_DTYPE = {"f16": np.dtype(np.float16), "bf16": np.dtype(ml_dtypes.bfloat16), "f32": np.dtype(np.float32)}
_ACC_DTYPE = {"f32": np.float32, "f16": np.float16}


def _f32(bits: int) -> np.float32:
    return np.float32(struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0])


def _mask(lanes: np.ndarray) -> int:
    """Bit i set for each true lanes[i]: a 32-bit lane mask, as a nonnegative cell."""
    return int(np.sum(np.left_shift(1, np.flatnonzero(lanes), dtype=np.int64)))


def _lanes(ids: list[int]) -> str:
    return f"lane {ids[0]}" if len(ids) == 1 else f"lanes {ranges(ids)}"


def _put(stack: list[np.ndarray], pos: int, value: np.ndarray) -> None:
    del stack[pos:]
    stack.append(value)


class WarpOps:
    def __init__(self, backend: "CpuBackend", sites: "Sites", ctx: "np.ndarray | None" = None) -> None:
        self.be = backend
        self.sites = sites
        self.ctx = backend.ctx if ctx is None else ctx  # the context of the worker running the block

    def error(self, site: int, message: str, word: str | None = None) -> ForthError:
        name, pos = self.sites.entries[site] if 0 <= site < len(self.sites.entries) else ("", None)
        where = f" in {name}" if name and name != "<line>" else ""
        return ForthError(message.replace("{where}", where), pos, word)

    def run_block(self, block: int) -> None:
        """Perform every warp op the block's warps are waiting at."""
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
            if self._loose_ops(rows[lanes], waiting):
                continue  # ACTIVEMASK went first: the lanes it released may yet join the others
            first = int(site[lanes][np.argmax(waiting)])
            op = self.sites.info[first]
            if isinstance(op, WarpOp):
                self._warp_op(op, first, block, w, rows[lanes])
                continue
            gw = block * be.warps_per_block + w // WARP
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
            self.perform(op, [int(x) for x in ops[0]] if len(ops) else [], be.tile_data[gw], first)
            status[lanes] = L.ST_RUN
            self.ctx[L.CTX_STEPS_USED] += WARP_OP_STEPS

    def _loose_ops(self, rows: np.ndarray, waiting: np.ndarray) -> bool:
        """Release the lanes of a warp that wait at an op that does not synchronise
        (ACTIVEMASK): the lanes at one such site get the mask of the lanes there.
        True when there were any."""
        sites = rows[:, L.T_SITE]
        loose = [int(s) for s in np.unique(sites[waiting]) if not getattr(self.sites.info[int(s)], "collective", True)]
        for s in loose:
            here = waiting & (sites == s)
            rows[here, L.T_OP] = _mask(here)
            rows[here, L.T_STATUS] = L.ST_RUN
            self.ctx[L.CTX_STEPS_USED] += WARP_OP_STEPS
        return bool(loose)

    def _warp_op(self, op: WarpOp, site: int, block: int, w: int, rows: np.ndarray) -> None:
        """A shuffle, vote or SYNCWARP: every thread of the warp must be there (a
        full mask); each lane gets its result in its first operand slot."""
        st, sites = rows[:, L.T_STATUS], rows[:, L.T_SITE]
        if not ((st == L.ST_WARP) & (sites == site)).all():
            raise self._divergence(site, block, w, st, sites, op.word)
        ops = rows[:, L.T_OP:L.T_OP + op.operands]
        match op:
            case Shuffle(mode=mode):
                rows[:, L.T_OP] = ops[:, 0][self._sources(op, mode, ops[:, 1], site, block, w)]
            case Vote(mode="ballot"):
                rows[:, L.T_OP] = _mask(ops[:, 0] != 0)
            case Vote(mode="any"):
                rows[:, L.T_OP] = -int((ops[:, 0] != 0).any())
            case Vote(mode="all"):
                rows[:, L.T_OP] = -int((ops[:, 0] != 0).all())
            case SyncWarp():
                rows[:, L.T_EPOCH] += 1  # the race detector's clock: the warp's lanes are ordered here
            case _:  # pragma: no cover - warpgen emits only the ops above
                raise AssertionError(op)
        st[:] = L.ST_RUN
        self.ctx[L.CTX_STEPS_USED] += WARP_OP_STEPS

    def _sources(self, op: WarpOp, mode: str, b: np.ndarray, site: int, block: int, w: int) -> np.ndarray:
        """The lane each lane reads (PTX's shfl.sync with a width of 32: b's low 5
        bits; up and down read their own lane when the source is outside the
        warp). A lane past the warp's threads (a block that is not a multiple of
        32) has no value: on a GPU the result is undefined, here an error."""
        n = len(b)
        lane = np.arange(n)
        bval = b & 31
        src = {"idx": bval, "up": lane - bval, "down": lane + bval, "xor": lane ^ bval}[mode]
        src = np.where((src >= 0) & (src < WARP), src, lane)
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
    def perform(self, op: TileOp, ops: list[int], stack: list[np.ndarray], site: int) -> None:
        match op:
            case Zero(dst, t):
                _put(stack, dst, np.zeros(t.rows_cols, _ACC_DTYPE[t.dtype]))
            case Fill(dst, t):
                _put(stack, dst, np.full(t.rows_cols, _f32(ops[0]), _ACC_DTYPE[t.dtype]))
            case Load(dst, t, word):
                _put(stack, dst, self.load(t, ops[0], ops[1], site, word, isinstance(op, CheckedLoad)))
            case Store(src, t):
                self.store(t, stack[src], ops[0], ops[1], site, isinstance(op, CheckedStore))
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
        i = np.arange(rows)[:, None]
        j = np.arange(cols)[None, :]
        idx = i * stride + j if t.layout == "row" else j * stride + i
        span = (int(idx.max()) + 1) * esize
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
        want = _MEM_DTYPE[t.dtype]
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

    def load(self, t: Tile, addr: int, stride: int, site: int, word: str, typed: bool = False) -> np.ndarray:
        view, idx = self._index(t, addr, stride, site, word, typed)
        mem = view.view(_MEM_DTYPE[t.dtype])[idx]
        if t.kind == "acc":
            return mem.astype(_ACC_DTYPE[t.dtype])
        return mem.astype(np.float32)  # exact: f16 and bf16 values are f32 values

    def store(self, t: Tile, value: np.ndarray, addr: int, stride: int, site: int, typed: bool = False) -> None:
        view, idx = self._index(t, addr, stride, site, "TSTORE", typed)
        view.view(_MEM_DTYPE[t.dtype])[idx] = value.astype(_MEM_DTYPE[t.dtype])
