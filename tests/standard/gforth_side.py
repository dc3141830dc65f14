"""Running a test file through gforth with gforth's own tester (ttester.fs).

The file is fed on gforth's standard input, so gforth reads it line by line
and, like the tileforth runner, reports an error in a line and goes on with
the next.  Hooks loaded after ttester.fs count by the same rule: a test
passes when its closer (}T or one of ttester's ...}T words) runs and the
tester reported no error since its T{.  The file's test count comes from
`scan`, as for tileforth.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import shutil
import tempfile
import time
from pathlib import Path

from .results import FileResult
from .scan import tests_per_line
from .suites import GFORTH_TESTS, SuiteFile

_MARK = "<<GFORTH-PASSED>>"


def _closers() -> list[str]:
    """ttester.fs's closers: }T, ...}T and X}T ... RRRR}T."""
    kinds = ["".join(p) for n in range(1, 5) for p in itertools.product("XR", repeat=n)]
    return ["}T", "...}T"] + [k + "}T" for k in kinds]


def hooks(opener: str) -> str:
    """Forth, loaded after ttester.fs: counts passes, and #ERRORS as the
    Forth-2012 suite's tester.fr keeps it."""
    lines = [
        "variable #errors  0 #errors !",
        "variable tf-open  variable tf-failed  variable tf-passed  0 tf-passed !",
        ":noname  1 #errors +!  tf-failed on  error1 ; error-xt !",
        ": tf-close ( -- )  tf-open @ tf-failed @ 0= and if 1 tf-passed +! then  tf-open off ;",
        ": T{  T{  tf-open on  tf-failed off ;",
    ]
    lines += [f": {c}  {c}  tf-close ;" for c in _closers()]
    if opener == "{":
        lines.append(": {  T{ ;  : }  }T ;")
    return "\n".join(lines) + "\n"


def _report_line() -> str:
    return f'\n[ decimal cr .( {_MARK}) tf-passed @ . cr bye\n'


def _stdin(spec: SuiteFile) -> str:
    parts = [Path(p).read_text(encoding="latin-1") for p in [*spec.setup, spec.path]]
    setup_mark = "0 tf-passed !\n"  # the setup's tests are not counted
    return "\n".join(parts[:-1]) + "\n" + setup_mark + parts[-1] + _report_line()


def run(spec: SuiteFile, gforth: str, timeout: float) -> FileResult:
    """Run `spec` in a fresh gforth process with a time limit."""
    lines = Path(spec.path).read_text(encoding="latin-1").splitlines() if spec.available else []
    result = FileResult(spec.name, sum(tests_per_line(lines, spec.opener)))
    if not spec.available:
        result.status, result.note = "unavailable", f"{spec.path} is missing"
        return result
    start = time.monotonic()
    fd, hook_path = tempfile.mkstemp(suffix=".fs", prefix="tf-standard-")
    with os.fdopen(fd, "w") as fh:
        fh.write(hooks(spec.opener))
    try:
        with tempfile.TemporaryDirectory(prefix="tf-standard-") as scratch:  # filetest.fth writes files
            for name in spec.files:
                shutil.copy(name, scratch)
            proc = subprocess.run([gforth, str(GFORTH_TESTS / "ttester.fs"), hook_path],
                                  input=_stdin(spec), capture_output=True, text=True,
                                  timeout=timeout, cwd=scratch, errors="replace")
    except subprocess.TimeoutExpired:
        result.status, result.note = "timeout", f"over {timeout:.0f} s"
        return result
    finally:
        os.unlink(hook_path)
    result.seconds = time.monotonic() - start
    if _MARK not in proc.stdout:
        result.status, result.note = "error", "gforth did not reach the end of the file"
        return result
    result.passed = int(proc.stdout.rsplit(_MARK, 1)[1].split()[0])
    return result
