"""The import graph of the whole package, counting EVERY import: at module level, inside
functions, and under `if TYPE_CHECKING:` (a type named for an annotation is a dependency
too). Read from the source with `ast`.

    tileforth/core       imports neither tileforth.repl, tileforth.backends nor tileforth.export,
                         in any form, not even by a string naming one of their modules
    tileforth/backends   imports nothing from tileforth.core.session, tileforth.export, tileforth.repl
    tileforth/export     a client of the session and the nvptx target: imports no front end (repl, rich,
                         prompt_toolkit)
    the whole package    has no import cycle (a module's own package __init__ aside: Python runs it
                         first, but no module names it)
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tileforth"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imported_names(name: str, path: Path, source: str | None = None, known: set[str] | None = None) -> set[str]:
    """The absolute names of every module `name` imports, wherever the import is, inside the
    package or not. `from a import b` counts as an import of a.b when a.b is a module, else of a."""
    known = set(modules()) if known is None else known
    tree = ast.parse(path.read_text() if source is None else source)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                base_name = ".".join(base + ([node.module] if node.module else []))
            else:
                base_name = node.module or ""
            subs = [f"{base_name}.{a.name}" for a in node.names if f"{base_name}.{a.name}" in known]
            out.update(subs)
            if len(subs) < len(node.names):
                out.add(base_name)
    return out


def imports(name: str, path: Path, source: str | None = None, known: set[str] | None = None) -> set[str]:
    """Every module of the package that `name` imports, wherever the import is."""
    known = set(modules()) if known is None else known
    return {m for m in imported_names(name, path, source, known) if m in known and m != name}


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports(name, path, known=known) for name, path in mods.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def strings_naming(path: Path, prefixes: tuple[str, ...]) -> list[str]:
    """String constants of a module that name a module under one of `prefixes`."""
    tree = ast.parse(path.read_text())
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and n.value.startswith(prefixes)]


def test_the_package_has_no_import_cycle():
    assert cycles(graph()) == []


def test_core_imports_no_front_end_no_backend_and_no_export():
    banned = ("tileforth.repl", "tileforth.backends", "tileforth.export")
    g = graph()
    bad = [(a, b) for a, deps in g.items() if a.startswith("tileforth.core") for b in deps if b.startswith(banned)]
    assert bad == []
    named = [(name, s) for name, path in modules().items() if name.startswith("tileforth.core")
             for s in strings_naming(path, banned)]
    assert named == []


def test_backends_import_nothing_from_the_session_or_export():
    banned = ("tileforth.core.session", "tileforth.export", "tileforth.repl")
    bad = [(a, b) for a, deps in graph().items() if a.startswith("tileforth.backends") for b in deps
           if b.startswith(banned) or b == "tileforth.core"]
    assert bad == []


def test_export_imports_no_front_end():
    bad = [(a, b) for a, deps in graph().items() if a.startswith("tileforth.export") for b in deps
           if b.startswith("tileforth.repl")]
    assert bad == []
    outside = [(name, m) for name, path in modules().items() if name.startswith("tileforth.export")
               for m in imported_names(name, path) if m.split(".")[0] in ("rich", "prompt_toolkit")]
    assert outside == []


def test_the_checker_sees_every_kind_of_import():
    """What the tests above rely on: imports in functions and under TYPE_CHECKING count, and a cycle
    through them is found."""
    known = {"tileforth.core.front.tree", "tileforth.core.session.interpreter", "tileforth.core.front.probe"}
    src = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..session.interpreter import Forth\n"
           "def f():\n    from . import tree\n")
    probe = PACKAGE / "core" / "front" / "probe.py"
    assert imports("tileforth.core.front.probe", probe, src, known) == {
        "tileforth.core.session.interpreter", "tileforth.core.front.tree"}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
