r"""Kernel files: a kernel's interface in WarpForth-style header lines, then Forth.

    \! kernel saxpy           the kernel's name (once, required)
    \! param X f32[N]         an array: X pushes its device address
    \! param Y f32[N]         (N: a number, or an integer parameter's name)
    \! param A f32            a float scalar: A pushes onto the float stack
    \! param N i32            an integer scalar: N pushes its value
    \! shared T f32[256]      per-block shared memory: T pushes its address
    \! smem As bf16[64,64] 3 swizzled   a SMEM-TILE ring (3 stages, SMEM-TILE-SWZ): `s As`, As-GEOM
    \! tiles 16 8 16 bf16     the tile words' TILE-SHAPE and TILE-IN (and TILE-ACC, a fifth word;
                              a last word MxN, e.g. 4x8: `M N TILE-GRID`, big register tiles)
    \! wg 64 128 16 bf16      the warpgroup MMA words' WG-SHAPE and TILE-IN (WGMMA, sm_90a)
    \! tmap tA A 64,64 swizzled   a tensor map of the array A for TMA-LOAD/TMA-STORE (TMAP): boxes
                              of 64 x 64 elements, 128-byte swizzled (else plain rows; swizzled64,
                              swizzled32: the 64- and 32-byte swizzles, SMEM-TILE-SWZ64/32); tA pushes its address
    \! param M2 f32[R,C]      a row-major R x C array: M2[] ( r c -- addr ), strides M2.S0 M2.S1
    \! grid 4,1,1             the launch's default grid and block (run_kernel_file, launchers)
    \! block 256
    GLOBAL-ID N < IF          the body: every thread runs it once, as one
      ...                     kernel (control structures may span lines)
    THEN

The body may define words (`: f ... ;`); host words (ARRAY, GRID, CONSTANT,
...) have no place in it: they act between launches, and a kernel file is
one launch. Types are i8 i16 i32 i64 f16 bf16 f32 f64. A scalar is passed
with its declared type (an i32 is 32 bits, sign-extended to a cell in the
body; an f64 is rounded to the float stack's type there), and run_kernel_file
gives the body the same value; arrays are pointers. Every array NAME of d
dimensions also defines NAME.S0 .. NAME.S<d-1> ( -- bytes ), its row-major
strides, and NAME[] ( i0 .. i<d-1> -- addr ), the address of an element.

    parse_kernel_file(text) -> KernelSpec       the header checked, the body kept
    run_kernel_file(session, spec, values, ...) one launch on the session's backend
    export.kernels.kernel_file_ptx(text)        the same body as a PTX kernel
"""
from __future__ import annotations

import re
import weakref
import sys
from pathlib import Path

from tileforth.core.compile.smem import ALIGN, SWIZZLED_ALIGN
from tileforth.core.compile.target import OPTIN_SHARED_BYTES
from tileforth.core.errors import ForthError, SourcePos
from tileforth.core.front.dictionary import Constant, HostWord
from tileforth.core.front.effects import body_effect
from tileforth.core.front.reader import Token, parse_float, parse_integer, to_f32
from tileforth.core.front.tree import Node
from tileforth.core.lazy import ml_dtypes, np
from tileforth.core.records import field, record
from tileforth.core.compile.eltypes import BY_NAME, ElType
from tileforth.core.session.building import CLOSERS, OPENERS
from tileforth.core.session.words.arraydata import read_npy
from tileforth.core.session.words.arrays import DEVICE_ARRAY_MAX, array_bytes_max, host_memory_bytes
from tileforth.core.session.launchshape import check_python_shape
from tileforth.core.session.words.hopper import define_tensor_map
from tileforth.core.session.tensormap import STRIDE_ALIGN, TensorMap, check
from tileforth.core.session.interpreter import Collector, Forth
from tileforth.core.session.launcherrors import BAD_ADDRESS_HINT

TYPE_NAMES = " ".join(t.lower() for t in BY_NAME)
_KERNEL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TYPE = re.compile(r"([A-Za-z0-9]+)(?:\[(.*)\])?\Z")
_COMMENT = re.compile(r"(\\(\s.*)?|\(\s[^)]*\)\s*)\Z")  # `\ ...` or `( ... )` on a line of its own


@record(frozen=True)
class Param:
    name: str
    eltype: ElType
    # elements: a number or an integer scalar's name (1-D), the dims (more); None: a scalar
    count: int | str | tuple | None
    pos: SourcePos
    dims: tuple = ()  # each dimension, a number or an integer scalar's name, outermost first; () for a scalar

    @property
    def kind(self) -> str:
        """How the kernel receives it: "ptr" (arrays), "int" or "float" (scalars)."""
        if self.count is not None:
            return "ptr"
        return "float" if self.eltype.is_float else "int"


@record(frozen=True)
class Shared:
    name: str
    eltype: ElType
    count: int
    pos: SourcePos
    dims: tuple = ()

    @property
    def nbytes(self) -> int:
        return self.count * self.eltype.size


@record(frozen=True)
class Setup:
    """A `\\! smem` or `\\! tiles` line: the Forth (host words) it stands for, run before the body is read."""
    name: str  # the tile's name (smem), "" for tiles
    forth: str
    pos: SourcePos
    nbytes: int = 0  # the shared memory a smem tile's ring takes (its stages), 0 for tiles


@record(frozen=True)
class TensorMapDecl:
    """`\\! tmap NAME ARRAY ROWS,COLS [swizzled]`: a tensor map of the array parameter ARRAY (TMAP), boxes
    of ROWS x COLS elements, laid out as plain rows or with the 128-byte swizzle; NAME pushes its address.
    An exported kernel receives it as a pointer parameter after the declared ones, which its launcher
    encodes for the arrays of each call (cuTensorMapEncodeTiled, cached by array address and shape)."""
    name: str
    array: str
    box_rows: int
    box_cols: int
    swizzle: int  # 0, 32, 64 or 128 (TMAP's swizzle operand)
    pos: SourcePos

    @property
    def forth(self) -> str:
        """The host words it stands for in a session (run_kernel_file)."""
        return f"{self.array} {self.box_rows} {self.box_cols} {self.swizzle} TMAP {self.name}"


@record
class KernelSpec:
    name: str
    params: list[Param]
    shared: list[Shared]
    body: str  # the Forth after the header
    body_line: int  # its first line in the file (1-based)
    source: str = "<kernel>"
    pos: SourcePos | None = None  # the `\! kernel` line
    header_lines: list[int] = field(default_factory=list)
    grid: tuple[int, int, int] | None = None  # `\! grid`: the launch's default (else 1,1,1)
    block: tuple[int, int, int] | None = None  # `\! block` (else 32,1,1)
    setup: list[Setup] = field(default_factory=list)  # `\! smem` and `\! tiles`, in header order
    tmaps: list[TensorMapDecl] = field(default_factory=list)  # `\! tmap`: pointer parameters after `params`

    @property
    def kinds(self) -> list[str]:
        return [p.kind for p in self.params]

    @property
    def param_types(self) -> list[str]:
        """What the kernel receives: "ptr" for arrays, the declared type ("i32", "f64", ...) for scalars,
        then a "ptr" for each tensor map."""
        return ["ptr" if p.count is not None else p.eltype.name.lower() for p in self.params] + \
            ["ptr"] * len(self.tmaps)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name.upper() == name.upper()), None)

    def padded_body(self) -> str:
        """The body with blank lines in place of the header, so positions are the file's."""
        return "\n" * (self.body_line - 1) + self.body

    def index_words(self) -> str:
        """Forth defining, for each array NAME (parameter or shared), its strides
        NAME.S0 .. ( -- bytes ), row-major, and NAME[] ( i0 .. -- addr )."""
        out = []
        for a in [*(p for p in self.params if p.dims), *self.shared]:
            dims = a.dims or (a.count,)
            for k in range(len(dims)):
                factors = [str(d) for d in dims[k + 1:]]
                stride = " ".join([str(a.eltype.size)] + [f"{d} *" for d in factors])
                out.append(f": {a.name}.S{k} {stride} ;")
            index = f"{a.name}.S{len(dims) - 1} *" + "".join(f" SWAP {a.name}.S{k} * +"
                                                              for k in range(len(dims) - 2, -1, -1))
            out.append(f": {a.name}[] {index} {a.name} + ;")
        return "\n".join(out)


def is_kernel_file(text: str) -> bool:
    """True when the text has `\\!` header lines (plain Forth never starts a line with `\\!`)."""
    return any(line.lstrip().startswith("\\!") for line in text.splitlines())


def parse_kernel_file(text: str, source: str = "<kernel>") -> KernelSpec:
    """Check the header lines; ForthErrors point at the bad line and column."""
    lines = text.split("\n")
    kernel: tuple[str, SourcePos] | None = None
    params: list[Param] = []
    shared: list[Shared] = []
    names: dict[str, SourcePos] = {}
    header_lines: list[int] = []
    code_line = 0
    shared_bytes = 0
    shape: dict[str, tuple] = {}
    setup: list[Setup] = []
    tmaps: list[TensorMapDecl] = []

    for lineno, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped.startswith("\\!"):
            if stripped and not _COMMENT.match(stripped) and not code_line:
                code_line = lineno
            continue
        col0 = len(line) - len(line.lstrip()) + 1

        def at(col: int) -> SourcePos:
            return SourcePos(lineno, col, line, source)

        if code_line:
            raise ForthError(f"header lines (\\!) must come before the Forth code, which starts at line "
                             f"{code_line}: move this line up", at(col0), "\\!")
        header_lines.append(lineno)
        words = _words(line, col0 + 2)
        if not words:
            raise ForthError("empty header line: write `\\! kernel NAME`, `\\! param NAME TYPE[N]`, "
                             "`\\! param NAME TYPE`, `\\! shared NAME TYPE[N]`, `\\! smem NAME TYPE[R,C] STAGES`, "
                             "`\\! tiles M N K IN`, `\\! wg M N K IN`, `\\! tmap NAME ARRAY ROWS,COLS`, `\\! grid X,Y,Z` or "
                             "`\\! block X,Y,Z`", at(col0), "\\!")
        (directive, dcol), args = words[0], words[1:]
        kind = directive.lower()
        if kind == "kernel":
            if len(args) != 1:
                raise ForthError("write `\\! kernel NAME`: one name, a C identifier", at(dcol), directive)
            name, ncol = args[0]
            if kernel is not None:
                raise ForthError(f"a second \\! kernel line: this file already declares kernel {kernel[0]} "
                                 f"(line {kernel[1].line}); a kernel file holds one kernel", at(ncol), name)
            if not _KERNEL_NAME.match(name):
                raise ForthError(f"kernel name {name!r} is not a C identifier (letters, digits and _, not "
                                 "starting with a digit): PTX needs one", at(ncol), name)
            kernel = (name, at(dcol))
        elif kind in ("grid", "block"):
            if shape.get(kind) is not None:
                raise ForthError(f"a second \\! {kind} line (the first is line {shape[kind][1]}): give the "
                                 f"{kind} once", at(dcol), directive)
            shape[kind] = (_parse_triple(kind, args, at(dcol), directive), lineno)
        elif kind in ("param", "shared"):
            if len(args) < 2:
                shape = "TYPE[N]" if kind == "shared" else "TYPE[N] (an array) or TYPE (a scalar)"
                raise ForthError(f"write `\\! {kind} NAME {shape}`, e.g. `\\! {kind} X f32[256]`", at(dcol),
                                 directive)
            (name, ncol), (tytext, tcol) = args[0], args[1]
            tytext = "".join(w for w, _ in args[1:])  # `f32 [ 16 ]` reads as `f32[16]`
            _check_name(name, names, at(ncol))
            eltype, count, ccol = _parse_type(tytext, at(tcol), tcol)
            dims = () if count is None else count if isinstance(count, tuple) else (count,)
            if kind == "param":
                params.append(Param(name, eltype, count, at(ncol), dims))
            else:
                if count is None:
                    raise ForthError(f"shared memory needs a size: `\\! shared {name} {eltype.name.lower()}[N]`",
                                     at(tcol), tytext)
                sym = next((d for d in dims if isinstance(d, str)), None)
                if sym is not None:
                    raise ForthError(f"the size of shared memory must be a number, not {sym}: it is fixed "
                                     "when the kernel is compiled",
                                     _count_pos(Param(name, eltype, count, at(ncol), dims), sym), sym)
                s = Shared(name, eltype, _product(dims), at(ncol), dims)
                shared_bytes = ((shared_bytes + 31) & ~31) + s.nbytes
                if shared_bytes > OPTIN_SHARED_BYTES:
                    raise ForthError(f"shared memory {name} does not fit: a block has at most {OPTIN_SHARED_BYTES} "
                                     f"bytes (an H100's or H200's), and the \\! shared lines so far need "
                                     f"{shared_bytes}", at(ccol), tytext)
                shared.append(s)
            names[name.upper()] = at(ncol)
        elif kind == "smem":
            setup.append(_parse_smem(args, at(dcol), directive))
            _check_name(setup[-1].name, names, setup[-1].pos)
            names[setup[-1].name.upper()] = setup[-1].pos
        elif kind == "tiles":
            setup.append(_parse_tiles(args, at(dcol), directive))
        elif kind == "wg":
            setup.append(_parse_wg(args, at(dcol), directive))
        elif kind == "tmap":
            tmaps.append(_parse_tmap(args, at(dcol), directive))
            _check_name(tmaps[-1].name, names, tmaps[-1].pos)
            names[tmaps[-1].name.upper()] = tmaps[-1].pos
        else:
            raise ForthError(f"unknown header directive {directive!r}: use kernel, param, shared, smem, tiles, "
                             "wg, tmap, grid or block",
                             at(dcol), directive)

    if kernel is None:
        first = lines[0] if lines else ""
        raise ForthError("missing `\\! kernel NAME` line: a kernel file declares its name, then its "
                         "parameters (`\\! param NAME TYPE[N]`), then the Forth", SourcePos(1, 1, first, source))
    for p in params:  # a symbolic size names an integer scalar parameter
        for d in p.dims:
            if not isinstance(d, str):
                continue
            size = next((q for q in params if q.name.upper() == d.upper()), None)
            where = _count_pos(p, d)
            if size is None:
                raise ForthError(f"the size of {p.name}, {d}, is not a parameter: declare "
                                 f"`\\! param {d} i32` or write a number", where, d)
            if size.kind != "int":
                raise ForthError(f"the size of {p.name}, {d}, must be an integer scalar parameter "
                                 f"(it is {'an array' if size.kind == 'ptr' else 'a float'})", where, d)
    for t in tmaps:
        _check_tmap(t, params)
    _check_tile_in(setup)
    last = header_lines[-1]
    grid, block = (shape[k][0] if k in shape else None for k in ("grid", "block"))
    return KernelSpec(kernel[0], params, shared, "\n".join(lines[last:]), last + 1, source, kernel[1],
                      header_lines, grid, block, setup, tmaps)


# the layout words of `\\! smem` and `\\! tmap`: the swizzle (bytes of a row) and the SMEM-TILE word of each
SWIZZLE_WORDS = {"swizzled": 128, "swizzled128": 128, "swizzled64": 64, "swizzled32": 32}
SMEM_WORDS = {0: "SMEM-TILE", 128: "SMEM-TILE-SWZ", 64: "SMEM-TILE-SWZ64", 32: "SMEM-TILE-SWZ32"}


def _parse_smem(args: list[tuple[str, int]], pos: SourcePos, directive: str) -> Setup:
    """`\\! smem NAME TYPE[ROWS,COLS] [STAGES] [swizzled|swizzled64|swizzled32]`: `ROWS COLS TYPE STAGES
    SMEM-TILE(-SWZ, -SWZ64, -SWZ32) NAME`."""
    usage = ("write `\\! smem NAME TYPE[ROWS,COLS] STAGES [swizzled]`, e.g. `\\! smem As bf16[64,64] 3 swizzled` "
             "(swizzled: the 128-byte swizzle; swizzled64, swizzled32: the 64- and 32-byte ones)")
    words = [w for w, _ in args]
    swz = SWIZZLE_WORDS.get(words[-1].lower(), 0) if words else 0
    words = words[:-1] if swz else words
    stages = words[2] if len(words) == 3 else "1"
    m = _TYPE.match(words[1]) if len(words) in (2, 3) else None
    dims = m.group(2).split(",") if m and m.group(2) else []
    et = BY_NAME.get(m.group(1).upper()) if m else None
    if et is None or len(dims) != 2 or not all(re.fullmatch(r"[0-9]+", d.strip()) for d in dims) \
            or not re.fullmatch(r"[0-9]+", stages):
        raise ForthError(usage + " (rows, columns and stages are numbers)", pos, directive)
    name, ncol = args[0]
    word = SMEM_WORDS[swz]
    rows, cols = int(dims[0]), int(dims[1])
    align = SWIZZLED_ALIGN if swz else ALIGN  # each stage aligned (SMEM-TILE's layout)
    return Setup(name, f"{rows} {cols} {et.name} {stages} {word} {name}",
                 SourcePos(pos.line, ncol, pos.text, pos.source), -(-rows * cols * et.size // align) * align * int(stages))


def _parse_tiles(args: list[tuple[str, int]], pos: SourcePos, directive: str) -> Setup:
    """`\\! tiles M N K IN [ACC] [GMxGN]`: `M N K TILE-SHAPE`, then TILE-IN and TILE-ACC in the order their checks
    allow, then `GM GN TILE-GRID` when a grid is given."""
    words = [w for w, _ in args]
    grid = re.fullmatch(r"([0-9]+)x([0-9]+)", words[-1]) if words else None
    if grid:
        words = words[:-1]
    if len(words) not in (4, 5) or not all(re.fullmatch(r"[0-9]+", w) for w in words[:3]) \
            or not all(w.upper() in BY_NAME for w in words[3:]):
        raise ForthError("write `\\! tiles M N K IN [ACC] [GMxGN]`, e.g. `\\! tiles 16 8 16 bf16` (the TILE-SHAPE, "
                         "the TILE-IN type, if not f32 the TILE-ACC type and, for big register tiles, a grid such "
                         "as 4x8)", pos, directive)
    tin, acc = words[3].upper(), (words[4] if len(words) == 5 else "f32").upper()
    types = f"{acc} TILE-ACC {tin} TILE-IN" if acc == "F32" else f"{tin} TILE-IN {acc} TILE-ACC"
    tail = f" {grid.group(1)} {grid.group(2)} TILE-GRID" if grid else ""
    return Setup("", f"{' '.join(words[:3])} TILE-SHAPE {types}{tail}", pos)


def _parse_wg(args: list[tuple[str, int]], pos: SourcePos, directive: str) -> Setup:
    """`\\! wg M N K IN`: `IN TILE-IN  M N K WG-SHAPE` (WG-SHAPE checks the shape)."""
    words = [w for w, _ in args]
    if len(words) != 4 or not all(re.fullmatch(r"[0-9]+", w) for w in words[:3]) \
            or words[3].upper() not in ("F16", "BF16"):
        raise ForthError("write `\\! wg M N K IN`, e.g. `\\! wg 64 128 16 bf16` (the WG-SHAPE of the WGMMA words, "
                         "and their input type, f16 or bf16)", pos, directive)
    return Setup("", f"{words[3].upper()} TILE-IN {' '.join(words[:3])} WG-SHAPE", pos)


def _check_tile_in(setup: list[Setup]) -> None:
    """`\\! tiles` and `\\! wg` both set TILE-IN: they must agree."""
    given = [(s, m.group(1)) for s in setup if (m := re.search(r"(\w+) TILE-IN", s.forth))]
    for s, tin in given[1:]:
        if tin != given[0][1]:
            raise ForthError(f"this line's input type is {tin}, but line {given[0][0].pos.line} made it "
                             f"{given[0][1]}: the tile words and the warpgroup words share TILE-IN; give one type",
                             s.pos, tin.lower())


def _parse_tmap(args: list[tuple[str, int]], pos: SourcePos, directive: str) -> TensorMapDecl:
    """`\\! tmap NAME ARRAY ROWS,COLS [swizzled|swizzled64|swizzled32]`."""
    words = [w for w, _ in args]
    swz = SWIZZLE_WORDS.get(words[-1].lower(), 0) if len(words) == 4 else 0
    box = "".join(words[2:3]).split(",")
    if len(words) != (4 if swz else 3) or len(box) != 2 or not all(re.fullmatch(r"[0-9]+", b) for b in box):
        raise ForthError("write `\\! tmap NAME ARRAY ROWS,COLS [swizzled]`, e.g. `\\! tmap tA A 64,64 swizzled` "
                         "(a tensor map of the array parameter A, boxes of 64 x 64 elements; swizzled: the 128-byte "
                         "swizzle, swizzled64 and swizzled32 the 64- and 32-byte ones)", pos, directive)
    (name, ncol), (array, _) = args[0], args[1]
    return TensorMapDecl(name, array, int(box[0]), int(box[1]), swz, SourcePos(pos.line, ncol, pos.text, pos.source))


def _check_tmap(t: TensorMapDecl, params: list[Param]) -> None:
    """The array is an array parameter; the box fits what TMA allows (the rest is checked for each call)."""
    p = next((q for q in params if q.name.upper() == t.array.upper()), None)
    col = t.pos.text.find(t.array, t.pos.col - 1 + len(t.name)) + 1
    at = SourcePos(t.pos.line, col if col > 0 else t.pos.col, t.pos.text, t.pos.source)
    if p is None or p.count is None:
        what = "is a scalar" if p is not None else "is not a parameter"
        raise ForthError(f"tmap {t.name}: {t.array} {what}; a tensor map is of an array parameter "
                         f"(`\\! param {t.array} bf16[M,K]`)", at, t.array)
    if len(p.dims) > 2:
        raise ForthError(f"tmap {t.name}: {p.name} has {len(p.dims)} dimensions; a tensor map here is of a 1- or "
                         "2-dimensional array", at, t.array)
    try:  # the box's rules, with a stand-in array that has every alignment
        check(TensorMap(0, t.box_rows, t.box_cols, STRIDE_ALIGN, p.eltype.name, p.eltype.size, t.box_rows,
                        t.box_cols, t.swizzle), f"tmap {t.name}")
    except ForthError as err:
        raise ForthError(err.message, t.pos, t.name) from None


def _product(dims) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _parse_triple(kind: str, args: list[tuple[str, int]], pos: SourcePos, directive: str) -> tuple[int, int, int]:
    """`X,Y,Z`, `X Y Z` or `X` (then Y and Z are 1): positive numbers."""
    parts = [t for w, _ in args for t in w.split(",") if t]
    example = "4,1,1" if kind == "grid" else "256,1,1"
    if not 1 <= len(parts) <= 3 or not all(re.fullmatch(r"[0-9]+", t) and int(t) > 0 for t in parts):
        raise ForthError(f"write `\\! {kind} X,Y,Z`, positive numbers, e.g. `\\! {kind} {example}` (Y and Z "
                         "may be left out: 1)", pos, directive)
    n = [int(t) for t in parts] + [1] * (3 - len(parts))
    return n[0], n[1], n[2]


def _words(line: str, start: int) -> list[tuple[str, int]]:
    """The blank-separated words after `\\!` with their 1-based columns; `\\ ` starts a comment."""
    out = []
    for m in re.finditer(r"\S+", line[start - 1:]):
        if m.group() == "\\":
            break
        out.append((m.group(), start + m.start()))
    return out


def _check_name(name: str, names: dict[str, SourcePos], pos: SourcePos) -> None:
    if name.upper() in names:
        raise ForthError(f"duplicate name {name}: it is already declared at line {names[name.upper()].line}",
                         pos, name)
    if parse_integer(name, 10) is not None or parse_float(name) is not None:
        raise ForthError(f"{name} is a number, not a name: choose a word such as X or DATA", pos, name)


def _parse_type(text: str, pos: SourcePos, col: int) -> tuple[ElType, int | str | tuple | None, int]:
    m = _TYPE.match(text)
    if not m:
        raise ForthError(f"bad type {text!r}: write TYPE or TYPE[N], e.g. f32 or f32[256]", pos, text)
    eltype = BY_NAME.get(m.group(1).upper())
    if eltype is None:
        raise ForthError(f"unknown type {m.group(1)!r}: use one of {TYPE_NAMES}", pos, text)
    ccol = col + len(m.group(1)) + 1
    cpos = SourcePos(pos.line, ccol, pos.text, pos.source)
    if m.group(2) is None:
        return eltype, None, ccol
    if "," in m.group(2):  # TYPE[M,N,...]: each dimension as a count of its own
        pieces = [(d.group().strip(), d.start() + len(d.group()) - len(d.group().lstrip()))
                  for d in re.finditer(r"[^,]*", m.group(2)) if d.start() == 0 or m.group(2)[d.start() - 1] == ","]
        dims = tuple(_parse_count(d, eltype, text, SourcePos(pos.line, ccol + off, pos.text, pos.source))
                     for d, off in pieces)
        known = _product(d for d in dims if isinstance(d, int))
        if known * eltype.size > DEVICE_ARRAY_MAX:
            raise ForthError(f"bad dimensions {m.group(2)}: {known * eltype.size:,} bytes, more than the "
                             f"{DEVICE_ARRAY_MAX:,} bytes an array may have; declare a smaller array", cpos,
                             m.group(2))
        return eltype, dims, ccol
    return eltype, _parse_count(m.group(2).strip(), eltype, text, cpos), ccol


def _parse_count(count: str, eltype: ElType, text: str, cpos: SourcePos) -> int | str:
    if re.fullmatch(r"[0-9]+", count):
        if int(count) < 1:
            raise ForthError(f"bad count {count}: an array needs at least one element", cpos, count)
        if int(count) * eltype.size > DEVICE_ARRAY_MAX:
            raise ForthError(f"bad count {count}: {int(count) * eltype.size:,} bytes, more than the "
                             f"{DEVICE_ARRAY_MAX:,} bytes an array may have; declare a smaller array",
                             cpos, count)
        return int(count)
    if count and parse_integer(count, 10) is None and not count.startswith(("-", "+")) \
            and re.fullmatch(r"[^\s\[\],]+", count):
        return count
    raise ForthError(f"bad count {count!r}: write the number of elements, or the name of an integer "
                     "parameter, e.g. f32[256] or f32[N]", cpos, count or text)


def _count_pos(p: Param, dim: str | None = None) -> SourcePos:
    """Where the size (or the dimension `dim`) is written in p's header line."""
    col = p.pos.text.find("[", p.pos.col) + 2
    if dim is not None and col > 1:
        m = re.compile(rf"(?<![^\s\[,]){re.escape(dim)}(?![^\s\],])").search(p.pos.text, col - 1)
        col = m.start() + 1 if m else col
    return SourcePos(p.pos.line, col if col > 1 else p.pos.col, p.pos.text, p.pos.source)


# ---- reading the body in a session -------------------------------------------------------
class KernelBody(Collector):
    """A kernel file's body, gathered as one kernel: host words are refused,
    since they run between launches and the body is a single launch."""

    HINTS = {"CONSTANT": "define a word instead, e.g. `: NAME 16 ;`",
             "FCONSTANT": "define a word instead, e.g. `: NAME 1.5e ;`",
             "GRID": "set the launch shape with --grid", "THREADS": "set the launch shape with --block",
             "SHARED:": "declare it in the header: `\\! shared NAME TYPE[N]`",
             **dict.fromkeys(("SMEM-TILE", "SMEM-TILE-SWZ"), "declare the tile in the header: "
                             "`\\! smem NAME TYPE[ROWS,COLS] STAGES [swizzled]`"),
             **dict.fromkeys(("TILE-SHAPE", "TILE-IN", "TILE-ACC", "TILE-GRID"), "give the tile settings in the "
                             "header: `\\! tiles M N K IN [ACC] [GMxGN]`, e.g. `\\! tiles 16 8 16 bf16 4x8`"),
             "WG-SHAPE": "give the warpgroup shape in the header: `\\! wg 64 N 16 IN`, e.g. `\\! wg 64 128 16 bf16`",
             "TMAP": "declare the tensor map in the header: `\\! tmap NAME ARRAY ROWS,COLS [swizzled]`"}

    def host_word(self, word: HostWord, tok: Token) -> None:
        hint = self.HINTS.get(word.name, "declare arrays in the header (`\\! param NAME TYPE[N]`)")
        raise ForthError(f"{word.name} is a host word (it runs between launches), but a kernel file's body "
                         f"is one launch: {hint}", tok.pos, tok.text)


# the names kernel files run in a session defined (parameters, shared arrays): a second run may define them
# again (run_kernel_file is repeatable), but they must not hide the session's own words
_KERNEL_NAMES: "weakref.WeakKeyDictionary[Forth, dict[str, int | str]]" = weakref.WeakKeyDictionary()


def check_names(f: Forth, spec: KernelSpec) -> None:
    """Parameter and shared names must not hide a word of the session (I, DUP ...); a name an
    earlier kernel file run in this session defined may be defined again."""
    mine = _KERNEL_NAMES.get(f, {})
    for item in [*spec.params, *spec.shared, *(s for s in spec.setup if s.name), *spec.tmaps]:
        key = item.name.upper()
        if key in f.dict and key not in mine:
            raise ForthError(f"{item.name} would hide the Forth word {key}: choose another name",
                             item.pos, item.name)


def declare_shared(f: Forth, spec: KernelSpec) -> None:
    mine = _KERNEL_NAMES.setdefault(f, {})
    for s in spec.shared:
        key = s.name.upper()
        if mine.get(key) == s.nbytes and getattr(f.dict.get(key), "shared", None) is not None:
            continue  # declared by an earlier run, the same size: the same shared array
        f.eval(f"{s.nbytes} SHARED: {s.name}")
        mine[key] = s.nbytes
    for t in spec.setup:  # `\! smem` and `\! tiles`: the host words they stand for
        key = t.name.upper()
        if t.name and mine.get(key) == t.forth and key in f.dict:
            continue  # the same tile, declared by an earlier run
        try:
            f.eval(t.forth, source=spec.source)
        except ForthError as err:
            raise ForthError(err.message, t.pos, t.name or "tiles") from None
        if t.name:
            mine[key] = t.forth


def block_shared_bytes(spec: KernelSpec) -> int:
    """The shared memory a block of the kernel takes: its `\\! shared` arrays and `\\! smem` rings laid out
    as a session lays them out (declare_shared, in a scratch session that runs nothing)."""
    scratch = Forth()
    check_names(scratch, spec)
    declare_shared(scratch, spec)
    return scratch.shared_bytes


def declare_tensor_maps(f: Forth, spec: KernelSpec, values: dict[str, Value]) -> None:
    """`\\! tmap` in a session: TMAP of the run's arrays (again at each run: they are new arrays), by the
    dimensions of their header (a session's ARRAY of a kernel file's parameter is flat)."""
    mine = _KERNEL_NAMES.setdefault(f, {})
    for t in spec.tmaps:
        p = spec.param(t.array)
        assert p is not None  # parse_kernel_file checked it
        dims = [d if isinstance(d, int) else int(values[d.upper()]) for d in p.dims]
        rows, cols = (1, dims[0]) if len(dims) == 1 else dims
        word = f.dict[p.name.upper()]
        tok = Token(t.name, t.pos)
        try:
            define_tensor_map(f, t.name, p.name, word.value, rows, cols, p.eltype, t.box_rows, t.box_cols,
                              t.swizzle, tok)
        except ForthError as err:
            raise ForthError(err.message.replace("TMAP:", f"tmap {t.name}:", 1), t.pos, t.name) from None
        mine[t.name.upper()] = t.forth


def declare_params_for_export(f: Forth, spec: KernelSpec) -> None:
    """Each parameter name compiles to a read of the kernel's parameter (PTX)."""
    for i, p in enumerate(spec.params):
        f.dict[p.name.upper()] = Constant(p.name, 0, param=(i, p.kind),
                                          help=f"kernel parameter {i}: {_describe(p)}")
    for j, t in enumerate(spec.tmaps, start=len(spec.params)):
        f.dict[t.name.upper()] = Constant(t.name, 0, param=(j, "ptr"),
                                          help=f"kernel parameter {j}: a tensor map of {t.array}, "
                                               f"{t.box_rows}x{t.box_cols} boxes")


def read_body(f: Forth, spec: KernelSpec) -> list[Node]:
    """Evaluate the body, defining its words and collecting its top-level code."""
    f.collector = KernelBody()
    try:
        if spec.index_words():
            f.eval(spec.index_words(), source=f"{spec.source} (index words)")
        f.eval(spec.padded_body(), source=spec.source)
        nodes = f.collector.nodes
    finally:
        f.collector = None
    if f.colon is not None:
        c = f.colon
        f.colon, f.frames = None, []
        raise ForthError(f"the definition of {c.name} is not closed: add ; at its end", c.pos, c.name)
    if f.frames:
        fr = f.frames[-1]
        f.frames = []
        raise ForthError(f"{OPENERS[fr.kind]} is not closed: add {CLOSERS[fr.kind]} before the end of the file",
                         fr.pos, OPENERS[fr.kind])
    eff = body_effect(nodes)
    if not eff.static or eff.dneed or eff.fneed:
        where = next((n.pos for n in nodes if getattr(n, "pos", None) is not None), None)
        raise ForthError(f"the body of kernel {spec.name} must have a static stack effect that needs no "
                         f"inputs, but it has {eff.notation()}: parameters are words, not stack items",
                         where)
    return nodes


def _describe(p: Param) -> str:
    t = p.eltype.name.lower()
    return f"{t}[{','.join(map(str, p.dims))}]" if p.count is not None else t


# ---- running on a backend -------------------------------------------------------------------
Value = np.ndarray | int | float


def parse_param_values(spec: KernelSpec, args: list[str]) -> dict[str, Value]:
    """`NAME=v1,v2,...`, `NAME=@file.npy` (arrays, converted to the declared
    element type as numpy's astype does) and `NAME=value` (scalars)."""
    values: dict[str, Value] = {}
    for arg in args:
        name, eq, text = arg.partition("=")
        p = spec.param(name.strip())
        if not eq or not name.strip():
            raise ForthError(f"--param {arg!r}: write NAME=VALUE, NAME=v1,v2,... or NAME=@file.npy")
        if p is None:
            have = ", ".join(q.name for q in spec.params) or "none"
            raise ForthError(f"--param {name}: kernel {spec.name} has no parameter {name} (it has {have})")
        key = p.name.upper()
        if key in values:
            raise ForthError(f"--param {p.name} is given twice")
        text = text.strip()
        try:
            if p.count is None:
                values[key] = _scalar(p, text)
            elif text.startswith("@"):  # converted to the declared type as numpy's astype does (as LOAD-NPY)
                arr = read_npy(Path(text[1:]).expanduser(), f"--param {p.name}", max_bytes=host_memory_bytes())
                values[key] = (arr if len(p.dims) > 1 else arr.reshape(-1)).astype(p.eltype.dtype)
            else:
                items = [t for t in text.replace(" ", ",").split(",") if t]
                values[key] = np.array([_scalar(p, t) for t in items],
                                       dtype=np.float64 if p.eltype.is_float else np.int64).astype(p.eltype.dtype)
        except OSError as e:
            raise ForthError(f"--param {p.name}: cannot read {text[1:]}: {e.strerror or e}") from None
        except ValueError as e:
            raise ForthError(f"--param {p.name}: {e}") from None
    return values


def _scalar(p: Param, text: str) -> int | float:
    if p.eltype.is_float:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a number ({p.name} is {_describe(p)})") from None
    try:
        v = int(text, 0)
    except ValueError:
        try:
            f = float(text)
        except ValueError:
            f = None
        if f is None or not f.is_integer():
            raise ValueError(f"{text!r} is not an integer ({p.name} is {_describe(p)})") from None
        v = int(f)
    if not -2**63 <= v < 2**64:
        raise ValueError(f"{text} does not fit in a 64-bit cell ({p.name} is {_describe(p)}); give a smaller "
                         "value")
    bits = p.eltype.size * 8
    if p.count is None and bits < 64 and not -2**(bits - 1) <= v < 2**bits:
        raise ValueError(f"{text} does not fit in {p.name}, an {_describe(p)} (from {-2**(bits - 1)} to "
                         f"{2**bits - 1}, bits taken as signed); give a smaller value")
    return v


def scalar_value(p: Param, v: int | float, float_bits: int = 32) -> int | float:
    """What the body sees of a scalar given as v, as an exported kernel does:
    an integer wrapped to its declared width and sign-extended to a cell, a
    float rounded to its declared type, then to the float stack's (float_bits wide)."""
    if not p.eltype.is_float:
        bits = p.eltype.size * 8
        v = int(v) & ((1 << bits) - 1)
        return v - (1 << bits) if v >> (bits - 1) else v
    v = float(np.asarray(v, dtype=np.float64).astype(p.eltype.dtype).astype(np.float64))
    return v if float_bits == 64 else to_f32(v)


def _given(spec: KernelSpec, values: dict, cli: bool) -> dict[str, Value]:
    """The values by parameter, names in any case (`{"x": ...}` is X's);
    from Python, arrays must have the declared element type."""
    out: dict[str, Value] = {}
    names: dict[str, str] = {}
    for name, v in values.items():
        p = spec.param(str(name))
        if p is None:
            have = ", ".join(q.name for q in spec.params) or "none"
            raise ForthError(f"kernel {spec.name} has no parameter {name!r} (it has {have}); the values are "
                             "keyed by parameter name, in any case")
        key = p.name.upper()
        if key in out:
            raise ForthError(f"the values give {p.name} twice ({names[key]!r} and {name!r}): give each parameter "
                             "once")
        names[key] = name
        if not cli:
            v = _python_value(p, name, v)
        out[key] = v
    return out


def _python_value(p: Param, name, v) -> Value:
    """A value given from Python, checked against the parameter's declaration."""
    if p.count is None:
        if isinstance(v, (np.ndarray, list, tuple)):
            raise ForthError(f"values[{name!r}] is an array, but {p.name} is a scalar ({_describe(p)}): give "
                             f"one number, e.g. {{{name!r}: {2.0 if p.eltype.is_float else 4}}}")
        try:
            return float(v) if p.eltype.is_float else _scalar(p, str(int(v)) if not isinstance(v, str) else v)
        except (TypeError, ValueError) as e:
            raise ForthError(f"values[{name!r}]: {e if isinstance(e, ValueError) else repr(v)} is not a number "
                             f"({p.name} is {_describe(p)})") from None
    if isinstance(v, np.ndarray):
        if v.dtype != p.eltype.dtype:
            module = "ml_dtypes" if p.eltype.dtype == np.dtype(ml_dtypes.bfloat16) else "np"
            raise ForthError(f"values[{name!r}] is a {v.dtype} array, but {p.name} is {_describe(p)} "
                             f"({p.eltype.dtype}): convert it first, e.g. "
                             f"values[{name!r}].astype({module}.{p.eltype.dtype.name})")
        return v if len(p.dims) > 1 else v.reshape(-1)  # a shape gives the dimensions (_sizes)
    if isinstance(v, (list, tuple)):
        try:
            arr = np.asarray(v, dtype=np.float64 if p.eltype.is_float else np.int64)
        except (TypeError, ValueError):
            raise ForthError(f"values[{name!r}] must hold numbers ({p.name} is {_describe(p)})") from None
        return arr if len(p.dims) > 1 else arr.reshape(-1)
    raise ForthError(f"values[{name!r}] must be a numpy array or a list of numbers ({p.name} is {_describe(p)}), "
                     f"not {type(v).__name__}")


def _ask(p_name: str, cli: bool, what: str = "VALUE") -> str:
    """How the caller gives a parameter: `--param NAME=...` (the CLI) or a
    key of run_kernel_file's values (Python)."""
    return f"--param {p_name}={what}" if cli else f"values[{p_name!r}] = {what}"


def _sizes(spec: KernelSpec, values: dict[str, Value], cli: bool = True) -> dict[str, int]:
    """Each array's element count; a size parameter that was not given is
    taken from the arrays given for it: a one-dimensional array's length, or
    a multi-dimensional array's shape (numpy arrays of as many dimensions)."""
    scalars = {p.name.upper(): int(values[p.name.upper()]) for p in spec.params
               if p.kind == "int" and p.name.upper() in values}
    seen: dict[str, dict[int, str]] = {}  # an unknown size parameter -> {value: the array that gives it}
    for q in spec.params:
        given = values.get(q.name.upper())
        if given is None or not q.dims:
            continue
        shape = np.shape(given)
        if len(q.dims) > 1 and len(shape) > 1:
            if len(shape) != len(q.dims):
                raise ForthError(f"{_where(q, cli)} has {len(shape)} dimensions {shape}, but {q.name} is "
                                 f"{_describe(q)}: give {len(q.dims)}, or the values flat")
            pairs = list(zip(q.dims, shape))
        elif len(q.dims) == 1:
            pairs = [(q.dims[0], len(given))]
        else:
            continue
        for d, n in pairs:
            if isinstance(d, int) or d.upper() in scalars:
                want = d if isinstance(d, int) else scalars[d.upper()]
                if len(q.dims) > 1 and n != want:
                    raise ForthError(f"{_where(q, cli)} has shape {shape}, but {q.name} is {_describe(q)} with "
                                     f"{d} = {want}: give an array of that shape, or the values flat")
                continue
            seen.setdefault(d.upper(), {}).setdefault(n, q.name)
    for d, given in seen.items():
        if len(given) > 1:
            raise ForthError(f"the arrays sized by {d} were given {sorted(given)} values: give "
                             f"{_ask(d, cli, '...')} or arrays of one length")
        scalars[d] = next(iter(given))
    sizes = {}
    for p in spec.params:
        if not p.dims:
            continue
        n = _product(d if isinstance(d, int) else scalars.get(d.upper(), 0) for d in p.dims)
        if n < 1:
            unknown = next((d for d in p.dims if isinstance(d, str) and scalars.get(d.upper(), 0) < 1), p.count)
            raise ForthError(f"{p.name} has {n} elements: give its size with {_ask(unknown, cli, '...')} "
                             f"(or its values with {_ask(p.name, cli, 'v1,v2,...' if cli else '[v1, v2, ...]')})")
        given = values.get(p.name.upper())
        if given is not None and np.size(given) > n:
            raise ForthError(f"{_where(p, cli)} has {np.size(given)} values, but {p.name} has {n} elements")
        sizes[p.name.upper()] = n
    for name, n in scalars.items():
        values.setdefault(name, n)  # an inferred size parameter
    missing = [p for p in spec.params if p.count is None and p.name.upper() not in values]
    if missing:
        p = missing[0]
        example = "2.0" if p.eltype.is_float else "4"
        also = f" (and {', '.join(q.name for q in missing[1:])})" if len(missing) > 1 else ""
        raise ForthError(f"kernel {spec.name} needs its parameter {p.name} ({_describe(p)}){also}: give it with "
                         f"{_ask(p.name, cli, example)}")
    return sizes


def _where(p: Param, cli: bool) -> str:
    return f"--param {p.name}" if cli else f"values[{p.name!r}]"


def run_kernel_file(f: Forth, spec: KernelSpec, values: dict[str, Value],
                    grid: tuple[int, int, int] | None = None, block: tuple[int, int, int] | None = None, *,
                    cli: bool = False) -> str:
    """One launch of the kernel over grid x block on f's backend (a fresh
    session): arrays are allocated and filled (missing values are zeros),
    scalars become constants. `values` maps parameter names, in any case,
    to numbers (scalars) and numpy arrays of the declared element type or
    lists (arrays); every scalar must be given, but a size parameter may
    be left to the arrays sized by it. Returns what the kernel printed;
    the arrays are then f.array(NAME), flat (row-major: reshape them by
    their dimensions). A multi-dimensional array may be given with its
    shape, which gives its size parameters, or flat. Scalars reach the body
    as their declared type makes them (scalar_value). grid and block default
    to the file's `\\! grid` and `\\! block`, else 1,1,1 and 32,1,1.
    `cli`: errors name `--param` options (`tileforth run`, whose values
    parse_param_values made)."""
    check_names(f, spec)
    try:
        grid, block = check_python_shape(f.backend.caps, grid or spec.grid or (1, 1, 1),
                                         block or spec.block or (32, 1, 1), f.backend.name)
    except ForthError as err:
        raise ForthError(f"{err.message}; give a smaller {'--grid or --block' if cli else 'grid or block'}") \
            from None
    values = _given(spec, values, cli)
    sizes = _sizes(spec, values, cli)
    scalars = tuple(_scalar_of(p, values[p.name.upper()], f.machine.float_bits) for p in spec.params
                    if p.count is None)
    key = (_spec_key(spec), f.backend.name, f.machine.float_bits, f.checked, tuple(sorted(sizes.items())), scalars)
    prepared = _PREPARED.get(f)
    if prepared is not None and prepared.current(f, key):
        for p in spec.params:  # the same arrays, refilled: the kernel's words name their addresses
            if p.count is not None:
                f.set_array(p.name, _array_data(p, sizes[p.name.upper()], values.get(p.name.upper())))
        nodes = prepared.nodes
        f.eval(" ".join(map(str, grid)) + " GRID " + " ".join(map(str, block)) + " THREADS")
    else:
        nodes = _prepare(f, spec, values, sizes, grid, block)
        _PREPARED[f] = Prepared(key, nodes, {n: f.dict.get(n) for n in _prepared_names(spec)})
        READS[0] += 1
    try:
        out = f.run_nodes(nodes)  # the whole body is one launch, as on the GPU
    except ForthError as err:  # ARRAY and SHARED: are refused in a body: name what it has instead
        if BAD_ADDRESS_HINT not in err.message:
            raise
        raise ForthError(err.message.replace(BAD_ADDRESS_HINT, KERNEL_ADDRESS_HINT), err.pos, err.word,
                         err.output, err.code) from None
    for p in spec.params:  # numpy arrays given get the results, as f.kernel writes its arrays back
        given = values.get(p.name.upper())
        if p.count is not None and isinstance(given, np.ndarray) and given.flags.writeable:
            result = f.array(p.name).reshape(-1)
            if result.size == given.size:
                np.copyto(given, result.reshape(given.shape), casting="unsafe")
    return out


def _prepare(f: Forth, spec: KernelSpec, values: dict[str, Value], sizes: dict[str, int], grid: tuple,
             block: tuple) -> list[Node]:
    """The session made ready for a launch of the kernel: its arrays allocated and filled, its scalars
    constants, its shared memory and tensor maps declared, the launch shape set; the body read (its
    words defined and compiled): the body's top-level nodes."""
    for p in spec.params:
        key = p.name.upper()
        if p.count is not None:
            nbytes, most = sizes[key] * p.eltype.size, array_bytes_max(f.backend)
            if nbytes > most:
                raise ForthError(f"{p.name} is {_describe(p)} with {sizes[key]:,} elements, {nbytes:,} bytes: more "
                                 f"than the {most:,} bytes an array may have on the {f.backend.name} backend; "
                                 "give a smaller size", _count_pos(p) if isinstance(p.count, int) else None)
            f.eval(f"{sizes[key]} {p.eltype.name} ARRAY {p.name}")
            given = values.get(key)
            if given is not None and np.size(given):
                f.set_array(p.name, _array_data(p, sizes[key], given))
        elif p.kind == "float":
            v = scalar_value(p, values[key], f.machine.float_bits)
            f.dict[key] = Constant(p.name, v, is_float=True, help=f"( F: -- r ) kernel parameter {p.name}")
        else:
            v = scalar_value(p, values[key])
            f.dict[key] = Constant(p.name, v, help=f"( -- x ) kernel parameter {p.name}")
    mine = _KERNEL_NAMES.setdefault(f, {})
    mine.update({p.name.upper(): 0 for p in spec.params})
    declare_shared(f, spec)
    declare_tensor_maps(f, spec, values)
    f.eval(" ".join(map(str, grid)) + " GRID " + " ".join(map(str, block)) + " THREADS")
    return read_body(f, spec)


def _array_data(p: Param, n: int, given: Value | None) -> np.ndarray:
    """An array parameter's n values: those given, zeros after them (and for an array not given)."""
    data = np.zeros(n, np.float64 if p.eltype.is_float else np.int64)
    if given is not None and np.size(given):
        flat = np.asarray(given).reshape(-1)
        data[:flat.size] = flat.astype(data.dtype)
    return data


@record(eq=False)
class Prepared:
    """A session's last kernel file made ready (run_kernel_file): its key (what the code depends on), the
    body's nodes and the dictionary entries it made (arrays, constants, shared memory, tiles, tensor maps).
    A call with the same key, while the entries are still the session's, refills the arrays and launches
    the same nodes: the session's kernel cache has their kernel, so nothing is read or compiled again."""
    key: tuple
    nodes: list
    entries: dict

    def current(self, f: Forth, key: tuple) -> bool:
        return key == self.key and all(f.dict.get(name) is entry for name, entry in self.entries.items())


# the last kernel file each session ran (run_kernel_file's cache); READS[0]: bodies read (prepared) so far
_PREPARED: "weakref.WeakKeyDictionary[Forth, Prepared]" = weakref.WeakKeyDictionary()
READS = [0]


def _spec_key(spec: KernelSpec) -> tuple:
    """What a kernel file's code depends on: everything its header and body say (not where it was read from)."""
    return (spec.name, spec.body, spec.body_line, spec.source, spec.header_lines,
            tuple((p.name, p.eltype.name, p.dims) for p in spec.params),
            tuple((s.name, s.eltype.name, s.count, s.dims) for s in spec.shared),
            tuple(s.forth for s in spec.setup), tuple(t.forth for t in spec.tmaps))


def _prepared_names(spec: KernelSpec) -> list[str]:
    names = [p.name for p in spec.params] + [s.name for s in spec.shared] + [s.name for s in spec.setup if s.name]
    return [n.upper() for n in names + [t.name for t in spec.tmaps]]


def _scalar_of(p: Param, v: Value, float_bits: int) -> int | float:
    """What the body sees of scalar p given as v (scalar_value, a float at the session's width)."""
    assert not isinstance(v, np.ndarray)  # _given checked the scalars
    return scalar_value(p, v, float_bits) if p.kind == "float" else scalar_value(p, v)


KERNEL_ADDRESS_HINT = ("use an address inside a parameter array (`\\! param NAME TYPE[N]`) or a shared one "
                       "(`\\! shared NAME TYPE[N]`), e.g. `GLOBAL-ID 4 * X +` for an f32 X")


SUMMARY_ELEMENTS = 256  # a larger array prints as its first and last values (--save writes them all)
EDGE_ITEMS = 3


def format_array(name: str, arr: np.ndarray, *, summary: int | None = None) -> str:
    """`NAME = [1. 2. 3.]`: numpy's notation on one line, every element, exact.
    With `summary`, an array of more elements shows its first and last
    EDGE_ITEMS, `...` between them, and how many elements it has."""
    if arr.dtype in (np.dtype(ml_dtypes.bfloat16),):
        arr = arr.astype(np.float32)
    large = summary is not None and arr.size > summary
    body = np.array2string(arr, max_line_width=sys.maxsize, threshold=summary if large else sys.maxsize,
                           edgeitems=EDGE_ITEMS, separator=" ",
                           floatmode="unique")  # every digit needed to read the value back
    return f"{name} = {body}" + (f"  ({arr.size:,} elements)" if large else "")
