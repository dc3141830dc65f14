"""The cuda backend's disk cache of cubins (backends/cuda/cubincache.py) and what it rests on: a line's PTX
is the same in every session (session addresses are launch data, core/compile/addresses.py; names come from
the module's content, ptx.canonical_names).

Against the stand-in driver (tests/standin/pycuda), which assembles every PTX module with ptxas as the driver's
JIT would and loads the cubins ptxas makes: kernels do not run there, so the references are the driver's own
records (what it JIT-compiled, what it loaded as a cubin, every live allocation's address), ptxas's log, and,
for what the code computes, the cpu backend running the same code shape (use_address_table) against the cpu
backend with its constants and against numpy. A GPU runs the programs for real (marked gpu, skipped here)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from tileforth.backends.cuda import cubincache as cc
from tileforth.backends.cuda.ptx import assemble_logged, parse_ptxas_log, ptxas_path
from tileforth.core import Forth, ForthError

needs_ptxas = pytest.mark.skipif(ptxas_path() is None, reason="needs ptxas (pip install nvidia-cuda-nvcc)")

# lines that name session memory every way a program can: a VARIABLE, an ARRAY, CREATE and `,`, a DOES> word,
# a VALUE, BASE (HEX), the float precision, a string, recursion (a .func of its own), a loop over an array
PROGRAM = """\
VARIABLE v  7 v !
: rfib DUP 2 < IF EXIT THEN DUP 1- RECURSE SWAP 2 - RECURSE + ;
10 rfib . v @ .
: pr ." hello " v ? ;
pr 3.5e F. BASE @ . HEX 10 . DECIMAL
: bump v @ 1+ v ! ;
16 I64 ARRAY xs
: fill 16 0 DO I DUP * I CELLS xs + ! LOOP ;
bump v @ .
fill xs 3 CELLS + @ .
CREATE tab 1 , 2 , 3 ,
: t@ CELLS tab + @ ;
2 t@ .
: const CREATE , DOES> @ ;  7 const seven  seven .
5 VALUE five : f5 five 1+ ; f5 . 9 TO five f5 .
4 SET-PRECISION 2.0e FSQRT F.
"""


def _cuda(record: list[str] | None = None) -> Forth:
    f = Forth(backend="cuda")
    if record is not None:  # every kernel's PTX as the backend made it, in order
        compile_ = f.backend.compile

        def compile_and_note(*args, **kw):
            handle = compile_(*args, **kw)
            record.append(handle.ptx)
            return handle
        f.backend.compile = compile_and_note
    return f


def _run(f: Forth, text: str = PROGRAM) -> list[str]:
    return [f.eval(line) for line in text.splitlines()]


def _numbers(ptx: str) -> set[int]:
    return {int(x) for x in re.findall(r"(?<![\w.$%])\d{5,}(?![\w.])", ptx)}


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """The cache on, in a directory of the test's own."""
    d = tmp_path / "cubins"
    monkeypatch.setenv(cc.ENV, str(d))
    return d


# ---- the same line, the same PTX ------------------------------------------------------------------------------

def test_two_sessions_make_byte_identical_ptx_though_their_memory_lies_elsewhere(drv):
    ptx1: list[str] = []
    ptx2: list[str] = []
    f1 = _cuda(ptx1)
    _run(f1)
    f2 = _cuda(ptx2)  # while the first holds its memory: every allocation of the second lies elsewhere
    _run(f2)
    try:
        mine = [(a, n) for a, n, _ in drv.allocations()]  # both sessions' memory, as the driver placed it
        bases1, bases2 = f1.backend.target.addresses.bases, f2.backend.target.addresses.bases
        assert len(bases1) == len(bases2) >= 2  # data space and xs at least
        assert not set(bases1) & set(bases2)  # the driver placed them apart
        assert len(ptx1) == len(ptx2) >= 8
        for a, b in zip(ptx1, ptx2):
            assert a == b
        # no immediate of the code is an address of either session (the driver's own list of allocations)
        for ptx in ptx1:
            for x in _numbers(ptx):
                assert not any(a <= x <= a + n for a, n in mine), (hex(x), ptx)
    finally:
        f1.backend.close()
        f2.backend.close()


def test_the_kernel_and_its_words_are_named_by_content_not_by_counters(drv):
    f = _cuda()
    try:
        f.eval(": down ( n -- ) DUP 0> IF 1- RECURSE THEN ;  5 down")
        (handle,) = list(f.device.kcache.values())
        entries = re.findall(r"\.entry\s+(\w+)", handle.ptx)
        funcs = re.findall(r"\.func\s+(?:\([^)]*\)\s*)?(\w+)", handle.ptx)
        assert entries == ["tf_line"] and handle.name == "tf_line"
        assert "word0_down" in funcs  # the recursive word keeps a function of its own
        assert not any(re.fullmatch(r"w\d+_.*|k\d+", n) for n in entries + funcs)
    finally:
        f.backend.close()


def test_a_plain_number_that_is_no_address_stays_a_constant(drv):
    f = _cuda()
    try:
        f.eval(": big 123456789 ;  big .")
        (handle,) = f.device.kcache.values()
        assert 123456789 in _numbers(handle.ptx)
    finally:
        f.backend.close()


# ---- the disk cache -------------------------------------------------------------------------------------------

@needs_ptxas
def test_a_second_session_runs_the_file_from_the_disk_cache(drv, cache_dir, tmp_path):
    src = tmp_path / "prog.fth"
    src.write_text(PROGRAM)
    f1 = _cuda()
    f1.eval(f"INCLUDE {src}")
    f1.backend.wait_cubins()
    first = f1.backend.jit_loads
    assert first == f1.device.compiled >= 8 and f1.backend.cubin_loads == 0
    assert f1.backend.cubins.writes == first
    jitted = drv.stats["ptx_jitted"]
    f2 = _cuda()  # while the first holds its memory: the second's arrays and data space lie elsewhere
    f2.eval(f"INCLUDE {src}")
    try:
        assert not set(f1.backend.target.addresses.bases) & set(f2.backend.target.addresses.bases)
        assert f2.device.compiled == first  # the same kernels, compiled to PTX again ...
        assert f2.backend.jit_loads == 0 and f2.backend.cubin_loads == first  # ... and loaded as cubins
        assert drv.stats["ptx_jitted"] == jitted  # the driver JIT-compiled nothing
        assert f2.backend.cubins.hits == first
    finally:
        f1.backend.close()
        f2.backend.close()


@needs_ptxas
def test_a_cached_kernel_keeps_ptxas_s_stack_frames(drv, cache_dir):
    """A recursive kernel's stack is sized from the assembler's log: a cubin from the cache brings it along."""
    f1 = _cuda()
    f1.eval(": rfib DUP 2 < IF EXIT THEN DUP 1- RECURSE SWAP 2 - RECURSE + ;  10 rfib .")
    f1.backend.wait_cubins()
    f1.backend.close()
    f2 = _cuda()
    try:
        f2.eval(": rfib DUP 2 < IF EXIT THEN DUP 1- RECURSE SWAP 2 - RECURSE + ;  10 rfib .")
        assert f2.backend.cubin_loads == 1
        (handle,) = f2.device.kcache.values()
        _, log = assemble_logged(handle.ptx, f2.backend.jit_arch, 1)  # tier 0: the JIT's level 1, ptxas -O1
        frame = parse_ptxas_log(log)["word0_rfib"].stack_frame
        assert handle.frames["word0_rfib"] == frame > 0
        assert handle.stack_level == max(frame, 16)
    finally:
        f2.backend.close()


@needs_ptxas
def test_a_corrupt_entry_is_compiled_again_and_written_anew(drv, cache_dir):
    f1 = _cuda()
    _run(f1)
    f1.backend.wait_cubins()
    n = f1.backend.jit_loads
    f1.backend.close()
    files = sorted(cache_dir.glob("*/*.cubin"))
    assert len(files) == n
    truncated, flipped = files[0], files[1]
    truncated.write_bytes(truncated.read_bytes()[:100])
    data = bytearray(flipped.read_bytes())
    data[-10] ^= 0xFF
    flipped.write_bytes(bytes(data))
    f2 = _cuda()
    try:
        assert _run(f2) is not None
        assert f2.backend.jit_loads == 2 and f2.backend.cubin_loads == n - 2
        assert f2.backend.cubins.corrupt == 2
        f2.backend.wait_cubins()
        for path in (truncated, flipped):
            assert cc.unpack(path.read_bytes()) is not None  # whole again
    finally:
        f2.backend.close()


@needs_ptxas
def test_a_cubin_the_driver_refuses_is_dropped_the_ptx_loaded_and_the_cache_left_alone(drv, cache_dir):
    """A whole entry the driver does not take means this ptxas's cubins do not load with this driver (a newer
    toolkit than the driver): the entry goes, the line is JIT-compiled, and the session stops using the cache."""
    f1 = _cuda()
    f1.eval("1 2 + .")
    f1.backend.wait_cubins()
    f1.backend.close()
    (path,) = cache_dir.glob("*/*.cubin")
    entry = cc.unpack(path.read_bytes())
    # a whole entry (its checksum holds) for another GPU: ptxas's cubin of the same PTX for sm_80
    ptx = re.sub(r"\.target\s+sm_90a", ".target sm_80", _ptx_of_line("1 2 + ."))
    other, log = assemble_logged(ptx, "sm_80")
    path.write_bytes(cc.pack(cc.Entry(other, log)))
    f2 = _cuda()
    try:
        f2.eval("1 2 + .")
        assert f2.backend.jit_loads == 1 and f2.backend.cubin_loads == 0
        assert not path.exists() and f2.backend.cubins is None
        f2.eval("3 4 * .")
        f2.backend.wait_cubins()
        assert f2.backend.jit_loads == 2 and not list(cache_dir.glob("*/*.cubin"))
    finally:
        f2.backend.close()
    f3 = _cuda()  # a new session tries again (the driver or ptxas may have changed since)
    try:
        f3.eval("1 2 + .")
        f3.backend.wait_cubins()
        assert cc.unpack(path.read_bytes()).cubin == entry.cubin
    finally:
        f3.backend.close()


def _ptx_of_line(line: str) -> str:
    ptx: list[str] = []
    f = _cuda(ptx)
    try:
        f.eval(line)
    finally:
        f.backend.close()
    return ptx[0]


def test_the_cache_is_off_when_the_environment_says_so(drv, monkeypatch, tmp_path):
    monkeypatch.setenv(cc.ENV, "off")
    f = _cuda()
    try:
        f.eval("1 2 + .")
        assert f.backend.cubins is None and f.backend.jit_loads == 1
    finally:
        f.backend.close()
    monkeypatch.delenv(cc.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cc.default_dir() == tmp_path / "xdg" / "tileforth" / "cubins"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cc.default_dir() == Path.home() / ".cache" / "tileforth" / "cubins"
    monkeypatch.setenv(cc.ENV, str(tmp_path / "mine"))
    assert cc.default_dir() == tmp_path / "mine"


# ---- the cache on its own: the bound, two writers ---------------------------------------------------------------

def _entry(i: int, size: int = 1000) -> cc.Entry:
    return cc.Entry(bytes([i % 256]) * size, f"log {i:03d}")


def test_the_cache_stays_under_its_bound_and_evicts_the_least_recently_used(tmp_path):
    one = len(cc.pack(_entry(0)))
    cache = cc.CubinCache(tmp_path, max_bytes=5 * one)
    keys = [cc.cubin_key(f"ptx {i}", "sm_90a", "13000", "ptxas") for i in range(12)]
    for i, key in enumerate(keys):
        assert cache.put(key, _entry(i))
        os.utime(cache.path(key), (1000 + i, 1000 + i))  # the order of use, set: no clock in the test
        assert cache.total_bytes() <= 5 * one
        if i == 6:
            assert cache.get(keys[3]) == _entry(3)  # used now: the most recent of the old ones
            os.utime(cache.path(keys[3]), (1000 + i + 0.5, 1000 + i + 0.5))
        alive = [k for k, key in enumerate(keys) if cache.path(key).exists()]
        if i == 8:  # 3, used at 6, outlived 4 and 5, written before it but used since
            assert alive == [3, 5, 6, 7, 8]
    assert alive == [7, 8, 9, 10, 11]
    assert cache.total_bytes() == 5 * one
    # an entry bigger than the whole bound is not written
    assert not cache.put(cc.cubin_key("huge", "sm_90a", "13000", "ptxas"), _entry(0, 6 * one))


_WRITER = textwrap.dedent("""
    import sys
    from tileforth.backends.cuda import cubincache as cc
    root, me = sys.argv[1], int(sys.argv[2])
    cache = cc.CubinCache(root, max_bytes=1 << 30)
    key = cc.cubin_key("the same ptx", "sm_90a", "13000", "ptxas")
    bad = 0
    for i in range(60):
        cache.put(key, cc.Entry(bytes([me]) * (5000 + 100 * me), f"writer {me}"))
        got = cache.get(key)
        bad += got is not None and got.log not in [f"writer {k}" for k in range(4)]
    print(bad, cache.corrupt)
""")


def test_two_processes_writing_one_entry_leave_a_whole_one(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path), str(me)], stdout=subprocess.PIPE,
                              text=True, env=env) for me in range(4)]
    outs = [p.communicate(timeout=120)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert outs == [["0", "0"]] * 4  # no reader ever saw a torn entry
    cache = cc.CubinCache(tmp_path)
    got = cache.get(cc.cubin_key("the same ptx", "sm_90a", "13000", "ptxas"))
    me = int(got.log.split()[1])
    assert got == cc.Entry(bytes([me]) * (5000 + 100 * me), f"writer {me}")
    assert not list(tmp_path.glob("*/.tmp-*"))  # every temporary file was renamed into place


# ---- what the code computes: the cuda backend's code shape on the emulator --------------------------------------

def test_code_that_reads_its_addresses_from_the_launch_computes_what_constants_do():
    """The cpu backend runs the code shape the cuda backend makes (use_address_table) and with its own constants;
    both print the same, the values numpy and Forth's definitions say, and the array holds numpy's squares."""
    outs = {}
    for table in (False, True):
        f = Forth(backend="cpu")
        f.eval("1 1 1 GRID 1 1 1 THREADS")
        if table:
            f.backend.use_address_table()
        outs[table] = _run(f)
        np.testing.assert_array_equal(f.array("xs"), np.arange(16) ** 2)
        ir = f.compiler.word_ir(f.dict["BUMP"])
        # v's address: a constant of the emulator's own code, read from the launch in the cuda backend's shape
        assert (str(f.dict["V"].value) in ir) is not table
        if table:
            assert len(f.backend.target.addresses.bases) >= 2
    assert outs[True] == outs[False]
    assert "".join(outs[True]).split() == ["55", "7", "hello", "7", "3.5", "10", "10", "8", "9", "3", "7", "6",
                                           "10", "1.414"]


# ---- on a GPU: the same programs, run twice, the second time from the cache ----------------------------------------

def _cuda_available() -> bool:
    try:
        f = Forth(backend="cuda")
    except ForthError:
        return False
    f.backend.close()
    return True


@pytest.mark.gpu
def test_on_a_gpu_a_session_from_the_cache_computes_what_the_emulator_does(cache_dir):
    if not _cuda_available():
        pytest.skip("needs an NVIDIA GPU and PyCUDA")
    cpu = Forth(backend="cpu")
    cpu.eval("1 1 1 GRID 1 1 1 THREADS")
    want = _run(cpu)
    for run in range(2):
        f = Forth(backend="cuda")
        try:
            f.eval("1 1 1 GRID 1 1 1 THREADS")
            assert _run(f) == want
            np.testing.assert_array_equal(f.array("xs"), cpu.array("xs"))
            f.backend.wait_cubins()
            if run:
                assert f.backend.jit_loads == 0 and f.backend.cubin_loads > 0
        finally:
            f.backend.close()


@needs_ptxas
def test_the_benchmark_runs_a_program_twice_and_the_second_from_the_cache():
    bench = Path(__file__).resolve().parents[1] / "benchmarks" / "cubin_cache.py"
    r = subprocess.run([sys.executable, str(bench), "--standin", "--lines", "4"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"first session \(empty cache\)\s+4 kernels:\s+4 JIT-compiled,\s+0 from the cache", r.stdout)
    assert re.search(r"second session\s+4 kernels:\s+0 JIT-compiled,\s+4 from the cache", r.stdout)


@needs_ptxas
def test_a_folder_it_cannot_write_costs_one_assembler_run_and_no_error(drv, tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(cc.ENV, str(blocker / "cubins"))  # below a file: mkdir fails
    f = _cuda()
    try:
        f.eval("1 2 + .")
        f.backend.wait_cubins()
        assert isinstance(f.backend.cubins.unwritable, OSError)
        f.eval("3 4 * .")
        f.eval("5 6 - .")
        f.backend.wait_cubins()
        assert f.backend.jit_loads == 3 and f.backend.cubins.writes == 0
        assert f.backend._cubin_writer.submitted == 1
    finally:
        f.backend.close()


def test_a_writer_whose_assembler_keeps_failing_stops_trying(tmp_path):
    writer = cc.Writer(cc.CubinCache(tmp_path))
    calls = []

    def fails() -> cc.Entry:
        calls.append(1)
        raise ForthError("ptxas rejected the PTX: ptxas fatal: Value 'sm_999' is not defined for option 'arch'")
    try:
        for i in range(cc.GIVE_UP + 5):
            writer.submit(f"k{i}", fails)
            writer.wait()
        assert len(calls) == cc.GIVE_UP and writer.failed == cc.GIVE_UP
        assert not list(tmp_path.glob("*/*.cubin"))
    finally:
        writer.close()
