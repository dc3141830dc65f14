"""The instruction mix of a kernel's innermost loop, read from its SASS (no GPU, no timing).

demos/gemm.fth's two GEMM words (one 16x16 tile per warp; 2x2 accumulators per warp) are
compiled for an arch as the cuda backend would (ptxas, then nvdisasm or cuobjdump: tests/sass.py),
with KK raised so that the k loop is a loop (at the demo's KK = 64 LLVM unrolls it away):

    export   word_ptx: the word as a standalone kernel, its arrays as parameters (--unchecked)
    repl     segment_ptx: the kernel a REPL line `gemm` runs (checked: address and step checks)

and one row per kernel gives the innermost loop's length and its HMMA, LDG, LD (generic), LDS,
MOVM, IMAD, IADD3, ISETP counts, then per HMMA.

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


if __name__ == "__main__":
    main()
