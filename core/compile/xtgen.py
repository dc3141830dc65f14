"""EXECUTE on the device.

An execution token is a number the session hands out (`'`, `[']`, `:NONAME`,
DEFER); the session's table says which word each names. Device code calls
`tf_execute(ctx, thr, ds, dsp, fs, fsp, xt)`, which each kernel module
defines when it is assembled (core/compile/compiler.py): a `switch` over
every token handed out so far, each case a call of the word's function. A
switch rather than a function pointer because both targets take it as it
is: the emulator's JIT and NVPTX (where an indirect call needs every callee
known anyway, and a switch lets LLVM inline small words into the cases). A
kernel is compiled again when the table grows (the kernel cache's key holds
its size). Tokens of host-level words and of words that suspend (BARRIER,
tile words) are not in the switch: executing one on the device is an error
that says why.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from llvmlite import ir

from ..front.effects import DYNAMIC
from . import layout as L
from .codegen import I1, I64, PTR, WORD_FNTY, c64

if TYPE_CHECKING:
    from ..front.dictionary import Colon
    from ..front.tree import Prim
    from .codegen import Gen

DISPATCH = "tf_execute"
DISPATCH_FNTY = ir.FunctionType(I1, [PTR] * 6 + [I64])


def _execute(g: "Gen", n: "Prim") -> None:
    xt = g.pop(1)[0]
    g.flush()
    g.counted_call(g.intrinsic(DISPATCH, I1, list(DISPATCH_FNTY.args)), [xt])
    g.forget_sp()
    g.dguar = g.fguar = 0


def define_dispatch(module: ir.Module, table: list[tuple[int, "Colon | None", int]],
                    word_fn: Callable[["Colon"], ir.Function], fail: ir.Function) -> None:
    """Define tf_execute in `module`: table rows are (xt, word or None, why not)."""
    fn = ir.Function(module, DISPATCH_FNTY, DISPATCH)  # external until linked: it resolves the declarations
    ctx, thr, ds, dsp, fs, fsp, xt = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    bad = fn.append_basic_block("bad")
    sw = b.switch(xt, bad)
    refused = {}
    for token, word, why in table:
        if word is None:
            refused[token] = why
            continue
        case = fn.append_basic_block(f"x{token}")
        sw.add_case(ir.Constant(I64, token), case)
        b.position_at_end(case)
        b.ret(b.call(word_fn(word), [ctx, thr, ds, dsp, fs, fsp]))
    b.position_at_end(bad)
    why = c64(L.XT_UNKNOWN)
    for token, reason in refused.items():  # tokens the device knows but cannot run: say why
        why = b.select(b.icmp_unsigned("==", xt, c64(token)), c64(reason), why)
    b.call(fail, [ctx, thr, c64(L.E_BAD_XT), c64(0), why, xt])
    b.ret(ir.Constant(I1, 0))


def install(registry) -> None:
    registry.group("Execution tokens")
    registry.prim("EXECUTE", "( i*x xt -- j*x )", "Run the word whose execution token is xt (from ' or ['] "
                  "or :NONAME); on the device, every thread runs its own.", "' DUP 1 SWAP EXECUTE . . \\ 1 1",
                  _execute, static_effect=lambda n: DYNAMIC)


__all__ = ["DISPATCH", "define_dispatch", "install", "WORD_FNTY"]
