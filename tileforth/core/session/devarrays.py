"""Device arrays on the cpu backend: an object with `__cuda_array_interface__`
(CuPy, PyTorch, numba, or a stand-in) passed to `f.kernel(word)` is copied to
a numpy array, the kernel runs on that copy, and the results are copied back.

    host_copy(obj) -> (numpy array, write_back)
    wait_for_stream(stream)   the work queued on a caller's stream so far is done

The copy goes through the object's own library (CuPy's get/set, PyTorch's
cpu/copy_, numba's copy_to_host/copy_to_device); any other object through the
CUDA driver (libcuda, the primary context of the pointer's device) when there
is one, else its pointer is taken as host memory (managed memory, a test's
stand-in over a numpy buffer)."""
from __future__ import annotations

import ctypes
import sys
from typing import Any, Callable

from ..errors import ForthError
from ..lazy import np


def host_copy(obj: Any) -> tuple[np.ndarray, Callable[[], None]]:
    iface = obj.__cuda_array_interface__
    dtype = np.dtype(iface["typestr"])
    shape = tuple(int(n) for n in iface["shape"])
    if hasattr(obj, "copy_to_host") and hasattr(obj, "copy_to_device"):  # numba
        arr = np.ascontiguousarray(obj.copy_to_host())
        return arr, lambda: obj.copy_to_device(arr)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, getattr(torch, "Tensor", ())):
        arr = obj.detach().cpu().numpy().copy()
        return arr, lambda: obj.copy_(torch.from_numpy(arr))
    if hasattr(obj, "get") and hasattr(obj, "set"):  # CuPy
        arr = np.ascontiguousarray(obj.get())
        return arr, lambda: obj.set(arr)
    ptr = int(iface["data"][0] or 0)
    strides = iface.get("strides")
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if strides is not None and tuple(strides) != _c_strides(shape, dtype.itemsize):
        raise ValueError(f"a {type(obj).__name__} with strides {tuple(strides)}: pass a contiguous array")
    arr = np.empty(shape, dtype)
    if nbytes == 0:
        return arr, lambda: None
    driver = _Driver.get()
    if driver is not None:
        driver.copy(arr.ctypes.data, ptr, nbytes, to_host=True)
        return arr, lambda: driver.copy(ptr, arr.ctypes.data, nbytes, to_host=False)
    ctypes.memmove(arr.ctypes.data, ptr, nbytes)  # no CUDA driver: the pointer is host memory
    return arr, lambda: ctypes.memmove(ptr, arr.ctypes.data, nbytes)


def wait_for_stream(stream: Any) -> None:
    """f.kernel(..., stream=s): the call is synchronous (it returns the results), so ordering it on
    the caller's stream means waiting for what that stream holds before the launch. A stream object
    (PyTorch's, CuPy's, PyCUDA's) is asked to synchronize; a raw CUstream handle goes to the driver."""
    sync = getattr(stream, "synchronize", None)
    if callable(sync):
        sync()
        return
    if isinstance(stream, bool) or not isinstance(stream, (int, np.integer)):
        raise ForthError(f"stream= takes a stream object (with synchronize()) or a CUstream handle (an int), "
                         f"not a {type(stream).__name__}")
    if int(stream) in (0, 1, 2):  # the legacy or per-thread default stream: every launch is ordered after it
        return
    driver = _Driver.get()
    if driver is None:
        raise ForthError(f"stream={int(stream)} is a CUstream handle, but there is no CUDA driver here: "
                         "pass the stream object, or no stream")
    driver.sync(int(stream))


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    out, step = [], itemsize
    for n in reversed(shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


class _Driver:
    """libcuda through ctypes: cuMemcpy on the device's primary context."""
    _done = False
    _it: "_Driver | None" = None

    @classmethod
    def get(cls) -> "_Driver | None":
        if not cls._done:
            cls._done = True
            try:
                lib = ctypes.CDLL("libcuda.so.1")
                if lib.cuInit(0) == 0:
                    cls._it = cls(lib)
            except OSError:
                cls._it = None
        return cls._it

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        dev = ctypes.c_int()
        self.ctx = ctypes.c_void_p()
        if lib.cuDeviceGet(ctypes.byref(dev), 0) or lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), dev):
            raise OSError("no CUDA device")

    def sync(self, stream: int) -> None:
        self.lib.cuCtxPushCurrent_v2(self.ctx)
        try:
            err = self.lib.cuStreamSynchronize(ctypes.c_void_p(stream))
        finally:
            self.lib.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))
        if err:
            raise ForthError(f"CUDA error {err} waiting for stream {stream:#x}: is it a stream of this process?")

    def copy(self, dst: int, src: int, nbytes: int, to_host: bool) -> None:
        lib = self.lib
        lib.cuCtxPushCurrent_v2(self.ctx)
        try:
            fn = lib.cuMemcpyDtoH_v2 if to_host else lib.cuMemcpyHtoD_v2
            err = fn(ctypes.c_uint64(dst) if not to_host else ctypes.c_void_p(dst),
                     ctypes.c_void_p(src) if not to_host else ctypes.c_uint64(src), ctypes.c_size_t(nbytes))
            if err:
                raise RuntimeError(f"CUDA error {err} copying a device array")
        finally:
            lib.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))
