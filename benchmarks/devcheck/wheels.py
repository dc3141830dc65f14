"""The wheels the device check carries (benchmarks/fetch_wheels.sh) and installs (install.sh).

    python wheels.py fetch ROOT      the requirements to download (one a line)
    python wheels.py install ROOT    the requirements to install offline on the GPU machine
    python wheels.py unxz SRC OUT    an xz-packed wheel (a wheel's files in a .tar.xz) back into a wheel

Left out of both: what the GPU machine has or what does not fit (numpy, the nvidia-* tool wheels),
what is handled on its own (llvmlite, xz-packed; PyCUDA, built from its sdist), and the notebook
test extra (ipython, ipykernel, nbclient, nbformat: tests/test_notebook.py skips without them, and
their 16 MiB of wheels would not fit).
"""
from __future__ import annotations

import re
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

NOT_CARRIED = {"numpy", "pycuda", "llvmlite", "nvidia-cuda-nvcc", "nvidia-cuda-cuobjdump", "nvidia-cuda-nvdisasm",
               "ipython", "ipykernel", "nbclient", "nbformat"}
PYCUDA_NEEDS = ["pytools>=2011.2", "platformdirs>=2.2.0", "mako"]  # PyCUDA's install_requires


def name(req: str) -> str:
    return re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0].lower().replace("_", "-")


def requirements(root: Path, purpose: str) -> list[str]:
    p = tomllib.loads((root / "pyproject.toml").read_text())
    extras = p["project"].get("optional-dependencies", {})
    reqs = list(p["project"]["dependencies"]) + list(extras.get("test", []))
    if purpose == "install":
        reqs += PYCUDA_NEEDS + p.get("build-system", {}).get("requires", []) + ["wheel"]
        keep = [r for r in reqs if name(r) not in NOT_CARRIED or name(r) == "llvmlite"]
    else:
        reqs += p.get("build-system", {}).get("requires", [])
        keep = [r for r in reqs if name(r) not in NOT_CARRIED]
    seen, out = set(), []
    for r in keep:
        if name(r) not in seen:
            seen.add(name(r))
            out.append(r.replace(" ", ""))
    return out


def unxz(src: Path, out: Path) -> None:
    """The wheel again (a zip, stored: pip reads it once)."""
    with tarfile.open(src, "r:xz") as t, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for m in t:
            if m.isfile():
                info = zipfile.ZipInfo(m.name[2:] if m.name.startswith("./") else m.name)
                info.external_attr = (m.mode & 0xFFFF) << 16
                z.writestr(info, t.extractfile(m).read())


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] in ("fetch", "install"):
        print("\n".join(requirements(Path(argv[1]), argv[0])))
        return 0
    if len(argv) == 3 and argv[0] == "unxz":
        unxz(Path(argv[1]), Path(argv[2]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
