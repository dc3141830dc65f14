"""Shared memory layouts between the compiler, the host and the backends (the fixed slots;
what a session's settings size, the stacks and the output buffer, is in machine.py).

All records are arrays of 64-bit slots so the host can view them with numpy.

    ctx (one per launch)      thread record (one per thread)    stack state (one per thread)
    +----------------+        +------------------+              +-----------------+
    | error code ... |        | tid bid bdim gdim|              | dsp | fsp       |
    | alloc table    |        | status site steps|              | ds[DS_MAX] i64  |
    | output buffer  |        | frame handle ... |              | fs[FS_MAX] flt  |
    +----------------+        +------------------+              +-----------------+
"""
from __future__ import annotations

WARP_SIZE = 32  # threads in a warp, on every NVIDIA GPU so far (a backend states its own: Capabilities)
POLL_EVERY = 4096  # loop iterations between two looks at the abort flag and the budget (a power of 2)
RECURSION_MAX = 2000  # the cpu backend's default depth limit; each backend states its own (Capabilities)

# ctx slots
CTX_ERR_CODE, CTX_ERR_SITE, CTX_ERR_THREAD, CTX_ERR_ADDR, CTX_ERR_AUX = 0, 1, 2, 3, 4
CTX_ALLOCS, CTX_N_ALLOCS = 5, 6
CTX_OUT, CTX_OUT_CAP, CTX_OUT_LEN = 7, 8, 9
CTX_BASE_ADDR = 10
CTX_SHARED = 11
CTX_ABORT = 12  # address of an i64 flag the host sets to interrupt (Ctrl-C)
CTX_SHARED_SIZE = 13  # bytes of shared memory per block in this launch (the checked window)
CTX_RECURSION_MAX = 14  # nested calls of recursive words allowed per thread in this launch
# the launch-wide step pool: loop iterations summed over all threads (drawn by tf_poll), plus what the
# scheduler and the host charge for barrier releases and warp ops; a max of 0 means no launch-wide pool
CTX_STEPS_USED, CTX_STEPS_MAX = 15, 16
# the emulator's race detector (tileforth/backends/cpu/races.py): the launch's generation (0: off), the threads per block
CTX_RACE_GEN, CTX_BLOCK_SIZE = 17, 23
# cpu: what tf_run_plain writes into each thread record before the thread runs (the host resets no record
# per launch of a kernel that does not suspend): each thread's step budget (T_STEPS) and the native stack bytes recursion may use
CTX_THREAD_STEPS, CTX_STACK_BUDGET = 18, 19
# cpu: a launch whose stacks are kept lazily (backends/cpu/heldstacks.py) runs its threads in chunks over a
# scratch region of stack state: tf_run_plain points each thread's record (T_STATE) at the chunk's record
# of it there, CTX_STATE_BASE + i * CTX_STATE_BYTES for the i-th thread of the call (0: T_STATE is as set)
CTX_STATE_BASE, CTX_STATE_BYTES = 20, 21
# the emulator's memory-access trace (PROFILE): its buffer, capacity in records and length
CTX_TRACE, CTX_TRACE_CAP, CTX_TRACE_LEN = 24, 25, 26
CTX_TYPES = 28  # the emulator checks float words against their arrays' element types (races.py)
CTX_CLOCK = 27  # address of the race detector's fence clock: THREADFENCEs executed so far in the launch
CTX_LITS = 29  # address of the launch's literal table: a line's literals as i64 (floats' f64 bits; linekey.py)
CTX_ASYNC = 30  # cpu: address of the async-copy model's table for this launch (backends/cpu/asynccopy.py), 0: none
CTX_SLOTS = 32

# thread record slots
T_TID, T_BID, T_BDIM, T_GDIM = 0, 3, 6, 9  # x, y, z follow each
T_STATUS, T_SITE, T_STEPS = 12, 13, 14
T_FRAME, T_HANDLE = 15, 16
T_LINEAR = 17  # global linear thread index
T_CACHE_LO, T_CACHE_HI = 18, 19  # the range cache of a coroutine kernel (elsewhere it is in registers)
T_DEPTH = 20  # recursion depth
T_STATE = 21  # address of this thread's stack state
T_OP = 22  # warp-op arguments start here
T_STACK_LIMIT = 31  # cpu: the host writes the native stack bytes recursion may use; the kernel entry
# turns it into the lowest stack address a RECURSE may reach (the stack grows down)
T_EPOCH = 32  # cpu: BARRIERs passed << 16 | SYNCWARPs passed, this launch (the race detector's clock)
T_FENCED, T_ACQUIRED = 33, 34  # cpu: the fence clock after this thread's last THREADFENCE; at its last atomic
T_BSTART = 35  # cpu: the linear index of the first thread of this thread's block (the race detector's)
THR_SLOTS = 36

# thread status
ST_RUN, ST_BARRIER, ST_WARP, ST_DONE, ST_ERROR = 0, 1, 2, 3, 4

# stack state (in bytes): the depths, then the data stack; where the float stack starts and how big a
# thread's state is follow from the session's machine (machine.py: Machine.s_fs, state_bytes)
S_DSP, S_FSP, S_DS = 0, 8, 16

# error codes
E_UNDERFLOW, E_OVERFLOW, E_FUNDERFLOW, E_FOVERFLOW = 1, 2, 3, 4
E_BAD_ADDR, E_ALIGN, E_DIV0, E_STEPS, E_ABORT, E_RECURSION = 5, 6, 7, 8, 9, 10
E_STACK = 12  # recursion used up the native stack the launch allows (frames too large for the count)
E_LAUNCH_STEPS = 11  # the launch as a whole ran out of its step pool (ctx[CTX_STEPS_MAX])
E_BAD_XT = 20  # EXECUTE of a token the device cannot run (aux: the token; addr: XT_* why)
XT_UNKNOWN, XT_HOST, XT_SUSPENDS, XT_FRAME = 0, 1, 2, 3
XT_BASE = 0x1000  # execution tokens are XT_BASE + an index (so 0, an unset DEFER, is never one)
E_RACE = 22  # the race detector: a conflicting access (addr: the address; aux: races.py's packed record)
E_ASYNC = 23  # an asynchronous copy misused (aux: value | kind << 32: asynccopy.py's A_* kinds)
E_THROW = 21  # THROW, ABORT, ABORT" (aux: the exception code; addr: ABORT"'s string id, or -1)

# output record kinds: (thread, kind, aux, value)
OUT_INT, OUT_UINT, OUT_FLOAT, OUT_CHAR, OUT_STR, OUT_DEPTH = 1, 2, 3, 4, 5, 6
OUT_INT_R, OUT_UINT_R = 7, 8  # .R U.R: aux = width << 8 | base (a base of 256 or more sent as 0)
OUT_FLOAT_S, OUT_FLOAT_E = 9, 10  # FS. FE. (and F.'s OUT_FLOAT): aux = PRECISION (F.'s 0: the shortest digits)
OUT_WIDTH_MAX = 1 << 16  # .R U.R pad to at most this many characters
OUT_SLOTS = 4
