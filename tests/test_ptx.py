"""The cuda backend's code, checked without a GPU: every demo and a set of
test programs compile to PTX that ptxas accepts for sm_80 and sm_90; kernels
with static stack effects keep their stacks in registers; tile words become
wmma instructions that stay outside lane-divergent branches."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from tileforth.backends.cuda import target as nvptx
from tileforth.backends.cuda.ptx import ptxas, ptxas_path
from tileforth.core import Forth
from tileforth.export.kernelfile import is_kernel_file
from tileforth.export.kernels import segment_ptx, word_ptx

pytestmark = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")
DEMOS = Path(__file__).resolve().parents[1] / "demos"
ARCHS = ("sm_80", "sm_90")

SAXPY = """: saxpy ( x y n -- ) ( F: a -- )
  GLOBAL-ID TUCK > IF  4 * TUCK + >R + F@ FOVER F* R@ F@ F+ R> F!  FDROP
  ELSE DROP 2DROP FDROP THEN ;"""

TILED = """1024 SHARED: As  1024 SHARED: Bs
: idx ( r c n -- off ) ROT * + 4 * ;
: tiled ( a b c n -- )  { a b c n }
  BID-Y 16 * TID-Y +  BID-X 16 * TID-X +  0e
  n 16 / 0 DO
    OVER I 16 * TID-X + n idx a + F@   TID-Y 16 * TID-X + 4 * As + F!
    I 16 * TID-Y + OVER n idx b + F@   TID-Y 16 * TID-X + 4 * Bs + F!
    BARRIER
    16 0 DO  TID-Y 16 * I + 4 * As + F@  I 16 * TID-X + 4 * Bs + F@  F* F+  LOOP
    BARRIER
  LOOP
  n idx c + F! ;"""


def no_llvm_externs(ptx: str) -> bool:
    return ".extern .func llvm." not in ptx and "__nvvm_reflect" not in ptx


@pytest.fixture(scope="module")
def demo_forth() -> Forth:
    f = Forth()
    f.eval((DEMOS / "gemm.fth").read_text(), source="gemm.fth")
    f.eval(SAXPY)
    f.eval(TILED)
    return f


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("word", ["saxpy", "tiled", "gemm", "gemm2"])
def test_static_kernels_assemble_with_no_stack_frame(demo_forth, word, arch):
    ptx = word_ptx(demo_forth, word, arch)
    assert no_llvm_externs(ptx)
    info = ptxas(ptx, arch)[word]
    assert (info.stack_frame, info.spill_stores, info.spill_loads) == (0, 0, 0)


@pytest.mark.parametrize("word", ["gemm", "gemm2"])
def test_tile_demos_use_tensor_cores(demo_forth, word):
    ptx = word_ptx(demo_forth, word, "sm_80")
    assert "wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32" in ptx
    assert "wmma.load.a.sync.aligned.row.m16n16k16" in ptx and "wmma.store.d.sync" in ptx


def test_tiled_matmul_uses_shared_memory_and_barriers(demo_forth):
    ptx = word_ptx(demo_forth, "tiled", "sm_80")
    assert ".shared" in ptx and "bar.sync" in ptx


def _load_before_branch(ptx: str) -> bool:
    lines = [ln.strip() for ln in ptx.splitlines()]
    load = next(i for i, ln in enumerate(lines) if ln.startswith("wmma.load"))
    branch = next(i for i, ln in enumerate(lines) if re.match(r"@%p\d+ bra", ln))
    return load < branch


CONV = "16 16 F32 MATRIX Cm  16 16 F32 MATRIX Dm"
CONV_WORD = ": {name} ( -- ) TZERO  Cm 16 TLOAD-C  LANE-ID 0<> IF TSWAP THEN TDROP  Dm 16 TSTORE ;"


def test_tile_load_stays_outside_a_lane_divergent_branch(monkeypatch):
    f = Forth()
    f.eval(CONV)
    f.eval(CONV_WORD.format(name="conv"))
    assert _load_before_branch(word_ptx(f, "conv", "sm_80"))
    # the trap is real: without the convergent call-site attribute, O3 sinks the load
    def plain(self, g, name, ret, args):
        return g.b.call(g.intrinsic(name, ret, [a.type for a in args]), args)
    monkeypatch.setattr(nvptx.NvptxTarget, "_wmma", plain)
    f.eval(CONV_WORD.format(name="conv2"))
    assert not _load_before_branch(word_ptx(f, "conv2", "sm_80"))


def test_float_math_links_libdevice():
    f = Forth()
    f.eval("4 F32 ARRAY xs : m ( -- ) xs F@ FEXP FSIN FLN FCOS FSQRT xs F! ;")
    for arch in ARCHS:
        ptx = word_ptx(f, "m", arch)
        assert no_llvm_externs(ptx) and ".extern" not in ptx
        ptxas(ptx, arch)


def test_bf16_tiles_need_sm80():
    from tileforth.core import ForthError
    f = Forth()
    f.eval("16 16 BF16 MATRIX A  16 16 F32 MATRIX C  BF16 TILE-IN")
    f.eval(": k ( -- ) TZERO A 16 TLOAD-A A 16 TLOAD-B TMMA C 16 TSTORE ;")
    ptx = word_ptx(f, "k", "sm_80")
    assert "wmma.mma.sync.aligned.row.row.m16n16k16.f32.bf16" in ptx
    ptxas(ptx, "sm_80")
    with pytest.raises(ForthError, match="sm_80"):
        word_ptx(f, "k", "sm_75")


@pytest.mark.parametrize("shape", ["32 8 16", "8 32 16"])
def test_other_tile_shapes_assemble(shape):
    f = Forth()
    f.eval(f"64 64 F16 MATRIX A  64 64 F32 MATRIX C  {shape} TILE-SHAPE  F16 TILE-ACC")
    f.eval(": k ( -- ) TZERO A 64 TLOAD-A A 64 TLOAD-B-COL TMMA 2e TSCALE TDUP T+ C 64 TSTORE ;")
    m, n, k = shape.split()
    ptx = word_ptx(f, "k", "sm_90")
    assert f"m{m}n{n}k{k}" in ptx and no_llvm_externs(ptx)
    ptxas(ptx, "sm_90")


def test_every_demo_line_compiles_for_the_gpu():
    """The segments the REPL runs (stacks in the state buffer) as the cuda backend would compile them."""
    seen = []

    def hook(nodes, tiles):
        for arch in ARCHS:
            ptx = segment_ptx(f, nodes, tiles, arch)
            assert no_llvm_externs(ptx)
            ptxas(ptx, arch)
        seen.append(len(nodes))

    f = Forth()
    f.on_segment = hook
    for demo in sorted(DEMOS.glob("*.fth")):
        if is_kernel_file(demo.read_text()):
            continue  # one kernel, not lines: tests/test_kernelfile.py compiles those
        f.eval(demo.read_text(), source=demo.name)
    assert len(seen) >= 10
