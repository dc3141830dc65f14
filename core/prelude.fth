\ tileforth prelude: words written in Forth. Small words are inlined by the
\ compiler, so they cost nothing at run time; errors inside them point at the
\ caller. Format, one word a line (the reference is generated from it):
\   : NAME ( effect )  body ;  \ help | example \ expected output
: NIP      ( x1 x2 -- x2 )  SWAP DROP ;                \ Drop the second cell. | 1 2 NIP . \ 2
: TUCK     ( x1 x2 -- x2 x1 x2 )  SWAP OVER ;          \ Copy the top cell below the second. | 1 2 TUCK . . . \ 2 1 2
: -ROT     ( x1 x2 x3 -- x3 x1 x2 )  ROT ROT ;         \ Rotate the top cell to third place. | 1 2 3 -ROT . . . \ 2 1 3
: 2DUP     ( x1 x2 -- x1 x2 x1 x2 )  OVER OVER ;       \ Duplicate the top pair. | 1 2 2DUP . . . . \ 2 1 2 1
: 2DROP    ( x1 x2 -- )  DROP DROP ;                   \ Discard the top pair. | 1 2 3 2DROP . \ 1
: 2SWAP    ( x1 x2 x3 x4 -- x3 x4 x1 x2 )  ROT >R ROT R> ;  \ Exchange the top two pairs. | 1 2 3 4 2SWAP . . . . \ 2 1 4 3
: 2OVER    ( x1 x2 x3 x4 -- x1 x2 x3 x4 x1 x2 )  3 PICK 3 PICK ;  \ Copy the second pair to the top. | 1 2 3 4 2OVER . . \ 2 1
: 1+       ( n -- n+1 )  1 + ;                         \ Add one. | 5 1+ . \ 6
: 1-       ( n -- n-1 )  1 - ;                         \ Subtract one. | 5 1- . \ 4
: 2*       ( x -- x*2 )  1 LSHIFT ;                    \ Shift left by one bit. | 5 2* . \ 10
: INVERT   ( x -- ~x )  -1 XOR ;                       \ Invert all bits. | 0 INVERT . \ -1
: 0=       ( n -- flag )  0 = ;                        \ True if n is zero. | 0 0= . \ -1
: 0<>      ( n -- flag )  0 <> ;                       \ True if n is not zero. | 5 0<> . \ -1
: 0<       ( n -- flag )  0 < ;                        \ True if n is negative. | -5 0< . \ -1
: 0>       ( n -- flag )  0 > ;                        \ True if n is positive. | -5 0> . \ 0
: <=       ( n1 n2 -- flag )  > 0= ;                   \ True if n1 <= n2 (signed). | 2 2 <= . \ -1
: >=       ( n1 n2 -- flag )  < 0= ;                   \ True if n1 >= n2 (signed). | 1 2 >= . \ 0
: U>       ( u1 u2 -- flag )  SWAP U< ;                \ Unsigned greater than. | -1 1 U> . \ -1
: /        ( n1 n2 -- n3 )  /MOD NIP ;                 \ Divide, truncating toward zero (like C and PTX). | -7 2 / . \ -3
: MOD      ( n1 n2 -- n3 )  /MOD DROP ;                \ Remainder of truncating division (sign of n1). | -7 2 MOD . \ -1
: */       ( n1 n2 n3 -- n4 )  */MOD NIP ;             \ n1*n2/n3 with a double-width product; truncating. | 1000000 3 7 */ . \ 428571
: S>D      ( n -- d )  DUP 0< ;                        \ Sign-extend a cell to a double-cell number. | -1 S>D . . \ -1 -1
: CR       ( -- )  10 EMIT ;                           \ Start a new output line. | 1 . CR 2 . \ 1 2
: GLOBAL-ID ( -- n )  BID-X BDIM-X * TID-X + ;         \ This thread's index along x in the grid. | GLOBAL-ID . \ 0
: CELLS    ( n -- n*8 )  8 * ;                         \ The size in bytes of n cells. | 3 CELLS . \ 24
: CELL+    ( addr -- addr+8 )  8 + ;                   \ Step an address by one cell. | 0 CELL+ . \ 8
: CHARS    ( n -- n ) ;                                \ The size in bytes of n characters. | 3 CHARS . \ 3
: CHAR+    ( addr -- addr+1 )  1+ ;                    \ Step an address by one character. | 0 CHAR+ . \ 1
: ALIGNED  ( addr -- a-addr )  7 + -8 AND ;            \ Round an address up to a cell boundary. | 9 ALIGNED . \ 16
: WITHIN   ( n lo hi -- flag )  OVER - >R - R> U< ;    \ True if lo <= n < hi (with wrap-around). | 5 1 10 WITHIN . \ -1
