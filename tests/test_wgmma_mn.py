"""MN-major (transposed) wgmma operands (issue 29): WGDESC-MN's descriptor fields against CUTLASS's canonical
MN-major layouts (written out below), the emulator's C = A . B for B stored K x N (N contiguous) and for A stored
K x M, exact against numpy for integer-valued inputs, a descriptor that does not match the bytes giving the wrong
answer the hardware would compute, the compile-time checks, and the PTX's imm-trans-b accepted by ptxas for
sm_90a with HGMMA ... .tnspB in the SASS."""
from __future__ import annotations

import re

import numpy as np
import pytest
import sass
from test_wgmma import ISA_SWIZZLE, _ptxas, isa_encode, isa_field, swizzled_image
from tileforth.core import Forth, ForthError
from tileforth.export.kernels import word_ptx

# ---- the layout facts, with their source ------------------------------------------------------------------
# NVIDIA CUTLASS, include/cute/atom/mma_traits_sm90_gmma.hpp (commit 7107b05, make_gmma_desc<Major::MN>):
#   "In units of uint128_t, each GmmaDescriptor Major-MN describes a canonical layout of the form
#      LayoutType::INTERLEAVE : Swizzle<0,4,3> o smem_ptr o ((1,n),(8,k)):((X,SBO),(1,LBO))
#      LayoutType::B32        : Swizzle<1,4,3> o smem_ptr o ((2,n),(8,k)):((1,LBO),(2,SBO))
#      LayoutType::B64        : Swizzle<2,4,3> o smem_ptr o ((4,n),(8,k)):((1,LBO),(4,SBO))
#      LayoutType::B128       : Swizzle<3,4,3> o smem_ptr o ((8,n),(8,k)):((1,LBO),(8,SBO))"
#   and for a swizzled layout desc.stride_byte_offset_ = stride<1,1> (the K mode's outer stride),
#   desc.leading_byte_offset_ = stride<0,1> (the MN mode's outer stride); K per dense GMMA = 256 / bits = 16.
#   Layout_MN_SW128_Atom_Bits = Swizzle<3,4,3> o Layout<Shape<_1024,_8>,Stride<_1,_1024>>: 64 16-bit
#   elements of MN contiguous (128 bytes), 8 of K at 128 bytes.
# So, in bytes, for a W-byte swizzle (W = 16 * the chunk count) and 16-bit elements, element (mn, k) is at
#   start + (mn // (W/2)) * LBO + (k // 8) * SBO + (k % 8) * W + 2 * (mn % (W/2)), then Swizzle<B,4,3>:
#   bits 4.. xor bits 7.. (B bits; 2^B = W/16).
# The swizzle on the address is the tile's own (SMEM-TILE-SWZ: test_wgmma.swizzled_image).
# The PTX ISA says the same of LBO (9.7.16.3.1.1, tcgen05's "Major-ness supported by Strides", the descriptor
# wgmma shares; 9.7.15.5.1.2 for wgmma: imm-trans-b = 1 means N-major B), for elements normalised to 128 bits:
#   "MN-Major | Interleave: stride from the first 8 columns to the next 8 columns. Swizzled layouts: stride
#    from the first (swizzle-byte-size/16) rows to the next (swizzle-byte-size/16) rows."
#   i.e. for a swizzled MN-major operand LBO is the step of W bytes of MN: the next panel.


def cutlass_mn_offset(mn: int, k: int, start: int, lbo: int, sbo: int, w: int) -> int:
    a = start + (mn // (w // 2)) * lbo + (k // 8) * sbo + (k % 8) * w + 2 * (mn % (w // 2))
    bits = {32: 1, 64: 2, 128: 3}[w]
    return a ^ (((a >> 7) & ((1 << bits) - 1)) << 4)


def _session(n: int, b_rows: int) -> Forth:
    f = Forth(backend="cpu")
    f.eval(f"128 1 1 THREADS  BF16 TILE-IN  64 {n} 16 WG-SHAPE  64 64 BF16 MATRIX A  {b_rows} 64 BF16 MATRIX B  "
           f"64 {n} F32 MATRIX C  64 64 BF16 1 SMEM-TILE-SWZ sA  {b_rows} 64 BF16 1 SMEM-TILE-SWZ sB")
    return f


STAGE = "A 128 0 sA sA-GEOM STAGE-TILE  B 128 0 sB sB-GEOM STAGE-TILE  CP.COMMIT 0 CP.WAIT BARRIER FENCE-ASYNC "
MN_LOOP = ("0 0 0 128 WGDESC sA  0 0 0 128 WGDESC-MN sB  WGMMA  4 1 DO  0 0 I 16 * 128 WGDESC sA  "
           "0 I 16 * 0 128 WGDESC-MN sB  WGMMA  LOOP ")


def _ints(shape, seed):
    return np.random.default_rng(seed).integers(-4, 5, shape).astype(np.float32)


def panels(b: np.ndarray) -> np.ndarray:
    """B (K x N) as the tile holds it: 64-column panels of all K rows, one under another."""
    return np.vstack([b[:, j:j + 64] for j in range(0, b.shape[1], 64)])


@pytest.mark.parametrize("n", [64, 128])
def test_b_mn_major_is_a_times_b(n):
    """B stored K x N row-major (N contiguous), 64 x n: C = A . B exactly (K = 64: four k16 steps)."""
    f = _session(n, 64 * (n // 64))
    a, b = _ints((64, 64), n), _ints((64, n), n + 1)
    f.set_array("A", a)
    f.set_array("B", panels(b))
    f.eval(f": gemm {STAGE} WGZERO {MN_LOOP} 0 WGMMA-WAIT C {n} WGSTORE ;  gemm")
    np.testing.assert_array_equal(f.array("C"), a @ b)


def test_the_mn_descriptor_fields_are_cutlass_s_canonical_layout():
    """SBO: the next 8 rows of K (8 x 128 bytes); LBO: the next 64-column panel (the panel's rows x 128); the start
    the row of K; the swizzle mode 1; and those fields, read as CUTLASS's layout, address the tile's own bytes."""
    f = Forth(backend="cpu")
    f.eval("BF16 TILE-IN  64 128 16 WG-SHAPE  64 64 BF16 1 SMEM-TILE pad  128 64 BF16 2 SMEM-TILE-SWZ sB")
    base = int(f.eval("0 sB 0 pad - .").split()[0])
    stage_bytes = 128 * 128
    for stage, row, col in [(0, 0, 0), (1, 16, 0), (0, 48, 64), (1, 32, 64)]:
        desc = int(f.eval(f"{stage} {row} {col} 128 WGDESC-MN sB .").split()[0]) & (2 ** 64 - 1)
        start = base + stage * stage_bytes + (col // 64) * 64 * 128 + row * 128
        assert isa_field(desc, "start") == isa_encode(start)
        assert isa_field(desc, "sbo") == isa_encode(8 * 128)
        assert isa_field(desc, "lbo") == isa_encode(64 * 128)  # two panels of 64 rows of K
        assert isa_field(desc, "swizzle") == ISA_SWIZZLE[128] and isa_field(desc, "base") == 0
    # the fields read as CUTLASS's layout land on B's elements in the tile (its image: panels, swizzled rows)
    b = np.arange(64 * 128, dtype=np.int64).reshape(64, 128)  # element ids, K x N
    image = swizzled_image(panels(b)).ravel()  # 16-bit words of one stage
    for k0 in (0, 16, 48):
        for mn in range(0, 128, 7):
            for k in range(16):
                off = cutlass_mn_offset(mn, k, k0 * 128, 64 * 128, 1024, 128)
                assert image[off // 2] == b[k0 + k, mn]


def test_a_mn_major_too():
    """A stored K x M (M contiguous, A^T row-major) in a SMEM-TILE-SWZ, B K x N: C = A . B."""
    n = 64
    f = _session(n, 64)
    a, b = _ints((64, 64), 7), _ints((64, n), 8)
    f.set_array("A", np.ascontiguousarray(a.T))
    f.set_array("B", b)
    f.eval(f": gemm {STAGE} WGZERO 0 0 0 128 WGDESC-MN sA 0 0 0 128 WGDESC-MN sB WGMMA  4 1 DO  "
           f"0 I 16 * 0 128 WGDESC-MN sA 0 I 16 * 0 128 WGDESC-MN sB WGMMA LOOP 0 WGMMA-WAIT C {n} WGSTORE ;  gemm")
    np.testing.assert_array_equal(f.array("C"), a @ b)


def test_a_descriptor_that_does_not_match_the_bytes_gives_the_hardwares_wrong_answer():
    """B held K-major (N x K, as WGDESC reads it) but described with WGDESC-MN: the MN-major reading of those bytes
    is B's image read as K x N, which numpy computes from the bytes; and the K-major WGDESC of the same bytes is right."""
    n = 64
    f = _session(n, 64)
    a, bt = _ints((64, 64), 3), _ints((n, 64), 4)  # bt: B^T, N x K
    f.set_array("A", a)
    f.set_array("B", bt)
    one = "0 0 0 128 WGDESC sA 0 0 0 128 WGDESC{} sB WGMMA 0 WGMMA-WAIT C 64 WGSTORE"
    f.eval(f": wrong {STAGE} WGZERO {one.format('-MN')} ;  wrong")
    got = f.array("C").copy()
    assert not np.array_equal(got, a[:, :16] @ bt[:, :16].T)
    np.testing.assert_array_equal(got, a[:, :16] @ bt[:16, :])  # rows of the tile read as K, columns as N
    f.eval(f": right {STAGE} WGZERO {one.format('')} ;  right")
    np.testing.assert_array_equal(f.array("C"), a[:, :16] @ bt[:, :16].T)


def test_mn_descriptors_are_checked_when_compiled():
    f = Forth(backend="cpu")
    f.eval("BF16 TILE-IN  64 128 16 WG-SHAPE  64 64 BF16 1 SMEM-TILE plain  72 64 BF16 1 SMEM-TILE-SWZ odd  "
           "128 64 BF16 1 SMEM-TILE-SWZ ok  64 32 BF16 1 SMEM-TILE-SWZ64 s64  128 32 BF16 1 SMEM-TILE-SWZ64 b64")
    cases = [(": d 0 0 0 128 WGDESC-MN plain ;", "SMEM-TILE-SWZ"), (": d 0 0 0 0 WGDESC-MN plain ;", "128 WGDESC-MN"),
             (": d 0 0 0 128 WGDESC-MN odd ;", "2 panels"), (": d 0 0 0 64 WGDESC-MN ok ;", "128-byte swizzled"),
             (": d 0 0 DUP WGDESC-MN ok ;", "literal swizzle"), (": d 0 0 0 128 WGDESC-MN DUP ;", "not a SMEM-TILE")]
    for src, says in cases:
        with pytest.raises(ForthError) as e:
            f.eval(src)
        assert says in e.value.message, (src, e.value.message)
        assert e.value.pos is not None
    # an MN-major A needs its 64 rows in one 128-byte row; B's panels follow the WG-SHAPE it was built under
    f.eval("128 1 1 THREADS")
    for src, says in ((": d WGZERO 0 0 0 64 WGDESC-MN b64 0 0 0 128 WGDESC-MN ok WGMMA 0 WGMMA-WAIT TDROP ;", "A's"),
                      (": d 0 0 0 128 WGDESC-MN ok  [ 64 64 16 WG-SHAPE ] WGZERO 0 0 0 128 WGDESC ok SWAP WGMMA "
                       "0 WGMMA-WAIT TDROP ;", "same WG-SHAPE")):
        with pytest.raises(ForthError) as e:
            f.eval(src)
        assert says in e.value.message and e.value.word == "WGMMA", (src, e.value.message)
    assert "D" not in f.dict


def test_a_descriptor_whose_origin_the_compiler_cannot_see_is_refused_beside_mn_major_ones():
    """The transpose flag is an immediate of the instruction: WGMMA takes it from the WGDESC-MN it sees; a descriptor
    through the return stack (or arithmetic) in a kernel that builds MN-major ones is a ForthError at WGMMA, not a
    silent K-major read; in a kernel with none, it is K-major as before (test_wgmma's tampered descriptors)."""
    f = _session(64, 64)
    f.eval("128 1 1 THREADS")
    for src in (": d2 0 0 0 128 WGDESC-MN sB ;  : h2 WGZERO d2 >R 0 0 0 128 WGDESC sA R> WGMMA 0 WGMMA-WAIT TDROP ;",
                ": h3 WGZERO 0 0 0 128 WGDESC sA 0 0 0 128 WGDESC-MN sB 0 OR WGMMA 0 WGMMA-WAIT TDROP ;"):
        with pytest.raises(ForthError) as e:
            f.eval(src)
        assert e.value.word == "WGMMA" and "cannot see where B's descriptor" in e.value.message, e.value.message
    f.eval(": k2 WGZERO 0 0 0 128 WGDESC sA 0 0 0 128 WGDESC sB >R R> WGMMA 0 WGMMA-WAIT TDROP ;")
    assert re.findall(r"p, 1, 1, \d, \d", word_ptx(f, "k2", "sm_90a")) == ["p, 1, 1, 0, 0"]
    f.eval(": k3 WGZERO 0 0 0 128 WGDESC sA 0 0 0 128 WGDESC-MN sB WGMMA 0 WGMMA-WAIT TDROP ;")
    assert re.findall(r"p, 1, 1, \d, \d", word_ptx(f, "k3", "sm_90a")) == ["p, 1, 1, 0, 1"]


# ---- the GPU code: imm-trans-b, ptxas for sm_90a, .tnspB in the SASS -------------------------------------
@pytest.mark.parametrize("which,flags,tnsp", [("b", "0, 1", (".tnspB",)), ("ab", "1, 1", (".tnspA", ".tnspB"))])
def test_ptxas_accepts_the_transposed_wgmma_and_the_sass_reads_tnsp(which, flags, tnsp):
    f = _session(64, 64)
    adesc = "WGDESC-MN" if "a" in which else "WGDESC"
    a_at = "0 I 16 * 0" if "a" in which else "0 0 I 16 *"
    f.eval(f": gemm {STAGE} WGZERO 4 0 DO {a_at} 128 {adesc} sA 0 I 16 * 0 128 WGDESC-MN sB WGMMA 0 WGMMA-WAIT LOOP "
           "C 64 WGSTORE ;")
    ptx = word_ptx(f, "gemm", "sm_90a")
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16") == 4
    assert all(line.rstrip().endswith(f"p, 1, 1, {flags};") for line in re.findall(r"wgmma\.mma_async[^\n]*", ptx))
    log, cubin = _ptxas(ptx)
    assert "C7510" not in log, log
    hgmma = [str(i) for i in next(iter(sass.sass(cubin).values())) if i.base == "HGMMA"]
    assert len(hgmma) >= 4 and all(all(t in h for t in tnsp) for h in hgmma), hgmma
    if "a" not in which:
        assert not any(".tnspA" in h for h in hgmma)


# ---- on a Hopper GPU (skipped without one): the emulator's numbers -----------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("n", [64, 128])
def test_on_a_hopper_gpu_b_mn_major_is_a_times_b_as_on_the_emulator(n):
    from test_wgmma import _hopper
    f = _hopper()
    if f is None:
        pytest.skip("needs a Hopper GPU (compute capability 9.0) and the cuda backend")
    try:
        a, b = _ints((64, 64), n), _ints((64, n), n + 1)
        results = []
        for be in (f, _session(n, 64 * (n // 64))):
            if be is f:
                be.eval(f"128 1 1 THREADS  BF16 TILE-IN  64 {n} 16 WG-SHAPE  64 64 BF16 MATRIX A  {64 * (n // 64)} 64 "
                        f"BF16 MATRIX B  64 {n} F32 MATRIX C  64 64 BF16 1 SMEM-TILE-SWZ sA  {64 * (n // 64)} 64 BF16 1 "
                        "SMEM-TILE-SWZ sB")
            be.set_array("A", a)
            be.set_array("B", panels(b))
            be.eval(f": gemm {STAGE} WGZERO {MN_LOOP} 0 WGMMA-WAIT C {n} WGSTORE ;  gemm")
            results.append(be.array("C").copy())
        np.testing.assert_array_equal(results[0], a @ b)
        np.testing.assert_array_equal(results[0], results[1])
    finally:
        f.backend.close()


# ---- the 32- and 64-byte swizzles, through TMA: panels of W/2 columns ----------------------------------------
SWZ_WORD = {32: "SMEM-TILE-SWZ32", 64: "SMEM-TILE-SWZ64", 128: "SMEM-TILE-SWZ"}


@pytest.mark.parametrize("span", [32, 64, 128])
@pytest.mark.parametrize("n", [64, 128])
def test_b_mn_major_through_tma_boxes_of_each_swizzle(span, n):
    """K = span/2. B (K x N, N contiguous) TMA-loaded as N/(span/2) boxes of K x span/2, each into a panel of the tile,
    one under another (TMA writes the tile's swizzle; a box starts 1024-aligned, so a panel is at least 1024 bytes:
    LBO is then more than K rows); A K-major: C = A . B exactly."""
    k, per = span // 2, span // 2
    prow = max(k, 1024 // span)  # rows of a panel
    npanels = n // per
    rng = np.random.default_rng(span + n)
    a, b = rng.integers(-3, 4, (64, k)).astype(np.float32), rng.integers(-3, 4, (k, n)).astype(np.float32)
    f = Forth(backend="cpu")
    f.eval(f"128 1 1 THREADS  BF16 TILE-IN  64 {n} 16 WG-SHAPE  16 SHARED: bar  64 {k} BF16 MATRIX A  {k} {n} BF16 "
           f"MATRIX B  64 {n} F32 MATRIX C  A 64 {k} {span} TMAP tA  B {k} {per} {span} TMAP tB  "
           f"64 {k} BF16 1 {SWZ_WORD[span]} sA  {npanels * prow} {per} BF16 1 {SWZ_WORD[span]} sB")
    f.set_array("A", a)
    f.set_array("B", b)
    loads = " ".join(f"0 sB {p * prow * span} + tB {p * per} 0 bar TMA-LOAD" for p in range(npanels))
    steps = " ".join(f"0 0 {16 * j} {span} WGDESC sA 0 {16 * j} 0 {span} WGDESC-MN sB WGMMA" for j in range(k // 16))
    f.eval(f": go  TID-X 0= IF bar 1 MBAR-INIT MBAR-FENCE THEN BARRIER  TID-X 0= IF bar {2 * (64 * k + k * n)} "
           f"MBAR-ARRIVE-TX  0 sA tA 0 0 bar TMA-LOAD  {loads} THEN  bar 0 MBAR-WAIT  WGZERO {steps} 0 WGMMA-WAIT "
           f"C {n} WGSTORE ; go")
    np.testing.assert_array_equal(f.array("C"), a @ b)
