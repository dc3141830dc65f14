"""Blocks on all cores: a 64-block kernel run with one worker (blocks one after another)
and with one worker per core, and the speedup (issue 13's target: ≥ 1.7× on 2 cores).

    python benchmarks/parallel.py

The kernel is loop-heavy integer work per thread, 64 blocks × 64 threads, in a checked
session (the race detector on) and in an unchecked one; both runs must leave the same
memory, which the script checks before it prints a figure.
"""
from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

SETUP = "64 1 1 GRID 64 1 1 THREADS 4096 I64 ARRAY out"
KERNEL = ": work 0 20000 0 DO I GLOBAL-ID XOR + LOOP out GLOBAL-ID CELLS + ! ;"


def run(workers: int, checked: bool, repeats: int = 5) -> tuple[float, np.ndarray]:
    from tileforth.core import Forth

    f = Forth(backend="cpu", checked=checked)
    f.backend.workers = workers
    f.eval(SETUP)
    f.eval(KERNEL)
    f.eval("work")  # compile
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f.eval("work")
        times.append(time.perf_counter() - t0)
    return statistics.median(times), f.array("out").copy()


def main() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    print(f"64 blocks × 64 threads, 20,000 loop iterations per thread; {cores} cores")
    for checked in (True, False):
        one, ref = run(1, checked)
        many, got = run(cores, checked)
        if not np.array_equal(ref, got):
            raise SystemExit("the parallel run left different memory")
        print(f"  {'checked  ' if checked else 'unchecked'}  1 worker {one * 1e3:7.1f} ms   {cores} workers "
              f"{many * 1e3:7.1f} ms   speedup {one / many:4.2f}×   (target ≥ 1.7× on 2 cores)")
    return 0


if __name__ == "__main__":
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
