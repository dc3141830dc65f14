\! kernel gemm_async
\! param A bf16[MM,KK]
\! param B bf16[KK,NN]
\! param C f32[MM,NN]
\! param MM i32
\! param NN i32
\! param KK i32
\! tiles 16 8 16 bf16 4x8
\! smem As bf16[64,64] 3 swizzled
\! smem Bs bf16[32,64] 6 swizzled
\! block 128
\ The Ampere GEMM recipe (docs/tiles.md, "The fast GEMM, step by step"): C = A . B, bf16 in, f32 out.
\ A block of 4 warps (2 x 2) computes a 128x128 tile of C; each warp a 64x64 tile, one 4x8 grid of m16n8
\ accumulators (`4x8` in the tiles line: 128 f32 registers per lane). k goes in steps of 32 through a
\ three-stage cp.async ring, both tiles 128-byte swizzled (128-byte rows: ldmatrix without bank conflicts):
\ As holds the block's 128 rows of m x 32 of k per stage, folded into 64 rows of 128 bytes (row r: m-rows r and
\ 64 + r, so warp row w's 64 rows are columns 32w..32w+31); Bs 32 rows of k x 64 of n, two stages per ring
\ slot (stage 2s + h: columns 64h..64h+63 of the block tile, warp column h's).
\ Per 16 of k a warp loads a 4x1 column of a fragments (TLDSM-A: 4 ldmatrix.x4), a 1x8 row of b fragments
\ (TLDSM-B: 8 ldmatrix.x2.trans) and does 32 mma.sync m16n8k16 (TMMA).
\ MM: any size; NN and KK: multiples of 8 (a row is 16-byte chunks); the edges are zero-filled copies, and
\ a warp tile that crosses an edge stores lane by lane. Grid: NN/128 x MM/128 blocks, rounded up. Run it:
\   tileforth run demos/gemm_async.fth --param A=@a.npy --param B=@b.npy --param MM=64 --param NN=128 \
\     --param KK=96 --grid 1,1,1 --save C=c.npy
\ Compile it:  tileforth compile demos/gemm_async.fth --arch sm_90 --cubin --verbose
: m0 ( -- r )  BID-Y 128 * ;                    \ the block's first row of C
: n0 ( -- c )  BID-X 128 * ;                    \ its first column
: wm ( -- r )  WARP-ID 1 RSHIFT 64 * ;          \ the warp's first row in the block tile (2 warps down)
: wh ( -- h )  WARP-ID 1 AND ;                  \ its column half (2 warps across)
: k-tiles ( -- n )  KK 31 + 32 / ;
: slot ( kt -- s )  3 MOD ;
: chunk { g s a geom rows bytes i -- }  \ chunk i of a stage, zero-filled past rows x bytes (STAGE-TILE-N's)
  g s a geom i STAGE-ADDRS  rows bytes geom i STAGE-BYTES  CP.ASYNC-N ;
: fetch-a { kt -- }  \ this thread's 4 of the 512 chunks of A's 128x32 block, chunks i = t + 128 j of As's stage:
  m0 KK * kt 32 * + 2* A +  KK 2*  kt slot As  MM m0 - 128 MIN  KK kt 32 * - 2* 64 MIN  { g s a rows bytes }
  THREAD-ID 3 RSHIFT  THREAD-ID 7 AND  { r q }  \ its row r + 16 j (the same swizzle: r mod 8) and chunk q hold
  q 3 AND 4 LSHIFT  q 2 RSHIFT 6 LSHIFT r +  { cb m }  \ bytes cb..cb+15 of the k-tile of block row m + 16 j
  g m s * + cb +  r q SWIZZLE128 a +  bytes cb - 0 MAX 16 MIN  rows m -  { src dst n left }  \ (zero-filled
  4 0 DO  src I 16 * s * +  dst I 2048 * +  I 16 * left < n AND  CP.ASYNC-N  LOOP ;  \ past the edges)
: fetch-b { kt h -- }  \ this thread's 2 of the 256 chunks of B's half h, a 32x64 stage
  kt 32 * NN * n0 + h 64 * + 2* B +  NN 2*  kt slot 2* h + Bs  Bs-GEOM  KK kt 32 * - 32 MIN
  NN n0 - h 64 * - 2* 128 MIN  { g s a geom rows bytes }
  2 0 DO  g s a geom rows bytes  I 128 * THREAD-ID +  chunk  LOOP ;
: fetch ( kt -- )  DUP k-tiles < IF  DUP fetch-a  2 0 DO  DUP I fetch-b  LOOP  THEN DROP  CP.COMMIT ;
: mma-stage { s -- }  ( T: c -- c' )  \ 32 of k: 2 x (a 4x1, b 1x8, 32 mma.sync)
  32 0 DO  s As 0 wm 2/ I + As-GEOM TLDSM-A  s 2* wh + Bs I 0 Bs-GEOM TLDSM-B  TMMA  16 +LOOP ;
: c-row ( -- r )  m0 wm + ;
: c-col ( -- c )  n0 wh 64 * + ;
: put-edge ( -- )  ( T: acc -- )  \ a warp tile across an edge: lane by lane, the elements inside
  128 0 DO  c-row I TROW +  c-col I TCOL +  ( row col )
    OVER MM < OVER NN < AND IF  I TLANE@  SWAP NN * + 4 * C + SF!  ELSE 2DROP THEN
  LOOP TDROP ;
: put ( -- )  ( T: acc -- )  \ the whole 64x64 warp tile in one TSTORE when it is inside C
  c-row 64 + MM <=  c-col 64 + NN <= AND IF  c-row NN * c-col + 4 * C +  NN TSTORE  ELSE put-edge THEN ;
: gemm ( -- )
  BLOCK-THREADS 128 <> ABORT" gemm_async: run it with 128 threads a block (--block 128,1,1)"
  TZERO
  k-tiles 2 + 0 DO  \ fetch k-tile I; from I = 2 on, wait for k-tile I - 2 and multiply it
    I 2 >= IF  1 CP.WAIT BARRIER  THEN  I fetch  I 2 >= IF  I 2 - slot mma-stage  THEN
  LOOP
  0 CP.WAIT  put ;
gemm
