"""The cuda backend: PTX from the NVPTX target, loaded and launched by PyCUDA.

PyCUDA is imported lazily (extra `[cuda]`), so the package works without it.
Device memory holds the same records as on the emulator (layout.py): the
context (error record, allocation table, output buffer), one record per
thread and the stack state; the kernel finds its thread's record from its
special registers. Checked mode range-checks every access against the
allocation table in device memory, so a bad address is a ForthError and not
a dead CUDA context.

Differences from the emulator, by the hardware's nature: a divergent
BARRIER is undefined behaviour on a GPU (the emulator reports it), and the
tile stack lives in registers, so it does not persist between lines here.
"""
from __future__ import annotations

import time

import numpy as np

from tileforth.core import layout as L
from tileforth.core.errors import ForthError
from tileforth.core.target import Backend, LaunchResult

from .ptx import module_to_ptx, target_machine
from .target import NvptxTarget

OUT_CAP = 1 << 16
TABLE_CAP = 4096


def _driver():
    try:
        import pycuda.driver as cuda
    except ImportError as exc:
        raise ForthError("the cuda backend needs PyCUDA: pip install -e '.[cuda]' (or use backend='cpu')") from exc
    try:
        cuda.init()
        count = cuda.Device.count()
    except Exception as exc:  # pycuda raises its own error types
        raise ForthError(f"no usable NVIDIA GPU ({exc}); use backend='cpu'") from exc
    if count == 0:
        raise ForthError("no NVIDIA GPU found; use backend='cpu'")
    return cuda


class CudaKernel:
    def __init__(self, module: object, fn: object, name: str, suspends: bool) -> None:
        self.module, self.fn, self.name, self.suspends = module, fn, name, suspends


class CudaBackend(Backend):
    name = "cuda"
    keeps_tiles = False

    def __init__(self, device: int = 0) -> None:
        self.cuda = _driver()
        dev = self.cuda.Device(device)
        self.context = dev.make_context()
        major, minor = dev.compute_capability()
        self.arch = f"sm_{major}{minor}" if f"sm_{major}{minor}" in ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90") \
            else "sm_90"
        self.device_name = dev.name()
        self.target = NvptxTarget(self.arch, str(target_machine(self.arch, 3).target_data))
        self._allocs: dict[int, object] = {}
        self._sizes: dict[int, int] = {}
        self._user: set[int] = set()
        self._table_dirty = True
        self.ctx_host = np.zeros(L.CTX_SLOTS + L.THR_SLOTS, np.int64)
        self.ctx_dev = self._raw(self.ctx_host.nbytes)
        self.out_dev = self._raw(OUT_CAP * L.OUT_SLOTS * 8)
        self.table_dev = self._raw(TABLE_CAP * 16)
        # the abort flag is host memory mapped into the device, so Ctrl-C reaches a running kernel
        self.abort_host = self.cuda.pagelocked_zeros(1, np.int64, mem_flags=self.cuda.host_alloc_flags.DEVICEMAP)
        self.abort_dev = int(self.abort_host.base.get_device_pointer())
        self.shared_size = 0
        self.set_shape((1, 1, 1), (32, 1, 1))

    # ---- memory ----------------------------------------------------------------
    def _raw(self, nbytes: int) -> int:
        buf = self.cuda.mem_alloc(max(nbytes, 16))
        self.cuda.memset_d8(buf, 0, max(nbytes, 16))
        addr = int(buf)
        self._allocs[addr] = buf
        self._sizes[addr] = nbytes
        return addr

    def alloc(self, nbytes: int, user: bool = True) -> int:
        addr = self._raw(nbytes)
        if user:
            self._user.add(addr)
            self._table_dirty = True
        return addr

    def register_external(self, addr: int, nbytes: int) -> None:
        """Device memory owned by someone else (CuPy, PyTorch) that kernels may touch."""
        self._sizes[addr] = nbytes
        self._user.add(addr)
        self._table_dirty = True

    def free(self, addr: int) -> None:
        buf = self._allocs.pop(addr, None)
        self._sizes.pop(addr, None)
        if addr in self._user:
            self._user.discard(addr)
            self._table_dirty = True
        if buf is not None:
            buf.free()

    def _check(self, addr: int, nbytes: int) -> None:
        for base in self._sizes:
            if base <= addr and addr + nbytes <= base + self._sizes[base]:
                return
        raise ForthError(f"address ${addr:x} (+{nbytes} bytes) is not inside a live allocation")

    def read(self, addr: int, nbytes: int) -> np.ndarray:
        self._check(addr, nbytes)
        out = np.empty(nbytes, np.uint8)
        self.cuda.memcpy_dtoh(out, addr)
        return out

    def write(self, addr: int, data: np.ndarray | bytes) -> None:
        raw = np.frombuffer(bytes(data) if isinstance(data, (bytes, bytearray)) else
                            np.ascontiguousarray(data).tobytes(), np.uint8)
        self._check(addr, raw.size)
        self.cuda.memcpy_htod(addr, raw)

    def allocation_view(self, addr: int, nbytes: int) -> None:
        return None  # tile operations run on the device

    def set_shared(self, nbytes: int) -> int:
        self.shared_size = max(self.shared_size, nbytes)
        self.target.shared_bytes = self.shared_size
        return 0

    # ---- launch shape, state, tiles -----------------------------------------------
    def set_shape(self, grid: tuple[int, int, int], block: tuple[int, int, int]) -> None:
        self.grid, self.block = grid, block
        nb = grid[0] * grid[1] * grid[2]
        bs = block[0] * block[1] * block[2]
        self.nblocks, self.block_size, self.nthreads = nb, bs, nb * bs
        old = [a for a in (getattr(self, "state_dev", None), getattr(self, "thr_dev", None)) if a]
        for a in old:
            self.free(a)
        self.state_dev = self._raw(self.nthreads * L.STATE_BYTES)
        lin = np.arange(self.nthreads)
        thr = np.zeros((self.nthreads, L.THR_SLOTS), np.int64)
        thr[:, L.T_LINEAR] = lin
        thr[:, L.T_STATE] = self.state_dev + lin * L.STATE_BYTES
        self.thr_host = thr
        self.thr_dev = self._raw(thr.nbytes)

    def get_state(self) -> np.ndarray:
        out = np.empty((self.nthreads, L.STATE_BYTES), np.uint8)
        self.cuda.memcpy_dtoh(out, self.state_dev)
        return out

    def set_state(self, state: np.ndarray) -> None:
        self.cuda.memcpy_htod(self.state_dev, np.ascontiguousarray(state))

    def get_tiles(self) -> list:
        return []

    def set_tiles(self, tiles: list) -> None:
        pass

    def truncate_tiles(self, depth: int) -> None:
        pass

    def tiles_of(self, warp: int) -> list:
        return []

    # ---- compile and launch -----------------------------------------------------------
    def compile(self, module_text: str, kernel: str, suspends: bool, heavy: bool) -> CudaKernel:
        ptx = module_to_ptx(module_text, self.arch, heavy=heavy)
        module = self.cuda.module_from_buffer(ptx.encode())
        fn = module.get_function(kernel)
        fn.prepare("PP")
        return CudaKernel(module, fn, kernel, suspends)

    def launch(self, handle: CudaKernel, base_addr: int, shared_bytes: int, steps: int,
               sites: object = None) -> LaunchResult:
        t0 = time.perf_counter()
        if self._table_dirty:
            rows = sorted((a, a + self._sizes[a]) for a in self._user)[:TABLE_CAP]
            table = np.array(rows, np.int64).reshape(-1, 2)
            if len(table):
                self.cuda.memcpy_htod(self.table_dev, table)
            self._n_allocs = len(table)
            self._table_dirty = False
        ctx = self.ctx_host
        ctx[:] = 0
        ctx[L.CTX_ALLOCS] = self.table_dev
        ctx[L.CTX_N_ALLOCS] = self._n_allocs
        ctx[L.CTX_OUT] = self.out_dev
        ctx[L.CTX_OUT_CAP] = OUT_CAP
        ctx[L.CTX_BASE_ADDR] = base_addr
        ctx[L.CTX_ABORT] = self.abort_dev
        self.cuda.memcpy_htod(self.ctx_dev, ctx)
        thr = self.thr_host
        thr[:, L.T_STATUS] = L.ST_RUN
        thr[:, L.T_STEPS] = steps
        thr[:, L.T_CACHE_LO:L.T_CACHE_HI + 1] = 0
        thr[:, L.T_DEPTH] = 0
        self.cuda.memcpy_htod(self.thr_dev, thr)
        handle.fn.prepared_call(self.grid, self.block, self.ctx_dev, self.thr_dev)
        self.context.synchronize()
        self.cuda.memcpy_dtoh(ctx, self.ctx_dev)
        n_out = int(ctx[L.CTX_OUT_LEN])
        out = np.empty((min(n_out, OUT_CAP), L.OUT_SLOTS), np.int64)
        if len(out):
            self.cuda.memcpy_dtoh(out, self.out_dev)
        return LaunchResult(error=tuple(int(x) for x in ctx[:5]), output=out,
                            output_dropped=max(0, n_out - OUT_CAP), timings={"run": time.perf_counter() - t0})

    def reset_abort(self) -> None:
        self.abort_host[0] = 0

    def abort(self) -> None:
        """Ctrl-C: set the abort flag that loop back-edges poll (mapped host memory)."""
        self.abort_host[0] = 1
