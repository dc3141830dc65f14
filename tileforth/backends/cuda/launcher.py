"""A kernel file's launcher module (`tileforth compile FILE --python out.py`): the
kernel compiled to PTX here, with the source positions of its error sites and
its ABORT" strings, and written out by tileforth/core/session/launcher.py."""
from __future__ import annotations

from tileforth.core import Forth
from tileforth.core.session.kernelfile import (
    check_names,
    declare_params_for_export,
    declare_shared,
    parse_kernel_file,
    read_body,
)
from tileforth.core.session.launcher import launcher_source

from .ptx import _compiler, kernel_file_ptx, module_to_ptx

RECURSION_MAX = 256  # the depth limit the launcher writes into the context record (as --unchecked's)


def kernel_file_launcher(text: str, arch: str = "sm_80", source: str = "<kernel>", *, unchecked: bool = False,
                         image: str | bytes | None = None, command: str = "") -> str:
    """The launcher module's text. `image`: the kernel already compiled (a cubin, or PTX), else
    the PTX is made here; unchecked: an --unchecked export (no context record to read)."""
    spec = parse_kernel_file(text, source)
    if unchecked:
        if image is None:
            image = kernel_file_ptx(text, arch, source, unchecked=True)
        return launcher_source(spec, image, context=False, command=command)
    forth = Forth()  # cpu: only its dictionary is used, nothing runs (as kernel_file_ptx)
    check_names(forth, spec)
    declare_shared(forth, spec)
    declare_params_for_export(forth, spec)
    comp = _compiler(forth, arch, checked=False)
    comp.inline_all = True
    comp.count_steps = False
    forth.compiler = comp
    nodes = read_body(forth, spec)
    km = comp.kernel_file(spec.name, nodes, spec.param_types)
    if image is None:
        image = module_to_ptx(km.module, arch, heavy=True)
    sites = [(word, pos.source if pos else "", pos.line if pos else 0, pos.col if pos else 0,
              pos.text if pos else "") for word, pos in forth.sites.entries]
    return launcher_source(spec, image, sites=sites, strings=list(forth.strings),
                           recursion_max=RECURSION_MAX, command=command)
