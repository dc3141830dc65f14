#!/usr/bin/env bash
# The device check's install (benchmarks/devcheck/main.py runs it in the background, while phase A runs):
# a venv (--system-site-packages, and the image's own venv appended) with tileforth and its requirements;
# PyCUDA built from the carried sdist; ptxas and libdevice found. Offline (./.whl present, or TF_OFFLINE=1):
# pip --no-index --find-links .whl, xz-packed wheels (.whl/xz) unpacked first; requirements without a wheel
# (wheels.py says which are not carried) are left out and tileforth is installed --no-deps. PyCUDA:
# installed already, or built from the pycuda-*.tar.gz in .whl (the toolkit's cuda.h, or the headers
# carried in .whl/cuda; build_pycuda.py compiles its sources in parallel); the LAST RESORT is the labelled
# ctypes shim (shim/pycuda: results say "SHIM"). ptxas and libdevice: the nvidia wheels, else the toolkit
# (/usr/local/cuda), else .whl/cuda.
#
# Reads: ROOT WORK PYBASE VENV WHEELS OFFLINE STANDIN, and TF_INSTALL=0 (no venv: PYBASE as it is),
# TF_BUILD_PYCUDA=0, TF_BUILD_TIMEOUT (PyCUDA's build, default 140 s), TF_SHIM=0, TF_CACHE (where PyCUDA
# is built, default build/devcheck-cache, git-ignored: a second run on a machine still warm uses that build).
# Writes: $WORK/facts (KEY=value lines), $WORK/python (the interpreter for phase B), $WORK/extra_path and
# $WORK/extra_bin (what phase B adds to PYTHONPATH and PATH).
set -x
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: > "$WORK/facts"; : > "$WORK/extra_path"; : > "$WORK/extra_bin"
declare -a PIP OPTS REQS cands
set -x
if [ "${TF_INSTALL:-1}" = 0 ]; then
  PY=$(command -v "$PYBASE")
  echo "INSTALL=none(TF_INSTALL=0)" >> "$WORK/facts"
else
  rm -rf "$VENV"
  if ! "$PYBASE" -m venv --system-site-packages "$VENV" && ! "$PYBASE" -m venv --system-site-packages --without-pip "$VENV"; then
    echo "### no venv module: LAST RESORT, installing into $PYBASE's own environment"
    mkdir -p "$VENV/bin" && ln -sf "$(command -v "$PYBASE")" "$VENV/bin/python" || exit 10
  fi
  PY=$VENV/bin/python
  SP=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  # the image's python3 may itself be a venv (/opt/torch/.venv), whose packages a nested venv does not see
  "$PYBASE" -c 'import site; print("\n".join(site.getsitepackages()))' > "$SP/zz_tf_parent_site.pth"
  if "$PY" -m pip --version >/dev/null 2>&1; then PIP=("$PY" -m pip); else PIP=("$PYBASE" -m pip --python "$PY"); fi
  OPTS=(--retries 0 --timeout 20)
  if [ -n "$WHEELS" ]; then
    OPTS+=(--find-links "$WHEELS")
    tag=$("$PY" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
    mkdir -p "$WORK/wheels"
    for x in "$WHEELS"/xz/*.whl.tar.xz; do  # xz-packed wheels of this Python (fetch_wheels.sh)
      [ -e "$x" ] || continue
      case "$(basename "$x")" in *-"$tag"-*) "$PY" "$HERE/wheels.py" unxz "$x" "$WORK/wheels/$(basename "$x" .tar.xz)";; esac
    done
    OPTS+=(--find-links "$WORK/wheels")
  fi
  [ "$OFFLINE" = 1 ] && OPTS+=(--no-index)
  if [ "$OFFLINE" != 1 ] && timeout 220 "${PIP[@]}" install "${OPTS[@]}" -e "$ROOT[cuda,test]"; then
    echo "INSTALL=full(online)" >> "$WORK/facts"
  else
    # the requirements one by one where they can be had; then tileforth itself without dependencies
    mapfile -t REQS < <("$PY" "$HERE/wheels.py" install "$ROOT")
    if ! timeout 200 "${PIP[@]}" install "${OPTS[@]}" "${REQS[@]}"; then
      for r in "${REQS[@]}"; do
        timeout 60 "${PIP[@]}" install "${OPTS[@]}" "$r" || echo "MISSING=$r" >> "$WORK/facts"
      done
    fi
    if timeout 120 "${PIP[@]}" install "${OPTS[@]}" --no-deps -e "$ROOT" \
       || timeout 120 "${PIP[@]}" install "${OPTS[@]}" --no-deps --no-build-isolation -e "$ROOT"; then
      echo "INSTALL=offline" >> "$WORK/facts"
    else  # no usable setuptools: the checkout on the path (tileforth/ is the package)
      echo "$ROOT" >> "$WORK/extra_path"
      echo "INSTALL=path" >> "$WORK/facts"
    fi
  fi
fi
echo "$PY" > "$WORK/python"
[ -s "$WORK/extra_path" ] && export PYTHONPATH="$(paste -sd: "$WORK/extra_path")${PYTHONPATH:+:$PYTHONPATH}"

# ---- PyCUDA: the stand-in, installed already, built from the sdist here, or the shim -------------
if [ -n "$STANDIN" ]; then
  echo "PYCUDA=standin" >> "$WORK/facts"
elif "$PY" -c 'import pycuda.driver' 2>/dev/null; then
  echo "PYCUDA=real" >> "$WORK/facts"
else
  # the build goes to a cache that a second run on the same (still warm) machine finds: TF_CACHE
  cache=${TF_CACHE:-$ROOT/build/devcheck-cache}; src=$cache/pycuda-build
  sdist=""; inc=""; libdir=$cache/cudalib; stub_flags=""
  [ -n "$WHEELS" ] && sdist=$(ls "$WHEELS"/pycuda-*.tar.gz 2>/dev/null | tail -1)
  stamp="$(basename "${sdist:-none}") $("$PY" -c 'import sys; print(sys.version.split()[0])')"
  d=$(ls -d "$src"/build/lib*/pycuda 2>/dev/null | head -1)
  if [ -n "$d" ] && [ "$(cat "$src/.built" 2>/dev/null)" = "$stamp" ] \
     && PYTHONPATH="$(dirname "$d")${PYTHONPATH:+:$PYTHONPATH}" "$PY" -c 'import pycuda.driver'; then
    echo "### PyCUDA built by an earlier run: $d"
    dirname "$d" >> "$WORK/extra_path"
    echo "PYCUDA_BUILT=cached($stamp)" >> "$WORK/facts"
    export PYTHONPATH="$(dirname "$d")${PYTHONPATH:+:$PYTHONPATH}"
  elif [ -n "$sdist" ] && [ "${TF_BUILD_PYCUDA:-1}" != 0 ]; then
    echo "### building PyCUDA from $sdist"
    rm -rf "$src"; mkdir -p "$src" "$libdir"
    tar xzf "$sdist" -C "$src" --strip-components=1
    nvcc=$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")
    cuda_root=${CUDA_HOME:-$(dirname "$(dirname "$nvcc")")}
    [ -f "$cuda_root/include/cuda.h" ] || cuda_root=/usr/local/cuda
    [ -f "$cuda_root/include/cuda.h" ] && inc=$cuda_root/include
    # the headers carried in .whl/cuda (cuda.h, cudaProfiler.h of the driver's CUDA): where the toolkit
    # has none, and for what it lacks
    for x in "$WHEELS"/cuda/cuda-*-headers.tar.xz; do
      [ -e "$x" ] || continue
      mkdir -p "$WORK/cudabits" && tar xJf "$x" -C "$WORK/cudabits"
      inc=${inc:+$inc,}$WORK/cudabits/include
    done
    if [ -z "$inc" ]; then  # the nvidia-cuda-runtime wheel's headers, if installed
      inc=$("$PY" -c 'import glob, sys; print(",".join(sorted({p.rsplit("/", 1)[0] for d in sys.path for p in glob.glob(d + "/nvidia/*/include/cuda.h")})))')
    fi
    if [ -e "$cuda_root/lib64/stubs/libcuda.so" ]; then libdir=$cuda_root/lib64/stubs
    else
      cands=(/usr/local/nvidia/lib64/libcuda.so.1 /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1)
      for d in ${LD_LIBRARY_PATH//:/ }; do cands+=("$d/libcuda.so.1"); done
      cands+=($(ldconfig -p 2>/dev/null | awk '$1=="libcuda.so.1"{print $NF}'))
      for real in "${cands[@]}"; do
        [ -e "$real" ] && { ln -sf "$real" "$libdir/libcuda.so"; break; }
      done
      if [ ! -e "$libdir/libcuda.so" ]; then  # no driver library found: link against a stub, as CUDA's own
        echo 'void tf_libcuda_stub(void) {}' > "$libdir/stub.c"
        cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$libdir/libcuda.so" "$libdir/stub.c"
        stub_flags=--ldflags=-L$libdir,-Xlinker,--no-as-needed,-lcuda  # keep libcuda.so.1 as a dependency
      fi
    fi
    echo "### cuda root $cuda_root, include dirs $inc, libcuda in $libdir"
    # a plain `setup.py build` (no pip, no wheel package needed), its sources compiled in parallel
    # (build_pycuda.py) on all cores but two (phase A's timings run meanwhile), then the build directory on the path
    jobs=$(nproc); [ "$jobs" -gt 4 ] && jobs=$((jobs - 2))
    if (cd "$src" && "$PY" configure.py --cuda-root="$cuda_root" ${inc:+--cuda-inc-dir="$inc"} \
          --cudadrv-lib-dir="$libdir" --no-cuda-enable-curand $stub_flags \
        && timeout "${TF_BUILD_TIMEOUT:-140}" "$PY" "$HERE/build_pycuda.py" -j "$jobs"); then
      d=$(ls -d "$src"/build/lib*/pycuda 2>/dev/null | head -1)
      if [ -n "$d" ]; then
        echo "$stamp" > "$src/.built"
        dirname "$d" >> "$WORK/extra_path"
        echo "PYCUDA_BUILT=$(basename "$sdist")" >> "$WORK/facts"
        export PYTHONPATH="$(dirname "$d")${PYTHONPATH:+:$PYTHONPATH}"
      fi
    fi
  fi
  if "$PY" -c 'import pycuda.driver'; then
    echo "PYCUDA=real" >> "$WORK/facts"
  elif [ "${TF_SHIM:-1}" != 0 ] && PYTHONPATH="$HERE/shim${PYTHONPATH:+:$PYTHONPATH}" "$PY" -c 'import pycuda.driver'; then
    echo "$HERE/shim" >> "$WORK/extra_path"
    echo "PYCUDA=shim" >> "$WORK/facts"
  else
    echo "PYCUDA=none" >> "$WORK/facts"
  fi
fi

# ---- ptxas and libdevice: the nvidia wheels, else the toolkit, else what .whl/cuda carries ---------
where=$("$PY" -c 'from tileforth.backends.cuda import ptx; print(ptx.ptxas_path() or "")' 2>/dev/null)
if [ -z "$where" ]; then
  if [ -x /usr/local/cuda/bin/ptxas ]; then
    echo /usr/local/cuda/bin >> "$WORK/extra_bin"; where=/usr/local/cuda/bin/ptxas
  elif [ -n "$WHEELS" ] && [ -f "$WHEELS/cuda/ptxas.xz" ]; then
    mkdir -p "$WORK/bin" && xz -dc "$WHEELS/cuda/ptxas.xz" > "$WORK/bin/ptxas" && chmod +x "$WORK/bin/ptxas"
    echo "$WORK/bin" >> "$WORK/extra_bin"; where=$WORK/bin/ptxas
  fi
fi
echo "PTXAS=${where:-none(tests that need ptxas are skipped)}" >> "$WORK/facts"
where=$("$PY" -c 'from tileforth.backends.cuda import ptx; print(ptx.libdevice_path() or "")' 2>/dev/null)
if [ -z "$where" ] && [ -f "$WORK/cudabits/nvvm/libdevice/libdevice.10.bc" -o -n "$WHEELS" ]; then
  for x in "$WHEELS"/cuda/cuda-*-headers.tar.xz; do
    [ -e "$x" ] || continue
    [ -d "$WORK/cudabits" ] || { mkdir -p "$WORK/cudabits" && tar xJf "$x" -C "$WORK/cudabits"; }
  done
  if [ -f "$WORK/cudabits/nvvm/libdevice/libdevice.10.bc" ]; then
    # where tileforth looks (nvidia/cu13/nvvm/libdevice, as the nvidia-nvvm wheel lays it out)
    mkdir -p "$WORK/nvpkg/nvidia/cu13/nvvm/libdevice"
    cp "$WORK/cudabits/nvvm/libdevice/libdevice.10.bc" "$WORK/nvpkg/nvidia/cu13/nvvm/libdevice/"
    echo "$WORK/nvpkg" >> "$WORK/extra_path"
    where="$WORK/nvpkg/nvidia/cu13/nvvm/libdevice/libdevice.10.bc (carried)"
  fi
fi
echo "LIBDEVICE=${where:-none(FEXP FLN FSIN FCOS fail on the GPU)}" >> "$WORK/facts"
