"""tileforth: an interactive Forth for NVIDIA GPUs.

The code lives in the subpackages, each the folder of its name:
tileforth.core, tileforth.backends, tileforth.export and tileforth.repl.  This package only makes
`%load_ext tileforth` work in IPython and Jupyter: the `%%forth` cell magic
and `f = %forth_session` (tileforth/repl/notebook.py).  IPython is imported only when
the extension is loaded.

It also fills the table of backends and exporters (registry.py) before any
subpackage loads: the built-in backends register themselves in
tileforth/backends/__init__.py, the exporters below. Neither imports more
than that table until a session asks for a backend or an export.
"""
from importlib import import_module

from .version import __version__  # noqa: F401 - the package's version (tileforth/version.py)

from . import backends  # noqa: F401 - registers the built-in backends
from .registry import register_exporter


def _loader(module: str, name: str):
    return lambda: getattr(import_module(module), name)


register_exporter("word_ptx", _loader("tileforth.export.kernels", "word_ptx"))
register_exporter("ptxas_note", _loader("tileforth.backends.cuda.ptx", "ptxas_note"))
register_exporter("async_state", _loader("tileforth.backends.cpu.debugstate", "async_state"))  # the step debugger's
register_exporter("tile_state", _loader("tileforth.backends.cpu.debugstate", "tile_state"))  # ... and its tiles


def load_ipython_extension(ipython) -> None:
    from tileforth.repl.notebook import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython) -> None:
    from tileforth.repl.notebook import unload_ipython_extension as unload

    unload(ipython)
