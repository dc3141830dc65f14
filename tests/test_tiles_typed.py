"""Typed memory and tiles: in checked mode a tile load or store refuses an
ARRAY or MATRIX whose element type differs from the tile's (the emulator,
tileforth/backends/cpu/warpops.py):

    16 16 F32 MATRIX C  C 16 TLOAD-A
    \\ error: TLOAD-A: C is a 16x16 F32 matrix, but the tile is an a operand of f16, …

Matching types work as before, unchecked mode reads the bytes as it always
did, and untyped memory (CREATE ALLOT) is not checked.
"""

import forthtest
import numpy as np
import pytest
from tileforth.core import Forth
from tiletest import ACC_DTYPE, BF16, IN_DTYPE, assert_mma, fails, kinds, rand_int, settings, tile_session

RNG = np.random.default_rng(12)
TYPES = ["I8", "I16", "I32", "I64", "F16", "BF16", "F32", "F64"]
DTYPE = {"I8": np.int8, "I16": np.int16, "I32": np.int32, "I64": np.int64, "F16": np.float16, "BF16": BF16,
         "F32": np.float32, "F64": np.float64}
OPERAND_LOADS = ["TLOAD-A", "TLOAD-B", "TLOAD-A-COL", "TLOAD-B-COL"]


def setup(f):
    """One 16x16 matrix of every element type, M<type> (M-F16, M-F32, ...)."""
    f.eval(" ".join(f"16 16 {t} MATRIX M-{t}" for t in TYPES))
    for t in TYPES:
        f.set_array(f"M-{t}", rand_int(RNG, (16, 16), DTYPE[t]))
    return f


@pytest.fixture
def f(request):
    return setup(tile_session(request.module.__name__))


# ------------------------------------------------------------ refused

def other(tiles):
    """(tile type, memory type) for each memory type that is not the tile's."""
    return [(t, m) for t in tiles for m in TYPES if m.lower() != t]


@pytest.mark.parametrize("word", OPERAND_LOADS)
@pytest.mark.parametrize("tile, mem", other(["f16", "bf16"]))
def test_operand_load_of_another_type_is_refused(f, word, tile, mem):
    settings(f, in_type=tile)
    src = f"1 DROP M-{mem} 16 {word}"
    err = fails(f, src, f"{word}: M-{mem} is a 16x16 {mem} matrix, but the tile is a",
                f"operand of {tile}", f"read as {tile}", f"eclare M-{mem} {tile.upper()} (",
                f"`16 16 {tile.upper()} MATRIX M-{mem}`", word=word, col=src.index(word) + 1,
                arrays=[f"M-{mem}"])
    if mem in ("F16", "BF16"):                        # the other input type: say how to use it
        assert f"use {mem} tiles (`{mem} TILE-IN`" in str(err)
    else:
        assert "Tensor-core operands are f16 or bf16" in str(err)


@pytest.mark.parametrize("acc, mem", other(["f32", "f16"]))
def test_accumulator_load_of_another_type_is_refused(f, acc, mem):
    settings(f, acc=acc)
    err = fails(f, f"M-{mem} 16 TLOAD-C", f"TLOAD-C: M-{mem} is a 16x16 {mem} matrix, but the tile is an "
                f"accumulator of {acc}, so its bytes would be read as {acc}", word="TLOAD-C",
                col=len(f"M-{mem} 16 ") + 1)
    if mem in ("F16", "F32"):
        assert f"use {mem} tiles (`{mem} TILE-ACC`" in str(err)
    else:
        assert "Accumulators are f32 or f16" in str(err)


@pytest.mark.parametrize("acc, mem", other(["f32", "f16"]))
def test_store_to_another_type_is_refused_and_writes_nothing(f, acc, mem):
    settings(f, acc=acc)
    f.eval("3e TFILL")
    fails(f, f"M-{mem} 16 TSTORE", f"TSTORE: M-{mem} is a 16x16 {mem} matrix, but the tile is an accumulator "
          f"of {acc}, so its bytes would be written as {acc}", word="TSTORE", col=len(f"M-{mem} 16 ") + 1,
          arrays=[f"M-{mem}"])
    assert kinds(f) == ["acc"]
    f.eval("TDROP")


def test_the_issue_example_and_a_definition(f):
    """`16 16 F32 MATRIX C … C 16 TLOAD-A`, at the word's position, inside a
    definition too; an address inside the matrix names the offset."""
    f.eval("16 16 F32 MATRIX C")
    fails(f, "TZERO\nC 16 TLOAD-A", "TLOAD-A: C is a 16x16 F32 matrix, but the tile is an a operand of f16",
          "declare C F16 (`16 16 F16 MATRIX C`)", word="TLOAD-A", line=2, col=6)
    f.eval(": lb ( addr -- ) 16 TLOAD-B ;  : use-c  C 128 + lb TDROP ;")
    err = fails(f, "use-c", "the tile (at C+128) is a b operand of f16 in lb", word="TLOAD-B")
    assert err.line == 1 and err.col == 21      # TLOAD-B in lb's definition


def test_a_long_tile_of_the_wrong_type_says_the_type_not_the_bounds(f):
    """An f32 accumulator is twice the bytes of an f16 matrix: the type is the mistake."""
    fails(f, "TZERO M-F16 16 TSTORE", "M-F16 is a 16x16 F16 matrix", "use F16 tiles (`F16 TILE-ACC`",
          word="TSTORE", arrays=["M-F16"])


def test_arrays_too(f):
    f.eval("512 F32 ARRAY V32")
    fails(f, "V32 16 TLOAD-A", "V32 is a 512 F32 array", "`512 F16 ARRAY V32`", word="TLOAD-A")


# ------------------------------------------------------------ matching types work

@pytest.mark.parametrize("word", OPERAND_LOADS)
@pytest.mark.parametrize("tile", ["f16", "bf16"])
def test_operand_load_of_its_type(f, word, tile):
    settings(f, in_type=tile)
    f.eval(f"M-{tile.upper()} 16 {word}")
    (t,) = f.tile_stack()
    m = f.array(f"M-{tile.upper()}").astype(np.float32)
    assert (t.values == (m.T if word.endswith("-COL") else m)).all()
    assert t.dtype == tile
    f.eval("TDROP")


@pytest.mark.parametrize("acc", ["f32", "f16"])
def test_accumulator_load_and_store_of_its_type(f, acc):
    settings(f, acc=acc)
    m = f"M-{acc.upper()}"
    before = f.array(m)
    f.eval(f"{m} 16 TLOAD-C 2e TSCALE {m} 16 TSTORE")
    assert f.array(m).dtype == ACC_DTYPE[acc]
    assert (f.array(m) == (before.astype(np.float32) * 2).astype(ACC_DTYPE[acc])).all()
    f.set_array(m, before)


@pytest.mark.parametrize("tin, acc", [("f16", "f32"), ("f16", "f16"), ("bf16", "f32")])
def test_mma_with_matching_matrices_equals_numpy(f, tin, acc):
    settings(f, in_type=tin, acc=acc)
    a, b = rand_int(RNG, (16, 16), IN_DTYPE[tin]), rand_int(RNG, (16, 16), IN_DTYPE[tin])
    c = rand_int(RNG, (16, 16), ACC_DTYPE[acc])
    name = f"X-{tin}-{acc}"
    f.eval(f"16 16 {tin.upper()} MATRIX {name}A 16 16 {tin.upper()} MATRIX {name}B "
           f"16 16 {acc.upper()} MATRIX {name}C")
    f.set_array(f"{name}A", a)
    f.set_array(f"{name}B", b)
    f.set_array(f"{name}C", c)
    f.eval(f"{name}C 16 TLOAD-C {name}A 16 TLOAD-A {name}B 16 TLOAD-B TMMA {name}C 16 TSTORE")
    assert_mma(f.array(f"{name}C"), [(a, b)], c, acc)


def test_a_freed_array_leaves_the_table():
    f = forthtest.new_forth()
    f.eval("16 16 F32 MATRIX GONE")
    addr = f.dict["GONE"].value
    assert f.backend.elem_types[addr] == np.float32
    f.backend.free(addr)
    assert addr not in f.backend.elem_types


# ------------------------------------------------------------ unchecked mode, untyped memory

def test_unchecked_mode_reads_and_writes_the_bytes():
    f = Forth(backend="cpu", checked=False)
    f.eval("16 16 F32 MATRIX C  16 16 F16 MATRIX H")
    c = rand_int(RNG, (16, 16), np.float32)
    f.set_array("C", c)
    f.eval("C 16 TLOAD-A")
    (t,) = f.tile_stack()
    assert (t.values == c.ravel().view(np.float16)[:256].reshape(16, 16).astype(np.float32)).all()
    f.eval("TDROP F16 TILE-ACC 3e TFILL C 16 TSTORE F32 TILE-ACC")
    assert (f.array("C").ravel().view(np.float16)[:256] == 3).all()
    assert (f.array("C").ravel()[128:] == c.ravel()[128:]).all()


def test_untyped_memory_is_not_checked(f):
    """CREATE ALLOT memory has no element type: any tile may use it."""
    f.eval("CREATE RAW 1056 ALLOT  RAW 31 + -32 AND CONSTANT RAW32")
    addr = f.dict["RAW32"].value
    h = rand_int(RNG, (16, 16), np.float16)
    f.backend.write(addr, h)
    f.eval("RAW32 16 TLOAD-A")
    assert (f.tile_stack()[0].values == h.astype(np.float32)).all()
    f.eval("TDROP 2e TFILL RAW32 16 TSTORE RAW32 16 TLOAD-C")
    assert (f.tile_stack()[0].values == 2).all()
    assert (f.backend.read(addr, 1024).view(np.float32) == 2).all()
    f.eval("TDROP BF16 TILE-IN RAW32 16 TLOAD-B TDROP F16 TILE-IN")
