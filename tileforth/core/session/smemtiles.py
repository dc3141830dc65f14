"""The session's shared-memory tiles (SMEM-TILE names, words/smem.py) as records, and the E_ASYNC
record in words (launcherrors.py): a module below the words, which the error messages need."""
from __future__ import annotations

from typing import Any

from ..compile.smem import A_SIZE, A_STAGE, CHUNK, SmemTile
from ..front.dictionary import Colon
from ..front.tree import Prim


def session_tiles(f: Any) -> list[SmemTile]:
    """The SMEM-TILEs of the session's dictionary, by offset (a failed line's are gone with its words)."""
    tiles: list[SmemTile] = []
    for e in f.dict.values():
        if isinstance(e, Colon) and len(e.body) == 1 and isinstance(e.body[0], Prim) \
                and isinstance(e.body[0].arg, SmemTile):
            tiles.append(e.body[0].arg)
    return sorted(tiles, key=lambda t: t.offset)


def async_message(f: Any, thread: int, addr: int, aux: int, where: str, word: str | None) -> str:
    """An E_ASYNC record in words (launcherrors.py): a stage past a tile's ring, a bad src-size, or (the
    emulator's copy model) an access of bytes whose copy has not landed."""
    kind, value = aux >> 32, aux & 0xFFFFFFFF
    if kind == A_STAGE:
        t = next((t for t in session_tiles(f) if t.offset == addr), None)
        if t is None:  # pragma: no cover - a tile of another session
            return f"stage {value}{where} (thread {thread}) is past its tile's ring"
        return (f"stage {value} of {t.name} (thread {thread}): {t.name} has {t.stages} stage"
                f"{'s' * (t.stages > 1)}, 0 to {t.stages - 1}; take the stage mod {t.stages}")
    if kind == A_SIZE:
        return (f"{word or 'CP.ASYNC-N'}{where}: thread {thread} asks for {value} bytes; a copy reads 0 to "
                f"{CHUNK} (the rest of its 16 are zeros)")
    models = getattr(f.backend, "asyncs", None)
    if models is None:  # pragma: no cover - only the emulator records these
        return f"{word or 'an access'}{where}: thread {thread} touched shared memory before its copy landed"
    hopper = getattr(f.backend, "hopper_describe", None)  # a TMA box in flight (backends/cpu/mbarriers.py)
    text = hopper(thread, addr, aux, where, word) if hopper is not None else None
    return text or models.describe(thread, addr, aux, where, word)
