"""A stand-in for `pycuda.driver` that tests the HOST side of a CUDA program.

Kernels do NOT run here. Device memory is a flat numpy arena, so copies,
memsets and allocations behave as on a GPU, but a launch only checks its
configuration and records it (`launches`); whatever a kernel would have
written is never written. Device code is tested elsewhere: by ptxas on this
machine (this module also assembles every PTX module it loads with ptxas, as
the driver's JIT would) and by tests/test_gpu.py on a real GPU.

The API is PyCUDA's (src/cpp/cuda.hpp, src/wrapper/wrap_cudadrv.cpp,
pycuda/driver.py) for what tileforth uses, and the CUDA driver's rules are
enforced so that tests catch misuse:

* A stack of current contexts per thread. `Device.make_context` creates a
  context and pushes it; `Device.retain_primary_context` returns the device's
  primary context without pushing it (a reference count; the context is reset
  -- destroyed with all its memory -- when the last reference is released by
  `detach`). `Context.pop`, `synchronize`, `set_limit`, `get_limit` are static
  and act on the CURRENT context, as in PyCUDA.
* Every call that needs a context raises LogicError "... failed: invalid
  device context" when none is current, or when it uses memory or a function
  of another context.
* At exit, a non-empty context stack prints PyCUDA's "PyCUDA ERROR: The
  context stack was not empty upon module cleanup." and aborts the process
  (os.abort), as PyCUDA's context_stack destructor does.
* Sticky errors: `inject(call, code)` makes the next `call` fail with that
  CUDA error; `fault(code)` makes the next launch fault asynchronously (the
  launch returns, the next call reports it). After a sticky error (STICKY:
  700, 702, 709, 710, 714-719, 721, ECC 214, NVLink 220, 911) every call on
  that context raises the same error until the context is destroyed (for a
  primary context: every reference released). FAULT_CLASSES lists every
  error the driver reports for a launch or the synchronize after it.
  Exception classes follow PyCUDA's translate_cuda_error: 701, 702, 703, 719
  are LaunchError, 2 MemoryError, 100 209 214 301 600 RuntimeError, 999
  Error, the rest (700 too) LogicError;
  the message is "<cuFunction> failed: <cuGetErrorString text>".
* Launch limits: grid x <= 2^31-1, y, z <= 65535; block x, y <= 1024,
  z <= 64, x*y*z <= 1024 (else "invalid argument"), and at most the
  function's MAX_THREADS_PER_BLOCK -- computed from ptxas's register count
  (and .maxntid) as the driver would -- else LaunchError "too many resources
  requested for launch". Dynamic shared memory over 48 KiB needs
  `set_attribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, n)` first.
* `module_from_buffer(ptx, options, message_handler)`: the PTX is assembled
  with ptxas for the device's sm_XY (a rejected module fails as the JIT
  does); with `(jit_option(12) /* CU_JIT_LOG_VERBOSE */, 1)` in the options,
  message_handler receives ptxas -v's text as the info log ("N bytes stack
  frame" per function), as the driver's JIT gives it. PyCUDA's jit_option
  enum has no LOG_VERBOSE name; neither has this one.

* Several devices (`configure(count=2)`): each its own primary context, all
  alike (CONFIG's name and compute capability). A context touches only its
  own memory -- copies, memsets and a kernel's pointer arguments -- and that
  of the contexts it enabled peer access to (`Context.enable_peer_access`,
  static: the current context gains access to the peer's memory; "peer
  access is already enabled" the second time); `Device.can_access_peer`
  says False for the pairs `configure(no_peer={(0, 1), (1, 0)})` names.
  `memcpy_peer(dest, src, size, dest_context, src_context)` copies between
  two contexts' memory without peer access (`stats["peer_copies"]`).

Test hooks (not PyCUDA): configure(), inject(), fault(), launches, stats,
context_stack(), allocations().
"""
from __future__ import annotations

import atexit
import builtins
import functools
import itertools
import os
import re
import struct
import subprocess
import sys
import tempfile
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# ---- configuration and test hooks ------------------------------------------------------------------

_cc = os.environ.get("PYCUDA_STANDIN_CC", "9.0").split(".")
CONFIG = {
    "count": 1,
    "compute_capability": (int(_cc[0]), int(_cc[1])),
    "name": os.environ.get("PYCUDA_STANDIN_NAME", "stand-in H200"),
    "memory": 1 << 30,  # bytes of device memory (the arena)
    "total_memory": 143_771_336_704,  # what total_memory() reports (an H200's 141 GB)
    "multiprocessors": 132,
    "attributes": {},  # device_attribute overrides, by name
    "registers": None,  # registers per thread of every loaded function (None: what ptxas says)
    "no_peer": set(),  # (device, device) pairs without peer access (cuDeviceCanAccessPeer says 0)
}
launches: list["Launch"] = []
stats = {"contexts_created": 0, "primary_retains": 0, "primary_releases": 0, "primary_resets": 0,
         "primary_hard_resets": 0,
         "modules_loaded": 0, "peer_copies": 0, "ptx_jitted": 0, "cubins_loaded": 0}
_injected: dict[str, list[int]] = {}
on_launch = None  # a test's stand-in for what a kernel does: called with each Launch (see device_view)
_faults: list[int] = []


def configure(**kw) -> None:
    """Change CONFIG (compute_capability, name, memory, total_memory, multiprocessors, attributes,
    registers, count)."""
    for k, v in kw.items():
        if k not in CONFIG:
            raise builtins.KeyError(k)
        CONFIG[k] = v


def inject(call: str, code: int) -> None:
    """The next `call` (launch, synchronize, memcpy_htod, memcpy_dtoh, memset_d8, mem_alloc,
    module_from_buffer, set_limit, retain -- retain_primary_context --, primary_ctx_reset) fails with
    CUDA error `code`; a sticky code kills the context."""
    _injected.setdefault(call, []).append(code)


def fault(code: int = 700) -> None:
    """The next launch faults on the device: it returns, and the context is dead from then on
    (a fault on the device is always sticky: FAULT_CLASSES)."""
    if code not in STICKY:
        raise builtins.ValueError(f"a kernel's fault is sticky; CUDA error {code} is not: inject('launch', {code})")
    _faults.append(code)


@dataclass
class Launch:
    function: str
    grid: tuple
    block: tuple
    args: tuple
    shared_size: int
    stack_size: int  # the context's STACK_SIZE limit at the launch
    context: int  # the context's handle


# ---- errors (PyCUDA's classes and messages) ------------------------------------------------------------

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


_TEXT = {1: "invalid argument", 2: "out of memory", 3: "initialization error", 4: "driver shutting down",
         46: "CUDA-capable device(s) is/are busy or unavailable",
         100: "no CUDA-capable device is detected", 101: "invalid device ordinal", 200: "device kernel image is invalid",
         201: "invalid device context", 209: "no kernel image is available for execution on the device",
         214: "uncorrectable ECC error encountered", 218: "a PTX JIT compilation failed",
         220: "uncorrectable NVLink error detected during the execution",
         217: "peer access is not supported between these two devices",
         400: "invalid resource handle", 500: "named symbol not found",
         700: "an illegal memory access was encountered", 701: "too many resources requested for launch",
         704: "peer access is already enabled",
         702: "the launch timed out and was terminated", 709: "context is destroyed",
         710: "device-side assert triggered", 714: "hardware stack error",
         715: "an illegal instruction was encountered", 716: "misaligned address",
         717: "operation not supported on global/shared address space", 718: "invalid program counter",
         719: "unspecified launch failure", 720: "too many blocks in cooperative launch",
         721: "tensor memory not completely freed", 800: "operation not permitted", 801: "operation not supported",
         909: "the wait operation has timed out", 911: "an error occurred on an external device",
         999: "unknown error"}
# the errors after which the context is unusable: every later call on it reports the same error until
# it is destroyed (cuda.h: "the process is left in an inconsistent state"; for ECC and NVLink errors the
# context is corrupted too)
STICKY = frozenset({214, 220, 700, 702, 709, 710, 714, 715, 716, 717, 718, 719, 721, 911})
# Every error the driver can report for a launch or at the synchronize after it (cuda.h's CUresult), by
# when it comes: "fault" -- the kernel faulted on the device, so it is asynchronous (the launch returns,
# the next call reports it) and sticky; "launch" -- cuLaunchKernel refuses, synchronously, and the
# context lives on (unless the code is sticky). Tests feed each one through fault() or inject().
FAULT_CLASSES = {
    700: "fault", 702: "fault", 710: "fault", 714: "fault", 715: "fault", 716: "fault", 717: "fault",
    718: "fault", 719: "fault", 214: "fault", 220: "fault", 721: "fault", 911: "fault",
    1: "launch", 2: "launch", 4: "launch", 46: "launch", 201: "launch", 400: "launch", 701: "launch",
    709: "launch", 720: "launch", 800: "launch", 801: "launch", 909: "launch", 999: "launch",
}


def _error(routine: str, code: int, msg: str | None = None) -> Error:
    text = f"{routine} failed: {_TEXT.get(code, f'error {code}')}" + (f" - {msg}" if msg else "")
    if code in (701, 702, 703, 719):
        return LaunchError(text)
    if code == 2:
        return MemoryError(text)
    if code in (100, 209, 214, 301, 600):  # PyCUDA's translate_cuda_error: ECC_UNCORRECTABLE is a RuntimeError
        return RuntimeError(text)
    return Error(text) if code == 999 else LogicError(text)


# ---- enums: int subclasses, so `jit_option(12)` works as with Boost.Python's enums --------------------

class _Enum(int):
    _names: dict[int, str] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self._names.get(int(self), int(self))}"


def _enum(name: str, values: dict[str, int]) -> type:
    cls = type(name, (_Enum,), {"_names": {v: k for k, v in values.items()}})
    for k, v in values.items():
        setattr(cls, k, cls(v))
    return cls


device_attribute = _enum("device_attribute", {
    "MAX_THREADS_PER_BLOCK": 1, "MAX_BLOCK_DIM_X": 2, "MAX_BLOCK_DIM_Y": 3, "MAX_BLOCK_DIM_Z": 4,
    "MAX_GRID_DIM_X": 5, "MAX_GRID_DIM_Y": 6, "MAX_GRID_DIM_Z": 7, "MAX_SHARED_MEMORY_PER_BLOCK": 8,
    "TOTAL_CONSTANT_MEMORY": 9, "WARP_SIZE": 10, "MAX_REGISTERS_PER_BLOCK": 12, "CLOCK_RATE": 13,
    "MULTIPROCESSOR_COUNT": 16, "CAN_MAP_HOST_MEMORY": 19, "MAX_THREADS_PER_MULTIPROCESSOR": 39,
    "UNIFIED_ADDRESSING": 41, "COMPUTE_CAPABILITY_MAJOR": 75, "COMPUTE_CAPABILITY_MINOR": 76,
    "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 81, "MAX_REGISTERS_PER_MULTIPROCESSOR": 82,
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 97})
function_attribute = _enum("function_attribute", {
    "MAX_THREADS_PER_BLOCK": 0, "SHARED_SIZE_BYTES": 1, "CONST_SIZE_BYTES": 2, "LOCAL_SIZE_BYTES": 3,
    "NUM_REGS": 4, "PTX_VERSION": 5, "BINARY_VERSION": 6, "CACHE_MODE_CA": 7,
    "MAX_DYNAMIC_SHARED_SIZE_BYTES": 8, "PREFERRED_SHARED_MEMORY_CARVEOUT": 9})
jit_option = _enum("jit_option", {
    "MAX_REGISTERS": 0, "THREADS_PER_BLOCK": 1, "WALL_TIME": 2, "INFO_LOG_BUFFER": 3,
    "INFO_LOG_BUFFER_SIZE_BYTES": 4, "ERROR_LOG_BUFFER": 5, "ERROR_LOG_BUFFER_SIZE_BYTES": 6,
    "OPTIMIZATION_LEVEL": 7, "TARGET_FROM_CUCONTEXT": 8, "TARGET": 9, "FALLBACK_STRATEGY": 10})
limit = _enum("limit", {"STACK_SIZE": 0, "PRINTF_FIFO_SIZE": 1, "MALLOC_HEAP_SIZE": 2})
CU_JIT_LOG_VERBOSE = 12  # the driver's value (cuda.h); PyCUDA has no name for it


class host_alloc_flags:  # noqa: N801 - PyCUDA's name
    PORTABLE, DEVICEMAP, WRITECOMBINED = 1, 2, 4


def _attributes() -> dict[str, int]:
    major, minor = CONFIG["compute_capability"]
    attrs = {"MAX_THREADS_PER_BLOCK": 1024, "MAX_BLOCK_DIM_X": 1024, "MAX_BLOCK_DIM_Y": 1024,
             "MAX_BLOCK_DIM_Z": 64, "MAX_GRID_DIM_X": 2**31 - 1, "MAX_GRID_DIM_Y": 65535,
             "MAX_GRID_DIM_Z": 65535, "MAX_SHARED_MEMORY_PER_BLOCK": 49152, "TOTAL_CONSTANT_MEMORY": 65536,
             "WARP_SIZE": 32, "MAX_REGISTERS_PER_BLOCK": 65536, "CLOCK_RATE": 1_980_000,
             "MULTIPROCESSOR_COUNT": CONFIG["multiprocessors"], "CAN_MAP_HOST_MEMORY": 1,
             "MAX_THREADS_PER_MULTIPROCESSOR": {(7, 5): 1024, (8, 6): 1536, (8, 9): 1536, (12, 0): 1536,
                                                (12, 1): 1536}.get((major, minor), 2048),
             "UNIFIED_ADDRESSING": 1, "COMPUTE_CAPABILITY_MAJOR": major, "COMPUTE_CAPABILITY_MINOR": minor,
             "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 233472 if major >= 9 else 167936,
             "MAX_REGISTERS_PER_MULTIPROCESSOR": 65536,
             "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 232448 if major >= 9 else 101376 if (major, minor) != (8, 0)
             else 166912}
    attrs.update(CONFIG["attributes"])
    return attrs


# ---- contexts -----------------------------------------------------------------------------------------

_handles = itertools.count(0x5000)


@dataclass(eq=False)
class _Ctx:
    """A driver context (CUcontext)."""

    device: int
    primary: bool
    handle: int = field(default_factory=lambda: next(_handles))
    destroyed: bool = False
    sticky: int = 0  # the sticky error that killed it (0: alive)
    limits: dict = field(default_factory=lambda: {0: 1024, 1: 1 << 20, 2: 8 << 20})
    peers: set = field(default_factory=set)  # the contexts whose memory this one may touch (enable_peer_access)


_tls = threading.local()
_primary: dict[int, _Ctx] = {}
_primary_refs: dict[int, int] = {}
_initialized = False


def _stack() -> list["Context"]:
    if not hasattr(_tls, "stack"):
        _tls.stack = []
    return _tls.stack


def context_stack() -> list["Context"]:
    """Test hook: a copy of this thread's context stack (bottom first)."""
    return list(_stack())


def _current(routine: str) -> _Ctx:
    """The current context for a call that needs one; raises as the driver would."""
    st = _stack()
    while st and not st[-1]._valid:  # PyCUDA drops detached contexts from the top
        st.pop()
    if not st or st[-1]._ctx.destroyed:
        raise _error(routine, 201)
    ctx = st[-1]._ctx
    if ctx.sticky:
        raise _error(routine, ctx.sticky)
    return ctx


def _maybe_fail(call: str, routine: str, ctx: _Ctx) -> None:
    codes = _injected.get(call)
    if codes:
        code = codes.pop(0)
        if code in STICKY:
            ctx.sticky = code
        raise _error(routine, code)


def _destroy(ctx: _Ctx) -> None:
    ctx.destroyed = True
    for a in [a for a in _arena.live.values() if a.ctx is ctx]:
        _arena.release(a)
    for h in list(_host_allocs):
        if h.ctx is ctx:
            h._valid = False
            _host_allocs.discard(h)


class Context:
    """PyCUDA's Context: a reference to a driver context (a wrapper)."""

    def __init__(self, ctx: _Ctx) -> None:
        self._ctx, self._valid, self._thread = ctx, True, threading.get_ident()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Context) and other._ctx is self._ctx

    def __hash__(self) -> int:
        return hash(self._ctx.handle)

    @property
    def handle(self) -> int:
        return self._ctx.handle

    def push(self) -> None:
        if not self._valid or self._ctx.destroyed:
            raise _error("cuCtxPushCurrent", 201)
        _stack().append(self)

    @staticmethod
    def pop() -> None:
        st = _stack()
        if not st:
            raise _error("context::pop", 201, "cannot pop non-current context")
        st.pop()

    @staticmethod
    def get_current() -> "Context | None":
        st = _stack()
        while st and not st[-1]._valid:
            st.pop()
        return st[-1] if st else None

    @staticmethod
    def get_device() -> "Device":
        return Device(_current("cuCtxGetDevice").device)

    def detach(self) -> None:
        if not self._valid:
            raise _error("context::detach", 201, "cannot detach from invalid context")
        self._valid = False
        st = _stack()
        if st and st[-1] is self:
            st.pop()
        ctx = self._ctx
        if ctx.primary:
            stats["primary_releases"] += 1
            _primary_refs[ctx.device] -= 1
            if _primary_refs[ctx.device] == 0:  # the last reference: the primary context is reset
                stats["primary_resets"] += 1
                del _primary[ctx.device]
                _destroy(ctx)
        else:
            _destroy(ctx)

    @staticmethod
    def enable_peer_access(peer: "Context", flags: int = 0) -> None:
        """cuCtxEnablePeerAccess: the current context may touch `peer`'s memory from now on (its kernels and
        copies); refused between contexts of one device or devices that cannot reach each other."""
        ctx = _current("cuCtxEnablePeerAccess")
        other = peer._ctx
        if flags or other.destroyed or other.device == ctx.device:
            raise _error("cuCtxEnablePeerAccess", 1 if flags else 201)
        if (ctx.device, other.device) in CONFIG["no_peer"]:
            raise _error("cuCtxEnablePeerAccess", 217)
        if other.handle in ctx.peers:
            raise _error("cuCtxEnablePeerAccess", 704)
        ctx.peers.add(other.handle)

    @staticmethod
    def synchronize() -> None:
        ctx = _current("cuCtxSynchronize")
        _maybe_fail("synchronize", "cuCtxSynchronize", ctx)

    @staticmethod
    def set_limit(which: int, value: int) -> None:
        ctx = _current("cuCtxSetLimit")
        _maybe_fail("set_limit", "cuCtxSetLimit", ctx)
        if not isinstance(which, limit) or value < 0:
            raise _error("cuCtxSetLimit", 1)
        if which == limit.STACK_SIZE:  # the driver reserves the stack of every resident thread
            attrs = _attributes()
            reserve = value * attrs["MULTIPROCESSOR_COUNT"] * attrs["MAX_THREADS_PER_MULTIPROCESSOR"]
            if reserve > CONFIG["total_memory"] - _arena.used():
                raise _error("cuCtxSetLimit", 2)
        ctx.limits[int(which)] = int(value)

    @staticmethod
    def get_limit(which: int) -> int:
        ctx = _current("cuCtxGetLimit")
        if not isinstance(which, limit):
            raise _error("cuCtxGetLimit", 1)
        return ctx.limits[int(which)]


class Device:
    def __init__(self, ordinal: int) -> None:
        if not _initialized:
            raise _error("cuDeviceGet", 3)
        if not 0 <= ordinal < CONFIG["count"]:
            raise _error("cuDeviceGet", 101)
        self.ordinal = ordinal

    @staticmethod
    def count() -> int:
        if not _initialized:
            raise _error("cuDeviceGetCount", 3)
        return CONFIG["count"]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.ordinal == self.ordinal

    def __hash__(self) -> int:
        return self.ordinal

    def name(self) -> str:
        return CONFIG["name"]

    def compute_capability(self) -> tuple[int, int]:
        return tuple(CONFIG["compute_capability"])

    def total_memory(self) -> int:
        return CONFIG["total_memory"]

    def can_access_peer(self, other: "Device") -> bool:
        """cuDeviceCanAccessPeer: False for the device itself and for the pairs CONFIG["no_peer"] names."""
        return other.ordinal != self.ordinal and (self.ordinal, other.ordinal) not in CONFIG["no_peer"]

    def pci_bus_id(self) -> str:
        return f"0000:{self.ordinal + 0x18:02x}:00.0"

    def get_attribute(self, attr: int) -> int:
        if not isinstance(attr, device_attribute):
            raise TypeError("get_attribute needs a device_attribute")
        return _attributes()[device_attribute._names[int(attr)]]

    def get_attributes(self) -> dict:
        return {getattr(device_attribute, k): v for k, v in _attributes().items()}

    def __getattr__(self, name: str) -> int:  # dev.warp_size, as PyCUDA's device___getattr__
        if name.upper() in device_attribute._names.values():
            return self.get_attribute(getattr(device_attribute, name.upper()))
        raise AttributeError(name)

    def make_context(self, flags: int = 0) -> Context:
        stats["contexts_created"] += 1
        ctx = Context(_Ctx(self.ordinal, primary=False))
        _stack().append(ctx)
        return ctx

    def retain_primary_context(self) -> Context:
        codes = _injected.get("retain")
        if codes:  # the driver refuses (a device that needs a reset after an ECC error, a driver going away)
            raise _error("cuDevicePrimaryCtxRetain", codes.pop(0))
        ctx = _primary.get(self.ordinal)
        if ctx is not None and ctx.sticky:  # as the driver: a lost primary context is not handed out again
            raise _error("cuDevicePrimaryCtxRetain", ctx.sticky)
        if ctx is None:
            stats["contexts_created"] += 1
            ctx = _primary[self.ordinal] = _Ctx(self.ordinal, primary=True)
            _primary_refs[self.ordinal] = 0
        _primary_refs[self.ordinal] += 1
        stats["primary_retains"] += 1
        return Context(ctx)


def primary_ctx_reset(ordinal: int) -> bool:
    """cuDevicePrimaryCtxReset, which PyCUDA does not wrap (tileforth calls libcuda through
    ctypes; here, this): the primary context and its memory are destroyed for every holder;
    their references stay counted and the next retain gets a fresh context."""
    codes = _injected.get("primary_ctx_reset")
    if codes:  # the reset fails (CUDA error codes.pop(0)): ctypes' caller sees only that it did not return 0
        codes.pop(0)
        return False
    ctx = _primary.get(ordinal)
    stats["primary_hard_resets"] += 1
    if ctx is not None:
        _destroy(ctx)
        refs = _primary_refs[ordinal]
        fresh = _primary[ordinal] = _Ctx(ordinal, primary=True)
        _primary_refs[ordinal] = refs
        del fresh
    return True


def init(flags: int = 0) -> None:
    global _initialized
    _initialized = True


def get_version() -> tuple[int, int, int]:
    return (13, 0, 0)


def get_driver_version() -> int:
    return 13000


def primary_refs(ordinal: int = 0) -> int:
    """Test hook: references to the device's primary context (0: none retained)."""
    return _primary_refs.get(ordinal, 0) if ordinal in _primary else 0


# ---- memory -------------------------------------------------------------------------------------------

ALIGN = 512
BASE = 0x7F00_0000_0000


class _Arena:
    """The device's memory (one flat numpy array, allocated first-fit, so a fresh
    context that allocates the same sizes in the same order gets the same addresses)."""

    def __init__(self) -> None:
        self.mem: np.ndarray | None = None
        self.live: dict[int, "DeviceAllocation"] = {}

    def used(self) -> int:
        return sum(a._size for a in self.live.values())

    def allocate(self, a: "DeviceAllocation") -> int:
        if self.mem is None:
            self.mem = np.zeros(CONFIG["memory"], np.uint8)  # calloc: pages appear when touched
        size = -(-a._size // ALIGN) * ALIGN
        addr = BASE
        for start in sorted(self.live):
            if start - addr >= size:
                break
            addr = max(addr, start + -(-self.live[start]._size // ALIGN) * ALIGN)
        if addr + size > BASE + self.mem.size:
            raise _error("cuMemAlloc", 2)
        self.live[addr] = a
        self.mem[addr - BASE:addr - BASE + a._size] = 0xCD  # fresh memory is not zeroed
        return addr

    def release(self, a: "DeviceAllocation") -> None:
        self.live.pop(a._addr, None)

    def view(self, routine: str, ctx: _Ctx, addr: int, nbytes: int) -> np.ndarray:
        """Bytes [addr, addr+nbytes) of one live allocation of `ctx`."""
        for start, a in self.live.items():
            if start <= addr and addr + nbytes <= start + a._size:
                if a.ctx is not ctx and a.ctx.handle not in ctx.peers:
                    raise _error(routine, 201)
                return self.mem[addr - BASE:addr - BASE + nbytes]
        raise _error(routine, 1)


_arena = _Arena()


def device_view(addr: int, nbytes: int) -> np.ndarray:
    """Test hook: device memory [addr, addr+nbytes) as a writable byte array (what a kernel would touch)."""
    for start, a in _arena.live.items():
        if start <= addr and addr + nbytes <= start + a._size:
            return _arena.mem[addr - BASE:addr - BASE + nbytes]
    raise _error("device_view", 1)


def allocations() -> list[tuple[int, int, int]]:
    """Test hook: (address, bytes, context handle) of every live allocation."""
    return sorted((addr, a._size, a.ctx.handle) for addr, a in _arena.live.items())


class DeviceAllocation:
    def __init__(self, nbytes: int, ctx: _Ctx, owner: Context) -> None:
        self._size, self.ctx, self._owner, self._valid = nbytes, ctx, owner, True
        self._addr = _arena.allocate(self)

    def __int__(self) -> int:
        return self._addr

    __index__ = __int__

    def __repr__(self) -> str:
        return f"<DeviceAllocation 0x{self._addr:x} ({self._size} bytes)>"

    def free(self) -> None:
        if not self._valid:
            raise _error("device_allocation::free", 400)
        self._valid = False
        _cleanup(self, lambda: _arena.release(self), "cuMemFree", "device_allocation")

    def __del__(self) -> None:
        try:
            if self._valid:
                self.free()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def _cleanup(obj, release, routine: str, kind: str) -> None:
    """PyCUDA's clean-up: activate the owner's context (silently nothing when it is dead),
    report a failure as a warning on stderr."""
    owner = obj._owner
    if not owner._valid or obj.ctx.destroyed:
        return  # "cannot activate dead context": silently cleaned up with the context
    cur = Context.get_current()
    if cur is None or cur._ctx is not obj.ctx:
        if owner._thread != threading.get_ident():
            warnings.warn(f"{kind} in out-of-thread context could not be cleaned up", UserWarning, stacklevel=3)
            return
    if obj.ctx.sticky:
        print("PyCUDA WARNING: a clean-up operation failed (dead context maybe?)\n"
              f"{_error(routine, obj.ctx.sticky)}", file=sys.stderr)
        return
    release()


def mem_alloc(nbytes: int) -> DeviceAllocation:
    ctx = _current("cuMemAlloc")
    _maybe_fail("mem_alloc", "cuMemAlloc", ctx)
    if nbytes <= 0:
        raise _error("cuMemAlloc", 1)
    return DeviceAllocation(int(nbytes), ctx, Context.get_current())


def mem_get_info() -> tuple[int, int]:
    _current("cuMemGetInfo")
    return CONFIG["total_memory"] - _arena.used(), CONFIG["total_memory"]


def memset_d8(dest, data: int, count: int) -> None:
    ctx = _current("cuMemsetD8")
    _maybe_fail("memset_d8", "cuMemsetD8", ctx)
    _arena.view("cuMemsetD8", ctx, int(dest), int(count))[:] = data & 0xFF


def _bytes_of(buf, writable: bool) -> np.ndarray:
    view = memoryview(buf)
    if not view.contiguous or (writable and view.readonly):
        raise TypeError("a contiguous" + (" writable" if writable else "") + " buffer is needed")
    return np.frombuffer(view.cast("B"), np.uint8) if not writable else np.asarray(view.cast("B"))


def memcpy_htod(dest, src) -> None:
    ctx = _current("cuMemcpyHtoD")
    _maybe_fail("memcpy_htod", "cuMemcpyHtoD", ctx)
    raw = _bytes_of(src, writable=False)
    _arena.view("cuMemcpyHtoD", ctx, int(dest), raw.size)[:] = raw


def memcpy_dtoh(dest, src) -> None:
    ctx = _current("cuMemcpyDtoH")
    _maybe_fail("memcpy_dtoh", "cuMemcpyDtoH", ctx)
    out = _bytes_of(dest, writable=True)
    out[:] = _arena.view("cuMemcpyDtoH", ctx, int(src), out.size)


def memcpy_dtod(dest, src, size: int) -> None:
    ctx = _current("cuMemcpyDtoD")
    _maybe_fail("memcpy_dtod", "cuMemcpyDtoD", ctx)
    data = _arena.view("cuMemcpyDtoD", ctx, int(src), int(size)).copy()
    _arena.view("cuMemcpyDtoD", ctx, int(dest), int(size))[:] = data


def memcpy_peer(dest, src, size: int, dest_context: "Context | None" = None,
                src_context: "Context | None" = None) -> None:
    """cuMemcpyPeer: `size` bytes from src in src_context to dest in dest_context (devices that need no
    peer access for it: the driver copies through the host where they cannot reach each other)."""
    cur = _current("cuMemcpyPeer")
    dctx = dest_context._ctx if dest_context is not None else cur
    sctx = src_context._ctx if src_context is not None else cur
    _maybe_fail("memcpy_peer", "cuMemcpyPeer", cur)
    for c in (dctx, sctx):
        if c.destroyed:
            raise _error("cuMemcpyPeer", 201)
        if c.sticky:
            raise _error("cuMemcpyPeer", c.sticky)
    data = _arena.view("cuMemcpyPeer", sctx, int(src), int(size)).copy()
    _arena.view("cuMemcpyPeer", dctx, int(dest), int(size))[:] = data
    stats["peer_copies"] += 1


def memset_d2d32(dest, pitch: int, data: int, width: int, height: int) -> None:
    """cuMemsetD2D32: `height` rows of `width` 32-bit words, `pitch` bytes apart."""
    ctx = _current("cuMemsetD2D32")
    _maybe_fail("memset_d2d32", "cuMemsetD2D32", ctx)
    if int(dest) % 4 or (height > 1 and pitch < 4 * width):
        raise _error("cuMemsetD2D32", 1)
    span = _arena.view("cuMemsetD2D32", ctx, int(dest), (height - 1) * pitch + 4 * width) if height else None
    if span is not None:
        rows = np.lib.stride_tricks.as_strided(span, (height, 4 * width), (pitch, 1))
        rows.view(np.uint32)[:] = np.uint32(data & 0xFFFFFFFF)


class Memcpy2D:
    """cuMemcpy2D: `height` rows of `width_in_bytes`, between host and device memory (either way)."""

    def __init__(self) -> None:
        self.src_x_in_bytes = self.src_y = self.dst_x_in_bytes = self.dst_y = 0
        self.src_pitch = self.dst_pitch = self.width_in_bytes = self.height = 0
        self._src = self._dst = None

    def set_src_host(self, buf) -> None:
        self._src = ("host", buf)

    def set_src_device(self, ptr) -> None:
        self._src = ("device", int(ptr))

    def set_dst_host(self, buf) -> None:
        self._dst = ("host", buf)

    def set_dst_device(self, ptr) -> None:
        self._dst = ("device", int(ptr))

    def _rows(self, end, ctx, pitch: int, x: int, y: int, writable: bool) -> np.ndarray:
        kind, where = end
        n = (self.height - 1) * pitch + self.width_in_bytes
        if kind == "host":
            flat = _bytes_of(where, writable)[y * pitch + x:]
            if flat.size < n:
                raise _error("cuMemcpy2D", 1)
        else:
            flat = _arena.view("cuMemcpy2D", ctx, where + y * pitch + x, n)
        return np.lib.stride_tricks.as_strided(flat, (self.height, self.width_in_bytes), (pitch, 1))

    def __call__(self, aligned: bool = False) -> None:
        ctx = _current("cuMemcpy2D")
        _maybe_fail("memcpy_2d", "cuMemcpy2D", ctx)
        if self._src is None or self._dst is None or min(self.src_pitch, self.dst_pitch) < self.width_in_bytes:
            raise _error("cuMemcpy2D", 1)
        if not self.height or not self.width_in_bytes:
            return
        src = self._rows(self._src, ctx, self.src_pitch, self.src_x_in_bytes, self.src_y, False).copy()
        self._rows(self._dst, ctx, self.dst_pitch, self.dst_x_in_bytes, self.dst_y, True)[:] = src


_host_allocs: set["HostAllocation"] = set()


class HostAllocation:
    """Page-locked host memory; `pagelocked_zeros(...).base` is one of these (UVA: its
    device pointer is its host address)."""

    def __init__(self, shape, dtype, flags: int, ctx: _Ctx, owner: Context) -> None:
        dtype = np.dtype(dtype)
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self._buf = np.zeros(max(int(np.prod(shape)) * dtype.itemsize, 1), np.uint8)
        self.__array_interface__ = {"data": (self._buf.ctypes.data, False), "shape": shape,
                                    "typestr": dtype.str, "version": 3}
        self._flags, self.ctx, self._owner, self._valid = flags, ctx, owner, True
        _host_allocs.add(self)

    def get_device_pointer(self) -> int:
        ctx = _current("cuMemHostGetDevicePointer")
        if not self._valid or not self._flags & host_alloc_flags.DEVICEMAP:
            raise _error("cuMemHostGetDevicePointer", 1)
        if ctx is not self.ctx:
            raise _error("cuMemHostGetDevicePointer", 201)
        return self._buf.ctypes.data

    def free(self) -> None:
        if self._valid:
            self._valid = False
            _cleanup(self, lambda: _host_allocs.discard(self), "cuMemFreeHost", "host_allocation")


def pagelocked_zeros(shape, dtype, order: str = "C", mem_flags: int = 0) -> np.ndarray:
    ctx = _current("cuMemHostAlloc")
    return np.asarray(HostAllocation(shape, dtype, mem_flags, ctx, Context.get_current()))


pagelocked_empty = pagelocked_zeros

# ---- modules, functions, launches -------------------------------------------------------------------------


@dataclass
class _Assembled:
    ok: bool
    log: str  # ptxas -v's text (the JIT's info log, or its error log)
    functions: dict  # name -> {regs, frame, smem}


@functools.lru_cache(maxsize=256)
def _assemble(ptx: str, arch: str) -> _Assembled:
    try:
        from tileforth.backends.cuda.ptx import ptxas_path
        exe = ptxas_path()
    except Exception:  # noqa: BLE001 - no tileforth or no nvcc wheel: the JIT's checks are skipped
        exe = None
    if exe is None:
        return _Assembled(True, "", {})
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "m.ptx"
        src.write_text(ptx)
        proc = subprocess.run([exe, f"-arch={arch}", "-v", str(src), "-o", str(Path(d) / "m.cubin")],
                              capture_output=True, text=True, timeout=300)
    funcs: dict[str, dict] = {}
    cur = None
    for line in proc.stderr.splitlines():
        m = re.search(r"(?:Compiling entry function|Function properties for) '?([\w$.]+)'?", line)
        if m:
            cur = funcs.setdefault(m.group(1), {"regs": 0, "frame": 0, "smem": 0})
            continue
        m = re.search(r"(\d+) bytes stack frame", line)
        if m and cur is not None:
            cur["frame"] = int(m.group(1))
        m = re.search(r"Used (\d+) registers", line)
        if m and cur is not None:
            cur["regs"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            cur["smem"] = int(s.group(1)) if s else 0
    return _Assembled(proc.returncode == 0, proc.stderr, funcs)


def module_from_buffer(buffer, options=(), message_handler=None) -> "Module":
    ctx = _current("cuModuleLoadDataEx")
    _maybe_fail("module_from_buffer", "cuModuleLoadDataEx", ctx)
    raw = bytes(_bytes_of(buffer, writable=False))
    if raw[:4] == b"\x7fELF":
        return _cubin_module(ctx, raw)
    text = raw.split(b"\0", 1)[0].decode()
    verbose = False
    for key, value in options:
        if not isinstance(key, jit_option):
            raise TypeError("jit options are (jit_option, value) pairs")
        verbose |= int(key) == CU_JIT_LOG_VERBOSE and bool(value)
    major, minor = CONFIG["compute_capability"]
    if ".entry" not in text and ".func" not in text:
        raise _error("cuModuleLoadDataEx", 218, "not PTX")
    arch = f"sm_{major}{minor}"
    if re.search(rf"^\s*\.target\s+{arch}a\b", text, re.M):  # the device's own arch-specific target
        arch += "a"
    asm = _assemble(text, arch)
    if message_handler is not None:
        message_handler(asm.ok, asm.log if verbose and asm.ok else "", "" if asm.ok else asm.log)
    if not asm.ok:
        raise _error("cuModuleLoadDataEx", 218, asm.log)
    stats["modules_loaded"] += 1
    stats["ptx_jitted"] += 1
    return Module(ctx, text, asm.functions)


def _cubin_module(ctx: _Ctx, data: bytes) -> "Module":
    """A cubin, as the driver reads it (standin_device.cubin_entries): an ELF for the device's sm_XY (else
    CUDA_ERROR_NO_BINARY_FOR_GPU, 209; not an ELF cubin at all: 200, an invalid image), its entries'
    parameters from .nv.info. Each entry gets the stand-in's default resources (32 registers)."""
    from standin_device import cubin_entries
    read = cubin_entries(data)
    if read is None:
        raise _error("cuModuleLoadDataEx", 200)
    sm, entries = read
    major, minor = CONFIG["compute_capability"]
    if sm != major * 10 + minor:
        raise _error("cuModuleLoadDataEx", 209)
    stats["modules_loaded"] += 1
    stats["cubins_loaded"] += 1
    decl = "".join(f".entry {name}(\n" + ",\n".join(f".param .b{8 * size} p{i}" for i, (_, size) in enumerate(ps))
                   + "\n)\n{\n}\n" for name, ps in entries.items())
    return Module(ctx, decl, {})


class Module:
    def __init__(self, ctx: _Ctx, ptx: str, info: dict) -> None:
        self.ctx, self._ptx, self._info = ctx, ptx, info

    def get_function(self, name: str) -> "Function":
        if self.ctx.destroyed:
            raise _error("cuModuleGetFunction", 201)
        m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)([^{]*)\{", self._ptx, re.S)
        if m is None:
            raise _error("cuModuleGetFunction", 500)
        info = dict(self._info.get(name, {"regs": 32, "frame": 0, "smem": 0}))
        if CONFIG["registers"] is not None:
            info["regs"] = CONFIG["registers"]
        ntid = re.search(r"\.maxntid\s+(\d+)(?:\s*,\s*(\d+))?(?:\s*,\s*(\d+))?", m.group(2))
        maxntid = int(np.prod([int(x) for x in ntid.groups() if x])) if ntid else 1024
        regs = -(-max(info["regs"], 1) // 8) * 8  # registers are allocated in units of 8 per thread
        return Function(name, self.ctx, {
            function_attribute.MAX_THREADS_PER_BLOCK: min(1024, maxntid, 65536 // regs // 32 * 32),
            function_attribute.NUM_REGS: info["regs"], function_attribute.LOCAL_SIZE_BYTES: info["frame"],
            function_attribute.SHARED_SIZE_BYTES: info["smem"], function_attribute.CONST_SIZE_BYTES: 0,
            function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES: 48 * 1024 - info["smem"],
            function_attribute.PTX_VERSION: 78, function_attribute.BINARY_VERSION: 90})


class Function:
    def __init__(self, name: str, ctx: _Ctx, attrs: dict) -> None:
        self.name, self.ctx, self._attrs, self.arg_format = name, ctx, attrs, None

    def _mine(self, routine: str) -> _Ctx:
        ctx = _current(routine)
        if ctx is not self.ctx:
            raise _error(routine, 201)
        return ctx

    def get_attribute(self, attr: int) -> int:
        self._mine("cuFuncGetAttribute")
        return self._attrs[attr]

    def set_attribute(self, attr: int, value: int) -> None:
        self._mine("cuFuncSetAttribute")
        if attr != function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES:
            raise _error("cuFuncSetAttribute", 1)
        static = self._attrs[function_attribute.SHARED_SIZE_BYTES]
        if not 0 <= value <= _attributes()["MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"] - static:
            raise _error("cuFuncSetAttribute", 1)
        self._attrs[attr] = int(value)

    def prepare(self, arg_types, texrefs=None) -> "Function":
        self.arg_format = "".join(t if isinstance(t, str) else np.dtype(t).char for t in arg_types)
        return self

    def prepared_call(self, grid, block, *args, shared_size: int = 0) -> None:
        ctx = self._mine("cuLaunchKernel")
        data = struct.pack(self.arg_format, *args)  # struct.error, as PyCUDA's pack, on wrong arguments
        attrs = _attributes()
        grid, block = tuple(grid) + (1,) * (3 - len(grid)), tuple(block) + (1,) * (3 - len(block))
        gmax = (attrs["MAX_GRID_DIM_X"], attrs["MAX_GRID_DIM_Y"], attrs["MAX_GRID_DIM_Z"])
        bmax = (attrs["MAX_BLOCK_DIM_X"], attrs["MAX_BLOCK_DIM_Y"], attrs["MAX_BLOCK_DIM_Z"])
        static = self._attrs[function_attribute.SHARED_SIZE_BYTES]
        dyn_max = self._attrs[function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES]
        if (len(grid) != 3 or len(block) != 3 or not all(1 <= g <= m for g, m in zip(grid, gmax))
                or not all(1 <= b <= m for b, m in zip(block, bmax)) or int(np.prod(block)) > 1024
                or shared_size < 0 or shared_size > dyn_max
                or static + shared_size > attrs["MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"]):
            raise _error("cuLaunchKernel", 1)
        if int(np.prod(block)) > self._attrs[function_attribute.MAX_THREADS_PER_BLOCK]:
            raise _error("cuLaunchKernel", 701)
        _maybe_fail("launch", "cuLaunchKernel", ctx)
        values = struct.unpack(self.arg_format, data)
        launches.append(Launch(self.name, grid, block, values, shared_size, ctx.limits[0], ctx.handle))
        if on_launch is not None:  # a test plays the kernel: it writes device memory (device_view)
            on_launch(launches[-1])
        for ch, v in zip(re.findall(r"\d*[A-Za-z?]", self.arg_format), values):
            if ch == "P":  # a pointer argument outside this context's memory: the kernel would fault
                try:
                    _arena.view("cuLaunchKernel", ctx, int(v), 1)
                except Error:
                    ctx.sticky = 700
        if _faults:
            ctx.sticky = _faults.pop(0)


# ---- at exit: PyCUDA's context_stack destructor ------------------------------------------------------------

_MAIN = threading.main_thread()


def _at_exit() -> None:
    stack = getattr(_tls, "stack", None) if threading.current_thread() is _MAIN else None
    if stack:
        sys.stderr.write(
            "-------------------------------------------------------------------\n"
            "PyCUDA ERROR: The context stack was not empty upon module cleanup.\n"
            "-------------------------------------------------------------------\n"
            "A context was still active when the context stack was being\n"
            "cleaned up. At this point in our execution, CUDA may already\n"
            "have been deinitialized, so there is no way we can finish\n"
            "cleanly. The program will be aborted now.\n"
            "Use Context.pop() to avoid this problem.\n"
            "-------------------------------------------------------------------\n")
        sys.stderr.flush()
        os.abort()


atexit.register(_at_exit)
