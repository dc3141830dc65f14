"""Misuse of the tile stack: clear errors, and nothing changes.

The compiler knows the tile stack at every point, so most mistakes are
found before anything runs:

    TZERO A 16 TLOAD-A A 16 TLOAD-A TMMA
    \\ error: TMMA expects ( acc a b ) on the tile stack, but it is ( acc a a )

The rest are found when the warp executes the operation (alignment, stride,
bounds, lanes that diverge or disagree). After every error the data, float
and tile stacks, the tile settings and the arrays are as they were.
"""

import numpy as np
import pytest

import forthtest
from tileforth.core import ForthError
from tiletest import fails, kinds, settings, tile_session

RNG = np.random.default_rng(4)


def setup(f):
    f.eval("16 16 F16 MATRIX A  16 16 F16 MATRIX B  16 16 F32 MATRIX C  32 32 F16 MATRIX BIG"
           "  1 I64 ARRAY SENT")
    f.set_array("A", np.arange(256).reshape(16, 16).astype(np.float16) / 64)
    f.set_array("B", np.eye(16, dtype=np.float16))
    f.set_array("C", RNG.uniform(-1, 1, (16, 16)).astype(np.float32))
    return f


@pytest.fixture
def f(request):
    return setup(tile_session(request.module.__name__))


@pytest.fixture
def lone():
    """A session of its own, for errors of diverging or disagreeing lanes,
    which break the session they happen in (see
    test_session_works_after_an_error)."""
    return setup(forthtest.new_forth())


def static(f, src, *contains, word=None, col=None):
    """A compile-time error: the line does not start, so neither the store
    to SENT nor the output before the bad word happens. Some data and a
    tile are on the stacks, to see that they stay."""
    f.eval("7 8 1.5e TZERO")
    prefix = '-1 SENT !  ." ran" '
    err = fails(f, prefix + src, *contains, word=word, arrays=["SENT", "C"],
                col=None if col is None else col + len(prefix))
    assert f.array("SENT")[0] == 0 and err.output == "", "the line ran before the error"
    assert f.data_stack() == [7, 8] and f.float_stack() == [1.5] and kinds(f) == ["acc"]
    f.eval("2DROP FDROP TDROP")
    return err


# ------------------------------------------------------------ kinds

@pytest.mark.parametrize("src, shown", [
    ("TZERO A 16 TLOAD-A A 16 TLOAD-A TMMA", "( acc acc a a )"),
    ("A 16 TLOAD-A B 16 TLOAD-B TZERO TMMA", "( acc a b acc )"),
    ("TZERO B 16 TLOAD-B A 16 TLOAD-A TMMA", "( acc acc b a )"),
    ("TZERO TZERO TZERO TMMA", "( acc acc acc acc )"),
    ("TZERO A 16 TLOAD-A B 16 TLOAD-A-COL TMMA", "( acc acc a a )"),
    ("TMMA", "( acc )"),
])
def test_tmma_needs_acc_a_b(f, src, shown):
    err = static(f, src, f"TMMA expects ( acc a b ) on the tile stack, but it is {shown}", word="TMMA",
                 col=src.index("TMMA") + 1)
    assert "TLOAD-A" in str(err)                      # the message says how to get there


def test_tmma_message_on_exactly_acc_a_a(f):
    fails(f, "TZERO A 16 TLOAD-A A 16 TLOAD-A TMMA",
          "TMMA expects ( acc a b ) on the tile stack, but it is ( acc a a )", word="TMMA", col=33)


@pytest.mark.parametrize("src, word, expects", [
    ("A 16 TLOAD-A C 16 TSTORE", "TSTORE", "( acc )"),
    ("B 16 TLOAD-B-COL C 16 TSTORE", "TSTORE", "( acc )"),
    ("TZERO A 16 TLOAD-A T+", "T+", "( acc acc )"),
    ("B 16 TLOAD-B TZERO T+", "T+", "( acc acc )"),
    ("A 16 TLOAD-A 2e TSCALE", "TSCALE", "( acc )"),
])
def test_accumulator_words_reject_operands(f, src, word, expects):
    static(f, src, f"{word} expects {expects} on the tile stack", word=word)


# ------------------------------------------------------------ settings

def test_tmma_shapes_from_different_settings(f):
    fails(f, "TZERO 32 8 16 TILE-SHAPE A 16 TLOAD-A B 8 TLOAD-B TMMA", "TMMA needs tiles of one shape",
          "TILE-SHAPE", word="TMMA")
    fails(f, "32 8 16 TILE-SHAPE TZERO 16 16 16 TILE-SHAPE A 16 TLOAD-A B 16 TLOAD-B TMMA",
          "TMMA needs tiles of one shape", word="TMMA")
    fails(f, "A 16 TLOAD-A 8 32 16 TILE-SHAPE TZERO TSWAP BIG 32 TLOAD-B TMMA", "one shape", word="TMMA")
    assert f.tile_config.shape == (16, 16, 16)


def test_words_compiled_under_different_shapes_do_not_mix(f):
    settings(f, shape=(32, 8, 16))
    f.eval(": Z328 TZERO ; : LA328 A 16 TLOAD-A ;")
    settings(f)
    static(f, "Z328 A 16 TLOAD-A B 16 TLOAD-B TMMA", "one shape", word="TMMA")
    static(f, "TZERO LA328 B 16 TLOAD-B TMMA", "one shape", word="TMMA")
    static(f, "Z328 TZERO T+", "T+ needs two accumulators of one shape and type", word="T+")


def test_tmma_input_and_accumulator_types(f):
    fails(f, "TZERO A 16 TLOAD-A BF16 TILE-IN B 16 TLOAD-B TMMA", "TMMA needs a and b of one input type",
          word="TMMA")
    fails(f, "F16 TILE-ACC TZERO F32 TILE-ACC BF16 TILE-IN A 16 TLOAD-A B 16 TLOAD-B TMMA",
          "bf16 inputs needs an f32 accumulator", word="TMMA")
    fails(f, "F16 TILE-ACC TZERO F32 TILE-ACC TZERO T+", "T+ needs two accumulators of one shape and type",
          word="T+")


@pytest.mark.parametrize("src, word, text", [
    ("16 16 8 TILE-SHAPE", "TILE-SHAPE", "not a tensor-core shape"),
    ("8 8 32 TILE-SHAPE", "TILE-SHAPE", "not a tensor-core shape"),
    ("16 16 TILE-SHAPE", "TILE-SHAPE", "underflow"),
    ("F32 TILE-IN", "TILE-IN", "F16 BF16"),
    ("I32 TILE-IN", "TILE-IN", "F16 BF16"),
    ("BF16 TILE-ACC", "TILE-ACC", "F32 F16"),
    ("F64 TILE-ACC", "TILE-ACC", "F32 F16"),
    ("F16 TILE-ACC BF16 TILE-IN", "TILE-IN", "f32 accumulator"),
    ("BF16 TILE-IN F16 TILE-ACC", "TILE-ACC", "f16 inputs"),
    ("LANE-ID TILE-ACC", "TILE-ACC", "same value"),
    ("1 IF 16 16 8 TILE-SHAPE THEN", "TILE-SHAPE", "not a tensor-core shape"),
])
def test_bad_settings(f, src, word, text):
    fails(f, src, text, word=word)
    f.eval("TZERO")                                   # the settings are the defaults still
    (t,) = f.tile_stack()
    assert (t.shape, t.dtype, t.mnk) == ((16, 16), "f32", (16, 16, 16))
    f.eval("TDROP")


def test_settings_words_run_on_the_host_from_definitions_and_structures(f):
    """Host words in a definition make it a host-level word (issue 11): the setting applies when it runs."""
    f.eval(": set-shape 32 8 16 TILE-SHAPE ;")
    f.eval("TZERO")
    assert f.tile_stack()[-1].mnk == (16, 16, 16)  # defining it changed nothing
    f.eval("TDROP set-shape TZERO 0 IF F16 TILE-ACC THEN TZERO 1 IF F16 TILE-ACC THEN TZERO")
    assert [(t.mnk, t.dtype) for t in f.tile_stack()] == [((32, 8, 16), "f32")] * 2 + [((32, 8, 16), "f16")]
    f.eval("TDROP TDROP TDROP 16 16 16 TILE-SHAPE F32 TILE-ACC")


# ------------------------------------------------------------ control flow

@pytest.mark.parametrize("src", [
    "1 IF TZERO THEN",
    "1 IF TZERO ELSE TZERO TZERO THEN",
    "1 IF A 16 TLOAD-A ELSE TZERO THEN",
    "1 IF A 16 TLOAD-A ELSE A 16 TLOAD-A-COL THEN",          # the layout is part of the tile
    "1 IF TZERO ELSE B 16 TLOAD-B THEN",
    "TZERO 1 IF TDROP THEN TZERO",
    "TZERO TZERO 1 IF TDROP ELSE T+ 1e TFILL THEN TDROP",
    "0 IF 1 IF TZERO ELSE TZERO TZERO THEN THEN",
])
def test_if_branches_must_agree(f, src):
    static(f, src, "must leave the same tile stack on every path")


def test_if_branches_with_different_settings(f):
    settings(f, shape=(8, 32, 16))
    f.eval(": Z832 TZERO ;")
    settings(f, acc="f16")
    f.eval(": ZH TZERO ;")
    settings(f)
    static(f, "1 IF Z832 ELSE TZERO THEN", "must leave the same tile stack", "8x32x16")
    static(f, "1 IF TZERO ELSE ZH THEN", "must leave the same tile stack", "f16")


@pytest.mark.parametrize("src", [
    "4 0 DO TZERO LOOP",
    "TZERO 4 0 DO TDROP LOOP",
    "4 0 ?DO TZERO 1e TFILL T+ LOOP",
    "TZERO 4 0 DO TDROP A 16 TLOAD-A LOOP",                   # same depth, another kind
    "BEGIN TZERO 1 UNTIL",
    "0 BEGIN DUP 3 < WHILE TZERO 1+ REPEAT DROP",
    "TZERO 0 BEGIN DUP 3 < WHILE TDROP 1+ REPEAT DROP",
    "4 0 DO TZERO I 2 = IF LEAVE THEN TDROP LOOP",
    "4 0 DO 2 0 DO TZERO LOOP LOOP",
])
def test_loop_bodies_must_balance(f, src):
    static(f, src, "the same tile stack")


@pytest.mark.parametrize("src, name", [
    (": BADIF ( flag -- ) IF TZERO THEN ;", "BADIF"),
    (": BADLOOP 4 0 DO TZERO LOOP ;", "BADLOOP"),
    (": BADMMA TZERO A 16 TLOAD-A TMMA ;", "BADMMA"),
    (": NINE " + "TZERO " * 9 + ";", "NINE"),
    (": DROP? ( flag -- ) IF TDROP THEN ;", "DROP?"),
    (": SOMETIMES-A ( flag -- ) IF A 16 TLOAD-A ELSE TZERO THEN ;", "SOMETIMES-A"),
    (": GROW ( n -- ) 0 ?DO 1e TFILL LOOP ;", "GROW"),
    (": SHRINK ( n -- ) 0 ?DO TDROP LOOP ;", "SHRINK"),
    (": ADD-EVERY ( n -- ) 1 ?DO T+ LOOP ;", "ADD-EVERY"),
])
def test_bad_definition_is_rejected_at_semicolon(f, src, name):
    fails(f, src, "tile")
    fails(f, name, "unknown word")                    # it was not defined


# ------------------------------------------------------------ underflow and the limit of 8

@pytest.mark.parametrize("src, word", [
    ("TDROP", "TDROP"), ("TDUP", "TDUP"), ("TMMA", "TMMA"), ("C 16 TSTORE", "TSTORE"),
    ("TZERO TSWAP", "TSWAP"), ("TZERO TOVER", "TOVER"), ("TZERO TZERO TROT", "TROT"),
    ("TZERO TZERO 2 TROLL", "TROLL"), ("TZERO T+", "T+"), ("2e TSCALE", "TSCALE"),
    ("TZERO TDROP TDROP", "TDROP"), ("A 16 TLOAD-A B 16 TLOAD-B TMMA", "TMMA"),
])
def test_tile_stack_underflow(f, src, word):
    fails(f, src, f"{word} expects", "on the tile stack", word=word, col=src.rindex(word) + 1)
    assert f.tile_stack() == []


@pytest.mark.parametrize("src, word", [
    ("TDROP TDROP", "TDROP"), ("TSWAP", "TSWAP"), ("TOVER", "TOVER"), ("TROT", "TROT"), ("1 TROLL", "TROLL"),
    ("T+", "T+"), ("TMMA", "TMMA"), ("TDUP TMMA", "TMMA"), ("C 16 TSTORE C 16 TSTORE", "TSTORE"),
])
def test_underflow_below_a_tile_from_an_earlier_line(f, src, word):
    f.eval("3e TFILL")
    fails(f, src, f"{word} expects", word=word)
    (t,) = f.tile_stack()
    assert (t.values == 3).all()
    f.eval("TDROP")


def test_tile_input_of_a_word_checked_where_it_is_called(f):
    f.eval(": ADD1 ( T: acc -- acc ) 1e TFILL T+ ;")
    fails(f, "ADD1", "ADD1 expects", word="ADD1")
    fails(f, "A 16 TLOAD-A ADD1", "ADD1 expects", word="ADD1")
    f.eval("2e TFILL ADD1")
    assert float(f.tile_stack()[0].values[0, 0]) == 3.0
    f.eval("TDROP")


@pytest.mark.parametrize("src, word", [
    ("TZERO " * 9, "TZERO"),
    ("TZERO " * 8 + "TDUP", "TDUP"),
    ("TZERO " * 8 + "TOVER", "TOVER"),
    ("TZERO " * 8 + "A 16 TLOAD-A", "TLOAD-A"),
    ("TZERO " * 8 + "1e TFILL", "TFILL"),
    ("TZERO " * 8 + "C 16 TLOAD-C", "TLOAD-C"),
])
def test_at_most_eight_tiles(f, src, word):
    static(f, src.replace("TZERO", "", 1), "at most 8 tiles", word=word)   # one TZERO comes from static()


def test_eight_tiles_across_lines_and_words(f):
    f.eval(": PUSH2 TZERO TZERO ;")
    f.eval("TZERO " * 7)
    fails(f, "PUSH2", "at most 8 tiles")
    fails(f, "TZERO TDUP", "at most 8 tiles", word="TDUP")
    f.eval("TZERO")                                   # eight is fine
    assert kinds(f) == ["acc"] * 8
    fails(f, "TZERO", "at most 8 tiles", word="TZERO")
    f.eval("TDROP " * 8)


@pytest.mark.parametrize("src", ["1 2 + TROLL", "-1 TROLL", "DUP TROLL"])
def test_troll_needs_a_literal(f, src):
    f.eval("TZERO TZERO 1")
    fails(f, src, "TROLL needs a literal count", word="TROLL")
    f.eval("DROP TDROP TDROP")


def test_troll_literal_on_an_earlier_line(f):
    f.eval("TZERO TZERO 1")
    fails(f, "TROLL", "TROLL needs a literal count", word="TROLL")
    f.eval("DROP TDROP TDROP")


# ------------------------------------------------------------ memory: alignment, stride, bounds

@pytest.mark.parametrize("src, word", [
    ("BIG 16 + 32 TLOAD-A", "TLOAD-A"),
    ("BIG 2 + 32 TLOAD-A", "TLOAD-A"),
    ("BIG 112 + 32 TLOAD-B", "TLOAD-B"),
    ("BIG 8 + 32 TLOAD-A-COL", "TLOAD-A-COL"),
    ("BIG 1 + 32 TLOAD-B-COL", "TLOAD-B-COL"),
    ("C 16 + 16 TLOAD-C", "TLOAD-C"),
    ("TZERO C 16 + 16 TSTORE", "TSTORE"),
    ("TZERO C 4 + 16 TSTORE", "TSTORE"),
])
def test_misaligned_address(f, src, word):
    fails(f, src, "not 32-byte aligned", word=word, arrays=["C", "BIG"], col=src.index(word) + 1)


@pytest.mark.parametrize("src, word, text", [
    ("BIG 20 TLOAD-A", "TLOAD-A", "not a multiple of 16 bytes"),
    ("BIG 17 TLOAD-B", "TLOAD-B", "not a multiple of 16 bytes"),
    ("BIG 30 TLOAD-A-COL", "TLOAD-A-COL", "not a multiple of 16 bytes"),
    ("TZERO BIG 18 TSTORE", "TSTORE", "not a multiple of 16 bytes"),       # 18 f32 = 72 bytes
    ("BIG 18 TLOAD-C", "TLOAD-C", "not a multiple of 16 bytes"),
    ("A 8 TLOAD-A", "TLOAD-A", "shorter"),
    ("A 0 TLOAD-A", "TLOAD-A", "shorter"),
    ("A -16 TLOAD-A", "TLOAD-A", "shorter"),
    ("B 8 TLOAD-B-COL", "TLOAD-B-COL", "shorter"),
    ("C 8 TLOAD-C", "TLOAD-C", "shorter"),
    ("TZERO C 12 TSTORE", "TSTORE", "shorter"),
])
def test_bad_stride(f, src, word, text):
    fails(f, src, text, word=word, arrays=["C", "BIG"])


@pytest.mark.parametrize("shape, src, word", [
    ((32, 8, 16), "BIG 8 TLOAD-B", None),                # b is 16 x 8: stride 8 (16 bytes) is fine ...
    ((32, 8, 16), "BIG 16 TLOAD-A-COL", "TLOAD-A-COL"),  # ... but a column of a has 32 elements
    ((32, 8, 16), "BIG 16 TLOAD-B-COL", None),           # a column of b has 16
    ((32, 8, 16), "TZERO BIG 4 TSTORE", "TSTORE"),       # a row of the accumulator has 8
    ((8, 32, 16), "BIG 16 TLOAD-B", "TLOAD-B"),          # a row of b has 32
    ((8, 32, 16), "TZERO BIG 16 TSTORE", "TSTORE"),
    ((8, 32, 16), "BIG 8 TLOAD-A-COL", None),            # a column of a has 8
])
def test_stride_against_the_shape(f, shape, src, word):
    settings(f, shape)
    if word is None:
        f.eval(src + " TDROP" * (not src.startswith("TZERO")))
        assert f.tile_stack() == []
    else:
        fails(f, src, "shorter", word=word, arrays=["BIG"])


def test_padded_strides_are_allowed(f):
    """CUDA code pads f16 rows by 8 elements: 24 halves = 48 bytes is fine."""
    f.eval("16 24 F16 MATRIX PADDED  16 20 F32 MATRIX PADC")
    f.eval("TZERO PADDED 24 TLOAD-A PADDED 24 TLOAD-B TMMA PADC 20 TSTORE")
    assert f.tile_stack() == []


@pytest.mark.parametrize("src, word", [
    ("A 512 + 16 TLOAD-A", "TLOAD-A"),                   # just past the end
    ("A 32 + 16 TLOAD-A", "TLOAD-A"),                    # the last row runs over
    ("A 32 TLOAD-A", "TLOAD-A"),                         # the stride runs over
    ("A 256 - 16 TLOAD-A", "TLOAD-A"),                   # before the start
    ("0 16 TLOAD-A", "TLOAD-A"),
    ("A 4294967312 TLOAD-A", "TLOAD-A"),                 # a stride beyond 32 bits
    ("TZERO C 64 + 16 TSTORE", "TSTORE"),
    ("TZERO C 16 16 * 2 * + 16 TSTORE", "TSTORE"),
    ("C 1024 + 16 TLOAD-C", "TLOAD-C"),
    ("HALF 16 TLOAD-A", "TLOAD-A"),                      # 16 x 8: the tile is wider than the matrix
])
def test_out_of_range(f, src, word):
    f.eval("16 8 F16 MATRIX HALF  16 8 F16 MATRIX HALF2")   # HALF2 may follow HALF: still an error
    fails(f, src, "reaches outside every allocation", word=word, arrays=["C", "A"])


def test_runtime_error_names_the_word(f):
    f.eval(": LOADBAD A 16 + 16 TLOAD-A ;  : OUTER TZERO LOADBAD ;")
    err = fails(f, "OUTER", "not 32-byte aligned", "in LOADBAD", word="TLOAD-A")
    assert err.line == 1


def test_failed_store_after_a_good_one_keeps_the_tile(f):
    """The tile a failed TSTORE would have consumed is still there."""
    f.eval("2e TFILL")
    fails(f, "C 8 + 16 TSTORE", "aligned", arrays=["C"])
    fails(f, "TDUP C 8 + 16 TSTORE", "aligned", arrays=["C"])
    assert kinds(f) == ["acc"]
    f.eval("C 16 TSTORE")
    assert (f.array("C") == 2).all()


# ------------------------------------------------------------ lanes and warps

@pytest.mark.parametrize("src, at, reached, others", [
    ("LANE-ID 16 < IF TZERO TDROP THEN", "TZERO", "0-15", "16-31"),
    ("LANE-ID 0= IF A 16 TLOAD-A TDROP THEN", "TLOAD-A", "0", "1-31"),
    ("LANE-ID 31 = IF TZERO C 16 TSTORE THEN", "TZERO", "31", "0-30"),
    ("LANE-ID 1+ 0 DO TZERO TDROP LOOP", "TZERO", "1-31", "0"),           # lane 0 leaves the loop first
    ("LANE-ID 2 MOD IF TZERO TDROP ELSE 1e TFILL TDROP THEN", "TFILL", "0, 2, 4", "1, 3, 5"),
])
def test_divergent_warp(lone, src, at, reached, others):
    err = fails(lone, src, "divergent warp", f"lanes {reached}", f"lanes {others}", arrays=["C"])
    assert err.col == src.index(at) + 1


@pytest.mark.parametrize("src, at, lanes", [
    ("A LANE-ID 32 * + 16 TLOAD-A", "TLOAD-A", "1-31"),                 # the address
    ("A 16 LANE-ID 8 * + TLOAD-A", "TLOAD-A", "1-31"),                  # the stride
    ("LANE-ID S>F TFILL", "TFILL", "1-31"),                             # the value
    ("TZERO LANE-ID S>F TSCALE", "TSCALE", "1-31"),
    ("TZERO C LANE-ID 4 / 64 * + 16 TSTORE", "TSTORE", "4-31"),
])
def test_lanes_disagree_on_operands(lone, src, at, lanes):
    err = fails(lone, src, "disagree", f"lanes {lanes} differ from lane 0", arrays=["C"])
    assert err.col == src.index(at) + 1


@pytest.mark.parametrize("launch, warp", [
    ("1 1 1 GRID 16 1 1 THREADS", 0), ("1 1 1 GRID 48 1 1 THREADS", 1), ("1 1 1 GRID 8 2 1 THREADS", 0),
    ("2 1 1 GRID 40 1 1 THREADS", 1)])
def test_partial_warp(launch, warp):
    f = tile_session(__name__ + "-partial", launch)
    fails(f, "TZERO TDROP", "whole warps of 32", f"warp {warp}")
    fails(f, "5 1e TFILL TDROP", "whole warps of 32")


# ------------------------------------------------------------ the session still works afterwards

AFTER = [
    "A 16 + 16 TLOAD-A",
    "TZERO C 8 TSTORE",
    "A 512 + 16 TLOAD-A",
    "TZERO TZERO TMMA",
    "LANE-ID 16 < IF TZERO TDROP THEN",
    "LANE-ID 16 < IF A 16 TLOAD-A TDROP THEN",
    "A LANE-ID 32 * + 16 TLOAD-A",
    "LANE-ID S>F TFILL",
]


@pytest.mark.parametrize("bad", AFTER)
def test_session_works_after_an_error(lone, bad):
    """After a failed line the next good line runs as if it had not happened."""
    f = lone
    with pytest.raises(ForthError):
        f.eval(bad)
    f.eval("TZERO A 16 TLOAD-A B 16 TLOAD-B TMMA TDUP C 16 TSTORE")
    (t,) = f.tile_stack()
    expected = f.array("A").astype(np.float64) @ f.array("B").astype(np.float64)
    np.testing.assert_array_equal(t.values, expected)
    np.testing.assert_array_equal(f.array("C"), expected)
    f.eval("TDROP")
