"""tileforth.core: reader, dictionary, outer interpreter, compiler to LLVM IR.

    from tileforth.core import Forth, ForthError
"""
from .errors import ForthError, SourcePos
from .session.interpreter import Forth

__all__ = ["Forth", "ForthError", "SourcePos"]
