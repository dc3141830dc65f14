"""Which memory a called word's results point into, known before its call is generated.

Inside one function the generator tags address values (Gen.tag: an ARRAY's literal is "global", a
SHARED: name "shared", an address plus an offset keeps its tag), so that accesses through them use
that address space (nvptx: ld.global / ld.shared, not a generic ld). A word that is called, not
inlined, hands its results back through the stack's memory, where those tags are lost:
`result_spaces` finds them again from the word's body, for the caller to put back on the values it
reads after the call.

The walk is deliberately small: straight code made of literals, the stack words below, address
arithmetic (+ and -, with the generator's own rule) and other nodes of a static effect (their
results untagged), and calls of words it can walk the same way. Anything else (a branch, a loop,
locals, a dynamic effect) gives no tags at all, which is always sound: an untagged address is
accessed with generic instructions.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..front.effects import body_effect
from ..front.tree import Call, Lit, Prim

if TYPE_CHECKING:
    from ..front.dictionary import Colon

# the cells each stack word leaves, as indices into the cells it takes (bottom first)
SHUFFLES: dict[str, tuple[int, tuple[int, ...]]] = {
    "DUP": (1, (0, 0)), "DROP": (1, ()), "SWAP": (2, (1, 0)), "OVER": (2, (0, 1, 0)),
    "ROT": (3, (1, 2, 0)), "NIP": (2, (1,)), "TUCK": (2, (1, 0, 1)), "2DROP": (2, ()),
    "2DUP": (2, (0, 1, 0, 1)),
}
_DEPTH = 8  # calls followed at most this deep


def combine(a: str | None, b: str | None, kind: str) -> str | None:
    """The space of `a + b` ("sum") or `a - b` ("difference"): an address plus or minus an
    offset stays in its memory (primitives.stacks applies the same rule to values)."""
    return a if b is None else b if a is None and kind == "sum" else None


def result_spaces(word: "Colon") -> tuple[str | None, ...]:
    """The spaces of the cells `word` leaves on top of the stack (the top last; only as many as
    its body produces itself), or () when they are not known. Kept with the word (its body does
    not change once it is defined)."""
    body = getattr(word, "body", None)
    if body is None:
        return ()
    key = ("spaces", len(body))
    hit = word.__dict__.get("_spaces")
    if hit is not None and hit[0] == key:
        return hit[1]
    word.__dict__["_spaces"] = (key, ())  # a word reached again while it is walked: nothing known
    found = _walk(body, 0) or ()
    word.__dict__["_spaces"] = (key, found)
    return found


def _walk(body: list, depth: int) -> tuple[str | None, ...] | None:
    """The tags of what the body pushes (its own cells, the top last), or None when unknown. Cells
    it takes from below are untagged (a caller's tags are not assumed)."""
    stack: list[str | None] = []

    def take(n: int) -> list[str | None]:
        pad: list[str | None] = [None] * max(0, n - len(stack))
        got = pad + stack[max(0, len(stack) - n):]
        del stack[max(0, len(stack) - n):]
        return got

    for n in body:
        if type(n) is Lit:
            stack.append(n.space)
            continue
        if type(n) is Prim and n.prim.name in SHUFFLES:
            k, out = SHUFFLES[n.prim.name]
            got = take(k)
            stack.extend(got[i] for i in out)
            continue
        arith = getattr(n.prim, "address_arith", "") if type(n) is Prim else ""
        if arith and getattr(n.prim, "ins", 0) == 2:
            a, b = take(2)
            stack.append(combine(a, b, arith))
            continue
        if type(n) is Call and depth < _DEPTH and n.word.effect.static and not n.word.recursive:
            eff = n.word.effect
            inner = _walk(n.word.body, depth + 1) if getattr(n.word, "body", None) is not None else None
            take(eff.dneed)
            results: list[str | None] = [None] * (eff.dneed + eff.dnet)
            if inner:
                k = min(len(inner), len(results))
                results[len(results) - k:] = inner[len(inner) - k:]
            stack.extend(results)
            continue
        if type(n) not in (Prim, Call) or n.BODIES:
            return None
        eff = body_effect([n])
        if not eff.static:
            return None
        take(eff.dneed)
        stack.extend([None] * (eff.dneed + eff.dnet))
    return tuple(stack)
