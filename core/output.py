"""Turning a launch's output records into text.

Each record is (thread, kind, aux, value). Threads that printed the same text
are shown once; when threads differ, each group is shown with its threads.
"""
from __future__ import annotations

import struct

import numpy as np

from . import layout as L

_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def format_int(value: int, base: int, unsigned: bool = False) -> str:
    if not 2 <= base <= 36:
        base = 10
    if unsigned:
        value &= (1 << 64) - 1
    neg = value < 0
    v = -value if neg else value
    digits = ""
    while True:
        v, r = divmod(v, base)
        digits = _DIGITS[r] + digits
        if v == 0:
            break
    return ("-" if neg else "") + digits


def format_float(bits: int) -> str:
    """gforth-style F.: shortest round-trip digits of the f32, with a '.'."""
    x = np.float32(struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0])
    if np.isnan(x):
        return "NaN"
    if np.isinf(x):
        return "-inf" if x < 0 else "inf"
    return np.format_float_positional(x, unique=True, trim=".")


def render_records(records: np.ndarray, strings: list[str]) -> str:
    parts: list[str] = []
    for _, kind, aux, value in records:
        kind, aux, value = int(kind), int(aux), int(value)
        if kind == L.OUT_INT:
            parts.append(format_int(value, aux) + " ")
        elif kind == L.OUT_UINT:
            parts.append(format_int(value, aux, unsigned=True) + " ")
        elif kind == L.OUT_FLOAT:
            parts.append(format_float(value) + " ")
        elif kind == L.OUT_CHAR:
            parts.append(chr(value & 0x10FFFF))
        elif kind == L.OUT_STR:
            parts.append(strings[value])
        elif kind == L.OUT_DEPTH:
            parts.append(f"<{value}> ")
    return "".join(parts)


def format_output(records: np.ndarray, strings: list[str], dropped: int = 0) -> str:
    if len(records) == 0:
        return ""
    threads = records[:, 0]
    order = np.argsort(threads, kind="stable")
    records = records[order]
    threads = records[:, 0]
    ids, starts = np.unique(threads, return_index=True)
    bounds = list(starts[1:]) + [len(records)]
    texts = {int(t): render_records(records[s:e], strings) for t, s, e in zip(ids, starts, bounds)}
    distinct = set(texts.values())
    if len(distinct) == 1:
        text = distinct.pop()
    else:
        groups: dict[str, list[int]] = {}
        for t, txt in texts.items():
            groups.setdefault(txt, []).append(t)
        lines = []
        for txt, ts in sorted(groups.items(), key=lambda kv: kv[1][0]):
            # one line per group: its own final newline is the separator
            lines.append(f"[thread {ranges(ts)}] {txt[:-1] if txt.endswith(chr(10)) else txt}")
        text = "\n".join(lines) + "\n"
    if dropped:
        text += f"\n[{dropped} output records dropped: the output buffer is full]\n"
    return text


def ranges(ids: list[int]) -> str:
    """[0,1,2,5] -> '0-2, 5'"""
    if not ids:
        return ""
    parts = []
    start = prev = ids[0]
    for i in ids[1:] + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
        if i is not None:
            start = prev = i
    return ", ".join(parts)
