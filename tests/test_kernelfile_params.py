"""Kernel-file parameters of every kind (docs/kernel-files.md, "Parameters"):
arrays of every element type, multi-dimensional arrays (`f32[M,N]`, their
strides and index words), scalars as their declared type makes them, and the
`\\! grid` / `\\! block` defaults: numpy round trips through run_kernel_file
on the cpu backend, and the exported PTX assembled by ptxas."""
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from tileforth.backends.cuda.ptx import ptxas, ptxas_path
from tileforth.core import Forth, ForthError
from tileforth.export.kernelfile import parse_kernel_file, run_kernel_file
from tileforth.export.kernels import kernel_file_ptx

needs_ptxas = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")

# element type -> (its load and store words, a numpy dtype)
TYPES = {"i8": ("I8@ I8!", np.int8), "i16": ("I16@ I16!", np.int16), "i32": ("I32@ I32!", np.int32),
         "i64": ("@ !", np.int64), "f16": ("HF@ HF!", np.float16), "bf16": ("BF@ BF!", ml_dtypes.bfloat16),
         "f32": ("SF@ SF!", np.float32), "f64": ("DF@ DF!", np.float64)}


def run(text: str, values: dict, **kw) -> Forth:
    f = Forth(backend="cpu")
    run_kernel_file(f, parse_kernel_file(text, "k.fth"), values, **kw)
    return f


# ---- arrays of every element type ---------------------------------------------------------------------
def copy_kernel(t: str) -> str:
    load, store = TYPES[t][0].split()
    return (f"\\! kernel copy_{t}\n\\! param SRC {t}[N]\n\\! param DST {t}[N]\n\\! param N i32\n"
            f"GLOBAL-ID N < IF  GLOBAL-ID SRC[] {load}  GLOBAL-ID DST[] {store}  THEN\n")


@pytest.mark.parametrize("t", TYPES)
def test_an_array_of_every_type_round_trips(t):
    dtype = TYPES[t][1]
    src = (np.arange(20) - 7).astype(dtype)
    f = run(copy_kernel(t), {"src": src, "dst": np.zeros(20, dtype)})  # N from the arrays
    assert f.array("DST").dtype == np.dtype(dtype)
    np.testing.assert_array_equal(f.array("DST"), src)


@needs_ptxas
@pytest.mark.parametrize("t", ["i8", "f16", "bf16", "f64"])
def test_an_array_of_every_type_assembles(t):
    ptx = kernel_file_ptx(copy_kernel(t), "sm_80")
    params = re.findall(r"\.param ([^\n]*?) ?copy_\w+_param_\d", ptx)
    assert params == [".u64 .ptr .align 1"] * 3 + [".u32"]  # ctx, SRC, DST, N
    assert ptxas(ptx, "sm_80")[f"copy_{t}"].stack_frame == 0


# ---- multi-dimensional arrays -------------------------------------------------------------------------
TRANSPOSE = r"""\! kernel scaled_transpose
\! param A f32[M,N]
\! param B f32[N,M]
\! param S f32
\! param M i32
\! param N i64
\! grid 2
\! block 32
\ B[j][i] = S * A[i][j]: one element of A per thread, i = id / N, j = id mod N
: i ( -- i )  GLOBAL-ID N / ;
: j ( -- j )  GLOBAL-ID N MOD ;
GLOBAL-ID M N * < IF
  i j A[] SF@  S F*  j i B[] SF!
THEN
"""


def test_a_matrix_parameter_takes_its_dimensions_from_the_array():
    a = np.arange(15, dtype=np.float32).reshape(3, 5)
    f = run(TRANSPOSE, {"A": a, "B": np.zeros((5, 3), np.float32), "S": 0.5})  # M = 3, N = 5 from the shapes
    np.testing.assert_array_equal(f.array("B").reshape(5, 3), a.T * 0.5)


def test_a_matrix_may_be_given_flat_with_its_sizes():
    a = np.arange(12, dtype=np.float32)
    f = run(TRANSPOSE, {"A": a, "S": 2.0, "M": 4, "N": 3})  # B: zeros, of M*N elements
    np.testing.assert_array_equal(f.array("B").reshape(3, 4), a.reshape(4, 3).T * 2)


def test_strides_are_words_of_the_body():
    src = r"""\! kernel strides
\! param A i16[M,N,4]
\! param OUT i64[8]
\! param M i32
\! param N i32
\! shared T f32[4,8]
A.S0 OUT !  A.S1 OUT 8 + !  A.S2 OUT 16 + !  T.S0 OUT 24 + !  T.S1 OUT 32 + !
2 1 3 A[] A - OUT 40 + !  1 2 T[] T - OUT 48 + !
"""
    f = run(src, {"M": 2, "N": 3}, block=(1, 1, 1))
    # row-major strides in bytes: A is 2x3x4 i16, T is 4x8 f32
    assert f.array("OUT").tolist() == [3 * 4 * 2, 4 * 2, 2, 8 * 4, 4, (2 * 12 + 1 * 4 + 3) * 2, (8 + 2) * 4, 0]


def test_shape_errors_name_the_parameter():
    with pytest.raises(ForthError, match=r"values\['A'\] has shape \(3, 5\), but A is f32\[M,N\] with M = 4"):
        run(TRANSPOSE, {"A": np.zeros((3, 5), np.float32), "S": 1.0, "M": 4})
    with pytest.raises(ForthError, match="has 3 dimensions"):
        run(TRANSPOSE, {"A": np.zeros((3, 5, 1), np.float32), "S": 1.0})
    with pytest.raises(ForthError, match="the arrays sized by N were given"):
        run(TRANSPOSE, {"A": np.zeros((3, 5), np.float32), "B": np.zeros((4, 3), np.float32), "S": 1.0})


@pytest.mark.parametrize("header, col, message", [
    (r"\! param A f32[M,K]", 18, "the size of A, K, is not a parameter"),
    (r"\! param A f32[M,S]", 18, "the size of A, S, must be an integer scalar parameter"),
    (r"\! param A f32[4,0]", 18, "at least one element"),
    (r"\! shared T f32[4,M]", 19, "the size of shared memory must be a number, not M"),
    (r"\! grid 0,1,1", 4, r"write `\\! grid X,Y,Z`"),
    (r"\! block 32,x", 4, r"write `\\! block X,Y,Z`"),
])
def test_header_errors_point_at_the_dimension(header, col, message):
    text = f"\\! kernel k\n\\! param M i32\n\\! param S f32\n{header}\n1 DROP\n"
    with pytest.raises(ForthError, match=re.escape(message) if "\\" not in message else message) as info:
        parse_kernel_file(text, "k.fth")
    assert (info.value.line, info.value.col) == (4, col)


def test_a_second_grid_line_is_refused():
    with pytest.raises(ForthError, match="a second .. grid line"):
        parse_kernel_file("\\! kernel k\n\\! grid 1\n\\! grid 2\n1 DROP\n")


@needs_ptxas
def test_a_matrix_kernel_assembles_with_the_sizes_read_from_parameters():
    ptx = kernel_file_ptx(TRANSPOSE, "sm_80")
    params = re.findall(r"\.param ([^\n]*?) ?scaled_transpose_param_\d", ptx)
    assert params == [".u64 .ptr .align 1"] * 3 + [".f32", ".u32", ".u64"]  # ctx, A, B, S f32, M i32, N i64
    assert "ld.param.u64" in ptx or "ld.param.b64" in ptx
    assert ptxas(ptx, "sm_80")["scaled_transpose"].stack_frame == 0


# ---- scalars as declared ---------------------------------------------------------------------------------
SCALARS = r"""\! kernel scalars
""" + "".join(f"\\! param {t.upper()}S {t}\n" for t in TYPES) + r"""\! param INTS i64[4]
\! param FLTS f64[4]
I8S INTS !  I16S INTS 8 + !  I32S INTS 16 + !  I64S INTS 24 + !
F16S FLTS DF!  BF16S FLTS 8 + DF!  F32S FLTS 16 + DF!  F64S FLTS 24 + DF!
"""


def test_scalars_reach_the_body_as_their_declared_type():
    values = {"i8s": 200, "i16s": -3, "i32s": 2**31, "i64s": 2**40, "f16s": 0.1, "bf16s": 0.1, "f32s": 0.1,
              "f64s": 0.1}
    f = run(SCALARS, values, block=(1, 1, 1))
    # an integer keeps its declared width's bits, sign-extended (as the exported kernel's cvt.s64.s32 does)
    assert f.array("INTS").tolist() == [200 - 256, -3, -2**31, 2**40]
    # a float is rounded to its type, then to the float stack's (f32)
    want = [np.float16(0.1), ml_dtypes.bfloat16(0.1), np.float32(0.1), np.float32(0.1)]
    assert f.array("FLTS").tolist() == [float(np.float32(w)) for w in want]


@pytest.mark.parametrize("name, value, message", [
    ("i8s", 256, "256 does not fit in I8S, an i8 (from -128 to 255"),
    ("i32s", -2**31 - 1, "does not fit in I32S, an i32"),
    ("i64s", 2**64, "does not fit in a 64-bit cell"),
])
def test_an_integer_that_does_not_fit_its_type_is_refused(name, value, message):
    values = {t + "s": 1 for t in TYPES}
    values[name] = value
    with pytest.raises(ForthError, match=re.escape(message)):
        run(SCALARS, values, block=(1, 1, 1))


# ---- grid and block defaults -------------------------------------------------------------------------
def test_the_header_grid_and_block_are_the_launch_defaults():
    spec = parse_kernel_file(TRANSPOSE)
    assert (spec.grid, spec.block) == ((2, 1, 1), (32, 1, 1))
    ids = r"""\! kernel ids
\! param IDX i64[200]
\! grid 3,1,1
\! block 64 1 1
GLOBAL-ID 1+  GLOBAL-ID IDX[] !
"""
    assert parse_kernel_file(ids).block == (64, 1, 1)
    f = run(ids, {})
    assert f.array("IDX").tolist() == list(range(1, 193)) + [0] * 8  # 3 blocks of 64 threads
    f = run(ids, {}, grid=(1, 1, 1), block=(8, 1, 1))  # given: they win
    assert f.array("IDX").tolist() == list(range(1, 9)) + [0] * 192
    with pytest.raises(ForthError, match="give a smaller grid or block"):
        run(ids.replace("\\! block 64 1 1", "\\! block 4096"), {})


# ---- docs/kernel-files.md, "Parameters" ----------------------------------------------------------------
def guide_example(marker: str) -> dict:
    """Run the Python example of docs/kernel-files.md's "Parameters" that holds `marker`, as a user would
    copy it; its last line's value must be what its comment shows. Returns the example's variables."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "kernel-files.md").read_text()
    section = doc[doc.index("## Parameters"):doc.index("## Export a word from the REPL")]
    (block,) = [re.sub(r"^    ", "", b, flags=re.M) for b in re.findall(r"\n\n((?:    [^\n]*\n|\n)+)", section)
                if marker in b]
    scope: dict = {}
    exec(compile(block, "docs/kernel-files.md", "exec"), scope)
    last = block.strip().splitlines()[-1]
    shown = eval(last.split("#", 1)[1], {"array": np.array, "float32": np.float32})
    scope["__result__"] = result = eval(last.split("#", 1)[0], scope)
    np.testing.assert_array_equal(result, shown)
    return scope


def test_the_parameters_guide_example_gives_what_its_comment_says():
    scope = guide_example("scale_t")
    result = scope["__result__"]
    np.testing.assert_array_equal(result, np.arange(6, dtype=np.float32).reshape(2, 3).T * 2)
    assert scope["spec"].block == (64, 1, 1) and scope["spec"].grid is None
