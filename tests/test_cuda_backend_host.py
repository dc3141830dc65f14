"""The cuda backend's host side (memory, state buffers, launch records)
against a stand-in for pycuda.driver that keeps device memory in numpy
(device code does not run here, so values reach the stacks through the host).
The kernels themselves need a GPU (tests/test_gpu.py); this checks what
the host does around them."""
from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from tileforth.core import layout as L


class FakeDriver(types.ModuleType):
    """Just enough of pycuda.driver: flat device memory, copies, a module
    whose kernel records its launch."""

    def __init__(self) -> None:
        super().__init__("pycuda.driver")
        self.mem = np.zeros(1 << 24, np.uint8)
        self.base = 1 << 32
        self.next = self.base
        self.launches: list[tuple] = []
        drv = self

        class Device:
            @staticmethod
            def count() -> int:
                return 1

            def __init__(self, i: int) -> None:
                pass

            def make_context(self):
                return types.SimpleNamespace(synchronize=lambda: None)

            def compute_capability(self):
                return (9, 0)

            def name(self):
                return "fake H200"

        class Alloc(int):
            def free(self) -> None:
                pass

        class Function:
            def prepare(self, sig: str) -> None:
                self.sig = sig

            def prepared_call(self, grid, block, *args) -> None:
                drv.launches.append((grid, block, args))

        self.Device = Device
        self._Alloc = Alloc
        self._Function = Function
        self.host_alloc_flags = types.SimpleNamespace(DEVICEMAP=1)

    def init(self) -> None:
        pass

    def mem_alloc(self, n: int):
        addr = self.next
        self.next += (n + 255) // 256 * 256
        return self._Alloc(addr)

    def _slice(self, addr: int, n: int) -> np.ndarray:
        return self.mem[addr - self.base:addr - self.base + n]

    def memset_d8(self, addr, value: int, n: int) -> None:
        self._slice(int(addr), n)[:] = value

    def memcpy_htod(self, addr, data) -> None:
        raw = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        self._slice(int(addr), raw.size)[:] = raw

    def memcpy_dtoh(self, out: np.ndarray, addr) -> None:
        out.reshape(-1).view(np.uint8)[:] = self._slice(int(addr), out.nbytes)

    def pagelocked_zeros(self, n, dtype, mem_flags=0):
        arr = np.zeros(n, dtype)
        holder = types.SimpleNamespace(get_device_pointer=lambda: 12345)
        view = arr.view()
        return types.SimpleNamespace(__getitem__=view.__getitem__, base=holder, arr=arr,
                                     __setitem__=view.__setitem__)

    def module_from_buffer(self, ptx: bytes):
        assert b".entry" in ptx
        fn = self._Function()
        return types.SimpleNamespace(get_function=lambda name: fn)


class _Flag:
    """pagelocked_zeros stand-in supporting [0] = 1 and .base.get_device_pointer()."""

    def __init__(self) -> None:
        self.value = np.zeros(1, np.int64)
        self.base = types.SimpleNamespace(get_device_pointer=lambda: 12345)

    def __setitem__(self, i, v) -> None:
        self.value[i] = v

    def __getitem__(self, i):
        return self.value[i]


@pytest.fixture
def cuda_forth(monkeypatch):
    drv = FakeDriver()
    drv.pagelocked_zeros = lambda n, dtype, mem_flags=0: _Flag()
    pkg = types.ModuleType("pycuda")
    pkg.driver = drv
    monkeypatch.setitem(sys.modules, "pycuda", pkg)
    monkeypatch.setitem(sys.modules, "pycuda.driver", drv)
    from tileforth.core import Forth
    return Forth(backend="cuda"), drv


def test_memory_round_trips_through_device_buffers(cuda_forth):
    f, drv = cuda_forth
    f.push_uniform(8, 6)  # literals would need the kernel to run; host words take them from the state
    f.eval("ARRAY xs")
    values = np.arange(8, dtype=np.float32) * 1.5
    f.set_array("xs", values)
    np.testing.assert_array_equal(f.array("xs"), values)
    assert f.backend_name == "cuda" and f.backend.arch == "sm_90"


def test_a_launch_passes_the_context_and_thread_records(cuda_forth):
    f, drv = cuda_forth
    f.push_uniform(2, 1, 1)
    f.eval("GRID")
    f.push_uniform(64, 1, 1)
    f.eval("BLOCK")
    drv.launches.clear()
    f.eval("1 2 +")
    (grid, block, (ctx, thr)), = drv.launches
    assert grid == (2, 1, 1) and block == (64, 1, 1)
    ctx_words = np.empty(L.CTX_SLOTS, np.int64)
    drv.memcpy_dtoh(ctx_words, ctx)
    assert ctx_words[L.CTX_OUT_CAP] > 0 and ctx_words[L.CTX_ABORT] == 12345
    records = np.empty((128, L.THR_SLOTS), np.int64)
    drv.memcpy_dtoh(records, thr)
    np.testing.assert_array_equal(records[:, L.T_LINEAR], np.arange(128))
    state_base = records[0, L.T_STATE]
    np.testing.assert_array_equal(np.diff(records[:, L.T_STATE]), L.STATE_BYTES)
    assert records[:, L.T_STEPS].min() == f.step_budget
    assert state_base > 0


def test_host_words_read_and_write_the_state_on_the_device(cuda_forth):
    f, drv = cuda_forth
    st = f.backend.get_state()
    st[:, 0:8].view(np.int64)[:, 0] = 1
    st[:, L.S_DS:L.S_DS + 8].view(np.int64)[:, 0] = 42
    f.backend.set_state(st)
    f.eval("CONSTANT answer")
    assert f.dict["ANSWER"].value == 42 and f.data_stack() == []
