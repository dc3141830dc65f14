"""The emulator's model of Hopper's asynchrony: mbarriers and TMA boxes (core/compile/mbarrier.py, tma.py).

Every Hopper word parks its thread (an op that does not synchronise); warpops.py hands the lanes parked at
one site to `perform` here, which returns each lane's result. ELECT is a ballot (emit, below).

Per launch context (one per worker: each has its own shared region) and block, the model keeps each
mbarrier (by its shared offset): its count, the arrivals its current phase still needs, the transaction
count (bytes announced less bytes delivered: it may go below zero when a TMA-LOAD lands before the
announcement, as on the GPU), its phase, who arrived in it. A phase completes when no arrival is left and
the transaction count is zero; the barrier goes to its next phase with its count again.

A TMA-LOAD reads its box from global memory when it is issued (elements outside the array are zeros),
lays it out as the tensor map says (plain rows, or swizzled: with the 128-byte swizzle 16-byte chunk c
of row r at chunk c xor (r mod 8), with the 64-byte one c xor ((r/2) mod 4), with the 32-byte one c xor
((r/4) mod 2): a function of the shared address, bits 4.. xor bits 7.., and the box starts 1024 aligned) and delivers its bytes to the barrier's current phase; the bytes are written to shared
memory when that phase completes. Until then, in checked mode, a read or write of them is an error: the
box's 16-byte chunks are marked in the cp.async model's pending shadow (asynccopy.py), which every checked
access consults, with copy ids of this model's own (from TMA_ID_BASE), whose E_ASYNC record `describe`
words. A TMA-STORE writes its box's elements inside the array when it is issued.

Reported (ForthErrors naming the barrier by its shared offset, and the tile it is in):
* a wait that can never complete: every thread of the block has finished, waits at a BARRIER, or waits
  on a phase that has not completed (nothing is left to arrive);
* more arrivals than the count: an arrival on a phase whose arrivals all came (it still waits for
  transaction bytes; on the GPU the count would underflow);
* an mbarrier used before MBAR-INIT, a box outside the block's shared memory, a tensor map that is none.
"""
from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from llvmlite import ir
from tileforth.core.compile import layout as L
from tileforth.core.compile.mbarrier import (COUNT_MAX, TX_MAX, Elect, FenceAsync, HopperOp, MbarArrive,
                                             MbarArriveTx, MbarExpectTx, MbarFence, MbarInit, MbarTryWait,
                                             PhaseDone)
from tileforth.core.compile.smem import A_READ, CHUNK, swizzled
from tileforth.core.compile.tileops import Vote
from tileforth.core.compile.tma import (SMEM_ALIGN, SWIZZLED_ALIGN, TMAP_BYTES, TMAP_FIELDS, TMAP_MAGIC, TmaLoad,
                                        TmaStore, TmaWait)
from tileforth.core.errors import ForthError
from tileforth.core.records import field, record

from .asynccopy import Copy

if TYPE_CHECKING:
    from tileforth.core.compile.codegen import Gen

I64 = ir.IntType(64)
WARP = 32
PHASES_MAX = 4096  # completed phases .PIPE keeps of a launch (of all its blocks, as they complete)
TMA_ID_BASE = 1 << 30  # the pending shadow's ids of TMA boxes (cp.async's count up from 1)
Error = Callable[[str, str], ForthError]


def _c(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


def emit(target: Any, g: "Gen", op: HopperOp, operands: list[ir.Value]) -> ir.Value | None:
    """The cpu target's code for a Hopper op: ELECT as a ballot (the lowest lane whose bit is set),
    every other op parks the thread for `perform`."""
    b = g.b
    if isinstance(op, Elect):
        mask = target.warp_op(g, Vote("ELECT", "ballot"), [_c(1)])
        linear = b.load(target.thr_slot(g, L.T_LINEAR), typ=I64)
        bs = b.load(b.gep(g.env.ctx, [_c(L.CTX_BLOCK_SIZE)], source_etype=I64), typ=I64)
        lane = b.and_(b.urem(linear, bs), _c(WARP - 1))
        cttz = g.intrinsic("llvm.cttz.i64", I64, [I64, ir.IntType(1)])
        return b.sext(b.icmp_unsigned("==", lane, b.call(cttz, [mask, ir.Constant(ir.IntType(1), 0)])), I64)
    target._park(g, op, operands)
    return b.load(target.thr_slot(g, L.T_OP), typ=I64) if op.results else None


# ---- the model -----------------------------------------------------------------------------------
@record(eq=False)
class Barrier:
    count: int
    pending: int  # arrivals its current phase still needs
    tx: int = 0  # transaction bytes announced less bytes delivered
    phase: int = 0  # phases completed
    arrived: set[int] = field(default_factory=set)  # threads that arrived on the current phase
    boxes: list[tuple[int, np.ndarray, list[int]]] = field(default_factory=list)  # (offset, bytes, ids) to land
    announced: int = 0  # transaction bytes announced for the current phase (its PhaseDone)
    landed: int = 0  # TMA boxes that delivered bytes to it


@record(eq=False)
class Block:
    launch: Any  # the cp.async model's Launch of the context (its region and pending shadow)
    block: int
    barriers: dict[int, Barrier] = field(default_factory=dict)
    boxes: dict[int, tuple[int, int]] = field(default_factory=dict)  # pending id -> (barrier offset, thread)


_MODELS: "weakref.WeakKeyDictionary[Any, Mbarriers]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def model(backend: Any) -> "Mbarriers":
    """The backend's model (made at its first Hopper op)."""
    with _LOCK:
        m = _MODELS.get(backend)
        if m is None:
            m = _MODELS[backend] = Mbarriers(backend)
        return m


def phases(backend: Any) -> list[PhaseDone]:
    """The completed mbarrier phases of the last launch that used mbarriers, every block's (.PIPE)."""
    m = _MODELS.get(backend)
    return list(m.phases) if m is not None else []


def perform(backend: Any, op: HopperOp, rows: np.ndarray, ctx: np.ndarray, site: int, sites: Any,
            error: Error) -> np.ndarray:
    """The op for each thread of `rows` (copies of their records, in order); each one's result."""
    return model(backend).perform(op, rows, ctx, site, sites, error)


class Mbarriers:
    def __init__(self, backend: Any) -> None:
        self.be = backend
        self._blocks: dict[int, Block] = {}  # by context
        self._next = TMA_ID_BASE
        self._lock = threading.Lock()
        self.phases: list[PhaseDone] = []  # the completed phases of the last launch's blocks (.PIPE)
        self._logged: Any = None  # that launch (the backend's launch_serial)

    # ---- naming ---------------------------------------------------------------------------------
    def where(self, off: int) -> str:
        place = self.be.asyncs.where(off)
        return f"the mbarrier at shared byte {off}" + ("" if place.startswith("shared byte") else f" ({place})")

    def _state(self, ctx: np.ndarray, tid: int, op: HopperOp, error: Error) -> Block:
        launch = self.be.asyncs._launch(ctx)  # arms the checked accesses' look-up of pending bytes
        block = tid // self.be.block_size
        st = self._blocks.get(ctx.ctypes.data)
        if st is not None and st.launch is launch and st.block == block:
            return st
        if st is not None and st.launch is launch and st.boxes and op.checked:
            off, thread = next(iter(st.boxes.values()))
            raise error(f"{op.word}" + "{where}" + f": block {st.block} finished with a TMA-LOAD of thread "
                        f"{thread} whose phase of {self.where(off)} never completed: wait for every phase a "
                        "box completes before the block ends", op.word)
        if st is not None and st.launch is launch:
            self._forget_boxes(st)
        st = self._blocks[ctx.ctypes.data] = Block(launch, block)
        serial = getattr(self.be, "launch_serial", 0)
        if self._logged != serial:  # a new launch (every worker's context): its blocks' phases are logged
            self._logged, self.phases = serial, []
        return st

    def _forget_boxes(self, st: Block) -> None:
        for cid in st.boxes:
            st.launch.copies.pop(cid, None)
        st.launch.pending[np.isin(st.launch.pending, np.array(list(st.boxes), np.int64) + 1)] = 0
        st.boxes.clear()

    # ---- performing -------------------------------------------------------------------------------
    def perform(self, op: HopperOp, rows: np.ndarray, ctx: np.ndarray, site: int, sites: Any,
                error: Error) -> np.ndarray:
        out = np.zeros(len(rows), np.int64)
        with self._lock:
            for i, r in enumerate(rows):
                tid = int(r[L.T_LINEAR])
                st = self._state(ctx, tid, op, error)
                ops = [int(x) for x in r[L.T_OP:L.T_OP + op.operands]]
                match op:
                    case MbarInit():
                        off = self._offset(st, op, ops[0], tid, error, init=True)
                        if not 1 <= ops[1] <= COUNT_MAX:
                            raise error(f"{op.word}" + "{where}" + f": thread {tid} gives {self.where(off)} a count "
                                        f"of {ops[1]}; a count is 1 to {COUNT_MAX}", op.word)
                        st.barriers[off] = Barrier(ops[1], ops[1])
                    case MbarArrive():
                        self._arrive(st, op, self._barrier(st, op, ops[0], tid, error), tid, error)
                    case MbarArriveTx() | MbarExpectTx():
                        bar = self._barrier(st, op, ops[0], tid, error)
                        if not 0 <= ops[1] <= TX_MAX:
                            raise error(f"{op.word}" + "{where}" + f": thread {tid} announces {ops[1]} bytes; a "
                                        f"phase expects 0 to {TX_MAX}", op.word)
                        bar.tx += ops[1]
                        bar.announced += ops[1]
                        if isinstance(op, MbarArriveTx):
                            self._arrive(st, op, bar, tid, error)
                    case MbarTryWait():
                        bar = self._barrier(st, op, ops[0], tid, error)
                        done = (bar.phase & 1) != (ops[1] & 1)
                        out[i] = -1 if done else 0
                        if not done and op.word == "MBAR-WAIT":  # (MBAR-TRY-WAIT alone does not wait)
                            self._stuck(st, op, ops[0], ops[1], tid, sites, error)
                    case TmaLoad():
                        self._load(st, op, ops, tid, site, error)
                    case TmaStore():
                        self._store(st, op, ops, tid, error)
                    case MbarFence() | FenceAsync() | TmaWait():
                        pass  # the model orders everything already
                    case _:  # pragma: no cover - the words emit only the ops above
                        raise AssertionError(op)
        return out

    def _offset(self, st: Block, op: HopperOp, addr: int, tid: int, error: Error, init: bool = False) -> int:
        off = addr - st.launch.region
        if addr % 8 or not 0 <= off <= st.launch.size - 8:
            raise error(f"{op.word}" + "{where}" + f": thread {tid}'s mbarrier address ${addr:x} is not 8 aligned "
                        "bytes of the block's shared memory: use `8 SHARED: bar`", op.word)
        return off

    def _barrier(self, st: Block, op: HopperOp, addr: int, tid: int, error: Error) -> Barrier:
        off = self._offset(st, op, addr, tid, error)
        bar = st.barriers.get(off)
        if bar is None:
            raise error(f"{op.word}" + "{where}" + f": thread {tid} uses {self.where(off)} before any MBAR-INIT "
                        "of it in this block: one thread initialises it (`bar 1 MBAR-INIT MBAR-FENCE`), then a "
                        "BARRIER, before the others use it", op.word)
        return bar

    def _arrive(self, st: Block, op: HopperOp, bar: Barrier, tid: int, error: Error) -> None:
        off = next(o for o, b in st.barriers.items() if b is bar)
        if bar.pending == 0:
            raise error(f"{op.word}" + "{where}" + f": thread {tid} arrives on phase {bar.phase} of "
                        f"{self.where(off)}, which has had all its {bar.count} arrivals (it waits for "
                        f"{bar.tx} transaction bytes): more arrivals than its count; MBAR-INIT it with the "
                        "number of threads that arrive", op.word)
        bar.arrived.add(tid)
        bar.pending -= 1
        self._complete(st, bar)

    def _complete(self, st: Block, bar: Barrier) -> None:
        if bar.pending or bar.tx:
            return
        launch = st.launch
        view = self.be.allocation_view(launch.region, launch.size)
        for off, data, ids in bar.boxes:
            if view is not None:
                view[off:off + len(data)] = data
            for cid in ids:
                launch.copies.pop(cid, None)
                st.boxes.pop(cid, None)
            chunks = np.arange(off // CHUNK, (off + len(data)) // CHUNK)
            mine = launch.pending[chunks] >= TMA_ID_BASE + 1
            launch.pending[chunks[mine]] = 0
        bar.boxes = []
        if len(self.phases) < PHASES_MAX:
            off = next(o for o, b in st.barriers.items() if b is bar)
            self.phases.append(PhaseDone(off, self.where(off), bar.phase, bar.count, bar.announced, bar.landed,
                                         st.block))
        bar.phase += 1
        bar.pending = bar.count
        bar.arrived = set()
        bar.announced = bar.landed = 0

    def _stuck(self, st: Block, op: HopperOp, addr: int, parity: int, tid: int, sites: Any, error: Error) -> None:
        """A wait that can never complete: no thread of the block is left that could arrive."""
        bs = self.be.block_size
        rows = self.be.thr[st.block * bs:(st.block + 1) * bs]
        waiting = np.zeros(len(rows), bool)  # at an MBAR-WAIT whose phase has not completed
        free = []  # the others not finished, nor at a BARRIER
        for k, r in enumerate(rows):
            status = int(r[L.T_STATUS])
            if status in (L.ST_DONE, L.ST_BARRIER):
                continue
            other = sites.info.get(int(r[L.T_SITE]))
            if status == L.ST_WARP and isinstance(other, MbarTryWait) and other.word == "MBAR-WAIT":
                bar = st.barriers.get(int(r[L.T_OP]) - st.launch.region)
                if bar is not None and (bar.phase & 1) == (int(r[L.T_OP + 1]) & 1):
                    waiting[k] = True
                    continue
            free.append((k, status, other))
        for k, status, other in free:
            # a lane at a warp-collective op (ELECT, a shuffle, a tile op) waits for its warp's lanes
            collective = status == L.ST_WARP and getattr(other, "collective", True)
            if not (collective and waiting[k - k % WARP:k - k % WARP + WARP].any()):
                return
        off = addr - st.launch.region
        bar = st.barriers[off]
        missing = f"{bar.pending} of its {bar.count} arrivals" if bar.pending else "no arrival"
        bytes_ = f" and {bar.tx} transaction bytes" if bar.tx > 0 else ""
        raise error(f"{op.word}" + "{where}" + f": thread {tid} waits for phase {bar.phase} (parity {parity}) of "
                    f"{self.where(off)}, which can never complete: it still needs {missing}{bytes_}, and every "
                    "thread of the block has finished or waits; arrive on it (MBAR-ARRIVE, MBAR-ARRIVE-TX "
                    "with a TMA-LOAD of those bytes) before waiting, or wait on the parity of a phase that "
                    "completes", op.word)

    # ---- TMA --------------------------------------------------------------------------------------
    def _tmap(self, op: HopperOp, addr: int, tid: int, error: Error) -> dict[str, int]:
        raw = self.be.allocation_view(addr, TMAP_BYTES) if addr % 64 == 0 else None
        words = raw.view(np.uint64) if raw is not None else None
        if words is None or int(words[0]) != TMAP_MAGIC:
            raise error(f"{op.word}" + "{where}" + f": thread {tid}'s tensor map ${addr:x} is not one: make one "
                        "with TMAP (`A 64 64 0 TMAP tA`) and pass its name", op.word)
        return {k: int(v) for k, v in zip(TMAP_FIELDS, words.tolist())}

    def _box_place(self, st: Block, op: HopperOp, saddr: int, t: dict[str, int], tid: int, error: Error) -> int:
        off = saddr - st.launch.region
        nbytes = t["box_rows"] * t["box_cols"] * t["esize"]
        align = SWIZZLED_ALIGN if t["swizzle"] else SMEM_ALIGN
        tile = {0: "SMEM-TILE", 32: "SMEM-TILE-SWZ32", 64: "SMEM-TILE-SWZ64"}.get(t["swizzle"], "SMEM-TILE-SWZ")
        if off % align or not 0 <= off <= st.launch.size - nbytes:
            raise error(f"{op.word}" + "{where}" + f": thread {tid}'s box of {nbytes} bytes at ${saddr:x} is not "
                        f"{align} aligned inside the block's shared memory: use a stage of a "
                        f"{tile} of the box's shape", op.word)
        return off

    @staticmethod
    def _window(t: dict[str, int], x: int, y: int) -> tuple[slice, slice, slice, slice]:
        """The box's part inside the array: (rows, cols) of the array and of the box."""
        r0, r1 = max(y, 0), min(y + t["box_rows"], t["rows"])
        c0, c1 = max(x, 0), min(x + t["box_cols"], t["cols"])
        r1, c1 = max(r1, r0), max(c1, c0)
        return slice(r0, r1), slice(c0, c1), slice(r0 - y, r1 - y), slice(c0 - x, c1 - x)

    def _array(self, op: HopperOp, t: dict[str, int], tid: int, error: Error) -> np.ndarray:
        nbytes = (t["rows"] - 1) * t["row_stride"] + t["cols"] * t["esize"]
        mem = self.be.allocation_view(t["gaddr"], nbytes)
        if mem is None:
            raise error(f"{op.word}" + "{where}" + f": thread {tid}'s tensor map's array ${t['gaddr']:x} is gone "
                        "(freed): make the tensor map again", op.word)
        full = np.zeros(t["rows"] * t["row_stride"], np.uint8)
        full[:nbytes] = mem
        return full.reshape(t["rows"], t["row_stride"])[:, :t["cols"] * t["esize"]]

    @staticmethod
    def _chunk_places(t: dict[str, int], nbytes: int) -> np.ndarray:
        """Where each 16-byte chunk of a box of nbytes (in row order) lies in shared memory, in chunks from
        the box's (1024-aligned) start: the swizzle of rows of t["swizzle"] bytes (smem.swizzled)."""
        idx = np.arange(nbytes // CHUNK)
        return swizzled(idx * CHUNK, t["swizzle"]) // CHUNK if t["swizzle"] else idx

    @classmethod
    def _swizzle(cls, t: dict[str, int], box: np.ndarray) -> np.ndarray:
        """The box (rows x row bytes) as its bytes in shared memory."""
        flat = np.ascontiguousarray(box).reshape(-1)
        if not t["swizzle"]:
            return flat
        chunks = flat.reshape(-1, CHUNK)
        out = np.empty_like(chunks)
        out[cls._chunk_places(t, flat.size)] = chunks
        return out.reshape(-1)

    def _load(self, st: Block, op: HopperOp, ops: list[int], tid: int, site: int, error: Error) -> None:
        saddr, tmap, x, y, baddr = ops
        t = self._tmap(op, tmap, tid, error)
        off = self._box_place(st, op, saddr, t, tid, error)
        bar = self._barrier(st, op, baddr, tid, error)
        x, y = _i32(x), _i32(y)
        es = t["esize"]
        box = np.zeros((t["box_rows"], t["box_cols"] * es), np.uint8)
        ar, ac, br, bc = self._window(t, x, y)
        box[br, bc.start * es:bc.stop * es] = self._array(op, t, tid, error)[ar, ac.start * es:ac.stop * es]
        data = self._swizzle(t, box)
        launch = st.launch
        chunks = np.arange(off // CHUNK, (off + len(data)) // CHUNK)
        ids: list[int] = []
        if op.checked:
            ids = list(range(self._next, self._next + len(chunks)))
            self._next = TMA_ID_BASE + (self._next - TMA_ID_BASE + len(chunks)) % (1 << 29)
            for cid, ch in zip(ids, chunks.tolist()):
                launch.copies[cid] = Copy(cid, tid, st.block, launch.region + ch * CHUNK, b"", site)
                st.boxes[cid] = (baddr - launch.region, tid)
            launch.pending[chunks] = np.array(ids, np.int64) + 1
        bar.boxes.append((off, data, ids))
        bar.landed += 1
        bar.tx -= len(data)  # complete_tx: the bytes arrived
        self._complete(st, bar)

    def _store(self, st: Block, op: HopperOp, ops: list[int], tid: int, error: Error) -> None:
        saddr, tmap, x, y = ops
        t = self._tmap(op, tmap, tid, error)
        off = self._box_place(st, op, saddr, t, tid, error)
        es = t["esize"]
        nbytes = t["box_rows"] * t["box_cols"] * es
        region = self.be.allocation_view(st.launch.region, st.launch.size)
        data = np.array(region[off:off + nbytes])
        if t["swizzle"]:  # unswizzle: the box's chunk i is at _chunk_places[i]
            data = data.reshape(-1, CHUNK)[self._chunk_places(t, nbytes)].reshape(-1)
        box = data.reshape(t["box_rows"], t["box_cols"] * es)
        ar, ac, br, bc = self._window(t, _i32(x), _i32(y))
        if ar.stop > ar.start and ac.stop > ac.start:
            for r in range(ar.start, ar.stop):
                dst = self.be.allocation_view(t["gaddr"] + r * t["row_stride"] + ac.start * es,
                                              (ac.stop - ac.start) * es)
                dst[:] = box[br.start + r - ar.start, bc.start * es:bc.stop * es]

    # ---- the E_ASYNC record of an access of a box in flight, in words (smemtiles.py) ------------
    def describe(self, thread: int, addr: int, aux: int, where: str, word: str | None) -> str | None:
        """The message for a checked access of a TMA box whose phase has not completed; None when the
        record is not about a box (the cp.async model words it)."""
        kind, value = aux >> 32, aux & 0xFFFFFFFF
        if kind > 1 or value - 1 < TMA_ID_BASE:
            return None
        for st in self._blocks.values():
            hit = st.boxes.get(value - 1)
            if hit is not None:
                bar_off, issuer = hit
                bar = st.barriers.get(bar_off)
                phase = f"phase {bar.phase} (parity {bar.phase & 1})" if bar is not None else "its phase"
                verb = "reads" if kind == A_READ else "writes"
                place = self.be.asyncs.where(addr - st.launch.region)
                return (f"{word or 'an access'}{where}: thread {thread} {verb} {place} before the TMA-LOAD of "
                        f"thread {issuer} into it completed: wait for {phase} of {self.where(bar_off)} first "
                        f"(`bar {bar.phase & 1 if bar is not None else 0} MBAR-WAIT`)")
        return None


def _i32(v: int) -> int:
    """A coordinate as the instruction reads it: a signed 32-bit integer."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v
