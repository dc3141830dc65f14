"""tileforth.backends: the machines a session runs on, each a package of its own.

Importing this package only registers them (tileforth/registry.py): a
backend's modules load when a session first asks for it. Adding a backend is
a package beside these plus one entry here (or a `register_backend` call of
its own, made before the session starts).
"""
from importlib import import_module

from tileforth.registry import BackendEntry, register_backend


def _creator(package: str):
    def create(machine):
        return import_module(f"{__name__}.{package}").create(machine)
    return create


register_backend(BackendEntry("cpu", _creator("cpu"), "the SIMT emulator: each GPU thread an LLVM coroutine",
                              auto=0))
register_backend(BackendEntry("cuda", _creator("cuda"), "an NVIDIA GPU: NVPTX code run through PyCUDA", auto=10))
