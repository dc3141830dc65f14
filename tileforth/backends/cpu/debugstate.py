"""What the emulator's models of asynchrony hold for one thread at a step debugger's stop
(core/session/debugger.py reads it through the registry as "async_state": core names no backend), and
the values of its warp's tiles there ("tile_state").

`async_state(backend, ctx, thread)`: the thread's cp.async groups (asynccopy.py: committed so far,
committed and still in flight, copies not committed; None when the launch context has no copy model yet)
and its block's mbarriers (mbarriers.py: offset, count, pending arrivals, transaction bytes, phases
completed), as they are now, while the thread is stopped in the launch.

`tile_state(backend, ctx, thread)`: the tile stack of the thread's warp now (bottom first, copies of the
logical matrices): from the batched stacks of the context's WarpOps while a launch step holds them
(warpops.LIVE), else the backend's tile_data. A warp's tile ops run when all its lanes reach them, so at
any lane's stop the tiles are those the tile stack had just before that word.
"""
from __future__ import annotations

import ctypes
from typing import Any

from tileforth.core.compile import layout as L

from . import mbarriers, warpops


def async_state(backend: Any, ctx: int, thread: int) -> tuple[tuple[int, int, int] | None,
                                                                 tuple[tuple[int, int, int, int, int], ...]]:
    model = getattr(backend, "asyncs", None)
    st = model._launches.get(ctx) if model is not None else None
    groups = None
    table = ctypes.c_int64.from_address(ctx + L.CTX_ASYNC * 8).value
    if st is not None and table and st.table.ctypes.data == table:
        th = st.threads.get(thread)
        groups = (0, 0, 0) if th is None else (th.committed, len(th.groups), len(th.open))
    mb = mbarriers._MODELS.get(backend)
    blk = mb._blocks.get(ctx) if mb is not None else None
    if blk is None or blk.block != thread // max(1, int(backend.block_size)):
        return groups, ()
    return groups, tuple((off, b.count, b.pending, b.tx, b.phase) for off, b in sorted(blk.barriers.items()))


def tile_state(backend: Any, ctx: int, thread: int) -> list:
    bs = max(1, int(backend.block_size))
    g = thread // bs * int(backend.warps_per_block) + thread % bs // 32
    ops = warpops.LIVE.get(ctx)
    if ops is not None and ops.be is backend:
        return ops.warp_tiles(g)
    return backend.tiles_of(g)
