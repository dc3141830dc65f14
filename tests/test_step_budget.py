"""The step budget that stops a runaway line can be read and set from Forth
(GET-STEP-BUDGET, SET-STEP-BUDGET) and from the command line (--steps), and
every budget error names both (issue 14, item 5)."""
import os
import subprocess
import sys

import pytest

from tileforth.core import Forth, ForthError
from tileforth.core.session.device import DEFAULT_STEPS

CLI = [sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu"]
NAMES = ("SET-STEP-BUDGET", "--steps")


def _cli(*args, timeout=120):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=timeout, env=env)


def _fails(f, line):
    with pytest.raises(ForthError) as err:
        f.eval(line)
    return err.value.message


def test_the_budget_is_read_and_set_by_words():
    f = Forth()
    assert f.eval("GET-STEP-BUDGET .").split() == [str(DEFAULT_STEPS)]
    f.eval("5000 SET-STEP-BUDGET")
    assert f.step_budget == 5000 and f.eval("GET-STEP-BUDGET .").split() == ["5000"]
    msg = _fails(f, ": g 2000 0 DO LOOP ; g")  # 32 threads of 2000 iterations: more than 5000 in all
    assert "ran 5000 loop iterations" in msg and all(n in msg for n in NAMES), msg
    f.eval("100000 SET-STEP-BUDGET")
    assert f.eval(": g 2000 0 DO LOOP ; g 7 .").split() == ["7"]


def test_zero_means_no_budget():
    f = Forth()
    f.eval("0 SET-STEP-BUDGET")
    assert f.eval("GET-STEP-BUDGET .").split() == ["0"]
    assert f.eval("1 1 1 THREADS 100000000 0 DO LOOP 1 .").split() == ["1"]  # more than the default's 2^26
    _fails(f, "-1 SET-STEP-BUDGET")
    assert f.eval("GET-STEP-BUDGET .").split() == ["0"]


def test_every_budget_message_names_the_word_and_the_option():
    f = Forth()
    f.eval("1000 SET-STEP-BUDGET")
    one = _fails(f, "1 1 1 THREADS : spin BEGIN AGAIN ; spin")  # one thread: its own budget
    f.eval("32 1 1 THREADS")
    launch = _fails(f, ": spin2 0 BEGIN 1 SHFL-XOR AGAIN ; spin2")  # the launch's pool
    host = _fails(f, ": forever BEGIN 0 , AGAIN ; forever")  # a host-level loop
    thru = _fails(f, "1 5000 THRU")
    for msg in (one, launch, host, thru):
        assert all(n in msg for n in NAMES), msg
    assert "warp operation" in launch, launch


def test_the_steps_option_sets_the_budget():
    res = _cli("--steps", "5000", "-e", ": g 2000 0 DO LOOP ; g")
    assert res.returncode == 1 and "ran 5000 loop iterations" in res.stderr + res.stdout
    assert all(n in res.stderr + res.stdout for n in NAMES), res.stderr
    res = _cli("--steps", "0", "-e", "GET-STEP-BUDGET .")
    assert res.returncode == 0 and res.stdout.split() == ["0"], res.stderr
    res = _cli("--steps", "-3", "-e", "1 .")
    assert res.returncode == 2 and "--steps" in res.stderr


def test_unchecked_keeps_the_budget_and_steps_0_removes_it():
    """docs/repl.md: --unchecked drops the memory checks only; `--steps 0` the budget."""
    res = _cli("--unchecked", "-e", "100000000 0 DO LOOP .\" done\"")
    out = res.stdout + res.stderr
    assert res.returncode == 1 and "looks infinite" in out and all(n in out for n in NAMES), out
    res = _cli("--unchecked", "--steps", "0", "-e", "100000000 0 DO LOOP .\" done\"")
    assert res.returncode == 0 and res.stdout.split() == ["done"], res.stderr
