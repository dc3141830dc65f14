"""tileforth.backends.cuda: NVPTX code generation and PyCUDA launches."""
from tileforth.core.errors import ForthError


def create():
    raise ForthError("the cuda backend is not available yet: use backend='cpu' (the emulator)")
