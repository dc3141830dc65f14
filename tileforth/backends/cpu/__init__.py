"""tileforth.backends.cpu: the SIMT emulator (llvmlite JIT, coroutine threads)."""
from tileforth.core.compile.machine import DEFAULT, Machine

from .backend import CpuBackend


def create(machine: Machine = DEFAULT) -> CpuBackend:
    return CpuBackend(machine)
