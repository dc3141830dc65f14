"""The runtime of a launcher module (`tileforth compile FILE --python out.py`).

tileforth/export/launcher.py writes a launcher as this module's code, copied
out, with the kernel's own values (its name, parameters, PTX or cubin, error
sites and messages) in place of the block marked "the kernel" below, a
docstring of its own and one function named after the kernel that calls
`_launch` (or `_bind`, then `_launch`). So the module is ordinary Python that
is imported, linted and tested here (tests/test_launchrt.py, with the
stand-in drivers of tests/standin), and it must stay one that a user can run
alone: it imports the standard library and numpy, never tileforth, and loads
its driver (CuPy, PyCUDA or cuda-python) when it first launches.

    use(name=None)           choose the driver (the first that imports, or TILEFORTH_LAUNCHER_DRIVER's)
    close()                  free what the module allocated and release the primary context
    KernelError              an error the kernel recorded in its context record, with its source position
    _launch(values, grid, block, stream)    one launch: arguments checked, arrays copied, the record read
"""
from __future__ import annotations

import ctypes
import os

import numpy as np

__all__ = ["KernelError", "use", "close"]

# ---- the kernel: its values (tileforth/export/launcher.py writes these for each kernel) ----
KERNEL = "kernel"
PARAMS: list = []  # (name, type, elements: a number, a size parameter's name, or None for a scalar)
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

    def __init__(self, name, value):
        self.name, self.host, self.keep = name, None, value
        if hasattr(value, "__cuda_array_interface__"):
            ai = value.__cuda_array_interface__
            self.ptr, shape = int(ai["data"][0] or 0), tuple(int(n) for n in ai["shape"])
            self.type = _typename(ai["typestr"])
            itemsize = np.dtype(ai["typestr"]).itemsize
            strides = ai.get("strides")
            if ai.get("mask") is not None:
                raise TypeError(f"{KERNEL}: {name} has a mask; pass an array without one")
        elif hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__") \
                and int(value.__dlpack_device__()[0]) in _DL_CUDA:
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


def _prepare(values):
    """The kernel's arguments as (struct format, value) pairs, and the array arguments."""
    sizes = {p[2].upper() for p in PARAMS if isinstance(p[2], str)}
    arrays, given, size_of = {}, {}, {}
    for (name, ty, count), v in zip(PARAMS, values):
        if count is None:
            if v is None and name.upper() not in sizes:
                raise TypeError(f"{KERNEL}: missing parameter {name} ({ty})")
            if v is not None:
                given[name.upper()] = _scalar(name, ty, v)
            continue
        if v is None:
            raise TypeError(f"{KERNEL}: missing array {name} ({ty}[{count}])")
        a = arrays[name.upper()] = _Array(name, v)
        want = NUMPY_TYPES[ty]
        if a.type != want:
            raise TypeError(f"{KERNEL}: {name} is {ty}[{count}]: pass an array of {want}, not {a.type}; convert "
                            f"it first (numpy/CuPy: x.astype('{want}'), PyTorch: x.to(torch.{want}))")
    for (name, ty, count) in PARAMS:  # sizes: given, or taken from the arrays they size
        if count is None:
            continue
        a = arrays[name.upper()]
        if isinstance(count, int):
            if a.size != count:
                raise ValueError(f"{KERNEL}: {name} is {ty}[{count}]: it needs {count} elements, but has {a.size}")
            continue
        key = count.upper()
        if key not in given:
            sty = next(p[1] for p in PARAMS if p[0].upper() == key)
            given[key] = _check_int(count, sty, a.size)
            size_of[key] = name
        elif a.size != given[key]:
            src = f"{count} = {given[key]}" + (f", the size of {size_of[key]}" if key in size_of else "")
            raise ValueError(f"{KERNEL}: {name} is {ty}[{count}]: it needs {given[key]} elements ({src}), "
                             f"but has {a.size}")
    args = []
    for name, ty, count in PARAMS:
        if count is None:
            args.append((FORMATS[ty], given[name.upper()]))
        else:
            args.append(("P", arrays[name.upper()]))
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


def _record():
    rec = np.zeros(CONTEXT_SLOTS, np.int64)
    rec[RECURSION_SLOT] = RECURSION_MAX
    return rec


# ---- drivers --------------------------------------------------------------------------------------
def _image_bytes():
    return IMAGE.encode() + b"\0" if isinstance(IMAGE, str) else IMAGE


class _PyCuda:
    """PyCUDA: the current context, else the device's primary context (the one CuPy and PyTorch use)."""
    name = "pycuda"

    def __init__(self):
        import pycuda.driver as drv
        drv.init()
        self.drv, self.primary, self.loaded = drv, None, {}

    def enter(self):
        if self.drv.Context.get_current() is not None:
            return False
        if self.primary is None:
            self.primary = self.drv.Device(int(os.environ.get("TILEFORTH_LAUNCHER_DEVICE", "0"))) \
                .retain_primary_context()
        self.primary.push()
        return True

    def leave(self, pushed):
        if pushed:
            self.drv.Context.pop()

    def state(self):
        key = self.drv.Context.get_current().handle
        if key not in self.loaded:
            mod = self.drv.module_from_buffer(_image_bytes())
            fn = mod.get_function(KERNEL)
            ctx = self.drv.mem_alloc(CONTEXT_SLOTS * 8) if CONTEXT else None
            self.loaded[key] = (mod, fn, ctx)
        return self.loaded[key]

    def alloc(self, host):
        dev = self.drv.mem_alloc(max(host.nbytes, 1))
        self.drv.memcpy_htod(dev, host.reshape(-1).view(np.uint8))  # bytes: bfloat16 has no buffer format
        return dev, int(dev)

    def copy_back(self, host, dev):
        self.drv.memcpy_dtoh(host.reshape(-1).view(np.uint8), dev)

    def free(self, dev):
        dev.free()

    def launch(self, grid, block, stream, args):
        _, fn, ctx = self.state()
        fmt = "".join(f for f, _ in args)
        values = [int(v) if f == "P" else v for f, v in args]
        if CONTEXT:
            self.drv.memcpy_htod(ctx, _record())
            fmt, values = "P" + fmt, [int(ctx)] + values
        fn.prepare(fmt)
        self.drv.Context.synchronize()  # what other streams wrote to the arguments is done
        # a PyCUDA stream: launched on it; another library's stream: the synchronizations around order it
        if isinstance(stream, getattr(self.drv, "Stream", ())):
            fn.prepared_async_call(grid, block, stream, *values)
        else:
            fn.prepared_call(grid, block, *values)
        self.drv.Context.synchronize()
        if CONTEXT:
            rec = np.zeros(len(ERROR_SLOTS), np.int64)
            self.drv.memcpy_dtoh(rec, int(ctx))
            return rec
        return None

    def close(self):
        for _, _, ctx in self.loaded.values():
            if ctx is not None:
                ctx.free()
        self.loaded.clear()
        if self.primary is not None:
            self.primary.detach()
            self.primary = None


class _CuPy:
    """CuPy: RawModule on the current device, launched on the current stream (or `stream`)."""
    name = "cupy"

    def __init__(self):
        import tempfile

        import cupy
        self.cp, self.loaded = cupy, {}
        fd, self.path = tempfile.mkstemp(suffix="." + IMAGE_KIND, prefix=KERNEL + "_")
        with os.fdopen(fd, "wb") as fh:
            fh.write(_image_bytes())

    def enter(self):
        return False

    def leave(self, pushed):
        pass

    def state(self):
        dev = self.cp.cuda.Device().id
        if dev not in self.loaded:
            mod = self.cp.RawModule(path=self.path)
            ctx = self.cp.zeros(CONTEXT_SLOTS, self.cp.int64) if CONTEXT else None
            self.loaded[dev] = (mod, mod.get_function(KERNEL), ctx)
        return self.loaded[dev]

    def alloc(self, host):
        dev = self.cp.asarray(host.reshape(-1).view(np.uint8))  # bytes: CuPy has no bfloat16
        return dev, int(dev.data.ptr)

    def copy_back(self, host, dev):
        host.reshape(-1).view(np.uint8)[:] = self.cp.asnumpy(dev)

    def free(self, dev):
        pass  # CuPy's memory pool takes it back when the array goes

    def launch(self, grid, block, stream, args):
        _, fn, ctx = self.state()
        values = [_ARG_TYPES[f](v) for f, v in args]
        if CONTEXT:
            ctx.set(_record())
            values.insert(0, np.uint64(ctx.data.ptr))
        self.cp.cuda.Device().synchronize()
        if stream is not None:
            with self.cp.cuda.ExternalStream(_stream_handle(stream)):
                fn(grid, block, tuple(values))
        else:
            fn(grid, block, tuple(values))
        self.cp.cuda.Device().synchronize()
        return ctx[:len(ERROR_SLOTS)].get() if CONTEXT else None

    def close(self):
        self.loaded.clear()
        try:
            os.unlink(self.path)
        except OSError:
            pass


class _CudaPython:
    """cuda-python's driver API (cuda.bindings.driver; cuda.core is built on it)."""
    name = "cuda-python"

    def __init__(self):
        try:
            from cuda.bindings import driver as cu
        except ImportError:
            from cuda import cuda as cu
        self.cu, self.primary, self.loaded = cu, None, {}
        self.ok(cu.cuInit(0))

    def ok(self, result):
        err, rest = (result[0], result[1:]) if isinstance(result, tuple) else (result, ())
        if int(err) != 0:
            _, text = self.cu.cuGetErrorString(err)
            raise RuntimeError(f"{KERNEL}: CUDA error {int(err)}: {text.decode() if text else err}")
        return rest[0] if len(rest) == 1 else rest

    def enter(self):
        cur = self.ok(self.cu.cuCtxGetCurrent())
        if cur is not None and int(cur) != 0:
            return False
        if self.primary is None:
            dev = self.ok(self.cu.cuDeviceGet(int(os.environ.get("TILEFORTH_LAUNCHER_DEVICE", "0"))))
            self.primary = (dev, self.ok(self.cu.cuDevicePrimaryCtxRetain(dev)))
        self.ok(self.cu.cuCtxPushCurrent(self.primary[1]))
        return True

    def leave(self, pushed):
        if pushed:
            self.ok(self.cu.cuCtxPopCurrent())

    def state(self):
        key = int(self.ok(self.cu.cuCtxGetCurrent()))
        if key not in self.loaded:
            self._image = np.frombuffer(_image_bytes(), np.uint8)
            mod = self.ok(self.cu.cuModuleLoadData(self._image.ctypes.data))
            fn = self.ok(self.cu.cuModuleGetFunction(mod, KERNEL.encode()))
            ctx = self.ok(self.cu.cuMemAlloc(CONTEXT_SLOTS * 8)) if CONTEXT else None
            self.loaded[key] = (mod, fn, ctx, self.ok(self.cu.cuCtxGetCurrent()))
        return self.loaded[key][:3]

    def alloc(self, host):
        dev = self.ok(self.cu.cuMemAlloc(max(host.nbytes, 1)))
        try:
            self.ok(self.cu.cuMemcpyHtoD(dev, host.ctypes.data, host.nbytes))
        except BaseException:
            self.free(dev)
            raise
        return dev, int(dev)

    def copy_back(self, host, dev):
        self.ok(self.cu.cuMemcpyDtoH(host.ctypes.data, dev, host.nbytes))

    def free(self, dev):
        self.cu.cuMemFree(dev)  # in the context it was allocated in (the current one)

    def launch(self, grid, block, stream, args):
        _, fn, ctx = self.state()
        boxes = [np.array([v], _ARG_TYPES[f]) for f, v in args]
        if CONTEXT:
            rec = _record()
            self.ok(self.cu.cuMemcpyHtoD(ctx, rec.ctypes.data, rec.nbytes))
            boxes.insert(0, np.array([int(ctx)], np.uint64))
        ptrs = np.array([b.ctypes.data for b in boxes], np.uint64)
        self.ok(self.cu.cuCtxSynchronize())
        self.ok(self.cu.cuLaunchKernel(fn, *grid, *block, 0, _stream_handle(stream), ptrs.ctypes.data, 0))
        self.ok(self.cu.cuCtxSynchronize())
        if CONTEXT:
            out = np.zeros(len(ERROR_SLOTS), np.int64)
            self.ok(self.cu.cuMemcpyDtoH(out.ctypes.data, ctx, out.nbytes))
            return out
        return None

    def close(self):
        for mod, _, ctx, owner in self.loaded.values():
            if int(self.cu.cuCtxPushCurrent(owner)[0]) != 0:
                continue  # that context is gone, and what was loaded in it
            if ctx is not None:
                self.cu.cuMemFree(ctx)
            self.cu.cuModuleUnload(mod)
            self.cu.cuCtxPopCurrent()
        self.loaded.clear()
        if self.primary is not None:
            self.cu.cuDevicePrimaryCtxRelease(self.primary[0])
            self.primary = None


_DRIVERS = {"cupy": _CuPy, "pycuda": _PyCuda, "cuda-python": _CudaPython}
_driver = None


def use(name=None):
    """Choose the driver: "cupy", "pycuda" or "cuda-python"; None: the first that imports (in that
    order, or TILEFORTH_LAUNCHER_DRIVER's). Returns its name."""
    global _driver
    close()
    name = name or os.environ.get("TILEFORTH_LAUNCHER_DRIVER")
    names = [name] if name else list(_DRIVERS)
    errors = []
    for n in names:
        if n not in _DRIVERS:
            raise ValueError(f"{KERNEL}: no driver {n!r}: use one of {', '.join(_DRIVERS)}")
        try:
            _driver = _DRIVERS[n]()
            return n
        except ImportError as e:
            errors.append(f"{n}: {e}")
    raise ImportError(f"{KERNEL}: no CUDA driver for Python is installed: install cupy, pycuda or cuda-python "
                      f"({'; '.join(errors)})")


def close():
    """Free the context records and modules, and release the primary context this module retained."""
    global _driver
    if _driver is not None:
        _driver.close()
        _driver = None


def _launch(values, grid, block, stream):
    args, arrays = _prepare(values)
    block = _shape(block, "block")
    if grid is None:
        n = max((a.size for a in arrays), default=1)
        grid = (max(1, -(-n // (block[0] * block[1] * block[2]))), 1, 1)
    grid = _shape(grid, "grid")
    if _driver is None:
        use()
    drv = _driver
    pushed = drv.enter()
    copies = []
    try:
        for a in arrays:
            if a.host is not None:
                dev, a.ptr = drv.alloc(a.host)
                copies.append((a.host, dev))
        args = [(f, v.ptr if isinstance(v, _Array) else v) for f, v in args]
        record = drv.launch(grid, block, stream, args)
        for host, dev in copies:
            drv.copy_back(host, dev)
    finally:
        try:
            for _, dev in copies:  # the copies' device memory, freed in its context
                drv.free(dev)
        except Exception:  # noqa: BLE001 - a dead context took it with it; the first error is the one to see
            pass
        drv.leave(pushed)
    if record is not None and int(record[0]) != 0:
        raise _error(record)
