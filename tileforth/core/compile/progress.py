"""How far the launch under way is: the blocks its workers have finished, counted as they finish them
(a backend's `progress`), read by a front end's progress display from another thread.

The workers add under a lock (a launch's blocks run on several threads); a reader takes a `Snapshot`,
a consistent copy, as often as it likes: adding costs a lock per block (or per range of blocks a worker
runs in one native call), nothing a launch notices.
"""
from __future__ import annotations

import threading

from ..records import record


@record(frozen=True)
class Snapshot:
    """The launch under way (or the last one, `running` False): its blocks done of all, its block size, and
    the launches the backend has started so far (a front end tells a line's launches apart by it)."""

    running: bool
    done: int
    blocks: int
    block_size: int
    launches: int

    @property
    def threads_done(self) -> int:
        return self.done * self.block_size

    @property
    def threads(self) -> int:
        return self.blocks * self.block_size


class LaunchProgress:
    """A backend's count of the blocks done in its launch under way: start, add (the workers), end, snapshot."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = False
        self._done = 0
        self._blocks = 0
        self._block_size = 1
        self._launches = 0

    def start(self, blocks: int, block_size: int) -> None:
        with self._lock:
            self._running, self._done, self._blocks, self._block_size = True, 0, int(blocks), int(block_size)
            self._launches += 1

    def add(self, blocks: int) -> None:
        with self._lock:
            self._done = min(self._blocks, self._done + blocks)

    def end(self) -> None:
        with self._lock:
            self._running = False

    def snapshot(self) -> Snapshot:
        with self._lock:
            return Snapshot(self._running, self._done, self._blocks, self._block_size, self._launches)
