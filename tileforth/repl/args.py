"""The `tileforth` command's arguments (argparse): apart from cli.py, so that tileforth/repl/resident.py's
tests can check its scan against them without loading a session's modules. Importing it loads no
argparse (~5 ms): resident.py, which every run of the command loads first, takes the names below."""
from __future__ import annotations

from tileforth import registry

STACK_MODES = ("each", "end", "none")
KERNEL_COMMANDS = ("compile", "run")  # the command's subcommands, for kernel files
SERVER_COMMANDS = ("serve", "server")  # and for the resident server (tileforth/repl/server.py: command)
# what resident.py's scan needs to tell a file from an option's value without argparse (tests/test_resident.py
# checks them against parser()): the options that take a value, and the flags
VALUE_OPTIONS = ("-e", "--backend", "--stacks", "--steps", "--arch", "--save-view")
FLAG_OPTIONS = ("--echo", "--timing", "--no-timing", "--unchecked")


USAGE = """tileforth [options] [FILE ...] [-e SOURCE ...]
       tileforth compile FILE [-o OUT] [--arch SM] [--python OUT.py]
       tileforth run FILE [--param NAME=VALUE ...] [--grid X,Y,Z] [--block X,Y,Z] [--output-param NAME]
                          [--save NAME=FILE.npy]
       tileforth serve [--foreground]
       tileforth server [status | stop]"""

SERVER_HELP = """\
the resident server, opt-in (docs/repl.md, "The resident server"):
  serve                          start one in the background; runs go through it while it runs
  server status                  show this user's servers (exit status 1: none for this tileforth)
  server stop                    stop them (runs in progress end first)

A server is a tileforth process with Python, numpy, LLVM and tileforth loaded and warmed up. For
each run that does not open the prompt it forks a fresh copy of itself, which takes over the
command's stdin, stdout, stderr, folder, environment and signals: a short run skips most of its
start-up and prints what it would without it. It stops after 15 minutes without a run
(TILEFORTH_SERVER_IDLE, in seconds) or when a source file changes, and holds about 100 MiB until
then. Without `serve` none is started and none is left: each run is a plain process.
TILEFORTH_SERVER=1 starts one at the first run; TILEFORTH_SERVER=0 never uses one.

Fork after threads: POSIX lets a process with more than one thread fork only to exec, since
another thread may hold a lock (malloc's, a library's) that the copy never sees released. The
server forks without exec, so it keeps to one thread: numpy's BLAS threads are stopped by their
own fork handler, which the server runs once before it serves; before each fork it checks that
it has one thread, and at its start that no CUDA library is loaded (a CUDA context does not
survive a fork); otherwise it stops serving, and runs go on without it."""

EPILOG = """\
With no FILE and no -e: the prompt on a terminal, otherwise lines from stdin.

subcommands, for kernel files (\\! kernel, \\! param, \\! shared header lines, then Forth):
  compile FILE -o OUT.ptx        write the kernel's PTX (`tileforth compile --help`: its options)
  run FILE --param NAME=VALUE    run the kernel once and print its outputs (`tileforth run --help`)

""" + SERVER_HELP


def _steps(text: str) -> int:
    import argparse

    n = int(text.replace("_", ""))  # a ValueError: argparse says "invalid steps value"
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text}: give a positive number of steps, or 0 for no budget")
    return n


_steps.__name__ = "steps"


def parse_args(argv):
    return parser().parse_args(argv)


def server_args(argv):
    """`tileforth serve [--foreground]` and `tileforth server [status | stop]` (argv[0] is serve or server)."""
    import argparse

    serve = argv[0] == "serve"
    p = argparse.ArgumentParser(
        prog=f"tileforth {argv[0]}", formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=SERVER_HELP.split("\n\n", 1)[1],
        description="Start a resident server in the background (none if one is running for this tileforth) and "
                    "say which." if serve else "Show or stop this user's resident servers.")
    if serve:
        p.add_argument("--foreground", action="store_true",
                       help="serve in this process until idle (Ctrl-C or SIGTERM stops it), as "
                            "`python -m tileforth.repl.server` does")
    else:
        p.add_argument("action", nargs="?", choices=("status", "stop"), default="status",
                       help="status (the default): each server's process, socket, age and memory; stop: stop them all")
    return p.parse_args(argv[1:])


def parser():
    """The command's argument parser (argparse.ArgumentParser)."""
    import argparse

    p = argparse.ArgumentParser(
        prog="tileforth", usage=USAGE,
        description="An interactive Forth for NVIDIA GPUs (or their CPU emulation).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    from tileforth.version import __version__
    p.add_argument("--version", action="version", version=f"tileforth {__version__}")
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
                   help="the step budget: the loop iterations and calls each thread of a launch may run (and "
                        "so may its threads together, a BARRIER, tile or warp operation counting as many) "
                        "before the line is stopped as a runaway; host-level loops have the same bound "
                        "(default 67108864; 0: none, Ctrl-C still stops a line); the word SET-STEP-BUDGET sets "
                        "it from Forth (docs/repl.md, \"The step budget\")")
    p.add_argument("--save-view", dest="save_view", default=None, metavar="FILE",
                   help="at the end of the run, write SAVE-VIEW's picture to FILE (.svg or .png): the debugger's stop "
                        "while a line is debugged, else the last .TILE, .FRAG, .LANES or PROFILE view shown; a FILE "
                        "with {n} in its name (view-{n}.svg) gets each view as it is shown, numbered from 1")
    p.add_argument("--arch", default=None, metavar="SM",
                   help="GPU architecture that PTX is shown for, e.g. sm_75 sm_80 sm_90 (default: the GPU's own "
                        "on the cuda backend, else sm_80)")
    return p
