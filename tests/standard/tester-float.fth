\ The float stack for tileforth's tester (tester.fth, loaded first).
\
\ T{ -> }T also record and compare the float stack, exactly (0E F~: the same
\ bits, so a NaN result matches the NaN expected, as ttester's FEXACTLY=);
\ SET-EXACT and SET-NEAR are accepted, and both compare exactly.  It needs FDEPTH: when
\ a line of this file fails to load, the runner judges no test of a float
\ file (a tester that ignored the float stack would pass tests vacuously).
\ Loop-free like tester.fth: at most 20 float results per test.

VARIABLE TESTER-FSTART   \ the float depth at T{
VARIABLE TESTER-FDEPTH   \ the float depth at ->
CREATE TESTER-FRESULTS 20 CELLS ALLOT

: TESTER-FABOVE ( -- n )  FDEPTH TESTER-FSTART @ - ;
: TESTER-FDROP1 ( F: r -- )  TESTER-FABOVE 0> IF FDROP THEN ;
: TESTER-FZERO1 ( F: -- 0 )  TESTER-FABOVE 0< IF 0 S>F THEN ;
: TESTER-FSAVE1 ( F: r -- )
   TESTER-FABOVE 0> IF TESTER-I @ CELLS TESTER-FRESULTS + DF!  1 TESTER-I +! THEN ;
: TESTER-FCMP1 ( F: r -- )
   TESTER-FABOVE 0> IF
      TESTER-I @ CELLS TESTER-FRESULTS + DF@ 0E F~ 0= IF TESTER-FAIL THEN  1 TESTER-I +!
   THEN ;
: TESTER-FDROP4 TESTER-FDROP1 TESTER-FDROP1 TESTER-FDROP1 TESTER-FDROP1 ;
: TESTER-FZERO4 TESTER-FZERO1 TESTER-FZERO1 TESTER-FZERO1 TESTER-FZERO1 ;
: TESTER-FSAVE4 TESTER-FSAVE1 TESTER-FSAVE1 TESTER-FSAVE1 TESTER-FSAVE1 ;
: TESTER-FCMP4  TESTER-FCMP1 TESTER-FCMP1 TESTER-FCMP1 TESTER-FCMP1 ;
: TESTER-FDROP20 TESTER-FDROP4 TESTER-FDROP4 TESTER-FDROP4 TESTER-FDROP4 TESTER-FDROP4 ;
: TESTER-FZERO20 TESTER-FZERO4 TESTER-FZERO4 TESTER-FZERO4 TESTER-FZERO4 TESTER-FZERO4 ;
: TESTER-FSAVE20 TESTER-FSAVE4 TESTER-FSAVE4 TESTER-FSAVE4 TESTER-FSAVE4 TESTER-FSAVE4 ;
: TESTER-FCMP20  TESTER-FCMP4 TESTER-FCMP4 TESTER-FCMP4 TESTER-FCMP4 TESTER-FCMP4 ;

: TESTER-FEMPTY ( F: i*r -- )  TESTER-FDROP20 TESTER-FZERO20 ;

: TESTER-FRECORD ( F: i*r -- )
   FDEPTH TESTER-FDEPTH !  0 TESTER-I !  TESTER-FSAVE20
   TESTER-FABOVE 0> IF TESTER-FAIL TESTER-FEMPTY THEN ;

: TESTER-FCHECK ( F: i*r -- )
   FDEPTH TESTER-FDEPTH @ = IF 0 TESTER-I !  TESTER-FCMP20
   ELSE TESTER-FAIL TESTER-FEMPTY THEN ;

: SET-EXACT ( -- ) ;
: SET-NEAR ( -- ) ;
: T{ ( -- )  TESTER-BEGIN  FDEPTH TESTER-FSTART ! ;
: -> ( i*x -- )  TESTER-RECORD TESTER-FRECORD ;
: }T ( i*x -- )  TESTER-CHECK TESTER-FCHECK TESTER-SETTLE ;

\ ttester's closers that say each result's kind (RX}T: a float then a cell ...), and its
\ error hook: this tester compares both stacks exactly, so each closer is }T.
: ...}T }T ;  : X}T }T ;  : R}T }T ;  : XX}T }T ;  : XR}T }T ;  : RX}T }T ;  : RR}T }T ;
: XXX}T }T ;  : XXR}T }T ;  : XRX}T }T ;  : XRR}T }T ;  : RXX}T }T ;  : RXR}T }T ;  : RRX}T }T ;
: RRR}T }T ;  : XXXX}T }T ;  : XXXR}T }T ;  : XXRX}T }T ;  : XXRR}T }T ;  : XRXX}T }T ;
: XRXR}T }T ;  : XRRX}T }T ;  : XRRR}T }T ;  : RXXX}T }T ;  : RXXR}T }T ;  : RXRX}T }T ;
: RXRR}T }T ;  : RRXX}T }T ;  : RRXR}T }T ;  : RRRX}T }T ;  : RRRR}T }T ;
VARIABLE ERROR-XT  0 ERROR-XT !
: ERROR1 ( c-addr u -- )  TYPE CR ;
