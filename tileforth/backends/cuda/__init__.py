"""tileforth.backends.cuda: NVPTX code generation (llvmlite) and PyCUDA launches.

PyCUDA is imported only when a cuda session starts; PTX generation and ptxas
checks (ptx.py) work on machines without a GPU, and the host side of the
backend (backend.py: contexts, memory, launches, lost contexts) is tested
without one against a stand-in driver (tests/standin/pycuda).
"""


NEEDS_PYCUDA = "the cuda backend needs PyCUDA: pip install -e '.[cuda]' (or use backend='cpu')"


def create():
    import importlib.util
    if importlib.util.find_spec("pycuda") is None:  # before the backend's modules load (--backend auto, no GPU)
        from tileforth.core.errors import ForthError
        raise ForthError(NEEDS_PYCUDA)
    from .backend import CudaBackend
    return CudaBackend()


def word_ptx(forth, word: str, arch: str = "sm_80") -> str:
    """The PTX of a colon definition launched as a kernel (see ptx.word_ptx);
    works on any session, with or without a GPU."""
    from .ptx import word_ptx as make
    return make(forth, word, arch)
