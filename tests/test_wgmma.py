"""Warpgroup MMA (issue 29, point 1; points 4 and 5 for wgmma): WG-SHAPE WGZERO WGDESC WGMMA WGMMA-WAIT WGSTORE
WGLANE@ WGLANE! WGROW WGCOL, on the emulator against numpy, their descriptors and D layout against the PTX ISA's
tables (written out below, not taken from the code), the pending accumulator caught at compile time, a wrong
descriptor giving the wrong answer the hardware would give, and the PTX accepted by ptxas for sm_90a with HGMMA in
the SASS and no serialisation warning (C7510)."""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
import sass
from standins import drv  # noqa: F401 - drv: the fixture (the cuda stand-in)
from tileforth.core import Forth, ForthError
from tileforth.export.kernels import word_ptx

# ---- the PTX ISA, written out -------------------------------------------------------------------------
# "Matrix Descriptor Format" (wgmma, 64 bits):
#   bits 13-0   matrix-descriptor-encode(matrix start address)
#   bits 29-16  matrix-descriptor-encode(leading dimension byte offset)
#   bits 45-32  matrix-descriptor-encode(stride dimension byte offset)
#   bits 51-49  matrix base offset (0 when the start is aligned to the swizzle pattern)
#   bits 63-62  swizzle mode: 0 no swizzle, 1 128-byte, 2 64-byte, 3 32-byte
# where matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4
ISA_DESC = {"start": (0, 14), "lbo": (16, 14), "sbo": (32, 14), "base": (49, 3), "swizzle": (62, 2)}
ISA_SWIZZLE = {0: 0, 128: 1, 64: 2, 32: 3}


def isa_field(desc: int, name: str) -> int:
    lo, width = ISA_DESC[name]
    return (desc >> lo) & ((1 << width) - 1)


def isa_encode(x: int) -> int:
    return (x & 0x3FFFF) >> 4


# "Register fragment D of wgmma .m64nNk16" (f32 accumulator): a thread holds N/2 elements d0..; with
# %warpid the warp's rank in the warpgroup, groupID = %laneid >> 2, threadID_in_group = %laneid % 4:
#   row = 16 * %warpid + groupID          for d_i with i % 4 in {0, 1}
#         16 * %warpid + groupID + 8      for i % 4 in {2, 3}
#   col = 8 * (i / 4) + threadID_in_group * 2 + (i % 2)
def isa_d(thread: int, i: int) -> tuple[int, int]:
    warp, lane = (thread // 32) % 4, thread % 32
    group, tig = lane >> 2, lane % 4
    row = 16 * warp + group + (8 if i % 4 in (2, 3) else 0)
    return row, 8 * (i // 4) + tig * 2 + i % 2


# The 128-byte swizzle of a tile of 128-byte rows (CUTLASS Swizzle<3,4,3>, TMA's SWIZZLE_128B): the 16-byte
# chunk c of row r is stored at chunk c xor (r mod 8).
def swizzled_image(m: np.ndarray) -> np.ndarray:
    """The bytes (as 16-bit elements) of a rows x 64 matrix in a 128-byte-swizzled tile."""
    rows = m.shape[0]
    out = np.zeros_like(m)
    for r in range(rows):
        for c in range(8):
            out[r, 8 * (c ^ (r % 8)):8 * (c ^ (r % 8)) + 8] = m[r, 8 * c:8 * c + 8]
    return out


def _session(n: int) -> Forth:
    f = Forth(backend="cpu")
    f.eval(f"128 1 1 THREADS  BF16 TILE-IN  64 {n} 16 WG-SHAPE  64 64 BF16 MATRIX A  {n} 64 BF16 MATRIX B  "
           f"64 {n} F32 MATRIX C  64 64 BF16 1 SMEM-TILE-SWZ sA  {n} 64 BF16 1 SMEM-TILE-SWZ sB")
    return f


STAGE = "A 128 0 sA sA-GEOM STAGE-TILE  B 128 0 sB sB-GEOM STAGE-TILE  CP.COMMIT 0 CP.WAIT BARRIER FENCE-ASYNC "
K_LOOP = ("0 0 0 128 WGDESC sA  0 0 0 128 WGDESC sB  WGMMA  4 1 DO  0 0 I 16 * 128 WGDESC sA  0 0 I 16 * 128 WGDESC sB "
          "WGMMA  LOOP ")


def _inputs(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.integers(-4, 5, (64, 64)).astype(np.float32), rng.integers(-4, 5, (n, 64)).astype(np.float32))


@pytest.mark.parametrize("n", [8, 64, 128, 256])
def test_d_is_a_times_b_for_m64nNk16(n):
    """Four WGMMAs (K = 64) from 128-byte-swizzled tiles staged by cp.async: C = A . B^T (B stored N x K) exactly."""
    f = _session(n)
    a, b = _inputs(n, n)
    f.set_array("A", a)
    f.set_array("B", b)
    f.eval(f": gemm {STAGE} WGZERO {K_LOOP} 0 WGMMA-WAIT C {n} WGSTORE ;  gemm")
    np.testing.assert_array_equal(f.array("C"), a @ b.T)


def test_the_descriptor_fields_are_the_isa_table():
    f = Forth(backend="cpu")
    f.eval("BF16 TILE-IN  64 64 BF16 1 SMEM-TILE pad  64 64 BF16 3 SMEM-TILE-SWZ sA")
    base = int(f.eval("0 sA 0 pad - .").split()[0])  # sA's stage 0 in the shared window
    stage_bytes = 64 * 128
    for stage, row, col in [(0, 0, 0), (1, 8, 16), (2, 56, 48), (1, 0, 32)]:
        desc = int(f.eval(f"{stage} {row} {col} 128 WGDESC sA .").split()[0]) & (2 ** 64 - 1)
        start = base + stage * stage_bytes + row * 128 + col * 2
        assert isa_field(desc, "start") == isa_encode(start)
        assert isa_field(desc, "sbo") == isa_encode(1024)  # 8 rows of 128 bytes: the next 8-row atom
        assert isa_field(desc, "lbo") == isa_encode(16)  # unused by a swizzled K-major operand
        assert isa_field(desc, "base") == 0
        assert isa_field(desc, "swizzle") == ISA_SWIZZLE[128]
        assert desc & ~sum(((1 << w) - 1) << lo for lo, w in ISA_DESC.values()) == 0  # reserved bits clear
    f.eval("16 8 BF16 1 SMEM-TILE core")  # no swizzle: 16-byte rows in core-matrix order
    desc = int(f.eval("0 8 0 0 WGDESC core .").split()[0])
    assert isa_field(desc, "swizzle") == ISA_SWIZZLE[0]
    assert (isa_field(desc, "lbo"), isa_field(desc, "sbo")) == (isa_encode(128), isa_encode(256))


def test_wgrow_wgcol_are_the_isa_d_layout():
    f = _session(64)
    f.eval("128 64 I64 MATRIX P  : places 32 0 DO I WGROW THREAD-ID 64 * I 2 * + 8 * P + !  "
           "I WGCOL THREAD-ID 64 * I 2 * 1+ + 8 * P + ! LOOP ;  places")
    got = f.array("P")
    for t in range(128):
        assert [tuple(got[t, 2 * i:2 * i + 2]) for i in range(32)] == [isa_d(t, i) for i in range(32)], t


def test_each_threads_elements_are_at_the_isa_places():
    """After a WGMMA, element i of thread t (WGLANE@) is C[isa_d(t, i)] of the numpy product."""
    n = 16
    f = _session(n)
    a, b = _inputs(n, 3)
    f.set_array("A", a)
    f.set_array("B", b)
    f.eval("128 8 F32 MATRIX L")
    f.eval(f": lanes {STAGE} WGZERO {K_LOOP} 0 WGMMA-WAIT  8 0 DO I WGLANE@ THREAD-ID 8 * I + 4 * L + SF! LOOP TDROP ;"
           "  lanes")
    got = f.array("L")
    want = a @ b.T
    for t in range(128):
        for i in range(n // 2):
            assert got[t, i] == want[isa_d(t, i)], (t, i)


def test_wglane_store_sets_one_element():
    n = 8
    f = _session(n)
    f.eval(": put WGZERO  THREAD-ID 37 = IF 5e 3 WGLANE! THEN  C 8 WGSTORE ;  put")
    c = f.array("C")
    r, col = isa_d(37, 3)
    assert c[r, col] == 5.0 and np.count_nonzero(c) == 1


def test_a_wrong_descriptor_reads_what_the_gpu_would():
    """The A descriptor with its swizzle bits cleared reads the swizzled bytes as a plain layout (start + (r/8)
    SBO + (k/8) LBO + (r mod 8) 16 + 2 (k mod 8), the ISA's no-swizzle layout): a wrong answer, the one the hardware
    computes, modelled here from the bytes in numpy."""
    n = 8
    f = _session(n)
    a, b = _inputs(n, 5)
    f.set_array("A", a)
    f.set_array("B", b)
    clear = (1 << 62) - 1
    f.eval(f": bad {STAGE} WGZERO 0 0 0 128 WGDESC sA {clear} AND  0 0 0 128 WGDESC sB WGMMA 0 WGMMA-WAIT "
           f"C {n} WGSTORE ;  bad")
    got = f.array("C")
    assert not np.array_equal(got, a[:, :16] @ b[:, :16].T)
    image = swizzled_image(a).ravel()  # sA's bytes as 16-bit elements
    lbo, sbo = 16, 1024
    wrong_a = np.array([[image[((r // 8) * sbo + (k // 8) * lbo + (r % 8) * 16 + (k % 8) * 2) // 2] for k in range(16)]
                        for r in range(64)])
    np.testing.assert_array_equal(got, wrong_a @ b[:, :16].T)


def test_a_pending_accumulator_is_caught_at_the_word():
    f = _session(64)
    for use, word in (("C 64 WGSTORE", "WGSTORE"), ("0 WGLANE@ F. TDROP", "WGLANE@"), ("TDUP TDROP TDROP", "TDUP"),
                      ("TDROP", "TDROP")):
        src = f"WGZERO 0 0 0 128 WGDESC sA 0 0 0 128 WGDESC sB WGMMA {use}"
        with pytest.raises(ForthError) as e:
            f.eval(src)
        assert e.value.word == word
        assert e.value.pos is not None and e.value.pos.col == src.index(word, src.index("WGMMA ") + 5) + 1
        assert "0 WGMMA-WAIT" in e.value.message and "pending" in e.value.message
    assert f.eval("WGZERO 0 0 0 128 WGDESC sA 0 0 0 128 WGDESC sB WGMMA 0 WGMMA-WAIT C 64 WGSTORE") is not None


def test_a_wait_covers_all_but_the_newest_groups():
    """A WGMMA into each of two accumulators: `1 WGMMA-WAIT` completes the older, the newer stays pending."""
    f = _session(64)
    mm = "0 0 0 128 WGDESC sA 0 0 0 128 WGDESC sB WGMMA"
    with pytest.raises(ForthError) as e:  # the launch would end with the newer one in flight
        f.eval(f"WGZERO {mm} WGZERO {mm} 1 WGMMA-WAIT")
    assert "1 warpgroup accumulator still pending" in e.value.message
    assert "( wacc[64x64x16 f32] wacc[64x64x16 f32 pending] )" in e.value.message
    with pytest.raises(ForthError) as e:  # none waited for: both
        f.eval(f"WGZERO {mm} WGZERO {mm}")
    assert "2 warpgroup accumulators still pending" in e.value.message
    with pytest.raises(ForthError) as e:  # the newer one may not be moved yet
        f.eval(f"WGZERO {mm} WGZERO {mm} 1 WGMMA-WAIT TSWAP")
    assert e.value.word == "TSWAP"
    with pytest.raises(ForthError) as e:  # a wait of 1 leaves the newest in flight: only 0 covers it
        f.eval(f"WGZERO {mm} WGZERO {mm} 1 WGMMA-WAIT C 64 WGSTORE")
    assert e.value.word == "WGSTORE" and "`0 WGMMA-WAIT`" in e.value.message and "`1 WGMMA" not in e.value.message
    out = f.eval(f"WGZERO {mm} WGZERO {mm} 1 WGMMA-WAIT 0 WGMMA-WAIT TSWAP TDROP TDROP 1 .")
    assert out.strip().endswith("1")


def test_the_descriptor_is_checked_against_the_tiles_layout_when_compiled():
    f = Forth(backend="cpu")
    f.eval("BF16 TILE-IN  64 64 BF16 1 SMEM-TILE plain  64 64 BF16 1 SMEM-TILE-SWZ swz  64 64 F16 1 SMEM-TILE-SWZ h")
    cases = [(": d 0 0 0 128 WGDESC plain ;", "SMEM-TILE-SWZ"), (": d 0 0 0 0 WGDESC swz ;", "128 WGDESC"),
             (": d 0 0 0 64 WGDESC swz ;", "64-byte"), (": d 0 0 0 0 WGDESC plain ;", "16-byte rows"),
             (": d 0 0 0 128 WGDESC h ;", "F16"), (": d 0 0 0 128 WGDESC DUP ;", "not a SMEM-TILE"),
             (": d 0 0 DUP WGDESC swz ;", "literal swizzle")]
    for src, says in cases:
        with pytest.raises(ForthError) as e:
            f.eval(src)
        assert says in e.value.message, (src, e.value.message)
        assert e.value.pos is not None
    assert "D" not in f.dict  # nothing was defined


def test_wg_shape_takes_m64nNk16_only():
    f = Forth(backend="cpu")
    for bad in ("64 12 16", "64 264 16", "32 64 16", "64 64 8"):
        with pytest.raises(ForthError) as e:
            f.eval(f"{bad} WG-SHAPE")
        assert "m64nNk16" in e.value.message
    f.eval("64 256 16 WG-SHAPE")


def test_the_warpgroup_must_execute_wgmma_together():
    f = _session(8)
    with pytest.raises(ForthError) as e:
        f.eval("WGZERO TID-X 96 < IF 0 0 0 128 WGDESC sA 0 0 0 128 WGDESC sB WGMMA 0 WGMMA-WAIT THEN TDROP")
    assert "divergent warpgroup" in e.value.message and "96-127" in e.value.message
    g = Forth(backend="cpu")
    g.eval("64 1 1 THREADS BF16 TILE-IN 64 8 16 WG-SHAPE 64 64 BF16 1 SMEM-TILE-SWZ sA 8 64 BF16 1 SMEM-TILE-SWZ sB")
    with pytest.raises(ForthError) as e:
        g.eval("WGZERO 0 0 0 128 WGDESC sA 0 0 0 128 WGDESC sB WGMMA 0 WGMMA-WAIT TDROP")
    assert "multiple of 128" in e.value.message


# ---- the GPU code: ptxas for sm_90a, SASS, the arch gate, inlining -------------------------------------
def _gemm_word(n: int) -> Forth:
    f = _session(n)
    f.eval(": mm4 ( T: wacc -- wacc )  4 0 DO 0 0 I 16 * 128 WGDESC sA 0 0 I 16 * 128 WGDESC sB WGMMA 0 WGMMA-WAIT "
           f"LOOP ;  : gemm {STAGE} WGZERO mm4 0 WGLANE@ 2e F* 0 WGLANE! C {n} WGSTORE ;")
    return f


def _ptxas(ptx: str) -> tuple[str, bytes]:
    exe = sass.require("ptxas")
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "k.ptx"
        src.write_text(ptx)
        proc = subprocess.run([exe, "-arch=sm_90a", "-v", str(src), "-o", str(src.with_suffix(".cubin"))],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout + proc.stderr, src.with_suffix(".cubin").read_bytes()


@pytest.mark.parametrize("n", [64, 256])
def test_ptxas_accepts_it_for_sm_90a_with_hgmma_and_no_serialisation(n):
    ptx = word_ptx(_gemm_word(n), "gemm", "sm_90a")
    assert ptx.count(f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16") == 4  # mm4 inlined, unrolled
    assert not re.search(r"^\s*(\.visible\s+)?\.func", ptx, re.M)
    log, cubin = _ptxas(ptx)
    assert "C7510" not in log and "serialized" not in log, log
    assert re.search(r"0 bytes spill stores, 0 bytes spill loads", log), log
    ops = sass.opcodes(next(iter(sass.sass(cubin).values())))
    assert ops.count("HGMMA") >= 4 and "WARPGROUP" in ops


@pytest.mark.parametrize("arch", ["sm_80", "sm_90", "sm_100a"])
def test_other_arches_refuse_it_at_the_word_before_code_generation(arch):
    f = _gemm_word(64)
    f.eval(": k WGZERO mm4 C 64 WGSTORE ;")
    with pytest.raises(ForthError) as e:
        word_ptx(f, "k", arch)
    assert e.value.word == "WGZERO" and "sm_90a" in e.value.message and e.value.pos is not None


def test_a_wgmma_left_in_a_called_function_is_refused():
    from tileforth.backends.cuda.hopper import check_inlined
    entry = ".visible .entry k(\n)\n{\nwgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1}, %rd1, %rd2, p, 1, 1, 0, 0;\n}\n"
    check_inlined(entry)
    func = ".func w(\n)\n{\nwgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1}, %rd1, %rd2, p, 1, 1, 0, 0;\n}\n"
    with pytest.raises(ForthError) as e:
        check_inlined(entry + func)
    assert "C7510" in e.value.message and " w " in e.value.message


def test_operands_whose_copies_have_not_landed_are_reported():
    f = _session(8)
    for stage, says in (("A 128 0 sA sA-GEOM STAGE-TILE B 128 0 sB sB-GEOM STAGE-TILE CP.COMMIT", "not landed"),
                        ("A 128 0 sA sA-GEOM STAGE-TILE B 128 0 sB sB-GEOM STAGE-TILE CP.COMMIT 0 CP.WAIT",
                         "no BARRIER")):
        with pytest.raises(ForthError) as e:
            f.eval(f": early {stage} WGZERO 0 0 0 128 WGDESC sA 0 0 0 128 WGDESC sB WGMMA 0 WGMMA-WAIT TDROP "
                   "0 CP.WAIT ;  early")
        assert e.value.word == "WGMMA" and says in e.value.message and "0 CP.WAIT BARRIER FENCE-ASYNC" in e.value.message
    f.eval(f": ok {STAGE} WGZERO 0 0 0 128 WGDESC sA 0 0 0 128 WGDESC sB WGMMA 0 WGMMA-WAIT TDROP ;  ok")


def test_a_launch_may_not_end_with_a_wgmma_in_flight():
    f = _session(8)
    src = "WGZERO 0 0 0 128 WGDESC sA 0 0 0 128 WGDESC sB WGMMA"
    with pytest.raises(ForthError) as e:
        f.eval(src)
    assert "still pending" in e.value.message and "0 WGMMA-WAIT" in e.value.message
    assert f.tile_stack(0) == []  # the session is unchanged
    f.eval(src + " 0 WGMMA-WAIT")  # kept on the emulator's tile stack, waited for
    f.eval("C 8 WGSTORE")


def test_each_block_reads_its_own_shared_memory_and_warpgroups():
    """Four blocks of two warpgroups: block b's warpgroup g multiplies rows 64(2b + g).. of A (each warpgroup its
    own pair of tiles) by B; every block's descriptors are offsets in its own shared window."""
    n = 16
    f = Forth(backend="cpu")
    f.eval(f"4 1 1 GRID 256 1 1 THREADS  BF16 TILE-IN  64 {n} 16 WG-SHAPE  512 64 BF16 MATRIX A  {n} 64 BF16 MATRIX B  "
           f"512 {n} F32 MATRIX C  64 64 BF16 2 SMEM-TILE-SWZ sA  {n} 64 BF16 1 SMEM-TILE-SWZ sB")
    rng = np.random.default_rng(11)
    a = rng.integers(-4, 5, (512, 64)).astype(np.float32)
    b = rng.integers(-4, 5, (n, 64)).astype(np.float32)
    f.set_array("A", a)
    f.set_array("B", b)
    # stage both warpgroups' A rows: 128 rows of A into the two stages of sA, one STAGE-TILE each
    f.eval(": stage2  A BID-X 128 * 128 * + 128 0 sA sA-GEOM STAGE-TILE  A BID-X 128 * 64 + 128 * + 128 1 sA sA-GEOM "
           "STAGE-TILE  B 128 0 sB sB-GEOM STAGE-TILE  CP.COMMIT 0 CP.WAIT BARRIER FENCE-ASYNC ;")
    f.eval(": mm  stage2 WGZERO  WARPGROUP 0 0 128 WGDESC sA  0 0 0 128 WGDESC sB WGMMA  4 1 DO  WARPGROUP 0 I 16 * "
           "128 WGDESC sA  0 0 I 16 * 128 WGDESC sB WGMMA LOOP  0 WGMMA-WAIT  C BID-X 2* WARPGROUP + 64 * "
           f"{n} * 4 * + {n} WGSTORE ;  mm")
    np.testing.assert_array_equal(f.array("C"), a @ b.T)


def core_matrix_image(m: np.ndarray) -> np.ndarray:
    """A rows x 16 operand in core-matrix order (the ISA's no-swizzle K-major layout with LBO 128, SBO 256): the
    8x8 block (i, j) -- rows 8i.., columns 8j.. -- is 128 contiguous bytes at 256 i + 128 j; as 16-byte rows."""
    rows = m.shape[0]
    out = np.zeros((2 * rows, 8), m.dtype)
    for i in range(rows // 8):
        for j in range(2):
            out[16 * i + 8 * j:16 * i + 8 * j + 8] = m[8 * i:8 * i + 8, 8 * j:8 * j + 8]
    return out


def test_no_swizzle_descriptors_read_core_matrix_order():
    n = 24
    f = Forth(backend="cpu")
    f.eval(f"128 1 1 THREADS  F16 TILE-IN  64 {n} 16 WG-SHAPE  128 8 F16 MATRIX A  {2 * n} 8 F16 MATRIX B  "
           f"64 {n} F32 MATRIX C  128 8 F16 1 SMEM-TILE cA  {2 * n} 8 F16 1 SMEM-TILE cB")
    rng = np.random.default_rng(2)
    a = rng.integers(-4, 5, (64, 16)).astype(np.float32)
    b = rng.integers(-4, 5, (n, 16)).astype(np.float32)
    f.set_array("A", core_matrix_image(a))
    f.set_array("B", core_matrix_image(b))
    f.eval("A 16 0 cA cA-GEOM STAGE-TILE  B 16 0 cB cB-GEOM STAGE-TILE  CP.COMMIT 0 CP.WAIT BARRIER FENCE-ASYNC "
           f"WGZERO 0 0 0 0 WGDESC cA 0 0 0 0 WGDESC cB WGMMA 0 WGMMA-WAIT C {n} WGSTORE")
    np.testing.assert_array_equal(f.array("C"), a @ b.T)


def test_f16_inputs_are_the_f16_instruction():
    f = Forth(backend="cpu")
    f.eval("128 1 1 THREADS  F16 TILE-IN  64 32 16 WG-SHAPE  64 64 F16 1 SMEM-TILE-SWZ hA  32 64 F16 1 SMEM-TILE-SWZ hB "
           "64 32 F32 MATRIX C  : k WGZERO 0 0 0 128 WGDESC hA 0 0 0 128 WGDESC hB WGMMA 0 WGMMA-WAIT C 32 WGSTORE ;")
    ptx = word_ptx(f, "k", "sm_90a")
    assert "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16" in ptx
    log, cubin = _ptxas(ptx)
    assert "HGMMA" in sass.opcodes(next(iter(sass.sass(cubin).values())))


def test_the_emulator_refuses_a_pending_read_the_compiler_did_not_see():
    """The emulator's own check (a second line behind the compiler's): a WGSTORE or WGLANE@ of a position with a
    group not completed is an error naming the wait."""
    from tileforth.backends.cpu import wgmma as emu
    from tileforth.core.compile.wgmma import WgLaneGet

    class Ops:  # what wgmma.py uses of warpops.WarpOps
        be = type("Backend", (), {})()

        @staticmethod
        def error(site, message, word=None):
            return ForthError(message.replace("{where}", ""), None, word)

    emu.pending(Ops.be)[3] = [emu.Group(1, 0, 0, "bf16", 8, 0)]
    emu._not_pending(Ops, WgLaneGet("WGLANE@", 0), 3, 0, 0)  # another position: fine
    with pytest.raises(ForthError) as e:
        emu._not_pending(Ops, WgLaneGet("WGLANE@", 1), 3, 1, 0)
    assert "still pending" in e.value.message and "0 WGMMA-WAIT" in e.value.message


def test_mma_sync_words_on_a_warpgroup_accumulator_name_the_warpgroup_words():
    f = _session(8)
    for src, word in (("WGZERO C 8 TSTORE", "TSTORE"), ("WGZERO 0 TLANE@ F.", "TLANE@")):
        with pytest.raises(ForthError) as e:
            f.eval(src)
        assert e.value.word == word and "WGSTORE" in e.value.message and "WGLANE@" in e.value.message
    with pytest.raises(ForthError) as e:
        f.eval("WGZERO 9 WGMMA-WAIT TDROP")
    assert "0 to 7" in e.value.message


def test_the_sass_benchmark_prints_its_row():
    sass.require("ptxas")
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "wgmma_sass.py"
    r = subprocess.run([sys.executable, str(script), "--n", "8"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"^\s+8\s+\d+\s+0\+0\s+4\s+\d+\s+none$", r.stdout, re.M), r.stdout


@pytest.mark.usefixtures("drv")
def test_at_the_prompt_on_hopper_a_wgmma_line_is_assembled_for_sm_90a():
    """The cuda backend on a CC 9.0 device (the stand-in driver: kernels do not run, its JIT is ptxas) compiles
    a line's WGMMA for sm_90a, wgmma and all, where ptxas accepts it."""
    f = Forth(backend="cuda")
    try:
        f.eval("128 1 1 THREADS  BF16 TILE-IN  64 64 16 WG-SHAPE  64 64 BF16 1 SMEM-TILE-SWZ sA  "
               "64 64 BF16 1 SMEM-TILE-SWZ sB  64 64 F32 MATRIX C")
        f.eval("WGZERO 0 0 0 128 WGDESC sA 0 0 0 128 WGDESC sB WGMMA 0 WGMMA-WAIT C 64 WGSTORE")
        (ptx,) = [k.ptx for k in f.kcache.values() if "wgmma.mma_async" in k.ptx]
        assert ".target sm_90a" in ptx and re.search(r"wgmma\.wait_group\.sync\.aligned\s+0;", ptx)
        entry = ptx[ptx.index(".entry"):]
        assert "wgmma.mma_async" in entry[:entry.find("\n.func") if "\n.func" in entry else None]  # in the kernel
    finally:
        f.backend.close()


# ---- on a Hopper GPU (skipped without one): the same numbers as the emulator's --------------------------
def _hopper() -> Forth | None:
    try:
        f = Forth(backend="cuda")
    except ForthError:
        return None
    if f.backend.arch != "sm_90":
        f.backend.close()
        return None
    return f


@pytest.mark.gpu
@pytest.mark.parametrize("n", [8, 64, 256])
def test_on_a_hopper_gpu_d_is_a_times_b_and_a_wrong_descriptor_is_the_emulators_wrong_answer(n):
    f = _hopper()
    if f is None:
        pytest.skip("needs a Hopper GPU (compute capability 9.0) and the cuda backend")
    try:
        a, b = _inputs(n, n)
        clear = (1 << 62) - 1
        results = []
        for be in (f, _session(n)):
            if be is f:
                be.eval(f"128 1 1 THREADS  BF16 TILE-IN  64 {n} 16 WG-SHAPE  64 64 BF16 MATRIX A  {n} 64 BF16 MATRIX B  "
                        f"64 {n} F32 MATRIX C  64 64 BF16 1 SMEM-TILE-SWZ sA  {n} 64 BF16 1 SMEM-TILE-SWZ sB")
            be.set_array("A", a)
            be.set_array("B", b)
            be.eval(f": gemm {STAGE} WGZERO {K_LOOP} 0 WGMMA-WAIT C {n} WGSTORE ;  gemm")
            good = be.array("C").copy()
            be.eval(f": bad {STAGE} WGZERO 0 0 0 128 WGDESC sA {clear} AND  0 0 0 128 WGDESC sB WGMMA 0 WGMMA-WAIT "
                    f"C {n} WGSTORE ;  bad")
            results.append((good, be.array("C").copy()))
        (gpu_good, gpu_bad), (emu_good, emu_bad) = results
        np.testing.assert_array_equal(gpu_good, a @ b.T)
        np.testing.assert_array_equal(gpu_bad, emu_bad)  # the descriptor means the same on both
    finally:
        f.backend.close()
