"""Helpers for the tile-stack tests: random matrices, the numpy reference of
TMMA with the tolerances of reference/tensor_cores.md §9, and `fails`, which
checks that a misuse leaves every stack (data, float, tile) as it was.

    TZERO  A 16 TLOAD-A  B 16 TLOAD-B  TMMA  C 16 TSTORE     \\ C = A.B
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

import forthtest
from forthtest import raises

BF16 = ml_dtypes.bfloat16
IN_DTYPE = {"f16": np.dtype(np.float16), "bf16": np.dtype(BF16)}
ACC_DTYPE = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16)}
ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4}
SHAPES = [(16, 16, 16), (32, 8, 16), (8, 32, 16)]
# (input type, accumulator type): every combination PTX has (no bf16 -> f16)
TYPES = [("f16", "f32"), ("f16", "f16"), ("bf16", "f32")]


def tile_session(key: str, shape: str = forthtest.DEFAULT_SHAPE):
    """A shared session (see forthtest.session) with an empty tile stack and
    the default tile settings: 16 16 16, f16 inputs, f32 accumulators."""
    f = forthtest.session(key, shape)
    n = len(f.tile_stack())
    if n:
        f.eval("TDROP " * n)
    settings(f)
    assert f.tile_stack() == []
    return f


def settings(f, shape=(16, 16, 16), in_type: str = "f16", acc: str = "f32") -> None:
    """`F32 TILE-ACC` first: it is allowed under either input type."""
    m, n, k = shape
    f.eval(f"F32 TILE-ACC {in_type.upper()} TILE-IN {acc.upper()} TILE-ACC {m} {n} {k} TILE-SHAPE")


def rand(rng, shape, dtype, lo=-1.0, hi=1.0) -> np.ndarray:
    """Uniform random values rounded to dtype (away from f16 subnormals)."""
    x = rng.uniform(lo, hi, shape)
    x = np.where(np.abs(x) < 2**-10, 2**-10, x)
    return x.astype(dtype)


def rand_int(rng, shape, dtype, bound: int = 8) -> np.ndarray:
    """Small integers: every partial sum of a TMMA is exact in any order."""
    return rng.integers(-bound, bound + 1, shape).astype(dtype)


def f64(x) -> np.ndarray:
    return np.asarray(x).astype(np.float64)


def mma_reference(pairs, c) -> tuple[np.ndarray, np.ndarray]:
    """R = sum a.b + c in float64 and S = sum |a|.|b| + |c| (the scale of the
    error bound) for a list of (a, b) products accumulated onto c."""
    r = f64(c).copy()
    s = np.abs(f64(c))
    for a, b in pairs:
        r += f64(a) @ f64(b)
        s += np.abs(f64(a)) @ np.abs(f64(b))
    return r, s


def assert_mma(d, pairs, c, acc: str = "f32") -> None:
    """|D - R| <= K 2^-22 S + 2^-126 (f32 accumulators), or
    K 2^-10 S + 2^-11 |R| (f16 accumulators), K the total inner dimension."""
    pairs = [(a, b) for a, b in pairs]
    r, s = mma_reference(pairs, c)
    k = sum(a.shape[1] for a, _ in pairs)
    tol = k * 2.0**-22 * s + 2.0**-126 if acc == "f32" else k * 2.0**-10 * s + 2.0**-11 * np.abs(r)
    d = np.asarray(d)
    assert d.shape == r.shape, (d.shape, r.shape)
    assert d.dtype == ACC_DTYPE[acc], (d.dtype, acc)
    err = np.abs(f64(d) - r)
    worst = np.unravel_index(np.argmax(err - tol), err.shape)
    assert (err <= tol).all(), (f"error {err[worst]:.3g} > tolerance {tol[worst]:.3g} at {worst}: "
                                f"got {d[worst]!r}, numpy {r[worst]!r}")


def n_warps(f) -> int:
    (gx, gy, gz), (bx, by, bz) = f.launch_shape
    return gx * gy * gz * ((bx * by * bz + 31) // 32)


def tiles_of(f, warp: int = 0) -> list[tuple]:
    """The tile stack of a warp as comparable tuples (values as bytes)."""
    return [(t.kind, t.shape, t.dtype, t.layout, t.mnk, t.values.dtype.str, t.values.tobytes())
            for t in f.tile_stack(warp)]


def kinds(f, warp: int = 0) -> list[str]:
    return [t.kind for t in f.tile_stack(warp)]


def fails(f, src: str, *contains: str, word: str | None = None, arrays=(), line=None, col=None):
    """`src` raises a ForthError whose message contains each of `contains`,
    and afterwards the data, float and tile stacks (every warp), the tile
    settings and the named arrays are exactly as before."""
    before_tiles = [tiles_of(f, w) for w in range(n_warps(f))]
    before_arrays = {name: f.array(name) for name in arrays}
    before_cfg = f.tile_config
    err = raises(f, src, word=word, line=line, col=col)
    msg = str(err)
    for text in contains:
        assert text in msg, f"{text!r} not in the message: {msg}"
    assert [tiles_of(f, w) for w in range(n_warps(f))] == before_tiles, "a failed line changed the tile stack"
    assert f.tile_config == before_cfg, "a failed line changed the tile settings"
    for name, value in before_arrays.items():
        assert f.array(name).tobytes() == value.tobytes(), f"a failed line changed {name}"
    return err
