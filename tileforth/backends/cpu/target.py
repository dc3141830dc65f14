"""The cpu target: per-thread IR for the host, every GPU thread a coroutine.

A kernel that can suspend (BARRIER, warp-collective ops) is an LLVM
switch-lowered coroutine; the scheduler (scheduler.py) resumes the threads of
a block. A kernel that cannot suspend is a plain function called once per
thread, which is cheaper to compile.

    kernel(ctx, thr)                         thr: this thread's record
      state = thr[T_STATE]  -> ds, fs arrays and depth cells (copied into allocas)
      body ... BARRIER: status=BARRIER; suspend ... body
      depths back to state; status = DONE
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from llvmlite import ir
from tileforth.core.compile import layout as L
from tileforth.core.compile.machine import DEFAULT as DEFAULT_MACHINE
from tileforth.core.compile.machine import Machine
from tileforth.core.compile.codegen import HELPERS, I1, I8, I64, PTR, Env, c64, declare, finish_state, state_env
from tileforth.core.compile.target import BodyEmitter, Target
from tileforth.core.compile.tileops import TileOp
from tileforth.core.compile.tileops import WarpOp
from tileforth.core.compile.smem import AsyncOp
from tileforth.core.records import record

from . import asynccopy, mbarriers, races

if TYPE_CHECKING:
    from tileforth.core.compile.codegen import Gen



class TokenType(ir.Type):
    """LLVM's `token` type (llvmlite.ir has none); needed by coroutine intrinsics."""

    def _to_string(self) -> str:
        return "token"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TokenType)

    def __hash__(self) -> int:
        return hash("token")


class NoneToken(ir.Constant):
    def __init__(self) -> None:
        super().__init__(TOKEN, None)

    def get_reference(self) -> str:
        return "none"

    def _to_string(self) -> str:
        return "token none"


TOKEN = TokenType()
# llvmlite.ir checks function attributes against a list that lacks this one
ir.values.FunctionAttributes._known = frozenset(ir.values.FunctionAttributes._known | {"presplitcoroutine"})


@record
class CpuFunction:
    """The cpu target's state for one function: its coroutine's suspend and
    cleanup blocks (kernels that suspend)."""

    coro: tuple[ir.Block, ir.Block] | None = None


_AXES = {"x": 0, "y": 1, "z": 2}
_SREG_SLOT = {"tid": L.T_TID, "bid": L.T_BID, "bdim": L.T_BDIM, "gdim": L.T_GDIM}
# f32 math functions LLVM has no intrinsic for: called in libm (loaded by backend.py);
# the others are llvm.<name>.f32 intrinsics (Target.math), which LLVM lowers to libm calls
# (the f32 ones; an f64 argument calls the name without the f)
LIBM_MATH = {"expm1": "expm1f", "log1p": "log1pf", "asinh": "asinhf", "acosh": "acoshf", "atanh": "atanhf"}


class CpuTarget(Target):
    name = "cpu"
    links_helpers = False  # HELPERS_IR is compiled once, with the scheduler (backend.py: _Runtime.sched)
    device_heap = True  # tf_heap is a native call into the backend (backend.py: _tf_heap)

    def __init__(self, triple: str, data_layout: str, machine: Machine = DEFAULT_MACHINE) -> None:
        self.triple = triple
        self.data_layout = data_layout
        self.machine = machine

    def function_state(self) -> CpuFunction:
        return CpuFunction()

    def sreg(self, g: "Gen", which: str) -> ir.Value:
        reg, axis = which.split(".")
        return g.b.load(self.thr_slot(g, _SREG_SLOT[reg] + _AXES[axis]), typ=I64)

    def math(self, g: "Gen", name: str, args: list[ir.Value]) -> ir.Value:
        if name in LIBM_MATH:
            ty = args[0].type
            fn = LIBM_MATH[name] if isinstance(ty, ir.FloatType) else name
            return g.b.call(g.intrinsic(fn, ty, [ty] * len(args)), args)
        return super().math(g, name, args)

    def barrier(self, g: "Gen", site: int) -> None:
        assert g.tstate.coro is not None, "BARRIER outside a coroutine kernel"
        g.b.store(c64(L.ST_BARRIER), self.thr_slot(g, L.T_STATUS))
        g.b.store(c64(site), self.thr_slot(g, L.T_SITE))
        self.suspend(g, final=False)
        epoch = self.thr_slot(g, L.T_EPOCH)  # the race detector's clock: one more BARRIER passed
        g.b.store(g.b.add(g.b.load(epoch, typ=I64), c64(1 << 16)), epoch)

    def mem_access(self, g: "Gen", addr: ir.Value, size: int, kind: str, value: ir.Value | None,
                   word: str) -> None:
        """Race check and trace (races.py): the helper returns 1, or records the error and returns 0. A store
        whose value is known passes its bits (STORE_VALUE): storing what is there is no race."""
        code = {"read": races.READ, "write": races.WRITE, "atomic": races.ATOMIC}[kind]
        bits = c64(0)
        if kind == "write" and value is not None:
            code = races.STORE_VALUE
            bits = value if isinstance(value.type, ir.IntType) else g.b.bitcast(value, ir.IntType(size * 8))
            bits = bits if bits.type == I64 else g.b.zext(bits, I64)
        base = g.b.load(g.range_cache()[0], typ=I64)  # the allocation the range check found (its header: races.py)
        # the helper only where the launch traces, detects races or checks element types: a launch with
        # none of them (one thread, PROFILE off, untyped memory) pays a branch, not a call
        ftype = races.float_code(word, self.machine.float_bits, size)  # 0: a byte, whose types don't count
        on = g.b.or_(self._ctx_slot(g, L.CTX_TRACE), self._ctx_slot(g, L.CTX_RACE_GEN))
        if ftype:
            on = g.b.or_(on, self._ctx_slot(g, L.CTX_TYPES))
        on = g.b.or_(on, self._ctx_slot(g, L.CTX_ASYNC))  # copies in flight this launch (asynccopy.py)
        check, done = g.new_block("race_check"), g.new_block("race_done")
        g.b.cbranch(g.b.icmp_unsigned("!=", on, c64(0)), check, done)
        g.b.position_at_end(check)
        landed = asynccopy.emit_check(g, addr, size, c64(code | g.site() << 2))
        race = g.new_block("race_call")
        g.b.cbranch(landed, race, g.fail_bb)  # 0: the access touches bytes whose cp.async has not landed
        g.b.position_at_end(race)
        ok = g.b.call(g.helper("tf_race"), [g.env.ctx, g.env.thr, addr, base, c64(size | ftype << 8),
                                            c64(code | g.site() << 2), bits])
        g.b.cbranch(g.b.trunc(ok, I1), done, g.fail_bb)  # 0: the helper recorded a race (E_RACE) or a type mismatch
        g.b.position_at_end(done)

    @staticmethod
    def _ctx_slot(g: "Gen", slot: int) -> ir.Value:
        """A slot of the launch's context record, which the host sets before the launch."""
        return g.b.load(g.b.gep(g.env.ctx, [c64(slot)], source_etype=I64), typ=I64)

    def mem_fence(self, g: "Gen") -> None:
        """The fence clock moves on; this thread's T_FENCED is its new value (races.py)."""
        cell = g.b.inttoptr(g.b.load(g.b.gep(g.env.ctx, [c64(L.CTX_CLOCK)], source_etype=I64), typ=I64), PTR)
        now = g.b.add(g.b.atomic_rmw("add", cell, c64(1), "monotonic"), c64(1))  # one clock for all workers
        g.b.store(now, self.thr_slot(g, L.T_FENCED))

    def tile_op(self, g: "Gen", op: TileOp, operands: list[ir.Value]) -> None:
        """Park the lane at a warp op: the host performs it once for the warp
        when all 32 lanes arrived with the same operands."""
        self._park(g, op, operands)

    def warp_op(self, g: "Gen", op: WarpOp, operands: list[ir.Value]) -> ir.Value | None:
        """Park the lane at a warp op: the host computes it for the warp's
        lanes together (tileforth/backends/cpu/warpops.py) and leaves each lane's result
        in its first operand slot."""
        self._park(g, op, operands)
        return g.b.load(self.thr_slot(g, L.T_OP), typ=I64) if op.results else None

    def _park(self, g: "Gen", op: TileOp | WarpOp, operands: list[ir.Value]) -> None:
        """Store the operands in the thread record (T_OP up), the status and
        the site, and suspend until the host has performed the op."""
        assert g.tstate.coro is not None, "warp operation outside a coroutine kernel"
        site = g.site()
        g.sites.info[site] = op
        for i, v in enumerate(operands):
            g.b.store(v, self.thr_slot(g, L.T_OP + i))
        g.b.store(c64(L.ST_WARP), self.thr_slot(g, L.T_STATUS))
        g.b.store(c64(site), self.thr_slot(g, L.T_SITE))
        self.suspend(g, final=False)

    def async_op(self, g: "Gen", op: AsyncOp, operands: list[ir.Value]) -> None:
        """Park the thread at CP.ASYNC, CP.COMMIT or CP.WAIT: the host models the copies
        (asynccopy.py, through warpops.py's ops that do not synchronise)."""
        self._park(g, op, operands)

    def hopper_op(self, g: "Gen", op: Any, operands: list[ir.Value]) -> ir.Value | None:
        """mbarriers, TMA, ELECT (mbarriers.py: the thread parks, the host models them)."""
        return mbarriers.emit(self, g, op, operands)

    def check_stack(self, g: "Gen", depth: ir.Value) -> None:
        """Recursion is bounded by stack bytes too (E_STACK): frames can be large (a
        word that keeps a thousand values on the return stack), so a count
        alone could overflow the native stack of the thread running the
        launch. The address of an alloca in this frame is compared with the
        limit the kernel entry computed (`_stack_limit`)."""
        here = g.b.ptrtoint(g.alloca(I8, "stack_here"), I64)
        limit = g.b.load(self.thr_slot(g, L.T_STACK_LIMIT), typ=I64)
        g.fail_if(g.b.icmp_unsigned("<", here, limit), L.E_STACK, aux=depth)

    def suspend(self, g: "Gen", final: bool) -> None:
        suspend_bb, cleanup_bb = g.tstate.coro
        fn = g.module.globals["llvm.coro.suspend"]
        s = g.b.call(fn, [NoneToken(), ir.Constant(I1, 1 if final else 0)])
        resume = g.new_block("resume")
        sw = g.b.switch(s, suspend_bb)
        sw.add_case(ir.Constant(I8, 0), resume)
        sw.add_case(ir.Constant(I8, 1), cleanup_bb)
        g.b.position_at_end(resume)
        if final:
            g.b.unreachable()

    def define_kernel(self, module: ir.Module, name: str, suspends: bool,
                      make_gen: Callable[[ir.Function, Env, ir.Block], "Gen"],
                      emit_body: BodyEmitter, block: tuple[int, int, int] | None = None) -> ir.Function:
        ret = PTR if suspends else I1
        fn = ir.Function(module, ir.FunctionType(ret, [PTR, PTR]), name)
        # nothing a kernel calls unwinds (the runtime's helpers, libm, the words, ctypes callbacks that
        # catch their exceptions): without unwind tables its object has no .eh_frame to emit and to
        # register with the unwinder at each line's load
        fn.attributes.add("nounwind")
        if not suspends:  # the fast instruction selector returns an i1 only so: without it, the whole
            fn.return_value.add_attribute("zeroext")  # entry block goes to SelectionDAG (0.2 ms more per line)
        ctx, thr = fn.args
        entry = fn.append_basic_block("entry")
        b = ir.IRBuilder(entry)
        hdl = None
        if suspends:
            fn.attributes.add("presplitcoroutine")
            decl = _declare_coro(module)
            cid = b.call(decl["llvm.coro.id"], [ir.Constant(ir.IntType(32), 0)] + [ir.Constant(PTR, None)] * 3)
            size = b.call(decl["llvm.coro.size.i64"], [])
            mem = b.call(decl["malloc"], [size])
            b.store(b.ptrtoint(mem, I64), b.gep(thr, [c64(L.T_FRAME)], source_etype=I64))
            hdl = b.call(decl["llvm.coro.begin"], [cid, mem])
        env, stp = state_env(b, ctx, thr, self.machine, coroutine=suspends)
        if suspends:
            _stack_limit(b, ctx, thr)
        fail_bb = fn.append_basic_block("fail")
        g = make_gen(fn, env, fail_bb)
        if suspends:
            suspend_bb = fn.append_basic_block("suspend")
            cleanup_bb = fn.append_basic_block("cleanup")
            g.tstate.coro = (suspend_bb, cleanup_bb)
            sb = ir.IRBuilder(suspend_bb)
            sb.call(decl["llvm.coro.end"], [hdl, ir.Constant(I1, 0), NoneToken()])
            sb.ret(hdl)
            cb = ir.IRBuilder(cleanup_bb)
            cb.call(decl["llvm.coro.free"], [cid, hdl])
            cb.branch(suspend_bb)
        g.b.position_at_end(entry)
        emit_body(g)
        final_bb = fn.append_basic_block("final") if suspends else None
        if not g.b.block.is_terminated:
            finish_state(g, stp)
            if suspends:
                g.b.branch(final_bb)
            else:
                g.b.ret(ir.Constant(I1, 1))
        calls, fails = (True, True) if suspends else _scan(fn, fail_bb)
        if not suspends and calls:  # the limit is for the words it calls: at its entry, as above
            sb = ir.IRBuilder(entry)
            sb.position_before(entry.instructions[0])
            _stack_limit(sb, ctx, thr)
        if not fails:  # no check can fail (a straight line of arithmetic): no block to compile for it
            fn.blocks.remove(fail_bb)
            return fn
        g.b.position_at_end(fail_bb)
        if suspends:
            g.b.branch(final_bb)
            g.b.position_at_end(final_bb)
            self.suspend(g, final=True)  # the one final suspend point
        else:
            g.b.ret(ir.Constant(I1, 0))
        return fn


def _scan(fn: ir.Function, target: ir.Block) -> tuple[bool, bool]:
    """(`fn` calls something other than the runtime helpers and LLVM's intrinsics: a word, EXECUTE's
    dispatch, a debug point, through a pointer, code that may recurse and so reads the stack limit;
    an instruction of `fn` names the block `target`). A kernel that calls none (most straight lines)
    needs no `_stack_limit`, seven instructions of each new line's kernel to print, parse and compile
    at tier 0, and one whose checks cannot fail (none) needs no fail block."""
    calls = named = False
    for block in fn.blocks:
        for ins in block.instructions:
            if isinstance(ins, ir.CallInstr) and not calls:
                callee = ins.callee
                calls = not (isinstance(callee, ir.Function)
                             and (callee.name in HELPERS or callee.name.startswith("llvm.")))
            if not named:
                named = (any(op is target for op in ins.operands)
                         or (isinstance(ins, ir.SwitchInstr)
                             and (ins.default is target or any(b is target for _, b in ins.cases)))
                         or (isinstance(ins, ir.IndirectBranch) and any(b is target for b in ins.destinations)))
    return calls, named


def _stack_limit(b: ir.IRBuilder, ctx: ir.Value, thr: ir.Value) -> None:
    """At kernel entry: ctx[CTX_STACK_BUDGET] holds the bytes of native stack
    recursion may use (the backend's budget); thr[T_STACK_LIMIT] becomes the
    lowest address a recursive call may reach from here (the stack grows down)."""
    budget = b.load(b.gep(ctx, [c64(L.CTX_STACK_BUDGET)], source_etype=I64), typ=I64)
    here = b.ptrtoint(b.alloca(I8, name="stack_top"), I64)
    b.store(b.sub(here, budget), b.gep(thr, [c64(L.T_STACK_LIMIT)], source_etype=I64))


def _declare_coro(module: ir.Module) -> dict[str, ir.Function]:
    sigs = {
        "malloc": ir.FunctionType(PTR, [I64]),
        "llvm.coro.id": ir.FunctionType(TOKEN, [ir.IntType(32), PTR, PTR, PTR]),
        "llvm.coro.size.i64": ir.FunctionType(I64, []),
        "llvm.coro.begin": ir.FunctionType(PTR, [TOKEN, PTR]),
        "llvm.coro.suspend": ir.FunctionType(I8, [TOKEN, I1]),
        "llvm.coro.free": ir.FunctionType(PTR, [TOKEN, PTR]),
        "llvm.coro.end": ir.FunctionType(ir.VoidType(), [PTR, I1, TOKEN]),
    }
    return {name: declare(module, name, ty) for name, ty in sigs.items()}
