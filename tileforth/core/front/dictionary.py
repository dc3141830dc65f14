"""Dictionary entries. A name maps to its newest entry; words compiled
earlier keep a reference to the entry they were compiled against."""
from __future__ import annotations

import itertools
import re
from typing import Callable

from ..errors import SourcePos
from ..records import field, record
from .effects import Effect
from .tree import Call, HostOp, Node, Prim, walk

_uids = itertools.count(1)
SMALL_WORD = 8  # nodes of its own body
SMALL_INLINED = 32  # nodes once inlined, counted through what it inlines in turn (Colon.inline_size)
INLINE_MAX = 2048  # nodes a word that suspends may become once inlined into a coroutine kernel


@record(eq=False)
class Colon:
    """A colon definition (or :NONAME, a DOES> part, a VALUE, a DEFER): its body
    tree, source and inferred stack effect."""

    name: str
    body: list[Node]
    pos: SourcePos | None
    locals: list[str] = field(default_factory=list)
    effect: Effect = field(default_factory=lambda: Effect(False))
    source: str = ""
    recursive: bool = False
    prelude: bool = False  # defined by prelude.fth: errors point at the caller
    tile_effect: tuple | None = None  # (tiles needed, tiles left), inferred at ;
    open: bool = False  # a :NONAME not finished yet: its xt is handed out at its start (device code can't run it)
    touches_base: bool = False  # BASE is compiled into its body (see uses_base)
    immediate: bool = False  # IMMEDIATE: runs while a definition is compiled
    anonymous: bool = False  # :NONAME or a DOES> part: not entered in the dictionary at ;
    body_addr: int | None = None  # a CREATEd word given a DOES> part, a VALUE, a DEFER: its data field (>BODY)
    data_kind: str = ""  # "value" (TO changes it), "defer" (IS sets it)
    uid: int = field(default_factory=lambda: next(_uids))
    ir_text: dict = field(default_factory=dict)  # (target, checked, base, inline_all) -> (IR text, callees)

    @property
    def ir_name(self) -> str:
        return f"w{self.uid}_{re.sub(r'[^A-Za-z0-9_]', '_', self.name)}"

    @property
    def kind(self) -> str:
        return "colon"

    def callees(self) -> list["Colon"]:
        return list(dict.fromkeys(n.word for n in walk(self.body) if isinstance(n, Call)))

    @property
    def small(self) -> bool:
        """Small words are inlined by the code generator itself: a short body
        that stays small once what it calls is inlined too, so a chain of words
        that each call the one before twice compiles in linear time (a level
        over the size is a call)."""
        key = (len(self.body), self.recursive)  # cached for the final body (a line asks for every call)
        hit = self.__dict__.get("_small")
        if hit is None or hit[0] != key:
            small = (not self.recursive and sum(1 for _ in walk(self.body)) <= SMALL_WORD
                     and self.inline_size() <= SMALL_INLINED)
            hit = self.__dict__["_small"] = (key, small)
        return hit[1]

    def inline_size(self, suspending: bool = False) -> int:
        """Nodes this word's body becomes when it is inlined: a call counts as
        the callee's own inlined size when the callee is inlined too (small
        words; with `suspending`, as in a coroutine kernel, also every word
        that suspends), else as one node. Cached: a body is final at `;`."""
        key = "_inline_size_s" if suspending else "_inline_size"
        size = self.__dict__.get(key)
        if size is None:
            size = 0
            for n in walk(self.body):
                if isinstance(n, Call) and (n.word.small or (suspending and n.word.suspends)):
                    size += n.word.inline_size(suspending)
                else:
                    size += 1
            self.__dict__[key] = size
        return size

    def _reaches(self, key: str, test: Callable[[Node], bool]) -> bool:
        """Does a node of the body pass `test`? Cached under `key`: a body is final at `;`."""
        cached = self.__dict__.get(key)
        if cached is None:
            cached = self.__dict__[key] = any(test(n) for n in walk(self.body))
        return cached

    @property
    def host(self) -> bool:
        """It runs on the host (tileforth/core/session/hostexec.py): it holds a host
        action (CREATE, `,`, POSTPONE's ...) or calls a word that does."""
        return self._reaches("_host", lambda n: isinstance(n, HostOp) or
                             (isinstance(n, Call) and n.word is not self and n.word.host))

    @property
    def executes(self) -> bool:
        """It reaches EXECUTE (itself or through a word it calls): at one thread the host walks it
        when a token may name a host word (tileforth/core/session/hostexec.py)."""
        return self._reaches("_executes", lambda n: (isinstance(n, Prim) and n.prim.name == "EXECUTE") or
                             (isinstance(n, Call) and n.word is not self and n.word.executes))

    @property
    def uses_base(self) -> bool:
        """It reads or writes BASE (itself or through a word it calls): the
        interpreter runs it before it reads the next number."""
        return self.touches_base or self._reaches("_uses_base", lambda n: isinstance(n, Call) and n.word.uses_base)

    @property
    def suspends(self) -> bool:
        """It reaches a suspend point (BARRIER, a tile operation) or a must-inline primitive."""
        return self._reaches("_suspends", lambda n: (isinstance(n, Prim) and n.prim.suspends) or
                             (isinstance(n, Call) and n.word.suspends))


@record(eq=False)
class Constant:
    """A word that pushes a value: CONSTANT, VARIABLE/CREATE addresses, arrays, type codes."""

    name: str
    value: int | float
    is_float: bool = False
    help: str = ""
    array: tuple | None = None  # (addr, shape, eltype) for ARRAY/MATRIX names
    shared: int | None = None  # offset in per-block shared memory for SHARED: names
    param: tuple[int, str] | None = None  # (index, "ptr" | "int" | "float") for kernel-file parameters
    created: bool = False  # made by CREATE: DOES> may give it code, >BODY is its value
    immediate: bool = False  # IMMEDIATE: it pushes its value while a definition is compiled

    @property
    def kind(self) -> str:
        if self.param is not None:
            return "param"
        return "shared" if self.shared is not None else "constant"


# ---- how a word reads the source after it ------------------------------------------------
# What it reads (Parse.reads):
NEW = "new"  # the next word: the name of a word it defines (CONSTANT, CREATE, :)
NAME = "name"  # the next word: the name of an existing word (', SEE, POSTPONE, TO)
FILE = "file"  # the next word: a file name (INCLUDE)
WORD = "word"  # the next word, as text (CHAR, PARSE-NAME)
TEXT = "text"  # text up to a delimiter on the same line (S" ." .( ABORT")
COMMENT = "comment"  # a comment: up to a delimiter, or to the end of the line (( \)
LOCALS = "locals"  # names of locals, up to a closing word ({: ... :})
POSTPONED = "postponed"  # words, each postponed (not run), up to a closing word (gforth's ]] ... [[)
RUNTIME = "runtime"  # input only running it finds: a delimiter from the stack (WORD PARSE), another line
# (REFILL), a saved position (RESTORE-INPUT), words skipped by a flag ([IF])
# When it reads it (Parse.when):
RUNS = "runs"  # when the word runs: at the prompt, or inside [ ]; compiled into a definition or an open
# control structure, it reads when that code runs (every host word)
READ = "read"  # as the word is read, also inside a definition (POSTPONE, S", comments)
INTERPRETING = "interpreting"  # as it is read outside a definition; inside one it is compiled (: CHAR)
COMPILING = "compiling"  # only inside a definition ({: and the other locals)


@record(frozen=True)
class Parse:
    """What a word reads from the source after its name, and when: the
    interpreter's word does the reading, the REPL's scanner (tileforth/repl/scan.py)
    reads the same text from this declaration without running anything."""

    reads: str  # NEW NAME FILE WORD TEXT COMMENT LOCALS POSTPONED RUNTIME
    when: str = ""  # RUNS READ INTERPRETING COMPILING ("": a host word's RUNS, an immediate word's READ)
    end: str = ""  # TEXT, COMMENT: the character that ends it ("": the line's end); LOCALS POSTPONED: the closing word
    same_line: bool = False  # NAME, FILE: only a name on the same line (alone the word does something else)
    escapes: bool = False  # TEXT: a backslash escapes the next character, so \" does not end it (S\")
    lines: bool = False  # COMMENT: it goes on over the next lines until its delimiter
    defines: str = "constant"  # NEW: the kind of word the name becomes (as the scanner colours it later);
    # "": the kind of the existing word named next (SYNONYM)
    then: "Parse | None" = None  # what it reads after that (SYNONYM new old, LOAD-NPY xs data.npy)

    def sequence(self) -> list["Parse"]:
        """This item and the ones it reads after it, in order."""
        out: list[Parse] = []
        item: Parse | None = self
        while item is not None:
            out.append(item)
            item = item.then
        return out


@record(eq=False)
class HostWord:
    """A word that runs on the host between launches."""

    name: str
    effect: str
    help: str
    fn: Callable
    example: str = ""
    compiled: str | None = None  # Forth source compiled instead inside definitions
    group: str = ""  # the section of the word reference (default: host words)
    wordset: str = ""  # the Forth-2012 word set that defines it (wordsets.py), or "" for tileforth's own
    parses: Parse | None = None  # what it reads from the source after its name
    refuses: str = ""  # there only to refuse, for this reason (KEY): not counted in its word set

    @property
    def kind(self) -> str:
        return "host"


@record(eq=False)
class Immediate:
    """Parsing and control words: act on the interpreter while it builds code."""

    name: str
    effect: str
    help: str
    fn: Callable
    example: str = ""
    group: str = ""  # the section of the word reference (default: control structures, definitions, parsing)
    wordset: str = ""  # the Forth-2012 word set that defines it (wordsets.py), or "" for tileforth's own
    parses: Parse | None = None  # what it reads from the source after its name
    control: int | None = None  # a control-structure word: the entries it adds to the control-flow stack
    # (IF 1, THEN -1, REPEAT -2; ELSE, LEAVE, EXIT 0); None: not one

    @property
    def kind(self) -> str:
        return "immediate"


def is_immediate(entry: object) -> bool:
    """It acts while a definition is compiled: a parsing or control word, or one marked IMMEDIATE."""
    return isinstance(entry, Immediate) or bool(getattr(entry, "immediate", False))
