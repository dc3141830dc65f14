"""A REPL session: one Forth, lines in, results out (no printing here).

The session runs each line with `Forth.eval` and remembers which source and
line it came from, so an error can be reported as ``file:line:col`` — also
when it is only detected at the `;` of a definition opened lines earlier.
"""

from __future__ import annotations

from tileforth.core.errors import Bye  # noqa: F401  (BYE: the REPL and the CLI stop on it)
from tileforth.core.records import field, record

# what the REPL itself acts on before Forth reads the line (each is also a dictionary word, with its HELP)
REPL_COMMANDS = ("BYE",)
# Ctrl-C asks the backend to abort, again every this many seconds until the line ends (a launch resets
# the flag): the prompt's key watcher and cli.ctrl_c_stops_lines
ABORT_REPEAT_S = 0.05


class Terminated(SystemExit):
    """SIGTERM or SIGHUP (cli.ends_on_hangup): the run ends as after Ctrl-C, the UPDATEd blocks
    written back, with exit status 128 + the signal."""


@record
class LineResult:
    output: str = ""                 # what the line printed, also when it failed
    error: Exception | None = None   # a ForthError, or an internal error
    internal: bool = False           # True when error is not a ForthError
    where: str | None = None         # "file:line" of the failing line (or of the failing word's definition)
    running: str | None = None       # "file:line" of the line that ran, when the error's place is elsewhere
    source_line: str | None = None   # text of the failing line
    warnings: tuple[str, ...] = ()   # notes such as "redefined X"


@record
class Session:
    forth: object
    source: str = "<stdin>"
    lineno: int = 0
    # (lineno, text) of the lines of a definition still open, for errors at `;`
    _open_lines: list[tuple[int, str]] = field(default_factory=list)
    arch: str = "sm_80"  # the GPU architecture that words showing PTX (SEE-PTX) compile for

    def __post_init__(self) -> None:
        from .listing import install

        install(self.forth)  # WORDS: the user's words first, then the built-ins by group

    @classmethod
    def start(cls, backend: str = "auto", *, checked: bool = True, arch: str | None = None) -> "Session":
        from tileforth.core import Forth

        forth = Forth(backend=backend, checked=checked)
        if arch is not None:  # else the GPU's own (cuda) or sm_80
            forth.ptx_arch = arch  # read by words that show PTX
        return cls(forth, arch=forth.ptx_arch)

    def set_source(self, name: str) -> None:
        self.source, self.lineno = name, 0
        self._open_lines.clear()

    @property
    def compiling(self) -> bool:
        return bool(getattr(self.forth, "compiling", False))

    def run_line(self, text: str, lineno: int | None = None, *, spanning: bool = False) -> LineResult:
        """Run one line; return what it printed or why it failed.

        `spanning`: text is one entry of several lines (the prompt's
        multi-line input), in which a control structure may go on over lines;
        its lines are numbered on from `lineno`, and the next line's number
        follows its last."""
        from tileforth.core import ForthError

        self.lineno = lineno if lineno is not None else self.lineno + 1
        if text.strip().upper() in REPL_COMMANDS and not self.compiling:
            raise Bye
        self._open_lines.append((self.lineno, text))
        try:
            out = self.forth.eval(text, source=self.source, line=self.lineno, spanning=spanning)
        except ForthError as e:
            return self._failed(e, text, internal=False)
        except Bye:
            raise
        except Exception as e:  # a bug in tileforth, not in the user's Forth
            return self._failed(e, text, internal=True)
        finally:
            if not self.compiling:
                self._open_lines.clear()
            self.lineno += text.count("\n")  # an entry of several lines: the next one numbers on after it
        return LineResult(output=out or "", warnings=tuple(getattr(self.forth, "warnings", ())))

    def _failed(self, err, text, *, internal) -> LineResult:
        """Where the error is: the position it carries (this line, a line of the open definition or of
        this multi-line entry, or the definition of a word made elsewhere: an earlier line, an INCLUDEd
        file, with `running` naming the line that ran), else the line itself."""
        partial = getattr(err, "output", "") or ""  # what the line printed before it failed ("2 1 ")
        pos = getattr(err, "pos", None)
        if pos is None:
            return LineResult(output=partial, error=err, internal=internal, where=f"{self.source}:{self.lineno}",
                              source_line=text)
        # this line (all of a multi-line entry) and the open definition's lines
        opened = {(self.source, n + i) for n, t in self._open_lines for i in range(t.count("\n") + 1)}
        running = None if (pos.source, pos.line) in opened else f"{self.source}:{self.lineno}"
        return LineResult(output=partial, error=err, internal=internal, where=f"{pos.source}:{pos.line}",
                          source_line=pos.text, running=running)
