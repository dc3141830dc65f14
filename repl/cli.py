"""The `tileforth` command.

    tileforth                      interactive prompt (stdin a terminal)
    tileforth FILE...              run the files line by line, then exit
    tileforth -e '2 3 + .'         run source given on the command line
    echo '2 3 +' | tileforth       read lines from stdin, like the prompt

Files run first, then each -e source, in order.  In a file or -e source an
error is printed as ``file:line:col: error: ...`` and the run stops with
exit status 1.  Reading stdin or at the prompt, an error is printed and the
session goes on; stdin's exit status is then 1 if any line failed.
"""

from __future__ import annotations

import argparse
import sys
from typing import Iterable

from .display import Display
from .session import Bye, Session

STACK_MODES = ("each", "end", "none")


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="tileforth",
        description="An interactive Forth for NVIDIA GPUs (or their CPU emulation).",
        epilog="With no FILE and no -e: the prompt on a terminal, otherwise lines from stdin.")
    p.add_argument("files", nargs="*", metavar="FILE", help="Forth source to run, line by line")
    p.add_argument("-e", dest="sources", action="append", default=[], metavar="SOURCE",
                   help="run SOURCE after the files (may be repeated)")
    p.add_argument("--backend", choices=("cpu", "cuda", "auto"), default="auto",
                   help="where lines run: cpu emulator, cuda GPU, or auto (cuda if present)")
    p.add_argument("--stacks", choices=STACK_MODES, default=None,
                   help="show the stacks after each line, at the end only if not empty, "
                        "or never (default: each at the prompt and on stdin, end for FILE/-e)")
    return p.parse_args(argv)


def run_lines(session: Session, display: Display, lines: Iterable[str], *,
              stop_on_error: bool, stacks: str) -> int:
    """Run lines; return 0, or 1 after a failed line."""
    status = 0
    for lineno, text in enumerate(lines, start=1):
        text = text.rstrip("\r\n")
        result = session.run_line(text, lineno)  # BYE raises Bye: main ends the run
        display.output(result.output)
        if result.error is not None:
            display.error(result)
            status = 2 if result.internal else 1
            if stop_on_error:
                return status
            continue
        if stacks == "each" and not session.compiling:
            display.stacks(session.forth)
    if session.compiling:
        display.fatal(f"{session.source} ended inside a colon definition (missing ;)")
        return 1
    return status


def _stacks_empty(forth) -> bool:
    try:
        tiles = forth.tile_stack(0)
    except Exception:  # a backend without tiles
        tiles = []
    return not any(forth.data_stack(lane=None)) and not any(forth.float_stack(lane=None)) and not tiles


def main(argv=None) -> int:
    args = parse_args(argv)
    display = Display.standard()
    try:
        session = Session.start(args.backend)
    except Exception as e:  # no GPU for --backend cuda, or a broken install
        display.fatal(f"cannot start the {args.backend} backend: {e}")
        return 2

    try:
        if args.files or args.sources:
            stacks = args.stacks or "end"
            batch = [(name, _read(name, display)) for name in args.files]
            if any(lines is None for _, lines in batch):
                return 2
            batch += [("-e" if len(args.sources) == 1 else f"-e#{i}", src.splitlines())
                      for i, src in enumerate(args.sources, 1)]
            for name, lines in batch:
                session.set_source(name)
                status = run_lines(session, display, lines, stop_on_error=True,
                                   stacks="none" if stacks == "end" else stacks)
                if status:
                    return status
            if stacks == "end" and not _stacks_empty(session.forth):
                display.stacks(session.forth)
            return 0

        if sys.stdin.isatty() and sys.stdout.isatty():
            from .prompt import interact

            return interact(session, display)

        session.set_source("<stdin>")
        return run_lines(session, display, sys.stdin, stop_on_error=False,
                         stacks=args.stacks or "each")
    except Bye:
        return 0
    except KeyboardInterrupt:
        return 130


def _read(name: str, display: Display) -> list[str] | None:
    try:
        with open(name, encoding="utf-8") as fh:
            return fh.read().splitlines()
    except OSError as e:
        display.fatal(f"cannot read {name}: {e.strerror}")
        return None


if __name__ == "__main__":
    sys.exit(main())
