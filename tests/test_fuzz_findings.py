"""Failures the fuzzing of issue 26 found, each at its root.

EXECUTE checks the inputs of the word it runs, as a call does (issue 26's first finding: `' DROP
EXECUTE` on an empty stack made the depth -1 and broke the session). A word of a static effect is
compiled trusting its caller's check, so the token switch (compile/xtgen.py) checks: too few
items is "stack underflow" at the EXECUTE, the stacks as they were. Held to gforth where it
checks (the exception code CATCH gives) and to the standard's codes (-4 data, -45 float)."""
from __future__ import annotations

import gforth
import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.session.hostbound import REREAD_COST

CASES = [
    ("' DROP EXECUTE", "data stack underflow", 8),
    ("' + EXECUTE", "data stack underflow", 5),
    ("1 ' + EXECUTE", "data stack underflow", 7),
    ("' DUP EXECUTE", "data stack underflow", 7),
    ("' FDROP EXECUTE", "float stack underflow", 9),
    (": t ['] DROP EXECUTE ; t", "data stack underflow in t", 14),
    ("DEFER d ' DROP IS d d", "data stack underflow in d", 21),  # where the deferred word runs
    (":NONAME DROP ; EXECUTE", "data stack underflow", 16),
]


@pytest.mark.parametrize("line,message,col", CASES)
def test_too_few_inputs_fail_at_the_execute_and_keep_the_session(line, message, col):
    f = Forth()
    f.eval("10 20")
    with pytest.raises(ForthError, match=message) as err:
        f.eval("CLEARSTACK " + line)
    assert err.value.col == col + len("CLEARSTACK ")  # at the EXECUTE (or the word that runs it)
    assert f.data_stack() == [10, 20]  # the failed line is undone
    assert f.eval("1 2 3 .S") == "<5> 10 20 1 2 3 "  # the depths are whole: no wrapped count


def test_enough_inputs_run_as_before():
    f = Forth()
    assert f.eval("5 ' DUP EXECUTE . .") == "5 5 "
    assert f.eval("2e ' FDUP EXECUTE F* F.") == "4. "
    assert f.eval("3 4 ' + EXECUTE .") == "7 "


def test_catch_gets_the_standard_codes():
    f = Forth()
    got = f.eval(": t ['] DROP CATCH ; t .  : u ['] FDROP CATCH ; u .").split()
    assert got == ["-4", "-45"]
    gforth.require()
    assert gforth.output(": t ['] DROP CATCH ; t .").split() == ["-4"]


def test_every_thread_checks_its_own_stack():
    """Threads whose stacks differ: the ones with too few items make the error, named in it."""
    f = Forth()
    with pytest.raises(ForthError, match="data stack underflow: thread 0 ") as err:
        f.eval("TID-X 16 >= IF 1 THEN ' DROP EXECUTE")  # threads 16-31 have the item, 0-15 do not
    assert err.value.col == len("TID-X 16 >= IF 1 THEN ' DROP ") + 1
    assert f.data_stack(lane=None) == [[]] * 32


@pytest.mark.parametrize("line", ['S\\" a\\x00b.fs" R/O OPEN-FILE', 'S\\" a\\x00b.fs" DELETE-FILE',
                                  'S\\" a\\x00b.fs" INCLUDED', 'S\\" a\\x00b.fs" REQUIRED',
                                  'S\\" a\\x00b.blk" OPEN-BLOCKS', 'S\\" a\\x00b" S" c" RENAME-FILE'])
def test_a_nul_byte_in_a_file_name_is_a_forth_error(line):
    """(Issue 26: a Python ValueError.) The name comes from memory, so any word that takes one may meet it."""
    f = Forth()
    f.eval("42")
    with pytest.raises(ForthError, match="holds a NUL byte, which no file name can"):
        f.eval(line)
    assert f.data_stack() == [42]


# ---- found by tests/fuzz.py over the whole vocabulary (issue 26, point 1) --------------------------------
import threading  # noqa: E402


def _aborting(f: Forth, line: str) -> tuple[str, list[int]]:
    """Run `line` while another thread asks the backend to abort until the line ends, as the
    REPL's key watcher does (again and again: the line's start clears an earlier request)."""
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            f.backend.abort()
            done.wait(0.01)
    t = threading.Thread(target=watch)
    t.start()
    try:
        f.eval(line)
        got = "finished"
    except ForthError as e:
        got = str(e)
    finally:
        done.set()
        t.join()
    return got, f.data_stack()


@pytest.mark.parametrize("line", ["100000 MS", "9223372036854775807 MS", 'S" 0 >IN !" EVALUATE', "-1 >IN !",
                                  ": t BEGIN 1 , AGAIN ; t", "0 SET-STEP-BUDGET : t BEGIN 1 , AGAIN ; t",
                                  '0 SET-STEP-BUDGET : t BEGIN S" 1 DROP" EVALUATE AGAIN ; t'])
def test_ctrl_c_stops_host_loops_and_waits(line):
    """(Fuzzed: MS slept its whole count, and host-level loops ran on after abort(); `S" 0 >IN !"
    EVALUATE` ran for hours.) Every host loop and wait looks at the abort flag a launch polls."""
    f = Forth()
    f.eval("7")
    got, stack = _aborting(f, line)
    assert got.endswith("interrupted"), got
    assert stack == [7]
    assert f.eval("1 2 + .") == "3 "


@pytest.mark.parametrize("line", ['S" 0 >IN !" EVALUATE', "-1 >IN !", "0 >IN !"])
def test_moving_in_back_forever_is_on_the_step_budget(line):
    """A line Forth code sends the interpreter back over draws on the budget, as a loop does."""
    f = Forth()
    f.step_budget = 500 * REREAD_COST  # a re-read draws REREAD_COST steps: 500 of them
    f.eval("7")
    with pytest.raises(ForthError, match=r"moved >IN back 500 times .* the loop looks infinite"):
        f.eval(line)
    assert f.data_stack() == [7]
    f.step_budget = 1 << 20
    f.eval("CLEARSTACK 1 1 1 THREADS VARIABLE n 0 n !  : t n @ 3 < IF 1 n +! 0 >IN ! THEN ;")
    assert f.eval('S" 1 t" EVALUATE DEPTH .') == "4 "  # a loop that ends is fine: 1 read four times


def test_a_failed_line_keeps_no_immediate_it_applied():
    f = Forth()
    f.eval(": w 5 ;")
    with pytest.raises(ForthError, match="division by zero"):
        f.eval("IMMEDIATE 1 0 /")
    f.eval(": u w ;")  # w is compiled, not run: it is not immediate
    assert f.data_stack() == []
    assert f.eval("u .") == "5 "


def test_a_failed_line_leaves_the_last_definition_as_it_was():
    """IMMEDIATE (and DOES>) after a failed line act on the word defined last before it, not on one
    the failed line defined and the restore removed."""
    f = Forth()
    f.eval('1 1 1 GRID 1 1 1 THREADS : w ." ran " ;')
    with pytest.raises(ForthError, match="division by zero"):
        f.eval("VARIABLE zz 1 0 /")
    f.eval("IMMEDIATE")
    out = f.eval(": u w ;")  # w runs as u is compiled
    gforth.require()
    assert out == gforth.output(': w ." ran " ; IMMEDIATE : u w ;') == "ran "


def test_an_interrupt_inside_a_shape_change_is_undone():
    """(Fuzzed: a KeyboardInterrupt landing between the backend's shape change and the session's left
    a state buffer of another size, and every later line was a Python ValueError.)"""
    f = Forth()
    f.eval("10 20")
    real = f.backend.set_shape

    hits = []

    def interrupted(shape, interruptible=False):
        real(shape, interruptible)
        if not hits:  # one Ctrl-C in Python (Jupyter's interrupt), right after the backend changed
            hits.append(shape)
            raise KeyboardInterrupt
    f.backend.set_shape = interrupted
    with pytest.raises(KeyboardInterrupt):
        f.eval("64 1 1 THREADS")
    f.backend.set_shape = real
    assert f.launch_shape == ((1, 1, 1), (32, 1, 1))
    assert f.data_stack() == [10, 20]
    assert f.eval("+ .") == "30 "


def test_ctrl_c_stops_making_a_big_launch_shape():
    """(Fuzzed, seed 402: `7 33 2048 GRID`, 15M threads, ran 16 s after the abort that should have
    stopped it: the thread records are written piece by piece in Python, which looked at no abort
    flag.) The pieces stop at abort(), "interrupted", with the shape and the stacks as they were."""
    f = Forth()
    try:
        f.eval("10 20")
        got, stack = _aborting(f, "CLEARSTACK 1024 64 1 GRID")  # 2M threads: seconds of records
        assert got.endswith("interrupted"), got
        assert stack == [10, 20] and f.launch_shape == ((1, 1, 1), (32, 1, 1))
        assert f.eval("+ .") == "30 "
    finally:
        f.close()


def test_a_failed_lines_undo_makes_its_shape_even_after_an_abort():
    """A restore must finish: only a shape the line asks for stops at abort() (interruptible)."""
    from tileforth.core.compile.target import LaunchShape
    f = Forth()
    try:
        big = LaunchShape((256, 1, 1), (256, 1, 1))
        f.backend.abort()
        with pytest.raises(ForthError, match="interrupted"):
            f.backend.set_shape(big, interruptible=True)
        assert f.backend.shape == LaunchShape() and f.backend.nthreads == 32  # nothing changed
        f.backend.set_shape(big)  # (a restore's: not interruptible) made, flag or not
        assert f.backend.nthreads == 256 * 256
        f.backend.set_shape(LaunchShape())
    finally:
        f.close()


def test_a_deep_literal_pick_runs_at_run_time():
    """(Fuzzed: `10000 PICK` folded its count into the code, which then held 10,000 cells: minutes of LLVM.)
    A count deeper than FOLD_MAX is PICK's run-time form, with gforth's result; one beyond the stack is
    still refused at the word."""
    from tileforth.core.session.interpreter import FOLD_MAX
    f = Forth()
    f.eval("1 1 1 GRID 1 1 1 THREADS : d 0 ?DO I LOOP ;")
    prog = f"1001 d 1000 PICK . {FOLD_MAX + 5} PICK . {FOLD_MAX + 2} ROLL ."  # (gforth holds 1001)
    gforth.require()
    assert f.eval(prog) == gforth.output(": d 0 ?DO I LOOP ; " + prog)
    with pytest.raises(ForthError, match="reaches beyond the stack"):
        f.eval("CLEARSTACK 100000 PICK")


def test_a_line_of_thousands_of_literals_then_words_runs_at_once():
    """(Fuzzed: 3,000 literals before `. .` were held in the kernel's code: 12 s of LLVM, past Ctrl-C.) The
    host pushes a segment's leading literals; the kernel does the rest, with the same results."""
    f = Forth()
    f.eval("1 1 1 GRID 1 1 1 THREADS")
    line = " ".join(str(i) for i in range(3000)) + " . . + ."
    assert f.eval(line) == "2999 2998 5993 "
    assert f.data_stack() == list(range(2996))
    f.eval("CLEARSTACK")
    with pytest.raises(ForthError, match="division by zero") as e:
        f.eval(" ".join(["7"] * 100) + " 0 /")
    assert e.value.pos.col == 203 and f.data_stack() == []  # the failed line's pushes are undone


def test_a_host_level_loop_draws_more_of_the_budget_than_a_launchs():
    """A host-level word's iteration (here: `,` makes the word host-level) costs tens of microseconds, a
    launch's a fraction of one: each draws HOST_STEP_COST steps, so the default budget bounds both to
    about the same time. The same budget lets a device loop run its full count."""
    from tileforth.core.session.hostbound import HOST_STEP_COST
    f = Forth()
    f.step_budget = 50 * HOST_STEP_COST
    f.eval("1 1 1 THREADS 7  : fill-in 0 ?DO I , LOOP ;  : spin 0 ?DO LOOP ;")
    with pytest.raises(ForthError, match=r"a host-level word ran 50 loop iterations .* looks infinite"):
        f.eval("HERE 1000 fill-in")
    assert f.data_stack() == [7]
    assert f.eval("HERE 40 fill-in  HERE SWAP - 8 / .") == "40 "  # within the budget: 40 iterations
    f.eval("CLEARSTACK 1000 spin")  # a device loop of 1000 < 3200 steps
    assert f.eval("DEPTH .") == "0 "


# ---- Ctrl-C while a failed line is undone -----------------------------------------------------------------
# (Fuzzed, SIGINT at random moments: a KeyboardInterrupt that landed inside the restore after a failed line
# stopped it half-way, so the stacks, the dictionary or data space kept what the line had done.) The signal
# is sent for real, from a hook at each step of the restore, so it lands in Python's handler there.
UNDO_STEPS = [("parts", "TextInput", "restore"), ("parts", "DataSpace", "restore"), ("device", "Device", "restore"),
              ("wordlists", "Dictionary", "restore"), ("parts", "Builder", "abandon")]


def _signalled_at(monkeypatch, module: str, cls: str, method: str) -> list[int]:
    import importlib
    import os
    import signal
    owner = getattr(importlib.import_module(f"tileforth.core.session.{module}"), cls)
    real, sent = getattr(owner, method), []

    def hooked(self, *args):
        if not sent:
            sent.append(1)
            os.kill(os.getpid(), signal.SIGINT)  # the handler runs at the next bytecode: inside the restore
        return real(self, *args)
    monkeypatch.setattr(owner, method, hooked)
    return sent


@pytest.mark.parametrize("module,cls,method", UNDO_STEPS, ids=[f"{c}.{m}" for _, c, m in UNDO_STEPS])
def test_ctrl_c_inside_the_undo_of_a_failed_line_still_undoes_it(monkeypatch, module, cls, method):
    import signal
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import fuzz
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Python's: Ctrl-C is a KeyboardInterrupt
    f = Forth()
    try:
        f.eval(": old 1 ;  10 20  2e")
        before = fuzz.session_state(f)
        sent = _signalled_at(monkeypatch, module, cls, method)
        with pytest.raises(KeyboardInterrupt):  # the Ctrl-C is not lost: it comes after the undo
            f.eval("1 2 3 3e HEX VARIABLE zz : yy ; IMMEDIATE 64 1 1 THREADS 1 0 /")
        assert sent
        monkeypatch.undo()
        assert fuzz.session_state(f) == before
        assert f.eval("+ . F. old .") == "30 2. 1 "  # (in the BASE of before: decimal)
    finally:
        f.close()


def test_ctrl_c_inside_the_undo_of_an_interrupted_line_still_undoes_it(monkeypatch):
    """The same for a line that Ctrl-C itself stopped (a second Ctrl-C while its undo runs)."""
    import os
    import signal
    f = Forth()
    try:
        f.eval("10 20")
        real = f.backend.set_shape
        state = {"n": 0}

        def interrupted(shape, interruptible=False):
            real(shape, interruptible)
            state["n"] += 1
            if state["n"] == 1:
                raise KeyboardInterrupt  # the first Ctrl-C, inside the line
        monkeypatch.setattr(f.backend, "set_shape", interrupted)
        from tileforth.core.session import wordlists
        real_restore = wordlists.Dictionary.restore

        def second(self, snap):
            os.kill(os.getpid(), signal.SIGINT)  # the second, inside the undo
            return real_restore(self, snap)
        monkeypatch.setattr(wordlists.Dictionary, "restore", second)
        with pytest.raises(KeyboardInterrupt):
            f.eval("1 2 VARIABLE zz 64 1 1 THREADS")
        monkeypatch.undo()
        assert "ZZ" not in f.dict and f.launch_shape == ((1, 1, 1), (32, 1, 1))
        assert f.data_stack() == [10, 20]
    finally:
        f.close()


def test_ctrl_c_during_a_launch_on_several_cores_waits_for_its_workers(monkeypatch):
    """(Fuzzed, a segfault in checked mode: Ctrl-C while the main thread waited for the worker threads
    that run a launch's blocks returned at once; the workers went on running the kernel over the
    state the undo was putting back, and after the session closed, over freed memory.) The main
    thread now stops them (the abort flag) and waits for them before the KeyboardInterrupt goes on."""
    import os
    import signal
    import threading
    f = Forth()
    try:
        f.eval("10 20 4 1 1 GRID 256 1 1 THREADS")
        be = f.backend
        be.workers = 2
        real, running, finished, released = be._run_blocks, [], [], threading.Event()

        def blocks(*args):
            if threading.current_thread() is not threading.main_thread():
                running.append(1)
                if len(running) == 1:
                    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the main thread waits for the workers
                while not (be.aborted() or released.is_set()):  # until the main thread asks them to stop
                    released.wait(0.01)
            try:
                return real(*args)
            finally:
                finished.append(1)
        monkeypatch.setattr(be, "_run_blocks", blocks)
        with pytest.raises(KeyboardInterrupt):
            f.eval("GLOBAL-ID 1+ DROP")
        done_then = len(finished)
        released.set()
        assert done_then == 2  # both workers had ended when the interrupt came back
        monkeypatch.undo()
        assert f.data_stack() == [10, 20]
        assert f.eval("+ .").split()[0] == "30"
    finally:
        f.close()


def test_ctrl_c_as_llvm_takes_a_module_leaves_llvmlite_knowing_it(monkeypatch):
    """(Fuzzed, segfaults in checked mode inside llvmlite's ModuleRef.__del__: llvmlite's add_module
    hands the module to the JIT engine in C, then marks it owned in Python; a KeyboardInterrupt between
    the two left a module the engine owns that Python still disposed of when collected.) The backend
    holds SIGINT over each hand-over: the module is marked owned, and the interrupt comes after."""
    import os
    import signal
    from llvmlite.binding import ffi
    f = Forth()
    try:
        f.eval("1 2 + DROP")
        real, given = ffi.lib.LLVMPY_AddModule, []

        def hook(engine, module):
            out = real(engine, module)
            if not given:
                given.append(module)
                os.kill(os.getpid(), signal.SIGINT)  # lands right after the C call returns
            return out
        monkeypatch.setitem(ffi.lib._fntab, "LLVMPY_AddModule", hook)
        with pytest.raises(KeyboardInterrupt):
            f.eval("3 4 * DROP")  # a new kernel: its module goes to the engine
        monkeypatch.undo()
        assert given and given[0]._owned  # the engine's now, in llvmlite's books too: never disposed by Python
        assert f.eval("3 4 * .") == "12 "
    finally:
        f.close()


def test_ctrl_c_as_llvm_links_a_module_in_leaves_llvmlite_knowing_it(monkeypatch):
    """(Fuzzed, SIGINT at random moments: a checked-mode segfault in ModuleRef.__del__ when the
    KeyboardInterrupt's traceback was collected: llvmlite's link_in destroys the module it links in,
    in C, then detaches its ModuleRef in Python; a KeyboardInterrupt between the two left a ModuleRef
    of freed memory, disposed again when collected.) The compiler links with SIGINT held: the
    ModuleRef is detached, and the interrupt comes after."""
    import gc
    import os
    import signal
    from llvmlite.binding import ffi
    f = Forth()
    try:
        f.eval(": sq DUP * ;  1 2 + DROP")
        real, given = ffi.lib.LLVMPY_LinkModules, []

        def hook(dst, src, err):
            out = real(dst, src, err)
            if not given:
                given.append(src)
                os.kill(os.getpid(), signal.SIGINT)  # lands right after the C call returns
            return out
        monkeypatch.setitem(ffi.lib._fntab, "LLVMPY_LinkModules", hook)
        with pytest.raises(KeyboardInterrupt):
            f.eval("3 ' sq EXECUTE DROP")  # a new kernel: EXECUTE's look-up is linked into it
        monkeypatch.undo()
        detached = bool(given) and given[0]._closed
        if given and not detached:
            given[0].detach()  # (else collecting it would dispose of the freed module: the segfault itself)
        assert detached
        gc.collect()
        assert f.eval("3 ' sq EXECUTE .") == "9 "
    finally:
        f.close()


def test_ctrl_c_as_llvm_frees_an_error_string_frees_it_once(monkeypatch):
    """(Fuzzed, seed 403, checked, SIGINT at random moments: "free(): double free detected", an abort,
    in OutputString.__del__. llvmlite frees an error string in C, then forgets its pointer in Python;
    a KeyboardInterrupt between the two left the pointer, freed again when the string was collected.)
    The string forgets its pointer first: each is freed once, whatever the interrupt does (the string
    the hook sees first may hold NULL, no error: the same close as an error's, where twice aborts)."""
    import gc
    import os
    import signal
    from llvmlite.binding import ffi
    f = Forth()
    try:
        f.eval(": sq DUP * ;  1 2 + DROP")
        real, freed, twice = ffi.lib.LLVMPY_DisposeString, [], []

        def hook(ptr):
            if any(p is ptr for p in freed):  # the same string's pointer again: not freed twice here
                twice.append(ptr)
                return None
            freed.append(ptr)
            out = real(ptr)
            if len(freed) == 1:
                os.kill(os.getpid(), signal.SIGINT)  # lands right after the C call returns
            return out
        monkeypatch.setitem(ffi.lib._fntab, "LLVMPY_DisposeString", hook)
        with pytest.raises(KeyboardInterrupt):
            for k in range(20):  # new kernels until one frees an error string
                f.eval(f"{k} 3 sq + DROP {k} 1+ 0 ?DO I DROP LOOP")
        gc.collect()  # (the strings the KeyboardInterrupt's traceback held)
        assert freed and not twice
        monkeypatch.undo()
        assert f.eval("3 sq .") == "9 "
    finally:
        f.close()


def test_ctrl_c_inside_llvmlites_lock_leaves_it_free_for_other_threads():
    """(Found by SIGINT at random moments: a hang at close. llvmlite takes its lock around every C call in
    a Python __enter__; a KeyboardInterrupt landing after the acquire, before __enter__ returned, left the
    lock held by the main thread for good, and the optimised recompile on its thread, which close()
    joins, waited for it forever.) The signal is sent from the lock's acquire callback, the latest point
    of that window; the lock is free after the KeyboardInterrupt."""
    import os
    import signal
    import threading
    from llvmlite.binding import ffi
    f = Forth()
    sent: list[int] = []

    def acquired():
        if not sent:
            sent.append(1)
            os.kill(os.getpid(), signal.SIGINT)

    def released():
        pass
    try:
        f.eval("1 2 + DROP")
        ffi.register_lock_callback(acquired, released)
        try:
            with pytest.raises(KeyboardInterrupt):
                f.eval("3 4 * DROP")  # a new kernel: calls into LLVM
        finally:
            ffi.unregister_lock_callback(acquired, released)
        assert sent
        took: list[bool] = []

        def other():  # another thread takes the lock (it waits only while the main thread still holds it)
            got = ffi.lib._lock._lock.acquire(timeout=30)
            took.append(got)
            if got:
                ffi.lib._lock._lock.release()
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert took == [True]
        assert f.eval("3 4 * .") == "12 "
    finally:
        f.close()


def test_ctrl_c_during_a_launch_on_several_cores_comes_after_the_workers_not_inside_their_futures(monkeypatch):
    """Ctrl-C while the main thread waits for a launch's workers is held: the handler asks them to stop
    (the abort flag) and the KeyboardInterrupt is raised once every worker has ended, from the hold,
    never inside concurrent.futures or threading (where it could leave a future's lock held: a hang)."""
    import os
    import signal
    import sys
    import threading
    f = Forth()
    try:
        f.eval("10 20 4 1 1 GRID 256 1 1 THREADS")
        be = f.backend
        be.workers = 2
        real, seen = be._run_blocks, []

        def blocks(*args):
            if threading.current_thread() is not threading.main_thread() and not seen:
                seen.append(1)
                while not _waiting(sys._current_frames()[threading.main_thread().ident]):
                    threading.Event().wait(0.001)  # until the main thread waits for the workers
                os.kill(os.getpid(), signal.SIGINT)
                while not be.aborted():  # the handler itself asks the workers to stop
                    threading.Event().wait(0.01)
            return real(*args)
        monkeypatch.setattr(be, "_run_blocks", blocks)
        with pytest.raises(KeyboardInterrupt) as info:
            f.eval("GLOBAL-ID 1+ DROP")
        monkeypatch.undo()
        files = {tb.tb_frame.f_code.co_filename for tb in _tracebacks(info.value)}
        assert not any("concurrent" in name or name.endswith("threading.py") for name in files), files
        assert f.data_stack() == [10, 20]
        assert f.eval("+ .").split()[0] == "30"
    finally:
        f.close()


def _waiting(frame) -> bool:
    import os
    """The frame, or one of its callers, is in concurrent.futures' waits (_base.py: result, wait; not the
    pool's submit): the thread waits for the workers."""
    while frame is not None:
        if frame.f_code.co_filename.endswith(os.path.join("concurrent", "futures", "_base.py")):
            return True
        frame = frame.f_back
    return False


def _tracebacks(e: BaseException):
    tb = e.__traceback__
    while tb is not None:
        yield tb
        tb = tb.tb_next


def test_close_ends_the_worker_threads_of_the_launches():
    """(Found fuzzing, a fresh session per program: every session's pool of block workers outlived it,
    so a long run's process gathered idle threads.) CpuBackend.close() shuts its pool down: its threads
    have ended when close returns. A session that launches again after close starts a new pool."""
    import threading
    f = Forth(backend="cpu")
    be = f.backend
    be.workers = 2
    f.eval("4 1 1 GRID 256 1 1 THREADS GLOBAL-ID 1+ DROP")
    pool = be._executor
    assert pool is not None
    threads = list(pool._threads)
    assert threads and all(t.is_alive() for t in threads)
    assert all(t.name.startswith("tileforth-block") for t in threads)
    f.close()
    assert not any(t.is_alive() for t in threads)
    assert not any(t in threading.enumerate() for t in threads)
    be.close()  # twice: nothing left to end
    g = Forth(backend="cpu")
    try:
        g.backend.workers = 2
        g.eval("4 1 1 GRID 256 1 1 THREADS 1 DROP")
        g.backend.close()
        g.eval("GLOBAL-ID 2 *")  # (on a new pool)
        assert g.backend._executor is not None
        assert np.array_equal(np.array(g.data_stack(lane=None)).ravel(), 2 * np.arange(1024))
    finally:
        g.close()


@pytest.mark.parametrize("bits", [32, 64])
def test_a_float_f_to_r_put_comes_back_from_r_from_as_its_bits_on_the_host_too(bits):
    """(Fuzzed, a Python TypeError: `: t GET-CURRENT >R 1e F>R R> ;` runs on the host, whose return stack
    keeps F>R's float as a float, and R> pushed it onto the data stack as one.) R> R@ 2R> NR> of a float
    give its bits, as the same word compiled for the device does; against numpy's bits."""
    dtype, ints = (np.float32, np.uint32) if bits == 32 else (np.float64, np.int64)
    want = [int(dtype(x).view(ints)) for x in (1.0, -2.5)]
    f = Forth(float_bits=bits)
    try:
        f.eval(": dev 1e F>R -2.5e F>R R> R> ;  : host GET-CURRENT DROP 1e F>R -2.5e F>R R> R> ;")
        f.eval(": host2 GET-CURRENT DROP 1e F>R -2.5e F>R 2R@ 2R> 2DROP ;  1 1 1 THREADS")
        f.eval("dev")
        assert f.data_stack() == want[::-1]
        f.eval("CLEARSTACK host")
        assert f.data_stack() == want[::-1]
        f.eval("CLEARSTACK host2")
        assert f.data_stack() == want
    finally:
        f.close()
