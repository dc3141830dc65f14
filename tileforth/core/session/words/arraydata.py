"""Data words: fill an array or matrix for exploring, and move it to and from
`.npy` files.  They run on the host and name the array after them:

    ZEROS xs            0 everywhere
    1.5e AFILL xs       one value everywhere          ( F: r -- )
    RAMP xs             0 1 2 ... in row-major order
    IDENTITY m          1 on the diagonal, 0 elsewhere (matrices)
    42 RANDOM xs        seeded uniform values in [-1, 1)  ( seed -- )
    LOAD-NPY xs a.npy   values from a .npy file of the same shape
    SAVE-NPY xs a.npy   values to a .npy file

Values are converted to the array's element type as numpy's `astype` does
(integers truncate, f16 rounds).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ForthError
from ...front.dictionary import Constant
from ...front.reader import Token
from ...lazy import np
from .table import FILE, NAME, NAME_ON_LINE, Parse, host

if TYPE_CHECKING:
    from pathlib import Path

    from ..interpreter import Forth


RANDOM_INT_RANGE = (-100, 100)  # integer arrays: RANDOM draws integers in [-100, 100)


def _array(f: "Forth", tok: Token, word: str) -> tuple[Token, Constant]:
    """The array named after `word` (on the same line)."""
    from .inspection import next_on_line
    ex = {"AFILL": "1.5e AFILL xs", "RANDOM": "42 RANDOM xs", "LOAD-NPY": "LOAD-NPY xs data.npy",
          "SAVE-NPY": "SAVE-NPY xs data.npy"}.get(word, f"{word} xs")
    name = next_on_line(f, tok)
    if name is None:
        raise ForthError(f"{word} needs the name of an array after it, e.g. `{ex}`", tok.pos, tok.text)
    e = f.dict.get(name.key)
    if e is None:
        raise ForthError(f"{word}: unknown word {name.text}: create the array first, e.g. "
                         f"`16 F32 ARRAY {name.text}` or `16 16 F32 MATRIX {name.text}`", name.pos, name.text)
    if not isinstance(e, Constant) or e.array is None:
        raise ForthError(f"{word} fills arrays made with ARRAY or MATRIX, but {name.text} is a {e.kind} word",
                         name.pos, name.text)
    return name, e


def _store(f: "Forth", e: Constant, values: np.ndarray) -> None:
    addr, shape, et = e.array
    with np.errstate(invalid="ignore", over="ignore"):
        f.backend.write(addr, np.ascontiguousarray(np.asarray(values).reshape(shape).astype(et.dtype)))


def w_zeros(f: "Forth", tok: Token) -> None:
    _, e = _array(f, tok, "ZEROS")
    _store(f, e, np.zeros(e.array[1]))


def w_fill(f: "Forth", tok: Token) -> None:
    _, e = _array(f, tok, "AFILL")
    r = f.pop_uniform_float("AFILL", "`1.5e AFILL xs`")
    _, shape, et = e.array
    with np.errstate(invalid="ignore", over="ignore"):  # converted once, as _store converts each element
        value = np.array(r).astype(et.dtype)
    _store(f, e, np.full(shape, value, et.dtype))  # built in the element type: no wider temporary


RAMP_CHUNK = 1 << 16  # RAMP counts in int64 this many elements at a time


def w_ramp(f: "Forth", tok: Token) -> None:
    _, e = _array(f, tok, "RAMP")
    _, shape, et = e.array
    n = int(np.prod(shape))
    out = np.empty(n, et.dtype)  # the ramp in the element type; the int64 count only a chunk at a time
    with np.errstate(invalid="ignore", over="ignore"):
        for lo in range(0, n, RAMP_CHUNK):
            out[lo:lo + RAMP_CHUNK] = np.arange(lo, min(lo + RAMP_CHUNK, n), dtype=np.int64).astype(et.dtype)
    _store(f, e, out)


def w_identity(f: "Forth", tok: Token) -> None:
    name, e = _array(f, tok, "IDENTITY")
    shape = e.array[1]
    if len(shape) != 2:
        raise ForthError(f"IDENTITY needs a matrix, but {name.text} is a 1-dimensional array of {shape[0]}; "
                         f"make one with MATRIX, e.g. `16 16 F16 MATRIX {name.text}`", name.pos, name.text)
    _store(f, e, np.eye(*shape))


def w_random(f: "Forth", tok: Token) -> None:
    _, e = _array(f, tok, "RANDOM")
    (seed,) = f.pop_uniform(1, "RANDOM")
    rng = np.random.default_rng(seed & (2**64 - 1))
    _, shape, et = e.array
    if et.is_float:
        _store(f, e, rng.uniform(-1.0, 1.0, shape))
    else:
        _store(f, e, rng.integers(*RANDOM_INT_RANGE, size=shape))


def _path(f: "Forth", tok: Token, word: str, name: Token) -> Path:
    """The file name after the array's name: the next word, or "text with
    blanks" in double quotes."""
    r = f.reader
    line = r.lines[r.row] if r.row < len(r.lines) else ""
    rest = line[r.col:]
    stripped = rest.lstrip()
    if stripped.startswith('"'):
        start = r.col + (len(rest) - len(stripped)) + 1
        end = line.find('"', start)
        if end < 0:
            raise ForthError(f'{word}: the file name "{line[start:]} needs a closing "', tok.pos, tok.text)
        r.col = end + 1
        text = line[start:end]
    else:
        from .inspection import next_on_line
        nxt = next_on_line(f, name)
        text = nxt.text if nxt is not None else ""
    if not text:
        raise ForthError(f"{word} needs a file name after the array's name, e.g. `{word} {name.text} data.npy`",
                         tok.pos, tok.text)
    from pathlib import Path  # imported by the first file word (import tileforth.core stays lean)

    return Path(text).expanduser()


def npy_header(fh, path: Path, what: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    """The shape, Fortran order and dtype a .npy file's header declares,
    read without reading its data, or a ForthError saying what is wrong."""
    import tokenize

    from numpy.lib import format as npy
    try:
        version = npy.read_magic(fh)
        readers = {(1, 0): npy.read_array_header_1_0, (2, 0): npy.read_array_header_2_0}
        if version not in readers:
            raise ValueError(f"version {version[0]}.{version[1]} of the format, which holds only named "
                             "fields")
        shape, fortran, dtype = readers[version](fh)
    except (ValueError, EOFError, SyntaxError, TypeError, tokenize.TokenError, RecursionError, MemoryError) as exc:
        # (numpy's header parser: an unclosed '{' or '(' is a TokenError, deep nesting a RecursionError)
        if isinstance(exc, tokenize.TokenError):
            exc = "its header has an unclosed bracket"
        if fh.tell() == 0 and not fh.read(1):
            raise ForthError(f"{what}: {path} is empty; write it with numpy.save or SAVE-NPY") from None
        raise ForthError(f"{what}: {path} is not a .npy file numpy can read ({exc}); write it with numpy.save "
                         "or SAVE-NPY") from None
    if dtype.hasobject:
        raise ForthError(f"{what}: {path} holds Python objects, so it is not a .npy file numpy can read without "
                         "pickle (which could run code); save an array of numbers")
    if dtype.kind not in "biuf":
        raise ForthError(f"{what}: {path} holds {dtype} values; it needs numbers (bool, integer or float)")
    return tuple(shape), fortran, dtype


def read_npy(path: Path, what: str, shape: tuple[int, ...] | None = None, name: str = "",
             max_bytes: int | None = None) -> np.ndarray:
    """A numeric .npy file's array.  The header is read first: the shape
    (when `shape` is given), the size (at most `max_bytes`) and the file's
    length are checked before the data is read, so a header that claims
    10^12 elements is refused instead of allocated."""
    import math
    import os
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        raise ForthError(f"{what}: no file {path} (relative names start in {os.getcwd()})") from None
    except OSError as exc:
        raise ForthError(f"{what}: cannot read {path}: {exc.strerror or exc}") from None
    with fh:
        got, fortran, dtype = npy_header(fh, path, what)
        dims = "x".join(map(str, got)) or "a scalar"
        if shape is not None and got != tuple(shape):
            want = "x".join(map(str, shape))
            raise ForthError(f"{what}: {path} holds a {dims} array but {name} is {want}: the shapes must "
                             "match (reshape the data in numpy, or make the array that shape)")
        nbytes = math.prod(got) * dtype.itemsize
        if max_bytes is not None and nbytes > max_bytes:
            raise ForthError(f"{what}: {path} holds a {dims} array of {nbytes:,} bytes, more than the "
                             f"{max_bytes:,} bytes an array may have; use a smaller array")
        have = os.fstat(fh.fileno()).st_size - fh.tell()
        if have < nbytes:
            raise ForthError(f"{what}: {path} is cut short: its header declares a {dims} {dtype} array of "
                             f"{nbytes:,} bytes, but {have:,} bytes follow it; write the file again")
        data = np.fromfile(fh, dtype=dtype, count=math.prod(got)) if nbytes else np.zeros(0, dtype)
    return data.reshape(got, order="F" if fortran else "C")


def w_load_npy(f: "Forth", tok: Token) -> None:
    name, e = _array(f, tok, "LOAD-NPY")
    path = _path(f, tok, "LOAD-NPY", name)
    _, shape, et = e.array
    _store(f, e, read_npy(path, "LOAD-NPY", shape, name.text))


def w_save_npy(f: "Forth", tok: Token) -> None:
    name, e = _array(f, tok, "SAVE-NPY")
    path = _path(f, tok, "SAVE-NPY", name)
    values = f.array(e.name)
    if e.array[2].name == "BF16":  # numpy cannot read bfloat16 .npy files without ml_dtypes
        values = values.astype(np.float32)
    try:
        with open(path, "wb") as fh:
            np.save(fh, values, allow_pickle=False)
    except OSError as exc:
        raise ForthError(f"SAVE-NPY: cannot write {path}: {exc.strerror}") from None


def _in_memory(word: str, fn):
    """fn, with numpy running out of host memory (the temporaries of a big
    array) reported as a ForthError instead of a MemoryError."""
    def run(f: "Forth", tok: Token) -> None:
        try:
            fn(f, tok)
        except MemoryError:
            raise ForthError(f"{word}: not enough host memory for the values of this array; use a smaller "
                             "array", tok.pos, tok.text) from None
    run.__name__, run.__doc__ = fn.__name__, fn.__doc__
    return run


DATA_GROUP = "Data (host words)"


host("ZEROS", "( -- )", "Set every element of the array named next to 0.", "8 F32 ARRAY xs  ZEROS xs",
     fn=_in_memory("ZEROS", w_zeros), wordset="tileforth", parses=NAME_ON_LINE, group=DATA_GROUP)
host("AFILL", "( F: r -- )", "Set every element of the array named next to r (converted to its type): "
     "array fill. The standard FILL ( c-addr u char -- ) fills bytes.", "8 F32 ARRAY xs  1.5e AFILL xs",
     fn=_in_memory("AFILL", w_fill), wordset="tileforth", parses=NAME_ON_LINE, group=DATA_GROUP)
host("RAMP", "( -- )", "Set the elements of the array named next to 0 1 2 ... in row-major order.",
     "8 I32 ARRAY xs  RAMP xs  .M xs", fn=_in_memory("RAMP", w_ramp), wordset="tileforth", parses=NAME_ON_LINE,
     group=DATA_GROUP)
host("IDENTITY", "( -- )", "Set the matrix named next to the identity (1 on the diagonal).",
     "16 16 F16 MATRIX b  IDENTITY b", fn=_in_memory("IDENTITY", w_identity), wordset="tileforth",
     parses=NAME_ON_LINE, group=DATA_GROUP)
host("RANDOM", "( seed -- )", "Fill the array named next with uniform values in [-1, 1) from numpy's "
     "default_rng(seed), converted to its type (integer arrays: integers in [-100, 100)).",
     "16 16 F16 MATRIX a  42 RANDOM a", fn=_in_memory("RANDOM", w_random), wordset="tileforth", parses=NAME_ON_LINE,
     group=DATA_GROUP)
host("LOAD-NPY", "( -- )", "Read the array named next from a .npy file of the same shape: "
     "`LOAD-NPY xs data.npy` (a name with blanks in \"double quotes\").", "16 F32 ARRAY xs  LOAD-NPY xs data.npy",
     fn=_in_memory("LOAD-NPY", w_load_npy), wordset="tileforth",
     parses=Parse(NAME, same_line=True, then=Parse(FILE, same_line=True)), group=DATA_GROUP)
host("SAVE-NPY", "( -- )", "Write the array named next to a .npy file (bf16 arrays as f32): "
     "`SAVE-NPY xs data.npy`.", "16 F32 ARRAY xs  RAMP xs  SAVE-NPY xs data.npy",
     fn=_in_memory("SAVE-NPY", w_save_npy), wordset="tileforth",
     parses=Parse(NAME, same_line=True, then=Parse(FILE, same_line=True)), group=DATA_GROUP)
