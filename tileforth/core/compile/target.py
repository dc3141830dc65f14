"""The interface between the compiler (core) and a backend.

`Target` is what code generation needs from a machine: special registers,
the barrier, pointers, and the kernel entry around a line's body. `Backend`
is what the outer interpreter needs at run time: memory, the per-thread
stack state, compiling a module and launching it.

The runtime helpers below (`tf_fail`, `tf_poll`, `tf_addr_scan`, `tf_out`)
are plain LLVM IR shared by every target: they use atomics for the error
record and the output buffer, which is correct on the GPU and harmless on
the single-threaded emulator.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Callable, Sequence

from llvmlite import ir

from ..errors import ForthError
from ..lazy import np
from ..records import record
from . import layout as L
from .machine import DEFAULT as DEFAULT_MACHINE
from .machine import Machine

if TYPE_CHECKING:
    import llvmlite.binding as llvm

    from .addresses import AddressTable
    from .tileops import TileOp
    from .tileops import WarpOp

HELPERS_IR = f"""
define void @tf_fail(ptr %ctx, ptr %thr, i64 %code, i64 %site, i64 %addr, i64 %aux) {{
entry:
  %st = getelementptr i64, ptr %thr, i64 {L.T_STATUS}
  store i64 {L.ST_ERROR}, ptr %st
  %r = cmpxchg ptr %ctx, i64 0, i64 %code seq_cst seq_cst
  %won = extractvalue {{ i64, i1 }} %r, 1
  br i1 %won, label %rec, label %done
rec:
  %p1 = getelementptr i64, ptr %ctx, i64 {L.CTX_ERR_SITE}
  store i64 %site, ptr %p1
  %lp = getelementptr i64, ptr %thr, i64 {L.T_LINEAR}
  %lin = load i64, ptr %lp
  %p2 = getelementptr i64, ptr %ctx, i64 {L.CTX_ERR_THREAD}
  store i64 %lin, ptr %p2
  %p3 = getelementptr i64, ptr %ctx, i64 {L.CTX_ERR_ADDR}
  store i64 %addr, ptr %p3
  %p4 = getelementptr i64, ptr %ctx, i64 {L.CTX_ERR_AUX}
  store i64 %aux, ptr %p4
  br label %done
done:
  ret void
}}

; a loop back-edge whose register counter reached a multiple of POLL_EVERY: out of budget, or interrupted?
; The thread's own budget: %left < 0. The launch's pool (when ctx[CTX_STEPS_MAX] is set): the thread draws
; the iterations since its last poll, min(POLL_EVERY, max - left) (its counter started at max).
define i1 @tf_poll(ptr %ctx, ptr %thr, i64 %site, i64 %left) noinline {{
entry:
  %app = getelementptr i64, ptr %ctx, i64 {L.CTX_ABORT}
  %api = load i64, ptr %app
  %ap = inttoptr i64 %api to ptr
  %ab = load atomic volatile i64, ptr %ap monotonic, align 8
  %out = icmp slt i64 %left, 0
  %abort = icmp ne i64 %ab, 0
  %bad = or i1 %out, %abort
  br i1 %bad, label %fail, label %pool
pool:
  %mp = getelementptr i64, ptr %ctx, i64 {L.CTX_STEPS_MAX}
  %max = load i64, ptr %mp
  %none = icmp eq i64 %max, 0
  br i1 %none, label %ok, label %draw
draw:
  %since = sub i64 %max, %left
  %small = icmp slt i64 %since, {L.POLL_EVERY}
  %n = select i1 %small, i64 %since, i64 {L.POLL_EVERY}
  %up = getelementptr i64, ptr %ctx, i64 {L.CTX_STEPS_USED}
  %old = atomicrmw add ptr %up, i64 %n monotonic
  %used = add i64 %old, %n
  %over = icmp sgt i64 %used, %max
  br i1 %over, label %spent, label %ok
ok:
  ret i1 1
spent:
  call void @tf_fail(ptr %ctx, ptr %thr, i64 {L.E_LAUNCH_STEPS}, i64 %site, i64 0, i64 %max)
  ret i1 0
fail:
  %code = select i1 %abort, i64 {L.E_ABORT}, i64 {L.E_STEPS}
  call void @tf_fail(ptr %ctx, ptr %thr, i64 %code, i64 %site, i64 0, i64 0)
  ret i1 0
}}

; the slow path of a checked access: the allocation [base, limit) that holds [addr, end),
; or (0, 0) when none does; the caller keeps it in registers as its range cache. The table's rows
; are sorted by base: a binary search finds the last row that starts at or below addr (a cost of
; log2 of the live allocations, so a program's 10,000 ALLOCATEd nodes cost what 10 do); only where
; that row does not hold the access (an error, or rows that overlap: another library's arrays that
; share memory) are all rows scanned
define {{ i64, i64 }} @tf_addr_scan(ptr %ctx, i64 %addr, i64 %end) noinline {{
entry:
  %a3 = icmp uge i64 %end, %addr
  %tp = getelementptr i64, ptr %ctx, i64 {L.CTX_ALLOCS}
  %tabi = load i64, ptr %tp
  %tab = inttoptr i64 %tabi to ptr
  %np = getelementptr i64, ptr %ctx, i64 {L.CTX_N_ALLOCS}
  %n = load i64, ptr %np
  br label %bisect
bisect:
  %lo = phi i64 [0, %entry], [%lo1, %half]
  %hi = phi i64 [%n, %entry], [%hi1, %half]
  %open = icmp slt i64 %lo, %hi
  br i1 %open, label %half, label %last
half:
  %sum = add i64 %lo, %hi
  %mid = lshr i64 %sum, 1
  %m2 = shl i64 %mid, 1
  %mp = getelementptr i64, ptr %tab, i64 %m2
  %mb = load i64, ptr %mp
  %below = icmp ule i64 %mb, %addr
  %mid1 = add i64 %mid, 1
  %lo1 = select i1 %below, i64 %mid1, i64 %lo
  %hi1 = select i1 %below, i64 %hi, i64 %mid
  br label %bisect
last:
  %any = icmp sgt i64 %lo, 0
  br i1 %any, label %probe, label %scan
probe:
  %j = sub i64 %lo, 1
  %j2 = shl i64 %j, 1
  %jp = getelementptr i64, ptr %tab, i64 %j2
  %jb = load i64, ptr %jp
  %jlp = getelementptr i64, ptr %jp, i64 1
  %jl = load i64, ptr %jlp
  %j1 = icmp ule i64 %end, %jl
  %jin = and i1 %j1, %a3
  br i1 %jin, label %hit, label %scan
hit:
  %h0 = insertvalue {{ i64, i64 }} undef, i64 %jb, 0
  %h1 = insertvalue {{ i64, i64 }} %h0, i64 %jl, 1
  ret {{ i64, i64 }} %h1
scan:
  %i = phi i64 [0, %last], [0, %probe], [%i1, %next]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %test, label %no
test:
  %i2 = shl i64 %i, 1
  %bp = getelementptr i64, ptr %tab, i64 %i2
  %base = load i64, ptr %bp
  %lp = getelementptr i64, ptr %bp, i64 1
  %lim = load i64, ptr %lp
  %b1 = icmp uge i64 %addr, %base
  %b2 = icmp ule i64 %end, %lim
  %b12 = and i1 %b1, %b2
  %inside = and i1 %b12, %a3
  %i1 = add i64 %i, 1
  br i1 %inside, label %found, label %next
next:
  br label %scan
found:
  %r0 = insertvalue {{ i64, i64 }} undef, i64 %base, 0
  %r1 = insertvalue {{ i64, i64 }} %r0, i64 %lim, 1
  ret {{ i64, i64 }} %r1
no:
  ret {{ i64, i64 }} zeroinitializer
}}

define void @tf_out(ptr %ctx, ptr %thr, i64 %kind, i64 %aux, i64 %val) {{
entry:
  %lp = getelementptr i64, ptr %ctx, i64 {L.CTX_OUT_LEN}
  %idx = atomicrmw add ptr %lp, i64 1 monotonic
  %cp = getelementptr i64, ptr %ctx, i64 {L.CTX_OUT_CAP}
  %cap = load i64, ptr %cp
  %fits = icmp slt i64 %idx, %cap
  br i1 %fits, label %put, label %done
put:
  %op = getelementptr i64, ptr %ctx, i64 {L.CTX_OUT}
  %outi = load i64, ptr %op
  %out = inttoptr i64 %outi to ptr
  %ri = mul i64 %idx, {L.OUT_SLOTS}
  %r0 = getelementptr i64, ptr %out, i64 %ri
  %tl = getelementptr i64, ptr %thr, i64 {L.T_LINEAR}
  %lin = load i64, ptr %tl
  store i64 %lin, ptr %r0
  %r1 = getelementptr i64, ptr %r0, i64 1
  store i64 %kind, ptr %r1
  %r2 = getelementptr i64, ptr %r0, i64 2
  store i64 %aux, ptr %r2
  %r3 = getelementptr i64, ptr %r0, i64 3
  store i64 %val, ptr %r3
  br label %done
done:
  ret void
}}
"""

# codegen.Gen, the generator of the function being built, and its Env: what a target's methods are
# given. Named, not imported: codegen imports this interface (a target's own module imports codegen and
# annotates with the real classes).
Gen = Any
Env = Any  # codegen.Env: the stacks and registers of the function being built

BodyEmitter = Callable[["Gen"], None]


def float_suffix(ty: ir.Type) -> str:
    """The LLVM intrinsic suffix of a float type: f32 or f64."""
    return "f64" if isinstance(ty, ir.DoubleType) else "f32"


class Target(ABC):
    """What code generation needs to know about a machine."""

    name: str
    triple: str
    data_layout: str = ""
    machine: Machine = DEFAULT_MACHINE  # the session's settings (machine.py): float type, stack capacities
    # compile_word(module, name): compile a word's module (its function `name`, everything else internal)
    # once and make `name` a symbol that later kernels' declarations find; None: words are linked into
    # every kernel that reaches them (nvptx: a PTX module is whole)
    compile_word: "Callable[[llvm.ModuleRef, str], None] | None" = None
    # True: the runtime helpers (HELPERS_IR) are linked into every kernel as a copy (nvptx: a PTX module is
    # whole); False: the backend compiles them once and kernels only declare them (the emulator: with its
    # scheduler), so a line's module holds only the line
    links_helpers: bool = True
    # ALLOCATE FREE RESIZE can be compiled (compile/heapgen.py: a call of the helper tf_heap, which the backend
    # defines; its caps say device_heap)
    device_heap: bool = False
    # DO loops whose bounds provably fit in 32 bits count in i32 (codegen.Gen.narrow_loop): a GPU's
    # 64-bit adds and compares take two instructions each; the emulator's take one either way
    narrow_loops: bool = False
    # loads and stores of an address known to point into global memory differ from generic ones (nvptx:
    # ld.global); a loop may then speculate that an address it keeps on the stack stays one (slottags.py)
    address_spaces: bool = False
    # the session addresses the code reads at run time (addresses.py: the cuda backend's, so that a line's PTX
    # is the same in every session); None: addresses are constants of the code (the emulator)
    addresses: "AddressTable | None" = None

    @abstractmethod
    def sreg(self, g: "Gen", which: str) -> ir.Value:
        """A special register as an i64: 'tid.x', 'bid.y', 'bdim.z', 'gdim.x'."""

    @abstractmethod
    def barrier(self, g: "Gen", site: int) -> None:
        """Block-wide barrier (the stack cache is already flushed)."""

    @abstractmethod
    def tile_op(self, g: "Gen", op: "TileOp", operands: list[ir.Value]) -> None:
        """One warp-collective tile operation (tileops.py); `operands` are its
        `op.operands` i64 values (address, stride, f32 bits), uniform in the warp."""

    @abstractmethod
    def warp_op(self, g: "Gen", op: "WarpOp", operands: list[ir.Value]) -> ir.Value | None:
        """One warp-collective operation of warpgen.py (a shuffle, a vote,
        ACTIVEMASK, SYNCWARP) over the full warp; `operands` are its
        `op.operands` i64 values, which may differ between lanes. Returns its
        result as an i64 cell (None for SYNCWARP)."""

    @abstractmethod
    def define_kernel(self, module: ir.Module, name: str, suspends: bool,
                      make_gen: Callable[[ir.Function, "Env", ir.Block], "Gen"],
                      emit_body: BodyEmitter, block: tuple[int, int, int] | None = None) -> ir.Function:
        """The kernel entry around a line's body (stacks in, body, stacks out);
        `block` is the launch's block shape when it is known."""

    def define_export(self, module: ir.Module, name: str, effect: object,
                      make_gen: Callable, emit_body: BodyEmitter) -> ir.Function:
        """A word as a standalone kernel (only targets that export kernels)."""
        raise NotImplementedError(f"the {self.name} target does not export kernels")

    def param(self, g: "Gen", index: int, kind: str) -> ir.Value:
        """A kernel-file parameter (only targets that export kernels)."""
        raise ForthError(f"kernel parameters exist only in exported kernels, not on the {self.name} target")

    def shared_addr(self, g: "Gen", offset: int) -> ir.Value:
        """Address of byte `offset` of this block's shared memory."""
        p = g.b.gep(g.env.ctx, [ir.Constant(ir.IntType(64), L.CTX_SHARED)], source_etype=ir.IntType(64))
        return g.b.add(g.b.load(p, typ=ir.IntType(64)), ir.Constant(ir.IntType(64), offset))

    def math(self, g: "Gen", name: str, args: list[ir.Value]) -> ir.Value:
        """A math function (sqrt, exp, sin, maxnum, ...) of f32 or f64 arguments (their type: the float
        stack's, Gen.float_t) as an LLVM intrinsic."""
        ty = args[0].type
        return g.b.call(g.intrinsic(f"llvm.{name}.{float_suffix(ty)}", ty, [ty] * len(args)), args)

    def function_state(self) -> object:
        """What this target keeps for one function while it is generated
        (fragment registers, coroutine blocks, kernel parameters); the
        generator holds it as `g.tstate` and never looks inside."""
        return None

    def module_globals(self, module: ir.Module, export: bool) -> None:
        """Declare (or, in an exported kernel, define) the globals this
        target's code refers to, in every module it generates."""

    def addr_ok(self, g: "Gen", addr: ir.Value, size: ir.Value, space: str | None) -> ir.Value:
        """i1: a checked access of `size` bytes at `addr` may go ahead. `space`
        is what the compiler knows of the address ("shared", "global" or None)."""
        return g.in_allocation(addr, size)

    def async_op(self, g: "Gen", op: Any, operands: list[ir.Value]) -> None:
        """One thread's asynchronous-copy operation (smem.py: CP.ASYNC, CP.COMMIT, CP.WAIT); `operands`
        are its `op.operands` i64 values. A target without them says so."""
        raise ForthError(f"{op.word} is not supported by the {self.name} target", None, op.word)

    def mem_access(self, g: "Gen", addr: ir.Value, size: int, kind: str, value: ir.Value | None,
                   word: str) -> None:
        """A checked access ("read", "write" or "atomic") of `size` bytes at `addr` by `word` is about
        to happen (after its range check; `value`: what a plain store writes, when known): the
        emulator checks it for races and for the array's element type, and traces it."""

    def mem_fence(self, g: "Gen") -> None:
        """A checked THREADFENCE was executed (the emulator's race detector orders a write the
        writer fenced before another thread's later atomic)."""

    def mem_pointer(self, g: "Gen", addr: ir.Value, space: str | None) -> ir.Value:
        """The pointer a load or store at integer address `addr` uses."""
        return g.b.inttoptr(addr, ir.PointerType())

    def check_stack(self, g: "Gen", depth: ir.Value) -> None:
        """Before a RECURSE (after the depth check): fail with E_RECURSION if
        the native stack has no room for another frame. Targets whose stack
        is sized for `recursion_max` frames (nvptx) need nothing more."""

    def thr_slot(self, g: "Gen", slot: int) -> ir.Value:
        return g.b.gep(g.env.thr, [ir.Constant(ir.IntType(64), slot)], source_etype=ir.IntType(64))


STATIC_SHARED_BYTES = 48 * 1024  # shared memory a kernel may declare statically (and use without an opt-in)
# the most shared memory a block may opt in to (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN on
# sm_90 and sm_100: 227 KiB), as dynamic shared memory: its size given at launch, past 48 KiB with
# cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) first
OPTIN_SHARED_BYTES = 227 * 1024


def dynamic_shared(nbytes: int) -> int:
    """The dynamic shared memory an exported kernel of `nbytes` of shared memory takes at launch: 0 when
    they fit in a static array (at most STATIC_SHARED_BYTES), else all of them."""
    return nbytes if nbytes > STATIC_SHARED_BYTES else 0


@record(frozen=True)
class LaunchShape:
    """A launch's grid and block (blocks per axis, threads per block per axis). The session
    owns it; compile and launch are given it."""

    grid: tuple[int, int, int] = (1, 1, 1)
    block: tuple[int, int, int] = (32, 1, 1)

    @property
    def nblocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def block_size(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def nthreads(self) -> int:
        return self.nblocks * self.block_size

    def warps_per_block(self, warp_size: int) -> int:
        return -(-self.block_size // warp_size)


@record(frozen=True)
class Capabilities:
    """What a machine offers, as the outer interpreter and the host words see it.
    Each backend states its own; GRID, THREADS, SHARED: and recursive calls are
    checked against these, never against another machine's numbers. The
    optional features (the flags below `keeps_tiles`) say which of Backend's
    optional members do something on this machine."""

    warp_size: int = L.WARP_SIZE
    max_block_threads: int = 1024  # threads in one block
    max_block: tuple[int, int, int] = (1024, 1024, 64)  # per axis
    max_grid: tuple[int, int, int] = (2**31 - 1, 65535, 65535)  # per axis
    # threads in one launch; the stacks and thread records must fit in memory besides (Device.machine_for
    # checks what free_memory says)
    max_threads: int = 1 << 31
    shared_bytes: int = STATIC_SHARED_BYTES  # shared memory per block
    recursion_max: int = L.RECURSION_MAX  # nested calls of recursive words per thread
    tile_shapes: tuple[tuple[int, int, int], ...] = ((16, 16, 16), (32, 8, 16), (8, 32, 16))
    keeps_tiles: bool = True  # the tile stack persists between lines
    arch: str = ""  # the GPU architecture its kernels are built for ("sm_90"); "" where there is none
    host_memory: bool = False  # device memory is host memory (arrays are limited by the host's)
    races: bool = False  # a race detector checks checked launches (set_race_checks, race_exempt, race_report)
    element_types: bool = False  # float words and tile ops are checked against arrays' element types
    access_trace: bool = False  # a launch can record its memory accesses (start_trace, take_trace)
    external_memory: bool = False  # other libraries' device arrays can be used in place (register_external)
    # ALLOCATE FREE RESIZE in a definition run in device code (the target's tf_heap reaches Backend.heap)
    # instead of ending the launch (core/heap.py, compile/heapgen.py)
    device_heap: bool = False
    # a big launch's stacks are kept lazily (cpu: backends/cpu/heldstacks.py): only the items threads hold
    # take memory, so stacks need not shrink past a million threads (machine.sized_for's `shrink`)
    lazy_stacks: bool = False


def fill_context(ctx: np.ndarray, *, allocs: int, n_allocs: int, out: int, out_cap: int, base_addr: int,
                 abort: int, shared_size: int, recursion_max: int, steps: int) -> np.ndarray:
    """A launch's context record (layout.py: CTX_*), the same on every backend: zeroed, then the
    allocation table, the output buffer, BASE, the abort flag, the shared window, the recursion
    limit and the launch's step pool. Backends add their own slots after this."""
    ctx[:] = 0
    ctx[L.CTX_ALLOCS] = allocs
    ctx[L.CTX_N_ALLOCS] = n_allocs
    ctx[L.CTX_OUT] = out
    ctx[L.CTX_OUT_CAP] = out_cap
    ctx[L.CTX_BASE_ADDR] = base_addr
    ctx[L.CTX_ABORT] = abort
    ctx[L.CTX_SHARED_SIZE] = shared_size
    ctx[L.CTX_RECURSION_MAX] = recursion_max
    ctx[L.CTX_STEPS_MAX] = max(int(steps), 1)  # the launch's pool: every thread's loops draw from it
    return ctx


@record
class LaunchResult:
    """What a launch left: the error record (code 0 = none), output records,
    and per-thread status/site for diagnosing a divergent barrier."""

    error: tuple[int, int, int, int, int]
    output: np.ndarray  # (n, 4) int64 records
    output_dropped: int = 0
    divergence: tuple[np.ndarray, np.ndarray, int] | None = None  # statuses, sites, block


class Backend(ABC):
    """What the session needs from a machine at run time. Every member a backend
    must have is here; the optional ones do nothing (or refuse) unless its
    `caps` says the machine has the feature."""

    name: str
    target: Target
    caps: Capabilities = Capabilities()
    machine: Machine = DEFAULT_MACHINE  # the session's settings (machine.py), given when the backend is made
    heap: Any = None  # ALLOCATE's blocks (core/heap.py's Heap), given by the session (device code's: caps.device_heap)

    # ---- memory ------------------------------------------------------------------------------------
    @abstractmethod
    def alloc(self, nbytes: int) -> int: ...

    @abstractmethod
    def free(self, addr: int) -> None: ...

    @abstractmethod
    def read(self, addr: int, nbytes: int) -> np.ndarray: ...

    @abstractmethod
    def write(self, addr: int, data: np.ndarray | bytes) -> None: ...

    def check_span(self, addr: int, nbytes: int) -> None:
        """A ForthError unless [addr, addr+nbytes) lies inside one live allocation (before a
        host word moves data there, e.g. READ-FILE before it reads the file)."""
        self.read(addr, nbytes)

    @abstractmethod
    def allocation_sizes(self) -> dict[int, int]:
        """The user's allocations (ARRAY, ALLOCATE, data space, f.kernel's arrays): address -> bytes."""

    def allocation_base(self, addr: int, nbytes: int) -> int | None:
        """The address of the user allocation that holds [addr, addr+nbytes), or None."""
        return next((b for b, n in self.allocation_sizes().items() if b <= addr and addr + nbytes <= b + n), None)

    def allocation_view(self, addr: int, nbytes: int) -> np.ndarray | None:
        """[addr, addr+nbytes) as a writable host array without a copy, where device memory is
        host memory (caps.host_memory); None elsewhere."""
        return None

    def register_external(self, addr: int, nbytes: int) -> None:
        """Another library's device array at addr, used in place (caps.external_memory)."""
        raise ForthError(f"the {self.name} backend cannot use another library's device memory in place")

    # ---- devices: several GPUs in one session (DEVICE, DEVICES, ACOPY) ------------------------------------
    current_device: int = 0  # where the launches that follow run and the arrays made from now on live

    def device_count(self) -> int:
        """The devices a session may select (DEVICES): one where the machine is one (the emulator)."""
        return 1

    def select_device(self, n: int) -> None:
        """Make device n current for the launches and arrays that follow (DEVICE); n is in range."""
        if n != 0:
            raise ForthError(f"the {self.name} backend has one device, 0")

    def array_alloc(self, nbytes: int) -> int:
        """A user array (ARRAY, MATRIX) of nbytes on the current device; the session's own memory (its data
        space, buffers) comes from alloc, on the device the session started on."""
        return self.alloc(nbytes)

    def array_device(self, addr: int) -> int:
        """The device the allocation at addr lives on."""
        return 0

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        """nbytes from src to dst, which may be on different devices (ACOPY)."""
        self.write(dst, self.read(src, nbytes))

    # ---- shared memory -------------------------------------------------------------------------------
    def set_shared(self, nbytes: int) -> int:
        """Make room for nbytes of shared memory per block (SHARED:); returns the address of the
        region the host sees (0 where blocks' shared memory is on the device only)."""
        return 0

    def shared_base(self) -> int:
        return 0

    def shared_regions(self) -> list[int]:
        """Every shared-memory region a block may have used, for naming addresses in errors."""
        return []

    # ---- stacks and tiles between launches ----------------------------------------------------------
    @abstractmethod
    def set_shape(self, shape: LaunchShape, interruptible: bool = False) -> None:
        """Make the thread records and empty stacks of a launch shape current. `interruptible`: a shape
        the line asked for (GRID, THREADS), whose making may stop at abort() with "interrupted" (a
        ForthError, nothing changed); never a failed line's restore, which must finish."""

    def set_machine(self, machine: Machine) -> None:
        """The session's settings for the launches that follow (the stacks' capacities change with the
        launch shape: Device.machine_for); a set_shape follows, which lays the stacks out for them."""
        self.machine = machine
        self.target.machine = machine

    @abstractmethod
    def get_state(self) -> np.ndarray:
        """A copy of every thread's stack state, shape (threads, machine.state_bytes) uint8."""

    @abstractmethod
    def set_state(self, state: np.ndarray) -> None: ...

    def state_buffer(self) -> np.ndarray | None:
        """The stack state itself, where it is host memory (StackState.live then works on it without
        a copy); None where the host must work on copies (get_state, set_state)."""
        return None

    def state_columns(self, start: int, width: int) -> np.ndarray:
        """Bytes [start, start+width) of every thread's stack state, shape (threads, width) uint8: what the
        host reads when it needs only the depths, or the cells in use (state.read_stacks); a backend whose
        stacks are device memory reads just those (cuda: a 2D copy)."""
        raw = self.state_buffer()
        return (raw if raw is not None else self.get_state())[:, start:start + width].copy()

    def set_state_columns(self, start: int, rows: np.ndarray) -> None:
        """Bytes [start, start+width) of every thread's stack state become `rows` ((threads, width) uint8):
        what a partial copy of the stacks writes back (StackState.save); cuda: a 2D copy."""
        raw = self.state_buffer()
        full = raw if raw is not None else self.get_state()
        full[:, start:start + rows.shape[1]] = rows
        if raw is None:
            self.set_state(full)

    def free_memory(self) -> int | None:
        """Bytes of memory a new launch shape's stacks and thread records may take (None: unknown)."""
        return None

    def shape_bytes(self, threads: int, m: Machine) -> int:
        """The memory a launch shape of `threads` threads takes: its stacks (laid out for `m`) and thread
        records."""
        return threads * (m.state_bytes + L.THR_SLOTS * 8)

    def take_stacks(self) -> object | None:
        """A copy of the stacks of its own for a failing line to restore (restore_stacks), or None: the
        session takes a host copy then (state.Snapshot). Cuda keeps a device copy."""
        return None

    def restore_stacks(self, snap: object) -> None:
        """The stacks back as take_stacks found them (the backend has the launch shape of then)."""
        raise NotImplementedError(f"{self.name} takes no copies of its own")

    @abstractmethod
    def get_tiles(self) -> list: ...

    @abstractmethod
    def set_tiles(self, tiles: list) -> None: ...

    @abstractmethod
    def tiles_of(self, warp: int) -> list:
        """A copy of one warp's tile data (logical matrices, bottom first)."""

    @abstractmethod
    def truncate_tiles(self, depth: int) -> None:
        """Drop tiles above the static depth a kernel ended with."""

    # ---- compile and launch ----------------------------------------------------------------------
    @abstractmethod
    def compile(self, module: "llvm.ModuleRef", kernel: str, suspends: bool, heavy: bool,
                shape: LaunchShape) -> object:
        """Compile a kernel module (tileforth/core/compile/compiler.py: the kernel, the helpers and
        the words it reaches, linked; the backend takes it over) for launches of `shape`; returns
        a handle for launch()."""

    def release(self, handle: object) -> None:
        """Forget a compiled kernel that will not be launched again (the
        session's kernel cache evicted it)."""

    @abstractmethod
    def launch(self, handle: object, shape: LaunchShape, base_addr: int, shared_bytes: int, steps: int,
               sites: Any = None, lits: Sequence[int] = ()) -> LaunchResult:
        """Run a kernel over `shape` (the shape set_shape made current); `sites` describes warp operations,
        `lits` is the launch's literal table (ctx[CTX_LITS]: a line's literals, linekey.py)."""

    def abort(self) -> None:
        """Ask the running line to stop at its next loop back-edge (Ctrl-C)."""

    def reset_abort(self) -> None:
        """Clear the abort flag (at the start of a line)."""

    def aborted(self) -> bool:
        """Whether abort() was asked since reset_abort(): the host's own loops and waits stop too
        (session/hostbound.py)."""
        return False

    def close(self) -> None:
        """Give back what the backend holds (a GPU context, device memory)."""

    def discard(self) -> None:
        """The session is closed for good (Forth.close): close(), and every buffer let go of now, not
        at the next garbage collection; the backend is not used again."""
        self.close()

    # ---- optional checks: the race detector, element types, the access trace -----------------------
    def set_race_checks(self, on: bool) -> None:
        """Race-check the launches that follow (caps.races; checked sessions turn it on)."""

    def race_exempt(self, addr: int) -> None:
        """Threads share the memory at addr on purpose (HLD's area): never report a race there."""

    def race_report(self, aux: int) -> object:
        """The race detector's record packed in an E_RACE error's aux (caps.races)."""
        raise ForthError(f"the {self.name} backend has no race detector")

    def set_element_type(self, addr: int, dtype: np.dtype) -> None:
        """The element type of the allocation at addr (caps.element_types); its metadata names it."""

    def element_type(self, addr: int) -> np.dtype | None:
        """The element type set for the allocation at addr, or None."""
        return None

    def start_trace(self, cap: int) -> None:
        """Record up to `cap` memory accesses of each launch that follows (caps.access_trace)."""
        raise ForthError(f"the {self.name} backend cannot trace memory accesses")

    def stop_trace(self) -> None:
        """No more tracing."""

    def take_trace(self) -> tuple[np.ndarray, int, np.ndarray | None]:
        """The last traced launch's records (races.py's layout), how many did not fit, and each
        thread's barrier epoch at its end (None where not kept); the backend forgets the records."""
        return np.zeros((0, 4), np.int64), 0, None
