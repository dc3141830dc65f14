"""docs/words.md, written from a session's dictionary and the tables it comes from:

    python -m tileforth.repl.wordsdoc > docs/words.md

(a client of the session, as every front end is: core's reference module lays the page out)."""
from __future__ import annotations

from tileforth.core import Forth
from tileforth.core.session.reference import markdown


def main() -> None:
    print(markdown(Forth().dict), end="")


if __name__ == "__main__":
    main()
