"""What a line that reaches EXECUTE costs, against how many execution tokens the session has.

Execution tokens are reached through a table of function addresses on the cpu backend (each
ticked word compiled once, on its own: tileforth/core/compile/xttable.py), so a new line
that reaches EXECUTE costs the line, whatever the number of tokens. For each count N, N words
are defined and ticked (their tokens stored in a table `xts`), then structurally new lines are
timed (each has one more `1+`; lines that differ only in their numbers share one kernel): `K ' wJ run DROP` (run: `: run EXECUTE ;`), `K J via DROP` (via: the J-th
token of xts, EXECUTEd) and, for scale, `K J CELLS xts + @ DROP`, the same line without EXECUTE.
The first line that reaches EXECUTE compiles the N entries (once).

    python benchmarks/execute.py [--counts 1 51 201] [--lines 20]

Target: a new line that reaches EXECUTE with 200 ticked words ≤ 10 ms (median).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

TARGET_MS = 10.0


def session(n: int):
    from tileforth.core import Forth

    f = Forth(backend="cpu")
    f.eval("1 1 1 GRID 1 1 1 THREADS")
    for i in range(n):
        f.eval(f": w{i} ( n -- n ) {i} + DUP 1 AND IF 1+ THEN ;")
    f.eval(f"CREATE xts {n} CELLS ALLOT")
    for i in range(n):
        f.eval(f"' w{i} xts {i} CELLS + !")
    f.eval(": via ( n i -- n ) CELLS xts + @ EXECUTE ;  : run ( n xt -- n ) EXECUTE ;")
    return f


def timed(f, text: str) -> float:
    t0 = time.perf_counter()
    f.eval(text)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--counts", type=int, nargs="+", default=[1, 51, 201])
    p.add_argument("--lines", type=int, default=20, help="new lines timed per count (default 20)")
    args = p.parse_args(argv)
    print(f"a new line that reaches EXECUTE, cpu backend, 1 thread, {args.lines} lines each (median)")
    worst = 0.0
    for n in args.counts:
        f = session(n)
        first = timed(f, f"7 {n - 1} via DROP")  # the first line that reaches EXECUTE (compiles the tokens)
        # structurally new lines (k+1 `1+`s: lines that differ only in numbers share a kernel, linekey.py)
        run = [timed(f, f"{100 + k} ' w{k % n} run" + " 1+" * (k + 1) + " DROP") for k in range(args.lines)]
        via = [timed(f, f"{200 + k} {k % n} via" + " 1+" * (k + 1) + " DROP") for k in range(args.lines)]
        plain = [timed(f, f"{300 + k} {k % n} CELLS xts + @" + " 1+" * (k + 1) + " DROP") for k in range(args.lines)]
        same = [timed(f, f"{400 + k} {k % n} via DROP") for k in range(args.lines)]  # one structure, other numbers
        r, v, p0, s0 = (statistics.median(x) * 1e3 for x in (run, via, plain, same))
        if n >= 200:
            worst = max(worst, r, v)
        print(f"  {n:4d} tokens: first line {first * 1e3:7.1f} ms | new line ' wJ run {r:6.2f} ms, J via {v:6.2f} ms,"
              f" without EXECUTE {p0:6.2f} ms; same line, other numbers {s0:5.2f} ms"
              f" | {max(r, v) / TARGET_MS:5.2f}× target ≤ {TARGET_MS:g} ms")
    if worst:
        print(f"  with ≥ 200 tokens: {worst:.2f} ms, {'meets' if worst <= TARGET_MS else 'MISSES'} the target")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, __import__("os").path.dirname(__file__))
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
