"""The nvptx lowering of the Hopper operations (core/compile/mbarrier.py, tma.py, wgmma.py): one LLVM 22 NVVM
intrinsic each (wgmma.mma_async, which LLVM 22 lacks, is inline asm: fast_gemm.md §3) (../shared/reference/fast_gemm.md §3 lists what LLVM 22 and ptxas accept; the words checked
the architecture). Addresses arrive as generic cells; shared ones become addrspace(3) pointers."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from llvmlite import ir
from tileforth.core.errors import ForthError
from tileforth.core.compile.mbarrier import (Elect, FenceAsync, HopperOp, MbarArrive, MbarArriveTx, MbarExpectTx,
                                             MbarFence, MbarInit, MbarTryWait, SetMaxNReg)
from tileforth.core.compile.tma import TmaLoad, TmaStore, TmaWait

if TYPE_CHECKING:
    from tileforth.core.compile.codegen import Gen

I1, I16, I32, I64 = ir.IntType(1), ir.IntType(16), ir.IntType(32), ir.IntType(64)
PTR, SHARED, CLUSTER = ir.PointerType(), ir.PointerType(addrspace=3), ir.PointerType(addrspace=7)
VOID = ir.VoidType()


def lower(target, g: "Gen", op: HopperOp, operands: list[ir.Value]) -> ir.Value | None:
    b = g.b

    def call(name: str, ret: ir.Type, args: list[ir.Value]) -> ir.Value:
        return b.call(g.intrinsic(f"llvm.nvvm.{name}", ret, [a.type for a in args]), args)

    def shared(addr: ir.Value) -> ir.Value:  # (cvta.to.shared: also where the module declares no tf_shared)
        if "tf_shared" in g.module.globals:
            return target.mem_pointer(g, addr, "shared")
        return b.addrspacecast(b.inttoptr(addr, PTR), SHARED)

    def i32(v: ir.Value) -> ir.Value:
        return b.trunc(v, I32)

    match op:
        case MbarInit():
            bar, count = operands
            call("mbarrier.init.shared", VOID, [shared(bar), i32(count)])
        case MbarFence():
            call("fence.mbarrier_init.release.cluster", VOID, [])
        case MbarArrive():
            call("mbarrier.arrive.shared", I64, [shared(operands[0])])
        case MbarArriveTx():
            bar, nbytes = operands
            call("mbarrier.arrive.expect.tx.scope.cta.space.cta", I64, [shared(bar), i32(nbytes)])
        case MbarExpectTx():
            bar, nbytes = operands
            call("mbarrier.expect.tx.scope.cta.space.cta", VOID, [shared(bar), i32(nbytes)])
        case MbarTryWait():
            bar, parity = operands
            ok = call("mbarrier.try.wait.parity.scope.cta.space.cta", I1, [shared(bar), i32(parity)])
            return b.sext(ok, I64)
        case FenceAsync():
            call("fence.proxy.async.shared_cta", VOID, [])
        case Elect():
            res = call("elect.sync", ir.LiteralStructType([I32, I1]), [ir.Constant(I32, -1)])
            return b.sext(b.extract_value(res, 1), I64)
        case TmaLoad():
            saddr, tmap, x, y, bar = operands
            dst = b.addrspacecast(shared(saddr), CLUSTER)
            call("cp.async.bulk.tensor.g2s.tile.2d", VOID,
                 [dst, shared(bar), b.inttoptr(tmap, PTR), i32(x), i32(y), ir.Constant(I16, 0), ir.Constant(I64, 0),
                  ir.Constant(I1, 0), ir.Constant(I1, 0), ir.Constant(I32, 0)])
        case TmaStore():
            saddr, tmap, x, y = operands
            call("cp.async.bulk.tensor.s2g.tile.2d", VOID,
                 [shared(saddr), b.inttoptr(tmap, PTR), i32(x), i32(y), ir.Constant(I64, 0), ir.Constant(I1, 0)])
            call("cp.async.bulk.commit.group", VOID, [])
        case TmaWait():
            call("cp.async.bulk.wait.group", VOID, [ir.Constant(I32, 0)])
        case SetMaxNReg(n=n, inc=inc):
            call(f"setmaxnreg.{'inc' if inc else 'dec'}.sync.aligned.u32", VOID, [ir.Constant(I32, n)])
        case _:  # pragma: no cover - the words emit only the ops above
            raise AssertionError(op)
    return None


# ---- warpgroup MMA (core/compile/wgmma.py): sm_90a; the words checked the arch ---------------------------
F32 = ir.FloatType()


def shared_space_base(g: "Gen") -> ir.Value:
    """tf_shared's address in the shared state space (what a wgmma descriptor's start address counts from)."""
    return g.b.ptrtoint(g.module.globals["tf_shared"], I64)


def _fence_operands(g: "Gen", vals: list[ir.Value]) -> list[ir.Value]:
    """Each register through an empty volatile asm (CUTLASS's warpgroup_fence_operand): LLVM may not move a
    use of the accumulator across the wgmma fence or wait around it."""
    ty = ir.FunctionType(F32, [F32])
    return [g.b.asm(ty, "", "=f,0", [v], True) for v in vals]


def _frag_type(t) -> ir.Type:
    """A warpgroup accumulator's registers: N/2 f32 (target.frag_type's struct of a wacc tile)."""
    return ir.LiteralStructType([F32] * t.regs)


def _regs(g: "Gen", target, pos: int, t) -> tuple[ir.Value, list[ir.Value]]:
    slot = target._slot(g, pos, t)
    val = g.b.load(slot, typ=_frag_type(t))
    n = t.regs
    return slot, [g.b.extract_value(val, i) for i in range(n)]


def _join(g: "Gen", t, regs: list[ir.Value]) -> ir.Value:
    out = ir.Constant(_frag_type(t), ir.Undefined)
    for i, r in enumerate(regs):
        out = g.b.insert_value(out, r, i)
    return out


def _thread_place(g: "Gen", target) -> tuple[ir.Value, ir.Value]:
    """(lane, warp within the warpgroup) of this thread."""
    b, s = g.b, target.sreg
    linear = b.add(s(g, "tid.x"), b.mul(s(g, "bdim.x"), b.add(s(g, "tid.y"), b.mul(s(g, "bdim.y"), s(g, "tid.z")))))
    return b.and_(linear, ir.Constant(I64, 31)), b.and_(b.lshr(linear, ir.Constant(I64, 5)), ir.Constant(I64, 3))


def lower_wgmma(target, g: "Gen", op, operands: list[ir.Value]) -> ir.Value | None:
    from tileforth.core.compile.wgmma import WgLaneGet, WgLanePut, WgMma, WgStore, WgWait
    b = g.b

    def call(name: str, args: list[ir.Value]) -> None:
        b.call(g.intrinsic(f"llvm.nvvm.{name}", VOID, [a.type for a in args]), args, attrs=("convergent",))

    def c(v: int) -> ir.Value:
        return ir.Constant(I64, v)

    match op:
        case WgMma(pos=pos, tile=t, in_type=ty, trans_a=ta, trans_b=tb):
            assert t is not None  # wgmma.py always gives the accumulator
            n = t.shape[1]
            k = n // 2
            slot, regs = _regs(g, target, pos, t)
            regs = _fence_operands(g, regs)
            call("wgmma.fence.sync.aligned", [])
            outs = ", ".join(f"${i}" for i in range(k))
            asm = ("{\n.reg .pred p;\nsetp.ne.b32 p, $" + str(k + 2) + ", 0;\n"
                   f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ty}.{ty} {{{outs}}}, ${k}, ${k + 1}, p, 1, 1, {ta}, {tb};\n}}")
            cons = ",".join(["=f"] * k + ["l", "l", "r"] + [str(i) for i in range(k)])
            ret = ir.LiteralStructType([F32] * k) if k > 1 else F32
            fty = ir.FunctionType(ret, [I64, I64, I32] + [F32] * k)
            d = b.call(ir.InlineAsm(fty, asm, cons, side_effect=True),
                       [operands[0], operands[1], ir.Constant(I32, 1), *regs], attrs=("convergent",))
            call("wgmma.commit_group.sync.aligned", [])
            b.store(d if k > 1 else _join(g, t, [d]), slot)
        case WgWait(n=n, covered=covered):
            call("wgmma.wait_group.sync.aligned", [ir.Constant(I64, n)])
            for pos, t in covered:
                slot, regs = _regs(g, target, pos, t)
                b.store(_join(g, t, _fence_operands(g, regs)), slot)
        case WgStore(pos=pos, tile=t):
            addr, stride = operands
            _, regs = _regs(g, target, pos, t)
            lane, warp = _thread_place(g, target)
            gq, tq = b.lshr(lane, c(2)), b.and_(lane, c(3))
            row0 = b.add(b.shl(warp, c(4)), gq)
            col0 = b.shl(tq, c(1))
            space = g.space_of(addr)
            for i, r in enumerate(regs):  # wg_coords: row 16w + g + 8((i/2) mod 2), col 8(i/4) + 2t + i mod 2
                row = b.add(row0, c(8 * ((i >> 1) & 1)))
                col = b.add(col0, c(8 * (i >> 2) + (i & 1)))
                at = b.add(addr, b.shl(b.add(b.mul(row, stride), col), c(2)))
                # checked mode: each element's address range-checked as a store of 4 bytes is (codegen's mem_ptr)
                b.store(r, g.mem_ptr(g.tag(at, space), 4, "WGSTORE") if g.checked else target.mem_pointer(g, at, space))
        case WgLaneGet(pos=pos, tile=t) | WgLanePut(pos=pos, tile=t):
            slot, regs = _regs(g, target, pos, t)
            i = b.urem(operands[0], c(len(regs)))
            if isinstance(op, WgLaneGet):
                out = regs[0]
                for j in range(1, len(regs)):
                    out = b.select(b.icmp_unsigned("==", i, c(j)), regs[j], out)
                return b.zext(b.bitcast(out, I32), I64)
            new = b.bitcast(b.trunc(operands[1], I32), F32)
            regs = [b.select(b.icmp_unsigned("==", i, c(j)), new, r) for j, r in enumerate(regs)]
            b.store(_join(g, t, regs), slot)
        case _:  # pragma: no cover - wgmma.py emits only the ops above
            raise AssertionError(op)
    return None


WGMMA_IN_FUNC = re.compile(r"wgmma\.mma_async")


def check_inlined(ptx: str) -> None:
    """Every wgmma is in a kernel entry, never in a called .func: ptxas serialises a wgmma whose pipeline crosses
    a function boundary (warning C7510), so a word holding one must be inlined into its kernel."""
    parts = re.split(r"^(?=(?:\.visible\s+|\.weak\s+)?\.(?:func|entry)\b)", ptx, flags=re.M)
    for part in parts:
        head = re.match(r"(?:\.visible\s+|\.weak\s+)?\.func\b[^\n]*?([\w$]+)\s*\(", part)
        if head and WGMMA_IN_FUNC.search(part):
            raise ForthError(f"the function {head.group(1)} holds a WGMMA but was not inlined into its kernel: ptxas "
                             "would serialise every wgmma in it (warning C7510). A word holding WGMMA must be inlined: "
                             "do not make it recursive or call it through EXECUTE")
