"""The fenced examples of the docs that no other test runs: each runs as a
user would copy it, in a fresh session, and does what the page says
(docs/words.md: tests/test_reference.py; docs/tiles.md: test_docs_tiles.py;
docs/repl.md's transcript and views: test_docs_repl.py; the README's
session: test_readme.py; docs/kernel-files.md: test_kernelfile.py);
docs/simt.md's blocks run here, each compared with the text block after it."""
import re
from pathlib import Path

from tileforth.core import Forth

ROOT = Path(__file__).resolve().parents[1]


def fenced(path: Path, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", path.read_text(), re.M | re.S)


def test_the_readme_python_example_gives_what_its_comment_says():
    (block,) = fenced(ROOT / "README.md", "python")
    scope: dict = {}
    exec(compile(block, "README.md", "exec"), scope)
    assert "# one list per thread: [[0], [1], ..., [255]]" in block
    assert scope["f"].data_stack(lane=None) == [[i] for i in range(256)]


def test_the_repl_guide_forth_block_runs_line_by_line_in_a_fresh_session():
    """`TILES-KEPT? [IF] TZERO .S [ELSE] TZERO TDROP [THEN]`, as typed at the
    prompt: on the cpu backend the tile is kept and .S shows it."""
    (block,) = fenced(ROOT / "docs" / "repl.md", "forth")
    f = Forth(backend="cpu")
    f.dot_s_shows_all = True  # as at the prompt: .S shows every stack
    out = "".join(f.eval(line) for line in block.splitlines())
    assert not f.compiling
    assert len(f.tile_stack(0)) == 1 and "tiles <1>" in out, out


def test_the_simt_guide_forth_blocks_print_the_text_blocks_after_them():
    """docs/simt.md, "Memory-access analysis": each ```forth block runs as one
    source (a file's lines) in a fresh session; a ```text block right after it
    is exactly what it prints. (The walkthroughs above it quote the demos:
    tests/test_demos_simt.py checks those.)"""
    page = (ROOT / "docs" / "simt.md").read_text()
    text = page[page.index("## Memory-access analysis"):]
    text = text[:text.find("\n## ", 1) + 1] if "\n## " in text else text
    blocks = list(re.finditer(r"^```(\w*)\n(.*?)^```\n", text, re.M | re.S))
    ran = 0
    for i, m in enumerate(blocks):
        if m.group(1) != "forth":
            continue
        out = Forth(backend="cpu").eval(m.group(2), source="docs/simt.md")
        ran += 1
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        if nxt is not None and nxt.group(1) == "text" and not text[m.end():nxt.start()].strip():
            assert out == nxt.group(2), f"docs/simt.md block {i}: printed\n{out}"
    assert ran >= 1
