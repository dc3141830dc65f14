"""Program tree -> LLVM IR for ONE thread (SIMT: every thread runs the same code).

Stacks live in memory (`ds`/`fs` arrays and `dsp`/`fsp` depth cells), but the
generator keeps the top of each stack in SSA values (a stack cache) and only
writes them back at control-flow joins, calls and suspend points, so straight
code and balanced loops work in registers.

Underflow checks are emitted only where the generator cannot prove enough
items are present (`guar`: items known to be in memory below the cache).

Every word body is emitted through `Gen.body`, either into its own LLVM
function (`i1 @w(ctx, thr, ds, dsp, fs, fsp)`, false = the thread failed and
the error is recorded) or inlined into a kernel, which is how code that
reaches a suspend point (BARRIER, warp ops) ends up inside the coroutine.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator

from llvmlite import ir

from ..errors import ForthError, SourcePos
from ..front.dictionary import INLINE_MAX
from ..front.effects import Effect, body_effect
from ..front.linekey import LITS_MAX
from ..front.tree import (
    Begin,
    Break,
    Call,
    Do,
    DropFlag,
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
    Visitor,
    walk,
)
from ..records import field, record
from . import layout as L
from .ranges import loop_fits_32, value_range
from .slottags import SlotTags, Spec
from .spaces import result_spaces
from .tiles import detailed, resolve, same_stack, same_tile

if TYPE_CHECKING:
    from ..front.dictionary import Colon
    from ..front.linekey import LineShape
    from .machine import Machine
    from .target import Target
    from .tileops import TileOp

I1, I8, I16, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(16), ir.IntType(32), ir.IntType(64)
I128 = ir.IntType(128)
F16, F32, F64 = ir.HalfType(), ir.FloatType(), ir.DoubleType()


def float_type(m: "Machine") -> ir.Type:
    """The float stack's type of a session's machine (f32, or f64)."""
    return F64 if m.float_bits == 64 else F32


def float_bits(b: ir.IRBuilder, v: ir.Value) -> ir.Value:
    """A float-stack value's bits as a cell (an output record's value): zero-extended f32 bits, or the f64's."""
    if isinstance(v.type, ir.DoubleType):
        return b.bitcast(v, I64)
    return b.zext(b.bitcast(v, I32), I64)


def fconvert(b: ir.IRBuilder, v: ir.Value, ty: ir.Type) -> ir.Value:
    """A float value converted to the float type ty (f16 f32 f64: widened, narrowed to nearest, or kept)."""
    def width(t: ir.Type) -> int:
        return 16 if isinstance(t, ir.HalfType) else 32 if isinstance(t, ir.FloatType) else 64
    if width(v.type) == width(ty):
        return v
    return b.fpext(v, ty) if width(v.type) < width(ty) else b.fptrunc(v, ty)
PTR = ir.PointerType()
WORD_FNTY = ir.FunctionType(I1, [PTR] * 6)

# Runtime helpers every target defines in its module header (see target.py).
HELPERS: dict[str, ir.FunctionType] = {
    "tf_fail": ir.FunctionType(ir.VoidType(), [PTR, PTR, I64, I64, I64, I64]),
    "tf_poll": ir.FunctionType(I1, [PTR, PTR, I64, I64]),
    "tf_addr_scan": ir.FunctionType(ir.LiteralStructType([I64, I64]), [PTR, I64, I64]),
    "tf_out": ir.FunctionType(ir.VoidType(), [PTR, PTR, I64, I64, I64]),
    # the emulator's race detector and access trace (tileforth/backends/cpu/races.py); other targets never call it
    "tf_race": ir.FunctionType(I64, [PTR, PTR, I64, I64, I64, I64, I64]),
    # the emulator's cp.async model: an access of bytes whose copy has not landed (backends/cpu/asynccopy.py)
    "tf_async_check": ir.FunctionType(I1, [PTR, PTR, I64, I64, I64]),
    # ALLOCATE FREE RESIZE in device code (heapgen.py), where the target has them (Target.device_heap)
    "tf_heap": ir.FunctionType(I64, [PTR, PTR, I64, I64, I64, PTR]),
}


SHORT_LOOP = 32  # DO loops of at most this many iterations with literal bounds keep an i64 index (narrow_loop)


# debug launches (tileforth/core/session/debugger.py): while DEBUG.on, every word of a line's kernel first calls
# tf_debug_point(ctx, thr, site, ds, dsp, fs, fsp) with its stacks flushed; DEBUG.labels[site] names the word
# and DEBUG.tiles[site] is the warp's tile stack there (static: Tile.short() of each entry, top last;
# DEBUG.stacks[site] the entries themselves, which the debugger's tile values are shown with).
# The kernel cache keys on DEBUG.on (device.py), so normal kernels never carry the calls.
class _DebugPoints:
    on = False
    labels: dict[int, str] = {}
    tiles: dict[int, tuple[str, ...]] = {}
    stacks: dict[int, tuple] = {}


DEBUG = _DebugPoints()
DEBUG_FN = ir.FunctionType(ir.VoidType(), [PTR, PTR, I64, PTR, PTR, PTR, PTR])


FREEING = frozenset({"(FREE)", "(RESIZE)", "EXECUTE"})  # device words that may end an allocation


def frees_heap(word: "Colon") -> bool:
    """The word, or a word it calls, may end an allocation in device code (FREE, RESIZE, or an
    EXECUTE of a word that does): a checked caller empties its range cache after calling it.
    Kept with the word, for its final body (a word's body does not change once it is defined)."""
    body = getattr(word, "body", None)
    if body is None:
        return False
    key = len(body)
    hit = word.__dict__.get("_frees")
    if hit is not None and hit[0] == key:
        return hit[1]
    word.__dict__["_frees"] = (key, False)  # a word reached again while it is walked: its own answer follows
    found = False
    for n in walk(body):
        if (type(n) is Prim and n.prim.name in FREEING) or (type(n) is Call and frees_heap(n.word)):
            found = True
            break
    word.__dict__["_frees"] = (key, found)
    return found


def declare(module: ir.Module, name: str, fnty: ir.FunctionType) -> ir.Function:
    """The function `name` of `module` (a helper, an intrinsic, a word), declared as `fnty` on its
    first use."""
    fn = module.globals.get(name)
    return fn if fn is not None else ir.Function(module, fnty, name)


def helper_fn(module: ir.Module, name: str) -> ir.Function:
    """The runtime helper `name` in `module`, declared on its first use (a module declares only the
    helpers it calls: with a target that does not link them, nothing else of them is in it)."""
    return declare(module, name, HELPERS[name])


_SMALL: dict[int, ir.Constant] = {}  # c64's constants of small values, shared by every module
_SMALL_MAX = 1 << 16


def c64(v: int) -> ir.Constant:
    """An i64 constant. Small values (offsets, codes, site ids) are one shared object each: a constant
    is immutable and belongs to no module, and llvmlite keeps its text once made, so printing a
    module (every new line's kernel) does not format them again."""
    if -_SMALL_MAX <= v < _SMALL_MAX:
        c = _SMALL.get(v)
        if c is None:
            c = _SMALL[v] = ir.Constant(I64, v)
        return c
    return ir.Constant(I64, v)


@record(eq=False)
class Sites:
    """Source positions of every check the compiler emits; an error record
    names a site id and the host turns it back into a position. Warp
    operations also keep what they do (`info`: a TileOp), for the emulator."""

    entries: list[tuple[str, SourcePos | None]] = field(default_factory=list)
    info: dict[int, "TileOp"] = field(default_factory=dict)

    def add(self, word: str, pos: SourcePos | None) -> int:
        self.entries.append((word, pos))
        return len(self.entries) - 1


class Strings(list):
    """The texts `."` and `ABORT"` print, by id; each text is kept once, so lines that print
    the same text have the same code (and share a kernel: linekey.py)."""

    def __init__(self) -> None:
        super().__init__()
        self._ids: dict[str, int] = {}

    def id_of(self, text: str) -> int:
        sid = self._ids.get(text)
        if sid is None:
            sid = self._ids[text] = len(self)
            self.append(text)
        return sid


@record(eq=False)
class Env:
    """What a function's code works on: the launch context, the thread's record,
    its two stacks (arrays and depth cells), and the function's own registers
    (allocas): the step counter and the range cache of checked accesses."""

    ctx: ir.Value
    thr: ir.Value
    ds: ir.Value
    dsp: ir.Value
    fs: ir.Value
    fsp: ir.Value
    steps_slot: ir.Value | None = None  # loop iterations left (a copy of thr[T_STEPS] in a register): `steps`
    range_lo: ir.Value | None = None  # the allocation [lo, hi) that the last checked access hit
    range_hi: ir.Value | None = None
    lazy_range: bool = False  # the range cache is made at its first use (Gen.range_cache), in the entry block
    steps_entry: ir.Block | None = None  # the entry block `steps` is made in when first read (lazily)
    builder: ir.IRBuilder | None = None  # the function's builder (Gen.b): at the end again after that
    # a kernel entry's stack pointers and depth slots, each with the instructions that make it (state_env;
    # finish_state removes those nobody used)
    setup: list[list[tuple[ir.Value, list[ir.Instruction]]]] = field(default_factory=list)

    @property
    def steps(self) -> ir.Value | None:
        """The step counter, made at the start of the entry block the first time any code reads it
        (a loop, a call, a wait; every reader comes here): the same alloca and load of thr[T_STEPS]
        that an eager one would be, since nothing before changes thr[T_STEPS]; a function that never
        counts a step (most straight lines) has none, which tier 0 (no passes) would keep."""
        if self.steps_slot is None and self.steps_entry is not None:
            entry, self.steps_entry = self.steps_entry, None
            b = ir.IRBuilder(entry)
            if entry.instructions:
                b.position_before(entry.instructions[0])
            self.steps_slot = b.alloca(I64, name="steps")
            b.store(b.load(b.gep(self.thr, [c64(L.T_STEPS)], source_etype=I64), typ=I64), self.steps_slot)
            gb = self.builder
            if gb is not None and gb.block is entry:  # (a builder's place is an index: as Gen.alloca does)
                gb.position_at_end(entry)
        return self.steps_slot

    def args(self) -> list[ir.Value]:
        return [self.ctx, self.thr, self.ds, self.dsp, self.fs, self.fsp]

    def add_registers(self, b: ir.IRBuilder, coroutine: bool = False) -> "Env":
        """Create the function's registers at the builder's position (the
        entry block, after `thr` is known): the step counter is loaded from the
        thread record, the range cache starts empty. In a coroutine a value
        that lives across a suspend point is stored to its frame at every
        change, so there the range cache stays in the thread record (which
        costs the same and is not copied)."""
        if not coroutine and isinstance(self.thr, ir.Argument):  # (thr defined at the entry's start)
            self.steps_entry = b.block
        else:
            self.steps_slot = b.alloca(I64, name="steps")
            b.store(b.load(b.gep(self.thr, [c64(L.T_STEPS)], source_etype=I64), typ=I64), self.steps_slot)
        if coroutine:
            self.range_lo = b.gep(self.thr, [c64(L.T_CACHE_LO)], source_etype=I64)
            self.range_hi = b.gep(self.thr, [c64(L.T_CACHE_HI)], source_etype=I64)
            b.store(c64(0), self.range_lo)
            b.store(c64(0), self.range_hi)
        else:  # two allocas that start empty: made where a checked access first needs them (most lines
            self.lazy_range = True  # have none, and tier 0 runs no pass that would remove unused ones)
        return self


def state_env(b: ir.IRBuilder, ctx: ir.Value, thr: ir.Value, m: "Machine",
              coroutine: bool = False) -> tuple[Env, ir.Value]:
    """The stacks of the thread whose record is `thr`, for a kernel entry (a target's
    define_kernel): the arrays stay in its state buffer, the depths are copied into allocas
    (registers); also the address of its state."""
    made = b.block.instructions
    first = len(made)
    stp = b.inttoptr(b.load(b.gep(thr, [c64(L.T_STATE)], source_etype=I64), typ=I64), PTR)
    state = (stp, made[first:])
    ds = b.gep(stp, [c64(L.S_DS)], source_etype=I8)
    fs = b.gep(stp, [c64(m.s_fs)], source_etype=I8)
    setup: list[tuple[ir.Value, list[ir.Instruction]]] = [(ds, [ds]), (fs, [fs])]
    for off, name in ((L.S_DSP, "dsp"), (L.S_FSP, "fsp")):
        first = len(made)
        slot = b.alloca(I64, name=name)
        b.store(b.load(_at(b, stp, off), typ=I64), slot)
        setup.append((slot, made[first:]))
    env = Env(ctx, thr, ds, setup[2][0], fs, setup[3][0]).add_registers(b, coroutine)
    env.setup = [setup, [state]]  # (the state's address only once the others are gone)
    return env, stp


def _at(b: ir.IRBuilder, base: ir.Value, offset: int) -> ir.Value:
    """The address `offset` bytes into `base` (base itself at offset 0: one instruction less to print,
    parse and select on a new line's kernel)."""
    return base if offset == 0 else b.gep(base, [c64(offset)], source_etype=I8)


def finish_state(g: "Gen", stp: ir.Value) -> None:
    """At the end of a line's body: depths back to the state buffer, the thread DONE. A stack the
    body never touched (no float in most lines) keeps its depth: its setup at the entry goes
    (_drop_unused), and nothing is stored back."""
    g.flush()
    unused = _drop_unused(g)
    for depth, off in ((g.env.dsp, L.S_DSP), (g.env.fsp, L.S_FSP)):
        if id(depth) not in unused:
            g.b.store(g.b.load(depth, typ=I64), _at(g.b, stp, off))
    g.b.store(c64(L.ST_DONE), g.b.gep(g.env.thr, [c64(L.T_STATUS)], source_etype=I64))


def _drop_unused(g: "Gen") -> set[int]:
    """The kernel entry's stack pointers and depth slots (state_env's `setup`) that no instruction
    outside that setup uses, removed from the entry block; their ids. Exact: an unused array pointer
    is dead code, and a depth slot nobody reads or writes still holds the depth it was loaded with,
    which storing it back would write again. Tier 0 runs no pass that would remove them, and every
    instruction of a new line's kernel is printed, parsed and compiled."""
    gone: set[int] = set()
    for setup in g.env.setup:
        mine = {id(i) for _, instrs in setup for i in instrs}
        wanted = {id(v) for v, _ in setup}
        used: set[int] = set()
        for block in g.fn.blocks:
            for ins in block.instructions:
                if id(ins) in mine:
                    continue
                for op in ins.operands:
                    if id(op) in wanted:
                        used.add(id(op))
                if isinstance(ins, ir.PhiInstr):
                    for v, _ in ins.incomings:
                        if id(v) in wanted:
                            used.add(id(v))
        for value, instrs in setup:
            if id(value) not in used:
                gone.add(id(value))
                for ins in instrs:
                    ins.parent.instructions.remove(ins)
    if gone and g.b.block is g.entry_bb:  # (a builder's place is an index: as Gen.alloca does)
        g.b.position_at_end(g.entry_bb)
    g.env.setup = []
    return gone


@record(eq=False)
class LoopFrame:
    """An open DO loop: its index and limit, where LEAVE goes, and the stacks at entry."""

    index: ir.Value  # alloca i64, or i32 (narrow)
    limit: ir.Value
    exit_bb: ir.Block
    rslots: list[ir.Value]  # the return stack's slots at loop entry (and exit)
    tiles: list  # the tile stack at loop entry (and exit)
    narrow: bool = False  # the index counts in i32 (ranges.loop_fits_32 proved it fits)

    def read(self, b: ir.IRBuilder) -> ir.Value:
        """The index as a cell (I, J, K): an i32 index sign-extended, the same value as in i64."""
        if self.narrow:
            return b.sext(b.load(self.index, typ=I32), I64)
        return b.load(self.index, typ=I64)


def _has_labels(word: "Colon") -> bool:
    """The word has jumps made by CS-ROLL or CS-PICK: its labels are its own
    function's (Gen.labels), so it is called, never copied in."""
    return any(type(n) is Label for n in walk(word.body))


@record(eq=False)
class _LabelState:
    """A Label's block, the return and tile stacks there, and whether it is placed yet."""

    block: ir.Block
    rslots: list[ir.Value]
    tiles: list
    placed: bool = False


@record(eq=False)
class Scope:
    """Per-word state: locals, loops, return stack and where EXIT goes."""

    word: str
    locals: list[ir.Value] = field(default_factory=list)  # allocas (mem2reg makes them registers)
    loops: list[LoopFrame] = field(default_factory=list)
    rstack: list[ir.Value] = field(default_factory=list)  # allocas
    nblocks: dict[int, ir.Value] = field(default_factory=dict)  # N>R: its count slot's id -> the cells it holds
    exit: Callable[[], None] | None = None
    unlooped: int = 0  # UNLOOPs on this path: I, J and K skip that many inner loops (until EXIT)
    begins: list[tuple[ir.Block, list[ir.Value]]] = field(default_factory=list)  # each open BEGIN: where a
    # Break goes, and the return stack's slots there


class CachedStack:
    """One stack (data or float) as the generator sees it: the values on top
    that are still in SSA registers, and the memory stack below them.

    `guar` counts items known to be in memory, so checks are emitted only
    where that count cannot prove an access safe."""

    def __init__(self, ty: ir.Type, array: ir.Value, depth: ir.Value, capacity: int,
                 underflow: int, overflow: int) -> None:
        self.ty, self.array, self.depth, self.capacity = ty, array, depth, capacity
        self.underflow, self.overflow = underflow, overflow
        self.cache: list[ir.Value] = []
        self.sp_val: ir.Value | None = None
        self.dirty = False
        self.guar = 0
        self.slots: SlotTags | None = None  # the spaces of what memory slots hold (the data stack, on
        # targets with address spaces: slottags.py)

    def lose_depth(self) -> None:
        if self.slots is not None:
            self.slots.lost()

    def sp(self, g: "Gen") -> ir.Value:
        if self.sp_val is None:
            self.sp_val = g.b.load(self.depth, typ=I64)
        return self.sp_val

    def _at(self, sp: ir.Value) -> int | None:
        """The depth `sp` stands for relative to the tracked anchor (slottags.py), or None."""
        return None if self.slots is None else self.slots.current(sp)

    def ensure(self, g: "Gen", k: int) -> None:
        if k > self.guar:
            g.fail_if(g.b.icmp_signed("<", self.sp(g), c64(k)), self.underflow, aux=c64(k))
            self.guar = k

    def slot(self, g: "Gen", index: ir.Value) -> ir.Value:
        return g.b.gep(self.array, [index], source_etype=self.ty)

    def pop(self, g: "Gen", n: int) -> list[ir.Value]:
        take = min(n, len(self.cache))
        cached = self.cache[len(self.cache) - take:]
        del self.cache[len(self.cache) - take:]
        k = n - take
        mem: list[ir.Value] = []
        if k:
            self.ensure(g, k)
            sp = self.sp(g)
            mem = [g.b.load(self.slot(g, g.b.sub(sp, c64(i))), typ=self.ty) for i in range(k, 0, -1)]
            d = self._at(sp)
            if d is not None and self.slots is not None:
                for i, v in zip(range(k, 0, -1), mem):
                    g.tag(v, self.slots.read(d - i))
            self.sp_val = g.b.sub(sp, c64(k))
            if self.slots is not None:
                self.slots.moved(self.sp_val, -k)
            self.dirty = True
            self.guar -= k
        return mem + cached

    def push(self, vals: tuple[ir.Value, ...]) -> None:
        for v in vals:
            assert v.type == self.ty, v.type
            self.cache.append(v)

    def flush(self, g: "Gen") -> None:
        if self.cache:
            sp = self.sp(g)
            n = len(self.cache)
            g.fail_if(g.b.icmp_signed(">", sp, c64(self.capacity - n)), self.overflow)
            d = self._at(sp)
            for i, v in enumerate(self.cache):
                g.b.store(v, self.slot(g, g.b.add(sp, c64(i))))
                if self.slots is not None:
                    self.slots.wrote(None if d is None else d + i, g.space_of(v))
            self.sp_val = g.b.add(sp, c64(n))
            if self.slots is not None:
                self.slots.moved(self.sp_val, n)
            self.dirty = True
            self.guar += n
            self.cache = []
        if self.dirty:
            g.b.store(self.sp_val, self.depth)
            self.dirty = False


class Gen(Visitor):
    def __init__(self, module: ir.Module, fn: ir.Function, env: Env, target: "Target",
                 sites: Sites, checked: bool, word_fn: Callable[["Colon"], ir.Function],
                 fail_bb: ir.Block, strings: list[str], base_addr: int,
                 inline_suspending: bool = False) -> None:
        self.module, self.fn, self.env, self.target = module, fn, env, target
        self.sites, self.checked, self.word_fn = sites, checked, word_fn
        self.fail_bb = fail_bb
        self.strings = strings
        self.base_addr = base_addr
        self.inline_suspending = inline_suspending
        self.entry_bb = fn.blocks[0]
        self.b = env.builder = ir.IRBuilder()
        self.machine = m = target.machine  # the session's settings: the float type, the stacks' capacities
        self.float_t = float_type(m)  # the float stack's type
        self.dstack = CachedStack(I64, env.ds, env.dsp, m.ds_max, L.E_UNDERFLOW, L.E_OVERFLOW)
        self.fstack = CachedStack(self.float_t, env.fs, env.fsp, m.fs_max, L.E_FUNDERFLOW, L.E_FOVERFLOW)
        if target.address_spaces:
            self.dstack.slots = SlotTags()
        self.scope = Scope("<line>")
        self.pos: SourcePos | None = None
        self.word_name = "<line>"
        self.pinned = 0
        self.fail_phis: list[ir.PhiInstr] | None = None
        self.tstack: list = []  # the tile stack, known statically (Tile | Hole entries)
        self.tile_holes = False  # True while a definition is checked alone (unknown tiles below)
        self.tile_floor = 0  # how many of the bottom entries are those unknown tiles (holes)
        self.tile_initial: list = []  # the tile stack at entry
        self.tstate = target.function_state()  # what the target keeps for this function (its own type)
        self.count_steps = True  # loop back-edges count against the step budget
        self.spaces: dict[int, tuple[ir.Value, object]] = {}  # address values known to point into a space
        self.inlined_size = 0  # nodes of suspending words inlined into this function (bounded by INLINE_MAX)
        self.inlining_suspending = 0  # nesting of those inlines
        self.labels: dict[int, _LabelState] = {}  # the jumps and labels CS-ROLL/CS-PICK made (visit_Label)
        self.line: "LineShape | None" = None  # a line's kernel: its literals and positions are launch data
        self.patches: list[tuple[int, int]] = []  # (site id, index in line.positions) of the line's sites
        self._lit_table: ir.Value | None = None  # the launch's literal table (launch_literal), once read
        self._invariant: ir.MDValue | None = None

    # ---- small helpers -------------------------------------------------
    def helper(self, name: str) -> ir.Function:
        return helper_fn(self.module, name)

    def intrinsic(self, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
        return declare(self.module, name, ir.FunctionType(ret, args))

    def alloca(self, ty: ir.Type, name: str = "") -> ir.Value:
        """An alloca in the entry block (so mem2reg can promote it)."""
        saved = self.b.block
        with self.b.goto_block(self.entry_bb):
            if self.entry_bb.instructions:
                self.b.position_before(self.entry_bb.instructions[0])
            slot = self.b.alloca(ty, name=name)
        self.b.position_at_end(saved)
        return slot

    def site(self) -> int:
        sid = self.sites.add(self.word_name, self.pos)
        if self.line is not None and self.pos is not None:
            k = self.line.pos_slot.get(id(self.pos))
            if k is not None:  # a position of the line: filled in before each launch (linekey.py)
                self.patches.append((sid, k))
        return sid

    def launch_literal(self, n: "Lit | FLit") -> ir.Value | None:
        """The literal `n` of a line read from the launch's literal table (linekey.py), or None
        when it is a constant of the code."""
        k = None if self.line is None else self.line.lit_slot.get(id(n))
        if k is None:
            return None
        return self._launch_cell(k)

    def _launch_cell(self, k: int) -> ir.Value:
        """Cell k of the launch's literal table (and, from LITS_MAX on, its address table), an invariant load."""
        b = self.b
        table = self._lit_table
        if table is None:  # the table's address, read once at the function's entry (the launch's, invariant)
            saved = b.block
            with b.goto_block(self.entry_bb):
                if self.entry_bb.instructions:
                    b.position_before(self.entry_bb.instructions[0])
                self._invariant = self.module.add_metadata([])
                raw = b.load(b.gep(self.env.ctx, [c64(L.CTX_LITS)], source_etype=I64), typ=I64)
                raw.set_metadata("invariant.load", self._invariant)
                table = self._lit_table = b.inttoptr(raw, self.env.ctx.type)
            b.position_at_end(saved)
        value = b.load(table if k == 0 else b.gep(table, [c64(k)], source_etype=I64), typ=I64)
        value.set_metadata("invariant.load", self._invariant)
        return value

    def address(self, value: int) -> ir.Value:
        """A number of the code that may be a session address (a Lit the line does not read from its
        table, BASE's cell): on a target with an address table (addresses.py) an address is read from
        the launch's table plus its offset, so the code is the same in every session; else a constant."""
        table = self.target.addresses
        hit = None if table is None else table.slot(value)
        if hit is None:
            return c64(value)
        k, off = hit
        base = self._launch_cell(LITS_MAX + k)
        return base if off == 0 else self.b.add(base, c64(off))

    def flag(self, cond: ir.Value) -> ir.Value:
        return self.b.sext(cond, I64)

    def new_block(self, name: str) -> ir.Block:
        return self.fn.append_basic_block(name)

    def _dispatch(self) -> list[ir.PhiInstr]:
        """One block per function records every error: checks branch to it with
        their (code, site, addr, aux) as phi operands, which keeps the IR small
        (and LLVM fast) compared with a call per check."""
        if self.fail_phis is None:
            block = self.new_block("fail_record")
            b = ir.IRBuilder(block)
            self.fail_phis = [b.phi(I64, name=n) for n in ("code", "site", "addr", "aux")]
            b.call(self.helper("tf_fail"), [self.env.ctx, self.env.thr, *self.fail_phis])
            b.branch(self.fail_bb)
        return self.fail_phis

    def fail_if(self, cond: ir.Value, code: int, addr: ir.Value | None = None,
                aux: ir.Value | None = None) -> None:
        phis = self._dispatch()
        ok = self.new_block("ok")
        for phi, v in zip(phis, (c64(code), c64(self.site()), addr if addr is not None else c64(0),
                                 aux if aux is not None else c64(0))):
            phi.add_incoming(v, self.b.block)
        self.b.cbranch(cond, phis[0].parent, ok)
        self.b.position_at_end(ok)

    def check_ok(self, ok: ir.Value) -> None:
        """Continue if a call returned true, else leave (error already recorded)."""
        cont = self.new_block("cont")
        self.b.cbranch(ok, cont, self.fail_bb)
        self.b.position_at_end(cont)

    # ---- the stack caches (data and float) ------------------------------------
    def _dsp(self) -> ir.Value:
        return self.dstack.sp(self)

    def ensure_d(self, k: int) -> None:
        """Make sure k cells are in memory below the cache (runtime check)."""
        self.dstack.ensure(self, k)

    def ensure_f(self, k: int) -> None:
        self.fstack.ensure(self, k)

    def pop(self, n: int) -> list[ir.Value]:
        """n cells, bottom first."""
        return self.dstack.pop(self, n)

    def push(self, *vals: ir.Value) -> None:
        self.dstack.push(vals)

    def fpop(self, n: int) -> list[ir.Value]:
        return self.fstack.pop(self, n)

    def fpush(self, *vals: ir.Value) -> None:
        self.fstack.push(vals)

    def flush(self) -> None:
        """Write cached values back; memory is then the canonical state."""
        self.dstack.flush(self)
        self.fstack.flush(self)

    def forget_sp(self) -> None:
        """After a join or a call the depth cells must be re-read."""
        self.dstack.sp_val = None
        self.fstack.sp_val = None
        self.dstack.lose_depth()

    def _set_dguar(self, v: int) -> None:
        """Nothing known of the stack in memory (a dynamic effect, a call, a ROLL of a computed depth,
        which writes the stack's memory without the cache): the tracked depth is lost too. (Where the
        depth is not loaded yet, nothing was written: a word's function starts so.)"""
        if v == 0 and self.dstack.sp_val is not None:
            self.dstack.lose_depth()
        self.dstack.guar = v

    dguar = property(lambda self: self.dstack.guar, _set_dguar)
    fguar = property(lambda self: self.fstack.guar, lambda self, v: setattr(self.fstack, "guar", v))
    dsp_val = property(lambda self: self.dstack.sp_val, lambda self, v: setattr(self.dstack, "sp_val", v))
    fsp_val = property(lambda self: self.fstack.sp_val, lambda self, v: setattr(self.fstack, "sp_val", v))

    def state(self) -> tuple[int, int, tuple]:
        return self.dguar, self.fguar, tuple(self.tstack)

    def set_state(self, st: tuple[int, int, tuple]) -> None:
        self.dguar, self.fguar = st[0], st[1]
        self.tstack = list(st[2])

    def join(self, states: list[tuple[int, int, tuple]], what: str, pos: SourcePos | None) -> None:
        """Paths meet: the data-stack knowledge is the weakest of them, and the
        tile stacks must agree (their shape is static)."""
        first = list(states[0][2])
        for st in states[1:]:
            self.check_tiles(first, list(st[2]), what, pos)
        self.dguar = min(s[0] for s in states)
        self.fguar = min(s[1] for s in states)
        self.tstack = first
        self.forget_sp()

    def check_tiles(self, expected: list, actual: list, what: str, pos: SourcePos | None) -> None:
        if not same_stack(expected, actual):
            k = self.tiles_shown_from()
            raise ForthError(f"{what} must leave the same tile stack on every path, but one path leaves "
                             f"{detailed(expected[k:])} and another {detailed(actual[k:])}", pos)

    def tiles_shown_from(self) -> int:
        """In a definition checked alone, show stacks from the deepest unknown tile it touched."""
        if not self.tile_floor:
            return 0
        return min([i for i, h in enumerate(self.tile_initial) if h.touched], default=self.tile_floor)

    # ---- memory ----------------------------------------------------------
    def tag(self, value: ir.Value, space: object) -> ir.Value:
        """Remember which memory an address value points into ("shared",
        "global"), so that accesses through it use that address space."""
        if space is not None:
            self.spaces[id(value)] = (value, space)
        return value

    def space_of(self, value: ir.Value) -> Any:  # "shared", "global", a loop's Spec (slottags.py), None
        hit = self.spaces.get(id(value))
        return hit[1] if hit is not None and hit[0] is value else None

    def mem_store(self, value: ir.Value, addr: ir.Value, size: int, word: str) -> None:
        """Store `value` (`size` bytes) at `addr`, checked as mem_ptr checks; the target's access hook
        sees the value (a store of what memory already holds is no race)."""
        self.b.store(value, self.mem_ptr(addr, size, word, value))

    def mem_ptr(self, addr: ir.Value, size: int, word: str, value: ir.Value | None = None) -> ir.Value:
        """A pointer for a `size`-byte access at integer address `addr`,
        range- and alignment-checked in checked mode, in the address space
        the address is known to point into. The word's name says what the
        access does (a fetch ends in @, an atomic has ATOMIC in its name, the
        rest store), for the target's access hook (the emulator's race
        detector)."""
        space = self.space_of(addr)
        spec = space if isinstance(space, Spec) else None
        if spec is not None:
            space = None
        if self.checked:
            ok = self.target.addr_ok(self, addr, c64(size), space)
            self.fail_if(self.b.not_(ok), L.E_BAD_ADDR, addr=addr, aux=c64(size))
            if size > 1:
                mis = self.b.icmp_unsigned("!=", self.b.and_(addr, c64(size - 1)), c64(0))
                self.fail_if(mis, L.E_ALIGN, addr=addr, aux=c64(size))
            kind = "atomic" if "ATOMIC" in word else "read" if word.endswith("@") else "write"
            self.target.mem_access(self, addr, size, kind, value, word)
        if spec is not None and self.dstack.slots is not None:
            ptr = self.target.mem_pointer(self, addr, spec.space)
            if isinstance(ptr, ir.CastInstr) and ptr.opname == "addrspacecast":
                self.dstack.slots.use(ptr, spec)  # made generic again if the loop's check fails
                return ptr
            return self.target.mem_pointer(self, addr, None)
        return self.target.mem_pointer(self, addr, space)

    def forget_range(self) -> None:
        """Empty the range cache of checked accesses: a FREE or RESIZE (here, or in a word just
        called) may have ended the allocation it holds, so the next access looks it up again."""
        lo, hi = self.range_cache()
        self.b.store(c64(0), lo)
        self.b.store(c64(0), hi)

    def range_cache(self) -> tuple[ir.Value, ir.Value]:
        """The range cache's two slots (Env.range_lo, range_hi), made empty at the function's entry
        when first asked for (Env.lazy_range): the same code as made eagerly there, only when used."""
        env = self.env
        if env.range_lo is None and env.lazy_range:
            b, saved = self.b, self.b.block
            with b.goto_block(self.entry_bb):
                if self.entry_bb.instructions:
                    b.position_before(self.entry_bb.instructions[0])
                env.range_lo = b.alloca(I64, name="range_lo")
                env.range_hi = b.alloca(I64, name="range_hi")
                b.store(c64(0), env.range_lo)
                b.store(c64(0), env.range_hi)
            b.position_at_end(saved)
        return env.range_lo, env.range_hi

    def in_allocation(self, addr: ir.Value, size: ir.Value) -> ir.Value:
        """i1: [addr, addr+size) lies inside one live allocation. The range
        of the last allocation hit is kept in registers; a miss scans the
        allocation table (a call) and refills it."""
        b, env = self.b, self.env
        end = b.add(addr, size)
        lo_slot, hi_slot = self.range_cache()
        lo, hi = b.load(lo_slot, typ=I64), b.load(hi_slot, typ=I64)
        hit = b.and_(b.and_(b.icmp_unsigned(">=", addr, lo), b.icmp_unsigned("<=", end, hi)),
                     b.icmp_unsigned(">=", end, addr))
        here = b.block
        miss, done = self.new_block("range_miss"), self.new_block("range_done")
        b.cbranch(hit, done, miss)
        b.position_at_end(miss)
        found = b.call(self.helper("tf_addr_scan"), [env.ctx, addr, end])
        nlo, nhi = b.extract_value(found, 0), b.extract_value(found, 1)
        b.store(nlo, lo_slot)
        b.store(nhi, hi_slot)
        inside = b.icmp_unsigned("!=", nhi, c64(0))
        b.branch(done)
        b.position_at_end(done)
        ok = b.phi(I1, name="in_alloc")
        ok.add_incoming(ir.Constant(I1, 1), here)
        ok.add_incoming(inside, miss)
        return ok

    # ---- bodies ----------------------------------------------------------
    def body(self, nodes: list[Node]) -> None:
        for node in nodes:
            if self.b.block.is_terminated:
                # code after EXIT/AGAIN: emit into an unreachable block
                self.b.position_at_end(self.new_block("dead"))
            self.node(node)

    def node(self, n: Node) -> None:
        if not self.pinned:  # inside an inlined prelude word, errors point at its call
            self.pos = getattr(n, "pos", None) or self.pos
            if DEBUG.on and getattr(n, "pos", None) is not None and not self.b.block.is_terminated:
                self.debug_point(n)
        self._visit_table[type(n)](self, n)

    def debug_point(self, n: Node) -> None:
        """A debug launch's stop before node n (DEBUG above): the stacks in memory, then the host's call."""
        self.flush()
        sid = self.site()
        pos: SourcePos | None = getattr(n, "pos", None)
        written = pos.text[pos.col - 1:].split() if pos is not None and pos.text else []  # as the source spells it
        word = getattr(n, "word", None) or getattr(n, "prim", None)
        DEBUG.labels[sid] = written[0] if written else getattr(word, "name", None) or type(n).__name__.upper()
        DEBUG.tiles[sid] = tuple(t.short() if hasattr(t, "short") else "?" for t in self.tstack)
        DEBUG.stacks[sid] = tuple(self.tstack)
        e = self.env
        self.b.call(declare(self.module, "tf_debug_point", DEBUG_FN), [e.ctx, e.thr, c64(sid), e.ds, e.dsp, e.fs, e.fsp])

    # ---- one visit_ per node type (tree.Visitor's table dispatches them) ----
    def visit_Lit(self, n: Lit) -> None:
        value = self.launch_literal(n)
        self.push(self.tag(self.address(n.value) if value is None else value, n.space))

    def visit_FLit(self, n: FLit) -> None:
        bits = self.launch_literal(n)
        if bits is None:
            self.fpush(ir.Constant(self.float_t, n.value))
            return
        value = self.b.bitcast(bits, ir.DoubleType())
        self.fpush(value if isinstance(self.float_t, ir.DoubleType) else self.b.fptrunc(value, self.float_t))

    def visit_Call(self, n: Call) -> None:
        self.call(n.word)

    def visit_Leave(self, n: Leave) -> None:
        if not self.scope.loops:
            raise ForthError("LEAVE is only allowed inside DO ... LOOP", n.pos, "LEAVE")
        self.flush()
        self.check_tiles(self.scope.loops[-1].tiles, self.tstack, "LEAVE", n.pos)
        self.settle_rstack(self.scope.loops[-1].rslots, "LEAVE", n.pos)
        self.b.branch(self.scope.loops[-1].exit_bb)

    def visit_HostOp(self, n: HostOp) -> None:  # a host-level word is walked by the host, never compiled
        raise ForthError(f"{n.name} runs on the host and cannot be compiled into device code", n.pos, n.name)

    def visit_Break(self, n: Break) -> None:
        self.flush()
        exit_bb, rslots = self.scope.begins[-1]
        self.settle_rstack(rslots, "WHILE", n.pos)
        self.b.branch(exit_bb)

    def _label(self, n: "Label | Jump") -> "_LabelState":
        """A label's block, and the return stack and tile stack every path to it
        has (set by the first path that reaches it)."""
        st = self.labels.get(n.label)
        if st is None:
            st = self.labels[n.label] = _LabelState(self.new_block(f"L{n.label}"), list(self.scope.rstack),
                                                     list(self.tstack))
        return st

    def _to_label(self, st: "_LabelState", pos: SourcePos | None) -> None:
        """The stacks as a path to a label must leave them: in memory, the return
        stack in the label's slots, the tile stack the same."""
        self.flush()
        self.settle_rstack(st.rslots, "the jumps CS-ROLL made", pos)
        self.check_tiles(st.tiles, self.tstack, "a jump", pos)

    def visit_Label(self, n: Label) -> None:
        st = self._label(n)
        if not self.b.block.is_terminated:
            self._to_label(st, n.pos)
            self.b.branch(st.block)
        st.placed = True
        self.b.position_at_end(st.block)
        self.scope.rstack[:] = st.rslots
        self.tstack = list(st.tiles)
        self.forget_sp()
        self.dguar = self.fguar = 0

    def visit_Jump(self, n: Jump) -> None:
        flag = self.pop(1)[0] if n.if_zero else None
        st = self._label(n)
        self._to_label(st, n.pos)
        back = st.placed  # a jump back is a loop: it counts against the step budget
        go = self.new_block("jumpback") if back else st.block
        after = self.new_block("fallthrough" if n.if_zero else "dead")  # "dead": only a Label reaches on
        if flag is not None:
            self.b.cbranch(self.b.icmp_signed("==", flag, c64(0)), go, after)
        else:
            self.b.branch(go)
        if back:
            self.b.position_at_end(go)
            self.back_edge(st.block, n.pos)
        self.b.position_at_end(after)
        self.forget_sp()

    def settle_rstack(self, slots: list[ir.Value], where: str, pos: SourcePos | None) -> None:
        """Where paths meet (a loop's back edge and exits, IF's branches), the
        return stack must be as deep as `slots` and held in them: `R> 1+ >R`
        in a loop body puts the new value in a new slot, which goes back into
        the old one here."""
        cur = self.scope.rstack
        if len(cur) != len(slots):
            raise ForthError(f"the return stack (>R R>) must be balanced inside {where}: it holds {len(cur)} "
                             f"item(s) here and {len(slots)} where the paths meet", pos, where)
        for want, have in zip(slots, cur):
            if want is not have:
                if id(have) in self.scope.nblocks or id(want) in self.scope.nblocks:
                    raise ForthError("N>R and its NR> must be in the same branch and loop body", pos, where)
                self.b.store(self.b.load(have, typ=I64), want)
        cur[:] = slots

    def visit_LocalsDef(self, n: LocalsDef) -> None:
        values = self.pop(n.taken) + [c64(0)] * n.extra
        for v in values:
            slot = self.alloca(I64, "local")
            self.b.store(v, slot)
            self.scope.locals.append(slot)

    def visit_LocalGet(self, n: LocalGet) -> None:
        self.push(self.b.load(self.scope.locals[n.index], typ=I64))

    def visit_LocalSet(self, n: LocalSet) -> None:
        self.b.store(self.pop(1)[0], self.scope.locals[n.index])

    def visit_Prim(self, n: Prim) -> None:
        n.prim.emit(self, n)

    def visit_If(self, n: If) -> None:
        cond = self.pop(1)[0]
        self.flush()
        then_bb, else_bb, join_bb = self.new_block("then"), self.new_block("else"), self.new_block("endif")
        self.b.cbranch(self.b.icmp_signed("!=", cond, c64(0)), then_bb, else_bb)
        start = self.state()
        sps = (self.dsp_val, self.fsp_val)  # computed before the split, so valid in both arms
        split = self.slots_snapshot()
        rstack, unlooped = list(self.scope.rstack), self.scope.unlooped
        ends: list[tuple[int, int, tuple]] = []
        joined: list[ir.Value] | None = None  # the return stack's slots at THEN (set by the first branch there)
        for bb, part in ((then_bb, n.then), (else_bb, n.else_ or [])):
            self.b.position_at_end(bb)
            self.set_state(start)
            self.dsp_val, self.fsp_val = sps
            if split is not None and self.dstack.slots is not None:
                self.dstack.slots.restore(split)
            self.scope.rstack[:], self.scope.unlooped = list(rstack), unlooped
            self.body(part)
            if not self.b.block.is_terminated:
                self.flush()
                ends.append(self.state())
                if joined is None:  # items kept from before the IF stay in their slots; new ones get join slots
                    depth = len(self.scope.rstack)
                    joined = rstack[:depth] + [self.alloca(I64, "r") for _ in range(len(rstack), depth)]
                self.settle_rstack(joined, "both branches of IF", n.pos)
                self.b.branch(join_bb)
        self.scope.unlooped = unlooped
        self.scope.rstack[:] = rstack if joined is None else joined
        self.b.position_at_end(join_bb)
        if ends:
            self.join(ends, "IF ... ELSE ... THEN", n.pos)
        else:
            self.b.unreachable()
            self.b.position_at_end(self.new_block("dead"))
            self.forget_sp()

    def loop_guar(self, body: list[Node]) -> tuple[int, int]:
        """What stays guaranteed around a loop back-edge."""
        eff = body_effect(body)
        d = self.dguar if eff.static and eff.dnet == 0 else 0
        f = self.fguar if eff.static and eff.fnet == 0 else 0
        return d, f

    def back_edge(self, target_bb: ir.Block, loop_pos: SourcePos | None, tiles: list | None = None) -> None:
        """Count a loop iteration; a runaway loop is reported at its opening word.
        The body must leave the tile stack as it found it."""
        if tiles is not None:
            self.check_tiles(tiles, self.tstack, "a loop body", loop_pos)
        if not self.count_steps:  # exported kernels run without a step budget
            self.b.branch(target_bb)
            return
        if not self.pinned and loop_pos is not None:
            self.pos = loop_pos
        self.step(target_bb)

    def count_call(self) -> None:
        """A call counts as a step too, so runaway recursion (or a call tree
        that doubles per level) meets the budget and Ctrl-C like a loop."""
        if not self.count_steps or self.env.steps is None:
            return
        cont = self.new_block("called")
        self.step(cont)
        self.b.position_at_end(cont)

    def step(self, target_bb: ir.Block) -> None:
        """Take one step off the register budget and go on to `target_bb`;
        every POLL_EVERY steps, first ask `tf_poll` (abort flag, budget)."""
        b, slot = self.b, self.env.steps
        left = b.sub(b.load(slot, typ=I64), c64(1))
        b.store(left, slot)
        poll = self.new_block("poll")
        b.cbranch(b.icmp_signed("==", b.and_(left, c64(L.POLL_EVERY - 1)), c64(0)), poll, target_bb)
        b.position_at_end(poll)
        ok = b.call(self.helper("tf_poll"), [self.env.ctx, self.env.thr, c64(self.site()), left])
        b.cbranch(ok, target_bb, self.fail_bb)

    def save_steps(self) -> None:
        """Before a call or a return: the thread record gets the register step counter."""
        if self.env.steps is not None:
            self.b.store(self.b.load(self.env.steps, typ=I64), self.target.thr_slot(self, L.T_STEPS))

    def load_steps(self) -> None:
        """After a call: the callee counted its own iterations in the thread record."""
        if self.env.steps is not None:
            self.b.store(self.b.load(self.target.thr_slot(self, L.T_STEPS), typ=I64), self.env.steps)

    def visit_Begin(self, n: Begin) -> None:
        self.flush()
        entry = self.slots_snapshot()
        unlooped = self.scope.unlooped
        if n.kind == "while":
            guar = self.loop_guar(n.cond + [_DROP_FLAG] + n.body)
        elif n.kind == "until":
            guar = self.loop_guar(n.body + [_DROP_FLAG])
        else:
            guar = self.loop_guar(n.body)
        self.dguar, self.fguar = guar
        tiles0 = list(self.tstack)
        exit_tiles = tiles0
        head = self.new_block("begin")
        exit_bb = self.new_block("endbegin")
        rslots = list(self.scope.rstack)
        self.scope.begins.append((exit_bb, rslots))
        self.b.branch(head)
        self.b.position_at_end(head)
        self.forget_sp()
        self.slots_open(entry)
        if n.kind == "while":
            self.body(n.cond)
            flag = self.pop(1)[0]
            self.flush()
            self.settle_rstack(rslots, "a BEGIN loop", n.pos)
            exit_tiles = list(self.tstack)
            body_bb = self.new_block("whilebody")
            self.b.cbranch(self.b.icmp_signed("!=", flag, c64(0)), body_bb, exit_bb)
            self.b.position_at_end(body_bb)
            self.body(n.body)
            if not self.b.block.is_terminated:
                self.flush()
                self.settle_rstack(rslots, "a BEGIN loop", n.pos)
                self.slots_back_edge()
                self.back_edge(head, n.pos, tiles0)
        elif n.kind == "until":
            self.body(n.body)
            if not self.b.block.is_terminated:
                flag = self.pop(1)[0]
                self.flush()
                self.settle_rstack(rslots, "a BEGIN loop", n.pos)
                self.slots_back_edge()
                again = self.new_block("until")
                self.b.cbranch(self.b.icmp_signed("!=", flag, c64(0)), exit_bb, again)
                self.b.position_at_end(again)
                self.back_edge(head, n.pos, tiles0)
        else:
            self.body(n.body)
            if not self.b.block.is_terminated:
                self.flush()
                self.settle_rstack(rslots, "a BEGIN loop", n.pos)
                self.slots_back_edge()
                self.back_edge(head, n.pos, tiles0)
        self.scope.unlooped = unlooped  # a path that UNLOOPs ends in EXIT
        self.scope.begins.pop()
        self.scope.rstack[:] = rslots
        self.b.position_at_end(exit_bb)
        self.dguar, self.fguar = guar
        self.tstack = exit_tiles
        self.forget_sp()
        self.slots_close()

    def literal_step(self, n: Do) -> int | None:
        """A DO loop's step when it is a compile-time literal: 1 for LOOP; for +LOOP the literal that
        ends the body (`16 +LOOP`), unless a line's literal read at launch (linekey.py)."""
        if not n.plus:
            return 1
        last = n.body[-1] if n.body else None
        if type(last) is not Lit or (self.line is not None and id(last) in self.line.lit_slot):
            return None
        return last.value

    def narrow_loop(self, n: Do, start: ir.Value, limit: ir.Value) -> bool:
        """Count this loop in i32 (where the target prefers it, Target.narrow_loops): its
        bounds' ranges prove every index fits (ranges.py)."""
        if not self.target.narrow_loops:
            return False
        step = self.literal_step(n)
        lo, hi = value_range(start), value_range(limit)
        if lo is not None and hi is not None and lo[0] == lo[1] and hi[0] == hi[1] and step:
            trips = (hi[0] - lo[0]) // step if (hi[0] - lo[0]) * step > 0 else 0
            if trips <= SHORT_LOOP:  # LLVM unrolls it whole: its indices become constants, and
                return False          # an i32 index there only hides alignments from the load vectorizer
        return loop_fits_32(lo, hi, step, n.query)

    def visit_Do(self, n: Do) -> None:
        limit, start = self.pop(2)
        self.flush()
        entry = self.slots_snapshot()
        narrow = self.narrow_loop(n, start, limit)
        ity = I32 if narrow else I64
        idx = self.alloca(ity, "i")
        lim = self.alloca(ity, "lim")
        self.b.store(self.b.trunc(start, I32) if narrow else start, idx)
        self.b.store(self.b.trunc(limit, I32) if narrow else limit, lim)
        guar = self.loop_guar(n.body + ([_DROP_FLAG] if n.plus else []))
        self.dguar, self.fguar = guar
        tiles0 = list(self.tstack)
        body_bb, exit_bb = self.new_block("do"), self.new_block("loopexit")
        if n.query:
            self.b.cbranch(self.b.icmp_signed("==", start, limit), exit_bb, body_bb)
        else:
            self.b.branch(body_bb)
        self.b.position_at_end(body_bb)
        self.forget_sp()
        self.slots_open(entry)
        rslots = list(self.scope.rstack)
        self.scope.loops.append(LoopFrame(idx, lim, exit_bb, rslots, tiles0, narrow))
        unlooped = self.scope.unlooped
        self.body(n.body)
        self.scope.unlooped = unlooped  # a path that UNLOOPs ends in EXIT
        self.scope.loops.pop()
        if not self.b.block.is_terminated:
            self.settle_rstack(rslots, "DO ... LOOP", n.pos)
            i = self.b.load(idx, typ=ity)
            if n.plus:
                step = self.pop(1)[0]
                self.flush()
                if narrow:  # the step is the literal narrow_loop saw (the body's last node pushed it)
                    assert isinstance(step, ir.Constant) and step.constant == self.literal_step(n), step
                    step = ir.Constant(I32, step.constant)
                old = self.b.sub(i, self.b.load(lim, typ=ity))
                new = self.b.add(old, step)
                self.b.store(self.b.add(i, step), idx)
                # gforth's rule: leave when the boundary between limit-1 and limit is crossed
                crossed = self.b.and_(self.b.xor(old, new), self.b.xor(old, step))
                done = self.b.icmp_signed("<", crossed, ir.Constant(ity, 0))
            else:
                self.flush()
                i1 = self.b.add(i, ir.Constant(ity, 1))
                self.b.store(i1, idx)
                done = self.b.icmp_signed("==", i1, self.b.load(lim, typ=ity))
            self.slots_back_edge()
            again = self.new_block("loop")
            self.b.cbranch(done, exit_bb, again)
            self.b.position_at_end(again)
            self.back_edge(body_bb, n.pos, tiles0)
        self.b.position_at_end(exit_bb)
        self.scope.rstack[:] = rslots
        self.dguar, self.fguar = guar
        self.tstack = tiles0
        self.forget_sp()
        self.slots_close()

    def visit_Exit(self, n: Exit) -> None:
        if self.scope.exit is None:
            raise ForthError("EXIT is only allowed inside a colon definition", n.pos, "EXIT")
        if self.scope.rstack:
            raise ForthError("EXIT with values on the return stack: move them back with R> first",
                             n.pos, "EXIT")
        self.flush()
        self.scope.exit()

    # ---- calls -------------------------------------------------------------
    def call(self, word: "Colon") -> None:
        eff: Effect = word.effect
        if self.inline_suspending and word.suspends:
            if _has_labels(word):
                raise ForthError(f"{word.name} has jumps made by CS-ROLL or CS-PICK and waits for the warp or the "
                                 "block (a BARRIER or a tile operation): a word that waits is copied into the "
                                 "kernel, which its jumps cannot be; keep the jumps in a word of their own",
                                 self.pos, word.name)
            if not self.inlining_suspending:  # the outermost one: its size counts what it inlines
                self.inlined_size += word.inline_size(suspending=True)
                if self.inlined_size > INLINE_MAX:
                    raise ForthError(
                        f"{word.name} would be too large once inlined: it reaches a BARRIER or a tile operation, "
                        f"so it and every word it calls are copied into the kernel, which would reach "
                        f"{self.inlined_size} nodes, more than {INLINE_MAX}; repeat the suspending words with a "
                        "loop (DO ... LOOP, BEGIN ... UNTIL) instead of nesting words that call them twice",
                        self.pos, word.name)
            self.inlining_suspending += 1
            try:
                self.inline(word)
            finally:
                self.inlining_suspending -= 1
            return
        if (word.small or (DEBUG.on and not word.recursive)) and not _has_labels(word):
            self.inline(word)
            return
        self.flush()
        if eff.static:
            self.ensure_d(eff.dmust)
            self.ensure_f(eff.fmust)
        fn = self.word_fn(word)
        self.count_call()
        self.save_steps()
        ok = self.b.call(fn, self.env.args())
        self.check_ok(ok)
        self.load_steps()
        self.forget_sp()
        if self.checked and frees_heap(word):
            self.forget_range()
        if eff.static:
            self.dguar += eff.dnet
            self.fguar += eff.fnet
            self.retag_results(word)
        else:
            self.dguar = self.fguar = 0

    # ---- the spaces of what the stack's memory holds, around loops (slottags.py) -----------------
    def slots_snapshot(self) -> tuple | None:
        st = self.dstack
        return None if st.slots is None or st.sp_val is None else st.slots.snapshot(st.sp_val)

    def slots_open(self, snap: tuple | None) -> None:
        if self.dstack.slots is not None:
            self.dstack.slots.open_loop(snap if snap is not None else (None, None, {}))

    def slots_back_edge(self) -> None:
        st = self.dstack
        if st.slots is not None:
            st.slots.back_edge(st.sp_val)

    def slots_close(self) -> None:
        if self.dstack.slots is not None:
            self.dstack.slots.close_loop()

    def retag_results(self, word: "Colon") -> None:
        """After a call: the results whose memory the callee's body shows (spaces.py) are read
        back into the stack cache, tagged, so that accesses through them use that address space."""
        spaces = result_spaces(word)
        k = len(spaces)
        while k and spaces[len(spaces) - k] is None:  # the deepest tagged result and those above it
            k -= 1
        if not k or k > self.dguar:
            return
        vals = self.pop(k)
        self.push(*(self.tag(v, s) for v, s in zip(vals, spaces[len(spaces) - k:])))

    def visit_Recurse(self, n: Recurse) -> None:
        self.flush()
        self.counted_call(self.word_fn(n.word), [], frees=frees_heap(n.word))

    def counted_call(self, fn: ir.Function, extra: list[ir.Value], frees: bool = True) -> None:
        """A call that may recurse (RECURSE, EXECUTE): its depth is bounded by
        the backend's limit and the stack left, and it counts as a step; `frees`: it
        may FREE or RESIZE (EXECUTE may: the range cache is emptied after it)."""
        depth_p = self.target.thr_slot(self, L.T_DEPTH)
        d = self.b.load(depth_p, typ=I64)
        limit_p = self.b.gep(self.env.ctx, [c64(L.CTX_RECURSION_MAX)], source_etype=I64)
        limit = self.b.load(limit_p, typ=I64)  # each backend sets its own (its stack's size)
        self.fail_if(self.b.icmp_signed(">=", d, limit), L.E_RECURSION, aux=limit)
        self.target.check_stack(self, d)  # and by the bytes of stack left, where the target knows them
        self.b.store(self.b.add(d, c64(1)), depth_p)
        self.count_call()
        self.save_steps()
        ok = self.b.call(fn, self.env.args() + extra)
        self.check_ok(ok)
        self.load_steps()
        if self.checked and frees:
            self.forget_range()
        d2 = self.b.load(depth_p, typ=I64)
        self.b.store(self.b.sub(d2, c64(1)), depth_p)
        self.forget_sp()
        self.dguar = self.fguar = 0

    def inline(self, word: "Colon") -> None:
        """Emit a word's body in place: words that suspend must be (calls
        cannot suspend inside a coroutine), and small words are cheaper so.
        A word without EXIT has one way out, so its body simply continues the
        caller's code, stack cache and all: inlining it costs nothing."""
        if not any(isinstance(n, Exit) for n in walk(word.body)):
            self._inline_straight(word)
            return
        self.flush()
        eff = word.effect
        if eff.static:
            self.ensure_d(eff.dmust)
            self.ensure_f(eff.fmust)
        self.check_tile_inputs(word)
        end_bb = self.new_block(f"end_{word.ir_name}")
        ends: list[tuple[int, int, tuple]] = []

        def do_exit() -> None:
            ends.append(self.state())
            self.b.branch(end_bb)

        with self._inlined(word, do_exit):
            if not self.b.block.is_terminated:
                self.flush()
                self.check_rstack_at_end(word)
                do_exit()
        self.b.position_at_end(end_bb)
        if ends:
            self.join(ends, f"{word.name} (with EXIT)", word.pos)
        else:
            self.b.unreachable()

    def _inline_straight(self, word: "Colon") -> None:
        """Inline a word that has no EXIT: the caller's cached values stay in
        registers; only what the cache cannot supply must be in memory."""
        eff = word.effect
        if eff.static:
            self.ensure_d(max(0, eff.dmust - len(self.dstack.cache)))
            self.ensure_f(max(0, eff.fmust - len(self.fstack.cache)))
        self.check_tile_inputs(word)
        with self._inlined(word, None):
            if not self.b.block.is_terminated:
                self.check_rstack_at_end(word)

    @contextmanager
    def _inlined(self, word: "Colon", exit: Callable[[], None] | None) -> Iterator[None]:
        """Emit `word`'s body in place, in a scope of its own (EXIT calls `exit`);
        errors inside a prelude word point at its caller. The caller's scope and
        position come back after the block."""
        saved = self.scope, self.word_name, self.pos, self.pinned
        self.scope = Scope(word.name, exit=exit)
        if word.prelude:
            self.pinned += 1
        else:
            self.word_name = word.name
        self.body(word.body)
        yield
        self.scope, self.word_name, self.pos, self.pinned = saved

    def check_tile_inputs(self, word: "Colon") -> None:
        """A word's inferred tile effect, checked where it is called."""
        if word.tile_effect is None or self.tile_holes:
            return
        needs = word.tile_effect[0]
        top = self.tstack[len(self.tstack) - len(needs):] if needs else []
        ok = len(self.tstack) >= len(needs) and all(
            resolve(n) is n or same_tile(resolve(n), resolve(t)) for n, t in zip(needs, top))
        if not ok:
            want = detailed([resolve(n) for n in needs])
            have = detailed(self.tstack[self.tiles_shown_from():]) if self.tstack else "empty"
            raise ForthError(f"{word.name} expects {want} on the tile stack, but it is {have}",
                             self.pos, word.name)

    def check_rstack_at_end(self, word: "Colon") -> None:
        if self.scope.rstack:
            raise ForthError(f"{word.name} leaves values on the return stack: balance >R with R>",
                             word.pos, word.name)


_DROP_FLAG = DropFlag()  # the flag UNTIL/WHILE/+LOOP consumes, for effect analysis


def emit_word_function(word: "Colon", gen_factory: Callable[[ir.Function, ir.Block], Gen],
                       module: ir.Module) -> ir.Function:
    """Define `word` as `i1 @name(ctx, thr, ds, dsp, fs, fsp)` in `module`."""
    fn = declare(module, word.ir_name, WORD_FNTY)
    fn.linkage = "internal"
    entry = fn.append_basic_block("entry")
    fail_bb = fn.append_basic_block("fail")
    ir.IRBuilder(fail_bb).ret(ir.Constant(I1, 0))
    g = gen_factory(fn, fail_bb)
    g.b.position_at_end(entry)
    g.env.add_registers(g.b)
    g.word_name = word.name
    g.pos = word.pos

    def do_exit() -> None:
        g.save_steps()
        g.b.ret(ir.Constant(I1, 1))

    g.scope = Scope(word.name, exit=do_exit)
    eff = word.effect
    if eff.static:  # callers check the inputs before the call
        g.dguar, g.fguar = eff.dmust, eff.fmust
    g.body(word.body)
    if not g.b.block.is_terminated:
        g.flush()
        g.check_rstack_at_end(word)
        do_exit()
    return fn
