"""How much memory a session keeps as it is used (cpu backend), and what a
data script costs. Each figure is the growth of the process's resident memory
(/proc/self/statm) over the run, after one warm-up of the same kind.

    distinct lines     N different lines (`i 1 + DROP`): the kernel cache keeps
                       the 512 most recently used, the JIT engines of the others close
    definitions        N colon definitions, each used once
    dropped sessions   N sessions made and dropped, after N made and dropped first:
                       the shared JIT engines reach a plateau (about 35 MiB) in the
                       first ones; after that a dropped session must give its memory back
    closed sessions    N sessions of 65,536 threads (tens of MiB of stacks each), each closed before the
                       next, with the garbage collector off: close() gives the buffers back by itself
    data script        N `n ,` lines (a data table): no kernel per line

    python benchmarks/memory.py            # 3000 lines, 10000 definitions, 2×300 sessions, 2000 data lines
    python benchmarks/memory.py --quick    # a tenth of each
    python benchmarks/memory.py --lines 20000   # issue 13: resident memory after 20,000 distinct lines
    python benchmarks/memory.py --big      # issue 27.4: peak memory and time of lines at 1M, 2M and 4.3M threads

    big launches       each in a process of its own (its peak resident memory, ru_maxrss): a trivial line
                       at 1,048,576 and 2,097,152 threads, and at 1M a line that leaves one item on every
                       thread (the worst case of stacks kept between lines); the time is the median of
                       five runs of the line after a first (its compile), with the process's CPU time
                       (all its threads: the figure that holds when other processes share the cores); the
                       launch shape's setup (GRID/THREADS: its thread records and stacks) apart (issue 26:
                       `2048 2 33 GRID`, 4.3M threads)

Targets (issue 10): memory does not grow without bound with the number of
lines; a dropped session gives its memory back; a data script compiles no kernel.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def grown(run) -> tuple[float, float]:
    gc.collect()
    before, t0 = rss_mib(), time.perf_counter()
    run()
    gc.collect()
    return rss_mib() - before, time.perf_counter() - t0


BIG_CHILD = """
import json, resource, sys, time
from tileforth.core import Forth
shape, first, line = sys.argv[1:4]
f = Forth(backend="cpu")
t0, c0 = time.perf_counter(), time.process_time()
f.eval(shape)
shape_s, shape_cpu = time.perf_counter() - t0, time.process_time() - c0
f.eval(first)
setup = time.perf_counter() - t0
times, cpu = [], []
for _ in range(5):
    t0, c0 = time.perf_counter(), time.process_time()
    f.eval(line)
    times.append(time.perf_counter() - t0)
    cpu.append(time.process_time() - c0)
times.sort()
cpu.sort()
print(json.dumps({"setup": setup, "shape": shape_s, "shape_cpu": shape_cpu, "line": times[2], "cpu": cpu[2],
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "cells": f.backend.machine.ds_max}))
"""

BIG_CASES = (  # (what, the launch shape, the first line, the line timed)
    ("trivial line, 1M threads", "1024 1 1 GRID 1024 1 1 THREADS", "1 2 + DROP", "1 2 + DROP"),
    ("trivial line, 2M threads", "2048 1 1 GRID 1024 1 1 THREADS", "1 2 + DROP", "1 2 + DROP"),
    ("one item a thread, 1M", "1024 1 1 GRID 1024 1 1 THREADS", "GLOBAL-ID", "1 +"),
    ("trivial line, 4.3M threads", "2048 2 33 GRID", "1 2 + DROP", "1 2 + DROP"),  # issue 26: the shape's setup
)


def big_launches() -> None:
    """Issue 27.4's figures, each case in a fresh process (peak memory is the process's)."""
    import json
    import subprocess

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (os.getcwd(), os.environ.get("PYTHONPATH")) if p))
    for what, shape, first, line in BIG_CASES:
        out = subprocess.run([sys.executable, "-c", BIG_CHILD, shape, first, line], capture_output=True, text=True,
                             env=env)
        if out.returncode:
            print(f"{what:28s}: failed: {out.stderr.strip().splitlines()[-1:]}")
            continue
        got = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{what:28s}: peak {got['peak_mib']:7.0f} MiB, line {got['line'] * 1e3:7.1f} ms (CPU time "
              f"{got['cpu'] * 1e3:6.1f} ms, all its threads; shape {got['shape']:5.2f} s (CPU {got['shape_cpu']:5.2f} s), "
              f"with the first line {got['setup']:5.2f} s; {got['cells']} cells a stack)")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--lines", type=int, default=None, help="distinct lines (issue 13's figure: 20000)")
    p.add_argument("--big", action="store_true", help="only the big launches' figures (issue 27.4)")
    args = p.parse_args(argv)
    if args.big:
        big_launches()
        return 0
    scale = 10 if args.quick else 1
    lines, defs, sessions, data = 3000 // scale, 10000 // scale, 300 // scale, 2000 // scale
    lines = args.lines or lines

    from tileforth.core import Forth

    f = Forth()
    f.eval("1 1 + DROP")
    mib, secs = grown(lambda: [f.eval(f"{i} 1 + DROP") for i in range(lines)])
    print(f"distinct lines     {lines:6d}: {mib:7.1f} MiB  ({mib * 1024 / lines:5.1f} KiB a line, {secs:5.1f} s; "
          f"{len(f.kcache)} kernels cached)")
    print(f"  the process's resident memory after them: {rss_mib():.0f} MiB (issue 13's target after 20,000 "
          f"distinct lines: ≤ 300 MiB, ratio {rss_mib() / 300:.2f})")

    g = Forth()
    mib, secs = grown(lambda: [g.eval(f": w{i} {i} + ;  1 w{i} DROP") for i in range(defs)])
    print(f"definitions        {defs:6d}: {mib:7.1f} MiB  ({mib * 1024 / defs:5.1f} KiB a definition, {secs:5.1f} s)")

    def make_and_drop() -> None:
        for _ in range(sessions):
            s = Forth()
            s.eval("2 3 + DROP")
            del s
    first, _ = grown(make_and_drop)  # warm-up: the shared engines' plateau
    mib, secs = grown(make_and_drop)
    print(f"first {sessions} sessions: {first:5.1f} MiB (the shared engines' plateau); then")
    print(f"dropped sessions   {sessions:6d}: {mib:7.1f} MiB  ({mib * 1024 / sessions:5.1f} KiB a session, {secs:5.1f} s)")

    closed = 20 // scale

    def make_and_close() -> int:
        """(the garbage collector off, no collection after: what close() frees, it frees itself)"""
        state = 0
        for _ in range(closed):
            s = Forth()
            s.eval("256 1 1 GRID 256 1 1 THREADS  1 DROP")
            state = s.backend.state.nbytes
            s.close()
        return state
    make_and_close()  # warm-up
    gc.collect()
    gc.disable()
    try:
        before, t0 = rss_mib(), time.perf_counter()
        state = make_and_close()
        mib, secs = rss_mib() - before, time.perf_counter() - t0
    finally:
        gc.enable()
    print(f"closed sessions    {closed:6d}: {mib:7.1f} MiB  (the garbage collector off; each session's state buffer "
          f"{state / 2**20:.0f} MiB, {secs:5.1f} s)")

    h = Forth()
    before = len(h.kcache)
    mib, secs = grown(lambda: h.eval("\n".join(f"{i} ," for i in range(data))))
    print(f"data script        {data:6d}: {mib:7.1f} MiB  ({secs:5.2f} s, {len(h.kcache) - before} kernels compiled)")
    return 0


if __name__ == "__main__":
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
