"""The instruction mix of a kernel's innermost loop, read from its SASS (no GPU, no timing).

demos/gemm.fth's two GEMM words (one 16x16 tile per warp; 2x2 accumulators per warp) are
compiled for an arch as the cuda backend would (ptxas, then nvdisasm or cuobjdump: tests/sass.py),
with KK raised so that the k loop is a loop (at the demo's KK = 64 LLVM unrolls it away):

    export   word_ptx: the word as a standalone kernel, its arrays as parameters (--unchecked)
    repl     segment_ptx: the kernel a REPL line `gemm` runs (checked: address and step checks)

and one row per kernel gives the innermost loop's length and its HMMA, LDG, LD (generic), LDS,
MOVM, IMAD, IADD3, ISETP counts, then per HMMA. A second table reads demos/gemm_async.fth (the
Ampere recipe: cp.async ring, ldmatrix, mma.sync, a 4x8 grid of m16n8 accumulators per warp),
compiled as `tileforth compile` compiles it, checked and --unchecked: its k loop (one 32-deep k-tile
of a 128x128 block tile) with HMMA, LDSM, LDGSTS, BAR, LDS, LDG, LD and MOVM counts, and ptxas's
registers, spills and shared memory.

    python benchmarks/sass_mix.py                 # sm_90, KK = 1024
    python benchmarks/sass_mix.py --arch sm_80 --kk 512
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # tests/sass.py: the SASS reader
sys.path.insert(0, str(ROOT))

COLUMNS = ("HMMA", "LDG", "LD", "LDS", "MOVM", "IMAD", "IADD3", "ISETP")
ASYNC_COLUMNS = ("HMMA", "LDSM", "LDGSTS", "BAR", "LDS", "LDG", "LD", "MOVM")


def gemm_definitions(kk: int) -> str:
    """demos/gemm.fth with KK = kk, its definitions only (the lines that launch or print are left out)."""
    text = (ROOT / "demos" / "gemm.fth").read_text().replace("64 CONSTANT KK", f"{kk} CONSTANT KK")
    assert f"{kk} CONSTANT KK" in text, "demos/gemm.fth no longer defines KK as 64"
    keep = [ln for ln in text.splitlines() if "GRID" not in ln and not ln.lstrip().startswith('."')]
    return "\n".join(keep)


def loop_mix(ptx: str, arch: str) -> tuple[int, Counter]:
    import sass
    funcs = sass.sass(sass.cubin(ptx, arch))
    ins = max(funcs.values(), key=len)  # the kernel (a REPL segment may come with helper functions)
    # the innermost loop with the most HMMA (a checked kernel has small loops of its own: the range scan)
    loop = max(sass.inner_loops(ins), key=lambda lp: (sass.opcodes(lp).count("HMMA"), -len(lp)))
    return len(loop), Counter(sass.opcodes(loop))


def async_rows(arch: str) -> list[tuple[str, int, Counter, str]]:
    """demos/gemm_async.fth's k loop, checked and unchecked: (name, loop length, its mix, ptxas's report)."""
    import re

    import sass
    from tileforth.export.kernels import kernel_file_ptx

    demo = ROOT / "demos" / "gemm_async.fth"
    out = []
    for unchecked in (False, True):
        ptx = kernel_file_ptx(demo.read_text(), arch, demo.name, unchecked=unchecked)
        ins = sass.sass(sass.cubin(ptx, arch))["gemm_async"]
        loops = [lp for lp in sass.inner_loops(ins) if "HMMA" in sass.opcodes(lp)]
        loop = max(loops, key=lambda lp: sass.opcodes(lp).count("HMMA"))
        report = _ptxas_report(ptx, arch)
        m = re.search(r"Used (\d+) registers.*?(\d+) bytes smem", report, re.S)
        spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", report)
        what = (f"{m.group(1)} registers, {m.group(2)} bytes shared" if m else report.strip()[:60]) + \
            (f", {spill.group(1)}+{spill.group(2)} bytes spilled" if spill else "")
        out.append((f"gemm_async {'unchecked' if unchecked else 'checked'}", len(loop), Counter(sass.opcodes(loop)),
                    what))
    return out


def _ptxas_report(ptx: str, arch: str) -> str:
    """ptxas -v's report of a PTX module (registers, spills, shared memory)."""
    import subprocess
    import tempfile

    import sass
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "k.ptx"
        src.write_text(ptx)
        r = subprocess.run([sass.require("ptxas"), f"-arch={arch}", "-v", str(src), "-o", str(Path(d) / "k.cubin")],
                           capture_output=True, text=True, timeout=600)
        return r.stderr + r.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--kk", type=int, default=1024, help="the GEMM's K (a multiple of 16)")
    args = ap.parse_args()
    import sass
    if sass.tool_path("ptxas") is None:
        print("ptxas not found: pip install nvidia-cuda-nvcc (NOT MEASURED)")
        return
    from tileforth.core import Forth
    from tileforth.export.kernels import segment_ptx, word_ptx

    f = Forth()
    f.eval(gemm_definitions(args.kk))
    rows = []
    for word, threads in (("gemm", "64 1 1 THREADS"), ("gemm2", "32 1 1 THREADS")):
        rows.append((f"{word} export", loop_mix(word_ptx(f, word, args.arch, unchecked=True), args.arch)))
        f.eval(threads)
        kernels: list[str] = []
        f.on_segment = lambda nodes, tiles: kernels.append(segment_ptx(f, nodes, tiles, args.arch, heavy=True))
        try:
            f.eval(f"1 1 1 GRID {word}")  # one block: the launch's result does not matter, only its code
        finally:
            f.on_segment = None
        rows.append((f"{word} repl", loop_mix(kernels[-1], args.arch)))
    print(f"innermost loop of demos/gemm.fth's kernels, {args.arch}, KK = {args.kk} (SASS opcode counts)")
    print(f"{'kernel':<14}{'instrs':>7}" + "".join(f"{c:>7}" for c in COLUMNS) + "   per HMMA: instrs LDG LD")
    for name, (n, mix) in rows:
        h = mix["HMMA"] or 1
        print(f"{name:<14}{n:>7}" + "".join(f"{mix[c]:>7}" for c in COLUMNS)
              + f"   {n / h:6.2f} {mix['LDG'] / h:4.1f} {mix['LD'] / h:4.1f}")
    print(f"\nk loop of demos/gemm_async.fth, {args.arch} (one k-tile: 32 of k for a 128x128 block tile; "
          "per warp 2 x (4 + 8 ldmatrix, 32 mma.sync); per thread 8 cp.async of 16 bytes)")
    print(f"{'kernel':<22}{'instrs':>7}" + "".join(f"{c:>7}" for c in ASYNC_COLUMNS) + "   ptxas")
    for name, n, mix, what in async_rows(args.arch):
        print(f"{name:<22}{n:>7}" + "".join(f"{mix[c]:>7}" for c in ASYNC_COLUMNS) + f"   {what}")


if __name__ == "__main__":
    main()
