"""What phase A loads that tileforth compiles: the GEMM variants of shared/reference/fast_gemm.md §1
and the REPL lines whose JIT cost it measures. build_artifacts.py turns them into PTX and cubins
here; tests/test_device_check.py checks each GEMM exactly against numpy on the cpu emulator.

Each GEMM is a word `( a b c n -- )` exported with `word_ptx(..., unchecked=True)`: the entry
takes four .u64 parameters (a, b, c: addresses; n: the size), so one kernel serves every n
(a multiple of 32). C = A . B, A and B n x n row-major of the input type, C n x n f32.
"""
from __future__ import annotations

from dataclasses import dataclass

# the addresses of this warp's 16x16 tile of C: two warps per block side by side, one block row of 16
_ONE_TILE = r"""
: row0  ( -- r )  BID-Y 16 * ;
: col0  ( -- c )  BID-X 2 * WARP-ID + 16 * ;
"""

G11 = _ONE_TILE + r"""
: g11  { a b c n -- }
   TZERO
   n 0 DO  row0 n * I + 2* a + n TLOAD-A  I n * col0 + 2* b + n TLOAD-B  TMMA  16 +LOOP
   row0 n * col0 + 4 * c + n TSTORE ;
"""

# B given transposed (bt = B^T, row-major): B read column by column, no transposes in the loop
G11TN = _ONE_TILE + r"""
: g11tn  { a bt c n -- }
   TZERO
   n 0 DO  row0 n * I + 2* a + n TLOAD-A  col0 n * I + 2* bt + n TLOAD-B-COL  TMMA  16 +LOOP
   row0 n * col0 + 4 * c + n TSTORE ;
"""

# 2x2 register blocking (demos/gemm.fth's gemm2): each warp keeps c00 c01 c10 c11 on the tile stack
G22 = r"""
: a-blk  { k r a n -- addr }  r 16 * BID-Y 32 * + n * k + 2* a + ;
: b-blk  { k c b n -- addr }  c 16 * BID-X 32 * + k n * + 2* b + ;
: c-blk  { r c cc n -- addr }  c 16 * BID-X 32 * +  r 16 * BID-Y 32 * + n * + 4 * cc + ;
: acc+  { a b n k r c -- }   \ bring the bottom accumulator up and add A(r) . B(c)
   3 TROLL  k r a n a-blk n TLOAD-A  k c b n b-blk n TLOAD-B  TMMA ;
: g22  { a b cc n -- }
   TZERO TZERO TZERO TZERO
   n 0 DO  a b n I 0 0 acc+  a b n I 0 1 acc+  a b n I 1 0 acc+  a b n I 1 1 acc+  16 +LOOP
   1 1 cc n c-blk n TSTORE  1 0 cc n c-blk n TSTORE  0 1 cc n c-blk n TSTORE  0 0 cc n c-blk n TSTORE ;
"""


@dataclass(frozen=True)
class Gemm:
    name: str
    source: str
    transposed_b: bool  # the kernel reads B^T (row-major) instead of B
    tile: tuple[int, int]  # C elements (rows, columns) one block computes
    threads: int  # per block

    def grid(self, n: int) -> tuple[int, int, int]:
        return n // self.tile[1], n // self.tile[0], 1

    def block(self) -> tuple[int, int, int]:
        return self.threads, 1, 1


GEMMS = {g.name: g for g in (Gemm("g11", G11, False, (16, 32), 64), Gemm("g11tn", G11TN, True, (16, 32), 64),
                             Gemm("g22", G22, False, (32, 32), 32))}
DTYPES = {"f16": "F16", "bf16": "BF16"}  # the artifact's suffix -> TILE-IN


def gemm_source(name: str, dtype: str) -> str:
    """The Forth that defines GEMMS[name] for inputs of `dtype` ("f16" or "bf16")."""
    return f"{DTYPES[dtype]} TILE-IN\n" + GEMMS[name].source


# The REPL lines of the JIT-cost step: the PTX the cuda backend makes for each (checked, as at the prompt).
# `setup` runs first (its own kernels are not kept).
LINES = {
    "line10": ("", "7 8 * 9 + 3 - DUP * 2/ NEGATE ABS 1+ ."),  # a 10-word line
    "loop": ("", "0 1000 0 DO I + LOOP ."),
    "tile": ("16 16 F16 MATRIX A  16 16 F16 MATRIX B  16 16 F32 MATRIX C",
             "TZERO A 16 TLOAD-A B 16 TLOAD-B TMMA C 16 TSTORE"),
}

# the smallest module the driver loads: its cost is the JIT's (and the driver's) floor
EMPTY_PTX = """.version 7.8
.target {arch}
.address_size 64

.visible .entry empty()
{{
\tret;
}}
"""
