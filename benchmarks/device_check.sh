#!/usr/bin/env bash
# tileforth device check: one prepared run on a machine with ONE NVIDIA GPU that reaches NO package index.
#
#   bash benchmarks/device_check.sh           (from the repository root; about 4-8 minutes)
#
# With the device tool: the wheels come along in ./.whl (made here by `bash benchmarks/fetch_wheels.sh`;
# .whl/ is git-ignored, so name it in carry):
#   run(command="bash benchmarks/device_check.sh", carry=[".whl"], timeout_s=560)
# summary.txt, the main logs and logs.tar.gz come back under $OUT.
#
# Steps, each time-limited, each continuing after a failure; the summary has one line per step:
#   1. system: nvidia-smi, driver, toolkit, Python
#   2. install: a venv (--system-site-packages, and the image's own venv appended) and tileforth with its
#      requirements. Offline (./.whl present, or TF_OFFLINE=1): pip --no-index --find-links .whl, xz-packed
#      wheels (.whl/xz) unpacked first; requirements without a wheel anywhere (nvidia-cuda-nvcc...) are
#      left out and tileforth is installed --no-deps. PyCUDA: installed already, or built here from the
#      pycuda-*.tar.gz in .whl (the toolkit's cuda.h, or the headers carried in .whl/cuda); the LAST
#      RESORT is a labelled ctypes shim for the pycuda.driver calls tileforth makes (results say "SHIM").
#      ptxas and libdevice: the nvidia wheels, else the toolkit (/usr/local/cuda), else .whl/cuda.
#   3. cases: REPL lines on the cuda backend against the cpu emulator, one process per case (smoke, tour,
#      GEMM, shared memory, a word naming a SHARED: buffer, bad addresses, abort through the API, loop cost,
#      recursion depth, a lost context, 1024-thread blocks, two sessions, CuPy/torch interop, 1M threads)
#   4. python -m pytest -q -m gpu
#   5. python benchmarks/gpu_check.py (--skip-tests: step 4 ran them; TF_GPU_CHECK_ARGS overrides)
# The kernels are built for the device's own architecture, sm_{major}{minor}.
#
# A dry run without a GPU: TF_STANDIN=tests/standin puts the stand-in pycuda.driver (tests/standin/pycuda)
# on the path instead of installing PyCUDA. Kernels do not run on it, so the GPU-result comparisons FAIL
# there by design; the run is labelled STAND-IN in the summary. (TF_DC_GPU_BACKEND=cpu runs the cases on
# the emulator instead, a dry run of the harness.)
#
# Knobs: TF_BUDGET (seconds for the whole run, default 465), TF_WHEELS (default ./.whl), TF_OFFLINE (1/0,
#        default 1 when the wheels directory exists), TF_PYTHON (default python3), TF_VENV,
#        TF_INSTALL=0 (no venv, no pip: TF_PYTHON as it is; a missing PyCUDA is still built), TF_STANDIN, TF_SHIM=0 (never use the
#        ctypes shim), TF_BUILD_PYCUDA=0, TF_BUILD_TIMEOUT (PyCUDA's build, default 240 s),
#        TF_CASES ("name name ..."), TF_PYTEST_ARGS (added to step 4),
#        TF_GPU_CHECK_ARGS (default "--skip-tests"), TF_LOG_DIR, TF_WORK (the scratch directory).
set -u
START=$(date +%s)
BUDGET=${TF_BUDGET:-465}
RESERVE=8
DEADLINE=$((START + BUDGET))
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(pwd)
[ -f "$ROOT/pyproject.toml" ] || ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
WORK=${TF_WORK:-$(mktemp -d /tmp/tf-devcheck.XXXXXX)}
LOGS=${TF_LOG_DIR:-$WORK/logs}
mkdir -p "$LOGS" "$WORK/shim/pycuda"
: > "$WORK/facts"; : > "$WORK/extra_path"; : > "$WORK/extra_bin"
VENV=${TF_VENV:-$WORK/venv}
PYBASE=${TF_PYTHON:-python3}
export PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 TF_ROOT="$ROOT"
SUMMARY=()

if [ ! -f "$ROOT/pyproject.toml" ] || [ ! -d "$ROOT/tileforth/backends/cuda" ]; then
  echo "run this from the tileforth checkout (pyproject.toml, tileforth/backends/cuda): $ROOT is not one" >&2
  exit 2
fi

STANDIN=""
if [ -n "${TF_STANDIN:-}" ]; then
  case "$TF_STANDIN" in /*) STANDIN=$TF_STANDIN;; *) STANDIN=$ROOT/$TF_STANDIN;; esac
  if [ ! -d "$STANDIN/pycuda" ]; then
    echo "TF_STANDIN=$TF_STANDIN: no pycuda package in $STANDIN" >&2
    exit 2
  fi
  export PYTHONPATH="$STANDIN${PYTHONPATH:+:$PYTHONPATH}"
fi

remaining() { echo $((DEADLINE - $(date +%s))); }
limit_for() {  # the step's limit, cut to what is left of the budget
  local want=$1 left
  left=$(( $(remaining) - RESERVE ))
  [ "$left" -lt "$want" ] && want=$left
  [ "$want" -lt 5 ] && want=0
  echo "$want"
}
add() {  # add STEP RESULT SECONDS DETAIL: one line of the summary (detail cut to 320 characters)
  local d=$4
  [ "${#d}" -gt 320 ] && d="${d:0:317}..."
  SUMMARY+=("$(printf '%-18s %-8s %4s  %s' "$1" "$2" "$3" "$d")")
  printf '  -> %-18s %-8s %4ss  %s\n' "$1" "$2" "$3" "$d"
}
STEP_RC=0; STEP_SECS=0
run_step() {  # run_step NAME WANT_SECONDS CMD... : output to $LOGS/NAME.log
  local name=$1 want=$2 secs t0; shift 2
  secs=$(limit_for "$want")
  if [ "$secs" -le 0 ]; then echo "skipped: no time left in the budget" > "$LOGS/$name.log"; STEP_RC=125; STEP_SECS=0; return; fi
  echo "== $name (limit ${secs}s)"
  t0=$(date +%s)
  timeout -k 10 "$secs" "$@" > "$LOGS/$name.log" 2>&1
  STEP_RC=$?
  STEP_SECS=$(( $(date +%s) - t0 ))
  if [ "$STEP_RC" -eq 124 ] || [ "$STEP_RC" -eq 137 ]; then echo "!! timed out after ${secs}s" >> "$LOGS/$name.log"; fi
}
rc_word() { case "$1" in 0) echo OK;; 124|137) echo TIMEOUT;; 125) echo SKIP;; 134) echo ABORT;; *) echo FAIL;; esac; }

# ---- embedded files ----------------------------------------------------------------------------------
# The ctypes shim for pycuda.driver: the LAST RESORT, used only when PyCUDA can be neither found nor built
# here; every result that went through it is labelled SHIM.
write_shim() {
cat > "$WORK/shim/pycuda/__init__.py" <<'PYEOF'
"""Device-check shim for PyCUDA (see driver.py): NOT PyCUDA."""
VERSION = (0, 0)
VERSION_STATUS = "shim"
VERSION_TEXT = "shim(ctypes)"
PYEOF
cat > "$WORK/shim/pycuda/driver.py" <<'PYEOF'
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
PYEOF
}

# Turns an xz-packed wheel (a wheel's files in a .tar.xz, made by benchmarks/fetch_wheels.sh) back into a
# wheel (a zip; stored, not compressed: it is only read once, by pip, here).
cat > "$WORK/unxz_wheel.py" <<'PYEOF'
import sys, tarfile, zipfile
src, out = sys.argv[1:]
with tarfile.open(src, "r:xz") as t, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
    for m in t:
        if m.isfile():
            info = zipfile.ZipInfo(m.name[2:] if m.name.startswith("./") else m.name)
            info.external_attr = (m.mode & 0xFFFF) << 16
            z.writestr(info, t.extractfile(m).read())
PYEOF

# The requirements to install offline: the project's (and its test extra's) and PyCUDA's, without PyCUDA.
cat > "$WORK/reqs.py" <<'PYEOF'
import re, sys, tomllib
root = sys.argv[1]
p = tomllib.load(open(f"{root}/pyproject.toml", "rb"))
reqs = list(p["project"]["dependencies"]) + list(p["project"].get("optional-dependencies", {}).get("test", []))
reqs += ["pytools>=2011.2", "platformdirs>=2.2.0", "mako"]  # PyCUDA's install_requires
reqs += p.get("build-system", {}).get("requires", []) + ["wheel"]  # to build tileforth and PyCUDA
for r in reqs:
    print(r.replace(" ", ""))
PYEOF

cat > "$WORK/cases.py" <<'PYEOF'
"""tileforth device-check cases: each runs in its own process (a sticky CUDA
error or a hang then costs only that case) and ends with one line
`RESULT {json}`.  Usage: python cases.py list | python cases.py run NAME"""
import json
import os
import re
import sys
import threading
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(os.environ.get("TF_ROOT", ".")).resolve()
sys.path.insert(0, str(ROOT / "tests"))
GPU = os.environ.get("TF_DC_GPU_BACKEND", "cuda")  # "cpu" only for a dry run of this harness
RES = {"status": "INFO", "notes": []}
SESSIONS = []


def note(msg):
    RES["notes"].append(str(msg)[:400])
    print("  " + str(msg)[:2000], flush=True)


def forth(backend, **kw):
    from tileforth.core import Forth
    f = Forth(backend=backend, **kw)
    SESSIONS.append(f)
    return f


def close_all():
    """Each session releases its device memory and its reference to the primary context."""
    while SESSIONS:
        close = getattr(SESSIONS.pop().backend, "close", None)
        if callable(close):
            try:
                close()
            except BaseException as e:  # noqa: BLE001
                note(f"close: {kind(e)}: {e}")


def timed(f, src, **kw):
    t = time.perf_counter()
    out = f.eval(src, **kw)
    return out, time.perf_counter() - t


def kind(exc):
    from tileforth.core import ForthError
    return "ForthError" if isinstance(exc, ForthError) else type(exc).__module__ + "." + type(exc).__name__


def first(e):
    return (str(e).splitlines() or [""])[0][:200]


def alive(f):
    """Is the session still usable after a failure (no sticky CUDA error)?"""
    try:
        return f.eval("2 3 + .") == "5 "
    except BaseException as e:  # noqa: BLE001
        note(f"session dead: {kind(e)}: {first(e)}")
        return False


def expect_forth_error(f, src, match):
    try:
        f.eval(src)
    except BaseException as e:  # noqa: BLE001
        k = kind(e)
        ok = k == "ForthError" and re.search(match, str(e), re.I) is not None
        note(f"{src!r}: {k}: {first(e)[:110]}")
        return ok
    note(f"{src!r}: no error raised")
    return False


def state(f):
    return f.data_stack(lane=None), f.float_stack(lane=None)


def programs():
    import gpu_programs
    return gpu_programs


CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# ---------------------------------------------------------------------------------------------
@case
def smoke():
    """cpu and cuda sessions start; one line; the device's caps; latency of new and cached lines."""
    c = forth("cpu")
    assert c.eval("2 3 + .") == "5 ", "cpu backend broken"
    t = time.perf_counter()
    g = forth(GPU)
    caps = getattr(g.backend, "caps", None)
    note(f"{GPU} session start {time.perf_counter() - t:.2f}s; arch {getattr(g.backend, 'arch', '?')}; "
         f"device {getattr(g.backend, 'device_name', '?')}")
    if caps is not None:
        note(f"caps: block <= {caps.max_block_threads} threads, shared {caps.shared_bytes} B/block, "
             f"recursion {caps.recursion_max}, tiles kept {caps.keeps_tiles}")
    out, dt = timed(g, "2 3 + .")
    _, dt2 = timed(g, "2 3 + .")
    _, dt3 = timed(g, "7 8 * 9 + 3 - DUP * 2/ NEGATE ABS 1+ .")
    comp = g.line_timing.get("compile", 0)
    _, dt4 = timed(g, "0 1000 0 DO I + LOOP .")
    note(f"line latency: first {dt * 1e3:.1f} ms, cached {dt2 * 1e3:.1f} ms, new 10-word line {dt3 * 1e3:.1f} ms "
         f"(compile {comp * 1e3:.1f}), new loop line {dt4 * 1e3:.1f} ms")
    try:
        import pycuda
        import pycuda.driver as cuda
        note(f"pycuda {getattr(pycuda, 'VERSION_TEXT', '?')}; driver {cuda.get_driver_version()}; "
             f"context stack empty between lines: {cuda.Context.get_current() is None}")
    except Exception as e:  # noqa: BLE001
        note(f"pycuda details: {kind(e)}: {first(e)}")
    RES["status"] = "PASS" if out == "5 " else "FAIL"


@case
def tour():
    """demos/tour.fth on both backends; arrays `out` and `C` must agree."""
    src = (ROOT / "demos/tour.fth").read_text()
    res = {}
    for b in ("cpu", GPU):
        f = forth(b)
        try:
            out, dt = timed(f, src, source="tour.fth")
            res[b] = (out, f.array("out"), f.array("C"))
            note(f"{b}: {dt:.2f}s")
        except BaseException as e:  # noqa: BLE001
            note(f"{b}: {kind(e)}: {first(e)}")
            res[b] = None
    if res.get(GPU) is None or res.get("cpu") is None:
        RES["status"] = "FAIL"
        return
    (oc, outc, cc), (og, outg, cg) = res["cpu"], res[GPU]
    same = np.array_equal(outc, outg) and np.array_equal(cc, cg)
    lc, lg = oc.splitlines(), og.splitlines()
    note(f"arrays {'agree' if same else 'DIFFER'}; text: {len(lc)} cpu lines, {len(lg)} gpu lines, "
         f"{sum(a != b for a, b in zip(lc, lg))} differ (the tile views differ by design)")
    RES["status"] = "PASS" if same else "FAIL"


@case
def gemm():
    """demos/gemm.fth (wmma 16x16x16 f16->f32): C and C2 equal on both backends and to numpy."""
    src = (ROOT / "demos/gemm.fth").read_text()
    arrs = {}
    for b in ("cpu", GPU):
        f = forth(b)
        try:
            out, dt = timed(f, src, source="gemm.fth")
            arrs[b] = [f.array(n) for n in ("A", "B", "C", "C2")]
            note(f"{b}: {dt:.2f}s; prints {out.strip()[:120]!r}")
        except BaseException as e:  # noqa: BLE001
            note(f"{b}: {kind(e)}: {first(e)}")
            RES["status"] = "FAIL"
            return
    a, bm, c, c2 = arrs[GPU]
    ref = a.astype(np.float64) @ bm.astype(np.float64)
    ok = all(np.array_equal(x, y) for x, y in zip(arrs["cpu"], arrs[GPU])) and np.array_equal(c, ref) \
        and np.array_equal(c2, ref)
    note(f"max |C-ref| {np.abs(c - ref).max():g}, max |C2-ref| {np.abs(c2 - ref).max():g}")
    RES["status"] = "PASS" if ok else "FAIL"


def _agree(name, checked=True):
    """A program of tests/gpu_programs.py on the GPU (checked or not) against the emulator."""
    gp = programs()
    ref = forth("cpu")
    want_out = ref.eval(gp.PROGRAMS[name])
    want = state(ref)
    f = forth(GPU, checked=checked)
    try:
        out = f.eval(gp.PROGRAMS[name])
        got = state(f)
        same = got[0] == want[0] and out == want_out
        note(f"{name}, checked={checked}: {'agrees' if same else 'DIFFERS'} "
             f"(thread 0 {got[0][0] if got[0] else '-'}, last thread {got[0][-1] if got[0] else '-'})")
        return same
    except BaseException as e:  # noqa: BLE001
        note(f"{name}, checked={checked}: {kind(e)}: {first(e)}")
        return False


@case
def shared():
    """Shared memory in a line over 256 threads (reversal, and one thread's write read by all): checked and
    unchecked."""
    ok = True
    for checked in (True, False):
        ok &= _agree("shared", checked)
        ok &= _agree("shared_cell", checked)
    RES["status"] = "PASS" if ok else "FAIL"


@case
def shared_word():
    """A colon word too big to inline (a loop) that names a SHARED: buffer, called from a line."""
    ok = _agree("shared_word")
    ok &= _agree("shared_word", checked=False)
    RES["status"] = "PASS" if ok else "FAIL"


@case
def bad_address():
    """Out-of-range, one-past-the-end, outside the shared window, misaligned scalar and tile accesses:
    ForthError, and the session survives."""
    f = forth(GPU)
    ok = True
    ok &= expect_forth_error(f, "0 @", "bad address") and alive(f)
    f.eval("16 I64 ARRAY xs  16 16 F16 MATRIX A")
    ok &= expect_forth_error(f, "16 CELLS xs + @ .", "bad address") and alive(f)
    ok &= expect_forth_error(f, "xs 1+ @ .", "misaligned") and alive(f)
    ok &= expect_forth_error(f, "A 2 + 16 TLOAD-A TDROP", "aligned") and alive(f)
    ok &= expect_forth_error(f, "TID-X 16 < IF 99 xs ! ELSE 0 @ DROP THEN", "bad address") and alive(f)
    g = forth(GPU)
    g.eval("256 1 1 THREADS 2048 SHARED: buf")
    ok &= expect_forth_error(g, "2048 buf + @", "bad address") and alive(g)
    RES["status"] = "PASS" if ok else "FAIL"


@case
def abort():
    """Ctrl-C through the API: backend.abort() from another thread stops `BEGIN AGAIN` within 100 ms."""
    f = forth(GPU)
    f.step_budget = 1 << 40
    f.eval("2 3 + DROP")
    fired = {}

    def fire():
        fired["t"] = time.perf_counter()
        f.backend.abort()
    timer = threading.Timer(1.0, fire)
    timer.start()
    t0 = time.perf_counter()
    ok = expect_forth_error(f, "BEGIN AGAIN", "interrupted")
    t1 = time.perf_counter()
    timer.join()
    lag = t1 - fired["t"]
    if lag < 0:
        note(f"the line ended {-lag:.2f}s BEFORE abort() was called (it ran {t1 - t0:.2f}s)")
        ok = False
    else:
        note(f"stopped {lag * 1e3:.1f} ms after abort() (line ran {t1 - t0:.2f}s)")
        ok &= lag < 0.1
    ok &= alive(f)
    RES["status"] = "PASS" if ok else "FAIL"


@case
def loop_cost():
    """Per-iteration cost of a REPL loop (a step counter in a register; the abort flag every 4096 iterations)."""
    per = {}
    for b in ("cpu", GPU):
        f = forth(b)
        f.eval("1 1 1 GRID 32 1 1 THREADS")
        n = 20000 if b == "cpu" else 200000
        f.eval("0 10 0 DO 1+ LOOP DROP")  # compile once
        _, dt = timed(f, f"0 {n} 0 DO 1+ LOOP DROP")
        per[b] = dt / n * 1e9
    note(f"one warp DO LOOP: {per[GPU]:.0f} ns/iteration on {GPU} (cpu emulator {per['cpu']:.0f})")
    f = forth(GPU)
    f.step_budget = 1 << 20
    t = time.perf_counter()
    try:
        f.eval("BEGIN AGAIN")
        what = "no error"
    except BaseException as e:  # noqa: BLE001
        what = "step-budget error" if "iterations" in str(e) else f"{kind(e)}: {str(e)[:80]}"
    dt = time.perf_counter() - t
    note(f"BEGIN AGAIN, budget 2^20: {what} after {dt:.2f}s ({dt / (1 << 20) * 1e9:.0f} ns/iter; "
         f"the default 2^26 budget would take {dt * 64:.0f}s)")
    g = forth(GPU)
    g.eval("132 1 1 GRID 1024 1 1 THREADS" if GPU != "cpu" else "2 1 1 GRID 64 1 1 THREADS")
    g.eval("0 10 0 DO 1+ LOOP DROP")
    _, dt = timed(g, "0 2000 0 DO 1+ LOOP DROP")
    nt = g.backend.nthreads
    note(f"{nt} threads x 2000 iterations: {dt * 1e3:.1f} ms ({nt * 2000 / dt / 1e9:.3f} G thread-iterations/s)")
    _, dt = timed(g, "1 DROP")
    note(f"a trivial line at {nt} threads: {dt * 1e3:.1f} ms (state snapshot + copies)")
    RES["status"] = "INFO"


@case
def recursion():
    """Recursion up to the backend's limit (caps.recursion_max) works; deeper is a ForthError naming
    recursion, never a dead context."""
    f = forth(GPU)
    lim = f.backend.caps.recursion_max
    note(f"recursion_max {lim}")
    f.eval("1 1 1 GRID 32 1 1 THREADS : down ( n -- n ) DUP IF 1- RECURSE THEN ;")
    ok = True
    for d in (10, 100, lim // 2, lim - 2, lim + 1, 100000):
        try:
            f.eval(f"{d} down DROP")
            note(f"depth {d}: ok")
            ok &= d < lim
        except BaseException as e:  # noqa: BLE001
            k = kind(e)
            note(f"depth {d}: {k}: {first(e)[:160]}")
            ok &= k == "ForthError" and d > lim and "recursion" in str(e).lower()
            if k != "ForthError":
                note(f"session usable afterwards: {alive(f)}")
                break
    ok &= alive(f)
    RES["status"] = "PASS" if ok else "FAIL"


@case
def sticky():
    """Unchecked mode: a wild load kills the CUDA context; the line is a ForthError saying the context was
    lost, the next line works, and arrays keep what the host last saw."""
    f = forth(GPU, checked=False)
    f.eval("4 I64 ARRAY keep  42 keep !  keep @ DROP")
    f.array("keep")
    ok = expect_forth_error(f, "-8 @ .", r"context.*lost|lost.*context")  # (0 @ is UB to LLVM: removed)
    ok &= alive(f)
    try:
        note(f"array after the reset: keep @ . -> {f.eval('keep @ .')!r}")
    except BaseException as e:  # noqa: BLE001
        note(f"array after the reset: {kind(e)}: {first(e)}")
    g = forth(GPU)
    note(f"a new session afterwards: {'usable' if alive(g) else 'DEAD'}")
    RES["status"] = "PASS" if ok else "FAIL"


@case
def block1024():
    """1024-thread blocks: the shared-memory program of tests/gpu_programs.py, and gemm2 (many registers):
    a result or a clear error, never a crash."""
    ok = _agree("block1024")
    f = forth(GPU)
    f.eval((ROOT / "demos/gemm.fth").read_text(), source="gemm.fth")
    try:
        f.eval("NN 32 / MM 32 / 1 GRID 1024 1 1 THREADS gemm2")
        note("gemm2 at 1024 threads: ran")
    except BaseException as e:  # noqa: BLE001
        note(f"gemm2 at 1024 threads: {kind(e)}: {first(e)}")
        ok &= kind(e) == "ForthError"
    ok &= alive(f)
    RES["status"] = "PASS" if ok else "FAIL"


@case
def two_sessions():
    """Two sessions used alternately (tests/gpu_programs.py SCRIPTS): same outputs, stacks and arrays as
    two emulator sessions; the thread's context stack is empty between lines."""
    gp = programs()
    want = gp.run_script("cpu", "two_sessions")
    try:
        got = gp.run_script(GPU, "two_sessions")
    except BaseException as e:  # noqa: BLE001
        note(f"{kind(e)}: {first(e)}")
        RES["status"] = "FAIL"
        return
    same = got[0] == want[0] and [s[0] for s in got[1]] == [s[0] for s in want[1]] \
        and all(np.array_equal(got[2][k], want[2][k]) for k in want[2])
    note(f"outputs {got[0]} {'agree' if same else 'DIFFER from ' + str(want[0])}")
    try:
        import pycuda.driver as cuda
        note(f"context stack empty afterwards: {cuda.Context.get_current() is None}")
    except Exception as e:  # noqa: BLE001
        note(f"context stack: {kind(e)}")
    RES["status"] = "PASS" if same else "FAIL"


@case
def interop():
    """f.kernel(word) on a CuPy / PyTorch array (allocated in the primary context)."""
    f = forth(GPU)
    f.eval(": ids ( addr -- ) GLOBAL-ID CELLS + GLOBAL-ID SWAP ! ;")
    k = f.kernel("ids")
    ok, tried = True, 0
    for lib in ("cupy", "torch"):
        try:
            m = __import__(lib)
            x = m.zeros(32, dtype=m.int64) if lib == "cupy" else m.zeros(32, dtype=m.int64, device="cuda")
        except Exception as e:  # noqa: BLE001
            note(f"{lib}: not usable ({type(e).__name__})")
            continue
        tried += 1
        try:
            k(x)
            got = (x.get() if lib == "cupy" else x.cpu().numpy()).tolist()
            good = got == list(range(32))
            note(f"{lib}: {'correct' if good else 'WRONG ' + str(got[:8])}")
            ok &= good
        except BaseException as e:  # noqa: BLE001
            note(f"{lib}: {kind(e)}: {first(e)}")
            ok = False
            note(f"session usable afterwards: {alive(f)}")
            break
    RES["status"] = ("PASS" if ok else "FAIL") if tried else "SKIP"


@case
def big_launch():
    """1M threads (the backend's limit): a line's latency is dominated by state copies."""
    f = forth(GPU)
    _, dt = timed(f, "1024 1 1 GRID 1024 1 1 THREADS")
    note(f"reshape to 1M threads: {dt:.2f}s")
    _, dt = timed(f, "GLOBAL-ID DROP")
    note(f"GLOBAL-ID DROP at 1M threads: {dt:.2f}s")
    _, dt = timed(f, "GLOBAL-ID DROP")
    note(f"again (cached kernel): {dt:.2f}s")
    RES["status"] = "INFO"


def main():
    if sys.argv[1:] == ["list"]:
        print(" ".join(CASES))
        return 0
    name = sys.argv[2]
    RES["case"] = name
    print(f"-- case {name}: {CASES[name].__doc__}", flush=True)
    t = time.perf_counter()
    try:
        CASES[name]()
    except BaseException as e:  # noqa: BLE001
        RES["status"] = "ERROR"
        note(f"{kind(e)}: {first(e)}")
        traceback.print_exc()
    close_all()
    RES["secs"] = round(time.perf_counter() - t, 2)
    print("RESULT " + json.dumps(RES), flush=True)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
PYEOF

# ---- 1. system ----------------------------------------------------------------------------------
sysinfo() {
  echo "date $(date -u +%FT%TZ)  host $(hostname)  kernel $(uname -r)  cpus $(nproc)"
  echo "checkout $ROOT  commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,memory.used,clocks.sm,clocks.max.sm,compute_mode --format=csv
  else
    echo "nvidia-smi: not found"
  fi
  for t in nvcc ptxas; do command -v $t >/dev/null && echo "$t: $($t --version | tail -1)" || echo "$t: not on PATH"; done
  ls -d /usr/local/cuda*/bin/ptxas /usr/local/cuda*/include/cuda.h /usr/local/cuda*/nvvm/libdevice 2>/dev/null
  "$PYBASE" -c 'import sys; print("python", sys.version.split()[0], sys.executable)'
  "$PYBASE" -m pip --version 2>&1 | head -1
  for m in numpy llvmlite pycuda cupy torch; do
    "$PYBASE" -c "import $m; print('$m', getattr($m, '__version__', getattr($m, 'VERSION_TEXT', '?')))" 2>/dev/null || echo "$m: not importable"
  done
  echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-<unset>}"
}
export -f sysinfo
export ROOT PYBASE WORK VENV LOGS STANDIN
run_step sysinfo 30 bash -c sysinfo
cat "$LOGS/sysinfo.log"
GPU_LINE=$(nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader 2>/dev/null | head -1)
if [ -n "$GPU_LINE" ]; then add "nvidia-smi" OK "$STEP_SECS" "$GPU_LINE"
elif [ -n "$STANDIN" ]; then add "nvidia-smi" SKIP "$STEP_SECS" "no nvidia-smi / no GPU (STAND-IN run)"
else add "nvidia-smi" FAIL "$STEP_SECS" "no nvidia-smi / no GPU"
fi

# ---- 2. environment ----------------------------------------------------------------------------
wheels_dir() {
  local d
  for d in "${TF_WHEELS:-}" "$ROOT/.whl" "$SCRIPT_DIR/wheels"; do
    [ -n "$d" ] && [ -d "$d" ] && { (cd "$d" && pwd); return; }
  done
}
WHEELS=$(wheels_dir)
OFFLINE=${TF_OFFLINE:-$([ -n "$WHEELS" ] && echo 1 || echo 0)}
export WHEELS OFFLINE SCRIPT_DIR

install_env() {
  set -x
  local PY SP tag PIPV
  local -a PIP OPTS REQS
  if [ "${TF_INSTALL:-1}" = 0 ]; then
    PY=$(command -v "$PYBASE")
    echo "INSTALL=none(TF_INSTALL=0)" >> "$WORK/facts"
  else
    rm -rf "$VENV"
    if ! "$PYBASE" -m venv --system-site-packages "$VENV" && ! "$PYBASE" -m venv --system-site-packages --without-pip "$VENV"; then
      echo "### no venv module: LAST RESORT, installing into $PYBASE's own environment"
      mkdir -p "$VENV/bin" && ln -sf "$(command -v "$PYBASE")" "$VENV/bin/python" || return 10
    fi
    PY=$VENV/bin/python
    SP=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    # the image's python3 may itself be a venv (/opt/torch/.venv), whose packages a nested venv does not see
    "$PYBASE" -c 'import site; print("\n".join(site.getsitepackages()))' > "$SP/zz_tf_parent_site.pth"
    if "$PY" -m pip --version >/dev/null 2>&1; then PIP=("$PY" -m pip); else PIP=("$PYBASE" -m pip --python "$PY"); fi
    OPTS=(--retries 0 --timeout 20)
    if [ -n "$WHEELS" ]; then
      OPTS+=(--find-links "$WHEELS")
      tag=$("$PY" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
      mkdir -p "$WORK/wheels"
      for x in "$WHEELS"/xz/*.whl.tar.xz; do  # xz-packed wheels of this Python (fetch_wheels.sh)
        [ -e "$x" ] || continue
        case "$(basename "$x")" in *-"$tag"-*) "$PY" "$WORK/unxz_wheel.py" "$x" "$WORK/wheels/$(basename "$x" .tar.xz)";; esac
      done
      OPTS+=(--find-links "$WORK/wheels")
    fi
    [ "$OFFLINE" = 1 ] && OPTS+=(--no-index)
    if [ "$OFFLINE" != 1 ] && timeout 220 "${PIP[@]}" install "${OPTS[@]}" -e "$ROOT[cuda,test]"; then
      echo "INSTALL=full(online)" >> "$WORK/facts"
    else
      # the requirements one by one where they can be had; then tileforth itself without dependencies
      mapfile -t REQS < <("$PY" "$WORK/reqs.py" "$ROOT")
      if ! timeout 200 "${PIP[@]}" install "${OPTS[@]}" "${REQS[@]}"; then
        for r in "${REQS[@]}"; do
          timeout 60 "${PIP[@]}" install "${OPTS[@]}" "$r" || echo "MISSING=$r" >> "$WORK/facts"
        done
      fi
      if timeout 120 "${PIP[@]}" install "${OPTS[@]}" --no-deps -e "$ROOT" \
         || timeout 120 "${PIP[@]}" install "${OPTS[@]}" --no-deps --no-build-isolation -e "$ROOT"; then
        echo "INSTALL=offline" >> "$WORK/facts"
      else  # no usable setuptools: a package directory that points at the checkout
        mkdir -p "$WORK/pkg/tileforth"
        for d in core backends repl; do ln -sfn "$ROOT/$d" "$WORK/pkg/tileforth/$d"; done
        echo "$WORK/pkg" >> "$WORK/extra_path"
        echo "INSTALL=linked" >> "$WORK/facts"
      fi
    fi
  fi
  echo "$PY" > "$WORK/python"
  [ -s "$WORK/extra_path" ] && export PYTHONPATH="$(paste -sd: "$WORK/extra_path")${PYTHONPATH:+:$PYTHONPATH}"

  # ---- PyCUDA: the stand-in, installed already, built from the sdist here, or the shim -------------
  if [ -n "$STANDIN" ]; then
    echo "PYCUDA=standin" >> "$WORK/facts"
  elif "$PY" -c 'import pycuda.driver' 2>/dev/null; then
    echo "PYCUDA=real" >> "$WORK/facts"
  else
    local sdist="" src=$WORK/pycuda-src nvcc cuda_root inc="" libdir=$WORK/cudalib real d stub_flags=""
    [ -n "$WHEELS" ] && sdist=$(ls "$WHEELS"/pycuda-*.tar.gz 2>/dev/null | tail -1)
    if [ -n "$sdist" ] && [ "${TF_BUILD_PYCUDA:-1}" != 0 ]; then
      echo "### building PyCUDA from $sdist"
      rm -rf "$src"; mkdir -p "$src" "$libdir"
      tar xzf "$sdist" -C "$src" --strip-components=1
      nvcc=$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")
      cuda_root=${CUDA_HOME:-$(dirname "$(dirname "$nvcc")")}
      [ -f "$cuda_root/include/cuda.h" ] || cuda_root=/usr/local/cuda
      [ -f "$cuda_root/include/cuda.h" ] && inc=$cuda_root/include
      # the headers carried in .whl/cuda (cuda.h, cudaProfiler.h of the driver's CUDA): where the toolkit
      # has none, and for what it lacks
      for x in "$WHEELS"/cuda/cuda-*-headers.tar.xz; do
        [ -e "$x" ] || continue
        mkdir -p "$WORK/cudabits" && tar xJf "$x" -C "$WORK/cudabits"
        inc=${inc:+$inc,}$WORK/cudabits/include
      done
      if [ -z "$inc" ]; then  # the nvidia-cuda-runtime wheel's headers, if installed
        inc=$("$PY" -c 'import glob, sys; print(",".join(sorted({p.rsplit("/", 1)[0] for d in sys.path for p in glob.glob(d + "/nvidia/*/include/cuda.h")})))')
      fi
      if [ -e "$cuda_root/lib64/stubs/libcuda.so" ]; then libdir=$cuda_root/lib64/stubs
      else
        local cands=(/usr/local/nvidia/lib64/libcuda.so.1 /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1)
        for d in ${LD_LIBRARY_PATH//:/ }; do cands+=("$d/libcuda.so.1"); done
        cands+=($(ldconfig -p 2>/dev/null | awk '$1=="libcuda.so.1"{print $NF}'))
        for real in "${cands[@]}"; do
          [ -e "$real" ] && { ln -sf "$real" "$libdir/libcuda.so"; break; }
        done
        if [ ! -e "$libdir/libcuda.so" ]; then  # no driver library found: link against a stub, as CUDA's own
          echo 'void tf_libcuda_stub(void) {}' > "$libdir/stub.c"
          cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$libdir/libcuda.so" "$libdir/stub.c"
          stub_flags=--ldflags=-L$libdir,-Xlinker,--no-as-needed,-lcuda  # keep libcuda.so.1 as a dependency
        fi
      fi
      echo "### cuda root $cuda_root, include dirs $inc, libcuda in $libdir"
      # a plain `setup.py build` in parallel (no pip, no wheel package needed), then the build directory on the
      # path. setuptools is imported first: it provides `distutils`, which Python 3.12 no longer has and
      # PyCUDA's aksetup_helper imports
      local SETUP_PY='import sys, runpy, setuptools; sys.argv[0] = "setup.py"; runpy.run_path("setup.py", run_name="__main__")'
      if (cd "$src" && "$PY" configure.py --cuda-root="$cuda_root" ${inc:+--cuda-inc-dir="$inc"} \
            --cudadrv-lib-dir="$libdir" --no-cuda-enable-curand $stub_flags \
          && timeout "${TF_BUILD_TIMEOUT:-240}" "$PY" -c "$SETUP_PY" build -j "$(nproc)"); then
        d=$(ls -d "$src"/build/lib*/pycuda 2>/dev/null | head -1)
        if [ -n "$d" ]; then
          dirname "$d" >> "$WORK/extra_path"
          echo "PYCUDA_BUILT=$(basename "$sdist")" >> "$WORK/facts"
          export PYTHONPATH="$(dirname "$d")${PYTHONPATH:+:$PYTHONPATH}"
        fi
      fi
    fi
    if "$PY" -c 'import pycuda.driver'; then
      echo "PYCUDA=real" >> "$WORK/facts"
    elif [ "${TF_SHIM:-1}" != 0 ] && PYTHONPATH="$WORK/shim${PYTHONPATH:+:$PYTHONPATH}" "$PY" -c 'import pycuda.driver'; then
      echo "$WORK/shim" >> "$WORK/extra_path"
      echo "PYCUDA=shim" >> "$WORK/facts"
    else
      echo "PYCUDA=none" >> "$WORK/facts"
    fi
  fi

  # ---- ptxas and libdevice: the nvidia wheels, else the toolkit, else what .whl/cuda carries ---------
  local where
  where=$("$PY" -c 'from tileforth.backends.cuda import ptx; print(ptx.ptxas_path() or "")' 2>/dev/null)
  if [ -z "$where" ]; then
    if [ -x /usr/local/cuda/bin/ptxas ]; then
      echo /usr/local/cuda/bin >> "$WORK/extra_bin"; where=/usr/local/cuda/bin/ptxas
    elif [ -n "$WHEELS" ] && [ -f "$WHEELS/cuda/ptxas.xz" ]; then
      mkdir -p "$WORK/bin" && xz -dc "$WHEELS/cuda/ptxas.xz" > "$WORK/bin/ptxas" && chmod +x "$WORK/bin/ptxas"
      echo "$WORK/bin" >> "$WORK/extra_bin"; where=$WORK/bin/ptxas
    fi
  fi
  echo "PTXAS=${where:-none(tests that need ptxas are skipped)}" >> "$WORK/facts"
  where=$("$PY" -c 'from tileforth.backends.cuda import ptx; print(ptx.libdevice_path() or "")' 2>/dev/null)
  if [ -z "$where" ] && [ -f "$WORK/cudabits/nvvm/libdevice/libdevice.10.bc" -o -n "$WHEELS" ]; then
    for x in "$WHEELS"/cuda/cuda-*-headers.tar.xz; do
      [ -e "$x" ] || continue
      [ -d "$WORK/cudabits" ] || { mkdir -p "$WORK/cudabits" && tar xJf "$x" -C "$WORK/cudabits"; }
    done
    if [ -f "$WORK/cudabits/nvvm/libdevice/libdevice.10.bc" ]; then
      # where tileforth looks (nvidia/cu13/nvvm/libdevice, as the nvidia-nvvm wheel lays it out)
      mkdir -p "$WORK/nvpkg/nvidia/cu13/nvvm/libdevice"
      cp "$WORK/cudabits/nvvm/libdevice/libdevice.10.bc" "$WORK/nvpkg/nvidia/cu13/nvvm/libdevice/"
      echo "$WORK/nvpkg" >> "$WORK/extra_path"
      where="$WORK/nvpkg/nvidia/cu13/nvvm/libdevice/libdevice.10.bc (carried)"
    fi
  fi
  echo "LIBDEVICE=${where:-none(FEXP FLN FSIN FCOS fail on the GPU)}" >> "$WORK/facts"
}
export -f install_env wheels_dir

write_shim  # defined above: the ctypes shim, used only if PyCUDA cannot be installed
run_step install 300 bash -c install_env
INSTALL_RC=$STEP_RC; INSTALL_SECS=$STEP_SECS
PY=$(cat "$WORK/python" 2>/dev/null || echo "$PYBASE")
[ -x "$PY" ] || PY=$(command -v "$PYBASE")
EXTRA_PATH=$(grep -v '^$' "$WORK/extra_path" | paste -sd:)
[ -n "$EXTRA_PATH" ] && export PYTHONPATH="$EXTRA_PATH${PYTHONPATH:+:$PYTHONPATH}"
EXTRA_BIN=$(grep -v '^$' "$WORK/extra_bin" | paste -sd:)
[ -n "$EXTRA_BIN" ] && export PATH="$PATH:$EXTRA_BIN"
FACTS=$(tr '\n' ' ' < "$WORK/facts" 2>/dev/null)
cat > "$WORK/versions.py" <<'EOF'
import importlib, sys
def v(m):
    try:
        mod = importlib.import_module(m)
        return str(getattr(mod, "__version__", getattr(mod, "VERSION_TEXT", "?")))
    except Exception as e:  # noqa: BLE001
        return "MISSING(" + type(e).__name__ + ")"
out = ["python " + sys.version.split()[0]]
for m in ["numpy", "llvmlite", "ml_dtypes", "rich", "prompt_toolkit", "pycuda", "pytest", "hypothesis", "pexpect"]:
    out.append(m + " " + v(m))
try:
    import llvmlite.binding as lb
    out.append("LLVM " + ".".join(map(str, lb.llvm_version_info)))
except Exception as e:  # noqa: BLE001
    out.append("LLVM ? " + repr(e))
try:
    import tileforth.core
    import tileforth.backends.cuda.ptx as p
    out.append("tileforth " + str(tileforth.core.__file__))
    out.append("ptxas " + str(p.ptxas_path()) + " libdevice " + str(p.libdevice_path()))
    from tileforth.core import Forth
    out.append("cpu smoke " + repr(Forth().eval("2 3 + .")))
except Exception as e:  # noqa: BLE001
    out.append("tileforth FAILED " + repr(e))
print("\n".join(out))
EOF
VERS=$(cd "$ROOT" && timeout 60 "$PY" "$WORK/versions.py" 2>&1)
echo "$VERS" >> "$LOGS/install.log"
echo "$VERS"
short_vers=$(echo "$VERS" | grep -E '^(pycuda|llvmlite|LLVM|numpy|python) ' | tr '\n' ';')
inst_status=$(rc_word "$INSTALL_RC")
echo "$FACTS" | grep -qE "PYCUDA=(real|standin)" || inst_status=DEGRADED
echo "$VERS" | grep -q "tileforth FAILED" && inst_status=FAIL
add "install" "$inst_status" "$INSTALL_SECS" "$FACTS| $short_vers"
TAG=""
if echo "$FACTS" | grep -q "PYCUDA=shim"; then
  echo "!! PyCUDA could not be installed: GPU steps run through the ctypes SHIM (not PyCUDA)."
  TAG=" [SHIM]"
elif [ -n "$STANDIN" ]; then
  echo "!! STAND-IN run: pycuda.driver is the stand-in in $STANDIN; kernels do not run, so GPU results FAIL."
  TAG=" [STAND-IN]"
fi

# ---- 3. REPL lines on the GPU against the emulator (one process per case) -------------------------
cat > "$WORK/fmt_case.py" <<'EOF'
import json, sys
line = [l for l in open(sys.argv[1], errors="replace") if l.startswith("RESULT ")]
if not line:
    print("NORESULT\t")
    sys.exit()
r = json.loads(line[-1][7:])
print(r["status"] + "\t" + " | ".join(r["notes"])[:600])
EOF
ALL_CASES=$(cd "$ROOT" && "$PY" "$WORK/cases.py" list 2>/dev/null)
CASES=${TF_CASES:-$ALL_CASES}
CASES_END=$(( $(date +%s) + 200 ))
[ "$CASES_END" -gt $((DEADLINE - 130)) ] && CASES_END=$((DEADLINE - 130))  # leave time for steps 4 and 5
for c in $CASES; do
  want=45
  case "$c" in big_launch|interop|loop_cost|tour|gemm) want=60;; esac
  left=$(( CASES_END - $(date +%s) ))
  [ "$left" -lt "$want" ] && want=$left
  if [ "$want" -lt 10 ]; then add "case $c" SKIP 0 "no time left"; continue; fi
  run_step "case-$c" "$want" bash -c "cd '$ROOT' && exec '$PY' '$WORK/cases.py' run $c"
  IFS=$'\t' read -r st notes < <("$PY" "$WORK/fmt_case.py" "$LOGS/case-$c.log")
  [ "$st" = NORESULT ] && st=$(rc_word "$STEP_RC") && notes="no RESULT line (rc $STEP_RC): $(grep -v '^ ' "$LOGS/case-$c.log" | tail -2 | tr '\n' ' ' | cut -c1-300)"
  exit_note=""
  [ "$STEP_RC" -eq 134 ] && exit_note=" [process aborted at exit: SIGABRT]"
  add "case $c" "$st" "$STEP_SECS" "${TAG:+${TAG# } }${notes}${exit_note}"
done

# ---- 4. the GPU tests -------------------------------------------------------------------------------
TOPT=()
"$PY" -c 'import pytest_timeout' 2>/dev/null && TOPT=(--timeout 90 --timeout-method thread)
want=$(( $(remaining) - RESERVE - 55 )); [ "$want" -gt 170 ] && want=170  # leave gpu_check ~55s
run_step pytest-gpu "$want" bash -c "cd '$ROOT' && exec '$PY' -m pytest -q -m gpu --continue-on-collection-errors -p no:cacheprovider -rfE --junitxml='$LOGS/pytest-gpu.xml' ${TOPT[*]} ${TF_PYTEST_ARGS:-}"
pt_line=$(grep -E '[0-9]+ (passed|failed|error|errors|deselected|skipped)|no tests ran' "$LOGS/pytest-gpu.log" | tail -1 | sed 's/=//g; s/^ *//')
pt_fail=$(grep -E '^(FAILED|ERROR) ' "$LOGS/pytest-gpu.log" | sed -E 's/^(FAILED|ERROR) tests\/[a-z_]+\.py::/\1 /; s/ - .*//; s/test_program_agrees_with_the_emulator/program/; s/test_demo_agrees_with_the_emulator/demo/; s/test_error_is_a_forth_error_on_both_backends/error/' | tr '\n' ' ' | cut -c1-400)
pt_status=$(rc_word "$STEP_RC")
grep -qE ' failed| error' <<<"$pt_line" && pt_status=FAIL
grep -q ' passed' <<<"$pt_line" || { grep -q 'skipped' <<<"$pt_line" && pt_status=SKIP; }
[ "$STEP_RC" -eq 134 ] && pt_line="$pt_line; process aborted at exit (SIGABRT)"
add "pytest -m gpu" "$pt_status" "$STEP_SECS" "${TAG:+${TAG# } }${pt_line:-no summary line} ${pt_fail}"

# ---- 5. benchmarks/gpu_check.py -------------------------------------------------------------------
run_step gpu-check 120 bash -c "cd '$ROOT' && exec '$PY' benchmarks/gpu_check.py ${TF_GPU_CHECK_ARGS:---skip-tests}"
gc=$(grep -E 'tensor-core GEMM|ptxas:|tileforth:|torch.matmul|ratio|no GPU timing|Error' "$LOGS/gpu-check.log" | sed 's/^ *//' | tr '\n' ';' | cut -c1-500)
gc_status=$(rc_word "$STEP_RC")
grep -q 'bound: False' "$LOGS/gpu-check.log" && gc_status=FAIL  # the GEMM result is wrong
add "gpu_check" "$gc_status" "$STEP_SECS" "${TAG:+${TAG# } }${gc:-see gpu-check.log}"

# ---- summary --------------------------------------------------------------------------------------
ELAPSED=$(( $(date +%s) - START ))
{
  echo "tileforth device check  $(date -u +%FT%TZ)  commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')  elapsed ${ELAPSED}s of ${BUDGET}s"
  [ -n "$STANDIN" ] && echo "STAND-IN run: pycuda.driver is $STANDIN/pycuda (kernels do not run: GPU results FAIL by design)"
  echo "GPU: ${GPU_LINE:-none}   PyCUDA: $(grep -o 'PYCUDA=[a-z]*' "$WORK/facts" 2>/dev/null | cut -d= -f2)${TAG}"
  printf '%-18s %-8s %4s  %s\n' step result secs detail
  printf '%s\n' "${SUMMARY[@]}"
  echo "logs: $LOGS"
} > "$WORK/summary.txt"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp "$WORK/summary.txt" "$OUT/summary.txt"
  for f in install pytest-gpu gpu-check sysinfo; do [ -f "$LOGS/$f.log" ] && cp "$LOGS/$f.log" "$OUT/$f.log"; done
  cat "$LOGS"/case-*.log > "$OUT/cases.log" 2>/dev/null
  tar czf "$OUT/logs.tar.gz" -C "$(dirname "$LOGS")" "$(basename "$LOGS")" 2>/dev/null
fi
echo
echo "================================ SUMMARY ================================"
cat "$WORK/summary.txt"
