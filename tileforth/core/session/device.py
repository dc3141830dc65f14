"""The session's machine: the one part of a session that holds the backend.

`Device` owns what lives on the machine or describes a launch there: the
backend, the launch shape, the kernel cache, the tile stack (its static
shape here, its data in the backend), the step budget, and what the last
launches cost. It compiles a segment (or finds it in the cache) and launches
it; it takes and restores its own snapshot (the stacks, the shape, the
tiles). The session (interpreter.py) turns what a launch left into output
and errors.
"""
from __future__ import annotations

import time
import weakref
from typing import TYPE_CHECKING, Any, Callable

from ... import registry
from ..compile.codegen import DEBUG
from ..compile.machine import DEFAULT as DEFAULT_MACHINE
from ..compile.machine import STATE_MOST, Machine, sized_for
from ..compile.state import Snapshot
from ..compile.target import Backend, LaunchResult, LaunchShape
from ..compile.tiles import Tile, TileConfig
from ..errors import ForthError
from ..front.linekey import line_shape
from ..records import record

if TYPE_CHECKING:
    from ..compile.codegen import Sites
    from ..compile.compiler import Compiler
    from ..front.linekey import LineShape
    from ..front.tree import Node

DEFAULT_STEPS = 1 << 26
KERNEL_CACHE = 512
SHAPE_CHECKED = 64 << 20  # a launch shape taking more than this (stacks, records) is checked against free memory  # compiled kernels a session keeps (least recently used go first)


def load_backend(name: str, machine: Machine = DEFAULT_MACHINE) -> Backend:
    """A new backend for a session's machine settings, by its name in the table of backends
    (tileforth/registry.py), or with "auto" the first of the backends "auto" may choose that starts."""
    if name == "auto":
        why: list[str] = []
        for entry in registry.auto_order():
            try:
                return entry.create(machine)
            except ForthError as err:
                why.append(f"{entry.name}: {err.message}")
        raise ForthError("no backend could start (" + "; ".join(why) + ")" if why else
                         f"no backend is registered for 'auto': use {backend_choices()}")
    named = registry.backend_entry(name)
    if named is None:
        raise ForthError(f"unknown backend {name!r}: use {backend_choices()}")
    return named.create(machine)


def backend_choices() -> str:
    return ", ".join(repr(n) for n in registry.backend_choices())


def _release_kernels(backend: Backend, kcache: dict) -> None:
    for kernel in kcache.values():
        backend.release(kernel)
    kcache.clear()


@record(frozen=True)
class DeviceSnapshot:
    """What Device.restore puts back: the stacks, the launch shape (and the stack sizes asked for) and the
    tile stack."""

    stacks: object  # Backend.take_stacks's copy: a host Snapshot (state.py), or cuda's device copy
    shape: LaunchShape
    asked: tuple[int, int] | None
    tiles: tuple[Tile, ...]
    tile_data: list | None  # every warp's tiles (None: no static tiles, so no warp holds one)
    tile_config: TileConfig
    device: int  # the device selected (DEVICE): a failed line that selected another goes back to it


class Device:
    """The backend and everything of the session that belongs to the machine."""

    __slots__ = ("backend", "checked", "shape", "kcache", "_release", "tiles", "tile_config", "step_budget",
                 "last_timing", "launch_hooks", "base", "asked", "compiled", "__weakref__")

    def __init__(self, backend: Backend, checked: bool, asked: tuple[int, int] | None = None) -> None:
        self.backend = backend
        self.checked = checked
        # the session's settings (the float width, the output buffer); the stacks' capacities are the
        # launch's: those asked for (STACK-SIZE, or a machine given to the session), else sized by its threads
        self.base = backend.machine
        self.asked = asked
        self.shape = LaunchShape()  # every backend starts with it (1 1 1 GRID 32 1 1 THREADS)
        self.kcache: dict[tuple, object] = {}
        self.compiled = 0  # kernels compiled so far (a line that hits the cache compiles none)
        # the kernels go back to the backend when the session does (backends share their JIT engines)
        self._release = weakref.finalize(self, _release_kernels, backend, self.kcache)
        self.tiles: list[Tile] = []  # the tile stack's static shape (the data is per warp, in the backend)
        self.tile_config = TileConfig()
        self.step_budget = DEFAULT_STEPS
        self.last_timing: dict[str, float] = {}
        # called after each launch, also one that raised (PROFILE collects its trace so)
        self.launch_hooks: list[Callable[[], None]] = []
        backend.set_race_checks(checked)  # a race detector (the emulator's) runs in checked mode
        self._use(self.shape)  # with the stacks of its launch shape

    @property
    def machine(self) -> Machine:
        """The session's settings (machine.py): the backend was made for them."""
        return self.backend.machine

    def set_shape(self, grid: tuple[int, int, int], block: tuple[int, int, int],
                  asked: tuple[int, int] | None | str = "same") -> None:
        """The launch shape of the lines that follow, with empty stacks; `asked`: the stack sizes asked
        for (cells, floats; None: sized by the launch; "same": as before)."""
        shape = LaunchShape((grid[0], grid[1], grid[2]), (block[0], block[1], block[2]))
        if not isinstance(asked, str):  # new sizes: refused before anything changes
            self.machine_for(shape, asked)
            self.asked = asked
        self._use(shape, interruptible=True)  # (a failed line's restore is not: it must finish)

    def machine_for(self, shape: LaunchShape, asked: tuple[int, int] | None) -> Machine:
        """The machine a launch of `shape` runs on: the session's, with the stacks it gets (`asked`, or
        sized by its threads; machine.py: sized_for), or a ForthError when the stacks asked for do not fit."""
        m = sized_for(self.base, shape.nthreads, asked, shrink=not self.backend.caps.lazy_stacks)
        if asked is not None and shape.nthreads * m.state_bytes > STATE_MOST:
            raise ForthError(f"stacks of {m.ds_max} cells and {m.fs_max} floats at {shape.nthreads} threads need "
                             f"{shape.nthreads * m.state_bytes:,} bytes, more than {STATE_MOST:,}: ask for smaller "
                             "stacks (STACK-SIZE; 0 0 STACK-SIZE sizes them by the launch)")
        need = self.backend.shape_bytes(shape.nthreads, m)
        free = self.backend.free_memory() if need > SHAPE_CHECKED else None
        if free is not None and need > free:
            raise self._too_big(shape, m, need, free)
        return m

    def _too_big(self, shape: LaunchShape, m: Machine, need: int, free: int | None) -> ForthError:
        where = "memory" if self.backend.caps.host_memory else "device memory"
        have = f"the {free >> 20:,} MiB of {where} free" if free is not None else f"the {where} there is"
        return ForthError(f"a launch of {shape.nthreads:,} threads needs {need >> 20:,} MiB of {where} for its "
                          f"stacks ({m.ds_max} cells and {m.fs_max} floats a thread) and thread records, more than "
                          f"{have} on the {self.backend.name} backend: use fewer threads (GRID, THREADS) or "
                          "smaller stacks (e.g. `16 8 STACK-SIZE`)")

    def _use(self, shape: LaunchShape, interruptible: bool = False) -> None:
        m = self.machine_for(shape, self.asked)
        old_machine, old_shape = self.backend.machine, self.shape
        if m != old_machine:
            self.backend.set_machine(m)
        try:
            self.backend.set_shape(shape, interruptible)
        except (MemoryError, OSError, ForthError) as exc:  # refused buffers (a limit free_memory missed)
            if m != old_machine:
                self.backend.set_machine(old_machine)
            self.backend.set_shape(old_shape)
            if isinstance(exc, ForthError):
                raise
            raise self._too_big(shape, m, self.backend.shape_bytes(shape.nthreads, m), None) from exc
        self.shape = shape

    def launch(self, nodes: list["Node"], compiler: "Compiler", key: tuple, base_addr: int,
               shared_bytes: int, sites: "Sites", line: "LineShape | None" = None) -> tuple[LaunchResult, list[Tile]]:
        """Compile `nodes` (or take them from the cache under the segment's structure, linekey.py,
        with `key`, what else changes its code) and launch them over the shape, the segment's
        literals as launch data and its sites at its positions; returns what the launch left and
        the tile stack the kernel ends with. `line`: the segment's LineShape, where the caller has
        it (a line run again: session/linecache.py)."""
        shape = self.shape
        if line is None:
            line = line_shape(nodes)
        key = (shape.grid, shape.block, self.backend.machine, self.checked, tuple(self.tiles), *key, line.key,
               DEBUG.on,  # a debug launch's kernel stops at each word (core/session/debugger.py): a kernel of its own
               self.backend.current_device)  # a kernel is loaded into one device's context (DEVICE)
        kernel: Any = self.kcache.pop(key, None)  # a backend's handle, with the tiles and patches noted on it
        timing: dict[str, float] = {}
        t0 = time.perf_counter()
        if kernel is None:
            km = compiler.kernel(nodes, self.tiles, block=shape.block, line=line)
            t1 = time.perf_counter()
            kernel = self.backend.compile(km.module, km.name, km.suspends, km.heavy, shape)
            kernel.tiles_out = list(km.tiles_out)
            kernel.patches = km.patches
            kernel.table_bases = km.table_bases  # the session addresses it reads from the launch's table
            self.compiled += 1
            timing["ir"] = t1 - t0
            while len(self.kcache) >= KERNEL_CACHE:  # the least recently used kernel goes
                self.backend.release(self.kcache.pop(next(iter(self.kcache))))
        self.kcache[key] = kernel  # (re)inserted last: the dict's order is the order of use
        t2 = time.perf_counter()
        timing["compile"] = t2 - t0
        entries = sites.entries
        for sid, k in kernel.patches:  # the line's sites name this line's positions
            entries[sid] = (entries[sid][0], line.positions[k])
        try:
            res = self.backend.launch(kernel, shape, base_addr, shared_bytes, self.step_budget, sites,
                                      lits=line.lits)
        finally:
            for hook in list(self.launch_hooks):
                hook()
        timing["run"] = time.perf_counter() - t2
        self.last_timing = timing
        return res, list(kernel.tiles_out)

    def end_tiles(self, tiles: list[Tile]) -> None:
        """The tile stack a launch ended with: its static shape here, its data cut to it."""
        self.tiles = list(tiles)
        self.backend.truncate_tiles(len(self.tiles))
        if self.tiles and not self.backend.caps.keeps_tiles:
            raise ForthError(f"on the {self.backend.name} backend the tile stack lives in registers and must be "
                             "empty at the end of a line: store or drop the tiles (TSTORE, TDROP) on the same line")

    def snapshot(self) -> DeviceSnapshot:
        stacks = self.backend.take_stacks()  # the backend's own copy (cuda: in device memory), or a host one
        return DeviceSnapshot(Snapshot.take(self.backend) if stacks is None else stacks, self.shape, self.asked, tuple(self.tiles),
                              self.backend.get_tiles() if self.tiles else None, self.tile_config,
                              self.backend.current_device)

    def restore(self, snap: DeviceSnapshot) -> None:
        # also when the backend's shape or machine is not the snapshot's: a line stopped inside a shape change
        # (Ctrl-C landing in Python between the machine, the backend's shape and ours) is undone too
        if (snap.shape != self.shape or snap.asked != self.asked or getattr(self.backend, "shape", snap.shape) != snap.shape
                or self.backend.machine != self.machine_for(snap.shape, snap.asked)):
            self.asked = snap.asked
            self._use(snap.shape)
        if isinstance(snap.stacks, Snapshot):
            snap.stacks.restore(self.backend)
        else:
            self.backend.restore_stacks(snap.stacks)
        self.tiles, self.tile_config = list(snap.tiles), snap.tile_config
        if snap.device != self.backend.current_device:
            self.backend.select_device(snap.device)
        if snap.tile_data is None:  # no tiles then (a tile stack with no static entries holds none in any warp)
            self.backend.truncate_tiles(0)
        else:
            self.backend.set_tiles(snap.tile_data)

    def close(self) -> None:
        """The compiled kernels go back to the backend, then the backend closes (a GPU context) and lets
        go of its buffers (Backend.discard): the session is closed for good."""
        try:
            self._release()
        finally:
            self.backend.discard()
