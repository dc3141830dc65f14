\ A Hopper GEMM (sm_90a): C = A . B, bf16 in, f32 accumulate, with the H100/H200 recipe of
\ docs/tiles.md ("Hopper: ..."): TMA copies of swizzled 64 x 64 boxes into a two-stage ring of shared
\ tiles, completing on mbarriers; one producer warpgroup (its first thread issues the copies) and one
\ consumer warpgroup (WGMMA m64n64k16 from the ring, through descriptors), registers shared out with
\ REGS- / REGS+. B is given transposed (BT, N x K: the "TN" layout wgmma reads), so both operands are
\ K-major. Each block computes a 64 x 64 tile of C; M, N and K are multiples of 64.
\
\ The ring: stage s is full when its two boxes landed (FULL s: one arrival, the producer's, with the
\ boxes' 16384 bytes), and empty when the consumer's four warps are done reading it (EMPTY s: four
\ arrivals, one ELECTed thread per warp after the warp's WGMMA-WAIT, 32 times fewer than one a thread). k-tile
\ kt uses stage kt mod 2, the (kt / 2)-th time: its FULL phase has parity kt/2 mod 2; the producer
\ refills a stage after the consumers freed it the time before (EMPTY's phase kt/2 - 1).
\
\   tileforth run demos/gemm_hopper.fth --grid 2,2 --param M=128 --param N=128 --param KK=128 ...
\   tileforth compile demos/gemm_hopper.fth --arch sm_90a --cubin --verbose
\! kernel gemm_hopper
\! param M i32
\! param N i32
\! param KK i32
\! param A bf16[M,KK]
\! param BT bf16[N,KK]
\! param C f32[M,N]
\! tmap tA A 64,64 swizzled
\! tmap tB BT 64,64 swizzled
\! smem As bf16[64,64] 2 swizzled
\! smem Bs bf16[64,64] 2 swizzled
\! shared BARS i64[4]
\! wg 64 64 16 bf16
\! block 256
: FULL ( s -- mbar )  8 * BARS + ;
: EMPTY ( s -- mbar )  2 + 8 * BARS + ;
: KT ( -- n )  KK 64 / ;
: ROW0 ( -- row )  BID-Y 64 * ;
: COL0 ( -- col )  BID-X 64 * ;
: PRODUCE ( kt -- )  \ the producer: both boxes of k-tile kt into its stage
  DUP 2 MOD  ( kt s )
  OVER 2 >= IF  DUP EMPTY  2 PICK 2 / 1+ 1 AND  MBAR-WAIT  THEN
  DUP FULL 16384 MBAR-ARRIVE-TX
  DUP As  tA  3 PICK 64 *  ROW0  4 PICK FULL  TMA-LOAD
  DUP Bs  tB  3 PICK 64 *  COL0  4 PICK FULL  TMA-LOAD
  2DROP ;
: K16 ( s kk -- ) ( T: wacc -- wacc )  \ one m64n64k16 step from columns 16kk.. of stage s
  16 * >R  DUP 0 R@ 128 WGDESC As  SWAP 0 R> 128 WGDESC Bs  WGMMA ;
: CONSUME ( kt -- ) ( T: wacc -- wacc )  \ the consumer: the four k16 steps of k-tile kt, then free its stage
  DUP 2 MOD  DUP FULL  ROT 2 / 1 AND  MBAR-WAIT
  DUP 0 K16  DUP 1 K16  DUP 2 K16  DUP 3 K16  0 WGMMA-WAIT
  ELECT IF  EMPTY MBAR-ARRIVE  ELSE  DROP  THEN ;  \ one arrival per warp, after its wait
TID-X 0= IF  0 FULL 1 MBAR-INIT  1 FULL 1 MBAR-INIT  0 EMPTY 4 MBAR-INIT  1 EMPTY 4 MBAR-INIT  MBAR-FENCE  THEN
BARRIER
WARPGROUP 0= IF
  40 REGS-
  TID-X 0= IF  KT 0 DO  I PRODUCE  LOOP  THEN
ELSE
  232 REGS+
  WGZERO
  KT 0 DO  I CONSUME  LOOP
  C  ROW0 N * COL0 + 4 * +  N WGSTORE
THEN
