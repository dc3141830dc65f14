"""The BLOCK and BLOCK-EXT words (tileforth/core/session/words/blocks.py): blocks on the
host, against gforth 0.7.3. Each program names its block file with
OPEN-BLOCKS in a directory of its own under tmp_path (`{d}` in it), runs once
in gforth and once in tileforth (one thread), and must print the same, leave
the same stack and, once the session is closed (gforth's BYE and tileforth's
Forth.close() write the UPDATEd buffers back), leave the same block file.
Error cases are tileforth's own: gforth takes block 0 and ignores an UPDATE
with no current block."""
from __future__ import annotations

from pathlib import Path

import gforth
import pytest
from tileforth.core.session.hostbound import REREAD_COST
from forthtest import ONE_THREAD
from tileforth.core import Forth, ForthError
from tileforth.core.session.words import blocks as blockwords

gforth_only = pytest.mark.skipif(not gforth.available(), reason="gforth is not installed")

COMMON = ('S" {d}/b.fb" OPEN-BLOCKS\n'
          ": WB ( blk c-addr u -- ) ROT BUFFER DUP 1024 BL FILL SWAP MOVE UPDATE ;\n"
          "VARIABLE CNT 0 CNT !  VARIABLE LOG 0 LOG !  : M ( n -- ) LOG @ 10 * + LOG ! ;\n")

PROGRAMS = {
    "write-flush-read":  # block 1 lies in the file before block 3 (zeros); block 5 is past its end (blanks)
        '3 S" hello block three" WB FLUSH\n'
        "3 BLOCK 17 TYPE 3 BLOCK 17 + C@ . 1 BLOCK C@ . 5 BLOCK C@ . 5 BLOCK 1023 + C@ .",
    "update-marks-the-current-buffer-only":
        "2 BUFFER 1024 CHAR a FILL  4 BUFFER 1024 CHAR b FILL UPDATE FLUSH\n"
        "2 BLOCK C@ . 4 BLOCK C@ . 4 BLOCK 1023 + C@ .",
    "flush-writes-evicted-and-kept-buffers":  # more blocks than tileforth's 8 buffers: some written on eviction
        ": FILLS ( -- ) 13 1 DO I BUFFER 1024 I 64 + FILL UPDATE LOOP ;  FILLS FLUSH\n"
        ": SUM ( -- n ) 0 13 1 DO I BLOCK C@ + I BLOCK 1023 + C@ + LOOP ; SUM .",
    "save-buffers-keeps-the-buffers":
        '7 S" kept" WB SAVE-BUFFERS 7 BLOCK 7 BUFFER = . 7 BLOCK 4 TYPE',
    "empty-buffers-drops-updates":
        '6 S" x" WB FLUSH  6 BLOCK CHAR y SWAP C! UPDATE EMPTY-BUFFERS FLUSH 6 BLOCK C@ EMIT',
    "device-code-writes-a-buffer":
        ": STAMP ( addr -- ) 1024 0 DO I 26 MOD 65 + OVER I + C! LOOP DROP ;\n"
        "9 BUFFER STAMP UPDATE FLUSH 9 BLOCK 30 TYPE",
    "load-defines-and-runs":
        '10 S" : SQ DUP * ; 7 SQ" WB 10 LOAD . 5 SQ .',
    "thru":
        '11 S" 1 2" WB 12 S" + BLK @" WB 13 S" DROP BLK @ *" WB 11 13 THRU . BLK @ .',
    "blk-inside-and-after-load":
        '14 S" BLK @ SOURCE NIP" WB 14 LOAD . . BLK @ .',
    "backslash-skips-to-the-end-of-the-line":
        '15 S" 1 \\ 2" WB  15 BLOCK 64 + 1 + CHAR 3 SWAP C! UPDATE 15 LOAD . .',
    "backslash-at-the-end-of-a-line":  # `\\` at column 63: >IN is then 65, so the next line goes too (gforth)
        '16 S" 5" WB  16 BLOCK  CHAR \\ OVER 63 + C!  CHAR 7 OVER 65 + C!  CHAR 9 OVER 130 + C!  DROP UPDATE\n'
        "16 LOAD .S",
    "evaluate-inside-load":
        ': EV-BLK ( -- n ) S" BLK @" EVALUATE ;\n'
        '17 S" EV-BLK BLK @ EV-BLK" WB 17 LOAD . . . BLK @ .',
    "nested-load":
        '18 S" 19 LOAD BLK @" WB 19 S" BLK @ 100 +" WB 18 LOAD . . BLK @ .',
    "refill-goes-to-the-next-block":
        '20 S" 1 2 REFILL 3" WB 21 S" 4 BLK @" WB 20 LOAD .S',
    "in-and-source-in-a-block":
        '22 S" 1 8 >IN +!     2        3 SOURCE NIP >IN @" WB 22 LOAD .S',
    "save-restore-input-in-a-block":
        ": ?RESTORE ( x*n n | -- ) 1 CNT +! CNT @ 2 < IF RESTORE-INPUT DROP THEN ;\n"
        '23 S" 1 M SAVE-INPUT 2 M ?RESTORE 3 M" WB 23 LOAD LOG @ .',
    "save-restore-input-across-blocks":
        ": ?RESTORE ( x*n n | -- ) 1 CNT +! CNT @ 2 < IF RESTORE-INPUT DROP THEN ;\n"
        '24 S" 1 M SAVE-INPUT 2 M REFILL" WB 25 S" DROP 3 M ?RESTORE 4 M BLK @" WB 24 LOAD . LOG @ .',
    "list-and-scr":
        '26 S" ( a screen ) 1 2 +" WB SAVE-BUFFERS 26 LIST SCR @ . 27 BLOCK DROP SCR @ .\n'
        "27 BLOCK 1024 BL FILL UPDATE 27 LIST",
}


def fresh() -> Forth:
    f = Forth(backend="cpu")
    f.eval(ONE_THREAD)
    return f


def _run_both(prog: str, tmp_path: Path) -> tuple[str, list[int], bytes, str, list[int], bytes]:
    gdir, tdir = tmp_path / "g", tmp_path / "t"
    gdir.mkdir()
    tdir.mkdir()
    ref = gforth.run(COMMON.replace("{d}", str(gdir)) + prog)
    f = fresh()
    out = f.eval(COMMON.replace("{d}", str(tdir)) + prog)
    stack = f.data_stack()
    f.close()
    return ref.output, ref.stack, (gdir / "b.fb").read_bytes(), out, stack, (tdir / "b.fb").read_bytes()


@gforth_only
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_like_gforth(name, tmp_path):
    g_out, g_stack, g_file, out, stack, file = _run_both(PROGRAMS[name], tmp_path)
    assert (out, stack) == (g_out, g_stack)
    assert file == g_file


def test_the_programs_check_something(tmp_path):
    """The programs leave what the features give (not only what gforth gives)."""
    f = fresh()
    f.eval(COMMON.replace("{d}", str(tmp_path)))
    assert f.eval(PROGRAMS["thru"]) == "39 0 "  # (1+2) * 13, then BLK 0 again
    assert f.eval(PROGRAMS["nested-load"]) == "18 119 0 "
    assert f.eval(PROGRAMS["evaluate-inside-load"]) == "0 17 0 0 "
    assert f.eval(PROGRAMS["backslash-skips-to-the-end-of-the-line"]) == "3 1 "
    assert f.eval(PROGRAMS["backslash-at-the-end-of-a-line"]) == "<2> 5 9 "
    assert f.eval("CLEARSTACK " + PROGRAMS["save-restore-input-across-blocks"]) == "25 123234 "


# ---- the block file ---------------------------------------------------------------------------
def test_blocks_fb_is_created_only_when_a_block_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = fresh()
    f.eval("1 BLOCK DROP 2 BUFFER DROP 3 LIST SAVE-BUFFERS FLUSH 4 LOAD BLK @ SCR @")
    assert f.data_stack() == [0, 3]
    assert not (tmp_path / "blocks.fb").exists()
    f.eval("2 BLOCK CHAR z SWAP C! UPDATE FLUSH")
    data = (tmp_path / "blocks.fb").read_bytes()
    assert len(data) == 3 * 1024 and data[2048:2050] == b"z " and data[:2048] == bytes(2048)


def test_closing_the_session_writes_the_updated_buffers(tmp_path):
    f = fresh()
    f.eval(f'S" {tmp_path}/c.fb" OPEN-BLOCKS 1 BLOCK CHAR q SWAP C! UPDATE 2 BLOCK CHAR r SWAP C!')
    assert not (tmp_path / "c.fb").exists()
    f.close()
    data = (tmp_path / "c.fb").read_bytes()
    assert data[1024:1026] == b"q " and len(data) == 2048  # block 2 was not UPDATEd


def test_open_blocks_writes_back_the_old_file_first(tmp_path):
    f = fresh()
    f.eval(f'S" {tmp_path}/a.fb" OPEN-BLOCKS 1 BLOCK CHAR a SWAP C! UPDATE')
    f.eval(f'S" {tmp_path}/b.fb" OPEN-BLOCKS 1 BLOCK C@')
    assert f.data_stack() == [32]
    assert (tmp_path / "a.fb").read_bytes()[1024] == ord("a")
    assert not (tmp_path / "b.fb").exists()


def test_the_least_recently_used_buffer_is_reassigned(tmp_path):
    """With every buffer UPDATEd, one block more writes back the least recently used one only."""
    n = blockwords.BUFFERS
    f = fresh()
    f.eval(f'S" {tmp_path}/l.fb" OPEN-BLOCKS')
    f.eval(f": ALL ( -- ) {n + 1} 1 DO I BLOCK I SWAP C! UPDATE LOOP ;  ALL  1 BLOCK DROP")
    assert not (tmp_path / "l.fb").exists()
    f.eval(f"{n + 1} BLOCK DROP")  # block 2 is the least recently used now
    data = (tmp_path / "l.fb").read_bytes()
    assert len(data) == 3 * 1024 and data[2048] == 2
    f.eval("EMPTY-BUFFERS")


def test_device_code_of_every_thread_reads_and_writes_a_buffer(tmp_path):
    f = Forth(backend="cpu")  # the default launch: 32 threads
    f.eval(f'S" {tmp_path}/d.fb" OPEN-BLOCKS  5 BLOCK CONSTANT B5')
    f.eval("TID-X 1+ B5 TID-X + C!  UPDATE FLUSH")
    assert (tmp_path / "d.fb").read_bytes()[5 * 1024:5 * 1024 + 33] == bytes(range(1, 33)) + b" "
    f.eval("5 BLOCK TID-X + C@")
    assert f.data_stack(lane=None) == [[t + 1] for t in range(32)]


# ---- errors: a ForthError with a way out, and the session goes on --------------------------------
def _refused(f: Forth, line: str, match: str, code: int | None = None) -> None:
    f.eval("11 22")
    with pytest.raises(ForthError, match=match) as info:
        f.eval(line)
    if code is not None:
        assert info.value.code == code
    assert f.data_stack() == [11, 22]
    assert f.eval("+ . BLK @ .") == "33 0 "


@pytest.mark.parametrize("line", ["0 BLOCK", "-1 BLOCK", "0 BUFFER", "-5 LIST", f"{1 << 21} BLOCK", "-1 LOAD"])
def test_a_bad_block_number_is_refused(line, tmp_path):
    f = fresh()
    f.eval(f'S" {tmp_path}/e.fb" OPEN-BLOCKS')
    _refused(f, line, "is not a block number: blocks are numbered 1 to", blockwords.IOR_BLOCK)


@pytest.mark.parametrize("line", ["0 LOAD", "0 9 THRU"])
def test_load_of_block_0_is_refused(line):
    _refused(fresh(), line, "block 0 cannot be loaded", blockwords.IOR_BLOCK)


def test_update_with_no_current_block_is_refused(tmp_path):
    f = fresh()
    f.eval(f'S" {tmp_path}/u.fb" OPEN-BLOCKS')
    _refused(f, "UPDATE", "BLOCK the block first")
    f.eval("1 BLOCK DROP UPDATE FLUSH")
    _refused(f, "UPDATE", "BLOCK the block first")  # FLUSH unassigned it
    assert (tmp_path / "u.fb").exists()


def test_an_error_in_a_loaded_block_restores_the_input(tmp_path):
    f = fresh()
    f.eval(f'S" {tmp_path}/x.fb" OPEN-BLOCKS  ' + COMMON.split("\n", 1)[1])
    f.eval('3 S" 1 2 NO-SUCH-WORD" WB')
    _refused(f, "3 LOAD", "unknown word NO-SUCH-WORD")
    f.eval('4 S" 4 LOAD" WB')  # a block that loads itself
    _refused(f, "4 LOAD", "nests too deeply")


def test_catch_gives_the_code(tmp_path):
    f = fresh()
    f.eval(": B0 0 BLOCK ;  ' B0 CATCH")
    assert f.data_stack() == [blockwords.IOR_BLOCK]


def test_a_block_file_that_cannot_be_written(tmp_path):
    f = fresh()
    f.eval(f'S" {tmp_path}/no-dir/w.fb" OPEN-BLOCKS 1 BLOCK C@ .')  # reading gives blanks
    f.eval("1 BLOCK DROP UPDATE")
    _refused(f, "FLUSH", "cannot write block 1 to .*EMPTY-BUFFERS drops it", blockwords.IOR_WRITE)
    f.eval("EMPTY-BUFFERS FLUSH")
    with pytest.raises(ForthError, match="is a directory"):
        f.eval(f'S" {tmp_path}" OPEN-BLOCKS')


def test_thru_is_a_bounded_host_loop():
    f = fresh()
    f.step_budget = 100 * REREAD_COST  # each block loaded draws REREAD_COST steps: 100 loads
    _refused(f, "1 1000 THRU", "more than the 100 loads")


# ---- host words: device code cannot call them ---------------------------------------------------
def test_a_definition_using_block_is_host_level_and_refused_on_the_device(tmp_path):
    f = fresh()
    f.eval(f'S" {tmp_path}/h.fb" OPEN-BLOCKS  : B1 ( -- addr ) 1 BLOCK ;  : RUN ( xt -- ) EXECUTE ;')
    assert f.dict["B1"].host
    with pytest.raises(ForthError, match="runs on the host"):
        f.kernel("B1")
    assert f.eval("B1 1 BLOCK = .") == "-1 "  # at the line's level it runs, on the host
    assert f.eval("' B1 RUN 1 BLOCK = .") == "-1 "  # and through EXECUTE at one thread (the host walks it)
    assert f.data_stack() == []
    f.eval("1 1 1 GRID 32 1 1 THREADS")  # at more threads, device code cannot reach it
    _refused(f, "' B1 RUN", "B1 runs on the host")


def test_every_thread_must_agree_on_the_block(tmp_path):
    f = Forth(backend="cpu")
    f.eval(f'S" {tmp_path}/t.fb" OPEN-BLOCKS')
    with pytest.raises(ForthError, match="BLOCK needs the same value"):
        f.eval("TID-X 1+ BLOCK")
    assert f.data_stack() == []
