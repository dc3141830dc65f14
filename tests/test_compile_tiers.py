"""Compile tiers (tileforth/core/compile/tiers.py): a new line's kernel is compiled cheaply; a loop line
launched again is recompiled at full optimisation in the background and swapped in at a later launch,
with bit-identical results; TILEFORTH_TIERS=full and exports compile at full optimisation at once."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from tileforth.core import Forth
from tileforth.core.compile.tiers import REUSED_AT, TIER_CHEAP, TIER_FULL

# integer and float work in loops, every lane different (TID-X), floats through FSQRT, F/ and FSIN
LOOP_LINE = ("TID-X 7 + 0 5000 0 DO OVER I * XOR 3 LSHIFT I + LOOP NIP "
             "TID-X S>F 0.37e F+ 200 0 DO FDUP 1.0001e F* FSIN F+ FDUP FSQRT 3e F/ F+ LOOP")


def _recompile_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "tileforth-recompile"]


@pytest.fixture
def forth(monkeypatch):
    monkeypatch.delenv("TILEFORTH_TIERS", raising=False)
    f = Forth(backend="cpu")
    yield f
    f.close()
    assert not _recompile_threads()  # close() joined every optimised compile


_RAN: dict[int, object] = {}  # session -> the kernel its last _run launched


def _last_kernel(f: Forth):
    return list(f.device.kcache.values())[-1]  # the cache's order is the order of use


def _run(f: Forth, line: str) -> tuple[str, np.ndarray, np.ndarray]:
    """The line's output and the stacks it leaves (every lane, floats as their bits), then empty stacks."""
    out = f.eval(line)
    _RAN[id(f)] = _last_kernel(f)
    ds = np.array(f.data_stack(lane=None), dtype=np.int64)
    fs = np.array(f.float_stack(lane=None), dtype=np.float64).view(np.int64)
    f.eval("CLEARSTACK FDEPTH 0 ?DO FDROP LOOP")
    return out, ds, fs


def test_straight_line_is_tier_0_and_stays(forth):
    be = forth.backend
    before = dict(be.compiled_tiers)
    for _ in range(4):
        assert forth.eval("3 4 + DUP * 2 - 5 MAX .") == "47 "
    kernel = _last_kernel(forth)
    assert not kernel.loops
    assert kernel.tier == TIER_CHEAP and kernel.recompile is None
    assert be.compiled_tiers[TIER_CHEAP] == before[TIER_CHEAP] + 1
    assert be.recompiled == 0


def test_loop_line_starts_cheap_then_runs_optimised_with_identical_results(forth):
    be = forth.backend
    first = _run(forth, LOOP_LINE)
    kernel = _RAN[id(forth)]
    assert kernel.loops
    assert kernel.tier == TIER_CHEAP and kernel.launches == 1
    runs = [first]
    for _ in range(REUSED_AT - 1):  # the first reuse starts the optimised compile
        runs.append(_run(forth, LOOP_LINE))
    assert kernel.recompile is not None
    assert be.wait_recompiles(timeout=120)
    runs.append(_run(forth, LOOP_LINE))  # swapped in here
    assert kernel.tier == TIER_FULL and be.recompiled >= 1
    runs.append(_run(forth, LOOP_LINE))
    ref_out, ref_ds, ref_fs = first
    assert ref_ds.shape == ref_fs.shape == (32, 1)  # one result of each kind per lane
    assert len(set(ref_fs[:, 0])) > 8  # the lanes differ
    for out, ds, fs in runs[1:]:
        assert out == ref_out
        np.testing.assert_array_equal(ds, ref_ds)
        np.testing.assert_array_equal(fs, ref_fs)  # the floats' bits, lane by lane


def test_memory_written_by_both_tiers_is_identical(forth):
    forth.eval("1 1 1 THREADS CREATE BUF 64 FLOATS ALLOT")
    line = "64 0 DO I S>F 0.1e F* FDUP FEXP F/ 1e F+ FSQRT BUF I FLOATS + F! LOOP"

    def memory() -> np.ndarray:
        forth.eval("BUF 64 FLOATS + BUF DO I F@ 1 FLOATS +LOOP")
        got = np.array(forth.float_stack(lane=0))
        forth.eval("FDEPTH 0 ?DO FDROP LOOP BUF 64 FLOATS ERASE")
        return got
    forth.eval(line)
    cheap = memory()
    forth.eval(line)
    kernel = _last_kernel(forth)
    assert kernel.recompile is not None
    assert forth.backend.wait_recompiles(timeout=120)
    forth.eval(line)
    assert kernel.tier == TIER_FULL
    full = memory()
    assert cheap.shape == (64,)
    np.testing.assert_array_equal(full, cheap)
    expect = [np.sqrt(np.float64(i) * 0.1 / np.exp(np.float64(i) * 0.1) + 1) for i in range(64)]
    np.testing.assert_allclose(cheap, expect, rtol=1e-5)


def test_tiers_full_compiles_loop_lines_optimised_at_once(monkeypatch):
    monkeypatch.setenv("TILEFORTH_TIERS", "full")
    f = Forth(backend="cpu")
    try:
        first = _run(f, LOOP_LINE)
        kernel = _RAN[id(f)]
        assert kernel.loops
        assert kernel.tier == TIER_FULL
        assert _run(f, LOOP_LINE)[0] == first[0]
        assert kernel.recompile is None and f.backend.recompiled == 0
    finally:
        f.close()


def test_close_joins_a_recompile_under_way(monkeypatch):
    monkeypatch.delenv("TILEFORTH_TIERS", raising=False)
    f = Forth(backend="cpu")
    for _ in range(REUSED_AT):
        f.eval("0 1000 0 DO I + LOOP DROP")
    f.close()  # right after the compile started: joined (or cancelled), no thread left
    assert not _recompile_threads()


def test_a_forgotten_kernel_drops_its_recompile(forth):
    for _ in range(REUSED_AT):
        forth.eval("0 1000 0 DO I 2* + LOOP DROP")
    kernel = _last_kernel(forth)
    rc = kernel.recompile
    forth.backend.release(forth.device.kcache.pop(next(key for key, k in forth.device.kcache.items()
                                                         if k is kernel)))
    assert kernel.recompile is None and rc.cancelled
    assert forth.backend.wait_recompiles(timeout=120)
    assert forth.eval("2 3 + .") == "5 "


def test_exports_and_tier_settings_of_ptx(forth):
    """The cuda side's settings (no GPU needed): exports at O3/opt 3, the cheap tier at NVPTX
    CHEAP_CODEGEN_OPT (1: opt 0 loses ld.global); the PTX of both assembles (ptxas)."""
    from tileforth.backends.cuda import ptx
    from tileforth.export.kernels import word_ptx
    forth.eval(": poly ( n -- n ) 0 SWAP 0 DO I * 3 + LOOP ;")
    seen: list[int] = []
    real = ptx.target_machine

    def spy(arch: str, opt: int, *rest):
        seen.append(opt)
        return real(arch, opt, *rest)
    ptx.target_machine = spy
    try:
        full = word_ptx(forth, "poly")  # the default: exports
        cheap = word_ptx(forth, "poly", heavy=False)
    finally:
        ptx.target_machine = real
    assert seen == [3, ptx.CHEAP_CODEGEN_OPT] and ptx.CHEAP_CODEGEN_OPT < 3
    assert full != cheap
    if ptx.ptxas_path() is not None:
        for text in (full, cheap):
            assert ptx.ptxas(text, "sm_80")  # each entry's resources: it assembled


def test_cuda_tiers_on_the_stand_in_driver(monkeypatch):
    """On the cuda backend (the stand-in driver: kernels load through ptxas but do not run): a straight
    line is JIT-compiled at CHEAP_JIT_LEVEL; a loop line too, then at its first reuse its full PTX is made
    on a thread and loaded at the driver's default level at a later launch; close() joins the thread."""
    from standins import standins
    monkeypatch.delenv("TILEFORTH_TIERS", raising=False)
    with standins("pycuda"):
        import pycuda.driver as drv

        from tileforth.backends.cuda.backend import CHEAP_JIT_LEVEL
        levels: list[int | None] = []
        real = drv.module_from_buffer

        def spy(buffer, options=(), message_handler=None):
            levels.append(next((v for k, v in options if int(k) == int(drv.jit_option.OPTIMIZATION_LEVEL)), None))
            return real(buffer, options=options, message_handler=message_handler)
        monkeypatch.setattr(drv, "module_from_buffer", spy)
        f = Forth(backend="cuda")
        try:
            f.eval("1 2 + DROP")
            straight = _last_kernel(f)
            assert straight.tier == TIER_CHEAP and levels[-1] == CHEAP_JIT_LEVEL
            line = "0 100 0 DO I + LOOP DROP"
            f.eval(line)
            kernel = _last_kernel(f)
            assert kernel.loops and kernel.tier == TIER_CHEAP and levels[-1] == CHEAP_JIT_LEVEL
            cheap_ptx = kernel.ptx
            for _ in range(REUSED_AT - 1):
                f.eval(line)
            assert kernel.recompile is not None
            assert f.backend.wait_recompiles(timeout=120)
            f.eval(line)
            assert kernel.tier == TIER_FULL and levels[-1] is None and kernel.ptx != cheap_ptx
            assert f.backend.recompiled == 1 and kernel.module is not None
        finally:
            f.close()
        assert not _recompile_threads()
