"""Dynamic shared memory in kernel files (issue 29): a kernel whose `\\! shared` arrays and `\\! smem` rings
take more than the 48 KiB a static array may have declares `.extern .shared .align 1024` (ptxas is the
reference for what it accepts), its launcher passes the size at launch after opting in with
cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) (the stand-in cuda-python driver refuses a launch
of more than 48 KiB without it, as the driver does), and the emulator runs the same file (numpy is
the reference for what it computes)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from standins import standins
from test_launcher import CudaPythonSide, DeviceArray, _loader, simulate
from tileforth.backends.cuda.ptx import assemble, ptxas_path
from tileforth.core import Forth, ForthError
from tileforth.export.kernelfile import block_shared_bytes, parse_kernel_file, run_kernel_file
from tileforth.export.kernels import kernel_file_ptx
from tileforth.export.launcher import kernel_data

ROOT = Path(__file__).resolve().parents[1]
needs_ptxas = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")

def kernel(rows: int, stages: int) -> str:
    """Each thread writes its id at the top of T (rows f32); thread t reads what thread 127-t wrote, plus
    the last byte of As's last stage (7)."""
    return f"""\\! kernel big
\\! param X f32[N]
\\! param N i32
\\! smem As bf16[64,64] {stages} swizzled
\\! shared T f32[{rows}]
\\! block 128
TID-X {rows - 128} + 4 * T + TID-X SWAP L!
TID-X 0= IF  {stages - 1} As 8191 + 7 SWAP C!  THEN
BARRIER
GLOBAL-ID N < IF  {rows - 1} TID-X - 4 * T + L@  {stages - 1} As 8191 + C@ +  S>F  GLOBAL-ID 4 * X + SF!  THEN
"""


ROWS = 20480  # T: 20480 f32 = 80 KiB, and As: 10 stages of 64 x 64 bf16 = 80 KiB: 160 KiB in all
BIG, SMALL = kernel(ROWS, 10), kernel(256, 1)  # SMALL: 1 KiB and 8 KiB, a static array
BIG_BYTES = 64 * 64 * 2 * 10 + ROWS * 4  # As's ring (each stage 8192 bytes, 1024-aligned), then T


def expected(n: int) -> np.ndarray:
    return (127 - np.arange(n) % 128 + 7).astype(np.float32)


def test_the_layout_of_a_big_kernel_is_its_arrays():
    assert block_shared_bytes(parse_kernel_file(BIG)) == BIG_BYTES == 160 * 1024
    assert kernel_data(parse_kernel_file(BIG), "")["SHARED_BYTES"] == BIG_BYTES
    assert kernel_data(parse_kernel_file(SMALL), "")["SHARED_BYTES"] == 0  # 9 KiB: a static array, nothing to pass


@needs_ptxas
def test_ptxas_takes_160_kib_of_dynamic_shared_memory_for_sm_90a():
    ptx = kernel_file_ptx(BIG, "sm_90a")
    assert re.search(r"^\.extern \.shared \.align 1024 \.b8 tf_shared\[\];$", ptx, re.M), ptx[:2000]
    _, info = assemble(ptx, "sm_90a")
    assert info["big"].shared == 0 and info["big"].spill_stores == 0  # nothing static: all of it at launch
    ptx = kernel_file_ptx(SMALL, "sm_90a")
    assert re.search(r"^\s*\.shared \.align 1024 \.b8 tf_shared\[9216\];$", ptx, re.M)
    assert assemble(ptx, "sm_90a")[1]["big"].shared == 9216


def test_more_than_the_gpu_allows_is_an_error_before_code_generation():
    with pytest.raises(ForthError, match=r"needs 163840 bytes of shared memory, but a block of an sm_86 GPU may "
                                         r"have at most 101376: use smaller tiles or fewer stages"):
        kernel_file_ptx(BIG, "sm_86")
    with pytest.raises(ForthError, match=r"shared memory U does not fit: a block has at most 232448") as err:
        parse_kernel_file(BIG.replace("\\! block 128", "\\! shared U f32[40000]\n\\! block 128"))
    assert err.value.line == 6


def test_the_emulator_runs_the_big_kernel():
    x = np.zeros(256, np.float32)
    f = Forth(backend="cpu")
    run_kernel_file(f, parse_kernel_file(BIG), {"X": x}, (2, 1, 1))
    np.testing.assert_array_equal(x, expected(256))
    assert f.shared_bytes == BIG_BYTES
    run_kernel_file(f, parse_kernel_file(BIG), {"X": x[:128]}, (1, 1, 1))  # again, in the same session
    np.testing.assert_array_equal(x, expected(256))


def test_a_session_on_the_emulator_may_have_what_an_h200_block_may_have():
    f = Forth(backend="cpu")
    assert f.eval("200000 SHARED: BIG-T  : T1 BIG-T 199996 + DUP 42 SWAP L!  L@ . ;  T1").strip() == "42"
    with pytest.raises(ForthError, match="232448"):
        f.eval("40000 SHARED: MORE")
    assert f.shared_bytes == 200000 and f.eval("T1").strip() == "42"  # the session kept its state


@pytest.fixture
def side():
    with standins("cuda"):
        from cuda.bindings import driver as cu
        s = CudaPythonSide(cu)
        yield s
        assert s.leaked() == []
        assert s.cu.cuDevicePrimaryCtxRelease(s.dev)[0] == 0


@pytest.fixture
def load(tmp_path, side):
    make, made = _loader(tmp_path, "cuda-python")
    yield make
    for mod in made:
        mod.close()


@needs_ptxas
def test_the_launcher_opts_in_and_passes_the_size(load, side, monkeypatch):
    simulate(monkeypatch, side, BIG)  # each launch runs the file on the emulator
    mod = load(BIG, "big")
    x = DeviceArray(side, np.zeros(300), np.float32)
    mod.big(x)
    (launch,) = side.launches
    assert launch.shared_size == BIG_BYTES and launch.block == (128, 1, 1)
    assert list(side.cu.dynamic_shared.values()) == [BIG_BYTES]  # set once, on the kernel's function
    np.testing.assert_array_equal(x.get(), expected(300))
    mod.big(x)
    assert side.launches[-1].shared_size == BIG_BYTES and list(side.cu.dynamic_shared.values()) == [BIG_BYTES]


@needs_ptxas
def test_without_the_opt_in_the_driver_refuses_the_launch(load, side, monkeypatch):
    mod = load(BIG, "big")
    monkeypatch.setattr(type(mod._driver) if mod._driver else mod._Driver, "opt_in", lambda self, fn: None)
    with pytest.raises(RuntimeError, match="CUDA error 1"):
        mod.big(DeviceArray(side, np.zeros(128), np.float32))


@needs_ptxas
def test_a_gpu_with_less_shared_memory_is_told_so(load, side, monkeypatch):
    mod = load(BIG, "big")
    monkeypatch.setitem(side.cu.ATTRIBUTES, 97, 99 * 1024)  # an RTX 4090's opt-in
    with pytest.raises(RuntimeError, match="a block of this kernel takes 163840 bytes of shared memory, but a "
                                           "block of this GPU may have at most 101376; compile it with smaller "
                                           "tiles or fewer stages"):
        mod.big(DeviceArray(side, np.zeros(128), np.float32))
    assert side.launches == []


@needs_ptxas
def test_a_static_kernel_passes_no_shared_memory(load, side, monkeypatch):
    simulate(monkeypatch, side, SMALL)
    mod = load(SMALL, "small")
    x = DeviceArray(side, np.zeros(128), np.float32)
    mod.big(x)
    assert side.launches[-1].shared_size == 0 and side.cu.dynamic_shared == {}
    np.testing.assert_array_equal(x.get(), expected(128))


@needs_ptxas
def test_compile_verbose_reports_the_dynamic_shared_memory(tmp_path):
    src = tmp_path / "big.fth"
    src.write_text(BIG)
    r = subprocess.run([sys.executable, "-m", "tileforth", "compile", str(src), "--arch", "sm_90a", "--verbose",
                        "-o", str(tmp_path / "big.ptx")], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"\S+big\.fth: sm_90a: big: \d+ registers, 0 bytes stack frame, 0\+0 bytes spilled "
                        r"\(stores\+loads\), 0 bytes shared memory, 163840 bytes dynamic shared memory \(given at "
                        r"launch\)\n", r.stderr), r.stderr
