"""Hopper's warpgroup MMA (wgmma, sm_90a): the device words (issue 29, point 1).

    word            stack                                  PTX
    WGZERO          ( -- ) ( T: -- wacc )                  (registers set to 0)
    WGDESC name     ( stage row col -- desc )              the 64-bit matrix descriptor (arithmetic)
    WGMMA           ( adesc bdesc -- ) ( T: wacc -- wacc ) wgmma.fence; wgmma.mma_async.sync.aligned.m64nNk16
                                                           .f32.T.T (inline asm); wgmma.commit_group
    n WGMMA-WAIT    ( -- )  n a literal                    wgmma.wait_group.sync.aligned n
    WGSTORE         ( addr stride -- ) ( T: wacc -- )      each thread's N/2 f32 by the D layout (st.global)
    WGLANE@ WGLANE! ( i -- ) ( F: -- r ) / ( F: r -- )     element i of this thread's part (extract/insertvalue)
    WGROW WGCOL     ( i -- row ) ( i -- col )              element i's place in the 64 x N accumulator

A warpgroup is four consecutive warps (128 threads, the linear thread index / 128); `64 N 16 WG-SHAPE`
(words/hopper.py) sets N, from 8 to 256 in steps of 8; the inputs are the TILE-IN type (F16 or BF16), the
accumulator f32. The accumulator ("wacc" on the tile stack, tiles.Tile) holds N/2 f32 per thread: the PTX
ISA's fragment D of wgmma .m64nNk16, element i of lane L of warp w of the warpgroup at

    row = 16 w + L/4 + 8 ((i/2) mod 2)        col = 8 (i/4) + 2 (L mod 4) + i mod 2          (`wg_coords`)

so each warp's part is 16 rows of it (what the emulator keeps, Tile.frag_shape).

Both operands are read from shared memory through matrix descriptors (PTX ISA "Matrix Descriptor Format"):

    bits  0-13  start address >> 4        bits 16-29  leading-dimension byte offset >> 4
    bits 32-45  stride-dimension byte offset >> 4       bits 49-51 base offset (0)
    bits 62-63  swizzle: 0 none, 1 128-byte, 2 64-byte, 3 32-byte                          (`descriptor`)

`stage row col swizzle WGDESC name` (swizzle a literal) builds one for the K-major block whose first element is
at row, col of a stage of the SMEM-TILE `name`: A's 64 x 16 (M x K, the tile row-major M x K) and B's N x 16
(the tile holds B transposed, N x K: "TN", both operands K-major, as cuBLAS's fastest Hopper kernels use), so
WGMMA passes both transpose flags 0. The descriptor is checked against the tile's declared layout when it
is compiled: swizzle 128 needs a SMEM-TILE-SWZ (rows of 128 bytes: 8-row atoms 1024 bytes apart, SBO 1024;
LBO unused, 16), 64 a SMEM-TILE-SWZ64 (rows of 64 bytes, SBO 512), 32 a SMEM-TILE-SWZ32 (rows of 32 bytes,
one k16 block, SBO 256); swizzle 0 a SMEM-TILE of 16-byte rows holding the operand in core-matrix order (8 x 8
blocks of 16-bit elements, 128 bytes each: block (i, j), rows 8i.., columns 8j.., at tile row 16i + 8j,
so LBO 128 and SBO 256).

MN-major operands (`swizzle WGDESC-MN name`, B stored K x N with N contiguous, or A stored K x M): the tile's
rows are K, its W-byte rows hold W/2 elements of M or N; an operand wider than that is held in panels of W/2
columns one under another (each the tile's rows / panels high, panels = N / (W/2) for WG-SHAPE's N). CUTLASS's
canonical MN-major layout (cute/atom/mma_traits_sm90_gmma.hpp, make_gmma_desc<Major::MN>: ((W/16, n), (8, k)) :
((1, LBO), (W/16, SBO)) in 16-byte units) makes LBO the next panel and SBO the next 8 rows of K (8 W); the PTX
ISA's wgmma imm-trans-a / imm-trans-b (1: MN-major) is an immediate, so WGMMA takes it from the (WGDESC) it sees
push each descriptor (`_major_of`); a descriptor it cannot trace is K-major, and an error in a kernel that builds
MN-major ones.

Pending accumulators: WGMMA marks its accumulator pending (Tile.pending = k: its newest WGMMA is the k-th
newest committed group); `n WGMMA-WAIT` completes every group but the n newest, so it clears the tiles with
k > n. Any other use of a pending accumulator (store, per-lane access, TDUP, TSWAP, TDROP) is a ForthError at
the word saying which wait to add (tilegen.pending_error). Words holding a WGMMA are always inlined into their
kernel (a suspend point; ptxas serialises a wgmma in a called function, warning C7510); every word here
needs sm_90a (a ForthError at the word for any other target, before code generation).

Each word asks the target for one `WgOp` (`Target.wgmma_op` where the target has it, the nvptx lowering in
tileforth/backends/cuda/hopper.py; else `Target.warp_op`: the emulator parks the warp and
tileforth/backends/cpu/wgmma.py performs it, reading A and B through the descriptors).
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, ClassVar

from llvmlite import ir

from ..errors import ForthError
from ..front.effects import Effect
from ..records import record, replace
from .codegen import F32, I32, I64, c64, fconvert
from .smem import SmemTile
from .tileops import WarpOp, Zero
from .tiles import WARP, WG_WARPS, Tile, TileConfig, detailed

if TYPE_CHECKING:
    from ..front.tree import Prim
    from .codegen import Gen
    from .primitive import Registry

WG_ARCH = "sm_90a"  # wgmma exists only on the arch-specific Hopper target
WG_M, WG_K = 64, 16
WG_N = tuple(range(8, 257, 8))  # the N of m64nNk16
WG_THREADS = WG_WARPS * WARP
WAIT_MAX = 7  # the largest count WGMMA-WAIT takes
SWIZZLES = {0: 0, 128: 1, 64: 2, 32: 3}  # bytes -> the descriptor's mode (bits 62-63)
SWIZZLE_BYTES = {v: k for k, v in SWIZZLES.items()}
CORE_BYTES = 128  # a core matrix: 8 rows of 16 bytes
SW128_SBO = 1024  # 8 rows of 128 bytes: the next 8-row atom of a 128-byte-swizzled K-major operand (8 W for W)
SWIZZLE_WORDS = {32: "SMEM-TILE-SWZ32", 64: "SMEM-TILE-SWZ64", 128: "SMEM-TILE-SWZ"}  # the tiles of each swizzle
SW128_LBO = 16  # unused by a swizzled K-major operand (its K extent fits one swizzle row); CUTLASS gives 1 (x16)
CORE_LBO, CORE_SBO = 128, 256  # core-matrix order without swizzle: the K-next block, the M/N-next block


def wg_coords(warp: int, lane: int, i: int) -> tuple[int, int]:
    """(row, col) in the 64 x N accumulator of element i of lane's part in warp `warp` of the warpgroup."""
    g, t = lane >> 2, lane & 3
    return 16 * warp + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * t + (i & 1)


def encode(x: int) -> int:
    """The PTX ISA's matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4."""
    return (x & 0x3FFFF) >> 4


def descriptor(start: int, lbo: int, sbo: int, swizzle_bytes: int, base_offset: int = 0) -> int:
    """The 64-bit wgmma matrix descriptor of these byte values (the table above)."""
    return (encode(start) | encode(lbo) << 16 | encode(sbo) << 32 | (base_offset & 7) << 49
            | SWIZZLES[swizzle_bytes] << 62)


def fields(desc: int) -> dict[str, int]:
    """A descriptor's fields as bytes (and the swizzle in bytes): its reading, for the emulator and views."""
    return {"start": (desc & 0x3FFF) << 4, "lbo": ((desc >> 16) & 0x3FFF) << 4, "sbo": ((desc >> 32) & 0x3FFF) << 4,
            "base_offset": (desc >> 49) & 7, "swizzle": SWIZZLE_BYTES[(desc >> 62) & 3]}


# ---- the operations a target performs ---------------------------------------------------------------
@record(frozen=True)
class WgOp(WarpOp):
    """A warpgroup operation on the wacc tile at position `pos` (`tile`); collective: every lane of the warp
    (and, for WGMMA, every warp of the warpgroup) executes it together. `checked`: compiled in checked mode."""
    pos: int = 0
    tile: Tile | None = None
    checked: bool = True
    results: ClassVar[int] = 0


@record(frozen=True)
class WgMma(WgOp):
    """operands: A's and B's descriptors. tile's D += A (64 x 16) . B (16 x N) in shared memory, K-major, or
    MN-major where `trans_a` / `trans_b` (PTX's imm-trans-a, imm-trans-b) is 1; inputs of tile-in type
    `in_type`; the group is committed at once."""
    in_type: str = "bf16"
    trans_a: int = 0
    trans_b: int = 0
    operands: ClassVar[int] = 2


@record(frozen=True)
class WgWait(WgOp):
    """Wait until at most `n` of this thread's committed wgmma groups are in flight; `covered`: the tile
    positions whose accumulators this completes (the nvptx target pins their registers after the wait)."""
    n: int = 0
    covered: tuple[tuple[int, Tile], ...] = ()


@record(frozen=True)
class WgStore(WgOp):
    """operands: address, stride (f32 elements between rows): store the 64 x N accumulator row-major and drop it."""
    operands: ClassVar[int] = 2


@record(frozen=True)
class WgLaneGet(WgOp):
    """operand: i; result: the f32 bits of element i of this thread's part. Each lane on its own."""
    operands: ClassVar[int] = 1
    results: ClassVar[int] = 1
    collective: ClassVar[bool] = False


@record(frozen=True)
class WgLanePut(WgOp):
    """operands: i, the value's f32 bits: set element i of this thread's part. Each lane on its own."""
    operands: ClassVar[int] = 2
    collective: ClassVar[bool] = False


@record(frozen=True)
class WgRegs(WgOp):
    """REGS- / REGS+ on the emulator (core/compile/mbarrier.py): nothing to share out, but setmaxnreg is
    executed by every thread of the warpgroup together, which the emulator checks as it checks WGMMA's."""
    n: int = 0


# ---- what the words share ---------------------------------------------------------------------------
def gate(g: "Gen", n: "Prim", word: str) -> None:
    """sm_90a only: a ForthError at the word on any other target (LLVM aborts on wgmma.wait_group for sm_90,
    ptxas refuses wgmma elsewhere)."""
    arch = getattr(g.target, "arch", None)
    if getattr(g.target, "sm", None) is not None and arch != WG_ARCH:
        raise ForthError(f"{word} needs the arch-specific Hopper target {WG_ARCH} (wgmma), but the target is {arch}: "
                         f"compile with --arch {WG_ARCH}, or run it with --backend cpu", n.pos, word)


def perform(g: "Gen", n: "Prim", op: WgOp, operands: list[ir.Value]) -> ir.Value | None:
    """The target's code for op: its wgmma_op (nvptx), else a warp op (the emulator parks the warp)."""
    assert len(operands) == op.operands, op
    fn = getattr(g.target, "wgmma_op", None) or g.target.warp_op
    try:
        return fn(g, op, operands)
    except ForthError as exc:
        raise exc.at(n.pos, n.prim.name) from None


def _cfg(n: "Prim") -> TileConfig:
    return n.arg if isinstance(n.arg, TileConfig) else TileConfig()


def wacc(cfg: TileConfig) -> Tile:
    return Tile("wacc", (WG_M, cfg.wg_n, WG_K), "f32")


def _top(g: "Gen", n: "Prim", word: str) -> Tile:
    """The wacc on top of the tile stack (checked: present, a warpgroup accumulator, not pending)."""
    from .tilegen import _take  # (tilegen checks kinds and the pending state the same way for every word)
    (t,) = _take(g, n, word, ("wacc",), "( wacc )")
    return t


def _push(g: "Gen", n: "Prim", word: str, t: Tile) -> None:
    from .tilegen import _push as push
    push(g, n, word, t)


# ---- the words --------------------------------------------------------------------------------------
def _zero(g: "Gen", n: "Prim") -> None:
    gate(g, n, "WGZERO")
    t = wacc(_cfg(n))
    perform_tile(g, n, Zero(len(g.tstack), t))
    _push(g, n, "WGZERO", t)


def perform_tile(g: "Gen", n: "Prim", op: Any) -> None:
    try:
        g.target.tile_op(g, op, [])
    except ForthError as exc:
        raise exc.at(n.pos, n.prim.name) from None


def _mma(g: "Gen", n: "Prim") -> None:
    gate(g, n, "WGMMA")
    adesc, bdesc = g.pop(2)
    cfg = _cfg(n)
    t = _top(g, n, "WGMMA")
    if t.shape[1] != cfg.wg_n:
        raise ForthError(f"WGMMA: the accumulator is {t.short()}, but the warpgroup shape is m64n{cfg.wg_n}k16: "
                         f"make the accumulator under the same WG-SHAPE (`64 {t.shape[1]} 16 WG-SHAPE`)", n.pos, "WGMMA")
    if cfg.in_type not in ("f16", "bf16"):  # pragma: no cover - TILE-IN takes only these
        raise ForthError("WGMMA takes F16 or BF16 inputs (TILE-IN)", n.pos, "WGMMA")
    trans_a, trans_b = (_major_of(g, n, d, which, cfg) for d, which in ((adesc, "A"), (bdesc, "B")))
    pos = len(g.tstack)
    perform(g, n, WgMma("WGMMA", pos, t, g.checked, cfg.in_type, trans_a, trans_b), [adesc, bdesc])
    # this WGMMA's group is the newest: every pending accumulator's group is one older, this one the newest
    g.tstack[:] = [replace(x, pending=x.pending + 1) if isinstance(x, Tile) and x.pending else x for x in g.tstack]
    g.tstack.append(replace(t, pending=1))


def _wait(g: "Gen", n: "Prim") -> None:
    gate(g, n, "WGMMA-WAIT")
    if not isinstance(n.arg, int) or not 0 <= n.arg <= WAIT_MAX:
        raise ForthError("WGMMA-WAIT needs a literal count before it (the wgmma groups it leaves in flight, 0 to "
                         f"{WAIT_MAX}), e.g. `0 WGMMA-WAIT`", n.pos, "WGMMA-WAIT")
    k = int(n.arg)
    covered = tuple((i, x) for i, x in enumerate(g.tstack) if isinstance(x, Tile) and x.pending > k)
    perform(g, n, WgWait("WGMMA-WAIT", 0, None, g.checked, k, covered), [])
    g.tstack[:] = [replace(x, pending=0) if isinstance(x, Tile) and x.pending > k else x for x in g.tstack]


def _store(g: "Gen", n: "Prim") -> None:
    gate(g, n, "WGSTORE")
    addr, stride = g.pop(2)
    t = _top(g, n, "WGSTORE")
    perform(g, n, WgStore("WGSTORE", len(g.tstack), t, g.checked), [addr, stride])


def _bits(g: "Gen", r: ir.Value) -> ir.Value:
    return g.b.zext(g.b.bitcast(fconvert(g.b, r, F32), I32), I64)


def _lane_get(g: "Gen", n: "Prim") -> None:
    gate(g, n, "WGLANE@")
    (i,) = g.pop(1)
    t = _top(g, n, "WGLANE@")
    g.tstack.append(t)
    bits = perform(g, n, WgLaneGet("WGLANE@", len(g.tstack) - 1, t, g.checked), [i])
    assert bits is not None
    g.fpush(fconvert(g.b, g.b.bitcast(g.b.trunc(bits, I32), F32), g.float_t))


def _lane_put(g: "Gen", n: "Prim") -> None:
    gate(g, n, "WGLANE!")
    (i,) = g.pop(1)
    (r,) = g.fpop(1)
    t = _top(g, n, "WGLANE!")
    g.tstack.append(t)
    perform(g, n, WgLanePut("WGLANE!", len(g.tstack) - 1, t, g.checked), [i, _bits(g, r)])


def _place(col: bool):
    """WGROW / WGCOL: wg_coords in IR, the warp in the warpgroup from the linear thread index."""
    def emit(g: "Gen", n: "Prim") -> None:
        from .tilegen import _lane_id
        b = g.b
        (i,) = g.pop(1)
        lane = _lane_id(g)
        if col:
            g.push(b.add(b.shl(b.lshr(i, c64(2)), c64(3)), b.add(b.shl(b.and_(lane, c64(3)), c64(1)),
                                                                  b.and_(i, c64(1)))))
            return
        s = g.target.sreg
        linear = b.add(s(g, "tid.x"), b.mul(s(g, "bdim.x"), b.add(s(g, "tid.y"), b.mul(s(g, "bdim.y"),
                                                                                        s(g, "tid.z")))))
        warp = b.and_(b.lshr(linear, c64(5)), c64(WG_WARPS - 1))
        g.push(b.add(b.add(b.shl(warp, c64(4)), b.lshr(lane, c64(2))), b.shl(b.and_(b.lshr(i, c64(1)), c64(1)),
                                                                              c64(3))))
    return emit


def check_launch_end(tstack: list, pos) -> None:
    """A launch (a line's kernel) may not end with a WGMMA in flight: its accumulator would be written after the
    threads finished (the emulator would read shared memory of another launch)."""
    left = [t for t in tstack if isinstance(t, Tile) and t.pending]
    if left:
        raise ForthError(f"the launch ends with {len(left)} warpgroup accumulator{'s' * (len(left) > 1)} still pending, "
                         f"the tile stack {detailed(tstack)}: a WGMMA would complete after the threads finished; end "
                         "with `0 WGMMA-WAIT`", pos, "WGMMA")


# ---- WGDESC: compiled by the immediate word (words/hopper.py) with its checked spec ------------------
@record(frozen=True)
class DescSpec:
    """What `swizzle WGDESC name` (or WGDESC-MN) was compiled with: the tile, the swizzle (bytes), and for an
    MN-major operand (`mn`) the panels the tile holds it in (see check_desc_mn)."""
    tile: SmemTile
    swizzle: int
    mn: bool = False
    panels: int = 1

    @property
    def panel_rows(self) -> int:
        return self.tile.rows // self.panels


def check_desc(tile: SmemTile, swizzle: int, in_type: str, word: str = "WGDESC") -> str | None:
    """Why a descriptor of `swizzle` bytes cannot describe `tile` (its declared layout), or None; `word` the
    descriptor word the fixes name."""
    if tile.eltype.lower() != in_type:
        return (f"{tile.name} holds {tile.eltype} but the tile input type is {in_type.upper()}: declare the tile with "
                f"{in_type.upper()}, or say `{tile.eltype.upper()} TILE-IN` (WGMMA takes F16 or BF16)")
    if swizzle not in SWIZZLES:
        return f"{swizzle} is not a wgmma swizzle: give 0, 32, 64 or 128 (bytes)"
    if swizzle and not tile.swizzle:
        return (f"{tile.name} is not swizzled (SMEM-TILE), but the descriptor says {swizzle}-byte swizzle: wgmma would "
                f"read its chunks from the wrong places; declare {tile.name} with {SWIZZLE_WORDS[swizzle]}, or use "
                "`0 WGDESC` on a tile in core-matrix order")
    if swizzle != tile.swizzle:
        said = f"{swizzle}-byte swizzle" if swizzle else "no swizzle"
        return (f"{tile.name} is {tile.swizzle}-byte swizzled ({SWIZZLE_WORDS[tile.swizzle]}), but the descriptor says "
                f"{said}: wgmma would read its chunks from the wrong places; use `{tile.swizzle} {word}`")
    if swizzle == 0 and tile.row_bytes != 16:
        return (f"without a swizzle wgmma reads 8x8 core matrices of 16-byte rows, but a row of {tile.name} is "
                f"{tile.row_bytes} bytes: declare it with 16-byte rows ({16 // tile.size} columns) holding the operand "
                "in core-matrix order, or use a SMEM-TILE-SWZ with `128 WGDESC`")
    return None


def mn_panels(tile: SmemTile, swizzle: int, n: int) -> int:
    """The panels an MN-major B of width n takes in `tile`: a swizzle-byte row holds swizzle / element size of it."""
    return max(1, n // (swizzle // tile.size))


def check_desc_mn(tile: SmemTile, swizzle: int, in_type: str, n: int) -> str | None:
    """Why `swizzle WGDESC-MN` cannot describe `tile` as B (N = n) MN-major, or None (see the MN-major text)."""
    if swizzle == 0:
        return ("an MN-major operand is read from a swizzled tile here: declare the tile with SMEM-TILE-SWZ (rows of "
                "K, 64 columns of N) and use `128 WGDESC-MN`, or store the operand K-major and use `0 WGDESC`")
    why = check_desc(tile, swizzle, in_type, "WGDESC-MN")
    if why is not None:
        return why
    panels = mn_panels(tile, swizzle, n)
    if tile.rows % (8 * panels):
        return (f"B is {n} wide and a row of {tile.name} holds {swizzle // tile.size} of it, so the tile holds B in "
                f"{panels} panels one under another, each a multiple of 8 rows of K, but {tile.name} has {tile.rows} "
                f"rows: declare it with {8 * panels}*k rows (k rows of K per panel)")
    return None


def _majors(g: "Gen") -> dict[int, tuple[ir.Value, DescSpec]]:
    """The descriptor values this Gen pushed from (WGDESC), by id (the value kept, so the id is not reused):
    how WGMMA knows, at compile time, which operand is MN-major."""
    m = _MAJORS.get(g)
    if m is None:
        m = _MAJORS[g] = {}
    return m


_MAJORS: "weakref.WeakKeyDictionary[Any, dict[int, tuple[ir.Value, DescSpec]]]" = weakref.WeakKeyDictionary()


def _major_of(g: "Gen", n: "Prim", desc: ir.Value, which: str, cfg: TileConfig) -> int:
    """The transpose flag of operand `which`: 1 for a descriptor WGDESC-MN pushed, else 0 (K-major; also for a
    descriptor whose origin the compiler does not see, unless this kernel built an MN-major one before: then
    it might be that one, and it is an error). An MN-major A must fit one panel (64 columns)."""
    seen = _majors(g)
    hit = seen.get(id(desc))
    if hit is None or hit[0] is not desc:
        if any(spec.mn for _, spec in seen.values()):
            raise ForthError(f"WGMMA: the compiler cannot see where {which}'s descriptor was built (it came through the "
                             "return stack, memory or arithmetic), and this kernel builds MN-major descriptors "
                             "(WGDESC-MN), whose transpose flag WGMMA needs when it is compiled: build each descriptor "
                             "with WGDESC or WGDESC-MN on the data stack before the WGMMA (no >R, VARIABLE or "
                             "arithmetic on it)", n.pos, "WGMMA")
        return 0
    if not hit[1].mn:
        return 0
    spec = hit[1]
    if which == "A" and spec.swizzle // spec.tile.size < WG_M:
        raise ForthError(f"WGMMA: A's descriptor is MN-major ({spec.swizzle} WGDESC-MN {spec.tile.name}), but a "
                         f"{spec.swizzle}-byte row holds {spec.swizzle // spec.tile.size} of A's 64 rows: an MN-major A "
                         "needs a 128-byte swizzle (SMEM-TILE-SWZ, `128 WGDESC-MN`), or store A K-major (`WGDESC`)",
                         n.pos, "WGMMA")
    if which == "B" and spec.panels != mn_panels(spec.tile, spec.swizzle, cfg.wg_n):
        raise ForthError(f"WGMMA: B's descriptor (WGDESC-MN {spec.tile.name}) was built for {spec.panels} panel(s) "
                         f"but the warpgroup shape is m64n{cfg.wg_n}k16: build it under the same WG-SHAPE", n.pos, "WGMMA")
    return 1


def _desc(g: "Gen", n: "Prim") -> None:
    """( stage row col -- desc ): the K-major block at row, col of the stage (see the module's text); for
    WGDESC-MN the MN-major block at K row `row`, MN column `col`."""
    spec: DescSpec = n.arg  # type: ignore[assignment]
    gate(g, n, "WGDESC-MN" if spec.mn else "WGDESC")
    t = spec.tile
    b = g.b
    stage, row, col = g.pop(3)
    off = b.add(c64(t.offset), b.mul(stage, c64(t.stage_bytes)))
    if spec.mn:  # panels of W bytes of MN, one under another; K along the rows
        per = spec.swizzle // t.size  # MN elements in a row of a panel
        panel_bytes = spec.panel_rows * t.row_bytes
        off = b.add(off, b.add(b.mul(row, c64(t.row_bytes)),
                               b.add(b.mul(b.udiv(col, c64(per)), c64(panel_bytes)),
                                     b.mul(b.urem(col, c64(per)), c64(t.size)))))
        lbo, sbo = panel_bytes, 8 * spec.swizzle  # LBO: the next panel (MN + W/2); SBO: the next 8 rows of K
    elif spec.swizzle:  # row-major rows of W bytes; the swizzle is the hardware's (address bits 4.. ^ 7..)
        off = b.add(off, b.add(b.mul(row, c64(t.row_bytes)), b.mul(col, c64(t.size))))
        lbo, sbo = SW128_LBO, 8 * spec.swizzle  # the next 8-row atom: 8 rows of W bytes
    else:  # core-matrix order: operand row r starts at tile row 2r (each 8-row block is two core matrices)
        off = b.add(off, b.add(b.mul(row, c64(2 * t.row_bytes)), b.mul(col, c64(t.row_bytes))))
        lbo, sbo = CORE_LBO, CORE_SBO
    base = getattr(g.target, "shared_space_base", None)  # nvptx: tf_shared's address in the shared window
    if base is not None:
        off = b.add(off, base(g))
    start = b.lshr(b.and_(off, c64(0x3FFFF)), c64(4))
    desc = b.or_(start, c64(descriptor(0, lbo, sbo, spec.swizzle)))
    _majors(g)[id(desc)] = (desc, spec)
    g.push(desc)


NO_DATA = Effect(True, 0, 0, 0, 0)
# the examples' setup: one warpgroup, a swizzled 64 x 64 bf16 tile for A and one for B (N x K)
SETUP = ("128 1 1 THREADS  BF16 TILE-IN  64 64 16 WG-SHAPE  64 64 BF16 1 SMEM-TILE-SWZ sA  "
         "64 64 BF16 1 SMEM-TILE-SWZ sB  ")


def install(registry: "Registry") -> None:
    """Add the warpgroup words to the primitive registry (primitives.py calls this). Each is a suspend point
    on the emulator and is inlined into its kernel (which is how every word holding a WGMMA is too)."""
    def tile(name: str, effect: str, help: str, example: str, emit, data: Effect = NO_DATA, **flags) -> None:
        registry.prim(name, effect, help, example, emit, static_effect=lambda n, e=data: e,
                      suspend_point=True, inline=True, tile_word=True, **flags)

    registry.group("Tiles: warpgroup MMA (Hopper wgmma, sm_90a)")
    tile("WGZERO", "( -- ) ( T: -- wacc )", "Push a warpgroup accumulator of zeros, 64 x N f32 (N as WG-SHAPE sets it): N/2 "
         "elements in each thread of the warpgroup, its 128 threads. Needs sm_90a.",
         "128 1 1 THREADS  WGZERO 0 WGLANE@ F. TDROP \\ 0.", _zero)
    tile("WGMMA", "( adesc bdesc -- ) ( T: wacc -- wacc )", "Warpgroup MMA: D += A . B, A 64 x 16 and B (stored "
         "N x K) read from shared memory through their descriptors (WGDESC), every thread of the warpgroup "
         "together (wgmma.fence, mma_async, commit_group). The accumulator is pending until a WGMMA-WAIT covers it.",
         SETUP + "WGZERO 0 0 0 128 WGDESC sA 0 0 0 128 WGDESC sB WGMMA 0 WGMMA-WAIT TDROP", _mma,
         Effect(True, 2, -2, 0, 0))
    tile("WGMMA-WAIT", "( -- )", "n WGMMA-WAIT (n a literal, 0 to 7): wait until at most the n newest WGMMAs "
         "of this thread are in flight (wgmma.wait_group n); the accumulators of the older ones are no longer pending.",
         SETUP + "WGZERO 0 0 0 128 WGDESC sA 0 0 0 128 WGDESC sB WGMMA 0 WGMMA-WAIT 0 WGLANE@ F. TDROP "
         "\\ 0.", _wait, takes_literal=True)
    tile("WGSTORE", "( addr stride -- ) ( T: wacc -- )", "Store the warpgroup accumulator row-major at addr "
         "(stride f32 elements between rows): each thread its N/2 elements, at WGROW and WGCOL.",
         "128 1 1 THREADS  64 64 F32 MATRIX C  WGZERO C 64 WGSTORE", _store, Effect(True, 2, -2, 0, 0))
    tile("WGLANE@", "( i -- ) ( F: -- r ) ( T: wacc -- wacc )", "Element i (0 to N/2 - 1) of this thread's part of "
         "the top warpgroup accumulator, at row i WGROW and column i WGCOL.",
         "128 1 1 THREADS  WGZERO 5 WGLANE@ F. TDROP \\ 0.", _lane_get, Effect(True, 1, -1, 0, 1))
    tile("WGLANE!", "( i -- ) ( F: r -- ) ( T: wacc -- wacc )", "Set element i of this thread's part of the top "
         "warpgroup accumulator (an epilogue per thread: bias, activation, scaling).",
         "128 1 1 THREADS  WGZERO 2e 5 WGLANE! 5 WGLANE@ F. TDROP \\ 2.", _lane_put,
         Effect(True, 1, -1, 1, -1))
    tile("WGROW", "( i -- row )", "The row of element i of this thread's part of a warpgroup accumulator: "
         "16*(warp mod 4) + lane/4 + 8*((i/2) mod 2), the PTX ISA's layout of wgmma's D.",
         "128 1 1 THREADS  TID-X 37 = IF 2 WGROW . THEN \\ [thread 37] 25", _place(False), Effect(True, 1, 0, 0, 0))
    tile("WGCOL", "( i -- col )", "The column of element i of this thread's part of a warpgroup accumulator: "
         "8*(i/4) + 2*(lane mod 4) + i mod 2.",
         "128 1 1 THREADS  TID-X 37 = IF 5 WGCOL . THEN \\ [thread 37] 11", _place(True), Effect(True, 1, 0, 0, 0))
    registry.prim("(WGDESC)", "( stage row col -- desc )", "A wgmma matrix descriptor of a SMEM-TILE's block "
                  "(compiled by WGDESC).", "", _desc, static_effect=lambda n: Effect(True, 3, -2, 0, 0))
