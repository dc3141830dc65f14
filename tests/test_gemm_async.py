"""demos/gemm_async.fth (issue 28, point 8): the Ampere GEMM recipe as a kernel file — a three-stage cp.async
ring of shared tiles (A's and B's 128-byte swizzled), ldmatrix, mma.sync m16n8k16, 4 warps of 64x64 warp tiles (each
one 4x8 TILE-GRID of m16n8 accumulators) in a 128x128 block tile.

* `tileforth run` on the cpu backend gives C = A.B exactly (integer-valued bf16 inputs: every summation order
  is exact), checked against numpy, at sizes with edges in m, n and k;
* `tileforth compile --arch sm_90 --cubin --verbose` succeeds and ptxas reports no spills and no stack frame;
* the SASS of the k loop (the innermost loop that holds the HMMAs) has HMMA, LDSM and LDGSTS, no MOVM and no
  generic LD (tests/sass.py reads it);
* the header lines the demo needs, `\\! smem` and `\\! tiles`, declare what SMEM-TILE(-SWZ) and TILE-SHAPE /
  TILE-IN / TILE-GRID declare, and a bad one is an error at its line.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
import sass
from tileforth.core import Forth, ForthError
from tileforth.export.kernelfile import parse_kernel_file, run_kernel_file
from tileforth.export.kernels import kernel_file_ptx

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "demos" / "gemm_async.fth"
CLI = [sys.executable, "-m", "tileforth.repl.cli"]


def tileforth(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=600, cwd=cwd)


def inputs(m: int, n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.integers(-4, 5, (m, k)).astype(ml_dtypes.bfloat16),
            rng.integers(-4, 5, (k, n)).astype(ml_dtypes.bfloat16))


TILE = 128  # the rows and columns of C a block computes


def grid(m: int, n: int) -> str:
    return f"{-(-n // TILE)},{-(-m // TILE)},1"


# ---- tileforth run, against numpy ----------------------------------------------------------------------
@pytest.mark.parametrize("m,n,k", [(64, 128, 96), (40, 72, 200), (128, 128, 128), (200, 136, 40), (256, 256, 64)])
def test_tileforth_run_gives_the_exact_product(tmp_path, m, n, k):
    a, b = inputs(m, n, k)
    np.save(tmp_path / "a.npy", a.astype(np.float32))  # a .npy of f32: `run` converts to the declared bf16
    np.save(tmp_path / "b.npy", b.astype(np.float32))
    r = tileforth("run", str(DEMO), "--backend", "cpu", "--param", "A=@a.npy", "--param", "B=@b.npy",
                  "--param", f"MM={m}", "--param", f"NN={n}", "--param", f"KK={k}", "--grid", grid(m, n),
                  "--save", "C=c.npy", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    c = np.load(tmp_path / "c.npy").reshape(m, n)
    assert np.array_equal(c, a.astype(np.float64) @ b.astype(np.float64))


def test_run_kernel_file_twice_in_one_session():
    """The `\\! smem` tiles and `\\! tiles` settings are declared once per session: a second run (another size)
    reuses them, and the product is exact again."""
    spec = parse_kernel_file(DEMO.read_text(), DEMO.name)
    f = Forth(backend="cpu")
    for m, n, k in ((16, 64, 64), (64, 64, 16)):
        a, b = inputs(m, n, k, seed=m)
        c = np.zeros((m, n), np.float32)
        run_kernel_file(f, spec, {"A": a, "B": b, "C": c}, grid=(-(-n // TILE), -(-m // TILE), 1))
        assert np.array_equal(c, a.astype(np.float32) @ b.astype(np.float32)), (m, n, k)


# ---- tileforth compile: ptxas's report, the SASS ---------------------------------------------------------
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_compile_cubin_verbose_reports_no_spills(tmp_path, arch):
    sass.require("ptxas")
    r = tileforth("compile", str(DEMO), "--arch", arch, "--cubin", "--verbose", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "gemm_async.cubin").read_bytes()[:4] == b"\x7fELF"
    m = re.fullmatch(rf"\S+gemm_async\.fth: {arch}: gemm_async: (\d+) registers, 0 bytes stack frame, 0\+0 bytes "
                     r"spilled \(stores\+loads\), 49152 bytes shared memory\n", r.stderr)
    assert m and int(m.group(1)) <= 255, r.stderr  # 2 tiles x 3 stages x 64x64 bf16 = 48 KiB


def k_loop(unchecked: bool, arch: str = "sm_90") -> list:
    """The innermost loop of the kernel's SASS that holds HMMAs: the k loop (one 32-deep k-tile)."""
    ptx = kernel_file_ptx(DEMO.read_text(), arch, DEMO.name, unchecked=unchecked)
    ins = sass.sass(sass.cubin(ptx, arch))["gemm_async"]
    loops = [lp for lp in sass.inner_loops(ins) if "HMMA" in sass.opcodes(lp)]
    assert len(loops) == 1, [sass.opcodes(lp) for lp in sass.inner_loops(ins)]
    return loops[0]


@pytest.mark.parametrize("unchecked", [False, True], ids=["checked", "unchecked"])
def test_the_k_loop_is_ldgsts_ldsm_and_hmma(unchecked):
    sass.require("ptxas")
    ops = sass.opcodes(k_loop(unchecked))
    # a k-tile: each warp's 64x64 tile (a 4x8 grid) over k = 32, 2 k16 steps of 4 ldmatrix.x4 (a 4x1 column
    # of a), 8 ldmatrix.x2.trans (a 1x8 row of b) and 32 mma.sync; and its share of the next stage's copies
    # (512 chunks of A and 2 x 256 of B over 128 threads: 8 each)
    assert ops.count("HMMA") == 64 and ops.count("LDSM") == 24, ops
    assert ops.count("LDGSTS") == 8 and "LDGDEPBAR" in ops and "DEPBAR" in ops and "BAR" in ops, ops
    assert "MOVM" not in ops and "LD" not in ops and "LDG" not in ops, ops  # no transposes, no generic loads


# ---- the header lines --------------------------------------------------------------------------------
HEAD = "\\! kernel k\n\\! param C f32[16]\n"


def test_smem_and_tiles_header_lines_declare_the_tile_and_the_settings():
    spec = parse_kernel_file(HEAD + "\\! tiles 16 8 16 bf16 2x4\n\\! smem T bf16[16,64] 2 swizzled\n"
                                    "\\! smem U f16[8,24]\n: x ;\n")
    assert [(s.name, s.forth, s.nbytes) for s in spec.setup] == [
        ("", "16 8 16 TILE-SHAPE F32 TILE-ACC BF16 TILE-IN 2 4 TILE-GRID", 0),
        ("T", "16 64 BF16 2 SMEM-TILE-SWZ T", 2 * 2048),   # stages 1024-byte aligned
        ("U", "8 24 F16 1 SMEM-TILE U", 384)]              # 128-byte aligned
    f = Forth(backend="cpu")
    run_kernel_file(f, spec, {})
    assert f.tile_config.shape == (16, 8, 16) and f.tile_config.in_type == "bf16" and f.tile_config.grid == (2, 4)
    assert f.eval("1 T 0 T - .  T-GEOM 16 RSHIFT 65535 AND .") == "2048 8 "


@pytest.mark.parametrize("line,says", [
    ("\\! smem T bf16[16] 2", "\\! smem NAME TYPE[ROWS,COLS] STAGES"),
    ("\\! smem T bf16[16,56] 1 swizzled", "a 128-byte swizzle needs rows of 128 bytes"),
    ("\\! smem C bf16[16,64] 1", "duplicate name C"),
    ("\\! tiles 16 8 bf16", "\\! tiles M N K IN"),
    ("\\! tiles 16 4 16 f16", "is not a tensor-core shape"),
    ("\\! tiles 16 8 16 bf16 f16", "needs f16 inputs"),
    ("\\! tiles 16 8 16 bf16 4x", "\\! tiles M N K IN [ACC] [GMxGN]"),
    ("\\! tiles 16 8 16 bf16 9x8", "a grid has 1 to 8 fragments each way"),
])
def test_a_bad_smem_or_tiles_line_is_an_error_at_the_line(line, says):
    text = HEAD + line + "\n: x ;\n"
    with pytest.raises(ForthError) as err:
        run_kernel_file(Forth(backend="cpu"), parse_kernel_file(text, "k.fth"), {})
    e = err.value
    assert says in e.message and e.pos is not None and e.pos.line == 3, e.message


# ---- the benchmark runs (its figures are for people; here only that it runs and its products are exact) -----
@pytest.mark.parametrize("clock", [[], ["--cpu-time"]], ids=["wall", "cpu"])
def test_the_benchmark_prints_both_gemms_and_the_ratio(clock):
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gemm_async.py"), "--quick", *clock],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert ("CPU time" in r.stdout.splitlines()[0]) == bool(clock), r.stdout
    assert r.stdout.count("exact vs numpy") == 3 and "NOT EXACT" not in r.stdout, r.stdout
    assert re.search(r"ratio gemm_async / gemm2: first run \d+\.\d\dx, warm run \d+\.\d\dx", r.stdout), r.stdout


@pytest.mark.parametrize("body,says", [("16 8 16 TILE-SHAPE", "\\! tiles M N K IN"), ("4 8 TILE-GRID", "4x8"),
                                       ("16 64 BF16 1 SMEM-TILE T", "\\! smem NAME TYPE[ROWS,COLS] STAGES")])
def test_the_host_words_in_a_body_name_the_header_line(body, says):
    with pytest.raises(ForthError) as err:
        run_kernel_file(Forth(backend="cpu"), parse_kernel_file(HEAD + body + "\n", "k.fth"), {})
    assert "is a host word" in err.value.message and says in err.value.message, err.value.message


def test_another_block_size_is_an_error_that_says_which(tmp_path):
    """The warps' layout (2 x 2) and the copies (8 chunks of a stage per thread) are for 128 threads a block."""
    r = tileforth("run", str(DEMO), "--backend", "cpu", "--param", "MM=64", "--param", "NN=64", "--param", "KK=64",
                  "--block", "256,1,1")
    assert r.returncode == 1 and "run it with 128 threads a block (--block 128,1,1)" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


# ---- on a GPU (skipped without one) --------------------------------------------------------------------
def _cuda() -> Forth | None:
    try:
        return Forth(backend="cuda")
    except ForthError:
        return None


@pytest.mark.gpu
@pytest.mark.parametrize("m,n,k", [(64, 128, 96), (256, 256, 256), (1000, 1024, 520)])
def test_the_demo_on_the_gpu_gives_the_exact_product(m, n, k):
    f = _cuda()
    if f is None:
        pytest.skip("needs an NVIDIA GPU (the cuda backend)")
    a, b = inputs(m, n, k)
    c = np.zeros((m, n), np.float32)
    run_kernel_file(f, parse_kernel_file(DEMO.read_text(), DEMO.name), {"A": a, "B": b, "C": c},
                    grid=(-(-n // TILE), -(-m // TILE), 1))
    assert np.array_equal(c, a.astype(np.float64) @ b.astype(np.float64))


# ---- the checked emulator finds the pipeline's mistakes (each a one-word change of the demo) --------------
@pytest.mark.parametrize("old,new,says", [
    ("1 CP.WAIT BARRIER", "1 CP.WAIT", "with no BARRIER since"),
    ("1 CP.WAIT BARRIER", "2 CP.WAIT BARRIER", "before the cp.async copy into it landed"),
    ("1 CP.WAIT BARRIER  THEN  I fetch", "1 CP.WAIT  THEN  I fetch  I 2 >= IF  BARRIER  THEN",
     "may still be reading it"),
])
def test_the_checked_emulator_finds_a_broken_pipeline(old, new, says):
    text = DEMO.read_text()
    assert old in text
    a, b = inputs(64, 64, 256)
    with pytest.raises(ForthError) as err:
        run_kernel_file(Forth(backend="cpu"), parse_kernel_file(text.replace(old, new), "broken.fth"),
                        {"A": a, "B": b, "C": np.zeros((64, 64), np.float32)})
    assert says in err.value.message and err.value.pos is not None, err.value.message


# ---- PROFILE of the k loop: ldmatrix's bank conflicts, against the swizzle formula in numpy ----------------
def swizzled(r: np.ndarray, chunk: np.ndarray) -> np.ndarray:
    """The 128-byte swizzle, written out: chunk c of row r (128-byte rows) at chunk c XOR (r mod 8)."""
    return r * 128 + (chunk ^ (r % 8)) * 16


def a_rows(swizzle: bool) -> np.ndarray:
    """The shared offsets (in As's stage) of the rows each ldmatrix.x4 of TLDSM-A addresses, per request: (warp
    row 0/1, k16 step, fragment) x 32 lanes. As is A's 128x32 block folded into 64 rows of 128 bytes (block row
    m at As row m mod 64, chunks 4 (m / 64)..+3), so warp row w reads from column 32 w; lane L gives row L mod 8
    of matrix L / 8, which is rows 0-7 / 8-15 (j odd) and k 0-7 / 8-15 (j >= 2) of the 16x16 fragment."""
    lane = np.arange(32)
    out = []
    for w in (0, 1):
        for k16 in (0, 16):
            for frag in range(4):
                r = 16 * frag + lane % 8 + 8 * (lane // 8 % 2)
                ch = (32 * w + k16) // 8 + lane // 16
                out.append(swizzled(r, ch) if swizzle else r * 128 + ch * 16)
    return np.array(out)


def wavefronts(offsets: np.ndarray) -> int:
    """Shared-memory wavefronts of one request of 16-byte rows: 4 phases of 8 lanes; a phase takes as many
    as the most rows that hold a 4-byte word in one of the 32 banks."""
    total = 0
    for phase in offsets.reshape(-1, 8):
        banks = (phase[:, None] + np.arange(0, 16, 4)) // 4 % 32
        total += int(np.bincount(banks.ravel(), minlength=32).max())
    return total


def profile_demo(text: str, m: int = 128, n: int = 128, k: int = 64) -> tuple[dict, bool]:
    """PROFILE of the demo's launch (one block): its TLDSM-A site's figures, and whether C is numpy's."""
    a, b = inputs(m, n, k)
    f = Forth(backend="cpu")
    run_kernel_file(f, parse_kernel_file(text, DEMO.name), {"A": a, "B": b, "C": np.zeros((m, n), np.float32)},
                    grid=(1, 1, 1))
    f.set_array("C", np.zeros(m * n, np.float32))
    f.eval("PROFILE gemm")
    exact = np.array_equal(f.array("C").reshape(m, n), a.astype(np.float64) @ b.astype(np.float64))
    sites = {s["token"]: s for s in f.profile()["sites"] if s["space"] == "shared" and s["access"] == "load"}
    f.close()
    return sites, exact


def test_profile_of_the_k_loop_shows_the_swizzled_ldmatrix_without_bank_conflicts():
    """The demo: A's and B's ldmatrix have no bank conflicts, as numpy's count of the swizzled rows says, and C
    is numpy's product. Its As declared without the swizzle (the copies still swizzle): the 8-way conflicts
    numpy counts for those rows, and a wrong product, as a GPU would give."""
    k_tiles, warps_per_row = 64 // 32, 2  # each request's rows repeat for every k-tile and both warp columns
    for swizzle in (True, False):
        text = DEMO.read_text()
        if not swizzle:
            assert "\\! smem As bf16[64,64] 3 swizzled" in text
            text = text.replace("\\! smem As bf16[64,64] 3 swizzled", "\\! smem As bf16[64,64] 3")
        sites, exact = profile_demo(text)
        want = [wavefronts(req) for req in a_rows(swizzle)] * (k_tiles * warps_per_row)
        s = sites["TLDSM-A"]
        assert (s["requests"], s["size"], s["lanes"]) == (len(want), 16, 32 * len(want)), s
        assert s["wavefronts"] == sum(want) and s["ideal_wavefronts"] == 4 * len(want), (s, sum(want))
        assert s["bank_conflicts"] == sum(want) - 4 * len(want)
        assert exact == swizzle
        if swizzle:
            assert s["bank_conflicts"] == 0 and s["ways"] == 1
            b = sites["TLDSM-B"]  # 8 ldmatrix.x2.trans of 16 addressing lanes each, per k16 step
            assert b["requests"] == 4 * 2 * k_tiles * 8 and b["bank_conflicts"] == 0 and b["lanes"] == 16 * b["requests"]
        else:
            assert s["ways"] == 8 and s["bank_conflicts"] == 7 * 4 * len(want)
