"""Tensor-map parameters of kernel files (issue 29, point 2): `\\! tmap NAME ARRAY ROWS,COLS [swizzled]`.

In a session (run_kernel_file, `tileforth run`, a launcher's CPU fallback) the line is TMAP of the run's
array by the dimensions its header gives; the TMA words then copy boxes on the emulator, checked here
against numpy slices. Exported, the map is a pointer parameter after the declared ones, which the
launcher encodes for each call's arrays with cuTensorMapEncodeTiled (the stand-in driver records what it
was asked) and caches by array address and shape; the expected arguments are written out here from the
driver's documentation (dimensions innermost first, strides in bytes, rank - 1 of them).
"""
from __future__ import annotations

import re
import struct

import numpy as np
import pytest
from test_kernelfile_params import guide_example
from test_launcher import DeviceArray, load, side  # noqa: F401 - fixtures
from tileforth.backends.cuda.ptx import ptxas, ptxas_path
from tileforth.core import Forth, ForthError
from tileforth.export.kernelfile import parse_kernel_file, run_kernel_file
from tileforth.export.kernels import kernel_file_ptx

# rows 2..5 of A (a box of 4 x 8 f32 at column 0, row Y0) land in the same rows of OUT
BOX = """\\! kernel boxcopy
\\! param R i32
\\! param A f32[R,8]
\\! param OUT f32[R,8]
\\! tmap tA A 4,8
\\! smem S f32[4,8] 1
\\! shared BAR i64[1]
\\! block 32
: Y0 2 ;
TID-X 0= IF BAR 1 MBAR-INIT MBAR-FENCE THEN BARRIER
ELECT IF BAR 128 MBAR-ARRIVE-TX  0 S tA 0 Y0 BAR TMA-LOAD THEN  BAR 0 MBAR-WAIT
TID-X 4 * 0 S + SF@  TID-X 8 / Y0 + 8 * TID-X 8 MOD + 4 * OUT + SF!
"""


def run_box(f: Forth, a: np.ndarray) -> np.ndarray:
    out = np.zeros_like(a)
    run_kernel_file(f, parse_kernel_file(BOX, "box.fth"), {"A": a, "OUT": out})
    return out


def test_a_box_is_copied_by_tma_in_a_session_as_numpy_slices_it():
    f = Forth(backend="cpu")
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    want = np.zeros_like(a)
    want[2:6] = a[2:6]
    assert np.array_equal(run_box(f, a), want)


def test_a_second_run_maps_the_new_arrays():
    """run_kernel_file is repeatable: each run's map is of that run's arrays (another shape too)."""
    f = Forth(backend="cpu")
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    run_box(f, a)
    b = -np.arange(80, dtype=np.float32).reshape(10, 8)
    want = np.zeros_like(b)
    want[2:6] = b[2:6]
    assert np.array_equal(run_box(f, b), want)


def test_rows_past_the_array_read_as_zeros():
    """R = 4: the box's rows 4 and 5 are outside A, so TMA fills them with zeros (OUT has them too)."""
    text = BOX.replace("OUT f32[R,8]", "OUT f32[8,8]")
    f = Forth(backend="cpu")
    a = np.arange(1, 33, dtype=np.float32).reshape(4, 8)
    out = np.full((8, 8), 7, np.float32)
    run_kernel_file(f, parse_kernel_file(text, "box.fth"), {"A": a, "OUT": out})
    assert np.array_equal(out[2:4], a[2:4]) and np.array_equal(out[4:6], np.zeros((2, 8)))
    assert np.array_equal(out[[0, 1, 6, 7]], np.full((4, 8), 7))


@pytest.mark.parametrize("line, message, col", [
    ("\\! tmap tA A 4", "write `\\! tmap NAME ARRAY ROWS,COLS [swizzled]`", 4),
    ("\\! tmap tA B 4,8", "B is not a parameter", 12),
    ("\\! tmap tA R 4,8", "R is a scalar", 12),
    ("\\! tmap tA A 4,6", "a box row of 6 F32 is 24 bytes", 9),
    ("\\! tmap tA A 4,8 swizzled", "with the 128-byte swizzle a box row is 128 bytes", 9),
    ("\\! tmap tA A 300,8", "a box is 1 to 256 elements", 9),
    ("\\! tmap OUT A 4,8", "duplicate name OUT", 9),
])
def test_a_bad_tmap_line_is_an_error_at_its_place(line, message, col):
    text = BOX.replace("\\! tmap tA A 4,8", line)
    with pytest.raises(ForthError) as exc:
        parse_kernel_file(text, "box.fth")
    assert message in exc.value.message
    assert (exc.value.pos.line, exc.value.pos.col) == (5, col)


def test_a_row_that_tma_cannot_address_is_an_error_of_the_run():
    """Rows of 6 f32 (24 bytes) are no multiple of 16 bytes: TMAP's check, named for the header's map."""
    text = BOX.replace("f32[R,8]", "f32[R,6]").replace("4,8", "4,4").replace("f32[4,8]", "f32[4,4]")
    f = Forth(backend="cpu")
    with pytest.raises(ForthError) as exc:
        run_kernel_file(f, parse_kernel_file(text, "box.fth"), {"A": np.zeros((8, 6), np.float32),
                                                                 "OUT": np.zeros((8, 6), np.float32)})
    assert "tmap tA:" in exc.value.message and "multiple of 16 bytes" in exc.value.message
    assert exc.value.pos.line == 5
    assert f.eval("1 2 + .") == "3 "  # the session goes on


def test_the_exported_entry_takes_the_map_after_the_parameters():
    ptx = kernel_file_ptx(BOX, "sm_90a", "box.fth")
    entry = re.search(r"\.entry boxcopy\(([^)]*)\)", ptx).group(1)
    params = re.findall(r"\.param (\.\w+)", entry)
    assert params == [".u64", ".u32", ".u64", ".u64", ".u64"]  # context, R, A, OUT, tA
    assert "cp.async.bulk.tensor.2d" in ptx and "boxcopy_param_4" in ptx
    if ptxas_path() is not None:
        assert "boxcopy" in ptxas(ptx, "sm_90a")


# ---- the launcher, on the stand-in driver ---------------------------------------------------------------
def words(cu, ptr: int) -> dict:
    """The stand-in's encoding of the map at ptr (device memory), by field."""
    raw = np.frombuffer(bytes(cu.view(ptr, 128)), np.uint64)
    assert int(raw[0]) == cu.TENSOR_MAP_MAGIC
    return dict(zip(cu.TENSOR_MAP_WORDS[1:], (int(w) for w in raw[1:])))


def test_the_launcher_encodes_the_map_of_the_call_and_caches_it(load, side):  # noqa: F811 - fixtures
    cu = side.cu
    mod = load(BOX, "box")
    a = DeviceArray(side, np.arange(64, dtype=np.float32).reshape(8, 8))
    out = DeviceArray(side, np.zeros((8, 8), np.float32))
    cu.tensor_maps.clear()
    mod.boxcopy(A=a, OUT=out)
    launch = cu.launches[-1]
    tmap_ptr = struct.unpack("Q", launch.raw[-1])[0]
    # cuTensorMapEncodeTiled(FLOAT32, rank 2, A, globalDim {8 cols, 8 rows}, globalStrides {32 bytes},
    # boxDim {8, 4}, elementStrides {1, 1}, INTERLEAVE_NONE, SWIZZLE_NONE, L2_PROMOTION_L2_128B, OOB_FILL_NONE)
    want = {"dtype": 7, "rank": 2, "address": a.ptr, "dim0": 8, "dim1": 8, "stride0": 32, "box0": 8, "box1": 4,
            "estride0": 1, "estride1": 1, "interleave": 0, "swizzle": 0, "l2promotion": 2, "oobfill": 0}
    assert cu.tensor_maps == [want] and words(cu, tmap_ptr) == want
    assert tmap_ptr % 64 == 0
    mod.boxcopy(A=a, OUT=out)  # the same array: the map is not encoded again
    assert len(cu.tensor_maps) == 1 and struct.unpack("Q", cu.launches[-1].raw[-1])[0] == tmap_ptr
    b = DeviceArray(side, np.zeros((16, 8), np.float32))
    out2 = DeviceArray(side, np.zeros((16, 8), np.float32))
    mod.boxcopy(A=b, OUT=out2)  # another array, another shape: a map of its own
    assert cu.tensor_maps[-1] == {**want, "address": b.ptr, "dim1": 16}
    assert ("context", 0) not in cu.syncs and not [s for s in cu.syncs if s[0] == "context"]
    mod.check()
    mod.close()


def test_the_least_recently_used_map_is_reused_when_the_cache_is_full(load, side, monkeypatch):  # noqa: F811
    cu = side.cu
    mod = load(BOX, "box")
    monkeypatch.setattr(mod, "MAPS_MAX", 2)
    arrays = [DeviceArray(side, np.zeros((8, 8), np.float32)) for _ in range(3)]
    out = DeviceArray(side, np.zeros((8, 8), np.float32))
    ptrs = []
    for a in arrays:
        mod.boxcopy(A=a, OUT=out)
        ptrs.append(struct.unpack("Q", cu.launches[-1].raw[-1])[0])
    assert ptrs[2] == ptrs[0] and ptrs[1] != ptrs[0]  # the third map took the first one's memory
    assert words(cu, ptrs[2])["address"] == arrays[2].ptr
    mod.check()
    mod.close()


def test_the_launcher_refuses_rows_tma_cannot_address(load, side):  # noqa: F811
    text = BOX.replace("f32[R,8]", "f32[R,C]").replace("\\! param R i32", "\\! param R i32\n\\! param C i32")
    mod = load(text, "box")
    a = DeviceArray(side, np.zeros((8, 6), np.float32))
    with pytest.raises(ValueError, match="multiple of 16 bytes"):
        mod.boxcopy(A=a, OUT=DeviceArray(side, np.zeros((8, 6), np.float32)))
    mod.close()


def test_the_cpu_fallback_runs_the_map_on_the_emulator(load, side):  # noqa: F811
    mod = load(BOX, "box")
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = np.zeros_like(a)
    mod.boxcopy(A=a, OUT=out, device="cpu")
    assert np.array_equal(out[2:6], a[2:6]) and not out[[0, 1, 6, 7]].any()
    mod.close()


MULTI = """\\! kernel scale2d
\\! param R i32
\\! param C i32
\\! param M f32[R,C]
GLOBAL-ID R C * < IF GLOBAL-ID 4 * M + DUP SF@ 2e F* SF! THEN
"""


def test_a_launcher_takes_a_two_dimensional_array_by_its_shape(load, side):  # noqa: F811
    """R and C come from the array's shape (they were a crash of the launcher before)."""
    mod = load(MULTI, "scale2d")
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    mod.scale2d(M=m, device="cpu")
    assert np.array_equal(m, np.arange(12, dtype=np.float32).reshape(3, 4) * 2)
    dev = DeviceArray(side, np.zeros((3, 4), np.float32))
    mod.scale2d(M=dev)
    raw = side.cu.launches[-1].raw
    assert struct.unpack("i", raw[1][:4])[0] == 3 and struct.unpack("i", raw[2][:4])[0] == 4
    with pytest.raises(TypeError, match="flat: give R"):
        mod.scale2d(M=DeviceArray(side, np.zeros(12, np.float32)))
    mod.scale2d(M=DeviceArray(side, np.zeros(12, np.float32)), R=3, C=4)
    with pytest.raises(ValueError, match="needs 12 elements, but has 10"):
        mod.scale2d(M=DeviceArray(side, np.zeros(10, np.float32)), R=3, C=4)
    mod.check()
    mod.close()


def test_the_guide_example_gives_what_its_comment_says():
    """docs/kernel-files.md, "Parameters", the tensor-map example, run as a user would copy it."""
    scope = guide_example("tmap tA")
    np.testing.assert_array_equal(scope["out"], scope["a"][2:6])  # the box: rows 2 to 5
