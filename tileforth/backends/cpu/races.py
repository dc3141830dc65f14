"""The emulator's race detector and memory-access trace, in LLVM IR.

In checked mode every load and store goes through `tf_race(ctx, thr, addr,
base, size | float type << 8, kind | site << 2, bits)` after its range check
(base: the allocation the check found; kind: READ, WRITE, ATOMIC, or
STORE_VALUE with the stored bits). It is compiled once per process with the
scheduler and returns 1, or records the error (E_RACE, through tf_fail) and
returns 0. Each part runs only when the host turned it on for the launch:

* **Trace** (PROFILE, ctx[CTX_TRACE]): append a record (thread, kind | site
  << 2, addr, size | epoch << 8) to the trace buffer; the host analyses it
  (accessprofile.py).
* **Types** (ctx[CTX_TYPES]): a float word on an allocation whose header
  names another float type (FLOAT_CODES) is an error.
* **Race detection** (ctx[CTX_RACE_GEN] != 0): each allocation's header
  (HEADER bytes below it) holds the address of its shadow, ENTRY cells per
  4-byte granule of memory:

      e0  generation (low 32 bits: the launch that wrote the entry) | site of the last write << 32
      e1  last writer       (tid + 1) | atomic << 24 | epoch << 25
      e2  a reader          (tid + 1) | epoch << 25
      e3  another reader, concurrent with the first
      e4  the fence clock at the last write | the granule's bytes the writer, the reader and the
          other reader touched (4 bits each, from bit 48)

  An entry of another generation is empty, so the shadows are never cleared.
  A thread's *epoch* counts the BARRIERs it passed (<< 16) and its
  SYNCWARPs. Two accesses by different threads are concurrent when
  - they are in different blocks (global memory: no barrier orders blocks;
    shared memory is per block, so an entry of another block is stale), or
  - same block, different warps, same number of BARRIERs passed, or
  - same warp, same epoch (no BARRIER or SYNCWARP between).
  A write concurrent with any other access, or a read concurrent with a
  write, is a race, unless both are atomics, or the writer ran THREADFENCE
  after its write and this thread an atomic after that fence. A store of
  the bits memory already holds is not checked but makes its thread the
  writer.

The emulator runs a block's threads one after another between suspend
points, so "first" is the order the emulator ran them in: the record names
the earlier access (its thread, what it did, and for a write its site).
"""
from __future__ import annotations

from typing import Callable, Mapping

import llvmlite
import numpy as np
from llvmlite import ir
from tileforth.core.buffers import zeroed
from tileforth.core.compile import layout as L
from tileforth.core.compile import tiles
from tileforth.core.compile.tiles import WARP

I1, I64 = ir.IntType(1), ir.IntType(64)
PTR = ir.PointerType()
READ, WRITE, ATOMIC, STORE_VALUE = 0, 1, 2, 3  # STORE_VALUE: a write whose bits the caller passes
GRANULE = 4  # bytes of memory one shadow entry covers
HEADER = 16  # bytes below each allocation: its shadow's address (0: none) and its float type (FLOAT_CODES)
ENTRY = 5  # i64 slots per shadow entry
TID_BITS, ATOMIC_BIT, EPOCH_SHIFT = 24, 24, 25
CLOCK_MASK, W_MASK, R1_MASK, R2_MASK = (1 << 48) - 1, 48, 52, 56  # e4: write clock | byte masks
# the packed race record (ctx[CTX_ERR_AUX]); bit 29 is always set so the record is nonzero
R_KIND_FIRST, R_KIND_SECOND, R_SHARED, R_FLAG, R_SITE = 24, 26, 28, 29, 32
# a float access of another type than the allocation's elements: flag, the access's type, the array's
R_TYPE, R_TYPE_ACCESS, R_TYPE_ARRAY = 30, 32, 36
# element types (the size argument's bits 8 up, an allocation header's second cell): 0 is untyped. Integers
# count by width (an int32 and a uint32 array take the same words); bytes are untyped (C@ reads any memory)
FLOAT_CODES = {"float16": 1, "bfloat16": 2, "float32": 3, "float64": 4,
               "int16": 6, "uint16": 6, "int32": 7, "uint32": 7, "int64": 8, "uint64": 8}
FLOAT_NAMES = {1: "float16", 2: "bfloat16", 3: "float32", 4: "float64", 6: "int16", 7: "int32", 8: "int64 (cell)"}
_INT_CODES = {2: 6, 4: 7, 8: 8}  # an integer access's width in bytes -> its code


def float_code(word: str, float_bits: int, size: int = 0) -> int:
    """The element type a memory word reads or writes: a float word's (F@ SF! DF@ HF! BF@ FATOMIC+; F@ F!
    move the float stack's type, float_bits wide), else an integer word's by its width `size` (@ ! +!
    2@ L@ I32! W@ ATOMIC+ ...: cells, 32-, 16-bit integers); 0 for a byte and an unknown width."""
    prefix = {"FATOMIC+": "SF"}.get(word, word[:-1])
    name = {"F": f"float{float_bits}", "SF": "float32", "DF": "float64", "HF": "float16", "BF": "bfloat16"}
    return FLOAT_CODES[name[prefix]] if prefix in name else _INT_CODES.get(size, 0)


def _unpack(aux: int) -> dict:
    """The race record the helper returns, as the host reads it."""
    if (aux >> R_TYPE) & 1:
        return {"type": True, "access": FLOAT_NAMES.get((aux >> R_TYPE_ACCESS) & 15, "?"),
                "array": FLOAT_NAMES.get((aux >> R_TYPE_ARRAY) & 15, "?")}
    site = (aux >> R_SITE) & 0xFFFFFFFF
    return {"first_thread": aux & ((1 << TID_BITS) - 1), "first_kind": (aux >> R_KIND_FIRST) & 3,
            "second_kind": (aux >> R_KIND_SECOND) & 3, "shared": bool((aux >> R_SHARED) & 1),
            "first_site": site - 1 if site else None, "type": False}


def c(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


def _slot(b: ir.IRBuilder, base: ir.Value, slot: int | ir.Value) -> ir.Value:
    return b.gep(base, [c(slot) if isinstance(slot, int) else slot], source_etype=I64)


def _conflict(m: ir.Module) -> ir.Function:
    """i1 tf_race_conflict(other, tid, epoch, block_start, block_size, warp_start, shared): the access
    recorded as `other` (an e1/e2/e3 word) is concurrent with this thread's, by the rules above
    (block_start, warp_start: the linear index of this thread's block's and warp's first thread)."""
    fn = ir.Function(m, ir.FunctionType(I1, [I64, I64, I64, I64, I64, I64, I1]), "tf_race_conflict")
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")
    o, tid, ep, bstart, bs, wstart, shared = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    other, blocks, warps, done = (fn.append_basic_block(n) for n in ("other", "blocks", "warps", "done"))
    otid1 = b.and_(o, c((1 << TID_BITS) - 1))
    otid = b.sub(otid1, c(1))
    nobody = b.or_(b.icmp_unsigned("==", otid1, c(0)), b.icmp_unsigned("==", otid, tid))
    start = b.block
    b.cbranch(nobody, done, other)
    b.position_at_end(other)
    same_block = b.icmp_unsigned("<", b.sub(otid, bstart), bs)
    other_block_conflict = b.not_(shared)  # global memory: blocks are never ordered; shared: a stale entry
    b.cbranch(same_block, blocks, done)
    b.position_at_end(blocks)
    oep = b.lshr(o, c(EPOCH_SHIFT))
    same_epoch = b.icmp_unsigned("==", oep, ep)
    same_warp = b.icmp_unsigned("<", b.sub(otid, wstart), c(WARP))
    b.cbranch(same_warp, done, warps)
    b.position_at_end(warps)
    same_barriers = b.icmp_unsigned("==", b.lshr(oep, c(16)), b.lshr(ep, c(16)))
    b.branch(done)
    b.position_at_end(done)
    r = b.phi(I1)
    r.add_incoming(ir.Constant(I1, 0), start)
    r.add_incoming(other_block_conflict, other)
    r.add_incoming(same_epoch, blocks)
    r.add_incoming(same_barriers, warps)
    b.ret(r)
    return fn


def _helper(m: ir.Module, conflict: ir.Function) -> ir.Function:
    fn = ir.Function(m, ir.FunctionType(I64, [PTR, PTR, I64, I64, I64, I64, I64]), "tf_race")
    fn.attributes.add("noinline")
    ctx, thr, addr, base, size_arg, ks, bits = fn.args
    bb = {n: fn.append_basic_block(n) for n in
          ("entry", "trace", "record", "race", "find", "have",
           "granule", "read", "write", "store", "step", "found", "none")}
    b = ir.IRBuilder(bb["entry"])
    size, ftype = b.and_(size_arg, c(0xFF)), b.lshr(size_arg, c(8))
    tid = b.load(_slot(b, thr, L.T_LINEAR), typ=I64)
    ep = b.and_(b.load(_slot(b, thr, L.T_EPOCH), typ=I64), c((1 << (64 - EPOCH_SHIFT)) - 1))
    kind = b.and_(ks, c(3))
    site = b.lshr(ks, c(2))
    tr = b.load(_slot(b, ctx, L.CTX_TRACE), typ=I64)
    b.cbranch(b.icmp_unsigned("!=", tr, c(0)), bb["trace"], bb["race"])

    b.position_at_end(bb["trace"])  # the trace counts every record; it keeps those that fit
    lenp = _slot(b, ctx, L.CTX_TRACE_LEN)
    n = b.load(lenp, typ=I64)
    b.store(b.add(n, c(1)), lenp)
    fits = b.icmp_unsigned("<", n, b.load(_slot(b, ctx, L.CTX_TRACE_CAP), typ=I64))
    b.cbranch(fits, bb["record"], bb["race"])
    b.position_at_end(bb["record"])
    rec = _slot(b, b.inttoptr(tr, PTR), b.mul(n, c(4)))
    for i, v in enumerate((tid, ks, addr, b.or_(size, b.shl(ep, c(8))))):
        b.store(v, _slot(b, rec, i))
    b.branch(bb["race"])

    b.position_at_end(bb["race"])
    gen = b.load(_slot(b, ctx, L.CTX_RACE_GEN), typ=I64)
    types = b.load(_slot(b, ctx, L.CTX_TYPES), typ=I64)
    b.cbranch(b.icmp_unsigned("!=", b.or_(gen, types), c(0)), bb["find"], bb["none"])
    b.position_at_end(bb["find"])  # the allocation's header (HEADER bytes below it): its shadow and type
    header = b.inttoptr(b.sub(base, c(HEADER)), PTR)
    sh_addr = b.load(header, typ=I64)
    et = b.load(_slot(b, header, 1), typ=I64)
    # a float word on an array of another float type (an f32 word given a float64 array)
    mistyped = b.and_(b.and_(b.icmp_unsigned("!=", ftype, c(0)), b.icmp_unsigned("!=", et, c(0))),
                      b.icmp_unsigned("!=", ftype, et))
    typed = fn.append_basic_block("typed")
    wrong = fn.append_basic_block("wrong")
    b.cbranch(mistyped, wrong, typed)
    b.position_at_end(wrong)
    b.ret(_fail(b, ctx, thr, site, addr,
                b.or_(c(1 << R_FLAG | 1 << R_TYPE), b.or_(b.shl(ftype, c(R_TYPE_ACCESS)), b.shl(et, c(R_TYPE_ARRAY))))))
    b.position_at_end(typed)  # races: only with a generation (several threads) and a shadow
    racing = b.and_(b.icmp_unsigned("!=", gen, c(0)), b.icmp_unsigned("!=", sh_addr, c(0)))
    b.cbranch(racing, bb["have"], bb["none"])
    b.position_at_end(bb["have"])
    sh = b.inttoptr(sh_addr, PTR)
    bs = b.load(_slot(b, ctx, L.CTX_BLOCK_SIZE), typ=I64)
    sbase = b.load(_slot(b, ctx, L.CTX_SHARED), typ=I64)
    shared = b.icmp_unsigned("<", b.sub(addr, sbase), b.load(_slot(b, ctx, L.CTX_SHARED_SIZE), typ=I64))
    # a store of the bits memory already holds changes nothing another thread could see: it is not
    # checked, but it makes this thread the writer (its own later reads see what it stored)
    given = b.block
    silent, join = fn.append_basic_block("silent"), fn.append_basic_block("join")
    b.cbranch(b.icmp_unsigned("==", kind, c(STORE_VALUE)), silent, join)
    b.position_at_end(silent)
    sizes = [fn.append_basic_block(f"old{n}") for n in (1, 2, 4, 8)]
    loaded = fn.append_basic_block("loaded")
    sw = b.switch(size, sizes[-1])
    for n, blk in zip((1, 2, 4), sizes):
        sw.add_case(c(n), blk)
    old = []
    for n, blk in zip((1, 2, 4, 8), sizes):
        b.position_at_end(blk)
        v = b.load(b.inttoptr(addr, PTR), typ=ir.IntType(8 * n))
        old.append((v if n == 8 else b.zext(v, I64), blk))
        b.branch(loaded)
    b.position_at_end(loaded)
    prev = b.phi(I64)
    for v, blk in old:
        prev.add_incoming(v, blk)
    same = b.icmp_unsigned("==", prev, bits)
    b.branch(join)
    b.position_at_end(join)
    effective, quiet = b.phi(I64), b.phi(I1)
    effective.add_incoming(kind, given)
    effective.add_incoming(c(WRITE), loaded)
    quiet.add_incoming(ir.Constant(I1, 0), given)
    quiet.add_incoming(same, loaded)
    kind = effective
    clock = b.load(b.inttoptr(b.load(_slot(b, ctx, L.CTX_CLOCK), typ=I64), PTR), typ=I64)  # a shared cell
    acquired = _slot(b, thr, L.T_ACQUIRED)
    atomic_bb, on_bb = fn.append_basic_block("atomic"), fn.append_basic_block("on")
    b.cbranch(b.icmp_unsigned("==", kind, c(ATOMIC)), atomic_bb, on_bb)
    b.position_at_end(atomic_bb)
    b.store(clock, acquired)
    b.branch(on_bb)
    b.position_at_end(on_bb)
    gen32 = b.and_(gen, c(0xFFFFFFFF))
    me = b.or_(b.add(tid, c(1)), b.shl(ep, c(EPOCH_SHIFT)))
    bstart = b.load(_slot(b, thr, L.T_BSTART), typ=I64)
    wstart = b.add(bstart, b.and_(b.sub(tid, bstart), c(-WARP)))
    first = b.lshr(b.sub(addr, base), c(2))
    last = b.lshr(b.sub(b.add(addr, b.sub(size, c(1))), base), c(2))
    head = b.block
    b.branch(bb["granule"])

    b.position_at_end(bb["granule"])
    g = b.phi(I64)
    g.add_incoming(first, head)
    # the granules of one access (a tile's line: 8 or 16) mostly hold the same entry, and the check
    # and update depend only on the entry: a granule whose entry is the one the previous granule
    # had (`seen`) takes the entry the previous one was given (`given`), unchecked
    known = b.phi(I1)
    known.add_incoming(ir.Constant(I1, 0), head)
    seen, given = [b.phi(I64) for _ in range(ENTRY)], [b.phi(I64) for _ in range(ENTRY)]
    for phi in seen + given:
        phi.add_incoming(c(0), head)
    e = _slot(b, sh, b.mul(g, c(ENTRY)))
    raw = [b.load(_slot(b, e, k), typ=I64) for k in range(ENTRY)]
    repeat = known
    for x, y in zip(raw, seen):
        repeat = b.and_(repeat, b.icmp_unsigned("==", x, y))
    copy, check = fn.append_basic_block("copy"), fn.append_basic_block("check")
    b.cbranch(repeat, copy, check)
    b.position_at_end(copy)
    for k, v in enumerate(given):
        b.store(v, _slot(b, e, k))
    b.branch(bb["step"])
    b.position_at_end(check)
    e0 = raw[0]
    fresh = b.icmp_unsigned("==", b.and_(e0, c(0xFFFFFFFF)), gen32)
    w, r1, r2 = (b.select(fresh, raw[k], c(0)) for k in (1, 2, 3))
    wsite = b.select(fresh, b.lshr(e0, c(32)), c(0))
    w_kind = b.select(b.icmp_unsigned("!=", b.and_(w, c(1 << ATOMIC_BIT)), c(0)), c(ATOMIC), c(WRITE))
    e4 = b.select(fresh, raw[4], c(0))
    # the bytes of the granule each access touched (4 bits each): accesses to different bytes never race
    mine = b.select(b.icmp_unsigned(">=", size, c(GRANULE)), c(0xF),
                    b.shl(b.sub(b.shl(c(1), size), c(1)), b.and_(addr, c(GRANULE - 1))))

    def touches(shift: int) -> ir.Value:
        return b.icmp_unsigned("!=", b.and_(b.lshr(e4, c(shift)), mine), c(0))

    def call_conflict(o: ir.Value) -> ir.Value:
        return b.call(conflict, [o, tid, ep, bstart, bs, wstart, shared])

    def released(rb: ir.IRBuilder) -> ir.Value:
        """(on the slow path) The writer fenced after the write (its T_FENCED passed the write's
        clock) and this thread did an atomic since that fence: ordered (CUDA's threadfence-then-
        atomic-flag pattern)."""
        wtid1 = rb.and_(w, c((1 << TID_BITS) - 1))
        wtid = rb.select(rb.icmp_unsigned("==", wtid1, c(0)), tid, rb.sub(wtid1, c(1)))  # none: this thread
        wthr = _slot(rb, thr, rb.mul(rb.sub(wtid, tid), c(L.THR_SLOTS)))
        fenced = rb.load(_slot(rb, wthr, L.T_FENCED), typ=I64)
        return rb.and_(rb.icmp_unsigned(">", fenced, rb.and_(e4, c(CLOCK_MASK))),
                       rb.icmp_unsigned(">=", rb.load(acquired, typ=I64), fenced))

    b.cbranch(b.icmp_unsigned("==", kind, c(READ)), bb["read"], bb["write"])
    # a read: concurrent with the last write? then remember this reader
    b.position_at_end(bb["read"])
    cw = b.and_(call_conflict(w), touches(W_MASK))
    cr1 = call_conflict(r1)
    new_r1, new_r2 = b.select(cr1, r1, me), b.select(cr1, me, r2)
    slot_shift = b.select(cr1, c(R2_MASK), c(R1_MASK))
    new_e4 = b.or_(b.and_(e4, b.xor(b.shl(c(0xF), slot_shift), c(-1))), b.shl(mine, slot_shift))
    read_end = b.block
    # a write or an atomic: concurrent with the last write (unless both are atomic) or with a reader?
    b.position_at_end(bb["write"])
    both_atomic = b.and_(b.icmp_unsigned("==", kind, c(ATOMIC)), b.icmp_unsigned("==", w_kind, c(ATOMIC)))
    cww_raw = b.and_(b.and_(call_conflict(w), touches(W_MASK)), b.not_(both_atomic))
    cwr1 = b.and_(call_conflict(r1), touches(R1_MASK))
    cwr2 = b.and_(call_conflict(r2), touches(R2_MASK))
    write_end = b.block
    rel_read, rel_write = fn.append_basic_block("rel_read"), fn.append_basic_block("rel_write")
    b.position_at_end(read_end)
    b.cbranch(cw, rel_read, bb["store"])
    b.position_at_end(write_end)
    b.cbranch(b.and_(b.or_(cww_raw, b.or_(cwr1, cwr2)), b.not_(quiet)), rel_write, bb["store"])
    b.position_at_end(rel_read)  # the slow path: a conflict, unless a fence and an atomic order it
    b.cbranch(released(b), bb["store"], bb["found"])
    b.position_at_end(rel_write)
    cww = b.and_(cww_raw, b.not_(released(b)))
    b.cbranch(b.or_(cww, b.or_(cwr1, cwr2)), bb["found"], bb["store"])

    b.position_at_end(bb["found"])  # pick the earlier access to name: the writer first, then a reader
    other = b.phi(I64)
    okind = b.phi(I64)
    osite = b.phi(I64)
    other.add_incoming(w, rel_read)
    okind.add_incoming(w_kind, rel_read)
    osite.add_incoming(_add_in(rel_read, wsite), rel_read)
    wr_other = _in(rel_write, lambda rb: rb.select(cww, w, rb.select(cwr1, r1, r2)))
    wr_kind = _in(rel_write, lambda rb: rb.select(cww, w_kind, c(READ)))
    wr_site = _in(rel_write, lambda rb: rb.select(cww, rb.add(wsite, c(1)), c(0)))  # a reader's site is not kept
    other.add_incoming(wr_other, rel_write)
    okind.add_incoming(wr_kind, rel_write)
    osite.add_incoming(wr_site, rel_write)
    rec = b.or_(b.sub(b.and_(other, c((1 << TID_BITS) - 1)), c(1)), b.shl(okind, c(R_KIND_FIRST)))
    rec = b.or_(rec, b.shl(kind, c(R_KIND_SECOND)))
    rec = b.or_(rec, b.shl(b.zext(shared, I64), c(R_SHARED)))
    rec = b.or_(rec, c(1 << R_FLAG))
    rec = b.or_(rec, b.shl(osite, c(R_SITE)))
    b.ret(_fail(b, ctx, thr, site, addr, rec))

    b.position_at_end(bb["store"])  # update the entry
    kept_r1, kept_r2, kept_e4 = b.phi(I64), b.phi(I64), b.phi(I64)
    for phi, v in ((kept_r1, new_r1), (kept_r2, new_r2), (kept_e4, new_e4)):
        phi.add_incoming(v, read_end)
        phi.add_incoming(v, rel_read)
    w_r1 = _in(write_end, lambda wb: wb.select(quiet, r1, c(0)))
    w_r2 = _in(write_end, lambda wb: wb.select(quiet, r2, c(0)))
    w_e4 = _in(write_end, lambda wb: wb.or_(wb.or_(clock, wb.shl(mine, c(W_MASK))), wb.and_(e4, c(0xFF << R1_MASK))))
    for phi, v in ((kept_r1, w_r1), (kept_r2, w_r2), (kept_e4, w_e4)):
        phi.add_incoming(v, write_end)
        phi.add_incoming(v, rel_write)
    is_read = b.icmp_unsigned("==", kind, c(READ))
    written = b.or_(gen32, b.shl(site, c(32)))
    keep0 = b.select(fresh, e0, gen32)
    atomic_flag = b.select(b.icmp_unsigned("==", kind, c(ATOMIC)), c(1 << ATOMIC_BIT), c(0))
    stored = [b.select(is_read, keep0, written), b.select(is_read, w, b.or_(me, atomic_flag)),
              kept_r1, kept_r2, kept_e4]
    for k, v in enumerate(stored):
        b.store(v, _slot(b, e, k))
    checked = b.block
    b.branch(bb["step"])
    b.position_at_end(bb["step"])
    known.add_incoming(ir.Constant(I1, 1), bb["step"])
    for phi, x in zip(seen, raw):
        phi.add_incoming(x, bb["step"])
    for phi, v in zip(given, stored):  # what this granule was given: checked, or the previous one's
        after = b.phi(I64)
        after.add_incoming(v, checked)
        after.add_incoming(phi, copy)
        phi.add_incoming(after, bb["step"])
    g1 = b.add(g, c(1))
    g.add_incoming(g1, bb["step"])
    b.cbranch(b.icmp_unsigned("<=", g1, last), bb["granule"], bb["none"])

    b.position_at_end(bb["none"])
    b.ret(c(1))
    return fn


def _fail(b: ir.IRBuilder, ctx: ir.Value, thr: ir.Value, site: ir.Value, addr: ir.Value, rec: ir.Value) -> ir.Value:
    """Record E_RACE with the record `rec` (tf_fail: the thread stops, the first error of the launch wins)
    and give the caller 0, which sends it to its exit."""
    b.call(b.module.globals["tf_fail"], [ctx, thr, c(L.E_RACE), site, addr, rec])
    return c(0)


def _in(block: ir.Block, make) -> ir.Value:
    """A value computed at the end of `block`, before its terminator."""
    b = ir.IRBuilder(block)
    b.position_before(block.terminator)
    return make(b)


def _add_in(block: ir.Block, v: ir.Value) -> ir.Value:
    return _in(block, lambda b: b.add(v, c(1)))


def helpers_ir_key() -> bytes:
    """What helpers_ir() is made from, for the scheduler's disk cache (backend.py: _ObjectCache), so a
    process that finds the compiled scheduler on disk need not build the IR (~8 ms): the sources of this
    module and of the constants it takes (layout.py, tiles.py), and the version of llvmlite's IR builder."""
    parts = []
    for path in (__file__, L.__file__, tiles.__file__):
        with open(path, "rb") as fh:
            parts.append(fh.read())
    return b"\0".join(parts) + llvmlite.__version__.encode()


def _many(m: ir.Module, race: ir.Function) -> ir.Function:
    """i64 tf_race_many(ctx, thr, rows, addrs, strides, bases, kinds, bits, n, lines, size, ks): tf_race
    for `lines` accesses of `size` bytes by each of n warps: warp i's by the thread of record rows[i]
    (thr: the first record), at addrs[i] + j strides[i] (j < lines), in the allocation at bases[i];
    each of kind | site << 2 ks, or, when kinds is not null, kinds[i lines + j] (a STORE_VALUE with
    bits[i lines + j]). The host's tile loads and stores (warpops.py): a line of a tile is one access
    by its warp's first lane. Stops at the first race (recorded as tf_race records it) and returns its
    warp; n when there is none."""
    fn = ir.Function(m, ir.FunctionType(I64, [PTR] * 8 + [I64] * 4), "tf_race_many")
    ctx, thr, rows, addrs, strides, bases, kinds, bits, n, lines, size, ks = fn.args
    entry, loop, body, step, done = (fn.append_basic_block(x) for x in ("entry", "loop", "body", "step", "done"))
    b = ir.IRBuilder(entry)
    total = b.mul(n, lines)
    given = b.icmp_unsigned("!=", b.ptrtoint(kinds, I64), c(0))
    b.branch(loop)
    b.position_at_end(loop)
    idx = b.phi(I64)
    idx.add_incoming(c(0), entry)
    b.cbranch(b.icmp_unsigned("<", idx, total), body, done)
    b.position_at_end(body)
    i, j = b.udiv(idx, lines), b.urem(idx, lines)
    row = b.load(_slot(b, rows, i), typ=I64)
    addr = b.add(b.load(_slot(b, addrs, i), typ=I64), b.mul(j, b.load(_slot(b, strides, i), typ=I64)))
    base = b.load(_slot(b, bases, i), typ=I64)
    each, call = fn.append_basic_block("each"), fn.append_basic_block("call")
    plain = b.block
    b.cbranch(given, each, call)
    b.position_at_end(each)  # kinds and bits of their own (a store's lines that hold its bits already)
    kind_i, bits_i = (b.load(_slot(b, arr, idx), typ=I64) for arr in (kinds, bits))
    b.branch(call)
    b.position_at_end(call)
    kind, value = b.phi(I64), b.phi(I64)
    kind.add_incoming(ks, plain)
    kind.add_incoming(kind_i, each)
    value.add_incoming(c(0), plain)
    value.add_incoming(bits_i, each)
    ok = b.call(race, [ctx, _slot(b, thr, b.mul(row, c(L.THR_SLOTS))), addr, base, size, kind, value])
    b.cbranch(b.icmp_unsigned("!=", ok, c(0)), step, done)
    b.position_at_end(step)
    idx.add_incoming(b.add(idx, c(1)), step)
    b.branch(loop)
    b.position_at_end(done)
    b.ret(b.select(b.icmp_unsigned("<", idx, total), b.udiv(idx, b.select(b.icmp_unsigned("==", lines, c(0)),
                                                                             c(1), lines)), n))
    return fn


def helpers_ir() -> str:
    """The definitions of tf_race, its inline part and tf_race_many, as IR text for the scheduler's
    module (which defines tf_fail too: HELPERS_IR)."""
    m = ir.Module("races")
    ir.Function(m, ir.FunctionType(ir.VoidType(), [PTR, PTR, I64, I64, I64, I64]), "tf_fail")
    conflict = _conflict(m)
    _many(m, _helper(m, conflict))
    return "\n".join(str(f) for f in m.functions if not f.is_declaration)


SHADOW_LIMIT = 32 << 20  # an allocation larger than this many bytes has no shadow (its accesses go unchecked)


class Races:
    """The host side of the race detector: a shadow per allocation (made when a checked launch
    first sees it, zero pages until touched) whose address, with the allocation's float type,
    goes in the allocation's header, and the launch's generation, which empties every entry
    an earlier launch wrote.

    A header is written once, by the first checked launch after its allocation was made (or
    retyped, or exempted: `note`), so arming a launch costs what changed since the last one, not
    a pass over every live allocation (a program's 10,000 ALLOCATEs, each followed by a launch,
    were quadratic: issue 25, F9)."""

    def __init__(self) -> None:
        self.on = False
        self.gen = 0
        self.shadows: dict[int, np.ndarray] = {}
        self.exempt: set[int] = set()  # allocations threads share on purpose (the pictured-output area)
        self._pending: set[int] = set()  # allocations whose header the next checked launch writes
        self._none_armed = True  # no checked launch yet: every allocation's header is to be written

    def note(self, addr: int) -> None:
        """The allocation at addr is new, or its element type or exemption changed."""
        self._pending.add(addr)

    def arm(self, ctx: np.ndarray, sizes: "Mapping[int, int]", elem_types: dict[int, np.dtype],
            headers: "Callable[[int], np.ndarray]", threads: int) -> None:
        """Set up a launch of `threads` threads over the allocations ({base: size}; those `note`
        named are armed, or all of them at the first checked launch), whose element types are
        known for some ({base: dtype}: float arrays are checked against the float words that access
        them); headers(base) is the allocation's header, two int64. A launch of one thread has
        nobody to race with: only the types are checked."""
        ctx[L.CTX_RACE_GEN] = ctx[L.CTX_TYPES] = 0
        if not self.on:
            return
        self.gen = self.gen % 0xFFFFFFFF + 1  # 32 bits in an entry, never 0 (a new shadow is all 0)
        todo = list(sizes) if self._none_armed else [a for a in self._pending if a in sizes]
        for a in todo:
            n = sizes[a]
            et = FLOAT_CODES.get(getattr(elem_types.get(a), "name", ""), 0)
            checked = n <= SHADOW_LIMIT and a not in self.exempt
            if checked and a not in self.shadows:
                self.shadows[a] = zeroed(-(-n // GRANULE) * ENTRY, np.int64)
            headers(a)[:] = (self.shadows[a].ctypes.data if checked else 0, et)
        self._pending.clear()
        self._none_armed = False
        ctx[L.CTX_TYPES] = 1
        if threads > 1:
            ctx[L.CTX_RACE_GEN] = self.gen

    def arm_new(self, addr: int, nbytes: int, header: np.ndarray) -> None:
        """A block made while a launch runs (ALLOCATE or RESIZE in device code): its header is
        written now, so the rest of the launch checks its accesses (a launch's own blocks are
        new to every thread, so no entry of theirs is stale)."""
        if not self.on:
            return
        checked = nbytes <= SHADOW_LIMIT and addr not in self.exempt
        if checked and addr not in self.shadows:
            self.shadows[addr] = zeroed(-(-nbytes // GRANULE) * ENTRY, np.int64)
        header[:] = (self.shadows[addr].ctypes.data if checked else 0, 0)
        self._pending.discard(addr)

    unpack = staticmethod(_unpack)

    def forget(self, addr: int) -> None:
        """The allocation at addr was freed: drop its shadow."""
        self.exempt.discard(addr)
        self.shadows.pop(addr, None)
        self._pending.discard(addr)
