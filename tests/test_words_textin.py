"""The text interpreter's input as Forth words see it: SOURCE >IN WORD PARSE
PARSE-NAME REFILL EVALUATE INCLUDED INCLUDE REQUIRE (issue 11 item 8),
against gforth. Programs may span lines (one eval, as a file)."""
from __future__ import annotations

import pytest

import gforth
from forthtest import ONE_THREAD
from tileforth.core import Forth, ForthError

gforth_only = pytest.mark.skipif(not gforth.available(), reason="gforth is not installed")


def fresh() -> Forth:
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    return f


PROGRAMS = {
    "evaluate": 'S" 2 3 + ." EVALUATE',
    "evaluate-in-interp-state": ': GE1 S" 123" ; IMMEDIATE : GE2 S" 123 1+" ; IMMEDIATE GE1 EVALUATE . GE2 EVALUATE .',
    "evaluate-in-compile-state": ': GE1 S" 123" ; IMMEDIATE : GE5 EVALUATE ; IMMEDIATE : GE6 GE1 GE5 ; GE6 .',
    "evaluate-defines": 'S" : nine 9 ;" EVALUATE nine .',
    "source-in-evaluate": ': GS1 S" SOURCE" 2DUP EVALUATE >R SWAP >R = R> R> = ; GS1 . .',
    "rescan-with-in": "VARIABLE SCANS : RESCAN? -1 SCANS +! SCANS @ IF 0 >IN ! THEN ;\n2 SCANS !\n345 RESCAN? .S",
    "rescan-in-evaluate": 'VARIABLE SCANS : RESCAN? -1 SCANS +! SCANS @ IF 0 >IN ! THEN ;\n'
                          ': GS2 5 SCANS ! S" 123 RESCAN?" EVALUATE ; GS2 .S',
    "word": ": GS3 WORD COUNT SWAP C@ ; BL GS3 HELLO . . CHAR \" GS3 GOODBYE\" . .",
    "skip-rest-of-line": ": GS4 SOURCE >IN ! DROP ; GS4 123 456\n7 .",
    "in-fetch": ">IN @ 5 > .",
    "parse-name": "PARSE-NAME hello TYPE PARSE-NAME   spaced TYPE",
    "parse": "CHAR ) PARSE abc) TYPE 5 .",
    "source-length": "SOURCE NIP .",
    "refill": "REFILL . 42 .\n7 .",
}


@gforth_only
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_like_gforth(name):
    program = PROGRAMS[name]
    ref = gforth.run(program)
    f = fresh()
    out = f.eval(program)
    assert (out, f.data_stack()) == (ref.output, ref.stack), f"tileforth {out!r} {f.data_stack()}"


def test_include_and_require(tmp_path):
    lib = tmp_path / "lib.fth"
    lib.write_text(": sq DUP * ;\nVARIABLE loads  1 loads +!\n")
    f = fresh()
    f.eval(f"INCLUDE {lib}")
    f.eval(f"REQUIRE {lib}")  # included already: not again
    assert f.eval("loads @ . 7 sq .") == "1 49 "
    f.eval(f'S" {lib}" INCLUDED')
    assert f.eval("loads @ .") == "1 "  # a new VARIABLE loads (the file ran again)
    with pytest.raises(ForthError, match="cannot read"):
        f.eval(f"INCLUDE {tmp_path / 'missing.fth'}")
    bad = tmp_path / "bad.fth"
    bad.write_text(": ok 1 ;\nno-such-word\n")
    with pytest.raises(ForthError, match="unknown word no-such-word") as info:
        f.eval(f"INCLUDE {bad}")
    assert info.value.pos.line == 2 and str(bad) in info.value.pos.source
    assert "OK" not in f.dict  # the failed line left the dictionary as it was


def _library(root):
    """root/a/main.fs includes sub/x.fs (a/sub/x.fs, not root/sub/x.fs), which includes y.fs (a/sub/y.fs,
    not root/y.fs) and REQUIREs ../lib.fs (a/lib.fs) twice."""
    for rel, text in {"a/main.fs": '.( main ) include sub/x.fs  s" sub/y.fs" included\n',
                      "a/sub/x.fs": ".( a/sub/x ) include y.fs  require ../lib.fs  require ../lib.fs\n",
                      "a/sub/y.fs": ".( a/sub/y )\n", "a/lib.fs": ".( a/lib )\n",
                      "sub/x.fs": ".( wrong:sub/x )\n", "y.fs": ".( wrong:y )\n", "lib.fs": ".( wrong:lib )\n",
                      "sub/y.fs": ".( wrong:sub/y )\n", "only-here.fs": ".( cwd )\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


@gforth_only
def test_include_looks_next_to_the_including_file_first(tmp_path, monkeypatch):
    """Nested INCLUDE INCLUDED REQUIRE of relative names find the files next to the file that includes
    them, as gforth does, though the working directory has files of the same names."""
    _library(tmp_path)
    monkeypatch.chdir(tmp_path)
    program = "include a/main.fs"
    ref = gforth.run(f"include {tmp_path}/a/main.fs")  # (gforth runs from a folder of its own)
    assert ref.output == "main a/sub/x a/sub/y a/lib a/sub/y "
    assert fresh().eval(program) == ref.output


def test_include_then_looks_in_the_working_directory(tmp_path, monkeypatch):
    """A name not next to the including file is looked for in the working directory (gforth looks in its
    search path, which a program's folder is on when it is run from there)."""
    _library(tmp_path)
    (tmp_path / "a" / "cwd.fs").write_text("require only-here.fs\n")
    monkeypatch.chdir(tmp_path)
    f = fresh()
    assert f.eval("include a/cwd.fs  include a/cwd.fs") == "cwd "
    (tmp_path / "a" / "gone.fs").write_text("include no-such.fs\n")
    with pytest.raises(ForthError, match="no-such.fs .looked in a and the working directory"):
        f.eval("include a/gone.fs")


def test_keyboard_words_say_why_not():
    f = fresh()
    for word in ("KEY", "PAD 10 ACCEPT"):
        with pytest.raises(ForthError, match="keyboard"):
            f.eval(word)


def test_refill_takes_the_next_line_from_more_input():
    """A program feeding a file line by line hands REFILL its next line
    (Forth.more_input), as toolstest.fth's PT10 and filetest.fth's SI2 need;
    without it REFILL at the end of the line is false."""
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    f.eval(": PT10 REFILL DROP REFILL DROP ;")
    assert f.eval("REFILL .") == "0 "
    lines = iter(["3 .", "4 ."])
    f.more_input = lambda: next(lines, None)
    assert f.eval("1 . PT10 ignored") == "1 4 "  # the first REFILL's line is passed over by the second
    assert f.eval("REFILL .") == "0 "  # more_input has no more


def test_accept_reads_the_next_line_from_more_input():
    """core.fr's ACCEPT-TEST reads a line of the input, as gforth does from a
    file on stdin; without a source of lines ACCEPT says why it cannot."""
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    f.eval("CREATE BUF 80 ALLOT")
    with pytest.raises(ForthError, match="ACCEPT reads the keyboard"):
        f.eval("BUF 80 ACCEPT")
    lines = iter(["hello world", "x"])
    f.more_input = lambda: next(lines, None)
    assert f.eval("BUF 5 ACCEPT DUP . BUF SWAP TYPE") == "5 hello"  # at most 5 characters
    assert f.eval("BUF 80 ACCEPT BUF SWAP TYPE") == "x"
    assert f.eval("BUF 80 ACCEPT .") == "0 "  # no more lines
