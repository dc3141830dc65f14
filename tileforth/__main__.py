"""`python -m tileforth`: the `tileforth` command (tileforth/repl/resident.py)."""
from tileforth.repl.resident import entry

if __name__ == "__main__":
    entry()
