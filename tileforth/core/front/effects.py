"""Stack-effect inference over the program tree.

An effect says how many data/float items a body needs on entry and how the
depths change. It is *static* when every path agrees (balanced IF branches,
balanced loop bodies, no ?DUP or computed PICK); otherwise the compiler keeps
runtime depth checks everywhere.
"""
from __future__ import annotations

from .stackeffect import Effect
from .tree import Begin, Call, Do, DropFlag, Exit, FLit, If, Leave, Lit, LocalsDef, LocalSet, Prim, Recurse, Visitor

DYNAMIC = Effect(False)

class _Dynamic(Exception):
    pass

class _State:
    """Depths relative to entry, the lowest depths reached on some path
    (dmin, fmin) and on every path (dsmin, fsmin)."""

    def __init__(self) -> None:
        self.d = self.f = 0
        self.dmin = self.fmin = 0
        self.dsmin = self.fsmin = 0

    def take(self, n: int, fn: int = 0, sure_n: int | None = None, sure_fn: int | None = None) -> None:
        sd = self.d - (n if sure_n is None else sure_n)
        sf = self.f - (fn if sure_fn is None else sure_fn)
        self.dsmin = min(self.dsmin, sd)
        self.fsmin = min(self.fsmin, sf)
        self.d -= n
        self.f -= fn
        self.dmin = min(self.dmin, self.d)
        self.fmin = min(self.fmin, self.f)

    def sure(self) -> tuple[int, int]:
        return self.dsmin, self.fsmin

    def set_sure(self, sure: tuple[int, int]) -> None:
        self.dsmin, self.fsmin = sure

    def give(self, n: int, fn: int = 0) -> None:
        self.d += n
        self.f += fn

    def apply(self, e: Effect) -> None:
        if not e.static:
            raise _Dynamic
        self.take(e.dneed, e.fneed, e.dmust, e.fmust)
        self.give(e.dneed + e.dnet, e.fneed + e.fnet)

class _Walker(Visitor):
    def __init__(self) -> None:
        self.exits: list[tuple[int, int]] = []
        self.exit_sure: list[tuple[int, int]] = []
        self.leaves: list[list[tuple[int, int]]] = []

    def body(self, nodes, st: _State) -> bool:
        """Walk nodes; False when the end is unreachable."""
        table = self._visit_table
        for n in nodes:
            if not table.get(type(n), _Walker.generic_visit)(self, n, st):
                return False
        return True

    # each visit_ applies a node to the state; False when the end is unreachable
    def visit_Lit(self, n: Lit, st: _State) -> bool:
        st.give(1)
        return True

    visit_LocalGet = visit_Lit

    def visit_LocalsDef(self, n: LocalsDef, st: _State) -> bool:
        st.take(n.taken)
        return True

    def visit_LocalSet(self, n: LocalSet, st: _State) -> bool:
        st.take(1)
        return True

    def visit_FLit(self, n: FLit, st: _State) -> bool:
        st.give(0, 1)
        return True

    def visit_Prim(self, n: Prim, st: _State) -> bool:
        st.apply(n.prim.effect_of(n))
        return True

    def visit_Call(self, n: Call, st: _State) -> bool:
        st.apply(n.word.effect)
        return True

    def visit_Recurse(self, n: Recurse, st: _State) -> bool:
        raise _Dynamic

    def visit_If(self, n: If, st: _State) -> bool:
        st.take(1)
        return self.branches(n, st)

    def visit_Begin(self, n: Begin, st: _State) -> bool:
        return self.begin(n, st)

    def visit_Do(self, n: Do, st: _State) -> bool:
        st.take(2)
        return self.loop(n.body, st, extra_take=1 if n.plus else 0)

    def visit_Leave(self, n: Leave, st: _State) -> bool:
        if not self.leaves:
            raise _Dynamic
        self.leaves[-1].append((st.d, st.f))
        return False

    def visit_Exit(self, n: Exit, st: _State) -> bool:
        self.exits.append((st.d, st.f))
        self.exit_sure.append(st.sure())
        return False

    def visit_DropFlag(self, n: DropFlag, st: _State) -> bool:
        st.take(1)
        return True

    def generic_visit(self, n, st: _State) -> bool:
        raise _Dynamic

    def branches(self, n: If, st: _State) -> bool:
        a, b = _copy(st), _copy(st)
        ra = self.body(n.then, a)
        rb = self.body(n.else_ or [], b)
        ends = [s for s, r in ((a, ra), (b, rb)) if r]
        st.dmin = min(a.dmin, b.dmin)
        st.fmin = min(a.fmin, b.fmin)
        st.dsmin = max(a.dsmin, b.dsmin)  # sure only if both arms need it
        st.fsmin = max(a.fsmin, b.fsmin)
        if not ends:
            return False
        if len(ends) == 2 and (a.d, a.f) != (b.d, b.f):
            raise _Dynamic
        st.d, st.f = ends[0].d, ends[0].f
        return True

    def loop(self, body, st: _State, extra_take: int = 0) -> bool:
        start = (st.d, st.f)
        sure = st.sure()  # a body may run zero times (?DO): its needs are not sure
        self.leaves.append([])
        reach = self.body(body, st)
        if reach:
            st.take(extra_take)
            if (st.d, st.f) != start:
                raise _Dynamic
        for leave in self.leaves.pop():
            if leave != start:
                raise _Dynamic
        st.d, st.f = start
        st.set_sure(sure)
        return True

    def begin(self, n: Begin, st: _State) -> bool:
        sure = st.sure()
        try:
            return self._begin(n, st)
        finally:
            st.set_sure(sure)  # conservative: what the loop needs is checked inside

    def _begin(self, n: Begin, st: _State) -> bool:
        start = (st.d, st.f)
        if n.kind == "again":
            reach = self.body(n.body, st)
            if reach and (st.d, st.f) != start:
                raise _Dynamic
            return False
        if n.kind == "until":
            reach = self.body(n.body, st)
            if reach:
                st.take(1)
                if (st.d, st.f) != start:
                    raise _Dynamic
            return reach
        reach = self.body(n.cond, st)
        if not reach:
            return False
        st.take(1)
        after_cond = (st.d, st.f)
        if self.body(n.body, st) and (st.d, st.f) != start:
            raise _Dynamic
        st.d, st.f = after_cond
        return True

def _copy(st: _State) -> _State:
    c = _State()
    c.d, c.f, c.dmin, c.fmin = st.d, st.f, st.dmin, st.fmin
    c.dsmin, c.fsmin = st.dsmin, st.fsmin
    return c

def body_effect(nodes) -> Effect:
    w = _Walker()
    st = _State()
    try:
        reach = w.body(nodes, st)
    except _Dynamic:
        return DYNAMIC
    ends = list(w.exits)
    sures = list(w.exit_sure)
    if reach:
        ends.append((st.d, st.f))
        sures.append(st.sure())
    ds = -max((s[0] for s in sures), default=st.dsmin)
    fs = -max((s[1] for s in sures), default=st.fsmin)
    if not ends:  # never returns (BEGIN ... AGAIN)
        return Effect(True, -st.dmin, 0, -st.fmin, 0, ds, fs)
    if any(e != ends[0] for e in ends):
        return DYNAMIC
    return Effect(True, -st.dmin, ends[0][0], -st.fmin, ends[0][1], ds, fs)
