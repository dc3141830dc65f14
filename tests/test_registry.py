"""The primitive registry: one way to add a word, one emitter signature, flags
instead of rules on names or reference sections."""
import ast
import inspect
from pathlib import Path

from tileforth.core import Forth
from tileforth.core.compile.primitive import Primitive, Registry
from tileforth.core.compile.primitives import REGISTRY, TABLE, cells, floats, stacks
from tileforth.core.front.tree import Prim

CORE = Path(__file__).resolve().parents[1] / "tileforth" / "core"
TILE_WORDS = {"TZERO", "TFILL", "TLOAD-A", "TLOAD-B", "TLOAD-C", "TLOAD-A-COL", "TLOAD-B-COL", "TMMA", "TSTORE",
              "TDUP", "TOVER", "TDROP", "TSWAP", "TROT", "TROLL", "TSCALE", "T+"}
MMA_SYNC_WORDS = {"TLDSM-A", "TLDSM-B", "TLDSM-B-COL", "TSTSM", "TLANE@", "TLANE!", "TROW", "TCOL"}  # issue 28.3: fragments with known lanes
WGMMA_WORDS = {"WGZERO", "WGMMA", "WGMMA-WAIT", "WGSTORE", "WGLANE@", "WGLANE!", "WGROW", "WGCOL"}  # wgmma.py


def test_every_primitive_has_one_emitter_signature():
    assert TABLE is REGISTRY.table
    for p in TABLE.values():
        assert isinstance(p, Primitive)
        params = [q for q in inspect.signature(p.emit).parameters.values() if q.default is inspect.Parameter.empty]
        assert len(params) == 2, (p.name, params)  # emit(g, node)
        assert p.help and p.group, p.name


def test_tile_words_are_flagged_not_recognised_by_their_section():
    assert {p.name for p in TABLE.values() if p.tile_word} == TILE_WORDS | MMA_SYNC_WORDS | WGMMA_WORDS
    for name in TILE_WORDS | MMA_SYNC_WORDS | WGMMA_WORDS:
        p = TABLE[name]
        assert p.suspend_point and p.inline and p.suspends and p.group.startswith("Tiles")
    assert all(not p.tile_word for p in TABLE.values() if not p.group.startswith("Tiles"))


def test_suspending_and_inlining_are_separate_flags():
    assert TABLE["BARRIER"].suspend_point and not TABLE["BARRIER"].inline
    assert TABLE["(PARAM)"].inline and not TABLE["(PARAM)"].suspend_point
    assert TABLE["(PARAM)"].suspends and TABLE["BARRIER"].suspends  # what the compiler reads: either
    plain = [p for p in TABLE.values() if not (p.suspend_point or p.inline)]
    assert plain and all(not p.suspends for p in plain)


def test_address_arithmetic_is_a_flag_of_plus_and_minus():
    assert {p.name: p.address_arith for p in TABLE.values() if p.address_arith} == {"+": "sum", "-": "difference"}


def test_a_registry_takes_a_decorator_or_a_table_line():
    reg = Registry()
    reg.group("Test words")

    @reg.prim("SQ", "( n -- n*n )", "Square.", "3 SQ . \\ 9")
    def sq(g, n):
        (x,) = g.pop(1)
        g.push(g.b.mul(x, x))

    reg.prim("DBL", "( n -- 2n )", "Double.", "3 DBL . \\ 6", cells(lambda g, x: [g.b.add(x, x)]))
    reg.prim("FSQ", "( F: r -- r*r )", "Square a float.", "", floats(lambda g, r: [g.b.fmul(r, r)]))
    reg.prim("N>F", "( n -- ) ( F: -- r )", "", "", stacks(lambda g, a, f: ([], [g.b.sitofp(a[0], f)])))
    assert list(reg.table) == ["SQ", "DBL", "FSQ", "N>F"]
    assert reg.table["SQ"].emit is sq and reg.table["SQ"].group == "Test words"
    assert (reg.table["N>F"].ins, reg.table["N>F"].fouts) == (1, 1)


def test_registered_words_compile_like_built_ins():
    """A word added to the table runs through the same path as DUP or +."""
    TABLE["TEST-SQ"] = Primitive("TEST-SQ", "( n -- n*n )", "Square.", "", cells(lambda g, x: [g.b.mul(x, x)]),
                                 "Test words")
    try:
        f = Forth()
        f.eval("1 1 1 THREADS")
        assert f.eval("7 TEST-SQ .").split() == ["49"]
        assert TABLE["TEST-SQ"].effect_of(Prim(TABLE["TEST-SQ"], None)).dnet == 0
    finally:
        del TABLE["TEST-SQ"]


def _runtime_imports(path: Path) -> set[str]:
    """Modules a core file imports when it runs (not under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text())
    skip = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for n in ast.walk(node)}
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom) and node.level:
            out.add(node.module or "".join(a.name for a in node.names))
    return out


def test_tile_words_are_installed_by_an_explicit_call_not_an_import_cycle():
    assert "primitives" not in _runtime_imports(CORE / "compile" / "tilegen.py")
    assert "tilegen.install(REGISTRY)" in (CORE / "compile" / "primitives.py").read_text()


# ---- the literate prelude feeds the same reference -----------------------------------------------
def test_prelude_entries_come_from_definitions_and_the_comments_right_after_them():
    from tileforth.core.session.reference import prelude_entries
    text = """\\ prose about the words below
\\ e.g. not an example: prose

: SQ ( n -- n*n )  DUP * ;
\\ Square a number,
\\ and say so on two lines.
\\ e.g. 3 SQ . \\ 9

: LONG ( n -- n' ) ( F: r -- )
  DUP +
  FDROP ;
\\ A definition over three lines.
\\ e.g. 1 1e LONG . \\ 2
: BARE ( -- ) ;
"""
    got = [(e.name, e.effect, e.help, e.example) for e in prelude_entries(text)]
    assert got == [("SQ", "( n -- n*n )", "Square a number, and say so on two lines.", "3 SQ . \\ 9"),
                   ("LONG", "( n -- n' ) ( F: r -- )", "A definition over three lines.", "1 1e LONG . \\ 2"),
                   ("BARE", "( -- )", "", "")]


def test_every_prelude_definition_has_help_and_an_example():
    from tileforth.core.session.reference import PRELUDE, prelude_entries
    entries = prelude_entries()
    defined = [line.split()[1] for line in PRELUDE.read_text().splitlines() if line.startswith(": ")]
    assert [e.name for e in entries] == defined
    assert all(e.help and "\\ " in e.example for e in entries)


# the words that are Forth by nature live in the prelude (issue 9, item 9), small enough to be inlined
PRELUDE_NOT_PYTHON = ("NEGATE", "ABS", ">", "<>", "F0<", "F0=", "LANE-ID", "WARP-ID", "TRUE", "FALSE")


def test_words_that_are_forth_by_nature_are_prelude_words_and_inlined():
    from tileforth.core.front.dictionary import Colon
    f = Forth()
    for name in PRELUDE_NOT_PYTHON:
        assert name not in TABLE, name
        w = f.dict[name]
        assert isinstance(w, Colon) and w.prelude and w.small, name
    assert "+!" in TABLE  # in Forth it would check its address twice (for @ and for !)
    assert "MIN" in TABLE and "MAX" in TABLE  # one select each: a line compiles faster (prelude.fth says why)
