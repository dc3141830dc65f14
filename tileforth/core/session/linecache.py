"""Lines read before: the same text again is not tokenised, looked up and parsed again.

A line at the prompt that holds nothing but numbers and device words (primitives,
colon definitions that run on the device, constants) at the level of the line
becomes one segment of device code, run at its end. That segment depends only on
the text, on what each of its names finds in the search order, and on what reading
a number or a word depends on: BASE, the float width, the stacks' size (a folded
PICK count is checked against it), the tile settings (tile words keep them), and
whether `.S` shows every stack. `LineCache` keeps such a line's segment (the nodes
and their LineShape, linekey.py) under its text and source name; when the same text
comes again and all of those still agree, the interpreter runs the kept segment
(Forth._eval), which costs the launch alone.

A line is kept only when it was read in full without a host word, an immediate word
(`:`, `IF`, `(` ...), a word walked on the host (one that reaches EXECUTE) or a launch
before its end; a line that failed is not kept. Every name is looked up again at a
hit (a few dict reads), so a word defined, redefined or forgotten, a change of the
search order, a new word list, and entries written into the dictionary from Python,
all make the kept line miss and be read again. The line's number may differ (each
prompt line has the next): the nodes are copied with positions on the new line,
so errors name it.
"""
from __future__ import annotations

from operator import is_
from typing import TYPE_CHECKING, Any

from ..errors import SourcePos
from ..front.linekey import LineShape
from ..front.reader import position
from ..records import record

if TYPE_CHECKING:
    from ..front.tree import Node
    from .wordlists import Dictionary

LINES_KEPT = 256  # lines a session keeps (the least recently used go first)
_new = object.__new__


@record(eq=False)
class KeptLine:
    """A line's segment as it was read, and what reading it depended on."""

    keys: tuple[str, ...]  # each word's name (upper case), in order
    entries: tuple[Any, ...]  # what each found in the search order (None: it was read as a number)
    context: tuple  # Forth._line_context() when it was read
    nodes: list["Node"]  # its segment
    shape: LineShape | None  # the segment's LineShape (None: a segment of literals, which compiles no kernel)
    line: int  # the number of the line its positions name
    lit_nodes: tuple[tuple[int, int], ...] = ()  # (node index, its literal's index in shape.lits)


class Recording:
    """A line being read that may be kept: the names read so far and what they found."""

    __slots__ = ("keys", "entries", "context", "nodes", "shape")

    def __init__(self, context: tuple) -> None:
        self.keys: list[str] = []
        self.entries: list[Any] = []
        self.context = context
        self.nodes: list[Node] | None = None  # the segment its one launch ran
        self.shape: LineShape | None = None


class LineCache:
    __slots__ = ("lines", "hits")

    def __init__(self) -> None:
        self.lines: dict[tuple[str, str], KeptLine] = {}  # (text, source name) -> the line, in order of use
        self.hits = 0  # lines served from here (tests read it)

    def keep(self, text: str, source: str, first_line: int, rec: Recording) -> None:
        """A line read in full with one segment, launched at its end, that did not fail."""
        if rec.nodes is None:
            return
        lines = self.lines
        lines.pop((text, source), None)
        while len(lines) >= LINES_KEPT:
            del lines[next(iter(lines))]
        slot = {} if rec.shape is None else rec.shape.lit_slot
        lits = tuple((i, slot[id(n)]) for i, n in enumerate(rec.nodes) if id(n) in slot)
        lines[(text, source)] = KeptLine(tuple(rec.keys), tuple(rec.entries), rec.context, rec.nodes, rec.shape,
                                         first_line, lits)

    def find(self, words: "Dictionary", context: tuple, text: str, source: str, first_line: int) -> KeptLine | None:
        """The kept line of this text, on line `first_line`, if reading it again would give the same segment:
        each name finds what it found in `words`, and `context` (Forth._line_context) is as it was."""
        kept = self.lines.get((text, source))
        if kept is None or kept.context != context:
            return None
        order = words.order
        # (the common search order, one word list: one dict read a name, the loop in C)
        find = words.wordlists[order[0] - 1].get if len(order) == 1 else words.lookup
        if not all(map(is_, map(find, kept.keys), kept.entries)):  # each the very entry it found
            return None
        if kept.line != first_line:
            kept = _moved(kept, first_line)
        del self.lines[(text, source)]  # (the most recently used last)
        self.lines[(text, source)] = kept
        self.hits += 1
        return kept


def _moved(kept: KeptLine, line: int) -> KeptLine:
    """The kept line with its nodes' positions on line `line` (copies: a node is never changed), and its
    LineShape for those nodes: what line_shape gives for them, made in the same pass, since a kept
    segment is flat (no node of it has a body): the same key and literals, the copies' positions in
    order, and the literals read by the copies at the same places."""
    moved: dict[int, SourcePos] = {}
    nodes: list[Node] = []
    positions: list[SourcePos | None] = []
    first: dict[int, int] = {}  # id(a moved position) -> the first node that has it
    for i, n in enumerate(kept.nodes):
        state = dict(n.__dict__)
        pos = state.get("pos")
        if pos is not None:
            p = moved.get(id(pos))
            if p is None:
                p = moved[id(pos)] = position(line, pos.col, pos.text, pos.source)
                first[id(p)] = i
            state["pos"] = pos = p
        positions.append(pos)
        copy = _new(type(n))
        copy.__dict__ = state
        nodes.append(copy)
    old = kept.shape
    shape = None if old is None else LineShape(old.key, old.lits, {id(nodes[i]): k for i, k in kept.lit_nodes},
                                               positions, first)
    return KeptLine(kept.keys, kept.entries, kept.context, nodes, shape, line, kept.lit_nodes)
