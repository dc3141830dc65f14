"""Address spaces of values that a loop keeps on the data stack's memory.

Gen.tag knows the memory an address value points into while the value is in a register (the stack
cache). A loop's back edge needs the stack in memory, so an ARRAY address kept on the stack across
a loop (`X Y N 0 DO OVER I CELLS + @ ... LOOP`) is read back from memory every iteration, and its
tag was lost: the accesses through it were generic ones (SASS LD, not LDG).

`SlotTags` follows the data stack's memory slots while the depth is known statically: `delta` is
the depth relative to an anchor (the innermost loop's head), `tags` the space of what each slot
holds, as far as known. At a loop's head every known slot tag becomes a speculation (`Spec`): the
body's reads from that slot get it, and accesses through them are emitted as global ones
(`Use`: the addrspacecast behind the pointer, kept). At the back edge the loop is checked: the depth
is the head's and every write into a speculated slot wrote a global address. If the check fails,
every access that relied on it is turned back into a generic one (the addrspacecast becomes a
bitcast), so the code is correct either way; what is emitted stays valid IR.

Only the innermost loop speculates (a loop around another one loses the depth at the inner loop's
exit and fails its check), and a body that writes the stack's memory behind the cache's back (a
ROLL of a computed depth) never does.
"""
from __future__ import annotations

from llvmlite import ir

from ..records import field, record


@record(eq=False)
class Frame:
    """One loop's speculation: whether it still holds, the spaces its body wrote into each
    speculated slot, and the accesses that rely on it."""

    speculated: dict[int, "Spec"] = field(default_factory=dict)
    failed: bool = False
    checked: bool = False  # the back edge was reached and checked
    uses: list["Use"] = field(default_factory=list)
    depends: set = field(default_factory=set)  # frames the written values' speculations rely on


@record(eq=False)
class Spec:
    """A slot's space as a loop speculates it: "global", relying on `frames`."""

    frames: frozenset
    space: str = "global"


@record(eq=False)
class Use:
    """An access emitted as a global one on a speculation: its addrspacecast instruction."""

    cast: ir.Instruction
    frames: set

    def undo(self) -> None:
        """A generic access instead: `addrspacecast ptr %p to ptr addrspace(1)` becomes
        `bitcast ptr %p to ptr` (a no-op), and the load or store through it a generic one."""
        self.cast.opname = "bitcast"
        self.cast.type = ir.PointerType()


class SlotTags:
    def __init__(self) -> None:
        self.delta: int | None = 0
        self.sp: object = None  # the sp value `delta` describes (None: the next one loaded)
        self.tags: dict[int, object] = {}
        self.frames: list[Frame] = []  # open loops, innermost last
        self.all_uses: list[Use] = []

    # ---- the depth ---------------------------------------------------------------------------
    def current(self, sp: object) -> int | None:
        """The depth relative to the anchor, if `sp` is the value it describes."""
        if self.delta is None or (self.sp is not None and self.sp is not sp):
            self.delta = None
            return None
        self.sp = sp
        return self.delta

    def moved(self, sp: object, by: int) -> None:
        if self.delta is not None:
            self.delta += by
            self.sp = sp

    def lost(self) -> None:
        self.delta = None

    # ---- reads and writes ----------------------------------------------------------------------
    def read(self, slot: int | None) -> object:
        return None if slot is None else self.tags.get(slot)

    def wrote(self, slot: int | None, space: object) -> None:
        if slot is None:
            for f in self.frames:
                f.failed = True  # a write at an unknown depth
            return
        self.tags[slot] = space
        for f in self.frames:
            if slot in f.speculated:
                if isinstance(space, Spec):
                    f.depends |= space.frames
                elif space != "global":
                    f.failed = True

    # ---- branches ----------------------------------------------------------------------------
    def snapshot(self, sp: object) -> tuple:
        """What is known where paths split (or at a loop's entry, the stacks flushed)."""
        return self.current(sp), sp, dict(self.tags)

    def restore(self, snap: tuple) -> None:
        """Each branch of an IF starts from what was known before it."""
        self.delta, self.sp, self.tags = snap[0], snap[1], dict(snap[2])

    # ---- loops -----------------------------------------------------------------------------
    def open_loop(self, snap: tuple) -> Frame:
        """At a loop's head: the head is the new anchor, and every slot known (at the loop's entry,
        `snap`) to hold a global address is speculated to keep holding one."""
        for f in self.frames:
            f.failed = True  # an outer loop loses the depth at this loop's exit
        frame = Frame()
        delta, _, old = snap
        self.tags = {}
        if delta is not None:
            for slot, space in old.items():
                if space == "global" or isinstance(space, Spec):
                    inherited = space.frames if isinstance(space, Spec) else frozenset()
                    spec = Spec(inherited | {id(frame)})
                    self.tags[slot - delta] = spec
                    frame.speculated[slot - delta] = spec
        self.frames.append(frame)
        self.delta, self.sp = 0, None  # the head re-reads the depth
        return frame

    def back_edge(self, sp: object) -> None:
        """At the loop's back edge (the stacks flushed): the depth must be the head's."""
        frame = self.frames[-1]
        frame.checked = True
        if self.current(sp) != 0:
            frame.failed = True

    def close_loop(self) -> None:
        """After the loop: a failed speculation's accesses become generic again; the depth after
        the loop is not known (its exit joins paths)."""
        frame = self.frames.pop()
        key = id(frame)
        if frame.failed or not frame.checked:
            for use in self.all_uses:
                if key in use.frames:
                    use.undo()
            self.all_uses = [u for u in self.all_uses if key not in u.frames]
        else:
            for use in self.all_uses:
                if key in use.frames:
                    use.frames |= frame.depends
        self.tags = {}
        self.delta = None

    def use(self, cast: ir.Instruction, spec: Spec) -> None:
        self.all_uses.append(Use(cast, set(spec.frames)))
