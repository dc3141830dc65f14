"""A session's machine settings: the float stack's width and the capacities of its records.

Every session has one `Machine` (`Forth(float_bits=64)`, or `Forth(machine=Machine(...))`);
the session hands it to its backend when it makes one, the backend to its code generator's
target, and everything that lays out a thread's stack state, builds a float, or sizes the
output buffer reads it there. Nothing is read from the environment when tileforth is
imported: `TILEFORTH_FLOAT=f64` is only the default a new session takes (`from_env`), so one
process may hold an f32 session and an f64 session side by side.

The stack state of one thread (state.py) follows from it:

    offset  0     8     16                   s_fs                          state_bytes
            dsp   fsp   ds[ds_max] (i64)      fs[fs_max] (f32, or f64)

The warp width is the backend's (`Capabilities.warp_size`); the fixed slots of the context
and thread records are in layout.py.
"""
from __future__ import annotations

import os

from ..errors import ForthError
from ..records import record
from . import layout as L

FLOAT_MODES = {"": 32, "f32": 32, "32": 32, "f64": 64, "64": 64}  # how TILEFORTH_FLOAT and --float name a width


@record(frozen=True)
class Machine:
    float_bits: int = 32  # the float stack's type: f32 (the GPU's fast type) or f64
    ds_max: int = 128  # data stack cells per thread
    fs_max: int = 64  # float stack entries per thread
    out_cap: int = 1 << 16  # output records a launch keeps (the rest are counted as dropped)

    def __post_init__(self) -> None:
        if self.float_bits not in (32, 64):
            raise ForthError(f"a float stack is f32 or f64, not f{self.float_bits}: give float_bits=32 or 64")
        for name in ("ds_max", "fs_max", "out_cap"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 1 <= value <= 1 << 24:
                raise ForthError(f"{name}={value!r}: give a whole number from 1 to {1 << 24}")

    @classmethod
    def from_env(cls, float_bits: int | None = None) -> "Machine":
        """The machine a new session gets: `float_bits` when given, else TILEFORTH_FLOAT's (f32 by default)."""
        if float_bits is None:
            text = os.environ.get("TILEFORTH_FLOAT", "")
            try:
                float_bits = FLOAT_MODES[text.strip().lower()]
            except KeyError:
                raise ForthError(f"TILEFORTH_FLOAT={text!r}: write f32 or f64") from None
        return cls(float_bits=float_bits)

    # ---- the float stack's type ------------------------------------------------------
    @property
    def float_bytes(self) -> int:
        """A float on the float stack and in memory (F@ F! FLOATS)."""
        return self.float_bits // 8

    @property
    def float_dtype(self) -> str:
        """Its numpy type."""
        return f"<f{self.float_bytes}"

    @property
    def float_bits_dtype(self) -> str:
        """An integer of its width (to compare floats bit for bit)."""
        return f"<i{self.float_bytes}"

    @property
    def precision(self) -> int:
        """PRECISION's start: the digits that print every float of the type back exactly."""
        return 17 if self.float_bits == 64 else 9

    # ---- a thread's stack state -----------------------------------------------------
    @property
    def s_fs(self) -> int:
        """The byte offset of the float stack in a thread's stack state."""
        return L.S_DS + self.ds_max * 8

    @property
    def state_bytes(self) -> int:
        """The size of one thread's stack state (a multiple of 8)."""
        return -(-(self.s_fs + self.fs_max * self.float_bytes) // 8) * 8


DEFAULT = Machine()

# the stacks a launch gets when the session asks for no size (STACK-SIZE 0 0, the default): as deep as
# STACK_BUDGET bytes of stack state over its threads allow, between the floor (the stacks of a big launch,
# 128 cells and 64 floats, as before issue 25) and the ceiling (one thread: 16,384 cells, 2,048 floats)
STACK_BUDGET = 16 << 20
DS_FLOOR, FS_FLOOR = DEFAULT.ds_max, DEFAULT.fs_max
DS_CEILING, FS_CEILING = 16384, 2048
FLOOR_THREADS = 1 << 20  # threads that get the floor's stacks; each doubling past it halves them
DS_LEAST, FS_LEAST = 16, 8  # the stacks of the largest launches
STATE_MOST = 1 << 30  # the stack state of a launch whose stacks the session asked for (STACK-SIZE) at most


def sized_for(base: Machine, threads: int, asked: tuple[int, int] | None, shrink: bool = True) -> Machine:
    """The machine of a launch of `threads` threads: `base`'s float width and output buffer, with the
    stacks `asked` for (cells, floats), or, when None, the deepest power-of-two stacks the budget gives.
    Past FLOOR_THREADS the floor itself halves as the threads double (down to 16 cells and 8 floats), so
    the stack state of a launch of any size takes at most about what 1,048,576 threads' took; not when
    `shrink` is False: a backend that keeps a big launch's stacks lazily (Capabilities.lazy_stacks) spends
    memory on the items held, not on the stacks' capacity, and keeps the floor (128 cells, 64 floats)."""
    if asked is not None:
        ds, fs = asked
    else:
        per_thread = STACK_BUDGET // max(threads, 1)
        ds = DS_CEILING
        while ds > DS_FLOOR and L.S_DS + ds * 8 + (ds // 8) * base.float_bytes > per_thread:
            ds //= 2
        fs = max(FS_FLOOR, min(FS_CEILING, ds // 8))
        over = FLOOR_THREADS
        while shrink and threads > over and ds > DS_LEAST:  # a launch past a million threads: shallower stacks
            ds, fs, over = ds // 2, max(FS_LEAST, fs // 2), over * 2
    if (ds, fs) == (base.ds_max, base.fs_max):
        return base
    return Machine(float_bits=base.float_bits, ds_max=ds, fs_max=fs, out_cap=base.out_cap)
