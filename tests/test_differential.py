"""Differential testing against gforth.

Hypothesis writes random, well-formed, single-thread Forth programs (stack
words, arithmetic, comparisons, IF/ELSE/THEN, DO/?DO/LOOP/+LOOP with I J
LEAVE, BEGIN/UNTIL, BEGIN/WHILE/REPEAT, >R/R@/R>, colon definitions with EXIT
and RECURSE, then called). Each program runs in gforth and in tileforth; the
data stacks must agree.

To keep the programs well defined, generation runs a small model of the
language on concrete values and drops any construct that would underflow,
overflow a signed 64-bit cell, divide by zero, shift by 64 or more, or loop
too long. The model only steers generation; the reference is gforth
(`test_model_agrees_with_gforth` checks the model itself against gforth).
"""

from __future__ import annotations

import os
import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import forthtest
import gforth

MIN, MAX = -(1 << 63), (1 << 63) - 1
MASK = (1 << 64) - 1
MAX_DEPTH = 24          # keep stacks small
MAX_STEPS = 3000        # model steps per program
MAX_ITERATIONS = 12     # per loop


# ---------------------------------------------------------------- the model


class Unsafe(Exception):
    """The construct would be undefined behaviour (or too big): drop it."""


class Leave(Exception):
    pass


class Exit(Exception):
    pass


def s64(x: int) -> int:
    x &= MASK
    return x - (1 << 64) if x >> 63 else x


def chk(x: int) -> int:
    if not MIN <= x <= MAX:
        raise Unsafe("signed overflow")
    return x


def flag(b: bool) -> int:
    return -1 if b else 0


def fdiv(a: int, b: int) -> int:
    """Floored division, as gforth's and tileforth's (Python's // floors)."""
    if b == 0 or (a == MIN and b == -1):
        raise Unsafe("division")
    return a // b


def fmod(a: int, b: int) -> int:
    return a - b * fdiv(a, b)


def shift(u: int) -> int:
    if not 0 <= u < 64:
        raise Unsafe("shift")
    return u


# name: (inputs, function returning the outputs)
OPS = {
    "DUP": (1, lambda a: (a, a)),
    "DROP": (1, lambda a: ()),
    "SWAP": (2, lambda a, b: (b, a)),
    "OVER": (2, lambda a, b: (a, b, a)),
    "ROT": (3, lambda a, b, c: (b, c, a)),
    "-ROT": (3, lambda a, b, c: (c, a, b)),
    "NIP": (2, lambda a, b: (b,)),
    "TUCK": (2, lambda a, b: (b, a, b)),
    "2DUP": (2, lambda a, b: (a, b, a, b)),
    "2DROP": (2, lambda a, b: ()),
    "2SWAP": (4, lambda a, b, c, d: (c, d, a, b)),
    "2OVER": (4, lambda a, b, c, d: (a, b, c, d, a, b)),
    "+": (2, lambda a, b: (chk(a + b),)),
    "-": (2, lambda a, b: (chk(a - b),)),
    "*": (2, lambda a, b: (chk(a * b),)),
    "/": (2, lambda a, b: (fdiv(a, b),)),
    "MOD": (2, lambda a, b: (fmod(a, b),)),
    "/MOD": (2, lambda a, b: (fmod(a, b), fdiv(a, b))),
    "*/": (3, lambda a, b, c: (fdiv(chk(a * b), c),)),
    "*/MOD": (3, lambda a, b, c: (fmod(chk(a * b), c), fdiv(chk(a * b), c))),
    "NEGATE": (1, lambda a: (chk(-a),)),
    "ABS": (1, lambda a: (chk(abs(a)),)),
    "MIN": (2, lambda a, b: (min(a, b),)),
    "MAX": (2, lambda a, b: (max(a, b),)),
    "1+": (1, lambda a: (chk(a + 1),)),
    "1-": (1, lambda a: (chk(a - 1),)),
    "2*": (1, lambda a: (chk(2 * a),)),
    "2/": (1, lambda a: (a >> 1,)),
    "LSHIFT": (2, lambda a, u: (s64(a << shift(u)),)),
    "RSHIFT": (2, lambda a, u: (s64((a & MASK) >> shift(u)),)),
    "AND": (2, lambda a, b: (a & b,)),
    "OR": (2, lambda a, b: (a | b,)),
    "XOR": (2, lambda a, b: (a ^ b,)),
    "INVERT": (1, lambda a: (~a,)),
    "=": (2, lambda a, b: (flag(a == b),)),
    "<>": (2, lambda a, b: (flag(a != b),)),
    "<": (2, lambda a, b: (flag(a < b),)),
    ">": (2, lambda a, b: (flag(a > b),)),
    "<=": (2, lambda a, b: (flag(a <= b),)),
    ">=": (2, lambda a, b: (flag(a >= b),)),
    "U<": (2, lambda a, b: (flag((a & MASK) < (b & MASK)),)),
    "0=": (1, lambda a: (flag(a == 0),)),
    "0<>": (1, lambda a: (flag(a != 0),)),
    "0<": (1, lambda a: (flag(a < 0),)),
    "0>": (1, lambda a: (flag(a > 0),)),
    "WITHIN": (3, lambda n, lo, hi: (flag(((n - lo) & MASK) < ((hi - lo) & MASK)),)),
    "TRUE": (0, lambda: (-1,)),
    "FALSE": (0, lambda: (0,)),
}
SPECIAL_OPS = ["DEPTH", "?DUP"]
OP_NAMES = sorted(OPS) + SPECIAL_OPS
# Binary words that are mostly only valid with a small right operand.
LITERAL_OPS = ["/", "MOD", "/MOD", "LSHIFT", "RSHIFT", "+", "-", "*", "AND",
               "=", "<", ">", "U<", "MIN", "MAX"]


class Machine:
    """Runs program trees on concrete values; raises Unsafe on anything
    that is not well defined."""

    def __init__(self, defs):
        self.s: list[int] = []
        self.r: list = []          # ["loop", index, limit] | ["val", x] | ["call"]
        self.defs = defs
        self.calls: list[str] = []
        self.steps = 0

    def copy(self) -> "Machine":
        m = Machine(self.defs)
        m.s = list(self.s)
        m.r = [list(fr) for fr in self.r]
        m.calls = list(self.calls)
        m.steps = self.steps
        return m

    def assign(self, other: "Machine") -> None:
        self.s, self.r, self.calls, self.steps = other.s, other.r, other.calls, other.steps

    def pop(self) -> int:
        if not self.s:
            raise Unsafe("underflow")
        return self.s.pop()

    def push(self, *xs: int) -> None:
        for x in xs:
            assert MIN <= x <= MAX, x
            self.s.append(x)
        if len(self.s) > MAX_DEPTH:
            raise Unsafe("too deep")

    def loop_frame(self, k: int) -> list:
        """k=0: innermost loop (I), 1: J, 2: K; must be on top of R."""
        if len(self.r) <= k or any(fr[0] != "loop" for fr in self.r[-k - 1:]):
            raise Unsafe("loop index not reachable")
        return self.r[-k - 1]

    def run(self, nodes) -> None:
        for node in nodes:
            self.step(node)

    def step(self, node) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Unsafe("too many steps")
        kind = node[0]
        if kind == "lit":
            self.push(node[1])
        elif kind == "op":
            name = node[1]
            if name == "DEPTH":
                self.push(len(self.s))
            elif name == "?DUP":
                a = self.pop()
                self.push(*((a, a) if a else (a,)))
            else:
                n, fn = OPS[name]
                if len(self.s) < n:
                    raise Unsafe("underflow")
                args = self.s[len(self.s) - n:] if n else []
                out = fn(*args)
                del self.s[len(self.s) - n:]
                self.push(*out)
        elif kind == "seq":
            self.run(node[1])
        elif kind in ("pick", "roll"):
            k = node[1]
            if len(self.s) <= k:
                raise Unsafe("underflow")
            x = self.s[-1 - k]
            if kind == "roll":
                del self.s[-1 - k]
            self.push(x)
        elif kind == "if":
            _, then, els = node
            branch = then if self.pop() else els
            self.run(branch or [])
        elif kind == "do":
            self.do_loop(*node[1:])
        elif kind == "index":
            self.push(self.loop_frame(node[1])[1])
        elif kind == "leave-if":
            if self.loop_frame(0)[1] == node[1]:
                raise Leave
        elif kind == "tor":
            self.r.append(["val", self.pop()])
            self.run(node[1])
            fr = self.r.pop()
            assert fr[0] == "val"
            self.push(fr[1])
        elif kind == "r@":
            if not self.r or self.r[-1][0] != "val":
                raise Unsafe("R@ without >R")
            self.push(self.r[-1][1])
        elif kind == "countdown":          # n BEGIN >R body R> 1- DUP 0= UNTIL DROP
            self.count_down(node[1], node[2])
        elif kind == "while":              # n BEGIN DUP 0> WHILE >R body R> 1- REPEAT DROP
            self.count_down(node[1], node[2])
        elif kind == "call":
            self.call(node[1])
        elif kind == "recurse":
            self.call(self.calls[-1])
        elif kind == "exit-if":            # DUP k < IF EXIT THEN
            if not self.s:
                raise Unsafe("underflow")
            if self.s[-1] < node[1]:
                raise Exit
        else:
            raise AssertionError(node)

    def count_down(self, n: int, body) -> None:
        for counter in range(n, 0, -1):   # the counter sits on R during body
            self.r.append(["val", counter])
            self.run(body)
            fr = self.r.pop()
            assert fr == ["val", counter]

    def call(self, name: str) -> None:
        if len(self.calls) > 8:
            raise Unsafe("recursion too deep")
        self.calls.append(name)
        self.r.append(["call"])
        try:
            self.run(self.defs[name])
        except Exit:
            pass
        self.r.pop()
        self.calls.pop()

    def do_loop(self, word, limit, start, body, step) -> None:
        if word == "?DO" and limit == start:
            return
        frame = ["loop", start, limit]
        self.r.append(frame)
        inc = 1 if step is None else step
        try:
            for _ in range(MAX_ITERATIONS):
                self.run(body)
                old = frame[1] - limit
                new = old + inc
                frame[1] += inc
                if (old < 0) != (new < 0):   # crossed limit-1 | limit
                    break
            else:
                raise Unsafe("loop too long")
        except Leave:
            pass
        self.r.pop()


# ---------------------------------------------------------- text of a tree


def text(nodes) -> str:
    return " ".join(t for t in (node_text(n) for n in nodes) if t)


def node_text(node) -> str:
    kind = node[0]
    if kind == "lit":
        return str(node[1])
    if kind == "op":
        return node[1]
    if kind == "seq":
        return text(node[1])
    if kind == "pick":
        return f"{node[1]} PICK"
    if kind == "roll":
        return f"{node[1]} ROLL"
    if kind == "if":
        _, then, els = node
        if els is None:
            return f"IF {text(then)} THEN"
        return f"IF {text(then)} ELSE {text(els)} THEN"
    if kind == "do":
        _, word, limit, start, body, step = node
        end = "LOOP" if step is None else f"{step} +LOOP"
        return f"{limit} {start} {word} {text(body)} {end}"
    if kind == "index":
        return "IJK"[node[1]]
    if kind == "leave-if":
        return f"I {node[1]} = IF LEAVE THEN"
    if kind == "tor":
        return f">R {text(node[1])} R>"
    if kind == "r@":
        return "R@"
    if kind == "countdown":
        return f"{node[1]} BEGIN >R {text(node[2])} R> 1- DUP 0= UNTIL DROP"
    if kind == "while":
        return f"{node[1]} BEGIN DUP 0> WHILE >R {text(node[2])} R> 1- REPEAT DROP"
    if kind == "call":
        return node[1]
    if kind == "recurse":
        return "RECURSE"
    if kind == "exit-if":
        return f"DUP {node[1]} < IF EXIT THEN"
    raise AssertionError(node)


# ----------------------------------------------------------- the generator

LITERALS = st.one_of(
    st.integers(-10, 10),
    st.integers(-1000, 1000),
    st.integers(MIN, MAX),
    st.sampled_from([MIN, MAX, MIN + 1, MAX - 1, 0, -1, 1, 2, 63, 64, 1 << 32]),
)


@dataclasses.dataclass
class Program:
    """Lines typed at the prompt, one `f.eval` each. A line is either a
    colon definition or a top-level line (control flow allowed)."""

    lines: list[tuple[str, bool]]     # (source, is_definition)
    model_stack: list[int]

    def tileforth_lines(self) -> list[str]:
        return [src for src, _ in self.lines]

    def gforth_source(self) -> str:
        return "\n".join(src if is_def else gforth.wrap(src) for src, is_def in self.lines)

    def __repr__(self) -> str:
        return "Program:\n" + "\n".join("    " + s for s, _ in self.lines)


class Generator:
    def __init__(self, draw):
        self.draw = draw
        self.defs: dict[str, list] = {}
        self.def_lines: list[str] = []

    def choice(self, options):
        return self.draw(st.sampled_from(options))

    def fragment(self, m: Machine, ctx: tuple, nest: int, max_len: int, in_def=False):
        """Up to max_len nodes, each kept only if it runs safely on `m`
        (which is advanced past the kept nodes)."""
        nodes = []
        for _ in range(self.draw(st.integers(0, max_len))):
            try:
                node = self.node(m, ctx, nest, in_def)
            except Unsafe:          # the guide state itself went out of bounds
                continue
            if node is None:
                continue
            trial = m.copy()
            try:
                trial.step(node)
            except Unsafe:
                continue
            nodes.append(node)
            m.assign(trial)
        return nodes

    def node(self, m: Machine, ctx: tuple, nest: int, in_def: bool):
        kinds = ["lit", "op", "op", "op", "litop", "pickroll"]
        if nest < 3:
            kinds += ["if", "if", "do", "loopy", "tor"]
        if ctx and ctx[-1] == "loop":
            kinds += ["index", "index"]
        if ctx and ctx[-1] == "val":
            kinds += ["r@"]
        if self.defs:
            kinds += ["call"]
        if nest == 0 and not in_def:
            kinds += ["def", "def"]
        kind = self.choice(kinds)

        if kind == "lit":
            return ("lit", self.draw(LITERALS))
        if kind == "op":
            return ("op", self.choice(OP_NAMES))
        if kind == "litop":
            return ("seq", [("lit", self.draw(st.integers(-3, 70))),
                            ("op", self.choice(LITERAL_OPS))])
        if kind == "pickroll":
            k = self.draw(st.integers(0, 4))
            return (self.choice(["pick", "roll"]), k)
        if kind == "index":
            reach = 0      # I, J, K: the loops directly on top of R
            while reach < 3 and reach < len(ctx) and ctx[-1 - reach] == "loop":
                reach += 1
            return ("index", self.draw(st.integers(0, reach - 1)))
        if kind == "r@":
            return ("r@",)
        if kind == "call":
            return ("call", self.choice(sorted(self.defs)))
        if kind == "if":
            return self.gen_if(m, ctx, nest, in_def)
        if kind == "do":
            return self.gen_do(m, ctx, nest, in_def)
        if kind == "loopy":
            return self.gen_begin(m, ctx, nest, in_def)
        if kind == "tor":
            if not m.s:
                return None
            g = m.copy()
            g.r.append(["val", g.pop()])
            body = self.fragment(g, ctx + ("val",), nest + 1, 4, in_def)
            return ("tor", body)
        if kind == "def":
            return self.gen_def(m)
        raise AssertionError(kind)

    def gen_if(self, m, ctx, nest, in_def):
        prefix = []
        if self.draw(st.booleans()):
            prefix = [("op", "DUP"), ("lit", self.draw(st.integers(-5, 5))),
                      ("op", self.choice(["<", ">", "=", "<>"]))]
        g = m.copy()
        try:
            g.run(prefix)
            g.pop()
        except Unsafe:
            return None
        g_then, g_else = g.copy(), g.copy()
        then = self.fragment(g_then, ctx, nest + 1, 4, in_def)
        els = self.fragment(g_else, ctx, nest + 1, 4, in_def) if self.draw(st.booleans()) else None
        return ("seq", prefix + [("if", then, els)])

    def gen_do(self, m, ctx, nest, in_def):
        word = self.choice(["DO", "?DO"])
        start = self.draw(st.integers(-5, 5))
        step = self.draw(st.sampled_from([None, None, 1, 2, 3, -1, -2]))
        # the model drops loops that would run (nearly) forever
        if step is None or step > 0:
            limit = start + self.draw(st.integers(0, 8))
        else:
            limit = start - self.draw(st.integers(0, 8))
        g = m.copy()
        g.r.append(["loop", start, limit])
        body = self.fragment(g, ctx + ("loop",), nest + 1, 4, in_def)
        if self.draw(st.integers(0, 3)) == 0:
            body = body + [("leave-if", start + self.draw(st.integers(0, 2)) * (step or 1))]
        return ("do", word, limit, start, body, step)

    def gen_begin(self, m, ctx, nest, in_def):
        kind = self.choice(["countdown", "while"])
        n = self.draw(st.integers(1 if kind == "countdown" else 0, 4))
        g = m.copy()
        g.r.append(["val", n])
        body = self.fragment(g, ctx + ("val",), nest + 1, 4, in_def)
        return (kind, n, body)

    def gen_def(self, m):
        name = f"W{len(self.defs)}"
        style = self.choice(["plain", "plain", "exit", "recurse"])
        g = m.copy()
        g.calls.append(name)
        if style == "plain":
            body = self.fragment(g, (), 1, 6, in_def=True)
            call = ("call", name)
        elif style == "exit":
            body = self.fragment(g, (), 1, 3, in_def=True)
            body.append(("exit-if", self.draw(st.integers(-5, 5))))
            body += self.fragment(g, (), 1, 3, in_def=True)
            call = ("call", name)
        else:
            # ( x n -- x' ) apply `u` to x, n times, by recursion
            g.push(0)
            u = self.fragment(g, (), 2, 3, in_def=True)
            body = [("op", "DUP"), ("op", "0>"), ("if",
                    [("op", "1-"), ("op", "SWAP"), *u, ("op", "SWAP"), ("recurse",)],
                    [("op", "DROP")])]
            call = ("seq", [("lit", self.draw(st.integers(0, 4))), ("call", name)])
        self.defs[name] = body
        self.def_lines.append(f": {name} {text(body)} ;")
        return call


@st.composite
def programs(draw) -> Program:
    gen = Generator(draw)
    m = Machine(gen.defs)
    lines: list[tuple[str, bool]] = []
    for _ in range(draw(st.integers(1, 3))):
        first_def = len(gen.def_lines)
        nodes = gen.fragment(m, (), 0, 8)
        lines += [(d, True) for d in gen.def_lines[first_def:]]
        if nodes:
            lines.append((text(nodes), False))
    if not lines:
        lines.append(("", False))
    return Program(lines=lines, model_stack=list(m.s))


# ------------------------------------------------------------------ tests

SETTINGS = settings(
    max_examples=int(os.environ.get("TILEFORTH_EXAMPLES", "100")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much],
)


@pytest.fixture(scope="module")
def shared_forth():
    return forthtest.new_forth()


@SETTINGS
@given(prog=programs())
def test_model_agrees_with_gforth(prog):
    """Checks the generator's model (not tileforth): if this fails the
    generator is wrong, not the implementation."""
    gforth.require()
    assert gforth.stack(prog.gforth_source()) == prog.model_stack


@SETTINGS
@given(prog=programs())
def test_tileforth_agrees_with_gforth(shared_forth, prog):
    gforth.require()
    expected = gforth.stack(prog.gforth_source())
    f = shared_forth
    forthtest.reset(f)
    for line in prog.tileforth_lines():
        f.eval(line)
    assert f.data_stack() == expected
    # every one of the 32 threads ran the same program
    assert f.data_stack(lane=None) == [expected] * 32
