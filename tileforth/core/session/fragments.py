"""Which lane holds which element of a tile: the documented mma.sync layout.

wmma (what tileforth's GPU lowering uses) leaves the distribution of a tile
over the 32 lanes of a warp unspecified, and it differs between GPU
generations.  PTX documents it for mma.sync.m16n8k16 (PTX ISA 9.7.14.5.8,
reference/tensor_cores.md 5.3).  With g = lane >> 2 and t = lane % 4:

    A  16x16  a0..a7   row = g + 8*((i>>1)&1)   col = 2t + (i&1) + 8*(i>>2)
    B  16x8   b0..b3   row = 2t + (i&1) + 8*(i>>1)   col = g
    C  16x8   c0..c3   row = g + 8*(i>>1)        col = 2t + (i&1)

A tile of another size is shown as copies of these blocks: a 16x16
accumulator is two m16n8 accumulators (columns 0-7 and 8-15), a 32x16 A is
two A blocks, an 8-row tile is the first 8 rows of a block; a TILE-GRID entry is its grid of blocks.  `.FRAG` shows
this layout and says that it is the documented mma.sync one.

The table checks itself when first used (the first .FRAG): each formula must
cover its block exactly once (a bijection from (lane, register) to elements).
"""
from __future__ import annotations

import functools

from ..compile.tiles import WARP, mma_coords
from ..lazy import np

# kind -> (block rows, block cols, elements per lane, (g, t, i) -> (row, col)): tiles.mma_coords, the one
# table the backends use too (the emulator's ldmatrix, stmatrix and TLANE@ place elements by it)
BLOCKS = {kind: (rows, cols, nel, lambda g, t, i, kind=kind: mma_coords(kind, 4 * g + t, i))
          for kind, rows, cols, nel in (("a", 16, 16, 8), ("b", 16, 8, 4), ("acc", 16, 8, 4))}
REG = {"a": "a", "b": "b", "acc": "c"}  # PTX's register names: a0..a7, b0..b3, c0..c3


def block_maps(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(lane, register) of every element of one block of `kind`."""
    rows, cols, nreg, where = BLOCKS[kind]
    lane = np.full((rows, cols), -1, np.int64)
    reg = np.full((rows, cols), -1, np.int64)
    for ln in range(WARP):
        for i in range(nreg):
            r, c = where(ln >> 2, ln % 4, i)
            assert lane[r, c] == -1, (kind, ln, i)  # no element is held twice
            lane[r, c], reg[r, c] = ln, i
    assert (lane >= 0).all(), kind  # every element is held
    return lane, reg


@functools.cache
def _maps(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """block_maps(kind), made once, on first use (not at start-up)."""
    return block_maps(kind)


def tile_maps(kind: str, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """(lane, register) of every element of a rows x cols tile of `kind`,
    laid out as copies of the mma.sync m16n8k16 block (cut to 8 rows when
    the tile has only 8)."""
    lane, reg = _maps(kind)
    br, bc = lane.shape
    reps = (-(-rows // br), -(-cols // bc))
    return np.tile(lane, reps)[:rows, :cols], np.tile(reg, reps)[:rows, :cols]


def describe(kind: str, rows: int, cols: int) -> list[str]:
    """Paragraphs that say how a rows x cols tile maps onto mma.sync blocks."""
    br, bc, nreg, _ = BLOCKS[kind]
    one = {"a": "A block", "b": "B block", "acc": "accumulator"}[kind]
    many = {"a": "A blocks", "b": "B blocks", "acc": "accumulators"}[kind]
    size = f"({br}x{bc})"
    nr, nc = -(-rows // br), -(-cols // bc)
    col_ranges = _ranges([(c * bc, c * bc + bc - 1) for c in range(nc)])
    row_ranges = _ranges([(r * br, r * br + br - 1) for r in range(nr)])
    if rows < br:
        how = f"the first {rows} rows of an m16n8k16 {one} {size}"
        if nc > 1:
            how = f"{_count(nc)} pieces side by side (columns {col_ranges}), each {how}"
        how += f"; an {rows}-row tile has no m16n8k16 form"
    elif nr * nc == 1:
        how = f"one m16n8k16 {one} {size}"
    elif nr == 1:
        how = f"{_count(nc)} m16n8k16 {many} {size} side by side: columns {col_ranges}"
    elif nc == 1:
        how = f"{_count(nr)} m16n8k16 {many} {size} one above the other: rows {row_ranges}"
    else:
        how = f"{nr}x{nc} m16n8k16 {many} {size}"
    r = REG[kind]
    formula = {
        "a": "row g + 8*((i>>1)&1), column 2t + (i&1) + 8*(i>>2)",
        "b": "row 2t + (i&1) + 8*(i>>1), column g",
        "acc": "row g + 8*(i>>1), column 2t + (i&1)",
    }[kind]
    return [f"It is {how}.",
            f"In each block lane L, with g = L>>2 and t = L%4, holds {r}0..{r}{nreg - 1}:",
            f"  {r}i at {formula}"]

def _count(n: int) -> str:
    return {2: "two", 3: "three", 4: "four"}.get(n, str(n))


def _ranges(spans: list[tuple[int, int]]) -> str:
    texts = [f"{a}-{b}" for a, b in spans]
    return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]
