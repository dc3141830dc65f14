"""PyCUDA's `setup.py build`, its C++ sources compiled in parallel:

    cd pycuda-src && python build_pycuda.py -j 16

setuptools compiles the sources of one extension one after another, and PyCUDA's _driver is most of
them (its Boost.Python subset): on 16 cores this takes a fraction of the serial time. The build is
otherwise setup.py's own (run after PyCUDA's configure.py); the objects are linked as usual.
"""
from __future__ import annotations

import os
import runpy
import sys
from concurrent.futures import ThreadPoolExecutor


def parallel(jobs: int) -> None:
    """Compile each extension's objects `jobs` at a time (distutils' CCompiler.compile, as setuptools provides it)."""
    import setuptools  # noqa: F401 - provides `distutils` on Python 3.12, which has none
    from distutils import ccompiler

    def compile_(self, sources, output_dir=None, macros=None, include_dirs=None, debug=0, extra_preargs=None,
                 extra_postargs=None, depends=None):
        macros, objects, extra_postargs, pp_opts, build = self._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs)
        cc_args = self._get_cc_args(pp_opts, debug, extra_preargs)

        def one(obj: str) -> None:
            if obj in build:
                src, ext = build[obj]
                self._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)
        with ThreadPoolExecutor(max(1, jobs)) as pool:
            list(pool.map(one, objects))  # the first error is raised here, as the serial build would
        return objects
    ccompiler.CCompiler.compile = compile_


def main(argv: list[str]) -> int:
    jobs = os.cpu_count() or 4
    if len(argv) == 2 and argv[0] == "-j":
        jobs = int(argv[1])
    elif argv:
        print(__doc__, file=sys.stderr)
        return 2
    parallel(jobs)
    sys.path.insert(0, os.getcwd())  # setup.py imports aksetup_helper from beside it
    sys.argv = ["setup.py", "build"]
    runpy.run_path("setup.py", run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
