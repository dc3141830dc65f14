"""What the emulator's models of asynchrony hold for one thread at a step debugger's stop
(core/session/debugger.py reads it through the registry as "async_state": core names no backend).

`async_state(backend, ctx, thread)`: the thread's cp.async groups (asynccopy.py: committed so far,
committed and still in flight, copies not committed; None when the launch context has no copy model yet)
and its block's mbarriers (mbarriers.py: offset, count, pending arrivals, transaction bytes, phases
completed), as they are now, while the thread is stopped in the launch.
"""
from __future__ import annotations

import ctypes
from typing import Any

from tileforth.core.compile import layout as L

from . import mbarriers


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
