"""The step debugger's view of each warp's tile stack and of the models of asynchrony (issue 31: "the tile
stack, ... once the async words exist, groups and mbarrier phases").

References, worked out here from the programs, never read from the debugger: the cp.async groups a thread
holds before each async word (a small simulator of cp.async's rules, PTX ISA "cp.async.wait_group": a wait of
n leaves at most the n newest committed groups in flight); an mbarrier's pending arrivals and phase from
the number of lanes (numpy) that arrive before each BARRIER; the tile stack after each tile word from the
words' documented tile effects (docs/tiles.md), written out below.
"""
from __future__ import annotations

import numpy as np
import pytest

from tileforth.core import Forth
from tileforth.core.session.debugger import Groups, render

ASYNC_WORDS = ("CP.ASYNC", "CP.COMMIT", "CP.WAIT", "BARRIER")
SETUP = "32 1 1 THREADS  512 F32 ARRAY g  RAMP g  16 32 F32 1 SMEM-TILE s"
CP = ": cp ( k -- ) 512 * TID-X 16 * + DUP g + SWAP 0 s + CP.ASYNC CP.COMMIT ;"  # each thread: 1 copy, 1 group


def _ops(line: str) -> list[tuple[str, int]]:
    """The async ops the line runs, in order: `k cp` is a copy then a commit, `n CP.WAIT` a wait of n."""
    toks, ops = line.split(), []
    for i, t in enumerate(toks):
        if t == "cp":
            ops += [("CP.ASYNC", 0), ("CP.COMMIT", 0)]
        elif t == "CP.WAIT":
            ops.append(("CP.WAIT", int(toks[i - 1])))
        elif t == "BARRIER":
            ops.append(("BARRIER", 0))
    return ops


def _simulate(ops: list[tuple[str, int]]) -> tuple[int, int, int]:
    """(committed, in flight, open) after the ops, by cp.async's rules."""
    committed, flight, open_ = 0, 0, 0
    for op, n in ops:
        if op == "CP.ASYNC":
            open_ += 1
        elif op == "CP.COMMIT":
            committed, flight, open_ = committed + 1, flight + 1, 0
        elif op == "CP.WAIT":
            flight = min(flight, n)
    return committed, flight, open_


def _stops(d):
    out = []
    while not d.finished:
        out.append(d.view())
        d.step()
    return out


@pytest.mark.parametrize("checked", [True, False])
def test_groups_before_each_async_word_follow_the_wait_rule(checked):
    line = "0 cp 1 cp 2 cp 2 CP.WAIT 3 cp 0 CP.WAIT BARRIER"
    f = Forth(backend="cpu", checked=checked)
    f.eval(SETUP)
    f.eval(CP)
    ops = _ops(line)
    stops = [v for v in _stops(f.debug(line)) if v.word in ASYNC_WORDS]
    assert [v.word for v in stops] == [op for op, _ in ops]
    for i, v in enumerate(stops):
        want = Groups(*_simulate(ops[:i]))
        for ln in v.lanes:  # every lane did the same
            got = ln.groups if ln.groups is not None else Groups(0, 0, 0)
            assert got == want, (i, v.word, ln.lane)
        if ln.groups is None:
            assert i == 0  # "no copies": only before the launch's first async op
        else:
            assert v.rows[0].groups == want and v.rows[0].alike
    # after k commits and a wait of n, k - (k - n) = n groups are in flight: the stop after `2 CP.WAIT`
    after_wait = stops[ops.index(("CP.WAIT", 2)) + 1]
    assert after_wait.lanes[0].groups == Groups(3, 2, 0)
    text = render(stops[-1])
    assert "cp.async w0 4 committed, 0 in flight, 0 open" in text


def test_lanes_with_different_groups_are_marked():
    f = Forth(backend="cpu")
    f.eval(SETUP)
    f.eval(CP)
    d = f.debug("0 cp TID-X 8 < IF 1 cp THEN 0 CP.WAIT")
    v = next(v for v in _stops(d) if v.word == "CP.WAIT")
    extra = np.arange(32) < 8  # the lanes that committed a second group
    assert [ln.groups.committed for ln in v.lanes] == list(np.where(extra, 2, 1))
    assert [ln.groups.in_flight for ln in v.lanes] == list(np.where(extra, 2, 1))
    assert not v.rows[0].alike
    assert "(lanes differ)" in render(v)


def test_mbarrier_pending_and_phase_at_each_barrier():
    count = 32
    f = Forth(backend="cpu")
    f.eval("32 1 1 THREADS  8 SHARED: bar")
    line = (f"TID-X 0= IF bar {count} MBAR-INIT MBAR-FENCE THEN BARRIER  TID-X 16 < IF bar MBAR-ARRIVE THEN "
            "BARRIER  TID-X 15 > IF bar MBAR-ARRIVE THEN BARRIER  bar 0 MBAR-WAIT")
    tid = np.arange(32)
    arrivals = np.cumsum([0, int((tid < 16).sum()), int((tid > 15).sum())])  # before barriers 1, 2 and 3
    stops = _stops(f.debug(line))
    after = [stops[i + 1] for i, v in enumerate(stops) if v.word == "BARRIER" and sum(v.mask) == 32]
    assert len(after) == 3
    for k, v in enumerate(after):
        (m,) = v.mbars
        done = int(arrivals[k]) // count
        assert (m.offset, m.count, m.phase, m.pending, m.tx) == (0, count, done, count - int(arrivals[k]) % count, 0)
    assert "mbarrier @0: phase 1 (parity 1), 32 of 32 arrivals pending, tx 0 bytes" in render(after[-1])
    assert not stops[0].mbars  # before MBAR-INIT the block has none


def test_mbarrier_transaction_bytes():
    f = Forth(backend="cpu")
    f.eval("32 1 1 THREADS  8 SHARED: bar")
    d = f.debug("TID-X 0= IF bar 1 MBAR-INIT MBAR-FENCE bar 48 MBAR-TX bar 16 MBAR-TX THEN BARRIER TID-X DROP")
    v = [v for v in _stops(d) if v.word == "TID-X"][-1]
    assert [(m.tx, m.pending, m.phase) for m in v.mbars] == [(48 + 16, 1, 0)]


# the tile effects of the words (docs/tiles.md): TZERO ( -- acc ), TLOAD-A ( -- a ), TLOAD-B ( -- b ),
# TMMA ( acc a b -- acc ), TDROP ( t -- )
EFFECT = {"TZERO": (0, ["acc"]), "TLOAD-A": (0, ["a"]), "TLOAD-B": (0, ["b"]), "TMMA": (3, ["acc"]),
          "TDROP": (1, [])}


def test_each_warps_tile_stack_at_its_next_word():
    f = Forth(backend="cpu")
    f.eval("64 1 1 THREADS  16 16 F16 MATRIX A  RAMP A")
    line = "TZERO A 16 TLOAD-A A 16 TLOAD-B TMMA TDROP"
    words = line.split()
    cols = [i + 1 for i in range(len(line)) if line[i] != " " and (i == 0 or line[i - 1] == " ")]
    d = f.debug(line)
    for v in _stops(d):
        ran = words[:cols.index(v.pos.col)]  # the words before this one
        kinds: list[str] = []
        for w in ran:
            if w in EFFECT:
                pop, push = EFFECT[w]
                kinds = kinds[:len(kinds) - pop] + push
        row = v.rows[v.warp]
        assert [t.split("[")[0] for t in row.tiles] == kinds, v.word
        assert list(v.tiles) == list(row.tiles)
        if v.warp == 0:  # warp 1 has not started: its tile stack is the one at the line's first word
            assert v.rows[1].tiles == ()
    stop = next(v for v in _stops(f.debug(line)) if v.word == "TMMA")
    assert "tiles w0 ( acc[16x16x16 f32] a[16x16x16 f16] b[16x16x16 f16] )  w1 ( )" in render(stop)


def test_the_svg_of_a_stop_has_the_tile_and_async_rows():
    import xml.etree.ElementTree as ET

    from tileforth.core.session.debugsvg import view_svg

    f = Forth(backend="cpu")
    f.eval(SETUP)
    f.eval(CP)
    v = next(v for v in _stops(f.debug("0 cp 1 cp 1 CP.WAIT 0 CP.WAIT")) if v.word == "CP.WAIT")
    root = ET.fromstring(view_svg(v))
    rows = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "extra"]
    assert rows == ["cp.async w0 " + "2 committed, 2 in flight, 0 open"]  # two cp: two groups, none landed yet
