\ tileforth tour: a GPU Forth where every line runs on every thread.
\ Run it with:  tileforth demos/tour.fth     (docs/repl.md shows what it prints)

." --- 1. Lanes: one warp of 32 threads runs each line" CR
TID-X            \ every thread pushes its own index: 0 1 2 ... 31
DUP DUP * .      \ each thread prints its own square
.S               \ one stack per thread: an entry is shown once, or summarised
.LANES           \ ... and .LANES lists each thread's own stack
DROP

." --- 2. Divergence: threads take different branches" CR
LANE-ID 2 MOD 0= IF ." even " ELSE ." odd " THEN CR

." --- 3. Shared memory and a BARRIER: reverse 256 values in a block" CR
256 1 1 THREADS
2048 SHARED: buf
256 I64 ARRAY out
: reverse   ( -- )
   TID-X  TID-X CELLS buf + !          \ each thread writes its index
   BARRIER                              \ wait for the whole block
   255 TID-X - CELLS buf + @            \ read the mirrored slot
   TID-X CELLS out + ! ;
reverse
out @ .  255 CELLS out + @ . CR        \ prints 255 0

." --- 4. Back to one warp" CR
32 1 1 THREADS
GLOBAL-ID 31 = IF ." the last lane says hi" CR THEN

." --- 5. A tensor core, step by step: C = A.B for one 16x16x16 tile" CR
16 16 F16 MATRIX A   16 16 F16 MATRIX B   16 16 F32 MATRIX C
RAMP A               \ A = 0 1 2 ... 255, row by row
IDENTITY B           \ B = the identity, so A.B = A
TILES-KEPT? [IF]     \ the emulator keeps tiles between lines; on a GPU they live in registers
TZERO .S             \ T: acc        an accumulator of zeros, held by the whole warp
A 16 TLOAD-A .S      \ T: acc a      A from memory, 16 elements per row
B 16 TLOAD-B .S      \ T: acc a b
TMMA .S              \ T: acc'       acc + a.b: one instruction for all 32 lanes
.FRAG                \ which lane holds which element of acc'
C 16 TSTORE .S       \ T: (empty)    acc' written back to C
[ELSE]
TZERO  A 16 TLOAD-A  B 16 TLOAD-B  TMMA  C 16 TSTORE
[THEN]
.M C                 \ the result: A again
