"""The cuda backend's host side against the stand-in driver (tests/standin/pycuda):
contexts, memory, launch records, lost contexts, launch limits and the call
stack for recursion. Kernels do not run on the stand-in, so lines compute
nothing: values reach the stacks through the host (push_uniform, set_array).
The kernels themselves need a GPU (tests/test_gpu.py)."""
from __future__ import annotations

import re

import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.compile import layout as L

LOST = ("the GPU context was lost (an illegal memory access was encountered): tileforth started a fresh one; "
        "the dictionary and the stacks are kept, device memory was restored from the host's copies")


@pytest.fixture
def f(cuda_session):
    return cuda_session


def _array(f: Forth, name: str, values) -> None:
    values = np.asarray(values, np.float32)
    f.push_uniform(values.size, 6)  # literals would need the kernel to run: host words take them from the state
    f.eval(f"ARRAY {name}")
    f.set_array(name, values)


# ---- the host side ----------------------------------------------------------------------------------

def test_memory_round_trips_through_device_buffers(f):
    values = np.arange(8, dtype=np.float32) * 1.5
    _array(f, "xs", values)
    np.testing.assert_array_equal(f.array("xs"), values)
    assert f.backend_name == "cuda" and f.backend.arch == "sm_90"


def test_a_launch_passes_the_context_and_thread_records(f, drv):
    f.push_uniform(2, 1, 1)
    f.eval("GRID")
    f.push_uniform(64, 1, 1)
    f.eval("THREADS")
    drv.launches.clear()
    f.eval("1 2 +")
    (launch,) = drv.launches
    assert launch.grid == (2, 1, 1) and launch.block == (64, 1, 1)
    ctx, thr = launch.args
    words = f.backend.read(ctx, L.CTX_SLOTS * 8).view(np.int64)
    assert words[L.CTX_OUT_CAP] > 0 and words[L.CTX_ABORT] != 0  # the mapped abort flag
    assert words[L.CTX_STEPS_MAX] == f.step_budget and words[L.CTX_STEPS_USED] == 0  # the launch-wide pool
    records = f.backend.read(thr, 128 * L.THR_SLOTS * 8).view(np.int64).reshape(128, L.THR_SLOTS)
    np.testing.assert_array_equal(records[:, L.T_LINEAR], np.arange(128))
    m = f.machine  # a record: the depths, the cells, the f32s (the launch's stack depths)
    np.testing.assert_array_equal(np.diff(records[:, L.T_STATE]), 16 + 8 * m.ds_max + 4 * m.fs_max)
    assert records[:, L.T_STEPS].min() == f.step_budget and records[0, L.T_STATE] > 0


def test_host_words_read_and_write_the_state_on_the_device(f):
    st = f.backend.get_state()
    st[:, 0:8].view(np.int64)[:, 0] = 1
    st[:, L.S_DS:L.S_DS + 8].view(np.int64)[:, 0] = 42
    f.backend.set_state(st)
    f.eval("CONSTANT answer")
    assert f.dict["ANSWER"].value == 42 and f.data_stack() == []


# ---- 4: the primary context, pushed around each operation -----------------------------------------

def test_each_line_leaves_the_context_stack_as_it_found_it(f, drv):
    assert drv.context_stack() == []
    f.eval(": sq DUP * ;  3 sq")
    assert drv.context_stack() == []
    theirs = drv.Device(0).make_context()  # another library's context, current in this thread
    try:
        drv.launches.clear()
        f.eval("1 2 +")
        f.push_uniform(4, 6)
        f.eval("ARRAY ys")
        assert drv.context_stack() == [theirs]
        primary = drv.Device(0).retain_primary_context()
        assert drv.launches[-1].context == primary.handle != theirs.handle  # the session's own context
        primary.detach()
    finally:
        theirs.detach()
    assert drv.context_stack() == []


def test_sessions_share_one_primary_context_and_alternate(cuda_sessions, drv):
    a = cuda_sessions()
    b = cuda_sessions()
    assert drv.stats["contexts_created"] == 1 and drv.primary_refs() == 1
    _array(a, "xs", [1, 2, 3])
    _array(b, "xs", [4, 5])
    for _ in range(2):
        a.eval("1 2 +")
        b.eval("3 4 +")
        np.testing.assert_array_equal(a.array("xs"), [1, 2, 3])
        np.testing.assert_array_equal(b.array("xs"), [4, 5])
    assert len({launch.context for launch in drv.launches}) == 1 and drv.context_stack() == []
    a.backend.close()
    assert drv.primary_refs() == 1
    b.eval("5 6 +")
    np.testing.assert_array_equal(b.array("xs"), [4, 5])
    b.backend.close()
    assert drv.primary_refs() == 0 and drv.stats["primary_resets"] == 1 and drv.allocations() == []


def test_a_session_is_released_when_it_is_collected(drv):
    import gc

    f = Forth(backend="cuda")
    f.eval("1 2 +")
    assert drv.primary_refs() == 1
    del f
    gc.collect()
    assert drv.primary_refs() == 0 and drv.allocations() == []


def test_arrays_of_other_libraries_in_the_primary_context_work_with_kernel(f, drv):
    primary = drv.Device(0).retain_primary_context()  # what CuPy / PyTorch allocate in
    primary.push()
    mem = drv.mem_alloc(64)
    drv.Context.pop()

    class TheirArray:
        __cuda_array_interface__ = {"data": (int(mem), False), "shape": (16,), "typestr": "<f4", "version": 3}

    f.eval(": touch ( addr -- ) DROP ;")
    drv.launches.clear()
    f.kernel("touch")(TheirArray(), grid=(1, 1, 1), block=(32, 1, 1))
    assert len(drv.launches) == 1 and drv.launches[0].context == primary.handle
    table = f.backend.read(f.backend.table_dev, 16 * f.backend._n_allocs).view(np.int64).reshape(-1, 2)
    assert [int(mem), int(mem) + 64] in table.tolist()
    mem.free()
    primary.detach()


# ---- 5: a lost context ----------------------------------------------------------------------------

def test_a_lost_context_is_replaced_and_the_session_goes_on(f, drv, capfd):
    _array(f, "xs", [1.5, 2.5, 3.5])
    f.eval(": sq DUP * ;")
    f.eval("1 2 +")
    old_context = drv.launches[-1].context
    f.push_uniform(7)
    before = [(a, n) for a, n, _ in drv.allocations()]
    drv.inject("launch", 700)
    with pytest.raises(ForthError) as err:
        f.eval("1 2 +")
    assert LOST in str(err.value) and "--backend cpu" in str(err.value)
    assert drv.stats["primary_resets"] == 1 and drv.primary_refs() == 1
    assert [(a, n) for a, n, _ in drv.allocations()] == before  # every allocation at its address
    np.testing.assert_array_equal(f.array("xs"), [1.5, 2.5, 3.5])
    assert f.data_stack() == [7] and "SQ" in f.dict
    f.eval("3 sq")  # the next line works (its kernel is loaded into the fresh context)
    assert drv.launches[-1].context != old_context
    assert "PyCUDA WARNING" not in capfd.readouterr().err and drv.context_stack() == []


def test_a_fault_reported_by_synchronize_is_recovered_too(f, drv):
    _array(f, "xs", [9, 8])
    f.eval("1 2 +")
    drv.fault(719)  # the kernel faults: the launch returns, the next call reports it
    with pytest.raises(ForthError, match="the GPU context was lost .unspecified launch failure."):
        f.eval("1 2 +")
    f.eval("1 2 +")
    np.testing.assert_array_equal(f.array("xs"), [9, 8])


def test_recovery_keeps_addresses_across_holes_and_sessions(cuda_sessions, drv):
    a = cuda_sessions()
    _array(a, "xs", np.arange(100))
    a.push_uniform(2, 1, 1)
    a.eval("GRID")  # frees and re-allocates the state: a hole
    b = cuda_sessions()
    _array(b, "ys", [5, 6, 7])
    a.eval(": touch ( addr -- ) DROP ;")
    a.kernel("touch")(np.zeros(4000, np.float32))  # a temporary allocation, freed after: another hole
    _array(a, "zs", np.arange(1000))
    a.push_uniform(1, 1, 1)
    a.eval("GRID")
    before = [(x, n) for x, n, _ in drv.allocations()]
    drv.inject("launch", 700)
    with pytest.raises(ForthError, match="context was lost"):
        b.eval("1 2 +")
    assert [(x, n) for x, n, _ in drv.allocations()] == before
    a.eval("1 2 +")  # the other session goes on too
    b.eval("1 2 +")
    np.testing.assert_array_equal(a.array("xs"), np.arange(100))
    np.testing.assert_array_equal(a.array("zs"), np.arange(1000))
    np.testing.assert_array_equal(b.array("ys"), [5, 6, 7])


def test_a_driver_error_that_leaves_the_context_alive_is_a_forth_error(f, drv):
    drv.inject("memcpy_dtoh", 1)
    with pytest.raises(ForthError, match="the GPU driver failed while .*invalid argument"):
        f.eval("1 2 +")
    assert drv.stats["primary_resets"] == 0
    f.eval("1 2 +")


# ---- 6: launch limits -------------------------------------------------------------------------------

def test_capabilities_are_the_devices(drv, cuda_sessions):
    drv.configure(attributes={"MAX_GRID_DIM_Y": 1000, "MAX_BLOCK_DIM_Z": 16})
    caps = cuda_sessions().backend.caps
    assert caps.max_block == (1024, 1024, 16) and caps.max_grid == (2**31 - 1, 1000, 65535)
    assert caps.max_block_threads == 1024 and caps.warp_size == 32 and caps.max_threads == 1 << 31
    assert caps.shared_bytes == 232448 and caps.recursion_max == 256 and caps.keeps_tiles is False


def test_grid_and_block_beyond_the_device_are_forth_errors(drv, cuda_sessions):
    drv.configure(attributes={"MAX_GRID_DIM_Y": 1000, "MAX_BLOCK_DIM_Z": 16})
    f = cuda_sessions()
    f.push_uniform(1, 2000, 1)
    with pytest.raises(ForthError, match="GRID"):
        f.eval("GRID")
    f.push_uniform(2, 2, 32)
    with pytest.raises(ForthError, match="THREADS"):
        f.eval("THREADS")
    assert f.launch_shape == ((1, 1, 1), (32, 1, 1))


def test_a_block_too_big_for_the_kernels_registers_is_a_forth_error(drv, cuda_sessions):
    drv.configure(registers=128)  # 128 registers a thread: 512 threads a block at most
    f = cuda_sessions()
    f.push_uniform(1024, 1, 1)
    f.eval("THREADS")
    with pytest.raises(ForthError, match="uses 128 registers .* at most 512 threads .* fewer THREADS"):
        f.eval("1 2 +")
    f.push_uniform(512, 1, 1)
    f.eval("THREADS")
    f.eval("1 2 +")


def test_too_many_resources_at_the_launch_is_a_forth_error(f, drv):
    drv.inject("launch", 701)
    with pytest.raises(ForthError, match="too many resources requested for launch.*fewer THREADS"):
        f.eval("1 2 +")
    assert drv.stats["primary_resets"] == 0


def test_shared_memory_is_dynamic_and_sized_at_the_launch(f, drv):
    f.push_uniform(2048)
    f.eval("SHARED: buf")
    f.eval("1 2 +")
    assert drv.launches[-1].shared_size == 2048 and f.backend.ctx_host[L.CTX_SHARED_SIZE] == 2048
    f.push_uniform(100 * 1024)  # beyond 48 KiB: the function must opt in first
    f.eval("SHARED: big")
    f.eval("1 2 +")
    assert drv.launches[-1].shared_size == f.shared_bytes > 100 * 1024
    assert f.backend.ctx_host[L.CTX_SHARED_SIZE] == f.shared_bytes


def test_the_exact_architecture_is_used(drv, cuda_sessions):
    drv.configure(compute_capability=(8, 6), name="stand-in RTX 3090")
    f = cuda_sessions()
    assert f.backend.arch == "sm_86" and f.ptx_arch == "sm_86"
    f.eval("1 2 +")
    assert ".target sm_86" in list(f.kcache.values())[-1].ptx


def test_on_hopper_lines_compile_for_the_arch_specific_target(drv, cuda_sessions):
    """CC 9.0: the REPL's lines target sm_90a (PTX ISA: arch-specific code loads on exactly that compute
    capability, the device's), so setmaxnreg (REGS-, sm_90a only) runs at the prompt; the JIT (ptxas in the
    stand-in) assembles it for sm_90a."""
    f = cuda_sessions()
    assert f.backend.arch == "sm_90" and f.backend.jit_arch == "sm_90a" and f.ptx_arch == "sm_90a"
    f.eval("128 1 1 THREADS")
    f.eval("40 REGS-  TID-X 0= IF 7 . THEN")
    (ptx,) = [k.ptx for k in f.kcache.values() if "setmaxnreg" in k.ptx]
    assert ".target sm_90a" in ptx and re.search(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+40;", ptx)


def test_an_architecture_the_code_generator_does_not_know_is_a_forth_error(drv):
    drv.configure(compute_capability=(9, 9))
    with pytest.raises(ForthError, match="sm_99.*cannot target.*--backend cpu"):
        Forth(backend="cuda")
    assert drv.primary_refs() == 0 and drv.context_stack() == []


# ---- 7: recursion on the GPU's call stack ---------------------------------------------------------

def _need_ptxas() -> None:
    from tileforth.backends.cuda.ptx import ptxas_path
    if ptxas_path() is None:
        pytest.skip("needs ptxas (the nvidia-cuda-nvcc wheel) for the JIT log")


def test_recursion_raises_the_stack_limit_and_sets_the_depth(f, drv):
    _need_ptxas()
    f.eval("1 2 +")
    assert drv.launches[-1].stack_size == 1024 and f.backend.ctx_host[L.CTX_RECURSION_MAX] == 256
    f.eval(": fact DUP 1 > IF DUP 1- RECURSE * THEN ;")
    f.eval("5 fact")
    handle = list(f.kcache.values())[-1]
    frame = max(v for k, v in handle.frames.items() if "FACT" in k.upper())
    assert frame > 0  # from the JIT's verbose log
    assert handle.stack_level == frame and f.backend.ctx_host[L.CTX_RECURSION_MAX] == 256
    assert drv.launches[-1].stack_size == handle.stack_base + 258 * frame


def test_the_depth_is_lowered_when_the_cap_binds():
    from tileforth.backends.cuda.backend import STACK_CAP, stack_plan

    ptx = (".visible .entry k(\n.param .u64 a\n)\n{\ncall.uni (retval0), f, (param0);\n}\n"
           ".func (.param .b64 r) f(\n.param .b64 p\n)\n{\ncall.uni (retval0), f, (param0);\n}\n")
    log = ("ptxas info    : Compiling entry function 'k' for 'sm_90'\nptxas info    : Function properties for k\n"
           "    40 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
           "ptxas info    : Function properties for f\n    1000 bytes stack frame, 0 bytes spill stores\n")
    base, level, depth = stack_plan("k", ptx, log, 40)
    assert (base, level) == (40, 1000) and depth == (STACK_CAP - 40) // 1000 - 2
    assert base + (depth + 2) * level <= STACK_CAP
    not_called = ptx.replace("call.uni (retval0), f, (param0);", "", 1)  # f recurses, but k does not call it
    assert stack_plan("k", not_called, log, 40) == (0, 0, 256)


def test_the_depth_is_lowered_when_the_device_cannot_reserve_the_stack(drv, cuda_sessions):
    _need_ptxas()
    drv.configure(total_memory=2 << 30)  # 2 GiB: ~7 KiB of stack for each of 270336 threads
    f = cuda_sessions()
    f.eval(": fact DUP 1 > IF DUP 1- RECURSE * THEN ;")
    f.eval("5 fact")
    depth = int(f.backend.ctx_host[L.CTX_RECURSION_MAX])
    assert 8 < depth < 256
    assert drv.launches[-1].stack_size * 132 * 2048 <= 2 << 30


def test_without_the_jit_log_recursion_gets_an_estimated_frame(f, drv):
    from tileforth.backends.cuda.backend import FALLBACK_FRAME, STACK_CAP

    f.backend._jit_options = [(12, 1)]  # a PyCUDA that refuses the option (a plain int here): loads without it
    f.eval(": fact DUP 1 > IF DUP 1- RECURSE * THEN ;")
    f.eval("5 fact")
    handle = list(f.kcache.values())[-1]
    assert f.backend._jit_options == [] and handle.frames == {} and handle.stack_level == FALLBACK_FRAME
    # 256 levels of 256 bytes exceed the 64 KiB cap: fewer levels, and the launch's depth limit says so
    assert handle.depth == (STACK_CAP - handle.stack_base) // FALLBACK_FRAME - 2 < 256
    assert f.backend.ctx_host[L.CTX_RECURSION_MAX] == handle.depth
    assert drv.launches[-1].stack_size == handle.stack_base + (handle.depth + 2) * FALLBACK_FRAME <= STACK_CAP


def test_see_ptx_shows_the_gpus_own_architecture_by_default(drv):
    from tileforth.repl.session import Session
    drv.configure(compute_capability=(8, 6))
    s = Session.start("cuda")
    try:
        assert s.arch == s.forth.ptx_arch == "sm_86"
        assert ".target sm_86" in s.forth.eval(": sq DUP * ;  SEE-PTX sq")
    finally:
        s.forth.close()
    assert drv.context_stack() == [] and drv.primary_refs() == 0


def test_words_that_move_unknown_tiles_are_defined_on_the_cuda_backend(f):
    """A definition is checked alone, with unknown tiles below it (holes): TSWAP or
    3 TROLL on them must not need their register types (the H200 run of the
    device check found `acc+` of demos/gemm.fth failing here)."""
    f.eval(": sw TSWAP ; : r4 3 TROLL ; : acc+ { k -- } 3 TROLL k DROP ;")
    assert {"SW", "R4", "ACC+"} <= set(f.dict)


def test_a_lost_context_another_library_holds_is_reset_for_every_holder(f, drv):
    """The H200 run: after a wild load, the driver would not hand the primary context
    out again while PyTorch (the interop test) still held it ("cuDevicePrimaryCtxRetain
    failed: an illegal memory access"), and every later test failed. The backend then
    resets the primary context for every holder (cuDevicePrimaryCtxReset)."""
    _array(f, "xs", [4, 5])
    f.eval("1 2 + DROP")
    other_library = drv.Device(0).retain_primary_context()  # e.g. torch, which keeps its reference
    drv.inject("launch", 700)
    try:
        with pytest.raises(ForthError) as err:
            f.eval("1 2 +")
    finally:
        other_library.detach()
    assert LOST in str(err.value) and drv.stats["primary_hard_resets"] == 1
    np.testing.assert_array_equal(f.array("xs"), [4, 5])
    f.eval("3 4 +")  # the next line launches in the fresh context (the stand-in runs no kernels)
    assert drv.launches[-1].context == f.backend._primary.context.handle and drv.context_stack() == []


OTHERS_LOST = ("another library in this process held the GPU context too, so it was reset for every holder: the GPU "
               "memory of the other libraries (PyTorch tensors, CuPy arrays) was lost")


def test_the_message_says_when_other_libraries_lost_their_gpu_memory(f, drv):
    """A reset for every holder (cuDevicePrimaryCtxReset) frees what PyTorch or CuPy allocated in
    the primary context too: the user must hear it. Where tileforth was the only holder (a plain
    release and retain), nobody else lost anything, and the message does not say so."""
    f.eval("1 2 + DROP")
    drv.inject("launch", 700)
    with pytest.raises(ForthError) as alone:
        f.eval("1 2 +")
    assert drv.stats["primary_hard_resets"] == 0 and LOST in str(alone.value)
    assert OTHERS_LOST not in str(alone.value)
    holder = drv.Device(0).retain_primary_context()  # PyTorch's or CuPy's reference
    holder.push()
    theirs = drv.mem_alloc(64)  # a tensor of theirs
    drv.Context.pop()
    drv.inject("launch", 700)
    try:
        with pytest.raises(ForthError) as shared:
            f.eval("1 2 +")
        assert drv.stats["primary_hard_resets"] == 1 and LOST in str(shared.value)
        assert OTHERS_LOST in str(shared.value)
        assert int(theirs) not in [a for a, _, _ in drv.allocations()]  # their memory is indeed gone
    finally:
        holder.detach()
