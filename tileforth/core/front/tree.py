"""The structured program tree that the outer interpreter builds from tokens.

    source -> reader -> interpreter -> [Node...] -> effects -> codegen (LLVM IR)

A body is a list of nodes; control structures own their sub-bodies, so the
tree is always balanced (the interpreter rejects unbalanced input).

Every pass over the tree (`walk`, effect inference in effects.py, code
generation in codegen.py, the kernel cache key in interpreter.py) is a
`Visitor`: it dispatches on the node's type through one table built when the
class is defined. A new node type is a record (tileforth/core/records.py) here, listed in `NODE_TYPES`
(with `BODIES` naming its sub-bodies, if it has any), plus a `visit_<Type>`
method in each pass that must handle it.
"""
from __future__ import annotations

from typing import Any, Callable, ClassVar, Protocol, Union

from ..errors import SourcePos
from ..records import field, record

from .stackeffect import Effect


# a colon definition (dictionary.py's Colon): what Call and Recurse name. Named, not imported: the
# dictionary's entries hold trees, so dictionary.py imports this module.
Definition = Any


class PrimitiveWord(Protocol):
    """What the front end asks of a primitive word (tileforth/core/compile/primitives.py's Primitive is
    one; the front end, which comes first, does not import it): its name, whether it suspends
    (dictionary.py), and its stack effect at a node (effects.py)."""

    name: str

    @property
    def suspends(self) -> bool: ...

    def effect_of(self, node: "Prim") -> Effect: ...


class NodeBase:
    """What every node type shares: the names of its sub-bodies (none here)."""

    BODIES: ClassVar[tuple[str, ...]] = ()


@record(eq=False)
class Lit(NodeBase):
    """A literal: push the cell `value`."""

    value: int
    pos: SourcePos | None = None
    space: str | None = None  # "global" for the address of an ARRAY or MATRIX


@record(eq=False)
class FLit(NodeBase):
    """A float literal: push `value` on the float stack."""

    value: float
    pos: SourcePos | None = None


@record(eq=False)
class Prim(NodeBase):
    """A primitive word (tileforth/core/compile/primitives.py), with its static operand, if any."""

    prim: PrimitiveWord
    pos: SourcePos | None = None
    arg: object = None  # static operand: PICK/ROLL depth, string id for .", local index...


@record(eq=False)
class Call(NodeBase):
    """A call of a colon definition."""

    word: Definition
    pos: SourcePos | None = None


@record(eq=False)
class If(NodeBase):
    """`IF then ELSE else_ THEN` (else_ is None without ELSE)."""

    then: list["Node"]
    else_: list["Node"] | None
    pos: SourcePos | None = None
    BODIES: ClassVar[tuple[str, ...]] = ("then", "else_")


@record(eq=False)
class Begin(NodeBase):
    """kind: 'until' (body ends with a flag), 'again', or 'while'
    (`BEGIN cond WHILE body REPEAT`)."""

    kind: str
    body: list["Node"]
    cond: list["Node"] = field(default_factory=list)
    pos: SourcePos | None = None
    BODIES: ClassVar[tuple[str, ...]] = ("cond", "body")


@record(eq=False)
class Do(NodeBase):
    """`DO body LOOP`, or ?DO (query) and +LOOP (plus)."""

    body: list["Node"]
    query: bool = False  # ?DO
    plus: bool = False  # +LOOP
    pos: SourcePos | None = None
    BODIES: ClassVar[tuple[str, ...]] = ("body",)


@record(eq=False)
class Leave(NodeBase):
    """LEAVE: leave the innermost DO loop."""

    pos: SourcePos | None = None


@record(eq=False)
class Break(NodeBase):
    """Leave the innermost BEGIN loop: the exit path of a second WHILE
    (`BEGIN a WHILE b WHILE c REPEAT d ELSE e THEN`), built by the interpreter."""

    pos: SourcePos | None = None


@record(eq=False)
class Label(NodeBase):
    """A place a `Jump` goes to. Built only where CS-ROLL or CS-PICK reorder
    the control-flow stack past what nested structures can say: the IFs,
    ELSEs and BEGINs involved become jumps and labels in their body's list."""

    label: int
    pos: SourcePos | None = None


@record(eq=False)
class Jump(NodeBase):
    """Go to `Label(label)` in the same list, or in a list around it: always,
    or (if_zero) when the flag it pops is 0 (what IF, UNTIL and WHILE do)."""

    label: int
    if_zero: bool = False
    pos: SourcePos | None = None


@record(eq=False)
class Exit(NodeBase):
    """EXIT: return from the definition."""

    pos: SourcePos | None = None


@record(eq=False)
class Recurse(NodeBase):
    """RECURSE: a call of the definition being compiled."""

    word: Definition
    pos: SourcePos | None = None


@record(eq=False)
class LocalsDef(NodeBase):
    """`{: a b | c -- :}` in a definition: the next `taken` locals (a b) take
    cells from the data stack (the deepest first), `extra` more (c) start at 0."""

    taken: int
    extra: int = 0
    pos: SourcePos | None = None


@record(eq=False)
class LocalSet(NodeBase):
    """`TO name` for a local: the top cell becomes its value."""

    index: int
    name: str
    pos: SourcePos | None = None


@record(eq=False)
class LocalGet(NodeBase):
    """A local's name in a definition: push its value."""

    index: int
    name: str
    pos: SourcePos | None = None


@record(eq=False)
class HostOp(NodeBase):
    """A host action inside a definition: a host word (CREATE, `,`, `'` ...)
    or a compile-time action (POSTPONE's, DOES>'s). `fn(forth, node)` runs it
    on the host when the word containing it runs; such a word is host-level
    (tileforth/core/session/hostexec.py): it runs between launches, never on a device."""

    name: str
    fn: Callable
    arg: object = None
    pos: SourcePos | None = None


class DropFlag(NodeBase):
    """Not built by the interpreter: a pseudo node that the code generator
    appends to a loop body for effect inference, the flag that UNTIL, WHILE
    or +LOOP consumes."""

    pos = None


Node = Union[Lit, FLit, Prim, Call, If, Begin, Do, Leave, Break, Label, Jump, Exit, Recurse, LocalsDef, LocalGet,
             LocalSet, HostOp]
NODE_TYPES: tuple[type, ...] = (Lit, FLit, Prim, Call, If, Begin, Do, Leave, Break, Label, Jump, Exit, Recurse,
                                LocalsDef, LocalGet, LocalSet, HostOp, DropFlag)
_BY_NAME = {t.__name__: t for t in NODE_TYPES}


def children(node) -> list[list[Node]]:
    """The sub-bodies a node owns, in source order (IF: then, else; BEGIN:
    the condition of a WHILE loop, then the body; DO: the body)."""
    out = []
    for name in node.BODIES:
        sub = getattr(node, name)
        if sub is not None:
            out.append(sub)
    return out


class Visitor:
    """A pass over the tree: `visit(node, *args)` calls the subclass's
    `visit_<Type>(node, *args)` for the node's type, or `generic_visit` when
    it has none. The type -> function table (`_visit_table`, one entry per
    node type) is built once per class, so a visit costs one dictionary
    lookup; hot passes index the table themselves."""

    _visit_table: ClassVar[dict[type, Callable]] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        for attr in dir(cls):
            if attr.startswith("visit_") and attr[len("visit_"):] not in _BY_NAME:
                raise TypeError(f"{cls.__name__}.{attr}: there is no node type {attr[len('visit_'):]}")
        cls._visit_table = {t: getattr(cls, "visit_" + t.__name__, cls.generic_visit) for t in NODE_TYPES}

    def visit(self, node, *args):
        fn = self._visit_table.get(type(node))
        if fn is None:
            return self.generic_visit(node, *args)
        return fn(self, node, *args)

    def generic_visit(self, node, *args):
        raise TypeError(f"{type(self).__name__} cannot handle a {type(node).__name__} node")


def walk(body: list[Node]):
    """Every node of a body, depth first (a node, then its sub-bodies in order)."""
    for n in body:
        yield n
        for name in n.BODIES:
            sub = getattr(n, name)
            if sub:
                yield from walk(sub)
