"""demos/reduce.fth and demos/transpose.fth (issue 12, item 5) compute what numpy
computes, the race checker reports the reduction's missing BARRIER at the right
address and threads, and PROFILE's figures for each step are those a hardware
model written here predicts; docs/simt.md's sections above "Memory-access
analysis" (its session, its excerpts of the demos, the race report it quotes and
its tables of figures) stay true."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.session import accessprofile as profile

ROOT = Path(__file__).resolve().parents[1]
DEMOS = ROOT / "demos"
DOC = ROOT / "docs" / "simt.md"
CLI = [sys.executable, "-m", "tileforth.repl.cli", "--backend", "cpu"]
WARP, SECTOR, BANKS = 32, 32, 32
N_SUM = 4096  # reduce.fth: 16 blocks of 256 threads, one f32 each
N = 64  # transpose.fth: a 64x64 f32 matrix, 2x2 blocks of 32x32 threads


# ---- the hardware model, independent of tileforth/core/session/accessprofile.py --------------------------------
def sectors(addrs: list[int], size: int = 4) -> int:
    """32-byte sectors one request touches."""
    return len({b // SECTOR for a in addrs for b in range(a, a + size)})


def ways(addrs: list[int]) -> int:
    """n-way bank conflict of one request of 4-byte accesses: the most distinct words in one bank."""
    words = {a // 4 for a in addrs}
    return max(sum(1 for w in words if w % BANKS == bank) for bank in range(BANKS))


def run_demo(name: str) -> tuple[Forth, str, dict[str, dict]]:
    """The demo's lines, one f.eval each (as the CLI runs a file); the profile of each PROFILE line."""
    f = Forth(backend="cpu")
    out, profiles = [], {}
    for line in (DEMOS / name).read_text().splitlines():
        out.append(f.eval(line, source=name))
        m = re.match(r"PROFILE (\S+)\s*$", line)
        if m:
            profiles[m[1]] = profile.last(f)
    assert not f.compiling
    return f, "".join(out), profiles


def addresses(f: Forth, names: str) -> list[int]:
    """The addresses the words `names` push (arrays, SHARED: regions), read on one thread."""
    shape = f.launch_shape
    f.eval(f"1 1 1 GRID 1 1 1 THREADS {names}")
    got = f.data_stack()
    f.eval("CLEARSTACK {} {} {} GRID {} {} {} THREADS".format(*shape[0], *shape[1]))
    return got


def site(prof: dict, space: str, access: str, col: int | None = None, word: str | None = None) -> dict:
    found = [s for s in prof["sites"] if s["space"] == space and s["access"] == access
             and (col is None or s["col"] == col) and (word is None or s["word"] == word)]
    assert len(found) == 1, (space, access, col, [(s["word"], s["space"], s["access"], s["col"]) for s in prof["sites"]])
    return found[0]


def col_of(demo: str, definition: str, token: str, nth: int = -1) -> tuple[str, int]:
    """The source line and 1-based column of the nth `token` in the colon definition `definition` of a demo
    (in a line by itself or on the lines after its `:` up to `;`)."""
    lines = (DEMOS / demo).read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f": {definition} "))
    hits = []
    for ln in lines[start:]:
        body = ln.split("\\ ")[0]
        hits += [(ln, m.start() + 1) for m in re.finditer(rf"(?<!\S){re.escape(token)}(?!\S)", body)]
        if re.search(r"(?<!\S);(?!\S)", body):
            break
    return hits[nth]


# ---- demos/reduce.fth ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def reduce_demo():
    return run_demo("reduce.fth")


def test_reduce_every_step_sums_what_numpy_sums(reduce_demo):
    f, out, _ = reduce_demo
    xs = f.array("xs")
    np.testing.assert_array_equal(xs, np.arange(N_SUM, dtype=np.float32))
    want = np.float32(xs.astype(np.float64).sum())  # 8386560: every partial sum is exact in f32
    for name in ("sum-1", "sum-2", "sum-4"):
        assert f.array(name).dtype == np.float32
        assert f.array(name)[0] == want, name
    assert out.count(f"{want:.0f}. (expected {want:.0f})\n") == 3
    assert "CATCH: sum-racy ended with code -256 \n" in out  # the race stopped it; the demo went on


def first_race_of_the_racy_tree(threads: int = 256) -> tuple[tuple, list]:
    """sum-racy after its first BARRIER, block 0, in the emulator's order: each thread runs its whole loop
    (s = 128 ... 1: read part[t], read part[t+s], write part[t]) before the next. The first access of a
    thread that conflicts (same slot, one a write) with an earlier thread's, and those earlier ones."""
    seen: list[tuple[int, str, int]] = []
    for t in range(threads):
        s = threads // 2
        while s:
            if t < s:
                for kind, slot in (("read", t), ("read", t + s), ("wrote", t)):
                    earlier = [(u, k) for u, k, sl in seen if sl == slot and u != t and "wrote" in (k, kind)]
                    if earlier:
                        return (t, kind, slot), earlier
                    seen.append((t, kind, slot))
            s //= 2
    raise AssertionError("no race in the model")


def test_reduce_race_report_names_the_slot_and_the_two_threads(reduce_demo):
    f, _, _ = reduce_demo
    with pytest.raises(ForthError) as e:
        f.eval("sum-racy")
    msg = e.value.message
    (t2, k2, slot), earlier = first_race_of_the_racy_tree()
    m = re.match(r"data race on shared memory at (\S+) in sum-racy: thread (\d+) (read|wrote) it, "
                 r"then thread (\d+) (read|wrote) it, with no BARRIER between them", msg)
    assert m, msg
    assert m[1] == f"part+{slot * 4}" == "part+4"
    assert (int(m[4]), m[5]) == (t2, k2) == (1, "wrote")
    assert (int(m[2]), m[3]) in earlier and (int(m[2]), m[3]) == (0, "read")
    line, col = col_of("reduce.fth", "sum-racy", "SF!", nth=1)  # the loop's store, not the first one
    assert (e.value.source_line, e.value.col) == (line, col)
    f.eval("sum-tree")  # the session goes on; the tree with its barriers still sums
    assert f.array("sum-2")[0] == 2 * np.float32(N_SUM * (N_SUM - 1) // 2)


def test_reduce_profile_figures_match_the_model(reduce_demo):
    f, _, profs = reduce_demo
    assert set(profs) == {"sum-atomic", "sum-tree", "sum-shfl"}
    (xs,) = addresses(f, "xs")
    blocks, warps = N_SUM // 256, N_SUM // WARP
    load_sectors = [sectors([xs + 4 * (w * WARP + lane) for lane in range(WARP)]) for w in range(warps)]
    tree_steps = [128, 64, 32, 16, 8, 4, 2, 1]
    tree_requests = blocks * sum(-(-s // WARP) for s in tree_steps)  # warps with a lane below s
    tree_lanes = blocks * sum(tree_steps)
    expect = {  # word: (atomic requests, BARRIERs per block)
        "sum-atomic": (warps, 0), "sum-tree": (blocks, 1 + len(tree_steps)), "sum-shfl": (blocks, 1)}
    for word, prof in profs.items():
        (launch,) = prof["launches"]
        assert launch["barriers_per_block"] == [expect[word][1]] * blocks, word
        load = site(prof, "global", "load", word="x")
        assert load["requests"] == warps and load["sectors_per_request"] == np.mean(load_sectors) == 4
        assert site(prof, "global", "atomic")["requests"] == expect[word][0], word
        shared = [s for s in prof["sites"] if s["space"] == "shared"]
        assert all(s["ways"] == 1 and s["bank_conflicts"] == 0 for s in shared), word
    loop = [s for s in profs["sum-tree"]["sites"] if s["space"] == "shared" and s["requests"] == tree_requests]
    assert len(loop) == 3  # the loop's two loads and its store
    assert all(s["lanes"] == tree_lanes for s in loop)
    warp_sums = site(profs["sum-shfl"], "shared", "store")
    assert (warp_sums["requests"], warp_sums["lanes"]) == (warps, warps)  # lane 0 of each warp
    assert site(profs["sum-shfl"], "shared", "load")["lanes"] == blocks * 8  # warp 0 reads the 8 warp sums


# ---- demos/transpose.fth ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def transpose_demo():
    return run_demo("transpose.fth")


def test_transpose_every_step_is_numpys_transpose(transpose_demo):
    f, out, _ = transpose_demo
    a = f.array("a")
    np.testing.assert_array_equal(a, np.arange(N * N, dtype=np.float32).reshape(N, N))
    for name in ("b-naive", "b-shared", "b-padded"):
        np.testing.assert_array_equal(f.array(name), a.T, err_msg=name)
    assert out.count("b = transpose of a\n") == 3 and "wrong" not in out


def transpose_model(f: Forth) -> dict[str, dict[tuple[str, str], tuple[float, int]]]:
    """Per step and (space, access): (mean sectors per request, worst n-way conflict), over every warp."""
    a, bn, bs, bp, tile, ptile = addresses(f, "a b-naive b-shared b-padded tile ptile")

    def at(base, r, c, width=N):
        return base + 4 * (r * width + c)
    warps = [(bx, by, ty) for bx in range(2) for by in range(2) for ty in range(32)]
    lanes = range(WARP)
    sites = {
        "naive": {("global", "load"): lambda bx, by, ty: [at(a, by * 32 + ty, bx * 32 + tx) for tx in lanes],
                  ("global", "store"): lambda bx, by, ty: [at(bn, bx * 32 + tx, by * 32 + ty) for tx in lanes]}}
    for word, b, t, width in (("tiled", bs, tile, 32), ("padded", bp, ptile, 33)):
        sites[word] = {
            ("global", "load"): lambda bx, by, ty: [at(a, by * 32 + ty, bx * 32 + tx) for tx in lanes],
            ("shared", "store"): lambda bx, by, ty, t=t, w=width: [at(t, ty, tx, w) for tx in lanes],
            ("shared", "load"): lambda bx, by, ty, t=t, w=width: [at(t, tx, ty, w) for tx in lanes],
            ("global", "store"): lambda bx, by, ty, b=b: [at(b, bx * 32 + ty, by * 32 + tx) for tx in lanes]}
    return {word: {key: (float(np.mean([sectors(fn(*w)) for w in warps])), max(ways(fn(*w)) for w in warps))
                   for key, fn in s.items()} for word, s in sites.items()}


def test_transpose_profile_figures_match_the_model(transpose_demo):
    f, _, profs = transpose_demo
    model = transpose_model(f)
    assert set(profs) == set(model)
    for word, prof in profs.items():
        (launch,) = prof["launches"]
        assert launch["barriers_per_block"] == [0 if word == "naive" else 1] * 4
        assert {(s["space"], s["access"]) for s in prof["sites"]} == set(model[word]), word
        for (space, access), (sec, n_way) in model[word].items():
            s = site(prof, space, access)
            assert (s["requests"], s["lanes"]) == (128, 128 * WARP)
            if space == "global":
                assert s["sectors_per_request"] == sec, (word, space, access)
            else:
                assert s["ways"] == n_way, (word, space, access)
    # what the demo's comments and docs/simt.md say the model gives
    assert model["naive"][("global", "store")][0] == 32 and model["naive"][("global", "load")][0] == 4
    assert model["tiled"][("shared", "load")][1] == 32 and model["padded"][("shared", "load")][1] == 1


# ---- the demos through the CLI, as a user runs them ----------------------------------------------
def cli(*args: str, stdin: str | None = None, merged: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS="100")
    for var in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR"):
        env.pop(var, None)
    return subprocess.run(CLI + list(args), cwd=ROOT, input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if merged else subprocess.PIPE, text=True,
                          encoding="utf-8", env=env, timeout=300)


@pytest.mark.parametrize("demo,done", [("reduce.fth", "--- 4. Warp shuffles"), ("transpose.fth", "--- 3. Padded")])
def test_the_cli_runs_each_demo_to_its_end(demo, done):
    res = cli(f"demos/{demo}")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert done in res.stdout
    titles = [ln for ln in res.stdout.splitlines() if ln.startswith("PROFILE ")]
    assert titles == [ln for ln in (DEMOS / demo).read_text().splitlines() if ln.startswith("PROFILE ")]


# ---- docs/simt.md, above "Memory-access analysis" ------------------------------------------------
def my_part() -> str:
    text = DOC.read_text()
    return text[:text.index("\n## Memory-access analysis")]


def blocks() -> list[tuple[str, str, str]]:
    """(marker comment before the block, language, body) of each fenced block."""
    return [(m[1] or "", m[2], m[3]) for m in
            re.finditer(r"(?:<!-- ([^\n]*?) -->\n)?^```(\w*)\n(.*?)^```\n", my_part(), re.M | re.S)]


def test_every_fenced_block_of_the_walkthrough_is_checked():
    kinds = [(marker.split(":")[0], lang) for marker, lang, _ in blocks()]
    known = {("", ""), ("simt session", ""), ("from demos/reduce.fth", ""), ("from demos/transpose.fth", ""),
             ("sum-racy's report", "text")}
    assert set(kinds) <= known, kinds
    assert kinds[0] == ("", "")  # the two commands, run by test_the_cli_runs_each_demo_to_its_end


def test_the_run_commands_are_the_demos():
    marker, _, body = blocks()[0]
    assert body.splitlines() == [f"tileforth --backend cpu demos/{d}" for d in ("reduce.fth", "transpose.fth")]


def test_the_session_is_what_tileforth_prints():
    (body,) = [b for m, _, b in blocks() if m.startswith("simt session")]
    typed = [ln[2:] for ln in body.splitlines() if ln.startswith("> ")]
    shown = [ln for ln in body.splitlines() if not ln.startswith("> ")]
    res = cli("--stacks", "none", stdin="\n".join(typed) + "\n", merged=True)  # in the order printed
    assert [ln.rstrip() for ln in res.stdout.splitlines()] == [ln.rstrip() for ln in shown]


def test_the_excerpts_are_the_demos_own_lines():
    for marker, _, body in blocks():
        if marker.startswith("from demos/"):
            assert body in (ROOT / marker[len("from "):]).read_text(), body


def test_the_quoted_race_report_is_the_demos(reduce_demo):
    f, _, _ = reduce_demo
    (body,) = [b for m, _, b in blocks() if m == "sum-racy's report"]
    with pytest.raises(ForthError) as e:
        f.eval("sum-racy")
    assert body == e.value.message + "\n"


def table(name: str) -> list[list[str]]:
    part = my_part()
    rows = part[part.index(f"<!-- {name} -->"):].split("\n\n")[0].splitlines()[3:]
    return [[c.strip().strip("`") for c in r.strip("|").split("|")] for r in rows]


def test_the_tables_of_figures_are_the_profiles(reduce_demo, transpose_demo):
    _, _, rp = reduce_demo
    for step, word, load, atomics, conflicts, barriers in table("reduce figures"):
        p = rp[word]
        assert float(load) == site(p, "global", "load", word="x")["sectors_per_request"]
        assert int(atomics) == site(p, "global", "atomic")["requests"]
        shared = [s["bank_conflicts"] for s in p["sites"] if s["space"] == "shared"]
        assert (conflicts == "none used" and not shared) or int(conflicts) == sum(shared), word
        assert p["launches"][0]["barriers_per_block"][0] == int(barriers)
    _, _, tp = transpose_demo
    rows = table("transpose figures")
    assert [r[1] for r in rows] == ["naive", "tiled", "padded"]
    for step, word, load, store, sh_store, sh_load in rows:
        p = tp[word]
        assert float(load) == site(p, "global", "load")["sectors_per_request"]
        assert float(store) == site(p, "global", "store")["sectors_per_request"]
        for cell, access in ((sh_store, "store"), (sh_load, "load")):
            if cell == "none used":
                assert not [s for s in p["sites"] if s["space"] == "shared"]
            else:
                assert cell == f"{site(p, 'shared', access)['ways']}-way"
