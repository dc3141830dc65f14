"""tileforth.backends.cpu: the SIMT emulator (llvmlite JIT, coroutine threads)."""
from .backend import CpuBackend


def create() -> CpuBackend:
    return CpuBackend()
