"""TMA: tensor-map bulk copies of a 2-D box between an array and a shared tile (sm_90+): the device words.

    word        stack                          PTX (LLVM 22 intrinsic, llvm.nvvm.…)
    TMA-LOAD    ( saddr tmap x y mbar -- )     cp.async.bulk.tensor.2d.shared::cluster.global.tile
                                               .mbarrier::complete_tx::bytes      (cp.async.bulk.tensor.g2s.tile.2d)
    TMA-STORE   ( saddr tmap x y -- )          cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
                                               (cp.async.bulk.tensor.s2g.tile.2d) + cp.async.bulk.commit_group
    TMA-WAIT    ( -- )                         cp.async.bulk.wait_group 0         (cp.async.bulk.wait.group)

`tmap` is a tensor map (the host word TMAP, tileforth/core/session/words/hopper.py): an array, its box of
box-rows x box-cols elements and the box's layout in shared memory (plain rows, or the 128-byte swizzle of
SMEM-TILE-SWZ). x is the box's first column, y its first row (elements; either may be negative or past the
array: those elements read as zeros and are not written). One thread issues each copy (`ELECT IF ... THEN`);
a TMA-LOAD delivers the box's bytes to the mbarrier's current phase (announce them first with
MBAR-ARRIVE-TX), and the box may be read once that phase completed (MBAR-WAIT).

On the emulator the tensor map is the record below (TMAP_FIELDS, 16 little-endian u64, 128 bytes as on
the GPU, where the driver's cuTensorMapEncodeTiled writes its own opaque encoding instead).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ..records import record
from .mbarrier import HopperOp, check_shared, gate, perform

if TYPE_CHECKING:
    from ..front.tree import Prim
    from .codegen import Gen
    from .primitive import Registry

TMAP_BYTES, TMAP_ALIGN = 128, 64  # a tensor map: 128 bytes, 64 aligned (the driver's CUtensorMap)
TMAP_MAGIC = 0x544D4150_54460001  # the emulator's tensor maps start with this
# the emulator's record: u64 fields in this order
TMAP_FIELDS = ("magic", "gaddr", "cols", "rows", "row_stride", "box_cols", "box_rows", "esize", "swizzle")
SMEM_ALIGN = 128  # a TMA box's shared destination: 128 aligned; 1024 with the 128-byte swizzle
SWIZZLED_ALIGN = 1024
BOX_MAX = 256  # elements per box dimension (cuTensorMapEncodeTiled)


@record(frozen=True)
class TmaLoad(HopperOp):
    """operands: the shared destination, the tensor map's address, x (column), y (row), the mbarrier."""
    operands: ClassVar[int] = 5


@record(frozen=True)
class TmaStore(HopperOp):
    """operands: the shared source, the tensor map's address, x (column), y (row)."""
    operands: ClassVar[int] = 4


@record(frozen=True)
class TmaWait(HopperOp):
    """Wait until this thread's TMA-STOREs have written global memory."""


def _load(g: "Gen", n: "Prim") -> None:
    gate(g, n, "TMA-LOAD")
    saddr, tmap, x, y, bar = g.pop(5)
    if g.checked:
        check_shared(g, saddr, 16, SMEM_ALIGN)
        check_shared(g, bar, 8, 8)
    perform(g, n, TmaLoad("TMA-LOAD", g.checked), [saddr, tmap, x, y, bar])


def _store(g: "Gen", n: "Prim") -> None:
    gate(g, n, "TMA-STORE")
    saddr, tmap, x, y = g.pop(4)
    if g.checked:
        check_shared(g, saddr, 16, SMEM_ALIGN)
    perform(g, n, TmaStore("TMA-STORE", g.checked), [saddr, tmap, x, y])


def _wait(g: "Gen", n: "Prim") -> None:
    gate(g, n, "TMA-WAIT")
    perform(g, n, TmaWait("TMA-WAIT", g.checked), [])


SETUP = ("32 1 1 THREADS  8 8 F32 MATRIX m  RAMP m  8 8 F32 MATRIX out  m 4 8 0 TMAP tm  out 4 8 0 TMAP to  "
         "4 8 F32 1 SMEM-TILE s  8 SHARED: bar  TID-X 0= IF bar 1 MBAR-INIT MBAR-FENCE THEN BARRIER  ")


def install(registry: "Registry") -> None:
    """Add the TMA words to the primitive registry (primitives.py calls this)."""
    registry.group("Hopper: TMA (sm_90)")
    registry.prim("TMA-LOAD", "( saddr tmap x y mbar -- )",
                  "Copy the box of tmap whose first element is column x, row y of its array to saddr (shared, "
                  "128 aligned; 1024 for a swizzled box), laid out as the tensor map says; elements outside "
                  "the array are zeros. The box's bytes complete the mbarrier's phase: one thread issues it "
                  "after MBAR-ARRIVE-TX of those bytes, and the box is read after MBAR-WAIT. Needs sm_90.",
                  SETUP + "ELECT IF bar 128 MBAR-ARRIVE-TX  0 s tm 0 2 bar TMA-LOAD THEN  bar 0 MBAR-WAIT "
                  "TID-X 0= IF 0 s 36 + SF@ F. THEN \\ [thread 0] 25.", _load, suspend_point=True)
    registry.prim("TMA-STORE", "( saddr tmap x y -- )",
                  "Copy the box at saddr (shared, laid out as the tensor map says) to tmap's array at column x, "
                  "row y; elements outside the array are not written. TMA-WAIT waits for it; FENCE-ASYNC "
                  "first orders the thread's writes of the box before it.",
                  SETUP + "ELECT IF bar 128 MBAR-ARRIVE-TX  0 s tm 0 0 bar TMA-LOAD THEN  bar 0 MBAR-WAIT "
                  "ELECT IF FENCE-ASYNC 0 s to 0 4 TMA-STORE TMA-WAIT THEN  BARRIER  TID-X 0= IF out 36 4 * + "
                  "SF@ F. THEN \\ [thread 0] 4.", _store, suspend_point=True)
    registry.prim("TMA-WAIT", "( -- )",
                  "Wait until this thread's TMA-STOREs have written global memory (cp.async.bulk.wait_group 0).",
                  "1 1 1 THREADS TMA-WAIT 1 . \\ 1", _wait, suspend_point=True)
