"""The structured program tree that the outer interpreter builds from tokens.

    source -> reader -> interpreter -> [Node...] -> effects -> codegen (LLVM IR)

A body is a list of nodes; control structures own their sub-bodies, so the
tree is always balanced (the interpreter rejects unbalanced input).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

from .errors import SourcePos

if TYPE_CHECKING:
    from .dictionary import Colon
    from .primitives import Primitive


@dataclass(eq=False)
class Lit:
    value: int
    pos: SourcePos | None = None
    space: str | None = None  # "global" for the address of an ARRAY or MATRIX


@dataclass(eq=False)
class FLit:
    value: float
    pos: SourcePos | None = None


@dataclass(eq=False)
class Prim:
    prim: "Primitive"
    pos: SourcePos | None = None
    arg: object = None  # static operand: PICK/ROLL depth, string id for .", local index...


@dataclass(eq=False)
class Call:
    word: "Colon"
    pos: SourcePos | None = None


@dataclass(eq=False)
class If:
    then: list["Node"]
    else_: list["Node"] | None
    pos: SourcePos | None = None


@dataclass(eq=False)
class Begin:
    """kind: 'until' (body ends with a flag), 'again', or 'while'
    (`BEGIN cond WHILE body REPEAT`)."""

    kind: str
    body: list["Node"]
    cond: list["Node"] = field(default_factory=list)
    pos: SourcePos | None = None


@dataclass(eq=False)
class Do:
    body: list["Node"]
    query: bool = False  # ?DO
    plus: bool = False  # +LOOP
    pos: SourcePos | None = None


@dataclass(eq=False)
class Leave:
    pos: SourcePos | None = None


@dataclass(eq=False)
class Exit:
    pos: SourcePos | None = None


@dataclass(eq=False)
class Recurse:
    word: "Colon"
    pos: SourcePos | None = None


@dataclass(eq=False)
class LocalGet:
    index: int
    name: str
    pos: SourcePos | None = None


Node = Union[Lit, FLit, Prim, Call, If, Begin, Do, Leave, Exit, Recurse, LocalGet]


def walk(body: list[Node]):
    """Every node of a body, depth first."""
    for n in body:
        yield n
        if isinstance(n, If):
            yield from walk(n.then)
            if n.else_ is not None:
                yield from walk(n.else_)
        elif isinstance(n, Begin):
            yield from walk(n.cond)
            yield from walk(n.body)
        elif isinstance(n, Do):
            yield from walk(n.body)
