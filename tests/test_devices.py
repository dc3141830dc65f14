"""Several GPUs in one session (issue 30, point 5): DEVICES, DEVICE, DEVICE?, .ARRAYS and ACOPY
(core/session/words/devices.py). On the cpu backend, one device; on the cuda backend, against the
stand-in PyCUDA given two devices (tests/standin/pycuda): each device its primary context, launches
in the selected one's, arrays allocated in the context of the device selected when they were made, a
launch that names another device's array refused before it starts and checked launches' table without
those arrays, and ACOPY a peer copy. Kernels do not run on the stand-in, so values reach the stacks
through the host (push_uniform) and arrays are compared with numpy through set_array and array."""
from __future__ import annotations

import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.compile import layout as L

I64, F32 = 3, 6  # the element type codes (I64, F32)


# ---- the cpu backend: one device ----------------------------------------------------------------------

def test_the_cpu_backend_has_one_device_and_refuses_another():
    f = Forth()
    assert f.eval("DEVICES . DEVICE? .") == "1 0 "
    f.eval("7 0 DEVICE")  # device 0 is the one there is
    for n in (1, -1):
        with pytest.raises(ForthError) as e:
            f.eval(f"{n} DEVICE")
        assert e.value.message == (f"no device {n}: the cpu backend emulates one device, 0 (DEVICES says how "
                                   "many); select one of them, e.g. `0 DEVICE`")
        assert e.value.pos is not None and e.value.pos.col == len(str(n)) + 2
    assert f.eval(".S") == "<1> 7 "  # the session keeps its state


def test_acopy_copies_an_array_into_another_as_numpy_does():
    f = Forth()
    f.eval("2 3 F32 MATRIX a  2 3 F32 MATRIX b  7 RANDOM a")
    want = f.array("a")
    f.eval("a b ACOPY")
    np.testing.assert_array_equal(f.array("b"), want)
    f.eval("6 F32 ARRAY flat  a flat ACOPY")  # the same elements in another shape: a flat copy
    np.testing.assert_array_equal(f.array("flat"), want.reshape(-1))


@pytest.mark.parametrize("line, message", [
    ("4 F32 ARRAY xs  4 I32 ARRAY ys  xs ys ACOPY",
     "ACOPY copies between arrays of one element type and size, but xs has 4 F32 and ys 4 I32: make the "
     "destination like the source, e.g. `4 F32 ARRAY ys`"),
    ("4 F32 ARRAY xs  8 F32 ARRAY ys  ys xs ACOPY",
     "ACOPY copies between arrays of one element type and size, but ys has 8 F32 and xs 4 F32: make the "
     "destination like the source, e.g. `8 F32 ARRAY xs`"),
])
def test_acopy_refuses_arrays_of_another_type_or_size(line, message):
    f = Forth()
    with pytest.raises(ForthError) as e:
        f.eval(line)
    assert e.value.message == message


def test_acopy_refuses_an_address_that_is_no_array():
    f = Forth()
    f.eval("4 F32 ARRAY xs  VARIABLE v")
    with pytest.raises(ForthError, match=r"ACOPY needs the address of an array as its destination \(top\), but "
                                         r"\$[0-9a-f]+ is none \(an ARRAY or MATRIX name pushes its array's "
                                         r"address\): e.g. `xs ys ACOPY`"):
        f.eval("xs v ACOPY")
    with pytest.raises(ForthError, match=r"as its source \(second\)"):
        f.eval("xs 4 + xs ACOPY")
    assert f.eval("DEPTH .") == "0 "


def test_dot_arrays_lists_each_array_with_its_shape_type_and_device():
    f = Forth()
    assert f.eval(".ARRAYS") == "no arrays: make one with ARRAY or MATRIX, e.g. `16 F32 ARRAY xs`\n"
    f.eval("16 F32 ARRAY xs  4 8 BF16 MATRIX w")
    assert f.eval(".ARRAYS").splitlines() == ["xs 16 F32 device 0", "w 4 8 BF16 device 0"]


# ---- the cuda backend, two devices (the stand-in driver) ------------------------------------------------

@pytest.fixture
def two(drv, cuda_sessions):
    drv.configure(count=2)
    yield cuda_sessions
    cuda_sessions.close_all()  # (with both devices there: each context given back)
    drv.configure(count=1, no_peer=set())


def _select(f: Forth, n: int) -> None:
    f.push_uniform(n)
    f.eval("DEVICE")


def _array(f: Forth, name: str, values, code: int = I64) -> int:
    values = np.asarray(values)
    f.push_uniform(values.size, code)  # literals would need the kernel to run
    f.eval(f"ARRAY {name}")
    f.set_array(name, values)
    return f.dict[name.upper()].value


def _context(drv, addr: int) -> int:
    """The handle of the context an allocation was made in."""
    (ctx,) = [c for a, _, c in drv.allocations() if a == addr]
    return ctx


def test_devices_counts_the_gpus_and_arrays_live_in_the_selected_devices_context(two, drv):
    f = two()
    f.eval("DEVICES DEVICE?")
    assert f.pop_uniform(2, "test") == [2, 0]  # DROP would need the kernel to run
    xs = _array(f, "xs", np.arange(4))
    _select(f, 1)
    f.eval("DEVICE?")
    assert f.pop_uniform(1, "test") == [1]
    ys = _array(f, "ys", np.arange(4) * 10)
    home = _context(drv, f.backend.ctx_dev)  # the session's own memory stays on device 0
    assert _context(drv, xs) == home and _context(drv, ys) != home
    np.testing.assert_array_equal(f.array("ys"), np.arange(4) * 10)  # read back in device 1's context
    np.testing.assert_array_equal(f.array("xs"), np.arange(4))
    assert f.eval(".ARRAYS").splitlines() == ["xs 4 I64 device 0", "ys 4 I64 device 1"]
    assert f.dict["YS"].help == "( -- addr ) 4 I64 array on device 1"


def test_launches_go_to_the_selected_devices_context(two, drv):
    f = two()
    _select(f, 1)
    ys = _array(f, "ys", np.zeros(4))
    drv.launches.clear()
    f.eval("1 2 +")
    f.eval("1 2 +")  # the cached kernel: the same device's
    assert {ln.context for ln in drv.launches} == {_context(drv, ys)}
    _select(f, 0)
    f.eval("1 2 +")  # the same line on device 0: a kernel of its own, in device 0's context
    assert drv.launches[-1].context == _context(drv, f.backend.ctx_dev) != _context(drv, ys)


def test_a_launch_that_names_another_devices_array_is_refused(two, drv):
    f = two()
    _array(f, "xs", np.arange(4))
    _select(f, 1)
    _array(f, "ys", np.arange(4))
    f.eval(": peek ( -- n ) xs @ ;")
    drv.launches.clear()
    for line, col in (("xs @ .", 1), ("peek .", 1)):
        with pytest.raises(ForthError) as e:
            f.eval(line)
        assert e.value.message == ("xs lives on device 0, but this launch runs on device 1: select its device first "
                                   "(`0 DEVICE`), or copy it to an array made on device 1 (`1 DEVICE`, ARRAY or "
                                   "MATRIX, then ACOPY)")
    assert drv.launches == []  # refused before anything ran
    f.eval("ys @ DROP")  # its own device's array: launched
    assert len(drv.launches) == 1
    _select(f, 0)
    f.eval("peek DROP")  # back on device 0, xs is reachable again
    assert len(drv.launches) == 2


def test_a_checked_launch_on_another_device_has_no_row_for_the_other_devices_arrays(two, drv):
    f = two()
    xs = _array(f, "xs", np.arange(4))
    _select(f, 1)
    ys = _array(f, "ys", np.arange(4))
    drv.launches.clear()
    f.eval("1 2 +")

    def table() -> set[int]:
        ctx = f.backend.read(drv.launches[-1].args[0], L.CTX_SLOTS * 8).view(np.int64)
        n = int(ctx[L.CTX_N_ALLOCS])
        rows = np.asarray(drv.device_view(int(ctx[L.CTX_ALLOCS]), 16 * n)).view(np.int64).reshape(n, 2)
        return {int(s) for s in rows[:, 0]}
    on1 = table()
    assert ys in on1 and xs not in on1 and f.data_addr in on1  # the session's data space: reached by peer access
    _select(f, 0)
    f.eval("1 2 +")
    on0 = table()
    assert xs in on0 and ys not in on0 and f.data_addr in on0


def test_the_bad_address_report_of_another_devices_array_names_it_and_the_fix(two):
    """What a checked launch's range check reports when an address on the stack (not in the kernel's code)
    lands in another device's array: launcherrors.py's message, from the error record."""
    from tileforth.core.session.launcherrors import launch_error
    f = two()
    xs = _array(f, "xs", np.arange(4))
    _select(f, 1)
    err = launch_error(f, (L.E_BAD_ADDR, -1, 3, xs + 8, 8))
    assert err.message == (f"bad address ${xs + 8:x} (thread 3, 8 bytes): xs lives on device 0, but this launch "
                           "runs on device 1: select its device first (`0 DEVICE`), or copy it to an array of device "
                           "1 (`1 DEVICE  4 I64 ARRAY xs1  xs xs1 ACOPY`)")
    _select(f, 0)
    assert "outside every allocation" in launch_error(f, (L.E_BAD_ADDR, -1, 3, xs + 8, 8)).message


def test_acopy_between_devices_is_a_peer_copy(two, drv):
    f = two()
    want = np.random.default_rng(5).standard_normal((3, 4)).astype(np.float32)
    f.push_uniform(3, 4, F32)
    f.eval("MATRIX a")
    f.set_array("a", want)
    _select(f, 1)
    f.push_uniform(3, 4, F32)
    f.eval("MATRIX b")
    before = drv.stats["peer_copies"]
    f.push_uniform(f.dict["A"].value, f.dict["B"].value)
    f.eval("ACOPY")
    assert drv.stats["peer_copies"] == before + 1
    np.testing.assert_array_equal(f.array("b"), want)
    f.set_array("b", want * 2)  # and back, into device 0's array
    f.push_uniform(f.dict["B"].value, f.dict["A"].value)
    f.eval("ACOPY")
    np.testing.assert_array_equal(f.array("a"), want * 2)
    assert drv.stats["peer_copies"] == before + 2


def test_a_device_without_peer_access_to_the_sessions_device_is_refused(two, drv):
    drv.configure(no_peer={(0, 1), (1, 0)})
    f = two()
    f.push_uniform(5)
    with pytest.raises(ForthError) as e:
        f.eval("1 DEVICE")
    assert e.value.message == ("device 1 cannot reach the memory of device 0, where this session's stacks and data "
                               "space live (the driver reports no peer access between them): use device 0, or start "
                               "the session on device 1")
    f.eval("DEVICE?")
    assert f.data_stack() == [5, 0]
    with pytest.raises(ForthError, match=r"no device 2: the cuda backend has 2 devices, 0 to 1"):
        f.push_uniform(2)
        f.eval("DEVICE")


def test_freeing_an_array_of_another_device_frees_it_in_its_context(two, drv):
    f = two()
    _select(f, 1)
    ys = _array(f, "ys", np.arange(4))
    ctx1 = _context(drv, ys)
    f.backend.free(ys)
    assert all(a != ys for a, _, _ in drv.allocations())
    assert all(c != ctx1 for _, _, c in drv.allocations())


# ---- docs/repl.md's section ---------------------------------------------------------------------------------

def _section() -> str:
    from pathlib import Path
    page = (Path(__file__).resolve().parents[1] / "docs" / "repl.md").read_text()
    text = page[page.index("## Several GPUs"):]
    return text[:text.index("\n## ", 1)]


def test_the_repl_guides_device_lines_print_what_their_comments_say():
    import re
    (block,) = re.findall(r"^```text\n(.*?)^```", _section(), re.M | re.S)
    f = Forth()
    lines = block.splitlines()
    assert len(lines) == 3
    for line in lines:
        code, want = line.split("\\ ", 1)
        assert f.eval(code).strip() == want.strip(), line


def test_the_repl_guides_quoted_refusal_is_the_one_a_launch_on_another_device_gives(two):
    import re
    quoted = re.search(r"says: ``(xs lives on device 0.*?ACOPY\))``\.", " ".join(_section().split())).group(1)
    f = two()
    _array(f, "xs", np.arange(4))
    _select(f, 1)
    with pytest.raises(ForthError) as e:
        f.eval("xs @ .")
    assert e.value.message == quoted


def test_a_failed_line_goes_back_to_the_device_selected_before_it(two, drv):
    f = two()
    _array(f, "xs", np.arange(4))
    f.push_uniform(1)
    with pytest.raises(ForthError, match="xs lives on device 0"):
        f.eval("DEVICE  xs @ .")  # selects device 1, then the launch is refused
    f.eval("DEVICE?")
    assert f.pop_uniform(1, "test") == [0]
    assert f.data_stack() == [1]  # and the stack as it was


def test_a_kernel_that_faults_on_device_1_replaces_device_1s_context_only(two, drv):
    f = two()
    xs = _array(f, "xs", np.arange(4))
    _select(f, 1)
    ys = _array(f, "ys", np.arange(4) * 3)
    home, ctx1 = _context(drv, xs), _context(drv, ys)
    f.eval("1 2 +")  # loaded and launched on device 1
    drv.fault(700)
    with pytest.raises(ForthError) as e:
        f.eval("1 2 +")
    assert e.value.message.startswith("the GPU context of device 1 was lost (an illegal memory access was "
                                      "encountered): tileforth started a fresh one")
    assert _context(drv, xs) == home and _context(drv, ys) not in (home, ctx1)  # ys re-made, at its address
    np.testing.assert_array_equal(f.array("ys"), np.arange(4) * 3)  # from the host's copy
    np.testing.assert_array_equal(f.array("xs"), np.arange(4))
    drv.launches.clear()
    f.eval("1 2 +")  # the kernel again, loaded into the fresh context
    assert drv.launches[-1].context == _context(drv, ys)


def test_the_allocations_a_session_lists_include_the_other_devices_arrays(two):
    f = two()
    xs = _array(f, "xs", np.arange(4))
    _select(f, 1)
    ys = _array(f, "ys", np.arange(6))
    sizes = f.backend.allocation_sizes()
    assert sizes[xs] == 32 and sizes[ys] == 48
    assert f.backend.allocation_base(ys + 8, 8) == ys


def test_acopy_goes_through_the_host_with_a_pycuda_that_has_no_peer_copy(two, drv, monkeypatch):
    f = two()
    want = np.arange(5) * 7
    xs = _array(f, "xs", want)
    _select(f, 1)
    ys = _array(f, "ys", np.zeros(5))
    monkeypatch.delattr(drv, "memcpy_peer")
    f.push_uniform(xs, ys)
    f.eval("ACOPY")
    np.testing.assert_array_equal(f.array("ys"), want)


# ---- on a GPU (marked gpu: skipped without one); the same lines on the cpu backend are the control ---------

def _gpu() -> bool:
    try:
        f = Forth(backend="cuda")
    except ForthError:
        return False
    f.backend.close()
    return True


DEVICE_LINES = ("8 I64 ARRAY xs  8 I64 ARRAY ys",
                "8 1 1 THREADS  TID-X DUP * TID-X CELLS xs + !  1 1 1 THREADS",
                "xs ys ACOPY")


def _run_device_lines(backend: str) -> tuple[int, np.ndarray]:
    f = Forth(backend=backend)
    try:
        for line in DEVICE_LINES:
            f.eval(line)
        f.eval("DEVICES")
        return f.pop_uniform(1, "test")[0], f.array("ys")
    finally:
        close = getattr(f.backend, "close", None)
        if callable(close):
            close()


def test_the_device_lines_on_the_cpu_backend_copy_what_the_kernel_wrote():
    count, ys = _run_device_lines("cpu")
    assert count == 1
    np.testing.assert_array_equal(ys, np.arange(8) ** 2)


@pytest.mark.gpu
@pytest.mark.skipif(not _gpu(), reason="needs an NVIDIA GPU and PyCUDA")
def test_on_a_gpu_the_device_lines_agree_with_the_emulator_and_a_second_gpu_is_used_when_there_is_one():
    import pycuda.driver as cuda
    count, ys = _run_device_lines("cuda")
    assert count == cuda.Device.count()
    np.testing.assert_array_equal(ys, _run_device_lines("cpu")[1])
    if count < 2:
        return
    f = Forth(backend="cuda")
    try:
        f.eval("8 I64 ARRAY xs  1 DEVICE  8 I64 ARRAY ys1")
        f.eval("8 1 1 THREADS  TID-X 3 * TID-X CELLS ys1 + !  1 1 1 THREADS")  # a kernel on device 1
        np.testing.assert_array_equal(f.array("ys1"), np.arange(8) * 3)
        with pytest.raises(ForthError, match="xs lives on device 0, but this launch runs on device 1"):
            f.eval("xs @ .")
        f.eval("ys1 xs ACOPY  0 DEVICE")
        np.testing.assert_array_equal(f.array("xs"), np.arange(8) * 3)
    finally:
        f.backend.close()
