"""The resident server behind the `tileforth` command (tileforth/repl/resident.py, tileforth/repl/server.py): it is
opt-in, so a plain run leaves no process behind; `tileforth serve`, `tileforth server status` and
`tileforth server stop` start, show and stop one; a run through it prints, fails and exits
exactly as the same run in a fresh process (the reference: TILEFORTH_SERVER=0, the command
without a server), with the caller's working folder, environment, stdin and signals; a server
serves only its own key, one per key, forks with one thread, stops when idle or when its socket
is removed, and with TILEFORTH_SERVER=1 a first run starts one. Each server runs in a private
folder (XDG_RUNTIME_DIR) of the test's own."""
from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tileforth.repl import rendezvous, resident, server, serverctl
from tileforth.repl.args import FLAG_OPTIONS, VALUE_OPTIONS, parse_args, parser

ROOT = Path(__file__).resolve().parents[1]
COMMAND = [sys.executable, "-c", "from tileforth.repl.resident import entry; entry()"]
SERVER = [sys.executable, "-P", "-m", "tileforth.repl.server"]


def environment(folder: Path, mode: str | None, **extra: str) -> dict:
    """The environment of a run in `folder`, with TILEFORTH_SERVER=mode (None: unset, the default)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TILEFORTH_SERVER")}
    env.update(XDG_RUNTIME_DIR=str(folder), **extra)
    if mode is not None:
        env["TILEFORTH_SERVER"] = mode
    return env


def socket_file(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"tileforth-{os.getuid()}/*.sock"))


def wait_for(predicate, seconds: float, what: str):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"waited {seconds} s for {what}")


def start_server(folder: Path, **extra: str) -> subprocess.Popen:
    # a process group of its own (as a job of a shell): under setsid/nohup with no terminal, the test's own
    # group is orphaned, and the kernel drops SIGTSTP to an orphaned group's processes (the Ctrl-Z test)
    proc = subprocess.Popen(SERVER, env=environment(folder, "1", **extra), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, process_group=0)
    wait_for(lambda: socket_file(folder) or proc.poll() is not None, 120, "the server's socket")
    assert proc.poll() is None, proc.stderr.read()
    return proc


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A running server and its private folder."""
    folder = tmp_path_factory.mktemp("srv")
    proc = start_server(folder)
    yield folder, proc
    stop(proc)


def command(folder: Path, mode: str | None, args: list[str], *, stdin: str | None = None, cwd: Path | None = None,
            **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(COMMAND + args, env=environment(folder, mode, **extra), input=stdin, cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def children(pid: int) -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and _parent(int(p)) == pid]


def _parent(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


SAXPY = (ROOT / "demos" / "saxpy.fth").read_text()

RUNS = {  # what a user runs: the server's child must give the same stdout, stderr and status
    "a line": (["--backend", "cpu", "-e", "1 2 + ."], None),
    "an error": (["--backend", "cpu", "-e", ": f 1 0 / ;", "-e", "2 . f"], None),
    "the stacks at the end": (["--backend", "cpu", "-e", "1 2 3 TID-X"], None),
    "lines on stdin": (["--backend", "cpu"], "2 3 + .\nNOPE\n4 . 5\n"),
    "a bad option": (["--stacks", "sideways"], None),
    "--help": (["--help"], None),
    "a kernel to PTX": (["compile", "saxpy.fth", "--arch", "sm_80"], None),
    "a kernel run": (["run", "saxpy.fth", "--param", "X=1,2,3", "--param", "Y=10,20,30", "--param", "A=2",
                      "--param", "N=3", "--output-param", "Y"], None),
    "a file that is missing": (["--backend", "cpu", "nothere.fth"], None),
    "blocks on all cores": (["--backend", "cpu", "-e", "64 1 1 GRID 64 1 1 THREADS VARIABLE V  GLOBAL-ID 1000 0 "
                             "DO I + LOOP  V ATOMIC+ DROP  1 1 1 GRID 1 1 1 THREADS V @ ."], None),
    "the tour (tensor cores)": (["--backend", "cpu", str(ROOT / "demos" / "tour.fth")], None),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_run_through_the_server_is_the_run_without_it(served, tmp_path, name):
    folder, _ = served
    args, stdin = RUNS[name]
    (tmp_path / "saxpy.fth").write_text(SAXPY)
    here = command(folder, "off", args, stdin=stdin, cwd=tmp_path)
    there = command(folder, "only", args, stdin=stdin, cwd=tmp_path)
    assert (there.returncode, there.stdout, there.stderr) == (here.returncode, here.stdout, here.stderr)
    assert here.stdout or here.stderr


def test_the_child_runs_in_the_callers_folder(served, tmp_path):
    """A file named relative to the caller's folder, and one it INCLUDEs."""
    folder, _ = served
    (tmp_path / "lib.fth").write_text(": sq DUP * ;\n")
    (tmp_path / "main.fth").write_text("INCLUDE lib.fth\n7 sq .\n")
    run = command(folder, "only", ["--backend", "cpu", "main.fth"], cwd=tmp_path)
    assert (run.returncode, run.stdout, run.stderr) == (0, "49 ", "")


def test_the_child_takes_the_callers_descriptors_folder_environment_umask_limits_and_arguments(tmp_path):
    """server.receive in a forked process, fed by rendezvous.send_message as a client sends: what the
    child then has is what the client had (the environment whole, not the server's)."""
    client, server_end = socket.socketpair()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            server.receive(server_end)
            import resource

            print(json.dumps([os.getcwd(), dict(os.environ), sys.argv, os.umask(0), sys.stdin.read(),
                              resource.getrlimit(resource.RLIMIT_CPU)[0]]), flush=True)
        finally:
            os._exit(0)
    os.close(w)
    stdin_r, stdin_w = os.pipe()
    os.write(stdin_w, b"typed\n")
    os.close(stdin_w)
    out_r, out_w = os.pipe()
    import resource

    request = {"argv": ["-e", "1 ."], "argv0": "tf", "cwd": str(tmp_path), "env": {"ONLY": "this"}, "umask": 0o027,
               "limits": {"RLIMIT_CPU": [7, resource.getrlimit(resource.RLIMIT_CPU)[1]]}}
    rendezvous.send_message(client, json.dumps(request).encode(), (stdin_r, out_w, out_w))
    for fd in (stdin_r, out_w, r):
        os.close(fd)
    with os.fdopen(out_r) as fh:
        got = json.loads(fh.read())
    assert os.waitpid(pid, 0)[1] == 0
    assert got == [str(tmp_path), {"ONLY": "this"}, ["tf", "-e", "1 ."], 0o027, "typed\n", 7]


def test_ctrl_c_stops_a_runaway_line_with_or_without_the_server(served):
    """--steps 0 takes the budget away: SIGINT to the command stops the line (its kernel polls the
    abort flag), and the command exits with 130; through the server the signal is passed on."""
    folder, server = served
    for mode in ("off", "only"):
        proc = spinning(folder, mode)
        if mode == "only":
            wait_for(lambda: children(server.pid), 60, "the server's child")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, (mode, out, err)
    wait_for(lambda: not children(server.pid), 30, "the child to be reaped")


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def spinning(folder: Path, mode: str) -> subprocess.Popen:
    """A run of a line that loops until stopped, once it has started: its first line printed
    `spinning` (a condition, not a guess at how long start-up takes on a busy machine)."""
    proc = subprocess.Popen(COMMAND + ["--backend", "cpu", "--steps", "0", "-e", ".( spinning) CR",
                                       "-e", ": spin BEGIN AGAIN ; spin"],
                            env=environment(folder, mode), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            process_group=0)  # its own group, not orphaned under setsid/nohup (see start_server)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line != "spinning\n":
        proc.kill()
        raise AssertionError(f"the run did not start: {line!r} {proc.communicate()}")
    return proc


def test_ctrl_z_stops_the_child_and_fg_continues_it(served):
    folder, server = served
    proc = spinning(folder, "only")
    try:
        (pid,) = wait_for(lambda: children(server.pid), 60, "the server's child")
        proc.send_signal(signal.SIGTSTP)
        wait_for(lambda: _state(pid) == "T" and _state(proc.pid) == "T", 30, "both to stop")
        proc.send_signal(signal.SIGCONT)
        wait_for(lambda: _state(pid) in "RS" and _state(proc.pid) in "RS", 30, "both to go on")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130
    finally:
        proc.kill()


def test_a_client_that_goes_away_takes_its_child_with_it(served):
    folder, server = served
    proc = subprocess.Popen(COMMAND + ["--backend", "cpu", "--steps", "0", "-e", ": spin BEGIN AGAIN ; spin"],
                            env=environment(folder, "only"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    (pid,) = wait_for(lambda: children(server.pid), 60, "the server's child")
    proc.kill()
    proc.wait(timeout=30)
    wait_for(lambda: not Path(f"/proc/{pid}").exists(), 30, "the child to be killed and reaped")


def test_a_child_killed_by_a_signal_kills_the_command_the_same_way(served):
    """--unchecked: a bad address is a segmentation fault (the option's warning); the command dies of
    SIGSEGV, as it does without the server."""
    folder, _ = served
    args = ["--backend", "cpu", "--unchecked", "-e", "123456789012 @ ."]
    here = command(folder, "off", args)
    there = command(folder, "only", args)
    assert here.returncode == there.returncode == -signal.SIGSEGV


def test_only_a_server_of_the_same_key_serves(served):
    """Another value of a variable read at import (TILEFORTH_*) is another key: no server for it."""
    folder, _ = served
    run = command(folder, "only", ["--backend", "cpu", "-e", "1 ."], TILEFORTH_WORKERS="1")
    assert run.returncode == 2 and "no resident server is running" in run.stderr
    assert command(folder, "only", ["--backend", "cpu", "-e", "1 ."]).stdout == "1 "


def test_the_same_interpreter_under_another_name_is_served(served):
    """pip writes the console script's first line with the name pip ran under (`python3.11`), while
    the server was started by `python`: the same interpreter and environment, so the same key.
    (CI failed on this: its `tileforth` script named python3.11, the benchmark's server python.)"""
    folder, _ = served
    here = Path(sys.executable)
    names = [n for n in ("python", "python3", f"python3.{sys.version_info.minor}") if n != here.name]
    other = next((here.with_name(n) for n in names if here.with_name(n).exists()), None)
    if other is None:
        pytest.skip(f"no other name for {here} in its folder")
    assert os.path.realpath(other) == os.path.realpath(here)
    run = subprocess.run([str(other), *COMMAND[1:], "--backend", "cpu", "-e", "1 ."],
                         env=environment(folder, "only"), capture_output=True, text=True, timeout=300)
    assert (run.returncode, run.stdout) == (0, "1 "), run.stderr


def test_a_folder_whose_socket_path_is_too_long_for_an_address_still_serves(tmp_path):
    """A socket's address holds at most 107 bytes of path; a long TMPDIR or XDG_RUNTIME_DIR makes
    the socket's path longer (the server binds, and the client connects, by its name in the folder)."""
    folder = tmp_path / ("a-long-temporary-folder-" * 4)
    folder.mkdir()
    proc = start_server(folder)
    try:
        (sock,) = socket_file(folder)
        assert len(os.fsencode(sock)) > 107
        run = command(folder, "only", ["--backend", "cpu", "-e", "6 7 * ."])
        assert (run.returncode, run.stdout) == (0, "42 "), run.stderr
    finally:
        stop(proc)


def test_one_server_per_key(served):
    folder, _ = served
    second = subprocess.run(SERVER, env=environment(folder, "1"), capture_output=True, text=True, timeout=120)
    assert second.returncode == 0 and second.stderr == ""  # it found the lock taken and stopped
    assert len(socket_file(folder)) == 1


def test_no_server_and_only_is_an_error(tmp_path):
    run = command(tmp_path, "only", ["--backend", "cpu", "-e", "1 ."])
    assert run.returncode == 2 and run.stdout == ""
    assert "start one with `python -m tileforth.repl.server`" in run.stderr


def test_a_first_run_starts_a_server_that_stops_when_its_socket_goes(tmp_path):
    """TILEFORTH_SERVER=1: the opt-in that starts a server from a run (the run itself runs here)."""
    run = command(tmp_path, "1", ["--backend", "cpu", "-e", "6 7 * ."])
    assert (run.returncode, run.stdout) == (0, "42 ")  # run here
    (sock,) = wait_for(lambda: socket_file(tmp_path), 120, "the server started by the first run")
    served = command(tmp_path, "only", ["--backend", "cpu", "-e", "6 7 * ."])
    assert (served.returncode, served.stdout) == (0, "42 ")
    lock = open(sock.with_suffix(".lock"), "w")
    with pytest.raises(BlockingIOError):  # held by the server
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    sock.unlink()
    wait_for(lambda: _locks(lock), 30, "the server to stop")


def _locks(fh) -> bool:
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def test_an_idle_server_stops_and_removes_its_socket(tmp_path):
    proc = start_server(tmp_path, TILEFORTH_SERVER_IDLE="1")
    assert proc.wait(timeout=60) == 0
    assert socket_file(tmp_path) == []
    assert list(tmp_path.glob("tileforth-*/*.lock")) == []  # its lock file too: a key makes one


MARK = "TFTEST_MARK"  # in the environment of a test's runs, and so of every process they start (not TILEFORTH_*: the key)


def marked(mark: str) -> list[int]:
    """The live processes (zombies aside) whose environment holds MARK=mark: a run's children, and
    the detached processes it or they started, wherever they were moved in the process tree."""
    want = f"{MARK}={mark}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if _state(int(entry)) in "ZX":
                continue
            if want in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                found.append(int(entry))
        except (OSError, IndexError):
            pass
    return found


def test_a_run_leaves_no_process_behind(tmp_path):
    """issue 24: the server is opt-in. `tileforth -e "1 ."` is a plain process: when it has exited no
    process it started is left (looked for by a mark in the environment, which a detached server
    would inherit), and no socket. The same look finds what TILEFORTH_SERVER=1 leaves (a server),
    and `tileforth server stop` ends it."""
    mark = f"run-{os.getpid()}-{time.monotonic_ns()}"
    for args in (["-e", "1 ."], ["-e", "1 .", "-e", "NOPE"]):
        run = command(tmp_path, None, ["--backend", "cpu", *args], **{MARK: mark})
        # the program's output; an error after it starts a line of its own (F1, as gforth)
        assert run.stdout == ("1 " if len(args) == 2 else "1 \n") and run.returncode == (0 if len(args) == 2 else 1)
        assert marked(mark) == []
    time.sleep(1)
    assert marked(mark) == [] and socket_file(tmp_path) == []

    run = command(tmp_path, "1", ["--backend", "cpu", "-e", "1 ."], **{MARK: mark})
    assert (run.returncode, run.stdout) == (0, "1 ")
    (pid,) = wait_for(lambda: marked(mark), 60, "the server TILEFORTH_SERVER=1 starts")
    assert b"tileforth.repl.server" in Path(f"/proc/{pid}/cmdline").read_bytes()
    wait_for(lambda: socket_file(tmp_path), 120, "its socket")
    stopped = command(tmp_path, None, ["server", "stop"])
    assert (stopped.returncode, stopped.stdout) == (0, f"tileforth server: stopped process {pid}\n")
    assert marked(mark) == [] and socket_file(tmp_path) == []


def test_serve_status_and_stop(tmp_path):
    """`tileforth serve` starts a server in the background and says which; a second says it is already
    there; `tileforth server status` shows it (exit status 0) or none (1); runs go through it while it
    runs (TILEFORTH_SERVER unset); `tileforth server stop` lets a run in progress end, then stops it
    and waits for it: its socket and lock file go with it."""
    up = command(tmp_path, None, ["serve"], TILEFORTH_SERVER_IDLE="600")
    assert up.returncode == 0, up.stderr
    pid = int(up.stdout.split("process ", 1)[1].split()[0])
    try:
        assert up.stdout.startswith(f"tileforth server: process {pid} serves this tileforth")
        assert b"tileforth.repl.server" in Path(f"/proc/{pid}/cmdline").read_bytes()
        again = command(tmp_path, None, ["serve"])
        assert again.returncode == 0 and f"process {pid} already serves this tileforth" in again.stdout
        shown = command(tmp_path, None, ["server", "status"])
        assert shown.returncode == 0, shown.stdout
        assert shown.stdout.startswith(f"tileforth server: process {pid} serves this tileforth")
        assert "0 runs in progress" in shown.stdout and "stops after 600 s without a run" in shown.stdout

        spin = ["--backend", "cpu", "--steps", "0", "-e", ": spin BEGIN AGAIN ; spin"]
        proc = subprocess.Popen(COMMAND + spin, env=environment(tmp_path, None), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        (child,) = wait_for(lambda: children(pid), 60, "the server's child running the unset-mode run")
        assert "1 run in progress" in command(tmp_path, None, ["server", "status"]).stdout
        stopper = subprocess.Popen(COMMAND + ["server", "stop"], env=environment(tmp_path, None),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: not socket_file(tmp_path), 30, "the stopping server to take no more runs")
        time.sleep(0.5)
        assert stopper.poll() is None and proc.poll() is None and Path(f"/proc/{child}").exists()
        proc.send_signal(signal.SIGINT)  # the run ends as a run does: the server is still there to say how
        assert proc.wait(timeout=60) == 130, proc.stderr.read()
        out, err = stopper.communicate(timeout=60)
        assert (stopper.returncode, out, err) == (0, f"tileforth server: stopped process {pid}\n", "")
        assert list((tmp_path / f"tileforth-{os.getuid()}").glob("*.lock")) == []
        gone = command(tmp_path, None, ["server", "status"])
        assert (gone.returncode, gone.stdout) == (1, "tileforth server: none is running; `tileforth serve` starts one\n")
        assert command(tmp_path, None, ["server", "stop"]).stdout == "tileforth server: none is running\n"
    finally:
        if serverctl.is_server(pid):
            os.kill(pid, signal.SIGKILL)


def test_server_commands_have_their_help_and_refuse_a_bad_one(tmp_path):
    for args in (["serve", "--help"], ["server", "--help"], ["--help"]):
        run = command(tmp_path, None, args)
        assert run.returncode == 0 and "Fork after threads" in run.stdout, args
    bad = command(tmp_path, None, ["server", "restart"])
    assert bad.returncode == 2 and "invalid choice: 'restart'" in bad.stderr
    assert socket_file(tmp_path) == []


def test_serve_in_the_foreground_serves_until_idle(tmp_path):
    """`tileforth serve --foreground` is the server itself (`python -m tileforth.repl.server`), in this process."""
    proc = subprocess.Popen(COMMAND + ["serve", "--foreground"], env=environment(tmp_path, None, TILEFORTH_SERVER_IDLE="2"),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: socket_file(tmp_path), 120, "the foreground server's socket")
        run = command(tmp_path, "only", ["--backend", "cpu", "-e", "6 7 * ."])
        assert (run.returncode, run.stdout) == (0, "42 ")
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0 and f"tileforth server: process {proc.pid} serves" in err
    finally:
        proc.kill()
    assert socket_file(tmp_path) == []


def test_an_unknown_tileforth_server_value_is_refused(tmp_path):
    run = command(tmp_path, "sometimes", ["--backend", "cpu", "-e", "1 ."])
    assert run.returncode == 2 and run.stdout == ""
    assert "TILEFORTH_SERVER='sometimes' is not a setting; set it to 1" in run.stderr


def test_the_server_forks_with_one_thread(served):
    """The fork-after-threads hazard (server.py's docstring): numpy's BLAS starts threads at import; a
    serving server has one thread (its fork handlers ran once), and fork_hazard, checked before each
    fork, names a second thread (here a Python one) as the reason not to fork."""
    _, proc = served
    assert len(os.listdir(f"/proc/{proc.pid}/task")) == 1
    code = """
import threading
from tileforth.repl import server
print(server.fork_hazard(cuda=True))
ready = threading.Event()
t = threading.Thread(target=ready.wait)
t.start()
print(server.fork_hazard())
ready.set()
t.join()
import time
end = time.monotonic() + 10
while server.fork_hazard() and time.monotonic() < end:  # the thread's task outlives join() a moment
    time.sleep(0.01)
print(server.fork_hazard())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True).stdout
    first, threaded, after = out.splitlines()
    assert (first, after) == ("None", "None")
    assert threaded.startswith("the server has 2 threads, and a process of more than one thread may not fork")


def test_the_log_is_begun_again_when_full(tmp_path, monkeypatch):
    """start_server appends the server's messages to server.log, which starts over past LOG_BYTES."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("TILEFORTH_SERVER_IDLE", "1")
    log = Path(rendezvous.folder()) / "server.log"
    log.write_bytes(b"x" * (rendezvous.LOG_BYTES + 1))
    rendezvous.start_server()
    wait_for(lambda: b"serves" in log.read_bytes(), 120, "the server's first message")
    assert log.stat().st_size < 1000 and not log.read_bytes().startswith(b"x")
    wait_for(lambda: not socket_file(tmp_path), 60, "the idle server to stop")


def test_a_folder_others_can_open_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    private = tmp_path / f"tileforth-{os.getuid()}"
    assert rendezvous.folder() == str(private) and private.stat().st_mode & 0o777 == 0o700
    private.chmod(0o755)
    assert rendezvous.folder() is None


ARGVS = [
    [], ["-e", "1 ."], ["-e1 ."], ["f.fth"], ["-i", "f.fth"], ["-ie", "1"], ["--backend", "cpu"],
    ["--backend", "cpu", "f.fth"], ["--backend=cpu"], ["--stacks", "each", "-e", "2"], ["--echo"],
    ["--steps", "0"], ["--steps", "0", "x.fth"], ["--no-timing", "-e", "1"], ["--", "f.fth"], ["-"],
    ["--arch", "sm_90", "-e", "1", "-i"], ["--unchecked", "-e", "1"],
]


@pytest.mark.parametrize("argv", ARGVS, ids=lambda a: " ".join(a) or "(none)")
def test_which_runs_open_the_prompt_as_argparse_reads_them(argv):
    """resident.opens_prompt scans the arguments without argparse (it loads before anything
    else): where it answers, it agrees with the command's own parser."""
    answer = resident.opens_prompt(argv)
    assert answer is not None
    args = parse_args(argv)
    assert answer == (args.interactive or not (args.files or args.sources))


@pytest.mark.parametrize("argv", [["-h"], ["--help"], ["--bogus"], ["-x", "f.fth"]])
def test_arguments_the_scan_does_not_know_go_to_argparse(argv):
    assert resident.opens_prompt(argv) is None
    with pytest.raises(SystemExit):
        parse_args(argv)


def test_the_scans_option_names_are_the_parsers():
    """args.py's VALUE_OPTIONS and FLAG_OPTIONS, which the scan reads instead of argparse, name exactly the
    parser's options that take a value and its flags (-h, --version and -i aside: the scan treats them itself or leaves them to argparse)."""
    takes, flags = set(), set()
    for action in parser()._actions:
        names = {n for n in action.option_strings if n not in ("-h", "--help", "-i", "--version")}
        (takes if action.nargs != 0 else flags).update(names)
    assert takes == set(VALUE_OPTIONS) and flags == set(FLAG_OPTIONS)


# last: these change a source file's time for a moment, which a running server takes for an edit
def test_the_key_follows_the_sources_and_the_environment(monkeypatch):
    first = rendezvous.key()
    assert rendezvous.key() == first
    monkeypatch.setenv("TILEFORTH_CACHE_DIR", "elsewhere")
    assert rendezvous.key() != first
    monkeypatch.delenv("TILEFORTH_CACHE_DIR")
    monkeypatch.setenv("TILEFORTH_SERVER_IDLE", "5")  # the server's own settings are not in it
    monkeypatch.setenv("HOME", "/nowhere")  # nor variables read only at run time
    assert rendezvous.key() == first
    source = Path(resident.__file__)
    st = source.stat()
    try:
        os.utime(source, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        assert rendezvous.key() != first  # an edited source: a new server
    finally:
        os.utime(source, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert rendezvous.key() == first


def test_a_server_stops_when_a_source_file_changes(tmp_path):
    """An edited source: the next run will want a new server, so the old one stops by itself."""
    proc = start_server(tmp_path)
    source = Path(resident.__file__)
    st = source.stat()
    try:
        time.sleep(server.STALE_CHECK_S + 1)
        assert proc.poll() is None  # its key, recomputed while idle, is still its own
        os.utime(source, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        assert proc.wait(timeout=60) == 0
    finally:
        os.utime(source, ns=(st.st_atime_ns, st.st_mtime_ns))
        stop(proc)
    assert socket_file(tmp_path) == []


@pytest.mark.parametrize("mode", ["off", "1"])
def test_a_command_without_stdout_or_in_a_removed_folder_still_runs(served, tmp_path, mode):
    """`tileforth -e ... >&-` writes nowhere and exits 0, as gforth does (Python makes sys.stdout None);
    without stderr an error still exits 1; a folder removed under the command: the run goes on there
    (here, not through the server, which could not enter it)."""
    folder, _ = served
    env = environment(folder, mode, TILEFORTH_SERVER_IDLE="1")  # a server these runs start stops soon
    args = COMMAND + ["--backend", "cpu", "-e"]
    no_out = subprocess.run(args + ["4 ."], env=env, stderr=subprocess.PIPE, text=True, timeout=300,
                            preexec_fn=lambda: os.close(1))
    assert (no_out.returncode, no_out.stderr) == (0, "")
    no_err = subprocess.run(args + ["4 . NOPE"], env=env, capture_output=True, text=True, timeout=300,
                            preexec_fn=lambda: os.close(2))
    assert (no_err.returncode, no_err.stdout) == (1, "")
    gone = tmp_path / "gone"
    gone.mkdir()
    run = subprocess.run(args + ["2 3 * ."], env=env, cwd=gone, capture_output=True, text=True, timeout=300,
                         preexec_fn=lambda: os.rmdir(gone))
    assert (run.returncode, run.stdout, run.stderr) == (0, "6 ", "")


def test_the_prompt_runs_in_the_command_itself(served):
    """On a terminal the prompt opens in the command's own process, even with TILEFORTH_SERVER=only
    (the server is for runs that do not open it): the console script's path to it."""
    pexpect = pytest.importorskip("pexpect")
    folder, server = served
    child = pexpect.spawn(COMMAND[0], COMMAND[1:] + ["--backend", "cpu"], env=environment(folder, "only"),
                          encoding="utf-8", timeout=120, dimensions=(24, 100))
    try:
        child.expect("BYE or Ctrl-D leaves")
        assert children(server.pid) == []
        child.sendline("20 22 + .")
        child.expect("42")
        child.sendline("BYE")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


@pytest.mark.parametrize("name", ["tileforth", "tileforth.core", "tileforth.backends", "tileforth.repl",
                                  "numpy", "llvmlite", "rich", "prompt_toolkit", "ml_dtypes", "no_such_module"])
def test_find_spec_is_importlibs(name):
    """rendezvous.find_spec (the key's, without importing importlib.util) finds what importlib does."""
    import importlib.util

    mine, ref = rendezvous.find_spec(name), importlib.util.find_spec(name)
    assert (mine is None) == (ref is None)
    if ref is not None:
        assert (mine.name, mine.origin, mine.submodule_search_locations) == \
            (ref.name, ref.origin, ref.submodule_search_locations)


def test_a_source_file_gone_while_the_key_is_made_is_left_out(monkeypatch):
    """An editor that saves by replacing a file can remove it between the listing and the stat: the
    key is made without it (it differs, so the next run starts a new server), never a traceback."""
    first = rendezvous.key()
    real = os.stat

    def vanishing(path, *args, **kwargs):
        if str(path).endswith("resident.py"):
            raise FileNotFoundError(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(rendezvous.os, "stat", vanishing)
    assert rendezvous.key() != first
