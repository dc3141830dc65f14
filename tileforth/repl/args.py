"""The `tileforth` command's arguments (argparse): apart from cli.py, so that tileforth/repl/resident.py's
tests can check its scan against them without loading a session's modules. Importing it loads no
argparse (~5 ms): resident.py, which every run of the command loads first, takes the names below."""
from __future__ import annotations

from tileforth import registry

STACK_MODES = ("each", "end", "none")
KERNEL_COMMANDS = ("compile", "run")  # the command's subcommands, for kernel files
# what resident.py's scan needs to tell a file from an option's value without argparse (tests/test_resident.py
# checks them against parser()): the options that take a value, and the flags
VALUE_OPTIONS = ("-e", "--backend", "--stacks", "--steps", "--arch")
FLAG_OPTIONS = ("--echo", "--timing", "--no-timing", "--unchecked")


USAGE = """tileforth [options] [FILE ...] [-e SOURCE ...]
       tileforth compile FILE [-o OUT] [--arch SM] [--python OUT.py]
       tileforth run FILE [--param NAME=VALUE ...] [--grid X,Y,Z] [--block X,Y,Z] [--output-param NAME]
                          [--save NAME=FILE.npy]"""

EPILOG = """\
With no FILE and no -e: the prompt on a terminal, otherwise lines from stdin.

subcommands, for kernel files (\\! kernel, \\! param, \\! shared header lines, then Forth):
  compile FILE -o OUT.ptx        write the kernel's PTX (`tileforth compile --help`: its options)
  run FILE --param NAME=VALUE    run the kernel once and print its outputs (`tileforth run --help`)"""


def _steps(text: str) -> int:
    import argparse

    n = int(text.replace("_", ""))  # a ValueError: argparse says "invalid steps value"
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text}: give a positive number of steps, or 0 for no budget")
    return n


_steps.__name__ = "steps"


def parse_args(argv):
    return parser().parse_args(argv)


def parser():
    """The command's argument parser (argparse.ArgumentParser)."""
    import argparse

    p = argparse.ArgumentParser(
        prog="tileforth", usage=USAGE,
        description="An interactive Forth for NVIDIA GPUs (or their CPU emulation).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="*", metavar="FILE", help="Forth source to run, line by line")
    p.add_argument("-e", dest="sources", action="append", default=[], metavar="SOURCE",
                   help="run SOURCE after the files (may be repeated)")
    p.add_argument("--backend", choices=registry.backend_choices(), default="auto",
                   help="where lines run: cpu emulator, cuda GPU, or auto (cuda if present)")
    p.add_argument("--stacks", choices=STACK_MODES, default=None,
                   help="show the stacks after each line, at the end only if not empty, "
                        "or never (default: each at the prompt and on stdin, end for FILE/-e)")
    p.add_argument("-i", dest="interactive", action="store_true",
                   help="after the files and -e sources, stay at the prompt (or read stdin)")
    p.add_argument("--echo", action="store_true",
                   help="print each line of the files, -e sources and stdin before its output, as typed at "
                        "the prompt (`> line`), so a run reads like a session")
    p.add_argument("--timing", action=argparse.BooleanOptionalAction, default=True,
                   help="at the prompt, after each line, the time it took to compile, run and read back "
                        "(on the cpu backend: the emulator's time, not a GPU's); --no-timing leaves it out")
    p.add_argument("--unchecked", action="store_true",
                   help="UNSAFE, for benchmarks only: memory accesses are not checked against the arrays, buffers and "
                        "shared memory they should stay in (faster). A bad address (e.g. `7 BF@`) can then crash "
                        "the whole process with a segmentation fault, losing the session, or read freed or "
                        "stale memory (shared memory included) and write over other data without an error. The stack "
                        "checks and the step budget stay (--steps 0 removes the budget)")
    p.add_argument("--steps", type=_steps, default=None, metavar="N",
                   help="the step budget: the loop iterations and calls a line may run, summed over its threads, "
                        "before it is stopped as a runaway (default 67108864; 0: none, Ctrl-C still stops a "
                        "line); the word SET-STEP-BUDGET sets it from Forth")
    p.add_argument("--arch", default=None, metavar="SM",
                   help="GPU architecture that PTX is shown for, e.g. sm_75 sm_80 sm_90 (default: the GPU's own "
                        "on the cuda backend, else sm_80)")
    return p
