"""tileforth.backends.cuda: NVPTX code generation (llvmlite) and PyCUDA launches.

PyCUDA is imported only when a cuda session starts; PTX generation and ptxas
checks (ptx.py) work on machines without a GPU.
"""


def create():
    from .backend import CudaBackend
    return CudaBackend()
