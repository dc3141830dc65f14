"""Phase A of the device check: numpy, cuda-bindings and torch/CuPy only (no PyCUDA, no tileforth), on
the artifacts build_artifacts.py made here. One step per process (a fault then costs only its step):

    PYTHONPATH=benchmarks python -m devcheck.phase_a gemm|probe_mma|probe_wgmma|jit|launchers

TF_DC_ARTIFACTS: the artifacts (default .whl/devcheck); TF_DC_GEMM_SIZES: the GEMM sizes (default
1024 2048 4096 8192; 128 256 against the stand-in, whose device memory is the host's).
"""
from __future__ import annotations

import importlib.util
import json
import os
import statistics
import sys
import time

import numpy as np

from devcheck import kernels, probes
from devcheck.cu import CuError, Driver, u64
from devcheck.stepio import Report, artifacts, first_line, main, standin

SIZES = (1024, 2048, 4096, 8192)
STANDIN_SIZES = (128, 256)


def manifest() -> dict:
    path = artifacts() / "manifest.json"
    if not path.exists():
        raise FileNotFoundError(f"no artifacts in {artifacts()}: run benchmarks/devcheck/build_artifacts.py (or "
                                "benchmarks/fetch_wheels.sh) here, and carry .whl")
    return json.loads(path.read_text())


def load(d: Driver, stem: str, rep: Report | None = None):
    """The cubin, else (the driver refused it) the PTX through the JIT."""
    try:
        return d.load((artifacts() / f"{stem}.cubin").read_bytes()), "cubin"
    except CuError as exc:
        if rep is not None:
            rep.note(f"{stem}.cubin refused ({exc.text}): its PTX instead")
        return d.load((artifacts() / f"{stem}.ptx").read_bytes()), "ptx"


def entry(stem: str) -> str:
    names = [k.split(":", 1)[1] for k in manifest()["registers"] if k.split(":", 1)[0] == stem]
    if not names:
        raise KeyError(f"{stem}: no entry in the manifest")
    return names[0]


def torch_or_reason():
    try:
        import torch
    except ImportError as exc:
        return None, f"torch not importable ({exc})"
    if not torch.cuda.is_available():
        return None, "torch sees no GPU"
    return torch, ""


def _bf16_bits(x: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns of float32 values exact in bf16 (their top 16 bits)."""
    return (np.ascontiguousarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _bits(x: np.ndarray, dtype: str) -> np.ndarray:
    return x.astype(np.float16).view(np.uint16) if dtype == "f16" else _bf16_bits(x)


def _reps(secs: float, want: float = 0.15, lo: int = 3, hi: int = 50) -> int:
    return max(lo, min(hi, int(want / max(secs, 1e-6))))


# ---- gemm --------------------------------------------------------------------------------------------------

class _Operands:
    """A, B (and B^T), C of one size and input type, with the reference: on the GPU through torch
    (the reference torch.matmul in f32, TF32 off), else from numpy (the reference on 64 rows)."""

    def __init__(self, d: Driver, torch, n: int, dtype: str, rng) -> None:
        self.d, self.torch, self.n, self.dtype = d, torch, n, dtype
        if torch is not None:
            tdt = torch.float16 if dtype == "f16" else torch.bfloat16
            gen = torch.Generator(device="cuda").manual_seed(int(rng.integers(1 << 30)))
            self.A = (torch.rand(n, n, device="cuda", generator=gen) * 2 - 1).to(tdt)
            self.B = (torch.rand(n, n, device="cuda", generator=gen) * 2 - 1).to(tdt)
            self.Bt = self.B.t().contiguous()
            self.C = torch.empty(n, n, device="cuda", dtype=torch.float32)
            torch.backends.cuda.matmul.allow_tf32 = False
            self.ref = torch.matmul(self.A.float(), self.B.float())
            self.bound = n * 2.0 ** -22 * torch.matmul(self.A.float().abs(), self.B.float().abs()) + 2.0 ** -126
            self.scale = float(self.ref.abs().max())
            torch.cuda.synchronize()
            self.ptrs = {"a": self.A.data_ptr(), "b": self.B.data_ptr(), "bt": self.Bt.data_ptr(),
                         "c": self.C.data_ptr()}
        else:
            a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
            b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
            abits, bbits = _bits(a, dtype), _bits(b, dtype)
            self.a = _values(abits, dtype)
            self.b = _values(bbits, dtype)
            rows = slice(0, min(64, n))
            self.ref = self.a[rows].astype(np.float64) @ self.b.astype(np.float64)
            self.bound = n * 2.0 ** -22 * (np.abs(self.a[rows]).astype(np.float64) @ np.abs(self.b).astype(np.float64))
            self.scale = float(np.abs(self.ref).max())
            self.ptrs = {"a": d.to_device(abits), "b": d.to_device(bbits),
                         "bt": d.to_device(np.ascontiguousarray(bbits.T)), "c": d.alloc(n * n * 4)}

    def check(self) -> tuple[bool, float]:
        """(every element within n 2^-22 |A||B| of the reference, max |C - ref| / max |ref|)."""
        if self.torch is not None:
            diff = (self.C - self.ref).abs()
            return bool((diff <= self.bound).all()), float(diff.max()) / self.scale
        c = self.d.download(np.empty((self.ref.shape[0], self.n), np.float32), self.ptrs["c"])
        diff = np.abs(c.astype(np.float64) - self.ref)
        bad = ~np.isfinite(diff)
        return bool((diff <= self.bound + 2.0 ** -126).all() and not bad.any()), \
            float(np.nanmax(np.where(bad, np.inf, diff))) / self.scale

    def torch_seconds(self) -> float | None:
        torch = self.torch
        if torch is None:
            return None
        torch.matmul(self.A, self.B)
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        torch.matmul(self.A, self.B)
        e1.record()
        torch.cuda.synchronize()
        reps = _reps(e0.elapsed_time(e1) / 1e3)
        e0.record()
        for _ in range(reps):
            torch.matmul(self.A, self.B)
        e1.record()
        torch.cuda.synchronize()
        return e0.elapsed_time(e1) / 1e3 / reps

    def free(self) -> None:
        if self.torch is None:
            for p in self.ptrs.values():
                self.d.free(p)


def _values(bits: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "f16":
        return bits.view(np.float16).astype(np.float32)
    return (bits.astype(np.uint32) << 16).view(np.float32)


def gemm(rep: Report) -> None:
    """The GEMM ratio table: g11, g11tn, g22 x f16, bf16 x n against torch.matmul."""
    d = Driver()
    torch, why = torch_or_reason()
    if torch is None:
        rep.note(f"no torch.matmul ratio: {why}; results checked against numpy on 64 rows")
    sizes = tuple(int(s) for s in os.environ.get("TF_DC_GEMM_SIZES", "").split()) or \
        (STANDIN_SIZES if d.standin else SIZES)
    rep.note(f"{d.name()} ({d.arch()}), sizes {' '.join(map(str, sizes))}")
    fns = {}
    for name in kernels.GEMMS:
        for dtype in kernels.DTYPES:
            mod, kind = load(d, f"gemm_{name}_{dtype}", rep)
            fns[name, dtype] = d.function(mod, name)
    rng = np.random.default_rng(0)
    rep.row(f"{'kernel':6} {'type':4} {'n':>5}  {'ms':>8}  {'TFLOP/s':>7}  {'torch':>7}  {'ratio':>6}  max rel err")
    tf, ok_all = {}, True
    for dtype in kernels.DTYPES:
        for n in sizes:
            ops = _Operands(d, torch, n, dtype, rng)
            tsecs = ops.torch_seconds()
            flops = 2.0 * n ** 3
            for name, g in kernels.GEMMS.items():
                fn = fns[name, dtype]
                args = [u64(ops.ptrs["a"]), u64(ops.ptrs["bt" if g.transposed_b else "b"]), u64(ops.ptrs["c"]),
                        u64(n)]

                def launch(fn=fn, grid=g.grid(n), block=g.block(), args=args) -> None:
                    d.launch(fn, grid, block, args)
                launch()
                d.sync()
                good, err = ops.check()
                ok_all &= good
                secs = d.seconds_per_call(launch, _reps(d.seconds_per_call(launch, 1)))
                tf[name, dtype, n] = flops / secs / 1e12 if secs > 0 else float("inf")
                ttf = flops / tsecs / 1e12 if tsecs else None
                rep.row(f"{name:6} {dtype:4} {n:>5}  {secs * 1e3:8.3f}  {tf[name, dtype, n]:7.1f}  "
                        f"{f'{ttf:7.1f}' if ttf else '      -'}  {f'{tf[name, dtype, n] / ttf:6.3f}' if ttf else '     -'}"
                        f"  {err:.1e}{'' if good else '  WRONG (outside the f32-accumulation bound)'}")
            ops.free()
    rep.verdict(ok_all)
    rep.note(f"{len(tf)} results {'all within' if ok_all else 'NOT all within'} n 2^-22 |A||B| of the reference")
    if ("g11", "f16", 4096) in tf:
        rep.note(f"g11 f16 4096: {tf['g11', 'f16', 4096]:.1f} TFLOP/s (model: 27-30); g11tn/g11 "
                 f"{tf['g11tn', 'f16', 4096] / tf['g11', 'f16', 4096]:.2f} (model: ~1); g22/g11 "
                 f"{tf['g22', 'f16', 4096] / tf['g11', 'f16', 4096]:.2f} (model: ~2)")
    d.close()


# ---- probes --------------------------------------------------------------------------------------------------

def probe_mma(rep: Report) -> None:
    """cp.async -> ldmatrix -> mma.sync m16n8k16 (f16, bf16) against numpy and the PTX ISA's fragment layout."""
    d = Driver()
    mod, _ = load(d, "probe_mma", rep)
    a, b = probes.mma_inputs()
    ok_all = True
    for ty in ("f16", "bf16"):
        fn = d.function(mod, f"probe_mma_{ty}")
        abits, bbits = _bits(a, ty), _bits(b, ty)
        pa, pb = d.to_device(abits), d.to_device(bbits)
        pd, pf = d.alloc(16 * 8 * 4), d.alloc(32 * 6 * 4)
        d.memset(pd, 0, 16 * 8 * 4)
        d.launch(fn, (1, 1, 1), (32, 1, 1), [u64(pa), u64(pb), u64(pd), u64(pf)])
        d.sync()
        dd = d.download(np.empty((16, 8), np.float32), pd)
        frags = d.download(np.empty((32, 6), np.uint32), pf)
        ok, text = probes.check_mma(a, b, abits, bbits, dd, frags)
        ok_all &= ok
        rep.note(f"{ty}: {text}")
        for p in (pa, pb, pd, pf):
            d.free(p)
    rep.verdict(ok_all)
    d.close()


def probe_wgmma(rep: Report) -> None:
    """wgmma m64n8k16 (sm_90a): the LBO/SBO reading and the 128-byte swizzle, on a known answer."""
    d = Driver()
    if d.capability() != (9, 0):
        rep.skip(f"wgmma needs sm_90a (compute capability 9.0); this is {d.arch()}")
        return
    mod, _ = load(d, "probe_wgmma", rep)
    fn = d.function(mod, "probe_wgmma")
    a, b = probes.wgmma_inputs()
    results = {}
    for case in probes.wgmma_cases(a, b):
        pa, pb = d.to_device(case.a_image), d.to_device(case.b_image)
        pd, pr = d.alloc(64 * 8 * 4), d.alloc(128 * 4 * 4)
        d.memset(pd, 0, 64 * 8 * 4)
        d.launch(fn, (1, 1, 1), (128, 1, 1), [u64(pa), u64(pb), u64(case.desc_a), u64(case.desc_b), u64(pd),
                                              u64(pr)])
        d.sync()
        results[case.name] = (d.download(np.empty((64, 8), np.float32), pd),
                              d.download(np.empty((128, 4), np.float32), pr))
        for p in (pa, pb, pd, pr):
            d.free(p)
    ok, text = probes.check_wgmma(a, b, results)
    rep.verdict(ok)
    rep.note(text)
    d.close()


# ---- jit ----------------------------------------------------------------------------------------------------

JIT_MODULES = ("empty", "line_line10", "line_loop", "line_tile", "gemm_g11_f16")
JIT_LEVELS = (0, 1, 4)


def jit(rep: Report) -> None:
    """The driver JIT's cost per module and optimization level, against loading its cubin."""
    if os.environ.get("CUDA_CACHE_DISABLE") != "1":
        rep.note("CUDA_CACHE_DISABLE is not 1: repeated loads may come from the JIT cache")
    d = Driver()
    root = artifacts()

    def median_ms(image: bytes, level: int | None, reps: int = 3) -> float:
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            mod = d.load(image, level)
            times.append(time.perf_counter() - t0)
            d.unload(mod)
        return statistics.median(times) * 1e3

    first = time.perf_counter()
    d.unload(d.load((root / "empty.ptx").read_bytes()))
    rep.note(f"the first load in the process: {(time.perf_counter() - first) * 1e3:.1f} ms")
    rep.row(f"{'module':13} {'PTX bytes':>9}  {'O0 ms':>7} {'O1 ms':>7} {'O4 ms':>7}  {'cubin ms':>8}")
    figures = {}
    for stem in JIT_MODULES:
        ptx = (root / f"{stem}.ptx").read_bytes()
        ms = [median_ms(ptx, level) for level in JIT_LEVELS]
        cub = median_ms((root / f"{stem}.cubin").read_bytes(), None)
        figures[stem] = (ms, cub)
        rep.row(f"{stem:13} {len(ptx):>9}  {ms[0]:7.2f} {ms[1]:7.2f} {ms[2]:7.2f}  {cub:8.2f}")
    newer = root / "empty_newer.cubin"
    if newer.exists():
        try:
            d.unload(d.load(newer.read_bytes()))
            rep.note(f"a cubin from tileforth's newer ptxas ({_what(newer.name)}) loads")
        except CuError as exc:
            rep.note(f"a cubin from tileforth's newer ptxas ({_what(newer.name)}) is refused: {exc.text}")
    loop, cub = figures["line_loop"]
    rep.note(f"loop line: O4 {loop[2]:.1f} ms, O1 {loop[1]:.1f} ms, cubin {cub:.2f} ms; GEMM O4 "
             f"{figures['gemm_g11_f16'][0][2]:.1f} ms")
    d.close()


def _what(name: str) -> str:
    return manifest()["files"].get(name, {}).get("what", name)


# ---- launchers ----------------------------------------------------------------------------------------------

def _import(path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def launchers(rep: Report) -> None:
    """`tileforth compile --python` launchers with torch tensors and CuPy arrays, per driver."""
    n = 1 << 20 if not standin() else 4096
    rng = np.random.default_rng(0)
    x, y, alpha = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32), 2.5
    want = np.float32(alpha) * x + y
    torch, why = torch_or_reason()
    try:
        import cupy
    except ImportError as exc:
        cupy = None
        rep.note(f"CuPy not importable ({exc})")
    if torch is None:
        rep.note(why)
    makers = {}
    if torch is not None:
        makers["torch"] = (lambda a: torch.from_numpy(a.copy()).cuda(), lambda t: t.cpu().numpy())
    if cupy is not None:
        makers["cupy"] = (lambda a: cupy.asarray(a), lambda t: cupy.asnumpy(t))
    tried, ok_all = 0, True
    rep.row(f"{'launcher':18} {'driver':11} {'arrays':6}  {'us/call':>8}  result")
    for stem in ("launch_saxpy_ptx", "launch_saxpy_cubin"):
        for driver in ("cuda-python",):  # launchers run on cuda-bindings, whatever made the arrays
            try:
                mod = _import(artifacts() / f"{stem}.py", f"{stem}_{driver.replace('-', '_')}")
                mod.use(driver)
            except Exception as exc:  # noqa: BLE001
                rep.row(f"{stem:18} {driver:11} {'-':6}  {'-':>8}  not usable: {first_line(exc)}")
                continue
            for kind, (make, back) in makers.items():
                tried += 1
                try:
                    X, Y = make(x), make(y)
                    mod.saxpy(X, Y, alpha)
                    got = back(Y)
                    good = np.allclose(got, want, rtol=1e-6, atol=1e-6)
                    Z = make(y)
                    reps = 20
                    t0 = time.perf_counter()
                    for _ in range(reps):
                        mod.saxpy(X, Z, alpha)  # queued on the current stream: the loop does not wait
                    mod.check()  # waits for the launches (and raises what they recorded)
                    us = (time.perf_counter() - t0) / reps * 1e6
                    rep.row(f"{stem:18} {driver:11} {kind:6}  {us:8.1f}  {'= numpy' if good else 'WRONG'}")
                    ok_all &= good
                except Exception as exc:  # noqa: BLE001
                    ok_all = False
                    rep.row(f"{stem:18} {driver:11} {kind:6}  {'-':>8}  {first_line(exc)}")
            mod.close()
    tma_ok = _tma_rows(rep, makers)
    if torch is not None and "torch" in makers:
        tma_ok &= _gemm_hopper(rep, torch)
    if not tried:
        rep.skip("neither torch nor CuPy is usable")
        return
    rep.verdict(ok_all and tma_ok)
    rep.note(f"{tried} launcher calls (saxpy, {n} elements) {'all' if ok_all else 'NOT all'} equal to numpy; "
             f"the TMA launcher (a `\\! tmap` parameter) {'= numpy' if tma_ok else 'WRONG or not run'}")


def _launcher(rep: Report, stem: str, arrays: str):
    """The launcher artifact `stem` on cuda-python, or None after a row saying why it is not usable."""
    try:
        mod = _import(artifacts() / f"{stem}.py", stem)
        mod.use("cuda-python")
    except Exception as exc:  # noqa: BLE001
        rep.row(f"{stem:18} {'cuda-python':11} {arrays:6}  {'-':>8}  not usable: {first_line(exc)}")
        return None
    return mod


# the Hopper GEMM demos' launchers: (artifact, kernel, block tile rows, block tile columns)
HOPPER_GEMMS = (("launch_gemm_hopper", "gemm_hopper", 64, 64), ("launch_gemm_hopper128", "gemm_hopper128", 128, 128),
                ("launch_gemm_hopper256", "gemm_hopper256", 128, 256))


def _gemm_hopper(rep: Report, torch) -> bool:
    """Each Hopper GEMM demo's launcher (HOPPER_GEMMS: demos/gemm_hopper*.fth, unchecked, sm_90a) on torch bf16
    tensors at 4096^3 and 8192^3 against torch.matmul in the same process: exact for integer-valued inputs
    (|a|, |b| <= 3: every partial sum an integer below 2^24), TFLOP/s and the ratio. Hopper only (compute
    capability 9.0)."""
    ok = True
    for stem, kernel, bm, bn in HOPPER_GEMMS:
        ok &= _gemm_hopper_one(rep, torch, stem, kernel, bm, bn)
    return ok


def _gemm_hopper_one(rep: Report, torch, stem: str, kernel: str, bm: int, bn: int) -> bool:
    if torch.cuda.get_device_capability() != (9, 0):
        rep.row(f"{stem:21} {'cuda-python':11} {'torch':6}  {'-':>8}  not a Hopper GPU: skipped")
        return True
    mod = _launcher(rep, stem, "torch")
    if mod is None:
        return False
    ok = True
    for n in (4096, 8192) if not standin() else (256,):
        try:
            g = torch.Generator(device="cuda").manual_seed(n)
            a = torch.randint(-3, 4, (n, n), device="cuda", generator=g).to(torch.bfloat16)
            b = torch.randint(-3, 4, (n, n), device="cuda", generator=g).to(torch.bfloat16)
            bt, c = b.t().contiguous(), torch.empty((n, n), device="cuda", dtype=torch.float32)
            launch = getattr(mod, kernel)

            def ours() -> None:
                launch(M=n, N=n, KK=n, A=a, BT=bt, C=c, grid=(n // bn, n // bm, 1))

            def theirs() -> None:
                torch.matmul(a, b)
            secs = {}
            for name, fn in (("tileforth", ours), ("torch", theirs)):
                fn()
                torch.cuda.synchronize()
                reps = 5 if n >= 8192 else 20
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(reps):
                    fn()
                end.record()
                end.synchronize()
                secs[name] = start.elapsed_time(end) / 1e3 / reps
            c.fill_(float("nan"))  # once more on a cleared C: every element written by this launch
            ours()
            torch.cuda.synchronize()
            good = bool(torch.equal(c, a.float() @ b.float()))
            tf = {k: 2.0 * n ** 3 / v / 1e12 for k, v in secs.items()}
            rep.row(f"{stem:21} {'cuda-python':11} {'torch':6}  {secs['tileforth'] * 1e6:8.0f}  "
                    f"n {n}, {bm}x{bn} tiles: {tf['tileforth']:.1f} TFLOP/s, torch {tf['torch']:.1f}, ratio "
                    f"{tf['tileforth'] / tf['torch']:.3f}, {'= exact' if good else 'WRONG'}")
            ok &= good
        except Exception as exc:  # noqa: BLE001
            ok = False
            rep.row(f"{stem:21} {'cuda-python':11} {'torch':6}  {'-':>8}  n {n}: {first_line(exc)}")
    mod.close()
    return ok


def _tma_rows(rep: Report, makers: dict) -> bool:
    """launch_tma_rows.py: the launcher encodes A's tensor map (cuTensorMapEncodeTiled through cuda-bindings),
    the kernel TMA-loads rows 2 to 5 of A into shared memory and writes them to OUT (zeros elsewhere)."""
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    want = np.zeros_like(a)
    want[2:6] = a[2:6]
    ok = bool(makers)
    mod = _launcher(rep, "launch_tma_rows", "-")
    if mod is None:
        return False
    for kind, (make, back) in makers.items():
        try:
            A, OUT = make(a), make(np.zeros_like(a))
            mod.tma_rows(A, OUT)
            mod.tma_rows(A, OUT)  # the map again, from the launcher's cache
            mod.check()
            good = np.array_equal(back(OUT), want)
            rep.row(f"{'launch_tma_rows':18} {'cuda-python':11} {kind:6}  {'-':>8}  {'= numpy' if good else 'WRONG'}")
            ok &= good
        except Exception as exc:  # noqa: BLE001
            ok = False
            rep.row(f"{'launch_tma_rows':18} {'cuda-python':11} {kind:6}  {'-':>8}  {first_line(exc)}")
    mod.close()
    return ok


STEPS = {"gemm": gemm, "probe_mma": probe_mma, "probe_wgmma": probe_wgmma, "jit": jit, "launchers": launchers}

if __name__ == "__main__":
    sys.exit(main(STEPS))
