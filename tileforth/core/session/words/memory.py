"""Heap memory and text substitution on the host (Forth-2012 14 and 17.6.2):

    ALLOCATE FREE RESIZE DUMP    REPLACES SUBSTITUTE UNESCAPE

ALLOCATE takes memory from the backend as ARRAY does (device memory on the
cuda backend, checked like any allocation), so device code can use it; the
session remembers each block's size for FREE and RESIZE. The text words work
on strings in memory that the host reads and writes between launches.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ForthError
from ...front.reader import Token
from .table import host

if TYPE_CHECKING:
    from ..interpreter import Forth


IOR_ALLOCATE, IOR_FREE, IOR_RESIZE = -59, -60, -61  # Forth-2012 table 9.1
HEAP_MAX = 1 << 34  # bytes one ALLOCATE may ask for before it answers with an ior


def _alloc(f: "Forth", n: int) -> int | None:
    if n < 0 or n > HEAP_MAX:
        return None
    try:
        addr = f.backend.alloc(max(n, 1))  # zeroed, on every backend
    except (MemoryError, ForthError):
        return None
    f.heap[addr] = n
    return addr


@host("ALLOCATE", "( u -- a-addr ior )", "Allocate u bytes (zeroed) on the backend; ior 0 on success.",
      "100 ALLOCATE . FREE . \\ 0 0", wordset="MEMORY", group="Memory (heap)")
def w_allocate(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "ALLOCATE")
    addr = _alloc(f, n)
    f.push_uniform(0, IOR_ALLOCATE) if addr is None else f.push_uniform(addr, 0)


@host("FREE", "( a-addr -- ior )", "Give back a block from ALLOCATE; ior 0 on success.",
      "100 ALLOCATE DROP FREE . \\ 0", wordset="MEMORY", group="Memory (heap)")
def w_free(f: "Forth", tok: Token) -> None:
    (addr,) = f.pop_uniform(1, "FREE")
    if addr not in f.heap:
        f.push_uniform(IOR_FREE)
        return
    del f.heap[addr]
    f.backend.free(addr)
    f.push_uniform(0)


@host("RESIZE", "( a-addr1 u -- a-addr2 ior )", "Move a block from ALLOCATE to one of u bytes, keeping "
      "its contents.", "8 ALLOCATE DROP 64 RESIZE . FREE . \\ 0 0", wordset="MEMORY", group="Memory (heap)")
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
