"""What the typed text is, before it runs: each token's kind, whether the
text is complete, and the first word that would underflow a stack.

The line editor asks three questions of the text in its buffer, and all three
are answered by one walk over it with the real reader (tileforth/core/front/reader.py), so
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
What a word reads after its name, and whether it counts in a control
structure, is what its entry in the dictionary declares (`parses` and
`control`, from the word table: tileforth/core/session/words/table.py), so a
new parsing word is scanned as the interpreter reads it without an edit here;
the words that shape the text (`:` `:NONAME` `;` `DOES>` `[` `]`) and the
number base (HEX DECIMAL) are the walk's own.
"""

from __future__ import annotations

import re

from tileforth.core.compile.primitive import Primitive, parse_effect
from tileforth.core.front.dictionary import (
    COMMENT,
    COMPILING,
    FILE,
    INTERPRETING,
    LOCALS,
    NAME,
    NEW,
    POSTPONED,
    READ,
    RUNS,
    TEXT,
    WORD,
    Colon,
    Constant,
    HostWord,
    Immediate,
    Parse,
)
from tileforth.core.front.reader import Reader, parse_double, parse_float, parse_integer
from tileforth.core.front.tree import Prim
from tileforth.core.records import field, record

@record(frozen=True)
class Effect:
    """Items a word needs and leaves, per stack: data, float, tile."""

    dneed: int = 0
    dnet: int = 0
    fneed: int = 0
    fnet: int = 0
    tneed: int = 0
    tnet: int = 0


@record(frozen=True)
class Item:
    """A token that runs: its text, where it starts, and its effect (None:
    not known statically, so the check stops there)."""

    text: str
    offset: int  # index into the whole text
    effect: Effect | None


@record
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


NO_PARSE = Parse("")  # an entry that reads nothing after its name


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
        return "control" if entry.control is not None else "immediate"
    return "unknown"


_QUOTED = re.compile(r'"[^"]*"')


def parsing_effect(entry) -> Effect:
    """What a word that reads text leaves when it runs at the prompt (S" C" CHAR ABORT"),
    from its stack effect without the text it reads (`( "text" -- c-addr u )`)."""
    ins, outs, fins, fouts = parse_effect(_QUOTED.sub("", entry.effect))
    return Effect(ins, outs - ins, fins, fouts - fins)


def reads_now(spec: Parse, compile_state: bool, open_control: int) -> bool:
    """Does a word that declares `spec` read its text where it is (Parse.when)?"""
    if spec.when == RUNS:  # a host word runs now only outside definitions and open control structures
        return not compile_state and not open_control
    if spec.when == INTERPRETING:
        return not compile_state
    if spec.when == COMPILING:
        return compile_state
    return spec.when == READ


def number_effect(text: str, base: int) -> Effect | None:
    """A literal's effect as the interpreter reads it, or None if not a number."""
    if parse_integer(text, base) is not None:
        return Effect(dnet=1)
    if parse_double(text, base) is not None:
        return Effect(dnet=2)
    if base == 10 and parse_float(text) is not None:
        return Effect(fnet=1)
    return None


def skip_escaped(reader: Reader) -> None:
    """Move the reader past S\\"'s text: up to an unescaped `"` on the same
    line (a backslash escapes the next character: `\\"` `\\\\`), or to the
    line's end when there is none (the interpreter then refuses the line)."""
    line = reader.lines[reader.row] if reader.row < len(reader.lines) else ""
    i = reader.col + 1 if reader.col < len(line) else reader.col  # the one blank after S\\"
    while i < len(line):
        if line[i] == '"':
            reader.col = i + 1
            return
        i += 2 if line[i] == "\\" else 1
    reader.col = len(line)


def scan(text: str, dictionary: dict, base: int = 10, *, compiling: bool = False,
         open_frames: int = 0, interpreting: bool = False) -> Scan:
    """Walk the text as the interpreter would (without running it).

    `compiling` and `open_frames`: the session is inside a definition (with
    that many control structures open) from an earlier line; `interpreting`:
    and inside `[ ... ]` there.

    As the interpreter does: a parsing word's text or name is not a word of
    the program (`S" a : b"`, `POSTPONE ;`, `CHAR (`); `:` and `:NONAME`
    open a definition only outside one (`: def : POSTPONE ; ;` compiles
    `:`); a host word that parses (`'`, CREATE, CONSTANT, INCLUDE) reads its
    name only when it runs now, not when it is compiled into a definition or
    an open control structure (`: mk CREATE ;`); `[ ... ]` interprets inside
    a definition; DOES> goes on to the `;`; locals `{: a | b -- c :}`,
    `{ a -- b }` and `LOCALS| a b |` are names, not words.
    """
    out = Scan(open_definition=compiling, open_control=open_frames if compiling else 0)
    interp = interpreting and compiling  # inside [ ... ] of an open definition
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

    def span_tok(t, kind: str) -> None:
        span(t.pos.line - 1, t.pos.col - 1, t.pos.col - 1 + len(t.text), kind)

    def item(tok, effect) -> None:
        row = tok.pos.line - 1
        out.items.append(Item(tok.text, starts[row] + tok.pos.col - 1, effect))

    def name_kind(t) -> str:
        """The colour of an existing word's name read by a parsing word."""
        if t.key in dictionary:
            return kind_of(dictionary[t.key])
        return defined.get(t.key, "unknown")

    def next_on_line(tok):
        """The next token if it is on `tok`'s line (else None, unread)."""
        nxt = reader.peek_token()
        if nxt is None or nxt.pos.line != tok.pos.line:
            return None
        return reader.next_token()

    while (tok := reader.next_token()) is not None:
        row, col = tok.pos.line - 1, tok.pos.col - 1
        end = col + len(tok.text)
        key = tok.key
        compile_state = out.open_definition and not interp
        if key in locals_ and compile_state:
            span(row, col, end, "local")
            item(tok, None)
            continue
        entry = dictionary.get(key)
        immediate = isinstance(entry, Immediate)
        # the words that run now leave what they leave; inside a definition or
        # an open control structure they are compiled
        at_top = not out.open_definition and not out.open_control
        spec = getattr(entry, "parses", None)  # what the word reads after its name (its declaration)
        now = spec is not None and reads_now(spec, compile_state, out.open_control)
        spec = spec if spec is not None else NO_PARSE  # (read only where `now`)
        if now and spec.reads == COMMENT:
            if spec.end:
                _, found = reader.parse_until(spec.end, multiline=spec.lines)
                if spec.lines:
                    out.open_comment = not found
                span_to(row, col, "comment")
            else:
                reader.skip_line()
                span(row, col, len(reader.lines[row]), "comment")
            continue
        if now and spec.reads == TEXT:
            if spec.escapes:
                skip_escaped(reader)
            else:
                reader.parse_until(spec.end)  # on this line: without its delimiter the line fails
            span_to(row, col, "string")
            item(tok, parsing_effect(entry) if at_top and immediate else None)
            continue
        if entry is None:
            if key in defined:
                span(row, col, end, defined[key])
                item(tok, None)
                continue
            eff = number_effect(tok.text, base)
            if eff is not None:
                span(row, col, end, "number")
                item(tok, eff if at_top else None)
                continue
            span(row, col, end, "unknown")
            item(tok, None)
            continue

        kind = kind_of(entry)
        span(row, col, end, kind)
        if immediate and key in (":", ":NONAME"):
            if out.open_definition:
                item(tok, None)
                continue  # `: def : POSTPONE ; ;`: compiled, it reads its name when def runs
            out.open_definition, interp = True, False
            out.open_control = 0
            locals_.clear()  # then `:` reads its name as it declares
        if immediate and key == ";":
            item(tok, None)
            out.open_definition, interp = False, False
            out.open_control = 0
            locals_.clear()
            continue
        if immediate and key == "DOES>":
            item(tok, None)
            locals_.clear()  # the code after DOES> is a definition of its own, up to the ;
            continue
        if immediate and key in ("[", "]"):
            item(tok, None)
            if out.open_definition:
                interp = key == "["
            continue
        if immediate and entry.control is not None:
            out.open_control = max(0, out.open_control + entry.control)
            item(tok, None)
            continue
        if now and spec.reads == LOCALS:  # {: a b | c -- d :}  { a -- b }  LOCALS| a b |
            item(tok, None)
            part = "in"
            while (t := reader.next_token()) is not None:
                if t.text == spec.end:
                    span_tok(t, "immediate")
                    break
                if t.text == "--":
                    part = "out"
                elif t.text == "|" and part == "in":
                    part = "extra"
                    span_tok(t, "immediate")
                    continue
                span_tok(t, "comment" if part == "out" else "local")
                if part != "out":
                    locals_.add(t.key)
            continue
        if now and spec.reads == POSTPONED:  # ]] DUP * [[: words (and numbers) compiled later, not run now
            item(tok, None)
            while (t := reader.next_token()) is not None:
                if t.key == spec.end:
                    span_tok(t, "immediate")
                    break
                known = t.key in dictionary or t.key in defined
                span_tok(t, name_kind(t) if known else "number" if number_effect(t.text, base) else "unknown")
            continue
        if now and spec.reads in (NEW, NAME, FILE, WORD):
            item(tok, parsing_effect(entry) if at_top and immediate and spec.reads == WORD else None)
            new = None
            for part_spec in spec.sequence():  # SYNONYM new old, LOAD-NPY xs data.npy
                nxt = next_on_line(tok) if part_spec.same_line else reader.next_token()
                if nxt is None:
                    break
                if part_spec.reads == NEW:
                    span_tok(nxt, "defined")
                    new = nxt.key
                    if part_spec.defines:
                        defined[new] = part_spec.defines
                elif part_spec.reads == NAME:
                    named = "local" if nxt.key in locals_ and compile_state else name_kind(nxt)
                    span_tok(nxt, named)
                    if new is not None and new not in defined:  # SYNONYM: the new name is what the old one is
                        defined[new] = named
                else:  # FILE, WORD: text
                    span_tok(nxt, "string")
            continue
        runs_now = not compile_state and not out.open_control
        if key in ("HEX", "DECIMAL") and runs_now:
            base = 16 if key == "HEX" else 10
        inside = out.open_definition or out.open_control or kind == "control"
        item(tok, None if inside else word_effect(entry))
    return out


@record(frozen=True)
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
