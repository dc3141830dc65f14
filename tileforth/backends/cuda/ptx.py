"""PTX from the per-thread IR: llvmlite's NVPTX target machine, libdevice,
and ptxas (from the nvidia-cuda-nvcc wheel) to validate and measure it.

It knows modules, not sessions: a module's IR to PTX (module_to_ptx, with
libdevice linked in when the module calls it), PTX to a cubin and its
resources (assemble, ptxas, parse_ptxas_log: also the driver JIT's log), the
architectures this LLVM targets (ARCHS, device_arch) and where libdevice and
ptxas are. A session's words and kernel files become PTX in
tileforth/export/kernels.py, which builds on these.

Two cost levels (anchors.md: NVPTX codegen at opt 3 grows superlinearly with
kernel length): `heavy=False` is the REPL's cheap tier (core/compile/tiers.py:
O1 passes, which keep the PTX short for the driver's JIT, and NVPTX code
generation at CHEAP_CODEGEN_OPT); exported kernels and benchmarks get the full
O3 pipeline and opt-3 code generation.
"""
from __future__ import annotations

import functools
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import llvmlite.binding as llvm
from tileforth.core.errors import ForthError
from tileforth.core.heldsigint import guard_llvm_lock, link_in
from tileforth.core.records import record, replace

from . import hopper
from .target import NvptxTarget

guard_llvm_lock()  # (a Ctrl-C inside llvmlite's lock: core/heldsigint.py)

# every architecture LLVM 22's NVPTX back end knows from Turing on (wmma needs sm_70+, bf16 sm_80+);
# the cuda backend compiles for the device's exact sm_XX, never a stand-in for it
ARCHS = ("sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_101",
         "sm_103", "sm_110", "sm_120", "sm_121")


def device_arch(major: int, minor: int) -> str:
    """The PTX target for a device of compute capability major.minor, exactly;
    a ForthError when this LLVM cannot generate code for it."""
    arch = f"sm_{major}{minor}"
    if arch not in ARCHS:
        raise ForthError(f"this GPU is {arch}, which the NVPTX back end of this llvmlite cannot target "
                         f"({', '.join(ARCHS)}): use --backend cpu, or a newer llvmlite")
    return arch


def specific_arch(arch: str) -> str:
    """A device's exact architecture as its arch-specific target when this LLVM has one (sm_90 -> sm_90a):
    code for it loads only on that compute capability, which is the device's, and may use the
    instructions only it has (setmaxnreg, wgmma). The REPL compiles for it; exports keep their --arch."""
    return arch + "a" if arch + "a" in ARCHS else arch


@functools.cache
def _init() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


@functools.cache
def check_arch(arch: str) -> None:
    if arch not in ARCHS:
        raise ForthError(f"unknown GPU architecture {arch}: use one of {', '.join(ARCHS)}")


def target_machine(arch: str, opt: int, features: str = "") -> llvm.TargetMachine:
    _init()
    check_arch(arch)
    return llvm.Target.from_triple(NvptxTarget.triple).create_target_machine(cpu=arch, opt=opt, features=features)


def nvidia_root() -> Path | None:
    try:
        import nvidia
    except ImportError:
        return None
    for base in nvidia.__path__:
        for sub in ("cu13", "cuda_nvcc"):
            if (Path(base) / sub).is_dir():
                return Path(base) / sub
    return None


def libdevice_path() -> Path | None:
    root = nvidia_root()
    hits = sorted(root.glob("nvvm/libdevice/libdevice*.bc")) if root else []
    if hits:
        return hits[0]
    fallback = Path("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc")
    return fallback if fallback.exists() else None


def ptxas_path() -> str | None:
    root = nvidia_root()
    if root and (root / "bin" / "ptxas").exists():
        return str(root / "bin" / "ptxas")
    return shutil.which("ptxas")


@functools.cache
def _libdevice_bitcode() -> bytes:
    path = libdevice_path()
    if path is None:
        raise ForthError("FEXP FLN FSIN FCOS F** ... on the GPU need libdevice: pip install 'tileforth[cuda]' "
                         "(it brings the nvidia-cuda-nvcc wheel)")
    return path.read_bytes()


def arch_sm(arch: str) -> int:
    """sm_90a -> 90: the architecture's number, without its arch-specific suffix."""
    m = re.fullmatch(r"sm_(\d+)a?", arch)
    if m is None:
        raise ForthError(f"unknown GPU architecture {arch}: use one of {', '.join(ARCHS)}")
    return int(m.group(1))


# the intrinsics whose instructions not every architecture has, with the first one that has them
# (../shared/reference/tensor_cores.md: wmma f16 from sm_70; bf16 from sm_80, where on sm_75 LLVM's
# instruction selection aborts the process with "Cannot select"); the code generator checks them at the
# word (tilegen, with the word's position), this is the last check before LLVM generates code
# Hopper's asynchrony (core/compile/mbarrier.py, tma.py): on sm_90 LLVM 22 emits PTX 7.8 by default and aborts on
# fence.mbarrier_init (fast_gemm.md §3), so a module calling these is generated with PTX 8.0 (ptx_features)
HOPPER_INTRINSICS = re.compile(r"llvm\.nvvm\.(mbarrier\.|fence\.mbarrier_init|fence\.proxy\.async|elect\.sync|"
                               r"cp\.async\.bulk\.|setmaxnreg\.)")
PTX80_ARCHS = ("sm_90", "sm_90a")


def ptx_features(mod: llvm.ModuleRef, arch: str) -> str:
    """"+ptx80" for a module that calls Hopper intrinsics on an arch whose default PTX is older."""
    if arch in PTX80_ARCHS and any(HOPPER_INTRINSICS.match(fn.name) for fn in mod.functions):
        return "+ptx80"
    return ""


INTRINSIC_MIN_SM: tuple[tuple[re.Pattern[str], int, str], ...] = (
    (re.compile(r"llvm\.nvvm\.wmma\..*\bbf16\b"), 80, "bf16 tiles (BF16 TILE-IN)"),
    (re.compile(r"llvm\.nvvm\.wmma\."), 70, "tiles (tensor cores)"),
    (HOPPER_INTRINSICS, 90, "Hopper's mbarriers, TMA and elect.sync (MBAR-*, TMA-*, ELECT, FENCE-ASYNC)"),
    (re.compile(r"llvm\.nvvm\.(shfl|vote)\.sync\.|llvm\.nvvm\.bar\.warp\.sync|llvm\.nvvm\.activemask"), 70,
     "warp words (shuffles, votes, SYNCWARP)"),
)


def check_intrinsics(mod: llvm.ModuleRef, arch: str) -> None:
    """A ForthError, before any code is generated, when the module calls an intrinsic that `arch` lacks
    (LLVM would abort the process in instruction selection)."""
    sm = arch_sm(arch)
    for fn in mod.functions:
        if fn.name.startswith("llvm.nvvm.wgmma.") and arch != "sm_90a":  # wgmma: the arch-specific Hopper only
            raise ForthError(f"warpgroup MMA (WGMMA, WGMMA-WAIT) needs sm_90a, but this kernel is built for {arch} "
                             f"(it calls {fn.name}): compile with --arch sm_90a, or run it with --backend cpu")
        for pattern, need, what in INTRINSIC_MIN_SM:
            if pattern.match(fn.name):
                if sm < need:
                    raise ForthError(f"{what} need sm_{need} or newer, but this kernel is built for {arch} "
                                     f"(it calls {fn.name}): compile for sm_{need} or newer (--arch), or run it "
                                     "with --backend cpu")
                break


def _llvm_refused(what: str, arch: str, exc: Exception) -> ForthError:
    first = " ".join(str(exc).split())[:300] or type(exc).__name__
    return ForthError(f"internal error: LLVM refused the kernel module for {arch} ({what}: {first}); the session "
                      "is unchanged. Please report it with the line that caused it; meanwhile run the line with "
                      "--backend cpu")


# NVPTX code generation of the cheap tier. Not opt 0, though it emits 2 ms faster (fast_gemm.md §4): at opt 0
# NVPTX skips its address-space inference, so every array access becomes a generic ld/st instead of
# ld.global/st.global (tests/test_nvptx_codegen.py), in exactly the straight lines that run on many threads.
CHEAP_CODEGEN_OPT = 1


def module_to_ptx(module: llvm.ModuleRef | str, arch: str = "sm_80", heavy: bool = True) -> str:
    """Optimise a module (or its IR text) for the GPU and emit PTX; the module is used up.
    Everything LLVM could refuse is checked before code generation, which would abort the process:
    a malformed or invalid module (RuntimeError from parsing, linking, verifying) and an intrinsic
    the architecture lacks (check_intrinsics) are ForthErrors."""
    check_arch(arch)  # an unknown arch: a ForthError first
    try:
        mod = llvm.parse_assembly(module) if isinstance(module, str) else module
    except RuntimeError as exc:
        raise _llvm_refused("the IR does not parse", arch, exc) from None
    try:
        if any(f.name.startswith("__nv_") for f in mod.functions):
            link_in(mod, llvm.parse_bitcode(_libdevice_bitcode()))
            for f in mod.functions:
                if f.name.startswith("__nv_") or f.name.startswith("__internal"):
                    f.linkage = "internal"
        mod.verify()
    except RuntimeError as exc:
        raise _llvm_refused("the module is invalid", arch, exc) from None
    check_intrinsics(mod, arch)
    tm = target_machine(arch, 3 if heavy else CHEAP_CODEGEN_OPT, ptx_features(mod, arch))
    pto = llvm.create_pipeline_tuning_options(speed_level=3 if heavy else 1)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    ptx = tm.emit_assembly(mod)
    hopper.check_inlined(ptx)  # a wgmma in a called function is serialised by ptxas (C7510)
    return ptx


# what a line's kernel is called in its PTX module (each module holds one kernel, so one name serves all)
LINE_ENTRY = "tf_line"
_WORD_FN = re.compile(r"w\d+_(\w*)")  # a word's function: w<uid>_<name> (Colon.ir_name)


def canonical_names(mod: llvm.ModuleRef, entry: str) -> str:
    """Name a line's kernel module's functions by what it holds, not by the session's counters (the
    kernel's k<N>, a word's uid), so the same line gives the same PTX in every session (the disk cache
    of cubins is keyed by it, cubincache.py): the entry becomes LINE_ENTRY, the words' functions
    word<i>_<name> in the module's order. Returns the entry's new name."""
    i = 0
    for fn in mod.functions:
        if fn.name == entry:
            fn.name = LINE_ENTRY
        elif not fn.is_declaration and (m := _WORD_FN.fullmatch(fn.name)):
            fn.name = f"word{i}_{m.group(1)}"
            i += 1
    return LINE_ENTRY


@record(frozen=True)
class PtxasInfo:
    function: str
    registers: int
    stack_frame: int
    spill_stores: int
    spill_loads: int
    shared: int = 0  # bytes of static shared memory (`\\! shared`, SHARED: in an export)

    def summary(self) -> str:
        """One line: `saxpy: 12 registers, 0 bytes stack frame, 0+0 bytes spilled (stores+loads), 0 bytes shared`."""
        return (f"{self.function}: {self.registers} registers, {self.stack_frame} bytes stack frame, "
                f"{self.spill_stores}+{self.spill_loads} bytes spilled (stores+loads), {self.shared} bytes shared "
                "memory")


def assemble(ptx: str, arch: str = "sm_80") -> tuple[bytes, dict[str, PtxasInfo]]:
    """ptxas -v: the cubin for `arch`, and each function's resources.
    Raises ForthError when ptxas is missing or rejects the PTX."""
    cubin, log = assemble_logged(ptx, arch)
    return cubin, parse_ptxas_log(log)


def assemble_logged(ptx: str, arch: str, opt: int | None = None) -> tuple[bytes, str]:
    """ptxas -v (at -O`opt`, ptxas's default 3 when None): the cubin and ptxas's verbose log, the text the
    driver's JIT gives as its info log. Raises ForthError when ptxas is missing or rejects the PTX."""
    exe = ptxas_path()
    if exe is None:
        raise ForthError("ptxas not found: pip install 'tileforth[cuda]' (it brings the nvidia-cuda-nvcc wheel), "
                         "or put the CUDA toolkit's ptxas on PATH")
    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d) / "k.ptx", Path(d) / "k.cubin"
        src.write_text(ptx)
        level = [] if opt is None else [f"-O{opt}"]
        proc = subprocess.run([exe, f"-arch={arch}", *level, "-v", str(src), "-o", str(out)],
                              capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise ForthError(f"ptxas rejected the PTX: {proc.stderr.strip()}")
        return out.read_bytes(), proc.stdout + proc.stderr


@functools.cache
def ptxas_version() -> str | None:
    """ptxas --version's last line (`Build cuda_13.5.r13.5/compiler.39125733_0`), or None without ptxas."""
    exe = ptxas_path()
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = proc.stdout.strip().splitlines()
    return lines[-1] if proc.returncode == 0 and lines else None


def ptxas(ptx: str, arch: str = "sm_80") -> dict[str, PtxasInfo]:
    """Assemble PTX with ptxas -v; returns per-function resource usage.
    Raises ForthError with ptxas's message when the PTX is rejected."""
    return assemble(ptx, arch)[1]


def parse_ptxas_log(log: str) -> dict[str, PtxasInfo]:
    """Per-function resources from ptxas -v's text (also the driver JIT's
    verbose log): every function with its stack frame and spills; registers
    and shared memory for entries (0 for a .func, which ptxas does not count on its own)."""
    out: dict[str, PtxasInfo] = {}
    current = None
    for line in log.splitlines():
        m = re.search(r"(?:Compiling entry function|Function properties for)\s+'?([\w$.]+)'?", line)
        if m:
            current = m.group(1)
            out.setdefault(current, PtxasInfo(current, 0, 0, 0, 0))
            continue
        m = re.search(r"(\d+) bytes stack frame(?:, (\d+) bytes spill stores, (\d+) bytes spill loads)?", line)
        if m and current:
            frame, stores, loads = (int(x or 0) for x in m.groups())
            out[current] = replace(out[current], stack_frame=frame, spill_stores=stores, spill_loads=loads)
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            out[current] = replace(out[current], registers=int(m.group(1)))
        m = re.search(r"(\d+) bytes smem", line)
        if m and current:
            out[current] = replace(out[current], shared=int(m.group(1)))
    return out


def ptxas_note(ptx: str, arch: str) -> str:
    """A kernel's resources as ptxas -v reports them, as one `// ...` line (SEE-PTX), or why there are none."""
    if ptxas_path() is None:
        return "// ptxas not found (pip install 'tileforth[cuda]'): no register and spill report"
    try:
        info = assemble(ptx, arch)[1]
    except ForthError as exc:
        return "// " + str(exc).splitlines()[0]
    except Exception as exc:  # noqa: BLE001 - ptxas did not run (timeout, OS error): the PTX is still shown
        return f"// ptxas could not run: {exc}"
    entry = re.search(r"\.entry\s+([\w$]+)", ptx)
    item = info.get(entry.group(1)) if entry else None
    return f"// ptxas -v ({arch}): {item.summary()}" if item else "// ptxas -v reported no entry"
