"""SASS for tests: assemble PTX (ptxas) or compile CUDA C (nvcc) to a cubin,
disassemble it (nvdisasm or cuobjdump), and look at the instructions.

The tools come from the nvidia wheels (nvidia-cuda-nvcc, nvidia-cuda-cuobjdump,
nvidia-cuda-nvdisasm: `<site-packages>/nvidia/cu13/bin`), else from PATH. A
missing tool skips the calling test (pytest.skip) rather than failing it.

    cubin(ptx, arch) -> bytes                      ptxas
    nvcc_cubin(cuda_c, arch) -> bytes              nvcc -cubin -O3
    sass(cubin_bytes) -> {function: [Instr]}       nvdisasm -c, or cuobjdump -sass
    inner_loop(instrs) -> [Instr]                  the innermost loop's body
    opcodes(instrs) -> [str]                       base opcodes (LDS, STS, LDG, FFMA, BAR, ...)
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tileforth.backends.cuda.ptx import nvidia_root

TOOLS = ("ptxas", "nvcc", "cuobjdump", "nvdisasm")
_WHEEL = {"ptxas": "nvidia-cuda-nvcc", "nvcc": "nvidia-cuda-nvcc",
          "cuobjdump": "nvidia-cuda-cuobjdump", "nvdisasm": "nvidia-cuda-nvdisasm"}


def _wheel_bins() -> list[Path]:
    """The bin folders of the nvidia wheels: cu13/bin (CUDA 13 wheels share it),
    or one folder per wheel (CUDA 12: cuda_nvcc/bin, cuda_cuobjdump/bin, ...)."""
    try:
        import nvidia
    except ImportError:
        return []
    subs = ("cu13", "cuda_nvcc", "cuda_cuobjdump", "cuda_nvdisasm")
    return [Path(base) / sub / "bin" for base in nvidia.__path__ for sub in subs]


def tool_path(name: str) -> str | None:
    """The path of a CUDA tool: the nvidia wheels' bin folders first, then PATH; None when absent."""
    root = nvidia_root()
    bins = ([root / "bin"] if root is not None else []) + _wheel_bins()
    for folder in bins:
        if (folder / name).is_file():
            return str(folder / name)
    return shutil.which(name)


def require(name: str) -> str:
    """The path of a CUDA tool, or pytest.skip naming the wheel that provides it."""
    path = tool_path(name)
    if path is None:
        pytest.skip(f"{name} not found: pip install {_WHEEL.get(name, 'the CUDA toolkit')} (or put it on PATH)")
    return path


def _run(args: list[str], what: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed ({' '.join(args)}):\n{proc.stderr.strip() or proc.stdout.strip()}")
    return proc


# ---- producing cubins ----------------------------------------------------------------------------
def cubin(ptx: str, arch: str = "sm_90") -> bytes:
    """The cubin (ELF bytes) that `ptxas -arch=ARCH` makes of the PTX text."""
    exe = require("ptxas")
    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d) / "k.ptx", Path(d) / "k.cubin"
        src.write_text(ptx)
        _run([exe, f"-arch={arch}", str(src), "-o", str(out)], "ptxas")
        return out.read_bytes()


def nvcc_cubin(source: str, arch: str = "sm_90", flags: Iterable[str] = ("-O3",)) -> bytes:
    """The cubin that `nvcc -cubin -arch=ARCH FLAGS` makes of CUDA C source.
    Write kernels `extern "C" __global__` so their SASS function names are the
    plain names. nvcc needs a host compiler (gcc/g++) even for -cubin."""
    exe = require("nvcc")
    if not (shutil.which("g++") or shutil.which("gcc")):
        pytest.skip("nvcc needs a host C++ compiler (g++ or gcc) on PATH")
    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d) / "k.cu", Path(d) / "k.cubin"
        src.write_text(source)
        _run([exe, f"-arch={arch}", "-cubin", *flags, str(src), "-o", str(out)], "nvcc")
        return out.read_bytes()


# ---- reading SASS --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Instr:
    """One SASS instruction.

    address:  its byte offset in the function (the /*0290*/ column)
    pred:     the guard predicate without `@` ("P0", "!P0", "PT"), None when unguarded
    opcode:   the full opcode with modifiers ("LDS.U.128", "BAR.SYNC.DEFER_BLOCKING")
    operands: the operands as written, split at top-level commas
    target:   for a branch (BRA, JMP, BRX, CALL...), the address it goes to when known
    """
    address: int
    pred: str | None
    opcode: str
    operands: tuple[str, ...]
    target: int | None = None

    @property
    def base(self) -> str:
        """The opcode without modifiers: LDS.U.128 -> LDS."""
        return self.opcode.split(".", 1)[0]

    @property
    def modifiers(self) -> tuple[str, ...]:
        """The opcode's modifiers: LDS.U.128 -> ("U", "128")."""
        return tuple(self.opcode.split(".")[1:])

    def __str__(self) -> str:
        guard = f"@{self.pred} " if self.pred else ""
        ops = ", ".join(self.operands)
        return f"/*{self.address:04x}*/ {guard}{self.opcode}{' ' + ops if ops else ''}"


_INSTR = re.compile(r"^\s*/\*([0-9a-fA-F]+)\*/\s+(.*)$")
_LABEL = re.compile(r"^\s*([.$\w]+):\s*$")
_FUNC_CUOBJDUMP = re.compile(r"^\s*Function\s*:\s*(\S+)")
_FUNC_NVDISASM = re.compile(r"^\s*(?://-+\s*|\.section\s+)\.text\.([^\s,\"]+)")
_PRED = re.compile(r"^@(!?U?P[0-9T]+)\s+")
_LABEL_REF = re.compile(r"`\(([^)]+)\)")
_HEX = re.compile(r"^-?0x[0-9a-fA-F]+$")
BRANCHES = {"BRA", "JMP", "BRX", "JMX", "CALL", "BRK", "CONT", "SSY", "PBK", "PCNT", "BSSY"}


def _split_operands(text: str) -> tuple[str, ...]:
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return tuple(out)


def parse_sass(text: str) -> dict[str, list[Instr]]:
    """Parse the text of `cuobjdump -sass` or `nvdisasm -c` into
    {function name: its instructions in address order}. Branch targets are
    resolved to addresses: cuobjdump writes them as `BRA 0x290`, nvdisasm as
    labels (`` BRA `(.L_x_0) `` with `.L_x_0:` before the target)."""
    raw: dict[str, list[tuple[int, str | None, str, tuple[str, ...]]]] = {}
    labels: dict[str, dict[str, int]] = {}
    pending: list[str] = []
    func: str | None = None
    for line in text.splitlines():
        m = _FUNC_CUOBJDUMP.match(line) or _FUNC_NVDISASM.match(line)
        if m:
            func = m.group(1)
            raw.setdefault(func, [])
            labels.setdefault(func, {})
            pending = []
            continue
        if func is None:
            continue
        m = _LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = _INSTR.match(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        body = m.group(2).split(";", 1)[0].strip()  # drops `;` and cuobjdump's /* 0x... */ encoding
        if not body:
            continue  # cuobjdump's second encoding line: /* 0x... */ only
        for name in pending:
            labels[func][name] = addr
        pending = []
        pred = None
        pm = _PRED.match(body)
        if pm:
            pred, body = pm.group(1), body[pm.end():]
        opcode, _, rest = body.partition(" ")
        raw[func].append((addr, pred, opcode, _split_operands(rest.strip())))
    out: dict[str, list[Instr]] = {}
    for fn, items in raw.items():
        instrs = []
        for addr, pred, opcode, ops in items:
            target = None
            if opcode.split(".", 1)[0] in BRANCHES and ops:
                last = ops[-1]
                lm = _LABEL_REF.search(last)
                if lm:
                    target = labels[fn].get(lm.group(1))
                elif _HEX.match(last):
                    target = int(last, 16)
            instrs.append(Instr(addr, pred, opcode, ops, target))
        out[fn] = sorted(instrs, key=lambda i: i.address)
    return out


def sass(cubin_bytes: bytes, tool: str | None = None) -> dict[str, list[Instr]]:
    """{function name: [Instr]} of a cubin, disassembled by `tool`
    ("nvdisasm" or "cuobjdump"; default: nvdisasm when installed, else cuobjdump)."""
    if tool is None:
        tool = "nvdisasm" if tool_path("nvdisasm") else "cuobjdump"
    exe = require(tool)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "k.cubin"
        path.write_bytes(cubin_bytes)
        args = [exe, "-c", str(path)] if tool == "nvdisasm" else [exe, "-sass", str(path)]
        text = _run(args, tool).stdout
    funcs = parse_sass(text)
    if not funcs:
        raise RuntimeError(f"no functions found in the output of {tool}:\n{text[:2000]}")
    return funcs


# ---- looking at instructions ---------------------------------------------------------------------
def backward_branches(instrs: list[Instr]) -> list[Instr]:
    """The branches that jump to a lower address (loop back-edges). A branch
    to itself (the `BRA .` after EXIT that pads a function) is not one."""
    return [i for i in instrs if i.base in ("BRA", "JMP") and i.target is not None and i.target < i.address]


def inner_loops(instrs: list[Instr]) -> list[list[Instr]]:
    """Every innermost loop, in address order: for each backward branch, the
    instructions from its target to the branch itself (inclusive), kept when
    that range contains no other backward branch."""
    back = backward_branches(instrs)
    loops = []
    for br in back:
        lo, hi = br.target, br.address
        if any(o is not br and lo <= o.address <= hi for o in back):
            continue
        loops.append([i for i in instrs if lo <= i.address <= hi])
    return loops


def inner_loop(instrs: list[Instr]) -> list[Instr]:
    """The body of the innermost loop: the smallest [target, branch] range of a
    backward branch that holds no other backward branch, as instructions
    (the branch included); [] when the code has no loop."""
    loops = inner_loops(instrs)
    return min(loops, key=len) if loops else []


def opcodes(instrs: Iterable[Instr]) -> list[str]:
    """The base opcode of each instruction, in order (LDS, STS, LDG, STG, LD, ST, FFMA, BAR, ...)."""
    return [i.base for i in instrs]


def listing(instrs: Iterable[Instr]) -> str:
    """The instructions one a line, for assertion messages."""
    return "\n".join(f"    {i}" for i in instrs)
