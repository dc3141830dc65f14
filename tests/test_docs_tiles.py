"""docs/tiles.md runs, and says true things.

Every ```forth block of the page runs in order in one session, line by
line as the REPL would; the state after each block is kept under the
block's first line (a `\\ title` comment).  Every ```forth-error block must
fail with the message shown in the ```text block after it (`…` stands for
left-out text) and leave the stacks as they were.  A ```text block after a
```forth block shows what the REPL prints: each of its lines must appear.

The claims of the text are then checked here with numpy, from the formulas
the text gives (not from what the program printed).
"""

from __future__ import annotations

import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.session import pipeview
from tileforth.repl import render as views

DOC = Path(__file__).resolve().parent.parent / "docs" / "tiles.md"
FENCE = re.compile(r"^```([\w-]+)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
WARP = 32


def fenced_blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(DOC.read_text(encoding="utf-8"))]


def tiles_state(f: Forth, warp: int = 0) -> list[tuple]:
    return [(t.kind, t.shape, t.dtype, t.layout, t.values.copy()) for t in f.tile_stack(warp)]


def same_tiles(x, y) -> bool:
    return len(x) == len(y) and all(a[:4] == b[:4] and np.array_equal(a[4], b[4]) for a, b in zip(x, y))


class DocRun:
    def __init__(self) -> None:
        self.f = Forth(backend="cpu")
        self.after: dict[str, dict] = {}  # title -> state after the block
        self.failures: list[dict] = []  # forth-error blocks
        self.shown: list[tuple[str, str]] = []  # (title, text block after it)
        blocks = fenced_blocks()
        for i, (lang, body) in enumerate(blocks):
            nxt = blocks[i + 1] if i + 1 < len(blocks) else (None, "")
            if lang == "forth":
                self._run(body, nxt)
            elif lang == "forth-error":
                self._fail(body, nxt)

    def _run(self, body: str, nxt) -> None:
        f = self.f
        lines = body.splitlines()
        assert lines[0].startswith("\\ "), f"a forth block starts with a `\\ title` comment: {lines[0]!r}"
        title = lines[0][2:].strip()
        assert title not in self.after, f"two blocks titled {title!r}"
        out = "".join(f.eval(line) for line in lines)
        assert not f.compiling, f"{title}: a definition is left open"
        (gx, gy, gz), (bx, by, bz) = f.launch_shape
        warps = gx * gy * gz * (bx * by * bz // WARP)
        view = "\n".join(str(t) for t in views.render_tiles(f, width=80, colour=False))
        self.after[title] = {"out": out, "view": view, "floats": f.float_stack(),
                             "data": f.data_stack(), "cfg": f.tile_config,
                             "tiles": [tiles_state(f, w) for w in range(min(warps, 4))],
                             "pipe": pipeview.last(f)}  # .PIPE's record of the last launch that copied
        if nxt[0] == "text":
            self.shown.append((title, nxt[1]))

    def _fail(self, body: str, nxt) -> None:
        f = self.f
        line = body.strip()
        assert "\n" not in line, "a forth-error block is one line"
        assert nxt[0] == "text" and nxt[1].startswith("error: "), f"no error text after {line!r}"
        before = (tiles_state(f), f.data_stack(), f.float_stack(), f.tile_config, f.launch_shape)
        try:
            f.eval(line)
        except ForthError as e:
            message = e.message
        else:
            message = None
        after = (tiles_state(f), f.data_stack(), f.float_stack(), f.tile_config, f.launch_shape)
        self.failures.append({"line": line, "message": message, "shown": nxt[1].strip()[len("error: "):],
                              "unchanged": same_tiles(before[0], after[0]) and before[1:] == after[1:]})


@pytest.fixture(scope="module")
def doc() -> DocRun:
    return DocRun()


def last_tiles(doc, title, warp=0):
    return doc.after[title]["tiles"][warp]


# ------------------------------------------------------------------ the page runs


def test_the_page_has_examples(doc):
    assert len(doc.after) >= 10
    assert len(doc.failures) >= 8


@pytest.mark.parametrize("i", range(sum(lang == "forth-error" for lang, _ in fenced_blocks())))
def test_error_blocks_fail_as_shown(doc, i):
    fail = doc.failures[i]
    assert fail["message"] is not None, f"{fail['line']!r} did not fail"
    pattern = ".*?".join(re.escape(part) for part in fail["shown"].split("…"))
    assert re.match(pattern, fail["message"]), (fail["shown"], fail["message"])
    assert fail["unchanged"], f"{fail['line']!r} changed the stacks or settings"


def test_text_after_a_block_is_what_the_repl_prints(doc):
    assert doc.shown
    for title, text in doc.shown:
        printed = doc.after[title]["out"] + "\n" + doc.after[title]["view"]
        for line in text.strip().splitlines():
            assert line.rstrip() in printed, (title, line, printed)


# ------------------------------------------------------------------ claims


def test_first_tiles_are_six(doc):
    (tile,) = last_tiles(doc, "first tiles")
    kind, shape, dtype, _, values = tile
    assert (kind, shape, dtype) == ("acc", (16, 16), "f32")
    assert np.array_equal(values, np.full((16, 16), (0 + 2) * 3, np.float32))


def matrix_from_index(rows, cols, fn, dtype=np.float16):
    i = np.arange(rows * cols).reshape(rows, cols)
    return fn(i).astype(dtype)


def test_one_tile_product_is_exact(doc):
    f = doc.f
    a = matrix_from_index(16, 16, lambda i: (i % 16) - (i // 16))  # c - r
    b = matrix_from_index(16, 16, lambda i: (i % 3) - 1)
    assert np.array_equal(f.array("A"), a) and np.array_equal(f.array("B"), b)
    assert np.array_equal(f.array("C"), a.astype(np.float64) @ b.astype(np.float64))
    assert last_tiles(doc, "one tile: C = A·B") == []


def test_fragment_register_counts():
    # 256 elements over 32 lanes; f16 operands: 8 registers of 2 halves
    assert 16 * 16 // WARP == 8
    assert 8 * 2 == 2 * (16 * 16 // WARP)


def test_mma_m16n8k16_layout_formulas_cover_each_matrix_once():
    c_cells, a_cells = [], []
    for lane in range(WARP):
        g, t = lane // 4, lane % 4
        c_cells += [(g + 8 * (i // 2), 2 * t + i % 2) for i in range(4)]
        a_cells += [(g + 8 * ((i // 2) % 2), 2 * t + i % 2 + 8 * (i // 4)) for i in range(8)]
    assert sorted(c_cells) == [(r, c) for r in range(16) for c in range(8)]
    assert sorted(a_cells) == [(r, c) for r in range(16) for c in range(16)]
    assert c_cells[:4] == [(0, 0), (0, 1), (8, 0), (8, 1)]  # lane 0


def test_two_warps_hold_their_own_tiles(doc):
    state = doc.after["two warps, two tile stacks"]
    for w in range(2):
        (tile,) = state["tiles"][w]
        assert np.array_equal(tile[4], np.full((16, 16), w + 1, np.float32))
    assert "warp 0 of 2 (the warps differ)" in state["view"]
    assert last_tiles(doc, "back to one warp") == []


def test_padded_rows_load(doc):
    assert last_tiles(doc, "padded rows") == []
    assert (24 * 2) % 16 == 0 and (20 * 2) % 16 != 0  # the stride rule, in bytes


def test_static_errors_run_nothing(doc):
    static = [x for x in doc.failures if "TMMA expects" in (x["message"] or "")]
    assert static and all(x["unchanged"] for x in static)


def test_see_shows_the_tile_effect(doc):
    assert "( T: acc a b -- acc )" in doc.after["a word's tile effect"]["out"]


def test_settings_are_kept_by_words(doc):
    tiles = last_tiles(doc, "settings are compile-time")
    assert [(k, s) for k, s, *_ in tiles] == [("acc", (32, 8)), ("acc", (16, 16))]  # m x n


def test_bf16_one_third(doc):
    third = float(np.float32(1) / np.float32(3))
    b = float(np.array(third, np.float32).astype(ml_dtypes.bfloat16))
    assert b == 0.333984375
    (tile,) = last_tiles(doc, "bf16 inputs")
    assert tile[2] == "f32"
    assert np.array_equal(tile[4], np.full((16, 16), np.float32(16 * b * b)))
    assert np.array_equal(doc.f.array("H"), np.full((16, 16), b, ml_dtypes.bfloat16))


def test_f16_accumulator_is_exact_for_small_integers(doc):
    a = matrix_from_index(16, 16, lambda i: (i % 16) - (i // 16)).astype(np.float64)
    b = matrix_from_index(16, 16, lambda i: (i % 3) - 1).astype(np.float64)
    assert (np.abs(a) @ np.abs(b)).max() < 2048  # "far less than 2048"
    (tile,) = last_tiles(doc, "f16 accumulator")
    assert tile[:3] == ("acc", (16, 16), "f16")
    assert tile[4].dtype == np.float16 and np.array_equal(tile[4], a @ b)
    assert doc.after["f16 accumulator"]["cfg"].acc_type == "f32"


def test_one_rounding_per_tmma(doc):
    state = doc.after["one rounding per TMMA"]
    assert np.array_equal(doc.f.array("Z"), np.full((16, 16), np.float32(1 + 2**-21)))
    assert 1 + 16 * 2**-25 == 1 + 2**-21
    step = np.float32(1)
    for _ in range(16):  # f32, one product at a time
        step = np.float32(step + np.float32(2**-12) * np.float32(2**-13))
    assert step == 1.0 and state["floats"] == [1.0]


def test_tmma_rounds_the_exact_sum_once():
    # round_f32(C + sum a*b), the sum in double precision: bit for bit
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    c = rng.uniform(-1, 1, (16, 16)).astype(np.float32)
    f = Forth(backend="cpu")
    f.eval("16 16 F16 MATRIX A   16 16 F16 MATRIX B   16 16 F32 MATRIX C")
    f.set_array("A", a), f.set_array("B", b), f.set_array("C", c)
    f.eval("C 16 TLOAD-C  A 16 TLOAD-A  B 16 TLOAD-B  TMMA  C 16 TSTORE")
    want = (c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    assert np.array_equal(f.array("C"), want)


def test_gemms_are_exact(doc):
    n = 64
    ga = matrix_from_index(n, n, lambda i: (7 * i + 5) % 9 - 4)
    gb = matrix_from_index(n, n, lambda i: (5 * i + 2) % 9 - 4)
    assert np.array_equal(doc.f.array("GA"), ga) and np.array_equal(doc.f.array("GB"), gb)
    want = ga.astype(np.float64) @ gb.astype(np.float64)
    assert np.array_equal(doc.f.array("GC"), want)
    assert np.array_equal(doc.f.array("GD"), want)
    assert last_tiles(doc, "a 64x64 GEMM") == [] and last_tiles(doc, "2x2 accumulators per warp") == []
    assert doc.f.launch_shape[0] == (1, 1, 1)


def test_the_gemm_staged_with_cp_async_is_exact(doc):
    """The cp.async section: GE (A and B staged through two-stage shared rings) is GA·GB, from the
    formulas of the GEMM section; the staged tiles' stages are 128 bytes apart at least."""
    n = 64
    ga = matrix_from_index(n, n, lambda i: (7 * i + 5) % 9 - 4).astype(np.float64)
    gb = matrix_from_index(n, n, lambda i: (5 * i + 2) % 9 - 4).astype(np.float64)
    assert np.array_equal(doc.f.array("GE"), ga @ gb)
    assert last_tiles(doc, "a GEMM staged with cp.async") == []
    assert doc.f.eval("1 As 0 As - .").split() == ["512"]


def test_the_warpgroup_mma_is_a_times_b_transposed(doc):
    """The Hopper section's WGMMA example: WC = WA . WB^T, from the fill formulas the page gives (exact in f16)."""
    i = np.arange(64 * 64)
    a = ((i % 7) - 3).reshape(64, 64)
    b = ((5 * i % 7) - 3).reshape(64, 64)
    assert doc.after["a warpgroup MMA"]["cfg"].wg_n == 64
    np.testing.assert_array_equal(doc.f.array("WC"), (a @ b.T).astype(np.float32))
