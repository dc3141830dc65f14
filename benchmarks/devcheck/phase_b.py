"""Phase B of the device check: PyCUDA and tileforth's cuda backend. One step per process (a lost
context, or what torch does after a reset, then costs only that step):

    PYTHONPATH=benchmarks python -m devcheck.phase_b sticky_torch|sticky_cupy|sticky_alone|latency|big_launch|cases

Against the stand-in driver (TF_STANDIN) kernels do not run: the faulting line's fault is injected
(pycuda.driver.fault), another library's hold on the primary context is a second retain, and
thread counts are cut to what host memory holds; results that need a kernel fail there.

tileforth names this uses (keep them working): tileforth.backends.cuda.backend._reset_primary,
.module_to_ptx, .target_machine, CudaBackend._load/launch/get_state/cuda/arch/caps, Forth._snapshot,
Forth.last_timing ("ir", "read"), Forth.read_cell, Forth.dict, Forth.kernel.
"""
from __future__ import annotations

import inspect
import re
import statistics
import sys
import time
from contextlib import contextmanager

from devcheck.stepio import Report, first_line, main, standin

LOST = re.compile(r"context.*lost|lost.*context", re.I)


def _driver():
    import pycuda.driver as cuda
    return cuda


def _is_standin(cuda) -> bool:
    import pycuda
    return getattr(pycuda, "VERSION_STATUS", "") == "stand-in"


def _forth(**kw):
    from tileforth.core import Forth
    return Forth(backend="cuda", **kw)


def _close(*sessions) -> None:
    for f in sessions:
        try:
            f.backend.close()
        except Exception:  # noqa: BLE001
            pass


def _alive(f) -> bool:
    return _line(f, "2 3 + .") == "5 "


def _line(f, src: str) -> str:
    """What the line prints, or its error."""
    try:
        return f.eval(src)
    except Exception as exc:  # noqa: BLE001
        return first_line(exc)


# ---- sticky: a lost context, with and without another holder -----------------------------------------------

class _Holder:
    """Another library's hold on the primary context, taken before tileforth's: a torch tensor or a CuPy array."""

    def __init__(self, lib: str, cuda) -> None:
        self.lib, self.fake = lib, None
        if lib == "torch":
            import torch
            if not torch.cuda.is_available():
                raise RuntimeError("torch sees no GPU")
            self.mod = torch
            self.x = torch.ones(4, device="cuda")
            torch.cuda.synchronize()
        else:
            import cupy
            self.mod = cupy
            import numpy as np
            self.x = cupy.asarray(np.ones(4, np.float32))
            cupy.cuda.Device().synchronize()
        if _is_standin(cuda):  # the stand-in libraries share no context with the PyCUDA stand-in: hold it here
            cuda.init()
            self.fake = cuda.Device(0).retain_primary_context()

    def value(self) -> str:
        """The sum of its array: torch sums on the GPU; CuPy's array is copied back (cupy.asnumpy)."""
        if self.lib == "torch":
            return repr(float(self.x.sum()))
        return repr(float(self.mod.asnumpy(self.x).sum()))

    def afterwards(self) -> list[str]:
        """What the library does after the lost context: its old array, a new one, a synchronize."""
        out = []
        tries = [("its old array's sum", lambda: self.value())]
        if self.lib == "torch":
            t = self.mod
            tries += [("a new tensor's sum", lambda: repr(float(t.ones(4, device="cuda").sum()))),
                      ("torch.cuda.synchronize()", lambda: (t.cuda.synchronize(), "ok")[1])]
        else:
            cp = self.mod
            tries += [("a new array", lambda: repr(cp.asnumpy(cp.zeros(4, dtype=cp.float32)).tolist())),
                      ("Device().synchronize()", lambda: (cp.cuda.Device().synchronize(), "ok")[1])]
        for what, fn in tries:
            try:
                out.append(f"{what}: {fn()}")
            except Exception as exc:  # noqa: BLE001
                out.append(f"{what}: {first_line(exc)}")
        return out

    def release(self) -> None:
        if self.fake is not None:
            self.fake.detach()
            self.fake = None


def _sticky(rep: Report, lib: str | None) -> None:
    cuda = _driver()
    import tileforth.backends.cuda.backend as B
    from tileforth.core import ForthError
    calls: list[bool] = []
    real = B._reset_primary

    def spy(drv, ordinal: int) -> bool:
        ok = real(drv, ordinal)
        calls.append(ok)
        return ok
    B._reset_primary = spy  # records that the reset for every holder ran, and what it returned
    holder = None
    if lib is not None:
        try:
            holder = _Holder(lib, cuda)
        except Exception as exc:  # noqa: BLE001
            rep.skip(f"{lib} cannot hold the context: {first_line(exc)}")
            return
        rep.note(f"{lib} holds the primary context ({holder.value()})"
                 + (" [stand-in: the hold is a second retain]" if holder.fake is not None else ""))
    f = _forth(checked=False)
    sessions = [f]
    try:
        f.eval("VARIABLE keep")
        addr = f.dict["KEEP"].value
        f.eval("42 keep !")
        host = f.read_cell(addr)  # the host's copy is now 42
        f.eval("99 keep !")  # a kernel's write the host never reads: lost with the context
        if _is_standin(cuda):
            cuda.fault(700)
        t0 = time.perf_counter()
        try:
            f.eval("-8 @ .")
            err = None
        except ForthError as exc:
            err = str(exc)
        secs = time.perf_counter() - t0
        lost = err is not None and LOST.search(err) is not None
        path = ("the reset for every holder (_reset_primary returned True)" if calls == [True] else
                "the plain release and retain" if not calls else f"_reset_primary returned {calls}")
        rep.note(f"-8 @ . : {'a ForthError saying the context was lost' if lost else repr(err)} after {secs:.2f} s, "
                 f"by {path}")
        says_others = err is not None and re.search(r"memory of the other libraries .*was lost", err) is not None
        rep.note(f"the message {'says' if says_others else 'does not say'} that other libraries' GPU memory was lost")
        nxt = _line(f, "2 3 + .")
        try:
            back = f.read_cell(addr)
        except Exception as exc:  # noqa: BLE001
            back = first_line(exc)
        dev = _line(f, "keep @ .")
        rep.note(f"next line `2 3 + .` prints {nxt!r}; keep holds {back} on the host and `keep @ .` prints {dev!r} "
                 f"(the host's copy was {host}; the 99 it never read is lost by design)")
        g = _forth()
        sessions.append(g)
        fresh = _line(g, "2 3 + .")
        rep.note(f"a new session: `2 3 + .` prints {fresh!r}")
        if holder is not None:
            rep.note(f"{lib} afterwards: " + "; ".join(holder.afterwards()))
        want_path = calls == [True] if lib is not None else calls == []
        rep.verdict(lost and want_path and says_others == (lib is not None) and nxt == "5 " and back == 42
                    and dev == "42 " and fresh == "5 ")
        if err:
            rep.row("message: " + err)
    finally:
        _close(*sessions)
        if holder is not None:
            holder.release()
        B._reset_primary = real


def sticky_torch(rep: Report) -> None:
    """A lost context while a torch tensor holds the primary context."""
    _sticky(rep, "torch")


def sticky_cupy(rep: Report) -> None:
    """A lost context while a CuPy array holds the primary context."""
    _sticky(rep, "cupy")


def sticky_alone(rep: Report) -> None:
    """A lost context with no other holder: the plain release-and-retain path."""
    _sticky(rep, None)


# ---- timing the backend's parts -------------------------------------------------------------------------------

class Parts:
    """Seconds spent in the backend's parts while installed, per part; and each copy with the parts it
    ran inside (a copy inside `launch` is the launch's, one inside `snapshot` the snapshot's)."""

    def __init__(self) -> None:
        self.secs: dict[str, float] = {}
        self.copies: list[tuple[str, int, float, tuple]] = []  # (direction, bytes, seconds, enclosing parts)
        self.stack: list[str] = []

    def take(self) -> tuple[dict[str, float], list]:
        out, copies = self.secs, self.copies
        self.secs, self.copies = {}, []
        return out, copies


def _timed(parts: Parts, part: str, fn, copy: str | None = None):
    def wrapper(*args, **kw):
        t0 = time.perf_counter()
        parts.stack.append(part)
        try:
            return fn(*args, **kw)
        finally:
            parts.stack.pop()
            dt = time.perf_counter() - t0
            parts.secs[part] = parts.secs.get(part, 0.0) + dt
            if copy is not None:
                data = args[1] if copy == "htod" else args[0]
                parts.copies.append((copy, int(getattr(data, "nbytes", 0)), dt, tuple(parts.stack)))
    return wrapper


def _copied(copies: list, direction: str, inside: str, nbytes: int | None = None) -> float:
    return sum(s for d, b, s, where in copies if d == direction and inside in where and nbytes in (None, b))


@contextmanager
def instrumented(f):
    """Time, in f's cuda backend: IR passes and NVPTX emission (llvmlite), module_to_ptx, the JIT
    (module_from_buffer), _load, copies, the launch and its synchronize, and the snapshot."""
    import llvmlite.binding as llvm

    import tileforth.backends.cuda.backend as B
    cuda, parts, undo = f.backend.cuda, Parts(), []

    def patch(owner, name: str, part: str, copy: str | None = None, static: bool = False) -> None:
        old = inspect.getattr_static(owner, name)
        fn = getattr(owner, name)
        new = _timed(parts, part, fn, copy)
        own = name in vars(owner) if isinstance(owner, (type, type(sys))) else False
        try:
            setattr(owner, name, staticmethod(new) if static else new)
            undo.append((owner, name, old if own else None))
        except (AttributeError, TypeError):
            print(f"  ({getattr(owner, '__name__', type(owner).__name__)}.{name} cannot be wrapped: {part} is not "
                  "split out)", flush=True)
    passes = type(llvm.create_pass_builder(B.target_machine(f.backend.arch, 1),
                                           llvm.create_pipeline_tuning_options(1)).getModulePassManager())
    patch(passes, "run", "ir passes")
    patch(llvm.TargetMachine, "emit_assembly", "nvptx emit")
    patch(B, "module_to_ptx", "module_to_ptx")
    patch(cuda, "module_from_buffer", "jit")
    patch(f.backend, "_load", "load")
    patch(cuda, "memcpy_htod", "htod", copy="htod")
    patch(cuda, "memcpy_dtoh", "dtoh", copy="dtoh")
    patch(cuda.Function, "prepared_call", "launch call")
    patch(cuda.Context, "synchronize", "synchronize", static=True)
    patch(f.backend, "launch", "launch")
    patch(f, "_snapshot", "snapshot")
    try:
        yield parts
    finally:
        for owner, name, old in reversed(undo):
            if old is None:
                delattr(owner, name)  # the wrapper goes, and what was inherited shows again
            else:
                setattr(owner, name, old)


def _ms(xs) -> str:
    return f"{statistics.median(xs) * 1e3:7.2f}" if xs else "      -"


NEW_LINES = ["{i} 3 + .", "{i} DUP * 7 MOD .", "{i} 0 DO I + LOOP .", "{i} 2 1 ROT + * NEGATE .",
             "TID-X {i} + DROP", "{i} 5 MAX 3 MIN .", "{i}e 2e F* F.", "{i} 1 LSHIFT 2/ .",
             "{i} 10 /MOD + .", "{i} 4 < IF 1 ELSE 2 THEN .", "{i} ABS 1+ 1- .", "{i} 3 2 */ .",
             "{i} 0 ?DO I LOOP DEPTH .", "{i} 1 AND 0= .", "{i} S>D D>S ."]


def latency(rep: Report) -> None:
    """Where a cuda line's time goes: 15 new lines, then the same 30 times from the kernel cache."""
    f = _forth()
    try:
        f.eval("2 3 + DROP")  # the first launch's one-off costs (module loading, the driver) out of the way
        lines = [ln.format(i=i + 11) for i, ln in enumerate(NEW_LINES)]
        cols = ["eval", "snapshot", "ir build", "ir passes", "nvptx emit", "jit", "load other", "launch",
                "read-back"]
        rows: dict[str, dict[str, list[float]]] = {"new": {c: [] for c in cols}, "cached": {c: [] for c in cols}}
        with instrumented(f) as parts:
            for kind, todo in (("new", lines), ("cached", lines + lines)):
                for line in todo:
                    parts.take()
                    t0 = time.perf_counter()
                    f.eval(line)
                    total = time.perf_counter() - t0
                    p, copies = parts.take()
                    timing = getattr(f, "last_timing", {}) or {}
                    r = rows[kind]
                    r["eval"].append(total)
                    r["snapshot"].append(p.get("snapshot", 0.0))
                    r["ir build"].append(timing.get("ir", 0.0))
                    r["ir passes"].append(p.get("ir passes", 0.0))
                    r["nvptx emit"].append(p.get("nvptx emit", 0.0))
                    r["jit"].append(p.get("jit", 0.0))
                    r["load other"].append(max(p.get("load", 0.0) - p.get("jit", 0.0), 0.0))
                    r["launch"].append(p.get("launch call", 0.0) + p.get("synchronize", 0.0))
                    r["read-back"].append(timing.get("read", 0.0) + _copied(copies, "dtoh", "launch"))
        rep.row("medians, ms:  " + " ".join(f"{c:>10}" for c in cols))
        for kind in ("new", "cached"):
            rep.row(f"{kind:6} x{len(rows[kind]['eval']):<2}    " + " ".join(f"{_ms(rows[kind][c]):>10}" for c in cols))
        new, cached = rows["new"], rows["cached"]
        rep.note(f"a new line {_ms(new['eval']).strip()} ms (IR build {_ms(new['ir build']).strip()}, passes "
                 f"{_ms(new['ir passes']).strip()}, emit {_ms(new['nvptx emit']).strip()}, JIT "
                 f"{_ms(new['jit']).strip()}, launch {_ms(new['launch']).strip()}); a cached line "
                 f"{_ms(cached['eval']).strip()} ms")
        _tiers(rep, f, lines, new["eval"])
    finally:
        _close(f)


def _tiers(rep: Report, f, lines: list[str], evals: list[float]) -> None:
    """Issue 27's cuda rows on the compile tiers (tileforth/core/compile/tiers.py): new straight and
    new loop lines (tier 0: the driver JIT at level 1) against their targets, and a loop line's
    move to the full tier (its full PTX made on a thread at its first reuse, loaded at a later launch)."""
    be = f.backend
    if not hasattr(be, "compiled_tiers"):
        rep.note("compile tiers: not in this tileforth (unmeasured)")
        return
    loops = [t for line, t in zip(lines, evals) if " DO " in line or "?DO" in line]
    straight = [t for line, t in zip(lines, evals) if not (" DO " in line or "?DO" in line)]
    for name, xs, target in (("new straight line", straight, 12.0), ("new loop line", loops, 30.0)):
        if xs:
            med = statistics.median(xs) * 1e3
            verdict = "unmeasured: no GPU" if standin() else ("meets" if med <= target else "MISSES")
            rep.note(f"{name} {med:.2f} ms (target <= {target:g} ms: {verdict})")
    line = "0 5000 0 DO I 3 * XOR LOOP ."
    spent = []
    for _ in range(3):  # compile, reuse (the full PTX starts), once more
        t0 = time.perf_counter()
        f.eval(line)
        spent.append(time.perf_counter() - t0)
    be.wait_recompiles(60)
    for _ in range(3):  # the swap (the full tier's JIT), then full-tier runs
        t0 = time.perf_counter()
        f.eval(line)
        spent.append(time.perf_counter() - t0)
    rep.row("loop line's launches, ms: " + " ".join(f"{t * 1e3:.2f}" for t in spent) + " (1st: tier-0 compile; "
            "4th: the full tier loaded)")
    rep.note(f"kernels at tier 0 {be.compiled_tiers.get(0, 0)}, at full {be.compiled_tiers.get(2, 0)}, "
             f"moved to full {be.recompiled}")


def big_launch(rep: Report) -> None:
    """A trivial line at 135,168 and 1,048,576 threads: snapshot, thread-record upload, launch, read-back."""
    from tileforth.core.compile import layout as L
    shapes = [(132, 1024), (1024, 1024)] if not standin() else [(8, 1024), (64, 1024)]
    if standin():
        rep.note("[stand-in: 8,192 and 65,536 threads, what host memory holds]")
    f = _forth()
    try:
        rep.row(f"{'threads':>9}  {'reshape':>8}  {'1st line':>8}  {'line':>8}  {'snapshot':>8}  {'thr upload':>10}  "
                f"{'launch':>8}  {'read-back':>9}  {'get_state':>9}  (ms)")
        for grid, block in shapes:
            t0 = time.perf_counter()
            f.eval(f"{grid} 1 1 GRID {block} 1 1 THREADS")
            reshape = time.perf_counter() - t0
            n = grid * block
            thr_bytes = n * L.THR_SLOTS * 8
            t0 = time.perf_counter()
            f.eval("GLOBAL-ID DROP")
            first = time.perf_counter() - t0
            with instrumented(f) as parts:
                t0 = time.perf_counter()
                f.eval("GLOBAL-ID DROP")
                line = time.perf_counter() - t0
                p, copies = parts.take()
            upload = _copied(copies, "htod", "launch", thr_bytes)
            readback = _copied(copies, "dtoh", "launch")
            t0 = time.perf_counter()
            f.backend.get_state()
            whole = time.perf_counter() - t0
            rep.row(f"{n:>9}  {reshape * 1e3:8.1f}  {first * 1e3:8.1f}  {line * 1e3:8.1f}  "
                    f"{p.get('snapshot', 0) * 1e3:8.1f}  {upload * 1e3:10.1f}  "
                    f"{(p.get('launch call', 0) + p.get('synchronize', 0)) * 1e3:8.1f}  {readback * 1e3:9.1f}  "
                    f"{whole * 1e3:9.1f}")
            rep.note(f"{n} threads: a cached trivial line {line * 1e3:.0f} ms (snapshot {p.get('snapshot', 0) * 1e3:.0f}, "
                     f"thread records {upload * 1e3:.0f})")
    finally:
        _close(f)


# ---- cases the GPU tests do not cover ----------------------------------------------------------------------

def _interop(rep: Report) -> bool:
    """f.kernel(word) on a CuPy array and a torch tensor (memory of the primary context)."""
    f = _forth()
    ok, tried = True, 0
    try:
        f.eval(": ids ( addr -- ) GLOBAL-ID CELLS + GLOBAL-ID SWAP ! ;")
        k = f.kernel("ids")
        for lib in ("cupy", "torch"):
            try:
                m = __import__(lib)
                x = m.zeros(32, dtype=m.int64) if lib == "cupy" else m.zeros(32, dtype=m.int64, device="cuda")
            except Exception as exc:  # noqa: BLE001
                rep.note(f"interop {lib}: not usable ({first_line(exc)})")
                continue
            tried += 1
            try:
                k(x)
                got = (x.get() if lib == "cupy" else x.cpu().numpy()).tolist()
                good = got == list(range(32))
                rep.note(f"interop {lib}: {'correct' if good else 'WRONG ' + str(got[:6])}")
                ok &= good
            except Exception as exc:  # noqa: BLE001
                rep.note(f"interop {lib}: {first_line(exc)}")
                ok = False
    finally:
        _close(f)
    return ok and tried > 0


def _alignment(rep: Report) -> bool:
    """Misaligned scalar and tile accesses are ForthErrors naming the alignment, and the session goes on."""
    from tileforth.core import ForthError
    f = _forth()
    ok = True
    try:
        f.eval("16 I64 ARRAY xs  16 16 F16 MATRIX A")
        for line, match in (("xs 1+ @ .", "misaligned"), ("A 2 + 16 TLOAD-A TDROP", "aligned")):
            try:
                f.eval(line)
                rep.note(f"{line!r}: no error")
                ok = False
            except ForthError as exc:
                good = match in str(exc).lower()
                rep.note(f"{line!r}: {'ForthError' if good else 'ForthError without ' + repr(match)}")
                ok &= good
            ok &= _alive(f)
    finally:
        _close(f)
    return ok


def _limits(rep: Report) -> bool:
    """Recursion just inside the backend's limit works and just past it is a ForthError naming recursion;
    demos/gemm.fth's gemm2 (56 registers) at 1024 threads runs or is a ForthError naming THREADS."""
    from pathlib import Path

    from tileforth.core import ForthError
    f = _forth()
    ok = True
    try:
        lim = f.backend.caps.recursion_max
        f.eval("1 1 1 GRID 32 1 1 THREADS : down ( n -- n ) DUP IF 1- RECURSE THEN ;")
        for depth in (lim - 2, lim + 1):
            try:
                f.eval(f"{depth} down DROP")
                got = "runs"
            except ForthError as exc:
                got = "ForthError naming recursion" if "recursion" in str(exc).lower() else first_line(exc)
            rep.note(f"recursion {depth} deep (limit {lim}): {got}")
            ok &= got == ("runs" if depth < lim else "ForthError naming recursion")
        try:
            f.eval((Path(__file__).resolve().parents[2] / "demos" / "gemm.fth").read_text(), source="gemm.fth")
            f.eval("NN 32 / MM 32 / 1 GRID 1024 1 1 THREADS gemm2")
            got = "runs"
        except ForthError as exc:
            got = "ForthError naming THREADS" if "THREADS" in str(exc) else first_line(exc)
        rep.note(f"gemm2 at 1024 threads: {got}")
        ok &= got in ("runs", "ForthError naming THREADS") and _alive(f)
    finally:
        _close(f)
    return ok


def _loop_cost(rep: Report) -> None:
    """The cost of one iteration of a REPL loop on one warp, and of the launch-wide step budget."""
    f = _forth()
    try:
        f.eval("1 1 1 GRID 32 1 1 THREADS  0 10 0 DO 1+ LOOP DROP")
        n = 200000 if not standin() else 2000
        t0 = time.perf_counter()
        f.eval(f"0 {n} 0 DO 1+ LOOP DROP")
        rep.note(f"loop: {(time.perf_counter() - t0) / n * 1e9:.0f} ns per DO LOOP iteration on one warp")
    finally:
        _close(f)


def cases(rep: Report) -> None:
    """REPL lines on cuda that pytest -m gpu does not cover: interop, alignment errors, limits, a loop's cost."""
    ok = _interop(rep)
    ok &= _alignment(rep)
    ok &= _limits(rep)
    _loop_cost(rep)
    rep.verdict(ok)


STEPS = {"sticky_torch": sticky_torch, "sticky_cupy": sticky_cupy, "sticky_alone": sticky_alone,
         "latency": latency, "big_launch": big_launch, "cases": cases}

if __name__ == "__main__":
    sys.exit(main(STEPS))
