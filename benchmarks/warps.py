"""How fast the cpu backend emulates warp shuffles and votes.

A warp sum (five SHFL-XOR steps, the butterfly of CUDA's warp reductions)
and a BALLOT, over a grid of blocks of 256 threads.  The emulator performs
a launch step's shuffle or vote for every warp of the launch at once
(tileforth/backends/cpu/warpops.py, WarpOps._warp_ops); the figure beside it is the
same line warp by warp, the path errors are worded on, which it took
before.  Each result is checked against numpy.

    python benchmarks/warps.py            # 65,536 threads, 5 warm runs
    python benchmarks/warps.py --quick    # 4,096 threads, 1 warm run
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

WARP_SUM = ": wsum ( x -- s )  16 BEGIN DUP WHILE  OVER OVER SHFL-XOR ROT + SWAP 2/  REPEAT DROP ;"
LINES = {
    "warp sum (5 SHFL-XOR)": "TID-X 3 * 1+ wsum  OUT GLOBAL-ID CELLS + !",
    "BALLOT": "TID-X 3 MOD 0= BALLOT  OUT GLOBAL-ID CELLS + !",
}


def expected(name: str, threads: int) -> np.ndarray:
    tid = np.arange(threads) % 256
    if name == "BALLOT":
        flags = (tid % 3 == 0).reshape(-1, 32)
        return np.repeat((flags * (1 << np.arange(32))).sum(axis=1), 32)
    return np.repeat((tid * 3 + 1).reshape(-1, 32).sum(axis=1), 32)


def timed(f, line: str, runs: int) -> float:
    f.eval(line)  # compiles it
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f.eval(line)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None) -> int:
    from tileforth.backends.cpu import warpops
    from tileforth.core import Forth

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="4,096 threads, one warm run")
    args = p.parse_args(argv)
    blocks, runs = (16, 1) if args.quick else (256, 5)
    threads = blocks * 256
    f = Forth(backend="cpu")
    f.eval(f"{blocks} 1 1 GRID 256 1 1 THREADS  {threads} I64 ARRAY OUT")
    f.eval(WARP_SUM)
    print(f"warp shuffles and votes on the cpu emulator: {threads:,} threads ({blocks} blocks of 256), "
          f"median of {runs} warm run{'s' * (runs > 1)}")
    batched = warpops.WarpOps._warp_ops
    for name, line in LINES.items():
        fast = timed(f, line, runs)
        if not np.array_equal(f.array("OUT"), expected(name, threads)):
            raise SystemExit(f"warps: {name} left the wrong values")
        warpops.WarpOps._warp_ops = lambda *a: False  # the warp-by-warp path
        try:
            slow = timed(f, line, runs)
        finally:
            warpops.WarpOps._warp_ops = batched
        if not np.array_equal(f.array("OUT"), expected(name, threads)):
            raise SystemExit(f"warps: {name}, warp by warp, left the wrong values")
        print(f"  {name:<24} {fast * 1e3:8.1f} ms   warp by warp {slow * 1e3:8.1f} ms   "
              f"({slow / fast:.1f}× faster batched; checked against numpy)")
    return 0


if __name__ == "__main__":
    import sys

    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
