"""Big register tiles (issue 28, point 4): `m n TILE-GRID` makes one tile-stack entry an m x n grid of
mma.sync m16n8k16 fragments (a 64x64 warp tile is 4x8 m16n8 accumulators), and loads, ldmatrix, TMMA,
stmatrix, stores and per-lane access unroll over it at compile time.

References: numpy for the products (integer-valued inputs, so every sum is exact), the PTX ISA's
accumulator table (test_mma_sync.isa_c, written out there from the ISA) for each lane's elements, and
ptxas for the GPU code (HMMA, LDSM, no spills).
"""
from __future__ import annotations

import numpy as np
import pytest
import sass
from test_mma_sync import WARP, isa_c
from tileforth.core import Forth, ForthError
from tileforth.export.kernels import word_ptx


def gemm_source(gm: int, gn: int, dtype: str = "F16") -> str:
    """C (64x64) = A (64x64) . B (64x64), A and B staged into swizzled shared tiles; each warp computes one
    16gm x 8gn block of C with one accumulator grid, stored by TLANE@ (into GC) and by TSTORE (into GD)."""
    wm, wn = 16 * gm, 8 * gn
    across = 64 // wn
    warps = (64 // wm) * across
    return rf"""
16 8 16 TILE-SHAPE  {dtype} TILE-IN  {gm} {gn} TILE-GRID
64 CONSTANT M  64 CONSTANT N  64 CONSTANT K
M K {dtype} MATRIX GA  K N {dtype} MATRIX GB  M N F32 MATRIX GC  M N F32 MATRIX GD
M K {dtype} 1 SMEM-TILE-SWZ SA  K N {dtype} 1 SMEM-TILE-SWZ SB
{32 * warps} 1 1 THREADS
: stage  GA K 2* 0 SA SA-GEOM STAGE-TILE  GB N 2* 0 SB SB-GEOM STAGE-TILE  CP.COMMIT 0 CP.WAIT BARRIER ;
: wrow ( -- r0 )  WARP-ID {across} / {wm} * ;
: wcol ( -- c0 )  WARP-ID {across} MOD {wn} * ;
: mm  TZERO  K 0 DO  0 SA wrow I SA-GEOM TLDSM-A  0 SB I wcol SB-GEOM TLDSM-B  TMMA  16 +LOOP ;
: put  {4 * gm * gn} 0 DO  I TLANE@  I TROW wrow + N *  I TCOL wcol + +  4 * GC + SF!  LOOP ;
: gemm  stage mm put  GD wrow N * wcol + 4 * + N TSTORE ;
: gemm-store  stage mm  GD wrow N * wcol + 4 * + N TSTORE ;
"""


def ints(rng, shape, dtype=np.float16) -> np.ndarray:
    return rng.integers(-4, 5, shape).astype(dtype)


def bf16():
    return __import__("ml_dtypes").bfloat16


@pytest.mark.parametrize("gm,gn,dtype", [(2, 4, "F16"), (4, 8, "F16"), (4, 8, "BF16")])
def test_a_grid_gemm_matches_numpy(gm, gn, dtype):
    rng = np.random.default_rng(gm * 10 + gn)
    npd = np.float16 if dtype == "F16" else bf16()
    a, b = ints(rng, (64, 64), npd), ints(rng, (64, 64), npd)
    f = Forth(backend="cpu")
    f.eval(gemm_source(gm, gn, dtype))
    f.set_array("GA", a)
    f.set_array("GB", b)
    f.eval("gemm")
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.array_equal(f.array("GC"), want)  # element by element, TLANE@ at TROW, TCOL
    assert np.array_equal(f.array("GD"), want)  # TSTORE of the grid
    assert f.tile_stack() == []


def test_each_lanes_grid_elements_are_where_the_isa_puts_them():
    """TLANE@ i = 4f + e of an m x n grid is c_e of fragment f = (f / n, f mod n), 16 rows and 8 columns per
    fragment; TROW and TCOL give that place."""
    rng = np.random.default_rng(1)
    c = rng.integers(-1000, 1000, (32, 24)).astype(np.float32)
    f = Forth(backend="cpu")
    f.eval("16 8 16 TILE-SHAPE  2 3 TILE-GRID  32 24 F32 MATRIX C")
    f.set_array("C", c)
    f.eval("C 24 TLOAD-C  : row-col ( -- )  24 0 DO  I TLANE@ F>S  I TROW  I TCOL  LOOP ;  row-col")
    for lane, stack in enumerate(f.data_stack(lane=None)):
        for i in range(24):
            fr, e = divmod(i, 4)
            bi, bj = divmod(fr, 3)
            r, col = isa_c(lane, e)
            want = (16 * bi + r, 8 * bj + col)
            v, got_r, got_c = stack[3 * i:3 * i + 3]
            assert (got_r, got_c) == want and v == c[want], (lane, i)


def test_tlane_store_writes_the_grid_elements():
    f = Forth(backend="cpu")
    f.eval("16 8 16 TILE-SHAPE  2 2 TILE-GRID  32 16 F32 MATRIX C")
    f.eval(": mark  16 0 DO  LANE-ID 100 * I + S>F  I TLANE!  LOOP ;  TZERO mark C 16 TSTORE")
    want = np.zeros((32, 16), np.float32)
    for lane in range(WARP):
        for i in range(16):
            fr, e = divmod(i, 4)
            r, col = isa_c(lane, e)
            want[16 * (fr // 2) + r, 8 * (fr % 2) + col] = 100 * lane + i
    assert np.array_equal(f.array("C"), want)


def test_grid_loads_from_global_memory_row_and_column_major():
    rng = np.random.default_rng(4)
    a, b, c = ints(rng, (32, 16)), ints(rng, (16, 32)), ints(rng, (32, 32), np.float32)
    f = Forth(backend="cpu")
    f.eval("16 8 16 TILE-SHAPE  2 4 TILE-GRID  32 16 F16 MATRIX A  16 32 F16 MATRIX AT  16 32 F16 MATRIX B  "
           "32 16 F16 MATRIX BT  32 32 F32 MATRIX C")
    f.set_array("A", a)
    f.set_array("AT", np.ascontiguousarray(a.T))
    f.set_array("B", b)
    f.set_array("BT", np.ascontiguousarray(b.T))
    f.set_array("C", c)
    f.eval("C 32 TLOAD-C  A 16 TLOAD-A  B 32 TLOAD-B  TMMA  AT 32 TLOAD-A-COL  BT 16 TLOAD-B-COL  TMMA  C 32 TSTORE")
    assert np.array_equal(f.array("C"), c + 2 * (a.astype(np.float32) @ b.astype(np.float32)))


def test_tstsm_stores_a_grid_into_a_shared_tile():
    """The 32x16 product (a 2x2 grid) into columns 16..31 of a 32x64 shared tile, rounded to f16 (exact for
    these integers), copied back out element by element."""
    rng = np.random.default_rng(6)
    a, b = ints(rng, (32, 64)), ints(rng, (16, 64))
    f = Forth(backend="cpu")
    f.eval("16 8 16 TILE-SHAPE  2 2 TILE-GRID  32 64 F16 MATRIX GA  16 64 F16 MATRIX GB  32 64 F16 MATRIX OUT "
           "32 64 F16 1 SMEM-TILE-SWZ SA  16 64 F16 1 SMEM-TILE SB")
    f.set_array("GA", a)
    f.set_array("GB", b)
    f.eval("GA 128 0 SA SA-GEOM STAGE-TILE  GB 128 0 SB SB-GEOM STAGE-TILE  CP.COMMIT 0 CP.WAIT BARRIER")
    f.eval("TZERO 0 SA 0 0 SA-GEOM TLDSM-A  0 SB 0 8 SB-GEOM TLDSM-B  TMMA  0 SA 0 16 SA-GEOM TSTSM")
    # read the swizzled tile back: element (r, c) is at chunk (c/8 xor r mod 8) of row r
    f.eval(": back  32 0 DO  64 0 DO  J 128 *  I 8 / J 8 MOD XOR 16 *  +  I 8 MOD 2* +  0 SA + HF@ "
           "J 64 * I + 2* OUT + HF!  LOOP LOOP ;  1 1 1 THREADS back")
    out = f.array("OUT").astype(np.float32)
    assert np.array_equal(out[:, 16:32], a[:, :16].astype(np.float32) @ b[:, 8:24].astype(np.float32))
    assert np.array_equal(out[:, :16], a[:, :16]) and np.array_equal(out[:, 32:], a[:, 32:])


# ---- the static checks: the grid as a whole -------------------------------------------------------------
def test_a_grid_a_times_a_non_matching_grid_b_is_an_error_at_compile_time():
    f = Forth(backend="cpu")
    f.eval("16 8 16 TILE-SHAPE  4 8 TILE-GRID  64 64 F16 MATRIX A  64 64 F16 MATRIX B")
    f.eval("TZERO A 64 TLOAD-A  2 4 TILE-GRID  B 64 TLOAD-B")
    with pytest.raises(ForthError) as err:
        f.eval("TMMA")
    e = err.value
    assert e.word == "TMMA" and e.pos is not None
    assert "b 1x4" in e.message and "acc 4x8" in e.message and "`4 8 TILE-GRID`" in e.message
    assert len(f.tile_stack()) == 3  # the session keeps its state


def test_a_non_matching_grid_in_a_definition_is_refused_when_it_is_compiled():
    f = Forth(backend="cpu")
    f.eval("16 8 16 TILE-SHAPE  64 64 F16 MATRIX A  64 64 F16 MATRIX B  4 8 TILE-GRID  : la  A 64 TLOAD-A ;  "
           "2 8 TILE-GRID")
    with pytest.raises(ForthError) as err:
        f.eval(": bad  TZERO la B 64 TLOAD-B TMMA TDROP ;")
    assert err.value.word == "TMMA" and "a 4x1" in err.value.message and "acc 2x8" in err.value.message


def test_the_tile_stack_register_budget_counts_whole_grids():
    f = Forth(backend="cpu")
    f.eval("16 8 16 TILE-SHAPE  4 8 TILE-GRID  TZERO")
    with pytest.raises(ForthError) as err:
        f.eval("TDUP")
    e = err.value
    assert e.word == "TDUP" and "192 registers" in e.message and "128 more" in e.message and "TILE-GRID" in e.message
    assert len(f.tile_stack()) == 1


def test_a_grid_needs_the_mma_sync_shape_and_a_size_from_1_to_8():
    f = Forth(backend="cpu")
    f.eval("2 2 TILE-GRID")
    with pytest.raises(ForthError) as err:
        f.eval("TZERO")
    assert "16 8 16 TILE-SHAPE" in err.value.message and "1 1 TILE-GRID" in err.value.message
    for line in ("0 4 TILE-GRID", "9 1 TILE-GRID"):
        with pytest.raises(ForthError) as err:
            f.eval(line)
        assert "1 to 8" in err.value.message


def test_tlane_index_outside_the_grid_is_an_error():
    f = Forth(backend="cpu")
    f.eval("16 8 16 TILE-SHAPE  2 4 TILE-GRID  TZERO")
    with pytest.raises(ForthError) as err:
        f.eval("32 TLANE@ FDROP")
    assert "element 32" in err.value.message and "0 to 31" in err.value.message and err.value.word == "TLANE@"


def test_a_grid_block_outside_the_shared_tile_is_an_error():
    f = Forth(backend="cpu")
    f.eval("16 8 16 TILE-SHAPE  4 4 TILE-GRID  32 64 F16 1 SMEM-TILE SA")
    with pytest.raises(ForthError) as err:  # a 4x1 grid of a blocks is 64 rows: the tile has 32
        f.eval("0 SA 0 0 SA-GEOM TLDSM-A")
    assert "64x16 block" in err.value.message and "32x64 shared tile" in err.value.message


# ---- the GPU code --------------------------------------------------------------------------------------
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("word", ["gemm", "gemm-store"])
def test_a_64x64_warp_tile_compiles_to_hmma_and_ldsm_without_spills(arch, word):
    sass.require("ptxas")
    from tileforth.backends.cuda.ptx import assemble
    f = Forth(backend="cpu")
    f.eval(gemm_source(4, 8))
    cubin, info = assemble(word_ptx(f, word, arch), arch)
    fn = word.replace("-", "_") if word not in info else word
    assert info[fn].spill_stores == 0 and info[fn].spill_loads == 0 and info[fn].stack_frame == 0, info[fn]
    ops = sass.opcodes(sass.sass(cubin)[fn])
    # 4 k steps (LLVM unrolls the k loop), each 4x8 mma.sync and 4 + 8 ldmatrix
    assert ops.count("HMMA") == 4 * 32 and ops.count("LDSM") == 4 * 12, ops
    assert "MOVM" not in ops and "LD" not in ops and "STL" not in ops and "LDL" not in ops, ops


def test_the_tiles_md_examples_are_exact():
    """docs/tiles.md, "Big register tiles": gemm-w stores GW = GA·GB from one 4x8 grid, and the grid epilogue
    adds one to each element where TROW and TCOL say it lies; GA and GB from the formulas of the page's GEMM
    section."""
    from test_docs_tiles import DocRun
    doc = DocRun()
    n = 64
    i = np.arange(n * n)
    ga = (((7 * i + 5) % 9) - 4).reshape(n, n).astype(np.float64)
    gb = (((5 * i + 2) % 9) - 4).reshape(n, n).astype(np.float64)
    assert np.array_equal(doc.f.array("GW"), ga @ gb + 1)
    assert doc.after["a 64x64 warp tile"]["tiles"][0] == [] and doc.after["a grid epilogue"]["tiles"][0] == []
    assert doc.after["a grid epilogue"]["cfg"].grid == (1, 1)


def test_the_other_grid_words_compile_for_sm_90():
    """Global loads of each layout, T+ TSCALE TSWAP of grids, TLANE! and a grid stmatrix: ptxas accepts them;
    the SASS has one HMMA per accumulator fragment and TMMA, one STSM per fragment, and no spills."""
    sass.require("ptxas")
    from tileforth.backends.cuda.ptx import assemble
    f = Forth(backend="cpu")
    f.eval("16 8 16 TILE-SHAPE  2 4 TILE-GRID  32 16 F16 MATRIX A  16 32 F16 MATRIX AT  16 32 F16 MATRIX B  "
           "32 16 F16 MATRIX BT  32 32 F32 MATRIX C  32 64 F16 1 SMEM-TILE-SWZ SA")
    f.eval(": kg ( -- ) C 32 TLOAD-C A 16 TLOAD-A B 32 TLOAD-B TMMA  AT 32 TLOAD-A-COL BT 16 TLOAD-B-COL TMMA "
           "TZERO T+ 2e TSCALE 1e TFILL TSWAP T+  31 TLANE@ 1e F+ 31 TLANE!  TDUP C 32 TSTORE  0 SA 0 16 SA-GEOM TSTSM ;")
    rng = np.random.default_rng(8)
    a, b, c = ints(rng, (32, 16)), ints(rng, (16, 32)), ints(rng, (32, 32), np.float32)
    for name, v in (("A", a), ("AT", a.T), ("B", b), ("BT", b.T), ("C", c)):
        f.set_array(name, np.ascontiguousarray(v))
    f.eval("kg")  # on the emulator too: C = 2 (c + 2 a.b) + 1, then element 31 of each lane one more
    want = 2 * (c + 2 * (a.astype(np.float32) @ b.astype(np.float32))) + 1
    for lane in range(WARP):
        r, col = isa_c(lane, 3)
        want[16 + r, 24 + col] += 1  # element 31 = c3 of fragment 7, block (1, 3)
    assert np.array_equal(f.array("C"), want)
    cubin, info = assemble(word_ptx(f, "kg", "sm_90"), "sm_90")
    assert info["kg"].spill_stores == 0 and info["kg"].stack_frame == 0, info["kg"]
    ops = sass.opcodes(sass.sass(cubin)["kg"])
    assert ops.count("HMMA") == 2 * 8 and ops.count("STSM") == 8 and "LDG" in ops and "STG" in ops, ops


def test_the_race_detector_sees_the_whole_lines_of_a_grid():
    """A 4x8 f32 grid's rows are 256 bytes: two warps storing different values to blocks that overlap only in
    the second half of warp 0's rows (columns 40..63) race; blocks side by side do not."""
    f = Forth(backend="cpu")
    f.eval("16 8 16 TILE-SHAPE  4 8 TILE-GRID  64 128 F32 MATRIX GD  64 1 1 THREADS")
    with pytest.raises(ForthError) as err:  # warp 0: columns 0..63, warp 1: columns 40..103
        f.eval("WARP-ID 1+ S>F TFILL  GD WARP-ID 160 * + 128 TSTORE")
    e = err.value
    assert "data race on global memory at GD+160" in e.message and "threads 32-63 wrote it with TSTORE" in e.message
    f.eval("WARP-ID 1+ S>F TFILL  GD WARP-ID 256 * + 128 TSTORE")  # columns 0..63 and 64..127
    assert np.array_equal(f.array("GD"), np.repeat(np.array([1, 2], np.float32), 64)[None].repeat(64, 0))
