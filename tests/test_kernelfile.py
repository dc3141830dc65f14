r"""Kernel files: `\! kernel`, `\! param`, `\! shared` header lines, then Forth.

The same file compiles to PTX (`tileforth compile`) and runs once on a
backend (`tileforth run`); these tests check the header's errors, both
commands end to end, and that the emulator's results match numpy.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tileforth.backends.cuda.ptx import ptxas, ptxas_path
from tileforth.core import Forth, ForthError
from tileforth.export.kernelfile import (
    format_array,
    is_kernel_file,
    parse_kernel_file,
    parse_param_values,
    run_kernel_file,
)
from tileforth.export.kernels import kernel_file_ptx

ROOT = Path(__file__).resolve().parents[1]
SAXPY = ROOT / "demos" / "saxpy.fth"
needs_ptxas = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")


def tileforth(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tileforth.repl.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def run(text: str, params: list[str] = (), grid=(1, 1, 1), block=(32, 1, 1)) -> tuple[Forth, str]:
    spec = parse_kernel_file(text, "k.fth")
    f = Forth(backend="cpu")
    out = run_kernel_file(f, spec, parse_param_values(spec, list(params)), grid, block)
    return f, out


# ---- the header ---------------------------------------------------------------------------------
def test_the_header_declares_name_params_and_shared_memory():
    spec = parse_kernel_file(SAXPY.read_text(), "saxpy.fth")
    assert spec.name == "saxpy"
    assert [(p.name, p.eltype.name, p.count, p.kind) for p in spec.params] == [
        ("X", "F32", "N", "ptr"), ("Y", "F32", "N", "ptr"), ("A", "F32", None, "float"), ("N", "I32", None, "int")]
    assert spec.body_line == 6 and spec.body.startswith("\\ SAXPY")
    spec = parse_kernel_file("\\ a comment first\n\n\\! kernel k  \\ trailing comment\n"
                             "\\! shared T bf16[ 64 ]\nT DROP\n")
    assert (spec.shared[0].name, spec.shared[0].nbytes, spec.body_line) == ("T", 128, 5)


@pytest.mark.parametrize("text,line,col,message", [
    ("\\! param X f32[4]\nX DROP", 1, 1, "missing `\\! kernel NAME`"),
    ("\\! kernel a\n\\! kernel b\n", 2, 11, "a second \\! kernel line"),
    ("\\! kernel 2k\n", 1, 11, "not a C identifier"),
    ("\\! kernel k\n\\! param X f32[4]\n\\! param x i32\n", 3, 10, "duplicate name x"),
    ("\\! kernel k\n\\! param X f32[4]\n\\! shared X f32[4]\n", 3, 11, "duplicate name X"),
    ("\\! kernel k\n\\! params X f32\n", 2, 4, "unknown header directive 'params'"),
    ("\\! kernel k\n\\! param X f33[4]\n", 2, 12, "unknown type 'f33'"),
    ("\\! kernel k\n\\! param X float\n", 2, 12, "unknown type 'float'"),
    ("\\! kernel k\n\\! param X f32[4\n", 2, 12, "bad type"),
    ("\\! kernel k\n\\! param X f32[0]\n", 2, 16, "bad count 0"),
    ("\\! kernel k\n\\! param X f32[-2]\n", 2, 16, "bad count '-2'"),
    ("\\! kernel k\n\\! param X f32[]\n", 2, 16, "bad count ''"),
    ("\\! kernel k\n\\! param X f32[M]\n", 2, 16, "M, is not a parameter"),
    ("\\! kernel k\n\\! param M f32\n\\! param X f32[M]\n", 3, 16, "must be an integer scalar"),
    ("\\! kernel k\n\\! param X\n", 2, 4, "write `\\! param NAME"),
    ("\\! kernel k\n\\! param 42 i32\n", 2, 10, "is a number"),
    ("\\! kernel k\n\\! shared T f32\n", 2, 13, "shared memory needs a size"),
    ("\\! kernel k\n\\! shared T f32[100000]\n", 2, 17, "does not fit"),
    ("\\! kernel k\n\\!\n", 2, 1, "empty header line"),
    ("\\! kernel k\nGLOBAL-ID DROP\n\\! param X f32[4]\n", 3, 1, "must come before the Forth code"),
])
def test_header_errors_point_at_the_bad_line(text, line, col, message):
    with pytest.raises(ForthError) as info:
        parse_kernel_file(text, "bad.fth")
    err = info.value
    assert message in err.message
    assert (err.line, err.col, err.pos.source) == (line, col, "bad.fth")


@pytest.mark.parametrize("body,line,message", [
    ("1 IF\n  2 DROP\n", 3, "IF is not closed"),
    (": f ( -- )\n  1 DROP\n", 3, "definition of f is not closed"),
    ("16 CONSTANT T\n", 3, "CONSTANT is a host word"),
    ("4 F32 ARRAY more\n", 3, "ARRAY is a host word"),
    (": mk CREATE ;\nmk t\n", 4, "kernel file's body is one launch"),
    ("DROP\n", 3, "needs no inputs"),
    ("X frob\n", 3, "unknown word frob"),
])
def test_body_errors(body, line, message):
    text = "\\! kernel k\n\\! param X f32[4]\n" + body
    for compile_it in (True, False):
        with pytest.raises(ForthError) as info:
            kernel_file_ptx(text, "sm_80", "k.fth") if compile_it else run(text)
        assert message in info.value.message and info.value.line == line


def test_a_param_must_not_hide_a_word():
    with pytest.raises(ForthError, match="would hide the Forth word I") as info:
        run("\\! kernel k\n\\! param I i32\nI DROP\n")
    assert info.value.line == 2


def test_the_guide_says_true_things():
    doc = (ROOT / "docs" / "kernel-files.md").read_text()
    source = re.search(r"```forth\n(.*?)```", doc, re.S).group(1)
    demo = [ln for ln in SAXPY.read_text().splitlines() if not ln.startswith("\\ ")]
    assert source.strip().splitlines() == demo  # the demo, less its comments
    cmd = re.search(r"tileforth run (.*?)\n    (\w+ = [^\n]*)\n", doc.replace("\\\n", ""), re.S)
    args = cmd.group(1).split()
    params = [args[i + 1] for i, a in enumerate(args) if a == "--param"]
    f, _ = run(source, params)
    assert format_array("Y", f.array("Y")) == cmd.group(2)


def test_kernel_files_are_recognised():
    assert is_kernel_file(SAXPY.read_text())
    assert not is_kernel_file((ROOT / "demos" / "tour.fth").read_text())


# ---- tileforth compile ------------------------------------------------------------------------------
@needs_ptxas
def test_compile_writes_ptx_that_ptxas_accepts(tmp_path):
    out = tmp_path / "saxpy.ptx"
    r = tileforth("compile", str(SAXPY), "-o", str(out), "--arch", "sm_80")
    assert r.returncode == 0, r.stderr
    r90 = tileforth("compile", str(SAXPY), "--arch", "sm_90")  # no -o: stdout
    assert r90.returncode == 0, r90.stderr
    for arch, ptx in (("sm_80", out.read_text()), ("sm_90", r90.stdout)):
        assert f".target {arch}" in ptx and ".visible .entry saxpy(" in ptx
        assert ".extern" not in ptx
        # the parameters in header order, after the context pointer
        params = re.findall(r"\.param (\.\w+)[^\n]*saxpy_param_\d", ptx)
        assert params == [".u64", ".u64", ".u64", ".f32", ".u32"]  # ctx, X, Y, A f32, N i32
        info = ptxas(ptx, arch)["saxpy"]
        assert (info.stack_frame, info.spill_stores, info.spill_loads) == (0, 0, 0)


def test_compile_errors_are_located(tmp_path):
    bad = tmp_path / "bad.fth"
    bad.write_text("\\! kernel k\n\\! param X f33[4]\nX DROP\n")
    r = tileforth("compile", str(bad), "-o", str(tmp_path / "bad.ptx"))
    assert r.returncode == 1
    assert f"{bad}:2:12: error: unknown type 'f33'" in r.stderr
    assert not (tmp_path / "bad.ptx").exists()


# ---- tileforth run ------------------------------------------------------------------------------
def test_run_saxpy_on_the_cpu_backend_matches_numpy(tmp_path):
    rng = np.random.default_rng(7)
    n = 100
    x = (rng.integers(-400, 400, n) / 8).astype(np.float32)
    y = (rng.integers(-400, 400, n) / 8).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = tileforth("run", str(SAXPY), "--backend", "cpu", "--param", "X=@x.npy",
                  "--param", "Y=" + ",".join(map(str, y)), "--param", "A=2.5", "--param", f"N={n}",
                  "--grid", "4,1,1", "--block", "32,1,1", "--output-param", "Y", "--output-param", "X",
                  cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert [ln.split(" = ")[0] for ln in lines] == ["Y", "X"]
    got = np.array(lines[0].split(" = ")[1].strip("[]").split(), np.float32)
    np.testing.assert_array_equal(got, np.float32(2.5) * x + y)
    np.testing.assert_array_equal(np.array(lines[1].split(" = ")[1].strip("[]").split(), np.float32), x)


def test_run_infers_the_size_and_reports_errors_located(tmp_path):
    f, _ = run(SAXPY.read_text(), ["X=1,2,3,4", "Y=10,20,30,40", "A=2"])
    assert format_array("Y", f.array("Y")) == "Y = [12. 24. 36. 48.]"
    bad = tmp_path / "oob.fth"
    bad.write_text('\\! kernel oob\n\\! param X i64[4]\n." hi " GLOBAL-ID CELLS X + 7 SWAP !\n')
    r = tileforth("run", str(bad), "--backend", "cpu", "--output-param", "X")
    assert r.returncode == 1 and r.stdout == "hi \n"
    assert re.search(rf"{re.escape(str(bad))}:3:\d+: error: bad address .*\(thread 4,", r.stderr)


# ---- a kernel with a definition, shared memory and a barrier -------------------------------------
REVERSE = r"""\! kernel reverse
\! param IN i32[256]
\! param OUT i32[256]
\! shared BUF i32[256]
\ Reverse each block of 256 values through shared memory.
: slot   ( i -- addr )  4 * BUF + ;
: gidx   ( i -- addr )  BID-X BDIM-X * + 4 * ;
TID-X gidx IN + I32@  TID-X slot I32!
BARRIER
BDIM-X 1- TID-X - slot I32@
TID-X gidx OUT + I32!
"""


def test_block_reversal_runs_on_the_emulator():
    f, out = run(REVERSE, ["IN=" + ",".join(str(i * 3) for i in range(256))], grid=(2, 1, 1), block=(128, 1, 1))
    data = np.arange(256) * 3
    np.testing.assert_array_equal(f.array("OUT"), np.concatenate([data[:128][::-1], data[128:][::-1]]))
    assert out == ""


@needs_ptxas
def test_block_reversal_compiles_with_shared_memory_and_a_barrier():
    for arch in ("sm_80", "sm_90"):
        ptx = kernel_file_ptx(REVERSE, arch, "reverse.fth")
        assert ".shared" in ptx and "bar.sync" in ptx
        assert ptxas(ptx, arch)["reverse"].stack_frame == 0


# ---- scalar parameters ------------------------------------------------------------------------
SCALARS = r"""\! kernel scale
\! param M i32
\! param S f32
\! param OUT f32[8]
\! param IDX i64[8]
GLOBAL-ID 8 < IF
  GLOBAL-ID M * S>F S F*  GLOBAL-ID 4 * OUT + F!
  GLOBAL-ID M +  GLOBAL-ID CELLS IDX + !
THEN
"""


def test_float_and_int_scalars():
    f, _ = run(SCALARS, ["M=3", "S=0.5"])
    np.testing.assert_array_equal(f.array("OUT"), np.arange(8) * 3 * 0.5)
    np.testing.assert_array_equal(f.array("IDX"), np.arange(8) + 3)
    f, _ = run(SCALARS, ["M=-2", "S=-1.25e1"])
    np.testing.assert_array_equal(f.array("OUT"), np.arange(8) * -2 * -12.5)
    with pytest.raises(ForthError, match="M: '1.5' is not an integer"):
        run(SCALARS, ["M=1.5"])
    with pytest.raises(ForthError, match="has 9 values, but OUT has 8 elements"):
        run(SCALARS, ["OUT=" + ",".join("1" * 9)])


@needs_ptxas
def test_scalar_params_in_ptx():
    ptx = kernel_file_ptx(SCALARS, "sm_80")
    assert "cvt.s64.s32" in ptx  # the i32 parameter is sign-extended to a cell
    params = re.findall(r"\.param (\.\w+)[^\n]*scale_param_\d", ptx)
    assert params == [".u64", ".u32", ".f32", ".u64", ".u64"]  # ctx, M i32, S f32, OUT, IDX: declared widths
    assert "ld.param.f32" in ptx or "ld.param.b32" in ptx
    assert ptxas(ptx, "sm_80")["scale"].stack_frame == 0


# ---- tiles in a kernel file -------------------------------------------------------------------
TILE = r"""\! kernel mm16
\! param A f16[256]
\! param B f16[256]
\! param C f32[256]
: product ( -- ) ( T: -- acc )  TZERO A 16 TLOAD-A B 16 TLOAD-B TMMA ;
product C 16 TSTORE
"""


def test_a_tile_kernel_runs_and_compiles():
    a = np.arange(256) % 5 - 2
    b = np.arange(256) % 3 - 1
    f, _ = run(TILE, ["A=" + ",".join(map(str, a)), "B=" + ",".join(map(str, b))])
    np.testing.assert_array_equal(f.array("C").reshape(16, 16), a.reshape(16, 16) @ b.reshape(16, 16))
    if ptxas_path() is not None:
        ptx = kernel_file_ptx(TILE, "sm_80")
        assert "wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32" in ptx
        assert ptxas(ptx, "sm_80")["mm16"].stack_frame == 0


TILE_COPIES = r"""\! kernel mmcopy
\! param A f16[256]
\! param B f16[256]
\! param C f32[256]
: under ( T: x y -- x y x ) TOVER ;
: twice ( T: x -- x x ) TDUP ;
TZERO A 16 TLOAD-A under TDROP twice TDROP B 16 TLOAD-B TMMA C 16 TSTORE
"""


def test_words_that_copy_input_tiles_compile_in_a_kernel_file():
    """TOVER and TDUP in a word that only moves its input tiles (their kind is known only where it is
    called): the word is checked at ; and the kernel is right (it crashed in the cuda compile)."""
    a = np.arange(256) % 7 - 3
    b = np.arange(256) % 4 - 2
    f, _ = run(TILE_COPIES, ["A=" + ",".join(map(str, a)), "B=" + ",".join(map(str, b))])
    np.testing.assert_array_equal(f.array("C").reshape(16, 16), a.reshape(16, 16) @ b.reshape(16, 16))
    if ptxas_path() is not None:
        ptx = kernel_file_ptx(TILE_COPIES, "sm_80")
        assert ptx.count("wmma.mma.sync") == 1 and ptxas(ptx, "sm_80")["mmcopy"].stack_frame == 0


def test_every_scalar_type_is_a_parameter_of_its_declared_width():
    src = "\n".join([r"\! kernel widths"] + [rf"\! param {t.upper()}S {t}" for t in
                    ("i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64")] +
                    [r"\! param OUT f32[8]",
                     "I8S I16S + I32S + I64S + S>F F16S F+ BF16S F+ F32S F+ F64S F+ OUT F!"])
    ptx = kernel_file_ptx(src, "sm_80")
    params = re.findall(r"\.param ([^\n]*?) ?widths_param_\d", ptx)
    # f16 travels as 2 bytes, as CUDA passes a __half; bf16 as its 16 bits
    assert params == [".u64 .ptr .align 1", ".u8", ".u16", ".u32", ".u64", ".align 2 .b8", ".u16", ".f32", ".f64",
                      ".u64 .ptr .align 1"]
    assert ptxas(ptx, "sm_80")["widths"].stack_frame == 0
