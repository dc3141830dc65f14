"""Golden properties of the code generator (issue 9, item 1), so that a
restructuring cannot regress them silently.

Each property is checked on what the machine really gets:

* `raw`: the kernel module as `Gen` emits it (the cpu backend compiles
  straight-line lines exactly so; checks and error blocks are read here,
  where LLVM has not yet merged or removed anything);
* `opt`: the same module after LLVM's O2 pipeline for the host (what the
  cpu backend runs for lines with loops);
* `ptx`: the PTX the cuda backend runs for the line (`segment_ptx`).

Memory traffic is compared *differentially*: a line is measured against a
reference line that leaves the same stacks by the shortest route (`49` for
`3 4 + DUP *`, an empty loop for a loop whose body is balanced). Equal
counts of loads and stores mean the extra work stayed in registers.
"""
from __future__ import annotations

import re
from collections import Counter

import llvmlite.binding as llvm
import pytest
from tileforth.core import Forth
from tileforth.core.compile import layout as L
from tileforth.core.front.effects import DYNAMIC
from tileforth.export.kernels import segment_ptx

ARCH = "sm_90"
HELPER_FNS = ("tf_fail", "tf_poll", "tf_addr_scan", "tf_out", "tf_race", "tf_race_conflict")

# a word of more than SMALL_WORD nodes (so it gets its own function), static effect ( a b c -- x )
POLY = ": poly ( a b c -- x ) * + DUP 1+ * 2* 3 + 7 XOR ;"
# the same length, but ?DUP makes its effect dynamic
QPOLY = ": qpoly ( a -- ? ) ?DUP 1+ DUP * 2* 3 + 7 XOR 5 - ;"


# ---- producing the three views of a line ---------------------------------------------------------------
def segments(f: Forth, line: str) -> list[tuple[list, list]]:
    """The (nodes, tiles) of every kernel `line` runs (the line is run, too)."""
    segs: list[tuple[list, list]] = []
    f.on_segment = lambda nodes, tiles: segs.append((nodes, tiles))
    try:
        f.eval(line)
    finally:
        f.on_segment = None
    return segs


def raw_ir(f: Forth, nodes: list, tiles: list) -> str:
    return f.compiler.kernel(nodes, tiles, block=f.backend.block).text


_TM = None


def optimized(text: str) -> str:
    """The module after the host's O2 pipeline (the cpu backend's level for loops)."""
    global _TM
    if _TM is None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _TM = llvm.Target.from_default_triple().create_target_machine()
    mod = llvm.parse_assembly(text)
    pb = llvm.create_pass_builder(_TM, llvm.create_pipeline_tuning_options(speed_level=2))
    pb.getModulePassManager().run(mod, pb)
    return str(mod)


def views(line: str, before: str = "") -> dict[str, str]:
    """raw IR, optimized IR and PTX of the (last) kernel of `line`, run after `before`."""
    f = Forth(backend="cpu")
    if before:
        f.eval(before)
    nodes, tiles = segments(f, line)[-1]
    raw = raw_ir(f, nodes, tiles)
    return {"raw": raw, "opt": optimized(raw), "ptx": segment_ptx(f, nodes, tiles, ARCH)}


# ---- reading them -------------------------------------------------------------------------------------
def ir_functions(text: str) -> dict[str, str]:
    """Every function defined in an IR module: name -> its text."""
    return {m.group(1): m.group(0)
            for m in re.finditer(r'^define [^@\n]*@"?([\w.$]+)"?\(.*?^}', text, re.M | re.S)}


def ptx_functions(ptx: str) -> dict[str, str]:
    """Every .entry/.func of a PTX module: name -> its text."""
    return {m.group(1): m.group(0)
            for m in re.finditer(r"^(?:\.visible\s+)?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)\(.*?^}",
                                 ptx, re.M | re.S)}


def own(fns: dict[str, str]) -> dict[str, str]:
    """The functions the generator made (not the runtime helpers)."""
    return {n: t for n, t in fns.items() if n not in HELPER_FNS}


def ir_blocks(fn: str) -> dict[str, str]:
    """label -> the block's text (its `; preds = ...` line included)."""
    parts = re.split(r"^([\w.$-]+):", fn, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def ir_memory_ops(fn: str) -> Counter:
    """Loads and stores through memory; an alloca is a register (mem2reg
    promotes it), so accesses to allocas are not counted."""
    allocas = set(re.findall(r"(%[\w.$-]+) = alloca\b", fn))
    ops = Counter()
    for line in fn.splitlines():
        m = re.match(r"\s+(?:%[\w.$-]+ = )?(load|store)\b.*\bptr (%[\w.$-]+)", line)
        if m:
            if m.group(2) not in allocas:
                ops[m.group(1)] += 1
        elif re.search(r"call void @llvm\.mem(set|cpy|move)", line):
            ops["memintrinsic"] += 1
    return ops


def ptx_memory_ops(fn: str) -> Counter:
    """Loads and stores other than parameter passing and reading the launch's literal table
    (ctx[CTX_LITS], and the literals at the address it holds: a line's numbers, linekey.py)."""
    ops = Counter()
    tables = set(re.findall(rf"ld\.global\.nc\.b64\s+(%rd\d+), \[%rd\d+\+{8 * L.CTX_LITS}\];", fn))
    for line in fn.splitlines():
        m = re.match(r"\s+(?:@!?%p\d+\s+)?(ld|st|atom)\.(?!param)", line)
        if m and not (tables and (re.search(rf"\[%rd\d+\+{8 * L.CTX_LITS}\]", line)
                                  or re.search(r"\[(%rd\d+)(?:\+\d+)?\]", line).group(1) in tables)):
            ops[m.group(1)] += 1
    return ops


def memory(v: dict[str, str]) -> dict[str, Counter]:
    """Loads and stores of the generator's own functions, per view."""
    return {
        "raw": sum((ir_memory_ops(t) for t in own(ir_functions(v["raw"])).values()), Counter()),
        "opt": sum((ir_memory_ops(t) for t in own(ir_functions(v["opt"])).values()), Counter()),
        "ptx": sum((ptx_memory_ops(t) for t in own(ptx_functions(v["ptx"])).values()), Counter()),
    }


def check_codes(fn: str) -> list[int]:
    """The error code of every check in a function of the raw IR: each check is
    one incoming edge of the `code` phi of the function's error block."""
    blocks = ir_blocks(fn)
    if "fail_record" not in blocks:
        return []
    phi = re.search(r"%code = phi i64 (.*)", blocks["fail_record"]).group(1)
    return [int(c) for c in re.findall(r"\[ (-?\d+), %", phi)]


def underflow_checks(fn: str) -> int:
    return check_codes(fn).count(L.E_UNDERFLOW)


def kernel_name(fns: dict[str, str]) -> str:
    (name,) = [n for n in own(fns) if re.fullmatch(r"k\d+", n)]
    return name


# ---- no memory traffic for statically known stacks ----------------------------------------------------
def test_a_static_line_touches_no_stack_memory():
    """`3 4 + DUP *` costs exactly what pushing its result costs: the
    intermediate values never reach the stack in memory, and no underflow
    check is made (the generator knows every item)."""
    line, ref = views("3 4 + DUP *"), views("49")
    assert memory(line) == memory(ref)
    raw = ir_functions(line["raw"])
    k = raw[kernel_name(raw)]
    assert underflow_checks(k) == 0
    # the only check is the one overflow test of the final flush
    assert check_codes(k) == [L.E_OVERFLOW]


# primitives and inlined prelude words (NEGATE ABS > <> F0< F0= TRUE FALSE LANE-ID WARP-ID are
# Forth words of prelude.fth): a word without EXIT continues the caller's stack cache, so a
# line of them must keep touching no memory.
STATIC_LINE = ("1 2 3 ROT ROT SWAP OVER + * NEGATE ABS 5 MAX 100 MIN  2e 3e F* FDUP F+ FNEGATE F0< +  "
               "TRUE FALSE <> -  DUP 3 > -  LANE-ID WARP-ID + 0 < -  1e F0= +")


def test_a_longer_static_line_with_both_stacks_touches_no_stack_memory():
    f = Forth(backend="cpu")
    f.eval(STATIC_LINE)
    assert f.float_stack() == []
    # the same stacks by the shortest route (reading the same special registers: on the cpu
    # target they are loads from the thread record, not stack memory)
    ref_line = " ".join(str(v) for v in f.data_stack()) + " LANE-ID WARP-ID + DROP"
    line, ref = views(STATIC_LINE), views(ref_line)
    assert memory(line) == memory(ref)
    raw = ir_functions(line["raw"])
    assert check_codes(raw[kernel_name(raw)]) == [L.E_OVERFLOW]


def test_a_balanced_loop_body_keeps_its_values_in_registers():
    """What is true today: the values a balanced loop body pushes and pops
    itself never touch memory (`I DUP * DROP` costs what an empty body costs),
    nor need a check. A value that comes from before the loop lives in the
    stack's memory across the back-edge: `I DUP * +` costs what `I +` costs."""
    n = "100"  # a trip count the compiler cannot see (it is on the stack from an earlier line)
    busy = views("0 DO I DUP * I 2 * + DROP LOOP", before=n)
    empty = views("0 DO LOOP", before=n)
    assert memory(busy) == memory(empty)
    acc = views("0 SWAP 0 DO I DUP * + LOOP", before=n)
    plain = views("0 SWAP 0 DO I + LOOP", before=n)
    assert memory(acc) == memory(plain)
    for v in (busy, acc):
        raw = ir_functions(v["raw"])
        assert underflow_checks(raw[kernel_name(raw)]) == 1  # the DO's own two inputs, once, before the loop


def test_the_accumulator_of_a_loop_is_stored_once_per_iteration():
    """The state today (a guard against getting worse): in the optimized loop
    the accumulator is written back to the stack once per iteration and read
    back only after a poll of the step budget, never on the fast path."""
    opt = ir_functions(views("0 SWAP 0 DO I DUP * + LOOP", before="100")["opt"])
    k = opt[kernel_name(opt)]
    blocks = ir_blocks(k)
    (guard,) = [t for t in blocks.values() if re.search(rf"and i64 %[\w.]+, {L.POLL_EVERY - 1}\b", t)]
    poll, fast = re.search(r"br i1 %[\w.]+, label %([\w.]+), label %([\w.]+)", guard).groups()
    assert "@tf_poll(" in blocks[poll]
    # the iteration's fast path: the budget test, then the body and the back-edge
    assert ir_memory_ops(guard) + ir_memory_ops(blocks[fast]) == Counter(store=1)


# ---- checks only where the depth is unknown -----------------------------------------------------------
def test_a_static_word_has_no_check_inside_and_its_caller_checks_once():
    f = Forth(backend="cpu")
    f.eval(POLY + " 1 2 3")
    word = f.dict.get("POLY")
    assert word.effect.static and not word.small
    nodes, tiles = segments(f, "poly")[-1]
    raw = ir_functions(raw_ir(f, nodes, tiles))
    assert underflow_checks(raw[word.ir_name]) == 0
    assert underflow_checks(raw[kernel_name(raw)]) == 1
    assert check_codes(raw[kernel_name(raw)]).count(L.E_UNDERFLOW) == 1
    # the caller's one check asks for the word's three inputs
    assert re.search(r"icmp slt i64 %[\w.]+, 3\b", raw[kernel_name(raw)])
    # known inputs need no check at all: 1 2 3 pushed on the same line
    nodes, tiles = segments(f, "1 2 3 poly")[-1]
    raw = ir_functions(raw_ir(f, nodes, tiles))
    assert underflow_checks(raw[kernel_name(raw)]) == 0
    assert underflow_checks(raw[word.ir_name]) == 0


def test_dynamic_code_keeps_its_checks():
    """`?DUP` leaves a depth the compiler cannot know: the word checks inside,
    at every access past what it has proven, and its caller cannot check for it."""
    f = Forth(backend="cpu")
    f.eval(QPOLY + " 5")
    word = f.dict.get("QPOLY")
    assert word.effect == DYNAMIC and not word.small
    nodes, tiles = segments(f, "qpoly")[-1]
    raw = ir_functions(raw_ir(f, nodes, tiles))
    inside = underflow_checks(raw[word.ir_name])
    assert inside >= 2  # ?DUP's input, and what follows it
    assert underflow_checks(raw[kernel_name(raw)]) == 0
    # the same code at the prompt keeps its checks too
    line = ir_functions(views("?DUP 1+ DUP * 2* 3 + 7 XOR 5 -", before="5")["raw"])
    assert underflow_checks(line[kernel_name(line)]) >= 2
    # and with the depth known it needs none
    line = ir_functions(views("7 DUP * 1+ DUP * 2* 3 + 7 XOR 5 -")["raw"])
    assert underflow_checks(line[kernel_name(line)]) == 0


# ---- one error block per function ---------------------------------------------------------------------
CHECKY_WORD = ": checky ( a -- b ) DUP @ SWAP ! v @ 3 / 1+ 2* DUP CELLS v + @ + ;"
CHECKY_LINE = "v @ v !  + + 7 SWAP /  v @ DROP 1+ 1+ 1+ 1+ 1+ 1+"


def test_every_function_has_one_error_block():
    """Checks of every kind (underflow, address, alignment, division by zero,
    overflow) branch to one `fail_record` block per function, the only call
    of `tf_fail` there."""
    f = Forth(backend="cpu")
    f.eval("1 1 1 THREADS  VARIABLE v  1 v !  " + CHECKY_WORD + "  1 2 3 ")  # one thread: the line is racy
    nodes, tiles = segments(f, CHECKY_LINE + " v checky DROP")[-1]
    raw = ir_functions(raw_ir(f, nodes, tiles))
    word = f.dict.get("CHECKY")
    mine = own(raw)
    assert word.ir_name in mine and len(mine) == 2
    for name, fn in mine.items():
        blocks = ir_blocks(fn)
        assert sum(1 for b in blocks if b.startswith("fail_record")) == 1, name
        assert fn.count("call void @tf_fail") == 1, name
        codes = check_codes(fn)
        assert len(codes) >= 5, (name, codes)
    kernel_codes = set(check_codes(raw[kernel_name(raw)]))
    assert {L.E_UNDERFLOW, L.E_BAD_ADDR, L.E_ALIGN, L.E_DIV0, L.E_OVERFLOW} <= kernel_codes


def test_one_error_block_survives_optimization_and_ptx():
    """After LLVM (tf_fail inlined once into the single block) and in PTX, a
    line with many checks records errors in one place: one compare-and-swap."""
    v = views(CHECKY_LINE, before="1 1 1 THREADS  VARIABLE v  1 v !  1 2 3")
    raw = ir_functions(v["raw"])
    assert len(check_codes(raw[kernel_name(raw)])) >= 8
    opt = ir_functions(v["opt"])
    k = opt[kernel_name(opt)]
    assert k.count("cmpxchg") + k.count("call void @tf_fail") == 1
    ptx = ptx_functions(v["ptx"])
    (entry,) = [t for n, t in ptx.items() if n not in HELPER_FNS]
    assert len(re.findall(r"\batom\.[\w.]*cas\b", entry)) + entry.count("tf_fail,") == 1


# ---- step budget polled every POLL_EVERY iterations ---------------------------------------------------
def _poll_guards(fn: str) -> list[str]:
    """For every block that calls tf_poll, its one predecessor's text."""
    blocks = ir_blocks(fn)
    guards = []
    for label, text in blocks.items():
        if "@tf_poll(" not in text:
            continue
        preds = re.search(r"; preds = (.*)", text).group(1).split(", ")
        assert len(preds) == 1, (label, preds)
        guards.append(blocks[preds[0].lstrip("%")])
    return guards


@pytest.mark.parametrize("line", ["0 DO LOOP", "BEGIN 1- DUP 0= UNTIL", "BEGIN DUP WHILE 1- REPEAT"])
def test_the_step_budget_is_polled_only_every_POLL_EVERY_iterations(line):
    """Each back-edge decrements the budget in a register; tf_poll (which reads
    the abort flag) is called only when the count crosses a multiple of
    POLL_EVERY, and the abort flag is never read in the loop itself."""
    mask = L.POLL_EVERY - 1
    v = views(line, before="100")
    for view in ("raw", "opt"):
        fns = ir_functions(v[view])
        k = fns[kernel_name(fns)]
        guards = _poll_guards(k)
        assert len(guards) == 1, view
        assert re.search(rf"= and i64 %[\w.]+, {mask}\n", guards[0]), view
        assert re.search(r"icmp eq i64 %[\w.]+, 0", guards[0]), view
        assert "load atomic" not in k and "volatile" not in k, view
        # the emulator's kernels only declare it: it is compiled once, with the scheduler (links_helpers)
        assert re.search(r"^declare i1 @tf_poll\(", v[view], re.M) and "tf_poll" not in fns, view
    # the abort flag is read in tf_poll only, which stays out of line (in PTX, where it is linked in)
    ptx = ptx_functions(v["ptx"])
    (name,) = [n for n in ptx if n not in HELPER_FNS]
    entry = ptx[name]
    assert len(re.findall(r"call\.uni[^\n]*\btf_poll\b", entry)) == 1
    assert re.search(rf"and\.b64\s+%rd\d+, %rd\d+, {mask};", entry)
    assert "ld.volatile" not in entry and "ld.volatile" in ptx["tf_poll"]


def test_straight_line_code_never_polls():
    fns = ir_functions(views("1 2 + 3 * DUP DUP + +")["raw"])
    assert "@tf_poll(" not in fns[kernel_name(fns)]


# ---- the one tree visitor (issue 9, item 4) -------------------------------------------------------------
def test_the_passes_over_the_tree_share_one_visitor():
    """tree.walk, effect inference, code generation and the kernel cache key
    dispatch through tree.Visitor's table: every node type has an entry in
    each, and a visit_ method for a type that does not exist is refused."""
    from tileforth.core.compile import codegen
    from tileforth.core.front import effects, linekey, tree
    for cls in (codegen.Gen, effects._Walker, linekey._LineKey):
        assert issubclass(cls, tree.Visitor)
        assert set(cls._visit_table) == set(tree.NODE_TYPES)
    assert effects._Walker._visit_table[tree.DropFlag] is effects._Walker.visit_DropFlag
    with pytest.raises(TypeError, match="no node type Nope"):
        type("Bad", (tree.Visitor,), {"visit_Nope": lambda self, n: None})
    f = Forth(backend="cpu")
    f.eval(": w BEGIN DUP WHILE 1 - DUP 2 AND IF 3 ELSE 4 THEN DROP REPEAT 5 0 DO I DROP LOOP ;")
    body = f.dict.get("W").body
    kinds = [type(n).__name__ for n in tree.walk(body)]  # a node, then its sub-bodies in source order
    assert kinds == ["Begin", "Prim", "Lit", "Prim", "Prim", "Lit", "Prim", "If", "Lit", "Lit", "Prim",
                     "Lit", "Lit", "Do", "Prim", "Prim"]
    assert [len(c) for c in tree.children(body[0])] == [1, 7]
