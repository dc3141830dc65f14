"""What the typed text is, before it runs: each token's kind, whether the
text is complete, and the first word that would underflow a stack.

The line editor asks three questions of the text in its buffer, and all three
are answered by one walk over it with the real reader (core/front/reader.py), so
tokens, comments and strings are cut exactly as the interpreter cuts them:

    spans      (row, start, end, kind) for syntax highlighting
    complete   False while a colon definition, a control structure or a
               `( comment` is still open: Enter then starts a new line
    effects    each word's static stack effect, in order, for the check
               that a line does not underflow (`underflow`)

Kinds: number, primitive, tile, colon, constant, host, immediate, control,
defined (a name being defined), local, comment, string, unknown.

Nothing here runs code or changes the session; the walk only reads the
dictionary, so a word defined earlier in the same text is known by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tileforth.core.compile.primitives import Primitive
from tileforth.core.front.dictionary import Colon, Constant, HostWord, Immediate
from tileforth.core.front.reader import Reader, parse_double, parse_float, parse_integer
from tileforth.core.front.tree import Prim

OPENERS = {"IF", "BEGIN", "DO", "?DO"}
CLOSERS = {"THEN", "UNTIL", "AGAIN", "REPEAT", "LOOP", "+LOOP"}
CONTROL = OPENERS | CLOSERS | {"ELSE", "WHILE", "LEAVE", "EXIT", "RECURSE"}
# host words that read the next token as the name of a new word
DEFINERS = {"CONSTANT", "FCONSTANT", "VARIABLE", "CREATE", "BUFFER:", "ARRAY", "MATRIX", "SHARED:"}
# words that read the next token as the name of an existing word
NAMERS = {"SEE", "SEE-PTX", "HELP", "'", "[']", "FORGET",
          "SEE-IR", ".M", "ZEROS", "AFILL", "RAMP", "IDENTITY", "RANDOM", "LOAD-NPY", "SAVE-NPY"}


@dataclass(frozen=True)
class Effect:
    """Items a word needs and leaves, per stack: data, float, tile."""

    dneed: int = 0
    dnet: int = 0
    fneed: int = 0
    fnet: int = 0
    tneed: int = 0
    tnet: int = 0


@dataclass(frozen=True)
class Item:
    """A token that runs: its text, where it starts, and its effect (None:
    not known statically, so the check stops there)."""

    text: str
    offset: int  # index into the whole text
    effect: Effect | None


@dataclass
class Scan:
    spans: list[tuple[int, int, int, str]] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    open_definition: bool = False
    open_control: int = 0
    open_comment: bool = False

    @property
    def complete(self) -> bool:
        return not (self.open_definition or self.open_control or self.open_comment)


_TILE_GROUP = re.compile(r"\(\s*T:\s*([^()]*?)\)")


def tile_counts(effect_text: str) -> tuple[int, int] | None:
    """(tiles needed, tiles left) from ``( T: acc a b -- acc' )``; (0, 0)
    without a tile group; None when the count is not fixed (``..``)."""
    m = _TILE_GROUP.search(effect_text or "")
    if m is None:
        return 0, 0
    before, _, after = m.group(1).partition("--")
    if ".." in before or ".." in after:
        return None
    return len(before.split()), len(after.split())


def word_effect(entry) -> Effect | None:
    """The static effect of a dictionary entry, or None when it has none."""
    if isinstance(entry, Primitive):
        if entry.takes_literal or entry.dynamic:  # its effect depends on a literal before it
            return None
        try:
            e = entry.effect_of(Prim(entry, None))
        except Exception:  # an effect that needs its operand: not static here
            return None
        tiles = tile_counts(entry.effect)
        if not e.static or tiles is None:
            return None
        return Effect(e.dneed, e.dnet, e.fneed, e.fnet, tiles[0], tiles[1] - tiles[0])
    if isinstance(entry, Colon):
        e = entry.effect
        if not e.static:
            return None
        tin, tout = entry.tile_effect if entry.tile_effect is not None else ((), ())
        return Effect(e.dneed, e.dnet, e.fneed, e.fnet, len(tin), len(tout) - len(tin))
    if isinstance(entry, Constant):
        if entry.param is not None or entry.name == "BASE":  # BASE: later numbers may read differently
            return None
        return Effect(fnet=1) if entry.is_float else Effect(dnet=1)
    return None  # host and immediate words act on the session or the code being built


def kind_of(entry) -> str:
    if isinstance(entry, Primitive):
        return "tile" if entry.tile_word else "primitive"
    if isinstance(entry, Colon):
        return "colon"
    if isinstance(entry, Constant):
        return "constant"
    if isinstance(entry, HostWord):
        return "host"
    if isinstance(entry, Immediate):
        return "control" if entry.name.upper() in CONTROL else "immediate"
    return "unknown"


def number_effect(text: str, base: int) -> Effect | None:
    """A literal's effect as the interpreter reads it, or None if not a number."""
    if parse_integer(text, base) is not None:
        return Effect(dnet=1)
    if parse_double(text, base) is not None:
        return Effect(dnet=2)
    if base == 10 and parse_float(text) is not None:
        return Effect(fnet=1)
    return None


def scan(text: str, dictionary: dict, base: int = 10, *, compiling: bool = False,
         open_frames: int = 0) -> Scan:
    """Walk the text as the interpreter would (without running it).

    `compiling` and `open_frames`: the session is inside a definition (with
    that many control structures open) from an earlier line.
    """
    out = Scan(open_definition=compiling, open_control=open_frames if compiling else 0)
    reader = Reader(text)
    starts = [0]
    for line in reader.lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    defined: dict[str, str] = {}
    locals_: set[str] = set()

    def span(row: int, start: int, end: int, kind: str) -> None:
        if end > start:
            out.spans.append((row, start, end, kind))

    def span_to(row: int, col: int, kind: str) -> None:
        """From (row, col) to where the reader is now, across lines."""
        end_row = min(reader.row, len(reader.lines) - 1)
        end_col = reader.col if reader.row == end_row else len(reader.lines[end_row])
        for r in range(row, end_row + 1):
            a = col if r == row else 0
            b = end_col if r == end_row else len(reader.lines[r])
            span(r, a, b, kind)

    def item(tok, effect) -> None:
        row = tok.pos.line - 1
        out.items.append(Item(tok.text, starts[row] + tok.pos.col - 1, effect))

    while (tok := reader.next_token()) is not None:
        row, col = tok.pos.line - 1, tok.pos.col - 1
        end = col + len(tok.text)
        key = tok.key
        if key in locals_ and out.open_definition:
            span(row, col, end, "local")
            continue
        entry = dictionary.get(key)
        if key == "(" and isinstance(entry, Immediate):
            _, found = reader.parse_until(")", multiline=True)
            out.open_comment = not found
            span_to(row, col, "comment")
            continue
        if key == "\\" and isinstance(entry, Immediate):
            reader.skip_line()
            span(row, col, len(reader.lines[row]), "comment")
            continue
        if key in ('."', ".(") and isinstance(entry, Immediate):
            reader.parse_until('"' if key == '."' else ")")
            span_to(row, col, "string")
            if key == '."' and not out.open_definition:
                item(tok, Effect())
            continue
        if entry is not None:
            kind = kind_of(entry)
            span(row, col, end, kind)
            if key == ":" and isinstance(entry, Immediate):
                out.open_definition = True
                out.open_control = 0
                item(tok, None)
                name = reader.next_token()
                if name is not None:
                    span(name.pos.line - 1, name.pos.col - 1, name.pos.col - 1 + len(name.text), "defined")
                    defined[name.key] = "colon"
                continue
            if key == ";" and isinstance(entry, Immediate):
                out.open_definition = False
                out.open_control = 0
                locals_.clear()
                continue
            if key == "{" and isinstance(entry, Immediate) and out.open_definition:
                in_comment = False
                while (t := reader.next_token()) is not None:
                    r, c = t.pos.line - 1, t.pos.col - 1
                    if t.text == "}":
                        span(r, c, c + 1, "immediate")
                        break
                    in_comment = in_comment or t.text == "--"
                    span(r, c, c + len(t.text), "comment" if in_comment else "local")
                    if not in_comment:
                        locals_.add(t.key)
                continue
            if key in OPENERS and kind == "control":
                out.open_control += 1
            elif key in CLOSERS and kind == "control":
                out.open_control = max(0, out.open_control - 1)
            if key in ("CHAR", "[CHAR]") and isinstance(entry, Immediate):
                item(tok, None if out.open_definition or out.open_control else Effect(dnet=1))
                nxt = reader.next_token()
                if nxt is not None:
                    span(nxt.pos.line - 1, nxt.pos.col - 1, nxt.pos.col - 1 + len(nxt.text), "string")
                continue
            if key in DEFINERS or key in NAMERS:
                item(tok, None)
                nxt = reader.next_token()
                if nxt is not None:
                    r, c = nxt.pos.line - 1, nxt.pos.col - 1
                    if key in DEFINERS:
                        span(r, c, c + len(nxt.text), "defined")
                        defined[nxt.key] = "constant"
                    else:
                        span(r, c, c + len(nxt.text), kind_of(dictionary.get(nxt.key))
                             if nxt.key in dictionary else defined.get(nxt.key, "unknown"))
                continue
            if key in ("HEX", "DECIMAL") and not out.open_definition:
                base = 16 if key == "HEX" else 10
            inside = out.open_definition or out.open_control or kind == "control"
            item(tok, None if inside else word_effect(entry))
            continue
        if key in defined:
            span(row, col, end, defined[key])
            item(tok, None)
            continue
        eff = number_effect(tok.text, base)
        if eff is not None:
            span(row, col, end, "number")
            item(tok, None if out.open_definition or out.open_control else eff)
            continue
        span(row, col, end, "unknown")
        item(tok, None)
    return out


@dataclass(frozen=True)
class Underflow:
    offset: int  # where the word starts in the text
    word: str
    message: str


STACK_NAMES = {"d": ("data", "item"), "f": ("float", "float"), "t": ("tile", "tile")}


def underflow(s: Scan, data: int, floats: int, tiles: int) -> Underflow | None:
    """The first word that would take more than a stack holds, if the text
    is straight-line code whose every word has a static effect up to it.

    `data`, `floats`, `tiles`: the depths now (the data and float depths of
    the thread that holds the fewest). The check gives up (None) at the first
    word whose effect is not known statically, so it never rejects a line
    that could run.
    """
    depth = {"d": data, "f": floats, "t": tiles}
    for it in s.items:
        e = it.effect
        if e is None:
            return None
        for stack, need, net in (("d", e.dneed, e.dnet), ("f", e.fneed, e.fnet), ("t", e.tneed, e.tnet)):
            if depth[stack] < need:
                name, unit = STACK_NAMES[stack]
                have = depth[stack]
                return Underflow(it.offset, it.text,
                                 f"{it.text} needs {need} {unit}{'s' if need != 1 else ''} on the {name} "
                                 f"stack, but it will hold {have}")
        for stack, need, net in (("d", e.dneed, e.dnet), ("f", e.fneed, e.fnet), ("t", e.tneed, e.tnet)):
            depth[stack] += net
    return None
