"""The emulator's time for demos/gemm_async.fth next to demos/gemm.fth's 2x2 wmma GEMM (`gemm2`), same size.

    gemm2        demos/gemm.fth: one warp per 32x32 block of C, 2x2 m16n16k16 accumulators, fragments
                 loaded straight from global memory (f16 in, f32 out)
    gemm_async   demos/gemm_async.fth: 4 warps per 128x128 block, a three-stage cp.async ring of shared
                 tiles (both 128-byte swizzled), ldmatrix, mma.sync m16n8k16, a 64x64 warp tile (one 4x8 grid of
                 accumulators; bf16 in, f32 out), run as
                 `tileforth run` runs it (run_kernel_file: the arrays allocated and filled, the body read
                 and compiled, one launch), and its launch alone (the body read once, launched again)

Each is timed on the cpu backend, checked (the default session), first run (compile + run) and the median
of warm runs in the same session; both results are compared with numpy (integer inputs: exact). The last
line is the ratio gemm_async / gemm2 (issue 28's target: at most 3 at 256x256x256).

    python benchmarks/gemm_async.py                 # 256x256x256, 3 warm runs
    python benchmarks/gemm_async.py --size 128 --warm 1
    python benchmarks/gemm_async.py --quick         # 64x64x64, 1 warm run
    python benchmarks/gemm_async.py --cpu-time      # the process's CPU time (all threads), not wall time:
                                                    # steadier on a shared machine (TILEFORTH_WORKERS=1 for one thread)
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BLOCK_TILE = 128  # the rows and columns of C one block of demos/gemm_async.fth computes
sys.path.insert(0, str(ROOT))


def gemm2_definitions(n: int) -> str:
    """demos/gemm.fth with MM = NN = KK = n, its definitions only (the lines that launch or print left out)."""
    text = (ROOT / "demos" / "gemm.fth").read_text()
    old = "64 CONSTANT MM   64 CONSTANT NN   64 CONSTANT KK"
    assert old in text, "demos/gemm.fth no longer defines MM NN KK as 64"
    text = text.replace(old, f"{n} CONSTANT MM   {n} CONSTANT NN   {n} CONSTANT KK")
    return "\n".join(ln for ln in text.splitlines() if "GRID" not in ln and not ln.lstrip().startswith('."'))


def inputs(n: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n)
    return rng.integers(-4, 5, (n, n)).astype(dtype), rng.integers(-4, 5, (n, n)).astype(dtype)


CLOCK = time.perf_counter  # main() makes it time.process_time with --cpu-time


def timed(run, warm: int) -> tuple[float, float]:
    t0 = CLOCK()
    run()
    first = CLOCK() - t0
    times = []
    for _ in range(warm):
        t0 = CLOCK()
        run()
        times.append(CLOCK() - t0)
    return first, statistics.median(times) if times else first


def bench_gemm2(n: int, warm: int) -> tuple[float, float, bool]:
    from tileforth.core import Forth

    f = Forth(backend="cpu")
    f.eval(gemm2_definitions(n), source="gemm.fth")
    a, b = inputs(n, np.float16)
    f.set_array("A", a)
    f.set_array("B", b)
    first, median = timed(lambda: f.eval("NN 32 / MM 32 / 1 GRID  32 1 1 THREADS  gemm2"), warm)
    exact = np.array_equal(f.array("C2"), a.astype(np.float64) @ b.astype(np.float64))
    f.close()
    return first, median, exact


def bench_gemm_async(n: int, warm: int) -> tuple[float, float, bool]:
    """run_kernel_file, as `tileforth run` runs the file: the first and the median of the warm runs."""
    import ml_dtypes

    from tileforth.core import Forth
    from tileforth.export.kernelfile import parse_kernel_file, run_kernel_file

    spec = parse_kernel_file((ROOT / "demos" / "gemm_async.fth").read_text(), "gemm_async.fth")
    f = Forth(backend="cpu")
    a, b = inputs(n, ml_dtypes.bfloat16)
    c = np.zeros((n, n), np.float32)
    blocks = (-(-n // BLOCK_TILE), -(-n // BLOCK_TILE), 1)
    first, median = timed(lambda: run_kernel_file(f, spec, {"A": a, "B": b, "C": c}, grid=blocks), warm)
    exact = np.array_equal(c, a.astype(np.float64) @ b.astype(np.float64))
    f.close()
    return first, median, exact


def bench_gemm_async_launch(n: int, warm: int) -> tuple[float, float, bool]:
    """The launch alone, as gemm2's warm runs are: the body read once (its words compiled), then its nodes
    launched again (the first figure is the launch that follows the first run_kernel_file)."""
    import ml_dtypes

    from tileforth.core import Forth
    from tileforth.export.kernelfile import parse_kernel_file, read_body, run_kernel_file

    spec = parse_kernel_file((ROOT / "demos" / "gemm_async.fth").read_text(), "gemm_async.fth")
    f = Forth(backend="cpu")
    a, b = inputs(n, ml_dtypes.bfloat16)
    run_kernel_file(f, spec, {"A": a, "B": b, "C": np.zeros((n, n), np.float32)},
                    grid=(-(-n // BLOCK_TILE), -(-n // BLOCK_TILE), 1))
    f.set_array("C", np.zeros(n * n, np.float32))
    nodes = read_body(f, spec)
    first, median = timed(lambda: f.run_nodes(nodes), warm)
    exact = np.array_equal(f.array("C").reshape(n, n), a.astype(np.float64) @ b.astype(np.float64))
    f.close()
    return first, median, exact


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=256, help="M = N = K (a multiple of 32: gemm2's block tile)")
    ap.add_argument("--warm", type=int, default=3, help="warm runs after the first (their median is shown)")
    ap.add_argument("--quick", action="store_true", help="64x64x64, 1 warm run")
    ap.add_argument("--cpu-time", action="store_true", help="time by the process's CPU time (time.process_time)")
    args = ap.parse_args()
    global CLOCK
    if args.cpu_time:
        CLOCK = time.process_time
    n, warm = (64, 1) if args.quick else (args.size, args.warm)
    print(f"{n}x{n}x{n} on the cpu emulator (checked), first run (compile+run) and median of {warm} warm run(s)"
          + (", CPU time" if args.cpu_time else ""))
    rows = {}
    for name, bench in (("gemm2 (demos/gemm.fth, 2x2 wmma)", bench_gemm2),
                        ("gemm_async, run_kernel_file", bench_gemm_async),
                        ("gemm_async, the launch alone", bench_gemm_async_launch)):
        first, median, exact = bench(n, warm)
        rows[name] = (first, median)
        print(f"  {name:36} first run {first * 1e3:9.1f} ms   warm run {median * 1e3:9.1f} ms   "
              f"{'exact vs numpy' if exact else 'NOT EXACT vs numpy'}")
    (f2, w2), (fa, wa), (_, wl) = rows.values()
    print(f"  ratio gemm_async / gemm2: first run {fa / f2:.2f}x, warm run {wa / w2:.2f}x, "
          f"launch alone / gemm2's warm run {wl / w2:.2f}x (target <= 3x)")


if __name__ == "__main__":
    main()
