"""Shared-memory tiles (SMEM-TILE, SMEM-TILE-SWZ) and asynchronous copies (CP.ASYNC, CP.ASYNC-N,
CP.COMMIT, CP.WAIT, the prelude's SWIZZLE128 and STAGE-TILE): issue 28, points 1, 2 and 6.

* The data a copy stages, and where the 128-byte swizzle puts it, against numpy (the swizzle's
  formula written out here: 16-byte chunk c of row r at chunk c XOR (r mod 8)).
* The emulator's copy model: a copy lands at the wait that covers its group, not before (unchecked,
  a read before the wait sees the old bytes, as on a GPU); in checked mode each misuse is a
  ForthError with the tile, the stage, the group and the wait it needs, and the session goes on.
* The cuda lowering: ptxas accepts the PTX for sm_80 and sm_90, whose SASS has LDGSTS, LDGDEPBAR
  and DEPBAR; an older arch is a ForthError at the word (never an LLVM abort).
"""
from __future__ import annotations

import numpy as np
import pytest
import sass
from tileforth.core import Forth, ForthError
from tileforth.export.kernels import segment_ptx, word_ptx


def swizzle_offsets(rows: int) -> np.ndarray:
    """numpy's 128-byte swizzle: the byte offset of chunk c (0..7) of row r, (rows, 8)."""
    r = np.arange(rows)[:, None]
    c = np.arange(8)[None, :]
    return r * 128 + (c ^ (r % 8)) * 16


def shared_bytes(f: Forth, nbytes: int) -> np.ndarray:
    """The first nbytes of this session's block shared memory (the emulator's region, read from the
    host: one block, so the region is the block's)."""
    return f.backend.read(f.backend.shared_regions()[0], nbytes)


def run_error(f: Forth, src: str) -> str:
    with pytest.raises(ForthError) as e:
        f.eval(src)
    return str(e.value)


# ---- the swizzle -------------------------------------------------------------------------------------
def test_swizzle128_is_the_numpy_formula_for_every_row_and_chunk():
    f = Forth(backend="cpu")
    f.eval("512 1 1 THREADS  512 I64 ARRAY out  TID-X 8 /MOD SWAP SWIZZLE128  TID-X CELLS out + !")
    got = f.array("out").reshape(64, 8)
    assert (got == swizzle_offsets(64)).all()


def test_stage_tile_into_a_swizzled_tile_puts_each_chunk_where_the_formula_says():
    """A 64x64 bf16 matrix (integer values, exact in bf16) staged by 128 threads into stage 1 of a
    swizzled ring: shared memory holds chunk c of row r at 1 Bs + r*128 + (c xor r mod 8)*16."""
    f = Forth(backend="cpu")
    f.eval("128 1 1 THREADS  64 64 BF16 MATRIX a  RAMP a  64 64 BF16 2 SMEM-TILE-SWZ Bs")
    f.eval("a 128 1 Bs Bs-GEOM STAGE-TILE CP.COMMIT 0 CP.WAIT BARRIER")
    a = f.array("a")
    raw = shared_bytes(f, 2 * 8192)[8192:]  # stage 1
    want = np.zeros(8192, np.uint8)
    rows = a.view(np.uint8).reshape(64, 8, 16)  # row r, chunk c: 16 bytes
    for r in range(64):
        for c in range(8):
            o = swizzle_offsets(64)[r, c]
            want[o:o + 16] = rows[r, c]
    assert (raw == want).all()
    # read back through the swizzle, element (r, k) = a[r, k]
    f.eval("64 64 F32 MATRIX back  128 1 1 THREADS")
    f.eval(": el ( r k -- f ) OVER SWAP 8 /MOD ( r r k%8 k/8 ) SWAP >R SWIZZLE128 R> 2* + 1 Bs + ;")
    f.eval("4096 TID-X ?DO I 64 /MOD SWAP ( r k ) 2DUP el BF@ 64 * + 4 * back + SF! 128 +LOOP")
    assert (f.array("back") == a.astype(np.float32)).all()


# ---- staged data ---------------------------------------------------------------------------------------
def test_stage_tile_copies_a_window_of_a_bigger_matrix():
    """A 16x32 f32 window (rows 8.., columns 16..) of a 48x64 matrix, through its row stride."""
    f = Forth(backend="cpu")
    f.eval("96 1 1 THREADS  48 64 F32 MATRIX m  RAMP m  16 32 F32 3 SMEM-TILE w")
    f.eval("8 64 * 16 + 4 * m +  256  2 w  w-GEOM STAGE-TILE CP.COMMIT 0 CP.WAIT BARRIER")
    m = f.array("m")
    got = shared_bytes(f, 3 * 2048)[2 * 2048:].view(np.float32).reshape(16, 32)
    assert (got == m[8:24, 16:48]).all()


def test_every_block_stages_its_own_tile_on_every_worker():
    """8 blocks of 128 threads (1024 threads: the emulator runs blocks on several workers, each with
    its shared region and its copy model), each staging its 16 rows of a matrix and writing them back
    through shared memory: the copy is the matrix."""
    f = Forth(backend="cpu")
    f.eval("8 1 1 GRID 128 1 1 THREADS  128 64 F32 MATRIX m  RAMP m  128 64 F32 MATRIX out  16 64 F32 2 SMEM-TILE t")
    f.eval("BID-X 1024 * 4 * m +  256  BID-X 2 MOD t  t-GEOM STAGE-TILE CP.COMMIT 0 CP.WAIT BARRIER "
           "1024 THREAD-ID ?DO  BID-X 2 MOD t I 4 * + SF@  BID-X 1024 * I + 4 * out + SF!  128 +LOOP")
    assert (f.array("out") == f.array("m")).all()


def test_the_zero_fill_form_reads_n_bytes_and_zeroes_the_rest():
    f = Forth(backend="cpu")
    f.eval("17 1 1 THREADS  64 I8 ARRAY src  RAMP src  17 16 I8 1 SMEM-TILE t")
    f.eval("src 16 +  TID-X 16 * 0 t +  TID-X CP.ASYNC-N  CP.COMMIT 0 CP.WAIT BARRIER")
    got = shared_bytes(f, 17 * 16).reshape(17, 16)
    want = np.array([[16 + i if i < n else 0 for i in range(16)] for n in range(17)], np.uint8)
    assert (got == want).all()


def test_a_two_stage_ring_pipeline_sums_the_tiles_as_numpy_does():
    """The double-buffered loop of a GEMM's main loop: stage k+1 is in flight while stage k is read
    (1 CP.WAIT), each stage refilled only after a BARRIER: the checked emulator finds no misuse,
    and the sum of the 8 tiles is numpy's."""
    f = Forth(backend="cpu")
    f.eval("64 1 1 THREADS  8 16 16 * * F32 ARRAY src  RAMP src  16 16 F32 2 SMEM-TILE ring  256 F32 ARRAY acc")
    f.eval(": fetch ( k -- ) DUP 1024 * src +  64  ROT 2 MOD ring  ring-GEOM STAGE-TILE CP.COMMIT ;")
    f.eval(": add-stage ( s -- ) ring  4 0 DO  DUP TID-X 4 * I 256 * + + SF@  TID-X 4 * I 256 * + acc + "
           "DUP SF@ F+ SF!  LOOP DROP ;")
    f.eval("0 fetch  8 0 DO  I 7 < IF I 1+ fetch 1 CP.WAIT ELSE 0 CP.WAIT THEN  BARRIER  I 2 MOD add-stage "
           "BARRIER  LOOP")
    src = f.array("src").reshape(8, 256)
    assert (f.array("acc") == src.sum(axis=0)).all()


def test_a_read_before_the_wait_sees_the_old_bytes_when_unchecked():
    """Unchecked (no checks, as an exported kernel runs), a copy lands at the wait and not before:
    the destination keeps its old value until then, as a GPU may show it."""
    src = ("32 1 1 THREADS  16 F32 ARRAY g  RAMP g  1 16 F32 1 SMEM-TILE t  TID-X 0= IF 99e 0 t SF! "
           "g 0 t CP.ASYNC CP.COMMIT  0 t SF@ F.  0 CP.WAIT  0 t 4 + SF@ F. THEN")
    assert Forth(backend="cpu", checked=False).eval(src).split() == ["[thread", "0]", "99.", "1."]
    msg = run_error(Forth(backend="cpu"), src)
    assert "SF@: thread 0 reads stage 0 of t" in msg and "`0 CP.WAIT`" in msg


# ---- misuse, in checked mode ------------------------------------------------------------------------
SETUP = "64 1 1 THREADS  64 F32 ARRAY g  RAMP g  4 16 F32 2 SMEM-TILE s  "
COPY0 = "TID-X 4 < IF TID-X 16 * g +  TID-X 16 * 0 s +  CP.ASYNC THEN  "
COPY1 = "TID-X 4 < IF TID-X 16 * g +  TID-X 16 * 1 s +  CP.ASYNC THEN  "


def test_a_read_before_the_wait_is_an_error_naming_tile_stage_group_and_wait():
    f = Forth(backend="cpu")
    msg = run_error(f, SETUP + COPY0 + "CP.COMMIT  TID-X 0= IF 0 s SF@ F. THEN  0 CP.WAIT")
    assert msg.startswith("line 1, column")
    for part in ("SF@: thread 0 reads stage 0 of s (row 0, bytes 0..15 of the row)",
                 "before the cp.async copy into it landed", "thread 0's copy, its group 0",
                 "it lands at thread 0's `0 CP.WAIT`"):
        assert part in msg, msg
    assert f.eval("1 2 + .") == "3 "  # the session goes on


def test_another_threads_copy_needs_its_wait_and_a_barrier():
    f = Forth(backend="cpu")
    msg = run_error(f, SETUP + COPY0 + "CP.COMMIT 0 CP.WAIT  TID-X 40 = IF 0 s 20 + SF@ F. THEN")
    # thread 40 ran before thread 1 reached its wait: no BARRIER between
    assert "thread 40 reads stage 0 of s (row 0, bytes 16..31 of the row)" in msg, msg
    assert "thread 1's copy" in msg and "needs that wait and then a BARRIER" in msg, msg


def test_reading_another_threads_landed_copy_needs_a_barrier():
    f = Forth(backend="cpu")
    f.eval(SETUP)
    msg = run_error(f, COPY0 + "CP.COMMIT 0 CP.WAIT  TID-X 1 = IF 0 s SF@ F. THEN")
    want = ("SF@: thread 1 touches stage 0 of s (row 0, bytes 0..15 of the row), which thread 0's cp.async copy "
            "filled at its wait, with no BARRIER since")
    assert want in msg, msg
    assert f.eval(COPY0 + "CP.COMMIT 0 CP.WAIT BARRIER TID-X 40 = IF 0 s 4 + SF@ F. THEN").split() == \
        ["[thread", "40]", "1."]


def test_a_wrong_wait_count_is_an_error_naming_the_wait_it_needs():
    f = Forth(backend="cpu")
    msg = run_error(f, SETUP + COPY0 + "CP.COMMIT " + COPY1 + "CP.COMMIT  1 CP.WAIT BARRIER  TID-X 0= IF 1 s SF@ F. THEN  0 CP.WAIT")
    for part in ("reads stage 1 of s", "its group 1", "`0 CP.WAIT`",
                 "its last wait, `1 CP.WAIT`, left its 1 newest group in flight, this one among them"):
        assert part in msg, msg
    # the right count: stage 0 (group 0) has landed after 1 CP.WAIT
    out = Forth(backend="cpu").eval(SETUP + COPY0 + "CP.COMMIT " + COPY1 + "CP.COMMIT  1 CP.WAIT BARRIER  "
                                    "TID-X 0= IF 0 s 8 + SF@ F. THEN  0 CP.WAIT")
    assert out.split() == ["[thread", "0]", "2."]


def test_a_tile_load_from_a_stage_before_its_wait_is_an_error():
    """TLOAD-A of a stage whose copies have not all landed (the warp's own threads waited, but thread 32's
    copy, in another warp, lands only at its wait, after which a BARRIER is needed)."""
    f = Forth(backend="cpu")
    f.eval("64 1 1 THREADS  16 16 F16 MATRIX a  RAMP a  16 16 F16 1 SMEM-TILE t")
    msg = run_error(f, "TID-X 31 < TID-X 32 = OR IF TID-X 31 MIN 16 * a +  TID-X 31 MIN 16 * 0 t +  CP.ASYNC THEN "
                       "CP.COMMIT  TID-X 32 < IF 0 CP.WAIT 0 t 16 TLOAD-A TDROP THEN")
    want = ("TLOAD-A: the warp of threads 0-31 reads stage 0 of t (row 15, bytes 16..31 of the row) before the "
            "cp.async copy into it landed: it is thread 32's copy")
    assert want in msg, msg
    # thread 32 waited too, but no BARRIER came between its wait and the other warp's load
    msg = run_error(f, "TID-X 31 < TID-X 32 = OR IF TID-X 31 MIN 16 * a +  TID-X 31 MIN 16 * 0 t +  CP.ASYNC THEN "
                       "CP.COMMIT  0 CP.WAIT  TID-X 32 < IF 0 t 16 TLOAD-A TDROP THEN")
    want = ("TLOAD-A: the warp of threads 0-31 reads stage 0 of t (row 15, bytes 16..31 of the row), which thread "
            "32's cp.async copy filled at its wait, with no BARRIER since")
    assert want in msg, msg
    # waited and BARRIERed: the load sees the staged tile (times the identity: the tile itself)
    f.eval("16 16 F16 MATRIX id  IDENTITY id  16 16 F32 MATRIX c")
    f.eval("TID-X 32 < IF TID-X 16 * a +  TID-X 16 * 0 t +  CP.ASYNC THEN  CP.COMMIT 0 CP.WAIT BARRIER "
           "TID-X 32 < IF TZERO 0 t 16 TLOAD-A id 16 TLOAD-B TMMA c 16 TSTORE THEN")
    assert (f.array("c") == f.array("a").astype(np.float32)).all()


def test_a_copy_into_a_stage_still_being_read_is_an_error():
    f = Forth(backend="cpu")
    msg = run_error(f, SETUP + COPY0 + "CP.COMMIT 0 CP.WAIT BARRIER  63 TID-X - 4 * 0 s + SF@ FDROP  " + COPY0 +
                    "CP.COMMIT 0 CP.WAIT")
    refill = "CP.ASYNC: thread 0 refills stage 0 of s (row 0, bytes 0..15 of the row) while thread 63 may still"
    assert refill + " be reading it" in msg, msg
    assert "put a BARRIER between the last read of a stage and the CP.ASYNC that refills it" in msg
    # with the BARRIER it is fine
    Forth(backend="cpu").eval(SETUP + COPY0 + "CP.COMMIT 0 CP.WAIT BARRIER  63 TID-X - 4 * 0 s + SF@ FDROP  BARRIER "
                              + COPY0 + "CP.COMMIT 0 CP.WAIT")


def test_a_copy_over_a_copy_in_flight_and_a_write_over_one_are_errors():
    f = Forth(backend="cpu")
    msg = run_error(f, SETUP + "TID-X 0= IF g 0 s CP.ASYNC CP.COMMIT g 16 + 0 s CP.ASYNC CP.COMMIT THEN 0 CP.WAIT")
    assert "thread 0 copies into stage 0 of s" in msg, msg
    assert "thread 0's copy into the same bytes (its group 0) has not landed" in msg, msg
    msg = run_error(f, SETUP.replace(" s  ", " s4  ") + "TID-X 0= IF g 0 s4 CP.ASYNC CP.COMMIT 7 0 s4 8 + ! THEN 0 CP.WAIT")
    assert "!: thread 0 writes stage 0 of s4" in msg and "wait for the copy before writing over it" in msg, msg


def test_a_wait_that_can_never_land_the_copies_is_an_error():
    f = Forth(backend="cpu")
    msg = run_error(f, SETUP + COPY0 + "0 CP.WAIT")
    assert "0 CP.WAIT can never land thread 0's 1 copy since its last CP.COMMIT" in msg, msg
    assert "CP.COMMIT before the wait" in msg


def test_a_block_that_ends_with_copies_in_flight_is_reported():
    f = Forth(backend="cpu")
    msg = run_error(f, "2 1 1 GRID " + SETUP + COPY0 + "CP.COMMIT")
    assert "block 0 finished with 4 cp.async copies in flight that no CP.WAIT landed" in msg, msg


def test_a_stage_past_the_ring_and_bad_sizes_are_errors():
    f = Forth(backend="cpu")
    f.eval(SETUP)
    assert "stage 2 of s (thread 2): s has 2 stages, 0 to 1" in run_error(f, "TID-X 2 MIN s DROP")
    msg = run_error(f, "g 0 s 17 CP.ASYNC-N CP.COMMIT 0 CP.WAIT")
    assert "asks for 17 bytes; a copy reads 0 to 16" in msg
    assert "multiple of 16" in run_error(f, "g 4 + 0 s CP.ASYNC CP.COMMIT 0 CP.WAIT")
    assert "outside every allocation" in run_error(f, "0 0 s CP.ASYNC CP.COMMIT 0 CP.WAIT")


def test_cp_wait_needs_a_literal_count():
    f = Forth(backend="cpu")
    assert "CP.WAIT needs a literal count before it" in run_error(f, "1 1 + CP.WAIT")
    assert "CP.WAIT needs a literal count before it" in run_error(f, "8 CP.WAIT")


@pytest.mark.parametrize("decl,message", [
    ("16 60 BF16 2 SMEM-TILE x", "must be a multiple of 16 bytes"),
    ("16 32 BF16 2 SMEM-TILE-SWZ x", "a 128-byte swizzle needs rows of 128 bytes (64 BF16)"),
    ("1024 1024 F32 2 SMEM-TILE x", "do not fit"),
    ("16 0 F32 2 SMEM-TILE x", "positive rows"),
    ("16 16 99 2 SMEM-TILE x", "is not an element type"),
])
def test_bad_declarations_are_errors(decl, message):
    assert message in run_error(Forth(backend="cpu"), decl)


def test_stages_are_aligned_as_the_hardware_needs():
    """128 bytes for a plain tile, 1024 for a swizzled one (its pattern repeats every 1024 bytes)."""
    f = Forth(backend="cpu")
    f.eval("3 SHARED: x  1 16 F32 3 SMEM-TILE p  8 64 F16 2 SMEM-TILE-SWZ q")
    out = f.eval("0 p x - . 1 p 0 p - .  0 q x - .  1 q 0 q - .")
    assert [int(v) for v in out.split()] == [128, 128, 1024, 1024]


# ---- the cuda lowering ------------------------------------------------------------------------------
KERNEL = ("128 1 1 THREADS  64 64 BF16 MATRIX a  64 64 BF16 2 SMEM-TILE-SWZ As  16 F32 ARRAY edge  "
          ": stage2 ( -- ) a 128 0 As As-GEOM STAGE-TILE CP.COMMIT  a 4096 + 128 1 As As-GEOM STAGE-TILE "
          "CP.COMMIT  THREAD-ID 16 * edge + 0 As THREAD-ID 16 * + 0 CP.ASYNC-N  CP.COMMIT  1 CP.WAIT  BARRIER "
          "0 CP.WAIT BARRIER ;")


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_ptxas_accepts_the_copies_and_sass_has_ldgsts_ldgdepbar_and_depbar(arch):
    sass.require("ptxas")
    f = Forth()
    f.eval(KERNEL)
    ptx = word_ptx(f, "stage2", arch)
    words = " ".join(ptx.split())
    for ins in ("cp.async.cg.shared.global [", "cp.async.commit_group;", "cp.async.wait_group 1;", "cp.async.wait_group 0;"):
        assert ins in words, ptx
    ins = sass.sass(sass.cubin(ptx, arch))["stage2"]
    ops = [i.opcode for i in ins]
    bases = sass.opcodes(ins)
    assert "LDGSTS" in bases and "LDGDEPBAR" in bases and "DEPBAR" in bases, sass.listing(ins)
    assert any(o.startswith("LDGSTS.E.BYPASS") and o.endswith("128") for o in ops), ops
    assert any(o.startswith("DEPBAR.LE") for o in ops), ops


def test_the_checked_repl_line_compiles_for_ptxas_too():
    sass.require("ptxas")
    f = Forth()
    f.eval(KERNEL)
    body = f.dict["STAGE2"].body
    ptx = segment_ptx(f, body, [], "sm_80")
    sass.cubin(ptx, "sm_80")  # ptxas accepts it (raises otherwise)


@pytest.mark.parametrize("word", ["CP.ASYNC", "CP.COMMIT", "0 CP.WAIT", "CP.ASYNC-N"])
def test_an_arch_without_cp_async_is_a_forth_error_at_the_word(word):
    f = Forth()
    f.eval("64 F32 ARRAY g  1 16 F32 1 SMEM-TILE t")
    args = {"CP.ASYNC": "g 0 t ", "CP.ASYNC-N": "g 0 t 8 "}.get(word, "")
    f.eval(f": w {args}{word} ;")
    with pytest.raises(ForthError) as e:
        word_ptx(f, "w", "sm_75")
    assert f"{word.split()[-1]} needs sm_80 or newer (cp.async), but the target is sm_75" in str(e.value)
    word_ptx(f, "w", "sm_80")  # the same word compiles where the arch has it


# ---- a store and a copy into the same bytes; a copy's source written before its wait (issue 28) -----------
HAZ = "64 1 1 THREADS 64 16 F16 MATRIX g  RAMP g  64 16 F16 1 SMEM-TILE s  "
LANDED = "TID-X 32 * g +  TID-X 32 * 0 s +  CP.ASYNC CP.COMMIT 0 CP.WAIT BARRIER  "  # every row staged, published
ROW40 = "0 s 40 32 * +"


def test_a_copy_into_bytes_another_thread_stored_with_no_barrier_is_an_error():
    f = Forth(backend="cpu")
    f.eval(HAZ)
    msg = run_error(f, LANDED + f"TID-X 0= IF 7e {ROW40} HF! THEN  TID-X 40 = IF g {ROW40} CP.ASYNC THEN "
                    "CP.COMMIT 0 CP.WAIT")
    assert ("CP.ASYNC: thread 40 copies into stage 0 of s (row 40, bytes 0..15 of the row), which thread 0 stored "
            "into since the last BARRIER") in msg, msg
    assert "put a BARRIER between the store and the CP.ASYNC" in msg
    # a BARRIER between them, or the store and the copy by one thread (program order): no error, the copy wins
    f.eval(LANDED + f"TID-X 0= IF 7e {ROW40} HF! THEN BARRIER  TID-X 40 = IF g {ROW40} CP.ASYNC THEN CP.COMMIT "
           "0 CP.WAIT BARRIER")
    f.eval(LANDED + f"TID-X 40 = IF 7e {ROW40} HF! g {ROW40} CP.ASYNC THEN CP.COMMIT 0 CP.WAIT BARRIER")
    assert shared_bytes(f, 64 * 32)[40 * 32:40 * 32 + 16].tobytes() == f.array("g").tobytes()[:16]


def test_a_copy_into_a_stage_a_warp_stored_a_tile_into_with_no_barrier_is_an_error():
    """Warp 0 stores a 16x16 tile into rows 0..15 (a tile store: one access of its first lane, thread 0); warp 1,
    two tile ops later, copies into row 0. Also batched: all 4 warps store their rows, then copy into another's."""
    f = Forth(backend="cpu")
    f.eval(HAZ)
    msg = run_error(f, LANDED + "TID-X 32 < IF TZERO 0 s 16 TSTORE ELSE TZERO TDROP THEN  TID-X 40 = IF g 0 s "
                    "CP.ASYNC THEN CP.COMMIT 0 CP.WAIT")
    assert "thread 40 copies into stage 0 of s (row 0, bytes 0..15 of the row), which thread 0 stored into" in msg, msg
    f.eval(LANDED + "TID-X 32 < IF TZERO 0 s 16 TSTORE ELSE TZERO TDROP THEN BARRIER  TID-X 40 = IF g 0 s CP.ASYNC "
           "THEN CP.COMMIT 0 CP.WAIT")
    f.eval("128 1 1 THREADS  64 16 F32 1 SMEM-TILE s4")  # 64-byte rows: a warp's f32 16x16 tile is 16 rows
    # (the launch's first op of the copy model comes after the stores: the model watches them from the start)
    stores = "TZERO  TID-X 32 / 1024 * 0 s4 + 16 TSTORE  "  # every warp its rows, one batched op
    # each thread copies 16 bytes into the next warp's rows (warp 0 into warp 1's, ..., warp 3 into warp 0's)
    copy = "TID-X 16 * g +  TID-X 32 / 1+ 3 AND 1024 *  TID-X 31 AND 16 * + 0 s4 +  CP.ASYNC "
    msg = run_error(f, stores + copy + "CP.COMMIT 0 CP.WAIT")
    want = ("CP.ASYNC: thread 0 copies into stage 0 of s4 (row 16, bytes 0..15 of the row), which thread 32 stored "
            "into since the last BARRIER")
    assert want in msg, msg
    f.eval(stores + "BARRIER " + copy + "CP.COMMIT 0 CP.WAIT")


def test_a_copys_source_written_before_its_wait_is_an_error():
    """The copying thread itself stores into the global bytes its copy reads, between the CP.ASYNC and the
    wait (another thread's store there is a race the race detector reports)."""
    f = Forth(backend="cpu")
    f.eval(HAZ)
    copy = "TID-X 32 * g +  TID-X 32 * 0 s +  CP.ASYNC CP.COMMIT  "
    msg = run_error(f, copy + "TID-X 1 = IF 7e g 34 + HF! THEN  0 CP.WAIT")
    assert ("0 CP.WAIT: the global bytes at g+32 (bytes) that thread 1's cp.async copy into stage 0 of s (row 1, "
            "bytes 0..15 of the row) (its group 0) reads were written after its CP.ASYNC and before this wait") in msg
    assert "write the source only after the wait that lands the copy" in msg
    # after the wait: fine, and the stage holds the bytes the copy read (a new session: the failed line's store
    # stays in g)
    f = Forth(backend="cpu")
    f.eval(HAZ)
    f.eval(copy + "0 CP.WAIT  TID-X 1 = IF 7e g 34 + HF! THEN")
    assert shared_bytes(f, 64)[34:36].view(np.float16)[0] == 17  # RAMP: element 17 (g+34), not the 7 stored later


def test_a_source_written_before_its_wait_is_found_in_either_of_two_arrays():
    """Copies from two arrays at one wait (a GEMM's A and B): each array's sources are compared at once, and a
    store into the second array between the CP.ASYNC and the wait is the error naming that array."""
    f = Forth(backend="cpu")
    f.eval("64 1 1 THREADS 32 16 F16 MATRIX g1  32 16 F16 MATRIX g2  RAMP g1  RAMP g2  64 16 F16 1 SMEM-TILE s")
    copy = ("TID-X 32 < IF TID-X 32 * g1 + ELSE TID-X 32 - 32 * g2 + THEN  TID-X 32 * 0 s +  CP.ASYNC CP.COMMIT  ")
    msg = run_error(f, copy + "TID-X 40 = IF 7e g2 258 + HF! THEN  0 CP.WAIT")
    assert ("0 CP.WAIT: the global bytes at g2+256 (bytes) that thread 40's cp.async copy into stage 0 of s (row 40, "
            "bytes 0..15 of the row) (its group 0) reads were written after its CP.ASYNC and before this wait") in msg, msg
    f = Forth(backend="cpu")
    f.eval("64 1 1 THREADS 32 16 F16 MATRIX g1  32 16 F16 MATRIX g2  RAMP g1  RAMP g2  64 16 F16 1 SMEM-TILE s")
    f.eval(copy + "0 CP.WAIT BARRIER")  # no store: both arrays' rows land
    staged = shared_bytes(f, 64 * 32).reshape(64, 32)[:, :16]
    want = np.concatenate([f.array("g1").view(np.uint8).reshape(32, 32)[:, :16],
                           f.array("g2").view(np.uint8).reshape(32, 32)[:, :16]])
    assert (staged == want).all()


# ---- shared accesses before the launch's first copy op (the copy model watches a checked launch from its start) ----
def test_a_store_before_the_first_copy_op_of_the_launch_is_seen_by_the_copy():
    """Thread 0 stores into row 40 of a stage, then thread 40's CP.ASYNC (the launch's first copy) overwrites
    it with no BARRIER between: a GPU may land either last."""
    f = Forth(backend="cpu")
    f.eval(HAZ)
    line = f"TID-X 0= IF 7e {ROW40} HF! THEN  TID-X 40 = IF g {ROW40} CP.ASYNC THEN CP.COMMIT 0 CP.WAIT"
    msg = run_error(f, line)
    assert msg.startswith("line 1, column"), msg
    assert ("CP.ASYNC: thread 40 copies into stage 0 of s (row 40, bytes 0..15 of the row), which thread 0 stored "
            "into since the last BARRIER") in msg, msg
    assert "put a BARRIER between the store and the CP.ASYNC" in msg
    assert f.eval("2 3 + .") == "5 "  # the session goes on
    # with the BARRIER: the copy lands over the store
    f.eval(line.replace("HF! THEN", "HF! THEN BARRIER") + " BARRIER")
    assert shared_bytes(f, 64 * 32)[40 * 32:40 * 32 + 16].tobytes() == f.array("g").tobytes()[:16]


def test_a_read_before_the_first_copy_op_of_the_launch_is_seen_by_the_copy():
    """Thread 63 reads row 0 of a stage, then thread 0's CP.ASYNC (the launch's first copy) refills it with no
    BARRIER between: the read may see the copy's bytes on a GPU."""
    f = Forth(backend="cpu")
    f.eval(HAZ)
    line = "TID-X 63 = IF 0 s HF@ FDROP THEN  TID-X 0= IF g 0 s CP.ASYNC THEN CP.COMMIT 0 CP.WAIT"
    msg = run_error(f, line)
    assert ("CP.ASYNC: thread 0 refills stage 0 of s (row 0, bytes 0..15 of the row) while thread 63 may still be "
            "reading it (it read these bytes since the last BARRIER)") in msg, msg
    assert "put a BARRIER between the last read of a stage and the CP.ASYNC that refills it" in msg
    f.eval(line.replace("FDROP THEN", "FDROP THEN BARRIER"))
    # a tile load before the first copy op too: warp 0 loads rows 0..15 (its first lane, thread 0, the
    # reader), then thread 32 copies into row 0
    msg = run_error(f, "TID-X 32 < IF 0 s 16 TLOAD-A TDROP THEN  TID-X 32 = IF g 0 s CP.ASYNC THEN CP.COMMIT 0 CP.WAIT")
    assert "thread 32 refills stage 0 of s (row 0, bytes 0..15 of the row) while thread 0 may still be" in msg, msg


def test_unchecked_the_store_and_the_copy_land_in_the_order_they_ran():
    """The same store and copy with no BARRIER unchecked (no copy-model checks, as an exported kernel runs):
    no error, and the copy lands at its wait over the store (the order the emulator ran them), as a GPU may."""
    src = HAZ + f"TID-X 0= IF 7e {ROW40} HF! THEN  TID-X 40 = IF g {ROW40} CP.ASYNC THEN CP.COMMIT 0 CP.WAIT BARRIER"
    f = Forth(backend="cpu", checked=False)
    f.eval(src)
    assert shared_bytes(f, 64 * 32)[40 * 32:40 * 32 + 16].tobytes() == f.array("g").tobytes()[:16]


def test_a_store_before_the_first_copy_op_of_a_later_block_is_seen_too():
    """Two blocks one after another in one context: block 1's store (thread 64, its thread 0) before its first
    copy op is still in the model when block 1's thread 40 (104) copies over it; block 0's accesses are not
    concurrent with block 1's (no error for block 0, which stores nothing)."""
    f = Forth(backend="cpu")
    f.eval("2 1 1 GRID " + HAZ)
    line = (f"BID-X 1 = TID-X 0= AND IF 7e {ROW40} HF! THEN  TID-X 40 = IF g {ROW40} CP.ASYNC THEN "
            "CP.COMMIT 0 CP.WAIT")
    msg = run_error(f, line)
    assert ("CP.ASYNC: thread 104 copies into stage 0 of s (row 40, bytes 0..15 of the row), which thread 64 stored "
            "into since the last BARRIER") in msg, msg
    f.eval(line.replace("HF! THEN", "HF! THEN BARRIER"))
