"""Primitive device words: one registry of (name, stack effect, emitter, help).

The same table feeds the compiler (emitters and effects), `HELP`, completion
and docs/words.md. Every primitive is registered the same way, by `prim`, and
has one emitter signature, `emit(g, node)`: it drives the generator `g` for
the tree node `node` (a `Prim`, whose `.arg` holds a literal or a setting the
interpreter attached). Most primitives are pure functions of the cells and
floats they pop; `cells`, `floats` and `stacks` build their emitters, so the
table stays one line a word. The tile words (tileforth/core/compile/tilegen.py) are added by an
explicit `tilegen.install(REGISTRY)` at the end of this module, the warp words
(tileforth/core/compile/warpgen.py) by `warpgen.install(REGISTRY)` after the atomics.

Words that can be written in Forth are in prelude.fth instead.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from llvmlite import ir

from ..errors import ForthError
from ..front.effects import DYNAMIC, Effect
from .primitive import Emit, Registry
from . import floatwords, heapgen, mbarrier, smem, tilegen, tma, warpgen, wgmma, xtgen
from . import layout as L
from .codegen import F16, F32, F64, I8, I16, I32, I64, I128, c64, fconvert, float_bits

if TYPE_CHECKING:
    from ..front.tree import Prim
    from .codegen import Gen

def stacks(fn: Callable[["Gen", list[ir.Value], list[ir.Value]], tuple[list[ir.Value], list[ir.Value]]]) -> Emit:
    """The emitter of a pure primitive: fn(g, cells, floats) -> (cells, floats),
    with the counts its effect names popped (bottom first) and the results pushed."""
    def emit(g: "Gen", n: "Prim") -> None:
        p = n.prim
        ints = g.pop(p.ins)
        fl = g.fpop(p.fins)
        outs, fouts = fn(g, ints, fl)
        if p.address_arith:
            a, b = (g.space_of(v) for v in ints)
            g.tag(outs[0], a if b is None else b if a is None and p.address_arith == "sum" else None)
        g.push(*outs)
        g.fpush(*fouts)
    return emit


def cells(fn: Callable[..., list[ir.Value]]) -> Emit:
    """A primitive on cells only: fn(g, *cells) -> list of cells."""
    return stacks(lambda g, a, f: (fn(g, *a), []))


def floats(fn: Callable[..., list[ir.Value]]) -> Emit:
    """A primitive on floats only: fn(g, *floats) -> list of floats."""
    return stacks(lambda g, a, f: ([], fn(g, *f)))


REGISTRY = Registry()
TABLE = REGISTRY.table
prim = REGISTRY.prim
group = REGISTRY.group


group("Stack")
# ---- stack ----------------------------------------------------------------
prim("DUP", "( x -- x x )", "Duplicate the top cell.", "5 DUP . . \\ 5 5", cells(lambda g, a: [a, a]))
prim("DROP", "( x -- )", "Discard the top cell.", "1 2 DROP . \\ 1", cells(lambda g, a: []))
prim("SWAP", "( x1 x2 -- x2 x1 )", "Exchange the top two cells.", "1 2 SWAP . . \\ 1 2",
     cells(lambda g, a, b: [b, a]))
prim("OVER", "( x1 x2 -- x1 x2 x1 )", "Copy the second cell to the top.", "1 2 OVER . \\ 1",
     cells(lambda g, a, b: [a, b, a]))
prim("ROT", "( x1 x2 x3 -- x2 x3 x1 )", "Rotate the third cell to the top.", "1 2 3 ROT . \\ 1",
     cells(lambda g, a, b, c: [b, c, a]))


def _pick_effect(n: "Prim") -> Effect:
    if n.arg is None:
        return DYNAMIC
    k = int(n.arg)
    return Effect(True, k + 1, 1, 0, 0)


def _roll_effect(n: "Prim") -> Effect:
    if n.arg is None:
        return DYNAMIC
    return Effect(True, int(n.arg) + 1, 0, 0, 0)


def _count_loop(g: "Gen", start: ir.Value, end: ir.Value, body: Callable[[ir.Value], None], name: str) -> None:
    """Emit `for i in [start, end): body(i)`: a loop over cells (PICK/ROLL's shift, N>R's copies, .S)."""
    head, loop, done = g.new_block(name), g.new_block(name + "body"), g.new_block(name + "done")
    entry = g.b.block
    g.b.branch(head)
    g.b.position_at_end(head)
    i = g.b.phi(I64)
    i.add_incoming(start, entry)
    g.b.cbranch(g.b.icmp_signed("<", i, end), loop, done)
    g.b.position_at_end(loop)
    body(i)
    i.add_incoming(g.b.add(i, c64(1)), g.b.block)
    g.b.branch(head)
    g.b.position_at_end(done)


def _depth_operand(g: "Gen", count: bool = False) -> tuple[ir.Value, ir.Value]:
    """Pop a computed depth u for PICK/ROLL (check 0 <= u < depth at run time),
    or a count of cells for N>R (0 <= u <= depth)."""
    u = g.pop(1)[0]
    g.flush()
    sp = g._dsp()
    g.fail_if(g.b.or_(g.b.icmp_signed("<", u, c64(0)), g.b.icmp_signed(">" if count else ">=", u, sp)),
              L.E_UNDERFLOW, aux=u)
    return sp, u


@prim("PICK", "( xu ... x0 u -- xu ... x0 xu )", "Copy the u-th cell below u to the top (0 PICK is DUP).",
      "1 2 3 2 PICK . \\ 1", static_effect=_pick_effect, takes_literal=True)
def _pick(g: "Gen", n: "Prim") -> None:
    if n.arg is not None:
        k = int(n.arg)
        vals = g.pop(k + 1)
        g.push(*vals, vals[0])
        return
    sp, u = _depth_operand(g)
    p = g.b.gep(g.env.ds, [g.b.sub(g.b.sub(sp, c64(1)), u)], source_etype=I64)
    g.push(g.b.load(p, typ=I64))
    g.dguar = 0


@prim("ROLL", "( xu xu-1 ... x0 u -- xu-1 ... x0 xu )", "Move the u-th cell to the top (1 ROLL is SWAP).",
      "1 2 3 2 ROLL . \\ 1", static_effect=_roll_effect, takes_literal=True)
def _roll(g: "Gen", n: "Prim") -> None:
    if n.arg is not None:
        k = int(n.arg)
        vals = g.pop(k + 1)
        g.push(*vals[1:], vals[0])
        return
    sp, u = _depth_operand(g)
    first = g.b.sub(g.b.sub(sp, c64(1)), u)
    top = g.b.sub(sp, c64(1))
    x = g.b.load(g.b.gep(g.env.ds, [first], source_etype=I64), typ=I64)

    def shift(i: ir.Value) -> None:  # each cell above the rolled one moves down
        v = g.b.load(g.b.gep(g.env.ds, [g.b.add(i, c64(1))], source_etype=I64), typ=I64)
        g.b.store(v, g.b.gep(g.env.ds, [i], source_etype=I64))
    _count_loop(g, first, top, shift, "roll")
    g.b.store(x, g.b.gep(g.env.ds, [top], source_etype=I64))
    g.dguar = 0


@prim("?DUP", "( x -- 0 | x x )", "Duplicate the top cell if it is not zero.", "5 ?DUP . . \\ 5 5",
      dynamic=True)
def _qdup(g: "Gen", n: "Prim") -> None:
    x = g.pop(1)[0]
    g.push(x)
    g.flush()
    nz, done = g.new_block("qdup"), g.new_block("qdupdone")
    g.b.cbranch(g.b.icmp_signed("!=", x, c64(0)), nz, done)
    g.b.position_at_end(nz)
    g.push(x)
    g.flush()
    g.b.branch(done)
    g.b.position_at_end(done)
    g.forget_sp()
    g.dguar = 0


@prim("DEPTH", "( -- +n )", "The number of cells on the data stack (of this thread).",
      "1 2 DEPTH . \\ 2", static_effect=lambda n: Effect(True, 0, 1, 0, 0))
def _depth(g: "Gen", n: "Prim") -> None:
    g.flush()
    g.push(g._dsp())


group("Return stack and loops")
# Words that work on the definition they are compiled into (its return stack, its DO loops):
# they have no meaning of their own, so EXECUTE refuses their tokens (and the host walks them).
LOOP_WORDS = {"I": 1, "J": 2, "K": 3}  # how many enclosing DO loops each needs
RSTACK_WORDS = frozenset({">R", "R>", "R@", "2>R", "2R>", "2R@", "N>R", "NR>", "UNLOOP", "F>R", "FR>", "FR@"})

# ---- return stack (compile-time slots; balanced within a definition) ------------
@prim(">R", "( x -- ) ( R: -- x )", "Move the top cell to the return stack.", ": f >R 1 R> ; 5 f . . \\ 5 1")
def _to_r(g: "Gen", n: "Prim") -> None:
    v = g.pop(1)[0]
    slot = g.alloca(I64, "r")
    g.b.store(v, slot)
    g.scope.rstack.append(slot)


def _need_r(g: "Gen", n: "Prim", word: str) -> ir.Value:
    if not g.scope.rstack:
        raise ForthError(f"{word} needs a value on the return stack: put one there with >R first",
                         n.pos, word)
    return g.scope.rstack[-1]


@prim("R>", "( -- x ) ( R: x -- )", "Move the top of the return stack to the data stack.",
      ": f >R 1 R> ; 5 f . . \\ 5 1")
def _r_from(g: "Gen", n: "Prim") -> None:
    slot = _need_r(g, n, "R>")
    g.scope.rstack.pop()
    g.push(g.b.load(slot, typ=I64))


@prim("R@", "( -- x ) ( R: x -- x )", "Copy the top of the return stack.", ": f >R R@ R> + ; 5 f . \\ 10")
def _r_fetch(g: "Gen", n: "Prim") -> None:
    g.push(g.b.load(_need_r(g, n, "R@"), typ=I64))


def _float_bits(g: "Gen") -> ir.IntType:
    return ir.IntType(g.machine.float_bits)


@prim("F>R", "( F: r -- ) ( R: -- r )", "Move the top float to the return stack (one cell there; FFL's and "
      "later gforths' word).", ": f F>R 1e FR> F+ ; 2e f F. \\ 3.")
def _f_to_r(g: "Gen", n: "Prim") -> None:
    (r,) = g.fpop(1)
    slot = g.alloca(I64, "r")
    bits = g.b.bitcast(r, _float_bits(g))
    g.b.store(bits if g.machine.float_bits == 64 else g.b.zext(bits, I64), slot)
    g.scope.rstack.append(slot)


def _load_float(g: "Gen", slot: ir.Value) -> ir.Value:
    cell = g.b.load(slot, typ=I64)
    bits = cell if g.machine.float_bits == 64 else g.b.trunc(cell, _float_bits(g))
    return g.b.bitcast(bits, g.float_t)


@prim("FR>", "( F: -- r ) ( R: r -- )", "Move the float F>R put on the return stack back to the float stack.",
      ": f F>R 1e FR> F+ ; 2e f F. \\ 3.")
def _f_r_from(g: "Gen", n: "Prim") -> None:
    slot = _need_r(g, n, "FR>")
    g.scope.rstack.pop()
    g.fpush(_load_float(g, slot))


@prim("FR@", "( F: -- r ) ( R: r -- r )", "Copy the float F>R put on the return stack to the float stack.",
      ": f F>R FR@ FR> F+ ; 2e f F. \\ 4.")
def _f_r_fetch(g: "Gen", n: "Prim") -> None:
    g.fpush(_load_float(g, _need_r(g, n, "FR@")))


@prim("2>R", "( x1 x2 -- ) ( R: -- x1 x2 )", "Move the top two cells to the return stack, x2 on top "
      "(a double-cell number keeps its order).", ": f 2>R 3 2R> ; 1 2 f . . . \\ 2 1 3")
def _two_to_r(g: "Gen", n: "Prim") -> None:
    for v in g.pop(2):
        slot = g.alloca(I64, "r")
        g.b.store(v, slot)
        g.scope.rstack.append(slot)


def _need_r2(g: "Gen", n: "Prim", word: str) -> list[ir.Value]:
    if len(g.scope.rstack) < 2:
        raise ForthError(f"{word} needs two values on the return stack: put them there with 2>R first",
                         n.pos, word)
    return g.scope.rstack[-2:]


@prim("2R>", "( -- x1 x2 ) ( R: x1 x2 -- )", "Move the top two cells of the return stack to the data stack.",
      ": f 2>R 3 2R> ; 1 2 f . . . \\ 2 1 3")
def _two_r_from(g: "Gen", n: "Prim") -> None:
    slots = _need_r2(g, n, "2R>")
    del g.scope.rstack[-2:]
    g.push(*(g.b.load(s, typ=I64) for s in slots))


@prim("2R@", "( -- x1 x2 ) ( R: x1 x2 -- x1 x2 )", "Copy the top two cells of the return stack.",
      ": f 2>R 2R@ 2R> D+ ; 1 0 f . . \\ 0 2")
def _two_r_fetch(g: "Gen", n: "Prim") -> None:
    g.push(*(g.b.load(s, typ=I64) for s in _need_r2(g, n, "2R@")))


def _copy_cells(g: "Gen", dst: ir.Value, src: ir.Value, count: ir.Value) -> None:
    """Copy `count` cells from src to dst (i64 pointers), lowest first."""
    def copy(i: ir.Value) -> None:
        g.b.store(g.b.load(g.b.gep(src, [i], source_etype=I64), typ=I64), g.b.gep(dst, [i], source_etype=I64))
    _count_loop(g, c64(0), count, copy, "copy")


NR_MAX = 128  # the cells one N>R moves at most (a frame of its own on the thread's native stack)


@prim("N>R", "( i*x +n -- ) ( R: -- i*x +n )", "Move n cells (at most 128) and n to the return stack, for "
      "NR> in the same definition to bring back.", ": f N>R -1 NR> ; 1 2 2 f . . . . \\ 2 2 1 -1", dynamic=True)
def _n_to_r(g: "Gen", n: "Prim") -> None:
    sp, count = _depth_operand(g, count=True)
    # more than NR_MAX cells: return stack overflow (THROW -5), which the frame's size is
    g.fail_if(g.b.icmp_signed(">", count, c64(NR_MAX)), L.E_THROW, addr=c64(-1), aux=c64(-5))
    cells = g.alloca(ir.ArrayType(I64, NR_MAX), "nr")
    base = g.b.sub(sp, count)
    _copy_cells(g, g.b.bitcast(cells, I64.as_pointer()), g.b.gep(g.env.ds, [base], source_etype=I64), count)
    g.dstack.sp_val, g.dstack.dirty, g.dguar = base, True, 0
    slot = g.alloca(I64, "r")
    g.b.store(count, slot)
    g.scope.rstack.append(slot)
    g.scope.nblocks[id(slot)] = cells


@prim("NR>", "( -- i*x +n ) ( R: i*x +n -- )", "Bring back the cells and the count the last N>R moved.",
      ": f N>R -1 NR> ; 1 2 2 f . . . . \\ 2 2 1 -1", dynamic=True)
def _n_r_from(g: "Gen", n: "Prim") -> None:
    slot = _need_r(g, n, "NR>")
    cells = g.scope.nblocks.get(id(slot))
    if cells is None:
        raise ForthError("NR> needs what N>R put on the return stack, but the top of the return stack was "
                         "put there by >R", n.pos, "NR>")
    g.scope.rstack.pop()
    count = g.b.load(slot, typ=I64)
    g.flush()
    sp = g._dsp()
    g.fail_if(g.b.icmp_signed(">", g.b.add(sp, count), c64(g.machine.ds_max - 1)), L.E_OVERFLOW)
    _copy_cells(g, g.b.gep(g.env.ds, [sp], source_etype=I64), g.b.bitcast(cells, I64.as_pointer()), count)
    g.dstack.sp_val, g.dstack.dirty, g.dguar = g.b.add(sp, count), True, 0
    g.push(count)


def _loop_index(depth: int, word: str) -> Emit:
    def emit(g: "Gen", n: "Prim") -> None:
        k = depth + g.scope.unlooped  # after UNLOOP, I is the next outer loop's index
        if len(g.scope.loops) < k:
            raise ForthError(f"{word} needs {depth} enclosing DO loop(s) in the same definition"
                             + (" (UNLOOP has discarded one)" if g.scope.unlooped else ""), n.pos, word)
        g.push(g.scope.loops[-k].read(g.b))
    return emit


_LOOP_EXAMPLES = {  # each shows its own index: I the inner loop's, J the next outer's, K the third's
    "I": "3 0 DO I . LOOP \\ 0 1 2",
    "J": ": f 3 0 DO 2 0 DO J . LOOP LOOP ; f \\ 0 0 1 1 2 2",
    "K": ": f 2 0 DO 2 0 DO 2 0 DO K . LOOP LOOP LOOP ; f \\ 0 0 0 0 1 1 1 1",
}
for _d, _w in ((1, "I"), (2, "J"), (3, "K")):
    prim(_w, "( -- n )", f"The index of the {['innermost', 'next outer', 'third'][_d - 1]} DO loop.",
         _LOOP_EXAMPLES[_w], _loop_index(_d, _w))


@prim("UNLOOP", "( -- )", "Discard the loop control before EXIT inside a DO loop.",
      ": f 10 0 DO I 3 = IF I UNLOOP EXIT THEN LOOP 0 ; f . \\ 3")
def _unloop(g: "Gen", n: "Prim") -> None:
    if len(g.scope.loops) <= g.scope.unlooped:
        raise ForthError("UNLOOP is only allowed inside DO ... LOOP (once per loop)", n.pos, "UNLOOP")
    g.scope.unlooped += 1


group("Integer arithmetic")
# ---- integer arithmetic -----------------------------------------------------------
prim("+", "( n1 n2 -- n3 )", "Add.", "2 3 + . \\ 5", cells(lambda g, a, b: [g.b.add(a, b)]), address_arith="sum")
prim("-", "( n1 n2 -- n3 )", "Subtract n2 from n1.", "5 3 - . \\ 2", cells(lambda g, a, b: [g.b.sub(a, b)]),
     address_arith="difference")
prim("*", "( n1 n2 -- n3 )", "Multiply.", "6 7 * . \\ 42", cells(lambda g, a, b: [g.b.mul(a, b)]))
# MIN and MAX are Forth by nature (prelude.fth says how), but one select each here compiles a line
# faster at the prompt than their eight-word branch-free Forth versions (same code after O2)
prim("MIN", "( n1 n2 -- n3 )", "The smaller of two numbers.", "3 5 MIN . \\ 3",
     cells(lambda g, a, b: [g.b.select(g.b.icmp_signed("<", a, b), a, b)]))
prim("MAX", "( n1 n2 -- n3 )", "The larger of two numbers.", "3 5 MAX . \\ 5",
     cells(lambda g, a, b: [g.b.select(g.b.icmp_signed(">", a, b), a, b)]))
prim("2/", "( x -- x/2 )", "Arithmetic shift right by one bit (rounds toward -infinity).",
     "-5 2/ . \\ -3", cells(lambda g, a: [g.b.ashr(a, c64(1))]))
prim("AND", "( x1 x2 -- x3 )", "Bitwise and.", "12 10 AND . \\ 8", cells(lambda g, a, b: [g.b.and_(a, b)]))
prim("OR", "( x1 x2 -- x3 )", "Bitwise or.", "12 10 OR . \\ 14", cells(lambda g, a, b: [g.b.or_(a, b)]))
prim("XOR", "( x1 x2 -- x3 )", "Bitwise exclusive or.", "12 10 XOR . \\ 6", cells(lambda g, a, b: [g.b.xor(a, b)]))


def _shift(op: str) -> Callable:
    def f(g: "Gen", x: ir.Value, u: ir.Value) -> list[ir.Value]:
        big = g.b.icmp_unsigned(">=", u, c64(64))
        safe = g.b.select(big, c64(0), u)
        r = g.b.shl(x, safe) if op == "shl" else g.b.lshr(x, safe)
        return [g.b.select(big, c64(0), r)]
    return f


prim("LSHIFT", "( x u -- x' )", "Logical shift left by u bits (0 when u >= 64).", "1 4 LSHIFT . \\ 16",
     cells(_shift("shl")))
prim("RSHIFT", "( x u -- x' )", "Logical shift right by u bits (0 when u >= 64).", "16 2 RSHIFT . \\ 4",
     cells(_shift("lshr")))


def _floor(g: "Gen", q: ir.Value, r: ir.Value, d: ir.Value) -> tuple[ir.Value, ir.Value]:
    """A truncating quotient and remainder made floored: when the remainder is not 0 and its sign is
    not the divisor's, the quotient is one less and the divisor is added to the remainder."""
    zero = ir.Constant(q.type, 0)
    adj = g.b.and_(g.b.icmp_signed("!=", r, zero),
                   g.b.icmp_signed("!=", g.b.icmp_signed("<", r, zero), g.b.icmp_signed("<", d, zero)))
    return g.b.select(adj, g.b.sub(q, ir.Constant(q.type, 1)), q), g.b.select(adj, g.b.add(r, d), r)


def _divmod(g: "Gen", a: ir.Value, d: ir.Value) -> tuple[ir.Value, ir.Value]:
    """Floored division, as gforth's `/MOD` (the standard lets a system choose; gforth floors). MIN / -1,
    whose quotient 2^63 does not fit a cell, fails as gforth's does: result out of range (-11; the
    division error's aux 2)."""
    g.fail_if(g.b.icmp_signed("==", d, c64(0)), L.E_DIV0)
    m1 = g.b.icmp_signed("==", d, c64(-1))
    g.fail_if(g.b.and_(m1, g.b.icmp_signed("==", a, c64(-(1 << 63)))), L.E_DIV0, aux=c64(2))
    safe = g.b.select(m1, c64(1), d)
    q = g.b.select(m1, g.b.neg(a), g.b.sdiv(a, safe))
    r = g.b.select(m1, c64(0), g.b.srem(a, safe))
    return _floor(g, q, r, d)


prim("/MOD", "( n1 n2 -- rem quot )", "Floored division (as gforth): the remainder, with the divisor's sign, "
     "and the quotient, rounded toward negative infinity.",
     "-7 2 /MOD . . \\ -4 1", cells(lambda g, a, b: list(reversed(_divmod(g, a, b)))))


def _wide(g: "Gen", lo: ir.Value, hi: ir.Value) -> ir.Value:
    return g.b.or_(g.b.shl(g.b.sext(hi, I128), ir.Constant(I128, 64)), g.b.zext(lo, I128))


def _div128(g: "Gen", num: ir.Value, d: ir.Value, floored: bool) -> list[ir.Value]:
    """A double (or a product) by a cell. A quotient that does not fit a cell fails as x86-64's idiv
    (and so gforth) does, with the division error (aux 1: the quotient's size, not the divisor)."""
    g.fail_if(g.b.icmp_signed("==", d, c64(0)), L.E_DIV0)
    d128 = g.b.sext(d, I128)
    m1 = g.b.icmp_signed("==", d, c64(-1))
    safe = g.b.select(m1, ir.Constant(I128, 1), d128)
    q = g.b.select(m1, g.b.neg(num), g.b.sdiv(num, safe))
    r = g.b.select(m1, ir.Constant(I128, 0), g.b.srem(num, safe))
    if floored:
        q, r = _floor(g, q, r, d128)
    wide = g.b.icmp_signed("!=", g.b.sext(g.b.trunc(q, I64), I128), q)  # the quotient needs more than a cell
    g.fail_if(wide, L.E_DIV0, aux=c64(1))
    return [g.b.trunc(r, I64), g.b.trunc(q, I64)]


prim("*/MOD", "( n1 n2 n3 -- rem quot )", "n1*n2 (a double-width product) divided by n3: remainder and "
     "quotient; floored, as gforth's.", "-10 3 7 */MOD . . \\ -5 5",
     cells(lambda g, a, b, c: _div128(g, g.b.mul(g.b.sext(a, I128), g.b.sext(b, I128)), c, True)))

group("Double cells")
# ---- double cells: two cells, the low one below, as one i128 (_wide), split back (_split) --------------
prim("SM/REM", "( d n -- rem quot )", "Divide a double-cell number, symmetric (truncating).",
     "-7 S>D 2 SM/REM . . \\ -3 -1", cells(lambda g, lo, hi, n: _div128(g, _wide(g, lo, hi), n, False)))
prim("FM/MOD", "( d n -- rem quot )", "Divide a double-cell number, floored.",
     "-7 S>D 2 FM/MOD . . \\ -4 1", cells(lambda g, lo, hi, n: _div128(g, _wide(g, lo, hi), n, True)))
prim("M*", "( n1 n2 -- d )", "Multiply to a double-cell product.", "3 4 M* . . \\ 0 12",
     cells(lambda g, a, b: _split(g, g.b.mul(g.b.sext(a, I128), g.b.sext(b, I128)))))


def _split(g: "Gen", v: ir.Value) -> list[ir.Value]:
    return [g.b.trunc(v, I64), g.b.trunc(g.b.ashr(v, ir.Constant(I128, 64)), I64)]


def _d2(fn: Callable[["Gen", ir.Value, ir.Value], ir.Value]) -> Emit:
    """A primitive of two doubles to one: fn(g, d1, d2) on the i128 values."""
    return cells(lambda g, a, b, c, d: _split(g, fn(g, _wide(g, a, b), _wide(g, c, d))))


def _dflag(op: str, signed: bool = True) -> Emit:
    """A comparison of two doubles: a flag."""
    cmp = "icmp_signed" if signed else "icmp_unsigned"
    return cells(lambda g, a, b, c, d: [g.flag(getattr(g.b, cmp)(op, _wide(g, a, b), _wide(g, c, d)))])


def _dabs(g: "Gen", d: ir.Value) -> ir.Value:
    return g.b.select(g.b.icmp_signed("<", d, ir.Constant(I128, 0)), g.b.neg(d), d)


def _um_divmod(g: "Gen", lo: ir.Value, hi: ir.Value, u: ir.Value) -> list[ir.Value]:
    """ud / u unsigned. The quotient fits a cell only when hi < u; otherwise (u = 0 among them) it
    fails with the division-by-zero error, as x86-64's div (and so gforth) does; aux says which."""
    g.fail_if(g.b.icmp_unsigned(">=", hi, u), L.E_DIV0, aux=g.b.zext(g.b.icmp_unsigned("!=", u, c64(0)), I64))
    num, den = _wide(g, lo, hi), g.b.zext(u, I128)
    return [g.b.trunc(g.b.urem(num, den), I64), g.b.trunc(g.b.udiv(num, den), I64)]


def _m_star_slash(g: "Gen", lo: ir.Value, hi: ir.Value, n1: ir.Value, n2: ir.Value) -> list[ir.Value]:
    """d*n1/n2 with a triple-cell (192-bit) product, floored as gforth's: two 128/64 unsigned divisions of
    the magnitudes (a cell's width each); a negative quotient with a remainder is one further from zero;
    then the sign. A quotient beyond a double fails as UM/MOD's does."""
    b, zero = g.b, c64(0)
    g.fail_if(b.icmp_signed("==", n2, zero), L.E_DIV0)
    neg = b.xor(b.xor(b.icmp_signed("<", hi, zero), b.icmp_signed("<", n1, zero)), b.icmp_signed("<", n2, zero))
    c64w, mask = ir.Constant(I128, 64), ir.Constant(I128, (1 << 64) - 1)
    ad = _dabs(g, _wide(g, lo, hi))  # |d| <= 2^127: fits unsigned
    u, v = (b.zext(b.select(b.icmp_signed("<", x, zero), b.neg(x), x), I128) for x in (n1, n2))
    p0, p1 = b.mul(b.and_(ad, mask), u), b.mul(b.lshr(ad, c64w), u)
    top = b.add(p1, b.lshr(p0, c64w))  # the product is top * 2^64 + (p0 & mask); top < 2^127
    qh, r1 = b.udiv(top, v), b.urem(top, v)
    low = b.or_(b.shl(r1, c64w), b.and_(p0, mask))
    ql = b.udiv(low, v)  # r1 < v: ql fits a cell
    q = b.or_(b.shl(qh, c64w), ql)
    inexact = b.icmp_unsigned("!=", b.urem(low, v), ir.Constant(I128, 0))
    q = b.add(q, b.zext(b.and_(neg, inexact), I128))  # floored: toward negative infinity
    qh = b.lshr(q, c64w)
    limit = b.add(ir.Constant(I128, (1 << 127) - 1), b.zext(neg, I128))
    g.fail_if(b.or_(b.icmp_unsigned(">", qh, mask), b.icmp_unsigned(">", q, limit)), L.E_DIV0, aux=c64(1))
    return _split(g, b.select(neg, b.neg(q), q))


def _second_cell(g: "Gen", addr: ir.Value) -> ir.Value:
    """addr+CELL, in the address space addr points into."""
    return g.tag(g.b.add(addr, c64(8)), g.space_of(addr))


def _two_cells(g: "Gen", addr: ir.Value, word: str) -> tuple[ir.Value, ir.Value]:
    """Pointers to the cells at addr and addr+CELL, each checked as @ checks its cell."""
    return g.mem_ptr(addr, 8, word), g.mem_ptr(_second_cell(g, addr), 8, word)


def _two_store(g: "Gen", x1: ir.Value, x2: ir.Value, addr: ir.Value) -> list[ir.Value]:
    g.mem_store(x2, addr, 8, "2!")
    g.mem_store(x1, _second_cell(g, addr), 8, "2!")
    return []


prim("D>S", "( d -- n )", "Convert a double-cell number to a cell (the low cell; the value when it fits).",
     "-5 S>D D>S . \\ -5", cells(lambda g, lo, hi: [lo]))
prim("D+", "( d1 d2 -- d3 )", "Add double-cell numbers (the low cells carry into the high ones).",
     "-1 0 1 0 D+ . . \\ 1 0", _d2(lambda g, a, b: g.b.add(a, b)))
prim("D-", "( d1 d2 -- d3 )", "Subtract d2 from d1 (double cells).", "0 1 1 0 D- . . \\ 0 -1",
     _d2(lambda g, a, b: g.b.sub(a, b)))
prim("DNEGATE", "( d1 -- d2 )", "Negate a double-cell number.", "5 0 DNEGATE . . \\ -1 -5",
     cells(lambda g, lo, hi: _split(g, g.b.neg(_wide(g, lo, hi)))))
prim("DABS", "( d -- ud )", "Absolute value of a double-cell number.", "-5 S>D DABS . . \\ 0 5",
     cells(lambda g, lo, hi: _split(g, _dabs(g, _wide(g, lo, hi)))))
prim("D=", "( xd1 xd2 -- flag )", "True (-1) if the double-cell numbers are equal.", "1 2 1 2 D= . \\ -1",
     _dflag("=="))
prim("D<", "( d1 d2 -- flag )", "True (-1) if d1 is less than d2 (signed).", "-1 S>D 0 0 D< . \\ -1",
     _dflag("<"))
prim("DU<", "( ud1 ud2 -- flag )", "True (-1) if ud1 is less than ud2 (unsigned).", "-1 S>D 0 0 DU< . \\ 0",
     _dflag("<", signed=False))
prim("D0=", "( xd -- flag )", "True (-1) if the double-cell number is zero.", "0 0 D0= . \\ -1",
     cells(lambda g, lo, hi: [g.flag(g.b.icmp_signed("==", g.b.or_(lo, hi), c64(0)))]))
prim("D0<", "( d -- flag )", "True (-1) if the double-cell number is negative.", "-5 S>D D0< . \\ -1",
     cells(lambda g, lo, hi: [g.flag(g.b.icmp_signed("<", hi, c64(0)))]))
prim("D2*", "( xd1 -- xd2 )", "Shift a double-cell number left by one bit.", "-1 0 D2* . . \\ 1 -2",
     cells(lambda g, lo, hi: _split(g, g.b.shl(_wide(g, lo, hi), ir.Constant(I128, 1)))))
prim("D2/", "( xd1 -- xd2 )", "Arithmetic shift right of a double-cell number by one bit (rounds toward "
     "-infinity).", "-5 S>D D2/ . . \\ -1 -3",
     cells(lambda g, lo, hi: _split(g, g.b.ashr(_wide(g, lo, hi), ir.Constant(I128, 1)))))
prim("DMAX", "( d1 d2 -- d3 )", "The larger of two double-cell numbers.", "1 0 -1 -1 DMAX . . \\ 0 1",
     _d2(lambda g, a, b: g.b.select(g.b.icmp_signed(">", a, b), a, b)))
prim("DMIN", "( d1 d2 -- d3 )", "The smaller of two double-cell numbers.", "1 0 -1 -1 DMIN . . \\ -1 -1",
     _d2(lambda g, a, b: g.b.select(g.b.icmp_signed("<", a, b), a, b)))
prim("M+", "( d1 n -- d2 )", "Add a cell to a double-cell number.", "-1 0 1 M+ . . \\ 1 0",
     cells(lambda g, lo, hi, n: _split(g, g.b.add(_wide(g, lo, hi), g.b.sext(n, I128)))))
prim("UM*", "( u1 u2 -- ud )", "Multiply unsigned cells to an unsigned double-cell product.",
     "-1 2 UM* . . \\ 1 -2", cells(lambda g, a, b: _split(g, g.b.mul(g.b.zext(a, I128), g.b.zext(b, I128)))))
prim("UM/MOD", "( ud u1 -- u2 u3 )", "Divide an unsigned double by a cell: remainder u2 and quotient u3. A "
     "quotient that does not fit a cell fails like division by zero.", "0 1 3 UM/MOD . . \\ 6148914691236517205 1",
     cells(_um_divmod))
prim("M*/", "( d1 n1 +n2 -- d2 )", "d1*n1/n2 with a triple-cell product; floored, like */ (a negative "
     "n2 divides as signed). A quotient beyond a double fails like division by zero.",
     "-7 S>D 3 2 M*/ D>S . \\ -11", cells(_m_star_slash))
prim("2@", "( addr -- x1 x2 )", "Fetch two cells: x2 from addr, x1 from the next cell (a double as 2! stored it).",
     "CREATE p 1 , 2 , p 2@ . . \\ 1 2",
     cells(lambda g, addr: [g.b.load(p, typ=I64) for p in reversed(_two_cells(g, addr, "2@"))]))
prim("2!", "( x1 x2 addr -- )", "Store two cells: x2 at addr, x1 in the next cell.",
     "CREATE p 2 CELLS ALLOT 1 2 p 2! p @ . \\ 2", cells(_two_store))


group("Comparison")
# ---- comparisons ------------------------------------------------------------------
for _name, _op, _desc in (("=", "==", "equal"), ("<", "<", "less than")):
    prim(_name, "( n1 n2 -- flag )", f"True (-1) if n1 is {_desc} n2 (signed).", f"1 2 {_name} .",
         cells(lambda g, a, b, op=_op: [g.flag(g.b.icmp_signed(op, a, b))]))
prim("U<", "( u1 u2 -- flag )", "Unsigned less than.", "-1 1 U< . \\ 0",
     cells(lambda g, a, b: [g.flag(g.b.icmp_unsigned("<", a, b))]))

group("Floats")
# ---- floats (the float stack's type g.float_t: f32, or f64 in an f64 session) -----------
def _intr(g: "Gen", name: str, *args: ir.Value) -> ir.Value:
    return g.target.math(g, name, list(args))


prim("F+", "( F: r1 r2 -- r3 )", "Add floats.", "1.5e 2e F+ F. \\ 3.5", floats(lambda g, a, b: [g.b.fadd(a, b)]))
prim("F-", "( F: r1 r2 -- r3 )", "Subtract r2 from r1.", "5e 2e F- F. \\ 3.", floats(lambda g, a, b: [g.b.fsub(a, b)]))
prim("F*", "( F: r1 r2 -- r3 )", "Multiply floats.", "2e 3e F* F. \\ 6.", floats(lambda g, a, b: [g.b.fmul(a, b)]))
prim("F/", "( F: r1 r2 -- r3 )", "Divide r1 by r2 (IEEE: division by 0 gives inf).", "1e 4e F/ F. \\ 0.25",
      floats(lambda g, a, b: [g.b.fdiv(a, b)]))
prim("FNEGATE", "( F: r -- -r )", "Negate a float.", "2e FNEGATE F. \\ -2.", floats(lambda g, a: [g.b.fneg(a)]))
prim("FABS", "( F: r -- |r| )", "Absolute value.", "-2e FABS F. \\ 2.", floats(lambda g, a: [_intr(g, "fabs", a)]))
prim("FMAX", "( F: r1 r2 -- r3 )", "The larger float.", "1e 2e FMAX F. \\ 2.",
      floats(lambda g, a, b: [_intr(g, "maxnum", a, b)]))
prim("FMIN", "( F: r1 r2 -- r3 )", "The smaller float.", "1e 2e FMIN F. \\ 1.",
      floats(lambda g, a, b: [_intr(g, "minnum", a, b)]))
for _name, _fn, _ex in (("FSQRT", "sqrt", "2e FSQRT F."), ("FEXP", "exp", "1e FEXP F."),
                        ("FLN", "log", "1e FLN F. \\ 0."), ("FSIN", "sin", "0e FSIN F. \\ 0."),
                        ("FCOS", "cos", "0e FCOS F. \\ 1."), ("FLOOR", "floor", "-1.5e FLOOR F. \\ -2."),
                        ("FROUND", "roundeven", "2.5e FROUND F. \\ 2.")):
    prim(_name, "( F: r1 -- r2 )", f"{_fn} of a float.", _ex,
          floats(lambda g, a, fn=_fn: [_intr(g, fn, a)]))
prim("FDUP", "( F: r -- r r )", "Duplicate the top float.", "1e FDUP F+ F. \\ 2.", floats(lambda g, r: [r, r]))
prim("FDROP", "( F: r -- )", "Discard the top float.", "1e 2e FDROP F. \\ 1.", floats(lambda g, r: []))
prim("FSWAP", "( F: r1 r2 -- r2 r1 )", "Exchange the top two floats.", "1e 2e FSWAP F. \\ 1.",
     floats(lambda g, r1, r2: [r2, r1]))
prim("FOVER", "( F: r1 r2 -- r1 r2 r1 )", "Copy the second float to the top.", "1e 2e FOVER F. \\ 1.",
     floats(lambda g, r1, r2: [r1, r2, r1]))
prim("S>F", "( n -- ) ( F: -- r )", "Convert a cell to a float.", "3 S>F F. \\ 3.",
     stacks(lambda g, a, f: ([], [g.b.sitofp(a[0], g.float_t)])))


def _f_to_s(g: "Gen", a: list, f: list) -> tuple[list, list]:
    fn = g.intrinsic(f"llvm.fptosi.sat.i64.f{g.machine.float_bits}", I64, [g.float_t])
    return [g.b.call(fn, [f[0]])], []


prim("F>S", "( -- n ) ( F: r -- )", "Convert a float to a cell, truncating toward zero.", "-2.7e F>S . \\ -2",
     stacks(_f_to_s))
for _name, _op in (("F<", "<"), ("F=", "==")):
    prim(_name, "( -- flag ) ( F: r1 r2 -- )", f"True if r1 {_op} r2.", f"1e 2e {_name} .",
         stacks(lambda g, a, f, op=_op: ([g.flag(g.b.fcmp_ordered(op, f[0], f[1]))], [])))


group("Memory")
# ---- memory -------------------------------------------------------------------------
def _to_bf16(g: "Gen", x: ir.Value) -> ir.Value:
    """f32 -> bf16 bits, round to nearest even; NaN stays a quiet NaN."""
    bits = g.b.bitcast(x, I32)
    lsb = g.b.and_(g.b.lshr(bits, ir.Constant(I32, 16)), ir.Constant(I32, 1))
    rounded = g.b.lshr(g.b.add(bits, g.b.add(ir.Constant(I32, 0x7FFF), lsb)), ir.Constant(I32, 16))
    nan = g.b.fcmp_unordered("uno", x, x)
    return g.b.trunc(g.b.select(nan, ir.Constant(I32, 0x7FC0), rounded), I16)


def _from_bf16(g: "Gen", v: ir.Value) -> ir.Value:
    return g.b.bitcast(g.b.shl(g.b.zext(v, I32), ir.Constant(I32, 16)), F32)


def _int_mem(name: str, ty: ir.IntType, size: int, signed: bool, what: str, store_too: bool = True) -> None:
    def fetch(g: "Gen", a: list, f: list) -> tuple[list, list]:
        v = g.b.load(g.mem_ptr(a[0], size, name + "@"), typ=ty)
        if ty != I64:
            v = g.b.sext(v, I64) if signed else g.b.zext(v, I64)
        return [v], []

    def store(g: "Gen", a: list, f: list) -> tuple[list, list]:
        x, addr = a
        v = x if ty == I64 else g.b.trunc(x, ty)
        g.mem_store(v, addr, size, name + "!")
        return [], []

    ext = "sign-extended" if signed else "zero-extended"
    fetch_name = "@" if name == "" else f"{name}@"
    store_name = "!" if name == "" else f"{name}!"
    prim(fetch_name, "( addr -- x )", f"Fetch {what} ({ext} to a cell).", f"VARIABLE v 5 v ! v {fetch_name} .",
         stacks(fetch))
    if store_too:
        prim(store_name, "( x addr -- )", f"Store {what} (truncated).", f"VARIABLE v 5 v {store_name}",
             stacks(store))


_int_mem("", I64, 8, True, "a cell (8 bytes, 8-byte aligned)")
_int_mem("C", I8, 1, False, "a byte")
_int_mem("I8", I8, 1, True, "a signed byte")
_int_mem("I16", I16, 2, True, "a signed 16-bit integer (2-byte aligned)")
_int_mem("I32", I32, 4, True, "a signed 32-bit integer (4-byte aligned)")
_int_mem("W", I16, 2, False, "a 16-bit integer (2-byte aligned; gforth's)")
_int_mem("L", I32, 4, False, "a 32-bit integer (4-byte aligned; gforth's)")
_int_mem("SW", I16, 2, True, "a signed 16-bit integer (gforth's; W! stores one)", store_too=False)
_int_mem("SL", I32, 4, True, "a signed 32-bit integer (gforth's; L! stores one)", store_too=False)


def _float_mem(name: str, size: int | None, what: str, load_cv: Callable, store_cv: Callable, ty: ir.Type | None,
               eltype: str) -> None:
    """name@ and name! for what (an array of `eltype` holds such values: the examples use one); a size
    and type of None: the float stack's own (F@ F!)."""
    def fetch(g: "Gen", a: list, f: list) -> tuple[list, list]:
        n = size or g.machine.float_bytes
        return [], [load_cv(g, g.b.load(g.mem_ptr(a[0], n, name + "@"), typ=ty or g.float_t))]

    def store(g: "Gen", a: list, f: list) -> tuple[list, list]:
        g.mem_store(store_cv(g, f[0]), a[0], size or g.machine.float_bytes, name + "!")
        return [], []

    prim(name + "@", "( addr -- ) ( F: -- r )", f"Fetch {what}, converted to the float stack's type.",
         f"1 {eltype} ARRAY a  a {name}@ F. \\ 0.",
         stacks(fetch))
    prim(name + "!", "( addr -- ) ( F: r -- )", f"Store r as {what}.",
         f"1 {eltype} ARRAY a  1.5e a {name}!  a {name}@ F. \\ 1.5", stacks(store))


_float_mem("F", None, "a float of the float stack's type (an f32, 4-byte aligned; an f64 in an f64 session)",
           lambda g, v: v, lambda g, v: v, None, "F32")
_float_mem("DF", 8, "an f64 (8-byte aligned)", lambda g, v: fconvert(g.b, v, g.float_t),
           lambda g, v: fconvert(g.b, v, F64),
           F64, "F64")
_float_mem("HF", 2, "an f16 (2-byte aligned, round to nearest even)", lambda g, v: fconvert(g.b, v, g.float_t),
           lambda g, v: fconvert(g.b, v, F16), F16, "F16")
_float_mem("BF", 2, "a bf16 (2-byte aligned, round to nearest even)",
           lambda g, v: fconvert(g.b, _from_bf16(g, v), g.float_t),
           lambda g, v: _to_bf16(g, fconvert(g.b, v, F32)), I16, "BF16")


def _plus_store(g: "Gen", n: ir.Value, addr: ir.Value) -> list[ir.Value]:
    p = g.mem_ptr(addr, 8, "+!")
    g.b.store(g.b.add(g.b.load(p, typ=I64), n), p)
    return []


prim("+!", "( n addr -- )", "Add n to the cell at addr.", "1 1 1 THREADS VARIABLE v 5 v ! 2 v +! v @ . \\ 7", cells(_plus_store))


group("SIMT")
# ---- SIMT -----------------------------------------------------------------------------
for _axis in "XYZ":
    for _word, _reg, _desc in (("TID", "tid", "thread index in the block"), ("BID", "bid", "block index in the grid"),
                               ("BDIM", "bdim", "threads per block"), ("GDIM", "gdim", "blocks per grid")):
        prim(f"{_word}-{_axis}", "( -- n )", f"The {_desc} along {_axis.lower()}.", f"{_word}-{_axis} .",
             lambda g, n, r=f"{_reg}.{_axis.lower()}": g.push(g.target.sreg(g, r)))


@prim("BARRIER", "( -- )", "Wait until every thread of the block reaches this BARRIER (__syncthreads).",
      "32 1 1 THREADS  256 SHARED: sh  TID-X DUP CELLS sh + !  BARRIER  31 TID-X - CELLS sh + @ TID-X + . \\ 31",
      suspend_point=True)
def _barrier(g: "Gen", n: "Prim") -> None:
    g.flush()
    g.target.barrier(g, g.site())
    g.forget_sp()


group("SIMT")
@prim("(SHARED)", "( -- addr )", "The address of a SHARED: buffer in this thread's block (compiled for its name).",
      "", static_effect=lambda n: Effect(True, 0, 1, 0, 0))
def _shared_addr(g: "Gen", n: "Prim") -> None:
    g.push(g.tag(g.target.shared_addr(g, int(n.arg)), "shared"))


group("Atomics")
# ---- atomics and fences --------------------------------------------------------------
# CUDA's semantics: atomicAdd & co. are relaxed (monotonic) at device scope, __threadfence() is a
# sequentially consistent fence at device scope, __threadfence_block() at block scope. The syncscope
# names are NVPTX's ("block", "device"); the cpu target (one OS thread) ignores them. llvmlite's
# atomic_rmw and cmpxchg take no syncscope, so it goes in front of the ordering, where LLVM's syntax
# puts it (`atomicrmw add ptr %p, i64 %v syncscope("device") monotonic`).
ATOMIC_ORDER = 'syncscope("device") monotonic'
# word, atomicrmw op, help, CUDA's name, and the example's operands and claim (v holds 5: old, then v)
ATOMIC_OPS = (("ATOMIC+", "add", "Add n to", "atomicAdd", "2", "5 7"),
              ("ATOMIC-MIN", "min", "Store the smaller (signed) of n and", "atomicMin", "3", "5 3"),
              ("ATOMIC-MAX", "max", "Store the larger (signed) of n and", "atomicMax", "9", "5 9"),
              ("ATOMIC-XCHG", "xchg", "Store n in", "atomicExch", "8", "5 8"))


def _atomic_value(g: "Gen", n: ir.Value, ty: ir.IntType) -> ir.Value:
    return n if ty == I64 else g.b.trunc(n, ty)


def _atomic_old(g: "Gen", old: ir.Value) -> ir.Value:
    return old if old.type == I64 else g.b.sext(old, I64)


def _atomic_rmw(word: str, op: str, ty: ir.IntType, size: int) -> Emit:
    """( n addr -- old ): one `atomicrmw op` on the integer at addr (checked as @ checks)."""
    def fn(g: "Gen", n: ir.Value, addr: ir.Value) -> list[ir.Value]:
        old = g.b.atomic_rmw(op, g.mem_ptr(addr, size, word), _atomic_value(g, n, ty), ATOMIC_ORDER)
        return [_atomic_old(g, old)]
    return cells(fn)


def _atomic_cas(word: str, ty: ir.IntType, size: int) -> Emit:
    """( expected new addr -- old ): one `cmpxchg`; it stored new when old = expected."""
    def fn(g: "Gen", expected: ir.Value, new: ir.Value, addr: ir.Value) -> list[ir.Value]:
        pair = g.b.cmpxchg(g.mem_ptr(addr, size, word), _atomic_value(g, expected, ty), _atomic_value(g, new, ty),
                           ATOMIC_ORDER, "monotonic")
        return [_atomic_old(g, g.b.extract_value(pair, 0))]
    return cells(fn)


def _atomic_words(prefix: str, ty: ir.IntType, size: int, what: str, setup: str, fetch: str) -> None:
    """The RMW words and CAS on `what` at addr; the old value comes back sign-extended to a cell.
    Their examples run `setup` (a variable v holding 5) and show v with `fetch`. The help has
    no hyphens: HELP wraps its text and may break there (tests/test_inspect.py)."""
    def narrow(operands: str) -> str:
        return "" if ty == I64 else f" ({operands} truncated to 32 bits; old comes back as a signed cell)"

    def example(word: str, args: str, claim: str) -> str:
        return f"{setup} {args} v {word} . v {fetch} . \\ {claim}"

    for name, op, verb, cuda, args, claim in ATOMIC_OPS:
        word = prefix + name
        prim(word, "( n addr -- old )", f"{verb} {what} at addr, atomically ({cuda}): old is its value before"
             f"{narrow('n is')}. Every thread's update counts, in some order.", example(word, args, claim),
             _atomic_rmw(word, op, ty, size))
    word = prefix + "ATOMIC-CAS"
    prim(word, "( expected new addr -- old )", f"Compare and swap {what} at addr, atomically (atomicCAS): "
         f"store new if it holds expected; old is its value before, so old = expected says it stored"
         f"{narrow('expected and new are')}.", example(word, "5 6", "5 6"), _atomic_cas(word, ty, size))


_atomic_words("", I64, 8, "the cell", "1 1 1 THREADS VARIABLE v 5 v !", "@")
_atomic_words("I32-", I32, 4, "the I32 (32 bits)", "1 1 1 THREADS 1 I32 ARRAY v 5 v I32!", "I32@")


def _fatomic_add(g: "Gen", a: list, f: list) -> tuple[list, list]:
    ptr = g.mem_ptr(a[0], 4, "FATOMIC+")
    old = g.b.atomic_rmw("fadd", ptr, fconvert(g.b, f[0], F32), ATOMIC_ORDER)
    return [], [fconvert(g.b, old, g.float_t)]


prim("FATOMIC+", "( addr -- ) ( F: r -- old )", "Add r (rounded to f32) to the f32 at addr, atomically (atomicAdd "
     "on float): old is its value before. The sum depends on the order the threads add in, as on a GPU.",
     "1 1 1 THREADS  1 F32 ARRAY s  1.5e s FATOMIC+ F. 2e s FATOMIC+ F. s SF@ F. \\ 0. 1.5 3.5", stacks(_fatomic_add))


def _fence(scope: str) -> Emit:
    """A sequentially consistent fence at `scope` (NVPTX: fence.sc.gpu / fence.sc.cta)."""
    def emit(g: "Gen", n: "Prim") -> None:
        g.b.fence("seq_cst", scope)
        if g.checked:
            g.target.mem_fence(g)
    return emit


prim("THREADFENCE", "( -- )", "Order this thread's memory accesses for every thread of the launch "
     "(__threadfence): what it wrote before is seen by others before what it writes after.",
     "VARIABLE v 1 v ! THREADFENCE v @ . \\ 1", _fence("device"))
prim("THREADFENCE-BLOCK", "( -- )", "Order this thread's memory accesses for the threads of its block "
     "(__threadfence_block).", "VARIABLE v 1 v ! THREADFENCE-BLOCK v @ . \\ 1", _fence("block"))


# ---- warp: shuffles and votes (tileforth/core/compile/warpgen.py) ----------------------------------
warpgen.install(REGISTRY)


group("Output")
def _param_effect(n: "Prim") -> Effect:
    return Effect(True, 0, 0, 0, 1) if n.arg[1] == "float" else Effect(True, 0, 1, 0, 0)


@prim("(PARAM)", "( -- x )", "A kernel parameter (compiled for a `\\! param` name).", "",
      static_effect=_param_effect, inline=True)
def _param(g: "Gen", n: "Prim") -> None:
    index, kind = n.arg
    value = g.target.param(g, index, kind)
    g.fpush(value) if kind == "float" else g.push(g.tag(value, "global" if kind == "ptr" else None))


# ---- output ---------------------------------------------------------------------------
def _out(g: "Gen", kind: int, aux: ir.Value, value: ir.Value) -> None:
    g.b.call(g.helper("tf_out"), [g.env.ctx, g.env.thr, c64(kind), aux, value])


def _base(g: "Gen") -> ir.Value:
    return g.b.load(g.target.mem_pointer(g, g.address(g.base_addr), "global"), typ=I64)


def _printer(kind: int, aux: Callable, value: Callable) -> Emit:
    """An output word: one record (kind, aux, value) in the launch's output buffer."""
    def fn(g: "Gen", a: list, f: list) -> tuple[list, list]:
        _out(g, kind, aux(g), value(g, a, f))
        return [], []
    return stacks(fn)


prim(".", "( n -- )", "Print n in the current BASE, then a space.", "42 . \\ 42",
     _printer(L.OUT_INT, _base, lambda g, a, f: a[0]))
prim("U.", "( u -- )", "Print u unsigned, then a space.", "-1 U.", _printer(L.OUT_UINT, _base, lambda g, a, f: a[0]))


def _hex_dot(g: "Gen", a: list, f: list) -> tuple[list, list]:
    _out(g, L.OUT_CHAR, c64(0), c64(ord("$")))
    _out(g, L.OUT_UINT, c64(16), a[0])
    return [], []


prim("HEX.", "( u -- )", "Print u unsigned in hexadecimal after a $, then a space (gforth's); BASE is not "
     "touched.", "255 HEX. \\ $FF", stacks(_hex_dot))


def _width_base(g: "Gen", width: ir.Value) -> ir.Value:
    """.R's aux: the width (clamped to 0..OUT_WIDTH_MAX) above the base's low byte (0 when BASE >= 256)."""
    w = g.b.select(g.b.icmp_signed("<", width, c64(0)), c64(0), width)
    w = g.b.select(g.b.icmp_signed(">", w, c64(L.OUT_WIDTH_MAX)), c64(L.OUT_WIDTH_MAX), w)
    b = _base(g)
    return g.b.or_(g.b.shl(w, c64(8)), g.b.select(g.b.icmp_unsigned("<", b, c64(256)), b, c64(0)))


for _name, _kind, _what, _ex in ((".R", L.OUT_INT_R, "n", "-42 6 .R \\ -42"), ("U.R", L.OUT_UINT_R, "u unsigned", "42 6 U.R \\ 42")):
    prim(_name, f"( {_what.split()[0]} width -- )", f"Print {_what} right-aligned in a field of width characters "
         "(no space after; a wider number is printed whole). Each thread sends its own record.", _ex,
         stacks(lambda g, a, f, k=_kind: (_out(g, k, _width_base(g, a[1]), a[0]), ([], []))[1]))
prim("EMIT", "( char -- )", "Print a character.", "65 EMIT \\ A",
     _printer(L.OUT_CHAR, lambda g: c64(0), lambda g, a, f: a[0]))
prim("F.", "( F: r -- )", "Print a float, then a space.", "1.5e F. \\ 1.5",
     _printer(L.OUT_FLOAT, lambda g: c64(0), lambda g, a, f: float_bits(g.b, f[0])))


@prim('."', '( "text" -- )', 'Print the text up to the next ".', '." hello" \\ hello',
      static_effect=lambda n: Effect(True))
def _dot_quote(g: "Gen", n: "Prim") -> None:
    _out(g, L.OUT_STR, c64(0), c64(int(n.arg)))


@prim(".S", "( -- )", "Print the data stack: <depth> then the items, bottom first. (Typed at the REPL's "
      "prompt, outside IF and loops: every stack, as .STACKS.)", "1 2 .S \\ <2> 1 2",
      static_effect=lambda n: Effect(True))
def _dot_s(g: "Gen", n: "Prim") -> None:
    g.flush()
    sp = g._dsp()
    _out(g, L.OUT_DEPTH, c64(0), sp)
    base = _base(g)
    _count_loop(g, c64(0), sp,
                lambda i: _out(g, L.OUT_INT, base, g.b.load(g.b.gep(g.env.ds, [i], source_etype=I64), typ=I64)),
                "dots")


# The tile words, last in the reference as in the dictionary: added here, explicitly.
floatwords.install(REGISTRY)
xtgen.install(REGISTRY)
heapgen.install(REGISTRY)  # (ALLOCATE) (FREE) (RESIZE): no names in the dictionary
tilegen.install(REGISTRY)
smem.install(REGISTRY)
mbarrier.install(REGISTRY)  # Hopper: mbarriers, FENCE-ASYNC, ELECT
mbarrier.install_specialisation(REGISTRY)  # WARPGROUP REGS- REGS+
tma.install(REGISTRY)  # Hopper: TMA-LOAD TMA-STORE TMA-WAIT
wgmma.install(REGISTRY)  # Hopper: WGZERO WGMMA WGMMA-WAIT WGSTORE ... (warpgroup MMA)
