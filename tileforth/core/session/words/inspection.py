"""Inspection words: look at the stacks, a tile, its fragments, an array, the
code generated for a word, and the reference entry of any word.

    .STACKS   every stack (the REPL maps `.S` at the prompt to it)
    .LANES    each thread's data stack          .TILE   the top tile's values
    .FRAG     which lane holds which element    .M      an array or a matrix
    SEE  SEE-IR  SEE-PTX  HELP

Each word reads the session and makes a view record (tileforth/core/session/views.py): data,
no text.  `show` hands it to the front end's hook `Forth.display(kind,
record) -> str | None` (the REPL renders it with colour, tileforth/repl/render.py);
when there is no hook, or it returns None or fails, the record's plain text
(`record.plain()`) is the word's output, which is what `Forth.eval` returns.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .... import registry
from ...compile.state import StackState, StackView
from ...errors import ForthError
from ...front.dictionary import Colon, Constant
from ...front.reader import Token
from ...front.tree import HostOp, walk
from ...lazy import np
from .. import fragments
from ..views import (
    Definition,
    Fragments,
    HelpEntry,
    HelpSummary,
    IRCode,
    Lanes,
    Matrix,
    PTXCode,
    Stacks,
    TileValues,
    View,
)
from .table import NAME_ON_LINE, host

if TYPE_CHECKING:
    from ..interpreter import Forth


INSPECT_GROUP = "Inspection (host words)"
MAX_WARPS_COMPARED = 4096  # beyond this a stack view does not say whether the warps hold the same tiles


def show(f: "Forth", view: View) -> None:
    """Append a view to the line's output, through the display hook if set.
    A view starts on a fresh line; a hook that fails falls back to text."""
    from ..viewexport import note

    note(f, view)  # SAVE-VIEW's picture (viewexport.py)
    text = None
    hook = getattr(f, "display", None)
    if hook is not None:
        try:
            text = hook(view.kind, view)
        except Exception:  # a view never fails the line
            text = None
    if text is None:
        text = view.plain()
    if text and not text.endswith("\n"):
        text += "\n"
    f.flush_segment()  # what the device code before the view prints comes first
    before = f.printed()
    if before and not before.endswith("\n"):
        text = "\n" + text
    f.print_text(text)


# ---- reading names ----------------------------------------------------------------------
def next_on_line(f: "Forth", tok: Token) -> Token | None:
    """The next word if it is on the same line as `tok` (else None, unread)."""
    r = f.reader
    row, col = r.row, r.col
    nxt = r.next_token()
    if nxt is None or nxt.pos.line != tok.pos.line:
        r.row, r.col = row, col
        return None
    return nxt


def word_name(f: "Forth", tok: Token, example: str) -> Token:
    nxt = next_on_line(f, tok)
    if nxt is None:
        raise ForthError(f"{tok.text.upper()} needs a word's name after it on the same line, e.g. `{example}`",
                         tok.pos, tok.text)
    return nxt


def _colon(f: "Forth", tok: Token, name: Token) -> Colon:
    e = f.dict.get(name.key)
    word = tok.text.upper()
    if e is None:
        raise ForthError(f"{word}: unknown word {name.text}; WORDS lists the dictionary", name.pos, name.text)
    if not isinstance(e, Colon):
        raise ForthError(f"{word} shows the code of colon definitions, but {name.text} is a {e.kind} word "
                         f"(HELP {name.text} says what it does)", name.pos, name.text)
    return e


# ---- the session, as records --------------------------------------------------------------
def session_base(f: Any) -> int:
    """The session's BASE (10 when it has none or it is out of range)."""
    base = getattr(f, "base", None)
    try:
        value = base() if callable(base) else base
        return int(value) if value is not None and 2 <= int(value) <= 36 else 10
    except Exception:  # an optional nicety: never let a view fail on it
        return 10


def warps(f: "Forth") -> int:
    """How many warps the launch has."""
    (gx, gy, gz), (bx, by, bz) = f.launch_shape
    return gx * gy * gz * -(-(bx * by * bz) // f.backend.caps.warp_size)


def _warps_alike(f: "Forth", n: int) -> bool | None:
    """Whether every warp holds the same tiles (None: not compared)."""
    get = f.backend.get_tiles
    if n <= 1 or n > MAX_WARPS_COMPARED:
        return None
    try:
        data = get()
        first = data[0]
        return all(len(w) == len(first) and all(np.array_equal(x, y, equal_nan=True)
                                                for x, y in zip(w, first)) for w in data)
    except Exception:  # a view never fails the line
        return None


def viewed_warp(f: "Forth") -> int:
    """The warp whose tiles the views show (VIEW-WARP; 0 by default, and
    when the launch has since shrunk below it)."""
    w = getattr(f, "view_warp", 0)
    try:
        return w if 0 <= w < warps(f) else 0
    except Exception:  # a session without a launch shape: warp 0
        return 0


def stacks_record(f: "Forth", cls: type[Stacks] = Stacks) -> Stacks:
    """Every thread's stacks, the viewed warp's tiles and the launch's warps."""
    st = StackView.read(f.backend)  # the depths, then the cells in use: a thread's stacks may be 16,384 cells deep
    dsp, ds, fsp, fs = st.dsp, st.ds, st.fsp, st.fs
    w = viewed_warp(f)
    try:
        tiles = f.tile_stack(w)
    except Exception:  # a backend without tiles, or no such warp
        tiles = []
    try:
        n = warps(f)
    except Exception:
        n = 1
    alike = _warps_alike(f, n) if tiles else None
    return cls(dsp, ds, fsp, fs, session_base(f), tiles, n, alike, w)


@host(".STACKS", "( -- )", "Show every stack: data and float (entries that differ between threads as "
      "their range) and the tile stack. At the prompt of the REPL `.S` does this too.", "1 2 .STACKS",
      wordset="tileforth", group=INSPECT_GROUP)
def w_stacks(f: "Forth", tok: Token) -> None:
    show(f, stacks_record(f))


@host(".LANES", "( -- )", "Show each thread's data stack (and float stack), threads with equal stacks on one row.",
      "TID-X .LANES", wordset="tileforth", group=INSPECT_GROUP)
def w_lanes(f: "Forth", tok: Token) -> None:
    show(f, stacks_record(f, Lanes))


def _top_tile(f: "Forth", word: str):
    tiles = f.tile_stack(viewed_warp(f))
    if not tiles:
        raise ForthError(f"{word} shows the top of the tile stack, but the tile stack is empty: push a tile "
                         "first, e.g. `TZERO` or `A 16 TLOAD-A`")
    return tiles[-1], len(tiles)


@host(".TILE", "( -- )", "Show every value of the top tile, with its kind, shape and type.", "2e TFILL .TILE",
      wordset="tileforth", group=INSPECT_GROUP)
def w_tile(f: "Forth", tok: Token) -> None:
    t, depth = _top_tile(f, ".TILE")
    show(f, TileValues(t, depth, warps(f), viewed_warp(f)))


@host(".FRAG", "( -- )", "Show which lane holds which element of the top tile, in the documented "
      "mma.sync m16n8k16 layout (wmma's own is unspecified).", "TZERO .FRAG", wordset="tileforth",
      group=INSPECT_GROUP)
def w_frag(f: "Forth", tok: Token) -> None:
    t, depth = _top_tile(f, ".FRAG")
    if t.kind == "wacc":  # a warpgroup accumulator (wgmma.py): 128 threads, not one warp's fragments
        raise ForthError(".FRAG shows one warp's mma.sync fragments; the top tile is a warpgroup accumulator, whose "
                         "element i of lane L of warp w (of 4) is at row 16w + L/4 + 8((i/2) mod 2), column 8(i/4) + "
                         "2(L mod 4) + i mod 2: use WGROW and WGCOL, or .TILE", tok.pos, tok.text)
    rows, cols = t.shape
    lanes, regs = fragments.tile_maps(t.kind, rows, cols)
    br, bc, _, _ = fragments.BLOCKS[t.kind]
    show(f, Fragments(t, depth, warps(f), lanes, regs, (br, bc), fragments.REG[t.kind],
                      fragments.describe(t.kind, rows, cols), viewed_warp(f)))


@host("VIEW-WARP", "( n -- )", "Make .TILE, .FRAG, .S and the stacks shown after each line show the "
      "tiles of warp n of the launch (warps count through block 0, then block 1, and so on; 0 at the "
      "start). A launch made smaller than that shows warp 0 again.", "2 1 1 GRID  1 VIEW-WARP  TZERO .TILE",
      wordset="tileforth", group=INSPECT_GROUP)
def w_view_warp(f: "Forth", tok: Token) -> None:
    (w,) = f.pop_uniform(1, "VIEW-WARP")
    n = warps(f)
    if not 0 <= w < n:
        last = f"warps 0 to {n - 1}" if n > 1 else "only warp 0"
        raise ForthError(f"VIEW-WARP: the launch has {last}, not warp {w}; give one of them, e.g. "
                         f"`{n - 1} VIEW-WARP`", tok.pos, tok.text)
    f.view_warp = w


# ---- .M -----------------------------------------------------------------------------------
def _array_by_addr(f: "Forth", addr: int) -> tuple[str, tuple] | None:
    for name, e in f.dict.items():
        if isinstance(e, Constant) and e.array is not None and e.array[0] == addr:
            return e.name, e.array
    return None


def _top_is_array(f: "Forth") -> bool:
    st = StackState.load(f.backend)
    if st.short(1) is not None:
        return False
    top = st.top(1)[:, 0]
    return bool((top == top[0]).all()) and _array_by_addr(f, int(top[0])) is not None


def matrix_record(f: "Forth", name: str, values: np.ndarray, et) -> Matrix:
    return Matrix(name, np.asarray(values), et.name, et.is_float, 10 if et.is_float else f.base())


@host(".M", "( addr -- ) or ( -- )", "Show an array or matrix: every number when small, a summary and "
      "the corners when large. Takes the address of an array on the stack, or a name after it.",
      "4 F32 ARRAY xs  RAMP xs  .M xs", wordset="tileforth", parses=NAME_ON_LINE, group=INSPECT_GROUP)
def w_dot_m(f: "Forth", tok: Token) -> None:
    if _top_is_array(f):
        (addr,) = f.pop_uniform(1, ".M")
        name, _ = _array_by_addr(f, addr)
    else:
        nxt = next_on_line(f, tok)
        if nxt is None:
            raise ForthError(".M shows an array: put its address on the stack (`xs .M`) or name it (`.M xs`); "
                             "create one with ARRAY or MATRIX", tok.pos, tok.text)
        e = f.dict.get(nxt.key)
        if not isinstance(e, Constant) or e.array is None:
            what = "an unknown word" if e is None else f"a {e.kind} word"
            raise ForthError(f".M shows an array, but {nxt.text} is {what}: create one with ARRAY or MATRIX, "
                             f"e.g. `16 F32 ARRAY {nxt.text}`", nxt.pos, nxt.text)
        name = e.name
    addr, shape, et = f.dict[name.upper()].array
    show(f, matrix_record(f, name, f.array(name), et))


# ---- SEE, SEE-IR, SEE-PTX, HELP -----------------------------------------------------------
def _tile_notation(tiles) -> str:
    return " ".join(t.kind for t in tiles)


def effect_header(e: Colon) -> str:
    """`: name ( data effect ) [( T: tile effect )]`, as inferred at `;`."""
    text = f": {e.name} {e.effect.notation()}"
    if e.tile_effect is not None:
        ins, outs = e.tile_effect
        text += f" ( T: {_tile_notation(ins)} -- {_tile_notation(outs)} )".replace("(  ", "( ").replace("  )", " )")
    return text


def _callee_name(w: Colon) -> str:
    """A callee as the user knows it: a DOES> part by its defining word's name."""
    return f"{w.name[:-len(' DOES>')]}'s DOES> part" if w.anonymous and w.name.endswith(" DOES>") else w.name


def colon_notes(e: Colon) -> list[str]:
    out = []
    if not e.effect.static:
        out.append("dynamic: the depth depends on the data, so run-time stack checks stay on")
    callees = [_callee_name(w) for w in e.callees()]
    if callees:
        out.append("calls: " + " ".join(callees))
    does = [n.arg for n in walk(e.body) if isinstance(n, HostOp) and isinstance(n.arg, Colon)]
    later = list(dict.fromkeys(_callee_name(w) for d in does for w in d.callees()))
    if later:  # the DOES> part: a body of its own, run by the words this one CREATEs
        out.append("the words it CREATEs call (after DOES>): " + " ".join(later))
    if e.suspends:
        out.append("suspends (BARRIER or a warp operation): inlined into the kernels that call it")
    return out


@host("SEE", "( -- )", "Show a colon definition's source and its inferred data, float and tile "
      "effects (other words: their reference entry).", ": sq DUP * ;  SEE sq", wordset="PROGRAMMING-TOOLS",
      parses=NAME_ON_LINE, group=INSPECT_GROUP)
def w_see(f: "Forth", tok: Token) -> None:
    name = word_name(f, tok, "SEE square")
    e = f.dict.get(name.key)
    if e is None:
        raise ForthError(f"SEE: unknown word {name.text}; WORDS lists the dictionary", name.pos, name.text)
    if isinstance(e, Colon):
        show(f, Definition(e.name, effect_header(e), e.source, colon_notes(e)))
        return
    show(f, help_record(f, name.text))


BUILTIN_CONSTANT_GROUPS = ("Element types", "Constants and variables")


def help_record(f: "Forth", name: str) -> HelpEntry:
    e = f.dict.get(name.upper())
    ref = f.reference().get(name.upper())
    if e is None:
        raise ForthError(f"HELP: unknown word {name}; WORDS lists the dictionary")
    if isinstance(e, Colon) and e.prelude and ref is not None:
        return HelpEntry(name, ref.name, ref.effect, ref.help, ref.example, ref.group)
    if isinstance(e, Colon):
        return HelpEntry(name, e.name, effect_header(e)[len(e.name) + 3:], "A colon definition (effects "
                         "inferred); SEE shows its source.", notes=colon_notes(e))
    if ref is not None and (not isinstance(e, Constant) or ref.group in BUILTIN_CONSTANT_GROUPS):
        return HelpEntry(name, ref.name, ref.effect, ref.help, ref.example, ref.group)
    # a user's constant, variable or array: its help starts with its effect
    text = getattr(e, "help", "") or f"a {e.kind} word"
    effect, _, rest = text.partition(") ") if text.startswith("(") else ("", "", text)
    return HelpEntry(name, e.name, effect + ")" if effect else "", rest)


HELP_TEXT = """\
HELP word       a word's stack effect, meaning and an example
WORDS           every word;  SEE word  a definition's source and effects
.S              every stack at the prompt (in a definition: the data stack)
.LANES          each thread's data stack
.TILE  .FRAG    the top tile's values; which lane holds which element
n VIEW-WARP     the views show the tiles of warp n (0: the first)
.M name         an array or a matrix (also: addr .M)
SEE-IR word     the LLVM IR of a word;  SEE-PTX word  its PTX
ZEROS AFILL RAMP IDENTITY RANDOM LOAD-NPY SAVE-NPY  fill and move arrays"""


@host("HELP", "( -- )", "Show a word's stack effect, meaning and an example; alone, a summary of the "
      "inspection words.", "HELP DUP", wordset="tileforth", parses=NAME_ON_LINE, group=INSPECT_GROUP)
def w_help(f: "Forth", tok: Token) -> None:
    nxt = next_on_line(f, tok)
    if nxt is None:
        show(f, HelpSummary(HELP_TEXT))
        return
    try:
        show(f, help_record(f, nxt.text))
    except ForthError as err:
        raise ForthError(err.message, nxt.pos, nxt.text)


def ir_text(f: "Forth", word: Colon) -> tuple[str, str]:
    """(a comment saying what is shown, the IR)."""
    from ...front.tree import Call
    target = f.backend.target.name
    if word.suspends:
        km = f.compiler.kernel([Call(word, word.pos)], holes=True)
        return (f"; {word.name} reaches a suspend point (BARRIER or a warp operation), so it is inlined "
                f"into its callers: this is a kernel that calls it, for the {target} target",
                str(km.module.get_function(km.name)).strip())
    return f"; {word.name}: LLVM IR for the {target} target", f.compiler.word_ir(word).rstrip()


@host("SEE-IR", "( -- )", "Show the LLVM IR generated for a colon definition.", ": sq DUP * ;  SEE-IR sq",
      wordset="tileforth", parses=NAME_ON_LINE, group=INSPECT_GROUP)
def w_see_ir(f: "Forth", tok: Token) -> None:
    word = _colon(f, tok, word_name(f, tok, "SEE-IR square"))
    note, text = ir_text(f, word)
    show(f, IRCode(word.name, note, text))


@host("SEE-PTX", "( -- )", "Show the PTX of a colon definition launched as a kernel (Forth.ptx_arch, "
      "default sm_80).", ": sq DUP * ;  SEE-PTX sq", wordset="tileforth", parses=NAME_ON_LINE, group=INSPECT_GROUP)
def w_see_ptx(f: "Forth", tok: Token) -> None:
    word = _colon(f, tok, word_name(f, tok, "SEE-PTX square"))
    arch = f.ptx_arch
    try:
        ptx = f.ptx(word.name, arch)
    except ForthError:
        raise
    except Exception as exc:  # the NVPTX back end refused: say so, keep the session
        raise ForthError(f"SEE-PTX: LLVM could not make PTX for {word.name} ({arch}): {exc}") from exc
    notes = [f"// {word.name} as a kernel for {arch} (tileforth --arch, or Forth.ptx_arch, changes it)"]
    eff = word.effect
    if eff.static:
        notes += _results_note(word.name, eff.dneed + eff.dnet, eff.fneed + eff.fnet)
    notes.append(_ptxas_note(ptx, arch))
    show(f, PTXCode(word.name, notes, ptx, arch))


def _results_note(name: str, cells: int, floats: int) -> list[str]:
    """Where the kernel puts the results the word leaves (Compiler.export: its last parameters)."""
    outs = [f"{n} cell{'s' * (n != 1)} to `out`" for n in [cells] if n > 0]
    outs += [f"{n} float{'s' * (n != 1)} to `fout`" for n in [floats] if n > 0]
    if not outs:
        return []
    return [f"// a kernel returns nothing: {name}'s results are stored to its last parameters, "
            f"{' and '.join(outs)} (thread t's i-th result, the deepest first, at [t * results + i])"]


def _ptxas_note(ptx: str, arch: str) -> str:
    """The kernel's resources as ptxas -v reports them (as `tileforth compile --verbose`), or why not."""
    note = registry.exporter("ptxas_note")
    return note(ptx, arch) if note is not None else "// no ptxas report: no exporter 'ptxas_note' is registered"


@host("WORDS", "( -- )", "List the dictionary.", "WORDS", wordset="PROGRAMMING-TOOLS")
def w_words(f: "Forth", tok: Token) -> None:
    f.print_text(" ".join(sorted(f.dict)) + "\n")


@host("DUMP", "( addr u -- )", "Print u bytes from addr in hex and as text.", 'S" hi" DUMP',
      wordset="PROGRAMMING-TOOLS", group="Memory (heap)")
def w_dump(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "DUMP")
    data = f.read_bytes(addr, n)
    lines = []
    for off in range(0, len(data), 16):
        chunk = data[off:off + 16]
        text = "".join(chr(c) if 32 <= c < 127 else "." for c in chunk)
        lines.append(f"{addr + off:012X}: {' '.join(f'{c:02X}' for c in chunk):<47}  {text}\n")
    f.print_text("".join(lines))
