"""`tileforth --backend cuda` as a process, on the stand-in driver (PYTHONPATH=tests/standin):
the session's context must be off the stack when the process exits, or PyCUDA
aborts it ("PyCUDA ERROR: The context stack was not empty upon module cleanup.").
Kernels do not run on the stand-in: the checks are the exit status and what
the host prints."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

STANDIN = Path(__file__).parent / "standin"
ABORT = "PyCUDA ERROR: The context stack was not empty upon module cleanup."


def _run(*args: str, stdin: str | None = None, code: str | None = None, **env: str) -> subprocess.CompletedProcess:
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([str(STANDIN), os.environ.get("PYTHONPATH", "")]), **env)
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "tileforth.repl.cli", *args]
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=environ, timeout=300)


def test_the_standin_aborts_like_pycuda_when_a_context_is_left_on_the_stack():
    proc = _run(code="import pycuda.driver as cuda; cuda.init(); cuda.Device(0).make_context()")
    assert proc.returncode != 0 and ABORT in proc.stderr


def test_a_cuda_run_exits_cleanly():
    proc = _run("--backend", "cuda", "-e", "1 2 + .", "-e", "HELP DUP")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert "Duplicate the top cell." in proc.stdout


def test_a_cuda_script_with_a_recursive_word_exits_cleanly(tmp_path):
    script = tmp_path / "fact.fth"
    script.write_text(": fact ( n -- n! ) DUP 1 > IF DUP 1- RECURSE * THEN ;\n5 fact DROP\n.STACKS\n")
    proc = _run("--backend", "cuda", str(script))
    assert proc.returncode == 0 and ABORT not in proc.stderr, proc.stderr
    assert "data  <0>" in proc.stdout


def test_a_cuda_prompt_on_stdin_exits_cleanly_after_an_error():
    proc = _run("--backend", "cuda", stdin="2 2 +\nNO-SUCH-WORD\nHELP SWAP\n")
    assert proc.returncode == 1 and ABORT not in proc.stderr  # 1: a line failed; no abort
    assert "unknown word NO-SUCH-WORD" in proc.stdout + proc.stderr and "( x1 x2 -- x2 x1 )" in proc.stdout


def test_the_device_is_named_by_its_exact_architecture():
    proc = _run("--backend", "cuda", "-e", "HELP DUP", PYCUDA_STANDIN_CC="9.9")
    assert proc.returncode == 2 and "sm_99" in proc.stderr and ABORT not in proc.stderr
