"""Single-thread speed against gforth (issue 13): fib 30 (recursion), a sieve of
Eratosthenes to 8,190 done 100 times (memory, nested loops) and nested DO loops
(10^7 iterations of arithmetic), on one thread of the cpu backend, checked (the default:
range checks, the race detector, the step budget) and unchecked, against gforth and
gforth-fast running the same source. Each figure is the median of several runs of the
word alone: tileforth's after its first (compiling) run, gforth's as the difference
between a process that runs the word and one that only defines it.

    python benchmarks/forth.py
"""
from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAMS = {
    "fib 30": (": fib ( n -- n ) DUP 2 < IF EXIT THEN DUP 1- RECURSE SWAP 2 - RECURSE + ;",
               "30 fib", 832040),
    "sieve ×100": ("8190 CONSTANT SZ  CREATE FLAGS SZ ALLOT "
                   ": sieve ( -- n ) FLAGS SZ 1 FILL 0 SZ 0 DO FLAGS I + C@ IF I 2* 3 + DUP I + "
                   "BEGIN DUP SZ < WHILE 0 OVER FLAGS + C! OVER + REPEAT 2DROP 1+ THEN LOOP ; "
                   ": sieves ( -- n ) 0 100 0 DO DROP sieve LOOP ;", "sieves", 1899),
    "nested loops 10^7": (": nest ( -- n ) 0 1000 0 DO 10000 0 DO I J XOR + LOOP LOOP ;", "nest", None),
}
RUNS = 5


def tileforth(defs: str, call: str, checked: bool) -> tuple[float, int]:
    from tileforth.core import Forth

    f = Forth(backend="cpu", checked=checked)
    f.eval("1 1 1 THREADS")
    f.eval(defs)
    out = f.eval(f"{call} .")  # compiles
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        f.eval(f"{call} DROP")
        times.append(time.perf_counter() - t0)
    return statistics.median(times), int(out.split()[0])


def gforth(exe: str, defs: str, call: str) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as d:
        only = Path(d, "defs.fs")
        only.write_text(defs + "\nbye\n")
        run = Path(d, "run.fs")
        run.write_text(defs + f"\n{call} . cr bye\n")

        def timed(path: Path) -> tuple[float, str]:
            t0 = time.perf_counter()
            r = subprocess.run([exe, str(path)], capture_output=True, text=True, timeout=300)
            return time.perf_counter() - t0, r.stdout

        base = statistics.median(timed(only)[0] for _ in range(RUNS))
        runs = [timed(run) for _ in range(RUNS)]
        return max(statistics.median(t for t, _ in runs) - base, 1e-6), int(runs[0][1].split()[0])


def main() -> int:
    have = [exe for exe in ("gforth", "gforth-fast") if shutil.which(exe)]
    print("one thread, median of", RUNS, "runs; ratio = gforth's time / tileforth's (above 1: tileforth faster)")
    for name, (defs, call, expect) in PROGRAMS.items():
        ref = {exe: gforth(exe, defs, call) for exe in have}
        for checked in (True, False):
            t, value = tileforth(defs, call, checked)
            if expect is not None and value != expect:
                raise SystemExit(f"{name}: tileforth computed {value}, expected {expect}")
            for exe, (g, gv) in ref.items():
                if gv != value:
                    raise SystemExit(f"{name}: {exe} computed {gv}, tileforth {value}")
            ratios = "   ".join(f"{exe} {g * 1e3:7.1f} ms  ratio {g / t:5.2f}" for exe, (g, _) in ref.items())
            print(f"  {name:18} {'checked  ' if checked else 'unchecked'} {t * 1e3:7.1f} ms   {ratios}")
    return 0


if __name__ == "__main__":
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
