"""The stack line of .STACKS (views._stack_line): its whole-column layout against a reference written
thread by thread here, on random stacks (ragged depths, NaN, equal and differing columns), and the
line it keeps from the last call is never shown for stacks that changed since."""
from __future__ import annotations

import math
import random

import numpy as np
from tileforth.core.session import views
from tileforth.core.session.output import format_f32, format_int


def reference(label, depth, items, fmt):
    """Column by column, thread by thread, in plain Python."""
    depths = [int(d) for d in depth]
    lo, hi = min(depths), max(depths)
    out = [(label, "head"), (f" <{lo}>" if lo == hi else f" <{lo}-{hi}>", "note")]
    for i in range(hi):
        held = [items[t][i] for t in range(len(depths)) if depths[t] > i]
        everyone = len(held) == len(depths)
        if everyone and all(v == held[0] for v in held):  # (NaN == NaN is false: a range)
            out.append((" " + fmt(held[0]), None))
        else:
            if any(isinstance(v, float) and math.isnan(v) for v in held):
                a = b = float("nan")
            else:
                a, b = min(held), max(held)
            out.append((f" [{fmt(a)}..{fmt(b)}]", "note"))
    return out


def _stacks(rng: random.Random, threads: int, kind: str):
    depth = np.array([rng.choice([0, 1, 2, 3, 3, 3]) if rng.random() < 0.3 else 3 for _ in range(threads)],
                     np.int64)
    if rng.random() < 0.3:
        depth[:] = rng.randint(0, 4)
    if kind == "int":
        items = np.array([[rng.choice([1, 2, -5, 2 ** 62, -2 ** 63]) if rng.random() < 0.3 else 7
                           for _ in range(4)] for _ in range(threads)], np.int64)
    else:
        items = np.array([[rng.choice([1.5, -0.0, float("nan"), float("inf"), 3e38]) if rng.random() < 0.2 else 2.0
                           for _ in range(4)] for _ in range(threads)], np.float32)
    for t in range(threads):  # what lies past a thread's depth is anything: never shown
        items[t, depth[t]:] = rng.choice([99, -99]) if kind == "int" else float("nan")
    return depth, items


def test_the_stack_line_is_the_thread_by_thread_one():
    rng = random.Random(26)
    for case in range(400):
        kind = rng.choice(["int", "float"])
        threads = rng.choice([1, 2, 32, 64, 100])
        depth, items = _stacks(rng, threads, kind)
        base = rng.choice([10, 16, 2])
        if kind == "int":
            fmt = lambda v: format_int(v, base)  # noqa: E731
            got = views._stack_line("data ", depth, items, fmt, ("int", base))
            want = reference("data ", depth, [[int(v) for v in row] for row in items], fmt)
        else:
            got = views._stack_line("float", depth, items, format_f32, ("f32",))
            want = reference("float", depth, [[float(v) for v in row] for row in items], format_f32)
        assert got == want, (case, depth, items)


def test_the_kept_line_follows_every_change():
    """The same stacks give the same line (kept from the last call); a change of a cell, a depth or
    BASE gives a new one (the stacks are compared, not their identity: arrays are read anew)."""
    depth, items = np.array([2, 2]), np.array([[1, 2], [1, 2]], np.int64)
    line = lambda base=10: views._stack_line("data ", depth, items, lambda v: format_int(v, base), ("int", base))  # noqa: E731
    assert views.plain([line()]) == "data  <2> 1 2\n"
    assert views.plain([line()]) == "data  <2> 1 2\n"
    items[1, 1] = 5  # changed in place
    assert views.plain([line()]) == "data  <2> 1 [2..5]\n"
    depth[0] = 1
    assert views.plain([line()]) == "data  <1-2> 1 [5..5]\n"
    depth[0] = 2
    items[1, 1] = 10
    assert views.plain([line(16)]) == "data  <2> 1 [2..A]\n"
    kept = line(16)
    kept.append(("x", None))  # a caller that changes the list it got changes nothing kept
    assert views.plain([line(16)]) == "data  <2> 1 [2..A]\n"
