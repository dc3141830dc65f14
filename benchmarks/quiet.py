"""Whether the machine is quiet: a timing means little while other processes use the cores.

Every benchmark that prints times calls report() first. It samples /proc/stat for half a second
and prints the CPU time other processes used, in cores, with a warning above a fifth of a core
(a runaway process left from an earlier run took a whole core for an hour once, and every
figure of that hour was slow).
"""
from __future__ import annotations

import os
import time

BUSY = 0.2  # cores used by others above which the figures are suspect


def others(seconds: float = 0.5) -> float | None:
    """The cores' worth of CPU time that processes other than this one used during `seconds`;
    None where /proc/stat is not there."""
    if not os.path.exists("/proc/stat"):
        return None

    def busy() -> int:
        with open("/proc/stat") as fh:
            ticks = [int(x) for x in fh.readline().split()[1:]]
        return sum(ticks) - ticks[3] - (ticks[4] if len(ticks) > 4 else 0)  # all but idle and iowait

    hz = os.sysconf("SC_CLK_TCK")
    b0, m0, t0 = busy(), os.times(), time.monotonic()
    time.sleep(seconds)
    b1, m1, t1 = busy(), os.times(), time.monotonic()
    mine = (m1.user + m1.system) - (m0.user + m0.system)
    return max(0.0, ((b1 - b0) / hz - mine) / (t1 - t0))


def report() -> None:
    # benchmarks time fully optimised kernels (tileforth/core/compile/tiers.py), not the REPL's cheap tier
    # that a background compile replaces at some later launch; latency.py, which times that tier, says so
    os.environ.setdefault("TILEFORTH_TIERS", "full")
    # and they time compiles, which the cuda backend's disk cache of cubins (backends/cuda/cubincache.py) would
    # serve from an earlier run; benchmarks/cubin_cache.py times the cache itself, in a directory of its own
    os.environ.setdefault("TILEFORTH_CUBIN_CACHE", "off")
    load = others()
    if load is None:
        return
    line = f"machine: {os.cpu_count()} cores; other processes used {load:.2f} of a core during a 0.5 s check"
    if load > BUSY:
        line += "; WARNING: they slow the figures below (`top` shows them)"
    print(line, flush=True)
