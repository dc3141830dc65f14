"""The emulator's model of asynchronous copies (cp.async: CP.ASYNC, CP.COMMIT, CP.WAIT; smem.py).

Each thread parks at each of these words (they are warp ops that do not
synchronise: warpops.py hands them here, lane by lane). The model keeps, per
launch context (one per worker: each has its own shared region), every copy
in flight: the thread that issued it, its 16 bytes (read from global memory
when it was issued), its destination, and its group (None while the thread
has not committed it). A copy lands, its bytes written to shared memory, only
at its thread's CP.WAIT that covers its group; until then the destination
keeps its old bytes, as the GPU may.

In checked mode the model also reports misuse, naming the tile, the stage and
the group (SmemTile.where):

* a read or write of shared bytes whose copy has not landed: the compiled
  access (CpuTarget.mem_access) calls `tf_async_check` (below, in IR; a runtime
  helper compiled once with the scheduler), which
  looks the 16-byte chunk up in this launch's `pending` shadow (copy id + 1,
  0: none) and records E_ASYNC; `describe` words it for the session;
* a CP.ASYNC into bytes another copy in flight targets, or into bytes another
  thread of the block read since the last BARRIER (a stage still being read):
  tf_async_check keeps the last two readers of each chunk (thread + 1 | epoch
  << 32) in the `reads` shadow;
* a CP.WAIT while the thread has copies it has not committed: a wait lands
  committed groups only, so it can never land those;
* a block that ends with copies in flight (found when the next block of the
  worker starts copying).

The table ctx[CTX_ASYNC] points to: region, region bytes, the pending shadow's
address (i64 per 16-byte chunk), the reads shadow's (two i64 per chunk), the
writes shadow's (one i64 per chunk). A checked launch of a session with
SMEM-TILEs arms it before its blocks run in a context (`arm`: the shared
stores and reads before the first copy op are watched too); elsewhere the
launch's first async op in that context arms it, and launches without these
words pay nothing but one load per checked access. The readers and writers are
not cleared between a worker's blocks: every check compares the blocks of the
two threads.
"""
from __future__ import annotations

import ctypes
import threading
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from llvmlite import ir
from tileforth.core.compile import layout as L
from tileforth.core.compile.smem import (
    PIPE_BLOCKS,
    A_READ,
    A_UNSYNCED,
    CHUNK,
    AsyncCommit,
    AsyncCopy,
    AsyncOp,
    AsyncWait,
    PipeStep,
    SmemTile,
    StageState,
    WarpWait,
)
from tileforth.core.compile.tiles import elem_bytes
from tileforth.core.errors import ForthError
from tileforth.core.records import field, record

from .copytable import Copy, CopyTable

__all__ = ["AsyncCopies", "Copy", "helper_ir", "helper_ir_key"]

if TYPE_CHECKING:
    from tileforth.core.compile.codegen import Gen

I1, I32, I64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)
PTR = ir.PointerType()
HELPER = "tf_async_check"
WARP = 32
# a landed copy's chunk in the pending shadow: -(1 + its thread | the thread's epoch at the wait << 24)
LANDED_SHIFT = 24
LANDED_THREAD = 1 << LANDED_SHIFT
KEEP_LAUNCHES = 256  # launch contexts whose state is kept (describe reads the last ones)
PIPE_STEPS = 16  # the waits per warp of a block that .PIPE keeps
EPOCH_BITS = (1 << 39) - 1  # the epoch bits of a trace record (races.py: size | epoch << 8)

_LANE = np.arange(CHUNK)  # a chunk's bytes


def _c(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


def _check_fn(module: ir.Module, fail: ir.Function) -> ir.Function:
    """`i1 tf_async_check(ctx, thr, addr, size, kind | site << 2)`, a runtime helper compiled once with
    the scheduler (backend.py), which kernels declare (codegen.HELPERS): 1 when the access may go
    ahead; else E_ASYNC is recorded (tf_fail) and 0. A read notes its thread as the chunk's reader."""
    fn = ir.Function(module, ir.FunctionType(I1, [PTR, PTR, I64, I64, I64]), HELPER)
    fn.attributes.add("noinline")
    ctx, thr, addr, size, ks = fn.args
    blocks = {n: fn.append_basic_block(n) for n in ("entry", "armed", "inside", "chunk", "next", "pending",
                                                    "read", "note", "newer", "wrote", "ok")}
    b = ir.IRBuilder(blocks["entry"])

    def slot(base: ir.Value, i: int | ir.Value, ty: ir.Type = I64) -> ir.Value:
        return b.gep(base, [_c(i) if isinstance(i, int) else i], source_etype=ty)

    table_i = b.load(slot(ctx, L.CTX_ASYNC), typ=I64)
    b.cbranch(b.icmp_unsigned("==", table_i, _c(0)), blocks["ok"], blocks["armed"])
    b.position_at_end(blocks["armed"])
    table = b.inttoptr(table_i, PTR)
    off = b.sub(addr, b.load(slot(table, 0), typ=I64))
    inside = b.icmp_unsigned("<", off, b.load(slot(table, 1), typ=I64))
    b.cbranch(inside, blocks["inside"], blocks["ok"])
    b.position_at_end(blocks["inside"])
    pend = b.inttoptr(b.load(slot(table, 2), typ=I64), PTR)
    first = b.lshr(off, _c(4))
    last = b.lshr(b.add(off, b.sub(size, _c(1))), _c(4))
    b.branch(blocks["chunk"])
    # the chunks the access touches (one, or two for an access across a 16-byte boundary)
    b.position_at_end(blocks["chunk"])
    k = b.phi(I64)
    k.add_incoming(first, blocks["inside"])
    v = b.load(slot(pend, k), typ=I64)
    landed, check_landed, unsynced = (fn.append_basic_block(n) for n in ("landed", "check_landed", "unsynced"))
    b.cbranch(b.icmp_signed(">", v, _c(0)), blocks["pending"], check_landed)
    b.position_at_end(check_landed)
    b.cbranch(b.icmp_signed("<", v, _c(0)), landed, blocks["next"])
    # landed at thread lt's wait (epoch le then): another thread of the block needs a BARRIER since
    b.position_at_end(landed)
    m = b.sub(b.sub(_c(0), v), _c(1))
    lt, le = b.and_(m, _c(LANDED_THREAD - 1)), b.lshr(m, _c(LANDED_SHIFT))
    me0 = b.load(slot(thr, L.T_LINEAR), typ=I64)
    bs = b.load(slot(ctx, L.CTX_BLOCK_SIZE), typ=I64)
    same_block = b.icmp_unsigned("==", b.udiv(lt, bs), b.udiv(me0, bs))
    same_warp = b.icmp_unsigned("==", b.lshr(lt, _c(5)), b.lshr(me0, _c(5)))
    myep = b.and_(b.load(slot(thr, L.T_EPOCH), typ=I64), _c(0xFFFFFFFF))
    conc = b.select(same_warp, b.icmp_unsigned("==", le, myep),
                    b.icmp_unsigned("==", b.lshr(le, _c(16)), b.lshr(myep, _c(16))))
    bad = b.and_(b.and_(b.icmp_unsigned("!=", lt, me0), same_block), conc)
    b.cbranch(bad, unsynced, blocks["next"])
    b.position_at_end(unsynced)
    b.call(fail, [ctx, thr, _c(L.E_ASYNC), b.lshr(ks, _c(2)), addr, b.or_(lt, _c(A_UNSYNCED << 32))])
    b.ret(ir.Constant(I1, 0))
    b.position_at_end(blocks["next"])
    k1 = b.add(k, _c(1))
    k.add_incoming(k1, blocks["next"])
    b.cbranch(b.icmp_unsigned("<=", k1, last), blocks["chunk"], blocks["read"])
    b.position_at_end(blocks["pending"])
    kind = b.and_(ks, _c(3))
    wrote = b.zext(b.icmp_unsigned("!=", kind, _c(0)), I64)  # a write or an atomic: A_WRITE
    aux = b.or_(v, b.shl(b.add(wrote, _c(A_READ)), _c(32)))
    b.call(fail, [ctx, thr, _c(L.E_ASYNC), b.lshr(ks, _c(2)), addr, aux])
    b.ret(ir.Constant(I1, 0))
    # a read: this thread becomes the chunk's last reader (the one before, if another, the second)
    b.position_at_end(blocks["read"])
    b.cbranch(b.icmp_unsigned("==", b.and_(ks, _c(3)), _c(0)), blocks["note"], blocks["wrote"])
    # a write (or an atomic): this thread becomes the chunks' last writer (a CP.ASYNC into them by another
    # thread needs a BARRIER first)
    b.position_at_end(blocks["wrote"])
    writes = b.inttoptr(b.load(slot(table, 4), typ=I64), PTR)
    wentry = b.or_(b.add(b.load(slot(thr, L.T_LINEAR), typ=I64), _c(1)),
                   b.shl(b.and_(b.load(slot(thr, L.T_EPOCH), typ=I64), _c(0xFFFFFFFF)), _c(32)))
    b.store(wentry, slot(writes, first))
    b.store(wentry, slot(writes, last))
    b.branch(blocks["ok"])
    b.position_at_end(blocks["note"])
    reads = b.inttoptr(b.load(slot(table, 3), typ=I64), PTR)
    me = b.add(b.load(slot(thr, L.T_LINEAR), typ=I64), _c(1))
    epoch = b.and_(b.load(slot(thr, L.T_EPOCH), typ=I64), _c(0xFFFFFFFF))
    entry = b.or_(me, b.shl(epoch, _c(32)))
    p0 = slot(reads, b.shl(first, _c(1)))
    e0 = b.load(p0, typ=I64)
    same = fn.append_basic_block("same")
    b.cbranch(b.icmp_unsigned("!=", b.and_(e0, _c(0xFFFFFFFF)), me), blocks["newer"], same)
    b.position_at_end(blocks["newer"])
    b.store(e0, b.gep(p0, [_c(1)], source_etype=I64))
    b.store(entry, p0)
    b.branch(blocks["ok"])
    b.position_at_end(same)  # the same reader again: its entry with its newer epoch
    b.store(entry, p0)
    b.branch(blocks["ok"])
    b.position_at_end(blocks["ok"])
    b.ret(ir.Constant(I1, 1))
    return fn


def helper_ir() -> str:
    """tf_async_check's definition, as IR text for the scheduler's module (which defines tf_fail)."""
    m = ir.Module("asynccopy")
    fail = ir.Function(m, ir.FunctionType(ir.VoidType(), [PTR, PTR, I64, I64, I64, I64]), "tf_fail")
    _check_fn(m, fail)
    return "\n".join(str(f) for f in m.functions if not f.is_declaration)


def helper_ir_key() -> bytes:
    """What helper_ir() is made from, for the scheduler's disk cache: this module's source and layout.py's."""
    parts = []
    for path in (__file__, L.__file__):
        with open(path, "rb") as fh:
            parts.append(fh.read())
    return b"\0".join(parts)


def emit_check(g: "Gen", addr: ir.Value, size: int, code: ir.Value) -> ir.Value:
    """The call of tf_async_check for one checked access (code: kind | site << 2): its i1."""
    return g.b.call(g.helper(HELPER), [g.env.ctx, g.env.thr, addr, _c(size), code])


# ---- the model -----------------------------------------------------------------------------------
@record(eq=False)
class Threads:
    """The copy state of a block's threads, one entry per thread of the block (its linear index in the
    block): the groups it committed, the groups below `landed` have landed (a thread's groups in flight
    are landed..committed-1, empty ones included), its CP.WAITs and its last one's count and the groups
    committed then (-1: none yet). Its copies (their groups, -1 not committed) are in the CopyTable."""
    committed: np.ndarray
    landed: np.ndarray
    waits: np.ndarray
    last_n: np.ndarray
    last_committed: np.ndarray
    base: int = 0  # the block's first thread
    copies: CopyTable | None = None  # the launch's copies (get's open copies)

    @staticmethod
    def of(n: int, base: int = 0, copies: CopyTable | None = None) -> "Threads":
        return Threads(np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
                       np.full(n, -1, np.int64), base, copies)

    def get(self, tid: int) -> "ThreadState | None":
        """Thread tid's state (a debugger's view: debugstate.py), None when it is not of the block."""
        k = tid - self.base
        if not 0 <= k < len(self.committed):
            return None
        t = self.copies
        open_ids: list[int] = []
        if t is not None:
            live = t.live_rows()
            mine = live[t.cp[live] & (t.thread[live] == tid) & (t.group[live] == -1)]
            open_ids = t.id[mine].tolist()
        return ThreadState(int(self.committed[k]), list(range(int(self.landed[k]), int(self.committed[k]))),
                           open_ids)


@record(eq=False)
class ThreadState:
    """One thread's copy state: groups committed, the groups in flight, the copies not committed yet."""
    committed: int
    groups: list[int]
    open: list[int]


@record(eq=False)
class Launch:
    """One launch context's state."""
    region: int
    size: int
    table: np.ndarray
    pending: np.ndarray  # i64 per chunk: copy id + 1 in flight, a landed marker (< 0), or 0
    reads: np.ndarray  # two i64 per chunk
    writes: np.ndarray  # one i64 per chunk: its last writer (thread + 1 | epoch << 32), 0: none
    block: int = -1
    addr: int = 0  # the table's address (what ctx[CTX_ASYNC] holds while this is the context's launch)
    view: np.ndarray | None = None  # the region's bytes (made at the first landing)
    threads: Threads = field(default_factory=lambda: Threads.of(0))  # the block's threads
    copies: CopyTable = field(default_factory=CopyTable)  # in flight, by id
    landed_group: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # per chunk: the group of the
    # copy that landed there, -1: none


class AsyncCopies:
    """The backend's model (CpuBackend.asyncs): one Launch per context in use."""

    def __init__(self, backend: Any) -> None:
        self.be = backend
        self.tiles: list[SmemTile] = []  # the session's SMEM-TILEs (words/smem.py keeps it)
        self._launches: dict[int, Launch] = {}  # the contexts whose launch has performed a copy-model op
        self._armed: dict[int, Launch] = {}  # armed (arm) before the first such op of the context's launch
        self._next = 1  # the next copy's id + 1 (ids are unique in the process, but for wrapping at 2**31)
        self._lock = threading.Lock()
        self._touched: set[int] = set()  # the contexts this launch used (finish() reads them)
        self._steps: dict[int, dict[int, PipeStep]] = {}  # this launch's blocks: the k-th wait of their warps
        self.pipe_blocks: dict[int, list[PipeStep]] = {}  # the last finished launch's, per block (what .PIPE shows)
        self._trace_view: tuple[int, np.ndarray] | None = None
        self._labels: tuple[tuple, Any] | None = None  # _stage_labels' last (key, result)

    # ---- naming ---------------------------------------------------------------------------------
    def where(self, off: int) -> str:
        for t in self.tiles:
            w = t.where(off)
            if w is not None:
                return w
        return f"shared byte {off}"

    def _launch(self, ctx: np.ndarray) -> Launch:
        """The state of the launch ctx runs, made at its first copy-model op (or taken from `arm`'s)."""
        key = ctx.ctypes.data
        st = self._launches.get(key)
        if st is not None and ctx[L.CTX_ASYNC] == st.addr:
            return st
        st = self._armed.pop(key, None)
        if st is not None and ctx[L.CTX_ASYNC] == st.addr:
            self._keep(key, st)
            return st
        st = self._new_launch(ctx)
        self._keep(key, st)
        return st

    def _keep(self, key: int, st: Launch) -> None:
        if len(self._launches) >= KEEP_LAUNCHES:  # the oldest contexts' launches are long over
            for old in list(self._launches)[:KEEP_LAUNCHES // 2]:
                del self._launches[old]
        self._launches[key] = st

    def _new_launch(self, ctx: np.ndarray) -> Launch:
        """A fresh state for the launch ctx runs, its table armed in ctx."""
        region, size = int(ctx[L.CTX_SHARED]), max(int(ctx[L.CTX_SHARED_SIZE]), CHUNK)
        chunks = -(-size // CHUNK)
        pending, reads, writes = np.zeros(chunks, np.int64), np.zeros(2 * chunks, np.int64), np.zeros(chunks, np.int64)
        table = np.array([region, chunks * CHUNK, pending.ctypes.data, reads.ctypes.data, writes.ctypes.data],
                         np.int64)
        st = Launch(region, size, table, pending, reads, writes, addr=table.ctypes.data,
                    landed_group=np.full(chunks, -1, np.int64))
        ctx[L.CTX_ASYNC] = table.ctypes.data
        return st

    def _state(self, ctx: np.ndarray) -> Launch | None:
        """The state of the launch ctx runs when its table is armed (by a copy-model op or by arm), else None."""
        key, table = ctx.ctypes.data, ctx[L.CTX_ASYNC]
        for launches in (self._launches, self._armed):
            st = launches.get(key)
            if st is not None and table == st.addr:
                return st
        return None

    def arm(self, ctx: np.ndarray) -> None:
        """A checked launch of a session with SMEM-TILEs, before its blocks run in this context (backend.py):
        the table is armed from the start, so the shared stores and reads before the launch's first copy op
        are in the shadows too (a store or a read of a stage that another thread's CP.ASYNC then
        overwrites with no BARRIER between is reported as one after a copy op is). Armed once per launch."""
        with self._lock:
            if self._state(ctx) is None:  # (the debugger's view, debugstate.py, shows groups from the first op on)
                self._armed[ctx.ctypes.data] = self._new_launch(ctx)

    # ---- the end of a launch ----------------------------------------------------------------------
    def finish(self) -> tuple[Copy, int] | None:
        """After a launch (the session's launch hook, words/smem.py): the record of waits of a launch
        that copied becomes what .PIPE shows, with where it stopped if copies were left in flight; the first copy left in flight
        and how many were (None: none). Their bytes never land: the launch is over."""
        with self._lock:
            touched = [self._launches[k] for k in self._touched if k in self._launches]
            self._touched.clear()
            if not touched:  # a launch without copies: .PIPE still shows the last one that had them
                return None
            blocks = {b: [mine[k] for k in sorted(mine)] for b, mine in sorted(self._steps.items())}
            self._steps = {}
            left = [c for st in touched for c in st.copies.values()]
            for st in touched:  # a block stopped with copies in flight: a last step, where it stopped
                if st.copies and 0 <= st.block < PIPE_BLOCKS:
                    blocks.setdefault(st.block, []).append(PipeStep(-1, -1, (), self._stages(st)))
            self.pipe_blocks = dict(sorted(blocks.items()))  # (the launches' states stay for describe())
            if not left:
                return None
            return min(left, key=lambda c: c.id), len(left)

    # ---- .PIPE: the stages of a block and the waits of its warps ----------------------------------
    @property
    def pipe(self) -> list[PipeStep]:
        """The last finished launch's steps of its first block that waited (.PIPE's default)."""
        return next(iter(self.pipe_blocks.values()), [])

    def _stages(self, st: Launch) -> tuple[StageState, ...]:
        """Every stage's state now (.PIPE): its chunks in flight and landed, and their groups; all stages at once
        through a label per chunk (_stage_labels), or stage by stage where stages overlap."""
        got = self._stage_labels(len(st.pending))
        if got is None:
            return self._stages_one_by_one(st)
        names, lab = got
        p = st.pending
        flying, landed = (p > 0) & (lab >= 0), (p < 0) & (lab >= 0)
        n = len(names)
        in_flight, landed_n = np.bincount(lab[flying], minlength=n), np.bincount(lab[landed], minlength=n)
        fg: list[list[int]] = [[] for _ in range(n)]
        lg: list[list[int]] = [[] for _ in range(n)]
        if in_flight.any():  # the groups of the copies in flight there (groups_of's: by id among the live rows)
            t = st.copies
            live = t.live_rows()
            order = np.argsort(t.id[live], kind="stable")
            ids = t.id[live][order]
            fid = p[flying] - 1
            k = np.minimum(np.searchsorted(ids, fid), max(len(ids) - 1, 0))
            ok = ids[k] == fid if len(ids) else np.zeros(len(fid), np.bool_)
            groups = t.group[live[order[k[ok]]]]
            for v in np.unique(lab[flying][ok] << 32 | (groups + 1)).tolist():
                fg[v >> 32].append((v & 0xFFFFFFFF) - 1)
        if landed_n.any():
            g = st.landed_group[landed]
            for v in np.unique(lab[landed][g >= 0] << 32 | g[g >= 0]).tolist():
                lg[v >> 32].append(v & 0xFFFFFFFF)
        return tuple(StageState(name, stage, per, int(in_flight[i]), int(landed_n[i]), tuple(fg[i]), tuple(lg[i]))
                     for i, (name, stage, per) in enumerate(names))

    def _stage_labels(self, chunks: int) -> tuple[list[tuple[str, int, int]], np.ndarray] | None:
        """The stages _stages_one_by_one shows (tile, stage, chunks) and each chunk's index among them (-1: none),
        kept for the tiles and the region's size; None when two stages share a chunk."""
        key = (chunks, tuple((t.name, t.offset, t.stages, t.stage_bytes, t.bytes) for t in self.tiles))
        if self._labels is not None and self._labels[0] == key:
            return self._labels[1]
        names: list[tuple[str, int, int]] = []
        lab = np.full(chunks, -1, np.int64)
        got: tuple[list[tuple[str, int, int]], np.ndarray] | None = (names, lab)
        for t in self.tiles:
            per = t.bytes // CHUNK
            for s in range(t.stages):
                lo = (t.offset + s * t.stage_bytes) // CHUNK
                if lo + per > chunks:
                    continue
                if (lab[lo:lo + per] >= 0).any():
                    got = None
                    break
                lab[lo:lo + per] = len(names)
                names.append((t.name, s, per))
            if got is None:
                break
        self._labels = (key, got)
        return got

    def _stages_one_by_one(self, st: Launch) -> tuple[StageState, ...]:
        out = []
        for t in self.tiles:
            per = t.bytes // CHUNK
            for s in range(t.stages):
                lo = (t.offset + s * t.stage_bytes) // CHUNK
                if lo + per > len(st.pending):
                    continue
                p = st.pending[lo:lo + per]
                flying = p[p > 0] - 1
                fg = sorted(set(st.copies.groups_of(flying).tolist()))
                landed_at = np.flatnonzero(p < 0) + lo
                lg = sorted({g for g in st.landed_group[landed_at].tolist() if g >= 0})
                out.append(StageState(t.name, s, per, len(flying), len(landed_at), tuple(fg), tuple(lg)))
        return tuple(out)

    def _note_wait(self, st: Launch, op: AsyncWait, site: int, rows: np.ndarray, before: list[tuple[int, ...]],
                   landed_copies: int) -> int | None:
        """A warp of block st.block waited: its k-th wait joins the block's step k (k, or None past PIPE_STEPS),
        whose stages the caller sets (_stages, once the warps it performs have waited)."""
        tids = rows[:, L.T_LINEAR].tolist()
        warp = tids[0] % self.be.block_size // WARP
        k = int(st.threads.waits[tids[0] - st.block * self.be.block_size]) - 1
        if k >= PIPE_STEPS:
            return None
        first = before[0]
        landed = first[:max(0, len(first) - op.n)]
        wait = WarpWait(warp, op.n, first, landed, len(tids), all(b == first for b in before), landed_copies)
        mine = self._steps.setdefault(st.block, {})
        old = mine.get(k)
        waits = tuple(w for w in (old.waits if old else ()) if w.warp != warp) + (wait,)
        mine[k] = PipeStep(k, site, tuple(sorted(waits, key=lambda w: w.warp)), old.stages if old else ())
        return k

    # ---- PROFILE: a traced launch's records of the copies' shared writes (accessprofile.py) --------
    def _trace(self, ctx: np.ndarray, rows: np.ndarray, site: int) -> None:
        """Append a write record per copy (thread, kind 1 | site << 2, shared address, 16 | epoch << 8)
        to the launch's trace, as tf_race appends a load's (the source's read is traced there, races.py)."""
        self.append_trace(ctx, rows[:, L.T_LINEAR], 1 | site << 2, rows[:, L.T_OP + 1], rows[:, L.T_EPOCH], CHUNK)

    def append_trace(self, ctx: np.ndarray, threads: np.ndarray, kind_site: int, addrs: np.ndarray,
                     epochs: np.ndarray, size: int) -> None:
        """Append one record per access (thread, kind | site << 2, address, size | epoch << 8) to the
        launch's trace (PROFILE: accessprofile.py), as far as its capacity; those past it are counted."""
        addr, cap = int(ctx[L.CTX_TRACE]), int(ctx[L.CTX_TRACE_CAP])
        n, m = int(ctx[L.CTX_TRACE_LEN]), len(threads)
        ctx[L.CTX_TRACE_LEN] = n + m
        keep = max(0, min(m, cap - n))
        if not keep:
            return
        if self._trace_view is None or self._trace_view[0] != addr:
            buf = (ctypes.c_int64 * (4 * cap)).from_address(addr)
            self._trace_view = (addr, np.ctypeslib.as_array(buf).reshape(cap, 4))
        rec = self._trace_view[1][n:n + keep]
        rec[:, 0] = threads[:keep]
        rec[:, 1] = kind_site
        rec[:, 2] = addrs[:keep]
        rec[:, 3] = size | (epochs[:keep] & EPOCH_BITS) << 8

    # ---- performing the ops of the lanes parked at one site ---------------------------------------
    def perform(self, op: AsyncOp, rows: np.ndarray, ctx: np.ndarray, site: int,
                error: Callable[[str, str], ForthError]) -> None:
        """The op for each thread of `rows` (their records, in order), as the threads would run it."""
        with self._lock:
            st = self._launch(ctx)
            self._touched.add(ctx.ctypes.data)
            bs = self.be.block_size
            if isinstance(op, AsyncCopy) and ctx[L.CTX_TRACE]:
                self._trace(ctx, rows, site)
            if int(rows[0, L.T_LINEAR]) // bs == int(rows[-1, L.T_LINEAR]) // bs:  # one block (rows in order)
                self._perform_block(st, op, rows, site, error)
                return
            blocks = rows[:, L.T_LINEAR] // bs
            cuts = np.flatnonzero(blocks[1:] != blocks[:-1]) + 1
            for part in np.split(rows, cuts):
                self._perform_block(st, op, part, site, error)

    def _perform_block(self, st: Launch, op: AsyncOp, rows: np.ndarray, site: int,
                       error: Callable[[str, str], ForthError]) -> None:
        """The op for the threads of rows, of one block, as they would run it one after another."""
        bs = self.be.block_size
        block = int(rows[0, L.T_LINEAR]) // bs
        if block != st.block:
            self._new_block(st, block, op, error)
        local = rows[:, L.T_LINEAR] - block * bs
        match op:
            case AsyncCopy():
                if len(rows) > 1 and self._copies_at_once(st, op, rows, site):
                    return
                for r in rows:
                    self._copy(st, op, int(r[L.T_LINEAR]), block, r, site, error)
            case AsyncCommit():
                t = st.copies
                live = t.live_rows()
                open_ = live[t.cp[live] & (t.group[live] == -1)]
                mine = np.zeros(bs, np.bool_)
                mine[local] = True
                lt = t.thread[open_] - block * bs
                open_, lt = open_[mine[lt]], lt[mine[lt]]
                t.group[open_] = st.threads.committed[lt]
                st.threads.committed[local] += 1
            case AsyncWait(n=n) if block < PIPE_BLOCKS:  # .PIPE's record of the block, warp by warp
                warps = local // WARP
                cuts = np.flatnonzero(warps[1:] != warps[:-1]) + 1
                noted: set[int] = set()
                try:
                    for part, loc in zip(np.split(rows, cuts), np.split(local, cuts)):
                        th = st.threads
                        before = [tuple(range(a, b)) for a, b in zip(th.landed[loc].tolist(),
                                                                       th.committed[loc].tolist())]
                        flying = len(st.copies)
                        self._wait(st, op, part, loc, n, error)
                        k = self._note_wait(st, op, site, part, before, flying - len(st.copies))
                        if k is not None:
                            noted.add(k)
                finally:
                    stages = self._stages(st) if noted else ()
                    recorded = self._steps.get(block, {})
                    for k in noted:
                        old = recorded[k]
                        recorded[k] = PipeStep(k, old.site, old.waits, stages)
            case AsyncWait(n=n):
                self._wait(st, op, rows, local, n, error)

    def _copies_at_once(self, st: Launch, op: AsyncOp, rows: np.ndarray, site: int) -> bool:
        """The copies of rows (threads of the block the launch is at), with numpy, when nothing about
        them is unusual: all addresses good, the sources in one allocation, no chunk twice, in
        flight or (checked) read by another thread since the last BARRIER. False: nothing done (the
        thread-by-thread path does them, and words what is wrong)."""
        bs = self.be.block_size
        tids = rows[:, L.T_LINEAR]
        gaddr, saddr, nbytes = rows[:, L.T_OP], rows[:, L.T_OP + 1], rows[:, L.T_OP + 2]
        nmin, nmax = int(nbytes.min()), int(nbytes.max())
        whole = nmin == CHUNK and nmax == CHUNK
        if nmin < 0 or nmax > CHUNK:
            return False
        if (((saddr | gaddr) & (CHUNK - 1)).any() or int(saddr.min()) < st.region
                or int(saddr.max()) > st.region + st.size - CHUNK):
            return False
        if int(tids[0]) // bs != st.block or int(tids[-1]) // bs != st.block:  # (rows in order: perform's)
            return False
        chunks = (saddr - st.region) >> 4
        if (st.pending[chunks] > 0).any():
            return False
        order = np.sort(chunks)
        if (order[1:] == order[:-1]).any():
            return False
        table = self.be.alloc_table
        if not len(table):
            return False
        k = int(np.searchsorted(table[:, 0], int(gaddr.min()), side="right")) - 1
        if k < 0:
            return False
        lo, hi = int(table[k, 0]), int(table[k, 1])
        if whole:
            if int(gaddr.min()) < lo or int(gaddr.max()) + CHUNK > hi:
                return False
        elif ((nbytes > 0) & ((gaddr < lo) | (gaddr + nbytes > hi))).any():
            return False
        src = self.be.allocation_view(lo, hi - lo)
        if src is None:
            return False
        if op.checked:
            epoch = rows[:, L.T_EPOCH] & 0xFFFFFFFF
            e = st.reads.reshape(-1, 2)[chunks]  # the chunks' last two readers
            w = st.writes[chunks]  # and last writers
            # an entry can be concurrent with this copy only when its thread had passed as many BARRIERs
            # (bits 48 up of an entry: the BARRIERs of its epoch): the full rule only for those
            bar = epoch >> 16
            if ((((e >> 48) == bar[:, None]) & (e != 0)).any()
                    or (((w >> 48) == bar) & (w != 0)).any()):
                reader = (e & 0xFFFFFFFF) - 1
                theirs = e >> 32
                me = tids[:, None]
                concurrent = np.where(reader // WARP == me // WARP, theirs == epoch[:, None],
                                      theirs >> 16 == (epoch >> 16)[:, None])
                if ((reader >= 0) & (reader != me) & (reader // bs == st.block) & concurrent).any():
                    return False
                writer, theirs = (w & 0xFFFFFFFF) - 1, w >> 32
                concurrent = np.where(writer // WARP == tids // WARP, theirs == epoch, theirs >> 16 == epoch >> 16)
                if ((writer >= 0) & (writer != tids) & (writer // bs == st.block) & concurrent).any():
                    return False
        lane = _LANE
        rel = gaddr - lo
        if whole and not (rel & (CHUNK - 1)).any():  # the common case: whole chunks at 16-byte steps of the
            data = src[:len(src) & -CHUNK].reshape(-1, CHUNK)[rel >> 4]  # allocation: its 16-byte rows
        elif whole:
            data = src[rel[:, None] + lane]
        else:
            idx = np.clip((gaddr - lo)[:, None] + lane, 0, len(src) - 1)
            data = np.where(lane < nbytes[:, None], src[idx], 0).astype(np.uint8)
        first = self._next
        self._next = (self._next + len(rows)) % (1 << 31) or 1
        ids = np.arange(first - 1, first - 1 + len(rows), dtype=np.int64)
        st.copies.add_many(ids, tids, st.block, saddr, data, site, src=gaddr, nbytes=nbytes)
        st.pending[chunks] = ids + 1
        return True

    def _new_block(self, st: Launch, block: int, op: AsyncOp, error) -> None:
        """The worker's region goes to another block: the last one's copies in flight never land."""
        if st.copies and op.checked:
            c, left = st.copies.record(int(st.copies.live_rows()[0])), len(st.copies)
            raise error(f"{op.word}" + "{where}" + f": block {st.block} finished with {left} "
                        f"cp.async cop{'y' if left == 1 else 'ies'} in flight that no CP.WAIT landed "
                        f"(thread {c.thread}'s into {self.where(c.dst - st.region)}, "
                        f"{self._group(c)}): end with `0 CP.WAIT` before the threads finish", op.word)
        # the last block's copies in flight never land, its landed chunks are forgotten; its readers and
        # writers stay: an entry of another block's thread is never concurrent with this block's (every
        # check compares blocks), and this block's accesses before its first copy op are in them (arm)
        st.pending[:] = 0
        st.threads = Threads.of(self.be.block_size, block * self.be.block_size, st.copies)
        st.copies.clear()
        st.landed_group[:] = -1
        st.block = block

    @staticmethod
    def _group(c: Copy) -> str:
        return "not committed" if c.group is None else f"its group {c.group}"

    def _copy(self, st: Launch, op: AsyncOp, tid: int, block: int, r: np.ndarray, site: int, error) -> None:
        gaddr, saddr, nbytes = (int(x) for x in r[L.T_OP:L.T_OP + 3])
        off = saddr - st.region
        # the host reads and writes memory here: bad addresses are errors even in unchecked mode
        if not 0 <= nbytes <= CHUNK:
            raise error(f"{op.word}" + "{where}" + f": thread {tid} asks for {nbytes} bytes; a copy reads "
                        f"0 to {CHUNK}", op.word)
        if saddr % CHUNK or gaddr % CHUNK:
            raise error(f"{op.word}" + "{where}" + f": thread {tid}'s addresses ${gaddr:x} -> ${saddr:x} must "
                        f"both be multiples of {CHUNK}", op.word)
        if not 0 <= off <= st.size - CHUNK:
            raise error(f"{op.word}" + "{where}" + f": thread {tid}'s destination ${saddr:x} is not in the "
                        "block's shared memory: use a stage of a SMEM-TILE (`0 As`)", op.word)
        src = self.be.allocation_view(gaddr, nbytes) if nbytes else np.zeros(0, np.uint8)
        if src is None:
            raise error(f"{op.word}" + "{where}" + f": thread {tid}'s source ${gaddr:x} ({nbytes} bytes) is "
                        "outside every allocation; copy from an ARRAY or MATRIX", op.word)
        chunk = off // CHUNK
        if op.checked:
            busy = int(st.pending[chunk])
            if busy > 0:
                c = st.copies[busy - 1]
                raise error(f"{op.word}" + "{where}" + f": thread {tid} copies into {self.where(off)} while "
                            f"thread {c.thread}'s copy into the same bytes ({self._group(c)}) has not landed: "
                            f"{self._lands(st, c)}, and a BARRIER, before the stage is refilled", op.word)
            self._check_readers(st, op, tid, block, int(r[L.T_EPOCH]), chunk, off, error)
            self._check_writer(st, op, tid, block, int(r[L.T_EPOCH]), chunk, off, error)
        cid = self._next
        self._next = (self._next + 1) % (1 << 31) or 1
        data = np.frombuffer(bytes(src) + bytes(CHUNK - nbytes), np.uint8)
        st.copies.add_many(np.array([cid - 1], np.int64), np.array([tid], np.int64), block,
                           np.array([saddr], np.int64), data[None], site, src=np.array([gaddr], np.int64),
                           nbytes=np.array([nbytes], np.int64))
        st.pending[chunk] = cid

    def _concurrent(self, e: int, tid: int, block: int, epoch: int) -> int | None:
        """The thread of a shadow entry (thread + 1 | epoch << 32) when it is another thread of the block with
        no BARRIER (SYNCWARP, in its warp) between its access and now; else None."""
        bs = self.be.block_size
        other = (e & 0xFFFFFFFF) - 1
        if other < 0 or other == tid or other // bs != block:
            return None
        theirs = e >> 32
        same_warp = other // WARP == tid // WARP
        concurrent = theirs == epoch & 0xFFFFFFFF if same_warp else theirs >> 16 == (epoch & 0xFFFFFFFF) >> 16
        return other if concurrent else None

    def _check_writer(self, st: Launch, op: AsyncOp, tid: int, block: int, epoch: int, chunk: int, off: int,
                      error) -> None:
        writer = self._concurrent(int(st.writes[chunk]), tid, block, epoch)
        if writer is not None:
            raise error(f"{op.word}" + "{where}" + f": thread {tid} copies into {self.where(off)}, which thread "
                        f"{writer} stored into since the last BARRIER: the store and the copy's write race (a GPU "
                        "may land either last); put a BARRIER between the store and the CP.ASYNC", op.word)

    def _check_readers(self, st: Launch, op: AsyncOp, tid: int, block: int, epoch: int, chunk: int, off: int,
                       error) -> None:
        bs = self.be.block_size
        for e in (int(st.reads[2 * chunk]), int(st.reads[2 * chunk + 1])):
            reader = (e & 0xFFFFFFFF) - 1
            if reader < 0 or reader == tid or reader // bs != block:
                continue
            theirs = e >> 32
            same_warp = reader // WARP == tid // WARP and reader // bs == tid // bs
            concurrent = theirs == epoch & 0xFFFFFFFF if same_warp else theirs >> 16 == (epoch & 0xFFFFFFFF) >> 16
            if concurrent:
                raise error(f"{op.word}" + "{where}" + f": thread {tid} refills {self.where(off)} while thread "
                            f"{reader} may still be reading it (it read these bytes since the last BARRIER): "
                            "put a BARRIER between the last read of a stage and the CP.ASYNC that refills it",
                            op.word)

    def _lands(self, st: Launch, c: Copy) -> str:
        """Which wait of its thread lands copy c."""
        if c.group is None:
            return f"thread {c.thread} has to CP.COMMIT it, then wait (`0 CP.WAIT`)"
        need = int(st.threads.committed[c.thread - st.block * self.be.block_size]) - 1 - c.group
        return f"it lands at thread {c.thread}'s `{need} CP.WAIT`" + (" (or a smaller count)" if need else "")

    def _wait(self, st: Launch, op: AsyncOp, rows: np.ndarray, local: np.ndarray, n: int, error) -> None:
        """`n CP.WAIT` of the threads of rows (of st's block; local: their indices in it), one after another:
        each lands the copies of its groups but the n newest. In checked mode a thread with copies it has
        not committed cannot wait (the threads before it have)."""
        t = st.copies
        live = t.live_rows()
        cp = live[t.cp[live]]
        base = st.block * self.be.block_size
        if op.checked:
            open_ = cp[t.group[cp] == -1]
            if open_.size:
                has = np.isin(local, t.thread[open_] - base)
                if has.any():
                    p = int(np.argmax(has))
                    self._wait_some(st, op, rows[:p], local[:p], n, cp, error)
                    tid = int(rows[p, L.T_LINEAR])
                    mine = open_[t.thread[open_] == tid]
                    c = t.record(int(mine[0]))
                    raise error(f"{n} {op.word}" + "{where}" + f" can never land thread {tid}'s {len(mine)} "
                                f"cop{'y' if len(mine) == 1 else 'ies'} since its last CP.COMMIT (into "
                                f"{self.where(c.dst - st.region)}): a wait lands committed groups only; CP.COMMIT "
                                "before the wait", op.word)
        self._wait_some(st, op, rows, local, n, cp, error)

    def _wait_some(self, st: Launch, op: AsyncOp, rows: np.ndarray, local: np.ndarray, n: int, cp: np.ndarray,
                   error) -> None:
        """The waits of _wait, none failing: cp, the rows of the cp.async copies in flight."""
        if not len(local):
            return
        th, t, bs = st.threads, st.copies, self.be.block_size
        th.last_n[local], th.last_committed[local] = n, th.committed[local]
        th.waits[local] += 1
        th.landed[local] = np.maximum(th.landed[local], th.committed[local] - n)
        lt = t.thread[cp] - st.block * bs
        at = np.full(bs, -1, np.int64)  # each waiting thread's place in rows
        at[local] = np.arange(len(local))
        g = t.group[cp]
        take = (at[lt] >= 0) & (g >= 0) & (g < th.landed[lt])
        land = cp[take]
        if not land.size:
            return
        land = land[np.lexsort((land, g[take], at[lt[take]]))]  # thread by thread, group by group, in order
        epoch = np.zeros(bs, np.int64)
        epoch[local] = rows[:, L.T_EPOCH] & 0xFFFFFFFF
        mt = t.thread[land]
        if op.checked:
            self._check_sources(st, op, land, error)
        self._land(st, land, mt | epoch[mt - st.block * bs] << LANDED_SHIFT)

    def _global(self, addr: int) -> str:
        """A global address as `name+bytes` of the ARRAY or MATRIX that holds it, else in hex."""
        base = self.be.allocation_base(addr, 1)
        dt = self.be.elem_types.get(base) if base is not None else None
        name = (dt.metadata or {}).get("name") if dt is not None else None
        if base is None or not name:
            return f"${addr & (2**64 - 1):x}"
        return name if addr == base else f"{name}+{addr - base} (bytes)"

    def _check_sources(self, st: Launch, op: AsyncOp, land: np.ndarray, error) -> None:
        """The global bytes each copy about to land read must be what they were when it was issued: a GPU
        reads them at some time between the CP.ASYNC and the wait, so a store into them meanwhile (the
        copying thread's own included, which the race detector does not see) makes the copy read either."""
        t = st.copies
        reads = land[t.nbytes[land] > 0]
        if not reads.size:
            return
        src, nb = t.src[reads], t.nbytes[reads]
        changed = np.zeros(len(reads), np.bool_)
        lane = np.arange(CHUNK)
        table = self.be.alloc_table
        # the sources by the allocation row they start in (A's and B's, say): one numpy compare for each
        # allocation that holds all of its group's bytes; the thread-by-thread compare for what is left
        where = np.searchsorted(table[:, 0], src, side="right") if len(table) else np.zeros(len(src), np.int64)
        for k in np.unique(where).tolist():
            sel = np.flatnonzero(where == k)
            s, n = src[sel], nb[sel]
            lo, hi = int(s.min()), int((s + n).max())
            view = self.be.allocation_view(lo, hi - lo)
            if view is not None and (n == CHUNK).all() and not ((s - lo) & (CHUNK - 1)).any():
                # whole chunks at 16-byte steps from the first (every source is 16-byte aligned): each one
                # two 8-byte words of the view's rows
                now = view.view(np.uint64).reshape(-1, 2)[(s - lo) >> 4]
                changed[sel] = (now != t.data[reads[sel]].view(np.uint64)).any(axis=1)
                continue
            if view is not None:
                now = view[np.minimum((s - lo)[:, None] + lane, len(view) - 1)]
                changed[sel] = ((now != t.data[reads[sel]]) & (lane < n[:, None])).any(axis=1)
                continue
            for i, a, m in zip(sel.tolist(), s.tolist(), n.tolist()):
                cur = self.be.allocation_view(a, m)
                changed[i] = cur is not None and bool((cur != t.data[reads[i], :m]).any())
        if changed.any():
            c = t.record(int(reads[int(np.argmax(changed))]))
            a = int(t.src[reads[int(np.argmax(changed))]])
            raise error(f"{getattr(op, 'n', '')} {op.word}" + "{where}" + f": the global bytes at {self._global(a)} that thread {c.thread}'s "
                        f"cp.async copy into {self.where(c.dst - st.region)} ({self._group(c)}) reads were written "
                        "after its CP.ASYNC and before this wait: a GPU reads them at some time in between, so the "
                        "copy may get the old bytes or the new; write the source only after the wait that lands "
                        "the copy", op.word)

    def _land(self, st: Launch, land: np.ndarray, markers: np.ndarray) -> None:
        """Land the copies of the table's rows `land` (in the order the waits took them; markers: each one's
        thread | the thread's epoch at the wait << 24): their bytes written to shared memory; each chunk
        whose copy this is becomes landed (other threads see it after a BARRIER), with the copy's group."""
        t = st.copies
        off = t.dst[land] - st.region
        if st.view is None:
            st.view = self.be.allocation_view(st.region, st.size)
        if st.view is not None and not (off & (CHUNK - 1)).any():  # 16-byte rows of the region
            st.view[:len(st.view) & -CHUNK].reshape(-1, CHUNK)[off >> 4] = t.data[land]
        elif st.view is not None:
            st.view[off[:, None] + np.arange(CHUNK)] = t.data[land]
        ch = off // CHUNK
        mine = st.pending[ch] == t.id[land] + 1
        st.pending[ch[mine]] = -(1 + markers[mine])
        g = t.group[land]
        ok = mine & (g >= 0)
        st.landed_group[ch[ok]] = g[ok]
        t.kill(land)

    # ---- tile loads and stores (warpops.py, warp by warp) -----------------------------------------
    def check_tile(self, ctx: np.ndarray, t: Any, addr: int, stride: int, row: int, word: str, write: bool,
                   error: Callable[[str], ForthError]) -> None:
        """A warp's tile load (or store) of t at addr: a line over bytes whose copy has not landed is
        an error (checked mode: a launch with copies armed its table); a load notes its first lane
        (row) as a reader of the lines' chunks."""
        st = self._state(ctx)
        if st is None:
            return
        rows_n, cols = t.rows_cols
        esize = elem_bytes(t.dtype)
        lead, outer = (cols, rows_n) if t.layout == "row" else (rows_n, cols)
        starts = addr - st.region + np.arange(outer, dtype=np.int64) * stride * esize
        first, last = starts // CHUNK, (starts + lead * esize - 1) // CHUNK
        inside = (starts >= 0) & (starts + lead * esize <= len(st.pending) * CHUNK)
        epoch = int(self.be.thr[row, L.T_EPOCH]) & 0xFFFFFFFF if row >= 0 else 0
        for lo, hi in zip(first[inside].tolist(), last[inside].tolist()):
            for ch in np.flatnonzero(st.pending[lo:hi + 1] < 0).tolist():
                landed = self._unsynced(int(st.pending[lo + ch]), row, epoch)
                if landed is not None:
                    raise error(f"{word}" + "{where}" + f": the warp of threads {row}-{row + WARP - 1} "
                                f"{'writes' if write else 'reads'} {self.where((lo + ch) * CHUNK)}, which thread "
                                f"{landed}'s cp.async copy filled at its wait, with no BARRIER since: a thread "
                                "sees another's copies after that thread's wait and a BARRIER")
            busy = np.flatnonzero(st.pending[lo:hi + 1] > 0)
            if busy.size:
                k = lo + int(busy[0])
                c = st.copies[int(st.pending[k]) - 1]
                who = f"the warp of threads {row}-{row + WARP - 1}" if row >= 0 else "a warp"
                raise error(f"{word}" + "{where}" + f": {who} {'writes' if write else 'reads'} "
                            f"{self.where(k * CHUNK)} before the cp.async copy into it landed: it is thread "
                            f"{c.thread}'s copy, {self._group(c)}; {self._lands(st, c)}; a warp reading the "
                            "copies of its block's threads needs their waits and then a BARRIER")
            if write and row >= 0:
                st.writes[lo:hi + 1] = row + 1 | (int(self.be.thr[row, L.T_EPOCH]) & 0xFFFFFFFF) << 32
            if not write and row >= 0:
                me = row + 1 | (int(self.be.thr[row, L.T_EPOCH]) & 0xFFFFFFFF) << 32
                for ch in range(lo, hi + 1):
                    if st.reads[2 * ch] & 0xFFFFFFFF != row + 1:
                        st.reads[2 * ch + 1] = st.reads[2 * ch]
                    st.reads[2 * ch] = me

    def rows_landed(self, ctx: np.ndarray, addrs: np.ndarray, row: int, write: bool) -> bool:
        """ldmatrix/stmatrix's 16-byte rows (addrs, each CHUNK-aligned) at once: True when no copy into
        any of them is in flight or unsynced (then a read notes `row`'s warp as their reader, as
        check_tile does); False leaves everything as it was, for check_tile row by row, which words
        the error."""
        st = self._state(ctx)
        if st is None:
            return True
        ch = (addrs - st.region) // CHUNK
        if ((ch < 0) | (ch >= len(st.pending))).any():
            return False
        p = st.pending[ch]
        if (p > 0).any():  # a copy in flight
            return False
        epoch = int(self.be.thr[row, L.T_EPOCH]) & 0xFFFFFFFF if row >= 0 else 0
        landed = p[p < 0]
        if landed.size and (self._unsynced_threads(landed, row, epoch) >= 0).any():
            return False  # a copy another warp of the block landed, with no BARRIER since
        if write and row >= 0:
            st.writes[ch] = row + 1 | epoch << 32
        if not write and row >= 0:
            me = row + 1 | epoch << 32
            ch = np.unique(ch)
            moved = (st.reads[2 * ch] & 0xFFFFFFFF) != row + 1
            st.reads[2 * ch[moved] + 1] = st.reads[2 * ch[moved]]
            st.reads[2 * ch] = me
        return True

    # ---- many warps' tile accesses at once (warpops.py's batched path) ------------------------------
    def launch_of(self, ctx: np.ndarray) -> Launch | None:
        """The state of the launch ctx runs, when its copies are armed (else None: nothing to check)."""
        return self._state(ctx)

    @staticmethod
    def tile_chunks(st: Launch, t: Any, addr: np.ndarray, stride: np.ndarray) -> np.ndarray:
        """The chunks of the shared region the lines of tiles t at addr with stride (one per warp) touch,
        warps x (lines x most chunks of a line), -1 where a line has fewer or lies outside the region
        (a tile in global memory: check_tile's `inside`)."""
        rows_n, cols = t.rows_cols
        esize = elem_bytes(t.dtype)
        lead, outer = (cols, rows_n) if t.layout == "row" else (rows_n, cols)
        nbytes = lead * esize
        starts = (addr - st.region)[:, None] + np.arange(outer, dtype=np.int64) * (stride * esize)[:, None]
        first, last = starts // CHUNK, (starts + nbytes - 1) // CHUNK
        inside = (starts >= 0) & (starts + nbytes <= len(st.pending) * CHUNK)
        span = int((last - first).max()) + 1 if starts.size else 1
        ch = first[..., None] + np.arange(span)
        keep = inside[..., None] & (ch <= last[..., None])
        return np.where(keep, ch, -1).reshape(len(addr), -1)

    def chunks_clear(self, st: Launch, chunks: np.ndarray, readers: np.ndarray, epochs: np.ndarray,
                     inside: bool = False) -> bool:
        """Many warps' accesses at once, checked as check_tile and rows_landed check one warp's: chunks
        (warps x k, -1: none; inside: every one a chunk of the region) the warps touch, readers (each warp's
        first lane's record) and their epochs. True when no copy into any of them is in flight, nor landed
        by another warp of the block with no BARRIER since; nothing is changed (False: the warp-by-warp path
        words the error)."""
        if not chunks.size:
            return True
        if inside:
            p = st.pending[chunks]
        else:
            valid = chunks >= 0
            p = np.where(valid, st.pending[np.where(valid, chunks, 0)], 0)
        if (p > 0).any():
            return False
        # the common case, a stage read after its waits and a BARRIER: every reader has passed as many BARRIERs
        # (bits 16 up of an epoch), and no landed marker (~p: thread | epoch << LANDED_SHIFT) is of a wait
        # after as many, so each is seen (_unsynced_threads' last rule); 0 (no copy) gives ~p >> 40 = -1
        bars = epochs >> 16
        b0 = int(bars[0])
        if not (bars != b0).any() and not ((~p >> (LANDED_SHIFT + 16)) == b0).any():
            return True
        landed = p < 0
        if not landed.any():
            return True
        w = np.nonzero(landed)[0]
        return not (self._unsynced_threads(p[landed], readers[w], epochs[w]) >= 0).any()

    @staticmethod
    def note_writers(st: Launch, chunks: np.ndarray, writers: np.ndarray, epochs: np.ndarray) -> None:
        """Note the tile stores of many warps (as note_readers' arguments): each chunk's last writer, in
        increasing record order as warp by warp notes them."""
        valid = chunks >= 0
        if not valid.any():
            return
        order = np.argsort(writers[valid], kind="stable")
        st.writes[chunks[valid][order]] = ((writers[valid] + 1) | (epochs[valid] & 0xFFFFFFFF) << 32)[order]

    NOTE_BY_WARP = 16  # note_reads takes one plan's warps one after another up to this many (numpy per warp)

    def note_reads(self, st: Launch, notes: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> None:
        """Note the reads of a batched step's ops (each: chunks, warps x k with -1 for none; each warp's first
        lane's record, in increasing order; their epochs), as note_readers notes them: one op of a few warps
        warp after warp (each warp's chunks at once: a chunk twice in a warp is noted the same either way),
        else all at once through note_readers."""
        if len(notes) == 1 and len(notes[0][1]) <= self.NOTE_BY_WARP:
            ch, readers, epochs = notes[0]
            reads = st.reads.reshape(-1, 2)
            entries = ((readers + 1) | epochs << 32).tolist()
            for c, me, entry in zip(ch, (readers + 1).tolist(), entries):
                if int(c.min()) < 0:
                    c = c[c >= 0]
                top = reads[c, 0]
                moved = (top & 0xFFFFFFFF) != me
                reads[c[moved], 1] = top[moved]
                reads[c, 0] = entry
            return
        self.note_readers(st, *(np.concatenate([n[0].ravel() for n in notes]),
                                np.concatenate([np.repeat(n[1], n[0].shape[1]) for n in notes]),
                                np.concatenate([np.repeat(n[2], n[0].shape[1]) for n in notes])))

    @staticmethod
    def note_readers(st: Launch, chunks: np.ndarray, readers: np.ndarray, epochs: np.ndarray) -> None:
        """Note the reads of many warps at once: chunks (-1: none), each read's warp's first lane's record
        and its epoch, one per chunk read. What noting them one warp after another in increasing
        record order leaves (check_tile's rule: a chunk's last reader first; the one before it, if
        another thread, second)."""
        valid = chunks >= 0
        if not valid.any():
            return
        ch, who, ep = chunks[valid], readers[valid], epochs[valid]
        keys, at = np.unique(ch.astype(np.int64) << 32 | who, return_index=True)  # by chunk, then reader
        ch, who = keys >> 32, keys & 0xFFFFFFFF
        entry = (who + 1) | (ep[at] & 0xFFFFFFFF) << 32
        last = np.flatnonzero(np.append(ch[1:] != ch[:-1], True))  # each chunk's last reader
        c = ch[last]
        many = np.diff(last, prepend=-1) > 1  # read by more than one warp: the one before it is second
        top, below = st.reads[2 * c], st.reads[2 * c + 1]
        moved = top & 0xFFFFFFFF != who[last] + 1
        st.reads[2 * c + 1] = np.where(many, entry[np.maximum(last - 1, 0)], np.where(moved, top, below))
        st.reads[2 * c] = entry[last]

    def _unsynced(self, marker: int, reader: int, epoch: int) -> int | None:
        """The thread whose copy landed (marker: its pending-shadow entry) when `reader` (its epoch
        now) is another thread of its block with no BARRIER (SYNCWARP in one warp) since; else None."""
        lt = int(self._unsynced_threads(np.array([marker], np.int64), reader, epoch)[0])
        return lt if lt >= 0 else None

    def _unsynced_threads(self, markers: np.ndarray, reader: "int | np.ndarray",
                          epoch: "int | np.ndarray") -> np.ndarray:
        """_unsynced's rule for many markers at once: each landed copy's thread, or -1 where `reader`
        may see it (its own warp: the tile op's first lane stands for all 32; another block; a BARRIER
        since). reader and epoch: one for all, or one per marker; a reader < 0 sees everything."""
        m = -markers - 1
        lt, le = m & (LANDED_THREAD - 1), m >> LANDED_SHIFT
        reader, epoch = np.asarray(reader, np.int64), np.asarray(epoch, np.int64)
        bs = self.be.block_size
        seen = ((reader < 0) | (lt // WARP == reader // WARP) | (lt // bs != reader // bs)
                | (le >> 16 != epoch >> 16))
        return np.where(seen, -1, lt)

    # ---- the E_ASYNC record of a read or write, in words (launcherrors.py) ----------------------
    def describe(self, thread: int, addr: int, aux: int, where: str, word: str | None) -> str:
        kind, value = aux >> 32, aux & 0xFFFFFFFF
        if kind == A_UNSYNCED:
            st = next((s for s in reversed(self._launches.values()) if 0 <= addr - s.region < s.size), None)
            place = self.where(addr - st.region) if st is not None else f"shared memory at ${addr:x}"
            return (f"{word or 'an access'}{where}: thread {thread} touches {place}, which thread {value}'s "
                    "cp.async copy filled at its wait, with no BARRIER since: a thread sees another's copies "
                    "after that thread's wait and a BARRIER")
        st = next((s for s in reversed(self._launches.values()) if value - 1 in s.copies), None)
        c = st.copies.get(value - 1) if st is not None else None
        verb = "reads" if kind == A_READ else "writes"
        access = f"{word or 'an access'}{where}: thread {thread} {verb}"
        if st is None or c is None:  # pragma: no cover - the record outlived its model
            return f"{access} shared memory at ${addr:x} before its cp.async copy landed"
        k = c.thread - st.block * self.be.block_size
        last_wait = (int(st.threads.last_n[k]), int(st.threads.last_committed[k])) \
            if 0 <= k < len(st.threads.last_n) and st.threads.last_committed[k] >= 0 else None
        off = addr - st.region
        text = (f"{access} {self.where(off)} before the cp.async copy into it landed: it is thread "
                f"{c.thread}'s copy, {self._group(c)}; {self._lands(st, c)}")
        if c.group is not None and last_wait is not None:
            n, committed = last_wait
            if committed - 1 - c.group < n:
                text += (f"; its last wait, `{n} CP.WAIT`, left its {n} newest group{'s' * (n != 1)} in flight, "
                         "this one among them")
        if c.thread != thread:
            text += "; a thread reading another thread's copy needs that wait and then a BARRIER"
        elif kind != A_READ:
            text += "; wait for the copy before writing over it"
        return text
