\ tileforth prelude: words written in Forth (LLVM inlines them, so they cost nothing).
: CELLS   ( n -- n*8 )  8 * ;
: CELL+   ( addr -- addr+8 )  8 + ;
: CHARS   ( n -- n ) ;
: CHAR+   ( addr -- addr+1 )  1+ ;
: ALIGNED ( addr -- a-addr )  7 + -8 AND ;
: WITHIN  ( n lo hi -- flag )  OVER - >R - R> U< ;
