"""What the nvptx code generator promises for REPL lines on the cuda backend,
checked on its output without a GPU: PTX from `segment_ptx` (the kernel the
backend would load for a line), assembled by ptxas, and where it matters the
SASS (tests/sass.py). Each test names the item of issue 8 it guards.

The same programs run on the cpu backend in tests/test_gpu_programs_cpu.py;
on a GPU, tests/test_gpu.py compares both backends."""
from __future__ import annotations

import re

import pytest
import sass
from tileforth.backends.cuda.ptx import ptxas, ptxas_path
from tileforth.core import Forth, ForthError
from tileforth.core.compile import layout as L
from tileforth.core.records import replace
from tileforth.export.kernels import segment_ptx, word_ptx

pytestmark = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")
ARCH = "sm_90"


def line_ptx(f: Forth, line: str) -> list[str]:
    """The PTX of every kernel a line runs, as the cuda backend compiles it (checked)."""
    kernels: list[str] = []
    f.on_segment = lambda nodes, tiles: kernels.append(segment_ptx(f, nodes, tiles, ARCH))
    try:
        f.eval(line)
    finally:
        f.on_segment = None
    for ptx in kernels:
        ptxas(ptx, ARCH)  # ptxas accepts every one
    return kernels


def entry(ptx: str) -> str:
    """The kernel's own body (the .entry up to the next function)."""
    start = ptx.index(".entry")
    nxt = ptx.find(".func", start)
    return ptx[start:nxt if nxt > 0 else None]


# ---- item 1: shared memory in checked mode -----------------------------------------------------------
def test_a_shared_access_is_checked_against_the_blocks_shared_window():
    f = Forth()
    ptx = line_ptx(f, "256 1 1 THREADS 2048 SHARED: buf  TID-X DUP CELLS buf + !  BARRIER  "
                   "255 TID-X - CELLS buf + @ 1+ BARRIER TID-X CELLS buf + !")[-1]
    k = entry(ptx)
    assert "st.shared.b64" in k and "ld.shared.b64" in k
    # the window's size comes from the context record; the allocation table is not consulted
    assert re.search(rf"ld(\.global)?\.b64\s+%rd\d+, \[%rd\d+\+{L.CTX_SHARED_SIZE * 8}\]", k)
    assert "tf_addr_scan" not in ptx


def test_an_address_of_unknown_origin_may_be_shared_or_allocated():
    """A shared address that went through memory has lost its origin: the
    check tries the shared window first (cvta.shared base), then the allocation table."""
    f = Forth()
    f.eval("2048 SHARED: buf  VARIABLE p")
    ptx = line_ptx(f, "buf p !  p @ @ DROP")[-1]
    k = entry(ptx)
    assert "cvta.shared" in k and "tf_addr_scan" in k
    assert f"+{L.CTX_SHARED_SIZE * 8}]" in k


# ---- item 2: words that name SHARED: buffers ----------------------------------------------------------
def test_a_word_that_is_not_inlined_can_name_a_shared_buffer():
    f = Forth()
    f.eval("2048 SHARED: buf  : w ( -- n ) buf @ 1+  8 0 DO  I CELLS buf + @ +  LOOP ;")
    kernels = line_ptx(f, "w .")
    assert any(re.search(r"\.func .*\n?.*w\b", p) or "ld.shared" in p for p in kernels)
    assert all(".extern .shared .align 1024 .b8 tf_shared[];" in p for p in kernels)


def test_the_issue_example_compiles_for_the_gpu():
    ptx = line_ptx(Forth(), "2048 SHARED: buf : w buf @ 1+ ; w")[-1]
    assert "tf_shared" in ptx


def test_an_exported_kernel_has_static_shared_memory_of_the_declared_size():
    f = Forth()
    f.eval("1000 SHARED: a  24 SHARED: b  : k ( -- ) TID-X b ! ;")
    ptx = word_ptx(f, "k", ARCH)
    assert re.search(r"\.shared \.align 1024 \.b8 tf_shared\[1048\];", ptx)
    assert "st.shared" in ptx and ".extern" not in ptx


def test_an_exported_kernel_past_48_kib_has_dynamic_shared_memory():
    f = Forth()
    f.eval("40000 SHARED: a  20000 SHARED: b  : k ( -- ) TID-X b ! ;")
    ptx = word_ptx(f, "k", "sm_90")  # 60000 bytes: more than a static array may have, given at launch
    assert re.search(r"^\.extern \.shared \.align 1024 \.b8 tf_shared\[\];$", ptx, re.M) and "st.shared" in ptx
    f.eval("50000 SHARED: c")
    with pytest.raises(ForthError, match="needs 110000 bytes of shared memory, but a block of an sm_86 GPU may "
                                         "have at most 101376"):
        word_ptx(f, "k", "sm_86")


# ---- item 6: the launch's block shape bounds the registers -------------------------------------------------
def test_the_kernel_declares_its_block_shape_for_ptxas():
    f = Forth()
    f.eval("2 1 1 GRID 128 2 1 THREADS")
    ptx = line_ptx(f, "TID-X DROP")[-1]
    assert re.search(r"\.maxntid 128, 2, 1", ptx)


@pytest.mark.parametrize("line, message", [
    ("1 70000 1 GRID", "a grid has at most 65535 along y"),
    ("1 1 70000 GRID", "a grid has at most 65535 along z"),
    ("1 1 65 THREADS", "a block has at most 64 along z"),
    ("2048 1 1 THREADS", "a block has at most 1024 along x"),
    ("64 32 1 THREADS", "a block has at most 1024 threads"),
])
def test_launch_shapes_are_checked_axis_by_axis(line, message):
    f = Forth()
    with pytest.raises(ForthError, match=message):
        f.eval(line)
    assert f.launch_shape == ((1, 1, 1), (32, 1, 1))


# ---- item 7: each backend states its recursion limit --------------------------------------------------
def test_the_recursion_limit_comes_from_the_launch():
    f = Forth()
    f.eval(": down ( n -- ) DUP IF 1- RECURSE ELSE DROP THEN ;")
    ptx = line_ptx(f, "5 down")[-1]
    assert re.search(rf"\[%rd\d+\+{L.CTX_RECURSION_MAX * 8}\]", ptx)
    assert "2000" not in ptx  # no limit compiled in


def test_a_backend_with_a_smaller_stack_stops_recursion_at_its_own_limit():
    f = Forth()
    f.eval("1 1 1 THREADS : down ( n -- ) DUP IF 1- RECURSE ELSE DROP THEN ;")
    f.backend.caps = replace(f.backend.caps, recursion_max=50)
    f.eval("50 down")  # the line's call and 50 nested RECURSEs
    with pytest.raises(ForthError, match="recursion deeper than 50 calls in down .*limit of the cpu backend"):
        f.eval("51 down")
    assert f.eval("3 .") == "3 "


# ---- items 8 and 9: the inner loop of a checked line --------------------------------------------------------
def test_a_checked_loop_keeps_its_counter_and_range_cache_in_registers():
    """The step budget lives in a register (loaded once from the thread record,
    never stored back by a line without calls), the abort flag (mapped host
    memory: a PCIe round trip) is read in tf_poll every POLL_EVERY iterations
    only, and the range cache of checked accesses is in registers too."""
    f = Forth()
    f.eval("1 1 1 THREADS 64 I64 ARRAY xs")
    k = entry(line_ptx(f, "1000000 0 DO  I  I 63 AND CELLS xs + !  LOOP")[-1])
    assert "ld.volatile" not in k and "call.uni (retval0), tf_poll" in k
    steps = re.findall(rf"(\w+)(?:\.global)?\.b64\s+[^;]*\[%rd\d+\+{L.T_STEPS * 8}\]", k)
    assert steps == ["ld"], steps
    assert f"+{L.T_CACHE_LO * 8}]" not in k and f"+{L.T_CACHE_HI * 8}]" not in k


def test_the_abort_flag_is_polled_every_poll_every_iterations():
    k = entry(line_ptx(Forth(), "0 BEGIN 1+ DUP 100000 = UNTIL DROP")[-1])
    assert re.search(rf"and\.b64\s+%rd\d+, %rd\d+, {L.POLL_EVERY - 1};", k)


def test_an_array_name_gives_global_loads_and_stores():
    f = Forth()
    f.eval("32 I64 ARRAY xs  32 F32 ARRAY ys")
    ptx = line_ptx(f, "TID-X DUP CELLS xs + !  1.5e TID-X 4 * ys + F!  TID-X CELLS xs + @ DROP")[-1]
    k = entry(ptx)
    assert "st.global.b64" in k and "st.global.b32" in k and "ld.global.b64" in k


def test_the_tiled_shared_memory_matmul_uses_lds_and_sts():
    from test_ptx import TILED
    f = Forth()
    f.eval(TILED)
    ops = set(sass.opcodes(sass.sass(sass.cubin(word_ptx(f, "tiled", ARCH), ARCH))["tiled"]))
    assert {"LDS", "STS"} <= ops



def test_the_kernel_file_guide_gives_the_size_of_the_context_record():
    """An exported kernel writes its error record and uses a scratch thread record after it."""
    from pathlib import Path
    guide = (Path(__file__).resolve().parents[1] / "docs" / "kernel-files.md").read_text()
    assert f"at least {L.CTX_SLOTS + L.THR_SLOTS} 64-bit slots" in guide
