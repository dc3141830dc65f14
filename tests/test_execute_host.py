r"""EXECUTE reaches host-level words (issue 25, F7).

In a one-thread launch (`1 1 1 GRID 1 1 1 THREADS`, the way ordinary Forth
programs run) EXECUTE of any token works wherever it is reached: device code
that reaches EXECUTE is walked on the host once some token names a word only
the host can run (tileforth/core/session/hostexec.py). Each program below is
compared with gforth 0.7.3's output and stack. At more threads the device
runs the line, and the error names the word and the position of the EXECUTE
and says to run it at one thread. gforth's own ttester.fs (tests/programs/)
reports failing tests and goes on.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gforth
import pytest
from gforth import GFORTH, require
from tileforth.core import Forth, ForthError

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "programs"
ONE_THREAD = "1 1 1 GRID 1 1 1 THREADS"
HW = ': hw ." [" SOURCE TYPE ." ]" ;'  # a host-level word: SOURCE is the host's

PROGRAMS_AT_ONE_THREAD = {
    "constant": f"{HW}  ' hw CONSTANT x  : run x EXECUTE ;  run",
    "defer": f"{HW}  DEFER d  ' hw IS d  : go 1 2 + . d ;  go",
    "variable": f"{HW}  VARIABLE v  ' hw v !  : go v @ EXECUTE ;  go",
    "noname_comma": ":NONAME 5 , ; CONSTANT n  : go n EXECUTE n EXECUTE ;  HERE go  HERE SWAP - .  HERE 8 - @ .",
    "noname_c_comma": ":NONAME 65 C, 66 C, ; CONSTANT n  : go n EXECUTE ;  HERE go 2 TYPE",
    "in_a_loop": f"{HW}  ' hw CONSTANT x  : run x EXECUTE ;  : t 3 0 DO I . run LOOP ;  t 1 2 + .",
    "to_in_where_read": ": p >IN @ . ;  ' p CONSTANT y  : r y EXECUTE ;  r 1 2 3 . . .",
    "allocate_free": ": fr FREE THROW ;  : run EXECUTE ;  100 ALLOCATE THROW ' fr run  .\" freed\"",
    "defer_recursion": "DEFER step  : h HERE DROP ;  ' h CONSTANT hx\n"
                       ": down ( n -- ) DUP 0> IF DUP . hx EXECUTE 1- step ELSE DROP THEN ;  ' down IS step\n"
                       "4 step",
    "device_tokens_too": ": h HERE DROP ;  ' h DROP  7 CONSTANT seven\n"
                         ": go ['] + EXECUTE ['] seven EXECUTE ['] DUP EXECUTE ;  2 3 go . . .",
    "return_stack_and_locals": f"{HW}  ' hw CONSTANT x\n"
                               ": go { a b } a >R x EXECUTE R> b + ;  3 4 go .",
    "catch_a_throw_after_a_host_word": ": bad SOURCE 2DROP -7 THROW ;  ' bad CONSTANT b  : go b EXECUTE ;\n"
                                       "' go CATCH .  5 .",
    "execute_of_execute": f"{HW}  : go ['] hw ['] EXECUTE EXECUTE ;  go",
    "does_vector": ": vector CREATE 0 DO , LOOP DOES> SWAP CELLS + @ EXECUTE ;\n"
                   ":NONAME .\" one \" ; :NONAME HERE DROP .\" zero \" ; 2 vector v\n"
                   "0 v 1 v",
    "nested_walks": f"{HW}  ' hw CONSTANT x  : a x EXECUTE ;  ' a CONSTANT ax  : b ax EXECUTE 1 . ;  b",
}


def one_thread() -> Forth:
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    return f


@pytest.mark.parametrize("name", sorted(PROGRAMS_AT_ONE_THREAD))
def test_execute_of_a_host_word_in_compiled_code_does_what_gforth_does(name):
    program = PROGRAMS_AT_ONE_THREAD[name]
    expected = gforth.run(program)
    with one_thread() as f:
        assert f.eval(program) == expected.output
        assert f.data_stack() == expected.stack


def test_a_line_of_device_tokens_only_stays_on_the_device():
    """No token names a host word: EXECUTE in compiled code is the device's (the host walks
    nothing), at one thread too."""
    with one_thread() as f:
        f.eval(": go ['] + EXECUTE ;")
        launches = []
        f.on_segment = lambda nodes, tiles: launches.append(nodes)
        assert f.eval("2 3 go .") == gforth.output("2 3 : go ['] + EXECUTE ; go .")
        assert len(launches) == 1


def test_more_threads_name_the_word_and_the_position_and_say_how_to_run_it():
    f = Forth(backend="cpu")  # 32 threads
    f.eval(HW + "  ' hw CONSTANT x", source="lib.fth")
    f.eval(": run 1 DROP x EXECUTE ;", source="lib.fth", line=2)
    with pytest.raises(ForthError) as e:
        f.eval("run", source="main.fth")
    err = e.value
    assert (err.pos.source, err.pos.line, err.pos.col) == ("lib.fth", 2, 16)  # the EXECUTE in run
    assert "EXECUTE in run" in err.message and "hw runs on the host (it uses SOURCE)" in err.message
    assert "32 threads" in err.message and ONE_THREAD in err.message
    f.eval(ONE_THREAD)  # as the message says
    assert f.eval("run", source="main.fth") == "[run]"


def test_a_defer_names_where_it_is_called_not_where_it_was_declared():
    f = Forth(backend="cpu")
    f.eval(HW + "  DEFER d  ' hw IS d", source="lib.fth")
    f.eval(": go 1 2 + DROP d ;", source="main.fth", line=5)
    with pytest.raises(ForthError) as e:
        f.eval("go", source="main.fth", line=6)
    err = e.value
    assert (err.pos.source, err.pos.line, err.pos.col) == ("main.fth", 5, 17)  # the d in go
    assert "EXECUTE in d" in err.message and "hw runs on the host" in err.message


def test_an_underflow_or_a_bad_token_in_a_walk_is_an_error_with_gforths_meaning():
    with one_thread() as f:
        f.eval(HW + "  ' hw DROP  : go EXECUTE ;")
        with pytest.raises(ForthError) as e:
            f.eval("go")
        assert "stack underflow" in e.value.message and e.value.code == -4
        with pytest.raises(ForthError) as e:
            f.eval("0 go")
        assert "0 is not an execution token" in e.value.message
        assert f.data_stack() == [] and f.eval("1 2 + .") == "3 "  # the session goes on


def test_a_runaway_recursion_through_execute_stops_with_an_error():
    with one_thread() as f:
        f.eval("DEFER r  : h HERE DROP ;  ' h CONSTANT hx  : w hx EXECUTE r ;  ' w IS r")
        with pytest.raises(ForthError) as e:
            f.eval("w")
        assert "base case" in e.value.message or "step budget" in e.value.message
        assert f.eval("1 .") == "1 "


# ---- gforth's ttester.fs (tests/programs/ttester.fs, as gforth 0.7.3 installs it) ----------------

TESTS = r"""T{ 1 2 + -> 3 }T
T{ 1 2 + -> 4 }T
T{ 1 2 -> 1 }T
T{ 1e 2e F+ -> 3e }T
.( done) CR
"""


def test_ttesters_error_reports_failing_tests_and_goes_on(tmp_path):
    require()
    prog = tmp_path / "tests.fth"
    prog.write_text(f"include {PROGRAMS / 'ttester.fs'}\n" + TESTS)
    shape = tmp_path / "one-thread.fth"
    shape.write_text(ONE_THREAD + "\n")
    want = subprocess.run([GFORTH, str(prog), "-e", "bye"], capture_output=True, text=True, timeout=60,
                          cwd=PROGRAMS, stdin=subprocess.DEVNULL)
    assert want.returncode == 0 and "INCORRECT RESULT" in want.stdout, want.stderr
    env = dict(os.environ, PYTHONPATH=str(ROOT), TILEFORTH_SERVER="0")
    got = subprocess.run([sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu", "--stacks", "none",
                          str(shape), str(prog)], capture_output=True, text=True, timeout=120, cwd=PROGRAMS,
                         stdin=subprocess.DEVNULL, env=env)
    assert got.returncode == 0, got.stderr
    assert got.stdout == want.stdout


# ---- the cuda backend: the same decision (the stand-in driver runs no kernels) -------------------

def test_on_the_cuda_backend_one_thread_walks_and_more_threads_launch():
    """Kernels do not run on the stand-in driver, so the program is one whose walk needs none: a
    token pushed by the host (a constant), and a host word that stores with `,`. At one thread
    the store happens (the walk ran the host word); at 32 threads it is left to the device."""
    from standins import standins
    with standins("pycuda"):
        for threads, moved in ((1, 8), (32, 0)):
            f = Forth(backend="cuda")
            try:
                f.eval(f"1 1 1 GRID {threads} 1 1 THREADS")
                f.eval(": st 5 , ;  ' st CONSTANT sx  : run sx EXECUTE ;")
                here = f.here
                f.eval("run")
                assert f.here - here == moved
                if moved:
                    assert f.read_cell(f.data_addr + here) == 5  # `here` is data space's offset
            finally:
                f.backend.close()
