"""The layout of tileforth/core/ shows the pipeline, and its imports only go down it:

    tileforth/core/errors.py   the error type every stage raises
    tileforth/core/lazy.py     numpy and LLVM's library, imported when first used (below every stage)
    tileforth/core/front/      reader, program tree, stack effects, dictionary
    tileforth/core/compile/    code generator, primitives, tile ops, targets' interface, module assembly, state layout
    tileforth/core/session/    the session (outer interpreter), host words, inspection, kernel files, reference

Checked on the source with `ast`: run-time imports only (an import under
`if TYPE_CHECKING:` names a type for an annotation and runs nothing)."""
from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "tileforth" / "core"
LAYERS = {"errors": 0, "lazy": 0, "buffers": 0, "alloctable": 0, "heap": 0, "records": 0, "heldsigint": 0, "front": 1, "compile": 2, "session": 3}
FORBIDDEN = ("tileforth.repl", "tileforth.backends", "rich", "prompt_toolkit")


def module_name(path: Path) -> str:
    parts = path.relative_to(CORE).with_suffix("").parts
    return ".".join(p for p in parts if p != "__init__") or "__init__"


def runtime_imports(path: Path, source: str | None = None) -> list[str]:
    """Dotted names below tileforth.core ('front.tree') of what a module imports
    when it runs; other imports as 'ABS:name'."""
    tree = ast.parse(path.read_text() if source is None else source)
    here = module_name(path).split(".")
    package = here[:-1] if path.name != "__init__.py" else here
    if package == ["__init__"]:
        package = []
    out: list[str] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and getattr(child.test, "id", None) == "TYPE_CHECKING":
                continue
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package[:len(package) - (child.level - 1)] if child.level > 1 else package
                    target = base + (child.module.split(".") if child.module else [])
                    if child.module:
                        out.append(".".join(target))
                    else:
                        out.extend(".".join(target + [a.name]) for a in child.names)
                else:
                    out.append("ABS:" + (child.module or ""))
            elif isinstance(child, ast.Import):
                out.extend("ABS:" + a.name for a in child.names)
            visit(child)
    visit(tree)
    return out


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in CORE.rglob("*.py")}


def graph() -> dict[str, set[str]]:
    mods = modules()
    g: dict[str, set[str]] = {}
    for name, path in mods.items():
        deps = set()
        for imp in runtime_imports(path):
            if imp.startswith("ABS:tileforth.core."):
                imp = imp.removeprefix("ABS:tileforth.core.")
            if imp in mods and imp != name:
                deps.add(imp)
        g[name] = deps
    return g


def layer(name: str) -> int | None:
    return LAYERS.get(name.split(".")[0])


def test_core_is_laid_out_as_the_pipeline():
    mods = modules()
    tops = {name.split(".")[0] for name in mods if name != "__init__"}
    assert tops == set(LAYERS), f"tileforth/core/ holds {sorted(tops)}: every module belongs to one stage ({sorted(LAYERS)})"


def test_imports_only_go_down_the_pipeline():
    up = [(a, b) for a, deps in graph().items() for b in deps
          if a != "__init__" and layer(b) is not None and layer(a) is not None and layer(b) > layer(a)]
    assert up == []


def test_the_import_graph_of_core_has_no_cycles():
    g = graph()
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def dfs(v: str) -> None:
        state[v] = 1
        stack.append(v)
        for w in sorted(g[v]):
            if state.get(w) == 1:
                cycles.append(stack[stack.index(w):] + [w])
            elif w not in state:
                dfs(w)
        stack.pop()
        state[v] = 2

    for v in sorted(g):
        if v not in state:
            dfs(v)
    assert cycles == []


def test_core_imports_no_front_end_and_no_backend():
    bad = [(name, imp) for name, path in modules().items() for imp in runtime_imports(path)
           if imp.startswith("ABS:") and imp[4:].startswith(FORBIDDEN)]
    assert bad == []


def test_the_checker_sees_an_upward_import():
    """What the tests above rely on: a stage importing a later one is seen, at any depth of the code."""
    probe = CORE / "front" / "probe.py"
    src = "def f():\n    from ..session.interpreter import Forth\n    from . import tree\n"
    assert runtime_imports(probe, src) == ["session.interpreter", "front.tree"]
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..session.interpreter import Forth\n"
    assert "session.interpreter" not in runtime_imports(probe, typed)
