"""The package's version, in one place (tileforth/__init__.py, pyproject.toml and `tileforth --version` read it here)."""
__version__ = "0.1.0"
