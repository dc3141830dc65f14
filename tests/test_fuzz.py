"""The fuzz test of issue 10 (tests/fuzz.py has the generator and the runner).

By default a bounded, deterministic run: FUZZ_PROGRAMS programs from a fixed
seed on two worker processes (about 20-30 s). A long run:

    TILEFORTH_FUZZ_SECONDS=600 python -m pytest -q tests/test_fuzz.py -s

(TILEFORTH_FUZZ_SEED picks another seed.) Either prints: programs tried,
crashes, hangs, corruptions, segfaults; any failure fails the test with its
programs.
"""
from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz  # noqa: E402

FUZZ_SEED = 20240610
FUZZ_PROGRAMS = 250


def test_fuzz():
    seconds = float(os.environ.get("TILEFORTH_FUZZ_SECONDS", "0") or 0)
    seed = int(os.environ.get("TILEFORTH_FUZZ_SEED", FUZZ_SEED))
    if seconds:
        report = fuzz.run_fuzz(seed=seed, seconds=seconds)
    else:
        report = fuzz.run_fuzz(seed=seed, programs=FUZZ_PROGRAMS)
    print("\n" + report.summary())
    assert report.tried >= (50 if seconds else FUZZ_PROGRAMS)
    assert report.failed == 0, report.summary() + "\n" + report.details(20)


def test_the_fuzzer_reports_each_kind_of_failure():
    """The runner tells a crash, a signal and a hang apart, and restarts its worker after each."""
    import signal
    w = fuzz.Worker()
    try:
        # an exception other than ForthError: a kernel-file program without a launch shape (TypeError)
        res = w.run({"kind": "kernel", "text": "\\! kernel k\n", "params": [], "grid": None, "block": None}, 60)
        assert res["status"] == "crash" and "TypeError" in res["detail"]
        assert w.run({"kind": "forth", "lines": ["1 2 +", "1 0 /"]}, 60)["status"] == "ok"
        proc = w.proc  # the worker dies while it runs a program, as a segfault would kill it
        proc.send_signal(signal.SIGSTOP)
        timer = threading.Timer(0.5, lambda: (proc.send_signal(signal.SIGSEGV), proc.send_signal(signal.SIGCONT)))
        timer.start()
        res = w.run({"kind": "forth", "lines": ["1"]}, 60)
        timer.join()
        assert res["status"] == "signal" and "status -11" in res["detail"]
        w.start()
        w.proc.send_signal(signal.SIGSTOP)  # a worker that never answers: a hang, then killed
        assert w.run({"kind": "forth", "lines": ["1"]}, 2)["status"] == "hang"
        assert w.run({"kind": "forth", "lines": ["1 ."]}, 60)["status"] == "ok"  # restarted
    finally:
        w.close()
    assert fuzz.run_cli(["--backend", "cpu", "-e", "1 2 + ."], {}, 60)["status"] == "ok"


def test_state_comparison_sees_every_part():
    from tileforth.core import Forth
    f = Forth(backend="cpu")
    base = fuzz.session_state(f)
    for line in ["1", "1e", "TZERO", "VARIABLE v", "HEX", "64 1 1 THREADS", "BF16 TILE-IN", "8 ALLOT", "IMMEDIATE",
                 ": q ;"]:
        g = Forth(backend="cpu")
        g.eval(line)
        assert fuzz.session_state(g) != base, line
        g.close()
    f.eval("VARIABLE m")  # memory, where asked for: a cell the program's own
    start = f.here - 8
    before = fuzz.session_state(f, (start, f.here))
    f.eval("5 m !")
    assert fuzz.session_state(f, (start, f.here)) != before
    assert not fuzz.stores_nothing(f, "5 m !", set())
    f.close()



def test_state_of_a_large_launch_is_a_sample_with_both_ends():
    """Past fuzz.SAMPLED lanes the state compares a sample (every lane of a 10^7-thread launch read
    into Python lists took the fuzzer past its time limit, reported as a hang): the first and the
    last lanes are in it, so a change in the last thread's stack is still seen."""
    from tileforth.core import Forth
    f = Forth(backend="cpu")
    try:
        f.eval("64 1 1 GRID 1024 1 1 THREADS")
        n = 64 * 1024
        assert n > fuzz.SAMPLED
        before = fuzz.session_state(f)
        assert len(before["data"]) < n
        f.eval(f"GLOBAL-ID {n - 1} = IF 7 THEN")
        after = fuzz.session_state(f)
        assert after["data"][-1] == [7] and before["data"][-1] == []
        assert after["data"][0] == [] and before != after
    finally:
        f.close()
    assert list(fuzz._sample(10)) == list(range(10))
    big = fuzz._sample(10 ** 7)
    assert big[:1024] == list(range(1024)) and big[-1] == 10 ** 7 - 1 and len(big) < 6000


def test_the_time_limits_follow_the_machines_speed_within_bounds():
    """A hang is judged against limits scaled by the calibration's time when the run starts (a loaded
    machine runs everything slower, and its slow programs are not hangs), never below the limits given
    and never more than MAX_SCALE times them (a program that never ends is still found)."""
    ref = fuzz.REFERENCE_S
    assert fuzz.scale_of(ref / 2) == fuzz.scale_of(ref) == 1.0
    assert fuzz.scale_of(3 * ref) == 3.0
    assert fuzz.scale_of(1000 * ref) == fuzz.MAX_SCALE


def test_a_program_that_never_ends_is_still_a_hang_at_the_scaled_limit():
    """The baseline measured on this machine now (whatever its load) scales a small limit; a loop that
    never ends (no step budget, no Ctrl-C) is reported as a hang at it, and the worker runs on after."""
    w = fuzz.Worker()
    try:
        baseline = fuzz.measure_baseline(w)
        assert baseline > 0
        limit = 1.0 * fuzz.scale_of(baseline)
        res = w.run({"kind": "forth", "lines": ["1 2 + DROP", "0 SET-STEP-BUDGET BEGIN AGAIN"]}, limit)
        assert res["status"] == "hang", res
        assert w.run(fuzz.CALIBRATION, 600)["status"] == "ok"  # restarted
    finally:
        w.close()


def test_a_run_reports_each_workers_baseline_and_limit():
    report = fuzz.run_fuzz(seed=7, programs=3, workers=1, timeout=5.0, cli_every=0)
    assert report.tried == 3 and len(report.baselines) == 1 and report.baselines[0] > 0
    assert report.limits == [5.0 * fuzz.scale_of(report.baselines[0])] and report.limits[0] >= 5.0
    assert "baseline" in report.summary()


def test_an_unchecked_death_is_wild_only_where_the_checked_run_reports_a_wild_address():
    """An unchecked program that dies of a signal runs again checked (fuzz.recheck): a program whose
    checked run reports a bad address touched a wild one (documented unsafe, counted apart as "wild");
    one whose checked run finds no wild address is a signal failure like any other, and counts."""
    wild = {"kind": "forth", "cls": "t", "lines": ["1 2 +", "1152921504606846976 @ ."], "checked": False,
            "interrupt": {"how": "sigint", "delays": [5.0, 5.0]}}
    valid = {"kind": "forth", "cls": "t", "lines": ["1 2 +", "v @ ."], "setup": "VARIABLE v", "checked": False}
    w = fuzz.Worker()
    try:
        res = w.run(wild, 60)
        assert res["status"] == "signal", res  # the unchecked session really dies at the address
        assert fuzz.died_at(res["detail"]) == 1  # the line it died in, from the worker's stderr
        again = fuzz.recheck(w, wild, 60, 10, 1)
        assert again["status"] == "wild" and "bad address $1000000000000000" in again["detail"], again
        # a death in line 0 is not explained by a bad address in line 1, which had not run yet
        assert fuzz.recheck(w, wild, 60, 10, 0)["status"] == "signal"
        again = fuzz.recheck(w, valid, 60, 10, 1)  # (as if it had died): its checked run has no bad address
        assert again["status"] == "signal" and "['ok ']" in again["detail"], again
    finally:
        w.close()
    assert fuzz.is_wild([(0, -9, "bad address $8")]) and fuzz.is_wild([(2, -23, "misaligned address $3")])
    assert fuzz.is_wild([(0, -1, "TLOAD-A: the tile at $8 (16x16 f16, stride 16) reaches outside every allocation")])
    assert not fuzz.is_wild([(0, -4, "data stack underflow"), (1, -10, "division by zero")])
    assert not fuzz.is_wild([]) and not fuzz.is_wild([(3, -9, "bad address $8")], 2)
    report = fuzz.Report()
    report.unchecked["wild"] = 3
    assert report.failed == 0 and "3 wild accesses" in report.summary()
    report.unchecked["signal"] = 1
    assert report.failed == 1


def test_an_interrupted_unchecked_death_is_rechecked_with_its_interrupt_and_without():
    """Seed 402 of the long run: `ELECT` (lanes differ) / ... / `DEFER cb 3 8 STACK-SIZE #10 2 TYPE`
    under SIGINT. The interrupt undid the ELECT line, so STACK-SIZE succeeded and `#10 2 TYPE` read
    address 10; run checked without the interrupt, STACK-SIZE fails first and no address is touched.
    So an interrupted program is rechecked with its interrupt too (here a stand-in worker answers what
    each checked run reported)."""
    class Stub:
        def __init__(self, answers):
            self.answers, self.asked = answers, []

        def run(self, prog, limit):
            self.asked.append(prog)
            return self.answers[len(self.asked) - 1]

    stack = [1, -1, "STACK-SIZE keeps the stacks only when every thread has the same stacks"]
    wild = [2, -9, "bad address $a in TYPE (thread 0, 1 bytes): it is outside every allocation"]
    prog = {"kind": "forth", "lines": ["ELECT", "x", "DEFER cb 3 8 STACK-SIZE #10 2 TYPE"], "checked": False,
            "interrupt": {"how": "sigint", "delays": [0.008, 0.008, 0.19]}}
    for answers, status in [([{"status": "ok", "errors": [wild]}], "wild"),  # interrupted, as the unchecked run
                            ([{"status": "ok", "errors": [stack]}, {"status": "ok", "errors": [wild]}], "wild"),
                            ([{"status": "ok", "errors": [stack]}, {"status": "ok", "errors": [stack]}], "signal")]:
        w = Stub(answers)
        assert fuzz.recheck(w, prog, 60, 10, 2)["status"] == status
        assert all(p["checked"] for p in w.asked) and w.asked[0]["interrupt"] == prog["interrupt"]
        assert len(w.asked) == len(answers) and all("interrupt" not in p for p in w.asked[1:])
    w = Stub([{"status": "ok", "errors": [wild]}])  # a death in line 1 is not explained by line 2's address
    w.answers.append({"status": "ok", "errors": [wild]})
    assert fuzz.recheck(w, prog, 60, 10, 1)["status"] == "signal"
    waits = dict(prog, lines=["100000 MS", "1 0 !"])  # a program that waits is only run with its interrupt
    w = Stub([{"status": "ok", "errors": []}])
    assert fuzz.recheck(w, waits, 60, 10, 1)["status"] == "signal" and len(w.asked) == 1
