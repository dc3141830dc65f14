"""Device arrays (tileforth's own words): ARRAY and MATRIX allocate them, the
element types (I8 ... F64) name what they hold; the limits of their size,
and what a portable export must not bake in of them (export_memory)."""
from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

from ...errors import ForthError
from ...front.dictionary import Constant
from ...front.reader import Token
from ...lazy import np
from ...compile.eltypes import BY_CODE, ELTYPES
from .definitions import _define
from .table import NEW_NAME, constant, host
from .textin import _name

if TYPE_CHECKING:
    from ..interpreter import Forth


DEVICE_ARRAY_MAX = 1 << 40  # bytes: beyond any GPU's memory (the driver refuses less when it has less)


def array_bytes_max(backend) -> int:
    """The most bytes one array may have: the host's physical memory on the
    cpu backend (its arrays are host memory, and numpy would map more lazily,
    then be killed when it is touched), otherwise DEVICE_ARRAY_MAX."""
    return host_memory_bytes() if backend.caps.host_memory else DEVICE_ARRAY_MAX


def host_memory_bytes() -> int:
    """The host's physical memory (DEVICE_ARRAY_MAX where it cannot be told)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return DEVICE_ARRAY_MAX


def alloc_array(f: "Forth", shape: tuple[int, ...], et, what: str) -> int:
    """Allocate an array of `shape` elements of type `et`, or refuse with its
    size and the limit (a ForthError, never a MemoryError)."""
    dims = "x".join(map(str, shape))
    nbytes = math.prod(shape) * et.size  # Python ints: no int64 overflow
    most = array_bytes_max(f.backend)
    if nbytes > most:
        raise ForthError(f"{what}: a {dims} {et.name} array is {nbytes:,} bytes, more than the {most:,} bytes "
                         f"an array may have on the {f.backend.name} backend; make it smaller")
    try:
        return f.backend.array_alloc(nbytes)
    except MemoryError:
        raise ForthError(f"{what}: not enough memory for a {dims} {et.name} array ({nbytes:,} bytes); "
                         "make it smaller or free memory") from None


def export_memory(f: "Forth"):
    """What a portable export (word_ptx) must not bake in: the session's
    ARRAY/MATRIX names (each becomes a kernel parameter, named after it),
    its data space (copied into the kernel, as far as HERE) and every other
    allocation (refused). SHARED: names need nothing: an export declares its
    own shared memory."""
    from ...compile.compiler import SessionMemory
    arrays: dict[int, tuple[str, int]] = {}
    taken: set[str] = set()
    for wl in f.wordlists:
        for entry in wl.values():
            if isinstance(entry, Constant) and entry.array is not None and entry.array[0] not in arrays:
                addr, shape, et = entry.array
                name, n = entry.name, 2
                while name.upper() in taken:  # a redefined name: both arrays may be named
                    name, n = f"{entry.name}_{n}", n + 1
                taken.add(name.upper())
                arrays[addr] = (name, math.prod(shape) * et.size)
    sizes = f.backend.allocation_sizes()
    others = {a: ("PAD" if a == f.pad_addr else "memory the session allocated", int(n))
              for a, n in dict(sizes).items() if a not in arrays and a != f.data_addr}
    here = min(f.here, f.data_space_size)
    data = bytes(np.asarray(f.backend.read(f.data_addr, here)).view(np.uint8)) if here else b""
    return SessionMemory(arrays, f.data_addr, data, f.data_space_size, others)


def _typed(f: "Forth", tok: Token, dims: int, word: str) -> None:
    name = _name(f, tok)
    vals = f.pop_uniform(dims + 1, word)
    shape, code = tuple(vals[:-1]), vals[-1]
    et = BY_CODE.get(code)
    if et is None:
        raise ForthError(f"{word} needs an element type on top, e.g. `16 F32 {word} name`")
    if min(shape) < 1:
        raise ForthError(f"{word} needs positive sizes, got {shape}")
    addr = alloc_array(f, shape, et, word)
    # checked tile loads and float words compare their type with it (the metadata names it)
    f.backend.set_element_type(addr, np.dtype(et.dtype, metadata={"name": name.text, "shape": shape}))
    on = f" on device {f.backend.array_device(addr)}" if f.backend.device_count() > 1 else ""
    _define(f, Constant(name.text, addr, help=f"( -- addr ) {'x'.join(map(str, shape))} {et.name} array{on}",
                        array=(addr, shape, et)))


@host("ARRAY", "( n type -- )", "Allocate a zeroed device array of n elements; the name pushes its address.",
      "16 F32 ARRAY xs", wordset="tileforth", parses=NEW_NAME)
def w_array(f: "Forth", tok: Token) -> None:
    _typed(f, tok, 1, "ARRAY")


@host("MATRIX", "( rows cols type -- )", "Allocate a zeroed row-major device matrix.", "16 16 F16 MATRIX a",
      wordset="tileforth", parses=NEW_NAME)
def w_matrix(f: "Forth", tok: Token) -> None:
    _typed(f, tok, 2, "MATRIX")


for _t in ELTYPES:  # the type codes ARRAY, MATRIX, TILE-IN and TILE-ACC take
    constant(_t.name, "( -- type )", f"The {_t.name} element type ({_t.dtype_name}, {_t.size} bytes) for ARRAY and "
             "MATRIX.", f"8 {_t.name} ARRAY xs", wordset="tileforth", group="Element types", value=_t.code)
