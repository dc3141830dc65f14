"""How long the user waits for a line at the prompt (issue 27's rows), on the REPL's compile tiers.

    new straight line   a STRUCTURALLY new 10-word line each time: the operators change, so no
                        kernel cache can serve it (one whose numbers only change could), e.g.
                            3 5 + DUP * 7 - 2 MAX DROP
    same structure      that line with other numbers only (`8 fib .` after `7 fib .`): a hit for
                        a structural kernel cache, a full compile for one keyed by literals
    cached line         the same text again (session/linecache.py: its segment is kept, so it is
                        not read again, and its kernel is the cache's)
    cached, next line   the same text again on the next line number each time, as the prompt
                        numbers its lines (the kept nodes are copied with positions on that line)
    new loop line       a structurally new line with a DO loop: its first (tier-0) compile
    loop line, full     the same loop line once its background compile at full optimisation is
                        swapped in (tileforth/core/compile/tiers.py)

Each is timed as eval (compile + run) plus reading the stacks back; medians, with the fastest
line of each kind (what a loaded machine inflates least) and the median of the thread's CPU time.

    python benchmarks/latency.py [--lines 50] [--backend cpu|cuda|auto]

Targets (issue 27): cpu: new straight ≤ 1.5 ms, same structure ≤ 0.3 ms, cached ≤ 0.1 ms;
cuda: new straight ≤ 12 ms, new loop ≤ 30 ms, same structure ≤ 0.5 ms, cached ≤ 0.2 ms.
The REPL's tiers are on here (TILEFORTH_TIERS is set to "on" whatever the shell says): this
benchmark times what a user at the prompt waits for.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time

TARGETS = {  # ms: (cpu, cuda); None: no target
    "new straight line": (1.5, 12.0),
    "same structure, other numbers": (0.3, 0.5),
    "cached line": (0.1, 0.2),
    "cached line, next line number": (0.1, 0.2),
    "new loop line (tier 0)": (None, 30.0),
}
OPS = ("+", "-", "*", "MAX", "MIN", "XOR", "AND", "OR")
LOOP_OPS = ("+", "XOR", "OR", "MAX", "-", "AND")


def structures() -> itertools.product:
    """Operator choices, each a different kernel structure (8^4 of them)."""
    return itertools.product(OPS, repeat=4)


def straight(ops: tuple[str, ...], i: int = 0) -> str:
    """A 10-word line of the structure `ops`, its numbers shifted by i."""
    a, b, c, d = ops
    return f"{3 + i} {5 + i} {a} DUP {b} {7 + i} {c} {2 + i} {d} DROP"


def loop_line(ops: tuple[str, ...], i: int = 0) -> str:
    a, b = ops
    return f"0 {1000 + i} 0 DO I {a} DUP {b} LOOP DROP"


CPU: list[float] = []  # the calling thread's CPU seconds of each timed line, in order
PARTS: list[tuple[float, float, float, float]] = []  # each timed line's (IR, backend compile, run, rest) seconds


def timed(forth, text: str, line: int = 1) -> float:
    """Seconds for eval (compile + run) plus reading the stacks back (its CPU time goes to CPU, its
    parts to PARTS: the IR built in Python, the backend's compile of it, the launch, the rest)."""
    c0, t0 = time.thread_time(), time.perf_counter()
    forth.eval(text, line=line)
    forth.data_stack(lane=None)
    forth.float_stack(lane=None)
    wall = time.perf_counter() - t0
    CPU.append(time.thread_time() - c0)
    t = getattr(forth.device, "last_timing", {})  # (the line's one launch: Device.launch's figures)
    ir_s = t.get("ir", 0.0)
    compile_s = t.get("compile", 0.0) - ir_s
    PARTS.append((ir_s, compile_s, t.get("run", 0.0), wall - ir_s - compile_s - t.get("run", 0.0)))
    return wall


def times(forth, texts, numbered: bool = False) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of each line of `texts` (`numbered`: each on the next line number)."""
    n = len(CPU)
    wall = [timed(forth, t, i + 2 if numbered else 1) for i, t in enumerate(texts)]
    return wall, CPU[n:]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lines", type=int, default=50, help="lines to time of each kind (default 50)")
    p.add_argument("--backend", default="cpu", choices=("cpu", "cuda", "auto"))
    args = p.parse_args(argv)
    os.environ["TILEFORTH_TIERS"] = "on"  # the REPL's tiers, whatever quiet.report() or the shell set

    from tileforth.core import Forth

    shapes = structures()
    assert len(straight(next(iter(structures()))).split()) == 10
    t0 = time.perf_counter()
    forth = Forth(backend=args.backend)
    start = time.perf_counter() - t0
    cold = timed(forth, straight(next(shapes), -1))  # the first line in the process: JIT set-up
    n = args.lines
    new = times(forth, [straight(next(shapes)) for _ in range(n)])
    new_parts = PARTS[-n:]
    same_shape = next(shapes)
    timed(forth, straight(same_shape))
    same = times(forth, [straight(same_shape, i + 1) for i in range(n)])
    text = straight(next(shapes))
    timed(forth, text)
    cached = times(forth, [text] * n)
    prompt = times(forth, [text] * n, numbered=True)
    loops = itertools.product(LOOP_OPS, repeat=2)
    new_loop = times(forth, [loop_line(next(loops), 0) for _ in range(min(n, 30))])
    reused = loop_line(next(loops))
    for _ in range(3):  # compile, reuse (starts the full compile), ...
        timed(forth, reused)
    wait = getattr(forth.backend, "wait_recompiles", None)
    if wait is not None:
        wait(60)
    timed(forth, reused)  # ... swapped in here
    full_loop = times(forth, [reused] * n)
    tiers = getattr(forth.backend, "compiled_tiers", {})

    ms = {"new straight line": new, "same structure, other numbers": same, "cached line": cached,
          "cached line, next line number": prompt,
          "new loop line (tier 0)": new_loop, "loop line, full tier (reused)": full_loop}
    (gx, gy, gz), (bx, by, bz) = forth.launch_shape
    col = 1 if forth.backend_name == "cuda" else 0
    print(f"line latency, {forth.backend_name} backend, launch {gx} {gy} {gz} GRID {bx} {by} {bz} THREADS, "
          f"{n} lines of each kind (loop lines: {len(new_loop[0])}); wall time, and this thread's CPU time (what "
          "a busy machine does not inflate)")
    print(f"  e.g. new {straight(('+', '*', '-', 'MAX'))!r}, same structure {straight(('+', '*', '-', 'MAX'), 5)!r},"
          f" loop {loop_line(('+', 'XOR'))!r}")
    print(f"  Forth() start                          {start * 1e3:8.2f} ms")
    print(f"  first line in the process (cold)       {cold * 1e3:8.2f} ms")
    for name, (xs, cpu) in ms.items():
        med = statistics.median(xs) * 1e3
        target = TARGETS.get(name, (None, None))[col]
        verdict = "" if target is None else (f"   target ≤ {target:g} ms   {med / target:5.2f}× target "
                                             f"({'meets' if med <= target else 'MISSES'})")
        print(f"  {name:<32} {med:8.2f} ms median (min {min(xs) * 1e3:6.2f}, CPU {statistics.median(cpu) * 1e3:6.2f} ms)"
              f"{verdict}")
    print(f"  new straight / cached                  {statistics.median(new[0]) / statistics.median(cached[0]):8.1f}×")
    parts = [statistics.median(p) * 1e3 for p in zip(*new_parts)]
    print(f"  new straight line, its parts (medians): IR in Python {parts[0]:.2f} ms, {forth.backend_name} compile "
          f"{parts[1]:.2f} ms, launch {parts[2]:.2f} ms, the rest (reading, snapshot, output, stacks back) "
          f"{parts[3]:.2f} ms")
    if tiers:
        print(f"  kernels compiled: tier 0 {tiers.get(0, 0)}, full {tiers.get(2, 0)}; swapped to full later: "
              f"{getattr(forth.backend, 'recompiled', 0)}")
    forth.close()
    return 0


if __name__ == "__main__":
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
