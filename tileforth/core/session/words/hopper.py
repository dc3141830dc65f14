"""Hopper's host words (tileforth's own): WG-SHAPE and WGDESC (warpgroup MMA: core/compile/wgmma.py); TMAP, a tensor map of an ARRAY or MATRIX for the TMA words
(core/compile/tma.py). The map is 128 bytes of device memory (64 aligned); its name pushes their address.
On a GPU the driver encodes it (tensormap.py: cuTensorMapEncodeTiled); on the emulator it is the
emulator's record of the same fields, which its TMA model (backends/cpu/mbarriers.py) reads."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...compile.primitives import TABLE as PRIMS
from ...compile.smem import SmemTile
from ...compile.tma import TMAP_ALIGN, TMAP_BYTES
from ...compile.wgmma import WG_K, WG_M, WG_N, DescSpec, check_desc, check_desc_mn, mn_panels
from ...errors import ForthError
from ...front.dictionary import Colon, Constant
from ...front.reader import Token
from ...front.tree import Lit, Prim
from ...records import replace
from ..tensormap import TensorMap, check, driver_encode, libcuda_encode
from .definitions import _define
from .table import NAME_NEXT, NEW_NAME, host, immediate
from .textin import _name

if TYPE_CHECKING:
    from ..interpreter import Forth

HOPPER_SM = 90


def _array_at(f: "Forth", addr: int):
    for wl in f.wordlists:
        for entry in wl.values():
            if isinstance(entry, Constant) and entry.array is not None and entry.array[0] == addr:
                return entry
    return None


@host("TMAP", "( array box-rows box-cols swizzle -- )", "Define name as a tensor map of the ARRAY or MATRIX "
      "at array for TMA-LOAD and TMA-STORE: boxes of box-rows x box-cols elements, laid out in shared memory "
      "as rows (swizzle 0) or with the 128 byte swizzle of SMEM-TILE-SWZ (swizzle 128: rows of 128 bytes), the "
      "64 byte one of SMEM-TILE-SWZ64 (64: rows of 64 bytes) or the 32 byte one of SMEM-TILE-SWZ32 (32); "
      "name pushes the map's address. Needs a Hopper GPU, or the cpu backend.",
      "64 64 BF16 MATRIX A  A 64 64 128 TMAP tA  tA 64 MOD . \\ 0", wordset="tileforth", parses=NEW_NAME)
def w_tmap(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    addr, box_rows, box_cols, swizzle = f.pop_uniform(4, "TMAP")
    entry = _array_at(f, addr)
    if entry is None:
        raise ForthError(f"TMAP: ${addr:x} is not the address of an ARRAY or MATRIX; give one's name, e.g. "
                         f"`A 64 64 0 TMAP {name.text}`", tok.pos, tok.text)
    _, shape, et = entry.array
    rows, cols = (1, shape[0]) if len(shape) == 1 else shape
    define_tensor_map(f, name.text, entry.name, addr, rows, cols, et, box_rows, box_cols, swizzle, tok)


def define_tensor_map(f: "Forth", name: str, of: str, addr: int, rows: int, cols: int, et, box_rows: int,
                      box_cols: int, swizzle: int, tok: Token) -> None:
    """Define `name` as a tensor map of the rows x cols array `of` (elements `et`) at addr: TMAP, and a
    kernel file's `\\! tmap` (export/kernelfile.py, which knows an array's dimensions from its header)."""
    t = TensorMap(addr, rows, cols, cols * et.size, et.name, et.size, box_rows, box_cols, swizzle)
    try:
        check(t, "TMAP")
    except ForthError as exc:
        raise ForthError(exc.message, tok.pos, tok.text) from None
    arch = f.backend.caps.arch
    if arch:
        sm = int(arch[3:].rstrip("a"))
        if sm < HOPPER_SM:
            raise ForthError(f"TMAP: tensor maps need a Hopper GPU (sm_{HOPPER_SM}), but this one is {arch}: run with "
                             "--backend cpu", tok.pos, tok.text)
        data = driver_encode(t, libcuda_encode())
    else:
        data = t.emulator_bytes()
    base = f.backend.alloc(TMAP_BYTES + TMAP_ALIGN)
    at = base + (-base % TMAP_ALIGN)
    f.backend.write(at, data)
    _define(f, Constant(name, at, help=f"( -- tmap ) a tensor map of {of}: {box_rows}x{box_cols} "
                        f"{et.name} boxes ({t.box_bytes} bytes), swizzle {swizzle}"))


# ---- warpgroup MMA (issue 29, point 1: core/compile/wgmma.py) ------------------------------------------
@host("WG-SHAPE", "( m n k -- )", "Set the warpgroup MMA shape for the WGMMA words compiled from now on: 64 N 16 "
      "(wgmma m64nNk16), N a multiple of 8 from 8 to 256; the inputs are the TILE-IN type (F16 or BF16), the "
      "accumulator f32, N/2 per thread of the warpgroup. The default is 64 64 16.",
      "64 128 16 WG-SHAPE", wordset="tileforth")
def w_wg_shape(f: "Forth", tok: Token) -> None:
    m, n, k = f.pop_uniform(3, "WG-SHAPE")
    if (m, k) != (WG_M, WG_K) or n not in WG_N:
        raise ForthError(f"WG-SHAPE {m} {n} {k} is not a warpgroup MMA shape: wgmma is m64nNk16 with N a multiple of "
                         "8 from 8 to 256, e.g. `64 128 16 WG-SHAPE`", tok.pos, tok.text)
    f.tile_config = replace(f.tile_config, wg_n=n)


def _smem_tile(f: "Forth", name: Token) -> SmemTile:
    entry = f.lookup(name.text.upper())
    body = getattr(entry, "body", None)
    if isinstance(entry, Colon) and body and len(body) == 1 and isinstance(body[0], Prim) \
            and isinstance(body[0].arg, SmemTile):
        return body[0].arg
    raise ForthError(f"WGDESC {name.text}: {name.text} is not a SMEM-TILE; name the shared tile the descriptor "
                     "describes, e.g. `0 0 0 128 WGDESC As` after `64 64 BF16 2 SMEM-TILE-SWZ As`", name.pos, name.text)


@immediate("WGDESC", '( stage row col "name" -- desc )', "swizzle WGDESC name (swizzle a literal: 128, 64, 32 or 0 "
           "bytes): the wgmma matrix descriptor of the K-major block at row, col of a stage of the SMEM-TILE name: "
           "start address >> 4, leading and stride byte offsets, swizzle mode, checked against the tile's layout "
           "when it is compiled (128: a SMEM-TILE-SWZ, rows of K; 64: a SMEM-TILE-SWZ64; 32: a SMEM-TILE-SWZ32; 0: a "
           "tile of 16-byte rows in core-matrix order). "
           "A's block is 64 x 16 (M x K), B's N x 16 (the tile holds B transposed, N x K).",
           "64 64 BF16 1 SMEM-TILE-SWZ sA  BF16 TILE-IN  0 8 16 128 WGDESC sA 62 RSHIFT . \\ 1",
           wordset="tileforth", parses=NAME_NEXT)
def i_wgdesc(f: "Forth", tok: Token) -> None:
    _wgdesc(f, tok, False)


def _wgdesc(f: "Forth", tok: Token, mn: bool) -> None:
    word = "WGDESC-MN" if mn else "WGDESC"
    items = f._items()
    last = items[-1] if items else None
    if not isinstance(last, Lit):
        raise ForthError(f"{word} needs a literal swizzle before it (the descriptor's mode, in bytes: 128 for a "
                         "SMEM-TILE-SWZ, 64 or 32 for a SMEM-TILE-SWZ64 or -SWZ32"
                         + ("" if mn else ", 0 for a tile in core-matrix order") + f"), e.g. `0 0 0 128 {word} As`",
                         tok.pos, tok.text)
    items.pop()
    swizzle = int(last.value)
    name = _name(f, tok)
    tile = _smem_tile(f, name)
    n = f.tile_config.wg_n
    why = check_desc_mn(tile, swizzle, f.tile_config.in_type, n) if mn else check_desc(tile, swizzle,
                                                                                       f.tile_config.in_type)
    if why is not None:
        raise ForthError(f"{swizzle} {word} {name.text}: {why}", name.pos, tok.text)
    spec = DescSpec(tile, swizzle, True, mn_panels(tile, swizzle, n)) if mn else DescSpec(tile, swizzle)
    f.append(Prim(PRIMS["(WGDESC)"], tok.pos, arg=spec))


@immediate("WGDESC-MN", '( stage row col "name" -- desc )', "swizzle WGDESC-MN name (swizzle a literal: 128, 64 "
           "or 32 bytes): the wgmma descriptor of an MN-major (transposed) operand: B stored K x N, N contiguous, the "
           "tile's rows being K and its columns N (a SMEM-TILE-SWZ holds 64 bf16 of N per row; a wider B in panels of "
           "64 columns one under another, each the tile's rows / panels high). row is the first K row (a multiple of "
           "16 per k-step), col the first N column. LBO is the next panel, SBO the next 8 rows of K. A WGMMA given "
           "it on the data stack passes the transpose flag for that operand (A too, from a SMEM-TILE-SWZ); one "
           "through >R, memory or arithmetic is an error at the WGMMA.",
           "64 64 BF16 1 SMEM-TILE-SWZ sB  BF16 TILE-IN  0 16 0 128 WGDESC-MN sB 32 RSHIFT 16383 AND 16 * . \\ 1024",
           wordset="tileforth", parses=NAME_NEXT)
def i_wgdesc_mn(f: "Forth", tok: Token) -> None:
    _wgdesc(f, tok, True)
