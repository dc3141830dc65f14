"""What the cuda backend needs before any of its modules load: PyCUDA."""
from __future__ import annotations

import importlib.util

from tileforth.core.errors import ForthError

NEEDS_PYCUDA = ("the cuda backend needs PyCUDA: pip install 'tileforth[cuda]' (PyCUDA builds from source: it needs the "
                "CUDA toolkit's headers), or use backend='cpu'")


def require_pycuda() -> None:
    """A ForthError saying how to install PyCUDA when it is not there (checked before importing it:
    --backend auto on a machine without a GPU costs no import)."""
    if importlib.util.find_spec("pycuda") is None:
        raise ForthError(NEEDS_PYCUDA)
