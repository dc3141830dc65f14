"""Issue 26, the resident server: a run through a server's child is the process the command would
be (its nice value, CPU affinity, every resource limit, TZ), or the command runs itself; a child
dies with its server (`kill -9` of the server leaves no run writing to the terminal); a client that
sends nothing does not keep a child waiting; a relative TMPDIR or XDG_RUNTIME_DIR is passed over.
Each test waits for a condition (a child process, a line), never a fixed time."""
from __future__ import annotations

import datetime
import os
import resource
import signal
import socket
import subprocess
import zoneinfo
from pathlib import Path

import pytest
from test_resident import COMMAND, _state, children, command, environment, socket_file, start_server, stop, wait_for
from tileforth.repl import rendezvous, resident, server


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("srv")
    proc = start_server(folder)
    yield folder, proc
    stop(proc)


def spin(folder: Path, mode: str = "only", preexec=None, **extra: str) -> subprocess.Popen:
    """A run whose line loops until stopped, once its first line has printed `spinning`."""
    proc = subprocess.Popen(COMMAND + ["--backend", "cpu", "--steps", "0", "-e", ".( spinning) CR",
                                       "-e", ": spin BEGIN AGAIN ; spin"],
                            env=environment(folder, mode, **extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=preexec)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line != "spinning\n":
        proc.kill()
        raise AssertionError(f"the run did not start: {line!r} {proc.communicate()}")
    return proc


def test_the_child_takes_the_callers_nice_value_cpu_affinity_and_stack_limit(served):
    """`nice -n 7 taskset -c 0 tileforth ...` under `ulimit -s` lower than the server's: the child
    has all three (the server has none of them)."""
    folder, srv = served
    base = os.getpriority(os.PRIO_PROCESS, 0)  # the suite may itself run under nice
    want = min(19, base + 7)  # what `nice -n 7` gives the caller (the kernel caps it at 19)
    if want == base:
        pytest.skip("the suite runs at nice 19: a nicer caller cannot be told from the server")
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    stack = 4 << 20 if soft == resource.RLIM_INFINITY or soft > 4 << 20 else soft // 2

    def caller():
        os.nice(7)
        os.sched_setaffinity(0, {0})
        resource.setrlimit(resource.RLIMIT_STACK, (stack, hard))

    proc = spin(folder, preexec=caller)
    try:
        (pid,) = wait_for(lambda: children(srv.pid), 60, "the server's child")
        assert os.getpriority(os.PRIO_PROCESS, srv.pid) != want  # the server's own
        assert os.getpriority(os.PRIO_PROCESS, pid) == want
        assert os.sched_getaffinity(pid) == {0}
        assert resource.prlimit(pid, resource.RLIMIT_STACK) == (stack, hard)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130
    finally:
        proc.kill()


def test_the_child_keeps_the_callers_time_zone(served):
    """TIME&DATE through the server for TZ=Asia/Tokyo: Tokyo's hour, not the server's (UTC)."""
    folder, _ = served
    before = datetime.datetime.now(zoneinfo.ZoneInfo("Asia/Tokyo"))
    run = command(folder, "only", ["--backend", "cpu", "-e", "1 1 1 THREADS TIME&DATE . . . . . ."], TZ="Asia/Tokyo")
    after = datetime.datetime.now(zoneinfo.ZoneInfo("Asia/Tokyo"))
    assert run.returncode == 0, run.stderr
    year, month, day, hour, minute, _ = map(int, run.stdout.split())
    assert (day, hour) in {(before.day, before.hour), (after.day, after.hour)}


def test_a_child_the_server_cannot_make_like_the_caller_is_refused_and_the_command_runs_itself(tmp_path,
                                                                                                 monkeypatch):
    """A nice value the child may not take (a priority above the server's, as for a user who is not
    root): it says so ("N"), and the client gets None (it runs the command itself) and the reason."""
    path = str(tmp_path / "s.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    pid = os.fork()
    if pid == 0:
        try:
            conn, _ = listener.accept()
            os.nice(1)  # the child's nice differs from the caller's

            def refuse(*a):
                raise PermissionError(13, "Permission denied")

            os.setpriority = refuse
            os._exit(0 if server.handshake(conn) is None else 3)
        finally:
            os._exit(4)
    listener.close()
    monkeypatch.setattr(resident, "refused", None)
    relay = resident.Relay()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        assert resident._hand_over(sock, path, ["-e", "1 ."], relay) is None
    finally:
        sock.close()
        relay.give_back()
    assert os.waitpid(pid, 0)[1] == 0
    assert resident.refused == rendezvous.REFUSALS[0] and "nice value" in resident.refused


def test_a_server_killed_takes_its_running_children_with_it(tmp_path):
    """`kill -9` of a server while a run is in progress: the run ends too (it would go on writing to
    the terminal), and the command says the server went away."""
    srv = start_server(tmp_path)
    try:
        proc = spin(tmp_path)
        (pid,) = wait_for(lambda: children(srv.pid), 60, "the server's child")
        srv.kill()
        srv.wait(timeout=30)
        wait_for(lambda: not Path(f"/proc/{pid}").exists() or _state(pid) in "ZX", 30, "the child to end")
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 1 and "the resident server went away" in err
    finally:
        srv.kill()


def test_a_connection_that_sends_nothing_does_not_keep_a_child_waiting(served, monkeypatch):
    folder, srv = served
    (sock_path,) = socket_file(folder)
    before = set(children(srv.pid))
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        silent.connect(str(sock_path))
        (pid,) = wait_for(lambda: set(children(srv.pid)) - before, 60, "the child for the silent connection")
        wait_for(lambda: pid not in children(srv.pid), rendezvous.HANDSHAKE_S + 60, "the child to give up")
    finally:
        silent.close()
    assert command(folder, "only", ["--backend", "cpu", "-e", "1 ."]).stdout == "1 "  # the server still serves


def test_a_relative_runtime_folder_or_tmpdir_is_passed_over(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("TMPDIR", "rel")
    assert rendezvous.base_folder() == f"/tmp/tileforth-{os.getuid()}"
    monkeypatch.setenv("XDG_RUNTIME_DIR", "rel")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert rendezvous.base_folder() == str(tmp_path / f"tileforth-{os.getuid()}")


def test_a_run_with_a_relative_runtime_folder_starts_a_server_that_serves(tmp_path):
    """XDG_RUNTIME_DIR=rel (relative), TMPDIR the test's folder: TILEFORTH_SERVER=1 starts a server in
    TMPDIR's private folder, which serves the next run (it crashed renaming its socket into `rel`)."""
    work = tmp_path / "work"
    (work / "rel").mkdir(parents=True)
    env = {"XDG_RUNTIME_DIR": "rel", "TMPDIR": str(tmp_path)}
    first = subprocess.run(COMMAND + ["--backend", "cpu", "-e", "1 ."], env={**environment(tmp_path, "1"), **env},
                           cwd=work, capture_output=True, text=True, timeout=300)
    assert (first.returncode, first.stdout) == (0, "1 ")
    try:
        wait_for(lambda: socket_file(tmp_path), 120, "the server's socket in TMPDIR's folder")
        served = subprocess.run(COMMAND + ["--backend", "cpu", "-e", "2 ."], env={**environment(tmp_path, "only"),
                                **env}, cwd=work, capture_output=True, text=True, timeout=300)
        assert (served.returncode, served.stdout) == (0, "2 "), served.stderr
        assert not list((work / "rel").iterdir())
    finally:
        subprocess.run(COMMAND + ["server", "stop"], env={**environment(tmp_path, None), **env}, cwd=work,
                       capture_output=True, timeout=120)
