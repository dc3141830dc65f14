"""Large zeroed arrays in memory of their own: an anonymous mapping per array, which goes back to
the system when the array is collected, and whose pages cost nothing until they are touched.

Why not np.zeros: glibc raises its mmap threshold each time a mapped block is freed, so the next
blocks of that size come from the heap instead; freed there, they stay in the process (a heap
shrinks only from its top). A session's buffers (its data space, output buffer, the race
detector's shadows) are such blocks: every dropped session kept about 7 MiB
(benchmarks/memory.py, "dropped sessions"). Small arrays stay on the heap.
"""
from __future__ import annotations

import math
import mmap

from .lazy import np

OWN_MAPPING_BYTES = 128 << 10  # glibc's initial mmap threshold: smaller arrays are np.zeros
HUGE_PAGES_BYTES = 4 << 20  # numpy's threshold for asking for transparent huge pages


def zeroed(shape: int | tuple[int, ...], dtype, *, populate: bool = False, huge: bool = True) -> "np.ndarray":
    """np.zeros(shape, dtype), in a mapping of its own when it is large. `populate`: its pages
    are mapped in one call (MAP_POPULATE), for an array the caller fills at once; page by page,
    as first touched, they cost about twice as much. `huge`: transparent huge pages asked for
    (MADV_HUGEPAGE) past HUGE_PAGES_BYTES; False for an array written once in one pass, for which
    the kernel's compaction to find 2 MiB pages (defrag=madvise) costs more than the pages save
    (4.3M threads' records, 1.2 GiB: 9.3-11.4 s to fault with them, 2.8-4.2 s without)."""
    dtype = np.dtype(dtype)
    count = math.prod(shape) if isinstance(shape, tuple) else shape
    nbytes = count * dtype.itemsize
    if nbytes < OWN_MAPPING_BYTES or not hasattr(mmap, "MAP_ANONYMOUS"):
        return np.zeros(shape, dtype)
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
    if populate and hasattr(mmap, "MAP_POPULATE"):
        flags |= mmap.MAP_POPULATE
    mem = mmap.mmap(-1, nbytes, flags=flags)
    if huge and nbytes >= HUGE_PAGES_BYTES and hasattr(mmap, "MADV_HUGEPAGE"):
        mem.madvise(mmap.MADV_HUGEPAGE)  # as numpy does: a read of untouched memory maps 2 MiB at once
    return np.frombuffer(mem, dtype, count).reshape(shape)  # the array keeps the mapping; unmapped with it
