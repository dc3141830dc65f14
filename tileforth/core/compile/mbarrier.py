"""Hopper's mbarriers, the async-proxy fence and ELECT (sm_90+): the device words.

    word            stack                    PTX (LLVM 22 intrinsic, llvm.nvvm.…)
    MBAR-INIT       ( mbar count -- )        mbarrier.init.shared.b64                      (mbarrier.init.shared)
    MBAR-FENCE      ( -- )                   fence.mbarrier_init.release.cluster            (fence.mbarrier_init…)
    MBAR-ARRIVE     ( mbar -- )              mbarrier.arrive.shared.b64                     (mbarrier.arrive.shared)
    MBAR-ARRIVE-TX  ( mbar bytes -- )        mbarrier.arrive.expect_tx.shared.b64  (…arrive.expect.tx.scope.cta.space.cta)
    MBAR-TX         ( mbar bytes -- )        mbarrier.expect_tx.shared.b64          (…expect.tx.scope.cta.space.cta)
    MBAR-TRY-WAIT   ( mbar parity -- flag )  mbarrier.try_wait.parity.shared.b64    (…try.wait.parity.scope.cta.space.cta)
    MBAR-WAIT       ( mbar parity -- )       a loop around MBAR-TRY-WAIT
    FENCE-ASYNC     ( -- )                   fence.proxy.async.shared::cta                  (fence.proxy.async.shared_cta)
    ELECT           ( -- flag )              elect.sync _|p, 0xffffffff                     (elect.sync)

An mbarrier is 8 bytes of shared memory (8 aligned; `8 SHARED: bar`, or a stage of a SMEM-TILE). MBAR-INIT
sets its count of arrivals; a phase completes when `count` arrivals came and the transaction count (bytes
announced by MBAR-ARRIVE-TX / MBAR-TX, less the bytes TMA copies delivered) is back to zero; the barrier
then starts its next phase. `mbar parity MBAR-WAIT` waits until the phase of that parity (the first phase
is 0, then 1, 0, ...) completed. The TMA words (tma.py) deliver their bytes to an mbarrier.

Each word asks the target for one `HopperOp` (`Target.hopper_op`: the nvptx target lowers it to its
intrinsic, the emulator parks the thread and models the barrier: tileforth/backends/cpu/mbarriers.py).
Every word needs sm_90 (a ForthError at the word on an older target: LLVM would abort); on sm_90 the
module is generated with PTX 8.0 (ptx.py), which these instructions need.
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

HOPPER_SM = 90  # mbarrier try_wait / expect_tx, TMA, elect.sync, fence.proxy.async: Hopper and newer
MBAR_BYTES = 8  # an mbarrier object: 8 bytes of shared memory, 8 aligned
COUNT_MAX = (1 << 20) - 1  # the most arrivals a phase may expect (PTX ISA: mbarrier's count range)
TX_MAX = (1 << 20) - 1  # the transaction count's range


# ---- the operations a target performs ---------------------------------------------------------------
@record(frozen=True)
class HopperOp(WarpOp):
    """A Hopper operation of one thread (not warp-collective unless it says so); `checked`: compiled in
    checked mode (the emulator then reports misuse it could otherwise let pass)."""
    checked: bool = True
    results: ClassVar[int] = 0
    collective: ClassVar[bool] = False


@record(frozen=True)
class MbarInit(HopperOp):
    """operands: the mbarrier's shared address, its count of arrivals per phase."""
    operands: ClassVar[int] = 2


@record(frozen=True)
class MbarFence(HopperOp):
    """Make the initialisations before it visible to the async proxy (TMA) and the other threads."""


@record(frozen=True)
class MbarArrive(HopperOp):
    """operand: the mbarrier. One arrival on its current phase."""
    operands: ClassVar[int] = 1


@record(frozen=True)
class MbarArriveTx(HopperOp):
    """operands: the mbarrier, bytes: the phase expects `bytes` more transaction bytes, then one arrival."""
    operands: ClassVar[int] = 2


@record(frozen=True)
class MbarExpectTx(HopperOp):
    """operands: the mbarrier, bytes: the phase expects `bytes` more transaction bytes (no arrival)."""
    operands: ClassVar[int] = 2


@record(frozen=True)
class MbarTryWait(HopperOp):
    """operands: the mbarrier, the parity of the phase waited for; result: a Forth flag, true when
    that phase has completed."""
    operands: ClassVar[int] = 2
    results: ClassVar[int] = 1


@record(frozen=True)
class FenceAsync(HopperOp):
    """Order this thread's generic-proxy accesses of shared memory before later async-proxy ones (TMA)."""


@record(frozen=True)
class Elect(HopperOp):
    """result: true on one lane of the warp (the lowest), false on the others; every lane takes part."""
    results: ClassVar[int] = 1
    collective: ClassVar[bool] = True


# ---- what the words share ---------------------------------------------------------------------------
def gate(g: "Gen", n: "Prim", word: str, what: str = "Hopper's mbarriers, TMA and elect.sync") -> None:
    """sm_90 or newer: a ForthError at the word on an older target (LLVM would abort on the intrinsic)."""
    sm = getattr(g.target, "sm", None)
    if sm is not None and sm < HOPPER_SM:
        raise ForthError(f"{word} needs sm_{HOPPER_SM} or newer ({what}), but the target is "
                         f"{getattr(g.target, 'arch', sm)}: compile with --arch sm_{HOPPER_SM} or newer, or run it "
                         "with --backend cpu", n.pos, word)


def perform(g: "Gen", n: "Prim", op: HopperOp, operands: list[ir.Value]) -> ir.Value | None:
    """The target's code for op (Target.hopper_op); a target without Hopper operations says so."""
    fn = getattr(g.target, "hopper_op", None)
    if fn is None:
        raise ForthError(f"{op.word} is not supported by the {g.target.name} target: run it with --backend cpu "
                         "or on a Hopper GPU", n.pos, op.word)
    return fn(g, op, operands)


def ctx_slot(g: "Gen", slot: int) -> ir.Value:
    return g.b.load(g.b.gep(g.env.ctx, [c64(slot)], source_etype=I64), typ=I64)


def check_shared(g: "Gen", addr: ir.Value, size: int, align: int) -> None:
    """Checked mode: `size` bytes at addr, `align` aligned, inside the block's shared window."""
    b = g.b
    g.fail_if(b.icmp_unsigned("!=", b.and_(addr, c64(align - 1)), c64(0)), L.E_ALIGN, addr=addr, aux=c64(align))
    off = b.sub(addr, g.target.shared_addr(g, 0))
    room = b.sub(ctx_slot(g, L.CTX_SHARED_SIZE), c64(size))
    inside = b.and_(b.icmp_signed(">=", room, c64(0)), b.icmp_unsigned("<=", off, room))
    g.fail_if(b.not_(inside), L.E_BAD_ADDR, addr=addr, aux=c64(size))


def _bar(g: "Gen", bar: ir.Value) -> ir.Value:
    if g.checked:
        check_shared(g, bar, MBAR_BYTES, MBAR_BYTES)
    return bar


# ---- the words --------------------------------------------------------------------------------------
def _init(g: "Gen", n: "Prim") -> None:
    gate(g, n, "MBAR-INIT")
    bar, count = g.pop(2)
    _bar(g, bar)
    perform(g, n, MbarInit("MBAR-INIT", g.checked), [bar, count])


def _simple(cls: type, word: str, pops: int):
    def emit(g: "Gen", n: "Prim") -> None:
        gate(g, n, word)
        vals = g.pop(pops)
        if pops:
            _bar(g, vals[0])
        perform(g, n, cls(word, g.checked), vals)
    return emit


def _try_wait(g: "Gen", n: "Prim") -> None:
    gate(g, n, "MBAR-TRY-WAIT")
    bar, parity = g.pop(2)
    _bar(g, bar)
    flag = perform(g, n, MbarTryWait("MBAR-TRY-WAIT", g.checked), [bar, g.b.and_(parity, c64(1))])
    g.push(flag)


def _wait(g: "Gen", n: "Prim") -> None:
    """A loop around try_wait (the hardware suspends the thread a while in each try); on the emulator
    each try parks the thread, and a wait that can never complete is an error there."""
    gate(g, n, "MBAR-WAIT")
    bar, parity = g.pop(2)
    _bar(g, bar)
    parity = g.b.and_(parity, c64(1))
    g.flush()
    loop, again, done = g.new_block("mbar_wait"), g.new_block("mbar_again"), g.new_block("mbar_waited")
    g.b.branch(loop)
    g.b.position_at_end(loop)
    flag = perform(g, n, MbarTryWait("MBAR-WAIT", g.checked), [bar, parity])
    g.b.cbranch(g.b.icmp_unsigned("!=", flag, c64(0)), done, again)
    g.b.position_at_end(again)
    if g.count_steps and g.env.steps is not None:
        g.step(loop)  # a wait counts against the step budget like a loop
    else:
        g.b.branch(loop)
    g.b.position_at_end(done)


def _elect(g: "Gen", n: "Prim") -> None:
    gate(g, n, "ELECT")
    g.push(perform(g, n, Elect("ELECT", g.checked), []))


NO_DATA = Effect(True, 0, 0, 0, 0)

# the examples' setup: one warp, an mbarrier in shared memory, initialised by thread 0
SETUP = "32 1 1 THREADS  8 SHARED: bar  TID-X 0= IF bar 1 MBAR-INIT MBAR-FENCE THEN BARRIER  "


def install(registry: "Registry") -> None:
    """Add the mbarrier words, FENCE-ASYNC and ELECT to the primitive registry (primitives.py calls this).
    Each is a suspend point on the emulator (the host models the barriers) and is inlined."""
    registry.group("Hopper: mbarriers, fences, ELECT (sm_90)")
    registry.prim("MBAR-INIT", "( mbar count -- )",
                  "Initialise the mbarrier at mbar (8 bytes of shared memory, 8 aligned) to expect count "
                  "arrivals (1 to 1048575) per phase; its first phase is phase 0. One thread initialises it, "
                  "then MBAR-FENCE and a BARRIER before the others use it. Needs sm_90.",
                  "1 1 1 THREADS  8 SHARED: bar  bar 1 MBAR-INIT MBAR-FENCE  bar 0 MBAR-TRY-WAIT . \\ 0",
                  _init, suspend_point=True)
    registry.prim("MBAR-FENCE", "( -- )",
                  "Make this thread's MBAR-INITs visible to the other threads and to TMA copies "
                  "(fence.mbarrier_init); use it once after the initialisations, before the BARRIER.",
                  SETUP + "bar 0 MBAR-TRY-WAIT TID-X 0= IF . ELSE DROP THEN \\ [thread 0] 0",
                  _simple(MbarFence, "MBAR-FENCE", 0), suspend_point=True)
    registry.prim("MBAR-ARRIVE", "( mbar -- )",
                  "Arrive on the mbarrier's current phase; the phase completes when its count of arrivals "
                  "came and no transaction bytes are outstanding.",
                  SETUP + "TID-X 0= IF bar MBAR-ARRIVE THEN  bar 0 MBAR-WAIT  TID-X 0= IF 1 . THEN \\ [thread 0] 1",
                  _simple(MbarArrive, "MBAR-ARRIVE", 1), suspend_point=True)
    registry.prim("MBAR-ARRIVE-TX", "( mbar bytes -- )",
                  "Announce that bytes more transaction bytes (TMA copies) complete the mbarrier's current "
                  "phase, then arrive on it (mbarrier.arrive.expect_tx): the thread that issues a TMA-LOAD "
                  "does this with the box's bytes.",
                  SETUP + "TID-X 0= IF bar 0 MBAR-ARRIVE-TX THEN  bar 0 MBAR-WAIT  TID-X 0= IF 1 . THEN "
                  "\\ [thread 0] 1", _simple(MbarArriveTx, "MBAR-ARRIVE-TX", 2), suspend_point=True)
    registry.prim("MBAR-TX", "( mbar bytes -- )",
                  "Announce bytes more transaction bytes for the mbarrier's current phase, without arriving "
                  "(mbarrier.expect_tx).",
                  SETUP + "TID-X 0= IF bar 0 MBAR-TX bar MBAR-ARRIVE THEN  bar 0 MBAR-WAIT  TID-X 0= IF 1 . THEN "
                  "\\ [thread 0] 1", _simple(MbarExpectTx, "MBAR-TX", 2), suspend_point=True)
    registry.prim("MBAR-TRY-WAIT", "( mbar parity -- flag )",
                  "True if the mbarrier's phase of this parity (0 for its first phase, then 1, 0, ...) has "
                  "completed; it does not wait (try_wait.parity).",
                  SETUP + "TID-X 0= IF bar MBAR-ARRIVE bar 0 MBAR-TRY-WAIT . bar 1 MBAR-TRY-WAIT . THEN "
                  "\\ [thread 0] -1 0", _try_wait, suspend_point=True)
    registry.prim("MBAR-WAIT", "( mbar parity -- )",
                  "Wait until the mbarrier's phase of this parity has completed (a loop of try_wait.parity). "
                  "On the emulator a wait that can never complete is an error naming the barrier.",
                  SETUP + "TID-X 0= IF bar MBAR-ARRIVE THEN  bar 0 MBAR-WAIT  TID-X 31 = IF 2 . THEN "
                  "\\ [thread 31] 2", _wait, suspend_point=True)
    registry.prim("FENCE-ASYNC", "( -- )",
                  "Order this thread's plain reads and writes of shared memory before the async proxy's "
                  "(a TMA-STORE of what it wrote, a TMA-LOAD over what it read): fence.proxy.async.",
                  "1 1 1 THREADS FENCE-ASYNC 1 . \\ 1", _simple(FenceAsync, "FENCE-ASYNC", 0),
                  suspend_point=True)
    registry.prim("ELECT", "( -- flag )",
                  "True on one lane of the warp (the lowest), false on the others (elect.sync with a full "
                  "mask): every lane of the warp executes it together.",
                  "32 1 1 THREADS  ELECT IF TID-X . THEN \\ [thread 0] 0", _elect, suspend_point=True)


@record(frozen=True)
class PhaseDone:
    """A completed phase of an mbarrier in a block of a launch (the emulator's model records them, for
    every block; .PIPE shows a block's): the barrier (its offset in shared memory and name), which phase
    (0, 1, ...), the arrivals it counted, the transaction bytes announced for it (MBAR-ARRIVE-TX, MBAR-TX)
    and delivered by the TMA boxes that completed it, and the block (its linear index in the grid)."""
    offset: int
    name: str
    phase: int
    arrivals: int
    tx_bytes: int
    boxes: int
    block: int = 0


# ---- warp specialisation (issue 29, point 3): WARPGROUP, REGS- REGS+ --------------------------------------
WARPGROUP_THREADS = 128  # four warps
NREG_MIN, NREG_MAX = 24, 256  # setmaxnreg's range; a multiple of 8


@record(frozen=True)
class SetMaxNReg(HopperOp):
    """setmaxnreg.inc/dec.sync.aligned.u32 n: the warpgroup's registers per thread raised (inc) or
    lowered to n; every thread of the warpgroup executes it together (sm_90a)."""
    n: int = 0
    inc: bool = False


def _warpgroup(g: "Gen", n: "Prim") -> None:
    """( -- wg ): the thread's linear index in its block / 128 (uniform in each warpgroup of four warps)."""
    b, s = g.b, g.target.sreg
    bx, by = s(g, "bdim.x"), s(g, "bdim.y")
    linear = b.add(s(g, "tid.x"), b.mul(bx, b.add(s(g, "tid.y"), b.mul(by, s(g, "tid.z")))))
    g.push(b.udiv(linear, c64(WARPGROUP_THREADS)))


def _setmaxnreg(inc: bool):
    word = "REGS+" if inc else "REGS-"

    def emit(g: "Gen", n: "Prim") -> None:
        arch = getattr(g.target, "arch", "")
        sm = getattr(g.target, "sm", None)
        if sm is not None and not (arch.endswith("a") and sm >= HOPPER_SM):
            raise ForthError(f"{word} needs an arch-specific target, sm_90a (setmaxnreg), but the target is {arch}: "
                             "compile with --arch sm_90a, or run it with --backend cpu", n.pos, word)
        if not isinstance(n.arg, int) or not NREG_MIN <= n.arg <= NREG_MAX or n.arg % 8:
            raise ForthError(f"{word} needs a literal register count before it, a multiple of 8 from {NREG_MIN} "
                             f"to {NREG_MAX}, e.g. `240 {word}`", n.pos, word)
        if sm is not None:
            perform(g, n, SetMaxNReg(word, g.checked, int(n.arg), inc), [])
        else:  # the emulator has no registers to share out, but checks the warpgroup executes it together
            from .wgmma import WgRegs
            g.target.warp_op(g, WgRegs(word, checked=g.checked, n=int(n.arg)), [])
    return emit


def install_specialisation(registry: "Registry") -> None:
    """WARPGROUP, REGS- and REGS+ (primitives.py calls this)."""
    registry.group("Hopper: warp specialisation (sm_90a)")
    registry.prim("WARPGROUP", "( -- wg )", "The thread's warpgroup in its block: its linear thread index / 128 "
                  "(four warps; the producer and consumer roles of a specialised kernel branch on it).",
                  "256 1 1 THREADS  WARPGROUP TID-X 128 = IF . ELSE DROP THEN \\ [thread 128] 1", _warpgroup,
                  static_effect=lambda n: Effect(True, 0, 1, 0, 0))
    registry.prim("REGS-", "( -- )", "n REGS- (n a literal, a multiple of 8 from 24 to 256): lower the "
                  "warpgroup's registers per thread to n (setmaxnreg.dec), for a producer that needs few. Every "
                  "thread of the warpgroup executes it together (the emulator checks that, and does nothing else). "
                  "Needs sm_90a.",
                  "128 1 1 THREADS  40 REGS- TID-X 0= IF 1 . THEN \\ [thread 0] 1", _setmaxnreg(False),
                  static_effect=lambda n: NO_DATA, takes_literal=True, literal_max=NREG_MAX, inline=True,
                  suspend_point=True)
    registry.prim("REGS+", "( -- )", "n REGS+ (n a literal, a multiple of 8 from 24 to 256): raise the "
                  "warpgroup's registers per thread to n (setmaxnreg.inc), for consumers holding big "
                  "accumulators. Every thread of the warpgroup executes it together (the emulator checks that, and "
                  "does nothing else). Needs sm_90a.",
                  "128 1 1 THREADS  232 REGS+ TID-X 0= IF 1 . THEN \\ [thread 0] 1", _setmaxnreg(True),
                  static_effect=lambda n: NO_DATA, takes_literal=True, literal_max=NREG_MAX, inline=True,
                  suspend_point=True)
