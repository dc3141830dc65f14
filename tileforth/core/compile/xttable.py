"""EXECUTE through a table of function addresses (targets that compile words alone: the emulator).

Instead of a switch over every token linked into every kernel that reaches EXECUTE (xtgen.py's
define_dispatch, which a whole PTX module still needs), the kernel's `tf_execute` is a stub of a
few instructions: it loads the token's row from a table in host memory (one table per compiler
key, its address baked in) and calls the row's function indirectly. A row is a word's entry,
compiled once, on its own (Target.compile_word), the first time a kernel reaching EXECUTE is
assembled after its token appeared; tokens that appear later are compiled in one module per
batch. An entry checks the word's inputs as the switch's case did, then calls the word.

    header (2 cells, never moves): [address of the rows, number of rows]
    row i  (token XT_BASE + i):    [entry address or 0, why not (layout XT_*) when 0]

A row without an entry (a host word, one that suspends, one that works on the caller's frame,
or a token not handed out yet) fails with E_BAD_XT and its reason, as the switch's default does.
"""
from __future__ import annotations

import ctypes
import itertools
from typing import TYPE_CHECKING, Any, Callable

from llvmlite import ir

from ..lazy import np
from . import layout as L
from .codegen import I1, I64, PTR, c64
from .xtgen import DISPATCH, DISPATCH_FNTY

if TYPE_CHECKING:
    from ..front.dictionary import Colon

ENTRY_FNTY = ir.FunctionType(I1, [PTR] * 6 + [I64])  # a word's entry: the word's arguments, the EXECUTE's site
FILL_FNTY = ir.FunctionType(ir.VoidType(), [PTR])  # a batch's filler: stores its entries' addresses in the rows
_FILL = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_batches = itertools.count(1)  # batch names are unique in the process (the JIT's symbols are shared)
RowWord = tuple[int, "Colon | None", int]


class XtTable:
    """One compiler key's table: the rows, and which word each row's entry was compiled for."""

    def __init__(self) -> None:
        self.header = np.zeros(2, np.int64)
        self.rows = np.zeros((16, 2), np.int64)
        self.header[0] = self.rows.ctypes.data
        self.compiled: list[int | None] = []  # row -> uid of the word its entry runs (None: no entry)
        self.stub: Any = None  # tf_execute for this table, parsed (Compiler._link_dispatch links a copy)

    @property
    def address(self) -> int:
        return int(self.header.ctypes.data)

    def _grow(self, n: int) -> None:
        if n > len(self.rows):
            rows = np.zeros((max(n, 2 * len(self.rows)), 2), np.int64)
            rows[:len(self.rows)] = self.rows
            self.rows = rows  # the old array stays alive until this assignment: no launch runs meanwhile
            self.header[0] = self.rows.ctypes.data
        self.compiled += [None] * (n - len(self.compiled))

    def stale(self, table: list[RowWord]) -> list[tuple[int, "Colon"]]:
        """Bring the rows in line with `table` (tokens, words, reasons): rows without an entry are
        written now; the (row, word) pairs whose entry must be compiled are returned."""
        self._grow(len(table))
        todo = []
        for i, (_, word, why) in enumerate(table):
            if word is None:
                self.rows[i] = (0, why)
                self.compiled[i] = None
            elif self.compiled[i] != word.uid:
                todo.append((i, word))
        self.rows[len(table):] = (0, L.XT_UNKNOWN)  # tokens forgotten (MARKER) or not handed out
        for i in range(len(table), len(self.compiled)):
            self.compiled[i] = None
        self.header[1] = len(table)
        return todo

    def fill(self, todo: list[tuple[int, "Colon"]], address: int) -> None:
        """Call the batch's filler (compiled at `address`): it writes each entry's address in its row."""
        _FILL(address)(self.rows.ctypes.data)
        for i, word in todo:
            self.compiled[i] = word.uid


def define_stub(module: ir.Module, header: int, fail: ir.Function) -> None:
    """tf_execute as a look-up: the row of the token in the table at `header`, its entry called."""
    fn = ir.Function(module, DISPATCH_FNTY, DISPATCH)
    ctx, thr, ds, dsp, fs, fsp, xt, site = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    known, call, bad = (fn.append_basic_block(n) for n in ("known", "call", "bad"))
    hdr = b.inttoptr(c64(header), PTR)
    rows = b.inttoptr(b.load(hdr, typ=I64), PTR)
    count = b.load(b.gep(hdr, [c64(1)], source_etype=I64), typ=I64)
    i = b.sub(xt, c64(L.XT_BASE))
    b.cbranch(b.icmp_unsigned("<", i, count), known, bad)
    b.position_at_end(known)
    addr = b.load(b.gep(rows, [b.shl(i, c64(1))], source_etype=I64), typ=I64)
    why = b.load(b.gep(rows, [b.add(b.shl(i, c64(1)), c64(1))], source_etype=I64), typ=I64)
    b.cbranch(b.icmp_unsigned("==", addr, c64(0)), bad, call)
    b.position_at_end(call)
    b.ret(b.call(b.inttoptr(addr, ENTRY_FNTY.as_pointer()), [ctx, thr, ds, dsp, fs, fsp, site]))
    b.position_at_end(bad)
    reason = b.phi(I64)
    reason.add_incoming(c64(L.XT_UNKNOWN), fn.entry_basic_block)
    reason.add_incoming(why, known)
    b.call(fail, [ctx, thr, c64(L.E_BAD_XT), site, reason, xt])
    b.ret(ir.Constant(I1, 0))


def define_batch(module: ir.Module, name: str, todo: list[tuple[int, "Colon"]],
                 word_fn: Callable[["Colon"], ir.Function], fail: ir.Function) -> None:
    """The entries of the words in `todo` and `name`(rows), which stores each entry's address in its
    row. An entry checks the inputs of a word of a static effect as a call would (a word is compiled
    trusting its caller: codegen.Gen.call): too few items fail with E_UNDERFLOW or E_FUNDERFLOW at
    the EXECUTE, with the stacks as they were."""
    filler = ir.Function(module, FILL_FNTY, name)
    fb = ir.IRBuilder(filler.append_basic_block("entry"))
    for row, word in todo:
        fn = ir.Function(module, ENTRY_FNTY, f"{name}_x{row}")
        ctx, thr, ds, dsp, fs, fsp, site = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        eff = word.effect
        for depth, need, code in ((dsp, eff.dmust, L.E_UNDERFLOW), (fsp, eff.fmust, L.E_FUNDERFLOW)):
            if eff.static and need > 0:
                short = b.icmp_signed("<", b.load(depth, typ=I64), c64(need))
                with b.if_then(short, likely=False):
                    b.call(fail, [ctx, thr, c64(code), site, c64(0), c64(need)])
                    b.ret(ir.Constant(I1, 0))
        b.ret(b.call(word_fn(word), [ctx, thr, ds, dsp, fs, fsp]))
        fb.store(fb.ptrtoint(fn, I64), fb.gep(filler.args[0], [c64(2 * row)], source_etype=I64))
    fb.ret_void()


def next_batch_name() -> str:
    return f"tf_xtfill{next(_batches)}"


__all__ = ["XtTable", "define_stub", "define_batch", "next_batch_name"]
