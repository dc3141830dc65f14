"""Ctrl-C landing as an llvmlite object is destroyed (issue 26; heldsigint.py): every ObjectRef closes
with SIGINT held, and one noted inside a destructor is deferred to a safe point, not lost. Each test
sends the SIGINT itself right after LLVM's dispose call returns (a hook in llvmlite's table of C
functions), so it lands exactly there: no sleeps, no timing. The reference is outside the code under
test: llvmlite's own `closed` flag, how many times the C dispose ran, and what Python reports through
sys.unraisablehook ("Exception ignored in ...": the interrupt lost)."""
from __future__ import annotations

import gc
import os
import signal
import sys

import llvmlite.binding as llvm
import pytest
from llvmlite.binding import ffi
from tileforth.core import Forth, heldsigint


@pytest.fixture
def interrupt_after(monkeypatch):
    """interrupt_after(name): llvmlite's C function `name` sends SIGINT to this process as it returns
    (the first time); gives the list of its calls. Also collects what Python reports as ignored."""
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Ctrl-C is a KeyboardInterrupt
    ignored: list[object] = []
    monkeypatch.setattr(sys, "unraisablehook", ignored.append)

    def install(name: str) -> list[object]:
        gc.collect()  # what earlier tests left to the collector goes now, not inside the hooked window
        real, calls = ffi.lib._fntab[name], []

        def hook(*args):
            out = real(*args)
            calls.append(args)
            if len(calls) == 1:
                os.kill(os.getpid(), signal.SIGINT)  # Python's handler runs at the next bytecode
            return out
        monkeypatch.setitem(ffi.lib._fntab, name, hook)
        return calls
    install.ignored = ignored  # type: ignore[attr-defined]
    yield install
    monkeypatch.undo()
    heldsigint._deferred.clear()


def _session() -> Forth:
    f = Forth()
    f.eval("1 2 + DROP")  # (the backend made, llvmlite's objects guarded)
    return f


def test_ctrl_c_inside_a_collected_modules_destructor_is_deferred_not_lost(interrupt_after):
    f = _session()
    try:
        calls = interrupt_after("LLVMPY_DisposeModule")

        def drop() -> str:
            mod = llvm.parse_assembly("")
            del mod  # its __del__ disposes of it: the SIGINT lands inside
            return "went on"
        assert drop() == "went on"  # the destructor raised nothing (it could not get out)
        assert len(calls) == 1
        with pytest.raises(KeyboardInterrupt):
            heldsigint.deliver_deferred()  # the safe point: the interrupt is there
        assert interrupt_after.ignored == []  # never "Exception ignored in ModuleRef.__del__"
        heldsigint.deliver_deferred()  # delivered once
    finally:
        f.close()


def test_ctrl_c_as_a_module_is_closed_comes_after_llvmlite_marks_it_closed(interrupt_after):
    f = _session()
    try:
        calls = interrupt_after("LLVMPY_DisposeModule")
        mod = llvm.parse_assembly("")
        mine = id(mod)  # (calls keeps what each dispose was given alive: ids stay unique)
        with pytest.raises(KeyboardInterrupt):
            mod.close()
        assert mod.closed  # so collecting it does not dispose of it again (the segfault)
        del mod
        gc.collect()  # (also disposes of modules earlier tests left to the collector: not counted)
        assert [id(c[0]) for c in calls].count(mine) == 1 and interrupt_after.ignored == []
    finally:
        f.close()


def test_ctrl_c_inside_a_destructor_during_a_line_stops_the_line_and_the_session_goes_on(interrupt_after):
    """A line whose compile drops an LLVM pass builder (a line with a barrier: its coroutine passes): the
    SIGINT landing in its destructor reaches the caller as the KeyboardInterrupt, at the line's end."""
    f = _session()
    try:
        calls = interrupt_after("LLVMPY_DisposePassBuilder")
        with pytest.raises(KeyboardInterrupt):
            f.eval("5 BARRIER DROP")
        assert len(calls) == 1 and interrupt_after.ignored == []
        assert f.data_stack() == []
        assert f.eval("6 BARRIER 7 * .") == "42 "
    finally:
        f.close()
