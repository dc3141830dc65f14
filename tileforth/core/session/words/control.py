"""Control structures (Forth-2012 6.1, 6.2, 15.6.2): IF ELSE THEN, BEGIN UNTIL
AGAIN WHILE REPEAT, DO ?DO LOOP +LOOP LEAVE, EXIT RECURSE, CASE OF ENDOF
ENDCASE, AHEAD, CS-PICK CS-ROLL. The open ones are `Frame`s on the session's
control-flow stack (Forth.frames) while code is built.

Each immediate word here declares `control`: the entries it adds to the
control-flow stack as the standard counts them (an opener one, WHILE and OF
one more, an orig; REPEAT takes two, its BEGIN's dest and a WHILE's orig, so
BEGIN .. WHILE .. WHILE .. REPEAT .. ELSE .. THEN stays open until its THEN;
ELSE, LEAVE, EXIT and RECURSE 0). The REPL's scanner counts with it whether a
structure typed at the prompt is still open (tileforth/repl/scan.py)."""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from ...compile.primitives import TABLE as PRIMS
from ...errors import ForthError
from ...front.dictionary import Colon
from ...front.reader import Token
from ...front.tree import Begin, Break, Do, Exit, If, Jump, Label, Leave, Lit, Node, Prim, Recurse
from ...records import replace
from ..building import CLOSERS, OPENERS, Frame
from .table import host, immediate

if TYPE_CHECKING:
    from ..interpreter import Forth


def _open(kind: str):
    def fn(f: "Forth", tok: Token) -> None:
        f.frames.append(_frame(kind, tok))
    return fn


def _frame(kind: str, tok: Token, query: bool = False) -> Frame:
    return Frame(kind, tok.pos, query=query)


def _close(f: "Forth", tok: Token, kinds: tuple[str, ...]):
    if not f.frames or f.frames[-1].kind not in kinds:
        opener = " or ".join(k.upper() for k in kinds)
        raise ForthError(f"{tok.text.upper()} without a matching {opener}: control structures must nest "
                         "properly", tok.pos, tok.text)
    return f.frames.pop()


@immediate("ELSE", "( -- )", "The other branch of IF.", "0 IF 1 ELSE 2 THEN .", wordset="CORE", control=0)
def i_else(f: "Forth", tok: Token) -> None:
    if _flat_word(f, tok):
        return
    if _top_exiting(f, "while2"):  # BEGIN .. WHILE .. WHILE .. REPEAT d ELSE e THEN: d ends, e starts
        _close_while2(f)
        f.frames[-1].exiting = True
        return
    if f.frames and f.frames[-1].kind == "else":  # IF a ELSE b ELSE c ... THEN: the paths alternate,
        f.frames[-1].kind = "if"  # so c runs after a (when the flag is true), d after b, and so on
        return
    fr = _close(f, tok, ("if",))
    fr.kind = "else"
    f.frames.append(fr)


def _top_exiting(f: "Forth", kind: str) -> bool:
    return bool(f.frames) and f.frames[-1].kind == kind and f.frames[-1].exiting


def _close_while2(f: "Forth") -> None:
    """A second WHILE's part: its loop code, or its exit path, then out of the loop."""
    fr = f.frames.pop()
    f.frames[-1].items().append(If(fr.a, fr.exit + [Break(fr.pos)], fr.pos))


@immediate("THEN", "( -- )", "End IF ... ELSE.", "1 IF 42 . THEN", wordset="CORE", control=-1)
def i_then(f: "Forth", tok: Token) -> None:
    if _flat_word(f, tok):
        return
    if _top_exiting(f, "while2") or _top_exiting(f, "while"):  # the end of a loop with two WHILEs
        if f.frames[-1].kind == "while2":
            _close_while2(f)
        fr = f.frames.pop()  # a third WHILE would have made the loop jumps (i_while)
        f.append(Begin("again", fr.a + [If(fr.b, fr.exit + [Break(fr.pos)], fr.pos)], pos=fr.pos))
        return
    fr = _close(f, tok, ("if", "else"))
    f.append(If(fr.a, fr.b if fr.kind == "else" or fr.b else None, fr.pos))


@immediate("UNTIL", "( flag -- )", "Loop back to BEGIN until flag is non-zero.", "0 BEGIN 1+ DUP 5 = UNTIL .",
           wordset="CORE", control=-1)
def i_until(f: "Forth", tok: Token) -> None:
    if _flat_word(f, tok) or _jump_back(f, tok):
        return
    _close_rests(f, tok, [Lit(0, tok.pos)])  # a skipped rest leaves UNTIL a false flag: loop again
    fr = _close(f, tok, ("begin",))
    f.append(Begin("until", fr.a, pos=fr.pos))


@immediate("AGAIN", "( -- )", "Loop back to BEGIN forever (leave with EXIT).",
           ": f BEGIN 1+ DUP 5 = IF EXIT THEN AGAIN ;", wordset="CORE-EXT", control=-1)
def i_again(f: "Forth", tok: Token) -> None:
    if _flat_word(f, tok) or _jump_back(f, tok):
        return
    _close_rests(f, tok, None)
    fr = _close(f, tok, ("begin",))
    f.append(Begin("again", fr.a, pos=fr.pos))


# ---- CS-PICK and CS-ROLL ---------------------------------------------------------------------
# tileforth builds control structures as a tree (IF, BEGIN and DO nodes). The frames are its
# control-flow stack: "begin" is a dest, "if"/"else" an orig, "while" an orig over a dest. Two uses
# of CS-PICK and CS-ROLL keep the tree: `0 CS-PICK ... UNTIL` (a copy of the BEGIN: jump back when
# the flag is false, as ?REPEAT) opens a "rest" frame, the code that runs only when the flag was
# true, up to the loop's own UNTIL or AGAIN; and `IF 1 CS-ROLL` on a BEGIN is WHILE. Any other
# reordering turns the frames involved into jumps and labels in the list below them (_flatten): an
# "orig" or "fdest" frame holds a Label id, and THEN, UNTIL, AGAIN, REPEAT on it add a Label or a
# Jump (the code generator makes them branches; codegen.visit_Label).
_label_ids = itertools.count(1)


def _cs_items(f: "Forth") -> list[Frame]:
    """The control-flow stack as Forth sees it (the rest frames are tileforth's own)."""
    return [fr for fr in f.frames if fr.kind != "rest"]


@host("CS-PICK", "( u -- ) ( C: dest .. -- dest .. dest )", "Copy a BEGIN on the control-flow stack "
      "(in an IMMEDIATE word): `0 CS-PICK POSTPONE UNTIL` jumps back when the flag is false.",
      ": ?REPEAT 0 CS-PICK POSTPONE UNTIL ; IMMEDIATE "
      ": f 0 BEGIN 1+ DUP 2 MOD 0= ?REPEAT DUP 6 = UNTIL ; f . \\ 6", wordset="PROGRAMMING-TOOLS-EXT",
      group="Control")
def w_cs_pick(f: "Forth", tok: Token) -> None:
    (u,) = f.pop_uniform(1, "CS-PICK")
    items = _cs_items(f)
    if u == 0 and items and items[-1].kind == "begin":
        f.frames.append(Frame("dest", tok.pos))
        return
    _flatten(f, _start_of(f, u, tok), tok)
    fr = f.frames[-1 - u]
    if fr.kind != "fdest":
        raise ForthError(f"{u} CS-PICK would copy an orig (IF, AHEAD, WHILE): its jump would go to two places; "
                         "CS-PICK copies a dest (BEGIN)", tok.pos, tok.text)
    f.frames.append(replace(fr))


@host("CS-ROLL", "( u -- ) ( C: x0 x1 -- x1 x0 )", "Rotate the control-flow stack (in an IMMEDIATE "
      "word): `POSTPONE IF 1 CS-ROLL` is WHILE.",
      ": ?DONE POSTPONE IF 1 CS-ROLL ; IMMEDIATE : f 0 BEGIN DUP 3 < ?DONE 1+ REPEAT ; f . \\ 3",
      wordset="PROGRAMMING-TOOLS-EXT", group="Control")
def w_cs_roll(f: "Forth", tok: Token) -> None:
    (u,) = f.pop_uniform(1, "CS-ROLL")
    if u == 0:
        return
    fr = f.frames
    if u == 1 and len(fr) >= 2 and fr[-1].kind == "if" and not fr[-1].b and fr[-2].kind == "begin":
        orig = fr.pop()  # IF 1 CS-ROLL: WHILE
        i_while(f, tok)
        f.frames[-1].items().extend(orig.a)
        return
    _flatten(f, _start_of(f, u, tok), tok)
    f.frames.append(f.frames.pop(-1 - u))


def _start_of(f: "Forth", u: int, tok: Token) -> int:
    """The index of the frame that holds control-flow stack item u (a WHILE
    frame holds two items, a rest none)."""
    if u < 0:
        raise ForthError(f"{tok.text} needs an item number of 0 or more, got {u}", tok.pos, tok.text)
    seen = 0
    for i in range(len(f.frames) - 1, -1, -1):
        seen += {"rest": 0, "while": 2}.get(f.frames[i].kind, 1)
        if seen > u:
            return i
    raise ForthError(f"{u} {tok.text.upper()}: the control-flow stack holds {seen} item(s) here", tok.pos, tok.text)


def _flatten(f: "Forth", start: int, tok: Token) -> None:
    """Turn the frames from `start` up into jumps and labels in the list
    below them: one orig or fdest frame per control-flow stack item."""
    while start > 0 and f.frames[start].kind in ("rest", "dest"):
        start -= 1  # a jump back needs its BEGIN's label
    out = f.frames[start - 1].items() if start else (f.colon.body if f.compile_state else f.segment)
    flat: list[Frame] = []
    dest = 0
    for fr in f.frames[start:]:
        k, pos = fr.kind, fr.pos
        if k == "if" and not fr.b:
            label = next(_label_ids)
            out += [Jump(label, True, pos), *fr.a]
            flat.append(Frame("orig", pos, a=out, label=label))
        elif k == "else":  # IF a ELSE b: the code that follows goes on after b
            other, then = next(_label_ids), next(_label_ids)
            out += [Jump(other, True, pos), *fr.a, Jump(then, pos=pos), Label(other, pos), *fr.b]
            flat.append(Frame("orig", pos, a=out, label=then))
        elif k == "if":  # IF a ELSE b ELSE: b is done, the code that follows goes on after a
            other, on, then = next(_label_ids), next(_label_ids), next(_label_ids)
            out += [Jump(other, True, pos), Jump(on, pos=pos), Label(other, pos), *fr.b, Jump(then, pos=pos),
                    Label(on, pos), *fr.a]
            flat.append(Frame("orig", pos, a=out, label=then))
        elif k == "begin":
            dest = next(_label_ids)
            out += [Label(dest, pos), *fr.a]
            flat.append(Frame("fdest", pos, a=out, label=dest))
        elif k == "while" and not fr.exiting and not fr.exit:
            dest, label = next(_label_ids), next(_label_ids)
            out += [Label(dest, pos), *fr.a, Jump(label, True, pos), *fr.b]
            flat += [Frame("orig", pos, a=out, label=label), Frame("fdest", pos, a=out, label=dest)]
        elif k == "while2" and not fr.exiting and flat and flat[-1].kind == "fdest":  # a second WHILE
            label = next(_label_ids)
            out += [Jump(label, True, pos), *fr.a]
            flat.insert(len(flat) - 1, Frame("orig", pos, a=out, label=label))
        elif k == "dest":  # a CS-PICK copy of the BEGIN below
            out += fr.a
            flat.append(Frame("fdest", pos, a=out, label=dest))
        elif k == "rest":  # the code after a copy's UNTIL: it jumped back when the flag was 0
            out += [Jump(dest, True, pos), *fr.a]
        elif k in ("orig", "fdest"):
            dest = fr.label if k == "fdest" else dest
            flat.append(replace(fr, a=out))
        else:
            raise ForthError(f"{tok.text.upper()} reaches past {OPENERS[k]} ... {CLOSERS[k]}, whose control-flow "
                             "item cannot be moved: reorder only IF, ELSE, AHEAD, BEGIN and WHILE items",
                             tok.pos, tok.text)
    f.frames[start:] = flat


def _jump_back(f: "Forth", tok: Token) -> bool:
    """UNTIL or AGAIN that takes a CS-PICK copy of a BEGIN: the jump back, and
    the rest of the loop body runs only when it is not taken."""
    if not f.frames or f.frames[-1].kind != "dest":
        return False
    if tok.key == "AGAIN":
        raise ForthError("AGAIN on a CS-PICK copy of BEGIN would make the rest of the loop unreachable: "
                         "take the copy with UNTIL", tok.pos, tok.text)
    copy = f.frames.pop()
    f.frames[-1].items().extend(copy.a)
    f.frames.append(Frame("rest", tok.pos))
    return True


def _close_rests(f: "Forth", tok: Token, skipped: list[Node] | None) -> None:
    """Before the loop's own UNTIL or AGAIN: each rest becomes IF rest ELSE skipped THEN."""
    while f.frames and f.frames[-1].kind == "rest":
        rest = f.frames.pop()
        f.frames[-1].items().append(If(rest.a, skipped, rest.pos))


def _flat_word(f: "Forth", tok: Token) -> bool:
    """THEN ELSE UNTIL AGAIN WHILE REPEAT on frames that became jumps (_flatten)."""
    if not f.frames or f.frames[-1].kind not in ("orig", "fdest"):
        return False
    top, key, pos = f.frames[-1], tok.key, tok.pos
    if top.kind == "orig" and key == "THEN":
        f.frames.pop()
        top.a.append(Label(top.label, pos))
    elif top.kind == "orig" and key == "ELSE":
        then = next(_label_ids)
        top.a += [Jump(then, pos=pos), Label(top.label, pos)]
        top.label = then
    elif top.kind == "fdest" and key in ("UNTIL", "AGAIN"):
        f.frames.pop()
        top.a.append(Jump(top.label, key == "UNTIL", pos))
    elif top.kind == "fdest" and key == "WHILE":
        label = next(_label_ids)
        top.a.append(Jump(label, True, pos))
        f.frames.insert(len(f.frames) - 1, Frame("orig", pos, a=top.a, label=label))
    elif top.kind == "fdest" and key == "REPEAT" and len(f.frames) > 1 and f.frames[-2].kind == "orig":
        f.frames.pop()
        orig = f.frames.pop()
        top.a += [Jump(top.label, pos=pos), Label(orig.label, pos)]
    else:
        want = CLOSERS[top.kind]
        raise ForthError(f"{tok.text.upper()} here, where the control-flow stack's top is a {OPENERS[top.kind]}: "
                         f"use {want}", pos, tok.text)
    return True


@immediate("WHILE", "( flag -- )", "Continue the loop while flag is non-zero.", "0 BEGIN DUP 5 < WHILE 1+ REPEAT .",
           wordset="CORE", control=1)
def i_while(f: "Forth", tok: Token) -> None:
    _no_rest(f, tok)
    if _flat_word(f, tok):
        return
    if f.frames and f.frames[-1].kind == "while2" and not f.frames[-1].exiting:
        _flatten(f, len(f.frames) - 2, tok)  # a third WHILE: the loop becomes jumps and labels
        _flat_word(f, tok)
        return
    if f.frames and f.frames[-1].kind == "while" and not f.frames[-1].exiting:
        f.frames.append(_frame("while2", tok))  # another WHILE: its exit is resolved by THEN (see i_then)
        return
    fr = _close(f, tok, ("begin",))
    fr.kind = "while"
    f.frames.append(fr)


def _no_rest(f: "Forth", tok: Token) -> None:
    if f.frames and f.frames[-1].kind == "rest":
        raise ForthError(f"{tok.text.upper()} after a jump back made with CS-PICK: such a loop ends with UNTIL or "
                         "AGAIN", tok.pos, tok.text)


@immediate("REPEAT", "( -- )", "Loop back to BEGIN.", "0 BEGIN DUP 5 < WHILE 1+ REPEAT .", wordset="CORE", control=-2)
def i_repeat(f: "Forth", tok: Token) -> None:
    _no_rest(f, tok)
    if _flat_word(f, tok):
        return
    if f.frames and f.frames[-1].kind == "while2" and not f.frames[-1].exiting:
        f.frames[-1].exiting = True  # what follows is this WHILE's exit path, up to ELSE or THEN
        return
    if f.frames and f.frames[-1].kind == "begin" and len(f.frames) > 1 and f.frames[-2].kind in ("if", "else"):
        i_again(f, tok)  # BEGIN .. REPEAT with no WHILE: AGAIN, and the THEN of the IF around the loop
        i_then(f, tok)
        return
    fr = _close(f, tok, ("while",))
    f.append(Begin("while", fr.b, cond=fr.a, pos=fr.pos))


@immediate("DO", "( limit start -- )", "Counted loop from start to limit-1.", "5 0 DO I . LOOP", wordset="CORE",
           control=1)
@immediate("?DO", "( limit start -- )", "Like DO, but skip the loop when start = limit.", "0 0 ?DO I . LOOP",
           wordset="CORE-EXT", control=1)
def i_do(f: "Forth", tok: Token) -> None:
    f.frames.append(_frame("do", tok, query=tok.key == "?DO"))


@immediate("LOOP", "( -- )", "Increment the index; loop unless it reached the limit.", "5 0 DO I . LOOP",
           wordset="CORE", control=-1)
@immediate("+LOOP", "( n -- )", "Add n to the index; loop unless it crossed the limit boundary.",
           "10 0 DO I . 2 +LOOP", wordset="CORE", control=-1)
def i_loop(f: "Forth", tok: Token) -> None:
    fr = _close(f, tok, ("do",))
    f.append(Do(fr.a, query=fr.query, plus=tok.key == "+LOOP", pos=fr.pos))


@immediate("LEAVE", "( -- )", "Leave the innermost DO loop now.", "10 0 DO I 3 = IF LEAVE THEN LOOP", wordset="CORE",
           control=0)
def i_leave(f: "Forth", tok: Token) -> None:
    if not any(fr.kind == "do" for fr in f.frames):
        raise ForthError("LEAVE is only allowed inside DO ... LOOP", tok.pos, tok.text)
    f.append(Leave(tok.pos))


@immediate("EXIT", "( -- )", "Return from the current definition.", ": f 1 EXIT 2 ;", wordset="CORE", control=0)
def i_exit(f: "Forth", tok: Token) -> None:
    if f.colon is None:
        raise ForthError("EXIT is only allowed inside a colon definition", tok.pos, tok.text)
    f.append(Exit(tok.pos))


@immediate("RECURSE", "( -- )", "Call the definition being compiled.", ": fact DUP 1 > IF DUP 1- RECURSE * THEN ;",
           wordset="CORE", control=0)
def i_recurse(f: "Forth", tok: Token) -> None:
    if f.colon is None:
        raise ForthError("RECURSE is only allowed inside a colon definition", tok.pos, tok.text)
    f.append(Recurse(f.colon, tok.pos))


# ---- CASE ---------------------------------------------------------------------------------
@immediate("CASE", "( -- )", "Start CASE x OF ... ENDOF ... ENDCASE.",
           ": f CASE 1 OF 10 ENDOF 2 OF 20 ENDOF 0 SWAP ENDCASE ; 2 f . \\ 20", wordset="CORE-EXT", control=1)
def i_case(f: "Forth", tok: Token) -> None:
    f.frames.append(Frame("case", tok.pos))


@immediate("OF", "( x1 x2 -- | x1 )", "Run up to ENDOF if x1 = x2 (dropping it), else go on.",
           ": f CASE 1 OF 10 ENDOF 0 SWAP ENDCASE ; 1 f . \\ 10", wordset="CORE-EXT", control=1)
def i_of(f: "Forth", tok: Token) -> None:
    if not f.frames or f.frames[-1].kind not in ("case", "endof"):
        raise ForthError("OF without CASE: write CASE x OF ... ENDOF ... ENDCASE", tok.pos, tok.text)
    f.append(Prim(PRIMS["OVER"], tok.pos))
    f.append(Prim(PRIMS["="], tok.pos))
    f.frames.append(Frame("of", tok.pos))
    f.append(Prim(PRIMS["DROP"], tok.pos))


@immediate("ENDOF", "( -- )", "End an OF branch.", ": f CASE 1 OF 10 ENDOF 0 SWAP ENDCASE ; 5 f . \\ 0",
           wordset="CORE-EXT", control=-1)
def i_endof(f: "Forth", tok: Token) -> None:
    fr = _close(f, tok, ("of",))
    fr.kind = "endof"
    f.frames.append(fr)


@immediate("ENDCASE", "( x -- )", "End CASE, dropping the selector.",
           ": f CASE 1 OF 10 ENDOF 99 SWAP ENDCASE ; 3 f . \\ 99", wordset="CORE-EXT", control=-1)
def i_endcase(f: "Forth", tok: Token) -> None:
    if not any(fr.kind == "case" for fr in f.frames) or f.frames[-1].kind not in ("case", "endof"):
        raise ForthError("ENDCASE without CASE (or an OF without ENDOF)", tok.pos, tok.text)
    f.append(Prim(PRIMS["DROP"], tok.pos))
    from ...front.tree import If
    while f.frames[-1].kind == "endof":
        fr = f.frames.pop()
        f.append(If(fr.a, fr.b, fr.pos))
    case = f.frames.pop()
    for node in case.a:
        f.append(node)


@immediate("AHEAD", "( -- )", "Jump forward to THEN always (compile-time control flow).",
           ": f 1 AHEAD 2 THEN 3 ; f . . \\ 3 1", wordset="PROGRAMMING-TOOLS-EXT", control=1)
def i_ahead(f: "Forth", tok: Token) -> None:
    """AHEAD ... THEN: a forward branch taken always (an IF whose flag is false)."""
    if not isinstance(f.colon, Colon) and not f.frames:
        raise ForthError("AHEAD works inside a definition", tok.pos, tok.text)
    f.append(Lit(0, tok.pos))
    f.frames.append(Frame("if", tok.pos))


immediate("IF", "( flag -- )", "Run what follows if flag is non-zero.", "1 IF 42 . THEN", fn=_open("if"),
          wordset="CORE", control=1)
immediate("BEGIN", "( -- )", "Start an indefinite loop.", "0 BEGIN 1+ DUP 5 = UNTIL .", fn=_open("begin"),
          wordset="CORE", control=1)
