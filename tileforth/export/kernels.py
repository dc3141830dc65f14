"""A session's code as PTX kernels: a colon definition (word_ptx), a kernel
file (kernel_file_ptx), or one segment of a REPL line as the cuda backend runs
it (segment_ptx).

This module is the client of both sides: of the session (its dictionary,
sites, strings, data space and memory) and of the nvptx target
(tileforth/backends/cuda/ptx.py: the target machine, O3 and libdevice,
module_to_ptx), which knows nothing of a session.

Two cost levels (anchors.md: NVPTX codegen at opt 3 grows superlinearly with
kernel length): REPL lines use a cheap code generator; exported kernels and
benchmarks get the full O3 pipeline and opt-3 code generation.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tileforth.backends.cuda.ptx import module_to_ptx, target_machine
from tileforth.backends.cuda.target import NvptxTarget
from tileforth.core.compile.compiler import Compiler, KernelModule
from tileforth.core.compile.machine import DEFAULT
from tileforth.core.errors import ForthError
from tileforth.core.front.dictionary import Colon
from tileforth.core.front.linekey import line_shape
from tileforth.core.records import replace
from tileforth.core.session.words.arrays import export_memory

from .kernelfile import (
    KernelSpec,
    check_names,
    declare_params_for_export,
    declare_shared,
    parse_kernel_file,
    read_body,
)

if TYPE_CHECKING:
    import llvmlite.binding as llvm

    from tileforth.core.session.interpreter import Forth


def nvptx_compiler(forth: Forth, arch: str, *, checked: bool, context: bool = True,
                   export: bool = False) -> Compiler:
    """A compiler for the nvptx target `arch` over the session's sites, strings,
    data space and execution tokens. context=False: an --unchecked export (no
    context parameter). export=True: an exported kernel (every word inlined,
    no step counting)."""
    tm = target_machine(arch, 3)
    # the session's float type; an exported kernel's stacks are private arrays of the default depth
    machine = replace(forth.machine, ds_max=DEFAULT.ds_max, fs_max=DEFAULT.fs_max)
    target = NvptxTarget(arch, str(tm.target_data), machine)
    target.shared_bytes = forth.shared_bytes
    target.context = context
    comp = Compiler(target, forth.sites, forth.strings, checked, lambda: forth.base_addr, forth.tokens.table)
    if export:
        comp.inline_all = True
        comp.count_steps = False
    return comp


def word_ptx(forth: Forth, name: str, arch: str = "sm_80", heavy: bool = True, unchecked: bool = False) -> str:
    """The PTX of a word launched as a kernel: its inputs, then the arrays it
    names, then `out`/`fout` for its results are parameters (Compiler.export).
    heavy=False: the REPL's cheaper code generation (opt 1), for quick looks.
    unchecked=True: no context parameter (docs/kernel-files.md, "The ABI")."""
    word = forth.dict.get(name.upper())
    if not isinstance(word, Colon):
        raise ForthError(f"{name} is not a colon definition: only words defined with : can be kernels")
    comp = nvptx_compiler(forth, arch, checked=False, context=not unchecked, export=True)
    km = comp.export(word, kernel_name(word.name), export_memory(forth))  # portable: arrays and results are parameters
    return module_to_ptx(without_context(km.module) if unchecked else km.module, arch, heavy=heavy)


def compile_kernel_file(spec: KernelSpec, arch: str = "sm_80", *,
                        unchecked: bool = False) -> tuple[KernelModule, Forth]:
    """A kernel file's kernel module for `arch`, and the session that read its
    body (its sites and strings name the kernel's error sites and ABORT" texts).
    The body is read with this target's compiler, so its definitions are
    checked for it at `;`."""
    from tileforth.core import Forth

    forth = Forth()  # cpu: only its dictionary is used, nothing runs
    check_names(forth, spec)
    declare_shared(forth, spec)
    declare_params_for_export(forth, spec)
    comp = nvptx_compiler(forth, arch, checked=False, context=not unchecked, export=True)
    comp.target.entry_block = spec.block  # type: ignore[attr-defined]  # the NvptxTarget's: `\\! block`, the entry's .maxntid
    forth.compiler = comp  # the body's definitions are compiled for this target at `;`
    nodes = read_body(forth, spec)
    return comp.kernel_file(spec.name, nodes, spec.param_types), forth


def kernel_file_ptx(text: str, arch: str = "sm_80", source: str = "<kernel>", unchecked: bool = False) -> str:
    """The PTX of a kernel file (tileforth/export/kernelfile.py): `.entry NAME` with a
    context pointer, then the parameters in header order (arrays .u64
    pointers, scalars with their declared type: i32 is .u32, f32 .f32).
    unchecked=True: no context pointer, only the parameters; the kernel never
    touches a context (an error ends the thread, output is dropped)."""
    km, _ = compile_kernel_file(parse_kernel_file(text, source), arch, unchecked=unchecked)
    return module_to_ptx(without_context(km.module) if unchecked else km.module, arch, heavy=True)


def segment_ptx(forth: Forth, nodes: list, tiles: list, arch: str = "sm_80", heavy: bool = False) -> str:
    """The PTX the cuda backend runs for one segment of a REPL line (stacks in the state buffer, literals in
    the launch's table: linekey.py)."""
    _, block = forth.launch_shape
    km = nvptx_compiler(forth, arch, checked=True).kernel(nodes, tiles, block=block, line=line_shape(nodes))
    return module_to_ptx(km.module, arch, heavy=heavy or km.heavy)


# an --unchecked export's runtime helpers: its context record is private to each thread (target.py,
# `context`), so recording an error or output there would be lost work; these bodies do nothing
_UNCHECKED_HELPERS = {"tf_fail": "ret void", "tf_out": "ret void", "tf_poll": "ret i1 1",
                      "tf_addr_scan": "ret { i64, i64 } zeroinitializer"}


def without_context(module: llvm.ModuleRef) -> str:
    """The module's IR with the helpers that write the context record (errors,
    output, the step pool) emptied: an error ends the thread, output is
    dropped, and O3 removes the private record, which nothing reads any more
    (but a recursive word's depth counter)."""
    text = str(module)
    for name, body in _UNCHECKED_HELPERS.items():
        text, _ = re.subn(rf"^(define [^\n]*@{name}\([^\n]*\{{)\n.*?^}}\n", rf"\1\n  {body}\n}}\n", text,
                          count=1, flags=re.M | re.S)
    return text


def kernel_name(name: str) -> str:
    """A word's name as a PTX identifier: other characters become `_`, and a name
    that does not start with a letter or `_` gets `k_` in front."""
    clean = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return clean if clean[:1].isalpha() or clean[:1] == "_" else "k_" + clean
