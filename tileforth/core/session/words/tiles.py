"""Tile settings (tileforth's own words): TILE-SHAPE TILE-GRID TILE-IN TILE-ACC set what
the tile words compiled from now on use; TILES-KEPT? tells whether the tile
stack survives a line on this backend."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...compile.tiles import ACC_TYPES, IN_TYPES, MAX_GRID, SHAPES
from ...errors import ForthError
from ...front.reader import Token
from ...records import replace
from ...compile.eltypes import BY_CODE
from .table import host

if TYPE_CHECKING:
    from ..interpreter import Forth


@host("TILE-SHAPE", "( m n k -- )", "Set the tensor-core shape for tile words compiled from now on: "
      "16 16 16 (default), 32 8 16 or 8 32 16 (wmma), or 16 8 16: mma.sync m16n8k16, whose fragments have the "
      "documented layout that TLDSM-A, TLDSM-B, TSTSM and TLANE@ rely on (sm_80 or newer on the GPU).",
      "32 8 16 TILE-SHAPE", wordset="tileforth")
def w_tile_shape(f: "Forth", tok: Token) -> None:
    m, n, k = f.pop_uniform(3, "TILE-SHAPE")
    if (m, n, k) not in SHAPES:
        raise ForthError(f"TILE-SHAPE {m} {n} {k} is not a tensor-core shape: use one of "
                         + ", ".join(f"`{a} {b} {c} TILE-SHAPE`" for a, b, c in SHAPES))
    f.tile_config = replace(f.tile_config, shape=(m, n, k))


@host("TILE-GRID", "( m n -- )", "Big register tiles: from now on one tile-stack entry is a grid of m16n8k16 "
      "fragments (16 8 16 TILE-SHAPE): TZERO, TFILL and TLOAD-C make an m x n grid of accumulators (16m x 8n), "
      "TLOAD-A and TLDSM-A an m x 1 column of a blocks (16m x 16), TLOAD-B and TLDSM-B a 1 x n row of b blocks "
      "(16 x 8n); TMMA multiplies them all, TLANE@ and TROW/TCOL index 4mn elements. 1 1 TILE-GRID (the "
      "default) is one fragment.", "16 8 16 TILE-SHAPE  4 8 TILE-GRID  TZERO TDROP  1 1 TILE-GRID",
      wordset="tileforth")
def w_tile_grid(f: "Forth", tok: Token) -> None:
    m, n = f.pop_uniform(2, "TILE-GRID")
    if not (1 <= m <= MAX_GRID and 1 <= n <= MAX_GRID):
        raise ForthError(f"TILE-GRID {m} {n}: a grid has 1 to {MAX_GRID} fragments each way, e.g. `4 8 TILE-GRID` "
                         "for a 64x64 warp tile of m16n8 accumulators")
    f.tile_config = replace(f.tile_config, grid=(m, n))


def _tile_type(f: "Forth", word: str, allowed: tuple[str, ...]) -> str:
    (code,) = f.pop_uniform(1, word)
    et = BY_CODE.get(code)
    name = et.name.lower() if et else "?"
    if name not in allowed:
        raise ForthError(f"{word} takes one of " + " ".join(a.upper() for a in allowed) +
                         f", e.g. `{allowed[-1].upper()} {word}`")
    return name


@host("TILE-IN", "( type -- )", "Set the input type of a and b tiles: F16 (default) or BF16.", "BF16 TILE-IN",
      wordset="tileforth")
def w_tile_in(f: "Forth", tok: Token) -> None:
    t = _tile_type(f, "TILE-IN", IN_TYPES)
    if t == "bf16" and f.tile_config.acc_type != "f32":
        raise ForthError("bf16 inputs need an f32 accumulator: say `F32 TILE-ACC` first")
    f.tile_config = replace(f.tile_config, in_type=t)


@host("TILE-ACC", "( type -- )", "Set the accumulator type: F32 (default) or F16.", "F16 TILE-ACC",
      wordset="tileforth")
def w_tile_acc(f: "Forth", tok: Token) -> None:
    t = _tile_type(f, "TILE-ACC", ACC_TYPES)
    if t == "f16" and f.tile_config.in_type == "bf16":
        raise ForthError("an f16 accumulator needs f16 inputs (PTX has no bf16 -> f16 mma): say `F16 TILE-IN` first")
    f.tile_config = replace(f.tile_config, acc_type=t)


@host("TILES-KEPT?", "( -- flag )", "True when the tile stack survives the end of a line (the "
      "cpu emulator); false where tiles live in registers and must be stored or dropped on the "
      "line that made them (the cuda backend).", "TILES-KEPT? .", wordset="tileforth")
def w_tiles_kept(f: "Forth", tok: Token) -> None:
    f.push_uniform(-1 if f.backend.caps.keeps_tiles else 0)
