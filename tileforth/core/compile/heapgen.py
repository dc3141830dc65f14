"""ALLOCATE FREE RESIZE in device code, where the backend runs them there (Capabilities.device_heap:
the cpu backend). Inside a definition the interpreter compiles these primitives in place of the
host words (tileforth/core/session/words/memory.py), so a word that builds a 10,000-node list is one
launch instead of a launch per ALLOCATE (issue 25, F9).

Each is one call of the runtime helper

    i64 tf_heap(ctx, thr, op, a, b, out)     op: HEAP_ALLOCATE (a = u), HEAP_FREE (a = addr),
                                             HEAP_RESIZE (a = addr, b = u)

which the backend defines (the cpu backend: a native call into core/heap.py's Heap, the same code
the host words run, which also puts the block in the allocation table checked accesses read and
arms it for the race detector). It writes the results (address, ior) to out[0], out[1] and returns
0, or an exception code the launch ends with (E_THROW: a launch that cannot change the allocation
table while it runs). After FREE or RESIZE the range cache of checked accesses is emptied (the
block it holds may be gone), and so it is after a call of a word that may free (codegen.frees_heap).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from ..errors import ForthError
from . import layout as L
from .codegen import I64, c64

if TYPE_CHECKING:
    from ..front.tree import Prim
    from .codegen import Gen

HEAP_ALLOCATE, HEAP_FREE, HEAP_RESIZE = 0, 1, 2
PAIR = ir.ArrayType(I64, 2)  # what tf_heap writes: the address, the ior
HEAP_THROW = -262  # a launch that cannot change the allocation table (launcherrors.THROW_MEANINGS)


def _heap(op: int, word: str):
    def emit(g: "Gen", n: "Prim") -> None:
        if not getattr(g.target, "device_heap", False):
            raise ForthError(f"{word} in device code runs on the cpu backend only; on the {g.target.name} target "
                             f"call it outside the definition (at the top level of a line)", n.pos, word)
        args = g.pop(2 if op == HEAP_RESIZE else 1)
        a = args[0]
        b = args[1] if len(args) > 1 else c64(0)
        out = g.alloca(PAIR, "heap_out")
        status = g.b.call(g.helper("tf_heap"), [g.env.ctx, g.env.thr, c64(op), a, b, out])
        g.fail_if(g.b.icmp_signed("!=", status, c64(0)), L.E_THROW, addr=c64(-1), aux=status)
        if op != HEAP_ALLOCATE:
            g.forget_range()
        addr, ior = (g.b.load(g.b.gep(out, [c64(0), c64(i)], source_etype=PAIR), typ=I64) for i in (0, 1))
        if op == HEAP_FREE:
            g.push(ior)
        else:
            g.push(addr, ior)
    return emit


def install(registry) -> None:
    registry.group("Memory (heap)")
    registry.prim("(ALLOCATE)", "( u -- a-addr ior )", "ALLOCATE in device code (compiled for it in a definition "
                  "where the backend runs it there).", "", _heap(HEAP_ALLOCATE, "ALLOCATE"))
    registry.prim("(FREE)", "( a-addr -- ior )", "FREE in device code.", "", _heap(HEAP_FREE, "FREE"))
    registry.prim("(RESIZE)", "( a-addr1 u -- a-addr2 ior )", "RESIZE in device code.", "",
                  _heap(HEAP_RESIZE, "RESIZE"))
