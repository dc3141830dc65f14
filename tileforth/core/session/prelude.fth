\ tileforth prelude: the words that are written in Forth.
\
\ Every session reads this file before its first line, so each word here is
\ an ordinary colon definition built from the primitives (tileforth/core/compile/primitives.py).
\ Two things make them cheap and quiet. A small word (eight nodes or fewer)
\ is inlined by the compiler into every line and word that uses it, so a
\ word here costs no call. And a prelude word is transparent to errors: a
\ stack underflow inside `NIP` points at the `NIP` in your line, not at a
\ line of this file.
\
\ How this file is read. Besides Forth reading it, the word reference (HELP,
\ docs/words.md, python -m tileforth.core.reference) takes each word's entry
\ from it: a definition, then at once, on the lines after the one that ends
\ it, comment lines with what the word does and an example:
\
\   : NAME ( stack effect )  body ;
\   \ What it does (one line or more).
\   \ e.g. an example \ what it prints
\
\ Any other comment, such as this one, is prose for you: it is separated from
\ a definition by a blank line. Stack effects follow the usual notation:
\ ( before -- after ), the top of the stack on the right.

\ ---- Stack ----------------------------------------------------------------
\
\ The primitives give DUP DROP SWAP OVER ROT and PICK; everything else that
\ shuffles the data stack is a composition of them. The compiler keeps the
\ top of the stack in registers, where a primitive shuffle only renames
\ values. 2SWAP parks a cell on the return stack, which is a compile-time
\ slot (a register as well), not memory.

: NIP      ( x1 x2 -- x2 )  SWAP DROP ;
\ Drop the second cell.
\ e.g. 1 2 NIP . \ 2

: TUCK     ( x1 x2 -- x2 x1 x2 )  SWAP OVER ;
\ Copy the top cell below the second.
\ e.g. 1 2 TUCK . . . \ 2 1 2

: -ROT     ( x1 x2 x3 -- x3 x1 x2 )  ROT ROT ;
\ Rotate the top cell to third place.
\ e.g. 1 2 3 -ROT . . . \ 2 1 3

: 2DUP     ( x1 x2 -- x1 x2 x1 x2 )  OVER OVER ;
\ Duplicate the top pair.
\ e.g. 1 2 2DUP . . . . \ 2 1 2 1

: 2DROP    ( x1 x2 -- )  DROP DROP ;
\ Discard the top pair.
\ e.g. 1 2 3 2DROP . \ 1

: 2SWAP    ( x1 x2 x3 x4 -- x3 x4 x1 x2 )  ROT >R ROT R> ;
\ Exchange the top two pairs.
\ e.g. 1 2 3 4 2SWAP . . . . \ 2 1 4 3

: 2OVER    ( x1 x2 x3 x4 -- x1 x2 x3 x4 x1 x2 )  3 PICK 3 PICK ;
\ Copy the second pair to the top.
\ e.g. 1 2 3 4 2OVER . . \ 2 1

\ ---- Comparisons --------------------------------------------------------------
\
\ A flag is a cell: true is -1 (all bits set), false is 0, so flags combine
\ with AND OR XOR INVERT as well as with IF, and a flag is a mask (ABS MIN
\ MAX below select with one). TRUE and FALSE are literals. The primitives
\ are = < U< and the float F< F=; the comparisons with zero are the general
\ ones with a literal 0, and the remaining orders are the primitive ones
\ with the operands swapped or the result inverted. LLVM sees through the
\ composition: `= 0=` becomes one `icmp ne`, as the primitive did.

: TRUE     ( -- -1 )  -1 ;
\ The true flag.
\ e.g. TRUE . \ -1

: FALSE    ( -- 0 )  0 ;
\ The false flag.
\ e.g. FALSE . \ 0

: 0=       ( n -- flag )  0 = ;
\ True if n is zero.
\ e.g. 0 0= . \ -1

: <>       ( n1 n2 -- flag )  = 0= ;
\ True (-1) if n1 is not equal n2 (signed).
\ e.g. 1 2 <> . \ -1

: >        ( n1 n2 -- flag )  SWAP < ;
\ True (-1) if n1 is greater than n2 (signed).
\ e.g. 1 2 > . \ 0

: 0<>      ( n -- flag )  0 <> ;
\ True if n is not zero.
\ e.g. 5 0<> . \ -1

: 0<       ( n -- flag )  0 < ;
\ True if n is negative.
\ e.g. -5 0< . \ -1

: 0>       ( n -- flag )  0 > ;
\ True if n is positive.
\ e.g. -5 0> . \ 0

: <=       ( n1 n2 -- flag )  > 0= ;
\ True if n1 <= n2 (signed).
\ e.g. 2 2 <= . \ -1

: >=       ( n1 n2 -- flag )  < 0= ;
\ True if n1 >= n2 (signed).
\ e.g. 1 2 >= . \ 0

: U>       ( u1 u2 -- flag )  SWAP U< ;
\ Unsigned greater than.
\ e.g. -1 1 U> . \ -1

: F0<      ( -- flag ) ( F: r -- )  0e F< ;
\ True if r < 0.
\ e.g. -1e F0< . \ -1

: F0=      ( -- flag ) ( F: r -- )  0e F= ;
\ True if r == 0.
\ e.g. -1e F0= . \ 0

\ ---- Arithmetic and bits ----------------------------------------------------
\
\ Cells are 64-bit two's complement integers; arithmetic wraps around.
\ `1 +` becomes one `add` with an immediate operand. INVERT is XOR with all
\ ones (-1), the Forth way to say `not`. ABS does not branch: a flag is a
\ mask of all ones or none, so `x s XOR s -` negates x exactly when s is
\ true, and LLVM's optimiser sees the select in it. MIN and MAX could be
\ written the same way (`2DUP < >R TUCK XOR R> AND XOR`: `b (a b XOR) f AND
\ XOR` is a when the flag f is true, b when it is false) and compile to the
\ same code after optimisation, but eight words each cost a line typed at
\ the prompt 0.2 ms more to compile than one primitive, so they stay
\ primitives.

: 1+       ( n -- n+1 )  1 + ;
\ Add one.
\ e.g. 5 1+ . \ 6

: 1-       ( n -- n-1 )  1 - ;
\ Subtract one.
\ e.g. 5 1- . \ 4

: 2*       ( x -- x*2 )  1 LSHIFT ;
\ Shift left by one bit.
\ e.g. 5 2* . \ 10

: INVERT   ( x -- ~x )  -1 XOR ;
\ Invert all bits.
\ e.g. 0 INVERT . \ -1

: NEGATE   ( n -- -n )  0 SWAP - ;
\ Negate.
\ e.g. 5 NEGATE . \ -5

: ABS      ( n -- u )  DUP 0< TUCK XOR SWAP - ;
\ Absolute value.
\ e.g. -5 ABS . \ 5

\ ---- Division ---------------------------------------------------------------------
\
\ Division floors, as gforth's does (the standard lets a Forth choose: floored
\ or symmetric; SM/REM gives the symmetric one, which C and the GPU's own
\ instructions compute). /MOD and */MOD are the primitives, so the quotient
\ and the remainder come from one division, and */ keeps the double-width
\ product of n1*n2 before it divides.

: /        ( n1 n2 -- n3 )  /MOD NIP ;
\ Divide, floored: the quotient rounded toward negative infinity (as gforth).
\ e.g. -7 2 / . \ -4

: MOD      ( n1 n2 -- n3 )  /MOD DROP ;
\ Remainder of floored division: it has the divisor's sign (as gforth).
\ e.g. -7 2 MOD . \ 1

: */       ( n1 n2 n3 -- n4 )  */MOD NIP ;
\ n1*n2/n3 with a double-width product; floored.
\ e.g. 1000000 3 7 */ . \ 428571

: S>D      ( n -- d )  DUP 0< ;
\ Sign-extend a cell to a double-cell number.
\ e.g. -1 S>D . . \ -1 -1

\ ---- Output -------------------------------------------------------------------------
\
\ Every thread prints into one output buffer; the host groups the threads
\ that printed the same text. A new line is just the character 10.

: CR       ( -- )  10 EMIT ;
\ Start a new output line.
\ e.g. 1 . CR 2 . \ 1 2

\ ---- Threads --------------------------------------------------------------------------
\
\ A line runs on every thread of the launch (GRID x THREADS). The primitives
\ give each thread its coordinates (TID-X BID-X BDIM-X ...); a thread's
\ place in the whole grid along x is computed from them, as in CUDA's
\ blockIdx.x * blockDim.x + threadIdx.x. Threads are numbered into warps
\ of 32 by their linear index in the block, x fastest, then y, then z; it
\ takes two words because a word of more than eight nodes would be called
\ instead of inlined.

: GLOBAL-ID ( -- n )  BID-X BDIM-X * TID-X + ;
\ This thread's index along x in the grid.
\ e.g. 2 1 1 GRID 64 1 1 THREADS  BID-X 1 = TID-X 3 = AND IF GLOBAL-ID . THEN \ [b1 t3] 67

: THREAD-ROW ( -- n )  TID-Z BDIM-Y * TID-Y + ;
\ The index of this thread's row of x threads in its block (TID-Z*BDIM-Y + TID-Y).
\ e.g. THREAD-ROW . \ 0

: THREAD-ID ( -- n )  THREAD-ROW BDIM-X * TID-X + ;
\ This thread's linear index in its block (x fastest), which sets its warp and lane.
\ e.g. 8 4 1 THREADS  TID-X 3 = TID-Y 2 = AND IF THREAD-ID . THEN \ [thread 19] 19

: LANE-ID  ( -- n )  THREAD-ID 31 AND ;
\ This thread's lane in its warp (0..31).
\ e.g. 64 1 1 THREADS  TID-X 40 = IF LANE-ID . THEN \ [thread 40] 8

: WARP-ID  ( -- n )  THREAD-ID 5 RSHIFT ;
\ This thread's warp in its block.
\ e.g. WARP-ID . \ 0

\ ---- Addresses ------------------------------------------------------------------------
\
\ Addresses are byte addresses; a cell is 8 bytes and a character one, and
\ a cell access needs an address aligned to 8. WITHIN compares through an
\ unsigned subtraction, so a range that wraps around works too. +! stays a
\ primitive: written in Forth, `DUP @ ROT + SWAP !`, it would check the
\ address (aligned, inside data space) twice, once for @ and once for !.

: CELLS    ( n -- n*8 )  8 * ;
\ The size in bytes of n cells.
\ e.g. 3 CELLS . \ 24

: CELL+    ( addr -- addr+8 )  8 + ;
\ Step an address by one cell.
\ e.g. 0 CELL+ . \ 8

: CHARS    ( n -- n ) ;
\ The size in bytes of n characters.
\ e.g. 3 CHARS . \ 3

: CHAR+    ( addr -- addr+1 )  1+ ;
\ Step an address by one character.
\ e.g. 0 CHAR+ . \ 1

: ALIGNED  ( addr -- a-addr )  7 + -8 AND ;
\ Round an address up to a cell boundary.
\ e.g. 9 ALIGNED . \ 16

: WITHIN   ( n lo hi -- flag )  OVER - >R - R> U< ;
\ True if lo <= n < hi (with wrap-around).
\ e.g. 5 1 10 WITHIN . \ -1

\ ---- Characters and strings ----------------------------------------------------------
\
\ A string is two cells, ( c-addr u ): the address of its first byte and
\ its length; a counted string ( c-addr ) keeps its length in the byte before
\ the text, which COUNT unpacks. S" and S\" (tileforth/core/session/words/strings.py) put a
\ literal's bytes in device memory when the line is read, so every word here
\ reads and writes strings with C@ and C! on the device, in each thread.
\ TYPE prints byte by byte with EMIT; the host decodes UTF-8 among the bytes.
\ MOVE picks the direction that is safe when the two regions overlap: CMOVE
\ copies from the low address up, CMOVE> from the high address down. The
\ standard FILL takes bytes; tileforth's array fill is AFILL.

: BL       ( -- char )  32 ;
\ The code of a blank (space).
\ e.g. BL . \ 32

: SPACE    ( -- )  BL EMIT ;
\ Print one space.
\ e.g. 1 . SPACE 2 . \ 1 2

: SPACES   ( n -- )  0 MAX 0 ?DO SPACE LOOP ;
\ Print n spaces (none when n <= 0).
\ e.g. 42 EMIT 3 SPACES 42 EMIT \ *   *

: EMIT-DECIMAL ( u -- )  1 BEGIN 2DUP 10 * SWAP > 0= WHILE 10 * REPEAT
  BEGIN DUP WHILE 2DUP / 48 + EMIT TUCK MOD SWAP 10 / REPEAT 2DROP ;
\ Print u in decimal, whatever BASE is, with no space after it (the numbers of a terminal's control sequences).
\ e.g. 255 16 BASE ! EMIT-DECIMAL DECIMAL \ 255

: PAGE     ( -- )  27 EMIT 91 EMIT 50 EMIT 74 EMIT  27 EMIT 91 EMIT 49 EMIT 59 EMIT 49 EMIT 72 EMIT ;
\ Clear the terminal and put the cursor at its top left: the ANSI sequences gforth prints, ESC[2J ESC[1;1H (as output, so a launch's PAGE lands where its output does).
\ e.g. : fresh-screen ( -- ) PAGE ." ready" ;  DEPTH . \ 0

: AT-XY    ( u1 u2 -- )  27 EMIT 91 EMIT 1+ EMIT-DECIMAL 59 EMIT 1+ EMIT-DECIMAL 72 EMIT ;
\ Put the cursor at column u1, row u2 (0 0: the top left): the ANSI sequence gforth prints, ESC[row+1;col+1H.
\ e.g. : at-origin ( -- ) 0 0 AT-XY ;  DEPTH . \ 0

: TYPE     ( c-addr u -- )  0 MAX 0 ?DO DUP C@ EMIT CHAR+ LOOP DROP ;
\ Print the u characters at c-addr (with EMIT, so each thread prints its own; none when u < 0, as gforth).
\ e.g. S" hello" TYPE \ hello

: COUNT    ( c-addr1 -- c-addr2 u )  DUP CHAR+ SWAP C@ ;
\ The text and length of a counted string (its first byte is the length).
\ e.g. : hi C" hi!" COUNT TYPE ; hi \ hi!

: /STRING  ( c-addr1 u1 n -- c-addr2 u2 )  ROT OVER + -ROT - ;
\ Drop the first n characters of a string.
\ e.g. S" abcdef" 2 /STRING TYPE \ cdef

: CMOVE    ( c-addr1 c-addr2 u -- )  0 ?DO OVER C@ OVER C! CHAR+ SWAP CHAR+ SWAP LOOP 2DROP ;
\ Copy u bytes from c-addr1 to c-addr2, lowest address first.
\ e.g. CREATE b 8 ALLOT  S" abc" b SWAP CMOVE  b 3 TYPE \ abc

: CMOVE>   ( c-addr1 c-addr2 u -- )  BEGIN DUP WHILE 1- >R OVER R@ + C@ OVER R@ + C! R> REPEAT DROP 2DROP ;
\ Copy u bytes from c-addr1 to c-addr2, highest address first.
\ e.g. CREATE b 8 ALLOT  S" abc" b SWAP CMOVE>  b 3 TYPE \ abc

: MOVE     ( addr1 addr2 u -- )  >R 2DUP U< IF R> CMOVE> ELSE R> CMOVE THEN ;
\ Copy u bytes from addr1 to addr2, correct when the regions overlap.
\ e.g. 1 1 1 THREADS  CREATE b 8 ALLOT  S" abcd" b SWAP MOVE  b b 1+ 3 MOVE  b 4 TYPE \ aabc

: FILL     ( c-addr u char -- )  SWAP 0 ?DO 2DUP SWAP I + C! LOOP 2DROP ;
\ Store char in each of the u bytes at c-addr (the standard FILL; arrays: AFILL).
\ e.g. CREATE b 8 ALLOT  b 3 42 FILL  b 3 TYPE \ ***

: ERASE    ( addr u -- )  0 FILL ;
\ Set u bytes at addr to 0.
\ e.g. CREATE b 8 ALLOT  b 8 ERASE  b C@ . \ 0

: BLANK    ( c-addr u -- )  BL FILL ;
\ Set u bytes at c-addr to blanks.
\ e.g. CREATE b 8 ALLOT  b 3 BLANK  b C@ . \ 32

: -TRAILING ( c-addr u1 -- c-addr u2 )  BEGIN DUP IF 2DUP + 1- C@ BL = ELSE FALSE THEN WHILE 1- REPEAT ;
\ Drop the blanks at the end of a string.
\ e.g. S" ab   " -TRAILING . DROP \ 2

: COMPARE  ( c-addr1 u1 c-addr2 u2 -- n )
  { a1 u1 a2 u2 }  u1 u2 MIN 0 ?DO
    a1 I + C@ a2 I + C@ 2DUP <> IF < 2* 1+ UNLOOP EXIT THEN 2DROP
  LOOP  u1 u2 U< u1 u2 U> - ;
\ Compare two strings byte by byte: 0 if equal, -1 if the first sorts before the second (a byte smaller, or a prefix), 1 if after.
\ e.g. S" abc" S" abd" COMPARE . \ -1

: SEARCH   ( c-addr1 u1 c-addr2 u2 -- c-addr3 u3 flag )
  { a1 u1 a2 u2 }  u1 u2 - 1+ 0 MAX 0 ?DO
    a1 I + u2 a2 u2 COMPARE 0= IF a1 I + u1 I - TRUE UNLOOP EXIT THEN
  LOOP  a1 u1 FALSE ;
\ Find string 2 in string 1: true and the rest of string 1 from the match, or string 1 and false.
\ e.g. S" hello world" S" wor" SEARCH . TYPE \ -1 world

\ ---- Pictured numeric output --------------------------------------------------------
\
\ <# starts a number's text, # adds its lowest digit (in BASE) and #S the
\ rest, HOLD and HOLDS add characters, SIGN a minus sign; the text grows to
\ the left (# holds the lowest digit first), and #> leaves it as a string.
\ The number is an unsigned double ( ud: low cell, high cell on top; a
\ number typed with a dot, 12345., is one, and a cell u is `u 0`). Each # is
\ two cell-sized UM/MODs by BASE, the high cell's and then the low cell's
\ with the first remainder above it, which is below BASE, so each quotient
\ fits a cell and every double prints, up to 2^128-1. The text is built
\ in one 256-byte area per session, which HLD points into: all threads
\ share it, which is right on the emulator (threads run one at a time
\ between BARRIERs) but would race on a GPU, where `.` and `.R` print a
\ number from each thread's own record instead.

: <#       ( -- )  HLD DUP ! ;
\ Start pictured numeric output (an empty text in the hold area; shared by all threads, see HLD).
\ e.g. 42 0 <# #S #> TYPE \ 42

: HOLD     ( char -- )  HLD @ 1- DUP HLD ! C! ;
\ Add a character to the front of the pictured text.
\ e.g. 1 1 1 THREADS  5 0 <# # 36 HOLD #> TYPE \ $5

: HOLDS    ( c-addr u -- )  BEGIN DUP WHILE 1- 2DUP + C@ HOLD REPEAT 2DROP ;
\ Add a string to the front of the pictured text.
\ e.g. 5 0 <# # S" x=" HOLDS #> TYPE \ x=5

: #        ( ud1 -- ud2 )  0 BASE @ UM/MOD >R BASE @ UM/MOD SWAP DUP 9 > 7 AND + 48 + HOLD R> ;
\ Divide ud1 by BASE: hold the remainder's digit (0-9, then A-Z), leave the quotient.
\ e.g. 123 0 <# # # #> TYPE \ 23

: #S       ( ud -- 0 0 )  BEGIN # 2DUP OR 0= UNTIL ;
\ Hold every digit of ud (at least one).
\ e.g. 12345. <# #S #> TYPE \ 12345

: #>       ( xd -- c-addr u )  2DROP HLD @ HLD OVER - ;
\ End pictured output: drop the number, leave the text (valid until the next <#).
\ e.g. 255 0 HEX <# #S #> DECIMAL TYPE \ FF

: SIGN     ( n -- )  0< IF 45 HOLD THEN ;
\ Hold a minus sign if n is negative.
\ e.g. -12 DUP ABS 0 <# #S ROT SIGN #> TYPE \ -12

: ?        ( addr -- )  @ . ;
\ Print the cell at addr.
\ e.g. VARIABLE v 7 v ! v ? \ 7

\ ---- Number conversion ---------------------------------------------------------------
\
\ The text interpreter reads numbers on the host; >NUMBER is the same
\ conversion for Forth code, digit by digit in BASE into a double-cell
\ accumulator (UD* multiplies a double by a cell with two UM*s).

: DIGIT?   ( char -- u true | false )
  DUP 48 58 WITHIN IF 48 - ELSE  DUP 65 91 WITHIN IF 55 - ELSE
  DUP 97 123 WITHIN IF 87 - ELSE  DROP 99  THEN THEN THEN
  DUP BASE @ < IF -1 ELSE DROP 0 THEN ;
\ The value of char as a digit in BASE (0-9, then A-Z or a-z) and true, or false.
\ e.g. 55 DIGIT? . . \ -1 7

: UD*      ( ud1 u -- ud2 )  DUP >R * SWAP R> UM* ROT + ;
\ Multiply a double by a cell (the product's high bits beyond two cells are lost).
\ e.g. 5. 3 UD* . . \ 0 15

: >NUMBER  ( ud1 c-addr1 u1 -- ud2 c-addr2 u2 )
  BEGIN DUP WHILE
    OVER C@ DIGIT? 0= IF EXIT THEN
    >R 2SWAP BASE @ UD* R> M+ 2SWAP 1 /STRING
  REPEAT ;
\ Add the digits at c-addr1 to ud1 (ud1 * BASE + digit, each) up to the first non-digit; leave what is left.
\ e.g. 0. S" 123x" >NUMBER . DROP . . \ 1 0 123

\ ---- Double-cell output ------------------------------------------------------------

: D.R      ( d width -- )  >R TUCK DABS <# #S ROT SIGN #> R> OVER - SPACES TYPE ;
\ Print d right-aligned in a field of width characters (pictured output: see HLD on the GPU).
\ e.g. -12. 6 D.R \    -12

: D.       ( d -- )  0 D.R SPACE ;
\ Print d, then a space.
\ e.g. -12. D. \ -12

: 2ROT     ( x1 x2 x3 x4 x5 x6 -- x3 x4 x5 x6 x1 x2 )  5 ROLL 5 ROLL ;
\ Rotate the third pair to the top.
\ e.g. 1 2 3 4 5 6 2ROT . . \ 2 1

\ ---- Structures ----------------------------------------------------------------------
\
\ Forth-2012's structures (FACILITY-EXT) are defining words written with
\ CREATE and DOES>: a structure's name pushes its size, a field's name adds
\ its offset to an address. They run on the host when they define, and the
\ words they define run on the device.

: BEGIN-STRUCTURE ( "name" -- addr 0 )  CREATE HERE 0 0 , DOES> @ ;
\ Start a structure: name will push its size (fields follow, END-STRUCTURE ends it).
\ e.g. BEGIN-STRUCTURE pt FIELD: pt.x FIELD: pt.y END-STRUCTURE pt . \ 16

: END-STRUCTURE ( addr n -- )  SWAP ! ;
\ End a structure: its size is n.
\ e.g. BEGIN-STRUCTURE empty END-STRUCTURE empty . \ 0

: +FIELD   ( n1 n2 "name" -- n3 )  CREATE OVER , + DOES> @ + ;
\ A field of n2 bytes at offset n1: name adds n1 to an address.
\ e.g. 0 4 +FIELD f1 8 +FIELD f2 . 100 f2 . \ 12 104

: FIELD:   ( n1 "name" -- n2 )  ALIGNED 1 CELLS +FIELD ;
\ A cell field (aligned).
\ e.g. 1 FIELD: c1 . 0 c1 . \ 16 8

: CFIELD:  ( n1 "name" -- n2 )  1 CHARS +FIELD ;
\ A character field.
\ e.g. 0 CFIELD: ch . \ 1

: FFIELD:  ( n1 "name" -- n2 )  FALIGNED 1 FLOATS +FIELD ;
\ A float field (aligned).
\ e.g. 1 FFIELD: fl . \ 8

: SFFIELD: ( n1 "name" -- n2 )  SFALIGNED 1 SFLOATS +FIELD ;
\ An f32 field (aligned).
\ e.g. 1 SFFIELD: sf . \ 8

: DFFIELD: ( n1 "name" -- n2 )  DFALIGNED 1 DFLOATS +FIELD ;
\ An f64 field (aligned).
\ e.g. 1 DFFIELD: df . \ 16

\ ---- gforth's common words -----------------------------------------------------------
\
\ Words beyond the standard that gforth has and real programs use.

: CELL     ( -- 8 )  8 ;
\ The size of a cell in bytes (gforth's; 1 CELLS).
\ e.g. CELL . \ 8

: FLOAT    ( -- u )  1 FLOATS ;
\ The size of a float in bytes, as gforth's FLOAT (1 FLOATS: 4 for f32, 8 in the f64 mode).
\ e.g. FLOAT 1 FLOATS = . \ -1

: NOOP     ( -- )  ;
\ Do nothing (gforth's; a token for a vector that does nothing).
\ e.g. 1 NOOP . \ 1

: BOUNDS   ( addr u -- addr+u addr )  OVER + SWAP ;
\ The limits of a region for ?DO: its end and its start (gforth's).
\ e.g. 100 10 BOUNDS . . \ 100 110

: STR=     ( c-addr1 u1 c-addr2 u2 -- flag )  COMPARE 0= ;
\ True if the two strings are equal (gforth's).
\ e.g. S" abc" S" abc" STR= . \ -1

: D<>      ( xd1 xd2 -- flag )  D= 0= ;
\ True if the double-cell numbers differ (gforth's).
\ e.g. 1 0 2 0 D<> . \ -1

: D>       ( d1 d2 -- flag )  2SWAP D< ;
\ True if d1 is greater than d2, signed (gforth's).
\ e.g. 2 0 1 0 D> . \ -1

: PI       ( F: -- r )  3.14159265358979e ;
\ The float nearest to pi (gforth's).
\ e.g. PI F. \ 3.1415927

: F2*      ( F: r -- r*2 )  2e F* ;
\ Multiply r by 2 (gforth's).
\ e.g. 1.25e F2* F. \ 2.5

: F2/      ( F: r -- r/2 )  0.5e F* ;
\ Divide r by 2 (gforth's).
\ e.g. 5e F2/ F. \ 2.5

: NEWLINE  ( -- c-addr u )  S\" \n" ;
\ The string that ends a line on this system, a line feed (gforth's).
\ e.g. NEWLINE NIP . \ 1

: CSTRING>SSTRING  ( c-addr -- c-addr u )  DUP BEGIN DUP C@ WHILE CHAR+ REPEAT OVER - ;
\ The string of a zero-ended C string, without the zero (gforth's; ARGV holds such strings).
\ e.g. CREATE z 104 C, 105 C, 0 C,  z CSTRING>SSTRING TYPE \ hi

\ ---- Shared tiles and asynchronous copies -------------------------------------------------
\
\ A SMEM-TILE is a ring of stages in shared memory; CP.ASYNC copies 16 bytes
\ per thread into it asynchronously (docs/tiles.md, "Staging tiles with
\ cp.async"). In a tile of rows of 128 bytes swizzled (SMEM-TILE-SWZ) the 16
\ byte chunk c of row r lives at chunk c XOR (r mod 8), so that the 8 rows
\ a column of chunks crosses fall in 8 different banks. SWIZZLE128 is the one
\ definition of that layout: STAGE-TILE, the GPU and the emulator all use it.

: SWIZZLE128 ( row chunk -- offset )  OVER 7 AND XOR 4 LSHIFT SWAP 7 LSHIFT + ;
\ The byte offset in a 128-byte-swizzled tile of 16-byte chunk `chunk` of row `row`: row*128 + (chunk XOR (row mod 8))*16.
\ e.g. 3 1 SWIZZLE128 . \ 416

: BLOCK-THREADS ( -- n )  BDIM-X BDIM-Y * BDIM-Z * ;
\ The number of threads in a block.
\ e.g. 64 2 1 THREADS BLOCK-THREADS TID-X TID-Y + 0= IF . THEN \ [thread 0] 128

: STAGE-ADDRS ( gaddr gstride saddr geom i -- gsrc sdst )
  { g s a geom i }  i geom 16 RSHIFT 65535 AND /MOD  DUP s * g +  2 PICK 4 LSHIFT +  -ROT
  geom 32 RSHIFT IF SWAP SWIZZLE128 ELSE geom 16 RSHIFT 65535 AND * + 4 LSHIFT THEN  a + ;
\ The global source and the shared destination of 16-byte chunk i (row-major: row i / chunks, chunk i mod chunks) of a tile of shape geom (a SMEM-TILE's name-GEOM) staged from the rows at gaddr, gstride bytes apart, into the stage at saddr (swizzled if the tile is).
\ e.g. 8 64 BF16 1 SMEM-TILE t  1000 256 0 t-GEOM 9 STAGE-ADDRS . . \ 144 1272

: STAGE-CHUNK ( gaddr gstride saddr geom i -- )  STAGE-ADDRS CP.ASYNC ;
\ Start the CP.ASYNC of 16-byte chunk i (row-major: row i / chunks, chunk i mod chunks) of a tile of shape geom (a SMEM-TILE's name-GEOM) from the rows at gaddr, gstride bytes apart, into the stage at saddr (swizzled if the tile is).
\ e.g. 32 1 1 THREADS 8 64 BF16 1 SMEM-TILE t  8 64 BF16 MATRIX m  RAMP m  TID-X 0= IF m 128 0 t t-GEOM 9 STAGE-CHUNK THEN CP.COMMIT 0 CP.WAIT TID-X 0= IF 0 t 144 + BF@ F. THEN \ [thread 0] 72.

: STAGE-BYTES ( rows bytes geom i -- n )
  { rows bytes geom i }  i geom 16 RSHIFT 65535 AND /MOD  rows < IF 4 LSHIFT bytes SWAP - 0 MAX 16 MIN ELSE DROP 0 THEN ;
\ The bytes chunk i of a tile of shape geom reads when only the first rows rows and the first bytes bytes of each row are inside the matrix (0 to 16; the rest of the chunk is zeros).
\ e.g. 8 64 BF16 1 SMEM-TILE t  3 40 t-GEOM 2 STAGE-BYTES .  3 40 t-GEOM 3 STAGE-BYTES .  3 40 t-GEOM 24 STAGE-BYTES . \ 8 0 0

: STAGE-TILE-N ( gaddr gstride saddr geom rows bytes -- )
  { g s a geom rows bytes }  geom 65535 AND  geom 16 RSHIFT 65535 AND *  DUP THREAD-ID MIN ?DO
    g s a geom I STAGE-ADDRS  rows bytes geom I STAGE-BYTES  CP.ASYNC-N
  BLOCK-THREADS +LOOP ;
\ STAGE-TILE at the edge of a matrix: of the tile's rows only the first rows, of each row only its first bytes bytes are read (CP.ASYNC-N); the rest of the stage is zeros. Chunks outside read nothing.
\ e.g. 64 1 1 THREADS 8 64 BF16 1 SMEM-TILE t  8 64 BF16 MATRIX m  RAMP m  m 128 0 t t-GEOM 2 20 STAGE-TILE-N CP.COMMIT 0 CP.WAIT BARRIER  TID-X 0= IF 0 t 130 + BF@ F. 0 t 148 + BF@ F. 0 t 256 + BF@ F. THEN \ [thread 0] 65. 0. 0.

: STAGE-TILE ( gaddr gstride saddr geom -- )
  { g s a geom }  geom 65535 AND  geom 16 RSHIFT 65535 AND *  DUP THREAD-ID MIN ?DO  \ (a thread past the chunks: none)
    g s a geom I STAGE-CHUNK
  BLOCK-THREADS +LOOP ;
\ Every thread of the block starts its share of the 16-byte CP.ASYNC copies that fill a stage (saddr, e.g. `0 As`) of a SMEM-TILE whose name-GEOM is geom from the rows at gaddr, gstride bytes apart; it does not commit them (CP.COMMIT).
\ e.g. 64 1 1 THREADS 8 64 BF16 1 SMEM-TILE t  8 64 BF16 MATRIX m  RAMP m  m 128 0 t t-GEOM STAGE-TILE CP.COMMIT 0 CP.WAIT BARRIER  TID-X 0= IF 0 t 2 + BF@ F. THEN \ [thread 0] 1.
