"""The progress of long work (repl/progress.py over the backend's LaunchProgress, core/compile/progress.py):
the cpu backend's workers count every block of a launch, on each of their paths (a plain kernel in calls of
PROGRESS_THREADS, a kernel with barriers block by block, warp ops batched over groups of blocks, a lazy
shape chunk by chunk); a long launch shows those figures as they grow, a short line shows nothing, and
the line's output is what it is without the display. Figures are checked against the launch shape
(blocks = grid, threads = blocks x threads per block), not against the display's own arithmetic."""
import io
import re
import threading
import time
from types import SimpleNamespace

import pytest

from tileforth.backends.cpu import backend as cpu_backend
from tileforth.backends.cpu import warpops
from tileforth.core import Forth
from tileforth.core.compile.progress import LaunchProgress
from tileforth.repl import notebook
from tileforth.repl.progress import CLEAR, Progress, TerminalProgress

SPIN = ": spin ( n -- ) 0 SWAP 0 DO I + LOOP DROP ;"


def _adds(f: Forth) -> list[int]:
    """The counts the workers add during the launches from now on (the counter still counts)."""
    got: list[int] = []
    orig = f.backend.progress.add

    def add(n: int) -> None:
        got.append(n)
        orig(n)

    f.backend.progress.add = add
    return got


@pytest.mark.parametrize("kind", ["plain", "barrier", "batched", "lazy"])
def test_the_workers_count_every_block(kind):
    f = Forth(backend="cpu")
    f.backend.workers = 1  # one worker: the order of the counts is the blocks' order
    grid = {"plain": 128, "barrier": 6, "batched": 6, "lazy": 8}[kind]
    f.eval(f"{grid} 1 1 GRID 256 1 1 THREADS {SPIN}" + ("  256 CELLS SHARED: sh" if kind == "barrier" else ""))
    if kind == "lazy":
        f.backend.lazy_bytes = 1  # (as tests/test_heldstacks.py does: the lazy way at a small shape)
        f.backend.chunk_bytes = 3 * 256 * f.backend.machine.state_bytes  # chunks of 3 blocks
        f.eval("1 1 1 GRID")  # a new shape: made the lazy way
        f.eval(f"{grid} 1 1 GRID")
        assert f.backend.held is not None
    adds = _adds(f)
    line = {"plain": "10 spin", "barrier": "TID-X sh TID-X CELLS + ! BARRIER 10 spin",
            "batched": "TZERO TDROP 10 spin", "lazy": "10 spin"}[kind]
    f.eval(line)
    assert sum(adds) == grid
    snap = f.backend.progress.snapshot()
    assert (snap.running, snap.done, snap.blocks, snap.block_size) == (False, grid, grid, 256)
    assert snap.threads_done == snap.threads == grid * 256
    if kind == "plain":  # 128 blocks of 256 threads in calls of PROGRESS_THREADS threads
        per = cpu_backend.PROGRESS_THREADS // 256
        assert adds == [per] * (grid // per)
    elif kind == "barrier":  # block by block
        assert adds == [1] * grid
    elif kind == "batched":  # the blocks' warp ops batched (warpops.gathers): in groups of GATHER_THREADS
        assert warpops.gathers(f.backend, f.backend.ctx)
        per = max(1, warpops.GATHER_THREADS // 256)
        assert adds == [min(per, grid - i) for i in range(0, grid, per)]
    elif kind == "lazy":  # chunk by chunk
        assert adds == [3, 3, 2]


def test_a_line_shows_only_its_own_launch_with_its_figures():
    counter = LaunchProgress()
    now = [100.0]
    backend = SimpleNamespace(progress=counter)
    counter.start(10, 32)  # a launch before the line: not the line's
    p = Progress(backend, clock=lambda: now[0])
    now[0] += 1.26
    assert p.launch() is None
    assert p.text("Ctrl-C stops it") == "… running 1.3 s (Ctrl-C stops it)"
    counter.end()
    counter.start(4096, 32)  # the line's first launch: 4096 blocks of 32 threads
    counter.add(1024)
    text = p.text("Ctrl-C stops it")
    assert "launch 1: 1,024 of 4,096 blocks, 32,768 of 131,072 threads" in text
    assert "█" * 5 + "░" * 15 in text and " 25%" in text  # a quarter of the bar's 20 cells
    counter.add(4096)
    assert "4,096 of 4,096 blocks" in p.text("x")  # (never past the launch's blocks)
    counter.end()
    assert p.launch() is None and "blocks" not in p.text("x")
    counter.start(2, 32)
    assert "launch 2: 0 of 2 blocks" in p.text("x")


def _frames(text: str) -> list[str]:
    return [fr for fr in text.split(CLEAR) if fr]


def test_a_long_launch_shows_its_blocks_done_as_they_grow():
    """The display draws after each count (the worker waits for two more frames: the test times nothing),
    so every count shows; each frame's figures are the launch shape's."""
    f = Forth(backend="cpu")
    f.backend.workers = 1
    f.eval(f"128 1 1 GRID 256 1 1 THREADS {SPIN}")
    out = io.StringIO()
    shown = TerminalProgress(f.backend, out, after=0.0, tick=0.01, width=300)
    counted: list[int] = []
    orig = f.backend.progress.add

    def add(n: int) -> None:
        orig(n)
        counted.append(f.backend.progress.snapshot().done)
        seen = shown.frames
        end = time.monotonic() + 30  # a bound on waiting, not a timing assertion
        while shown.frames < seen + 2 and time.monotonic() < end:
            time.sleep(0.002)

    f.backend.progress.add = add
    with shown.line():
        got = f.eval("20 spin 7 .")
    shown.close()
    assert out.getvalue().endswith(CLEAR)  # cleared before the line's output is shown
    figures = [re.search(r"launch 1: ([\d,]+) of ([\d,]+) blocks, ([\d,]+) of ([\d,]+) threads", fr)
               for fr in _frames(re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue()))]
    done = [int(m[1].replace(",", "")) for m in figures if m]
    assert all((m[2], m[4]) == ("128", "32,768") for m in figures if m)
    assert all(int(m[3].replace(",", "")) == 256 * int(m[1].replace(",", "")) for m in figures if m)
    assert done == sorted(done) and set(counted) <= set(done)
    assert counted[-1] == 128
    plain = Forth(backend="cpu")
    plain.eval(f"128 1 1 GRID 256 1 1 THREADS {SPIN}")
    assert got == plain.eval("20 spin 7 .")  # the output is unchanged


def test_a_short_line_shows_nothing():
    f = Forth(backend="cpu")
    out = io.StringIO()
    shown = TerminalProgress(f.backend, out)  # the default threshold, half a second
    with shown.line():
        f.eval("1 2 + DROP")
    shown.close()
    assert out.getvalue() == "" and shown.frames == 0


def test_ctrl_c_in_a_line_clears_the_progress():
    out = io.StringIO()
    shown = TerminalProgress(SimpleNamespace(progress=LaunchProgress()), out, after=0.0, tick=0.01)
    started = threading.Event()
    with pytest.raises(KeyboardInterrupt):
        with shown.line():
            end = time.monotonic() + 30
            while shown.frames == 0 and time.monotonic() < end:
                time.sleep(0.002)
            started.set()
            raise KeyboardInterrupt
    shown.close()
    assert started.is_set() and out.getvalue().endswith(CLEAR)


def test_the_notebook_output_holds_the_figures_and_a_progress_bar():
    counter = LaunchProgress()
    backend = SimpleNamespace(progress=counter)
    p = notebook.Progress(lambda bundle: None, backend=backend)
    p.line = Progress(backend)
    counter.start(8, 64)
    counter.add(3)
    b = p.bundle(0.5)
    assert b["text/plain"].startswith("… running 0.5 s · launch 1: 3 of 8 blocks, 192 of 512 threads")
    assert b["text/plain"].endswith("(interrupt the kernel to stop it)")
    assert '<progress value="3" max="8"' in b["text/html"]
