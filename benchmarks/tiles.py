"""How fast the cpu backend emulates a tensor-core GEMM.

C = A·B with A (M×K) and B (K×N) in f16 and C in f32, on the tile stack
(m16n16k16, f16 -> f32).  Two kernels:

    one tile per warp   each warp (a 32-thread block) owns one 16×16 tile of
                        C: TZERO, then K/16 times TLOAD-A TLOAD-B TMMA, TSTORE
    2×2 per warp        each warp owns a 32×32 block of C as four
                        accumulators on its tile stack; `3 TROLL` brings the
                        bottom one to the top before each TMMA

    python benchmarks/tiles.py            # 256×256×256 and 512×512×512, 3 warm runs
    python benchmarks/tiles.py --quick    # 64×64×64, 1 warm run

Each result is checked against numpy: within the tensor-core test bound
|C - A·B| <= K·2^-22·(|A|·|B|) (shared/reference/tensor_cores.md §9), and
bit for bit against the emulator's documented numerics, one f32 rounding
per TMMA of the exact sum (docs/tiles.md, "Numerics").  Targets, on a
2-core machine: a first run (compile + run) of at most 2 s for 256×256×256;
warm runs (issue 13: tile ops batched across warps and blocks, one numpy
call per op per launch step) of at most 50 ms for 256×256×256 and 300 ms
for 512×512×512.  The summary prints each figure with its target and the
ratio figure/target (≤ 1: met).  The warm runs are checked runs, with the race
detector on, which checks each line of every tile loaded and stored; each
kernel's figure without it follows ("race detector off").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

TILE = 16
TARGET_S = 2.0
WARM_TARGET_S = {256: 0.050, 512: 0.300}  # warm run of a GEMM of this size (issue 13)


def common_source(m: int, n: int, k: int) -> str:
    return f"""\
{m} CONSTANT MM  {n} CONSTANT NN  {k} CONSTANT KK
MM KK F16 MATRIX A   KK NN F16 MATRIX B   MM NN F32 MATRIX C
"""


def single_source(m: int, n: int, k: int) -> str:
    """One 16×16 tile of C per warp; a block of 32 threads is one warp."""
    return common_source(m, n, k) + f"""\
: a-tile ( k -- addr )  BID-Y {TILE} * KK * + 2 * A + ;
: b-tile ( k -- addr )  NN * BID-X {TILE} * + 2 * B + ;
: c-tile ( -- addr )    BID-Y {TILE} * NN * BID-X {TILE} * + 4 * C + ;
: gemm  TZERO  KK 0 DO  I a-tile KK TLOAD-A  I b-tile NN TLOAD-B  TMMA  {TILE} +LOOP  c-tile NN TSTORE ;
NN {TILE} / MM {TILE} / 1 GRID  32 1 1 THREADS
"""


def blocked_source(m: int, n: int, k: int) -> str:
    """A 32×32 block of C per warp, as 2×2 accumulators C00 C01 C10 C11
    (top last); `mac` rolls the bottom one to the top and updates it, so
    after four calls they are back in order."""
    return common_source(m, n, k) + f"""\
: a-tile {{ k i -- addr }}  BID-Y 32 * i + KK * k + 2 * A + ;
: b-tile {{ k j -- addr }}  k NN * BID-X 32 * + j + 2 * B + ;
: c-tile {{ i j -- addr }}  BID-Y 32 * i + NN * BID-X 32 * + j + 4 * C + ;
: mac {{ k i j -- }}  3 TROLL  k i a-tile KK TLOAD-A  k j b-tile NN TLOAD-B  TMMA ;
: gemm  TZERO TZERO TZERO TZERO
  KK 0 DO  I 0 0 mac  I 0 {TILE} mac  I {TILE} 0 mac  I {TILE} {TILE} mac  {TILE} +LOOP
  {TILE} {TILE} c-tile NN TSTORE  {TILE} 0 c-tile NN TSTORE  0 {TILE} c-tile NN TSTORE  0 0 c-tile NN TSTORE ;
NN 32 / MM 32 / 1 GRID  32 1 1 THREADS
"""


KERNELS = {"one tile per warp": (single_source, TILE), "2×2 tiles per warp": (blocked_source, 2 * TILE)}


def inputs(m: int, n: int, k: int, seed: int = 0):
    rng = np.random.default_rng(seed + m + 7 * n + 13 * k)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float16)
    return a, b


def per_tmma_model(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One f32 rounding per TMMA: acc = round_f32(acc + A_k·B_k), k by 16."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k0 in range(0, a.shape[1], TILE):
        acc = (acc.astype(np.float64) + a64[:, k0:k0 + TILE] @ b64[k0:k0 + TILE, :]).astype(np.float32)
    return acc


def check(c: np.ndarray, a: np.ndarray, b: np.ndarray, who: str) -> str:
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    err = np.abs(c.astype(np.float64) - a64 @ b64)
    bound = a.shape[1] * 2.0**-22 * (np.abs(a64) @ np.abs(b64))
    if not np.all(err <= bound):
        raise SystemExit(f"{who}: wrong result, max |C - A·B| = {err.max():.3g} exceeds K·2^-22·|A|·|B|")
    exact = np.array_equal(c, per_tmma_model(a, b))
    return f"max err {err.max():.1e} (bound ok), {'bit-exact' if exact else 'NOT bit-exact'} vs per-TMMA rounding"


def run_kernel(name: str, m: int, n: int, k: int, repeats: int) -> dict:
    from tileforth.core import Forth

    source, per_warp = KERNELS[name]
    a, b = inputs(m, n, k)
    f = Forth(backend="cpu")
    if m * n * k > 256**3:
        # each warp op costs WARP_OP_STEPS of the launch's step pool, and a 512³ GEMM has more
        # warp ops than the default budget pays for on one worker: no budget
        f.eval("0 SET-STEP-BUDGET")
    for line in source(m, n, k).splitlines():
        f.eval(line)
    f.set_array("A", a)
    f.set_array("B", b)
    t0 = time.perf_counter()
    f.eval("gemm")  # first run: compiles the kernel, then runs it
    first = time.perf_counter() - t0
    timing = getattr(f, "last_timing", {}) or {}
    build = timing.get("compile", 0.0)  # IR generation + LLVM (Forth.last_timing)
    ok = check(f.array("C"), a, b, name)
    warm = []
    for _ in range(repeats):
        f.set_array("C", np.zeros((m, n), np.float32))
        t0 = time.perf_counter()
        f.eval("gemm")
        warm.append(time.perf_counter() - t0)
    check(f.array("C"), a, b, f"{name} (warm)")
    assert f.tile_stack() == [], "the kernel leaves the tile stack empty"
    f.backend.races.on = False  # what the race detector costs: its checks of every tile line loaded and stored
    unraced = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f.eval("gemm")
        unraced.append(time.perf_counter() - t0)
    check(f.array("C"), a, b, f"{name} (race detector off)")
    return {"first": first, "build": build, "warm": statistics.median(warm) if warm else first, "ok": ok,
            "warps": (m // per_warp) * (n // per_warp), "unraced": statistics.median(unraced) if unraced else first}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="64×64×64 and one warm run")
    p.add_argument("--repeats", type=int, default=None, help="warm runs of each kernel (median)")
    p.add_argument("--sizes", type=int, nargs="*", default=None, help="sizes (M = N = K) to run")
    args = p.parse_args(argv)
    sizes = args.sizes or ([64] if args.quick else [256, 512])
    repeats = args.repeats if args.repeats is not None else (1 if args.quick else 3)
    summary = []  # (figure, seconds, target seconds)
    for size in sizes:
        m = n = k = size
        tmma = (m // TILE) * (n // TILE) * (k // TILE)
        print(f"tensor-core GEMM on the cpu emulator: {m}×{n}×{k}, f16 in, f32 acc, m16n16k16 "
              f"({tmma} TMMA)")
        for name in KERNELS:
            r = run_kernel(name, m, n, k, repeats)
            print(f"\n{name}  ({r['warps']} warps of 32 threads)   {r['ok']}")
            print(f"  first run (compile+run) {r['first'] * 1e3:9.1f} ms   (of which compile {r['build'] * 1e3:.0f} ms)")
            print(f"  warm run                {r['warm'] * 1e3:9.1f} ms   "
                  f"({tmma / r['warm']:,.0f} TMMA/s, {2 * m * n * k / r['warm'] / 1e9:.3f} GFLOP/s emulated, "
                  f"{r['warm'] / tmma * 1e6:.1f} µs per TMMA)")
            print(f"    race detector off     {r['unraced'] * 1e3:9.1f} ms   (its checks of the tiles' lines cost "
                  f"{r['warm'] / r['unraced']:.2f}×)")
            if size == 256:
                summary.append((f"{size}³ {name}, first run (compile+run)", r["first"], TARGET_S))
            if size in WARM_TARGET_S:
                summary.append((f"{size}³ {name}, warm run", r["warm"], WARM_TARGET_S[size]))
        print()
    if not summary:  # --quick: the targets are for the sizes it does not run
        warm = ", ".join(f"{sz}³ ≤ {t * 1e3:.0f} ms" for sz, t in WARM_TARGET_S.items())
        print(f"targets (256³ and 512³, not run here): first run target ≤ {TARGET_S * 1e3:.0f} ms at 256³; "
              f"warm runs {warm}")
    if summary:
        print("figure                                              measured     target    ratio")
        for what, got, target in summary:
            print(f"  {what:<48} {got * 1e3:8.1f} ms  ≤ {target * 1e3:5.0f} ms  {got / target:6.2f}  "
                  f"{'met' if got <= target else 'NOT met'}")
    return 0

if __name__ == "__main__":
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
