"""docs/tiles.md, "The fast GEMM, step by step": each step's product against numpy (the matrices
from the formulas of "A GEMM": element i of GA is ((7i + 5) mod 9) - 4, of GB ((5i + 2) mod 9) - 4),
and what the text says about the pipeline (groups in flight at each wait, BARRIERs per block); for steps 4
and 5 (demos/gemm_async.fth), the compile line and the SASS table the text shows against what the tools
print, and its bank-conflict model against the bank arithmetic written out here."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sass
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


# ---- steps 4 and 5: demos/gemm_async.fth's figures in the text ----------------------------------------
ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "tiles.md").read_text()
STEPS45 = DOC[DOC.index("### Steps 4 and 5"):DOC.index("## mma.sync and ldmatrix")]


def test_the_compile_line_in_the_text_is_what_tileforth_compile_prints(tmp_path):
    sass.require("ptxas")
    line = next(ln.strip() for ln in STEPS45.splitlines() if ln.strip().startswith("demos/gemm_async.fth: sm_90"))
    r = subprocess.run([sys.executable, "-m", "tileforth.repl.cli", "compile", str(ROOT / "demos" / "gemm_async.fth"),
                        "--arch", "sm_90", "--cubin", "--verbose", "-o", str(tmp_path / "g.cubin")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip().endswith(line), (r.stderr, line)


def test_the_sass_table_in_the_text_is_what_sass_mix_reads():
    sass.require("ptxas")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import sass_mix

    rows = {name.split()[-1]: (n, mix) for name, n, mix, _ in sass_mix.async_rows("sm_90")}
    cols = ("HMMA", "LDSM", "LDGSTS", "BAR", "LDS", "LDG", "LD", "MOVM")
    for label, key in (("checked", "checked"), ("`--unchecked`", "unchecked")):
        cells = next(ln for ln in STEPS45.splitlines() if ln.startswith(f"| {label} |")).strip("|").split("|")
        n, mix = rows[key]
        assert [int(c) for c in cells[1:]] == [n] + [mix[c] for c in cols], (label, cells)


def wavefronts(offsets: np.ndarray) -> int:
    """Shared-memory wavefronts of one 8x8 ldmatrix matrix (8 rows of 16 bytes at these byte offsets): 32
    banks of 4 bytes; the most rows that fall on one bank group is how many passes the matrix takes."""
    banks = (offsets[:, None] + np.arange(0, 16, 4)) // 4 % 32
    return int(np.bincount(banks.ravel(), minlength=32).max())


def test_the_bank_conflict_model_in_the_text():
    """As: A's 64-byte rows folded two to a 128-byte row, Bs: 128-byte rows; both 128-byte swizzled (chunk c of
    row r at chunk c XOR (r mod 8)). An a matrix of ldmatrix.x4 is 8 consecutive As rows at one chunk; a b
    matrix of .x2.trans 8 consecutive k rows. Unswizzled, A's 64-byte rows would be 4-way conflicts."""
    r = np.arange(8)
    a = max(wavefronts((r0 + r) * 128 + ((c ^ ((r0 + r) % 8)) * 16)) for r0 in (0, 8, 16) for c in range(8))
    b = max(wavefronts((r0 + r) * 128 + ((c ^ ((r0 + r) % 8)) * 16)) for r0 in (0, 8, 16) for c in range(8))
    plain_a = max(wavefronts(r0 * 64 + r * 64 + c * 16) for r0 in (0, 8, 16) for c in range(4))
    assert (a, b, plain_a) == (1, 1, 4)
    assert "(unswizzled, A's would take 4: a 4-way\n  conflict)" in STEPS45
    per_k16 = 4 * 4 * a + 8 * 2 * b  # 4 ldmatrix.x4 of a (4 matrices), 8 .x2.trans of b (2 matrices)
    flop = 32 * 2 * 16 * 8 * 16  # 32 mma.sync m16n8k16
    assert per_k16 == 32 and "16 + 16 = 32 wavefronts" in STEPS45
    assert flop // per_k16 == 4096 and "4096 FLOP per clock: shared memory is not the bound" in STEPS45
    assert flop // 4096 == 32 and "32 FLOP per LDSM byte" in STEPS45  # 4 KiB of ldmatrix per 16 of k
    assert 2 * 128 * 128 * 32 // (2 * 128 * 32 * 2) == 64 and "64 FLOP per byte" in STEPS45
