"""The cuda backend against the emulator, program by program (needs a GPU
and PyCUDA; skipped otherwise). Run: python -m pytest -m gpu

The programs live in tests/gpu_programs.py; tests/test_gpu_programs_cpu.py
runs each of them on the cpu backend in CI against an independent reference,
so a failure here is a GPU failure."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tileforth.core import Forth, ForthError

import gpu_programs as gp


def _cuda_available() -> bool:
    try:
        f = Forth(backend="cuda")
    except ForthError:
        return False
    close = getattr(f.backend, "close", None)
    if callable(close):
        close()
    return True


pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not _cuda_available(), reason="needs an NVIDIA GPU and PyCUDA")]


def _same_floats(got: list, want: list) -> None:
    assert [len(s) for s in got] == [len(s) for s in want]
    np.testing.assert_allclose(np.array(sum(got, []), np.float32), np.array(sum(want, []), np.float32),
                               rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(gp.PROGRAMS))
def test_program_agrees_with_the_emulator(name):
    out_c, ds_c, fs_c, _ = gp.run_program("cpu", name)
    out_g, ds_g, fs_g, _ = gp.run_program("cuda", name)
    assert out_g == out_c
    assert ds_g == ds_c
    _same_floats(fs_g, fs_c)


@pytest.mark.parametrize("name", sorted(gp.SCRIPTS))
def test_sessions_used_alternately_agree_with_the_emulator(name):
    outs_c, states_c, arrays_c = gp.run_script("cpu", name)
    outs_g, states_g, arrays_g = gp.run_script("cuda", name)
    assert outs_g == outs_c
    for (ds_g, fs_g), (ds_c, fs_c) in zip(states_g, states_c):
        assert ds_g == ds_c
        _same_floats(fs_g, fs_c)
    assert arrays_g.keys() == arrays_c.keys()
    for k in arrays_c:
        np.testing.assert_array_equal(arrays_g[k], arrays_c[k])


@pytest.mark.parametrize("name", sorted(gp.ERRORS))
def test_error_is_a_forth_error_on_both_backends(name):
    match = gp.ERRORS[name].match
    for backend in ("cpu", "cuda"):
        err, before, after, nxt = gp.run_error(backend, name)
        assert err is not None, f"{backend}: {gp.ERRORS[name].line!r} raised no ForthError"
        assert re.search(match, str(err), re.IGNORECASE), f"{backend}: {err}"
        assert after == before, f"{backend}: the failed line changed the stacks"
        assert nxt == gp.AFTER_OUTPUT, f"{backend}: the next line gave {nxt!r}"


@pytest.mark.parametrize("demo", sorted(gp.DEMOS))
def test_demo_agrees_with_the_emulator(demo):
    cpu, _ = gp.run_demo("cpu", demo)
    gpu, _ = gp.run_demo("cuda", demo)
    for name in gp.DEMOS[demo]:
        np.testing.assert_array_equal(gpu[name], cpu[name], err_msg=name)


def test_lost_context_in_an_unchecked_session_is_an_error_and_the_next_line_works():
    err, nxt = gp.run_sticky("cuda", checked=False)
    assert err is not None, f"{gp.STICKY_LINE!r} in an unchecked session raised no ForthError"
    assert re.search(gp.STICKY_CUDA_MATCH, str(err), re.IGNORECASE), str(err)
    assert nxt == gp.AFTER_OUTPUT
    # the cpu control (the same load, checked): tests/test_gpu_programs_cpu.py
    err, nxt = gp.run_sticky("cpu", checked=True)
    assert err is not None and nxt == gp.AFTER_OUTPUT


def test_abort_from_another_thread_stops_a_running_kernel():
    for backend in ("cpu", "cuda"):
        err, secs, nxt = gp.run_abort(backend)
        assert err is not None and "interrupted" in str(err), f"{backend}: {err}"
        assert secs < gp.ABORT_WITHIN_S, f"{backend}: stopped {secs:.2f}s after abort()"
        assert nxt == gp.AFTER_OUTPUT


def test_runaway_loop_is_stopped_by_the_step_budget():
    for backend in ("cpu", "cuda"):
        err, nxt = gp.run_runaway(backend)
        assert err is not None and "iterations" in str(err), f"{backend}: {err}"
        assert nxt == gp.AFTER_OUTPUT


def test_tensor_core_gemm_kernel_on_the_gpu():
    arrays, f = gp.run_demo("cuda", "gemm.fth")
    a, b = f.array("A").astype(np.float64), f.array("B").astype(np.float64)
    np.testing.assert_array_equal(arrays["C"], a @ b)
    np.testing.assert_array_equal(arrays["C2"], a @ b)
