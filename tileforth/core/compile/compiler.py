"""Assembling kernel modules: a line's body plus every word it calls.

Each colon definition is generated once per (target, checked, ...) into a
module of its own; its IR text is kept on the word (about 2 KiB) and the
parsed module (about 11 KiB of LLVM memory) in a bounded cache of the
compiler, so that memory does not grow with the dictionary. A kernel module is
the kernel's own module with the runtime helpers and every word it reaches
linked in (llvmlite's linker, which resolves the declarations), then all but
the kernel made internal, so LLVM sees everything and can inline.
"""
from __future__ import annotations

import functools
import itertools
import re
from collections import OrderedDict
from typing import Callable

from llvmlite import ir

from ..errors import ForthError
from ..heldsigint import link_in
from ..front import dictionary
from ..front.dictionary import Colon
from ..front.effects import body_effect
from ..front.linekey import LineShape
from ..front.tree import Begin, Call, Do, Lit, Node, Prim, Recurse, walk
from ..lazy import llvm
from ..records import field, record, replace
from . import wgmma, xtgen, xttable
from .codegen import WORD_FNTY, Env, Gen, Sites, declare, emit_word_function, helper_fn
from .target import HELPERS_IR, Target
from .tiles import MAX_TILES, Hole

_kernel_ids = itertools.count(1)
PARSED_WORDS = 256  # parsed word modules a compiler keeps (the least recently used are freed)
SEPARATE_MIN = 64  # inlined nodes from which a word with loops is compiled once, on its own (Target.compile_word)
REUSED_AFTER = 3  # modules a smaller word with loops is linked into before it is compiled on its own too


@functools.cache
def _helpers(triple: str, data_layout: str) -> llvm.ModuleRef:
    """The runtime helpers, parsed once per target (linked into each kernel as a copy)."""
    head = f'target triple = "{triple}"\n' + (f'target datalayout = "{data_layout}"\n' if data_layout else "")
    return llvm.parse_assembly(head + HELPERS_IR)


def _dismantle(m: ir.Module) -> None:
    """Break the cycles of a module's IR objects once its text is parsed (each value points at its
    block, function or module, which list it): reference counting then frees a new line's few
    hundred objects at once, instead of the collector's passes that they would trigger and survive
    (about a fifth of new lines paid a 0.2 ms collection, one in fifty a 1 ms one)."""
    for fn in m.functions:
        for block in fn.blocks:
            block.instructions, block.terminator = [], None
        fn.blocks = []
        fn.args = ()
        fn.return_value = None
    m.globals.clear()
    m.metadata = []
    m.namedmetadata = {}
    m._metadatacache = {}


def needs_dispatch(mod: llvm.ModuleRef) -> bool:
    """The module calls tf_execute (EXECUTE) and does not define it yet."""
    try:
        return mod.get_function(xtgen.DISPATCH).is_declaration
    except NameError:
        return False


@record
class KernelModule:
    module: llvm.ModuleRef  # the whole kernel, linked; a backend's compile() takes it over
    name: str
    suspends: bool
    heavy: bool
    words: list[Colon]
    tiles_out: list  # the static tile stack at the end of the kernel
    tiles_in: list
    params: list = field(default_factory=list)  # an export's parameters after ctx: (name, kind) (see export)
    patches: list = field(default_factory=list)  # a line's (site id, position index): filled in at launch
    # the session allocations its code reads from the launch's address table (addresses.py), its words' too:
    # the bases a backend checks before a launch (an array of another device: DEVICE)
    table_bases: frozenset = frozenset()

    @property
    def text(self) -> str:
        """The module's IR, as LLVM prints it (for SEE-IR and tests)."""
        return str(self.module)


def _suspends(nodes: list[Node]) -> bool:
    return any((isinstance(n, Prim) and n.prim.suspends) or (isinstance(n, Call) and n.word.suspends)
               for n in walk(nodes))


def _word_fn(module: ir.Module, needed: list[Colon]) -> Callable[[Colon], ir.Function]:
    """How code generated into `module` calls a word: its function, declared, and the word noted in
    `needed` (to be linked in, or called through its symbol)."""
    def word_fn(word: Colon) -> ir.Function:
        if word not in needed:
            needed.append(word)
        return declare(module, word.ir_name, WORD_FNTY)
    return word_fn


def _has_loops(nodes: list[Node]) -> bool:
    return any(isinstance(n, (Begin, Do, Recurse)) for n in walk(nodes))


class Compiler:
    def __init__(self, target: Target, sites: Sites, strings: list[str], checked: bool,
                 base_addr: Callable[[], int],
                 xt_table: Callable[[], list[tuple[int, Colon | None, int]]] = list) -> None:
        self.target = target
        self.sites = sites
        self.strings = strings
        self.checked = checked
        self.base_addr = base_addr
        self.xt_table = xt_table  # EXECUTE's tokens: (xt, word or None, why not) (see xtgen.py)
        self.inline_all = False
        self._alone: dict[int, tuple] = {}  # word uid -> the key it was compiled on its own for
        self._xt_tables: dict[tuple, xttable.XtTable] = {}  # key -> EXECUTE's table (targets that compile words alone)
        self._linked: dict[int, int] = {}  # word uid (a word with loops) -> the modules it was linked into
        self._dispatching: dict[int, bool] = {}  # word uid -> it reaches EXECUTE (_reaches_dispatch)
        self._filling = False  # a batch of token entries is being assembled (its EXECUTEs link the stub)
        # words being compiled on their own: the table is filled after them (an entry whose word calls
        # one of them would name a symbol not yet defined: LLVM aborts the process)
        self._alone_depth = 0
        self.count_steps = True
        self._parsed: OrderedDict[tuple, llvm.ModuleRef] = OrderedDict()
        self._slots: dict[tuple, frozenset[int]] = {}  # (word uid, key) -> the address-table slots its code reads

    def _module(self, name: str, export: bool = False) -> ir.Module:
        m = ir.Module(name)
        m.triple = self.target.triple
        m.data_layout = self.target.data_layout
        self.target.module_globals(m, export)  # the helpers are declared where they are called (helper_fn)
        return m

    def _gen(self, module: ir.Module, fn: ir.Function, env: Env, fail_bb: ir.Block,
             needed: list[Colon], inline_suspending: bool) -> Gen:
        g = Gen(module, fn, env, self.target, self.sites, self.checked, _word_fn(module, needed), fail_bb,
                self.strings, self.base_addr(), inline_suspending)
        g.count_steps = self.count_steps
        return g

    def export(self, word: Colon, name: str, memory: "SessionMemory | None" = None) -> KernelModule:
        """`word` as a standalone kernel: its inputs become kernel parameters
        (cells, then floats), its stacks are private arrays that SROA turns
        into registers when the effects are static.

        With the session's `memory` (a portable export: word_ptx), nothing of
        the session is baked in: each ARRAY/MATRIX the word names (itself or
        through the words it calls) is one more pointer parameter, after the
        inputs, in the order the words name them; the results the word leaves
        go to output parameters `out` (cells) and `fout` (floats), thread t's
        i-th result (the deepest first) at out[t * results + i], t the linear
        thread index of the launch; data space (VARIABLE, CREATE, BASE) is a
        copy in the kernel's global memory, taken now. A session address that
        is none of these refuses the export. KernelModule.params names them."""
        if word.host:
            raise ForthError(f"{word.name} runs on the host (it defines or compiles words: CREATE, `,`, DOES> ...), "
                             "so it cannot be a kernel; export a word that computes", word.pos, word.name)
        if not word.effect.static:
            raise ForthError(f"{word.name} has a dynamic stack effect {word.effect.notation()}: a kernel needs "
                             "a static one (balanced IF branches and loops, no ?DUP or computed PICK)",
                             word.pos, word.name)
        m = self._module(name, export=True)
        needed: list[Colon] = []
        suspends = word.suspends
        eff = word.effect
        nd, nf = eff.dneed, eff.fneed
        rd, rf = eff.dneed + eff.dnet, eff.fneed + eff.fnet  # the results it leaves
        inputs = [(f"in{i}", "int") for i in range(nd)] + [(f"fin{i}", "float") for i in range(nf)]

        def make_gen(fn: ir.Function, env: Env, fail_bb: ir.Block) -> Gen:
            return self._gen(m, fn, env, fail_bb, needed, inline_suspending=True)

        if memory is None:
            def emit(g: Gen) -> None:
                # the kernel's own word is emitted in place: no function to build and inline again
                g.call(word) if word.recursive else g.inline(word)

            self.target.define_export(m, name, word.effect, make_gen, emit)
            mod, words = self._assemble(m, needed)
            return KernelModule(mod, name, suspends, True, words, [], [], inputs)

        portable = _Portable(memory, len(inputs))
        top = portable.word(word)
        params = inputs + [(a, "ptr") for a in portable.used]
        out_at = len(params)
        params += [("out", "out")] * (rd > 0) + [("fout", "fout")] * (rf > 0)  # pointers, as arrays
        types = ["i64"] * nd + ["f32"] * nf + ["ptr"] * (len(params) - len(inputs))
        param_prim = _prim("(PARAM)")

        def emit_portable(g: Gen) -> None:
            g.body([Prim(param_prim, word.pos, arg=(i, kind)) for i, (_, kind) in enumerate(inputs)])
            g.call(top) if top.recursive else g.inline(top)
            if rd or rf:
                _store_results(g, out_at, rd, rf)

        self.target.define_kernel_file(m, name, types, make_gen, emit_portable)
        mod, words = self._assemble(m, needed)
        mod = _portable_module(mod, name, memory, word)
        return KernelModule(mod, name, suspends or top.suspends, True, words, [], [], params)

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
        mod, words = self._assemble(m, needed)
        return KernelModule(mod, name, _suspends(nodes), True, words, [], [])

    def _assemble(self, m: ir.Module, needed: list[Colon]) -> tuple[llvm.ModuleRef, list[Colon]]:
        """The kernel module: the kernel's own, with the helpers and every word it reaches linked in
        (but words compiled on their own, which it calls through their symbols)."""
        try:
            mod = llvm.parse_assembly(str(m))
        except RuntimeError as exc:  # a code-generator bug, not a user error
            raise ForthError(f"internal compiler error (invalid IR): {exc}") from exc
        # (a module that defines nothing but its entry, as most new lines' kernels: its linkage is right)
        others = any(fn.blocks for fn in m.functions if fn.name != m.name)
        words = self._link(mod, m.name, needed, set(), others)
        # a word compiled on its own that reaches EXECUTE reads the table at run time, also from a line
        # that does not link the dispatch itself: the table holds every token handed out so far
        table = self._xt_tables.get(self._key())
        if table is not None and not self._filling:
            self._fill_table(table)
        return mod, words

    def _link(self, mod: llvm.ModuleRef, entry: str, needed: list[Colon], done: set[int],
              others: bool = True) -> list[Colon]:
        """Link the helpers and the words `needed` reaches (and the dispatch, if EXECUTE is reached)
        into `mod`, then make everything but `entry` internal (`others`: mod may define more than
        `entry` before linking; False spares the walk over its functions when nothing is linked in);
        the words linked. The words of a
        module that reaches EXECUTE on a table target are not in that list: they are the table's."""
        linked = others or self.target.links_helpers
        if self.target.links_helpers:
            link_in(mod, _helpers(self.target.triple, self.target.data_layout), preserve=True)
        queue = list(needed)
        words: list[Colon] = []
        dispatch = False
        while queue or not dispatch:
            while queue:
                w = queue.pop()
                if w.uid in done:
                    continue
                done.add(w.uid)
                if self._on_its_own(w):  # compiled once: the module keeps its declaration
                    continue
                words.append(w)
                wmod, callees = self.word_module(w)
                link_in(mod, wmod, preserve=True)
                linked = True
                queue.extend(callees)
            dispatch = True
            if needs_dispatch(mod):  # EXECUTE is reached: the switch over the tokens
                queue.extend(self._link_dispatch(mod))
                linked = True
        # only the entry is seen from outside the module (with nothing linked in, the entry is all it
        # defines: most new lines' kernels skip the walk, a few calls into LLVM each)
        for fn in (mod.functions if linked else ()):
            if not fn.is_declaration and fn.name != entry:
                fn.linkage = "internal"
        return words

    # ---- big words compiled once, on their own (targets that can: Target.compile_word) ----
    def _on_its_own(self, w: Colon) -> bool:
        """`w` is (now) compiled on its own, and lines call it through its symbol: a word that
        does not suspend, with loops of SEPARATE_MIN nodes or more, or with loops and linked into
        more than REUSED_AFTER modules already (a word many lines call, as a test harness's), or
        reaching EXECUTE (whose tokens' words are the table's, xttable.py: nothing to inline
        there), on a target that compiles words alone. A line that calls it then costs the line
        (straight code, not optimised), not the word again."""
        compile_word = self.target.compile_word
        if compile_word is None or self.inline_all:
            return False
        key = self._key()
        done = self._alone.get(w.uid)
        if done is not None:
            return done == key
        if w.suspends:
            return False
        loops = _has_loops(w.body)
        if loops:
            self._linked[w.uid] = self._linked.get(w.uid, 0) + 1
        big = loops and (w.inline_size() >= SEPARATE_MIN or self._linked[w.uid] > REUSED_AFTER)
        if not big and not self._reaches_dispatch(w):
            return False
        self._alone[w.uid] = key  # first: a recursive word calls itself
        mod = llvm.parse_assembly(str(self._module(f"alone_{w.ir_name}")))
        wmod, callees = self.word_module(w)
        link_in(mod, wmod, preserve=True)
        self._alone_depth += 1
        try:
            self._link(mod, w.ir_name, callees, {w.uid})
        finally:
            self._alone_depth -= 1
        compile_word(mod, w.ir_name)
        return True

    def _reaches_dispatch(self, w: Colon) -> bool:
        """`w` or a word it calls uses EXECUTE (known once per word: its body and callees stay)."""
        hit = self._dispatching.get(w.uid)
        if hit is None:
            hit = self._dispatching[w.uid] = self._search_dispatch(w)
        return hit

    def _search_dispatch(self, w: Colon) -> bool:
        seen: set[int] = set()
        stack = [w]
        while stack:
            c = stack.pop()
            if c.uid in seen:
                continue
            seen.add(c.uid)
            wmod, callees = self.word_module(c)
            if needs_dispatch(wmod):
                return True
            stack.extend(callees)
        return False

    def _link_dispatch(self, mod: llvm.ModuleRef) -> list[Colon]:
        """Link tf_execute into `mod`: the switch over every execution token, whose words are
        returned (to be linked in turn); or, on a target that compiles words alone, the look-up in
        the table of the tokens' entries (xttable.py), brought up to date first."""
        if self._xt_by_table():
            table = self._xt_tables.get(self._key())
            if table is None:
                table = self._xt_tables[self._key()] = xttable.XtTable()
                stub = self._module("dispatch")
                xttable.define_stub(stub, table.address, helper_fn(stub, "tf_fail"))
                table.stub = llvm.parse_assembly(str(stub))  # the same for every module: parsed once
            if not self._filling and not self._alone_depth:  # (else the kernel's _assemble fills it)
                self._fill_table(table)
            link_in(mod, table.stub, preserve=True)
            return []
        m = self._module("dispatch")
        needed: list[Colon] = []
        xtgen.define_dispatch(m, self.xt_table(), _word_fn(m, needed), helper_fn(m, "tf_fail"))
        link_in(mod, llvm.parse_assembly(str(m)))
        return needed

    def _xt_by_table(self) -> bool:
        """EXECUTE goes through a table of entries compiled once (the target compiles words alone)."""
        return self.target.compile_word is not None and not self.inline_all

    def _fill_table(self, table: xttable.XtTable) -> None:
        """Compile the entries of the tokens that have none yet (or name another word now), all in
        one module, and write their addresses in the table."""
        todo = table.stale(self.xt_table())
        if not todo:
            return
        name = xttable.next_batch_name()
        m = self._module(name)
        needed: list[Colon] = []
        xttable.define_batch(m, name, todo, _word_fn(m, needed), helper_fn(m, "tf_fail"))
        try:
            mod = llvm.parse_assembly(str(m))
        except RuntimeError as exc:  # a code-generator bug, not a user error
            raise ForthError(f"internal compiler error (invalid IR): {exc}") from exc
        self._filling = True
        try:
            self._link(mod, name, needed, set())
        finally:
            self._filling = False
        assert self.target.compile_word is not None
        self.target.compile_word(mod, name)
        table.fill(todo, llvm.address_of_symbol(name))

    def word_ir(self, word: Colon) -> str:
        """The LLVM IR of `word`'s own function, as generated (for SEE-IR)."""
        return str(self.word_module(word)[0].get_function(word.ir_name))

    def _key(self) -> tuple:
        """What a word's code depends on besides its body."""
        return (self.target.name, self.target.machine, self.checked, self.base_addr(), self.inline_all,
                self.target.addresses is not None)  # code that reads the launch's address table, or constants

    def word_module(self, word: Colon) -> tuple[llvm.ModuleRef, list[Colon]]:
        """`word` as a function in a module of its own, parsed, and the words it
        calls. The text is generated once per key and kept on the word; the
        parsed module comes from the compiler's bounded cache. The module is
        the cache's: link it with preserve=True, never change it."""
        key = self._key()
        hit = word.ir_text.get(key)
        if hit is None:
            hit = word.ir_text[key] = self._generate(word)
        text, needed = hit
        if not isinstance(text, str):  # generated at `;` (check_word), written out now
            text = str(text)
            word.ir_text[key] = (text, needed)
        pkey = (word.uid, key)
        mod = self._parsed.get(pkey)
        if mod is None:
            try:
                mod = llvm.parse_assembly(text)
            except RuntimeError as exc:  # a code-generator bug, not a user error
                raise ForthError(f"internal compiler error (invalid IR): {exc}") from exc
            self._parsed[pkey] = mod
            if len(self._parsed) > PARSED_WORDS:
                self._parsed.popitem(last=False)[1].close()
        else:
            self._parsed.move_to_end(pkey)
        return mod, needed

    def check_word(self, word: Colon) -> None:
        """Generate `word`'s function at `;`, so that what the generator checks (control flow, tile
        stacks, literals) fails there. A small word keeps its text (a few KiB), a big one its module
        (written out only if a kernel needs it); either is parsed when a kernel first does."""
        key = self._key()
        if key not in word.ir_text:  # a big word keeps its module until then (writing it out is costly)
            word.ir_text[key] = self._generate(word, text=word.inline_size() < SEPARATE_MIN)

    def _collecting(self) -> set[int] | None:
        """Start noting the address-table slots the code generated next reads; the set noted before
        (a caller's, restored with _collected)."""
        table = self.target.addresses
        if table is None:
            return None
        saved, table.used = table.used, set()
        return saved

    def _collected(self, saved: set[int] | None) -> frozenset[int]:
        table = self.target.addresses
        if table is None or saved is None:
            return frozenset()
        used, table.used = frozenset(table.used), saved
        return used

    def _table_bases(self, own: frozenset[int], words: list[Colon]) -> frozenset:
        """The bases of the slots a kernel's code reads: its own and those of the words linked into it."""
        table = self.target.addresses
        if table is None:
            return frozenset()
        key = self._key()
        slots = set(own)
        for w in words:
            slots |= self._slots.get((w.uid, key), frozenset())
        return frozenset(table.bases[k] for k in slots)

    def _generate(self, word: Colon, text: bool = True) -> tuple[str, list[Colon]]:
        """The IR text of `word`'s function (or, text=False, its module) and the words it calls."""
        saved = self._collecting()
        try:
            return self._generate_fn(word, text)
        finally:
            self._slots[(word.uid, self._key())] = self._collected(saved)

    def _generate_fn(self, word: Colon, text: bool) -> tuple[str, list[Colon]]:
        m = self._module(word.ir_name)
        needed: list[Colon] = []

        def factory(fn: ir.Function, fail_bb: ir.Block) -> Gen:
            env = Env(*fn.args)
            return self._gen(m, fn, env, fail_bb, needed, inline_suspending=False)

        fn = emit_word_function(word, factory, m)
        fn.linkage = ""  # visible to the linker; internal once linked into a kernel
        if self.inline_all and not word.recursive:  # exported kernels: stacks must become registers
            fn.attributes.add("alwaysinline")
        return (str(m) if text else m), needed

    def kernel(self, nodes: list[Node], tiles: list | tuple = (), holes: bool = False,
               block: tuple[int, int, int] | None = None, line: LineShape | None = None) -> KernelModule:
        """A kernel for a line (or, with holes=True, a definition checked on
        its own: tiles below its entry are unknown until used), for launches
        with `block` threads per block when that is known. With the line's
        shape (linekey.py) its literals are read from the launch's table and
        its sites' positions are filled in at launch (KernelModule.patches)."""
        name = f"k{next(_kernel_ids)}"
        suspends = _suspends(nodes)
        m = self._module(name)
        needed: list[Colon] = []
        tiles_out: list = []
        tiles_in = list(tiles)
        if holes:  # a definition checked alone: unknown tiles below, resolved by their first use
            tiles = [Hole(i) for i in range(MAX_TILES)]

        patches: list[tuple[int, int]] = []

        def make_gen(fn: ir.Function, env: Env, fail_bb: ir.Block) -> Gen:
            g = self._gen(m, fn, env, fail_bb, needed, inline_suspending=suspends)
            g.line, g.patches = line, patches
            return g

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
                wgmma.check_launch_end(g.tstack, nodes[-1].pos if nodes else None)
                tiles_out[:] = g.tstack

        saved = self._collecting()
        try:
            self.target.define_kernel(m, name, suspends, make_gen, emit, block)
        finally:
            own = self._collected(saved)
        mod, words = self._assemble(m, needed)
        _dismantle(m)
        heavy = _has_loops(nodes) or any(_has_loops(w.body) for w in words)
        return KernelModule(mod, name, suspends, heavy, words, tiles_out, tiles_in, patches=patches,
                            table_bases=self._table_bases(own, words))


# ---- portable exports (word_ptx): the session's memory as parameters and a global copy ---------------
@record
class SessionMemory:
    """What an export must not bake in: the session's arrays (base -> (name,
    bytes)), its data space (address, and the bytes to copy: up to HERE) and
    every other allocation (base -> (what, bytes))."""

    arrays: dict[int, tuple[str, int]]
    data_addr: int = 0
    data: bytes = b""
    data_size: int = 0
    others: dict[int, tuple[str, int]] = field(default_factory=dict)


def _prim(name: str):
    from .primitives import TABLE
    return TABLE[name]


class _Portable:
    """Copies of the words that name arrays, with each array's address (a
    literal) replaced by a read of its kernel parameter (plus the offset, for
    an address inside it). A word that reads a parameter is copied into the
    kernel (the parameter is the kernel's), as kernel-file words are."""

    def __init__(self, memory: SessionMemory, first: int) -> None:
        self.ranges = sorted((base, base + n, name) for base, (name, n) in memory.arrays.items())
        self.first = first  # the index of the first array parameter
        self.used: list[str] = []
        self.copies: dict[int, Colon] = {}
        self.names: dict[int, bool] = {}  # word uid -> it (or a word it calls) names an array
        self.param = _prim("(PARAM)")
        self.plus = _prim("+")

    def array_at(self, value: int) -> tuple[str, int] | None:
        for lo, hi, name in self.ranges:
            if lo <= value <= hi:  # one past the end too: `xs 16 CELLS +` is an address of xs
                return name, value - lo
        return None

    def names_array(self, w: Colon, seen: frozenset = frozenset()) -> bool:
        hit = self.names.get(w.uid)
        if hit is None:
            hit = any((isinstance(n, Lit) and self.array_at(n.value) is not None) or
                      (isinstance(n, Call) and n.word.uid not in seen and n.word is not w
                       and self.names_array(n.word, seen | {w.uid}))
                      for n in walk(w.body))
            self.names[w.uid] = hit
        return hit

    def word(self, w: Colon) -> Colon:
        if not self.names_array(w):
            return w
        copy = self.copies.get(w.uid)
        if copy is None:
            if w.recursive:
                hits = [self.array_at(n.value) for n in walk(w.body) if isinstance(n, Lit)]
                name = next((h[0] for h in hits if h), "an array")
                raise ForthError(f"{w.name} is recursive and names {name}: an exported kernel takes its arrays as "
                                 "parameters, which only words copied into the kernel can read; give the address "
                                 f"as an input instead (`{w.name}` taking addr, called as `{name} {w.name}`)",
                                 w.pos, w.name)
            copy = replace(w, body=[], uid=next(dictionary._uids), ir_text={})
            self.copies[w.uid] = copy
            copy.body = self.body(w.body)
        return copy

    def body(self, nodes: list[Node]) -> list[Node]:
        out: list[Node] = []
        for n in nodes:
            if isinstance(n, Lit):
                hit = self.array_at(n.value)
                if hit is not None:
                    name, off = hit
                    if name not in self.used:
                        self.used.append(name)
                    out.append(Prim(self.param, n.pos, arg=(self.first + self.used.index(name), "ptr")))
                    if off:
                        out += [Lit(off, n.pos), Prim(self.plus, n.pos)]
                    continue
            elif isinstance(n, Call):
                n = replace(n, word=self.word(n.word))
            elif n.BODIES:
                n = replace(n, **{b: self.body(getattr(n, b)) for b in n.BODIES
                                              if getattr(n, b) is not None})
            out.append(n)
        return out


def _store_results(g: Gen, first: int, rd: int, rf: int) -> None:
    """The results left on the stacks go to the output parameters: `out`
    (cells) and `fout` (floats, the float stack's type), thread t's i-th
    result (the deepest first) at [t * count + i]."""
    from .codegen import I64, c64
    b = g.b
    sreg = functools.partial(g.target.sreg, g)
    block = b.add(b.mul(b.add(b.mul(sreg("bid.z"), sreg("gdim.y")), sreg("bid.y")), sreg("gdim.x")), sreg("bid.x"))
    size = b.mul(b.mul(sreg("bdim.x"), sreg("bdim.y")), sreg("bdim.z"))
    local = b.add(b.mul(b.add(b.mul(sreg("tid.z"), sreg("bdim.y")), sreg("tid.y")), sreg("bdim.x")), sreg("tid.x"))
    t = b.add(b.mul(block, size), local)
    cells, floats = g.pop(rd), g.fpop(rf)
    for values, ty, count, arg in ((cells, I64, rd, first), (floats, g.float_t, rf, first + (rd > 0))):
        if not count:
            continue
        base = g.fn.args[arg + (1 if getattr(g.target, "context", True) else 0)]  # after ctx, when there is one
        for i, v in enumerate(values):
            b.store(v, b.gep(base, [b.add(b.mul(t, c64(count)), c64(i))], source_etype=ty))


_NUMBER = re.compile(r"(?<![\w.%@\"$-])\d{6,}(?![\w.])")


def _portable_module(mod: llvm.ModuleRef, name: str, memory: SessionMemory, word: Colon) -> llvm.ModuleRef:
    """The kernel with data-space addresses (VARIABLE, CREATE, BASE) pointing
    into a copy of data space in the kernel's global memory (`tf_data`, its
    bytes as they are now); another session address refuses the export."""
    text = str(mod)
    lo, hi = memory.data_addr, memory.data_addr + memory.data_size
    used = 0

    def repl(m: re.Match) -> str:
        nonlocal used
        v = int(m.group())
        if memory.data_size and lo <= v < hi:
            used = max(used, v - lo + 8)
            return (f"ptrtoint (ptr getelementptr (i8, ptr addrspacecast (ptr addrspace(1) @tf_data to ptr), "
                    f"i64 {v - lo}) to i64)")
        for base, (what, n) in memory.others.items():
            if base <= v <= base + n:
                raise ForthError(f"{word.name} uses {what} (address {v:#x}), which lives in this session: an "
                                 "exported kernel cannot reach it; keep the data in an ARRAY the word names, "
                                 "which becomes a parameter", word.pos, word.name)
        return m.group()

    new = _NUMBER.sub(repl, text)
    if not used:
        return mod
    size = max(used, len(memory.data))
    data = (memory.data + bytes(size))[:size]
    init = "".join(chr(c) if 32 <= c < 127 and chr(c) not in '"\\' else f"\\{c:02X}" for c in data)
    new += f'\n@tf_data = internal addrspace(1) global [{size} x i8] c"{init}", align 16\n'
    try:
        out = llvm.parse_assembly(new)
    except RuntimeError as exc:  # a code-generator bug, not a user error
        raise ForthError(f"internal compiler error (invalid IR): {exc}") from exc
    mod.close()
    return out
