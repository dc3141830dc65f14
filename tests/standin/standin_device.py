"""What the stand-in CuPy (tests/standin/cupy) and cuda-python (tests/standin/cuda) share:
device memory as host buffers, PTX entries' parameters, and launch records.

Kernels do NOT run here (as with the PyCUDA stand-in): a launch reads its arguments as the
device would -- each parameter as wide as the PTX entry declares it -- records them in
`launches`, and calls the test's `on_launch` hooks, which may run the kernel elsewhere (the
cpu emulator) over `view(ptr, nbytes)`. Every module a stand-in loads is assembled with
ptxas, as the driver's JIT would (a rejected module fails to load).
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
    """Device memory: each allocation a host buffer (numpy), its address the buffer's."""

    def __init__(self) -> None:
        self.live: dict[int, np.ndarray] = {}

    def alloc(self, nbytes: int) -> int:
        buf = np.full(max(int(nbytes), 1), 0xCD, np.uint8)  # fresh memory is not zeroed
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
