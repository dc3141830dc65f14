"""A stand-in for CuPy, for tests on machines without a GPU: the few calls a launcher module
(`tileforth compile --python`) makes -- ndarray (over device memory that is host buffers:
see standin_device.py), zeros/empty/asarray/asnumpy, RawModule(path=...).get_function and
launching the function (a PTX module, or a cubin for the device's sm_XY),
cuda.Device().synchronize, cuda.ExternalStream. Kernels do not run:
a launch reads its arguments as the device would, records them (`launches`) and calls the
test's `on_launch` hooks.

As CuPy: kernel arguments are ndarrays (their pointer), numpy scalars (their bytes) or Python
int/float/bool (as int64/float64/bool); ml_dtypes' bfloat16 is no CuPy dtype. Test hooks
(not CuPy): launches, on_launch, memory, view(ptr, nbytes), modules_loaded.
"""
from __future__ import annotations

import weakref

import numpy as np
import standin_device as _sd

from . import cuda

__version__ = "13.0.0-standin"

launches: list[_sd.Launch] = []
on_launch: list = []  # hooks: hook(launch), called after each launch is recorded
memory = _sd.Memory()
modules_loaded = [0]

int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
_SUPPORTED = {np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                    np.uint32, np.uint64, np.float16, np.float32, np.float64, np.complex64,
                                    np.complex128)}


def view(ptr: int, nbytes: int) -> np.ndarray:
    """Test hook: bytes [ptr, ptr+nbytes) of one live allocation (ValueError outside every one)."""
    got = memory.find(int(ptr), int(nbytes))
    if got is None:
        raise ValueError(f"cupy stand-in: 0x{int(ptr):x} (+{nbytes}) is outside every allocation")
    return got


def _dtype(dtype) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in _SUPPORTED:
        raise ValueError(f"Unsupported dtype {dt}")
    return dt


class _Allocation:
    def __init__(self, nbytes: int) -> None:
        self.ptr = memory.alloc(nbytes)
        self.size = nbytes
        weakref.finalize(self, memory.free, self.ptr)


class MemoryPointer:
    def __init__(self, mem: _Allocation, offset: int) -> None:
        self.mem, self.ptr = mem, mem.ptr + offset


class ndarray:  # noqa: N801 - CuPy's name
    """A C-contiguous array in stand-in device memory (what the launcher needs of CuPy's ndarray)."""

    def __init__(self, shape, dtype=float, *, _mem: _Allocation | None = None, _offset: int = 0) -> None:
        self.dtype = _dtype(dtype)
        self.shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * self.dtype.itemsize
        mem = _mem if _mem is not None else _Allocation(self.nbytes)
        self.data = MemoryPointer(mem, _offset)

    def _host(self) -> np.ndarray:
        return view(self.data.ptr, self.nbytes).view(self.dtype).reshape(self.shape)

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"data": (self.data.ptr, False), "shape": self.shape, "typestr": self.dtype.str, "strides": None,
                "version": 3}

    def get(self, stream=None) -> np.ndarray:
        return self._host().copy()

    def set(self, arr, stream=None) -> None:
        arr = np.asarray(arr)
        if arr.dtype != self.dtype:
            raise TypeError(f"{arr.dtype} array cannot be set to {self.dtype} array")
        if arr.shape != self.shape:
            raise ValueError(f"Shape mismatch. Old shape: {self.shape}, new shape: {arr.shape}")
        self._host()[...] = arr

    def __getitem__(self, key) -> "ndarray":
        if len(self.shape) != 1 or not isinstance(key, slice) or key.step not in (None, 1):
            raise NotImplementedError("cupy stand-in: only a[start:stop] of a 1-d array")
        start, stop, _ = key.indices(self.shape[0])
        return ndarray(max(stop - start, 0), self.dtype, _mem=self.data.mem,
                       _offset=self.data.ptr - self.data.mem.ptr + start * self.dtype.itemsize)

    def __len__(self) -> int:
        return self.shape[0]


def empty(shape, dtype=float) -> ndarray:
    return ndarray(shape, dtype)


def zeros(shape, dtype=float) -> ndarray:
    a = ndarray(shape, dtype)
    a._host()[...] = 0
    return a


def asarray(a, dtype=None) -> ndarray:
    if isinstance(a, ndarray) and dtype is None:
        return a
    host = np.ascontiguousarray(np.asarray(a, dtype))
    out = ndarray(host.shape, host.dtype)
    out._host()[...] = host
    return out


def asnumpy(a, stream=None) -> np.ndarray:
    return a.get() if isinstance(a, ndarray) else np.asarray(a)


# ---- RawModule ------------------------------------------------------------------------------------------

def _argument(x) -> bytes:
    """An argument's bytes, as CuPy's function._pointer converts it."""
    if isinstance(x, ndarray):
        return np.uint64(x.data.ptr).tobytes()
    if isinstance(x, np.generic):
        _dtype(x.dtype)
        return x.tobytes()
    if isinstance(x, bool):
        return np.bool_(x).tobytes()
    if isinstance(x, int):
        return np.int64(x).tobytes()
    if isinstance(x, float):
        return np.float64(x).tobytes()
    raise TypeError(f"Unsupported type {type(x)}")


class Function:
    def __init__(self, module: "RawModule", name: str, params) -> None:
        self.module, self.name, self.params = module, name, params

    def __call__(self, grid, block, args, *, shared_mem=0, stream=None, enable_cooperative_groups=False):
        grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
        block = tuple(int(b) for b in block) + (1,) * (3 - len(block))
        if not isinstance(args, (tuple, list)):
            raise TypeError("args must be a tuple or a list")
        raws = [_argument(a) for a in args]
        cuda.Device(self.module.device).use_check()
        if not _sd.check_config(grid, block):
            raise cuda.CUDADriverError("CUDA_ERROR_INVALID_VALUE: invalid argument")
        # the kernel reads each parameter as wide as its PTX declares it: an argument of another width,
        # or a missing one, would be garbage on a GPU
        if len(raws) != len(self.params) or any(len(r) != s for r, (_, s) in zip(raws, self.params)):
            raise AssertionError(f"cupy stand-in: {self.name} takes parameters of {[s for _, s in self.params]} "
                                 f"bytes, but was given arguments of {[len(r) for r in raws]}: the kernel would "
                                 "read garbage")
        launch = _sd.Launch(self.name, grid, block, _sd.decode(self.params, raws), tuple(raws), int(shared_mem),
                            cuda.get_current_stream().ptr if stream is None else int(stream.ptr))
        launches.append(launch)
        for hook in list(on_launch):
            hook(launch)


class RawModule:
    def __init__(self, *, code=None, path=None, options=(), backend="nvrtc", name_expressions=None,
                 jitify=False, **kw) -> None:
        if path is None:
            raise NotImplementedError("cupy stand-in: RawModule(path=...) only (no NVRTC)")
        data = open(path, "rb").read()  # noqa: SIM115
        self.entries = None  # a cubin's {entry: parameters}
        if data[:4] == _sd.ELF_MAGIC:
            info = _sd.cubin_entries(data)
            if info is None:
                raise cuda.CUDADriverError("CUDA_ERROR_INVALID_IMAGE: device kernel image is invalid")
            if info[0] != cuda.COMPUTE_CAPABILITY[0] * 10 + cuda.COMPUTE_CAPABILITY[1]:
                raise cuda.CUDADriverError("CUDA_ERROR_NO_BINARY_FOR_GPU: no kernel image is available for "
                                           "execution on the device")
            self.ptx, self.entries = "", info[1]
        else:
            self.ptx = data.split(b"\0", 1)[0].decode()
            if ".entry" not in self.ptx:
                raise cuda.CUDADriverError("CUDA_ERROR_INVALID_IMAGE: device kernel image is invalid")
            ok, log = _sd.assemble(self.ptx, _sd.jit_arch(self.ptx, cuda.COMPUTE_CAPABILITY))
            if not ok:
                raise cuda.CUDADriverError(f"CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed\n{log}")
        self.device = cuda.Device().id
        modules_loaded[0] += 1

    def get_function(self, name: str) -> Function:
        params = _sd.entry_params(self.ptx, name) if self.entries is None else self.entries.get(name)
        if params is None:
            raise cuda.CUDADriverError("CUDA_ERROR_NOT_FOUND: named symbol not found")
        return Function(self, name, params)
