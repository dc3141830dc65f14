"""The session's cache of lines read before (tileforth/core/session/linecache.py): the same text again
runs its kept segment instead of being read again. Each test compares what the kept line does with what
reading it afresh does: gforth (the reference for the standard words) or a new session that has never
seen the line, and checks the cache's counter to know which path ran."""
from __future__ import annotations

import numpy as np
import pytest

import gforth
from tileforth.core import Forth, ForthError
from tileforth.core.front.dictionary import Constant


@pytest.fixture
def f() -> Forth:
    return Forth(backend="cpu")


def hits(f: Forth, line: str) -> tuple[str, int]:
    """What `line` prints, and whether it ran as a kept line (1) or was read (0)."""
    before = f.lines.hits
    out = f.eval(line)
    return out, f.lines.hits - before


def test_a_line_run_again_is_kept_and_prints_what_gforth_prints(f):
    line = "3 5 + DUP * 7 - 2 MAX ."
    outs = [hits(f, line) for _ in range(3)]
    assert [h for _, h in outs] == [0, 1, 1]
    assert {o for o, _ in outs} == {gforth.output(line).strip() + " "}


def test_a_kept_line_keeps_its_stack_effect_each_time(f):
    f.eval("1")
    for _ in range(4):
        f.eval("DUP 2 *")
    assert f.lines.hits == 3
    assert f.data_stack() == gforth.stack("1" + " DUP 2 *" * 4)
    assert f.data_stack(lane=None) == [f.data_stack()] * 32


def test_redefining_a_word_reads_the_line_again(f):
    f.eval(": sq DUP * ;")
    assert hits(f, "3 sq .") == ("9 ", 0)
    assert hits(f, "3 sq .") == ("9 ", 1)
    f.eval(": sq DUP DUP * * ;")
    out, hit = hits(f, "3 sq .")
    assert hit == 0 and out.strip() == gforth.output(": sq DUP * ; : sq DUP DUP * * ; 3 sq .").strip()


def test_a_number_that_became_a_word_is_read_as_the_word(f):
    assert hits(f, "2 3 + .") == ("5 ", 0)
    hits(f, "2 3 + .")
    f.eval(": 2 99 ;")
    out, hit = hits(f, "2 3 + .")
    assert hit == 0 and out.strip() == gforth.output(": 2 99 ; 2 3 + .").strip()


def test_a_change_of_base_reads_the_numbers_again(f):
    f.eval("10 1 +")
    f.eval("10 1 +")
    assert f.lines.hits == 1
    f.eval("HEX")
    _, hit = hits(f, "10 1 +")
    f.eval("DECIMAL")
    assert hit == 0
    assert f.data_stack() == gforth.stack("10 1 + 10 1 + HEX 10 1 + DECIMAL")


def test_a_line_that_changes_base_before_a_number_is_not_kept(f):
    """`16 BASE !` runs before FF is read (the segment is launched in the middle of the line)."""
    line = "16 BASE ! FF . 10 BASE !"
    assert [hits(f, line) for _ in range(2)] == [(gforth.output(line).strip() + " ", 0)] * 2


def test_a_change_of_the_search_order_finds_the_other_word(f):
    f.eval(": x 1 ;")
    assert [hits(f, "x .")[1] for _ in range(2)] == [0, 1]
    f.eval("WORDLIST CONSTANT w  w SET-CURRENT : x 2 ; FORTH-WORDLIST SET-CURRENT")
    assert hits(f, "x .") == ("1 ", 1)  # the new x is not in the search order yet
    f.eval("GET-ORDER w SWAP 1+ SET-ORDER")
    out, hit = hits(f, "x .")
    assert hit == 0 and out.strip() == gforth.output(
        ": x 1 ; WORDLIST CONSTANT w  w SET-CURRENT : x 2 ; FORTH-WORDLIST SET-CURRENT "
        "GET-ORDER w SWAP 1+ SET-ORDER x .").strip()


def test_an_entry_written_from_python_is_found(f):
    f.eval("0 CONSTANT k")
    assert [hits(f, "k 1 + .")[1] for _ in range(2)] == [0, 1]
    f.dict["K"] = Constant("k", 41)
    assert hits(f, "k 1 + .") == ("42 ", 0)


def test_a_marker_forgets_the_word_the_kept_line_called(f):
    f.eval("MARKER gone : y 5 ;")
    assert [hits(f, "y .")[1] for _ in range(2)] == [0, 1]
    f.eval("gone")
    with pytest.raises(ForthError, match="unknown word y"):
        f.eval("y .")


def test_host_words_and_definitions_are_not_kept(f):
    for line in ("5 , HERE DROP", ": z 1 ;", "1 IF 2 THEN DROP", "' DUP DROP", "( c ) 1 DROP", "1 2 .S 2DROP"):
        assert [hits(f, line)[1] for _ in range(2)] == [0, 0], line


def test_a_kept_line_that_fails_restores_the_stacks_exactly(f):
    f.eval("1 2")
    f.eval("DROP")
    f.eval("DROP")  # kept now
    before = f.data_stack(lane=None)
    with pytest.raises(ForthError, match="underflow") as err:
        f.eval("DROP")
    assert f.lines.hits == 2  # the failing run was the kept line's
    assert f.data_stack(lane=None) == before == [[]] * 32
    assert (err.value.pos.line, err.value.pos.col) == (1, 1)
    assert gforth.fails("1 2 DROP DROP DROP")


def test_a_failed_line_between_kept_lines_leaves_them_exact(f):
    f.eval("7 8")
    f.eval("OVER OVER +")
    f.eval("OVER OVER +")
    with pytest.raises(ForthError):
        f.eval("1 2 3 0 PICK UNKNOWN-WORD")
    with pytest.raises(ForthError):
        f.eval("1 2 3 DROP DROP DROP DROP DROP DROP DROP DROP")
    f.eval("OVER OVER +")
    assert f.lines.hits == 2
    assert f.data_stack() == gforth.stack("7 8 OVER OVER + OVER OVER + OVER OVER +")


def test_errors_of_a_kept_line_name_its_new_line_and_column(f):
    """At the prompt each line has the next number: the kept line's errors name the line it is on now,
    as a session that reads it for the first time there does."""
    f.eval("1", line=1)
    f.eval("1 DROP DROP", line=2)
    with pytest.raises(ForthError) as kept:
        f.eval("1 DROP DROP", line=9)
    assert f.lines.hits == 1
    fresh = Forth(backend="cpu")
    with pytest.raises(ForthError) as read:
        fresh.eval("1 DROP DROP", line=9)
    assert (kept.value.pos.line, kept.value.pos.col) == (read.value.pos.line, read.value.pos.col) == (9, 8)
    assert str(kept.value) == str(read.value)


def test_a_kept_literal_line_names_its_new_line_when_the_stack_is_full():
    f = Forth(backend="cpu")
    depth = f.machine.ds_max
    f.eval(" ".join(["1"] * (depth - 1)))
    f.eval("2 DROP")
    f.eval("2 DROP")  # kept
    f.eval("2", line=3)
    with pytest.raises(ForthError, match="overflow") as err:
        f.eval("2", line=4)
    assert f.lines.hits == 2 and err.value.pos.line == 4


def test_checked_mode_still_checks_a_kept_line(f):
    f.eval("4 I64 ARRAY a")
    line = "0 SWAP CELLS a + !"
    seen = []
    for index in (3, 3):
        f.eval(str(index))
        seen.append(hits(f, line)[1])
    assert seen == [0, 1]
    f.eval("4")
    before = f.lines.hits
    with pytest.raises(ForthError, match="outside every allocation") as err:
        f.eval(line)  # the kept line, one cell past the array
    assert f.lines.hits == before + 1 and err.value.pos.col == 18
    assert f.data_stack() == [4]


def test_the_race_detector_still_sees_a_kept_line(f):
    """Each thread writes the cell TID-X*k: its own at k=1; at k=0 all write cell 0, a race."""
    f.eval("64 1 1 THREADS 512 SHARED: sh")
    line = "TID-X * CELLS sh + TID-X SWAP !"
    seen = []
    for _ in range(2):
        f.eval("1")
        seen.append(hits(f, line)[1])
    assert seen == [0, 1]
    f.eval("0")
    before = f.lines.hits
    with pytest.raises(ForthError, match="data race"):
        f.eval(line)
    assert f.lines.hits == before + 1
    assert f.data_stack(lane=None) == [[0]] * 64


def test_ctrl_c_during_a_kept_line_is_undone(f):
    """Ctrl-C as the kept line's launch ends (a launch hook raises it): the line is undone as any is."""
    f.eval("5")
    f.eval("DUP +")
    f.eval("DUP +")
    assert f.data_stack() == [20]

    def interrupt() -> None:
        raise KeyboardInterrupt

    f.device.launch_hooks.append(interrupt)
    with pytest.raises(KeyboardInterrupt):
        f.eval("DUP +")
    f.device.launch_hooks.remove(interrupt)
    assert f.lines.hits == 2 and f.data_stack() == [20]
    f.eval("DUP +")
    assert f.data_stack() == [40]


def test_a_change_of_the_tile_settings_reads_tile_words_again(f):
    f.eval("0 DROP")
    f.eval("0 DROP")
    assert f.lines.hits == 1
    f.eval("16 8 16 TILE-SHAPE")
    f.eval("0 DROP")
    assert f.lines.hits == 1


def test_a_kept_line_at_every_thread_reads_each_threads_stack(f):
    f.eval("TID-X")
    f.eval("DUP *")
    f.eval("DUP *")
    assert f.lines.hits == 1
    np.testing.assert_array_equal(np.array(f.data_stack(lane=None))[:, 0], np.arange(32, dtype=np.int64) ** 4)


def test_the_cache_is_bounded(f):
    from tileforth.core.session.linecache import LINES_KEPT

    for i in range(LINES_KEPT + 10):
        f.eval(f"{i} DROP")
    assert len(f.lines.lines) == LINES_KEPT
    oldest, next_oldest = list(f.lines.lines)[:2]
    f.eval(oldest[0], line=5)  # used again (on another line): the most recently used now
    f.eval("-1 DROP")  # one more: the least recently used goes
    assert oldest in f.lines.lines and next_oldest not in f.lines.lines


def test_a_kept_line_moved_to_another_line_has_the_shape_line_shape_gives(f):
    """The LineShape of a kept line on a new line number (linecache._moved) is the one linekey.line_shape
    computes for its moved nodes: key, literals, which node reads which literal, every position."""
    from tileforth.core.front.linekey import line_shape
    from tileforth.core.session.linecache import _moved

    f.eval(": sq DUP * ;")
    f.eval("3 1.5e0 2.5e0 F+ 7 sq 1 PICK 2DROP FDROP 1 2 2DROP 5. 2DROP DROP", line=4)  # 5.: two cells, one position
    (kept,) = f.lines.lines.values()
    assert {type(n).__name__ for n in kept.nodes} == {"Lit", "FLit", "Prim", "Call"}
    moved = _moved(kept, 11)
    want = line_shape(moved.nodes)
    got = moved.shape
    assert got.key == want.key and got.lits == want.lits and got.lit_slot == want.lit_slot
    assert got.positions == want.positions and got.pos_slot == want.pos_slot
    assert [n.pos.line for n in moved.nodes] == [11] * len(moved.nodes)
    assert [(n.pos.col, type(n)) for n in moved.nodes] == [(n.pos.col, type(n)) for n in kept.nodes]
    assert [{k: v for k, v in vars(n).items() if k != "pos"} for n in moved.nodes] == \
        [{k: v for k, v in vars(n).items() if k != "pos"} for n in kept.nodes]
    assert moved.nodes[0].pos == type(kept.nodes[0].pos)(11, 1, kept.nodes[0].pos.text, "<input>")


def test_a_kept_line_that_stores_into_base_and_fails_puts_base_back(f):
    """A kept line's undo copies the stacks and data space's pointers, not the dictionary (device code
    cannot change it): BASE, which device code can store into, still comes back."""
    for _ in range(2):
        f.eval("5 16")
        f.eval("BASE ! DROP")
        assert f.base() == 16
        f.eval("DECIMAL")
    f.eval("16")
    before = f.lines.hits
    with pytest.raises(ForthError, match="underflow"):
        f.eval("BASE ! DROP")  # stores 16 into BASE, then DROP finds the stack empty
    assert f.lines.hits == before + 1
    assert f.base() == 10 and f.data_stack() == [16]
    assert f.eval("255 .") == "255 "


@pytest.mark.parametrize("lines, line", [
    # DOES> at the prompt gives the word CREATE made last new code (a new entry of that name)
    (["CREATE x 5 ,", "DOES> @ 100 + ;"], "x ."),
    # TO stores a VALUE's new value; IS gives a DEFER word another word to run
    (["5 VALUE v", "7 TO v"], "v ."),
    ([": one 1 ; : two 2 ; DEFER d ' one IS d", "' two IS d"], "d ."),
])
def test_words_changed_by_does_to_and_is_print_what_gforth_prints(f, lines, line):
    """A kept line that names a word DOES>, TO or IS changes afterwards prints the new behaviour."""
    first, change = lines
    f.eval(first)
    f.eval(line)
    f.eval(line)  # kept (where it can be)
    f.eval(change)
    out = f.eval(line)
    expected = gforth.output(f"{first}\n{change}\n{line}").strip()
    assert out.strip() == expected
