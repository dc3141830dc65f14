"""Warpgroup MMA on the emulator (core/compile/wgmma.py's WgOps; warpops.py dispatches them here).

WGMMA is performed when all four warps of the warpgroup (128 threads, consecutive warps 4g..4g+3 of the
block) wait at the same WGMMA with the same descriptors: a warpgroup mate still at another warp operation
lets the others wait; one that finished, waits at a BARRIER or at another WGMMA is a divergent warpgroup,
reported as the GPU would hang or compute garbage. The operation is asynchronous as on the GPU: it is
recorded as a pending group of each warp, and its operands are read from shared memory, THROUGH the
descriptors, when a WGMMA-WAIT completes the group (so shared memory written again before the wait is read
as it is then, as the hardware may). A wrong descriptor (start, LBO, SBO, swizzle) reads the wrong bytes
exactly as the GPU does. Reading a pending accumulator (WGSTORE, WGLANE@, WGLANE!) before a wait covers it
is an error here too, when the compiler could not see it.

The descriptor (PTX ISA, "Matrix Descriptor Format", wgmma.fields) is read for a K-major operand of R rows
(A: 64, B: N) and 16 columns of 16-bit elements: element (r, k) is at

    no swizzle:   start + (r/8) SBO + (k/8) LBO + (r mod 8) 16 + (k mod 8) 2
    swizzled:     a = start + (r/8) SBO + (r mod 8) W + 2k, then a xor ((a >> 7) & (W/16 - 1)) << 4
                  (W = 128, 64 or 32 bytes: the 16-byte chunk of a row xor the row within the 8-row atom)

the addresses being offsets in the block's shared window (1024-aligned on the GPU), so the swizzle is the
one STAGE-TILE and TMA write (SWIZZLE128). An MN-major operand (WGMMA's trans flag, from WGDESC-MN) is read
in CUTLASS's canonical MN-major layouts (cute/atom/mma_traits_sm90_gmma.hpp, make_gmma_desc<Major::MN>; in
16-byte units, W = 2, 4, 8 for the 32, 64, 128-byte swizzle: ((W,n),(8,k)):((1,LBO),(W,SBO)); no swizzle:
((1,n),(8,k)):((X,SBO),(1,LBO))), element (r, k), r the M or N index, at

    swizzled:     a = start + (r/P) LBO + (k/8) SBO + (k mod 8) W + 2 (r mod P), then the xor above (P = W/2)
    no swizzle:   start + (r/8) SBO + (k/8) LBO + (k mod 8) 16 + 2 (r mod 8)
"""
from __future__ import annotations

import weakref
from typing import Any, Callable

import numpy as np
from tileforth.core.compile import layout as L
from tileforth.core.compile.tiles import WARP, WG_WARPS
from tileforth.core.compile.wgmma import WG_M, WG_K, WgLaneGet, WgLanePut, WgMma, WgOp, WgRegs, WgStore, WgWait, fields, wg_coords
from tileforth.core.errors import ForthError, ranges
from tileforth.core.records import record

WarpOps = Any  # warpops.WarpOps, which calls this module (named, not imported)

Error = Callable[[str], ForthError]


@record(eq=False)
class Group:
    """One committed WGMMA of one warp, not completed yet."""
    pos: int  # the accumulator's tile position
    adesc: int
    bdesc: int
    in_type: str
    n: int
    site: int
    trans_a: int = 0
    trans_b: int = 0


_PENDING: "weakref.WeakKeyDictionary[Any, dict[int, list[Group]]]" = weakref.WeakKeyDictionary()


def pending(backend: Any) -> dict[int, list[Group]]:
    """The backend's pending groups per global warp, oldest first."""
    p = _PENDING.get(backend)
    if p is None:
        p = _PENDING[backend] = {}
    return p


@__import__("functools").cache
def _coords(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lanes, rows within the warp's 16, columns) of every element i of every lane, lane-major."""
    lanes, rows, cols = [], [], []
    for lane in range(WARP):
        for i in range(n // 2):
            r, c = wg_coords(0, lane, i)
            lanes.append(lane)
            rows.append(r)
            cols.append(c)
    return np.array(lanes), np.array(rows), np.array(cols)


def _dtype(in_type: str):
    from tileforth.core.compile.eltypes import BY_NAME
    return BY_NAME[in_type.upper()].dtype


def operand_offsets(desc: int, rows: int, mn: int = 0) -> np.ndarray:
    """The shared-window byte offsets of an operand's rows x 16 elements, K-major or (mn) MN-major (the module's
    formulas)."""
    fd = fields(desc)
    r = np.arange(rows)[:, None]
    k = np.arange(WG_K)[None, :]
    start, lbo, sbo, swz = fd["start"], fd["lbo"], fd["sbo"], fd["swizzle"]
    if mn:
        if swz == 0:
            return start + (r // 8) * sbo + (k // 8) * lbo + (k % 8) * 16 + (r % 8) * 2
        per = swz // 2
        a = start + (r // per) * lbo + (k // 8) * sbo + (k % 8) * swz + (r % per) * 2
        return a ^ (((a >> 7) & (swz // 16 - 1)) << 4)
    if swz == 0:
        return start + (r // 8) * sbo + (k // 8) * lbo + (r % 8) * 16 + (k % 8) * 2
    a = start + (r // 8) * sbo + (r % 8) * swz + 2 * k
    return a ^ (((a >> 7) & (swz // 16 - 1)) << 4)


def read_operand(ops: WarpOps, desc: int, rows: int, in_type: str, site: int, what: str, mn: int = 0) -> np.ndarray:
    """The operand (rows x 16, float64) read from the block's shared memory through the descriptor."""
    fd = fields(desc)
    if fd["base_offset"]:
        raise ops.error(site, f"WGMMA{{where}}: {what}'s descriptor has a base offset ({fd['base_offset']}), which "
                              "the emulator does not model: start 128-byte-swizzled operands on 1024-byte boundaries "
                              "(WGDESC does)", "WGMMA")
    off = operand_offsets(desc, rows, mn)
    size = int(ops.ctx[L.CTX_SHARED_SIZE])
    lo, hi = int(off.min()), int(off.max()) + 2
    if lo < 0 or hi > size:
        raise ops.error(site, f"WGMMA{{where}}: {what}'s descriptor reads shared bytes {lo}..{hi - 1}, outside the "
                              f"block's {size} bytes of shared memory: build it with WGDESC from a stage of a SMEM-TILE",
                        "WGMMA")
    base = int(ops.ctx[L.CTX_SHARED])
    view = ops.be.allocation_view(base, size)
    if view is None:  # pragma: no cover - the window is one allocation
        raise ops.error(site, "WGMMA{where}: the block's shared memory is not mapped", "WGMMA")
    words = view[:size - size % 2].view(_dtype(in_type))
    return words[off // 2].astype(np.float64)


def complete(ops: WarpOps, gw: int, warp: int, stack: list[np.ndarray], g: Group) -> None:
    """D += A[16 warp .. +16] . B for one warp's part (rows of the 64 x N result)."""
    a = read_operand(ops, g.adesc, WG_M, g.in_type, g.site, "A", g.trans_a)[16 * warp:16 * warp + 16]
    b = read_operand(ops, g.bdesc, g.n, g.in_type, g.site, "B", g.trans_b)  # N x K (read as such either way)
    acc = stack[g.pos]
    stack[g.pos] = (acc.astype(np.float64) + a @ b.T).astype(np.float32)


def _mates(ops: WarpOps, block: int, w: int) -> tuple[int, int]:
    """The first thread (block-relative) and the global warp of warp w's warpgroup."""
    first = (w // WARP // WG_WARPS) * WG_WARPS * WARP
    return first, block * ops.be.warps_per_block + first // WARP


def perform(ops: WarpOps, op: WgOp, site: int, block: int, w: int, rows: np.ndarray) -> None:
    """A collective WgOp of warp w (block-relative first thread) of the block, whose 32 lanes wait at it."""
    be = ops.be
    gw = block * be.warps_per_block + w // WARP
    stack = be.tile_data[gw]
    match op:
        case WgMma():
            _mma(ops, op, site, block, w)
            return
        case WgRegs():
            _regs(ops, op, site, block, w)
            return
        case WgWait(n=n):
            groups = pending(be).get(gw, [])
            done, left = (groups[:len(groups) - n], groups[len(groups) - n:]) if n else (groups, [])
            for grp in done:
                complete(ops, gw, (w // WARP) % WG_WARPS, stack, grp)
            pending(be)[gw] = left
        case WgStore(pos=pos):
            _not_pending(ops, op, gw, pos, site)
            ops_ = rows[0, L.T_OP:L.T_OP + 2]
            _store(ops, op, stack[pos], int(ops_[0]), int(ops_[1]), (w // WARP) % WG_WARPS, site)
            del stack[pos:]
        case _:  # pragma: no cover - wgmma.py emits only the ops above
            raise AssertionError(op)
    rows[:, L.T_STATUS] = L.ST_RUN


def _not_pending(ops: WarpOps, op: WgOp, gw: int, pos: int, site: int) -> None:
    if any(g.pos == pos for g in pending(ops.be).get(gw, [])):
        raise ops.error(site, f"{op.word}{{where}}: warp {gw} reads its warpgroup accumulator while a WGMMA writing "
                              f"it is still pending: add `0 WGMMA-WAIT` before {op.word}", op.word)


def _together(ops: WarpOps, op: WgOp, site: int, block: int, w: int, kind: type) -> np.ndarray | None:
    """The records of warp w's warpgroup when all four warps wait at this site; None while a mate is still
    on its way (this warp waits for it); a divergent warpgroup (a mate finished, waits at a BARRIER or at
    another op of this kind) is an error."""
    be = ops.be
    bs = be.block_size
    if bs % (WG_WARPS * WARP):
        raise ops.error(site, f"{op.word}{{where}}: a warpgroup is 128 threads (four warps), but the block has "
                              f"{bs}: make the block size a multiple of 128", op.word)
    first, _ = _mates(ops, block, w)
    thr = be.thr[block * bs + first:block * bs + first + WG_WARPS * WARP]
    st, at = thr[:, L.T_STATUS], thr[:, L.T_SITE]
    here = (st == L.ST_WARP) & (at == site)
    if here.all():
        return thr
    others = np.flatnonzero(~here)
    waiting = st[others] == L.ST_WARP
    other_sites = {int(s) for s in at[others][waiting]}
    coming = waiting | (st[others] == L.ST_RUN)  # at another warp op, or released from one this round
    if coming.all() and not any(isinstance(ops.sites.info.get(s), kind) for s in other_sites):
        return None  # mates still on their way: this warp waits for them
    what = {L.ST_DONE: "finished", L.ST_BARRIER: "wait at a BARRIER", L.ST_WARP: f"wait at another {op.word}"}
    kinds = sorted({what.get(int(x), "are elsewhere") for x in st[others]})
    raise ops.error(site, f"divergent warpgroup in block {block}{{where}}: threads "
                          f"{ranges((np.flatnonzero(here) + first).tolist())} reached {op.word} but threads "
                          f"{ranges((others + first).tolist())} {' or '.join(kinds)}. {op.word} is executed by "
                          "all 128 threads of the warpgroup together: keep it out of branches that differ "
                          "between the warpgroup's threads (branch on WARPGROUP)", op.word)


def _regs(ops: WarpOps, op: WgRegs, site: int, block: int, w: int) -> None:
    """REGS- / REGS+: nothing to do once the warpgroup is there together (setmaxnreg.sync.aligned)."""
    thr = _together(ops, op, site, block, w, WgRegs)
    if thr is not None:
        thr[:, L.T_STATUS] = L.ST_RUN


def _mma(ops: WarpOps, op: WgMma, site: int, block: int, w: int) -> None:
    be = ops.be
    bs = be.block_size
    thr = _together(ops, op, site, block, w, WgMma)
    if thr is None:
        return
    first, gw0 = _mates(ops, block, w)
    st = thr[:, L.T_STATUS]
    given = thr[:, L.T_OP:L.T_OP + 2]
    bad = np.flatnonzero((given != given[0]).any(axis=1))
    if bad.size:
        raise ops.error(site, f"WGMMA{{where}}: the threads of the warpgroup disagree on the descriptors: threads "
                              f"{ranges((bad + first).tolist())} differ from thread {first} (every thread passes "
                              "the same A and B descriptors)", "WGMMA")
    adesc, bdesc = (int(x) & (2 ** 64 - 1) for x in given[0])
    assert op.tile is not None
    if ops.ctx[L.CTX_ASYNC]:  # cp.async copies in flight: the operands must have landed, and be synced
        base = int(ops.ctx[L.CTX_SHARED])
        for desc, rows_n, operand, mn in ((adesc, WG_M, "A", op.trans_a), (bdesc, op.tile.shape[1], "B", op.trans_b)):
            chunks = np.unique((base + operand_offsets(desc, rows_n, mn)) & ~15).astype(np.int64)
            if not be.asyncs.rows_landed(ops.ctx, chunks, block * bs + first, False):
                raise ops.error(site, f"WGMMA{{where}}: {operand}'s shared memory has bytes whose cp.async copy has not "
                                      "landed, or landed for another thread with no BARRIER since: end the copies "
                                      "with `0 CP.WAIT BARRIER FENCE-ASYNC` before the WGMMA", "WGMMA")
    for k in range(WG_WARPS):
        pending(be).setdefault(gw0 + k, []).append(Group(op.pos, adesc, bdesc, op.in_type, op.tile.shape[1], site,
                                                       op.trans_a, op.trans_b))
    st[:] = L.ST_RUN
    ops.ctx[L.CTX_STEPS_USED] += 1024 * WG_WARPS


def _store(ops: WarpOps, op: WgStore, value: np.ndarray, addr: int, stride: int, warp: int, site: int) -> None:
    """The warp's 16 rows of the accumulator, at rows 16 warp.. of the row-major f32 matrix at addr."""
    r0 = 16 * warp
    rows_n, n = value.shape
    last = addr + ((r0 + rows_n - 1) * stride + n) * 4
    if stride < n:
        raise ops.error(site, f"WGSTORE{{where}}: the stride {stride} is shorter than a row of the accumulator "
                              f"({n} f32): give the matrix's row length", "WGSTORE")
    view = ops.be.allocation_view(addr + r0 * stride * 4, last - addr - r0 * stride * 4)
    if view is None or addr % 4:
        raise ops.error(site, f"WGSTORE{{where}}: the 64 x {n} f32 accumulator at ${addr & (2**64 - 1):x} with "
                              f"stride {stride} is not inside one allocation (or not 4-byte aligned): give a "
                              "MATRIX of at least 64 rows of N F32", "WGSTORE")
    out = view.view(np.float32)
    for r in range(rows_n):
        out[r * stride:r * stride + n] = value[r]


def lanes(ops: WarpOps, op: "WgLaneGet | WgLanePut", rows: np.ndarray, here: np.ndarray, gw: int, site: int) -> None:
    """WGLANE@ / WGLANE! for the lanes `here` of one warp: element i of lane L is at wg_coords's row (within
    the warp's 16) and column."""
    _not_pending(ops, op, gw, op.pos, site)
    acc = ops.be.tile_data[gw][op.pos]
    n = acc.shape[1]
    for lane in np.flatnonzero(here).tolist():
        i = int(rows[lane, L.T_OP])
        if not 0 <= i < n // 2:
            raise ops.error(site, f"{op.word}{{where}}: lane {lane} asks for element {i}, but a thread holds "
                                  f"elements 0 to {n // 2 - 1} of the 64 x {n} warpgroup accumulator", op.word)
        r, c = wg_coords(0, lane % WARP, i)
        if isinstance(op, WgLaneGet):
            rows[lane, L.T_OP] = int(np.float32(acc[r, c]).view(np.uint32))
        else:
            acc[r, c] = np.uint32(int(rows[lane, L.T_OP + 1]) & 0xFFFFFFFF).view(np.float32)
