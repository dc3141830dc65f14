"""Helpers for tests written like a Forth tutorial: source in, stacks out,
compared with a reference (gforth or numpy)."""

from __future__ import annotations

import numpy as np
import pytest

import gforth

DEFAULT_SHAPE = "1 1 1 GRID 32 1 1 THREADS"
# Every thread runs every line; tests of memory updates (+!, read-modify-write
# loops) use one thread so that each update happens once, as in gforth.
ONE_THREAD = "1 1 1 GRID 1 1 1 THREADS"


def new_forth():
    from tileforth.core import Forth

    return Forth(backend="cpu")


_SESSIONS: dict = {}


def session(key: str = "", shape: str = DEFAULT_SHAPE):
    """A cpu session in launch shape `shape` with empty stacks and BASE
    decimal. Sessions are reused between tests that pass the same key (a
    fresh one costs ~0.1 s, a reset ~1 ms); the dictionary carries over, so
    tests sharing a key must not depend on a name being undefined unless the
    name is unique to them."""
    f = _SESSIONS.get((key, shape))
    if f is not None:
        try:
            reset(f, shape)
            return f
        except Exception:          # a test left it in a state we cannot undo
            pass
    f = new_forth()
    f.eval(shape)
    _SESSIONS[(key, shape)] = f
    return f


def one_thread_session(key: str = ""):
    """A cpu session launched as a single thread."""
    return session(key, ONE_THREAD)


def reset(f, shape: str = DEFAULT_SHAPE) -> None:
    """Empty the data and float stacks of every thread, restore BASE and the
    launch shape, so a session can be reused between examples."""
    f.eval(shape + " DECIMAL")
    depths = {len(s) for s in f.data_stack(lane=None)}
    fdepths = {len(s) for s in f.float_stack(lane=None)}
    assert len(depths) == 1 and len(fdepths) == 1, "threads disagree on depth"
    (n,), (m,) = depths, fdepths
    if n:
        f.eval("DROP " * n)
    if m:
        f.eval("FDROP " * m)
    assert f.data_stack() == [] and f.float_stack() == []


def stack(f, src: str) -> list[int]:
    """Evaluate `src` in tileforth and return thread 0's data stack."""
    f.eval(src)
    return f.data_stack()


def check(f, src: str, *, gsrc: str | None = None, wrap: bool = False) -> list[int]:
    """`src` leaves the same data stack in tileforth as in gforth.

    `wrap` runs the gforth side inside an anonymous definition (control flow
    at the prompt); `gsrc` gives gforth a different spelling of the program.
    """
    if gsrc is None:
        gsrc = gforth.wrap(src) if wrap else src
    expected = gforth.stack(gsrc)
    actual = stack(f, src)
    assert actual == expected, f"{src!r}: tileforth {actual} != gforth {expected}"
    return actual


def drain(f) -> tuple[list[int], list[float]]:
    """Thread 0's data and float stacks; then empties both."""
    ints, floats = f.data_stack(), f.float_stack()
    if ints:
        f.eval("DROP " * len(ints))
    if floats:
        f.eval("FDROP " * len(floats))
    return ints, floats


def run_chunks(f, snippets: list[str], chunk: int = 8) -> tuple[list[int], list[float]]:
    """Evaluate many snippets a few per line (stacks stay small), collecting
    what they leave on the data and float stacks, in order."""
    assert f.data_stack() == [] and f.float_stack() == []
    ints: list[int] = []
    floats: list[float] = []
    for i in range(0, len(snippets), chunk):
        f.eval(" ".join(snippets[i:i + chunk]))
        a, b = drain(f)
        ints += a
        floats += b
    return ints, floats


def check_many(f, snippets: list[str], *, wrap: bool = False, chunk: int = 8) -> list[int]:
    """Like `check` for a list of independent snippets (each leaving a few
    items): gforth runs them in one go, tileforth a few per line."""
    gsrc = " ".join(snippets)
    expected = gforth.stack(gforth.wrap(gsrc) if wrap else gsrc)
    actual, _ = run_chunks(f, snippets, chunk)
    assert actual == expected, "\n".join(
        [f"tileforth {actual}", f"gforth    {expected}"]
        + [f"  differs at item {i}" for i, (a, b) in enumerate(zip(actual, expected)) if a != b][:5])
    return actual


def check_output(f, src: str, *, gsrc: str | None = None, wrap: bool = False) -> str:
    """`src` prints the same text in tileforth as in gforth."""
    if gsrc is None:
        gsrc = gforth.wrap(src) if wrap else src
    ref = gforth.run(gsrc)
    out = f.eval(src)
    assert out == ref.output, f"{src!r}: tileforth printed {out!r}, gforth {ref.output!r}"
    assert f.data_stack() == ref.stack
    return out


def snapshot(f):
    return (f.data_stack(lane=None), f.float_stack(lane=None))


def raises(f, src: str, *, word: str | None = None, line: int | None = None,
           col: int | None = None):
    """`src` raises ForthError with a position, and leaves the stacks exactly
    as they were before the line. Returns the error for further checks."""
    from tileforth.core import ForthError

    before = snapshot(f)
    with pytest.raises(ForthError) as info:
        f.eval(src)
    err = info.value
    assert isinstance(err.line, int) and err.line >= 1, f"line not set: {err.line!r}"
    assert isinstance(err.col, int) and err.col >= 1, f"col not set: {err.col!r}"
    if line is not None:
        assert err.line == line, f"line {err.line} != {line}: {err}"
    if col is not None:
        assert err.col == col, f"col {err.col} != {col}: {err}"
    if word is not None:
        assert isinstance(err.word, str) and err.word.upper() == word.upper(), (
            f"word {err.word!r} != {word!r}: {err}")
    msg = str(err)
    assert len(msg.split()) >= 3, f"message is not a sentence: {msg!r}"
    assert snapshot(f) == before, "a failed line changed the stacks"
    return err


def f32(x) -> float:
    """x rounded to float32, as a python float (how float_stack reports it)."""
    return float(np.float32(x))
