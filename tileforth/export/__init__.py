"""tileforth.export: a session's kernels as files for other programs (docs/kernel-files.md).

    kernelfile.py   kernel files: the `\\!` header checked, the body gathered as one kernel, one run
    kernels.py      PTX of a word (word_ptx: Forth.ptx, SEE-PTX), of a kernel file, of a REPL segment
    launcher.py     the launcher module `tileforth compile --python` writes: launchrt.py's code and
                    the kernel's values
    launchrt.py     that module's runtime (drivers, argument checks, the context record's errors):
                    a real module, copied out; it imports numpy, never tileforth
    commands.py     `tileforth compile` and `tileforth run`

A client of the session (tileforth.core) and of the nvptx target
(tileforth.backends.cuda.ptx, which knows modules, not sessions). Nothing in
core or in the backends imports it: the session reaches `word_ptx` through
the table of exporters (tileforth/registry.py, filled by tileforth/__init__.py).
Importing this package imports none of its modules.
"""
