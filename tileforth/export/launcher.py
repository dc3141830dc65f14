"""Launchers: a kernel file as a small Python module of its own (`tileforth compile FILE --python out.py`).

    kernel_file_launcher(text, arch, ...) -> str   the module for a kernel file, compiled here
    launcher_source(spec, image, ...) -> str       the module for a kernel already compiled
    kernel_data(spec, image, ...) -> dict          the kernel's values the module is written with

The module is the code of launchrt.py (a real module of this package, tested
as one), copied out with the kernel's values in place of launchrt's block
"the kernel", a docstring of its own, and a function named after the kernel
with the kernel's parameters by name:

    saxpy(X, Y, A, N=None, *, grid=None, block=None, stream=None)

It imports numpy and, when it first launches, NVIDIA's cuda-bindings
(`cuda.bindings.driver`, the `cuda-python` package, what `cuda.core` is built
on), whatever library made the arrays. It never imports tileforth: the PTX (or
cubin), the parameters, the file's `\\! grid` and `\\! block` (the defaults), the
error messages and the source positions of the kernel's words are written into
it. Arrays are any `__cuda_array_interface__` object (CuPy, PyTorch, numba), any
DLPack object on a CUDA device, or a numpy array (copied in and back); their
element type and size are checked against the header (`f32[N]`: a float32 array
of N elements; a size parameter not given is taken from its arrays), and they
must be on one device, where the kernel runs. Scalars are checked against their
declared type's range. The launch is queued on the caller's stream (`stream=`,
else PyTorch's or CuPy's current stream) and nothing waits for the device; an
error that a checked kernel records in its context record (the entry's first
parameter) is raised as `KernelError`, with the message the REPL gives, by the
module's `check()` or by its next call once the launch completed (launchrt.py).
"""
from __future__ import annotations

import ast
import base64
import functools
import keyword
import re
import textwrap
from pathlib import Path
from typing import Any

from tileforth.core.compile import layout as L
from tileforth.core.compile.eltypes import ElType
from tileforth.core.compile.machine import DEFAULT  # kernel files are compiled for the default machine
from tileforth.core.compile.target import dynamic_shared
from tileforth.core.session.launcherrors import THROW_MEANINGS

from . import launchrt
from .kernelfile import KernelSpec, block_shared_bytes, parse_kernel_file
from tileforth.core.session.tensormap import DATA_TYPES

from .launchrt import NUMPY_TYPES

RECURSION_MAX = 256  # the depth limit the launcher writes into the context record (as --unchecked's)

# what the REPL says for each error code (launcherrors.launch_error); {where} is " in WORD" or "",
# {thr} "thread N"; the launcher fills them in
MESSAGES = {
    L.E_UNDERFLOW: "data stack underflow{where}: {thr} has too few items; push the inputs first",
    L.E_OVERFLOW: f"data stack overflow{{where}}: {{thr}} has more than {DEFAULT.ds_max} items; drop what you no "
                  "longer need",
    L.E_FUNDERFLOW: "float stack underflow{where}: {thr} has too few floats; push them first",
    L.E_FOVERFLOW: f"float stack overflow{{where}}: {{thr}} has more than {DEFAULT.fs_max} floats",
    L.E_BAD_ADDR: "bad address ${addr:x}{where} ({thr}, {aux} bytes): it is outside every allocation; use an "
                  "address from a parameter or from shared memory",
    L.E_ALIGN: "misaligned address ${addr:x}{where} ({thr}): a {aux}-byte access needs an address that is a "
               "multiple of {aux} (see ALIGNED)",
    L.E_DIV0: "division by zero{where} ({thr}); check the divisor first",
    L.E_STEPS: "{thr} ran too many loop iterations and calls{where} without finishing: the loop or recursion "
               "looks infinite",
    L.E_LAUNCH_STEPS: "the launch ran too many loop iterations{where} without finishing ({thr} was running): "
                      "the loop looks infinite",
    L.E_ABORT: "interrupted",
    L.E_BAD_XT: "EXECUTE of an execution token the device cannot run{where} ({thr}, token {aux})",
    L.E_RECURSION: "recursion deeper than {aux} calls{where} ({thr}), the limit of an exported kernel; is the "
                   "base case missing?",
    L.E_STACK: "recursion{where} used up the stack the device allows ({thr}, {aux} calls deep: its frames are "
               "large); is the base case missing? If not, keep fewer values on the stacks in each call",
}


def kernel_file_launcher(text: str, arch: str = "sm_80", source: str = "<kernel>", *, unchecked: bool = False,
                         image: str | bytes | None = None, command: str = "") -> str:
    """The launcher module's text for a kernel file. `image`: the kernel already compiled (a cubin,
    or PTX), else the PTX is made here; unchecked: an --unchecked export (no context record to read)."""
    from tileforth.backends.cuda.ptx import module_to_ptx

    from .kernels import compile_kernel_file, kernel_file_ptx

    spec = parse_kernel_file(text, source)
    if unchecked:
        if image is None:
            image = kernel_file_ptx(text, arch, source, unchecked=True)
        return launcher_source(spec, image, context=False, command=command, source_text=text)
    km, forth = compile_kernel_file(spec, arch)
    if image is None:
        image = module_to_ptx(km.module, arch, heavy=True)
    sites = [(word, pos.source if pos else "", pos.line if pos else 0, pos.col if pos else 0,
              pos.text if pos else "") for word, pos in forth.sites.entries]
    return launcher_source(spec, image, sites=sites, strings=list(forth.strings),
                           recursion_max=RECURSION_MAX, command=command, source_text=text)


def kernel_data(spec: KernelSpec, image: str | bytes, *, context: bool = True,
                sites: list[tuple[str, str, int, int, str]] | tuple = (), strings: list[str] | tuple = (),
                recursion_max: int = RECURSION_MAX, throw_meanings: dict[int, str] | None = None,
                source_text: str | None = None, shared: int | None = None) -> dict[str, Any]:
    """The values of launchrt's block "the kernel" for `spec` and its compiled `image` (PTX text,
    or cubin bytes), by name. context=False: an --unchecked export (no context parameter).
    source_text: the kernel file (the CPU fallback runs it on the emulator; None: no fallback).
    sites: (word, source, line, col, line text) for each error site the kernel may record;
    strings: ABORT" texts. shared: the bytes of shared memory a block takes (None: laid out from
    the header, block_shared_bytes); past 48 KiB the kernel's are dynamic, given at launch."""
    return {
        "KERNEL": spec.name,
        "PARAMS": [(p.name, _type(p.eltype), p.count) for p in spec.params],
        "TMAPS": [(t.name, t.array, t.box_rows, t.box_cols, t.swizzle, _map_type(spec, t.array)) for t in spec.tmaps],
        "CONTEXT": context,
        "CONTEXT_SLOTS": L.CTX_SLOTS + L.THR_SLOTS,
        "ERROR_SLOTS": (L.CTX_ERR_CODE, L.CTX_ERR_SITE, L.CTX_ERR_THREAD, L.CTX_ERR_ADDR, L.CTX_ERR_AUX),
        "RECURSION_SLOT": L.CTX_RECURSION_MAX,
        "RECURSION_MAX": recursion_max,
        "E_THROW": L.E_THROW,
        "MESSAGES": dict(MESSAGES),
        "THROW_MEANINGS": dict(THROW_MEANINGS if throw_meanings is None else throw_meanings),
        "SITES": list(sites),
        "STRINGS": list(strings),
        "SHARED_BYTES": dynamic_shared(block_shared_bytes(spec) if shared is None else shared),
        "GRID": tuple(spec.grid) if spec.grid else None,
        "BLOCK": tuple(spec.block) if spec.block else None,
        "SOURCE": source_text,
        "SOURCE_NAME": spec.source,
        "IMAGE_KIND": "cubin" if isinstance(image, bytes) else "ptx",
        "IMAGE": image,
    }


def launcher_source(spec: KernelSpec, image: str | bytes, *, context: bool = True,
                    sites: list[tuple[str, str, int, int, str]] | tuple = (), strings: list[str] | tuple = (),
                    recursion_max: int = RECURSION_MAX, throw_meanings: dict[int, str] | None = None,
                    command: str = "", source_text: str | None = None) -> str:
    """The launcher module for `spec` and its compiled `image` (PTX text, or cubin bytes): launchrt's
    code with kernel_data's values (the arguments are kernel_data's), a docstring, and the kernel's
    function."""
    data = kernel_data(spec, image, context=context, sites=sites, strings=strings, recursion_max=recursion_max,
                       throw_meanings=throw_meanings, source_text=source_text)
    head, block, tail = _runtime_parts()
    if data["IMAGE_KIND"] == "cubin":  # the image is written as base64.b64decode(...)
        head = head.replace("import ctypes\n", "import base64\nimport ctypes\n", 1)
    lines = []
    for line in block.splitlines():
        m = _ASSIGNMENT.match(line)
        if m is None:  # the block's marker lines
            lines.append(line)
            continue
        name, annotation, comment = m.group("name"), m.group("annotation") or "", m.group("comment") or ""
        lines.append(f"{name}{annotation} = {_literal(name, data.pop(name))}{comment}")
    if data:
        raise AssertionError(f"launchrt.py's block \"the kernel\" has no line for {', '.join(data)}")
    made_by = command or f"tileforth compile {spec.source} --python"
    return f"{_docstring(spec, context, made_by)}\n{head}" + "\n".join(lines) + f"\n{tail}\n\n\n{_signature(spec)}\n"


BLOCK_START = "# ---- the kernel: its values"
BLOCK_END = "# ---- end of the kernel ----"
# a line of the block: NAME[: annotation] = default  [# comment]
_ASSIGNMENT = re.compile(r"(?P<name>[A-Z_][A-Z0-9_]*)(?P<annotation>: [^=]+?)? = .*?(?P<comment>  # .*)?\Z")


@functools.cache
def _runtime_parts() -> tuple[str, str, str]:
    """launchrt.py's source without its docstring, in three: what comes before the block "the
    kernel", the block (its marker lines included), and what comes after it."""
    source = Path(launchrt.__file__).read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    doc = ast.parse(source).body[0]
    rest = "".join(lines[doc.end_lineno:])
    start, end = rest.index(BLOCK_START), rest.index(BLOCK_END) + len(BLOCK_END) + 1
    return rest[:start], rest[start:end].rstrip("\n"), rest[end:].rstrip("\n")


def _literal(name: str, value: Any) -> str:
    """A value as Python source: the image as base64 (a cubin) or a raw string (PTX), the rest as repr."""
    if name != "IMAGE":
        return repr(value)
    if isinstance(value, bytes):
        return f"base64.b64decode({_wrapped(base64.b64encode(value).decode())})"
    return "r'''" + value.replace("'''", "' ''") + "'''"


def _map_type(spec: KernelSpec, array: str) -> int:
    """The CUtensorMapDataType of a tensor map of the array parameter `array`."""
    p = spec.param(array)
    assert p is not None  # parse_kernel_file checked it
    return DATA_TYPES[p.eltype.name]


def _type(et: ElType) -> str:
    return et.name.lower()


def _wrapped(b64: str) -> str:
    lines = textwrap.wrap(b64, 100)
    return "(\n" + "\n".join(f"    {line!r}" for line in lines) + ")"


def _describe(spec: KernelSpec) -> list[str]:
    out = []
    for p in spec.params:
        t = _type(p.eltype)
        if p.count is None:
            out.append(f"    {p.name}: {t} scalar")
        else:
            dims = ",".join(map(str, p.dims))
            what = f"{p.count} elements" if len(p.dims) == 1 else f"{' x '.join(map(str, p.dims))}, row-major"
            out.append(f"    {p.name}: {t}[{dims}] array ({NUMPY_TYPES[t]}, {what})")
    for tm in spec.tmaps:
        out.append(f"    ({tm.name}: a tensor map of {tm.array}, {tm.box_rows} x {tm.box_cols} boxes, made for each "
                   "call)")
    return out


def _docstring(spec: KernelSpec, context: bool, made_by: str) -> str:
    lines = [f"Launcher for kernel {spec.name} (written by `{made_by}`; do not edit).", "",
             f"    {_call(spec)}", "", *_describe(spec), "",
             "Arrays: any __cuda_array_interface__ or DLPack object on a CUDA device (CuPy, PyTorch, numba),",
             "or a numpy array (copied to the device and back), all on one device. A size parameter left out",
             "is taken from its arrays. grid and block default to the file's \\! grid and \\! block, else one",
             "thread per element of the first array, 256 to a block. The launch is queued on `stream`, else",
             "PyTorch's or CuPy's current stream, and the call does not wait for the device (but for a numpy",
             "array's results). It runs on NVIDIA's cuda-bindings (pip install cuda-python). Without a GPU",
             "(or with device=\"cpu\") it runs the kernel on tileforth's emulator, checked, over numpy arrays."]
    if context:
        lines.append("An error the kernel records (its context record) is raised as KernelError by check(),")
        lines.append("or by the next call once the launch has completed.")
    else:
        lines.append("An --unchecked export: an error ends its thread and is not reported.")
    return '"""' + "\n".join(lines).replace('"""', "'''").replace("\\", "\\\\") + '\n"""'


def _py_name(name: str) -> str | None:
    if name.isidentifier() and not keyword.iskeyword(name) and name not in _RESERVED:
        return name
    return None


_RESERVED = {"grid", "block", "stream", "device", "np", "KERNEL", "PARAMS"}


def _sizes(spec: KernelSpec) -> set[str]:
    """The size parameters (names in the arrays' dimensions): each may be left to its arrays."""
    return {d.upper() for p in spec.params for d in p.dims if isinstance(d, str)}


def _defaults(names: list[str], sizes: set[str]) -> list[str]:
    """`NAME=None` for a size parameter and for every parameter after one (Python's rule; a missing
    array is reported by the launch)."""
    first = next((i for i, n in enumerate(names) if n.upper() in sizes), len(names))
    return [n + ("=None" if i >= first else "") for i, n in enumerate(names)]


def _call(spec: KernelSpec) -> str:
    args = _defaults([p.name for p in spec.params], _sizes(spec))
    return f"{spec.name}({', '.join(args + ['*', 'grid=None', 'block=None', 'stream=None', 'device=None'])})"


def _signature(spec: KernelSpec) -> str:
    names = [_py_name(p.name) for p in spec.params]
    fname = spec.name if _py_name(spec.name) and not spec.name.startswith("_") else "kernel"
    if all(names) and len({n.lower() for n in names}) == len(names):
        args = _defaults([n for n in names if n], _sizes(spec))
        head = ", ".join(args + ["*", "grid=None", "block=None", "stream=None", "device=None"])
        body = f"    return _launch(({', '.join(names)},), grid, block, stream, device)"
    else:  # names that are not Python identifiers: by position, or as keywords through **values
        head = "*args, grid=None, block=None, stream=None, device=None, **values"
        body = "    return _launch(_bind(args, values), grid, block, stream, device)"
    text = f"def {fname}({head}):\n    {_call(spec)!r}\n{body}\n"
    if fname != spec.name:
        text += f"\n\nglobals()[{spec.name!r}] = {fname}\n"
    return text


