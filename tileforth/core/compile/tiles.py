"""The tile stack: per-warp matrix fragments, checked statically.

A tile entry is described by its kind and configuration; the compiler knows
the whole tile stack at every point of a program (like the shapes of
registers), so misuse is a compile-time error:

    kind   what it holds                      shape     element type
    a      the left operand of TMMA (m x k)   m x k     f16 | bf16  (row or col)
    b      the right operand (k x n)          k x n     f16 | bf16  (row or col)
    acc    an accumulator (m x n)             m x n     f32 | f16

    TMMA  ( T: acc a b -- acc' )   acc' = acc + a . b   (all of one shape)

Tensor-core shapes (m, n, k) and the fragment facts every backend relies on
are in SHAPES; the table checks itself when the module is imported.

MMA_SYNC (16 8 16) is the shape of `mma.sync.aligned.m16n8k16.row.col`, whose
fragments PTX documents (PTX ISA, "Matrix Fragments for mma.m16n8k16"): with
g = lane >> 2 and t = lane % 4, element i of a lane's fragment is

    a (16x16)  a0..a7   row g + 8*((i>>1)&1)       col 2t + (i&1) + 8*(i>>2)
    b (16x8)   b0..b3   row 2t + (i&1) + 8*(i>>1)  col g
    acc (16x8) c0..c3   row g + 8*(i>>1)           col 2t + (i&1)

(`mma_coords`); elements 2r and 2r+1 share 32-bit register r (f16x2 / bf16x2;
an f32 accumulator has one element per register). Every backend that moves
fragment registers (ldmatrix, stmatrix, per-lane access) uses this table.
"""
from __future__ import annotations

from ..errors import ForthError, SourcePos
from . import layout as L
from ..records import record, replace

SHAPES: dict[tuple[int, int, int], dict[str, int]] = {
    # per-lane registers of each fragment (LLVM 22 / PTX, f16 A/B are always 8 x f16x2)
    (16, 16, 16): {"a_f16": 8, "b_f16": 8, "a_bf16": 4, "b_bf16": 4, "acc_f32": 8, "acc_f16": 4},
    (32, 8, 16): {"a_f16": 8, "b_f16": 8, "a_bf16": 8, "b_bf16": 2, "acc_f32": 8, "acc_f16": 4},
    (8, 32, 16): {"a_f16": 8, "b_f16": 8, "a_bf16": 2, "b_bf16": 8, "acc_f32": 8, "acc_f16": 4},
    # mma.sync m16n8k16: a = 4 x f16x2/bf16x2, b = 2, acc = 4 f32 (or 2 f16x2) per lane
    (16, 8, 16): {"a_f16": 4, "b_f16": 2, "a_bf16": 4, "b_bf16": 2, "acc_f32": 4, "acc_f16": 2},
}
MMA_SYNC = (16, 8, 16)  # the shape with a documented fragment layout (mma.sync, ldmatrix, stmatrix)
WMMA_SHAPES = tuple(s for s in SHAPES if s != MMA_SYNC)
# elements of one lane's fragment of each kind, for MMA_SYNC
MMA_ELEMS = {"a": 8, "b": 4, "acc": 4}
IN_TYPES = ("f16", "bf16")
ACC_TYPES = ("f32", "f16")
MAX_TILES = 8  # tile-stack entries per warp (they are registers on the GPU)
# big register tiles (TILE-GRID): one entry is an m x n grid of MMA_SYNC fragments, each side at most MAX_GRID;
# the tile stack's fragments together may hold at most MAX_TILE_REGS 32-bit registers per lane (a 4x8 f32
# accumulator grid is 128, its a and b grids 16 each, twice for fragments loaded ahead: 192; ptxas has 255)
MAX_GRID = 8
MAX_TILE_REGS = 192
WARP = L.WARP_SIZE  # a fragment is spread over the lanes of one warp
WG_WARPS = 4  # a warpgroup (wgmma.py): four warps, 128 threads


def mma_coords(kind: str, lane: int, i: int) -> tuple[int, int]:
    """(row, col) of element i of lane's MMA_SYNC fragment of kind (the PTX ISA's table above)."""
    g, t = lane >> 2, lane & 3
    if kind == "a":
        return g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)
    if kind == "b":
        return 2 * t + (i & 1) + 8 * (i >> 1), g
    return g + 8 * (i >> 1), 2 * t + (i & 1)


def _check_table() -> None:
    for (m, n, k), regs in SHAPES.items():
        if (m, n, k) == MMA_SYNC:
            assert regs["a_f16"] * 2 * WARP == m * k and regs["b_f16"] * 2 * WARP == k * n
            assert all(MMA_ELEMS[kind] * WARP == r * c for kind, (r, c) in
                       (("a", (m, k)), ("b", (k, n)), ("acc", (m, n))))
        else:
            assert m * n == 256 and k == 16, (m, n, k)
        # an accumulator register holds f32 (8 per lane) or f16x2 (4 per lane): 256 elements / 32 lanes
        assert regs["acc_f32"] * WARP == m * n and regs["acc_f16"] * 2 * WARP == m * n
        # bf16 operands are packed two per i32 register
        assert regs["a_bf16"] * 2 * WARP == m * k and regs["b_bf16"] * 2 * WARP == k * n


_check_table()


@record(frozen=True)
class TileConfig:
    """Compile-time tile settings; a word keeps the settings it was compiled with."""

    shape: tuple[int, int, int] = (16, 16, 16)
    in_type: str = "f16"
    acc_type: str = "f32"
    grid: tuple[int, int] = (1, 1)  # TILE-GRID: fragments per entry (rows x cols of MMA_SYNC blocks)
    wg_n: int = 64  # WG-SHAPE: N of the warpgroup shape m64nNk16 (wgmma.py)

    def describe(self) -> str:
        m, n, k = self.shape
        gr, gc = self.grid
        return f"m{m}n{n}k{k} {self.in_type}->{self.acc_type}" + (f" grid {gr}x{gc}" if self.grid != (1, 1) else "")


def kind_grid(kind: str, grid: tuple[int, int]) -> tuple[int, int]:
    """The fragments a tile of kind holds under TILE-GRID m n: a is an m x 1 column of a blocks (rows of the
    accumulator grid), b a 1 x n row of b blocks (its columns), an accumulator the m x n grid."""
    gm, gn = grid
    return {"a": (gm, 1), "b": (1, gn), "acc": (gm, gn)}[kind]


@record(frozen=True)
class Tile:
    """One tile-stack entry as the compiler sees it."""

    kind: str  # "a" | "b" | "acc"
    shape: tuple[int, int, int]
    dtype: str
    layout: str = "row"  # for a/b: the memory layout it was loaded with
    grid: tuple[int, int] = (1, 1)  # fragments: rows x cols of blocks (kind_grid; MMA_SYNC only)
    # a warpgroup accumulator (kind "wacc", wgmma.py): 0, or k when the newest WGMMA writing it is the k-th newest
    # wgmma group this thread committed (it is pending until a `n WGMMA-WAIT` with n < k)
    pending: int = 0

    @property
    def mma_sync(self) -> bool:
        """A fragment of mma.sync m16n8k16, whose layout is documented."""
        return self.shape == MMA_SYNC

    @property
    def frag_shape(self) -> tuple[int, int]:
        """Rows and columns of one fragment."""
        m, n, k = self.shape
        if self.kind == "wacc":  # one warp's part of the warpgroup's m64nN accumulator: 16 of its rows
            return m // WG_WARPS, n
        return {"a": (m, k), "b": (k, n), "acc": (m, n)}[self.kind]

    @property
    def frags(self) -> int:
        return self.grid[0] * self.grid[1]

    @property
    def rows_cols(self) -> tuple[int, int]:
        """The logical matrix the entry stands for: the grid of blocks."""
        (r, c), (gr, gc) = self.frag_shape, self.grid
        return r * gr, c * gc

    @property
    def regs(self) -> int:
        """32-bit registers per lane (every fragment of the grid)."""
        if self.kind == "wacc":  # N/2 f32 per thread of the warpgroup
            return self.shape[1] // 2
        return SHAPES[self.shape][f"{self.kind}_{self.dtype}"] * self.frags

    def short(self) -> str:
        m, n, k = self.shape
        lay = "" if self.kind == "acc" or self.layout == "row" else ",col"
        grid = f" grid {self.grid[0]}x{self.grid[1]}" if self.grid != (1, 1) else ""
        pend = " pending" if self.pending else ""
        return f"{self.kind}[{m}x{n}x{k} {self.dtype}{lay}{grid}{pend}]"


def notation(tiles) -> str:
    """( acc a b ) — the tile stack in Forth stack-comment style, top last."""
    return "( " + " ".join(t.kind for t in tiles) + " )" if tiles else "( )"


def detailed(tiles) -> str:
    return "( " + " ".join(t.short() for t in tiles) + " )" if tiles else "( )"


def tile_error(word: str, expects: str, tiles: list, pos: SourcePos | None, hint: str = "") -> ForthError:
    msg = f"{word} expects {expects} on the tile stack, but it is {notation(tiles)}"
    if hint:
        msg += f" {detailed(tiles)}"
    if hint:
        msg += f"; {hint}"
    return ForthError(msg + hint_for(word, tiles), pos, word)


def hint_for(word: str, tiles) -> str:
    if tiles and getattr(resolve(tiles[-1]), "kind", "") == "wacc" and word in ("TSTORE", "TSCALE", "T+", "TLANE@",
                                                                                "TLANE!", "TSTSM", "TMMA"):
        return ("; the top is a warpgroup accumulator (WGZERO, WGMMA): store it with WGSTORE, reach its elements "
                "with WGLANE@ and WGLANE!")
    if word == "TMMA":
        return "; push an accumulator (TZERO, TLOAD-C), then a (TLOAD-A) and b (TLOAD-B)"
    if word in ("TSTORE", "TSCALE", "T+"):
        return "; accumulators come from TZERO, TFILL, TLOAD-C or TMMA"
    return ""


def elem_bytes(dtype: str) -> int:
    return 4 if dtype == "f32" else 2


class Hole:
    """An unknown tile below a word's entry (while a definition is checked
    alone). The first word that uses it decides what it must be."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.resolved: Tile | None = None
        self.touched = False

    @property
    def kind(self) -> str:
        return self.resolved.kind if self.resolved else "?"

    def short(self) -> str:
        return self.resolved.short() if self.resolved else "?"


def resolve(t: "Tile | Hole") -> "Tile | Hole":
    return t.resolved if isinstance(t, Hole) and t.resolved is not None else t


def same_tile(a: "Tile | Hole", b: "Tile | Hole") -> bool:
    """One tile as a word's input: equal but for the pending state of a warpgroup accumulator (a word is
    inlined where it is called, and its uses of a pending accumulator are checked there)."""
    if isinstance(a, Tile) and isinstance(b, Tile):
        return replace(a, pending=0) == replace(b, pending=0)
    return a == b


def same_stack(a: list, b: list) -> bool:
    """Tile stacks agree entry by entry (holes by identity)."""
    return len(a) == len(b) and all(resolve(x) == resolve(y) or x is y for x, y in zip(a, b))
