"""The warp-collective operations a target must implement: tile operations (`Target.tile_op`) and,
at the end, the shuffles, votes and warp barrier of warpgen.py (`Target.warp_op`).

Tile words (tilegen.py) check the tile stack at compile time and then ask the
target for one of these. Positions index the warp's tile stack (0 = the
bottom), which is static at every point of a kernel, so a target can keep
each position in registers (nvptx: one fragment alloca per position) or in a
list per warp (cpu: numpy matrices). `operands` is how many i64 run-time
values come with the operation, in the order listed: they are uniform in the
warp (the emulator checks that every lane passes the same ones).
"""
from __future__ import annotations

from typing import ClassVar

from ..records import record
from .tiles import Tile


class TileOp:
    """What the operations below share (it has no fields, so it is no record itself)."""

    operands: ClassVar[int] = 0


@record(frozen=True)
class Zero(TileOp):
    """Push an accumulator of zeros at position dst."""
    dst: int
    tile: Tile


@record(frozen=True)
class Fill(TileOp):
    """Push an accumulator whose every element is r; operand: r's f32 bits."""
    dst: int
    tile: Tile
    operands: ClassVar[int] = 1


@record(frozen=True)
class Load(TileOp):
    """Load a tile from memory to position dst; operands: address, stride
    (elements between rows, or columns for col layout). `word` names the tile
    word, for errors."""
    dst: int
    tile: Tile
    word: str
    operands: ClassVar[int] = 2


@record(frozen=True)
class Store(TileOp):
    """Store the accumulator at src (row-major) and drop it; operands: address, stride."""
    src: int
    tile: Tile
    operands: ClassVar[int] = 2


@record(frozen=True)
class Mma(TileOp):
    """acc := acc + a·b for the tiles at positions acc, a, b (a and b are consumed)."""
    acc: int
    a: int
    b: int
    tile: Tile
    a_tile: Tile
    b_tile: Tile


@record(frozen=True)
class Copy(TileOp):
    """Push a copy of the tile at src, at position dst."""
    src: int
    dst: int
    tile: Tile


@record(frozen=True)
class Perm(TileOp):
    """Reorder the tiles from position base up: new[i] = old[order[i]]."""
    base: int
    order: tuple[int, ...]
    tiles: tuple[Tile, ...]


@record(frozen=True)
class Scale(TileOp):
    """Multiply the accumulator at dst by r; operand: r's f32 bits."""
    dst: int
    tile: Tile
    operands: ClassVar[int] = 1


@record(frozen=True)
class Add(TileOp):
    """dst := dst + src for two accumulators of one type (src is consumed)."""
    dst: int
    src: int
    tile: Tile


@record(frozen=True)
class LdMatrix(TileOp):
    """ldmatrix (TLDSM-A, TLDSM-B): push an MMA_SYNC a or b fragment at dst read from a shared tile;
    operands: the tile's (stage) address, the row and column of the block's first element in it, and
    the tile's geom (smem.SmemTile.geom: rows, 16-byte chunks per row, swizzled). Lane L reads the
    16 bytes of row `row + (L mod 16)` at chunk `col/8 + L/16` (a: .x4) or `col/8` (b: .x2.trans),
    the chunk swizzled as the tile is (`lane_chunk`). n_major (TLDSM-B-COL): b from a tile that holds
    B transposed (row n holds the k values), with .x2 and no .trans: lane L (L < 16) reads row
    `row + (L mod 8)` at chunk `col/8 + L/8`; row and col are then n and k, and a grid's fragments lie
    8 rows apart."""
    dst: int
    tile: Tile
    word: str
    n_major: bool = False
    operands: ClassVar[int] = 4

    @property
    def lanes_kind(self) -> str:
        """lane_chunk's kind for the lanes' addresses: "a", "b" (.x2.trans) or "bcol" (.x2)."""
        return "bcol" if self.n_major else self.tile.kind


@record(frozen=True)
class StMatrix(TileOp):
    """stmatrix (TSTSM): store the MMA_SYNC accumulator at src into a shared tile as 16-bit elements
    of `store_type` (f16 or bf16, rounded to nearest even) and drop it; operands as LdMatrix's. Lane
    L (L < 16) gives the address of row `row + L`, chunk `col/8`."""
    src: int
    tile: Tile
    store_type: str
    word: str
    operands: ClassVar[int] = 4


def lane_chunk(lane: int, kind: str) -> tuple[int, int]:
    """(row, chunk) offsets of the 16 bytes lane gives the address of, for an ldmatrix of a (.x4), of b
    (.x2.trans), of b from an n-major tile ("bcol": .x2, matrix j = lanes 8j..8j+7, k chunk j) and a
    stmatrix of acc (.x2), from the block's first row and chunk. The backends share this arithmetic (the
    nvptx target emits it as IR, the emulator evaluates it per lane)."""
    if kind == "a":
        return lane & 15, lane >> 4
    if kind == "bcol":
        return lane & 7, (lane >> 3) & 1
    return lane & 15, 0


# ---- warp operations (warpgen.py's words): `Target.warp_op` -----------------------------------------
SHUFFLE_MODES = ("idx", "up", "down", "xor")
VOTE_MODES = ("ballot", "any", "all")


@record(frozen=True)
class WarpOp:
    """One warp-collective operation; `word` names it in errors. `operands` i64
    values come with it (they may differ between lanes), `results` go back."""
    word: str
    operands: ClassVar[int] = 0
    results: ClassVar[int] = 1
    collective: ClassVar[bool] = True  # every lane of the warp must take part (a full mask)


@record(frozen=True)
class Shuffle(WarpOp):
    """x' = x of the source lane; operands: x (its low `bits` bits matter), the lane operand."""
    mode: str = "idx"  # SHUFFLE_MODES
    bits: int = 64  # 64: a cell or an f64; 32: an f32
    operands: ClassVar[int] = 2


@record(frozen=True)
class Vote(WarpOp):
    """operand: the predicate (0 or 1); result: ballot's mask (zero-extended), or any/all's Forth flag."""
    mode: str = "ballot"  # VOTE_MODES
    operands: ClassVar[int] = 1


@record(frozen=True)
class ActiveMask(WarpOp):
    """result: the mask of the lanes executing it together (zero-extended); no synchronisation."""
    collective: ClassVar[bool] = False


@record(frozen=True)
class SyncWarp(WarpOp):
    """Wait until every lane of the warp arrives."""
    results: ClassVar[int] = 0


@record(frozen=True)
class LaneGet(WarpOp):
    """TLANE@: element i (the operand) of this lane's fragment of the MMA_SYNC accumulator at tile
    position `pos`; result: its f32 bits. Each lane on its own (no synchronisation)."""
    pos: int = 0
    tile: Tile | None = None
    operands: ClassVar[int] = 1
    collective: ClassVar[bool] = False


@record(frozen=True)
class LanePut(WarpOp):
    """TLANE!: set element i of this lane's fragment of the accumulator at `pos`; operands: i, the
    value's f32 bits (rounded to the accumulator's type)."""
    pos: int = 0
    tile: Tile | None = None
    operands: ClassVar[int] = 2
    results: ClassVar[int] = 0
    collective: ClassVar[bool] = False
