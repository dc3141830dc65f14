"""Shared-memory tiles (tileforth's own words): SMEM-TILE and SMEM-TILE-SWZ lay out a ring of
`stages` tiles of rows x cols elements in the block's shared memory, each stage aligned as the
hardware needs (128 bytes; 1024 for a 128-byte-swizzled tile, whose pattern repeats every 8
rows of 128 bytes). The name compiles (SMEM-STAGE) with the tile's record (smem.py: SmemTile),
so its uses are checked against it: `stage name` is the stage's address, a stage past the ring is
an error in checked mode; `name-GEOM` is the tile's shape for STAGE-TILE (the prelude). The
emulator's copy model (backends/cpu/asynccopy.py) names tiles and stages with the same record."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...compile import layout as L
from ...compile.eltypes import BY_CODE
from ...compile.primitives import TABLE as PRIMS
from ...compile.smem import ALIGN, CHUNK, PIPE_BLOCKS, SWIZZLE_ROW, SWIZZLED_ALIGN, SmemTile
from ...errors import ForthError
from ...front.dictionary import NEW, Constant, Parse
from ...front.reader import Token
from ...front.tree import Prim
from ..launcherrors import word_at
from ..pipeview import make as make_pipe
from ..pipeview import ranges_text
from ..smemtiles import session_tiles
from .inspection import INSPECT_GROUP, show
from .definitions import _define
from .table import host
from .textin import _name

if TYPE_CHECKING:
    from ..interpreter import Forth

_DEFINES = Parse(NEW, defines="colon")  # the name is a word ( stage -- saddr ); name-GEOM a constant


def _declare(f: "Forth", tok: Token, word: str, swizzle: int) -> None:
    name = _name(f, tok)
    rows, cols, code, stages = f.pop_uniform(4, word)
    et = BY_CODE.get(code)
    if et is None:
        raise ForthError(f"{word}: {code} is not an element type; give one of I8 ... F64, e.g. "
                         f"`16 64 BF16 2 {word} {name.text}`", tok.pos, tok.text)
    if min(rows, cols, stages) < 1:
        raise ForthError(f"{word} needs positive rows, columns and stages ( rows cols type stages -- ), not "
                         f"{rows} {cols} {stages}", tok.pos, tok.text)
    row_bytes = cols * et.size
    if row_bytes % CHUNK:
        raise ForthError(f"{word}: a row of {cols} {et.name} is {row_bytes} bytes; cp.async moves 16 bytes, so "
                         f"a row must be a multiple of 16 bytes ({CHUNK // et.size} elements)", tok.pos, tok.text)
    if swizzle and row_bytes != swizzle:
        raise ForthError(f"{word}: a {swizzle}-byte swizzle needs rows of {swizzle} bytes ({swizzle // et.size} "
                         f"{et.name}), but a row of {cols} is {row_bytes}; use SMEM-TILE, or {swizzle // et.size} "
                         "columns", tok.pos, tok.text)
    align = SWIZZLED_ALIGN if swizzle else ALIGN
    off = -(-f.shared_bytes // align) * align
    tile = SmemTile(name.text, rows, cols, et.name, et.size, stages, swizzle, off)
    total = stages * tile.stage_bytes
    most = f.backend.caps.shared_bytes
    if off + total > most:
        raise ForthError(f"{word}: {stages} stage{'s' * (stages > 1)} of {rows}x{cols} {et.name} "
                         f"({total} bytes) do not fit: a block has {most} bytes of shared memory on the "
                         f"{f.backend.name} backend ({max(0, most - off)} left)", tok.pos, tok.text)
    f.shared_bytes = off + total
    f.backend.set_shared(f.shared_bytes)
    _define(f, f.make_word(name.text, [Prim(PRIMS["(SMEM-STAGE)"], name.pos, arg=tile)]))
    models = getattr(f.backend, "asyncs", None)  # the emulator's copy model names tiles and stages
    if models is not None:
        models.tiles = session_tiles(f)
        _watch(f)
    if swizzle not in (0, SWIZZLE_ROW):
        return  # no geom: STAGE-TILE and ldmatrix read the 128-byte swizzle only (TMA and WGMMA read this one)
    layout = "swizzled (128 bytes), " if swizzle else ""
    _define(f, Constant(f"{name.text}-GEOM", tile.geom,
                        help=f"( -- geom ) {name.text}'s shape for STAGE-TILE ({stages} stage{'s' * (stages > 1)} of "
                             f"{rows}x{cols} {et.name}, {layout}{tile.stage_bytes} bytes apart): rows | 16-byte "
                             "chunks per row << 16 | swizzled << 32"))


def _watch(f: "Forth") -> None:
    """Install the session's launch hook once: after each launch the copy model hands over its record
    of the waits (.PIPE) and, when every thread finished with copies still in flight (they never land:
    the launch is over), that is an error at the first such copy."""
    hooks = f.device.launch_hooks
    if any(getattr(h, "__name__", "") == "after_async_launch" for h in hooks):
        return

    def after_async_launch() -> None:
        be = f.backend
        left = be.asyncs.finish()
        if left is None or not f.checked:
            return
        status = be.thr[:be.nthreads, L.T_STATUS]
        if (status != L.ST_DONE).any():  # the launch stopped with an error: that one is reported
            return
        c, n = left
        word, pos = f.sites.entries[c.site] if 0 <= c.site < len(f.sites.entries) else ("<line>", None)
        where = f" in {word}" if word != "<line>" else ""
        group = "not committed" if c.group is None else f"its group {c.group}"
        raise ForthError(f"{word_at(pos) or 'CP.ASYNC'}{where}: the launch ended with {n} cp.async "
                         f"cop{'y' if n == 1 else 'ies'} in flight that no CP.WAIT landed (thread {c.thread}'s "
                         f"into {be.asyncs.where(c.dst - be.shared_regions()[0])}, {group}): their bytes never "
                         "land; end with `0 CP.WAIT` (after a CP.COMMIT) before the threads finish "
                         "(.PIPE shows what was in flight)", pos, word_at(pos))

    hooks.append(after_async_launch)


@host(".PIPE", "( -- )", "Show the cp.async pipeline of the first block of the last launch that copied (the emulator): at "
      "each warp's k-th CP.WAIT, the groups its threads had in flight and those it landed, and every stage "
      "of every SMEM-TILE (in flight, landed, empty, with its groups) once the warps had waited; then each "
      "mbarrier phase the block completed, with its arrivals and the TMA bytes and boxes that completed it.",
      "32 1 1 THREADS 64 F32 ARRAY g 1 16 F32 2 SMEM-TILE s  TID-X 4 < IF TID-X 16 * g + TID-X 16 * 0 s + "
      "CP.ASYNC THEN CP.COMMIT 0 CP.WAIT  .PIPE", wordset="tileforth", group=INSPECT_GROUP)
def w_pipe(f: "Forth", tok: Token) -> None:
    f.flush_segment()
    show(f, make_pipe(f))


@host(".PIPE-BLOCK", "( n -- )", "Show .PIPE for block n of the last launch (n the block's linear index in "
      "the grid; .PIPE shows the first block's): its warps' CP.WAITs with its stages, and the mbarrier phases it "
      "completed.",
      "2 1 1 GRID 32 1 1 THREADS 8 SHARED: bar  TID-X 0= IF bar 1 MBAR-INIT MBAR-FENCE bar MBAR-ARRIVE THEN  "
      "bar 0 MBAR-WAIT  1 .PIPE-BLOCK", wordset="tileforth", group=INSPECT_GROUP)
def w_pipe_block(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, ".PIPE-BLOCK")
    f.flush_segment()
    view = make_pipe(f, n)
    known = sorted(set(view.blocks()) | set(view.wait_blocks()))
    if known and n not in known:
        raise ForthError(f".PIPE-BLOCK: block {n} of the last launch made no CP.WAIT and completed no mbarrier phase "
                         f"(.PIPE keeps the waits of blocks 0 to {PIPE_BLOCKS - 1}); blocks {ranges_text(known)} did: "
                         "give one of those", tok.pos, tok.text)
    show(f, view)


@host("SMEM-TILE", "( rows cols type stages -- )", "Declare a ring of stages tiles of rows x cols elements of "
      "type in the block's shared memory, each stage 128 byte aligned; `stage name` pushes a stage's address "
      "and name-GEOM its shape (for STAGE-TILE). A row is a multiple of 16 bytes.",
      "16 64 BF16 2 SMEM-TILE As  1 As 0 As - . \\ 2048", wordset="tileforth", parses=_DEFINES)
def w_smem_tile(f: "Forth", tok: Token) -> None:
    _declare(f, tok, "SMEM-TILE", 0)


@host("SMEM-TILE-SWZ", "( rows cols type stages -- )", "SMEM-TILE with the 128 byte swizzle: rows of 128 "
      "bytes, the 16 byte chunk c of row r stored at chunk c XOR (r mod 8) (SWIZZLE128 gives its offset), "
      "each stage 1024 byte aligned.",
      "64 64 BF16 2 SMEM-TILE-SWZ Bs  1 Bs 0 Bs - .  Bs-GEOM 16 RSHIFT 65535 AND . \\ 8192 8",
      wordset="tileforth", parses=_DEFINES)
def w_smem_tile_swz(f: "Forth", tok: Token) -> None:
    _declare(f, tok, "SMEM-TILE-SWZ", SWIZZLE_ROW)


@host("SMEM-TILE-SWZ64", "( rows cols type stages -- )", "SMEM-TILE with the 64 byte swizzle of TMA and wgmma: "
      "rows of 64 bytes, the 16 byte chunk c of row r stored at chunk c XOR ((r/2) mod 4), each stage 1024 byte "
      "aligned; filled by TMA-LOAD of a 64 swizzle TMAP, read by 64 WGDESC (no name-GEOM: STAGE-TILE and "
      "ldmatrix read the 128 byte swizzle only).",
      "64 32 BF16 2 SMEM-TILE-SWZ64 Bs  1 Bs 0 Bs - . \\ 4096", wordset="tileforth", parses=_DEFINES)
def w_smem_tile_swz64(f: "Forth", tok: Token) -> None:
    _declare(f, tok, "SMEM-TILE-SWZ64", 64)


@host("SMEM-TILE-SWZ32", "( rows cols type stages -- )", "SMEM-TILE with the 32 byte swizzle of TMA and wgmma: "
      "rows of 32 bytes, the 16 byte chunk c of row r stored at chunk c XOR ((r/4) mod 2), each stage 1024 byte "
      "aligned; filled by TMA-LOAD of a 32 swizzle TMAP, read by 32 WGDESC (no name-GEOM).",
      "64 16 BF16 2 SMEM-TILE-SWZ32 Bs  1 Bs 0 Bs - . \\ 2048", wordset="tileforth", parses=_DEFINES)
def w_smem_tile_swz32(f: "Forth", tok: Token) -> None:
    _declare(f, tok, "SMEM-TILE-SWZ32", 32)
