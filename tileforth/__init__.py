"""tileforth: an interactive Forth for NVIDIA GPUs.

The code lives in the subpackages, each the folder of its name:
tileforth.core, tileforth.backends and tileforth.repl.  This package only makes
`%load_ext tileforth` work in IPython and Jupyter: the `%%forth` cell magic
and `f = %forth_session` (tileforth/repl/notebook.py).  IPython is imported only when
the extension is loaded.
"""


def load_ipython_extension(ipython) -> None:
    from tileforth.repl.notebook import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython) -> None:
    from tileforth.repl.notebook import unload_ipython_extension as unload

    unload(ipython)
