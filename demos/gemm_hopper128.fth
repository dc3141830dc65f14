\ The next rung of the Hopper GEMM (sm_90a): C = A . B, bf16 in, f32 accumulate, a 128 x 128 block tile
\ from a four-stage ring (128 KiB of dynamic shared memory), one producer warpgroup and two consumer
\ warpgroups, each WGMMA m64n128k16 over its 64 rows of the block (fast_gemm.md section 2: the producer/
\ consumer rung, 80 % of cuBLAS published). As in demos/gemm_hopper.fth, B is given transposed (BT, N x K)
\ so both operands are K-major, and TMA copies 128-byte-swizzled boxes (here 128 x 64) completing on
\ mbarriers. M and N are multiples of 128, K of 64.
\
\ The ring: stage s is full when its two boxes landed (FULL s: one arrival, the producer's, with the boxes'
\ 32768 bytes), and empty when both consumers' eight warps are done reading it (EMPTY s: eight arrivals, one
\ ELECTed thread per warp after the warp's WGMMA-WAIT). k-tile kt uses
\ stage kt mod 4, the (kt / 4)-th time: its FULL phase has parity kt/4 mod 2; the producer refills a stage
\ after the consumers freed it the time before (EMPTY's phase kt/4 - 1).
\
\   tileforth run demos/gemm_hopper128.fth --grid 2,2 --param M=256 --param N=256 --param KK=256 ...
\   tileforth compile demos/gemm_hopper128.fth --arch sm_90a --cubin --verbose
\! kernel gemm_hopper128
\! param M i32
\! param N i32
\! param KK i32
\! param A bf16[M,KK]
\! param BT bf16[N,KK]
\! param C f32[M,N]
\! tmap tA A 128,64 swizzled
\! tmap tB BT 128,64 swizzled
\! shared BARS i64[8]
\! smem As bf16[128,64] 4 swizzled
\! smem Bs bf16[128,64] 4 swizzled
\! wg 64 128 16 bf16
\! block 384
: FULL ( s -- mbar )  8 * BARS + ;
: EMPTY ( s -- mbar )  4 + 8 * BARS + ;
: KT ( -- n )  KK 64 / ;
: ROW0 ( -- row )  BID-Y 128 * ;
: COL0 ( -- col )  BID-X 128 * ;
: PRODUCE ( kt -- )  \ the producer: both boxes of k-tile kt into its stage
  DUP 4 MOD  ( kt s )
  OVER 4 >= IF  DUP EMPTY  2 PICK 4 / 1+ 1 AND  MBAR-WAIT  THEN
  DUP FULL 32768 MBAR-ARRIVE-TX
  DUP As  tA  3 PICK 64 *  ROW0  4 PICK FULL  TMA-LOAD
  DUP Bs  tB  3 PICK 64 *  COL0  4 PICK FULL  TMA-LOAD
  2DROP ;
: K16 ( s row kk -- ) ( T: wacc -- wacc )  \ one m64n128k16 step: rows row.. of A, columns 16kk.. of stage s
  16 * >R  OVER SWAP R@ 128 WGDESC As  SWAP 0 R> 128 WGDESC Bs  WGMMA ;
: CONSUME ( row kt -- row ) ( T: wacc -- wacc )  \ a consumer: the four k16 steps of k-tile kt, then free its stage
  DUP 4 MOD  DUP FULL  ROT 4 / 1 AND  MBAR-WAIT  ( row s )
  DUP 2 PICK 0 K16  DUP 2 PICK 1 K16  DUP 2 PICK 2 K16  DUP 2 PICK 3 K16  0 WGMMA-WAIT
  ELECT IF  EMPTY MBAR-ARRIVE  ELSE  DROP  THEN ;  \ one arrival per warp, after its wait
TID-X 0= IF
  4 0 DO  I FULL 1 MBAR-INIT  I EMPTY 8 MBAR-INIT  LOOP  MBAR-FENCE
THEN
BARRIER
WARPGROUP 0= IF
  40 REGS-
  TID-X 0= IF  KT 0 DO  I PRODUCE  LOOP  THEN
ELSE
  232 REGS+
  WGZERO
  WARPGROUP 1- 64 *  ( row: this consumer's 64 rows of the block )
  KT 0 DO  I CONSUME  LOOP
  ROW0 + N * COL0 + 4 * C +  N WGSTORE
THEN
