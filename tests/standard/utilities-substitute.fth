\ The words the Forth-2012 suite's utilities.fth gives the other test files,
\ written for tileforth's tests/standard.  utilities.fth itself carries no
\ license notice, so it is not vendored (see forth2012/NOTICE.md); this file
\ defines the same names with the same behaviour, and runs before each
\ integer file after core.fr, as runtests.fth would run utilities.fth.

DECIMAL
VARIABLE (\?)  0 (\?) !   \ true: the word asked about is not defined

: [?DEF]   ( "name" -- )  BL WORD FIND NIP 0= (\?) ! ;
: [?UNDEF] ( "name" -- )  [?DEF] (\?) @ 0= (\?) ! ;
: [?IF]    ( flag -- )  (\?) ! ; IMMEDIATE
: [?ELSE]  ( -- )  (\?) @ 0= (\?) ! ; IMMEDIATE
: [?THEN]  ( -- )  0 (\?) ! ; IMMEDIATE
\ The rest of the line is a comment unless the flag is true.
: \?       ( "rest" -- )  (\?) @ 0= IF POSTPONE \ THEN ; IMMEDIATE

\ Strings at the prompt: $" text" leaves a copy of text (as c-addr u).
64 CONSTANT SBUF-SIZE
CREATE SBUF1 SBUF-SIZE CHARS ALLOT
CREATE SBUF2 SBUF-SIZE CHARS ALLOT
: ($")  ( c-addr "text<quote>" -- c-addr' u )
   >R [CHAR] " PARSE DUP R@ C! R> CHAR+ SWAP 2DUP 2>R CHARS MOVE 2R> ;
: $"   ( "text<quote>" -- c-addr u )  SBUF1 ($") ;
: $2"  ( "text<quote>" -- c-addr u )  SBUF2 ($") ;
: $CLEAR  ( c-addr -- )  SBUF-SIZE BL FILL ;
: CLEAR-SBUFS  ( -- )  SBUF1 $CLEAR SBUF2 $CLEAR ;

1 CELLS 8 * CONSTANT BITS/CELL

\ S= compares two strings character by character (case-sensitive) without
\ COMPARE, which a file under test may not have; STR1 and STR2 are the
\ strings coreexttest.fth's PARSE-NAME tests compare with.
: S=  ( c-addr1 u1 c-addr2 u2 -- flag )
   ROT OVER <> IF DROP 2DROP FALSE EXIT THEN
   0 ?DO  OVER I + C@  OVER I + C@  <> IF 2DROP FALSE UNLOOP EXIT THEN  LOOP
   2DROP TRUE ;
: STR1  S" abcd" ;
: STR2  S" abcde" ;
