"""ALLOCATE FREE RESIZE (Forth-2012 14.6.1) in constant time per call, with the checks kept
(issue 25, F9): a program's results against gforth's; the iors; an access past the end of
an allocated block, or into a freed one, is still an error at the word; the race detector
still sees allocated memory; the allocation tables against a model (a sorted list), and the
race detector arming only what changed since the last launch.

On the cpu backend a definition's ALLOCATE FREE RESIZE run in device code (compile/heapgen.py,
a native call: a loop of them is one launch), each thread with blocks of its own; the checks
see those blocks as they happen (after FREE, in the same word or after a call of a word that
frees, the block is gone), the range check's table is bisected, and a launch that runs its
blocks on several cores refuses them with an error that says what to do. On cuda they stay
host words (the stand-in driver runs the host side).
"""
from __future__ import annotations

import random

import numpy as np
import pytest
from standins import standins
from tileforth.core import Forth, ForthError
from tileforth.core.alloctable import AllocTable
from tileforth.core.front.tree import HostOp, Prim, walk
from tileforth.core.heap import IOR_FREE, IOR_RESIZE, Heap

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


def _kernel_lookup(rows: np.ndarray, addr: int, nbytes: int, scan: bool = True) -> tuple[int, int]:
    """What tf_addr_scan (target.py) answers over `rows`: the last row starting at or below addr if
    it holds the access, else (`scan`) a scan of every row; (0, 0) for none."""
    end = addr + nbytes
    lo, hi = 0, len(rows)
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (mid + 1, hi) if rows[mid, 0] <= addr else (lo, mid)
    if lo > 0 and end <= rows[lo - 1, 1] and end >= addr:
        return int(rows[lo - 1, 0]), int(rows[lo - 1, 1])
    if not scan:
        return 0, 0
    for b, e in rows.tolist():
        if addr >= b and end <= e and end >= addr:
            return b, e
    return 0, 0


@pytest.mark.parametrize("pattern", ["random", "ascending", "clustered", "below"])
def test_the_allocation_table_matches_a_sorted_model(pattern):
    """Adds and removes (at random addresses, in address order, in a few clusters) against a dict:
    the live rows, the host's find, and what the kernels' bisection finds in the rows with their
    gaps (whose starts never decrease); the rows kernels search stay within a few times the live ones."""
    rnd = random.Random(25)
    table, model = AllocTable(capacity=2), {}
    nxt = 0
    if pattern == "below":
        model[1 << 45] = 16
        table.add(1 << 45, 16)
    for step in range(2500):
        if model and rnd.random() < (0.2 if pattern == "below" else 0.4):
            a = rnd.choice(sorted(model))
            assert table.remove(a)
            del model[a]
        else:
            if pattern == "random":
                a = rnd.randrange(10**6) * 64
            elif pattern in ("ascending", "below"):  # below: under a row at a high address, as malloc's blocks
                nxt += 64 * rnd.randrange(1, 4)  # land under the mapped buffers of a session
                a = nxt
            else:
                a = rnd.choice((10**5, 10**7, 10**9)) * 64 + rnd.randrange(10**4) * 64
            model[a] = rnd.randrange(60)
            table.add(a, model[a])
        assert not table.remove(7)
        want = sorted([a, a + n] for a, n in model.items())
        assert table.live().tolist() == want and len(table) == len(model)
        rows = table.rows
        assert (np.diff(rows[:, 0]) >= 0).all() and table.n <= 4 * len(model) + 4
        for _ in range(3):
            x = (rnd.choice(sorted(model)) if model else 0) + rnd.randrange(70)
            m = rnd.randrange(8)
            hit = next((b for b, n in model.items() if b <= x and x + m <= b + n), None)
            assert table.find(x, m) == hit
            want_range = (hit, hit + model[hit]) if hit is not None else (0, 0)
            assert _kernel_lookup(rows, x, m) == want_range
            assert _kernel_lookup(rows, x, m, scan=False) == want_range  # the bisection alone finds it


class _CountingTable(AllocTable):
    """An AllocTable that counts the rows each add or remove moves, and its spreads."""

    def __init__(self) -> None:
        self.moved: list[int] = []
        self.spreads = 0
        super().__init__()

    def _move(self, dst: int, src: int, count: int) -> None:
        self.moved.append(count)
        super()._move(dst, src, count)

    def _spread(self, extra: int = 0) -> None:
        self.spreads += 1
        super()._spread(extra)


def test_the_allocation_table_moves_few_rows_whatever_is_live():
    """100,000 live rows, then adds and removes among them: each moves at most FAR rows (a memmove of
    the rows to the nearest gap), or spreads the table out again, rarely."""
    from tileforth.core import alloctable

    table = _CountingTable()
    rnd = random.Random(3)
    starts = rnd.sample(range(10**9), 100_000)
    for a in starts:
        table.add(a * 64, 16)
    for i in range(3000):  # blocks that keep landing in one place (under a high row)
        table.add(2**40 + 64 * i, 16)
    table.add(2**45, 16)
    for i in range(3000):
        table.add(2**41 + 64 * i, 16)
    table.moved.clear()
    table.spreads = 0
    gone = rnd.sample(starts, 2000)
    for a in gone:
        table.add(rnd.choice(starts) * 64 + 32, 16)
        assert table.remove(a * 64)
    assert max(table.moved, default=0) <= alloctable.FAR and table.spreads <= 2


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
            assert (np.diff(table[:, 0]) >= 0).all()  # sorted (a gap copies the row before it)
        finally:
            f.backend.close()


# ---- device code's ALLOCATE FREE RESIZE (the cpu backend) ----------------------------------------------

def _launches(f, text: str) -> int:
    seen = []
    f.device.launch_hooks.append(lambda: seen.append(1))
    try:
        f.eval(text)
    finally:
        f.device.launch_hooks.pop()
    return len(seen)


def test_a_definition_compiles_allocate_into_device_code_one_launch_for_all_its_calls(f):
    """500 ALLOCATEs and FREEs in a loop are one launch (each was one before: the host walked the
    loop), whatever is live; the word is device code, not a host-level word."""
    f.eval(": pairs ( n -- ) 0 ?DO 16 ALLOCATE THROW FREE THROW LOOP ;  : keep ( n -- ) 0 ?DO 16 ALLOCATE 2DROP LOOP ;")
    word = f.dict["PAIRS"]
    assert not word.host and not any(isinstance(n, HostOp) for n in walk(word.body))
    assert {n.prim.name for n in walk(word.body) if isinstance(n, Prim)} >= {"(ALLOCATE)", "(FREE)"}
    live = len(f.heap)
    assert _launches(f, "500 pairs") == 1
    assert len(f.heap) == live
    assert _launches(f, "500 keep") == 1
    assert len(f.heap) == live + 500 and f.data_stack() == []


def test_a_resize_program_prints_what_gforth_prints(f, need_gforth):
    """A buffer that grows by RESIZE as it is filled (its contents kept at each move), FREE's and
    RESIZE's iors, and gforth's `0 u RESIZE`, which allocates (realloc of NULL)."""
    program = (": grow ( n -- addr ) 1 CELLS ALLOCATE THROW 0 OVER ! SWAP 1 ?DO I 1+ CELLS RESIZE THROW "
               "I I * OVER I CELLS + ! LOOP ; "
               ": sum ( addr n -- s ) 0 SWAP 0 ?DO OVER I CELLS + @ + LOOP NIP ; "
               ": t 40 grow DUP 40 sum . FREE . "
               "8 ALLOCATE . DUP 77 SWAP ! 4000 RESIZE . DUP @ . FREE . "
               "0 16 RESIZE . DUP 0<> . FREE . CR ; t")
    assert f.eval(program) == gforth.output(program)


def test_a_freed_block_is_an_error_in_the_same_launch(f):
    """Use after FREE inside the word that freed it, after a call of a word that frees it (the
    caller's range cache held the block), through EXECUTE, after RESIZE moved it, and in a
    kernel that suspends (its range cache is in the thread record)."""
    raises(f, ": uaf 32 ALLOCATE DROP DUP 5 SWAP ! DUP @ DROP DUP FREE DROP @ ; uaf", word="@")
    f.eval("CLEARSTACK")
    f.eval(": kill ( addr -- ) FREE DROP 0 DROP 0 DROP 0 DROP 0 DROP 0 DROP 0 DROP 0 DROP 0 DROP ;")
    raises(f, ": uaf2 32 ALLOCATE DROP DUP 5 SWAP ! DUP @ DROP DUP kill 6 SWAP ! ; uaf2", word="!")
    f.eval("CLEARSTACK")
    raises(f, ": uaf3 32 ALLOCATE DROP DUP @ DROP DUP ['] kill EXECUTE @ ; uaf3", word="@")
    f.eval("CLEARSTACK")
    raises(f, ": moved 16 ALLOCATE DROP DUP @ DROP DUP 64 RESIZE DROP DROP @ ; moved", word="@")
    f.eval("CLEARSTACK 1 1 1 GRID 4 1 1 THREADS")
    raises(f, ": waits 64 ALLOCATE DROP DUP @ DROP DUP FREE DROP BARRIER @ ; waits", word="@")


def test_an_access_outside_a_block_allocated_in_device_code_is_caught(f):
    """Among neighbours allocated in the same launch: a cell past the end, a byte before the start."""
    f.eval(": many ( n -- ) 0 ?DO 16 ALLOCATE 2DROP LOOP ;  : mid ( -- a ) 100 many 16 ALLOCATE DROP 100 many ;")
    raises(f, ": past mid 2 CELLS + @ ; past", word="@")
    f.eval("CLEARSTACK")
    raises(f, ": before mid 1- C@ ; before", word="C@")
    f.eval("CLEARSTACK")
    f.eval(": inside mid DUP 9 SWAP CELL+ ! CELL+ @ ; inside")
    assert f.data_stack() == [9]


def test_the_range_check_finds_every_block_among_many_in_any_order(f):
    """300 blocks touched in a shuffled order (every access misses the range cache and looks the
    block up in the table), each at its first and last cell, in one launch; then each one's
    last cell + 1 is outside."""
    f.eval("CREATE ptrs 300 CELLS ALLOT  : mk 300 0 DO 16 ALLOCATE DROP ptrs I CELLS + ! LOOP ;  mk")
    order = list(range(300))
    random.Random(4).shuffle(order)
    body = " ".join(f"ptrs {i} CELLS + @ DUP {i} SWAP ! DUP @ SWAP CELL+ {i} OVER ! @ + +" for i in order)
    f.eval(f": touch 0 {body} ; touch")
    assert f.data_stack() == [2 * sum(range(300))]
    f.eval("CLEARSTACK")
    for i in order[:5]:
        raises(f, f"ptrs {i} CELLS + @ 2 CELLS + @", word="@")


def test_the_range_check_scans_rows_that_overlap():
    """Rows that overlap (another library's arrays that share memory: the cuda backend registers
    them as they are) are all searched when the row bisection finds does not hold the access."""
    f = Forth(backend="cpu")
    f.eval("1 1 1 GRID 1 1 1 THREADS  256 ALLOCATE DROP CONSTANT big")
    big = f.data_stack() or None
    (addr,) = [a for a, n in f.heap.blocks.items() if n == 256]
    f.backend._table.add(addr + 64, 8)  # an array inside the block, as register_external would add
    f.eval(": far big 200 + @ ; far  : near big 64 + @ ; near")
    assert f.data_stack() == [0, 0] and big is None


def test_each_thread_allocates_its_own_block(f):
    f.eval("1 1 1 GRID 32 1 1 THREADS")
    f.eval(": own ( -- x ior ) 16 ALLOCATE THROW  TID-X 3 * OVER !  64 RESIZE THROW  DUP @ SWAP FREE ; own")
    assert f.data_stack(lane=None) == [[3 * t, 0] for t in range(32)]
    f.eval("CLEARSTACK")
    f.eval(": keep 64 ALLOCATE DROP ; keep")
    addrs = [s[-1] for s in f.data_stack(lane=None)]
    assert len(set(addrs)) == 32 and all(a in f.heap for a in addrs)


def test_the_race_detector_checks_a_block_allocated_in_the_same_launch(f):
    f.eval("1 1 1 GRID 32 1 1 THREADS  VARIABLE shared-p")
    with pytest.raises(ForthError, match="data race on global memory"):
        f.eval(": r TID-X 0= IF 64 ALLOCATE DROP shared-p ! THEN BARRIER TID-X shared-p @ ! ; r")
    f.eval(": ok TID-X 0= IF 256 ALLOCATE DROP shared-p ! THEN BARRIER TID-X shared-p @ TID-X CELLS + ! ; ok")


def test_a_launch_on_several_cores_refuses_device_allocate_with_what_to_do(f):
    f.backend.workers = 2  # as on a machine with two cores or more
    f.eval("4 1 1 GRID 256 1 1 THREADS  : each 16 ALLOCATE DROP FREE DROP ;")
    with pytest.raises(ForthError, match="ALLOCATE, FREE or RESIZE in device code, in a launch whose blocks run "
                                         "on several cores.*fewer than 512 threads"):
        f.eval("each")
    f.eval("1 1 1 GRID 512 1 1 THREADS  each")  # one block: one core
    assert set(map(tuple, f.data_stack(lane=None))) == {()}


def test_free_and_resize_of_a_bad_address_in_device_code_give_iors(f):
    """As the host words do (gforth's C library aborts the process there)."""
    out = f.eval(": bad ( -- ) 16 ALLOCATE DROP DUP FREE . FREE . HERE FREE . 5 64 RESIZE . . ; bad")
    assert out == f"0 {IOR_FREE} {IOR_FREE} {IOR_RESIZE} 5 " and f.data_stack() == []
    f.eval(": bad2 16 ALLOCATE DROP DUP FREE DROP DUP 8 RESIZE -ROT = ; bad2")
    assert f.data_stack() == [IOR_RESIZE, -1]


def test_the_heap_against_a_model():
    """core/heap.py's blocks, sizes and contents against a dict, over random ALLOCATE FREE RESIZE."""
    f = Forth(backend="cpu")
    heap, be = f.heap, f.backend
    model: dict[int, bytes] = {}
    rnd = random.Random(14)
    for step in range(400):
        r = rnd.random()
        if model and r < 0.3:
            a = rnd.choice(sorted(model))
            assert heap.free(a) == 0
            del model[a]
            assert heap.free(a) == IOR_FREE
        elif model and r < 0.6:
            a, n = rnd.choice(sorted(model)), rnd.randrange(0, 300)
            b, ior = heap.resize(a, n)
            assert ior == 0 and b not in model
            old = model.pop(a)
            got = be.read(b, n).tobytes() if n else b""
            assert got[:min(n, len(old))] == old[:n]
            model[b] = got
        else:
            n = rnd.randrange(0, 300)
            a, ior = heap.allocate(n)
            assert ior == 0 and a not in model and be.read(a, max(n, 1)).tobytes() == bytes(max(n, 1))
            data = bytes(rnd.randrange(256) for _ in range(n))
            if n:
                be.write(a, data)
            model[a] = data
        assert heap.blocks == {a: len(d) for a, d in model.items()}
    assert heap.resize(12345, 8) == (12345, IOR_RESIZE) and heap.allocate(-1)[1] != 0
    assert isinstance(heap, Heap)


def test_on_cuda_a_definition_runs_allocate_on_the_host():
    """The cuda backend has no device heap: a definition's ALLOCATE stays a host word (the word is
    walked on the host), and its block reaches the device's allocation table."""
    with standins("pycuda"):
        f = Forth(backend="cuda")
        try:
            assert not f.backend.caps.device_heap
            f.eval("1 1 1 GRID 1 1 1 THREADS  : mk 48 ALLOCATE ;")  # (the stand-in runs no device code)
            assert f.dict["MK"].host
            f.eval("mk")
            addr, ior = f.data_stack()
            assert ior == 0
            assert f.heap.blocks == {addr: 48}
            f.eval("1 +")  # a launch: the table goes to the device
            table = f.backend.read(f.backend.table_dev, 16 * f.backend._n_allocs).view(np.int64).reshape(-1, 2)
            assert [addr, addr + 48] in table.tolist()
        finally:
            f.backend.close()


def test_a_word_with_device_allocate_is_refused_by_the_nvptx_export(f):
    from tileforth.export.kernels import word_ptx

    f.eval(": mk2 ( -- a ) 64 ALLOCATE DROP ;")
    with pytest.raises(ForthError, match="ALLOCATE in device code runs on the cpu backend only"):
        word_ptx(f, "mk2")


def test_a_block_holds_whole_cells_as_c_malloc_gives_them(f):
    """FFL's tree nodes end in a one-char field that they store a cell into (`acn>balance 0!`): a
    block of 41 bytes holds 48 (C's malloc rounds up; so do the checks), and not a byte more."""
    f.eval(": node ( -- a ) 41 ALLOCATE THROW  0 OVER 40 + !  7 OVER 40 + C!  DUP 40 + @ SWAP FREE THROW ; node")
    assert f.data_stack() == [7]
    f.eval("CLEARSTACK")
    raises(f, ": over-end 41 ALLOCATE THROW 48 + C@ ; over-end", word="C@")


def test_a_word_compiled_alone_whose_caller_has_a_token_does_not_abort_the_process(f):
    """A line calls x (compiled on its own: it reaches EXECUTE) while the token table holds a word
    that calls x: the table was filled while x was half built, and its entry named x's symbol
    before x had one (LLVM aborted the process). Found by FFL's spf test once RESIZE ran in device
    code (its words reach EXECUTE)."""
    arith = " ".join(["1 + 2 * 3 - 4 + 5 * 6 - 7 + 8 * 9 -"] * 2)
    f.eval(f": x ( n xt -- n' ) >R 2 0 DO {arith} LOOP R> EXECUTE ;  : y ( n -- n' ) ['] 1+ x ;  ' y DROP")
    f.eval("5 ['] 1+ x  5 y")
    a, b = f.data_stack()
    assert a == b and a == _x(5) + 1


def _x(n: int) -> int:
    for _ in range(2):
        for _ in range(2):
            n = ((((((((n + 1) * 2 - 3) + 4) * 5 - 6) + 7) * 8) - 9))
    return n
