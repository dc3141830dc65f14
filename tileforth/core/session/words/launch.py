"""The launch shape (tileforth's own words): GRID and THREADS set the blocks
and the threads per block that every line runs on, SHARED: declares
per-block shared memory."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...compile.state import StackState, differing_warps
from ...compile.target import LaunchShape
from ...errors import ForthError
from ...front.dictionary import Constant
from ...front.reader import Token
from ..launchshape import check_shape
from .definitions import _define
from .table import NEW_NAME, host
from .textin import _name

if TYPE_CHECKING:
    from ..interpreter import Forth


# ---- the launch shape, shared memory ------------------------------------------------------
def _shape(f: "Forth", word: str) -> tuple[int, int, int]:
    x, y, z = f.pop_uniform(3, word)
    if min(x, y, z) < 1:
        raise ForthError(f"{word} needs three positive sizes ( x y z -- ), e.g. `4 1 1 {word}`")
    return x, y, z


def _reshape(f: "Forth", grid: tuple[int, int, int], block: tuple[int, int, int], word: str,
             asked: tuple[int, int] | None | str = "same") -> None:
    """The launch shape `grid` x `block` (and the stack sizes `asked`, unless "same"), keeping the stacks
    and tiles every thread and warp shares."""
    check_shape(f.backend.caps, grid, block, word, f.backend.name)
    ask = f.device.asked if isinstance(asked, str) else asked
    m = f.device.machine_for(LaunchShape(grid, block), ask)
    st = StackState.live(f.backend)
    if not st.uniform():
        raise ForthError(f"{word} keeps the stacks only when every thread has the same stacks; clear the "
                         "stacks that differ first (CLEARSTACK empties them all)")
    tiles = f.backend.get_tiles() if f.tiles else []  # no static tiles: no warp holds one
    if differing_warps(tiles):  # bit for bit: a NaN tile is the same tile
        raise ForthError(f"{word} keeps the tile stack only when every warp holds the same tiles; drop them "
                         "first (TDROP)")
    d, fl = (int(st.dsp[0]), int(st.fsp[0])) if st.threads else (0, 0)
    if d > m.ds_max or fl > m.fs_max:
        n = LaunchShape(grid, block).nthreads
        raise ForthError(f"{word}: the stacks hold {d} cells and {fl} floats, but at {n} threads a thread's stacks "
                         f"hold {m.ds_max} cells and {m.fs_max} floats; drop some first, or ask for deeper stacks "
                         "(STACK-SIZE)")
    old = StackState(st.raw[:1].copy(), st.m)
    f.device.set_shape(grid, block, asked)
    if d or fl:  # (empty stacks: the new shape's are empty already, and a pass over 4M threads' costs ~1 s)
        new = StackState.live(f.backend)
        new.fill(old)  # thread 0's stacks on every thread of the new shape (only the cells they use)
        new.save(f.backend)
    if tiles:  # backends that keep no tiles between lines (cuda) have none to copy
        f.backend.set_tiles([tiles[0]] * len(f.backend.get_tiles()))


@host("GRID", "( x y z -- )", "Set the number of blocks of the launch shape.", "4 1 1 GRID", wordset="tileforth")
def w_grid(f: "Forth", tok: Token) -> None:
    grid = _shape(f, "GRID")
    _reshape(f, grid, f.launch_shape[1], "GRID")


@host("THREADS", "( x y z -- )", "Set the threads per block of the launch shape.", "256 1 1 THREADS",
      wordset="tileforth")
def w_block(f: "Forth", tok: Token) -> None:
    block = _shape(f, "THREADS")
    _reshape(f, f.launch_shape[0], block, "THREADS")


@host("STACK-SIZE", "( u-cells u-floats -- )", "Set the depth of every thread's data stack (cells) and float "
      "stack for the lines that follow; 0 0 (the default) sizes them by the launch: 16384 cells and 2048 floats "
      "up to 32 threads, fewer for bigger launches (at least 128 and 64). The stacks are kept.",
      "1 1 1 THREADS 100000 100 STACK-SIZE  S\" STACK-CELLS\" ENVIRONMENT? DROP . \\ 100000",
      wordset="tileforth")
def w_stack_size(f: "Forth", tok: Token) -> None:
    cells, floats = f.pop_uniform(2, "STACK-SIZE")
    if cells == floats == 0:
        asked = None
    elif not (1 <= cells <= 1 << 24 and 1 <= floats <= 1 << 24):
        raise ForthError(f"STACK-SIZE needs two depths from 1 to {1 << 24} (or 0 0 for stacks sized by the "
                         f"launch), not {cells} {floats}")
    else:
        asked = (cells, floats)
    grid, block = f.launch_shape
    _reshape(f, grid, block, "STACK-SIZE", asked)


@host("SHARED:", "( n -- )", "Declare n bytes of per-block shared memory; the name pushes its address.",
      "1024 SHARED: tile", wordset="tileforth", parses=NEW_NAME)
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
