"""Warp words: shuffles and votes across the 32 lanes of a warp (CUDA's __shfl_*_sync, __ballot_sync & co.).

    word        data stack          float stack    CUDA (mask 0xffffffff)
    SHFL-IDX    ( x lane -- x' )                   __shfl_sync(mask, x, lane)
    SHFL-UP     ( x delta -- x' )                  __shfl_up_sync(mask, x, delta)
    SHFL-DOWN   ( x delta -- x' )                  __shfl_down_sync(mask, x, delta)
    SHFL-XOR    ( x mask -- x' )                   __shfl_xor_sync(mask, x, laneMask)
    FSHFL-...   ( n -- )            ( r -- r' )    the same on a float (f32, or f64 in the f64 mode)
    BALLOT      ( flag -- mask )                   __ballot_sync (the 32-bit mask, unsigned)
    ANY ALL     ( flag -- flag )                   __any_sync __all_sync (Forth flags)
    ACTIVEMASK  ( -- mask )                        __activemask()
    SYNCWARP    ( -- )                             __syncwarp()

Each word asks the target for one `WarpOp` (`Target.warp_op`) with its run-time
operands as i64 values and gets its result back as an i64 cell. Unlike a tile
operation the operands differ between lanes. The source lane of a shuffle is
PTX's: the lane operand's low 5 bits; up and down keep the lane's own value when
the source lies outside the warp. A cell is 64 bits, so on nvptx it moves as two
32-bit shuffles; an f32 as one.

On the emulator each word is a suspend point (tileforth/backends/cpu/warpops.py computes
the op for the warp with numpy and checks that every lane of the warp takes
part, as a full mask requires); ACTIVEMASK is the one that does not synchronise:
its mask is the lanes that reached it together.

Added to the primitive registry by an explicit `install(REGISTRY)` in
tileforth/core/compile/primitives.py, like the tile words.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from .codegen import I64, float_bits
from .tileops import ActiveMask, Shuffle, SyncWarp, Vote

if TYPE_CHECKING:
    from ..front.tree import Prim
    from .codegen import Gen
    from .primitive import Emit, Registry

def _shuffle(mode: str, word: str) -> "Emit":
    def emit(g: "Gen", n: "Prim") -> None:
        x, b = g.pop(2)
        g.push(g.target.warp_op(g, Shuffle(word, mode, 64), [x, b]))
    return emit


def _fshuffle(mode: str, word: str) -> "Emit":
    def emit(g: "Gen", n: "Prim") -> None:
        (b,) = g.pop(1)
        (r,) = g.fpop(1)
        width = g.machine.float_bits
        out = g.target.warp_op(g, Shuffle(word, mode, width), [float_bits(g.b, r), b])
        bits = out if width == 64 else g.b.trunc(out, ir.IntType(width))
        g.fpush(g.b.bitcast(bits, g.float_t))
    return emit


def _vote(mode: str, word: str) -> "Emit":
    def emit(g: "Gen", n: "Prim") -> None:
        (flag,) = g.pop(1)
        pred = g.b.zext(g.b.icmp_signed("!=", flag, ir.Constant(I64, 0)), I64)
        g.push(g.target.warp_op(g, Vote(word, mode), [pred]))
    return emit


def _active_mask(g: "Gen", n: "Prim") -> None:
    g.push(g.target.warp_op(g, ActiveMask("ACTIVEMASK"), []))


def _sync_warp(g: "Gen", n: "Prim") -> None:
    g.target.warp_op(g, SyncWarp("SYNCWARP"), [])


# word suffix, mode, what the source lane is, CUDA's name, the example (one thread: lane 0 alone)
SHUFFLES = (
    ("IDX", "idx", "the lane numbered lane (taken mod 32)", "__shfl_sync", "0", "7"),
    ("UP", "up", "the lane delta below this one; a lane below delta keeps its own value", "__shfl_up_sync",
     "1", "7"),
    ("DOWN", "down", "the lane delta above this one; a lane whose source is past lane 31 keeps its own value",
     "__shfl_down_sync", "0", "7"),
    ("XOR", "xor", "the lane numbered (this lane XOR mask)", "__shfl_xor_sync", "0", "7"),
)


def install(registry: "Registry") -> None:
    """Add the warp words to the primitive registry (tileforth/core/compile/primitives.py calls this).
    Each is a suspend point on the emulator. Help texts have no hyphens: HELP
    wraps its text and may break there (tests/test_inspect.py)."""
    def warp(name: str, effect: str, help: str, example: str, emit: "Emit") -> None:
        registry.prim(name, effect, help, example, emit, suspend_point=True)

    registry.group("Warp (shuffles and votes)")
    for suffix, mode, source, cuda, arg, claim in SHUFFLES:
        operand = {"idx": "lane", "xor": "mask"}.get(mode, "delta")
        warp(f"SHFL-{suffix}", f"( x {operand} -- x' )",
             f"x' is x of {source} ({cuda} with a full mask). Every lane of the "
             "warp must execute it together.", f"7 {arg} SHFL-{suffix} . \\ {claim}", _shuffle(mode, f"SHFL-{suffix}"))
    for suffix, mode, source, cuda, arg, claim in SHUFFLES:
        operand = {"idx": "lane", "xor": "mask"}.get(mode, "delta")
        warp(f"FSHFL-{suffix}", f"( {operand} -- ) ( F: r -- r' )",
             f"r' is r of {source} ({cuda} on a float). Every lane of the "
             "warp must execute it together.",
             f"2.5e {arg} FSHFL-{suffix} F. \\ 2.5", _fshuffle(mode, f"FSHFL-{suffix}"))
    warp("BALLOT", "( flag -- mask )", "The lanes of the warp whose flag is true, as a 32 bit mask (bit i for "
         "lane i, unsigned; __ballot_sync).", "TID-X 16 < BALLOT HEX U. DECIMAL \\ FFFF", _vote("ballot", "BALLOT"))
    warp("ANY", "( flag -- flag' )", "True on every lane if any lane's flag is true (__any_sync).",
         "TRUE ANY . \\ -1", _vote("any", "ANY"))
    warp("ALL", "( flag -- flag' )", "True on every lane if every lane's flag is true (__all_sync).",
         "0 ALL . \\ 0", _vote("all", "ALL"))
    warp("ACTIVEMASK", "( -- mask )", "The lanes of the warp executing this together, as a 32 bit mask "
         "(__activemask); it does not wait for the others.", "TID-X 8 < IF ACTIVEMASK . THEN \\ [thread 0-7] 255", _active_mask)
    warp("SYNCWARP", "( -- )", "Wait until every lane of the warp reaches this SYNCWARP (__syncwarp).",
         "SYNCWARP 1 . \\ 1", _sync_warp)
