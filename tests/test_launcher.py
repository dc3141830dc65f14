"""Launchers (`tileforth compile FILE --python out.py`, tileforth/export/launcher.py) against the
stand-in cuda-python driver (tests/standin/cuda/bindings/driver.py), the one driver launchers use,
with `__cuda_array_interface__` and DLPack stand-ins over its device memory. Kernels do not run on
the stand-in: `simulate` runs each launch's kernel file on the cpu emulator over the device
memory's bytes at the pointers the launch passed, so round trips compute. A launch is queued on the
caller's stream and waits for nothing; errors come back through check() or the next call. And
f.kernel on the cpu backend with interface objects."""
from __future__ import annotations

import ast
import ctypes
import importlib.util
import os
import re
import struct
import subprocess
import sys
import types
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from standins import standins
from tileforth.backends.cuda.ptx import ptxas_path
from tileforth.core import Forth
from tileforth.core.compile import layout as L
from tileforth.export.kernelfile import parse_kernel_file, run_kernel_file
from tileforth.export.kernels import kernel_file_ptx
from tileforth.export.launcher import kernel_file_launcher, launcher_source
from tileforth.export.launchrt import FORMATS

ROOT = Path(__file__).resolve().parents[1]
SAXPY = ROOT / "demos" / "saxpy.fth"
needs_ptxas = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")
pytestmark = needs_ptxas  # the stand-in assembles every module it loads with ptxas, as the driver's JIT would

# type: (numpy dtype, fetch, store)
TYPES = {"i8": (np.int8, "I8@", "I8!"), "i16": (np.int16, "I16@", "I16!"), "i32": (np.int32, "I32@", "I32!"),
         "i64": (np.int64, "@", "!"), "f16": (np.float16, "HF@", "HF!"),
         "bf16": (ml_dtypes.bfloat16, "BF@", "BF!"), "f32": (np.float32, "F@", "F!"),
         "f64": (np.float64, "DF@", "DF!")}


class CudaPythonSide:
    """The cuda-python stand-in: the test retains the primary context and allocates there."""
    name = "cuda-python"

    def __init__(self, cu):
        self.cu, self.launches = cu, cu.launches
        assert cu.cuInit(0) == (cu.CUresult.CUDA_SUCCESS,)
        _, self.dev = cu.cuDeviceGet(0)
        _, self.primary = cu.cuDevicePrimaryCtxRetain(self.dev)
        self.own = set()

    def _in_primary(self, call, *args):
        assert self.cu.cuCtxPushCurrent(self.primary)[0] == 0
        try:
            out = call(*args)
        finally:
            self.cu.cuCtxPopCurrent()
        assert out[0] == 0, out
        return out[1] if len(out) > 1 else None

    def alloc(self, nbytes):
        dptr = self._in_primary(self.cu.cuMemAlloc, nbytes)
        self.own.add(int(dptr))
        return dptr, int(dptr)

    def write(self, ptr, data):
        data = np.ascontiguousarray(data)
        self._in_primary(self.cu.cuMemcpyHtoD, ptr, data.ctypes.data, data.nbytes)

    def write_current(self, ptr, data):
        assert self.cu.cuMemcpyHtoD(ptr, data.ctypes.data, data.nbytes)[0] == 0

    def read(self, ptr, out):
        self._in_primary(self.cu.cuMemcpyDtoH, out.ctypes.data, ptr, out.nbytes)

    def view(self, ptr, nbytes):
        return self.cu.view(ptr, nbytes)

    def on_launch(self, monkeypatch, hook):
        monkeypatch.setattr(self.cu, "on_launch", [hook])

    def leaked(self):
        return sorted({a for a, _ in self.cu.allocations()} - self.own)


@pytest.fixture
def side():
    """The cuda-python stand-in, as a Side (a fresh driver for each test)."""
    with standins("cuda"):
        from cuda.bindings import driver as cu
        cu.syncs.clear()
        cu.waits.clear()
        s = CudaPythonSide(cu)
        yield s
        assert s.leaked() == [], "the launcher left device memory allocated"
        assert s.cu.context_stack() == [] and s.cu.primary_refs() == 1  # the test's reference only
        assert s.cu.cuDevicePrimaryCtxRelease(s.dev)[0] == 0 and s.cu.primary_refs() == 0


@pytest.fixture
def drv(side):
    """The stand-in driver's side (the name older tests use)."""
    return side


class DeviceArray:
    """A `__cuda_array_interface__` stand-in over stand-in device memory (as a CuPy array would be).
    `drv`: a Side; `stream`: the stream its interface names (v3: the launch must wait for it)."""

    def __init__(self, drv, values, dtype=None, strides=None, stream=None):
        self.side = drv
        host = np.ascontiguousarray(np.asarray(values, dtype))
        self.dtype, self.shape = host.dtype, host.shape
        self.mem, self.ptr = self.side.alloc(max(host.nbytes, 1))
        self.side.write(self.ptr, host.reshape(-1).view(np.uint8))
        self.__cuda_array_interface__ = {"data": (self.ptr, False), "shape": host.shape,
                                         "typestr": host.dtype.str, "strides": strides, "version": 3,
                                         "stream": stream}

    def get(self) -> np.ndarray:
        out = np.empty(self.shape, self.dtype)
        self.side.read(self.ptr, out.reshape(-1).view(np.uint8))
        return out


class _DLDevice(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int32), ("id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLManaged(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64),
                ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class DLPackArray:
    """A DLPack-only stand-in (as a JAX array): `__dlpack__` gives a "dltensor" capsule of a
    DLManagedTensor on device kDLCUDA whose data is a stand-in device allocation."""

    CODES = {"i": 0, "u": 1, "f": 2, "V": 4}

    def __init__(self, device_array: DeviceArray):
        self.base = device_array
        dt = device_array.dtype
        self.shape = (ctypes.c_int64 * len(device_array.shape))(*device_array.shape)
        self.managed = _DLManaged(device_array.ptr, _DLDevice(2, 0), len(device_array.shape),
                                  _DLDataType(self.CODES[dt.kind], dt.itemsize * 8, 1), self.shape, None, 0,
                                  None, None)

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None):
        self.streams = getattr(self, "streams", []) + [stream]  # the consumer's stream, as it asked
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), b"dltensor", None)


class HostArray:
    """A `__cuda_array_interface__` stand-in over a numpy buffer (what the cpu backend copies through)."""

    def __init__(self, values, dtype=None):
        self.array = np.ascontiguousarray(np.asarray(values, dtype))
        self.__cuda_array_interface__ = {"data": (self.array.ctypes.data, False), "shape": self.array.shape,
                                         "typestr": self.array.dtype.str, "strides": None, "version": 3}


def simulate(monkeypatch, drv, text: str) -> list[str]:
    """Each launch of the stand-in (`drv`: a Side) runs the kernel file on
    the cpu emulator: each argument read from the bytes the launch passed, as its declared type;
    its arrays read from and written back to device memory at the pointers passed. Returns what
    the launches printed."""
    side = drv
    spec = parse_kernel_file(text)
    printed: list[str] = []
    arena = side.view

    def call(launch):
        raw = list(launch.raw)
        raw = raw[1:] if len(raw) == len(spec.params) + 1 else raw  # the context record first
        user = [struct.unpack("Q" if p.count is not None else FORMATS[p.eltype.name.lower()], r)[0]
                for p, r in zip(spec.params, raw)]
        grid, block = launch.grid, launch.block
        values, scalars = {}, {p.name.upper(): v for p, v in zip(spec.params, user) if p.count is None}
        for p, v in zip(spec.params, user):
            if p.count is None:
                values[p.name] = float(np.array(v, np.uint16).view(ml_dtypes.bfloat16)) \
                    if p.eltype.name == "BF16" else v
            else:
                n = p.count if isinstance(p.count, int) else int(scalars[p.count.upper()])
                values[p.name] = arena(int(v), n * p.eltype.size).view(p.eltype.dtype).copy()
        f = Forth(backend="cpu")
        printed.append(run_kernel_file(f, spec, values, tuple(grid), tuple(block)))
        for p, v in zip(spec.params, user):
            if p.count is not None:
                arena(int(v), values[p.name].nbytes)[:] = f.array(p.name).view(np.uint8).reshape(-1)

    side.on_launch(monkeypatch, call)
    return printed


def _loader(tmp_path, driver: str):
    made = []

    def make(text: str, name: str = "k", **kw):
        source = kernel_file_launcher(text, "sm_90", f"{name}.fth", **kw)
        path = tmp_path / f"{name}_launch.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(f"{name}_launch_{len(made)}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        assert mod.use(driver) == driver
        made.append(mod)
        return mod
    return make, made


@pytest.fixture
def load(tmp_path, side):
    """load(kernel file text) -> the launcher module, imported from the file it was written to."""
    make, made = _loader(tmp_path, "cuda-python")
    yield make
    for mod in made:
        mod.close()


@pytest.fixture
def load_on(tmp_path, side):
    """As `load`, the module using `side`'s driver."""
    make, made = _loader(tmp_path, side.name)
    yield make
    for mod in made:
        mod.close()


def all_kinds_kernel() -> str:
    """One array of every element type and i32/i64/f32/f64 scalars: integer arrays get K+L
    added, float arrays become x*A+B."""
    lines = ["\\! kernel kinds"] + [f"\\! param X{t} {t}[N]" for t in TYPES]
    lines += ["\\! param KK i32", "\\! param LL i64", "\\! param AA f32", "\\! param BB f64", "\\! param N i32"]
    lines.append("GLOBAL-ID N < IF")
    for t, (dt, fetch, store) in TYPES.items():
        size = np.dtype(dt).itemsize
        addr = f"GLOBAL-ID {size} * X{t} +"
        if t[0] == "i":
            lines.append(f"  {addr} DUP {fetch} KK + LL + SWAP {store}")
        else:
            lines.append(f"  {addr} DUP {fetch} AA F* BB F+ {store}")
    lines.append("THEN")
    return "\n".join(lines) + "\n"


# ---- the generated module ------------------------------------------------------------------------------

def test_the_module_imports_tileforth_only_for_the_cpu_fallback(load):
    mod = load(SAXPY.read_text(), "saxpy")
    tree = ast.parse(Path(mod.__file__).read_text())
    where = {n.module: f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) for n in ast.walk(f)
             if isinstance(n, ast.ImportFrom) and n.module and "tileforth" in n.module}
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert {n for n in names if "tileforth" in n} == set(where) and set(where.values()) == {"_launch_cpu"}
    assert "saxpy(X, Y, A, N=None, *, grid=None" in mod.__doc__
    assert mod.saxpy.__name__ == "saxpy"


def test_saxpy_round_trip_with_interface_objects(load_on, side, monkeypatch):
    printed = simulate(monkeypatch, side, SAXPY.read_text())
    mod = load_on(SAXPY.read_text(), "saxpy")
    x, y = DeviceArray(side, np.arange(100), np.float32), DeviceArray(side, np.full(100, 10), np.float32)
    side.launches.clear()
    mod.saxpy(x, y, 2.0, block=(32, 1, 1))
    np.testing.assert_array_equal(y.get(), np.arange(100, dtype=np.float32) * 2 + 10)
    np.testing.assert_array_equal(x.get(), np.arange(100, dtype=np.float32))
    (launch,) = side.launches
    assert len(printed) == 1  # the emulator ran it
    assert launch.grid == (4, 1, 1) and launch.block == (32, 1, 1)  # one thread per element by default
    ctx, px, py, a, n = launch.args
    assert (px, py, a, n) == (x.ptr, y.ptr, 2.0, 100) and ctx not in (px, py)
    mod.saxpy(X=x, Y=y, A=-1, N=100, grid=(1, 1, 1), block=128)  # by name, N given
    np.testing.assert_array_equal(y.get(), np.arange(100, dtype=np.float32) + 10)
    assert side.launches[-1].grid == (1, 1, 1) and side.launches[-1].block == (128, 1, 1)


def test_every_parameter_kind_round_trips(load_on, side, monkeypatch):
    text = all_kinds_kernel()
    simulate(monkeypatch, side, text)
    mod = load_on(text, "kinds")
    n = 40
    start = {t: (np.arange(n) % 100 - 50).astype(dt) for t, (dt, _, _) in TYPES.items()}
    arrays = {t: DeviceArray(side, v) for t, v in start.items()}
    arrays["f16"] = DLPackArray(arrays["f16"])  # a DLPack-only object
    arrays["i8"] = start["i8"].copy()  # a numpy array: copied in and back
    side.launches.clear()
    mod.kinds(*arrays.values(), 3, -2**40 + 7, 0.5, 2.25, block=(64, 1, 1))
    (launch,) = side.launches
    assert launch.args[-5:] == (3, -2**40 + 7, 0.5, 2.25, n)
    for t, (dt, _, _) in TYPES.items():
        got = arrays[t] if isinstance(arrays[t], np.ndarray) else \
            (arrays[t].base if isinstance(arrays[t], DLPackArray) else arrays[t]).get()
        if t[0] == "i":
            want = (start[t].astype(np.int64) + 3 - 2**40 + 7).astype(dt)
        else:
            want = (start[t].astype(np.float32) * np.float32(0.5) + np.float32(2.25)).astype(dt)
        np.testing.assert_array_equal(got, want, err_msg=t)


def test_a_numpy_bfloat16_array_is_copied_as_bytes(load_on, side, monkeypatch):
    """numpy arrays go to the device and back as bytes (CuPy has no bfloat16 dtype)."""
    text = "\\! kernel h\n\\! param X bf16[N]\n\\! param N i32\nGLOBAL-ID N < IF  GLOBAL-ID 2 * X + DUP BF@ 2e F* BF!  THEN\n"
    simulate(monkeypatch, side, text)
    mod = load_on(text, "h")
    x = (np.arange(16) - 4).astype(ml_dtypes.bfloat16)
    mod.h(x, block=8)
    np.testing.assert_array_equal(x, ((np.arange(16) - 4) * 2).astype(ml_dtypes.bfloat16))


def test_scalars_are_packed_with_their_declared_widths(load, drv):
    text = ("\\! kernel s\n\\! param P i32[4]\n\\! param A i32\n\\! param B i64\n\\! param C f32\n"
            "\\! param D f64\n\\! param E f16\n\\! param F bf16\nA B + DROP\n")
    mod = load(text, "s")
    p = DeviceArray(drv, np.zeros(4), np.int32)
    mod.s(p, -5, 2**62, 1.5, -0.25, 0.5, 1.0)
    launch = drv.launches[-1]
    f16_half = int(np.float16(0.5).view(np.uint16))  # .b16 parameters: the device reads the bits
    assert launch.args[1:] == (int(p.mem), -5, 2**62, 1.5, -0.25, f16_half, 0x3F80)  # bf16 1.0 as its bits


def test_dtype_and_shape_errors(load, drv):
    mod = load(SAXPY.read_text(), "saxpy")
    x, y = DeviceArray(drv, np.arange(8), np.float32), DeviceArray(drv, np.arange(8), np.float32)
    with pytest.raises(TypeError, match=r"saxpy: X is f32\[N\]: pass an array of float32, not float64; convert"):
        mod.saxpy(DeviceArray(drv, np.arange(8), np.float64), y, 1.0)
    with pytest.raises(ValueError, match=r"saxpy: Y is f32\[N\]: it needs 8 elements \(N = 8, the size of X\), "
                                         "but has 5"):
        mod.saxpy(x, DeviceArray(drv, np.arange(5), np.float32), 1.0)
    with pytest.raises(ValueError, match=r"X is f32\[N\]: it needs 4 elements \(N = 4\), but has 8"):
        mod.saxpy(x, y, 1.0, 4)
    with pytest.raises(ValueError, match="X is not contiguous"):
        mod.saxpy(DeviceArray(drv, np.zeros((2, 4)), np.float32, strides=(4, 8)), y, 1.0)
    with pytest.raises(TypeError, match="A is an f32 scalar: pass a number, not a str"):
        mod.saxpy(x, y, "2")
    with pytest.raises(TypeError, match="N is an i32 scalar: pass an integer, not a float"):
        mod.saxpy(x, y, 1.0, 8.0)
    with pytest.raises(ValueError, match=r"N = 4294967296 does not fit in i32"):
        mod.saxpy(x, y, 1.0, 2**32)
    with pytest.raises(TypeError, match="X is an array parameter, but got a list"):
        mod.saxpy([1, 2], y, 1.0)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'A'"):
        mod.saxpy(x, y)
    fixed = load("\\! kernel f\n\\! param M f32[16]\nM DROP\n", "f")
    with pytest.raises(ValueError, match=r"f: M is f32\[16\]: it needs 16 elements, but has 8"):
        fixed.f(x)
    assert drv.launches == []


DIVIDE = """\\! kernel divide
\\! param X i32[N]
\\! param D i32
\\! param N i32
: ratio  ( n -- q )  D / ;
GLOBAL-ID N < IF  GLOBAL-ID ratio  GLOBAL-ID 4 * X +  I32!  THEN
"""


def test_an_error_record_becomes_a_kernel_error(load_on, side, monkeypatch):
    mod = load_on(DIVIDE, "divide")
    site = next(i for i, s in enumerate(mod.SITES) if s[0].upper() == "RATIO" and s[4][s[3] - 1] == "/")
    seen = []

    def faulting(launch):  # the kernel records a division by zero
        rec = side.view(launch.args[0], (L.CTX_SLOTS + L.THR_SLOTS) * 8).view(np.int64)
        seen.append(rec.copy())
        if len(seen) > 1:
            return  # the second launch records nothing
        rec = np.zeros(L.CTX_SLOTS, np.int64)
        rec[[L.CTX_ERR_CODE, L.CTX_ERR_SITE, L.CTX_ERR_THREAD]] = L.E_DIV0, site, 5
        side.write_current(launch.args[0], rec)  # the launcher's context is current during its launch
    side.on_launch(monkeypatch, faulting)
    x = DeviceArray(side, np.zeros(8), np.int32)
    mod.divide(x, 0)  # queued: the call waits for nothing, so it cannot know yet
    assert side.cu.syncs == []
    with pytest.raises(mod.KernelError) as info:
        mod.check()  # waits for the launch and reads its record
    err = info.value
    word, col = mod.SITES[site][0], mod.SITES[site][3]
    assert str(err) == f"divide: divide.fth:5:{col}: division by zero in {word} (thread 5); check the divisor first"
    assert (err.code, err.thread, err.line, err.column) == (L.E_DIV0, 5, 5, col)
    # the record is zeroed before each launch, and the recursion limit set
    mod.divide(x, 1)
    assert len(seen) == 2 and seen[1][L.CTX_ERR_CODE] == 0 and seen[1][L.CTX_ERR_SITE] == 0
    for rec in seen:
        assert rec[L.CTX_RECURSION_MAX] == mod.RECURSION_MAX and not rec[:L.CTX_RECURSION_MAX].any()


def test_throw_messages_use_the_strings_and_meanings(load, drv):
    mod = load(DIVIDE, "divide")
    err = mod._error([L.E_THROW, -1, 3, -1, -10])
    assert "uncaught exception -10 (thread 3): division by zero" in str(err)


def test_an_unchecked_export_passes_no_context(drv, tmp_path):
    spec = parse_kernel_file(SAXPY.read_text(), "saxpy.fth")
    ptx = kernel_file_ptx(SAXPY.read_text(), "sm_90", unchecked=True)  # its entry has no context parameter
    path = tmp_path / "unchecked.py"
    path.write_text(launcher_source(spec, ptx, context=False))
    s = importlib.util.spec_from_file_location("unchecked_launch", path)
    mod = importlib.util.module_from_spec(s)
    s.loader.exec_module(mod)
    mod.use("cuda-python")
    x, y = DeviceArray(drv, np.arange(4), np.float32), DeviceArray(drv, np.arange(4), np.float32)
    mod.saxpy(x, y, 1.0)
    assert drv.launches[-1].args == (int(x.mem), int(y.mem), 1.0, 4)
    mod.close()


def test_a_cubin_image_is_embedded_as_bytes(tmp_path):
    spec = parse_kernel_file(SAXPY.read_text(), "saxpy.fth")
    text = launcher_source(spec, b"\x7fELF\x00cubin bytes" * 50)
    scope: dict = {"__name__": "cubin_launch"}
    exec(compile(text, "cubin_launch.py", "exec"), scope)
    assert scope["IMAGE"] == b"\x7fELF\x00cubin bytes" * 50 and scope["IMAGE_KIND"] == "cubin"


def test_the_cli_writes_the_module(tmp_path, drv, monkeypatch):
    from tileforth.repl.cli import main
    out = tmp_path / "saxpy_mod.py"
    assert main(["compile", str(SAXPY), "--python", str(out), "--arch", "sm_90"]) == 0
    text = out.read_text()
    assert "def saxpy(X, Y, A, N=None, *, grid=None, block=None, stream=None, device=None):" in text
    assert "tileforth compile " in text and ".entry saxpy(" in text
    assert main(["compile", str(SAXPY), "--python", str(tmp_path / "no" / "x.py")]) == 2
    assert main(["compile", str(SAXPY), "--python", str(out), "--cubin", "--unchecked", "--arch", "sm_90"]) == 0
    scope: dict = {"__name__": "saxpy_cubin"}
    exec(compile(out.read_text(), str(out), "exec"), scope)
    assert scope["IMAGE_KIND"] == "cubin" and scope["IMAGE"][:4] == b"\x7fELF" and scope["CONTEXT"] is False


# ---- f.kernel on the cpu backend ---------------------------------------------------------------------

@pytest.mark.parametrize("ty", list(TYPES))
def test_f_kernel_takes_interface_objects_on_cpu(ty):
    dt, fetch, store = TYPES[ty]
    size = np.dtype(dt).itemsize
    f = Forth(backend="cpu")
    op = "3 + SWAP" if ty[0] == "i" else "2e F* 1e F+"
    f.eval(f": bump ( addr -- )  GLOBAL-ID {size} * + DUP {fetch} {op} {store} ;")
    values = (np.arange(32) - 7).astype(dt)
    arr = HostArray(values.copy())
    f.kernel("bump")(arr)
    want = values.astype(np.int64) + 3 if ty[0] == "i" else values.astype(np.float32) * 2 + 1
    np.testing.assert_array_equal(arr.array, want.astype(dt))


def test_f_kernel_mixes_interface_objects_numpy_and_scalars_on_cpu():
    f = Forth(backend="cpu")
    f.eval(": axpy ( x y n F: a -- )  DROP  GLOBAL-ID 4 * + SWAP GLOBAL-ID 4 * + F@ F* DUP F@ F+ F! ;")
    x, y = HostArray(np.arange(32), np.float32), np.full(32, 1.0, np.float32)
    f.kernel("axpy")(x, y, 32, 3.0)
    np.testing.assert_array_equal(y, np.arange(32, dtype=np.float32) * 3 + 1)
    np.testing.assert_array_equal(x.array, np.arange(32, dtype=np.float32))  # read, and written back unchanged


# ---- docs/kernel-files.md, "Use it from PyTorch/CuPy" ---------------------------------------------------

def test_the_guide_section_runs(tmp_path, drv, monkeypatch):
    """The section's python blocks, in order, in one scope: with the stand-in driver (and a
    stand-in torch over its memory) where there is no GPU, each launch run on the emulator."""
    doc = (ROOT / "docs" / "kernel-files.md").read_text()
    section = doc[doc.index("## Use it from PyTorch/CuPy"):]
    section = section[:section.find("\n## ", 1) + 1] if "\n## " in section[1:] else section
    section = section.split("\n### Every rank of a torchrun job")[0]  # that one runs under torchrun, below
    blocks = re.findall(r"^```python\n(.*?)^```", section, re.M | re.S)
    shell = re.search(r"^    (tileforth compile .*--python .*)$", section, re.M).group(1).split()
    assert blocks and shell[:2] == ["tileforth", "compile"]
    from tileforth.repl.cli import main
    monkeypatch.chdir(tmp_path)
    (tmp_path / "demos").mkdir()
    (tmp_path / "demos" / "saxpy.fth").write_text(SAXPY.read_text())
    assert main(shell[1:] + ["--arch", "sm_90"]) == 0
    simulate(monkeypatch, drv, SAXPY.read_text())
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "torch", _torch_standin(drv))
    scope: dict = {}
    for block in blocks:
        out = []
        monkeypatch.setattr("builtins.print", lambda *a, **k: out.append(" ".join(map(str, a))))
        exec(compile(block, "docs/kernel-files.md", "exec"), scope)
        for line in block.splitlines():  # `print(x)   # value`: it printed that
            m = re.match(r"print\((.*)\)\s+# (.*)$", line)
            if m:
                assert out.pop(0) == m.group(2), line
    scope["saxpy"].close()
    monkeypatch.delitem(sys.modules, "saxpy", raising=False)


def _torch_standin(drv):
    """The few torch calls the guide makes, over stand-in device memory."""
    import types
    torch = types.ModuleType("torch")
    torch.float32, torch.float64 = np.float32, np.float64

    class Tensor(DeviceArray):
        def tolist(self):
            return self.get().tolist()

    def arange(n, dtype=np.float32, device="cuda"):
        return Tensor(drv, np.arange(n), dtype)

    def full(shape, value, dtype=np.float32, device="cuda"):
        return Tensor(drv, np.full(shape, value), dtype)

    torch.Tensor, torch.arange, torch.full = Tensor, arange, full
    return torch


def test_the_struct_formats_match_the_ptx_parameters():
    """Each declared type is packed as wide as the entry's parameter (.u32 for i32, .f64 for f64 ...)."""
    from tileforth.export.launchrt import FORMATS
    text = "\\! kernel w\n" + "".join(f"\\! param S{t} {t}\n" for t in TYPES) + "0 DROP\n"
    ptx = kernel_file_ptx(text, "sm_80")
    params = re.search(r"\.entry w\((.*?)\)", ptx, re.S).group(1)
    widths = [8 * int(n) if n else int(w) for w, n in re.findall(r"\.param (?:\.align \d+ )?\.[a-z](\d+)"
                                                             r"(?: \.ptr)?(?: \.align \d+)? \w+(?:\[(\d+)\])?", params)]
    assert widths == [64] + [struct.calcsize(FORMATS[t]) * 8 for t in TYPES]


def test_the_launchers_messages_are_the_repls_where_they_should_be():
    """launcher.MESSAGES is written by hand from the REPL's (launcherrors.launch_error): the codes
    whose wording does not depend on the session (stack depths, alignment, division, interrupt)
    must say the same, word for word, for the same error record."""
    from tileforth.core.compile import layout as L
    from tileforth.export.launcher import MESSAGES
    from tileforth.core.session.launcherrors import launch_error

    from tileforth.core.compile.machine import DEFAULT
    f = Forth(backend="cpu", machine=DEFAULT)  # the stacks of an exported kernel: the default depths
    same = (L.E_UNDERFLOW, L.E_OVERFLOW, L.E_FUNDERFLOW, L.E_FOVERFLOW, L.E_ALIGN, L.E_DIV0, L.E_ABORT)
    for code in same:
        aux = 0 if code == L.E_DIV0 else 8  # E_DIV0's aux: 0 a zero divisor (the REPL names overflows apart)
        record = (code, -1, 3, 0x1008, aux)  # no site, thread 3, address $1008
        repl = launch_error(f, record).message
        assert MESSAGES[code].format(where="", thr="thread 3", addr=0x1008, aux=aux) == repl, code
    assert set(MESSAGES) >= set(same)


# ---- launches as CuPy's and Triton's: the caller's stream, no synchronization (issue 30, point 1) ------

def _stream(side):
    """A stream of the primary context (where the test's arrays and the launches are)."""
    return side._in_primary(side.cu.cuStreamCreate, 0)


def test_a_launch_waits_for_nothing_and_goes_on_the_given_stream(load, side, monkeypatch):
    simulate(monkeypatch, side, SAXPY.read_text())
    mod = load(SAXPY.read_text(), "saxpy")
    x, y = DeviceArray(side, np.arange(8), np.float32), DeviceArray(side, np.zeros(8), np.float32)
    s = _stream(side)
    side.cu.syncs.clear()
    mod.saxpy(x, y, 2.0, stream=s)
    mod.saxpy(x, y, 1.0, stream=types.SimpleNamespace(cuda_stream=int(s)))  # a torch.cuda.Stream-like object
    # no context synchronization, and the caller's stream never waited for: the second call read the first
    # launch's record (completed) on the module's own stream only
    assert all(kind == "stream" and h != int(s) for kind, h in side.cu.syncs)
    assert [launch.stream for launch in side.launches[-2:]] == [int(s), int(s)]
    mod.check()  # nothing failed
    assert all(kind == "stream" and h != int(s) for kind, h in side.cu.syncs)
    np.testing.assert_array_equal(y.get(), np.arange(8, dtype=np.float32) * 3)
    side._in_primary(side.cu.cuStreamDestroy, s)


def test_the_default_stream_is_torchs_current_stream(load, side, monkeypatch):
    simulate(monkeypatch, side, SAXPY.read_text())
    mod = load(SAXPY.read_text(), "saxpy")
    s = _stream(side)
    torch = types.ModuleType("torch")
    asked = []

    class Stream:
        cuda_stream = int(s)

    def current_stream(device=None):
        asked.append(device)
        return Stream()
    torch.cuda = types.SimpleNamespace(current_stream=current_stream)
    Tensor = type("Tensor", (DeviceArray,), {"__module__": "torch",
                                             "device": types.SimpleNamespace(type="cuda", index=0)})
    monkeypatch.setitem(sys.modules, "torch", torch)
    x, y = Tensor(side, np.arange(4), np.float32), Tensor(side, np.ones(4), np.float32)
    mod.saxpy(x, y, 2.0)
    assert side.launches[-1].stream == int(s) and asked == [0]
    np.testing.assert_array_equal(y.get(), np.arange(4, dtype=np.float32) * 2 + 1)
    mod.check()
    side._in_primary(side.cu.cuStreamDestroy, s)


def test_an_array_made_on_another_stream_is_waited_for_on_the_device(load, side, monkeypatch):
    simulate(monkeypatch, side, SAXPY.read_text())
    mod = load(SAXPY.read_text(), "saxpy")
    producer, mine = _stream(side), _stream(side)
    x = DeviceArray(side, np.arange(4), np.float32, stream=int(producer))  # CAI v3 names its stream
    y = DeviceArray(side, np.zeros(4), np.float32)
    dl = DLPackArray(DeviceArray(side, np.zeros(4), np.float32))
    side.cu.waits.clear()
    mod.saxpy(x, y, 1.0, stream=mine)
    assert [w[0] for w in side.cu.waits] == [int(mine)] and side.cu.syncs == []
    mod.saxpy(x, dl, 1.0, stream=mine)
    assert dl.streams == [int(mine)]  # the DLPack producer was told the consumer's stream
    mod.saxpy(y, dl, 1.0)  # the legacy default stream: DLPack's 1
    assert dl.streams[-1] == 1
    mod.check()
    for s in (producer, mine):
        side._in_primary(side.cu.cuStreamDestroy, s)


def test_an_array_on_another_device_is_refused(load, side, monkeypatch):
    mod = load(SAXPY.read_text(), "saxpy")
    x = DeviceArray(side, np.arange(4), np.float32)
    _, dev1 = side.cu.cuDeviceGet(1)
    _, ctx1 = side.cu.cuDevicePrimaryCtxRetain(dev1)
    side.cu.cuCtxPushCurrent(ctx1)
    _, far = side.cu.cuMemAlloc(16)
    side.cu.cuCtxPopCurrent()
    y = types.SimpleNamespace(__cuda_array_interface__={"data": (int(far), False), "shape": (4,),
                                                        "typestr": "<f4", "strides": None, "version": 3})
    side.launches.clear()
    with pytest.raises(ValueError, match=r"saxpy: the arrays are on different devices: Y \(device 1\), but the "
                                         r"launch is on device 0; move them to one device first"):
        mod.saxpy(x, y, 1.0)
    assert side.launches == []
    side.cu.cuCtxPushCurrent(ctx1)
    side.cu.cuMemFree(far)
    side.cu.cuCtxPopCurrent()
    assert side.cu.cuDevicePrimaryCtxRelease(dev1)[0] == 0


def test_the_files_block_and_grid_are_the_defaults(load, side, monkeypatch):
    text = SAXPY.read_text().replace("\\! kernel saxpy\n", "\\! kernel saxpy\n\\! block 128\n")
    simulate(monkeypatch, side, text)
    mod = load(text, "saxpy")
    x, y = DeviceArray(side, np.arange(300), np.float32), DeviceArray(side, np.zeros(300), np.float32)
    mod.saxpy(x, y, 1.0)
    assert side.launches[-1].block == (128, 1, 1) and side.launches[-1].grid == (3, 1, 1)
    fixed = text.replace("\\! block 128\n", "\\! block 64\n\\! grid 2\n")
    mod2 = load(fixed, "saxpy2")
    mod2.saxpy(x, y, 1.0)
    assert side.launches[-1].block == (64, 1, 1) and side.launches[-1].grid == (2, 1, 1)
    mod.check()
    mod2.check()


def test_an_error_of_a_completed_launch_is_raised_by_the_next_call(load_on, side, monkeypatch):
    mod = load_on(DIVIDE, "divide")
    site = next(i for i, s in enumerate(mod.SITES) if s[0].upper() == "RATIO")

    def faulting(launch):
        if len(side.launches) == 1:
            rec = np.zeros(L.CTX_SLOTS, np.int64)
            rec[[L.CTX_ERR_CODE, L.CTX_ERR_SITE, L.CTX_ERR_THREAD]] = L.E_DIV0, site, 2
            side.write_current(launch.args[0], rec)
    side.on_launch(monkeypatch, faulting)
    side.launches.clear()
    x = DeviceArray(side, np.zeros(8), np.int32)
    mod.divide(x, 0)
    with pytest.raises(mod.KernelError, match=r"division by zero in ratio \(thread 2\)"):
        mod.divide(x, 1)  # the first launch has completed: its error comes first, before this launch
    assert len(side.launches) == 1
    mod.divide(x, 1)
    mod.check()  # reported once


def test_a_numpy_array_makes_the_call_wait_and_report(load_on, side, monkeypatch):
    mod = load_on(DIVIDE, "divide")

    def faulting(launch):
        rec = np.zeros(L.CTX_SLOTS, np.int64)
        rec[[L.CTX_ERR_CODE, L.CTX_ERR_THREAD]] = L.E_DIV0, 1
        side.write_current(launch.args[0], rec)
    side.on_launch(monkeypatch, faulting)
    s = _stream(side)
    with pytest.raises(mod.KernelError, match="division by zero"):
        mod.divide(np.zeros(8, np.int32), 0, stream=s)
    assert ("stream", int(s)) in side.cu.syncs  # its stream, for the copy back; never the whole device
    assert not any(kind == "context" for kind, _ in side.cu.syncs)
    side._in_primary(side.cu.cuStreamDestroy, s)


def test_use_names_the_one_driver(load):
    mod = load(SAXPY.read_text(), "saxpy")
    with pytest.raises(ValueError, match=r"no driver 'pycuda': launchers run on cuda-python"):
        mod.use("pycuda")


# ---- the CPU fallback (issue 30, point 3) ---------------------------------------------------------------

def _written(tmp_path, text: str, name: str):
    source = kernel_file_launcher(text, "sm_90", f"{name}.fth")
    path = tmp_path / f"{name}_cpu.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"{name}_cpu", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_without_a_gpu_the_launcher_runs_the_kernel_on_the_emulator(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "cuda", None)  # no cuda-bindings: no GPU to launch on
    mod = _written(tmp_path, SAXPY.read_text(), "saxpy")
    x, y = np.arange(300, dtype=np.float32), np.full(300, 10, np.float32)
    mod.saxpy(x, y, 0.5)
    np.testing.assert_array_equal(y, np.float32(0.5) * np.arange(300, dtype=np.float32) + 10)
    mod.saxpy(x, y, 2.0, block=64)  # again, in the same emulator session
    want = np.float32(2.5) * np.arange(300, dtype=np.float32) + 10
    np.testing.assert_array_equal(y, want)
    with pytest.raises(ValueError, match=r"saxpy: X is f32\[N\]: it needs 100 elements \(N = 100\), but has 300"):
        mod.saxpy(x, y, 2.0, N=100)  # checked as on the GPU
    with pytest.raises(TypeError, match=r"saxpy: X is f32\[N\]: pass an array of float32, not float64"):
        mod.saxpy(np.zeros(4), y[:4].copy(), 1.0)
    with pytest.raises(TypeError, match="on the CPU, X must be a numpy array"):
        mod.saxpy(HostArray(np.zeros(4), np.float32), y, 1.0)
    mod.close()


def test_device_cpu_runs_on_the_emulator_and_reports_errors_with_their_place(tmp_path, side):
    mod = _written(tmp_path, DIVIDE, "divide")
    mod.use("cuda-python")  # a GPU driver is there: device="cpu" still runs on the emulator
    x = np.zeros(8, np.int32)
    side.launches.clear()
    mod.divide(x, 3, device="cpu")
    np.testing.assert_array_equal(x, np.arange(8, dtype=np.int32) // 3)
    assert side.launches == []
    with pytest.raises(mod.KernelError) as e:
        mod.divide(x, 0, device="cpu")
    assert "division by zero" in str(e.value) and (e.value.file, e.value.line) == ("divide.fth", 5)
    mod.close()


# ---- PyTorch: the kernel as a custom op (issue 30, point 2) ---------------------------------------------

def test_the_torch_op_traces_under_torch_compile_and_runs_on_the_cpu(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setitem(sys.modules, "cuda", None)  # no GPU: the op's CPU tensors go to the emulator
    mod = _written(tmp_path, SAXPY.read_text(), "saxpy")
    op = mod.torch_op("tftest")
    assert str(torch.ops.tftest.saxpy.default._schema) == (
        "tftest::saxpy(Tensor(a!) X, Tensor(b!) Y, float A, int? N=None) -> ()")

    def f(x, y):
        z = y * 2  # torch work around the kernel: one graph, no break
        torch.ops.tftest.saxpy(x, z, 0.5)
        return z + 1

    x, y = torch.arange(64, dtype=torch.float32), torch.full((64,), 3.0)
    compiled = torch.compile(f, fullgraph=True, backend="eager")  # fullgraph: a graph break is an error
    got = compiled(x, y)
    want = (np.full(64, 6, np.float32) + np.float32(0.5) * np.arange(64, dtype=np.float32)) + 1
    np.testing.assert_array_equal(got.numpy(), want)
    # the fake implementation: shapes only, nothing runs
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        fx, fy = torch.empty(8), torch.empty(8)
        op(fx, fy, 1.0)
    assert mod.torch_op("tftest") is op
    mod.close()


def test_the_torchrun_example_runs_on_two_ranks_on_the_cpu(tmp_path):
    """docs/kernel-files.md's torchrun example, as a user runs it: two ranks (gloo) through the CPU
    fallback, the ranks' sums added by all_reduce; the printed total is the comment's, which is
    sum(2 i + 1 for i < 2048) = 4 * 1024**2."""
    pytest.importorskip("torch")
    doc = (ROOT / "docs" / "kernel-files.md").read_text()
    part = doc[doc.index("### Every rank of a torchrun job"):]
    (block,) = re.findall(r"^```python\n(.*?)^```", part, re.M | re.S)[:1]
    want = re.search(r"print\(int\(total\)\)\s+# (\d+)", block).group(1)
    assert int(want) == sum(2 * i + 1 for i in range(2048))
    from tileforth.repl.cli import main
    assert main(["compile", str(SAXPY), "--python", str(tmp_path / "saxpy.py"), "--arch", "sm_90"]) == 0
    (tmp_path / "ddp_saxpy.py").write_text(block)
    env = dict(os.environ, TILEFORTH_SERVER="0", PYTHONPATH=str(ROOT))
    env.pop("CUDA_VISIBLE_DEVICES", None)
    r = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
                        "ddp_saxpy.py"], capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == [want]


def test_a_rank_on_its_own_device_launches_in_that_devices_context(load, side, monkeypatch):
    """The torchrun example's "each rank on its own device" (docs/kernel-files.md), as the launcher sees
    it: arrays made on device 1 launch there -- in device 1's primary context, given device=1 or told by
    the arrays -- and compute what numpy does; the same module then launches on device 0's arrays."""
    simulate(monkeypatch, side, SAXPY.read_text())
    mod = load(SAXPY.read_text(), "saxpy")
    cu = side.cu
    _, dev1 = cu.cuDeviceGet(1)
    _, ctx1 = cu.cuDevicePrimaryCtxRetain(dev1)
    on: list[int] = []
    hooks = list(cu.on_launch)
    monkeypatch.setattr(cu, "on_launch", [lambda launch: on.append(int(cu.cuCtxGetDevice()[1]))] + hooks)

    def array1(values):
        host = np.ascontiguousarray(values, np.float32)
        assert cu.cuCtxPushCurrent(ctx1)[0] == 0
        _, ptr = cu.cuMemAlloc(host.nbytes)
        assert cu.cuMemcpyHtoD(ptr, host.ctypes.data, host.nbytes)[0] == 0
        cu.cuCtxPopCurrent()
        return int(ptr), types.SimpleNamespace(__cuda_array_interface__={
            "data": (int(ptr), False), "shape": host.shape, "typestr": "<f4", "strides": None, "version": 3})

    def read1(ptr, n):
        out = np.empty(n, np.float32)
        assert cu.cuCtxPushCurrent(ctx1)[0] == 0
        assert cu.cuMemcpyDtoH(out.ctypes.data, ptr, out.nbytes)[0] == 0
        cu.cuCtxPopCurrent()
        return out
    (px, x), (py, y) = array1(np.arange(8)), array1(np.ones(8))
    mod.saxpy(x, y, 2.0, device=1)
    mod.saxpy(x, y, 1.0)  # the arrays say where they are
    assert on == [1, 1]
    np.testing.assert_array_equal(read1(py, 8), np.arange(8, dtype=np.float32) * 3 + 1)
    mod.check()
    x0, y0 = DeviceArray(side, np.arange(4), np.float32), DeviceArray(side, np.zeros(4), np.float32)
    mod.saxpy(x0, y0, 2.0)
    assert on[-1] == 0
    np.testing.assert_array_equal(y0.get(), np.arange(4, dtype=np.float32) * 2)
    mod.check()
    assert cu.cuCtxPushCurrent(ctx1)[0] == 0
    for p in (px, py):
        assert cu.cuMemFree(p)[0] == 0
    cu.cuCtxPopCurrent()
    mod.close()
    assert cu.cuDevicePrimaryCtxRelease(dev1)[0] == 0
