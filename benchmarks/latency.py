"""How long the user waits for a line at the prompt (cpu backend).

A NEW line must be compiled, run on every thread of the launch and its
stacks read back; the SAME line again can reuse the compiled kernel.  Each
new line is a different 10-word line (its literals change), e.g.

    1003 4 + DUP * 2 - 5 MAX DROP

    python benchmarks/latency.py [--lines 50] [--backend cpu]

Targets: new line ≤ 10 ms, same line again ≤ 1 ms (median).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

TARGET_NEW_MS = 10.0
TARGET_CACHED_MS = 1.0


def line(i: int) -> str:
    """The i-th new line: 10 words, literals vary so the text never repeats."""
    return f"{1000 + i} {4 + i % 7} + DUP * {2 + i % 5} - {5 + i % 3} MAX DROP"


def timed(forth, text: str) -> float:
    """Seconds for eval (compile + run) plus reading the stacks back."""
    t0 = time.perf_counter()
    forth.eval(text)
    forth.data_stack(lane=None)
    forth.float_stack(lane=None)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lines", type=int, default=50, help="new lines to time (default 50)")
    p.add_argument("--backend", default="cpu", choices=("cpu", "cuda", "auto"))
    args = p.parse_args(argv)

    from tileforth.core import Forth

    assert len(line(0).split()) == 10
    t0 = time.perf_counter()
    forth = Forth(backend=args.backend)
    start = time.perf_counter() - t0
    cold = timed(forth, line(-1))  # first line in the process: JIT set-up
    new = [timed(forth, line(i)) for i in range(args.lines)]
    same = line(args.lines // 2)
    cached = [timed(forth, same) for _ in range(args.lines)]

    new_ms = statistics.median(new) * 1e3
    cached_ms = statistics.median(cached) * 1e3
    (gx, gy, gz), (bx, by, bz) = forth.launch_shape
    print(f"line latency, {forth.backend_name} backend, launch "
          f"{gx} {gy} {gz} GRID {bx} {by} {bz} THREADS, {args.lines} lines each")
    print(f"  e.g. {line(0)!r}")
    print(f"  Forth() start                        {start * 1e3:8.2f} ms")
    print(f"  first line in the process (cold)     {cold * 1e3:8.2f} ms")
    for name, ms, target in (("new line (compile+run+read back)", new_ms, TARGET_NEW_MS),
                             ("same line again (cached)", cached_ms, TARGET_CACHED_MS)):
        verdict = "meets" if ms <= target else "MISSES"
        print(f"  {name:<36} {ms:8.2f} ms median   target ≤ {target:g} ms   "
              f"{ms / target:5.2f}× target ({verdict})")
    print(f"  new / cached                         {new_ms / cached_ms:8.1f}×")
    return 0


if __name__ == "__main__":
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
