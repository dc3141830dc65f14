"""Memory words and typed integer arrays.

`@ ! +! C@ C!` are compared with gforth (both little-endian, 64-bit cells).
The sign-extending / truncating `I8@ I8! I16@ I16! I32@ I32!` and the typed
device arrays are compared with numpy, which plays the memory:

    8 I32 ARRAY V
    -5 V 3 4 * + I32!          \\ V[3] = -5
    V 3 4 * + I32@             ( -- -5 )
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import forthtest
import gforth
from forthtest import check, raises

MIN, MAX = -(1 << 63), (1 << 63) - 1



@pytest.fixture
def f(f1):
    """Every test here runs as one thread: stores and +! happen once, as in
    gforth (with 32 threads each thread would repeat every update)."""
    return f1


# ------------------------------------------------ cells and bytes (gforth)

GFORTH_MEMORY = [
    "VARIABLE V -1 V ! V @",
    "VARIABLE V 9223372036854775807 V ! V @",
    "VARIABLE V 10 V ! -3 V +! V @",
    "CREATE B 16 ALLOT 258 B ! B C@ B 1+ C@",
    "CREATE B 16 ALLOT 0 B ! -1 B C! B C@ B @",
    "CREATE B 16 ALLOT 0 B ! 511 B C! B @",
    "CREATE B 16 ALLOT 0 B ! 0 B 8 + ! 7 B 9 + C! B 8 + @",
    "CREATE B 16 ALLOT -1 B ! 0 B 3 + C! B @",
]


@pytest.mark.parametrize("src", GFORTH_MEMORY)
def test_cells_and_bytes(f, need_gforth, src):
    check(f, src)


def test_a_new_word_aligns_here(f, need_gforth):
    """coretest.fs's `HERE 1 ALLOT ... HERE 1 ,` stores cells after a
    definition made HERE odd: a new word aligns HERE (gforth's headers do),
    so the cells are aligned and `@` works on a GPU as well."""
    src = ("HERE 1 ALLOT HERE CONSTANT B CONSTANT A HERE 1 , HERE 2 , CONSTANT D CONSTANT C "
           "C @ D @ C 7 AND D CELL+ C CELL+ CELL+ =")
    check(f, src)
    f.eval("CLEARSTACK 1 C, : X ; HERE 7 AND")
    assert f.data_stack() == [0]


def test_plus_store_in_a_loop(f, need_gforth):
    f.eval("VARIABLE ACC 0 ACC !")
    f.eval("5 0 DO I ACC +! LOOP ACC @")
    assert f.data_stack() == gforth.stack(
        "VARIABLE ACC 0 ACC ! : T 5 0 DO I ACC +! LOOP ACC @ ; T")


def test_table_of_squares(f, need_gforth):
    f.eval("CREATE T 4 CELLS ALLOT")
    f.eval("4 0 DO I I * T I CELLS + ! LOOP T 3 CELLS + @ T CELL+ @")
    assert f.data_stack() == gforth.stack(
        "CREATE T 4 CELLS ALLOT : FILL 4 0 DO I I * T I CELLS + ! LOOP ; FILL T 3 CELLS + @ T CELL+ @")


# ------------------------------------------------ sized integers (numpy)

# Forth store/fetch words and the numpy type of the memory they touch.
STORE = {"C!": np.uint8, "I8!": np.int8, "I16!": np.int16, "I32!": np.int32, "!": np.int64}
FETCH = {"C@": np.uint8, "I8@": np.int8, "I16@": np.int16, "I32@": np.int32, "@": np.int64}


def truncate(value: int, dtype) -> np.ndarray:
    """The bytes a store of `value` writes: the low bytes, two's complement."""
    return np.array([value & ((1 << 64) - 1)], dtype=np.uint64).view(np.int64).astype(dtype)


VALUES = [0, 1, -1, 127, 128, 200, 255, 256, -129, 300, 32767, 32768, 65535, 70000,
          2**31 - 1, 2**31, -2**31 - 1, 2**40 + 5, MAX, MIN]


@pytest.mark.parametrize("word, dtype", sorted(FETCH.items()))
def test_sized_fetch_after_cell_store(f, word, dtype):
    # store a whole cell, read it back narrower: sign/zero extension of the low bytes
    size = np.dtype(dtype).itemsize
    expected = [int(np.array([v], dtype=np.int64).view(np.uint8)[:size].view(dtype)[0])
                for v in VALUES]
    f.eval("CREATE BUF 8 ALLOT")
    ints, _ = forthtest.run_chunks(f, [f"{v} BUF ! BUF {word}" for v in VALUES])
    assert ints == expected


@pytest.mark.parametrize("word, dtype", sorted(STORE.items()))
def test_sized_store_truncates(f, word, dtype):
    # memory starts as all ones; a narrow store changes only its own bytes
    size = np.dtype(dtype).itemsize
    expected = []
    for v in VALUES:
        mem = np.full(8, 0xFF, dtype=np.uint8)
        mem[:size] = truncate(v, dtype).view(np.uint8)
        expected.append(int(mem.view(np.int64)[0]))
    f.eval("CREATE BUF 8 ALLOT")
    ints, _ = forthtest.run_chunks(f, [f"-1 BUF ! {v} BUF {word} BUF @" for v in VALUES])
    assert ints == expected


@settings(max_examples=25, deadline=None)
@given(ops=st.lists(st.tuples(st.sampled_from(sorted(STORE)), st.integers(0, 3),
                              st.integers(MIN, MAX)), min_size=1, max_size=8))
def test_random_sized_stores_match_numpy(ops):
    """Random sized stores into a 32-byte buffer; then every cell and every
    sized view is read back and compared with numpy doing the same stores."""
    f = _shared()
    mem = np.zeros(32, dtype=np.uint8)
    src = ["0 BUF32 ! 0 BUF32 8 + ! 0 BUF32 16 + ! 0 BUF32 24 + !"]
    for word, slot, value in ops:
        dtype = STORE[word]
        size = np.dtype(dtype).itemsize
        offset = slot * 8 + (size * slot) % 8   # aligned for its size
        mem[offset:offset + size] = truncate(value, dtype).view(np.uint8)
        src.append(f"{value} BUF32 {offset} + {word}")
    reads, expected = [], []
    for word, dtype in sorted(FETCH.items()):
        size = np.dtype(dtype).itemsize
        for offset in range(0, 32, max(size, 4)):
            reads.append(f"BUF32 {offset} + {word}")
            expected.append(int(mem[offset:offset + size].view(dtype)[0]))
    forthtest.reset(f, forthtest.ONE_THREAD)
    f.eval(" ".join(src))
    ints, _ = forthtest.run_chunks(f, reads)
    assert ints == expected


_SHARED = {}


def _shared():
    if "f" not in _SHARED:
        f = forthtest.one_thread_session()
        f.eval("CREATE BUF32 32 ALLOT")
        _SHARED["f"] = f
    return _SHARED["f"]


# ------------------------------------------------ typed arrays

INT_TYPES = {"I8": np.int8, "I16": np.int16, "I32": np.int32, "I64": np.int64}
FETCH_OF = {"I8": "I8@", "I16": "I16@", "I32": "I32@", "I64": "@"}
STORE_OF = {"I8": "I8!", "I16": "I16!", "I32": "I32!", "I64": "!"}


@pytest.mark.parametrize("tname", sorted(INT_TYPES))
def test_array_is_zeroed_with_shape_and_dtype(f, tname):
    f.eval(f"10 {tname} ARRAY V")
    a = f.array("V")
    assert a.dtype == np.dtype(INT_TYPES[tname]) and a.shape == (10,)
    assert not a.any()


@pytest.mark.parametrize("tname", sorted(INT_TYPES))
def test_array_read_from_forth(f, tname):
    dtype = INT_TYPES[tname]
    info = np.iinfo(dtype)
    values = np.array([info.min, -1, 0, 1, info.max, 42, -42, 7], dtype=dtype)
    f.eval(f"8 {tname} ARRAY V")
    f.set_array("V", values)
    size = np.dtype(dtype).itemsize
    f.eval(" ".join(f"V {i * size} + {FETCH_OF[tname]}" for i in range(8)))
    assert f.data_stack() == [int(v) for v in values]


@pytest.mark.parametrize("tname", sorted(INT_TYPES))
def test_array_written_from_forth(f, tname):
    dtype = INT_TYPES[tname]
    size = np.dtype(dtype).itemsize
    values = [5, -5, 1000, -100000, 2**40 + 3, MIN, MAX, 0]
    f.eval(f"8 {tname} ARRAY V")
    f.eval(" ".join(f"{v} V {i * size} + {STORE_OF[tname]}" for i, v in enumerate(values)))
    expected = np.array(values, dtype=np.int64).astype(dtype)    # wraps like a store
    np.testing.assert_array_equal(f.array("V"), expected)


def test_array_filled_by_a_loop(f):
    f.eval("16 I32 ARRAY SQ")
    f.eval(": FILL-SQUARES 16 0 DO I I * SQ I 4 * + I32! LOOP ; FILL-SQUARES")
    np.testing.assert_array_equal(f.array("SQ"), np.arange(16, dtype=np.int32) ** 2)


def test_matrix_is_row_major(f):
    f.eval("3 5 I64 MATRIX M")
    a = f.array("M")
    assert a.shape == (3, 5) and a.dtype == np.int64 and not a.any()
    m = np.arange(15, dtype=np.int64).reshape(3, 5) * 10
    f.set_array("M", m)
    # M[r][c] is at M + (r*5 + c) cells
    assert forthtest.stack(f, "M 1 5 * 2 + CELLS + @  M 2 5 * 4 + CELLS + @") == [m[1, 2], m[2, 4]]
    f.eval("-1 M 0 5 * 3 + CELLS + !")
    m[0, 3] = -1
    np.testing.assert_array_equal(f.array("M"), m)


def test_set_array_round_trip(f):
    f.eval("6 I16 ARRAY W")
    v = np.array([1, -2, 3, -4, 5, -32768], dtype=np.int16)
    f.set_array("W", v)
    np.testing.assert_array_equal(f.array("W"), v)


def test_array_copy_is_independent(f):
    f.eval("4 I32 ARRAY V")
    a = f.array("V")
    a[0] = 99                      # a copy: editing it does not touch the device
    assert forthtest.stack(f, "V I32@") == [0]


def test_array_sum_in_forth(f):
    f.eval("100 I64 ARRAY XS")
    rng = np.random.default_rng(1)
    xs = rng.integers(-10**12, 10**12, size=100, dtype=np.int64)
    f.set_array("XS", xs)
    f.eval("0 100 0 DO XS I CELLS + @ + LOOP")
    assert f.data_stack() == [int(xs.sum())]


# ------------------------------------------------ errors


def test_fetch_from_address_zero(f):
    f.eval("1")
    err = raises(f, "0 @", word="@", line=1, col=3)
    assert f.data_stack() == [1]
    assert "0" in str(err)


def test_store_to_address_zero(f):
    raises(f, "5 0 !", word="!", col=5)


def test_fetch_past_the_end_of_an_array(f):
    f.eval("8 I32 ARRAY V")
    raises(f, "V 8 4 * + I32@", word="I32@")
    raises(f, "V 4 - I32@", word="I32@")


def test_store_past_the_end_leaves_memory(f):
    f.eval("8 I32 ARRAY V")
    f.set_array("V", np.arange(8, dtype=np.int32))
    raises(f, "7 V 32 + I32!", word="I32!")
    np.testing.assert_array_equal(f.array("V"), np.arange(8, dtype=np.int32))


def test_bad_address_inside_a_definition(f):
    f.eval(": PEEK ( a -- x ) @ ;")
    f.eval("3")
    raises(f, "0 PEEK")
    assert f.data_stack() == [3]
