"""The outer interpreter: the host side of a session.

    f.eval(line):  tokens -> device words gather into a segment -> a host word
                   or the end of the line flushes it: compile, launch over the
                   grid, read back output -> host words act on the stacks.

The stacks live in the backend's state buffer between launches; a failed line
restores the snapshot taken before it, so the session keeps its state.
"""
from __future__ import annotations

import builtins  # `dict` in Forth's body is the façade's name for FORTH-WORDLIST
from operator import attrgetter
import os
import time
from typing import TYPE_CHECKING, Any, Callable

from ... import registry
from ..compile import layout as L
from ..compile.codegen import Sites, Strings
from ..compile.compiler import Compiler
from ..compile.machine import Machine
from ..compile.primitives import TABLE as PRIMS
from ..compile.primitive import Primitive
from ..compile.state import StackState, StackView, differing, set_depths, uniform_top
from ..compile.tiles import Tile
from ..errors import SESSION_CLOSED, ForthError
from ..front.dictionary import Colon, Constant, HostWord, Immediate
from ..front.effects import body_effect
from ..front.linekey import LineShape, line_shape
from ..front.reader import Reader, Token, parse_double, parse_float, parse_integer, wrap64
from ..front.tree import Call, FLit, HostOp, Lit, LocalGet, Node, Prim, Recurse
from ..lazy import np
from ..records import record
from .device import Device, DeviceSnapshot, load_backend
from .hostexec import device_ok, execute, run_host, walk_now, walk_segment
from .words.table import WORDS
from .building import CLOSERS, OPENERS, Frame, definition_text
from .launcherrors import divergence_error, launch_error, word_at
from .output import bad_base_message, format_output
from .output import ranges as _ranges
from .parts import Builder, DataSnapshot, DataSpace, HostIO, InputSnapshot, TextInput, Views
from .linecache import LineCache, Recording
from .tokens import Tokens
from .wordlists import Dictionary, DictionarySnapshot
from .inputpos import note_in, sync_in
from .devarrays import wait_for_stream
from ..heldsigint import deliver_deferred, undo
from .kernelrun import KernelRun
from .launchshape import check_python_shape

if TYPE_CHECKING:
    from .reference import Entry

LEAD_PUSHED = 64  # a segment's leading literals the host pushes (held in the code, thousands compile for minutes)
# a segment of a few literals alone is pushed by the host up to this many threads (no compile); past it a
# kernel pushes them (the host's pass over every thread's stacks: 94 ms at 524,288 threads against a
# kernel's 16, 11 s at 12.6M; fuzz seed 404 took it for a hang)
HOST_PUSH_THREADS = 131072
FOLD_MAX = 64  # the deepest literal PICK/ROLL count compiled as a constant (deeper ones: at run time)
PRELUDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prelude.fth")
_DOT_S = PRIMS[".S"]
_EXECUTE = PRIMS["EXECUTE"]
DEVICE_HEAP = frozenset({"ALLOCATE", "FREE", "RESIZE"})  # host words a definition compiles into device code where
# the backend runs them there (caps.device_heap: compile/heapgen.py)


@record(frozen=True)
class TileView:
    """One tile-stack entry as the host sees it."""

    kind: str  # "a" | "b" | "acc"
    shape: tuple[int, int]  # rows, cols of the logical matrix
    dtype: str  # "f16" | "bf16" | "f32"
    layout: str
    mnk: tuple[int, int, int]
    values: np.ndarray


def exporter(name: str) -> Callable[..., Any]:
    """An exporter from the table (tileforth/registry.py): core names what it needs, never a module."""
    fn = registry.exporter(name)
    if fn is None:
        raise ForthError(f"no exporter {name!r} is registered: import tileforth (its top package registers them)")
    return fn


def unknown_word_message(name: str, prompt_words: dict[str, str] | None = None) -> str:
    """Why `name` is not a word: a command of the prompt, a standard word
    tileforth has not (yet), or, most often, a misspelt or undefined name.
    Each starts `unknown word NAME:` (tests/standard/runner.py groups by it)."""
    from .wordsets import WORDSETS

    upper = name.upper()
    if any(not c.isprintable() for c in name):  # a NUL or control character would not show: escaped
        shown = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in name)
        odd = ", ".join(dict.fromkeys(ascii(c)[1:-1] for c in name if not c.isprintable()))
        return (f"unknown word {shown}: the name holds a character that does not print ({odd}, shown escaped); "
                "remove it from the source")
    if prompt_words and upper in prompt_words:
        return (f"unknown word {name}: it is a command of {prompt_words[upper]}, not a dictionary word; it "
                "works only typed alone on a line at the prompt")
    ws = next((ws for ws in WORDSETS if upper in ws.words), None)
    if ws is not None:
        why = ("leaves out on purpose (the word-set table at the end of docs/words.md says why)"
               if upper in ws.cannot else "does not have (yet); docs/words.md lists the words it has, and at "
               "its end what each word set lacks")
        return (f"unknown word {name}: it is a standard Forth word ({ws.name} word set, {ws.section}) that "
                f"tileforth {why}")
    return (f"unknown word {name}: check the spelling, or define it first (`: {name} ... ;`); WORDS lists "
            "the dictionary")


class Collector:
    """Gathers the top-level code of a body instead of running it line by line
    (a kernel file's body is one kernel): while `Forth.collector` is set,
    segments are added to `nodes`, control structures may span lines, and each
    host word outside a definition is shown to `host_word` first, which may
    refuse it with a ForthError."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []

    def host_word(self, word: HostWord, tok: Token) -> None:
        pass


class _Part:
    """A name of the `Forth` façade that is an attribute of one of its parts: when the class is
    made it becomes a property reading and setting it there (its getter is operator.attrgetter,
    so a read costs about what an attribute's does)."""

    def __init__(self, part: str, name: str = "") -> None:
        self.part, self.name = part, name

    def __set_name__(self, owner: type, facade: str) -> None:
        part, target = self.part, self.name or facade

        def set_(obj: Any, value: Any) -> None:
            setattr(getattr(obj, part), target, value)
        setattr(owner, facade, property(attrgetter(f"{part}.{target}"), set_, doc=f"the {part} part's {target}"))


def _part(part: str, name: str = "") -> Any:
    """A façade name kept by `part` (a _Part; typed Any: what it holds is the part's to say)."""
    return _Part(part, name)


@record(frozen=True)
class SessionSnapshot:
    """What a failed line restores, part by part (the definition being built is abandoned)."""

    device: DeviceSnapshot
    words: DictionarySnapshot | None  # None: the line cannot change it (a kept line: device code alone)
    space: DataSnapshot
    text: InputSnapshot | None


class _Closed:
    """What a closed session holds in place of each part: every use of it is a ForthError that says
    the session is closed (not an AttributeError deep inside)."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        raise ForthError(SESSION_CLOSED)

    def _closed(self, *args: object, **kwargs: object) -> Any:
        raise ForthError(SESSION_CLOSED)

    __call__ = __iter__ = __len__ = __getitem__ = __setitem__ = __contains__ = __bool__ = _closed

    def __repr__(self) -> str:
        return "<closed>"


_CLOSED = _Closed()


class Forth:
    """A tileforth session: the façade over its parts.

        device   the backend, the launch shape, the kernel cache, the tile stack (device.py)
        words    the dictionary: word lists, search order, current, last defined (wordlists.py)
        space    data space, BASE, STATE, PAD, shared memory, the heap (parts.py)
        builder  the definition being compiled, its control frames, the line's segment
        text     the text interpreter's input: readers, SOURCE/>IN, REFILL, [IF] skipping
        io       files, blocks, included files
        views    how the inspection words show things

    Each part owns its state and its snapshot; the names below the parts are
    the façade's, each kept by one part."""

    # what a session holds itself: nothing can be added to it from outside (a part declares new state)
    __slots__ = ("device", "words", "space", "builder", "text", "io", "views", "prompt_words", "sites", "strings",
                 "compiler", "tokens", "out_parts", "line_timing", "warnings", "_reference", "collector",
                 "on_segment", "ptx_arch", "lines", "_recording", "_kept", "__weakref__")

    # the façade's names for the parts' state (host words read and set them through it)
    backend = _part("device")
    machine = _part("device")
    checked = _part("device")
    step_budget = _part("device")
    kcache = _part("device")
    tiles = _part("device")
    tile_config = _part("device")
    last_timing = _part("device")
    shape = _part("device")
    dict = _part("words", "forth")
    wordlists = _part("words")
    order = _part("words")
    current = _part("words")
    last_defined = _part("words")
    shadowed = _part("words")
    data_addr = _part("space")
    data_space_size = _part("space")
    base_addr = _part("space")
    here = _part("space")
    pad_addr = _part("space")
    shared_bytes = _part("space")
    heap = _part("space")
    colon = _part("builder")
    interpreting = _part("builder")
    interp_floor = _part("builder")
    frames = _part("builder")
    colon_text = _part("builder")
    colon_start = _part("builder")
    segment = _part("builder")
    segment_uses_base = _part("builder")
    reader = _part("text")
    line_reader = _part("text")
    input = _part("text")
    more_input = _part("text")
    skipping = _part("text")
    comment_open = _part("text")
    files = _part("io")
    blocks = _part("io")
    included = _part("io")
    substitutions = _part("io")
    display = _part("views")
    dot_s_shows_all = _part("views")
    view_warp = _part("views")
    profiling = _part("views")
    last_profile = _part("views")

    def __init__(self, backend: str = "cpu", checked: bool = True, prelude: bool = True,
                 float_bits: int | None = None, machine: Machine | None = None) -> None:
        # the session's settings (machine.py): float_bits=64, or TILEFORTH_FLOAT=f64 as the default, gives an
        # f64 float stack; `machine` sets the stacks' capacities too
        asked = None  # the stacks are sized by each launch (STACK-SIZE), unless a machine says how deep
        if machine is None:
            machine = Machine.from_env(float_bits)
        elif float_bits is not None and float_bits != machine.float_bits:
            raise ForthError(f"float_bits={float_bits} but the machine given is f{machine.float_bits}: give one")
        else:
            asked = (machine.ds_max, machine.fs_max)
        self.device = Device(load_backend(backend, machine), checked, asked)
        self.words = Dictionary()
        self.space = DataSpace(self.device)
        self.builder = Builder()
        self.text = TextInput()
        self.io = HostIO()
        self.views = Views()
        # names a front end acts on itself, not dictionary words (name -> where): the unknown-word error says so
        self.prompt_words: dict[str, str] = {}
        self.sites = Sites()
        self.strings = Strings()
        self.compiler = Compiler(self.backend.target, self.sites, self.strings, checked, lambda: self.base_addr,
                                 lambda: self.tokens.table())
        self.tokens = Tokens(self._node_for)  # execution tokens (tokens.py)
        self.out_parts: list[str] = []
        self.line_timing: dict[str, float] = {}
        self.warnings: list[str] = []  # notes for the user from the last line (e.g. "redefined X")
        self._reference: dict[str, "Entry"] | None = None
        self.collector: Collector | None = None  # gathers a body's code instead of running it
        self.on_segment: Callable[[list[Node], list[Tile]], None] | None = None  # e.g. also compile to PTX
        self.ptx_arch: str = self.backend.caps.arch or "sm_80"  # for SEE-PTX
        self.lines = LineCache()  # lines read before, run again without reading them (linecache.py)
        self._recording: Recording | None = None  # the line being read, while it may be kept
        self._kept: tuple[list[Node], LineShape | None] | None = None  # a kept line's segment and its shape
        self._install()
        if prelude:
            with open(PRELUDE, encoding="utf-8") as fh:
                self.eval(fh.read(), source="prelude.fth")

    # ---- public API ----------------------------------------------------------
    def reference(self) -> builtins.dict[str, "Entry"]:
        """The reference entry of every built-in word, by name (HELP, SEE)."""
        from .reference import entries  # read when HELP or SEE first needs it (the prelude's text, the tables)
        if self._reference is None:
            self._reference = {}
            for e in entries():
                self._reference.setdefault(e.name.upper(), e)
        return self._reference

    def close(self) -> None:
        """Give the backend's resources back: the compiled kernels, and the
        cuda backend's GPU context (both also go when the session is collected),
        after writing the UPDATEd block buffers to the block file and closing
        the files the file words left open. Its big buffers (stacks, data space,
        arrays, thread records, device memory) go now, not at the next garbage
        collection: the session lets go of its parts (a closed session's every
        use is a ForthError). Closing twice does nothing."""
        if self.device is _CLOSED:
            return
        try:
            self.io.close(self)
        finally:
            try:
                self.device.close()
            finally:
                for name in Forth.__slots__:  # the parts hold one another (and the session): cycles
                    if name != "__weakref__":
                        setattr(self, name, _CLOSED)

    @property
    def closed(self) -> bool:
        """close() was called: the session can do nothing more."""
        return self.device is _CLOSED

    def __enter__(self) -> "Forth":
        """`with Forth() as f:` closes the session when the block ends (close), however it ends."""
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def backend_name(self) -> str:
        return self.backend.name

    @property
    def launch_shape(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        return self.shape.grid, self.shape.block

    def set_launch_shape(self, grid: tuple[int, int, int], block: tuple[int, int, int]) -> None:
        """The launch shape of the lines that follow, with empty stacks (GRID and THREADS check it first)."""
        self.device.set_shape(grid, block)

    @property
    def compiling(self) -> bool:
        return self.colon is not None

    @property
    def compile_state(self) -> bool:
        """STATE is true: a definition is open and not inside `[ ... ]`."""
        return self.colon is not None and not self.interpreting

    def lookup(self, key: str) -> Any:
        """The entry named `key` (upper case) in the search order, or None."""
        return self.words.lookup(key)

    def eval(self, src: str, source: str | None = None, *, line: int = 1, spanning: bool = False) -> str:
        """Interpret Forth source; returns what it printed. Raises ForthError
        and then leaves the stacks and the dictionary as they were.

        `source` and `line` name where src comes from (the file and the number
        of its first line): positions in errors, and in the words src defines,
        say so (a word that fails later reports where it was defined).
        `spanning`: a control structure may continue on the next line of src
        (the REPL's multi-line input); otherwise each line closes its own."""
        deliver_deferred()  # a Ctrl-C that landed in an LLVM object's destructor (heldsigint.py) stops here
        out = self._eval(src, source, spanning, line)
        deliver_deferred()
        return out

    def debug(self, src: str, watch: list[tuple[int, int]] | None = None) -> Any:
        """Run a line with a stop at every word of its launches (cpu backend): a Debugger to step
        it (debugger.py; docs/debugger.md). `watch`: (address, cells) pairs shown per lane."""
        from .debugger import debug
        return debug(self, src, watch)

    def data_stack(self, lane: int | None = 0) -> list[int] | list[list[int]]:
        """One thread's data stack, bottom first; lane=None: one list per thread."""
        st = StackView.read(self.backend)  # the depths, then the cells in use: no more comes back
        return st.data_rows() if lane is None else st.data(lane)

    def float_stack(self, lane: int | None = 0) -> list[float] | list[list[float]]:
        """One thread's float stack, bottom first; lane=None: one list per thread."""
        st = StackView.read(self.backend)
        return st.float_rows() if lane is None else st.floats(lane)

    def tile_stack(self, warp: int = 0) -> list["TileView"]:
        """The tile stack of one warp (warp 0 of block 0 by default), bottom
        first: each entry's kind, shape, type and logical matrix."""
        data = self.backend.tiles_of(warp)
        return [TileView(t.kind, t.rows_cols, t.dtype, t.layout, t.shape, data[i].copy())
                for i, t in enumerate(self.tiles)]

    def ptx(self, word: str, arch: str = "sm_80") -> str:
        """The PTX of a word launched as a kernel: its inputs become parameters
        (cells as .u64, then floats as .f32, after a context pointer)."""
        return exporter("word_ptx")(self, word, arch)

    def profile(self) -> builtins.dict | None:
        """The last PROFILE's figures as data: per load/store site and per launch
        (tileforth/core/session/accessprofile.py); None before the first PROFILE."""
        view = self.views.last_profile
        return view.data() if view is not None else None

    def kernel(self, word: str) -> Callable[..., KernelRun]:
        """A Python callable that runs `word` over a grid: arguments are its
        inputs in order (arrays -> their device address, ints -> cells, floats
        -> the float stack). numpy arrays are copied in and back; objects with
        __cuda_array_interface__ are used in place on the cuda backend and copied
        in and back through the host on the cpu backend. `grid` and `block` are
        an int or one to three ints, checked as GRID and THREADS check theirs.
        `stream`: a stream object (PyTorch's, CuPy's, PyCUDA's: anything with
        `synchronize()`) or a raw CUstream handle; the launch starts after the
        work queued on it so far, and since a call returns the results, work
        queued on it afterwards sees them. A call returns a KernelRun: what the launch printed and the results each
        thread left (kernelrun.py)."""
        entry = self.dict.get(word.upper())
        if not isinstance(entry, Colon):
            raise ForthError(f"{word} is not a colon definition")
        if entry.host:
            raise ForthError(f"{word} runs on the host (it defines or compiles words), so it cannot be a kernel")
        if not entry.effect.static:
            raise ForthError(f"{word} has a dynamic stack effect; a kernel needs a static one")

        def run(*args: Any, grid: int | tuple[int, ...] = (1, 1, 1),
                block: int | tuple[int, ...] = (32, 1, 1), stream: Any = None) -> KernelRun:
            g, b = check_python_shape(self.backend.caps, grid, block, self.backend.name)
            if stream is not None:
                wait_for_stream(stream)
            return self._run_kernel(entry, args, g, b)
        run.__name__ = entry.name
        return run

    def _run_kernel(self, word: Colon, args: tuple, grid: tuple, block: tuple) -> KernelRun:
        eff = word.effect
        cells: list[int] = []
        floats: list[float] = []
        temps: list[tuple[int, np.ndarray]] = []
        backs: list[Callable[[], None]] = []  # cpu: device arrays run on host copies, written back after
        external = self.backend.caps.external_memory
        for a in args:
            if hasattr(a, "__cuda_array_interface__") and not external:
                from .devarrays import host_copy
                a, back = host_copy(a)
                backs.append(back)
            if hasattr(a, "__cuda_array_interface__") and external:
                iface = a.__cuda_array_interface__
                ptr = int(iface["data"][0])
                nbytes = int(np.prod(iface["shape"])) * np.dtype(iface["typestr"]).itemsize
                self.backend.register_external(ptr, nbytes)
                cells.append(ptr)
            elif isinstance(a, np.ndarray):
                addr = self.backend.alloc(a.nbytes)
                self.backend.write(addr, np.ascontiguousarray(a))
                # checked float words and tile ops compare their type with it (the metadata names it)
                self.backend.set_element_type(addr, np.dtype(a.dtype, metadata={
                    "name": f"argument {len(cells) + len(floats) + 1} of {word.name} (a {a.dtype} array)",
                    "shape": a.shape}))
                temps.append((addr, a))
                cells.append(addr)
            elif isinstance(a, (float, np.floating)):
                floats.append(float(a))
            elif isinstance(a, (int, np.integer)):
                cells.append(int(a))
            else:
                raise ForthError(f"{word.name}: cannot pass a {type(a).__name__} to a kernel")
        if (len(cells), len(floats)) != (eff.dneed, eff.fneed):
            raise ForthError(f"{word.name} takes {eff.dneed} cell(s) and {eff.fneed} float(s) {eff.notation()}, "
                             f"but got {len(cells)} and {len(floats)}")
        snap = self._snapshot()
        self.backend.reset_abort()
        try:
            self.set_launch_shape(grid, block)
            self.push_uniform(*cells)
            if floats:
                st = StackState.live(self.backend)
                st.set_floats(floats)
                st.save(self.backend)
            out = self.run_nodes([Call(word, word.pos)])
            st = StackState.live(self.backend)  # the inputs went in: each thread now holds the results
            rd, rf = eff.dneed + eff.dnet, eff.fneed + eff.fnet
            result = KernelRun(out, st.ds[:, :rd].copy(), st.fs[:, :rf].copy())
            for addr, arr in temps:
                np.copyto(arr, self.backend.read(addr, arr.nbytes).view(arr.dtype).reshape(arr.shape))
            for back in backs:
                back()
            return result
        finally:
            self._restore(snap)
            for addr, _ in temps:
                self.backend.free(addr)

    def array(self, name: str) -> np.ndarray:
        addr, shape, et = self._array_entry(name)
        nbytes = int(np.prod(shape)) * et.size
        return self.backend.read(addr, nbytes).view(et.dtype).reshape(shape).copy()

    def set_array(self, name: str, values: np.ndarray) -> None:
        addr, shape, et = self._array_entry(name)
        arr = np.asarray(values)
        if arr.size != int(np.prod(shape)):
            raise ForthError(f"{name} has shape {shape} but the new values have shape {arr.shape}")
        self.backend.write(addr, np.ascontiguousarray(arr.reshape(shape).astype(et.dtype)))

    def _array_entry(self, name: str):
        e = self.dict.get(name.upper())
        if not isinstance(e, Constant) or e.array is None:
            raise ForthError(f"{name} is not an array: create one with ARRAY or MATRIX")
        return e.array

    # ---- installing words --------------------------------------------------------
    def _install(self) -> None:
        for name, p in PRIMS.items():
            if not name.startswith("("):  # internal primitives have no name in the dictionary
                self.dict[name] = p
        # every host word, immediate word and constant (words/table.py); BASE and STATE are this session's cells
        WORDS.install(self.dict, BASE=self.base_addr, STATE=self.space.state_addr)

    # ---- the outer interpreter ---------------------------------------------------
    def _eval(self, source: str, source_name: str | None = None, spanning: bool = False, first_line: int = 1) -> str:
        if self.device is _CLOSED:
            raise ForthError(SESSION_CLOSED)
        name = source_name or "<input>"
        kept = rec = None
        if self._line_ready(source):
            context = self._line_context()
            kept = self.lines.find(self.words, context, source, name, first_line)
            if kept is None:
                rec = Recording(context)
        # a kept line is device code alone: it can change the stacks, the tiles and memory (BASE), never
        # the dictionary or the input, so its undo copies neither
        snap = self._snapshot(device_only=kept is not None)
        self._recording = rec
        self.out_parts = []
        self.line_timing = {"compile": 0.0, "run": 0.0, "read": 0.0}  # summed over the line's launches
        self.warnings = []
        self.backend.reset_abort()  # an interrupt belongs to one line: it lasts until that line ends
        reader = Reader(source, name, first_line)
        self.reader = self.line_reader = reader
        tok: Token | None = None
        try:
            line = None
            if kept is not None:  # read before, and reading it again would give the same segment: it runs
                reader.row, line = len(reader.lines), first_line  # (read to its end, as the loop below leaves it)
                self.segment = segment = list(kept.nodes)
                self._kept = (segment, kept.shape)
                self._end_of_line()
                return self.printed()
            if self.comment_open is not None and reader.parse_until(")", multiline=True)[1]:
                self.comment_open = None  # the `(` of an earlier line closes here
            while True:
                if self.input is not None and self.input.live is not None:
                    sync_in(self)  # Forth code may have moved >IN
                tok = reader.next_token()
                if tok is None:
                    break
                if self.input is not None and self.input.live is not None:
                    note_in(self)
                if tok.pos.line != line:
                    # (inside a definition, outside `[ ]`, a line's end does nothing: no call)
                    if not (spanning and self.frames) and (self.colon is None or self.interpreting):
                        self._end_of_line()
                    line = tok.pos.line
                if rec is not None:
                    rec = self._record(rec, tok)
                self._token(tok)
            self._end_of_line()
            self._keep_colon_text(reader)
            if rec is not None and self._recording is rec:
                self.lines.keep(source, name, first_line, rec)
        except ForthError as err:
            self._restore(snap)  # first: so that nothing before it gives Ctrl-C a moment to skip it
            out = self.printed()
            if tok is not None and err.pos is None:
                err = err.at(tok.pos, tok.text)
            err.output = out
            raise err
        except RecursionError as exc:  # deeply nested source (control structures thousands deep)
            self._restore(snap)
            out = self.printed()
            # at the word being read, or (when the line was compiled at its end) the line's first word
            at = tok or next((t for t in iter(Reader(source, source_name or "<input>", first_line).next_token, None)
                              if t.pos.line == line), None)
            err = ForthError("the source nests too deeply: a structure here is nested thousands of levels "
                             "deep; split it into smaller definitions")
            if at is not None:
                err = err.at(at.pos, word_at(at.pos))
            err.output = out
            raise err from exc
        except BaseException:  # Ctrl-C (KeyboardInterrupt) or a bug: keep the session usable
            try:
                self._restore(snap)
            except Exception:  # pragma: no cover - report the first failure, not this one
                pass
            raise
        finally:
            self._recording = self._kept = None
        return self.printed()

    def _line_ready(self, source: str) -> bool:
        """A line that may be kept, or run as kept (linecache.py): one line of text, read at the level
        of the line, with nothing of an earlier one open (a definition, a structure, an [IF] being
        skipped, a comment, SOURCE and >IN in use) and no body being collected."""
        b, t = self.builder, self.text
        return ("\n" not in source and b.colon is None and not b.frames and not b.segment and not b.interpreting
                and t.skipping is None and t.comment_open is None and self.collector is None
                and (t.input is None or t.input.live is None))

    def _line_context(self) -> tuple:
        """What reading a kept line's words and numbers depended on, besides the dictionary: BASE, the
        float width, the stacks' size (a folded PICK count is checked against it), the tile settings
        (tile words keep them) and which word `.S` is at the prompt."""
        m = self.machine
        return self.base(), m.float_bits, m.ds_max, self.tile_config, self.dot_s_shows_all

    def _record(self, rec: Recording, tok: Token) -> Recording | None:
        """Note a word of a line that may be kept; None (and the line is not kept) when the word is not
        one that only joins the segment: a host or immediate word, one walked on the host, `.S` at
        the prompt (.STACKS), a local, a word inside [IF]'s false branch."""
        entry = self.lookup(tok.key)
        t = type(entry)
        if entry is None or t is Constant:
            joins = True
        elif isinstance(entry, Primitive):
            joins = entry is not _EXECUTE and entry is not _DOT_S
        else:
            joins = t is Colon and not (entry.host or entry.executes or entry.open)
        if not joins or self.skipping is not None or self.compile_state:
            self._recording = None
            return None
        rec.keys.append(tok.key)
        rec.entries.append(entry)
        return rec

    def _keep_colon_text(self, reader: Reader) -> None:
        """A definition still open when f.eval's source ends: keep its text so
        far, for SEE, when `;` comes in a later f.eval (a file fed line by line)."""
        text = definition_text(self, reader) if self.colon is not None else None
        if text is not None:
            self.colon_text = text

    def _end_of_line(self) -> None:
        """At the prompt a line is a unit: its control structures close within
        it and its device words run as it ends. A body being collected is one
        unit instead: its control structures may span lines."""
        if self.interpreting:
            self.flush_segment()
        if self.colon is not None or (self.collector is not None and self.frames):
            return
        if self.frames:
            f = self.frames[-1]
            raise ForthError(f"{OPENERS[f.kind]} is not closed: add {CLOSERS[f.kind]} on the same line "
                             "(control structures at the prompt must close within the line)",
                             f.pos, OPENERS[f.kind])
        self.flush_segment()

    def _token(self, tok: Token) -> None:
        if self.skipping is not None:  # inside the false branch of [IF] ... [ELSE] ... [THEN]
            if self.skipping.feed(self, tok):
                self.skipping = None
            return
        key = tok.key
        if self.compile_state and key in self.colon.locals:
            self.append(LocalGet(self._local_names[key], key, tok.pos))
            return
        entry = self.lookup(key)
        if entry is _DOT_S and self.dot_s_shows_all and self.colon is None and not self.frames:
            entry = self.dict.get(".STACKS", entry)  # at the REPL's prompt: every stack
        if entry is None:
            self._number(tok)
            return
        self.do_entry(entry, tok)

    def do_entry(self, entry: Any, tok: Token) -> None:
        """What the text interpreter does with a word: run it (immediate words,
        host words, anything outside a definition) or compile it."""
        if isinstance(entry, Immediate):
            entry.fn(self, tok)
        elif getattr(entry, "immediate", False) and self.compile_state:  # a colon word or a constant
            self.flush_segment()
            run_host(self, [self._node_for(entry, tok)])
        elif entry is _EXECUTE and self._at_top():
            self.execute_now(tok)
        else:
            self.compile_entry(entry, tok)

    def compile_entry(self, entry: Any, tok: Token) -> None:
        """Add a (non-immediate) word to what is being built: the definition,
        the open control structure, or the line (where a host-level word runs now)."""
        if isinstance(entry, HostWord):
            self._host(entry, tok)
        else:
            self.append(self._node_for(entry, tok))

    def _at_top(self) -> bool:
        """Words run now, at the level of the line (not inside a definition or an open IF/DO)."""
        return not self.compile_state and not self.open_frames()

    def open_frames(self) -> list[Frame]:
        """The control structures open where code is being built: inside `[ ... ]`
        those of the definition around it wait for `]`."""
        return self.frames[self.interp_floor:] if self.interpreting else self.frames

    def run_entry(self, entry: Any, tok: Token) -> None:
        """Run a word now, as EXECUTE at the line's level does (CATCH): a
        host-level word on the host, any other as a launch of its own."""
        if isinstance(entry, (HostWord, Immediate)):
            entry.fn(self, Token(entry.name, tok.pos))
        elif isinstance(entry, Colon) and entry.host:
            run_host(self, [Call(entry, tok.pos)])
        else:
            self.segment.append(self._node_for(entry, Token(entry.name, tok.pos)))
        self.flush_segment()

    def execute_now(self, tok: Token) -> None:
        """EXECUTE in the line or in a word walked on the host: a host-level word
        named by the token runs on the host; any other token (or tokens that
        differ between threads) runs on the device (hostexec.execute)."""
        execute(self, tok)

    def _node_for(self, entry: Any, tok: Token) -> Node:
        if isinstance(entry, Primitive):
            items = self._items() if entry.takes_literal else None
            # a deep literal count of a data-stack word (`10000 PICK`) is left to the run-time form: folded, it
            # would make the code hold that many cells (a compile of minutes, found by fuzzing)
            if items and isinstance(items[-1], Lit) and items[-1].value >= 0:
                count = items[-1].value
                most = self.machine.ds_max - 1 if entry.literal_max is None else entry.literal_max
                if count > most:
                    what = "tile stack holds" if entry.tile_word else "data stack holds"
                    unit = "tiles per warp" if entry.tile_word else "cells"
                    raise ForthError(f"{entry.name}: the count {count} reaches beyond the stack: the {what} "
                                     f"{most + 1} {unit}, so use a count from 0 to {most}", tok.pos, tok.text)
                if entry.literal_max is not None or count <= FOLD_MAX:
                    return Prim(entry, tok.pos, arg=items.pop().value)
            if entry.tile_word:  # tile words keep the settings of now
                return Prim(entry, tok.pos, arg=self.tile_config)
            return Prim(entry, tok.pos)
        if isinstance(entry, Colon):
            if self.colon is None and entry.uses_base:
                self.segment_uses_base = True
            return Call(entry, tok.pos)
        if isinstance(entry, Constant):
            if entry.name == "BASE":
                self.segment_uses_base = True
                if self.colon is not None:
                    self.colon.touches_base = True
            if entry.shared is not None:
                return Prim(PRIMS["(SHARED)"], tok.pos, arg=entry.shared)
            if entry.param is not None:
                return Prim(PRIMS["(PARAM)"], tok.pos, arg=entry.param)
            if entry.is_float:
                return FLit(float(entry.value), tok.pos)
            return Lit(int(entry.value), tok.pos, "global" if entry.array is not None else None)
        raise ForthError(f"{tok.text} cannot be used here", tok.pos, tok.text)  # pragma: no cover

    def _host(self, word: HostWord, tok: Token) -> None:
        if self.collector is not None and not self.compile_state:
            self.collector.host_word(word, tok)
        if self.compile_state and word.compiled is not None:
            for text in word.compiled.split():  # its numbers are decimal, whatever BASE is now
                if text.lstrip("-").isdigit():
                    self.append(Lit(int(text), tok.pos))
                else:
                    self._token(Token(text, tok.pos))
            return
        if self.compile_state and word.name in DEVICE_HEAP and self.backend.caps.device_heap:
            self.append(Prim(PRIMS[f"({word.name})"], tok.pos))  # runs in device code (compile/heapgen.py)
            return
        if self.compile_state or self.open_frames():  # it runs when the definition (or the structure) does
            self.append(HostOp(word.name, _run_host_word, word, tok.pos))
            return
        self.flush_segment()
        try:
            word.fn(self, tok)
        except ForthError as err:
            raise err.at(tok.pos, tok.text)

    def _number(self, tok: Token) -> None:
        if self.segment_uses_base and self._at_top():
            self.flush_segment()  # `16 BASE !` must run before the next number is parsed
        base = self.base()
        if not 2 <= base <= 36:
            raise ForthError(bad_base_message(base, f"{tok.text} is not a word, and it cannot be read as a number"),
                             tok.pos, tok.text, code=-13)
        v = parse_integer(tok.text, base)
        if v is not None:
            self.append(Lit(wrap64(v), tok.pos))
            return
        d = parse_double(tok.text, base)
        if d is not None:
            lo = wrap64(d)
            self.append(Lit(lo, tok.pos))
            self.append(Lit(d >> 64, tok.pos))  # the high cell (d is a signed 128-bit value)
            return
        if base == 10:
            f = parse_float(tok.text, self.machine.float_bits)
            if f is not None:
                self.append(FLit(f, tok.pos))
                return
        raise ForthError(unknown_word_message(tok.text, self.prompt_words), tok.pos, tok.text, code=-13)

    def _items(self) -> list[Node]:
        frames = self.open_frames()
        if frames:
            return frames[-1].items()
        if self.compile_state:
            return self.colon.body
        return self.segment

    # ---- the session API: what host words, parsing words and kernel files use ------------
    def append(self, node: Node) -> None:
        """Add a node to what is being compiled: the open definition, or the
        line's segment (a node with host actions in it runs now, on the host)."""
        items = self._items()
        if type(node) is Lit or type(node) is FLit or (type(node) is Prim and node.prim is not _EXECUTE):
            items.append(node)  # no host action and no EXECUTE in it: what the tests below would find
            return
        if items is self.segment and _has_host_action(node) and not device_ok(node):
            if self.collector is not None:  # a kernel file's body is one launch: nothing runs on the host
                raise ForthError("this runs on the host (it defines or compiles words: CREATE, `,` ...), but a "
                                 "kernel file's body is one launch: declare data in the header "
                                 "(`\\! param NAME TYPE[N]`)", getattr(node, "pos", None))
            self.flush_segment()
            run_host(self, [node])
            return
        if items is self.segment and walk_now(self, node):  # one thread, and EXECUTE may meet a host word
            return
        items.append(node)

    def print_text(self, text: str) -> None:
        """Add text to the line's output (what eval returns), after what the device code waiting
        in the line's segment prints: output is in program order (`3 . .( c) 4 .` prints `3 c4 `),
        whichever word prints it, on the host or on the device."""
        self.flush_segment()
        self.out_parts.append(text)

    def printed(self) -> str:
        """The output of the line so far."""
        return "".join(self.out_parts)

    def run_nodes(self, nodes: list[Node]) -> str:
        """Run `nodes` now as one launch (a kernel file's body, a word called
        from Python) and return what it printed; a ForthError carries it too."""
        self.out_parts = []
        self.segment = list(nodes)
        try:
            self.flush_segment()
        except ForthError as err:
            err.output = self.printed()
            raise
        finally:
            self.segment = []
        return self.printed()

    @property
    def _local_names(self) -> builtins.dict[str, int]:
        if not self.compile_state:
            return {}
        return {n: i for i, n in enumerate(self.colon.locals)}

    # ---- running a segment -------------------------------------------------------
    def flush_segment(self) -> None:
        self.space.write_state(-1 if self.compile_state else 0)  # STATE, as device code reads it
        builder = self.builder
        nodes, builder.segment = builder.segment, []
        builder.segment_uses_base = False
        if not nodes:
            return
        if self.collector is not None:  # a body gathered as one kernel (a kernel file's): don't run
            self.collector.nodes.extend(nodes)
            return
        if walk_segment(self, nodes):  # one thread, and EXECUTE may meet a host word: walked (hostexec.py)
            return
        if self.on_segment is not None:
            self.on_segment(nodes, list(self.tiles))
        lead = 0  # the literals the segment starts with
        for n in nodes:
            if type(n) is not Lit and type(n) is not FLit:
                break
            lead += 1
        shape = self._kept_shape(nodes)
        if lead == len(nodes) and (lead >= LEAD_PUSHED or self.shape.nthreads <= HOST_PUSH_THREADS):
            self._push_literals(nodes)  # only literals (`16 1 1 THREADS`, `5 ,`): no kernel
            return
        if lead >= LEAD_PUSHED:  # a long run of literals first (data): the host pushes it, the kernel does the rest
            self._push_literals(nodes[:lead])
            nodes = nodes[lead:]
            shape = None
        elif self._recording is not None and shape is None:
            shape = self._recording.shape = line_shape(nodes)
        device = self.device
        res, tiles_out = device.launch(nodes, self.compiler, (self.tokens.version,), self.base_addr,
                                       self.shared_bytes, self.sites, line=shape)
        t3 = time.perf_counter()
        self.out_parts.append(format_output(res.output, self.strings, res.output_dropped,
                                            shape=self.launch_shape, float_bits=self.machine.float_bits,
                                            every_thread_ran=not res.error[0] and res.divergence is None))
        timing = device.last_timing
        timing["read"] = time.perf_counter() - t3
        for k in ("compile", "run", "read"):
            self.line_timing[k] = self.line_timing.get(k, 0.0) + timing[k]
        if res.divergence is not None:
            raise divergence_error(self, *res.divergence)
        if res.error[0]:
            raise launch_error(self, res.error)
        device.end_tiles(tiles_out)

    def _kept_shape(self, nodes: list[Node]) -> LineShape | None:
        """The LineShape of a kept line's segment when `nodes` is that segment (linecache.py); and a line
        being recorded notes its segment here (a second launch in it: the line is not kept)."""
        kept, self._kept = self._kept, None
        if kept is not None and kept[0] is nodes:
            return kept[1]
        rec = self._recording
        if rec is not None:
            if rec.nodes is None:
                rec.nodes = nodes
            else:
                self._recording = None
        return None

    def _push_literals(self, nodes: list[Node]) -> None:
        """A segment of literals pushes them from the host, as its kernel would:
        a data script (`5 ,` lines) or a launch shape costs no compile."""
        cells = [n.value for n in nodes if type(n) is Lit]
        floats = [n.value for n in nodes if type(n) is FLit]
        st = StackState.live(self.backend)
        m = self.machine
        for depth, room, code, lits in ((st.dsp, m.ds_max, L.E_OVERFLOW, cells), (st.fsp, m.fs_max, L.E_FOVERFLOW, floats)):
            over = np.flatnonzero(depth + len(lits) > room)
            if over.size:
                kind = Lit if code == L.E_OVERFLOW else FLit  # the caret under the first item that does not fit
                first = [n for n in nodes if type(n) is kind][max(0, int(room - depth[int(over[0])]))]
                raise launch_error(self, (code, self.sites.add("<line>", first.pos), int(over[0]), 0, 0))
        st.push(cells)
        st.fpush(floats)
        st.save(self.backend)
        self.device.last_timing = {"compile": 0.0, "run": 0.0, "read": 0.0}

    # ---- state: snapshots and host access to the stacks -----------------------------
    def _snapshot(self, device_only: bool = False) -> SessionSnapshot:
        """What a failed line restores; `device_only`: for a line of device code alone, which cannot
        change the dictionary or the input (a kept line, linecache.py)."""
        if device_only:
            return SessionSnapshot(self.device.snapshot(), None, self.space.snapshot(), None)
        return SessionSnapshot(self.device.snapshot(), self.words.snapshot(), self.space.snapshot(),
                               self.text.snapshot())

    def _restore(self, snap: SessionSnapshot) -> None:
        """Back to the state before the failed line, part by part; an open definition is
        abandoned, as in gforth. Whole, also when Ctrl-C comes during it: the interrupt waits
        for its end (heldsigint.py)."""
        undo(lambda: self._restore_parts(snap))

    def _restore_parts(self, snap: SessionSnapshot) -> None:
        if snap.text is not None:
            self.text.restore(snap.text)
        self.space.restore(snap.space)
        self.device.restore(snap.device)
        if snap.words is not None:
            self.words.restore(snap.words)
        self.builder.abandon()

    def base(self) -> int:
        return self.space.base()

    def read_cell(self, addr: int) -> int:
        return self.space.read_cell(addr)

    def write_cell(self, addr: int, value: int) -> None:
        self.space.write_cell(addr, value)

    def read_bytes(self, addr: int, n: int) -> bytes:
        """n bytes of memory from addr (none when n <= 0): a string given as c-addr u."""
        return bytes(self.backend.read(addr, n)) if n > 0 else b""

    def pop_uniform(self, n: int, word: str) -> list[int]:
        """Pop n cells that every thread must agree on (host words consume them),
        after the device code waiting in the line's segment has run."""
        self.flush_segment()
        top = uniform_top(self.backend, n)  # a big shape: the top cells alone (12.6M threads: 0.3 s, not 5)
        if top is None:
            st = StackState.live(self.backend)
            bad = st.short(n)
            if bad is not None:
                raise ForthError(f"data stack underflow: {word} needs {n} item(s) but thread {bad} has "
                                 f"{int(st.dsp[bad])}; push them first")
            vals = st.top(n)
        else:
            vals, heads = top
        lanes = differing(vals)
        if lanes:
            raise ForthError(f"{word} needs the same value(s) in every thread, but threads {_ranges(lanes)} "
                             f"differ from thread 0; {word} runs once on the host")
        if top is None:
            st.drop(n)
            st.save(self.backend)
        else:
            heads[:, 0] -= n  # (state_columns gave a copy)
            set_depths(self.backend, heads)
        return vals[0].tolist()

    def pop_uniform_float(self, word: str, example: str = "") -> float:
        """Pop a float every thread must agree on, bit for bit (a NaN agrees with
        itself), after the device code waiting in the line's segment has run."""
        self.flush_segment()
        st = StackState.live(self.backend)
        if st.short(1, floats=True) is not None:
            raise ForthError(f"float stack underflow: {word} needs a float on the float stack"
                             + (f", e.g. {example}" if example else "; push one first"))
        top = st.ftop()
        if differing(top.view(self.machine.float_bits_dtype)):
            raise ForthError(f"{word} needs the same float in every thread; it runs once on the host")
        st.fdrop(1)
        st.save(self.backend)
        return float(top[0])

    def push_uniform(self, *values: int) -> None:
        """Push cells on every thread's data stack (host words leave results this way),
        after the device code waiting in the line's segment has run."""
        self.flush_segment()
        st = StackState.live(self.backend)
        if (st.dsp + len(values) > self.machine.ds_max).any():
            raise ForthError(f"data stack overflow: more than {self.machine.ds_max} items")
        st.push([wrap64(v) for v in values])
        st.save(self.backend)

    def push_uniform_float(self, *values: float) -> None:
        """Push floats on every thread's float stack (rounded to its type), after the device code
        waiting in the line's segment has run."""
        self.flush_segment()
        st = StackState.live(self.backend)
        if (st.fsp + len(values) > self.machine.fs_max).any():
            raise ForthError(f"float stack overflow: more than {self.machine.fs_max} floats")
        st.fpush(list(values))
        st.save(self.backend)

    def define(self, entry: Any) -> None:
        """Add a word; redefining one is allowed (earlier words keep the old
        one) and noted, as gforth does. A new word aligns HERE, as gforth's
        headers in data space do: the standard promises contiguous data space
        only between definitions, and `HERE 1 ALLOT  HERE 1 , CONSTANT x`
        leaves x aligned, so that `x @` works on a GPU too."""
        self.here = (self.here + 7) & ~7
        if self.words.add(entry) is not None and not getattr(entry, "prelude", False):
            self.warnings.append(f"redefined {entry.name}")

    def hidden_by(self, entry: Any) -> Any:
        """The word of the same name that `entry` hid when it was defined, or None."""
        return self.words.hidden_by(entry)

    # ---- definitions -------------------------------------------------------------
    def make_word(self, name: str, body: list[Node], **fields: Any) -> Colon:
        """A colon definition made by a defining word (VALUE, DEFER, DOES>), ready to define."""
        word = Colon(name, body, None, **fields)
        word.effect = body_effect(body)
        return word

    def finish_definition(self, tok: Token) -> None:
        colon = self.colon
        assert colon is not None
        if self.frames:
            f = self.frames[-1]
            raise ForthError(f"{OPENERS[f.kind]} in {colon.name} is not closed: add {CLOSERS[f.kind]} before ;",
                             f.pos, OPENERS[f.kind])
        colon.recursive = _recurses(colon.body)
        colon.effect = body_effect(colon.body)
        if colon.recursive and colon.suspends:
            raise ForthError(f"{colon.name} is recursive and reaches a BARRIER or warp operation; "
                             "suspending words must not recurse", colon.pos, colon.name)
        # generate its IR now so that errors show at ; (words that suspend are
        # only ever inlined into a coroutine kernel, so check them inside one)
        if colon.prelude or colon.host:
            pass  # the prelude is known to compile; host-level words run on the host (hostexec.py)
        elif colon.suspends:
            km = self.compiler.kernel([Call(colon, colon.pos)], holes=True)
            colon.tile_effect = (list(km.tiles_in), list(km.tiles_out))
        else:
            self.compiler.check_word(colon)
        self.colon = None
        colon.open = False
        if colon.anonymous:  # :NONAME (its xt was pushed at its start) or a DOES> part (its defining word calls it)
            return
        self.define(colon)


def _recurses(body: list[Node]) -> bool:
    """A RECURSE anywhere in `body` (what `any(isinstance(n, Recurse) for n in walk(body))` says, without
    walk's generators)."""
    todo = [body]
    while todo:
        for n in todo.pop():
            if isinstance(n, Recurse):
                return True
            for name in n.BODIES:
                sub = getattr(n, name)
                if sub:
                    todo.append(sub)
    return False


def _run_host_word(f: Forth, node: HostOp) -> None:
    """A host word inside a definition or a structure, run when that runs."""
    node.arg.fn(f, Token(node.name, node.pos))


def _has_host_action(node: Node) -> bool:
    """A HostOp or a call of a host-level word anywhere in `node` (iterative: trees may nest deeply)."""
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, HostOp) or (isinstance(n, Call) and n.word.host):
            return True
        for name in n.BODIES:
            todo.extend(getattr(n, name) or ())
    return False
