"""The emulator's race detector (checked mode): the canonical race, tree reductions with and
without their barrier, atomics, disjoint writes, read-only sharing, races across blocks, warp
ordering with SYNCWARP, the threadfence pattern, and byte-sized neighbours.

The expected reports come from a reference model written here in Python: each kernel's accesses
are listed in the order the emulator runs threads (a block's threads one after another up to
each BARRIER), and the first access that conflicts with an earlier one of another thread (same
bytes, at least one write, not both atomic, not ordered by a BARRIER or, in one warp, a SYNCWARP;
blocks never ordered) is the race."""
from __future__ import annotations

import re

import numpy as np
import pytest
from tileforth.core import Forth, ForthError

CELL = 8


def first_race(accesses: list[tuple]) -> tuple | None:
    """accesses: (block, thread, warp, barriers, syncwarps, kind, addr, size) in emulation order,
    kind 'r' 'w' or 'a'. The first access that races an earlier one, and the earlier ones it races."""
    for j, (bj, tj, wj, ej, sj, kj, aj, nj) in enumerate(accesses):
        earlier = []
        for (bi, ti, wi, ei, si, ki, ai, ni) in accesses[:j]:
            if ti == tj or ai + ni <= aj or aj + nj <= ai:
                continue
            if ki == kj == "r" or ki == kj == "a":  # two reads, or two atomics, never race
                continue
            concurrent = bi != bj or (ei == ej and (wi != wj or si == sj))
            if concurrent:
                earlier.append((ti, ki))
        if earlier:
            return (tj, kj, aj), earlier
    return None


def report(f: Forth, line: str) -> str | None:
    try:
        f.eval(line)
    except ForthError as e:
        return str(e)
    return None


def parsed(msg: str) -> dict:
    who = r"(?:thread (\d+)|the warp of threads (\d+)-\d+)"  # a thread, or a tile load or store's warp
    m = re.search(r"data race on (\w+) memory at (\S+?)(?: in \S+)?: " + who + r" (read|wrote|atomically updated) "
                  r"it.*?, then " + who + r" (read|wrote|atomically updated) it(?: with \S+)?, (with no BARRIER "
                  r"between them|from another block)", msg)
    assert m, msg
    kinds = {"read": "r", "wrote": "w", "atomically updated": "a"}
    return {"space": m[1], "where": m[2], "first": (int(m[3] or m[4]), kinds[m[5]]),
            "second": (int(m[6] or m[7]), kinds[m[8]]), "blocks": m[9].startswith("from")}


@pytest.fixture
def f() -> Forth:
    return Forth(backend="cpu")


def shared_model(threads: int, per_thread) -> list[tuple]:
    """Accesses of one block whose threads run to the end without a BARRIER, thread after thread."""
    out = []
    for t in range(threads):
        for kind, cell in per_thread(t):
            out.append((0, t, t // 32, 0, 0, kind, cell * CELL, CELL))
    return out


def check(msg: str | None, expected: tuple | None, name: str) -> None:
    if expected is None:
        assert msg is None, msg
        return
    assert msg is not None, "the race was not reported"
    got = parsed(msg)
    (t2, k2, addr), earlier = expected
    assert got["second"] == (t2, k2), msg
    assert got["first"] in earlier, (msg, earlier)
    off = addr
    assert got["where"] == (f"{name}+{off}" if off else name), msg


def test_the_canonical_race_is_reported_where_and_by_whom(f):
    f.eval("64 1 1 THREADS 512 SHARED: sh")
    msg = report(f, ": race TID-X sh TID-X CELLS + ! sh 63 TID-X - CELLS + @ ; race")
    expected = first_race(shared_model(64, lambda t: [("w", t), ("r", 63 - t)]))
    check(msg, expected, "sh")
    assert parsed(msg)["space"] == "shared"
    assert "line 1, column 31" in msg  # the `!` of thread 32, which wrote after thread 31 read
    assert "in race" in msg and "BARRIER" in msg


def test_the_canonical_race_with_a_barrier_is_not_reported(f):
    f.eval("64 1 1 THREADS 512 SHARED: sh")
    f.eval(": norace TID-X sh TID-X CELLS + ! BARRIER sh 63 TID-X - CELLS + @ ; norace")
    np.testing.assert_array_equal(np.array(f.data_stack(lane=None))[:, -1], 63 - np.arange(64))


def test_the_session_keeps_its_state_after_a_race(f):
    f.eval("64 1 1 THREADS 512 SHARED: sh  7")
    assert report(f, ": race TID-X sh TID-X CELLS + ! sh 63 TID-X - CELLS + @ ; race") is not None
    assert f.data_stack() == [7]
    f.eval(": fixed TID-X sh TID-X CELLS + ! BARRIER sh 63 TID-X - CELLS + @ ; fixed +")
    np.testing.assert_array_equal(np.array(f.data_stack(lane=None))[:, -1], 70 - np.arange(64))


def test_catch_gives_a_race_its_own_code(f):
    """A race has a throw code of its own (system-defined, -256), so a script that CATCHes it can
    tell it from ABORT (-1); uncaught, the line fails with the report."""
    f.eval("64 1 1 THREADS 512 SHARED: sh  7")
    f.eval(": race TID-X sh TID-X CELLS + ! sh 63 TID-X - CELLS + @ DROP ;")
    f.eval("' race CATCH")
    assert f.data_stack(lane=None) == [[7, -256]] * 64
    msg = report(f, "race")
    assert msg is not None and "data race on shared memory at sh+" in msg
    f.eval("1 1 1 THREADS")
    assert "the emulator's checker found a data race" in report(f, "-256 THROW")  # the code's meaning


TREE = """
: tree ( -- )  GLOBAL-ID red TID-X CELLS + !  BARRIER
  32 BEGIN DUP WHILE
    TID-X OVER < IF  red TID-X CELLS + @  OVER TID-X + CELLS red + @  +  red TID-X CELLS + !  THEN
    {sync} 2/
  REPEAT DROP  TID-X 0= IF red @ out ! THEN ;
"""


def test_tree_reduction_with_barriers_has_no_race_and_sums(f):
    f.eval("64 1 1 THREADS 64 CELLS SHARED: red  1 I64 ARRAY out")
    f.eval(TREE.format(sync="BARRIER"))
    f.eval("tree")
    assert int(f.array("out")[0]) == sum(range(64))


def test_tree_reduction_without_its_barrier_races(f):
    f.eval("64 1 1 THREADS 64 CELLS SHARED: red  1 I64 ARRAY out")
    f.eval(TREE.format(sync=""))
    msg = report(f, "tree")

    def accesses():  # epoch 1 (after the first BARRIER): each thread runs its whole loop
        out = [(0, t, t // 32, 0, 0, "w", t * CELL, CELL) for t in range(64)]
        for t in range(64):
            s = 32
            while s:
                if t < s:
                    out += [(0, t, t // 32, 1, 0, "r", t * CELL, CELL), (0, t, t // 32, 1, 0, "r", (s + t) * CELL, CELL),
                            (0, t, t // 32, 1, 0, "w", t * CELL, CELL)]
                s //= 2
        return out
    check(msg, first_race(accesses()), "red")


def test_atomics_on_one_counter_do_not_race(f):
    f.eval("4 1 1 GRID 64 1 1 THREADS  1 I64 ARRAY n")
    f.eval(": count 1 n ATOMIC+ DROP ; count")
    assert int(f.array("n")[0]) == 256


def test_a_plain_read_of_an_atomic_counter_races(f):
    f.eval("64 1 1 THREADS  1 I64 ARRAY n")
    msg = report(f, ": peek 1 n ATOMIC+ DROP n @ DROP ; peek")
    # thread 0 updates and reads; thread 1's atomic update races thread 0's plain read
    model = [(0, t, 0, 0, 0, k, 0, CELL) for t in range(64) for k in ("a", "r")]
    check(msg, first_race(model), "n")


def test_disjoint_writes_and_read_only_sharing_do_not_race(f):
    f.eval("2 1 1 GRID 64 1 1 THREADS  128 I64 ARRAY xs  1 I64 ARRAY k  5 k !")
    f.eval(": fill k @ GLOBAL-ID * xs GLOBAL-ID CELLS + ! ; fill")
    np.testing.assert_array_equal(f.array("xs"), 5 * np.arange(128))


def test_a_global_race_across_blocks_is_reported(f):
    f.eval("2 1 1 GRID 32 1 1 THREADS  64 I64 ARRAY xs")
    # each thread writes its element, then reads its neighbour in the other block
    msg = report(f, ": cross GLOBAL-ID xs GLOBAL-ID CELLS + !  xs GLOBAL-ID 32 XOR CELLS + @ DROP ; cross")
    model = [(t // 32, t, t // 32, 0, 0, k, c * CELL, CELL) for t in range(64)
             for k, c in (("w", t), ("r", t ^ 32))]
    expected = first_race(model)
    check(msg, expected, "xs")
    assert parsed(msg)["blocks"] and parsed(msg)["space"] == "global"


def test_a_global_race_inside_a_block_is_reported(f):
    f.eval("64 1 1 THREADS  64 I64 ARRAY xs")
    msg = report(f, ": shift GLOBAL-ID xs GLOBAL-ID CELLS + !  xs GLOBAL-ID 1+ 63 AND CELLS + @ DROP ; shift")
    model = [(0, t, t // 32, 0, 0, k, c * CELL, CELL) for t in range(64) for k, c in (("w", t), ("r", (t + 1) % 64))]
    check(msg, first_race(model), "xs")


def test_syncwarp_orders_the_lanes_of_one_warp(f):
    f.eval("32 1 1 THREADS 256 SHARED: sh")
    f.eval(": swap-lanes TID-X sh TID-X CELLS + ! SYNCWARP sh TID-X 1 XOR CELLS + @ ; swap-lanes")
    np.testing.assert_array_equal(np.array(f.data_stack(lane=None))[:, -1], np.arange(32) ^ 1)


def test_without_syncwarp_lanes_of_one_warp_race(f):
    f.eval("32 1 1 THREADS 256 SHARED: sh")
    msg = report(f, ": swap-lanes TID-X sh TID-X CELLS + ! sh TID-X 1 XOR CELLS + @ ; swap-lanes")
    model = [(0, t, 0, 0, 0, k, c * CELL, CELL) for t in range(32) for k, c in (("w", t), ("r", t ^ 1))]
    check(msg, first_race(model), "sh")


def test_threadfence_then_an_atomic_flag_orders_blocks(f):
    """CUDA's threadFenceReduction: the last block reads what the others wrote and fenced."""
    f.eval("4 1 1 GRID 32 1 1 THREADS  4 I64 ARRAY part  1 I64 ARRAY done  1 I64 ARRAY result")
    f.eval(": red TID-X 0= IF BID-X 10 * part BID-X CELLS + ! THREADFENCE 1 done ATOMIC+ 3 = IF "
           "0 4 0 DO part I CELLS + @ + LOOP result ! THEN THEN ; red")
    assert int(f.array("result")[0]) == 60


def test_without_the_threadfence_the_last_block_races(f):
    f.eval("4 1 1 GRID 32 1 1 THREADS  4 I64 ARRAY part  1 I64 ARRAY done  1 I64 ARRAY result")
    msg = report(f, ": red TID-X 0= IF BID-X 10 * part BID-X CELLS + ! 1 done ATOMIC+ 3 = IF "
                    "0 4 0 DO part I CELLS + @ + LOOP result ! THEN THEN ; red")
    got = parsed(msg)
    # block 0's thread 0 wrote part[0] (the 0 it held: still a write of that thread), unfenced
    assert got["where"] == "part" and got["first"] == (0, "w") and got["second"] == (96, "r"), msg


def test_neighbouring_bytes_and_halves_do_not_race(f):
    f.eval("64 1 1 THREADS  64 I8 ARRAY bs  64 F16 ARRAY hs")
    f.eval(": bytes GLOBAL-ID bs GLOBAL-ID + C!  GLOBAL-ID S>F hs GLOBAL-ID 2* + HF! ; bytes")
    np.testing.assert_array_equal(f.array("bs"), np.arange(64))
    np.testing.assert_array_equal(f.array("hs"), np.arange(64, dtype=np.float16))


def test_a_store_of_the_value_already_there_is_no_race(f):
    f.eval("64 1 1 THREADS  VARIABLE v")
    f.eval("-1000 v !  v @ DROP")  # every thread stores the same value, as a prompt line does
    assert f.read_cell(f.dict["V"].value) == -1000


def test_unchecked_sessions_do_not_look_for_races():
    f = Forth(backend="cpu", checked=False)
    f.eval("64 1 1 THREADS 512 SHARED: sh")
    f.eval(": race TID-X sh TID-X CELLS + ! sh 63 TID-X - CELLS + @ ; race")


def test_each_line_of_an_included_file_is_a_launch_of_its_own(f, tmp_path):
    """As at the prompt: the write on line 1 and the read on line 2 are two launches, ordered
    (INCLUDE used to run a file's lines as one launch, where they raced)."""
    p = tmp_path / "two.fs"
    p.write_text("TID-X sh TID-X CELLS + !\nsh 63 TID-X - CELLS + @\n")
    f.eval("64 1 1 THREADS 512 SHARED: sh")
    f.eval(f"INCLUDE {p}")
    np.testing.assert_array_equal(np.array(f.data_stack(lane=None))[:, -1], 63 - np.arange(64))
    p.write_text("TID-X sh TID-X CELLS + ! sh 63 TID-X - CELLS + @ DROP\n")
    with pytest.raises(ForthError, match=r"data race on shared memory at sh\+\d+"):
        f.eval(f"INCLUDE {p}")
