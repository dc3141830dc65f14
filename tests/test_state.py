"""tileforth/core/compile/state.py: the typed view of the stack state buffer, against buffers
built by hand from the byte offsets of tileforth/core/compile/layout.py."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from tileforth.core.compile import layout as L
from tileforth.core.compile.machine import Machine
from tileforth.core.compile.state import (StackState, as_rows, buffer_bytes, differing, new_buffer,
                                  record_addresses)


# the default machine's layout, as docs/architecture.md and machine.py describe it: the depths, 128 cells,
# then 64 f32s (written out here, not read from the code under test)
DS_MAX, FS_MAX = 128, 64
S_FS = 16 + 8 * DS_MAX  # 1040
STATE_BYTES = S_FS + 4 * FS_MAX  # 1296


def hand_buffer(stacks: list[tuple[list[int], list[float]]]) -> np.ndarray:
    """A state buffer written byte by byte: one (cells, floats) per thread."""
    raw = np.zeros((len(stacks), STATE_BYTES), np.uint8)
    for t, (cells, floats) in enumerate(stacks):
        row = bytearray(STATE_BYTES)
        struct.pack_into("<q", row, L.S_DSP, len(cells))
        struct.pack_into("<q", row, L.S_FSP, len(floats))
        for i, c in enumerate(cells):
            struct.pack_into("<q", row, L.S_DS + 8 * i, c)
        for i, x in enumerate(floats):
            struct.pack_into("<f", row, S_FS + 4 * i, x)
        raw[t] = np.frombuffer(bytes(row), np.uint8)
    return raw


def read_back(raw: np.ndarray, t: int) -> tuple[list[int], list[float]]:
    """Thread t's stacks decoded byte by byte (the reference the view must match)."""
    row = raw[t].tobytes()
    (d,) = struct.unpack_from("<q", row, L.S_DSP)
    (fd,) = struct.unpack_from("<q", row, L.S_FSP)
    cells = [struct.unpack_from("<q", row, L.S_DS + 8 * i)[0] for i in range(d)]
    floats = [struct.unpack_from("<f", row, S_FS + 4 * i)[0] for i in range(fd)]
    return cells, floats


STACKS = [([1, 2, 3], [1.5]), ([4, -5], []), ([], [0.25, -2.0, 3.0]), ([2**63 - 1, -2**63], [float("inf")])]


def test_fields_are_views_at_the_layout_offsets():
    raw = hand_buffer(STACKS)
    st = StackState(raw)
    assert st.threads == 4
    assert st.dsp.tolist() == [3, 2, 0, 2] and st.fsp.tolist() == [1, 0, 3, 1]
    assert st.ds.shape == (4, DS_MAX) and st.ds.dtype == np.int64
    assert st.fs.shape == (4, FS_MAX) and st.fs.dtype == np.float32
    assert np.shares_memory(st.ds, raw) and np.shares_memory(st.fs, raw) and np.shares_memory(st.dsp, raw)
    st.ds[1, 0] = 99  # writes land at S_DS of row 1
    assert struct.unpack_from("<q", raw[1].tobytes(), L.S_DS)[0] == 99


def test_data_and_floats_of_one_lane_and_of_all():
    st = StackState(hand_buffer(STACKS))
    for t, (cells, floats) in enumerate(STACKS):
        assert st.data(t) == cells
        assert st.floats(t) == [float(np.float32(x)) for x in floats]
        assert all(type(v) is int for v in st.data(t)) and all(type(x) is float for x in st.floats(t))
    assert st.data_rows() == [c for c, _ in STACKS]
    assert st.float_rows() == [[float(np.float32(x)) for x in fl] for _, fl in STACKS]


def test_rows_when_every_thread_has_the_same_depth():
    stacks = [([t, t * 10], [t / 2]) for t in range(5)]
    st = StackState(hand_buffer(stacks))
    assert st.data_rows() == [[t, t * 10] for t in range(5)]
    assert st.float_rows() == [[t / 2] for t in range(5)]
    assert StackState.empty(3).data_rows() == [[], [], []]


def test_short_names_the_first_thread_without_enough_items():
    st = StackState(hand_buffer(STACKS))
    assert st.short(0) is None
    assert st.short(1) == 2
    assert st.short(3) == 1
    assert st.short(1, floats=True) == 1
    assert st.short(4, floats=True) == 0


@pytest.mark.parametrize("stacks", [
    [([7, 1, 2], []), ([1, 2], []), ([9, 9, 9, 1, 2], [])],  # ragged depths
    [([5, 1, 2], []), ([6, 1, 3], [])],  # the same depth
])
def test_top_takes_the_top_cells_of_each_thread_deepest_first(stacks):
    st = StackState(hand_buffer(stacks))
    assert st.top(2).tolist() == [c[-2:] for c, _ in stacks]
    assert st.top(0).shape == (len(stacks), 0)


def test_ftop_and_fdrop():
    st = StackState(hand_buffer([([], [1.0, 2.0]), ([], [3.0])]))
    assert st.ftop().tolist() == [2.0, 3.0]
    st.fdrop(1)
    assert read_back(st.raw, 0)[1] == [1.0] and read_back(st.raw, 1)[1] == []


def test_uniform_ignores_slots_above_the_depth_and_compares_floats_by_bits():
    raw = hand_buffer([([1, 2], [1.0]), ([1, 2], [1.0])])
    raw[1, L.S_DS + 8 * 5] = 77  # garbage above the depth
    raw[1, S_FS + 4 * 9] = 77
    assert StackState(raw).uniform()
    assert not StackState(hand_buffer([([1, 2], []), ([1, 3], [])])).uniform()
    assert not StackState(hand_buffer([([1, 2], []), ([1], [])])).uniform()
    assert not StackState(hand_buffer([([], [1.0]), ([], [])])).uniform()
    assert not StackState(hand_buffer([([], [0.0]), ([], [-0.0])])).uniform()  # bits differ
    nan = float("nan")
    assert StackState(hand_buffer([([], [nan]), ([], [nan])])).uniform()  # the same bits


@pytest.mark.parametrize("stacks", [
    [([1], []), ([], []), ([1, 2, 3], [])],  # ragged
    [([1], []), ([2], [])],  # the same depth
])
def test_push_and_drop(stacks):
    st = StackState(hand_buffer(stacks))
    st.push([10, -1])
    for t, (cells, _) in enumerate(stacks):
        assert read_back(st.raw, t)[0] == cells + [10, -1]
    st.push([])
    st.drop(2)
    for t, (cells, _) in enumerate(stacks):
        assert read_back(st.raw, t)[0] == cells


def test_set_floats_replaces_every_float_stack():
    st = StackState(hand_buffer(STACKS))
    st.set_floats([0.5, 2.0])
    for t, (cells, _) in enumerate(STACKS):
        assert read_back(st.raw, t) == (cells, [0.5, 2.0])


def test_broadcast_copies_one_lane_to_a_new_shape():
    st = StackState(hand_buffer(STACKS))
    wide = st.broadcast(0, 6)
    assert wide.threads == 6 and wide.raw.flags.writeable and wide.raw.flags.c_contiguous
    assert all(read_back(wide.raw, t) == (STACKS[0][0], STACKS[0][1]) for t in range(6))
    wide.push([3])
    assert st.data(0) == [1, 2, 3]  # the source is not shared


def test_differing_lists_threads_unlike_thread_0():
    assert differing(np.array([1, 1, 2, 1, 3])) == [2, 4]
    assert differing(np.array([[1, 2], [1, 2], [1, 3]])) == [2]
    assert differing(np.array([np.nan, np.nan], np.float32)) == [0, 1]  # as floats, NaN never equals
    assert differing(np.zeros((4, 0), np.int64)) == []


def test_buffers_and_addresses():
    assert new_buffer(3).shape == (3, STATE_BYTES) and not new_buffer(3).any()
    assert buffer_bytes(5) == 5 * STATE_BYTES
    assert record_addresses(1000, 3).tolist() == [1000, 1000 + STATE_BYTES, 1000 + 2 * STATE_BYTES]
    flat = hand_buffer(STACKS).reshape(-1)
    assert StackState(as_rows(flat, 4)).data_rows() == [c for c, _ in STACKS]


def test_rejects_what_is_not_a_state_buffer():
    with pytest.raises(ValueError):
        StackState(np.zeros((2, STATE_BYTES), np.int64))
    with pytest.raises(ValueError):
        StackState(np.zeros((2, 8), np.uint8))


class FakeBackend:
    machine = Machine()

    def __init__(self, raw):
        self.raw = raw

    def get_state(self):
        return self.raw.copy()

    def set_state(self, state):
        self.raw[...] = state

    def state_buffer(self):  # the contract's: None, the host works on copies
        return None


def test_load_is_a_copy_until_saved():
    be = FakeBackend(hand_buffer(STACKS))
    st = StackState.load(be)
    st.drop(1)
    assert StackState(be.raw).dsp.tolist() == [3, 2, 0, 2]
    st.save(be)
    assert StackState(be.raw).dsp.tolist() == [2, 1, -1, 1]


def test_a_machine_lays_out_the_state_it_is_given():
    """An f64 session's floats are 8 bytes, a smaller data stack moves the float stack down: each
    field still reads what was written at the offsets the layout describes."""
    m = Machine(float_bits=64, ds_max=10, fs_max=3)
    assert (m.s_fs, m.state_bytes) == (16 + 80, 16 + 80 + 24)
    row = bytearray(m.state_bytes)
    struct.pack_into("<qq", row, 0, 2, 3)
    struct.pack_into("<qq", row, 16, 7, -8)
    struct.pack_into("<ddd", row, 96, 1 / 3, -0.0, 1e300)
    st = StackState(np.frombuffer(bytes(row), np.uint8).reshape(1, -1).copy(), m)
    assert st.data(0) == [7, -8] and st.floats(0) == [1 / 3, -0.0, 1e300] and st.fs.dtype == np.float64
    assert st.ds.shape == (1, 10) and st.fs.shape == (1, 3)
    assert new_buffer(2, m).shape == (2, 120) and buffer_bytes(2, m) == 240
    assert record_addresses(0, 3, m).tolist() == [0, 120, 240]
    with pytest.raises(ValueError, match="120"):
        StackState(new_buffer(1), m)  # a default machine's buffer is not this machine's


# ---- the cpu backend's stacks of a big launch shape (backends/cpu/heldstacks.py), against dense buffers ---------
def _random_stacks(n: int, share: float, seed: int) -> list[tuple[list[int], list[float]]]:
    """n threads, a `share` of them holding up to 128 cells and 64 floats (the default machine's stacks)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        if rng.random() >= share:
            out.append(([], []))
            continue
        d, f = int(rng.integers(0, DS_MAX + 1)), int(rng.integers(0, FS_MAX + 1))
        if d == f == 0:
            d = 1
        out.append((rng.integers(-2**62, 2**62, d).tolist(), rng.random(f).astype(np.float32).tolist()))
    return out


@pytest.mark.parametrize("share", [0.0, 0.05, 0.9])  # empty; sparse (a list of holders); dense (a record each)
def test_held_stacks_read_write_and_stage_as_a_dense_buffer(share):
    from tileforth.backends.cpu.heldstacks import Held, stage_out
    m = Machine()
    n = 300
    stacks = _random_stacks(n, share, seed=int(share * 100))
    ref = hand_buffer(stacks)  # the dense buffer, byte by byte, cells above a depth 0
    zeros = np.zeros((n, 2), np.int64)
    held = Held.fresh(m, zeros).with_columns(0, ref, zeros)
    assert (held.who is None) == (share > 0.5) and held.empty == (share == 0)
    for start, width in ((0, 16), (16, 8 * DS_MAX), (S_FS, 4 * FS_MAX), (0, STATE_BYTES), (8, 40), (S_FS + 4, 12)):
        np.testing.assert_array_equal(held.columns(start, width), ref[:, start:start + width])
    # a partial write: the depths and 3 cells of every thread (StackState.save's first call), the floats kept
    part = ref[:, :16 + 24].copy()
    part.view(np.int64)[:, 0] = np.minimum(part.view(np.int64)[:, 0], 3)
    part.view(np.int64)[:, 2:5] += 1
    again = held.with_columns(0, part, zeros)
    want = [([c + 1 for c in cells[:3]], floats) for cells, floats in stacks]
    np.testing.assert_array_equal(again.columns(0, STATE_BYTES), hand_buffer(want))
    np.testing.assert_array_equal(held.columns(0, STATE_BYTES), ref)  # the one it was made from is unchanged
    # a launch's chunks: staged into records that hold garbage, then back as pieces, in two orders of chunks
    scratch = np.full((128, STATE_BYTES), 0xAB, np.uint8)
    pieces = []
    for lo in range(0, n, 128):
        c = min(128, n - lo)
        held.stage_in(lo, c, scratch)
        for t in range(c):  # what a thread sees: its depths and the items below them
            cells, floats = stacks[lo + t]
            row = scratch[t]
            assert row[:16].view(np.int64).tolist() == [len(cells), len(floats)]
            assert row[16:16 + 8 * len(cells)].view(np.int64).tolist() == cells
            assert row[S_FS:S_FS + 4 * len(floats)].view(np.float32).tolist() == floats
        pieces.append(stage_out(m, lo, c, scratch))
    back = Held.of_pieces(m, pieces, zeros)
    np.testing.assert_array_equal(back.columns(0, STATE_BYTES), ref)
    mixed = Held.of_pieces(m, [held.piece(0, 128), pieces[1], held.piece(256, n - 256)], zeros)
    np.testing.assert_array_equal(mixed.columns(0, STATE_BYTES), ref)
