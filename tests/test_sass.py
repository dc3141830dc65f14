"""The machine code of exported kernels, read as SASS (tests/sass.py: ptxas,
then nvdisasm or cuobjdump; no GPU needed).

* Shared memory is accessed with the shared-memory instructions (LDS/STS),
  array parameters of kernel files with the global ones (LDG/STG): no
  generic LD/ST, which cost an address-space lookup on every access.
* An unchecked exported kernel's innermost loop has no more instructions
  (per source iteration) than the same kernel in CUDA C compiled by nvcc.
"""
from __future__ import annotations

import pytest
import sass
from test_ptx import TILED
from tileforth.core import Forth
from tileforth.export.kernels import kernel_file_ptx, word_ptx

ARCH = "sm_90"


# ---- (c) the SASS reader itself ------------------------------------------------------------------
CUOBJDUMP_TEXT = """
	code for sm_90
		Function : k
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                         /* 0x00000a00ff017b82 */
                                                                                  /* 0x000fe20000000800 */
        /*0010*/                   LDS.U.128 R4, [R2+0x10] ;                      /* 0x0000000000007919 */
                                                                                  /* 0x000e2e0000002100 */
        /*0020*/               @!P0 BRA 0x10 ;                                    /* 0xfffffff800e40947 */
                                                                                  /* 0x000fe20000000800 */
        /*0030*/                   EXIT ;                                         /* 0x000000000000794d */
                                                                                  /* 0x000fea0003800000 */
        /*0040*/                   BRA 0x40;                                      /* 0xfffffffc00fc7947 */
                                                                                  /* 0x000fc0000383ffff */
"""

NVDISASM_TEXT = """
	.target	sm_90
//--------------------- .text.k                  --------------------------
	.section	.text.k,"ax",@progbits
	.align	128
        .global         k
k:
.text.k:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
.L_x_0:
        /*0010*/                   LDS.U.128 R4, [R2+0x10] ;
        /*0020*/               @!P0 BRA `(.L_x_0) ;
        /*0030*/                   EXIT ;
.L_x_1:
        /*0040*/                   BRA `(.L_x_1);
"""


@pytest.mark.parametrize("text", [CUOBJDUMP_TEXT, NVDISASM_TEXT], ids=["cuobjdump", "nvdisasm"])
def test_the_reader_parses_both_disassemblers_formats(text):
    funcs = sass.parse_sass(text)
    assert list(funcs) == ["k"]
    ins = funcs["k"]
    assert [(i.address, i.pred, i.opcode, i.target) for i in ins] == [
        (0x00, None, "LDC", None), (0x10, None, "LDS.U.128", None), (0x20, "!P0", "BRA", 0x10),
        (0x30, None, "EXIT", None), (0x40, None, "BRA", 0x40)]
    lds = ins[1]
    assert (lds.base, lds.modifiers, lds.operands) == ("LDS", ("U", "128"), ("R4", "[R2+0x10]"))
    assert ins[0].operands == ("R1", "c[0x0][0x28]")
    # the padding `BRA .` after EXIT jumps to itself: not a loop
    assert sass.backward_branches(ins) == [ins[2]]
    assert sass.inner_loop(ins) == ins[1:3]
    assert sass.opcodes(sass.inner_loop(ins)) == ["LDS", "BRA"]


# do-while loops: with `for` loops nvcc also makes a copy of the outer loop for
# m <= 0 (loop unswitching), a third loop smaller than the inner one.
NESTED_CU = r"""
extern "C" __global__ void nest(const float* a, float* out, int n, int m) {
  float s = 1.0f;
  int i = 0;
  #pragma unroll 1
  do {
    float t = 0.0f;
    int j = 0;
    #pragma unroll 1
    do { t += a[i * m + j]; j++; } while (j < m);
    s *= t;
    i++;
  } while (i < n);
  *out = s;
}
"""


def test_inner_loop_finds_the_inner_of_two_nested_loops_in_nvcc_code():
    """A CUDA C kernel with a known shape: an outer loop (FMUL) around an
    inner one (LDG + FADD), neither unrolled. Both disassemblers agree, and
    inner_loop is the inner loop: from its head to its back-edge."""
    cub = sass.nvcc_cubin(NESTED_CU, ARCH)
    parsed = {}
    for tool in ("nvdisasm", "cuobjdump"):
        if sass.tool_path(tool):
            parsed[tool] = [(i.address, i.pred, i.opcode, i.target) for i in sass.sass(cub, tool)["nest"]]
    if len(parsed) == 2:
        assert parsed["nvdisasm"] == parsed["cuobjdump"]
    ins = sass.sass(cub)["nest"]
    back = sass.backward_branches(ins)
    assert len(back) == 2, sass.listing(ins)
    loop = sass.inner_loop(ins)
    ops = sass.opcodes(loop)
    assert (ops.count("LDG"), ops.count("FADD"), ops.count("FMUL")) == (1, 1, 0), sass.listing(loop)
    assert loop[-1].base == "BRA" and loop[-1].pred and loop[-1].target == loop[0].address
    outer = next(b for b in back if b is not loop[-1])
    assert outer.target < loop[0].address and loop[-1].address < outer.address  # nested inside
    assert "FMUL" in sass.opcodes(i for i in ins if outer.target <= i.address <= outer.address)
    assert {"LDG", "STG", "EXIT"} <= set(sass.opcodes(ins))


# ---- (a) shared memory and global memory instructions ------------------------------------------
@pytest.fixture(scope="module")
def tiled_sass() -> list[sass.Instr]:
    sass.require("ptxas")
    f = Forth()
    f.eval(TILED)
    return sass.sass(sass.cubin(word_ptx(f, "tiled", ARCH), ARCH))["tiled"]


def test_tiled_matmul_accesses_shared_memory_with_lds_and_sts(tiled_sass):
    """tests/test_ptx.py's TILED, exported: the tiles go to shared memory with
    STS and come back with LDS; in the innermost loop the only loads that are
    not LDS are the two elements of a and b read from global memory (a cell
    parameter does not say which space it points into, so LD or LDG)."""
    ops = sass.opcodes(tiled_sass)
    loop = sass.inner_loop(tiled_sass)
    lops = sass.opcodes(loop)
    msg = f"SASS opcodes of tiled: {ops}\ninnermost loop ({len(loop)} instructions):\n{sass.listing(loop)}"
    assert "LDS" in ops and "STS" in ops, msg
    assert "BAR" in lops, msg  # the loop over tiles, whose 16-step inner loop is unrolled
    assert "LDS" in lops and lops.count("STS") == 2, msg
    assert lops.count("LD") + lops.count("LDG") <= 2 and "ST" not in lops, msg


KERNEL_FILE_TILED = r"""\! kernel ktiled
\! param A f32[NN]
\! param B f32[NN]
\! param C f32[NN]
\! param N i64
\! param NN i64
\! shared As f32[256]
\! shared Bs f32[256]
\ C = A B for N x N row-major matrices, N a multiple of 16; a 16x16 block per 16x16 tile of C.
: idx ( r c n -- off )  ROT * + 4 * ;
BID-Y 16 * TID-Y +  BID-X 16 * TID-X +  0e
N 16 / 0 DO
  OVER I 16 * TID-X + N idx A + F@   TID-Y 16 * TID-X + 4 * As + F!
  I 16 * TID-Y + OVER N idx B + F@   TID-Y 16 * TID-X + 4 * Bs + F!
  BARRIER
  16 0 DO  TID-Y 16 * I + 4 * As + F@  I 16 * TID-X + 4 * Bs + F@  F* F+  LOOP
  BARRIER
LOOP
N idx C + F!
"""


def test_kernel_file_uses_global_instructions_for_arrays_and_shared_for_shared():
    """A kernel file's array parameters are global memory (LDG/STG) and its
    `\\! shared` arrays shared memory (LDS/STS): no generic LD/ST at all."""
    sass.require("ptxas")
    ins = sass.sass(sass.cubin(kernel_file_ptx(KERNEL_FILE_TILED, ARCH, "ktiled.fth"), ARCH))["ktiled"]
    ops = sass.opcodes(ins)
    loop = sass.inner_loop(ins)
    msg = f"SASS opcodes of ktiled: {ops}\ninnermost loop ({len(loop)} instructions):\n{sass.listing(loop)}"
    assert {"LDG", "STG", "LDS", "STS"} <= set(ops), msg
    assert "LD" not in ops and "ST" not in ops, msg
    lops = sass.opcodes(loop)
    assert lops.count("LDG") == 2 and lops.count("STS") == 2 and "LDS" in lops, msg


# ---- (b) the innermost loop against nvcc ---------------------------------------------------------
ROWSUM = ": rowsum ( a n out -- )  >R  0e  0 ?DO  DUP I 4 * + F@ F+  LOOP  DROP  R> F! ;"
ROWSUM_CU = r"""
extern "C" __global__ void rowsum(const float* a, long long n, float* out) {
  float s = 0.0f;
  for (long long i = 0; i < n; i++) s += a[i];
  *out = s;
}
"""

TILED_CU = r"""
extern "C" __global__ void tiled(const float* a, const float* b, float* c, long long n) {
  __shared__ float As[256];
  __shared__ float Bs[256];
  long long ty = threadIdx.y, tx = threadIdx.x;
  long long row = (long long)blockIdx.y * 16 + ty, col = (long long)blockIdx.x * 16 + tx;
  float acc = 0.0f;
  for (long long t = 0; t < n / 16; t++) {
    As[ty * 16 + tx] = a[row * n + (t * 16 + tx)];
    Bs[ty * 16 + tx] = b[(t * 16 + ty) * n + col];
    __syncthreads();
    for (long long k = 0; k < 16; k++) acc += As[ty * 16 + k] * Bs[k * 16 + tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}
"""

# Forth's `F* F+` rounds the product and then the sum (as the emulator and
# gforth do), so the CUDA C that computes the same numbers is compiled with
# -fmad=false; nvcc's default would contract `acc += x * y` to one FFMA.
NVCC_FLAGS = ("-O3", "-fmad=false")
ACCUMULATE = ("FADD", "FFMA")  # one per source iteration in both kernels


def hot_loop(instrs: list[sass.Instr]) -> tuple[list[sass.Instr], int]:
    """The innermost loop that does the most source iterations per trip (the
    one a long run spends its time in, not a remainder loop), and how many it
    does: its count of accumulating FADD/FFMA."""
    loops = [(lp, sum(op in ACCUMULATE for op in sass.opcodes(lp))) for lp in sass.inner_loops(instrs)]
    loops = [(lp, k) for lp, k in loops if k]
    assert loops, "no loop with an FADD/FFMA:\n" + sass.listing(instrs)
    return max(loops, key=lambda x: (x[1], -len(x[0])))


@pytest.mark.parametrize("name, forth, cuda", [("rowsum", ROWSUM, ROWSUM_CU), ("tiled", TILED, TILED_CU)],
                         ids=["rowsum", "tiled"])
def test_inner_loop_is_no_longer_than_nvccs(name, forth, cuda):
    """The unchecked export (word_ptx: no address checks, no step counting)
    against the same algorithm in CUDA C, same types (cells int64, floats f32).

    Both compilers unroll, by factors of their own (rowsum: LLVM by 8 and
    ptxas by 4 again, nvcc by 4; tiled: the 16-step loop fully, on both
    sides), so the loops are compared per source iteration: instructions
    divided by the unroll factor, which is the count of FADD/FFMA in the loop
    (one accumulate per iteration). The comparison is on the hot loop (the
    one unrolled most); the smallest innermost loop (a remainder loop) is
    shown in the message too."""
    sass.require("ptxas")
    f = Forth()
    f.eval(forth)
    tf = sass.sass(sass.cubin(word_ptx(f, name, ARCH), ARCH))[name]
    nv = sass.sass(sass.nvcc_cubin(cuda, ARCH, NVCC_FLAGS))[name]
    (tl, tk), (nl, nk) = hot_loop(tf), hot_loop(nv)
    tper, nper = len(tl) / tk, len(nl) / nk
    small_t, small_n = sass.inner_loop(tf), sass.inner_loop(nv)
    msg = (f"{name}: tileforth {len(tl)} instructions / {tk} iterations = {tper:.3f} per iteration; "
           f"nvcc {' '.join(NVCC_FLAGS)} {len(nl)} / {nk} = {nper:.3f}\n"
           f"smallest innermost loops: tileforth {len(small_t)}, nvcc {len(small_n)}\n"
           f"tileforth hot loop:\n{sass.listing(tl)}\nnvcc hot loop:\n{sass.listing(nl)}")
    assert tper <= nper, msg
