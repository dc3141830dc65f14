"""Integer ranges of generated values, for the one question the code generator asks: do a DO loop's
index and limit fit in 32 bits, so that the loop can count in i32 (one SASS instruction per add and
compare instead of two)?

`value_range` follows an i64 value through the few instructions bounds are made of: constants, the
GPU's special registers (thread and block indices and sizes, widened from i32), and +, -, *, a
left shift and an AND with a constant. Anything else has no known range (None). Every bound is an
exact integer, and a range whose ends pass 2^62 is dropped, so no i64 arithmetic it describes can
have wrapped.

`loop_fits_32` says whether every index a loop's body sees, and each intermediate of the loop's own
arithmetic (gforth's rule for +LOOP: leave when (i - limit) and (i - limit + step) lie on two sides
of zero), fits in an i32, for the ranges of start and limit and a literal step (1 for LOOP).
"""
from __future__ import annotations

from llvmlite import ir

MIN32, MAX32 = -(2**31), 2**31 - 1
_LIMIT = 2**62
# llvm.nvvm.read.ptx.sreg.<reg>.<axis>: the values the hardware can give (CUDA's limits)
_SREG = {"tid": {"x": (0, 1023), "y": (0, 1023), "z": (0, 63)},
         "ntid": {"x": (1, 1024), "y": (1, 1024), "z": (1, 64)},
         "ctaid": {"x": (0, 2**31 - 2), "y": (0, 65534), "z": (0, 65534)},
         "nctaid": {"x": (1, 2**31 - 1), "y": (1, 65535), "z": (1, 65535)}}

Range = tuple[int, int]


def _sreg(call: ir.Value) -> Range | None:
    name = getattr(getattr(call, "callee", None), "name", "")
    if not name.startswith("llvm.nvvm.read.ptx.sreg."):
        return None
    reg, _, axis = name[len("llvm.nvvm.read.ptx.sreg."):].partition(".")
    return _SREG.get(reg, {}).get(axis)


def _checked(r: Range) -> Range | None:
    return r if -_LIMIT <= r[0] <= r[1] <= _LIMIT else None


def value_range(v: ir.Value, depth: int = 0) -> Range | None:
    """[lo, hi] of every value v can have, or None when not known."""
    if isinstance(v, ir.Constant) and isinstance(v.type, ir.IntType) and isinstance(v.constant, int):
        bits = v.type.width
        c = v.constant
        c = c - (1 << bits) if c >= 1 << (bits - 1) else c  # the constant as a signed integer
        return c, c
    if depth > 24 or not isinstance(v, ir.Instruction):
        return None
    op = v.opname
    args = v.operands
    if op == "zext" and isinstance(args[0].type, ir.IntType):
        sreg = _sreg(args[0])
        return sreg if sreg is not None else (0, (1 << args[0].type.width) - 1)
    if op == "sext" and isinstance(args[0].type, ir.IntType):
        w = args[0].type.width
        return -(1 << (w - 1)), (1 << (w - 1)) - 1
    if op not in ("add", "sub", "mul", "shl", "and") or len(args) != 2:
        return None
    a = value_range(args[0], depth + 1)
    b = value_range(args[1], depth + 1)
    if op == "and":  # x & m with a constant m >= 0 lies in [0, m]; two non-negative ranges: [0, min(hi)]
        his = [r[1] for r in (a, b) if r is not None and r[0] >= 0]
        return (0, min(his)) if his else None
    if a is None or b is None:
        return None
    if op == "add":
        return _checked((a[0] + b[0], a[1] + b[1]))
    if op == "sub":
        return _checked((a[0] - b[1], a[1] - b[0]))
    if op == "shl":
        if b[0] != b[1] or not 0 <= b[0] < 62:
            return None
        return _checked((a[0] << b[0], a[1] << b[0]))
    ends = [x * y for x in a for y in b]
    return _checked((min(ends), max(ends)))


def loop_fits_32(start: Range | None, limit: Range | None, step: int | None, query: bool) -> bool:
    """The loop's index, limit, step and its (i - limit) arithmetic all fit in i32, whatever
    start and limit in their ranges: then counting in i32 gives the same indices as in i64.

    LOOP (step 1) and +LOOP with a positive literal step: every start below every limit (?DO: or
    equal, which skips the loop); the indices lie in [start, limit). A negative literal step: every
    start at or above every limit; the indices lie in [limit, start]. A start that could wrap
    around (DO with start = limit, or the other side of the limit) counts in i64."""
    if start is None or limit is None or step is None or step == 0 or not MIN32 <= step <= MAX32:
        return False
    (s_lo, s_hi), (l_lo, l_hi) = start, limit
    if not (MIN32 <= s_lo and s_hi <= MAX32 and MIN32 <= l_lo and l_hi <= MAX32):
        return False
    if step > 0:
        ordered = s_hi <= l_lo if query else s_hi < l_lo  # ?DO skips start = limit
        # (i - limit) lies in [start - limit, -1]; + step stays below step
        return ordered and s_lo - l_hi >= MIN32
    # a negative step: (i - limit) lies in [0, start - limit]; + step stays at or above step
    return s_lo >= l_hi and s_hi - l_lo <= MAX32
