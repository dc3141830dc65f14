"""The primitive word's record and the registry primitives are defined into.

primitives.py fills the one registry (REGISTRY, its TABLE) and tilegen.py,
warpgen.py, floatwords.py and xtgen.py add their words to it through
`install(registry)`; this module is the types they share, below all of them.
"""
from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Callable

from ..front.effects import DYNAMIC, Effect
from ..records import record

if TYPE_CHECKING:
    from ..front.tree import Prim
    from .codegen import Gen

Emit = Callable[["Gen", "Prim"], None]


@record(eq=False)
class Primitive:
    """One primitive's entry: name, stack effect, help, emitter, reference group and flags."""

    name: str
    effect: str  # Forth notation, e.g. "( n1 n2 -- n3 )" or "( -- ) ( F: r -- )"
    help: str
    example: str
    emit: Emit  # emit(g, node): the word's code, generated in place
    group: str  # the section of the word reference (docs/words.md, HELP)
    static_effect: Callable[["Prim"], Effect] | None = None  # the effect, when it depends on the node's arg
    dynamic: bool = False  # the depth it leaves depends on the data (?DUP): no static effect
    suspend_point: bool = False  # a suspend point of the emulator (BARRIER, tile operations)
    inline: bool = False  # must be generated inside the kernel itself (tile positions, kernel parameters)
    tile_word: bool = False  # works on the tile stack; its node's arg is the TileConfig in force when compiled
    address_arith: str = ""  # "sum" / "difference": an address plus/minus an offset stays in its memory
    takes_literal: bool = False  # a literal count just before it becomes the node's arg (PICK ROLL TROLL)
    # with takes_literal: the largest count the stack it works on can hold (None: the data stack's, which is
    # the session's setting, Machine.ds_max - 1)
    literal_max: int | None = None

    def __post_init__(self) -> None:
        self.ins, self.outs, self.fins, self.fouts = parse_effect(self.effect)

    @property
    def kind(self) -> str:
        return "primitive"

    @property
    def suspends(self) -> bool:
        """What the compiler reads: a word using this primitive is inlined into
        its kernel, and a kernel reaching it is built to suspend (a coroutine on
        the emulator). True for a suspend point and for a must-inline word."""
        return self.suspend_point or self.inline

    def effect_of(self, node: "Prim") -> Effect:
        if self.static_effect is not None:
            return self.static_effect(node)
        if self.dynamic:
            return DYNAMIC
        return Effect(True, self.ins, self.outs - self.ins, self.fins, self.fouts - self.fins)


_GROUP = re.compile(r"\(\s*(?:(F:|R:)\s*)?([^()]*?)\)")
_DOUBLE = re.compile(r"[ux]?d\d*")


@functools.cache  # many primitives share an effect
def parse_effect(text: str) -> tuple[int, int, int, int]:
    """Counts of ( ins -- outs ) for the data and ( F: ... ) float stacks."""
    ins = outs = fins = fouts = 0
    for m in _GROUP.finditer(text):
        kind, inner = m.group(1), m.group(2)
        before, _, after = inner.partition("--")
        a, b = _cells(before), _cells(after)
        if kind == "F:":
            fins, fouts = a, b
        elif kind is None:
            ins, outs = a, b
    return ins, outs, fins, fouts


def _cells(side: str) -> int:
    """Items on one side of an effect; a double-cell number (d, ud, xd, d1) is two cells."""
    return sum(2 if _DOUBLE.fullmatch(t) else 1 for t in side.split() if t != "|")


class Registry:
    """The primitives by name, in the order they were defined (the reference's order)."""

    def __init__(self) -> None:
        self.table: dict[str, Primitive] = {}
        self.section = ""

    def group(self, name: str) -> None:
        """The reference section of the primitives defined next."""
        self.section = name

    def prim(self, name: str, effect: str, help: str, example: str = "", emit: Emit | None = None,
             **flags) -> Callable[[Emit], Emit]:
        """Register a primitive: as a decorator over `emit(g, node)`, or with
        `emit` given (a table line). `flags` are Primitive's fields after group."""
        def register(fn: Emit) -> Emit:
            self.table[name] = Primitive(name, effect, help, example, fn, self.section, **flags)
            return fn
        if emit is not None:
            register(emit)
        return register
