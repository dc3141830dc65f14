"""The GPU test programs, in one place for both of their runs:

* tests/test_gpu.py runs each on the cuda backend and compares it with the cpu
  emulator (marked `gpu`, skipped without a GPU);
* tests/test_gpu_programs_cpu.py runs each on the cpu backend in CI and checks
  it against an independent reference (Python arithmetic, numpy, gforth), so a
  GPU test can only fail for a GPU reason.

Every program here must be correct Forth for tileforth on the cpu backend:
host words (GRID, THREADS, ARRAY, SHARED:) see uniform stacks, memory is only
touched inside its allocation, and the threads of a block that read what
others wrote wait at a BARRIER first.

The helpers below run a program the same way on either backend; a test
compares what they return.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

DEMOS_DIR = Path(__file__).resolve().parents[1] / "demos"

# One session, one eval (a program may span several lines). What is compared:
# the text printed, and every thread's data and float stacks afterwards.
PROGRAMS: dict[str, str] = {
    "arithmetic": "1 2 + 3 * 7 /MOD -7 2 / -7 2 MOD 1 63 LSHIFT 2/ 5 0 DO I LOOP",
    "definitions": ": fact DUP 1 > IF DUP 1- RECURSE * THEN ; 10 fact : sq DUP * ; 12 sq",
    # the launch shape is set while the stacks are still uniform (empty); then each
    # thread pushes where it is: thread, lane, warp, block, index in the grid
    "lanes": "2 1 1 GRID 64 1 1 THREADS TID-X LANE-ID WARP-ID BID-X GLOBAL-ID",
    "lanes_2d": "2 1 1 GRID 16 4 1 THREADS TID-X TID-Y LANE-ID WARP-ID BID-X GLOBAL-ID",
    "floats": "1.5e 2e F+ 3e F* FDUP FSQRT 0.5e FEXP 1e FLN 0.5e FSIN 0.5e FCOS -2.5e FLOOR 2.5e FROUND "
              "7 S>F F>S",
    # global memory through an ARRAY: each of the 32 threads writes its own cell, waits,
    # reads the mirrored one
    "memory": "32 I64 ARRAY xs TID-X DUP * TID-X CELLS xs + ! BARRIER 31 TID-X - CELLS xs + @",
    "output": '." hello " 42 . TID-X 2 MOD IF ." odd" ELSE ." even" THEN CR',
    # shared memory in a checked line (the default session is checked)
    "shared": "256 1 1 THREADS 2048 SHARED: buf TID-X DUP CELLS buf + ! BARRIER 255 TID-X - CELLS buf + @",
    "shared_cell": "256 1 1 THREADS 2048 SHARED: buf TID-X 0= IF 42 buf ! THEN BARRIER buf @ TID-X",
    # a word too big to be inlined (a loop) that names a SHARED: buffer, called from a line
    "shared_word": "64 1 1 THREADS 2048 SHARED: buf "
                   ": w ( i -- n ) CELLS buf + DUP TID-X SWAP ! @ 10 0 DO 1+ LOOP ; TID-X w",
    # recursion to a moderate depth, a different depth in each thread (200..231 calls)
    # warp words (issue 12): shuffles and votes on two warps, against each lane's CUDA semantics
    "warp": "64 1 1 THREADS TID-X DUP 1 SHFL-XOR TID-X 3 SHFL-DOWN TID-X 1 AND 0= BALLOT TID-X 5 < ANY",
    # atomics on global memory: only what every order of the threads gives alike is kept
    "atomics": "64 1 1 THREADS 1 I64 ARRAY cnt 2 F32 ARRAY fs  1 cnt ATOMIC+ DROP BARRIER cnt @ BARRIER "
               "TID-X 100 * cnt ATOMIC-MAX DROP BARRIER cnt @  TID-X S>F fs FATOMIC+ FDROP BARRIER fs SF@",
    "recursion": ": acc ( s n -- s' ) DUP IF TUCK + SWAP 1- RECURSE ELSE DROP THEN ; 0 TID-X 200 + acc",
    # the largest block: 1024 threads through shared memory and a BARRIER
    "block1024": "1024 1 1 THREADS 8192 SHARED: s TID-X DUP CELLS s + ! BARRIER 1023 TID-X - CELLS s + @ "
                 "WARP-ID LANE-ID",
}

# Words that a program defines and that must NOT be inlined (what the program tests).
NOT_INLINED: dict[str, list[str]] = {"shared_word": ["W"], "recursion": ["ACC"]}


@dataclass(frozen=True)
class Script:
    """Several sessions used alternately: `steps` are (session index, line); after
    the last step the stacks of every session and the named arrays are compared."""

    steps: tuple[tuple[int, str], ...]
    sessions: int = 2
    arrays: tuple[tuple[int, str], ...] = field(default_factory=tuple)


SCRIPTS: dict[str, Script] = {
    "two_sessions": Script(
        steps=(
            (0, "4 I64 ARRAY a1  7 a1 !"),
            (1, "2 1 1 GRID 64 1 1 THREADS 4 I64 ARRAY a2  GLOBAL-ID 0= IF 11 a2 ! THEN"),
            (0, "a1 @ ."),
            (1, "a2 @ 1+ ."),
            (0, ": sq DUP * ; a1 @ sq ."),
            (1, "3 a2 CELL+ ! a2 CELL+ @ a2 @ + . GLOBAL-ID"),
            (0, "TID-X a1 @ +"),
        ),
        arrays=((0, "a1"), (1, "a2")),
    ),
}

# Lines that must fail with a ForthError whose message matches `match`, after
# which the session is still usable and its stacks are as before the line.
@dataclass(frozen=True)
class ErrorCase:
    setup: str
    line: str
    match: str  # a regular expression, searched case-insensitively


ERRORS: dict[str, ErrorCase] = {
    "recursion_limit": ErrorCase("", ": down DUP IF 1- RECURSE THEN ;  100000 down", r"recursion"),
    "bad_address": ErrorCase("", "0 @", r"bad address"),
    "past_the_end": ErrorCase("16 I64 ARRAY xs", "16 CELLS xs + @", r"bad address"),
    "shared_window": ErrorCase("256 1 1 THREADS 2048 SHARED: buf", "2048 buf + @", r"bad address"),
}

# A line that never ends: BEGIN AGAIN stopped by backend.abort() from another thread
# (Ctrl-C through the API), and by the step budget.
ABORT_LINE = "BEGIN AGAIN"
ABORT_AFTER_S = 0.5  # the timer fires this long after the line starts
ABORT_WITHIN_S = 0.1  # ... and the line must have ended this long after that (issue 8: Ctrl-C within 100 ms)
RUNAWAY_BUDGET = 1 << 20

# A wild load in an UNCHECKED cuda session kills the CUDA context: the line must be a
# ForthError that says so, and the next line must work. The cpu control runs the same
# load in a checked session (an unchecked wild load would crash the host process).
# Not `0 @`: LLVM treats a load from the null pointer as undefined and removes it, so on
# the H200 `0 @` in an unchecked session faulted nothing (device check, 2026-11-30).
STICKY_LINE = "-8 @"
STICKY_CUDA_MATCH = r"context.*lost|lost.*context"
STICKY_CPU_MATCH = r"bad address"
AFTER_LINE, AFTER_OUTPUT = "2 3 + .", "5 "

# Demos run on both backends; the named arrays are compared.
DEMOS: dict[str, list[str]] = {"tour.fth": ["out", "C"], "gemm.fth": ["C", "C2"]}


# ---- running a program the same way on either backend ------------------------------------
def new_session(backend: str, checked: bool = True):
    from tileforth.core import Forth

    return Forth(backend=backend, checked=checked)


def stacks(f) -> tuple[list, list]:
    return f.data_stack(lane=None), f.float_stack(lane=None)


def run_program(backend: str, name: str):
    """(output, data stacks, float stacks, session) of PROGRAMS[name]."""
    f = new_session(backend)
    out = f.eval(PROGRAMS[name], source=name)
    return (out, *stacks(f), f)


def run_script(backend: str, name: str):
    """(outputs per step, stacks per session, arrays) of SCRIPTS[name]."""
    sc = SCRIPTS[name]
    sessions = [new_session(backend) for _ in range(sc.sessions)]
    outs = [sessions[i].eval(line, source=f"{name}[{i}]") for i, line in sc.steps]
    states = [stacks(f) for f in sessions]
    arrays = {f"{i}:{a}": sessions[i].array(a) for i, a in sc.arrays}
    return outs, states, arrays


def run_error(backend: str, name: str):
    """Run ERRORS[name]: returns (the exception or None, stacks before, stacks after,
    output of AFTER_LINE or the exception it raised)."""
    from tileforth.core import ForthError

    case = ERRORS[name]
    f = new_session(backend)
    if case.setup:
        f.eval(case.setup)
    before = stacks(f)
    err = None
    try:
        f.eval(case.line)
    except ForthError as e:
        err = e
    after = stacks(f)
    try:
        nxt = f.eval(AFTER_LINE)
    except Exception as e:  # noqa: BLE001 - reported by the test
        nxt = e
    return err, before, after, nxt


def run_abort(backend: str):
    """BEGIN AGAIN, interrupted by backend.abort() from a timer thread. Returns
    (the exception or None, seconds from abort() to the end of the line, the next
    line's output)."""
    from tileforth.core import ForthError

    f = new_session(backend)
    f.step_budget = 1 << 40  # only the abort can stop it
    f.eval(AFTER_LINE)  # warm up: the session's first launch
    fired: dict[str, float] = {}

    def fire() -> None:
        fired["t"] = time.perf_counter()
        f.backend.abort()

    timer = threading.Timer(ABORT_AFTER_S, fire)
    timer.start()
    err = None
    try:
        f.eval(ABORT_LINE)
    except ForthError as e:
        err = e
    end = time.perf_counter()
    timer.join()
    return err, end - fired.get("t", end), f.eval(AFTER_LINE)


def run_runaway(backend: str):
    """BEGIN AGAIN stopped by a small step budget: (the exception or None, next output)."""
    from tileforth.core import ForthError

    f = new_session(backend)
    f.step_budget = RUNAWAY_BUDGET
    err = None
    try:
        f.eval(ABORT_LINE)
    except ForthError as e:
        err = e
    return err, f.eval(AFTER_LINE)


def run_sticky(backend: str, checked: bool):
    """STICKY_LINE then AFTER_LINE: (the exception or None, the next output or its exception)."""
    from tileforth.core import ForthError

    f = new_session(backend, checked=checked)
    f.eval("2 3 + DROP")
    err = None
    try:
        f.eval(STICKY_LINE)
    except ForthError as e:
        err = e
    try:
        nxt = f.eval(AFTER_LINE)
    except Exception as e:  # noqa: BLE001 - reported by the test
        nxt = e
    return err, nxt


def run_demo(backend: str, demo: str):
    """The demo's arrays (by name) and its session."""
    f = new_session(backend)
    f.eval((DEMOS_DIR / demo).read_text(), source=demo)
    return {a: f.array(a) for a in DEMOS[demo]}, f
