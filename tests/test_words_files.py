"""The FILE and FILE-EXT words (tileforth/core/session/words/files.py, issue 11): files on
the host, against gforth 0.7.3. Each program runs in a directory of its own
under tmp_path (`{d}` in it is that directory), once in gforth and once in
tileforth; what it prints, the stack it leaves and the files it leaves must
be the same. An ior that is not 0 differs between the two (gforth gives
-512 - errno, tileforth the codes of table 9.1), so programs print `0<>` of
those."""
from __future__ import annotations

from pathlib import Path

import gforth
import pytest
from forthtest import ONE_THREAD
from tileforth.core import Forth, ForthError
from tileforth.core.session.words import files as filewords

gforth_only = pytest.mark.skipif(not gforth.available(), reason="gforth is not installed")


def fresh() -> Forth:
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    return f


COMMON = "CREATE BUF 300 ALLOT  CREATE BUF2 300 ALLOT  VARIABLE FID  : F@ FID @ ;\n"

PROGRAMS = {
    "fams": "R/O . R/W . W/O . R/O BIN . R/W BIN . W/O BIN .",
    "write-read-binary":
        ": FILLB 256 0 DO I BUF I + C! LOOP ; FILLB\n"
        'S" {d}/bin.dat" W/O BIN CREATE-FILE . FID !\n'
        "BUF 256 F@ WRITE-FILE . F@ FLUSH-FILE . F@ FILE-SIZE . . . F@ CLOSE-FILE .\n"
        'S" {d}/bin.dat" R/O BIN OPEN-FILE . FID !\n'
        "BUF2 300 0 FILL BUF2 300 F@ READ-FILE . . BUF2 256 BUF 256 COMPARE .\n"
        "BUF2 10 F@ READ-FILE . . F@ FILE-POSITION . . . F@ CLOSE-FILE .",
    "read-line-crlf":
        'S" {d}/lines.txt" W/O CREATE-FILE . FID !\n'
        'S\\" one\\r\\ntwo\\n\\r\\n\\nlast" F@ WRITE-FILE . F@ CLOSE-FILE .\n'
        'S" {d}/lines.txt" R/O OPEN-FILE . FID !\n'
        ": RL BUF 100 F@ READ-LINE . . DUP . BUF SWAP TYPE [CHAR] | EMIT ;\n"
        "RL RL RL RL RL RL RL F@ CLOSE-FILE .",
    "read-line-short-buffers":
        'S" {d}/l.txt" W/O CREATE-FILE . FID !  S" Line 1" F@ WRITE-LINE . S" xy" F@ WRITE-LINE . F@ CLOSE-FILE .\n'
        'S" {d}/l.txt" R/O OPEN-FILE . FID !\n'
        ": RL ( n -- ) BUF SWAP F@ READ-LINE . . DUP . BUF SWAP TYPE [CHAR] | EMIT ;\n"
        "0 RL 3 RL 100 RL 2 RL 2 RL 100 RL 100 RL F@ CLOSE-FILE .",
    "read-line-exact-crlf":
        'S" {d}/c.txt" W/O CREATE-FILE . FID !  S\\" ab\\r\\ncd\\r\\n" F@ WRITE-FILE . F@ CLOSE-FILE .\n'
        'S" {d}/c.txt" R/O OPEN-FILE . FID !\n'
        ": RL ( n -- ) BUF SWAP F@ READ-LINE . . DUP . BUF SWAP TYPE [CHAR] | EMIT ;\n"
        "2 RL 2 RL 3 RL 3 RL F@ FILE-POSITION . . . F@ CLOSE-FILE .",
    "file-size-after-writes":  # gforth buffers writes: FILE-SIZE after FLUSH-FILE
        'S" {d}/s.txt" R/W CREATE-FILE . FID !  F@ FILE-SIZE . . .\n'
        'S" 0123456789" F@ WRITE-FILE . F@ FLUSH-FILE . F@ FILE-SIZE . . . F@ FILE-POSITION . . .\n'
        'S" abc" F@ WRITE-LINE . F@ FLUSH-FILE . F@ FILE-SIZE . . . F@ CLOSE-FILE .',
    "reposition":  # FLUSH-FILE: gforth buffers writes (tileforth does not)
        'S" {d}/p.txt" R/W CREATE-FILE . FID !  S" 0123456789" F@ WRITE-FILE . F@ FLUSH-FILE .\n'
        "3 0 F@ REPOSITION-FILE . BUF 4 F@ READ-FILE . . BUF 4 TYPE F@ FILE-POSITION . . .\n"
        "F@ FILE-SIZE DROP F@ REPOSITION-FILE . BUF 4 F@ READ-FILE . .\n"
        '12 0 F@ REPOSITION-FILE . S" X" F@ WRITE-FILE . F@ FLUSH-FILE . F@ FILE-SIZE . . .\n'
        '0 0 F@ REPOSITION-FILE . S" ab" F@ WRITE-FILE . F@ CLOSE-FILE .',
    "resize":
        'S" {d}/r.txt" R/W BIN CREATE-FILE . FID !  S" 0123456789" F@ WRITE-FILE . F@ FLUSH-FILE .\n'
        "4 0 F@ RESIZE-FILE . F@ FILE-SIZE . . . 0 0 F@ REPOSITION-FILE . BUF 100 F@ READ-FILE . . BUF 4 TYPE\n"
        "8 0 F@ RESIZE-FILE . F@ FILE-SIZE . . . F@ CLOSE-FILE .",
    "delete-then-open-fails":
        'S" {d}/d.txt" W/O CREATE-FILE . CLOSE-FILE .\n'
        'S" {d}/d.txt" DELETE-FILE .  S" {d}/d.txt" R/O OPEN-FILE 0<> . DROP\n'
        'S" {d}/d.txt" DELETE-FILE 0<> .  S" {d}/nodir/x.txt" R/O OPEN-FILE 0<> . DROP',
    "rename-and-status":
        'S" {d}/a.txt" W/O CREATE-FILE . FID !  S" moved" F@ WRITE-LINE . F@ CLOSE-FILE .\n'
        'S" {d}/a.txt" S" {d}/b.txt" RENAME-FILE .\n'
        'S" {d}/a.txt" FILE-STATUS 0<> . DROP  S" {d}/b.txt" FILE-STATUS . .\n'
        'S" {d}/a.txt" S" {d}/c.txt" RENAME-FILE 0<> .',
    "flush-file":
        'S" {d}/f.txt" W/O CREATE-FILE . FID !  S" data" F@ WRITE-FILE . F@ FLUSH-FILE . F@ CLOSE-FILE .',
    "open-truncates-not":
        'S" {d}/o.txt" W/O CREATE-FILE . FID !  S" 0123456789" F@ WRITE-FILE . F@ CLOSE-FILE .\n'
        'S" {d}/o.txt" R/W OPEN-FILE . FID !  S" ab" F@ WRITE-FILE . F@ FILE-SIZE . . . F@ CLOSE-FILE .\n'
        'S" {d}/o.txt" R/W CREATE-FILE . FID !  F@ FILE-SIZE . . . F@ CLOSE-FILE .',
    "include-file":
        'S" {d}/lib.fs" W/O CREATE-FILE . FID !  S" : SEVEN 7 ;" F@ WRITE-LINE . S" SEVEN 6 *" F@ WRITE-LINE .\n'
        'F@ CLOSE-FILE .  S" {d}/lib.fs" R/O OPEN-FILE . INCLUDE-FILE . SEVEN .',
    "in-a-definition":
        ': SAVE ( c-addr u -- ) S" {d}/def.txt" W/O CREATE-FILE DROP >R R@ WRITE-LINE DROP R> CLOSE-FILE DROP ;\n'
        ': LOAD ( -- u ) S" {d}/def.txt" R/O OPEN-FILE DROP >R BUF 100 R@ READ-LINE 2DROP R> CLOSE-FILE DROP ;\n'
        'S" saved by a word" SAVE LOAD DUP . BUF SWAP TYPE',
}


def _files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.is_file()}


@gforth_only
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_like_gforth(name, tmp_path):
    gdir, tdir = tmp_path / "g", tmp_path / "t"
    gdir.mkdir()
    tdir.mkdir()
    ref = gforth.run(COMMON + PROGRAMS[name].replace("{d}", str(gdir)))
    f = fresh()
    out = f.eval(COMMON + PROGRAMS[name].replace("{d}", str(tdir)))
    assert (out, f.data_stack()) == (ref.output, ref.stack), f"tileforth {out!r} {f.data_stack()}"
    assert _files(tdir) == _files(gdir)


@gforth_only
def test_gforth_agrees_that_the_failures_fail(tmp_path):
    """gforth gives a non-zero ior where tileforth does (the values differ)."""
    prog = (f'S" {tmp_path}/none" R/O OPEN-FILE NIP  S" {tmp_path}/none" DELETE-FILE  '
            f'S" {tmp_path}/none" FILE-STATUS NIP  S" {tmp_path}/none" S" {tmp_path}/x" RENAME-FILE')
    ref = gforth.stack(prog)
    f = fresh()
    f.eval(prog)
    got = f.data_stack()
    assert all(ref) and len(ref) == 4
    assert got == [filewords.IOR_NO_FILE] * 4


BAD_ID = [
    ("CLOSE-FILE", "12345 CLOSE-FILE", 1),
    ("READ-FILE", "PAD 10 12345 READ-FILE", 2),
    ("READ-LINE", "PAD 10 12345 READ-LINE", 3),
    ("WRITE-FILE", "PAD 10 12345 WRITE-FILE", 1),
    ("WRITE-LINE", "PAD 10 12345 WRITE-LINE", 1),
    ("FILE-POSITION", "12345 FILE-POSITION", 3),
    ("REPOSITION-FILE", "0 0 12345 REPOSITION-FILE", 1),
    ("FILE-SIZE", "12345 FILE-SIZE", 3),
    ("RESIZE-FILE", "0 0 12345 RESIZE-FILE", 1),
    ("FLUSH-FILE", "12345 FLUSH-FILE", 1),
]


@pytest.mark.parametrize("word,code,depth", BAD_ID, ids=[b[0] for b in BAD_ID])
def test_a_bad_file_id_gives_an_ior(word, code, depth):
    f = fresh()
    f.eval(code)
    st = f.data_stack()
    assert len(st) == depth and st[-1] == filewords.IOR_IO


def test_a_closed_file_id_is_not_open_any_more(tmp_path):
    f = fresh()
    f.eval(f'S" {tmp_path}/x.txt" R/W CREATE-FILE DROP CONSTANT X')
    assert f.eval("X CLOSE-FILE . X CLOSE-FILE . PAD 4 X READ-FILE . .") == "0 -37 -37 0 "
    f.eval(f'S" {tmp_path}/y.txt" R/W CREATE-FILE DROP CONSTANT Y')
    assert f.eval("X Y <> .") == "-1 "  # ids are not reused


def test_file_ids_are_small_and_belong_to_the_session(tmp_path):
    f, g = fresh(), fresh()
    f.eval(f'S" {tmp_path}/x.txt" R/W CREATE-FILE . DUP CONSTANT X')
    x = f.data_stack()[0]
    assert 0 < x < 1000
    g.eval(f"PAD 4 {x} READ-FILE")
    assert g.data_stack() == [0, filewords.IOR_IO]


def test_wrong_direction_and_bad_arguments(tmp_path):
    f = fresh()
    (tmp_path / "r.txt").write_bytes(b"hello\n")
    f.eval(f'S" {tmp_path}/r.txt" R/O OPEN-FILE DROP CONSTANT R')
    assert f.eval('S" no" R WRITE-FILE 0<> .') == "-1 "
    assert f.eval("PAD -1 R READ-FILE . .") == f"{filewords.IOR_NUMBER} 0 "
    assert f.eval("-1 -1 R REPOSITION-FILE .") == f"{filewords.IOR_POSITION} "
    assert f.eval(f'S" {tmp_path}/r.txt" 99 OPEN-FILE 0<> . DROP') == "-1 "
    assert f.eval("PAD 10 R READ-FILE . . PAD 5 TYPE") == "0 6 hello"
    f.eval(f'S" {tmp_path}/w.txt" W/O CREATE-FILE DROP CONSTANT W')
    assert f.eval("PAD 4 W READ-FILE 0<> . .") == "-1 0 "
    assert f.eval("PAD 4 W READ-LINE 0<> . . .") == "-1 0 0 "
    assert (tmp_path / "r.txt").read_bytes() == b"hello\n"


def test_read_line_at_the_end_and_lone_cr(tmp_path):
    """LF and CR LF end a line (stripped); a lone CR is data; at the end: 0 false 0."""
    (tmp_path / "x.txt").write_bytes(b"a\rb\r\n\r\n")
    f = fresh()
    f.eval(f'S" {tmp_path}/x.txt" R/O OPEN-FILE DROP CONSTANT X')
    assert f.eval("PAD 80 X READ-LINE . . DUP . PAD SWAP TYPE") == "0 -1 3 a\rb"
    assert f.eval("PAD 80 X READ-LINE . . .") == "0 -1 0 "
    assert f.eval("PAD 80 X READ-LINE . . .") == "0 0 0 "
    assert f.eval("PAD 80 X READ-LINE . . .") == "0 0 0 "


def test_include_file_closes_the_file(tmp_path):
    (tmp_path / "lib.fs").write_text("1 2 +\n: twice 2* ;\n")
    f = fresh()
    f.eval(f'S" {tmp_path}/lib.fs" R/O OPEN-FILE DROP DUP CONSTANT L INCLUDE-FILE')
    assert f.eval(". 5 twice . L CLOSE-FILE .") == "3 10 -37 "
    with pytest.raises(ForthError, match="not an open file id"):
        f.eval("L INCLUDE-FILE")


def test_a_definition_using_them_is_host_level_and_runs_once(tmp_path):
    """On the default launch of 32 threads: the word runs once, on the host."""
    f = Forth(backend="cpu")
    f.eval(f': LOG ( n -- ) S" {tmp_path}/log.txt" R/W CREATE-FILE DROP >R '
           "0 <# #S #> R@ WRITE-LINE DROP R> CLOSE-FILE DROP ;")
    assert f.dict["LOG"].host
    f.eval("42 LOG")
    assert (tmp_path / "log.txt").read_bytes() == b"42\n"
    assert f.data_stack() == []


def test_the_fam_words_compile_to_literals():
    f = fresh()
    f.eval(": FAMS R/O R/W W/O R/O BIN ;")
    assert not f.dict["FAMS"].host
    f.eval("FAMS")
    assert f.data_stack() == [0, 2, 4, 1]


def test_source_id_in_include_file_is_its_file_id(tmp_path):
    from tileforth.core import Forth
    src = tmp_path / "sid.fth"
    src.write_text("SOURCE-ID 0> .\n")
    f = Forth(backend="cpu")
    f.eval("1 1 1 GRID 1 1 1 THREADS")
    assert f.eval(f'S" {src}" R/O OPEN-FILE DROP INCLUDE-FILE SOURCE-ID .') == "-1 0 "
