"""docs/tiles.md, "The fast GEMM, step by step": each step's product against numpy (the matrices
from the formulas of "A GEMM": element i of GA is ((7i + 5) mod 9) - 4, of GB ((5i + 2) mod 9) - 4),
and what the text says about the pipeline (groups in flight at each wait, BARRIERs per block)."""
from __future__ import annotations

import numpy as np
import pytest
from test_docs_tiles import DocRun, matrix_from_index

N = 64


@pytest.fixture(scope="module")
def doc() -> DocRun:
    return DocRun()


def reference() -> np.ndarray:
    ga = matrix_from_index(N, N, lambda i: (7 * i + 5) % 9 - 4).astype(np.float64)
    gb = matrix_from_index(N, N, lambda i: (5 * i + 2) % 9 - 4).astype(np.float64)
    return ga @ gb


@pytest.mark.parametrize("name", ["G2", "G3"])
def test_each_step_is_numpys_product(doc, name):
    assert np.array_equal(doc.f.array(name), reference())


def test_the_ring_keeps_two_groups_in_flight_and_halves_the_barriers(doc):
    out = doc.after["step 3: a three-stage cp.async ring"]["out"]
    assert "4 BARRIERs per block" in out
    assert "8 BARRIERs per block" in doc.after["step 2: shared tiles"]["out"]
    steps = [s for s in doc.after["step 3: a three-stage cp.async ring"]["pipe"]["steps"] if s["index"] >= 0]
    assert len(steps) == N // 16 + 1  # a wait per k-step and the last 0 CP.WAIT
    for k, step in enumerate(steps[:-1]):
        assert {w["warp"] for w in step["waits"]} == {0, 1, 2, 3}
        for w in step["waits"]:
            assert list(w["before"]) == [k, k + 1] and list(w["landed"]) == [k]
        ra = {s["stage"]: s for s in step["stages"] if s["tile"] == "RA"}
        assert ra[k % 3]["state"] == "landed" and list(ra[k % 3]["landed_groups"]) == [k]
