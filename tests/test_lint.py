"""Lint and types (issue 24, point 8): ruff and mypy, configured in pyproject.toml, run on the package.

ruff must pass (on the package, benchmarks/ and tests/). mypy must report no error that tests/mypy_baseline.txt does not hold: the errors the
tree had when mypy was brought in, each with its count, by its code and message rather than its file
and line, so that edits and moves elsewhere leave the baseline as it is; a new error fails, and the
failure lists where it is. mypy keeps its cache in .mypy_cache (git-ignored): a run after the first
checks only what changed. Where a tool is not installed the test is skipped and says so
(`pip install -e ".[test]"` installs both).

    python tests/test_lint.py --baseline     write the baseline anew from mypy's report (after fixing
                                             errors, or when a move has changed their messages)
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "tests" / "mypy_baseline.txt"
ERROR = re.compile(r"^(?P<where>[^:\n]+:\d+): error: (?P<message>.*)  \[(?P<code>[a-z-]+)\]$")


def need(tool: str) -> None:
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is not installed; `pip install -e \".[test]\"` installs it (pyproject.toml's test extra)")


def key(code: str, message: str) -> str:
    """An error as the baseline holds it: its code and message, line numbers in the message left out."""
    return f"[{code}] {re.sub(r'line [0-9]+', 'line N', message)}"


def mypy(*args: str) -> tuple[list[tuple[str, str]], str]:
    """mypy's errors, as (key, file:line), and its whole report; the package (pyproject.toml's `files`)
    unless files are named."""
    env = dict(os.environ, MYPYPATH=str(ROOT))  # this tree's tileforth, not an installed one
    run = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--no-pretty", *args], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=900)
    if run.returncode not in (0, 1):  # 2: mypy itself failed (a bad configuration, a crash)
        raise AssertionError(f"mypy failed (exit status {run.returncode}):\n{run.stdout}{run.stderr}")
    errors = []
    for line in run.stdout.splitlines():
        m = ERROR.match(line)
        if m:
            errors.append((key(m["code"], m["message"]), m["where"]))
    return errors, run.stdout


def read_baseline() -> Counter:
    counts: Counter = Counter()
    for line in BASELINE.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            n, text = line.split("\t", 1)
            counts[text] = int(n)
    return counts


def test_ruff_passes_on_the_package_benchmarks_and_tests():
    need("ruff")
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "tileforth", "benchmarks", "tests"],
                         cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy_adds_no_error_to_the_baseline():
    need("mypy")
    errors, report = mypy()
    found = Counter(k for k, _ in errors)
    base = read_baseline()
    new = {k: n - base[k] for k, n in found.items() if n > base[k]}
    where = [f"{w}: {k}" for k, w in errors if k in new]
    assert not new, (f"{sum(new.values())} new mypy error(s) (pyproject.toml's [tool.mypy]; tests/mypy_baseline.txt "
                     "holds the old ones); fix them:\n" + "\n".join(where))
    gone = sum(n - found[k] for k, n in base.items() if n > found[k])
    if gone:
        warnings.warn(f"{gone} error(s) of tests/mypy_baseline.txt are gone: `python tests/test_lint.py --baseline` "
                      "records that, so that they cannot come back unseen", stacklevel=1)


RECORDS = '''\
from tileforth.core.records import field, record


@record(frozen=True)
class Pair:
    a: int
    b: str = "x"
    c: list[int] = field(default_factory=list)


@record
class Plain:
    n: int


Pair(1)
Pair(1, "y", [2])
Pair(a=1, c=[3])
Plain(2)
Pair()  # error: a is missing
Pair(1, 2)  # error: b is a str
Plain(n="3")  # error: n is an int
Plain(1, 2)  # error: one field
Pair(1).a = 2  # error: frozen
'''


def test_mypy_sees_a_records_constructor(tmp_path):
    """tileforth/core/records.py declares @record with typing.dataclass_transform: mypy (and an editor) reads
    each record's __init__ from its fields, defaults and frozen=, as for a dataclass: the wrong calls
    below, and only they, are errors."""
    need("mypy")
    source = tmp_path / "uses_records.py"
    source.write_text(RECORDS)
    errors, report = mypy(str(source))
    # (mypy follows the imports into tileforth and may report the package's own known errors too: only this file's)
    flagged = {int(where.rsplit(":", 1)[1]) for _, where in errors
               if Path(where.rsplit(":", 1)[0]).name == source.name}
    marked = {i for i, line in enumerate(RECORDS.splitlines(), 1) if "# error" in line}
    assert flagged == marked, report


def write_baseline() -> None:
    errors, _ = mypy()
    counts = Counter(k for k, _ in errors)
    head = ("# mypy's errors on the package when mypy was brought in (tests/test_lint.py): count, tab, [code] message.\n"
            "# A new error fails the test; this file is written anew by `python tests/test_lint.py --baseline`.\n")
    BASELINE.write_text(head + "".join(f"{n}\t{k}\n" for k, n in sorted(counts.items())))
    print(f"{BASELINE}: {sum(counts.values())} errors, {len(counts)} kinds")


if __name__ == "__main__":
    if sys.argv[1:] != ["--baseline"]:
        sys.exit(__doc__)
    write_baseline()
