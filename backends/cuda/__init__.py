"""tileforth.backends.cuda: NVPTX code generation (llvmlite) and PyCUDA launches.

PyCUDA is imported only when a cuda session starts; PTX generation and ptxas
checks (ptx.py) work on machines without a GPU, and the host side of the
backend (backend.py: contexts, memory, launches, lost contexts) is tested
without one against a stand-in driver (tests/standin/pycuda).
"""


def create():
    from .backend import CudaBackend
    return CudaBackend()
