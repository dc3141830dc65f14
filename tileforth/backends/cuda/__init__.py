"""tileforth.backends.cuda: NVPTX code generation (llvmlite) and PyCUDA launches.

PyCUDA is imported only when a cuda session starts; PTX generation and ptxas
checks (ptx.py) work on machines without a GPU, and the host side of the
backend (backend.py: contexts, memory, launches, lost contexts) is tested
without one against a stand-in driver (tests/standin/pycuda). A session's
words and kernel files are exported as PTX by tileforth/export/ (kernels.py),
a client of ptx.py: nothing here imports the session.
"""
from tileforth.core.compile.machine import DEFAULT, Machine

from .requires import require_pycuda


def create(machine: Machine = DEFAULT):
    require_pycuda()  # before the backend's modules load (--backend auto, no GPU)
    from .backend import CudaBackend
    return CudaBackend(machine=machine)

