: acker ( m n -- u )
	over 0= IF  nip 1+ EXIT  THEN
	swap 1- swap ( m-1 n -- )
	dup  0= IF  1+  recurse EXIT  THEN
	1- over 1+ swap recurse recurse ;

\ ---- driver added for the tileforth corpus (see SOURCES.md) ----
: table  4 0 DO  CR  6 0 DO  J I acker 5 .R  LOOP  LOOP CR ;  table
