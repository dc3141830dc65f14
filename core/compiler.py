"""Assembling kernel modules: a line's body plus every word it calls.

Each colon definition is turned into IR text once per (target, checked)
and cached; a kernel module is the target's helpers, the texts of the words
it reaches, and the kernel itself — so LLVM sees everything and can inline.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Callable

from llvmlite import ir

from .codegen import HELPERS, Env, Gen, Sites, emit_word_function
from .dictionary import Colon
from .effects import body_effect
from .errors import ForthError
from .target import HELPERS_IR, Target
from .tiles import MAX_TILES, Hole
from .tree import Begin, Call, Do, Node, Prim, Recurse, walk

_DECLARE = re.compile(r'^declare .*?@"?([^"(\s]+)"?\(.*$', re.M)
_kernel_ids = itertools.count(1)


@dataclass
class KernelModule:
    text: str
    name: str
    suspends: bool
    heavy: bool
    words: list[Colon]
    tiles_out: list  # the static tile stack at the end of the kernel
    tiles_in: list


def _suspends(nodes: list[Node]) -> bool:
    return any((isinstance(n, Prim) and n.prim.suspends) or (isinstance(n, Call) and n.word.suspends)
               for n in walk(nodes))


def _has_loops(nodes: list[Node]) -> bool:
    return any(isinstance(n, (Begin, Do, Recurse)) for n in walk(nodes))


class Compiler:
    def __init__(self, target: Target, sites: Sites, strings: list[str], checked: bool,
                 base_addr: Callable[[], int]) -> None:
        self.target = target
        self.sites = sites
        self.strings = strings
        self.checked = checked
        self.base_addr = base_addr
        self.inline_all = False
        self.count_steps = True

    def _module(self, name: str, export: bool = False) -> ir.Module:
        m = ir.Module(name)
        m.triple = self.target.triple
        m.data_layout = self.target.data_layout
        for hname, ty in HELPERS.items():
            ir.Function(m, ty, hname)
        self.target.module_globals(m, export)
        return m

    def _gen(self, module: ir.Module, fn: ir.Function, env: Env, fail_bb: ir.Block,
             needed: list[Colon], inline_suspending: bool) -> Gen:
        def word_fn(word: Colon) -> ir.Function:
            if word not in needed:
                needed.append(word)
            f = module.globals.get(word.ir_name)
            if f is None:
                from .codegen import WORD_FNTY
                f = ir.Function(module, WORD_FNTY, word.ir_name)
            return f
        g = Gen(module, fn, env, self.target, self.sites, self.checked, word_fn, fail_bb,
                self.strings, self.base_addr(), inline_suspending)
        g.count_steps = self.count_steps
        return g

    def export(self, word: Colon, name: str) -> KernelModule:
        """`word` as a standalone kernel: its inputs become kernel parameters
        (cells, then floats), its stacks are private arrays that SROA turns
        into registers when the effects are static."""
        if not word.effect.static:
            raise ForthError(f"{word.name} has a dynamic stack effect {word.effect.notation()}: a kernel needs "
                             "a static one (balanced IF branches and loops, no ?DUP or computed PICK)",
                             word.pos, word.name)
        m = self._module(name, export=True)
        needed: list[Colon] = []
        suspends = word.suspends

        def make_gen(fn: ir.Function, env: Env, fail_bb: ir.Block) -> Gen:
            return self._gen(m, fn, env, fail_bb, needed, inline_suspending=True)

        def emit(g: Gen) -> None:
            # the kernel's own word is emitted in place: no function to build and inline again
            g.call(word) if word.recursive else g.inline(word)

        self.target.define_export(m, name, word.effect, make_gen, emit)
        text, words = self._assemble(m, needed)
        return KernelModule(text, name, suspends, True, words, [], [])

    def kernel_file(self, name: str, nodes: list[Node], params: list[str]) -> KernelModule:
        """A kernel file's body as a kernel whose parameters are named words."""
        eff = body_effect(nodes)
        if not eff.static or eff.dneed or eff.fneed:
            raise ForthError(f"the body of kernel {name} must have a static stack effect that needs no inputs "
                             f"(it has {eff.notation()}): parameters are words, not stack items")
        m = self._module(name, export=True)
        needed: list[Colon] = []

        def make_gen(fn: ir.Function, env: Env, fail_bb: ir.Block) -> Gen:
            return self._gen(m, fn, env, fail_bb, needed, inline_suspending=True)

        self.target.define_kernel_file(m, name, params, make_gen, lambda g: g.body(nodes))
        text, words = self._assemble(m, needed)
        return KernelModule(text, name, _suspends(nodes), True, words, [], [])

    def _assemble(self, m: ir.Module, needed: list[Colon]) -> tuple[str, list[Colon]]:
        """The kernel module's text: the kernel, the helpers and every word it reaches."""
        texts: list[str] = []
        decls: dict[str, str] = {}
        done: set[int] = set()
        queue = list(needed)
        words: list[Colon] = []
        while queue:
            w = queue.pop()
            if w.uid in done:
                continue
            done.add(w.uid)
            words.append(w)
            text, callees, wdecls = self.word_text(w)
            texts.append(text)
            for d in wdecls:
                mm = _DECLARE.match(d)
                if mm:
                    decls.setdefault(mm.group(1), d)
            queue.extend(callees)
        defined = set(HELPERS) | {w.ir_name for w in words}
        body = str(m)
        own = {mm.group(1) for mm in _DECLARE.finditer(body)}
        body = _DECLARE.sub(lambda mm: "" if mm.group(1) in defined else mm.group(0), body)
        extra = [d for n, d in decls.items() if n not in defined and n not in own]
        return "\n".join([body, HELPERS_IR, *extra, *texts]), words

    def word_text(self, word: Colon) -> tuple[str, list[Colon], list[str]]:
        key = (self.target.name, self.checked, self.base_addr(), self.inline_all)
        hit = word.ir_text.get(key)
        if hit is not None:
            return hit
        m = self._module(word.ir_name)
        needed: list[Colon] = []

        def factory(fn: ir.Function, fail_bb: ir.Block) -> Gen:
            env = Env(*fn.args)
            return self._gen(m, fn, env, fail_bb, needed, inline_suspending=False)

        fn = emit_word_function(word, factory, m)
        if self.inline_all and not word.recursive:  # exported kernels: stacks must become registers
            fn.attributes.add("alwaysinline")
        decls = [line for line in str(m).splitlines() if line.startswith("declare")]
        result = (str(fn), needed, decls)
        word.ir_text[key] = result
        return result

    def kernel(self, nodes: list[Node], tiles: list | tuple = (), holes: bool = False,
               block: tuple[int, int, int] | None = None) -> KernelModule:
        """A kernel for a line (or, with holes=True, a definition checked on
        its own: tiles below its entry are unknown until used), for launches
        with `block` threads per block when that is known."""
        name = f"k{next(_kernel_ids)}"
        suspends = _suspends(nodes)
        m = self._module(name)
        needed: list[Colon] = []
        tiles_out: list = []
        tiles_in = list(tiles)
        if holes:  # a definition checked alone: unknown tiles below, resolved by their first use
            tiles = [Hole(i) for i in range(MAX_TILES)]

        def make_gen(fn: ir.Function, env: Env, fail_bb: ir.Block) -> Gen:
            return self._gen(m, fn, env, fail_bb, needed, inline_suspending=suspends)

        def emit(g: Gen) -> None:
            g.tstack = list(tiles)
            g.tile_initial = list(tiles)
            g.tile_holes = holes
            g.tile_floor = len(tiles) if holes else 0
            g.body(nodes)
            if holes:  # the word needs the holes from the deepest one it touched
                used = min([i for i, h in enumerate(tiles) if h.touched], default=len(tiles))
                tiles_in[:] = tiles[used:]
                tiles_out[:] = g.tstack[used:]
            else:
                tiles_out[:] = g.tstack

        self.target.define_kernel(m, name, suspends, make_gen, emit, block)
        text, words = self._assemble(m, needed)
        heavy = _has_loops(nodes) or any(_has_loops(w.body) for w in words)
        return KernelModule(text, name, suspends, heavy, words, tiles_out, tiles_in)
