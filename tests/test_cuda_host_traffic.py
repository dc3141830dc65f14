"""Host work per line on the cuda backend that does not grow with the threads (issue 27, point 3), on the
stand-in driver (tests/standin/pycuda): a line's snapshot is a device-to-device copy, restored the same way
when the line fails; the thread records are reset on the device; the views read the depths and the cells in
use. Kernels do not run on the stand-in: a test plays the kernel with `drv.on_launch` (it writes device
memory, as a kernel that failed half-way would)."""
from __future__ import annotations

import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.compile import layout as L

THREADS = 65536
SHAPE = "64 1 1 GRID 1024 1 1 THREADS"


@pytest.fixture
def f(cuda_session):
    return cuda_session


def _fill(f: Forth, rows: list[np.ndarray]) -> None:
    """Thread t's data stack becomes rows[t] (bottom first), through the host (set_state)."""
    st = f.backend.get_state()
    cells = st.view(np.int64)
    for t, row in enumerate(rows):
        cells[t, L.S_DSP // 8] = len(row)
        cells[t, L.S_DS // 8:L.S_DS // 8 + len(row)] = row
    f.backend.set_state(st)


def _expected(threads: int) -> list[np.ndarray]:
    """Stacks that differ by thread: thread t holds t % 5 cells, t*7 + i (numpy's, not the session's)."""
    t = np.arange(threads)
    return [t[i] * 7 + np.arange(t[i] % 5) for i in range(threads)]


class _Traffic:
    """Bytes the backend sends to and reads back from the device (wrapping the driver's copies)."""

    def __init__(self, drv, monkeypatch) -> None:
        self.up = self.down = 0
        htod, dtoh, cp2d = drv.memcpy_htod, drv.memcpy_dtoh, drv.Memcpy2D.__call__

        def up(dest, src):
            self.up += memoryview(src).nbytes
            htod(dest, src)

        def down(dest, src):
            self.down += memoryview(dest).nbytes
            dtoh(dest, src)

        def copy2d(c, aligned=False):
            self.down += c.width_in_bytes * c.height if c._dst[0] == "host" else 0
            cp2d(c, aligned)
        monkeypatch.setattr(drv, "memcpy_htod", up)
        monkeypatch.setattr(drv, "memcpy_dtoh", down)
        monkeypatch.setattr(drv.Memcpy2D, "__call__", copy2d)


def test_a_failed_line_at_65k_threads_gets_its_stacks_back_from_the_device_copy(f, drv):
    f.eval(SHAPE)
    rows = _expected(THREADS)
    _fill(f, rows)
    state = f.backend.state_dev
    nbytes = THREADS * f.machine.state_bytes

    def scribble(launch):  # the kernel overwrites every thread's stacks, then the line fails
        drv.device_view(state, nbytes)[:] = 0x5A
    drv.on_launch = scribble
    drv.inject("synchronize", 1)  # not sticky: the context lives on, the line fails
    with pytest.raises(ForthError, match="the GPU driver failed while running the line"):
        f.eval("1 2 +")
    got = f.data_stack(lane=None)
    assert len(got) == THREADS
    assert all(g == r.tolist() for g, r in zip(got, rows))


def test_a_failed_line_that_changed_the_launch_shape_gets_the_stacks_of_the_old_shape_back(f, drv):
    f.eval(SHAPE)
    rows = _expected(THREADS)
    _fill(f, rows)
    with pytest.raises(ForthError):
        f.eval("1 1 1 GRID 32 1 1 THREADS  no-such-word")
    assert f.backend.nthreads == THREADS
    got = f.data_stack(lane=None)
    assert all(g == r.tolist() for g, r in zip(got, rows))


def test_a_line_at_65k_threads_sends_no_thread_records_and_reads_back_no_stacks(f, drv, monkeypatch):
    f.eval(SHAPE)
    f.eval("1 2 + DROP")  # the kernel is compiled and the first launch's one-off work done
    traffic = _Traffic(drv, monkeypatch)
    drv.launches.clear()
    f.eval("1 2 + DROP")
    assert len(drv.launches) == 1
    # the context goes up and comes back (a few hundred bytes); nothing per thread (records: 288 B a thread,
    # the state 1,296 B a thread: 18 MiB and 81 MiB at 65,536 threads)
    assert traffic.up < 4096 and traffic.down < 4096, (traffic.up, traffic.down)


def test_the_thread_records_are_reset_on_the_device_each_launch(f, drv):
    f.eval(SHAPE)
    f.eval("1 2 + DROP")
    thr = f.backend.thr_dev
    view = drv.device_view(thr, THREADS * L.THR_SLOTS * 8).view(np.int64).reshape(THREADS, L.THR_SLOTS)
    view[:, L.T_STATUS] = L.ST_ERROR  # what a kernel leaves: status, steps spent, a range cache, a depth
    view[:, L.T_STEPS] = -5
    view[:, L.T_CACHE_LO:L.T_DEPTH + 1] = 99
    f.step_budget = (3 << 32) + 12345  # a budget whose two 32-bit halves differ
    f.eval("1 2 + DROP")
    records = drv.device_view(thr, THREADS * L.THR_SLOTS * 8).view(np.int64).reshape(THREADS, L.THR_SLOTS)
    assert (records[:, L.T_STATUS] == L.ST_RUN).all() and (records[:, L.T_STEPS] == (3 << 32) + 12345).all()
    assert (records[:, L.T_CACHE_LO:L.T_DEPTH + 1] == 0).all()
    np.testing.assert_array_equal(records[:, L.T_LINEAR], np.arange(THREADS))
    m = f.backend.machine
    np.testing.assert_array_equal(records[:, L.T_STATE], f.backend.state_dev + np.arange(THREADS) * m.state_bytes)


def test_the_views_read_the_depths_then_the_cells_in_use(f, drv, monkeypatch):
    f.eval(SHAPE)
    rows = _expected(THREADS)
    _fill(f, rows)
    traffic = _Traffic(drv, monkeypatch)
    assert f.data_stack(lane=1234) == rows[1234].tolist()
    assert f.float_stack(lane=7) == []
    # 16 bytes a thread of depths, then the 4 deepest cells' columns: not the 1,296-byte records
    assert traffic.down <= THREADS * (16 + 4 * 8) * 2, traffic.down


def test_host_words_work_on_the_depths_and_the_cells_in_use(f, drv, monkeypatch):
    f.eval(SHAPE)
    rows = _expected(THREADS)
    _fill(f, rows)
    traffic = _Traffic(drv, monkeypatch)
    f.push_uniform(*range(100, 120))  # 20 cells: more than the room a partial copy starts with (it widens)
    used = 16 + 8 * (4 + 20)  # bytes a thread in use: the depths, the deepest stack's cells
    assert traffic.up + traffic.down <= 3 * THREADS * used, (traffic.up, traffic.down)
    assert traffic.up + traffic.down < THREADS * f.machine.state_bytes  # not the whole state
    got = f.data_stack(lane=None)
    assert all(g == r.tolist() + list(range(100, 120)) for g, r in zip(got, rows))
    assert f.pop_uniform(2, "test") == [118, 119]
    f.push_uniform_float(2.5)
    assert f.data_stack(lane=65535) == rows[65535].tolist() + list(range(100, 118))
    assert f.float_stack(lane=65535) == [2.5]
