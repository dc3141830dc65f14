"""Per-line host work against the number of threads (issue 13): what a line costs
beyond its launch, printed with each target and the ratio (figure / target; ≤ 1 meets it).

    python benchmarks/hostwork.py

- a line that launches a kernel (`0 DROP`) and an empty line at 65,536 threads:
  the line's time minus its launch (the snapshot a failing line restores, the
  read-back);
- `1024 1 1 GRID 1024 1 1 THREADS` (1M threads) from a fresh session: the
  line's time and how much the process's peak memory grew (in a process of its
  own, so the peak is the line's);
- `7 .` at 65,536 threads: the line's time minus its launch (formatting 65,536
  output records);
- `f.data_stack(lane=None)` at 65,536 threads holding 3 cells each;
- a word called through `f.kernel` at 65,536 threads with a 65,536-cell array:
  the call minus its launch;
- issue 27: a trivial cached line at 135,168 and 1,048,576 threads (target ≤ 40 ms at 1M on cpu), and a
  2M-thread line (the 4096³ GEMM shape) in a process of its own: its time and peak memory. The cuda rows
  are the device check's big_launch step.
- issue 26: `.STACKS` in a host-level loop (`: t 1000 0 DO .STACKS LOOP ;`) and `.S` in a launch's loop,
  per iteration, with gforth's `.S` loop beside them (`python benchmarks/hostwork.py --stacks`: these rows only).
"""
from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

SHAPE = "64 1 1 GRID 1024 1 1 THREADS"  # 65,536 threads


def _session():
    from tileforth.core import Forth

    return Forth(backend="cpu")


def _median(fn, repeats: int = 9) -> float:
    fn()  # warm (compile, caches)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _beyond_launch(f, line: str, repeats: int = 9) -> tuple[float, float]:
    """(the line's host time beyond its launch and compile, the launch), medians."""
    f.eval(line)
    host, run = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f.eval(line)
        total = time.perf_counter() - t0
        t = f.line_timing
        host.append(total - t["run"] - t["compile"])
        run.append(t["run"])
    return statistics.median(host), statistics.median(run)


def _row(what: str, figure: float, target: float, unit: str = "ms", note: str = "") -> None:
    scale = {"ms": 1e3, "s": 1.0, "GiB": 1 / 2**30}[unit]
    fig, tgt = figure * scale, target * scale
    print(f"  {what:<52} {fig:9.3f} {unit:<3}  target ≤ {tgt:g} {unit:<3}  ratio {figure / target:5.2f}"
          + (f"   {note}" if note else ""))


def grid_child() -> None:
    """Run in a process of its own: the GRID/THREADS line at 1M threads; prints seconds and bytes."""
    f = _session()
    f.eval("1 2 DROP DROP")
    rss = _rss_now()
    t0 = time.perf_counter()
    f.eval("1024 1 1 GRID 1024 1 1 THREADS")
    dt = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    assert f.backend.nthreads == 1 << 20
    print(dt, peak - rss)


def _rss_now() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main() -> int:
    print("per-line host work at 65,536 threads (cpu backend), medians")
    f = _session()
    f.eval(SHAPE)
    host, run = _beyond_launch(f, "0 DROP")
    _row("a line with a launch (`0 DROP`), beyond the launch", host, 2e-3, note=f"launch {run * 1e3:.2f} ms")
    empty = _median(lambda: f.eval(""))
    _row("an empty line", empty, 2e-3)
    host, run = _beyond_launch(f, "7 .")
    out = f.eval("7 .")
    assert out == "7 ", out
    _row("`7 .`, beyond the launch", host, 10e-3, note=f"launch {run * 1e3:.2f} ms")
    f.eval("1 2 3")
    rows = f.data_stack(lane=None)
    assert len(rows) == 1 << 16 and rows[-1] == [1, 2, 3]
    _row("f.data_stack(lane=None), 3 cells per thread", _median(lambda: f.data_stack(lane=None)), 10e-3)
    f.eval("DROP DROP DROP")
    f.eval(": fill ( addr -- ) GLOBAL-ID CELLS + GLOBAL-ID SWAP ! ;")
    k = f.kernel("fill")
    arr = np.zeros(1 << 16, np.int64)
    grid, block = (64, 1, 1), (1024, 1, 1)
    k(arr, grid=grid, block=block)
    assert (arr == np.arange(1 << 16)).all()
    host, run = [], []
    for _ in range(9):
        t0 = time.perf_counter()
        k(arr, grid=grid, block=block)
        total = time.perf_counter() - t0
        host.append(total - f.last_timing["run"] - f.last_timing["compile"])
        run.append(f.last_timing["run"])
    _row("f.kernel call (a 65,536-cell array), beyond the launch", statistics.median(host), 10e-3,
         note=f"launch {statistics.median(run) * 1e3:.2f} ms")

    res = subprocess.run([sys.executable, __file__, "--grid-child"], capture_output=True, text=True, check=True)
    seconds, grown = (float(x) for x in res.stdout.split()[-2:])
    print("a GRID/THREADS line to 1M threads (1024 blocks of 1024), in a fresh process")
    _row("its time", seconds, 0.5, "s")
    _row("the peak memory it adds", grown, 2 * 2**30, "GiB")
    big_lines()
    stack_views()
    res = subprocess.run([sys.executable, __file__, "--2m-child"], capture_output=True, text=True, check=True)
    seconds, peak = (float(x) for x in res.stdout.split()[-2:])
    print("a 2M-thread line (2048 blocks of 1024: the 4096³ GEMM shape with a warp per tile), in a fresh process:"
          " `GLOBAL-ID 3 *`, checked against numpy")
    _row("its time (the launch shape, then the line)", seconds, 10.0, "s", note="no target in issue 27: it runs")
    _row("the process's peak memory", peak, 4 * 2**30, "GiB", note="bounded: the 2M threads' stacks and records")
    print("  cuda rows (135,168, 1M and 2M threads on the GPU): the device check's big_launch step "
          "(benchmarks/device_check.sh); unmeasured here, without a GPU")
    return 0


def stack_views() -> None:
    """Issue 26: a stack view shown again and again in a loop, per iteration (32 threads, 3 cells and a float)."""
    f = _session()
    print("a stack view in a loop of 1000 iterations (cpu backend, 32 threads), medians of 5, per iteration")
    f.eval("1 2 3 1e : th 1000 0 DO .STACKS LOOP ;  : td 1000 0 DO .S LOOP ;")
    assert f.eval("th").count("data  <3> 1 2 3") == 1000
    _row("`.STACKS` in a host-level loop", _median(lambda: f.eval("th"), 5) / 1000, 50e-6)
    _row("`.S` in a launch's loop (1000 output records per thread)", _median(lambda: f.eval("td"), 5) / 1000, 50e-6)
    import shutil
    if shutil.which("gforth"):
        def gforth(n: int) -> float:
            t0 = time.perf_counter()
            subprocess.run(["gforth", "-e", f"1 2 3 : t {n} 0 ?DO .S LOOP ; t bye"], stdout=subprocess.DEVNULL,
                           check=True)
            return time.perf_counter() - t0
        per = (statistics.median(gforth(100_000) for _ in range(3)) - statistics.median(gforth(0) for _ in range(3)))
        print(f"  gforth's `.S` loop, for comparison: {per / 100_000 * 1e6:.2f} us per iteration (one thread)")


def big_lines() -> None:
    """Issue 27: a trivial line (`0 DROP`, cached) at 135,168 and 1,048,576 threads, with its split."""
    f = _session()
    print("a trivial line (`0 DROP`, its kernel cached) at many threads (cpu backend), medians of 9")
    for grid, target in ((132, 40e-3), (1024, 40e-3)):
        f.eval(f"{grid} 1 1 GRID 1024 1 1 THREADS")
        f.eval("0 DROP")
        total, run, snap, cpu = [], [], [], []
        for _ in range(9):
            t0 = time.perf_counter()
            s = f.device.snapshot()
            t1 = time.perf_counter()
            del s
            c0 = resource.getrusage(resource.RUSAGE_SELF)
            f.eval("0 DROP")
            c1 = resource.getrusage(resource.RUSAGE_SELF)
            t2 = time.perf_counter()
            snap.append(t1 - t0)
            total.append(t2 - t1)
            cpu.append((c1.ru_utime + c1.ru_stime) - (c0.ru_utime + c0.ru_stime))
            run.append(f.line_timing["run"])
        n = grid * 1024
        _row(f"at {n:,} threads", statistics.median(total), target,
             note=f"the launch {statistics.median(run) * 1e3:.1f} ms (records reset, blocks run), the snapshot "
                  f"{statistics.median(snap) * 1e3:.1f} ms; fastest {min(total) * 1e3:.1f} ms; the process's CPU "
                  f"time (all its threads) {statistics.median(cpu) * 1e3:.1f} ms")


def big_child() -> None:
    """Run in a process of its own: the 2M-thread line; prints seconds and the peak memory in bytes."""
    from tileforth.core.compile.state import StackView
    f = _session()
    t0 = time.perf_counter()
    f.eval("2048 1 1 GRID 1024 1 1 THREADS  GLOBAL-ID 3 *")
    dt = time.perf_counter() - t0
    v = StackView.read(f.backend)
    assert (v.dsp == 1).all() and np.array_equal(v.ds[:, 0], np.arange(2048 * 1024) * 3)
    print(dt, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)


if __name__ == "__main__":
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    if sys.argv[1:] == ["--grid-child"]:
        grid_child()
        sys.exit(0)
    if sys.argv[1:] == ["--stacks"]:
        stack_views()
        sys.exit(0)
    if sys.argv[1:] == ["--2m-child"]:
        big_child()
        sys.exit(0)
    sys.exit(main())
