r"""Edit-to-PTX: how long from a new definition to its PTX, next to nvcc.

    small word   a NEW saxpy each time (its literal changes, so nothing is
                 cached): `: saxpyN ... ;` evaluated, then word_ptx — at the
                 default (O3, exported kernels) and at REPL speed (heavy=False: the cheap
                 compile tier, tileforth/core/compile/tiers.py: O1, NVPTX opt 1)
    GEMM         demos/gemm.fth's `gemm` (tensor cores), redefined, then word_ptx

against `nvcc -ptx -arch=sm_80` on equivalent CUDA C (a saxpy and a WMMA
GEMM written to a temp dir), in the same run: the first call and the median
of the warm ones, and their ratio. Target: the small word ≥ 20× faster than
nvcc. Then the GEMM's code: registers (ptxas -v) and the PTX instructions per
MMA (wmma / ld / st / other), at the demo's sizes (64³ constants: both
compilers unroll the 4 steps, so the whole kernel is counted) and with K a
run-time parameter (the same kernel as a kernel file, `\! param KK i32`,
checked against numpy on the emulator first): a real loop, counted from its
label to its back branch.

    python benchmarks/compile.py            # 20 warm runs, nvcc 5
    python benchmarks/compile.py --quick    # 5 warm runs, nvcc 1
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GEMM_DEMO = ROOT / "demos" / "gemm.fth"
TARGET_RATIO = 20.0
ARCH = "sm_80"
SIZES = "64 CONSTANT MM   64 CONSTANT NN   64 CONSTANT KK"

GEMM_KERNEL_FILE = r"""\! kernel gemm
\! param A f16[4096]
\! param B f16[4096]
\! param C f32[4096]
\! param NN i32
\! param KK i32
\ demos/gemm.fth's gemm with run-time sizes: one warp per 16x16 tile of C
: row0  ( -- r )  BID-Y 16 * ;
: col0  ( -- c )  BID-X 2 * WARP-ID + 16 * ;
TZERO
KK 0 DO  row0 KK * I + 2* A + KK TLOAD-A  I NN * col0 + 2* B + NN TLOAD-B  TMMA  16 +LOOP
row0 NN * col0 + 4 * C + NN TSTORE
"""


def saxpy_forth(i: int) -> str:
    """The i-th new small word: saxpy plus a literal that changes."""
    return (f": saxpy{i} ( x y n -- ) ( F: a -- )\n"
            f"  GLOBAL-ID TUCK > IF  4 * TUCK + >R + F@ FOVER F* {i + 1}e F+ R@ F@ F+ R> F!  FDROP\n"
            f"  ELSE DROP 2DROP FDROP THEN ;")


def saxpy_cuda(i: int) -> str:
    return (f'extern "C" __global__ void saxpy{i}(const float* x, float* y, float a, long n) {{\n'
            f"  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;\n"
            f"  if (i < n) y[i] = a * x[i] + {i + 1}.0f + y[i];\n}}\n")


def gemm_cuda(mm: int, nn: int, kk: int) -> str:
    """demos/gemm.fth's `gemm`: one warp per 16×16 tile of C, two warps per block."""
    return f"""#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
#define MM {mm}
#define NN {nn}
#define KK {kk}
extern "C" __global__ void gemm(const half* A, const half* B, float* C) {{
  int warp = threadIdx.x / 32;
  int row0 = blockIdx.y * 16, col0 = (blockIdx.x * 2 + warp) * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(c, 0.0f);
  for (int k = 0; k < KK; k += 16) {{
    wmma::load_matrix_sync(a, A + row0 * KK + k, KK);
    wmma::load_matrix_sync(b, B + k * NN + col0, NN);
    wmma::mma_sync(c, a, b, c);
  }}
  wmma::store_matrix_sync(C + row0 * NN + col0, c, NN, wmma::mem_row_major);
}}
"""


def gemm_cuda_runtime_k() -> str:
    """The same with NN and KK as parameters: nvcc cannot unroll the K loop away."""
    body = gemm_cuda(0, 0, 0).split("extern")[1]
    head = gemm_cuda(0, 0, 0).split("#define")[0]
    body = body.replace("float* C)", "float* C, int NN, int KK)")
    return head + "extern" + body


def check_gemm_kernel_file() -> str:
    """Run the run-time-K kernel file once on the emulator (64³) against numpy."""
    import numpy as np
    from tileforth.core import Forth
    from tileforth.export.kernelfile import parse_kernel_file, run_kernel_file
    rng = np.random.default_rng(1)
    a = rng.integers(-3, 4, (64, 64)).astype(np.float16)
    b = rng.integers(-3, 4, (64, 64)).astype(np.float16)
    f = Forth(backend="cpu")
    run_kernel_file(f, parse_kernel_file(GEMM_KERNEL_FILE, "gemm_rt.fth"),
                    {"A": a.reshape(-1), "B": b.reshape(-1), "NN": 64, "KK": 64}, (2, 4, 1), (64, 1, 1))
    ok = np.array_equal(f.array("C").reshape(64, 64), a.astype(np.float64) @ b.astype(np.float64))
    if not ok:
        raise SystemExit("the run-time-K GEMM kernel file computes a wrong product")
    return "equals numpy at 64×64×64 on the emulator"


def gemm_definition() -> str:
    m = re.search(r"(?ms)^: gemm\s.*?\s;\s*$", GEMM_DEMO.read_text())
    assert m, "demos/gemm.fth defines `: gemm ... ;`"
    return m.group(0)


# ---- timing --------------------------------------------------------------------------------
def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def first_and_median(times: list[float]) -> tuple[float, float]:
    return times[0], statistics.median(times[1:]) if len(times) > 1 else times[0]


def nvcc_path() -> str | None:
    for cand in ("/usr/local/bin/nvcc", shutil.which("nvcc")):
        if cand and Path(cand).exists():
            return cand
    return None


def nvcc_ptx(nvcc: str, src: str, workdir: Path, stem: str) -> tuple[float, str]:
    cu = workdir / f"{stem}.cu"
    out = workdir / f"{stem}.ptx"
    cu.write_text(src)
    t0 = time.perf_counter()
    proc = subprocess.run([nvcc, "-ptx", f"-arch={ARCH}", str(cu), "-o", str(out)], capture_output=True, text=True,
                          timeout=300)
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"nvcc failed on {cu.name}: {proc.stderr.strip()}")
    return dt, out.read_text()


# ---- PTX instruction counts ---------------------------------------------------------------
def instructions(ptx: str, entry: str) -> list[str]:
    """The entry's instructions and labels (labels end with ':'), one string each."""
    start = ptx.index(f".entry {entry}(")
    body = ptx[ptx.index("{", ptx.index(")", start)) + 1:]
    out, cur = [], ""
    for line in body.splitlines():
        line = line.split("//")[0].strip()
        if not line or (not cur and line.startswith((".reg", ".local", ".shared", ".pragma"))):
            continue
        if not cur and re.fullmatch(r"[$\w]+:", line):
            out.append(line)
            continue
        cur = f"{cur} {line}".strip()
        if cur.endswith(";"):
            out.append(cur)
            cur = ""
        if cur == "}":
            break
    return out


def loop_body(ins: list[str]) -> tuple[list[str], bool]:
    """The main loop (a label and a branch back to it; of several, the one
    with the most MMAs, e.g. not nvcc's remainder loop), or the whole kernel."""
    labels = {s[:-1]: i for i, s in enumerate(ins) if s.endswith(":")}
    loops = []
    for j, s in enumerate(ins):
        m = re.search(r"\bbra(?:\.uni)?\s+([$\w]+);", s)
        if m and m.group(1) in labels and labels[m.group(1)] < j:
            body = [t for t in ins[labels[m.group(1)]:j + 1] if not t.endswith(":")]
            loops.append((-sum(".mma." in t.split()[0] for t in body), len(body), body))
    if not loops:
        return [s for s in ins if not s.endswith(":")], False
    return min(loops, key=lambda x: x[:2])[2], True


def classify(ins: list[str]) -> dict[str, int]:
    counts = {"wmma": 0, "ld": 0, "st": 0, "other": 0}
    for s in ins:
        op = s.split()[0] if not s.startswith("@") else s.split()[1]
        kind = "wmma" if op.startswith("wmma.") else "ld" if op.startswith("ld.") else \
            "st" if op.startswith("st.") else "other"
        counts[kind] += 1
    counts["mma"] = sum(1 for s in ins if ".mma." in s.split()[0])
    return counts


def describe(name: str, ptx: str, entry: str, arch: str = ARCH) -> dict:
    from tileforth.backends.cuda.ptx import ptxas
    info = ptxas(ptx, arch)[entry]
    body, is_loop = loop_body(instructions(ptx, entry))
    c = classify(body)
    return {"name": name, "regs": info.registers, "stack": info.stack_frame, "loop": is_loop, **c}


def fmt_counts(d: dict) -> str:
    per = max(d["mma"], 1)
    where = "K loop" if d["loop"] else "whole kernel (no loop)"
    total = d["wmma"] + d["ld"] + d["st"] + d["other"]
    return (f"{d['name']:<10} {d['regs']:>3} regs  stack {d['stack']:>2} B   {where:<22} "
            f"{d['mma']:>2} mma: wmma {d['wmma']:>3}  ld {d['ld']:>3}  st {d['st']:>3}  other {d['other']:>3}  "
            f"= {total / per:5.1f} per mma")


# ---- the run -----------------------------------------------------------------------------
def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer runs (5 warm, nvcc 1)")
    p.add_argument("--runs", type=int, default=None, help="warm tileforth runs (default 20, quick 5)")
    args = p.parse_args(argv)
    runs = args.runs or (5 if args.quick else 20)
    nv_runs = 1 if args.quick else 5

    from tileforth.backends.cuda.ptx import ptxas
    from tileforth.export.kernels import kernel_file_ptx, word_ptx
    from tileforth.core import Forth

    nvcc = nvcc_path()
    print(f"edit-to-PTX, {ARCH}; tileforth in-process (llvmlite NVPTX), nvcc {nvcc or 'NOT FOUND'}")

    # -- the small word --
    f = Forth()
    results: dict[str, tuple[float, float]] = {}
    counter = iter(range(10 ** 6))
    for label, heavy in (("default (O3)", True), ("REPL speed (tier 0)", False)):
        def one() -> None:
            i = next(counter)
            f.eval(saxpy_forth(i))
            ptx = word_ptx(f, f"saxpy{i}", ARCH, heavy=heavy)
            assert f".entry saxpy{i}(" in ptx
        results[label] = first_and_median([timed(one) for _ in range(runs + 1)])
    text = (ROOT / "demos" / "saxpy.fth").read_text()
    results["kernel file"] = first_and_median(
        [timed(lambda: kernel_file_ptx(text, ARCH, "saxpy.fth")) for _ in range(min(runs, 5) + 1)])
    i = next(counter)
    f.eval(saxpy_forth(i))
    info = ptxas(word_ptx(f, f"saxpy{i}", ARCH, heavy=False), ARCH)[f"saxpy{i}"]
    repl_regs = f"{info.registers} regs, stack {info.stack_frame} B"

    # -- the GEMM --
    g = Forth()
    g.eval(GEMM_DEMO.read_text(), source="gemm.fth")
    gdef = gemm_definition()

    def one_gemm() -> str:
        g.eval(gdef)  # a new `gemm` each time: nothing of it is cached
        return word_ptx(g, "gemm", ARCH)
    gemm_times = first_and_median([timed(one_gemm) for _ in range(max(runs // 2, 2) + 1)])
    gemm_ptx = one_gemm()

    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        nv_small = nv_gemm = None
        nv_gemm_ptx = nv_long_ptx = None
        if nvcc:
            nv_small = first_and_median([nvcc_ptx(nvcc, saxpy_cuda(i), work, f"saxpy{i}")[0]
                                         for i in range(nv_runs + 1)])
            gt = []
            for i in range(nv_runs + 1):
                dt, nv_gemm_ptx = nvcc_ptx(nvcc, gemm_cuda(64, 64, 64), work, f"gemm{i}")
                gt.append(dt)
            nv_gemm = first_and_median(gt)
            _, nv_long_ptx = nvcc_ptx(nvcc, gemm_cuda_runtime_k(), work, "gemm_rt")

    print("\nsmall word: a new saxpy (: saxpyN ... ; then its PTX)")
    print(f"  {'':<34} {'first':>10} {'median warm':>12}")
    for label, (first, med) in results.items():
        name = f"tileforth {label}" if label != "kernel file" else "tileforth compile demos/saxpy.fth*"
        print(f"  {name:<34} {first * 1e3:8.1f} ms {med * 1e3:9.1f} ms")
    if nv_small:
        print(f"  {'nvcc -ptx saxpy.cu':<34} {nv_small[0] * 1e3:8.1f} ms {nv_small[1] * 1e3:9.1f} ms")
        for label, (first, med) in results.items():
            ratio = nv_small[1] / med
            verdict = f"target ≥ {TARGET_RATIO:g}× ({'meets' if ratio >= TARGET_RATIO else 'MISSES'})" \
                if label != "kernel file" else "(includes a fresh session)"
            print(f"  nvcc / tileforth {label:<17} {ratio:8.1f}×   {verdict}")
    else:
        print("  nvcc: NOT MEASURED (nvcc not found)")
    print(f"  (* in-process, with a fresh session each time; the REPL-speed PTX: {repl_regs})")

    print("\nGEMM: demos/gemm.fth `gemm` (redefined, then its PTX) vs a WMMA .cu")
    print(f"  {'tileforth gemm':<34} {gemm_times[0] * 1e3:8.1f} ms {gemm_times[1] * 1e3:9.1f} ms")
    if nv_gemm:
        print(f"  {'nvcc -ptx gemm.cu':<34} {nv_gemm[0] * 1e3:8.1f} ms {nv_gemm[1] * 1e3:9.1f} ms")
        print(f"  nvcc / tileforth gemm             {nv_gemm[1] / gemm_times[1]:8.1f}×")

    print(f"\nGEMM code ({ARCH}; ptxas -v registers; PTX instructions, per MMA)")
    checked = check_gemm_kernel_file()
    rows = [("K = 64, constants (demos/gemm.fth)", describe("tileforth", gemm_ptx, "gemm"),
             describe("nvcc", nv_gemm_ptx, "gemm") if nv_gemm_ptx else None),
            (f"K a parameter (kernel file; {checked})",
             describe("tileforth", kernel_file_ptx(GEMM_KERNEL_FILE, ARCH), "gemm"),
             describe("nvcc", nv_long_ptx, "gemm") if nv_long_ptx else None)]
    for title, ours, theirs in rows:
        print(f"  {title}")
        print(f"    {fmt_counts(ours)}")
        print(f"    {fmt_counts(theirs)}" if theirs else "    nvcc: NOT MEASURED")
    return 0


if __name__ == "__main__":
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
