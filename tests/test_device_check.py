"""The device check (benchmarks/device_check.sh, benchmarks/devcheck/) without a GPU.

* The dry run against the stand-in drivers (tests/standin) completes, and its summary parses and has
  every step of the issue, in its phase, with a result; what needs a kernel fails there by design,
  torch's steps say torch is missing, and the lost-context steps say which reset path ran.
* The planned time, installs included, fits 7 minutes.
* What phase A loads, checked here against independent references: each GEMM variant exactly
  against numpy on the cpu emulator; every artifact assembled by ptxas for its architecture, with
  the instructions it exists for in its SASS; the probes' host side (descriptors, shared-memory
  images, fragment layouts) against the PTX ISA's formulas written out here.
* The stand-in cuda-python driver loads cubins (their parameters from the ELF) and checks JIT options.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from tileforth.backends.cuda.ptx import ptxas_path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
SCRIPT = BENCH / "device_check.sh"
STANDIN = ROOT / "tests" / "standin"

pytestmark = [
    pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash"),
    pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed"),
]

# the steps (issue 23), in the order they run
PHASE_A = ["gemm", "probe_mma", "probe_wgmma", "jit", "launchers"]
PHASE_B = ["sticky_torch", "sticky_cupy", "sticky_alone", "latency", "big_launch", "gpu_check", "cases", "pytest_gpu"]
DRY_RUN = "TF_STANDIN=tests/standin bash benchmarks/device_check.sh"


@pytest.fixture(scope="module")
def dc():
    """benchmarks/ on the path for the devcheck package (as tests/test_benchmarks.py does)."""
    sys.path.insert(0, str(BENCH))
    try:
        import devcheck.build_artifacts
        import devcheck.kernels
        import devcheck.main
        import devcheck.plan
        import devcheck.probes
        import devcheck.summary
        import devcheck.wheels
        yield devcheck
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def artifacts(dc, tmp_path_factory):
    out = tmp_path_factory.mktemp("artifacts")
    return out, dc.build_artifacts.build(out, ptxas_path(), "sm_90", log=lambda *_: None)


@pytest.fixture(scope="module")
def dry_run(artifacts, tmp_path_factory):
    """The dry run, as docs/device_check.md gives it, with what CI needs: this tree's tileforth as it is
    (no venv), the artifacts built above, pytest and gpu_check cut to one program and a 64^3 GEMM."""
    art, _ = artifacts
    tmp = tmp_path_factory.mktemp("devcheck")
    env = dict(os.environ, OUT=str(tmp / "out"), TF_WORK=str(tmp / "work"), TF_INSTALL="0", TF_PYTHON=sys.executable,
               TF_DC_ARTIFACTS=str(art), TF_PYTEST_ARGS="tests/test_gpu.py -k arithmetic",
               TF_GPU_CHECK_ARGS="--skip-tests --size 64", PYTHONPATH=str(ROOT))
    for k, v in (kv.split("=", 1) for kv in DRY_RUN.split()[:-2]):
        env[k] = v
    proc = subprocess.run(DRY_RUN.split()[-2:], cwd=ROOT, env=env, capture_output=True, text=True, timeout=400)
    return proc, tmp / "out"


# ---- the dry run ------------------------------------------------------------------------------------------

def test_the_dry_run_completes_and_prints_the_plan(dry_run):
    proc, out = dry_run
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    m = re.search(r"planned (\d+) s of (\d+) s: sysinfo (\d+) \+ max\(install (\d+), phase A (\d+)\) \+ phase B (\d+)",
                  proc.stdout)
    assert m, proc.stdout[:2000]
    total, budget, s0, inst, a, b = map(int, m.groups())
    assert total == s0 + max(inst, a) + b <= budget <= 420  # 7 minutes, installs included
    assert "SUMMARY" in proc.stdout


def test_the_summary_has_every_step_in_its_phase(dc, dry_run):
    proc, out = dry_run
    s = dc.summary.parse((out / "summary.txt").read_text())
    steps = [e.step for e in s["entries"]]
    assert steps == ["sysinfo", *PHASE_A, "phase A", "install", *PHASE_B, "phase B", "end"]
    assert all(e.result in ("PASS", "FAIL", "INFO", "SKIP") for e in s["entries"])
    assert any(f.startswith("STAND-IN run") for f in s["facts"]) and any(f.startswith("planned ") for f in s["facts"])
    git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    # a checkout names its commit; an unpacked sdist (no git) says it cannot
    assert re.search(r"commit [0-9a-f]{7}" if git.returncode == 0 else r"commit \?", s["header"])
    by = {e.step: e for e in s["entries"]}
    for name in PHASE_A + PHASE_B[:-1]:
        if name != "gpu_check":
            assert by[name].detail.startswith("[STAND-IN] "), by[name]
    assert by["install"].result == "PASS" and "PYCUDA=standin" in by["install"].detail
    assert by["phase A"].detail.startswith("5 steps") and by["phase B"].detail.startswith("8 steps")


def test_what_needs_a_kernel_fails_on_the_stand_in_and_says_why(dc, dry_run):
    proc, out = dry_run
    by = {e.step: e for e in dc.summary.parse((out / "summary.txt").read_text())["entries"]}
    gemm = by["gemm"]
    # without torch, or with a CPU build of it (CI installs one for the launcher's torch.compile test)
    no_torch = ("torch not importable", "torch sees no GPU")
    assert gemm.result == "FAIL" and any(w in gemm.detail for w in no_torch)
    assert len(gemm.rows) == 1 + 3 * 2 * 2 and all("WRONG" in r for r in gemm.rows[1:])  # 3 kernels, 2 types, 2 sizes
    assert by["probe_mma"].result == "FAIL" and "fragments NOT as documented" in by["probe_mma"].detail
    assert by["probe_wgmma"].result == "FAIL" and "lbo=K" in by["probe_wgmma"].detail
    assert by["jit"].result == "INFO" and [r.split()[0] for r in by["jit"].rows] == \
        ["module", "empty", "line_line10", "line_loop", "line_tile", "gemm_g11_f16"]
    assert by["launchers"].result == "FAIL" and any(w in by["launchers"].detail for w in no_torch), \
        by["launchers"].detail
    assert by["sticky_torch"].result == "SKIP" and "torch" in by["sticky_torch"].detail
    assert by["pytest_gpu"].result == "FAIL" and "program_agrees_with_the_emulator[arithmetic]" in by["pytest_gpu"].detail
    assert by["gpu_check"].result == "FAIL" and "bound: False" in by["gpu_check"].detail


def test_the_lost_context_steps_record_which_reset_path_ran(dc, dry_run):
    """CuPy's hold (a second retain on the stand-in) makes tileforth reset the primary context for every
    holder, and the message says so; alone, it is the plain release and retain."""
    proc, out = dry_run
    by = {e.step: e for e in dc.summary.parse((out / "summary.txt").read_text())["entries"]}
    cupy, alone = by["sticky_cupy"], by["sticky_alone"]
    assert "by the reset for every holder (_reset_primary returned True)" in cupy.detail
    assert "the message says that other libraries' GPU memory was lost" in cupy.detail
    assert "by the plain release and retain" in alone.detail and "does not say" in alone.detail
    assert "cupy afterwards:" in cupy.detail


def test_out_holds_what_the_device_tool_brings_back(dry_run):
    """At most 8 files, names of letters, digits, '.', '_' and '-' (the device tool's limits)."""
    proc, out = dry_run
    names = sorted(p.name for p in out.iterdir())
    assert len(names) <= 8 and all(re.fullmatch(r"[A-Za-z0-9._-]+", n) for n in names)
    assert {"summary.txt", "results.json", "phase_a.log", "phase_b.log", "logs.tar.gz"} <= set(names)


def test_a_step_cut_by_its_limit_still_reports_what_it_printed(dc, tmp_path, monkeypatch):
    monkeypatch.setenv("TF_WORK", str(tmp_path / "work"))
    monkeypatch.setenv("OUT", str(tmp_path / "out"))
    monkeypatch.delenv("TF_STANDIN", raising=False)
    monkeypatch.delenv("TF_STEPS", raising=False)
    r = dc.main.Run()
    step = dc.plan.Step("slow", "A", 3, "a step that outlives its budget")
    code = "print('  a note', flush=True); print('  | a row', flush=True); import time; time.sleep(60)"
    r.python_step(step, [sys.executable, "-c", code], dict(os.environ))
    text = (tmp_path / "out" / "summary.txt").read_text()  # written already, before the run ends
    entry = dc.summary.parse(text)["entries"][-1]
    assert (entry.step, entry.result) == ("slow", "FAIL") and entry.detail.startswith("timed out after 3 s; a note")
    assert entry.rows == ["a row"] and entry.secs < 15


def test_the_summary_is_on_disk_after_each_line(dc, tmp_path):
    s = dc.summary.Summary(tmp_path / "s.txt", dc.summary.header("abc1234", 420), ["a fact"])
    s.add("gemm", "PASS", 12.4, "all  within\nthe bound", ["g11 f16 1024 ..."])
    got = dc.summary.parse((tmp_path / "s.txt").read_text())
    assert [(e.step, e.result, e.secs, e.detail, e.rows) for e in got["entries"]] == \
        [("gemm", "PASS", 12, "all within the bound", ["g11 f16 1024 ..."])]
    with pytest.raises(ValueError):
        s.add("gemm", "MAYBE", 1, "")
    with pytest.raises(ValueError, match="not a step"):
        dc.summary.parse((tmp_path / "s.txt").read_text() + "garbage line\n")


def test_the_planned_time_with_installs_fits_seven_minutes(dc):
    p = dc.plan.planned()
    assert p["total"] == p["0"] + max(p["install"], p["A"]) + p["B"] <= 420
    assert [s.name for s in dc.plan.steps("A")] == PHASE_A and [s.name for s in dc.plan.steps("B")] == PHASE_B


def test_the_docs_say_how_to_run_it_and_what_each_step_answers(dc):
    doc = (ROOT / "docs" / "device_check.md").read_text()
    assert 'run(command="bash benchmarks/device_check.sh", carry=[".whl"], timeout_s=' in doc
    assert DRY_RUN in doc and "bash benchmarks/fetch_wheels.sh" in doc
    for step in dc.plan.STEPS:
        assert re.search(rf"^\| `{step.name}` \| {step.phase if step.phase in 'AB' else '[^|]+'} \| {step.budget} \|",
                         doc, re.M), step.name


# ---- the GEMM variants, exact on the emulator -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("name", ["g11", "g11tn", "g22"])
def test_each_gemm_variant_is_exact_against_numpy_on_the_emulator(dc, name, dtype):
    from tileforth.core import Forth
    n = 64
    npt, mt = (np.float16, "F16") if dtype == "f16" else (ml_dtypes.bfloat16, "BF16")
    rng = np.random.default_rng(7)
    a, b = (rng.integers(-4, 5, (n, n)).astype(npt) for _ in range(2))
    g = dc.kernels.GEMMS[name]
    f = Forth(backend="cpu")
    f.eval(dc.kernels.gemm_source(name, dtype))
    f.eval(f"{n} {n} {mt} MATRIX A  {n} {n} {mt} MATRIX B  {n} {n} F32 MATRIX C")
    f.set_array("A", a.ravel())
    f.set_array("B", (np.ascontiguousarray(b.T) if g.transposed_b else b).ravel())
    gx, gy, gz = g.grid(n)
    f.eval(f"{gx} {gy} {gz} GRID {g.threads} 1 1 THREADS  A B C {n} {name}")
    np.testing.assert_array_equal(f.array("C").reshape(n, n), a.astype(np.float64) @ b.astype(np.float64))


# ---- the artifacts ---------------------------------------------------------------------------------------

def test_every_artifact_assembles_for_its_architecture(artifacts):
    """Each PTX again through ptxas for the arch its .target names (the wgmma probe: sm_90a only)."""
    import sass
    out, man = artifacts
    ptxs = sorted(out.glob("*.ptx"))
    assert len(ptxs) == 12 and man["total_bytes"] < 512 * 1024  # 6 GEMMs, 3 lines, empty, 2 probes
    for p in ptxs:
        text = p.read_text()
        arch = re.search(r"^\.target (\S+)", text, re.M).group(1)
        assert arch == ("sm_90a" if p.stem == "probe_wgmma" else "sm_90"), p.name
        sass.cubin(text, arch)  # raises when ptxas refuses it
        assert (out / f"{p.stem}.cubin").read_bytes()[:4] == b"\x7fELF"
    with pytest.raises(Exception, match="sm_90a|cannot be compiled|not supported"):
        sass.cubin((out / "probe_wgmma.ptx").read_text(), "sm_90")


def test_the_probes_sass_has_the_instructions_they_probe(artifacts):
    import sass
    out, _ = artifacts
    mma = [i.opcode for i in sum(sass.sass((out / "probe_mma.cubin").read_bytes()).values(), [])]
    for op in ("LDGSTS.E.BYPASS.128", "LDSM.16.M88.4", "LDSM.16.MT88.2", "HMMA.16816.F32", "HMMA.16816.F32.BF16"):
        assert op in mma, op
    wg = [i.opcode for i in sum(sass.sass((out / "probe_wgmma.cubin").read_bytes()).values(), [])]
    assert "HGMMA.64x8x16.F32" in wg and "WARPGROUP.ARRIVE" in wg


def test_the_launchers_and_the_manifest(artifacts):
    out, man = artifacts
    ptx = (out / "launch_saxpy_ptx.py").read_text()
    cub = (out / "launch_saxpy_cubin.py").read_text()
    assert "IMAGE_KIND = 'ptx'" in ptx.replace('"', "'") and "IMAGE_KIND = 'cubin'" in cub.replace('"', "'")
    tma = (out / "launch_tma_rows.py").read_text()
    assert "TMAPS: list = [('tA', 'A', 4, 8, 0, 7)]" in tma  # the map of A: 4 x 8 boxes, unswizzled, FLOAT32
    hopper = (out / "launch_gemm_hopper.py").read_text()
    assert ".target sm_90a" in hopper and "CONTEXT = False" in hopper  # the demo, unchecked, for Hopper
    for bn in (128, 256):  # the bigger rungs: 4 stages of a 128 x 64 and a bn x 64 bf16 box, after 1 KiB of BARS
        big = (out / f"launch_gemm_hopper{bn}.py").read_text()
        assert ".target sm_90a" in big and f"SHARED_BYTES = {1024 + 4 * (128 + bn) * 64 * 2}" in big
    assert man["registers"]["gemm_g22_f16:g22"] > man["registers"]["gemm_g11_f16:g11"]  # 2x2 accumulators
    assert set(man["files"]) >= {f"gemm_{g}_{t}.cubin" for g in ("g11", "g11tn", "g22") for t in ("f16", "bf16")}


# ---- the probes' host side against the PTX ISA ------------------------------------------------------------------

def test_descriptors_pack_the_fields_where_the_ptx_isa_puts_them(dc):
    d = dc.probes.descriptor
    assert d(128, 256) == (128 >> 4) << 16 | (256 >> 4) << 32 == 0x0000_0010_0008_0000
    assert d(16, 1024, swizzle=1) == 0x4000_0040_0001_0000
    assert d(0, 0, start=0x4A0) == 0x4A
    with pytest.raises(ValueError):
        d(8, 256)


def test_the_shared_memory_images_place_each_value_as_the_layouts_say(dc):
    rng = np.random.default_rng(3)
    m = rng.integers(-100, 100, (64, 16)).astype(np.float16)
    bits = m.view(np.uint16)
    img = dc.probes.core_image(m, 8192, k_stride=128, mn_stride=256).view(np.uint16)
    # core matrix (g, c): 8 rows of 8 values, contiguous (128 bytes) at g*256 + c*128
    cores = bits.reshape(8, 8, 2, 8).transpose(0, 2, 1, 3)  # (g, c, row, k)
    for g in range(8):
        for c in range(2):
            at = (g * 256 + c * 128) // 2
            np.testing.assert_array_equal(img[at:at + 64].reshape(8, 8), cores[g, c])
    sw = dc.probes.swizzle128_image(m, 8192).view(np.uint16).reshape(64, 8, 8)  # row, 16-byte chunk, value
    for r in range(64):
        for c in range(2):
            np.testing.assert_array_equal(sw[r, c ^ (r % 8)], bits[r, 8 * c:8 * c + 8])


def _fragments_by_index_arrays(abits, bbits):
    """The m16n8k16 fragments (PTX ISA), written with index arrays: lane l, g = l >> 2, t = l & 3."""
    lane = np.arange(32)
    g, t = lane >> 2, lane & 3
    rows_a = [g, g + 8, g, g + 8]
    cols_a = [2 * t, 2 * t, 2 * t + 8, 2 * t + 8]
    a = [abits[r, c].astype(np.uint32) | abits[r, c + 1].astype(np.uint32) << 16 for r, c in zip(rows_a, cols_a)]
    b = [bbits[k, g].astype(np.uint32) | bbits[k + 1, g].astype(np.uint32) << 16 for k in (2 * t, 2 * t + 8)]
    return np.stack(a + b, axis=1)


def test_the_mma_probe_check_follows_the_documented_fragments(dc):
    a, b = dc.probes.mma_inputs()
    abits, bbits = a.astype(np.float16).view(np.uint16), b.astype(np.float16).view(np.uint16)
    frags = _fragments_by_index_arrays(abits, bbits)
    np.testing.assert_array_equal(dc.probes.mma_expected_fragments(abits, bbits), frags)
    ok, text = dc.probes.check_mma(a, b, abits, bbits, (a.astype(np.float64) @ b).astype(np.float32), frags)
    assert ok and "as documented" in text
    wrong = _fragments_by_index_arrays(np.ascontiguousarray(abits.T), bbits)
    ok, text = dc.probes.check_mma(a, b, abits, bbits, (a @ b).astype(np.float32), wrong)
    assert not ok and "NOT as documented" in text


def test_the_wgmma_check_names_the_reading_that_gave_the_answer(dc):
    a, b = dc.probes.wgmma_inputs()
    good = (a.astype(np.float64) @ b).astype(np.float32)
    raw = np.zeros((128, 4), np.float32)
    for t in range(128):  # D's documented layout, written out: row 16w + l/4 + 8(i/2), column 2(l%4) + i%2
        w, lane = divmod(t, 32)
        raw[t] = [good[16 * w + lane // 4 + 8 * (i // 2), 2 * (lane % 4) + i % 2] for i in range(4)]
    bad = good[::-1].copy()
    ok, text = dc.probes.check_wgmma(a, b, {"lbo=K": (good, raw), "lbo=MN": (bad, raw), "swizzle128": (good, raw)})
    assert ok and "LBO is the K-direction core-matrix distance" in text
    ok, text = dc.probes.check_wgmma(a, b, {"lbo=K": (good, raw), "lbo=MN": (good, raw), "swizzle128": (good, raw)})
    assert not ok and "2 readings give A.B" in text
    cases = dc.probes.wgmma_cases(a, b)
    assert [c.name for c in cases] == ["lbo=K", "lbo=MN", "swizzle128"]
    assert cases[0].desc_a == dc.probes.descriptor(128, 256) and cases[1].desc_a == dc.probes.descriptor(256, 128)


# ---- the stand-in cuda-python driver ------------------------------------------------------------------------

def test_the_cuda_python_stand_in_loads_cubins_and_checks_jit_options(artifacts):
    from standins import standins
    out, _ = artifacts
    with standins("cuda"):
        from cuda.bindings import driver as cu
        assert cu.cuInit(0)[0] == 0
        _, dev = cu.cuDeviceGet(0)
        _, ctx = cu.cuDevicePrimaryCtxRetain(dev)
        assert cu.cuCtxPushCurrent(ctx)[0] == 0
        try:
            image = np.frombuffer((out / "gemm_g11_f16.cubin").read_bytes(), np.uint8)
            opt = [cu.CUjit_option.CU_JIT_OPTIMIZATION_LEVEL]
            err, mod = cu.cuModuleLoadDataEx(image.ctypes.data, 1, opt, [1])
            assert err == 0 and cu.loads[-1] == ("cubin", {opt[0]: 1})
            assert cu.cuModuleGetFunction(mod, b"g11")[0] == 0
            ptx = (out / "probe_wgmma.ptx").read_bytes() + b"\0"  # sm_90a PTX on a 9.0 device
            assert cu.cuModuleLoadDataEx(ptx, 0, [], [])[0] == 0 and cu.loads[-1][0] == "ptx"
            assert cu.cuModuleLoadDataEx(ptx, 1, opt, [5])[0] == cu.CUresult.CUDA_ERROR_INVALID_VALUE
            cu.COMPUTE_CAPABILITY = (8, 0)
            assert cu.cuModuleLoadDataEx(image.ctypes.data, 0, [], [])[0] == cu.CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU
        finally:
            cu.cuCtxPopCurrent()
            cu.cuDevicePrimaryCtxRelease(dev)


def test_cubin_parameters_are_read_from_the_elf_as_the_ptx_declares_them(artifacts):
    sys.path.insert(0, str(STANDIN))
    try:
        import standin_device as sd
    finally:
        sys.path.remove(str(STANDIN))
    out, _ = artifacts
    for stem, entry in (("gemm_g22_bf16", "g22"), ("probe_wgmma", "probe_wgmma"), ("empty", "empty")):
        sm, entries = sd.cubin_entries((out / f"{stem}.cubin").read_bytes())
        assert sm == 90
        assert [size for _, size in entries[entry]] == \
            [size for _, size in sd.entry_params((out / f"{stem}.ptx").read_text(), entry)]


def test_the_wheels_left_out_are_the_ones_that_do_not_fit(dc):
    fetch = [dc.wheels.name(r) for r in dc.wheels.requirements(ROOT, "fetch")]
    install = [dc.wheels.name(r) for r in dc.wheels.requirements(ROOT, "install")]
    assert not {"ipython", "ipykernel", "nbclient", "nbformat", "numpy", "pycuda"} & set(fetch + install)
    assert {"llvmlite", "pytools", "mako", "pytest"} <= set(install) and "llvmlite" not in fetch
