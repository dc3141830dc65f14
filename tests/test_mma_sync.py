"""mma.sync m16n8k16 (issue 28, point 3): the fragment layouts against the PTX ISA, ldmatrix / stmatrix
from shared tiles (swizzled too) on the emulator, per-lane access to an accumulator, a small GEMM
against numpy, and the GPU code (ptxas accepts it for sm_80 and sm_90; its SASS has HMMA, LDSM, STSM).

The layouts below are the PTX ISA's tables ("Matrix Fragments for mma.m16n8k16 with floating point
type", PTX ISA 9.7.14.5.8), written out here as the ISA states them, not taken from the code.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
import sass
from tileforth.core import Forth, ForthError
from tileforth.export.kernels import word_ptx

WARP = 32


# ---- the PTX ISA's tables -------------------------------------------------------------------------
def isa_a(lane: int, i: int) -> tuple[int, int]:
    """A (16x16, .f16/.bf16), a0..a7: row = groupID for a0, a1, a4, a5 and groupID + 8 for a2, a3, a6, a7;
    col = threadID_in_group * 2 + (i & 0x1) for a0..a3 and that + 8 for a4..a7."""
    group, tig = lane // 4, lane % 4
    row = group if i in (0, 1, 4, 5) else group + 8
    col = tig * 2 + (i & 1) + (8 if i >= 4 else 0)
    return row, col


def isa_b(lane: int, i: int) -> tuple[int, int]:
    """B (16x8), b0..b3: row = threadID_in_group * 2 + (i & 0x1) for b0, b1 and that + 8 for b2, b3;
    col = groupID."""
    group, tig = lane // 4, lane % 4
    return tig * 2 + (i & 1) + (8 if i >= 2 else 0), group


def isa_c(lane: int, i: int) -> tuple[int, int]:
    """C/D (16x8, .f32), c0..c3: row = groupID for c0, c1 and groupID + 8 for c2, c3;
    col = threadID_in_group * 2 + (i & 0x1)."""
    group, tig = lane // 4, lane % 4
    return (group if i < 2 else group + 8), tig * 2 + (i & 1)


ISA = {"a": (isa_a, 8, (16, 16)), "b": (isa_b, 4, (16, 8)), "acc": (isa_c, 4, (16, 8))}


def swizzled(mat: np.ndarray) -> np.ndarray:
    """The bytes of a 128-byte-swizzled shared tile holding mat (rows of 128 bytes): 16-byte chunk c of
    row r is stored at chunk c xor (r mod 8) (CUTLASS's Swizzle<3,4,3>), written here with numpy."""
    raw = np.ascontiguousarray(mat).view(np.uint8).reshape(mat.shape[0], 8, 16)
    out = np.empty_like(raw)
    for r in range(mat.shape[0]):
        for c in range(8):
            out[r, c ^ (r % 8)] = raw[r, c]
    return out.reshape(-1)


def test_the_isa_tables_are_bijections():
    for kind, (where, nel, (rows, cols)) in ISA.items():
        seen = {where(ln, i) for ln in range(WARP) for i in range(nel)}
        assert len(seen) == rows * cols == WARP * nel and seen == {(r, c) for r in range(rows) for c in range(cols)}


@pytest.mark.parametrize("kind", ["a", "b", "acc"])
def test_the_compilers_table_is_the_isas(kind):
    from tileforth.core.compile.tiles import mma_coords
    where, nel, _ = ISA[kind]
    assert all(mma_coords(kind, ln, i) == where(ln, i) for ln in range(WARP) for i in range(nel))


@pytest.fixture
def f():
    return Forth(backend="cpu")


def ints(rng, shape, dtype=np.float16) -> np.ndarray:
    return rng.integers(-4, 5, shape).astype(dtype)


# ---- .FRAG -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind,load", [("a", "A 16 TLOAD-A"), ("b", "B 8 TLOAD-B"), ("acc", "TZERO")])
def test_frag_shows_the_m16n8k16_layout(f, kind, load):
    f.eval("16 8 16 TILE-SHAPE  16 16 F16 MATRIX A  16 8 F16 MATRIX B")
    out = f.eval(f"{load} .FRAG")
    where, nel, (rows, cols) = ISA[kind]
    flat = " ".join(out.split())
    assert "mma.sync m16n8k16" in flat and "which the GPU uses for this tile" in flat
    lane_at = {where(ln, i): ln for ln in range(WARP) for i in range(nel)}
    lines = out.splitlines()
    head = next(k for k, ln in enumerate(lines) if re.fullmatch(r"\s*" + r"\s+".join(map(str, range(cols))), ln))
    grid = [[int(x) for x in ln.split()] for ln in lines[head + 1:head + 1 + rows]]
    assert grid == [[r] + [lane_at[r, c] for c in range(cols)] for r in range(rows)]
    reg = {"a": "a", "b": "b", "acc": "c"}[kind]
    lane0 = ", ".join(f"{reg}{i}=({where(0, i)[0]},{where(0, i)[1]})" for i in range(nel))
    assert f"lane 0 holds {lane0}" in flat


# ---- per-lane access ------------------------------------------------------------------------------
def test_tlane_reads_each_lanes_elements_where_the_isa_puts_them(f):
    rng = np.random.default_rng(0)
    c = rng.integers(-1000, 1000, (16, 8)).astype(np.float32)
    f.eval("16 8 16 TILE-SHAPE  16 8 F32 MATRIX C")
    f.set_array("C", c)
    f.eval("C 8 TLOAD-C  : row-col ( -- )  4 0 DO  I TLANE@ F>S  I TROW  I TCOL  LOOP ;  row-col")
    for lane, stack in enumerate(f.data_stack(lane=None)):
        for i in range(4):
            v, r, col = stack[3 * i:3 * i + 3]
            assert (r, col) == isa_c(lane, i) and v == c[isa_c(lane, i)], (lane, i)


def test_tlane_store_writes_each_lanes_elements(f):
    f.eval("16 8 16 TILE-SHAPE  16 8 F32 MATRIX C")
    f.eval(": mark  4 0 DO  LANE-ID 10 * I + S>F  I TLANE!  LOOP ;  TZERO mark C 8 TSTORE")
    c = f.array("C")
    want = np.zeros((16, 8), np.float32)
    for lane in range(WARP):
        for i in range(4):
            want[isa_c(lane, i)] = 10 * lane + i
    assert np.array_equal(c, want)


def test_tlane_index_outside_the_fragment_is_an_error(f):
    f.eval("16 8 16 TILE-SHAPE  TZERO")
    with pytest.raises(ForthError) as err:
        f.eval("4 TLANE@ FDROP")
    assert "element 4" in err.value.message and "0 to 3" in err.value.message and err.value.word == "TLANE@"
    assert len(f.tile_stack()) == 1  # the session keeps its state


def test_mma_sync_words_need_the_mma_sync_shape(f):
    f.eval("16 64 F16 1 SMEM-TILE S")
    for line in ("0 S 0 0 S-GEOM TLDSM-A", "TZERO 0 TLANE@"):
        with pytest.raises(ForthError) as err:
            f.eval(line)
        assert "16 8 16 TILE-SHAPE" in err.value.message and err.value.pos is not None


# ---- ldmatrix / stmatrix from shared tiles -----------------------------------------------------------
# stage 0 of SA's bytes, as they lie in shared memory, copied to RAWA 2 bytes at a time
COPY = "1024 F16 ARRAY RAWA  : copy  2048 TID-X 2 * DO  I 0 SA + HF@  I RAWA + HF!  64 +LOOP ;  copy"
STAGE = ("GA 128 0 SA SA-GEOM STAGE-TILE  GB 128 0 SB SB-GEOM STAGE-TILE  CP.COMMIT 0 CP.WAIT BARRIER")


def staged(f, kind: str, dtype: str = "F16"):
    """A 16x64 A and a 16x64 (k-major) B, staged into shared tiles of the kind given."""
    rng = np.random.default_rng(3)
    npd = np.float16 if dtype == "F16" else __import__("ml_dtypes").bfloat16
    a, b = ints(rng, (16, 64), npd), ints(rng, (16, 64), npd)
    f.eval(f"{dtype} TILE-IN 16 8 16 TILE-SHAPE  16 64 {dtype} MATRIX GA  16 64 {dtype} MATRIX GB  16 8 F32 MATRIX C  "
           f"16 64 {dtype} 1 {kind} SA  16 64 {dtype} 1 {kind} SB")
    f.set_array("GA", a)
    f.set_array("GB", b)
    f.eval(STAGE)
    return a.astype(np.float32), b.astype(np.float32)


def test_the_staged_swizzled_tile_holds_the_swizzled_bytes(f):
    a, _ = staged(f, "SMEM-TILE-SWZ")
    f.eval(COPY)
    raw = f.array("RAWA").view(np.uint8)
    assert np.array_equal(raw, swizzled(f.array("GA")))


@pytest.mark.parametrize("kind", ["SMEM-TILE", "SMEM-TILE-SWZ"])
@pytest.mark.parametrize("dtype", ["F16", "BF16"])
def test_tldsm_and_tmma_multiply_blocks_of_shared_tiles(f, kind, dtype):
    a, b = staged(f, kind, dtype)
    for r0, k0, n0 in ((0, 0, 0), (0, 16, 8), (0, 48, 56)):
        f.eval(f"TZERO 0 SA {r0} {k0} SA-GEOM TLDSM-A  0 SB 0 {n0} SB-GEOM TLDSM-B TMMA C 8 TSTORE")
        assert np.array_equal(f.array("C"), a[r0:r0 + 16, k0:k0 + 16] @ b[:, n0:n0 + 8]), (r0, k0, n0)


def test_a_wrong_swizzle_reads_the_wrong_elements(f):
    """Read a swizzled tile as if it were not: ldmatrix gets the rows the lanes address, so each row's chunks
    come back permuted, exactly as the swizzled bytes say (and not A)."""
    a, b = staged(f, "SMEM-TILE-SWZ")
    f.eval("TZERO 0 SA 0 16 SA-GEOM 1 32 LSHIFT INVERT AND TLDSM-A  0 SB 0 0 SB-GEOM TLDSM-B TMMA C 8 TSTORE")
    as_read = swizzled(f.array("GA")).view(np.float16).reshape(16, 64).astype(np.float32)
    want = as_read[:, 16:32] @ b[:, 0:8]
    assert np.array_equal(f.array("C"), want) and not np.array_equal(want, a[:, 16:32] @ b[:, 0:8])


@pytest.mark.parametrize("dtype", ["F16", "BF16"])
def test_tstsm_stores_the_accumulator_into_the_shared_tile(f, dtype):
    a, b = staged(f, "SMEM-TILE-SWZ", dtype)
    # the product into columns 8..15 of SA's rows 0..15 (rounded to the input type: exact for these integers),
    # read back by ldmatrix as an A block with B = the identity on those columns
    f.eval("TZERO 0 SA 0 0 SA-GEOM TLDSM-A 0 SB 0 0 SB-GEOM TLDSM-B TMMA  0 SA 0 8 SA-GEOM TSTSM")
    f.eval(COPY)
    npd = np.float16 if dtype == "F16" else __import__("ml_dtypes").bfloat16
    tile = np.frombuffer(swizzled_inverse(f.array("RAWA").view(np.uint8)).tobytes(), npd).reshape(16, 64)
    want = a[:, 0:16] @ b[:, 0:8]
    assert np.array_equal(tile[:, 8:16].astype(np.float32), want)
    assert np.array_equal(tile[:, 16:].astype(np.float32), a[:, 16:])  # the rest as it was


def swizzled_inverse(raw: np.ndarray) -> np.ndarray:
    rows = raw.reshape(-1, 8, 16)
    out = np.empty_like(rows)
    for r in range(len(rows)):
        for c in range(8):
            out[r, c] = rows[r, c ^ (r % 8)]
    return out.reshape(-1)


def test_a_block_outside_the_tile_is_an_error(f):
    staged(f, "SMEM-TILE")
    with pytest.raises(ForthError) as err:
        f.eval("0 SA 8 0 SA-GEOM TLDSM-A")
    assert "not inside the 16x64 shared tile" in err.value.message and err.value.word == "TLDSM-A"
    with pytest.raises(ForthError) as err:
        f.eval("0 SA 0 4 SA-GEOM TLDSM-A")
    assert "multiple of 8" in err.value.message


def test_ldmatrix_before_the_copy_landed_is_an_error(f):
    f.eval("16 8 16 TILE-SHAPE  16 64 F16 MATRIX GA  16 64 F16 1 SMEM-TILE-SWZ SA")
    with pytest.raises(ForthError) as err:
        f.eval("GA 128 0 SA SA-GEOM STAGE-TILE CP.COMMIT  0 SA 0 0 SA-GEOM TLDSM-A  0 CP.WAIT")
    assert "before the cp.async copy into it landed" in err.value.message and err.value.word == "TLDSM-A"


# ---- a small GEMM from the new words, on the emulator --------------------------------------------------
GEMM = r"""
16 8 16 TILE-SHAPE  F16 TILE-IN
32 CONSTANT M  64 CONSTANT N  64 CONSTANT K
M K F16 MATRIX GA  K N F16 MATRIX GB  M N F32 MATRIX GC  N F32 ARRAY BIAS
M K F16 1 SMEM-TILE-SWZ SA  K N F16 1 SMEM-TILE-SWZ SB
64 1 1 THREADS
: stage  GA K 2* 0 SA SA-GEOM STAGE-TILE  GB N 2* 0 SB SB-GEOM STAGE-TILE  CP.COMMIT 0 CP.WAIT BARRIER ;
: wrow ( -- r0 )  WARP-ID 16 * ;
: epilogue { n0 -- }  4 0 DO
    I TLANE@ 2e F*  I TCOL n0 + 4 * BIAS + SF@ F+
    I TROW wrow + N *  I TCOL n0 + +  4 * GC + SF!
  LOOP ;
: tile ( n0 -- )  TZERO  K 0 DO  0 SA wrow I SA-GEOM TLDSM-A  0 SB I 2 PICK SB-GEOM TLDSM-B  TMMA  16 +LOOP
  epilogue TDROP ;
: gemm  stage  N 0 DO I tile 8 +LOOP ;
"""


def test_a_gemm_of_mma_sync_words_matches_numpy(f):
    rng = np.random.default_rng(7)
    a, b = ints(rng, (32, 64)), ints(rng, (64, 64))
    bias = rng.integers(-50, 50, 64).astype(np.float32)
    f.eval(GEMM)
    f.set_array("GA", a)
    f.set_array("GB", b)
    f.set_array("BIAS", bias)
    f.eval("gemm")
    want = 2 * (a.astype(np.float32) @ b.astype(np.float32)) + bias
    assert np.array_equal(f.array("GC"), want)


# ---- the GPU code: ptxas for sm_80 and sm_90, the SASS instructions, the arch gates -----------------------
KERNELS = {
    "kf16": ("F16", ": kf16 ( -- ) TZERO 0 SA 0 16 SA-GEOM TLDSM-A 0 SB 0 8 SB-GEOM TLDSM-B TMMA "
                    "0 TLANE@ 2e F* 0 TLANE!  C 8 TSTORE ;"),
    "kbf16": ("BF16", ": kbf16 ( -- ) TZERO 0 SA 0 16 SA-GEOM TLDSM-A 0 SB 0 8 SB-GEOM TLDSM-B TMMA "
                      "3 TLANE@ 1e F+ 3 TLANE!  C 8 TSTORE ;"),
    "kstsm": ("F16", ": kstsm ( -- ) TZERO 0 SA 0 16 SA-GEOM TLDSM-A 0 SB 0 8 SB-GEOM TLDSM-B TMMA "
                     "0 SA 0 8 SA-GEOM TSTSM ;"),
}


def session(dtype: str) -> Forth:
    f = Forth(backend="cpu")
    f.eval(f"16 8 16 TILE-SHAPE {dtype} TILE-IN  16 8 F32 MATRIX C  16 64 {dtype} 1 SMEM-TILE-SWZ SA  "
           f"16 64 {dtype} 1 SMEM-TILE-SWZ SB")
    return f


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("word", ["kf16", "kbf16", "kstsm"])
def test_ptxas_accepts_the_mma_sync_words_and_their_sass_has_hmma_ldsm_stsm(arch, word):
    sass.require("ptxas")
    dtype, src = KERNELS[word]
    f = session(dtype)
    f.eval(src)
    if word == "kstsm" and arch == "sm_80":
        with pytest.raises(ForthError) as err:
            word_ptx(f, word, arch)
        e = err.value
        assert e.word == "TSTSM" and "sm_90" in e.message and "sm_80" in e.message and e.pos is not None
        return
    ptx = word_ptx(f, word, arch)
    assert "mma.sync.aligned.m16n8k16.row.col.f32" in ptx
    assert ("bf16.bf16" in ptx) == (dtype == "BF16")
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx and "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16" in ptx
    ops = sass.opcodes(sass.sass(sass.cubin(ptx, arch))[word])  # cubin: ptxas accepted it
    assert ops.count("HMMA") == 1 and ops.count("LDSM") == 2, ops
    assert ("STSM" in ops) == (word == "kstsm") and "MOVM" not in ops, ops


def test_mma_sync_tmma_before_sm_80_is_an_error_at_the_word():
    f = session("F16")
    f.eval("16 16 F16 MATRIX A  16 8 F16 MATRIX B  : kg ( -- ) TZERO A 16 TLOAD-A B 8 TLOAD-B TMMA C 8 TSTORE ;")
    with pytest.raises(ForthError) as err:
        word_ptx(f, "kg", "sm_75")
    e = err.value
    assert e.word == "TMMA" and "sm_80" in e.message and "sm_75" in e.message and "--backend cpu" in e.message
    assert "KG" in f.dict or "kg" in f.dict  # the session keeps the word


def test_ldmatrix_for_sm_75_is_an_error_at_the_word():
    """The PTX ISA has ldmatrix from sm_75 (PTX 6.5); LLVM 22 emits PTX 6.3 for sm_75 and would abort the
    process on it ("Cannot select"), so the word refuses it first."""
    f = session("F16")
    f.eval(": kld ( -- ) 0 SA 0 16 SA-GEOM TLDSM-A TDROP ;")
    with pytest.raises(ForthError) as err:
        word_ptx(f, "kld", "sm_75")
    e = err.value
    assert e.word == "TLDSM-A" and "sm_80" in e.message and "sm_75" in e.message and e.pos is not None


def test_global_tload_and_tstore_of_m16n8k16_tiles(f):
    """TLOAD-A/-B/-C (and the -COL loaders) and TSTORE of the m16n8k16 shape, from global memory: on the GPU
    each lane loads its own elements by the layout above (no wmma has this shape)."""
    rng = np.random.default_rng(5)
    a, b, c = ints(rng, (16, 16)), ints(rng, (16, 8)), ints(rng, (16, 8), np.float32)
    f.eval("16 8 16 TILE-SHAPE  16 16 F16 MATRIX A  16 8 F16 MATRIX B  8 16 F16 MATRIX BT  16 8 F32 MATRIX C")
    f.set_array("A", a)
    f.set_array("B", b)
    f.set_array("BT", np.ascontiguousarray(b.T))
    f.set_array("C", c)
    f.eval("C 8 TLOAD-C  A 16 TLOAD-A-COL  BT 16 TLOAD-B-COL  TMMA  C 8 TSTORE")
    assert np.array_equal(f.array("C"), c + a.astype(np.float32).T @ b.astype(np.float32))


def test_global_m16n8k16_tiles_compile_to_per_lane_global_loads_and_hmma():
    sass.require("ptxas")
    f = session("F16")
    f.eval("16 16 F16 MATRIX A  16 8 F16 MATRIX B  : kg ( -- ) C 8 TLOAD-C A 16 TLOAD-A B 8 TLOAD-B TMMA C 8 TSTORE ;")
    ops = sass.opcodes(sass.sass(sass.cubin(word_ptx(f, "kg", "sm_90"), "sm_90"))["kg"])
    assert ops.count("HMMA") == 1 and "LDG" in ops and "STG" in ops and "MOVM" not in ops, ops


def test_the_tiles_md_example_is_exact():
    """docs/tiles.md, "mma.sync and ldmatrix": GF = GA·GB, GA and GB from the formulas of its GEMM section."""
    from test_docs_tiles import DocRun
    doc = DocRun()
    n = 64
    i = np.arange(n * n)
    ga = (((7 * i + 5) % 9) - 4).reshape(n, n).astype(np.float64)
    gb = (((5 * i + 2) % 9) - 4).reshape(n, n).astype(np.float64)
    assert np.array_equal(doc.f.array("GF"), ga @ gb)
    assert doc.after["mma.sync with ldmatrix"]["tiles"][0] == []


def test_the_gemm_compiles_to_ldsm_and_hmma_for_sm_90():
    sass.require("ptxas")
    f = Forth(backend="cpu")
    f.eval(GEMM)
    ins = sass.sass(sass.cubin(word_ptx(f, "gemm", "sm_90"), "sm_90"))["gemm"]
    ops = sass.opcodes(ins)
    # (LLVM unrolls the k loop, 4 steps, and keeps the loop over the 8 n tiles)
    assert ops.count("HMMA") >= 1 and ops.count("LDSM") == 2 * ops.count("HMMA") and "LDGSTS" in ops, ops
    assert "MOVM" not in ops and "LD" not in ops, ops  # no transposes, no generic loads


def test_the_race_detector_sees_ldmatrix_reads(f):
    """ldmatrix's rows are reads of the warp: one after another warp's store with no BARRIER is a race."""
    f.eval("16 8 16 TILE-SHAPE  64 1 1 THREADS  16 64 F16 1 SMEM-TILE SA")
    with pytest.raises(ForthError) as err:
        f.eval("WARP-ID 1 = IF 1e 0 SA 4 + HF! THEN  WARP-ID 0= IF 0 SA 0 0 SA-GEOM TLDSM-A TDROP THEN")
    assert "data race on shared memory" in err.value.message and "thread 0 read it" in err.value.message
    f.eval("BARRIER  WARP-ID 0= IF 0 SA 0 0 SA-GEOM TLDSM-A TDROP THEN")  # ordered: no race


def test_tlane_works_per_lane_inside_a_divergent_if(f):
    """TLANE! is each lane's own (no warp-wide step, as on the GPU): only the odd lanes write here, in 4 blocks."""
    f.eval("16 8 16 TILE-SHAPE  16 8 F32 MATRIX C  4 1 1 GRID")
    f.eval(": k  2e TFILL  LANE-ID 2 MOD IF  LANE-ID S>F 1 TLANE!  THEN  BID-X 0= IF C 8 TSTORE ELSE TDROP THEN ;  k")
    want = np.full((16, 8), 2, np.float32)
    for lane in range(1, WARP, 2):
        want[isa_c(lane, 1)] = lane
    assert np.array_equal(f.array("C"), want)


# ---- TROW and TCOL: the compile-time grid -------------------------------------------------------------
def isa_grid_place(lane: int, i: int, gn: int) -> tuple[int, int]:
    """Element i = 4f + e of a lane's part of an m x n grid of accumulators: element e of fragment f, at
    block row f / n and block column f mod n, 16 rows and 8 columns a block (isa_c within it)."""
    f, e = divmod(i, 4)
    r, c = isa_c(lane, e)
    return 16 * (f // gn) + r, 8 * (f % gn) + c


@pytest.mark.parametrize("gm,gn", [(4, 8), (3, 3), (2, 5)])
def test_trow_tcol_use_the_compile_time_grid_as_constants(gm, gn):
    """A literal index folds to one constant added to the lane's arithmetic, and a run-time index becomes
    shifts, masks or a multiplication by a constant: no division or remainder in the PTX; and each lane's
    values are the ISA's places in the grid (on the emulator, every element of every lane)."""
    n = 4 * gm * gn
    k = 37 % n
    f = Forth(backend="cpu")
    f.eval(f"16 8 16 TILE-SHAPE {gm} {gn} TILE-GRID  32 1 1 THREADS  {n} 64 * CELLS ALLOCATE DROP CONSTANT P "
           f": lit ( a -- )  {k} TROW 1000 * {k} TCOL + SWAP ! ;  : run ( i a -- )  OVER TROW 1000 * ROT TCOL + SWAP ! ;")
    bodies = {w: (p := word_ptx(f, w, "sm_90", unchecked=True))[p.index("{"):] for w in ("lit", "run")}
    for body in bodies.values():
        assert not re.search(r"\b(div|rem)\.", body), body
    # lane 0's place is the constant the literal folds to (the lane's part is 0 for lane 0)
    r0, c0 = isa_grid_place(0, k, gn)
    assert re.search(rf"\b{1000 * r0 + c0};", bodies["lit"]) or 1000 * r0 + c0 == 0, bodies["lit"]
    f.eval(f": places  {n} 0 DO  I TROW  P I 32 * TID-X + 2 * CELLS + !  I TCOL  P I 32 * TID-X + 2 * 1+ CELLS + ! "
           "LOOP ;  places")
    addr = int(f.eval("P .").split()[0])
    got = f.backend.read(addr, n * WARP * 2 * 8).view(np.int64).reshape(n, WARP, 2)
    want = np.array([[isa_grid_place(lane, e, gn) for lane in range(WARP)] for e in range(n)])
    assert np.array_equal(got, want)


# ---- TLDSM-B-COL: b from an n-major tile (ldmatrix .x2, no .trans) -----------------------------------------
def ldmatrix_x2(shared: np.ndarray, addrs: list[int]) -> np.ndarray:
    """PTX's ldmatrix.sync.aligned.m8n8.x2.b16 (no .trans), in numpy: lanes 0..15 give the addresses of the
    rows of 2 matrices (matrix j: lanes 8j..8j+7, row i from lane 8j + i); lane L receives in register j
    elements (L/4, 2(L%4)) and (L/4, 2(L%4)+1) of matrix j. Returns (lane, register j, half) 16-bit values."""
    mats = np.stack([shared[a:a + 16].view(np.float16) for a in addrs]).reshape(2, 8, 8)
    out = np.empty((WARP, 2, 2), np.float16)
    for lane in range(WARP):
        for j in range(2):
            out[lane, j] = mats[j, lane // 4, 2 * (lane % 4):2 * (lane % 4) + 2]
    return out


@pytest.mark.parametrize("swizzle", [False, True])
def test_tldsm_b_col_gives_each_lane_the_isa_b_fragment(f, swizzle):
    """B^T (n x k) in a shared tile; the addresses each lane gives (row n0 + L mod 8, chunk k0/8 + L/8, the
    chunk XOR (row mod 8) when swizzled) are read with the numpy ldmatrix above, and register j of lane L
    holds b elements 2j and 2j+1, which the ISA's table (isa_b) places at (k, n): the b the emulator holds."""
    rng = np.random.default_rng(5)
    bt = rng.integers(-50, 50, (16, 64)).astype(np.float16)
    word = "SMEM-TILE-SWZ" if swizzle else "SMEM-TILE"
    f.eval(f"16 8 16 TILE-SHAPE  16 64 F16 1 {word} S2  16 64 F16 MATRIX BT")
    f.set_array("BT", bt)
    f.eval("BT 128 0 S2 S2-GEOM STAGE-TILE CP.COMMIT 0 CP.WAIT BARRIER  0 S2 8 16 S2-GEOM TLDSM-B-COL")
    shared = np.frombuffer(swizzled(bt) if swizzle else bt.tobytes(), np.uint8)
    n0, k0 = 8, 16
    addrs = []
    for lane in range(16):
        r, ch = n0 + lane % 8, k0 // 8 + lane // 8
        addrs.append(r * 128 + (ch ^ (r % 8) if swizzle else ch) * 16)
    regs = ldmatrix_x2(shared, addrs)
    b = np.full((16, 8), np.nan, np.float32)
    for lane in range(WARP):
        for i in range(4):  # b0..b3: register i // 2, half i % 2
            b[isa_b(lane, i)] = regs[lane, i // 2, i % 2]
    assert np.array_equal(b, bt[n0:n0 + 8, k0:k0 + 16].T.astype(np.float32))  # B = (B^T)^T, every element set
    held = f.backend.get_tiles()[0][-1]
    assert np.array_equal(held, b)


def test_tldsm_b_col_grid_multiplies_as_numpy(f):
    """Under 1 4 TILE-GRID: a 16x16 a block times four b fragments from an n-major tile (8 rows apart), TMMA."""
    rng = np.random.default_rng(6)
    a = rng.integers(-5, 6, (16, 64)).astype(np.float16)
    bt = rng.integers(-5, 6, (64, 64)).astype(np.float16)  # B^T: row n, column k
    f.eval("16 8 16 TILE-SHAPE  16 64 F16 1 SMEM-TILE-SWZ SA4  64 64 F16 1 SMEM-TILE-SWZ SB4  16 64 F16 MATRIX A4  64 64 F16 MATRIX BT4 "
           "16 32 F32 MATRIX C4")
    f.set_array("A4", a)
    f.set_array("BT4", bt)
    f.eval("1 4 TILE-GRID  A4 128 0 SA4 SA4-GEOM STAGE-TILE  BT4 128 0 SB4 SB4-GEOM STAGE-TILE CP.COMMIT 0 CP.WAIT "
           "BARRIER  TZERO 0 SA4 0 16 SA4-GEOM TLDSM-A  0 SB4 24 16 SB4-GEOM TLDSM-B-COL TMMA C4 32 TSTORE  1 1 TILE-GRID")
    want = a[:, 16:32].astype(np.float64) @ bt[24:56, 16:32].T.astype(np.float64)
    assert np.array_equal(f.array("C4"), want)


def test_tldsm_b_col_outside_the_tile_is_an_error(f):
    f.eval("16 8 16 TILE-SHAPE  16 64 F16 1 SMEM-TILE S3")
    with pytest.raises(ForthError, match=r"TLDSM-B-COL: the 8x16 block at row 12, column 0 is not inside the 16x64"):
        f.eval("0 S3 12 0 S3-GEOM TLDSM-B-COL")


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_tldsm_b_col_is_ldsm_without_the_transpose(arch):
    sass.require("ptxas")
    f = Forth(backend="cpu")
    f.eval("16 8 16 TILE-SHAPE  64 64 F16 1 SMEM-TILE-SWZ SA  64 64 F16 1 SMEM-TILE-SWZ SB  16 8 F32 MATRIX C "
           ": kcol ( -- ) TZERO 0 SA 0 16 SA-GEOM TLDSM-A 0 SB 8 16 SB-GEOM TLDSM-B-COL TMMA C 8 TSTORE ;")
    ptx = word_ptx(f, "kcol", arch, unchecked=True)
    assert "ldmatrix.sync.aligned.m8n8.x2.shared.b16" in ptx and "x2.trans" not in ptx, ptx
    text = sass.listing(sass.sass(sass.cubin(ptx, arch))["kcol"])
    assert "LDSM.16.M88.2" in text and "MT88" not in text and "HMMA.16816" in text, text
