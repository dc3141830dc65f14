"""The device check's steps: their phase, their time budget and the question each answers.

The run (main.py) is: `sysinfo`; then the install (PyCUDA built from its sdist, tileforth) in the
background while phase A runs in the foreground; then phase B. So the planned time is
sysinfo + max(install, phase A) + phase B, and it must stay within TF_BUDGET's default (420 s:
7 minutes, so that a second try fits in the 15 minutes of a lease, machine start included).
Every step is cut to its budget and to what is left of TF_BUDGET.
"""
from __future__ import annotations

from dataclasses import dataclass

BUDGET = 420  # seconds for the whole run, installs included (TF_BUDGET's default)


@dataclass(frozen=True)
class Step:
    name: str
    phase: str  # "0" (first), "install" (in the background), "A", "B"
    budget: int  # seconds, at most
    answers: str  # what it tells


STEPS = [
    Step("sysinfo", "0", 10, "the GPU, its driver and clocks; the Python, torch, CuPy and cuda-bindings there"),
    Step("install", "install", 180, "tileforth installs offline from the carried wheels, and PyCUDA builds from its "
         "sdist (in the background, while phase A runs)"),
    # phase A: numpy + cuda-bindings + torch/CuPy, the artifacts built here (no PyCUDA, no tileforth)
    Step("gemm", "A", 60, "the GEMM ratio table: g11, g11tn, g22 x f16, bf16 x n = 1024..8192 against "
         "torch.matmul (TFLOP/s, ratio, max relative error): does the load-path model of fast_gemm.md §1 hold?"),
    Step("probe_mma", "A", 15, "cp.async -> ldmatrix -> mma.sync m16n8k16: are the fragments and D where the "
         "PTX ISA says (f16 and bf16)?"),
    Step("probe_wgmma", "A", 15, "wgmma m64n8k16 on sm_90a: which reading of LBO/SBO is right (no swizzle), and "
         "does the 128-byte swizzle descriptor give the known answer?"),
    Step("jit", "A", 40, "the driver JIT's cost: cuModuleLoadDataEx of an empty kernel, a 10-word line, a loop "
         "line, a tile line and the GEMM at optimization levels 0, 1, 4, against loading a ready cubin"),
    Step("launchers", "A", 50, "`tileforth compile --python` launchers (PTX and cubin) called with torch tensors "
         "and CuPy arrays through CuPy and cuda-python: microseconds per call, results against numpy; the Hopper "
         "GEMM demos' launchers against torch.matmul at 4096^3 and 8192^3"),
    # phase B: PyCUDA + tileforth
    Step("sticky_torch", "B", 20, "a torch tensor holds the primary context; an unchecked faulting line: does the "
         "reset for every holder (_reset_primary) run, the next line work, a VARIABLE come back, a new session "
         "start, and what does torch do afterwards?"),
    Step("sticky_cupy", "B", 20, "the same with a CuPy array holding the primary context"),
    Step("sticky_alone", "B", 15, "the same with no other holder: the plain release-and-retain path"),
    Step("latency", "B", 25, "where a cuda line's time goes, on 15 new and 30 cached lines: IR build, IR passes, "
         "NVPTX emit, module load (JIT), launch, read-back; the compile tiers: new straight and loop lines against "
         "issue 27's 12 and 30 ms, a loop line's move to the full tier"),
    Step("big_launch", "B", 40, "a trivial line at 135,168, 1,048,576 and 2,097,152 threads (issue 27: "
         "<= 3 ms and <= 10 ms): snapshot, thread-record upload (none now), launch, read-back"),
    Step("gpu_check", "B", 30, "benchmarks/gpu_check.py: the 4096^3 GEMM export through PyCUDA against "
         "torch.matmul"),
    Step("cases", "B", 30, "REPL lines on cuda that pytest -m gpu does not cover: CuPy/torch arrays through "
         "f.kernel, misaligned and tile-alignment errors, recursion at its limit, gemm2 at 1024 threads, the cost "
         "of a loop iteration"),
    Step("pytest_gpu", "B", 45, "pytest -m gpu: the programs, errors and demos on cuda against the emulator"),
]
BY_NAME = {s.name: s for s in STEPS}
PHASES = {"0": "setup", "install": "install", "A": "phase A", "B": "phase B"}


def steps(phase: str) -> list[Step]:
    return [s for s in STEPS if s.phase == phase]


def planned() -> dict[str, int]:
    """Seconds planned: each phase's sum, and the total (the install and phase A run side by side)."""
    per = {p: sum(s.budget for s in steps(p)) for p in PHASES}
    per["total"] = per["0"] + max(per["install"], per["A"]) + per["B"]
    return per


def budget_line(budget: int = BUDGET) -> str:
    p = planned()
    return (f"planned {p['total']} s of {budget} s: sysinfo {p['0']} + max(install {p['install']}, phase A {p['A']}) "
            f"+ phase B {p['B']}")
