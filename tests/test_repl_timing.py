"""The REPL shows how long a line took: compile, run and read-back."""
import re

from tileforth.core import Forth
from tileforth.repl.prompt import timing_text


def test_line_timing_sums_the_launches_of_a_line():
    f = Forth()
    f.eval("1 2 + DROP")
    one = dict(f.line_timing)
    assert set(one) == {"compile", "run", "read"} and all(v >= 0 for v in one.values())
    assert one["compile"] > 0 and one["run"] > 0
    f.eval("1 DROP HERE DROP 2 DROP")  # two launches around a host word
    assert f.line_timing["run"] >= f.last_timing["run"]
    f.eval("1 DROP")  # the same line again is cached: no compile time to speak of
    f.eval("1 DROP")
    assert f.line_timing["compile"] < one["compile"]


def test_timing_text_names_each_phase_in_ms():
    text = timing_text({"compile": 0.0031, "run": 0.0002, "read": 0.0})
    assert re.fullmatch(r"time  compile 3\.1 ms  run 0\.2 ms  read 0\.0 ms", text)
