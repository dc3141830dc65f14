"""Tensor maps (TMAP, words/hopper.py): the fields of a 2-D tiled tensor map, checked as the CUDA driver
checks them, and their 128 bytes: the driver's cuTensorMapEncodeTiled on a GPU (through ctypes: PyCUDA has
no binding of it), the emulator's own record elsewhere (core/compile/tma.py: TMAP_FIELDS).

cuTensorMapEncodeTiled(tensorMap, tensorDataType, tensorRank, globalAddress, globalDim, globalStrides, boxDim,
elementStrides, interleave, swizzle, l2Promotion, oobFill) takes dimensions innermost first: globalDim =
{cols, rows}, globalStrides = {row bytes} (rank - 1 of them, bytes), boxDim = {box cols, box rows},
elementStrides = {1, 1}; interleave NONE (0), swizzle NONE (0), 32B (1), 64B (2) or 128B (3), L2 promotion 128B (2), oobFill
NONE (0: elements outside the tensor read as zeros).
"""
from __future__ import annotations

import ctypes
import struct
from typing import Any, Callable

from ..compile.tma import BOX_MAX, TMAP_ALIGN, TMAP_BYTES, TMAP_FIELDS, TMAP_MAGIC
from ..errors import ForthError
from ..records import record

# CUtensorMapDataType (cuda.h), by tileforth's element type
DATA_TYPES = {"U8": 0, "I8": 0, "U16": 1, "I16": 1, "U32": 2, "I32": 3, "U64": 4, "I64": 5, "F16": 6, "F32": 7,
              "F64": 8, "BF16": 9}
SWIZZLE_NONE, SWIZZLE_128B = 0, 3  # CUtensorMapSwizzle
SWIZZLE_MODES = {0: SWIZZLE_NONE, 32: 1, 64: 2, 128: SWIZZLE_128B}  # by the bytes of a box row: CU_TENSOR_MAP_SWIZZLE_*
INTERLEAVE_NONE, L2_PROMOTION_128B, OOB_FILL_NONE = 0, 2, 0
SWIZZLE_SPAN = 128  # bytes of a box row with the 128-byte swizzle
GLOBAL_ALIGN, STRIDE_ALIGN = 16, 16  # globalAddress 16 aligned; globalStrides multiples of 16


@record(frozen=True)
class TensorMap:
    """A 2-D tensor map of an array: rows x cols elements of `eltype` (esize bytes) at gaddr, row_stride bytes
    apart; its box box_rows x box_cols; swizzle: 0 (rows as they are), or 128, 64 or 32 (the swizzle of rows
    of that many bytes)."""
    gaddr: int
    rows: int
    cols: int
    row_stride: int
    eltype: str
    esize: int
    box_rows: int
    box_cols: int
    swizzle: int

    @property
    def box_bytes(self) -> int:
        return self.box_rows * self.box_cols * self.esize

    def driver_args(self) -> dict[str, Any]:
        """What cuTensorMapEncodeTiled is given (innermost dimension first)."""
        return {"tensorDataType": DATA_TYPES[self.eltype], "tensorRank": 2, "globalAddress": self.gaddr,
                "globalDim": (self.cols, self.rows), "globalStrides": (self.row_stride,),
                "boxDim": (self.box_cols, self.box_rows), "elementStrides": (1, 1),
                "interleave": INTERLEAVE_NONE, "swizzle": SWIZZLE_MODES[self.swizzle],
                "l2Promotion": L2_PROMOTION_128B, "oobFill": OOB_FILL_NONE}

    def emulator_bytes(self) -> bytes:
        """The emulator's record: TMAP_FIELDS as little-endian u64, padded to 128 bytes."""
        vals = {"magic": TMAP_MAGIC, "gaddr": self.gaddr, "cols": self.cols, "rows": self.rows,
                "row_stride": self.row_stride, "box_cols": self.box_cols, "box_rows": self.box_rows,
                "esize": self.esize, "swizzle": self.swizzle}
        raw = struct.pack(f"<{len(TMAP_FIELDS)}Q", *(vals[k] for k in TMAP_FIELDS))
        return raw + bytes(TMAP_BYTES - len(raw))


def check(t: TensorMap, word: str) -> None:
    """The driver's requirements (cuTensorMapEncodeTiled's documentation), and the swizzle the tiles have."""
    if t.eltype not in DATA_TYPES:
        raise ForthError(f"{word}: a tensor map holds integers or F16 BF16 F32 F64, not {t.eltype}; use another "
                         "array")
    if t.gaddr % GLOBAL_ALIGN or t.row_stride % STRIDE_ALIGN:
        raise ForthError(f"{word}: a row of the array is {t.row_stride} bytes; TMA needs rows of a multiple of "
                         f"{STRIDE_ALIGN} bytes ({STRIDE_ALIGN // t.esize} {t.eltype}): use another number of columns")
    if not (1 <= t.box_rows <= BOX_MAX and 1 <= t.box_cols <= BOX_MAX):
        raise ForthError(f"{word}: a box is 1 to {BOX_MAX} elements each way, not {t.box_rows}x{t.box_cols}: "
                         "use a smaller box")
    if (t.box_cols * t.esize) % 16:
        raise ForthError(f"{word}: a box row of {t.box_cols} {t.eltype} is {t.box_cols * t.esize} bytes; TMA "
                         f"needs a multiple of 16 bytes ({16 // t.esize} elements): use another box width")
    if t.swizzle not in SWIZZLE_MODES:
        raise ForthError(f"{word}: the swizzle is 0 (none), 128, 64 or 32 (the swizzles of SMEM-TILE-SWZ, -SWZ64 and "
                         f"-SWZ32), not {t.swizzle}: use one of those")
    if t.swizzle and t.box_cols * t.esize != t.swizzle:
        tile = {128: "SMEM-TILE-SWZ", 64: "SMEM-TILE-SWZ64", 32: "SMEM-TILE-SWZ32"}[t.swizzle]
        raise ForthError(f"{word}: with the {t.swizzle}-byte swizzle a box row is {t.swizzle} bytes "
                         f"({t.swizzle // t.esize} {t.eltype}), as in {tile}, not {t.box_cols}: use a box of "
                         f"{t.swizzle // t.esize} columns")


EncodeFn = Callable[..., int]


def driver_encode(t: TensorMap, fn: EncodeFn) -> bytes:
    """cuTensorMapEncodeTiled(…) through `fn` (the driver's function, or a test's stand-in, called with
    ctypes arguments as the C prototype has them): the map's 128 bytes."""
    a = t.driver_args()
    buf = (ctypes.c_uint8 * (TMAP_BYTES + TMAP_ALIGN))()
    at = ctypes.addressof(buf)
    at += -at % TMAP_ALIGN
    u64, u32 = ctypes.c_uint64, ctypes.c_uint32
    res = fn(ctypes.c_void_p(at), ctypes.c_uint(a["tensorDataType"]), u32(a["tensorRank"]),
             ctypes.c_void_p(a["globalAddress"]), (u64 * 2)(*a["globalDim"]), (u64 * 1)(*a["globalStrides"]),
             (u32 * 2)(*a["boxDim"]), (u32 * 2)(*a["elementStrides"]), ctypes.c_uint(a["interleave"]),
             ctypes.c_uint(a["swizzle"]), ctypes.c_uint(a["l2Promotion"]), ctypes.c_uint(a["oobFill"]))
    if res:
        raise ForthError(f"TMAP: the driver refused the tensor map (CUresult {res}): check the array and the box")
    return ctypes.string_at(at, TMAP_BYTES)


def libcuda_encode() -> EncodeFn:
    """The driver's cuTensorMapEncodeTiled (libcuda, CUDA 12.0 and newer)."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        fn = lib.cuTensorMapEncodeTiled
    except (OSError, AttributeError):
        raise ForthError("TMAP: this CUDA driver has no cuTensorMapEncodeTiled (it needs CUDA 12 and a Hopper "
                         "GPU): update the driver, or run with --backend cpu") from None
    fn.restype = ctypes.c_int
    return fn
