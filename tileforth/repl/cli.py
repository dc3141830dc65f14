"""The `tileforth` command.

    tileforth                      interactive prompt (stdin a terminal)
    tileforth FILE...              run the files line by line, then exit
    tileforth -e '2 3 + .'         run source given on the command line
    tileforth -i FILE...           run the files, then the prompt
    tileforth --echo FILE          each line as typed at the prompt (`> line`), then its output
    echo '2 3 +' | tileforth       read lines from stdin, like the prompt
    tileforth compile K.fth -o k.ptx --arch sm_80     a kernel file to PTX
    tileforth run K.fth --param X=1,2,3 --grid 1,1,1 --block 32,1,1 --output-param X
                                   one launch of a kernel file, on either backend

Files run first, then each -e source, in order.  In a file or -e source an
error is printed as ``file:line:col: error: ...`` and the run stops with
exit status 1.  Reading stdin or at the prompt, an error is printed and the
session goes on; stdin's exit status is then 1 if any line failed.
"""

from __future__ import annotations

import argparse
import gc
import os
import signal
import socket
import sys
import threading
from contextlib import contextmanager
from typing import Iterable

from tileforth.core.session.syswords import set_step_budget

from .args import KERNEL_COMMANDS, SERVER_COMMANDS, parse_args
from .display import Display
from .session import ABORT_REPEAT_S, Bye, Session


def run_lines(session: Session, display: Display, lines: Iterable[str], *,
              stop_on_error: bool, stacks: str, echo: bool = False) -> int:
    """Run lines; return 0, or 1 after a failed line.  `echo`: print each
    line first, as typed at the prompt (`> line`; a blank line as it is)."""
    status = 0
    for lineno, text in enumerate(lines, start=1):
        text = text.rstrip("\r\n")
        if echo:
            display.echo(text)
        result = session.run_line(text, lineno)  # BYE raises Bye: main ends the run
        display.output(result.output)
        for note in result.warnings:
            display.note(note)
        if result.error is not None:
            display.forget_stacks_shown()
            display.error(result)
            status = 2 if result.internal else 1
            if stop_on_error:
                return status
            continue
        if stacks == "each" and not session.compiling:
            display.stacks_after(session.forth, result.output)  # not twice after a `.S`
        else:
            display.forget_stacks_shown()
    if session.compiling:
        display.fatal(f"error: {session.source} ended inside a colon definition (missing ;)")
        return 1
    return status


def _stacks_empty(forth) -> bool:
    try:
        tiles = forth.tile_stack(0)
    except Exception:  # a backend without tiles
        tiles = []
    return not any(forth.data_stack(lane=None)) and not any(forth.float_stack(lane=None)) and not tiles


def main(argv=None) -> int:
    for name in ("stdout", "stderr"):  # started without one (`tileforth ... >&-`): Python makes it None;
        if getattr(sys, name) is None:  # it writes nowhere, as print does and gforth does
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))
    try:
        return _main(argv)
    except BrokenPipeError:
        return _quiet_broken_pipe()


def _main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in KERNEL_COMMANDS:
        return kernel_command(argv)
    if argv and argv[0] in SERVER_COMMANDS:  # tileforth serve, tileforth server status|stop
        from .serverctl import command

        return command(argv)
    args = parse_args(argv)
    display = Display.standard()
    try:
        session = Session.start(args.backend, checked=not args.unchecked, arch=args.arch)
    except Exception as e:  # no GPU for --backend cuda, or a broken install
        display.fatal(f"error: cannot start the {args.backend} backend: {e}")
        return 2
    display.attach(session.forth)  # inspection views (.S .TILE .FRAG …) for this terminal
    if args.steps is not None:
        set_step_budget(session.forth, args.steps)

    try:
        with ctrl_c_stops_lines(session.forth):
            status = _batch(args, session, display)
        if status is not None:
            return status
        if sys.stdin.isatty() and sys.stdout.isatty():
            from .prompt import interact

            return interact(session, display, timing=args.timing)

        session.set_source("<stdin>")
        with ctrl_c_stops_lines(session.forth):
            return run_lines(session, display, sys.stdin, stop_on_error=False,
                             stacks=args.stacks or "each", echo=args.echo)
    except Bye as bye:
        sys.stdout.write(bye.output)  # what the line printed before BYE
        return 0
    except KeyboardInterrupt:
        return 130
    finally:  # open files closed, UPDATEd blocks written back (gforth's BYE saves them too)
        session.forth.close()


def _batch(args, session: Session, display: Display) -> int | None:
    """The files and -e sources: their exit status, or None to go on to the prompt or stdin (-i)."""
    if not (args.files or args.sources):
        return None
    stacks = args.stacks or "end"
    batch = [(name, _read(name, display)) for name in args.files]
    if any(lines is None for _, lines in batch):
        return 2
    batch += [("-e" if len(args.sources) == 1 else f"-e#{i}", src.splitlines())
              for i, src in enumerate(args.sources, 1)]
    for name, lines in batch:
        session.set_source(name)
        status = run_lines(session, display, lines, stop_on_error=True,
                           stacks="none" if stacks == "end" else stacks, echo=args.echo)
        if status and not args.interactive:
            return status
        if status:  # -i: the session is intact; go to the prompt
            break
    if stacks == "end" and not _stacks_empty(session.forth):
        display.stacks(session.forth)
    return None if args.interactive else 0


@contextmanager
def ctrl_c_stops_lines(forth):
    """Ctrl-C (SIGINT) stops a running line outside the prompt too: a kernel runs in a foreign
    call, where Python's own handler waits for it to return. The signal's byte, written to a
    wake-up socket by the C handler, makes a thread ask the backend to abort (every ABORT_REPEAT_S,
    until the run is over); the handler's KeyboardInterrupt then ends the run (exit status 130)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield  # not the main thread, or SIGINT ignored (a background job) or handled by the caller
        return
    wake_r, wake_w = socket.socketpair()
    wake_w.setblocking(False)
    previous = signal.set_wakeup_fd(wake_w.fileno(), warn_on_full_buffer=False)

    def watch() -> None:
        interrupted = False
        while True:
            try:
                data = wake_r.recv(64)
            except TimeoutError:
                data = None
            except OSError:
                return
            if data == b"":  # the run is over
                return
            if data and signal.SIGINT in data:
                interrupted = True
                wake_r.settimeout(ABORT_REPEAT_S)
            if interrupted:
                forth.backend.abort()

    watcher = threading.Thread(target=watch, name="tileforth-ctrl-c", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        wake_w.close()
        watcher.join()
        wake_r.close()
        forth.backend.reset_abort()


def read_source(name: str, display: Display) -> str | None:
    """A script or kernel file's text; None after printing why it cannot be
    read (missing, unreadable, or not UTF-8: the first bad byte's place)."""
    try:
        with open(name, "rb") as fh:
            data = fh.read()
    except OSError as e:
        display.fatal(f"error: cannot read {name}: {e.strerror or e}")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        display.out.flush()
        display.err_console.print(f"{name}:{line}:{col}: error: byte 0x{data[e.start]:02x} is not UTF-8 text; "
                                  "save the file as UTF-8", style="bold red", markup=False)
        display.err.flush()
        return None


def _read(name: str, display: Display) -> list[str] | None:
    text = read_source(name, display)
    if text is None:
        return None
    from tileforth.core.session.kernelfile import is_kernel_file

    if is_kernel_file(text):
        display.fatal(f"error: {name} is a kernel file (\\! header lines): run it with `tileforth run {name} "
                      f"--param NAME=...` or compile it with `tileforth compile {name} -o out.ptx`")
        return None
    return text.splitlines()


# ---- kernel files: `tileforth compile` and `tileforth run` -----------------------------------
SUMMARY_ELEMENTS = 256  # kernelfile.SUMMARY_ELEMENTS: larger arrays print summarised


def kernel_args(argv):
    p = argparse.ArgumentParser(prog="tileforth", description="Kernel files (\\! kernel, \\! param, "
                                "\\! shared header lines, then Forth): compile to PTX or run once.")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("compile", help="write the kernel's PTX")
    c.add_argument("file", metavar="FILE")
    c.add_argument("-o", dest="out", default="-", metavar="OUT", help="the PTX file (default -: stdout)")
    c.add_argument("--arch", default="sm_80", help="GPU architecture: sm_75 sm_80 sm_86 sm_89 sm_90 "
                   "(default sm_80)")
    c.add_argument("--python", default=None, metavar="OUT.py",
                   help="also write a Python module that launches the kernel with CuPy, PyCUDA or cuda-python "
                        "(whichever is installed): a function with the kernel's parameters by name, taking CuPy "
                        "arrays, PyTorch tensors or any __cuda_array_interface__/DLPack object (without -o, only "
                        "the module is written)")
    c.add_argument("--unchecked", action="store_true",
                   help="no context parameter: the entry takes only the kernel's parameters and never touches a "
                        "context record (an error ends the thread, output is dropped), so any CUDA host code can "
                        "launch it as is (docs/kernel-files.md, \"The ABI\")")
    c.add_argument("--cubin", action="store_true",
                   help="write a cubin for --arch (ptxas from the nvidia-cuda-nvcc wheel) instead of PTX: to -o, "
                        "or FILE's name with .cubin in the current folder")
    c.add_argument("--verbose", action="store_true",
                   help="print each kernel's registers, stack frame, spills and shared memory (ptxas -v) on stderr")
    r = sub.add_parser("run", help="run the kernel once and print the outputs")
    r.add_argument("file", metavar="FILE")
    r.add_argument("--backend", choices=("cpu", "cuda", "auto"), default="auto",
                   help="cpu emulator, cuda GPU, or auto (cuda if present)")
    r.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="a parameter: NAME=v1,v2,... or NAME=@file.npy (arrays; missing values are 0), "
                        "NAME=value (scalars)")
    r.add_argument("--grid", type=_triple, default=None, metavar="X,Y,Z",
                   help="blocks (default: the file's \\! grid, else 1,1,1)")
    r.add_argument("--block", type=_triple, default=None, metavar="X,Y,Z",
                   help="threads per block (default: the file's \\! block, else 32,1,1)")
    r.add_argument("--output-param", action="append", default=[], metavar="NAME",
                   help="print this array after the run (may be repeated); an array of more than "
                        f"{SUMMARY_ELEMENTS} elements prints its first and last values (--save writes them all)")
    r.add_argument("--save", action="append", default=[], metavar="NAME=FILE.npy",
                   help="write this array to a .npy file after the run (may be repeated; bf16 as f32)")
    return p.parse_args(argv)


def _triple(text: str) -> tuple[int, int, int]:
    try:
        parts = [int(t) for t in text.replace("x", ",").split(",") if t.strip()]
    except ValueError:
        parts = []
    if not 1 <= len(parts) <= 3 or min(parts) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: write X,Y,Z with positive numbers, e.g. 64,1,1")
    return tuple(parts + [1] * (3 - len(parts)))


def kernel_command(argv) -> int:
    from tileforth.core import ForthError

    from .session import LineResult

    args = kernel_args(argv)
    display = Display.standard()
    text = read_source(args.file, display)
    if text is None:
        return 2
    try:
        if args.command == "compile":
            return _compile(args, text, display)
        return _run(args, text, display)
    except ForthError as err:
        display.output(err.output)
        where = f"{args.file}:{err.line}" if err.line else args.file
        display.error(LineResult(error=err, where=where, source_line=err.source_line))
        return 1


def _compile(args, text: str, display: Display) -> int:
    from tileforth.backends.cuda.ptx import kernel_file_ptx

    if args.python:
        status = _write_launcher(args, text, display)
        if status or args.out == "-":  # --python without -o: only the module
            return status
    ptx = kernel_file_ptx(text, args.arch, args.file, unchecked=args.unchecked)
    out: str | bytes = ptx
    if args.cubin or args.verbose:
        from tileforth.backends.cuda.ptx import assemble

        cubin, info = assemble(ptx, args.arch)
        if args.verbose:
            for item in info.values():
                print(f"{args.file}: {args.arch}: {item.summary()}", file=sys.stderr, flush=True)
        if args.cubin:
            out = cubin
            if args.out == "-":  # a cubin is binary: never to the terminal
                args.out = os.path.splitext(os.path.basename(args.file))[0] + ".cubin"
    if args.out == "-":
        sys.stdout.write(ptx)
        return 0
    try:
        with open(args.out, "wb" if isinstance(out, bytes) else "w", **({} if isinstance(out, bytes) else
                                                                         {"encoding": "utf-8"})) as fh:
            fh.write(out)
    except OSError as e:
        display.fatal(f"error: cannot write {args.out}: {e.strerror or e}; check that its folder exists "
                      "and is writable")
        return 2
    return 0


def _write_launcher(args, text: str, display: Display) -> int:
    from tileforth.backends.cuda.launcher import kernel_file_launcher

    image = None
    if args.cubin:  # the module carries the cubin instead of the PTX
        from tileforth.backends.cuda.ptx import assemble, kernel_file_ptx

        image, _ = assemble(kernel_file_ptx(text, args.arch, args.file, unchecked=args.unchecked), args.arch)
    source = kernel_file_launcher(text, args.arch, args.file, unchecked=args.unchecked, image=image,
                                  command=f"tileforth compile {args.file} --python {args.python}")
    try:
        with open(args.python, "w", encoding="utf-8") as fh:
            fh.write(source)
    except OSError as e:
        display.fatal(f"error: cannot write {args.python}: {e.strerror or e}; check that its folder exists "
                      "and is writable")
        return 2
    return 0


def _run(args, text: str, display: Display) -> int:
    import ml_dtypes
    import numpy as np
    from tileforth.core import Forth, ForthError
    from tileforth.core.session.kernelfile import (
        format_array,
        parse_kernel_file,
        parse_param_values,
        run_kernel_file,
    )

    spec = parse_kernel_file(text, args.file)
    values = parse_param_values(spec, args.param)
    arrays = ", ".join(q.name for q in spec.params if q.count is not None) or "none"

    def array_param(option: str, name: str):
        p = spec.param(name)
        if p is None or p.count is None:
            raise ForthError(f"{option} {name}: not an array parameter of kernel {spec.name} (its arrays: {arrays})")
        return p

    outputs = [(n.strip(), array_param("--output-param", n.strip()))
               for arg in args.output_param for n in arg.split(",") if n.strip()]
    saves = []
    for arg in args.save:
        name, eq, path = arg.partition("=")
        if not eq or not name.strip() or not path.strip():
            raise ForthError(f"--save {arg!r}: write NAME=FILE.npy, e.g. --save Y=y.npy")
        saves.append((name.strip(), array_param("--save", name.strip()), path.strip()))
    try:
        forth = Forth(backend=args.backend)
    except Exception as e:  # no GPU for --backend cuda, or a broken install
        display.fatal(f"error: cannot start the {args.backend} backend: {e}")
        return 2
    out = run_kernel_file(forth, spec, values, args.grid, args.block, cli=True)
    display.output(out)
    for name, p in outputs:  # the name as the user wrote it
        print(format_array(name, forth.array(p.name), summary=SUMMARY_ELEMENTS), flush=True)
    for name, p, path in saves:
        arr = forth.array(p.name)
        if arr.dtype == np.dtype(ml_dtypes.bfloat16):
            arr = arr.astype(np.float32)  # as SAVE-NPY: numpy's own files have no bf16
        try:
            np.save(path, arr, allow_pickle=False)
        except OSError as e:
            display.fatal(f"error: cannot write {path}: {e.strerror or e}; check that its folder exists and is "
                          "writable")
            return 2
    return 0


def _quiet_broken_pipe() -> int:
    """stdout's reader went away (`tileforth run ... | head`): stop quietly,
    as a command killed by SIGPIPE would, with nothing more written to it."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # a stdout without a file descriptor
        pass
    return 141  # 128 + SIGPIPE, what a shell reports for such a command


def entry() -> None:
    """The `tileforth` command (and `python -m tileforth.repl.cli`): main, then the exit. Before it,
    what the process made is frozen (gc.freeze): the interpreter's shutdown would otherwise walk all
    of it in a last collection (~30 ms of `tileforth -e`) for memory the exit gives back anyway.
    Code that calls main() itself (tests, a notebook) is not frozen."""
    status = main()
    gc.freeze()
    sys.exit(status)


if __name__ == "__main__":
    entry()
