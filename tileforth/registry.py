"""The table of backends and exporters: how the session finds a machine without naming one.

Core imports no backend and no part of the export package, not even by a
string of its own: each backend registers itself here (the built-in ones in
`tileforth/backends/__init__.py`, which the top package `tileforth` imports
before anything else), and the session, the CLI, the notebook magic and
`backend="auto"` read this table. A new backend is its own package plus one
entry, made by that package or at run time:

    register_backend(BackendEntry("toy", create=make_toy, description="...", auto=None))

`create(machine)` returns a `tileforth.core.compile.target.Backend` for a session's machine
settings (`tileforth.core.compile.machine.Machine`: the float type, the stacks' capacities), which
it keeps as `backend.machine` and gives its target; `auto` orders
the backends `"auto"` tries, highest first (None: "auto" never picks it).

Exporters are functions registered by name (`register_exporter("word_ptx",
loader)`): the loader is called when the exporter is first used and returns
the function, so nothing is imported before that.

This module imports nothing: every package of tileforth may read it.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple


class BackendEntry(NamedTuple):
    """One backend: its name, how to make one, and whether "auto" may choose it."""

    name: str
    create: Callable[[Any], Any]  # create(machine) -> a Backend for those settings
    description: str = ""
    auto: int | None = None  # "auto" tries backends by this, highest first; None: never


_BACKENDS: dict[str, BackendEntry] = {}
_EXPORTERS: dict[str, Callable[[], Callable[..., Any]]] = {}
_LOADED: dict[str, Callable[..., Any]] = {}


def register_backend(entry: BackendEntry) -> None:
    """Add (or replace) a backend under its name."""
    _BACKENDS[entry.name] = entry


def unregister_backend(name: str) -> None:
    _BACKENDS.pop(name, None)


def backend_entry(name: str) -> BackendEntry | None:
    return _BACKENDS.get(name)


def backend_names() -> list[str]:
    """The registered backends' names, in the order they were registered."""
    return list(_BACKENDS)


def backend_choices() -> list[str]:
    """What `--backend` accepts: every backend's name, then "auto"."""
    return [*_BACKENDS, "auto"]


def auto_order() -> list[BackendEntry]:
    """The backends "auto" tries, first choice first."""
    return sorted((e for e in _BACKENDS.values() if e.auto is not None), key=lambda e: -(e.auto or 0))


def register_exporter(name: str, loader: Callable[[], Callable[..., Any]]) -> None:
    """Add an exporter: `loader()` returns the function (called once, on first use)."""
    _EXPORTERS[name] = loader
    _LOADED.pop(name, None)


def exporter(name: str) -> Callable[..., Any] | None:
    """The exporter registered as `name` (loaded on first use), or None."""
    fn = _LOADED.get(name)
    if fn is None:
        loader = _EXPORTERS.get(name)
        if loader is None:
            return None
        fn = _LOADED[name] = loader()
    return fn
