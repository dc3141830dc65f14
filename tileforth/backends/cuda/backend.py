"""The cuda backend: PTX from the NVPTX target, loaded and launched by PyCUDA.

PyCUDA is imported lazily (extra `[cuda]`), so the package works without it.
Device memory holds the same records as on the emulator (layout.py): the
context (error record, allocation table, output buffer), one record per
thread and the stack state; the kernel finds its thread's record from its
special registers. Checked mode range-checks every access against the
allocation table in device memory, so a bad address is a ForthError and not
a dead CUDA context.

Differences from the emulator, by the hardware's nature: a divergent
BARRIER is undefined behaviour on a GPU (the emulator reports it), and the
tile stack lives in registers, so it does not persist between lines here.

**The CUDA context.** A session uses the device's *primary* context -- the
one the CUDA runtime, CuPy and PyTorch use, so `f.kernel(word)` works on
their arrays -- retained once per process for all sessions (`_Primary`) and
pushed around each operation that needs it, popped after. Between operations
the thread's context stack is as the session found it: sessions can
alternate, other libraries keep their current context, and the process never
exits with a context on the stack (PyCUDA aborts then). A session releases
its reference in close(), when it is garbage collected, or at exit; the last
reference released lets the driver destroy the context.

**Several devices** (DEVICE): the session's own memory (stacks, thread records, the context record, its
data space and buffers) lives on the device it started on, `home`; `select_device(n)` retains device
n's primary context and enables peer access both ways, so kernels launched there (loaded into its
context: the session's kernel cache keys on the device) reach home's memory. Arrays made while n is
selected are allocated in n's context and read, written and freed there; ACOPY between devices is a
peer copy (cuMemcpyPeer). A launch whose code or literals name another device's array is refused, and
the allocation table a checked launch consults leaves the other devices' arrays out.

**A lost context.** A kernel that faults (an illegal address in unchecked
mode, a trap) leaves the context unusable: every later call fails with the
same "sticky" error. The backend then resets the primary context (releases
it, so the driver destroys it, and retains a fresh one), re-creates every
allocation of every session at the SAME address (ARRAY addresses are
constants in the dictionary and in memory) by allocating in address order,
and restores the contents from host-side copies: each allocation of at most
64 MiB keeps a shadow of what the host last wrote or read. The line fails
with a ForthError that says so, and the interpreter restores the stacks from
its snapshot (set_state). What kernels wrote since the host last read it is
lost.

**Kernels across sessions.** A line's PTX is the same in every session that compiles the
same program: session addresses are read from the launch's address table
(core/compile/addresses.py: ctx[CTX_LITS] + LITS_MAX cells, written at every launch) and the
module's names come from its content (ptx.canonical_names). So `_load` looks each PTX up in the
disk cache of cubins (cubincache.py) before the driver's JIT sees it, and a miss hands the PTX to
the cache's writer (ptxas on a thread of its own).

**Launch limits** are the device's attributes (`caps`), and after loading a
kernel its MAX_THREADS_PER_BLOCK (registers) is checked against the block.
The GPU is addressed by its exact architecture, sm_{major}{minor}, and lines compile for its
arch-specific target where there is one (sm_90a on Hopper: setmaxnreg and wgmma work at the prompt).

**Recursion** runs on the thread's call stack in local memory. Its size is a
context limit (STACK_SIZE, 1 KiB per thread by default) that the driver
reserves for every thread the GPU can hold at once (132 SMs x 2048 threads
on an H200). Kernels are loaded with the JIT's verbose log, which gives each
function's stack frame; a kernel that reaches a recursive function gets a
STACK_SIZE covering `caps.recursion_max` levels of the largest recursive
frame plus the rest of its stack, at most 64 KiB per thread; where that cap
(or the device's memory) binds, the launch's depth limit
(ctx[CTX_RECURSION_MAX]) is lowered so the depth check fires before the
stack overflows. recursion_max is 256, not the emulator's 2000: frames of
recursive words are tens of bytes to a few hundred, so 256 levels need about
4-64 KiB per thread (0.5-17 GiB reserved on an H200), while 2000 levels
would exceed the cap for most words, and per-thread recursion deeper than
256 has no sensible use on a GPU (a balanced tree that deep has 2^256 nodes;
FACT overflows a cell at 21).
"""
from __future__ import annotations

import re
import threading
import weakref
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator, Sequence

import numpy as np
from tileforth.core.alloctable import AllocTable
from tileforth.core.compile.addresses import ADDRS_MAX, AddressTable
from tileforth.core.compile import layout as L
from tileforth.core.compile.machine import DEFAULT as DEFAULT_MACHINE
from tileforth.core.compile.machine import Machine
from tileforth.core.compile import state as S
from tileforth.core.compile.target import (
    STATIC_SHARED_BYTES,
    Backend,
    Capabilities,
    LaunchResult,
    LaunchShape,
    fill_context,
)
from tileforth.core.errors import ForthError
from tileforth.core.front.linekey import LITS_MAX
from tileforth.core.records import record

from .requires import NEEDS_PYCUDA
from tileforth.core.compile.tiers import REUSED_AT, TIER_CHEAP, TIER_FULL, tiered

from . import cubincache
from .ptx import (assemble_logged, canonical_names, device_arch, module_to_ptx, parse_ptxas_log, ptxas_version,
                  specific_arch, target_machine)
from .target import NvptxTarget

if TYPE_CHECKING:
    import llvmlite.binding as llvm

TABLE_CAP = 4096  # rows the device's allocation table holds at first (it doubles when they don't fit)
SHADOW_MAX = 64 << 20  # allocations up to this size keep a host copy, to survive a lost context
RECURSION_MAX = 256  # nested calls of recursive words per thread (see the module docstring)
STACK_CAP = 64 << 10  # bytes of call stack per thread, at most
FALLBACK_FRAME = 256  # bytes per level when the JIT log gives no frame sizes
_LITS_AT = L.CTX_SLOTS + L.THR_SLOTS  # where the literal table starts in the context buffer
_ADDRS_AT = _LITS_AT + LITS_MAX  # the session's address table after it (core/compile/addresses.py)
CU_JIT_LOG_VERBOSE = 12  # cuda.h; PyCUDA's jit_option enum has no name for it
CU_JIT_OPTIMIZATION_LEVEL = 7  # cuda.h: 0..4, 4 the driver's default
CHEAP_JIT_LEVEL = 1  # the driver JIT's level for tier-0 kernels (fast_gemm.md §4: 15-30 % below the default)
# cuGetErrorString of the errors after which a context is unusable (700, 702, 709, 710, 714-719)
STICKY = ("an illegal memory access was encountered", "the launch timed out and was terminated",
          "context is destroyed", "device-side assert triggered", "hardware stack error",
          "an illegal instruction was encountered", "misaligned address",
          "operation not supported on global/shared address space", "invalid program counter",
          "unspecified launch failure", "uncorrectable ECC error", "uncorrectable NVLink error",
          "tensor memory not completely freed", "an error occurred on an external device")
# why a context was lost, by the driver's words, and what to do about it (the message adds it)
LOST_CAUSE = (
    (("an illegal memory access", "misaligned address", "global/shared address space", "invalid program counter",
      "illegal instruction", "unspecified launch failure"),
     "a kernel touched memory it must not (in an unchecked session nothing checks addresses): run the line in a "
     "checked session to find the bad access"),
    (("hardware stack error",), "a thread's call stack overflowed (deep recursion): recurse less deeply, or run the "
                                "line in a checked session, whose depth check stops it"),
    (("launch timed out",), "the kernel ran longer than this GPU allows (a GPU that drives a display stops kernels "
                            "after a few seconds): split the work over several lines, or use a GPU without a display"),
    (("ECC error", "NVLink error", "external device"),
     "the GPU reported a hardware error: if it happens again, check the GPU (nvidia-smi -q) and tell the machine's "
     "administrator"),
)
# what to do after a driver error that leaves the context alive, by the driver's words (cuGetErrorString)
DRIVER_ADVICE = (
    ("out of memory", "the GPU's memory is full: give back memory the session no longer needs (FREE what ALLOCATE "
                      "gave), use fewer THREADS or smaller stacks (STACK-SIZE), or close other programs that use the "
                      "GPU"),
    ("busy or unavailable", "another process holds the GPU (exclusive compute mode): wait for it to finish, or use "
                            "--backend cpu"),
    ("not permitted", "the GPU's driver does not allow it here (its compute mode, MIG or a container's limits): use "
                      "--backend cpu, or ask the machine's administrator"),
    ("operation not supported", "this GPU or its driver cannot do it: use --backend cpu, or a newer driver"),
    ("driver shutting down", "the process is exiting, so the GPU cannot be used any more: restart the session"),
)
RETRY = "run the line again; if it fails again, restart the session (or use --backend cpu)"
# after a lost context that could not be replaced: the session keeps no context, and the next operation tries again
TRY_AGAIN = ("The dictionary is kept, and tileforth tries again to start a context at the next line; if that fails "
             "too, restart the session (or use --backend cpu)")
TOO_MANY_RESOURCES = "too many resources requested for launch"
# the note when the primary context had to be reset for every holder (_reset_primary)
RESET_FOR_ALL = ("another library in this process held the GPU context too, so it was reset for every holder: the GPU "
                 "memory of the other libraries (PyTorch tensors, CuPy arrays) was lost; create their arrays again")


def _driver():
    try:
        import pycuda.driver as cuda
    except ImportError as exc:
        raise ForthError(NEEDS_PYCUDA) from exc
    try:
        cuda.init()
        count = cuda.Device.count()
    except Exception as exc:  # pycuda raises its own error types
        raise ForthError(f"no usable NVIDIA GPU ({exc}); use backend='cpu'") from exc
    if count == 0:
        raise ForthError("no NVIDIA GPU found; use backend='cpu'")
    return cuda


def _reason(exc: Exception) -> str:
    """The driver's words: 'cuLaunchKernel failed: an illegal memory access ...' -> the part after 'failed: '."""
    text = str(exc)
    return text.split(" failed: ", 1)[1] if " failed: " in text else text


# ---- the primary context, shared by the sessions of a process ------------------------------------------

@record
class _Alloc:
    addr: int
    size: int  # bytes asked for
    buf: object  # PyCUDA's DeviceAllocation (None: forgotten with a lost context)
    shadow: np.ndarray | None  # the host's copy of the contents (None: not kept)
    user: bool  # in the allocation table that checked kernels consult


class _Resources:
    """One session's device state: what a lost context must re-create, and what close() frees."""

    def __init__(self, primary: "_Primary") -> None:
        self.primary = primary
        self.allocs: dict[int, _Alloc] = {}  # by address, in creation order
        self.external: dict[int, int] = {}  # device memory of CuPy / PyTorch: address -> bytes
        self.table = AllocTable()  # the rows checked kernels consult: user allocations and external memory
        self.spans = AllocTable()  # every allocation and external array, for finding an address (_find)
        self.abort_host: np.ndarray | None = None
        self.abort_dev = 0
        self.table_dirty = True
        self.closed = False

    def make_abort_flag(self) -> None:
        """The abort flag is mapped page-locked host memory, so Ctrl-C reaches a running kernel."""
        cuda = self.primary.cuda
        flags = cuda.host_alloc_flags.DEVICEMAP | cuda.host_alloc_flags.PORTABLE  # every device's kernels poll it
        self.abort_host = cuda.pagelocked_zeros(1, np.int64, mem_flags=flags)
        self.abort_dev = int(self.abort_host.base.get_device_pointer())

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            if self.primary.context is not None:
                with self.primary.active():
                    for rec in self.allocs.values():
                        if rec.buf is not None:
                            rec.buf.free()
                    if self.abort_host is not None:
                        self.abort_host.base.free()
        except Exception:  # noqa: BLE001 - closing must not fail (at exit the driver may be going away)
            pass
        finally:
            self.allocs.clear()
            self.abort_host = None
            self.primary.release(self)


def _reset_primary(cuda, ordinal: int) -> bool:
    """cuDevicePrimaryCtxReset: destroy the device's primary context and its memory for every
    holder in the process (after a sticky error that another library's retain keeps alive).
    PyCUDA has no wrapper, so libcuda is called through ctypes (the stand-in driver of the
    tests offers the call as `primary_ctx_reset`). True when the driver did it."""
    own = getattr(cuda, "primary_ctx_reset", None)
    if own is not None:
        return bool(own(ordinal))
    import ctypes
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        dev = ctypes.c_int()
        if lib.cuDeviceGet(ctypes.byref(dev), ordinal) != 0:
            return False
        reset = getattr(lib, "cuDevicePrimaryCtxReset_v2", None) or lib.cuDevicePrimaryCtxReset
        return reset(dev) == 0
    except (OSError, AttributeError):
        return False


class _Primary:
    """A device's primary context, retained once for every session of the process."""

    _all: dict[tuple[int, int], "_Primary"] = {}

    @classmethod
    def get(cls, cuda, ordinal: int) -> "_Primary":
        """The device's, shared while a session holds it (acquire registers it, the last release forgets it)."""
        return cls._all.get((id(cuda), ordinal)) or cls(cuda, ordinal)

    def __init__(self, cuda, ordinal: int) -> None:
        self.cuda, self.ordinal = cuda, ordinal
        self.device = cuda.Device(ordinal)
        self.context = None
        self.users: list[_Resources] = []
        self.generation = 0  # incremented by each reset: kernels loaded before it are reloaded
        self._tls = threading.local()

    def acquire(self, res: _Resources) -> None:
        if self.context is None:
            self.context = self.device.retain_primary_context()
        self.users.append(res)
        self._all[(id(self.cuda), self.ordinal)] = self

    def release(self, res: _Resources) -> None:
        if res in self.users:
            self.users.remove(res)
        if not self.users and self.context is not None:
            ctx, self.context = self.context, None
            try:
                ctx.detach()
            except Exception:  # noqa: BLE001 - already gone (driver shut down)
                pass
            self._all.pop((id(self.cuda), self.ordinal), None)

    def depth(self) -> int:
        return getattr(self._tls, "depth", 0)

    @contextmanager
    def active(self) -> Iterator[None]:
        """The primary context is current inside (pushed once per thread, popped after)."""
        if self.context is None:  # a lost context that could not be replaced (the backend's _device retries)
            raise ForthError("the GPU has no usable context: it was lost and could not be made again; restart the "
                             "session (or use --backend cpu)")
        depth = self.depth()
        if depth == 0:
            self.context.push()
        self._tls.depth = depth + 1
        try:
            yield
        finally:
            self._tls.depth = depth
            if depth == 0:
                self.cuda.Context.pop()

    def forget_context(self) -> None:
        """After a failed replacement: no context (the next operation tries again, _device)."""
        if self.context is not None:
            try:
                self.context.detach()
            except Exception:  # noqa: BLE001 - already gone
                pass
            self.context = None

    def dead(self) -> bool:
        """Is the context unusable (a sticky error)? A synchronize reports it."""
        try:
            with self.active():
                self.cuda.Context.synchronize()
        except self.cuda.Error:
            return True
        return False

    def reset(self) -> list[str]:
        """Replace a lost context: release it (the driver destroys it), retain a fresh one and
        re-create every session's allocations at their addresses with their host copies.
        Returns notes for the user; raises ForthError when the session cannot go on."""
        cuda = self.cuda
        old, self.context = self.context, None
        try:
            old.detach()  # PyCUDA then skips cuMemFree for memory of this context: it goes with it
        except Exception:  # noqa: BLE001
            pass
        for res in self.users:
            for rec in res.allocs.values():
                rec.buf = None
            for addr in res.external:
                res.table.remove(addr)
                res.spans.remove(addr)
            res.external.clear()
            res.abort_host = None
        self.generation += 1
        try:
            self.context = self.device.retain_primary_context()
            dead = self.dead()
        except cuda.Error:  # the driver hands back the lost context while another holder keeps it
            dead = True
        if dead:  # another holder (CuPy, PyTorch, the CUDA runtime): reset it for every holder
            if self.context is not None:
                try:
                    self.context.detach()
                except Exception:  # noqa: BLE001
                    pass
                self.context = None
            if not _reset_primary(cuda, self.ordinal):
                raise ForthError("the GPU context was lost and could not be reset: another library in this "
                                 f"process (CuPy, PyTorch) holds it too. {TRY_AGAIN}")
            self.context = self.device.retain_primary_context()
            if self.dead():
                raise ForthError("the GPU context was lost and even a reset of the device's primary context left it "
                                 f"unusable. {TRY_AGAIN}")
        notes = [RESET_FOR_ALL] if dead else []
        recs = sorted((rec for res in self.users for rec in res.allocs.values()), key=lambda r: r.addr)
        zeroed = 0
        with self.active():
            pads = []
            for rec in recs:
                rec.buf = self._alloc_at(rec.addr, max(rec.size, 16), pads)
                if rec.buf is None:
                    for p in pads:
                        p.free()
                    raise ForthError(f"the GPU context was lost, and tileforth could not re-create device memory "
                                     f"at ${rec.addr:x}, where the dictionary expects it: restart the session "
                                     "(or use --backend cpu)")
            for p in pads:
                p.free()
            for rec in recs:
                if rec.shadow is not None:
                    cuda.memcpy_htod(rec.buf, rec.shadow)
                else:
                    cuda.memset_d8(rec.buf, 0, max(rec.size, 16))
                    zeroed += rec.user and rec.size > SHADOW_MAX
            for res in self.users:
                res.make_abort_flag()
                res.table_dirty = True
        if zeroed:
            notes.append(f"{zeroed} allocation(s) over {SHADOW_MAX >> 20} MiB had no host copy and were zeroed")
        return notes

    def _alloc_at(self, addr: int, size: int, pads: list):
        """An allocation at `addr` (the driver hands out addresses in order; holes are padded)."""
        for _ in range(16):
            buf = self.cuda.mem_alloc(size)
            got = int(buf)
            if got == addr:
                return buf
            buf.free()
            if got > addr:
                return None
            pads.append(self.cuda.mem_alloc(addr - got))
        return None


# ---- kernels ---------------------------------------------------------------------------------------------------

class _DeviceStacks:
    """A line's snapshot of the stacks on cuda: a device copy of the state buffer (CudaBackend.take_stacks).
    Its memory goes back to the backend, as the spare for the next line's copy, when it is dropped."""

    def __init__(self, backend: "CudaBackend", addr: int, nbytes: int, threads: int, machine: Machine,
                 generation: int) -> None:
        self.addr, self.nbytes, self.threads, self.machine, self.generation = addr, nbytes, threads, machine, generation
        weakref.finalize(self, backend._return_shadow, addr, max(nbytes, 16))


class CudaKernel:
    def __init__(self, ptx: str, name: str, suspends: bool) -> None:
        self.ptx, self.name, self.suspends = ptx, name, suspends
        self.module = self.fn = None
        self.table_bases: frozenset = frozenset()  # the session addresses its code reads from the table (the session's)
        self.generation = -1
        self.regs = 0
        self.max_threads = 1024
        self.dynamic_shared = STATIC_SHARED_BYTES  # the function's MAX_DYNAMIC_SHARED_SIZE_BYTES
        self.stack_base = self.stack_level = 0  # its stack: base + (depth + 2) * level bytes per thread
        self.depth = RECURSION_MAX  # the launch's recursion depth limit
        self.frames: dict[str, int] = {}
        self.tier = TIER_FULL  # tiers.py: TIER_CHEAP (JIT at CHEAP_JIT_LEVEL), or TIER_FULL
        self.loops = False  # a tier-0 loop kernel: its full PTX is made at its first reuse
        self.bitcode: bytes | None = None  # its IR, kept for that
        self.launches = 0
        self.recompile: _FullPtx | None = None
        self.addresses: frozenset[int] | None = None  # the integers its PTX holds (what arrays it names: DEVICE)
        self.on_generation = -1  # the generation of the context of the device it was loaded on (DEVICE)


class _FullPtx:
    """The full tier's PTX (O3, NVPTX opt 3) of a tier-0 loop kernel, made on a thread of its own
    from the kernel's bitcode. llvmlite runs one LLVM call at a time in the process (its FFI lock),
    so this never races the session's own compiles. The driver's JIT of it runs on the launching
    thread, in the context, at the first launch after the PTX is ready (launch())."""

    def __init__(self, bitcode: bytes, arch: str) -> None:
        self.ptx: str | None = None
        self.error: BaseException | None = None
        self.cancelled = False
        self.thread = threading.Thread(target=self._run, args=(bitcode, arch), name="tileforth-recompile")
        self.thread.start()

    def _run(self, bitcode: bytes, arch: str) -> None:
        import llvmlite.binding as llvm
        try:
            if not self.cancelled:
                self.ptx = module_to_ptx(llvm.parse_bitcode(bitcode), arch, heavy=True)
        except BaseException as exc:  # noqa: BLE001 - kept: the kernel keeps its tier-0 code
            self.error = exc

    @property
    def done(self) -> bool:
        return not self.thread.is_alive()


_ADDRESS = re.compile(r"(?<![\w.%$])(\d{9,})\b")  # a PTX immediate as big as an address


_HEADER = re.compile(r"^[ \t]*(?:\.visible[ \t]+|\.weak[ \t]+|\.extern[ \t]+)*\.(entry|func)[ \t]+"
                     r"(?:\([^)]*\)[ \t]*)?([A-Za-z_$][\w$]*)", re.M)
_CALL = re.compile(r"\bcall(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([A-Za-z_$][\w$]*)")


def recursive_functions(ptx: str, kernel: str) -> set[str]:
    """The functions on a call cycle reachable from `kernel` (from the PTX's call graph)."""
    heads = list(_HEADER.finditer(ptx))
    calls: dict[str, set[str]] = {}
    for h, nxt in zip(heads, heads[1:] + [None]):
        body = ptx[h.end():nxt.start() if nxt else len(ptx)]
        calls.setdefault(h.group(2), set()).update(_CALL.findall(body))
    reach, todo = set(), [kernel]
    while todo:
        for callee in calls.get(todo.pop(), ()):
            if callee not in reach:
                reach.add(callee)
                todo.append(callee)

    def on_cycle(fn: str) -> bool:
        seen, todo = set(), list(calls.get(fn, ()))
        while todo:
            g = todo.pop()
            if g == fn:
                return True
            if g not in seen:
                seen.add(g)
                todo.extend(calls.get(g, ()))
        return False
    return {fn for fn in reach if on_cycle(fn)}


def stack_frames(log: str) -> dict[str, int]:
    """'N bytes stack frame' per function, from the JIT's verbose log (ptxas -v's text)."""
    return {name: info.stack_frame for name, info in parse_ptxas_log(log).items()}


def stack_plan(kernel: str, ptx: str, log: str, own_frame: int, depth_max: int = RECURSION_MAX,
               cap: int = STACK_CAP) -> tuple[int, int, int]:
    """(bytes per thread outside the recursion, bytes per level, depth limit) for a kernel, where the
    stack it needs is base + (depth + 2) * level; level 0 when nothing in it recurses (ptxas knows its
    stack then, and the driver sizes it)."""
    rec = recursive_functions(ptx, kernel)
    if not rec:
        return 0, 0, depth_max
    frames = stack_frames(log)
    level = max((frames.get(fn, 0 if frames else FALLBACK_FRAME) for fn in rec), default=0)
    level = max(level, 16)  # a call costs at least its return address and saved registers
    others = max((f for fn, f in frames.items() if fn != kernel and fn not in rec), default=0)
    base = frames.get(kernel, own_frame) + others
    depth = depth_max
    if base + (depth + 2) * level > cap:  # the cap binds: fewer levels, so the depth check fires first
        depth = max(1, (cap - base) // level - 2)
    return base, level, depth


# ---- the backend -------------------------------------------------------------------------------------------------

class CudaBackend(Backend):
    name = "cuda"

    def __init__(self, device: int = 0, machine: Machine = DEFAULT_MACHINE) -> None:
        self.machine = machine  # the session's settings: the float type, the stacks' and the output's capacities
        self.cuda = cuda = _driver()
        primary = _Primary.get(cuda, device)
        dev = primary.device
        self.device_name = dev.name()
        self.arch = device_arch(*dev.compute_capability())  # exactly the device's sm_XY, or a ForthError
        self.jit_arch = specific_arch(self.arch)  # what lines compile for: sm_90a on an H100/H200
        self.caps = self._capabilities(dev)
        self.target = NvptxTarget(self.jit_arch, str(target_machine(self.jit_arch, 3).target_data), machine)
        self._primary = primary
        self._res = res = _Resources(primary)
        # session addresses are launch data, so a line's PTX is the same in every session (addresses.py)
        self.target.addresses = AddressTable(lambda value: res.spans.find(value, 0))
        self._cubins_init(cuda)
        primary.acquire(res)
        self._finalizer = weakref.finalize(self, res.close)  # also at exit, so the process exits cleanly
        self._jit_options = self._verbose_jit()
        self._cheap_jit = self._jit_level(CHEAP_JIT_LEVEL)
        self.tiers = tiered()  # tiers.py: loop kernels start at tier 0 (False: TILEFORTH_TIERS=full)
        self.compiled_tiers = {TIER_CHEAP: 0, TIER_FULL: 0}  # kernels compiled at each tier
        self.recompiled = 0  # tier-0 kernels swapped for their full tier
        self._recompiles: set[_FullPtx] = set()
        self._n_allocs = 0
        self._spare: tuple[int, int] | None = None  # device memory for the next snapshot of the stacks
        self._records_generation = -1
        self._table_version, self._table_cap = -1, TABLE_CAP  # the device table's copy of res.table, its rows
        # several GPUs (DEVICE): the session's own memory stays on `home`; launches run on current_device, in its
        # primary context, and reach home's memory by peer access; arrays live on the device they were made on
        self.home = self.current_device = device
        self._others: dict[int, tuple[_Primary, _Resources]] = {}  # the other devices selected, each its context
        self._array_dev: dict[int, int] = {}  # ARRAY/MATRIX address -> its device
        self._names: dict[int, str] = {}  # ARRAY/MATRIX address -> its name (set_element_type's metadata)
        self._filtered: tuple[tuple, np.ndarray] | None = None  # the table a launch on a device other than home sees
        self._table_device: int | None = None  # the device the table on the device was filtered for
        try:
            with self._device("starting the session"):
                res.make_abort_flag()
            self.ctx_host = np.zeros(_ADDRS_AT + ADDRS_MAX, np.int64)
            self.ctx_dev = self._raw(self.ctx_host.nbytes, keep=False)
            self.out_dev = self._raw(self.machine.out_cap * L.OUT_SLOTS * 8, keep=False)
            self.table_dev = self._raw(TABLE_CAP * 16, keep=False)
            self.shared_size = 0
            self.set_shape(LaunchShape())
        except BaseException:
            self.close()
            raise

    def _capabilities(self, dev) -> Capabilities:
        A = self.cuda.device_attribute

        def attr(name: str, default: int) -> int:
            try:
                return int(dev.get_attribute(getattr(A, name)))
            except Exception:  # noqa: BLE001 - an older PyCUDA or driver
                return default
        return Capabilities(
            warp_size=attr("WARP_SIZE", 32),
            max_block_threads=attr("MAX_THREADS_PER_BLOCK", 1024),
            max_block=(attr("MAX_BLOCK_DIM_X", 1024), attr("MAX_BLOCK_DIM_Y", 1024), attr("MAX_BLOCK_DIM_Z", 64)),
            max_grid=(attr("MAX_GRID_DIM_X", 2**31 - 1), attr("MAX_GRID_DIM_Y", 65535),
                      attr("MAX_GRID_DIM_Z", 65535)),
            max_threads=1 << 31,  # the stacks must fit in device memory besides (free_memory)
            shared_bytes=attr("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", attr("MAX_SHARED_MEMORY_PER_BLOCK", STATIC_SHARED_BYTES)),
            recursion_max=RECURSION_MAX,
            keeps_tiles=False,
            arch=self.jit_arch,
            external_memory=True)

    def _verbose_jit(self) -> list:
        """JIT options asking for ptxas's verbose log (each function's registers and stack frame)."""
        opt = self.cuda.jit_option
        try:
            key = getattr(opt, "LOG_VERBOSE", None) or opt(CU_JIT_LOG_VERBOSE)
        except Exception:  # noqa: BLE001 - this PyCUDA cannot name the option: no log, estimates instead
            return []
        return [(key, 1)]

    def _jit_level(self, level: int) -> list:
        """The JIT option for optimisation level `level`, or none where this PyCUDA cannot name it."""
        opt = self.cuda.jit_option
        try:
            return [(getattr(opt, "OPTIMIZATION_LEVEL", None) or opt(CU_JIT_OPTIMIZATION_LEVEL), level)]
        except Exception:  # noqa: BLE001
            return []

    def _cubins_init(self, cuda) -> None:
        """The disk cache of cubins (cubincache.py), when it is on and ptxas can make its entries."""
        self.jit_loads = 0  # modules the driver's JIT compiled from PTX
        self.cubin_loads = 0  # modules loaded from the disk cache's cubins
        self.cubins: cubincache.CubinCache | None = None
        self._cubin_writer: cubincache.Writer | None = None
        cache = cubincache.CubinCache.default()
        self._cubin_maker = ptxas_version() if cache is not None else None
        if cache is None or self._cubin_maker is None:  # off, or no ptxas to make entries with: no cache
            return
        try:
            self._driver_version = str(cuda.get_driver_version())
        except Exception:  # noqa: BLE001 - a driver that cannot say its version: no cache
            return
        self.cubins, self._cubin_writer = cache, cubincache.Writer(cache)
        weakref.finalize(self, self._cubin_writer.close)  # at exit too: the entries handed over are written

    def _cubin_key(self, ptx: str, cheap: bool) -> tuple[str | None, int | None]:
        """The disk cache's key of a kernel's PTX as this backend loads it (the JIT's level: ptxas's -O), and
        that -O (None: ptxas's default, 3, the JIT's default level 4 counterpart)."""
        if self.cubins is None:
            return None, None
        opt = CHEAP_JIT_LEVEL if cheap else None
        maker = f"{self._cubin_maker} -O{3 if opt is None else opt}"
        return cubincache.cubin_key(ptx, self.jit_arch, self._driver_version, maker), opt

    def wait_cubins(self) -> None:
        """Every cubin the disk cache was handed so far is written (tests: a condition, not a sleep)."""
        if self._cubin_writer is not None:
            self._cubin_writer.wait()

    def close(self) -> None:
        """Join the full-tier compiles under way, free this session's device memory and release its
        reference to the primary context."""
        for rc in list(getattr(self, "_recompiles", ())):
            rc.cancelled = True
        for rc in list(getattr(self, "_recompiles", ())):
            rc.thread.join()
        writer = getattr(self, "_cubin_writer", None)
        if writer is not None:
            writer.close()
        for _, res in getattr(self, "_others", {}).values():
            res.close()
        self._finalizer()

    # ---- running driver calls -------------------------------------------------------------------
    @contextmanager
    def _device(self, what: str, primary: "_Primary | None" = None) -> Iterator[None]:
        """Driver calls with the primary context current (the home device's, or `primary`'s); a driver
        error becomes a ForthError (after replacing a lost context)."""
        if primary is not None and primary is not self._primary:
            with self._device(what):  # errors and a lost context are handled as the home device's
                with primary.active():
                    yield
            return
        if self._res.closed:
            raise ForthError("this cuda session is closed")
        outer = self._primary.depth() == 0
        if outer and self._primary.context is None:
            self._recover()
        try:
            with self._primary.active():
                yield
        except self.cuda.Error as exc:
            if not outer:
                raise
            raise self._driver_error(exc, what) from exc

    def _recover(self) -> None:
        """A context lost earlier that could not be replaced then: try again (the device may be back),
        with every allocation re-created as after any lost context."""
        try:
            self._primary.reset()
        except self.cuda.Error as exc:
            raise ForthError(f"the GPU context was lost, and it still cannot be made again ({_reason(exc)}): "
                             "restart the session (or use --backend cpu)") from exc
        except ForthError as exc:
            raise ForthError(f"the GPU context was lost, and it still cannot be made again: {exc.message}") from exc

    def _driver_error(self, exc: Exception, what: str) -> ForthError:
        text, reason = str(exc), _reason(exc)
        if TOO_MANY_RESOURCES in text:
            return ForthError(f"the GPU refused the launch ({reason}): the block has too many threads for this "
                              "kernel's registers; use fewer THREADS")
        target = self._lost() if self._others else self._primary  # DEVICE: the lost context may be another's
        lost = (isinstance(exc, self.cuda.LaunchError) or any(s in text for s in STICKY)
                or target is not self._primary or self._primary.dead())
        if not lost:
            advice = next((a for key, a in DRIVER_ADVICE if key in text), RETRY)
            return ForthError(f"the GPU driver failed while {what}: {text}; the session is unchanged: {advice}")
        which = "" if target is self._primary else f" of device {target.ordinal}"
        try:
            notes = target.reset()
            if self._others:
                with self._primary.active():
                    for other, _ in self._others.values():
                        self._enable_peers(other)
        except self.cuda.Error as again:
            target.forget_context()
            raise ForthError(f"the GPU context{which} was lost ({reason}), and replacing it failed too "
                             f"({_reason(again)}). {TRY_AGAIN}") from again
        extra = f" ({'; '.join(notes)})" if notes else ""
        cause = next((c for keys, c in LOST_CAUSE if any(k in text for k in keys)), "run the line again")
        return ForthError(f"the GPU context{which} was lost ({reason}): tileforth started a fresh one; the dictionary and "
                          "the stacks are kept, device memory was restored from the host's copies (what kernels "
                          f"wrote since the host last read it is lost){extra}; {cause}; or restart with --backend cpu")

    # ---- memory ----------------------------------------------------------------
    def _raw(self, nbytes: int, user: bool = False, keep: bool = True) -> int:
        size = max(nbytes, 16)
        with self._device("allocating device memory"):
            buf = self.cuda.mem_alloc(size)
            self.cuda.memset_d8(buf, 0, size)
        shadow = np.zeros(size, np.uint8) if keep and size <= SHADOW_MAX else None
        rec = _Alloc(int(buf), nbytes, buf, shadow, user)
        self._res.allocs[rec.addr] = rec
        self._res.spans.add(rec.addr, nbytes)
        return rec.addr

    def alloc(self, nbytes: int, user: bool = True) -> int:
        addr = self._raw(nbytes, user=user)
        if user:
            self._res.table.add(addr, nbytes)  # in place: constant time in the live allocations (issue 25)
        return addr

    # ---- devices (DEVICE, DEVICES, ACOPY) ---------------------------------------------------------
    def device_count(self) -> int:
        try:
            return int(self.cuda.Device.count())
        except self.cuda.Error:
            return 1

    def _primary_of(self, device: int) -> "_Primary":
        return self._primary if device == self.home else self._others[device][0]

    def select_device(self, n: int) -> None:
        """Launches run on device n from now on (in its primary context) and arrays are made there. A device
        other than home must reach home's memory (the session's stacks and data space) by peer access."""
        if n != self.home and n not in self._others:
            cuda = self.cuda
            primary = _Primary.get(cuda, n)
            home_dev = self._primary.device
            if not (primary.device.can_access_peer(home_dev) and home_dev.can_access_peer(primary.device)):
                raise ForthError(f"device {n} cannot reach the memory of device {self.home}, where this session's "
                                 f"stacks and data space live (the driver reports no peer access between them): "
                                 f"use device {self.home}, or start the session on device {n}")
            res = _Resources(primary)
            primary.acquire(res)
            weakref.finalize(self, res.close)
            try:
                with self._device(f"starting device {n}", primary):
                    self._enable_peers(primary)
            except BaseException:
                res.close()
                raise
            self._others[n] = (primary, res)
        self.current_device = n

    def _enable_peers(self, primary: "_Primary") -> None:
        """Peer access both ways between `primary`'s context and home's (again after either was replaced)."""
        cuda = self.cuda
        for there, here in ((primary, self._primary), (self._primary, primary)):
            if there.context is None or here.context is None:
                continue
            there.context.push()  # `there`'s kernels reach `here`'s memory
            try:
                cuda.Context.enable_peer_access(here.context)
            except cuda.LogicError as exc:  # already enabled (by another session): fine
                if "already enabled" not in str(exc):
                    raise
            finally:
                cuda.Context.pop()

    def _lost(self) -> "_Primary":
        """The context a failed launch lost: the device's it ran on when that one is dead, else home's."""
        on = self._primary_of(self.current_device)
        return on if on is not self._primary and on.dead() else self._primary

    def array_alloc(self, nbytes: int) -> int:
        """A user array on the current device (in its context), zeroed; the home device's arrays are ordinary
        allocations. Every array is in the session's table (the range checks), noted with its device."""
        if self.current_device == self.home:
            addr = self.alloc(nbytes)
        else:
            primary, res = self._others[self.current_device]
            size = max(nbytes, 16)
            with self._device("allocating device memory", primary):
                buf = self.cuda.mem_alloc(size)
                self.cuda.memset_d8(buf, 0, size)
            rec = _Alloc(int(buf), nbytes, buf, np.zeros(size, np.uint8) if size <= SHADOW_MAX else None, True)
            addr = rec.addr
            res.allocs[addr] = rec
            self._res.spans.add(addr, nbytes)
            self._res.table.add(addr, nbytes)
        self._array_dev[addr] = self.current_device
        return addr

    def array_device(self, addr: int) -> int:
        return self._array_dev.get(addr, self.home)

    def set_element_type(self, addr: int, dtype: np.dtype) -> None:
        meta: dict = dict(dtype.metadata or {}) if dtype is not None else {}
        name = meta.get("name")
        if name:
            self._names[addr] = name

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        """A device-to-device copy: within a device, or between two by a peer copy; the host's copy of the
        destination (kept for a lost context) is refreshed."""
        rd = self._find(dst, nbytes)
        self._find(src, nbytes)  # both inside live allocations, or a ForthError
        pd, ps = self._primary_of(self._dev_of(dst)), self._primary_of(self._dev_of(src))
        if pd is not ps and not hasattr(self.cuda, "memcpy_peer"):  # a PyCUDA without it: through the host
            self.write(dst, self.read(src, nbytes))
            return
        with self._device("copying between devices" if pd is not ps else "copying device memory", pd):
            if pd is ps:
                self.cuda.memcpy_dtod(dst, src, nbytes)
            else:
                self.cuda.memcpy_peer(dst, src, nbytes, dest_context=pd.context, src_context=ps.context)
        if rd is not None and rd.shadow is not None:
            self.read(dst, nbytes)

    def _dev_of(self, addr: int) -> int:
        base = self._res.spans.find(addr, 1)
        return self._array_dev.get(base, self.home) if base is not None else self.home

    def _launch_table(self) -> np.ndarray:
        """The rows of the allocation table a launch may touch: all of them on the home device but the other
        devices' arrays; elsewhere, that device's arrays and the session's memory (reached by peer access)."""
        res, here = self._res, self.current_device
        key = (res.table.version, here, len(self._array_dev))
        if self._filtered is not None and self._filtered[0] == key:
            return self._filtered[1]
        rows = np.ascontiguousarray(res.table.rows)
        away = np.array([a for a, d in self._array_dev.items() if d != here], np.int64)
        if len(away) and len(rows):
            rows = np.ascontiguousarray(rows[~np.isin(rows[:, 0], away)])
        self._filtered = (key, rows)
        return rows

    def _check_devices(self, handle: "CudaKernel", lits: Sequence[int]) -> None:
        """Before a launch: an array of another device that the kernel names (an address in its code, or a
        literal of the line) is refused; what it reaches otherwise, checked launches refuse (the table)."""
        if not self._others:
            return
        if handle.addresses is None:  # what its code names: immediates, and the address table's bases it reads
            handle.addresses = frozenset(int(x) for x in _ADDRESS.findall(handle.ptx)) | handle.table_bases
        here = self.current_device
        for addr in (*handle.addresses, *lits):
            base = self._res.spans.find(addr, 1) if addr > 0 else None
            if base is None:
                continue
            dev = self._array_dev.get(base)
            if dev is not None and dev != here:
                name = self._names.get(base, f"the array at ${base:x}")
                raise ForthError(f"{name} lives on device {dev}, but this launch runs on device {here}: select its "
                                 f"device first (`{dev} DEVICE`), or copy it to an array made on device {here} "
                                 f"(`{here} DEVICE`, ARRAY or MATRIX, then ACOPY)")

    def register_external(self, addr: int, nbytes: int) -> None:
        """Device memory owned by someone else (CuPy, PyTorch) that kernels may touch."""
        self._res.external[addr] = nbytes
        self._res.table.add(addr, nbytes)
        self._res.spans.add(addr, nbytes)

    def free(self, addr: int) -> None:
        dev = self._array_dev.pop(addr, self.home)  # in the context of the device it lives on
        self._names.pop(addr, None)
        rec = (self._res if dev == self.home else self._others[dev][1]).allocs.pop(addr, None)
        if self._res.external.pop(addr, None) is not None or (rec is not None and rec.user):
            self._res.table.remove(addr)
        self._res.spans.remove(addr)
        if rec is not None and rec.buf is not None:
            with self._device("freeing device memory", self._primary_of(dev)):
                rec.buf.free()

    def _find(self, addr: int, nbytes: int) -> _Alloc | None:
        base = self._res.spans.find(addr, nbytes)
        if base is not None:
            dev = self._array_dev.get(base, self.home)
            return (self._res if dev == self.home else self._others[dev][1]).allocs.get(base)  # None: external
        raise ForthError(f"address ${addr:x} (+{nbytes} bytes) is not inside a live allocation")

    def check_span(self, addr: int, nbytes: int) -> None:
        self._find(addr, nbytes)

    def read(self, addr: int, nbytes: int) -> np.ndarray:
        rec = self._find(addr, nbytes)
        out = np.empty(nbytes, np.uint8)
        with self._device("reading device memory", self._primary_of(self._dev_of(addr))):
            self.cuda.memcpy_dtoh(out, addr)
        if rec is not None and rec.shadow is not None:
            rec.shadow[addr - rec.addr:addr - rec.addr + nbytes] = out
        return out

    def write(self, addr: int, data: np.ndarray | bytes) -> None:
        raw = np.frombuffer(bytes(data) if isinstance(data, (bytes, bytearray)) else
                            np.ascontiguousarray(data).tobytes(), np.uint8)
        rec = self._find(addr, raw.size)
        with self._device("writing device memory", self._primary_of(self._dev_of(addr))):
            self.cuda.memcpy_htod(addr, raw)
        if rec is not None and rec.shadow is not None:
            rec.shadow[addr - rec.addr:addr - rec.addr + raw.size] = raw

    def allocation_sizes(self) -> dict[int, int]:
        return {a: rec.size for res in (self._res, *(r for _, r in self._others.values()))
                for a, rec in res.allocs.items() if rec.user}  # the other devices' arrays too (DEVICE)

    def set_shared(self, nbytes: int) -> int:
        self.shared_size = max(self.shared_size, nbytes)
        self.target.shared_bytes = self.shared_size
        return 0

    # ---- launch shape, state, tiles -----------------------------------------------
    def set_shape(self, shape: LaunchShape, interruptible: bool = False) -> None:
        """The shape's state buffer (zeroed: empty stacks) and thread records on the device. The records'
        fixed fields (the linear index, the state's address) go up once here; each launch resets the
        fields a kernel changes on the device (_reset_records), so a line sends nothing per thread."""
        grid, block = shape.grid, shape.block
        nb, bs = shape.nblocks, shape.block_size
        for a in (getattr(self, "state_dev", None), getattr(self, "thr_dev", None)):
            if a:
                self.free(a)
        self.state_dev = self.thr_dev = 0
        self.shape, self.grid, self.block = shape, grid, block
        self.nblocks, self.block_size, self.nthreads = nb, bs, nb * bs
        self.state_dev = self._raw(S.buffer_bytes(self.nthreads, self.machine))
        self.thr_dev = self._raw(self.nthreads * L.THR_SLOTS * 8, keep=False)
        self._upload_records()

    def _upload_records(self) -> None:
        """The thread records' fixed fields, sent up (at a new shape, and after a lost context, which
        zeroes memory the host keeps no copy of)."""
        thr = np.zeros((self.nthreads, L.THR_SLOTS), np.int64)
        thr[:, L.T_LINEAR] = np.arange(self.nthreads)
        thr[:, L.T_STATE] = S.record_addresses(self.state_dev, self.nthreads, self.machine)
        with self._device("setting up the thread records"):
            self.cuda.memcpy_htod(self.thr_dev, thr)
        self._records_generation = self._primary.generation

    def _reset_records(self, steps: int) -> None:
        """Each thread's status, step budget, range cache and recursion depth as a launch starts,
        written on the device by 2D memsets (one 32-bit column at a time, THR_SLOTS cells apart)."""
        pitch, n, cuda = L.THR_SLOTS * 8, self.nthreads, self.cuda

        def fill(slot: int, count: int, value: int) -> None:  # `count` i64 slots from `slot`, each `value`
            lo, hi = value & 0xFFFFFFFF, (value >> 32) & 0xFFFFFFFF
            if lo == hi:
                cuda.memset_d2d32(self.thr_dev + slot * 8, pitch, lo, 2 * count, n)
            else:
                for k in range(count):
                    cuda.memset_d2d32(self.thr_dev + (slot + k) * 8, pitch, lo, 1, n)
                    cuda.memset_d2d32(self.thr_dev + (slot + k) * 8 + 4, pitch, hi, 1, n)
        fill(L.T_STATUS, 1, L.ST_RUN)
        fill(L.T_STEPS, 1, steps)
        fill(L.T_CACHE_LO, L.T_DEPTH - L.T_CACHE_LO + 1, 0)  # the range cache and the depth (contiguous)

    def state_columns(self, start: int, width: int) -> np.ndarray:
        """Bytes [start, start+width) of every thread's state, by one 2D copy (pitch: a state record)."""
        rows = np.empty((self.nthreads, width), np.uint8)
        if width and self.nthreads:
            copy = self.cuda.Memcpy2D()
            copy.set_src_device(self.state_dev + start)
            copy.src_pitch = self.machine.state_bytes
            copy.set_dst_host(rows)
            copy.dst_pitch = copy.width_in_bytes = width
            copy.height = self.nthreads
            with self._device("reading the stacks"):
                copy(aligned=False)
            self._state_copy(start, width)[:] = rows
        return rows

    def set_state_columns(self, start: int, rows: np.ndarray) -> None:
        """Bytes [start, start+width) of every thread's state become `rows`, by one 2D copy."""
        rows = np.ascontiguousarray(rows, np.uint8)
        width = rows.shape[1]
        if width and self.nthreads:
            copy = self.cuda.Memcpy2D()
            copy.set_src_host(rows)
            copy.src_pitch = copy.width_in_bytes = width
            copy.set_dst_device(self.state_dev + start)
            copy.dst_pitch = self.machine.state_bytes
            copy.height = self.nthreads
            with self._device("writing the stacks"):
                copy(aligned=False)
            self._state_copy(start, width)[:] = rows

    def _state_copy(self, start: int, width: int) -> np.ndarray:
        """Those columns of the host's copy of the state buffer (kept for a lost context, when the
        buffer is small enough: SHADOW_MAX), or an empty array to write into."""
        rec = self._res.allocs.get(self.state_dev)
        if rec is None or rec.shadow is None:
            return np.empty((self.nthreads, width), np.uint8)
        return S.as_rows(rec.shadow[:S.buffer_bytes(self.nthreads, self.machine)], self.nthreads,
                         self.machine)[:, start:start + width]

    def get_state(self) -> np.ndarray:
        flat = self.read(self.state_dev, S.buffer_bytes(self.nthreads, self.machine))
        return S.as_rows(flat, self.nthreads, self.machine)

    def set_state(self, state: np.ndarray) -> None:
        self.write(self.state_dev, np.ascontiguousarray(state, np.uint8))

    def state_buffer(self) -> None:
        """None: the stacks live in device memory, so the host works on copies (StackState.live
        reads them with get_state and writes them back with set_state; the cpu backend hands
        over its buffer itself). The views read only what they show (state_columns)."""
        return None

    def free_memory(self) -> int | None:
        """Device memory free, with what this session's current shape (its state, records and the
        spare copy of the state) gives back when it changes."""
        try:
            with self._device("asking for free memory"):
                free = int(self.cuda.mem_get_info()[0])
        except ForthError:
            return None
        mine = S.buffer_bytes(self.nthreads, self.machine) + self.nthreads * L.THR_SLOTS * 8
        return free + mine + (self._spare[1] if self._spare else 0)

    def shape_bytes(self, threads: int, m: Machine) -> int:
        """A launch shape's memory: the thread records and two state buffers (its own and the device copy a
        line's snapshot makes)."""
        return threads * (2 * m.state_bytes + L.THR_SLOTS * 8)

    def take_stacks(self) -> "_DeviceStacks":
        """A copy of the state buffer in device memory (a device-to-device copy: nothing comes back)."""
        nbytes = S.buffer_bytes(self.nthreads, self.machine)
        addr = self._shadow(nbytes)
        with self._device("saving the stacks"):
            self.cuda.memcpy_dtod(addr, self.state_dev, max(nbytes, 1))
        return _DeviceStacks(self, addr, nbytes, self.nthreads, self.machine, self._primary.generation)

    def restore_stacks(self, snap: object) -> None:
        if not isinstance(snap, _DeviceStacks):
            raise TypeError(f"not a copy of this backend's stacks: {snap!r}")
        if snap.threads != self.nthreads or snap.machine != self.machine:
            raise ValueError(f"a snapshot of {snap.threads} threads restored into {self.nthreads}")
        if snap.generation != self._primary.generation:
            return  # the context was lost since, and its copy with it: the state is what the reset restored
        with self._device("restoring the stacks"):
            self.cuda.memcpy_dtod(self.state_dev, snap.addr, max(snap.nbytes, 1))

    def _shadow(self, nbytes: int) -> int:
        """Device memory for a copy of the stacks: the spare one when it is big enough (a line's copy
        comes back as the line ends), else a new one."""
        spare = self._spare
        if spare is not None and spare[1] >= nbytes:
            self._spare = None
            return spare[0]
        if spare is not None:
            self._spare = None
            self.free(spare[0])
        return self._raw(max(nbytes, 16), keep=False)

    def _return_shadow(self, addr: int, size: int) -> None:
        if self._res.closed or addr not in self._res.allocs:
            return
        if self._spare is None:
            self._spare = (addr, size)
        elif self._spare[1] < size:
            old, self._spare = self._spare, (addr, size)
            self.free(old[0])
        else:
            self.free(addr)

    def get_tiles(self) -> list:
        return []

    def set_tiles(self, tiles: list) -> None:
        pass

    def truncate_tiles(self, depth: int) -> None:
        pass

    def tiles_of(self, warp: int) -> list:
        return []

    # ---- compile and launch -----------------------------------------------------------
    def compile(self, module: "llvm.ModuleRef", kernel: str, suspends: bool, heavy: bool,
                shape: LaunchShape) -> CudaKernel:
        """The kernel of a line (tiers.py): tier 0 (O1 passes, NVPTX CHEAP_CODEGEN_OPT, the driver JIT at
        CHEAP_JIT_LEVEL) for straight lines, and for lines with loops (`heavy`) until their first reuse,
        when launch() starts their full PTX; with TILEFORTH_TIERS=full, loop lines at full at once."""
        full = heavy and not self.tiers
        kernel = canonical_names(module, kernel)  # the same line, the same PTX in every session (the disk cache)
        bitcode = module.as_bitcode() if heavy and not full else None  # module_to_ptx uses the module up
        handle = CudaKernel(module_to_ptx(module, self.jit_arch, heavy=full), kernel, suspends)
        handle.tier, handle.loops, handle.bitcode = (TIER_FULL if full else TIER_CHEAP), heavy, bitcode
        on = self._primary_of(self.current_device)
        with self._device("loading a kernel", on):
            self._load(handle)
            handle.on_generation = on.generation
            if handle.tier == TIER_CHEAP and shape.block_size > handle.max_threads and self._cheap_jit:
                handle.tier = TIER_FULL  # the cheap JIT's registers do not fit the block: the driver's default
                handle.loops = False
                self._load(handle)
        self.compiled_tiers[handle.tier] += 1
        self._check_block(handle, shape)
        return handle

    def _tier_up(self, handle: CudaKernel, shape: LaunchShape) -> None:
        """At a launch of a tier-0 loop kernel: its REUSED_AT-th launch starts its full PTX (on a thread);
        the first launch after that is ready loads it (the driver's JIT at its default level)."""
        rc = handle.recompile
        if rc is None:
            if handle.launches >= REUSED_AT and handle.bitcode is not None:
                handle.recompile = _FullPtx(handle.bitcode, self.jit_arch)
                self._recompiles = {r for r in self._recompiles if not r.done}
                self._recompiles.add(handle.recompile)
            return
        if not rc.done:
            return
        handle.recompile = None
        handle.bitcode = None
        handle.loops = False
        if rc.ptx is None:  # the compile failed: tier 0 stays (correct, only slower)
            return
        old = (handle.ptx, handle.module, handle.fn)
        handle.ptx, handle.tier = rc.ptx, TIER_FULL
        try:
            self._load(handle)
            if shape.block_size > handle.max_threads:
                raise ForthError("the full tier's registers do not fit the block")
        except Exception:  # noqa: BLE001 - the full tier did not load or fit: tier 0 stays
            handle.ptx, handle.module, handle.fn = old
            handle.tier = TIER_CHEAP
            self._load(handle)
            return
        self.recompiled += 1

    def wait_recompiles(self, timeout: float | None = None) -> bool:
        """Wait for the full-tier compiles under way (tests: a condition, not a sleep); True when none is left."""
        for rc in list(self._recompiles):
            rc.thread.join(timeout)
        return all(rc.done for rc in self._recompiles)

    def _load(self, handle: CudaKernel) -> None:
        """Load the kernel into the current context (again after a reset): its cubin from the disk cache
        when there is one (cubincache.py), else its PTX through the driver's JIT, at CHEAP_JIT_LEVEL for a
        tier-0 kernel (and the cubin made for the cache on the cache's thread)."""
        cuda, FA = self.cuda, self.cuda.function_attribute
        logs: list[str] = []
        cheap = self._cheap_jit if handle.tier == TIER_CHEAP else []
        key, opt = self._cubin_key(handle.ptx, bool(cheap))
        cache = self.cubins
        entry = cache.get(key) if key is not None and cache is not None else None
        refused = False
        if entry is not None:
            try:
                handle.module = cuda.module_from_buffer(entry.cubin)
                logs.append(entry.log)
                self.cubin_loads += 1
            except cuda.Error:  # a cubin the driver does not take (or a context in trouble): the PTX then
                refused, entry = True, None
        if entry is None:
            def load(options: list):
                return cuda.module_from_buffer(handle.ptx.encode(), options=options,
                                               message_handler=lambda ok, info, err: logs.extend((info, err)))
            try:
                handle.module = load(self._jit_options + cheap)
            except TypeError:  # this PyCUDA does not take JIT options: load without them (frames estimated)
                if not (self._jit_options or cheap):
                    raise
                self._jit_options = self._cheap_jit = []
                handle.module = load([])
            self.jit_loads += 1
            if refused and cache is not None and key is not None:
                # the PTX loaded where its cubin did not: this driver refuses what this ptxas makes (a newer
                # toolkit's cubin on an older driver), so the entry goes and the cache is off for the session
                cache.drop(key)
                self.cubins = None
            elif key is not None and self._cubin_writer is not None and cache is not None and not cache.unwritable:
                # (a folder it cannot write: no ptxas run for nothing; reading it still serves)
                ptx, arch = handle.ptx, self.jit_arch
                self._cubin_writer.submit(key, lambda: cubincache.Entry(*assemble_logged(ptx, arch, opt)))
        handle.fn = handle.module.get_function(handle.name)
        handle.fn.prepare("PP")
        handle.generation = self._primary.generation
        handle.regs = handle.fn.get_attribute(FA.NUM_REGS)
        handle.max_threads = handle.fn.get_attribute(FA.MAX_THREADS_PER_BLOCK)
        handle.dynamic_shared = handle.fn.get_attribute(FA.MAX_DYNAMIC_SHARED_SIZE_BYTES)
        log = "\n".join(x for x in logs if x)
        handle.frames = stack_frames(log)
        handle.stack_base, handle.stack_level, handle.depth = stack_plan(
            handle.name, handle.ptx, log, handle.fn.get_attribute(FA.LOCAL_SIZE_BYTES), self.caps.recursion_max)

    def _check_block(self, handle: CudaKernel, shape: LaunchShape) -> None:
        bs = shape.block_size
        if bs > handle.max_threads:
            x, y, z = shape.block
            raise ForthError(f"this line's kernel uses {handle.regs} registers per thread, so a block can have at "
                             f"most {handle.max_threads} threads on this GPU ({self.arch}), but THREADS is {x} {y} {z} "
                             f"({bs} threads): use fewer THREADS, e.g. `{handle.max_threads} 1 1 THREADS`")

    def _ensure_stack(self, handle: CudaKernel) -> None:
        """STACK_SIZE for a recursive kernel; where the device's memory cannot reserve it, fewer levels.
        The limit belongs to the context (other libraries may have raised it): read, never lowered."""
        cuda = self.cuda
        if not handle.stack_level:
            return
        have = cuda.Context.get_limit(cuda.limit.STACK_SIZE)
        while (need := handle.stack_base + (handle.depth + 2) * handle.stack_level) > have:
            try:
                cuda.Context.set_limit(cuda.limit.STACK_SIZE, need)
                return
            except cuda.MemoryError:
                if handle.depth <= 8:
                    raise ForthError(f"recursive words need {need} bytes of stack per thread here, more than the "
                                     "GPU's memory can reserve for every thread it holds") from None
                handle.depth //= 2

    def launch(self, handle: CudaKernel, shape: LaunchShape, base_addr: int, shared_bytes: int, steps: int,
               sites: object = None, lits: Sequence[int] = ()) -> LaunchResult:
        if shape is not self.shape and shape != self.shape:
            raise ValueError(f"launch over {shape}, but the stacks are {self.shape}'s: set_shape first")
        self._check_block(handle, shape)
        if shared_bytes > self.caps.shared_bytes:
            raise ForthError(f"{shared_bytes} bytes of shared memory do not fit: a block has at most "
                             f"{self.caps.shared_bytes} on this GPU")
        cuda, res = self.cuda, self._res
        self._check_devices(handle, lits)
        on = self._primary_of(self.current_device)  # the device the launch runs on: its context (DEVICE)
        with self._device("running the line"), self._device("running the line", on):
            if handle.generation != self._primary.generation or handle.on_generation != on.generation:
                self._load(handle)
                handle.on_generation = on.generation
            handle.launches += 1
            if handle.loops and handle.tier == TIER_CHEAP:
                self._tier_up(handle, shape)
            here = self.current_device if self._others else None  # the table: without other devices' arrays
            if res.table_dirty or res.table.version != self._table_version or here != self._table_device:
                table = self._launch_table() if here is not None else np.ascontiguousarray(res.table.rows)
                if len(table) > self._table_cap:  # a bigger table on the device
                    cap = max(2 * self._table_cap, len(table))
                    self.free(self.table_dev)
                    self.table_dev, self._table_cap = self._raw(cap * 16, keep=False), cap
                if len(table):
                    cuda.memcpy_htod(self.table_dev, table)
                self._n_allocs = len(table)
                res.table_dirty, self._table_version, self._table_device = False, res.table.version, here
            self._ensure_stack(handle)
            ctx = fill_context(self.ctx_host, allocs=self.table_dev, n_allocs=self._n_allocs, out=self.out_dev,
                               out_cap=self.machine.out_cap, base_addr=base_addr, abort=res.abort_dev,
                               shared_size=shared_bytes, recursion_max=handle.depth, steps=steps)
            if lits:  # the literal table follows the context (and a thread record): one copy
                ctx[_LITS_AT:_LITS_AT + len(lits)] = lits
            bases = self.target.addresses.bases if self.target.addresses else []  # then the session's addresses the code reads (addresses.py)
            if bases:
                ctx[_ADDRS_AT:_ADDRS_AT + len(bases)] = bases
            ctx[L.CTX_LITS] = int(self.ctx_dev) + _LITS_AT * 8
            cuda.memcpy_htod(self.ctx_dev, ctx)
            if self._records_generation != self._primary.generation:
                self._upload_records()
            self._reset_records(steps)
            if shared_bytes > handle.dynamic_shared:
                handle.fn.set_attribute(cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, shared_bytes)
                handle.dynamic_shared = shared_bytes
            handle.fn.prepared_call(shape.grid, shape.block, self.ctx_dev, self.thr_dev, shared_size=shared_bytes)
            cuda.Context.synchronize()  # the primary context, current here
            cuda.memcpy_dtoh(ctx, self.ctx_dev)
            n_out = int(ctx[L.CTX_OUT_LEN])
            out = np.empty((min(n_out, self.machine.out_cap), L.OUT_SLOTS), np.int64)
            if len(out):
                cuda.memcpy_dtoh(out, self.out_dev)
        return LaunchResult(error=tuple(int(x) for x in ctx[:5]), output=out,
                            output_dropped=max(0, n_out - self.machine.out_cap))

    def reset_abort(self) -> None:
        if self._res.abort_host is not None:
            self._res.abort_host[0] = 0

    def aborted(self) -> bool:
        return self._res.abort_host is not None and bool(self._res.abort_host[0])

    def abort(self) -> None:
        """Ctrl-C: set the abort flag that loop back-edges poll (mapped host memory)."""
        if self._res.abort_host is not None:
            self._res.abort_host[0] = 1
