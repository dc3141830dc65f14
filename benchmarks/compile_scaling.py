"""Compile time as definitions grow (issue 13): a loop-heavy colon definition of N words
(a random mix of stack arithmetic, DO loops and IF branches), the time of its `;`, of the
first line that calls it (the word is compiled then, on its own, on the cpu backend), and
of a new line that calls it afterwards (the median of seven; each figure the median of three
fresh sessions; targets: `;` ≤ 200 ms and a new line ≤ 5 ms for
N = 2000; the exponent of the first call in N says how linear the compile is).

    python benchmarks/compile_scaling.py
"""
from __future__ import annotations

import gc
import math
import random
import statistics
import sys
import time

REPEATS = 3  # sessions per size: this machine's timings vary from run to run


def body(n: int) -> str:
    rnd = random.Random(1)
    parts, words = [], 0
    while words < n:
        k = rnd.randrange(3)
        if k == 0:
            parts.append("DUP 3 + SWAP DROP")
            words += 4
        elif k == 1:
            parts.append("4 0 DO I + LOOP")
            words += 6
        else:
            parts.append("DUP 0> IF 1- ELSE 1+ THEN")
            words += 7
    return " ".join(parts)


def measure(Forth, n: int) -> tuple[float, float, float]:
    """One fresh session: the `;` of an n-word word, its first call, and the median of seven new lines."""
    gc.collect()  # the sessions measured before are freed before this one is timed
    f = Forth(backend="cpu")
    f.eval("1 1 1 THREADS")
    t0 = time.perf_counter()
    f.eval(f": big ( n -- n ) {body(n)} ;")
    t1 = time.perf_counter()
    f.eval("5 big DROP")
    t2 = time.perf_counter()
    news = []
    for i in range(7):  # new lines (each a new kernel): the median
        t = time.perf_counter()
        f.eval(f"{i + 6} big {i} + DROP")
        news.append(time.perf_counter() - t)
    f.close()
    return t1 - t0, t2 - t1, statistics.median(news)


def main() -> int:
    from tileforth.core import Forth

    rows = []
    print(f"words   `;`        first call   new line   (each the median of {REPEATS} fresh sessions)")
    for n in (250, 500, 1000, 2000):
        runs = [measure(Forth, n) for _ in range(REPEATS)]
        semi, first, new = (statistics.median(col) for col in zip(*runs))
        rows.append((n, semi, first, new))
        print(f"{n:5}  {semi * 1e3:7.0f} ms  {first * 1e3:9.0f} ms  {new * 1e3:7.1f} ms")
    n0, s0, c0, _ = rows[0]
    n1, s1, c1, new = rows[-1]
    k = math.log(c1 / c0) / math.log(n1 / n0)
    print(f"at {n1} words: `;` {s1 * 1e3:.0f} ms (target ≤ 200 ms, ratio {s1 / 0.2:.2f}), new line {new * 1e3:.1f} ms "
          f"(target ≤ 5 ms, ratio {new / 0.005:.2f}); first call grows as N^{k:.2f} (linear: 1)")
    return 0


if __name__ == "__main__":
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
