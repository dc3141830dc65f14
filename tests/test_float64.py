"""The f64 float stack (issue 11): a session made with float_bits=64 (or, as the default of new
sessions, TILEFORTH_FLOAT=f64) has an f64 float stack, float literals, F@ F! (8 bytes), math
functions, conversions and output. The width is the session's (its Machine, issue 24): an f64
session and f32 sessions live side by side in this process.
"""

from __future__ import annotations

import json
import math
import os
import struct

import numpy as np
import pytest

import gforth
from tileforth.core import Forth, ForthError



def run_f64(script: str) -> dict:
    """Run `script` (Python that sets the dict `out`) here, beside this process's f32 sessions, with
    TILEFORTH_FLOAT=f64: the sessions it makes are f64 (the variable is read when a session starts)."""
    out: dict = {}
    was = os.environ.get("TILEFORTH_FLOAT")
    os.environ["TILEFORTH_FLOAT"] = "f64"
    try:
        exec(script, {"out": out})
    finally:
        if was is None:
            del os.environ["TILEFORTH_FLOAT"]
        else:
            os.environ["TILEFORTH_FLOAT"] = was
    return json.loads(json.dumps(out))  # what a child process would have sent back


# lines whose output gforth (f64, PRECISION 15) prints the same
GFORTH_LINES = [
    "1e 3e F/ F.", "2e FSQRT F.", "1e 7e F/ F.", "100e FSQRT F.", "-2.5e F.", "1e 3e F/ FS.", "12345.678e FE.",
    "1e 3e F/ FE.", "-2.5e-7 FS.", "1e300 FS.", "1e FEXP F.", "2e FLN F.", "1e FATAN 4e F* F.", "0.5e FASIN F.",
    "2e 0.5e F** F.", "1e FSINH F.", "3e FLOG F.", "1e-10 FEXPM1 FS.", "1e-10 FLNP1 FS.", "1e 2e FATAN2 F.",
    "123456789012345e F>D D.", "12345678901234567. D>F F.", "-7.9e F>S .", "-7 S>F F.", "1e 3e F/ 3e F* 1e F= .",
]


@pytest.fixture(scope="module")
def f64_results() -> dict:
    script = f"""
from tileforth.core import Forth
f = Forth(float_bits=64)
out["bits"] = f.machine.float_bits
f.eval("15 SET-PRECISION")
out["lines"] = [f.eval(line) for line in {GFORTH_LINES!r}]
f.eval("17 SET-PRECISION")
out["tiny"] = f.eval("1.0000000000000002e F.")
out["one"] = f.eval("1e F.")
out["third"] = f.eval("1e 3e F/ F.")
out["precision"] = f.eval("PRECISION .")
out["sizes"] = f.eval("1 FLOATS . 100 FLOAT+ . 5 FALIGNED . 1 SFLOATS . 1 DFLOATS .")
f.eval("CREATE x 2 FLOATS ALLOT  1e 3e F/ x F!  2e FSQRT x FLOAT+ F!")
out["mem"] = f.eval("x F@ F. x FLOAT+ F@ F. x @ .")
out["sf"] = f.eval("x 1e 3e F/ SF! x SF@ F.")
out["df"] = f.eval("1e 3e F/ x DF! x DF@ F.")
f.eval("2e FSQRT FCONSTANT r2  1e 3e F/ FVALUE third  FVARIABLE v  1e 7e F/ v F!")
out["defs"] = f.eval("r2 F. third F. v F@ F.")
out["to_float"] = f.eval('S" 0.1" >FLOAT . F.')
out["represent"] = f.eval("1e 3e F/ PAD 17 REPRESENT . . . PAD 17 TYPE")
out["stack"] = (f.eval("2e FSQRT 1e-300 1e300") or True) and f.float_stack()
f.eval("FDROP FDROP FDROP")
vals = {{}}
for name in ("FSIN", "FCOS", "FTAN", "FEXP", "FLN", "FSQRT", "FASINH", "FACOSH", "FATANH", "FLOG", "FALOG"):
    f.eval(f"0.75e {{name}}" if name not in ("FACOSH",) else f"1.75e {{name}}")
    vals[name] = f.float_stack()[-1]
    f.eval("FDROP")
out["math"] = vals
"""
    return run_f64(script)


def test_an_f64_session_beside_f32_sessions(f64_results):
    assert f64_results["bits"] == 64
    f32 = Forth()
    assert f32.machine.float_bits == 32 and f32.eval("1e 3e F/ F. 1 FLOATS .") == "0.33333334 4 "
    f64 = Forth(float_bits=64)
    assert f64.eval("1e 3e F/ F. 1 FLOATS .") == "0.3333333333333333 8 "
    assert f32.eval("1e 3e F/ F. PRECISION .") == "0.33333334 9 "  # each keeps its own width
    f32.eval("2e FSQRT")
    f64.eval("2e FSQRT")
    assert f32.float_stack() == [float(np.float32(math.sqrt(2)))] and f64.float_stack() == [math.sqrt(2)]


def test_tileforth_float_is_read_when_a_session_starts(monkeypatch):
    monkeypatch.setenv("TILEFORTH_FLOAT", "f64")
    assert Forth().eval("1 FLOATS .") == "8 "  # no new process: the variable is read by the session
    assert Forth(float_bits=32).eval("1 FLOATS .") == "4 "  # an explicit width wins
    monkeypatch.setenv("TILEFORTH_FLOAT", "f16")
    with pytest.raises(ForthError, match="write f32 or f64"):
        Forth()


def test_a_float_width_other_than_32_or_64_is_refused():
    with pytest.raises(ForthError, match="f32 or f64"):
        Forth(float_bits=16)


def test_output_matches_gforth(f64_results):
    gforth.require()
    expected = [gforth.output("15 SET-PRECISION " + line) for line in GFORTH_LINES]
    assert list(zip(GFORTH_LINES, f64_results["lines"])) == list(zip(GFORTH_LINES, expected))


def test_f64_digits(f64_results):
    r = f64_results
    assert r["tiny"] == "1.0000000000000002 " and r["one"] == "1. "
    assert r["third"] == "0.3333333333333333 " and r["precision"] == "17 "


def test_float_memory_is_8_bytes(f64_results):
    r = f64_results
    assert r["sizes"] == "8 108 8 4 8 "
    third_bits = int.from_bytes(struct.pack("<d", 1 / 3), "little", signed=True)
    assert r["mem"] == f"0.3333333333333333 1.4142135623730951 {third_bits} "
    assert r["sf"] == "0.3333333432674408 "  # SF@ SF! stay f32
    assert r["df"] == "0.3333333333333333 "


def test_host_words_keep_f64(f64_results):
    r = f64_results
    assert r["defs"] == "1.4142135623730951 0.3333333333333333 0.14285714285714285 "
    assert r["to_float"] == "-1 0.1 "
    assert r["represent"].startswith("-1 0 0 ")  # valid, not negative, n = 0
    digits = r["represent"].split()[-1]
    assert digits.startswith("3333333333333333") and len(digits) == 17
    assert r["stack"] == [math.sqrt(2), 1e-300, 1e300]


def test_math_functions_to_f64_accuracy(f64_results):
    want = {"FSIN": math.sin(0.75), "FCOS": math.cos(0.75), "FTAN": math.tan(0.75), "FEXP": math.exp(0.75),
            "FLN": math.log(0.75), "FSQRT": math.sqrt(0.75), "FASINH": math.asinh(0.75),
            "FACOSH": math.acosh(1.75), "FATANH": math.atanh(0.75), "FLOG": math.log10(0.75),
            "FALOG": 10 ** 0.75}
    for name, value in want.items():
        assert math.isclose(f64_results["math"][name], value, rel_tol=1e-15), name


def test_ptxas_accepts_an_f64_float_word():
    from tileforth.backends.cuda.ptx import ptxas_path
    if ptxas_path() is None:
        pytest.skip("ptxas (nvidia-cuda-nvcc wheel) not installed")
    out = run_f64("""
from tileforth.core import Forth
from tileforth.backends.cuda.ptx import ptxas
from tileforth.export.kernels import word_ptx
f = Forth(float_bits=64)
f.eval("4 F32 ARRAY xs : m ( F: r -- r ) FSIN FSQRT xs SF@ F* FDUP xs SF! 1e FATAN2 F>D D>F ;")
ptx = word_ptx(f, "m", "sm_80")
ptxas(ptx, "sm_80")
out["f64"] = ".f64" in ptx
out["f32_math"] = "__nv_sinf" in ptx or "sin.approx.f32" in ptx
""")
    assert out == {"f64": True, "f32_math": False}
