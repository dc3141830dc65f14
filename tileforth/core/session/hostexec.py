"""Host-level execution: running a word on the host, between launches.

Most words compile to device code and run on every thread. A few act on the
session itself: defining words (CREATE, `,`, CONSTANT inside a definition),
DOES>, compile-time words (POSTPONE, LITERAL, user IMMEDIATE words), `'`.
A colon definition that holds one of them, or calls a word that does, is
*host-level* (`Colon.host`). It runs here, as a classic Forth's inner
interpreter would, one node at a time:

- a run of device nodes (literals, primitives, calls of device words, whole
  control structures without host actions) goes to the line's segment,
  which is launched, as one kernel, only when the host needs a value from
  the stacks or the line ends;
- a host action (a `HostOp`) runs on the host after the segment before it;
- IF, loops, `>R R>` and `I J` around host actions are walked here, with
  the flags and counts taken from the stacks, where every thread must agree
  (the host runs the word once for all of them).

So `: table CREATE 0 DO I , LOOP ;  5 table t` compiles nothing: it is
walked on the host, and `,` stores each index from the host. A step budget
bounds host loops as it bounds device ones.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..compile.primitives import LOOP_WORDS, RSTACK_WORDS
from ..errors import ForthError
from .hostbound import RAISE_BUDGET, check_abort  # noqa: F401  (RAISE_BUDGET: launcherrors, blocks)
from ..front.reader import Token, wrap64
from ..front.tree import (
    Begin,
    Break,
    Call,
    Do,
    Exit,
    FLit,
    HostOp,
    If,
    Jump,
    Label,
    Leave,
    Lit,
    LocalGet,
    LocalsDef,
    LocalSet,
    Node,
    Prim,
    Recurse,
)

if TYPE_CHECKING:
    from ..front.dictionary import Colon
    from .api import Session as Forth


# what every step-budget error says (words/system.py has the words, tileforth/repl/cli.py the option)


EXIT = object()  # what a HostOp's fn returns to end the word running it (DOES>)


class _Exit(Exception):
    pass


class _Leave(Exception):
    pass


class _Break(Exception):
    pass


def device_ok(n: Node, loops: int = 0, begins: int = 0) -> bool:
    """`n` can run on the device as it is: no host action in it, and what it
    says about loops and the return stack refers to structures inside it."""
    t = type(n)
    if t in (Lit, FLit):
        return True
    if t is Prim:
        name = n.prim.name
        if name == "EXECUTE":  # the token may name a host-level word (COMPILE, ...): see HostRunner.prim
            return False
        if name in LOOP_WORDS:
            return loops >= LOOP_WORDS[name]
        return name not in RSTACK_WORDS or (loops > 0 and name == "UNLOOP")
    if t is Call:
        return not n.word.host
    if t is Leave:
        return loops > 0
    if t is Break:
        return begins > 0
    if t is If:
        return all(device_ok(m, loops, begins) for m in n.then + (n.else_ or []))
    if t is Begin:
        return all(device_ok(m, loops, begins + 1) for m in n.cond + n.body)
    if t is Do:
        return all(device_ok(m, loops + 1, begins) for m in n.body)
    return False  # HostOp, Exit, Recurse, LocalGet


class HostRunner:
    """Runs host-level words for a session (one runner per outermost call)."""

    def __init__(self, f: "Forth") -> None:
        self.f = f
        self.steps = 0

    # ---- what the device nodes need ----------------------------------------------------
    def device(self, n: Node) -> None:
        """A device node: it joins the line's segment (launched when needed)."""
        self.f.segment.append(n)

    def value(self, *cells: int) -> None:
        """Cells the host knows (a loop index, the return stack) onto the stacks,
        after the device code before them (push_uniform runs it): pushed, not
        compiled, so a host loop's device code is the same kernel at every index."""
        self.f.push_uniform(*cells)

    def pop(self, n: int, word: str) -> list[int]:
        """n cells from the stacks, after the device code before them (pop_uniform runs it)."""
        return self.f.pop_uniform(n, word)

    def step(self, pos) -> None:
        self.steps += 1
        check_abort(self.f, pos)  # Ctrl-C stops a host-level loop as it stops a launch's
        if self.steps > self.f.step_budget:
            raise ForthError(f"a host-level word ran {self.f.step_budget} loop iterations and calls without "
                             f"finishing: the loop or recursion looks infinite ({RAISE_BUDGET})", pos, code=None)  # CATCH lets it through, as a runaway device loop

    # ---- words and bodies --------------------------------------------------------------
    def call(self, word: "Colon", pos=None) -> None:
        """Run a colon definition on the host (its device parts join the segment)."""
        self.step(pos)
        frame = _Frame(word)
        try:
            self.body(word.body, frame)
        except _Exit:
            pass
        if frame.rstack:
            raise ForthError(f"{word.name} leaves values on the return stack: balance >R with R>",
                             word.pos, word.name)

    def body(self, nodes: list[Node], fr: "_Frame") -> None:
        for n in nodes:
            self.node(n, fr)

    def node(self, n: Node, fr: "_Frame") -> None:
        if device_ok(n, 0):
            self.device(n)
            return
        t = type(n)
        if t is HostOp:
            self.f.flush_segment()
            try:
                done = n.fn(self.f, n)
            except ForthError as err:  # a host word's error points at the word, where it was compiled
                raise err.at(n.pos, n.name.split()[-1])
            if done is EXIT:
                raise _Exit
        elif t is Call:
            self.call(n.word, n.pos)
        elif t is Recurse:
            self.call(fr.word, n.pos)
        elif t is Exit:
            raise _Exit
        elif t is Leave:
            raise _Leave
        elif t is Break:
            raise _Break
        elif t is Prim:
            self.prim(n, fr)
        elif t is If:
            (flag,) = self.pop(1, "IF")
            self.body(n.then if flag else (n.else_ or []), fr)
        elif t is Begin:
            self.begin(n, fr)
        elif t is Do:
            self.do(n, fr)
        elif t is Label or t is Jump:
            raise ForthError(f"{fr.word.name if fr.word else 'this line'} runs on the host (it defines or compiles "
                             "words) and has jumps made by CS-ROLL or CS-PICK, which only device code can take: "
                             "keep the reordered control structures in a word of their own", n.pos, "CS-ROLL")
        elif t is LocalsDef:  # a host-level word's locals live on the host
            fr.locals += (self.pop(n.taken, "locals") if n.taken else []) + [0] * n.extra
        elif t is LocalGet:
            self.value(fr.locals[n.index])
        elif t is LocalSet:
            (fr.locals[n.index],) = self.pop(1, f"TO {n.name}")
        else:  # pragma: no cover
            raise ForthError(f"internal error: cannot run a {t.__name__} on the host", getattr(n, "pos", None))

    def prim(self, n: Prim, fr: "_Frame") -> None:
        name = n.prim.name
        if name in LOOP_WORDS:
            depth = LOOP_WORDS[name] + fr.unlooped
            if len(fr.loops) < depth:
                raise ForthError(f"{name} needs {LOOP_WORDS[name]} enclosing DO loop(s)", n.pos, name)
            self.value(fr.loops[-depth])
        elif name == "UNLOOP":
            if len(fr.loops) <= fr.unlooped:
                raise ForthError("UNLOOP is only allowed inside DO ... LOOP", n.pos, name)
            fr.unlooped += 1
        elif name == "EXECUTE":
            self.f.execute_now(Token(name, n.pos))
        elif name in (">R", "2>R"):
            fr.rstack.extend(self.pop(2 if name == "2>R" else 1, name))
        elif name == "N>R":
            (count,) = self.pop(1, name)
            if count < 0:
                raise ForthError(f"N>R needs a count of 0 or more, got {count}", n.pos, name)
            fr.rstack.extend((self.pop(count, name) if count else []) + [count])
        elif name == "NR>":
            count = fr.rstack[-1] if fr.rstack else -1
            if not 0 <= count < len(fr.rstack):
                raise ForthError("NR> needs what N>R put on the return stack", n.pos, name)
            self.value(*fr.rstack[-count - 1:])
            del fr.rstack[-count - 1:]
        elif name == "F>R":  # a float on the host's return stack, as itself
            fr.rstack.append(self.f.pop_uniform_float(name))  # type: ignore[arg-type]
        elif name in ("FR>", "FR@"):
            if not fr.rstack or not isinstance(fr.rstack[-1], float):
                raise ForthError(f"{name} needs a float that F>R put on the return stack", n.pos, name)
            self.f.push_uniform_float(fr.rstack.pop() if name == "FR>" else fr.rstack[-1])
        elif name in ("R>", "R@", "2R>", "2R@"):
            k = 2 if name.startswith("2") else 1
            if len(fr.rstack) < k:
                raise ForthError(f"{name}: the return stack holds {len(fr.rstack)} item(s)", n.pos, name)
            self.value(*fr.rstack[-k:])
            if name.endswith(">"):
                del fr.rstack[-k:]
        else:  # pragma: no cover - device_ok lets every other primitive through
            self.device(n)

    def do(self, n: Do, fr: "_Frame") -> None:
        limit, start = self.pop(2, "?DO" if n.query else "DO")
        if n.query and limit == start:
            return
        fr.loops.append(start)
        unlooped = fr.unlooped
        try:
            i = start
            while True:
                self.step(n.pos)
                fr.loops[-1] = i
                self.body(n.body, fr)
                if n.plus:
                    (step,) = self.pop(1, "+LOOP")
                    old, i = wrap64(i - limit), wrap64(i + step)
                    if _crossed(old, step):
                        break
                else:
                    i = wrap64(i + 1)
                    if i == limit:
                        break
        except _Leave:
            pass
        finally:
            fr.loops.pop()
            fr.unlooped = unlooped

    def begin(self, n: Begin, fr: "_Frame") -> None:
        try:
            while True:
                self.step(n.pos)
                if n.kind == "while":
                    self.body(n.cond, fr)
                    (flag,) = self.pop(1, "WHILE")
                    if not flag:
                        return
                self.body(n.body, fr)
                if n.kind == "until":
                    (flag,) = self.pop(1, "UNTIL")
                    if flag:
                        return
        except _Break:
            return
        except _Leave:  # pragma: no cover - LEAVE belongs to a DO loop
            raise ForthError("LEAVE is only allowed inside DO ... LOOP", n.pos, "LEAVE")


def _crossed(old: int, step: int) -> bool:
    """+LOOP's rule in 64-bit arithmetic: the index crosses the boundary
    between limit-1 and limit (old is index-limit before the step)."""
    new = wrap64(old + step)
    return ((old ^ new) & (old ^ step)) < 0


class _Frame:
    """The host's view of one running word: its loop indices and return stack."""

    def __init__(self, word: "Colon") -> None:
        self.word = word
        self.loops: list[int] = []
        self.rstack: list[int] = []
        self.locals: list[int] = []
        self.unlooped = 0


def run_host(f: "Forth", nodes: list[Node]) -> None:
    """Run `nodes` at host level now (after the segment before them)."""
    runner = HostRunner(f)
    fr = _Frame(f.colon) if f.colon is not None else _Frame(None)  # type: ignore[arg-type]
    try:
        runner.body(nodes, fr)
    except _Exit:
        raise ForthError("EXIT is only allowed inside a colon definition", getattr(nodes[0], "pos", None), "EXIT")
    except _Leave:
        raise ForthError("LEAVE is only allowed inside DO ... LOOP", getattr(nodes[0], "pos", None), "LEAVE")
