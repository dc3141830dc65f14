"""The values of a warp's tiles at a step debugger's stop (Debugger.tile/tiles/tile_view, DTILE), against
numpy of what the program loaded and multiplied: at each stop the tile stack holds what it held just before
the word, in a warp of a one-warp block, in the second warp of a block, in a block with shared memory (the
launch's warp ops go block by block) and without (they go batched over the blocks)."""
import numpy as np
import pytest

from tileforth.core import Forth
from tileforth.core.errors import ForthError


def _session(checked: bool = True, shared: bool = False) -> tuple[Forth, np.ndarray, np.ndarray]:
    f = Forth(backend="cpu", checked=checked)
    f.eval("16 16 F16 MATRIX A  16 16 F16 MATRIX B" + ("  64 CELLS SHARED: sh" if shared else ""))
    rng = np.random.default_rng(7)
    a = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    b = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    f.set_array("A", a)
    f.set_array("B", b)
    return f, a.astype(np.float32), b.astype(np.float32)


def _run_to(d, word: str, warp: int | None = None):
    for _ in range(2000):
        v = d.view()
        if v.word.upper() == word.upper() and (warp is None or v.warp == warp):
            return v
        assert not v.finished, f"never reached {word}"
        d.step()
    raise AssertionError(f"never reached {word}")


def _grid(text: str) -> np.ndarray:
    """The 16x16 numbers of a shown tile: its rows, each its index then 16 values (under a header of 0..15)."""
    lines = text.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.split() == [str(c) for c in range(16)])
    rows = [ln.split() for ln in lines[at + 1:at + 17]]
    assert [r[0] for r in rows] == [str(r) for r in range(16)]
    return np.array([[float(x) for x in r[1:]] for r in rows])


@pytest.mark.parametrize("checked", [True, False])
@pytest.mark.parametrize("shared", [False, True])
def test_tile_values_at_each_stop_match_numpy(checked, shared):
    f, a, b = _session(checked, shared)
    d = f.debug("TZERO A 16 TLOAD-A B 16 TLOAD-B TMMA 3e TSCALE TDROP")
    _run_to(d, "A")  # after TZERO: one accumulator of zeros
    assert [t.kind for t in d.tiles()] == ["acc"]
    np.testing.assert_array_equal(d.tile(0).values, np.zeros((16, 16), np.float32))
    _run_to(d, "TMMA")  # acc a b: b on top, then a
    stack = d.tiles()
    assert [t.kind for t in stack] == ["acc", "a", "b"]
    assert [t.shape for t in stack] == [(16, 16)] * 3
    np.testing.assert_array_equal(d.tile(0).values, b)
    np.testing.assert_array_equal(d.tile(1).values, a)
    np.testing.assert_array_equal(d.tile(2).values, np.zeros((16, 16)))
    _run_to(d, "3e")  # after TMMA: acc = 0 + a.b
    np.testing.assert_allclose(d.tile(0).values, a @ b, rtol=0, atol=0)
    assert d.tile(0).dtype == "f32" and d.tile(0).mnk == (16, 16, 16)
    _run_to(d, "TDROP")  # after TSCALE
    np.testing.assert_allclose(d.tile(0).values, 3 * (a @ b), rtol=0, atol=0)
    d.run_to_end()
    assert f.tile_stack() == []  # the line's own result: TDROP left nothing


def test_the_second_warp_of_a_block_has_its_own_tiles():
    f, a, b = _session()
    f.eval("1 1 1 GRID 64 1 1 THREADS")
    # warp 1 loads B where warp 0 loads A
    d = f.debug("TID-X 32 / IF B ELSE A THEN 16 TLOAD-A TDROP")
    _run_to(d, "TDROP", warp=0)
    np.testing.assert_array_equal(d.tile(0).values, a)
    np.testing.assert_array_equal(d.tile(0, warp=0).values, a)
    d.step_sync()  # warp 0 runs to its end, warp 1 runs
    _run_to(d, "TDROP", warp=1)
    np.testing.assert_array_equal(d.tile(0).values, b)
    d.run_to_end()


def test_dtile_shows_the_entry_as_tile_shows_the_top():
    f, a, b = _session()
    f.eval("DEBUG TZERO A 16 TLOAD-A B 16 TLOAD-B TMMA TDROP")
    for _ in range(7):  # TZERO A 16 TLOAD-A B 16 TLOAD-B: the next word is TMMA
        f.eval("DSTEP")
    text = f.eval("1 DTILE")
    assert "a 16x16 f16: entry 1 below the top of the tile stack <3> of warp 0 of block 0" in text
    np.testing.assert_array_equal(_grid(text), a)
    text = f.eval("0 DTILE")
    assert "b 16x16 f16: the top of the tile stack <3>" in text
    with pytest.raises(ForthError, match="holds 3 tiles at this stop, so entry 3 is not there"):
        f.eval("3 DTILE")
    f.eval("DQUIT")
    with pytest.raises(ForthError, match="none is being debugged"):
        f.eval("0 DTILE")


def test_an_empty_tile_stack_is_said_so():
    f, _, _ = _session()
    d = f.debug("TZERO TDROP")
    assert d.tiles() == []
    with pytest.raises(ForthError, match="tile stack of warp 0 is empty at this stop"):
        d.tile(0)
    d.quit()
