\ Begin of approach. Depends on 'latestxt' word of GForth implementation.

: self-parameter  ( xt -- xt' )
  >r :noname  latestxt postpone literal r> compile, postpone ;
;
: Y  ( xt -- xt' )
  dup self-parameter 2>r
  :noname 2r> postpone literal compile, postpone ;
;
\ Fibonnacci test
10 :noname ( u xt -- u' ) over 2 < if drop exit then >r 1- dup r@ execute swap 1- r> execute + ; Y execute .
\ Factorial test
10 :noname  ( u xt -- u' )  over 2 < if 2drop 1 exit then  over 1- swap execute * ; Y execute .

\ End of approach.

\ ---- driver added for the tileforth corpus (see SOURCES.md) ----
CR
