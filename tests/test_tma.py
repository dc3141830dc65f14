"""TMA (issue 29, points 2 and 5): TMAP's tensor maps, TMA-LOAD's boxes on the emulator against numpy (the
128-byte swizzle and the zero fill outside the array, written out here), TMA-STORE's clipping, a read of a
box before its mbarrier phase completed, and the fields handed to the driver's cuTensorMapEncodeTiled
checked against the CUDA driver API's documentation."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.session.tensormap import TensorMap, driver_encode


def shared_bytes(f: Forth, nbytes: int) -> np.ndarray:
    return np.asarray(f.backend.read(f.backend.shared_regions()[0], nbytes)).view(np.uint8)


def swizzle128(offset: np.ndarray) -> np.ndarray:
    """The 128-byte swizzle of a byte offset in a 1024-aligned box (CUDA programming guide, TMA swizzle:
    the 16-byte chunk bits 4-6 xor the row bits 7-9)."""
    return offset ^ (((offset >> 7) & 7) << 4)


def numpy_box(a: np.ndarray, x: int, y: int, rows: int, cols: int) -> np.ndarray:
    """The box of rows x cols at column x, row y: elements outside the array are zeros."""
    box = np.zeros((rows, cols), a.dtype)
    for r in range(rows):
        for c in range(cols):
            if 0 <= y + r < a.shape[0] and 0 <= x + c < a.shape[1]:
                box[r, c] = a[y + r, x + c]
    return box


LOAD = ("32 1 1 THREADS  8 SHARED: bar  TID-X 0= IF bar 1 MBAR-INIT MBAR-FENCE THEN BARRIER  "
        "ELECT IF bar {nbytes} MBAR-ARRIVE-TX  0 s tm {x} {y} bar TMA-LOAD THEN  bar 0 MBAR-WAIT")


@pytest.mark.parametrize("x,y", [(16, -3), (-8, 15), (0, 0), (40, 0)])
def test_a_swizzled_box_is_the_numpy_box_at_the_swizzled_offsets(x, y):
    """20x40 f32 (integer values), boxes of 8 rows x 32 columns (128-byte rows) overhanging each edge."""
    f = Forth(backend="cpu")
    f.eval("20 40 F32 MATRIX m  RAMP m  m 8 32 128 TMAP tm  8 32 F32 1 SMEM-TILE-SWZ s")
    f.eval(LOAD.format(nbytes=8 * 32 * 4, x=x, y=y))
    want = numpy_box(f.array("m"), x, y, 8, 32).view(np.uint8).reshape(-1)
    raw = shared_bytes(f, 1024)
    plain = np.arange(1024)
    assert (raw[swizzle128(plain)] == want[plain]).all()


@pytest.mark.parametrize("x,y", [(-4, -2), (11, 7), (0, 0)])
def test_a_plain_box_is_the_numpy_box_row_after_row(x, y):
    f = Forth(backend="cpu")
    f.eval("9 16 BF16 MATRIX m  RAMP m  m 4 8 0 TMAP tm  4 8 BF16 1 SMEM-TILE s")
    f.eval(LOAD.format(nbytes=4 * 8 * 2, x=x, y=y))
    want = numpy_box(f.array("m"), x, y, 4, 8)
    got = shared_bytes(f, 64).view(want.dtype).reshape(4, 8)
    assert (got.astype(np.float32) == want.astype(np.float32)).all()


def test_a_store_writes_only_the_elements_inside_the_array():
    f = Forth(backend="cpu")
    f.eval("8 8 F32 MATRIX m  RAMP m  8 8 F32 MATRIX out  m 4 8 0 TMAP tm  out 4 8 0 TMAP to  "
           "4 8 F32 1 SMEM-TILE s")
    f.eval(LOAD.format(nbytes=128, x=0, y=0))
    f.eval("ELECT IF FENCE-ASYNC 0 s to 4 6 TMA-STORE TMA-WAIT THEN")
    want = np.zeros((8, 8), np.float32)
    want[6:8, 4:8] = f.array("m")[0:2, 0:4]
    assert (f.array("out") == want).all()


def test_reading_a_box_before_its_phase_completed_is_an_error_at_the_read():
    """The TMA-LOAD's bytes completed the transaction count, but the phase still waits for one more arrival
    (count 2): a read of the box then is an error naming the TMA-LOAD and the wait it needs."""
    f = Forth(backend="cpu")
    f.eval("8 8 F32 MATRIX m  RAMP m  m 4 8 0 TMAP tm  4 8 F32 1 SMEM-TILE s  8 SHARED: bar")
    with pytest.raises(ForthError) as e:
        f.eval("1 1 1 THREADS  bar 2 MBAR-INIT  bar 128 MBAR-ARRIVE-TX  0 s tm 0 0 bar TMA-LOAD  0 s 4 + SF@ F.")
    msg = str(e.value)
    assert "SF@" in msg and "before the TMA-LOAD of thread 0" in msg and "MBAR-WAIT" in msg, msg
    out = f.eval("1 1 1 THREADS  bar 2 MBAR-INIT  bar 128 MBAR-ARRIVE-TX  0 s tm 0 0 bar TMA-LOAD  "
                 "bar MBAR-ARRIVE  bar 0 MBAR-WAIT  0 s 4 + SF@ F.")  # after the wait, the data is there
    assert out.strip() == "1."


def test_tmap_refuses_what_the_driver_refuses_and_says_what_to_do():
    f = Forth(backend="cpu")
    f.eval("8 8 F32 MATRIX m  3 5 F32 MATRIX odd")
    for line, part in (("m 4 3 0 TMAP t", "multiple of 16 bytes"), ("m 4 8 128 TMAP t", "128 bytes"),
                       ("m 4 8 96 TMAP t", "0 (none), 128, 64 or 32"), ("m 4 8 64 TMAP t", "a box row is 64 bytes"),
                       ("odd 2 4 0 TMAP t", "rows of a multiple of 16"),
                       ("m 300 4 0 TMAP t", "1 to 256"), ("12345 4 4 0 TMAP t", "not the address of an ARRAY")):
        with pytest.raises(ForthError) as e:
            f.eval(line)
        assert part in str(e.value) and "TMAP" in str(e.value), (line, str(e.value))
    assert "T" not in f.dict


def test_a_tma_load_of_something_that_is_no_tensor_map_is_an_error():
    f = Forth(backend="cpu")
    f.eval("8 8 F32 MATRIX m  4 8 F32 1 SMEM-TILE s  8 SHARED: bar")
    with pytest.raises(ForthError) as e:
        f.eval("1 1 1 THREADS  bar 1 MBAR-INIT  0 s m 0 0 bar TMA-LOAD")
    assert "is not one" in str(e.value) and "TMAP" in str(e.value)


# ---- what the driver is given ---------------------------------------------------------------------------
# cuTensorMapEncodeTiled (CUDA driver API, "Tensor Map Object Management"): CUtensorMapDataType
# FLOAT16 = 6, FLOAT32 = 7, BFLOAT16 = 9; CUtensorMapSwizzle NONE = 0, 128B = 3; CUtensorMapInterleave NONE = 0;
# CUtensorMapFloatOOBfill NONE = 0 (zeros); dimensions innermost first; globalStrides: tensorRank - 1 of them,
# in bytes, multiples of 16; globalAddress 16 aligned; boxDim[i] <= 256, boxDim[0] * element size a multiple
# of 16 bytes (and <= the swizzle span, 128, with 128B); tensorMap 64 aligned.
DOC = {"F16": 6, "F32": 7, "BF16": 9}


@pytest.mark.parametrize("eltype,esize,swz", [("BF16", 2, 128), ("F32", 4, 0), ("F16", 2, 0)])
def test_the_driver_is_given_the_documented_fields(eltype, esize, swz):
    seen = {}

    def encode(tmap, dtype, rank, gaddr, dims, strides, box, estrides, interleave, swizzle, l2, oob):
        seen.update(tmap=tmap.value, dtype=dtype.value, rank=rank.value, gaddr=gaddr.value, dims=list(dims),
                    strides=list(strides), box=list(box), estrides=list(estrides), interleave=interleave.value,
                    swizzle=swizzle.value, l2=l2.value, oob=oob.value)
        ctypes.memset(tmap.value, 0xAB, 128)  # the driver's opaque bytes
        return 0
    cols = 128 // esize if swz else 64
    t = TensorMap(0x7000_0000, 300, 1024, 1024 * esize, eltype, esize, 64, cols, swz)
    data = driver_encode(t, encode)
    assert data == b"\xab" * 128
    assert seen["tmap"] % 64 == 0
    assert seen["dtype"] == DOC[eltype] and seen["rank"] == 2 and seen["gaddr"] == 0x7000_0000
    assert seen["dims"] == [1024, 300] and seen["strides"] == [1024 * esize]
    assert seen["box"] == [cols, 64] and seen["estrides"] == [1, 1]
    assert seen["interleave"] == 0 and seen["oob"] == 0 and seen["swizzle"] == (3 if swz else 0)
    assert seen["l2"] in (0, 1, 2, 3)  # CUtensorMapL2promotion NONE, 64B, 128B, 256B
    assert seen["box"][0] * esize % 16 == 0 and max(seen["box"]) <= 256


def test_a_driver_refusal_is_a_forth_error():
    t = TensorMap(0x7000_0000, 8, 8, 32, "F32", 4, 4, 8, 0)
    with pytest.raises(ForthError) as e:
        driver_encode(t, lambda *args: 1)
    assert "CUresult 1" in str(e.value)


def test_every_block_loads_its_own_box_through_its_own_barrier():
    """8 blocks (on the emulator's workers): block b loads rows 4b..4b+3 and keeps the first row."""
    f = Forth(backend="cpu")
    f.eval("32 8 F32 MATRIX m  RAMP m  m 4 8 0 TMAP tm  4 8 F32 1 SMEM-TILE s  8 SHARED: bar  8 8 F32 MATRIX out")
    f.eval("8 1 1 GRID 32 1 1 THREADS  TID-X 0= IF bar 1 MBAR-INIT MBAR-FENCE THEN BARRIER  ELECT IF bar 128 "
           "MBAR-ARRIVE-TX 0 s tm 0 BID-X 4 * bar TMA-LOAD THEN bar 0 MBAR-WAIT  "
           "TID-X 8 < IF TID-X 4 * 0 s + SF@ BID-X 32 * TID-X 4 * + out + SF! THEN  1 1 1 GRID")
    assert (f.array("out") == f.array("m")[::4]).all()
