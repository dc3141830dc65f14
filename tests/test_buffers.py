"""tileforth/core/buffers.zeroed: large zeroed arrays in mappings of their own, so a dropped session gives
its memory back to the system (glibc keeps freed heap blocks; benchmarks/memory.py has the
figure, "dropped sessions"). The reference is np.zeros: the same values, shape and dtype."""
from __future__ import annotations

import gc
import mmap
import weakref

import numpy as np
import pytest
from tileforth.core import Forth
from tileforth.core.buffers import OWN_MAPPING_BYTES, zeroed


def mapping(a: np.ndarray) -> mmap.mmap | None:
    base = a
    while base is not None and not isinstance(base, mmap.mmap):
        base = getattr(base, "base", None) if isinstance(base, np.ndarray) else getattr(base, "obj", None)
    return base


@pytest.mark.parametrize("shape,dtype", [((3, 5), np.int64), (OWN_MAPPING_BYTES - 1, np.uint8),
                                         (OWN_MAPPING_BYTES, np.uint8), ((1000, 1296), np.uint8),
                                         ((70_000, 4), np.int64), (3_000_000, np.float32)])
@pytest.mark.parametrize("populate", [False, True])
def test_zeroed_is_np_zeros(shape, dtype, populate):
    a = zeroed(shape, dtype, populate=populate)
    ref = np.zeros(shape, dtype)
    assert a.shape == ref.shape and a.dtype == ref.dtype and a.flags.writeable and a.flags.c_contiguous
    np.testing.assert_array_equal(a, ref)
    a[...] = 7
    assert int(a.sum()) == 7 * ref.size
    assert (mapping(a) is not None) == (ref.nbytes >= OWN_MAPPING_BYTES)


def test_a_dropped_sessions_buffers_are_unmapped():
    """The data space, the output buffer and the race detector's shadows of a session are mappings
    of their own; once the session is collected, they are gone (the mmap objects are freed, which
    unmaps them)."""
    f = Forth(backend="cpu")
    f.eval("VARIABLE V  LANE-ID DROP")
    maps = [mapping(a) for a in (f.backend._buffers[f.data_addr], f.backend.out)]
    maps += [mapping(s) for s in f.backend.races.shadows.values() if s.nbytes >= OWN_MAPPING_BYTES]
    assert len(maps) >= 3 and all(m is not None for m in maps), maps
    refs = [weakref.ref(m) for m in maps]
    del f, maps
    gc.collect()  # the session; its finalizer lets go of the backend,
    gc.collect()  # which the next collection frees (a cycle: its target holds its compile_word)
    assert [r() for r in refs] == [None] * len(refs)
