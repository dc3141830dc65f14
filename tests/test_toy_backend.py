"""Adding a backend is its own package plus one registry entry (tileforth/registry.py): a toy
backend, written into a temporary folder as a package of its own and registered at run time,
is a session's machine, the CLI's `--backend` choice and, with a priority, what "auto" picks,
with no edit anywhere else. The toy is the emulator with a smaller machine's capabilities,
so its answers are the cpu backend's and its limits are its own."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from tileforth import registry
from tileforth.core import Forth, ForthError

TOY = '''
"""A toy backend: the cpu emulator, with a machine of 64 threads a block and 4096 threads a launch."""
from tileforth.backends.cpu.backend import CpuBackend
from tileforth.core.compile.target import Capabilities
from tileforth.core.records import replace
from tileforth.registry import BackendEntry, register_backend


class ToyBackend(CpuBackend):
    name = "toy"
    caps = replace(CpuBackend.caps, max_block_threads=64, max_block=(64, 64, 64), max_threads=4096)


def create(machine):
    return ToyBackend(machine)


register_backend(BackendEntry("toy", create, "a small emulated machine", auto={auto}))
'''


@pytest.fixture
def toy(tmp_path, monkeypatch):
    def install(auto: int | None = None) -> str:
        pkg = tmp_path / "toyforth"
        pkg.mkdir(exist_ok=True)
        (pkg / "__init__.py").write_text(textwrap.dedent(TOY).replace("{auto}", repr(auto)))
        monkeypatch.syspath_prepend(str(tmp_path))
        monkeypatch.delitem(sys.modules, "toyforth", raising=False)
        __import__("toyforth")
        return str(tmp_path)
    yield install
    registry.unregister_backend("toy")


def test_a_registered_package_is_a_backend(toy):
    toy()
    f = Forth(backend="toy")
    assert f.backend_name == "toy"
    assert f.eval("2 3 + .") == "5 "
    f.eval("2 1 1 GRID 64 1 1 THREADS GLOBAL-ID")
    assert f.data_stack(lane=None) == [[i] for i in range(128)]  # numbered as on any backend


def test_its_own_capabilities_bound_the_launch_shape(toy):
    toy()
    f = Forth(backend="toy")
    with pytest.raises(ForthError, match="a block has at most 64 along x on the toy backend"):
        f.eval("128 1 1 THREADS")
    with pytest.raises(ForthError, match="at most 4096 threads in one launch on the toy backend"):
        f.eval("128 1 1 GRID 64 1 1 THREADS")
    assert f.launch_shape == ((1, 1, 1), (32, 1, 1))  # refused: the shape stays
    assert Forth(backend="cpu").eval("128 1 1 THREADS 1 .") == "1 "  # the cpu backend's limits are its own


def test_auto_picks_the_highest_priority_backend_that_starts(toy):
    toy(auto=100)  # above cuda's (10) and cpu's (0)
    assert Forth(backend="auto").backend_name == "toy"
    registry.unregister_backend("toy")
    assert Forth(backend="auto").backend_name in ("cuda", "cpu")


def test_an_unknown_backend_names_the_registered_ones(toy):
    toy()
    with pytest.raises(ForthError, match=r"unknown backend 'nosuch': use 'cpu', 'cuda', 'toy', 'auto'"):
        Forth(backend="nosuch")


def test_the_cli_offers_the_registered_backend(toy):
    path = toy()
    code = ("import sys, toyforth; from tileforth.repl.cli import main; "
            "sys.exit(main(['--backend', 'toy', '--stacks', 'none', '-e', '1 2 + . 200 1 1 THREADS']))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**__import__("os").environ, "PYTHONPATH": path + ":" + ":".join(sys.path)})
    assert "3" in r.stdout, r.stdout + r.stderr
    assert "at most 64 along x on the toy backend" in r.stdout + r.stderr
    assert "Traceback" not in r.stderr
