"""demos/gemm_hopper.fth (issue 29, point 6): a Hopper GEMM kernel file -- TMA boxes into a two-stage
ring of swizzled tiles completing on mbarriers, a producer and a consumer warpgroup with REGS- / REGS+,
WGMMA m64n64k16 -- exact against numpy on the emulator for integer-valued bf16 inputs, and for sm_90a
what ptxas makes of it: no spills, no wgmma or setmaxnreg warning (C7508 setmaxnreg ignored, C7510
wgmma serialised), HGMMA and UTMALDG in the SASS (tests/sass.py reads it with nvdisasm/cuobjdump)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from tileforth.backends.cuda.ptx import ptxas_path
from tileforth.core import Forth
from tileforth.export.kernelfile import parse_kernel_file, run_kernel_file
from tileforth.export.kernels import kernel_file_ptx
from tileforth.export.launcher import kernel_data

DEMO = Path(__file__).resolve().parents[1] / "demos" / "gemm_hopper.fth"
needs_ptxas = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")


def run(m: int, n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (m, k)).astype(ml_dtypes.bfloat16)
    b = rng.integers(-3, 4, (k, n)).astype(ml_dtypes.bfloat16)
    c = np.full((m, n), np.nan, np.float32)
    spec = parse_kernel_file(DEMO.read_text(), str(DEMO))
    run_kernel_file(Forth(backend="cpu"), spec, {"M": m, "N": n, "KK": k, "A": a, "BT": np.ascontiguousarray(b.T),
                                                "C": c}, grid=(n // 64, m // 64, 1))
    return c, a.astype(np.float32) @ b.astype(np.float32)


@pytest.mark.parametrize("m, n, k", [(64, 64, 64), (128, 64, 192), (64, 192, 320)])
def test_the_demo_multiplies_exactly_on_the_emulator(m, n, k):
    """One k-tile; three (the ring wraps: the producer waits for a freed stage); five, three blocks wide."""
    got, want = run(m, n, k)
    np.testing.assert_array_equal(got, want)


def test_the_demo_at_256_cubed():
    got, want = run(256, 256, 256, seed=3)
    np.testing.assert_array_equal(got, want)


def test_the_launcher_encodes_both_tensor_maps_swizzled():
    spec = parse_kernel_file(DEMO.read_text(), str(DEMO))
    # CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 is 9; swizzle 128: boxes of 64 bf16 = 128-byte rows
    assert kernel_data(spec, "")["TMAPS"] == [("tA", "A", 64, 64, 128, 9), ("tB", "BT", 64, 64, 128, 9)]


@needs_ptxas
def test_ptxas_makes_warpgroup_mma_and_tma_of_it_without_spills_or_warnings(tmp_path):
    import sass
    ptx = kernel_file_ptx(DEMO.read_text(), "sm_90a", str(DEMO), unchecked=True)
    assert ".maxntid 256, 1, 1" in ptx and ".minnctapersm 1" in ptx  # the register cap setmaxnreg needs
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    proc = subprocess.run([ptxas_path(), "-arch=sm_90a", "-v", str(src), "-o", str(tmp_path / "k.cubin")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert not re.search(r"\(C75\d\d\)|warning", proc.stderr), proc.stderr
    assert "0 bytes spill stores, 0 bytes spill loads" in proc.stderr
    ops = [i.opcode.split(".")[0] for i in sum(sass.sass((tmp_path / "k.cubin").read_bytes()).values(), [])]
    assert ops.count("HGMMA") == 4 and ops.count("UTMALDG") == 2 and "SYNCS" in ops


@pytest.mark.parametrize("line, message", [
    ("\\! wg 64 64 16 f32", "write `\\! wg M N K IN`"),
    ("\\! wg 64 60 16 bf16", "WG-SHAPE 64 60 16 is not a warpgroup MMA shape"),
])
def test_a_bad_wg_line_is_an_error_at_its_line(line, message):
    from tileforth.core import ForthError
    text = DEMO.read_text().replace("\\! wg 64 64 16 bf16", line)
    with pytest.raises(ForthError) as exc:
        kernel_file_ptx(text, "sm_90a", "g.fth")  # the header is read, then its setup lines run
    assert message in exc.value.message and exc.value.pos.line == text.splitlines().index(line) + 1


def test_the_tile_words_and_the_warpgroup_words_share_one_input_type():
    from tileforth.core import ForthError
    text = DEMO.read_text().replace("\\! wg 64 64 16 bf16", "\\! tiles 16 8 16 f16\n\\! wg 64 64 16 bf16")
    with pytest.raises(ForthError, match="share TILE-IN; give one type"):
        parse_kernel_file(text, "g.fth")


def test_pipe_shows_the_rings_mbarrier_phases():
    """.PIPE after the demo: in the first block, k-tile kt fills stage kt mod 2 (FULL: 1 arrival, the
    producer's, and 16384 bytes from 2 boxes of 64 x 64 bf16) and frees it (EMPTY: 4 arrivals, one
    per warp of the consumer warpgroup), so each stage's barriers complete one phase per k-tile of theirs, in order."""
    from tileforth.core.session.pipeview import last
    m, n, k = 64, 64, 64 * 5
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (m, k)).astype(ml_dtypes.bfloat16)
    bt = rng.integers(-3, 4, (n, k)).astype(ml_dtypes.bfloat16)
    f = Forth(backend="cpu")
    run_kernel_file(f, parse_kernel_file(DEMO.read_text(), str(DEMO)), {"M": m, "N": n, "KK": k, "A": a, "BT": bt,
                                                                       "C": np.zeros((m, n), np.float32)})
    phases = last(f)["mbarriers"]
    bars = sorted({p["offset"] for p in phases})
    assert len(bars) == 4  # FULL 0, FULL 1, EMPTY 0, EMPTY 1: BARS's four cells
    full, empty = bars[:2], bars[2:]
    kt = k // 64
    for s in (0, 1):
        uses = len(range(s, kt, 2))  # the k-tiles of stage s
        mine = [p for p in phases if p["offset"] == full[s]]
        assert [(p["phase"], p["arrivals"], p["tx_bytes"], p["boxes"]) for p in mine] == \
            [(i, 1, 2 * 64 * 64 * 2, 2) for i in range(uses)]
        mine = [p for p in phases if p["offset"] == empty[s]]
        assert [(p["phase"], p["arrivals"], p["tx_bytes"]) for p in mine] == [(i, 4, 0) for i in range(uses)]
    text = " ".join(f.eval(".PIPE").split())  # (lines wrap at 80 columns)
    assert "mbarriers, phase by phase" in text and "16384 bytes from 2 TMA boxes" in text and "4 arrivals" in text


ARRIVE = "ELECT IF  EMPTY MBAR-ARRIVE  ELSE  DROP  THEN ;"
MISUSES = [
    # one arrival a thread on EMPTY (count 4): 32 phases a k-tile, so the producer waits on a parity that never comes
    (("ELECT IF  EMPTY MBAR-ARRIVE  ELSE  DROP  THEN ;", "EMPTY MBAR-ARRIVE ;"),
     r"MBAR-WAIT in PRODUCE: thread 0 waits for phase 32 \(parity 0\) .*which can never complete"),
    # EMPTY counting the consumer's 128 threads while only its 4 warps arrive: its first phase never completes
    (("EMPTY 4 MBAR-INIT", "EMPTY 128 MBAR-INIT"),
     r"MBAR-WAIT in PRODUCE: .*can never complete: it still needs 124 of its 128 arrivals"),
    # every lane of the producer's first warp announcing the boxes on FULL (count 1): more arrivals than the count
    (("TID-X 0= IF  KT 0 DO  I PRODUCE  LOOP  THEN", "TID-X 32 < IF  KT 0 DO  I PRODUCE  LOOP  THEN"),
     r"MBAR-ARRIVE-TX in PRODUCE: thread 1 arrives on phase 0 .*more arrivals than its count"),
]


@pytest.mark.parametrize("edit, message", MISUSES)
def test_the_rings_arrival_counts_are_checked(edit, message):
    """The demo's EMPTY barriers count one ELECTed arrival per consumer warp (after the warp's WGMMA-WAIT);
    the emulator reports each way of getting the count wrong, as the GPU would hang or overrun the ring."""
    from tileforth.core import ForthError
    old, new = edit
    text = DEMO.read_text()
    assert ARRIVE in text and old in text
    spec = parse_kernel_file(text.replace(old, new), "g.fth")
    m, n, k = 64, 64, 64 * 5
    rng = np.random.default_rng(0)
    args = {"M": m, "N": n, "KK": k, "A": rng.integers(-3, 4, (m, k)).astype(ml_dtypes.bfloat16),
            "BT": rng.integers(-3, 4, (n, k)).astype(ml_dtypes.bfloat16), "C": np.zeros((m, n), np.float32)}
    with pytest.raises(ForthError, match=message):
        run_kernel_file(Forth(backend="cpu"), spec, args)
