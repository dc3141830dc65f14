\ A minimal Hayes-style tester for tileforth: T{ ... -> ... }T
\
\ Written for tests/standard (issue 11) with only the words tileforth has
\ today.  It counts every judged test in TESTER-PASSED or TESTER-FAILED (and
\ a failure in #ERRORS too, as the suite's tester.fr does: errorreport.fth
\ reads it), prints <<TEST FAILED>> for a failure, and restores the depth
\ the test started with.  TESTING skips the rest of its line (SOURCE, >IN).

DECIMAL
: TESTING ( "rest of line" -- )  SOURCE >IN ! DROP ;
VARIABLE #ERRORS         0 #ERRORS !
VARIABLE VERBOSE         0 VERBOSE !
VARIABLE TESTER-PASSED   0 TESTER-PASSED !
VARIABLE TESTER-FAILED   0 TESTER-FAILED !
VARIABLE TESTER-START    \ the depth at T{
VARIABLE TESTER-DEPTH    \ the depth at ->
VARIABLE TESTER-OK       \ false once this test failed
CREATE TESTER-RESULTS 20 CELLS ALLOT

: TESTER-FAIL ( -- )  0 TESTER-OK ! ;
: TESTER-ABOVE ( -- n )  DEPTH TESTER-START @ - ;

\ No DO or BEGIN loop here, and no RECURSE: a kernel that reaches a loop is
\ optimised, which costs a test line ~100 ms instead of a few.  The steps
\ are repeated 20 times instead (at most 20 results per test, as in
\ Hayes's tester).
VARIABLE TESTER-I        \ the index into TESTER-RESULTS
: TESTER-DROP1 ( x -- )  TESTER-ABOVE 0> IF DROP THEN ;
: TESTER-ZERO1 ( -- 0 )  TESTER-ABOVE 0< IF 0 THEN ;
: TESTER-SAVE1 ( x -- )
   TESTER-ABOVE 0> IF TESTER-I @ CELLS TESTER-RESULTS + !  1 TESTER-I +! THEN ;
: TESTER-CMP1 ( x -- )
   TESTER-ABOVE 0> IF
      TESTER-I @ CELLS TESTER-RESULTS + @ <> IF TESTER-FAIL THEN  1 TESTER-I +!
   THEN ;
: TESTER-DROP4 TESTER-DROP1 TESTER-DROP1 TESTER-DROP1 TESTER-DROP1 ;
: TESTER-ZERO4 TESTER-ZERO1 TESTER-ZERO1 TESTER-ZERO1 TESTER-ZERO1 ;
: TESTER-SAVE4 TESTER-SAVE1 TESTER-SAVE1 TESTER-SAVE1 TESTER-SAVE1 ;
: TESTER-CMP4  TESTER-CMP1 TESTER-CMP1 TESTER-CMP1 TESTER-CMP1 ;
: TESTER-DROP20 TESTER-DROP4 TESTER-DROP4 TESTER-DROP4 TESTER-DROP4 TESTER-DROP4 ;
: TESTER-ZERO20 TESTER-ZERO4 TESTER-ZERO4 TESTER-ZERO4 TESTER-ZERO4 TESTER-ZERO4 ;
: TESTER-SAVE20 TESTER-SAVE4 TESTER-SAVE4 TESTER-SAVE4 TESTER-SAVE4 TESTER-SAVE4 ;
: TESTER-CMP20 TESTER-CMP4 TESTER-CMP4 TESTER-CMP4 TESTER-CMP4 TESTER-CMP4 ;

\ Drop what the test left above its start, or fill what it consumed with 0s
\ (beyond 20 items the test has failed and the rest stays).
: TESTER-EMPTY ( i*x -- )  TESTER-DROP20 TESTER-ZERO20 ;

: TESTER-BEGIN ( -- )  DEPTH TESTER-START !  -1 TESTER-OK ! ;

: TESTER-RECORD ( i*x -- )
   DEPTH TESTER-DEPTH !  0 TESTER-I !  TESTER-SAVE20
   TESTER-ABOVE 0> IF TESTER-FAIL TESTER-EMPTY THEN ;

: TESTER-CHECK ( i*x -- )
   DEPTH TESTER-DEPTH @ = IF 0 TESTER-I !  TESTER-CMP20
   ELSE TESTER-FAIL TESTER-EMPTY THEN ;

: TESTER-SETTLE ( -- )
   TESTER-OK @ IF 1 TESTER-PASSED +!
   ELSE 1 TESTER-FAILED +!  1 #ERRORS +!  ." <<TEST FAILED>>" THEN ;

: T{ ( -- )  TESTER-BEGIN ;
: -> ( i*x -- )  TESTER-RECORD ;
: }T ( i*x -- )  TESTER-CHECK TESTER-SETTLE ;
