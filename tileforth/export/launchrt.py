"""The runtime of a launcher module (`tileforth compile FILE --python out.py`).

tileforth/export/launcher.py writes a launcher as this module's code, copied
out, with the kernel's own values (its name, parameters, PTX or cubin, error
sites and messages, the file's `\\! grid` and `\\! block`) in place of the block
marked "the kernel" below, a docstring of its own and one function named after
the kernel that calls `_launch` (or `_bind`, then `_launch`). So the module is
ordinary Python that is imported, linted and tested here (tests/test_launchrt.py
and tests/test_launcher.py, with the stand-in driver of tests/standin/cuda), and
it must stay one that a user can run alone: it imports the standard library and
numpy, never tileforth, and loads its driver, NVIDIA's cuda-bindings
(`cuda.bindings.driver`, the `cuda-python` package), when it first launches.

A launch behaves as a CuPy or Triton kernel does: it is queued on the caller's
stream (the `stream=` given; else PyTorch's current stream when an argument is
a torch tensor, CuPy's when one is a CuPy array; else the legacy default
stream) on the device the arrays are on, and nothing waits for the device. An
array that another stream produced is waited for on the device (the stream of
its `__cuda_array_interface__` v3, or DLPack's `__dlpack__(stream=...)`). A
checked kernel writes errors into a context record of its own; the record is
read when the launch has completed, so an error is raised by `check()`, or by
the next call of the launcher after the device finished it (after the caller
synchronized). numpy arrays are copied to the device and back, so a call with
one waits for its stream and reports errors at once.

    check()                  wait for this module's launches and raise the first error they recorded
    torch_op()               the kernel as a PyTorch custom op (torch.compile, CUDA graphs)
    use(name=None)           choose the driver (cuda-python, the only one; TILEFORTH_LAUNCHER_DRIVER)
    close()                  free what the module allocated and release the primary contexts it retained
    KernelError              an error the kernel recorded in its context record, with its source position
    _launch(values, grid, block, stream)    one launch: arguments checked, arrays copied, queued
"""
from __future__ import annotations

import atexit
import ctypes
import os

import numpy as np

__all__ = ["KernelError", "check", "use", "close", "torch_op"]

# ---- the kernel: its values (tileforth/export/launcher.py writes these for each kernel) ----
KERNEL = "kernel"
PARAMS: list = []  # (name, type, elements: a number, a size parameter's name, dims (a tuple), or None: a scalar)
TMAPS: list = []  # `\\! tmap`: (name, array, box rows, box cols, swizzle, CUtensorMapDataType), after PARAMS
CONTEXT = True  # the entry's first parameter is the context record
CONTEXT_SLOTS = 0
ERROR_SLOTS: tuple = ()  # code, site, thread, address, aux
RECURSION_SLOT = 0  # the context record's slot of the recursion limit
RECURSION_MAX = 0  # the limit written there
E_THROW = 0
MESSAGES: dict = {}  # error code -> message ({where}: " in WORD" or "", {thr}: "thread N")
THROW_MEANINGS: dict = {}  # THROW code -> what it means (Forth-2012 table 9.1)
SITES: list = []  # (word, file, line, column, line text) by site number
STRINGS: list = []  # ABORT" texts by number
SHARED_BYTES = 0  # dynamic shared memory a block takes, given at launch (past 48 KiB, after an opt-in)
GRID: tuple | None = None  # the file's `\\! grid`: the default grid (None: one thread per element of the first array)
BLOCK: tuple | None = None  # the file's `\\! block`: the default block (None: 256 threads)
SOURCE: str | None = None  # the kernel file's text: the CPU fallback runs it on tileforth's emulator
SOURCE_NAME = "<kernel>"
IMAGE_KIND = "ptx"  # or "cubin"
IMAGE: str | bytes = ""  # the PTX text, or the cubin's bytes
# ---- end of the kernel ----


class KernelError(RuntimeError):
    """An error the kernel recorded: code, site, thread, addr, aux as in its context record;
    word, file, line, column: where in the source (None when unknown)."""

    def __init__(self, message, code, site, thread, addr, aux, where=None):
        super().__init__(message)
        self.message, self.code, self.site, self.thread, self.addr, self.aux = message, code, site, thread, addr, aux
        self.word, self.file, self.line, self.column = (where or (None, None, None, None, None))[:4]


def _error(record):
    code, site, thread, addr, aux = (int(v) for v in record)
    where = SITES[site] if 0 <= site < len(SITES) else None
    inword = f" in {where[0]}" if where and where[0] != "<line>" else ""
    thr = f"thread {thread}"
    if code == E_THROW:
        if aux == -2 and 0 <= addr < len(STRINGS):
            text = f'{STRINGS[addr]} (ABORT"{inword}, {thr})'
        else:
            meaning = THROW_MEANINGS.get(aux)
            text = (f"uncaught exception {aux}{inword} ({thr})" + (f": {meaning}" if meaning else "")
                    + "; catch it with CATCH, or find where it is thrown")
    else:
        text = MESSAGES.get(code, "device error {code}{where}").format(
            where=inword, thr=thr, addr=addr & (2**64 - 1), aux=aux, code=code)
    if where and where[2]:
        text = f"{where[1]}:{where[2]}:{where[3]}: {text}"
    return KernelError(f"{KERNEL}: {text}", code, site, thread, addr, aux, where)


# ---- arguments --------------------------------------------------------------------------------------
# each declared type: its struct format (as PyCUDA's prepare takes it; bf16 as its 16 bits) and numpy name
FORMATS = {"i8": "b", "i16": "h", "i32": "i", "i64": "q", "f16": "e", "bf16": "H", "f32": "f", "f64": "d"}
NUMPY_TYPES = {"i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "f16": "float16",
               "bf16": "bfloat16", "f32": "float32", "f64": "float64"}
# a struct format (and "P", a device address) as the numpy scalar type that CuPy and cuda-python are given
_ARG_TYPES = {"b": np.int8, "h": np.int16, "i": np.int32, "q": np.int64, "e": np.float16, "H": np.uint16,
              "f": np.float32, "d": np.float64, "P": np.uint64}
_DL_CODES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 5: "complex", 6: "bool"}
_DL_CUDA = (2, 3, 13)  # kDLCUDA, kDLCUDAHost, kDLCUDAManaged


class _DLDevice(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int32), ("id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


def _typename(typestr):
    """A __cuda_array_interface__ typestr as a numpy name ("float32"; "<V2" may be bfloat16)."""
    if typestr[1:] == "V2":
        return "bfloat16"
    try:
        return np.dtype(typestr).name
    except TypeError:
        return typestr


def _library(value):
    """"torch" or "cupy" for their arrays (whose current stream a launch takes), else None."""
    lib = type(value).__module__.split(".", 1)[0]
    return lib if lib in ("torch", "cupy") else None


def _torch_device(value):
    """The CUDA device index of a torch tensor, else None."""
    dev = getattr(value, "device", None) if _library(value) == "torch" else None
    return int(dev.index or 0) if getattr(dev, "type", None) == "cuda" else None


def _c_contiguous(shape, strides, itemsize):
    if strides is None:
        return True
    want = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != want:
            return False
        want *= n
    return True


class _Array:
    """One array argument: its device address and elements; `host`: a numpy array copied in and back."""

    def __init__(self, name, value, stream=0):
        # device: the device it is on, when the array says (DLPack, a torch tensor); producer: the stream
        # that made it, when its __cuda_array_interface__ (v3) names one the launch's stream must wait for
        self.name, self.host, self.keep, self.device, self.producer = name, None, value, _torch_device(value), None
        if hasattr(value, "__cuda_array_interface__"):
            ai = value.__cuda_array_interface__
            self.ptr, shape = int(ai["data"][0] or 0), tuple(int(n) for n in ai["shape"])
            self.type = _typename(ai["typestr"])
            itemsize = np.dtype(ai["typestr"]).itemsize
            strides = ai.get("strides")
            if ai.get("mask") is not None:
                raise TypeError(f"{KERNEL}: {name} has a mask; pass an array without one")
            if ai.get("stream") is not None and int(ai["stream"]) != int(stream):
                self.producer = int(ai["stream"])
        elif hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__") \
                and int(value.__dlpack_device__()[0]) in _DL_CUDA:
            self.device = int(value.__dlpack_device__()[1])
            try:  # the producer orders its work before the consumer's stream (1: the legacy default stream)
                self.capsule = value.__dlpack__(stream=int(stream) or 1)
            except TypeError:  # a producer of DLPack before streams
                self.capsule = value.__dlpack__()
            get = ctypes.pythonapi.PyCapsule_GetPointer
            get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
            t = _DLTensor.from_address(get(self.capsule, b"dltensor"))
            shape = tuple(t.shape[i] for i in range(t.ndim))
            itemsize = t.dtype.bits // 8
            self.type = f"{_DL_CODES.get(t.dtype.code, f'code{t.dtype.code}-')}{t.dtype.bits}"
            if t.dtype.lanes != 1:
                self.type += f"x{t.dtype.lanes}"
            self.ptr = int(t.data or 0) + int(t.byte_offset)
            strides = None if not t.strides else tuple(t.strides[i] * itemsize for i in range(t.ndim))
        elif isinstance(value, np.ndarray) or hasattr(value, "__array_interface__"):
            arr = value if isinstance(value, np.ndarray) else np.asarray(value)
            if not arr.flags.c_contiguous or not arr.flags.writeable:
                raise ValueError(f"{KERNEL}: {name} must be a C-contiguous, writable array: pass "
                                 "numpy.ascontiguousarray(...) and read the results from it")
            self.host, self.ptr, shape, strides = arr, 0, arr.shape, None
            self.type, itemsize = arr.dtype.name, arr.dtype.itemsize
        else:
            raise TypeError(f"{KERNEL}: {name} is an array parameter, but got a {type(value).__name__}: pass a "
                            "CuPy array, a PyTorch CUDA tensor, a numba device array (anything with "
                            "__cuda_array_interface__ or DLPack), or a numpy array")
        self.shape = tuple(int(n) for n in shape)
        self.size = int(np.prod(shape, dtype=np.int64)) if shape else 1
        self.nbytes = self.size * itemsize
        if not _c_contiguous(shape, strides, itemsize):
            raise ValueError(f"{KERNEL}: {name} is not contiguous (strides {tuple(strides)} for shape {shape}): "
                             "pass a contiguous copy (x.contiguous(), cupy.ascontiguousarray(x))")
        if self.ptr == 0 and self.host is None and self.size:
            raise ValueError(f"{KERNEL}: {name} has a null device pointer")


def _check_int(name, ty, v):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{KERNEL}: {name} is an {ty} scalar: pass an integer, not a {type(v).__name__}")
    bits = int(ty[1:])
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if not lo <= int(v) <= hi:
        raise ValueError(f"{KERNEL}: {name} = {int(v)} does not fit in {ty} ({lo} to {hi})")
    return int(v)


def _scalar(name, ty, v):
    if ty[0] == "i":
        return _check_int(name, ty, v)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{KERNEL}: {name} is an {ty} scalar: pass a number, not a {type(v).__name__}")
    if ty == "bf16":  # the f32's upper 16 bits, rounded to nearest even
        bits = int(np.array(float(v), np.float32).view(np.uint32))
        if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:
            return 0x7FC0
        return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF
    return float(v)


def _bind(args, values):
    """Positional and keyword values (names in any case) in PARAMS order; None for those not given."""
    if len(args) > len(PARAMS):
        raise TypeError(f"{KERNEL}: takes {len(PARAMS)} parameters, got {len(args)}")
    out = list(args) + [None] * (len(PARAMS) - len(args))
    upper = {p[0].upper(): i for i, p in enumerate(PARAMS)}
    for k, v in values.items():
        i = upper.get(k.upper())
        if i is None:
            raise TypeError(f"{KERNEL}: no parameter {k} (its parameters: {', '.join(p[0] for p in PARAMS)})")
        if i < len(args):
            raise TypeError(f"{KERNEL}: {PARAMS[i][0]} is given twice")
        out[i] = v
    return tuple(out)


def _dims(count):
    """An array parameter's dimensions: (count,) for one, the tuple for more."""
    return count if isinstance(count, tuple) else (count,)


def _size_names():
    """The size parameters: the names in the arrays' dimensions (each may be left to its arrays)."""
    return {d.upper() for p in PARAMS if p[2] is not None for d in _dims(p[2]) if isinstance(d, str)}


def _decl(ty, count):
    return f"{ty}[{','.join(map(str, _dims(count)))}]"


def _prepare(values, stream=0):
    """The kernel's arguments as (struct format, value) pairs, and the array arguments (for a launch on
    `stream`: DLPack producers order their work before it). A tensor map is ("T", its key): the
    launch encodes it once the arrays' device addresses are known (_Driver.tensor_map)."""
    sizes = _size_names()
    arrays, given, size_of = {}, {}, {}
    for (name, ty, count), v in zip(PARAMS, values):
        if count is None:
            if v is None and name.upper() not in sizes:
                raise TypeError(f"{KERNEL}: missing parameter {name} ({ty})")
            if v is not None:
                given[name.upper()] = _scalar(name, ty, v)
            continue
        if v is None:
            raise TypeError(f"{KERNEL}: missing array {name} ({_decl(ty, count)})")
        a = arrays[name.upper()] = _Array(name, v, stream)
        want = NUMPY_TYPES[ty]
        if a.type != want:
            raise TypeError(f"{KERNEL}: {name} is {_decl(ty, count)}: pass an array of {want}, not {a.type}; convert "
                            f"it first (numpy/CuPy: x.astype('{want}'), PyTorch: x.to(torch.{want}))")
    for (name, ty, count) in PARAMS:  # sizes: given, or taken from the arrays they size
        if count is None:
            continue
        a, dims = arrays[name.upper()], _dims(count)
        if len(dims) > 1 and len(a.shape) > 1 and len(a.shape) != len(dims):
            raise ValueError(f"{KERNEL}: {name} is {_decl(ty, count)}: give an array of {len(dims)} dimensions, or "
                             f"a flat one, not one of shape {a.shape}")
        pairs = [(dims[0], a.size)] if len(dims) == 1 else list(zip(dims, a.shape)) if len(a.shape) > 1 else []
        for d, n in pairs:
            if isinstance(d, int):
                if n != d:
                    what = f"{d} elements, but has {n}" if len(dims) == 1 else f"shape {dims}, but has {a.shape}"
                    raise ValueError(f"{KERNEL}: {name} is {_decl(ty, count)}: it needs {what}")
                continue
            key = d.upper()
            if key not in given:
                sty = next(p[1] for p in PARAMS if p[0].upper() == key)
                given[key] = _check_int(d, sty, n)
                size_of[key] = name
            elif n != given[key]:
                src = f"{d} = {given[key]}" + (f", the size of {size_of[key]}" if key in size_of else "")
                what = "elements" if len(dims) == 1 else f"along {d}"
                raise ValueError(f"{KERNEL}: {name} is {_decl(ty, count)}: it needs {given[key]} {what} ({src}), "
                                 f"but has {n}")
    for (name, ty, count) in PARAMS:  # a flat array of several dimensions: its size, once they are known
        dims = _dims(count) if count is not None else ()
        if len(dims) < 2:
            continue
        unknown = [d for d in dims if isinstance(d, str) and d.upper() not in given]
        if unknown:
            raise TypeError(f"{KERNEL}: {name} is {_decl(ty, count)} and flat: give {unknown[0]}, or {name} "
                            "with its shape")
        want = int(np.prod([d if isinstance(d, int) else given[d.upper()] for d in dims], dtype=np.int64))
        if arrays[name.upper()].size != want:
            raise ValueError(f"{KERNEL}: {name} is {_decl(ty, count)}: it needs {want} elements, but has "
                             f"{arrays[name.upper()].size}")
    args = []
    for name, ty, count in PARAMS:
        if count is None:
            args.append((FORMATS[ty], given[name.upper()]))
        else:
            args.append(("P", arrays[name.upper()]))
    for name, array, box_rows, box_cols, swizzle, dtype in TMAPS:
        ty, count = next((p[1], p[2]) for p in PARAMS if p[0].upper() == array.upper())
        dims = [d if isinstance(d, int) else given[d.upper()] for d in _dims(count)]
        rows, cols = (1, dims[0]) if len(dims) == 1 else dims
        esize = np.dtype(_ARG_TYPES[FORMATS[ty]]).itemsize
        if cols * esize % 16:
            raise ValueError(f"{KERNEL}: the tensor map {name} of {array}: a row of {array} is {cols * esize} bytes, "
                             "and TMA needs rows of a multiple of 16 bytes: give another number of columns")
        args.append(("T", (arrays[array.upper()], dtype, rows, cols, cols * esize, box_rows, box_cols, swizzle)))
    return args, list(arrays.values())


def _shape(v, what):
    t = tuple(int(n) for n in ((v,) if isinstance(v, (int, np.integer)) else v))
    if not 1 <= len(t) <= 3 or min(t) < 1:
        raise ValueError(f"{KERNEL}: {what} {v!r}: give 1 to 3 positive numbers, e.g. (256, 1, 1)")
    return t + (1,) * (3 - len(t))


def _stream_handle(stream):
    if stream is None:
        return 0
    for attr in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    return int(stream)


def _current_stream(values, device):
    """The stream a launch goes on when none is given: PyTorch's current stream on `device` when an
    argument is a torch tensor, CuPy's when one is a CuPy array, else the legacy default stream (0)."""
    for v in values:
        lib = _library(v)
        if lib == "torch" and _torch_device(v) is not None:  # a CUDA tensor (a CPU one has no stream)
            import torch
            return int(torch.cuda.current_stream(device).cuda_stream)
        if lib == "cupy":
            import cupy
            return int(cupy.cuda.get_current_stream().ptr)
    return 0


def _record():
    rec = np.zeros(CONTEXT_SLOTS, np.int64)
    rec[RECURSION_SLOT] = RECURSION_MAX
    return rec


# ---- the driver: cuda-bindings ---------------------------------------------------------------------------
def _image_bytes():
    return IMAGE.encode() + b"\0" if isinstance(IMAGE, str) else IMAGE


CU_STREAM_NON_BLOCKING = 1
CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
CUDA_ERROR_NOT_READY = 600
PENDING_MAX = 256  # launches whose error record is not read yet; one more waits for the oldest
MAPS_MAX = 64  # tensor maps a context keeps; one more reuses the least recently used one's memory
TMAP_BYTES = 128  # a CUtensorMap
STATIC_SHARED_BYTES = 48 * 1024  # shared memory a block has without opting in


class _Loaded:
    """What this module keeps in one context: the module, the kernel, a stream of its own (to read
    error records without waiting for the caller's streams) and the error records not in use."""

    def __init__(self, ctx, mod, fn, reader):
        self.ctx, self.mod, self.fn, self.reader, self.records = ctx, mod, fn, reader, []
        self.maps = {}  # tensor maps in device memory by what they encode: [address, event, host bytes]


class _Pending:
    """A checked launch whose error record is not read yet."""

    def __init__(self, loaded, record, init, event):
        self.loaded, self.record, self.init, self.event = loaded, record, init, event


class _Driver:
    """NVIDIA's cuda-bindings (cuda.bindings.driver; the older `from cuda import cuda` too)."""
    name = "cuda-python"

    def __init__(self):
        try:
            from cuda.bindings import driver as cu
        except ImportError:
            from cuda import cuda as cu
        self.cu, self.primary, self.loaded, self.pending = cu, {}, {}, []
        self.ok(cu.cuInit(0))

    def ok(self, result):
        err, rest = (result[0], result[1:]) if isinstance(result, tuple) else (result, ())
        if int(err) != 0:
            _, text = self.cu.cuGetErrorString(err)
            raise RuntimeError(f"{KERNEL}: CUDA error {int(err)}: {text.decode() if text else err}")
        return rest[0] if len(rest) == 1 else rest

    def device_of(self, array):
        """The device an array's memory is on (None for host memory)."""
        if array.host is not None or array.device is not None:
            return array.device
        err, ordinal = self.cu.cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, array.ptr)
        return int(ordinal) if int(err) == 0 else None

    def enter(self, device):
        """Make `device`'s context current (the current one if it is that device's, else its primary
        context; None: the current context, or device TILEFORTH_LAUNCHER_DEVICE's, default 0). True when
        a context was pushed (leave pops it)."""
        cur = self.ok(self.cu.cuCtxGetCurrent())
        if cur is not None and int(cur) != 0 and (device is None or int(self.ok(self.cu.cuCtxGetDevice())) == device):
            return False
        ordinal = int(os.environ.get("TILEFORTH_LAUNCHER_DEVICE", "0")) if device is None else device
        if ordinal not in self.primary:
            dev = self.ok(self.cu.cuDeviceGet(ordinal))
            self.primary[ordinal] = (dev, self.ok(self.cu.cuDevicePrimaryCtxRetain(dev)))
        self.ok(self.cu.cuCtxPushCurrent(self.primary[ordinal][1]))
        return True

    def leave(self, pushed):
        if pushed:
            self.ok(self.cu.cuCtxPopCurrent())

    def state(self):
        """What this module keeps in the current context, loaded on first use."""
        ctx = self.ok(self.cu.cuCtxGetCurrent())
        st = self.loaded.get(int(ctx))
        if st is None:
            self._image = np.frombuffer(_image_bytes(), np.uint8)
            mod = self.ok(self.cu.cuModuleLoadData(self._image.ctypes.data))
            fn = self.ok(self.cu.cuModuleGetFunction(mod, KERNEL.encode()))
            if SHARED_BYTES > STATIC_SHARED_BYTES:
                try:
                    self.opt_in(fn)
                except BaseException:
                    self.cu.cuModuleUnload(mod)
                    raise
            reader = self.ok(self.cu.cuStreamCreate(CU_STREAM_NON_BLOCKING))
            st = self.loaded[int(ctx)] = _Loaded(ctx, mod, fn, reader)
        return st

    def opt_in(self, fn):
        """Let the kernel have SHARED_BYTES of dynamic shared memory (more than the 48 KiB a block has without
        asking): the current device must allow that many."""
        cu = self.cu
        most = self.ok(cu.cuDeviceGetAttribute(
            cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, self.ok(cu.cuCtxGetDevice())))
        if SHARED_BYTES > int(most):
            raise RuntimeError(f"{KERNEL}: a block of this kernel takes {SHARED_BYTES} bytes of shared memory, but "
                               f"a block of this GPU may have at most {int(most)}; compile it with smaller tiles or "
                               "fewer stages")
        self.ok(cu.cuFuncSetAttribute(fn, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      SHARED_BYTES))

    def alloc(self, host, stream):
        dev = self.ok(self.cu.cuMemAlloc(max(host.nbytes, 1)))
        try:
            self.ok(self.cu.cuMemcpyHtoDAsync(dev, host.ctypes.data, host.nbytes, stream))
        except BaseException:
            self.free(dev)
            raise
        return dev, int(dev)

    def copy_back(self, host, dev, stream):
        self.ok(self.cu.cuMemcpyDtoHAsync(host.ctypes.data, dev, host.nbytes, stream))

    def free(self, dev):
        self.cu.cuMemFree(dev)  # in the context it was allocated in (the current one)

    def wait_for(self, producer, stream):
        """Work queued on `stream` from now on waits for what `producer` queued so far (on the device)."""
        ev = self.ok(self.cu.cuEventCreate(0))
        try:
            self.ok(self.cu.cuEventRecord(ev, producer))
            self.ok(self.cu.cuStreamWaitEvent(stream, ev, 0))
        finally:
            self.cu.cuEventDestroy(ev)

    def tensor_map(self, key, stream):
        """The device address of the tensor map `key` encodes (array address, CUtensorMapDataType, rows,
        cols, row bytes, box rows, box cols, swizzle), written on `stream` when it is not in the cache.
        The memory of the least recently used map is reused once the last launch that read it is done
        (its event), so nothing is freed, nor the device synchronized, while a launch may read it."""
        st = self.state()
        entry = st.maps.pop(key, None)
        if entry is None:
            if len(st.maps) >= MAPS_MAX:
                entry = st.maps.pop(next(iter(st.maps)))
                self.ok(self.cu.cuEventSynchronize(entry[1]))
            else:
                entry = [self.ok(self.cu.cuMemAlloc(TMAP_BYTES)), self.ok(self.cu.cuEventCreate(0)), None]
            entry[2] = self.encode(*key)
            self.ok(self.cu.cuMemcpyHtoDAsync(entry[0], entry[2].ctypes.data, TMAP_BYTES, stream))
        st.maps[key] = entry  # the most recently used last
        return entry

    def encode(self, ptr, dtype, rows, cols, row_bytes, box_rows, box_cols, swizzle):
        """cuTensorMapEncodeTiled of a rows x cols array at ptr, boxes of box_rows x box_cols (dimensions
        innermost first; swizzle 128, 64, 32: CU_TENSOR_MAP_SWIZZLE_128B, _64B, _32B; L2 promotion 128B; out-of-bounds
        elements read as zeros): its 128 bytes."""
        cu = self.cu
        u64, u32 = cu.cuuint64_t, cu.cuuint32_t
        tmap = self.ok(cu.cuTensorMapEncodeTiled(
            cu.CUtensorMapDataType(dtype), 2, ptr, [u64(cols), u64(rows)], [u64(row_bytes)],
            [u32(box_cols), u32(box_rows)], [u32(1), u32(1)], cu.CUtensorMapInterleave(0),
            cu.CUtensorMapSwizzle({32: 1, 64: 2, 128: 3}.get(swizzle, 0)), cu.CUtensorMapL2promotion(2),
            cu.CUtensorMapFloatOOBfill(0)))
        return np.array([int(w) for w in tmap.opaque], np.uint64)

    def launch(self, grid, block, stream, args):
        """Queue the kernel on `stream`; a checked kernel's error record is initialised on the same
        stream before it and read once an event after it has completed (collect). Tensor maps ("T")
        are written before it on the stream and marked in use until it completes."""
        st = self.state()
        used = [self.tensor_map(v, stream) for f, v in args if f == "T"]
        maps = iter(used)
        args = [("P", int(next(maps)[0])) if f == "T" else (f, v) for f, v in args]
        boxes = [np.array([v], _ARG_TYPES[f]) for f, v in args]
        pending = None
        if CONTEXT:
            if len(self.pending) >= PENDING_MAX:
                self.collect(wait=True, upto=1)
            record = st.records.pop() if st.records else self.ok(self.cu.cuMemAlloc(CONTEXT_SLOTS * 8))
            init = _record()
            self.ok(self.cu.cuMemcpyHtoDAsync(record, init.ctypes.data, init.nbytes, stream))
            boxes.insert(0, np.array([int(record)], np.uint64))
            pending = _Pending(st, record, init, self.ok(self.cu.cuEventCreate(0)))
        ptrs = np.array([b.ctypes.data for b in boxes], np.uint64)
        try:
            self.ok(self.cu.cuLaunchKernel(st.fn, *grid, *block, SHARED_BYTES, stream, ptrs.ctypes.data, 0))
        except BaseException:  # refused: the error record is not in use
            if pending is not None:
                st.records.append(pending.record)
                self.cu.cuEventDestroy(pending.event)
            raise
        for entry in used:  # the map's memory is not reused before this launch is done
            self.ok(self.cu.cuEventRecord(entry[1], stream))
        if pending is not None:
            self.ok(self.cu.cuEventRecord(pending.event, stream))
            self.pending.append(pending)

    def collect(self, wait, upto=None):
        """Read the error records of the launches that have completed (wait: of all of them, or of the
        oldest `upto`), in launch order; raise the first error one recorded."""
        first, keep, done = None, [], 0
        for p in self.pending:
            if upto is not None and done >= upto:
                keep.append(p)
                continue
            pushed = self._push(p.loaded.ctx)
            try:
                if wait:
                    self.ok(self.cu.cuEventSynchronize(p.event))
                else:
                    err = self.cu.cuEventQuery(p.event)
                    err = err[0] if isinstance(err, tuple) else err
                    if int(err) == CUDA_ERROR_NOT_READY:
                        keep.append(p)
                        continue
                    self.ok(err)
                out = np.zeros(len(ERROR_SLOTS), np.int64)
                self.ok(self.cu.cuMemcpyDtoHAsync(out.ctypes.data, p.record, out.nbytes, p.loaded.reader))
                self.ok(self.cu.cuStreamSynchronize(p.loaded.reader))  # this module's own stream only
                p.loaded.records.append(p.record)
                self.cu.cuEventDestroy(p.event)
                done += 1
                if first is None and int(out[0]) != 0:
                    first = out
            finally:
                self.leave(pushed)
        self.pending = keep
        if first is not None:
            raise _error(first)

    def _push(self, ctx):
        cur = self.ok(self.cu.cuCtxGetCurrent())
        if cur is not None and int(cur) == int(ctx):
            return False
        self.ok(self.cu.cuCtxPushCurrent(ctx))
        return True

    def close(self):
        try:
            self.collect(wait=True)
        except Exception:  # noqa: BLE001 - closing: an error nobody asked for is not raised here
            pass
        for st in self.loaded.values():
            if int(self.cu.cuCtxPushCurrent(st.ctx)[0]) != 0:
                continue  # that context is gone, and what was loaded in it
            for record in st.records:
                self.cu.cuMemFree(record)
            for dev, event, _ in st.maps.values():
                self.cu.cuMemFree(dev)
                self.cu.cuEventDestroy(event)
            self.cu.cuStreamDestroy(st.reader)
            self.cu.cuModuleUnload(st.mod)
            self.cu.cuCtxPopCurrent()
        self.loaded.clear()
        for dev, _ in self.primary.values():
            self.cu.cuDevicePrimaryCtxRelease(dev)
        self.primary.clear()


DRIVERS = ("cuda-python",)
_driver = None


def use(name=None):
    """Start the driver: "cuda-python" (NVIDIA's cuda-bindings), the only one; None:
    TILEFORTH_LAUNCHER_DRIVER's, else cuda-python. Returns its name."""
    global _driver
    close()
    name = name or os.environ.get("TILEFORTH_LAUNCHER_DRIVER") or "cuda-python"
    if name not in DRIVERS:
        raise ValueError(f"{KERNEL}: no driver {name!r}: launchers run on cuda-python (NVIDIA's cuda-bindings, "
                         "pip install cuda-python), whatever library made the arrays")
    try:
        _driver = _Driver()
    except ImportError as e:
        raise ImportError(f"{KERNEL}: the launcher needs NVIDIA's cuda-bindings: pip install cuda-python ({e})") \
            from None
    return name


def check():
    """Wait for this module's launches and raise the first error they recorded (KernelError); errors of
    launches that completed are also raised by the next launch."""
    if _driver is not None:
        _driver.collect(wait=True)


def close():
    """Free the error records and modules, release the primary contexts this module retained (an
    error not yet reported is dropped), and close the CPU fallback's emulator session."""
    global _driver, _cpu, _gpu
    if _driver is not None:
        _driver.close()
        _driver = None
    if _cpu is not None:
        _cpu[0].close()
        _cpu = None
    _gpu = None


_cpu = None  # the CPU fallback's emulator session and kernel (made at its first launch)
_gpu = None  # whether this process has a GPU to launch on (None: not known yet)


def _has_gpu():
    """cuda-bindings imports, and the driver starts with a device."""
    global _gpu
    if _gpu is None:
        try:
            if _driver is None:
                use()
            _gpu = int(_driver.ok(_driver.cu.cuDeviceGetCount())) > 0
        except (ImportError, RuntimeError):
            _gpu = False
    return _gpu


def _launch_shape(grid, block, arrays):
    """grid and block as given, else the file's `\\! grid` and `\\! block`, else one thread per element of the
    largest array in blocks of 256."""
    block = _shape(block if block is not None else BLOCK or (256, 1, 1), "block")
    if grid is None:
        n = max((a.size for a in arrays), default=1)
        grid = GRID or (max(1, -(-n // (block[0] * block[1] * block[2]))), 1, 1)
    return _shape(grid, "grid"), block


def _launch_cpu(values, grid, block):
    """The kernel on tileforth's emulator (checked, as the REPL runs it) over numpy arrays, which get the
    results; for machines without a GPU (a user's CI) or device="cpu"."""
    global _cpu
    if SOURCE is None:
        raise RuntimeError(f"{KERNEL}: this module holds no kernel source to run on the CPU; write it with "
                           "`tileforth compile FILE --python` to have the CPU fallback")
    try:
        from tileforth.core import Forth, ForthError
        from tileforth.export.kernelfile import parse_kernel_file, run_kernel_file
    except ImportError:
        raise ImportError(f"{KERNEL}: there is no GPU here, and the CPU fallback runs the kernel on tileforth's "
                          "emulator: pip install tileforth") from None
    if _cpu is None:
        _cpu = (Forth(backend="cpu"), parse_kernel_file(SOURCE, SOURCE_NAME))
    forth, spec = _cpu
    given = {}
    for (name, ty, count), v in zip(PARAMS, values):
        if v is None:
            continue
        if count is not None and not isinstance(v, np.ndarray):
            if hasattr(v, "__cuda_array_interface__") or not hasattr(v, "__array_interface__"):
                raise TypeError(f"{KERNEL}: on the CPU, {name} must be a numpy array (a device array needs a GPU)")
            v = np.asarray(v)
        given[name] = v
    _, arrays = _prepare([given.get(p[0]) for p in PARAMS])  # checked as for the GPU (types, sizes, ranges)
    grid, block = _launch_shape(grid, block, arrays)
    try:
        return run_kernel_file(forth, spec, given, grid, block)
    except ForthError as err:
        raise KernelError(f"{KERNEL}: {err}", None, None, None, None, None,
                          (None, err.pos.source, err.pos.line, err.pos.col) if err.pos else None) from None


# ---- PyTorch: the kernel as a custom op (torch.compile traces through it; CUDA graphs capture it) -------
_TORCH_TYPES = {"i8": "int", "i16": "int", "i32": "int", "i64": "int", "f16": "float", "bf16": "float",
                "f32": "float", "f64": "float"}
_op = None


def _op_name():
    return "".join(c if c.isalnum() else "_" for c in KERNEL)


def torch_op(namespace="tileforth"):
    """The kernel as the PyTorch custom op torch.ops.<namespace>.<kernel>: its array parameters are
    tensors it writes in place (every array counts as written: the header does not say which are
    read only), its scalars ints and floats, a size parameter optional; it returns nothing. The
    launch goes on torch's current stream (CUDA tensors) or to the CPU fallback (CPU tensors). Its
    fake implementation does nothing, so torch.compile(fullgraph=True) traces through the op without
    a graph break, and a launch inside a CUDA graph capture is captured."""
    global _op
    if _op is not None:
        return _op
    import torch
    sizes = _size_names()
    args, letters = [], iter("abcdefghijklmnopqrstuvwxyz")
    for name, ty, count in PARAMS:
        if count is not None:
            args.append(f"Tensor({next(letters)}!) {name}")
        elif name.upper() in sizes:
            args.append(f"{_TORCH_TYPES[ty]}? {name}=None")
        else:
            args.append(f"{_TORCH_TYPES[ty]} {name}")
    schema = f"({', '.join(args)}) -> ()"

    def impl(*values):
        arrays = [v for (_, _, c), v in zip(PARAMS, values) if c is not None]
        if arrays and all(getattr(a, "device", None) is not None and a.device.type == "cpu" for a in arrays):
            cpu = [v.numpy() if (c is not None) else v for (_, _, c), v in zip(PARAMS, values)]
            _launch_cpu(tuple(cpu), None, None)
            return
        _launch(tuple(values), None, None, None)

    _op = torch.library.custom_op(f"{namespace}::{_op_name()}", impl, mutates_args=[
        p[0] for p in PARAMS if p[2] is not None], schema=schema)
    _op.register_fake(lambda *values: None)
    return _op


def _launch(values, grid, block, stream, device=None):
    if device == "cpu" or (device is None and not _has_gpu()):
        return _launch_cpu(values, grid, block)
    if device is not None and not isinstance(device, (int, np.integer)):
        raise ValueError(f"{KERNEL}: device {device!r}: give a device number, or \"cpu\" for the emulator")
    if _driver is None:
        use()
    drv = _driver
    drv.collect(wait=False)  # an error of an earlier launch that has completed is raised now
    arrays_given = [v for (_, _, count), v in zip(PARAMS, values) if count is not None and v is not None]
    asked = None if device is None else int(device)  # device=N: the launch's device; else the arrays'
    devices = {d for d in (_torch_device(v) for v in arrays_given) if d is not None}
    device = asked if asked is not None else min(devices) if devices else None
    stream = _stream_handle(stream) if stream is not None else _current_stream(arrays_given, device)
    args, arrays = _prepare(values, stream)
    grid, block = _launch_shape(grid, block, arrays)
    on = {a.name: drv.device_of(a) for a in arrays}
    if asked is None:
        device = next((d for d in on.values() if d is not None), device)
    pushed = drv.enter(device)
    copies = []
    try:
        if device is None:
            device = int(drv.ok(drv.cu.cuCtxGetDevice()))
        other = [f"{n} (device {d})" for n, d in on.items() if d is not None and d != device]
        if other:
            raise ValueError(f"{KERNEL}: the arrays are on different devices: {', '.join(other)}, but the launch "
                             f"is on device {device}; move them to one device first (x.to('cuda:{device}'), "
                             "cupy.asarray under cupy.cuda.Device(...))")
        for a in arrays:
            if a.producer is not None:
                drv.wait_for(a.producer, stream)
            if a.host is not None:
                dev, a.ptr = drv.alloc(a.host, stream)
                copies.append((a.host, dev))
        args = [(f, v.ptr if isinstance(v, _Array) else (v[0].ptr, *v[1:]) if f == "T" else v) for f, v in args]
        drv.launch(grid, block, stream, args)
        if copies:  # numpy arrays: their results are read back, so this call waits for its stream
            for host, dev in copies:
                drv.copy_back(host, dev, stream)
            drv.ok(drv.cu.cuStreamSynchronize(stream))
    finally:
        try:
            for _, dev in copies:  # the copies' device memory, freed in its context
                drv.free(dev)
        except Exception:  # noqa: BLE001 - a dead context took it with it; the first error is the one to see
            pass
        drv.leave(pushed)
    if copies:
        drv.collect(wait=True)  # the stream is done: report this launch's error now


atexit.register(close)  # before the libraries it uses shut down (atexit runs the latest first)
