"""Heap memory and text substitution on the host (Forth-2012 14 and 17.6.2):

    ALLOCATE FREE RESIZE DUMP    REPLACES SUBSTITUTE UNESCAPE

ALLOCATE takes memory from the backend as ARRAY does (device memory on the
cuda backend, checked like any allocation), so device code can use it; the
session remembers each block's size for FREE and RESIZE. The text words work
on strings in memory that the host reads and writes between launches.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..errors import ForthError
from ..front.dictionary import HostWord
from ..front.reader import Token
from ..lazy import np

if TYPE_CHECKING:
    from .interpreter import Forth

IOR_ALLOCATE, IOR_FREE, IOR_RESIZE = -59, -60, -61  # Forth-2012 table 9.1
HEAP_MAX = 1 << 34  # bytes one ALLOCATE may ask for before it answers with an ior


def _alloc(f: "Forth", n: int) -> int | None:
    if n < 0 or n > HEAP_MAX:
        return None
    try:
        addr = f.backend.alloc(max(n, 1))
    except (MemoryError, ForthError):
        return None
    f.backend.write(addr, np.zeros(max(n, 1), np.uint8))
    f.heap[addr] = n
    return addr


def w_allocate(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "ALLOCATE")
    addr = _alloc(f, n)
    f.push_uniform(0, IOR_ALLOCATE) if addr is None else f.push_uniform(addr, 0)


def w_free(f: "Forth", tok: Token) -> None:
    (addr,) = f.pop_uniform(1, "FREE")
    if addr not in f.heap:
        f.push_uniform(IOR_FREE)
        return
    del f.heap[addr]
    f.backend.free(addr)
    f.push_uniform(0)


def w_resize(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "RESIZE")
    heap = f.heap
    if addr not in heap:
        f.push_uniform(addr, IOR_RESIZE)
        return
    new = _alloc(f, n)
    if new is None:
        f.push_uniform(addr, IOR_RESIZE)
        return
    keep = min(heap[addr], n)
    if keep:
        f.backend.write(new, f.backend.read(addr, keep))
    del heap[addr]
    f.backend.free(addr)
    f.push_uniform(new, 0)


def w_dump(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "DUMP")
    data = f.read_bytes(addr, n)
    lines = []
    for off in range(0, len(data), 16):
        chunk = data[off:off + 16]
        text = "".join(chr(c) if 32 <= c < 127 else "." for c in chunk)
        lines.append(f"{addr + off:012X}: {' '.join(f'{c:02X}' for c in chunk):<47}  {text}\n")
    f.print_text("".join(lines))


# ---- text substitution (STRING-EXT) -------------------------------------------------------
def w_replaces(f: "Forth", tok: Token) -> None:
    a1, n1, a2, n2 = f.pop_uniform(4, "REPLACES")
    f.substitutions[f.read_bytes(a2, n2).upper()] = f.read_bytes(a1, n1)


_NAME = re.compile(rb"%([^%]*)%")


def w_substitute(f: "Forth", tok: Token) -> None:
    a1, n1, a2, n2 = f.pop_uniform(4, "SUBSTITUTE")
    subs = f.substitutions
    count = 0

    def repl(m: re.Match) -> bytes:
        nonlocal count
        name = m.group(1)
        if not name:
            return b"%"  # %% is one %
        if name.upper() in subs:
            count += 1
            return subs[name.upper()]
        return m.group(0)  # an unknown name stays as it was
    out = _NAME.sub(repl, f.read_bytes(a1, n1))
    if len(out) > n2:
        f.push_uniform(a2, 0, -78)  # the result does not fit the buffer (ior: ambiguous, negative)
        return
    if out:
        f.backend.write(a2, np.frombuffer(out, np.uint8))
    f.push_uniform(a2, len(out), count)


def w_unescape(f: "Forth", tok: Token) -> None:
    a1, n1, a2 = f.pop_uniform(3, "UNESCAPE")
    out = f.read_bytes(a1, n1).replace(b"%", b"%%")
    if out:
        f.backend.write(a2, np.frombuffer(out, np.uint8))
    f.push_uniform(a2, len(out))


HEAP_WORDS: list[HostWord] = [
    HostWord("ALLOCATE", "( u -- a-addr ior )", "Allocate u bytes (zeroed) on the backend; ior 0 on success.",
             w_allocate, "100 ALLOCATE . FREE . \\ 0 0", group="Memory (heap)"),
    HostWord("FREE", "( a-addr -- ior )", "Give back a block from ALLOCATE; ior 0 on success.", w_free,
             "100 ALLOCATE DROP FREE . \\ 0", group="Memory (heap)"),
    HostWord("RESIZE", "( a-addr1 u -- a-addr2 ior )", "Move a block from ALLOCATE to one of u bytes, keeping "
             "its contents.", w_resize, "8 ALLOCATE DROP 64 RESIZE . FREE . \\ 0 0", group="Memory (heap)"),
    HostWord("DUMP", "( addr u -- )", "Print u bytes from addr in hex and as text.", w_dump,
             'S" hi" DUMP', group="Memory (heap)"),
    HostWord("REPLACES", "( c-addr1 u1 c-addr2 u2 -- )", "Let SUBSTITUTE replace %name% (name: string 2) "
             "with string 1.", w_replaces, 'S" world" S" who" REPLACES', group="Memory (heap)"),
    HostWord("SUBSTITUTE", "( c-addr1 u1 c-addr2 u2 -- c-addr2 u3 n )", "Copy string 1 into the buffer "
             "c-addr2 u2, replacing each %name% given by REPLACES (and %% by %); n: how many, or negative if it "
             "does not fit.", w_substitute,
             'S" Forth" S" lang" REPLACES S" hello %lang%" PAD 84 SUBSTITUTE . TYPE \\ 1 hello Forth',
             group="Memory (heap)"),
    HostWord("UNESCAPE", "( c-addr1 u1 c-addr2 -- c-addr2 u2 )", "Copy a string doubling each %, so SUBSTITUTE "
             "leaves it as it is.", w_unescape, 'S" 100%" PAD UNESCAPE TYPE \\ 100%%', group="Memory (heap)"),
]
