"""Launch shapes checked against a backend's limits: GRID and THREADS's check (check_shape), and the same
for shapes given from Python (f.kernel, run_kernel_file), with the words' messages."""
from __future__ import annotations

import operator
from typing import Any

from ..compile.target import Capabilities
from ..errors import ForthError
from ..lazy import np


def check_shape(caps: Capabilities, grid: tuple[int, int, int], block: tuple[int, int, int], word: str,
                backend: str) -> None:
    """A launch shape the backend's machine can run, or a ForthError that says which limit it breaks."""
    for what, shape, limits in (("block", block, caps.max_block), ("grid", grid, caps.max_grid)):
        for axis, n, most in zip("xyz", shape, limits):
            if n > most:
                raise ForthError(f"{word}: a {what} has at most {most} along {axis} on the {backend} backend "
                                 f"(asked for {n})")
    threads = block[0] * block[1] * block[2]
    if threads > caps.max_block_threads:
        raise ForthError(f"{word}: a block has at most {caps.max_block_threads} threads on the {backend} backend "
                         f"({'x'.join(map(str, block))} is {threads})")
    if grid[0] * grid[1] * grid[2] * threads > caps.max_threads:
        raise ForthError(f"{word}: at most {caps.max_threads} threads in one launch on the {backend} backend "
                         f"({'x'.join(map(str, grid))} blocks of {threads} threads is {grid[0] * grid[1] * grid[2] * threads}); "
                         "use fewer blocks (GRID) or threads (THREADS)")


def python_shape(value: object, word: str) -> tuple[int, int, int]:
    """A grid (word GRID) or block (THREADS) given from Python: an int, or one to three ints, the
    missing sizes 1; refused as the word refuses it."""
    sizes: Any = (value,) if isinstance(value, (int, np.integer)) else value
    try:
        t = tuple(operator.index(v) for v in sizes)
    except TypeError:
        t = ()
    if not 1 <= len(t) <= 3:
        raise ForthError(f"{word} takes an int or one to three ints (x, y, z), not {value!r}")
    x, y, z = t + (1,) * (3 - len(t))
    if min(x, y, z) < 1:
        raise ForthError(f"{word} needs three positive sizes ( x y z -- ), e.g. `4 1 1 {word}`")
    return x, y, z


def check_python_shape(caps: Capabilities, grid: object, block: object,
                       backend: str) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """A launch shape given from Python (f.kernel, run_kernel_file) checked as GRID and THREADS check
    theirs, with their messages."""
    g, b = python_shape(grid, "GRID"), python_shape(block, "THREADS")
    check_shape(caps, (1, 1, 1), b, "THREADS", backend)
    check_shape(caps, g, b, "GRID", backend)
    return g, b
