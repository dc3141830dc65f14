"""Kernels that leave the REPL: f.kernel(word) as a Python callable, f.ptx(word),
and the cuda backend's clear refusal where there is no GPU or PyCUDA."""
import importlib.util

import numpy as np
import pytest

from tileforth.core import Forth, ForthError

SAXPY = """: saxpy ( x y n -- ) ( F: a -- )
  GLOBAL-ID TUCK > IF  4 * TUCK + >R + F@ FOVER F* R@ F@ F+ R> F!  FDROP
  ELSE DROP 2DROP FDROP THEN ;"""


def test_kernel_callable_runs_a_word_over_a_grid_on_numpy_arrays():
    f = Forth()
    f.eval(SAXPY)
    f.eval("7 8")  # the session's stacks and shape survive the call
    rng = np.random.default_rng(3)
    x = rng.standard_normal(1000).astype(np.float32)
    y = rng.standard_normal(1000).astype(np.float32)
    expect = np.float32(2.5) * x + y
    f.kernel("saxpy")(x, y, 1000, 2.5, grid=(8, 1, 1), block=(128, 1, 1))
    np.testing.assert_allclose(y, expect, rtol=1e-6)
    assert f.data_stack() == [7, 8] and f.launch_shape == ((1, 1, 1), (32, 1, 1))


def test_kernel_callable_checks_its_arguments():
    f = Forth()
    f.eval(SAXPY)
    with pytest.raises(ForthError, match="takes 3 cell"):
        f.kernel("saxpy")(np.zeros(4, np.float32), 4, 1.0)
    with pytest.raises(ForthError, match="not a colon definition"):
        f.kernel("DUP")


def test_tensor_core_word_as_a_kernel_matches_numpy():
    f = Forth()
    f.eval(": mm ( a b c -- ) >R >R 16 TLOAD-A R> 16 TLOAD-B TZERO TROT TROT TMMA R> 16 TSTORE ;")
    rng = np.random.default_rng(4)
    a = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    b = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    c = np.zeros((16, 16), np.float32)
    f.kernel("mm")(a, b, c)
    np.testing.assert_array_equal(c, a.astype(np.float64) @ b.astype(np.float64))


def test_ptx_of_a_word_names_its_parameters():
    f = Forth()
    f.eval(SAXPY)
    ptx = f.ptx("saxpy", arch="sm_90")
    assert ".target sm_90" in ptx and ".entry saxpy(" in ptx
    assert ptx.count(".param .u64") == 4 and ptx.count(".param .f32") == 1  # ctx, x, y, n; a


@pytest.mark.skipif(importlib.util.find_spec("pycuda") is not None, reason="PyCUDA is installed")
def test_cuda_backend_without_pycuda_says_what_to_do():
    with pytest.raises(ForthError, match="PyCUDA"):
        Forth(backend="cuda")
    assert Forth(backend="auto").backend_name == "cpu"


def test_abort_from_another_thread_interrupts_a_runaway_loop():
    import threading
    import time
    f = Forth()
    f.step_budget = 1 << 62
    f.eval("1 2")
    timer = threading.Timer(0.3, f.backend.abort)
    timer.start()
    t0 = time.perf_counter()
    with pytest.raises(ForthError, match="interrupted"):
        f.eval("BEGIN AGAIN")
    assert time.perf_counter() - t0 < 10
    assert f.data_stack() == [1, 2]
    assert f.eval("3 .") == "3 "


def test_see_ptx_says_where_a_words_results_go():
    """Issue 26: the note said the results were dropped while the PTX below stores them: the
    product's register is stored through the kernel's last parameter, `out`, which the note names."""
    import re

    f = Forth()
    f.eval(": sq DUP * ;  4 I64 ARRAY res  : sq! ( n -- ) DUP * res ! ;")
    shown = f.eval("SEE-PTX sq")
    assert "dropped" not in shown and "1 cell to `out`" in shown
    params = re.findall(r"\.param \.u64 (?:\.ptr \.align \d+ )?(sq_param_\d+)", shown)
    last = params[-1]
    (addr,) = re.findall(rf"ld\.param\.b64\s+(%rd\d+), \[{last}\];", shown)
    ((product, _),) = re.findall(r"mul\.lo\.s64\s+(%rd\d+), (%rd\d+), \2;", shown)  # DUP *: n times n
    assert re.search(rf"st\.global\.b64\s+\[%rd\d+\], {re.escape(product)};", shown)
    assert re.search(rf"cvta\.to\.global\.u64\s+%rd\d+, {re.escape(addr)};", shown)  # out, the last parameter
    shown = f.eval("SEE-PTX sq!")
    assert "`out`" not in shown and "mul.lo.s64" in shown


class _PendingStream:
    """A caller's stream with work still queued: its synchronize() lands that work (the input's
    values); a launch that did not wait for it would read zeros."""

    def __init__(self, dst: np.ndarray, src: np.ndarray) -> None:
        self.dst, self.src, self.syncs = dst, src, 0

    def synchronize(self) -> None:
        self.syncs += 1
        self.dst[:] = self.src


def test_kernel_stream_orders_the_launch_after_the_callers_work():
    f = Forth()
    f.eval(SAXPY)
    x = np.zeros(256, np.float32)
    y = np.ones(256, np.float32)
    produced = np.arange(256, dtype=np.float32)
    s = _PendingStream(x, produced)
    f.kernel("saxpy")(x, y, 256, 2.0, grid=2, block=128, stream=s)
    assert s.syncs == 1
    np.testing.assert_array_equal(y, 2.0 * produced + 1.0)
    y2 = np.ones(4, np.float32)
    f.kernel("saxpy")(np.ones(4, np.float32), y2, 4, 1.0, stream=0)  # the legacy default stream: ordered already
    np.testing.assert_array_equal(y2, np.full(4, 2.0, np.float32))


def test_kernel_stream_refuses_what_is_not_a_stream():
    f = Forth()
    f.eval(SAXPY)
    run = f.kernel("saxpy")
    with pytest.raises(ForthError, match="stream= takes a stream object"):
        run(np.zeros(4, np.float32), np.zeros(4, np.float32), 4, 1.0, stream="s0")
    if importlib.util.find_spec("pycuda") is None:  # no driver here to wait on a raw handle
        import ctypes.util
        if ctypes.util.find_library("cuda") is None:
            with pytest.raises(ForthError, match="no CUDA driver here"):
                run(np.zeros(4, np.float32), np.zeros(4, np.float32), 4, 1.0, stream=0x1234)
    assert f.data_stack() == []
