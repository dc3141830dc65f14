"""A tile load or store whose stride reaches past every allocation is an error at the word, on the
warp-by-warp path and on the batched one, however large the stride (issue 26: a stride of 2^60
wrapped the span's 64-bit arithmetic around, passed the bounds check and crashed the emulator;
2^62 gave a Python IndexError). The session goes on as before."""
from __future__ import annotations

import pytest
from tileforth.core import Forth, ForthError

WORDS = ["TLOAD-A", "TLOAD-A-COL", "TLOAD-B", "TLOAD-B-COL"]
STRIDES = [1 << 40, 1 << 60, 1152921504606846976, 4611686018427387904, (1 << 63) - 8]


@pytest.mark.parametrize("threads", [32, 128])  # one warp: warp by warp; four: the batched path
@pytest.mark.parametrize("word", WORDS)
@pytest.mark.parametrize("stride", STRIDES)
def test_a_stride_past_every_allocation_is_an_error_at_the_word(threads, word, stride):
    f = Forth()
    f.eval(f"16 16 F16 MATRIX A  {threads} 1 1 THREADS  7")
    with pytest.raises(ForthError, match=rf"{word}: the tile at .* stride {stride}\) .*(past|outside) every allocation"):
        f.eval(f"A {stride} {word}")
    assert f.data_stack() == [7]
    assert f.eval("A 16 TLOAD-A TDROP DROP 1 .") == "1 "  # a good stride still loads


def test_an_accumulator_load_and_a_store_are_checked_too():
    f = Forth()
    f.eval("16 16 F32 MATRIX C")
    for line in ("C 1152921504606846976 TLOAD-C", "TZERO C 1152921504606846976 TSTORE"):
        with pytest.raises(ForthError, match="(past|outside) every allocation"):
            f.eval(line)
    assert f.tile_stack() == []
