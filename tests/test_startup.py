"""Lazy start-up (issue 13): `tileforth -e` imports no rich, pygments or
prompt_toolkit when it prints nothing but program output; a cpu session
makes its JIT engines and scheduler only when the first kernel is compiled;
the scheduler's machine code is kept on disk, and a damaged or missing file
is compiled again, never loaded. Each check runs in a fresh process (the
runtime is per process). The figures are benchmarks/startup.py's."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CLI = "import sys; from tileforth.repl.cli import main; status = main(); "
LAZY = ("rich", "pygments", "prompt_toolkit", "IPython")


def python(code: str, *args: str, cache: Path | str = "off") -> subprocess.CompletedProcess:
    env = dict(os.environ, TILEFORTH_CACHE_DIR=str(cache))
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300,
                          env=env, check=True)


def test_command_line_leaves_out_the_renderer():
    code = CLI + f"print([m for m in {LAZY!r} if m in sys.modules]); sys.exit(status)"
    out = python(code, "--backend", "cpu", "-e", "1 2 + .").stdout
    assert out == "3 []\n"  # the program's output as it printed it (no newline added), then the list


def test_errors_and_stacks_still_rendered():
    code = CLI + "sys.exit(status)"
    env = dict(os.environ, TILEFORTH_CACHE_DIR="off")
    run = subprocess.run([sys.executable, "-c", code, "--backend", "cpu", "-e", "1 2 NOPE"], capture_output=True,
                         text=True, timeout=300, env=env)
    assert run.returncode == 1 and "-e:1:5: error: unknown word NOPE" in run.stderr
    assert python(code, "--backend", "cpu", "-e", "1 2").stdout.splitlines() == ["data  <2> 1 2", "float <0>"]


def test_the_command_exits_with_mains_status_and_its_output():
    """The console script's entry (cli.entry: main, then the exit with the process's objects frozen)
    prints what the line printed and exits with main's status."""
    env = dict(os.environ, TILEFORTH_CACHE_DIR="off")
    cmd = [sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu", "-e"]
    ok = subprocess.run(cmd + ["1 2 + . 5 SPACES 4 ."], capture_output=True, text=True, timeout=300, env=env)
    # the program's output exactly, as gforth prints it (the line is ended only on a terminal)
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "3      4 ", "")
    bad = subprocess.run(cmd + ["1 2 + .", "-e", "NOPE"], capture_output=True, text=True, timeout=300, env=env)
    assert bad.returncode == 1 and bad.stdout.startswith("3 ") and "unknown word NOPE" in bad.stderr


def test_runtime_made_on_first_kernel():
    code = """
from tileforth.core import Forth
from tileforth.backends.cpu.backend import runtime
f = Forth(backend="cpu")
made = lambda: sorted(k for k in ("fast", "heavy", "sched") if k in vars(runtime()))
print(made())
f.eval(": sq dup * ;")
print(made())
f.eval("7 sq")
print(made(), f.data_stack())
"""
    lines = python(code).stdout.splitlines()
    assert lines[:2] == ["[]", "[]"]
    assert lines[2] == "['fast', 'sched'] [49]"


def race_program() -> str:
    """A checked kernel that races (tf_race, found through the symbol table) and one that does not."""
    return """
from tileforth.core import Forth, ForthError
f = Forth(backend="cpu")
f.eval("1 1 1 GRID 64 1 1 THREADS VARIABLE v")
try:
    f.eval("LANE-ID v !")
    print("no race")
except ForthError as e:
    print("race" if "race" in str(e) else str(e))
f.eval("LANE-ID 2 *")
print(f.data_stack(lane=5))
"""


def test_scheduler_cache(tmp_path):
    cache = tmp_path / "cache"
    first = python(race_program(), cache=cache).stdout.splitlines()
    assert first == ["race", "[10]"]
    (obj,) = cache.iterdir()
    assert obj.name.startswith("scheduler-") and obj.suffix == ".o"
    data = obj.read_bytes()
    assert python(race_program(), cache=cache).stdout.splitlines() == first  # loaded from the file
    assert obj.read_bytes() == data
    obj.write_bytes(data[: len(data) // 2])  # truncated: not loaded, compiled again and rewritten
    assert python(race_program(), cache=cache).stdout.splitlines() == first
    assert obj.read_bytes() == data


def test_scheduler_cache_off(tmp_path):
    code = race_program()
    env_off = python(code, cache="off").stdout.splitlines()
    assert env_off == ["race", "[10]"]
    assert not any(tmp_path.iterdir())


def test_benchmark_prints_both_figures():
    """The main figure is the command without a server (issue 24: the default), then through one."""
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "startup.py"
    run = subprocess.run([sys.executable, str(script), "--runs", "1"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "(whole process)" in run.stdout and "target ≤ 150 ms" in run.stdout
    lines = run.stdout.splitlines()
    main = next(i for i, line in enumerate(lines) if "(whole process)" in line and "tileforth -e" in line)
    assert "without a server (the default: a plain process, nothing left running)" in lines[main + 1]
    assert "through a resident server (`tileforth serve`)" in lines[main + 2] and "target ≤ 150 ms" in lines[main + 2]
    assert "a first run, which also starts one (TILEFORTH_SERVER=1)" in run.stdout
    assert "import tileforth.core" in run.stdout and "target ≤ 60 ms" in run.stdout
    assert "ml_dtypes, rich, pygments, prompt_toolkit, IPython, nbclient, nbformat: -" in run.stdout


def test_importing_core_loads_neither_numpy_nor_llvm():
    """tileforth/core/lazy.py: `import tileforth.core` leaves numpy, ml_dtypes and llvmlite.binding to the
    first session (its backend imports them), which then works as ever."""
    code = """
import sys
from tileforth.core import Forth
heavy = ("numpy", "ml_dtypes", "llvmlite.binding")
print([m for m in heavy if m in sys.modules])
f = Forth(backend="cpu")
f.eval("2 3 * 1 1 1 THREADS")
print(f.data_stack(), [m for m in heavy if m in sys.modules])
"""
    assert python(code).stdout.splitlines() == ["[]", "[6] ['numpy', 'llvmlite.binding']"]


COMMAND = [sys.executable, "-X", "importtime", "-c", "from tileforth.repl.resident import entry; entry()"]


def test_a_line_loads_ml_dtypes_only_at_its_first_bf16_word():
    """ml_dtypes (bfloat16 for numpy) takes about a second to import on a small machine: the command's
    whole process (-X importtime lists every module it imports) leaves it out of `tileforth -e "1 2 + ."`,
    while a bf16 word (compiled code) and a bf16 tile product (the emulator reads bf16 memory with numpy:
    that loads it) give numpy's values (ml_dtypes in this process
    is the reference)."""
    import ml_dtypes
    import numpy as np

    env = {k: v for k, v in os.environ.items() if not k.startswith("TILEFORTH_SERVER")}
    env.update(TILEFORTH_SERVER="0", TILEFORTH_CACHE_DIR="off")

    def run(*sources: str) -> tuple[str, list[str]]:
        args = [a for s in sources for a in ("-e", s)]
        done = subprocess.run(COMMAND + ["--backend", "cpu", *args], capture_output=True, text=True, timeout=300,
                              env=env, check=True)
        imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
                    if line.startswith("import time:") and "|" in line}
        return done.stdout, {m.split(".")[0] for m in imported} | imported  # with each module's top package

    out, imported = run("1 2 + .")
    assert out == "3 "
    assert "tileforth.backends.cpu.backend" in imported and "numpy" in imported  # the list is the whole path
    assert "ml_dtypes" not in imported

    out, _ = run("1 BF16 ARRAY a  1.01e a BF!  a BF@ F.")  # compiled code rounds it: no ml_dtypes needed
    assert float(out) == float(ml_dtypes.bfloat16(1.01))

    third = np.full((16, 16), 1 / 3, dtype=np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)
    out, imported = run("1 1 1 GRID 32 1 1 THREADS  BF16 TILE-IN  16 16 BF16 MATRIX H  16 16 F32 MATRIX C",
                        ": third 256 TID-X DO  1e 3e F/  H I 2 * + BF!  32 +LOOP ; third",
                        "TZERO  H 16 TLOAD-A  H 16 TLOAD-B  TMMA  C 16 TSTORE",
                        "1 1 1 THREADS  C 17 4 * + SF@ F.")  # C[1][1]
    assert "ml_dtypes" in imported
    assert np.float32(out) == (third @ third)[1, 1]


def test_a_lazy_module_imports_on_first_use_and_is_the_module_then():
    """tileforth/core/lazy.py's stand-in: nothing is imported until a name is read; then every name is the real
    module's (the same objects), and sys.modules holds the real module, never the stand-in. In a
    fresh process, with a module nothing else imports."""
    code = """
import sys
from tileforth.core.lazy import _Lazy
m = _Lazy("colorsys")
print("colorsys" in sys.modules)
rgb = m.hsv_to_rgb(0.0, 1.0, 1.0)
import colorsys
print(rgb, m.hsv_to_rgb is colorsys.hsv_to_rgb, sys.modules["colorsys"] is colorsys, type(sys.modules["colorsys"]).__name__)
print(sorted(n for n in ("rgb_to_hsv", "hls_to_rgb") if n in dir(m)))
"""
    assert python(code).stdout.splitlines() == [
        "False", "(1.0, 0.0, 0.0) True True module", "['hls_to_rgb', 'rgb_to_hsv']"]
