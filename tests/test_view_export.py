"""Pictures of views (core/session/viewexport.py, png.py; SAVE-VIEW): each file parses as what it claims,
with the cell count and colours worked out here.

References: the PNG is decoded here from the specification (ISO/IEC 15948: the 8-byte signature, chunks of
length, type, data and CRC-32, IHDR's fields, the IDAT stream inflated with zlib, one filter byte per row),
not by the encoder; the SVG is parsed with xml.etree. The colours are computed here from the documented
rules: a value's colour is the grey (221,221,221) blended towards (180,4,38) for v > 0 or (59,76,192) for
v < 0 by |v| / max|v|; a lane's colour is colorsys's hsv(lane/32, 0.45, 1); the tile values are numpy's.
"""
from __future__ import annotations

import colorsys
import struct
import xml.etree.ElementTree as ET
import zlib

import numpy as np
import pytest

from tileforth.core import Forth
from tileforth.core.errors import ForthError

NS = "{http://www.w3.org/2000/svg}"
PNG_CELL = 8  # pixels per cell, as viewexport.py documents


def decode_png(data: bytes) -> np.ndarray:
    """An 8-bit RGB, non-interlaced PNG's pixels, (height, width, 3), with the CRCs checked."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, []
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        chunks.append((kind, body))
        pos += 12 + n
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND"
    w, h, depth, colour, comp, filt, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, colour, comp, filt, interlace) == (8, 2, 0, 0, 0)
    raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    assert len(raw) == h * (1 + 3 * w)
    rows = np.frombuffer(raw, np.uint8).reshape(h, 1 + 3 * w)
    assert (rows[:, 0] == 0).all()  # filter type 0 (None) on every row, the only one the encoder writes
    return rows[:, 1:].reshape(h, w, 3)


def cells_of(img: np.ndarray) -> np.ndarray:
    """The colour at the centre of each PNG_CELL x PNG_CELL cell."""
    h, w, _ = img.shape
    assert h % PNG_CELL == 0 and w % PNG_CELL == 0
    return img[PNG_CELL // 2::PNG_CELL, PNG_CELL // 2::PNG_CELL]


def heat_expected(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, np.float64)
    m = np.abs(v).max()
    out = np.zeros(v.shape + (3,))
    for idx in np.ndindex(v.shape):
        t = v[idx] / m if m else 0.0
        end = (180, 4, 38) if t > 0 else (59, 76, 192)
        out[idx] = [g + (e - g) * abs(t) for g, e in zip((221, 221, 221), end)]
    return np.rint(out).astype(np.uint8)


def svg_cells(path) -> list:
    root = ET.parse(path).getroot()
    assert root.tag == NS + "svg"
    return [r for r in root.iter(NS + "rect") if r.get("class") == "cell"]


def _hex(rgb) -> str:
    return "#%02x%02x%02x" % tuple(int(x) for x in rgb)


TILE = "16 16 F16 MATRIX A  RAMP A  TZERO A 16 TLOAD-A"


def test_tile_png_and_svg_have_a_cell_per_element_in_its_heat_colour(tmp_path):
    f = Forth(backend="cpu")
    f.eval(TILE)
    f.eval(".TILE")
    f.eval(f"SAVE-VIEW {tmp_path}/t.png  SAVE-VIEW {tmp_path}/t.svg")
    want = heat_expected(np.arange(256, dtype=np.float64).reshape(16, 16))  # A = RAMP: 0..255, row-major
    img = decode_png((tmp_path / "t.png").read_bytes())
    assert img.shape == (16 * PNG_CELL, 16 * PNG_CELL, 3)
    assert np.array_equal(cells_of(img), want)
    cells = svg_cells(tmp_path / "t.svg")
    assert len(cells) == 256
    assert [c.get("fill") for c in cells] == [_hex(x) for x in want.reshape(-1, 3)]
    assert cells[17].find(NS + "title").text == "(1,1) 17"


def test_frag_cells_are_coloured_by_lane(tmp_path):
    f = Forth(backend="cpu")
    f.eval(TILE)
    out = f.eval(".FRAG")
    f.eval(f"SAVE-VIEW {tmp_path}/f.png")
    # the lanes as .FRAG prints them (its grid rows: a row label, then 16 lane numbers)
    rows = [ln.split() for ln in out.splitlines()]
    grid = np.array([[int(x) for x in r[1:]] for r in rows if len(r) == 17 and r[0].isdigit()][:16])
    assert grid.shape == (16, 16)
    hsv = [[round(c * 255) for c in colorsys.hsv_to_rgb((lane % 32) / 32, 0.45, 1.0)] for lane in range(32)]
    want = np.array([[hsv[x] for x in row] for row in grid], np.uint8)
    assert np.array_equal(cells_of(decode_png((tmp_path / "f.png").read_bytes())), want)


def test_lanes_picture_has_a_row_per_thread_and_a_cell_per_item(tmp_path):
    f = Forth(backend="cpu")
    f.eval("8 1 1 THREADS  TID-X 1+ 0 ?DO I 3 - LOOP")  # thread t: t+1 items -3 .. t-3
    f.eval(".LANES")
    f.eval(f"SAVE-VIEW {tmp_path}/l.svg  SAVE-VIEW {tmp_path}/l.png")
    vals = np.full((8, 8), np.nan)
    for t in range(8):
        vals[t, :t + 1] = np.arange(t + 1) - 3
    want = heat_expected(np.nan_to_num(vals))
    want[np.isnan(vals)] = 255  # white past a thread's depth
    assert np.array_equal(cells_of(decode_png((tmp_path / "l.png").read_bytes())), want)
    assert len(svg_cells(tmp_path / "l.svg")) == 8 * 8


def test_profile_picture_has_a_row_per_site(tmp_path):
    f = Forth(backend="cpu")
    f.eval("64 1 1 THREADS  256 CELLS SHARED: sh  2048 F32 ARRAY g")
    f.eval(": rd TID-X 4 * CELLS sh + @ DROP  TID-X 32 * g + SF@ FDROP ;  PROFILE rd")
    f.eval(f"SAVE-VIEW {tmp_path}/p.png  SAVE-VIEW {tmp_path}/p.svg")
    img = cells_of(decode_png((tmp_path / "p.png").read_bytes()))
    # two sites: a shared load whose stride of 4 cells (32 bytes) puts lanes 4 banks apart in 32 banks of 4
    # bytes: conflicts; a global load with a stride of 32 bytes: a 32-byte sector per lane, where 4 would do
    banks = (np.arange(32) * 32 // 4) % 32
    assert np.bincount(banks).max() > 1
    assert len(set(np.arange(32) * 32 // 32)) > 32 * 4 // 32
    green, yellow, red, na = (76, 154, 42), (208, 140, 0), (200, 30, 30), (238, 238, 238)
    assert img.shape == (2, 3, 3)
    assert [tuple(c) for c in img[0]] == [green, na, red]
    assert [tuple(c) for c in img[1]] == [green, yellow, na]
    assert len(svg_cells(tmp_path / "p.svg")) == 2 * 3


def test_debugger_stop_png_is_the_mask_and_the_warps(tmp_path):
    f = Forth(backend="cpu")
    f.eval("64 1 1 THREADS")
    f.eval("DEBUG TID-X 2 MOD IF 1 THEN")
    f.eval("DSTEP DSTEP DSTEP DSTEP")
    f.eval(f"SAVE-VIEW {tmp_path}/d.png  SAVE-VIEW {tmp_path}/d.svg")
    img = cells_of(decode_png((tmp_path / "d.png").read_bytes()))
    assert img.shape == (2, 32, 3)
    assert [tuple(c) == (76, 154, 42) for c in img[0]] == [t % 2 == 1 for t in range(32)]  # odd lanes: the IF
    assert ET.parse(tmp_path / "d.svg").getroot().tag == NS + "svg"
    f.eval("DQUIT")


def test_save_view_errors_keep_the_session(tmp_path):
    f = Forth(backend="cpu")
    f.eval("1 2")
    with pytest.raises(ForthError, match="none was shown yet"):
        f.eval(f"SAVE-VIEW {tmp_path}/x.png")
    with pytest.raises(ForthError, match="ending in .svg or .png"):
        f.eval("SAVE-VIEW x.gif")
    f.eval(".LANES")
    with pytest.raises(ForthError, match="cannot write"):
        f.eval(f"SAVE-VIEW {tmp_path}/no/such/x.png")
    assert f.data_stack() == [1, 2]


def test_python_call_writes_what_save_view_writes(tmp_path):
    from tileforth.core.session.viewexport import save_view

    f = Forth(backend="cpu")
    f.eval(TILE + "  .TILE")
    save_view(f, str(tmp_path / "a.png"))
    f.eval(f"SAVE-VIEW {tmp_path}/b.png")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


# ---- `tileforth --save-view FILE`, run as a user runs it --------------------------------------------
ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def _tileforth(tmp_path, *args: str):
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(ROOT), TILEFORTH_SERVER="0")
    return subprocess.run([sys.executable, "-m", "tileforth", "--backend", "cpu", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


def test_cli_save_view_writes_the_debugger_stop_with_the_lanes_stacks(tmp_path):
    run = _tileforth(tmp_path, "--save-view", "stop.svg", "-e", "8 1 1 THREADS  DEBUG TID-X 10 * 5 +",
                     "-e", "DSTEP DSTEP DSTEP")
    assert run.returncode == 0, run.stderr
    root = ET.parse(tmp_path / "stop.svg").getroot()
    assert root.tag == NS + "svg"
    texts = [t.text or "" for t in root.iter(NS + "text")]
    assert "launch 0  block 0  warp 0  next: 5" in texts
    lanes = [t.split() for t in texts if t.startswith("*")]  # "* 3 <1> 30": the active lane 3, depth 1, its item
    assert [int(w[1]) for w in lanes] == list(range(8))
    assert [w[2] for w in lanes] == ["<1>"] * 8
    assert [int(w[3]) for w in lanes] == list(np.arange(8) * 10)  # TID-X 10 *, before 5
    assert len([r for r in root.iter(NS + "rect") if r.get("class") == "lane"]) == 32


def test_cli_save_view_writes_the_last_tile_as_a_png(tmp_path):
    run = _tileforth(tmp_path, "--save-view", "tile.png", "-e", "TZERO .TILE", "-e", TILE + "  .TILE")
    assert run.returncode == 0, run.stderr
    data = (tmp_path / "tile.png").read_bytes()
    assert data[12:16] == b"IHDR" and struct.unpack(">II", data[16:24]) == (16 * PNG_CELL, 16 * PNG_CELL)
    img = decode_png(data)
    a = np.arange(256, dtype=np.float16).reshape(16, 16)  # RAMP A: 0, 1, 2 ... row by row; the last .TILE
    assert (cells_of(img) == heat_expected(a)).all()


def test_cli_save_view_with_n_writes_each_view(tmp_path):
    run = _tileforth(tmp_path, "--save-view", "view-{n}.svg", "-e", "TZERO .TILE  2e TFILL .TILE .FRAG",
                     "-e", "1 2 + DROP")
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["view-1.svg", "view-2.svg", "view-3.svg"]
    assert [len(svg_cells(tmp_path / f"view-{i}.svg")) for i in (1, 2, 3)] == [256] * 3
    tips = [c.find(NS + "title").text for c in svg_cells(tmp_path / "view-2.svg")]
    assert tips[0] == "(0,0) 2"  # the second view: the tile of 2s


def test_cli_save_view_says_what_is_wrong(tmp_path):
    run = _tileforth(tmp_path, "--save-view", "out.txt", "-e", "1")
    assert run.returncode == 2 and "--save-view out.txt: name a .svg or .png file" in run.stderr
    run = _tileforth(tmp_path, "--save-view", "out.png", "-e", "1 2 + .")
    assert run.returncode == 1 and "--save-view: SAVE-VIEW saves the debugger's stop" in run.stderr
    assert run.stdout.startswith("3")  # the run itself ran
    run = _tileforth(tmp_path, "--save-view", "v{n}.png", "-e", "1 .")
    assert run.returncode == 1 and "the run showed no .TILE" in run.stderr
    assert not list(tmp_path.iterdir())


def test_the_command_lines_of_docs_debugger_md_write_their_pictures(tmp_path):
    """docs/debugger.md's ```sh block, each line run as typed (`tileforth` is this checkout's)."""
    import shlex

    text = (ROOT / "docs" / "debugger.md").read_text()
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    lines = [ln for ln in block.splitlines() if ln.strip()]
    assert len(lines) == 3
    for ln in lines:
        words = shlex.split(ln)
        assert words[:3] == ["tileforth", "--backend", "cpu"]
        run = _tileforth(tmp_path, *words[3:])
        assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stop.svg", "tile.png", "view-1.svg", "view-2.svg"]
    assert decode_png((tmp_path / "tile.png").read_bytes()).shape == (16 * PNG_CELL, 16 * PNG_CELL, 3)
    texts = [t.text for t in ET.parse(tmp_path / "stop.svg").getroot().iter(NS + "text")]
    assert "launch 0  block 0  warp 0  next: *" in texts
