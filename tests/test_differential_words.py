"""Differential test of the standard words of issue 11 against gforth.

Random programs built from templates of the new words: double-cell and mixed
arithmetic, pictured numeric output, strings, CREATE ... DOES>, EXECUTE and
execution tokens, CATCH/THROW, CASE, VALUE/DEFER, locals, IMMEDIATE/POSTPONE,
[ ] LITERAL and definitions that span lines. Each program prints what it
computes and leaves the stack empty. gforth runs them all in one process
(a marker line between programs); tileforth runs them line by line in one
single-thread session; every program's output must agree.

    TILEFORTH_DIFF_WORDS=5000 pytest tests/test_differential_words.py   # more programs
"""
from __future__ import annotations

import os
import random

import pytest

import gforth
from forthtest import ONE_THREAD
from tileforth.core import Forth

PROGRAMS = int(os.environ.get("TILEFORTH_DIFF_WORDS", "1000"))
MARK = "@@@"
BINOPS = ["+", "-", "*", "MAX", "MIN", "AND", "OR", "XOR"]
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def cell(r: random.Random) -> int:
    return r.choice([r.randint(-1000, 1000), r.randint(-2**62, 2**62), r.choice([0, 1, -1, 2**63 - 1, -2**63])])


def small(r: random.Random) -> int:
    return r.randint(-40000, 40000)


def word(r: random.Random, n: int | None = None) -> str:
    return "".join(r.choice(LETTERS) for _ in range(n if n is not None else r.randint(1, 8)))


def text(r: random.Random) -> str:
    return " ".join(word(r) for _ in range(r.randint(0, 4)))


def snippet(r: random.Random, i: int) -> list[str]:
    """One template, drawn at random: the lines of a small program (unique names use i)."""
    a, b, s, t = cell(r), cell(r), small(r), small(r)
    u, w = r.randint(0, 2**62), r.randint(0, 12)
    op = r.choice(BINOPS)
    k = r.randint(0, 5)
    choices = [
        # double-cell and mixed arithmetic
        lambda: [f"{a}. {b}. D+ . ."], lambda: [f"{a}. {b}. D- . ."], lambda: [f"{a} {b} M* . ."],
        lambda: [f"{u} {r.randint(0, 2**62)} UM* . ."], lambda: [f"{a}. DNEGATE . ."],
        lambda: [f"{a}. {b}. D< . {a}. {b}. D= . {a}. D0< ."], lambda: [f"{a}. DABS . ."],
        lambda: [f"{a}. D2* . . {a}. D2/ . ."], lambda: [f"{a} S>D . . {a}. D>S ."],
        lambda: [f"{r.randint(0, 2**40)}. {r.randint(1, 2**31)} UM/MOD . ."], lambda: [f"{a}. {s} M+ . ."],
        lambda: [f": rr{i} 2DUP * -ROT 2>R 2R@ 2R> + + + + ;", f"{s} {t} rr{i} ."],
        # pictured numeric output and right-aligned numbers
        lambda: [f"{u} S>D <# #S #> TYPE SPACE"], lambda: [f"{a} DUP ABS S>D <# #S ROT SIGN #> TYPE SPACE"],
        lambda: [f"{s} {w} .R SPACE"], lambda: [f"{u} {w} U.R SPACE"],
        lambda: [f"{abs(s)} 0 <# # # CHAR : HOLD #S #> TYPE SPACE"],
        lambda: [f"{u} S>D HEX <# #S #> DECIMAL TYPE SPACE"],
        # strings and characters
        lambda: [f'S" {text(r)}" TYPE SPACE'], lambda: [f'S" {text(r)}" NIP .'],
        lambda: [f'S" {word(r, 3)}" S" {word(r, 3)}" COMPARE .'],
        lambda: [f'S" {word(r, 8)}" {k} /STRING TYPE SPACE'], lambda: [f'S" {word(r)}   " -TRAILING TYPE SPACE'],
        lambda: [f'S" {word(r, 10)}" S" {word(r, 1)}" SEARCH . . DROP'],
        lambda: [f"CHAR {word(r)} . BL . {k} SPACES CHAR | EMIT"],
        # defining words, execution tokens, exceptions, CASE, VALUE, DEFER, locals, compile time
        lambda: [f": mk{i} CREATE , DOES> @ {op} ;", f"{s} mk{i} v{i}", f"{t} v{i} ."],
        lambda: [f"{s} {t} ' {op} EXECUTE ."],
        lambda: [f": f{i} {s} {op} ;", f"{t} ' f{i} EXECUTE ."],
        lambda: [f": t{i} {s} {t} + {r.choice([0, 0, -1, 5, -20, 99])} THROW ;",
                 f": r{i} ['] t{i} CATCH DUP . 0= IF . THEN ;", f"r{i}"],
        lambda: [f": z{i} {s} 0 / ;", f": rz{i} ['] z{i} CATCH . ;", f"rz{i}"],
        lambda: [f": c{i} CASE {k} OF {s} ENDOF {k + 1} OF {t} ENDOF {a} SWAP ENDCASE ;",
                 f"{r.randint(0, 7)} c{i} ."],
        lambda: [f": m{i}", f"  {s} +", f"  {t} {op}", ";", f"{small(r)} m{i} ."],
        lambda: [f"{s} VALUE val{i}", f"{t} TO val{i} val{i} ."],
        lambda: [f"DEFER d{i}", f"' {op} IS d{i}", f"{s} {t} d{i} ."],
        lambda: [f": l{i} {{ x y }} x y {op} x - ;", f"{s} {t} l{i} ."],
        lambda: [f": lit{i} {s} POSTPONE LITERAL ; IMMEDIATE", f": u{i} lit{i} {t} {op} ;", f"u{i} ."],
        lambda: [f": br{i} [ {s} {t} {op} ] LITERAL ;", f"br{i} ."],
        lambda: [f"{a} {b} 2CONSTANT tc{i}", f"tc{i} . ."],
    ]
    return r.choice(choices)()


def programs(seed: int, n: int) -> list[list[str]]:
    r = random.Random(seed)
    out = []
    for i in range(n):
        lines: list[str] = []
        for j in range(r.randint(1, 3)):
            lines += snippet(r, i * 10 + j)
        out.append(lines)
    return out


@pytest.mark.skipif(not gforth.available(), reason="gforth is not installed")
def test_random_programs_of_the_new_words_agree_with_gforth():
    progs = programs(2026_11_30, PROGRAMS)
    source = "\n".join("\n".join(p) + f"\n.( {MARK}) CR" for p in progs)
    ref = gforth.run(source, timeout=120)
    assert ref.stack == [], ref.stack
    expected = ref.output.split(f"{MARK}\n")[:-1]
    assert len(expected) == len(progs)
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    mismatches = []
    for prog, want in zip(progs, expected):
        got = "".join(f.eval(line) for line in prog)
        if got != want.lstrip("\n") and got.strip() != want.strip():
            mismatches.append((prog, got, want))
        assert f.data_stack() == [], prog
    assert not mismatches, "\n\n".join(f"{p}\n  tileforth {g!r}\n  gforth    {w!r}" for p, g, w in mismatches[:8]) + \
        f"\n({len(mismatches)} of {len(progs)} programs differ)"
