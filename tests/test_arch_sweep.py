"""Issue 26, point 4: no input makes LLVM abort the Python process. Every
primitive and tile word (the primitive registry: primitives.py, floatwords.py,
warpgen.py, tilegen.py, xtgen.py), under every tile configuration and float
type, is compiled to PTX for every architecture the cuda backend supports
(ptx.ARCHS), as the backend compiles a REPL line (`segment_ptx`), and each
result must be one of:

* PTX that ptxas (the nvidia-cuda-nvcc wheel: the independent reference)
  accepts for that architecture, or
* a ForthError at the word's position that names the word and the
  architecture and says what to do -- exactly where the architecture lacks
  the instruction (tensor_cores.md: bf16 tensor cores need sm_80).

LLVM reports some refusals by aborting the process (a fatal "Cannot select"
in instruction selection), so the compiling runs in child processes: a child
that dies is a failure of the (word, arch) it was compiling, and the sweep
goes on in a fresh child from the next one. The words come in batches, a
child per core; ptxas gets one module per architecture (the kernels of every
word, their symbols renamed apart), and only a module it refuses is taken
apart to find the kernel.

Also: a malformed or invalid module handed to module_to_ptx, and a module
calling an intrinsic the architecture lacks, are ForthErrors, not aborts.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tileforth.backends.cuda.ptx import ARCHS, ptxas_path  # noqa: E402
from tileforth.core.compile.primitives import TABLE  # noqa: E402
from tileforth.core.compile.tiles import SHAPES  # noqa: E402

pytestmark = pytest.mark.skipif(ptxas_path() is None, reason="ptxas (nvidia-cuda-nvcc wheel) not installed")

# The first architecture with bf16 tensor cores (../shared/reference/tensor_cores.md, the wmma table: .bf16
# inputs need sm_80; f16 inputs sm_70, below every arch in ARCHS). Where a line loads or multiplies bf16
# tiles, an older arch must refuse it with a ForthError.
BF16_SM = 80
# primitives no example reaches: the words that compile to them, with a line using each
INTERNAL = {
    "(SHARED)": ["64 SHARED: buf  1 1 1 THREADS", "7 buf !  buf @ ."],
    '(ABORT")': [': chk ( n -- ) 0< ABORT" negative" ;', "5 chk"],
    "(SMEM-STAGE)": ["16 16 F32 2 SMEM-TILE st  1 1 1 THREADS", "1 st DROP"],
    "(WGDESC)": ["BF16 TILE-IN  64 64 BF16 1 SMEM-TILE-SWZ sa  1 1 1 THREADS", "0 8 16 128 WGDESC sa DROP"],
}
ASYNC_WORDS = re.compile(r"(?<!\S)(CP\.ASYNC|CP\.ASYNC-N|CP\.COMMIT|CP\.WAIT|STAGE-TILE)(?!\S)")  # cp.async: sm_80
# mma.sync m16n8k16 (the PTX ISA): TMMA of that shape needs sm_80, stmatrix (TSTSM) sm_90; ldmatrix (TLDSM-A/-B/-B-COL)
# needs PTX 6.5, which LLVM 22 emits from sm_80 on (it aborts at sm_75). A line's flag is the first sm it
# compiles for (0: every arch).
MMA_SYNC_SHAPE = re.compile(r"(?<!\S)16 8 16 TILE-SHAPE(?!\S)")
STSM_SM = 90


# Hopper's mbarriers, TMA, fences and ELECT (core/compile/mbarrier.py, tma.py): sm_90; setmaxnreg (REGS- REGS+)
# only on the arch-specific targets from sm_90a on ("90a")
HOPPER_SM = 90
HOPPER_WORDS = re.compile(r"(?<!\S)(MBAR-[A-Z-]+|TMA-LOAD|TMA-STORE|TMA-WAIT|FENCE-ASYNC|ELECT)(?!\S)")
ARCH_SPECIFIC_WORDS = re.compile(r"(?<!\S)(REGS-|REGS\+)(?!\S)")
# warpgroup MMA (core/compile/wgmma.py): wgmma exists only on sm_90a (not on sm_100a: Blackwell has tcgen05);
# WGROW and WGCOL are arithmetic on the thread index, which every arch compiles
WGMMA_WORDS = re.compile(r"(?<!\S)(WGZERO|WGMMA|WGMMA-WAIT|WGSTORE|WGLANE@|WGLANE!|WGDESC)(?!\S)")
WGMMA_ARCH = "sm_90a"


def refuses(need: int | str, arch: str) -> bool:
    """Whether an arch must refuse a line whose first arch is `need` (min_sm)."""
    if need == WGMMA_ARCH:
        return arch != WGMMA_ARCH
    if isinstance(need, str):
        return not (arch.endswith("a") and sm_of(arch) >= int(need[:-1]))
    return sm_of(arch) < need


def min_sm(line: str) -> int | str:
    """The first sm a sweep line compiles for: cp.async and m16n8k16 TMMA need sm_80, TSTSM sm_90, Hopper's
    words sm_90, setmaxnreg "90a" (an arch-specific target), the warpgroup MMA words exactly "sm_90a"."""
    if WGMMA_WORDS.search(line):
        return WGMMA_ARCH
    if ARCH_SPECIFIC_WORDS.search(line):
        return f"{HOPPER_SM}a"
    if HOPPER_WORDS.search(line):
        return HOPPER_SM
    if re.search(r"(?<!\S)TSTSM(?!\S)", line):
        return STSM_SM
    if ASYNC_WORDS.search(line) or re.search(r"(?<!\S)TLDSM-(A|B|B-COL)(?!\S)", line) or (
            MMA_SYNC_SHAPE.search(line) and re.search(r"(?<!\S)TMMA(?!\S)", line)):
        return BF16_SM
    return 0


KERNEL_FILES = {  # (PARAM): a kernel file's parameters, of every declared type
    "(PARAM)": "\\! kernel params\n\\! param X f32[N]\n\\! param H f16\n\\! param B bf16\n\\! param C i8\n"
               "\\! param S i16\n\\! param W i64\n\\! param D f64\n\\! param N i32\n"
               "GLOBAL-ID N < IF  GLOBAL-ID 4 * X + DUP F@ H F* B F+ D F+ C S + W + S>F F+ F!  THEN\n",
}


def sm_of(arch: str) -> int:
    return int(re.match(r"sm_(\d+)", arch).group(1))


def example_line(text: str) -> str:
    """A word's example without its `\\ expected output` comment."""
    return text.split(" \\ ")[0].split("\\ ")[0] if "\\" in text else text


def cases() -> list[dict]:
    """Each: an id, the words it is for, the session's float type, and lines (each with whether it uses bf16
    tiles or cp.async, so refuses below sm_80)."""
    out = []
    for name, p in TABLE.items():
        if not p.example:
            continue
        line = example_line(p.example)
        out.append({"id": name, "words": [name], "float_bits": 32, "lines": [[line, min_sm(line)]]})
        if "F:" in p.effect or re.search(r"\d[eE]\b|\d[eE]-?\d", line) or name.startswith("F"):
            if re.search(r"(?<!\S)SF[@!](?!\S)", line):  # SF@ SF! move f32s: F@ reads them as SF@ does
                line = re.sub(r"(?<!\S)F@(?!\S)", "SF@", line)
            elif re.search(r"(?<!\S)F[@!](?!\S)", line):  # F@ and F! move 8 bytes in a session of f64 floats
                line = line.replace("F32 ARRAY", "F64 ARRAY")
            out.append({"id": f"{name}/f64", "words": [name], "float_bits": 64,
                        "lines": [[line, min_sm(line)]]})
    for name, lines in INTERNAL.items():
        out.append({"id": name, "words": [name], "float_bits": 32, "lines": [[ln, min_sm(ln)] for ln in lines]})
    for name in KERNEL_FILES:
        out.append({"id": name, "words": [name], "float_bits": 32, "lines": [["", 0]]})
    tile_words = [n for n, p in TABLE.items() if p.tile_word]
    for (m, n, k) in SHAPES:
        for tin, acc in (("F16", "F16"), ("F16", "F32"), ("BF16", "F32")):
            mma = (m, n, k) == (16, 8, 16)
            lines = [
                [f"{m} {n} {k} TILE-SHAPE {acc} TILE-ACC {tin} TILE-IN  64 64 {tin} MATRIX A  "
                 f"64 64 {tin} MATRIX B  64 64 {acc} MATRIX C", 0],
                ["TZERO A 64 TLOAD-A B 64 TLOAD-B TMMA  A 64 TLOAD-A-COL B 64 TLOAD-B-COL TMMA  C 64 TSTORE",
                 BF16_SM if mma or tin == "BF16" else 0],  # (m16n8k16: TMMA; its loads are plain, per lane)
                ["C 64 TLOAD-C 2e TFILL T+ 3e TSCALE TZERO TDUP TOVER TSWAP TROT 3 TROLL T+ T+ T+ TDUP TDROP "
                 "C 64 TSTORE", 0],
                # the address spaces of tile pointers: shared (wmma .shared), unknown (generic), global
                ["4096 SHARED: tsh  VARIABLE tp  C tp !", 0],
                ["tsh 32 TLOAD-C tp @ 64 TLOAD-C T+ tsh 32 TSTORE", 0]]
            if mma:  # ldmatrix, stmatrix and per-lane access, of each type
                lines += [[f"64 64 {tin} 1 SMEM-TILE-SWZ S  TZERO 0 S 0 8 S-GEOM TLDSM-A 0 S 16 8 S-GEOM TLDSM-B TMMA "
                           "0 TLANE@ 2e F* 3 TLANE!  C 64 TSTORE", BF16_SM],
                          ["0 S 0 8 S-GEOM TLDSM-A 0 S 0 16 S-GEOM TLDSM-B TDROP TDROP  1e TFILL 0 S 16 0 S-GEOM TSTSM",
                           STSM_SM],
                          # big register tiles (TILE-GRID): the same words unrolled over a 4x8 grid
                          ["4 8 TILE-GRID TZERO 0 S 0 8 S-GEOM TLDSM-A 0 S 16 0 S-GEOM TLDSM-B TMMA 5 TLANE@ 2e F* "
                           "5 TLANE! 7 TROW 7 TCOL 2DROP C 64 TSTORE 1 1 TILE-GRID", BF16_SM],
                          # b from an n-major (column-major B) tile: ldmatrix .x2 without .trans, one and a grid
                          ["TZERO 0 S 0 8 S-GEOM TLDSM-A 0 S 8 16 S-GEOM TLDSM-B-COL TMMA C 64 TSTORE  4 8 TILE-GRID "
                           "TZERO 0 S 0 0 S-GEOM TLDSM-A 0 S 0 16 S-GEOM TLDSM-B-COL TMMA C 64 TSTORE 1 1 TILE-GRID",
                           BF16_SM],
                          ["2 2 TILE-GRID 1e TFILL 0 S 16 8 S-GEOM TSTSM 1 1 TILE-GRID", STSM_SM]]
            out.append({"id": f"tiles {m}x{n}x{k} {tin}->{acc}", "words": tile_words, "float_bits": 32,
                        "lines": lines})
    return out


# ---- children: IR for every case and arch, then PTX per arch; each result a JSON line -------------------------

def _say(**kw) -> None:
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


def _child_ir(todo: list[dict], archs: list[str], outdir: str) -> None:
    """Run each case's lines on the emulator; each segment's kernel module for every arch, as the cuda backend
    builds it (llvmlite.ir: no LLVM code generation yet, so nothing here can abort) -- its IR to a file, or the
    ForthError the code generator gave."""
    from tileforth.core import Forth, ForthError
    from tileforth.export.kernelfile import parse_kernel_file
    from tileforth.export.kernels import compile_kernel_file, nvptx_compiler

    def build(case_id: str, seg: int, line: int, make) -> None:
        for arch in archs:
            rec = {"case": case_id, "seg": seg, "line": line, "arch": arch}
            try:
                km = make(arch)
            except ForthError as exc:
                _say(**rec, error=exc.message, word=exc.word, pos=str(exc.pos) if exc.pos else None)
            except Exception as exc:  # noqa: BLE001 - what the sweep exists to find
                _say(**rec, exception=f"{type(exc).__name__}: {exc}")
            else:
                path = Path(outdir) / arch / f"{hashlib.md5(case_id.encode()).hexdigest()}_{seg}.ll"
                path.parent.mkdir(exist_ok=True)
                path.write_text(str(km.module))
                _say(**rec, ir=str(path), heavy=bool(km.heavy))

    for case in todo:
        if case["id"] in KERNEL_FILES:
            spec = parse_kernel_file(KERNEL_FILES[case["id"]], "<sweep>")
            build(case["id"], 0, 0, lambda arch: compile_kernel_file(spec, arch)[0])
            _say(ran=case["id"], errors=[])
            continue
        f = Forth(float_bits=case["float_bits"])
        state = {"seg": 0, "line": 0}

        def hook(nodes, tiles, f=f, case=case, state=state) -> None:
            block = f.launch_shape[1]
            build(case["id"], state["seg"], state["line"],
                  lambda arch: nvptx_compiler(f, arch, checked=True).kernel(nodes, tiles, block=block))
            state["seg"] += 1
        f.on_segment = hook
        errors = []
        for i, (line, _) in enumerate(case["lines"]):
            state["line"] = i
            try:
                f.eval(line)
            except ForthError as exc:
                errors.append(f"{line!r}: {exc}")
        _say(ran=case["id"], errors=errors)


_KERNEL_DEF = re.compile(r"^define (?!internal |private )[^@\n]*@([\w.$]+)\(", re.M)


def merge_ir(texts: list[str]) -> "object":
    """One LLVM module linking every module's functions: each module's kernel (its one external definition)
    gets a prefix of its own; the linker keeps the internal helpers apart."""
    import llvmlite.binding as llvm
    from tileforth.backends.cuda.ptx import _init
    _init()
    main = None
    for i, text in enumerate(texts):
        for name in set(_KERNEL_DEF.findall(text)):
            text = re.sub(rf"@{re.escape(name)}(?![\w.$])", f"@m{i}_{name}", text)
        mod = llvm.parse_assembly(text)
        if main is None:
            main = mod
        else:
            main.link_in(mod)
    return main


def _child_ptx(arch: str, items: list[dict], merged: bool, skip: list[str], outdir: str) -> None:
    """PTX for one arch: every module linked into one (merged), or each alone (to find the one that fails)."""
    from tileforth.backends.cuda.ptx import module_to_ptx
    from tileforth.core import ForthError
    dies_at = os.environ.get("TF_SWEEP_ABORT")  # tests of the sweep itself: LLVM "aborts" on this module

    def llvm(text: str, heavy: bool, keys: list[str]) -> str:
        if dies_at in keys:
            os.abort()
        return module_to_ptx(text if len(keys) == 1 else merge_ir(text), arch, heavy=heavy)
    if merged:
        for heavy in (False, True):
            group = [it for it in items if it["heavy"] == heavy]
            if not group:
                continue
            _say(begin="merged", arch=arch)
            try:
                ptx = llvm([Path(it["ir"]).read_text() for it in group], heavy, [it["key"] for it in group])
            except Exception as exc:  # noqa: BLE001 - each alone, below, names the module
                _say(merge_failed=f"{type(exc).__name__}: {exc}")
                break
            path = Path(outdir) / f"{arch}_{int(heavy)}.ptx"
            path.write_text(ptx)
            _say(merged=str(path), heavy=heavy)
        else:
            _say(done=True)
            return
    for it in items:
        if it["key"] in skip:
            continue
        _say(begin=it["key"], arch=arch)
        rec = {"key": it["key"]}
        try:
            ptx = llvm(Path(it["ir"]).read_text(), it["heavy"], [it["key"]])
        except ForthError as exc:
            _say(**rec, error=exc.message)
        except Exception as exc:  # noqa: BLE001
            _say(**rec, exception=f"{type(exc).__name__}: {exc}")
        else:
            path = Path(it["ir"]).with_suffix(".ptx")
            path.write_text(ptx)
            _say(**rec, ptx=str(path))
    _say(done=True)


def _spawn(request: dict, extra_env: dict | None = None) -> tuple[list[dict], subprocess.CompletedProcess]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), **(extra_env or {}))
    proc = subprocess.run([sys.executable, __file__, "--child"], input=json.dumps(request), capture_output=True,
                          text=True, env=env, timeout=900)
    return [json.loads(raw) for raw in proc.stdout.splitlines()], proc


def _died(proc: subprocess.CompletedProcess) -> str:
    return f"the process died (rc {proc.returncode}): {proc.stderr.strip()[-600:]}"


# ---- the parent ---------------------------------------------------------------------------------------------

class Sweep:
    """Everything the tests below look at: the cases; per (case, seg, arch) the code generator's result
    (`ir`, `error` or `exception`) and then the PTX's (`ptx` text, `llvm_error`, `crash`); the cpu runs'
    errors by case; ptxas's refusals per arch."""

    def __init__(self, outdir: str, nproc: int, only: list[str] | None = None, archs: list[str] | None = None,
                 env: dict | None = None) -> None:
        self.cases = [c for c in cases() if only is None or c["id"] in only]
        self.archs = list(archs or ARCHS)
        self.env = env
        self.outdir, self.nproc = outdir, nproc
        self.results: dict[tuple, dict] = {}
        self.ran: dict[str, list] = {}
        self.ptxas: dict[str, list[str]] = {}
        self.lost_children: list[str] = []
        self.unassembled: list[str] = []  # archs this ptxas does not know (CUDA 13 renamed sm_101 to sm_110)

    def run(self) -> "Sweep":
        with ThreadPoolExecutor(self.nproc) as pool:
            list(pool.map(self._ir_batch, [self.cases[i::self.nproc] for i in range(self.nproc)]))
            list(pool.map(self._ptx_arch, self.archs))
        return self

    def _ir_batch(self, batch: list[dict]) -> None:
        recs, proc = _spawn({"mode": "ir", "todo": batch, "archs": self.archs, "outdir": self.outdir}, self.env)
        for rec in recs:
            if "ran" in rec:
                self.ran[rec["ran"]] = rec["errors"]
            else:
                self.results[(rec["case"], rec["seg"], rec["arch"])] = rec
        if proc.returncode != 0:  # pure Python (and the emulator): a death here is a failure of its own
            self.lost_children.append(f"an IR child: {_died(proc)}")

    def _ptx_arch(self, arch: str) -> None:
        every = [{"key": f"{c}|{s}", "ir": r["ir"], "heavy": r["heavy"]}
                 for (c, s, a), r in sorted(self.results.items()) if a == arch and "ir" in r]
        by_key = {it["key"]: self.results[(it["key"].split("|")[0], int(it["key"].split("|")[1]), arch)]
                  for it in every}
        # modules that differ only in their kernel's name (the literals before a host word, in many cases) are
        # one module to LLVM and ptxas: each is compiled once, and its result is every twin's
        twins: dict[tuple, list[str]] = {}
        for it in every:
            text = Path(it["ir"]).read_text()
            for name in set(_KERNEL_DEF.findall(text)):
                text = re.sub(rf"@{re.escape(name)}(?![\w.$])", "@KERNEL", text)
            twins.setdefault((text, it["heavy"]), []).append(it["key"])
        first = {keys[0]: keys for keys in twins.values()}
        items = [it for it in every if it["key"] in first]

        def mark(key: str, field: str, value) -> None:
            for k in first[key]:
                by_key[k][field] = value
        recs, proc = _spawn({"mode": "ptx", "arch": arch, "items": items, "merged": True, "skip": [],
                             "outdir": self.outdir}, self.env)
        merged = [r for r in recs if "merged" in r]
        if proc.returncode == 0 and not any("merge_failed" in r for r in recs) and arch not in ptxas_archs():
            self.unassembled.append(arch)  # LLVM made PTX without aborting; no ptxas here to check it
            for it in items:
                mark(it["key"], "ptx_ok", True)
            return
        if proc.returncode == 0 and not any("merge_failed" in r for r in recs):
            refused = [e for r in merged if (e := ptxas_ok(Path(r["merged"]).read_text(), arch, "all"))]
            if not refused:
                for it in items:
                    mark(it["key"], "ptx_ok", True)
                return
        # something failed: each module alone, in children restarted past each one that dies
        skip: list[str] = []
        while True:
            recs, proc = _spawn({"mode": "ptx", "arch": arch, "items": items, "merged": False, "skip": skip,
                                 "outdir": self.outdir}, self.env)
            last = None
            for rec in recs:
                if "begin" in rec:
                    last = rec["begin"]
                elif "key" in rec:
                    last = None
                    if "ptx" in rec:
                        err = ptxas_ok(Path(rec["ptx"]).read_text(), arch, rec["key"])
                        mark(rec["key"], "ptx_ok", err is None)
                        if err:
                            self.ptxas.setdefault(arch, []).append(err)
                    else:
                        mark(rec["key"], "llvm_error", rec.get("error") or rec.get("exception"))
            if any("done" in rec for rec in recs):
                return
            if last is None:
                self.lost_children.append(f"a PTX child for {arch}: {_died(proc)}")
                return
            mark(last, "crash", _died(proc))
            skip.append(last)


@functools.cache
def ptxas_archs() -> frozenset[str]:
    """The sm_XY targets this ptxas assembles for (its --help lists them)."""
    text = subprocess.run([ptxas_path(), "--help"], capture_output=True, text=True, timeout=60).stdout
    return frozenset(re.findall(r"'(sm_\d+a?)'", text))


def ptxas_ok(ptx: str, arch: str, where: str) -> str | None:
    """None if ptxas accepts the module for arch, else its message. -O0: acceptance (the grammar, the types,
    the architecture's instruction set) is the same at every level; only the code made differs."""
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "m.ptx"
        src.write_text(ptx)
        proc = subprocess.run([ptxas_path(), f"-arch={arch}", "-O0", str(src), "-o", str(Path(d) / "m.cubin")],
                              capture_output=True, text=True, timeout=300)
    return None if proc.returncode == 0 else f"{where}: {proc.stderr.strip()[:1500]}"


# ---- the sweep ---------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> Sweep:
    return Sweep(str(tmp_path_factory.mktemp("sweep")), max(1, min(8, os.cpu_count() or 1))).run()


# device code's ALLOCATE FREE RESIZE (heapgen.py) exist where the target has a device heap (the cpu backend's
# Capabilities.device_heap): the cuda backend runs them as host words, so no line for a GPU arch holds them
NOT_ON_GPUS = {"(ALLOCATE)", "(FREE)", "(RESIZE)"}


def test_every_primitive_and_tile_word_is_swept(sweep):
    from tileforth.backends.cuda.target import NvptxTarget
    assert not NvptxTarget("sm_90").device_heap  # else the heap's words must be swept too
    covered = {w for c in sweep.cases for w in c["words"]}
    assert covered == set(TABLE) - NOT_ON_GPUS, \
        f"no sweep case for {sorted(set(TABLE) - NOT_ON_GPUS - covered)}: give the word an example"


def test_every_case_runs_on_the_cpu(sweep):
    """The lines are real programs: each runs on the emulator without an error (else its kernels mean little)."""
    assert not sweep.lost_children, sweep.lost_children
    assert not {k: v for k, v in sweep.ran.items() if v}
    assert set(sweep.ran) == {c["id"] for c in sweep.cases}


def test_no_word_aborts_the_process_on_any_arch(sweep):
    assert not sweep.lost_children, sweep.lost_children
    assert {a for _, _, a in sweep.results} == set(ARCHS)
    bad = [f"{c} seg {s} on {a}: " + (r.get("crash") or f"LLVM: {r.get('llvm_error')}"
                                       if "exception" not in r else f"Python: {r['exception']}")
           for (c, s, a), r in sorted(sweep.results.items()) if {"crash", "llvm_error", "exception"} & set(r)]
    assert not bad, "\n".join(bad)


def test_refusals_are_forth_errors_exactly_where_the_arch_lacks_the_instruction(sweep):
    by_id = {c["id"]: c for c in sweep.cases}
    wrong = []
    # a line that uses bf16 tiles or cp.async must be refused on an older arch (by the segment that holds the
    # word: a line's segments of literals alone compile anywhere); no other segment may be refused
    refused_lines = {(c, r["line"], a) for (c, _, a), r in sweep.results.items() if "error" in r}
    for (case_id, seg, arch), r in sorted(sweep.results.items()):
        need = by_id[case_id]["lines"][r["line"]][1]  # bf16 tiles, cp.async, mma.sync: 80; stmatrix: 90
        should_refuse = refuses(need, arch)
        if "error" in r and not should_refuse:
            wrong.append(f"{case_id} seg {seg} on {arch}: refused: {r['error']}")
        elif should_refuse and (case_id, r["line"], arch) not in refused_lines:
            wrong.append(f"{case_id} seg {seg} on {arch}: compiled, but the arch lacks an instruction of the line "
                         f"(it needs sm_{need})")
        elif "error" in r:
            msg = r["error"]
            if not (r["word"] and r["word"] in msg and arch in msg and r["pos"]
                    and re.search(r": (use|compile|run) ", msg)):
                wrong.append(f"{case_id} seg {seg} on {arch}: the error names no word, arch, position or fix: "
                             f"{r['word']} {r['pos']} {msg}")
    assert not wrong, "\n".join(wrong)


def test_every_kernel_is_ptx_that_ptxas_accepts_for_its_arch(sweep):
    """Every arch this ptxas knows is assembled; the others (sm_101: CUDA 13's ptxas calls it sm_110) are only
    compiled by LLVM, and must be few."""
    assert set(sweep.unassembled) <= {"sm_101"}, sweep.unassembled
    assert not sweep.ptxas, "\n".join(e for errs in sweep.ptxas.values() for e in errs[:5])
    missing = [k for k, r in sorted(sweep.results.items()) if "ir" in r and not r.get("ptx_ok")]
    assert not missing, missing[:20]


def test_merged_modules_keep_kernels_apart():
    """merge_ir is what lets one LLVM and one ptxas run check many kernels: two modules with the same kernel
    and helper names become one module whose PTX, which ptxas accepts, has both entries."""
    from tileforth.backends.cuda.ptx import module_to_ptx
    from tileforth.core import Forth
    from tileforth.export.kernels import nvptx_compiler
    f, mods = Forth(), []
    f.on_segment = lambda nodes, tiles: mods.append(str(nvptx_compiler(f, "sm_80", checked=True).kernel(
        nodes, tiles, block=f.launch_shape[1]).module))
    f.eval("3e FSIN F. 1 2 + .")
    name = re.search(r"define ptx_kernel void @([\w.]+)", mods[0]).group(1)
    ptx = module_to_ptx(merge_ir([mods[0], mods[0]]), "sm_80", heavy=False)  # the same names twice
    assert ptxas_ok(ptx, "sm_80", "merged") is None
    assert sorted(re.findall(r"\.entry\s+(m[01]_[\w.]+)", ptx)) == [f"m0_{name}", f"m1_{name}"]


def test_a_child_that_dies_is_that_words_failure_and_the_sweep_goes_on(tmp_path):
    """The sweep's own check: where LLVM aborts (here, a child told to abort on `+`'s kernel, as LLVM's
    instruction selection does), the (word, arch) is a crash, and the words after it are still swept."""
    sw = Sweep(str(tmp_path), 2, only=["DUP", "+", "F+"], archs=["sm_80", "sm_90"],
               env={"TF_SWEEP_ABORT": "+|0"}).run()
    crashed = sorted((c, a) for (c, s, a), r in sw.results.items() if "crash" in r)
    assert crashed == [("+", "sm_80"), ("+", "sm_90")]
    assert all("rc -6" in sw.results[("+", 0, a)]["crash"] for a in ("sm_80", "sm_90"))  # SIGABRT
    assert all(r.get("ptx_ok") for (c, s, a), r in sw.results.items() if c != "+")
    assert {c for c, _, _ in sw.results} == {"DUP", "+", "F+"}


def test_see_ptx_for_an_arch_without_bf16_tensor_cores_is_an_error_at_the_word():
    """The user's view of a refusal: SEE-PTX for sm_75 (tileforth --arch sm_75) of a word loading bf16 tiles."""
    from tileforth.core import Forth, ForthError
    f = Forth()
    f.ptx_arch = "sm_75"
    f.eval("F32 TILE-ACC BF16 TILE-IN  16 16 BF16 MATRIX A")
    f.eval(": k ( -- ) A 16 TLOAD-A TDROP ;")
    with pytest.raises(ForthError) as err:
        f.eval("SEE-PTX k")
    e = err.value
    assert e.word == "TLOAD-A" and "sm_75" in e.message and "sm_80" in e.message and "F16 TILE-IN" in e.message
    assert e.pos is not None and "K" in f.dict  # the session is unchanged


@pytest.mark.parametrize("arch", [a for a in ARCHS if a.endswith("a")])
def test_arch_specific_targets_compile(arch):
    """sm_90a and sm_100a (arch-specific features) are targets like the others (their number was once read
    as an int, a ValueError)."""
    from tileforth.core import Forth
    from tileforth.export.kernels import word_ptx
    f = Forth()
    f.eval("VARIABLE v  : k ( -- ) 5 v ! ;")
    assert f".target {arch}" in word_ptx(f, "k", arch)


# ---- malformed modules: ForthErrors, in a child so an abort would be seen -----------------------------------------

MALFORMED = r'''
import json, sys
from llvmlite import ir
from tileforth.backends.cuda.ptx import module_to_ptx
from tileforth.core import ForthError
not_dominating = """define i32 @f(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  %x = add i32 1, 2
  br label %b
b:
  ret i32 %x
}
"""
m = ir.Module("bf16")
m.triple = "nvptx64-nvidia-cuda"
ld = ir.Function(m, ir.FunctionType(ir.LiteralStructType([ir.IntType(32)] * 4), [ir.PointerType(), ir.IntType(32)]),
                 "llvm.nvvm.wmma.m16n16k16.load.a.row.stride.bf16.p0")
k = ir.Function(m, ir.FunctionType(ir.VoidType(), [ir.PointerType()]), "k")
k.calling_convention = "ptx_kernel"
b = ir.IRBuilder(k.append_basic_block("entry"))
b.call(ld, [k.args[0], ir.Constant(ir.IntType(32), 16)])
b.ret_void()
out = {}
for name, text, arch in (("garbage", "this is not LLVM IR", "sm_80"), ("invalid", not_dominating, "sm_80"),
                         ("bf16 wmma", str(m), "sm_75")):
    try:
        module_to_ptx(text, arch)
        out[name] = "no error"
    except ForthError as exc:
        out[name] = str(exc)
    except Exception as exc:
        out[name] = "PYTHON " + type(exc).__name__ + ": " + str(exc)
print(json.dumps(out))
'''


def test_malformed_and_unsupported_modules_are_forth_errors_not_aborts():
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", MALFORMED], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, f"the process died (rc {proc.returncode}): {proc.stderr[-1500:]}"
    out = json.loads(proc.stdout.splitlines()[-1])
    assert "does not parse" in out["garbage"] and "--backend cpu" in out["garbage"], out
    assert "invalid" in out["invalid"] and "dominate" in out["invalid"], out
    assert "sm_80" in out["bf16 wmma"] and "sm_75" in out["bf16 wmma"] and "compile for" in out["bf16 wmma"], out


if __name__ == "__main__" and sys.argv[1:] == ["--child"]:
    req = json.loads(sys.stdin.read())
    if req["mode"] == "ir":
        _child_ir(req["todo"], req["archs"], req["outdir"])
    else:
        _child_ptx(req["arch"], req["items"], req["merged"], req["skip"], req["outdir"])
