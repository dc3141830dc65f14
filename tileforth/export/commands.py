"""`tileforth compile` and `tileforth run`: a kernel file to PTX, a cubin or a launcher module, or
one launch of it on a backend (docs/kernel-files.md).

    tileforth compile K.fth -o k.ptx --arch sm_80     a kernel file to PTX (--cubin, --python, --unchecked)
    tileforth run K.fth --param X=1,2,3 --grid 1,1,1 --block 32,1,1 --output-param X

The command's front end (tileforth/repl/cli.py) hands the arguments here with a
`Console`: how text reaches the terminal. This package imports nothing of the
front end, so the arrows run one way: repl -> export -> core and the nvptx
target.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Protocol

from tileforth.core.errors import ForthError

from .kernelfile import SUMMARY_ELEMENTS


class Console(Protocol):
    """What the commands need of the terminal."""

    def read(self, name: str) -> str | None:
        """The file's text, or None after saying why it cannot be read (missing, not UTF-8)."""

    def output(self, text: str) -> None:
        """What the kernel printed, on stdout."""

    def fatal(self, message: str) -> None:
        """`tileforth: message` on stderr (a file that cannot be written, no backend)."""

    def error(self, err: ForthError, where: str) -> None:
        """An error in the kernel file or its parameters, at `where` ("file:line" or "file")."""


def kernel_args(argv: list[str]) -> argparse.Namespace:
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


def _triple(text: str) -> tuple[int, ...]:
    try:
        parts = [int(t) for t in text.replace("x", ",").split(",") if t.strip()]
    except ValueError:
        parts = []
    if not 1 <= len(parts) <= 3 or min(parts) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: write X,Y,Z with positive numbers, e.g. 64,1,1")
    return tuple(parts + [1] * (3 - len(parts)))


def kernel_command(argv: list[str], console: Console) -> int:
    """`tileforth compile ...` or `tileforth run ...` (argv starts with the subcommand): the exit status."""
    args = kernel_args(argv)
    text = console.read(args.file)
    if text is None:
        return 2
    try:
        if args.command == "compile":
            return _compile(args, text, console)
        return _run(args, text, console)
    except ForthError as err:
        console.output(err.output)
        console.error(err, f"{args.file}:{err.line}" if err.line else args.file)
        return 1


def _compile(args: argparse.Namespace, text: str, console: Console) -> int:
    from tileforth.backends.cuda.ptx import assemble

    from .kernels import kernel_file_ptx

    if args.python:
        status = _write_launcher(args, text, console)
        if status or args.out == "-":  # --python without -o: only the module
            return status
    ptx = kernel_file_ptx(text, args.arch, args.file, unchecked=args.unchecked)
    out: str | bytes = ptx
    if args.cubin or args.verbose:
        cubin, info = assemble(ptx, args.arch)
        if args.verbose:
            from tileforth.core.compile.target import dynamic_shared

            from .kernelfile import block_shared_bytes, parse_kernel_file

            dynamic = dynamic_shared(block_shared_bytes(parse_kernel_file(text, args.file)))
            for item in info.values():
                extra = f", {dynamic} bytes dynamic shared memory (given at launch)" if dynamic else ""
                print(f"{args.file}: {args.arch}: {item.summary()}{extra}", file=sys.stderr, flush=True)
        if args.cubin:
            out = cubin
            if args.out == "-":  # a cubin is binary: never to the terminal
                args.out = os.path.splitext(os.path.basename(args.file))[0] + ".cubin"
    if args.out == "-":
        sys.stdout.write(ptx)
        return 0
    try:
        if isinstance(out, bytes):
            with open(args.out, "wb") as fh:
                fh.write(out)
        else:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(out)
    except OSError as e:
        console.fatal(f"error: cannot write {args.out}: {e.strerror or e}; check that its folder exists "
                      "and is writable")
        return 2
    return 0


def _write_launcher(args: argparse.Namespace, text: str, console: Console) -> int:
    from tileforth.backends.cuda.ptx import assemble

    from .kernels import kernel_file_ptx
    from .launcher import kernel_file_launcher

    image = None
    if args.cubin:  # the module carries the cubin instead of the PTX
        image, _ = assemble(kernel_file_ptx(text, args.arch, args.file, unchecked=args.unchecked), args.arch)
    source = kernel_file_launcher(text, args.arch, args.file, unchecked=args.unchecked, image=image,
                                  command=f"tileforth compile {args.file} --python {args.python}")
    try:
        with open(args.python, "w", encoding="utf-8") as fh:
            fh.write(source)
    except OSError as e:
        console.fatal(f"error: cannot write {args.python}: {e.strerror or e}; check that its folder exists "
                      "and is writable")
        return 2
    return 0


def _check_body(spec) -> None:
    """Read the kernel file's body in a scratch session, each parameter a constant (nothing runs):
    its first error, if it has one."""
    from tileforth.core import Forth

    from tileforth.core.front.dictionary import Constant

    from .kernelfile import check_names, declare_shared, read_body

    scratch = Forth(backend="cpu")
    try:
        check_names(scratch, spec)
        declare_shared(scratch, spec)
        for p in spec.params:  # any value: the body is only read (run_kernel_file gives the real ones)
            scratch.dict[p.name.upper()] = Constant(p.name, 0.0 if p.kind == "float" else 0,
                                                    is_float=p.kind == "float")
        read_body(scratch, spec)
    finally:
        scratch.close()


def _run(args: argparse.Namespace, text: str, console: Console) -> int:
    import ml_dtypes
    import numpy as np

    from tileforth.core import Forth

    from .kernelfile import format_array, parse_kernel_file, parse_param_values, run_kernel_file

    spec = parse_kernel_file(text, args.file)
    try:
        values = parse_param_values(spec, args.param)
    except ForthError:  # the file's own errors come first, as when the values are right
        _check_body(spec)
        raise
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
        console.fatal(f"error: cannot start the {args.backend} backend: {e}")
        return 2
    out = run_kernel_file(forth, spec, values, args.grid, args.block, cli=True)
    console.output(out)
    for name, p in outputs:  # the name as the user wrote it
        print(format_array(name, forth.array(p.name), summary=SUMMARY_ELEMENTS), flush=True)
    for name, p, path in saves:
        arr = forth.array(p.name)
        if arr.dtype == np.dtype(ml_dtypes.bfloat16):
            arr = arr.astype(np.float32)  # as SAVE-NPY: numpy's own files have no bf16
        try:
            np.save(path, arr, allow_pickle=False)
        except OSError as e:
            console.fatal(f"error: cannot write {path}: {e.strerror or e}; check that its folder exists and is "
                          "writable")
            return 2
    return 0
