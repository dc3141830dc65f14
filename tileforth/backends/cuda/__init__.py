"""tileforth.backends.cuda: NVPTX code generation (llvmlite) and PyCUDA launches.

PyCUDA is imported only when a cuda session starts; PTX generation and ptxas
checks (ptx.py) work on machines without a GPU, and the host side of the
backend (backend.py: contexts, memory, launches, lost contexts) is tested
without one against a stand-in driver (tests/standin/pycuda).
"""
from .requires import require_pycuda


def create():
    require_pycuda()  # before the backend's modules load (--backend auto, no GPU)
    from .backend import CudaBackend
    return CudaBackend()


def word_ptx(forth, word: str, arch: str = "sm_80") -> str:
    """The PTX of a colon definition launched as a kernel (see ptx.word_ptx);
    works on any session, with or without a GPU."""
    from .ptx import word_ptx as make
    return make(forth, word, arch)
