"""The device check's parts (benchmarks/device_check.sh runs them; docs/device_check.md says what each answers).

plan.py        the steps, their phases and time budgets
summary.py     $OUT/summary.txt: written line by line, and read back
main.py        the run: system facts, phase A while the install runs, then phase B
install.sh     a venv with tileforth, PyCUDA built from its sdist, ptxas and libdevice
build_pycuda.py  PyCUDA's `setup.py build`, compiling its sources in parallel
shim/          a ctypes stand-in for pycuda.driver, the last resort when PyCUDA cannot be built
cu.py          the CUDA driver through cuda-python (cuda.bindings.driver), for phase A
kernels.py     the GEMM variants and the REPL lines whose PTX phase A loads
probes.py      hand-written PTX probes of the mma.sync fragments and the wgmma descriptors
build_artifacts.py  builds, HERE, the PTX and cubins phase A loads (into .whl/devcheck)
phase_a.py     steps that need no PyCUDA and no tileforth: GEMM table, probes, JIT cost, launchers
phase_b.py     steps that need PyCUDA and tileforth: lost contexts, line latency, big launches, interop
"""
