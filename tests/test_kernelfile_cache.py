"""run_kernel_file's cache (issue 28, 29): a second call of the same kernel file in a session, with the same
sizes and scalars, reads no body and compiles no kernel (the counts say so), and computes what numpy does
with the new arrays; anything the code depends on (a scalar, a size, another file, the float width) makes it
read and compile again."""
from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
from tileforth.core import Forth
from tileforth.export import kernelfile as K

ROOT = Path(__file__).resolve().parents[1]
SAXPY = K.parse_kernel_file((ROOT / "demos" / "saxpy.fth").read_text(), "saxpy.fth")
HOPPER = K.parse_kernel_file((ROOT / "demos" / "gemm_hopper.fth").read_text(), "gemm_hopper.fth")


def saxpy(f: Forth, x: np.ndarray, y: np.ndarray | None, a: float) -> np.ndarray:
    values = {"X": x, "A": a} if y is None else {"X": x, "Y": y, "A": a}
    K.run_kernel_file(f, SAXPY, values, (1, 1, 1), (128, 1, 1))
    return f.array("Y") if y is None else y


def counts(f: Forth) -> tuple[int, int]:
    return K.READS[0], f.device.compiled


def test_a_second_call_reads_and_compiles_nothing_and_computes_anew():
    f = Forth(backend="cpu")
    rng = np.random.default_rng(0)
    x, y = rng.integers(-9, 9, 100).astype(np.float32), rng.integers(-9, 9, 100).astype(np.float32)
    want = 2 * x + y
    np.testing.assert_array_equal(saxpy(f, x, y, 2.0), want)
    first = counts(f)
    x2, y2 = rng.integers(-9, 9, 100).astype(np.float32), rng.integers(-9, 9, 100).astype(np.float32)
    want2 = 2 * x2 + y2
    np.testing.assert_array_equal(saxpy(f, x2, y2, 2.0), want2)
    assert counts(f) == first  # no body read, no kernel compiled
    np.testing.assert_array_equal(saxpy(f, x2, None, 2.0), 2 * x2)  # Y not given: zeros, not the last results
    assert counts(f) == first


def test_what_the_code_depends_on_makes_it_read_again():
    f = Forth(backend="cpu")
    x = np.arange(100, dtype=np.float32)
    saxpy(f, x, np.ones(100, np.float32), 2.0)
    reads, _ = counts(f)
    np.testing.assert_array_equal(saxpy(f, x, np.ones(100, np.float32), 3.0), 3 * x + 1)  # a scalar
    assert counts(f)[0] == reads + 1
    np.testing.assert_array_equal(saxpy(f, x[:50].copy(), np.ones(50, np.float32), 3.0), 3 * x[:50] + 1)  # N
    assert counts(f)[0] == reads + 2
    gemm(f, 0)  # another kernel file in between
    np.testing.assert_array_equal(saxpy(f, x[:50].copy(), np.ones(50, np.float32), 3.0), 3 * x[:50] + 1)
    assert counts(f)[0] == reads + 4


def gemm(f: Forth, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (64, 128)).astype(ml_dtypes.bfloat16)
    bt = rng.integers(-3, 4, (64, 128)).astype(ml_dtypes.bfloat16)
    c = np.full((64, 64), np.nan, np.float32)
    K.run_kernel_file(f, HOPPER, {"M": 64, "N": 64, "KK": 128, "A": a, "BT": bt, "C": c})
    np.testing.assert_array_equal(c, a.astype(np.float32) @ bt.astype(np.float32).T)


def test_the_hopper_demo_again_uses_its_kernel_tensor_maps_and_rings():
    f = Forth(backend="cpu")
    gemm(f, 1)
    first = counts(f)
    gemm(f, 2)  # new A and BT: the tensor maps of the same arrays, refilled
    gemm(f, 3)
    assert counts(f) == first
