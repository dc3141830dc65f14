"""A stand-in for cuda-python's `cuda.bindings.driver`, for tests on machines without a GPU.

The calls a launcher module (`tileforth compile --python`) makes, with cuda-python's
conventions: every call returns a tuple, (CUresult,) or (CUresult, value); handles are
objects (CUcontext, CUmodule, CUfunction, CUdeviceptr, CUdevice) that int() gives the
address of. The driver's rules are kept: calls before cuInit fail NOT_INITIALIZED; memory,
module and launch calls need a current context (a per-thread stack: cuCtxPushCurrent,
cuCtxPopCurrent, cuCtxGetCurrent) and fail INVALID_CONTEXT without one, or for another
context's module or function; the device's primary context is reference counted
(cuDevicePrimaryCtxRetain / Release) and reset -- its memory and modules gone -- when the
last reference goes.

Device memory is host buffers (standin_device.Memory): a CUdeviceptr is a host address, so
cuMemcpyHtoD/DtoH move bytes with ctypes, after checking the device range lies in one live
allocation of the current context (else INVALID_VALUE). Kernels do not run: cuLaunchKernel
reads kernelParams (the address of an array of pointers, one per parameter) as the device
would, each parameter as wide as the PTX entry declares it, records the launch (`launches`)
and calls the test's `on_launch` hooks. Modules: PTX (assembled with ptxas as the JIT, for
sm_90a when the PTX targets it) or a cubin for the device's sm_XY (its entries' parameters read
from the ELF, standin_device.cubin_entries); cuModuleLoadDataEx checks its JIT options (a list
of CUjit_option and one value each; CU_JIT_OPTIMIZATION_LEVEL 0-4). Events time the host's
wall clock between their records; cuMemsetD8, device attributes and names as the driver.

Streams (cuStreamCreate, the legacy and per-thread handles 1 and 2) belong to a context; work runs
when it is queued, so events have always completed (cuEventQuery) and synchronizing waits for
nothing, but each synchronization is recorded (`syncs`) and so is each cuStreamWaitEvent
(`waits`). Two devices, alike; cuPointerGetAttribute gives the device ordinal of an allocation.

Test hooks (not cuda-python): launches, on_launch, memory, view(ptr, nbytes), primary_refs(),
context_stack(), allocations(), loads (each module load: (kind, jit options)), syncs, waits,
dynamic_shared (each function's cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES; a launch may take
at most that many bytes of dynamic shared memory, else 48 KiB).
"""
from __future__ import annotations

import ctypes
import enum
import itertools
import threading
import time

import standin_device as _sd


class CUresult(enum.IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1
    CUDA_ERROR_OUT_OF_MEMORY = 2
    CUDA_ERROR_NOT_INITIALIZED = 3
    CUDA_ERROR_INVALID_DEVICE = 101
    CUDA_ERROR_INVALID_IMAGE = 200
    CUDA_ERROR_INVALID_CONTEXT = 201
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209
    CUDA_ERROR_INVALID_PTX = 218
    CUDA_ERROR_INVALID_HANDLE = 400
    CUDA_ERROR_NOT_FOUND = 500
    CUDA_ERROR_ILLEGAL_ADDRESS = 700


_TEXT = {0: b"no error", 1: b"invalid argument", 2: b"out of memory", 3: b"initialization error",
         101: b"invalid device ordinal", 200: b"device kernel image is invalid", 201: b"invalid device context",
         209: b"no kernel image is available for execution on the device",
         218: b"a PTX JIT compilation failed", 400: b"invalid resource handle", 500: b"named symbol not found",
         700: b"an illegal memory access was encountered"}
_OK = CUresult.CUDA_SUCCESS

class CUjit_option(enum.IntEnum):  # noqa: N801 - the driver's names
    CU_JIT_MAX_REGISTERS = 0
    CU_JIT_THREADS_PER_BLOCK = 1
    CU_JIT_WALL_TIME = 2
    CU_JIT_INFO_LOG_BUFFER = 3
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4
    CU_JIT_ERROR_LOG_BUFFER = 5
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
    CU_JIT_OPTIMIZATION_LEVEL = 7
    CU_JIT_TARGET_FROM_CUCONTEXT = 8
    CU_JIT_TARGET = 9
    CU_JIT_FALLBACK_STRATEGY = 10
    CU_JIT_GENERATE_DEBUG_INFO = 11
    CU_JIT_LOG_VERBOSE = 12
    CU_JIT_CACHE_MODE = 14


class CUdevice_attribute(enum.IntEnum):  # noqa: N801
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10
    CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97


class CUfunction_attribute(enum.IntEnum):  # noqa: N801
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8


class CUtensorMapDataType(enum.IntEnum):  # noqa: N801
    CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0
    CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1
    CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2
    CU_TENSOR_MAP_DATA_TYPE_INT32 = 3
    CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4
    CU_TENSOR_MAP_DATA_TYPE_INT64 = 5
    CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6
    CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7
    CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8
    CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9


class CUtensorMapInterleave(enum.IntEnum):  # noqa: N801
    CU_TENSOR_MAP_INTERLEAVE_NONE = 0
    CU_TENSOR_MAP_INTERLEAVE_16B = 1
    CU_TENSOR_MAP_INTERLEAVE_32B = 2


class CUtensorMapSwizzle(enum.IntEnum):  # noqa: N801
    CU_TENSOR_MAP_SWIZZLE_NONE = 0
    CU_TENSOR_MAP_SWIZZLE_32B = 1
    CU_TENSOR_MAP_SWIZZLE_64B = 2
    CU_TENSOR_MAP_SWIZZLE_128B = 3


class CUtensorMapL2promotion(enum.IntEnum):  # noqa: N801
    CU_TENSOR_MAP_L2_PROMOTION_NONE = 0
    CU_TENSOR_MAP_L2_PROMOTION_L2_64B = 1
    CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2
    CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3


class CUtensorMapFloatOOBfill(enum.IntEnum):  # noqa: N801
    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0
    CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1


launches: list[_sd.Launch] = []
syncs: list[tuple[str, int]] = []  # each synchronization asked for: ("context", ctx) or ("stream", stream)
waits: list[tuple[int, int]] = []  # each cuStreamWaitEvent: (stream, event)
DEVICES = 2  # devices 0 and 1, alike
on_launch: list = []  # hooks: hook(launch), called after each launch is recorded (its context current)
loads: list[tuple[str, dict]] = []  # each module loaded: ("ptx" or "cubin", {CUjit_option: value})
memory = _sd.Memory()
COMPUTE_CAPABILITY = (9, 0)
NAME = b"stand-in H200"
ATTRIBUTES = {1: 1024, 8: 49152, 10: 32, 13: 1_980_000, 16: 132, 97: 232448}


class _Handle:
    def __init__(self, value: int = 0) -> None:
        self._value = int(value)

    def __int__(self) -> int:
        return self._value

    def getPtr(self) -> int:  # noqa: N802 - cuda-python's name
        return self._value

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and int(other) == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} 0x{self._value:x}>"


class _Uint:
    """cuda-python's cuuint32_t / cuuint64_t: an unsigned value of a width, int() gives it."""
    bits = 64

    def __init__(self, value: int = 0) -> None:
        if not 0 <= int(value) < 1 << self.bits:
            raise OverflowError(f"{type(self).__name__}: {value} out of range")
        self._value = int(value)

    def __int__(self) -> int:
        return self._value


class cuuint64_t(_Uint):  # noqa: N801
    bits = 64


class cuuint32_t(_Uint):  # noqa: N801
    bits = 32


class CUtensorMap:
    """cuda-python's CUtensorMap: `opaque`, 16 u64 words (the stand-in's encoding: TENSOR_MAP_WORDS)."""

    def __init__(self, words: list[int] | None = None) -> None:
        self.opaque = list(words or [0] * 16)


class CUcontext(_Handle):
    pass


class CUmodule(_Handle):
    pass


class CUfunction(_Handle):
    pass


class CUdeviceptr(_Handle):
    pass


class CUdevice(_Handle):
    pass


class CUstream(_Handle):
    pass


_handles = itertools.count(0x9000)
_tls = threading.local()
_initialized = [False]
_primary: dict[int, "_Ctx"] = {}  # device -> its primary context while retained
_modules: dict[int, "_Module"] = {}
_functions: dict[int, tuple["_Module", str, list]] = {}
# each function's MAX_DYNAMIC_SHARED_SIZE_BYTES (cuFuncSetAttribute; 48 KiB until set): a test hook too
dynamic_shared: dict[int, int] = {}


class _Ctx:
    def __init__(self, device: int) -> None:
        self.device, self.handle, self.refs, self.destroyed = device, next(_handles), 0, False
        self.allocs: set[int] = set()


_contexts: dict[int, _Ctx] = {}


class _Module:
    def __init__(self, ctx: _Ctx, ptx: str, entries: dict | None = None) -> None:
        self.ctx, self.ptx, self.handle, self.loaded = ctx, ptx, next(_handles), True
        self.entries = entries  # a cubin's {entry: parameters}; None: read them from the PTX

    def params(self, name: str) -> list | None:
        return _sd.entry_params(self.ptx, name) if self.entries is None else self.entries.get(name)


def _stack() -> list[_Ctx]:
    if not hasattr(_tls, "stack"):
        _tls.stack = []
    return _tls.stack


def context_stack() -> list[int]:
    """Test hook: this thread's context stack (handles, bottom first)."""
    return [c.handle for c in _stack()]


def primary_refs(ordinal: int = 0) -> int:
    """Test hook: references to the device's primary context."""
    return _primary[ordinal].refs if ordinal in _primary else 0


def allocations() -> list[tuple[int, int]]:
    """Test hook: (address, bytes) of every live allocation."""
    return sorted((a, b.size) for a, b in memory.live.items())


def view(ptr: int, nbytes: int):
    """Test hook: bytes [ptr, ptr+nbytes) of one live allocation (ValueError outside every one)."""
    got = memory.find(int(ptr), int(nbytes))
    if got is None:
        raise ValueError(f"cuda stand-in: 0x{int(ptr):x} (+{nbytes}) is outside every allocation")
    return got


def _current() -> _Ctx | None:
    st = _stack()
    return st[-1] if st and not st[-1].destroyed else None


def _need() -> tuple[CUresult, _Ctx | None]:
    if not _initialized[0]:
        return CUresult.CUDA_ERROR_NOT_INITIALIZED, None
    ctx = _current()
    return (_OK, ctx) if ctx is not None else (CUresult.CUDA_ERROR_INVALID_CONTEXT, None)


def _address(x) -> int:
    if isinstance(x, int):
        return x
    if isinstance(x, _Handle):
        return int(x)
    raise TypeError(f"Argument is not an int or a handle: {type(x).__name__}")


# ---- initialization, errors ---------------------------------------------------------------------------

def cuInit(flags: int):  # noqa: N802 - the driver's names
    if flags != 0:
        return (CUresult.CUDA_ERROR_INVALID_VALUE,)
    _initialized[0] = True
    return (_OK,)


def cuGetErrorString(error):  # noqa: N802
    code = int(error)
    return (_OK, _TEXT[code]) if code in _TEXT else (CUresult.CUDA_ERROR_INVALID_VALUE, None)


def cuDriverGetVersion():  # noqa: N802
    return (_OK, 13000)


# ---- devices and contexts ---------------------------------------------------------------------------------

def cuDeviceGet(ordinal: int):  # noqa: N802
    if not _initialized[0]:
        return (CUresult.CUDA_ERROR_NOT_INITIALIZED, None)
    if not 0 <= ordinal < DEVICES:
        return (CUresult.CUDA_ERROR_INVALID_DEVICE, None)
    return (_OK, CUdevice(ordinal))


def cuDeviceGetCount():  # noqa: N802
    if not _initialized[0]:
        return (CUresult.CUDA_ERROR_NOT_INITIALIZED, None)
    return (_OK, DEVICES)


def cuDeviceGetAttribute(attrib, dev):  # noqa: N802
    if not _initialized[0]:
        return (CUresult.CUDA_ERROR_NOT_INITIALIZED, None)
    if not isinstance(dev, CUdevice):
        raise TypeError("Argument 'dev' is not instance of type (expected <class 'CUdevice'>)")
    code = int(attrib)
    if code in (75, 76):
        return (_OK, COMPUTE_CAPABILITY[code - 75])
    return (_OK, ATTRIBUTES[code]) if code in ATTRIBUTES else (CUresult.CUDA_ERROR_INVALID_VALUE, None)


def cuDeviceGetName(length: int, dev):  # noqa: N802
    if not _initialized[0]:
        return (CUresult.CUDA_ERROR_NOT_INITIALIZED, None)
    return (_OK, NAME[:max(int(length) - 1, 0)])


def cuDevicePrimaryCtxRetain(dev):  # noqa: N802
    if not _initialized[0]:
        return (CUresult.CUDA_ERROR_NOT_INITIALIZED, None)
    if not isinstance(dev, CUdevice):
        raise TypeError("Argument 'dev' is not instance of type (expected <class 'CUdevice'>)")
    ctx = _primary.get(int(dev))
    if ctx is None:
        ctx = _primary[int(dev)] = _Ctx(int(dev))
        _contexts[ctx.handle] = ctx
    ctx.refs += 1
    return (_OK, CUcontext(ctx.handle))


def cuDevicePrimaryCtxRelease(dev):  # noqa: N802
    if not isinstance(dev, CUdevice):
        raise TypeError("Argument 'dev' is not instance of type (expected <class 'CUdevice'>)")
    ctx = _primary.get(int(dev))
    if ctx is None:
        return (CUresult.CUDA_ERROR_INVALID_CONTEXT,)
    ctx.refs -= 1
    if ctx.refs == 0:  # the last reference: the primary context is reset, its memory and modules gone
        del _primary[int(dev)]
        ctx.destroyed = True
        for a in ctx.allocs:
            memory.free(a)
        ctx.allocs.clear()
        for h in [h for h, m in _modules.items() if m.ctx is ctx]:
            _modules.pop(h).loaded = False
    return (_OK,)


def cuCtxGetCurrent():  # noqa: N802
    if not _initialized[0]:
        return (CUresult.CUDA_ERROR_NOT_INITIALIZED, None)
    st = _stack()
    return (_OK, CUcontext(st[-1].handle if st else 0))


def cuCtxPushCurrent(ctx):  # noqa: N802
    if not isinstance(ctx, CUcontext):
        raise TypeError("Argument 'ctx' is not instance of type (expected <class 'CUcontext'>)")
    c = _contexts.get(int(ctx))
    if c is None or c.destroyed:
        return (CUresult.CUDA_ERROR_INVALID_CONTEXT,)
    _stack().append(c)
    return (_OK,)


def cuCtxPopCurrent():  # noqa: N802
    st = _stack()
    if not st:
        return (CUresult.CUDA_ERROR_INVALID_CONTEXT, None)
    return (_OK, CUcontext(st.pop().handle))


def cuCtxSynchronize():  # noqa: N802
    err, ctx = _need()
    if not err:
        syncs.append(("context", ctx.handle))
    return (err,)


def cuCtxGetDevice():  # noqa: N802
    err, ctx = _need()
    return (err, None) if err else (_OK, CUdevice(ctx.device))


# ---- streams: work runs when it is queued (kernels do not run), so a stream is always idle --------------

_streams: dict[int, _Ctx] = {}  # stream handle -> its context
STREAM_LEGACY, STREAM_PER_THREAD = 1, 2  # the driver's special handles (CU_STREAM_LEGACY, CU_STREAM_PER_THREAD)


def _stream_ok(ctx: _Ctx, stream) -> bool:
    h = 0 if stream is None else _address(stream)
    return h in (0, STREAM_LEGACY, STREAM_PER_THREAD) or _streams.get(h) is ctx


def cuStreamCreate(Flags: int):  # noqa: N802, N803
    err, ctx = _need()
    if err:
        return (err, None)
    h = next(_handles)
    _streams[h] = ctx
    return (_OK, CUstream(h))


def cuStreamDestroy(hStream):  # noqa: N802, N803
    if _streams.pop(_address(hStream), None) is None:
        return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
    return (_OK,)


def cuStreamSynchronize(hStream):  # noqa: N802, N803
    err, ctx = _need()
    if err:
        return (err,)
    if not _stream_ok(ctx, hStream):
        return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
    syncs.append(("stream", 0 if hStream is None else _address(hStream)))
    return (_OK,)


def cuStreamWaitEvent(hStream, hEvent, Flags: int):  # noqa: N802, N803
    err, ctx = _need()
    if err:
        return (err,)
    if not _stream_ok(ctx, hStream) or int(hEvent) not in _events:
        return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
    waits.append((0 if hStream is None else _address(hStream), int(hEvent)))
    return (_OK,)


def cuPointerGetAttribute(attribute: int, ptr):  # noqa: N802
    """Only CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL (9): the device of the context that allocated ptr."""
    if not _initialized[0]:
        return (CUresult.CUDA_ERROR_NOT_INITIALIZED, None)
    addr = _address(ptr)
    for ctx in _contexts.values():
        if not ctx.destroyed and any(a <= addr < a + memory.live[a].size for a in ctx.allocs):
            return (_OK, ctx.device) if int(attribute) == 9 else (CUresult.CUDA_ERROR_INVALID_VALUE, None)
    return (CUresult.CUDA_ERROR_INVALID_VALUE, None)


# ---- memory ------------------------------------------------------------------------------------------

def cuMemAlloc(bytesize: int):  # noqa: N802
    err, ctx = _need()
    if err:
        return (err, None)
    if bytesize <= 0:
        return (CUresult.CUDA_ERROR_INVALID_VALUE, None)
    addr = memory.alloc(bytesize)
    ctx.allocs.add(addr)
    return (_OK, CUdeviceptr(addr))


def cuMemFree(dptr):  # noqa: N802
    err, ctx = _need()
    if err:
        return (err,)
    addr = _address(dptr)
    if addr not in ctx.allocs:
        return (CUresult.CUDA_ERROR_INVALID_VALUE,)
    ctx.allocs.discard(addr)
    memory.free(addr)
    return (_OK,)


def _device_range(ctx: _Ctx, addr: int, nbytes: int):
    for start in ctx.allocs:
        buf = memory.live[start]
        if start <= addr and addr + nbytes <= start + buf.size:
            return buf[addr - start:addr - start + nbytes]
    return None


def cuMemcpyHtoD(dstDevice, srcHost, ByteCount: int):  # noqa: N802, N803
    err, ctx = _need()
    if err:
        return (err,)
    dst = _device_range(ctx, _address(dstDevice), ByteCount)
    if dst is None or not isinstance(srcHost, int):
        return (CUresult.CUDA_ERROR_INVALID_VALUE,)
    ctypes.memmove(dst.ctypes.data, srcHost, ByteCount)
    return (_OK,)


def cuMemcpyDtoH(dstHost, srcDevice, ByteCount: int):  # noqa: N802, N803
    err, ctx = _need()
    if err:
        return (err,)
    src = _device_range(ctx, _address(srcDevice), ByteCount)
    if src is None or not isinstance(dstHost, int):
        return (CUresult.CUDA_ERROR_INVALID_VALUE,)
    ctypes.memmove(dstHost, src.ctypes.data, ByteCount)
    return (_OK,)


def cuMemcpyHtoDAsync(dstDevice, srcHost, ByteCount: int, hStream):  # noqa: N802, N803
    err, ctx = _need()
    if err:
        return (err,)
    if not _stream_ok(ctx, hStream):
        return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
    return cuMemcpyHtoD(dstDevice, srcHost, ByteCount)


def cuMemcpyDtoHAsync(dstHost, srcDevice, ByteCount: int, hStream):  # noqa: N802, N803
    err, ctx = _need()
    if err:
        return (err,)
    if not _stream_ok(ctx, hStream):
        return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
    return cuMemcpyDtoH(dstHost, srcDevice, ByteCount)


def cuMemsetD8(dstDevice, uc: int, N: int):  # noqa: N802, N803
    err, ctx = _need()
    if err:
        return (err,)
    dst = _device_range(ctx, _address(dstDevice), N)
    if dst is None:
        return (CUresult.CUDA_ERROR_INVALID_VALUE,)
    dst[:] = int(uc) & 0xFF
    return (_OK,)


# ---- modules and launches ----------------------------------------------------------------------------

def _image(image) -> bytes:
    """The image's bytes, as the driver finds them: a cubin by its ELF header's sizes, PTX up to its NUL."""
    if isinstance(image, (bytes, bytearray)):
        return bytes(image)
    if isinstance(image, int):
        head = ctypes.string_at(image, 64)
        if head[:4] == _sd.ELF_MAGIC:  # the section headers end the file
            shoff = int.from_bytes(head[0x28:0x30], "little")
            entsize, count = int.from_bytes(head[0x3A:0x3C], "little"), int.from_bytes(head[0x3C:0x3E], "little")
            return ctypes.string_at(image, shoff + entsize * count)
        return ctypes.string_at(image)  # PTX: NUL-terminated text
    try:
        return bytes(memoryview(image).cast("B"))
    except TypeError:
        raise TypeError(f"Argument 'image' is not an address or a buffer: {type(image).__name__}") from None


def _load(image, options: dict):
    err, ctx = _need()
    if err:
        return (err, None)
    data = _image(image)
    if data[:4] == _sd.ELF_MAGIC:
        info = _sd.cubin_entries(data)
        if info is None:
            return (CUresult.CUDA_ERROR_INVALID_IMAGE, None)
        if info[0] != COMPUTE_CAPABILITY[0] * 10 + COMPUTE_CAPABILITY[1]:
            return (CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU, None)
        loads.append(("cubin", options))
        mod = _Module(ctx, "", info[1])
    else:
        ptx = data.split(b"\0", 1)[0].decode()
        if ".entry" not in ptx:
            return (CUresult.CUDA_ERROR_INVALID_IMAGE, None)
        ok, _log = _sd.assemble(ptx, _sd.jit_arch(ptx, COMPUTE_CAPABILITY))
        if not ok:
            return (CUresult.CUDA_ERROR_INVALID_PTX, None)
        loads.append(("ptx", options))
        mod = _Module(ctx, ptx)
    _modules[mod.handle] = mod
    return (_OK, CUmodule(mod.handle))


def cuModuleLoadData(image):  # noqa: N802
    return _load(image, {})


def cuModuleLoadDataEx(image, numOptions: int, options, optionValues):  # noqa: N802, N803
    options, values = list(options or []), list(optionValues or [])
    if numOptions != len(options) or len(values) != len(options):
        return (CUresult.CUDA_ERROR_INVALID_VALUE, None)
    for opt in options:
        if not isinstance(opt, CUjit_option):
            raise TypeError("Argument 'options' is not instance of type (expected list[CUjit_option])")
    chosen = dict(zip(options, values))
    level = chosen.get(CUjit_option.CU_JIT_OPTIMIZATION_LEVEL, 4)
    if not isinstance(level, int) or not 0 <= level <= 4:
        return (CUresult.CUDA_ERROR_INVALID_VALUE, None)
    return _load(image, chosen)


def cuModuleUnload(hmod):  # noqa: N802
    err, ctx = _need()
    if err:
        return (err,)
    mod = _modules.get(int(hmod))
    if mod is None:
        return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
    if mod.ctx is not ctx:
        return (CUresult.CUDA_ERROR_INVALID_CONTEXT,)
    del _modules[mod.handle]
    mod.loaded = False
    return (_OK,)


def cuModuleGetFunction(hmod, name: bytes):  # noqa: N802
    err, _ = _need()
    if err:
        return (err, None)
    mod = _modules.get(int(hmod)) if isinstance(hmod, CUmodule) else None
    if mod is None:
        return (CUresult.CUDA_ERROR_INVALID_HANDLE, None)
    params = mod.params(name.decode() if isinstance(name, bytes) else str(name))
    if params is None:
        return (CUresult.CUDA_ERROR_NOT_FOUND, None)
    h = next(_handles)
    _functions[h] = (mod, name.decode() if isinstance(name, bytes) else str(name), params)
    return (_OK, CUfunction(h))


def cuLaunchKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,  # noqa: N802, N803
                   sharedMemBytes, hStream, kernelParams, extra):  # noqa: N803
    if not isinstance(f, CUfunction):
        raise TypeError("Argument 'f' is not instance of type (expected <class 'CUfunction'>)")
    err, ctx = _need()
    if err:
        return (err,)
    entry = _functions.get(int(f))
    if entry is None or not entry[0].loaded:
        return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
    mod, name, params = entry
    if mod.ctx is not ctx:
        return (CUresult.CUDA_ERROR_INVALID_CONTEXT,)
    grid, block = (gridDimX, gridDimY, gridDimZ), (blockDimX, blockDimY, blockDimZ)
    if not _sd.check_config(grid, block) or sharedMemBytes < 0 \
            or sharedMemBytes > dynamic_shared.get(int(f), 48 * 1024):
        return (CUresult.CUDA_ERROR_INVALID_VALUE,)
    if extra not in (None, 0) or not isinstance(kernelParams, int) or (params and not kernelParams):
        return (CUresult.CUDA_ERROR_INVALID_VALUE,)  # the stand-in takes kernelParams as an address only
    if not _stream_ok(ctx, hStream):
        return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
    stream = 0 if hStream is None else _address(hStream)
    # kernelParams: void*[n], the i-th pointing at parameter i, read as wide as the entry declares it
    slots = (ctypes.c_void_p * len(params)).from_address(kernelParams) if params else []
    raws = tuple(ctypes.string_at(slots[i], size) for i, (_, size) in enumerate(params))
    launch = _sd.Launch(name, grid, block, _sd.decode(params, list(raws)), raws, int(sharedMemBytes), stream)
    launches.append(launch)
    for hook in list(on_launch):
        hook(launch)
    return (_OK,)


def cuFuncGetAttribute(attrib, hfunc):  # noqa: N802
    err, _ = _need()
    if err:
        return (err, None)
    if int(hfunc) not in _functions:
        return (CUresult.CUDA_ERROR_INVALID_HANDLE, None)
    return (_OK, {0: 1024, 1: 0, 4: 32}.get(int(attrib), 0))


def cuFuncSetAttribute(hfunc, attrib, value: int):  # noqa: N802
    """MAX_DYNAMIC_SHARED_SIZE_BYTES only (the driver's others are not stood in for): at most the device's
    MAX_SHARED_MEMORY_PER_BLOCK_OPTIN."""
    if not isinstance(hfunc, CUfunction):
        raise TypeError("Argument 'hfunc' is not instance of type (expected <class 'CUfunction'>)")
    if not isinstance(attrib, CUfunction_attribute):
        raise TypeError("Argument 'attrib' is not instance of type (expected <class 'CUfunction_attribute'>)")
    err, _ = _need()
    if err:
        return (err,)
    if int(hfunc) not in _functions:
        return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
    if attrib != CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES \
            or not 0 <= int(value) <= ATTRIBUTES[97]:
        return (CUresult.CUDA_ERROR_INVALID_VALUE,)
    dynamic_shared[int(hfunc)] = int(value)
    return (_OK,)


# ---- events: the host's wall clock between records -------------------------------------------------------

class CUevent(_Handle):
    pass


_events: dict[int, float | None] = {}


def cuEventCreate(Flags: int):  # noqa: N802, N803
    err, _ = _need()
    if err:
        return (err, None)
    h = next(_handles)
    _events[h] = None
    return (_OK, CUevent(h))


def cuEventRecord(hEvent, hStream):  # noqa: N802, N803
    err, ctx = _need()
    if err:
        return (err,)
    if not isinstance(hEvent, CUevent) or int(hEvent) not in _events or not _stream_ok(ctx, hStream):
        return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
    _events[int(hEvent)] = time.perf_counter()
    return (_OK,)


def cuEventQuery(hEvent):  # noqa: N802, N803
    """Work runs when it is queued here: a recorded event has always completed."""
    if not isinstance(hEvent, CUevent) or int(hEvent) not in _events:
        return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
    return (_OK,)


def cuEventSynchronize(hEvent):  # noqa: N802, N803
    if not isinstance(hEvent, CUevent) or int(hEvent) not in _events:
        return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
    return (_OK,)


def cuEventElapsedTime(hStart, hEnd):  # noqa: N802, N803
    t0, t1 = _events.get(int(hStart)), _events.get(int(hEnd))
    if t0 is None or t1 is None:
        return (CUresult.CUDA_ERROR_INVALID_HANDLE, None)
    return (_OK, (t1 - t0) * 1e3)


def cuEventDestroy(hEvent):  # noqa: N802, N803
    if int(hEvent) not in _events:
        return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
    del _events[int(hEvent)]
    return (_OK,)


# ---- tensor maps (cuTensorMapEncodeTiled) ----------------------------------------------------------------
TENSOR_MAP_MAGIC = 0x5354414E44494E31  # the stand-in's maps start with this word
# the stand-in's encoding, word by word (the driver's is opaque): what the launcher asked for
TENSOR_MAP_WORDS = ("magic", "dtype", "rank", "address", "dim0", "dim1", "stride0", "box0", "box1", "estride0",
                    "estride1", "interleave", "swizzle", "l2promotion", "oobfill")
tensor_maps: list[dict] = []  # test hook: each map encoded, as TENSOR_MAP_WORDS (without the magic)
_ESIZE = {0: 1, 1: 2, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 8, 9: 2}
_SWIZZLE_SPAN = {0: None, 1: 32, 2: 64, 3: 128}


def cuTensorMapEncodeTiled(tensorDataType, tensorRank, globalAddress, globalDim, globalStrides,  # noqa: N802, N803
                           boxDim, elementStrides, interleave, swizzle, l2Promotion, oobFill):  # noqa: N803
    """As cuda-python's: enums of their classes, lists of cuuint64_t / cuuint32_t (a TypeError else), the
    requirements of the driver's documentation (CUDA_ERROR_INVALID_VALUE else), for a rank of 1 or 2."""
    for arg, cls in ((tensorDataType, CUtensorMapDataType), (interleave, CUtensorMapInterleave),
                     (swizzle, CUtensorMapSwizzle), (l2Promotion, CUtensorMapL2promotion),
                     (oobFill, CUtensorMapFloatOOBfill)):
        if not isinstance(arg, cls):
            raise TypeError(f"Argument is not instance of type (expected {cls})")
    rank = int(tensorRank)
    for arg, cls, n in ((globalDim, cuuint64_t, rank), (globalStrides, cuuint64_t, rank - 1),
                        (boxDim, cuuint32_t, rank), (elementStrides, cuuint32_t, rank)):
        if not isinstance(arg, (list, tuple)) or not all(isinstance(x, cls) for x in arg):
            raise TypeError(f"Argument is not instance of type (expected list[{cls.__name__}])")
        if len(arg) != n:
            return (CUresult.CUDA_ERROR_INVALID_VALUE, None)
    addr, esize = _address(globalAddress), _ESIZE[int(tensorDataType)]
    dims, strides, box, es = ([int(x) for x in a] for a in (globalDim, globalStrides, boxDim, elementStrides))
    span = _SWIZZLE_SPAN[int(swizzle)]
    ok = (1 <= rank <= 2 and addr % 16 == 0 and all(1 <= d <= 1 << 32 for d in dims)
          and all(st % 16 == 0 and st < 1 << 40 for st in strides) and all(1 <= b <= 256 for b in box)
          and box[0] * esize % 16 == 0 and all(1 <= e <= 8 for e in es)
          and (span is None or box[0] * esize <= span) and int(interleave) == 0)
    if not ok:
        return (CUresult.CUDA_ERROR_INVALID_VALUE, None)
    pad = [0] * (2 - rank)
    fields = [int(tensorDataType), rank, addr, *dims, *pad, *strides, *[0] * (1 - len(strides)), *box, *pad, *es,
              *pad, int(interleave), int(swizzle), int(l2Promotion), int(oobFill)]
    tensor_maps.append(dict(zip(TENSOR_MAP_WORDS[1:], fields)))
    return (_OK, CUtensorMap([TENSOR_MAP_MAGIC, *fields] + [0] * (16 - 1 - len(fields))))
