"""What a run of one test file gives, for either system."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass
class LineIssue:
    """A line that raised an error (or crashed the harness): where, what."""

    line: int          # 1-based line number in the test file
    text: str
    message: str
    blocker: str = ""  # a short key to group issues by, e.g. 'unknown word S"'


@dataclasses.dataclass
class FileResult:
    """The counts for one test file.  `status` is "ok", "timeout",
    "unavailable", "no tester" (the tester itself did not load) or "error"
    (the harness could not run the file; `note` says why)."""

    name: str
    tests: int
    passed: int = 0
    failed_lines: list[LineIssue] = dataclasses.field(default_factory=list)
    crashes: list[LineIssue] = dataclasses.field(default_factory=list)
    wrong_lines: list[int] = dataclasses.field(default_factory=list)
    status: str = "ok"
    note: str = ""
    seconds: float = 0.0

    @property
    def failed(self) -> int:
        return self.tests - self.passed

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "FileResult":
        fields = dict(data)
        for key in ("failed_lines", "crashes"):
            fields[key] = [LineIssue(**issue) for issue in fields[key]]
        return cls(**fields)
