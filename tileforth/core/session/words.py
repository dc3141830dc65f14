"""Every host word and immediate word of a session, gathered from the modules
that define them: the launch shape, memory and definitions (hostwords.py),
conditional compilation (conditional.py), data (datawords.py), inspection
(inspection.py), strings (strings.py), compile-time words and execution
tokens (compiletime.py), the text interpreter's input (textin.py), heap
memory and text substitution (heapwords.py), the system around the
dictionary (syswords.py), files (filewords.py), blocks (blockwords.py) and the
memory-access analysis (accessprofile.py)."""
from __future__ import annotations

from ..front.dictionary import HostWord, Immediate
from . import (
    blockwords,
    compiletime,
    conditional,
    datawords,
    filewords,
    floathost,
    heapwords,
    hostwords,
    inspection,
    accessprofile,
    strings,
    syswords,
    textin,
)

HOST_WORDS: list[HostWord] = [*hostwords.HOST_WORDS, conditional.TILES_KEPT, *inspection.INSPECT_WORDS,
                              *datawords.DATA_WORDS, *compiletime.HOST_WORDS, *textin.HOST_WORDS,
                              *heapwords.HEAP_WORDS, *syswords.HOST_WORDS, *floathost.HOST_WORDS,
                              *filewords.HOST_WORDS, *blockwords.HOST_WORDS,
                              *accessprofile.PROFILE_WORDS]
IMMEDIATES: list[Immediate] = [*hostwords.IMMEDIATES, *conditional.CONDITIONAL_WORDS, *strings.IMMEDIATES,
                               *compiletime.IMMEDIATES, *syswords.IMMEDIATES]
