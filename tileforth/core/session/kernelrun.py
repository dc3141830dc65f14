"""What one call of `f.kernel(word)` gives back: what the threads printed and the results each
thread's run of the word left on its stacks."""
from __future__ import annotations

from ..lazy import np
from ..records import record


@record(eq=False)
class KernelRun:
    """`output`: what the launch printed. `cells`: (threads, r) int64, each thread's r result
    cells, the deepest first (the word's stack effect says r); `floats`: (threads, rf), its float
    results (the session's float type). Thread t is the launch's linear thread index."""

    output: str
    cells: "np.ndarray"
    floats: "np.ndarray"

    def __str__(self) -> str:
        return self.output
