"""demos/gemm_hopper128.fth and gemm_hopper256.fth (issue 29): the next Hopper rungs -- a 128 x BN block tile
(BN 128 or 256) from a four-stage ring of swizzled TMA boxes (128 x 64 of A, BN x 64 of BT: 129 or 193 KiB of
dynamic shared memory), one producer and two consumer warpgroups, each WGMMA m64nBNk16 over its 64 rows --
exact against numpy on the emulator for integer-valued bf16 inputs, and for sm_90a what ptxas makes of them: no
spills, no warning, a 384-thread register cap, HGMMA.64xBNx16 and UTMALDG in the SASS (tests/sass.py reads it
with nvdisasm/cuobjdump)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from tileforth.backends.cuda.ptx import ptxas_path
from tileforth.core import Forth
from tileforth.export.kernelfile import block_shared_bytes, parse_kernel_file, run_kernel_file
from tileforth.export.kernels import kernel_file_ptx
from tileforth.export.launcher import kernel_data

DEMOS = Path(__file__).resolve().parents[1] / "demos"
needs_ptxas = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")
TILE, STAGES = 128, 4  # the block's rows (two consumers of 64), the ring's stages
BNS = [128, 256]  # the block's columns: demos/gemm_hopper<BN>.fth


def demo(bn: int) -> Path:
    return DEMOS / f"gemm_hopper{bn}.fth"


def run(bn: int, m: int, n: int, k: int, seed: int = 0, f: Forth | None = None) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, k)).astype(ml_dtypes.bfloat16)
    b = rng.integers(-3, 4, (k, n)).astype(ml_dtypes.bfloat16)
    c = np.full((m, n), np.nan, np.float32)
    spec = parse_kernel_file(demo(bn).read_text(), str(demo(bn)))
    run_kernel_file(f or Forth(backend="cpu"), spec, {"M": m, "N": n, "KK": k, "A": a,
                                                      "BT": np.ascontiguousarray(b.T), "C": c},
                    grid=(n // bn, m // TILE, 1))
    return c, a.astype(np.float32) @ b.astype(np.float32)


@pytest.mark.parametrize("bn", BNS)
@pytest.mark.parametrize("mt, nt, kt", [(1, 1, 1), (1, 2, 5), (2, 1, 8)])
def test_the_demo_multiplies_exactly_on_the_emulator(bn, mt, nt, kt):
    """mt x nt blocks, kt k-tiles: one; five (the ring wraps once: the producer waits for a freed stage); eight,
    two blocks tall."""
    got, want = run(bn, TILE * mt, bn * nt, 64 * kt)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("bn", BNS)
def test_the_demo_at_256_cubed(bn):
    got, want = run(bn, 256, 256, 256, seed=3)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("bn", BNS)
def test_the_ring_is_dynamic_shared_memory_of_the_stages(bn):
    spec = parse_kernel_file(demo(bn).read_text(), str(demo(bn)))
    stage = (TILE + bn) * 64 * 2  # a 128 x 64 bf16 box of A and a BN x 64 one of BT
    assert block_shared_bytes(spec) == 1024 + STAGES * stage  # BARS (64 bytes), then As at 1024, then Bs
    data = kernel_data(spec, "")
    assert data["SHARED_BYTES"] == 1024 + STAGES * stage > 48 * 1024
    assert data["TMAPS"] == [("tA", "A", 128, 64, 128, 9), ("tB", "BT", bn, 64, 128, 9)]  # 9: BFLOAT16
    assert data["BLOCK"] == (384, 1, 1)


@pytest.mark.parametrize("bn", BNS)
def test_pipe_shows_both_consumers_freeing_each_stage(bn):
    from tileforth.core.session.pipeview import last
    f = Forth(backend="cpu")
    k = 64 * 6
    run(bn, 128, bn, k, f=f)
    phases = last(f)["mbarriers"]
    bars = sorted({p["offset"] for p in phases})
    assert len(bars) == 2 * STAGES
    full, empty = bars[:STAGES], bars[STAGES:]
    for s in range(STAGES):
        uses = len(range(s, k // 64, STAGES))
        assert [(p["phase"], p["arrivals"], p["tx_bytes"], p["boxes"]) for p in phases if p["offset"] == full[s]] \
            == [(i, 1, (TILE + bn) * 64 * 2, 2) for i in range(uses)]
        assert [(p["phase"], p["arrivals"]) for p in phases if p["offset"] == empty[s]] == \
            [(i, 8) for i in range(uses)]  # one arrival per warp of the two consumer warpgroups


@needs_ptxas
@pytest.mark.parametrize("bn", BNS)
def test_ptxas_makes_warpgroup_mma_and_tma_of_it_without_spills_or_warnings(tmp_path, bn):
    import sass
    ptx = kernel_file_ptx(demo(bn).read_text(), "sm_90a", str(demo(bn)), unchecked=True)
    assert ".maxntid 384, 1, 1" in ptx and ".minnctapersm 1" in ptx  # the register cap setmaxnreg needs
    assert re.search(r"^\.extern \.shared \.align 1024 \.b8 tf_shared\[\];$", ptx, re.M)
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    proc = subprocess.run([ptxas_path(), "-arch=sm_90a", "-v", str(src), "-o", str(tmp_path / "k.cubin")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert not re.search(r"\(C75\d\d\)|warning", proc.stderr), proc.stderr
    assert "0 bytes spill stores, 0 bytes spill loads" in proc.stderr
    regs = int(re.search(r"Used (\d+) registers", proc.stderr).group(1))
    assert regs <= 65536 // 384  # at entry, every thread of a 384-thread block fits one SM's registers
    ops = [i.opcode for i in sum(sass.sass((tmp_path / "k.cubin").read_bytes()).values(), [])]
    assert sum(o.startswith(f"HGMMA.64x{bn}x16.F32.BF16") for o in ops) == 4
    assert sum(o.startswith("UTMALDG") for o in ops) == 2 and any(o.startswith("SYNCS") for o in ops)


@needs_ptxas
def test_the_guides_table_is_what_the_benchmark_prints():
    """docs/tiles.md's table of the Hopper demos is benchmarks/wgmma_sass.py's output, row for row."""
    import os
    import sys
    root = DEMOS.parent
    doc = (root / "docs" / "tiles.md").read_text()
    rows = [line.strip() for line in doc.splitlines() if re.match(r"    (demo  |gemm_hopper\w*\.fth )", line)]
    assert len(rows) == 4, rows  # the header and the three demos
    r = subprocess.run([sys.executable, str(root / "benchmarks" / "wgmma_sass.py"), "--n", "64"], capture_output=True,
                       text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(root)})
    assert r.returncode == 0, r.stderr
    printed = [line.strip() for line in r.stdout.splitlines()]
    for row in rows:
        assert row in printed, (row, r.stdout)
