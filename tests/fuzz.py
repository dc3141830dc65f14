"""A fuzzer for tileforth (issue 10): random programs a hostile user might type.

Classes of input (`generate(rng, words)` draws one program of a random class):

    soup        token soup from the real dictionary's word list, with numbers
    numbers     boundary numbers (2^63, 2^64, f32 max/min, doubles) fed to words
                that take counts and sizes (PICK ROLL TROLL ALLOT ARRAY ...)
    structure   unbalanced IF/DO/BEGIN/CASE/[IF]/: ; at the prompt and in definitions
    shapes      GRID/THREADS/TILE-SHAPE with odd sizes, then arrays, matrices, buffers
    tiles       tile words in random order, with tile settings
    npy         LOAD-NPY of malformed .npy files (bad magic, headers, sizes, dtypes)
    kernel      malformed kernel files through parse_kernel_file/run_kernel_file
    cli         `tileforth run|compile` and scripts with odd arguments (a subprocess each)

A forth/npy/kernel program runs in a worker process (`python tests/fuzz.py
worker`), a fresh `Forth()` per program, many programs per worker; the worker
is restarted after a crash or a timeout. A program fails when

    crash    an exception other than ForthError escapes eval (or the kernel API)
    corrupt  the session state after a failed line differs from before it:
             every lane's data and float stacks, every warp's tiles, the
             dictionary (names and entries), HERE, BASE, the launch shape and
             the tile settings
    hang     it runs past the time limit (the worker is killed), or a line runs on
             STOP_S after the Ctrl-C that should have stopped it. Both limits are
             scaled by how slow the machine is when the run starts: each worker first
             runs CALIBRATION (a baseline, the median of a few runs) and its limits are
             the given ones times baseline / REFERENCE_S (at least 1, at most
             MAX_SCALE), so a loaded machine does not report slow programs as hangs
             while a program that never ends still is one
    signal   the worker dies (a segfault: the program's exit status is -11)

An unchecked session (`Forth(checked=False)`) drops the range and alignment checks of memory
accesses (docs/repl.md: unsafe, a bad address can kill the process). When an unchecked program
dies of a signal, the same program runs again in a checked session (`recheck`): if that run
reports a bad or misaligned address (WILD_CODES, WILD_WORDS) the program really touched a wild
address and its death is counted apart, as "wild" (documented unsafe); otherwise the death is a
signal failure like any other (a valid program must never kill an unchecked session).

CLI runs fail on a traceback, a signal, a timeout or an exit status other
than 0, 1 or 2. `run_fuzz(...)` returns a Report with the counts and every
failure's program.
"""
from __future__ import annotations

import base64
import faulthandler
import gc
import json
import math
import os
import queue
import random
import re
import resource
import signal
import select
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STEP_BUDGET = 1 << 12  # per program: loops end fast, so the time limit catches real hangs

# ---- the generator ------------------------------------------------------------------------------------
INTS = ["0", "1", "-1", "2", "3", "7", "8", "15", "16", "17", "31", "32", "33", "63", "64", "65", "127", "128",
        "255", "256", "1023", "1024", "1025", "4096", "65535", "65536", "2147483647", "2147483648",
        "-2147483648", "4294967295", "4294967296", "9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
        "99999999999999999999", "99999999999999999999.", "1.", "-1.", "$FF", "$7FFFFFFFFFFFFFFF",
        "$8000000000000000", "$FFFFFFFFFFFFFFFFF", "#10", "%101", "'a'", "'", "-", "$", "10000", "1000000"]
FLOATS = ["1e", "0e", "-0e", "2.5e", "-1.5e", "3.4028235e38", "3.4028236e38", "3.5e38", "1e39", "-1e39",
          "1.17549435e-38", "1e-45", "1e-46", "1e308", "1e309", "1e-400", "65504e", "65520e", "1e+", "e5",
          "1.e", "3.3895314e38"]
STRUCT = ["IF", "ELSE", "THEN", "DO", "?DO", "LOOP", "+LOOP", "BEGIN", "UNTIL", "WHILE", "REPEAT", "AGAIN",
          "LEAVE", "UNLOOP", "EXIT", "RECURSE", "I", "J", "K", ">R", "R>", "R@", "[IF]", "[ELSE]", "[THEN]",
          ":", ";", "(", ")", "\\", '."', '"', ".(", "{", "}", "--", "|"]
SIZES = ["0", "1", "2", "3", "-1", "-32", "7", "33", "1024", "1025", "2048", "65536", "65537", "2147483648",
         "4294967296", "9223372036854775807", "-9223372036854775808"]
TYPES = ["F32", "F16", "BF16", "F64", "I8", "I16", "I32", "I64", "DUP", "0", "99"]
NAMES = ["xs", "m", "b", "v", "w", "x", "DUP", "IF", ";", "I", "TZERO", "9", "a-very-long-name" * 4]
FILES = ["bad.npy", "ok.npy", "missing.npy", "dir", "\"with blank.npy\"", "bad", "."]


def _num(rng: random.Random) -> str:
    return rng.choice(INTS) if rng.random() < 0.7 else rng.choice(FLOATS)


def _lines(rng: random.Random, toks: list[str]) -> list[str]:
    """Tokens split into 1-4 lines at random places."""
    cuts = sorted(rng.sample(range(1, len(toks)), min(len(toks) - 1, rng.randint(0, 3)))) if len(toks) > 1 else []
    out, last = [], 0
    for c in cuts + [len(toks)]:
        out.append(" ".join(toks[last:c]))
        last = c
    return out


def _soup(rng: random.Random, words: list[str]) -> list[str]:
    toks = []
    for _ in range(rng.randint(2, 14)):
        r = rng.random()
        toks.append(rng.choice(words) if r < 0.6 else _num(rng) if r < 0.85 else rng.choice(NAMES + FILES))
    return _lines(rng, toks)


def _numbers(rng: random.Random, words: list[str]) -> list[str]:
    consumers = ["PICK", "ROLL", "TROLL", "ALLOT", "CELLS", "BUFFER: b", "F32 ARRAY xs", "I8 ARRAY xs",
                 "SHARED: s", "CONSTANT c", "FCONSTANT fc", "DUP * .", "LSHIFT .", "RSHIFT .", "/ .", "MOD .",
                 "/MOD . .", "*/ .", "FM/MOD . .", "SM/REM . .", "M* . .", "S>F F.", "F>S .", "F. ", ". ",
                 "U. ", "EMIT", "BASE !", "HEX .", "S>D . .", "0 DO I . LOOP", "0 ?DO LOOP", "F32 MATRIX m",
                 "FSQRT F.", "FEXP F.", "FLN F.", "FLOOR F.", "FROUND F.", "F>S . ", "2/ .", "ABS .", "NEGATE ."]
    toks = []
    for _ in range(rng.randint(1, 4)):
        toks += [_num(rng) for _ in range(rng.randint(1, 3))] + rng.choice(consumers).split()
    return _lines(rng, toks)


def _structure(rng: random.Random, words: list[str]) -> list[str]:
    toks = []
    if rng.random() < 0.5:
        toks += [":", rng.choice(["w", "x", "IF", "DUP", "1"])]
    for _ in range(rng.randint(2, 16)):
        r = rng.random()
        toks.append(rng.choice(STRUCT) if r < 0.5 else _num(rng) if r < 0.7 else rng.choice(words))
    if rng.random() < 0.5:
        toks += [";", rng.choice(["w", "x", "1 w", "w ."])]
    return _lines(rng, toks)


def _shapes(rng: random.Random, words: list[str]) -> list[str]:
    lines = []
    for _ in range(rng.randint(1, 4)):
        s = lambda: rng.choice(SIZES[:10]) if rng.random() < 0.8 else rng.choice(SIZES)  # noqa: E731
        r = rng.random()
        if r < 0.3:
            lines.append(f"{s()} {s()} {s()} {rng.choice(['GRID', 'THREADS'])}")
        elif r < 0.4:
            lines.append(f"{s()} {s()} {s()} TILE-SHAPE")
        elif r < 0.55:
            lines.append(f"{s()} {rng.choice(TYPES)} ARRAY {rng.choice(NAMES)}")
        elif r < 0.65:
            lines.append(f"{s()} {s()} {rng.choice(TYPES)} MATRIX {rng.choice(NAMES)}")
        elif r < 0.72:
            lines.append(f"{s()} {rng.choice(['BUFFER: b', 'SHARED: s', 'ALLOT', 'CELLS ALLOT'])}")
        elif r < 0.85:
            name = rng.choice(NAMES[:4])
            lines.append(f"{rng.choice(['ZEROS', 'RAMP', '1.5e AFILL', '7 RANDOM', 'IDENTITY', '.M'])} {name}")
        else:
            lines.append(" ".join(rng.choice(["GLOBAL-ID", "TID-X", "BID-X", "WARP-ID", "LANE-ID", "BARRIER",
                                              "DUP", ".", "BDIM-X", "GDIM-X", "THREAD-ID", ".S", "+", "DROP",
                                              # warp ops on grids of every shape (batched or warp by warp)
                                              "1 SHFL-XOR", "3 SHFL-DOWN", "33 SHFL-UP", "SHFL-IDX", "BALLOT",
                                              "ANY", "ALL", "SYNCWARP", "ACTIVEMASK", "2e 1 FSHFL-XOR F.",
                                              "0= IF", "THEN"])
                                  for _ in range(rng.randint(1, 5))))
    return lines


def _tiles(rng: random.Random, words: list[str]) -> list[str]:
    tile = [w for w in words if w.startswith("T") and w not in ("THEN", "THREAD-ID", "THREAD-ROW", "TID-X",
                                                                  "TID-Y", "TID-Z", "TRUE")]
    tile += ["16 16 F16 MATRIX a", "16 16 F32 MATRIX c", "a 16", "c 16", "c 0", "a -1", "0 16", "2e", "1e39",
             "BF16 TILE-IN", "F16 TILE-ACC", "F32 TILE-IN", "32 8 16 TILE-SHAPE", "8 32 16 TILE-SHAPE",
             "16 16 16 TILE-SHAPE", ".TILE", ".FRAG", "1", "3", "-1", "64 1 1 THREADS", "2 1 1 GRID", "IF", "THEN",
             ": t", ";", "t", "BEGIN", "AGAIN", "0 DO", "LOOP"]
    return _lines(rng, [rng.choice(tile) for _ in range(rng.randint(2, 14))])


# ---- malformed .npy files ---------------------------------------------------------------------------------
def _npy(header: str, data: bytes = b"", magic: bytes = b"\x93NUMPY", version: bytes = b"\x01\x00",
         hlen: int | None = None) -> bytes:
    h = header.encode("latin1")
    h += b" " * ((64 - (10 + len(h) + 1) % 64) % 64) + b"\n"
    fmt = "<H" if version[0] == 1 else "<I"
    n = len(h) if hlen is None else hlen
    return magic + version + struct.pack(fmt, n % (1 << (8 * struct.calcsize(fmt)))) + h + data


def npy_file(rng: random.Random) -> bytes:
    shape = rng.choice(["(8,)", "(4,)", "(0,)", "(2, 4)", "()", "(1000000000000,)", "(-1,)", "(8",
                        "(9223372036854775807, 2)", "('a',)", "(8.5,)"])
    descr = rng.choice(["'<f4'", "'<f8'", "'<i4'", "'|i1'", "'<U4'", "'|O'", "'>f4'", "'<c8'", "'V4'",
                        "[('a', '<f4')]", "'<f2'", "'xx'", "1"])
    order = rng.choice(["False", "True", "1", "'x'"])
    header = rng.choice([
        f"{{'descr': {descr}, 'fortran_order': {order}, 'shape': {shape}, }}",
        f"{{'descr': {descr}, 'shape': {shape}}}",
        "{}", "not a dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (8,), 'extra': 1}",
        "__import__('os').system('true')", "{" * 200, ""])
    data = rng.randbytes(rng.choice([0, 1, 3, 16, 32, 64]))
    r = rng.random()
    if r < 0.1:
        return b""
    if r < 0.2:
        return rng.randbytes(rng.randint(1, 40))
    if r < 0.3:
        return b"\x93NUMPY"[: rng.randint(1, 7)]
    if r < 0.4:
        return _npy(header, data, version=rng.choice([b"\x02\x00", b"\x03\x00", b"\x09\x00", b"\x01\x05"]))
    if r < 0.5:
        return _npy(header, data, hlen=rng.choice([0, 1, 65535, 1 << 31, (1 << 32) - 1]),
                    version=rng.choice([b"\x01\x00", b"\x02\x00"]))
    return _npy(header, data)


def _npy_program(rng: random.Random, words: list[str]) -> tuple[list[str], dict[str, bytes]]:
    import io

    import numpy as np
    good = io.BytesIO()
    np.save(good, np.arange(8, dtype=rng.choice(["float32", "int32", "float16", "int8", "float64"])))
    files = {"bad.npy": npy_file(rng), "ok.npy": good.getvalue()}
    decl = rng.choice(["8 F32 ARRAY xs", "8 I32 ARRAY xs", "2 4 F32 MATRIX xs", "8 I8 ARRAY xs", "0 F32 ARRAY xs",
                       "8 F16 ARRAY xs", "4 F64 ARRAY xs", "VARIABLE xs"])
    lines = [decl]
    for _ in range(rng.randint(1, 3)):
        lines.append(rng.choice(["LOAD-NPY xs bad.npy", "LOAD-NPY xs bad.npy", "LOAD-NPY xs ok.npy",
                                 "LOAD-NPY xs missing.npy", "LOAD-NPY xs", "LOAD-NPY", "LOAD-NPY ys bad.npy",
                                 "SAVE-NPY xs bad.npy", "LOAD-NPY xs .", ".M xs", "LOAD-NPY xs \"bad.npy",
                                 "1 2 LOAD-NPY xs bad.npy 3"]))
    return lines, files


# ---- kernel files -------------------------------------------------------------------------------------
KHEAD = ["\\! kernel k", "\\! kernel", "\\! kernel 2k", "\\! kernel k k", "\\! param X f32[N]",
         "\\! param Y f32[N]", "\\! param N i32", "\\! param A f32", "\\! param X f32[4]", "\\! param B i8[3]",
         "\\! param C f33[4]", "\\! param D f32[", "\\! param E f32[-1]", "\\! param F f32[99999999999999999999]",
         "\\! param G f32[M]", "\\! param H i64[0]", "\\! shared T f32[256]", "\\! shared U f32[100000000]",
         "\\! shared V bf16[3]", "\\! shared", "\\! param", "\\!", "\\! params X f32", "\\! param DUP f32[4]",
         "\\! param I i32"]
KBODY = ["GLOBAL-ID N < IF GLOBAL-ID 4 * X + F@ A F* GLOBAL-ID 4 * Y + F! THEN", "GLOBAL-ID DROP", "X F@ F.",
         ": f DUP * ; 3 f .", "BEGIN AGAIN", "IF", "THEN", "4 F32 ARRAY zz", "16 1 1 THREADS", "T DROP", "1e39 F.",
         "X 0 TLOAD-A TDROP", "DO LOOP", "N 0 DO I X + C@ DROP LOOP", "RECURSE", "\\! kernel again", ": g", ";",
         "9223372036854775807 PICK", "B 3 + C@ .", "1 0 /", "."]
KPARAMS = ["X=1,2,3,4", "Y=1,2", "N=4", "N=-1", "N=99999999999", "N=x", "A=2", "A=1e39", "A=nan", "X=@ok.npy",
           "X=@bad.npy", "X=@missing.npy", "Q=1", "X=", "=", "X", "X=1,,2", "B=300,1,2", "I=5", "X=@.", "G=1"]


def kernel_text(rng: random.Random) -> str:
    lines = rng.sample(KHEAD[:9], rng.randint(0, 5)) + rng.sample(KHEAD, rng.randint(0, 3))
    if rng.random() < 0.8 and "\\! kernel k" not in lines:
        lines.insert(0, "\\! kernel k")
    rng.shuffle(lines) if rng.random() < 0.2 else None
    lines += rng.sample(KBODY, rng.randint(0, 4))
    return "\n".join(lines) + rng.choice(["\n", "", "\n\n"])


def _kernel_program(rng: random.Random, words: list[str]) -> dict:
    return {"kind": "kernel", "text": kernel_text(rng), "params": rng.sample(KPARAMS, rng.randint(0, 4)),
            "grid": rng.choice([[1, 1, 1], [2, 1, 1], [0, 1, 1], [1, 1, 99999]]),
            "block": rng.choice([[32, 1, 1], [1, 1, 1], [33, 1, 1], [4096, 1, 1], [-1, 1, 1]]),
            "files": {"bad.npy": npy_file(rng), "ok.npy": _npy_program(rng, words)[1]["ok.npy"]}}


# ---- CLI arguments ------------------------------------------------------------------------------------
def cli_args(rng: random.Random) -> tuple[list[str], dict[str, bytes]]:
    files = {"k.fth": kernel_text(rng).encode(), "bad.npy": npy_file(rng),
             "s.fth": rng.choice([b"1 2 + .\n", b"\xff\xfe bad utf8\n", b"IF\n", b": w BEGIN AGAIN ; w\n", b""]),
             "saxpy.fth": (ROOT / "demos" / "saxpy.fth").read_bytes()}
    cmd = rng.choice(["run", "compile", "script", "e"])
    if cmd == "script":
        return [rng.choice(["s.fth", "k.fth", "missing.fth", ".", "-"])] + rng.sample(
            ["--stacks", "all", "--unchecked", "--backend", "cpu", "-e", "1 .", "--arch", "sm_1"],
            rng.randint(0, 3)), files
    if cmd == "e":
        return ["--backend", "cpu", "-e", " ".join(rng.choice(INTS + FLOATS + ["EMIT", ".", "PICK", "F.", "ROLL"])
                                                  for _ in range(rng.randint(1, 4)))], files
    args = [cmd, rng.choice(["k.fth", "saxpy.fth", "s.fth", "missing.fth", "bad.npy", "."])]
    extra = ["--param", rng.choice(KPARAMS), "--grid", rng.choice(["1,1,1", "0,1,1", "1,1", "a,b,c", "-1,1,1",
             "99999999999,1,1"]), "--block", rng.choice(["32,1,1", "2048,1,1", "1,1,1,1", ""]), "--output-param",
             rng.choice(["X", "Y", "Q", ""]), "-o", rng.choice(["/nonexistent/x.ptx", "-", "out.ptx", "."]),
             "--arch", rng.choice(["sm_80", "sm_1", "xx"]), "--backend", "cpu", "--bogus"]
    i = 0
    while i < len(extra):
        if rng.random() < 0.35:
            args += extra[i:i + (1 if extra[i] == "--bogus" else 2)]
        i += 1 if extra[i] == "--bogus" else 2
    if cmd == "run" and "--backend" not in args:
        args += ["--backend", "cpu"]
    return args, files


# ---- the whole vocabulary (issue 26): programs from the dictionary, arguments of plausible kinds ------------
SETUP = ("VARIABLE v  CREATE cb 64 ALLOT  16 CELLS BUFFER: bb  8 F32 ARRAY fa  8 I32 ARRAY ia  5 VALUE val  "
         "1e FVALUE fval  DEFER df  ' DUP IS df  : sq DUP * ;  FVARIABLE fv  2VARIABLE dv")
ADDRS = ["v", "cb", "bb", "fa", "ia", "PAD", "HERE", "fv", "dv", "cb 8 +", "v 1+", "0", "-8", "1152921504606846976",
         "' sq >BODY", "cb 63 +"]
XTS = ["' DUP", "' sq", "' DROP", "' df", "' +", "' .", "' EXECUTE", "' CATCH", "' THROW", "' v", "' val",
       "' cb", ":NONAME 1 ;", "' FDROP", "' EVALUATE", "' ABORT", "0", "12345"]
STRS = ['S" t.txt"', 'S" abc"', 'PAD 4', 'S" 1 2 +"', 'S" 0 >IN !"', 'S" sq"', 'S" nope.fs"', 'S" t.blk"',
        'S\\" a\\x00b"', 'S" "', 'cb 64', 'PAD -1', 'S" : q 1 ; q"', 'S" ." S" \\" X\\""']
SMALL = ["0", "1", "2", "3", "-1", "4", "8", "16", "32", "64", "100", "7"]
NAMES2 = ["q", "v", "sq", "df", "val", "fval", "cb", "DUP", "nm", "IF"]
PARSE_MARK = ('"name"', '"<spaces>name"', '"ccc<quote>"', '"ccc<paren>"', '"<chars>ccc<char>"', '"ccc"', "<name>",
              '"name1"', '"text"', '"<spaces>name1"', '"filename"', '"file"')


@dataclass
class Vocab:
    """The words and their stack effects (the word table's and the prelude's), for the generator."""
    words: list[str]
    effects: dict[str, str]
    examples: dict[str, str]


def vocab() -> Vocab:
    from tileforth.core.session.reference import entries
    es = entries()
    return Vocab(sorted({e.name for e in es}), {e.name: e.effect for e in es},
                 {e.name: e.example for e in es if e.example})


def _arg(rng: random.Random, name: str) -> str:
    n = name.lower().strip("'").rstrip("0123456789'")
    if n in ("xt", "xt1", "xt2") or n.startswith("xt"):
        return rng.choice(XTS)
    if "addr" in n or n in ("a", "addr", "sf-addr", "df-addr", "f-addr", "body"):
        return rng.choice(ADDRS)
    if n in ("fileid", "fid"):
        return rng.choice(["fid", "fid", "0", "99"])
    if n == "wid":
        return rng.choice(["FORTH-WORDLIST", "WORDLIST", "0", "99"])
    if n in ("r", "f", "r1", "r2"):
        return rng.choice(FLOATS) if rng.random() < 0.5 else rng.choice(["1e", "2.5e", "0e", "-1e"])
    if n in ("d", "ud", "d1", "d2"):
        return rng.choice(["1 0", "-1 -1", "5 S>D", "0 1"])
    if n in ("flag", "f"):
        return rng.choice(["0", "-1", "1"])
    return rng.choice(SMALL) if rng.random() < 0.8 else rng.choice(INTS)


def call_of(rng: random.Random, voc: Vocab, word: str) -> str:
    """`word` with arguments of the kinds its stack effect names (sometimes too few or odd ones)."""
    eff = voc.effects.get(word, "")
    parts, floats, names = [], [], []
    for group in re.findall(r"\(([^)]*)\)", eff):
        before = group.split("--")[0].split()
        fl = bool(before) and before[0] == "F:"
        if before and before[0] in ("F:", "R:", "T:"):
            if before[0] == "F:":
                floats += [rng.choice(["1e", "2.5e", "0e", "-1e"] + FLOATS[:6]) for _ in before[1:]]
            continue
        for b in before:
            if b.startswith(('"', "<")) or b in PARSE_MARK:
                names.append(b)
            elif b not in ("|", "i*x", "j*x", "k*x", "...", "0"):
                parts.append(_arg(rng, b))
        del fl
    if '"name' in eff or '"<spaces>name' in eff or "<name>" in eff:
        names = [n for n in names if "name" in n] or ['"name"']
    r = rng.random()
    if r < 0.1 and parts:
        parts = parts[1:]  # too few
    elif r < 0.15:
        parts = [rng.choice(INTS) for _ in parts]  # boundary values of any kind
    tail = []
    for n in names:
        if "quote" in n or n in ('"text"', '"ccc"'):
            tail.append(rng.choice(['abc"', 'x"', '"', "q\" 1"]))
        elif "paren" in n:
            tail.append(rng.choice(["abc)", ")", "x"]))
        elif "char" in n:
            tail.append(rng.choice(["hello", "", ")"]))
        elif "file" in n:
            tail.append(rng.choice(["t.txt", "inc.fs", "nope.fs", "t.blk", "self.fs", "bin.fs"]))
        else:
            tail.append(rng.choice(NAMES2))
    return " ".join(floats + parts + [word] + tail)


def _vocab_soup(rng: random.Random, voc: Vocab) -> list[str]:
    return [" ".join(call_of(rng, voc, rng.choice(voc.words)) for _ in range(rng.randint(1, 4)))
            for _ in range(rng.randint(1, 5))]


def _mutate(rng: random.Random, toks: list[str], voc: Vocab) -> list[str]:
    toks = list(toks)
    for _ in range(rng.randint(1, 3)):
        if not toks:
            break
        i = rng.randrange(len(toks))
        r = rng.random()
        if r < 0.25:
            del toks[i]
        elif r < 0.5:
            toks.insert(i, toks[i])
        elif r < 0.7:
            toks[i] = rng.choice(INTS + FLOATS[:4])
        elif r < 0.85:
            toks[i] = rng.choice(voc.words)
        else:
            toks.insert(i, rng.choice(["1 0 /", "ABORT", "-1 THROW", "DROP", "BYE", ";", "IMMEDIATE", "CATCH"]))
    return toks


def _examples(rng: random.Random, voc: Vocab) -> list[str]:
    """A word's HELP example as written, then mutated (tokens dropped, doubled, replaced)."""
    ex = voc.examples[rng.choice(list(voc.examples))].split("\\")[0].split()
    lines = [" ".join(ex)] if rng.random() < 0.3 else []
    return lines + _lines(rng, _mutate(rng, ex, voc))


CONTROL = [("{} IF {} ELSE {} THEN", 3), ("{} 0 ?DO {} LOOP", 2), ("BEGIN {} DUP 0= UNTIL", 1),
           ("{} CASE 1 OF {} ENDOF 2 OF {} ENDOF ENDCASE", 3), ("{} 0 DO I {} 2 +LOOP", 2),
           ("{} BEGIN DUP WHILE 1- {} REPEAT DROP", 2), ("['] {} CATCH", 1), ("{} >R {} R>", 2)]
SPECIAL = [
    ": mk CREATE , DOES> @ ; {a} mk ch ch .", ": mk CREATE DUP 1 SWAP +! @ ; {a} mk ch ch @ .",
    ": mk CREATE {n} 0 DO I , LOOP ; mk ch", ": mk CREATE {n} ALLOT DOES> {n} + ; mk ch ch",
    "CREATE r 1 , 2 , DOES> SWAP CELLS + @ ; {n} r .", ": mk CREATE IMMEDIATE DOES> DROP ; mk ch : t ch ;",
    "{n} VALUE x {n} TO x x . {n} +TO x", "{f} FVALUE fx {f} TO fx fx F.", "1 2 2VALUE dx 3 4 TO dx",
    "{n} TO val {f} TO fval {n} +TO val", "DEFER d {x} IS d {n} d", "DEFER d d", "{x} ' df DEFER! ' df DEFER@ EXECUTE",
    "ACTION-OF df {x} IS df", ": t {x} CATCH ; {n} t", ": t {n} THROW ; ' t CATCH .", "{n} THROW",
    ": t ABORT\" no\" ; {n} ' t CATCH", "{s} EVALUATE", "{s} ' EVALUATE CATCH", "S\" 0 >IN !\" EVALUATE",
    "{n} >IN !", "-1 >IN !", ": t S\" {n} {n} +\" EVALUATE ; t", "{x} EXECUTE", "{n} {x} CATCH {x} CATCH",
    ": t {n} 0 DO I , LOOP ; t", ": t BEGIN {n} , AGAIN ; t", ": t RECURSE ; t", ": t {n} 0 DO LOOP ; t",
    "MARKER gone : q 1 ; gone q", ": q POSTPONE ; ; : r q", ": q POSTPONE IF ; IMMEDIATE : r q ;",
    "{n} {n} {n} : t [ ] ; IMMEDIATE", ": w 1 ; IMMEDIATE {n} 0 /", ": w {n} ; ' w >BODY",
    ":NONAME {n} ; DUP EXECUTE SWAP EXECUTE", "' sq {n} SWAP EXECUTE", "{n} LATESTXT EXECUTE",
    "SYNONYM w sq {n} w", "' sq ALIAS w {n} w", "S\" q\" NEXTNAME : 1 ; q", "{n} LOCALS| a | ",
    ": t {: a b :} a b + ; {n} {n} t", "{n} {n} {n} : t {n} ; {n} [IF] 1 [ELSE] 2 [THEN]",
    "{n} MS", "{n} SET-STEP-BUDGET : t BEGIN AGAIN ; t",
]


def _fmt(rng: random.Random, t: str) -> str:
    out, i = [], 0
    for m in re.finditer(r"\{(\w)\}", t):
        out.append(t[i:m.start()])
        k = m.group(1)
        out.append(rng.choice(SMALL) if k == "n" and rng.random() < 0.7 else rng.choice(INTS) if k == "n" else
                   rng.choice(["1e", "2e", "1e39"]) if k == "f" else rng.choice(XTS) if k == "x" else
                   rng.choice(STRS) if k == "s" else rng.choice(ADDRS))
        i = m.end()
    return "".join(out) + t[i:]


def _defs(rng: random.Random, voc: Vocab) -> list[str]:
    """Definitions with control flow, then calls; CREATE DOES>, VALUE/TO, DEFER/IS, CATCH/THROW, EVALUATE."""
    lines = []
    for k in range(rng.randint(1, 3)):
        if rng.random() < 0.45:
            lines.append(_fmt(rng, rng.choice(SPECIAL)))
            continue
        body = call_of(rng, voc, rng.choice(voc.words))
        for _ in range(rng.randint(1, 3)):
            tmpl, holes = rng.choice(CONTROL)
            fill = [body] + [call_of(rng, voc, rng.choice(voc.words)) for _ in range(holes - 1)]
            body = tmpl.format(*fill)
        name = rng.choice(["w", "x", "w", "sq", "t"])
        lines.append(f": {name} {body} ;")
        lines.append(" ".join(rng.choice(SMALL) for _ in range(rng.randint(0, 3))) + f" {name}")
    return lines


FILE_WORDS = ['S" t.txt" R/O OPEN-FILE', 'S" t.txt" R/W OPEN-FILE', 'S" new.txt" W/O CREATE-FILE',
              'S" t.txt" R/O BIN OPEN-FILE', 'fid CLOSE-FILE', 'PAD 80 fid READ-LINE', 'PAD {n} fid READ-FILE',
              'cb 10 fid WRITE-FILE', 'S" line" fid WRITE-LINE', 'fid FILE-SIZE', 'fid FILE-POSITION',
              '{n} 0 fid REPOSITION-FILE', '{n} 0 fid RESIZE-FILE', 'fid FLUSH-FILE', 'S" t.txt" FILE-STATUS',
              'S" new.txt" DELETE-FILE', 'S" t.txt" S" u.txt" RENAME-FILE', 'S" inc.fs" INCLUDED',
              'INCLUDE inc.fs', 'INCLUDE self.fs', 'INCLUDE bin.fs', 'REQUIRE inc.fs', 'S" long.fs" INCLUDED',
              'fid INCLUDE-FILE', 'S" t.blk" OPEN-BLOCKS', '{n} BLOCK', '{n} BUFFER', 'UPDATE', 'FLUSH',
              'SAVE-BUFFERS', 'EMPTY-BUFFERS', '{n} LIST', '{n} LOAD', '{n} {n} THRU', 'SCR @', 'BLK @',
              '{n} BLOCK 1024 BLANK UPDATE', 'S" 1 2 + ." {n} BLOCK SWAP MOVE UPDATE', 'S" nodir/x.blk" OPEN-BLOCKS',
              'S" ro.blk" OPEN-BLOCKS 1 BLOCK DROP UPDATE FLUSH', 'SOURCE-ID .', 'REFILL', 'SAVE-INPUT RESTORE-INPUT']
FILES_TXT = {"t.txt": b"hello\nworld\n1 2 +\n" + b"x" * 300 + b"\n", "inc.fs": b"1 2 + DROP\n: incw 3 ;\n",
             "self.fs": b"INCLUDE self.fs\n", "bin.fs": b"\xff\xfe\x00 1 2\n", "long.fs": b"1 " * 1000 + b"\n",
             "ro.blk": b" " * 2048}


def _files(rng: random.Random, voc: Vocab) -> tuple[list[str], dict[str, bytes]]:
    """File and block words on temporary files (the worker's own folder), some files odd."""
    files = dict(FILES_TXT)
    files["t.blk"] = rng.choice([b"", b" " * 1024, b"1 2 + .  " + b" " * 2039, rng.randbytes(rng.choice([1, 1000]))])
    lines = ['S" t.txt" R/W OPEN-FILE DROP VALUE fid'] if rng.random() < 0.8 else []
    for _ in range(rng.randint(1, 5)):
        lines.append(" ".join(_fmt(rng, rng.choice(FILE_WORDS)) + rng.choice(["", " DROP", " . .", " THROW", ""])
                              for _ in range(rng.randint(1, 3))))
    return lines, files


WARP = ["v 1 ATOMIC+ .", "{n} v ATOMIC-MAX .", "{n} v ATOMIC-MIN .", "{n} {n} v ATOMIC-CAS .", "{n} v ATOMIC-XCHG .",
        "ia 1 I32-ATOMIC+ .", "{n} {n} ia I32-ATOMIC-CAS .", "{a} 1 ATOMIC+ .", "1e fa FATOMIC+ F.",
        "GLOBAL-ID {n} SHFL-XOR .", "LANE-ID {n} SHFL-DOWN .", "LANE-ID {n} SHFL-UP .", "{n} {n} SHFL-IDX .",
        "1e {n} FSHFL-XOR F.", "LANE-ID 2 MOD BALLOT .", "LANE-ID ANY .", "LANE-ID ALL .", "ACTIVEMASK .",
        "SYNCWARP", "BARRIER", "THREADFENCE", "{n} SHARED: s", "{n} CELLS SHARED: s2 s2 !", "{n} 1 1 THREADS",
        "{n} 1 1 GRID", "64 1 1 THREADS", "1 1 1 THREADS", "PROFILE sq", "PROFILE{ {n} sq DROP }PROFILE",
        "PROFILE{", "}PROFILE", "PROFILE EXECUTE", "PROFILE df", ".LANES", ".STACKS", "{n} VIEW-WARP",
        "TZERO {f} TFILL .TILE TDROP", "16 16 F16 MATRIX ta ta 16 TLOAD-A", "ta {n} TLOAD-A-COL", "TMMA",
        "16 16 F32 MATRIX tc tc 16 TSTORE", "ta 1152921504606846976 TLOAD-A-COL", "2e TSCALE", "TDUP T+",
        "GLOBAL-ID 2 MOD 0= IF 0 . THEN", "GLOBAL-ID fa + C@ .", "TID-X 16 >= IF 1 THEN ' DROP EXECUTE",
        ": k GLOBAL-ID CELLS bb + ! ; GLOBAL-ID k", "GLOBAL-ID v ATOMIC+ DROP v @ ."]


def _warp(rng: random.Random, voc: Vocab) -> list[str]:
    """Atomics, shuffles and votes, SHARED:, PROFILE and tiles, on grids of a few shapes."""
    return [" ".join(_fmt(rng, rng.choice(WARP)) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 5))]


VOCAB_CLASSES = {"vocab": (_vocab_soup, 5), "examples": (_examples, 3), "defs": (_defs, 4), "files": (_files, 2),
                 "warp": (_warp, 2)}


CLASSES = {"soup": (_soup, 4), "numbers": (_numbers, 3), "structure": (_structure, 3), "shapes": (_shapes, 2),
           "tiles": (_tiles, 3), "npy": (_npy_program, 1), "kernel": (_kernel_program, 1)}


def generate(rng: random.Random, words: list[str], voc: Vocab | None = None) -> dict:
    """One program: {'kind': 'forth', 'cls', 'lines', 'files', 'setup', 'checked', 'interrupt'} or a
    kernel-file program. With `voc`, the whole vocabulary's classes join the older ones."""
    table = dict(CLASSES, **(VOCAB_CLASSES if voc is not None else {}))
    names = list(table)
    cls = rng.choices(names, weights=[table[n][1] for n in names])[0]
    out = table[cls][0](rng, voc if cls in VOCAB_CLASSES else words)
    if cls == "kernel":
        out["cls"] = cls
        return out
    lines, files = out if isinstance(out, tuple) else (out, {})
    prog = {"kind": "forth", "cls": cls, "lines": lines, "files": files, "spanning": rng.random() < 0.1,
            "setup": SETUP if cls in VOCAB_CLASSES else "", "checked": rng.random() < 0.75}
    r = rng.random()
    waits = any(w in WAITS for line in lines for w in line.split())
    if waits or r < 0.3:  # a wait the user asked for must still stop at Ctrl-C: interrupted, always
        how = "abort" if waits or r < 0.15 else "sigint"
        prog["interrupt"] = {"how": how, "delays": [rng.choice([0.0, 0.001, 0.01, 0.05, 0.2, 0.5, 1.0]) * rng.random()
                                                    for _ in lines]}
    return prog


WAITS = {"MS", "SET-STEP-BUDGET"}  # words that wait on purpose (a fuzzed `10000000 MS` is a wait the user asked
# for, not a hang; `0 SET-STEP-BUDGET` lets a runaway loop run until Ctrl-C, as asked)


def word_list() -> list[str]:
    from tileforth.core import Forth
    f = Forth(backend="cpu")
    words = sorted(w for w in f.dict if w not in WAITS)
    f.close()
    return words


# ---- the worker -----------------------------------------------------------------------------------------
SAMPLED = 1 << 14  # past this many lanes (warps), the state compares a sample: every lane of a 10^7-thread
#                   launch read into Python lists took the fuzzer itself past its time limit (a false "hang")


def _sample(n: int) -> range | list[int]:
    """Every index below n, or for a large n its first and last 1024 and 2048 spread between."""
    if n <= SAMPLED:
        return range(n)
    return sorted({*range(1024), *range(n - 1024, n), *range(0, n, max(1, n // 2048))})


def session_state(f, memory: tuple[int, int] | None = None) -> dict:
    """Everything a failed line must leave as it was, through the public API (and the dictionary's
    entries: which are IMMEDIATE, which was defined last). `memory`: (start, end) of data space to
    compare too (a failed line's own stores are kept, as documented: the runner asks for memory only
    around lines that store nothing)."""
    from tileforth.core.front.dictionary import is_immediate
    from tileforth.core.compile.state import StackView
    grid, block = f.launch_shape
    nthreads = math.prod(grid) * math.prod(block)
    warps = math.prod(grid) * -(-math.prod(block) // 32)
    tiles = []
    for w in _sample(warps):
        tiles.append([(t.kind, tuple(t.shape), str(t.dtype), str(t.layout), tuple(t.mnk),
                       t.values.dtype.str, t.values.shape, t.values.tobytes()) for t in f.tile_stack(w)])
    st = StackView.read(f.backend)
    lanes = _sample(nthreads)
    data = [st.data(k) for k in lanes]
    floats = [[struct.pack("<d", x) for x in st.floats(k)] for k in lanes]  # NaN-safe
    out = {"data": data, "floats": floats, "tiles": tiles,
           "dict": sorted((k, id(v)) for k, v in f.dict.items()), "here": f.here, "base": f.base(),
           "immediate": sorted(k for k, v in f.dict.items() if is_immediate(v)), "last": id(f.last_defined),
           "shape": f.launch_shape, "tile_config": repr(f.tile_config)}  # an open definition is abandoned on error (documented): not compared
    if memory is not None and memory[1] > memory[0]:
        out["memory"] = f.read_bytes(f.space.data_addr + memory[0], memory[1] - memory[0])
    return out


# words that may store into data space (a failed line keeps its stores, as documented), or run other code
WRITERS = {"TO", "+TO", "IS", "MOVE", "CMOVE", "CMOVE>", "FILL", "ERASE", "BLANK", "ACCEPT", "READ-FILE", "READ-LINE",
           "EXECUTE", "CATCH", "EVALUATE", "INCLUDED", "INCLUDE", "REQUIRE", "REQUIRED", "INCLUDE-FILE", "LOAD",
           "THRU", "AFILL", "ZEROS", "RAMP", "RANDOM", "IDENTITY", "LOAD-NPY", "TSTORE", "REPLACES", "SUBSTITUTE",
           "UNESCAPE", "PROFILE", "PROFILE{", "WORD", "PARSE", "PARSE-NAME", "BLOCK", "BUFFER", "FSHFL-XOR",
           "DEFER!", "MARKER", "POSTPONE", "[COMPILE]", "COMPILE,", "LITERAL", "SLITERAL", "REFILL", "RESTORE-INPUT",
           "SAVE-INPUT", "CREATE", "DOES>", "VALUE", "FVALUE", "2VALUE"}


def stores_nothing(f, line: str, builtin: set[str]) -> bool:
    """Whether a line can leave data space as it was: no storing word and no word the program defined."""
    for tok in line.upper().split():
        if "!" in tok or "," in tok or tok in WRITERS or "ATOMIC" in tok:
            return False
        if tok in f.dict and tok not in builtin:
            return False
    return True


def _diff(a: dict, b: dict) -> str:
    out = []
    for k in a:
        if a[k] != b[k]:
            if k == "dict":
                sa, sb = dict(a[k]), dict(b[k])
                out.append(f"dict: added {sorted(set(sb) - set(sa))[:5]} removed {sorted(set(sa) - set(sb))[:5]} "
                           f"changed {sorted(n for n in sa if n in sb and sa[n] != sb[n])[:5]}")
            else:
                out.append(f"{k}: {str(a[k])[:200]} -> {str(b[k])[:200]}")
    return "; ".join(out)


def run_program(prog: dict) -> dict:
    """Run one program in this process; returns {'status': 'ok'|'crash'|'corrupt', 'detail'}."""
    from tileforth.core import Forth, ForthError
    from tileforth.core.errors import Bye
    for name, data in prog.get("files", {}).items():
        Path(name).write_bytes(base64.b64decode(data) if isinstance(data, str) else data)
    if prog["kind"] == "kernel":
        from tileforth.export.kernelfile import parse_kernel_file, parse_param_values, run_kernel_file
        f = None
        try:
            spec = parse_kernel_file(prog["text"], "k.fth")
            values = parse_param_values(spec, list(prog["params"]))
            f = Forth(backend="cpu")
            f.step_budget = STEP_BUDGET
            run_kernel_file(f, spec, values, tuple(prog["grid"]), tuple(prog["block"]))
        except ForthError:
            pass
        except Exception:
            return {"status": "crash", "detail": traceback.format_exc(limit=-6)}
        finally:
            if f is not None:
                f.close()
        return {"status": "ok", "detail": ""}
    f = Forth(backend="cpu", checked=bool(prog.get("checked", True)))
    f.step_budget = STEP_BUDGET
    builtin = set(f.dict)
    here0 = f.here
    intr = prog.get("interrupt")
    errors: list[tuple[int, int | None, str]] = []  # each failed line's (index, code, message): recheck reads them
    os.write(2, f"{LINE_MARK}-1\n".encode())  # the setup (and so no line of an earlier program)
    try:
        if prog.get("setup"):
            try:
                f.eval(prog["setup"])
            except ForthError as e:
                return {"status": "crash", "detail": f"the setup line failed: {e}"}
        units = ["\n".join(prog["lines"])] if prog.get("spanning") else prog["lines"]
        for i, line in enumerate(units):
            memory = (here0, f.here) if stores_nothing(f, line, builtin) else None
            before = session_state(f, memory)
            delay = intr["delays"][min(i, len(intr["delays"]) - 1)] if intr else None
            os.write(2, f"{LINE_MARK}{i}\n".encode())  # on stderr: the line a worker that dies was running
            with Interrupter(f, intr["how"] if intr else None, delay, prog.get("stop_s", STOP_S)) as it:
                try:
                    it.run(lambda: f.eval(line, spanning=bool(prog.get("spanning"))))
                    failed = False
                except Bye:  # BYE drawn from the word list: the program ends there, as the REPL and the CLI end
                    break
                except ForthError as e:
                    failed = True
                    errors.append((i, e.code, e.message))
                except KeyboardInterrupt as e:  # Ctrl-C in Python (Jupyter's interrupt): the line is undone too
                    failed = "_eval" in _frames(e)  # (not when it came after the line had ended)
                except Exception:
                    return {"status": "crash", "detail": f"line {i + 1} {line!r}:\n" + traceback.format_exc(limit=-6)}
            if it.late is not None:
                return {"status": "hang", "detail": f"line {i + 1} {line!r} ran {it.late:.1f} s after the "
                                                     f"{it.how} that should have stopped it"}
            if failed:
                after = session_state(f, memory)
                if after != before:
                    return {"status": "corrupt", "detail": f"after failed line {i + 1} {line!r}: {_diff(before, after)}"}
    finally:
        try:
            f.close()
        except ForthError:  # UPDATEd blocks that could not be written back: reported (the CLI prints it)
            pass
    return {"status": "ok", "detail": "", "errors": errors}


# what a checked session reports where an unchecked one touches a wild address (the checks that
# --unchecked drops): -9 invalid memory address, -23 address alignment, and the words of the
# messages that have no code of their own (a tile reaching outside every allocation)
WILD_CODES = {-9, -23}
WILD_WORDS = re.compile(r"bad address|misaligned address|outside every allocation")


LINE_MARK = "fuzz: line "  # what the worker writes on stderr before each line (died_at reads it)


def is_wild(errors: list, upto: int | None = None) -> bool:
    """Whether a checked run's errors (run_program's "errors") include a bad or misaligned address,
    in a line no later than `upto` (the line the unchecked run died in: a later line cannot be why)."""
    return any((upto is None or i <= upto) and (code in WILD_CODES or WILD_WORDS.search(msg or ""))
               for i, code, msg in errors)


def died_at(stderr: str) -> int | None:
    """The line a worker was running when it died: the last LINE_MARK on its stderr (None: none)."""
    marks = re.findall(re.escape(LINE_MARK) + r"(-?\d+)", stderr)
    return int(marks[-1]) if marks else None


def recheck(w: "Worker", prog: dict, limit: float, stop_s: float, upto: int | None = None) -> dict:
    """Run an unchecked program that died of a signal (in line `upto`) again, checked: {'status':
    'wild'} when a checked run reports a wild address in that line or one before it, else
    {'status': 'signal'} with what the checked runs did. An interrupt changes which lines run to
    their end (an interrupted line is undone: `ELECT` interrupted leaves the stacks uniform, so a
    later STACK-SIZE succeeds, and the TYPE after it runs), so an interrupted program runs checked
    twice: with its own interrupt (its delays, as near as timing repeats) and without one (every
    line to its end, the step budget bounds its loops), unless it waits on purpose (WAITS), which
    only an interrupt ends."""
    waits = any(t in WAITS for line in prog["lines"] for t in line.split())
    tries = [dict(prog, checked=True, stop_s=stop_s)]
    if prog.get("interrupt") and not waits:
        tries.append({k: v for k, v in tries[0].items() if k != "interrupt"})
    seen = []
    for again in tries:
        res = w.run(again, limit)
        if res["status"] == "ok" and is_wild(res.get("errors", []), upto):
            return {"status": "wild", "detail": f"checked{' (interrupted)' if again.get('interrupt') else ''}: "
                                                f"{[e for e in res['errors'] if is_wild([e], upto)][:1]}"}
        seen.append(f"{res['status']} {res.get('errors') or res.get('detail', '')!s:.600}")
    return {"status": "signal", "detail": f"the checked runs (the unchecked one died in line {upto}): {seen}"}


def _frames(e: BaseException) -> set[str]:
    tb, names = e.__traceback__, set()
    while tb is not None:
        names.add(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    return names


STOP_S = 10.0  # a line still running this long after its interrupt: a hang (Ctrl-C must stop every loop and wait)


class Interrupter:
    """Interrupts one line from another thread, as the front ends do: "abort" calls backend.abort()
    every 0.05 s after `delay` until the line ends (the REPL's key watcher, the CLI's SIGINT thread);
    "sigint" sends SIGINT to this process once after `delay`, so a KeyboardInterrupt lands wherever
    the main thread is (Jupyter's interrupt). Measures how long the line ran after the first."""

    def __init__(self, f, how: str | None, delay: float | None, stop_s: float = 10.0) -> None:
        self.f, self.how, self.delay, self.stop_s = f, how, delay, stop_s
        self.done = threading.Event()
        self.first: float | None = None
        self.late: float | None = None
        self.in_eval = False

    def __enter__(self) -> "Interrupter":
        if self.how is not None:
            if self.how == "sigint":
                signal.signal(signal.SIGINT, self._handler)
            self.thread = threading.Thread(target=self._fire, daemon=True)
            self.thread.start()
        return self

    def _handler(self, signum, frame) -> None:
        if self.in_eval:
            raise KeyboardInterrupt

    def run(self, fn) -> None:
        self.in_eval = True
        try:
            fn()
        finally:
            self.in_eval = False

    def _fire(self) -> None:
        if self.done.wait(self.delay):
            return
        self.first = time.monotonic()
        if self.how == "sigint":
            os.kill(os.getpid(), signal.SIGINT)
            return
        while not self.done.is_set():
            self.f.backend.abort()
            self.done.wait(0.05)

    def __exit__(self, *exc) -> None:
        end = time.monotonic()
        self.done.set()
        if self.how is not None:
            self.thread.join()
            if self.how == "sigint":
                signal.signal(signal.SIGINT, signal.SIG_IGN)
            if self.first is not None and end - self.first > self.stop_s:
                self.late = end - self.first


def worker_main() -> None:
    """Programs as JSON lines on stdin, results as JSON lines on the original stdout; Forth's own
    output (EMIT, printing) goes to /dev/null, and stdin is /dev/null for the programs."""
    inp = os.fdopen(os.dup(0), "r")
    out = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    sys.stdin = open(os.devnull)
    sys.stdout = open(os.devnull, "w")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (an Interrupter's SIGINT lands only inside a line)
    from tileforth.core import Forth  # noqa: F401  (imported once, before the first program's clock)
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in inp:
        prog = json.loads(line)
        if prog.get("timeout"):  # where it is when the runner's clock runs out: on stderr, before the kill
            faulthandler.dump_traceback_later(max(1.0, prog["timeout"] - 3))
        try:
            res = run_program(prog)
        except BaseException:  # a bug in the worker itself counts as a crash too
            res = {"status": "crash", "detail": traceback.format_exc(limit=-6)}
        faulthandler.cancel_dump_traceback_later()
        gc.collect()  # the program's session is garbage in a cycle: its memory (GiBs at 4M threads) is counted
        res["rss_kb"] = _rss_kb()  # only while it is still in use (the figure a long run reports)
        out.write(json.dumps(res) + "\n")
        out.flush()


def _rss_kb() -> int:
    """This process's resident memory now (kB), from /proc."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


# A program still running when its time is up, with the main thread inside LLVM's code generation
# (the dump faulthandler writes before the kill says so): not a host loop that ignores Ctrl-C but
# a kernel that takes LLVM that long (a line of thousands of literals, `10000 PICK`: compile time
# grows faster than the static stack depth; the compiler's, counted apart as "compile").
COMPILING = "finalize_object"


class Worker:
    """A worker process in its own temporary folder; restarted after a crash or a timeout."""

    def __init__(self) -> None:
        self.dir = tempfile.TemporaryDirectory(prefix="tf-fuzz-")
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        env = dict(os.environ, PYTHONFAULTHANDLER="1")
        self.err = open(Path(self.dir.name) / "stderr.txt", "w+b")
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "worker"], cwd=self.dir.name,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, env=env)
        self.buf = b""
        if self._read_line(120) is None:
            raise RuntimeError(f"the fuzz worker did not start: {self.stderr()}")

    def stderr(self) -> str:
        """The end of the worker's stderr, with only the last of its line marks (LINE_MARK)."""
        self.err.flush()
        self.err.seek(0)
        text = self.err.read().decode(errors="replace")
        last = text.rfind(LINE_MARK) if LINE_MARK in text else len(text)
        head, tail = text[:last], text[last:]
        return "".join(s for s in head.splitlines(keepends=True) if not s.startswith(LINE_MARK))[-1000:] + tail[-3000:]

    def _read_line(self, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([fd], [], [], left)
            if r:
                chunk = os.read(fd, 65536)
                if not chunk:  # the worker closed its output: it is exiting
                    self.eof = True
                    return None
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def run(self, prog: dict, timeout: float) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        wire = dict(prog, timeout=timeout, files={k: base64.b64encode(v).decode() for k, v in prog.get("files", {}).items()})
        try:
            self.proc.stdin.write((json.dumps(wire) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        self.eof = False
        res = self._read_line(timeout)
        if res is not None:
            return res
        try:  # after the end of its output the worker is about to exit: wait for its status
            rc = self.proc.wait(timeout=10) if self.eof else self.proc.poll()
        except subprocess.TimeoutExpired:
            rc = None
        if rc is None:  # still running: a hang, unless it is inside LLVM's code generation (see COMPILING)
            where = self.stderr()
            self.kill()
            status = "compile" if COMPILING in where else "hang"
            return {"status": status, "detail": f"no result within {timeout:.0f} s:\n{where[-2500:]}"}
        detail = f"the worker exited with status {rc}: {self.stderr()}"
        self.kill()
        return {"status": "signal" if rc < 0 else "crash", "detail": detail}

    def kill(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc.stdin.close()
            self.proc.stdout.close()
            self.err.close()
            self.proc = None

    def close(self) -> None:
        self.kill()
        self.dir.cleanup()


def run_cli(args: list[str], files: dict[str, bytes], timeout: float) -> dict:
    """One `tileforth` command in a subprocess, in a fresh folder."""
    with tempfile.TemporaryDirectory(prefix="tf-fuzz-cli-") as d:
        for name, data in files.items():
            Path(d, name).write_bytes(data)
        try:
            p = subprocess.run([sys.executable, "-m", "tileforth.repl.cli", *args], cwd=d, capture_output=True,
                               timeout=timeout, stdin=subprocess.DEVNULL, env=dict(os.environ, PYTHONFAULTHANDLER="1"))
        except subprocess.TimeoutExpired:
            return {"status": "hang", "detail": f"no exit within {timeout:.0f} s"}
    err = p.stderr.decode(errors="replace")
    if p.returncode < 0:
        return {"status": "signal", "detail": f"signal {-p.returncode}: {err[-2000:]}"}
    if "Traceback (most recent call last)" in err or p.returncode not in (0, 1, 2):
        return {"status": "crash", "detail": f"exit {p.returncode}: {err[-2000:]}"}
    return {"status": "ok", "detail": ""}


# ---- the time limits, relative to the machine's speed -------------------------------------------------------
# a program every worker runs first (a session, compiles, a multi-block launch, a failed line's undo): its time
# says how fast the machine is now
CALIBRATION = {"kind": "forth", "cls": "calibration", "lines": [
    "1 2 + .", "64 1 1 GRID 64 1 1 THREADS GLOBAL-ID 100 0 DO I + LOOP DROP", ": sq DUP * ;  3 sq .",
    "1 1 1 GRID 32 1 1 THREADS 1 0 /"]}
CALIBRATION_RUNS = 3  # after one warm-up run; their median is the baseline
REFERENCE_S = 0.25  # CALIBRATION's time where the limits given hold as they are (2 cores, other sessions running)
MAX_SCALE = 10.0  # a baseline never stretches the limits more than this: a real hang is still found


def measure_baseline(w: "Worker") -> float:
    """CALIBRATION's time on worker w now (seconds; the median of CALIBRATION_RUNS after a warm-up)."""
    times = []
    for k in range(CALIBRATION_RUNS + 1):
        t0 = time.monotonic()
        res = w.run(CALIBRATION, 600)
        if res["status"] != "ok":
            raise RuntimeError(f"the calibration program failed: {res['detail']}")
        if k:
            times.append(time.monotonic() - t0)
    return sorted(times)[len(times) // 2]


def scale_of(baseline: float) -> float:
    """How much the limits stretch for a machine whose baseline is `baseline` (1 to MAX_SCALE)."""
    return min(MAX_SCALE, max(1.0, baseline / REFERENCE_S))


# ---- the runner -----------------------------------------------------------------------------------------
@dataclass
class Report:
    tried: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {"crash": 0, "hang": 0, "corrupt": 0, "signal": 0,
                                                            "compile": 0})
    unchecked: dict[str, int] = field(default_factory=lambda: {"crash": 0, "hang": 0, "corrupt": 0, "signal": 0,
                                                               "compile": 0, "wild": 0})
    by_class: dict[str, int] = field(default_factory=dict)
    by_mode: dict[str, int] = field(default_factory=dict)  # checked/unchecked, plain/abort/sigint
    failures: list[tuple[str, dict, str]] = field(default_factory=list)  # (status, program, detail)
    wild: list[tuple[str, dict, str]] = field(default_factory=list)  # unchecked deaths at a wild address (recheck)
    seconds: float = 0.0
    baselines: list[float] = field(default_factory=list)  # each worker's CALIBRATION time (measure_baseline)
    limits: list[float] = field(default_factory=list)  # each worker's time limit for a program, after scaling
    worker_rss_kb: list[int] = field(default_factory=list)  # each worker's last resident size
    max_rss_kb: int = 0  # the largest a worker grew to (every worker runs many programs)

    @property
    def failed(self) -> int:
        """Failures in checked and unchecked sessions alike; an unchecked session's death from a wild
        address (its checked run reports the address: recheck) is its documented risk, counted apart."""
        c, u = self.counts, self.unchecked
        return sum(c[k] + u[k] for k in ("crash", "hang", "corrupt", "signal"))

    def summary(self) -> str:
        c, u = self.counts, self.unchecked
        return (f"fuzz: {self.tried} programs tried in {self.seconds:.0f} s ({dict(sorted(self.by_class.items()))}; "
                f"{dict(sorted(self.by_mode.items()))}): checked sessions: {c['crash']} crashes, {c['hang']} hangs, "
                f"{c['corrupt']} corruptions, {c['signal']} segfaults ({c['compile']} slow compiles); unchecked sessions: {u['crash']} crashes, "
                f"{u['hang']} hangs, {u['corrupt']} corruptions, {u['signal']} signal deaths of programs whose checked run "
                f"touched no wild address, {u['wild']} wild accesses (documented unsafe) ({u['compile']} slow compiles); worker memory "
                f"{[k // 1024 for k in self.worker_rss_kb]} MB at the end, {self.max_rss_kb // 1024} MB at most; baseline "
                f"{[round(b, 2) for b in self.baselines]} s, so a hang past {[round(t) for t in self.limits]} s")

    def details(self, most: int = 10) -> str:
        out = []
        for status, prog, detail in self.failures[:most]:
            shown = {k: v for k, v in prog.items() if k != "files"}
            out.append(f"--- {status}: {json.dumps(shown)}\n{detail}")
        return "\n".join(out)


def _mode(prog: dict) -> str:
    intr = prog.get("interrupt")
    return ("checked" if prog.get("checked", True) else "unchecked") + "/" + (intr["how"] if intr else "plain")


def run_fuzz(seed: int = 0, programs: int | None = None, seconds: float | None = None, workers: int = 2,
             timeout: float = 30.0, cli_every: int = 25, words: list[str] | None = None,
             whole: bool = True, log=None) -> Report:
    """Generate programs from `seed` and run them on `workers` worker processes until `programs`
    have run or `seconds` have passed; every `cli_every`-th program is a CLI run instead. `whole`:
    the whole vocabulary's classes too (else the older ones only). `log`: a file each failure is
    written to as it is found. `timeout` (and STOP_S) are scaled by each worker's baseline
    (measure_baseline, scale_of) before its first program."""
    words = words or word_list()
    voc = vocab() if whole else None
    rng = random.Random(seed)
    lock = threading.Lock()
    report = Report()
    start = time.monotonic()
    jobs: queue.Queue = queue.Queue()
    n = 0

    def more() -> bool:
        if programs is not None and n >= programs:
            return False
        return seconds is None or time.monotonic() - start < seconds

    def feed(k: int) -> None:  # programs are drawn in order from one rng: the same seed, the same programs
        nonlocal n
        for _ in range(k):
            if not more():
                return
            n += 1
            if cli_every and n % cli_every == 0:
                args, files = cli_args(rng)
                jobs.put({"kind": "cli", "cls": "cli", "args": args, "files": files})
            else:
                jobs.put(generate(rng, words, voc))

    def loop(k: int) -> None:
        w = Worker()
        last_rss = 0
        try:
            baseline = measure_baseline(w)
            scale = scale_of(baseline)
            limit = timeout * scale
            with lock:
                report.baselines.append(baseline)
                report.limits.append(limit)
            while True:
                with lock:
                    if jobs.empty():
                        feed(4)
                    try:
                        prog = jobs.get_nowait()
                    except queue.Empty:
                        return
                if prog["kind"] == "cli":
                    res = run_cli(prog["args"], prog["files"], limit)
                else:
                    res = w.run(dict(prog, stop_s=STOP_S * scale), limit)
                    last_rss = res.get("rss_kb", last_rss)
                    if res["status"] == "signal" and prog["kind"] == "forth" and not prog.get("checked", True):
                        again = recheck(w, prog, limit, STOP_S * scale, died_at(res["detail"]))
                        res = dict(again, detail=res["detail"][-1500:] + "\n" + again["detail"])
                    if res["status"] == "hang":  # the machine may have slowed since: the next programs' limits
                        baseline = measure_baseline(w)  # follow it (the worker, killed, starts again)
                        if scale_of(baseline) > scale:
                            scale = scale_of(baseline)
                            limit = timeout * scale
                            with lock:
                                report.baselines.append(baseline)
                                report.limits.append(limit)
                with lock:
                    report.tried += 1
                    report.by_class[prog["cls"]] = report.by_class.get(prog["cls"], 0) + 1
                    report.max_rss_kb = max(report.max_rss_kb, last_rss)
                    if prog["kind"] == "forth":
                        m = _mode(prog)
                        report.by_mode[m] = report.by_mode.get(m, 0) + 1
                    if res["status"] != "ok":
                        table = report.counts if prog.get("checked", True) else report.unchecked
                        table[res["status"]] += 1
                        (report.wild if res["status"] == "wild" else report.failures).append(
                            (res["status"], prog, res["detail"]))
                        if log is not None:
                            shown = {k: v for k, v in prog.items() if k != "files"}
                            log.write(f"--- {res['status']}: {json.dumps(shown)}\n{res['detail']}\n")
                            log.flush()
        finally:
            with lock:
                report.worker_rss_kb.append(last_rss)
            w.close()

    threads = [threading.Thread(target=loop, args=(k,)) for k in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    report.seconds = time.monotonic() - start
    return report


if __name__ == "__main__":
    if sys.argv[1:2] == ["worker"]:
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
        worker_main()
    else:  # python tests/fuzz.py --minutes 15 --seed 1 --workers 2 --log fuzz.log: a long run
        import argparse
        ap = argparse.ArgumentParser(description="fuzz tileforth over its whole vocabulary")
        ap.add_argument("--minutes", type=float, default=1.0)
        ap.add_argument("--seed", type=int, default=0)
        ap.add_argument("--workers", type=int, default=2)
        ap.add_argument("--log", default=None, help="a file each failure is written to as it is found")
        ap.add_argument("--old", action="store_true", help="only the older classes (issue 10's)")
        a = ap.parse_args()
        with open(a.log, "a") if a.log else open(os.devnull, "w") as logf:
            rep = run_fuzz(seed=a.seed, seconds=a.minutes * 60, workers=a.workers, whole=not a.old, log=logf)
            print(rep.summary())
            print(rep.details(80))
            print(f"runner memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB at most")
