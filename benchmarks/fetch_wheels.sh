#!/usr/bin/env bash
# Fill ./.whl with what the GPU machine may lack to install `.[cuda,test]` OFFLINE, for
# benchmarks/device_check.sh (which finds it there; the device tool carries it: carry [".whl"]).
#
#   bash benchmarks/fetch_wheels.sh            (a few minutes: downloads, xz-packs llvmlite, builds the artifacts)
#
# The device tool carries at most 64 MiB (working tree included), so .whl must stay under 60 MiB
# (TF_WHEELS_LIMIT_MIB); the script measures it and fails when it is over. What goes in:
#
#   *.whl            binary wheels of tileforth's dependencies and test extra, of PyCUDA's runtime
#                    dependencies (pytools, platformdirs, mako, markupsafe, siphash24,
#                    typing_extensions) and of the build tools (setuptools, wheel), for each Python
#                    in TF_FETCH_PYVERS (default "3.12 3.11": the GPU machine's python3 is 3.12 by
#                    /work/.library/device/KINDS.md; 3.11 is this machine's), manylinux x86_64.
#   pycuda-*.tar.gz  PyCUDA's SOURCE (PyPI has no Linux wheels): device_check.sh builds it there.
#   xz/*.whl.tar.xz  big wheels re-packed with xz (their files in a tar; device_check.sh turns each
#                    back into a wheel): llvmlite for the Pythons in TF_FETCH_LLVMLITE (default
#                    3.12; 57 MiB as a wheel, about 38 MiB packed).
#   cuda/cuda-<v>-headers.tar.xz   cuda.h and cudaProfiler.h of CUDA <v> (TF_CUDA_HEADERS, default
#                    13.0, the H200 machine's driver) and libdevice.10.bc: enough to build PyCUDA
#                    and to use FEXP/FSIN on a machine with a driver but no CUDA toolkit.
#   cuda/ptxas.xz    only with TF_FETCH_PTXAS=1 (about 11 MiB): ptxas for the tests that assemble PTX.
#   devcheck/        the cubins, PTX and launchers phase A of the device check loads (about 170 KiB),
#                    built by benchmarks/devcheck/build_artifacts.py with the ptxas of CUDA
#                    TF_CUDA_HEADERS (downloaded for that, not carried unless TF_FETCH_PTXAS=1).
#
# Left out, because a CUDA machine has them or they do not fit (benchmarks/devcheck/wheels.py):
# numpy (16 MiB a wheel; the GPU image has numpy 2.x; TF_FETCH_NUMPY=1 adds it), nvidia-cuda-nvcc
# with nvidia-nvvm (47 + 75 MiB as wheels), and the notebook test extra (ipython, ipykernel,
# nbclient, nbformat and theirs, 16 MiB: tests/test_notebook.py skips without them). Without the
# nvcc wheel pip cannot satisfy the test extra's `nvidia-cuda-nvcc`, so the device check installs
# the other requirements and tileforth with --no-deps; ptxas then comes from the machine's CUDA
# toolkit (/usr/local/cuda/bin) or cuda/ptxas.xz, and where neither exists the tests that need
# ptxas (tests/test_ptx.py) are skipped there.
#
# Knobs: TF_WHEELS (default ./.whl), TF_FETCH_PYVERS, TF_FETCH_LLVMLITE, TF_FETCH_PTXAS,
#        TF_FETCH_NUMPY, TF_CUDA_HEADERS, TF_PYCUDA_VERSION (default: the newest), TF_WHEELS_LIMIT_MIB,
#        TF_FETCH_KEEP=1 (do not empty .whl first), TF_FETCH_PYTHON (the python whose pip downloads).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
DEST=${TF_WHEELS:-$ROOT/.whl}
PYVERS=${TF_FETCH_PYVERS:-3.12 3.11}
LLVMLITE_PYVERS=${TF_FETCH_LLVMLITE-3.12}
CUDA_VER=${TF_CUDA_HEADERS:-13.0}
LIMIT_MIB=${TF_WHEELS_LIMIT_MIB:-60}
PY=${TF_FETCH_PYTHON:-python3}
TMP=$(mktemp -d /tmp/tf-fetch.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export PIP_DISABLE_PIP_VERSION_CHECK=1

PLATFORMS=(--platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_27_x86_64
           --platform manylinux_2_28_x86_64)
pip_dl() { "$PY" -m pip download --quiet --only-binary=:all: "${PLATFORMS[@]}" "$@"; }
say() { printf '== %s\n' "$*"; }

if [ "${TF_FETCH_KEEP:-0}" != 1 ]; then rm -rf "$DEST"; fi
mkdir -p "$DEST/xz" "$DEST/cuda"

# ---- what to fetch: the project's requirements (pyproject.toml) and PyCUDA's ----------------------
say "PyCUDA source"
"$PY" -m pip download --quiet --no-deps --no-binary pycuda -d "$DEST" "pycuda${TF_PYCUDA_VERSION:+==$TF_PYCUDA_VERSION}"
# (`--no-binary :all:` would fetch the same tarball, but it also builds PyCUDA's build requirements
#  -- numpy -- from source while preparing its metadata, which fails; `--no-binary pycuda` does not)
SDIST=$(ls "$DEST"/pycuda-*.tar.gz | tail -1)
PYCUDA_REQS=$(tar xzf "$SDIST" -O --wildcards '*/PKG-INFO' 2>/dev/null | sed -n 's/^Requires-Dist: //p' \
              | grep -v 'extra ==' | tr -d ' ' | sort -u | tr '\n' ' ')
[ -n "$PYCUDA_REQS" ] || PYCUDA_REQS="pytools>=2011.2 platformdirs>=2.2.0 mako"
echo "   $(basename "$SDIST"); its requirements: $PYCUDA_REQS"

# tileforth's requirements (and its test and cuda extras) less what is not carried: benchmarks/devcheck/wheels.py
REQS=$("$PY" benchmarks/devcheck/wheels.py fetch "$ROOT" | tr '\n' ' ')
LLVMLITE_REQ=$("$PY" -c 'import tomllib; print(next(r for r in tomllib.load(open("pyproject.toml","rb"))["project"]["dependencies"] if r.startswith("llvmlite")).replace(" ", ""))')
EXTRA="wheel"
[ "${TF_FETCH_NUMPY:-0}" = 1 ] && EXTRA="$EXTRA numpy>=1.26"

# ---- binary wheels, per Python -------------------------------------------------------------------
for v in $PYVERS; do
  tag=cp${v/./}
  say "wheels for Python $v ($tag): $REQS $PYCUDA_REQS $EXTRA"
  mkdir -p "$TMP/$tag"
  # shellcheck disable=SC2086
  pip_dl --python-version "$v" --implementation cp --abi "$tag" -d "$TMP/$tag" $REQS $PYCUDA_REQS $EXTRA
  for w in "$TMP/$tag"/*.whl; do
    n=$(basename "$w" | cut -d- -f1 | tr '[:upper:]' '[:lower:]')
    case "$n" in
      llvmlite|nvidia_*) continue;;  # llvmlite: xz-packed below; nvidia: too big, see the header
      numpy) [ "${TF_FETCH_NUMPY:-0}" = 1 ] || continue;;
    esac
    cp -n "$w" "$DEST/"
  done
done

# ---- llvmlite, xz-packed (a wheel's files in a tar: 57 MiB as a wheel, ~38 MiB so) -----------------
for v in $LLVMLITE_PYVERS; do
  tag=cp${v/./}
  say "llvmlite for Python $v ($LLVMLITE_REQ), xz-packed (about 2 minutes)"
  mkdir -p "$TMP/ll-$tag"
  pip_dl --no-deps --python-version "$v" --implementation cp --abi "$tag" -d "$TMP/ll-$tag" "$LLVMLITE_REQ"
  w=$(ls "$TMP/ll-$tag"/llvmlite-*.whl | tail -1)
  mkdir -p "$TMP/ll-$tag/tree"
  (cd "$TMP/ll-$tag/tree" && "$PY" -m zipfile -e "$w" .)
  tar -C "$TMP/ll-$tag/tree" -cf - . | xz -9 -T0 > "$DEST/xz/$(basename "$w").tar.xz"
done

# ---- CUDA headers (for building PyCUDA) and libdevice, for a machine without a toolkit -------------
say "CUDA $CUDA_VER headers and libdevice"
mkdir -p "$TMP/cuda" "$TMP/cudatree"
pip_dl --no-deps --python-version 3.12 -d "$TMP/cuda" "nvidia-cuda-runtime==$CUDA_VER.*" \
  "nvidia-cuda-profiler-api==$CUDA_VER.*" "nvidia-nvvm==$CUDA_VER.*"
for w in "$TMP/cuda"/*.whl; do (cd "$TMP/cudatree" && "$PY" -m zipfile -e "$w" .); done
CU=$(dirname "$(find "$TMP/cudatree" -name cuda.h -path '*include*' | head -1)")
LD=$(find "$TMP/cudatree" -name 'libdevice*.bc' | head -1)
mkdir -p "$TMP/bits/include" "$TMP/bits/nvvm/libdevice"
cp "$CU"/cuda.h "$TMP/bits/include/"
find "$TMP/cudatree" -name cudaProfiler.h -exec cp {} "$TMP/bits/include/" \;
cp "$LD" "$TMP/bits/nvvm/libdevice/"
grep -m1 '#define CUDA_VERSION' "$TMP/bits/include/cuda.h" | sed 's/^/   /'
tar -C "$TMP/bits" -cf - . | xz -9 > "$DEST/cuda/cuda-$CUDA_VER-headers.tar.xz"

# ---- ptxas of the GPU machine's CUDA: it assembles the artifacts (and travels only with TF_FETCH_PTXAS=1) ----
say "ptxas (nvidia-cuda-nvcc==$CUDA_VER.*)"
pip_dl --no-deps --python-version 3.12 -d "$TMP/nvcc" "nvidia-cuda-nvcc==$CUDA_VER.*"
"$PY" -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); n = next(n for n in z.namelist() if n.endswith("/bin/ptxas")); sys.stdout.buffer.write(z.read(n))' \
  "$(ls "$TMP/nvcc"/nvidia_cuda_nvcc-*.whl | tail -1)" > "$TMP/ptxas"
chmod +x "$TMP/ptxas"
if [ "${TF_FETCH_PTXAS:-0}" = 1 ]; then xz -9 -T0 -c "$TMP/ptxas" > "$DEST/cuda/ptxas.xz"; fi

# ---- the artifacts phase A of the device check loads (cubins and PTX), built here with that ptxas ----------
say "device-check artifacts (benchmarks/devcheck/build_artifacts.py)"
PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" "$PY" benchmarks/devcheck/build_artifacts.py --out "$DEST/devcheck" \
  --ptxas "$TMP/ptxas" | sed 's/^/   /'

# ---- the manifest, and the size --------------------------------------------------------------------
{
  echo "# .whl for benchmarks/device_check.sh, made by benchmarks/fetch_wheels.sh on $(date -u +%F)"
  echo "# Pythons: $PYVERS; llvmlite xz-packed for: ${LLVMLITE_PYVERS:-none}; CUDA headers: $CUDA_VER"
  (cd "$DEST" && find . -type f ! -name MANIFEST.txt -printf '%s\t%P\n' | sort -k2)
} > "$DEST/MANIFEST.txt"
BYTES=$(du -sb "$DEST" | cut -f1)
MIB=$(( (BYTES + 1048575) / 1048576 ))
say "$DEST: $(find "$DEST" -type f | wc -l) files, $MIB MiB (limit $LIMIT_MIB MiB)"
(cd "$DEST" && find . -type f -size +1M -printf '   %8s  %P\n' | sort -rn)
if [ "$MIB" -gt "$LIMIT_MIB" ]; then
  echo "!! $DEST is over $LIMIT_MIB MiB: leave something out (TF_FETCH_PYVERS, TF_FETCH_LLVMLITE, TF_FETCH_PTXAS)" >&2
  exit 1
fi
