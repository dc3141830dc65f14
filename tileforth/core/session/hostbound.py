"""What bounds the host's own loops and waits: the step budget and Ctrl-C (issue 26).

A launch's loops poll the backend's abort flag at every back-edge and count against the step
budget. The host has loops of its own: a host-level word's loops and calls (hostexec.py's
HostRunner.step), the text interpreter re-reading what Forth code moved `>IN` back to
(inputpos.sync_in), a wait (MS). Each draws on the same budget and checks the same flag here,
so `S" 0 >IN !" EVALUATE` ends with the budget's error and every one of them stops at Ctrl-C
(`Backend.abort()` from another thread, as the REPL's key watcher and Jupyter's do).
"""
from __future__ import annotations

import time
from typing import Any

from ..errors import ForthError

WAIT_SLICE_S = 0.02  # a wait looks at the abort flag this often
# The budget counts a launch's loop iterations (a fraction of a microsecond each); one step of a host loop
# costs far more (a host-level iteration ~35 us, re-reading a line ~130 us on a small machine), so each
# draws this many steps: any budget then bounds the host's loops to about the time it bounds a launch's.
HOST_STEP_COST = 64
REREAD_COST = 4096


def host_steps(f: Any, cost: int) -> int:
    """How many host steps of `cost` the session's budget allows (at least one)."""
    return max(1, f.step_budget // cost)
RAISE_BUDGET = "if it is not, raise the step budget: `n SET-STEP-BUDGET` or `tileforth --steps n`, 0 for none"


def check_abort(f: Any, pos: Any = None) -> None:
    """Raise "interrupted" (which CATCH lets through, as a launch's) once Ctrl-C asked to stop."""
    if f.backend.aborted():
        raise ForthError("interrupted", pos, code=None)


def wait(f: Any, seconds: float, pos: Any = None) -> None:
    """Sleep `seconds` (any size: a huge count waits until Ctrl-C), in slices that look at the abort flag."""
    end = time.monotonic() + seconds
    while True:
        check_abort(f, pos)
        left = end - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, WAIT_SLICE_S))


def reread(f: Any, reader: Any, pos: Any = None) -> None:
    """Forth code moved `>IN` back, so the interpreter reads part of `reader`'s line again: one
    step of a loop (`S" 0 >IN !" EVALUATE` is an infinite one), on the budget and stopped by Ctrl-C."""
    check_abort(f, pos)
    reader.rereads += 1
    limit = host_steps(f, REREAD_COST)
    if reader.rereads > limit:
        raise ForthError(f"Forth code moved >IN back {limit} times on this input, so the interpreter read it again "
                         f"each time (each re-read counts {REREAD_COST} steps of the budget): the loop looks "
                         f"infinite ({RAISE_BUDGET})", pos, code=None)
