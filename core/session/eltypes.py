"""Element types of typed device arrays and memory words.

One table: Forth name, numpy dtype, byte size, and the type code a type word
pushes (`F32` pushes 6, so `( n type -- ) ARRAY name` can read it).
"""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class ElType:
    """One element type: Forth name, type code, numpy dtype, bytes, whether a float."""

    name: str
    code: int
    dtype: np.dtype
    size: int
    is_float: bool


ELTYPES: tuple[ElType, ...] = (
    ElType("I8", 0, np.dtype(np.int8), 1, False),
    ElType("I16", 1, np.dtype(np.int16), 2, False),
    ElType("I32", 2, np.dtype(np.int32), 4, False),
    ElType("I64", 3, np.dtype(np.int64), 8, False),
    ElType("F16", 4, np.dtype(np.float16), 2, True),
    ElType("BF16", 5, np.dtype(ml_dtypes.bfloat16), 2, True),
    ElType("F32", 6, np.dtype(np.float32), 4, True),
    ElType("F64", 7, np.dtype(np.float64), 8, True),
)
BY_NAME = {t.name: t for t in ELTYPES}
BY_CODE = {t.code: t for t in ELTYPES}
