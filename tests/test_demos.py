"""Every demo runs, and what it computes matches an independent reference."""
from pathlib import Path

import numpy as np
import pytest

from tileforth.core.records import replace
from tileforth.core import Forth

DEMOS = Path(__file__).resolve().parents[1] / "demos"


def test_tour_runs_and_shows_lanes_divergence_and_a_barrier():
    f = Forth()
    out = f.eval((DEMOS / "tour.fth").read_text(), source="tour.fth")
    # 1. every lane prints its own square
    for lane in range(32):
        assert f"[thread {lane}] {lane * lane} " in out
    # 2. even and odd lanes took different branches
    assert "even" in out and "odd" in out
    # 3. the block of 256 threads reversed its indices through shared memory
    np.testing.assert_array_equal(f.array("out"), np.arange(256)[::-1])
    assert "255 0" in out
    # 4. only the last lane of the warp spoke
    assert out.count("the last lane says hi") == 1
    assert f.launch_shape == ((1, 1, 1), (32, 1, 1))
    # 5. one tensor-core step: C = A.B with A = 0 1 2 ... 255 and B = I
    a = np.arange(256, dtype=np.float16).reshape(16, 16)
    np.testing.assert_array_equal(f.array("A"), a)
    np.testing.assert_array_equal(f.array("B"), np.eye(16, dtype=np.float16))
    np.testing.assert_array_equal(f.array("C"), a.astype(np.float64) @ np.eye(16))
    assert f.tile_stack() == []
    assert "C: 16x16 f32" in out  # .M C printed it


def test_tour_shows_the_tile_stack_after_each_step():
    """At the REPL (`.S` shows every stack), each tile line of section 5 is
    followed by the tile stack it leaves: TZERO, TLOAD-A, TLOAD-B, TMMA, TSTORE."""
    f = Forth()
    f.dot_s_shows_all = True
    out = f.eval((DEMOS / "tour.fth").read_text(), source="tour.fth")
    stacks, current = [], None
    for line in out.splitlines():
        if line.startswith("data  <"):
            current = []
            stacks.append(current)
        elif line.startswith("  ") and current is not None and line.split()[0] in ("acc", "a", "b"):
            current.append(line.split()[0])
    assert stacks[-5:] == [["acc"], ["acc", "a"], ["acc", "a", "b"], ["acc"], []]
    after_tmma = out.split("tiles <1>")[-1].splitlines()[1]
    assert after_tmma == "  acc 16x16 f32  min 0.0 max 255.0 mean 127.5"  # = A: 0..255, mean 127.5
    assert "acc 16x16 f32 (top of the tile stack <1>): the lane that holds each element." in out


def test_tour_runs_where_tiles_cannot_outlive_a_line():
    """On the cuda backend tiles must be stored on the line that made them;
    the tour then takes its one-line [ELSE] branch and computes the same C."""
    f = Forth()
    f.backend.caps = replace(f.backend.caps, keeps_tiles=False)  # as the cuda backend's
    out = f.eval((DEMOS / "tour.fth").read_text(), source="tour.fth")
    a = np.arange(256, dtype=np.float16).reshape(16, 16)
    np.testing.assert_array_equal(f.array("C"), a.astype(np.float64))
    assert "lane that holds" not in out  # the step-by-step lines were skipped


def test_unchecked_mode_computes_the_same_as_checked_mode():
    src = """
    1 1 1 GRID 64 1 1 THREADS
    64 I64 ARRAY xs
    : fill  TID-X DUP * TID-X CELLS xs + ! ;
    fill
    """
    results = []
    for checked in (True, False):
        f = Forth(checked=checked)
        f.eval(src)
        results.append(f.array("xs"))
    np.testing.assert_array_equal(results[0], np.arange(64) ** 2)
    np.testing.assert_array_equal(results[1], results[0])


def test_tour_leaves_the_stacks_empty():
    f = Forth()
    f.eval((DEMOS / "tour.fth").read_text(), source="tour.fth")
    assert f.data_stack(lane=None) == [[]] * 32
    assert f.float_stack(lane=None) == [[]] * 32


def _gemm_demo(mm: int, nn: int, kk: int) -> tuple[Forth, str, str]:
    src = (DEMOS / "gemm.fth").read_text()
    sizes = "64 CONSTANT MM   64 CONSTANT NN   64 CONSTANT KK"
    assert sizes in src
    sized = src.replace(sizes, f"{mm} CONSTANT MM   {nn} CONSTANT NN   {kk} CONSTANT KK")
    f = Forth()
    out = f.eval(sized, source="gemm.fth")
    lines = [ln for ln in sized.splitlines() if ln.rstrip().endswith(("gemm", "gemm2"))]
    return f, out, "\n".join(lines)


def _tolerance_ok(d: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    """tensor_cores.md §9: |D - R| <= K 2^-22 S + 2^-126 with S = |A||B|."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    r = a64 @ b64
    s = np.abs(a64) @ np.abs(b64)
    return bool((np.abs(d - r) <= a.shape[1] * 2.0 ** -22 * s + 2.0 ** -126).all())


@pytest.mark.parametrize("mm,nn,kk", [(64, 64, 64), (96, 64, 48)])
def test_gemm_demo_matches_numpy(mm, nn, kk):
    f, out, rerun = _gemm_demo(mm, nn, kk)
    a, b = f.array("A"), f.array("B")
    ref = a.astype(np.float64) @ b.astype(np.float64)  # small integers: exact in every order
    np.testing.assert_array_equal(f.array("C"), ref)
    np.testing.assert_array_equal(f.array("C2"), ref)
    assert f"C[0][0] = {ref[0, 0]:.0f}." in out
    # random f16 inputs, same kernels
    rng = np.random.default_rng(mm + nn + kk)
    a = rng.uniform(-1, 1, (mm, kk)).astype(np.float16)
    b = rng.uniform(-1, 1, (kk, nn)).astype(np.float16)
    f.set_array("A", a)
    f.set_array("B", b)
    f.eval(rerun)
    assert _tolerance_ok(f.array("C"), a, b)
    assert _tolerance_ok(f.array("C2"), a, b)
    assert f.tile_stack() == []
