"""Element types of typed device arrays and memory words.

One table: Forth name, numpy dtype, byte size, and the type code a type word
pushes (`F32` pushes 6, so `( n type -- ) ARRAY name` can read it).
"""
from __future__ import annotations

import functools

from ..lazy import ml_dtypes, np
from ..records import record


@record(frozen=True)
class ElType:
    """One element type: Forth name, type code, numpy dtype (by name), bytes, whether a float."""

    name: str
    code: int
    dtype_name: str  # numpy's name of the dtype, or ml_dtypes' (bfloat16)
    size: int
    is_float: bool

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype (numpy is imported when a session first needs one: tileforth/core/lazy.py)."""
        return _dtype(self.dtype_name)


@functools.cache
def _dtype(name: str) -> np.dtype:
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


ELTYPES: tuple[ElType, ...] = (
    ElType("I8", 0, "int8", 1, False),
    ElType("I16", 1, "int16", 2, False),
    ElType("I32", 2, "int32", 4, False),
    ElType("I64", 3, "int64", 8, False),
    ElType("F16", 4, "float16", 2, True),
    ElType("BF16", 5, "bfloat16", 2, True),
    ElType("F32", 6, "float32", 4, True),
    ElType("F64", 7, "float64", 8, True),
)
BY_NAME = {t.name: t for t in ELTYPES}
BY_CODE = {t.code: t for t in ELTYPES}
