"""The nvptx lowering of the Hopper operations (core/compile/mbarrier.py, tma.py): one LLVM 22 NVVM
intrinsic each (../shared/reference/fast_gemm.md §3 lists what LLVM 22 and ptxas accept; the words checked
the architecture). Addresses arrive as generic cells; shared ones become addrspace(3) pointers."""
from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir
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
