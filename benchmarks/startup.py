"""Start-up: the whole `tileforth -e "1 2 + ."` process, and the import of
tileforth.core in a fresh interpreter (issue 13's targets: ≤ 150 ms and ≤ 60 ms), and how
much of each is a floor that tileforth does not set: a bare interpreter, and importing numpy and
llvmlite, which any line needs (the arrays of the emulator's state; the JIT).

The main figure is the command as it runs by default: a plain process, with no resident server
(issue 24: the server is opt-in; its private folder here is empty, so the command finds no
socket). The second is the same command through a server that `tileforth serve` started
(TILEFORTH_SERVER=only: it fails rather than run without one); then a first run with
TILEFORTH_SERVER=1, which also starts a server for the next ones, and how long `tileforth serve`
takes until its server serves. The servers run in a private folder of this script's
(XDG_RUNTIME_DIR) and are stopped (`tileforth server stop`).

    python benchmarks/startup.py [--runs 7] [--no-bytecode]

Each figure is the median of --runs fresh processes (after one untimed run):
the command is timed from outside, with subprocess, from start to exit; the
import is timed inside the new interpreter (`from tileforth.core import Forth`,
which is what `import tileforth.core` does), so the interpreter's own start is
not in it. Python's byte code is written to a private cache (as an installed
package has its .pyc files), unless --no-bytecode: then every module is
compiled from source, as under PYTHONDONTWRITEBYTECODE=1. The cpu backend's
scheduler is loaded from its disk cache (tileforth/backends/cpu/backend.py:
cache_dir(); the untimed run writes it); the line "without the scheduler's
cache" is the same command with TILEFORTH_CACHE_DIR=off. The floors (a bare
interpreter, `import numpy` alone) say how much of a figure is not
tileforth's own; ml_dtypes (numpy's bfloat16) is not one: a session imports it
at its first bf16 dtype only, and its import is shown apart.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_COMMAND_MS = 150.0
TARGET_IMPORT_MS = 60.0
LINE = "1 2 + ."
LAZY = ("ml_dtypes", "rich", "pygments", "prompt_toolkit", "IPython", "nbclient", "nbformat")

# the console script's body (pip writes the same), so the figure does not depend on PATH
CLI = "from tileforth.repl.resident import entry; entry()"
IMPORT = ("import time; t = time.perf_counter(); from tileforth.core import Forth; "
          "print(time.perf_counter() - t)")
NUMPY = "import time; t = time.perf_counter(); import numpy; print(time.perf_counter() - t)"
# what every line needs, whoever imports it: the array library and LLVM (the JIT's shared library)
DEPS = "numpy, llvmlite.binding, llvmlite.ir"
DEPS_ONLY = f"import time; t = time.perf_counter(); import {DEPS}; print(time.perf_counter() - t)"
# what a session's first bf16 dtype costs (with numpy already loaded)
ML_DTYPES = "import numpy, time; t = time.perf_counter(); import ml_dtypes; print(time.perf_counter() - t)"
# tileforth's own modules: the import with its dependencies already loaded
OWN = f"import {DEPS}; " + IMPORT
# the command's path, with what it left out of sys.modules
CHECK = ("import sys; from tileforth.repl.cli import main; status = main(); "
         f"print(' '.join(m for m in {LAZY!r} if m in sys.modules) or '-', file=sys.stderr); sys.exit(status)")


def command() -> list[str]:
    script = Path(sys.executable).with_name("tileforth")
    return [str(script)] if script.exists() else [sys.executable, "-c", CLI]


def wall(argv: list[str], env: dict, runs: int) -> tuple[float, str]:
    """Median seconds of `runs` whole processes, after one untimed run; and the first run's stdout."""
    first = subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), first


def inside(code: str, env: dict, runs: int) -> float:
    """Median of the seconds a fresh interpreter prints for `code`, after one untimed run."""
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    return statistics.median(float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                                  text=True, check=True).stdout) for _ in range(runs))


def install_kind(env: dict) -> str:
    """Where tileforth is imported from. An editable install (`pip install -e .`, the README's) has a
    finder that loads re, typing, pathlib and more at the interpreter's start, so they do not count
    toward the import figure; in a regular install they do (about 10 ms more)."""
    code = ("import sys; editable = any('editable' in m for m in sys.modules); import tileforth.core as c; "
            "print(editable, c.__file__)")
    editable, path = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                    check=True).stdout.split()
    kind = "editable install" if editable == "True" else "regular install"
    return f"{os.path.dirname(os.path.dirname(path))} ({kind})"


def start_server(cmd: list[str], env: dict) -> float:
    """`tileforth serve` in env's private folder: the seconds until it returns (its server serves then)."""
    t0 = time.perf_counter()
    run = subprocess.run(cmd + ["serve"], env=env, capture_output=True, text=True, timeout=300)
    if run.returncode != 0 or "serves this tileforth" not in run.stdout:
        raise SystemExit(f"startup: `tileforth serve` did not start a server: {run.stdout}{run.stderr}")
    return time.perf_counter() - t0


def stop_servers(cmd: list[str], env: dict) -> None:
    run = subprocess.run(cmd + ["server", "stop"], env=env, capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        raise SystemExit(f"startup: `tileforth server stop` failed: {run.stdout}{run.stderr}")


def first_runs(cmd: list[str], env: dict, runs: int) -> float:
    """Median seconds of a first run with TILEFORTH_SERVER=1 (no server yet: it runs, then starts one),
    each in a fresh private folder; the server each starts is stopped once it serves."""
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="tfs-") as runtime:
            here = dict(env, XDG_RUNTIME_DIR=runtime)
            t0 = time.perf_counter()
            subprocess.run(cmd + ["-e", LINE], env=dict(here, TILEFORTH_SERVER="1"), capture_output=True,
                           check=True)
            times.append(time.perf_counter() - t0)
            folder = Path(runtime) / f"tileforth-{os.getuid()}"
            t1 = time.perf_counter()
            while not any(folder.glob("*.sock")) and time.perf_counter() - t1 < 120:
                time.sleep(0.01)
            stop_servers(cmd, here)
    return statistics.median(times)


def figure(name: str, seconds: float, target_ms: float | None = None) -> str:
    ms = seconds * 1e3
    text = f"  {name:<62} {ms:8.1f} ms"
    if target_ms is not None:
        verdict = "meets" if ms <= target_ms else "MISSES"
        text += f"   target ≤ {target_ms:g} ms   {ms / target_ms:5.2f}× target ({verdict})"
    return text


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=7, help="processes per figure (default 7)")
    p.add_argument("--no-bytecode", action="store_true", help="compile every module from source in each process")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="tileforth-startup-") as pyc, \
            tempfile.TemporaryDirectory(prefix="tfs-") as runtime:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TILEFORTH_SERVER")}
        if args.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = pyc
        env.pop("TILEFORTH_CACHE_DIR", None)
        env["XDG_RUNTIME_DIR"] = runtime
        base = command()
        cmd = base + ["-e", LINE]
        plain, out = wall(cmd, env, args.runs)  # the default: no TILEFORTH_SERVER, no server running
        if out.strip() != "3":
            print(f"startup: `{' '.join(cmd)}` printed {out!r}, not 3", file=sys.stderr)
            return 1
        cold = dict(env, TILEFORTH_SERVER="0")
        ready = start_server(base, env)
        try:
            served, out = wall(cmd, dict(env, TILEFORTH_SERVER="only"), args.runs)
        finally:
            stop_servers(base, env)
        if out.strip() != "3":
            print(f"startup: through the server, `{' '.join(cmd)}` printed {out!r}, not 3", file=sys.stderr)
            return 1
        first = first_runs(base, env, args.runs)
        imp = inside(IMPORT, cold, args.runs)
        uncached, _ = wall(cmd, dict(cold, TILEFORTH_CACHE_DIR="off"), args.runs)
        bare, _ = wall([sys.executable, "-c", "pass"], cold, args.runs)
        numpy = inside(NUMPY, cold, args.runs)
        deps = inside(DEPS_ONLY, cold, args.runs)
        bf16 = inside(ML_DTYPES, cold, args.runs)
        own = inside(OWN, cold, args.runs)
        loaded = subprocess.run([sys.executable, "-c", CHECK, "-e", LINE], env=cold, capture_output=True,
                                text=True, check=True).stderr.strip().splitlines()[-1]

    print(f"start-up, {args.runs} fresh processes per figure (medians), "
          f"{'no byte code (modules compiled from source)' if args.no_bytecode else 'byte code cached'}")
    print(f"  command: {cmd[0] if len(cmd) == 3 else 'python -c <the console script>'} -e {LINE!r}")
    print(f"  tileforth: {install_kind(env)}")
    print(figure(f"tileforth -e {LINE!r} (whole process)", plain, TARGET_COMMAND_MS))
    print("    without a server (the default: a plain process, nothing left running)")
    print(figure("  through a resident server (`tileforth serve`)", served, TARGET_COMMAND_MS))
    print(figure("  a first run, which also starts one (TILEFORTH_SERVER=1)", first))
    print(figure("  `tileforth serve`, until its server serves (once)", ready))
    print(figure("import tileforth.core (in a fresh interpreter)", imp, TARGET_IMPORT_MS))
    print(figure("  the command without a server or the scheduler's cache", uncached))
    print(figure("  floor: python -c pass (whole process)", bare))
    print(figure("  floor: import numpy alone", numpy))
    print(figure(f"  floor: import {DEPS}", deps))
    print(figure("  not a floor: import ml_dtypes (a session's first bf16 dtype)", bf16))
    print(figure("  tileforth's own modules (those already loaded)", own))
    print(f"  without a server, the floors: interpreter + dependencies = {(bare + deps) * 1e3:.0f} ms of the "
          f"command's {plain * 1e3:.0f} ms; the rest, {(plain - bare - deps) * 1e3:.0f} ms, is tileforth's "
          f"(importing its modules, the session, the line)")
    print(f"  loaded by the command, of {', '.join(LAZY)}: {loaded}")
    return 0


if __name__ == "__main__":
    from quiet import report  # is the machine quiet? (benchmarks/quiet.py)

    report()
    sys.exit(main())
