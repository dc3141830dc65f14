"""The cuda backend against the emulator, program by program (needs a GPU
and PyCUDA; skipped otherwise). Run: python -m pytest -m gpu"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tileforth.core import Forth, ForthError

DEMOS = Path(__file__).resolve().parents[1] / "demos"


def _cuda_available() -> bool:
    try:
        Forth(backend="cuda")
    except ForthError:
        return False
    return True


pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not _cuda_available(), reason="needs an NVIDIA GPU and PyCUDA")]

PROGRAMS = {
    "arithmetic": "1 2 + 3 * 7 /MOD -7 2 / -7 2 MOD 1 63 LSHIFT 2/ 5 0 DO I LOOP",
    "definitions": ": fact DUP 1 > IF DUP 1- RECURSE * THEN ; 10 fact : sq DUP * ; 12 sq",
    "lanes": "TID-X LANE-ID WARP-ID 2 1 1 GRID 64 1 1 BLOCK GLOBAL-ID",
    "floats": "1.5e 2e F+ 3e F* FDUP FSQRT 0.5e FEXP 1e FLOG 0.5e FSIN 0.5e FCOS -2.5e FLOOR 2.5e FROUND 7 S>F F>S",
    "memory": "16 I64 ARRAY xs TID-X DUP * TID-X CELLS xs + ! BARRIER 31 TID-X - CELLS xs + @",
    "output": '." hello " 42 . TID-X 2 MOD IF ." odd" ELSE ." even" THEN CR',
    "shared": "256 1 1 BLOCK 2048 SHARED: buf TID-X DUP CELLS buf + ! BARRIER 255 TID-X - CELLS buf + @",
}


def _state(f: Forth) -> tuple:
    return f.data_stack(lane=None), f.float_stack(lane=None)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_agrees_with_the_emulator(name):
    runs = []
    for backend in ("cpu", "cuda"):
        f = Forth(backend=backend)
        out = f.eval(PROGRAMS[name])
        runs.append((out, *_state(f)))
    (out_c, ds_c, fs_c), (out_g, ds_g, fs_g) = runs
    assert out_g == out_c and ds_g == ds_c
    np.testing.assert_allclose(np.array(sum(fs_g, []), np.float32), np.array(sum(fs_c, []), np.float32),
                               rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("demo", ["tour.fth", "gemm.fth"])
def test_demo_agrees_with_the_emulator(demo):
    arrays = {"tour.fth": ["out"], "gemm.fth": ["C", "C2"]}[demo]
    results = []
    for backend in ("cpu", "cuda"):
        f = Forth(backend=backend)
        f.eval((DEMOS / demo).read_text(), source=demo)
        results.append([f.array(a) for a in arrays])
    for cpu, gpu in zip(*results):
        np.testing.assert_array_equal(gpu, cpu)


def test_bad_address_is_an_error_and_the_context_survives():
    f = Forth(backend="cuda")
    with pytest.raises(ForthError, match="bad address"):
        f.eval("0 @")
    assert f.eval("2 3 + .") == "5 "


def test_runaway_loop_is_stopped_on_the_gpu():
    f = Forth(backend="cuda")
    f.step_budget = 1 << 20
    with pytest.raises(ForthError, match="iterations"):
        f.eval("BEGIN AGAIN")
    assert f.eval("1 .") == "1 "


def test_tensor_core_gemm_kernel_on_the_gpu():
    f = Forth(backend="cuda")
    f.eval((DEMOS / "gemm.fth").read_text(), source="gemm.fth")
    a, b = f.array("A").astype(np.float64), f.array("B").astype(np.float64)
    np.testing.assert_array_equal(f.array("C"), a @ b)
    np.testing.assert_array_equal(f.array("C2"), a @ b)
