"""Several GPUs in one session (tileforth's own words): DEVICES counts them, DEVICE
selects the one the launches that follow run on and the arrays made from now on
live on, DEVICE? tells which is selected, .ARRAYS lists the arrays with their
devices, ACOPY copies one array into another, also from one device to another.

An array lives on the device that was selected when ARRAY or MATRIX made it,
and keeps its address: moving data is explicit, an ACOPY into an array made on
the other device. A launch that touches an array of another device is refused
(the backend's table of what a launch may touch leaves it out). The session's
own memory (its data space, stacks and buffers) stays on the device it started
on. The cpu backend emulates one device, 0."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ...errors import ForthError
from ...front.reader import Token
from ..arraydevices import array_at, arrays_of
from .table import host

if TYPE_CHECKING:
    from ..interpreter import Forth

GROUP = "Devices"


@host("DEVICES", "( -- n )", "The number of devices the session may select with DEVICE: the GPUs the cuda "
      "backend sees, 1 on the cpu backend (which emulates one device, 0).", "DEVICES .  \\ 1",
      wordset="tileforth", group=GROUP)
def w_devices(f: "Forth", tok: Token) -> None:
    f.push_uniform(f.backend.device_count())


@host("DEVICE", "( n -- )", "Select device n (0 up to DEVICES - 1): the launches that follow run on it (the cuda "
      "backend: in its context) and ARRAY and MATRIX make their arrays in its memory. The session's own memory "
      "(data space, stacks) stays on the device it started on; a launch that touches another device's array is "
      "refused: copy it over with ACOPY.", "0 DEVICE  DEVICE? .  \\ 0", wordset="tileforth", group=GROUP)
def w_device(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "DEVICE")
    count = f.backend.device_count()
    if not 0 <= n < count:
        have = (f"the {f.backend.name} backend emulates one device, 0" if count == 1 and f.backend.caps.host_memory
                else f"the {f.backend.name} backend has {count} device{'s' if count != 1 else ''}, 0 to {count - 1}"
                if count > 1 else f"the {f.backend.name} backend has one device, 0")
        raise ForthError(f"no device {n}: {have} (DEVICES says how many); select one of them, e.g. `0 DEVICE`")
    f.backend.select_device(n)


@host("DEVICE?", "( -- n )", "The device DEVICE selected (0 at first): where launches run and new arrays live.",
      "DEVICE? .  \\ 0", wordset="tileforth", group=GROUP)
def w_device_q(f: "Forth", tok: Token) -> None:
    f.push_uniform(f.backend.current_device)


@host(".ARRAYS", "( -- )", "List every ARRAY and MATRIX: its name, shape, element type and the device it "
      "lives on.", "4 F32 ARRAY xs  .ARRAYS  \\ xs 4 F32 device 0", wordset="tileforth", group=GROUP)
def w_dot_arrays(f: "Forth", tok: Token) -> None:
    rows = [f"{name} {' '.join(map(str, shape))} {et.name} device {f.backend.array_device(addr)}\n"
            for name, (addr, shape, et) in arrays_of(f)]
    f.print_text("".join(rows) if rows else "no arrays: make one with ARRAY or MATRIX, e.g. `16 F32 ARRAY xs`\n")


@host("ACOPY", "( src dst -- )", "Copy every element of array src into array dst, of the same element type and "
      "number of elements, whichever devices they live on (between two GPUs: a peer copy, or through the host "
      "where they cannot reach each other).", "4 F32 ARRAY xs  4 F32 ARRAY ys  RAMP xs  xs ys ACOPY  "
      "ys 3 SFLOATS + SF@ F.  \\ 3.", wordset="tileforth", group=GROUP)
def w_acopy(f: "Forth", tok: Token) -> None:
    src, dst = f.pop_uniform(2, "ACOPY")
    sname, (saddr, sshape, stype) = array_at(f, src, "ACOPY", "source (second)")
    dname, (daddr, dshape, det) = array_at(f, dst, "ACOPY", "destination (top)")
    n, m = math.prod(sshape), math.prod(dshape)
    if stype.name != det.name or n != m:
        raise ForthError(f"ACOPY copies between arrays of one element type and size, but {sname} has {n} {stype.name} "
                         f"and {dname} {m} {det.name}: make the destination like the source, e.g. "
                         f"`{' '.join(map(str, sshape))} {stype.name} {'ARRAY' if len(sshape) == 1 else 'MATRIX'} "
                         f"{dname}`")
    if saddr != daddr:
        f.backend.copy(daddr, saddr, n * stype.size)
