"""Moved: the inspection words are core/inspection.py, their view records
core/views.py.  Only `next_on_line` is still imported from here (by
core/datawords.py); delete this file once that import names .inspection."""
from .inspection import next_on_line  # noqa: F401
