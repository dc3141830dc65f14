"""The cuda backend's disk cache of cubins across sessions: one program run in two fresh processes.

The first process compiles every kernel (LLVM to PTX, then the driver's JIT) and hands each PTX to
the cache's writer (ptxas, on a thread of its own); the second compiles the same lines to the same
PTX (session addresses are launch data, names come from content) and loads their cubins instead
of JIT-compiling them. Printed per run: the kernels, how many the JIT compiled and how many came
from the cache, and the program's wall time (eval of every line).

    python benchmarks/cubin_cache.py [--file prog.fth] [--lines 40] [--standin]

--standin runs against the stand-in driver of the tests (tests/standin: kernels do not run, and its
"JIT" is a ptxas process per module, slower than the driver's in-process JIT, so its ratio overstates
what a GPU gains; the kernel counts are the same). Without --file the program is `--lines`
structurally different straight lines and loop lines, as benchmarks/latency.py makes them.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPS = ("+", "-", "*", "MAX", "MIN", "XOR", "AND", "OR")

CHILD = """
import json, sys, time
from tileforth.core import Forth
lines = open(sys.argv[1]).read().splitlines()
f = Forth(backend="cuda")
t = time.perf_counter()
for line in lines:
    f.eval(line)
wall = time.perf_counter() - t
b = f.backend
b.wait_cubins()
print(json.dumps({"kernels": f.device.compiled, "jit": b.jit_loads, "cubins": b.cubin_loads, "wall": wall,
                  "cache": b.cubins is not None}))
f.close()
"""


def program(n: int) -> list[str]:
    shapes = itertools.product(OPS, repeat=4)
    out = []
    for i in range(n):
        a, b, c, d = next(shapes)
        out.append(f"3 5 {a} DUP {b} 7 {c} 2 {d} ." if i % 4 else f": w{i} 8 0 DO I {a} LOOP ;  1 w{i} .")
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--file", help="a Forth file to run (default: generated lines)")
    p.add_argument("--lines", type=int, default=40)
    p.add_argument("--standin", action="store_true", help="the tests' stand-in driver instead of a GPU")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        src = Path(args.file) if args.file else Path(d) / "prog.fth"
        if not args.file:
            src.write_text("\n".join(program(args.lines)) + "\n")
        path = [str(ROOT)] + ([str(ROOT / "tests" / "standin")] if args.standin else [])
        env = {**os.environ, "TILEFORTH_CUBIN_CACHE": str(Path(d) / "cubins"),
               "PYTHONPATH": os.pathsep.join(path + [os.environ.get("PYTHONPATH", "")])}
        runs = []
        for _ in range(2):
            proc = subprocess.run([sys.executable, "-c", CHILD, str(src)], capture_output=True, text=True, env=env,
                                  timeout=1800)
            if proc.returncode != 0:
                print(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "the run failed")
                return 1
            runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        if not runs[0]["cache"]:
            print("the cache is off (no ptxas: pip install nvidia-cuda-nvcc)")
            return 1
        print(f"disk cache of cubins, {'stand-in driver' if args.standin else 'GPU'}: {src.name if args.file else f'{args.lines} generated lines'}")
        for name, r in zip(("first session (empty cache)", "second session"), runs):
            print(f"  {name:<28} {r['kernels']:4d} kernels: {r['jit']:4d} JIT-compiled, {r['cubins']:4d} from the "
                  f"cache; {r['wall'] * 1e3:8.1f} ms ({r['wall'] / max(r['kernels'], 1) * 1e3:6.2f} ms a kernel)")
        print(f"  first / second                 {runs[0]['wall'] / runs[1]['wall']:8.2f}×")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
