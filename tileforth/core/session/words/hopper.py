"""Hopper's host words (tileforth's own): TMAP, a tensor map of an ARRAY or MATRIX for the TMA words
(core/compile/tma.py). The map is 128 bytes of device memory (64 aligned); its name pushes their address.
On a GPU the driver encodes it (tensormap.py: cuTensorMapEncodeTiled); on the emulator it is the
emulator's record of the same fields, which its TMA model (backends/cpu/mbarriers.py) reads."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...compile.tma import TMAP_ALIGN, TMAP_BYTES
from ...errors import ForthError
from ...front.dictionary import Constant
from ...front.reader import Token
from ..tensormap import TensorMap, check, driver_encode, libcuda_encode
from .definitions import _define
from .table import NEW_NAME, host
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
      "as rows (swizzle 0) or with the 128 byte swizzle of SMEM-TILE-SWZ (swizzle 128: rows of 128 bytes); "
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
