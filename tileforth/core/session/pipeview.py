""".PIPE's view: a block's shared-memory stages and the cp.async groups in flight, wait by wait.

The emulator's copy model (tileforth/backends/cpu/asynccopy.py) keeps, for each block of a launch (the
first PIPE_BLOCKS), what each warp's k-th CP.WAIT found and did (the groups its threads had in flight, those it
landed), and the state of every stage of every SMEM-TILE once the last warp had made its k-th wait:
how many of the stage's 16-byte chunks have a copy in flight, how many landed, and in which groups
(records StageState, WarpWait, PipeStep, tileforth/core/compile/smem.py). A launch that stopped with
copies in flight adds a last step, where it stopped. .PIPE shows the first block's waits and mbarrier
phases, `n .PIPE-BLOCK` block n's (the same block for both), and says which other blocks did the same.

`Pipe` lays that out as text (a table of stages per wait, then a line per warp) and as data
(`data()`, what `last(f)` returns); tileforth/repl/pipeview.py draws it with rich.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..compile.mbarrier import PhaseDone
from ..compile.smem import PipeStep, StageState, WarpWait
from ..records import asdict, field, record
from .launcherrors import word_at
from .views import WIDTH, Lines, Span, View, _para

if TYPE_CHECKING:
    from .api import Session as Forth

SHORT = {"in flight": "flight", "landed": "landed", "landing": "landing", "partly landed": "part", "empty": "-"}


def groups(gs: tuple[int, ...]) -> str:
    """Group numbers as text ("1", "0,1"; -1 is a copy not committed: "open")."""
    return ",".join("open" if g < 0 else str(g) for g in gs)


def stage_cell(s: StageState) -> str:
    """A stage in a few characters: its state and the groups of its copies ("flight g1", "landed g0")."""
    state = s.state
    if state == "empty":
        return "-"
    gs = s.flight_groups if state in ("in flight", "landing") else s.landed_groups
    return f"{SHORT[state]} g{groups(gs)}" if gs else SHORT[state]


def phase_text(p: PhaseDone) -> str:
    """A completed phase: "the mbarrier at shared byte 0 (BARS): phase 0 completed: 1 arrival, 16384 bytes
    from 2 TMA boxes"."""
    tx = f", {p.tx_bytes} bytes from {p.boxes} TMA box{'es' * (p.boxes != 1)}" if p.tx_bytes or p.boxes else ""
    return f"{p.name}: phase {p.phase} completed: {p.arrivals} arrival{'s' * (p.arrivals != 1)}{tx}"


def wait_text(w: WarpWait) -> str:
    """What a warp's wait did: "warp 1: 1 CP.WAIT, groups 0,1 in flight: landed 0, 1 left"."""
    head = f"warp {w.warp}: {w.n} CP.WAIT"
    if not w.before:
        return head + ", nothing in flight"
    text = f"{head}, group{'s' * (len(w.before) != 1)} {groups(w.before)} in flight: "
    text += f"landed {groups(w.landed)}" if w.landed else "landed none"
    text += f", {groups(w.left)} left" if w.left else ""
    if not w.alike:
        text += f" (lane 0's; the warp's {w.lanes} lanes differ)"
    return text


@record(eq=False)  # compared by identity, as the other views (views.py)
class Pipe(View):
    """.PIPE's view of the last launch: the shown block's steps, each the block's stages and its warps'
    waits, and its mbarrier phases."""

    kind: ClassVar[str] = "pipe"
    block_steps: dict[int, list[PipeStep]]  # each block's steps (the copy model's pipe_blocks)
    sites: list  # Forth.sites.entries, to name each wait's place
    tiles: list[str]  # the SMEM-TILEs, in the order of the stages
    phases: list[PhaseDone] = field(default_factory=list)  # the mbarrier phases every block completed
    block: int | None = None  # the block shown (None: the first block that waited or completed a phase)

    def blocks(self) -> list[int]:
        """The blocks that completed an mbarrier phase, in order."""
        return sorted({p.block for p in self.phases})

    def wait_blocks(self) -> list[int]:
        """The blocks whose CP.WAITs were recorded, in order."""
        return sorted(self.block_steps)

    def shown(self) -> int | None:
        """The block shown: its waits and its mbarrier phases."""
        if self.block is not None:
            return self.block
        blocks = sorted(set(self.blocks()) | set(self.wait_blocks()))
        return blocks[0] if blocks else None

    @property
    def steps(self) -> list[PipeStep]:
        """The shown block's steps (its warps' k-th waits, and where it stopped)."""
        b = self.shown()
        return self.block_steps.get(b, []) if b is not None else []

    def block_phases(self, block: int | None = None) -> list[PhaseDone]:
        """The phases a block completed (the shown one by default), in the order they completed."""
        b = self.shown() if block is None else block
        return [p for p in self.phases if p.block == b]

    def where(self, step: PipeStep) -> str:
        if step.index < 0:
            return "where the launch stopped, copies still in flight"
        if 0 <= step.site < len(self.sites):
            word, pos = self.sites[step.site]
            at = f"{pos.line}:{pos.col}" if pos is not None else ""
            name = "" if word == "<line>" else f" in {word}"
            return f"wait {step.index + 1}{name} {at}".rstrip() + f" ({word_at(pos) or 'CP.WAIT'})"
        return f"wait {step.index + 1}"

    def data(self) -> dict[str, Any]:
        out = []
        for st in self.steps:
            out.append({"index": st.index, "where": self.where(st),
                        "stages": [dict(asdict(s), state=s.state) for s in st.stages],
                        "waits": [dict(asdict(w), left=w.left) for w in st.waits]})
        return {"tiles": list(self.tiles), "steps": out, "block": self.shown(), "wait_blocks": self.wait_blocks(),
                "mbarriers": [asdict(p) for p in self.block_phases()],
                "all_mbarriers": [asdict(p) for p in self.phases]}

    def table(self, step: PipeStep) -> tuple[list[str], list[list[str]]]:
        """The step's stages as a table: a row per tile, a cell per stage (header: stage numbers)."""
        width = max((s.stage for s in step.stages), default=-1) + 1
        head = ["tile"] + [f"stage {i}" for i in range(width)]
        rows: list[list[str]] = []
        for name in self.tiles:
            mine = {s.stage: s for s in step.stages if s.tile == name}
            if mine:
                rows.append([name] + [stage_cell(mine[i]) if i in mine else "" for i in range(width)])
        return head, rows

    def phase_lines(self, width: int = WIDTH) -> Lines:
        """The shown block's completed mbarrier phases, in the order they completed, then a line on the
        other blocks' (none: no lines)."""
        if not self.phases:
            return []
        b = self.shown()
        mine = self.block_phases()
        out: Lines = [[(f"mbarriers, phase by phase, of block {b} (the TMA boxes and arrivals that completed each)",
                        "label")]]
        if not mine:
            out += [[("  " + ln[0][0], "note")] for ln in _para(
                f"block {b} completed no mbarrier phase; blocks {ranges_text(self.blocks())} did", "note", width - 2)]
        for p in mine:
            out += [[("  " + ln[0][0], "note")] for ln in _para(phase_text(p), "note", width - 2)]
        others = [x for x in self.blocks() if x != b]
        if others:
            sig = _signature(mine)
            alike = [x for x in others if _signature(self.block_phases(x)) == sig]
            differ = [x for x in others if x not in alike]
            parts = [f"{_blocks(alike)} completed the same phases, arrivals and bytes"] if alike else []
            parts += [f"{_blocks(differ)} other ones"] if differ else []
            text = "; ".join(parts) + ": `n .PIPE-BLOCK` shows block n's"
            out += [[("  " + ln[0][0], "note")] for ln in _para(text, "note", width - 2)]
        return out

    def wait_note(self, width: int = WIDTH) -> Lines:
        """A line on the other blocks' waits: those that waited alike and those that did not (none: no lines)."""
        b = self.shown()
        others = [x for x in self.wait_blocks() if x != b]
        if not others:
            return []
        sig = _step_signature(self.steps)
        alike = [x for x in others if _step_signature(self.block_steps[x]) == sig]
        differ = [x for x in others if x not in alike]
        parts = [f"{_blocks(alike)} waited the same way, stage by stage"] if alike else []
        parts += [f"{_blocks(differ)} other ways"] if differ else []
        text = "; ".join(parts) + ": `n .PIPE-BLOCK` shows block n's waits"
        return [[("  " + ln[0][0], "note")] for ln in _para(text, "note", width - 2)]

    def lines(self, width: int = WIDTH) -> Lines:
        b = self.shown()
        which = "the first block" if b is None else f"block {b}"
        out: Lines = [[(f".PIPE: {which} of the last launch, wait by wait", "head")]]
        if not self.steps:
            if self.wait_blocks():
                out += _para(f"block {b} made no CP.WAIT; blocks {ranges_text(self.wait_blocks())} did", "note", width)
            elif not self.phases:
                out += _para("no CP.WAIT ran and no mbarrier phase completed in the last launch's first block "
                             "(.PIPE shows a launch that copied with CP.ASYNC or TMA, on the cpu backend)", "note",
                             width)
            return out + self.phase_lines(width)
        for step in self.steps:
            out.append([(self.where(step), "label")])
            head, rows = self.table(step)
            if rows:
                cells = [head] + rows
                widths = [max(len(r[c]) for r in cells) for c in range(len(head))]
                for r, row in enumerate(cells):
                    line: list[Span] = [("  ", None)]
                    for c, text in enumerate(row):
                        line.append(((" " if c else "") + text.ljust(widths[c]), "label" if r == 0 or c == 0 else None))
                    out.append(line)
            for w in step.waits:
                out += [[("  " + ln[0][0], "note")] for ln in _para(wait_text(w), "note", width - 2)]
        return out + self.wait_note(width) + self.phase_lines(width)


def _signature(phases: list[PhaseDone]) -> list[tuple]:
    """What a block's phases were, but the block: to tell the blocks that did the same."""
    return [(p.offset, p.phase, p.arrivals, p.tx_bytes, p.boxes) for p in phases]


def _step_signature(steps: list[PipeStep]) -> list[tuple]:
    """What a block's waits were, but the block: to tell the blocks that waited alike."""
    return [(s.index, s.site, s.waits, s.stages) for s in steps]


def _blocks(blocks: list[int]) -> str:
    return f"block{'s' * (len(blocks) > 1)} {ranges_text(blocks)}"


def ranges_text(blocks: list[int]) -> str:
    """Block numbers as ranges: "1-3, 5"."""
    out: list[str] = []
    for b in blocks:
        if out and out[-1].split("-")[-1] == str(b - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{b}"
        else:
            out.append(str(b))
    return ", ".join(out)


def make(f: "Forth", block: int | None = None) -> Pipe:
    """The last launch's pipeline, from the backend's copy model (none on a backend without one); `block`:
    the block whose mbarrier phases it shows (None: the first that completed one)."""
    model = getattr(f.backend, "asyncs", None)
    per_block = {b: list(s) for b, s in model.pipe_blocks.items()} if model is not None else {}
    phases = getattr(f.backend, "mbarrier_phases", None)
    names: list[str] = []
    for steps in per_block.values():
        for step in steps:
            for s in step.stages:
                if s.tile not in names:
                    names.append(s.tile)
    return Pipe(per_block, list(f.sites.entries), names, phases() if phases is not None else [], block)


def last(f: "Forth", block: int | None = None) -> dict[str, Any]:
    """.PIPE's record of the last launch as data: {"tiles", "steps": [{"index", "where", "stages": [one
    dict per stage: tile, stage, chunks, in_flight, landed, flight_groups, landed_groups, state],
    "waits": [one dict per warp: warp, n, before, landed, left, lanes, alike, copies]}], "mbarriers": [one
    dict per completed phase of the block shown: offset, name, phase, arrivals, tx_bytes, boxes, block],
    "block": that block (`block`, else the first that waited or completed a phase), "wait_blocks": the blocks
    whose waits were recorded, "all_mbarriers": every block's}; "steps" are the shown block's."""
    return make(f, block).data()
