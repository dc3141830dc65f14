"""The CUDA driver through cuda-python (`cuda.bindings.driver`), for phase A: no PyCUDA, no tileforth.

One device's primary context (the one PyTorch and CuPy use, so their tensors' pointers are valid
here), made current on this thread for the whole process. Calls follow cuda-python's conventions:
each returns a tuple whose first item is the CUresult; addresses are passed as ints. On the
stand-in (tests/standin/cuda) kernels do not run: every result that needs one is wrong there.
"""
from __future__ import annotations

import time

import numpy as np


class CuError(RuntimeError):
    def __init__(self, call: str, code: int, text: str) -> None:
        super().__init__(f"{call} failed: CUDA error {code} ({text})")
        self.call, self.code, self.text = call, code, text


def _bindings():
    try:
        from cuda.bindings import driver
    except ImportError:
        from cuda import cuda as driver  # cuda-python before 12.6
    return driver


class Driver:
    """The device's primary context, current on this thread until close()."""

    def __init__(self, ordinal: int = 0) -> None:
        self.cu = cu = _bindings()
        self.standin = "standin" in (getattr(cu, "__file__", "") or "")
        self.ok(cu.cuInit(0), "cuInit")
        self.dev = self.ok(cu.cuDeviceGet(ordinal), "cuDeviceGet")
        self.ctx = self.ok(cu.cuDevicePrimaryCtxRetain(self.dev), "cuDevicePrimaryCtxRetain")
        self.ok(cu.cuCtxPushCurrent(self.ctx), "cuCtxPushCurrent")
        self._keep: list = []  # images the driver may still read

    def ok(self, result, call: str = "a driver call"):
        err, rest = (result[0], result[1:]) if isinstance(result, tuple) else (result, ())
        if int(err) != 0:
            got = self.cu.cuGetErrorString(err)
            text = got[1].decode() if len(got) > 1 and got[1] else "?"
            raise CuError(call, int(err), text)
        return rest[0] if len(rest) == 1 else (rest or None)

    def close(self) -> None:
        self.cu.cuCtxPopCurrent()
        self.cu.cuDevicePrimaryCtxRelease(self.dev)

    # ---- the device -------------------------------------------------------------------------------------
    def attribute(self, name: str) -> int:
        attr = getattr(self.cu.CUdevice_attribute, "CU_DEVICE_ATTRIBUTE_" + name)
        return int(self.ok(self.cu.cuDeviceGetAttribute(attr, self.dev), "cuDeviceGetAttribute"))

    def capability(self) -> tuple[int, int]:
        return self.attribute("COMPUTE_CAPABILITY_MAJOR"), self.attribute("COMPUTE_CAPABILITY_MINOR")

    def arch(self) -> str:
        return "sm_%d%d" % self.capability()

    def name(self) -> str:
        raw = self.ok(self.cu.cuDeviceGetName(256, self.dev), "cuDeviceGetName")
        return (raw.split(b"\0", 1)[0] if isinstance(raw, bytes) else str(raw).encode()).decode()

    # ---- modules ------------------------------------------------------------------------------------------
    def load(self, image: bytes, opt_level: int | None = None):
        """cuModuleLoadDataEx of PTX text or a cubin; opt_level: CU_JIT_OPTIMIZATION_LEVEL (0-4)."""
        data = image if image[:4] == b"\x7fELF" else image.rstrip(b"\0") + b"\0"
        buf = np.frombuffer(data, np.uint8).copy()
        self._keep.append(buf)
        opts = [] if opt_level is None else [self.cu.CUjit_option.CU_JIT_OPTIMIZATION_LEVEL]
        vals = [] if opt_level is None else [int(opt_level)]
        return self.ok(self.cu.cuModuleLoadDataEx(buf.ctypes.data, len(opts), opts, vals), "cuModuleLoadDataEx")

    def unload(self, module) -> None:
        self.ok(self.cu.cuModuleUnload(module), "cuModuleUnload")

    def function(self, module, name: str):
        return self.ok(self.cu.cuModuleGetFunction(module, name.encode()), "cuModuleGetFunction")

    def registers(self, fn) -> int:
        attr = self.cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS
        return int(self.ok(self.cu.cuFuncGetAttribute(attr, fn), "cuFuncGetAttribute"))

    # ---- memory -------------------------------------------------------------------------------------------
    def alloc(self, nbytes: int) -> int:
        return int(self.ok(self.cu.cuMemAlloc(max(int(nbytes), 1)), "cuMemAlloc"))

    def free(self, ptr: int) -> None:
        self.ok(self.cu.cuMemFree(ptr), "cuMemFree")

    def upload(self, ptr: int, host: np.ndarray) -> None:
        host = np.ascontiguousarray(host)
        self.ok(self.cu.cuMemcpyHtoD(ptr, host.ctypes.data, host.nbytes), "cuMemcpyHtoD")

    def download(self, host: np.ndarray, ptr: int) -> np.ndarray:
        assert host.flags.c_contiguous
        self.ok(self.cu.cuMemcpyDtoH(host.ctypes.data, ptr, host.nbytes), "cuMemcpyDtoH")
        return host

    def to_device(self, host: np.ndarray) -> int:
        ptr = self.alloc(host.nbytes)
        self.upload(ptr, host)
        return ptr

    def memset(self, ptr: int, byte: int, nbytes: int) -> None:
        self.ok(self.cu.cuMemsetD8(ptr, byte, nbytes), "cuMemsetD8")

    # ---- launches -----------------------------------------------------------------------------------------
    def launch(self, fn, grid: tuple, block: tuple, args: list, shared: int = 0) -> None:
        """args: numpy scalars, each passed with its own width (np.uint64 for a pointer)."""
        boxes = [np.array([a]) for a in args]
        ptrs = np.array([b.ctypes.data for b in boxes], np.uint64)
        self.ok(self.cu.cuLaunchKernel(fn, *grid, *block, shared, 0, ptrs.ctypes.data if args else 0, 0),
                "cuLaunchKernel")

    def sync(self) -> None:
        self.ok(self.cu.cuCtxSynchronize(), "cuCtxSynchronize")

    def seconds_per_call(self, call, reps: int) -> float:
        """call() `reps` times between two events on the null stream: seconds per call (the wall clock
        around a synchronize where events fail)."""
        try:
            return self._event_seconds(call, reps)
        except (AttributeError, CuError):
            self.sync()
            t0 = time.perf_counter()
            for _ in range(reps):
                call()
            self.sync()
            return (time.perf_counter() - t0) / reps

    def _event_seconds(self, call, reps: int) -> float:
        cu = self.cu
        start, stop = (self.ok(cu.cuEventCreate(0), "cuEventCreate") for _ in range(2))
        try:
            self.ok(cu.cuEventRecord(start, 0), "cuEventRecord")
            for _ in range(reps):
                call()
            self.ok(cu.cuEventRecord(stop, 0), "cuEventRecord")
            self.ok(cu.cuEventSynchronize(stop), "cuEventSynchronize")
            ms = self.ok(cu.cuEventElapsedTime(start, stop), "cuEventElapsedTime")
        finally:
            cu.cuEventDestroy(start)
            cu.cuEventDestroy(stop)
        return float(ms) / 1e3 / reps

    def wall(self, call) -> float:
        """Seconds of one host call (a module load, say)."""
        t0 = time.perf_counter()
        call()
        return time.perf_counter() - t0


def u64(x: int) -> np.uint64:
    return np.uint64(int(x))
