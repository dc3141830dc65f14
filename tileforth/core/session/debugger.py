"""A SIMT step debugger on the emulator (the cpu backend): record a line's launches at every word, then step the record.

A debug launch compiles the line's kernel with a stop before every word (compile/codegen.py: DEBUG; a
kernel of its own in the cache) and every colon word it calls copied in, so stops happen inside words too.
At each stop a thread calls tf_debug_point, which notes (thread, word, its stacks' top items, watched
cells) here. The launch itself runs to its end as any launch does, so its results are the unstepped
launch's, bit for bit; the debugger then replays what each lane did as a warp of 32 lanes runs it:

- a warp runs its lanes in lockstep: the word it runs next is the earliest in the source among its lanes'
  next words, and the active mask is the lanes at that word (lanes whose next word is later wait: an `IF`
  splits the mask, the lanes meet again at `THEN`);
- the block's warps run one at a time, as the emulator's scheduler runs a block's threads in order: a warp
  runs until it reaches a `BARRIER` (it is parked there) or ends, then the next warp runs; when every warp
  is parked or done, the barrier releases them all.

At each stop the record also keeps what the emulator's models of asynchrony held for the lane then: its
cp.async groups (committed so far, committed and still in flight, copies not committed yet;
backends/cpu/asynccopy.py) and its block's mbarriers (phase, arrivals pending, transaction bytes;
backends/cpu/mbarriers.py), as the lane found them when it reached the word in the recorded run. The tile
stack at a stop is static (the compiler knows it at every word: codegen.DEBUG.tiles), so each warp's is the
one at the word it runs next; its values are noted at the stops of each warp's first lane where the stack
is not empty (backends/cpu/debugstate.py, through the registry as "tile_state"; a warp's tile ops run
when all its lanes reach them, so lane 0's stop sees the values just before the word), an unchanged stack
shared with the stop before. `Debugger.tile(i)` gives entry i (0: the top) as `.TILE` shows it.

`Debugger` (made by `Forth.debug(line)`) steps, continues to breakpoints, picks warps and blocks and
gives `.view()` records (`View`), which `render` turns into the text the REPL shows.
"""
from __future__ import annotations

import ctypes
import threading
import weakref
from typing import Any

from ..lazy import np

from ..records import field, record

from ... import registry
from ..compile import layout as L
from ..compile.codegen import DEBUG
from ..compile.tiles import Tile, resolve
from ..errors import ForthError, SourcePos
from .views import WIDTH, Lines, TileValues, _tile_lines

Forth = Any  # the session (interpreter.py imports this module: naming it here would be a cycle)

TOP = 4  # data stack items shown per lane
FTOP = 2  # float stack items shown per lane
WARP = 32
EVENT_CAP = 2_000_000  # a debug launch notes at most this many stops (more: the launch is too big to step)
SYNC_WORDS = frozenset({"BARRIER"})
PRINTED_LINES = 8  # the lines of what was printed so far that a rendered stop shows (the last ones)
STEP_CAP = 200_000  # a front end that steps a whole record (`%%forth --trace`) stops after this many steps

_POINT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
                          ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


@record(frozen=True)
class Groups:
    """A thread's cp.async groups at a stop: committed so far, committed and still in flight (not landed by a
    CP.WAIT), and copies started since its last CP.COMMIT."""

    committed: int
    in_flight: int
    open: int


@record(frozen=True)
class Mbar:
    """An mbarrier of the block at a stop: its shared offset, arrivals per phase, arrivals its current phase
    still needs, transaction bytes announced less delivered, and phases completed."""

    offset: int
    count: int
    pending: int
    tx: int
    phase: int


@record
class Event:
    """One lane at one stop, before the word runs: the site, its stacks' depths and top items, the watch,
    its cp.async groups (None: the launch has copied nothing yet) and its block's mbarriers."""

    site: int
    depth: int
    top: tuple[int, ...]
    fdepth: int
    ftop: tuple[float, ...]
    watch: tuple[int, ...] = ()
    groups: Groups | None = None
    mbars: tuple[Mbar, ...] = ()
    out: int = 0  # output records of the launch noted before this stop (_Recorder.outs)
    tiles: tuple | None = None  # the warp's tile values (numpy, bottom first), at its lane 0's stops with tiles


class _Recorder:
    """What the debug points of one debug run note: per launch, per thread, the list of its Events."""

    def __init__(self, f: Forth, watch: list[tuple[int, int]]) -> None:
        self.f = f
        self.watch = watch
        self.launches: list[dict[int, list[Event]]] = [{}]
        self.block_sizes: list[int] = []
        # each launch's output records, in the order the stops found them in the contexts' buffers, and its shape
        self.outs: list[list[Any]] = [[]]
        self.out_count = [0]
        self.out_seen: dict[int, int] = {}  # per launch context: the records already copied
        self.shapes: list[Any] = []
        self.count = 0
        self.fbytes = int(f.backend.machine.float_bytes)
        self.overflow = False
        self.state: Any = None  # the backend's reader of its async models (asyncs)
        self.tile_reader: Any = None  # the backend's reader of a warp's tiles (tile_values)
        self.last_tiles: dict[int, tuple] = {}  # per thread: the tile values its last stop noted

    def launched(self) -> None:  # a device launch hook: the next launch's events go to a new record
        self.block_sizes.append(int(self.f.backend.block_size))
        self.shapes.append(self.f.launch_shape)
        self.launches.append({})
        self.outs.append([])
        self.out_count.append(0)
        self.out_seen = {}
        self.last_tiles = {}

    def note(self, ctx: int, thr: int, site: int, ds: int, dsp: int, fs: int, fsp: int) -> None:
        if self.count >= EVENT_CAP:
            self.overflow = True
            return
        self.count += 1
        lin = ctypes.c_int64.from_address(thr + L.T_LINEAR * 8).value
        depth = ctypes.c_int64.from_address(dsp).value
        k = max(0, min(TOP, depth))
        top = tuple((ctypes.c_int64 * k).from_address(ds + (depth - k) * 8)) if k else ()
        fdepth = ctypes.c_int64.from_address(fsp).value
        j = max(0, min(FTOP, fdepth))
        ctype = ctypes.c_float if self.fbytes == 4 else ctypes.c_double
        ftop = tuple((ctype * j).from_address(fs + (fdepth - j) * self.fbytes)) if j else ()
        watch: tuple[int, ...] = ()
        if self.watch:
            watch = tuple(v for addr, n in self.watch for v in (ctypes.c_int64 * n).from_address(addr))
        groups, mbars = self.asyncs(ctx, lin)
        self.copy_output(ctx)
        tiles = self.tile_values(ctx, lin, site)
        self.launches[-1].setdefault(lin, []).append(Event(site, depth, top, fdepth, ftop, watch, groups, mbars,
                                                           self.out_count[-1], tiles))

    def tile_values(self, ctx: int, lin: int, site: int) -> tuple | None:
        """The values of the thread's warp's tiles at this stop, when the thread is the warp's lane 0 and the
        tile stack is not empty there: the tuple of the thread's last stop when they are equal."""
        if not DEBUG.tiles.get(site) or lin % max(1, int(self.f.backend.block_size)) % WARP:
            return None
        if self.tile_reader is None:
            self.tile_reader = registry.exporter("tile_state") or (lambda *a: [])
        now = tuple(self.tile_reader(self.f.backend, ctx, lin))
        last = self.last_tiles.get(lin)
        if last is not None and len(last) == len(now) and all(
                a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
                for a, b in zip(last, now)):
            return last
        self.last_tiles[lin] = now
        return now

    def copy_output(self, ctx: int) -> None:
        """The records the context's threads printed since its last stop, copied (a thread's own, printed by
        the words before this stop, are among them: a worker runs its threads one at a time)."""
        n = min(ctypes.c_int64.from_address(ctx + L.CTX_OUT_LEN * 8).value, int(self.f.machine.out_cap))
        seen = self.out_seen.get(ctx, 0)
        if n <= seen:
            return
        buf = ctypes.c_int64.from_address(ctx + L.CTX_OUT * 8).value
        k = (n - seen) * L.OUT_SLOTS
        recs = np.array((ctypes.c_int64 * k).from_address(buf + seen * L.OUT_SLOTS * 8), np.int64)
        self.outs[-1].append(recs.reshape(-1, L.OUT_SLOTS))
        self.out_count[-1] += n - seen
        self.out_seen[ctx] = n

    def asyncs(self, ctx: int, lin: int) -> tuple[Groups | None, tuple[Mbar, ...]]:
        """The thread's cp.async groups and its block's mbarriers, from the emulator's models, when this
        launch has used them (ctx[CTX_ASYNC] is set at its first async op: none before). The backend's
        reader comes from the registry (backends/cpu/debugstate.py: core names no backend)."""
        if not ctypes.c_int64.from_address(ctx + L.CTX_ASYNC * 8).value:
            return None, ()
        if self.state is None:
            self.state = registry.exporter("async_state") or (lambda *a: (None, ()))
        groups, mbars = self.state(self.f.backend, ctx, lin)
        return (None if groups is None else Groups(*groups)), tuple(Mbar(*m) for m in mbars)


_recording: _Recorder | None = None
_lock = threading.Lock()


def _point(ctx: int, thr: int, site: int, ds: int, dsp: int, fs: int, fsp: int) -> None:
    rec = _recording
    if rec is None:
        return
    try:
        rec.note(ctx, thr, site, ds, dsp, fs, fsp)
    except Exception:  # noqa: BLE001  (a ctypes callback must not raise: the stop is left out)
        pass


_POINT_FN = _POINT(_point)  # kept for the process: the JIT-ed code holds its address
_registered = False


def _register() -> None:
    global _registered
    if not _registered:
        import llvmlite.binding as llvm

        llvm.add_symbol("tf_debug_point", ctypes.cast(_POINT_FN, ctypes.c_void_p).value)
        _registered = True


@record
class DebugState:
    """What a session keeps for the debugger (the session itself takes no new attributes): the line being
    debugged, the breakpoints (BREAK) and the watch list (WATCH)."""

    debugger: "Debugger | None" = None
    breakpoints: set[str] = field(default_factory=set)
    watches: list[tuple[int, int]] = field(default_factory=list)


_states: "weakref.WeakKeyDictionary[Any, DebugState]" = weakref.WeakKeyDictionary()


def state_of(f: Forth) -> DebugState:
    st = _states.get(f)
    if st is None:
        st = _states[f] = DebugState()
    return st


# ---- the replay -----------------------------------------------------------------------------------
@record
class Lane:
    lane: int  # 0..31 in its warp
    active: bool
    depth: int
    top: tuple[int, ...]
    fdepth: int
    ftop: tuple[float, ...]
    done: bool
    watch: tuple[int, ...] = ()
    watch_changed: bool = False
    groups: Groups | None = None  # its cp.async groups at the stop (None: no copy yet in the launch)


@record
class WarpRow:
    """A warp of the block at a stop: its state, its tile stack at the word it runs next (top last), and its
    lanes' cp.async groups (those of its first live lane; alike: every live lane has the same)."""

    warp: int
    state: str
    tiles: tuple[str, ...] = ()
    groups: Groups | None = None
    alike: bool = True


@record
class View:
    """One stop: what the REPL renders (render) and tests read."""

    launch: int
    block: int
    warp: int
    word: str  # the word about to run ("" once the launch is over)
    pos: SourcePos | None
    mask: list[bool]  # the warp's 32 lanes: True where the lane runs the word
    lanes: list[Lane]
    warps: list[str]  # the block's warps: running, diverged, barrier, ready, done
    tiles: list[str] = field(default_factory=list)  # the current warp's tile stack at the word (top last)
    finished: bool = False
    rows: list[WarpRow] = field(default_factory=list)  # the block's warps: state, tile stack, cp.async groups
    mbars: list[Mbar] = field(default_factory=list)  # the block's mbarriers, as the warp's first active lane found them
    output: Any = None  # makes `printed` when first read (Debugger.printed_text, at this stop)
    _printed: str | None = None

    @property
    def printed(self) -> str:
        """What the launches' threads printed up to this stop of the replay (Debugger.printed_text)."""
        if self._printed is None:
            self._printed = self.output() if self.output is not None else ""
        return self._printed

    @property
    def source_line(self) -> str:
        if self.pos is None:
            return ""
        return f"{self.pos.text}\n{' ' * (self.pos.col - 1)}^"


@record(frozen=True)
class StopTile:
    """A tile-stack entry at a stop, with the fields of Forth.tile_stack's entries (what .TILE shows)."""

    kind: str  # "a" | "b" | "acc" | "wacc"
    shape: tuple[int, int]  # rows, cols of the logical matrix
    dtype: str
    layout: str
    mnk: tuple[int, int, int]
    values: Any  # numpy (rows, cols)


@record(eq=False)
class StopTileValues(TileValues):
    """DTILE's record: entry `entry` (0: the top) of a warp's tile stack at a stop, laid out as .TILE's."""

    entry: int = 0
    block: int = 0

    def lines(self, width: int = WIDTH) -> Lines:
        t = self.tile
        lay = f", loaded {t.layout}-major" if t.kind not in ("acc", "wacc") else ""
        m, n, k = t.mnk
        which = "the top" if self.entry == 0 else f"entry {self.entry} below the top"
        head = (f"{t.kind} {t.shape[0]}x{t.shape[1]} {t.dtype}: {which} of the tile stack <{self.depth}> of "
                f"warp {self.warp} of block {self.block} at the debugger's stop (m{m}n{n}k{k}{lay})")
        return _tile_lines(head, t.values, width)


class _Block:
    """The replay of one block of one launch: each lane's position in its list of events."""

    def __init__(self, threads: list[list[Event]], sites: Any) -> None:
        self.threads = threads
        self.sites = sites
        self.at = [0] * len(threads)
        self.keys: dict[int, list[tuple]] = {}  # a lane's key (below) at each of its events, made when needed
        self.nwarps = (len(threads) + WARP - 1) // WARP
        self.parked = [False] * self.nwarps
        self.warp = 0
        self._settle()

    def lanes_of(self, w: int) -> range:
        return range(w * WARP, min((w + 1) * WARP, len(self.threads)))

    def next_event(self, t: int) -> Event | None:
        evs = self.threads[t]
        return evs[self.at[t]] if self.at[t] < len(evs) else None

    def label(self, site: int) -> str:
        return DEBUG.labels.get(site, "?")

    def order(self, site: int) -> tuple:
        pos = self.sites.entries[site][1] if site < len(self.sites.entries) else None
        return (0, 0, site) if pos is None else (pos.line, pos.col, site)

    def chosen(self, w: int) -> int | None:
        """The site warp w runs next (the earliest in the source among its lanes' next words, a word inside
        a called word placed at its call: `key`), or None."""
        sites: dict[int, int] = {}  # each next site: the first lane at it
        for t in self.lanes_of(w):
            e = self.next_event(t)
            if e is not None:
                sites.setdefault(e.site, t)
        if len(sites) <= 1:
            return next(iter(sites), None)
        return min(sites, key=lambda site: self.key(sites[site]))

    def key(self, t: int) -> tuple:
        """Where lane t's next word is, as a place in the debugged line: the positions of the calls it is
        inside, outermost first, then its own (the lanes of a warp compare by it: words of different
        definitions have positions in different texts, the calls' positions are in the line's)."""
        keys = self.keys.get(t)
        if keys is None:
            keys = self.keys[t] = self._keys(self.threads[t])
        return keys[self.at[t]]

    def _keys(self, evs: list[Event]) -> list[tuple]:
        out: list[tuple] = []
        chain: list[tuple[str, tuple]] = []  # the calls the lane is inside: (the word called, the call's place)
        prev = None
        for e in evs:
            d = self.defname(e.site)
            if prev is not None and d != self.defname(prev.site):
                if self.label(prev.site).upper() == d.upper():  # the last word was the call of this one
                    chain.append((d, self.order(prev.site)))
                else:  # a return: to the word it was called from
                    while chain and chain[-1][0] != d:
                        chain.pop()
            out.append(tuple(place for _, place in chain) + (self.order(e.site),))
            prev = e
        return out

    def defname(self, site: int) -> str:
        return str(self.sites.entries[site][0]) if site < len(self.sites.entries) else ""

    def mask(self, w: int) -> list[bool]:
        site = self.chosen(w)
        m = [False] * WARP
        for t in self.lanes_of(w):
            e = self.next_event(t)
            m[t - w * WARP] = e is not None and e.site == site
        return m

    def done(self, w: int) -> bool:
        return self.chosen(w) is None

    def finished(self) -> bool:
        return all(self.done(w) for w in range(self.nwarps))

    def _settle(self) -> None:
        """After a step: keep the current warp while it can run; else the next warp that can, or, when
        every warp is parked at the barrier or done, release the barrier."""
        for _ in range(2 * self.nwarps + 2):
            w = self.warp
            if not self.parked[w] and not self.done(w):
                return
            runnable = [v for v in range(self.nwarps) if not self.parked[v] and not self.done(v)]
            if runnable:
                later = [v for v in runnable if v > w]
                self.warp = later[0] if later else runnable[0]
                continue
            if any(self.parked):  # every warp parked or done: the barrier releases them
                for v in range(self.nwarps):
                    if self.parked[v]:
                        self.parked[v] = False
                        for t in self.lanes_of(v):
                            if self.next_event(t) is not None:
                                self.at[t] += 1
                self.warp = next((v for v in range(self.nwarps) if not self.done(v)), 0)
                continue
            return

    def step(self) -> int | None:
        """Run the current warp's next word on its active lanes; the site it ran, or None at the end.
        At a BARRIER that all its live lanes reached the warp parks there (the word runs when the last
        warp of the block arrives)."""
        w = self.warp
        site = self.chosen(w)
        if site is None or self.parked[w]:
            return None
        mask = self.mask(w)
        if self.label(site) in SYNC_WORDS and all(mask[t - w * WARP] or self.next_event(t) is None
                                                  for t in self.lanes_of(w)):
            self.parked[w] = True
        else:
            for t in self.lanes_of(w):
                if mask[t - w * WARP]:
                    self.at[t] += 1
        self._settle()
        return site

    def state(self, w: int) -> str:
        if self.done(w):
            return "done"
        if self.parked[w]:
            return "barrier"
        if w != self.warp:
            return "ready"
        live = [self.next_event(t) is not None for t in self.lanes_of(w)]
        return "running" if sum(self.mask(w)) == sum(live) else "diverged"


class Debugger:
    """A line's launches, recorded at every word, stepped warp by warp (module docstring)."""

    def __init__(self, f: Forth, rec: _Recorder, snap: Any, output: str, error: ForthError | None) -> None:
        self.f, self.rec, self.snap = f, rec, snap
        self.output, self.error = output, error
        self.breaks: set[str] = set(state_of(f).breakpoints)
        self.launch = 0
        self.blocks: dict[tuple[int, int], _Block] = {}
        self.block = 0
        self.quitted = False
        self.launches = [lw for lw in rec.launches if lw]
        self.end_tiles = tuple(t.short() for t in getattr(f.device, "tiles", []))  # the line's tile stack at its end
        self.sizes = [bs for bs, lw in zip(rec.block_sizes, rec.launches) if lw]
        self.rec.outs = [o for o, lw in zip(rec.outs, rec.launches) if lw]
        self.shapes_ = [sh for sh, lw in zip(rec.shapes, rec.launches) if lw]
        self._go_to_first()

    # ---- where the replay is --------------------------------------------------------------------
    def _go_to_first(self) -> None:
        self.launch, self.block = 0, 0
        while self.launch < len(self.launches) and self._cur().finished():
            if not self._next_block():
                break

    def _blocks_in(self, launch: int) -> int:
        threads = self.launches[launch]
        bs = self.sizes[launch]
        return (max(threads) // bs + 1) if threads else 0

    def _cur(self) -> _Block:
        key = (self.launch, self.block)
        blk = self.blocks.get(key)
        if blk is None:
            bs = self.sizes[self.launch]
            threads = self.launches[self.launch]
            lists = [threads.get(self.block * bs + i, []) for i in range(bs)]
            blk = self.blocks[key] = _Block(lists, self.f.sites)
        return blk

    def _next_block(self) -> bool:
        """Move to the next block (of this launch, then the next launch) that has a stop left."""
        while True:
            if self.block + 1 < self._blocks_in(self.launch):
                self.block += 1
            elif self.launch + 1 < len(self.launches):
                self.launch, self.block = self.launch + 1, 0
            else:
                return False
            if not self._cur().finished():
                return True

    @property
    def finished(self) -> bool:
        return self.quitted or not self.launches or (self._cur().finished() and not self._has_more())

    def _has_more(self) -> bool:
        saved = self.launch, self.block
        more = self._next_block()
        if more:
            self.launch, self.block = saved
        return more

    # ---- the commands -------------------------------------------------------------------------
    def _live(self) -> None:
        if self.quitted:
            raise ForthError("the debugger has quit: start another with DEBUG (or f.debug)")

    def step(self) -> View:
        """One word for the current warp (its active lanes)."""
        self._live()
        self.advance()
        return self.view()

    def advance(self) -> None:
        """step() without making the view (what steps many times makes one at its end: cont, --trace)."""
        blk = self._cur()
        if blk.step() is None or blk.finished():
            if blk.finished():
                self._next_block()

    def _word(self) -> str:
        """The word the current warp runs next ("" at the end): view().word, without the view."""
        blk = self._cur()
        site = blk.chosen(blk.warp)
        return "" if site is None else DEBUG.labels.get(site, "?")

    def step_sync(self) -> View:
        """Steps until the current warp reaches a barrier, another warp runs, or the block ends."""
        self._live()
        start = (self.launch, self.block, self._cur().warp)
        while not self.finished:
            self.advance()
            if (self.launch, self.block, self._cur().warp) != start or self._cur().parked[self._cur().warp]:
                break
        return self.view()

    def cont(self) -> View:
        """Steps until the next stop at a breakpoint (BREAK, DEBUG name) or the end."""
        self._live()
        while not self.finished:
            self.advance()
            if self._word().upper() in self.breaks:
                break
        return self.view()

    def finish(self) -> View:
        """At a call: steps over the word called (to the stop after it returns). Inside a word: steps until
        the current warp leaves it."""
        self._live()
        start = self._enclosing()
        self.advance()
        entered = not self.finished and self._enclosing()[:3] == start[:3] and self._enclosing() != start
        while not self.finished and (self._enclosing() != start if entered else self._enclosing() == start):
            self.advance()
        return self.view()

    def _enclosing(self) -> tuple:
        blk = self._cur()
        site = blk.chosen(blk.warp)
        return (self.launch, self.block, blk.warp, None if site is None else self.f.sites.entries[site][0])

    def select_warp(self, w: int) -> View:
        """Make warp w of the block the current one (it runs next)."""
        self._live()
        blk = self._cur()
        if not 0 <= w < blk.nwarps:
            raise ForthError(f"warp {w} is not in the block, which has {blk.nwarps} warps: pick 0 to {blk.nwarps - 1}")
        if blk.parked[w] or blk.done(w):
            raise ForthError(f"warp {w} is {blk.state(w)}: it cannot run now; pick a warp that is ready")
        blk.warp = w
        return self.view()

    def select_block(self, b: int) -> View:
        """Step block b of the current launch from now on."""
        self._live()
        n = self._blocks_in(self.launch)
        if not 0 <= b < n:
            raise ForthError(f"block {b} is not in the launch, which has {n} blocks: pick 0 to {n - 1}")
        self.block = b
        return self.view()

    def tiles(self, warp: int | None = None) -> list[StopTile]:
        """The tile stack of warp `warp` of the block (default: the current one) at this stop, bottom first,
        with each entry's values as they are before the word the warp runs next (once the warp is done:
        as the line left them, when this is the line's last launch)."""
        blk = self._cur()
        w = blk.warp if warp is None else int(warp)
        if not 0 <= w < blk.nwarps:
            raise ForthError(f"warp {w} is not in the block, which has {blk.nwarps} warps: pick 0 to {blk.nwarps - 1}")
        e = blk.next_event(w * WARP)
        if e is None:
            if blk.threads[w * WARP] and not self.quitted and self.launch == len(self.launches) - 1:
                g = self.block * int(self.f.backend.warps_per_block) + w
                return [StopTile(t.kind, t.shape, t.dtype, t.layout, t.mnk, t.values) for t in self.f.tile_stack(g)]
            raise ForthError(f"warp {w} has ended in this launch, so its tiles are not kept at this stop: look at them "
                             "before its last word (DSTEP fewer), or at the next launch's first stop")
        descs = [resolve(t) for t in DEBUG.stacks.get(e.site, ())]
        values = e.tiles or ()
        out = []
        for t, v in zip(descs, values):
            if not isinstance(t, Tile):  # a tile the compiler could not name (a Hole): its values alone
                out.append(StopTile("?", tuple(v.shape), str(v.dtype), "row", (0, 0, 0), v.copy()))
            else:
                out.append(StopTile(t.kind, t.rows_cols, t.dtype, t.layout, t.shape, v.copy()))
        return out

    def tile(self, entry: int = 0, warp: int | None = None) -> StopTile:
        """Entry `entry` of the warp's tile stack at this stop (0: the top, 1: the one below, as PICK counts)."""
        stack = self.tiles(warp)
        w = self._cur().warp if warp is None else int(warp)
        if not stack:
            raise ForthError(f"the tile stack of warp {w} is empty at this stop: step past a word that pushes a tile "
                             "(TZERO, TLOAD-A) first")
        if not 0 <= entry < len(stack):
            raise ForthError(f"the tile stack of warp {w} holds {len(stack)} tiles at this stop, so entry {entry} is "
                             f"not there: give 0 (the top) to {len(stack) - 1}")
        return stack[-1 - entry]

    def tile_view(self, entry: int = 0, warp: int | None = None) -> StopTileValues:
        """DTILE's record of tile(entry, warp): rendered as .TILE renders the top tile."""
        t = self.tile(entry, warp)
        blk = self._cur()
        return StopTileValues(t, len(self.tiles(warp)), blk.nwarps, blk.warp if warp is None else int(warp),
                              entry=entry, block=self.block)

    def run_to_end(self) -> View:
        while not self.finished:
            self.advance()
        return self.view()

    def quit(self) -> None:
        """Abandon the line: the session is as it was before it (as after a failed line)."""
        if not self.quitted:
            self.f._restore(self.snap)
            self.quitted = True

    # ---- the view -----------------------------------------------------------------------------
    def view(self) -> View:
        if not self.launches:
            return View(0, 0, 0, "", None, [False] * WARP, [], [], finished=True)
        blk = self._cur()
        w = blk.warp
        site = blk.chosen(w)
        mask = blk.mask(w)
        lanes = []
        for t in blk.lanes_of(w):
            e = blk.next_event(t)
            done = e is None
            if e is None and blk.threads[t]:
                e = blk.threads[t][-1]
            watch = e.watch if e is not None else ()
            prev = blk.threads[t][blk.at[t] - 1] if not done and blk.at[t] > 0 else None
            changed = prev is not None and watch != prev.watch  # the lane's last word changed the cells
            lanes.append(Lane(t - w * WARP, mask[t - w * WARP], e.depth if e else 0, e.top if e else (),
                              e.fdepth if e else 0, e.ftop if e else (), done, watch, changed,
                              e.groups if e else None))
        pos = self.f.sites.entries[site][1] if site is not None else None
        word = DEBUG.labels.get(site, "?") if site is not None else ""
        rows = [self._row(blk, v) for v in range(blk.nwarps)]
        first = next((blk.next_event(t) for t in blk.lanes_of(w) if mask[t - w * WARP]), None)
        return View(self.launch, self.block, w, word, pos, mask, lanes, [r.state for r in rows],
                    list(rows[w].tiles) if rows else [], finished=self.finished, rows=rows,
                    mbars=list(first.mbars) if first is not None else [], output=self._printed_at())

    def _printed_at(self) -> Any:
        """printed_text for the replay where it is now (the view reads it only if asked)."""
        launch, block, at = self.launch, self.block, list(self._cur().at)

        def text() -> str:
            saved = self.launch, self.block
            self.launch, self.block = launch, block
            blk = self._cur()
            now, blk.at = blk.at, at
            try:
                return self.printed_text()
            finally:
                blk.at = now
                self.launch, self.block = saved
        return text

    def printed_text(self) -> str:
        """The device output so far, as the line would show it: the earlier launches' whole, then of this
        launch what each thread printed before where the replay has it (the threads of earlier blocks all,
        of later blocks none). What a thread prints after its last stop shows from a later stop of
        another thread on, and in full when the line ends."""
        from .output import format_output

        parts = []
        for k in range(self.launch + 1):
            recs = self.rec.outs[k] if k < len(self.rec.outs) else []
            if not recs:
                continue
            r = np.concatenate(recs)
            if k == self.launch:
                bs = self.sizes[k]
                blk = self._cur()
                limit = np.zeros(len(r), np.int64)  # per record: how many records its thread had printed then
                thr = r[:, 0]
                block = thr // bs
                keep = block < self.block
                here = np.flatnonzero(block == self.block)
                lim = {}
                for t in np.unique(thr[here]).tolist():
                    e = blk.next_event(t - self.block * bs) if t - self.block * bs < len(blk.threads) else None
                    lim[t] = len(r) if e is None else e.out
                limit[here] = [lim[int(t)] for t in thr[here].tolist()]
                keep[here] = np.arange(len(r))[here] < limit[here]
                r = r[keep]
            if len(r):
                shape = self.shapes_[k] if k < len(self.shapes_) else None
                parts.append(format_output(r, self.f.strings, shape=shape, float_bits=self.f.machine.float_bits))
        return "".join(parts)

    def _row(self, blk: _Block, w: int) -> WarpRow:
        """Warp w's row: its state, its tile stack where it is (the line's end tiles once done), its groups."""
        site = blk.chosen(w)
        tiles = self.end_tiles if site is None else DEBUG.tiles.get(site, ())
        evs = [blk.next_event(t) or (blk.threads[t][-1] if blk.threads[t] else None) for t in blk.lanes_of(w)]
        gs = [e.groups for e in evs if e is not None]
        return WarpRow(w, blk.state(w), tuple(tiles), gs[0] if gs else None, all(g == gs[0] for g in gs))


def render(v: View) -> str:
    """The text of a view, as the REPL shows it."""
    if v.finished and not v.word:
        return "debug: the line's launches are over (continue ends the line)"
    out = [f"launch {v.launch}  block {v.block}  warp {v.warp}  next: {v.word}"]
    if v.pos is not None:
        out.append(v.source_line)
    out.append("mask " + "".join("█" if m else "·" for m in v.mask) + f"  {sum(v.mask)}/32")
    out.append("warps " + " ".join(f"{i}:{s}" for i, s in enumerate(v.warps)))
    for ln in v.lanes:
        if ln.done:
            continue
        mark = "*" if ln.active else " "
        line = f" {mark}{ln.lane:2}  <{ln.depth}> " + " ".join(str(x) for x in ln.top)
        if ln.fdepth:
            line += f"   f<{ln.fdepth}> " + " ".join(f"{x:g}" for x in ln.ftop)
        if ln.watch and ln.watch_changed:
            line += "   watch " + " ".join(str(x) for x in ln.watch)
        out.append(line)
    out += extra_lines(v)
    if v.printed:
        lines = v.printed.rstrip("\n").splitlines()
        out.append("printed so far:" + (f" (the last {PRINTED_LINES} of {len(lines)} lines)"
                                        if len(lines) > PRINTED_LINES else ""))
        out += ["  " + ln for ln in lines[-PRINTED_LINES:]]
    return "\n".join(out)


def tile_stack_text(tiles: tuple[str, ...]) -> str:
    """A tile stack as a stack comment, top last: "( acc[16x16x16 f32] a[16x16x16 f16] )", "( )"."""
    return "( " + " ".join(tiles) + " )" if tiles else "( )"


def groups_text(g: Groups | None) -> str:
    """A lane's or warp's cp.async groups in a few words: "3 committed, 1 in flight, 0 open"."""
    if g is None:
        return "no copies"
    return f"{g.committed} committed, {g.in_flight} in flight, {g.open} open"


def mbar_text(m: Mbar) -> str:
    return (f"mbarrier @{m.offset}: phase {m.phase} (parity {m.phase & 1}), "
            f"{m.pending} of {m.count} arrivals pending, tx {m.tx} bytes")


def extra_lines(v: View) -> list[str]:
    """The rows below the lanes: each warp's tile stack, the cp.async groups per warp, the mbarriers."""
    out = []
    if any(r.tiles for r in v.rows):
        out.append("tiles " + "  ".join(f"w{r.warp} " + tile_stack_text(r.tiles) for r in v.rows))
    if any(r.groups is not None for r in v.rows):
        out.append("cp.async " + "  ".join(f"w{r.warp} {groups_text(r.groups)}" + ("" if r.alike else " (lanes differ)")
                                          for r in v.rows))
    out += [mbar_text(m) for m in v.mbars]
    return out


def debug(f: Forth, line: str, watch: list[tuple[int, int]] | None = None) -> Debugger:
    """Run `line` with a stop at every word of its launches and return the debugger over the record.
    The line's effects stay unless the debugger quits (then the session is as before the line)."""
    global _recording
    if f.backend.name != "cpu":
        raise ForthError(f"the debugger runs on the cpu backend (the emulator), not on {f.backend.name}: "
                         "start tileforth with --backend cpu")
    if DEBUG.on:
        raise ForthError("a debugged line cannot start another debugger: take DEBUG (or f.debug) out of the line")
    _register()
    rec = _Recorder(f, list(watch if watch is not None else state_of(f).watches))
    snap = f._snapshot()
    hooks = f.device.launch_hooks
    output, error = "", None
    # from the DEBUG word, f.eval is a line inside a line: what the outer line has (its reader, what it
    # printed so far, its warnings and timings) comes back after it
    outer = (f.reader, f.line_reader, f.out_parts, f.warnings, f.line_timing)
    with _lock:
        DEBUG.on, _recording = True, rec
        hooks.append(rec.launched)
        try:
            output = f.eval(line)
        except ForthError as exc:
            error = exc
            output = exc.output
        finally:
            hooks.remove(rec.launched)
            DEBUG.on, _recording = False, None
            f.reader, f.line_reader, f.out_parts, f.warnings, f.line_timing = outer
    rec.block_sizes.append(int(f.backend.block_size))  # the last record has no launch after it
    rec.shapes.append(f.launch_shape)
    if rec.overflow:
        f._restore(snap)
        raise ForthError(f"the line's launches stop more than {EVENT_CAP:,} times: debug a smaller launch "
                         "(fewer threads with GRID and THREADS, or fewer loop iterations)")
    return Debugger(f, rec, snap, output, error)
