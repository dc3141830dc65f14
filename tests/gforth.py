"""gforth as the reference Forth.

Each call writes the program to a temporary file, runs it in a fresh
``gforth`` process (with a timeout, so a runaway program cannot hang the
suite) and reads back what it printed and what it left on the data stack::

    >>> stack("1 2 + 7")
    [3, 7]
    >>> output("1 2 + .")
    '3 '

gforth 0.7.3 on x86-64 has 64-bit cells like tileforth, and floored division
like tileforth's.  One difference is papered over by a prelude: gforth 0.7.3
lacks ``BUFFER:``.

Control structures are compile-only in gforth but allowed at the tileforth
prompt; ``wrap(line)`` turns such a line into an anonymous definition that is
run at once.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import tempfile

GFORTH = shutil.which("gforth")

_SENTINEL = "<<<TF-STACK>>>"

PRELUDE = r"""
warnings off
\ Forth-2012 word missing from gforth 0.7.3.
: buffer: ( u "name" -- )         create allot ;
\ Print the depth, then the stack bottom first, in decimal.
: tf-dump-stack ( i*x -- i*x )
  decimal depth dup . 0 ?do depth 1- i - pick . loop ;
"""


class GforthError(RuntimeError):
    """gforth rejected the program (its message is included)."""


@dataclasses.dataclass
class Result:
    stack: list[int]
    output: str


def available() -> bool:
    return GFORTH is not None


def require() -> None:
    """Skip the calling test when gforth is not installed."""
    if GFORTH is None:
        import pytest

        pytest.skip("gforth is not installed (apt-get install gforth)")


def wrap(line: str) -> str:
    """Run `line` as the body of an anonymous definition (for control flow,
    which gforth only accepts inside definitions)."""
    return f":noname {line} ; execute"


def run(program: str, *, timeout: float = 10.0) -> Result:
    """Run `program` (with the prelude) in gforth; return stack and output."""
    require()
    src = (
        PRELUDE
        + "\n"
        + program
        + "\n"
        + f'cr .( {_SENTINEL}) tf-dump-stack cr\n'
    )
    fd, path = tempfile.mkstemp(suffix=".fs", prefix="tf-gforth-")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(src)
        try:
            proc = subprocess.run(
                [GFORTH, path, "-e", "bye"],
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired as exc:
            raise GforthError(f"gforth timed out after {timeout}s on:\n{program}") from exc
    finally:
        os.unlink(path)
    out = proc.stdout
    marker = "\n" + _SENTINEL
    if proc.returncode != 0 or marker not in out:
        raise GforthError(
            f"gforth failed (rc={proc.returncode}) on:\n{program}\n"
            f"stdout: {out!r}\nstderr: {proc.stderr.strip()}"
        )
    printed, dump = out.rsplit(marker, 1)
    numbers = [int(tok) for tok in dump.split()]
    depth, items = numbers[0], numbers[1:]
    if depth != len(items):
        raise GforthError(f"could not parse gforth stack dump {dump!r}")
    return Result(stack=items, output=printed)


def stack(program: str, **kw) -> list[int]:
    """The data stack (bottom first) that `program` leaves in gforth."""
    return run(program, **kw).stack


def output(program: str, **kw) -> str:
    """What `program` prints in gforth."""
    return run(program, **kw).output


def fails(program: str, **kw) -> bool:
    """True when gforth reports an error for `program`."""
    try:
        run(program, **kw)
    except GforthError:
        return True
    return False
