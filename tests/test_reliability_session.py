"""Issue 10, items 6 and 9: inputs that used to raise a Python exception from
the session or the CLI (OverflowError, ValueError, MemoryError, EOFError,
UnicodeDecodeError, UnicodeEncodeError, FileNotFoundError) are ForthErrors
with a position, or a CLI error line and exit status 2; and unchecked mode
says plainly that it can crash the process."""

import os
import subprocess
import sys

import numpy as np
import pytest

from tileforth.core import Forth, ForthError
from tileforth.core.front.reader import parse_float
from tileforth.repl import editor
from tileforth.repl.cli import parse_args
from tileforth.repl.session import Session

CLI = [sys.executable, "-m", "tileforth.repl.cli"]


def cli(*args, cwd=None):
    env = dict(os.environ, COLUMNS="200")
    env.pop("FORCE_COLOR", None)
    return subprocess.run(CLI + [str(a) for a in args], capture_output=True, text=True, encoding="utf-8",
                          errors="replace", env=env, timeout=300, cwd=cwd)


def no_traceback(r):
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r.stderr


@pytest.fixture(scope="module")
def s():
    return Forth(backend="cpu")


def fails_keeping_state(f, line, match):
    """`line` fails with a ForthError matching `match`; stacks and HERE are kept."""
    f.eval("11 22 1.5e")
    before = (f.data_stack(lane=None), f.float_stack(lane=None), f.here)
    with pytest.raises(ForthError, match=match) as info:
        f.eval(line)
    assert info.value.pos is not None  # the error has a source position
    assert (f.data_stack(lane=None), f.float_stack(lane=None), f.here) == before
    f.eval("DROP DROP FDROP")
    return info.value


# ---- float literals beyond f32 ---------------------------------------------------------------
def test_float_literal_beyond_f32_is_inf_at_the_prompt_and_in_a_definition(s):
    assert s.eval("1e39 F.") == "inf "
    assert s.eval("-1e39 F.") == "-inf "
    assert s.eval(": big 1e39 F. -1e39 F. ; big") == "inf -inf "
    assert s.eval("1e400 F.") == "inf "
    assert s.eval("1e-50 F.") == "0. "


def test_float_literals_round_to_f32():
    assert parse_float("3.4028235e38") == float(np.float32(3.4028235e38))  # the largest f32 stays finite
    assert parse_float("3.4028236e38") == float("inf")  # rounds beyond it
    assert parse_float("0.1") == float(np.float32(0.1))
    assert parse_float("-1e39") == float("-inf")


# ---- ARRAY / MATRIX / BUFFER: sizes -------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "4294967296 4294967296 F32 MATRIX m",     # 2^64 elements: used to wrap to 0 bytes
    "100000000000 100000000000 F32 MATRIX m",  # MemoryError
    "9223372036854775807 F32 ARRAY a",         # ValueError (numpy's dimension limit)
    "4611686018427387904 F32 ARRAY a",
    "1000000000000000 I8 ARRAY a",
])
def test_array_too_large_is_refused_with_its_size_and_the_limit(s, line):
    err = fails_keeping_state(s, line, r"bytes, more than the [0-9,]+ bytes an array may have")
    assert "make it smaller" in str(err)
    with pytest.raises(ForthError, match="unknown word"):
        s.eval(".M m" if "MATRIX" in line else ".M a")


def test_negative_buffer_size(s):
    fails_keeping_state(s, "-50 BUFFER: b", r"BUFFER: needs a size of 0 or more bytes, got -50")
    s.eval("0 BUFFER: b0")  # still fine


# ---- LOAD-NPY ------------------------------------------------------------------------------------
def _fake_npy(path, shape, data=b""):
    """A .npy file whose header claims `shape` float32s (however few bytes follow)."""
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': %r, }" % (shape,)
    hdr += " " * (117 - len(hdr)) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr.encode() + data)
    return path


def test_load_npy_refuses_bad_files_before_reading_them(s, tmp_path):
    s.eval("4 F32 ARRAY xs  2 3 F64 MATRIX mm")
    (tmp_path / "empty.npy").write_bytes(b"")
    fails_keeping_state(s, f"LOAD-NPY xs {tmp_path / 'empty.npy'}", "is empty; write it with numpy.save")
    _fake_npy(tmp_path / "huge.npy", (10**12,))
    fails_keeping_state(s, f"LOAD-NPY xs {tmp_path / 'huge.npy'}", r"holds a 1000000000000 array but xs is 4")
    _fake_npy(tmp_path / "short.npy", (4,), b"\0" * 13)
    fails_keeping_state(s, f"LOAD-NPY xs {tmp_path / 'short.npy'}",
                        r"is cut short: its header declares a 4 float32 array of 16 bytes, but 13 bytes")
    np.save(tmp_path / "str.npy", np.array(["ab", "cd", "ef", "gh"]))
    fails_keeping_state(s, f"LOAD-NPY xs {tmp_path / 'str.npy'}", r"holds <U2 values; it needs numbers")
    np.savez(tmp_path / "a.npz", x=np.arange(4))
    fails_keeping_state(s, f"LOAD-NPY xs {tmp_path / 'a.npz'}", r"is not a .npy file numpy can read")
    fails_keeping_state(s, f"LOAD-NPY xs {tmp_path}", r"cannot read")


def test_load_npy_still_reads_good_files(s, tmp_path):
    s.eval("4 F32 ARRAY ys  2 3 F64 MATRIX ms")
    np.save(tmp_path / "ok.npy", np.arange(4, dtype=">f4"))  # big-endian: converted
    s.eval(f"LOAD-NPY ys {tmp_path / 'ok.npy'}")
    assert s.array("ys").tolist() == [0, 1, 2, 3]
    np.save(tmp_path / "f.npy", np.asfortranarray(np.arange(6.0).reshape(2, 3)))  # Fortran order
    s.eval(f"LOAD-NPY ms {tmp_path / 'f.npy'}")
    assert s.array("ms").tolist() == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("header", [
    "{" * 200,  # found by tests/fuzz.py: numpy's header tokenizer raised tokenize.TokenError
    "{'descr': '<c8', 'fortran_order': 'x', 'shape': (8, }",
    "(" * 5000,
])
def test_load_npy_of_a_header_with_unclosed_brackets(s, tmp_path, header):
    s.eval("4 F32 ARRAY xb")
    hdr = header + " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    (tmp_path / "b.npy").write_bytes(b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr.encode())
    fails_keeping_state(s, f"LOAD-NPY xb {tmp_path / 'b.npy'}", r"is not a .npy file numpy can read")


def test_cli_run_param_from_a_npy_file_with_an_unclosed_bracket(kfile):
    hdr = "{'descr': '<f4', 'shape': (4, " + " " * 50 + "\n"
    (kfile.parent / "b.npy").write_bytes(b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr.encode())
    r = cli("run", kfile, "--backend", "cpu", "--param", f"X=@{kfile.parent / 'b.npy'}")
    no_traceback(r)
    assert r.returncode == 1 and "its header has an unclosed bracket" in r.stderr


# ---- EMIT of a surrogate ---------------------------------------------------------------------
def test_emit_of_a_surrogate_prints_the_replacement_character(s):
    assert s.eval("55296 EMIT 57343 EMIT 65 EMIT") == "\ufffd\ufffdA"


def test_cli_emit_of_a_surrogate():
    r = cli("--backend", "cpu", "-e", "55296 EMIT")
    no_traceback(r)
    assert r.returncode == 0 and r.stdout.startswith("\ufffd")


# ---- the CLI ------------------------------------------------------------------------------------
KERNEL = ("\\! kernel k\n\\! param X f32[N]\n\\! param N i32\n"
          "GLOBAL-ID N < IF GLOBAL-ID S>F X GLOBAL-ID 4 * + F! THEN\n")


@pytest.fixture
def kfile(tmp_path):
    p = tmp_path / "k.fth"
    p.write_text(KERNEL)
    return p


def test_cli_script_that_is_not_utf8(tmp_path):
    p = tmp_path / "bad.fth"
    p.write_bytes(b"2 3 + .\n4 \xff 5\n")
    r = cli("--backend", "cpu", p)
    no_traceback(r)
    assert r.returncode == 2
    assert f"{p}:2:3: error: byte 0xff is not UTF-8 text; save the file as UTF-8" in r.stderr


@pytest.mark.parametrize("command", ["run", "compile"])
def test_cli_kernel_file_that_is_not_utf8(tmp_path, command):
    p = tmp_path / "k.fth"
    p.write_bytes(b"\\! kernel k\n\\! param X f32[4]\n\xfe 1 DROP\n")
    r = cli(command, p)
    no_traceback(r)
    assert r.returncode == 2 and f"{p}:3:1: error: byte 0xfe is not UTF-8" in r.stderr


def test_cli_compile_to_a_folder_that_does_not_exist(kfile):
    r = cli("compile", kfile, "-o", "/nonexistent/x.ptx")
    no_traceback(r)
    assert r.returncode == 2
    assert "tileforth: error: cannot write /nonexistent/x.ptx: No such file or directory" in r.stderr


def test_cli_kernel_header_count_of_10_to_the_20(tmp_path):
    p = tmp_path / "k20.fth"
    p.write_text("\\! kernel k\n\\! param X f32[100000000000000000000]\nGLOBAL-ID DROP\n")
    for args in (["run", p, "--backend", "cpu"], ["compile", p]):
        r = cli(*args)
        no_traceback(r)
        assert r.returncode == 1
        assert f"{p}:2:16: error: bad count 100000000000000000000" in r.stderr
        assert "declare a smaller array" in r.stderr


@pytest.mark.parametrize("make, match", [
    (lambda d: np.savez(d / "p.npz", x=np.arange(3)), "is not a .npy file numpy can read"),
    (lambda d: (d / "p.npy").write_bytes(b""), "is empty"),
    (lambda d: np.save(d / "p.npy", np.array(["ab", "cd"])), "holds <U2 values; it needs numbers"),
    (lambda d: _fake_npy(d / "p.npy", (10**12,)), "of 4,000,000,000,000 bytes, more than"),
    (lambda d: _fake_npy(d / "p.npy", (8,), b"\0" * 5), "is cut short"),
])
def test_cli_run_param_from_a_bad_npy_file(kfile, make, match):
    make(kfile.parent)
    name = "p.npz" if (kfile.parent / "p.npz").exists() else "p.npy"
    r = cli("run", kfile, "--backend", "cpu", "--param", f"X=@{kfile.parent / name}")
    no_traceback(r)
    assert r.returncode == 1 and f"error: --param X: {kfile.parent / name}" in r.stderr
    assert match in r.stderr


@pytest.mark.parametrize("args, match", [
    (["--param", "N=99999999999"], r"99999999999 does not fit in N, an i32"),
    (["--param", "N=99999999999999999999999"], "does not fit in a 64-bit cell"),
    (["--param", "N=4", "--grid", "999999999999999999999"], "give a smaller --grid or --block"),
    (["--param", "N=4", "--block", "4096"], "a block has at most"),
])
def test_cli_run_huge_sizes_and_shapes(kfile, args, match):
    r = cli("run", kfile, "--backend", "cpu", *args)
    no_traceback(r)
    assert r.returncode == 1
    assert f"{kfile}: error:" in r.stderr and len(r.stderr.strip().splitlines()) == 1  # no made-up source line
    assert __import__("re").search(match, r.stderr)


def test_cli_run_still_works(kfile, tmp_path):
    np.save(tmp_path / "x.npy", np.zeros(4, np.float32))
    r = cli("run", kfile, "--backend", "cpu", "--param", f"X=@{tmp_path / 'x.npy'}", "--output-param", "X")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "X = [0. 1. 2. 3.]"


# ---- item 9: unchecked mode says it can crash the process ----------------------------------------
def test_unchecked_help_says_it_can_crash_the_process(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--unchecked UNSAFE, for benchmarks only" in text
    assert "`7 BF@`) can then crash the whole process with a segmentation fault" in text
    assert "read freed or stale memory (shared memory included)" in text
    assert not parse_args([]).unchecked  # opt-in


def test_unchecked_toolbar_warns():
    warn = "unchecked: a bad address can crash the process"
    assert warn in editor.toolbar_text(Session.start("cpu", checked=False))
    frag = [f for f in editor.toolbar_fragments(Session.start("cpu", checked=False)) if warn in f[1]]
    assert frag and frag[0][0] == "class:bottom-toolbar.unchecked"  # in red
    checked = editor.toolbar_text(Session.start("cpu"))
    assert "checked" in checked and "crash" not in checked


def test_unchecked_is_documented():
    from pathlib import Path
    doc = " ".join((Path(__file__).parent.parent / "docs" / "repl.md").read_text().split())
    assert "`--unchecked` (`Forth(checked=False)` from Python) is **unsafe**" in doc
    assert "`7 BF@` can kill the whole process with a segmentation fault" in doc
    assert "`unchecked: a bad address can crash the process`" in doc


def test_unchecked_banner_warns():
    from tileforth.repl.prompt import banner
    assert "crash the process" in banner(Session.start("cpu", checked=False))
    assert "UNCHECKED" not in banner(Session.start("cpu"))


def test_checked_mode_refuses_the_address_unchecked_mode_would_crash_on(s):
    fails_keeping_state(s, "7 BF@", r"bad address \$7 .*outside every allocation")


def test_a_kernel_file_array_larger_than_the_backend_allows_is_refused():
    """An i64 size can ask for more than any array may have: refused before anything is allocated."""
    from tileforth.export.kernelfile import parse_kernel_file, run_kernel_file
    spec = parse_kernel_file("\\! kernel big\n\\! param N i64\n\\! param X f32[N]\nGLOBAL-ID DROP\n")
    f = Forth(backend="cpu")
    with pytest.raises(ForthError, match=r"X is f32\[N\] with 100,000,000,000,000 elements, 400,000,000,000,000 "
                                         r"bytes: more than the [\d,]+ bytes an array may have on the cpu backend"):
        run_kernel_file(f, spec, {"N": 10**14})
