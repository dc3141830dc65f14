"""Issue 10, items 5 and 8: a launch's work is bounded as a whole (loops spread
over threads, barriers, warp ops), and the smaller reliability fixes."""
from __future__ import annotations

import time

import gforth
import numpy as np
import pytest
from tileforth.core import Forth
from tileforth.core.errors import ForthError

RUNAWAYS = {
    "tile ops": ": t BEGIN TZERO TDROP AGAIN ; t",
    "barriers": ": h BEGIN BARRIER AGAIN ; h",
    "barriers, 1024 threads": "1024 1 1 THREADS : h BEGIN BARRIER AGAIN ; h",
    "threads": "256 1 1 THREADS 256 I64 ARRAY v : w 60000000 0 DO 1 v GLOBAL-ID CELLS + +! LOOP ; w",
}
INFINITE = "looks infinite (if it is not, raise the step budget: `n SET-STEP-BUDGET` or `tileforth --steps n`"


def _runaway(f: Forth, src: str) -> tuple[ForthError, float]:
    t = time.perf_counter()
    with pytest.raises(ForthError) as exc:
        f.eval(src)
    secs = time.perf_counter() - t
    err = exc.value
    assert f"ran {f.step_budget} loop iterations" in err.message, err.message
    assert INFINITE in err.message and err.pos is not None, err.message
    return err, secs


def _still_works(f: Forth) -> None:
    assert f.eval("2 3 + .").strip() == "5"
    assert f.data_stack(lane=None) == [[] for _ in range(f.backend.nthreads)]
    assert f.tiles == []


# ---- item 5: the launch's step pool ----------------------------------------------------------
@pytest.mark.parametrize("name", RUNAWAYS)
def test_a_runaway_launch_stops_with_a_small_budget(name):
    f = Forth(backend="cpu")
    f.step_budget = 1 << 16
    err, secs = _runaway(f, RUNAWAYS[name])
    assert secs < 5, secs
    if name != "threads":  # there thread 0 alone runs past the small budget
        assert "summed over its" in err.message
    _still_works(f)


def test_the_default_budget_stops_each_runaway_within_seconds():
    """With the default Forth.step_budget every shape of runaway ends in a few
    seconds (before: ~11 min for the tile ops, minutes for the barriers, hours
    for 256 threads of a 60M-iteration loop)."""
    for name, src in RUNAWAYS.items():
        f = Forth(backend="cpu")
        _, secs = _runaway(f, src)
        assert secs < 20, (name, secs)  # seconds, not minutes: a loaded 2-core machine takes ~5 s
        _still_works(f)


def test_one_runaway_thread_is_still_named():
    f = Forth(backend="cpu")
    f.step_budget = 10_000
    err, _ = _runaway(f, ": x BEGIN AGAIN ; x")
    assert err.message.startswith("thread 0 ran 10000 loop iterations and calls in x"), err.message


def test_the_budget_counts_the_whole_launch_and_is_settable():
    """256 threads of 10000 iterations are 2.56M iterations: over a budget of
    1M (each thread alone is well within it), fine under a larger one."""
    f = Forth(backend="cpu")
    f.eval("256 1 1 THREADS : w 0 10000 0 DO 1+ LOOP ;")
    f.step_budget = 1_000_000
    err, _ = _runaway(f, "w")
    assert "summed over its 256 threads" in err.message and "in w" in err.message
    f.step_budget = 3_000_000
    f.eval("w")
    assert f.data_stack(lane=None) == [[10000]] * 256


def test_warp_ops_and_barriers_are_charged_to_the_budget():
    """A finite loop of tile ops or barriers runs under a budget that covers
    it and stops under one that does not."""
    f = Forth(backend="cpu")
    f.step_budget = 1 << 26
    f.eval(": t 100 0 DO TZERO TDROP LOOP ;  t  : h 1000 0 DO BARRIER LOOP ;  h")
    f.step_budget = 10_000  # 100 iterations of 2 tile ops cost more than this
    _runaway(f, "t")
    f.step_budget = 20_000  # 1000 barriers of 32 threads cost more than this
    _runaway(f, "h")
    _still_works(f)


# ---- item 8: smaller ones ----------------------------------------------------------------------
def test_a_nan_tile_is_the_same_tile_in_every_warp():
    """THREADS copies warp 0's tiles to the new warps; a NaN tile used to be
    refused as 'warps differ' with one warp, since NaN != NaN."""
    from tileforth.core.compile.state import differing_warps

    f = Forth(backend="cpu")
    f.eval("0e 0e F/ TFILL  64 1 1 THREADS")
    tiles = f.backend.get_tiles()
    assert len(tiles) == 2 and all(np.isnan(w[0]).all() for w in tiles)
    nan = np.full((2, 2), np.nan, np.float32)
    assert differing_warps([[nan], [nan.copy()], [nan, nan], [np.zeros((2, 2), np.float32)]]) == [2, 3]
    with pytest.raises(ForthError, match="every warp holds the same tiles"):
        f.eval("TDROP  TID-X 32 / S>F TFILL  32 1 1 THREADS")


def test_a_failed_line_keeps_a_false_if_skipping():
    f = Forth(backend="cpu")
    f.eval("0 [IF]")
    with pytest.raises(ForthError, match="division by zero"):
        f.eval("[THEN] 1 0 /")  # ends the skip, then fails: the skip comes back with the rest of the state
    assert f.eval("5 .") == ""  # still skipped
    assert f.eval("[THEN] 7 .").strip() == "7"
    f.eval("0 [IF] 0 [IF]")  # nested: the depth comes back too
    with pytest.raises(ForthError):
        f.eval("[THEN] [THEN] 1 0 /")
    assert f.eval("[THEN] 5 .") == ""
    assert f.eval("[THEN] 7 .").strip() == "7"


def test_a_failed_line_restores_base():
    f = Forth(backend="cpu")
    with pytest.raises(ForthError, match="division by zero"):
        f.eval("HEX 1 0 /")
    assert f.base() == 10
    assert f.eval("10 .").strip() == "10"
    f.eval("HEX")
    with pytest.raises(ForthError):
        f.eval("DECIMAL 1 0 /")
    assert f.base() == 16
    assert f.eval("10 . DECIMAL").strip() == "10"


@pytest.mark.parametrize("text, cells", [
    ("99999999999999999999.", [7766279631452241919, 5]),
    ("-99999999999999999999.", [-7766279631452241919, -6]),
    ("340282366920938463463374607431768211457.", [1, 0]),  # 2^128 + 1 wraps, as in gforth
    ("18446744073709551615.", [-1, 0]),
    ("-1.", [-1, -1]),
    ("1.", [1, 0]),
])
def test_double_literals_have_gforths_high_cell(text, cells):
    f = Forth(backend="cpu")
    f.eval("1 1 1 THREADS " + text)
    assert f.data_stack() == cells
    if gforth.available():
        assert gforth.stack(text) == cells


@pytest.mark.parametrize("src, col", [
    (": x " + "1 IF " * 3000 + "THEN " * 3000 + ";", 30005),  # compiled at ;
    ("1 " + "IF " * 3000 + "THEN " * 3000, 1),  # compiled at the end of the line: its first word
])
def test_nesting_too_deeply_has_a_position(src, col):
    f = Forth(backend="cpu")
    f.eval("7")
    with pytest.raises(ForthError, match="nests too deeply") as exc:
        f.eval("2 .\n" + src)
    assert exc.value.pos is not None and (exc.value.pos.line, exc.value.pos.col) == (2, col)
    assert exc.value.output.strip() == "2"
    assert f.data_stack() == [7]


@pytest.mark.parametrize("eltype", ["I8", "I16", "F16", "BF16", "F32", "I64"])
def test_ramp_and_fill_build_no_wide_temporaries(eltype):
    """RAMP and AFILL build the values in the element type (RAMP counts in
    int64 a chunk at a time); they used to build an int64/float64 array
    first: 8x the array for 1-byte types. The values are those conversions'."""
    import tracemalloc

    from tileforth.core.compile.eltypes import BY_NAME

    n = 1 << 20
    dtype = BY_NAME[eltype].dtype
    f = Forth(backend="cpu")
    f.eval(f"{n} {eltype} ARRAY xs")
    with np.errstate(invalid="ignore", over="ignore"):
        want = {"RAMP xs": np.arange(n, dtype=np.int64).astype(dtype),
                "300.7e AFILL xs": np.full(n, np.float64(np.float32(300.7))).astype(dtype)}
    for line, values in want.items():
        tracemalloc.start()
        f.eval(line)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 4 * n * dtype.itemsize + (1 << 20), (line, peak / (n * dtype.itemsize))
        assert f.array("xs").tobytes() == values.tobytes(), line


def test_a_data_script_compiles_no_kernel_per_literal():
    """Issue 10 item 7: `n ,` lines (a data table) push their literals from the host."""
    f = Forth(backend="cpu")
    f.eval("HERE")
    base = f.data_stack()[0]
    f.eval("DROP")
    kernels = len(f.kcache)
    f.eval("\n".join(f"{i * 7 - 300} ," for i in range(300)))
    assert len(f.kcache) == kernels
    f.eval(f"{base} @ {base} 299 CELLS + @")
    assert f.data_stack() == [-300, 299 * 7 - 300]
    f.eval("DROP DROP 2 1 1 GRID 64 1 1 THREADS 1.5e 3")
    assert f.float_stack(lane=None) == [[1.5]] * 128 and f.data_stack(lane=None) == [[3]] * 128


def test_literals_that_overflow_a_stack_are_the_same_error_as_in_a_kernel():
    from tileforth.core.compile.machine import Machine
    f = Forth(backend="cpu", machine=Machine(ds_max=128, fs_max=64))  # stacks of a fixed depth
    with pytest.raises(ForthError, match=r"data stack overflow: thread 0 has more than 128 items") as info:
        f.eval(" ".join(["1"] * 129))
    assert info.value.pos is not None and f.data_stack() == []
    with pytest.raises(ForthError, match=r"float stack overflow"):
        f.eval(" ".join(["1e"] * 65))
    assert f.float_stack() == []


def test_the_kernel_cache_keeps_the_most_recently_used_and_releases_the_rest(monkeypatch):
    """Issue 10 item 7, in part: a session does not keep every distinct line's kernel."""
    from tileforth.core.session import device as interpreter  # the kernel cache is the device's
    monkeypatch.setattr(interpreter, "KERNEL_CACHE", 4)
    f = Forth(backend="cpu")
    released = []
    real = f.backend.release
    monkeypatch.setattr(f.backend, "release", lambda k: (released.append(k.name), real(k)))
    for i in range(10):  # ten lines of different structure (lines differing in numbers share one kernel)
        f.eval("1" + " DUP +" * (i + 1) + " DROP")
    assert len(f.kcache) == 4 and len(released) == 6
    f.eval("5 DUP + DUP + DROP")  # an evicted line compiles again and runs
    assert len(f.kcache) == 4 and len(released) == 7
    f.eval("9 1 + .")
    assert f.eval("9 1 + .") == "10 "


def test_full_jit_engines_are_closed_when_their_kernels_are_released(monkeypatch):
    """MCJIT frees machine code only with its engine: the backend starts a new
    engine every ENGINE_KERNELS kernels and closes a full one once its kernels
    have left the cache; the kernels that stay keep working."""
    from tileforth.backends.cpu import backend as cpu
    from tileforth.core.session import device as interpreter  # the kernel cache is the device's
    monkeypatch.setattr(interpreter, "KERNEL_CACHE", 3)
    monkeypatch.setattr(cpu, "ENGINE_KERNELS", 2)
    f = Forth(backend="cpu")
    closed = []
    real_release = f.backend.release

    def release(k):
        eng = k.engine
        real_release(k)
        if eng.live == 0 and eng.full and eng not in (f.backend.fast, f.backend.heavy):
            closed.append(eng)
    monkeypatch.setattr(f.backend, "release", release)
    def line(i: int) -> str:  # lines of different structure (lines differing in numbers share one kernel)
        return "100" + " 1 +" * (i + 1) + " ."
    for i in range(12):
        assert f.eval(line(i)) == f"{i + 101} "
    assert len(closed) >= 3
    for i in (11, 10, 9, 3):  # cached ones and evicted ones (compiled again in a new engine)
        assert f.eval(line(i)) == f"{i + 101} "
    f.eval("10 0 DO I DROP LOOP")  # the heavy engine (loops) takes kernels too
    assert f.eval("3 4 + .") == "7 "


def test_a_dropped_session_gives_its_kernels_back():
    """Issue 10 item 7: sessions share the process's JIT, and a session's kernels
    leave it (their module is taken out of the engine) when the session is
    collected or closed."""
    import gc
    for i in range(3):
        s = Forth(backend="cpu")
        s.eval(f"{i} 2 + {i} * DROP")
        (kernel,) = s.kcache.values()
        assert kernel.module is not None
        del s
        gc.collect()
        assert kernel.module is None
    s = Forth(backend="cpu")
    s.eval("9 2 + DROP")
    (kernel,) = s.kcache.values()
    s.close()
    assert kernel.module is None and s.closed  # (its parts are gone: test_session_close)
    with Forth(backend="cpu") as w:  # a with block closes the session as it ends, also by an error
        w.eval("8 2 + DROP")
        (kernel,) = w.kcache.values()
        with pytest.raises(ForthError):
            with w:
                w.eval("1 0 /")
        assert kernel.module is None and w.closed


def test_parsed_word_modules_are_a_bounded_cache_and_evicted_words_still_compile(monkeypatch):
    """Issue 10 item 7: a word keeps its IR text (2 KiB), not its parsed LLVM
    module (11 KiB): the compiler keeps the PARSED_WORDS most recently used
    and parses an evicted word again when a new line calls it."""
    from tileforth.core.compile import compiler
    monkeypatch.setattr(compiler, "PARSED_WORDS", 5)
    f = Forth(backend="cpu")
    closed = []
    real_close = compiler.llvm.ModuleRef.close
    monkeypatch.setattr(compiler.llvm.ModuleRef, "close", lambda m: (closed.append(1), real_close(m)))
    for i in range(12):  # words too long to be inlined (dictionary.SMALL_WORD): lines link them
        f.eval(f": w{i} {i} * {i} + {i} - 1 + 1 - 1 + 1 - ;  1 w{i} DROP")  # parsed when a line first links it
    assert not any(f.dict[f"W{i}"].small for i in range(12))
    assert len(f.compiler._parsed) <= 5 and len(closed) >= 7
    assert all(isinstance(text, str) for w in (f.dict["W0"], f.dict["W11"]) for text, _ in w.ir_text.values())
    f.eval(": both DUP w0 SWAP w1 + ;")  # w0 and w1 were evicted: parsed again from their text
    assert f.eval("3 both .") == "3 "
    assert f.eval("5 w11 5 w2 + .") == f"{5 * 11 + 5 * 2} "
    assert len(f.compiler._parsed) <= 5


def test_the_first_launch_with_a_tile_op_checks_reads_against_the_live_table():
    """The cpu backend made its shared region lazily in the first launch, after
    handing the kernel the allocation table, which the region replaced: the
    kernel read a freed table, and a read after a tile op (numpy reused the
    memory) was a false "bad address" (`2e TFILL D 16 TSTORE D F@` in a new session). The lanes read
    what their warp's TSTORE wrote after a SYNCWARP (without it, a race: tensor_cores.md §8.8)."""
    for line, out in [("2e TFILL D 16 TSTORE SYNCWARP D F@ F.", "2. "),
                      ("F16 TILE-IN H 16 TLOAD-A TDROP H 8 + HF@ F.", "0. ")]:
        f = Forth(backend="cpu")
        f.eval("16 16 F32 MATRIX D  16 16 F16 MATRIX H")
        assert f.eval(line) == out
