"""tileforth against the standard Forth test suites (issue 11).

Runs gforth's coretest.fs and the Forth-2012 suite (tests/standard/forth2012,
vendored where the files allow it) through tileforth line by line, each file
in a fresh cpu session in a child process with a time limit, and through
gforth with gforth's own tester; prints a table per group (tests, tileforth
passed, gforth passed, tileforth's failing lines and crashes) and the most
common reasons lines fail.

It then runs the real testers as a user's program would: gforth's coretest.fs
and dbltest.fs, each loading gforth's own tester.fs and ttester.fs, and the
Forth Foundation Library's md5 test (tests/programs/), as files through the
`tileforth` command at one thread, and compares each output with gforth's;
targets: coretest.fs + dbltest.fs ≤ 10 s together, FFL md5 ≤ 3 s (issue 25).

    python benchmarks/standard.py            # every file
    python benchmarks/standard.py --quick    # coretest.fs only (and the real testers)
    python benchmarks/standard.py --real     # the real testers only
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from standard import gforth_side, runner, suites  # noqa: E402
from standard.results import FileResult  # noqa: E402
from standard.scan import defined_names  # noqa: E402

GROUPS = {"core": "gforth's coretest.fs", "integer": "Forth-2012 integer suites",
          "float": "Forth-2012 floating-point suites"}
_ROW = "{:<24} {:>6} {:>10} {:>8} {:>8} {:>8}  {}"


def _cell(result: FileResult | None) -> str:
    """A passed count, or what stopped the run."""
    if result is None:
        return "-"
    return str(result.passed) if result.status == "ok" else result.status


def _row(spec: suites.SuiteFile, tf: FileResult, gf: FileResult | None) -> str:
    tests = tf.tests if tf.status != "unavailable" else "-"
    notes = [n for n in (tf.note, gf.note if gf else "") if n]
    if any(r is not None and r.passed > r.tests for r in (tf, gf)):
        notes.append("a T{ inside a definition run in a loop: passes count its runs")
    notes = "; ".join(dict.fromkeys(notes))
    failing = len(tf.failed_lines) if tf.status == "ok" else "-"
    crashes = len(tf.crashes) if tf.status == "ok" else "-"
    return _ROW.format(spec.name, tests, _cell(tf), _cell(gf), failing, crashes, notes)


def _total(results: list[tuple[FileResult, FileResult | None]]) -> str:
    ok = [(tf, gf) for tf, gf in results if tf.status != "unavailable"]
    tests = sum(tf.tests for tf, _ in ok)
    # a T{ run in a loop counts each run: a file counts at most its tests, so the totals compare
    tf_passed = sum(min(tf.passed, tf.tests) for tf, _ in ok if tf.status == "ok")
    gf_passed = sum(min(gf.passed, gf.tests) for _, gf in ok if gf and gf.status == "ok") if all(
        gf for _, gf in ok) else "-"
    failing = sum(len(tf.failed_lines) for tf, _ in ok)
    crashes = sum(len(tf.crashes) for tf, _ in ok)
    return _ROW.format("total", tests, tf_passed, gf_passed, failing, crashes, "")


def _blockers(spec: suites.SuiteFile, result: FileResult) -> list[str]:
    """The reasons this file's lines failed; an unknown word the file itself
    defines is counted as the consequence of an earlier failure."""
    own = defined_names(runner.read_lines(spec.path)) if spec.available else set()
    keys = []
    for issue in result.failed_lines + result.crashes:
        word = issue.blocker.removeprefix("unknown word ")
        keys.append("(a word defined on an earlier failing line)"
                    if issue.blocker.startswith("unknown word") and word.upper() in own
                    else issue.blocker)
    if result.status not in ("ok", "unavailable"):
        keys.append(f"{result.status}: {result.note}")
    return keys


def run_group(specs: list[suites.SuiteFile], timeout: float, gforth: str | None,
              reasons: collections.Counter[str]) -> None:
    """Run and print one group's table; add its failure reasons to `reasons`."""
    print(_ROW.format("file", "tests", "tileforth", "gforth", "failing", "crashes", "notes"))
    results = []
    for spec in specs:
        tf = runner.run(spec, timeout)
        gf = gforth_side.run(spec, gforth, timeout) if gforth else None
        results.append((tf, gf))
        reasons.update(_blockers(spec, tf))
        print(_row(spec, tf, gf), flush=True)
    if len(specs) > 1:
        print(_total(results))


PROGRAMS = Path(__file__).resolve().parent.parent / "tests" / "programs"
REAL_TESTERS = (("ttester.fs: coretest.fs + dbltest.fs", ("gforth_test_coretest.fth", "gforth_test_dbltest.fth"), 10.0),
                ("FFL md5 (tst.fs)", ("ffl_md5.fth",), 3.0))


def _run_program(cmd: list[str], name: str, timeout: float, env: dict | None = None) -> tuple[str, float]:
    t0 = time.perf_counter()
    tail = ["-e", "bye"] if "gforth" in os.path.basename(cmd[0]) else []
    proc = subprocess.run(cmd + [name] + tail, capture_output=True, text=True, timeout=timeout, cwd=PROGRAMS,
                          stdin=subprocess.DEVNULL, env=env)
    return proc.stdout, time.perf_counter() - t0


def run_real_testers(gforth: str | None, timeout: float) -> None:
    """The real testers, as programs run at one thread (tests/test_programs.py runs them the same way)."""
    print("\nreal testers, run as files at one thread (`tileforth --stacks none one-thread.fth FILE`)")
    with tempfile.TemporaryDirectory() as tmp:
        shape = Path(tmp) / "one-thread.fth"
        shape.write_text("1 1 1 GRID 1 1 1 THREADS\n")
        env = dict(os.environ, TILEFORTH_SERVER="0")
        tf_cmd = [sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu", "--stacks", "none", str(shape)]
        for title, names, target in REAL_TESTERS:
            spent, gspent, same = 0.0, 0.0, True
            for name in names:
                try:
                    out, dt = _run_program(tf_cmd, name, timeout, env)
                except subprocess.TimeoutExpired:
                    out, dt = None, timeout
                spent += dt
                if gforth:  # as tests/test_programs.py runs it: ffl/ is found next to the program
                    gout, gdt = _run_program([gforth, "-e", 's" ~+" fpath also-path'], name, timeout)
                    gspent += gdt
                    same = same and out == gout
            verdict = ("output as gforth's" if same else "OUTPUT DIFFERS from gforth's") if gforth else "(no gforth)"
            print(f"  {title:<40} tileforth {spent:6.2f} s, gforth {gspent:5.2f} s; {verdict}; "
                  f"{spent / target:5.2f}× target ≤ {target:g} s ({'meets' if spent <= target else 'MISSES'})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="coretest.fs only")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per file and system")
    ap.add_argument("--top", type=int, default=20, help="failure reasons to list")
    ap.add_argument("--real", action="store_true", help="the real testers only (the timed rows of issue 25)")
    args = ap.parse_args()
    gforth = shutil.which("gforth")
    if args.real:
        run_real_testers(gforth, args.timeout)
        return
    groups = {"core": [suites.coretest()]}
    if not args.quick:
        for spec in suites.forth2012():
            groups.setdefault(spec.group, []).append(spec)
    reasons: collections.Counter[str] = collections.Counter()
    for group, specs in groups.items():
        print(f"\n{GROUPS[group]}" + ("" if gforth else " (gforth is not installed)"))
        run_group(specs, args.timeout, gforth, reasons)
    print(f"\nwhy tileforth's lines fail (the {args.top} most common first errors):")
    for reason, n in reasons.most_common(args.top):
        print(f"  {n:>5}  {reason}")
    run_real_testers(gforth, args.timeout)


if __name__ == "__main__":
    main()
