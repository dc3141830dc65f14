\! kernel gemm_async
\! param A bf16[MM,KK]
\! param B bf16[KK,NN]
\! param C f32[MM,NN]
\! param MM i32
\! param NN i32
\! param KK i32
\! tiles 16 8 16 bf16
\! smem As bf16[64,64] 3 swizzled
\! smem Bs bf16[64,64] 3 swizzled
\! block 256
\ The Ampere GEMM recipe (docs/tiles.md, "The fast GEMM, step by step"): C = A . B, bf16 in, f32 out.
\ A block of 8 warps computes a 64x64 tile of C; each warp a 16x32 tile, 4 m16n8 accumulators kept on
\ the tile stack. k goes in steps of 64 through a three-stage cp.async ring of 128-byte-swizzled shared
\ tiles (As: 64 rows of m x 64 of k; Bs: 64 rows of k x 64 of n); fragments move with ldmatrix
\ (TLDSM-A, TLDSM-B), the product is mma.sync m16n8k16 (TMMA); the epilogue stores per lane.
\ MM: any size; NN and KK: multiples of 8 (a row is 16-byte chunks); the edges are zero-filled copies.
\ Grid: NN/64 x MM/64 blocks, rounded up. Run it:
\   tileforth run demos/gemm_async.fth --param A=@a.npy --param B=@b.npy --param MM=64 --param NN=128 \
\     --param KK=96 --grid 2,1,1 --save C=c.npy
\ Compile it:  tileforth compile demos/gemm_async.fth --arch sm_90 --cubin --verbose
: m0 ( -- r )  BID-Y 64 * ;                     \ the block's first row of C
: n0 ( -- c )  BID-X 64 * ;                     \ its first column
: wm ( -- r )  WARP-ID 1 RSHIFT 16 * ;          \ the warp's first row in the block tile (4 warps down)
: wn ( -- c )  WARP-ID 1 AND 32 * ;             \ its first column (2 warps across)
: k-tiles ( -- n )  KK 63 + 64 / ;
: stage ( kt -- s )  3 MOD ;
: chunk { g s a geom rows bytes i -- }  \ chunk i of a stage, zero-filled past rows x bytes (STAGE-TILE-N's)
  g s a geom i STAGE-ADDRS  rows bytes geom i STAGE-BYTES  CP.ASYNC-N ;
: stage-64x64 { g s a geom rows bytes -- }  \ this thread's 2 of a stage's 512 chunks, unrolled
  g s a geom rows bytes THREAD-ID chunk  g s a geom rows bytes THREAD-ID 256 + chunk ;
: fetch-a { kt -- }  m0 KK * kt 64 * + 2* A +  KK 2*  kt stage As  As-GEOM
  MM m0 - 64 MIN  KK kt 64 * - 2* 128 MIN  stage-64x64 ;
: fetch-b { kt -- }  kt 64 * NN * n0 + 2* B +  NN 2*  kt stage Bs  Bs-GEOM
  KK kt 64 * - 64 MIN  NN n0 - 2* 128 MIN  stage-64x64 ;
: fetch ( kt -- )  DUP k-tiles < IF  DUP fetch-a DUP fetch-b  THEN DROP  CP.COMMIT ;  \ an empty group counts
: mma-b { s kk j -- }  ( T: c a -- c' )  s Bs kk wn j 8 * + Bs-GEOM TLDSM-B  TMMA ;
: mma-stage { s -- }  ( T: c0 c1 c2 c3 -- c0' c1' c2' c3' )  \ a is loaded once and used for 4 n8 tiles
  64 0 DO  s As wm I As-GEOM TLDSM-A
    4 TROLL TOVER s I 0 mma-b TSWAP  4 TROLL TOVER s I 1 mma-b TSWAP
    4 TROLL TOVER s I 2 mma-b TSWAP  4 TROLL TOVER s I 3 mma-b TSWAP  TDROP  16 +LOOP ;
: put { j -- }  ( T: acc -- )
  4 0 DO  m0 wm + I TROW +  n0 wn + j 8 * + I TCOL +          ( row col )
    OVER MM < OVER NN < AND IF  I TLANE@  SWAP NN * + 4 * C + SF!  ELSE 2DROP THEN
  LOOP TDROP ;
: gemm ( -- )
  BLOCK-THREADS 256 <> ABORT" gemm_async: run it with 256 threads a block (--block 256,1,1)"
  TZERO TZERO TZERO TZERO  0 fetch  1 fetch
  k-tiles 0 ?DO  1 CP.WAIT BARRIER  I 2 + fetch  I stage mma-stage  LOOP
  0 CP.WAIT  3 put 2 put 1 put 0 put ;
gemm
