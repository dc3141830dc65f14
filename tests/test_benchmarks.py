"""The benchmark scripts run, and their kernels compute the right thing.

Not timed tests: the figures they print are for people; here only the
results are checked (the matmul against numpy, inside the script) and
that each prints its headline figures.
"""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def run(script, *args):
    return subprocess.run([sys.executable, str(BENCH / script), *args],
                          capture_output=True, text=True, timeout=600)


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
    assert "SHARED:" in src and "4 4 1 GRID 16 16 1 BLOCK" in src


def test_latency_prints_both_medians():
    r = run("latency.py", "--lines", "5")
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"new line .* ms median .*target ≤ 10 ms", r.stdout)
    assert re.search(r"same line again .* ms median .*target ≤ 1 ms", r.stdout)


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
    assert "16 / MM 16 / 1 GRID  32 1 1 BLOCK" in single and single.count("TMMA") == 1
    blocked = tiles.blocked_source(256, 256, 256)
    assert "3 TROLL" in blocked and blocked.count("TZERO") == 4 and blocked.count("TSTORE") == 4
    # the model of the numerics is numpy's product for data that is exact at every step
    a = np.arange(32 * 48).reshape(32, 48) % 5 - 2
    b = np.arange(48 * 16).reshape(48, 16) % 7 - 3
    assert np.array_equal(tiles.per_tmma_model(a.astype(np.float16), b.astype(np.float16)), a @ b)
