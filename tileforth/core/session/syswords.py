"""`set_step_budget`, kept here for tileforth/repl/cli.py, which imports it from
this module; the system words moved to words/system.py. This module goes when
cli.py imports from there."""
from __future__ import annotations

from .words.system import set_step_budget

__all__ = ["set_step_budget"]
