"""Feeding a test file to a fresh tileforth session, line by line.

`run(spec, timeout)` runs `run_in_session` in a child process (``python -m
standard.runner``), so a hang becomes a "timeout" result and nothing the
file does can stop the caller.  In the session every line is one
``f.eval(line)``: a ForthError marks the line failed (tileforth then undoes
the line, so its tests do not pass) and the run goes on; any other exception
is recorded as a crash and the run goes on too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import subprocess
import sys
import shutil
import tempfile
import time
from pathlib import Path

from .results import FileResult, LineIssue
from .scan import tests_per_line
from .suites import HERE, SuiteFile

TESTER = HERE / "tester.fth"
FLOAT_TESTER = HERE / "tester-float.fth"
BRACES = ": { T{ ;  : } }T ;"     # coretest.fs's { ... -> ... }
FAIL_MARK = "<<TEST FAILED>>"
_RESULT_MARK = "<<STANDARD-RESULT>>"


def read_lines(path: str | Path) -> list[str]:
    return Path(path).read_text(encoding="latin-1").splitlines()


def blocker(exc: BaseException) -> str:
    """A short key for what stopped a line: 'unknown word X', or the failing
    word and the first clause of the message."""
    message = str(getattr(exc, "message", exc)).split("\n")[0]
    word = getattr(exc, "word", None)
    if message.startswith("unknown word"):
        return message.split(":")[0]
    head = re.sub(r"\$[0-9a-fA-F]+", "$addr", message.split(": ")[0])[:70]
    return f"{word}: {head}" if word else head


def _eval(f, line: str, row: int, result: FileResult) -> str:
    """Run one line; record a failure or a crash in `result`."""
    from tileforth.core import ForthError

    try:
        return f.eval(line)
    except ForthError as exc:
        result.failed_lines.append(LineIssue(row, line, str(exc), blocker(exc)))
    except Exception as exc:  # noqa: BLE001 - a crash must not stop the run
        result.crashes.append(LineIssue(row, line, f"{type(exc).__name__}: {exc}",
                                        f"crash: {type(exc).__name__}"))
    return ""


def load(f, paths: list[str]) -> FileResult:
    """Run whole files uncounted (the tester, a file's setup); the issues of
    their lines are in the returned result."""
    scratch = FileResult("setup", 0)
    for path in paths:
        feed(f, read_lines(path), scratch)
    return scratch


def feed(f, lines: list[str], result: FileResult) -> None:
    """Each line to f.eval, as a file is read; REFILL takes the next line
    (f.more_input), which then is not fed again."""
    rows = iter(enumerate(lines, 1))
    f.more_input = lambda: next((line for _, line in rows), None)
    try:
        for row, line in rows:
            if FAIL_MARK in _eval(f, line, row, result):
                result.wrong_lines.append(row)
    finally:
        f.more_input = None


def read_counter(f, name: str) -> int | None:
    """The value of one of the tester's VARIABLEs, or None if unreadable."""
    if f.compiling:
        _eval(f, ";", 0, FileResult("recover", 0))
    try:
        f.eval(f"{name} @")
        value = f.data_stack()[-1]
        f.eval("DROP")
        return int(value)
    except Exception:  # noqa: BLE001 - an unreadable counter is reported
        return None


def new_session():
    """A fresh cpu session launched as one thread, as the standard assumes."""
    from tileforth.core import Forth

    f = Forth(backend="cpu")
    f.eval("1 1 1 GRID 1 1 1 THREADS")
    return f


def run_in_session(spec: SuiteFile) -> FileResult:
    """Run `spec` in this process: tester, setup, then the file, counted, in a
    temporary directory of its own (filetest.fth writes files, blocktest.fth
    the block file blocks.fb)."""
    spec = dataclasses.replace(spec, path=str(Path(spec.path).resolve()),
                               setup=[str(Path(p).resolve()) for p in spec.setup])
    with tempfile.TemporaryDirectory(prefix="tf-standard-") as scratch, contextlib.chdir(scratch):
        for name in spec.files:
            shutil.copy(name, scratch)
        return _run_in_session(spec)


def _run_in_session(spec: SuiteFile) -> FileResult:
    start = time.monotonic()
    lines = read_lines(spec.path)
    result = FileResult(spec.name, sum(tests_per_line(lines, spec.opener)))
    f = new_session()
    testers = [str(TESTER), *([str(FLOAT_TESTER)] if spec.floats else [])]
    loaded = load(f, testers)
    if spec.opener == "{":
        _eval(f, BRACES, 0, loaded)
    if loaded.failed_lines or loaded.crashes:
        first = (loaded.failed_lines + loaded.crashes)[0]
        result.status, result.note = "no tester", f"tester line {first.line}: {first.blocker}"
        result.seconds = time.monotonic() - start
        return result
    load(f, spec.setup)
    before = read_counter(f, "TESTER-PASSED") or 0
    feed(f, lines, result)
    after = read_counter(f, "TESTER-PASSED")
    if after is None:
        result.status, result.note = "error", "TESTER-PASSED unreadable after the file"
    else:
        result.passed = after - before
    result.seconds = time.monotonic() - start
    return result


def run(spec: SuiteFile, timeout: float) -> FileResult:
    """Run `spec` in a child process with a time limit."""
    tests = sum(tests_per_line(read_lines(spec.path), spec.opener)) if spec.available else 0
    if not spec.available:
        return FileResult(spec.name, tests, status="unavailable", note=f"{spec.path} is missing")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(HERE.parent), os.environ.get("PYTHONPATH", "")]))
    if spec.floats:  # the floating-point suites assume f64 (IEEE double): the child's float stack is f64
        env["TILEFORTH_FLOAT"] = "f64"
    start = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="tf-standard-") as scratch:
            proc = subprocess.run([sys.executable, "-m", "standard.runner"],
                                  input=json.dumps(spec.to_json()), capture_output=True,
                                  text=True, timeout=timeout, env=env, cwd=scratch)
    except subprocess.TimeoutExpired:
        return FileResult(spec.name, tests, status="timeout",
                          note=f"over {timeout:.0f} s", seconds=time.monotonic() - start)
    if _RESULT_MARK not in proc.stdout:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return FileResult(spec.name, tests, status="error",
                          note=f"runner exited {proc.returncode}: {tail}",
                          seconds=time.monotonic() - start)
    return FileResult.from_json(json.loads(proc.stdout.split(_RESULT_MARK, 1)[1]))


def main() -> None:
    """The child process: a SuiteFile as JSON on stdin, the result on stdout."""
    spec = SuiteFile(**json.load(sys.stdin))
    result = run_in_session(spec)
    print(_RESULT_MARK + json.dumps(result.to_json()))


if __name__ == "__main__":
    main()
