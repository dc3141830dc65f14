"""What ptxas makes of a warpgroup-MMA kernel for sm_90a (no GPU, no timing): registers, spills, HGMMA count and
any wgmma warning (C7510: serialised across a function boundary; C7515-C7520: waits ptxas injected).

The kernel is one warpgroup's 64 x N tile with K = 64 from two 128-byte-swizzled shared tiles staged with
cp.async: four WGMMAs m64nNk16 (a word holding them, inlined), one 0 WGMMA-WAIT, an epilogue through WGLANE@ /
WGLANE! and WGSTORE -- exported as `tileforth compile --arch sm_90a` would (word_ptx).

    python benchmarks/wgmma_sass.py                # N = 64 128 256, bf16; then the Hopper GEMM demos
    python benchmarks/wgmma_sass.py --n 8 32 --in F16

Then the Hopper GEMM demos (demos/gemm_hopper*.fth, unchecked, as the device check runs them): registers,
spills, HGMMA and UTMALDG counts, static and dynamic shared memory, threads per block (--no-demos: not them).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # tests/sass.py: the SASS reader
sys.path.insert(0, str(ROOT))


def kernel_source(n: int, in_type: str) -> str:
    t = in_type.upper()
    return (f"128 1 1 THREADS  {t} TILE-IN  64 {n} 16 WG-SHAPE  64 64 {t} MATRIX A  {n} 64 {t} MATRIX B  "
            f"64 {n} F32 MATRIX C  64 64 {t} 1 SMEM-TILE-SWZ sA  {n} 64 {t} 1 SMEM-TILE-SWZ sB\n"
            ": mm4 ( T: wacc -- wacc )  4 0 DO 0 0 I 16 * 128 WGDESC sA 0 0 I 16 * 128 WGDESC sB WGMMA 0 WGMMA-WAIT "
            "LOOP ;\n"
            ": gemm  A 128 0 sA sA-GEOM STAGE-TILE  B 128 0 sB sB-GEOM STAGE-TILE  CP.COMMIT 0 CP.WAIT BARRIER "
            f"FENCE-ASYNC  WGZERO mm4  0 WGLANE@ 2e F* 0 WGLANE!  C {n} WGSTORE ;")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, nargs="+", default=[64, 128, 256])
    ap.add_argument("--in", dest="in_type", default="BF16", choices=["BF16", "F16"])
    ap.add_argument("--no-demos", action="store_true", help="only the warpgroup kernels, not demos/gemm_hopper*")
    args = ap.parse_args()
    import sass
    from tileforth.core import Forth
    from tileforth.export.kernels import word_ptx
    exe = sass.require("ptxas")
    print(f"{'N':>4} {'regs':>5} {'spill':>6} {'HGMMA':>6} {'WARPGROUP':>9}  warnings")
    for n in args.n:
        f = Forth(backend="cpu")
        for line in kernel_source(n, args.in_type).splitlines():
            f.eval(line)
        ptx = word_ptx(f, "gemm", "sm_90a")
        log, cubin = _ptxas(exe, ptx)
        ops = sass.opcodes(next(iter(sass.sass(cubin).values())))
        regs = re.search(r"Used (\d+) registers", log)
        spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", log)
        warns = sorted(set(re.findall(r"C75\d\d", log))) or ["none"]
        print(f"{n:>4} {regs.group(1) if regs else '?':>5} "
              f"{(spill.group(1) + '+' + spill.group(2)) if spill else '?':>6} {ops.count('HGMMA'):>6} "
              f"{ops.count('WARPGROUP'):>9}  {' '.join(warns)}")
    if not args.no_demos:
        demos(exe)


def _ptxas(exe: str, ptx: str) -> tuple[str, bytes]:
    """ptxas -v for sm_90a: its log (stdout and stderr) and the cubin (empty if ptxas made none)."""
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "k.ptx"
        src.write_text(ptx)
        cubin = src.with_suffix(".cubin")
        proc = subprocess.run([exe, "-arch=sm_90a", "-v", str(src), "-o", str(cubin)],
                              capture_output=True, text=True, timeout=300)
        return proc.stdout + proc.stderr, cubin.read_bytes() if cubin.exists() else b""


def demos(exe: str) -> None:
    """Each Hopper GEMM demo's resources for sm_90a, the unchecked export the device check launches."""
    import sass
    from tileforth.core.compile.target import dynamic_shared
    from tileforth.export.kernelfile import block_shared_bytes, parse_kernel_file
    from tileforth.export.kernels import kernel_file_ptx
    print(f"\n{'demo':22} {'regs':>5} {'spill':>6} {'HGMMA':>22} {'UTMALDG':>7} {'smem':>6} {'dynamic':>7} "
          f"{'block':>5}  warnings")
    for path in sorted((ROOT / "demos").glob("gemm_hopper*.fth")):
        text = path.read_text()
        spec = parse_kernel_file(text, str(path))
        ptx = kernel_file_ptx(text, "sm_90a", str(path), unchecked=True)
        log, cubin = _ptxas(exe, ptx)
        full = [i.opcode for i in sum(sass.sass(cubin).values(), [])]
        regs = re.search(r"Used (\d+) registers", log)
        spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", log)
        smem = re.search(r"(\d+) bytes smem", log)
        shapes = sorted({o.split(".")[1] for o in full if o.startswith("HGMMA.")})
        hgmma = f"{sum(o.startswith('HGMMA.') for o in full)} x {','.join(shapes) or '-'}"
        warns = sorted(set(re.findall(r"C75\d\d", log))) or ["none"]
        print(f"{path.name:22} {regs.group(1) if regs else '?':>5} "
              f"{(spill.group(1) + '+' + spill.group(2)) if spill else '?':>6} {hgmma:>22} "
              f"{sum(o.startswith('UTMALDG') for o in full):>7} {smem.group(1) if smem else '0':>6} "
              f"{dynamic_shared(block_shared_bytes(spec)):>7} {(spec.block or (32, 1, 1))[0]:>5}  {' '.join(warns)}")


if __name__ == "__main__":
    main()
