"""What ALLOCATE and FREE cost as allocations pile up (cpu backend, one thread:
`1 1 1 GRID 1 1 1 THREADS`, the way ordinary Forth programs run).

    allocations     N `16 ALLOCATE DROP DROP` in a DO loop (all kept live)
    alloc+free      N `16 ALLOCATE DROP FREE DROP` pairs
    linked list     a list of M two-cell nodes built with ALLOCATE, walked
                    (the sum of the values is checked), and FREEd node by node

Each is one definition run once, after a short warm-up of the same definitions;
also the per-call cost at the start and the end of the allocations, and the
pairs again with ten times as many blocks live (constant time means they are
alike, whatever the number of live allocations).

    python benchmarks/allocate.py            # N = 10,000, M = 1,000
    python benchmarks/allocate.py --quick    # a tenth of each

Targets (issue 25, point 4): ALLOCATE and FREE cost the same whatever is live;
10,000 allocations ≤ 1 s. Before this script, 1,600 allocations took 16 s and a
1,000-node list 12.8 s (gforth 0.7.3: 0.012 s); with each ALLOCATE still a host
word (a launch each), 10,000 took 1.4 to 8 s. On the cpu backend a definition's
ALLOCATE FREE RESIZE now run in device code (core/compile/heapgen.py): a loop of
them is one launch. Where gforth is installed, the same words run there too
(timed inside gforth with utime) and each figure's ratio to gforth's is printed.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

TARGET_S = 1.0  # 10,000 allocations (issue 25)

WORDS = """
: allocs ( n -- ) 0 ?DO 16 ALLOCATE DROP DROP LOOP ;
: pairs ( n -- ) 0 ?DO 16 ALLOCATE DROP FREE DROP LOOP ;
: node ( list x -- list' ) 2 CELLS ALLOCATE THROW  TUCK CELL+ !  TUCK ! ;
: build ( n -- list ) 0 SWAP 0 ?DO I node LOOP ;
: walk ( list -- sum ) 0 BEGIN OVER WHILE OVER CELL+ @ + SWAP @ SWAP REPEAT NIP ;
: unlink ( list -- ) BEGIN DUP WHILE DUP @ SWAP FREE THROW REPEAT DROP ;
"""


def gforth_times(n: int, m: int) -> dict[str, float] | None:
    """The same words under gforth (if installed), timed inside it: seconds per phase."""
    exe = shutil.which("gforth")
    if exe is None:
        return None
    phases = {"allocs": f"{n} allocs", "pairs": f"{n} pairs", "build": f"{m} build", "unlink": "unlink"}
    lines = [WORDS, "2variable t0  10 allocs 10 pairs 10 build unlink"]
    for name, call in phases.items():  # build leaves the list that unlink frees
        lines.append(f"utime t0 2! {call} utime t0 2@ d- .( {name} ) d. cr")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "allocate.fs")
        with open(path, "w") as fh:
            fh.write("\n".join(lines) + "\nbye\n")
        out = subprocess.run([exe, path], capture_output=True, text=True, timeout=300).stdout
    got = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in phases:
            got[parts[0]] = int(parts[1]) / 1e6
    return got if len(got) == len(phases) else None


def _vs(t: float, ref: dict[str, float] | None, key: str) -> str:
    if not ref:
        return ""
    g = max(ref[key], 1e-6)
    return f"   gforth {g * 1e3:7.2f} ms ({t / g:6.1f}× gforth)"


def timed(forth, text: str) -> float:
    """Seconds `text` takes, after an empty launch: the first checked launch after new blocks arms
    them for the race detector (a shadow each, made once: races.py), which is not the call's cost."""
    forth.eval("0 allocs")
    t0 = time.perf_counter()
    forth.eval(text)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a tenth of each count")
    p.add_argument("--backend", default="cpu", choices=("cpu", "cuda", "auto"))
    args = p.parse_args(argv)
    scale = 10 if args.quick else 1
    n, m = 10_000 // scale, 1_000 // scale

    from tileforth.core import Forth

    f = Forth(backend=args.backend)
    f.eval("1 1 1 GRID 1 1 1 THREADS")
    f.eval(WORDS)
    for line in ("10 allocs", "10 pairs", "10 build", "DUP walk", "DROP", "unlink"):  # warm-up: the kernels
        f.eval(line)
    chunk = max(n // 10, 1)
    first = timed(f, f"{chunk} allocs") / chunk
    rest = timed(f, f"{n - 2 * chunk} allocs")
    last = timed(f, f"{chunk} allocs") / chunk
    alloc_s = first * chunk + rest + last * chunk
    pairs_s = timed(f, f"{n} pairs")
    build_s = timed(f, f"{m} build")
    walk_s = timed(f, "DUP walk")
    (total,) = f.data_stack()[-1:]
    f.eval("DROP")
    free_s = timed(f, "unlink")
    many = 100_000 // scale  # then the pairs again, with ten times as many blocks live
    f.eval(f"{many - n - 2 * chunk} allocs")
    pairs_many_s = timed(f, f"{n} pairs")
    want = m * (m - 1) // 2
    ref = gforth_times(n, m)
    (gx, gy, gz), (bx, by, bz) = f.launch_shape
    print(f"ALLOCATE and FREE, {f.backend_name} backend, launch {gx} {gy} {gz} GRID {bx} {by} {bz} THREADS"
          + ("" if ref else " (gforth not found: no ratios to it)"))
    verdict = "meets" if alloc_s <= TARGET_S * n / 10_000 else "MISSES"
    print(f"  {n:,} allocations (16 bytes, kept)   {alloc_s:8.3f} s   target ≤ {TARGET_S * n / 10_000:g} s   "
          f"{alloc_s / (TARGET_S * n / 10_000):5.2f}× target ({verdict}){_vs(alloc_s, ref, 'allocs')}")
    print(f"    a call, the first {chunk:,}            {first * 1e6:8.1f} µs")
    print(f"    a call, the last {chunk:,}             {last * 1e6:8.1f} µs   "
          f"(last / first {last / first:4.2f}: constant time is about 1)")
    print(f"  {n:,} ALLOCATE+FREE pairs            {pairs_s:8.3f} s   ({pairs_s / n * 1e6:.1f} µs a pair)"
          f"{_vs(pairs_s, ref, 'pairs')}")
    print(f"    with {many:,} blocks live            {pairs_many_s:8.3f} s   ({pairs_many_s / n * 1e6:.1f} µs a pair: "
          f"{pairs_many_s / pairs_s:4.2f}× the pairs with {n:,} live; constant time is about 1)")
    print(f"  linked list of {m:,} nodes: build     {build_s:8.3f} s   walk {walk_s * 1e3:7.2f} ms   "
          f"free {free_s:6.3f} s   (sum {total}: {'right' if total == want else f'WRONG, want {want}'})")
    if ref:
        print(f"    gforth: build {ref['build'] * 1e3:.2f} ms ({build_s / max(ref['build'], 1e-6):.1f}× gforth), "
              f"free {ref['unlink'] * 1e3:.2f} ms ({free_s / max(ref['unlink'], 1e-6):.1f}× gforth)")
    return 0 if total == want else 1


if __name__ == "__main__":
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
