"""Jupyter: `%load_ext tileforth`, the `%%forth` cell magic, `%forth_session`
(tileforth/repl/notebook.py), and demos/tour.ipynb executed headless by nbclient in a
real ipykernel, its outputs checked: the stacks after a cell, a tile's
values (against numpy), an error's caret, and never a Python traceback."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
TOUR = ROOT / "demos" / "tour.ipynb"


def _plain(bundle) -> str:
    return bundle["text/plain"] if isinstance(bundle, dict) else bundle.plain()


class _Tags(HTMLParser):
    """Counts start and end tags, to check that the HTML is well formed."""

    VOID = {"br", "hr", "img", "meta", "link", "col", "input"}

    def __init__(self):
        super().__init__()
        self.stack: list[str] = []
        self.bad: list[str] = []
        self.count: dict[str, int] = {}

    def handle_starttag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.bad.append(tag)
        else:
            self.stack.pop()


def well_formed(html: str) -> dict[str, int]:
    p = _Tags()
    p.feed(html)
    p.close()
    assert not p.bad and not p.stack, (p.bad, p.stack)
    return p.count


def grid_values(plain: str, rows: int = 16, cols: int = 16) -> np.ndarray:
    """The numbers of a .TILE / .M grid: the lines of a row label and `cols` numbers."""
    out = []
    for line in plain.splitlines():
        parts = line.split()
        if len(out) < rows and len(parts) == cols + 1 and parts[0] == str(len(out)):
            out.append([float(x) for x in parts[1:]])
    assert len(out) == rows, plain
    return np.array(out)


# ---------------------------------------------------------------- in process


@pytest.fixture(scope="module")
def ip():
    pytest.importorskip("IPython")
    from IPython.testing.globalipapp import start_ipython

    shell = start_ipython()
    shell.run_line_magic("load_ext", "tileforth")
    yield shell
    shell.run_line_magic("unload_ext", "tileforth")


def _cell(ip, line: str, cell: str, capsys) -> list[dict]:
    """Run a %%forth cell; the display bundles it showed."""
    shown = []
    from IPython.core import display_functions

    orig = display_functions.publish_display_data

    def grab(data, *a, **k):
        shown.append(data)

    display_functions.publish_display_data = grab
    try:
        ip.run_cell_magic("forth", line, cell)
    finally:
        display_functions.publish_display_data = orig
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return shown


def _line(ip, line: str, capsys) -> list[dict]:
    """Run a %forth line; the display bundles it showed."""
    shown = []
    from IPython.core import display_functions

    orig = display_functions.publish_display_data
    display_functions.publish_display_data = lambda data, *a, **k: shown.append(data)
    try:
        ip.run_line_magic("forth", line)
    finally:
        display_functions.publish_display_data = orig
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return shown


def test_the_package_is_a_regular_one_and_the_subpackages_still_resolve():
    import tileforth.core
    import tileforth.repl

    import tileforth

    assert Path(tileforth.__file__).parent == ROOT / "tileforth"
    assert Path(tileforth.core.__file__) == ROOT / "tileforth" / "core" / "__init__.py"
    assert Path(tileforth.repl.__file__) == ROOT / "tileforth" / "repl" / "__init__.py"
    assert callable(tileforth.load_ipython_extension)


def test_forth_cell_shows_the_stacks_views_and_errors_and_the_session_is_the_python_api(ip, capsys):
    (b,) = _cell(ip, "--backend cpu --new", "2 3 +\nTID-X", capsys)
    assert b["text/plain"] == "data  <2> 5 [0 1 2 … 31]\nfloat <0>\n"
    well_formed(b["text/html"])

    f = ip.run_line_magic("forth_session", "")
    assert f.backend_name == "cpu" and f.data_stack(lane=None)[3] == [5, 3]
    assert f.eval("DROP DROP 7") == ""  # the Python API sees plain text, no view markers
    assert f.data_stack(lane=0) == [7]

    (b,) = _cell(ip, "", "DROP DROP 1 .", capsys)  # one line: the error as at the prompt
    assert b["text/plain"].splitlines() == [
        "error: data stack underflow: thread 0 has too few items; push the inputs first",
        "  DROP DROP 1 .", "       ^^^^"]
    assert f.data_stack(lane=0) == [7]  # the session is as it was before the line

    (b,) = _cell(ip, "--grid 2 1 1 --threads 64", "DROP\n: sq DUP * ;\nGLOBAL-ID sq\n1 2 +\n9 nope", capsys)
    lines = b["text/plain"].splitlines()
    assert lines[-3].startswith("<cell>:5:3: error: ") and lines[-2:] == ["  9 nope", "    ^^^^"]
    assert f.launch_shape == ((2, 1, 1), (64, 1, 1))
    assert f.data_stack(lane=None)[127] == [127 * 127, 3]



def test_tile_and_fragment_views_are_coloured_html_tables(ip, capsys):
    note, b = _cell(ip, "--new --backend cpu",
                    "16 16 F16 MATRIX A  RAMP A\nTZERO A 16 TLOAD-A\n.FRAG\n.TILE", capsys)
    assert _plain(note) == "a new cpu session (the cpu session's words and stacks are gone)"
    plain, html = b["text/plain"], b["text/html"]
    tags = well_formed(html)
    assert tags["table"] == 4  # .FRAG, .TILE, and the two tiles of the stack view
    assert 'class="tf-frag"' in html and 'class="tf-heat"' in html
    assert np.array_equal(grid_values(plain.split("the top of the tile stack")[1]),
                          np.arange(256, dtype=np.float32).reshape(16, 16))
    assert plain.rstrip().endswith("a 16x16 f16  min 0.0 max 255.0 mean 127.5")
    (b,) = _cell(ip, "", ".S", capsys)  # `.S` last: the stacks once, not twice
    assert b["text/plain"].count("data  <0>") == 1


def _text(html_part: str) -> str:
    import html as html_lib

    return html_lib.unescape(re.sub(r"<[^>]+>", "", html_part))


def test_frag_html_ends_with_what_lane_0_holds_below_the_table(ip, capsys):
    """Issue 26: the closing "lane 0 holds ..." line was replaced by a copy of the grid's last row
    (the notes were read from the record's lines at another width than they were styled at)."""
    (b,) = _cell(ip, "--new --backend cpu", "TZERO\n.FRAG", capsys)[-1:]
    head, rest = b["text/html"].split('class="tf-frag"', 1)
    table, after = rest.split("</table>", 1)
    plain = b["text/plain"]
    lane0 = next(ln for ln in plain.splitlines() if ln.startswith("lane 0 holds"))
    assert lane0 in _text(after) and "lane 0 holds" not in _text(head)
    last_row = next(ln for ln in plain.splitlines() if ln.startswith("15 "))
    assert " ".join(last_row.split()[1:]) not in " ".join(_text(after).split())  # the grid's row is not repeated
    assert "the lane that holds each element" in _text(head)


def test_a_long_error_in_a_cell_wraps_between_words_and_keeps_the_caret(ip, capsys):
    """Issue 26: a long message was one line cut at the notebook's right edge (white-space:pre),
    hiding the fix; the source line too."""
    line = " ".join(str(i) for i in range(200)) + " FROBNICATE-THE-WIDGETS 7"
    (b,) = _cell(ip, "--new --backend cpu", line, capsys)[-1:]
    rows = _text(b["text/html"]).strip("\n").splitlines()
    from tileforth.repl.notebook import ERROR_WIDTH

    assert all(len(r) <= ERROR_WIDTH for r in rows), rows
    message = b["text/plain"].splitlines()[0]
    assert " ".join(" ".join(rows[:-2]).split()) == " ".join(message.split())  # every word, none broken
    at = rows[-1].index("^")
    assert rows[-2][at:at + len("FROBNICATE-THE-WIDGETS")] == "FROBNICATE-THE-WIDGETS"
    assert "white-space:pre-wrap" in b["text/html"]


def test_the_forth_line_magic_runs_one_line_in_the_cells_session(ip, capsys):
    _cell(ip, "--new --backend cpu --threads 4 1 1", ": sq DUP * ;", capsys)
    (b,) = _line(ip, "TID-X sq", capsys)
    assert b["text/plain"] == "data  <1> [0 1 4 9]\nfloat <0>\n"
    (b,) = _line(ip, "--new 1 .", capsys)  # all Forth: no options
    assert "unknown word --new" in b["text/plain"]


def test_bad_options_are_a_message_not_a_traceback(ip, capsys):
    (b,) = _cell(ip, "--grid 0", "1", capsys)
    assert _plain(b).startswith("%%forth: --grid takes one to three positive numbers")
    (b,) = _cell(ip, "--colour", "1", capsys)
    assert "unrecognized arguments: --colour" in _plain(b)


# ---------------------------------------------------------------- the tour, headless


def _kernel_or_skip():
    """Start and stop a python3 kernel; skip (only) when none can start here."""
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    from jupyter_client.manager import start_new_kernel

    try:
        km, kc = start_new_kernel(kernel_name="python3", startup_timeout=60)
    except Exception as e:  # no kernel in this sandbox (sockets, kernelspec): say why
        pytest.skip(f"an ipykernel cannot start here: {type(e).__name__}: {e}")
    kc.stop_channels()
    km.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def tour(tmp_path_factory):
    _kernel_or_skip()
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(TOUR, as_version=4)
    nbformat.validate(nb)
    mp = pytest.MonkeyPatch()
    mp.setenv("TILEFORTH_BACKEND", "cpu")  # the kernel inherits it: tiles are kept between cells
    try:
        NotebookClient(nb, timeout=300, kernel_name="python3",
                       resources={"metadata": {"path": str(ROOT)}}).execute()
    finally:
        mp.undo()
    return nb


def _outputs(nb, first_line: str) -> list:
    """The outputs of the code cell whose source is first_line (its first
    line after any %%forth line, or the whole source)."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        lines = cell.source.splitlines()
        body = lines[1:] if lines and lines[0].startswith("%%forth") else lines
        if body and body[0] == first_line:
            return cell.outputs
    raise AssertionError(f"no cell starting {first_line!r}")


def _bundle(nb, first_line: str) -> dict:
    outs = [o for o in _outputs(nb, first_line) if o.output_type == "display_data"]
    assert len(outs) == 1, outs
    assert {"text/plain", "text/html"} <= set(outs[0].data) <= {"text/plain", "text/html", "image/png", "image/svg+xml"}
    well_formed(outs[0].data["text/html"])
    return outs[0].data


def test_the_tour_runs_without_a_traceback_and_every_forth_cell_shows_something(tour):
    for cell in tour.cells:
        if cell.cell_type != "code":
            continue
        assert all(o.output_type != "error" for o in cell.outputs), cell.source
        if cell.source.startswith("%%forth"):
            assert any(o.output_type == "display_data" for o in cell.outputs), cell.source
            for o in cell.outputs:
                assert "Traceback" not in o.get("data", {}).get("text/plain", "")


def test_the_tour_shows_the_stacks_after_a_cell(tour):
    assert _bundle(tour, "2 3 +")["text/plain"] == "data  <2> 5 [0 1 2 … 31]\nfloat <0>\n"
    lanes = _bundle(tour, ".LANES")["text/plain"]
    assert "     7  <2> 5 7  |     15  <2> 5 15 |" in lanes
    assert _bundle(tour, "2048 SHARED: buf")["text/plain"].startswith("255 0 \n")
    assert _bundle(tour, "TMMA")["text/plain"].endswith("tiles <1>\n  acc 16x16 f32  min 0.0 max 255.0 mean 127.5\n")


def test_the_tour_tile_values_are_a_times_b_computed_by_numpy(tour):
    a = np.arange(256).reshape(16, 16).astype(np.float16)  # RAMP A
    b = np.eye(16, dtype=np.float16)  # IDENTITY B
    want = a.astype(np.float32) @ b.astype(np.float32)
    tile = _bundle(tour, ".TILE")
    assert tile["text/plain"].startswith("acc 16x16 f32: the top of the tile stack <1>")
    assert np.array_equal(grid_values(tile["text/plain"]), want)
    table = tile["text/html"].split("</table>")[0]  # .TILE's own; then the tile stack's heat map
    titles = re.findall(r'title="\((\d+),(\d+)\) ([^"]*)"', table)
    assert len(titles) == 256 and all(float(v) == want[int(r), int(c)] for r, c, v in titles)
    m = _bundle(tour, "C 16 TSTORE")["text/plain"]
    assert m.startswith("C: 16x16 f32") and np.array_equal(grid_values(m), want)
    frag = _bundle(tour, ".FRAG")
    assert 'class="tf-frag"' in frag["text/html"] and "lane 0 holds c0=(0,0)" in frag["text/plain"]
    assert "lane 0 holds c0=(0,0)" in frag["text/html"].split('class="tf-frag"')[1].split("</table>", 1)[1]
    api = _outputs(tour, "import numpy as np")
    assert [o.data["text/plain"] for o in api if o.output_type == "execute_result"] == ["True"]


def test_the_tour_error_has_its_caret_under_the_word(tour):
    err = _bundle(tour, "TZERO 2e TFILL TMMA")
    lines = err["text/plain"].splitlines()
    assert lines[0].startswith("error: TMMA expects ( acc a b ) on the tile stack, but it is ( acc acc )")
    assert lines[1:] == ["  TZERO 2e TFILL TMMA", "  " + " " * len("TZERO 2e TFILL ") + "^^^^"]
    assert "Traceback" not in err["text/html"] and "error: " in err["text/html"]


def test_the_repl_guide_notebook_example_shows_what_the_guide_says(ip, capsys):
    """docs/repl.md, "Notebooks": the cells after its marker run here as in a
    notebook and show the block after "shows"."""
    doc = (ROOT / "docs" / "repl.md").read_text()
    section = doc.split("<!-- notebook example: tests/test_notebook.py runs these cells and compares -->", 1)[1]
    load, cell, shown, line, line_shown = re.findall(r"^```\n(.*?)^```", section, re.M | re.S)[:5]
    assert load == "%load_ext tileforth\n"
    magic, body = cell.split("\n", 1)
    assert magic.startswith("%%forth ")
    bundles = _cell(ip, magic[len("%%forth "):] + " --new", body, capsys)
    assert _plain(bundles[-1]) == shown
    assert line.startswith("%forth ") and line.count("\n") == 1  # the line magic, in the same session
    assert _plain(_line(ip, line[len("%forth "):].rstrip("\n"), capsys)[-1]) == line_shown


# ---------------------------------------------------------------- %%forth --trace


class _Stops(HTMLParser):
    """The trace's scrolling box and the stops in it: each stop's <div class="tf-stop"> and its <svg>'s
    32 mask cells (<rect class="lane">), green where the lane runs the word."""

    def __init__(self):
        super().__init__()
        self.box_style = None
        self.stops: list[list[bool]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and a.get("class") == "tf-trace":
            self.box_style = a.get("style", "")
        elif tag == "div" and a.get("class") == "tf-stop":
            self.stops.append([])
        elif tag == "rect" and a.get("class") == "lane":
            self.stops[-1].append(a.get("fill") == "#4c9a2a")


def _trace(html_text: str) -> _Stops:
    p = _Stops()
    p.feed(html_text)
    return p


def test_trace_shows_every_stop_as_an_svg_in_a_scrolling_box(ip, capsys):
    line, threads = "7 DUP *", 64
    (b,) = _cell(ip, f"--new --backend cpu --threads {threads} --trace", line, capsys)[-1:]
    p = _trace(b["text/html"])
    assert "overflow:auto" in p.box_style and "max-height" in p.box_style
    # each word of the line is one stop per warp (no branch: every lane of the warp runs it)
    assert len(p.stops) == len(line.split()) * (threads // 32)
    assert all(cells == [True] * 32 for cells in p.stops)
    well_formed(b["text/html"])
    assert b["text/plain"].count("-- stop ") == len(p.stops)
    assert b["text/plain"].endswith("data  <1> 49\nfloat <0>\n")  # then the stacks, as after a cell


def test_trace_masks_follow_a_divergent_if_and_n_limits_the_stops(ip, capsys):
    (b,) = _cell(ip, "--new --backend cpu --threads 32 --trace", "TID-X 3 MOD 0= IF 10 ELSE 20 THEN", capsys)[-1:]
    p = _trace(b["text/html"])
    takes = list(np.arange(32) % 3 == 0)  # numpy: the lanes that take the IF branch
    assert takes in p.stops and [not t for t in takes] in p.stops
    total = len(p.stops)
    (b,) = _cell(ip, "--trace 3", "TID-X 3 MOD 0= IF 10 ELSE 20 THEN", capsys)
    assert len(_trace(b["text/html"]).stops) == 3
    assert f"({total - 3} more stops not shown" in b["text/plain"]


def test_trace_of_a_failing_cell_shows_the_error_and_restores_the_session(ip, capsys):
    _cell(ip, "--new --backend cpu --threads 32", "5", capsys)
    (b,) = _cell(ip, "--trace", "7 DUP * 0 /", capsys)
    assert "division by zero" in b["text/plain"] and _trace(b["text/html"]).stops
    (b,) = _line(ip, ".S", capsys)
    assert "data  <1> 5" in b["text/plain"]
    (b,) = _cell(ip, "--trace 0", "1", capsys)
    assert "--trace takes the number of stops" in _plain(b)


def test_load_ext_in_a_kernel_sends_the_forth_highlighting(ip, capsys):
    from tileforth.repl import highlight

    shown = []
    from IPython.core import display_functions

    orig = display_functions.publish_display_data
    display_functions.publish_display_data = lambda data, *a, **k: shown.append(data)
    ip.kernel = object()  # as in an ipykernel (the terminal IPython sends nothing)
    try:
        ip.run_line_magic("unload_ext", "tileforth")
        ip.run_line_magic("load_ext", "tileforth")
    finally:
        del ip.kernel
        display_functions.publish_display_data = orig
    (js,) = [d["application/javascript"] for d in shown if "application/javascript" in d]
    assert 'defineMode("tileforth"' in js and "highlight_modes[\"magic_tileforth\"]" in js
    assert "/^%%forth/" in js
    words = json.loads(re.search(r"var words = (\[.*?\]);", js).group(1))
    # the dictionary's words, checked against a session's dictionary (internal (NAME) words aside)
    from tileforth.core import Forth

    f = Forth(backend="cpu")
    public = {n for n in f.dict if not (n.startswith("(") and n.endswith(")") and len(n) > 2)}
    assert public <= set(words), sorted(public - set(words))[:10]
    assert {"DUP", "TMMA", "CP.WAIT", "DEBUG", "SQUARE"} - set(words) == {"SQUARE"}
    assert not highlight.wanted(ip)  # the terminal shell: no kernel


def test_heat_maps_are_images_in_the_bundle_that_a_saved_notebook_keeps(ip, capsys):
    import base64
    import struct
    import xml.etree.ElementTree as ET
    import zlib

    nbformat = pytest.importorskip("nbformat")
    (b,) = _cell(ip, "--new --backend cpu", "16 16 F16 MATRIX A  RAMP A\nTZERO A 16 TLOAD-A\n.TILE\n.FRAG",
                 capsys)[-1:]
    assert {"image/png", "image/svg+xml", "text/html", "text/plain"} <= set(b)
    png = base64.b64decode(b["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    w, h = struct.unpack(">II", png[16:24])
    # .TILE and .FRAG: two 16x16 grids of 8-pixel cells, one under the other, a white row of cells between
    assert (w, h) == (16 * 8, (16 + 1 + 16) * 8)
    n = struct.unpack(">I", png[33:37])[0]
    assert png[37:41] == b"IDAT" and len(zlib.decompress(png[41:41 + n])) == h * (1 + 3 * w)
    root = ET.fromstring(b["image/svg+xml"])
    assert len([r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("class") == "cell"]) == 33 * 16
    # saved in a notebook file, the output keeps its images (nbformat validates the bundle)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "%%forth\n.TILE", outputs=[nbformat.v4.new_output("display_data", data=b)])])
    nbformat.validate(nb)
    again = nbformat.reads(nbformat.writes(nb), as_version=4)
    assert again.cells[0].outputs[0].data["image/png"] == b["image/png"]
    (b,) = _cell(ip, "", "1 2 +", capsys)
    assert "image/png" not in b  # no heat map: no picture


def test_save_view_option_writes_the_cells_last_picture(ip, capsys, tmp_path):
    path = tmp_path / "tile.png"
    (b,) = _cell(ip, f"--new --backend cpu --save-view {path}", "TZERO\n.TILE", capsys)[-1:]
    assert f"saved the view to {path}" in b["text/plain"]
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[16:24] == (16 * 8).to_bytes(4, "big") * 2
    (b,) = _cell(ip, f"--new --backend cpu --save-view {tmp_path}/x.svg", "1", capsys)[-1:]
    assert "--save-view: SAVE-VIEW saves the debugger's stop" in b["text/plain"]


def test_a_long_cell_shows_progress_and_a_quick_one_does_not(ip, capsys):
    """The progress output appears once a cell has run half a second (a 2-second wait, MS: wall time)
    and is emptied at its end; a quick cell shows none. The test waits for nothing: it reads what the
    cell published."""
    from IPython.core import display_functions

    shown, updates = [], []
    orig = display_functions.publish_display_data

    def grab(data, *a, transient=None, update=False, **k):
        (updates if update else shown).append(data)

    display_functions.publish_display_data = grab
    try:
        ip.run_cell_magic("forth", "--new --backend cpu", "1 2 +")
        quick = list(shown)
        shown.clear()
        ip.run_cell_magic("forth", "", "2000 MS 3")
    finally:
        display_functions.publish_display_data = orig
    capsys.readouterr()
    assert not any("running" in d.get("text/plain", "") for d in quick)
    assert [d["text/plain"] for d in shown if "running" in d["text/plain"]] == [
        "… running 0.5 s (interrupt the kernel to stop it)"]
    assert updates and updates[-1] == {"text/plain": ""}  # emptied at the end
    assert "data  <2> 3 3" in shown[-1]["text/plain"]


# ---- the highlighting's Javascript, run by node against the front ends' documented objects ---------
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="needs node")


def _node(js: str, tmp_path) -> str:
    path = tmp_path / "run.js"
    path.write_text(js)
    run = subprocess.run([NODE, str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout


@needs_node
def test_the_highlighting_is_valid_javascript(tmp_path):
    from tileforth.repl import highlight

    path = tmp_path / "hl.js"
    path.write_text(highlight.javascript())
    run = subprocess.run([NODE, "--check", str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr


# JupyterLab 4 / Notebook 7 (window.jupyterapp, with --expose-app-in-browser): shell.widgets("main") is an
# iterable of widgets; a notebook panel's content has `widgets` (its cells), `model` and `codeMimetype`; a
# cell's model has `type`, `mimeType` (settable: the editor's language follows it) and
# `sharedModel.getSource()`
LAB = """
function cell(type, src, mime) {
  return {model: {type: type, mimeType: mime, sharedModel: {getSource: function () { return src; }},
                  set: function (s) { this.sharedModel = {getSource: function () { return s; }}; }}};
}
var cells = [cell("code", "%%forth\\n1 2 +", "text/x-ipython"), cell("code", "x = 1", "text/x-ipython"),
             cell("markdown", "%%forth in prose", "text/x-ipythongfm"), cell("code", "%%forthright", "text/x-ipython")];
var panel = {content: {widgets: cells, model: {}, codeMimetype: "text/x-ipython"}};
var other = {content: {}};  // a main-area widget that is no notebook (a terminal)
var window = {jupyterapp: {shell: {widgets: function (area) { return area === "main" ? [other, panel][Symbol.iterator]() : [][Symbol.iterator](); }}}};
var element = {textContent: ""};
var setInterval = function (fn, ms) { window.interval = ms; return 7; };
%(js)s
var out = {mimes: cells.map(function (c) { return c.model.mimeType; }), note: element.textContent,
           interval: window.interval};
cells[0].model.set("1 2 +");                       // the %%forth line deleted (the cell's source is now this)
cells[1].model.set("%%forth\\nDUP");                // another cell made a %%forth cell
cells.push(cell("code", "%%forth 3", "text/x-ipython"));  // a new cell
window.__tileforthLab.scan();                      // the next look (every interval ms)
out.after = cells.map(function (c) { return c.model.mimeType; });
console.log(JSON.stringify(out));
"""


@needs_node
def test_in_jupyterlab_forth_cells_get_its_forth_language(tmp_path):
    from tileforth.repl import highlight

    out = json.loads(_node(LAB.replace("%(js)s", highlight.javascript(["DUP"])), tmp_path))
    assert out["mimes"] == ["text/x-forth", "text/x-ipython", "text/x-ipythongfm", "text/x-ipython"]
    assert out["after"] == ["text/x-ipython", "text/x-forth", "text/x-ipythongfm", "text/x-ipython", "text/x-forth"]
    assert out["interval"] == highlight.LAB_SCAN_MS
    assert "highlighted with JupyterLab's Forth mode" in out["note"]


@needs_node
def test_in_jupyterlab_without_the_app_the_output_says_how(tmp_path):
    from tileforth.repl import highlight

    js = "var window = {}; var element = {textContent: ''};\n" + highlight.javascript(["DUP"]) + \
        "\nconsole.log(element.textContent);"
    out = _node(js, tmp_path)
    assert "only when started with --expose-app-in-browser" in out


@needs_node
def test_in_the_classic_notebook_the_mode_is_defined_and_mapped(tmp_path):
    """RequireJS's require hands the script CodeMirror 5 and the code cell module: the mode is defined
    (and tokenises a line as the docstring says), `%%forth` cells are mapped to it."""
    from tileforth.repl import highlight

    js = """
var modes = {}, mimes = {};
var CodeMirror = {defineMode: function (n, f) { modes[n] = f(); }, defineMIME: function (m, n) { mimes[m] = n; }};
var codecell = {CodeCell: {options_default: {highlight_modes: {}}}};
var require = function (deps, fn) { fn(CodeMirror, codecell); };
require.config = function () {};  // RequireJS's, as the classic notebook's page has it
var window = {};
%(js)s
function Stream(s) { this.s = s; this.pos = 0; this.start = 0; }
Stream.prototype.sol = function () { return this.pos === 0; };
Stream.prototype.eatSpace = function () { var p = this.pos; while (this.s[this.pos] === " ") { this.pos++; } return this.pos > p; };
Stream.prototype.match = function (re) { var m = this.s.slice(this.pos).match(re); if (m) { this.pos += m[0].length; } return m; };
Stream.prototype.skipToEnd = function () { this.pos = this.s.length; };
Stream.prototype.skipTo = function (c) { var i = this.s.indexOf(c, this.pos); if (i < 0) { return false; } this.pos = i; return true; };
Stream.prototype.next = function () { return this.s[this.pos++]; };
function tokens(line) {
  var mode = modes["tileforth"], st = mode.startState(), s = new Stream(line), out = [];
  while (s.pos < line.length) { s.start = s.pos; var t = mode.token(s, st); if (t) { out.push([line.slice(s.start, s.pos), t]); } }
  return out;
}
console.log(JSON.stringify({map: String(codecell.CodeCell.options_default.highlight_modes["magic_tileforth"].reg[0]),
                            mime: mimes["text/x-tileforth"], toks: tokens("3 DUP foo ( c ) $1F \\\\ rest")}));
""".replace("%(js)s", highlight.javascript(["DUP"]))
    out = json.loads(_node(js, tmp_path))
    assert out["map"] == "/^%%forth/" and out["mime"] == "tileforth"
    assert out["toks"] == [["3", "number"], ["DUP", "keyword"], ["foo", "variable"], ["(", "comment"],
                           [" c )", "comment"], ["$1F", "number"], ["\\ rest", "comment"]]
