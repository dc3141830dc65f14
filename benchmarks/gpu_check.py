"""The GPU check, as one prepared script for a machine with an NVIDIA GPU.

1. runs the GPU tests (pytest -m gpu): the language and tile programs on the
   cuda backend, compared with the emulator;
2. times the tensor-core GEMM at 4096x4096x4096 (f16 in, f32 accumulate), the
   exported kernel launched directly (unchecked), against torch.matmul when
   PyTorch is present, and prints TFLOP/s and the ratio. The kernel is compiled
   for the device's exact architecture (sm_{major}{minor}) and runs in the
   device's primary context (retained, pushed, popped and released here).

    python benchmarks/gpu_check.py [--size 4096] [--skip-tests]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

GEMM = """{n} CONSTANT MM  {n} CONSTANT NN  {n} CONSTANT KK
: row0  ( -- r )  BID-Y 16 * ;
: col0  ( -- c )  BID-X 2 * WARP-ID + 16 * ;
: gemm  {{ a b c -- }}
   TZERO
   KK 0 DO  row0 KK * I + 2* a + KK TLOAD-A  I NN * col0 + 2* b + NN TLOAD-B  TMMA  16 +LOOP
   row0 NN * col0 + 4 * c + NN TSTORE ;
"""


def run_tests() -> int:
    print("== GPU tests (pytest -m gpu)", flush=True)
    return subprocess.call([sys.executable, "-m", "pytest", "-q", "-m", "gpu", str(ROOT / "tests" / "test_gpu.py")])


def device_arch(dev) -> str:
    """The device's exact architecture, sm_{major}{minor} (an H200 is sm_90)."""
    major, minor = dev.compute_capability()
    return f"sm_{major}{minor}"


def time_gemm(n: int, reps: int = 10) -> bool:
    """Time the exported GEMM kernel in the device's primary context (the one the
    CUDA runtime, PyTorch and CuPy use), pushed for the run and released at the end."""
    import pycuda.driver as cuda

    if n % 32:
        raise SystemExit(f"--size must be a multiple of 32, not {n}")
    cuda.init()
    dev = cuda.Device(0)
    ctx = dev.retain_primary_context()
    ctx.push()
    try:
        return _time_gemm(cuda, dev, n, reps)
    finally:
        cuda.Context.pop()
        ctx.detach()


def _seconds_per_call(cuda, launch, reps: int) -> float:
    """Seconds per launch: CUDA events where the driver module has them, else the wall clock."""
    if hasattr(cuda, "Event"):
        start, stop = cuda.Event(), cuda.Event()
        start.record()
        for _ in range(reps):
            launch()
        stop.record()
        stop.synchronize()
        return start.time_till(stop) / 1e3 / reps
    t0 = time.perf_counter()
    for _ in range(reps):
        launch()
    cuda.Context.synchronize()
    return (time.perf_counter() - t0) / reps


def _time_gemm(cuda, dev, n: int, reps: int) -> bool:
    from tileforth.backends.cuda.ptx import ptxas, ptxas_path
    from tileforth.export.kernels import word_ptx
    from tileforth.core import Forth

    arch = device_arch(dev)
    f = Forth(backend="cpu")  # the dictionary; the kernel itself runs on the GPU
    f.eval(GEMM.format(n=n))
    t0 = time.perf_counter()
    ptx = word_ptx(f, "gemm", arch)
    t_ptx = time.perf_counter() - t0
    print(f"== tensor-core GEMM {n}^3, f16 in, f32 accumulate, {arch} ({dev.name()})")
    import pycuda

    if getattr(pycuda, "VERSION_STATUS", "") == "stand-in":
        print("   STAND-IN driver (tests/standin): kernels do not run, so the result check fails")
    if ptxas_path() is not None:
        info = ptxas(ptx, arch)["gemm"]
        print(f"   edit-to-PTX {t_ptx * 1e3:.1f} ms; ptxas: {info.registers} registers, "
              f"{info.stack_frame} B stack frame, {info.spill_stores} B spills")
    else:
        print(f"   edit-to-PTX {t_ptx * 1e3:.1f} ms; ptxas: not installed (no register report)")
    bufs = []
    try:
        module = cuda.module_from_buffer(ptx.encode())
        fn = module.get_function("gemm")
        fn.prepare("PQQQ")
        rng = np.random.default_rng(0)
        a = rng.uniform(-1, 1, (n, n)).astype(np.float16)
        b = rng.uniform(-1, 1, (n, n)).astype(np.float16)
        a_d, b_d, c_d, ctx_d = (cuda.mem_alloc(nb) for nb in (a.nbytes, b.nbytes, n * n * 4, 1024))
        bufs += [a_d, b_d, c_d, ctx_d]
        cuda.memcpy_htod(a_d, a)
        cuda.memcpy_htod(b_d, b)
        cuda.memset_d8(ctx_d, 0, 1024)
        grid, block = (n // 32, n // 16, 1), (64, 1, 1)

        def launch() -> None:
            fn.prepared_call(grid, block, ctx_d, int(a_d), int(b_d), int(c_d))
        launch()
        cuda.Context.synchronize()
        secs = _seconds_per_call(cuda, launch, reps)
        flops = 2.0 * n ** 3
        tf = flops / secs / 1e12 if secs > 0 else float("inf")
        c = np.empty((n, n), np.float32)
        cuda.memcpy_dtoh(c, c_d)
    finally:
        for buf in bufs:
            buf.free()
    sample = slice(0, 256)
    ref = a[sample].astype(np.float64) @ b.astype(np.float64)
    bound = n * 2.0 ** -22 * (np.abs(a[sample].astype(np.float64)) @ np.abs(b.astype(np.float64)))
    ok = bool((np.abs(c[sample] - ref) <= bound + 2.0 ** -126).all())
    print(f"   tileforth: {secs * 1e3:.2f} ms per GEMM = {tf:.1f} TFLOP/s (first 256 rows within the "
          f"tensor-core bound: {ok})")
    try:
        import torch
    except ImportError:
        print("   torch not installed: no torch.matmul comparison")
        return ok
    if not torch.cuda.is_available():
        print("   torch sees no GPU: no torch.matmul comparison")
        return ok
    ta = torch.from_numpy(a).cuda()
    tb = torch.from_numpy(b).cuda()
    torch.matmul(ta, tb)
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(reps):
        torch.matmul(ta, tb)
    e1.record()
    torch.cuda.synchronize()
    tsecs = e0.elapsed_time(e1) / 1e3 / reps
    ttf = flops / tsecs / 1e12
    print(f"   torch.matmul (f16): {tsecs * 1e3:.2f} ms = {ttf:.1f} TFLOP/s")
    print(f"   ratio tileforth / torch: {tf / ttf:.3f}  (wmma cannot reach wgmma speed on Hopper; "
          "see shared/reference/anchors.md)")
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--skip-tests", action="store_true")
    args = ap.parse_args()
    rc = 0 if args.skip_tests else run_tests()
    try:
        ok = time_gemm(args.size)
    except ImportError as exc:
        print(f"no GPU timing: {exc} (install the [cuda] extra on a machine with an NVIDIA GPU)")
        return rc or 1
    return rc or (0 if ok else 1)


if __name__ == "__main__":
    sys.exit(main())
