"""tileforth/export/ is a client of the session and of the nvptx target, and nothing below it looks back:

    repl -> export -> core (the session) and backends.cuda.ptx (modules to PTX, ptxas)

Checked on the source with `ast`, counting every import: at module level, inside functions and
under `TYPE_CHECKING`, and for core a module named in a string (importlib.import_module) too."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tileforth"


def module_name(path: Path) -> str:
    parts = ("tileforth",) + path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, source: str | None = None) -> set[str]:
    """The absolute names of every module `path` imports, in any place of its code."""
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)
    name = module_name(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = (package[:len(package) - node.level + 1] if node.level else [])
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)  # `from . import x`: the module x
    return out


def named_in_strings(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and n.value.startswith("tileforth.")}


def sources(sub: str) -> list[Path]:
    return sorted((PACKAGE / sub).rglob("*.py"))


def hits(names: set[str], *prefixes: str) -> list[str]:
    return sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in prefixes))


def test_the_cuda_backend_imports_neither_the_session_nor_export():
    bad = {module_name(p): hits(imports(p), "tileforth.core.session", "tileforth.export", "tileforth.repl")
           for p in sources("backends/cuda")}
    assert {k: v for k, v in bad.items() if v} == {}


def test_no_backend_imports_export():
    bad = {module_name(p): hits(imports(p), "tileforth.export") for p in sources("backends")}
    assert {k: v for k, v in bad.items() if v} == {}


def test_core_names_export_nowhere():
    bad = {module_name(p): hits(imports(p) | named_in_strings(p), "tileforth.export") for p in sources("core")}
    assert {k: v for k, v in bad.items() if v} == {}


def test_export_imports_no_front_end():
    bad = {module_name(p): hits(imports(p), "tileforth.repl", "rich", "prompt_toolkit") for p in sources("export")}
    assert {k: v for k, v in bad.items() if v} == {}


def test_no_import_cycle_runs_through_export():
    mods = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: {m for m in imports(path) if m in mods and m != name} for name, path in mods.items()}

    def reachable(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        return seen
    assert [m for m in mods if m.startswith("tileforth.export") and m in reachable(m)] == []


def test_the_checker_sees_imports_in_functions_under_type_checking_and_relative():
    probe = PACKAGE / "backends" / "cuda" / "probe.py"
    src = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
           "    from tileforth.core.session.interpreter import Forth\n"
           "def f():\n    from ...export import kernels\n    from .ptx import assemble\n")
    found = imports(probe, src)
    assert {"tileforth.core.session.interpreter", "tileforth.export.kernels", "tileforth.backends.cuda.ptx"} <= found
    assert hits(found, "tileforth.core.session", "tileforth.export") == ["tileforth.core.session.interpreter",
                                                                           "tileforth.core.session.interpreter.Forth",
                                                                           "tileforth.export",
                                                                           "tileforth.export.kernels"]
