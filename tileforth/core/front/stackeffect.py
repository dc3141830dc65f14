"""A word's stack effect, the record the tree, the dictionary and the effect pass share
(effects.py infers it for bodies; a primitive states its own)."""
from __future__ import annotations

from ..records import record


@record(frozen=True)
class Effect:
    """A word's stack effect: the items it needs (dneed, fneed) and the change
    of depth it makes (dnet, fnet) on the data and float stacks; not static:
    the depth it leaves depends on the data."""

    static: bool
    dneed: int = 0
    dnet: int = 0
    fneed: int = 0
    fnet: int = 0
    # items needed on EVERY path (None: all of dneed/fneed). A caller checks
    # only these before a call; deeper items that only some paths use are
    # checked inside the word, on those paths (`: w IF 0 * THEN ;` needs one
    # item when the flag is false).
    dsure: int | None = None
    fsure: int | None = None

    @property
    def dmust(self) -> int:
        return self.dneed if self.dsure is None else self.dsure

    @property
    def fmust(self) -> int:
        return self.fneed if self.fsure is None else self.fsure

    def notation(self) -> str:
        if not self.static:
            return "( dynamic )"
        def side(need: int, net: int, letter: str) -> str:
            ins = " ".join(f"{letter}{i + 1}" for i in range(need))
            outs = " ".join(f"{letter}'{i + 1}" for i in range(need + net))
            return f"{ins} -- {outs}".strip()
        text = f"( {side(self.dneed, self.dnet, 'x')} )"
        if self.fneed or self.fnet:
            text += f" ( F: {side(self.fneed, self.fnet, 'r')} )"
        return text
