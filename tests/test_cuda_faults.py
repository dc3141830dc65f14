"""Issue 26, point 5: every error the CUDA driver can report for a launch, or at the synchronize after
it, leaves a cuda session usable (the stand-in driver, tests/standin/pycuda, reports each one:
FAULT_CLASSES, cuda.h's CUresult codes). After each: a ForthError that quotes the driver, says what
happened to the session's state and what to do; the stacks, the dictionary and (from the host's copies)
device memory as before the line; and the next line runs. A sticky error (the context is unusable)
makes the backend start a fresh context; any other leaves the context alone.

The kernels do not run on the stand-in; on a GPU, benchmarks/devcheck's sticky_* cases do the same with
a kernel that really faults."""
from __future__ import annotations

import re

import numpy as np
import pytest
from standins import standins
from tileforth.core import Forth, ForthError

with standins("pycuda"):
    import pycuda.driver as _d
    FAULT_CLASSES = dict(_d.FAULT_CLASSES)
    STICKY = frozenset(_d.STICKY)
    TEXT = dict(_d._TEXT)
# what the user is told to do: each message has one of these
ADVICE = re.compile(r"\b(use|restart|run|try|FREE|wait|split|check|close)\b")


@pytest.fixture
def f(cuda_session):
    return cuda_session


def _array(f: Forth, name: str, values) -> None:
    values = np.asarray(values, np.float32)
    f.push_uniform(values.size, 6)  # literals would need the kernel to run: host words take them from the state
    f.eval(f"ARRAY {name}")
    f.set_array(name, values)


def _expect_fault(f: Forth, drv, code: int, when: str) -> str:
    resets = drv.stats["primary_resets"] + drv.stats["primary_hard_resets"]
    if when == "fault":
        drv.fault(code)
    else:
        drv.inject(when, code)
    with pytest.raises(ForthError) as err:
        f.eval("1 2 + DROP")
    msg = str(err.value)
    assert TEXT[code] in msg, msg  # the driver's own words
    assert ADVICE.search(msg), f"no advice in: {msg}"
    reset = drv.stats["primary_resets"] + drv.stats["primary_hard_resets"] > resets
    assert reset == (code in STICKY), (code, msg)
    if reset:
        assert "tileforth started a fresh one" in msg and "the dictionary and the stacks are kept" in msg, msg
    else:
        assert "lost" not in msg, msg
    return msg


@pytest.mark.parametrize("code", sorted(FAULT_CLASSES), ids=lambda c: f"{c}-{TEXT[c][:30]}")
def test_every_fault_the_driver_reports_leaves_the_session_usable(f, drv, code, capfd):
    _array(f, "xs", [1.5, 2.5, 3.5])
    f.eval(": sq DUP * ;")
    f.eval("1 2 + DROP")  # a kernel loaded in the context before the fault
    f.push_uniform(7)
    _expect_fault(f, drv, code, "fault" if FAULT_CLASSES[code] == "fault" else "launch")
    assert f.data_stack() == [7] and "SQ" in f.dict
    np.testing.assert_array_equal(f.array("xs"), [1.5, 2.5, 3.5])
    f.eval("3 sq DROP")  # the next line runs, in a live context
    assert drv.launches[-1].context == f.backend._primary.context.handle
    assert drv.context_stack() == [] and "PyCUDA WARNING" not in capfd.readouterr().err
    f.eval("9 VALUE v")  # and host words that touch device memory too
    assert f.data_stack() == [7]


@pytest.mark.parametrize("code", sorted(c for c in FAULT_CLASSES if c in STICKY))
def test_a_fault_reported_at_the_synchronize_is_recovered_too(f, drv, code):
    """The same faults when the driver reports them at the synchronize after the launch."""
    _array(f, "xs", [4.0, 5.0])
    f.eval("1 2 + DROP")
    _expect_fault(f, drv, code, "synchronize")
    f.eval("1 2 + DROP")
    np.testing.assert_array_equal(f.array("xs"), [4.0, 5.0])


def test_two_faults_in_a_row_are_recovered(f, drv):
    _array(f, "xs", [1.0])
    for code in (700, 716, 2, 714):
        _expect_fault(f, drv, code, "fault" if code in STICKY else "launch")
    f.eval("1 2 + DROP")
    np.testing.assert_array_equal(f.array("xs"), [1.0])


def test_a_context_another_library_reset_is_replaced(f, drv):
    """Another library destroys the primary context under the session (cuDevicePrimaryCtxReset, e.g.
    torch's or CuPy's device reset): the session's next line finds its context gone, gets a fresh one
    with its memory restored, and says so."""
    _array(f, "xs", [2.0, 3.0])
    f.eval("1 2 + DROP")
    f.push_uniform(5)
    drv.primary_ctx_reset(0)
    with pytest.raises(ForthError) as err:
        f.eval("1 2 + DROP")
    msg = str(err.value)
    assert "tileforth started a fresh one" in msg and ADVICE.search(msg), msg
    assert f.data_stack() == [5]
    np.testing.assert_array_equal(f.array("xs"), [2.0, 3.0])
    f.eval("1 2 + DROP")
    assert drv.launches[-1].context == f.backend._primary.context.handle


def test_what_a_lost_context_could_not_restore_is_named(f, drv):
    """An allocation over SHADOW_MAX keeps no host copy: after a sticky fault it is zeroed, and the message
    says how many were; the small ones come back with their contents."""
    from tileforth.backends.cuda.backend import SHADOW_MAX
    n = SHADOW_MAX // 4 + 1024  # f32 elements: just over the limit
    f.push_uniform(n, 6)
    f.eval("ARRAY big")
    f.set_array("big", np.ones(n, np.float32))
    _array(f, "small", [7.0, 8.0])
    f.eval("1 2 + DROP")
    msg = _expect_fault(f, drv, 700, "fault")
    assert f"1 allocation(s) over {SHADOW_MAX >> 20} MiB had no host copy and were zeroed" in msg, msg
    assert not f.array("big").any()
    np.testing.assert_array_equal(f.array("small"), [7.0, 8.0])


def test_a_context_that_cannot_be_replaced_at_once_is_tried_again(f, drv):
    """After an ECC error the driver may refuse a fresh context for a while: the line's error says the
    session tries again, and the next operation (here already the restore of the stacks) does."""
    _array(f, "xs", [6.0, 7.0])
    f.eval("1 2 + DROP")
    f.push_uniform(3)
    drv.fault(214)
    drv.inject("retain", 214)
    drv.inject("primary_ctx_reset", 214)
    with pytest.raises(ForthError) as err:
        f.eval("1 2 + DROP")
    msg = str(err.value)
    assert "tileforth tries again" in msg and "restart the session" in msg, msg
    assert f.data_stack() == [3] and drv.primary_refs() == 1
    np.testing.assert_array_equal(f.array("xs"), [6.0, 7.0])
    f.eval("1 2 + DROP")
    assert drv.launches[-1].context == f.backend._primary.context.handle


def test_a_gpu_that_stays_unusable_gives_forth_errors_that_say_restart(f, drv):
    """A device that never comes back: every line is a ForthError telling the user to restart, none a Python
    exception, and the session still closes cleanly (no context left on the stack)."""
    f.eval("1 2 + DROP")
    drv.fault(714)
    for _ in range(20):
        drv.inject("retain", 999)
        drv.inject("primary_ctx_reset", 999)
    for line in ("1 2 + DROP", "3 4 + DROP", "VARIABLE w"):
        with pytest.raises(ForthError, match="restart the session"):
            f.eval(line)
    assert drv.context_stack() == []
