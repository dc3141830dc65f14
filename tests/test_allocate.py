"""ALLOCATE FREE RESIZE (Forth-2012 14.6.1) in constant time per call, with the checks kept
(issue 25, F9): a program's results against gforth's; the iors; an access past the end of
an allocated block, or into a freed one, is still an error at the word; the race detector
still sees allocated memory; the allocation tables against a model (a sorted list), and the
race detector arming only what changed since the last launch.
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from standins import standins
from tileforth.core import Forth, ForthError
from tileforth.core.alloctable import AllocTable

import gforth
from forthtest import raises

LIST = """
: node ( list x -- list' ) 2 CELLS ALLOCATE THROW  TUCK CELL+ !  TUCK ! ;
: build ( n -- list ) 0 SWAP 0 ?DO I I * node LOOP ;
: walk ( list -- sum ) 0 BEGIN OVER WHILE OVER CELL+ @ + SWAP @ SWAP REPEAT NIP ;
: show ( list -- ) BEGIN DUP WHILE DUP CELL+ @ . @ REPEAT DROP ;
: unlink ( list -- ) BEGIN DUP WHILE DUP @ SWAP FREE THROW REPEAT DROP ;
"""


@pytest.fixture
def f(f1):
    return f1  # one thread, as gforth runs


def test_a_linked_list_program_prints_what_gforth_prints(f, need_gforth):
    program = LIST + "300 build DUP walk . CR 12 build DUP show CR unlink unlink"
    assert f.eval(program) == gforth.output(program)
    assert f.data_stack() == []


def test_iors_and_resize_keep_contents_as_in_gforth(f, need_gforth):
    """(What RESIZE's larger block holds past the old size is undefined: not compared.)"""
    program = ("100 ALLOCATE . CONSTANT a  a 100 255 FILL  a 20 RESIZE . CONSTANT b  b 19 + C@ .  "
               "b 4000 RESIZE . CONSTANT c  c C@ . c 19 + C@ .  c FREE .  0 ALLOCATE . FREE .")
    assert f.eval(program) == gforth.output(program)


def test_free_of_an_address_not_allocated_is_an_error_ior(f):
    f.eval("16 ALLOCATE DROP CONSTANT p  p FREE")
    assert f.data_stack() == [0]
    f.eval("DROP p FREE  HERE FREE  p 8 + FREE")
    assert all(ior != 0 for ior in f.data_stack()) and len(f.data_stack()) == 3
    f.eval("CLEARSTACK p 64 RESIZE")
    addr, ior = f.data_stack()
    assert ior != 0 and addr == f.data_stack()[0]
    f.eval("CLEARSTACK")


def test_an_access_past_the_end_of_a_block_is_caught_among_many(f):
    """Blocks with neighbours on both sides (the allocations before and after), 8 and 16 bytes
    long: a cell past the end, or before the start, is an error at the word."""
    f.eval(": many 0 ?DO 16 ALLOCATE DROP DROP LOOP ;  200 many  8 ALLOCATE DROP CONSTANT p  "
           "16 ALLOCATE DROP CONSTANT q  200 many")
    f.eval("7 p !  p @  9 q CELL+ !  q CELL+ @")
    assert f.data_stack() == [7, 9]
    f.eval("CLEARSTACK")
    raises(f, "p CELL+ @", word="@")
    raises(f, "5 q 2 CELLS + !", word="!")
    raises(f, "q 1- C@", word="C@")
    raises(f, ": past q 16 + @ ; past", word="@")


def test_an_access_to_a_freed_block_is_caught(f):
    f.eval("32 ALLOCATE DROP CONSTANT r  5 r !  r FREE DROP")
    raises(f, "r @", word="@")


def test_resize_moves_and_the_old_block_is_gone(f):
    f.eval("16 ALLOCATE DROP CONSTANT s  1234 s !  s 1000 RESIZE DROP CONSTANT t  t @  999 t 992 + !  t 992 + @")
    assert f.data_stack() == [1234, 999]
    f.eval("CLEARSTACK")
    raises(f, "t 1000 + @", word="@")


def test_the_race_detector_sees_blocks_allocated_between_checked_launches():
    f = Forth(backend="cpu")
    f.eval("1 1 1 GRID 32 1 1 THREADS")
    f.eval("1 2 + DROP")  # a checked launch: later blocks are armed by the next one
    f.eval("256 ALLOCATE DROP CONSTANT buf")
    f.eval(": ok TID-X buf TID-X CELLS + ! ; ok")  # disjoint cells: no race
    with pytest.raises(ForthError, match="data race on global memory at buf in race: thread 0 wrote"):
        f.eval(": race TID-X buf ! ; race")
    f.eval("64 ALLOCATE DROP CONSTANT buf2")
    with pytest.raises(ForthError, match="data race on global memory at buf2"):
        f.eval(": race2 TID-X buf2 TID-X 1+ 7 AND CELLS + !  buf2 TID-X CELLS + @ DROP ; race2")


def test_arming_a_launch_writes_only_the_new_blocks_headers():
    """The race detector writes a block's header at the first checked launch after it was made:
    one new block with 500 live writes one header, not 500."""
    f = Forth(backend="cpu")
    f.eval("1 1 1 GRID 2 1 1 THREADS  1 2 + DROP")
    for _ in range(500):
        f.backend.alloc(16)
    f.eval("1 2 + DROP")  # arms the 500
    be, seen = f.backend, []
    be._headers = _Counting(be._headers, seen)
    addr = be.alloc(16)
    f.eval("1 2 + DROP")
    assert seen == [addr]
    seen.clear()
    f.eval("1 2 + DROP")
    assert seen == []
    assert dict.__getitem__(be._headers, addr)[0] != 0  # armed: the header holds the block's shadow


class _Counting(dict):
    def __init__(self, d, seen):
        super().__init__(d)
        self.seen = seen

    def __getitem__(self, key):
        self.seen.append(key)
        return super().__getitem__(key)


def test_the_allocation_table_matches_a_sorted_model():
    rnd = random.Random(25)
    table, model = AllocTable(capacity=2), {}
    for _ in range(2000):
        if model and rnd.random() < 0.4:
            a = rnd.choice(sorted(model))
            assert table.remove(a)
            del model[a]
        else:
            a = rnd.randrange(10**6) * 64
            model[a] = rnd.randrange(60)
            table.add(a, model[a])
        assert not table.remove(7)
        assert table.rows.tolist() == sorted([a, a + n] for a, n in model.items())
        x = (rnd.choice(sorted(model)) if model else 0) + rnd.randrange(70)
        m = rnd.randrange(8)
        assert table.find(x, m) == next((b for b, n in model.items() if b <= x and x + m <= b + n), None)


def test_more_allocations_than_the_cuda_table_held_all_reach_the_device():
    """The cuda backend's device table grows (it held 4096 rows and dropped the others)."""
    with standins("pycuda"):
        f = Forth(backend="cuda")
        try:
            be = f.backend
            addrs = [be.alloc(16) for _ in range(5000)]
            be.free(addrs[10])
            f.push_uniform(1)
            f.eval("1 +")  # a launch: the table goes to the device
            table = be.read(be.table_dev, 16 * be._n_allocs).view(np.int64).reshape(-1, 2)
            starts = set(table[:, 0].tolist())
            assert set(addrs) - starts == {addrs[10]}
            assert table[:, 0].tolist() == sorted(starts)
        finally:
            f.backend.close()
