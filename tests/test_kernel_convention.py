"""Issue 30, point 4: f.kernel and run_kernel_file follow one convention. Launch shapes are
checked as GRID and THREADS check theirs (the same messages), given as ints or one to three
ints; f.kernel returns what each thread's run of the word left; run_kernel_file runs the same
kernel file twice in one session and writes the results back into the numpy arrays it was given,
as f.kernel does. Expected values are computed with numpy."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.export.kernelfile import parse_kernel_file, run_kernel_file

SAXPY = Path(__file__).resolve().parents[1] / "demos" / "saxpy.fth"


def message(f: Forth, line: str) -> str:
    with pytest.raises(ForthError) as e:
        f.eval(line)
    return e.value.message


@pytest.fixture
def f() -> Forth:
    s = Forth(backend="cpu")
    s.eval(": k ( a -- x ) ( F: -- r ) GLOBAL-ID CELLS + @ GLOBAL-ID S>F 0.5e F* ;")
    return s


@pytest.mark.parametrize("shape,line", [
    ({"block": (2048, 1, 1)}, "2048 1 1 THREADS"),
    ({"block": (1024, 2)}, "1024 2 1 THREADS"),
    ({"grid": (0, 1, 1)}, "0 1 1 GRID"),
    ({"grid": (1, 70000, 1)}, "1 70000 1 GRID"),
])
def test_f_kernel_refuses_shapes_as_grid_and_threads_do(f, shape, line):
    with pytest.raises(ForthError) as e:
        f.kernel("k")(np.zeros(4, np.int64), **shape)
    assert e.value.message == message(Forth(backend="cpu"), line)


@pytest.mark.parametrize("bad", [2.5, (1, 2, 3, 4), "4", ()])
def test_a_shape_that_is_not_ints_is_a_forth_error(f, bad):
    with pytest.raises(ForthError, match=r"GRID takes an int or one to three ints"):
        f.kernel("k")(np.zeros(4, np.int64), grid=bad)


def test_f_kernel_takes_ints_and_returns_each_threads_results(f):
    a = np.arange(96, dtype=np.int64) * 7 - 5
    run = f.kernel("k")(a, grid=3, block=32)
    assert run.cells.shape == (96, 1) and run.floats.shape == (96, 1)
    np.testing.assert_array_equal(run.cells[:, 0], a)
    np.testing.assert_array_equal(run.floats[:, 0], np.arange(96, dtype=np.float32) * np.float32(0.5))
    assert run.output == "" and str(run) == ""
    assert f.data_stack() == [] and f.launch_shape == ((1, 1, 1), (32, 1, 1))  # the session is as before


def test_f_kernel_returns_what_it_printed(f):
    f.eval(": hi ( -- ) GLOBAL-ID 0= IF .\" hi\" THEN ;")
    assert f.kernel("hi")(grid=(2,), block=(64,)).output == "[b0 t0] hi\n"  # one thread printed: labelled


def test_run_kernel_file_runs_twice_in_one_session_and_writes_back():
    f = Forth(backend="cpu")
    spec = parse_kernel_file(SAXPY.read_text(), "saxpy.fth")
    for a in (0.5, 3.0):
        x = np.arange(8, dtype=np.float32)
        y = np.full(8, 10, np.float32)
        before = y.copy()
        run_kernel_file(f, spec, {"x": x, "y": y, "a": a})
        np.testing.assert_array_equal(y, np.float32(a) * x + before)  # written back into the given array
        np.testing.assert_array_equal(f.array("Y"), y)
        np.testing.assert_array_equal(x, np.arange(8, dtype=np.float32))


def test_run_kernel_file_still_refuses_a_name_that_hides_a_session_word():
    f = Forth(backend="cpu")
    f.eval(": x 1 ;")
    spec = parse_kernel_file(SAXPY.read_text(), "saxpy.fth")
    with pytest.raises(ForthError, match="X would hide the Forth word X"):
        run_kernel_file(f, spec, {"x": np.zeros(4, np.float32), "a": 1.0})


def test_run_kernel_file_checks_its_shape_as_threads_does():
    spec = parse_kernel_file(SAXPY.read_text(), "saxpy.fth")
    with pytest.raises(ForthError) as e:
        run_kernel_file(Forth(backend="cpu"), spec, {"x": [1], "a": 1}, block=(4096, 1, 1))
    assert e.value.message.startswith(message(Forth(backend="cpu"), "4096 1 1 THREADS"))
    assert e.value.message.endswith("give a smaller grid or block")
