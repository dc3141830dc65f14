#!/usr/bin/env bash
# tileforth device check v2: one prepared run on a machine with ONE NVIDIA GPU that reaches NO package index,
# which answers the open GPU questions with verdicts (docs/device_check.md: what each step answers).
#
#   bash benchmarks/device_check.sh            (from the repository root; TF_BUDGET seconds, default 420)
#
# Here first: `bash benchmarks/fetch_wheels.sh` fills ./.whl (git-ignored) with the wheels, PyCUDA's sdist and
# the artifacts phase A loads (.whl/devcheck, built by benchmarks/devcheck/build_artifacts.py). Then, with the
# device tool:
#   run(command="bash benchmarks/device_check.sh", carry=[".whl"], timeout_s=450)
# $OUT/summary.txt is written step by step (a run cut by its limit still reports); $OUT also gets results.json,
# sysinfo.log, install.log, phase_a.log, phase_b.log, pytest_gpu.log and logs.tar.gz.
#
# The run (benchmarks/devcheck/main.py; the steps and their budgets: benchmarks/devcheck/plan.py):
#   sysinfo; then install.sh (a venv with tileforth, PyCUDA built from its sdist) in the background while
#   phase A runs (numpy + cuda-bindings + torch/CuPy on the carried cubins and PTX: the GEMM ratio table,
#   the mma.sync and wgmma layout probes, the JIT's cost, the --python launchers); then phase B (PyCUDA +
#   tileforth: lost contexts with torch/CuPy holding the primary context, the line-latency split, big
#   launches, interop and alignment cases, gpu_check.py, pytest -m gpu).
#
# A dry run without a GPU: TF_STANDIN=tests/standin bash benchmarks/device_check.sh runs every step against
# the stand-in drivers (tests/standin: pycuda, cupy, cuda.bindings); kernels do not run there, so the results
# that need one FAIL by design, and torch's steps say it is missing. It prints the planned time per phase.
#
# Knobs: benchmarks/devcheck/main.py's docstring (TF_BUDGET, TF_STEPS, TF_PYTHON, TF_INSTALL=0, ...).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ ! -f "$ROOT/pyproject.toml" ] || [ ! -d "$ROOT/tileforth/backends/cuda" ]; then
  echo "benchmarks/device_check.sh: $ROOT is not a tileforth checkout (pyproject.toml, tileforth/backends/cuda)" >&2
  exit 2
fi
PY=${TF_PYTHON:-$(command -v python3 || command -v python)}
# its latency rows time real compiles: the disk cache of cubins (docs/repl.md) stays out of the way
export TILEFORTH_CUBIN_CACHE=${TILEFORTH_CUBIN_CACHE:-off}
cd "$ROOT" && exec "$PY" "$ROOT/benchmarks/devcheck/main.py" "$@"
