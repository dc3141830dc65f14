"""The demos as package data (the wheel's tileforth/demos; in a checkout, tileforth/demos is a link to
demos/): `python -m tileforth.demos` lists them, `python -m tileforth.demos tour` runs the tour."""
from pathlib import Path

HERE = Path(__file__).resolve().parent


def names() -> list[str]:
    return sorted(p.stem for p in HERE.glob("*.fth"))


def path(name: str) -> Path:
    """The file of the demo `name` (tour, saxpy, gemm...)."""
    return HERE / f"{name.removesuffix('.fth')}.fth"
