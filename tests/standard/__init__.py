"""Measuring tileforth against the standard Forth test suites (issue 11).

``scan`` counts the tests of a file, ``runner`` feeds a file line by line to
a fresh cpu session with the Forth tester in ``tester.fth``, ``gforth_side``
runs the same file through gforth with gforth's own tester, and ``suites``
lists the files (gforth's coretest.fs and the vendored Forth-2012 suite in
``forth2012/``).  ``benchmarks/standard.py`` prints the tables.
"""
