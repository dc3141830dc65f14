"""The line editor's Forth knowledge, as prompt_toolkit pieces.

    ForthLexer      colours each token by what it is (scan.py does the cutting)
    WordCompleter   every dictionary word, built-in and user, with its effect
    StackValidator  Enter on a line that would underflow a stack: the cursor
                    goes to the word and a warning shows, the line does not
                    run.  Enter again on the unchanged line runs it (and the
                    real error shows); typing instead starts a fresh line
                    (the refused one goes to the history), so new input never
                    merges into it.  Moving the cursor or deleting edits it.
    key_bindings    Enter runs the text only when it is complete; inside an
                    open definition or control structure it starts a new line
                    (Esc Enter runs it anyway)
    toolbar         backend, device, launch shape, tile settings, checked (or a warning when unchecked)

Everything reads the live session through `EditorState`, which caches what is
costly to read from the device (stack depths, BASE) and is refreshed after
each line.
"""

from __future__ import annotations

from prompt_toolkit.buffer import ValidationState
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.lexers import Lexer
from prompt_toolkit.styles import Style
from prompt_toolkit.validation import ValidationError, Validator
from tileforth.core.front.dictionary import Colon, Constant
from tileforth.core.records import record

from . import scan as S

STYLE = Style.from_dict({
    "number": "ansicyan",
    "primitive": "ansigreen",
    "tile": "ansimagenta",
    "colon": "ansibrightgreen bold",
    "constant": "ansiyellow",
    "host": "ansiblue bold",
    "immediate": "ansibrightblue",
    "control": "ansibrightblue bold",
    "defined": "ansiyellow bold underline",
    "local": "ansicyan italic",
    "comment": "ansibrightblack italic",
    "string": "ansiyellow italic",
    "unknown": "ansired bold",
    "continuation": "ansibrightblack",
    "bottom-toolbar": "noreverse bg:ansibrightblack ansiwhite",
    "bottom-toolbar.key": "bold",
    "bottom-toolbar.unchecked": "bold ansired",
})


@record
class EditorState:
    """What the editor needs to know about the session, cheaply."""

    session: object
    data_depth: int = 0
    float_depth: int = 0
    base: int = 10
    refused: str | None = None  # the text the validator refused last, while it is still in the editor
    refused_at: int = -1  # where the validator put the cursor in it
    eof_warned: str | None = None  # the open definition's text Ctrl-D last warned about (a second one ends)

    @property
    def forth(self):
        return self.session.forth

    def refresh(self) -> None:
        """Read the stack depths and BASE again (after a line ran)."""
        f = self.forth
        try:
            self.data_depth, self.float_depth = stack_depths(f)
        except Exception:  # a view never fails the session: no depths, no check
            self.data_depth = self.float_depth = -1
        try:
            self.base = int(f.base())
        except Exception:
            self.base = 10

    def scan(self, text: str) -> S.Scan:
        f = self.forth
        compiling = bool(getattr(f, "compiling", False))
        return S.scan(text, f.dict, self.base if 2 <= self.base <= 36 else 10,
                      compiling=compiling, open_frames=len(getattr(f, "frames", ())),
                      interpreting=compiling and bool(getattr(f, "interpreting", False)))

    def complete(self, text: str) -> bool:
        return self.scan(text).complete


def stack_depths(forth) -> tuple[int, int]:
    """(data, float) depth of the thread that holds the fewest items."""
    from tileforth.core.compile.state import read_depths

    dsp, fsp = read_depths(forth.backend)  # 16 bytes a thread (no copy where the stacks are host memory)
    return (int(dsp.min()), int(fsp.min())) if len(dsp) else (0, 0)


# ---------------------------------------------------------------- colours


class ForthLexer(Lexer):
    def __init__(self, state: EditorState) -> None:
        self.state = state

    def lex_document(self, document: Document):
        lines = document.lines
        try:
            spans = self.state.scan(document.text).spans
        except Exception:  # never let colouring break typing
            spans = []
        names = self.state.forth.dict
        row_c, col_c = document.cursor_position_row, document.cursor_position_col
        by_row: dict[int, list[tuple[int, int, str]]] = {}
        for row, start, end, kind in spans:
            if kind == "unknown" and row == row_c and end == col_c and _prefix_of_any(
                    lines[row][start:end], names):
                kind = ""  # still being typed: a prefix of a word is not an error yet
            by_row.setdefault(row, []).append((start, end, kind))

        def get_line(lineno: int):
            text = lines[lineno] if lineno < len(lines) else ""
            out, pos = [], 0
            for start, end, kind in sorted(by_row.get(lineno, ())):
                if start < pos:
                    continue
                if start > pos:
                    out.append(("", text[pos:start]))
                out.append((f"class:{kind}" if kind else "", text[start:end]))
                pos = end
            if pos < len(text):
                out.append(("", text[pos:]))
            return out

        return get_line


def _prefix_of_any(text: str, names) -> bool:
    t = text.upper()
    return any(k.startswith(t) for k in names)


# ---------------------------------------------------------------- completion


def effect_text(entry) -> str:
    """A word's stack effect as Forth writes it, for the completion menu."""
    if isinstance(entry, Colon):
        text = entry.effect.notation()
        if entry.tile_effect is not None:
            tin, tout = entry.tile_effect
            text += f" ( T: {' '.join(t.kind for t in tin)} -- {' '.join(t.kind for t in tout)} )".replace(
                "  ", " ")
        return text
    if isinstance(entry, Constant):
        help = entry.help or ""
        if help.startswith("("):
            return help[: help.index(")") + 1]
        return "( F: -- r )" if entry.is_float else "( -- x )"
    eff = getattr(entry, "effect", "")
    return eff if isinstance(eff, str) else ""


class WordCompleter(Completer):
    """Completes the word before the cursor from the whole dictionary."""

    def __init__(self, state: EditorState) -> None:
        self.state = state

    def get_completions(self, document: Document, complete_event):
        before = document.text_before_cursor
        word = before.split()[-1] if before and not before[-1].isspace() else ""
        if not word and not complete_event.completion_requested:
            return
        if self._in_comment_or_string(document, len(word)):
            return
        key = word.upper()
        lower = word != "" and word == word.lower() and word != word.upper()
        found = []
        for name, entry in list(self.state.forth.dict.items()):
            if not name.startswith(key):
                continue
            shown = getattr(entry, "name", name)
            text = shown.lower() if lower and shown == shown.upper() else shown
            found.append((name != key, isinstance(entry, Colon) and not getattr(entry, "prelude", False),
                          text, entry))
        # the exact word first, then user words, then alphabetically
        found.sort(key=lambda t: (t[0], not t[1], t[2].upper()))
        for _, _, text, entry in found:
            yield Completion(text, start_position=-len(word), display=text,
                             display_meta=effect_text(entry) or S.kind_of(entry))

    def _in_comment_or_string(self, document: Document, typed: int) -> bool:
        try:
            spans = self.state.scan(document.text_before_cursor).spans
        except Exception:
            return False
        row = document.cursor_position_row
        start = document.cursor_position_col - typed  # where the word being completed starts
        return any(r == row and kind in ("comment", "string") and a < start <= b
                   for r, a, b, kind in spans)


# ---------------------------------------------------------------- checking


class StackValidator(Validator):
    """Rejects a complete line whose straight-line prefix would underflow."""

    def __init__(self, state: EditorState) -> None:
        self.state = state

    def validate(self, document: Document) -> None:
        st = self.state
        if st.data_depth < 0 or getattr(st.forth, "compiling", False):
            return
        try:
            s = st.scan(document.text)
            if not s.complete:
                return
            tiles = len(getattr(st.forth, "tiles", ()))
            bad = S.underflow(s, st.data_depth, st.float_depth, tiles)
        except Exception:  # the check is a courtesy: when in doubt, run the line
            return
        if bad is not None:
            if document.text == st.refused:
                return  # Enter again on the unchanged line: run it, and let the real error show
            st.refused, st.refused_at = document.text, bad.offset
            raise ValidationError(cursor_position=bad.offset, message=bad.message + REFUSED_HINT)


REFUSED_HINT = "  (Enter runs it anyway; typing starts a new line)"


@record(frozen=True)
class Abandoned:
    """What the prompt returns when the user types over a refused line: the
    line (not run, kept in the history), why it was refused, and the keys
    typed, which start the next line."""

    text: str
    message: str
    typed: str


# ---------------------------------------------------------------- keys


EOF_IN_DEFINITION = ("the definition is not finished (no ; yet): Ctrl-D again ends the session and the definition "
                     "is lost; type ; and Enter to finish it, or Ctrl-C to drop it")


def key_bindings(state: EditorState) -> KeyBindings:
    kb = KeyBindings()
    focused = has_focus(DEFAULT_BUFFER)

    @kb.add("enter", filter=focused)
    def _enter(event) -> None:
        b = event.current_buffer
        if b.complete_state is not None and b.complete_state.current_completion is not None:
            b.complete_state = None  # Enter in the menu takes the completion, and only that
            return
        if state.complete(b.text):
            if b.text == state.refused:  # the refused line again, unchanged: the validator lets it run
                b.validation_state, b.validation_error = ValidationState.UNKNOWN, None
            b.validate_and_handle()
        else:
            b.insert_text("\n  ")

    def _open_at_end() -> bool:
        """The editor holds an unfinished entry (a definition with no `;` yet) and the cursor is at
        its end, where Ctrl-D would delete nothing."""
        from prompt_toolkit.application import get_app

        b = get_app().current_buffer
        return bool(b.text.strip()) and b.cursor_position == len(b.text) and not state.complete(b.text)

    @kb.add("c-d", filter=focused & Condition(_open_at_end))
    def _end_in_definition(event) -> None:
        """Ctrl-D in an open definition: first say what ending loses, then (pressed again) end."""
        b = event.current_buffer
        if state.eof_warned == b.text:
            event.app.exit(exception=EOFError())
            return
        state.eof_warned = b.text
        b.validation_state = ValidationState.INVALID
        b.validation_error = ValidationError(len(b.text), EOF_IN_DEFINITION)

    @kb.add("escape", "enter", filter=focused)
    def _run_anyway(event) -> None:
        event.current_buffer.validate_and_handle()

    def _refused_in_view() -> bool:
        """The refused line is in the editor as the validator left it (no key
        has changed it or moved the cursor since)."""
        from prompt_toolkit.application import get_app

        b = get_app().current_buffer
        return (b.validation_error is not None and state.refused is not None and b.text == state.refused
                and b.cursor_position == state.refused_at)

    refused_in_view = Condition(_refused_in_view)

    @kb.add(Keys.Any, filter=focused & refused_in_view)
    @kb.add(Keys.BracketedPaste, filter=focused & refused_in_view)
    def _type_over_refused(event) -> None:
        """Typing after a refusal starts a fresh line instead of merging into
        the refused one (which stays in the history: Up brings it back)."""
        b = event.current_buffer
        typed = event.data if event.key_sequence[0].key == Keys.BracketedPaste else event.data * event.arg
        if not typed or not all(ch.isprintable() or ch in "\t\n" for ch in typed):
            b.insert_text(typed)  # a control character no binding takes: as prompt_toolkit would
            return
        message = b.validation_error.message
        b.append_to_history()
        event.app.exit(result=Abandoned(b.text, message[:-len(REFUSED_HINT)] if message.endswith(REFUSED_HINT)
                                        else message, typed.replace("\r\n", "\n").replace("\r", "\n")))

    return kb


def continuation(width: int, line_number: int, wrap_count: int):
    """What stands before a line of the entry after its first: `... ` before a line of its own (an
    open definition goes on), blanks before the rest of a line the terminal wrapped (wrap_count > 0:
    nothing is open there, the line is only longer than the screen)."""
    if wrap_count:
        return [("", " " * width)]
    return [("class:continuation", "... ".rjust(width))]


# ---------------------------------------------------------------- toolbar


def device_text(forth) -> str:
    b = forth.backend
    name = getattr(b, "device_name", None)
    arch = getattr(b, "arch", None)
    if name:
        return f"{name}{' ' + arch if arch else ''}"
    return "SIMT emulator" if forth.backend_name == "cpu" else ""


# --unchecked drops the checks that keep a bad address from reaching the machine: say so while it is on
UNCHECKED_TOOLBAR = "unchecked: a bad address can crash the process"


def toolbar_fragments(session) -> list[tuple[str, str]]:
    f = session.forth
    (gx, gy, gz), (bx, by, bz) = f.launch_shape
    cfg = getattr(f, "tile_config", None)
    checked = getattr(f, "checked", True)
    sep = ("", "  │ ")
    out = [("class:bottom-toolbar.key", f" {f.backend_name}"), ("", f" {device_text(f)}".rstrip()), sep,
           ("", f"{gx} {gy} {gz} GRID {bx} {by} {bz} THREADS")]
    if cfg is not None:
        out += [sep, ("", f"tiles {cfg.describe()}")]
    out += [sep, ("", "checked") if checked else ("class:bottom-toolbar.unchecked", UNCHECKED_TOOLBAR)]
    return out


def toolbar_text(session) -> str:
    return "".join(text for _, text in toolbar_fragments(session))
