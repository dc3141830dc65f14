"""Portable exports from the REPL (word_ptx, f.ptx, SEE-PTX; docs/kernel-files.md,
"Export a word"): the arrays a word names are kernel parameters, the results
it leaves go to output parameters, data space is a copy in the kernel, and no
address of the session is baked into the PTX."""
import re
from pathlib import Path

import pytest
from tileforth.backends.cuda.ptx import ptxas, ptxas_path
from tileforth.export.kernelfile import is_kernel_file
from tileforth.core import Forth, ForthError
from tileforth.core.front.dictionary import Colon
from tileforth.core.session.words.arrays import export_memory
from tileforth.export.kernels import kernel_file_ptx, nvptx_compiler, word_ptx

ROOT = Path(__file__).resolve().parents[1]
DEMOS = sorted((ROOT / "demos").glob("*.fth"))
needs_ptxas = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")


def allocations(f: Forth) -> list[tuple[int, int]]:
    """Every allocation of the session: [base, end] (the cpu backend's table, and the arrays)."""
    spans = [(a, a + n) for a, n in f.backend._sizes.items()]
    spans += [(e.array[0], e.array[0] + 1) for e in f.dict.values() if getattr(e, "array", None)]
    return spans


def session_addresses(ptx: str, f: Forth) -> list[int]:
    """The integer immediates of the PTX (decimal and hex) that lie in one of the session's allocations."""
    numbers = [int(x) for x in re.findall(r"(?<![\w$%.])(\d+)(?![\w.])", ptx)]
    numbers += [int(x, 16) for x in re.findall(r"\b0[xX]([0-9a-fA-F]+)\b", ptx)]
    spans = allocations(f)
    return [v for v in numbers if any(lo <= v <= hi for lo, hi in spans)]


def entry_params(ptx: str) -> list[str]:
    return re.findall(r"\.param ([^\n]*?) ?\w+_param_\d+", re.search(r"\.entry[^(]*\(([^)]*)\)", ptx).group(1))


def export_params(f: Forth, word: str) -> list[tuple[str, str]]:
    comp = nvptx_compiler(f, "sm_80", checked=False)
    comp.inline_all, comp.count_steps = True, False
    return comp.export(f.dict[word.upper()], "k", export_memory(f)).params


def demo_session(path: Path) -> tuple[Forth, list[str]]:
    f = Forth(backend="cpu")
    before = set(f.dict)
    f.eval(path.read_text(), source=path.name)
    return f, [n for n, e in f.dict.items() if n not in before and isinstance(e, Colon)]


@pytest.mark.parametrize("path", [p for p in DEMOS if not is_kernel_file(p.read_text())], ids=lambda p: p.name)
def test_no_demo_word_exports_a_session_address(path):
    """Every word a demo defines: its PTX has no immediate inside an allocation
    of the session, and its .entry has ctx, its inputs, the arrays it names and
    its outputs; ptxas assembles it. A word that cannot be a kernel is refused
    with a sentence (acc+ needs tiles on the tile stack)."""
    f, words = demo_session(path)
    assert words
    exported = 0
    for w in words:
        try:
            ptx = word_ptx(f, w, "sm_80")
        except ForthError as e:
            assert w == "ACC+" and "on the tile stack" in e.message, (w, e.message)
            continue
        assert session_addresses(ptx, f) == [], w
        params = export_params(f, w)
        word = f.dict[w]
        eff = word.effect
        arrays = {n for n, kind in params if kind == "ptr"}
        named = {e.name for e in f.dict.values() if getattr(e, "array", None)
                 and any(getattr(n, "value", None) == e.array[0] for n in _reach(word))}
        assert arrays == named, w
        assert len(entry_params(ptx)) == 1 + len(params)  # ctx, then the parameters
        assert (("out", "out") in params) == (eff.dneed + eff.dnet > 0), w
        if ptxas_path() is not None:
            assert ptxas(ptx, "sm_80")
        exported += 1
    assert exported >= len(words) - 1


def _reach(word: Colon):
    """The nodes of word and every word it calls."""
    from tileforth.core.front.tree import Call, walk
    seen, stack = set(), [word]
    while stack:
        w = stack.pop()
        if w.uid in seen:
            continue
        seen.add(w.uid)
        for n in walk(w.body):
            yield n
            if isinstance(n, Call):
                stack.append(n.word)


def test_the_kernel_file_demo_has_no_session_address():
    f = Forth(backend="cpu")
    ptx = kernel_file_ptx((ROOT / "demos" / "saxpy.fth").read_text(), "sm_80")
    assert session_addresses(ptx, f) == []
    assert len(entry_params(ptx)) == 5  # ctx, X, Y, A, N


ARRAYS = """256 F32 ARRAY xs   16 16 F32 MATRIX m   64 SHARED: tmp
: m[] ( r c -- addr )  SWAP 16 * + SFLOATS m + ;
: scale ( F: r -- )  GLOBAL-ID SFLOATS xs + DUP SF@ F* SF!  1 2 m[] SF@ F>S TID-X tmp + C! ;"""


def test_arrays_become_parameters_after_the_inputs():
    f = Forth(backend="cpu")
    f.eval(ARRAYS)
    assert export_params(f, "scale") == [("fin0", "float"), ("xs", "ptr"), ("m", "ptr")]
    ptx = word_ptx(f, "scale", "sm_80")
    assert entry_params(ptx) == [".u64 .ptr .align 1", ".f32", ".u64 .ptr .align 1", ".u64 .ptr .align 1"]
    assert session_addresses(ptx, f) == []
    assert ".shared .align" in ptx and "st.shared.b8" in ptx  # SHARED: memory is the kernel's own
    assert re.search(r"\b72\]|, 72;", ptx), ptx  # m[1][2]: m's parameter plus (16 + 2) * 4


def test_an_address_inside_an_array_is_the_parameter_plus_its_offset():
    f = Forth(backend="cpu")
    f.eval("16 I64 ARRAY v  v 3 CELLS + CONSTANT v3  : put ( n -- )  v3 ! ;")
    assert export_params(f, "put") == [("in0", "int"), ("v", "ptr")]
    ptx = word_ptx(f, "put", "sm_80")
    assert session_addresses(ptx, f) == [] and re.search(r"\+24\]|, 24;", ptx), ptx


def test_results_go_to_output_parameters():
    f = Forth(backend="cpu")
    f.eval(": two ( -- n m ) ( F: -- r )  1 2 1.5e ;  : one ( a -- b )  1+ ;")
    assert export_params(f, "two") == [("out", "out"), ("fout", "fout")]
    assert export_params(f, "one") == [("in0", "int"), ("out", "out")]
    ptx = word_ptx(f, "two", "sm_80")
    stores = re.findall(r"st\.global\.(?:b64|u64|f32|b32)\s+\[[^\]]*\], ([^;]+);", ptx)
    assert sorted(stores) == ["1", "1069547520", "2"], ptx  # 1 2 to out, 1.5e (0x3FC00000) to fout
    assert "%ctaid" in ptx and "%tid" in ptx  # indexed by the thread
    bare = word_ptx(f, "two", "sm_80", unchecked=True)  # without the context record: out, fout only
    assert len(entry_params(bare)) == 2 and sorted(re.findall(r"st\.global\.\w+\s+\[[^\]]*\], ([^;]+);", bare)) \
        == sorted(stores)


@needs_ptxas
def test_data_space_is_a_copy_in_the_kernel():
    f = Forth(backend="cpu")
    f.eval("VARIABLE count  7 count !  : tick ( -- )  1 count +! ;  : show ( n -- )  . ;")
    for w in ("tick", "show"):
        ptx = word_ptx(f, w, "sm_80")
        assert session_addresses(ptx, f) == [], w
        assert ptxas(ptx, "sm_80")
    ptx = word_ptx(f, "tick", "sm_80")
    # count, with the 7 it holds now, is a global of the module (LLVM keeps only the part the word uses)
    assert re.search(r"^\.global [^\n]*tf_data[^\n]* = 7;", ptx, re.M), ptx
    assert "st.global.b64" in ptx and "tick_param_1" not in ptx  # no parameter for it


def test_other_session_memory_is_refused():
    f = Forth(backend="cpu")
    f.eval("PAD CONSTANT scratchpad  : scratch ( -- )  1 scratchpad ! ;")
    with pytest.raises(ForthError, match="scratch uses PAD .* keep the data in an ARRAY"):
        word_ptx(f, "scratch", "sm_80")


def test_the_export_guide_example_has_the_signatures_it_shows():
    doc = (ROOT / "docs" / "kernel-files.md").read_text()
    (block,) = [b for b in re.findall(r"^```forth\n(.*?)^```", doc, re.M | re.S) if "ARRAY xs" in b]
    f = Forth(backend="cpu")
    f.eval(block, source="docs/kernel-files.md")
    assert export_params(f, "scale") == [("fin0", "float"), ("xs", "ptr")]
    assert export_params(f, "square") == [("in0", "int"), ("out", "out")]
    section = doc[doc.index("## Export a word from the REPL"):]
    assert "`scale(int64_t *ctx, float r, float *xs)`" in section
    assert "`square(int64_t *ctx, int64_t in0,\nint64_t *out)`" in section
    for w in ("scale", "square"):
        ptx = word_ptx(f, w, "sm_80")
        assert session_addresses(ptx, f) == [] and len(entry_params(ptx)) == 3
