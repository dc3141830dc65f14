"""Layout probes, written in PTX by hand: they settle, before words are built on them, what the PTX ISA
says of the mma.sync fragments and of the wgmma matrix descriptors (shared/reference/fast_gemm.md §3).
Each has a small known answer (small integers: every sum is exact), so a wrong reading shows as a
wrong number, not a fault.

probe_mma_{f16,bf16} (sm_80+; built for sm_90), one warp:
    cp.async 16-byte chunks of A (16x16, row-major) and B (16x8, k x n, row-major) into shared
    memory; ldmatrix.x4 gives A's fragment, ldmatrix.x2.trans B's; mma.sync.m16n8k16.row.col
    (f32 accumulators, zero C); D (16x8 f32) stored by the documented accumulator layout, and each
    lane's six fragment registers (a0..a3, b0, b1) stored as they are.
    Documented (PTX ISA, "Matrix fragments for mma.m16n8k16"), lane l, g = l/4, t = l%4:
      a0 = A[g][2t..2t+1]  a1 = A[g+8][2t..]  a2 = A[g][2t+8..]  a3 = A[g+8][2t+8..]   (low half first)
      b0 = B[2t..2t+1][g]  b1 = B[2t+8..2t+9][g]
      d0,d1 = D[g][2t..2t+1]  d2,d3 = D[g+8][2t..2t+1]

probe_wgmma (sm_90a), one warpgroup of 128 threads:
    the host lays out A (64x16) and B (16x8, stored K-major: B^T row-major) as the bytes of
    shared memory and passes each descriptor without its start address; the kernel copies the
    images to shared memory (1024-byte aligned), fences them for the async proxy, adds the start
    addresses and runs one wgmma.mma_async.m64n8k16.f32.f16.f16 (D = A.B). D is stored by the
    documented layout: thread t, warp w = t/32, lane l: d_i at row 16w + l/4 + 8(i/2), column
    2(l%4) + i%2; and each thread's d0..d3 as they are.
    Descriptor (PTX ISA, "Matrix Descriptor Format", sm_90): bits 0-13 start address >> 4,
    16-29 leading-dimension byte offset (LBO) >> 4, 32-45 stride-dimension byte offset (SBO) >> 4,
    49-51 base offset, 62-63 swizzle (0 none, 1 128B, 2 64B, 3 32B).
    Cases: no swizzle, core matrices (8 rows x 16 bytes) whose K neighbours and M/N neighbours
    are at different distances, with LBO = the K distance and SBO = the M/N distance ("lbo=K"),
    and the other way round ("lbo=MN"): one of the two must give A.B. And 128-byte swizzle
    (rows of 128 bytes, 16-byte chunk c of row r at chunk c ^ (r % 8), SBO = 1024 between
    8-row groups, LBO 16: unused for a K-major swizzled layout).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MMA_ARCH = "sm_90"
WGMMA_ARCH = "sm_90a"

# ---- mma.sync ---------------------------------------------------------------------------------------------

_MMA_ENTRY = """
.visible .entry probe_mma_{ty}(
\t.param .u64 pa,
\t.param .u64 pb,
\t.param .u64 pd,
\t.param .u64 pfrag
)
{{
\t.reg .pred %p<2>;
\t.reg .b32 %r<24>;
\t.reg .f32 %f<6>;
\t.reg .b64 %rd<12>;
\t.shared .align 128 .b8 sa_{ty}[512];
\t.shared .align 128 .b8 sb_{ty}[256];

\tld.param.u64 %rd1, [pa];
\tld.param.u64 %rd2, [pb];
\tld.param.u64 %rd3, [pd];
\tld.param.u64 %rd4, [pfrag];
\tcvta.to.global.u64 %rd1, %rd1;
\tcvta.to.global.u64 %rd2, %rd2;
\tcvta.to.global.u64 %rd3, %rd3;
\tcvta.to.global.u64 %rd4, %rd4;
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, sa_{ty};
\tmov.u32 %r3, sb_{ty};
\t// lane l copies chunk l of A (32 x 16 bytes) and, l < 16, chunk l of B
\tshl.b32 %r4, %r1, 4;
\tmul.wide.u32 %rd5, %r1, 16;
\tadd.s64 %rd6, %rd1, %rd5;
\tadd.s32 %r5, %r2, %r4;
\tcp.async.cg.shared.global [%r5], [%rd6], 16;
\tsetp.lt.u32 %p1, %r1, 16;
\tadd.s64 %rd7, %rd2, %rd5;
\tadd.s32 %r6, %r3, %r4;
\t@%p1 cp.async.cg.shared.global [%r6], [%rd7], 16;
\tcp.async.commit_group;
\tcp.async.wait_group 0;
\tbar.sync 0;
\t// A: lane l gives row l%16, 16-byte column chunk l/16 (matrices: rows 0-7 | 8-15, then k 8-15)
\tand.b32 %r7, %r1, 15;
\tshl.b32 %r7, %r7, 5;
\tshr.u32 %r8, %r1, 4;
\tshl.b32 %r8, %r8, 4;
\tadd.s32 %r9, %r2, %r7;
\tadd.s32 %r9, %r9, %r8;
\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {{%r10, %r11, %r12, %r13}}, [%r9];
\t// B (k x n, 16 bytes a row): lanes 0-15 give rows k = 0..15; transposed on the way
\tand.b32 %r14, %r1, 15;
\tshl.b32 %r14, %r14, 4;
\tadd.s32 %r14, %r3, %r14;
\tldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {{%r15, %r16}}, [%r14];
\tmov.f32 %f1, 0f00000000;
\tmma.sync.aligned.m16n8k16.row.col.f32.{ty}.{ty}.f32 {{%f2, %f3, %f4, %f5}}, {{%r10, %r11, %r12, %r13}}, {{%r15, %r16}}, {{%f1, %f1, %f1, %f1}};
\t// D: d0 d1 at row l/4, columns 2(l%4) and +1; d2 d3 eight rows below
\tshr.u32 %r17, %r1, 2;
\tand.b32 %r18, %r1, 3;
\tshl.b32 %r18, %r18, 1;
\tshl.b32 %r19, %r17, 3;
\tadd.s32 %r19, %r19, %r18;
\tmul.wide.u32 %rd8, %r19, 4;
\tadd.s64 %rd9, %rd3, %rd8;
\tst.global.v2.f32 [%rd9], {{%f2, %f3}};
\tst.global.v2.f32 [%rd9+256], {{%f4, %f5}};
\t// the fragments, 6 words a lane
\tmul.wide.u32 %rd10, %r1, 24;
\tadd.s64 %rd11, %rd4, %rd10;
\tst.global.v2.b32 [%rd11], {{%r10, %r11}};
\tst.global.v2.b32 [%rd11+8], {{%r12, %r13}};
\tst.global.v2.b32 [%rd11+16], {{%r15, %r16}};
\tret;
}}
"""


def mma_ptx(arch: str = MMA_ARCH) -> str:
    head = ("// device check: mma.sync m16n8k16 fragment probe (benchmarks/devcheck/probes.py)\n"
            f".version 8.0\n.target {arch}\n.address_size 64\n")
    return head + "".join(_MMA_ENTRY.format(ty=ty) for ty in ("f16", "bf16"))


def mma_inputs(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A (16x16) and B (16x8) of small integers (exact in f16 and bf16, every sum exact in f32), as float32."""
    rng = np.random.default_rng(seed)
    return (rng.integers(-4, 5, (16, 16)).astype(np.float32), rng.integers(-4, 5, (16, 8)).astype(np.float32))


def mma_expected_fragments(a_bits: np.ndarray, b_bits: np.ndarray) -> np.ndarray:
    """(32, 6) uint32: each lane's a0..a3, b0, b1 by the PTX ISA's layout, from A's and B's 16-bit patterns."""
    out = np.zeros((32, 6), np.uint32)
    for lane in range(32):
        g, t = lane // 4, lane % 4
        pairs = [(a_bits[g, 2 * t], a_bits[g, 2 * t + 1]), (a_bits[g + 8, 2 * t], a_bits[g + 8, 2 * t + 1]),
                 (a_bits[g, 2 * t + 8], a_bits[g, 2 * t + 9]), (a_bits[g + 8, 2 * t + 8], a_bits[g + 8, 2 * t + 9]),
                 (b_bits[2 * t, g], b_bits[2 * t + 1, g]), (b_bits[2 * t + 8, g], b_bits[2 * t + 9, g])]
        out[lane] = [int(lo) | int(hi) << 16 for lo, hi in pairs]
    return out


def check_mma(a: np.ndarray, b: np.ndarray, a_bits: np.ndarray, b_bits: np.ndarray, d: np.ndarray,
              frags: np.ndarray) -> tuple[bool, str]:
    """The verdict on one probe_mma run: D against A.B, and the fragments against the documented layout."""
    want = a.astype(np.float64) @ b.astype(np.float64)
    frag_ok = np.array_equal(frags, mma_expected_fragments(a_bits, b_bits))
    d_ok = np.array_equal(d.astype(np.float64), want)
    where = "" if frag_ok else (f"; {int((frags != mma_expected_fragments(a_bits, b_bits)).sum())} of 192 fragment "
                                 "words differ from the documented layout")
    return frag_ok and d_ok, (f"D {'= A.B exactly' if d_ok else f'max |D-A.B| {np.abs(d - want).max():g}'}, "
                              f"fragments {'as documented' if frag_ok else 'NOT as documented'}{where}")


# ---- wgmma --------------------------------------------------------------------------------------------------

WGMMA_PTX = """// device check: wgmma m64n8k16 descriptor probe (benchmarks/devcheck/probes.py)
.version 8.0
.target {arch}
.address_size 64

.visible .entry probe_wgmma(
\t.param .u64 pimga,
\t.param .u64 pimgb,
\t.param .u64 pdesca,
\t.param .u64 pdescb,
\t.param .u64 pd,
\t.param .u64 praw
)
{{
\t.reg .pred %p<2>;
\t.reg .b32 %r<32>;
\t.reg .f32 %f<8>;
\t.reg .b64 %rd<32>;
\t.shared .align 1024 .b8 sa[8192];
\t.shared .align 1024 .b8 sb[1024];

\tld.param.u64 %rd1, [pimga];
\tld.param.u64 %rd2, [pimgb];
\tld.param.u64 %rd3, [pdesca];
\tld.param.u64 %rd4, [pdescb];
\tld.param.u64 %rd5, [pd];
\tld.param.u64 %rd6, [praw];
\tcvta.to.global.u64 %rd1, %rd1;
\tcvta.to.global.u64 %rd2, %rd2;
\tcvta.to.global.u64 %rd5, %rd5;
\tcvta.to.global.u64 %rd6, %rd6;
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, sa;
\tmov.u32 %r3, sb;
\t// the A image: 8192 bytes, 4 x 16 bytes a thread (chunk i*128 + t)
\tshl.b32 %r4, %r1, 4;
\tcvt.u64.u32 %rd7, %r4;
\tadd.s64 %rd8, %rd1, %rd7;
\tadd.s32 %r5, %r2, %r4;
\tld.global.v4.b32 {{%r6, %r7, %r8, %r9}}, [%rd8];
\tst.shared.v4.b32 [%r5], {{%r6, %r7, %r8, %r9}};
\tld.global.v4.b32 {{%r6, %r7, %r8, %r9}}, [%rd8+2048];
\tst.shared.v4.b32 [%r5+2048], {{%r6, %r7, %r8, %r9}};
\tld.global.v4.b32 {{%r6, %r7, %r8, %r9}}, [%rd8+4096];
\tst.shared.v4.b32 [%r5+4096], {{%r6, %r7, %r8, %r9}};
\tld.global.v4.b32 {{%r6, %r7, %r8, %r9}}, [%rd8+6144];
\tst.shared.v4.b32 [%r5+6144], {{%r6, %r7, %r8, %r9}};
\t// the B image: 1024 bytes, 8 a thread
\tshl.b32 %r10, %r1, 3;
\tcvt.u64.u32 %rd9, %r10;
\tadd.s64 %rd10, %rd2, %rd9;
\tadd.s32 %r11, %r3, %r10;
\tld.global.v2.b32 {{%r12, %r13}}, [%rd10];
\tst.shared.v2.b32 [%r11], {{%r12, %r13}};
\t// generic-proxy writes to shared memory, made visible to the async proxy that wgmma reads with
\tfence.proxy.async.shared::cta;
\tbar.sync 0;
\t// descriptors: the host's fields, plus each image's start address >> 4 (bits 0-13)
\tcvt.u64.u32 %rd11, %r2;
\tshr.u64 %rd11, %rd11, 4;
\tand.b64 %rd11, %rd11, 16383;
\tor.b64 %rd12, %rd3, %rd11;
\tcvt.u64.u32 %rd13, %r3;
\tshr.u64 %rd13, %rd13, 4;
\tand.b64 %rd13, %rd13, 16383;
\tor.b64 %rd14, %rd4, %rd13;
\tmov.f32 %f1, 0f00000000;
\tmov.f32 %f2, 0f00000000;
\tmov.f32 %f3, 0f00000000;
\tmov.f32 %f4, 0f00000000;
\tsetp.ne.u32 %p1, %r1, %r1;
\twgmma.fence.sync.aligned;
\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {{%f1, %f2, %f3, %f4}}, %rd12, %rd14, %p1, 1, 1, 0, 0;
\twgmma.commit_group.sync.aligned;
\twgmma.wait_group.sync.aligned 0;
\t// D, 64 x 8 f32: row 16w + l/4 (+8 for d2 d3), column 2(l%4) (+1)
\tshr.u32 %r14, %r1, 5;
\tand.b32 %r15, %r1, 31;
\tshl.b32 %r16, %r14, 4;
\tshr.u32 %r17, %r15, 2;
\tadd.s32 %r16, %r16, %r17;
\tand.b32 %r18, %r15, 3;
\tshl.b32 %r18, %r18, 1;
\tshl.b32 %r19, %r16, 3;
\tadd.s32 %r19, %r19, %r18;
\tmul.wide.u32 %rd15, %r19, 4;
\tadd.s64 %rd16, %rd5, %rd15;
\tst.global.v2.f32 [%rd16], {{%f1, %f2}};
\tst.global.v2.f32 [%rd16+256], {{%f3, %f4}};
\tmul.wide.u32 %rd17, %r1, 16;
\tadd.s64 %rd18, %rd6, %rd17;
\tst.global.v4.f32 [%rd18], {{%f1, %f2, %f3, %f4}};
\tret;
}}
"""

A_IMAGE_BYTES, B_IMAGE_BYTES = 8192, 1024


def wgmma_ptx(arch: str = WGMMA_ARCH) -> str:
    return WGMMA_PTX.format(arch=arch)


def descriptor(lbo: int, sbo: int, swizzle: int = 0, start: int = 0) -> int:
    """A wgmma matrix descriptor (sm_90): byte offsets, each a multiple of 16; swizzle 0 none, 1 128B."""
    for name, v in (("start", start), ("lbo", lbo), ("sbo", sbo)):
        if v % 16 or not 0 <= v >> 4 < 1 << 14:
            raise ValueError(f"{name} {v}: a multiple of 16 below 256 KiB")
    return (start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | (swizzle & 3) << 62


def core_image(m: np.ndarray, size: int, k_stride: int, mn_stride: int) -> np.ndarray:
    """Bytes of shared memory holding `m` (rows x k, 16-bit) as core matrices of 8 rows x 16 bytes (8 values):
    core (g, c) -- rows 8g.., k 8c.. -- at g*mn_stride + c*k_stride, its row r at 16r."""
    bits = m.view(np.uint16)
    img = np.zeros(size, np.uint8)
    for row in range(bits.shape[0]):
        for k in range(bits.shape[1]):
            at = (row // 8) * mn_stride + (k // 8) * k_stride + (row % 8) * 16 + (k % 8) * 2
            img[at:at + 2] = np.frombuffer(bits[row, k].tobytes(), np.uint8)
    return img


def swizzle128_image(m: np.ndarray, size: int) -> np.ndarray:
    """Bytes of shared memory holding `m` (rows x k, 16-bit) in the 128-byte swizzle: row r at 128r, its
    16-byte chunk c (values 8c..8c+7) at chunk c ^ (r % 8)."""
    bits = m.view(np.uint16)
    img = np.zeros(size, np.uint8)
    for row in range(bits.shape[0]):
        for k in range(bits.shape[1]):
            at = row * 128 + ((k // 8) ^ (row % 8)) * 16 + (k % 8) * 2
            img[at:at + 2] = np.frombuffer(bits[row, k].tobytes(), np.uint8)
    return img


@dataclass(frozen=True)
class WgmmaCase:
    name: str
    a_image: np.ndarray
    b_image: np.ndarray
    desc_a: int  # without the start address
    desc_b: int


# no swizzle: A's K neighbours 128 bytes apart and M neighbours 256; B's K neighbours 256 apart (n8: one
# core matrix along N, whose distance 512 points past the image)
A_K, A_MN, B_K, B_MN = 128, 256, 256, 512


def wgmma_cases(a: np.ndarray, b: np.ndarray) -> list[WgmmaCase]:
    """The probe's three launches for A (64x16) and B (16x8), both float16."""
    a16, bt16 = a.astype(np.float16), np.ascontiguousarray(b.T.astype(np.float16))  # B K-major: B^T row-major
    ia, ib = core_image(a16, A_IMAGE_BYTES, A_K, A_MN), core_image(bt16, B_IMAGE_BYTES, B_K, B_MN)
    return [WgmmaCase("lbo=K", ia, ib, descriptor(A_K, A_MN), descriptor(B_K, B_MN)),
            WgmmaCase("lbo=MN", ia, ib, descriptor(A_MN, A_K), descriptor(B_MN, B_K)),
            WgmmaCase("swizzle128", swizzle128_image(a16, A_IMAGE_BYTES), swizzle128_image(bt16, B_IMAGE_BYTES),
                      descriptor(16, 1024, swizzle=1), descriptor(16, 1024, swizzle=1))]


def wgmma_inputs(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.integers(-4, 5, (64, 16)).astype(np.float32), rng.integers(-4, 5, (16, 8)).astype(np.float32))


def wgmma_d_from_raw(raw: np.ndarray) -> np.ndarray:
    """D (64x8) from each thread's d0..d3 (128 x 4) by the documented layout."""
    d = np.zeros((64, 8), np.float32)
    for t in range(128):
        w, lane = t // 32, t % 32
        for i in range(4):
            d[16 * w + lane // 4 + 8 * (i // 2), 2 * (lane % 4) + i % 2] = raw[t, i]
    return d


def check_wgmma(a: np.ndarray, b: np.ndarray, results: dict[str, tuple[np.ndarray, np.ndarray]]) -> tuple[bool, str]:
    """The verdict: exactly one no-swizzle reading gives A.B, and the 128-byte swizzle does.
    results: case name -> (D as stored, each thread's raw d0..d3)."""
    want = a.astype(np.float64) @ b.astype(np.float64)
    exact = {}
    notes = []
    for name, (d, raw) in results.items():
        exact[name] = np.array_equal(d.astype(np.float64), want)
        same_raw = np.array_equal(wgmma_d_from_raw(raw), d)
        notes.append(f"{name}: {'A.B exactly' if exact[name] else f'max |D-A.B| {np.abs(d - want).max():g}'}"
                     + ("" if same_raw else " (raw registers disagree with the stored D)"))
    readings = [n for n in ("lbo=K", "lbo=MN") if exact.get(n)]
    if len(readings) == 1:
        verdict = f"no swizzle: LBO is the {'K' if readings[0] == 'lbo=K' else 'M/N'}-direction core-matrix distance"
    else:
        verdict = f"no swizzle: {len(readings)} readings give A.B (one expected)"
    ok = len(readings) == 1 and exact.get("swizzle128", False)
    return ok, verdict + "; " + "; ".join(notes)
