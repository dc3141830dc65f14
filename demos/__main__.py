"""`python -m tileforth.demos [NAME [tileforth options]]`: run a demo shipped with the package (the tour by
default) through the `tileforth` command, as `tileforth demos/NAME.fth` does in a checkout."""
import sys

from tileforth.demos import names, path


def main(argv: list[str]) -> int:
    name = argv[0] if argv and not argv[0].startswith("-") else "tour"
    rest = argv[1:] if argv and not argv[0].startswith("-") else argv
    if name not in names():
        print(f"tileforth.demos: no demo {name!r}; the demos are: {', '.join(names())}", file=sys.stderr)
        return 2
    from tileforth.repl.resident import entry
    sys.argv = ["tileforth", *rest, str(path(name))]
    entry()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
