"""The heavy dependencies, imported when first used.

    from ..lazy import llvm, ml_dtypes, np

`import tileforth.core` loads neither numpy nor LLVM's shared library
(llvmlite.binding): about 100 ms that only a session pays, when it starts (its
backend imports them), and not `tileforth --help`, an IPython extension loaded
but not used, or a tool that only reads the word reference. ml_dtypes (numpy's
bfloat16; about a second on a small machine, most of it its C extension) waits
longer still: for the first bf16 dtype a session needs (eltypes.py), which a
line without bf16 arrays or tiles never does (tests/test_startup.py).
llvmlite.ir, the IR builder, is plain Python and imported as usual.

Each name is a module object that stands for the real module: its first
attribute access imports the real one and copies its namespace in, so later
accesses cost what any module attribute costs. Nothing here is put in
sys.modules: `import numpy` elsewhere gets numpy itself.
"""
from __future__ import annotations

import importlib
import types
from typing import TYPE_CHECKING


class _Lazy(types.ModuleType):
    def __getattr__(self, name: str):
        real = importlib.import_module(self.__name__)
        self.__dict__.update(real.__dict__)  # later lookups find the names here, without this method
        value = getattr(real, name)  # a name the module makes on demand (its own __getattr__)
        setattr(self, name, value)
        return value


if TYPE_CHECKING:  # a type checker sees the modules they stand for (np.ndarray in annotations)
    import llvmlite.binding as llvm
    import ml_dtypes
    import numpy as np
else:
    np = _Lazy("numpy")
    ml_dtypes = _Lazy("ml_dtypes")
    llvm = _Lazy("llvmlite.binding")
