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

EXECUTE runs a token on the host when it names a host-level word (`execute`).
In a one-thread launch (the way ordinary Forth programs run) that reaches
device code too: once some token names a word only the host can run (`walks`),
a device word that reaches EXECUTE is walked here like a host-level one
instead of joining the segment (`walk_now` when the interpreter reads it,
`walk_segment` for a segment built otherwise), so each EXECUTE it meets takes
its token from the stack and runs the word where it belongs: a host-level word
on the host, any other in the segment. The parts without EXECUTE still run as
device code, and a line without a host token runs all on the device. At more
threads the device runs the line, and EXECUTE of a host word there is an
error that says to run it at one thread (launcherrors.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..compile import layout as L
from ..compile.primitive import Primitive
from ..compile.primitives import LOOP_WORDS, RSTACK_WORDS, TABLE as PRIMS
from ..compile.state import StackState, differing
from ..errors import ForthError
from ..front.dictionary import Colon, HostWord, Immediate
from .hostbound import HOST_STEP_COST, RAISE_BUDGET, check_abort, host_steps  # noqa: F401  (RAISE_BUDGET: launcherrors, blocks)
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


def device_ok(n: Node, loops: int = 0, begins: int = 0, walk: bool = False) -> bool:
    """`n` can run on the device as it is: no host action in it, and what it
    says about loops and the return stack refers to structures inside it
    (`walk`: and no call of a word that reaches EXECUTE, which is walked)."""
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
        return not n.word.host and not (walk and n.word.executes)
    if t is Leave:
        return loops > 0
    if t is Break:
        return begins > 0
    if t is If:
        return all(device_ok(m, loops, begins, walk) for m in n.then + (n.else_ or []))
    if t is Begin:
        return all(device_ok(m, loops, begins + 1, walk) for m in n.cond + n.body)
    if t is Do:
        return all(device_ok(m, loops + 1, begins, walk) for m in n.body)
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

    def _cell(self, v: int | float) -> int:
        """A return stack entry as a cell: a float F>R put there is its bits, as device code's F>R keeps it
        (the float's width, zero-extended: `1e F>R R>` is 1065353216 at f32), never a Python float on the
        data stack (fuzzed: a TypeError at the push)."""
        if not isinstance(v, float):
            return v
        import struct
        if self.f.machine.float_bits == 64:
            return struct.unpack("<q", struct.pack("<d", v))[0]
        return struct.unpack("<I", struct.pack("<f", v))[0]

    def pop(self, n: int, word: str) -> list[int]:
        """n cells from the stacks, after the device code before them (pop_uniform runs it)."""
        return self.f.pop_uniform(n, word)

    def step(self, pos) -> None:
        self.steps += 1
        check_abort(self.f, pos)  # Ctrl-C stops a host-level loop as it stops a launch's
        limit = host_steps(self.f, HOST_STEP_COST)
        if self.steps > limit:
            raise ForthError(f"a host-level word ran {limit} loop iterations and calls without finishing (each "
                             f"counts {HOST_STEP_COST} steps of the budget): the loop or recursion looks infinite "
                             f"({RAISE_BUDGET})", pos, code=None)  # CATCH lets it through, as a runaway device loop

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
        if device_ok(n, 0, 0, walks(self.f)):
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
            who = fr.word.name if fr.word else "this line"
            why = ("reaches EXECUTE, which a one-thread launch walks on the host once a token names a host word"
                   if fr.word is None or not fr.word.host else "runs on the host (it defines or compiles words)")
            raise ForthError(f"{who} {why}, and has jumps made by CS-ROLL or CS-PICK, which only device code can "
                             "take: keep the reordered control structures in a word of their own", n.pos, "CS-ROLL")
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
            execute(self.f, Token(name, n.pos), self)
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
            self.value(*(self._cell(v) for v in fr.rstack[-count - 1:]))
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
            self.value(*(self._cell(v) for v in fr.rstack[-k:]))
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
    except RecursionError:  # the walk recursed as deep as Python lets it (each call costs a few frames)
        raise ForthError("the words walked on the host (host-level words, and at one thread words that reach "
                         "EXECUTE) call each other too deeply for the host: is the recursion's base case "
                         "missing? If not, recurse less deeply", getattr(nodes[0], "pos", None), code=-5) from None
    except _Exit:
        raise ForthError("EXIT is only allowed inside a colon definition", getattr(nodes[0], "pos", None), "EXIT")
    except _Leave:
        raise ForthError("LEAVE is only allowed inside DO ... LOOP", getattr(nodes[0], "pos", None), "LEAVE")


# ---- EXECUTE: where a token runs ------------------------------------------------------------------
_EXECUTE = PRIMS["EXECUTE"]


def walks(f: "Forth") -> bool:
    """EXECUTE may meet a word only the host can run, and the launch has one thread: device code
    that reaches EXECUTE is walked on the host (walk_now, walk_segment). Not in a body gathered as
    one kernel (a kernel file's)."""
    return f.collector is None and f.shape.nthreads == 1 and f.tokens.names_host_words()


def reaches_execute(node: Node) -> bool:
    """`node` is EXECUTE, calls a word that reaches it, or holds either (iterative: trees nest deeply)."""
    todo = [node]
    while todo:
        n = todo.pop()
        if (isinstance(n, Prim) and n.prim is _EXECUTE) or (isinstance(n, Call) and n.word.executes):
            return True
        for name in n.BODIES:
            todo.extend(getattr(n, name) or ())
    return False


def walk_now(f: "Forth", node: Node) -> bool:
    """A node read into the line's segment that reaches EXECUTE, when `walks`: it runs now, walked
    on the host after the segment before it (as a host-level word does when it is read), so a
    host word it executes sees the input where gforth's would (SOURCE, >IN). False: the node is
    the segment's."""
    if not walks(f) or not reaches_execute(node):
        return False
    f.flush_segment()
    run_host(f, [node])
    return True


def walk_segment(f: "Forth", nodes: list[Node]) -> bool:
    """flush_segment's decision for a segment built otherwise (CATCH's, a word run from Python):
    when `walks` and a node reaches EXECUTE, the segment is walked, its device parts launched."""
    if not walks(f) or not any(reaches_execute(n) for n in nodes):
        return False
    run_host(f, nodes)
    f.flush_segment()
    return True


def _host_level(entry: object) -> bool:
    return isinstance(entry, (HostWord, Immediate)) or (isinstance(entry, Colon) and entry.host)


def execute(f: "Forth", tok: Token, runner: HostRunner | None = None) -> None:
    """EXECUTE in the line or in a word walked on the host (by `runner`). A host-level word named
    by the token (the same in every thread) runs on the host. When `walks`, every token is
    resolved here: a word that reaches EXECUTE is walked, any other joins the segment. Otherwise
    (tokens that differ between threads, no host token handed out) EXECUTE joins the segment and
    the device runs each thread's token."""
    f.flush_segment()
    st = StackState.live(f.backend)
    walk = walks(f)
    if st.short(1) is not None:
        if walk:
            raise ForthError("data stack underflow: EXECUTE needs an execution token; push one with ' or [']",
                             tok.pos, "EXECUTE", code=-4)
        f.segment.append(Prim(_EXECUTE, tok.pos))  # the device reports the underflow
        return
    xts = st.top(1)[:, 0]
    entry = None if differing(xts) else f.tokens.find(int(xts[0]))
    if entry is not None and _host_level(entry):
        f.pop_uniform(1, "EXECUTE")
        if isinstance(entry, Colon):
            _walk(f, entry, tok, runner)
        else:
            entry.fn(f, Token(entry.name, tok.pos))
        return
    if not walk:
        f.segment.append(Prim(_EXECUTE, tok.pos))  # the line's code, also from a host walk
        return
    (xt,) = f.pop_uniform(1, "EXECUTE")
    _, word, why = f.tokens.row(xt)
    if entry is None:
        raise ForthError(f"EXECUTE: {xt} is not an execution token (an unset DEFER holds 0); get one with ' or [']",
                         tok.pos, "EXECUTE")
    if why == L.XT_FRAME:
        raise ForthError(f"EXECUTE: {entry.name} works on the return stack or the DO loops of the definition it "
                         "is written in, so it cannot run through a token; write it in the definition",
                         tok.pos, "EXECUTE")
    if isinstance(entry, Colon):
        word = entry
    elif isinstance(entry, Primitive):  # also those that wait (BARRIER, at one thread) and a computed PICK
        if entry is _EXECUTE:
            execute(f, tok, runner)
            return
        f.segment.append(Prim(entry, tok.pos, arg=f.tile_config if entry.tile_word else None))
        return
    assert word is not None  # a constant's one-node word
    if word.executes:
        _walk(f, word, tok, runner)
    else:
        f.segment.append(Call(word, tok.pos))


def _walk(f: "Forth", word: Colon, tok: Token, runner: HostRunner | None) -> None:
    if runner is not None:
        runner.call(word, tok.pos)
    else:
        run_host(f, [Call(word, tok.pos)])
