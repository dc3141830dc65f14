"""Which device each of a session's arrays lives on: the arrays the dictionary names, one found by its
address, and the message of a launch that touched an array of another device (DEVICE, ACOPY: words/devices.py;
a bad address's report: launcherrors.py)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..errors import ForthError
from ..front.dictionary import Constant

if TYPE_CHECKING:
    from .api import Session as Forth


def arrays_of(f: "Forth") -> list[tuple[str, tuple]]:
    """Every ARRAY and MATRIX the dictionary names, (name, (addr, shape, type)), in the dictionary's order."""
    seen: dict[int, tuple[str, tuple]] = {}
    for e in f.dict.values():
        if isinstance(e, Constant) and e.array is not None and e.array[0] not in seen:
            seen[e.array[0]] = (e.name, e.array)
    return list(seen.values())


def array_at(f: "Forth", addr: int, word: str, role: str) -> tuple[str, tuple]:
    for name, array in arrays_of(f):
        if array[0] == addr:
            return name, array
    raise ForthError(f"{word} needs the address of an array as its {role}, but ${addr & (2**64 - 1):x} is none "
                     f"(an ARRAY or MATRIX name pushes its array's address): e.g. `xs ys {word}`")


def cross_device_message(f: "Forth", addr: int) -> str | None:
    """Why a launch could not touch addr, when it lies in an array of a device other than the selected one
    (checked launches leave such arrays out of what they may touch), with the fix; None otherwise."""
    be = f.backend
    if be.device_count() < 2:
        return None
    for name, (base, shape, et) in arrays_of(f):
        if base <= addr < base + math.prod(shape) * et.size:
            where = be.array_device(base)
            if where != be.current_device:
                return device_fix(name, where, be.current_device, shape, et.name)
    return None


def device_fix(name: str, where: int, here: int, shape: tuple, type_name: str) -> str:
    dims = " ".join(map(str, shape))
    return (f"{name} lives on device {where}, but this launch runs on device {here}: select its device first "
            f"(`{where} DEVICE`), or copy it to an array of device {here} (`{here} DEVICE  {dims} {type_name} "
            f"{'ARRAY' if len(shape) == 1 else 'MATRIX'} {name}{here}  {name} {name}{here} ACOPY`)")
