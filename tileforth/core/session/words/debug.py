"""DEBUG BREAK UNBREAK WATCH and the stepping words of the SIMT step debugger (core/session/debugger.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ForthError
from ...front.reader import Token
from ..debugger import state_of
from .inspection import word_name
from .table import FILE_NAME, NAME_ON_LINE, comment, host

if TYPE_CHECKING:
    from ..debugger import Debugger
    from ..interpreter import Forth

DEBUG_GROUP = "The step debugger (the emulator)"
EXAMPLE = "DEBUG TID-X 2 MOD IF 1 ELSE 2 THEN"


def _text(f: "Forth", d: "Debugger") -> None:
    from ..debugger import render

    text = render(d.view())
    if d.finished:
        text += "\n" + _finish(f, d)
    printed = f.printed()
    f.print_text(("\n" if printed and not printed.endswith("\n") else "") + text + "\n")


def _finish(f: "Forth", d: "Debugger") -> str:
    """The debugged line is over: what it printed (its results stay), or its error (the session is restored)."""
    state_of(f).debugger = None
    if d.error is not None:
        d.quit()
        return f"debug: the line failed: {d.error.message}"
    return "debug: done" + (f"; the line printed:\n{d.output}" if d.output else "")


def _current(f: "Forth", tok: Token) -> "Debugger":
    d = state_of(f).debugger
    if d is None:
        raise ForthError(f"{tok.text} steps a line started with DEBUG, and none is being debugged: start one with "
                         "`DEBUG <line>`", tok.pos, tok.text)
    return d


@host("DEBUG", "( \"line\" -- )", "Run the rest of the line on the emulator with a stop before every word of its "
      "launches, and show the first stop: the word, the warp's active mask, each lane's stacks, the block's warps. "
      "Step it with DSTEP, DSYNC, DCONT, DFINISH, DWARP, DBLOCK; DQUIT abandons it. A single word name after DEBUG "
      "continues to that word's first entry.", EXAMPLE, wordset="tileforth", parses=comment(),
      group=DEBUG_GROUP)
def w_debug(f: "Forth", tok: Token) -> None:
    from ..debugger import debug

    if state_of(f).debugger is not None:
        raise ForthError("a line is being debugged already: finish it (DCONT) or abandon it (DQUIT) first",
                         tok.pos, tok.text)
    line = tok.pos.text[tok.pos.col - 1 + len(tok.text):]
    f.reader.skip_line()
    if not line.strip():
        raise ForthError("DEBUG needs the line to run after it on the same line: `DEBUG my-word`", tok.pos, tok.text)
    d = debug(f, line.strip())
    state_of(f).debugger = d
    names = line.split()
    if len(names) == 1 and f.lookup(names[0].upper()) is not None and d.view().word.upper() != names[0].upper():
        d.breaks.add(names[0].upper())
        d.cont()
    _text(f, d)


def _command(name: str, help: str, method: str, arg: bool = False) -> None:
    def run(f: "Forth", tok: Token) -> None:
        d = _current(f, tok)
        if arg:
            (n,) = f.pop_uniform(1, name)
            getattr(d, method)(n)
        else:
            getattr(d, method)()
        _text(f, d)
    host(name, "( n -- )" if arg else "( -- )", help, "", run, wordset="tileforth", group=DEBUG_GROUP)


_command("DSTEP", "Debugger: run the current warp's next word on its active lanes and show the stop.", "step")
_command("DSYNC", "Debugger: step until the current warp reaches a BARRIER or another warp runs.", "step_sync")
_command("DCONT", "Debugger: step to the next breakpoint (BREAK) or the end of the line.", "cont")
_command("DFINISH", "Debugger: step until the current warp leaves the word it is in.", "finish")
_command("DWARP", "Debugger: make warp n of the block the one that runs next.", "select_warp", arg=True)
_command("DBLOCK", "Debugger: step block n of the launch from now on.", "select_block", arg=True)


@host("DTILE", "( n -- )", "Debugger: show the values of entry n of the current warp's tile stack at the stop (0: the "
      "top, 1: the one below), as .TILE shows the top tile.", "", wordset="tileforth", group=DEBUG_GROUP)
def w_dtile(f: "Forth", tok: Token) -> None:
    from .inspection import show

    d = _current(f, tok)
    (n,) = f.pop_uniform(1, "DTILE")
    try:
        view = d.tile_view(n)
    except ForthError as exc:
        raise ForthError(exc.message, tok.pos, tok.text) from None
    show(f, view)


@host("DQUIT", "( -- )", "Debugger: abandon the debugged line; the session is as it was before it (as after a "
      "failed line).", "", wordset="tileforth", group=DEBUG_GROUP)
def w_dquit(f: "Forth", tok: Token) -> None:
    d = _current(f, tok)
    d.quit()
    state_of(f).debugger = None
    f.print_text("debug: quit; the line was abandoned\n")


def _breaks(f: "Forth") -> set[str]:
    return state_of(f).breakpoints


@host("BREAK", "( \"name\" -- )", "Stop the debugger (DCONT) at every entry of the word named next, in this and "
      "later DEBUG lines.", ": sq DUP * ;  BREAK sq  UNBREAK sq", wordset="tileforth", parses=NAME_ON_LINE,
      group=DEBUG_GROUP)
def w_break(f: "Forth", tok: Token) -> None:
    name = word_name(f, tok, "BREAK my-word")
    if f.lookup(name.key) is None:
        raise ForthError(f"BREAK: unknown word {name.text}; define it first (WORDS lists the dictionary)",
                         name.pos, name.text)
    _breaks(f).add(name.key)
    d = state_of(f).debugger
    if d is not None:
        d.breaks.add(name.key)


@host("UNBREAK", "( \"name\" -- )", "Remove the breakpoint BREAK set on the word named next.",
      ": sq DUP * ;  BREAK sq  UNBREAK sq", wordset="tileforth", parses=NAME_ON_LINE, group=DEBUG_GROUP)
def w_unbreak(f: "Forth", tok: Token) -> None:
    name = word_name(f, tok, "UNBREAK my-word")
    if name.key not in _breaks(f):
        raise ForthError(f"UNBREAK: {name.text} has no breakpoint (BREAK {name.text} sets one)", name.pos, name.text)
    _breaks(f).discard(name.key)
    d = state_of(f).debugger
    if d is not None:
        d.breaks.discard(name.key)


@host("WATCH", "( addr n -- )", "Debugger: show the n cells at addr for each lane at every stop where they "
      "changed, in the next DEBUG lines; 0 0 WATCH clears the watch list.",
      "VARIABLE v  v 1 WATCH  0 0 WATCH", wordset="tileforth", group=DEBUG_GROUP)
def w_watch(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "WATCH")
    watches = state_of(f).watches
    if n == 0:
        watches.clear()
        return
    if not 0 < n <= 64:
        raise ForthError(f"WATCH shows 1 to 64 cells, not {n}: `addr 4 WATCH`", tok.pos, tok.text)
    f.backend.check_span(addr, n * 8)
    watches.append((addr, n))


@host("SAVE-VIEW", "( \"file\" -- )", "Write a picture to the file named next, SVG (.svg) or PNG (.png): the debugger's "
      "current stop (the word, the active mask, the lanes' stacks, the warps, the tiles and async state) while a "
      "line is debugged, else the last .TILE, .FRAG, .LANES or PROFILE view shown (a heat map of its cells).",
      "", wordset="tileforth", parses=FILE_NAME, group=DEBUG_GROUP)
def w_save_view(f: "Forth", tok: Token) -> None:
    from ..viewexport import current, save

    name = f.reader.next_token()
    if name is None or not name.text.lower().endswith((".svg", ".png")):
        raise ForthError("SAVE-VIEW needs a file name ending in .svg or .png after it: `SAVE-VIEW stop.svg`",
                         tok.pos, tok.text)
    try:
        save(current(f), name.text)
    except ForthError as exc:
        raise ForthError(exc.message, name.pos, name.text) from None
