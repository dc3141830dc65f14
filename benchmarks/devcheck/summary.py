"""$OUT/summary.txt: the device check's verdict, one line per step, written as each step ends (flushed
to disk), so a run cut by its time limit still reports what it did.

    tileforth device check v2  <time>  commit <hash>  budget <s>
    <facts lines: budget plan, GPU, stand-in, artifacts>
    step            result  secs  detail
    sysinfo         INFO       2  ...
    gemm            PASS      41  ...
        <a table row of the step, indented 4>
    phase A         INFO     131  5 steps: 3 PASS, 1 FAIL, 1 INFO
    ...
    end             INFO     402  elapsed 402 s of 420 s

A result is PASS, FAIL, INFO (a figure, no verdict) or SKIP (with the reason).
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

RESULTS = ("PASS", "FAIL", "INFO", "SKIP")
COLUMNS = "step            result  secs  detail"
_LINE = re.compile(r"^(\S+(?: [AB])?) +(PASS|FAIL|INFO|SKIP) +(\d+)  (.*)$")


@dataclass
class Entry:
    step: str
    result: str
    secs: int
    detail: str
    rows: list[str] = field(default_factory=list)


class Summary:
    """Appends to `path` line by line; `mirror` (e.g. $OUT/summary.txt) gets a copy after each line."""

    def __init__(self, path: Path, header: str, facts: list[str], mirror: Path | None = None) -> None:
        self.path, self.mirror = path, mirror
        self.entries: list[Entry] = []
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("")
        self._write([header, *facts, COLUMNS])

    def _write(self, lines: list[str]) -> None:
        with self.path.open("a") as fh:
            for line in lines:
                fh.write(line.rstrip() + "\n")
            fh.flush()
        if self.mirror is not None:
            try:
                self.mirror.parent.mkdir(parents=True, exist_ok=True)
                self.mirror.write_bytes(self.path.read_bytes())
            except OSError:
                pass

    def fact(self, line: str) -> None:
        """A line that is no step (written where it comes: after the steps so far)."""
        self._write(["# " + line])

    def add(self, step: str, result: str, secs: float, detail: str, rows: list[str] = ()) -> Entry:
        if result not in RESULTS:
            raise ValueError(f"result {result!r}: one of {RESULTS}")
        detail = " ".join(str(detail).split())
        e = Entry(step, result, int(round(secs)), detail, [str(r).rstrip() for r in rows])
        self.entries.append(e)
        self._write([f"{step:<15} {result:<6} {e.secs:>5}  {detail}"] + ["    " + r for r in e.rows])
        return e

    def phase(self, name: str, secs: float, of: list[Entry]) -> Entry:
        counts = {r: sum(e.result == r for e in of) for r in RESULTS}
        text = ", ".join(f"{n} {r}" for r, n in counts.items() if n)
        return self.add(name, "INFO", secs, f"{len(of)} steps: {text or 'none ran'}")


def parse(text: str) -> dict:
    """The summary back: {"header": str, "facts": [str], "entries": [Entry]}; ValueError on a line that is not
    a step, a row of one, a fact, or the column heads."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("tileforth device check"):
        raise ValueError("not a device-check summary: " + (lines[0] if lines else "(empty)"))
    out: dict = {"header": lines[0], "facts": [], "entries": []}
    seen_columns = False
    for i, line in enumerate(lines[1:], 2):
        if not seen_columns:
            if line == COLUMNS:
                seen_columns = True
            else:
                out["facts"].append(line)
            continue
        if line.startswith("# "):
            out["facts"].append(line[2:])
        elif line.startswith("    ") and out["entries"]:
            out["entries"][-1].rows.append(line[4:])
        elif m := _LINE.match(line):
            out["entries"].append(Entry(m.group(1), m.group(2), int(m.group(3)), m.group(4)))
        else:
            raise ValueError(f"line {i} of the summary is not a step: {line!r}")
    if not seen_columns:
        raise ValueError("the summary has no column heads")
    return out


def header(commit: str, budget: int) -> str:
    return (f"tileforth device check v2  {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}  commit {commit}  "
            f"budget {budget} s")
