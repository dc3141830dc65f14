"""The session as the modules below the interpreter see it.

interpreter.py's `Forth` is the session; the modules it imports itself (building.py,
inputpos.py, hostexec.py, launcherrors.py, accessprofile.py) cannot import it back, so they
name it through this protocol: the parts and façade names they use. The word modules, which
the interpreter does not import (it reads the word table), name `Forth` itself.
"""
from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..compile.codegen import Sites, Strings
    from ..front.reader import Reader, Token
    from .device import Device
    from .parts import Builder, DataSpace, HostIO, TextInput, Views
    from .wordlists import Dictionary


class Session(Protocol):
    # the parts (interpreter.py's Forth: one of each)
    device: "Device"
    words: "Dictionary"
    space: "DataSpace"
    builder: "Builder"
    text: "TextInput"
    io: "HostIO"
    views: "Views"
    # what the session holds itself
    sites: "Sites"
    strings: "Strings"
    tokens: Any
    checked: bool
    # the façade's names of the parts' state that these modules use
    backend: Any
    machine: Any  # the session's settings (compile/machine.py: Machine)
    dict: builtins.dict[str, Any]
    step_budget: int
    shared_bytes: int
    colon: Any
    collector: Any  # a body gathered as one kernel (interpreter.py's Collector), or None
    shape: Any  # the launch shape (compile/target.py: LaunchShape)
    tile_config: Any
    segment: list[Any]
    colon_text: list[str]
    colon_start: tuple["Reader | None", Any]
    input: Any
    reader: "Reader"  # (set for the source being interpreted: the machinery runs only then)
    line_reader: "Reader | None"

    @property
    def launch_shape(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]: ...

    def flush_segment(self) -> None: ...

    def pop_uniform(self, n: int, word: str) -> list[int]: ...

    def push_uniform(self, *values: int) -> None: ...

    def push_uniform_float(self, *values: float) -> None: ...

    def pop_uniform_float(self, word: str, example: str = "") -> float: ...

    def execute_now(self, tok: "Token") -> None: ...

    def write_cell(self, addr: int, value: int) -> None: ...
