r"""`tileforth run` and run_kernel_file as a kernel prototyper meets them
(issue 14, item 7): every scalar must be given, names keep the user's case,
a closed pipe ends the run quietly, large arrays print summarised and
`--save` writes them; from Python the names are case-insensitive, errors
speak Python, and an array of another dtype than declared is refused.

Expected values are computed here with numpy from what each kernel does."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.export.kernelfile import parse_kernel_file, run_kernel_file

ROOT = Path(__file__).resolve().parents[1]
SAXPY = ROOT / "demos" / "saxpy.fth"
CLI = [sys.executable, "-m", "tileforth.repl.cli"]

# Y[i] = 2 i for i < N
DOUBLE = r"""\! kernel double
\! param Y f32[N]
\! param N i32
GLOBAL-ID N < IF  GLOBAL-ID S>F 2e F*  GLOBAL-ID 4 * Y + F!  THEN
"""

# a scalar that is not a size: each thread adds S to its element
STRIDE = r"""\! kernel addk
\! param OUT i64[8]
\! param S i64
GLOBAL-ID 8 < IF  GLOBAL-ID S +  GLOBAL-ID CELLS OUT + !  THEN
"""


def tileforth(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=300, cwd=cwd)


def values_of(line: str) -> np.ndarray:
    return np.array(line.split(" = ", 1)[1].strip().strip("[]").split(), np.float64)


# ---- the command --------------------------------------------------------------------------------
def test_a_scalar_that_is_not_given_is_an_error_not_zero():
    r = tileforth("run", str(SAXPY), "--backend", "cpu", "--param", "X=1,2,3,4", "--param", "Y=10,20,30,40",
                  "--output-param", "Y")
    assert r.returncode == 1 and r.stdout == ""
    assert "needs its parameter A (f32): give it with --param A=" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_a_missing_scalar_that_is_not_a_size_is_named(tmp_path):
    k = tmp_path / "addk.fth"
    k.write_text(STRIDE)
    r = tileforth("run", str(k), "--backend", "cpu", "--output-param", "OUT")
    assert r.returncode == 1 and "needs its parameter S (i64): give it with --param S=" in r.stderr, r.stderr
    r = tileforth("run", str(k), "--backend", "cpu", "--param", "S=5", "--output-param", "OUT")
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(values_of(r.stdout.strip()), np.arange(8) + 5)


def test_output_param_keeps_the_users_case():
    r = tileforth("run", str(SAXPY), "--backend", "cpu", "--param", "x=1,2,3,4", "--param", "y=10,20,30,40",
                  "--param", "a=2", "--output-param", "y", "--output-param", "X")
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.strip().splitlines()
    assert first.startswith("y = ") and second.startswith("X = ")
    np.testing.assert_array_equal(values_of(first), 2 * np.array([1, 2, 3, 4]) + np.array([10, 20, 30, 40]))


def test_a_large_result_prints_summarised_and_save_writes_it(tmp_path):
    k = tmp_path / "double.fth"
    k.write_text(DOUBLE)
    n = 1000
    r = tileforth("run", str(k), "--backend", "cpu", "--param", f"N={n}", "--grid", "32", "--output-param", "y",
                  "--save", "y=out.npy", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (line,) = r.stdout.strip().splitlines()
    expected = 2.0 * np.arange(n)
    head, _, tail = line.partition("...")
    assert head.startswith("y = [") and tail.endswith(f"]  ({n:,} elements)"), line
    np.testing.assert_array_equal(np.array(head[5:].split(), np.float64), expected[:3])
    np.testing.assert_array_equal(np.array(tail.split("]")[0].split(), np.float64), expected[-3:])
    saved = np.load(tmp_path / "out.npy")
    assert saved.dtype == np.float32
    np.testing.assert_array_equal(saved, expected.astype(np.float32))


def test_save_alone_prints_nothing_and_a_bad_save_is_an_error(tmp_path):
    k = tmp_path / "double.fth"
    k.write_text(DOUBLE)
    r = tileforth("run", str(k), "--backend", "cpu", "--param", "N=4", "--save", "Y=y.npy", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "", r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), [0, 2, 4, 6])
    r = tileforth("run", str(k), "--backend", "cpu", "--param", "N=4", "--save", "N=n.npy", cwd=tmp_path)
    assert r.returncode == 1 and "--save N: not an array parameter of kernel double (its arrays: Y)" in r.stderr
    r = tileforth("run", str(k), "--backend", "cpu", "--param", "N=4", "--save", "Y", cwd=tmp_path)
    assert r.returncode == 1 and "write NAME=FILE.npy" in r.stderr


def test_piping_into_head_ends_quietly(tmp_path):
    """The reader closes the pipe after one line; the rest of the output
    (far more than a pipe holds) then has nowhere to go."""
    k = tmp_path / "double.fth"
    k.write_text(DOUBLE)
    args = ["run", str(k), "--backend", "cpu", "--param", "N=256", "--grid", "8"] + ["--output-param", "Y"] * 200
    proc = subprocess.Popen(CLI + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=300)
    np.testing.assert_array_equal(values_of(first.decode()), 2.0 * np.arange(256))
    assert err == "", err
    assert proc.returncode == 141  # as a command stopped by SIGPIPE


# ---- from Python ----------------------------------------------------------------------------------
def saxpy_spec():
    return parse_kernel_file(SAXPY.read_text(), "saxpy.fth")


def test_python_names_are_case_insensitive():
    f = Forth(backend="cpu")
    x = np.array([1, 2, 3, 4], np.float32)
    y = np.array([10, 20, 30, 40], np.float32)
    expected = np.float32(0.5) * x + y
    run_kernel_file(f, saxpy_spec(), {"x": x, "y": y, "a": 0.5})
    np.testing.assert_array_equal(f.array("Y"), expected)


@pytest.mark.parametrize("values,message", [
    ({"x": [1, 2], "y": [1, 2]}, "needs its parameter A (f32): give it with values['A'] = 2.0"),
    ({"x": [1, 2], "a": 1, "z": 3}, "kernel saxpy has no parameter 'z' (it has X, Y, A, N)"),
    ({"x": [1, 2], "X": [3], "a": 1}, "the values give X twice ('x' and 'X')"),
    ({"a": [1.0, 2.0], "x": [1]}, "values['a'] is an array, but A is a scalar (f32)"),
    ({"a": 1.0}, "X has 0 elements: give its size with values['N'] = ..."),
    ({"x": [1, 2, 3], "n": 2, "a": 1}, "values['X'] has 3 values, but X has 2 elements"),
])
def test_python_errors_speak_python(values, message):
    with pytest.raises(ForthError) as info:
        run_kernel_file(Forth(backend="cpu"), saxpy_spec(), values)
    assert message in info.value.message
    assert "--param" not in info.value.message and "--grid" not in info.value.message


def test_python_launch_shape_errors_speak_python():
    with pytest.raises(ForthError) as info:
        run_kernel_file(Forth(backend="cpu"), saxpy_spec(), {"x": [1], "a": 1}, block=(4096, 1, 1))
    assert "give a smaller grid or block" in info.value.message


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int32])
def test_an_array_of_another_dtype_is_a_clear_error(dtype):
    with pytest.raises(ForthError) as info:
        run_kernel_file(Forth(backend="cpu"), saxpy_spec(), {"X": np.arange(4).astype(dtype), "A": 1.0})
    msg = info.value.message
    assert f"values['X'] is a {np.dtype(dtype)} array, but X is f32[N] (float32)" in msg
    assert "values['X'].astype(np.float32)" in msg


def test_cli_arrays_are_converted_to_the_declared_type(tmp_path):
    """A .npy of float64 values given to `tileforth run` for an f32 array is
    converted (as LOAD-NPY does); only the Python API asks for the exact dtype."""
    np.save(tmp_path / "x.npy", np.array([0.5, 1.5, 2.5]))
    r = tileforth("run", str(SAXPY), "--backend", "cpu", "--param", "X=@x.npy", "--param", "A=2",
                  "--output-param", "Y", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(values_of(r.stdout.strip()), 2 * np.array([0.5, 1.5, 2.5]))


def test_the_guides_python_example_gives_what_its_comment_says(monkeypatch):
    """docs/kernel-files.md's python block, run as copied (from the repository's root)."""
    import re

    blocks = re.findall(r"^```python\n(.*?)^```", (ROOT / "docs" / "kernel-files.md").read_text(), re.M | re.S)
    (block,) = [b for b in blocks if "run_kernel_file" in b]  # the guide's own example (not the launcher's)
    monkeypatch.chdir(ROOT)
    scope: dict = {}
    exec(compile(block, "kernel-files.md", "exec"), scope)
    assert "# array([12., 24., 36., 48.], dtype=float32)" in block
    y = scope["f"].array("Y")
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y, 2.0 * np.array([1, 2, 3, 4]) + np.array([10, 20, 30, 40]))


def test_run_takes_the_files_grid_and_block_when_not_given(tmp_path):
    """`\\! grid` / `\\! block` are the defaults of `tileforth run` too; --grid/--block still win."""
    k = tmp_path / "ids.fth"
    k.write_text("\\! kernel ids\n\\! param OUT i64[128]\n\\! grid 2,1,1\n\\! block 64,1,1\n"
                 "GLOBAL-ID DUP CELLS OUT + !\n")
    r = subprocess.run([sys.executable, "-m", "tileforth.repl.cli", "run", str(k), "--output-param", "OUT"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    values = [int(v) for v in re.findall(r"-?\d+", r.stdout.split("=", 1)[1])]
    assert values[:3] == [0, 1, 2] and values[-3:] == [125, 126, 127]
    r = subprocess.run([sys.executable, "-m", "tileforth.repl.cli", "run", str(k), "--output-param", "OUT",
                        "--grid", "1,1,1", "--block", "32,1,1"], capture_output=True, text=True, timeout=120)
    values = [int(v) for v in re.findall(r"-?\d+", r.stdout.split("=", 1)[1])]
    assert values[31] == 31 and values[-1] == 0
