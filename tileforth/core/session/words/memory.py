"""Heap memory (Forth-2012 14): ALLOCATE FREE RESIZE.

The blocks and the operations on them are core/heap.py's. A line's own ALLOCATE runs here, on
the host, once for every thread (one block; all threads get its address). Inside a definition,
where the backend runs them in device code (caps.device_heap: the cpu backend), the definition
compiles (ALLOCATE) (FREE) (RESIZE) instead (compile/heapgen.py): each thread that runs one
allocates, frees or resizes a block of its own, without ending the launch. Elsewhere (cuda) a
definition runs them here, between launches, as it runs other host words. A block is device
memory, checked like any allocation.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...front.reader import Token
from .table import host

if TYPE_CHECKING:
    from ..interpreter import Forth


@host("ALLOCATE", "( u -- a-addr ior )", "Allocate u bytes (zeroed) on the backend; ior 0 on success. In a "
      "definition (on the cpu backend) each thread that runs it gets a block of its own.",
      "100 ALLOCATE . FREE . \\ 0 0", wordset="MEMORY", group="Memory (heap)")
def w_allocate(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "ALLOCATE")
    f.push_uniform(*f.heap.allocate(n))


@host("FREE", "( a-addr -- ior )", "Give back a block from ALLOCATE; ior 0 on success.",
      "100 ALLOCATE DROP FREE . \\ 0", wordset="MEMORY", group="Memory (heap)")
def w_free(f: "Forth", tok: Token) -> None:
    (addr,) = f.pop_uniform(1, "FREE")
    f.push_uniform(f.heap.free(addr))


@host("RESIZE", "( a-addr1 u -- a-addr2 ior )", "Move a block from ALLOCATE to one of u bytes, keeping "
      "its contents.", "8 ALLOCATE DROP 64 RESIZE . FREE . \\ 0 0", wordset="MEMORY", group="Memory (heap)")
def w_resize(f: "Forth", tok: Token) -> None:
    addr, n = f.pop_uniform(2, "RESIZE")
    f.push_uniform(*f.heap.resize(addr, n))
