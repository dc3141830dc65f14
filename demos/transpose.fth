\ tileforth: a matrix transpose three ways, and what each does to memory.
\ Run it with:  tileforth --backend cpu demos/transpose.fth   (docs/simt.md walks through it)
\ PROFILE word (the emulator, checked mode) runs the word once and shows, for each
\ load and store, the 32-byte sectors per request and the shared-memory bank conflicts.
\ b = transpose of a, for a 64x64 f32 matrix, by 2x2 blocks of 32x32 threads:
\ each thread moves one element, and each warp is one row of 32 threads
\ (TID-X 0..31, one TID-Y).

64 CONSTANT N
N N F32 MATRIX a   RAMP a                           \ a[i][j] = 64 i + j
N N F32 MATRIX b-naive   N N F32 MATRIX b-shared   N N F32 MATRIX b-padded
2 2 1 GRID  32 32 1 THREADS
: at ( row col m -- addr )  >R SWAP N * + SFLOATS R> + ;   \ &m[row][col]
: col ( -- j )  BID-X 32 * TID-X + ;                \ the element of a this thread reads
: row ( -- i )  BID-Y 32 * TID-Y + ;
: .ok ( addr -- )  col row ROT at SF@  row col a at SF@  F=   \ each thread checks one element
  IF ." b = transpose of a" ELSE ." wrong" THEN CR ;  \ printed once when all threads agree

." --- 1. Naive: read a row of a, write a column of b" CR
: naive ( -- )  row col a at SF@   col row b-naive at SF! ;
PROFILE naive
b-naive .ok
\ A warp reads 32 neighbouring floats of a (128 bytes: 4 sectors of 32
\ bytes per request) but writes 32 floats N*4 = 256 bytes apart in b: 32
\ sectors per request, one for each float: the stores are uncoalesced.

." --- 2. Through shared memory: both global accesses along rows" CR
32 32 * SFLOATS SHARED: tile                        \ tile[y][x], 32 floats a row
: tile[] ( y x -- addr )  SWAP 32 * + SFLOATS tile + ;
: tiled ( -- )
  row col a at SF@  TID-Y TID-X tile[] SF!           \ a row of a into a row of the tile
  BARRIER
  TID-X TID-Y tile[] SF@                            \ a column of the tile ...
  BID-X 32 * TID-Y +  BID-Y 32 * TID-X +  b-shared at SF! ;   \ ... into a row of b
PROFILE tiled
b-shared .ok
\ Now every global request is 4 sectors, but the warp reads a column of the
\ tile: 32 floats 128 bytes apart, all in the same one of the 32 banks of
\ shared memory (4 bytes each): a 32-way bank conflict, 32 passes.

." --- 3. Padded shared memory: 33 floats a row" CR
33 32 * SFLOATS SHARED: ptile                       \ one unused float at the end of each row
: ptile[] ( y x -- addr )  SWAP 33 * + SFLOATS ptile + ;
: padded ( -- )
  row col a at SF@  TID-Y TID-X ptile[] SF!
  BARRIER
  TID-X TID-Y ptile[] SF@                           \ a column: 33 floats apart, 32 banks
  BID-X 32 * TID-Y +  BID-Y 32 * TID-X +  b-padded at SF! ;
PROFILE padded
b-padded .ok
\ Element (x, y) of the padded tile is in bank (33 x + y) mod 32 = (x + y)
\ mod 32: a column touches each bank once, no conflict.
