"""The kernel cache's key for a line: its structure, without its numbers and positions.

Two lines that differ only in their literals (`8 fib .` after `7 fib .`) or in where
they stand (the same line typed at another column, or on another line of an
INCLUDEd file) have one key and share one kernel:

* a literal of the line is read at run time from the launch's literal table
  (ctx[CTX_LITS], layout.py): `lits` holds the values of this line, in the
  order of `lit_slot` (node id -> index), which the code generator follows;
* an error site of the line is a position the host fills in before each launch:
  the kernel keeps the site ids it was compiled with, and `positions` (indexed
  by `pos_slot`, a position's id -> the index of the first node that has it)
  says where each of them is in this line (Device.launch patches Sites).

What must stay a compile-time constant stays in the key: a literal folded into
its word (PICK/ROLL/TROLL counts are Prim.arg), the address of an ARRAY (a Lit
with a `space`, whose accesses the compiler places in that address space), a
string's id, every word's identity. Literals beyond LITS_MAX are constants too.
"""
from __future__ import annotations

import math
import struct

from ..errors import SourcePos
from ..records import field, record
from .tree import Begin, Call, Do, FLit, If, Jump, Label, Lit, LocalsDef, LocalGet, LocalSet, Node, Prim, Recurse, \
    Visitor

LITS_MAX = 256  # literals a line's kernel reads from its launch's table (more stay constants, in the key)


@record(eq=False)
class LineShape:
    key: tuple
    lits: list[int] = field(default_factory=list)  # the literals' 64-bit patterns (floats as f64 bits)
    lit_slot: dict[int, int] = field(default_factory=dict)  # id(Lit or FLit node) -> its index in `lits`
    positions: list[SourcePos | None] = field(default_factory=list)  # every node's position, in visiting order
    pos_slot: dict[int, int] = field(default_factory=dict)  # id(position) -> its first index in `positions`


def _bits(value: float) -> int:
    """A float literal's f64 bits as a signed cell (the code narrows it to the session's float type)."""
    return struct.unpack("<q", struct.pack("<d", value))[0]


class _LineKey(Visitor):
    def __init__(self) -> None:
        self.shape = LineShape(())

    def key(self, nodes: list[Node]) -> tuple:
        table = self._visit_table
        out = []
        for n in nodes:
            pos = getattr(n, "pos", None)
            sh = self.shape
            if pos is not None:
                sh.pos_slot.setdefault(id(pos), len(sh.positions))
            sh.positions.append(pos)
            out.append(table[type(n)](self, n))
        return tuple(out)

    def _slot(self, n: Lit | FLit, bits: int) -> bool:
        sh = self.shape
        if id(n) in sh.lit_slot:
            return True
        if len(sh.lits) >= LITS_MAX:
            return False
        sh.lit_slot[id(n)] = len(sh.lits)
        sh.lits.append(bits)
        return True

    def visit_Lit(self, n: Lit) -> tuple:
        if n.space is None and self._slot(n, n.value):
            return ("L",)
        return ("L", n.value, n.space)

    def visit_FLit(self, n: FLit) -> tuple:
        if self._slot(n, _bits(n.value)):
            return ("F",)
        return ("F", struct.pack("<d", n.value) if math.isfinite(n.value) else repr(n.value))

    def visit_Prim(self, n: Prim) -> tuple:
        return ("P", n.prim.name, n.arg)

    def visit_Call(self, n: Call) -> tuple:
        return ("C", n.word.uid)

    def visit_Recurse(self, n: Recurse) -> tuple:
        return ("R", n.word.uid)

    def visit_If(self, n: If) -> tuple:
        return ("I", self.key(n.then), None if n.else_ is None else self.key(n.else_))

    def visit_Begin(self, n: Begin) -> tuple:
        return ("B", n.kind, self.key(n.cond), self.key(n.body))

    def visit_Do(self, n: Do) -> tuple:
        return ("D", n.query, n.plus, self.key(n.body))

    def visit_Label(self, n: Label) -> tuple:
        return ("Lb", n.label)

    def visit_Jump(self, n: Jump) -> tuple:
        return ("J", n.label, n.if_zero)

    def visit_LocalsDef(self, n: LocalsDef) -> tuple:
        return ("LD", n.taken, n.extra)

    def visit_LocalGet(self, n: LocalGet) -> tuple:
        return ("LG", n.index)

    def visit_LocalSet(self, n: LocalSet) -> tuple:
        return ("LS", n.index)

    def generic_visit(self, n: Node) -> tuple:  # LEAVE EXIT WHILE's break, a host op: the kind is all
        return (type(n).__name__, getattr(n, "name", None))


def line_shape(nodes: list[Node]) -> LineShape:
    """The key of a segment and the launch data its kernel reads (its literals), with the
    positions its error sites name."""
    v = _LineKey()
    v.shape.key = v.key(nodes)
    return v.shape
