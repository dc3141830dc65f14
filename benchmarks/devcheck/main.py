"""The device check's run (benchmarks/device_check.sh starts it; docs/device_check.md says how to run it).

sysinfo, then install.sh in the background while phase A's steps run one process each, then phase
B's steps; every step cut to its budget (plan.py) and to what is left of TF_BUDGET. The summary is
written as each step ends, to $WORK/summary.txt and $OUT/summary.txt; $OUT gets at most 8 files.

Knobs (environment): TF_BUDGET (seconds, default plan.BUDGET), TF_STANDIN (a dry run against
tests/standin), TF_STEPS (only these steps, the others SKIP; the install runs too when one of them is
in phase B), TF_WORK (scratch, default a new
/tmp/tf-devcheck.*), TF_PYTHON (phase A's interpreter and the venv's base, default python3),
TF_WHEELS (default ./.whl), TF_OFFLINE (1/0; default 1 when the wheels are there), TF_INSTALL=0 (no
venv), TF_VENV, TF_BUILD_PYCUDA=0, TF_BUILD_TIMEOUT, TF_SHIM=0, TF_DC_ARTIFACTS (default
.whl/devcheck), TF_DC_GEMM_SIZES, TF_PYTEST_ARGS (added to pytest), TF_GPU_CHECK_ARGS (default
--skip-tests).
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))

from devcheck import plan  # noqa: E402
from devcheck.stepio import read_result  # noqa: E402
from devcheck.summary import Summary, header  # noqa: E402

RESERVE = 5  # seconds kept back at the end, for the summary and $OUT


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


class Run:
    def __init__(self) -> None:
        env = os.environ
        self.t0 = time.monotonic()
        self.budget = int(env.get("TF_BUDGET") or plan.BUDGET)
        self.deadline = self.t0 + self.budget
        self.work = Path(env.get("TF_WORK") or tempfile.mkdtemp(prefix="tf-devcheck."))
        self.logs = self.work / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.pypath = self.work / "pypath"  # devcheck alone on the steps' path (not the rest of benchmarks/)
        self.pypath.mkdir(exist_ok=True)
        if not (self.pypath / "devcheck").exists():
            (self.pypath / "devcheck").symlink_to(HERE, target_is_directory=True)
        self.out = Path(env["OUT"]) if env.get("OUT") else None
        st = env.get("TF_STANDIN", "")
        self.standin = str(Path(st) if Path(st).is_absolute() else ROOT / st) if st else ""
        if self.standin and not (Path(self.standin) / "pycuda").is_dir():
            raise SystemExit(f"TF_STANDIN={st}: no stand-in pycuda package in {self.standin}")
        self.only = set(env.get("TF_STEPS", "").split())
        unknown = self.only - set(plan.BY_NAME)
        if unknown:
            raise SystemExit(f"TF_STEPS: no step {' '.join(sorted(unknown))} (steps: {' '.join(plan.BY_NAME)})")
        self.pybase = env.get("TF_PYTHON") or shutil.which("python3") or sys.executable
        self.artifacts = Path(env.get("TF_DC_ARTIFACTS") or ROOT / ".whl" / "devcheck")
        self.results: list[dict] = []
        commit = _git("rev-parse", "--short", "HEAD") or "?"
        if _git("status", "--porcelain", "--untracked-files=no"):
            commit += "+changes"
        facts = [plan.budget_line(self.budget)]
        if self.standin:
            facts.append(f"STAND-IN run: the drivers are {self.standin} (pycuda, cupy, cuda.bindings); kernels do not "
                         "run, so results that need a kernel FAIL by design")
        facts.append(self._artifacts_fact(commit))
        self.summary = Summary(self.work / "summary.txt", header(commit, self.budget), facts,
                               mirror=self.out / "summary.txt" if self.out else None)

    def _artifacts_fact(self, commit: str) -> str:
        m = self.artifacts / "manifest.json"
        if not m.exists():
            return f"artifacts: none in {self.artifacts} (phase A fails: run benchmarks/devcheck/build_artifacts.py)"
        man = json.loads(m.read_text())
        same = man["commit"] == commit.split("+")[0] and not man.get("dirty")
        return (f"artifacts: {len(man['files'])} files, {man.get('total_bytes', 0) // 1024} KiB, ptxas {man['ptxas']}, "
                f"built at commit {man['commit']}{' with changes' if man.get('dirty') else ''}"
                + ("" if same else f" (NOT this commit, {commit}: rebuild them)"))

    # ---- time ------------------------------------------------------------------------------------------
    def now(self) -> float:
        return time.monotonic() - self.t0

    def left(self) -> float:
        return self.deadline - time.monotonic() - RESERVE

    # ---- running a step -------------------------------------------------------------------------------
    def env(self, extra_path: list[str] = (), extra: dict | None = None) -> dict:
        e = dict(os.environ)
        paths = [*extra_path, str(self.pypath)] + ([self.standin] if self.standin else [])
        e["PYTHONPATH"] = os.pathsep.join(paths + ([e["PYTHONPATH"]] if e.get("PYTHONPATH") else []))
        e["PYTHONUNBUFFERED"] = "1"
        e["TF_DC_ARTIFACTS"] = str(self.artifacts)
        e.update(extra or {})
        return e

    def run(self, name: str, cmd: list[str], env: dict, want: float) -> tuple[int, str, float, bool]:
        """(exit status, log, seconds, timed out): the command in its own process group, cut at `want` seconds."""
        log = self.logs / f"{name}.log"
        limit = max(0.0, min(want, self.left()))
        t0 = time.monotonic()
        with log.open("w") as fh:
            fh.write(f"$ {shlex.join(cmd)}   (limit {limit:.0f} s)\n")
            fh.flush()
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            try:
                rc, late = proc.wait(timeout=limit), False
            except subprocess.TimeoutExpired:
                _kill(proc)
                rc, late = proc.returncode, True
        secs = time.monotonic() - t0
        text = log.read_text(errors="replace")
        if late:
            with log.open("a") as fh:
                fh.write(f"\n!! timed out after {limit:.0f} s\n")
        return rc, text, secs, late

    def skipped(self, step: plan.Step) -> bool:
        if self.only and step.name not in self.only:
            self.summary.add(step.name, "SKIP", 0, "not in TF_STEPS")
            return True
        if self.left() < 5:
            self.summary.add(step.name, "SKIP", 0, f"no time left of the {self.budget} s budget")
            return True
        return False

    def python_step(self, step: plan.Step, cmd: list[str], env: dict, tag: str = "") -> None:
        """A step that ends with a RESULT line (stepio.py), cut at its budget."""
        if self.skipped(step):
            return
        rc, text, secs, late = self.run(step.name, cmd, env, step.budget)
        res = read_result(text)
        if res is None:  # what it printed as it went: its notes ("  text") and rows ("  | text")
            rows = [ln[4:] for ln in text.splitlines() if ln.startswith("  | ")]
            notes = [ln.strip() for ln in text.splitlines() if ln.startswith("  ") and not ln.startswith("  | ")]
            tail = " | ".join(ln.strip() for ln in text.strip().splitlines()[-2:])[:300]
            why = f"timed out after {secs:.0f} s" if late else f"no result (exit status {rc})"
            self.results.append({"step": step.name, "status": "FAIL", "detail": why, "notes": notes, "rows": rows,
                                 "log_tail": tail})
            self.summary.add(step.name, "FAIL", secs, f"{tag}{why}; " + "; ".join(notes[:8])
                             + ("" if notes else f"; last lines: {tail}"), rows)
        else:
            res["step"] = step.name
            self.results.append(res)
            exit_note = f" [the process then exited with status {rc}]" if rc not in (0, None) else ""
            self.summary.add(step.name, res["status"], secs, tag + res["detail"] + exit_note, res.get("rows", []))
        self.flush()

    def flush(self) -> None:
        """$OUT: the summary (mirrored already), results.json and the logs so far, at most 8 files."""
        if self.out is None:
            return
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            (self.out / "results.json").write_text(json.dumps(self.results, indent=1))
            groups = {"sysinfo.log": ["sysinfo"], "install.log": ["install"],
                      "phase_a.log": [s.name for s in plan.steps("A")],
                      "phase_b.log": [s.name for s in plan.steps("B") if s.name != "pytest_gpu"],
                      "pytest_gpu.log": ["pytest_gpu"]}
            for out, names in groups.items():
                parts = [self.logs / f"{n}.log" for n in names if (self.logs / f"{n}.log").exists()]
                if parts:
                    (self.out / out).write_text("".join(f"==== {p.stem}\n{p.read_text(errors='replace')}\n"
                                                        for p in parts))
        except OSError:
            pass


def _kill(proc: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


# ---- the steps main.py runs itself -------------------------------------------------------------------------

SYSINFO = r"""
import importlib.metadata as md, sys
print("python", sys.version.split()[0], sys.executable)
for name, dists in (("numpy", ["numpy"]), ("torch", ["torch"]), ("cupy", ["cupy-cuda13x", "cupy-cuda12x", "cupy"]),
                    ("cuda-bindings", ["cuda-bindings", "cuda-python"]), ("ml_dtypes", ["ml_dtypes"]),
                    ("llvmlite", ["llvmlite"]), ("pycuda", ["pycuda"])):
    for d in dists:
        try:
            print(name, md.version(d))
            break
        except md.PackageNotFoundError:
            pass
    else:
        print(name, "missing")
"""


def sysinfo(r: Run) -> None:
    """The GPU (nvidia-smi) and the versions of the Python packages there (without importing them)."""
    step = plan.BY_NAME["sysinfo"]
    if r.skipped(step):
        return
    cmd = ["bash", "-c", "date -u +%FT%TZ; uname -r; echo cpus $(nproc); nvidia-smi --query-gpu=name,driver_version,"
           "compute_cap,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | head -3 | sed 's/^/GPU: /'; "
           "for t in nvcc ptxas; do command -v $t >/dev/null && echo \"$t $($t --version | tail -1)\" || "
           "echo \"$t: not on PATH\"; done; " + shlex.quote(r.pybase) + " -c " + shlex.quote(SYSINFO)]
    rc, text, secs, late = r.run("sysinfo", cmd, r.env(), step.budget)
    lines = text.splitlines()[1:]
    gpu = next((ln[5:] for ln in lines if ln.startswith("GPU: ") and ln.count(",") >= 3), "")
    mods = [ln for ln in lines if re.match(r"^(python|numpy|torch|cupy|cuda-bindings|pycuda) ", ln)]
    brief = "; ".join(" ".join(ln.split()[:2]) for ln in mods)
    if gpu:
        r.summary.add("sysinfo", "INFO", secs, f"GPU {gpu.strip()}; {brief}")
    else:
        r.summary.add("sysinfo", "SKIP" if r.standin else "FAIL", secs,
                      f"no GPU (nvidia-smi: none){' [STAND-IN run]' if r.standin else ''}; {brief}"
                      + ("; (the stand-in drivers have no package metadata)" if r.standin else ""))
    r.flush()


def start_install(r: Run) -> tuple[subprocess.Popen | None, float]:
    step = plan.BY_NAME["install"]
    if r.only and "install" not in r.only and not any(plan.BY_NAME[n].phase == "B" for n in r.only):
        return None, 0.0  # no phase-B step wants it
    wheels = os.environ.get("TF_WHEELS") or (str(ROOT / ".whl") if (ROOT / ".whl").is_dir() else "")
    env = r.env(extra={"ROOT": str(ROOT), "WORK": str(r.work), "PYBASE": r.pybase, "STANDIN": r.standin,
                       "VENV": os.environ.get("TF_VENV") or str(r.work / "venv"), "WHEELS": wheels,
                       "OFFLINE": os.environ.get("TF_OFFLINE") or ("1" if wheels else "0")})
    log = (r.logs / "install.log").open("w")
    proc = subprocess.Popen(["bash", str(HERE / "install.sh")], cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    return proc, time.monotonic() + min(step.budget, r.left())


def finish_install(r: Run, proc: subprocess.Popen | None, until: float, started: float) -> tuple[str, list[str], str]:
    """Wait for the install; its summary line. Returns (phase B's python, its extra path, a tag for results)."""
    if proc is None:
        r.summary.add("install", "SKIP", 0, "not in TF_STEPS, and no phase-B step is")
        return r.pybase, [str(ROOT)], ""
    late = False
    try:
        proc.wait(timeout=max(0.0, until - time.monotonic()))
    except subprocess.TimeoutExpired:
        _kill(proc)
        late = True
    secs = time.monotonic() - started
    facts = dict(ln.split("=", 1) for ln in (r.work / "facts").read_text().splitlines() if "=" in ln) \
        if (r.work / "facts").exists() else {}
    py = (r.work / "python").read_text().strip() if (r.work / "python").exists() else r.pybase
    extra = [p for p in (r.work / "extra_path").read_text().splitlines() if p] \
        if (r.work / "extra_path").exists() else []
    bins = [p for p in (r.work / "extra_bin").read_text().splitlines() if p] \
        if (r.work / "extra_bin").exists() else []
    if bins:
        os.environ["PATH"] = os.pathsep.join([os.environ.get("PATH", "")] + bins)
    check = subprocess.run([py, "-c", "import tileforth.core, pycuda.driver, llvmlite; "
                            "print('llvmlite', llvmlite.__version__)"], capture_output=True, text=True, timeout=60,
                           env=r.env([str(ROOT), *extra]), cwd=ROOT) if Path(py).exists() or shutil.which(py) else None
    usable = check is not None and check.returncode == 0
    pycuda = facts.get("PYCUDA", "none")
    detail = " ".join(f"{k}={v}" for k, v in facts.items())
    tag = "[SHIM] " if pycuda == "shim" else ""
    if late:
        result, detail = "FAIL", f"timed out after {secs:.0f} s: {detail}"
    elif not usable:
        result = "FAIL"
        detail += "; tileforth + pycuda.driver do not import: " + ((check.stderr.strip().splitlines() or ["?"])[-1]
                                                                   if check else "no interpreter")
    else:
        result = "PASS" if pycuda in ("real", "standin") else "FAIL"
        detail += f"; {check.stdout.strip()}"
    r.summary.add("install", result, secs, detail)
    r.flush()
    return py, [str(ROOT), *extra], tag


def gpu_check(r: Run, py: str, env: dict, tag: str) -> None:
    step = plan.BY_NAME["gpu_check"]
    if r.skipped(step):
        return
    args = shlex.split(os.environ.get("TF_GPU_CHECK_ARGS", "--skip-tests"))
    rc, text, secs, late = r.run(step.name, [py, str(ROOT / "benchmarks" / "gpu_check.py"), *args], env, step.budget)
    keep = [ln.strip() for ln in text.splitlines()
            if re.search(r"tensor-core GEMM|ptxas:|tileforth:|torch.matmul|ratio|no GPU timing|Error", ln)]
    detail = "; ".join(keep)[:600] or "see phase_b.log"
    result = "FAIL" if late or rc != 0 else "PASS"
    r.results.append({"step": step.name, "status": result, "detail": detail})
    r.summary.add(step.name, result, secs, tag + (f"timed out after {secs:.0f} s; " if late else "") + detail)
    r.flush()


def gpu_test_files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py")
                  if "mark.gpu" in p.read_text(errors="replace"))


def pytest_gpu(r: Run, py: str, env: dict, tag: str) -> None:
    step = plan.BY_NAME["pytest_gpu"]
    if r.skipped(step):
        return
    extra = shlex.split(os.environ.get("TF_PYTEST_ARGS", ""))
    files = [] if any(a.startswith("tests/") for a in extra) else gpu_test_files()
    cmd = [py, "-m", "pytest", "-m", "gpu", "-v", "-p", "no:cacheprovider", "-rfE", *files, *extra]
    want = max(step.budget, r.left())  # the last step: whatever time is left
    rc, text, secs, late = r.run(step.name, cmd, env, want)
    passed = len(re.findall(r" PASSED", text))
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", text, re.M) or \
        re.findall(r"^(\S+::\S+) (?:FAILED|ERROR)", text, re.M)
    skipped = len(re.findall(r" SKIPPED", text))
    names = " ".join(sorted({f.split("::")[-1] for f in failed}))[:400]
    counts = f"{passed} passed, {len(failed)} failed, {skipped} skipped"
    if late:
        result, detail = "FAIL", f"cut at {secs:.0f} s after {counts}"
    elif passed + len(failed) == 0:
        result, detail = ("SKIP" if skipped else "FAIL"), (counts if skipped else f"no test ran (exit status {rc})")
    else:
        result, detail = ("PASS" if not failed and rc == 0 else "FAIL"), counts
    r.results.append({"step": step.name, "status": result, "detail": detail, "failed": failed})
    r.summary.add(step.name, result, secs, tag + detail + (f"; failed: {names}" if names else ""))
    r.flush()


def main() -> int:
    r = Run()
    print(f"device check: budget {r.budget} s, work {r.work}, {plan.budget_line(r.budget)}", flush=True)
    sysinfo(r)
    t_install = time.monotonic()
    proc, until = start_install(r)
    # ---- phase A, while the install runs ---------------------------------------------------------------
    t_a = time.monotonic()
    env_a = r.env(extra={"CUDA_CACHE_DISABLE": "1"})
    label = "[STAND-IN] " if r.standin else ""
    for step in plan.steps("A"):
        r.python_step(step, [r.pybase, "-m", "devcheck.phase_a", step.name], env_a, label)
    n_a = len(plan.steps("A"))
    r.summary.phase("phase A", time.monotonic() - t_a, r.summary.entries[-n_a:])
    # ---- phase B ---------------------------------------------------------------------------------------
    py, extra, tag = finish_install(r, proc, until, t_install)
    tag = tag + label
    t_b = time.monotonic()
    env_b = r.env(extra)
    first_b = len(r.summary.entries)
    for step in plan.steps("B"):
        if step.name == "gpu_check":
            gpu_check(r, py, env_b, tag)
        elif step.name == "pytest_gpu":
            pytest_gpu(r, py, env_b, tag)
        else:
            r.python_step(step, [py, "-m", "devcheck.phase_b", step.name], env_b, tag)
    r.summary.phase("phase B", time.monotonic() - t_b, r.summary.entries[first_b:])
    r.summary.add("end", "INFO", r.now(), f"elapsed {r.now():.0f} s of {r.budget} s; logs {r.logs}")
    r.flush()
    if r.out is not None:
        try:
            with tarfile.open(r.out / "logs.tar.gz", "w:gz") as t:
                t.add(r.work / "logs", arcname="logs")
        except OSError:
            pass
    print("\n================================ SUMMARY ================================", flush=True)
    print((r.work / "summary.txt").read_text(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
