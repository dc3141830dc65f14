"""Looking inside: the inspection words (.S .LANES .TILE .FRAG .M SEE SEE-IR
SEE-PTX HELP) and the data words that fill arrays for exploring (ZEROS AFILL
RAMP IDENTITY RANDOM LOAD-NPY SAVE-NPY).

Every value is checked against numpy, every lane number against the PTX
formulas for mma.sync.m16n8k16 (g = lane >> 2, t = lane % 4), written out
again here.  The REPL's views are rendered with rich at 80 columns and
compared with text built here from the same numbers.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from rich.console import Console

from tileforth.core import Forth, ForthError
from tileforth.core.session.reference import entries
from tileforth.repl import render as rviews
from tileforth.repl.display import Display

WARP = 32
CLI = [sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu"]


@pytest.fixture
def f():
    return Forth(backend="cpu")


def grid_rows(text: str, header: str) -> list[list[int]]:
    """The integer rows of a printed table that follow the `header` line
    (labels first; '|' separators and '---' lines skipped)."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.split() == header.split())
    rows = []
    for ln in lines[start + 1:]:
        words = [w for w in ln.split() if w != "|"]
        if not words or not all(w.lstrip("-").isdigit() for w in words):
            if set(ln.strip()) <= {"-"} and ln.strip():
                continue
            break
        rows.append([int(w) for w in words])
    return rows


def cols_header(n: int, group: int | None = None) -> str:
    return " ".join(str(c) if not group or c % group or c == 0 else f"| {c}" for c in range(n))


# ---- data words ---------------------------------------------------------------------------------
def test_zeros_fill_ramp_identity_match_numpy(f):
    f.eval("8 F32 ARRAY xs  3 5 I32 MATRIX m  4 6 F16 MATRIX e")
    f.eval("2.5e AFILL xs")
    np.testing.assert_array_equal(f.array("xs"), np.full(8, 2.5, np.float32))
    f.eval("ZEROS xs")
    np.testing.assert_array_equal(f.array("xs"), np.zeros(8, np.float32))
    f.eval("RAMP m")
    np.testing.assert_array_equal(f.array("m"), np.arange(15).reshape(3, 5))
    f.eval("IDENTITY e")
    np.testing.assert_array_equal(f.array("e"), np.eye(4, 6, dtype=np.float16))
    f.eval("-2.75e AFILL m")  # integers truncate, as numpy's astype does
    np.testing.assert_array_equal(f.array("m"), np.full((3, 5), -2.75).astype(np.int32))
    assert f.data_stack(lane=None) == [[]] * WARP and f.float_stack(lane=None) == [[]] * WARP


def test_ramp_rounds_to_the_element_type(f):
    f.eval("3000 F16 ARRAY h  RAMP h")
    np.testing.assert_array_equal(f.array("h"), np.arange(3000).astype(np.float16))


@pytest.mark.parametrize("typ,dtype", [("F32", np.float32), ("F16", np.float16),
                                       ("BF16", ml_dtypes.bfloat16), ("F64", np.float64)])
def test_random_is_numpy_default_rng_uniform(f, typ, dtype):
    f.eval(f"5 7 {typ} MATRIX r  1234 RANDOM r")
    want = np.random.default_rng(1234).uniform(-1.0, 1.0, (5, 7)).astype(dtype)
    np.testing.assert_array_equal(f.array("r"), want)
    assert (f.array("r").astype(np.float64) >= -1).all() and (f.array("r").astype(np.float64) <= 1).all()


def test_random_integers_and_reproducibility(f):
    f.eval("100 I64 ARRAY k  7 RANDOM k")
    np.testing.assert_array_equal(f.array("k"), np.random.default_rng(7).integers(-100, 100, 100))
    first = f.array("k")
    f.eval("8 RANDOM k")
    assert not np.array_equal(first, f.array("k"))
    f.eval("7 RANDOM k")
    np.testing.assert_array_equal(first, f.array("k"))


def test_save_and_load_npy_round_trip(f, tmp_path):
    f.eval("4 4 F32 MATRIX a  4 4 F32 MATRIX b  3 RANDOM a")
    path = tmp_path / "a.npy"
    f.eval(f"SAVE-NPY a {path}")
    np.testing.assert_array_equal(np.load(path), f.array("a"))
    f.eval(f"LOAD-NPY b {path}  .M b")
    np.testing.assert_array_equal(f.array("b"), f.array("a"))


def test_load_npy_converts_and_accepts_quoted_names(f, tmp_path):
    spaced = tmp_path / "with blank.npy"
    np.save(spaced, np.arange(6, dtype=np.float64).reshape(2, 3) / 4)
    f.eval(f'2 3 F16 MATRIX h  LOAD-NPY h "{spaced}"  1 .')
    np.testing.assert_array_equal(f.array("h"), (np.arange(6).reshape(2, 3) / 4).astype(np.float16))


def test_save_npy_writes_bf16_as_f32(f, tmp_path):
    f.eval(f"3 BF16 ARRAY z  RAMP z  SAVE-NPY z {tmp_path / 'z.npy'}")
    got = np.load(tmp_path / "z.npy")
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [0, 1, 2])


@pytest.mark.parametrize("src,message", [
    ("ZEROS", "ZEROS needs the name of an array after it"),
    ("ZEROS nothing", "unknown word nothing: create the array first"),
    ("42 CONSTANT k  RAMP k", "RAMP fills arrays made with ARRAY or MATRIX, but k is a constant word"),
    (": w ; ZEROS w", "but w is a colon word"),
    ("4 F32 ARRAY v  IDENTITY v", "IDENTITY needs a matrix, but v is a 1-dimensional array of 4"),
    ("4 F32 ARRAY v  AFILL v", "float stack underflow: AFILL needs a float"),
    ("4 F32 ARRAY v  TID-X S>F AFILL v", "AFILL needs the same float in every thread"),
    ("4 F32 ARRAY v  TID-X RANDOM v", "RANDOM needs the same value(s) in every thread"),
    ("4 F32 ARRAY v  RANDOM v", "data stack underflow: RANDOM needs 1 item"),
    ("4 F32 ARRAY v  LOAD-NPY v", "LOAD-NPY needs a file name after the array's name"),
    ("4 F32 ARRAY v  LOAD-NPY v /nonexistent/x.npy", "LOAD-NPY: no file /nonexistent/x.npy"),
    ('4 F32 ARRAY v  LOAD-NPY v "unclosed', "needs a closing"),
    ("4 F32 ARRAY v  SAVE-NPY v /nonexistent/dir/x.npy", "SAVE-NPY: cannot write /nonexistent/dir/x.npy"),
])
def test_data_word_errors_say_what_to_do(f, src, message):
    with pytest.raises(ForthError, match=None) as exc:
        f.eval(src)
    assert message in str(exc.value)


def test_load_npy_errors(f, tmp_path):
    f.eval("2 3 F32 MATRIX m")
    np.save(tmp_path / "wrong.npy", np.zeros((3, 2)))
    with pytest.raises(ForthError, match="holds a 3x2 array but m is 2x3: the shapes must match"):
        f.eval(f"LOAD-NPY m {tmp_path / 'wrong.npy'}")
    (tmp_path / "text.npy").write_text("not numpy")
    with pytest.raises(ForthError, match="is not a .npy file"):
        f.eval(f"LOAD-NPY m {tmp_path / 'text.npy'}")
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}] * 6, dtype=object).reshape(2, 3), allow_pickle=True)
    with pytest.raises(ForthError, match="not a .npy file numpy can read without pickle"):
        f.eval(f"LOAD-NPY m {tmp_path / 'obj.npy'}")
    np.save(tmp_path / "str.npy", np.array([["a"] * 3] * 2))
    with pytest.raises(ForthError, match="it needs numbers"):
        f.eval(f"LOAD-NPY m {tmp_path / 'str.npy'}")
    np.testing.assert_array_equal(f.array("m"), np.zeros((2, 3)))  # failed loads change nothing


def test_data_words_need_the_name_on_the_same_line(f):
    f.eval("4 F32 ARRAY v")
    with pytest.raises(ForthError, match="needs the name of an array"):
        f.eval("RAMP\nv")


# ---- .S and .STACKS -------------------------------------------------------------------------------
def test_dot_s_stays_gforth_style_by_default_and_in_definitions(f):
    assert f.eval("1 2 .S") == "<2> 1 2 "
    f.dot_s_shows_all = True
    assert f.eval(": show .S ;  show") == "<2> 1 2 "
    assert f.eval("1 IF .S THEN") == "<2> 1 2 "  # inside a control structure: the device word
    assert f.eval(".S") == "data  <2> 1 2\nfloat <0>\n"


def test_dot_stacks_shows_every_stack(f):
    f.eval("7 TID-X 1.5e TZERO")
    out = f.eval(".STACKS")
    assert out.splitlines() == [
        f"data  <2> 7 [0..{WARP - 1}]",
        "float <1> 1.5",
        "tiles <1>",
        "  acc 16x16 f32  min 0.0 max 0.0 mean 0.0",
    ]


def test_a_view_starts_on_a_fresh_line(f):
    assert f.eval("5 . .STACKS") == "5 \ndata  <0>\nfloat <0>\n"


# ---- .LANES -------------------------------------------------------------------------------------
def test_lanes_lists_each_threads_stack_in_columns(f):
    out = f.eval("TID-X DUP 3 MOD .LANES")
    lines = out.splitlines()
    assert lines[0].startswith(f"data stack of each of the {WARP} threads")
    cells = {}
    for ln in lines[2:]:
        for part in ln.split(" | "):
            thread, stack = part.split(None, 1)
            cells[int(thread)] = stack.split()
    assert cells == {t: ["<2>", str(t), str(t % 3)] for t in range(WARP)}
    assert max(len(ln) for ln in lines) <= 80


def test_lanes_groups_equal_threads_and_shows_floats(f):
    out = f.eval("TID-X 16 / 2.5e .LANES")
    lines = out.splitlines()
    assert all(len(ln) <= 80 for ln in lines)  # the title wraps at the width
    assert lines[lines.index("thread  stack") + 1:] == [
        "  0-15  <1> 0  F: <1> 2.5",
        " 16-31  <1> 1  F: <1> 2.5",
    ]


def test_lanes_elides_the_middle_of_many_rows(f):
    f.eval("256 1 1 THREADS  TID-X")
    out = f.eval(".LANES")
    parts = [p.split() for ln in out.splitlines()[2:] for p in ln.split(" | ")]
    assert ["...", "208", "more"] in parts  # 256 rows: the first 32 and the last 16 are listed
    shown = sorted(int(p[0]) for p in parts if p and p[0].isdigit())
    assert shown == list(range(32)) + list(range(240, 256))
    assert all(p[1:] == ["<1>", p[0]] for p in parts if p and p[0].isdigit())
    assert max(len(ln) for ln in out.splitlines()) <= 80


# ---- .TILE ----------------------------------------------------------------------------------------
def test_tile_shows_every_value_of_the_top_tile(f):
    f.eval("16 16 F16 MATRIX A  RAMP A  TZERO  A 16 TLOAD-A")
    out = f.eval(".TILE")
    assert out.splitlines()[0] == "a 16x16 f16: the top of the tile stack <2> (m16n16k16, loaded row-major)"
    np.testing.assert_array_equal(grid_rows(out, cols_header(16)),
                                  np.column_stack([np.arange(16), np.arange(256).reshape(16, 16)]))


def test_tile_rounds_non_integers_and_says_so(f):
    """At 80 columns 16 columns of 3 decimals do not fit: fewer significant
    digits do, so the tile is not cut into blocks of columns."""
    f.eval("0.1e TFILL")
    out = f.eval(".TILE")
    assert "values rounded to 4 significant digits" in out and "columns" not in out
    cells = [w for ln in out.splitlines()[3:] for w in ln.split()[1:]]
    assert cells.count("0.1") == 256 and max(len(ln) for ln in out.splitlines()) <= 80


def test_tile_of_a_32x8_accumulator(f):
    f.eval("32 8 16 TILE-SHAPE  3e TFILL")
    out = f.eval(".TILE")
    assert out.startswith("acc 32x8 f32: the top of the tile stack <1> (m32n8k16)")
    assert grid_rows(out, cols_header(8)) == [[r] + [3] * 8 for r in range(32)]


def test_tile_words_need_a_tile(f):
    for word in (".TILE", ".FRAG"):
        with pytest.raises(ForthError, match=f"{word} shows the top of the tile stack, but the tile stack "
                                             "is empty"):
            f.eval(word)


# ---- .FRAG: the documented mma.sync m16n8k16 layout ------------------------------------------------
def lane_of(kind: str, r: int, c: int) -> int:
    """PTX ISA 9.7.14.5.8, inverted by hand: the lane holding element (r, c)
    of one block (A 16x16, B 16x8, C 16x8), with g = lane>>2, t = lane%4."""
    if kind == "acc":  # row = g + 8*(i>>1), col = 2t + (i&1)
        g, t = r % 8, (c % 8) // 2
    elif kind == "a":  # row = g + 8*((i>>1)&1), col = 2t + (i&1) + 8*(i>>2)
        g, t = r % 8, (c % 8) // 2
    else:  # b: row = 2t + (i&1) + 8*(i>>1), col = g
        g, t = c % 8, (r % 8) // 2
    return 4 * g + t


@pytest.mark.parametrize("shape,load,kind,rows,cols,group", [
    ("16 16 16", "TZERO", "acc", 16, 16, 8),
    ("16 16 16", "A 16 TLOAD-A", "a", 16, 16, None),
    ("16 16 16", "B 16 TLOAD-B", "b", 16, 16, 8),
    ("32 8 16", "TZERO", "acc", 32, 8, None),
    ("32 8 16", "A 16 TLOAD-A", "a", 32, 16, None),
    ("32 8 16", "B 16 TLOAD-B", "b", 16, 8, None),
    ("8 32 16", "A 16 TLOAD-A", "a", 8, 16, None),
])
def test_frag_shows_the_lane_of_every_element(f, shape, load, kind, rows, cols, group):
    f.eval("64 64 F16 MATRIX A  64 64 F16 MATRIX B")
    f.eval(f"{shape} TILE-SHAPE  {load}")
    out = f.eval(".FRAG")
    assert "mma.sync m16n8k16" in out and "wmma" in out and "does not specify" in out
    got = grid_rows(out, cols_header(cols, group))
    want = [[r] + [lane_of(kind, r % 16, c) for c in range(cols)] for r in range(rows)]
    assert got == want
    # every lane holds the same number of elements: 8 registers' worth for A, 4 per m16n8 block otherwise
    counts = np.bincount([x for row in got for x in row[1:]], minlength=WARP)
    assert (counts == rows * cols // WARP).all()


def test_frag_of_a_wide_b_tile_is_cut_into_column_blocks(f):
    f.eval("16 32 F16 MATRIX B  8 32 16 TILE-SHAPE  B 32 TLOAD-B")
    out = f.eval(".FRAG")
    assert "columns 0-23" in out and "columns 24-31" in out
    left = grid_rows(out, " ".join(str(c) if c % 8 or c == 0 else f"| {c}" for c in range(24)))
    right = grid_rows(out, " ".join(str(c) for c in range(24, 32)))
    assert [r[1:] for r in left] == [[lane_of("b", k, n) for n in range(24)] for k in range(16)]
    assert [r[1:] for r in right] == [[lane_of("b", k, n) for n in range(24, 32)] for k in range(16)]


def test_frag_names_lane_0s_registers(f):
    out = f.eval("TZERO .FRAG")
    assert "lane 0 holds c0=(0,0), c1=(0,1), c2=(8,0), c3=(8,1) in the first block" in out
    assert "It is two m16n8k16 accumulators (16x8) side by side: columns 0-7 and 8-15." in out
    f.eval("TDROP 16 16 F16 MATRIX A  A 16 TLOAD-A")
    out = f.eval(".FRAG")
    # tensor_cores.md 5.3: lane 0 holds A(0,0) A(0,1) A(8,0) A(8,1) A(0,8) A(0,9) A(8,8) A(8,9)
    assert ("lane 0 holds a0=(0,0), a1=(0,1), a2=(8,0), a3=(8,1), a4=(0,8), a5=(0,9),\n"
            "a6=(8,8), a7=(8,9) in the first block") in out


def test_frag_of_an_8_row_tile_says_it_is_half_a_block(f):
    f.eval("8 32 16 TILE-SHAPE  TZERO")
    out = f.eval(".FRAG")
    assert "the first 8 rows" in " ".join(out.split()) and "no m16n8k16 form" in " ".join(out.split())
    assert max(len(ln) for ln in out.splitlines()) <= 80


# ---- .M ---------------------------------------------------------------------------------------
def test_m_shows_a_small_matrix_by_name_or_address(f):
    f.eval("3 4 I32 MATRIX m  RAMP m")
    by_name = f.eval(".M m")
    assert by_name.splitlines()[0] == "m: 3x4 i32"
    assert grid_rows(by_name, "0 1 2 3") == [[r] + list(range(4 * r, 4 * r + 4)) for r in range(3)]
    assert f.eval("m .M") == by_name
    assert f.data_stack() == []


def test_m_in_hex_shows_integers_in_base(f):
    f.eval("2 I64 ARRAY w  255 AFILL w".replace("255 AFILL", "255e AFILL"))
    assert "FF FF" in f.eval("HEX .M w DECIMAL")


def test_m_of_a_1d_array_labels_rows_by_index(f):
    out = f.eval("10 I16 ARRAY v  RAMP v  .M v")
    assert out.splitlines() == ["v: 10 i16", "  +0 +1 +2 +3 +4 +5 +6 +7", "0  0  1  2  3  4  5  6  7",
                                "8  8  9"]


def test_m_of_a_large_matrix_is_a_summary_and_corners(f):
    f.eval("40 50 F32 MATRIX big  5 RANDOM big")
    big = f.array("big")
    out = f.eval(".M big")
    lines = out.splitlines()
    assert lines[0] == (f"big: 40x50 f32  min {big.min():.4g} max {big.max():.4g} "
                        f"mean {big.astype(np.float64).mean():.4g}")
    assert lines[1:3] == ["the corners only; SAVE-NPY writes every value to a file",
                          "values rounded to 3 decimals"]
    assert lines[3].split() == ["0", "1", "2", "...", "47", "48", "49"]
    corner = lines[4].split()
    assert corner[0] == "0" and [float(x) for x in corner[1:4]] == pytest.approx(big[0, :3], abs=5e-4)
    assert [float(x) for x in lines[-1].split()[-3:]] == pytest.approx(big[-1, -3:], abs=5e-4)
    assert len(lines) == 4 + 7 and lines[7].split() == ["..."] * 8


@pytest.mark.parametrize("src,message", [
    (".M", ".M shows an array: put its address on the stack"),
    (".M nothing", ".M shows an array, but nothing is an unknown word"),
    ("5 CONSTANT five  .M five", ".M shows an array, but five is a constant word"),
])
def test_m_errors(f, src, message):
    with pytest.raises(ForthError) as exc:
        f.eval(src)
    assert message in str(exc.value)


# ---- SEE, SEE-IR, SEE-PTX, HELP -------------------------------------------------------------------
def test_see_shows_source_and_inferred_effects(f):
    f.eval(": sq ( n -- n*n ) DUP * ;")
    assert f.eval("SEE sq").splitlines() == [": sq ( x1 -- x'1 )", "  : sq ( n -- n*n ) DUP * ;"]
    f.eval(": acc+ ( -- ) TMMA ;  : step  1e F+ sq acc+ ;")
    assert f.eval("SEE step").splitlines() == [
        ": step ( x1 -- x'1 ) ( F: r1 -- r'1 ) ( T: acc a b -- acc )",
        "  : step  1e F+ sq acc+ ;",
        "\\ calls: sq acc+",
        "\\ suspends (BARRIER or a warp operation): inlined into the kernels that call it"]
    f.eval(": maybe ?DUP ;")
    assert f.eval("SEE maybe").splitlines() == [
        ": maybe ( dynamic )", "  : maybe ?DUP ;",
        "\\ dynamic: the depth depends on the data, so run-time stack checks stay on"]
    assert f.eval("SEE DUP") == f.eval("HELP DUP")  # other words: their reference entry


def test_see_ir_shows_the_words_llvm_ir(f):
    f.eval(": sq DUP * ;")
    out = f.eval("SEE-IR sq")
    assert "define" in out and "mul i64" in out and out.splitlines()[0].startswith("; sq: LLVM IR")


def test_see_ir_of_a_word_that_suspends_shows_its_kernel(f):
    f.eval(": sync BARRIER ;")
    out = f.eval("SEE-IR sync")
    assert "suspend" in out and "llvm.coro.suspend" in out and "define" in out


def test_see_ptx_shows_tensor_core_instructions(f):
    f.eval("16 16 F32 MATRIX C  : st  2e TFILL C 16 TSTORE ;")
    out = f.eval("SEE-PTX st")
    assert ".target sm_80" in out and "wmma.store.d.sync" in out
    f.ptx_arch = "sm_90"
    assert ".target sm_90" in f.eval("SEE-PTX st")


@pytest.mark.parametrize("src,message", [
    ("SEE-IR", "SEE-IR needs a word's name after it on the same line"),
    ("SEE-IR DUP", "SEE-IR shows the code of colon definitions, but DUP is a primitive word"),
    ("SEE-PTX nope", "SEE-PTX: unknown word nope"),
    ("SEE nope", "SEE: unknown word nope"),
    ("HELP nope", "HELP: unknown word nope"),
    (": dyn ?DUP ;  SEE-PTX dyn", "dynamic stack effect"),
])
def test_see_and_help_errors(f, src, message):
    with pytest.raises(ForthError) as exc:
        f.eval(src)
    assert message in str(exc.value)


BUILTINS = sorted({e.name for e in entries()})


def test_help_covers_every_built_in_word(f):
    """HELP prints each reference entry: name, effect, meaning, example."""
    ref = {}
    for e in entries():
        ref.setdefault(e.name.upper(), e)
    for name in BUILTINS:
        e = ref[name.upper()]
        out = f.eval(f"HELP {name}")
        first = out.splitlines()[0]
        assert first.startswith(f"{e.name}  {e.effect}"), (name, first)
        assert " ".join(e.help.split()) in " ".join(out.split()), name
        if e.example:
            assert f"example: {e.example}" in out, name


def test_help_of_user_words_and_alone(f):
    f.eval("42 CONSTANT answer  : sq DUP * ;")
    assert f.eval("HELP answer").splitlines() == ["answer  ( -- x )", "  a constant"]
    assert f.eval("HELP sq").splitlines()[:2] == ["sq  ( x1 -- x'1 )",
                                                  "  A colon definition (effects inferred); SEE shows its source."]
    assert ".FRAG" in f.eval("HELP") and "SEE-PTX" in f.eval("HELP")


# ---- [IF] [ELSE] [THEN] and TILES-KEPT? --------------------------------------------------------------
def test_bracket_if_across_lines_and_eval_calls(f):
    assert f.eval("1 [IF] 2 . [ELSE] 3 . [THEN]") == "2 "
    assert f.eval("0 [IF] 2 .\n 4 . [ELSE] 3 . [THEN] 5 .") == "3 5 "
    f.eval("0 [IF]")
    assert f.eval("99 .  \\ [THEN] 7 .") == "7 "  # skipping reads words, comments too (Forth-2012, gforth)
    f.eval("0 [IF]")
    assert f.eval("1 [IF] 7 . [THEN] 8 .") == ""  # a nested [IF] is skipped whole
    assert f.eval("[ELSE] 6 . [THEN] 9 .") == "6 9 "
    assert f.skipping is None


def test_bracket_if_in_definitions_and_not_in_prompt_structures(f):
    with pytest.raises(ForthError, match="inside a control structure at the prompt"):
        f.eval("1 0 DO 1 [IF] 2 [THEN] LOOP")
    # in a definition the flag is taken as it is compiled (Forth-2012, gforth)
    assert f.eval(": w [ 0 ] [IF] 2 [ELSE] 3 [THEN] ; w .") == "3 "


def test_tiles_kept_tells_the_backend(f):
    assert f.eval("TILES-KEPT? .") == "-1 "


# ---- the display hook ---------------------------------------------------------------------------
def test_display_hook_renders_views_and_falls_back_to_text(f):
    seen = []
    f.display = lambda kind, view: seen.append((kind, view.plain())) or f"<{kind}>"
    assert f.eval("TZERO .TILE") == "<tile>\n"
    assert seen[0][0] == "tile" and seen[0][1].startswith("acc 16x16 f32")
    f.display = lambda kind, view: None
    assert f.eval(".FRAG").startswith("acc 16x16 f32 (top of the tile stack <1>)")

    def broken(kind, view):
        raise RuntimeError("a view must never fail the line")
    f.display = broken
    assert f.eval(".TILE").startswith("acc 16x16 f32: the top")


# ---- REPL views, rendered by rich at 80 columns ---------------------------------------------------
def render(kind, view, forth=None, colour=False, color_system=None) -> tuple[str, list]:
    console = Console(width=80, record=True, color_system=color_system, file=io.StringIO(),
                      force_terminal=color_system is not None)
    lines = rviews.render(kind, view, forth=forth, width=80, colour=colour)
    for line in lines:
        console.print(line)
    return console.export_text(styles=False), lines


def capture_view(f, src):
    views = []
    f.display = lambda kind, view: views.append(view)
    f.eval(src)
    f.display = None
    return views[-1]


def test_view_uniform_stacks(f):
    view = capture_view(f, "3 4 .STACKS")
    text, _ = render("stacks", view, forth=f)
    assert text == "data  <2> 3 4\nfloat <0>\n"


def test_view_varying_stacks(f):
    view = capture_view(f, "TID-X 2.5e TID-X 2 MOD .STACKS")
    text, _ = render("stacks", view, forth=f)
    lanes = list(range(WARP))
    assert text == (f"data  <2> [{lanes[0]} {lanes[1]} {lanes[2]} … {lanes[-1]}] [(0 1)×{WARP // 2}]\n"
                    "float <1> 2.5\n")


def test_view_tiles_in_the_stack_view(f):
    view = capture_view(f, "TZERO 1.5e TFILL .STACKS")
    text, _ = render("stacks", view, forth=f)
    assert text == ("data  <0>\nfloat <0>\ntiles <2>\n  acc 16x16 f32  min 0.0 max 0.0 mean 0.0\n"
                    "  acc 16x16 f32  min 1.5 max 1.5 mean 1.5\n")


def test_view_tile_values(f):
    f.eval("16 16 F16 MATRIX A  RAMP A  A 16 TLOAD-A")
    text, _ = render("tile", capture_view(f, ".TILE"))
    width = 3  # "255"
    expected = ["a 16x16 f16: the top of the tile stack <1> (m16n16k16, loaded row-major)",
                "  " + "".join(" " + str(c).rjust(width) for c in range(16))]
    for r in range(16):
        expected.append(str(r).rjust(2) + "".join(" " + str(16 * r + c).rjust(width) for c in range(16)))
    assert text.splitlines() == expected


def test_view_fragments_plain(f):
    text, _ = render("frag", capture_view(f, "TZERO .FRAG"))
    lines = text.splitlines()
    head = "   " + " ".join(f"{c:>2}" for c in range(8)) + " | " + " ".join(f"{c:>2}" for c in range(8, 16))
    expected = [head] + [f"{r:>2} " + " ".join(f"{lane_of('acc', r, c):>2}" for c in range(8)) + " | "
                         + " ".join(f"{lane_of('acc', r, c):>2}" for c in range(8, 16)) for r in range(16)]
    start = lines.index(head)
    assert lines[start:start + 17] == expected
    assert lines[:start] == [
        "acc 16x16 f32 (top of the tile stack <1>): the lane that holds each element.",
        "Layout shown: the documented mma.sync m16n8k16 one (PTX ISA 9.7.14.5.8). wmma,",
        "which tileforth uses on the GPU, does not specify its layout, and it differs",
        "between GPU generations.",
        "It is two m16n8k16 accumulators (16x8) side by side: columns 0-7 and 8-15.",
        "In each block lane L, with g = L>>2 and t = L%4, holds c0..c3:",
        "  ci at row g + 8*(i>>1), column 2t + (i&1)",
    ]


def test_view_fragments_are_lane_coloured(f):
    view = capture_view(f, "TZERO .FRAG")
    text, lines = render("frag", view, colour=True, color_system="truecolor")
    colours: dict[int, set] = {}
    for line in lines:
        for span in line.spans:
            style = span.style
            if isinstance(style, str) and " on #" in style:
                lane = int(line.plain[span.start:span.end])
                colours.setdefault(lane, set()).add(style.split(" on ")[1])
    assert sorted(colours) == list(range(WARP))  # every lane's cells are coloured
    assert all(len(c) == 1 for c in colours.values())  # one colour per lane
    assert len({next(iter(c)) for c in colours.values()}) == WARP  # and 32 different colours


def test_view_tile_values_are_heat_coloured(f):
    view = capture_view(f, "-1e TFILL 1e TFILL T+ TZERO 2e TFILL T+ .TILE")
    _, lines = render("tile", view, colour=True, color_system="truecolor")
    styles = {str(span.style) for line in lines for span in line.spans if " on #" in str(span.style)}
    # every value is 2.0: the most positive colour of the palette
    from tileforth.repl import render as views
    assert {s.split(" on ")[1] for s in styles} == {views.PALETTE[-2]}


def test_view_large_matrix_is_a_heat_map_in_colour(f):
    f.eval("100 100 F32 MATRIX big  1 RANDOM big")
    view = capture_view(f, ".M big")
    text, lines = render("matrix", view, colour=True, color_system="truecolor")
    assert lines[1].plain == "each cell is the mean of 2x2 elements; two rows per line; blue < 0 < red, grey = 0"
    assert len(lines) == 2 + 25 and all(line.cell_len == 50 for line in lines[2:])
    plain, _ = render("matrix", view)
    assert plain == view.plain()  # without colour: the corners


def test_ptx_highlighting_makes_tensor_core_instructions_stand_out(f):
    f.eval("16 16 F32 MATRIX C  : st  2e TFILL C 16 TSTORE ;")
    view = capture_view(f, "SEE-PTX st")
    _, lines = render("ptx", view, colour=True, color_system="truecolor")
    code = lines[-1]
    i = code.plain.index("wmma.store.d.sync")
    styles = [str(s.style) for s in code.spans if s.start <= i < s.end]
    assert styles[-1] == rviews.TENSOR_CORE
    j = code.plain.index("ret;")
    assert any(str(s.style) == "bold blue" for s in code.spans if s.start <= j < s.end)


def test_ir_highlighting_marks_wmma_intrinsics():
    text = 'define void @k() {\n  %1 = call i32 @"llvm.nvvm.wmma.m16n16k16.load.a.row.f16"(ptr %p)\n}'
    t = rviews.highlight_ir(text)
    i = text.index("llvm.nvvm.wmma")
    assert [str(s.style) for s in t.spans if s.start <= i < s.end][-1] == rviews.TENSOR_CORE


def test_display_attach_shows_every_stack_at_dot_s(f):
    out = io.StringIO()
    d = Display(out, io.StringIO())
    d.attach(f)
    assert f.eval("1 2 .S") == "data  <2> 1 2\nfloat <0>\n"
    assert f.eval(": show .S ;  show") == "<2> 1 2 "
    assert f.eval("TZERO .TILE").startswith("acc 16x16 f32: the top")  # no colour: plain text


def test_display_on_a_colour_terminal_renders_views_in_colour(f):
    class Terminal(io.StringIO):
        encoding = "utf-8"

        def isatty(self):
            return True
    d = Display(Terminal(), Terminal())
    d.out_console = Console(file=d.out, force_terminal=True, color_system="truecolor", width=80)
    d.attach(f)
    out = f.eval("TZERO .FRAG")
    assert "48;2;" in out  # truecolor backgrounds: the lanes
    assert "lane 0 holds c0=(0,0)" in out


def test_cli_dot_s_shows_every_stack():
    env = dict(os.environ, COLUMNS="80")
    for var in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        env.pop(var, None)
    res = subprocess.run(CLI + ["--stacks", "none", "-e", "TID-X 2.5e .S  : s .S ; s"], capture_output=True,
                         text=True, encoding="utf-8", env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[:2] == [f"data  <1> [0 1 2 … {WARP - 1}]", "float <1> 2.5"]
    assert "[thread 0] <1> 0 " in res.stdout


def test_fragment_table_agrees_with_the_reference():
    """tensor_cores.md 5.3: lane 0 holds A(0,0) A(0,1) A(8,0) A(8,1) A(0,8) A(0,9) A(8,8) A(8,9),
    B(k=0,1,8,9; n=0), C(0,0) C(0,1) C(8,0) C(8,1); and TVM's register form of A:
    register r of lane L holds row L/4 + 8(r%2), columns 2w and 2w+1 with w = L%4 + 4(r/2)."""
    from tileforth.core.session import fragments
    lane_a, reg_a = fragments.block_maps("a")
    lane_b, _ = fragments.block_maps("b")
    lane_c, _ = fragments.block_maps("acc")
    assert sorted(zip(*np.nonzero(lane_a == 0))) == [(0, 0), (0, 1), (0, 8), (0, 9), (8, 0), (8, 1), (8, 8), (8, 9)]
    assert sorted(zip(*np.nonzero(lane_b == 0))) == [(0, 0), (1, 0), (8, 0), (9, 0)]
    assert sorted(zip(*np.nonzero(lane_c == 0))) == [(0, 0), (0, 1), (8, 0), (8, 1)]
    for lane in range(WARP):
        for r in range(4):
            w = lane % 4 + 4 * (r // 2)
            row = lane // 4 + 8 * (r % 2)
            assert lane_a[row, 2 * w] == lane_a[row, 2 * w + 1] == lane
            assert (reg_a[row, 2 * w], reg_a[row, 2 * w + 1]) == (2 * r, 2 * r + 1)
