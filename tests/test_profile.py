"""PROFILE: the emulator's memory-access analysis (tileforth/core/session/accessprofile.py).

The figures are checked against the hardware model computed here, apart from
the analysis: the addresses each lane of a warp touches, worked out in numpy
from the pattern, then counted: 32-byte sectors per request (global memory),
and for shared memory 32 banks of 4 bytes served in phases (32 lanes for
accesses up to 4 bytes, 16 for 8 bytes), each phase taking as many wavefronts
as the most distinct words in one bank; the n-way conflict is the worst
phase's count."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tileforth.core.records import replace
from tileforth.core import Forth, ForthError
from tileforth.core.session import accessprofile as profile
from tileforth.repl import render as rviews

SETUP = "32 1 1 THREADS  4096 F32 ARRAY xs  4224 SHARED: sh"


@pytest.fixture(scope="module")
def f():
    f = Forth(backend="cpu")
    f.eval(SETUP)
    return f


def addr_of(f, name: str) -> int:
    f.eval(name)
    (a,) = f.data_stack(0)[-1:]
    f.eval("DROP")
    return a


def sectors(addrs: np.ndarray, size: int) -> int:
    """Distinct 32-byte sectors the lanes' bytes fall in."""
    return len({b // 32 for a in addrs for b in range(int(a), int(a) + size)})


def ways(offsets: np.ndarray, size: int) -> tuple[int, int]:
    """(wavefronts, n-way) of one warp's shared request, lane i at offsets[i]."""
    per_phase = 32 if size <= 4 else 32 // (size // 4)
    worst, total = 0, 0
    for p in range(0, 32, per_phase):
        banks: dict[int, set[int]] = {}
        for lane in range(p, min(p + per_phase, len(offsets))):
            for w in range(int(offsets[lane]) // 4, (int(offsets[lane]) + size - 1) // 4 + 1):
                banks.setdefault(w % 32, set()).add(w)
        if banks:
            m = max(len(s) for s in banks.values())
            worst, total = max(worst, m), total + m
    return total, worst


def run(f, body: str, name: str = "k") -> dict:
    f.eval(f": {name} {body} ;")
    f.eval(f"PROFILE {name}")
    return profile.last(f)


lanes = np.arange(32)


@pytest.mark.parametrize("stride,expect", [(1, 4), (2, 8), (32, 32)])
def test_global_f32_load_sectors_per_request_follow_the_stride(f, stride, expect):
    p = run(f, f"TID-X {stride} * 4 * xs + SF@ FDROP", f"g{stride}")
    (s,) = p["sites"]
    base = addr_of(f, "xs")
    model = sectors(base + lanes * stride * 4, 4)
    assert base % 32 == 0 and model == expect  # the model's figure for an aligned array
    assert (s["space"], s["access"], s["requests"]) == ("global", "load", 1)
    assert s["sectors_per_request"] == model and s["ideal_sectors_per_request"] == 4


@pytest.mark.parametrize("name,offset,expect", [
    ("stride1", "TID-X 4 *", 1),
    ("stride2", "TID-X 2 * 4 *", 2),
    ("column", "TID-X 32 * 5 + 4 *", 32),  # a column of a 32x32 f32 tile
    ("padded", "TID-X 33 * 5 + 4 *", 1),  # the same column with 33 columns per row
])
def test_shared_f32_load_bank_conflicts_follow_the_bank_model(f, name, offset, expect):
    p = run(f, f"{offset} sh + SF@ FDROP", name)
    (s,) = p["sites"]
    offs = {"stride1": lanes * 4, "stride2": lanes * 8, "column": (lanes * 32 + 5) * 4,
            "padded": (lanes * 33 + 5) * 4}[name]
    wf, n = ways(offs, 4)
    assert n == expect
    assert (s["space"], s["ways"], s["wavefronts"], s["ideal_wavefronts"]) == ("shared", n, wf, 1)
    assert s["bank_conflicts"] == wf - 1


def test_shared_cells_are_served_in_two_phases_of_16_lanes(f):
    p = run(f, "TID-X CELLS sh + @ DROP", "cells")
    (s,) = p["sites"]
    wf, n = ways(lanes * 8, 8)
    assert (wf, n) == (2, 1) and (s["wavefronts"], s["ideal_wavefronts"], s["ways"], s["size"]) == (2, 2, 1, 8)


def test_a_broadcast_is_one_wavefront(f):
    (s,) = run(f, "sh SF@ FDROP", "bcast")["sites"]
    assert (s["ways"], s["bank_conflicts"]) == (1, 0)


def test_a_loop_makes_one_request_per_iteration(f):
    (s,) = run(f, "4 0 DO I 32 * TID-X + 4 * xs + SF@ FDROP LOOP", "loop4")["sites"]
    assert (s["requests"], s["lanes_per_request"], s["sectors_per_request"]) == (4, 32, 4)


def test_divergence_shows_as_active_lanes_per_request(f):
    p = run(f, "TID-X 16 < IF 1e TID-X 4 * xs + SF! THEN", "half")
    (s,) = p["sites"]
    assert (s["access"], s["requests"], s["lanes_per_request"], s["divergent"], s["min_lanes"]) == \
        ("store", 1, 16, 1, 16)
    assert s["sectors_per_request"] == sectors(addr_of(f, "xs") + lanes[:16] * 4, 4) == 2


def test_barriers_are_counted_per_block():
    f = Forth(backend="cpu")
    f.eval("2 1 1 GRID  64 1 1 THREADS  512 SHARED: s2")
    f.eval(": two TID-X CELLS s2 + TID-X SWAP ! BARRIER BARRIER 63 TID-X - CELLS s2 + @ DROP ;")
    out = f.eval("PROFILE two")
    p = profile.last(f)
    (launch,) = p["launches"]
    assert launch["barriers_per_block"] == [2, 2] and launch["barrier_waits"] == 4
    assert launch["threads"] == 128 and launch["requests"] == 8  # 2 sites x 4 warps
    assert "2 BARRIERs per block" in out


def test_profile_needs_a_checked_session():
    f = Forth(backend="cpu", checked=False)
    f.eval(": nothing ;")
    with pytest.raises(ForthError, match="needs a checked session.*without --unchecked"):
        f.eval("PROFILE nothing")
    with pytest.raises(ForthError, match="checked session"):
        f.eval("PROFILE{")


def test_profile_needs_the_emulator():
    f = Forth(backend="cpu")
    f.backend.caps = replace(f.backend.caps, access_trace=False)  # as a backend that does not trace
    with pytest.raises(ForthError, match="emulator only.*cpu backend"):
        f.eval("PROFILE{")


def test_bad_uses_say_what_to_do(f):
    with pytest.raises(ForthError, match="unknown word nosuch; define it first"):
        f.eval("PROFILE nosuch")
    with pytest.raises(ForthError, match="needs a word's name after it"):
        f.eval("PROFILE")
    with pytest.raises(ForthError, match="without PROFILE\\{: put PROFILE\\{ before"):
        f.eval("}PROFILE")
    assert f.backend.trace_cap == 0 and "launch" not in vars(f.backend)


def test_profile_brackets_span_lines_and_profile_every_launch_between(f):
    f.eval(": ld TID-X 4 * xs + SF@ FDROP ;  : st TID-X 32 * 4 * sh + 1e SF! ;")
    assert f.eval("PROFILE{ ld") == ""
    assert f.backend.trace_cap > 0
    with pytest.raises(ForthError, match="open already"):
        f.eval("PROFILE{")
    out = f.eval("st }PROFILE")
    assert f.backend.trace_cap == 0 and "launch" not in vars(f.backend)
    p = profile.last(f)
    assert [(s["word"], s["space"], s["launch"]) for s in p["sites"]] == [("ld", "global", 0), ("st", "shared", 1)]
    assert p["sites"][1]["ways"] == 32 and len(p["launches"]) == 2
    assert "launch 1 of 2" in out and "launch 2 of 2" in out


def test_a_full_trace_says_records_were_dropped(f, monkeypatch):
    monkeypatch.setattr(profile, "TRACE_CAP", 40)
    out = run(f, "TID-X 4 * xs + SF@ FDROP  TID-X 4 * xs + SF@ FDROP", "many")
    (launch,) = profile.last(f)["launches"]
    assert (launch["records"], launch["dropped"]) == (40, 24)
    out = f.eval("PROFILE many")
    assert "24 accesses past the first 40 were not recorded" in out


def test_the_text_and_the_repl_table_point_at_the_source(f):
    f.eval(": colread ( -- )\n  TID-X 32 * 5 + 4 * sh + SF@ FDROP ;")
    out = f.eval("PROFILE colread")
    lines = out.splitlines()
    assert lines[0] == "PROFILE colread"
    row = next(ln for ln in lines if ln.startswith("colread 2:27"))
    assert "shared load 4B" in row and "31 (32-way)" in row
    assert "TID-X 32 * 5 + 4 * sh + SF@ FDROP ;" in out
    assert all(len(ln) <= 80 for ln in lines)
    rendered = [t.plain for t in rviews.render("profile", f.last_profile, width=80)]
    assert rendered == [ln.rstrip() for ln in lines]  # no terminal: the record's own layout, as eval's text
    coloured = rviews.render("profile", f.last_profile, width=100, colour=True)  # a terminal: the table
    assert all(len(t.plain) <= 100 for t in coloured)
    row = next(t.plain for t in coloured if t.plain.startswith("colread 2:27"))
    assert "sh + SF@" in row and "shared load 4B" in row and "31 (32-way)" in row
    assert any("red" in str(span.style) for t in coloured for span in t.spans)


REDUCE = (Path(__file__).resolve().parents[1] / "demos" / "reduce.fth").read_text()


@pytest.fixture(scope="module")
def reduced():
    """demos/reduce.fth's first two steps, profiled (the second one's is the last profile)."""
    f = Forth(backend="cpu")
    f.eval(REDUCE.split('." --- 3.')[0])
    yield f
    f.close()


def _figures(site: dict) -> list[str]:
    """A site's figures as words, from f.profile()'s data (not from the view's cells)."""
    n = lambda x: str(int(x)) if float(x).is_integer() else f"{x:.1f}"  # noqa: E731
    out = [str(site["requests"]), n(site["lanes_per_request"])]
    if site["space"] == "global":
        return out + [n(site["sectors_per_request"]), f"(ideal {n(site['ideal_sectors_per_request'])})"]
    return out + [str(site["bank_conflicts"]), f"({site['ways']}-way)"]


@pytest.mark.parametrize("width", [60, 80, 100, 160])
@pytest.mark.parametrize("colour", [False, True])
def test_profile_shows_every_heading_and_figure_whole_at_any_width(reduced, width, colour):
    """Issue 26: at 60 columns and in a pipe (80) the table cut its headings and figures ("lan…",
    "global atomic …"). Now each line fits, and each site shows its place, its access and every
    figure, whole, with its source line and a caret: a table row on a wide terminal, the record's
    stacked layout elsewhere."""
    lines = [t.plain for t in rviews.render("profile", reduced.last_profile, width=width, colour=colour)]
    assert all(len(ln) <= width for ln in lines), (width, lines)
    assert not any("…" in ln for ln in lines if ln.startswith("site "))  # the headings whole
    text = "\n".join(lines)
    for site in reduced.profile()["sites"]:
        where = f"{site['word']} {site['line']}:{site['col']}"
        at = next(i for i, ln in enumerate(lines) if ln.startswith(where + " "))
        block = " ".join(lines[at:at + 3])
        assert f"{site['space']} {site['access']} {site['size']}B" in block
        words = f" {' '.join(block.split())} "
        for fig in _figures(site):
            assert f" {fig} " in words, (width, where, fig, block)
    for head in ("reqs", "lanes", "sectors/req"):
        assert head in text


def test_a_piped_demo_prints_the_stacked_layout_docs_simt_shows(tmp_path):
    """`tileforth demos/reduce.fth | cat`: the heading row whole, each site's row, then its source
    line and a caret under the word (docs/simt.md's layout)."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu", str(root / "demos" / "reduce.fth")],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path,
                       env={**os.environ, "PYTHONPATH": str(root), "COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    heads = [i for i, ln in enumerate(lines) if ln.split() == ["site", "access", "reqs", "lanes", "sectors/req",
                                                               "bank", "conflicts"]]
    assert len(heads) == 3  # the three PROFILEs
    row = lines.index(next(ln for ln in lines if ln.startswith("sum-atomic 15:30 ")))
    assert lines[row + 1].strip().startswith(": sum-atomic")
    caret = lines[row + 2]
    at = caret.index("^")
    assert lines[row + 1][at:at + len("FATOMIC+")] == "FATOMIC+" and caret.strip() == "^" * len("FATOMIC+")


def test_the_repl_shows_the_table_at_80_columns():
    import io

    from tileforth.repl.display import Display
    f = Forth(backend="cpu")
    d = Display(io.StringIO(), io.StringIO())
    d.attach(f)
    f.eval(SETUP)
    f.eval(": rd TID-X 4 * xs + SF@ FDROP ;")
    out = f.eval("PROFILE rd")
    assert "rd 1:" in out and "xs + SF@" in out and "4 (ideal 4)" in out
    assert max(len(ln) for ln in out.splitlines()) <= 80
