"""Shared-memory tiles and asynchronous copies (cp.async, sm_80+): the device words.

    word         stack                      PTX (LLVM 22 intrinsic)
    CP.ASYNC     ( gaddr saddr -- )         cp.async.cg.shared.global 16 bytes  (llvm.nvvm.cp.async.cg.shared.global.16)
    CP.ASYNC-N   ( gaddr saddr n -- )       the same, reading n bytes (0..16), zero-filling the rest (….16.s)
    CP.COMMIT    ( -- )                     cp.async.commit_group                (llvm.nvvm.cp.async.commit.group)
    n CP.WAIT    ( -- )  n a literal        cp.async.wait_group n                (llvm.nvvm.cp.async.wait.group)
    (SMEM-STAGE) ( stage -- saddr )         a SMEM-TILE name's code: the stage's address in shared memory

Each thread copies its own 16 bytes; the copies it issues since its last
CP.COMMIT form a group, and `n CP.WAIT` waits until at most its n newest
groups are still in flight (the others have landed). A copy is seen only by
the thread that waits for it: other threads of the block see it after that
thread's wait and a BARRIER.

In checked mode each copy's addresses are checked (the destination 16-byte
aligned in the block's shared window, the source 16-byte aligned inside an
allocation, n from 0 to 16). Each word asks the target for one `AsyncOp`
(`Target.async_op`): the nvptx target calls the intrinsic, the emulator parks
the thread and models the copy (tileforth/backends/cpu/asynccopy.py): it lands
only at the wait that covers its group, and in checked mode a read or write of
its bytes before then is an error naming the tile, the stage, the group and
the wait it needs.

The SMEM-TILE defining word (tileforth/core/session/words/smem.py) lays out the
tiles; its record, SmemTile, is what (SMEM-STAGE) is compiled with.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from llvmlite import ir

from ..errors import ForthError
from ..front.effects import Effect
from ..records import record
from . import layout as L
from .codegen import I64, c64
from .tileops import WarpOp

if TYPE_CHECKING:
    from ..front.tree import Prim
    from .codegen import Gen
    from .primitive import Registry

ASYNC_MIN_SM = 80  # cp.async: Ampere and newer
CHUNK = 16  # bytes one cp.async moves
SWIZZLE_ROW = 128  # bytes in a row of a 128-byte-swizzled tile
SWIZZLE_SPANS = (32, 64, 128)  # the swizzles Hopper's TMA and wgmma read: rows of that many bytes
ALIGN, SWIZZLED_ALIGN = 128, 1024  # where a tile's stages start (a swizzled tile's pattern repeats every 1024 bytes)
WAIT_MAX = 7  # the largest count of CP.WAIT
TYPED_WIDTHS = (2, 4, 8)  # the widths the emulator's type check takes for an integer access
# E_ASYNC's kinds (aux >> 32): a read or a write of bytes whose copy has not landed, an access of another
# thread's landed copy with no BARRIER since its wait, a bad src-size, a bad stage
A_READ, A_WRITE, A_UNSYNCED, A_SIZE, A_STAGE = 0, 1, 2, 3, 4


@record(frozen=True)
class SmemTile:
    """A SMEM-TILE: `stages` tiles of rows x cols elements of `eltype` (its name, `size` bytes each),
    row-major, each stage `stage_bytes` apart from `offset` in the block's shared memory. `swizzle`: 0, or
    the bytes of a row of a swizzled tile (128: SMEM-TILE-SWZ, 64: SMEM-TILE-SWZ64, 32: SMEM-TILE-SWZ32),
    whose 16-byte chunk at byte offset o of the stage is stored at o xor ((o >> 7) & (swizzle/16 - 1)) << 4
    (the hardware's pattern on the address: 128: chunk c of row r at c xor (r mod 8); 64: c xor ((r/2) mod 4);
    32: c xor ((r/4) mod 2)). Only the 128-byte swizzle has a geom (STAGE-TILE, ldmatrix)."""

    name: str
    rows: int
    cols: int
    eltype: str
    size: int
    stages: int
    swizzle: int  # 0, 32, 64 or 128 (bytes)
    offset: int  # where its stage 0 starts (E_ASYNC's stage errors name the tile by it)

    @property
    def row_bytes(self) -> int:
        return self.cols * self.size

    @property
    def bytes(self) -> int:
        return self.rows * self.row_bytes

    @property
    def stage_bytes(self) -> int:
        align = SWIZZLED_ALIGN if self.swizzle else ALIGN
        return -(-self.bytes // align) * align

    @property
    def geom(self) -> int:
        """What STAGE-TILE reads: rows | 16-byte chunks per row << 16 | swizzled (128 bytes) << 32."""
        return self.rows | (self.row_bytes // CHUNK) << 16 | int(self.swizzle == SWIZZLE_ROW) << 32

    def where(self, off: int) -> str | None:
        """Byte `off` of shared memory as a place in this tile ("stage 1 of As, row 3, bytes 16..31"),
        or None when it is not in it."""
        rel = off - self.offset
        if not 0 <= rel < self.stages * self.stage_bytes:
            return None
        stage, inner = divmod(rel, self.stage_bytes)
        if inner >= self.bytes:
            return f"the padding after stage {stage} of {self.name}"
        row, byte = divmod(inner, self.row_bytes)
        lo = byte - byte % CHUNK
        return f"stage {stage} of {self.name} (row {row}, bytes {lo}..{lo + CHUNK - 1} of the row)"


def swizzled(offset, span: int):
    """Where byte `offset` of a stage (1024-aligned) of a tile swizzled with rows of `span` bytes is stored
    (ints or numpy arrays): its 16-byte chunk xor the row bits of the address (SmemTile)."""
    return offset ^ (((offset >> 7) & (span // CHUNK - 1)) << 4)


def swizzle128(row: int, chunk: int) -> int:
    """The byte offset of 16-byte chunk `chunk` of row `row` in a 128-byte-swizzled tile (the host's copy
    of the prelude's SWIZZLE128, for messages and views)."""
    return row * SWIZZLE_ROW + ((chunk ^ (row & 7)) * CHUNK)


# ---- what .PIPE shows (the emulator's copy model records it, words/smem.py shows it) ----------------
@record(frozen=True)
class StageState:
    """One stage of a SMEM-TILE at a moment of the pipeline: of its `chunks` 16-byte chunks, how many
    have a copy in flight and how many a wait landed (this launch), and the groups of each (a thread's
    group number; -1: a copy not committed yet)."""

    tile: str
    stage: int
    chunks: int
    in_flight: int
    landed: int
    flight_groups: tuple[int, ...]
    landed_groups: tuple[int, ...]

    @property
    def state(self) -> str:
        """"in flight", "landed", "landing" (some of each), "partly landed", or "empty"."""
        if self.in_flight and self.landed:
            return "landing"
        if self.in_flight:
            return "in flight"
        if self.landed:
            return "landed" if self.landed == self.chunks else "partly landed"
        return "empty"


@record(frozen=True)
class WarpWait:
    """A warp's CP.WAIT: `n` the count; the groups its first lane had in flight before it, oldest
    first, and those it landed; `lanes` the lanes there, `alike`: all had the same groups."""

    warp: int
    n: int
    before: tuple[int, ...]
    landed: tuple[int, ...]
    lanes: int
    alike: bool
    copies: int  # the copies it landed, all its lanes together

    @property
    def left(self) -> tuple[int, ...]:
        return self.before[len(self.landed):]


PIPE_BLOCKS = 64  # the blocks (0 to PIPE_BLOCKS - 1) whose waits the emulator keeps for .PIPE


@record(frozen=True)
class PipeStep:
    """The k-th CP.WAIT of each warp of a block of the launch (`index` k, from 0), and the block's
    stages once the last warp to get there had waited; or (`index` -1) where the launch stopped with
    copies in flight."""

    index: int
    site: int  # the wait's site (Forth.sites), -1 for the stop
    waits: tuple[WarpWait, ...]
    stages: tuple[StageState, ...]


# ---- the operations a target performs -------------------------------------------------------------
@record(frozen=True)
class AsyncOp(WarpOp):
    """An asynchronous-copy operation of one thread (not warp-collective: each lane its own);
    `checked`: compiled in checked mode (the emulator then reports misuse)."""
    checked: bool = True
    results: ClassVar[int] = 0
    collective: ClassVar[bool] = False


@record(frozen=True)
class AsyncCopy(AsyncOp):
    """operands: the global source address, the shared destination, the bytes read (0..16; the
    rest of the 16 are zero)."""
    operands: ClassVar[int] = 3


@record(frozen=True)
class AsyncCommit(AsyncOp):
    """Close this thread's open group of copies."""


@record(frozen=True)
class AsyncWait(AsyncOp):
    """Wait until at most `n` of this thread's committed groups are in flight."""
    n: int = 0


# ---- the words --------------------------------------------------------------------------------
def _gate(g: "Gen", n: "Prim", word: str) -> None:
    """cp.async needs sm_80: a ForthError at the word on an older target (LLVM would abort)."""
    sm = getattr(g.target, "sm", None)
    if sm is not None and sm < ASYNC_MIN_SM:
        raise ForthError(f"{word} needs sm_{ASYNC_MIN_SM} or newer (cp.async), but the target is "
                         f"{getattr(g.target, 'arch', sm)}: compile with --arch sm_{ASYNC_MIN_SM} or newer", n.pos, word)


def _ctx(g: "Gen", slot: int) -> ir.Value:
    return g.b.load(g.b.gep(g.env.ctx, [c64(slot)], source_etype=I64), typ=I64)


def _check_copy(g: "Gen", gaddr: ir.Value, saddr: ir.Value, nbytes: ir.Value) -> None:
    """Checked mode: the destination is 16 aligned 16 bytes in the shared window, the source 16
    aligned and its n bytes inside an allocation, 0 <= n <= 16."""
    b = g.b
    bad_n = b.icmp_unsigned(">", nbytes, c64(CHUNK))
    g.fail_if(bad_n, L.E_ASYNC, addr=gaddr, aux=b.or_(nbytes, c64(A_SIZE << 32)))
    for addr in (saddr, gaddr):
        g.fail_if(b.icmp_unsigned("!=", b.and_(addr, c64(CHUNK - 1)), c64(0)), L.E_ALIGN, addr=addr, aux=c64(CHUNK))
    off = b.sub(saddr, g.target.shared_addr(g, 0))
    room = b.sub(_ctx(g, L.CTX_SHARED_SIZE), c64(CHUNK))
    in_window = b.and_(b.icmp_signed(">=", room, c64(0)), b.icmp_unsigned("<=", off, room))
    g.fail_if(b.not_(in_window), L.E_BAD_ADDR, addr=saddr, aux=c64(CHUNK))
    none = b.icmp_unsigned("==", nbytes, c64(0))
    ok = b.or_(none, g.target.addr_ok(g, gaddr, nbytes, "global"))
    g.fail_if(b.not_(ok), L.E_BAD_ADDR, addr=gaddr, aux=nbytes)


def _source_read(g: "Gen", gaddr: ir.Value, nbytes: ir.Value, word: str, sized: bool) -> None:
    """Checked mode: the copy's read of global memory is an access the target sees (the emulator's
    race detector and PROFILE's trace, as a load's): 16 bytes, or CP.ASYNC-N's n (a case per n: the
    target's hook takes a constant size; n = 0 reads nothing)."""
    first = len(g.sites.entries)
    _source_cases(g, gaddr, nbytes, word, sized)
    for site in range(first, len(g.sites.entries)):  # PROFILE names these sites' rows cp.async
        g.sites.info[site] = AsyncCopy(word, True)  # type: ignore[assignment]  # (a WarpOp, as the park sites hold)


def _source_cases(g: "Gen", gaddr: ir.Value, nbytes: ir.Value, word: str, sized: bool) -> None:
    if not sized:
        g.target.mem_access(g, gaddr, CHUNK, "read", None, word)
        return
    done = g.new_block("cp_src_done")
    sw = g.b.switch(nbytes, done)
    for k in range(1, CHUNK + 1):
        bb = g.new_block(f"cp_src_{k}")
        sw.add_case(c64(k), bb)
        g.b.position_at_end(bb)
        if k in TYPED_WIDTHS:  # an access of 2, 4 or 8 bytes would be checked as an integer's: k-1 and 1
            g.target.mem_access(g, gaddr, k - 1, "read", None, word)
            g.target.mem_access(g, g.b.add(gaddr, c64(k - 1)), 1, "read", None, word)
        else:
            g.target.mem_access(g, gaddr, k, "read", None, word)
        g.b.branch(done)
    g.b.position_at_end(done)


def _copy(zero_fill: bool):
    word = "CP.ASYNC-N" if zero_fill else "CP.ASYNC"

    def emit(g: "Gen", n: "Prim") -> None:
        _gate(g, n, word)
        if zero_fill:
            gaddr, saddr, nbytes = g.pop(3)
        else:
            (gaddr, saddr), nbytes = g.pop(2), c64(CHUNK)
        if g.checked:
            _check_copy(g, gaddr, saddr, nbytes)
            _source_read(g, gaddr, nbytes, word, zero_fill)
        g.target.async_op(g, AsyncCopy(word, g.checked), [gaddr, saddr, nbytes])
    return emit


def _commit(g: "Gen", n: "Prim") -> None:
    _gate(g, n, "CP.COMMIT")
    g.target.async_op(g, AsyncCommit("CP.COMMIT", g.checked), [])


def _wait(g: "Gen", n: "Prim") -> None:
    _gate(g, n, "CP.WAIT")
    if not isinstance(n.arg, int) or n.arg > WAIT_MAX:
        raise ForthError("CP.WAIT needs a literal count before it (the groups it leaves in flight, 0 to "
                         f"{WAIT_MAX}), e.g. `0 CP.WAIT`", n.pos, "CP.WAIT")
    g.target.async_op(g, AsyncWait("CP.WAIT", g.checked, int(n.arg)), [])


def _stage(g: "Gen", n: "Prim") -> None:
    """A SMEM-TILE name: stage -> the stage's shared address; checked mode: 0 <= stage < stages."""
    t: SmemTile = n.arg  # type: ignore[assignment]
    (stage,) = g.pop(1)
    if g.checked:
        bad = g.b.icmp_unsigned(">=", stage, c64(t.stages))
        g.fail_if(bad, L.E_ASYNC, addr=c64(t.offset), aux=g.b.or_(g.b.and_(stage, c64(0xFFFFFFFF)),
                                                                   c64(A_STAGE << 32)))
    addr = g.b.add(g.target.shared_addr(g, t.offset), g.b.mul(stage, c64(t.stage_bytes)))
    g.push(g.tag(addr, "shared"))


NO_DATA = Effect(True, 0, 0, 0, 0)


def install(registry: "Registry") -> None:
    """Add the shared-tile and async-copy words to the primitive registry (primitives.py calls this).
    Each is a suspend point on the emulator (the host models the copies) and is inlined."""
    registry.group("Shared tiles and asynchronous copies (cp.async)")
    setup = "64 1 1 THREADS  64 F32 ARRAY g  RAMP g  4 16 F32 1 SMEM-TILE s  "
    registry.prim("CP.ASYNC", "( gaddr saddr -- )",
                  "Start copying the 16 bytes at gaddr (global memory, 16 aligned) to saddr (shared memory, "
                  "16 aligned), asynchronously: they land at the CP.WAIT that covers the copy's group, and "
                  "only this thread sees them before a BARRIER. Needs sm_80.",
                  setup + "TID-X 4 < IF TID-X 16 * g +  TID-X 16 * 0 s +  CP.ASYNC THEN  CP.COMMIT 0 CP.WAIT "
                  "BARRIER  TID-X 0= IF 0 s 60 + SF@ F. THEN \\ [thread 0] 15.",
                  _copy(False), suspend_point=True)
    registry.prim("CP.ASYNC-N", "( gaddr saddr n -- )",
                  "CP.ASYNC reading only the first n bytes (0 to 16) at gaddr, the other 16 - n bytes of "
                  "saddr are zeros (the zero-fill form for the edges of a matrix; n = 0 reads nothing).",
                  setup + "TID-X 0= IF g 16 +  0 s  4 CP.ASYNC-N  CP.COMMIT 0 CP.WAIT  0 s SF@ F. 0 s 4 + "
                  "SF@ F. THEN \\ [thread 0] 4. 0.", _copy(True), suspend_point=True)
    registry.prim("CP.COMMIT", "( -- )", "Close this thread's group of the CP.ASYNC copies started since its "
                  "last CP.COMMIT (an empty group counts too).",
                  setup + "TID-X 0= IF g 0 s CP.ASYNC CP.COMMIT 0 CP.WAIT 0 s 4 + SF@ F. THEN \\ [thread 0] 1.",
                  _commit, suspend_point=True)
    registry.prim("CP.WAIT", "( -- )", "n CP.WAIT (n a literal, 0 to 7): wait until at most this thread's n "
                  "newest committed groups of copies are still in flight; the older ones have landed.",
                  setup + "TID-X 0= IF g 0 s CP.ASYNC CP.COMMIT  g 16 + 0 s 16 + CP.ASYNC CP.COMMIT  1 CP.WAIT "
                  "0 s 8 + SF@ F. 0 CP.WAIT THEN \\ [thread 0] 2.",
                  _wait, static_effect=lambda n: NO_DATA, suspend_point=True, takes_literal=True)
    registry.prim("(SMEM-STAGE)", "( stage -- saddr )", "The address of a stage of a SMEM-TILE (compiled "
                  "for its name).", "", _stage, static_effect=lambda n: Effect(True, 1, 0, 0, 0))
