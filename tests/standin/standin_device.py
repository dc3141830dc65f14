"""What the stand-in CuPy (tests/standin/cupy) and cuda-python (tests/standin/cuda) share:
device memory as host buffers, PTX entries' parameters, and launch records.

Kernels do NOT run here (as with the PyCUDA stand-in): a launch reads its arguments as the
device would -- each parameter as wide as the PTX entry declares it -- records them in
`launches`, and calls the test's `on_launch` hooks, which may run the kernel elsewhere (the
cpu emulator) over `view(ptr, nbytes)`. Every PTX module a stand-in loads is assembled with
ptxas, as the driver's JIT would (a rejected module fails to load); a cubin is read as the
driver reads it: its ELF header's sm_XY must be the device's, and each entry's parameters
come from its .nv.info section (EIATTR_KPARAM_INFO).
"""
from __future__ import annotations

import functools
import re
import struct
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass
class Launch:
    function: str
    grid: tuple
    block: tuple
    args: tuple  # each parameter decoded by its PTX type (integers signed, pointers unsigned)
    raw: tuple  # each parameter's bytes, as the kernel reads them
    shared_size: int
    stream: int


class Memory:
    """Device memory: each allocation a host buffer (numpy), its address the buffer's, 256 aligned as
    the driver's allocations are (a tensor map, 64 aligned, may be one)."""
    ALIGN = 256

    def __init__(self) -> None:
        self.live: dict[int, np.ndarray] = {}

    def alloc(self, nbytes: int) -> int:
        n = max(int(nbytes), 1)
        raw = np.full(n + self.ALIGN, 0xCD, np.uint8)  # fresh memory is not zeroed
        off = -raw.ctypes.data % self.ALIGN
        buf = raw[off:off + n]
        self.live[buf.ctypes.data] = buf
        return buf.ctypes.data

    def free(self, addr: int) -> bool:
        return self.live.pop(int(addr), None) is not None

    def find(self, addr: int, nbytes: int) -> np.ndarray | None:
        for start, buf in self.live.items():
            if start <= addr and addr + nbytes <= start + buf.size:
                return buf[addr - start:addr - start + nbytes]
        return None


_PARAM = re.compile(r"\.param\s+(?:\.align\s+\d+\s+)?\.([a-z])(\d+)(\s+\.ptr)?(?:\s+\.align\s+\d+)?\s+\w+"
                    r"(?:\[(\d+)\])?")


def entry_params(ptx: str, name: str) -> list[tuple[str, int]] | None:
    """The entry's parameters as (struct format, bytes); None if the module has no such entry."""
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", ptx, re.S)
    if m is None:
        return None
    out = []
    for kind, bits, ptr, count in _PARAM.findall(m.group(1)):
        size = int(count) if count else int(bits) // 8
        if ptr:
            fmt = "Q"
        elif kind == "f" and size in (4, 8):
            fmt = "f" if size == 4 else "d"
        else:
            fmt = {1: "b", 2: "h", 4: "i", 8: "q"}.get(size, f"{size}s")
        out.append((fmt, size))
    return out


def jit_arch(ptx: str, cc: tuple[int, int]) -> str:
    """The architecture the driver's JIT compiles `ptx` for on a device of compute capability cc:
    sm_XY, or sm_XYa when the PTX targets the device's own arch-specific variant (wgmma needs it)."""
    arch = f"sm_{cc[0]}{cc[1]}"
    m = re.search(r"^\s*\.target\s+(sm_\d+a)\b", ptx, re.M)
    return m.group(1) if m and m.group(1) == arch + "a" else arch


ELF_MAGIC = b"\x7fELF"
EIATTR_KPARAM_INFO = 0x17


def cubin_entries(data: bytes) -> tuple[int, dict[str, list[tuple[str, int]]]] | None:
    """A cubin as the driver reads it: (sm, {entry: parameters as (struct format, bytes)}), sm
    from the ELF header's flags (sm_90: 90); None when it is no 64-bit little-endian ELF."""
    if data[:4] != ELF_MAGIC or len(data) < 64 or data[4] != 2 or data[5] != 1:
        return None
    flags, = struct.unpack_from("<I", data, 0x30)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    entsize, count, strndx = struct.unpack_from("<HHH", data, 0x3A)
    if shoff + count * entsize > len(data) or strndx >= count:
        return None
    sections = [struct.unpack_from("<IIQQQQ", data, shoff + i * entsize) for i in range(count)]
    names_at = sections[strndx][4]

    def name(off: int) -> str:
        end = data.index(b"\0", names_at + off)
        return data[names_at + off:end].decode()
    entries: dict[str, list[tuple[str, int]]] = {}
    infos = {}
    for sh_name, _type, _flags, _addr, off, size in sections:
        n = name(sh_name)
        if n.startswith(".text."):
            entries.setdefault(n[6:], [])
        elif n.startswith(".nv.info."):
            infos[n[9:]] = data[off:off + size]
    for fn in entries:
        blob, i, params = infos.get(fn, b""), 0, {}
        while i + 2 <= len(blob):
            fmt, attr = blob[i], blob[i + 1]
            if fmt == 4:  # EIFMT_SVAL: a 16-bit size, then the value
                size, = struct.unpack_from("<H", blob, i + 2)
                value = blob[i + 4:i + 4 + size]
                if attr == EIATTR_KPARAM_INFO and size >= 12:
                    _index, ordinal, _offset, bits = struct.unpack_from("<IHHI", value)
                    params[ordinal] = (bits >> 18) & 0x3FFF
                i += 4 + size
            else:  # EIFMT_NVAL, _BVAL, _HVAL: no value, 8 or 16 bits, in one 4-byte record
                i += 4
        entries[fn] = [({1: "b", 2: "h", 4: "i", 8: "Q"}.get(params[k], f"{params[k]}s"), params[k])
                       for k in sorted(params)]
    return (flags >> 8) & 0xFF, entries


def decode(params: list[tuple[str, int]], raws: list[bytes]) -> tuple:
    return tuple(struct.unpack(fmt, raw)[0] for (fmt, _), raw in zip(params, raws))


@functools.lru_cache(maxsize=256)
def assemble(ptx: str, arch: str = "sm_90") -> tuple[bool, str]:
    """(ok, log): ptxas on the module, as the driver's JIT; (True, "") without ptxas."""
    try:
        from tileforth.backends.cuda.ptx import ptxas_path
        exe = ptxas_path()
    except Exception:  # noqa: BLE001 - no tileforth or no nvcc wheel: the JIT's checks are skipped
        exe = None
    if exe is None:
        return True, ""
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "m.ptx"
        src.write_text(ptx)
        proc = subprocess.run([exe, f"-arch={arch}", str(src), "-o", str(Path(d) / "m.cubin")],
                              capture_output=True, text=True, timeout=300)
    return proc.returncode == 0, proc.stderr


def check_config(grid, block) -> bool:
    """The driver's launch limits (grid x < 2^31, y, z <= 65535; block <= 1024, 1024, 64, 1024 in all)."""
    if len(grid) != 3 or len(block) != 3:
        return False
    gmax, bmax = (2**31 - 1, 65535, 65535), (1024, 1024, 64)
    return (all(isinstance(v, int) and 1 <= v <= m for v, m in zip(grid, gmax))
            and all(isinstance(v, int) and 1 <= v <= m for v, m in zip(block, bmax))
            and block[0] * block[1] * block[2] <= 1024)
