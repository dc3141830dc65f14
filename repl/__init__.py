"""tileforth.repl"""
