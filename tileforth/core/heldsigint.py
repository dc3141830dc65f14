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

Only the main thread can change a signal's handler, and only it runs Python's handlers: in
another thread, or when the handler was not installed from Python, nothing is held.
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Callable, Iterator


@contextmanager
def held() -> Iterator[None]:
    """SIGINT noted, not handled, inside the block; the previous handler runs for it at the end."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is None:
        yield  # (None: a handler not installed from Python, which could not be put back)
        return
    noted: list[object] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: noted.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if noted:
            _deliver(previous, noted[0])


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
