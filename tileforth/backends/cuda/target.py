"""The NVPTX target: the same per-thread IR, lowered for NVIDIA GPUs.

* special registers  -> llvm.nvvm.read.ptx.sreg.*        (tid, ctaid, ntid, nctaid)
* BARRIER            -> llvm.nvvm.barrier0               (bar.sync 0)
* SHARED: memory     -> `tf_shared`, one addrspace(3) array: dynamic (sized at launch)
                        in REPL kernels, a fixed size in exported kernels; accesses
                        through a SHARED: name are ld/st.shared, through an ARRAY
                        name or an array parameter ld/st.global
* checked accesses   -> the block's shared window, else the allocation table
                        (the last allocation hit is kept in registers)
* the launch's block -> `.maxntid`, so ptxas keeps registers within what the block needs
* CP.ASYNC CP.COMMIT CP.WAIT -> llvm.nvvm.cp.async.cg.shared.global.16(.s), commit.group,
                        wait.group (sm_80+; smem.py gates the arch at the word)
* tile words         -> llvm.nvvm.wmma.* with a `convergent` attribute on every
                        call site (LLVM 22 does not mark them; O3 was seen
                        sinking a wmma.load into a divergent branch)
* m16n8k16 tiles     -> TMMA: llvm.nvvm.mma.m16n8k16.row.col.* (mma.sync, sm_80+);
                        TLDSM-A/-B/-B-COL: ldmatrix.sync.aligned.m8n8.x4 / .x2.trans / .x2 (sm_80+ here),
                        TSTSM: stmatrix.sync.aligned.m8n8.x2 (sm_90+), each lane's
                        address from the tile's geom (tileops.lane_chunk, the swizzle);
                        TLOAD-*/TSTORE: each lane's own elements by the documented
                        layout (tiles.mma_coords); TLANE@/TLANE!: extract/insertvalue
* warp words         -> llvm.nvvm.shfl.sync.* (a cell or an f64 as two 32-bit
                        shuffles), vote.*.sync, activemask, bar.warp.sync, with a
                        full mask and `convergent` call sites
* FEXP FLN FSIN FCOS FTAN F** ... -> libdevice (__nv_expf ...), linked when used

Fragments live in per-position allocas (one per tile-stack position and
fragment type); SROA turns them into registers, and control-flow joins get
phis for free.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

from llvmlite import ir
from tileforth.core.compile import layout as L
from tileforth.core.compile.machine import DEFAULT as DEFAULT_MACHINE
from tileforth.core.compile.machine import Machine
from tileforth.core.compile.codegen import (
    F16,
    F32,
    I8,
    I32,
    I64,
    PTR,
    Env,
    c64,
    declare,
    fconvert,
    finish_state,
    float_type,
    state_env,
)
from tileforth.core.compile.target import STATIC_SHARED_BYTES, BodyEmitter, Target, dynamic_shared, float_suffix
from tileforth.core.compile.tileops import (Add, Copy, Fill, LaneGet, LanePut, LdMatrix, Load, Mma, Perm, Scale,
                                             StMatrix, Store, TileOp, Zero, lane_chunk)
from tileforth.core.compile.tiles import MMA_ELEMS, WMMA_SHAPES, Hole, Tile, elem_bytes, mma_coords, resolve
from tileforth.core.compile.tileops import ActiveMask, Shuffle, SyncWarp, Vote, WarpOp
from tileforth.core.compile.primitives import _to_bf16
from tileforth.core.compile.smem import AsyncCommit, AsyncCopy, AsyncOp, AsyncWait
from tileforth.core.errors import ForthError
from tileforth.core.records import field, record, replace

from . import hopper

if TYPE_CHECKING:
    from tileforth.core.compile.codegen import Gen

H2 = ir.VectorType(F16, 2)
# kernel-file parameters: arrays are pointers, scalars keep their declared type
PARAM_TYPES = {"ptr": PTR, "int": I64, "float": F32, "i8": I8, "i16": ir.IntType(16), "i32": I32, "i64": I64,
               "f16": F16, "bf16": ir.IntType(16), "f32": F32, "f64": ir.DoubleType()}
# f32 math functions that NVPTX has no instruction for: libdevice's (the others,
# sqrt fabs floor trunc roundeven maxnum minnum, are llvm.<name>.f32 intrinsics)
LIBDEVICE_MATH = {name: f"__nv_{name}f" for name in (
    "exp", "exp10", "expm1", "log", "log10", "log1p", "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh")}
_SREG = {"tid": "tid", "bid": "ctaid", "bdim": "ntid", "gdim": "nctaid"}
# what each architecture's tensor cores take (../shared/reference/tensor_cores.md): wmma with f16 inputs from
# sm_70 (every shape of tiles.SHAPES, f16 or f32 accumulators), bf16 inputs from sm_80 (LLVM's instruction
# selection aborts the process on "Cannot select" below it); checked at the tile word, with its position
TILE_MIN_SM = {"f16": 70, "bf16": 80}
# the m16n8k16 instructions (PTX ISA: mma.sync .m16n8k16 with .f16/.bf16 needs sm_80, stmatrix sm_90; ldmatrix
# sm_75 with PTX 6.5, but LLVM 22's sm_75 target emits PTX 6.3 and aborts on "Cannot select" for it, as it does
# below the others): checked at the word, as TILE_MIN_SM is
MMA_SYNC_MIN_SM = {"TMMA": 80, "ldmatrix": 80, "stmatrix": 90}
FULL_MASK = ir.Constant(I32, -1)  # every lane of the warp (0xffffffff)
SHFL_MODE = {"idx": "idx", "up": "up", "down": "down", "xor": "bfly"}  # warpgen's mode -> the intrinsic's


def geom(shape: tuple[int, int, int]) -> str:
    m, n, k = shape
    return f"m{m}n{n}k{k}"


def frag_type(t: "Tile | Hole") -> ir.Type:
    """The per-lane register struct of a fragment (tensor_cores.md §5.1); of a grid (TILE-GRID), the
    registers of its fragments one after another, fragment (i, j) of an m x n grid the (i*n + j)-th."""
    t = resolve(t)
    if isinstance(t, Hole):  # a definition checked alone (at ;) copies or moves an input tile it never uses as
        return ir.LiteralStructType([I32])  # an operand: its kind stays unknown, and that check never runs
    regs = t.regs
    if t.dtype == "f32":
        elt = F32
    elif t.dtype == "f16":
        elt = H2
    else:  # bf16 is packed two per i32
        elt = I32
    return elt if regs == 1 else ir.LiteralStructType([elt] * regs)


def _build_whitelist() -> frozenset[str]:
    """Every wmma intrinsic this target may call, from the PTX/LLVM grammar."""
    names = set()
    for shape in WMMA_SHAPES:
        g = geom(shape)
        for lay in ("row", "col"):
            for frag, types in (("a", ("f16", "bf16")), ("b", ("f16", "bf16")), ("c", ("f16", "f32"))):
                for ty in types:
                    for sp in ("p0", "p1", "p3"):  # generic, global, shared pointers
                        names.add(f"llvm.nvvm.wmma.{g}.load.{frag}.{lay}.stride.{ty}.{sp}")
            for ty in ("f16", "f32"):
                for sp in ("p0", "p1", "p3"):
                    names.add(f"llvm.nvvm.wmma.{g}.store.d.{lay}.stride.{ty}.{sp}")
        for al in ("row", "col"):
            for bl in ("row", "col"):
                for d in ("f16", "f32"):
                    for c in ("f16", "f32"):
                        names.add(f"llvm.nvvm.wmma.{g}.mma.{al}.{bl}.{d}.{c}")
                names.add(f"llvm.nvvm.wmma.{g}.mma.{al}.{bl}.bf16")
    names |= {f"llvm.nvvm.mma.m16n8k16.row.col.{sig}" for sig in ("f32.f32", "f16.f16", "bf16")}
    names |= {"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16", "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.trans.b16",
              "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.b16", "llvm.nvvm.stmatrix.sync.aligned.m8n8.x2.b16"}
    return frozenset(names)


WMMA_NAMES = _build_whitelist()


# the shared memory a block may opt in to, by compute capability (CUDA C Programming Guide, "Technical
# Specifications per Compute Capability": MAX_SHARED_MEMORY_PER_BLOCK_OPTIN); others: 48 KiB
SHARED_OPTIN = {70: 96 * 1024, 72: 48 * 1024, 75: 64 * 1024, 80: 163 * 1024, 86: 99 * 1024, 87: 163 * 1024,
                89: 99 * 1024, 90: 227 * 1024, 100: 227 * 1024, 103: 227 * 1024, 120: 99 * 1024}
SHARED_OPTIN_DEFAULT = STATIC_SHARED_BYTES


@record
class NvptxFunction:
    """The nvptx target's state for one function: the alloca holding each
    tile-stack position's fragment (per fragment type), and the declared
    types of a kernel file's parameters (None outside a kernel file)."""

    frag_slots: dict[tuple[int, str], ir.Value] = field(default_factory=dict)
    params: list[str] | None = None


GLOBAL, SHARED = ir.PointerType(addrspace=1), ir.PointerType(addrspace=3)
UNCHECKED_RECURSION_MAX = 256  # an --unchecked export's depth limit for recursive words (backend.RECURSION_MAX)


class NvptxTarget(Target):
    name = "nvptx"
    triple = "nvptx64-nvidia-cuda"
    narrow_loops = True  # i32 loop indices where they provably fit (codegen.Gen.narrow_loop)
    address_spaces = True  # ld/st.global and .shared (mem_pointer)

    def __init__(self, arch: str = "sm_80", data_layout: str = "", machine: Machine = DEFAULT_MACHINE) -> None:
        self.machine = machine
        self.arch = arch
        m = re.fullmatch(r"sm_(\d+)a?", arch)  # sm_90a: sm_90's arch-specific features too
        if m is None:
            raise ForthError(f"unknown GPU architecture {arch}: give one like sm_80, sm_90 or sm_90a")
        self.sm = int(m.group(1))
        self.data_layout = data_layout
        self.shared_bytes = 0
        # exported kernels: True, the entry's first parameter is the context record (docs/kernel-files.md,
        # "The ABI"); False (`--unchecked`), it takes only the user's parameters and the record is private
        self.context = True
        # a kernel file's `\\! block`: its entry's .maxntid, and .minnctapersm 1 when it sets registers with
        # setmaxnreg (REGS- REGS+), which ptxas ignores (C7508) unless it knows the registers at entry
        self.entry_block: tuple[int, int, int] | None = None

    # ---- registers, barrier, memory ------------------------------------------
    def sreg(self, g: "Gen", which: str) -> ir.Value:
        reg, axis = which.split(".")
        fn = g.intrinsic(f"llvm.nvvm.read.ptx.sreg.{_SREG[reg]}.{axis}", I32, [])
        return g.b.zext(g.b.call(fn, []), I64)

    def barrier(self, g: "Gen", site: int) -> None:
        g.b.call(g.intrinsic("llvm.nvvm.barrier0", ir.VoidType(), []), [])

    def function_state(self) -> NvptxFunction:
        return NvptxFunction()

    def module_globals(self, module: ir.Module, export: bool) -> None:
        """`tf_shared`: in an exported kernel of at most 48 KiB of shared memory (SHARED:, SMEM-TILE, a
        kernel file's `\\! shared` and `\\! smem`) an array of that size (the kernel needs nothing at
        launch); elsewhere dynamic shared memory (`.extern .shared .align 1024`) whose size the launch
        gives: an exported kernel's launcher passes its size (dynamic_shared) and opts in past 48 KiB,
        the REPL's launches the session's; a word compiled on its own refers to the same array as the
        kernel that calls it."""
        if export and not self.shared_bytes:
            return
        most = SHARED_OPTIN.get(self.sm, SHARED_OPTIN_DEFAULT)
        if export and self.shared_bytes > most:
            raise ForthError(f"this kernel needs {self.shared_bytes} bytes of shared memory, but a block of an "
                             f"{self.arch} GPU may have at most {most}: use smaller tiles or fewer stages")
        static = export and not dynamic_shared(self.shared_bytes)
        ty = ir.ArrayType(I8, self.shared_bytes if static else 0)
        arr = ir.GlobalVariable(module, ty, "tf_shared", addrspace=3)
        arr.type = SHARED  # an opaque pointer, so that accesses through it may have any type
        arr.align = 1024  # a 128-byte-swizzled tile's pattern is the address's: wgmma, TMA (SMEM-TILE-SWZ)
        if static:
            arr.linkage = "internal"
            arr.initializer = ir.Constant(ty, ir.Undefined)
        else:
            arr.linkage = "external"

    def _shared_base(self, g: "Gen") -> ir.Value:
        """The generic address of this block's shared memory (cvta.shared)."""
        return g.b.ptrtoint(g.b.addrspacecast(g.module.globals["tf_shared"], PTR), I64)

    def shared_addr(self, g: "Gen", offset: int) -> ir.Value:
        return g.b.add(self._shared_base(g), c64(offset))

    def addr_ok(self, g: "Gen", addr: ir.Value, size: ir.Value, space: str | None) -> ir.Value:
        """A SHARED: address must lie in the block's shared window (its size is
        in the context record); another address may be in either the window
        or an allocation (device memory, CuPy/PyTorch arrays)."""
        b = g.b
        off = b.sub(addr, self._shared_base(g))
        room = b.sub(b.load(b.gep(g.env.ctx, [c64(L.CTX_SHARED_SIZE)], source_etype=I64), typ=I64), size)
        in_window = b.and_(b.icmp_signed(">=", room, c64(0)), b.icmp_unsigned("<=", off, room))
        if space == "shared":
            return in_window
        here = b.block
        other, done = g.new_block("not_shared"), g.new_block("addr_checked")
        b.cbranch(in_window, done, other)
        b.position_at_end(other)
        in_alloc = g.in_allocation(addr, size)
        last = b.block
        b.branch(done)
        b.position_at_end(done)
        ok = b.phi(ir.IntType(1), name="addr_ok")
        ok.add_incoming(ir.Constant(ir.IntType(1), 1), here)
        ok.add_incoming(in_alloc, last)
        return ok

    def mem_pointer(self, g: "Gen", addr: ir.Value, space: str | None) -> ir.Value:
        """ld/st.shared for SHARED: addresses (an offset into tf_shared),
        ld/st.global for arrays; generic otherwise."""
        b = g.b
        if space == "shared":
            return b.gep(g.module.globals["tf_shared"], [b.sub(addr, self._shared_base(g))], source_etype=I8)
        if space == "global":
            return b.addrspacecast(b.inttoptr(addr, PTR), GLOBAL)
        return b.inttoptr(addr, PTR)

    def _tile_pointer(self, g: "Gen", addr: ir.Value) -> tuple[ir.Value, str]:
        """A tile load's or store's pointer and its intrinsic's suffix: an address known to point into an
        array (an ARRAY or MATRIX name, a kernel-file array parameter) is a global pointer (`.p1`:
        wmma.load.*.global, SASS LDG), one into SHARED: memory a shared one (`.p3`: LDS); any other
        a generic one (`.p0`)."""
        space = g.space_of(addr)
        if space in ("global", "shared"):
            return self.mem_pointer(g, addr, space), "p1" if space == "global" else "p3"
        return g.b.inttoptr(addr, PTR), "p0"

    def math(self, g: "Gen", name: str, args: list[ir.Value]) -> ir.Value:
        ty = args[0].type  # f32, or f64 (the float stack's type in the f64 mode): __nv_sin, llvm.sqrt.f64
        if name in LIBDEVICE_MATH:
            fn = LIBDEVICE_MATH[name] if ty == F32 else LIBDEVICE_MATH[name][:-1]
            return g.b.call(g.intrinsic(fn, ty, [ty] * len(args)), args)
        return g.b.call(g.intrinsic(f"llvm.{name}.{float_suffix(ty)}", ty, [ty] * len(args)), args)

    # ---- asynchronous copies (smem.py; the word checked the arch) -----------------
    def async_op(self, g: "Gen", op: AsyncOp, operands: list[ir.Value]) -> None:
        b = g.b
        void = ir.VoidType()
        match op:
            case AsyncCopy():
                gaddr, saddr, nbytes = operands
                dst = self.mem_pointer(g, saddr, "shared")
                src = self.mem_pointer(g, gaddr, "global")
                if op.word == "CP.ASYNC":
                    fn = g.intrinsic("llvm.nvvm.cp.async.cg.shared.global.16", void, [SHARED, GLOBAL])
                    b.call(fn, [dst, src])
                else:  # the zero-fill form: src-size bytes read, the rest of the 16 zeros
                    fn = g.intrinsic("llvm.nvvm.cp.async.cg.shared.global.16.s", void, [SHARED, GLOBAL, I32])
                    b.call(fn, [dst, src, b.trunc(nbytes, I32)])
            case AsyncCommit():
                b.call(g.intrinsic("llvm.nvvm.cp.async.commit.group", void, []), [])
            case AsyncWait(n=n):
                b.call(g.intrinsic("llvm.nvvm.cp.async.wait.group", void, [I32]), [ir.Constant(I32, n)])
            case _:  # pragma: no cover - smem.py emits only the ops above
                raise AssertionError(op)

    # ---- Hopper: mbarriers, fences, ELECT, TMA (hopper.py; the words checked the arch) ----
    def hopper_op(self, g: "Gen", op: Any, operands: list[ir.Value]) -> ir.Value | None:
        return hopper.lower(self, g, op, operands)

    def wgmma_op(self, g: "Gen", op: Any, operands: list[ir.Value]) -> ir.Value | None:
        """Warpgroup MMA (core/compile/wgmma.py; hopper.py lowers it, the words checked the arch)."""
        return hopper.lower_wgmma(self, g, op, operands)

    def shared_space_base(self, g: "Gen") -> ir.Value:
        return hopper.shared_space_base(g)

    # ---- tiles ----------------------------------------------------------------
    def _slot(self, g: "Gen", pos: int, t: Tile) -> ir.Value:
        slots = g.tstate.frag_slots
        ty = frag_type(t)
        key = (pos, str(ty))
        if key not in slots:
            slots[key] = g.alloca(ty, f"frag{pos}")
        return slots[key]

    def _wmma(self, g: "Gen", name: str, ret: ir.Type, args: list[ir.Value]) -> ir.Value:
        if name not in WMMA_NAMES:  # a misspelled intrinsic would silently become an external call
            raise ForthError(f"internal error: {name} is not a wmma intrinsic of LLVM 22")
        fn = g.intrinsic(name, ret, [a.type for a in args])
        return g.b.call(fn, args, attrs=("convergent",))

    def _check_arch(self, t: Tile, word: str) -> None:
        """The tile's input type on this architecture's tensor cores (TILE_MIN_SM), before any intrinsic is
        emitted; tilegen gives the error the word's position."""
        need = TILE_MIN_SM.get(t.dtype, 70)
        if self.sm < need:
            fix = "use F16 TILE-IN, " if t.dtype != "f16" else ""
            raise ForthError(f"{word}: {t.dtype} tiles need the tensor cores of sm_{need} or newer, but this kernel "
                             f"is built for {self.arch}: {fix}compile for sm_{need} or newer (--arch), or run it "
                             "with --backend cpu", word=word)

    def _tile_mem_check(self, g: "Gen", t: Tile, addr: ir.Value, stride: ir.Value) -> None:
        if not g.checked:
            return
        rows, cols = t.rows_cols
        lead = cols if t.layout == "row" else rows
        other = rows if t.layout == "row" else cols
        esize = elem_bytes(t.dtype)
        span = g.b.mul(g.b.add(g.b.mul(c64(other - 1), stride), c64(lead)), c64(esize))
        # alignment first, as the emulator checks it: a misaligned tile is the more useful message
        g.fail_if(g.b.icmp_unsigned("!=", g.b.and_(addr, c64(31)), c64(0)), L.E_ALIGN, addr=addr, aux=c64(32))
        ok = self.addr_ok(g, addr, span, g.space_of(addr))
        g.fail_if(g.b.not_(ok), L.E_BAD_ADDR, addr=addr, aux=span)
        bad = g.b.or_(g.b.icmp_signed("<", stride, c64(lead)),
                      g.b.icmp_unsigned("!=", g.b.and_(g.b.mul(stride, c64(esize)), c64(15)), c64(0)))
        g.fail_if(bad, L.E_ALIGN, addr=stride, aux=c64(16))

    # ---- m16n8k16 (mma.sync) fragments: each lane's own elements, by the documented layout ----------
    def _check_mma_sync_arch(self, word: str, what: str, insn: str) -> None:
        need = MMA_SYNC_MIN_SM[what]
        if self.sm < need:
            raise ForthError(f"{word}: {insn} needs sm_{need} or newer, but this kernel is built for {self.arch}: "
                             f"compile for sm_{need} or newer (--arch), or run it with --backend cpu", word=word)

    @staticmethod
    def _lane(g: "Gen") -> ir.Value:
        return g.b.zext(g.b.call(g.intrinsic("llvm.nvvm.read.ptx.sreg.laneid", I32, []), []), I64)

    def _lane_shared_ptr(self, g: "Gen", kind: str, operands: list[ir.Value]) -> ir.Value:
        """The shared address this lane gives ldmatrix/stmatrix: row + dr, chunk col/8 + dc
        (tileops.lane_chunk), the chunk xor (row mod 8) in a swizzled tile; checked mode: inside the
        block's shared window."""
        b = g.b
        saddr, row, col, gm = operands
        lane = self._lane(g)
        if kind == "a":
            dr, dc = b.and_(lane, c64(15)), b.lshr(lane, c64(4))
        elif kind == "bcol":
            dr, dc = b.and_(lane, c64(7)), b.and_(b.lshr(lane, c64(3)), c64(1))
        else:
            dr, dc = b.and_(lane, c64(15)), c64(0)
        assert lane_chunk(17, kind) == {"a": (1, 1), "bcol": (1, 0)}.get(kind, (1, 0))  # the emulator's arithmetic
        assert lane_chunk(9, kind) == {"a": (9, 0), "bcol": (1, 1)}.get(kind, (9, 0))
        r = b.add(row, dr)
        ch = b.add(b.lshr(col, c64(3)), dc)
        chunks = b.and_(b.lshr(gm, c64(16)), c64(0xFFFF))
        swz = b.sub(c64(0), b.and_(b.lshr(gm, c64(32)), c64(1)))  # all ones when swizzled
        ch = b.xor(ch, b.and_(b.and_(r, c64(7)), swz))
        addr = b.add(saddr, b.shl(b.add(b.mul(r, chunks), ch), c64(4)))
        if g.checked:
            g.fail_if(b.icmp_unsigned("!=", b.and_(addr, c64(15)), c64(0)), L.E_ALIGN, addr=addr, aux=c64(16))
            g.fail_if(b.not_(self.addr_ok(g, addr, c64(16), "shared")), L.E_BAD_ADDR, addr=addr, aux=c64(16))
        return self.mem_pointer(g, addr, "shared")

    @staticmethod
    def _pack16(g: "Gen", lo: ir.Value, hi: ir.Value, ty: str) -> ir.Value:
        """Two f32 as one register of two 16-bit elements (lo in the low half), rounded to nearest even."""
        b = g.b
        if ty == "bf16":
            halves = [b.zext(_to_bf16(g, x), I32) for x in (lo, hi)]
        else:
            halves = [b.zext(b.bitcast(b.fptrunc(x, F16), ir.IntType(16)), I32) for x in (lo, hi)]
        return b.or_(halves[0], b.shl(halves[1], ir.Constant(I32, 16)))

    def _elem_addr(self, g: "Gen", t: Tile, lane: ir.Value, i: int, addr: ir.Value, stride: ir.Value) -> ir.Value:
        """The address of element i of this lane's fragment (tiles.mma_coords) in a row- or column-major tile."""
        b = g.b
        rows_at = [mma_coords(t.kind, ln, i)[0] for ln in range(4)] + [mma_coords(t.kind, 4, i)[0]]
        cols_at = [mma_coords(t.kind, ln, i)[1] for ln in range(4)] + [mma_coords(t.kind, 4, i)[1]]
        # every formula is base + a*(lane>>2) + b*(lane&3): read a, b off lanes 0, 1 and 4
        def affine(v: list[int]) -> ir.Value:
            base, per_t, per_g = v[0], v[1] - v[0], v[4] - v[0]
            return b.add(c64(base), b.add(b.mul(b.lshr(lane, c64(2)), c64(per_g)), b.mul(b.and_(lane, c64(3)),
                                                                                          c64(per_t))))
        r, c = affine(rows_at), affine(cols_at)
        idx = b.add(b.mul(r, stride), c) if t.layout == "row" or t.kind == "acc" else b.add(b.mul(c, stride), r)
        return b.add(addr, b.mul(idx, c64(elem_bytes(t.dtype))))

    def _lane_load(self, g: "Gen", t: Tile, addr: ir.Value, stride: ir.Value) -> ir.Value:
        b = g.b
        lane, space = self._lane(g), g.space_of(addr)
        ty = frag_type(t)
        elems = []
        for i in range(MMA_ELEMS[t.kind]):
            ptr = self.mem_pointer(g, self._elem_addr(g, t, lane, i, addr, stride), space)
            elems.append(b.load(ptr, typ=F32 if t.dtype == "f32" else ir.IntType(16)))
        frag = ir.Constant(ty, ir.Undefined)
        if t.dtype == "f32":
            for i, e in enumerate(elems):
                frag = b.insert_value(frag, e, i)
            return frag
        for r in range(len(ty.elements)):
            lo, hi = (b.zext(e, I32) for e in elems[2 * r:2 * r + 2])
            word = b.or_(lo, b.shl(hi, ir.Constant(I32, 16)))
            frag = b.insert_value(frag, word if ty.elements[r] == I32 else b.bitcast(word, H2), r)
        return frag

    def _lane_store(self, g: "Gen", t: Tile, frag: ir.Value, addr: ir.Value, stride: ir.Value) -> None:
        b = g.b
        lane, space = self._lane(g), g.space_of(addr)
        for i in range(MMA_ELEMS[t.kind]):
            ptr = self.mem_pointer(g, self._elem_addr(g, t, lane, i, addr, stride), space)
            if t.dtype == "f32":
                b.store(b.extract_value(frag, i), ptr)
            else:
                b.store(b.extract_element(b.extract_value(frag, i // 2), ir.Constant(I32, i % 2)), ptr)

    def _acc_element(self, g: "Gen", t: Tile, frag: ir.Value, j: int) -> ir.Value:
        """Element j of an accumulator fragment as f32."""
        if t.dtype == "f32":
            return g.b.extract_value(frag, j)
        return g.b.fpext(g.b.extract_element(g.b.extract_value(frag, j // 2), ir.Constant(I32, j % 2)), F32)

    def _lane_op(self, g: "Gen", op: "LaneGet | LanePut", operands: list[ir.Value]) -> ir.Value | None:
        """TLANE@ / TLANE!: element i of this lane's registers, i taken mod 4 (mod 4mn in an m x n grid,
        whose fragment f holds elements 4f..4f+3; the emulator reports an index outside): a chain of
        selects, so a run-time i keeps the fragment in registers."""
        b, t = g.b, op.tile
        assert t is not None  # tilegen always gives the accumulator
        slot = self._slot(g, op.pos, t)
        ty = frag_type(t)
        frag = b.load(slot, typ=ty)
        nel = MMA_ELEMS["acc"] * t.frags
        i = b.and_(operands[0], c64(nel - 1)) if nel & (nel - 1) == 0 else b.urem(operands[0], c64(nel))
        if isinstance(op, LaneGet):
            out = self._acc_element(g, t, frag, 0)
            for j in range(1, nel):
                out = b.select(b.icmp_unsigned("==", i, c64(j)), self._acc_element(g, t, frag, j), out)
            return b.zext(b.bitcast(out, I32), I64)
        new = b.bitcast(b.trunc(operands[1], I32), F32)
        for j in range(nel):
            hit = b.icmp_unsigned("==", i, c64(j))
            if t.dtype == "f32":
                frag = b.insert_value(frag, b.select(hit, new, b.extract_value(frag, j)), j)
            else:
                reg = b.extract_value(frag, j // 2)
                lane_j = ir.Constant(I32, j % 2)
                h = b.select(hit, b.fptrunc(new, F16), b.extract_element(reg, lane_j))
                frag = b.insert_value(frag, b.insert_element(reg, h, lane_j), j // 2)
        b.store(frag, slot)
        return None

    # ---- big register tiles (TILE-GRID): a grid's ops unrolled over its fragments at compile time ---------
    @staticmethod
    def _one(t: Tile) -> Tile:
        """The tile of one fragment of t's grid."""
        return replace(t, grid=(1, 1))

    def _split(self, g: "Gen", t: Tile, val: ir.Value) -> list[list[ir.Value]]:
        """The registers of each fragment of the grid value val (row-major over the grid)."""
        per = self._one(t).regs
        return [[g.b.extract_value(val, f * per + r) for r in range(per)] for f in range(t.frags)]

    def _join(self, g: "Gen", t: Tile, frags: list[list[ir.Value]]) -> ir.Value:
        out = ir.Constant(frag_type(t), ir.Undefined)
        for k, reg in enumerate(r for regs in frags for r in regs):
            out = g.b.insert_value(out, reg, k)
        return out

    @staticmethod
    def _frag_origins(t: Tile) -> list[tuple[int, int]]:
        """The first row and column of each fragment of t's grid in its logical matrix."""
        fr, fc = t.frag_shape
        return [(i * fr, j * fc) for i in range(t.grid[0]) for j in range(t.grid[1])]

    def _frag_addr(self, g: "Gen", t: Tile, addr: ir.Value, stride: ir.Value, r0: int, c0: int) -> ir.Value:
        """The address of the fragment whose first element is (r0, c0) of a tile in memory at addr (row- or
        column-major as the tile was loaded, stride elements between lines)."""
        if r0 == c0 == 0:
            return addr
        b = g.b
        outer, inner = (r0, c0) if t.layout == "row" or t.kind == "acc" else (c0, r0)
        off = b.add(b.mul(c64(outer), stride), c64(inner))
        return b.add(addr, b.mul(off, c64(elem_bytes(t.dtype))))

    def _grid_load(self, g: "Gen", t: Tile, addr: ir.Value, stride: ir.Value) -> ir.Value:
        one = self._one(t)
        frags = []
        for r0, c0 in self._frag_origins(t):
            val = self._lane_load(g, one, self._frag_addr(g, t, addr, stride, r0, c0), stride)
            frags.append([g.b.extract_value(val, r) for r in range(one.regs)])
        return self._join(g, t, frags)

    def _grid_store(self, g: "Gen", t: Tile, val: ir.Value, addr: ir.Value, stride: ir.Value) -> None:
        one = self._one(t)
        for (r0, c0), regs in zip(self._frag_origins(t), self._split(g, t, val)):
            self._lane_store(g, one, self._join(g, one, [regs]), self._frag_addr(g, t, addr, stride, r0, c0), stride)

    def tile_op(self, g: "Gen", op: TileOp, operands: list[ir.Value]) -> None:
        b = g.b
        match op:
            case Zero(dst, t) | Fill(dst, t):
                v = ir.Constant(F32, 0.0) if isinstance(op, Zero) else b.bitcast(b.trunc(operands[0], I32), F32)
                b.store(self._splat(g, t, v), self._slot(g, dst, t))
            case Load(dst, t) if t.mma_sync:
                addr, stride = operands
                self._tile_mem_check(g, t, addr, stride)
                b.store(self._grid_load(g, t, addr, stride), self._slot(g, dst, t))
            case Store(src, t) if t.mma_sync:
                addr, stride = operands
                self._tile_mem_check(g, t, addr, stride)
                self._grid_store(g, t, b.load(self._slot(g, src, t), typ=frag_type(t)), addr, stride)
            case Mma(acc_at, a_at, b_at, acc, at, bt) if acc.mma_sync:
                self._check_mma_sync_arch("TMMA", "TMMA", "mma.sync m16n8k16")
                a_f, b_f, c_f = (self._split(g, t, b.load(self._slot(g, pos, t), typ=frag_type(t)))
                                 for pos, t in ((a_at, at), (b_at, bt), (acc_at, acc)))
                sig = "bf16" if at.dtype == "bf16" else f"{acc.dtype}.{acc.dtype}"
                name = f"llvm.nvvm.mma.m16n8k16.row.col.{sig}"
                one = self._one(acc)
                gm, gn = acc.grid
                out = []
                for i in range(gm):  # acc[i][j] += a[i] . b[j]: one mma.sync per accumulator fragment
                    for j in range(gn):
                        d = self._wmma(g, name, frag_type(one), [*a_f[i], *b_f[j], *c_f[i * gn + j]])
                        out.append([b.extract_value(d, r) for r in range(one.regs)])
                b.store(self._join(g, acc, out), self._slot(g, acc_at, acc))
            case LdMatrix(dst, t, word):
                self._check_mma_sync_arch(word, "ldmatrix", "ldmatrix")
                if t.kind == "a":
                    name, ret = "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16", ir.LiteralStructType([I32] * 4)
                elif op.n_major:  # b from an n-major tile: no transpose
                    name, ret = "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.b16", ir.LiteralStructType([I32] * 2)
                else:
                    name, ret = "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.trans.b16", ir.LiteralStructType([I32] * 2)
                elt = frag_type(self._one(t)).elements
                saddr, row, col, gm_ = operands
                frags = []
                # one ldmatrix per fragment of a grid (n-major: fragment j of a 1 x n row at n = 8j, a row of the tile)
                origins = [(c0, r0) for r0, c0 in self._frag_origins(t)] if op.n_major else self._frag_origins(t)
                for r0, c0 in origins:
                    ptr = self._lane_shared_ptr(g, op.lanes_kind, [saddr, b.add(row, c64(r0)), b.add(col, c64(c0)),
                                                                   gm_])
                    regs = self._wmma(g, name, ret, [ptr])
                    frags.append([r if elt[i] == I32 else b.bitcast(r, H2)
                                  for i, r in enumerate(b.extract_value(regs, i) for i in range(len(ret.elements)))])
                b.store(self._join(g, t, frags), self._slot(g, dst, t))
            case StMatrix(src, t, store_type, word):
                self._check_mma_sync_arch(word, "stmatrix", "stmatrix")
                saddr, row, col, gm_ = operands
                val = b.load(self._slot(g, src, t), typ=frag_type(t))
                for (r0, c0), fr in zip(self._frag_origins(t), self._split(g, t, val)):
                    ptr = self._lane_shared_ptr(g, "acc", [saddr, b.add(row, c64(r0)), b.add(col, c64(c0)), gm_])
                    if t.dtype == "f16":  # two f16x2 registers already
                        regs = [b.bitcast(fr[i], I32) for i in range(2)]
                    else:
                        regs = [self._pack16(g, fr[2 * i], fr[2 * i + 1], store_type) for i in range(2)]
                    self._wmma(g, "llvm.nvvm.stmatrix.sync.aligned.m8n8.x2.b16", ir.VoidType(), [ptr, *regs])
            case Load(dst, t):
                self._check_arch(t, op.word)
                addr, stride = operands
                self._tile_mem_check(g, t, addr, stride)
                frag = "c" if t.kind == "acc" else t.kind
                ptr, sp = self._tile_pointer(g, addr)
                name = f"llvm.nvvm.wmma.{geom(t.shape)}.load.{frag}.{t.layout}.stride.{t.dtype}.{sp}"
                val = self._wmma(g, name, frag_type(t), [ptr, b.trunc(stride, I32)])
                b.store(val, self._slot(g, dst, t))
            case Store(src, t):
                addr, stride = operands
                self._tile_mem_check(g, t, addr, stride)
                val = b.load(self._slot(g, src, t), typ=frag_type(t))
                regs = [b.extract_value(val, i) for i in range(len(frag_type(t).elements))]
                ptr, sp = self._tile_pointer(g, addr)
                name = f"llvm.nvvm.wmma.{geom(t.shape)}.store.d.row.stride.{t.dtype}.{sp}"
                self._wmma(g, name, ir.VoidType(), [ptr, *regs, b.trunc(stride, I32)])
            case Mma(acc_at, a_at, b_at, acc, at, bt):
                self._check_arch(at, "TMMA")
                args = []
                for pos, t in ((a_at, at), (b_at, bt), (acc_at, acc)):
                    ty = frag_type(t)
                    val = b.load(self._slot(g, pos, t), typ=ty)
                    args += [b.extract_value(val, i) for i in range(len(ty.elements))] if \
                        isinstance(ty, ir.LiteralStructType) else [val]
                sig = "bf16" if at.dtype == "bf16" else f"{acc.dtype}.{acc.dtype}"
                name = f"llvm.nvvm.wmma.{geom(acc.shape)}.mma.{at.layout}.{bt.layout}.{sig}"
                b.store(self._wmma(g, name, frag_type(acc), args), self._slot(g, acc_at, acc))
            case Copy(src, dst, t):
                b.store(b.load(self._slot(g, src, t), typ=frag_type(t)), self._slot(g, dst, t))
            case Perm(base, order, old):
                old = tuple(resolve(t) for t in old)
                if any(isinstance(t, Hole) for t in old):
                    return  # tiles not known yet: a definition checked alone, whose kernel never runs
                vals = [b.load(self._slot(g, base + j, t), typ=frag_type(t)) for j, t in enumerate(old)]
                for i, src in enumerate(order):
                    b.store(vals[src], self._slot(g, base + i, old[src]))
            case Scale(dst, t):
                r = b.bitcast(b.trunc(operands[0], I32), F32)
                slot = self._slot(g, dst, t)
                b.store(self._map(g, t, b.load(slot, typ=frag_type(t)), None, lambda x, y: b.fmul(x, y), r), slot)
            case Add(dst, src, t):
                x = b.load(self._slot(g, dst, t), typ=frag_type(t))
                y = b.load(self._slot(g, src, t), typ=frag_type(t))
                b.store(self._map(g, t, x, y, lambda p, q: b.fadd(p, q)), self._slot(g, dst, t))
            case _:  # pragma: no cover - tilegen emits only the ops above
                raise AssertionError(op)

    # ---- warp words ---------------------------------------------------------------
    def _warp_call(self, g: "Gen", name: str, ret: ir.Type, args: list[ir.Value]) -> ir.Value:
        fn = g.intrinsic(name, ret, [a.type for a in args])
        return g.b.call(fn, args, attrs=("convergent",))

    def _shfl32(self, g: "Gen", mode: str, x: ir.Value, lane: ir.Value) -> ir.Value:
        """One `shfl.sync.<mode>.b32` over the full warp; c is CUDA's for a width of 32:
        0 for up (the lowest lane), 31 for the others (the highest)."""
        clamp = ir.Constant(I32, 0 if mode == "up" else 31)
        name = f"llvm.nvvm.shfl.sync.{SHFL_MODE[mode]}.i32"
        return self._warp_call(g, name, I32, [FULL_MASK, x, lane, clamp])

    def _shuffle(self, g: "Gen", op: Shuffle, x: ir.Value, lane: ir.Value) -> ir.Value:
        b = g.b
        lane = b.trunc(lane, I32)
        if op.bits == 32:
            return b.zext(self._shfl32(g, op.mode, b.trunc(x, I32), lane), I64)
        lo = self._shfl32(g, op.mode, b.trunc(x, I32), lane)
        hi = self._shfl32(g, op.mode, b.trunc(b.lshr(x, c64(32)), I32), lane)
        return b.or_(b.shl(b.zext(hi, I64), c64(32)), b.zext(lo, I64))

    def warp_op(self, g: "Gen", op: WarpOp, operands: list[ir.Value]) -> ir.Value | None:
        b = g.b
        match op:
            case Shuffle():
                return self._shuffle(g, op, *operands)
            case Vote(mode="ballot"):
                pred = b.trunc(operands[0], ir.IntType(1))
                return b.zext(self._warp_call(g, "llvm.nvvm.vote.ballot.sync", I32, [FULL_MASK, pred]), I64)
            case Vote(mode=mode):
                pred = b.trunc(operands[0], ir.IntType(1))
                return b.sext(self._warp_call(g, f"llvm.nvvm.vote.{mode}.sync", ir.IntType(1), [FULL_MASK, pred]), I64)
            case ActiveMask():
                return b.zext(self._warp_call(g, "llvm.nvvm.activemask", I32, []), I64)
            case SyncWarp():
                self._warp_call(g, "llvm.nvvm.bar.warp.sync", ir.VoidType(), [FULL_MASK])
                return None
            case LaneGet() | LanePut():
                return self._lane_op(g, op, operands)
            case _:  # pragma: no cover - warpgen emits only the ops above
                raise AssertionError(op)

    def _splat(self, g: "Gen", t: Tile, v: ir.Value) -> ir.Value:
        ty = frag_type(t)
        elt = ty.elements[0]
        if elt == H2:
            h = g.b.fptrunc(v, F16)
            e = g.b.insert_element(g.b.insert_element(ir.Constant(H2, ir.Undefined), h, ir.Constant(I32, 0)),
                                   h, ir.Constant(I32, 1))
        else:
            e = v
        out = ir.Constant(ty, ir.Undefined)
        for i in range(len(ty.elements)):
            out = g.b.insert_value(out, e, i)
        return out

    def _map(self, g: "Gen", t: Tile, x: ir.Value, y: ir.Value | None, fn: Callable, scalar: ir.Value | None = None):
        """Apply fn element-wise (uniform per-register operations are allowed on fragments)."""
        ty = frag_type(t)
        other = None
        if scalar is not None:
            other = self._splat(g, t, scalar)
        out = ir.Constant(ty, ir.Undefined)
        for i in range(len(ty.elements)):
            a = g.b.extract_value(x, i)
            bb = g.b.extract_value(y if y is not None else other, i)
            out = g.b.insert_value(out, fn(a, bb), i)
        return out

    # ---- kernel entry for REPL lines: stacks in a state buffer in global memory -----
    def define_kernel(self, module: ir.Module, name: str, suspends: bool,
                      make_gen: Callable[[ir.Function, Env, ir.Block], "Gen"],
                      emit_body: BodyEmitter, block: tuple[int, int, int] | None = None) -> ir.Function:
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, PTR]), name)
        fn.calling_convention = "ptx_kernel"
        if block is not None:  # .maxntid: ptxas keeps the registers within what a block of this size may use
            module.add_named_metadata("nvvm.annotations", [fn, *(v for axis, n in zip("xyz", block) for v in (
                ir.MetaDataString(module, f"maxntid{axis}"), ir.Constant(I32, n)))])
        ctx, thrs = fn.args
        entry = fn.append_basic_block("entry")
        b = ir.IRBuilder(entry)

        def sreg(r: str, a: str) -> ir.Value:
            f = declare(module, f"llvm.nvvm.read.ptx.sreg.{r}.{a}", ir.FunctionType(I32, []))
            return b.zext(b.call(f, []), I64)

        block = b.add(b.mul(b.add(b.mul(sreg("ctaid", "z"), sreg("nctaid", "y")), sreg("ctaid", "y")),
                            sreg("nctaid", "x")), sreg("ctaid", "x"))
        bsize = b.mul(b.mul(sreg("ntid", "x"), sreg("ntid", "y")), sreg("ntid", "z"))
        local = b.add(b.mul(b.add(b.mul(sreg("tid", "z"), sreg("ntid", "y")), sreg("tid", "y")),
                            sreg("ntid", "x")), sreg("tid", "x"))
        linear = b.add(b.mul(block, bsize), local)
        thr = b.gep(thrs, [b.mul(linear, c64(L.THR_SLOTS))], source_etype=I64)
        env, stp = state_env(b, ctx, thr, self.machine)
        fail_bb = fn.append_basic_block("fail")
        ir.IRBuilder(fail_bb).ret_void()
        g = make_gen(fn, env, fail_bb)
        g.b.position_at_end(entry)
        emit_body(g)
        if not g.b.block.is_terminated:
            finish_state(g, stp)
            g.b.ret_void()
        return fn

    # ---- exported kernels: a word with a static effect, stacks in private arrays ------
    def define_export(self, module: ir.Module, name: str, effect: object,
                      make_gen: Callable, emit_body: BodyEmitter) -> ir.Function:
        """`ptx_kernel void @name(ptr ctx, i64 x1 .. xn, float r1 .. rm)`: the
        parameters are pushed in order, then the word runs. ctx holds the error
        record (and an output buffer); its thread slot is a scratch record."""
        nd, nf = effect.dneed, effect.fneed

        def push_inputs(g: "Gen", fn: ir.Function) -> None:
            first = 1 if self.context else 0
            g.push(*fn.args[first:first + nd])
            g.fpush(*(fconvert(g.b, r, g.float_t) for r in fn.args[first + nd:]))
        return self._private_stack_kernel(module, name, [I64] * nd + [F32] * nf, make_gen, emit_body, push_inputs)

    def define_kernel_file(self, module: ir.Module, name: str, params: list[str],
                           make_gen: Callable, emit_body: BodyEmitter) -> ir.Function:
        """`ptx_kernel void @name(ptr ctx, <params>)`: arrays are pointers, scalars have their
        declared type (i32 N is a .u32 parameter); the body reads them through their names
        (`target.param`), widened to a cell or an f32."""
        def declare(g: "Gen", fn: ir.Function) -> None:
            g.tstate.params = list(params)
        fn = self._private_stack_kernel(module, name, [PARAM_TYPES[k] for k in params], make_gen, emit_body,
                                        declare)
        if self.entry_block is not None:
            bounds = [v for axis, n in zip("xyz", self.entry_block)
                      for v in (ir.MetaDataString(module, f"maxntid{axis}"), ir.Constant(I32, n))]
            if "setmaxnreg" in str(module):  # REGS- / REGS+ (inline asm, backends/cuda/hopper.py)
                bounds += [ir.MetaDataString(module, "minctasm"), ir.Constant(I32, 1)]
            module.add_named_metadata("nvvm.annotations", [fn, *bounds])
        return fn

    def param(self, g: "Gen", index: int, kind: str) -> ir.Value:
        if g.tstate.params is None:
            # a definition checked on its own at `;`: the parameter exists only in the kernel
            return ir.Constant(g.float_t, 0.0) if kind == "float" else c64(0)
        arg = g.fn.args[index + (1 if self.context else 0)]
        if kind == "ptr":
            return g.b.ptrtoint(arg, I64)
        declared = g.tstate.params[index]
        if kind == "int":
            return arg if arg.type == I64 else g.b.sext(arg, I64)
        if declared == "bf16":  # bf16 bits -> f32
            arg = g.b.bitcast(g.b.shl(g.b.zext(arg, I32), ir.Constant(I32, 16)), F32)
        return fconvert(g.b, arg, g.float_t)

    def _private_stack_kernel(self, module: ir.Module, name: str, param_types: list[ir.Type],
                              make_gen: Callable, emit_body: BodyEmitter, prologue: Callable) -> ir.Function:
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR] * self.context + param_types), name)
        fn.calling_convention = "ptx_kernel"
        entry = fn.append_basic_block("entry")
        b = ir.IRBuilder(entry)
        if self.context:
            ctx = fn.args[0]
        else:  # unchecked: a private, zeroed record (errors end the thread, output is dropped); O3 removes it
            # when nothing reads it, and the kernel never touches memory its launcher has to provide
            slots = L.CTX_SLOTS + L.THR_SLOTS
            ctx = b.alloca(I64, size=c64(slots), name="ctx")
            ctx.align = 8
            memset = declare(module, "llvm.memset.p0.i64",
                             ir.FunctionType(ir.VoidType(), [PTR, I8, I64, ir.IntType(1)]))
            b.call(memset, [ctx, ir.Constant(I8, 0), c64(slots * 8), ir.Constant(ir.IntType(1), 0)])
            b.store(c64(UNCHECKED_RECURSION_MAX), b.gep(ctx, [c64(L.CTX_RECURSION_MAX)], source_etype=I64))
        m = self.machine
        ds = b.alloca(I64, size=c64(m.ds_max), name="ds")
        fs = b.alloca(float_type(m), size=c64(m.fs_max), name="fs")
        dsp = b.alloca(I64, name="dsp")
        fsp = b.alloca(I64, name="fsp")
        b.store(c64(0), dsp)
        b.store(c64(0), fsp)
        thr = b.gep(ctx, [c64(L.CTX_SLOTS)], source_etype=I64)
        fail_bb = fn.append_basic_block("fail")
        ir.IRBuilder(fail_bb).ret_void()
        g = make_gen(fn, Env(ctx, thr, ds, dsp, fs, fsp).add_registers(b), fail_bb)
        g.b.position_at_end(entry)
        prologue(g, fn)
        emit_body(g)
        if not g.b.block.is_terminated:
            g.b.ret_void()
        return fn
