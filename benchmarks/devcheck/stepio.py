"""How a step process reports to main.py: it prints what it does as it goes, and ends with one line
`RESULT {json}` (status, detail, rows). A step that raises is a FAIL with the error's first line;
a process that dies or runs out of time prints no RESULT, and main.py says so."""
from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Report:
    def __init__(self) -> None:
        self.status = "INFO"
        self.detail: list[str] = []
        self.rows: list[str] = []

    def note(self, text: str) -> None:
        """A part of the summary line's detail (also printed)."""
        self.detail.append(str(text))
        print("  " + str(text), flush=True)

    def row(self, text: str) -> None:
        """A row under the summary line (a table's line)."""
        self.rows.append(str(text))
        print("  | " + str(text), flush=True)

    def verdict(self, ok: bool) -> None:
        self.status = "PASS" if ok else "FAIL"

    def skip(self, why: str) -> None:
        self.status = "SKIP"
        self.note(why)


def first_line(exc: BaseException) -> str:
    text = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {text[:300]}"


def standin() -> bool:
    """A dry run against tests/standin (TF_STANDIN): kernels do not run, so results that need them fail."""
    return bool(os.environ.get("TF_STANDIN"))


def artifacts() -> Path:
    return Path(os.environ.get("TF_DC_ARTIFACTS") or ROOT / ".whl" / "devcheck")


def main(steps: dict, argv: list[str] | None = None) -> int:
    """python -m devcheck.phase_X STEP: run steps[STEP](Report) and print its RESULT line."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] not in steps:
        print(f"usage: {sys.argv[0]} {'|'.join(steps)}", file=sys.stderr)
        return 2
    rep, t0 = Report(), time.perf_counter()
    print(f"-- {argv[0]}: {(steps[argv[0]].__doc__ or '').strip().splitlines()[0]}", flush=True)
    try:
        steps[argv[0]](rep)
    except BaseException as exc:  # noqa: BLE001 - every failure is the step's verdict
        traceback.print_exc()
        rep.status = "FAIL"
        rep.detail.append(first_line(exc))
    print("RESULT " + json.dumps({"status": rep.status, "detail": "; ".join(rep.detail), "rows": rep.rows,
                                  "secs": round(time.perf_counter() - t0, 2)}), flush=True)
    return 0


def read_result(log: str) -> dict | None:
    lines = [ln for ln in log.splitlines() if ln.startswith("RESULT ")]
    return json.loads(lines[-1][7:]) if lines else None
