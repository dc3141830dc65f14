"""The SIMT scheduler of the emulator, in LLVM IR (compiled once per process).

Plain kernels: call the thread function once per thread.
Coroutine kernels, one block at a time:

    start every thread (runs to its first suspend point or the end)
    loop:
      all DONE                        -> next block
      all at the same BARRIER         -> resume them all
      some at a barrier, others done
        or at another barrier         -> DIVERGENT (the host names the lanes)
      anything else (warp ops)        -> return to the host

A barrier release charges the block's size to the launch's step pool
(ctx[CTX_STEPS_USED], when ctx[CTX_STEPS_MAX] is set; loop back-edges draw
from it in tf_poll, the host charges warp ops): a launch whose threads wait
at barriers forever runs out of it like a runaway loop (E_LAUNCH_STEPS).

Return codes: 0 ok, 1 divergent barrier, 2 warp op pending, 3 error; the
block index is packed above the low byte. Frames are freed here.
"""
from __future__ import annotations

from tileforth.core.compile import layout as L

T = L.THR_SLOTS
RUN_OK, RUN_DIVERGENT, RUN_WARP, RUN_ERROR = 0, 1, 2, 3

SCHEDULER_IR = f"""
declare void @free(ptr)
declare void @llvm.coro.resume(ptr)

; a plain kernel's thread records are reset here, each just before its thread runs, in the cache lines
; the run touches anyway (the host passes over no record: 288 MiB of them at 1M threads); a launch whose
; stacks are kept lazily (ctx[CTX_STATE_BASE] set) gets each thread's record of stack state pointed at
; the scratch region its chunk runs in
define i64 @tf_run_plain(ptr %ctx, ptr %fn, ptr %thrs, i64 %n) {{
entry:
  %stepsp = getelementptr i64, ptr %ctx, i64 {L.CTX_THREAD_STEPS}
  %steps = load i64, ptr %stepsp
  %sbasep = getelementptr i64, ptr %ctx, i64 {L.CTX_STATE_BASE}
  %sbase = load i64, ptr %sbasep
  %sbytesp = getelementptr i64, ptr %ctx, i64 {L.CTX_STATE_BYTES}
  %sbytes = load i64, ptr %sbytesp
  %lazy = icmp ne i64 %sbase, 0
  br label %head
head:
  %i = phi i64 [0, %entry], [%i1, %next]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %off = mul i64 %i, {T}
  %thr = getelementptr i64, ptr %thrs, i64 %off
  %r_status = getelementptr i64, ptr %thr, i64 {L.T_STATUS}
  store i64 {L.ST_RUN}, ptr %r_status
  %r_site = getelementptr i64, ptr %thr, i64 {L.T_SITE}
  store i64 -1, ptr %r_site
  %r_steps = getelementptr i64, ptr %thr, i64 {L.T_STEPS}
  store i64 %steps, ptr %r_steps
  %r_frame = getelementptr i64, ptr %thr, i64 {L.T_FRAME}
  store i64 0, ptr %r_frame
  %r_depth = getelementptr i64, ptr %thr, i64 {L.T_DEPTH}
  store i64 0, ptr %r_depth
  %r_epoch = getelementptr i64, ptr %thr, i64 {L.T_EPOCH}
  store i64 0, ptr %r_epoch
  %r_fenced = getelementptr i64, ptr %thr, i64 {L.T_FENCED}
  store i64 0, ptr %r_fenced
  %r_acq = getelementptr i64, ptr %thr, i64 {L.T_ACQUIRED}
  store i64 0, ptr %r_acq
  br i1 %lazy, label %scratch, label %run
scratch:
  %soff = mul i64 %i, %sbytes
  %saddr = add i64 %sbase, %soff
  %r_state = getelementptr i64, ptr %thr, i64 {L.T_STATE}
  store i64 %saddr, ptr %r_state
  br label %run
run:
  %ok = call i1 %fn(ptr %ctx, ptr %thr)
  %i1 = add i64 %i, 1
  br i1 %ok, label %next, label %fail
next:
  br label %head
fail:
  ret i64 %i
done:
  ret i64 -1
}}

define void @tf_free_frames(ptr %base, i64 %n) {{
entry:
  br label %head
head:
  %i = phi i64 [0, %entry], [%i1, %body]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %off = mul i64 %i, {T}
  %thr = getelementptr i64, ptr %base, i64 %off
  %fp = getelementptr i64, ptr %thr, i64 {L.T_FRAME}
  %f = load i64, ptr %fp
  %fptr = inttoptr i64 %f to ptr
  call void @free(ptr %fptr)
  store i64 0, ptr %fp
  %i1 = add i64 %i, 1
  br label %head
done:
  ret void
}}

; resume every thread of the block whose status is RUN; 1 if an error was recorded
define internal i1 @resume_all(ptr %ctx, ptr %base, i64 %n) {{
entry:
  br label %head
head:
  %i = phi i64 [0, %entry], [%i1, %next]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %off = mul i64 %i, {T}
  %thr = getelementptr i64, ptr %base, i64 %off
  %sp = getelementptr i64, ptr %thr, i64 {L.T_STATUS}
  %st = load i64, ptr %sp
  %run = icmp eq i64 %st, {L.ST_RUN}
  %i1 = add i64 %i, 1
  br i1 %run, label %go, label %next
go:
  %hp = getelementptr i64, ptr %thr, i64 {L.T_HANDLE}
  %h = load i64, ptr %hp
  %hptr = inttoptr i64 %h to ptr
  call void @llvm.coro.resume(ptr %hptr)
  %err = load i64, ptr %ctx
  %bad = icmp ne i64 %err, 0
  br i1 %bad, label %fail, label %next
next:
  br label %head
fail:
  ret i1 1
done:
  ret i1 0
}}

; run one block of coroutine threads as far as possible
define i64 @tf_run_block(ptr %ctx, ptr %ramp, ptr %base, i64 %n, i64 %started) {{
entry:
  %fresh = icmp eq i64 %started, 0
  br i1 %fresh, label %start, label %scan0
start:
  %i = phi i64 [0, %entry], [%i1, %startnext]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %startbody, label %scan0
startbody:
  %off = mul i64 %i, {T}
  %thr = getelementptr i64, ptr %base, i64 %off
  %h = call ptr %ramp(ptr %ctx, ptr %thr)
  %hp = getelementptr i64, ptr %thr, i64 {L.T_HANDLE}
  %hi = ptrtoint ptr %h to i64
  store i64 %hi, ptr %hp
  %i1 = add i64 %i, 1
  %err = load i64, ptr %ctx
  %bad = icmp ne i64 %err, 0
  br i1 %bad, label %abort, label %startnext
startnext:
  br label %start
scan0:
  br label %scan
scan:
  %j = phi i64 [0, %scan0], [%j1, %scannext]
  %ndone = phi i64 [0, %scan0], [%ndone2, %scannext]
  %nbar = phi i64 [0, %scan0], [%nbar2, %scannext]
  %site0 = phi i64 [-2, %scan0], [%site2, %scannext]
  %mixed = phi i1 [0, %scan0], [%mixed2, %scannext]
  %jmore = icmp slt i64 %j, %n
  br i1 %jmore, label %scanbody, label %decide
scanbody:
  %joff = mul i64 %j, {T}
  %jthr = getelementptr i64, ptr %base, i64 %joff
  %jsp = getelementptr i64, ptr %jthr, i64 {L.T_STATUS}
  %jst = load i64, ptr %jsp
  %jsitep = getelementptr i64, ptr %jthr, i64 {L.T_SITE}
  %jsite = load i64, ptr %jsitep
  %isdone = icmp eq i64 %jst, {L.ST_DONE}
  %isbar = icmp eq i64 %jst, {L.ST_BARRIER}
  %dinc = zext i1 %isdone to i64
  %binc = zext i1 %isbar to i64
  %ndone2 = add i64 %ndone, %dinc
  %nbar2 = add i64 %nbar, %binc
  %first = icmp eq i64 %site0, -2
  %takesite = and i1 %isbar, %first
  %site2 = select i1 %takesite, i64 %jsite, i64 %site0
  %differs = icmp ne i64 %jsite, %site2
  %mix1 = and i1 %isbar, %differs
  %mixed2 = or i1 %mixed, %mix1
  %j1 = add i64 %j, 1
  br label %scannext
scannext:
  br label %scan
decide:
  %alldone = icmp eq i64 %ndone, %n
  br i1 %alldone, label %finished, label %notdone
notdone:
  %waiting = add i64 %ndone, %nbar
  %allwait = icmp eq i64 %waiting, %n
  br i1 %allwait, label %barrier, label %warp
barrier:
  %somedone = icmp ne i64 %ndone, 0
  %div = or i1 %somedone, %mixed
  br i1 %div, label %divergent, label %release
release:
  %maxp = getelementptr i64, ptr %ctx, i64 {L.CTX_STEPS_MAX}
  %max = load i64, ptr %maxp
  %usedp = getelementptr i64, ptr %ctx, i64 {L.CTX_STEPS_USED}
  %used = load i64, ptr %usedp
  %used1 = add i64 %used, %n
  store i64 %used1, ptr %usedp
  %pooled = icmp ne i64 %max, 0
  %over = icmp sgt i64 %used1, %max
  %spent = and i1 %pooled, %over
  br i1 %spent, label %nosteps, label %rel
nosteps:
  %won = cmpxchg ptr %ctx, i64 0, i64 {L.E_LAUNCH_STEPS} seq_cst seq_cst
  %wonfirst = extractvalue {{ i64, i1 }} %won, 1
  br i1 %wonfirst, label %record, label %abort
record:
  %sitep = getelementptr i64, ptr %ctx, i64 {L.CTX_ERR_SITE}
  store i64 %site0, ptr %sitep
  %linp = getelementptr i64, ptr %base, i64 {L.T_LINEAR}
  %lin = load i64, ptr %linp
  %thrp = getelementptr i64, ptr %ctx, i64 {L.CTX_ERR_THREAD}
  store i64 %lin, ptr %thrp
  %auxp = getelementptr i64, ptr %ctx, i64 {L.CTX_ERR_AUX}
  store i64 %max, ptr %auxp
  br label %abort
rel:
  %k = phi i64 [0, %release], [%k1, %relnext]
  %kmore = icmp slt i64 %k, %n
  br i1 %kmore, label %relbody, label %resume
relbody:
  %koff = mul i64 %k, {T}
  %kthr = getelementptr i64, ptr %base, i64 %koff
  %ksp = getelementptr i64, ptr %kthr, i64 {L.T_STATUS}
  store i64 {L.ST_RUN}, ptr %ksp
  %k1 = add i64 %k, 1
  br label %relnext
relnext:
  br label %rel
resume:
  %rerr = call i1 @resume_all(ptr %ctx, ptr %base, i64 %n)
  br i1 %rerr, label %abort, label %scan0
warp:
  ret i64 {RUN_WARP}
divergent:
  call void @tf_free_frames(ptr %base, i64 %n)
  ret i64 {RUN_DIVERGENT}
finished:
  call void @tf_free_frames(ptr %base, i64 %n)
  ret i64 {RUN_OK}
abort:
  call void @tf_free_frames(ptr %base, i64 %n)
  ret i64 {RUN_ERROR}
}}

; resume the RUN threads of a block (after the host performed warp ops), then continue
define i64 @tf_continue_block(ptr %ctx, ptr %ramp, ptr %base, i64 %n) {{
entry:
  %err = call i1 @resume_all(ptr %ctx, ptr %base, i64 %n)
  br i1 %err, label %abort, label %go
go:
  %r = call i64 @tf_run_block(ptr %ctx, ptr %ramp, ptr %base, i64 %n, i64 1)
  ret i64 %r
abort:
  call void @tf_free_frames(ptr %base, i64 %n)
  ret i64 {RUN_ERROR}
}}
"""


# Steps of many blocks in one native call: start (fresh) or continue each live block (live[b] != 0)
# of lo..hi-1 in order through the scheduler's entry points (passed as pointers), keep each block's
# code in codes[b] and live[b] = (code == RUN_WARP); stop after the first block that failed (divergent
# or error): its index, else -1. The blocks after it are left as they were (the host gives them up).
STEP_IR = f"""
define i64 @tf_step_blocks(ptr %ctx, ptr %ramp, ptr %thrs, i64 %bs, ptr %live, ptr %codes, i64 %lo, i64 %hi,
                           i64 %fresh, ptr %run, ptr %cont) {{
entry:
  %stride = mul i64 %bs, {L.THR_SLOTS}
  br label %head
head:
  %b = phi i64 [%lo, %entry], [%b1, %next]
  %more = icmp slt i64 %b, %hi
  br i1 %more, label %body, label %done
body:
  %lp = getelementptr i8, ptr %live, i64 %b
  %l = load i8, ptr %lp
  %on = icmp ne i8 %l, 0
  %b1 = add i64 %b, 1
  br i1 %on, label %go, label %next
go:
  %off = mul i64 %b, %stride
  %base = getelementptr i64, ptr %thrs, i64 %off
  %isfresh = icmp ne i64 %fresh, 0
  br i1 %isfresh, label %start, label %resume
start:
  %c0 = call i64 %run(ptr %ctx, ptr %ramp, ptr %base, i64 %bs, i64 0)
  br label %got
resume:
  %c1 = call i64 %cont(ptr %ctx, ptr %ramp, ptr %base, i64 %bs)
  br label %got
got:
  %code = phi i64 [%c0, %start], [%c1, %resume]
  %cp = getelementptr i64, ptr %codes, i64 %b
  store i64 %code, ptr %cp
  %waits = icmp eq i64 %code, {RUN_WARP}
  %w8 = zext i1 %waits to i8
  store i8 %w8, ptr %lp
  %ok = icmp eq i64 %code, {RUN_OK}
  %fine = or i1 %ok, %waits
  br i1 %fine, label %next, label %fail
next:
  br label %head
fail:
  ret i64 %b
done:
  ret i64 -1
}}
"""


# The common case of a launch step with warp ops, in one pass over the thread records (warpops._batched):
# every thread of threads[0..n) waits (ST_WARP) at the first one's site, and each warp's lanes pass the
# same k operands (T_OP..), which go to ops[warp k + i]. 0 when so; 1 when not (the host looks closer).
WARP_OPS_IR = f"""
define i64 @tf_warp_ops(ptr %thrs, i64 %n, i64 %k, ptr %ops) {{
entry:
  %sp = getelementptr i64, ptr %thrs, i64 {L.T_SITE}
  %site0 = load i64, ptr %sp
  br label %thread
thread:
  %t = phi i64 [0, %entry], [%t1, %next]
  %more = icmp slt i64 %t, %n
  br i1 %more, label %body, label %done
body:
  %rec = mul i64 %t, {T}
  %r = getelementptr i64, ptr %thrs, i64 %rec
  %stp = getelementptr i64, ptr %r, i64 {L.T_STATUS}
  %st = load i64, ptr %stp
  %sitep = getelementptr i64, ptr %r, i64 {L.T_SITE}
  %site = load i64, ptr %sitep
  %okst = icmp eq i64 %st, {L.ST_WARP}
  %oksite = icmp eq i64 %site, %site0
  %ok = and i1 %okst, %oksite
  br i1 %ok, label %lanes, label %no
lanes:
  %lane = and i64 %t, 31
  %first = sub i64 %t, %lane
  %rec0 = mul i64 %first, {T}
  %r0 = getelementptr i64, ptr %thrs, i64 %rec0
  %warp = lshr i64 %t, 5
  %row = mul i64 %warp, %k
  br label %operand
operand:
  %i = phi i64 [0, %lanes], [%i1, %same]
  %mo = icmp slt i64 %i, %k
  br i1 %mo, label %check, label %next
check:
  %slot = add i64 %i, {L.T_OP}
  %vp = getelementptr i64, ptr %r, i64 %slot
  %v = load i64, ptr %vp
  %v0p = getelementptr i64, ptr %r0, i64 %slot
  %v0 = load i64, ptr %v0p
  %oi = add i64 %row, %i
  %outp = getelementptr i64, ptr %ops, i64 %oi
  store i64 %v0, ptr %outp
  %i1 = add i64 %i, 1
  %eq = icmp eq i64 %v, %v0
  br i1 %eq, label %same, label %no
same:
  br label %operand
next:
  %t1 = add i64 %t, 1
  br label %thread
no:
  ret i64 1
done:
  ret i64 0
}}
"""
