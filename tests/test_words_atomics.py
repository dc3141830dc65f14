"""Atomics and fences (issue 12): ATOMIC+ ATOMIC-MIN ATOMIC-MAX ATOMIC-XCHG
ATOMIC-CAS on cells, their I32- forms on 32-bit memory, FATOMIC+ on f32,
THREADFENCE and THREADFENCE-BLOCK.

The emulator runs threads one after another between suspend points, so an
atomic is one instruction there. A GPU runs them in an order nobody
specifies, but its atomics are serialisable: some order of the threads,
each applying its update alone, gives every thread the old value it got
and memory the final value it holds. `serial_order` finds that order from
the results (or says there is none), so these checks hold for any order a
GPU might pick, and the final memory is compared with numpy's reduction.
PTX is checked with ptxas for sm_80 and sm_90, as tests/test_ptx.py does.
"""
from __future__ import annotations

import operator
import re
from typing import Callable

import numpy as np
import pytest
from forthtest import raises
from test_float64 import run_f64
from tileforth.backends.cuda.ptx import ptxas, ptxas_path
from tileforth.core import Forth
from tileforth.export.kernels import segment_ptx, word_ptx

ARCHS = ("sm_80", "sm_90")
needs_ptxas = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")


def serial_order(init, values: list, olds: list, op: Callable) -> tuple[list[int], object] | None:
    """An order of the threads in which applying `op(memory, value)` one
    thread at a time hands each thread its old value, and the memory after
    the last (None when no order does). A thread that leaves memory as it
    was may go whenever memory holds its old value; of the threads that
    change it, at most one can go at each value (memory never comes back to
    it in these tests), so the search is greedy."""
    state, left, order = init, set(range(len(values))), []
    while left:
        ready = sorted(t for t in left if olds[t] == state)
        keep = [t for t in ready if op(state, values[t]) == state]
        step = keep or ready
        if not step or (not keep and len(ready) > 1):
            return None
        for t in step if keep else step[:1]:
            state = op(state, values[t])
            order.append(t)
            left.discard(t)
    return order, state


def add_f32(a: float, b: float) -> float:
    return float(np.float32(a) + np.float32(b))


def wrap32(x: int) -> int:
    return int(np.array(x).astype(np.int64).astype(np.int32))


def launch(f: Forth, blocks: int, threads: int) -> None:
    f.eval(f"CLEARSTACK {blocks} 1 1 GRID {threads} 1 1 THREADS")


def gid_pairs(f: Forth) -> tuple[list[int], list[int]]:
    """Each thread's stack ( gid old ), by gid: the gids and the old values."""
    rows = sorted(f.data_stack(lane=None))
    assert all(len(r) == 2 for r in rows)
    return [r[0] for r in rows], [r[1] for r in rows]


# ------------------------------------------------------------------ the model itself

def test_serial_order_accepts_a_serial_history_and_refuses_a_lost_update():
    assert serial_order(0, [1, 1, 1], [2, 0, 1], operator.add) == ([1, 2, 0], 3)
    assert serial_order(0, [1, 1, 1], [0, 0, 1], operator.add) is None  # two threads saw 0: an update was lost
    assert serial_order(9, [5, 7, 3], [9, 5, 5], min) == ([0, 1, 2], 3)
    assert serial_order(9, [5, 7, 3], [9, 9, 5], min) is None


# ------------------------------------------------------------------ cells

def test_atomic_add_counts_every_thread(fresh):
    f = fresh
    launch(f, 1, 256)
    f.eval("1 I64 ARRAY counter")
    f.eval("GLOBAL-ID 1 counter ATOMIC+")
    gids, olds = gid_pairs(f)
    assert gids == list(range(256))
    assert sorted(olds) == list(range(256))  # a permutation of 0..255
    assert int(f.array("counter")[0]) == 256


def test_atomic_add_of_thread_values_matches_numpy(fresh):
    f = fresh
    launch(f, 1, 256)
    f.eval("1 I64 ARRAY acc  -1000 acc !")
    f.eval(": ADD-MINE ( -- gid old ) GLOBAL-ID DUP DUP * 3 + acc ATOMIC+ ;  ADD-MINE")
    gids, olds = gid_pairs(f)
    values = [g * g + 3 for g in gids]
    order = serial_order(-1000, values, olds, operator.add)
    assert order is not None and order[1] == -1000 + int(np.sum(np.array(values)))
    assert int(f.array("acc")[0]) == order[1]


@pytest.mark.parametrize("word,op,init", [("ATOMIC-MIN", min, 10**12), ("ATOMIC-MAX", max, -10**12)])
def test_atomic_min_max_over_thread_values(fresh, word, op, init):
    f = fresh
    launch(f, 1, 256)
    f.eval(f"1 I64 ARRAY m  {init} m !")
    # signed values, negative and positive, beyond 32 bits
    f.eval(f"GLOBAL-ID DUP 37 * 256 MOD 128 - 1000000007 *  m {word}")
    gids, olds = gid_pairs(f)
    values = ((np.array(gids) * 37 % 256 - 128) * 1000000007).tolist()
    order = serial_order(init, values, olds, op)
    assert order is not None
    expected = int(np.min(values)) if op is min else int(np.max(values))
    assert order[1] == expected == int(f.array("m")[0])


def test_atomic_xchg_hands_on_a_chain(fresh):
    f = fresh
    launch(f, 1, 256)
    f.eval("1 I64 ARRAY slot  -1 slot !")
    f.eval("GLOBAL-ID DUP 1+ 1000 * slot ATOMIC-XCHG")
    gids, olds = gid_pairs(f)
    values = [(g + 1) * 1000 for g in gids]
    order = serial_order(-1, values, olds, lambda s, v: v)
    assert order is not None and order[1] == int(f.array("slot")[0])
    # every value but the last stored was handed to exactly one thread
    assert sorted(olds + [int(f.array("slot")[0])]) == sorted([-1] + values)


def test_atomic_cas_stores_only_when_it_holds_expected(fresh):
    f = fresh
    launch(f, 1, 1)
    f.eval("VARIABLE v  5 v !")
    assert f.eval("4 9 v ATOMIC-CAS . v @ .").split() == ["5", "5"]  # 4 expected, 5 there: no store
    assert f.eval("5 9 v ATOMIC-CAS . v @ .").split() == ["5", "9"]


CAS_INC = """: CAS-INC ( addr -- old )  \\ read, then all race: every thread but one fails at least once
  DUP @ BARRIER
  BEGIN DUP DUP 1+ 3 PICK ATOMIC-CAS  ( addr seen old )
        2DUP <> WHILE  1 fails ATOMIC+ DROP  NIP  REPEAT
  NIP NIP ;"""


def test_atomic_cas_builds_a_lock_free_increment(fresh):
    f = fresh
    launch(f, 1, 256)
    f.eval("1 I64 ARRAY n  1 I64 ARRAY fails")
    f.eval(CAS_INC)
    f.eval("GLOBAL-ID n CAS-INC")
    _, olds = gid_pairs(f)
    assert sorted(olds) == list(range(256))
    assert int(f.array("n")[0]) == 256
    # all 256 read 0 before the BARRIER, so only one CAS of 0 can succeed: the others retry
    assert int(f.array("fails")[0]) >= 255


# ------------------------------------------------------------------ 32-bit memory

def test_i32_atomic_add_wraps_as_int32(fresh):
    f = fresh
    launch(f, 1, 256)
    f.eval("2 I32 ARRAY w  2147483000 w I32!  77 w 4 + I32!")
    # n beyond 32 bits: its low 32 bits (2^23 + gid) are added; the sum passes 2^31
    f.eval("GLOBAL-ID DUP 32 LSHIFT OVER + 8388608 + w I32-ATOMIC+")
    gids, olds = gid_pairs(f)
    values = [(1 << 23) + g for g in gids]
    order = serial_order(2147483000, values, olds, lambda s, v: wrap32(s + v))
    assert order is not None
    expected = np.array([2147483000, *values]).astype(np.int32).sum(dtype=np.int32)  # numpy's int32 wrap
    np.testing.assert_array_equal(f.array("w"), [expected, 77])  # the neighbour is untouched
    assert order[1] == int(expected) and min(olds) < 0  # it wrapped, and old came back sign-extended


@pytest.mark.parametrize("word,op,init", [("I32-ATOMIC-MIN", min, 2**31 - 1), ("I32-ATOMIC-MAX", max, -2**31)])
def test_i32_atomic_min_max_compare_32_bit_signed(fresh, word, op, init):
    f = fresh
    launch(f, 1, 256)
    f.eval(f"2 I32 ARRAY w  {init} w I32!  77 w 4 + I32!")
    # the high 32 bits (gid) are dropped: the low 32 bits, signed, are compared
    f.eval(f"GLOBAL-ID DUP 32 LSHIFT OVER 37 * 256 MOD 128 - 16777259 * + w {word}")
    gids, olds = gid_pairs(f)
    g = np.array(gids, dtype=np.int64)
    values = (g << 32) + (g * 37 % 256 - 128) * 16777259
    low = values.astype(np.int32)  # numpy's wrap: the value the word stores
    order = serial_order(init, low.tolist(), olds, op)
    assert order is not None
    expected = int(low.min() if op is min else low.max())
    np.testing.assert_array_equal(f.array("w"), [expected, 77])


def test_i32_atomic_xchg_and_cas(fresh):
    f = fresh
    launch(f, 1, 1)
    f.eval("2 I32 ARRAY w  -1 w I32!  77 w 4 + I32!")
    # 2^32 + 5 stores 5; the old -1 comes back sign-extended
    assert f.eval("4294967301 w I32-ATOMIC-XCHG . w I32@ .").split() == ["-1", "5"]
    # expected is compared in 32 bits: 2^32 + 5 is 5
    assert f.eval("4294967301 -2 w I32-ATOMIC-CAS . w I32@ .").split() == ["5", "-2"]
    assert f.eval("3 9 w I32-ATOMIC-CAS . w I32@ .").split() == ["-2", "-2"]
    np.testing.assert_array_equal(f.array("w"), [-2, 77])


def test_i32_atomic_xchg_over_threads(fresh):
    f = fresh
    launch(f, 1, 256)
    f.eval("1 I32 ARRAY w")
    f.eval("GLOBAL-ID DUP 1+ -3 * w I32-ATOMIC-XCHG")
    gids, olds = gid_pairs(f)
    values = [-3 * (g + 1) for g in gids]
    order = serial_order(0, values, olds, lambda s, v: v)
    assert order is not None and order[1] == int(f.array("w")[0])


# ------------------------------------------------------------------ floats

def test_fatomic_add_sums_like_numpy_float32(fresh):
    f = fresh
    launch(f, 1, 256)
    f.eval("2 F32 ARRAY s  0.5e s SF!  7e s 4 + SF!")
    f.eval("GLOBAL-ID DUP S>F s FATOMIC+")
    gids = [row[0] for row in f.data_stack(lane=None)]
    olds = [row[0] for row in f.float_stack(lane=None)]
    values = [float(g) for g in gids]
    order = serial_order(0.5, values, olds, add_f32)
    assert order is not None
    expected = np.float32(0.5) + np.arange(256, dtype=np.float32).sum(dtype=np.float32)  # exact: small integers
    np.testing.assert_array_equal(f.array("s"), np.array([expected, 7], dtype=np.float32))


def test_fatomic_add_returns_the_old_f32():
    f = Forth(backend="cpu")
    launch(f, 1, 1)
    f.eval("1 F32 ARRAY s  0.1e s FATOMIC+ FDROP 0.1e s FATOMIC+")
    assert f.float_stack() == [float(np.float32(0.1))]
    assert f.array("s")[0] == np.float32(0.1) + np.float32(0.1)


def test_fatomic_add_in_the_f64_mode():
    """The float stack is f64 there; memory stays f32: r is rounded to f32, old widened."""
    out = run_f64("""
from tileforth.core import Forth
from tileforth.backends.cuda.ptx import ptxas_path, ptxas
from tileforth.export.kernels import word_ptx
f = Forth(float_bits=64)
f.eval("1 1 1 GRID 1 1 1 THREADS  1 F32 ARRAY s  0.1e s FATOMIC+ FDROP  0.1e s FATOMIC+")
out["old"] = f.float_stack()
out["mem"] = float(f.array("s")[0])
f.eval(": k ( -- ) 0.1e s FATOMIC+ FDROP ;")
if ptxas_path():
    ptx = word_ptx(f, "k", "sm_80")
    ptxas(ptx, "sm_80")
    out["ptx"] = [ln.strip().split()[0] for ln in ptx.splitlines() if "atom." in ln or "cvt.rn.f32.f64" in ln]
""")
    assert out["old"] == [float(np.float32(0.1))]
    assert out["mem"] == float(np.float32(0.1) + np.float32(0.1))
    if "ptx" in out:
        assert "atom.global.add.f32" in out["ptx"]


# ------------------------------------------------------------------ shared memory and blocks

def test_shared_histogram_per_block(fresh):
    """Each block zeroes 8 shared bins, BARRIER, every thread adds its value to
    its bin (ATOMIC+), BARRIER, and 8 threads copy the bins out."""
    f = fresh
    rng = np.random.default_rng(12)
    data = rng.integers(-50, 1000, size=4 * 128, dtype=np.int64)
    launch(f, 4, 128)
    f.eval("512 I64 ARRAY data  32 I64 ARRAY bins  8 CELLS SHARED: hist")
    f.set_array("data", data)
    f.eval(": HIST ( -- )  TID-X 8 < IF 0 hist TID-X CELLS + ! THEN BARRIER "
           "data GLOBAL-ID CELLS + @  DUP 7 AND CELLS hist + ATOMIC+ DROP  BARRIER "
           "TID-X 8 < IF hist TID-X CELLS + @  bins BID-X 8 * TID-X + CELLS + ! THEN ;  HIST")
    expected = np.zeros((4, 8), dtype=np.int64)
    np.add.at(expected, (np.arange(512) // 128, data & 7), data)
    np.testing.assert_array_equal(f.array("bins").reshape(4, 8), expected)


def test_shared_float_and_i32_atomics_per_block(fresh):
    f = fresh
    launch(f, 2, 64)
    f.eval("2 F32 ARRAY fsum  2 I32 ARRAY lo  2 I32 ARRAY n  8 SHARED: sf  8 SHARED: si  8 SHARED: sn")
    f.eval(": SUMS ( -- ) TID-X 0= IF 0e sf SF!  1000000 si I32!  0 sn I32! THEN BARRIER "
           "GLOBAL-ID S>F sf FATOMIC+ FDROP  GLOBAL-ID 37 * 11 + 101 MOD 50 - si I32-ATOMIC-MIN DROP  1 sn I32-ATOMIC+ DROP "
           "BARRIER TID-X 0= IF sf SF@ fsum BID-X 4 * + SF!  si I32@ lo BID-X 4 * + I32!  "
           "sn I32@ n BID-X 4 * + I32! THEN ;  SUMS")
    g = np.arange(128).reshape(2, 64)
    np.testing.assert_array_equal(f.array("fsum"), g.astype(np.float32).sum(axis=1, dtype=np.float32))
    np.testing.assert_array_equal(f.array("lo"), ((g * 37 + 11) % 101 - 50).min(axis=1))
    np.testing.assert_array_equal(f.array("n"), [64, 64])


def test_global_atomics_across_blocks(fresh):
    f = fresh
    launch(f, 4, 64)
    f.eval("1 I64 ARRAY total  1 I64 ARRAY hi  4 F32 ARRAY fbins")
    f.eval("GLOBAL-ID  DUP total ATOMIC+ DROP  DUP 91 * 1000 MOD hi ATOMIC-MAX DROP "
           "DUP S>F  DUP 3 AND 4 * fbins + FATOMIC+ FDROP")
    gid = np.arange(256)
    assert int(f.array("total")[0]) == int(gid.sum())
    assert int(f.array("hi")[0]) == int((gid * 91 % 1000).max())
    expected = np.zeros(4, dtype=np.float32)
    np.add.at(expected, gid & 3, gid.astype(np.float32))
    np.testing.assert_array_equal(f.array("fbins"), expected)
    left = sorted(r[0] for r in f.data_stack(lane=None))
    assert left == gid.tolist()  # the GLOBAL-ID each thread left: every block ran


def test_last_block_sums_the_partials_after_threadfence(fresh):
    """CUDA's threadFenceReduction: each block writes its partial sum, THREADFENCE,
    then counts itself done with ATOMIC+; the block that counts last adds them up."""
    f = fresh
    launch(f, 4, 32)
    f.eval("4 I64 ARRAY part  1 I64 ARRAY done  1 I64 ARRAY result  8 SHARED: bsum")
    f.eval(": REDUCE ( -- ) TID-X 0= IF 0 bsum ! THEN BARRIER  GLOBAL-ID 1+ bsum ATOMIC+ DROP  "
           "THREADFENCE-BLOCK BARRIER "
           "TID-X 0= IF bsum @ part BID-X CELLS + !  THREADFENCE  1 done ATOMIC+ GDIM-X 1- = IF "
           "0 GDIM-X 0 DO part I CELLS + @ + LOOP result ! THEN THEN ;  REDUCE")
    assert int(f.array("result")[0]) == int(np.arange(1, 129).sum())
    np.testing.assert_array_equal(f.array("part"), np.arange(1, 129).reshape(4, 32).sum(axis=1))
    assert int(f.array("done")[0]) == 4


# ------------------------------------------------------------------ errors (checked mode)

@pytest.fixture(scope="module")
def errf() -> Forth:
    f = Forth(backend="cpu")
    f.eval("2 I64 ARRAY cells8  16 SHARED: sh16")
    f.eval(": bump-at ( addr -- ) 1 SWAP ATOMIC+ DROP ;  : fetch-at ( addr -- ) @ DROP ;")
    return f


@pytest.mark.parametrize("line,word,what", [
    ("1 cells8 4 + ATOMIC+", "ATOMIC+", "misaligned"),
    ("1 cells8 4 + ATOMIC-MIN", "ATOMIC-MIN", "misaligned"),
    ("0 1 cells8 4 + ATOMIC-CAS", "ATOMIC-CAS", "misaligned"),
    ("1 cells8 2 + I32-ATOMIC-MAX", "I32-ATOMIC-MAX", "misaligned"),
    ("1 cells8 2 + I32-ATOMIC-XCHG", "I32-ATOMIC-XCHG", "misaligned"),
    ("1e cells8 1 + FATOMIC+", "FATOMIC+", "misaligned"),
    ("1 0 ATOMIC+", "ATOMIC+", "bad address"),
    ("1 cells8 16 + ATOMIC-XCHG", "ATOMIC-XCHG", "bad address"),
    ("1 2 cells8 16 + I32-ATOMIC-CAS", "I32-ATOMIC-CAS", "bad address"),
    ("1 cells8 16 + I32-ATOMIC+", "I32-ATOMIC+", "bad address"),
    ("1e cells8 16 + FATOMIC+", "FATOMIC+", "bad address"),
    ("1 sh16 16 + ATOMIC+", "ATOMIC+", "bad address"),
    ("1 sh16 4 + I32-ATOMIC-MIN DROP 1 sh16 4 + ATOMIC+", "ATOMIC+", "misaligned"),
])
def test_bad_addresses_fail_as_at_fails(errf, line, word, what):
    err = raises(errf, line, word=word)
    assert what in str(err)


def test_bad_address_in_a_definition_reads_as_at_reads(errf):
    at = raises(errf, "3 fetch-at", word="@")
    atomic = raises(errf, "3 bump-at", word="ATOMIC+")
    message = str(atomic).split(": ", 1)[1]
    assert "bad address $3 in bump-at" in message
    assert message.replace("bump-at", "fetch-at") == str(at).split(": ", 1)[1]


# ------------------------------------------------------------------ PTX

WORD_PTX = {  # word: (its operands before the address, the instruction it must become on a global address)
    "ATOMIC+": ("3", r"atom\.global\.add\.u64"),
    "ATOMIC-MIN": ("3", r"atom\.global\.min\.s64"),
    "ATOMIC-MAX": ("3", r"atom\.global\.max\.s64"),
    "ATOMIC-XCHG": ("3", r"atom\.global\.exch\.b64"),
    "ATOMIC-CAS": ("3 4", r"atom(\.relaxed\.gpu)?\.global\.cas\.b64"),
    "I32-ATOMIC+": ("3", r"atom\.global\.add\.u32"),
    "I32-ATOMIC-MIN": ("3", r"atom\.global\.min\.s32"),
    "I32-ATOMIC-MAX": ("3", r"atom\.global\.max\.s32"),
    "I32-ATOMIC-XCHG": ("3", r"atom\.global\.exch\.b32"),
    "I32-ATOMIC-CAS": ("3 4", r"atom(\.relaxed\.gpu)?\.global\.cas\.b32"),
}


def _names(word: str) -> str:
    return re.sub(r"[^a-z0-9]", "-", word.lower())


@pytest.fixture(scope="module")
def ptx_forth() -> Forth:
    f = Forth(backend="cpu")
    f.eval("4 I64 ARRAY g64  4 F32 ARRAY gf  64 SHARED: sh  1 I64 ARRAY where")
    for word, (args, _) in WORD_PTX.items():
        f.eval(f": k-{_names(word)} ( -- ) {args} g64 {word} DROP ;")
        f.eval(f": s-{_names(word)} ( -- ) {args} sh {word} DROP ;")
        f.eval(f": p-{_names(word)} ( -- ) {args} where @ {word} DROP ;")  # an address from memory: generic
    f.eval(": k-fatomic ( -- ) 1.5e gf FATOMIC+ FDROP ;  : s-fatomic ( -- ) 1.5e sh FATOMIC+ FDROP ;")
    f.eval(": k-fences ( -- ) 1 g64 ! THREADFENCE 2 g64 ! THREADFENCE-BLOCK 3 g64 ! ;")
    return f


def _instructions(ptx: str) -> list[str]:
    return [ln.strip().split()[0] for ln in ptx.splitlines() if re.match(r"\s*(atom|fence|membar)\.", ln)]


@needs_ptxas
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("word", list(WORD_PTX))
def test_integer_atomics_become_atom_in_their_address_space(ptx_forth, word, arch):
    pattern = WORD_PTX[word][1]
    for prefix, space in (("k", "global"), ("s", "shared"), ("p", "")):
        ptx = word_ptx(ptx_forth, f"{prefix}-{_names(word)}", arch)
        ptxas(ptx, arch)
        want = pattern.replace(r"\.global", rf"\.{space}" if space else "")
        found = _instructions(ptx)
        assert len(found) == 1 and re.fullmatch(want, found[0]), (prefix, found)


@needs_ptxas
@pytest.mark.parametrize("arch", ARCHS)
def test_fatomic_add_is_atom_add_f32(ptx_forth, arch):
    for name, space in (("k-fatomic", "global"), ("s-fatomic", "shared")):
        ptx = word_ptx(ptx_forth, name, arch)
        ptxas(ptx, arch)
        assert _instructions(ptx) == [f"atom.{space}.add.f32"]


@needs_ptxas
@pytest.mark.parametrize("arch", ARCHS)
def test_fences_are_device_and_block_scoped(ptx_forth, arch):
    ptx = word_ptx(ptx_forth, "k-fences", arch)
    ptxas(ptx, arch)
    fences = _instructions(ptx)
    assert fences in (["fence.sc.gpu;", "fence.sc.cta;"], ["membar.gl;", "membar.cta;"]), fences
    # the stores stay on their side of each fence
    lines = [ln.split()[0] for ln in map(str.strip, ptx.splitlines()) if ln.startswith(("st.", "fence", "membar"))]
    stores = [re.sub(r"^st\.global\.[bu]64$", "store", ln) for ln in lines]
    assert stores == ["store", fences[0], "store", fences[1], "store"], lines


@needs_ptxas
def test_repl_lines_with_every_atomic_assemble():
    """The segments the cuda backend compiles for REPL lines (checked, stacks in the state buffer)."""
    f = Forth(backend="cpu")
    seen = []

    def hook(nodes, tiles):
        for arch in ARCHS:
            ptx = segment_ptx(f, nodes, tiles, arch)
            ptxas(ptx, arch)
            seen.extend(_instructions(ptx))

    f.eval("1 1 1 GRID 64 1 1 THREADS  4 I64 ARRAY g  4 F32 ARRAY gf  64 SHARED: sh")
    f.on_segment = hook
    f.eval("TID-X g ATOMIC+ TID-X g ATOMIC-MIN TID-X g ATOMIC-MAX TID-X g ATOMIC-XCHG 0 1 g ATOMIC-CAS "
           "TID-X sh I32-ATOMIC+ TID-X sh I32-ATOMIC-MIN TID-X sh I32-ATOMIC-MAX TID-X sh I32-ATOMIC-XCHG "
           "0 1 sh I32-ATOMIC-CAS 1e gf FATOMIC+ THREADFENCE THREADFENCE-BLOCK CLEARSTACK")
    ops = {re.sub(r"\.relaxed\.gpu", "", s).rstrip(";") for s in seen}
    assert {"atom.global.add.u64", "atom.global.min.s64", "atom.global.max.s64", "atom.global.exch.b64",
            "atom.global.cas.b64", "atom.shared.add.u32", "atom.shared.min.s32", "atom.shared.max.s32",
            "atom.shared.exch.b32", "atom.shared.cas.b32", "atom.global.add.f32"} <= ops
    assert {"fence.sc.gpu", "fence.sc.cta"} <= ops or {"membar.gl", "membar.cta"} <= ops

