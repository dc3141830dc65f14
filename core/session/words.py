"""Every host word and immediate word of a session, gathered from the modules
that define them: the launch shape, memory and definitions (hostwords.py),
conditional compilation (conditional.py), data (datawords.py), inspection
(inspection.py) and strings (strings.py)."""
from __future__ import annotations

from ..front.dictionary import HostWord, Immediate
from . import conditional, datawords, hostwords, inspection, strings

HOST_WORDS: list[HostWord] = [*hostwords.HOST_WORDS, conditional.TILES_KEPT, *inspection.INSPECT_WORDS,
                              *datawords.DATA_WORDS]
IMMEDIATES: list[Immediate] = [*hostwords.IMMEDIATES, *conditional.CONDITIONAL_WORDS, *strings.IMMEDIATES]
