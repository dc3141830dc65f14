"""The interactive prompt: prompt_toolkit line editing with a history file.

History lives in the user's data directory (``$XDG_DATA_HOME/tileforth/history``,
by default ``~/.local/share/tileforth/history``; the platform's equivalent on
macOS and Windows).  When that cannot be written the session keeps history
in memory only.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.history import FileHistory, History, InMemoryHistory

from .display import Display
from .session import Bye, Session


def data_dir() -> Path:
    if sys.platform == "win32":
        base = os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "tileforth"


def open_history(path: Path | None = None) -> History:
    path = path or data_dir() / "history"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError:
        return InMemoryHistory()
    return FileHistory(str(path))


def _toolbar(session: Session) -> str:
    f = session.forth
    (gx, gy, gz), (bx, by, bz) = f.launch_shape
    cfg = getattr(f, "tile_config", None)
    tiles = f"  tiles {cfg.describe()}" if cfg is not None else ""
    return (f" {f.backend_name}  {gx} {gy} {gz} GRID {bx} {by} {bz} BLOCK{tiles}"
            "   BYE or Ctrl-D leaves")


def banner(session: Session) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("tileforth")
    except PackageNotFoundError:
        v = "?"
    return f"tileforth {v} on the {session.forth.backend_name} backend. BYE or Ctrl-D leaves."


def interact(session: Session, display: Display) -> int:
    """Read-eval-print until BYE or end of input; errors never end it."""
    prompt = PromptSession(history=open_history(),
                           bottom_toolbar=lambda: _toolbar(session))
    display.note(banner(session))
    session.set_source("<prompt>")
    while True:
        try:
            text = prompt.prompt("... " if session.compiling else "> ")
        except KeyboardInterrupt:
            continue  # Ctrl-C drops the line being edited
        except EOFError:
            return 0
        try:
            result = session.run_line(text)
        except Bye:
            return 0
        except KeyboardInterrupt:
            display.note("interrupted")
            continue
        display.output(result.output)
        if result.error is not None:
            display.error(result, located=False)
            continue
        if session.compiling:
            display.note("compiled")
        else:
            display.stacks(session.forth)
