"""Issue 28, points 6 and 7 (async copies): .PIPE's record of a pipeline, a launch that ends with
copies in flight, and PROFILE and the race detector on cp.async copies.

References: the groups and stages a two-stage ring must show are worked out here from the program
(stage k mod 2 is filled by group k; a `1 CP.WAIT` after committing group k+1 lands group k); the
bank conflicts of a column of 16-byte chunks are computed here with numpy from the 32-bank,
4-byte-word model and the swizzle formula c XOR (r mod 8); sectors per request from 32-byte sectors.
"""
from __future__ import annotations

import numpy as np
import pytest
from rich.console import Console
from tileforth.core import Forth, ForthError
from tileforth.core.session import pipeview
from tileforth.repl.render import render

RING = ("64 1 1 THREADS  8 16 16 * * F32 ARRAY src  RAMP src  16 16 F32 2 SMEM-TILE ring  256 F32 ARRAY acc  "
        ": fetch ( k -- ) DUP 1024 * src +  64  ROT 2 MOD ring  ring-GEOM STAGE-TILE CP.COMMIT ;  "
        ": add-stage ( s -- ) ring  4 0 DO  DUP TID-X 4 * I 256 * + + SF@  TID-X 4 * I 256 * + acc + "
        "DUP SF@ F+ SF!  LOOP DROP ;")
LOOP = ("0 fetch  4 0 DO  I 3 < IF I 1+ fetch 1 CP.WAIT ELSE 0 CP.WAIT THEN  BARRIER  I 2 MOD add-stage "
        "BARRIER  LOOP")


def test_pipe_shows_each_wait_of_a_two_stage_ring():
    f = Forth(backend="cpu")
    f.eval(RING)
    f.eval(LOOP)
    src = f.array("src").reshape(8, 256)
    assert (f.array("acc") == src[:4].sum(axis=0)).all()
    steps = pipeview.last(f)["steps"]
    assert [s["index"] for s in steps] == [0, 1, 2, 3]
    for k, step in enumerate(steps):
        # every warp: groups k and k+1 in flight (the last wait: only k), group k landed
        want_before = [k, k + 1] if k < 3 else [k]
        for w in step["waits"]:
            assert list(w["before"]) == want_before and list(w["landed"]) == [k] and w["alike"], w
            assert w["n"] == (1 if k < 3 else 0)
        assert [w["warp"] for w in step["waits"]] == [0, 1]
        stages = {s["stage"]: s for s in step["stages"]}
        mine, other = stages[k % 2], stages[(k + 1) % 2]
        assert mine["state"] == "landed" and list(mine["landed_groups"]) == [k] and mine["chunks"] == 64
        if k < 3:
            assert other["state"] == "in flight" and list(other["flight_groups"]) == [k + 1]
    text = f.eval(".PIPE")
    assert "warp 1: 1 CP.WAIT, groups 0,1 in flight: landed 0, 1 left" in text, text
    assert "ring" in text and "flight g1" in text and "landed g0" in text, text


def test_pipe_renders_with_rich_and_as_plain_text():
    f = Forth(backend="cpu")
    f.eval(RING)
    f.eval(LOOP)
    view = pipeview.make(f)
    con = Console(record=True, width=100, force_terminal=True)
    for line in render("pipe", view, width=100, colour=True):
        con.print(line)
    drawn = con.export_text()
    assert "stage 0" in drawn and "stage 1" in drawn and "landed g0" in drawn
    styled = render("pipe", view, width=100, colour=True)
    assert any("yellow" in str(span.style) for t in styled for span in t.spans), "a stage in flight is yellow"
    plain = [t.plain.rstrip() for t in render("pipe", view, width=100, colour=False)]
    assert plain == view.plain(100).rstrip("\n").split("\n")


def test_a_launch_that_ends_with_copies_in_flight_is_an_error_and_pipe_shows_them():
    f = Forth(backend="cpu")
    f.eval(RING)
    with pytest.raises(ForthError) as e:
        f.eval("0 fetch 1 fetch")
    msg = str(e.value)
    assert "the launch ended with 128 cp.async copies in flight that no CP.WAIT landed" in msg, msg
    assert "stage 0 of ring" in msg and "its group 0" in msg and "`0 CP.WAIT`" in msg, msg
    last = pipeview.last(f)["steps"][-1]
    assert last["index"] == -1
    assert {s["stage"]: list(s["flight_groups"]) for s in last["stages"]} == {0: [0], 1: [1]}
    assert f.eval("1 2 + .") == "3 "  # the session goes on
    with pytest.raises(ForthError) as e:  # copies never committed: the same
        f.eval("TID-X 0= IF src 0 ring CP.ASYNC THEN")
    assert "1 cp.async copy in flight" in str(e.value) and "not committed" in str(e.value)


def bank_wavefronts(offsets: np.ndarray, size: int) -> int:
    """numpy's count of shared-memory wavefronts of one warp request (lanes' byte offsets, `size`
    bytes each): phases of 32 * 4 / size lanes; a phase takes the most distinct 4-byte words in one bank."""
    per = 32 if size <= 4 else 32 // (size // 4)
    total = 0
    for p in range(0, 32, per):
        words = {w for o in offsets[p:p + per] for w in range(o // 4, (o + size - 1) // 4 + 1)}
        banks: dict[int, int] = {}
        for w in words:
            banks[w % 32] = banks.get(w % 32, 0) + 1
        total += max(banks.values())
    return total


def test_profile_counts_cp_async_sectors_and_bank_conflicts_with_and_without_the_swizzle():
    """A 64x64 bf16 tile staged by 128 threads into a plain and a swizzled tile, then each lane reads
    chunk 0 of row lane (a column of chunks, 16 bytes: 2@ is two 8-byte loads) from each."""
    f = Forth(backend="cpu")
    f.eval("128 1 1 THREADS  64 64 BF16 MATRIX a  RAMP a  64 64 BF16 1 SMEM-TILE Ps  64 64 BF16 1 SMEM-TILE-SWZ Ss")
    f.eval(": st a 128 0 Ps Ps-GEOM STAGE-TILE a 128 0 Ss Ss-GEOM STAGE-TILE CP.COMMIT 0 CP.WAIT BARRIER ;")
    f.eval(": colp TID-X 32 MOD 128 * 0 Ps + @ DROP ;  : cols TID-X 32 MOD 0 SWIZZLE128 0 Ss + @ DROP ;")
    f.eval(": all st colp cols ;")
    f.eval("PROFILE all")
    sites = f.profile()["sites"]
    cp = [s for s in sites if s["access"] == "cp.async"]
    glob = [s for s in cp if s["space"] == "global"]
    shar = [s for s in cp if s["space"] == "shared"]
    assert len(glob) == 2 and len(shar) == 2
    # 64 rows x 8 chunks = 512 copies per tile, 16 requests of 32 lanes: 32 consecutive 16-byte chunks
    for s in glob:
        assert s["requests"] == 16 and s["size"] == 16 and s["sectors_per_request"] == 16.0
        assert s["ideal_sectors_per_request"] == 16.0
    for s in shar:
        assert s["requests"] == 16 and s["bank_conflicts"] == 0
    lane = np.arange(32)
    plain_off, swz_off = lane * 128, lane * 128 + ((0 ^ (lane % 8)) * 16)
    loads = [s for s in sites if s["access"] == "load" and s["space"] == "shared"]
    by_word = {s["word"].upper(): s for s in loads}
    for word, off in (("COLP", plain_off), ("COLS", swz_off)):
        s = by_word[word]
        want = 4 * bank_wavefronts(off, 8)  # 4 warps, one request each
        assert s["wavefronts"] == want, (word, s)
    assert by_word["COLP"]["bank_conflicts"] > 0 and by_word["COLS"]["bank_conflicts"] < by_word["COLP"]["bank_conflicts"]


def test_the_race_detector_sees_the_copys_global_read():
    f = Forth(backend="cpu")
    f.eval("32 1 1 THREADS 64 F32 ARRAY g 1 16 F32 1 SMEM-TILE e")
    with pytest.raises(ForthError) as e:
        f.eval("TID-X 0= IF g 0 e CP.ASYNC THEN CP.COMMIT 0 CP.WAIT  TID-X 1 = IF 5e g 4 + SF! THEN")
    assert "data race on global memory at g+4: thread 0 read it, then thread 1 wrote it" in str(e.value)
    # the zero-fill form reads n bytes only: a write just past them is no race
    f.eval("TID-X 0= IF g 0 e 4 CP.ASYNC-N THEN CP.COMMIT 0 CP.WAIT  TID-X 1 = IF 5e g 4 + SF! THEN")


def test_stage_tile_n_zero_fills_outside_the_edge_as_numpy_says():
    """A 16x32 f32 tile at the corner of a 13x20 window (rows 0..12, bytes 0..79 of each row are
    inside the matrix), staged swizzle-free by 96 threads: the stage is the window, zeros elsewhere."""
    f = Forth(backend="cpu")
    f.eval("96 1 1 THREADS  16 32 F32 MATRIX m  RAMP m  16 32 F32 1 SMEM-TILE w")
    f.eval("m 128 0 w w-GEOM 13 80 STAGE-TILE-N CP.COMMIT 0 CP.WAIT BARRIER")
    got = f.backend.read(f.backend.shared_regions()[0], 2048).view(np.float32).reshape(16, 32)
    want = np.zeros((16, 32), np.float32)
    want[:13, :20] = f.array("m")[:13, :20]
    assert (got == want).all()


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_stage_tile_n_compiles_for_ptxas_to_ldgsts_with_zero_fill(arch):
    sass = pytest.importorskip("sass")
    sass.require("ptxas")
    from tileforth.export.kernels import word_ptx
    f = Forth()
    f.eval("128 1 1 THREADS  64 64 BF16 MATRIX a  64 64 BF16 2 SMEM-TILE-SWZ As "
           ": edge ( -- ) a 128 0 As As-GEOM 40 72 STAGE-TILE-N CP.COMMIT 0 CP.WAIT BARRIER ;")
    ptx = word_ptx(f, "edge", arch)
    ins = sass.sass(sass.cubin(ptx, arch))["edge"]
    bases = sass.opcodes(ins)
    assert "LDGSTS" in bases and "LDGDEPBAR" in bases and "DEPBAR" in bases, sass.listing(ins)
    assert "LDGSTS.E.BYPASS.128.ZFILL" in [i.opcode for i in ins], sass.listing(ins)  # the src-size form
    assert ", 16, %r" in " ".join(ptx.split()), ptx  # cp.async.cg.shared.global [d], [s], 16, n


def test_pipe_keeps_the_last_launch_that_copied():
    """A line without copies in between (the REPL's `1 2 + .`) does not empty .PIPE."""
    f = Forth(backend="cpu")
    f.eval(RING)
    f.eval(LOOP)
    f.eval("1 2 + .")
    assert len(pipeview.last(f)["steps"]) == 4


def test_the_stages_at_once_are_the_stages_one_by_one(monkeypatch):
    """.PIPE's stages (AsyncCopies._stages: one label per chunk, all stages at once) are what the stage-by-stage
    count gives at every wait of a ring, with copies in flight, landed and never committed (and the launch's
    end with copies left)."""
    from tileforth.backends.cpu.asynccopy import AsyncCopies

    seen = []
    at_once = AsyncCopies._stages

    def both(self, st):
        got = at_once(self, st)
        assert got == self._stages_one_by_one(st)
        seen.append(sum(s.in_flight > 0 for s in got) + sum(s.landed > 0 for s in got))
        return got

    monkeypatch.setattr(AsyncCopies, "_stages", both)
    f = Forth(backend="cpu")
    f.eval(RING)
    f.eval(LOOP)
    with pytest.raises(ForthError):
        f.eval("0 fetch 1 fetch")
    with pytest.raises(ForthError):
        f.eval("TID-X 0= IF src 0 ring CP.ASYNC THEN")
    assert len(seen) >= 6 and max(seen) >= 2  # stages in flight and landed at once
