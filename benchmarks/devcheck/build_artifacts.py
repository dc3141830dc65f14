"""Build, HERE, what phase A of the device check loads on the GPU machine (which has no tileforth then):

    python benchmarks/devcheck/build_artifacts.py [--out .whl/devcheck] [--ptxas PATH] [--arch sm_90]

(benchmarks/fetch_wheels.sh runs it last, with the ptxas of the GPU machine's CUDA, 13.0.) Written to
--out (default .whl/devcheck: git-ignored, and carried with the wheels, carry [".whl"]):

  gemm_{g11,g11tn,g22}_{f16,bf16}.{ptx,cubin}   the GEMM variants (kernels.py), unchecked exports
  line_{line10,loop,tile}.{ptx,cubin}           REPL lines as the cuda backend compiles them (checked)
  empty.{ptx,cubin}                             an empty kernel: the JIT's floor
  empty_newer.cubin                             the empty kernel by tileforth's own ptxas, when that one is
                                                newer than --ptxas: does the driver load its cubins?
  probe_mma.{ptx,cubin}, probe_wgmma.{ptx,cubin}  the layout probes (probes.py; wgmma for sm_90a)
  launch_saxpy_ptx.py, launch_saxpy_cubin.py    `tileforth compile demos/saxpy.fth --python` (the second
                                                with --cubin --unchecked)
  launch_tma_rows.py                            `tileforth compile benchmarks/devcheck/tma_rows.fth --python`
                                                (a `\\! tmap` parameter: the launcher encodes the tensor map)
  launch_gemm_hopper.py                         `tileforth compile demos/gemm_hopper.fth --arch sm_90a --python
                                                --unchecked` (TMA, mbarriers, WGMMA: the Hopper GEMM demo)
  launch_gemm_hopper128.py, launch_gemm_hopper256.py  the same of demos/gemm_hopper128.fth and 256.fth (128 x 128
                                                and 128 x 256 block tiles, two consumer warpgroups, four stages in
                                                dynamic shared memory)
  manifest.json                                 the commit, ptxas's version, each file's size and ptxas -v

Every cubin is assembled by --ptxas (default: $TF_ARTIFACT_PTXAS, else tileforth's ptxas_path()).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from devcheck import kernels, probes  # noqa: E402


def ptxas_version(exe: str) -> str:
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"release (\d+\.\d+), V([\d.]+)", out)
    return m.group(2) if m else "?"


def assemble(exe: str, ptx: str, arch: str) -> tuple[bytes, str]:
    """(cubin, ptxas -v's log); raises RuntimeError with ptxas's message when it refuses the PTX."""
    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d) / "k.ptx", Path(d) / "k.cubin"
        src.write_text(ptx)
        proc = subprocess.run([exe, f"-arch={arch}", "-v", str(src), "-o", str(out)], capture_output=True,
                              text=True, timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"ptxas -arch={arch} refused the PTX: {proc.stderr.strip()}")
        return out.read_bytes(), proc.stdout + proc.stderr


def registers(log: str) -> dict[str, int]:
    """{entry: registers} from ptxas -v's log."""
    out, cur = {}, None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '([\w$.]+)'", line)
        if m:
            cur = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and cur:
            out[cur] = int(m.group(1))
    return out


def gemm_ptx(name: str, dtype: str, arch: str) -> str:
    from tileforth.export.kernels import word_ptx
    from tileforth.core import Forth
    f = Forth(backend="cpu")  # only its dictionary: the kernel runs on the GPU
    f.eval(kernels.gemm_source(name, dtype))
    return word_ptx(f, name, arch, unchecked=True)


def line_ptx(setup: str, line: str, arch: str) -> str:
    """The PTX the cuda backend loads for `line` (one segment): segment_ptx of what the interpreter hands it."""
    from tileforth.export.kernels import segment_ptx
    from tileforth.core import Forth
    f = Forth(backend="cpu")
    if setup:
        f.eval(setup)
    segments: list = []
    f.on_segment = lambda nodes, tiles: segments.append((nodes, tiles))
    f.eval(line)
    if len(segments) != 1:
        raise RuntimeError(f"{line!r} is {len(segments)} segments, not one")
    nodes, tiles = segments[0]
    return segment_ptx(f, nodes, tiles, arch)


def commit() -> tuple[str, bool]:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout.strip()
    return git("rev-parse", "--short", "HEAD") or "?", bool(git("status", "--porcelain", "--untracked-files=no"))


def build(out: Path, exe: str, arch: str = "sm_90", log=print) -> dict:
    from tileforth.backends.cuda.ptx import ptxas_path
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        if old.is_file():
            old.unlink()
    t0 = time.perf_counter()
    head, dirty = commit()
    manifest: dict = {"commit": head, "dirty": dirty, "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                      "ptxas": ptxas_version(exe), "arch": arch, "files": {}, "registers": {}}

    def write(name: str, data: bytes | str, what: str) -> None:
        raw = data.encode() if isinstance(data, str) else data
        (out / name).write_bytes(raw)
        manifest["files"][name] = {"bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()[:16], "what": what}

    def module(stem: str, ptx: str, what: str, target: str = arch) -> None:
        write(stem + ".ptx", ptx, what)
        cubin, vlog = assemble(exe, ptx, target)
        write(stem + ".cubin", cubin, what + f" ({target}, ptxas {manifest['ptxas']})")
        manifest["registers"].update({f"{stem}:{k}": v for k, v in registers(vlog).items()})

    for name in kernels.GEMMS:
        for dtype in kernels.DTYPES:
            module(f"gemm_{name}_{dtype}", gemm_ptx(name, dtype, arch), f"GEMM {name}, {dtype} in, f32 out")
    for key, (setup, line) in kernels.LINES.items():
        module(f"line_{key}", line_ptx(setup, line, arch), f"REPL line {line!r}")
    module("empty", kernels.EMPTY_PTX.format(arch=arch), "an empty kernel")
    own = ptxas_path()
    if own and ptxas_version(own) != manifest["ptxas"]:
        cubin, _ = assemble(own, kernels.EMPTY_PTX.format(arch=arch), arch)
        write("empty_newer.cubin", cubin, f"an empty kernel ({arch}, ptxas {ptxas_version(own)}: tileforth's own)")
    module("probe_mma", probes.mma_ptx(probes.MMA_ARCH), "mma.sync fragment probe", probes.MMA_ARCH)
    module("probe_wgmma", probes.wgmma_ptx(probes.WGMMA_ARCH), "wgmma descriptor probe", probes.WGMMA_ARCH)
    saxpy, tma = ROOT / "demos" / "saxpy.fth", HERE / "tma_rows.fth"
    for stem, source, extra in (("launch_saxpy_ptx", saxpy, []), ("launch_saxpy_cubin", saxpy, ["--cubin", "--unchecked"]),
                                ("launch_tma_rows", tma, []),
                                *((f"launch_{g}", ROOT / "demos" / f"{g}.fth", ["--unchecked"])
                                  for g in ("gemm_hopper", "gemm_hopper128", "gemm_hopper256"))):
        with tempfile.TemporaryDirectory() as d:
            target = Path(d) / (stem + ".py")
            env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
            file_arch = "sm_90a" if "hopper" in stem else arch  # WGMMA and setmaxnreg: sm_90a only
            proc = subprocess.run([sys.executable, "-m", "tileforth.repl.cli", "compile", str(source), "--arch", file_arch,
                                   "--python", str(target), *extra], capture_output=True, text=True, env=env,
                                  cwd=d, timeout=300)
            if proc.returncode != 0:
                raise RuntimeError(f"tileforth compile {' '.join(extra)} --python failed: {proc.stderr.strip()}")
            write(stem + ".py", target.read_text(), f"tileforth compile {source.relative_to(ROOT)} --arch {file_arch} "
                  "--python " + " ".join(extra))
    manifest["seconds"] = round(time.perf_counter() - t0, 1)
    manifest["total_bytes"] = sum(f["bytes"] for f in manifest["files"].values())
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    log(f"{out}: {len(manifest['files'])} files, {manifest['total_bytes'] / 1024:.0f} KiB, ptxas "
        f"{manifest['ptxas']}, commit {head}{' (with uncommitted changes)' if dirty else ''}, "
        f"{manifest['seconds']} s")
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / ".whl" / "devcheck")
    ap.add_argument("--ptxas", default=os.environ.get("TF_ARTIFACT_PTXAS"))
    ap.add_argument("--arch", default="sm_90", help="the GPU's architecture (the H200: sm_90)")
    args = ap.parse_args(argv)
    exe = args.ptxas
    if not exe:
        from tileforth.backends.cuda.ptx import ptxas_path
        exe = ptxas_path()
    if not exe:
        print("no ptxas: install the nvidia-cuda-nvcc wheel, or give --ptxas", file=sys.stderr)
        return 2
    build(args.out, exe, args.arch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
