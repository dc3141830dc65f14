"""The front of the pipeline: source text to a program (tokens, the program
tree, stack effects, dictionary entries). Imports only tileforth/core/errors.py."""
