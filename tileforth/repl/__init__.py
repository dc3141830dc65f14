"""tileforth.repl: the `tileforth` command.

    cli.py      arguments; runs files, -e sources, stdin, or the prompt
    prompt.py   the interactive prompt (prompt_toolkit, history file)
    session.py  one Forth session: a line in, its output or error out
    display.py  where results go (stdout/stderr, colour only on a terminal)
    views.py    how stacks and errors look (per-thread values, compactly)
"""
