"""The test files measured: gforth's coretest.fs and the Forth-2012 suite.

Each `SuiteFile` names the file, the token that opens a test, the files run
before it uncounted (the definitions it relies on, as the suite's
runtests.fth loads them) and whether its tests use the float stack.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GFORTH_TESTS = Path("/usr/share/gforth/0.7.3/test")
CORETEST = GFORTH_TESTS / "coretest.fs"
FORTH2012 = HERE / "forth2012"
# A local checkout's src/ folder supplies the files not vendored here.
SUITE_DIR_ENV = "TILEFORTH_FORTH2012_SRC"


@dataclasses.dataclass
class SuiteFile:
    name: str
    path: str
    group: str                     # "core", "integer" or "float"
    opener: str = "T{"
    setup: list[str] = dataclasses.field(default_factory=list)
    floats: bool = False
    files: list[str] = dataclasses.field(default_factory=list)  # copied where the file runs (it loads them by name)

    @property
    def available(self) -> bool:
        return Path(self.path).is_file()

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _suite_path(rel: str) -> Path:
    """A Forth-2012 file: vendored, else from $TILEFORTH_FORTH2012_SRC."""
    vendored = FORTH2012 / rel
    if vendored.is_file():
        return vendored
    src = os.environ.get(SUITE_DIR_ENV)
    return Path(src) / rel if src else vendored


# The integer files in runtests.fth's order (utilities.fth is not vendored,
# see forth2012/NOTICE.md; utilities-substitute.fth defines what the others use).
_INTEGER = ["core.fr", "coreplustest.fth", "utilities.fth", "coreexttest.fth",
            "blocktest.fth", "doubletest.fth", "exceptiontest.fth",
            "facilitytest.fth", "filetest.fth", "localstest.fth",
            "memorytest.fth", "toolstest.fth", "searchordertest.fth",
            "stringtest.fth"]
# runfptests.fth's files that use the tester (paranoia.4th does not).
_FLOAT = ["fp/fatan2-test.fs", "fp/ieee-arith-test.fs", "fp/ieee-fprox-test.fs",
          "fp/fpzero-test.4th", "fp/fpio-test.4th", "fp/to-float-test.4th",
          "fp/ak-fp-test.fth"]


def _setup_for(rel: str) -> list[str]:
    """What runtests.fth has loaded before `rel` that `rel` relies on."""
    core = str(_suite_path("core.fr"))
    support = [str(HERE / "utilities-substitute.fth"),
               str(_suite_path("errorreport.fth"))]
    if rel == "core.fr":
        return []
    if rel in ("coreplustest.fth", "utilities.fth"):
        return [core]
    if rel == "filetest.fth":  # its SAVE-INPUT tests use SI_INC and S$ from coreexttest.fth
        return [core, *support, str(_suite_path("coreexttest.fth"))]
    return [core, *support]


def _files_for(rel: str) -> list[str]:
    """Files `rel` loads by name from where it runs (our own stand-ins for the suite's helpers)."""
    if rel == "filetest.fth":
        return [str(HERE / "required-helper1.fth"), str(HERE / "required-helper2.fth")]
    return []


def coretest() -> SuiteFile:
    return SuiteFile("coretest.fs", str(CORETEST), "core", opener="{")


def forth2012() -> list[SuiteFile]:
    files = [SuiteFile(rel, str(_suite_path(rel)), "integer", setup=_setup_for(rel), files=_files_for(rel))
             for rel in _INTEGER]
    files += [SuiteFile(rel, str(_suite_path(rel)), "float", floats=True) for rel in _FLOAT]
    return files
