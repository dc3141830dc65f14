"""tileforth.repl: the `tileforth` command.

    cli.py      arguments; runs files, -e sources, stdin, or the prompt
    prompt.py   the interactive prompt (prompt_toolkit, history file)
    session.py  one Forth session: a line in, its output or error out
    display.py  where results go (stdout/stderr, colour only on a terminal)
    render.py   how stacks and errors look (per-thread values, compactly)
    resident.py the console script's front door: a plain run, or one through a resident server
    server.py   the opt-in resident server; serverctl.py: `tileforth serve`, `tileforth server status|stop`;
                rendezvous.py: what the two sides share (folder, key, messages)
"""
