\ tileforth: a sum reduction in four steps, each checked by the emulator.
\ Run it with:  tileforth --backend cpu demos/reduce.fth   (docs/simt.md walks through it)
\ The race checker and PROFILE are the emulator's (the cpu backend, checked mode):
\ PROFILE word runs the word once and shows each load and store's memory traffic.
\ 16 blocks of 256 threads add up 4096 floats, 0 1 2 ... 4095: the sum is
\ 4095*4096/2 = 8386560, exact in f32, so every step must print exactly that.

16 1 1 GRID  256 1 1 THREADS
4096 F32 ARRAY xs   RAMP xs
1 F32 ARRAY sum-1   1 F32 ARRAY sum-2   1 F32 ARRAY sum-3   1 F32 ARRAY sum-4
: x ( F: -- r )  xs GLOBAL-ID SFLOATS + SF@ ;      \ this thread's element
: .sum ( addr -- )  SF@ F. ." (expected " 4096 DUP 1- * 2/ 0 .R ." )" CR ;

." --- 1. Atomics only: every thread adds its element to one float" CR
: sum-atomic ( -- )  x sum-1 FATOMIC+ FDROP ;
PROFILE sum-atomic
sum-1 .sum
\ Correct, but 4096 atomic adds on one address: a GPU serialises them.

." --- 2. A tree in shared memory: halve the active threads each step" CR
256 SFLOATS SHARED: part                            \ one f32 per thread of a block
: part[] ( i -- addr )  SFLOATS part + ;
: sum-tree ( -- )
  x  TID-X part[] SF!  BARRIER                      \ every element in shared memory first
  128 BEGIN DUP WHILE                               \ s = 128 64 ... 1
    TID-X OVER < IF  TID-X part[] SF@  DUP TID-X + part[] SF@  F+  TID-X part[] SF!  THEN
    BARRIER                                         \ step s done by all before step s/2 reads it
  2/ REPEAT DROP
  TID-X 0= IF  0 part[] SF@ sum-2 FATOMIC+ FDROP  THEN ;   \ one atomic per block
PROFILE sum-tree
sum-2 .sum

." --- 3. The same tree without the BARRIER in the loop: a data race" CR
: sum-racy ( -- )
  x  TID-X part[] SF!  BARRIER
  128 BEGIN DUP WHILE
    TID-X OVER < IF  TID-X part[] SF@  DUP TID-X + part[] SF@  F+  TID-X part[] SF!  THEN
  2/ REPEAT DROP                                    \ no BARRIER: step s/2 reads what step s may not have written
  TID-X 0= IF  0 part[] SF@ sum-3 FATOMIC+ FDROP  THEN ;
\ The race checker stops the launch at the first conflicting access. A
\ failing line would end this script, so CATCH runs it: its code is not 0.
' sum-racy CATCH  ." CATCH: sum-racy ended with code " . CR
\ Typed at the prompt, `sum-racy` shows the checker's report:
\   data race on shared memory at part+4 in sum-racy: thread 0 read it, then
\   thread 1 wrote it, with no BARRIER between them; ...
\ Thread 0 ran all its steps (s = 128 ... 1; at s = 1 it read part[1]) before
\ thread 1 stored its first partial sum in part[1]: on a GPU either may go first.

." --- 4. Warp shuffles: a warp sums its 32 values in registers" CR
8 SFLOATS SHARED: warp-sums                         \ one f32 per warp of a block
: warp-sum ( F: r -- r' )                           \ lane 0 ends with the warp's sum
  16 BEGIN DUP WHILE  DUP >R FDUP R> FSHFL-DOWN F+  2/ REPEAT DROP ;
: sum-shfl ( -- )
  x warp-sum
  LANE-ID 0= IF  WARP-ID SFLOATS warp-sums + SF!  ELSE FDROP THEN
  BARRIER                                           \ the 8 warp sums are in shared memory
  WARP-ID 0= IF                                     \ warp 0 sums them, again with shuffles
    LANE-ID 8 < IF  LANE-ID SFLOATS warp-sums + SF@  ELSE 0e THEN  warp-sum
    LANE-ID 0= IF  sum-4 FATOMIC+  THEN FDROP
  THEN ;
PROFILE sum-shfl
sum-4 .sum
