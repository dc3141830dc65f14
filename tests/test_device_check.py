"""benchmarks/device_check.sh runs end to end against the stand-in driver
(tests/standin/pycuda): kernels do not run there, so its GPU comparisons
fail by design, but the script itself must complete, label the run STAND-IN
and write a summary with a line for every step."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "device_check.sh"
STANDIN = ROOT / "tests" / "standin" / "pycuda"

pytestmark = [
    pytest.mark.skipif(not STANDIN.is_dir(), reason="the stand-in driver (tests/standin/pycuda) is not there"),
    pytest.mark.skipif(shutil.which("bash") is None or shutil.which("timeout") is None, reason="needs bash and timeout"),
]

CASES = ["smoke", "shared", "two_sessions"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("devcheck")
    out = tmp / "out"
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.update({
        "OUT": str(out), "TF_WORK": str(tmp / "work"), "TF_STANDIN": "tests/standin", "TF_INSTALL": "0",
        "TF_PYTHON": sys.executable, "TF_BUDGET": "240", "TF_CASES": " ".join(CASES),
        "TF_PYTEST_ARGS": "tests/test_gpu.py -k arithmetic", "TF_GPU_CHECK_ARGS": "--skip-tests --size 64",
    })
    proc = subprocess.run(["bash", str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=420)
    return proc, out


def test_the_script_completes_against_the_stand_in(run):
    proc, out = run
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "SUMMARY" in proc.stdout


def test_the_summary_has_every_step_and_says_stand_in(run):
    proc, out = run
    summary = (out / "summary.txt").read_text()
    assert "STAND-IN" in summary.splitlines()[1]
    steps = [ln.split()[0] if not ln.startswith(("case ", "pytest ")) else " ".join(ln.split()[:2])
             for ln in summary.splitlines()[4:] if not ln.startswith("logs:")]
    assert steps == ["nvidia-smi", "install", *[f"case {c}" for c in CASES], "pytest -m", "gpu_check"]
    assert re.search(r"^install +OK .*PYCUDA=standin", summary, re.M)
    # results that need a GPU are labelled, and the cases ran (each printed its RESULT line)
    for c in CASES:
        assert re.search(rf"^case {c} +\w+ +\d+  \[STAND-IN\] ", summary, re.M), summary
    assert "NORESULT" not in summary
    assert re.search(r"^pytest -m gpu +FAIL .*program\[arithmetic\]", summary, re.M)
    assert re.search(r"^gpu_check +FAIL .*sm_90 .*bound: False", summary, re.M)
    for name in ("install.log", "pytest-gpu.log", "gpu-check.log", "cases.log", "logs.tar.gz"):
        assert (out / name).exists(), name


def test_the_kernels_are_built_for_the_exact_architecture(run):
    proc, out = run
    log = (out / "cases.log").read_text()
    assert "arch sm_90" in log  # the stand-in says compute capability 9.0
    script = SCRIPT.read_text()
    assert "else \"sm_90\"" not in script and "< 9 else" not in script
