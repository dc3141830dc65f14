"""Tile words: the tensor-core stack, checked while code is generated.

Each word pops and pushes `Tile` descriptors on `Gen.tstack` (known at every
point, like register shapes) and asks the target for one warp-collective
operation. Positions are indices in the warp's tile stack, bottom = 0:

    word        data stack          tile stack               target op
    TZERO       ( -- )              ( -- acc )               zero  dst
    TFILL       ( F: r -- )         ( -- acc )               fill  dst, r
    TLOAD-A     ( addr stride -- )  ( -- a )                 load  dst, addr, stride
    TMMA        ( -- )              ( acc a b -- acc' )      mma   acc, a, b
    TSTORE      ( addr stride -- )  ( acc -- )               store src, addr, stride
    TDUP TOVER  ( -- )              copies                   copy  src -> dst
    TSWAP TROT TROLL                permutations             perm  base, order

mma.sync m16n8k16 (`16 8 16 TILE-SHAPE`: fragments of the documented layout, tiles.MMA_SYNC):

    TLDSM-A     ( saddr row col geom -- )  ( -- a )      ldmatrix .x4       dst
    TLDSM-B     ( saddr row col geom -- )  ( -- b )      ldmatrix .x2.trans dst
    TLDSM-B-COL ( saddr row col geom -- )  ( -- b )      ldmatrix .x2 (B n-major) dst
    TSTSM       ( saddr row col geom -- )  ( acc -- )    stmatrix .x2       src
    TLANE@      ( i -- ) ( F: -- r )       ( acc -- acc ) element i of this lane's fragment (a WarpOp)
    TLANE!      ( i -- ) ( F: r -- )       ( acc -- acc ) set it
    TROW TCOL   ( i -- row ) ( i -- col )                element i's place (arithmetic on the lane id)

Big register tiles (`m n TILE-GRID`, MMA_SYNC only): an entry stands for a grid of fragments (Tile.grid,
tiles.kind_grid: acc m x n, a m x 1, b 1 x n); every op above works on the whole grid, which the targets
unroll at compile time (fragment (i, j) at rows 16i.., columns 8j.. of the entry's logical matrix).
TMMA checks that the grids fit together; _push that the tile stack's registers fit (MAX_TILE_REGS).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from ..errors import ForthError
from ..front.effects import Effect
from .codegen import F32, I32, I64, c64, fconvert
from .tileops import Add, Copy, Fill, LaneGet, LanePut, LdMatrix, Load, Mma, Perm, Scale, StMatrix, Store, TileOp, Zero
from .tiles import (MAX_TILE_REGS, MAX_TILES, MMA_SYNC, Hole, Tile, TileConfig, kind_grid, detailed, notation, resolve,
                    tile_error)

if TYPE_CHECKING:
    from ..front.tree import Prim
    from .codegen import Gen
    from .primitive import Registry

NO_DATA = Effect(True)


class CheckedLoad(Load):
    """A Load compiled in checked mode: the emulator also refuses memory whose
    element type (ARRAY, MATRIX) differs from the tile's. Targets that do not
    check it treat it as a Load. (No fields of its own: Load's record methods
    serve it, and its repr and equality name this class.)"""


class CheckedStore(Store):
    """A Store compiled in checked mode (see CheckedLoad)."""


def _bits(g: "Gen", r: ir.Value) -> ir.Value:
    """A float-stack value's f32 bits (tiles hold f32: an f64 is rounded to nearest first)."""
    return g.b.zext(g.b.bitcast(fconvert(g.b, r, F32), I32), I64)


def _take(g: "Gen", n: "Prim", word: str, kinds: tuple[str, ...], expects: str) -> list:
    """Pop len(kinds) tiles, checking each kind ('*' = any); below the known
    stack a definition checked alone gets holes that the use resolves."""
    need = len(kinds)
    if need > len(g.tstack):
        raise tile_error(word, expects, g.tstack[g.tiles_shown_from():], n.pos)
    got = g.tstack[len(g.tstack) - need:]
    cfg = _cfg(n)
    out = []
    for entry, kind in zip(got, kinds):
        if isinstance(entry, Hole):
            entry.touched = True
        t = resolve(entry)
        if isinstance(t, Hole):
            if kind != "*":
                t.resolved = _default(kind, cfg)
                t = t.resolved
        elif kind != "*" and t.kind != kind:
            raise tile_error(word, expects, g.tstack[g.tiles_shown_from():], n.pos)
        if isinstance(t, Tile) and t.pending and word not in PENDING_OK:
            raise pending_error(word, t, n.pos)
        out.append(t)
    del g.tstack[len(g.tstack) - need:]
    return out


PENDING_OK = ("WGMMA",)  # the words that may take a pending warpgroup accumulator: another WGMMA into it


def pending_error(word: str, t: Tile, pos) -> ForthError:
    """A pending warpgroup accumulator used before a wait covers it (the registers are still being written)."""
    newer = t.pending - 1
    later = (f" (or `{newer} WGMMA-WAIT`, which leaves only the {newer} newer WGMMA{'s' * (newer > 1)} in flight)"
             if newer else "")
    return ForthError(f"{word}: the warpgroup accumulator {t.short()} is pending: the WGMMA that writes it may not "
                      f"have completed, so its registers cannot be read, copied, moved or dropped yet; add "
                      f"`0 WGMMA-WAIT` before {word}{later}", pos, word)


def _default(kind: str, cfg: TileConfig, layout: str = "row") -> Tile:
    if kind == "wacc":  # a warpgroup accumulator of the node's WG-SHAPE (wgmma.py)
        return Tile("wacc", (64, cfg.wg_n, 16), "f32")
    grid = kind_grid(kind, cfg.grid) if cfg.shape == MMA_SYNC else (1, 1)
    return Tile(kind, cfg.shape, cfg.acc_type if kind == "acc" else cfg.in_type, layout, grid)


def _new(n: "Prim", word: str, kind: str, layout: str = "row") -> Tile:
    """The tile a word pushes under its node's settings; a grid needs the mma.sync shape."""
    cfg = _cfg(n)
    if cfg.grid != (1, 1) and cfg.shape != MMA_SYNC:
        m, nn, k = cfg.shape
        gm, gn = cfg.grid
        raise ForthError(f"{word}: a {gm}x{gn} TILE-GRID is a grid of mma.sync m16n8k16 fragments, but the tile "
                         f"shape is m{m}n{nn}k{k}: say `16 8 16 TILE-SHAPE`, or `1 1 TILE-GRID` for single wmma "
                         "tiles", n.pos, word)
    return _default(kind, cfg, layout)


def _regs(t) -> int:
    t = resolve(t)
    return 0 if isinstance(t, Hole) else t.regs


def _push(g: "Gen", n: "Prim", word: str, t) -> None:
    if len(g.tstack) - g.tile_floor >= MAX_TILES:
        raise ForthError(f"{word}: the tile stack holds at most {MAX_TILES} tiles per warp (they are "
                         f"registers on the GPU); it is {notation(g.tstack[g.tiles_shown_from():])}", n.pos, word)
    used = sum(_regs(x) for x in g.tstack)
    if used + _regs(t) > MAX_TILE_REGS:
        raise ForthError(f"{word}: the tile stack's fragments may hold at most {MAX_TILE_REGS} registers per lane, "
                         f"but {t.short()} needs {_regs(t)} more on top of the {used} of "
                         f"{detailed(g.tstack[g.tiles_shown_from():])}: drop or store a tile first (TDROP, "
                         "TSTORE), or use a smaller TILE-GRID", n.pos, word)
    g.tstack.append(t)


def _op(g: "Gen", n: "Prim", op: TileOp, dyn: list[ir.Value]) -> None:
    """The target's code for one tile operation; a target's refusal (a tile type its architecture
    lacks) is reported at the word."""
    assert len(dyn) == op.operands, op
    try:
        g.target.tile_op(g, op, dyn)
    except ForthError as exc:
        raise exc.at(n.pos, n.prim.name) from None


def _cfg(n: "Prim") -> TileConfig:
    return n.arg if isinstance(n.arg, TileConfig) else TileConfig()


def t_zero(g: "Gen", n: "Prim") -> None:
    t = _new(n, "TZERO", "acc")
    _op(g, n, Zero(len(g.tstack), t), [])
    _push(g, n, "TZERO", t)


def t_fill(g: "Gen", n: "Prim") -> None:
    (r,) = g.fpop(1)
    t = _new(n, "TFILL", "acc")
    _op(g, n, Fill(len(g.tstack), t), [_bits(g, r)])
    _push(g, n, "TFILL", t)


def _loader(kind: str, layout: str, word: str):
    def emit(g: "Gen", n: "Prim") -> None:
        addr, stride = g.pop(2)
        t = _new(n, word, kind, layout if kind != "acc" else "row")
        _op(g, n, (CheckedLoad if g.checked else Load)(len(g.tstack), t, word), [addr, stride])
        _push(g, n, word, t)
    return emit


def t_mma(g: "Gen", n: "Prim") -> None:
    acc, a, b = _take(g, n, "TMMA", ("acc", "a", "b"), "( acc a b )")
    base = len(g.tstack)
    if not (acc.shape == a.shape == b.shape):
        raise ForthError(f"TMMA needs tiles of one shape, but the tile stack is ( {acc.short()} {a.short()} "
                         f"{b.short()} ): load them under the same TILE-SHAPE", n.pos, "TMMA")
    if a.grid[0] != acc.grid[0] or b.grid[1] != acc.grid[1]:
        raise ForthError(f"TMMA multiplies an m x 1 grid of a fragments by a 1 x n grid of b fragments into an "
                         f"m x n grid of accumulators, but the grids are a {a.grid[0]}x{a.grid[1]}, b "
                         f"{b.grid[0]}x{b.grid[1]} and acc {acc.grid[0]}x{acc.grid[1]} ( {acc.short()} {a.short()} "
                         f"{b.short()} ): make acc, a and b under one TILE-GRID (`{acc.grid[0]} {acc.grid[1]} "
                         "TILE-GRID` for this accumulator)", n.pos, "TMMA")
    if a.dtype != b.dtype:
        raise ForthError(f"TMMA needs a and b of one input type, but they are {a.dtype} and {b.dtype}",
                         n.pos, "TMMA")
    if a.dtype == "bf16" and acc.dtype != "f32":
        raise ForthError("TMMA with bf16 inputs needs an f32 accumulator (PTX has no bf16 -> f16 mma)",
                         n.pos, "TMMA")
    _op(g, n, Mma(base, base + 1, base + 2, acc, a, b), [])
    g.tstack.append(acc)


def t_store(g: "Gen", n: "Prim") -> None:
    addr, stride = g.pop(2)
    (acc,) = _take(g, n, "TSTORE", ("acc",), "( acc )")
    _op(g, n, (CheckedStore if g.checked else Store)(len(g.tstack), acc), [addr, stride])


def _copy(depth: int, word: str, expects: str):
    def emit(g: "Gen", n: "Prim") -> None:
        tiles = _take(g, n, word, ("*",) * (depth + 1), expects)
        g.tstack.extend(tiles)
        src = len(g.tstack) - 1 - depth
        _op(g, n, Copy(src, len(g.tstack), g.tstack[src]), [])
        _push(g, n, word, g.tstack[src])
    return emit


def _perm(count: int | None, word: str):
    def emit(g: "Gen", n: "Prim") -> None:
        k = count
        if k is None:
            if not isinstance(n.arg, int):
                raise ForthError("TROLL needs a literal count before it, e.g. `3 TROLL`", n.pos, word)
            k = n.arg + 1
        if k <= 1:
            return
        tiles = _take(g, n, word, ("*",) * k, f"( {k} tiles )")
        base = len(g.tstack)
        order = list(range(1, k)) + [0]
        if word == "TSWAP":
            order = [1, 0]
        _op(g, n, Perm(base, tuple(order), tuple(tiles)), [])
        g.tstack.extend(tiles[i] for i in order)
    return emit


def t_drop(g: "Gen", n: "Prim") -> None:
    _take(g, n, "TDROP", ("*",), "( t )")


def t_scale(g: "Gen", n: "Prim") -> None:
    (r,) = g.fpop(1)
    (acc,) = _take(g, n, "TSCALE", ("acc",), "( acc )")
    _op(g, n, Scale(len(g.tstack), acc), [_bits(g, r)])
    g.tstack.append(acc)


def t_add(g: "Gen", n: "Prim") -> None:
    x, y = _take(g, n, "T+", ("acc", "acc"), "( acc acc )")
    if x != y:
        raise ForthError(f"T+ needs two accumulators of one shape and type, but they are {x.short()} and "
                         f"{y.short()}", n.pos, "T+")
    base = len(g.tstack)
    _op(g, n, Add(base, base + 1, x), [])
    g.tstack.append(x)


# ---- mma.sync m16n8k16: ldmatrix, stmatrix, per-lane elements ---------------------------------------
def _need_mma_sync(n: "Prim", word: str, shape: tuple[int, int, int]) -> None:
    if shape != MMA_SYNC:
        m, nn, k = shape
        raise ForthError(f"{word} works on mma.sync m16n8k16 fragments, whose layout PTX documents, but the tile "
                         f"shape is m{m}n{nn}k{k}: say `16 8 16 TILE-SHAPE` before the tile words are compiled",
                         n.pos, word)


def _ldsm(kind: str, word: str, n_major: bool = False):
    def emit(g: "Gen", n: "Prim") -> None:
        cfg = _cfg(n)
        _need_mma_sync(n, word, cfg.shape)
        saddr, row, col, geom = g.pop(4)
        t = _new(n, word, kind)
        _op(g, n, LdMatrix(len(g.tstack), t, word, n_major), [saddr, row, col, geom])
        _push(g, n, word, t)
    return emit


def t_stsm(g: "Gen", n: "Prim") -> None:
    saddr, row, col, geom = g.pop(4)
    (acc,) = _take(g, n, "TSTSM", ("acc",), "( acc )")
    _need_mma_sync(n, "TSTSM", acc.shape)
    store = acc.dtype if acc.dtype != "f32" else _cfg(n).in_type
    _op(g, n, StMatrix(len(g.tstack), acc, store, "TSTSM"), [saddr, row, col, geom])


def _top_acc(g: "Gen", n: "Prim", word: str) -> Tile:
    (acc,) = _take(g, n, word, ("acc",), "( acc )")
    g.tstack.append(acc)
    _need_mma_sync(n, word, acc.shape)
    return acc


def t_lane_get(g: "Gen", n: "Prim") -> None:
    (i,) = g.pop(1)
    acc = _top_acc(g, n, "TLANE@")
    bits = g.target.warp_op(g, LaneGet("TLANE@", len(g.tstack) - 1, acc), [i])
    g.fpush(fconvert(g.b, g.b.bitcast(g.b.trunc(bits, I32), F32), g.float_t))


def t_lane_put(g: "Gen", n: "Prim") -> None:
    (i,) = g.pop(1)
    (r,) = g.fpop(1)
    acc = _top_acc(g, n, "TLANE!")
    g.target.warp_op(g, LanePut("TLANE!", len(g.tstack) - 1, acc), [i, _bits(g, r)])


def _lane_id(g: "Gen") -> ir.Value:
    """This thread's lane: its linear index in the block (x fastest) mod 32, as LANE-ID computes it."""
    b, sreg = g.b, lambda r: g.target.sreg(g, r)
    local = b.add(b.mul(b.add(b.mul(sreg("tid.z"), sreg("bdim.y")), sreg("tid.y")), sreg("bdim.x")), sreg("tid.x"))
    return b.and_(local, c64(31))


def _place(col: bool):
    """TROW / TCOL: element i = 4f + e of this lane's part of an accumulator grid of the node's TILE-GRID is
    element e of fragment f = bi*n + bj (row-major over the grid), at row 16bi + lane/4 + 8(e/2), column
    8bj + 2(lane mod 4) + e mod 2 (tiles.mma_coords, the PTX ISA's layout)."""
    def emit(g: "Gen", n: "Prim") -> None:
        b = g.b
        (i,) = g.pop(1)
        cfg = _cfg(n)
        gn = cfg.grid[1] if cfg.shape == MMA_SYNC else 1
        lane = _lane_id(g)
        # the grid is the node's, known here: constants, which LLVM folds (a literal i leaves only the lane's
        # arithmetic) or turns into shifts and masks (i unsigned: an element index is 0 to 4mn - 1)
        f, e = b.lshr(i, c64(2)), b.and_(i, c64(3))
        if col:
            bj = b.urem(f, c64(gn)) if gn > 1 else c64(0)
            g.push(b.add(b.mul(bj, c64(8)), b.add(b.shl(b.and_(lane, c64(3)), c64(1)), b.and_(e, c64(1)))))
        else:
            bi = b.udiv(f, c64(gn)) if gn > 1 else f
            g.push(b.add(b.mul(bi, c64(16)), b.add(b.lshr(lane, c64(2)), b.shl(b.lshr(e, c64(1)), c64(3)))))
    return emit


def install(registry: "Registry") -> None:
    """Add the tile words to the primitive registry (tileforth/core/compile/primitives.py calls this).

    Each is a suspend point on the emulator (a tile op runs once per warp when
    its lanes arrive) and is generated inside the kernel (tile positions are
    absolute); its node carries the tile settings in force when it was compiled."""
    def tile(name: str, effect: str, help: str, example: str, emit, data: Effect = NO_DATA, **flags) -> None:
        registry.prim(name, effect, help, example, emit, static_effect=lambda n, e=data: e,
                      suspend_point=True, inline=True, tile_word=True, **flags)

    registry.group("Tiles (tensor cores)")
    tile("TZERO", "( -- ) ( T: -- acc )", "Push an accumulator tile of zeros.", "TZERO", t_zero)
    tile("TFILL", "( F: r -- ) ( T: -- acc )", "Push an accumulator tile with every element r.", "2e TFILL",
         t_fill, Effect(True, 0, 0, 1, -1))
    _LOAD_EXAMPLE = {name: f"16 16 {ty} MATRIX {m}  {m} 16 {name}" for name, ty, m in (
        ("TLOAD-A", "F16", "A"), ("TLOAD-B", "F16", "B"), ("TLOAD-C", "F32", "C"), ("TLOAD-A-COL", "F16", "A"),
        ("TLOAD-B-COL", "F16", "B"))}  # a matrix of the default types (TILE-IN F16, TILE-ACC F32)
    for _kind, _name, _what in (("a", "TLOAD-A", "the left operand a (m x k, row-major)"),
                                ("b", "TLOAD-B", "the right operand b (k x n, row-major)"),
                                ("acc", "TLOAD-C", "an accumulator (m x n, row-major)")):
        tile(_name, f"( addr stride -- ) ( T: -- {_kind} )",
             f"Load {_what} from addr; stride is the row length in elements.", _LOAD_EXAMPLE[_name],
             _loader(_kind, "row", _name), Effect(True, 2, -2, 0, 0))
    for _kind, _name, _what in (("a", "TLOAD-A-COL", "the left operand a (m x k) stored column-major"),
                                ("b", "TLOAD-B-COL", "the right operand b (k x n) stored column-major")):
        tile(_name, f"( addr stride -- ) ( T: -- {_kind} )",
             f"Load {_what}; stride is the column length in elements.", _LOAD_EXAMPLE[_name],
             _loader(_kind, "col", _name), Effect(True, 2, -2, 0, 0))
    tile("TMMA", "( -- ) ( T: acc a b -- acc' )", "Tensor-core multiply-accumulate: acc' = acc + a . b.",
         "16 16 F16 MATRIX A  16 16 F16 MATRIX B  TZERO A 16 TLOAD-A B 16 TLOAD-B TMMA", t_mma)
    tile("TSTORE", "( addr stride -- ) ( T: acc -- )", "Store an accumulator at addr (row-major, stride elements).",
         "16 16 F32 MATRIX C  2e TFILL C 16 TSTORE", t_store, Effect(True, 2, -2, 0, 0))
    tile("TDUP", "( T: t -- t t )", "Duplicate the top tile.", "TZERO TDUP", _copy(0, "TDUP", "( t )"))
    tile("TOVER", "( T: t1 t2 -- t1 t2 t1 )", "Copy the second tile to the top.", "TZERO 1e TFILL TOVER",
         _copy(1, "TOVER", "( t1 t2 )"))
    tile("TDROP", "( T: t -- )", "Discard the top tile.", "TZERO TDROP", t_drop)
    tile("TSWAP", "( T: t1 t2 -- t2 t1 )", "Exchange the top two tiles.", "TZERO 1e TFILL TSWAP", _perm(2, "TSWAP"))
    tile("TROT", "( T: t1 t2 t3 -- t2 t3 t1 )", "Rotate the third tile to the top.", "TZERO TZERO TZERO TROT",
         _perm(3, "TROT"))
    tile("TROLL", "( n -- ) ( T: tn .. t0 -- tn-1 .. t0 tn )", "Move the n-th tile to the top (n a literal).",
         "TZERO TZERO TZERO TZERO 3 TROLL", _perm(None, "TROLL"), takes_literal=True, literal_max=MAX_TILES - 1)
    tile("TSCALE", "( F: r -- ) ( T: acc -- acc' )", "Multiply every element of the top accumulator by r.",
         "1e TFILL 3e TSCALE", t_scale, Effect(True, 0, 0, 1, -1))
    tile("T+", "( T: acc1 acc2 -- acc3 )", "Add two accumulators element by element.", "1e TFILL 2e TFILL T+", t_add)

    registry.group("Tiles: mma.sync m16n8k16 (documented fragments)")
    _SM = "16 8 16 TILE-SHAPE  16 64 F16 1 SMEM-TILE S  "  # a shared tile of the default input type
    _SMS = "16 8 16 TILE-SHAPE  16 64 F16 1 SMEM-TILE-SWZ S  "
    tile("TLDSM-A", "( saddr row col geom -- ) ( T: -- a )",
         "ldmatrix .x4 (m16n8k16 tiles; sm_80 or newer on the GPU): load the 16x16 a fragment whose first "
         "element is at row, col (col a multiple of 8) of the shared tile at saddr, a stage of a SMEM-TILE "
         "whose name-GEOM is geom (it says whether the tile is swizzled).",
         _SMS + "0 S 0 8 S-GEOM TLDSM-A", _ldsm("a", "TLDSM-A"), Effect(True, 4, -4, 0, 0))
    tile("TLDSM-B", "( saddr row col geom -- ) ( T: -- b )",
         "ldmatrix .x2.trans: load the 16x8 b fragment (k x n) whose first element is at row, col of a shared "
         "tile stored k-major (row k holds the n columns), transposing as it loads.",
         _SM + "0 S 0 16 S-GEOM TLDSM-B", _ldsm("b", "TLDSM-B"), Effect(True, 4, -4, 0, 0))
    tile("TLDSM-B-COL", "( saddr row col geom -- ) ( T: -- b )",
         "ldmatrix .x2 (no .trans): load the 16x8 b fragment (k x n) from a shared tile that holds B "
         "transposed, n-major (row n holds the k values, as a column-major B): row is the fragment's first n, "
         "col its first k (a multiple of 8). Under a TILE-GRID the b fragments lie 8 rows apart.",
         _SM + "0 S 8 16 S-GEOM TLDSM-B-COL", _ldsm("b", "TLDSM-B-COL", True), Effect(True, 4, -4, 0, 0))
    tile("TSTSM", "( saddr row col geom -- ) ( T: acc -- )",
         "stmatrix .x2: store the 16x8 accumulator at row, col of a shared tile of 16-bit elements, rounded to "
         "the TILE-IN type (f16 or bf16); sm_90 or newer on the GPU.",
         _SM + "2e TFILL 0 S 0 8 S-GEOM TSTSM", t_stsm, Effect(True, 4, -4, 0, 0))
    tile("TLANE@", "( i -- ) ( F: -- r ) ( T: acc -- acc )",
         "Element i (0 to 3, or to 4mn-1 for an m x n TILE-GRID) of this lane's part of the top m16n8k16 "
         "accumulator, at row i TROW and column i TCOL: each lane reads its own, as on the GPU.", "16 8 16 TILE-SHAPE  2e TFILL 3 TLANE@ F. TDROP",
         t_lane_get, Effect(True, 1, -1, 0, 1))
    tile("TLANE!", "( i -- ) ( F: r -- ) ( T: acc -- acc )",
         "Set element i (0 to 3, or to 4mn-1 for a grid) of this lane's part of the top m16n8k16 accumulator (an epilogue per "
         "lane: bias, activation, scaling).", "16 8 16 TILE-SHAPE  TZERO LANE-ID S>F 0 TLANE! TDROP",
         t_lane_put, Effect(True, 1, -1, 1, -1))
    tile("TROW", "( i -- row )",
         "The row of element i of this lane's part of an m16n8k16 accumulator (TLANE@): lane/4 + 8*(i/2), the "
         "PTX ISA's layout; under an m x n TILE-GRID i = 4f + e is element e of fragment f = 4-element block "
         "(f/n, f mod n), at row 16*(f/n) + lane/4 + 8*(e/2).", "TID-X 5 = IF 3 TROW . THEN \\ [thread 5] 9",
         _place(False), Effect(True, 1, 0, 0, 0))
    tile("TCOL", "( i -- col )",
         "The column of element i of this lane's part of an m16n8k16 accumulator (TLANE@): 2*(lane mod 4) + "
         "i mod 2; under an m x n TILE-GRID 8*(f mod n) + 2*(lane mod 4) + e mod 2 for i = 4f + e.",
         "TID-X 5 = IF 3 TCOL . THEN \\ [thread 5] 3", _place(True), Effect(True, 1, 0, 0, 0))
