"""Issue 30, point 6: tileforth is a real package. Its metadata (license, classifiers, a capped
llvmlite, the extras), its version in three places that agree, `python -m tileforth`, the typed
marker, and the tour shipped as package data (`python -m tileforth.demos tour`)."""
from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import tileforth
from tileforth import demos

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
ENV = dict(os.environ, TILEFORTH_SERVER="0")


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, input=stdin, timeout=120,
                          cwd=ROOT / "tests", env=ENV)


def test_the_license_is_a_file_and_metadata():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY" in text
    project = PYPROJECT["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    meta = importlib.metadata.metadata("tileforth")
    assert meta["License-Expression"] == "MIT" or meta["License"] == "MIT"


def test_classifiers_say_linux_python_and_cuda():
    classifiers = PYPROJECT["project"]["classifiers"]
    assert "Operating System :: POSIX :: Linux" in classifiers
    assert "Environment :: GPU :: NVIDIA CUDA" in classifiers
    assert f"Programming Language :: Python :: {sys.version_info.major}.{sys.version_info.minor}" in classifiers
    assert "Typing :: Typed" in classifiers and (ROOT / "tileforth" / "py.typed").is_file()


def test_llvmlite_is_capped_to_the_tested_minor_version():
    (spec,) = [d for d in PYPROJECT["project"]["dependencies"] if d.startswith("llvmlite")]
    low, high = spec.split(">=")[1].split(",<")
    installed = tuple(int(x) for x in importlib.metadata.version("llvmlite").split(".")[:2])
    assert tuple(int(x) for x in low.split(".")[:2]) <= installed < tuple(int(x) for x in high.strip().split("."))


def test_the_extras_bring_what_their_features_need():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert any(d.startswith("pycuda") for d in extras["cuda"])
    assert any(d.startswith("nvidia-cuda-nvcc") for d in extras["cuda"])  # ptxas, libdevice
    assert any(d.startswith("ipython") for d in extras["notebook"])
    assert any(d.startswith("pytest") for d in extras["test"])
    from tileforth.backends.cuda.requires import NEEDS_PYCUDA
    assert "pip install 'tileforth[cuda]'" in NEEDS_PYCUDA and "-e" not in NEEDS_PYCUDA


def test_a_missing_ptxas_or_libdevice_names_the_extra_that_brings_it(monkeypatch):
    from tileforth.backends.cuda import ptx
    from tileforth.core.errors import ForthError
    monkeypatch.setattr(ptx, "ptxas_path", lambda: None)
    monkeypatch.setattr(ptx, "libdevice_path", lambda: None)
    ptx._libdevice_bitcode.cache_clear()
    try:
        for call in (lambda: ptx.assemble_logged(".version 8.0", "sm_80"), ptx._libdevice_bitcode):
            with pytest.raises(ForthError) as e:
                call()
            assert "pip install 'tileforth[cuda]'" in e.value.message and "-e" not in e.value.message
    finally:
        ptx._libdevice_bitcode.cache_clear()


def test_the_version_is_the_same_everywhere():
    assert tileforth.__version__ == importlib.metadata.version("tileforth")
    assert PYPROJECT["project"]["dynamic"] == ["version"]


def test_python_dash_m_tileforth_is_the_command():
    r = run("-m", "tileforth", "-e", "1 2 + .")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "3 "


def test_the_demos_ship_with_the_package_and_the_tour_runs():
    assert {"tour", "saxpy", "gemm", "gemm_async", "reduce", "transpose"} <= set(demos.names())
    assert demos.path("tour").read_text() == (ROOT / "demos" / "tour.fth").read_text()
    data = PYPROJECT["tool"]["setuptools"]["package-data"]["tileforth.demos"]
    assert "*.fth" in data
    r = run("-m", "tileforth.demos", "tour", "--stacks", "none")
    direct = subprocess.run([sys.executable, "-m", "tileforth", "--stacks", "none", str(ROOT / "demos" / "tour.fth")],
                            capture_output=True, text=True, timeout=120, cwd=ROOT / "tests", env=ENV, input="")
    assert r.returncode == 0 and direct.returncode == 0, r.stderr + direct.stderr
    assert r.stdout == direct.stdout and "TMMA" not in r.stderr
    bad = run("-m", "tileforth.demos", "nope")
    assert bad.returncode == 2 and "the demos are: " in bad.stderr and "tour" in bad.stderr


def test_the_sdist_holds_every_tracked_file_and_its_tests_run_from_it(tmp_path):
    """The sdist, built as pip builds it (setuptools' PEP 517 hook), unpacked: every file git tracks is in
    it (the demos link expanded to files), and test files that need the docs, demos, the programs and
    the CI script pass when run from the unpacked tree with its own package first on the path."""
    from setuptools import build_meta
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        name = build_meta.build_sdist(str(tmp_path))
    finally:
        os.chdir(cwd)
    import tarfile
    with tarfile.open(tmp_path / name) as tar:
        tar.extractall(tmp_path, filter="data")
    tree = tmp_path / name.removesuffix(".tar.gz")
    files = {str(p.relative_to(tree)) for p in tree.rglob("*") if p.is_file()}
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode == 0:  # a checkout (an unpacked sdist has no git: the rest still holds)
        want = {f for f in tracked.stdout.split() if f != ".gitignore" and not (ROOT / f).is_symlink()}
        assert want - files == set()
    assert {"tileforth/demos/tour.fth", "tileforth/demos/__main__.py", ".ci/run", "LICENSE"} <= files
    env = dict(ENV, PYTHONPATH=str(tree))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "tests/test_readme.py", "tests/test_docs_repl.py", "tests/test_demos.py",
                        "tests/test_docs_examples.py", "tests/test_docs_tiles.py",
                        "tests/test_package.py::test_the_demos_ship_with_the_package_and_the_tour_runs"],
                       cwd=tree, capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and "error" not in r.stdout.splitlines()[-1]
    probe = subprocess.run([sys.executable, "-c", "import tileforth; print(tileforth.__file__)"], cwd=tree,
                           capture_output=True, text=True, env=env)
    assert probe.stdout.startswith(str(tree)), probe.stdout  # the tests ran the sdist's package


def test_tileforth_dash_dash_version_says_the_version():
    for cmd in (["-m", "tileforth", "--version"], ["-m", "tileforth.repl.cli", "--version"]):
        r = run(*cmd)
        assert r.returncode == 0 and r.stdout == f"tileforth {tileforth.__version__}\n", r.stderr


def test_the_project_urls_reach_the_built_metadata(tmp_path):
    """[project.urls] as pip shows them: the METADATA setuptools' PEP 517 hook writes for a wheel has one
    Project-URL per entry (Homepage, Documentation, Issues), each an https address on github.com."""
    urls = PYPROJECT["project"]["urls"]
    assert {"Homepage", "Documentation", "Issues"} <= set(urls)
    from email.parser import Parser
    from setuptools import build_meta
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        info = build_meta.prepare_metadata_for_build_wheel(str(tmp_path))
    finally:
        os.chdir(cwd)
    meta = Parser().parsestr((tmp_path / info / "METADATA").read_text())
    shown = dict(line.split(", ", 1) for line in meta.get_all("Project-URL"))
    assert {k.lower(): v for k, v in shown.items()} == {k.lower(): v for k, v in urls.items()}
    for url in shown.values():
        assert url.startswith("https://github.com/tileforth/tileforth"), url
    assert meta["License-Expression"] == "MIT" and meta["Requires-Python"] == ">=3.11"
    assert "Operating System :: POSIX :: Linux" in meta.get_all("Classifier")


def test_the_wheel_installs_in_a_fresh_virtualenv_and_runs_from_there(tmp_path):
    """What a user gets from `pip install tileforth-*.whl`: the wheel, built by setuptools' PEP 517 hook,
    holds the typed marker, the prelude, the demos and the license; installed (--no-deps: this machine's
    llvmlite, numpy ... come from the base interpreter, --system-site-packages) in a fresh virtualenv, its
    `tileforth --version`, `python -m tileforth -e "1 2 + ."` and the tour run from the venv's copy."""
    import venv
    import zipfile
    from setuptools import build_meta
    import shutil
    cwd, ours = os.getcwd(), not (ROOT / "build").exists()
    os.chdir(ROOT)
    try:
        name = build_meta.build_wheel(str(tmp_path / "dist"))
    finally:
        os.chdir(cwd)
        if ours:  # setuptools' build/ tree: left behind, its stale files would go into later wheels
            shutil.rmtree(ROOT / "build", ignore_errors=True)
    wheel = tmp_path / "dist" / name
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    assert {"tileforth/py.typed", "tileforth/core/session/prelude.fth", "tileforth/demos/tour.fth",
            "tileforth/demos/__main__.py"} <= names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    env = {k: v for k, v in ENV.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    inst = subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert inst.returncode == 0, inst.stderr[-2000:]

    def venv_run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(list(args), capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path,
                              input="")
    where = venv_run(str(py), "-c", "import tileforth; print(tileforth.__file__)")
    assert where.stdout.startswith(str(env_dir)), where.stdout + where.stderr  # the installed copy, not a checkout
    version = venv_run(str(env_dir / "bin" / "tileforth"), "--version")
    assert version.returncode == 0 and version.stdout == f"tileforth {tileforth.__version__}\n", version.stderr
    sum_ = venv_run(str(py), "-m", "tileforth", "-e", "1 2 + .")
    assert sum_.returncode == 0 and sum_.stdout == "3 ", sum_.stderr
    tour = venv_run(str(py), "-m", "tileforth.demos", "tour", "--stacks", "none")
    assert tour.returncode == 0, tour.stderr[-2000:]
    assert tour.stdout == run("-m", "tileforth", "--stacks", "none", str(ROOT / "demos" / "tour.fth")).stdout
