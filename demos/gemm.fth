\ Tensor-core GEMM: C = A . B with f16 inputs and f32 accumulation.
\ Run it with:  tileforth demos/gemm.fth
64 CONSTANT MM   64 CONSTANT NN   64 CONSTANT KK   \ sizes: MM, NN multiples of 32; KK of 16

MM KK F16 MATRIX A    KK NN F16 MATRIX B
MM NN F32 MATRIX C    MM NN F32 MATRIX C2

\ Inputs: small integers, so every summation order gives the exact product.
: fill-inputs  ( -- )
   MM KK * 0 DO  I 7 MOD 3 - S>F  I 2* A + HF!  LOOP
   KK NN * 0 DO  I 5 MOD 2 - S>F  I 2* B + HF!  LOOP ;
1 1 1 GRID  1 1 1 THREADS  fill-inputs

\ --- 1. One warp per 16x16 tile of C; two warps per block, a grid of blocks.
: row0  ( -- r )  BID-Y 16 * ;                        \ first row of this warp's tile
: col0  ( -- c )  BID-X 2 * WARP-ID + 16 * ;          \ first column
: a-tile ( k -- addr )  row0 KK * + 2* A + ;          \ &A[row0][k]
: b-tile ( k -- addr )  NN * col0 + 2* B + ;          \ &B[k][col0]
: gemm  ( -- )
   TZERO
   KK 0 DO  I a-tile KK TLOAD-A  I b-tile NN TLOAD-B  TMMA  16 +LOOP
   row0 NN * col0 + 4 * C + NN TSTORE ;
NN 32 / MM 16 / 1 GRID  64 1 1 THREADS  gemm

\ --- 2. Register blocking: each warp keeps 2x2 accumulators on the tile stack
\ and computes a 32x32 block of C2. ( T: c00 c01 c10 c11 )
: a-blk  ( k r -- addr )  16 * BID-Y 32 * + KK * + 2* A + ;
: b-blk  ( k c -- addr )  16 * BID-X 32 * + SWAP NN * + 2* B + ;
: c-blk  ( r c -- addr )  16 * BID-X 32 * + SWAP 16 * BID-Y 32 * + NN * + 4 * C2 + ;
: acc+  { k r c -- }   \ bring the bottom accumulator up and add A(r) . B(c)
   3 TROLL  k r a-blk KK TLOAD-A  k c b-blk NN TLOAD-B  TMMA ;
: gemm2  ( -- )
   TZERO TZERO TZERO TZERO
   KK 0 DO  I 0 0 acc+  I 0 1 acc+  I 1 0 acc+  I 1 1 acc+  16 +LOOP
   1 1 c-blk NN TSTORE  1 0 c-blk NN TSTORE  0 1 c-blk NN TSTORE  0 0 c-blk NN TSTORE ;
NN 32 / MM 32 / 1 GRID  32 1 1 THREADS  gemm2

1 1 1 GRID  1 1 1 THREADS
." C[0][0] = " C F@ F.  ." C2[0][0] = " C2 F@ F. CR
." C[last] = " MM NN * 1- 4 * C + F@ F.  ." C2[last] = " MM NN * 1- 4 * C2 + F@ F. CR
