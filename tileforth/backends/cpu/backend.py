"""The cpu backend: device memory is host memory, kernels are JIT-compiled by
llvmlite (MCJIT) and run by the scheduler, one OS thread, deterministically."""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import resource
import threading
import weakref
from typing import TYPE_CHECKING, Sequence

import llvmlite.binding as llvm
import numpy as np
from tileforth.core.alloctable import AllocTable
from tileforth.core.buffers import zeroed
from tileforth.core.compile import layout as L
from tileforth.core.compile.machine import DEFAULT as DEFAULT_MACHINE
from tileforth.core.compile.machine import Machine
from tileforth.core.compile import state as S
from tileforth.core.compile.codegen import HELPERS
from tileforth.core.compile.heapgen import HEAP_ALLOCATE, HEAP_FREE, HEAP_THROW
from tileforth.core.compile.target import (
    HELPERS_IR,
    OPTIN_SHARED_BYTES,
    Backend,
    Capabilities,
    LaunchResult,
    LaunchShape,
    fill_context,
)
from tileforth.core.errors import ForthError
from tileforth.core.heldsigint import guard_llvm_lock, held
from tileforth.core.compile.addresses import ADDRS_MAX, AddressTable
from tileforth.core.compile.progress import LaunchProgress
from tileforth.core.compile.tiers import REUSED_AT, TIER_CHEAP, TIER_FULL, tiered
from tileforth.core.front.linekey import LITS_MAX

from .asynccopy import AsyncCopies
from .asynccopy import helper_ir as async_ir
from .asynccopy import helper_ir_key as async_ir_key
from .heldstacks import Held, Piece, stage_out
from .races import HEADER, Races
from .races import helpers_ir as races_ir
from .races import helpers_ir_key as races_ir_key
from .scheduler import RUN_DIVERGENT, RUN_ERROR, RUN_OK, RUN_WARP, SCHEDULER_IR, STEP_IR, WARP_OPS_IR
from .target import CpuTarget
from .warpops import WarpOps, gathered_chunks, gathers, run_together

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from tileforth.core.compile.codegen import Sites

_initialized = False


def _init_llvm() -> None:
    global _initialized
    if _initialized:
        return
    guard_llvm_lock()  # (a Ctrl-C inside llvmlite's lock: heldsigint.py)
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    for lib, soname in (("m", "libm.so.6"), ("gcc_s", "libgcc_s.so.1")):  # sinf/expf; 128-bit division
        try:  # glibc's names: no ldconfig run (ctypes.util.find_library costs ~15 ms at start-up)
            llvm.load_library_permanently(soname)
        except RuntimeError:
            import ctypes.util
            path = ctypes.util.find_library(lib)
            if path:
                llvm.load_library_permanently(path)
    _initialized = True


ENGINE_KERNELS = 256  # kernels one JIT engine takes before the backend starts another
ALIGN = 256

_PLAIN = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
_BLOCK = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                          ctypes.c_int64)
_CONT = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
_FREE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64)
_RACE_MANY = ctypes.CFUNCTYPE(ctypes.c_int64, *[ctypes.c_void_p] * 8, *[ctypes.c_int64] * 4)
_WARP_OPS = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p)
_STEP = ctypes.CFUNCTYPE(ctypes.c_int64, *[ctypes.c_void_p] * 3, ctypes.c_int64, *[ctypes.c_void_p] * 2,
                         *[ctypes.c_int64] * 3, *[ctypes.c_void_p] * 2)

_HEAP = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                         ctypes.c_int64, ctypes.c_void_p)
_heap_owners: dict[int, "weakref.ref[CpuBackend]"] = {}  # a backend's context record's address -> the backend


def _tf_heap(ctx: int, thr: int, op: int, a: int, b: int, out: int) -> int:
    """The runtime helper tf_heap (compile/heapgen.py): ALLOCATE FREE RESIZE of device code, a native
    call into the backend whose context record the launch runs with. Never raises (a ctypes callback
    cannot): 0, or the exception code the thread ends with."""
    try:
        ref = _heap_owners.get(ctx or 0)
        be = ref() if ref is not None else None
        if be is None or be.heap is None or threading.current_thread().name.startswith(POOL_PREFIX):
            return HEAP_THROW  # a worker's copy of the context: blocks run on several cores
        return be._heap_op(ctx, op, a, b, out)
    except KeyboardInterrupt:
        return -28  # user interrupt
    except Exception:  # noqa: BLE001  (a bug: the launch ends with the code, never a crash)
        return HEAP_THROW


_HEAP_FN = _HEAP(_tf_heap)  # kept for the process: the JIT-ed code holds its address
POOL_PREFIX = "tileforth-block"  # the worker threads of a launch's blocks (_pool)
PROGRESS_THREADS = 16384  # a plain kernel's blocks run in native calls of about this many threads, counted between

_this_thread = threading.local()


def _stack_budget() -> int:
    """native_stack_budget of the calling thread, computed once per thread
    (pthread_getattr_np reads /proc/self/maps for the main thread: too slow
    for every launch); kept with the thread, so a later thread that gets the
    same id measures its own stack."""
    budget = getattr(_this_thread, "stack_budget", None)
    if budget is None:
        budget = _this_thread.stack_budget = native_stack_budget()
    return budget


def native_stack_budget() -> int:
    """Bytes of native stack that recursion in a launch may use: half the
    stack of the thread that runs the launch (the REPL runs lines in a worker
    thread), at most 4 MiB, leaving the rest to the caller's Python frames and
    to the frame that crosses the limit. The size is the thread's own
    (pthread_getattr_np); where that is unknown, RLIMIT_STACK, or 1 MiB."""
    size = _thread_stack_size()
    if not size:
        soft = resource.getrlimit(resource.RLIMIT_STACK)[0]
        size = soft if 0 < soft != resource.RLIM_INFINITY else 1 << 20
    return min(size // 2, 4 << 20)


def _thread_stack_size() -> int:
    try:
        libc = ctypes.CDLL(None)
        libc.pthread_self.restype = ctypes.c_ulong
        attr = ctypes.create_string_buffer(256)  # pthread_attr_t: 56 or 64 bytes
        if libc.pthread_getattr_np(ctypes.c_ulong(libc.pthread_self()), attr) != 0:
            return 0
        addr, size = ctypes.c_void_p(), ctypes.c_size_t()
        ok = libc.pthread_attr_getstack(attr, ctypes.byref(addr), ctypes.byref(size)) == 0
        libc.pthread_attr_destroy(attr)
        return size.value if ok else 0
    except (OSError, AttributeError):
        return 0


# a launch shape's thread records of this size or more are mapped at once (buffers.zeroed's populate:
# 288 MiB of records at 1M threads, filled, 0.34 s page by page against 0.15 s)
PREFAULT_BYTES = 16 << 20
POPULATE_MAX = 512 << 20  # bigger thread records fault page by page, chunk by chunk (interruptible)
FILL_PIECE_BYTES = 1 << 20  # thread records filled this much at a time (in the cache; Ctrl-C lands between pieces)
SHAPE_CACHE_BYTES = 256 << 20  # state buffers and thread records kept for launch shapes used before
WAIT_POLL_S = 0.05  # how often the main thread, waiting for a launch's workers, looks for a held Ctrl-C
PARALLEL_THREADS = 512  # a launch of fewer threads runs its blocks one after another (a pool costs ~0.1 ms)
# a launch shape whose stack state (a record per thread) would take more than this keeps its stacks lazily
# (heldstacks.py: the depths of every thread, cells only for the threads that hold items), and runs its
# threads in chunks over a scratch region of CHUNK_STATE_BYTES of records per worker
LAZY_STATE_BYTES = 256 << 20
CHUNK_STATE_BYTES = 32 << 20
HELD_CHECKED_BYTES = 64 << 20  # stacks a lazy launch leaves that take more are checked against free memory


def _workers() -> int:
    """Threads that run a launch's blocks: TILEFORTH_WORKERS, or the cores this process may use."""
    env = os.environ.get("TILEFORTH_WORKERS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


class _Engine:
    """An MCJIT engine of one code-generation level. MCJIT frees a kernel's
    machine code only with its engine, so an engine takes ENGINE_KERNELS
    kernels, then the backend starts a new one; a full engine is closed when
    the last of its kernels is released."""

    def __init__(self, opt: int) -> None:
        self.opt = opt
        self.tm = _target_machine(opt)
        with held():  # (llvmlite hands the module and the target machine over in C, then marks them owned)
            self.ee = llvm.create_mcjit_compiler(llvm.parse_assembly(""), self.tm)
        self.compiled = 0  # kernels added
        self.live = 0  # kernels not released yet
        self.permanent = False  # holds the scheduler: never closed

    @property
    def full(self) -> bool:
        return self.compiled >= ENGINE_KERNELS


class CpuKernel:
    def __init__(self, addr: int, suspends: bool, name: str) -> None:
        self.addr = addr
        self.suspends = suspends
        self.name = name
        self.module: llvm.ModuleRef | None = None  # None once the code is an object file (the optimised tier)
        self.engine: _Engine | None = None
        self.tier = TIER_FULL  # tiers.py: TIER_CHEAP, or TIER_FULL
        self.loops = False  # a loop kernel: recompiled at full optimisation when launched again
        self.launches = 0
        self.recompile: _Recompile | None = None  # the optimised compile under way


class _Recompile:
    """A tier-0 loop kernel compiled again at full optimisation on a thread of its own: its IR as
    bitcode (taken on the launching thread), optimised and turned into an object file in an LLVM
    context of its own. llvmlite runs one LLVM call at a time in the process (its FFI lock), so the
    thread never races the session's compiles; it only makes one of them wait for the LLVM call
    running then. `obj` is the object file, or None when the compile failed (the kernel stays at
    tier 0)."""

    def __init__(self, bitcode: bytes, tm) -> None:
        self.obj: bytes | None = None
        self.error: BaseException | None = None
        self.cancelled = False
        self.thread = threading.Thread(target=self._run, args=(bitcode, tm), name="tileforth-recompile")
        self.thread.start()

    def _run(self, bitcode: bytes, tm) -> None:
        try:
            if self.cancelled:
                return
            ctx = llvm.create_context()
            mod = llvm.parse_bitcode(bitcode, context=ctx)
            if self.cancelled:
                return
            _optimize_full(mod, tm)
            if self.cancelled:
                return
            self.obj = tm.emit_object(mod)
            mod.close()
        except BaseException as exc:  # noqa: BLE001 - kept: the kernel keeps its tier-0 code
            self.error = exc

    @property
    def done(self) -> bool:
        return not self.thread.is_alive()


def _optimize_full(mod: llvm.ModuleRef, tm) -> None:
    """The full tier's IR passes (O2), as loop kernels compiled at once get them."""
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
    pb.getModulePassManager().run(mod, pb)


class _Runtime:
    """What every cpu session of the process shares: the JIT engines that
    kernels go to (they are named uniquely, so sessions can share them), the
    SIMT scheduler compiled once (in an engine of its own), and a lock, since
    MCJIT must not add or remove modules from two threads at once.

    All of it is made on first use (a session that never launches a kernel
    pays for none of it): an engine when the first kernel of its level is
    compiled, the scheduler (with the race detector's helper tf_race, which
    kernels only declare) before the first kernel is added to an engine. The
    scheduler's machine code is kept on disk (_ObjectCache), so a new
    process loads it instead of optimising and compiling it again."""

    def __init__(self) -> None:
        self.lock = threading.RLock()

    @functools.cached_property
    def fast(self) -> _Engine:
        with self.lock:
            _init_llvm()
            return _Engine(0)

    @functools.cached_property
    def heavy(self) -> _Engine:
        with self.lock:
            _init_llvm()
            return _Engine(2)

    @functools.cached_property
    def words(self) -> _Engine:
        """The engine of the words compiled on their own (CpuBackend.compile_word): never closed,
        since kernels of any engine call into it."""
        with self.lock:
            _init_llvm()
            eng = _Engine(2)
            eng.permanent = True
            return eng

    @functools.cached_property
    def recompile_tm(self):
        """The target machine of the optimised compiles on threads (CpuBackend._tier_up): one of their own,
        since an engine's goes when the engine closes, which a compile under way must not see."""
        with self.lock:
            _init_llvm()
            return _target_machine(2)

    @functools.cached_property
    def target_data(self) -> str:
        """The data layout of the JIT's target machine (what CpuTarget needs), without an engine."""
        _init_llvm()
        return str(_target_machine(0).target_data)

    @functools.cached_property
    def sched(self) -> _Engine:
        """The scheduler's engine; its entry points are this runtime's run_plain, run_block,
        continue_block and free_frames, and tf_race is in the symbol table from now on."""
        with self.lock:
            if "sched" in self.__dict__:  # made by another thread while this one waited
                return self.__dict__["sched"]
            _init_llvm()
            sched = _Engine(2)
            sched.permanent = True
            # the runtime helpers (HELPERS_IR) and the race detector's tf_race too: compiled once, optimised,
            # and called by every kernel through the symbol table (kernels only declare them: CpuTarget's
            # links_helpers is False)
            head = f'target triple = "{llvm.get_process_triple()}"\n'
            ir_text = head + SCHEDULER_IR + STEP_IR + WARP_OPS_IR + HELPERS_IR
            cache = _ObjectCache(ir_text + races_ir_key().hex() + async_ir_key().hex(), sched.tm)
            if cache.data is None:  # not on disk: optimise it here (the object on disk is the optimised one)
                mod = llvm.parse_assembly(ir_text + races_ir() + "\n" + async_ir())
                pb = llvm.create_pass_builder(sched.tm, llvm.create_pipeline_tuning_options(speed_level=3))
                pb.getModulePassManager().run(mod, pb)
            else:  # MCJIT asks the cache before it compiles a module: an empty one loads the object from disk
                mod = llvm.parse_assembly(head)
            sched.ee.set_object_cache(cache.notify, cache.getbuffer)
            with held():
                sched.ee.add_module(mod)
            sched.ee.finalize_object()
            ee = sched.ee
            self.run_plain = _PLAIN(ee.get_function_address("tf_run_plain"))
            self.run_block = _BLOCK(ee.get_function_address("tf_run_block"))
            self.continue_block = _CONT(ee.get_function_address("tf_continue_block"))
            self.free_frames = _FREE(ee.get_function_address("tf_free_frames"))
            self.step_blocks = _STEP(ee.get_function_address("tf_step_blocks"))
            self.race_many = _RACE_MANY(ee.get_function_address("tf_race_many"))  # tile loads and stores
            self.warp_ops = _WARP_OPS(ee.get_function_address("tf_warp_ops"))  # a launch step's tile op
            for helper in HELPERS:  # tf_fail, tf_poll, tf_addr_scan, tf_out, tf_race, tf_async_check
                if helper != "tf_heap":
                    llvm.add_symbol(helper, ee.get_function_address(helper))
            llvm.add_symbol("tf_heap", ctypes.cast(_HEAP_FN, ctypes.c_void_p).value)  # device code's ALLOCATE
            self.__dict__["sched"] = sched
            return sched

    def __getattr__(self, name: str):
        """run_plain, run_block, continue_block, free_frames, step_blocks, race_many, warp_ops: the
        scheduler's, made on first use."""
        if name in ("run_plain", "run_block", "continue_block", "free_frames", "step_blocks", "race_many",
                    "warp_ops"):
            self.sched  # noqa: B018  (sets them)
            return self.__dict__[name]
        raise AttributeError(name)


def _target_machine(opt: int):
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
                                        opt=opt, jit=True)


def cache_dir() -> str | None:
    """Where the scheduler's machine code is kept between processes: $TILEFORTH_CACHE_DIR, else
    $XDG_CACHE_HOME/tileforth (~/.cache/tileforth); TILEFORTH_CACHE_DIR=off keeps nothing."""
    env = os.environ.get("TILEFORTH_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in ("", "0", "off", "no", "none") else env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tileforth")


class _ObjectCache:
    """MCJIT's object cache for the scheduler's module: the object file is named by a hash of
    `text` (the IR, or what the IR is built from), the host CPU and its features and the LLVM
    version, and starts with the SHA-256 of the rest, so a stale, foreign or truncated file is
    never loaded (it is compiled again and rewritten). Reading or writing the cache never fails
    a session."""

    def __init__(self, text: str, tm) -> None:
        key = hashlib.sha256("\0".join((text, llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten(),
                                         ".".join(map(str, llvm.llvm_version_info)), str(tm.target_data)))
                             .encode()).hexdigest()[:32]
        folder = cache_dir()
        self.path = os.path.join(folder, f"scheduler-{key}.o") if folder else None
        self.data = self._read()

    def _read(self) -> bytes | None:
        if self.path is None:
            return None
        try:
            with open(self.path, "rb") as fh:
                blob = fh.read()
        except OSError:
            return None
        digest, data = blob[:32], blob[32:]
        return data if data and hashlib.sha256(data).digest() == digest else None

    def getbuffer(self, module) -> bytes | None:
        return self.data

    def notify(self, module, data: bytes) -> None:
        if self.path is None or self.data is not None:
            return
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            tmp = f"{self.path}.{os.getpid()}.{threading.get_ident()}.tmp"
            with open(tmp, "wb") as fh:
                fh.write(hashlib.sha256(data).digest() + data)
            os.replace(tmp, self.path)  # atomic: another process reads the old file or the new one
        except OSError:
            pass


def _size(nbytes: int) -> str:
    """A size in MiB, or KiB below one MiB."""
    return f"{nbytes >> 20:,} MiB" if nbytes >= 1 << 20 else f"{nbytes >> 10:,} KiB"


def _address(a: np.ndarray) -> int:
    """Where an array's data is (what a.ctypes.data says, at half its cost)."""
    return a.__array_interface__["data"][0]


@functools.cache
def runtime() -> _Runtime:
    return _Runtime()


class CpuBackend(Backend):
    name = "cpu"
    # the emulator runs every thread: 16M threads (a 4096x4096 grid of one thread per element) already take
    # minutes, so more is refused at GRID/THREADS rather than left to run (or to fill the memory) for hours
    # shared memory: what an H100/H200 block may opt in to (its region is made at the size a launch uses)
    caps = Capabilities(host_memory=True, races=True, element_types=True, access_trace=True, device_heap=True,
                        max_threads=1 << 24, lazy_stacks=True, shared_bytes=OPTIN_SHARED_BYTES)
    discarded = False  # discard(): its members are gone, the session that held it closed

    def __init__(self, machine: Machine = DEFAULT_MACHINE) -> None:
        self.machine = machine  # the session's settings: the float type, the stacks' and the output's capacities
        self.rt = runtime()  # its engines and scheduler are made when the first kernel is compiled
        self.target = CpuTarget(llvm.get_process_triple(), self.rt.target_data, machine)
        self.target.compile_word = self.compile_word
        self._buffers: dict[int, np.ndarray] = {}
        self._sizes: dict[int, int] = {}
        self._headers: dict[int, np.ndarray] = {}
        self._user: dict[int, int] = {}  # the user allocations (ARRAY, ALLOCATE, data space...): base -> bytes
        self.elem_types: dict[int, np.dtype] = {}  # allocation base -> element type (ARRAY, MATRIX, f.kernel arrays)
        self.races = Races()  # the race detector's shadows (on in checked launches: Forth sets races.on)
        self.asyncs = AsyncCopies(self)  # the cp.async model (asynccopy.py): copies in flight per launch
        self.trace_cap = 0  # records of the memory-access trace a launch keeps (0: no trace; PROFILE sets it)
        self.trace = np.zeros((0, 4), np.int64)  # the last traced launch's records (races.py: the layout)
        self.trace_dropped = 0
        self.ctx = np.zeros(L.CTX_SLOTS, np.int64)
        # the launch's literal table (ctx[CTX_LITS]), and the session's addresses after it when use_address_table
        self.lits = np.zeros(LITS_MAX + ADDRS_MAX, np.int64)
        _heap_owners[self.ctx.ctypes.data] = weakref.ref(self)  # tf_heap finds the backend by its context
        self.abort_flag = np.zeros(1, np.int64)
        self.out = zeroed((self.machine.out_cap, L.OUT_SLOTS), np.int64)
        self._table = AllocTable()  # the user allocations (kernels' range checks read it in place)
        self._all = AllocTable()  # every allocation, the host's own too (read and write find them)
        self.shared_addr = 0
        self.shared_size = 0
        self.launch_serial = 0  # launches so far
        self._shared_of: dict[int, int] = {}  # worker -> its shared region (workers 1 up)
        self.clock = np.zeros(1, np.int64)  # the race detector's fence clock (one for all workers)
        # the warp ops of a launch step, one worker at a time while races are checked (WarpOps.run_blocks):
        # a tile store's check and its write must be one (a store of the bits memory holds is no race), and
        # a step the batched check gives back to the warp-by-warp path leaves shadows no other worker may see
        self.warp_steps = threading.Lock()
        self.workers = _workers()  # blocks of a launch run on this many threads (1: one after another)
        self.progress = LaunchProgress()  # the blocks done of the launch under way (a progress display reads it)
        self._shapes: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # (grid, block) -> (state, thr), LRU
        self.lazy_bytes = LAZY_STATE_BYTES  # (tests lower these two to run small shapes the lazy way)
        self.chunk_bytes = CHUNK_STATE_BYTES
        self.held_checked = HELD_CHECKED_BYTES
        self.held: Held | None = None  # the stacks of a lazy launch shape (None: they are self.state)
        self._scratch: dict[int, np.ndarray] = {}  # worker -> the records a lazy launch's chunks run in
        self._pieces: dict[int, Piece] = {}  # what the chunks of the lazy launch under way left (launch())
        self._executor: ThreadPoolExecutor | None = None
        self.tiers = tiered()  # tiers.py: loop kernels start at tier 0 (False: TILEFORTH_TIERS=full)
        self.compiled_tiers = {TIER_CHEAP: 0, TIER_FULL: 0}  # kernels compiled at each tier
        self.recompiled = 0  # tier-0 kernels swapped for their optimised code
        self._recompiles: set[_Recompile] = set()  # optimised compiles under way
        self.set_shape(LaunchShape())

    # ---- compilation ----------------------------------------------------
    fast = property(lambda self: self.rt.fast, doc="the engine new straight-line kernels go to")
    heavy = property(lambda self: self.rt.heavy, doc="the engine new optimised kernels go to")

    def _optimize(self, mod: llvm.ModuleRef, level: int, coroutines: bool) -> None:
        if level == 0 and not coroutines:  # tier 0 is not optimised (its module holds only the line and
            return  # the words it calls: the helpers are the scheduler's, CpuTarget.links_helpers)
        if level >= 2:
            _optimize_full(mod, self.heavy.tm)
            return
        pb = llvm.create_pass_builder(self.fast.tm, llvm.create_pipeline_tuning_options(speed_level=1))
        pb.getModulePassManager().run(mod, pb)  # a coroutine needs its passes (CoroSplit) to run at all

    def compile(self, module: llvm.ModuleRef, kernel: str, suspends: bool, heavy: bool,
                shape: LaunchShape) -> CpuKernel:
        """The kernel of a line (tiers.py): tier 0 (no IR passes, codegen opt 0; O1 for a coroutine) for
        straight lines, and for lines with loops (`heavy`) until their first reuse, when launch() starts
        their full compile (O2, codegen opt 2); with TILEFORTH_TIERS=full, loop lines at full at once."""
        mod = module
        try:
            mod.verify()
        except RuntimeError as exc:  # a compiler bug, not a user error
            raise ForthError(f"internal compiler error (invalid IR): {exc}") from exc
        full = heavy and not self.tiers
        self._optimize(mod, 2 if full else 0, suspends)
        with self.rt.lock:
            self.rt.sched  # noqa: B018  (the scheduler, and tf_race in the symbol table, before the first kernel)
            eng = self._engine(full)
            with held():  # Ctrl-C between llvmlite's C call and its marking the module owned: a double dispose
                eng.ee.add_module(mod)
            eng.ee.finalize_object()
            eng.compiled += 1
            eng.live += 1
            addr = eng.ee.get_function_address(kernel)
        handle = CpuKernel(addr, suspends, kernel)
        handle.module, handle.engine = mod, eng
        handle.tier, handle.loops = (TIER_FULL if full else TIER_CHEAP), heavy
        self.compiled_tiers[handle.tier] += 1
        return handle

    def _tier_up(self, handle: CpuKernel) -> None:
        """At a launch of a tier-0 loop kernel: its REUSED_AT-th launch starts the optimised compile
        (on a thread); the first launch after that compile is done runs the optimised code."""
        rc = handle.recompile
        if rc is None:
            if handle.launches >= REUSED_AT and handle.module is not None:
                with self.rt.lock:
                    bitcode = handle.module.as_bitcode()
                    tm = self.rt.recompile_tm
                handle.recompile = rc = _Recompile(bitcode, tm)
                self._recompiles = {r for r in self._recompiles if not r.done}  # (the set is for close())
                self._recompiles.add(rc)
            return
        if not rc.done:
            return
        handle.recompile = None
        if rc.obj is None:  # the compile failed: tier 0 stays (correct, only slower)
            handle.loops = False
            return
        with self.rt.lock:
            eng = self._engine(True)
            eng.ee.add_object_file(llvm.ObjectFileRef.from_data(rc.obj))
            eng.ee.finalize_object()
            eng.compiled += 1
            eng.live += 1
            addr = eng.ee.get_function_address(handle.name)
        self.release(handle)  # the tier-0 code leaves its engine
        handle.addr, handle.engine, handle.module, handle.tier = addr, eng, None, TIER_FULL
        self.recompiled += 1

    def wait_recompiles(self, timeout: float | None = None) -> bool:
        """Wait for the optimised compiles under way (tests: a condition, not a sleep); True when none is left."""
        for rc in list(self._recompiles):
            rc.thread.join(timeout)
        return all(rc.done for rc in self._recompiles)

    def close(self) -> None:
        """The optimised compiles under way are cancelled where they have not started their LLVM work,
        and joined (each ends within one LLVM call); the worker threads of the launches' blocks end
        (no launch runs at close: they are idle). A later launch starts a new pool."""
        if self.discarded:
            return
        for rc in list(self._recompiles):
            rc.cancelled = True
        for rc in list(self._recompiles):
            rc.thread.join()
        self._recompiles.clear()
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)

    def discard(self) -> None:
        """close(), and its buffers (stacks, thread records, data space, arrays, shadows) let go of now:
        the backend is in reference cycles (its target's compile_word, its cp.async model), which only
        a garbage collection would free. It is not used again (its every member is gone)."""
        if self.discarded:
            return
        self.close()
        _heap_owners.pop(self.ctx.ctypes.data, None)
        self.__dict__.clear()
        self.discarded = True  # close() and discard() again do nothing

    def compile_word(self, module: llvm.ModuleRef, name: str) -> None:
        """A big word compiled once (Target.compile_word): optimised, added to the process's engine
        for words (never closed: kernels of any engine call into it), its symbol made known."""
        try:
            module.verify()
        except RuntimeError as exc:  # a compiler bug, not a user error
            raise ForthError(f"internal compiler error (invalid IR): {exc}") from exc
        self.rt.sched  # noqa: B018  (LLVM initialised; tf_race in the symbol table before the word is linked)
        eng = self.rt.words
        # No IR passes, only the engine's code generation (at its level 2): the IR of a word is already in
        # registers but for its loop counters, and a big word's code runs as fast as after O1 or O2
        # (benchmarks/compile_scaling.py's words) while compiling 3x faster (2000 words: 0.33 s against
        # O1's 0.95 s) and close to linearly (O1's loop and instcombine passes grow faster than the word:
        # 2.6 s at 4000 words). Promoting the loop counters alone (SROA) makes the code generator's time
        # explode on such words (4.5 s at 2000 words), so nothing is half-optimised either.
        with self.rt.lock:
            with held():
                eng.ee.add_module(module)
            eng.ee.finalize_object()
            llvm.add_symbol(name, eng.ee.get_function_address(name))

    def _engine(self, heavy: bool) -> _Engine:
        """The engine new kernels of this level go to (a fresh one when it is full)."""
        eng = self.heavy if heavy else self.fast
        if eng.full:
            eng = _Engine(eng.opt)
            if heavy:
                self.rt.heavy = eng
            else:
                self.rt.fast = eng
        return eng

    def release(self, handle: CpuKernel) -> None:
        """Forget a compiled kernel: its module leaves the JIT (the object file of an optimised tier
        stays until its engine closes); a full engine whose kernels are all released is closed, which
        frees their code."""
        eng = handle.engine
        if handle.recompile is not None:  # its optimised compile is not wanted any more
            handle.recompile.cancelled = True
            handle.recompile = None
        with self.rt.lock:
            if handle.module is not None:
                with held():
                    eng.ee.remove_module(handle.module)
                    handle.module.close()
                handle.module = None
            eng.live -= 1
            if eng.live == 0 and eng.full and not eng.permanent and eng not in (self.fast, self.heavy):
                eng.ee.close()

    # ---- memory ----------------------------------------------------------
    def alloc(self, nbytes: int, user: bool = True) -> int:
        """Zeroed, ALIGN-aligned bytes; the races.HEADER bytes below them are the allocation's
        header (the race detector's shadow address and the float type). Constant time in the
        number of live allocations (the tables take a row in place: core/alloctable.py)."""
        buf = zeroed(max(nbytes, 1) + ALIGN + HEADER, np.uint8)
        start = buf.__array_interface__["data"][0]  # (ctypes.data costs twice as much: ALLOCATE's hot path)
        off = (-(start + HEADER)) % ALIGN + HEADER  # room for the header, then aligned
        addr = start + off
        self._buffers[addr] = buf[off:off + max(nbytes, 1)]
        self._headers[addr] = buf[off - HEADER:off].view(np.int64)
        self._sizes[addr] = nbytes
        self._all.add(addr, nbytes)
        if user:
            self._user[addr] = nbytes
            self._table.add(addr, nbytes)
            self.races.note(addr)
        return addr

    def free(self, addr: int) -> None:
        if self._buffers.pop(addr, None) is not None:
            self._all.remove(addr)
        self._headers.pop(addr, None)
        self._sizes.pop(addr, None)
        self.elem_types.pop(addr, None)
        self.races.forget(addr)
        if self._user.pop(addr, None) is not None:
            self._table.remove(addr)

    def _heap_op(self, ctx: int, op: int, a: int, b: int, out: int) -> int:
        """tf_heap's work (_tf_heap): the operation on the session's heap (core/heap.py), its results
        to out[0], out[1]; then the launch's context holds the allocation table as it is now (an add
        may have moved the rows) and, in a launch that checks races, a new block is armed."""
        heap = self.heap
        if op == HEAP_ALLOCATE:
            addr, ior = heap.allocate(a)
        elif op == HEAP_FREE:
            addr, ior = 0, heap.free(a)
        else:
            addr, ior = heap.resize(a, b)
        res = (ctypes.c_int64 * 2).from_address(out)
        res[0], res[1] = addr, ior
        slots = (ctypes.c_int64 * L.CTX_SLOTS).from_address(ctx)
        slots[L.CTX_ALLOCS], slots[L.CTX_N_ALLOCS] = self._table.address, self._table.n
        if ior == 0 and op != HEAP_FREE and slots[L.CTX_RACE_GEN]:  # (else the next launch that checks arms it)
            self.races.arm_new(addr, self._user[addr], self._headers[addr])
        return 0

    @property
    def alloc_table(self) -> np.ndarray:
        """The user allocations' rows (start, end), sorted: the table checked kernels consult."""
        return self._table.rows

    def _view(self, addr: int, nbytes: int) -> np.ndarray:
        base = self._all.find(addr, nbytes)
        if base is None:
            raise ForthError(f"address ${addr:x} (+{nbytes} bytes) is not inside a live allocation")
        return self._buffers[base][addr - base:addr - base + nbytes]

    def allocation_base(self, addr: int, nbytes: int) -> int | None:
        """The base of the user allocation that holds [addr, addr+nbytes), if one does."""
        return self._table.find(addr, nbytes)

    def hopper_describe(self, thread: int, addr: int, aux: int, where: str, word: str | None) -> str | None:
        """An E_ASYNC record of an access of a TMA box in flight, in words (mbarriers.py); None: not one."""
        from .mbarriers import model
        return model(self).describe(thread, addr, aux, where, word)

    def mbarrier_phases(self) -> list:
        """The mbarrier phases the last launch's blocks completed (mbarriers.py; .PIPE shows a block's)."""
        from . import mbarriers
        return mbarriers.phases(self)

    def allocation_view(self, addr: int, nbytes: int) -> np.ndarray | None:
        """Bytes [addr, addr+nbytes) when they lie in one user allocation."""
        base = self._table.find(addr, nbytes)
        return None if base is None else self._buffers[base][addr - base:addr - base + nbytes]

    def read(self, addr: int, nbytes: int) -> np.ndarray:
        return self._view(addr, nbytes).copy()

    def use_address_table(self) -> None:
        """From now on the code reads session addresses from the launch's address table, as the cuda
        backend's does (core/compile/addresses.py), instead of keeping them as constants (this backend's
        own way: an immediate costs less than a load, and its code does not outlive the process). For
        tests: the cuda backend's code shape, run."""
        self.target.addresses = AddressTable(lambda value: self._all.find(value, 0))

    def check_span(self, addr: int, nbytes: int) -> None:
        self._view(addr, nbytes)

    def write(self, addr: int, data: np.ndarray | bytes) -> None:
        raw = np.frombuffer(bytes(data) if isinstance(data, (bytes, bytearray)) else
                            np.ascontiguousarray(data).tobytes(), np.uint8)
        self._view(addr, raw.size)[:] = raw

    def set_shared(self, nbytes: int) -> int:
        """(Re)size the per-block shared memory region; blocks run one at a
        time on the emulator, so one region serves them all."""
        if nbytes > self.shared_size or self.shared_addr == 0:
            for w in list(self._shared_of):  # the workers' regions are remade at the new size
                self.free(self._shared_of.pop(w))
            old = (self.shared_addr, self.shared_size)
            self.shared_addr = self.alloc(max(nbytes, 16))
            self.shared_size = max(nbytes, 16)
            if old[0]:
                self.free(old[0])
        return self.shared_addr

    def shared_base(self) -> int:
        if self.shared_addr == 0:
            self.set_shared(16)
        return self.shared_addr

    # ---- launch shape and stack state -------------------------------------
    def set_shape(self, shape: LaunchShape, interruptible: bool = False) -> None:
        """The launch shape, with empty stacks. The thread records and state buffer of
        the shapes used last are kept (SHAPE_CACHE_BYTES), so going back to one (a failed
        line's restore, f.kernel's own shape and back) costs resetting the depths, not
        building and faulting in new buffers; a buffer's slots above the depths are
        not cleared (they don't count)."""
        grid, block = shape.grid, shape.block
        nb = grid[0] * grid[1] * grid[2]
        bs = block[0] * block[1] * block[2]
        n = nb * bs
        lazy = self.lazy_state(n)
        key = (grid, block, self.machine, lazy)  # a buffer is laid out for the stacks of its machine
        cached = self._shapes.pop(key, None)
        if cached is None:
            cached = self._make_shape(grid, block, lazy, interruptible)  # (may raise: nothing changed yet)
        self.shape, self.grid, self.block = shape, grid, block
        self.nblocks, self.block_size, self.nthreads = nb, bs, n
        self.state, self.thr = cached
        if lazy:  # self.state: the zeros every empty Held shares (no one writes them)
            self.held = Held.fresh(self.machine, self.state)
        else:
            self.held = None
            cells = self.state.view(np.int64)
            cells[:, L.S_DSP // 8] = 0
            cells[:, L.S_FSP // 8] = 0
        self._shapes[key] = (self.state, self.thr)  # last: the most recently used
        kept = sum(s.nbytes + t.nbytes for s, t in self._shapes.values())
        while len(self._shapes) > 1 and kept > SHAPE_CACHE_BYTES:
            s, t = self._shapes.pop(next(iter(self._shapes)))
            kept -= s.nbytes + t.nbytes
        self.warps_per_block = shape.warps_per_block(self.caps.warp_size)
        self.tile_data: list[list[np.ndarray]] = [[] for _ in range(nb * self.warps_per_block)]

    def lazy_state(self, threads: int) -> bool:
        """Whether a launch shape of `threads` threads keeps its stacks lazily (heldstacks.py)."""
        return threads * self.machine.state_bytes > self.lazy_bytes

    def _make_shape(self, grid: tuple[int, int, int], block: tuple[int, int, int],
                    lazy: bool = False, interruptible: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """A zeroed state buffer (np.zeros: its pages are mapped as first touched), or for a lazy
        shape the (threads, 2) zeros of its empty depths, and the thread records of a launch shape:
        one block's records copied to every block (one pass over the records), then the fields
        that differ by block. `interruptible`: abort() stops it between two pieces ("interrupted":
        15M threads' records take ~20 s, and Ctrl-C in the REPL is an abort, not a KeyboardInterrupt)."""
        bs = block[0] * block[1] * block[2]
        nb = grid[0] * grid[1] * grid[2]
        n = nb * bs
        state = zeroed((n, 2), np.int64) if lazy else S.new_buffer(n, self.machine)
        t = np.arange(bs)
        first = np.zeros((bs, L.THR_SLOTS), np.int64)  # block 0's records
        first[:, L.T_TID] = t % block[0]
        first[:, L.T_TID + 1] = (t // block[0]) % block[1]
        first[:, L.T_TID + 2] = t // (block[0] * block[1])
        first[:, L.T_BDIM:L.T_BDIM + 3] = block
        first[:, L.T_GDIM:L.T_GDIM + 3] = grid
        first[:, L.T_LINEAR] = t
        nbytes = n * L.THR_SLOTS * 8
        # one system call maps a populated array's pages, which Ctrl-C cannot stop: a huge one is left to
        # fault page by page as the pieces below fill it, so an interrupt lands between two pieces
        # (no huge pages: buffers.zeroed; the launches read the records in order, a block at a time)
        thr = zeroed((n, L.THR_SLOTS), np.int64, populate=PREFAULT_BYTES <= nbytes <= POPULATE_MAX, huge=False)
        blocks = thr.reshape(nb, bs, L.THR_SLOTS)
        # the records are written FILL_PIECE_BYTES at a time, each piece whole while it is in the cache (block
        # 0's records copied, then the fields that differ by block): one pass over the records' memory, where
        # a column at a time over all of them took seven (4.3M threads, 1.2 GiB of records: 2.4 -> 0.5 s)
        step = max(1, FILL_PIECE_BYTES // max(1, bs * L.THR_SLOTS * 8))  # blocks per piece
        b = np.arange(nb, dtype=np.int64)
        bids = (b % grid[0], (b // grid[0]) % grid[1], b // (grid[0] * grid[1]))
        starts = b * bs
        for lo in range(0, nb, step):
            if interruptible and self.abort_flag[0]:
                raise ForthError("interrupted", code=None)  # (as a launch's: CATCH lets it through)
            part = blocks[lo:lo + step]
            k = len(part)
            part[:] = first
            for axis in range(3):
                part[:, :, L.T_BID + axis] = bids[axis][lo:lo + k, None]
            part[:, :, L.T_BSTART] = starts[lo:lo + k, None]
            part[:, :, L.T_LINEAR] += starts[lo:lo + k, None]
        if not lazy:  # (a lazy shape's records point into a scratch region, chunk by chunk: _run_lazy)
            thr[:, L.T_STATE] = S.record_addresses(state.ctypes.data, n, self.machine)
        return state, thr

    def shape_bytes(self, threads: int, m: Machine) -> int:
        """Backend.shape_bytes: a lazy shape's stacks take their depths (16 bytes a thread, twice while a
        launch makes the new ones) and the workers' scratch records; the cells held are counted when a
        launch leaves them (_assemble)."""
        if threads * m.state_bytes <= self.lazy_bytes:
            return threads * (m.state_bytes + L.THR_SLOTS * 8)
        return threads * (L.THR_SLOTS * 8 + 2 * 16) + self.workers * (self.chunk_bytes + m.state_bytes * 1024)

    def free_memory(self) -> int | None:
        """The host's available memory (MemAvailable), with the buffers of the launch shapes kept here,
        which a new shape may push out (None where /proc/meminfo does not say)."""
        try:
            with open("/proc/meminfo", encoding="ascii") as fh:
                avail = next((int(line.split()[1]) * 1024 for line in fh if line.startswith("MemAvailable:")), None)
        except OSError:
            return None
        if avail is None:
            return None
        return avail + sum(st.nbytes + t.nbytes for st, t in self._shapes.values())

    def get_tiles(self) -> list[list[np.ndarray]]:
        return [[t.copy() for t in warp] for warp in self.tile_data]

    def tiles_of(self, warp: int) -> list[np.ndarray]:
        return [t.copy() for t in self.tile_data[warp]]

    def set_tiles(self, tiles: list[list[np.ndarray]]) -> None:
        self.tile_data = [[t.copy() for t in warp] for warp in tiles]

    def truncate_tiles(self, depth: int) -> None:
        if depth == 0 and not any(self.tile_data):  # no warp holds a tile (a C-speed scan: 32,768 warps at 1M)
            return
        for warp in self.tile_data:
            del warp[depth:]

    def get_state(self) -> np.ndarray:
        if self.held is not None:
            return self.held.columns(0, self.machine.state_bytes)
        return self.state.copy()

    def state_buffer(self) -> np.ndarray | None:
        """The state buffer itself (host memory): what the host reads and writes without a copy
        (StackState.live); None at a lazy shape, whose stacks the host reads and writes by columns,
        as the cuda backend's (state_columns, set_state_columns)."""
        return self.state if self.held is None else None

    def set_state(self, state: np.ndarray) -> None:
        if self.held is not None:
            self.held = self.held.with_columns(0, np.ascontiguousarray(state, np.uint8), self.state)
            return
        self.state[...] = state

    def state_columns(self, start: int, width: int) -> np.ndarray:
        """Backend.state_columns, each record's span copied as one item (state.copy_columns)."""
        if self.held is not None:
            return self.held.columns(start, width)
        return S.copy_columns(self.state, start, width)

    def set_state_columns(self, start: int, rows: np.ndarray) -> None:
        if self.held is not None:
            self.held = self.held.with_columns(start, np.ascontiguousarray(rows, np.uint8), self.state)
            return
        super().set_state_columns(start, rows)

    def take_stacks(self) -> Held | None:
        """A lazy shape's stacks as they are: its Held, which nothing changes (a launch or a host word
        makes a new one), so a line's snapshot copies nothing; None at a dense shape (state.Snapshot)."""
        return self.held

    def restore_stacks(self, snap: object) -> None:
        if not isinstance(snap, Held) or self.held is None or snap.threads != self.nthreads or snap.m != self.machine:
            raise ValueError(f"stacks of {getattr(snap, 'threads', '?')} threads restored into a shape of "
                             f"{self.nthreads}")
        self.held = snap

    # ---- the optional checks: races, element types, the access trace -------------------------
    def allocation_sizes(self) -> dict[int, int]:
        return dict(self._user)

    def set_race_checks(self, on: bool) -> None:
        self.races.on = on

    def race_exempt(self, addr: int) -> None:
        self.races.exempt.add(addr)
        self.races.note(addr)

    def race_report(self, aux: int) -> dict:
        return self.races.unpack(aux)

    def set_element_type(self, addr: int, dtype: np.dtype) -> None:
        self.elem_types[addr] = dtype
        self.races.note(addr)

    def element_type(self, addr: int) -> np.dtype | None:
        return self.elem_types.get(addr)

    def start_trace(self, cap: int) -> None:
        self.trace_cap = cap
        self.take_trace()

    def stop_trace(self) -> None:
        self.trace_cap = 0

    def take_trace(self) -> tuple[np.ndarray, int, np.ndarray | None]:
        got = (self.trace, self.trace_dropped, self.thr[:, L.T_EPOCH].copy())
        self.trace, self.trace_dropped = np.zeros((0, 4), np.int64), 0
        return got

    # ---- launching ----------------------------------------------------------
    def launch(self, handle: CpuKernel, shape: LaunchShape, base_addr: int, shared_bytes: int, steps: int,
               sites: "Sites | None" = None, lits: Sequence[int] = ()) -> LaunchResult:
        if shape is not self.shape and shape != self.shape:
            raise ValueError(f"launch over {shape}, but the stacks are {self.shape}'s: set_shape first")
        handle.launches += 1
        self.launch_serial += 1  # what the models tell one launch's blocks by (mbarriers.py: .PIPE's phases)
        if handle.loops and handle.tier == TIER_CHEAP:
            self._tier_up(handle)
        shared = self.shared_base()  # first: making the region rebuilds the allocation table
        chunks = self._chunks()
        for w in range(1, len(chunks)):  # the other workers' shared regions: made before the table is read
            self._worker_shared(w)
        out_addr, abort_addr, lits_addr, clock_addr = self._launch_addresses()
        ctx = fill_context(self.ctx, allocs=self._table.address, n_allocs=self._table.n,
                           out=out_addr, out_cap=self.machine.out_cap, base_addr=base_addr,
                           abort=abort_addr, shared_size=shared_bytes,
                           recursion_max=self.caps.recursion_max, steps=steps)
        ctx[L.CTX_SHARED] = shared
        ctx[L.CTX_BLOCK_SIZE] = self.block_size
        if lits:
            self.lits[:len(lits)] = lits
            ctx[L.CTX_LITS] = lits_addr
        if self.target.addresses is not None:
            bases = self.target.addresses.bases
            self.lits[LITS_MAX:LITS_MAX + len(bases)] = bases
            ctx[L.CTX_LITS] = lits_addr
        self.clock[0] = 0
        ctx[L.CTX_CLOCK] = clock_addr
        self.races.arm(ctx, self._user, self.elem_types, self._headers.__getitem__, self.nthreads)
        if self.trace_cap:
            buf = zeroed((self.trace_cap, 4), np.int64)
            ctx[L.CTX_TRACE], ctx[L.CTX_TRACE_CAP] = buf.ctypes.data, self.trace_cap
        ctx[L.CTX_THREAD_STEPS] = steps
        ctx[L.CTX_STACK_BUDGET] = _stack_budget()  # the kernel entry makes it an address (T_STACK_LIMIT)
        if handle.suspends or self.trace_cap:
            self._reset_records(steps)  # (a plain kernel's are reset by tf_run_plain, thread by thread: scheduler.py)
        held = self.held
        pieces: dict[int, Piece] = {}  # a lazy shape's: first block of a chunk run -> what it left (_run_lazy)
        self._pieces = pieces  # (each worker takes it when it starts: a late one never writes into another launch's)
        self.progress.start(self.nblocks, self.block_size)
        try:
            if len(chunks) == 1:
                ctx, out, n_out, divergence = self._run_alone(handle, ctx, sites)
            else:
                ctx, out, n_out, divergence = self._run_parallel(handle, ctx, sites, chunks)
        finally:
            self.progress.end()
            if held is not None:
                self.held = self._assemble(held, pieces)
        if self.trace_cap:
            n = int(ctx[L.CTX_TRACE_LEN])
            self.trace, self.trace_dropped = buf[:min(n, self.trace_cap)], max(0, n - self.trace_cap)
        return LaunchResult(error=tuple(ctx[:5].tolist()), output=out[:min(n_out, self.machine.out_cap)].copy(),
                            output_dropped=max(0, n_out - self.machine.out_cap), divergence=divergence)

    def _launch_addresses(self) -> tuple[int, int, int, int]:
        """The addresses of the output buffer, the abort flag, the literal table and the fence clock, which
        every launch's context holds: read once for these arrays (through __array_interface__, ~1 µs
        each, of a cached line's ~50 µs), again only if one of them is ever another array."""
        arrays = (self.out, self.abort_flag, self.lits, self.clock)
        kept = self.__dict__.get("_addresses")
        if kept is None or any(a is not b for a, b in zip(kept[0], arrays)):
            out, abort, lits, clock = (_address(a) for a in arrays)
            kept = self._addresses = (arrays, (out, abort, lits, clock))
        return kept[1]

    def _reset_records(self, steps: int) -> None:
        """Every thread record as a launch starts it (what tf_run_plain writes before each thread of a
        kernel that does not suspend instead): a coroutine kernel's scheduler reads every status and frees every frame of a
        block, and the access trace reads every thread's epoch."""
        thr = self.thr
        thr[:, L.T_EPOCH:L.T_ACQUIRED + 1] = 0  # T_EPOCH, T_FENCED, T_ACQUIRED: adjacent
        # status, site, steps, frame are adjacent slots: one strided pass (at 1M threads each pass costs ~20 ms)
        assert (L.T_SITE, L.T_STEPS, L.T_FRAME) == (L.T_STATUS + 1, L.T_STATUS + 2, L.T_STATUS + 3)
        thr[:, L.T_STATUS:L.T_FRAME + 1] = (L.ST_RUN, -1, steps, 0)
        thr[:, L.T_DEPTH] = 0

    # ---- blocks on all cores -------------------------------------------------
    def _chunks(self) -> list[tuple[int, int]]:
        """The launch's blocks as contiguous ranges, one per worker: one range when the launch is
        small, traced (PROFILE keeps the order of the accesses) or `workers` is 1."""
        n = min(self.workers, self.nblocks)
        if n <= 1 or self.trace_cap or self.nthreads < PARALLEL_THREADS:
            return [(0, self.nblocks)]
        cuts = [self.nblocks * i // n for i in range(n + 1)]
        return [(cuts[i], cuts[i + 1]) for i in range(n)]

    def _worker_shared(self, w: int) -> int:
        """Worker w's shared-memory region (worker 0 uses the backend's own): blocks that run at
        the same time need one each."""
        addr = self._shared_of.get(w)
        if addr is None:
            addr = self._shared_of[w] = self.alloc(self.shared_size)
        return addr

    def shared_regions(self) -> list[int]:
        """Every shared-memory region a block may have used (for naming addresses)."""
        return [self.shared_base(), *self._shared_of.values()]

    def _run_alone(self, handle: CpuKernel, ctx: np.ndarray,
                   sites: "Sites | None") -> tuple[np.ndarray, np.ndarray, int, object]:
        """Every block in order on this thread: (the context, the output buffer, its length, the
        divergence or None), as _run_parallel gives them."""
        divergence, failure = self._run_range(handle, ctx, 0, self.nblocks, sites, 0)
        if failure is not None:
            raise failure
        return ctx, self.out, int(ctx[L.CTX_OUT_LEN]), divergence

    def _run_parallel(self, handle: CpuKernel, ctx: np.ndarray, sites: "Sites | None",
                      chunks: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray, int, object]:
        """Run each range of blocks on a worker thread (the JIT-ed code runs without the GIL) with
        a context of its own (its shared region, output buffer, error record and step pool). The
        result is the one-worker run's: outputs in block order, the error of the lowest block."""
        if handle.suspends and gathers(self, ctx):  # each worker pays the launch steps' host work
            chunks = gathered_chunks(self.nblocks, len(chunks))
            if len(chunks) == 1:
                return self._run_alone(handle, ctx, sites)
        ctxs, outs = [], []
        for w in range(len(chunks)):
            c = ctx.copy()
            if w:
                c[L.CTX_SHARED] = self._worker_shared(w)
                o = zeroed((self.machine.out_cap, L.OUT_SLOTS), np.int64)
                c[L.CTX_OUT] = o.ctypes.data
            else:
                o = self.out
            ctxs.append(c)
            outs.append(o)
        pool = self._pool()
        from concurrent.futures import wait as wait_for  # (imported with the pool)
        futures = []
        try:
            # SIGINT held while the workers run: a Ctrl-C asks them to stop (the abort flag, at their next
            # back-edge) and is raised once they have, never inside submit or concurrent.futures' own locks
            # (a KeyboardInterrupt there left a block queued that nothing waited for, or a future's lock held).
            # The wait wakes every WAIT_POLL_S: a SIGINT the kernel hands to a worker thread runs the handler
            # only when this thread runs Python again.
            with held(self.abort):
                for w, (lo, hi) in enumerate(chunks):
                    futures.append(pool.submit(self._run_range, handle, ctxs[w], lo, hi, sites, w))
                while wait_for(futures, WAIT_POLL_S).not_done:
                    pass
        except BaseException:  # nothing held (not the main thread, a handler not from Python) or a bug: the
            self.abort()  # workers stop and are waited for all the same (else they go on over the state the
            with held():  # undo puts back, or over freed memory)
                wait_for(futures)
            raise
        results = [f.result() for f in futures]
        merged = ctxs[0]
        divergence = None
        for w, (div, failure) in enumerate(results):  # the first range that failed is the one-worker error
            if failure is not None:
                raise failure
            if div is not None or ctxs[w][L.CTX_ERR_CODE]:
                merged[:5] = ctxs[w][:5]
                divergence = div
                break
        else:
            self._pool_spent(ctxs, chunks, merged)
        lens = [min(int(c[L.CTX_OUT_LEN]), self.machine.out_cap) for c in ctxs]
        out = np.concatenate([o[:n] for o, n in zip(outs, lens)]) if len(outs) > 1 else outs[0]
        total = sum(int(c[L.CTX_OUT_LEN]) for c in ctxs)
        return merged, out, total, divergence

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            from concurrent.futures import ThreadPoolExecutor  # imported with the first pool

            self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix=POOL_PREFIX)
        return self._executor

    # ---- a lazy shape's launch: chunks of threads over a scratch region (heldstacks.py) ----------
    def _run_range(self, handle: CpuKernel, ctx: np.ndarray, lo: int, hi: int, sites: "Sites | None",
                   worker: int) -> tuple[object, ForthError | None]:
        """Blocks lo..hi-1 on `worker` (_run_blocks' contract), chunk by chunk at a lazy shape."""
        if self.held is None:
            return self._run_blocks(handle, ctx, lo, hi, sites)
        return self._run_lazy(handle, ctx, lo, hi, sites, worker)

    def chunk_blocks(self) -> int:
        """The blocks of a lazy launch's chunk: as many as CHUNK_STATE_BYTES of records hold (one at least)."""
        return max(1, self.chunk_bytes // self.machine.state_bytes // self.block_size)

    def _scratch_of(self, worker: int) -> np.ndarray:
        """The records of stack state `worker` runs a lazy launch's chunks in (made once, kept)."""
        rows, sb = self.chunk_blocks() * self.block_size, self.machine.state_bytes
        buf = self._scratch.get(worker)
        if buf is None or buf.shape[1] != sb or len(buf) < rows:
            self._scratch.pop(worker, None)
            buf = self._scratch[worker] = zeroed((rows, sb), np.uint8)
        return buf

    def _run_lazy(self, handle: CpuKernel, ctx: np.ndarray, lo: int, hi: int, sites: "Sites | None",
                  worker: int) -> tuple[object, ForthError | None]:
        """Blocks lo..hi-1 of a lazy shape, a chunk at a time: its threads' stacks staged into the
        worker's scratch records (their records pointed there: by tf_run_plain through
        ctx[CTX_STATE_BASE], or here for a coroutine kernel, whose frames keep the address), the chunk
        run, what it left kept as a Piece (self._pieces, which launch() assembles). A chunk that fails
        ends the range, as an error ends _run_blocks'."""
        held, pieces, m, bs = self.held, self._pieces, self.machine, self.block_size
        assert held is not None
        scratch = self._scratch_of(worker)
        addr, sb, step = _address(scratch), m.state_bytes, self.chunk_blocks()
        result: tuple[object, ForthError | None] = (None, None)
        for a in range(lo, hi, step):
            b = min(hi, a + step)
            t0, n = a * bs, (b - a) * bs
            held.stage_in(t0, n, scratch)
            if handle.suspends:
                self.thr[t0:t0 + n, L.T_STATE] = addr + np.arange(n, dtype=np.int64) * sb
            else:
                ctx[L.CTX_STATE_BASE], ctx[L.CTX_STATE_BYTES] = addr, sb
            try:
                result = self._run_blocks(handle, ctx, a, b, sites)
            finally:
                pieces[a] = stage_out(m, t0, n, scratch)
            if result[0] is not None or result[1] is not None or ctx[L.CTX_ERR_CODE]:
                break
        return result

    def _assemble(self, held: Held, pieces: dict[int, Piece]) -> Held:
        """The stacks a lazy launch leaves: the chunks it ran, and those it did not (an error ended
        their range) as `held` had them; a ForthError, and `held` kept, when memory runs out."""
        bs, order, at = self.block_size, [], 0
        for a in sorted(pieces):
            if a > at:
                order.append(held.piece(at * bs, (a - at) * bs))
            order.append(pieces[a])
            at = a + len(pieces[a].heads) // bs
        if at < self.nblocks:
            order.append(held.piece(at * bs, (self.nblocks - at) * bs))
        k = sum(p.holders for p in order)
        need = k * (L.S_DS + 8 * max((p.d for p in order), default=0) + self.machine.float_bytes
                    * max((p.f for p in order), default=0)) + self.nthreads * 16
        free = self.free_memory() if need > self.held_checked else None
        try:
            if free is not None and need > free:
                raise MemoryError
            return Held.of_pieces(self.machine, order, self.state)
        except MemoryError:
            have = f"the {_size(free)} of memory free" if free is not None else "the memory there is"
            raise ForthError(f"the stacks this line leaves need {_size(need)} ({k:,} of {self.nthreads:,} "
                             f"threads hold items), more than {have} on the cpu backend: leave fewer items on "
                             "the stacks (store results in an ARRAY and DROP them) or use fewer threads "
                             "(GRID, THREADS)") from None

    def _run_blocks(self, handle: CpuKernel, ctx: np.ndarray, lo: int, hi: int,
                    sites: "Sites | None") -> tuple[object, ForthError | None]:
        """Blocks lo..hi-1 in order, in the context ctx: (the divergence, or None; a warp op's
        ForthError, or None). An error record ends the range."""
        thr, bs = self.thr, self.block_size
        pctx, pthr = _address(ctx), _address(thr)
        if not handle.suspends:  # in calls of PROGRESS_THREADS, counted (a lazy chunk's scratch: in one)
            step = hi - lo if ctx[L.CTX_STATE_BASE] else max(1, PROGRESS_THREADS // bs)
            for a in range(lo, hi, step):
                n = min(hi, a + step) - a
                failed = self.rt.run_plain(pctx, handle.addr, pthr + a * bs * L.THR_SLOTS * 8, n * bs) >= 0
                self.progress.add(n)
                if failed:  # (its error is in the context)
                    break
            return None, None
        if gathers(self, ctx):  # the blocks wait for each other at warp ops, which run batched
            return run_together(self, handle, ctx, lo, hi, sites)
        if self.races.on and self.asyncs.tiles:  # checked, with SMEM-TILEs: the copy model sees every shared
            self.asyncs.arm(ctx)  # access from the start, those before the first copy op too (asynccopy.py)
        for b in range(lo, hi):
            base = pthr + b * bs * L.THR_SLOTS * 8
            code = self.rt.run_block(pctx, handle.addr, base, bs, 0)
            ops: WarpOps | None = None  # one per block, made at its first warp op: its tiles stay batched
            try:
                while code == RUN_WARP:
                    if ops is None:
                        ops = WarpOps(self, sites, ctx)
                    try:
                        ops.run_block(b, keep=True)
                    except ForthError as exc:
                        self.rt.free_frames(base, bs)
                        return None, exc
                    if ctx[L.CTX_ERR_CODE]:  # a tile load or store raced (warpops: recorded in the context)
                        self.rt.free_frames(base, bs)
                        code = RUN_ERROR
                        break
                    if ctx[L.CTX_STEPS_USED] > ctx[L.CTX_STEPS_MAX]:  # the warp ops spent the pool
                        self._out_of_steps(b, ctx)
                        self.rt.free_frames(base, bs)
                        code = RUN_ERROR
                        break
                    code = self.rt.continue_block(pctx, handle.addr, base, bs)
            finally:
                if ops is not None:
                    ops.flush()
            if code == RUN_DIVERGENT:
                rows = thr[b * bs:(b + 1) * bs]
                return (rows[:, L.T_STATUS].copy(), rows[:, L.T_SITE].copy(), b), None
            if code == RUN_ERROR:
                break
            assert code == RUN_OK
            self.progress.add(1)
        return None, None

    def _pool_spent(self, ctxs: list[np.ndarray], chunks: list[tuple[int, int]], merged: np.ndarray) -> None:
        """The step pool is the launch's, however many workers ran it: each worker's context drew
        from a pool of its own, so a launch that spent more than the pool in all (which one worker
        would have stopped) fails as it does there, with E_LAUNCH_STEPS, at the first thread of the
        range in which the running sum passed the pool (where in it is not known)."""
        pool, used = int(merged[L.CTX_STEPS_MAX]), 0
        for c, (lo, _) in zip(ctxs, chunks):
            used += int(c[L.CTX_STEPS_USED])
            if used > pool:
                merged[L.CTX_ERR_CODE] = L.E_LAUNCH_STEPS
                merged[L.CTX_ERR_SITE] = -1
                merged[L.CTX_ERR_THREAD] = lo * self.block_size
                merged[L.CTX_ERR_AUX] = pool
                return

    def _out_of_steps(self, block: int, ctx: np.ndarray) -> None:
        """Record the launch's step pool as spent (E_LAUNCH_STEPS) at the warp op
        the block's first waiting thread is at."""
        if ctx[L.CTX_ERR_CODE]:
            return
        rows = self.thr[block * self.block_size:(block + 1) * self.block_size]
        first = int(np.argmax(rows[:, L.T_SITE] >= 0))
        ctx[L.CTX_ERR_CODE] = L.E_LAUNCH_STEPS
        ctx[L.CTX_ERR_SITE] = rows[first, L.T_SITE]
        ctx[L.CTX_ERR_THREAD] = rows[first, L.T_LINEAR]
        ctx[L.CTX_ERR_AUX] = ctx[L.CTX_STEPS_MAX]

    def reset_abort(self) -> None:
        self.abort_flag[0] = 0

    def aborted(self) -> bool:
        return bool(self.abort_flag[0])

    def abort(self) -> None:
        """Ask running code to stop at its next loop back-edge (Ctrl-C); safe
        from another thread while a launch runs."""
        self.abort_flag[0] = 1
