"""Memory-access analysis on the emulator: PROFILE and PROFILE{ … }PROFILE.

In checked mode every load, store and atomic the compiler emits calls the cpu
backend's `tf_race` helper (tileforth/backends/cpu/races.py), which appends a record to
the launch's trace when the backend's `trace_cap` is above 0:

    (thread, kind | site << 2, address, size | epoch << 8)

thread: the global linear index; kind: 0 read, 1 write, 2 atomic, 3 a write
whose value was known (a write here); site: an index into `Forth.sites`; epoch:
BARRIERs the thread passed << 16 | SYNCWARPs passed.  `analyse` turns one
launch's trace into figures per site that mean what Nsight Compute's do:

* a *request* is one warp-level execution of a load/store instruction: the
  accesses of the lanes of one warp at one site, the k-th time each lane ran
  it (the emulator runs a block's threads one after another between suspend
  points, so a lane may run a site several times, a loop, before the next
  lane starts; k counts them per lane);
* *lanes* per request: the active lanes (divergence shows as fewer than 32);
* global memory: the 32-byte *sectors* a request touches (distinct addr // 32
  over each lane's bytes), per request, and the ideal: the sectors its bytes
  would fill if they were contiguous and aligned;
* shared memory: 32 banks of 4 bytes.  A request is served in phases (accesses
  of up to 4 bytes: one phase of 32 lanes; 8 bytes: two of 16 lanes, by lane
  index; 16 bytes: four of 8); a phase takes as many *wavefronts* as the most
  distinct 4-byte words any one bank holds (lanes reading the same word share
  it: a broadcast).  The request's n-way conflict is its worst phase's count,
  the ideal is one wavefront per phase, and bank conflicts = wavefronts - ideal;
* BARRIERs passed per block.

No caches and no timing are modelled, and requests follow the emulator's
order of execution (docs/simt.md, "Memory-access analysis").  Tile loads and
stores (TLOAD-A …, TSTORE) run on the host and are not traced; ldmatrix and stmatrix
(TLDSM-A, TLDSM-B, TSTSM) are: one 16-byte record per addressing lane (32 for .x4, 16 for
.x2), so each instruction is a request served in phases of 8 lanes, one 8x8 matrix each.  A cp.async copy
(CP.ASYNC, CP.ASYNC-N) is two rows, both of access "cp.async": its global read
(traced by tf_race, as a load's) and its 16-byte shared write (the emulator's
copy model appends those records, backends/cpu/asynccopy.py).

The words (words/profiling.py) make a `Profile` view record (laid out here; tileforth/repl/profileview.py
draws it as a rich table); `last(f)` is the last profile as plain data.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar

from ..lazy import np
from ..records import asdict, field, record
from .launcherrors import word_at
from .views import WIDTH, Lines, Span, View, _para

if TYPE_CHECKING:
    from .api import Session as Forth

TRACE_CAP = 4 << 20  # records a profiled launch keeps (32 bytes each, zero pages until written)
WARP = 32
BANKS = 32
SECTOR = 32
KINDS = ("load", "store", "atomic", "store")


# ---- the analysis ----------------------------------------------------------------------------
@record
class SiteStats:
    """One load/store instruction (site) of a launch, in one memory space."""

    site: int
    word: str  # the definition it is in ("<line>": typed at the prompt)
    line: int | None
    col: int | None
    token: str  # the word at the position (SF@, !, ATOMIC+ …)
    source: str  # the source line
    access: str  # load, store, atomic
    space: str  # global, shared
    size: int  # bytes per lane
    requests: int
    lanes: int  # active lanes, summed over the requests
    min_lanes: int
    divergent: int  # requests with fewer lanes than their warp has
    sectors: int = 0  # global: 32-byte sectors, summed over the requests
    ideal_sectors: int = 0
    wavefronts: int = 0  # shared: wavefronts, summed over the requests
    ideal_wavefronts: int = 0
    ways: int = 0  # shared: the worst request's n-way bank conflict

    @property
    def lanes_per_request(self) -> float:
        return self.lanes / self.requests if self.requests else 0.0

    @property
    def sectors_per_request(self) -> float:
        return self.sectors / self.requests if self.requests else 0.0

    @property
    def ideal_sectors_per_request(self) -> float:
        return self.ideal_sectors / self.requests if self.requests else 0.0

    @property
    def bank_conflicts(self) -> int:
        return self.wavefronts - self.ideal_wavefronts

    @property
    def where(self) -> str:
        return f"{self.word} {self.line}:{self.col}" if self.line is not None else self.word

    def data(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(lanes_per_request=self.lanes_per_request, bank_conflicts=self.bank_conflicts)
        if self.space == "global":
            d.update(sectors_per_request=self.sectors_per_request,
                     ideal_sectors_per_request=self.ideal_sectors_per_request)
        return d


@record
class LaunchProfile:
    """The figures of one launch: its shape, its sites and its barriers."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    records: int  # accesses traced
    dropped: int  # accesses past the trace's capacity (not analysed)
    barriers: list[int]  # BARRIERs passed, per block
    sites: list[SiteStats] = field(default_factory=list)

    @property
    def blocks(self) -> int:
        return math.prod(self.grid)

    @property
    def threads(self) -> int:
        return self.blocks * math.prod(self.block)

    def totals(self) -> dict[str, Any]:
        req = sum(s.requests for s in self.sites)
        g = [s for s in self.sites if s.space == "global"]
        sh = [s for s in self.sites if s.space == "shared"]
        return {"grid": self.grid, "block": self.block, "threads": self.threads, "records": self.records,
                "dropped": self.dropped, "requests": req, "barriers_per_block": list(self.barriers),
                "barrier_waits": sum(self.barriers),
                "global_requests": sum(s.requests for s in g), "sectors": sum(s.sectors for s in g),
                "ideal_sectors": sum(s.ideal_sectors for s in g),
                "shared_requests": sum(s.requests for s in sh), "wavefronts": sum(s.wavefronts for s in sh),
                "ideal_wavefronts": sum(s.ideal_wavefronts for s in sh),
                "bank_conflicts": sum(s.bank_conflicts for s in sh)}


def _starts(*keys: np.ndarray) -> np.ndarray:
    """For rows sorted by `keys`: True where a row's key differs from the row before."""
    n = len(keys[0])
    new = np.zeros(n, bool)
    if n:
        new[0] = True
        for k in keys:
            new[1:] |= k[1:] != k[:-1]
    return new


def _group_ids(*keys: np.ndarray) -> tuple[np.ndarray, int]:
    """A dense id per distinct key tuple (ids in sorted key order), and how many."""
    order = np.lexsort(keys[::-1])
    new = _starts(*(k[order] for k in keys))
    ids = np.empty(len(order), np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids, int(new.sum())


def _distinct_per_group(group: np.ndarray, value: np.ndarray, ngroups: int) -> np.ndarray:
    """How many distinct values each group holds."""
    order = np.lexsort((value, group))
    new = _starts(group[order], value[order])
    return np.bincount(group[order][new], minlength=ngroups)


def analyse(trace: np.ndarray, *, grid: tuple, block: tuple, shared_addr: int, shared_bytes: int,
            sites: list, dropped: int = 0, epochs: np.ndarray | None = None,
            async_sites: frozenset[int] = frozenset()) -> LaunchProfile:
    """The figures of one launch from its trace (see the module's doc); `sites`: Forth.sites.entries;
    `epochs`: each thread's epoch at the end of the launch (None: the trace's are used); `async_sites`:
    the sites of cp.async copies (their rows' access is "cp.async")."""
    trace = np.asarray(trace, np.int64).reshape(-1, 4)
    bs = math.prod(block)
    nblocks = math.prod(grid)
    tid, ks, addr, se = trace[:, 0], trace[:, 1], trace[:, 2], trace[:, 3]
    kind = ks & 3
    kind = np.where(kind == 3, 1, kind)
    site = ks >> 2
    size = se & 0xFF
    blk = tid // bs
    local = tid % bs
    lane = local % WARP
    gwarp = blk * (-(-bs // WARP)) + local // WARP
    rel = addr - shared_addr
    shared = ((rel >= 0) & (rel < shared_bytes)).astype(np.int64) if shared_bytes else np.zeros(len(tid), np.int64)
    # k: how many times this thread ran this site before (in the emulator's order)
    n = len(tid)
    order = np.lexsort((np.arange(n), site, tid))
    new = _starts(tid[order], site[order])
    first = np.maximum.accumulate(np.where(new, np.arange(n), 0))
    k = np.empty(n, np.int64)
    k[order] = np.arange(n) - first
    req, nreq = _group_ids(site, shared, gwarp, k)
    lanes = np.bincount(req, minlength=nreq)
    one = np.zeros(nreq, np.int64)  # an access of each request, for what all of its accesses share
    one[req] = np.arange(n)
    r_site, r_shared, r_size, r_kind, r_warp = site[one], shared[one], size[one], kind[one], gwarp[one]
    warp_lanes = np.minimum(WARP, bs - (r_warp % -(-bs // WARP)) * WARP) if nreq else r_warp
    # global: sectors per request
    sectors = np.zeros(nreq, np.int64)
    g = shared == 0
    if g.any():
        s0, s1 = addr[g] // SECTOR, (addr[g] + size[g] - 1) // SECTOR
        reps = s1 - s0 + 1
        rr = np.repeat(req[g], reps)
        ss = np.repeat(s0, reps) + (np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps))
        sectors = _distinct_per_group(rr, ss, nreq)
    ideal_sectors = np.where(r_shared == 0, -(-(lanes * r_size) // SECTOR), 0)
    # shared: wavefronts per request (phases, banks, distinct words)
    wavefronts = np.zeros(nreq, np.int64)
    ideal_wf = np.zeros(nreq, np.int64)
    ways = np.zeros(nreq, np.int64)
    s = shared == 1
    if s.any():
        w0, w1 = rel[s] // 4, (rel[s] + size[s] - 1) // 4
        per_phase = np.where(size[s] <= 4, WARP, WARP // np.maximum(size[s] // 4, 1))
        phase = lane[s] // per_phase
        reps = w1 - w0 + 1
        rr, ph = np.repeat(req[s], reps), np.repeat(phase, reps)
        ww = np.repeat(w0, reps) + (np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps))
        bank_key = (rr * 4 + ph) * BANKS + ww % BANKS
        o = np.lexsort((ww, bank_key))
        firsts = bank_key[o][_starts(bank_key[o], ww[o])]  # one per distinct (request, phase, bank, word)
        keys, words_in_bank = np.unique(firsts, return_counts=True)
        per_req_phase = np.zeros(nreq * 4, np.int64)
        np.maximum.at(per_req_phase, keys // BANKS, words_in_bank)
        per_req_phase = per_req_phase.reshape(nreq, 4)
        wavefronts = per_req_phase.sum(axis=1)
        ideal_wf = (per_req_phase > 0).sum(axis=1)
        ways = per_req_phase.max(axis=1)
    # per site and space
    rows, nrows = _group_ids(r_site, r_shared) if nreq else (np.zeros(0, np.int64), 0)
    stats = []
    for i in range(nrows):
        m = rows == i
        j = int(np.flatnonzero(m)[0])
        sid = int(r_site[j])
        word, pos = sites[sid] if 0 <= sid < len(sites) else ("<line>", None)
        ln = lanes[m]
        stats.append(SiteStats(
            sid, word, getattr(pos, "line", None), getattr(pos, "col", None),
            word_at(pos) or "", pos.text if pos is not None else "",
            "cp.async" if sid in async_sites else KINDS[int(r_kind[j])], "shared" if r_shared[j] else "global", int(r_size[j]),
            int(m.sum()), int(ln.sum()), int(ln.min()), int((ln < warp_lanes[m]).sum()),
            int(sectors[m].sum()), int(ideal_sectors[m].sum()), int(wavefronts[m].sum()), int(ideal_wf[m].sum()),
            int(ways[m].max()) if r_shared[j] else 0))
    stats.sort(key=lambda st: (st.line or 0, st.col or 0, st.site, st.space))
    # BARRIERs per block: the threads' epochs at the end, or the last epoch each block's records show
    barriers = np.zeros(nblocks, np.int64)
    if epochs is not None and len(epochs) >= nblocks * bs:
        barriers = (np.asarray(epochs[:nblocks * bs], np.int64) >> 16).reshape(nblocks, bs).max(axis=1)
    elif n:
        np.maximum.at(barriers, np.minimum(blk, nblocks - 1), (se >> 8) >> 16)
    return LaunchProfile(tuple(grid), tuple(block), n, int(dropped), [int(b) for b in barriers], stats)


# ---- the record --------------------------------------------------------------------------------
HEADS = ("site", "access", "reqs", "lanes", "sectors/req", "bank conflicts")


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def site_cells(s: SiteStats) -> list[str]:
    """A site's row under HEADS: where, what, requests, active lanes per request, then sectors per request
    and the ideal (global memory) or bank conflicts and the worst request's n-way conflict (shared)."""
    head = [s.where, f"{s.space} {s.access} {s.size}B", str(s.requests), _num(s.lanes_per_request)]
    if s.space == "global":
        return head + [f"{_num(s.sectors_per_request)} (ideal {_num(s.ideal_sectors_per_request)})", ""]
    return head + ["", f"{s.bank_conflicts} ({s.ways}-way)"]


def source_excerpt(s: SiteStats, width: int) -> tuple[str, int]:
    """The site's source line cut to `width` around its column: (text, where the word starts in it)."""
    text, col = s.source.rstrip(), (s.col or 1) - 1
    if len(text) <= width:
        return text, col
    start = max(0, min(col - width // 3, len(text) - width + 1))
    cut = text[start:start + width - 2]
    pre, post = ("…" if start else ""), ("…" if start + width - 2 < len(text) else "")
    return pre + cut + post, col - start + len(pre)


def launch_head(p: LaunchProfile, i: int, n: int) -> str:
    bs = math.prod(p.block)
    warps = p.blocks * -(-bs // WARP)
    shape = f"{p.blocks} block{'s' * (p.blocks != 1)} x {bs} threads ({warps} warp{'s' * (warps != 1)})"
    bar = sorted(set(p.barriers))
    bars = (f"{bar[0]} BARRIER{'s' * (bar[0] != 1)} per block" if len(bar) == 1 else
            f"{min(bar)} to {max(bar)} BARRIERs per block")
    which = f"launch {i + 1} of {n}: " if n > 1 else "launch: "
    return f"{which}{shape}, {p.records} accesses, {bars}"


def dropped_note(p: LaunchProfile) -> str | None:
    if not p.dropped:
        return None
    return (f"{p.dropped} accesses past the first {p.records} were not recorded (the trace keeps "
            f"{TRACE_CAP} per launch): the figures cover the first {p.records}; profile a smaller launch")


@record(eq=False)  # compared by identity, as the other views (tileforth/core/session/views.py)
class Profile(View):
    """PROFILE's view: each launch's sites (requests, lanes, sectors, bank conflicts) and barriers."""

    kind: ClassVar[str] = "profile"
    title: str
    launches: list[LaunchProfile]

    def data(self) -> dict[str, Any]:
        sites = [dict(s.data(), launch=i) for i, p in enumerate(self.launches) for s in p.sites]
        return {"title": self.title, "sites": sites, "launches": [p.totals() for p in self.launches]}

    def lines(self, width: int = WIDTH) -> Lines:
        out: Lines = [[(self.title, "head")]]
        shown = [p for p in self.launches if p.records or any(p.barriers)]
        if not shown:
            out.append([("no loads or stores were traced (tile loads and stores are not traced)", "note")])
            return out
        for i, p in enumerate(shown):
            out += _para(launch_head(p, i, len(shown)), "note", width)
            note = dropped_note(p)
            if note:
                out += _para(note, "note", width)
            if not p.sites:
                continue
            cells = [list(HEADS)] + [site_cells(s) for s in p.sites]
            widths = [max(len(r[c]) for r in cells) for c in range(len(HEADS))]
            if sum(widths) + len(widths) - 1 > width:  # too narrow for a row per site: a block per site
                out += _site_blocks(p, cells[1:], width)
                continue
            for r, row in enumerate(cells):
                line: list[Span] = []
                for c, text in enumerate(row):
                    cell = text.ljust(widths[c]) if c < 2 else text.rjust(widths[c])
                    line.append(((" " if c else "") + cell, "label" if r == 0 else None))
                out.append(line)
                if r:  # the source line, the site's word marked under it
                    src, at = source_excerpt(p.sites[r - 1], width - 2)
                    out.append([("  " + src, "code")])
                    out.append([("  " + " " * at + "^" * max(1, len(p.sites[r - 1].token)), "note")])
        return out


def _site_blocks(p: LaunchProfile, rows: list[list[str]], width: int) -> Lines:
    """The sites where a row of the table would not fit `width`: each site's place and access on a
    line, its figures, each named, on the next (broken between figures), then the source and caret."""
    out: Lines = []
    for s, row in zip(p.sites, rows):
        out.append([(row[0], "label"), ("  " + row[1], None)])
        figures = [f"{HEADS[c]} {row[c]}" for c in range(2, len(HEADS)) if row[c]]
        line: list[Span] = []
        used = 0
        for fig in figures:
            if line and used + 2 + len(fig) > width:
                out.append(line)
                line, used = [], 0
            line.append(("  " + fig, None))
            used += 2 + len(fig)
        out.append(line)
        src, at = source_excerpt(s, width - 2)
        out.append([("  " + src, "code")])
        out.append([("  " + " " * at + "^" * max(1, len(s.token)), "note")])
    return out


# ---- the words ---------------------------------------------------------------------------------
class Recorder:
    """Turns the trace on for every launch of a session's device and keeps each launch's figures
    (a launch hook of the session's Device: called after every launch, also one that failed)."""

    def __init__(self, f: "Forth") -> None:
        self.f = f
        self.be = f.backend
        self.launches: list[LaunchProfile] = []

    def start(self) -> None:
        self.be.start_trace(TRACE_CAP)
        self.f.device.launch_hooks.append(self._collect)

    def stop(self) -> None:
        self.be.stop_trace()
        if self._collect in self.f.device.launch_hooks:
            self.f.device.launch_hooks.remove(self._collect)

    def _collect(self) -> None:
        f = self.f
        records, dropped, epochs = self.be.take_trace()
        (grid, block) = f.launch_shape
        shared = self.be.shared_regions()[0] if f.shared_bytes else 0
        self.launches.append(analyse(records, grid=grid, block=block, shared_addr=int(shared),
                                     shared_bytes=f.shared_bytes, sites=f.sites.entries,
                                     dropped=int(dropped), epochs=epochs,
                                     async_sites=frozenset(s for s, op in f.sites.info.items()
                                                           if type(op).__name__ == "AsyncCopy")))


def last(f: "Forth") -> dict[str, Any] | None:
    """The last profile of the session as data: {"title", "sites": one dict per site and memory space
    (with its launch's index), "launches": each launch's totals}; None before the first PROFILE.
    (Forth.profile() returns it.)"""
    view = getattr(f, "last_profile", None)
    return view.data() if view is not None else None
