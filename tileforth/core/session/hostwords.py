"""Host words (run between launches) and immediate words (act while code is
built: control structures, comments, strings, definitions).

Each is a table row: name, stack effect, help, function, example.
"""
from __future__ import annotations

import itertools
import math
import os
from typing import TYPE_CHECKING

from ..compile.primitives import TABLE as PRIMS
from ..compile.state import StackState, differing_warps
from ..compile.target import Capabilities
from ..compile.tiles import ACC_TYPES, IN_TYPES, SHAPES
from ..errors import ForthError, SourcePos
from ..front.dictionary import Colon, Constant, HostWord, Immediate
from ..front.reader import Reader, Token
from ..front.tree import Begin, Break, Do, Exit, HostOp, If, Jump, Label, Leave, Lit, LocalsDef, Node, Prim, Recurse
from ..lazy import np
from ..records import field, record, replace
from ..compile.eltypes import BY_CODE

if TYPE_CHECKING:
    from .interpreter import Forth

DEVICE_ARRAY_MAX = 1 << 40  # bytes: beyond any GPU's memory (the driver refuses less when it has less)


def array_bytes_max(backend) -> int:
    """The most bytes one array may have: the host's physical memory on the
    cpu backend (its arrays are host memory, and numpy would map more lazily,
    then be killed when it is touched), otherwise DEVICE_ARRAY_MAX."""
    return host_memory_bytes() if backend.caps.host_memory else DEVICE_ARRAY_MAX


def host_memory_bytes() -> int:
    """The host's physical memory (DEVICE_ARRAY_MAX where it cannot be told)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return DEVICE_ARRAY_MAX


def alloc_array(f: "Forth", shape: tuple[int, ...], et, what: str) -> int:
    """Allocate an array of `shape` elements of type `et`, or refuse with its
    size and the limit (a ForthError, never a MemoryError)."""
    dims = "x".join(map(str, shape))
    nbytes = math.prod(shape) * et.size  # Python ints: no int64 overflow
    most = array_bytes_max(f.backend)
    if nbytes > most:
        raise ForthError(f"{what}: a {dims} {et.name} array is {nbytes:,} bytes, more than the {most:,} bytes "
                         f"an array may have on the {f.backend.name} backend; make it smaller")
    try:
        return f.backend.alloc(nbytes)
    except MemoryError:
        raise ForthError(f"{what}: not enough memory for a {dims} {et.name} array ({nbytes:,} bytes); "
                         "make it smaller or free memory") from None


@record
class Frame:
    """An open control structure while code is being built."""

    kind: str  # if else begin while while2 do case of endof, dest rest (CS-PICK), orig fdest (jumps: CS-ROLL)
    pos: SourcePos
    a: list[Node] = field(default_factory=list)
    b: list[Node] = field(default_factory=list)
    query: bool = False
    exit: list[Node] = field(default_factory=list)  # a WHILE's exit path, after REPEAT or ELSE (see i_repeat)
    exiting: bool = False
    label: int = 0  # orig, fdest: the Label their jumps go to (their `a` is the list the jumps are in)

    def items(self) -> list[Node]:
        if self.exiting:
            return self.exit
        return self.b if self.kind in ("else", "while", "endof") else self.a


CLOSERS = {"if": "THEN", "else": "THEN", "begin": "UNTIL, AGAIN or WHILE ... REPEAT", "while": "REPEAT",
           "while2": "REPEAT ... THEN",
           "do": "LOOP or +LOOP", "case": "ENDCASE", "of": "ENDOF", "endof": "ENDCASE",
           "dest": "UNTIL", "rest": "the loop's UNTIL or AGAIN", "orig": "THEN", "fdest": "UNTIL, AGAIN or REPEAT"}
OPENERS = {"if": "IF", "else": "ELSE", "begin": "BEGIN", "while": "WHILE", "while2": "WHILE", "do": "DO",
           "case": "CASE", "of": "OF", "endof": "OF", "dest": "CS-PICK", "rest": "a jump back made with CS-PICK",
           "orig": "IF or AHEAD", "fdest": "BEGIN"}




def export_memory(f: "Forth"):
    """What a portable export (word_ptx) must not bake in: the session's
    ARRAY/MATRIX names (each becomes a kernel parameter, named after it),
    its data space (copied into the kernel, as far as HERE) and every other
    allocation (refused). SHARED: names need nothing: an export declares its
    own shared memory."""
    from ..compile.compiler import SessionMemory
    arrays: dict[int, tuple[str, int]] = {}
    taken: set[str] = set()
    for wl in f.wordlists:
        for entry in wl.values():
            if isinstance(entry, Constant) and entry.array is not None and entry.array[0] not in arrays:
                addr, shape, et = entry.array
                name, n = entry.name, 2
                while name.upper() in taken:  # a redefined name: both arrays may be named
                    name, n = f"{entry.name}_{n}", n + 1
                taken.add(name.upper())
                arrays[addr] = (name, math.prod(shape) * et.size)
    sizes = f.backend.allocation_sizes()
    others = {a: ("PAD" if a == f.pad_addr else "memory the session allocated", int(n))
              for a, n in dict(sizes).items() if a not in arrays and a != f.data_addr}
    here = min(f.here, f.data_space_size)
    data = bytes(np.asarray(f.backend.read(f.data_addr, here)).view(np.uint8)) if here else b""
    return SessionMemory(arrays, f.data_addr, data, f.data_space_size, others)


def _name(f: "Forth", tok: Token) -> Token:
    nxt = f.reader.next_token()
    if nxt is None:
        raise ForthError(f"{tok.text} needs a name after it, e.g. `{tok.text} foo`", tok.pos, tok.text)
    return nxt


def _align(f: "Forth") -> None:
    f.here = (f.here + 7) & ~7


def _allot(f: "Forth", n: int) -> int:
    if f.here + n > f.data_space_size or f.here + n < 64:
        raise ForthError(f"data space exhausted: {n} bytes do not fit ({f.data_space_size - f.here} left); "
                         "use ARRAY for large buffers")
    addr = f.data_addr + f.here
    f.here += n
    return addr


def _define(f: "Forth", entry) -> None:
    f.define(entry)


# ---- defining words ----------------------------------------------------------------
def w_constant(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    (v,) = f.pop_uniform(1, "CONSTANT")
    _define(f, Constant(name.text, v, help="( -- x ) a constant"))


def w_fconstant(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    r = f.pop_uniform_float("FCONSTANT")
    _define(f, Constant(name.text, r, is_float=True, help="( F: -- r ) a float constant"))


def w_variable(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    _align(f)
    addr = _allot(f, 8)
    f.write_cell(addr, 0)
    _define(f, Constant(name.text, addr, help="( -- addr ) a variable"))


def w_create(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    _align(f)
    _define(f, Constant(name.text, f.data_addr + f.here, help="( -- addr ) created data", created=True))


def w_buffer(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    (n,) = f.pop_uniform(1, "BUFFER:")
    if n < 0:
        raise ForthError(f"BUFFER: needs a size of 0 or more bytes, got {n}, e.g. `64 BUFFER: {name.text}`")
    _align(f)
    addr = _allot(f, n)
    f.backend.write(addr, np.zeros(n, np.uint8))
    _define(f, Constant(name.text, addr, help="( -- addr ) a buffer"))


def w_allot(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "ALLOT")
    _allot(f, n)


def w_comma(f: "Forth", tok: Token) -> None:
    (x,) = f.pop_uniform(1, ",")
    addr = _allot(f, 8)
    f.write_cell(addr, x)


def w_ccomma(f: "Forth", tok: Token) -> None:
    (x,) = f.pop_uniform(1, "C,")
    addr = _allot(f, 1)
    f.backend.write(addr, bytes([x & 0xFF]))


def w_here(f: "Forth", tok: Token) -> None:
    f.push_uniform(f.data_addr + f.here)


def w_align(f: "Forth", tok: Token) -> None:
    _align(f)


def w_hex(f: "Forth", tok: Token) -> None:
    f.write_cell(f.base_addr, 16)


def w_decimal(f: "Forth", tok: Token) -> None:
    f.write_cell(f.base_addr, 10)


# ---- launch shape, arrays, shared memory --------------------------------------------------
def _shape(f: "Forth", word: str) -> tuple[int, int, int]:
    x, y, z = f.pop_uniform(3, word)
    if min(x, y, z) < 1:
        raise ForthError(f"{word} needs three positive sizes ( x y z -- ), e.g. `4 1 1 {word}`")
    return x, y, z


def check_shape(caps: Capabilities, grid: tuple[int, int, int], block: tuple[int, int, int], word: str,
                backend: str) -> None:
    """A launch shape the backend's machine can run, or a ForthError that says which limit it breaks."""
    for what, shape, limits in (("block", block, caps.max_block), ("grid", grid, caps.max_grid)):
        for axis, n, most in zip("xyz", shape, limits):
            if n > most:
                raise ForthError(f"{word}: a {what} has at most {most} along {axis} on the {backend} backend "
                                 f"(asked for {n})")
    threads = block[0] * block[1] * block[2]
    if threads > caps.max_block_threads:
        raise ForthError(f"{word}: a block has at most {caps.max_block_threads} threads on the {backend} backend "
                         f"({'x'.join(map(str, block))} is {threads})")
    if grid[0] * grid[1] * grid[2] * threads > caps.max_threads:
        raise ForthError(f"{word}: at most {caps.max_threads} threads in one launch on the {backend} backend")


def _reshape(f: "Forth", grid: tuple[int, int, int], block: tuple[int, int, int], word: str) -> None:
    check_shape(f.backend.caps, grid, block, word, f.backend.name)
    st = StackState.live(f.backend)
    if not st.uniform():
        raise ForthError(f"{word} keeps the stacks only when every thread has the same stacks; clear the "
                         "stacks that differ first (CLEARSTACK empties them all)")
    tiles = f.backend.get_tiles() if f.tiles else []  # no static tiles: no warp holds one
    if differing_warps(tiles):  # bit for bit: a NaN tile is the same tile
        raise ForthError(f"{word} keeps the tile stack only when every warp holds the same tiles; drop them "
                         "first (TDROP)")
    row = st.raw[0].copy()
    f.set_launch_shape(grid, block)
    new = StackState.live(f.backend)
    new.fill(row)  # thread 0's stacks on every thread of the new shape (only the cells they use)
    new.save(f.backend)
    if tiles:  # backends that keep no tiles between lines (cuda) have none to copy
        f.backend.set_tiles([tiles[0]] * len(f.backend.get_tiles()))


def w_grid(f: "Forth", tok: Token) -> None:
    grid = _shape(f, "GRID")
    _reshape(f, grid, f.launch_shape[1], "GRID")


def w_block(f: "Forth", tok: Token) -> None:
    block = _shape(f, "THREADS")
    _reshape(f, f.launch_shape[0], block, "THREADS")


def _typed(f: "Forth", tok: Token, dims: int, word: str) -> None:
    name = _name(f, tok)
    vals = f.pop_uniform(dims + 1, word)
    shape, code = tuple(vals[:-1]), vals[-1]
    et = BY_CODE.get(code)
    if et is None:
        raise ForthError(f"{word} needs an element type on top, e.g. `16 F32 {word} name`")
    if min(shape) < 1:
        raise ForthError(f"{word} needs positive sizes, got {shape}")
    addr = alloc_array(f, shape, et, word)
    # checked tile loads and float words compare their type with it (the metadata names it)
    f.backend.set_element_type(addr, np.dtype(et.dtype, metadata={"name": name.text, "shape": shape}))
    _define(f, Constant(name.text, addr, help=f"( -- addr ) {'x'.join(map(str, shape))} {et.name} array",
                        array=(addr, shape, et)))


def w_array(f: "Forth", tok: Token) -> None:
    _typed(f, tok, 1, "ARRAY")


def w_matrix(f: "Forth", tok: Token) -> None:
    _typed(f, tok, 2, "MATRIX")


def w_shared(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    (n,) = f.pop_uniform(1, "SHARED:")
    off = (f.shared_bytes + 31) & ~31
    most = f.backend.caps.shared_bytes
    if n < 1 or off + n > most:
        raise ForthError(f"SHARED: {n} bytes do not fit: a block has {most} bytes of shared memory on the "
                         f"{f.backend.name} backend ({most - off} left)")
    f.shared_bytes = off + n
    f.backend.set_shared(f.shared_bytes)
    _define(f, Constant(name.text, off, help=f"( -- addr ) {n} bytes of per-block shared memory", shared=off))


def w_tile_shape(f: "Forth", tok: Token) -> None:
    m, n, k = f.pop_uniform(3, "TILE-SHAPE")
    if (m, n, k) not in SHAPES:
        raise ForthError(f"TILE-SHAPE {m} {n} {k} is not a tensor-core shape: use one of "
                         + ", ".join(f"`{a} {b} {c} TILE-SHAPE`" for a, b, c in SHAPES))
    f.tile_config = replace(f.tile_config, shape=(m, n, k))


def _tile_type(f: "Forth", word: str, allowed: tuple[str, ...]) -> str:
    (code,) = f.pop_uniform(1, word)
    et = BY_CODE.get(code)
    name = et.name.lower() if et else "?"
    if name not in allowed:
        raise ForthError(f"{word} takes one of " + " ".join(a.upper() for a in allowed) +
                         f", e.g. `{allowed[-1].upper()} {word}`")
    return name


def w_tile_in(f: "Forth", tok: Token) -> None:
    t = _tile_type(f, "TILE-IN", IN_TYPES)
    if t == "bf16" and f.tile_config.acc_type != "f32":
        raise ForthError("bf16 inputs need an f32 accumulator: say `F32 TILE-ACC` first")
    f.tile_config = replace(f.tile_config, in_type=t)


def w_tile_acc(f: "Forth", tok: Token) -> None:
    t = _tile_type(f, "TILE-ACC", ACC_TYPES)
    if t == "f16" and f.tile_config.in_type == "bf16":
        raise ForthError("an f16 accumulator needs f16 inputs (PTX has no bf16 -> f16 mma): say `F16 TILE-IN` first")
    f.tile_config = replace(f.tile_config, acc_type=t)


def w_words(f: "Forth", tok: Token) -> None:
    f.print_text(" ".join(sorted(f.dict)) + "\n")


# ---- immediate words: definitions, control structures, parsing ---------------------------
def i_colon(f: "Forth", tok: Token, named: bool = True) -> None:
    if f.compile_state and named:  # `: def-word : POSTPONE ; ;` -- `:` runs when def-word does
        f.append(HostOp(":", lambda f, n: i_colon(f, Token(":", n.pos)), None, tok.pos))
        return
    if f.colon is not None:
        raise ForthError(f"`{tok.text}` inside the definition of {f.colon.name}: finish it with ; first",
                         tok.pos, tok.text)
    if f.frames:
        raise ForthError(f"`{tok.text}` cannot start inside an open control structure", tok.pos, tok.text)
    name = _name(f, tok) if named else tok
    f.colon = Colon(name.text, [], name.pos, source=name.pos.text, prelude=f.reader.name == "prelude.fth",
                    anonymous=not named)
    f.colon_start = (f.reader, tok.pos)
    f.colon_text = []


def definition_text(f: "Forth", reader: Reader, end: SourcePos | None = None) -> list[str] | None:
    """The open definition's lines as read so far through `reader`, up to
    `end` (or the end of the source): from its `:` in this source, or after
    the lines kept from earlier f.eval calls (Forth.colon_text, a file fed line
    by line); None when neither holds (a definition begun inside EVALUATE)."""
    stop = None if end is None else end.line - reader.first_line + 1
    start_reader, start = getattr(f, "colon_start", (None, None))
    if start_reader is reader and start is not None:
        first = start.line - reader.first_line
        # one slice (lines[:stop][first:] is lines[first:stop] when first >= 0): no copy of the lines before
        kept, lines = [], reader.lines[first:stop] if first >= 0 else reader.lines[:stop][first:]
    elif f.colon_text and reader is f.line_reader:
        kept, start, lines = f.colon_text, None, reader.lines[:stop]
    else:
        return None
    if end is not None:
        lines[-1] = lines[-1][:end.col]
    if start is not None:
        lines[0] = lines[0][start.col - 1:]
    return kept + lines


def i_semicolon(f: "Forth", tok: Token) -> None:
    if f.colon is None:
        raise ForthError("; without a matching `:`", tok.pos, ";")
    text = definition_text(f, f.reader, tok.pos)  # the definition's own text, for SEE
    if text is not None:
        f.colon.source = "\n".join(text)
    f.finish_definition(tok)


def _locals_here(f: "Forth", tok: Token, spelling: str) -> None:
    """Locals are declared inside a definition, outside control structures."""
    if not f.compile_state or f.frames:
        raise ForthError(f"locals {spelling} are allowed inside a definition, outside IF, loops and other "
                         "control structures", tok.pos, tok.text)


def declare_locals(f: "Forth", taken: list[str], extra: list[str], pos) -> None:
    """Locals of the open definition: `taken` take cells from the stack (the last named the top
    one), `extra` start at 0."""
    f.append(LocalsDef(len(taken), len(extra), pos))
    f.colon.locals.extend(taken + extra)


def i_locals(f: "Forth", tok: Token) -> None:
    """`{: a b | c -- d :}` (Forth-2012) or `{ a b | c -- d }` (gforth), anywhere in
    a definition outside control structures: a b take cells, c starts at 0."""
    close = ":}" if tok.text == "{:" else "}"
    _locals_here(f, tok, f"{tok.text} a b {close}")
    taken: list[str] = []
    extra: list[str] = []
    part = taken
    while True:
        t = f.reader.next_token()
        if t is None:
            raise ForthError(f"{tok.text} without {close}: close the locals list", tok.pos, tok.text)
        if t.text == close:
            break
        if t.text == "--":
            part = None
        elif t.text == "|" and part is taken:
            part = extra
        elif part is not None:
            if t.text.endswith(":") and len(t.text) <= 3:  # gforth's type prefixes (F: W: D: ...)
                raise ForthError(f"typed locals ({t.text}) are not supported: locals are cells", t.pos, t.text)
            part.append(t.key)
    declare_locals(f, taken, extra, tok.pos)


def i_locals_bar(f: "Forth", tok: Token) -> None:
    """`LOCALS| a b |` (Forth-2012 13.6.2.1795, obsolescent; gforth has it): locals that take cells
    from the stack, the first named the top one, as (LOCAL) declares them: `{ b a }`."""
    _locals_here(f, tok, "LOCALS| a b |")
    names: list[str] = []
    while True:
        t = f.reader.next_token()
        if t is None:
            raise ForthError("LOCALS| without |: close the locals list with | (LOCALS| a b |)", tok.pos, tok.text)
        if t.text == "|":
            break
        names.append(t.key)
    declare_locals(f, names[::-1], [], tok.pos)  # the first named takes the top of the stack


def _open(kind: str):
    def fn(f: "Forth", tok: Token) -> None:
        f.frames.append(_frame(kind, tok))
    return fn


def _frame(kind: str, tok: Token, query: bool = False) -> Frame:
    return Frame(kind, tok.pos, query=query)


def _close(f: "Forth", tok: Token, kinds: tuple[str, ...]):
    if not f.frames or f.frames[-1].kind not in kinds:
        opener = " or ".join(k.upper() for k in kinds)
        raise ForthError(f"{tok.text.upper()} without a matching {opener}: control structures must nest "
                         "properly", tok.pos, tok.text)
    return f.frames.pop()


def i_else(f: "Forth", tok: Token) -> None:
    if _flat_word(f, tok):
        return
    if _top_exiting(f, "while2"):  # BEGIN .. WHILE .. WHILE .. REPEAT d ELSE e THEN: d ends, e starts
        _close_while2(f)
        f.frames[-1].exiting = True
        return
    if f.frames and f.frames[-1].kind == "else":  # IF a ELSE b ELSE c ... THEN: the paths alternate,
        f.frames[-1].kind = "if"  # so c runs after a (when the flag is true), d after b, and so on
        return
    fr = _close(f, tok, ("if",))
    fr.kind = "else"
    f.frames.append(fr)


def _top_exiting(f: "Forth", kind: str) -> bool:
    return bool(f.frames) and f.frames[-1].kind == kind and f.frames[-1].exiting


def _close_while2(f: "Forth") -> None:
    """A second WHILE's part: its loop code, or its exit path, then out of the loop."""
    fr = f.frames.pop()
    f.frames[-1].items().append(If(fr.a, fr.exit + [Break(fr.pos)], fr.pos))


def i_then(f: "Forth", tok: Token) -> None:
    if _flat_word(f, tok):
        return
    if _top_exiting(f, "while2") or _top_exiting(f, "while"):  # the end of a loop with two WHILEs
        if f.frames[-1].kind == "while2":
            _close_while2(f)
        fr = f.frames.pop()  # a third WHILE would have made the loop jumps (i_while)
        f.append(Begin("again", fr.a + [If(fr.b, fr.exit + [Break(fr.pos)], fr.pos)], pos=fr.pos))
        return
    fr = _close(f, tok, ("if", "else"))
    f.append(If(fr.a, fr.b if fr.kind == "else" or fr.b else None, fr.pos))


def i_until(f: "Forth", tok: Token) -> None:
    if _flat_word(f, tok) or _jump_back(f, tok):
        return
    _close_rests(f, tok, [Lit(0, tok.pos)])  # a skipped rest leaves UNTIL a false flag: loop again
    fr = _close(f, tok, ("begin",))
    f.append(Begin("until", fr.a, pos=fr.pos))


def i_again(f: "Forth", tok: Token) -> None:
    if _flat_word(f, tok) or _jump_back(f, tok):
        return
    _close_rests(f, tok, None)
    fr = _close(f, tok, ("begin",))
    f.append(Begin("again", fr.a, pos=fr.pos))


# ---- CS-PICK and CS-ROLL ---------------------------------------------------------------------
# tileforth builds control structures as a tree (IF, BEGIN and DO nodes). The frames are its
# control-flow stack: "begin" is a dest, "if"/"else" an orig, "while" an orig over a dest. Two uses
# of CS-PICK and CS-ROLL keep the tree: `0 CS-PICK ... UNTIL` (a copy of the BEGIN: jump back when
# the flag is false, as ?REPEAT) opens a "rest" frame, the code that runs only when the flag was
# true, up to the loop's own UNTIL or AGAIN; and `IF 1 CS-ROLL` on a BEGIN is WHILE. Any other
# reordering turns the frames involved into jumps and labels in the list below them (_flatten): an
# "orig" or "fdest" frame holds a Label id, and THEN, UNTIL, AGAIN, REPEAT on it add a Label or a
# Jump (the code generator makes them branches; codegen.visit_Label).
_label_ids = itertools.count(1)


def _cs_items(f: "Forth") -> list[Frame]:
    """The control-flow stack as Forth sees it (the rest frames are tileforth's own)."""
    return [fr for fr in f.frames if fr.kind != "rest"]


def w_cs_pick(f: "Forth", tok: Token) -> None:
    (u,) = f.pop_uniform(1, "CS-PICK")
    items = _cs_items(f)
    if u == 0 and items and items[-1].kind == "begin":
        f.frames.append(Frame("dest", tok.pos))
        return
    _flatten(f, _start_of(f, u, tok), tok)
    fr = f.frames[-1 - u]
    if fr.kind != "fdest":
        raise ForthError(f"{u} CS-PICK would copy an orig (IF, AHEAD, WHILE): its jump would go to two places; "
                         "CS-PICK copies a dest (BEGIN)", tok.pos, tok.text)
    f.frames.append(replace(fr))


def w_cs_roll(f: "Forth", tok: Token) -> None:
    (u,) = f.pop_uniform(1, "CS-ROLL")
    if u == 0:
        return
    fr = f.frames
    if u == 1 and len(fr) >= 2 and fr[-1].kind == "if" and not fr[-1].b and fr[-2].kind == "begin":
        orig = fr.pop()  # IF 1 CS-ROLL: WHILE
        i_while(f, tok)
        f.frames[-1].items().extend(orig.a)
        return
    _flatten(f, _start_of(f, u, tok), tok)
    f.frames.append(f.frames.pop(-1 - u))


def _start_of(f: "Forth", u: int, tok: Token) -> int:
    """The index of the frame that holds control-flow stack item u (a WHILE
    frame holds two items, a rest none)."""
    if u < 0:
        raise ForthError(f"{tok.text} needs an item number of 0 or more, got {u}", tok.pos, tok.text)
    seen = 0
    for i in range(len(f.frames) - 1, -1, -1):
        seen += {"rest": 0, "while": 2}.get(f.frames[i].kind, 1)
        if seen > u:
            return i
    raise ForthError(f"{u} {tok.text.upper()}: the control-flow stack holds {seen} item(s) here", tok.pos, tok.text)


def _flatten(f: "Forth", start: int, tok: Token) -> None:
    """Turn the frames from `start` up into jumps and labels in the list
    below them: one orig or fdest frame per control-flow stack item."""
    while start > 0 and f.frames[start].kind in ("rest", "dest"):
        start -= 1  # a jump back needs its BEGIN's label
    out = f.frames[start - 1].items() if start else (f.colon.body if f.compile_state else f.segment)
    flat: list[Frame] = []
    dest = 0
    for fr in f.frames[start:]:
        k, pos = fr.kind, fr.pos
        if k == "if" and not fr.b:
            label = next(_label_ids)
            out += [Jump(label, True, pos), *fr.a]
            flat.append(Frame("orig", pos, a=out, label=label))
        elif k == "else":  # IF a ELSE b: the code that follows goes on after b
            other, then = next(_label_ids), next(_label_ids)
            out += [Jump(other, True, pos), *fr.a, Jump(then, pos=pos), Label(other, pos), *fr.b]
            flat.append(Frame("orig", pos, a=out, label=then))
        elif k == "if":  # IF a ELSE b ELSE: b is done, the code that follows goes on after a
            other, on, then = next(_label_ids), next(_label_ids), next(_label_ids)
            out += [Jump(other, True, pos), Jump(on, pos=pos), Label(other, pos), *fr.b, Jump(then, pos=pos),
                    Label(on, pos), *fr.a]
            flat.append(Frame("orig", pos, a=out, label=then))
        elif k == "begin":
            dest = next(_label_ids)
            out += [Label(dest, pos), *fr.a]
            flat.append(Frame("fdest", pos, a=out, label=dest))
        elif k == "while" and not fr.exiting and not fr.exit:
            dest, label = next(_label_ids), next(_label_ids)
            out += [Label(dest, pos), *fr.a, Jump(label, True, pos), *fr.b]
            flat += [Frame("orig", pos, a=out, label=label), Frame("fdest", pos, a=out, label=dest)]
        elif k == "while2" and not fr.exiting and flat and flat[-1].kind == "fdest":  # a second WHILE
            label = next(_label_ids)
            out += [Jump(label, True, pos), *fr.a]
            flat.insert(len(flat) - 1, Frame("orig", pos, a=out, label=label))
        elif k == "dest":  # a CS-PICK copy of the BEGIN below
            out += fr.a
            flat.append(Frame("fdest", pos, a=out, label=dest))
        elif k == "rest":  # the code after a copy's UNTIL: it jumped back when the flag was 0
            out += [Jump(dest, True, pos), *fr.a]
        elif k in ("orig", "fdest"):
            dest = fr.label if k == "fdest" else dest
            flat.append(replace(fr, a=out))
        else:
            raise ForthError(f"{tok.text.upper()} reaches past {OPENERS[k]} ... {CLOSERS[k]}, whose control-flow "
                             "item cannot be moved: reorder only IF, ELSE, AHEAD, BEGIN and WHILE items",
                             tok.pos, tok.text)
    f.frames[start:] = flat


def _jump_back(f: "Forth", tok: Token) -> bool:
    """UNTIL or AGAIN that takes a CS-PICK copy of a BEGIN: the jump back, and
    the rest of the loop body runs only when it is not taken."""
    if not f.frames or f.frames[-1].kind != "dest":
        return False
    if tok.key == "AGAIN":
        raise ForthError("AGAIN on a CS-PICK copy of BEGIN would make the rest of the loop unreachable: "
                         "take the copy with UNTIL", tok.pos, tok.text)
    copy = f.frames.pop()
    f.frames[-1].items().extend(copy.a)
    f.frames.append(Frame("rest", tok.pos))
    return True


def _close_rests(f: "Forth", tok: Token, skipped: list[Node] | None) -> None:
    """Before the loop's own UNTIL or AGAIN: each rest becomes IF rest ELSE skipped THEN."""
    while f.frames and f.frames[-1].kind == "rest":
        rest = f.frames.pop()
        f.frames[-1].items().append(If(rest.a, skipped, rest.pos))



def _flat_word(f: "Forth", tok: Token) -> bool:
    """THEN ELSE UNTIL AGAIN WHILE REPEAT on frames that became jumps (_flatten)."""
    if not f.frames or f.frames[-1].kind not in ("orig", "fdest"):
        return False
    top, key, pos = f.frames[-1], tok.key, tok.pos
    if top.kind == "orig" and key == "THEN":
        f.frames.pop()
        top.a.append(Label(top.label, pos))
    elif top.kind == "orig" and key == "ELSE":
        then = next(_label_ids)
        top.a += [Jump(then, pos=pos), Label(top.label, pos)]
        top.label = then
    elif top.kind == "fdest" and key in ("UNTIL", "AGAIN"):
        f.frames.pop()
        top.a.append(Jump(top.label, key == "UNTIL", pos))
    elif top.kind == "fdest" and key == "WHILE":
        label = next(_label_ids)
        top.a.append(Jump(label, True, pos))
        f.frames.insert(len(f.frames) - 1, Frame("orig", pos, a=top.a, label=label))
    elif top.kind == "fdest" and key == "REPEAT" and len(f.frames) > 1 and f.frames[-2].kind == "orig":
        f.frames.pop()
        orig = f.frames.pop()
        top.a += [Jump(top.label, pos=pos), Label(orig.label, pos)]
    else:
        want = CLOSERS[top.kind]
        raise ForthError(f"{tok.text.upper()} here, where the control-flow stack's top is a {OPENERS[top.kind]}: "
                         f"use {want}", pos, tok.text)
    return True


def i_while(f: "Forth", tok: Token) -> None:
    _no_rest(f, tok)
    if _flat_word(f, tok):
        return
    if f.frames and f.frames[-1].kind == "while2" and not f.frames[-1].exiting:
        _flatten(f, len(f.frames) - 2, tok)  # a third WHILE: the loop becomes jumps and labels
        _flat_word(f, tok)
        return
    if f.frames and f.frames[-1].kind == "while" and not f.frames[-1].exiting:
        f.frames.append(_frame("while2", tok))  # another WHILE: its exit is resolved by THEN (see i_then)
        return
    fr = _close(f, tok, ("begin",))
    fr.kind = "while"
    f.frames.append(fr)


def _no_rest(f: "Forth", tok: Token) -> None:
    if f.frames and f.frames[-1].kind == "rest":
        raise ForthError(f"{tok.text.upper()} after a jump back made with CS-PICK: such a loop ends with UNTIL or "
                         "AGAIN", tok.pos, tok.text)


def i_repeat(f: "Forth", tok: Token) -> None:
    _no_rest(f, tok)
    if _flat_word(f, tok):
        return
    if f.frames and f.frames[-1].kind == "while2" and not f.frames[-1].exiting:
        f.frames[-1].exiting = True  # what follows is this WHILE's exit path, up to ELSE or THEN
        return
    if f.frames and f.frames[-1].kind == "begin" and len(f.frames) > 1 and f.frames[-2].kind in ("if", "else"):
        i_again(f, tok)  # BEGIN .. REPEAT with no WHILE: AGAIN, and the THEN of the IF around the loop
        i_then(f, tok)
        return
    fr = _close(f, tok, ("while",))
    f.append(Begin("while", fr.b, cond=fr.a, pos=fr.pos))


def i_do(f: "Forth", tok: Token) -> None:
    f.frames.append(_frame("do", tok, query=tok.key == "?DO"))


def i_loop(f: "Forth", tok: Token) -> None:
    fr = _close(f, tok, ("do",))
    f.append(Do(fr.a, query=fr.query, plus=tok.key == "+LOOP", pos=fr.pos))


def i_leave(f: "Forth", tok: Token) -> None:
    if not any(fr.kind == "do" for fr in f.frames):
        raise ForthError("LEAVE is only allowed inside DO ... LOOP", tok.pos, tok.text)
    f.append(Leave(tok.pos))


def i_exit(f: "Forth", tok: Token) -> None:
    if f.colon is None:
        raise ForthError("EXIT is only allowed inside a colon definition", tok.pos, tok.text)
    f.append(Exit(tok.pos))


def i_recurse(f: "Forth", tok: Token) -> None:
    if f.colon is None:
        raise ForthError("RECURSE is only allowed inside a colon definition", tok.pos, tok.text)
    f.append(Recurse(f.colon, tok.pos))


def i_paren(f: "Forth", tok: Token) -> None:
    """A comment up to `)`. Read from a file or fed line by line to f.eval, it
    goes on over the next lines (Forth-2012 11.6.1.0080); EVALUATE's string
    and an INCLUDEd file must close their own."""
    _, found = f.reader.parse_until(")", multiline=True)
    if found:
        return
    if f.reader is f.line_reader:
        f.comment_open = tok.pos
        return
    raise ForthError("( comment is not closed: add )", tok.pos, "(")


def i_backslash(f: "Forth", tok: Token) -> None:
    f.reader.skip_line()


def i_dot_quote(f: "Forth", tok: Token) -> None:
    text, found = f.reader.parse_until('"')
    if not found:
        raise ForthError('." needs a closing " on the same line', tok.pos, tok.text)
    f.strings.append(text)
    f.append(Prim(PRIMS['."'], tok.pos, arg=len(f.strings) - 1))


def i_dot_paren(f: "Forth", tok: Token) -> None:
    text, found = f.reader.parse_until(")")
    f.print_text(text)


def i_char(f: "Forth", tok: Token) -> None:
    """[CHAR], and CHAR outside definitions: the character of the next word, now."""
    t = _name(f, tok)
    f.append(Lit(ord(t.text[0]), tok.pos))


def i_char_word(f: "Forth", tok: Token) -> None:
    """CHAR: inside a definition it reads its word when the definition runs
    (`: MARK CHAR HOLD ; IMMEDIATE`), as the standard's CHAR does."""
    if not f.compile_state:
        i_char(f, tok)
        return
    f.append(HostOp("CHAR", lambda f, n: f.push_uniform(ord(_name(f, Token("CHAR", n.pos)).text[0])), None,
                    tok.pos))


HOST_WORDS: list[HostWord] = [
    HostWord("CONSTANT", "( x -- )", "Define a word that pushes x.", w_constant, "42 CONSTANT answer"),
    HostWord("FCONSTANT", "( F: r -- )", "Define a word that pushes the float r.", w_fconstant,
             "3.14e FCONSTANT pi"),
    HostWord("VARIABLE", "( -- )", "Define a cell variable in data space; the name pushes its address.",
             w_variable, "VARIABLE v  5 v !  v @ ."),
    HostWord("CREATE", "( -- )", "Define a name that pushes the current data-space address.", w_create,
             "CREATE t 1 , 2 ,  t CELL+ @ ."),
    HostWord("BUFFER:", "( u -- )", "Define a zeroed buffer of u bytes in data space.", w_buffer, "64 BUFFER: buf"),
    HostWord("ALLOT", "( n -- )", "Reserve n bytes of data space.", w_allot, "CREATE t 16 ALLOT"),
    HostWord(",", "( x -- )", "Store a cell at HERE and advance it.", w_comma, "CREATE t 1 , 2 ,"),
    HostWord("C,", "( char -- )", "Store a byte at HERE and advance it.", w_ccomma, "CREATE s 65 C,"),
    HostWord("HERE", "( -- addr )", "The next free data-space address.", w_here, "HERE ."),
    HostWord("ALIGN", "( -- )", "Align HERE to a cell boundary.", w_align, "1 C, ALIGN"),
    HostWord("HEX", "( -- )", "Set BASE to 16.", w_hex, "HEX FF DECIMAL . \\ 255", compiled="16 BASE !"),
    HostWord("DECIMAL", "( -- )", "Set BASE to 10.", w_decimal, "DECIMAL", compiled="10 BASE !"),
    HostWord("GRID", "( x y z -- )", "Set the number of blocks of the launch shape.", w_grid, "4 1 1 GRID"),
    HostWord("THREADS", "( x y z -- )", "Set the threads per block of the launch shape.", w_block,
             "256 1 1 THREADS"),
    HostWord("ARRAY", "( n type -- )", "Allocate a zeroed device array of n elements; the name pushes its address.",
             w_array, "16 F32 ARRAY xs"),
    HostWord("MATRIX", "( rows cols type -- )", "Allocate a zeroed row-major device matrix.", w_matrix,
             "16 16 F16 MATRIX a"),
    HostWord("SHARED:", "( n -- )", "Declare n bytes of per-block shared memory; the name pushes its address.",
             w_shared, "1024 SHARED: tile"),
    HostWord("TILE-SHAPE", "( m n k -- )", "Set the tensor-core shape for tile words compiled from now on: "
             "16 16 16 (default), 32 8 16 or 8 32 16.", w_tile_shape, "32 8 16 TILE-SHAPE"),
    HostWord("TILE-IN", "( type -- )", "Set the input type of a and b tiles: F16 (default) or BF16.", w_tile_in,
             "BF16 TILE-IN"),
    HostWord("TILE-ACC", "( type -- )", "Set the accumulator type: F32 (default) or F16.", w_tile_acc,
             "F16 TILE-ACC"),
    HostWord("WORDS", "( -- )", "List the dictionary.", w_words, "WORDS"),
    HostWord("CS-PICK", "( u -- ) ( C: dest .. -- dest .. dest )", "Copy a BEGIN on the control-flow stack "
             "(in an IMMEDIATE word): `0 CS-PICK POSTPONE UNTIL` jumps back when the flag is false.", w_cs_pick,
             ": ?REPEAT 0 CS-PICK POSTPONE UNTIL ; IMMEDIATE "
             ": f 0 BEGIN 1+ DUP 2 MOD 0= ?REPEAT DUP 6 = UNTIL ; f . \\ 6", group="Control"),
    HostWord("CS-ROLL", "( u -- ) ( C: x0 x1 -- x1 x0 )", "Rotate the control-flow stack (in an IMMEDIATE "
             "word): `POSTPONE IF 1 CS-ROLL` is WHILE.", w_cs_roll,
             ": ?DONE POSTPONE IF 1 CS-ROLL ; IMMEDIATE : f 0 BEGIN DUP 3 < ?DONE 1+ REPEAT ; f . \\ 3",
             group="Control"),
]

IMMEDIATES: list[Immediate] = [
    Immediate(":", "( -- )", "Start a colon definition.", i_colon, ": square DUP * ;"),
    Immediate(";", "( -- )", "End a colon definition.", i_semicolon, ": square DUP * ;"),
    Immediate("{:", "( x1 .. xn -- )", "Locals (Forth-2012): `{: a b | c -- :}` takes a and b from the stack, "
              "c starts at 0; TO changes one. Anywhere outside control structures.", i_locals,
              ": f {: a b :} a b - ; 5 3 f . \\ 2"),
    Immediate("{", "( x1 .. xn -- )", "Locals, gforth's spelling: `{ a b | c -- }`.", i_locals,
              ": f { a b -- } a b - ; 5 3 f . \\ 2"),
    Immediate("LOCALS|", "( xn .. x1 -- )", "Locals, the older standard spelling (obsolescent): `LOCALS| a b |` "
              "takes a from the top of the stack, then b.", i_locals_bar, ": f LOCALS| a b | a b - ; 5 3 f . \\ -2"),
    Immediate("IF", "( flag -- )", "Run what follows if flag is non-zero.", _open("if"), "1 IF 42 . THEN"),
    Immediate("ELSE", "( -- )", "The other branch of IF.", i_else, "0 IF 1 ELSE 2 THEN ."),
    Immediate("THEN", "( -- )", "End IF ... ELSE.", i_then, "1 IF 42 . THEN"),
    Immediate("BEGIN", "( -- )", "Start an indefinite loop.", _open("begin"), "0 BEGIN 1+ DUP 5 = UNTIL ."),
    Immediate("UNTIL", "( flag -- )", "Loop back to BEGIN until flag is non-zero.", i_until,
              "0 BEGIN 1+ DUP 5 = UNTIL ."),
    Immediate("AGAIN", "( -- )", "Loop back to BEGIN forever (leave with EXIT).", i_again,
              ": f BEGIN 1+ DUP 5 = IF EXIT THEN AGAIN ;"),
    Immediate("WHILE", "( flag -- )", "Continue the loop while flag is non-zero.", i_while,
              "0 BEGIN DUP 5 < WHILE 1+ REPEAT ."),
    Immediate("REPEAT", "( -- )", "Loop back to BEGIN.", i_repeat, "0 BEGIN DUP 5 < WHILE 1+ REPEAT ."),
    Immediate("DO", "( limit start -- )", "Counted loop from start to limit-1.", i_do, "5 0 DO I . LOOP"),
    Immediate("?DO", "( limit start -- )", "Like DO, but skip the loop when start = limit.", i_do,
              "0 0 ?DO I . LOOP"),
    Immediate("LOOP", "( -- )", "Increment the index; loop unless it reached the limit.", i_loop,
              "5 0 DO I . LOOP"),
    Immediate("+LOOP", "( n -- )", "Add n to the index; loop unless it crossed the limit boundary.", i_loop,
              "10 0 DO I . 2 +LOOP"),
    Immediate("LEAVE", "( -- )", "Leave the innermost DO loop now.", i_leave, "10 0 DO I 3 = IF LEAVE THEN LOOP"),
    Immediate("EXIT", "( -- )", "Return from the current definition.", i_exit, ": f 1 EXIT 2 ;"),
    Immediate("RECURSE", "( -- )", "Call the definition being compiled.", i_recurse,
              ": fact DUP 1 > IF DUP 1- RECURSE * THEN ;"),
    Immediate("(", "( -- )", "Comment up to ).", i_paren, "( this is a comment )"),
    Immediate("\\", "( -- )", "Comment to the end of the line.", i_backslash, "\\ a comment"),
    Immediate('."', "( -- )", 'Print text up to " (when the code runs).', i_dot_quote, '." hello"'),
    Immediate(".(", "( -- )", "Print text up to ) immediately.", i_dot_paren, ".( compiling...)"),
    Immediate("CHAR", "( -- char )", "The code of the first character of the next word (inside a definition: "
              "the word after the definition's name when it runs; [CHAR] reads it as it compiles).", i_char_word,
              "CHAR A ."),
    Immediate("[CHAR]", "( -- char )", "CHAR inside a definition.", i_char, ": a [CHAR] A ;"),
]
