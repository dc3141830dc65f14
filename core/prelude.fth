\ tileforth prelude: words written in Forth (LLVM inlines them, so they cost nothing).
\ Format: `: NAME ( effect ) body ;  \ help` -- the reference is generated from these lines.
: CELLS   ( n -- n*8 )  8 * ;                    \ The size in bytes of n cells.
: CELL+   ( addr -- addr+8 )  8 + ;              \ Step an address by one cell.
: CHARS   ( n -- n ) ;                           \ The size in bytes of n characters.
: CHAR+   ( addr -- addr+1 )  1+ ;               \ Step an address by one character.
: ALIGNED ( addr -- a-addr )  7 + -8 AND ;       \ Round an address up to a cell boundary.
: WITHIN  ( n lo hi -- flag )  OVER - >R - R> U< ;  \ True if lo <= n < hi (with wrap-around).
