"""Blocks on all cores (issue 13): a launch's blocks run on several worker threads, and what a
line leaves is what the one-worker run leaves — stacks, memory, output, errors — on the
project's demos and on multi-block SIMT programs (shared memory per block, warp ops, tiles,
barriers, the race detector, errors in two blocks at once, the output cap).

Each case runs the same text in two sessions, one with `workers = 1` (blocks one after
another, the reference) and one with 4 workers and no size threshold, and compares them."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tileforth.backends.cpu import backend as cpu_backend
from tileforth.core import Forth, ForthError
from tileforth.core.compile import layout as L
from tileforth.core.compile.machine import Machine

DEMOS = Path(__file__).resolve().parents[1] / "demos"

PROGRAMS = {
    "compute": "8 1 1 GRID 64 1 1 THREADS 512 I64 ARRAY out "
               ": w 0 100 0 DO I GLOBAL-ID * + LOOP DUP out GLOBAL-ID CELLS + ! ; w BID-X TID-X",
    "shared_reverse": "6 1 1 GRID 128 1 1 THREADS 1024 SHARED: buf 768 I64 ARRAY out "
                      ": rev GLOBAL-ID buf TID-X CELLS + ! BARRIER buf 127 TID-X - CELLS + @ "
                      "out GLOBAL-ID CELLS + ! ; rev",
    "warp": "5 1 1 GRID 64 1 1 THREADS GLOBAL-ID 1 SHFL-XOR GLOBAL-ID 3 SHFL-DOWN TID-X 1 AND 0= BALLOT",
    "output": '4 1 1 GRID 32 1 1 THREADS GLOBAL-ID 7 MOD IF ." x" GLOBAL-ID . ELSE ." y" THEN CR',
    "floats": "3 1 1 GRID 96 1 1 THREADS 288 F32 ARRAY fs GLOBAL-ID S>F FSQRT FDUP fs GLOBAL-ID SFLOATS + SF!",
    "tiles": "4 1 1 GRID 32 1 1 THREADS 16 16 F16 MATRIX A 16 16 F32 MATRIX C "
             "TZERO A 16 TLOAD-A A 16 TLOAD-B TMMA BID-X 0= IF THEN C 16 TSTORE",
    "atomic_counts": "8 1 1 GRID 64 1 1 THREADS 8 I64 ARRAY per "
                     ": bump 1 per BID-X CELLS + ATOMIC+ DROP ; bump",
}

ERRORS = {
    # blocks 2 and 5 both fail: the error is block 2's, as when blocks run in order
    "two_bad_blocks": "8 1 1 GRID 32 1 1 THREADS : bad BID-X 2 = BID-X 5 = OR IF 0 @ DROP THEN ; bad",
    "divergent_barrier": "4 1 1 GRID 64 1 1 THREADS : d BID-X 2 = TID-X 5 < AND IF BARRIER THEN ; d",
    "shared_race": "4 1 1 GRID 64 1 1 THREADS 512 SHARED: sh "
                   ": race BID-X 3 = IF TID-X sh TID-X CELLS + ! sh 63 TID-X - CELLS + @ DROP THEN ; race",
    "tile_divergence": "4 1 1 GRID 32 1 1 THREADS : t BID-X 1 = TID-X 0= AND IF TZERO TDROP THEN ; t",
}


def session(workers: int, monkeypatch, machine: Machine | None = None) -> Forth:
    monkeypatch.setattr(cpu_backend, "PARALLEL_THREADS", 0)
    f = Forth(backend="cpu", machine=machine)
    f.backend.workers = workers
    return f


def observe(f: Forth, text: str) -> dict:
    out = f.eval(text)
    arrays = {name: f.array(name).copy() for name in ("OUT", "FS", "C", "PER") if name in f.dict}
    return {"out": out, "ds": f.data_stack(lane=None), "fs": f.float_stack(lane=None), "arrays": arrays}


def same(a: dict, b: dict) -> None:
    assert a["out"] == b["out"]
    assert a["ds"] == b["ds"]
    np.testing.assert_array_equal(np.array(a["fs"], dtype=object), np.array(b["fs"], dtype=object))
    assert a["arrays"].keys() == b["arrays"].keys()
    for k in a["arrays"]:
        np.testing.assert_array_equal(a["arrays"][k], b["arrays"][k])


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_program_leaves_what_the_one_worker_run_leaves(name, monkeypatch):
    one = observe(session(1, monkeypatch), PROGRAMS[name])
    many = observe(session(4, monkeypatch), PROGRAMS[name])
    same(one, many)


def test_the_programs_really_ran_on_several_workers(monkeypatch):
    f = session(4, monkeypatch)
    f.eval("8 1 1 GRID 32 1 1 THREADS")
    assert len(f.backend._chunks()) == 4
    f.backend.trace_cap = 10  # PROFILE keeps the order of the accesses: one worker
    assert len(f.backend._chunks()) == 1


@pytest.mark.parametrize("name", ERRORS)
def test_an_error_is_the_one_worker_runs_error(name, monkeypatch):
    msgs, stacks = [], []
    for workers in (1, 4):
        f = session(workers, monkeypatch)
        f.eval("7")
        with pytest.raises(ForthError) as e:
            f.eval(ERRORS[name])
        msgs.append(str(e.value))
        stacks.append(f.data_stack(lane=None))
    assert msgs[0] == msgs[1]
    assert stacks[0] == stacks[1]


def test_the_step_pool_is_the_launchs_whatever_the_workers(monkeypatch):
    """Each of 256 threads draws one poll's worth (layout.POLL_EVERY) from the launch's pool of
    500,000 steps: 1,048,576 in all, more than the pool, though a quarter of the threads (what one
    of 4 workers runs) draws less. The launch fails alike with 1 and 4 workers; with a pool of
    2,000,000 it passes alike."""
    assert 64 * L.POLL_EVERY < 500_000 < 256 * L.POLL_EVERY < 2_000_000
    program = "8 1 1 GRID 32 1 1 THREADS : spin 0 5000 0 DO 1+ LOOP ; spin"
    for workers in (1, 4):
        f = session(workers, monkeypatch)
        f.eval("500000 SET-STEP-BUDGET")
        with pytest.raises(ForthError) as e:
            f.eval(program)
        assert e.value.message.startswith("the launch ran 500000 loop iterations"), e.value.message
        assert f.data_stack(lane=None) == [[]] * 32  # the failed line left the stacks as they were
        f.eval("2000000 SET-STEP-BUDGET")
        f.eval(program)
        assert f.data_stack(lane=None) == [[5000]] * 256


def test_the_output_cap_drops_the_same_records(monkeypatch):
    outs = []
    for workers in (1, 4):
        f = session(workers, monkeypatch, Machine(out_cap=1000))
        assert f.backend.out.shape == (1000, 4)  # the session's output buffer holds 1000 records
        outs.append(f.eval("4 1 1 GRID 64 1 1 THREADS : many 10 0 DO GLOBAL-ID . LOOP ; many"))
    assert outs[0] == outs[1]
    assert "dropped" in outs[0] or "more" in outs[0]


@pytest.mark.parametrize("demo", ["reduce.fth", "transpose.fth", "gemm.fth", "tour.fth"])
def test_the_demos_print_what_the_one_worker_run_prints(demo, monkeypatch):
    text = (DEMOS / demo).read_text()
    outs = []
    for workers in (1, 4):
        f = session(workers, monkeypatch)
        outs.append(f.eval(text, source=demo))
    assert outs[0] == outs[1]
