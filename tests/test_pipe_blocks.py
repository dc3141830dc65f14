""".PIPE's mbarrier phases for every block of a launch (issue 29): the emulator records each block's completed
phases; .PIPE shows the first block's and says whether the others did the same, `n .PIPE-BLOCK` shows block
n's, and pipeview.last(f, block) gives them as data. The reference: the ring's phases worked out here from the
demo's stated schedule (k-tile kt fills stage kt mod 2, the (kt / 2)-th time), for every block."""
from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.session.pipeview import last
from tileforth.export.kernelfile import parse_kernel_file, run_kernel_file

DEMO = Path(__file__).resolve().parents[1] / "demos" / "gemm_hopper.fth"


def gemm(f: Forth, m: int, n: int, k: int) -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (m, k)).astype(ml_dtypes.bfloat16)
    bt = rng.integers(-3, 4, (n, k)).astype(ml_dtypes.bfloat16)
    c = np.zeros((m, n), np.float32)
    run_kernel_file(f, parse_kernel_file(DEMO.read_text(), str(DEMO)),
                    {"M": m, "N": n, "KK": k, "A": a, "BT": bt, "C": c}, grid=(n // 64, m // 64, 1))
    np.testing.assert_array_equal(c, a.astype(np.float32) @ bt.astype(np.float32).T)


def expected(kt: int) -> list[tuple[str, int, int, int, int]]:
    """Each barrier's phases, (FULL or EMPTY, stage, phase, arrivals, bytes), in barrier then phase order."""
    out = []
    for kind, arrivals, nbytes in (("FULL", 1, 2 * 64 * 64 * 2), ("EMPTY", 4, 0)):
        for s in (0, 1):
            out += [(kind, s, i, arrivals, nbytes) for i in range(len(range(s, kt, 2)))]
    return out


def mine(phases: list[dict]) -> list[tuple[str, int, int, int, int]]:
    bars = sorted({p["offset"] for p in phases})  # FULL 0, FULL 1, EMPTY 0, EMPTY 1: BARS's cells
    name = {off: ("FULL" if i < 2 else "EMPTY", i % 2) for i, off in enumerate(bars)}
    return sorted((*name[p["offset"]], p["phase"], p["arrivals"], p["tx_bytes"]) for p in phases)


def test_every_blocks_phases_are_recorded_and_each_can_be_shown():
    f = Forth(backend="cpu")
    gemm(f, 128, 128, 64 * 3)
    data = last(f)
    assert data["block"] == 0 and {p["block"] for p in data["all_mbarriers"]} == {0, 1, 2, 3}
    for b in range(4):
        got = last(f, b)
        assert got["block"] == b and {p["block"] for p in got["mbarriers"]} == {b}
        assert mine(got["mbarriers"]) == sorted(expected(3))
    text = " ".join(f.eval(".PIPE").split())
    assert "mbarriers, phase by phase, of block 0" in text
    assert "blocks 1-3 completed the same phases, arrivals and bytes" in text
    text = " ".join(f.eval("2 .PIPE-BLOCK").split())
    assert "mbarriers, phase by phase, of block 2" in text and "blocks 0-1, 3 completed the same phases" in text


def test_blocks_that_differ_are_named_and_an_absent_block_is_an_error():
    f = Forth(backend="cpu")
    f.eval("4 1 1 GRID 32 1 1 THREADS 8 SHARED: bar  TID-X 0= IF bar 1 MBAR-INIT MBAR-FENCE bar MBAR-ARRIVE THEN  "
           "bar 0 MBAR-WAIT  BID-X 2 = IF TID-X 0= IF bar MBAR-ARRIVE THEN bar 1 MBAR-WAIT THEN")
    assert [p["phase"] for p in last(f, 2)["mbarriers"]] == [0, 1] and [p["phase"] for p in last(f)["mbarriers"]] == [0]
    text = " ".join(f.eval(".PIPE").split())
    assert "blocks 1, 3 completed the same phases, arrivals and bytes; block 2 other ones" in text
    f.eval("7 CONSTANT KEEP")
    with pytest.raises(ForthError, match=r"block 9 of the last launch made no CP.WAIT and completed no mbarrier phase .*blocks 0-3 did"):
        f.eval("9 .PIPE-BLOCK")
    assert f.eval("KEEP .").strip() == "7"


CP_BLOCKS = ("4 1 1 GRID 32 1 1 THREADS 256 F32 ARRAY g 1 16 F32 2 SMEM-TILE s "
             ": cp ( stage -- ) TID-X 4 < IF TID-X 16 * BID-X 64 * + g + TID-X 16 * 2 PICK s + CP.ASYNC THEN "
             "DROP CP.COMMIT ; "
             "0 cp 0 CP.WAIT  BID-X 2 = IF 1 cp 0 CP.WAIT THEN")


def test_cp_async_waits_are_recorded_per_block_and_follow_pipe_block():
    """The program's schedule: every block copies stage 0 as group 0 and waits for it; block 2 then copies
    stage 1 as group 1 and waits again. So blocks 0, 1, 3 have one wait (stage 0 landed in group 0, stage 1
    empty), block 2 two, its second with both stages landed (groups 0 and 1)."""
    f = Forth(backend="cpu")
    f.eval(CP_BLOCKS)
    one = [(0, [(0, "landed", (0,)), (1, "empty", ())])]
    two = one + [(1, [(0, "landed", (0,)), (1, "landed", (1,))])]
    for b in range(4):
        got = last(f, b)
        assert got["block"] == b and got["wait_blocks"] == [0, 1, 2, 3]
        steps = [(s["index"], [(x["stage"], x["state"], tuple(x["landed_groups"])) for x in s["stages"]])
                 for s in got["steps"]]
        assert steps == (two if b == 2 else one), b
        assert [[w["warp"] for w in s["waits"]] for s in got["steps"]] == [[0]] * len(steps)
    assert last(f)["block"] == 0 and len(last(f)["steps"]) == 1
    text = " ".join(f.eval(".PIPE").split())
    assert text.startswith(".PIPE: block 0 of the last launch") and "wait 2" not in text
    assert "blocks 1, 3 waited the same way, stage by stage; block 2 other ways" in text
    text = " ".join(f.eval("2 .PIPE-BLOCK").split())
    assert text.startswith(".PIPE: block 2 of the last launch") and "wait 2" in text
    assert "s landed g0 landed g1" in text and "blocks 0-1, 3 other ways" in text
    with pytest.raises(ForthError, match=r"block 9 of the last launch made no CP.WAIT and completed no mbarrier "
                                         r"phase .*blocks 0-3 did: give one of those"):
        f.eval("9 .PIPE-BLOCK")


def test_the_colour_view_says_which_blocks_waited_alike():
    from tileforth.core.session.pipeview import make
    from tileforth.repl.pipeview import render_pipe
    f = Forth(backend="cpu")
    f.eval(CP_BLOCKS)
    text = " ".join(" ".join(t.plain for t in render_pipe(make(f, 2), colour=True, width=200)).split())
    assert text.startswith(".PIPE: block 2 of the last launch") and "s landed g0 landed g1" in text
    assert "blocks 0-1, 3 other ways: `n .PIPE-BLOCK` shows block n's waits" in text
