"""Names kept here for kernelfile.py and tileforth/backends/cuda/ptx.py, which
import them from this module; the words moved to the package words/ (the
launch shape: words/launch.py, arrays: words/arrays.py, control structures:
words/control.py). This module goes when those two import from there."""
from __future__ import annotations

from .words.arrays import DEVICE_ARRAY_MAX, array_bytes_max, export_memory, host_memory_bytes
from .words.control import CLOSERS, OPENERS
from .words.launch import check_shape

__all__ = ["CLOSERS", "DEVICE_ARRAY_MAX", "OPENERS", "array_bytes_max", "check_shape", "export_memory",
           "host_memory_bytes"]
