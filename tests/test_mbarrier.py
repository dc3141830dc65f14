"""mbarriers (issue 29, points 2, 4 and 5): the emulator's phase logic against a small independent model, a
never-completing wait and an over-arrival caught with a clear message, a producer/consumer pipeline through
TMA and mbarriers against numpy, and the PTX of every word accepted by ptxas for sm_90a (SYNCS / UTMALDG in the
SASS), refused with a ForthError at the word for an older arch."""
from __future__ import annotations

import random
import re

import numpy as np
import pytest
import sass
from tileforth.core import Forth, ForthError
from tileforth.export.kernels import word_ptx


class Model:
    """An mbarrier as the PTX ISA describes it: a phase completes when its pending arrivals reach zero and its
    transaction count is zero; then the phase advances and the pending count is the expected count again.
    try_wait.parity(p) is true when the phase of parity p has completed, i.e. the current phase's parity is
    not p."""

    def __init__(self, count: int) -> None:
        self.count, self.pending, self.tx, self.phase = count, count, 0, 0

    def _settle(self) -> None:
        if self.pending == 0 and self.tx == 0:
            self.phase, self.pending = self.phase + 1, self.count

    def arrive(self) -> None:
        if self.pending == 0:
            raise OverflowError
        self.pending -= 1
        self._settle()

    def expect(self, n: int) -> None:
        self.tx += n

    def complete(self, n: int) -> None:  # what a TMA box of n bytes does
        self.tx -= n
        self._settle()

    def try_wait(self, parity: int) -> int:
        return -1 if self.phase % 2 != parity else 0


PREFIX = ("1 1 1 THREADS  8 8 F32 MATRIX m  m 4 8 0 TMAP tm  4 8 F32 1 SMEM-TILE s  8 SHARED: bar ")


@pytest.mark.parametrize("seed", range(12))
def test_phases_follow_the_model(seed):
    """One thread runs a random sequence of arrivals, announcements, TMA boxes (128 bytes each) and
    try-waits of either parity; each try-wait's flag is the model's."""
    rnd = random.Random(seed)
    count = rnd.randint(1, 3)
    m = Model(count)
    src, want = [f"bar {count} MBAR-INIT"], []
    for _ in range(30):
        k = rnd.choice(["arrive", "arrive-tx", "tx", "box", "wait0", "wait1"])
        if k == "arrive" and m.pending > 0:
            m.arrive()
            src.append("bar MBAR-ARRIVE")
        elif k == "arrive-tx" and m.pending > 0:
            m.expect(128)
            m.arrive()
            src.append("bar 128 MBAR-ARRIVE-TX")
        elif k == "tx":
            m.expect(128)
            src.append("bar 128 MBAR-TX")
        elif k == "box" and m.tx >= 128:
            m.complete(128)
            src.append("0 s tm 0 0 bar TMA-LOAD")
        elif k in ("wait0", "wait1"):
            p = int(k[-1])
            want.append(m.try_wait(p))
            src.append(f"bar {p} MBAR-TRY-WAIT .")
    f = Forth(backend="cpu")
    f.eval(PREFIX)
    out = f.eval(" ".join(src))
    assert [int(x) for x in out.split()] == want


def test_a_wait_that_can_never_complete_is_reported():
    f = Forth(backend="cpu")
    f.eval("64 1 1 THREADS  8 SHARED: bar")
    with pytest.raises(ForthError) as e:  # (an mbarrier lives as long as the launch, as shared memory does)
        f.eval("TID-X 0= IF bar 2 MBAR-INIT MBAR-FENCE THEN BARRIER  TID-X 0= IF bar MBAR-ARRIVE THEN  "
               "bar 0 MBAR-WAIT")  # one arrival of the two
    msg = str(e.value)
    assert "MBAR-WAIT" in msg and "can never complete" in msg and "1 of its 2 arrivals" in msg, msg
    assert "shared byte 0" in msg and "phase 0" in msg
    f.eval("TID-X 0= IF bar 2 MBAR-INIT THEN BARRIER  TID-X 2 < IF bar MBAR-ARRIVE THEN  bar 0 MBAR-WAIT")
    with pytest.raises(ForthError) as e:  # waiting on the parity of the phase after the one that completes
        f.eval("TID-X 0= IF bar 1 MBAR-INIT THEN BARRIER  TID-X 0= IF bar MBAR-ARRIVE THEN  bar 1 MBAR-WAIT")
    assert "phase 1 (parity 1)" in str(e.value)


def test_bytes_that_never_come_are_named():
    f = Forth(backend="cpu")
    f.eval("32 1 1 THREADS  8 SHARED: bar")
    with pytest.raises(ForthError) as e:
        f.eval("TID-X 0= IF bar 1 MBAR-INIT MBAR-FENCE THEN BARRIER  ELECT IF bar 4096 MBAR-ARRIVE-TX THEN  "
               "bar 0 MBAR-WAIT")
    assert "no arrival and 4096 transaction bytes" in str(e.value), str(e.value)


def test_more_arrivals_than_the_count_is_reported():
    f = Forth(backend="cpu")
    f.eval("1 1 1 THREADS  8 SHARED: bar")
    with pytest.raises(ForthError) as e:  # the one arrival came; the phase waits for bytes; a second arrival
        f.eval("bar 1 MBAR-INIT  bar 64 MBAR-ARRIVE-TX  bar MBAR-ARRIVE")
    msg = str(e.value)
    assert "more arrivals than its count" in msg and "MBAR-INIT it with the number" in msg, msg


def test_an_uninitialised_barrier_is_reported():
    f = Forth(backend="cpu")
    f.eval("1 1 1 THREADS  8 SHARED: bar")
    with pytest.raises(ForthError) as e:
        f.eval("bar MBAR-ARRIVE")
    assert "before any MBAR-INIT" in str(e.value)
    with pytest.raises(ForthError) as e:
        f.eval("bar 4 + 1 MBAR-INIT")
    assert "multiple of 8" in str(e.value)  # (checked mode's alignment check, before the model's)


def test_elect_is_the_lowest_lane_of_each_warp():
    f = Forth(backend="cpu")
    f.eval("96 1 1 THREADS  96 I64 ARRAY out  ELECT TID-X CELLS out + !")
    want = np.zeros(96, np.int64)
    want[[0, 32, 64]] = -1
    assert (f.array("out") == want).all()


def test_a_producer_warp_feeds_a_consumer_warp_through_a_two_stage_ring():
    """Warp 0 (one elected lane) loads 4 boxes of 4x8 f32 through 2 stages; warp 1 waits on each stage's
    `full` barrier, sums its box into an output row and arrives on the stage's `empty` barrier, which the
    producer waits on before refilling the stage: the phases alternate 0, 1 per stage."""
    f = Forth(backend="cpu")
    f.eval("16 8 F32 MATRIX m  RAMP m  m 4 8 0 TMAP tm  4 8 F32 2 SMEM-TILE s  16 SHARED: full  16 SHARED: empty  "
           "4 8 F32 MATRIX out  64 1 1 THREADS")
    f.eval(": bar ( stage base -- addr ) SWAP 8 * + ;")
    f.eval(": st ( i -- stage ) 2 MOD ;")
    f.eval(": produce  4 0 DO  I 2 >= IF I st empty bar I 2 / 1 - 1 AND MBAR-WAIT THEN  "
           "ELECT IF I st full bar 128 MBAR-ARRIVE-TX  I st s tm 0 I 4 * I st full bar TMA-LOAD THEN  LOOP ;")
    # lane k < 8 of warp 1 adds column k of the box's 4 rows into out[i, k]
    f.eval(": col-sum ( stage -- ) ( F: -- r ) 0e 4 0 DO DUP s I 32 * + TID-X 32 - 4 * + SF@ F+ LOOP DROP ;")
    f.eval(": consume  4 0 DO  I st full bar I 2 / 1 AND MBAR-WAIT  "
           "TID-X 40 < IF I st col-sum  I 32 * TID-X 32 - 4 * + out + SF! THEN  "
           "SYNCWARP ELECT IF I st empty bar MBAR-ARRIVE THEN  LOOP ;")
    f.eval("TID-X 0= IF 0 full bar 1 MBAR-INIT 1 full bar 1 MBAR-INIT 0 empty bar 1 MBAR-INIT "
           "1 empty bar 1 MBAR-INIT MBAR-FENCE THEN BARRIER  TID-X 32 < IF produce ELSE consume THEN")
    m = f.array("m")
    want = m.reshape(4, 4, 8).sum(axis=1)
    assert (f.array("out") == want).all()


# ---- the GPU code --------------------------------------------------------------------------------------
KERNEL = (": k ( saddr tmap bar -- ) { s t b } TID-X 0= IF b 1 MBAR-INIT MBAR-FENCE THEN BARRIER "
          "ELECT IF b 4096 MBAR-ARRIVE-TX s t 0 0 b TMA-LOAD THEN b 0 MBAR-WAIT b 1 MBAR-TRY-WAIT DROP "
          "b MBAR-ARRIVE b 16 MBAR-TX FENCE-ASYNC s t 0 0 TMA-STORE TMA-WAIT ;")


@pytest.mark.parametrize("arch", ["sm_90", "sm_90a"])
def test_the_words_are_ptx_that_ptxas_accepts_with_syncs_and_utma_in_the_sass(arch):
    sass.require("ptxas")
    f = Forth()
    f.eval("128 1 1 THREADS")
    f.eval(KERNEL)
    ptx = word_ptx(f, "k", arch)
    assert re.search(r"\.version (\d+)\.(\d+)", ptx).group(1) >= "8"  # PTX 8.0 or newer (fast_gemm.md §3)
    for insn in ("mbarrier.init.shared", "mbarrier.arrive.expect_tx", "mbarrier.try_wait.parity", "elect.sync",
                 "fence.proxy.async", "cp.async.bulk.tensor.2d.shared::cluster.global",
                 "mbarrier::complete_tx::bytes", "fence.mbarrier_init"):
        assert insn in ptx, insn
    bases = sass.opcodes(next(iter(sass.sass(sass.cubin(ptx, arch)).values())))
    for op in ("SYNCS", "UTMALDG", "UTMASTG", "ELECT"):
        assert op in bases, (op, sorted(bases))


def test_an_older_arch_refuses_each_word_at_the_word():
    f = Forth()
    f.eval("128 1 1 THREADS")
    f.eval(KERNEL)
    with pytest.raises(ForthError) as e:
        word_ptx(f, "k", "sm_80")
    err = e.value
    assert err.word == "MBAR-INIT" and "sm_90" in err.message and "sm_80" in err.message and err.pos is not None


def test_a_wait_whose_warp_mates_wait_at_elect_is_reported_too():
    """The producer waits on its empty barrier with parity 1 at every refill: the first time, parity 1 is
    "the phase before phase 0" and passes at once for the lanes that come early, which then wait at ELECT
    for lane 0, which comes later and waits forever: a hang on the GPU, an error here."""
    f = Forth(backend="cpu")
    f.eval("16 8 F32 MATRIX m  m 4 8 0 TMAP tm  4 8 F32 2 SMEM-TILE s  16 SHARED: full  16 SHARED: empty  "
           "64 1 1 THREADS  : bar ( stage base -- addr ) SWAP 8 * + ;  : st ( i -- stage ) 2 MOD ;")
    f.eval(": produce  4 0 DO  I 2 >= IF I st empty bar 1 MBAR-WAIT THEN  ELECT IF I st full bar 128 "
           "MBAR-ARRIVE-TX  I st s tm 0 I 4 * I st full bar TMA-LOAD THEN  LOOP ;")
    f.eval(": consume  4 0 DO  I st full bar I 2 / 1 AND MBAR-WAIT  SYNCWARP ELECT IF I st empty bar MBAR-ARRIVE "
           "THEN  LOOP ;")
    with pytest.raises(ForthError) as e:
        f.eval("TID-X 0= IF 0 full bar 1 MBAR-INIT 1 full bar 1 MBAR-INIT 0 empty bar 1 MBAR-INIT 1 empty bar 1 "
               "MBAR-INIT MBAR-FENCE THEN BARRIER  TID-X 32 < IF produce ELSE consume THEN")
    assert "MBAR-WAIT in produce" in str(e.value) and "can never complete" in str(e.value)


def test_warpgroup_is_the_linear_thread_index_over_128():
    f = Forth(backend="cpu")
    f.eval("64 2 3 THREADS  384 I64 ARRAY wg  WARPGROUP  TID-Z 128 * TID-Y 64 * + TID-X + CELLS wg + !")
    assert (f.array("wg") == np.arange(384) // 128).all()


def test_setmaxnreg_is_ptx_for_sm_90a_and_refused_elsewhere():
    sass.require("ptxas")
    f = Forth()
    f.eval("256 1 1 THREADS  : spec  WARPGROUP 0= IF 40 REGS- ELSE 232 REGS+ THEN ;")
    ptx = word_ptx(f, "spec", "sm_90a")
    assert re.search(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+40;", ptx)
    assert re.search(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+232;", ptx)
    sass.cubin(ptx, "sm_90a")  # ptxas accepts it
    with pytest.raises(ForthError) as e:
        word_ptx(f, "spec", "sm_90")
    assert e.value.word == "REGS-" and "sm_90a" in e.value.message
    with pytest.raises(ForthError) as e:
        f.eval(": bad 36 REGS+ ;  bad")
    assert "multiple of 8" in str(e.value)


# ---- REGS- / REGS+ on the emulator: executed by the whole warpgroup together (setmaxnreg.sync.aligned) ----
def test_regs_in_branches_on_warpgroup_run():
    """The producer/consumer split of a specialised kernel: each warpgroup's 128 threads together."""
    f = Forth(backend="cpu")
    assert f.eval("256 1 1 THREADS  WARPGROUP 0= IF 40 REGS- ELSE 232 REGS+ THEN  TID-X 128 MOD 0= IF "
                  "WARPGROUP . THEN").split("\n")[:2] == ["[thread 0] 0 ", "[thread 128] 1 "]


@pytest.mark.parametrize("line, message", [
    ("128 1 1 THREADS  TID-X 0= IF 40 REGS- THEN", "divergent warp in block 0 (warp 0): lanes 0 reached REGS- "
                                                   "but lanes 1-31 finished"),
    ("128 1 1 THREADS  WARP-ID 0= IF 40 REGS- THEN", "divergent warpgroup in block 0: threads 0-31 reached REGS- "
                                                     "but threads 32-127 finished"),
    ("256 1 1 THREADS  WARP-ID 5 < IF 232 REGS+ THEN", "threads 128-159 reached REGS+ but threads 160-255 finished"),
    ("96 1 1 THREADS  40 REGS-", "a warpgroup is 128 threads (four warps), but the block has 96"),
])
def test_regs_not_executed_by_the_whole_warpgroup_is_an_error(line, message):
    f = Forth(backend="cpu")
    f.eval("7")
    with pytest.raises(ForthError) as exc:
        f.eval(line)
    assert message in exc.value.message and exc.value.pos is not None
    assert f.data_stack() == [7]  # the session keeps its state
