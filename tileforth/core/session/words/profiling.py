"""PROFILE, PROFILE{ and }PROFILE: the words of the memory-access analysis of
the emulator (tileforth/core/session/accessprofile.py holds the analysis and its records)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ForthError
from ...front.reader import Token
from ..accessprofile import Profile, Recorder
from .inspection import INSPECT_GROUP, show, word_name
from .table import NAME_ON_LINE, host

if TYPE_CHECKING:
    from ..interpreter import Forth


PROFILE_EXAMPLE = "64 1 1 THREADS  64 F32 ARRAY xs  : rd TID-X 4 * xs + SF@ FDROP ;  PROFILE rd"


def _check(f: "Forth", tok: Token) -> None:
    word = tok.text.upper()
    if not f.checked:
        raise ForthError(f"{word} needs a checked session: the memory accesses are traced by the checks, which "
                         "this session was started without (--unchecked, Forth(checked=False)); start one "
                         "without --unchecked", tok.pos, tok.text)
    if not f.backend.caps.access_trace:
        raise ForthError(f"{word} works on the emulator only: the {f.backend.name} backend does not trace memory "
                         "accesses; profile on the cpu backend (tileforth --backend cpu, Forth(backend=\"cpu\"))",
                         tok.pos, tok.text)


def _finish(f: "Forth", rec: Recorder, title: str) -> None:
    view = Profile(title, rec.launches)
    f.last_profile = view
    show(f, view)


@host("PROFILE", "( -- )", "Run the word named next on the current launch, as a line would, and show "
      "for each load and store in it (the emulator, checked mode): requests per warp, active lanes, "
      "32 byte sectors per request (global memory) and bank conflicts (shared memory), as Nsight Compute "
      "counts them, and the BARRIERs each block passed. Tile loads and stores are not counted.", PROFILE_EXAMPLE,
      wordset="tileforth", parses=NAME_ON_LINE, group=INSPECT_GROUP)
def w_profile(f: "Forth", tok: Token) -> None:
    _check(f, tok)
    if getattr(f, "profiling", None) is not None:
        raise ForthError("PROFILE inside PROFILE{ … }PROFILE: every launch there is profiled already; use the "
                         "word alone, or end the bracket with }PROFILE first", tok.pos, tok.text)
    name = word_name(f, tok, "PROFILE my-word")
    entry = f.lookup(name.key)
    if entry is None:
        raise ForthError(f"PROFILE: unknown word {name.text}; define it first (WORDS lists the dictionary)",
                         name.pos, name.text)
    rec = Recorder(f)
    rec.start()
    try:
        f.run_entry(entry, name)
    finally:
        rec.stop()
    _finish(f, rec, f"PROFILE {name.text}")


@host("PROFILE{", "( -- )", "Profile every launch until }PROFILE, across lines, as PROFILE does one word.",
      "PROFILE{ 1 DROP }PROFILE", wordset="tileforth", group=INSPECT_GROUP)
def w_profile_open(f: "Forth", tok: Token) -> None:
    _check(f, tok)
    if getattr(f, "profiling", None) is not None:
        raise ForthError("PROFILE{ is open already: end it with }PROFILE before starting another",
                         tok.pos, tok.text)
    rec = Recorder(f)
    rec.start()
    f.profiling = rec


@host("}PROFILE", "( -- )", "End PROFILE{ and show the figures of the launches since.", "PROFILE{ }PROFILE",
      wordset="tileforth", group=INSPECT_GROUP)
def w_profile_close(f: "Forth", tok: Token) -> None:
    rec = getattr(f, "profiling", None)
    if rec is None:
        raise ForthError("}PROFILE without PROFILE{: put PROFILE{ before the lines to profile",
                         tok.pos, tok.text)
    rec.stop()
    f.profiling = None
    _finish(f, rec, "PROFILE{ … }PROFILE")
