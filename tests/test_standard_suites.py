"""The standard-suite harness (tests/standard, issue 11): its counting, on
files whose results are known by hand, and a ratchet on gforth's coretest.fs."""

from __future__ import annotations

from pathlib import Path

import pytest

import gforth
from standard import gforth_side, runner, suites
from standard import scan

# Issue 11's target: every test of coretest.fs passes, as in gforth (639 of 639).

# Line by line: 1 passes, 2 fails (wrong result), 3 fails (unknown word: the
# line raises), 4 fails (wrong number of results), 5 is a comment, 6 holds
# two passing tests, 7 defines a word, 8 passes, 9-11 are a skipped block.
SYNTHETIC = r"""T{ 1 2 + -> 3 }T
T{ 1 2 + -> 4 }T
T{ 1 NO-SUCH-WORD -> 1 }T
T{ 1 2 -> 1 }T
\ T{ 1 -> 2 }T  ( a comment, not a test )
T{ -> }T  T{ 5 -> 5 }T
: SEVEN 7 ;
T{ SEVEN -> 7 }T
0 [IF]
T{ 1 -> 1 }T
[THEN]
"""
SYNTHETIC_TESTS = 7      # lines 1, 2, 3, 4, 6 (two) and 8
SYNTHETIC_PASSED = 4     # lines 1, 6 (two) and 8


@pytest.fixture
def synthetic(tmp_path: Path) -> suites.SuiteFile:
    path = tmp_path / "synthetic.fth"
    path.write_text(SYNTHETIC)
    return suites.SuiteFile("synthetic.fth", str(path), "integer")


def test_scan_counts_tests_outside_comments_strings_and_false_blocks() -> None:
    lines = ['T{ 1 -> 1 }T ." T{ "', "( T{ ", " T{ ) T{ -> }T", "TESTING T{",
             "FALSE [IF] T{ [ELSE] T{ -> }T [THEN]"]
    assert scan.tests_per_line(lines) == [1, 0, 1, 0, 1]
    assert scan.tests_per_line(["{ 1 -> 1 }", "T{ -> }T"], opener="{") == [1, 0]


def test_runner_counts_a_synthetic_file(synthetic: suites.SuiteFile) -> None:
    result = runner.run(synthetic, timeout=120)
    assert result.status == "ok", result.note
    assert (result.tests, result.passed) == (SYNTHETIC_TESTS, SYNTHETIC_PASSED)
    assert [issue.line for issue in result.failed_lines] == [3]
    assert result.failed_lines[0].blocker == "unknown word NO-SUCH-WORD"
    assert result.wrong_lines == [2, 4]
    assert result.crashes == []


def test_runner_reports_a_timeout(synthetic: suites.SuiteFile) -> None:
    result = runner.run(synthetic, timeout=0.2)
    assert (result.status, result.tests, result.passed) == ("timeout", SYNTHETIC_TESTS, 0)


def test_gforth_side_counts_a_synthetic_file(synthetic: suites.SuiteFile) -> None:
    gforth.require()
    result = gforth_side.run(synthetic, gforth.GFORTH, timeout=30)
    assert result.status == "ok", result.note
    assert (result.tests, result.passed) == (SYNTHETIC_TESTS, SYNTHETIC_PASSED)


def test_coretest_ratchet() -> None:
    spec = suites.coretest()
    if not spec.available:
        pytest.skip(f"gforth's coretest.fs is not installed ({spec.path}; apt-get install gforth)")
    result = runner.run(spec, timeout=300)
    assert result.status == "ok", result.note
    assert result.crashes == []
    assert result.passed == result.tests == 639, (
        f"coretest.fs: {result.passed} of {result.tests} tests pass; failing lines: "
        + "; ".join(f"{i.line}: {i.blocker}" for i in result.failed_lines[:10]))
