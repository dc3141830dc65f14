"""Ctrl-C held off for a moment: while a failed line is undone, while a launch hands its blocks to
its worker threads (issue 26).

A failed line's undo (Forth._restore) puts back several parts in turn: the text input, data space,
the device's stacks and shape, the dictionary. A KeyboardInterrupt landing half-way (SIGINT, as
Ctrl-C in Python and Jupyter's interrupt send it) left the parts after it as the line had made
them. While `held()` runs, SIGINT is only noted; when it ends, the handler that was in place
runs once for it (Python's default raises the KeyboardInterrupt there), so the interrupt is not
lost, it only waits for the undo. (The cpu backend holds it while it submits a launch's blocks to
its pool: a KeyboardInterrupt inside `submit` left a block queued that nothing waited for.)

`undo(restore)` runs a restore so: held, and once more, held, if a KeyboardInterrupt landed
before the hold took effect (restoring to a snapshot twice is the same as once).

`held(on_signal)` also calls `on_signal()` (the backend's abort) when a SIGINT is noted: a launch
whose blocks run on worker threads waits for them with SIGINT held (no KeyboardInterrupt inside
concurrent.futures' locks), and the workers stop at their next loop back-edge.

Only the main thread can change a signal's handler, and only it runs Python's handlers: in
another thread, or when the handler was not installed from Python, nothing is held.

Three windows inside llvmlite are closed here too (fuzzed, SIGINT at random moments):
- ownership handed over in C and recorded in Python after it (ModuleRef.link_in destroys the
  module it links in, then detaches its ModuleRef): `link_in` holds SIGINT over both, else the
  KeyboardInterrupt's traceback kept a ModuleRef that disposed of freed memory when collected
  (a segfault);
- llvmlite's lock around every C call is taken by a Python `__enter__`: a KeyboardInterrupt
  landing after its acquire left the lock held by the main thread for good, and every other
  thread that calls into LLVM (the optimised recompiles, which close() joins) waited forever.
  `guard_llvm_lock()` takes it through the lock's own C `__enter__` instead;
- an llvmlite object's close (ModuleRef, ExecutionEngine, TargetMachine, PassBuilder ...: every
  ObjectRef) disposes of it in C, then marks it closed in Python: a KeyboardInterrupt landing in
  the marking could leave it unmarked, disposed of again when collected (a segfault), and one in its
  `__del__` was printed as "Exception ignored" and lost. `guard_llvm_lock()` also makes every
  ObjectRef close with SIGINT held; inside a destructor (where an exception cannot get out) the
  SIGINT noted is deferred: the next `held()` to end, or `deliver_deferred()` (the session calls
  it as a line starts and ends), hands it to the handler then;
- an error string (ffi.OutputString, one for each C call that may report an error) is freed in C,
  then its pointer forgotten in Python: a KeyboardInterrupt between the two left the pointer, freed
  again when the string was collected ("double free detected", an abort). `guard_llvm_lock()` makes
  its close forget the pointer first (an interrupt there leaks the string, never frees it twice).
"""
from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # the C module: signal.signal/getsignal wrap every handler in an enum (about 3 µs a call)
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Callable, Iterator


_SIGINT = int(signal.SIGINT)
_deferred: list[object] = []  # the frames of SIGINTs noted inside a destructor, not yet handed to the handler
_destructing = 0  # llvmlite destructors under way on the main thread (their SIGINTs are deferred)


def _holds() -> bool:
    """SIGINT can be held here: the main thread, a handler installed from Python (None: one that could
    not be put back)."""
    return threading.current_thread() is threading.main_thread() and _signal.getsignal(_SIGINT) is not None


@contextmanager
def held(on_signal: Callable[[], None] | None = None) -> Iterator[None]:
    """SIGINT noted, not handled, inside the block (and `on_signal()` called for it); the previous
    handler runs for it at the end (and for one deferred before, see deliver_deferred)."""
    if not _holds():
        yield
        return
    noted: list[object] = []

    def note(signum: int, frame: object) -> None:
        noted.append(frame)
        if on_signal is not None:
            on_signal()
    previous = _signal.signal(_SIGINT, note)
    try:
        yield
    finally:
        _signal.signal(_SIGINT, previous)
        if noted and _destructing:  # inside a destructor: an exception raised now would be lost
            _deferred.append(noted[0])
        elif noted:
            _deferred.clear()  # (one interrupt for all)
            _deliver(previous, noted[0])
        elif _deferred and not _destructing:
            deliver_deferred()


def deliver_deferred() -> None:
    """The SIGINT a destructor deferred (if any), handed to the handler in place now (Python's: the
    KeyboardInterrupt raised here)."""
    if _deferred and not _destructing and _holds():
        frame = _deferred[0]
        _deferred.clear()
        _deliver(signal.getsignal(signal.SIGINT), frame)


def _deliver(handler: object, frame: object) -> None:
    """What SIGINT does under `handler`, now."""
    if callable(handler):
        handler(signal.SIGINT, frame)  # Python's default_int_handler: the KeyboardInterrupt
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signal.SIGINT)
    # SIG_IGN: nothing


def undo(restore: Callable[[], None]) -> None:
    """Run `restore` to its end whatever one Ctrl-C does; the interrupt is raised after it."""
    done = False
    try:
        with held():
            restore()
            done = True
    except KeyboardInterrupt:  # held and delivered now, or landed as the hold began: then once more, whole
        if not done:
            with held():
                restore()
        raise


def link_in(mod: object, other: object, preserve: bool = False) -> None:
    """mod.link_in(other, preserve) with SIGINT held (see the module docstring)."""
    with held():
        mod.link_in(other, preserve=preserve)  # type: ignore[attr-defined]


def _guard_llvm_objects() -> None:
    """Every llvmlite object closes with SIGINT held, and its destructor defers a SIGINT it notes
    (see the module docstring); once per process."""
    from llvmlite.binding import ffi
    cls = getattr(ffi, "ObjectRef", None)
    if cls is None or getattr(cls.close, "_tileforth", False) or not hasattr(cls, "__del__"):
        return
    close, destroy = cls.close, cls.__del__

    def close_held(self):
        with held():
            close(self)

    def destroy_held(self, *args, **kwargs):
        global _destructing
        if sys.is_finalizing() or not _holds():  # (at exit: as llvmlite's own, nothing held)
            destroy(self, *args, **kwargs)
            return
        _destructing += 1
        try:
            with held():  # (its SIGINT deferred: _destructing)
                destroy(self, *args, **kwargs)
        finally:
            _destructing -= 1
    close_held._tileforth = True  # type: ignore[attr-defined]
    cls.close, cls.__del__ = close_held, destroy_held


def guard_llvm_lock() -> None:
    """llvmlite's C calls take its lock in a way a KeyboardInterrupt cannot leave held, and its
    objects close with SIGINT held (see the module docstring); once per process, before the first
    call into LLVM."""
    from llvmlite.binding import ffi
    _guard_llvm_objects()
    wrapper = getattr(ffi, "_lib_fn_wrapper", None)
    lock = getattr(getattr(ffi, "lib", None), "_lock", None)
    if wrapper is None or getattr(wrapper.__call__, "_tileforth", False) or not (
            isinstance(getattr(lock, "_lock", None), type(threading.RLock())) and hasattr(lock, "_cblist")):
        return  # done already, or an llvmlite whose lock is not the one this knows

    def __call__(self, *args, **kwargs):
        lock = self._lock
        with lock._lock:  # the RLock's C __enter__: taken and its release set up with nothing in between
            for acquired, _ in lock._cblist:  # (the callbacks register_lock_callback adds, as llvmlite runs them)
                acquired()
            try:
                return self._cfn(*args, **kwargs)
            finally:
                for _, releasing in lock._cblist:
                    releasing()
    __call__._tileforth = True  # type: ignore[attr-defined]
    wrapper.__call__ = __call__
    _guard_output_string(ffi)


def _guard_output_string(ffi: object) -> None:
    """ffi.OutputString.close forgets its pointer before it frees it (see the module docstring)."""
    out = getattr(ffi, "OutputString", None)
    if out is None or getattr(out.close, "_tileforth", False):
        return

    def close(self):
        ptr = self._ptr
        if ptr is not None:
            self._ptr = None  # first: from here on an interrupt can only leak the string
            if self._owned:
                ffi.lib.LLVMPY_DisposeString(ptr)  # type: ignore[attr-defined]
            del self._as_parameter_
    close._tileforth = True  # type: ignore[attr-defined]
    out.close = close  # type: ignore[attr-defined]
