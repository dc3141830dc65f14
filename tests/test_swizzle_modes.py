"""The 32- and 64-byte swizzles of Hopper's TMA and wgmma (issue 29), beside the 128-byte one: SMEM-TILE-SWZ64 and
SMEM-TILE-SWZ32, TMAP's swizzle 64 and 32, `64 WGDESC` and `32 WGDESC`, and a kernel file's `swizzled64` and
`swizzled32`. The references: CUTLASS's Swizzle<B, 4, 3> (cute/swizzle.hpp, what its SW32/SW64/SW128 K-major
layouts and TMA use: byte offset o goes to o ^ ((o & (2^B - 1) << 7) >> 3), B = 1, 2, 3), written out here, for
what TMA-LOAD leaves in shared memory; numpy for what WGMMA computes through the descriptors; the PTX ISA's
"Matrix Descriptor Format" for the descriptor's fields and cuda.h for CUtensorMapSwizzle; ptxas for the code."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from standins import standins
from tileforth.backends.cuda.ptx import ptxas, ptxas_path
from tileforth.core import Forth, ForthError
from tileforth.core.session.tensormap import TensorMap
from tileforth.export.kernelfile import parse_kernel_file
from tileforth.export.kernels import word_ptx
from tileforth.export.launcher import kernel_data

needs_ptxas = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")
BBITS = {32: 1, 64: 2, 128: 3}  # CUTLASS: SW32 = Swizzle<1,4,3>, SW64 = Swizzle<2,4,3>, SW128 = Swizzle<3,4,3>
WORD = {32: "SMEM-TILE-SWZ32", 64: "SMEM-TILE-SWZ64", 128: "SMEM-TILE-SWZ"}
SPANS = [32, 64, 128]


def cutlass_swizzle(offset: np.ndarray, span: int) -> np.ndarray:
    """cute::Swizzle<B, 4, 3>::apply: offset ^ ((offset & yyy_msk) >> 3), yyy_msk = (2^B - 1) << 7."""
    msk = ((1 << BBITS[span]) - 1) << 7
    return offset ^ ((offset & msk) >> 3)


def session(n: int = 64) -> Forth:
    f = Forth(backend="cpu")
    f.eval(f"128 1 1 THREADS  BF16 TILE-IN  64 {n} 16 WG-SHAPE  16 SHARED: bar")
    return f


def bf16(rng, shape) -> np.ndarray:
    return rng.integers(-3, 4, shape).astype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("span", SPANS)
@pytest.mark.parametrize("rows", [8, 64])
def test_tma_load_lays_a_box_out_as_cutlass_swizzles_it(span, rows):
    f = session()
    k = span // 2
    a = bf16(np.random.default_rng(span + rows), (rows, k))
    nbytes = rows * span
    f.eval(f"{rows} {k} BF16 MATRIX A  {nbytes} I8 ARRAY OUT  A {rows} {k} {span} TMAP tA  "
           f"{rows} {k} BF16 1 {WORD[span]} sA")
    f.set_array("A", a.astype(np.float64).reshape(-1))
    f.eval(f": go  TID-X 0= IF bar 1 MBAR-INIT MBAR-FENCE THEN BARRIER  TID-X 0= IF bar {nbytes} MBAR-ARRIVE-TX  "
           f"0 sA tA 0 0 bar TMA-LOAD THEN  bar 0 MBAR-WAIT  TID-X 0= IF {nbytes} 0 DO I 0 sA + C@ I OUT + C! LOOP "
           "THEN ; go")
    raw = a.view(np.uint8).reshape(-1)  # the box in row order: byte o = row * span + byte in the row
    want = np.empty_like(raw)
    want[cutlass_swizzle(np.arange(nbytes), span)] = raw
    got = f.array("OUT").astype(np.int64).astype(np.uint8)
    np.testing.assert_array_equal(got, want)
    if span < 128 and rows == 64:  # and not as the 128-byte swizzle would (which 8 rows of 32 bytes cannot tell)
        assert not np.array_equal(got[np.argsort(cutlass_swizzle(np.arange(nbytes), 128))], raw)


@pytest.mark.parametrize("span", SPANS)
def test_tma_store_unswizzles_what_tma_load_swizzled(span):
    f = session()
    k = span // 2
    a = bf16(np.random.default_rng(span), (16, k))
    f.eval(f"16 {k} BF16 MATRIX A  16 {k} BF16 MATRIX B  A 16 {k} {span} TMAP tA  B 16 {k} {span} TMAP tB  "
           f"16 {k} BF16 1 {WORD[span]} sA")
    f.set_array("A", a.astype(np.float64).reshape(-1))
    f.eval(f": go  TID-X 0= IF bar 1 MBAR-INIT MBAR-FENCE THEN BARRIER  TID-X 0= IF bar {16 * span} MBAR-ARRIVE-TX  "
           "0 sA tA 0 0 bar TMA-LOAD THEN  bar 0 MBAR-WAIT  ELECT IF FENCE-ASYNC 0 sA tB 0 0 TMA-STORE TMA-WAIT THEN ; go")
    np.testing.assert_array_equal(f.array("B").reshape(16, k), a.astype(np.float64))


def wgmma(span: int, n: int, seed: int = 0, tamper: str = "") -> tuple[np.ndarray, np.ndarray]:
    """C = A . B^T over one k-block of span/2 columns: both operands TMA-loaded with the swizzle, k16 steps
    through `span WGDESC` (tamper: Forth applied to each A descriptor)."""
    f = session(n)
    k = span // 2
    rng = np.random.default_rng(seed)
    a, b = bf16(rng, (64, k)), bf16(rng, (n, k))
    f.eval(f"64 {k} BF16 MATRIX A  {n} {k} BF16 MATRIX B  64 {n} F32 MATRIX C  A 64 {k} {span} TMAP tA  "
           f"B {n} {k} {span} TMAP tB  64 {k} BF16 1 {WORD[span]} sA  {n} {k} BF16 1 {WORD[span]} sB")
    f.set_array("A", a.astype(np.float64).reshape(-1))
    f.set_array("B", b.astype(np.float64).reshape(-1))
    steps = " ".join(f"0 0 {16 * j} {span} WGDESC sA {tamper} 0 0 {16 * j} {span} WGDESC sB WGMMA"
                     for j in range(k // 16))
    f.eval(f": go  TID-X 0= IF bar 1 MBAR-INIT MBAR-FENCE THEN BARRIER  TID-X 0= IF bar {2 * (64 + n) * k} "
           "MBAR-ARRIVE-TX  0 sA tA 0 0 bar TMA-LOAD  0 sB tB 0 0 bar TMA-LOAD THEN  bar 0 MBAR-WAIT  "
           f"WGZERO {steps} 0 WGMMA-WAIT  C {n} WGSTORE ; go")
    return f.array("C").reshape(64, n), a.astype(np.float32) @ b.astype(np.float32).T


@pytest.mark.parametrize("span", [32, 64])
@pytest.mark.parametrize("n", [64, 128])
def test_wgmma_through_swizzled_descriptors_is_numpys_product(span, n):
    got, want = wgmma(span, n, seed=n + span)
    np.testing.assert_array_equal(got, want)


def test_a_descriptor_of_another_swizzle_reads_the_wrong_bytes():
    """The emulator reads through the descriptor: the 64-byte tile's descriptor made to say 32 bytes (mode 3)
    reads other bytes, as the GPU would."""
    got, want = wgmma(64, 64, tamper="$3FFFFFFFFFFFFFFF AND 3 62 LSHIFT OR")
    assert not np.array_equal(got, want)


@pytest.mark.parametrize("span, mode, sbo", [(128, 1, 1024), (64, 2, 512), (32, 3, 256)])
def test_the_descriptor_fields_are_where_the_ptx_isa_puts_them(span, mode, sbo):
    """PTX ISA, Matrix Descriptor Format: bits 0-13 start >> 4, 16-29 LBO >> 4, 32-45 SBO >> 4, 62-63 the swizzle
    mode (1: 128-byte, 2: 64-byte, 3: 32-byte). A K-major swizzled operand: SBO = 8 rows of `span` bytes."""
    f = session()
    f.eval(f"64 {span // 2} BF16 2 {WORD[span]} sA")
    printed = f.eval(f": d  1 8 0 {span} WGDESC sA ;  : d0  0 0 0 {span} WGDESC sA ;  d DUP 62 RSHIFT .  "
                     "DUP 32 RSHIFT $3FFF AND .  DUP 16 RSHIFT $3FFF AND .  $3FFF AND  d0 $3FFF AND - 4 LSHIFT  "
                     f"1 sA 0 sA - 8 {span} * + - .")
    assert printed.split() == [str(mode), str(sbo >> 4), "1", "0"]  # start: stage 1, row 8 (from stage 0, row 0)


@pytest.mark.parametrize("line, message", [
    ("64 32 BF16 1 SMEM-TILE-SWZ64 t  : d 0 0 0 128 WGDESC t ;",
     "t is 64-byte swizzled (SMEM-TILE-SWZ64), but the descriptor says 128-byte swizzle"),
    ("64 64 BF16 1 SMEM-TILE-SWZ t  : d 0 0 0 64 WGDESC t ;",
     "t is 128-byte swizzled (SMEM-TILE-SWZ), but the descriptor says 64-byte swizzle"),
    ("64 16 BF16 1 SMEM-TILE-SWZ32 t  : d 0 0 0 0 WGDESC t ;", "t is 32-byte swizzled (SMEM-TILE-SWZ32), but the "
     "descriptor says no swizzle"),
    ("64 8 BF16 1 SMEM-TILE t  : d 0 0 0 32 WGDESC t ;", "declare t with SMEM-TILE-SWZ32"),
    ("64 64 BF16 1 SMEM-TILE-SWZ64 t", "a 64-byte swizzle needs rows of 64 bytes (32 BF16), but a row of 64 is 128"),
    ("64 64 BF16 MATRIX m  m 64 64 64 TMAP tm", "with the 64-byte swizzle a box row is 64 bytes (32 BF16), as in "
     "SMEM-TILE-SWZ64, not 64: use a box of 32 columns"),
    ("64 64 BF16 MATRIX m  m 64 64 96 TMAP tm", "the swizzle is 0 (none), 128, 64 or 32"),
])
def test_a_swizzle_that_does_not_fit_is_an_error_that_says_what_to_do(line, message):
    f = session()
    with pytest.raises(ForthError) as err:
        f.eval(line)
    assert message in err.value.message


def test_a_64_or_32_byte_swizzled_tile_has_no_geom_for_stage_tile():
    f = session()
    f.eval("64 32 BF16 1 SMEM-TILE-SWZ64 t  64 64 BF16 1 SMEM-TILE-SWZ u")
    assert "T-GEOM" not in f.dict and "U-GEOM" in f.dict


def test_the_driver_gets_cudas_swizzle_enums():
    """cuda.h: CU_TENSOR_MAP_SWIZZLE_NONE 0, _32B 1, _64B 2, _128B 3; the launcher encodes with the same."""
    got = {s: TensorMap(0, 64, s // 2, s, "BF16", 2, 64, s // 2, s).driver_args()["swizzle"] for s in SPANS}
    assert got == {32: 1, 64: 2, 128: 3}
    from tileforth.export import launchrt
    with standins("cuda"):
        from cuda.bindings import driver as cu
        drv = launchrt._Driver()
        assert cu.cuCtxPushCurrent(cu.cuDevicePrimaryCtxRetain(cu.cuDeviceGet(0)[1])[1])[0] == 0
        for span, enum in ((32, 1), (64, 2), (128, 3), (0, 0)):
            ptr = cu.cuMemAlloc(64 * 64 * 2)[1]
            drv.encode(int(ptr), 9, 64, 64, 128, 64, (span or 128) // 2, span)
            assert cu.tensor_maps[-1]["swizzle"] == enum
            cu.cuMemFree(ptr)
        cu.cuCtxPopCurrent()
        cu.cuDevicePrimaryCtxRelease(cu.cuDeviceGet(0)[1])


def test_kernel_file_headers_name_the_swizzles():
    text = ("\\! kernel k\n\\! param A bf16[64,32]\n\\! tmap tA A 64,32 swizzled64\n"
            "\\! smem As bf16[64,32] 2 swizzled64\n\\! smem Bs bf16[64,16] 1 swizzled32\n1 DROP\n")
    spec = parse_kernel_file(text)
    assert [s.forth for s in spec.setup] == ["64 32 BF16 2 SMEM-TILE-SWZ64 As", "64 16 BF16 1 SMEM-TILE-SWZ32 Bs"]
    assert [s.nbytes for s in spec.setup] == [2 * 4096, 2048]
    assert kernel_data(spec, "")["TMAPS"] == [("tA", "A", 64, 32, 64, 9)]
    with pytest.raises(ForthError, match="with the 32-byte swizzle a box row is 32 bytes"):
        parse_kernel_file(text.replace("64,32 swizzled64", "64,32 swizzled32"))


@needs_ptxas
@pytest.mark.parametrize("span", [32, 64])
def test_ptxas_makes_hgmma_of_the_swizzled_descriptors(span):
    import sass
    f = session(64)
    k = span // 2
    f.eval(f"64 64 F32 MATRIX C  64 {k} BF16 1 {WORD[span]} sA  64 {k} BF16 1 {WORD[span]} sB")
    steps = " ".join(f"0 0 {16 * j} {span} WGDESC sA 0 0 {16 * j} {span} WGDESC sB WGMMA" for j in range(k // 16))
    f.eval(f": gemm  WGZERO {steps} 0 WGMMA-WAIT  C 64 WGSTORE ;")
    ptx = word_ptx(f, "gemm", "sm_90a")
    info = ptxas(ptx, "sm_90a")["gemm"]
    assert info.spill_stores == 0
    ops = sass.opcodes(next(iter(sass.sass(sass.cubin(ptx, "sm_90a")).values())))
    assert ops.count("HGMMA") == k // 16
