"""The FLOATING and FLOATING-EXT words of Forth 2012 on the f32 float stack.

(A session made with float_bits=64 has an f64 float stack instead: the generator's
`g.float_t` is the one name for its type, `g.machine.float_bytes` its size, and
`g.machine.precision` PRECISION's default; what follows says f32 for it.)

Added to the primitive registry by an explicit `install(REGISTRY)` at the end
of tileforth/core/compile/primitives.py (this module cannot import primitives.py: the
import graph has no cycles, tests/test_structure.py), like the tile words.

Semantics are the standard's, computed in f32 (a float is 4 bytes on the
stack and in memory: FLOATS FLOAT+ FALIGNED count 4, SF@ SF! are F@ F!):

* math functions go through `g.target.math(g, name, args)`: on the cpu
  target LLVM intrinsics (llvm.tan.f32 ...) or libm (expm1f log1pf asinhf
  acoshf atanhf, which have no intrinsic); on cuda libdevice (__nv_tanf ...).
  A domain error gives NaN, as IEEE (and gforth) do: -1e FLN, 2e FASIN.
* FLOG is log10 and FLN the natural logarithm (the FLN entry stays in
  primitives.py's table of unary functions).
* F>D truncates toward zero to a 128-bit double (low cell below, high cell on
  top), saturating beyond +-2^127 (an f32 reaches 3.4e38, about 2^128) and
  giving 0 for NaN; D>F rounds a double to nearest f32. Both are built from
  i64 conversions and i128 shifts: NVPTX has no lowering for fptosi/sitofp
  with i128 (LLVM aborts the process), and one code for both targets is the
  code the cpu tests check.
* F~ follows the standard: r3 > 0 absolute tolerance, r3 = 0 identical
  encodings (0e and -0e differ), r3 < 0 relative tolerance.

* SFLOATS SFLOAT+ SFALIGNED count 4 bytes (an sfloat is the f32 a float is);
  DFLOATS DFLOAT+ DFALIGNED count 8 (DF@ DF! store an f64).
* PRECISION is a session setting kept in a cell of data space's reserved
  first 64 bytes (BASE is at 0, STATE at 8): PRECISION_OFFSET. The host word
  SET-PRECISION (tileforth/core/session/words/floats.py) writes it between launches, so
  every thread of a launch sees one value; the primitive PRECISION and
  F. FS. FE. read it, and these send it with each record (aux) for the host
  to format the number with (tileforth/core/session/output.py). Fresh data space
  holds 0, which stands for the default, 9 (FLT_DECIMAL_DIG: the fewest
  significant digits that tell every f32 apart); SET-PRECISION keeps u in
  1..PRECISION_MAX. F. prints the shortest digits that give the f32 back
  when there are no more than PRECISION of them (always, at 9: F.'s output
  is the same as before PRECISION), else the f32 rounded to PRECISION digits,
  as gforth does.

Host words of the word set (FALIGN SFALIGN DFALIGN move HERE; FVARIABLE
FCONSTANT FLITERAL FVALUE parse or compile; >FLOAT and REPRESENT convert
text in memory: tileforth/core/session/words/floats.py) are not device primitives and live
elsewhere.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from llvmlite import ir

from ..front.effects import Effect
from . import layout as L
from .codegen import F32, I64, I128, c64, fconvert, float_bits

if TYPE_CHECKING:
    from ..front.tree import Prim
    from .codegen import Gen

SFLOAT_BYTES = 4  # SF@ SF! store an f32
DFLOAT_BYTES = 8  # DF@ DF! store an f64
PRECISION_OFFSET = 56  # PRECISION's cell: the last of data space's reserved 64 bytes (0 there: the default)
PRECISION_MAX = 64  # SET-PRECISION (a host word) keeps u in 1..PRECISION_MAX


def _pure(fn: Callable) -> Callable:
    """The emitter of a pure primitive: fn(g, cells, floats) -> (cells, floats),
    with the counts its effect names popped (bottom first) and the results pushed."""
    def emit(g: "Gen", n: "Prim") -> None:
        p = n.prim
        ints = g.pop(p.ins)
        fl = g.fpop(p.fins)
        outs, fouts = fn(g, ints, fl)
        g.push(*outs)
        g.fpush(*fouts)
    return emit


def _floats(fn: Callable[..., list[ir.Value]]) -> Callable:
    return _pure(lambda g, a, f: ([], fn(g, *f)))


def _math(g: "Gen", name: str, *args: ir.Value) -> ir.Value:
    return g.target.math(g, name, list(args))


def _fabs(g: "Gen", x: ir.Value) -> ir.Value:
    return _math(g, "fabs", x)


def _wide(g: "Gen", lo: ir.Value, hi: ir.Value) -> ir.Value:
    return g.b.or_(g.b.shl(g.b.sext(hi, I128), ir.Constant(I128, 64)), g.b.zext(lo, I128))


def _i128(v: int) -> ir.Constant:
    return ir.Constant(I128, v)


def _f_to_d(g: "Gen", a: list, f: list) -> tuple[list, list]:
    """F>D without fptosi to i128, which NVPTX cannot lower (LLVM aborts with
    "unsupported library call operation"): |r| < 2^63 converts through i64;
    larger values are integers, mantissa << (exponent - 23), built with i128
    shifts; beyond the i128 range it saturates, NaN gives 0 (as fptosi.sat)."""
    b = g.b
    r = f[0]
    width = g.machine.float_bits
    ib = ir.IntType(width)
    mbits, bias = (52, 1023) if width == 64 else (23, 127)  # mantissa bits, exponent bias
    bits = b.bitcast(r, ib)
    exp = b.and_(b.lshr(bits, ir.Constant(ib, mbits)), ir.Constant(ib, (1 << (width - 1 - mbits)) - 1))
    small = b.fcmp_ordered("<", _fabs(g, r), ir.Constant(g.float_t, 2.0**63))
    via64 = b.sext(b.call(g.intrinsic(f"llvm.fptosi.sat.i64.f{width}", I64, [g.float_t]), [r]), I128)
    mant = b.zext(b.or_(b.and_(bits, ir.Constant(ib, (1 << mbits) - 1)), ir.Constant(ib, 1 << mbits)), I128)
    fits = b.icmp_unsigned("<", exp, ir.Constant(ib, bias + 127))  # |r| < 2^127
    # exponent >= bias + mbits: an integer, the mantissa shifted left (below, |r| < 2^63 took via64)
    shift = b.select(b.and_(fits, b.icmp_unsigned(">=", exp, ir.Constant(ib, bias + mbits))),
                     b.zext(b.sub(exp, ir.Constant(ib, bias + mbits)), I128), _i128(0))
    mag = b.shl(mant, shift)
    neg = b.icmp_signed("<", bits, ir.Constant(ib, 0))
    big = b.select(neg, b.neg(mag), mag)
    sat = b.select(neg, _i128(-(1 << 127)), _i128((1 << 127) - 1))
    nan = b.fcmp_unordered("uno", r, r)
    d = b.select(small, via64, b.select(nan, _i128(0), b.select(fits, big, sat)))
    return [b.trunc(d, I64), b.trunc(b.lshr(d, _i128(64)), I64)], []


def _d_to_f(g: "Gen", a: list, f: list) -> tuple[list, list]:
    """D>F rounded to nearest without sitofp from i128 (NVPTX cannot lower it):
    the magnitude's top 64 bits (a sticky bit for the ones shifted out) go
    through u64 -> f32, then are scaled by 2^shift, which is exact."""
    b = g.b
    lo, hi = a
    d = _wide(g, lo, hi)
    neg = b.icmp_signed("<", hi, c64(0))
    m = b.select(neg, b.neg(d), d)  # unsigned; -2^127 stays 2^127
    m_hi = b.trunc(b.lshr(m, _i128(64)), I64)
    lz = b.call(g.intrinsic("llvm.ctlz.i64", I64, [I64, ir.IntType(1)]), [m_hi, ir.Constant(ir.IntType(1), 0)])
    sh = b.sub(c64(64), lz)  # 0..64: the bits to drop so that the magnitude fits in 64
    sh128 = b.zext(sh, I128)
    top = b.trunc(b.lshr(m, sh128), I64)
    lost = b.and_(m, b.sub(b.shl(_i128(1), sh128), _i128(1)))
    v = b.or_(top, b.zext(b.icmp_unsigned("!=", lost, _i128(0)), I64))
    width = g.machine.float_bits
    ib = ir.IntType(width)
    mbits, bias = (52, 1023) if width == 64 else (23, 127)  # 2^sh's bits: (sh + bias) << mbits
    sh_i = b.trunc(sh, ib) if width == 32 else sh
    scale = b.bitcast(b.shl(b.add(sh_i, ir.Constant(ib, bias)), ir.Constant(ib, mbits)), g.float_t)
    r = b.fmul(b.uitofp(v, g.float_t), scale)
    return [], [b.select(neg, b.fneg(r), r)]


def _approx(g: "Gen", a: list, f: list) -> tuple[list, list]:
    """F~ ( F: r1 r2 r3 -- ) ( -- flag ), the standard's three cases."""
    b = g.b
    r1, r2, r3 = f
    zero = ir.Constant(g.float_t, 0.0)
    diff = _fabs(g, b.fsub(r1, r2))
    absolute = b.fcmp_ordered("<", diff, r3)
    identical = b.icmp_unsigned("==", float_bits(b, r1), float_bits(b, r2))
    scale = b.fmul(_fabs(g, r3), b.fadd(_fabs(g, r1), _fabs(g, r2)))
    relative = b.fcmp_ordered("<", diff, scale)
    flag = b.select(b.fcmp_ordered(">", r3, zero), absolute,
                    b.select(b.fcmp_ordered("==", r3, zero), identical, relative))
    return [g.flag(flag)], []


def _fdepth(g: "Gen", n: "Prim") -> None:
    g.flush()
    g.push(g.fstack.sp(g))


def _addr_op(fn: Callable[["Gen", ir.Value], ir.Value]) -> Callable:
    """An address computation whose result stays in the memory its input points into."""
    def op(g: "Gen", a: list, f: list) -> tuple[list, list]:
        return [g.tag(fn(g, a[0]), g.space_of(a[0]))], []
    return _pure(op)


def _sf_fetch(g: "Gen", a: list, f: list) -> tuple[list, list]:
    return [], [fconvert(g.b, g.b.load(g.mem_ptr(a[0], SFLOAT_BYTES, "SF@"), typ=F32), g.float_t)]


def _sf_store(g: "Gen", a: list, f: list) -> tuple[list, list]:
    g.mem_store(fconvert(g.b, f[0], F32), a[0], SFLOAT_BYTES, "SF!")
    return [], []


def _precision_ptr(g: "Gen") -> ir.Value:
    return g.target.mem_pointer(g, g.address(g.base_addr + PRECISION_OFFSET), "global")


def _precision(g: "Gen") -> ir.Value:
    """PRECISION: the cell's value, the default where it holds 0 (fresh data space)."""
    v = g.b.load(_precision_ptr(g), typ=I64)
    return g.b.select(g.b.icmp_signed("==", v, c64(0)), c64(g.machine.precision), v)


def _float_printer(kind: int) -> Callable:
    """F. FS. FE.: one output record (kind, PRECISION, the f32's bits) per thread."""
    def op(g: "Gen", a: list, f: list) -> tuple[list, list]:
        bits = float_bits(g.b, f[0])
        g.b.call(g.helper("tf_out"), [g.env.ctx, g.env.thr, c64(kind), _precision(g), bits])
        return [], []
    return _pure(op)


def _align_to(g: "Gen", x: ir.Value, size: int) -> ir.Value:
    return g.b.and_(g.b.add(x, c64(size - 1)), c64(-size))


def _aligned(size: int) -> Callable:
    return _addr_op(lambda g, x: _align_to(g, x, size))


# unary functions: (word, target math name, help, example)
UNARY = (
    ("FLOG", "log10", "Base-10 logarithm (NaN below 0, -inf at 0).", "100e FLOG F. \\ 2."),
    ("FALOG", "exp10", "10 raised to r1.", "3e FALOG F. \\ 1000."),
    ("FEXPM1", "expm1", "e^r1 - 1, accurate for r1 near 0.", "0e FEXPM1 F. \\ 0."),
    ("FLNP1", "log1p", "ln(1 + r1), accurate for r1 near 0 (NaN below -1).", "0e FLNP1 F. \\ 0."),
    ("FTAN", "tan", "Tangent (radians).", "0e FTAN F. \\ 0."),
    ("FASIN", "asin", "Arc sine, in [-pi/2, pi/2] (NaN outside [-1, 1]).", "1e FASIN F. \\ 1.5707964"),
    ("FACOS", "acos", "Arc cosine, in [0, pi] (NaN outside [-1, 1]).", "1e FACOS F. \\ 0."),
    ("FATAN", "atan", "Arc tangent, in [-pi/2, pi/2].", "1e FATAN F. \\ 0.7853982"),
    ("FSINH", "sinh", "Hyperbolic sine.", "0e FSINH F. \\ 0."),
    ("FCOSH", "cosh", "Hyperbolic cosine.", "0e FCOSH F. \\ 1."),
    ("FTANH", "tanh", "Hyperbolic tangent.", "0e FTANH F. \\ 0."),
    ("FASINH", "asinh", "Inverse hyperbolic sine.", "0e FASINH F. \\ 0."),
    ("FACOSH", "acosh", "Inverse hyperbolic cosine (NaN below 1).", "1e FACOSH F. \\ 0."),
    ("FATANH", "atanh", "Inverse hyperbolic tangent (NaN outside [-1, 1], +-inf at +-1).", "0e FATANH F. \\ 0."),
    ("FTRUNC", "trunc", "Round toward zero to an integral value.", "-2.7e FTRUNC F. \\ -2."),
)


def install(registry) -> None:
    """Add the FLOATING / FLOATING-EXT words to the primitive registry
    (tileforth/core/compile/primitives.py calls this)."""
    prim = registry.prim
    registry.group("Floats")
    for name, fn, help, example in UNARY:
        prim(name, "( F: r1 -- r2 )", help, example, _floats(lambda g, a, fn=fn: [_math(g, fn, a)]))
    prim("F**", "( F: r1 r2 -- r3 )", "r1 raised to the power r2 (NaN for a negative r1 and a non-integral r2).",
         "2e 10e F** F. \\ 1024.", _floats(lambda g, a, b: [_math(g, "pow", a, b)]))
    prim("FATAN2", "( F: r1 r2 -- r3 )", "The angle of the point (x=r2, y=r1): atan(r1/r2) in the right "
         "quadrant, in [-pi, pi].", "0e -1e FATAN2 F. \\ 3.1415927",
         _floats(lambda g, y, x: [_math(g, "atan2", y, x)]))
    prim("FSINCOS", "( F: r1 -- r2 r3 )", "Sine r2 and cosine r3 of r1 (radians).", "0e FSINCOS F. F. \\ 1. 0.",
         _floats(lambda g, a: [_math(g, "sin", a), _math(g, "cos", a)]))
    prim("FROT", "( F: r1 r2 r3 -- r2 r3 r1 )", "Rotate the third float to the top.", "1e 2e 3e FROT F. \\ 1.",
         _floats(lambda g, a, b, c: [b, c, a]))
    prim("FDEPTH", "( -- +n )", "The number of floats on the float stack (of this thread).",
         "1e 2e FDEPTH . \\ 2", _fdepth, static_effect=lambda n: Effect(True, 0, 1, 0, 0))
    prim("F0>", "( -- flag ) ( F: r -- )", "True if r is greater than zero.", "1e F0> . \\ -1",
         _pure(lambda g, a, f: ([g.flag(g.b.fcmp_ordered(">", f[0], ir.Constant(g.float_t, 0.0)))], [])))
    prim("F~", "( -- flag ) ( F: r1 r2 r3 -- )", "Approximately equal: |r1-r2| < r3 if r3 > 0; identical "
         "encodings if r3 = 0 (0e and -0e differ); |r1-r2| < |r3|*(|r1|+|r2|) if r3 < 0.",
         "1e 1.05e 0.1e F~ . \\ -1", _pure(_approx))
    prim("F>D", "( -- d ) ( F: r -- )", "Convert a float to a double-cell number, truncating toward zero.",
         "-2.5e F>D . . \\ -1 -2", _pure(_f_to_d))
    prim("D>F", "( d -- ) ( F: -- r )", "Convert a double-cell number to the nearest float.",
         "5 0 D>F F. \\ 5.", _pure(_d_to_f))
    prim("FLOATS", "( n1 -- n2 )",
         "The size in bytes of n1 floats (a float in memory is the float stack's type: an f32, 4 bytes; "
         "8 in an f64 session).", "3 FLOATS . \\ 12",
         _pure(lambda g, a, f: ([g.b.mul(a[0], c64(g.machine.float_bytes))], [])))
    prim("FLOAT+", "( f-addr1 -- f-addr2 )", "Add the size of a float (4 bytes; 8 in an f64 session) to an "
         "address.", "100 FLOAT+ . \\ 104", _addr_op(lambda g, x: g.b.add(x, c64(g.machine.float_bytes))))
    prim("FALIGNED", "( addr -- f-addr )",
         "The first float-aligned (a multiple of 4; of 8 in an f64 session) address at or above addr.",
         "5 FALIGNED . \\ 8", _addr_op(lambda g, x: _align_to(g, x, g.machine.float_bytes)))
    for prefix, size, what in (("SF", SFLOAT_BYTES, "an sfloat (an f32)"),
                               ("DF", DFLOAT_BYTES, "a dfloat (an f64, as DF@ DF! store)")):
        addr = prefix.lower() + "-addr"
        prim(f"{prefix}LOATS", "( n1 -- n2 )", f"The size in bytes of n1 {prefix.lower()[0]}floats ({size} bytes "
             "each).", f"3 {prefix}LOATS . \\ {3 * size}",
             _pure(lambda g, a, f, size=size: ([g.b.mul(a[0], c64(size))], [])))
        prim(f"{prefix}LOAT+", f"( {addr}1 -- {addr}2 )", f"Add the size of {what}, {size} bytes, to an address.",
             f"100 {prefix}LOAT+ . \\ {100 + size}", _addr_op(lambda g, x, size=size: g.b.add(x, c64(size))))
        prim(f"{prefix}ALIGNED", f"( addr -- {addr} )", f"The first address at or above addr aligned for "
             f"{what}: a multiple of {size}.", f"9 {prefix}ALIGNED . \\ {9 + (-9) % size}", _aligned(size))
    prim("PRECISION", "( -- u )", "The number of significant digits F. FS. FE. print (default 9: enough to "
         "tell every f32 apart; 17 in an f64 session).", "PRECISION . \\ 9",
         _pure(lambda g, a, f: ([_precision(g)], [])))
    prim("FS.", "( F: r -- )", "Print r in scientific notation with PRECISION significant digits, then a space: "
         "one digit before the point, the exponent after E.", "1234.5e FS. \\ 1.23450000E3",
         _float_printer(L.OUT_FLOAT_S))
    prim("FE.", "( F: r -- )", "Print r in engineering notation with PRECISION significant digits, then a space: "
         "1 to 3 digits before the point, an exponent that is a multiple of 3.", "12345e FE. \\ 12.3450000E3",
         _float_printer(L.OUT_FLOAT_E))
    # F. (defined with the output words in primitives.py) sends PRECISION with each record too
    fdot = registry.table["F."]
    fdot.emit = _float_printer(L.OUT_FLOAT)
    fdot.help = ("Print a float, then a space: the shortest digits that give the f32 back if there are at most "
                 "PRECISION of them (always, at the default 9), else rounded to PRECISION significant digits.")

    registry.group("Memory")
    prim("SF@", "( sf-addr -- ) ( F: -- r )", "Fetch an f32 (4-byte aligned): F@ under its FLOATING-EXT name.",
         "1 F32 ARRAY a 2.5e a SF! a SF@ F. \\ 2.5", _pure(_sf_fetch))
    prim("SF!", "( sf-addr -- ) ( F: r -- )", "Store r as an f32 (4-byte aligned): F! under its FLOATING-EXT name.",
         "1 F32 ARRAY a 2.5e a SF! a F@ F. \\ 2.5", _pure(_sf_store))
