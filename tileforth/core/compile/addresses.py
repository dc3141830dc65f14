"""Session addresses as launch data: the table a target's code reads them from.

A word's body or a line can hold an address of the session as a number: a
VARIABLE's or CREATEd word's data field, an ARRAY's base, BASE's cell, a
`[ HERE ] LITERAL`. Baked into the code as a constant, it makes the code of the
same program differ between two sessions (their allocations lie elsewhere),
so no compiled code outlives its session. On a target whose backend keeps
compiled code across sessions (the cuda backend's disk cache of cubins,
backends/cuda/cubincache.py) such a constant becomes `table[k] + offset`
instead: `k` the allocation's slot in this table, which the backend writes
into every launch's context (after the literal table: ctx[CTX_LITS] + LITS_MAX
cells), `offset` the constant's place inside it. Slots are handed out in the
order the code generator first meets each allocation, so two sessions that
compile the same program give every allocation the same slot and the same
code. A slot never changes once handed out (code compiled with it keeps
reading it); a constant in no allocation, or past ADDRS_MAX slots, stays a
constant (correct, only not shared across sessions).

The emulator (the cpu backend) keeps constants: it compiles nothing that
outlives the process, and an immediate is cheaper than a load.
"""
from __future__ import annotations

from typing import Callable

ADDRS_MAX = 64  # allocations a session's code reads through the table; more stay constants
SMALL = 1 << 16  # numbers below this are never taken for addresses (no device allocation lies there)


class AddressTable:
    """The slots of a session's allocations: `find(value)` names the base of the allocation that
    holds `value` (one past its end included), or None."""

    def __init__(self, find: Callable[[int], int | None]) -> None:
        self.find = find
        self.bases: list[int] = []  # slot -> the allocation's base, as the launch's context holds it
        self._slots: dict[int, int] = {}
        self.used: set[int] = set()  # the slots the function being generated reads (the compiler's: collect)

    def slot(self, value: int) -> tuple[int, int] | None:
        """(slot, offset) of a session address, or None: a number the code keeps as a constant."""
        if not SMALL <= value < 1 << 63:
            return None
        base = self.find(value)
        if base is None:
            return None
        k = self._slots.get(base)
        if k is None:
            if len(self.bases) >= ADDRS_MAX:
                return None
            k = self._slots[base] = len(self.bases)
            self.bases.append(base)
        self.used.add(k)
        return k, value - base
