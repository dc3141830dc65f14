"""The step debugger's keys at the REPL, typed into a real terminal (tmux) as a person would: DEBUG a line,
step it with `s`, finish it with `c`; the toolbar names the keys while a line is stopped."""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


def _pane(name: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout


def _wait_for(name: str, text: str, limit: float = 60.0) -> str:
    end = time.monotonic() + limit  # a bound on waiting, not a timing assertion
    while time.monotonic() < end:
        pane = _pane(name)
        if text in pane:
            return pane
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared:\n{_pane(name)}")


def test_stepping_with_keys_in_a_terminal(tmp_path):
    name = f"tfdebug{os.getpid()}"
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path))
    cmd = f"{sys.executable} -m tileforth --backend cpu"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "140", "-y", "50", cmd], env=env, check=True,
                   cwd=tmp_path)
    try:
        _wait_for(name, "checked")  # the toolbar: the prompt is up
        subprocess.run(["tmux", "send-keys", "-t", name, "8 1 1 THREADS DEBUG TID-X 2 MOD IF 5 THEN", "Enter"])
        pane = _wait_for(name, "next: TID-X")
        pane = _wait_for(name, "s DSTEP")  # the toolbar shows the keys
        subprocess.run(["tmux", "send-keys", "-t", name, "s"])
        _wait_for(name, "next: 2")
        for _ in range(3):
            subprocess.run(["tmux", "send-keys", "-t", name, "s"])
            time.sleep(0.5)
        pane = _wait_for(name, "next: 5")
        assert "mask ·█·█·█·█" in pane  # the odd lanes take the branch
        subprocess.run(["tmux", "send-keys", "-t", name, "c"])
        pane = _wait_for(name, "debug: done")
        assert "s DSTEP" not in pane.splitlines()[-1]
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def test_a_long_line_shows_progress_and_a_quick_one_does_not(tmp_path):
    name = f"tfprog{os.getpid()}"
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path))
    cmd = f"{sys.executable} -m tileforth --backend cpu"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "140", "-y", "50", cmd], env=env, check=True,
                   cwd=tmp_path)
    try:
        _wait_for(name, "checked")
        subprocess.run(["tmux", "send-keys", "-t", name, "1 2 + . CR", "Enter"])
        pane = _wait_for(name, "time  ")
        assert "running" not in pane
        subprocess.run(["tmux", "send-keys", "-t", name, "3000 MS", "Enter"])
        _wait_for(name, "… running")
        subprocess.run(["tmux", "send-keys", "-t", name, "C-c"])  # Ctrl-C still stops it
        pane = _wait_for(name, "interrupted")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def test_a_long_launch_shows_its_blocks_done_and_ctrl_c_stops_it(tmp_path):
    """At the prompt and in a file run (its stderr a terminal): a launch that runs long shows its blocks and
    threads done of all; Ctrl-C stops it at once; a file's line that ends shows its output on a clean line."""
    name = f"tfblocks{os.getpid()}"
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path))
    cmd = f"{sys.executable} -m tileforth --backend cpu"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "160", "-y", "50", cmd], env=env, check=True,
                   cwd=tmp_path)
    try:
        _wait_for(name, "checked")
        subprocess.run(["tmux", "send-keys", "-t", name,
                        "0 SET-STEP-BUDGET 1024 1 1 GRID 256 1 1 THREADS : spin 0 SWAP 0 DO I + LOOP DROP ; 10000000 spin", "Enter"])
        pane = _wait_for(name, "of 1,024 blocks")
        assert "of 262,144 threads" in pane and "launch 1:" in pane
        subprocess.run(["tmux", "send-keys", "-t", name, "C-c"])
        pane = _wait_for(name, "interrupted")
        assert "of 1,024 blocks" not in pane.splitlines()[-1]
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
    src = tmp_path / "long.fth"
    # a few seconds of work: the progress line stays long enough for the pane to be read while it shows
    src.write_text("64 1 1 GRID 256 1 1 THREADS\n: spin 0 SWAP 0 DO I + LOOP DROP ;\n200000 spin\n.\" ran\" CR\n")
    name = f"tffile{os.getpid()}"
    cmd = f"{sys.executable} -m tileforth --backend cpu --steps 0 {src}; echo exit=$?; sleep 30"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "160", "-y", "50", cmd], env=env, check=True,
                   cwd=tmp_path)
    try:
        seen = _wait_for(name, "blocks")
        assert "of 64 blocks, " in seen
        pane = _wait_for(name, "exit=0")
        assert "ran" in [ln.strip() for ln in pane.splitlines()]  # its own line: the progress was cleared
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def test_the_t_key_shows_the_top_tile_at_the_stop(tmp_path):
    name = f"tftile{os.getpid()}"
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path))
    cmd = f"{sys.executable} -m tileforth --backend cpu"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "160", "-y", "60", cmd], env=env, check=True,
                   cwd=tmp_path)
    try:
        _wait_for(name, "checked")
        subprocess.run(["tmux", "send-keys", "-t", name,
                        "16 16 F16 MATRIX A  RAMP A  DEBUG TZERO A 16 TLOAD-A TDROP TDROP", "Enter"])
        _wait_for(name, "next: TZERO")
        pane = _wait_for(name, "t 0 DTILE")  # the toolbar names the key
        for word in ("A", "16", "TLOAD-A", "TDROP"):
            subprocess.run(["tmux", "send-keys", "-t", name, "s"])
            _wait_for(name, f"next: {word}")
        subprocess.run(["tmux", "send-keys", "-t", name, "t"])
        pane = _wait_for(name, "a 16x16 f16: the top of the tile stack <2>")
        rows = [ln.split() for ln in pane.splitlines() if ln.split()[:1] == ["1"] and len(ln.split()) == 17]
        assert rows and rows[-1][1:] == [str(v) for v in range(16, 32)]  # RAMP A's second row
        subprocess.run(["tmux", "send-keys", "-t", name, "c"])
        _wait_for(name, "debug: done")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
