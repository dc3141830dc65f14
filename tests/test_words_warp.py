"""Warp shuffles and votes (issue 12): SHFL-IDX SHFL-UP SHFL-DOWN SHFL-XOR on
cells, their FSHFL- forms on floats, BALLOT ANY ALL ACTIVEMASK SYNCWARP.

Results are compared per thread with a model of CUDA's semantics written
here, lane by lane (`cuda_shuffle`, `cuda_ballot`), on launches of two warps
and of several blocks. Errors: a warp op that not every lane of the warp
reaches is a divergent warp (the word, its position and the lanes), and a
shuffle reading a lane a partial warp does not have is refused. PTX is
checked with ptxas for sm_80 and sm_90, as tests/test_ptx.py does.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from forthtest import raises
from test_float64 import run_f64
from tileforth.backends.cuda.ptx import ptxas, ptxas_path
from tileforth.core import Forth, ForthError
from tileforth.export.kernels import segment_ptx, word_ptx

WARP = 32
ARCHS = ("sm_80", "sm_90")
needs_ptxas = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")
TWO_WARPS = "1 1 1 GRID 64 1 1 THREADS"
BLOCKS = "4 1 1 GRID 64 1 1 THREADS"
LAUNCHES = (TWO_WARPS, BLOCKS)
MODES = {"SHFL-IDX": "idx", "SHFL-UP": "up", "SHFL-DOWN": "down", "SHFL-XOR": "xor"}


# ------------------------------------------------------------------ the model

def cuda_shuffle(mode: str, x: np.ndarray, b: np.ndarray) -> np.ndarray:
    """__shfl_*_sync(0xffffffff, x, b) for every thread of blocks whose size is a
    multiple of 32, lane by lane: idx reads lane b mod 32, xor lane ^ b, up
    lane - b and down lane + b when that lane is in the warp (else its own)."""
    out = np.empty_like(x)
    for t in range(len(x)):
        base, lane, d = t - t % WARP, t % WARP, int(b[t]) % WARP
        if mode == "idx":
            src = d
        elif mode == "xor":
            src = lane ^ d
        elif mode == "up":
            src = lane - d if lane >= d else lane
        else:
            src = lane + d if lane + d < WARP else lane
        out[t] = x[base + src]
    return out


def cuda_ballot(pred: np.ndarray) -> np.ndarray:
    """__ballot_sync(0xffffffff, pred): per thread, the mask of its warp."""
    out = np.zeros(len(pred), dtype=np.int64)
    for t in range(len(pred)):
        base = t - t % WARP
        out[t] = sum(1 << lane for lane in range(WARP) if pred[base + lane])
    return out


def test_the_model_on_known_values():
    x = np.arange(64) * 10
    assert cuda_shuffle("up", x, np.full(64, 2))[[0, 1, 2, 33, 34]].tolist() == [0, 10, 0, 330, 320]
    assert cuda_shuffle("down", x, np.full(64, 2))[[29, 30, 31, 32]].tolist() == [310, 300, 310, 340]
    assert cuda_shuffle("idx", x, np.full(64, 35))[[0, 40]].tolist() == [30, 350]
    assert cuda_shuffle("xor", x, np.full(64, 1))[[0, 1, 63]].tolist() == [10, 0, 620]
    assert cuda_ballot(np.arange(64) % 32 < 3).tolist() == [7] * 64


# ------------------------------------------------------------------ sessions

@pytest.fixture(scope="module")
def sessions() -> dict[str, Forth]:
    return {launch: Forth(backend="cpu") for launch in LAUNCHES}


def run(f: Forth, launch: str, line: str) -> None:
    f.eval(f"CLEARSTACK {launch}")
    f.eval(line)


def cells(f: Forth) -> np.ndarray:
    """Each thread's one cell, in thread order."""
    rows = f.data_stack(lane=None)
    assert all(len(r) == 1 for r in rows), rows[:3]
    return np.array([r[0] for r in rows], dtype=np.int64)


def gids(launch: str) -> np.ndarray:
    blocks, threads = (int(w) for w in re.findall(r"\d+", launch)[::3][:2])
    return np.arange(blocks * threads)


def tids(launch: str) -> np.ndarray:
    return gids(launch) % 64


# values beyond 32 bits and negative, different in every thread of the launch
VALUE = "GLOBAL-ID DUP * 1000003 * 12345678901 XOR NEGATE"


def value(g: np.ndarray) -> np.ndarray:
    return -((g * g * 1000003) ^ 12345678901)


# (Forth, numpy of the thread index in the block) operands; the lane-dependent ones differ per lane
OPERANDS = {
    "idx": [("0", lambda t: 0 * t), ("5", lambda t: 0 * t + 5), ("31", lambda t: 0 * t + 31),
            ("TID-X 7 * 3 +", lambda t: t * 7 + 3)],  # past 31: taken mod 32
    "up": [("0", lambda t: 0 * t), ("1", lambda t: 0 * t + 1), ("16", lambda t: 0 * t + 16),
           ("TID-X 5 MOD", lambda t: t % 5)],
    "down": [("0", lambda t: 0 * t), ("1", lambda t: 0 * t + 1), ("7", lambda t: 0 * t + 7),
             ("TID-X 9 MOD 3 *", lambda t: t % 9 * 3)],
    "xor": [("1", lambda t: 0 * t + 1), ("16", lambda t: 0 * t + 16), ("31", lambda t: 0 * t + 31),
            ("TID-X 3 AND", lambda t: t & 3)],
}
SHUFFLE_CASES = [(word, src, fn) for word, mode in MODES.items() for src, fn in OPERANDS[mode]]


@pytest.mark.parametrize("launch", LAUNCHES)
@pytest.mark.parametrize("word,src,operand", SHUFFLE_CASES, ids=[f"{w}-{s}" for w, s, _ in SHUFFLE_CASES])
def test_shuffle_matches_cuda(sessions, launch, word, src, operand):
    f = sessions[launch]
    run(f, launch, f"{VALUE} {src} {word}")
    g = gids(launch)
    expected = cuda_shuffle(MODES[word], value(g), operand(tids(launch)))
    np.testing.assert_array_equal(cells(f), expected)


@pytest.mark.parametrize("launch", LAUNCHES)
@pytest.mark.parametrize("word", list(MODES))
def test_float_shuffle_matches_cuda(sessions, launch, word):
    f = sessions[launch]
    mode = MODES[word]
    src, operand = OPERANDS[mode][-1]
    run(f, launch, f"GLOBAL-ID S>F 3e F/ FNEGATE {src} F{word}")
    g = gids(launch)
    x = -(g.astype(np.float32) / np.float32(3))
    expected = cuda_shuffle(mode, x, operand(tids(launch)))
    got = np.array([r[0] for r in f.float_stack(lane=None)], dtype=np.float32)
    np.testing.assert_array_equal(got, expected)
    assert f.data_stack(lane=None) == [[]] * len(g)


def test_float_shuffle_moves_every_bit():
    """-0e, a NaN, infinities and a subnormal arrive unchanged."""
    f = Forth(backend="cpu")
    f.eval(f"{TWO_WARPS}  5 F32 ARRAY specials")
    specials = np.array([-0.0, np.nan, np.inf, -np.inf, 1e-40], dtype=np.float32)
    f.set_array("specials", specials)
    f.eval("specials LANE-ID 5 MOD 4 * + SF@  1 FSHFL-XOR")
    got = np.array([r[0] for r in f.float_stack(lane=None)], dtype=np.float32)
    lanes = np.arange(64) % 32
    np.testing.assert_array_equal(got.view(np.int32), specials[(lanes ^ 1) % 5].view(np.int32))


def test_float_shuffle_in_the_f64_mode():
    """The float stack is f64 there: all 64 bits move (two 32-bit shuffles on nvptx)."""
    out = run_f64("""
from tileforth.core import Forth
from tileforth.backends.cuda.ptx import ptxas_path, ptxas
from tileforth.export.kernels import word_ptx
f = Forth(backend="cpu")
f.eval("1 1 1 GRID 64 1 1 THREADS  GLOBAL-ID S>F 3e F/ 1 FSHFL-XOR  GLOBAL-ID S>F 7e F/ 3 FSHFL-DOWN")
out["floats"] = f.float_stack(lane=None)
f.eval(": k ( -- ) 1e 3e F/ 5 FSHFL-IDX FDROP ;")
if ptxas_path():
    ptx = word_ptx(f, "k", "sm_80")
    ptxas(ptx, "sm_80")
    out["shfl"] = [ln.split()[0] for ln in map(str.strip, ptx.splitlines()) if ln.startswith("shfl.")]
""")
    g = np.arange(64)
    lanes = g % 32
    xor = (g - lanes + (lanes ^ 1)) / 3.0
    down = np.where(lanes + 3 < 32, g + 3, g) / 7.0
    assert out["floats"] == [[a, b] for a, b in zip(xor.tolist(), down.tolist())]
    if "shfl" in out:
        assert out["shfl"] == ["shfl.sync.idx.b32"] * 2


# ------------------------------------------------------------------ reductions

WSUM = ": wsum ( n -- n ) 16 BEGIN DUP WHILE >R DUP R@ SHFL-XOR + R> 2/ REPEAT DROP ;"
FWSUM = ": fwsum ( F: r -- r ) 16 BEGIN DUP WHILE DUP >R FDUP R> FSHFL-DOWN F+ 2/ REPEAT DROP ;"


@pytest.mark.parametrize("launch", LAUNCHES)
def test_warp_sum_by_xor_butterfly_equals_numpy(sessions, launch):
    f = sessions[launch]
    f.eval(WSUM)
    run(f, launch, f"{VALUE} wsum")
    per_warp = value(gids(launch)).reshape(-1, WARP).sum(axis=1)
    np.testing.assert_array_equal(cells(f), np.repeat(per_warp, WARP))  # every lane has the warp's sum


@pytest.mark.parametrize("launch", LAUNCHES)
def test_float_warp_sum_by_shuffle_down_lands_in_lane_0(sessions, launch):
    f = sessions[launch]
    f.eval(FWSUM)
    run(f, launch, "GLOBAL-ID DUP * 5 MOD S>F 0.25e F* fwsum")
    g = gids(launch)
    x = ((g * g) % 5).astype(np.float32) * np.float32(0.25)  # quarters: every partial sum is exact in f32
    got = np.array([r[0] for r in f.float_stack(lane=None)], dtype=np.float32)
    np.testing.assert_array_equal(got[::WARP], x.reshape(-1, WARP).sum(axis=1))


def test_inclusive_scan_by_shuffle_up(sessions):
    """Hillis-Steele: each lane adds the value delta lanes below it, delta = 1 2 4 8 16."""
    f = sessions[BLOCKS]
    f.eval(": wscan ( n -- n ) 1 BEGIN DUP 32 < WHILE >R DUP R@ SHFL-UP LANE-ID R@ < IF DROP 0 THEN + "
           "R> 2* REPEAT DROP ;")
    run(f, BLOCKS, "GLOBAL-ID 3 * 1+ wscan")
    x = gids(BLOCKS) * 3 + 1
    np.testing.assert_array_equal(cells(f), np.cumsum(x.reshape(-1, WARP), axis=1).ravel())


def test_broadcast_from_a_lane_in_a_shared_memory_kernel(sessions):
    """Lane 0 of each warp loads a value, SHFL-IDX hands it to the warp, the
    warp's sum goes to shared memory, BARRIER, thread 0 adds the warps up."""
    f = sessions[BLOCKS]
    f.eval(WSUM)
    f.eval("4 I64 ARRAY base  4 I64 ARRAY bsum  16 SHARED: wsums")
    f.set_array("base", np.array([7, -3, 100, 2**40], dtype=np.int64))
    f.eval(": bsums ( -- ) LANE-ID 0= IF base BID-X CELLS + @ ELSE 0 THEN 0 SHFL-IDX  GLOBAL-ID + wsum "
           "LANE-ID 0= IF wsums WARP-ID CELLS + ! ELSE DROP THEN BARRIER "
           "TID-X 0= IF wsums @ wsums CELL+ @ + bsum BID-X CELLS + ! THEN ;")
    run(f, BLOCKS, "bsums")
    g = gids(BLOCKS).reshape(4, 64)
    np.testing.assert_array_equal(f.array("bsum"), g.sum(axis=1) + 64 * f.array("base"))


# ------------------------------------------------------------------ votes

PREDICATES = [
    ("GLOBAL-ID 3 MOD 0=", lambda g: g % 3 == 0),
    ("GLOBAL-ID 40 <", lambda g: g < 40),              # warp 0 all, warp 1 some, the rest none
    ("GLOBAL-ID 37 * 101 MOD 2 <", lambda g: g * 37 % 101 < 2),
    ("GLOBAL-ID 2 AND", lambda g: (g & 2) != 0),       # a true flag that is not -1
]


@pytest.mark.parametrize("launch", LAUNCHES)
@pytest.mark.parametrize("src,pred", PREDICATES, ids=[p[0] for p in PREDICATES])
def test_votes_match_numpy_bit_masks(sessions, launch, src, pred):
    f = sessions[launch]
    run(f, launch, f"{src} DUP BALLOT SWAP DUP ANY SWAP ALL")
    p = pred(gids(launch))
    rows = np.array(f.data_stack(lane=None), dtype=np.int64)
    ballot = cuda_ballot(p)
    warps = p.reshape(-1, WARP)
    np.testing.assert_array_equal(rows[:, 0], ballot)
    np.testing.assert_array_equal(rows[:, 1], np.repeat(-warps.any(axis=1).astype(np.int64), WARP))
    np.testing.assert_array_equal(rows[:, 2], np.repeat(-warps.all(axis=1).astype(np.int64), WARP))
    # the mask is unsigned: lane 31 sets 2^31 and the cell stays positive
    assert (rows[:, 0] >= 0).all() and (rows[:, 0] < 2**32).all()


def test_ballot_of_lane_31_is_unsigned(sessions):
    f = sessions[TWO_WARPS]
    run(f, TWO_WARPS, "LANE-ID 31 = BALLOT")
    np.testing.assert_array_equal(cells(f), np.full(64, 2**31))


def test_activemask_is_the_lanes_that_came_together(sessions):
    f = sessions[BLOCKS]
    run(f, BLOCKS, "ACTIVEMASK")
    np.testing.assert_array_equal(cells(f), np.full(256, 2**32 - 1))
    # inside an IF: the lanes that took the branch
    run(f, BLOCKS, "LANE-ID 3 MOD 0= IF ACTIVEMASK ELSE -1 THEN")
    lanes = gids(BLOCKS) % WARP
    taken = sum(1 << lane for lane in range(WARP) if lane % 3 == 0)
    np.testing.assert_array_equal(cells(f), np.where(lanes % 3 == 0, taken, -1))
    # SYNCWARP brings the warp together again (ACTIVEMASK never waits; SYNCWARP does)
    run(f, BLOCKS, "LANE-ID 4 < IF ACTIVEMASK DROP THEN SYNCWARP ACTIVEMASK")
    np.testing.assert_array_equal(cells(f), np.full(256, 2**32 - 1))


def test_syncwarp_orders_shared_memory_within_a_warp(sessions):
    """Each lane writes its slot, SYNCWARP, then reads its neighbour's."""
    f = sessions[TWO_WARPS]
    f.eval("64 CELLS SHARED: slots")
    run(f, TWO_WARPS, "GLOBAL-ID 11 * slots TID-X CELLS + ! SYNCWARP "
                      "slots WARP-ID 32 * LANE-ID 1+ 31 AND + CELLS + @")
    g = gids(TWO_WARPS)
    np.testing.assert_array_equal(cells(f), (g - g % 32 + (g % 32 + 1) % 32) * 11)


# ------------------------------------------------------------------ partial warps

def test_partial_warp_votes_count_the_threads_it_has():
    """A block of 48 threads: warp 1 has lanes 0-15. Votes cover the lanes that
    exist (as for exited threads on a GPU); shuffles within them work."""
    f = Forth(backend="cpu")
    f.eval("1 1 1 GRID 48 1 1 THREADS")
    f.eval("TID-X 2 MOD 0= DUP BALLOT SWAP ALL ACTIVEMASK TRUE ALL  TID-X 8 SHFL-XOR")
    rows = np.array(f.data_stack(lane=None))
    np.testing.assert_array_equal(rows[:32, 0], 0x55555555)
    np.testing.assert_array_equal(rows[32:, 0], 0x5555)
    np.testing.assert_array_equal(rows[:, 1], 0)
    np.testing.assert_array_equal(rows[:32, 2], 2**32 - 1)
    np.testing.assert_array_equal(rows[32:, 2], 0xFFFF)
    np.testing.assert_array_equal(rows[:, 3], -1)
    t = np.arange(48)
    np.testing.assert_array_equal(rows[:, 4], t - t % 32 + (t % 32 ^ 8))


@pytest.mark.parametrize("launch,line,word,readers,sources", [
    ("1 1 1 GRID 16 1 1 THREADS", "TID-X 16 SHFL-XOR", "SHFL-XOR", "lanes 0-15", "lanes 16-31"),
    ("1 1 1 GRID 16 1 1 THREADS", "TID-X 1 SHFL-DOWN", "SHFL-DOWN", "lane 15 ", "lane 16,"),
    ("1 1 1 GRID 48 1 1 THREADS", "TID-X 20 SHFL-IDX", "SHFL-IDX", "lanes 0-15 of warp 1", "lane 20,"),
    ("1 1 1 GRID 8 2 1 THREADS", "1e LANE-ID 9 + FSHFL-IDX", "FSHFL-IDX", "lanes 7-15 ", "lanes 16-24,"),
])
def test_shuffle_from_a_lane_the_warp_does_not_have(launch, line, word, readers, sources):
    f = Forth(backend="cpu")
    f.eval(launch)
    err = raises(f, line, word=word, col=line.index(word) + 1)
    msg = str(err)
    assert readers in msg and sources in msg and "undefined" in msg and "multiple of 32" in msg, msg


# ------------------------------------------------------------------ divergent warps

@pytest.fixture
def lone() -> Forth:
    f = Forth(backend="cpu")
    f.eval(TWO_WARPS)
    return f


DIVERGENT = [
    ("LANE-ID 16 < IF TID-X 1 SHFL-XOR THEN", "SHFL-XOR", "lanes 0-15 reached", "lanes 16-31 finished"),
    ("TID-X 40 < IF 2.5e 1 FSHFL-DOWN FDROP THEN", "FSHFL-DOWN", "(warp 1): lanes 0-7 (threads 32-39) reached",
     "lanes 8-31 (threads 40-63) finished"),
    ("LANE-ID 1+ 0 DO TRUE BALLOT DROP LOOP", "BALLOT", "lanes 1-31 reached", "lanes 0 finished"),
    ("LANE-ID 2 MOD IF 1 ANY ELSE 1 ALL THEN", "ALL", "lanes 0, 2, 4", "wait at another warp operation"),
    ("LANE-ID 0= IF SYNCWARP THEN BARRIER", "SYNCWARP", "lanes 0 reached", "lanes 1-31 wait at a BARRIER"),
    ("LANE-ID 5 < IF 0 0 SHFL-IDX DROP THEN 0 1 SHFL-UP", "SHFL-IDX", "lanes 0-4 reached", "another warp operation"),
]


@pytest.mark.parametrize("line,word,reached,others", DIVERGENT, ids=[d[1] for d in DIVERGENT])
def test_divergent_warp_names_the_word_and_the_lanes(lone, line, word, reached, others):
    err = raises(lone, line, word=word, col=line.index(f" {word}") + 2)
    msg = str(err)
    assert "divergent warp in block 0" in msg and f"reached {word}" in msg and "full mask" in msg, msg
    assert reached in msg and others in msg, msg
    # the session keeps working: the same warp op, uniform, runs
    lone.eval(f"CLEARSTACK {VALUE} 1 SHFL-XOR")
    np.testing.assert_array_equal(cells(lone), cuda_shuffle("xor", value(np.arange(64)), np.ones(64, np.int64)))


def test_divergence_inside_a_definition_names_it(lone):
    lone.eval(f": halfsum ( n -- n ) LANE-ID 8 < IF 4 SHFL-DOWN THEN ;  {BLOCKS}")
    err = raises(lone, "GLOBAL-ID halfsum", word="SHFL-DOWN")
    msg = str(err)
    assert "reached SHFL-DOWN in halfsum" in msg and "lanes 0-7 reached" in msg and "lanes 8-31 finished" in msg
    lone.eval(f"CLEARSTACK {TWO_WARPS}")


def test_warp_op_and_tile_op_at_once_is_divergent(lone):
    with pytest.raises(ForthError, match="divergent warp"):
        lone.eval("LANE-ID 16 < IF 1 BALLOT DROP ELSE TZERO TDROP THEN")
    assert lone.tile_stack() == []


def test_a_runaway_loop_of_shuffles_stops_at_the_step_budget(lone):
    """Each warp op charges the launch's step pool, so a loop of shuffles ends as a loop of arithmetic does."""
    lone.step_budget = 1 << 20
    err = raises(lone, "0 BEGIN 1 SHFL-XOR 1+ DUP 0< UNTIL", word="SHFL-XOR")
    assert "looks infinite" in str(err), str(err)


# ------------------------------------------------------------------ PTX

PTX_WORDS = {  # word: (the line that uses it, the instructions it must become, in order)
    "SHFL-IDX": ("TID-X 5 SHFL-IDX", ["shfl.sync.idx.b32"] * 2),
    "SHFL-UP": ("TID-X 1 SHFL-UP", ["shfl.sync.up.b32"] * 2),
    "SHFL-DOWN": ("TID-X 2 SHFL-DOWN", ["shfl.sync.down.b32"] * 2),
    "SHFL-XOR": ("TID-X 16 SHFL-XOR", ["shfl.sync.bfly.b32"] * 2),
    "FSHFL-IDX": ("1.5e 5 FSHFL-IDX F>S", ["shfl.sync.idx.b32"]),
    "FSHFL-UP": ("1.5e 1 FSHFL-UP F>S", ["shfl.sync.up.b32"]),
    "FSHFL-DOWN": ("1.5e 2 FSHFL-DOWN F>S", ["shfl.sync.down.b32"]),
    "FSHFL-XOR": ("1.5e 16 FSHFL-XOR F>S", ["shfl.sync.bfly.b32"]),
    "BALLOT": ("TID-X 1 AND BALLOT", ["vote.sync.ballot.b32"]),
    "ANY": ("TID-X 1 AND ANY", ["vote.sync.any.pred"]),
    "ALL": ("TID-X 1 AND ALL", ["vote.sync.all.pred"]),
    "ACTIVEMASK": ("ACTIVEMASK", ["activemask.b32"]),
    "SYNCWARP": ("SYNCWARP TID-X", ["bar.warp.sync"]),
}
WARP_INSTR = re.compile(r"\s*(shfl\.|vote\.|activemask|bar\.warp)")


def _instructions(ptx: str) -> list[str]:
    return [ln.strip().split()[0].rstrip(";") for ln in ptx.splitlines() if WARP_INSTR.match(ln)]


def _name(word: str) -> str:
    return "k-" + re.sub(r"[^a-z0-9]", "-", word.lower())


@pytest.fixture(scope="module")
def ptx_forth() -> Forth:
    f = Forth(backend="cpu")
    for word, (line, _) in PTX_WORDS.items():
        f.eval(f": {_name(word)} ( -- n ) {line} ;")
    return f


@needs_ptxas
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("word", list(PTX_WORDS))
def test_each_word_becomes_its_instruction(ptx_forth, word, arch):
    ptx = word_ptx(ptx_forth, _name(word), arch)
    ptxas(ptx, arch)
    assert _instructions(ptx) == PTX_WORDS[word][1]
    # a full mask everywhere
    for ln in ptx.splitlines():
        if WARP_INSTR.match(ln) and "activemask" not in ln:
            assert ln.rstrip().endswith("-1;"), ln


@pytest.mark.parametrize("arch", ARCHS)
def test_shuffle_source_operands_are_cudas(ptx_forth, arch):
    """c is 31 for idx, down and bfly (the highest lane) and 0 for up (the lowest)."""
    for word, clamp in (("SHFL-IDX", "31"), ("SHFL-UP", "0"), ("SHFL-DOWN", "31"), ("SHFL-XOR", "31")):
        ptx = word_ptx(ptx_forth, _name(word), arch)
        ops = [ln.split("\t")[-1].rstrip(";").split(", ") for ln in ptx.splitlines() if "shfl.sync" in ln]
        assert ops and all(o[-2:] == [clamp, "-1"] for o in ops), (word, ops)


@needs_ptxas
def test_repl_lines_with_every_warp_word_assemble():
    """The segments the cuda backend compiles for REPL lines (checked, stacks in the state buffer)."""
    f = Forth(backend="cpu")
    seen: list[str] = []

    def hook(nodes, tiles):
        for arch in ARCHS:
            ptx = segment_ptx(f, nodes, tiles, arch)
            ptxas(ptx, arch)
            seen.extend(_instructions(ptx))

    f.eval(TWO_WARPS)
    f.on_segment = hook
    f.eval(" ".join(line for line, _ in PTX_WORDS.values()) + " CLEARSTACK")
    assert {i for _, instrs in PTX_WORDS.values() for i in instrs} <= set(seen)
