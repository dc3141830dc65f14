"""How fast the cpu backend emulates a CUDA kernel, against numba's simulator.

The kernel is the textbook shared-memory tiled matmul, C = A·B for N×N f32
matrices: 16×16 thread blocks, each thread computes one element of C; per
tile step the block copies a 16×16 tile of A and of B into shared memory,
waits at a BARRIER, accumulates 16 products, and waits again before the
tiles are overwritten.

    python benchmarks/emulator.py            # 64×64 and 128×128, with numba if importable
    python benchmarks/emulator.py --quick    # 64×64, tileforth only

The target is ≥ 100× numba's CUDA simulator (aim 1000×), with the race
detector on (checked mode's default); the run without it and a PROFILE run
show what the detector and the memory-access analysis cost.  numba comes with
the `bench` extra (`pip install -e .[bench]`); without it the simulator's
time is taken from shared/reference/anchors.md and labelled as not measured.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

TILE = 16

# numba 0.68 CUDA simulator on a 2-core machine (shared/reference/anchors.md)
ANCHOR_NUMBA_S = {64: 10.1, 128: 70.3}


def forth_source(n: int) -> str:
    """The kernel in tileforth Forth; N is spliced in as a literal."""
    return f"""\
{n} {n} F32 MATRIX A
{n} {n} F32 MATRIX B
{n} {n} F32 MATRIX C
{TILE * TILE * 4} SHARED: SA   \\ bytes of per-block shared memory: a 16×16 f32 tile
{TILE * TILE * 4} SHARED: SB
: ROW ( -- r )  BID-Y {TILE} * TID-Y + ;
: COL ( -- c )  BID-X {TILE} * TID-X + ;
: A-AT ( r c -- addr )  SWAP {n} * + 4 * A + ;
: B-AT ( r c -- addr )  SWAP {n} * + 4 * B + ;
: C-AT ( r c -- addr )  SWAP {n} * + 4 * C + ;
: SA-AT ( r c -- addr )  SWAP {TILE} * + 4 * SA + ;
: SB-AT ( r c -- addr )  SWAP {TILE} * + 4 * SB + ;
: MATMUL ( -- )
  0 S>F
  {n // TILE} 0 DO
    ROW  I {TILE} * TID-X +  A-AT F@  TID-Y TID-X SA-AT F!
    I {TILE} * TID-Y +  COL  B-AT F@  TID-Y TID-X SB-AT F!
    BARRIER
    {TILE} 0 DO
      TID-Y I SA-AT F@  I TID-X SB-AT F@  F* F+
    LOOP
    BARRIER
  LOOP
  ROW COL C-AT F! ;
{n // TILE} {n // TILE} 1 GRID {TILE} {TILE} 1 THREADS
"""


def inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed + n)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    return a, b


def check(c: np.ndarray, a: np.ndarray, b: np.ndarray, who: str) -> str:
    want = a.astype(np.float64) @ b.astype(np.float64)
    err = float(np.max(np.abs(c.astype(np.float64) - want)))
    # f32 accumulation of n products of magnitude < 1: error ~ n * 2^-24
    tol = a.shape[0] * 2.0**-20
    if not err <= tol:
        raise SystemExit(f"{who}: wrong result, max |C - A·B| = {err:.3g} > {tol:.3g}")
    return f"max err {err:.1e}"


def run_tileforth(n: int, repeats: int) -> dict:
    from tileforth.core import Forth

    a, b = inputs(n)
    f = Forth(backend="cpu")
    for line in forth_source(n).splitlines():
        f.eval(line)
    f.set_array("A", a)
    f.set_array("B", b)
    t0 = time.perf_counter()
    f.eval("MATMUL")  # first run: compiles the kernel, then runs it
    first = time.perf_counter() - t0
    ok = check(f.array("C").reshape(n, n), a, b, "tileforth")

    def warm(line: str) -> float:
        times = []
        for _ in range(max(repeats, 1)):
            f.set_array("C", np.zeros((n, n), np.float32))
            t0 = time.perf_counter()
            f.eval(line)
            times.append(time.perf_counter() - t0)
        check(f.array("C").reshape(n, n), a, b, f"tileforth ({line}, warm)")
        return statistics.median(times)

    on = warm("MATMUL")  # checked mode: the race detector is on
    f.backend.races.on = False
    off = warm("MATMUL")
    f.backend.races.on = True
    profiled = warm("PROFILE MATMUL")  # the access trace and its analysis (and the race detector)
    return {"first": first, "warm": on, "no_races": off, "profile": profiled, "ok": ok}


def numba_available() -> bool:
    # The simulator must be chosen before numba.cuda is first imported.
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    try:
        import numba  # noqa: F401
        from numba import cuda  # noqa: F401
    except Exception:
        return False
    return True


def run_numba(n: int) -> dict:
    # Module globals, not locals: the simulator swaps the kernel's global
    # `cuda` for its fake module (shared arrays, syncthreads, threadIdx).
    global cuda, float32
    from numba import cuda, float32

    @cuda.jit
    def matmul(A, B, C):
        sa = cuda.shared.array((TILE, TILE), float32)
        sb = cuda.shared.array((TILE, TILE), float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        row = cuda.blockIdx.y * TILE + ty
        col = cuda.blockIdx.x * TILE + tx
        acc = float32(0.0)
        for t in range(A.shape[0] // TILE):
            sa[ty, tx] = A[row, t * TILE + tx]
            sb[ty, tx] = B[t * TILE + ty, col]
            cuda.syncthreads()
            for k in range(TILE):
                acc += sa[ty, k] * sb[k, tx]
            cuda.syncthreads()
        C[row, col] = acc

    a, b = inputs(n)
    c = np.zeros((n, n), np.float32)
    t0 = time.perf_counter()
    matmul[(n // TILE, n // TILE), (TILE, TILE)](a, b, c)
    elapsed = time.perf_counter() - t0
    return {"time": elapsed, "ok": check(c, a, b, "numba simulator")}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="64×64 only, and no numba")
    p.add_argument("--repeats", type=int, default=3, help="warm runs of the kernel (median)")
    args = p.parse_args(argv)

    sizes = [64] if args.quick else [64, 128]
    with_numba = not args.quick and numba_available()
    print("tiled f32 matmul, 16×16 blocks, 16×16 shared tiles, 2 BARRIERs per step")
    if with_numba:
        import numba

        print(f"reference: numba {numba.__version__} CUDA simulator, measured in this run")
    else:
        why = "--quick" if args.quick else "numba not importable (pip install -e .[bench])"
        print(f"reference: numba CUDA simulator NOT MEASURED in this run ({why});")
        print("           figures from shared/reference/anchors.md (2-core machine, ±30%)")
    for n in sizes:
        tf = run_tileforth(n, args.repeats)
        if with_numba:
            nb = run_numba(n)
            ref, label = nb["time"], f"measured, {nb['ok']}"
        else:
            ref, label = ANCHOR_NUMBA_S[n], "anchors.md, not measured"
        print(f"\n{n}×{n}  ({(n // TILE) ** 2} blocks × {TILE * TILE} threads)")
        print(f"  tileforth cpu, first run (compile+run) {tf['first'] * 1e3:9.1f} ms   {tf['ok']}")
        print(f"  tileforth cpu, warm run                {tf['warm'] * 1e3:9.1f} ms   (checked, race detector on)")
        print(f"    race detector off                    {tf['no_races'] * 1e3:9.1f} ms   "
              f"(the detector costs {tf['warm'] / tf['no_races']:.2f}×)")
        print(f"    PROFILE MATMUL                       {tf['profile'] * 1e3:9.1f} ms   "
              f"(trace + analysis: {tf['profile'] / tf['warm']:.1f}× the checked run)")
        print(f"  numba CUDA simulator                   {ref * 1e3:9.1f} ms   ({label})")
        print(f"  ratio numba / tileforth: first {ref / tf['first']:8.0f}×   "
              f"warm {ref / tf['warm']:8.0f}×   (target ≥ 100×, aim 1000×)")
    return 0


if __name__ == "__main__":
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
