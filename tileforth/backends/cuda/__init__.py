"""tileforth.backends.cuda: NVPTX code generation (llvmlite) and PyCUDA launches.

PyCUDA is imported only when a cuda session starts; PTX generation and ptxas
checks (ptx.py) work on machines without a GPU, and the host side of the
backend (backend.py: contexts, memory, launches, lost contexts) is tested
without one against a stand-in driver (tests/standin/pycuda). A session's
words and kernel files are exported as PTX by tileforth/export/ (kernels.py),
a client of ptx.py: nothing here imports the session.
"""


NEEDS_PYCUDA = "the cuda backend needs PyCUDA: pip install -e '.[cuda]' (or use backend='cpu')"


def create():
    import importlib.util
    if importlib.util.find_spec("pycuda") is None:  # before the backend's modules load (--backend auto, no GPU)
        from tileforth.core.errors import ForthError
        raise ForthError(NEEDS_PYCUDA)
    from .backend import CudaBackend
    return CudaBackend()

