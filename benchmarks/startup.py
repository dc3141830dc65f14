"""Start-up: the whole `tileforth -e "1 2 + ."` process, and the import of
tileforth.core in a fresh interpreter (issue 13's targets: ≤ 150 ms and ≤ 60 ms), and how
much of each is a floor that tileforth does not set: a bare interpreter, and importing numpy and
llvmlite, which any line needs (the arrays of the emulator's state; the JIT).

    python benchmarks/startup.py [--runs 7] [--no-bytecode]

Each figure is the median of --runs fresh processes (after one untimed run):
the command is timed from outside, with subprocess, from start to exit; the
import is timed inside the new interpreter (`from tileforth.core import Forth`,
which is what `import tileforth.core` does), so the interpreter's own start is
not in it. Python's byte code is written to a private cache (as an installed
package has its .pyc files), unless --no-bytecode: then every module is
compiled from source, as under PYTHONDONTWRITEBYTECODE=1. The cpu backend's
scheduler is loaded from its disk cache (backends/cpu/backend.py:
cache_dir(); the untimed run writes it); the line "without the scheduler's
cache" is the same command with TILEFORTH_CACHE_DIR=off. The floors (a bare
interpreter, `import numpy` alone) say how much of a figure is not
tileforth's own.
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
LAZY = ("rich", "pygments", "prompt_toolkit", "IPython", "nbclient", "nbformat")

# the console script's body (pip writes the same), so the figure does not depend on PATH
CLI = "from tileforth.repl.cli import entry; entry()"
IMPORT = ("import time; t = time.perf_counter(); from tileforth.core import Forth; "
          "print(time.perf_counter() - t)")
NUMPY = "import time; t = time.perf_counter(); import numpy; print(time.perf_counter() - t)"
# what every line needs, whoever imports it: the array library and LLVM (the JIT's shared library)
DEPS = "numpy, ml_dtypes, llvmlite.binding, llvmlite.ir"
DEPS_ONLY = f"import time; t = time.perf_counter(); import {DEPS}; print(time.perf_counter() - t)"
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


def figure(name: str, seconds: float, target_ms: float | None = None) -> str:
    ms = seconds * 1e3
    text = f"  {name:<44} {ms:8.1f} ms median"
    if target_ms is not None:
        verdict = "meets" if ms <= target_ms else "MISSES"
        text += f"   target ≤ {target_ms:g} ms   {ms / target_ms:5.2f}× target ({verdict})"
    return text


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=7, help="processes per figure (default 7)")
    p.add_argument("--no-bytecode", action="store_true", help="compile every module from source in each process")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="tileforth-startup-") as pyc:
        env = dict(os.environ)
        if args.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = pyc
        env.pop("TILEFORTH_CACHE_DIR", None)
        cmd = command() + ["-e", LINE]
        total, out = wall(cmd, env, args.runs)
        if out.strip() != "3":
            print(f"startup: `{' '.join(cmd)}` printed {out!r}, not 3", file=sys.stderr)
            return 1
        imp = inside(IMPORT, env, args.runs)
        uncached, _ = wall(cmd, dict(env, TILEFORTH_CACHE_DIR="off"), args.runs)
        bare, _ = wall([sys.executable, "-c", "pass"], env, args.runs)
        numpy = inside(NUMPY, env, args.runs)
        deps = inside(DEPS_ONLY, env, args.runs)
        own = inside(OWN, env, args.runs)
        loaded = subprocess.run([sys.executable, "-c", CHECK, "-e", LINE], env=env, capture_output=True,
                                text=True, check=True).stderr.strip().splitlines()[-1]

    print(f"start-up, {args.runs} fresh processes per figure (median), "
          f"{'no byte code (modules compiled from source)' if args.no_bytecode else 'byte code cached'}")
    print(f"  command: {cmd[0] if len(cmd) == 3 else 'python -c <the console script>'} -e {LINE!r}")
    print(figure(f"tileforth -e {LINE!r} (whole process)", total, TARGET_COMMAND_MS))
    print(figure("import tileforth.core (in a fresh interpreter)", imp, TARGET_IMPORT_MS))
    print(figure("  the command without the scheduler's cache", uncached))
    print(figure("  floor: python -c pass (whole process)", bare))
    print(figure("  floor: import numpy alone", numpy))
    print(figure(f"  floor: import {DEPS}", deps))
    print(figure("  tileforth's own modules (those already loaded)", own))
    print(f"  the floors: interpreter + dependencies = {(bare + deps) * 1e3:.0f} ms of the command's "
          f"{total * 1e3:.0f} ms; the rest, {(total - bare - deps) * 1e3:.0f} ms, is tileforth's "
          f"(importing its modules, the session, the line)")
    print(f"  loaded by the command, of {', '.join(LAZY)}: {loaded}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
