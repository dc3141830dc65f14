"""The benchmark scripts run, and their kernels compute the right thing.

Not timed tests: the figures they print are for people; here only the
results are checked (the matmul against numpy, inside the script) and
that each prints its headline figures.
"""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def run(script, *args):
    return subprocess.run([sys.executable, str(BENCH / script), *args],
                          capture_output=True, text=True, timeout=600)


def wait_spinning(pid: int, limit: float = 60.0) -> None:
    """Until the process `pid` has run on a CPU for 0.1 s (its user time in /proc), within `limit`."""
    tick = os.sysconf("SC_CLK_TCK")
    end = time.monotonic() + limit  # a bound on waiting, not a timing assertion
    while time.monotonic() < end:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        if int(fields[11]) / tick >= 0.1:  # utime: field 14 of stat, the 12th after the name
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} never ran")


def test_emulator_quick_matmul_is_correct():
    r = run("emulator.py", "--quick")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "64×64" in r.stdout and "128×128" not in r.stdout
    assert re.search(r"max err \d", r.stdout)  # checked against numpy
    assert "NOT MEASURED" in r.stdout  # --quick never claims a numba figure


def test_emulator_kernel_text_is_the_tiled_algorithm():
    sys.path.insert(0, str(BENCH))
    try:
        import emulator
    finally:
        sys.path.remove(str(BENCH))
    src = emulator.forth_source(64)
    assert src.count("BARRIER") == 2
    assert "SHARED:" in src and "4 4 1 GRID 16 16 1 THREADS" in src


def test_latency_prints_every_row_of_issue_27():
    r = run("latency.py", "--lines", "5")
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"new straight line .* ms median .*target ≤ 1.5 ms", r.stdout)
    assert re.search(r"same structure, other numbers .* ms median .*target ≤ 0.3 ms", r.stdout)
    assert re.search(r"cached line .* ms median .*target ≤ 0.1 ms", r.stdout)
    assert re.search(r"cached line, next line number .* ms median .*target ≤ 0.1 ms", r.stdout)
    assert re.search(r"new loop line \(tier 0\) .* ms median", r.stdout)
    assert re.search(r"loop line, full tier \(reused\) .* ms median", r.stdout)
    assert re.search(r"swapped to full later: 1$", r.stdout, re.M)  # the reused loop line reached the full tier
    parts = re.search(r"its parts \(medians\): IR in Python ([\d.]+) ms, cpu compile ([\d.]+) ms, launch ([\d.]+) ms",
                      r.stdout)
    assert parts and all(float(x) > 0 for x in parts.groups())  # each part of a new line was measured


def test_tiles_quick_gemms_are_correct():
    r = run("tiles.py", "--quick")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "64×64×64" in r.stdout and "256×256×256, f16" not in r.stdout
    # both kernels, each checked against numpy inside the script
    assert r.stdout.count("(bound ok)") == 2
    assert r.stdout.count("bit-exact vs per-TMMA rounding") == 2
    assert "NOT bit-exact" not in r.stdout
    assert len(re.findall(r"first run \(compile\+run\) +\d+\.\d ms", r.stdout)) == 2
    assert len(re.findall(r"warm run +\d+\.\d ms", r.stdout)) == 2
    assert "target ≤ 2000 ms" in r.stdout


def test_tiles_kernel_text():
    sys.path.insert(0, str(BENCH))
    try:
        import tiles
    finally:
        sys.path.remove(str(BENCH))
    single = tiles.single_source(256, 256, 256)
    assert "16 / MM 16 / 1 GRID  32 1 1 THREADS" in single and single.count("TMMA") == 1
    blocked = tiles.blocked_source(256, 256, 256)
    assert "3 TROLL" in blocked and blocked.count("TZERO") == 4 and blocked.count("TSTORE") == 4
    # the model of the numerics is numpy's product for data that is exact at every step
    a = np.arange(32 * 48).reshape(32, 48) % 5 - 2
    b = np.arange(48 * 16).reshape(48, 16) % 7 - 3
    assert np.array_equal(tiles.per_tmma_model(a.astype(np.float16), b.astype(np.float16)), a @ b)


def test_compile_quick_prints_edit_to_ptx_ratios():
    r = run("compile.py", "--quick")
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"tileforth default \(O3\) +\d+\.\d ms +\d+\.\d ms", r.stdout)
    assert re.search(r"tileforth gemm +\d+\.\d ms +\d+\.\d ms", r.stdout)
    assert "equals numpy at 64×64×64 on the emulator" in r.stdout  # the run-time-K GEMM kernel file
    assert len(re.findall(r"tileforth +\d+ regs  stack  0 B", r.stdout)) == 2
    if "NOT FOUND" not in r.stdout:  # nvcc present: the ratios and its side of the comparison
        assert re.search(r"nvcc / tileforth default \(O3\) +\d+\.\d×   target ≥ 20×", r.stdout)
        assert len(re.findall(r"nvcc +\d+ regs", r.stdout)) == 2


def test_compile_counts_the_main_loop_per_mma():
    sys.path.insert(0, str(BENCH))
    try:
        import compile as bench
    finally:
        sys.path.remove(str(BENCH))
    ptx = """.visible .entry k(
\t.param .u64 k_param_0
)
{
\t.reg .b32 \t%r<9>;
\tld.param.u64 \t%rd1, [k_param_0];
$L__BB0_1:
\twmma.mma.sync.aligned.row.row.m16n16k16.f32.f32
\t\t{%r1}, {%r2}, {%r3}, {%r4};
\tld.global.f32 \t%f1, [%rd1];
\t@%p1 bra \t$L__BB0_1;
$L__BB0_2:
\tst.global.f32 \t[%rd1], %f1;
\t@%p2 bra \t$L__BB0_2;
\tret;
}
"""
    body, is_loop = bench.loop_body(bench.instructions(ptx, "k"))
    assert is_loop and len(body) == 3  # the loop with the MMA, not the shorter one
    assert bench.classify(body) == {"wmma": 1, "ld": 1, "st": 0, "other": 1, "mma": 1}
    assert "TMMA" in bench.GEMM_KERNEL_FILE and "int KK" in bench.gemm_cuda_runtime_k()


def test_memory_quick_prints_each_figure_and_a_data_script_compiles_no_kernel():
    r = run("memory.py", "--quick")
    assert r.returncode == 0, r.stderr
    for what in ("distinct lines", "definitions", "dropped sessions", "closed sessions", "data script"):
        assert what in r.stdout, r.stdout
    assert "0 kernels compiled" in r.stdout and "kernels cached" in r.stdout


def test_the_benchmarks_say_when_another_process_is_busy():
    """benchmarks/quiet.py: a process spinning on a core shows as about one core's worth of other
    processes' CPU time, and the line printed before the figures warns; this process's own time is not
    counted. The benchmarks print that line first."""
    sys.path.insert(0, str(BENCH))
    try:
        import quiet
    finally:
        sys.path.remove(str(BENCH))
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        wait_spinning(spin.pid)  # the interpreter started and spins (a condition, not a sleep)
        assert quiet.others(1.0) > 0.5
        r = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(BENCH)!r}); "
                            "import quiet; quiet.report()"], capture_output=True, text=True, timeout=60)
        assert "WARNING: they slow the figures below" in r.stdout
    finally:
        spin.kill()
        spin.wait()
    assert run("parallel.py").stdout.startswith("machine: ")


def test_warps_quick_prints_both_paths_checked():
    r = run("warps.py", "--quick")
    assert r.returncode == 0, r.stdout + r.stderr  # each result is checked against numpy inside the script
    assert "4,096 threads" in r.stdout
    for name in ("warp sum (5 SHFL-XOR)", "BALLOT"):
        assert re.search(re.escape(name) + r" +\d+\.\d ms   warp by warp +\d+\.\d ms", r.stdout), r.stdout


def test_allocate_quick_prints_each_figure_and_the_list_sums_right():
    r = run("allocate.py", "--quick")
    assert r.returncode == 0, r.stdout + r.stderr  # the list's walk is checked inside the script
    assert re.search(r"1,000 allocations \(16 bytes, kept\) +\d+\.\d+ s +target ≤ 0\.1 s", r.stdout), r.stdout
    assert re.search(r"1,000 ALLOCATE\+FREE pairs +\d+\.\d+ s", r.stdout)
    assert "linked list of 100 nodes" in r.stdout and "(sum 4950: right)" in r.stdout
