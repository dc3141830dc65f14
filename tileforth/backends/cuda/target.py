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
from tileforth.core.compile.target import STATIC_SHARED_BYTES, BodyEmitter, Target, float_suffix
from tileforth.core.compile.tileops import Add, Copy, Fill, Load, Mma, Perm, Scale, Store, TileOp, Zero
from tileforth.core.compile.tiles import SHAPES, Hole, Tile, elem_bytes, resolve
from tileforth.core.compile.tileops import ActiveMask, Shuffle, SyncWarp, Vote, WarpOp
from tileforth.core.compile.smem import AsyncCommit, AsyncCopy, AsyncOp, AsyncWait
from tileforth.core.errors import ForthError
from tileforth.core.records import field, record

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
FULL_MASK = ir.Constant(I32, -1)  # every lane of the warp (0xffffffff)
SHFL_MODE = {"idx": "idx", "up": "up", "down": "down", "xor": "bfly"}  # warpgen's mode -> the intrinsic's


def geom(shape: tuple[int, int, int]) -> str:
    m, n, k = shape
    return f"m{m}n{n}k{k}"


def frag_type(t: Tile) -> ir.Type:
    """The per-lane register struct of a fragment (tensor_cores.md §5.1)."""
    regs = SHAPES[t.shape][f"{t.kind}_{t.dtype}"]
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
    for shape in SHAPES:
        g = geom(shape)
        for lay in ("row", "col"):
            for frag, types in (("a", ("f16", "bf16")), ("b", ("f16", "bf16")), ("c", ("f16", "f32"))):
                for ty in types:
                    names.add(f"llvm.nvvm.wmma.{g}.load.{frag}.{lay}.stride.{ty}.p0")
            for ty in ("f16", "f32"):
                names.add(f"llvm.nvvm.wmma.{g}.store.d.{lay}.stride.{ty}.p0")
        for al in ("row", "col"):
            for bl in ("row", "col"):
                for d in ("f16", "f32"):
                    for c in ("f16", "f32"):
                        names.add(f"llvm.nvvm.wmma.{g}.mma.{al}.{bl}.{d}.{c}")
                names.add(f"llvm.nvvm.wmma.{g}.mma.{al}.{bl}.bf16")
    return frozenset(names)


WMMA_NAMES = _build_whitelist()


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
        """`tf_shared`: in an exported kernel an array of the session's SHARED:
        size (the kernel needs nothing at launch); elsewhere dynamic shared
        memory whose size the launch gives, so a block can use more than the
        48 KiB a static array may have, and a word compiled on its own refers
        to the same array as the kernel that calls it."""
        if export and not self.shared_bytes:
            return
        if export and self.shared_bytes > STATIC_SHARED_BYTES:
            raise ForthError(f"an exported kernel's shared memory is a static array of at most {STATIC_SHARED_BYTES} "
                             f"bytes, but this session declares {self.shared_bytes} bytes with SHARED:")
        ty = ir.ArrayType(I8, self.shared_bytes if export else 0)
        arr = ir.GlobalVariable(module, ty, "tf_shared", addrspace=3)
        arr.type = SHARED  # an opaque pointer, so that accesses through it may have any type
        arr.align = 32
        if export:
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

    def tile_op(self, g: "Gen", op: TileOp, operands: list[ir.Value]) -> None:
        b = g.b
        match op:
            case Zero(dst, t) | Fill(dst, t):
                v = ir.Constant(F32, 0.0) if isinstance(op, Zero) else b.bitcast(b.trunc(operands[0], I32), F32)
                b.store(self._splat(g, t, v), self._slot(g, dst, t))
            case Load(dst, t):
                self._check_arch(t, op.word)
                addr, stride = operands
                self._tile_mem_check(g, t, addr, stride)
                frag = "c" if t.kind == "acc" else t.kind
                name = f"llvm.nvvm.wmma.{geom(t.shape)}.load.{frag}.{t.layout}.stride.{t.dtype}.p0"
                val = self._wmma(g, name, frag_type(t), [b.inttoptr(addr, PTR), b.trunc(stride, I32)])
                b.store(val, self._slot(g, dst, t))
            case Store(src, t):
                addr, stride = operands
                self._tile_mem_check(g, t, addr, stride)
                val = b.load(self._slot(g, src, t), typ=frag_type(t))
                regs = [b.extract_value(val, i) for i in range(len(frag_type(t).elements))]
                name = f"llvm.nvvm.wmma.{geom(t.shape)}.store.d.row.stride.{t.dtype}.p0"
                self._wmma(g, name, ir.VoidType(), [b.inttoptr(addr, PTR), *regs, b.trunc(stride, I32)])
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
        return self._private_stack_kernel(module, name, [PARAM_TYPES[k] for k in params], make_gen, emit_body,
                                          declare)

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
