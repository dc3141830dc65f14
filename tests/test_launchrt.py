"""The launcher's runtime, tileforth/export/launchrt.py, as the module it is: a fresh copy imported here,
given a kernel's values (launcher.kernel_data, what the generator writes into its block "the kernel"),
its functions called directly, launches made through the stand-in drivers (tests/standin). And the
launcher the generator writes is this module's code, with those values. tests/test_launcher.py runs
the written modules end to end."""
from __future__ import annotations

import ast
import importlib.util
import re
import sys

import ml_dtypes
import numpy as np
import pytest
from standins import standins
from test_launcher import DIVIDE, SAXPY, DeviceArray, DLPackArray, drv, side, simulate  # noqa: F401 - fixtures
from tileforth.backends.cuda.ptx import module_to_ptx, ptxas_path
from tileforth.core.compile import layout as L
from tileforth.export import launcher, launchrt
from tileforth.export.kernelfile import parse_kernel_file
from tileforth.export.kernels import compile_kernel_file, kernel_file_ptx

pytestmark = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")


@pytest.fixture
def rt():
    """A fresh copy of launchrt: globals and driver of its own."""
    spec = importlib.util.spec_from_file_location("launchrt_under_test", launchrt.__file__)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    yield mod
    mod.close()


def give(rt, text: str, **kw):
    """Put a kernel file's values into rt, as the generator writes them; returns its spec."""
    spec = parse_kernel_file(text, "k.fth")
    km, forth = compile_kernel_file(spec, "sm_90")
    sites = [(w, p.source, p.line, p.col, p.text) if p else (w, "", 0, 0, "") for w, p in forth.sites.entries]
    image = kw.pop("image", None) or module_to_ptx(km.module, "sm_90")
    vars(rt).update(launcher.kernel_data(spec, image, sites=sites, strings=list(forth.strings), **kw))
    return spec


def block_names(source: str) -> list[str]:
    """The names assigned in launchrt's block "the kernel", in order."""
    block = source[source.index(launcher.BLOCK_START):source.index(launcher.BLOCK_END)]
    return [t.id for node in ast.parse(block).body for t in
            ([node.target] if isinstance(node, ast.AnnAssign) else node.targets)]


# ---- the module and what is written from it ---------------------------------------------------

def test_launchrt_imports_only_the_standard_library_numpy_and_the_drivers():
    tree = ast.parse(open(launchrt.__file__, encoding="utf-8").read())
    tops = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    tops |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0}
    # the driver (cuda-bindings), the current stream of torch or CuPy when their arrays are passed, and
    # tileforth's emulator for the CPU fallback only
    assert tops - set(sys.stdlib_module_names) == {"numpy", "cuda", "torch", "cupy", "tileforth"}
    at_load = {a.name for n in tree.body if isinstance(n, ast.Import) for a in n.names}
    assert at_load == {"atexit", "ctypes", "os", "numpy"}  # a driver only when the first launch needs it


def test_the_block_holds_exactly_the_values_the_generator_writes():
    spec = parse_kernel_file(SAXPY.read_text())
    source = open(launchrt.__file__, encoding="utf-8").read()
    assert block_names(source) == list(launcher.kernel_data(spec, "ptx"))


@pytest.mark.parametrize("image", ["ptx", "cubin"])
def test_the_written_module_is_launchrts_code_with_the_kernels_values(image):
    text = SAXPY.read_text()
    spec = parse_kernel_file(text, "saxpy.fth")
    ptx = kernel_file_ptx(text, "sm_90")
    img = ptx if image == "ptx" else b"\x7fELF\x00'''\\ cubin" * 40
    written = launcher.launcher_source(spec, img, sites=[("<line>", "saxpy.fth", 7, 1, "GLOBAL-ID")],
                                       strings=["too big"])
    source = open(launchrt.__file__, encoding="utf-8").read()

    def code(text: str) -> str:  # without the docstring, the block and (cubin) base64's import
        body = "".join(text.splitlines(keepends=True)[ast.parse(text).body[0].end_lineno:])
        start, end = body.index(launcher.BLOCK_START), body.index(launcher.BLOCK_END)
        return (body[:start] + body[end:]).replace("import base64\n", "")
    assert code(written).startswith(code(source).rstrip("\n") + "\n\n\ndef saxpy(X, Y, A, N=None, *, grid=None")
    scope: dict = {"__name__": "written"}
    exec(compile(written, "written.py", "exec"), scope)
    for name, value in launcher.kernel_data(spec, img, sites=[("<line>", "saxpy.fth", 7, 1, "GLOBAL-ID")],
                                            strings=["too big"]).items():
        assert scope[name] == value, name
    assert scope["IMAGE"] == (ptx if image == "ptx" else img)


# ---- arguments ------------------------------------------------------------------------------------

def test_bf16_scalars_round_to_nearest_even_as_ml_dtypes_does(rt):
    rng = np.random.default_rng(7)
    bits = np.concatenate([rng.integers(0, 2**32, 2000, dtype=np.uint64).astype(np.uint32),
                           np.array([0x3F808000, 0x3F818000, 0x3F80FFFF, 0x7F7FFFFF, 0x80000000, 0x7F800000,
                                     0xFF800000, 0x00000001, 0x7FC00000], np.uint32)])  # ties, max, -0, inf
    values = bits.view(np.float32)
    values = values[~np.isnan(values)]
    for v in values:
        want = int(np.array(v, np.float32).astype(ml_dtypes.bfloat16).view(np.uint16))
        assert rt._scalar("B", "bf16", float(v)) == want, float(v)
    assert rt._scalar("B", "bf16", float("nan")) == int(np.array(np.nan, np.float32).astype(ml_dtypes.bfloat16)
                                                       .view(np.uint16))


@pytest.mark.parametrize("ty", ["i8", "i16", "i32", "i64"])
def test_integer_scalars_are_held_to_their_types_range(rt, ty):
    info = np.iinfo(launchrt.NUMPY_TYPES[ty])
    assert rt._check_int("N", ty, int(info.min)) == info.min and rt._check_int("N", ty, np.int64(info.max)) == info.max
    for bad in (int(info.min) - 1, int(info.max) + 1):
        with pytest.raises(ValueError, match=rf"N = {bad} does not fit in {ty} \({info.min} to {info.max}\)"):
            rt._check_int("N", ty, bad)
    for wrong in (True, 1.0, "1"):
        with pytest.raises(TypeError, match=f"N is an {ty} scalar: pass an integer"):
            rt._check_int("N", ty, wrong)


def test_contiguity_is_numpys(rt):
    base = np.zeros((4, 6, 8), np.float32)
    odd = np.lib.stride_tricks.as_strided(base, shape=(1, 8), strides=(12344, 4))  # a length-1 axis: any stride
    cases = (base, base[1:3], base[:, ::2], base.transpose(1, 0, 2), base[:, :1], base[..., 3:4], base[::2, :1], odd)
    for a in cases:
        assert rt._c_contiguous(a.shape, a.strides, a.itemsize) == a.flags.c_contiguous, a.strides
    assert rt._c_contiguous((4, 6), None, 4)  # an interface without strides is C order


def test_launch_shapes(rt):
    assert rt._shape(256, "block") == (256, 1, 1) and rt._shape((4, 2), "grid") == (4, 2, 1)
    for bad in (0, (1, 2, 3, 4), (2, -1)):
        with pytest.raises(ValueError, match=r"give 1 to 3 positive numbers"):
            rt._shape(bad, "grid")


def test_prepare_binds_by_name_and_takes_a_size_from_its_arrays(drv, rt):  # noqa: F811 - the fixture
    give(rt, SAXPY.read_text())
    x, y = DeviceArray(drv, np.arange(10), np.float32), DeviceArray(drv, np.arange(10), np.float32)
    values = rt._bind((x,), {"y": DLPackArray(y), "A": 0.5})
    args, arrays = rt._prepare(values)
    assert [f for f, _ in args] == ["P", "P", "f", "i"] and args[2:] == [("f", 0.5), ("i", 10)]
    assert [a.ptr for a in arrays] == [x.ptr, y.ptr] and [a.size for a in arrays] == [10, 10]
    with pytest.raises(TypeError, match="saxpy: X is given twice"):
        rt._bind((x,), {"x": x})
    with pytest.raises(TypeError, match=r"saxpy: no parameter Z \(its parameters: X, Y, A, N\)"):
        rt._bind((), {"Z": 1})


# ---- launches through each stand-in driver ------------------------------------------------------------

def test_a_launch_through_each_driver_computes_and_reads_the_record(side, rt, monkeypatch):  # noqa: F811
    # (side before rt: rt is closed first, before the driver's checks)
    text = SAXPY.read_text()
    give(rt, text)
    simulate(monkeypatch, side, text)
    assert rt.use(side.name) == side.name
    x, y = DeviceArray(side, np.arange(40), np.float32), DeviceArray(side, np.full(40, 1), np.float32)
    side.launches.clear()
    rt._launch(rt._bind((x, y, 3.0), {}), None, (16, 1, 1), None)
    np.testing.assert_array_equal(y.get(), np.arange(40, dtype=np.float32) * 3 + 1)
    (launch,) = side.launches
    assert launch.grid == (3, 1, 1) and launch.block == (16, 1, 1)  # one thread per element, rounded up
    assert launch.args[1:] == (x.ptr, y.ptr, 3.0, 40)
    record = side.view(launch.args[0], rt.CONTEXT_SLOTS * 8).view(np.int64)
    assert record[rt.RECURSION_SLOT] == launcher.RECURSION_MAX and not record[:rt.RECURSION_SLOT].any()


def test_errors_name_the_kernels_word_and_strings(rt):
    give(rt, DIVIDE)
    site = next(i for i, s in enumerate(rt.SITES) if s[0].upper() == "RATIO" and s[4][s[3] - 1] == "/")
    err = rt._error([L.E_DIV0, site, 5, 0, 0])
    assert isinstance(err, rt.KernelError) and (err.word, err.line, err.thread) == ("ratio", 5, 5)
    assert str(err).startswith(f"divide: k.fth:5:{rt.SITES[site][3]}: division by zero in ratio (thread 5)")
    assert str(rt._error([99, -1, 0, 0, 0])) == "divide: device error 99"
    give(rt, '\\! kernel big\n\\! param N i32\nN 9 > ABORT" N is too big"\n')
    (index,) = [i for i, s in enumerate(rt.STRINGS) if s == "N is too big"]
    assert str(rt._error([L.E_THROW, -1, 2, index, -2])) == 'big: N is too big (ABORT", thread 2)'
    assert "uncaught exception -10 (thread 1): division by zero" in str(rt._error([L.E_THROW, -1, 1, 0, -10]))


def test_use_starts_cuda_python_and_says_how_to_install_it(rt, monkeypatch):
    with standins("cuda"):
        monkeypatch.setenv("TILEFORTH_LAUNCHER_DRIVER", "cuda-python")
        assert rt.use() == "cuda-python"
        monkeypatch.delenv("TILEFORTH_LAUNCHER_DRIVER")
        assert rt.use() == "cuda-python"
        rt.close()
        for old in ("pycuda", "cupy", "numba"):
            with pytest.raises(ValueError, match=re.escape(f"kernel: no driver {old!r}: launchers run on "
                                                           "cuda-python (NVIDIA's cuda-bindings, pip install "
                                                           "cuda-python)")):
                rt.use(old)
    monkeypatch.setitem(sys.modules, "cuda", None)
    with pytest.raises(ImportError, match=r"kernel: the launcher needs NVIDIA's cuda-bindings: pip install "
                                          "cuda-python"):
        rt.use()
