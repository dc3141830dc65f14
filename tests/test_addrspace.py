"""Issue 28, point 5: accesses through addresses into arrays use the global address space (SASS LDG/STG,
not the generic LD/ST that looks the space up on every access), read from ptxas's SASS (tests/sass.py).

* Tile loads and stores from ARRAY/MATRIX addresses are wmma.load/store .global (demos/gemm.fth's
  kernels: LDG and no LD in their inner loop), from SHARED: addresses .shared.
* A called word's result keeps its address's space (tileforth/core/compile/spaces.py).
* An ARRAY address kept on the stack across a loop keeps its space (slottags.py), and where the loop
  may replace it by an address of unknown memory the access stays generic (the speculation undone).
* The cpu backend computes what numpy computes, the same programs.
"""
from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import sass
from tileforth.backends.cuda.ptx import ptxas_path
from tileforth.core import Forth
from tileforth.export.kernels import segment_ptx, word_ptx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import sass_mix  # noqa: E402  (demos/gemm.fth's definitions with a larger K)

ARCH = "sm_90"
needs_ptxas = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")


def _sass(ptx: str, name: str | None = None) -> list[sass.Instr]:
    funcs = sass.sass(sass.cubin(ptx, ARCH))
    return funcs[name] if name else max(funcs.values(), key=len)


def _hmma_loop(ins: list[sass.Instr]) -> list[sass.Instr]:
    return max(sass.inner_loops(ins), key=lambda lp: (sass.opcodes(lp).count("HMMA"), -len(lp)))


def _segment(f: Forth, line: str) -> str:
    out: list[str] = []
    f.on_segment = lambda nodes, tiles: out.append(segment_ptx(f, nodes, tiles, ARCH, heavy=True))
    try:
        f.eval(line)
    finally:
        f.on_segment = None
    return out[-1]


@pytest.fixture(scope="module")
def gemm_forth() -> Forth:
    f = Forth()
    f.eval(sass_mix.gemm_definitions(1024))
    return f


# ---- tiles ----------------------------------------------------------------------------------------
@needs_ptxas
@pytest.mark.parametrize("word", ["gemm", "gemm2"])
def test_the_gemm_demos_inner_loop_loads_tiles_with_ldg(gemm_forth, word):
    """The exported kernel (its matrices are array parameters): each TLOAD is a wmma.load .global; in
    SASS the loop's loads are LDG, with no generic LD."""
    ptx = word_ptx(gemm_forth, word, ARCH, unchecked=True)
    assert not re.search(r"wmma\.(load|store)\.\w+\.sync\.aligned\.row\.m16n16k16\.(f16|f32)\s", ptx), ptx
    loop = _hmma_loop(_sass(ptx, word))
    ops = Counter(sass.opcodes(loop))
    assert ops["HMMA"] and ops["LDG"] and not ops["LD"], sass.listing(loop)


@needs_ptxas
@pytest.mark.parametrize("word, threads", [("gemm", 64), ("gemm2", 32)])
def test_a_repl_line_running_the_gemm_loads_its_tiles_from_global_memory(gemm_forth, word, threads):
    """The kernel the cuda backend runs for the line `gemm` (checked): the matrices are ARRAY names, so
    every tile load and store is .global; gemm2 computes its addresses in called words (a-blk b-blk
    c-blk), whose results keep the space."""
    gemm_forth.eval(f"{threads} 1 1 THREADS")
    ptx = _segment(gemm_forth, f"1 1 1 GRID {word}")
    tiles = re.findall(r"wmma\.(?:load|store)\.[\w.]+", ptx)
    assert tiles and all(".global." in t for t in tiles), tiles


@needs_ptxas
def test_tiles_in_shared_memory_use_the_shared_forms_and_others_the_generic_ones():
    f = Forth()
    f.eval("64 64 F32 MATRIX C  4096 SHARED: sh  VARIABLE p  C p !  32 1 1 THREADS")
    f.eval(": k  sh 16 TLOAD-C  p @ 16 TSTORE ;")
    ptx = _segment(f, "k")
    assert "wmma.load.c.sync.aligned.row.m16n16k16.shared.f32" in ptx
    # through a VARIABLE the address's memory is not known: the generic form
    assert re.search(r"wmma\.store\.d\.sync\.aligned\.row\.m16n16k16\.f32\s", ptx), ptx
    sass.cubin(ptx, ARCH)  # ptxas accepts it


# ---- scalar accesses --------------------------------------------------------------------------------
SAXPY = """1024 F32 ARRAY X  1024 F32 ARRAY Y
: named    1024 0 DO  I 4 * X + F@ 2e F*  I 4 * Y + F@ F+  I 4 * Y + F!  LOOP ;
: carried  Y X 1024 0 DO  DUP I 4 * + F@ 2e F*  OVER I 4 * + F@ F+  OVER I 4 * + F!  LOOP 2DROP ;
: y-at ( i -- addr ) 4 * 3 + 3 INVERT AND Y + ;
: called   1024 0 DO  I 4 * X + F@  I y-at F!  LOOP ;
"""


@needs_ptxas
@pytest.mark.parametrize("word", ["named", "carried", "called"])
def test_saxpy_like_loops_use_ldg_and_stg(word):
    """Arrays named in the loop, kept on the stack across it, or reached through a called word:
    the inner loop's loads are LDG and its stores STG, none generic."""
    f = Forth()
    f.eval(SAXPY)
    loop = sass.inner_loop(_sass(word_ptx(f, word, ARCH, unchecked=True), word))
    ops = Counter(sass.opcodes(loop))
    assert ops["LDG"] and ops["STG"] and not ops["LD"] and not ops["ST"], sass.listing(loop)


@needs_ptxas
def test_a_loop_that_replaces_a_kept_address_by_one_of_unknown_memory_stays_generic():
    """The loop starts with X's address in a slot, but its body puts there an address read from a
    VARIABLE (here a SHARED: one): the speculation fails and the accesses through that slot are generic;
    the one through X named in the body is still global."""
    f = Forth()
    f.eval("1024 F32 ARRAY X  4096 SHARED: sh  VARIABLE p  sh p !")
    f.eval(": swapper  X 64 0 DO  DUP I 4 * + F@  I 4 * X + F!  DROP p @  LOOP DROP ;")
    ptx = word_ptx(f, "swapper", ARCH, unchecked=True)
    body = ptx[ptx.index(".entry"):]
    loads = re.findall(r"\bld(?:\.(global|shared|local|param))?\.\w+", body)
    assert "" in loads, body  # the load through the replaced slot: generic
    assert re.search(r"\bst\.global\.", body), body  # the store through X itself
    ins = _sass(ptx, "swapper")
    assert "LD" in sass.opcodes(ins), sass.listing(ins)


def test_the_cpu_backend_computes_the_same(tmp_path):
    """The same words on the emulator, against numpy (one thread: each element updated once)."""
    f = Forth(backend="cpu")
    f.eval("1 1 1 GRID 1 1 1 THREADS")
    f.eval(SAXPY)
    f.eval(": fill 1024 0 DO I S>F I 4 * X + F!  I 3 MOD S>F I 4 * Y + F! LOOP ; fill")
    x = np.arange(1024, dtype=np.float32)
    y = (np.arange(1024) % 3).astype(np.float32)
    f.eval("named")
    y = 2 * x + y
    f.eval("carried")
    y = 2 * x + y
    got = np.array([float(v) for v in f.eval(": show 1024 0 DO I 4 * Y + F@ F. LOOP ; show").split()])
    assert np.array_equal(got, y)
    f.eval("called")
    got = np.array([float(v) for v in f.eval("show").split()])
    assert np.array_equal(got, x)
    f.eval("4096 SHARED: sh  VARIABLE p  sh p !")
    f.eval(": swapper  X 64 0 DO  DUP I 4 * + F@  I 4 * X + F!  DROP p @  LOOP DROP ;  swapper")


@needs_ptxas
def test_the_sass_mix_benchmark_prints_its_rows():
    """benchmarks/sass_mix.py (figures for people): one row per kernel, the exported ones without LD."""
    import subprocess
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "sass_mix.py"
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {ln.split()[0] + " " + ln.split()[1]: ln.split() for ln in r.stdout.splitlines()
            if ln.startswith(("gemm ", "gemm2 "))}
    assert set(rows) == {"gemm export", "gemm repl", "gemm2 export", "gemm2 repl"}, r.stdout
    for name in ("gemm export", "gemm2 export"):
        hmma, ldg, ld = (int(rows[name][i]) for i in (3, 4, 5))
        assert hmma and ldg and ld == 0, r.stdout
