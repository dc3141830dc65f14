\ tileforth tour: a GPU Forth where every line runs on every thread.
\ Run it with:  tileforth demos/tour.fth

." --- 1. Lanes: one warp of 32 threads runs each line" CR
TID-X            \ every thread pushes its own index: 0 1 2 ... 31
DUP DUP * .      \ each thread prints its own square
DROP

." --- 2. Divergence: threads take different branches" CR
LANE-ID 2 MOD 0= IF ." even " ELSE ." odd " THEN CR

." --- 3. Shared memory and a BARRIER: reverse 256 values in a block" CR
256 1 1 BLOCK
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
32 1 1 BLOCK
GLOBAL-ID 31 = IF ." the last lane says hi" CR THEN
