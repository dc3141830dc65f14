"""The messages of errors a launch reports, as the session shows them:

    launch_error(f, record)       each error code of the context record (code, site, thread,
                                  address, aux) as a sentence, with its position and word
    divergence_error(f, ...)      a divergent barrier: which threads wait at which BARRIER,
                                  which finished without reaching it

An E_RACE record is the emulator's race or type report (tileforth/backends/cpu/races.py):
who accessed which array (by the name of its word) in which order, or a float
word on an array of another float type; an E_THROW record is THROW's code with
its meaning (THROW_MEANINGS, which launcher.py writes into its modules too) or
ABORT"'s text. The functions take the session (`Forth`) first, except
word_at (the token at a source position, the word an error names), which the
interpreter uses too.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..compile import layout as L
from ..compile.primitive import Primitive
from ..compile.tileops import Load, Store
from ..errors import ForthError, SourcePos
from ..front.dictionary import Colon, Constant, HostWord, Immediate
from ..front.tree import Call, HostOp, walk
from ..lazy import np
from .arraydevices import cross_device_message
from .hostexec import RAISE_BUDGET
from .output import ranges as _ranges
from .smemtiles import async_message

if TYPE_CHECKING:
    from .api import Session as Forth

THROW_CODES = {L.E_UNDERFLOW: -4, L.E_OVERFLOW: -3, L.E_FUNDERFLOW: -45, L.E_FOVERFLOW: -44, L.E_BAD_ADDR: -9,
               L.E_ALIGN: -23, L.E_DIV0: -10, L.E_RECURSION: -5, L.E_STACK: -5,
               L.E_ABORT: None, L.E_STEPS: None, L.E_LAUNCH_STEPS: None,  # None: CATCH lets it through
               L.E_RACE: -256, L.E_ASYNC: -257}  # system-defined (Forth-2012 9.3.1: -4095..-256 are the system's)
THROW_MEANINGS = {-1: "ABORT", -2: 'ABORT"', -3: "stack overflow", -4: "stack underflow", -5: "return stack overflow",
                  -6: "return stack underflow", -9: "invalid memory address", -10: "division by zero",
                  -11: "result out of range", -13: "undefined word", -14: "interpreting a compile-only word",
                  -23: "address alignment exception", -24: "invalid numeric argument", -28: "user interrupt",
                  -44: "floating-point stack overflow", -45: "floating-point stack underflow",
                  -256: "the emulator's checker found a data race or a float word on an array of another type",
                  -257: "an asynchronous copy (cp.async) or a shared tile misused",
                  -262: "ALLOCATE, FREE or RESIZE in device code, in a launch whose blocks run on several cores, "
                        "where the allocation table cannot change: allocate at the top level of a line, or run "
                        "fewer than 512 threads or one block (or set TILEFORTH_WORKERS=1)"}


# what a bad address's message tells the user to do (a kernel file's run says otherwise: its body
# declares its memory in the header, export/kernelfile.py)
BAD_ADDRESS_HINT = "use an address from ARRAY, MATRIX, VARIABLE, CREATE or SHARED:"


def word_at(pos: SourcePos | None) -> str | None:
    """The token that starts at a source position."""
    if pos is None or not pos.text:
        return None
    rest = pos.text[pos.col - 1:].split()
    return rest[0] if rest else None


def _site(f: "Forth", site: int) -> tuple[str, SourcePos | None]:
    if 0 <= site < len(f.sites.entries):
        return f.sites.entries[site]
    return "<line>", None


def launch_error(f: "Forth", err: tuple[int, int, int, int, int]) -> ForthError:
    code, site, thread, addr, aux = err
    word, pos = _site(f, site)
    where = f" in {word}" if word != "<line>" else ""
    thr = f"thread {thread}"
    msgs = {
        L.E_UNDERFLOW: f"data stack underflow{where}: {thr} has too few items; push the inputs first",
        L.E_OVERFLOW: f"data stack overflow{where}: {thr} has more than {f.machine.ds_max} items; drop what "
                      "you no longer need",
        L.E_FUNDERFLOW: f"float stack underflow{where}: {thr} has too few floats; push them first",
        L.E_FOVERFLOW: f"float stack overflow{where}: {thr} has more than {f.machine.fs_max} floats",
        L.E_BAD_ADDR: (f"bad address ${addr & (2**64 - 1):x}{where} ({thr}, {aux} bytes): " +
                       (cross_device_message(f, addr) or f"it is outside every allocation; {BAD_ADDRESS_HINT}")),
        L.E_ALIGN: f"misaligned address ${addr & (2**64 - 1):x}{where} ({thr}): a {aux}-byte access "
                   f"needs an address that is a multiple of {aux} (see ALIGNED)",
        L.E_DIV0: (f"division by zero{where} ({thr}); check the divisor first" if aux == 0 else
                   f"result out of range{where} ({thr}): the quotient of the most negative cell by -1, 2^63, "
                   "does not fit a cell; check the operands first" if aux == 2 else
                   f"division overflow{where} ({thr}): the quotient does not fit a cell (Forth reports it as a "
                   "division by zero, -10); divide a smaller number, or by a larger divisor"),
        L.E_STEPS: f"{thr} ran {f.step_budget} loop iterations and calls{where} without finishing: the loop "
                   f"or recursion looks infinite ({RAISE_BUDGET})",
        L.E_LAUNCH_STEPS: f"the launch ran {f.step_budget} loop iterations{where}, summed over its "
                          f"{np.prod(f.launch_shape)} threads (a BARRIER, a tile operation or a warp "
                          f"operation such as SHFL-XOR or BALLOT counts as many), without finishing ({thr} was "
                          f"running): the loop looks infinite ({RAISE_BUDGET})",
        L.E_ABORT: "interrupted",
        L.E_BAD_XT: _bad_xt_message(f, addr, aux, where, thr),
        L.E_RECURSION: f"recursion deeper than {aux} calls{where} ({thr}), the limit of the {f.backend.name} "
                       "backend; is the base case missing?",
        L.E_STACK: f"recursion{where} used up the stack the {f.backend.name} backend allows ({thr}, {aux} "
                   "calls deep: its frames are large); is the base case missing? If not, keep fewer values "
                   "on the stacks in each call",
    }
    if code == L.E_THROW:
        msgs[code] = _throw_message(f, aux, addr, where, thr)
    if code == L.E_RACE:
        msgs[code] = _race_message(f, addr, aux, thread, where, word_at(pos), site)
    if code == L.E_ASYNC:
        msgs[code] = async_message(f, thread, addr, aux, where, word_at(pos))
    throw = aux if code == L.E_THROW else -11 if code == L.E_DIV0 and aux == 2 else THROW_CODES.get(code, -1)
    return ForthError(msgs.get(code, f"device error {code}{where}"), pos, word_at(pos), code=throw)


def _bad_xt_message(f: "Forth", why: int, xt: int, where: str, thr: str) -> str:
    """E_BAD_XT: why the device could not execute `xt`, and how to run it."""
    entry = f.tokens.find(xt)
    name = entry.name if entry is not None else None
    if why == L.XT_HOST and isinstance(entry, Primitive):  # PICK ROLL TROLL: a literal count is their operand
        return (f"EXECUTE{where} ({thr}): {name} takes its count from a literal before it, so device code "
                "cannot run it through a token; write it in the definition")
    if why == L.XT_HOST:
        uses = _host_action(entry)
        n = int(np.prod(f.launch_shape))
        if f.collector is not None or n == 1:  # a kernel file's body (or f.kernel's word): one launch
            how = ("a kernel is one launch, which cannot stop for the host: call the word from a line "
                   "instead, or keep host words out of the kernel")
        else:
            how = (f"the launch has {n} threads, and only a one-thread launch (`1 1 1 GRID 1 1 1 THREADS`, "
                   "as an ordinary Forth program runs) lets EXECUTE reach host words; run it there, or "
                   "EXECUTE it in the line, outside definitions and loops")
        return (f"EXECUTE{where} ({thr}): {name} runs on the host ({uses}), so device code cannot "
                f"execute it: {how}")
    if why == L.XT_SUSPENDS:
        return (f"EXECUTE{where} ({thr}): {name} waits for the warp or the block (a BARRIER or a tile "
                "operation), which a called word cannot; call it by name")
    if why == L.XT_FRAME:
        return (f"EXECUTE{where} ({thr}): {name} works on the return stack or the DO loops of the definition "
                "it is written in, so it cannot run through a token; write it in the definition")
    return (f"EXECUTE{where} ({thr}): {xt} is not an execution token (an unset DEFER holds 0); get one "
            "with ' or [']")


def _host_action(entry: object) -> str:
    """What makes a host-level word one: the first host word it reaches, as a phrase."""
    if isinstance(entry, (HostWord, Immediate)):
        return "it is a host word"
    seen: set[int] = set()
    todo = [entry] if isinstance(entry, Colon) else []
    while todo:
        word = todo.pop()
        if word.uid in seen:
            continue
        seen.add(word.uid)
        for n in walk(word.body):
            if isinstance(n, HostOp):
                return f"it uses {n.name.split()[-1]}" + (f", in {word.name}" if word is not entry else "")
            if isinstance(n, Call) and n.word.host:
                todo.append(n.word)
    return "it defines or compiles words"


def _race_message(f: "Forth", addr: int, aux: int, thread: int, where: str, token: str | None,
                  site: int = -1) -> str:
    """The race detector's report (tileforth/backends/cpu/races.py): where, who, in which order, and the fix."""
    r = f.backend.race_report(aux)
    if r["type"]:
        return _type_message(f, addr, r["access"], r["array"], f"{token or 'a float word'}{where}")
    first = _access(f, r["first_thread"], r["first_kind"], r["first_site"])
    if r["first_site"] is not None:
        word, pos = _site(f, r["first_site"])
        place = [f"in {word}"] * (word != "<line>") + [f"at {pos}"] * (pos is not None)
        first += f" ({' '.join(place)})" if place else ""
    second = _access(f, thread, r["second_kind"], site)
    space = "shared" if r["shared"] else "global"
    same = r["shared"] or _same_block(f, thread, r["first_thread"])
    between = "with no BARRIER between them" if same else "from another block of the same launch"
    fix = ("put a BARRIER between the two accesses (every thread of the block must reach it), or make both "
           "atomic (ATOMIC+ and friends)" if same else
           "blocks of one launch are never ordered: let one block own the location, use atomics, or split "
           "the work into two launches")
    if not where:  # the access is in the line itself, which every thread of the launch runs
        fix += (f". Every one of the launch's {int(np.prod(f.launch_shape))} threads runs a line: to run it "
                "once, set 1 1 1 GRID 1 1 1 THREADS")
    return f"data race on {space} memory at {_address_name(f, addr)}{where}: {first}, then {second}, {between}; {fix}"


def _access(f: "Forth", thread: int, kind: int, site: int | None) -> str:
    """Who did what in a race: a thread, or the warp of a tile load or store (whose first lane,
    `thread`, made the access for it: warpops.py) and its word."""
    verb = ("read", "wrote", "atomically updated")[kind]
    op = f.sites.info.get(site) if site is not None else None
    if isinstance(op, (Load, Store)):
        word = op.word if isinstance(op, Load) else "TSTORE"
        return f"the warp of threads {thread}-{thread + 31} {verb} it with {word}"
    return f"thread {thread} {verb} it"


def _type_message(f: "Forth", addr: int, access: str, array: str, who: str) -> str:
    """A memory word on an array of another element type (checked mode, the emulator): a float word on
    an array of another float type or of integers, a cell or integer word on a float array or one of
    integers of another width."""
    be = f.backend
    base = be.allocation_base(addr, 1)
    meta = getattr(be.element_type(base) if base is not None else None, "metadata", None) or {}
    name = meta.get("name") or _address_name(f, addr)
    words = {"float16": "HF@ HF!", "bfloat16": "BF@ BF!", "float32": "SF@ SF!", "float64": "DF@ DF!",
             "int16": "I16@ I16! (W@ W!)", "int32": "I32@ I32! (L@ L!)", "int64 (cell)": "@ !"}
    return (f"{name} holds {array} values, but {who} accesses it as {access}: use "
            f"{words.get(array, 'the words of its type')} for it, or give it an array of {access}")


def _same_block(f: "Forth", t1: int, t2: int) -> bool:
    bs = int(np.prod(f.launch_shape[1]))
    return t1 // bs == t2 // bs


def _address_name(f: "Forth", addr: int) -> str:
    """An address as `name+offset` after the dictionary word whose data holds it (an array, a
    variable, a SHARED: region), or in hex. Only the emulator's reports name addresses, so the
    backend is the cpu one (shared_regions, allocation_base)."""
    be = f.backend
    sbase = next((r for r in be.shared_regions() if 0 <= addr - r < max(f.shared_bytes, 1)), 0)
    if sbase:
        cands = [(e.shared, e.name) for e in f.dict.values()
                 if isinstance(e, Constant) and e.shared is not None and e.shared <= addr - sbase]
        off = addr - sbase
    else:
        base = be.allocation_base(addr, 1)
        cands = [(int(e.value), e.name) for e in f.dict.values()
                 if isinstance(e, Constant) and not e.is_float and e.shared is None and e.param is None
                 and isinstance(e.value, int) and e.value <= addr and base is not None
                 and be.allocation_base(int(e.value), 1) == base]
        off = addr
    if not cands:
        return f"${addr & (2**64 - 1):x}"
    start, name = max(cands)
    return f"{name}+{off - start}" if off > start else name


def _throw_message(f: "Forth", n: int, string_id: int, where: str, thr: str) -> str:
    if n == -2 and 0 <= string_id < len(f.strings):
        return f"{f.strings[string_id]} (ABORT\"{where}, {thr})"
    # the codes EXCEPTION made (words/system.py keeps them in data space's "exceptions" area)
    meaning = f.space.areas.get("exceptions", {}).get(n) or THROW_MEANINGS.get(n)
    return (f"uncaught exception {n}{where} ({thr})" + (f": {meaning}" if meaning else "") +
            "; catch it with CATCH, or find where it is thrown")


def divergence_error(f: "Forth", statuses: np.ndarray, sites: np.ndarray, block: int) -> ForthError:
    at_bar = np.flatnonzero(statuses == L.ST_BARRIER)
    groups: dict[int, list[int]] = {}
    for t in at_bar:
        groups.setdefault(int(sites[t]), []).append(int(t))
    done = np.flatnonzero(statuses == L.ST_DONE).tolist()
    parts = []
    first_pos = None
    for site, lanes in groups.items():
        word, pos = _site(f, site)
        first_pos = first_pos or pos
        where = f"line {pos.line}, column {pos.col}" if pos else "?"
        parts.append(f"threads {_ranges(lanes)} wait at the BARRIER at {where}")
    if done:
        parts.append(f"threads {_ranges(done)} finished without reaching it")
    return ForthError(f"divergent barrier in block {block}: " + "; ".join(parts) +
                      ". Every thread of a block must reach the same BARRIER: move it out of "
                      "the IF (or make the condition the same for the whole block)", first_pos, "BARRIER")
