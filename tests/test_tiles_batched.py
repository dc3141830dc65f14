"""Tile ops batched across warps and blocks (issue 13): the blocks of a launch wait for each other
at warp ops (warpops.run_together) and each tile op runs once for all the warps at it, with one
numpy call (WarpOps._batched). What a line leaves must be what the warp-by-warp path leaves (the
reference: blocks one after another, each warp's op on its own): tile stacks, memory, output and
every error message, bit for bit; and the parallel run must leave what the one-worker run leaves."""
from __future__ import annotations

import re

import numpy as np
import pytest
from tileforth.backends.cpu import backend as cpu_backend
from tileforth.backends.cpu import warpops
from tileforth.core import Forth, ForthError

SETUP = ("64 CONSTANT N  N N F16 MATRIX A  N N F16 MATRIX B  N N F32 MATRIX C  N N BF16 MATRIX H "
         "N N F16 MATRIX CH")
FILL = (": fill-a  N N * TID-X DO  I 7 * 5 + 9 MOD 4 - S>F 8e F/  A I 2 * + HF!  32 +LOOP ; "
        ": fill-b  N N * TID-X DO  I 5 * 2 + 11 MOD 5 - S>F 3e F/  B I 2 * + HF!  32 +LOOP ; "
        ": fill-h  N N * TID-X DO  I 3 * 1 + 13 MOD 6 - S>F 7e F/  H I 2 * + BF!  32 +LOOP ; "
        "fill-a fill-b fill-h")
# a warp's tile of C: warps of a block take consecutive tiles; blocks along x
WARP_WORDS = (": wid ( -- w )  BID-X BDIM-X 32 / * TID-X 32 / + ; "
              ": row0 ( -- r )  wid N 16 / / 16 * ;  : col0 ( -- c )  wid N 16 / MOD 16 * ; "
              ": a-at ( k -- addr )  row0 N * + 2 * A + ;  : b-at ( k -- addr )  N * col0 + 2 * B + ; "
              ": c-at ( -- addr )  row0 N * col0 + 4 * C + ;  : h-at ( k -- addr )  row0 N * + 2 * H + ; ")

PROGRAMS = {
    # 16 warps, 4 per block: batched across the warps of a block and across blocks
    "gemm": "4 1 1 GRID 128 1 1 THREADS : gemm TZERO N 0 DO I a-at N TLOAD-A I b-at N TLOAD-B TMMA 16 +LOOP "
            "c-at N TSTORE ; gemm",
    # column-major operands, an accumulator loaded from C, TSCALE, T+, TFILL, TDUP TSWAP TOVER TROT TROLL
    "all_ops": "8 1 1 GRID 64 1 1 THREADS : ops c-at N TLOAD-C 0 a-at N TLOAD-A-COL 0 b-at N TLOAD-B-COL TMMA "
               "wid S>F 0.25e F* TFILL T+ 1.5e TSCALE TDUP TZERO TSWAP TOVER TROT T+ T+ TZERO TSWAP 2 TROLL "
               "TDROP T+ wid 1+ S>F TFILL T+ c-at N TSTORE ; ops",
    # blocks at different tile ops in one step (two ops per step), tiles left on the stack after the line
    "by_block": "16 1 1 GRID 32 1 1 THREADS : two BID-X 3 MOD IF TZERO ELSE BID-X S>F TFILL THEN "
                "BID-X 2 MOD IF 0 a-at N TLOAD-A 0 b-at N TLOAD-B ELSE 16 a-at N TLOAD-A 16 b-at N TLOAD-B THEN "
                "TMMA ; two",
    # loads from two arrays in one op
    "two_arrays": "16 1 1 GRID 32 1 1 THREADS : two-arrays TZERO 0 wid 1 AND IF A ELSE B THEN wid 16 * 2 * + N "
                  "TLOAD-A 0 b-at N TLOAD-B TMMA c-at N TSTORE ; two-arrays",
    "bf16": "BF16 TILE-IN 16 1 1 GRID 32 1 1 THREADS : hh TZERO 0 h-at N TLOAD-A 16 h-at N TLOAD-B TMMA "
            "16 h-at N TLOAD-A 0 h-at N TLOAD-B TMMA c-at N TSTORE ; hh F16 TILE-IN",
    "f16_acc": "F16 TILE-ACC 16 1 1 GRID 32 1 1 THREADS : hacc TZERO N 0 DO I a-at N TLOAD-A I b-at N TLOAD-B TMMA "
               "16 +LOOP 0.5e TSCALE row0 N * col0 + 2 * CH + N TSTORE ; hacc F32 TILE-ACC",
    # output around tile ops, from every block
    "output": "8 1 1 GRID 64 1 1 THREADS : talk GLOBAL-ID . TZERO 2e TFILL T+ GLOBAL-ID 3 MOD . TDROP ; talk",
    # shuffles and votes between tile ops, blocks gathered
    "warp_ops": "8 1 1 GRID 64 1 1 THREADS : mix TZERO GLOBAL-ID 1 SHFL-XOR TID-X 1 AND 0= BALLOT TDROP ; mix",
    # every shuffle, batched over all the warps of the launch (WarpOps._warp_ops), results on the stacks
    "shuffles": "8 1 1 GRID 96 1 1 THREADS : sh GLOBAL-ID 7 * DUP 37 SHFL-IDX OVER 3 SHFL-UP + OVER 2 SHFL-DOWN + "
                "OVER 9 SHFL-XOR +  GLOBAL-ID S>F 1.5e F* 33 FSHFL-DOWN F>S  GLOBAL-ID -5 * 31 SHFL-UP ; sh",
    # votes and SYNCWARP (the race detector's clock), flags from every lane
    "votes": "8 1 1 GRID 64 1 1 THREADS : vo GLOBAL-ID 3 MOD 0= DUP BALLOT SWAP DUP ANY SWAP ALL  TID-X 40 < ALL "
             "TID-X 100 < ANY  BID-X 2 = TID-X 63 = AND BALLOT  SYNCWARP  GLOBAL-ID 0< ANY ; vo",
    # ACTIVEMASK (no synchronisation: warp by warp) before a shuffle every lane reaches
    "activemask": "8 1 1 GRID 64 1 1 THREADS : am TID-X 16 < IF ACTIVEMASK ELSE 0 THEN 1 SHFL-XOR ; am",
    # shared memory: blocks one after another (one region per worker), warps still batched
    "shared": "4 1 1 GRID 128 1 1 THREADS 1024 SHARED: sh : sgemm TID-X sh TID-X CELLS + ! BARRIER TZERO "
              "N 0 DO I a-at N TLOAD-A I b-at N TLOAD-B TMMA 16 +LOOP c-at N TSTORE ; sgemm",
}

ERRORS = {
    "divergent": "8 1 1 GRID 32 1 1 THREADS : d BID-X 3 = BID-X 6 = OR TID-X 8 < AND IF TZERO TDROP THEN ; d",
    "disagree": "8 1 1 GRID 64 1 1 THREADS : dis TZERO BID-X 4 > IF TID-X ELSE 0 THEN S>F TFILL ; dis",
    "misaligned": "8 1 1 GRID 32 1 1 THREADS : mis BID-X 5 = IF A 2 + ELSE A THEN N TLOAD-A ; mis",
    "outside": "8 1 1 GRID 32 1 1 THREADS : far A BID-X 6 = IF N N * 2 * + THEN N TLOAD-A ; far",
    "typed": "8 1 1 GRID 32 1 1 THREADS : ty BID-X 2 > IF C ELSE A THEN N TLOAD-A ; ty",
    "stride": "8 1 1 GRID 32 1 1 THREADS : str A BID-X 4 = IF 8 ELSE N THEN TLOAD-A ; str",
    "partial_warp": "4 1 1 GRID 48 1 1 THREADS TZERO",
    "divergent_shuffle": "8 1 1 GRID 64 1 1 THREADS : dsh BID-X 5 = TID-X 3 < AND IF 1 1 SHFL-XOR DROP THEN ; dsh",
    "shuffle_past_the_warp": "4 1 1 GRID 48 1 1 THREADS GLOBAL-ID 20 SHFL-DOWN",
    "error_with_output": "8 1 1 GRID 32 1 1 THREADS : eo GLOBAL-ID . TZERO BID-X 5 = IF 0 @ DROP THEN TDROP "
                         "GLOBAL-ID . ; eo",
}


def reference(monkeypatch) -> None:
    """Warp by warp, blocks one after another: the path before batching."""
    monkeypatch.setattr(cpu_backend, "gathers", lambda *a: False)
    monkeypatch.setattr(warpops.WarpOps, "_batched", lambda self, *a: False)


def session(workers: int = 1) -> Forth:
    f = Forth(backend="cpu")
    f.backend.workers = workers
    f.eval(SETUP)
    f.eval(FILL)
    f.eval(WARP_WORDS)
    return f


def observe(f: Forth, text: str) -> dict:
    try:
        out, err = f.eval(text), None
    except ForthError as exc:
        out, err = getattr(exc, "output", None), str(exc)
    return {"out": out, "err": err, "tiles": f.backend.get_tiles(), "ds": f.data_stack(lane=None),
            "arrays": {name: f.array(name).copy() for name in ("C", "CH")}}


def addresses_out(text: str | None) -> str | None:
    """Error text without its addresses (each session allocates its own)."""
    return None if text is None else re.sub(r"\$[0-9a-f]+", "$…", text)


def same(a: dict, b: dict) -> None:
    assert addresses_out(a["err"]) == addresses_out(b["err"])
    assert a["out"] == b["out"]
    assert a["ds"] == b["ds"]
    assert len(a["tiles"]) == len(b["tiles"])
    for x, y in zip(a["tiles"], b["tiles"]):
        assert len(x) == len(y)
        for s, t in zip(x, y):
            assert s.dtype == t.dtype and s.shape == t.shape
            np.testing.assert_array_equal(s.view(np.uint8), t.view(np.uint8))  # bit for bit
    for k in a["arrays"]:
        np.testing.assert_array_equal(a["arrays"][k].view(np.uint8), b["arrays"][k].view(np.uint8))


def both(text: str, monkeypatch) -> tuple[dict, dict]:
    batched = observe(session(), text)
    with monkeypatch.context() as m:
        reference(m)
        one_by_one = observe(session(), text)
    return batched, one_by_one


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_batched_launch_leaves_what_warp_by_warp_leaves(name, monkeypatch):
    batched, one_by_one = both(PROGRAMS[name], monkeypatch)
    assert batched["err"] is None, batched["err"]
    same(batched, one_by_one)


@pytest.mark.parametrize("name", ERRORS)
def test_errors_are_worded_as_warp_by_warp(name, monkeypatch):
    batched, one_by_one = both(ERRORS[name], monkeypatch)
    assert batched["err"] is not None
    same(batched, one_by_one)


def test_the_lowest_failing_block_is_reported():
    f = session()
    with pytest.raises(ForthError, match=r"divergent warp in block 3 \(warp 0\)"):
        f.eval(ERRORS["divergent"])
    with pytest.raises(ForthError, match="lanes of warp 10 disagree"):
        session().eval(ERRORS["disagree"])


@pytest.mark.parametrize("name", ["gemm", "by_block", "output", "warp_ops", "shuffles", "votes"])
def test_parallel_runs_leave_what_one_worker_leaves(name, monkeypatch):
    monkeypatch.setattr(cpu_backend, "PARALLEL_THREADS", 0)
    monkeypatch.setattr(warpops, "GATHER_BLOCKS_PER_WORKER", 1)  # gathered ranges on several workers
    same(observe(session(1), PROGRAMS[name]), observe(session(3), PROGRAMS[name]))


@pytest.mark.parametrize("name", ["divergent", "typed", "error_with_output"])
def test_parallel_errors_are_the_one_worker_errors(name, monkeypatch):
    monkeypatch.setattr(cpu_backend, "PARALLEL_THREADS", 0)
    monkeypatch.setattr(warpops, "GATHER_BLOCKS_PER_WORKER", 1)
    same(observe(session(1), ERRORS[name]), observe(session(3), ERRORS[name]))


def per_tmma(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(0, a.shape[1], 16):
        acc = (acc.astype(np.float64) + a[:, k:k + 16].astype(np.float64) @ b[k:k + 16].astype(np.float64)
               ).astype(np.float32)
    return acc


def test_a_random_gemm_is_rounded_once_per_tmma():
    rng = np.random.default_rng(13)
    a = rng.uniform(-1, 1, (64, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (64, 64)).astype(np.float16)
    f = session()
    f.set_array("A", a)
    f.set_array("B", b)
    f.eval(PROGRAMS["gemm"])
    np.testing.assert_array_equal(f.array("C").view(np.uint32), per_tmma(a, b).view(np.uint32))


def test_one_numpy_call_per_op_per_launch_step(monkeypatch):
    calls = []
    real = warpops.WarpOps._perform_batch
    monkeypatch.setattr(warpops.WarpOps, "_perform_batch",
                        lambda self, op, plan, stack, n: (calls.append(n), real(self, op, plan, stack, n))[1])
    f = session()
    f.eval("8 1 1 GRID 128 1 1 THREADS TZERO 2e TFILL T+")
    assert calls == [32, 32, 32]  # 32 warps in 8 blocks, three ops
    assert all(len(w) == 1 and w[0][0, 0] == 2.0 for w in f.backend.get_tiles())


def test_blocks_with_shared_memory_are_not_gathered(monkeypatch):
    f = session()
    f.eval("4 1 1 GRID 32 1 1 THREADS")
    assert warpops.gathers(f.backend, f.backend.ctx) or f.backend.ctx[13] == 0
    f.eval("64 SHARED: scratch")
    ctx = np.zeros_like(f.backend.ctx)
    ctx[13] = 64
    assert not warpops.gathers(f.backend, ctx)


def test_gathered_launches_take_a_worker_per_512_blocks():
    assert warpops.gathered_chunks(256, 2) == [(0, 256)]
    assert warpops.gathered_chunks(1024, 2) == [(0, 512), (512, 1024)]
    assert warpops.gathered_chunks(4096, 3) == [(0, 1365), (1365, 2730), (2730, 4096)]


def test_several_workers_really_ran_the_gathered_blocks(monkeypatch):
    monkeypatch.setattr(cpu_backend, "PARALLEL_THREADS", 0)
    monkeypatch.setattr(warpops, "GATHER_BLOCKS_PER_WORKER", 1)
    ranges = []
    real = warpops.run_together
    monkeypatch.setattr(cpu_backend, "run_together",
                        lambda be, handle, ctx, lo, hi, sites: (ranges.append((lo, hi)), real(be, handle, ctx, lo, hi,
                                                                                               sites))[1])
    session(3).eval(PROGRAMS["gemm"])
    assert sorted(ranges) == [(0, 1), (1, 2), (2, 4)]


def _warp_ops_reference(thr: np.ndarray, k: int) -> np.ndarray | None:
    """What tf_warp_ops must find, in numpy: every thread at the first one's site waiting, and each
    warp's lanes with lane 0's k operands (then those operands, one row per warp)."""
    from tileforth.core.compile import layout as L

    status, site = thr[:, L.T_STATUS], thr[:, L.T_SITE]
    ops = thr[:, L.T_OP:L.T_OP + k].reshape(len(thr) // warpops.WARP, warpops.WARP, k)
    if (status != L.ST_WARP).any() or (site != site[0]).any() or (ops != ops[:, :1]).any():
        return None
    return ops[:, 0]


@pytest.mark.parametrize("case", ["uniform", "status", "site", "operand", "last_lane", "no_operands"])
def test_the_native_check_of_a_step_is_numpys(case):
    """tf_warp_ops (tileforth/backends/cpu/scheduler.py), _batched's one pass over the thread records in the
    common case, against numpy on records that break each of its conditions once."""
    from tileforth.core.compile import layout as L

    rt = cpu_backend.runtime()
    rng = np.random.default_rng(7)
    n, k = 4 * warpops.WARP, 0 if case == "no_operands" else 2
    thr = rng.integers(-99, 99, (n, L.THR_SLOTS)).astype(np.int64)
    thr[:, L.T_STATUS], thr[:, L.T_SITE] = L.ST_WARP, 5
    for w in range(n // warpops.WARP):  # each warp's lanes pass their lane 0's operands
        thr[w * warpops.WARP:(w + 1) * warpops.WARP, L.T_OP:L.T_OP + 2] = rng.integers(0, 1 << 40, 2)
    where = {"status": (70, L.T_STATUS, L.ST_BARRIER), "site": (33, L.T_SITE, 6), "operand": (77, L.T_OP + 1, -1),
             "last_lane": (n - 1, L.T_OP, 3)}.get(case)
    if where:
        thr[where[0], where[1]] = where[2]
    expected = _warp_ops_reference(thr, k)
    ops = np.full((n // warpops.WARP, k), -7, np.int64)
    code = rt.warp_ops(thr.ctypes.data, n, k, ops.ctypes.data)
    assert code == (1 if expected is None else 0)
    if expected is not None:
        np.testing.assert_array_equal(ops, expected)


@pytest.mark.parametrize("word,b", [("SHFL-IDX", 37), ("SHFL-UP", 3), ("SHFL-DOWN", 5), ("SHFL-XOR", 9),
                                    ("SHFL-UP", 33), ("SHFL-DOWN", 40)])
def test_shuffles_of_every_warp_at_once_are_numpys(word, b, monkeypatch):
    """Shuffles batched over the warps of a gathered launch (WarpOps._warp_ops, never warp by warp),
    against numpy: the source lane of each mode, from the operand's low 5 bits as PTX's shfl.sync
    takes it (bval = b[4:0]), and a lane's own value where the source is outside the warp (CUDA's
    __shfl_up/down_sync with a width of 32)."""
    monkeypatch.setattr(warpops.WarpOps, "_warp_op", lambda *a: pytest.fail("a warp shuffled on its own"))
    f = session()
    f.eval(f"8 1 1 GRID 96 1 1 THREADS  GLOBAL-ID 7 * 11 + {b} {word}")
    x = (np.arange(8 * 96) * 7 + 11).reshape(-1, 32)
    lane, m = np.arange(32), b & 31
    src = {"SHFL-IDX": np.full(32, m), "SHFL-UP": lane - m, "SHFL-DOWN": lane + m, "SHFL-XOR": lane ^ m}[word]
    src = np.where((src >= 0) & (src < 32), src, lane)
    assert [row[-1] for row in f.data_stack(lane=None)] == x[:, src].ravel().tolist()


def test_votes_of_every_warp_at_once_are_numpys(monkeypatch):
    monkeypatch.setattr(warpops.WarpOps, "_warp_op", lambda *a: pytest.fail("a warp voted on its own"))
    f = session()
    f.eval("8 1 1 GRID 64 1 1 THREADS  GLOBAL-ID 5 MOD 0= DUP BALLOT SWAP DUP ANY SWAP ALL")
    flags = (np.arange(8 * 64) % 5 == 0).reshape(-1, 32)
    ballot = (flags * (1 << np.arange(32))).sum(axis=1)
    expected = [[int(ballot[w]), -int(flags[w].any()), -int(flags[w].all())] for w in range(len(flags)) for _ in range(32)]
    assert f.data_stack(lane=None) == expected


# ---- copies armed (issue 28): tile ops still batched, the copy model's checks still exact ----------
# 4 warps; warp w stages rows 16w..16w+15 of ga (its lane L: row 16w + L/2, chunk L mod 2) into a 64x16
# f16 shared tile (my-copy), or of gh into the first two chunks of the rows of a swizzled 64x64 bf16 one
# (my-swz-copy), and reads them back: its own copies, which need no BARRIER after its wait
ASYNC_SETUP = ("128 1 1 THREADS  64 16 F16 MATRIX ga  RAMP ga  64 16 F16 1 SMEM-TILE st  64 64 BF16 2 SMEM-TILE sw "
               "64 64 BF16 MATRIX gh  RAMP gh  64 64 F32 MATRIX gc "
               ": warp ( -- w )  TID-X 32 / ; "
               ": my-row ( -- r )  warp 16 *  TID-X 31 AND 2/ + ; "
               ": my-copy ( -- )  my-row 32 * TID-X 1 AND 16 * +  DUP ga +  SWAP 0 st +  CP.ASYNC ; "
               ": my-swz-copy ( -- )  my-row 128 * TID-X 1 AND 16 * + gh +  my-row TID-X 1 AND SWIZZLE128 0 sw +  "
               "CP.ASYNC ; ")
ASYNC_PROGRAMS = {
    # every warp waits for its own group, then TLOAD-A and TLOAD-B of its rows (a shared tile), TMMA, TSTORE
    "own_rows": ASYNC_SETUP + ": own  CP.COMMIT my-copy CP.COMMIT 0 CP.WAIT  TZERO warp 16 * 16 * 2* 0 st + 16 "
                "TLOAD-A  warp 16 * 16 * 2* 0 st + 16 TLOAD-B  TMMA  warp 16 * 64 * 4 * gc + 64 TSTORE ; own",
    # the ldmatrix kind: STAGE-TILE of gh into both stages of a swizzled tile, each waited for and BARRIERed,
    # TLDSM-A and TLDSM-B of every warp (its own 16 rows), two TMMAs, the result stored lane by lane
    "ldmatrix": ASYNC_SETUP + "16 8 16 TILE-SHAPE BF16 TILE-IN : two-stages  gh 128 0 sw sw-GEOM STAGE-TILE CP.COMMIT "
                "gh 128 1 sw sw-GEOM STAGE-TILE CP.COMMIT  TZERO  1 CP.WAIT BARRIER "
                "0 sw warp 16 * 0 sw-GEOM TLDSM-A  0 sw 0 8 sw-GEOM TLDSM-B TMMA "
                "0 CP.WAIT BARRIER  1 sw warp 16 * 16 sw-GEOM TLDSM-A  1 sw 16 8 sw-GEOM TLDSM-B TMMA "
                "4 0 DO  warp 16 * I TROW + 64 *  I TCOL 8 + +  4 * gc +  I TLANE@ SF!  LOOP TDROP ; two-stages",
    # b from an n-major tile (TLDSM-B-COL) under a 1x4 grid: four b fragments 8 rows of the tile apart
    "ldmatrix_col": ASYNC_SETUP + "16 8 16 TILE-SHAPE BF16 TILE-IN 1 4 TILE-GRID : colb  gh 128 0 sw sw-GEOM "
                    "STAGE-TILE CP.COMMIT 0 CP.WAIT BARRIER  TZERO 0 sw warp 16 * 0 sw-GEOM TLDSM-A  0 sw 8 16 sw-GEOM "
                    "TLDSM-B-COL TMMA  16 0 DO  warp 16 * I TROW + 64 *  I TCOL + 4 * gc +  I TLANE@ SF!  LOOP TDROP ; "
                    "colb 1 1 TILE-GRID",
    # every warp reads the same 64 rows of one stage (a 4x1 grid of a fragments) at two columns: each chunk's
    # last two readers are two warps (the copy model's reads shadow)
    "ldmatrix_shared": ASYNC_SETUP + "16 8 16 TILE-SHAPE BF16 TILE-IN 4 1 TILE-GRID : same-rows  gh 128 0 sw sw-GEOM "
                       "STAGE-TILE CP.COMMIT 0 CP.WAIT BARRIER  0 sw 0 0 sw-GEOM TLDSM-A  0 sw 0 8 sw-GEOM TLDSM-A "
                       "TDROP TDROP ; same-rows 1 1 TILE-GRID",
}
ASYNC_ERRORS = {
    # warp 2 waits with a count of 1, which leaves its copies in flight: only its load is an error
    "one_warp_unlanded": ASYNC_SETUP + ": early  CP.COMMIT my-copy CP.COMMIT  warp 2 = IF 1 CP.WAIT ELSE "
                         "0 CP.WAIT THEN  warp 16 * 16 * 2* 0 st + 16 TLOAD-A TDROP  0 CP.WAIT ; early",
    # warps 1 and 3 read the rows warp 0's and warp 2's copies filled, with no BARRIER after those waits
    "other_warps_unsynced": ASYNC_SETUP + ": theirs  CP.COMMIT my-copy CP.COMMIT 0 CP.WAIT  warp 1 AND IF "
                            "warp 1- ELSE warp THEN 16 * 16 * 2* 0 st + 16 TLOAD-A TDROP ; theirs",
    # ldmatrix: warp 3 reads its rows of a swizzled stage before its own copies into them landed
    "ldmatrix_unlanded": ASYNC_SETUP + "16 8 16 TILE-SHAPE BF16 TILE-IN : half  CP.COMMIT my-swz-copy CP.COMMIT "
                         "warp 3 = IF 1 CP.WAIT ELSE 0 CP.WAIT THEN BARRIER  0 sw warp 16 * 0 sw-GEOM TLDSM-A "
                         "TDROP 0 CP.WAIT ; half",
}
ASYNC_SAYS = {
    "one_warp_unlanded": "TLOAD-A in early: the warp of threads 64-95 reads stage 0 of st (row 32, bytes 0..15 of "
                         "the row) before the cp.async copy into it landed: it is thread 64's copy, its group 1",
    "other_warps_unsynced": "TLOAD-A in theirs: the warp of threads 32-63 reads stage 0 of st (row 0, bytes 0..15 "
                            "of the row), which thread 0's cp.async copy filled at its wait, with no BARRIER since",
    "ldmatrix_unlanded": "TLDSM-A in half: the warp of threads 96-127 reads stage 0 of sw (row 48, bytes 0..15 of "
                         "the row) before the cp.async copy into it landed: it is thread 96's copy, its group 1",
}


def slow_steps(monkeypatch) -> list:
    """Record each step that went warp by warp (WarpOps._run_block_slow): its block."""
    calls: list = []
    real = warpops.WarpOps._run_block_slow
    monkeypatch.setattr(warpops.WarpOps, "_run_block_slow", lambda self, b: (calls.append(b), real(self, b))[1])
    return calls


@pytest.mark.parametrize("name", ASYNC_PROGRAMS)
def test_with_copies_armed_tile_ops_are_batched_and_leave_what_warp_by_warp_leaves(name, monkeypatch):
    with monkeypatch.context() as m:
        slow = slow_steps(m)
        f = session()
        batched = observe(f, ASYNC_PROGRAMS[name])
        batched_pipe = f.eval(".PIPE")
    assert batched["err"] is None, batched["err"]
    assert slow == [], f"{len(slow)} steps went warp by warp"  # every warp at one op in every step
    with monkeypatch.context() as m:
        reference(m)
        f = session()
        one_by_one = observe(f, ASYNC_PROGRAMS[name])
        assert f.eval(".PIPE") == batched_pipe
    same(batched, one_by_one)


def copy_shadows(f: Forth) -> dict:
    """The copy model's shadows of the last launch (asynccopy.Launch): per chunk its copy or landed marker, last
    two readers and last writer."""
    st = f.backend.asyncs.launch_of(f.backend.ctx)  # (worker 0's context: the sessions run one worker)
    return {"pending": st.pending.copy(), "reads": st.reads.copy(), "writes": st.writes.copy()}


@pytest.mark.parametrize("name", ASYNC_PROGRAMS)
def test_batched_tile_reads_note_the_readers_warp_by_warp_notes(name, monkeypatch):
    """The shadows a batched step leaves (note_reads: one op's warps one after another; the landed-marker
    check) are those of the warp-by-warp path, which notes each warp's rows through check_tile/rows_landed."""
    f = session()
    assert observe(f, ASYNC_PROGRAMS[name])["err"] is None
    batched = copy_shadows(f)
    assert (batched["reads"] != 0).any()
    with monkeypatch.context() as m:
        reference(m)
        g = session()
        observe(g, ASYNC_PROGRAMS[name])
        one_by_one = copy_shadows(g)
    for k in batched:  # the shadows hold thread numbers and epochs only (no addresses): bit for bit
        np.testing.assert_array_equal(batched[k], one_by_one[k], err_msg=k)


@pytest.mark.parametrize("name", ASYNC_ERRORS)
def test_a_batched_read_of_an_unlanded_stage_names_the_warp_that_read_it(name, monkeypatch):
    declined = []
    real = warpops.WarpOps._async_batched
    monkeypatch.setattr(warpops.WarpOps, "_async_batched",
                        lambda self, plans, first: (r := real(self, plans, first), declined.append(r is None))[0])
    batched, one_by_one = both(ASYNC_ERRORS[name], monkeypatch)
    assert ASYNC_SAYS[name] in (batched["err"] or ""), batched["err"]
    assert True in declined  # the batched check found it, and the warp-by-warp path worded it
    same(batched, one_by_one)


def test_the_batched_programs_compute_what_numpy_does():
    f = session()
    f.eval(ASYNC_PROGRAMS["own_rows"])
    a = f.array("ga").astype(np.float64)
    c = f.array("gc")
    for w in range(4):  # warp w: its 16 rows of ga times themselves
        np.testing.assert_array_equal(c[16 * w:16 * w + 16, :16], a[16 * w:16 * w + 16] @ a[16 * w:16 * w + 16])
    f = session()
    f.eval(ASYNC_PROGRAMS["ldmatrix"])
    h = f.array("gh").astype(np.float32)  # both stages hold gh
    c = f.array("gc")
    for w in range(4):  # warp w: rows 16w.. of gh, k 0..31, times rows 0..31 of gh, columns 8..15; two TMMAs
        np.testing.assert_array_equal(c[16 * w:16 * w + 16, 8:16], per_tmma(h[16 * w:16 * w + 16, :32], h[:32, 8:16]))
    f = session()
    f.eval(ASYNC_PROGRAMS["ldmatrix_col"])
    h = f.array("gh").astype(np.float32)
    c = f.array("gc")
    for w in range(4):  # warp w: rows 16w.. of gh, k 0..15, times (rows 8..39 of gh, columns 16..31) transposed
        np.testing.assert_array_equal(c[16 * w:16 * w + 16, :32], per_tmma(h[16 * w:16 * w + 16, :16], h[8:40, 16:32].T))
