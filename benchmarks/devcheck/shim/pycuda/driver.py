"""A shim for the part of pycuda.driver that tileforth's cuda backend and
benchmarks/gpu_check.py use, over ctypes and libcuda.so.1. The device check
uses it ONLY when PyCUDA itself cannot be installed. It follows PyCUDA's API
(primary contexts, a context stack per thread, enums, function attributes,
module_from_buffer with JIT options and a message handler, error classes and
"<routine> failed: <cuGetErrorString>" messages) but it is not PyCUDA."""
import ctypes
import threading
from ctypes import POINTER, byref, c_char_p, c_float, c_int, c_size_t, c_uint, c_uint64, c_void_p

import numpy as np

SHIM = True
_lib = None
for _name in ("libcuda.so.1", "libcuda.so"):
    try:
        _lib = ctypes.CDLL(_name)
        break
    except OSError:
        pass
if _lib is None:
    raise ImportError("libcuda.so.1 not found (no NVIDIA driver)")


class Error(Exception):
    pass


class LogicError(Error):
    pass


class LaunchError(Error):
    pass


class RuntimeError(Error):  # noqa: A001 - PyCUDA's name
    pass


class MemoryError(Error):  # noqa: A001 - PyCUDA's name
    pass


_SIGS = {
    "cuInit": [c_uint],
    "cuDriverGetVersion": [POINTER(c_int)],
    "cuDeviceGetCount": [POINTER(c_int)],
    "cuDeviceGet": [POINTER(c_int), c_int],
    "cuDeviceGetName": [c_char_p, c_int, c_int],
    "cuDeviceGetAttribute": [POINTER(c_int), c_int, c_int],
    "cuDeviceTotalMem_v2": [POINTER(c_size_t), c_int],
    "cuDevicePrimaryCtxRetain": [POINTER(c_void_p), c_int],
    "cuDevicePrimaryCtxRelease_v2": [c_int],
    "cuCtxCreate_v2": [POINTER(c_void_p), c_uint, c_int],
    "cuCtxDestroy_v2": [c_void_p],
    "cuCtxSynchronize": [],
    "cuCtxGetDevice": [POINTER(c_int)],
    "cuCtxGetCurrent": [POINTER(c_void_p)],
    "cuCtxPopCurrent_v2": [POINTER(c_void_p)],
    "cuCtxPushCurrent_v2": [c_void_p],
    "cuCtxSetLimit": [c_int, c_size_t],
    "cuCtxGetLimit": [POINTER(c_size_t), c_int],
    "cuMemAlloc_v2": [POINTER(c_uint64), c_size_t],
    "cuMemFree_v2": [c_uint64],
    "cuMemGetInfo_v2": [POINTER(c_size_t), POINTER(c_size_t)],
    "cuMemsetD8_v2": [c_uint64, ctypes.c_ubyte, c_size_t],
    "cuMemcpyHtoD_v2": [c_uint64, c_void_p, c_size_t],
    "cuMemcpyDtoH_v2": [c_void_p, c_uint64, c_size_t],
    "cuMemHostAlloc": [POINTER(c_void_p), c_size_t, c_uint],
    "cuMemFreeHost": [c_void_p],
    "cuMemHostGetDevicePointer_v2": [POINTER(c_uint64), c_void_p, c_uint],
    "cuModuleLoadDataEx": [POINTER(c_void_p), c_void_p, c_uint, POINTER(c_int), POINTER(c_void_p)],
    "cuModuleUnload": [c_void_p],
    "cuModuleGetFunction": [POINTER(c_void_p), c_void_p, c_char_p],
    "cuFuncGetAttribute": [POINTER(c_int), c_int, c_void_p],
    "cuFuncSetAttribute": [c_void_p, c_int, c_int],
    "cuLaunchKernel": [c_void_p, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_void_p,
                       POINTER(c_void_p), POINTER(c_void_p)],
    "cuEventCreate": [POINTER(c_void_p), c_uint],
    "cuEventRecord": [c_void_p, c_void_p],
    "cuEventSynchronize": [c_void_p],
    "cuEventElapsedTime": [POINTER(c_float), c_void_p, c_void_p],
    "cuGetErrorString": [c_int, POINTER(c_char_p)],
}
for _fn, _args in _SIGS.items():
    try:
        f = getattr(_lib, _fn)
        f.argtypes, f.restype = _args, c_int
    except AttributeError:
        pass


def _call(name, *args):
    rc = getattr(_lib, name)(*args)
    if rc:
        s = c_char_p()
        _lib.cuGetErrorString(rc, byref(s))
        msg = f"{name.split('_v')[0]} failed: {(s.value or b'error %d' % rc).decode()}"
        # PyCUDA's translate_cuda_error
        cls = (LaunchError if rc in (701, 702, 703, 719) else MemoryError if rc == 2 else
               RuntimeError if rc in (100, 209, 301, 600) else Error if rc == 999 else LogicError)
        raise cls(msg)


class _Enum(int):
    _names = {}

    def __repr__(self):
        return f"{type(self).__name__}.{self._names.get(int(self), int(self))}"


def _enum(name, values):
    cls = type(name, (_Enum,), {"_names": {v: k for k, v in values.items()}})
    for k, v in values.items():
        setattr(cls, k, cls(v))
    return cls


device_attribute = _enum("device_attribute", {
    "MAX_THREADS_PER_BLOCK": 1, "MAX_BLOCK_DIM_X": 2, "MAX_BLOCK_DIM_Y": 3, "MAX_BLOCK_DIM_Z": 4,
    "MAX_GRID_DIM_X": 5, "MAX_GRID_DIM_Y": 6, "MAX_GRID_DIM_Z": 7, "MAX_SHARED_MEMORY_PER_BLOCK": 8,
    "WARP_SIZE": 10, "MAX_REGISTERS_PER_BLOCK": 12, "MULTIPROCESSOR_COUNT": 16, "CAN_MAP_HOST_MEMORY": 19,
    "MAX_THREADS_PER_MULTIPROCESSOR": 39, "COMPUTE_CAPABILITY_MAJOR": 75, "COMPUTE_CAPABILITY_MINOR": 76,
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 97})
function_attribute = _enum("function_attribute", {
    "MAX_THREADS_PER_BLOCK": 0, "SHARED_SIZE_BYTES": 1, "CONST_SIZE_BYTES": 2, "LOCAL_SIZE_BYTES": 3,
    "NUM_REGS": 4, "PTX_VERSION": 5, "BINARY_VERSION": 6, "MAX_DYNAMIC_SHARED_SIZE_BYTES": 8})
jit_option = _enum("jit_option", {
    "MAX_REGISTERS": 0, "THREADS_PER_BLOCK": 1, "WALL_TIME": 2, "INFO_LOG_BUFFER": 3,
    "INFO_LOG_BUFFER_SIZE_BYTES": 4, "ERROR_LOG_BUFFER": 5, "ERROR_LOG_BUFFER_SIZE_BYTES": 6,
    "OPTIMIZATION_LEVEL": 7, "TARGET_FROM_CUCONTEXT": 8, "TARGET": 9, "FALLBACK_STRATEGY": 10})
limit = _enum("limit", {"STACK_SIZE": 0, "PRINTF_FIFO_SIZE": 1, "MALLOC_HEAP_SIZE": 2})


class ctx_flags:  # noqa: N801
    SCHED_AUTO, SCHED_SPIN, SCHED_YIELD, SCHED_BLOCKING_SYNC, MAP_HOST = 0, 1, 2, 4, 8


class host_alloc_flags:  # noqa: N801
    PORTABLE, DEVICEMAP, WRITECOMBINED = 1, 2, 4


def init(flags=0):
    _call("cuInit", flags)


def get_driver_version():
    v = c_int()
    _call("cuDriverGetVersion", byref(v))
    return v.value


def mem_get_info():
    free, total = c_size_t(), c_size_t()
    _call("cuMemGetInfo_v2", byref(free), byref(total))
    return free.value, total.value


_tls = threading.local()


def _stack():
    if not hasattr(_tls, "stack"):
        _tls.stack = []
    return _tls.stack


class Device:
    def __init__(self, i):
        d = c_int()
        _call("cuDeviceGet", byref(d), int(i))
        self.handle = d.value

    @staticmethod
    def count():
        n = c_int()
        _call("cuDeviceGetCount", byref(n))
        return n.value

    def name(self):
        buf = ctypes.create_string_buffer(256)
        _call("cuDeviceGetName", buf, 256, self.handle)
        return buf.value.decode()

    def total_memory(self):
        v = c_size_t()
        _call("cuDeviceTotalMem_v2", byref(v), self.handle)
        return v.value

    def get_attribute(self, attr):
        v = c_int()
        _call("cuDeviceGetAttribute", byref(v), int(attr), self.handle)
        return v.value

    def compute_capability(self):
        return self.get_attribute(75), self.get_attribute(76)

    def make_context(self, flags=0):
        c = c_void_p()
        _call("cuCtxCreate_v2", byref(c), int(flags), self.handle)  # pushed by the driver
        ctx = Context(c.value, self.handle, primary=False)
        _stack().append(ctx)
        return ctx

    def retain_primary_context(self):
        c = c_void_p()
        _call("cuDevicePrimaryCtxRetain", byref(c), self.handle)
        return Context(c.value, self.handle, primary=True)


class Context:
    def __init__(self, handle, device, primary):
        self.handle, self.device, self.primary, self._valid = handle, device, primary, True

    def __eq__(self, other):
        return isinstance(other, Context) and other.handle == self.handle

    def __hash__(self):
        return hash(self.handle)

    def push(self):
        _call("cuCtxPushCurrent_v2", c_void_p(self.handle))
        _stack().append(self)

    @staticmethod
    def pop():
        c = c_void_p()
        _call("cuCtxPopCurrent_v2", byref(c))
        st = _stack()
        if st:
            st.pop()

    @staticmethod
    def get_current():
        st = _stack()
        return st[-1] if st else None

    @staticmethod
    def synchronize():
        _call("cuCtxSynchronize")

    @staticmethod
    def get_device():
        d = c_int()
        _call("cuCtxGetDevice", byref(d))
        dev = Device.__new__(Device)
        dev.handle = d.value
        return dev

    def detach(self):
        if not self._valid:
            return
        self._valid = False
        st = _stack()
        if st and st[-1] is self:
            self.pop()
        if self.primary:
            _call("cuDevicePrimaryCtxRelease_v2", self.device)
        else:
            _call("cuCtxDestroy_v2", c_void_p(self.handle))

    @staticmethod
    def set_limit(which, value):
        _call("cuCtxSetLimit", int(which), int(value))

    @staticmethod
    def get_limit(which):
        v = c_size_t()
        _call("cuCtxGetLimit", byref(v), int(which))
        return v.value


class DeviceAllocation(int):
    def free(self):
        if not getattr(self, "_freed", False):
            self._freed = True
            _call("cuMemFree_v2", int(self))


def mem_alloc(nbytes):
    p = c_uint64()
    _call("cuMemAlloc_v2", byref(p), int(nbytes))
    return DeviceAllocation(p.value)


def memset_d8(dest, value, count):
    _call("cuMemsetD8_v2", int(dest), int(value), int(count))


def _host(arr):
    a = np.ascontiguousarray(arr)
    return a, a.ctypes.data, a.nbytes


def memcpy_htod(dest, src):
    a, p, n = _host(src if isinstance(src, np.ndarray) else np.frombuffer(bytes(src), np.uint8))
    _call("cuMemcpyHtoD_v2", int(dest), p, n)


def memcpy_dtoh(dest, src):
    if not dest.flags.c_contiguous:
        raise LogicError("memcpy_dtoh needs a contiguous destination")
    _call("cuMemcpyDtoH_v2", dest.ctypes.data, int(src), dest.nbytes)


def to_device(arr):
    a = np.ascontiguousarray(arr)
    d = mem_alloc(max(a.nbytes, 1))
    memcpy_htod(d, a)
    return d


def from_device(ptr, shape, dtype):
    out = np.empty(shape, dtype)
    memcpy_dtoh(out, ptr)
    return out


def pagelocked_empty(shape, dtype, order="C", mem_flags=0):
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    n = count * dtype.itemsize
    p = c_void_p()
    _call("cuMemHostAlloc", byref(p), max(n, 1), int(mem_flags))
    host = p.value

    def get_device_pointer(self):
        d = c_uint64()
        _call("cuMemHostGetDevicePointer_v2", byref(d), host, 0)
        return d.value

    def free(self):
        if not getattr(self, "_freed", False):
            self._freed = True
            _call("cuMemFreeHost", host)
    alloc_type = type("HostAllocation", (ctypes.c_byte * max(n, 1),),
                      {"get_device_pointer": get_device_pointer, "free": free})
    buf = alloc_type.from_address(host)
    arr = np.frombuffer(buf, dtype, count=count)  # .base is the allocation, as in PyCUDA
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return arr if arr.shape == shape else arr.reshape(shape, order=order)


def pagelocked_zeros(shape, dtype, order="C", mem_flags=0):
    a = pagelocked_empty(shape, dtype, order, mem_flags)
    a.fill(0)
    return a


_CTYPES = {"P": c_uint64, "Q": c_uint64, "q": ctypes.c_int64, "i": ctypes.c_int32, "I": ctypes.c_uint32,
           "f": c_float, "d": ctypes.c_double, "l": ctypes.c_int64, "L": c_uint64}


class Function:
    def __init__(self, handle, module):
        self.handle, self.module, self.arg_format = handle, module, None

    def get_attribute(self, attr):
        v = c_int()
        _call("cuFuncGetAttribute", byref(v), int(attr), self.handle)
        return v.value

    def set_attribute(self, attr, value):
        _call("cuFuncSetAttribute", self.handle, int(attr), int(value))

    def prepare(self, arg_types, texrefs=None):
        self.arg_format = "".join(t if isinstance(t, str) else np.dtype(t).char for t in arg_types)
        return self

    def prepared_call(self, grid, block, *args, shared_size=0):
        fmt = self.arg_format or ""
        if len(fmt) != len(args):
            raise LogicError(f"prepared_call: {len(args)} arguments for format {fmt!r}")
        vals = [_CTYPES[c](int(a) if c not in "fd" else float(a)) for c, a in zip(fmt, args)]
        ptrs = (c_void_p * max(len(vals), 1))(*[ctypes.addressof(v) for v in vals])
        g = tuple(grid) + (1,) * (3 - len(grid))
        b = tuple(block) + (1,) * (3 - len(block))
        _call("cuLaunchKernel", self.handle, *map(int, g), *map(int, b), int(shared_size), None, ptrs, None)


class Module:
    def __init__(self, handle, image):
        self.handle, self._image = handle, image

    def get_function(self, name):
        f = c_void_p()
        _call("cuModuleGetFunction", byref(f), self.handle, name.encode())
        return Function(f, self)


def module_from_buffer(buffer, options=(), message_handler=None):
    data = bytes(buffer)
    if not data.endswith(b"\0"):
        data += b"\0"
    image = ctypes.create_string_buffer(data, len(data))
    size = 1 << 16
    info, err = ctypes.create_string_buffer(size), ctypes.create_string_buffer(size)
    keys = [3, 4, 5, 6] + [int(k) for k, _ in options]
    vals = [ctypes.cast(info, c_void_p).value, size, ctypes.cast(err, c_void_p).value, size] + \
           [int(v) for _, v in options]
    ckeys = (c_int * len(keys))(*keys)
    cvals = (c_void_p * len(vals))(*vals)
    m = c_void_p()
    try:
        _call("cuModuleLoadDataEx", byref(m), ctypes.cast(image, c_void_p), len(keys), ckeys, cvals)
    except Error:
        if message_handler is not None:
            message_handler(False, info.value.decode(errors="replace"), err.value.decode(errors="replace"))
        raise
    if message_handler is not None:
        message_handler(True, info.value.decode(errors="replace"), err.value.decode(errors="replace"))
    return Module(m, image)


class Event:
    def __init__(self, flags=0):
        self.handle = c_void_p()
        _call("cuEventCreate", byref(self.handle), int(flags))

    def record(self, stream=None):
        _call("cuEventRecord", self.handle, None)
        return self

    def synchronize(self):
        _call("cuEventSynchronize", self.handle)
        return self

    def time_till(self, other):
        ms = c_float()
        _call("cuEventElapsedTime", byref(ms), self.handle, other.handle)
        return ms.value
