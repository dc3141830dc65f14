"""The SIMT step debugger (core/session/debugger.py, words/debug.py), through its Python API and words:
stops at the documented points, active masks against a numpy model of which lanes take a branch, a warp
parked at BARRIER until the last warp arrives, quitting restores the session, and a debugged launch leaves
exactly what an undebugged one does (every demo)."""
import re
from pathlib import Path

import numpy as np
import pytest

from tileforth.export.kernelfile import is_kernel_file
from tileforth.core import Forth
from tileforth.core.errors import ForthError
from tileforth.core.session.debugger import render as render_stop

DEMOS = Path(__file__).resolve().parents[1] / "tileforth" / "demos"


def _session(checked: bool = True) -> Forth:
    return Forth(backend="cpu", checked=checked)


def _run_to(d, word: str):
    """Step until the current warp's next word is `word`; its view."""
    for _ in range(500):
        v = d.view()
        if v.word.upper() == word.upper():
            return v
        assert not v.finished, f"never reached {word}"
        d.step()
    raise AssertionError(f"never reached {word}")


@pytest.mark.parametrize("checked", [True, False])
def test_divergent_if_masks_match_numpy(checked):
    f = _session(checked)
    f.eval("1 1 1 GRID 64 1 1 THREADS")
    d = f.debug("TID-X 3 MOD 0= IF 10 ELSE 20 THEN 1+")
    lanes = np.arange(64)
    takes = lanes % 3 == 0  # the numpy model: the lanes of each warp that take the IF branch
    for w in range(2):
        v = _run_to(d, "10")  # inside the IF branch
        assert v.warp == w
        assert v.mask == list(takes[w * 32:(w + 1) * 32])
        assert v.warps[w] == "diverged"
        v = _run_to(d, "20")  # the ELSE branch: the other lanes
        assert v.mask == list(~takes[w * 32:(w + 1) * 32])
        v = _run_to(d, "1+")  # after THEN: the warp has reconverged
        assert v.mask == [True] * 32
        assert v.warps[w] == "running"
        assert [ln.top[-1] for ln in v.lanes] == list(np.where(takes, 10, 20)[w * 32:(w + 1) * 32])
        d.step()
    assert d.view().finished
    assert f.data_stack(None) == [[int(x)] for x in np.where(takes, 11, 21)]


def test_the_view_names_the_word_and_its_position_with_a_caret():
    f = _session()
    d = f.debug("7 DUP *")
    v = d.view()
    assert (v.word, v.pos.col) == ("7", 1)
    d.step()
    v = d.view()
    assert v.word == "DUP" and v.source_line.splitlines()[1] == "  ^"
    assert [ln.top for ln in v.lanes] == [(7,)] * 32
    d.step()
    assert [ln.top for ln in d.view().lanes] == [(7, 7)] * 32


def test_a_warp_parked_at_barrier_waits_until_the_last_warp_arrives():
    f = _session()
    f.eval("1 1 1 GRID 96 1 1 THREADS  96 CELLS SHARED: sh")
    d = f.debug("TID-X sh TID-X CELLS + ! BARRIER sh 95 TID-X - CELLS + @")
    v = _run_to(d, "BARRIER")
    assert v.warp == 0
    d.step_sync()  # warp 0 is parked: warp 1 runs
    v = d.view()
    assert v.warp == 1 and v.warps == ["barrier", "running", "ready"]
    v = _run_to(d, "BARRIER")
    d.step_sync()
    assert d.view().warps == ["barrier", "barrier", "running"]
    while d.view().warp == 2 and d.view().word != "BARRIER":
        d.step()
    d.step_sync()  # the last warp arrived: the barrier releases them all, warp 0 runs on
    v = d.view()
    assert v.warp == 0 and v.word == "sh" and v.warps == ["running", "ready", "ready"]
    d.run_to_end()
    assert f.data_stack(None) == [[95 - t] for t in range(96)]


def test_quit_restores_the_session_as_a_failed_line_does():
    """Quit leaves the session as the same line failing at its end leaves it (stacks, dictionary, memory)."""
    failed, f = _session(), _session()
    for s in (failed, f):
        s.eval("VARIABLE v  5 v !  1 2")
    before = f.data_stack(None)
    with pytest.raises(ForthError):
        failed.eval(": w2 1 ;  3 4 v @ 1+ v ! ABORT")
    d = f.debug(": w2 1 ;  3 4 v @ 1+ v !")
    d.step()
    d.quit()
    assert f.data_stack(None) == before == failed.data_stack(None)
    assert f.eval("v @ .") == failed.eval("v @ .")
    assert f.lookup("W2") is None and failed.lookup("W2") is None
    with pytest.raises(ForthError, match="has quit"):
        d.step()


def test_continue_stops_at_breakpoints_and_finish_leaves_the_word():
    f = _session()
    f.eval(": sq DUP * ;  : sum-sq sq SWAP sq + ;  BREAK sq")
    d = f.debug("3 4 sum-sq")
    v = d.cont()
    assert v.word == "sq" and [ln.top for ln in v.lanes][0] == (3, 4)
    v = d.cont()
    assert v.word == "sq" and v.lanes[0].top == (16, 3)
    d.finish()
    v = d.view()
    assert v.word == "+" and v.lanes[0].top == (16, 9)
    f.eval("UNBREAK sq")
    d2 = f.debug("3 sq")
    assert d2.cont().finished
    with pytest.raises(ForthError, match="has no breakpoint"):
        f.eval("UNBREAK sq")


def test_warp_and_block_selection():
    f = _session()
    f.eval("2 1 1 GRID 64 1 1 THREADS")
    d = f.debug("GLOBAL-ID 2*")
    v = d.select_warp(1)
    assert v.warp == 1
    d.step()
    assert [ln.top for ln in d.view().lanes][:2] == [(32,), (33,)]
    v = d.select_block(1)
    assert v.block == 1 and [ln.top for ln in d.select_block(1).lanes] == [()] * 32
    with pytest.raises(ForthError, match="block 5 is not in the launch"):
        d.select_block(5)
    with pytest.raises(ForthError, match="warp 7 is not in the block"):
        d.select_warp(7)


def test_watch_shows_cells_per_lane_when_they_change():
    f = _session()
    f.eval("1 1 1 GRID 32 1 1 THREADS  4 CELLS ALLOCATE DROP CONSTANT buf  buf 4 CELLS ERASE  buf 4 WATCH")
    d = f.debug("TID-X 4 < IF TID-X 7 * 1+ buf TID-X CELLS + ! THEN 0")
    changed: dict[int, tuple] = {}
    while not d.view().finished:
        for ln in d.view().lanes:
            if ln.watch_changed:
                changed[ln.lane] = ln.watch
        d.step()
    # each lane's store shows at its next stop; the emulator runs a warp's lanes one after another, so
    # lane k sees the stores of lanes 0..k
    assert changed == {k: tuple(7 * j + 1 if j <= k else 0 for j in range(4)) for k in range(4)}
    f.eval("0 0 WATCH")
    assert f.debug("TID-X DUP").view().lanes[0].watch == ()


def test_words_at_the_prompt():
    f = _session()
    f.eval("64 1 1 THREADS")
    out = f.eval("DEBUG TID-X 2 MOD IF 1 ELSE 2 THEN")
    assert "next: TID-X" in out and "mask " + "█" * 32 in out
    out = f.eval("DSTEP DSTEP DSTEP DSTEP")
    assert "mask " + "·█" * 16 in out  # the odd lanes run the IF branch first
    out = f.eval("DCONT")
    assert "debug: done" in out
    assert f.data_stack(None) == [[2 - t % 2] for t in range(64)]
    f.eval("DEBUG 1 2 +")
    assert "debug: quit" in f.eval("DQUIT")
    assert f.data_stack(None) == [[2 - t % 2] for t in range(64)]
    with pytest.raises(ForthError, match="none is being debugged"):
        f.eval("DSTEP")


# the session demos (saxpy.fth is a kernel file, `\\! kernel`, compiled whole rather than run as lines)
DEMO_FILES = sorted(p.name for p in DEMOS.glob("*.fth") if not is_kernel_file(p.read_text()))


@pytest.mark.parametrize("demo", DEMO_FILES)
def test_stepping_changes_no_result(demo):
    """A demo run under the debugger and stepped to its end leaves the same stacks, arrays and output as an
    undebugged run, bit for bit."""
    src = (DEMOS / demo).read_text()
    plain = _session()
    out_plain = plain.eval(src, source=demo)
    dbg = _session()
    d = dbg.debug(src)
    d.run_to_end()
    assert d.error is None
    assert d.output == out_plain
    assert dbg.data_stack(None) == plain.data_stack(None)
    assert np.array_equal(np.asarray(dbg.float_stack(None)), np.asarray(plain.float_stack(None)))
    names = set(re.findall(r"(?:ARRAY|MATRIX)\s+(\S+)", src))
    assert names or demo == "tour.fth"
    for name in names:
        assert plain.array(name).tobytes() == dbg.array(name).tobytes(), name


DOC = Path(__file__).resolve().parents[1] / "docs" / "debugger.md"


def _fences(lang: str) -> list[str]:
    """The page's fenced blocks opened with ```lang (lang "" : the plain ones)."""
    out, cur, kind = [], None, None
    for line in DOC.read_text().splitlines():
        if line.startswith("```"):
            if cur is None:
                cur, kind = [], line[3:].strip()
            else:
                if kind == lang:
                    out.append("\n".join(cur) + "\n")
                cur = None
        elif cur is not None:
            cur.append(line)
    return out


def test_the_lesson_sessions_print_what_the_page_shows():
    """docs/debugger.md: each session block's `> line`s typed in one fresh session print the lines after
    them (the lanes' lines, which the page leaves out after its first block, aside there)."""
    blocks = _fences("")
    assert len(blocks) == 3
    for i, block in enumerate(blocks):
        f = _session()
        typed: list[tuple[str, list[str]]] = []
        for line in block.splitlines():
            if line.startswith("> "):
                typed.append((line[2:], []))
            else:
                typed[-1][1].append(line)
        for src, shown in typed:
            try:
                out = f.eval(src)
            except ForthError as exc:
                out = str(exc) + "\n"
            got = out.splitlines()
            if i >= 1:
                got = [g for g in got if not re.match(r"^ [ *][ 0-9][0-9]  <", g)]
            assert got == shown, src


def test_the_lesson_python_examples_run():
    blocks = _fences("python")
    assert len(blocks) == 5
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), {})  # each block asserts what the page says


def test_save_view_writes_an_svg_with_32_mask_cells(tmp_path):
    import xml.etree.ElementTree as ET

    f = _session()
    f.eval("1 1 1 GRID 64 1 1 THREADS")
    f.eval("DEBUG TID-X 2 MOD IF 1 THEN")
    f.eval("DSTEP DSTEP DSTEP DSTEP")
    path = tmp_path / "stop.svg"
    f.eval(f"SAVE-VIEW {path}")
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == ns + "svg" and int(root.get("width")) == 20 + 40 + 32 * 18
    cells = [r for r in root.iter(ns + "rect") if r.get("class") == "lane"]
    assert len(cells) == 32
    on = [c.get("fill") == "#4c9a2a" for c in cells]
    assert on == [t % 2 == 1 for t in range(32)]  # the odd lanes run the IF branch
    assert len([r for r in root.iter(ns + "rect") if r.get("class") == "warp"]) == 2
    with pytest.raises(ForthError, match="ending in .svg or .png"):
        f.eval("SAVE-VIEW stop.gif")
    f.eval("DQUIT")


def test_what_the_line_did_before_debug_is_kept():
    """DEBUG in the middle of a line: what the words before it printed and pushed stays (the debugged
    rest runs as a line inside the line), and the next line reads its own text."""
    f = Forth()
    out = f.eval('." before " 7 DEBUG TID-X 2 MOD IF 1 ELSE 2 THEN')
    assert out.startswith("before ") and "next: TID-X" in out
    f.eval("DCONT")
    assert f.data_stack() == [7, 2]
    assert f.eval("3 .") == "3 "


def test_each_stop_shows_the_output_printed_up_to_it():
    """A stop shows what the threads printed before it in the replay, not the launch's whole output: the
    reference is an undebugged session running only the words before the stop (one warp, no branch: every
    lane has run exactly those words), and, with two warps, a session where only warp 0's threads print."""
    line = "1 . TID-X . 2 ."
    words = line.split()
    f = _session()
    f.eval("4 1 1 THREADS")
    d = f.debug(line)
    k = 0
    while not d.finished:
        v = d.view()
        ref = _session()
        ref.eval("4 1 1 THREADS")
        want = ref.eval(" ".join(words[:k])) if k else ""
        assert v.printed == want, (k, v.word)
        d.step()
        k += 1
    assert k == len(words)
    f.eval("64 1 1 THREADS")
    d = f.debug("TID-X .")
    while d.view().warp == 0:
        assert d.view().printed == ""  # warp 0 prints at its last word: nothing before it
        d.step()
    ref = _session()
    ref.eval("64 1 1 THREADS")
    assert d.view().printed == ref.eval("TID-X 32 < IF TID-X . THEN")
    assert "printed so far:" in render_stop(d.view())
