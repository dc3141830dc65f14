"""Per-line host work that does not grow with the threads (issue 13): behaviour,
not timing (benchmarks/hostwork.py has the figures).

A line's snapshot keeps only the depths and the cells below the deepest stack
(tileforth/core/compile/state.py: Snapshot), host words change the cpu backend's state
buffer in place (StackState.live), the cpu backend keeps the buffers of the
launch shapes it used last, and output is grouped by thread with numpy. These
check that a failing line still restores everything, at 65,536 threads too.
"""

import numpy as np
import pytest
from tileforth.core.compile.target import LaunchShape
from tileforth.core import Forth, ForthError
from tileforth.core.compile import layout as L
from tileforth.core.compile.state import Snapshot, StackState
from tileforth.core.compile.machine import DEFAULT
from tileforth.core.session.output import format_output, render_records, thread_texts

BIG = "64 1 1 GRID 1024 1 1 THREADS"  # 65,536 threads
N = 1 << 16


@pytest.fixture(scope="module")
def big():
    f = Forth(backend="cpu")
    f.eval(BIG)
    return f


def stacks(f):
    return f.data_stack(lane=None), f.float_stack(lane=None), f.launch_shape


# ---- a failing line restores the session, at 65,536 threads ----------------------------------------
def test_failing_line_restores_differing_stacks_at_65536_threads(big):
    big.eval("CLEARSTACK GLOBAL-ID 7 GLOBAL-ID 3 * 1e GLOBAL-ID S>F")
    before = stacks(big)
    assert before[0][5] == [5, 7, 15] and before[0][N - 1] == [N - 1, 7, 3 * (N - 1)]
    assert before[1][3] == [1.0, 3.0]
    # the line overwrites every cell the stacks hold, deepens them, then fails in one thread
    with pytest.raises(ForthError, match="division by zero"):
        big.eval("DROP DROP DROP FDROP FDROP 1 2 3 4 5 6 2e 3e 4e GLOBAL-ID 9 = IF 0 ELSE 1 THEN 1 SWAP /")
    assert stacks(big) == before
    big.eval("* F+")  # the stacks still work after the restore
    assert big.data_stack(lane=9) == [9, 7 * 27] and big.float_stack(lane=9) == [10.0]
    big.eval("CLEARSTACK")
    assert big.float_stack(lane=None)[0] == []


def test_failing_host_word_restores_stacks_it_popped(big):
    big.eval("CLEARSTACK 1 2 3")
    with pytest.raises(ForthError):
        big.eval("DROP 0 1 GRID")  # GRID pops three (2 0 1), then refuses the shape
    assert big.data_stack(lane=None)[N - 1] == [1, 2, 3]
    with pytest.raises(ForthError):
        big.eval("CONSTANT x nosuchword")
    assert big.data_stack(lane=0) == [1, 2, 3] and big.lookup("X") is None
    big.eval("CLEARSTACK")


def test_failing_line_restores_the_launch_shape_and_stacks(big):
    big.eval("CLEARSTACK 5 6")
    with pytest.raises(ForthError, match="unknown word"):
        big.eval("2 1 1 GRID 32 1 1 THREADS 8 nosuchword")
    assert big.launch_shape == ((64, 1, 1), (1024, 1, 1))
    rows = big.data_stack(lane=None)
    assert len(rows) == N and all(r == [5, 6] for r in rows[::997])
    big.eval("+")
    assert big.data_stack(lane=N - 1) == [11]
    big.eval("CLEARSTACK")


def test_interrupted_line_restores_stacks(big):
    """A line stopped by its step budget (a runaway loop) fails like any other."""
    big.eval("CLEARSTACK 1 2")
    old = big.step_budget
    big.step_budget = 10_000
    try:
        with pytest.raises(ForthError):
            big.eval("DROP DROP 9 BEGIN 0 UNTIL")
    finally:
        big.step_budget = old
    assert big.data_stack(lane=N - 1) == [1, 2]
    big.eval("CLEARSTACK")


# ---- launch shapes: GRID/THREADS, the cached buffers ---------------------------------------------
def test_grid_keeps_uniform_stacks_and_floats():
    f = Forth(backend="cpu")
    f.eval("1 2 3 2.5e 4 1 1 GRID 64 1 1 THREADS")
    assert f.backend.nthreads == 256
    assert all(r == [1, 2, 3] for r in f.data_stack(lane=None))
    assert all(r == [2.5] for r in f.float_stack(lane=None))
    f.eval("CLEARSTACK 1 1 1 GRID 32 1 1 THREADS")
    assert f.data_stack(lane=None) == [[]] * 32 and f.float_stack(lane=None) == [[]] * 32


def test_grid_refuses_differing_stacks_and_keeps_them():
    f = Forth(backend="cpu")
    f.eval("GLOBAL-ID")
    with pytest.raises(ForthError, match="same stacks"):
        f.eval("4 1 1 GRID")
    assert f.data_stack(lane=None) == [[t] for t in range(32)]


def test_a_shape_used_before_starts_with_empty_stacks():
    """The cpu backend reuses a shape's buffers: its stacks are empty again, and
    its thread records still number the threads."""
    f = Forth(backend="cpu")
    f.eval("4 1 1 GRID GLOBAL-ID 10 +")
    assert f.data_stack(lane=None)[127] == [137]
    f.eval("CLEARSTACK 1 1 1 GRID 4 1 1 GRID")
    assert f.data_stack(lane=None) == [[]] * 128
    f.backend.set_shape(LaunchShape((4, 1, 1), (32, 1, 1)))  # the same shape again: empty stacks
    f.eval("GLOBAL-ID BID-X")
    rows = f.data_stack(lane=None)
    assert rows[0] == [0, 0] and rows[127] == [127, 3]


def test_a_large_shapes_thread_records_are_mapped_at_once_and_right():
    """A shape whose thread records pass PREFAULT_BYTES gets them in a mapping made at once (buffers.zeroed)
    (MAP_POPULATE): every thread still sees its own indices (numpy's model of the grid)."""
    from tileforth.backends.cpu import backend as cpu
    f = Forth(backend="cpu")
    f.eval("8 8 1 GRID 32 4 8 THREADS")  # 65,536 threads: 18 MiB of records
    assert f.backend.thr.nbytes >= cpu.PREFAULT_BYTES
    f.eval("GLOBAL-ID  BID-X 8 * BID-Y +  TID-Z 128 * TID-Y 32 * + TID-X +")
    rows = np.array(f.data_stack(lane=None))
    t = np.arange(65536)
    block, lane = t // 1024, t % 1024
    bx, by = block % 8, block // 8
    np.testing.assert_array_equal(rows[:, 1], bx * 8 + by)
    np.testing.assert_array_equal(rows[:, 2], lane)
    np.testing.assert_array_equal(rows[:, 0], bx * 32 + lane % 32)  # GLOBAL-ID: BID-X * BDIM-X + TID-X


def test_shape_cache_is_bounded():
    from tileforth.backends.cpu import backend as B

    f = Forth(backend="cpu")
    for n in (64, 128, 256, 512, 1024):
        f.eval(f"{n} 1 1 GRID 1024 1 1 THREADS")
    kept = sum(s.nbytes + t.nbytes for s, t in f.backend._shapes.values())
    assert kept <= B.SHAPE_CACHE_BYTES or len(f.backend._shapes) == 1
    key = ((1024, 1, 1), (1024, 1, 1), f.machine, f.backend.lazy_state(1 << 20))  # the last shape, kept last
    assert list(f.backend._shapes)[-1] == key and f.backend.thr is f.backend._shapes[key][1]
    f.eval("1 1 1 GRID 32 1 1 THREADS 3 .")


def test_kernel_call_leaves_the_session_as_it_was(big):
    big.eval("CLEARSTACK 4 5")
    big.eval(": fill ( addr -- ) GLOBAL-ID CELLS + GLOBAL-ID 2 * SWAP ! ;")
    k = big.kernel("fill")
    arr = np.zeros(N, np.int64)
    for _ in range(2):
        k(arr, grid=(64, 1, 1), block=(1024, 1, 1))
        assert (arr == 2 * np.arange(N)).all()
        assert big.launch_shape == ((64, 1, 1), (1024, 1, 1))
        assert big.data_stack(lane=N - 1) == [4, 5]
    small = np.zeros(32, np.int64)
    k(small)  # its own default shape, and back
    assert (small == 2 * np.arange(32)).all()
    assert big.data_stack(lane=None)[N - 1] == [4, 5] and big.backend.nthreads == N
    big.eval("CLEARSTACK")


# ---- the state buffer's views and snapshot --------------------------------------------------------
def test_live_view_is_the_cpu_buffer():
    f = Forth(backend="cpu")
    st = StackState.live(f.backend)
    assert st.raw is f.backend.state_buffer()
    st.push([1, 2])
    st.save(f.backend)  # nothing to copy
    assert f.data_stack() == [1, 2]
    copy = StackState.load(f.backend)
    copy.drop(2)
    assert f.data_stack() == [1, 2]  # a copy changes nothing until saved
    copy.save(f.backend)
    assert f.data_stack() == []


class _CopyingBackend:
    """A backend that keeps its state elsewhere (as the cuda backend does): only get/set_state."""

    machine = DEFAULT

    def __init__(self, threads):
        self.state = np.zeros((threads, self.machine.state_bytes), np.uint8)
        self.sets = 0

    def get_state(self):
        return self.state.copy()

    def set_state(self, state):
        self.sets += 1
        self.state[...] = state

    def state_buffer(self):  # the contract's: None, the stacks are not host memory
        return None


def test_live_view_and_snapshot_on_a_copying_backend():
    be = _CopyingBackend(8)
    st = StackState.live(be)
    st.push([3, 4])
    st.fpush([1.5])
    assert StackState.load(be).data(0) == []  # a copy until saved
    st.save(be)
    snap = Snapshot.take(be)
    st = StackState.live(be)
    st.drop(2)
    st.push([9, 9, 9])
    st.fdrop(1)
    st.save(be)
    snap.restore(be)
    back = StackState.load(be)
    assert back.data_rows() == [[3, 4]] * 8 and back.float_rows() == [[1.5]] * 8


def test_snapshot_copies_only_what_the_stacks_use():
    st = StackState.empty(1000)
    snap = Snapshot(st)
    assert snap.head.nbytes + snap.floats.nbytes == 16 * 1000
    st.dsp[3] = 5
    st.ds[3, :5] = [1, 2, 3, 4, 5]
    snap = Snapshot(st)
    assert snap.head.shape == (1000, 2 + 5) and snap.floats.shape == (1000, 0)


def test_data_stack_rows_of_differing_depths(big):
    big.eval("CLEARSTACK GLOBAL-ID 3 MOD 0 ?DO I LOOP")
    rows = big.data_stack(lane=None)
    assert rows[0] == [] and rows[1] == [0] and rows[2] == [0, 1] and rows[N - 1] == [] and rows[N - 2] == [0, 1]
    big.eval("CLEARSTACK")


# ---- output, grouped by thread with numpy -----------------------------------------------------------
def naive_texts(records, strings):
    """Each thread's text the way output.py rendered it before: thread by thread."""
    order = np.argsort(records[:, 0], kind="stable")
    recs = records[order]
    out = {}
    for t in np.unique(recs[:, 0]).tolist():
        out[t] = render_records(recs[recs[:, 0] == t], strings)
    return out


def test_thread_texts_match_rendering_thread_by_thread():
    rng = np.random.default_rng(13)
    strings = ["hi", "there\n"]
    kinds = [(L.OUT_INT, 10), (L.OUT_UINT, 16), (L.OUT_CHAR, 0), (L.OUT_STR, 0), (L.OUT_INT_R, 6 << 8 | 10)]
    rows = []
    for t in range(300):
        for _ in range(int(rng.integers(0, 4))):  # 0-3 records; some threads print nothing
            kind, aux = kinds[int(rng.integers(len(kinds)))]
            value = {L.OUT_CHAR: int(rng.choice([65, 0xC3, 0xA9, 10])), L.OUT_STR: int(rng.integers(2))}.get(
                kind, int(rng.integers(-3, 3)))
            rows.append((t, kind, aux, value))
    records = np.array(rows, np.int64)
    shuffled = records[rng.permutation(len(records))]
    shuffled = shuffled[np.argsort(shuffled[:, 0], kind="stable")]  # each thread's records in its order
    interleaved = np.concatenate([records[records[:, 0] % 2 == 0], records[records[:, 0] % 2 == 1]])
    decimal = np.array([(t, L.OUT_INT, 10, v) for t, v in enumerate([-2**63, -5, 0, 7, 2**63 - 1, 7])], np.int64)
    for recs in (records, interleaved, decimal, decimal[::-1]):
        got = thread_texts(recs, strings)
        want = naive_texts(recs, strings)
        assert isinstance(got, dict) and got == want


def test_uniform_output_is_printed_once(big):
    assert big.eval("7 .") == "7 "
    records = np.tile(np.array([[0, L.OUT_INT, 10, 7], [0, L.OUT_STR, 0, 0]], np.int64), (4, 1))
    records[:, 0] = [3, 3, 1, 1, 2, 2, 0, 0]
    assert thread_texts(records, ["x\n"]) == "7 x\n" and format_output(records, ["x\n"]) == "7 x\n"
    records[4, 3] = 8  # thread 2 prints 8: no longer the same
    assert format_output(records, ["x\n"]) == "[thread 0-1, 3] 7 x\n[thread 2] 8 x\n"


def test_differing_output_at_65536_threads_is_summarised(big):
    out = big.eval("GLOBAL-ID 2 MOD .")
    lines = out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("[b0-63 t0, 2, 4") and lines[0].endswith("] 0 ")
    out = big.eval("GLOBAL-ID 4096 < IF GLOBAL-ID . THEN")
    assert out.splitlines()[0].startswith("[b0-3] 0 1 2 … 4095")
