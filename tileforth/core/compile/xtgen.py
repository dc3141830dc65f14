"""EXECUTE on the device, and THROW.

An execution token is a number the session hands out (`'`, `[']`, `:NONAME`,
DEFER); the session's table says which word each names. Device code calls
`tf_execute(ctx, thr, ds, dsp, fs, fsp, xt, site)`, which each kernel module
defines when it is assembled (tileforth/core/compile/compiler.py). On a target that
compiles words alone (the emulator) it is a look-up in a table of entries compiled once
(xttable.py); on nvptx (a PTX module is whole) it is what this module builds: a `switch` over
every token handed out so far, each case a call of the word's function. A
switch rather than a function pointer because both targets take it as it
is: the emulator's JIT and NVPTX (where an indirect call needs every callee
known anyway, and a switch lets LLVM inline small words into the cases). A
kernel is compiled again when the table grows (the kernel cache's key holds
its size). Tokens of host-level words and of words that suspend (BARRIER,
tile words) are not in the switch: executing one on the device is an error
that says why. In a one-thread launch the host walks device code that reaches
EXECUTE when such a token exists (tileforth/core/session/hostexec.py), so
there the switch only meets tokens it can run.

THROW (and ABORT, ABORT") ends the launch with error E_THROW and the code:
the host turns it into a ForthError with the code's standard meaning, which
CATCH (a host word, tileforth/core/session/words/compiling.py) catches.
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
DISPATCH_FNTY = ir.FunctionType(I1, [PTR] * 6 + [I64, I64])  # ..., the token, the EXECUTE's site


def _execute(g: "Gen", n: "Prim") -> None:
    xt = g.pop(1)[0]
    g.flush()
    g.counted_call(g.intrinsic(DISPATCH, I1, list(DISPATCH_FNTY.args)), [xt, c64(g.site())])
    g.forget_sp()
    g.dguar = g.fguar = 0


def _throw(g: "Gen", n: "Prim") -> None:
    code = g.pop(1)[0]
    g.flush()  # the stacks in memory as they are: CATCH restores their depth, not their cells
    g.fail_if(g.b.icmp_signed("!=", code, c64(0)), L.E_THROW, addr=c64(-1), aux=code)


def _abort(g: "Gen", n: "Prim") -> None:
    g.flush()
    g.fail_if(ir.Constant(I1, 1), L.E_THROW, addr=c64(-1), aux=c64(-1))


def _abort_quote(g: "Gen", n: "Prim") -> None:
    flag = g.pop(1)[0]
    g.flush()
    g.fail_if(g.b.icmp_signed("!=", flag, c64(0)), L.E_THROW, addr=c64(int(n.arg)), aux=c64(-2))


def define_dispatch(module: ir.Module, table: list[tuple[int, "Colon | None", int]],
                    word_fn: Callable[["Colon"], ir.Function], fail: ir.Function) -> None:
    """Define tf_execute in `module`: table rows are (xt, word or None, why not). A word of a static
    effect is compiled trusting its caller to have checked its inputs (codegen.Gen.call), so the
    switch checks them, as a call would: too few items fail at the EXECUTE with E_UNDERFLOW or
    E_FUNDERFLOW, with the stacks as they were."""
    fn = ir.Function(module, DISPATCH_FNTY, DISPATCH)  # external until linked: it resolves the declarations
    ctx, thr, ds, dsp, fs, fsp, xt, site = fn.args
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
        eff = word.effect
        for depth, need, code in ((dsp, eff.dmust, L.E_UNDERFLOW), (fsp, eff.fmust, L.E_FUNDERFLOW)):
            if eff.static and need > 0:
                short = b.icmp_signed("<", b.load(depth, typ=I64), c64(need))
                with b.if_then(short, likely=False):
                    b.call(fail, [ctx, thr, c64(code), site, c64(0), c64(need)])
                    b.ret(ir.Constant(I1, 0))
        b.ret(b.call(word_fn(word), [ctx, thr, ds, dsp, fs, fsp]))
    b.position_at_end(bad)
    why = c64(L.XT_UNKNOWN)
    for token, reason in refused.items():  # tokens the device knows but cannot run: say why
        why = b.select(b.icmp_unsigned("==", xt, c64(token)), c64(reason), why)
    b.call(fail, [ctx, thr, c64(L.E_BAD_XT), site, why, xt])
    b.ret(ir.Constant(I1, 0))


def install(registry) -> None:
    registry.group("Execution tokens")
    registry.prim("EXECUTE", "( i*x xt -- j*x )", "Run the word whose execution token is xt (from ' or ['] "
                  "or :NONAME); on the device, every thread runs its own.", "' DUP 1 SWAP EXECUTE . . \\ 1 1",
                  _execute, static_effect=lambda n: DYNAMIC)
    registry.group("Exceptions")
    registry.prim("THROW", "( n -- )", "If n is not 0, end with exception n: the nearest CATCH "
                  "gets it, or the line fails with its meaning (-10: division by zero ...).",
                  "' THROW 0 SWAP CATCH . \\ 0", _throw)
    registry.prim("ABORT", "( -- )", "End with exception -1 (THROW -1).", "' ABORT CATCH . \\ -1", _abort)
    registry.prim('(ABORT")', "( flag -- )", 'If flag is not 0, end with exception -2 and the message of ABORT".',
                  "", _abort_quote)


__all__ = ["DISPATCH", "define_dispatch", "install", "WORD_FNTY"]
