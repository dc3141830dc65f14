"""Launches beyond 1,048,576 threads (issue 27, point 4): a 2M-thread line runs on the cpu backend within
bounded memory, its results checked against numpy; a launch whose stacks and records do not fit in the
memory free is a ForthError that names the sizes and what to do."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.compile.machine import sized_for
from tileforth.core.compile.state import StackState

THREADS = 2048 * 1024

CHILD = textwrap.dedent("""
    import json, resource, sys
    import numpy as np
    from tileforth.core import Forth, ForthError
    from tileforth.core.compile.state import StackView
    n = 2048 * 1024
    g = np.arange(n, dtype=np.int64)
    f = Forth(backend="cpu")
    f.eval(f"{n} I64 ARRAY out  2048 1 1 GRID 1024 1 1 THREADS")
    checks = {"lazy": f.backend.held is not None}
    f.eval("GLOBAL-ID DUP * 5 MOD GLOBAL-ID 3 * +  out GLOBAL-ID CELLS + !")  # each thread writes its own cell
    checks["array"] = bool(np.array_equal(f.array("out"), (g * g) % 5 + 3 * g))
    f.eval("GLOBAL-ID 3 * 7 +")  # one item on every thread
    v = StackView.read(f.backend)
    checks["one each"] = bool((v.dsp == 1).all() and (v.fsp == 0).all() and np.array_equal(v.ds[:, 0], g * 3 + 7))
    held = {"one each": f.backend.held.nbytes}
    f.eval("GLOBAL-ID 1000 MOD IF DROP ELSE GLOBAL-ID S>F 2e F* THEN")  # items kept on a subset of threads
    try:
        f.eval("GLOBAL-ID 2000001 = IF DROP DROP THEN")  # fails at thread 2,000,001: restored
    except ForthError as err:
        checks["error"] = "thread 2000001 has too few items" in str(err)
    held["subset"] = f.backend.held.nbytes
    v = StackView.read(f.backend)
    keep = g % 1000 == 0
    checks["subset"] = bool(np.array_equal(v.dsp, keep.astype(np.int64)) and np.array_equal(v.fsp, v.dsp)
                            and np.array_equal(v.ds[keep, 0], g[keep] * 3 + 7) and np.array_equal(v.fs[keep, 0], 2.0 * g[keep]))
    f.eval("GLOBAL-ID 1000 MOD 0= IF F>S + out GLOBAL-ID CELLS + ! THEN")  # a later line consumes them
    got = f.array("out")
    checks["consumed"] = bool(np.array_equal(got[keep], 5 * g[keep] + 7) and np.array_equal(got[~keep], ((g * g) % 5 + 3 * g)[~keep])
                              and f.backend.held.empty)
    print(json.dumps({"checks": checks, "held": held, "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      "workers": f.backend.workers, "chunk": f.backend.chunk_bytes}))
""")


def test_a_2m_thread_line_runs_on_cpu_within_bounded_memory():
    """2,097,152 threads (a 4096x4096 GEMM's tiles at one warp a tile): results checked against numpy, items
    kept on every thread and on a subset of threads between lines, a failed line restored, in a process of
    its own (its peak memory is the launch's)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["checks"] == {"lazy": True, "array": True, "one each": True, "error": True, "subset": True,
                             "consumed": True}
    # the stacks kept: a record of its depths and one cell a thread when every thread holds one (24 bytes), the
    # depths and a record only for the 2,098 threads that hold items then (16 bytes a thread; a cell and a
    # float: 16 + 8 + 4 bytes, rounded to 32)
    assert got["held"]["one each"] <= THREADS * 24 and got["held"]["subset"] <= THREADS * 16 + 2098 * 32
    # the process: the thread records (288 bytes a thread), the depths kept and a launch's new ones (16 bytes
    # each), the array (8 bytes a thread), the workers' scratch, the interpreter and this test's own numpy
    # arrays and views (about 600 MiB); not the 2M records of stack state (656 bytes each at 64 cells and 32
    # floats: 1.3 GiB more)
    bound = THREADS * (288 + 2 * 16 + 8) + got["workers"] * got["chunk"] + (600 << 20)
    assert got["peak_kib"] * 1024 < bound, (got["peak_kib"] >> 10, bound >> 20)


def test_stacks_shrink_past_a_million_threads_and_the_state_stays_bounded():
    f = Forth(backend="cpu")
    base = f.device.base
    at_1m = (1 << 20) * sized_for(base, 1 << 20, None).state_bytes
    for n in (2 << 20, 4 << 20, 8 << 20):
        m = sized_for(base, n, None)
        assert m.ds_max >= 16 and m.fs_max >= 8 and n * m.state_bytes <= 1.1 * at_1m
    assert sized_for(base, 4 << 20, (128, 64)).ds_max == 128  # stacks asked for are kept


def test_cpu_stacks_keep_the_floor_past_a_million_threads():
    """The cpu backend keeps a big launch's stacks lazily (Capabilities.lazy_stacks): only the items held
    take memory, so at 2M threads a thread's stacks still hold 128 cells and 64 floats (a backend whose
    stacks are dense halves them: 64 and 32), and one thread may fill them while the others hold none."""
    f = Forth(backend="cpu")
    f.eval("2048 1 1 GRID 1024 1 1 THREADS")
    assert f.backend.held is not None
    assert (f.backend.machine.ds_max, f.backend.machine.fs_max) == (128, 64)
    assert sized_for(f.device.base, 2 << 20, None).ds_max == 64  # (the dense backends' stacks)
    f.eval("GLOBAL-ID 12345 = IF 100 0 DO I LOOP 1.5e 60 0 DO FDUP LOOP THEN")
    assert f.data_stack(lane=12345) == list(range(100)) and f.float_stack(lane=12345) == [1.5] * 61
    assert f.data_stack(lane=0) == [] and f.data_stack(lane=(2 << 20) - 1) == []
    f.eval("GLOBAL-ID 12345 = IF 100 0 DO DROP LOOP 61 0 DO FDROP LOOP THEN")
    assert f.backend.held.empty


def test_a_launch_that_does_not_fit_in_memory_is_a_forth_error_and_the_session_goes_on(monkeypatch):
    f = Forth(backend="cpu")
    f.eval("1 2")
    monkeypatch.setattr(f.backend, "free_memory", lambda: 1 << 30)  # 1 GiB free
    with pytest.raises(ForthError, match=r"a launch of 4,194,304 threads needs ([\d,]+) MiB of memory for its stacks "
                       r"\(128 cells and 64 floats a thread\) and thread records, more than the 1,024 MiB of memory "
                       r"free on the cpu backend: use fewer threads") as err:
        f.eval("4096 1 1 GRID 1024 1 1 THREADS")
    need = int(re.search(r"needs ([\d,]+) MiB", str(err.value))[1].replace(",", ""))
    # its stacks are kept lazily: the thread records (288 bytes a thread) and two copies of the depths (16 bytes
    # each), and a scratch region per worker; not the 4M records of stack state (2,496 MiB with the records)
    assert (4 << 20) * (288 + 32) >> 20 <= need < ((4 << 20) * (288 + 32) >> 20) + 64 * f.backend.workers + 64
    assert f.launch_shape == ((1, 1, 1), (32, 1, 1)) and f.data_stack() == [1, 2]
    f.eval("+")
    assert f.data_stack(lane=None) == [[3]] * 32


def test_a_refused_buffer_is_the_same_error(monkeypatch):
    f = Forth(backend="cpu")
    monkeypatch.setattr(f.backend, "free_memory", lambda: None)  # unknown: the system itself refuses
    real = f.backend._make_shape

    def refuse(grid, block, *lazy):
        if grid[0] > 1000:
            raise MemoryError
        return real(grid, block, *lazy)
    monkeypatch.setattr(f.backend, "_make_shape", refuse)
    with pytest.raises(ForthError, match="a launch of 65,536 threads needs .* more than the memory there is"):
        f.eval("2048 1 1 GRID")  # 2048 blocks of 32 threads
    f.eval("5 DUP *")
    assert f.data_stack() == [25] and np.array_equal(np.array(f.data_stack(lane=None)), np.full((32, 1), 25))


def test_ctrl_c_during_a_huge_grid_lands_while_the_records_fill():
    """`1025 7 33 GRID` (7.5M threads, 2.4 GB of thread records, filled in 64 MiB chunks with no single
    uninterruptible call over all of them): a Ctrl-C arriving while they fill (from a timer, as the
    REPL's SIGINT handler delivers it) stops the line there, and the session keeps its stacks and shape."""
    import _thread
    import threading
    f = Forth(backend="cpu")
    f.eval("1 2")
    filled: list[int] = []
    backend = f.backend
    make = backend._make_shape

    def watched(*args, **kwargs):  # note that the fill began: the interrupt comes only after it did
        filled.append(1)
        threading.Timer(0.05, _thread.interrupt_main).start()
        out = make(*args, **kwargs)
        filled.append(2)  # all 2.4 GB written: the interrupt waited for the fill
        return out

    backend._make_shape = watched
    with pytest.raises(KeyboardInterrupt):
        f.eval("1025 7 33 GRID")
    backend._make_shape = make
    assert filled == [1] and f.data_stack() == [1, 2] and f.launch_shape == ((1, 1, 1), (32, 1, 1))
    assert f.eval("3 .") == "3 "


# ---- stacks kept lazily (backends/cpu/heldstacks.py): small shapes run the lazy way, in many chunks -------------
def lazy(f: Forth, shape: str = "16 1 1 GRID 64 1 1 THREADS", chunk_blocks: int = 1) -> Forth:
    """f at `shape`, whose stacks it keeps lazily, running in chunks of `chunk_blocks` blocks (the backend's
    thresholds lowered: the code of a 2M-thread launch, at a test's size)."""
    be = f.backend
    be.lazy_bytes = 0
    f.eval(shape)
    be.chunk_bytes = be.machine.state_bytes * be.block_size * chunk_blocks
    assert be.held is not None and be.state_buffer() is None and be.chunk_blocks() == chunk_blocks
    return f


def rows_of(expect) -> list[list]:
    return [list(r) for r in expect]


G = np.arange(16 * 64)  # 1,024 threads: past PARALLEL_THREADS, so the blocks go to the workers


def test_items_on_a_subset_of_threads_persist_across_lines_at_a_lazy_shape():
    f = lazy(Forth(backend="cpu"))
    f.eval("GLOBAL-ID 3 * 7 +")
    assert f.data_stack(lane=None) == rows_of([[3 * g + 7] for g in G])
    f.eval("GLOBAL-ID 5 MOD 0= IF GLOBAL-ID 2 * 1.5e THEN")  # a fifth of the threads hold more
    f.eval("1 +")
    want = [[3 * g + 7, 2 * g + 1] if g % 5 == 0 else [3 * g + 8] for g in G]
    assert f.data_stack(lane=None) == want
    assert f.float_stack(lane=None) == [[1.5] if g % 5 == 0 else [] for g in G]
    f.eval("GLOBAL-ID 5 MOD 0= IF + F>S + THEN")  # a later line consumes them
    assert f.data_stack(lane=None) == [[5 * g + 9] if g % 5 == 0 else [3 * g + 8] for g in G]
    assert f.float_stack(lane=None) == [[] for _ in G]
    f.eval("DROP")
    assert f.data_stack(lane=None) == [[] for _ in G] and f.backend.held.empty


def test_a_failed_line_at_a_lazy_shape_restores_every_threads_stacks():
    f = lazy(Forth(backend="cpu"))
    f.eval("GLOBAL-ID  GLOBAL-ID 3 MOD 0= IF 2.5e 9 THEN")
    before = f.data_stack(lane=None), f.float_stack(lane=None)
    held = f.backend.held
    with pytest.raises(ForthError, match="data stack underflow: thread 700 has too few items"):
        f.eval("DROP  GLOBAL-ID 700 = IF DROP DROP DROP THEN")  # the chunks before thread 700's ran, and wrote
    assert (f.data_stack(lane=None), f.float_stack(lane=None)) == before
    assert f.backend.held is held  # the snapshot was the stacks the line began with: no copy taken
    with pytest.raises(ForthError, match="float stack underflow: thread 0 has too few floats"):
        f.eval("1 2 3 F+")  # a host-pushed line, then a kernel that fails at the first chunk
    assert (f.data_stack(lane=None), f.float_stack(lane=None)) == before
    f.eval("GLOBAL-ID 3 MOD 0= IF DROP FDROP THEN")
    assert f.data_stack(lane=None) == [[g] for g in G] and f.float_stack(lane=None) == [[] for _ in G]


def test_host_words_read_and_write_the_stacks_of_a_lazy_shape():
    f = lazy(Forth(backend="cpu"))
    f.eval("4 5  2.5e")  # a line of literals: pushed by the host
    assert f.data_stack(lane=None) == [[4, 5]] * len(G) and f.float_stack(lane=1023) == [2.5]
    f.eval("+ FDROP")
    f.eval("32 1 1 GRID")  # GRID pops on the host, keeps the uniform stacks
    assert f.launch_shape == ((32, 1, 1), (64, 1, 1)) and f.data_stack(lane=None) == [[9]] * 2048
    assert f.backend.held is not None
    with pytest.raises(ForthError, match="keeps the stacks only when every thread has the same stacks"):
        f.eval("GLOBAL-ID 2 MOD IF 1 THEN 16 1 1 GRID")
    f.eval("CLEARSTACK")
    assert f.data_stack(lane=None) == [[]] * 2048


def test_barriers_shared_memory_and_warp_shuffles_at_a_lazy_shape():
    """A coroutine kernel's threads keep their scratch records across its BARRIERs (a block at a time, and
    blocks gathered at warp ops: warpops.run_together), each chunk of blocks in turn."""
    f = lazy(Forth(backend="cpu"), chunk_blocks=3)
    f.eval("512 SHARED: sh  GLOBAL-ID")
    f.eval("TID-X sh TID-X CELLS + !  BARRIER  sh 63 TID-X - CELLS + @")
    assert f.data_stack(lane=None) == [[g, 63 - g % 64] for g in G]
    g = lazy(Forth(backend="cpu"), chunk_blocks=5)
    g.eval("GLOBAL-ID 7 *")
    g.eval("DUP 1 SHFL-XOR  DUP 3 SHFL-DOWN")
    want = [[7 * t, 7 * (t ^ 1), 7 * ((t + 3) ^ 1 if t % 32 + 3 < 32 else t ^ 1)] for t in G]
    assert g.data_stack(lane=None) == want


def test_a_race_at_a_lazy_shape_is_reported_as_at_a_dense_one():
    line = ": race  TID-X sh TID-X CELLS + !  sh 63 TID-X - CELLS + @ ;  race"
    msgs = []
    for f in (Forth(backend="cpu"), lazy(Forth(backend="cpu"), "4 1 1 GRID 64 1 1 THREADS")):
        f.eval("4 1 1 GRID 64 1 1 THREADS  512 SHARED: sh  GLOBAL-ID")
        before = f.data_stack(lane=None)
        with pytest.raises(ForthError) as err:
            f.eval(line)
        msgs.append(str(err.value))
        assert f.data_stack(lane=None) == before == [[t] for t in range(256)]
    assert "data race on shared memory at sh+256 in race: thread 31 read it, then thread 32 wrote it" in msgs[0]
    assert msgs[0] == msgs[1]


def test_catch_at_a_lazy_shape_keeps_what_throw_left_as_at_a_dense_one():
    program = (": t  GLOBAL-ID 2 MOD IF 11 22 THEN  GLOBAL-ID 100 = IF 9 THROW THEN 1 ;  GLOBAL-ID ' t CATCH",)
    got = []
    for f in (Forth(backend="cpu"), lazy(Forth(backend="cpu"), "4 1 1 GRID 64 1 1 THREADS")):
        f.eval("4 1 1 GRID 64 1 1 THREADS")
        f.eval(program[0])
        got.append(f.data_stack(lane=None))
    assert got[0] == got[1]
    assert got[1][0][-1] == 9  # thread 100 threw 9: CATCH gives its code to every thread


def test_held_stacks_that_do_not_fit_in_memory_are_a_forth_error_and_the_session_goes_on(monkeypatch):
    f = lazy(Forth(backend="cpu"))
    f.eval("GLOBAL-ID")
    be = f.backend
    be.held_checked = 0
    monkeypatch.setattr(be, "free_memory", lambda: 1 << 16)  # 64 KiB free
    with pytest.raises(ForthError, match=r"the stacks this line leaves need [\d,]+ KiB \(1,024 of 1,024 threads hold "
                       r"items\), more than the 64 KiB of memory free on the cpu backend: leave fewer items on the "
                       r"stacks \(store results in an ARRAY and DROP them\) or use fewer threads"):
        f.eval("DUP 10 0 DO DUP LOOP")
    assert f.data_stack(lane=None) == [[g] for g in G]
    monkeypatch.undo()
    be.held_checked = 1 << 40  # no check: the system itself refuses
    from tileforth.backends.cpu import heldstacks

    def refuse(*args):
        raise MemoryError
    monkeypatch.setattr(heldstacks.Held, "of_pieces", refuse)
    with pytest.raises(ForthError, match="more than the memory there is on the cpu backend"):
        f.eval("DUP *")
    monkeypatch.undo()
    f.eval("1 +")
    assert f.data_stack(lane=None) == [[g + 1] for g in G]


def test_an_absurd_launch_is_a_forth_error_that_names_the_limit():
    f = Forth(backend="cpu")
    f.eval("1 2")
    with pytest.raises(ForthError, match=r"GRID: at most 16777216 threads in one launch on the cpu backend "
                       r"\(65535x65535x65535 blocks of 32 threads is \d+\); use fewer blocks"):
        f.eval("65535 65535 65535 GRID")
    assert f.launch_shape == ((1, 1, 1), (32, 1, 1)) and f.data_stack() == [1, 2]


def test_a_failed_line_that_moved_between_a_lazy_and_a_dense_shape_is_undone():
    f = Forth(backend="cpu")
    be = f.backend
    be.lazy_bytes = 8 << 20  # 1,024 threads' stacks (16 MiB) are kept lazily, 32 threads' (4.5 MiB) in a buffer
    f.eval("16 1 1 GRID 64 1 1 THREADS  5 6 DROP")
    assert be.held is not None
    with pytest.raises(ForthError, match="data stack underflow"):
        f.eval("1 1 1 GRID 32 1 1 THREADS  DROP DROP")  # a dense shape, then a kernel that fails
    assert f.launch_shape == ((16, 1, 1), (64, 1, 1)) and be.held is not None
    assert f.data_stack(lane=None) == [[5]] * 1024
    f.eval("1 1 1 GRID 32 1 1 THREADS  2 +")
    assert be.held is None and be.state_buffer() is not None
    with pytest.raises(ForthError, match="data stack underflow"):
        f.eval("16 1 1 GRID  GLOBAL-ID 500 = IF DROP DROP THEN")  # a lazy shape, then a kernel that fails
    assert f.launch_shape == ((1, 1, 1), (32, 1, 1)) and be.held is None
    assert f.data_stack(lane=None) == [[7]] * 32


def test_host_words_at_a_lazy_shape_never_copy_every_threads_whole_state(monkeypatch):
    """CLEARSTACK, CATCH and the views read the depths and the cells in use (StackState.load is a partial copy
    where the stacks are not one buffer), not the whole state of every thread (1.3 GB at 2M threads)."""
    f = lazy(Forth(backend="cpu"))

    def whole():
        raise AssertionError("the whole state was copied")
    monkeypatch.setattr(f.backend, "get_state", whole)
    f.eval(": t  GLOBAL-ID 9 = IF 5 THROW THEN 1 ;  GLOBAL-ID 2 ' t CATCH")
    assert f.data_stack(lane=None) == [[g, 2, 5] for g in G]  # thread 9 threw: every thread gets its code
    f.eval("CLEARSTACK 1e")
    assert f.data_stack(lane=None) == [[] for _ in G] and f.float_stack(lane=None) == [[1.0] for _ in G]


def test_thread_records_filled_piece_by_piece_match_numpys(monkeypatch):
    """_make_shape writes the thread records a cache-sized piece at a time (FILL_PIECE_BYTES): a shape of
    many pieces, with a piece boundary inside no block and blocks of three axes, against the ids computed
    by numpy for every thread."""
    from tileforth.backends.cpu import backend as cpu
    from tileforth.core.compile import layout as L
    monkeypatch.setattr(cpu, "FILL_PIECE_BYTES", 3 * 64 * L.THR_SLOTS * 8 + 100)  # 3 blocks a piece
    f = Forth(backend="cpu")
    grid, block = (7, 3, 5), (8, 4, 2)
    _, thr = f.backend._make_shape(grid, block)
    bs, n = 64, 7 * 3 * 5 * 64
    t = np.arange(n)
    b, tt = t // bs, t % bs
    want = {L.T_TID: tt % 8, L.T_TID + 1: (tt // 8) % 4, L.T_TID + 2: tt // 32,
            L.T_BID: b % 7, L.T_BID + 1: (b // 7) % 3, L.T_BID + 2: b // 21, L.T_LINEAR: t, L.T_BSTART: b * bs}
    for axis in range(3):
        want[L.T_BDIM + axis] = np.full(n, block[axis])
        want[L.T_GDIM + axis] = np.full(n, grid[axis])
    assert len(thr) == n
    assert [c for c, v in want.items() if not np.array_equal(thr[:, c], v)] == []


def test_a_host_word_at_a_lazy_shape_reads_only_the_top_cells(monkeypatch):
    """Fuzz seed 404: `-1 1024 7 GRID` at 12.6M threads took 18 s, most of it copying every thread's stacks
    for GRID to pop three cells. A host word now reads the depths and its top cells column by column, drops
    them by writing the depths; a refusal (threads that differ, too few items) leaves the stacks as they were."""
    import tileforth.core.session.interpreter as interp
    f = lazy(Forth(backend="cpu"))
    f.eval("7 GLOBAL-ID 2 * ")
    monkeypatch.setattr(StackState, "partial", classmethod(lambda cls, be, room=None: pytest.fail("copied")))
    with pytest.raises(ForthError, match="GRID needs three positive sizes"):
        f.eval("DROP -1 1024 7 GRID")  # the fuzzer's line: GRID reads three cells a thread, copies no stack
    monkeypatch.undo()
    assert f.data_stack(lane=None) == [[7, 2 * g] for g in G]
    f.eval("DROP 8 1 1 GRID")  # the kernel pushes 8 1 1 on every thread, GRID takes them off
    assert f.launch_shape == ((8, 1, 1), (64, 1, 1)) and f.data_stack(lane=None) == [[7]] * 512
    lazy(f, "CLEARSTACK 16 1 1 GRID 64 1 1 THREADS")
    f.eval("7 GLOBAL-ID")
    before = f.data_stack(lane=None)
    with pytest.raises(ForthError, match=r"GRID needs the same value\(s\) in every thread, but threads 1-1023"):
        f.eval("1 1 GRID")
    with pytest.raises(ForthError, match="data stack underflow: GRID needs 3 item"):
        f.eval("DROP DROP GRID")
    assert f.data_stack(lane=None) == before == [[7, g] for g in G]
    assert interp.HOST_PUSH_THREADS < 12_600_000


def test_literals_alone_at_a_big_shape_are_pushed_by_a_kernel(monkeypatch):
    """Past HOST_PUSH_THREADS a line of a few literals runs as a kernel (the host's pass over every thread's
    stacks was 6x slower at 524,288 threads); the stacks are the same either way."""
    import tileforth.core.session.interpreter as interp
    f = Forth(backend="cpu")
    f.eval("4 1 1 GRID 256 1 1 THREADS")
    f.eval("3 -5 2.5e")
    small = f.data_stack(lane=None), f.float_stack(lane=None)
    f.eval("CLEARSTACK")
    monkeypatch.setattr(interp, "HOST_PUSH_THREADS", 512)
    kernels = len(f.kcache)
    f.eval("3 -5 2.5e")
    assert len(f.kcache) == kernels + 1  # a kernel pushed them
    assert (f.data_stack(lane=None), f.float_stack(lane=None)) == small == ([[3, -5]] * 1024, [[2.5]] * 1024)
