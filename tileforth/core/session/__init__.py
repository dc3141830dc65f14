"""A session: the outer interpreter (`Forth`), the host words that run
between launches, inspection, kernel files and the word reference. The last
stage: it may import every other, and none imports it."""
