"""The cpu controls of the GPU test programs (tests/gpu_programs.py).

tests/test_gpu.py compares the cuda backend with the cpu emulator program by
program; here, in CI and without a GPU, every one of those programs runs on
the cpu backend and is checked against a reference computed independently
(plain Python arithmetic, numpy, gforth), never against tileforth itself. A
GPU test can then fail only for a GPU reason.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

import gforth
import gpu_programs as gp


# ---- the launch shape as the hardware defines it ------------------------------------------
def threads(grid=(1, 1, 1), block=(32, 1, 1)):
    """Every thread of a launch in the order the stacks are listed (block by block,
    x fastest): (block index, (tid.x, tid.y, tid.z), linear index in the block)."""
    bx, by, bz = block
    for b in range(grid[0] * grid[1] * grid[2]):
        bid = (b % grid[0], b // grid[0] % grid[1], b // (grid[0] * grid[1]))
        for lin in range(bx * by * bz):
            yield bid, (lin % bx, lin // bx % by, lin // (bx * by)), lin


def wrap64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


f32 = np.float32


# ---- references: (output, data stacks, float stacks) per program -----------------------------
def ref_arithmetic():
    s = [9 % 7, 9 // 7, -7 // 2, -7 % 2, wrap64(1 << 63) >> 1, *range(5)]  # floored, as Python's // and %
    return "", [s] * 32, [[]] * 32


def ref_definitions():
    return "", [[math.factorial(10), 12 * 12]] * 32, [[]] * 32


def ref_lanes():
    ds = [[tid[0], lin % 32, lin // 32, bid[0], bid[0] * 64 + tid[0]]
          for bid, tid, lin in threads((2, 1, 1), (64, 1, 1))]
    return "", ds, [[]] * 128


def ref_lanes_2d():
    ds = [[tid[0], tid[1], lin % 32, lin // 32, bid[0], bid[0] * 16 + tid[0]]
          for bid, tid, lin in threads((2, 1, 1), (16, 4, 1))]
    return "", ds, [[]] * 128


def ref_floats():
    x = f32(f32(1.5) + f32(2.0)) * f32(3.0)
    fs = [x, np.sqrt(x), np.exp(f32(0.5)), np.log(f32(1.0)), np.sin(f32(0.5)), np.cos(f32(0.5)),
          np.floor(f32(-2.5)), np.round(f32(2.5))]  # FROUND: to nearest, ties to even
    return "", [[7]] * 32, [[float(v) for v in fs]] * 32


def ref_memory():
    return "", [[(31 - t) ** 2] for t in range(32)], [[]] * 32


def ref_output():
    evens, odds = range(0, 32, 2), range(1, 32, 2)
    out = (f"[thread {', '.join(map(str, evens))}] hello 42 even\n"
           f"[thread {', '.join(map(str, odds))}] hello 42 odd\n")
    return out, [[]] * 32, [[]] * 32


def ref_shared():
    return "", [[255 - t] for t in range(256)], [[]] * 256


def ref_shared_cell():
    return "", [[42, t] for t in range(256)], [[]] * 256


def ref_shared_word():
    return "", [[t + 10] for t in range(64)], [[]] * 64


def ref_recursion():
    return "", [[sum(range(t + 201))] for t in range(32)], [[]] * 32


def ref_block1024():
    return "", [[1023 - t, t // 32, t % 32] for t in range(1024)], [[]] * 1024


def ref_warp():
    ds = []
    for t in range(64):
        lane = t % 32
        down = t + 3 if lane + 3 < 32 else t  # a source past the warp: the lane keeps its own value
        ds.append([t, t ^ 1, down, 0x55555555, -1 if t < 32 else 0])  # even lanes' ballot; warp 0 has t < 5
    return "", ds, [[]] * 64


def ref_atomics():
    return "", [[64, 6300]] * 64, [[float(f32(sum(range(64))))]] * 64


REFERENCES = {name[4:]: fn for name, fn in globals().items() if name.startswith("ref_")}


def test_every_gpu_program_has_a_reference():
    assert sorted(REFERENCES) == sorted(gp.PROGRAMS)


@pytest.mark.parametrize("name", sorted(gp.PROGRAMS))
def test_gpu_program_on_the_cpu_backend(name):
    out, ds, fs, f = gp.run_program("cpu", name)
    want_out, want_ds, want_fs = REFERENCES[name]()
    assert out == want_out
    assert ds == want_ds
    assert [len(s) for s in fs] == [len(s) for s in want_fs]
    np.testing.assert_allclose(np.array(sum(fs, []), np.float32), np.array(sum(want_fs, []), np.float32),
                               rtol=2e-6, atol=1e-6)
    for word in gp.NOT_INLINED.get(name, []):
        assert not f.dict[word].small, f"{word} must be a real call (not inlined) for {name} to test it"


# standard Forth: gforth computes the same stacks (floored division, as tileforth's)
GFORTH_CHECKED = {
    "arithmetic": "1 2 + 3 * 7 /MOD -7 2 / -7 2 MOD 1 63 LSHIFT 2/ " + gforth.wrap("5 0 DO I LOOP"),
    "definitions": ": fact DUP 1 > IF DUP 1- RECURSE * THEN ; 10 fact : sq DUP * ; 12 sq",
}


@pytest.mark.parametrize("name", sorted(GFORTH_CHECKED))
def test_gpu_program_agrees_with_gforth(name, need_gforth):
    assert GFORTH_CHECKED[name].replace(gforth.wrap("5 0 DO I LOOP"), "5 0 DO I LOOP") == gp.PROGRAMS[name]
    assert gforth.stack(GFORTH_CHECKED[name]) == REFERENCES[name]()[1][0]


# ---- several sessions --------------------------------------------------------------------------
def test_two_sessions_alternately_on_the_cpu_backend():
    outs, states, arrays = gp.run_script("cpu", "two_sessions")
    assert outs == ["", "", "7 ", "12 ", "49 ", "14 ", ""]
    assert states[0] == ([[t + 7] for t in range(32)], [[]] * 32)
    assert states[1] == ([[g] for g in range(128)], [[]] * 128)
    np.testing.assert_array_equal(arrays["0:a1"], [7, 0, 0, 0])
    np.testing.assert_array_equal(arrays["1:a2"], [11, 3, 0, 0])


def test_every_script_is_checked_here():
    assert sorted(gp.SCRIPTS) == ["two_sessions"]


# ---- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(gp.ERRORS))
def test_error_program_on_the_cpu_backend(name):
    err, before, after, nxt = gp.run_error("cpu", name)
    assert err is not None, f"{gp.ERRORS[name].line!r} raised no ForthError"
    assert re.search(gp.ERRORS[name].match, str(err), re.IGNORECASE), str(err)
    assert after == before  # the failed line left the stacks as they were
    assert nxt == gp.AFTER_OUTPUT


def test_recursion_limit_names_the_word_and_the_limit():
    err, *_ = gp.run_error("cpu", "recursion_limit")
    assert "down" in str(err).lower()


def test_abort_from_another_thread_stops_the_line_on_the_cpu_backend():
    err, secs, nxt = gp.run_abort("cpu")
    assert err is not None and "interrupted" in str(err)
    assert secs < gp.ABORT_WITHIN_S
    assert nxt == gp.AFTER_OUTPUT


def test_step_budget_stops_a_runaway_loop_on_the_cpu_backend():
    err, nxt = gp.run_runaway("cpu")
    assert err is not None and "iterations" in str(err)
    assert nxt == gp.AFTER_OUTPUT


def test_wild_load_control_on_the_cpu_backend():
    """The cpu control of the sticky-error test: the same load, checked, is a
    ForthError and the next line works."""
    err, nxt = gp.run_sticky("cpu", checked=True)
    assert err is not None and re.search(gp.STICKY_CPU_MATCH, str(err), re.IGNORECASE)
    assert nxt == gp.AFTER_OUTPUT


# ---- demos -------------------------------------------------------------------------------------
def test_demos_on_the_cpu_backend():
    assert sorted(gp.DEMOS) == ["gemm.fth", "tour.fth"]
    arrays, _ = gp.run_demo("cpu", "tour.fth")
    np.testing.assert_array_equal(arrays["out"], np.arange(256)[::-1])
    a = np.arange(256, dtype=np.float64).reshape(16, 16)
    np.testing.assert_array_equal(arrays["C"], a @ np.eye(16))
    arrays, f = gp.run_demo("cpu", "gemm.fth")
    ref = f.array("A").astype(np.float64) @ f.array("B").astype(np.float64)
    np.testing.assert_array_equal(arrays["C"], ref)
    np.testing.assert_array_equal(arrays["C2"], ref)
