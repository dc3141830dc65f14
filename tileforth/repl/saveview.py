"""`tileforth --save-view FILE`: SAVE-VIEW's picture of a run, written at its end (the debugger's stop while a
line is debugged, else the last .TILE, .FRAG, .LANES or PROFILE view shown: core/session/viewexport.py), or,
with `{n}` in FILE's name, each view as it is shown, the n-th to FILE with n for `{n}`."""
from __future__ import annotations

from typing import Any

MARK = "{n}"


def check(path: str) -> str | None:
    """Why the option's FILE cannot be written as a picture, or None."""
    if not path.lower().endswith((".svg", ".png")):
        return f"--save-view {path}: name a .svg or .png file (`--save-view tile.png`, `--save-view view-{{n}}.svg`)"
    return None


class ViewSaver:
    """Saves a session's views for --save-view: `start()` before the run, `finish()` after it (the message
    of what went wrong, or None)."""

    def __init__(self, forth: Any, path: str) -> None:
        self.forth, self.path = forth, path
        self.each = MARK in path
        self.saved: list[str] = []
        self.error: str | None = None

    def start(self) -> None:
        if self.each:
            from tileforth.core.session import viewexport

            viewexport.watch(self.forth, self._one)

    def _one(self, view: Any) -> None:
        from tileforth.core.errors import ForthError
        from tileforth.core.session import viewexport

        path = self.path.replace(MARK, str(len(self.saved) + 1))
        try:
            viewexport.save(view, path)
        except ForthError as e:  # a view never fails the line: the run ends with the message
            self.error = self.error or e.message
            return
        self.saved.append(path)

    def finish(self) -> str | None:
        from tileforth.core.errors import ForthError
        from tileforth.core.session import viewexport

        if self.each:
            viewexport.watch(self.forth, None)
            if self.error is None and not self.saved:
                return ("--save-view: the run showed no .TILE, .FRAG, .LANES or PROFILE view, so no picture was "
                        "written: show one (`.TILE`)")
            return None if self.error is None else f"--save-view: {self.error}"
        try:
            viewexport.save_view(self.forth, self.path)
        except ForthError as e:
            return f"--save-view: {e.message}"
        self.saved.append(self.path)
        return None
