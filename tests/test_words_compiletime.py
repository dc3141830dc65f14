"""Compile-time words, execution tokens, defining words and CASE (issue 11,
items 2-4 and 7), and the wrong results issue 11 lists, each against gforth.

Each program runs whole in a fresh one-thread tileforth session (as one
eval: definitions may span lines) and in gforth; both must print the same
and leave the same stack."""
from __future__ import annotations

import gforth
import numpy as np
import pytest
from forthtest import ONE_THREAD
from tileforth.core import Forth, ForthError

gforth_only = pytest.mark.skipif(not gforth.available(), reason="gforth is not installed")


def fresh(shape: str = ONE_THREAD) -> Forth:
    f = Forth(backend="cpu")
    f.eval(shape)
    return f


def same_as_gforth(program: str) -> str:
    ref = gforth.run(program)
    f = fresh()
    out = f.eval(program)
    assert (out, f.data_stack()) == (ref.output, ref.stack), (
        f"{program!r}\ntileforth {out!r} {f.data_stack()}\ngforth    {ref.output!r} {ref.stack}")
    return out


PROGRAMS = {
    # compile-time execution
    "bracket-literal": ": f [ 2 3 + ] LITERAL ; f .",
    "literal-twice": ": f [ 6 7 * ] LITERAL [ 1 ] LITERAL + ; f .",
    "immediate-word-at-the-prompt": ": five 5 ; IMMEDIATE  five .",
    "immediate-compiles-a-literal": ": lit7 7 POSTPONE LITERAL ; IMMEDIATE  : u lit7 lit7 + ; u .",
    "postpone-immediate": ": my-if POSTPONE IF ; IMMEDIATE : mi my-if 1 ELSE 2 THEN ; 0 mi . 5 mi .",
    "postpone-normal-word": ": dup, POSTPONE DUP ; IMMEDIATE  : sq dup, * ; 7 sq .",
    "postpone-then": ": endif POSTPONE THEN ; IMMEDIATE : t 0< IF -1 ELSE 1 endif ; -3 t . 4 t .",
    "state": "STATE @ . : st STATE @ ; IMMEDIATE : st2 st LITERAL ; st2 .",
    "state-in-brackets": ": f [ STATE @ ] LITERAL ; f .",
    "compile-comma": ": twice, DUP COMPILE, COMPILE, ; : dbl [ ' 2* twice, ] ; 3 dbl .",
    # execution tokens
    "tick-execute": "' DUP 1 SWAP EXECUTE . .",
    "bracket-tick": ": g ['] DUP ; 3 g EXECUTE . .",
    "execute-colon": ": ex 3 0 DO I . LOOP ; ' ex EXECUTE",
    "execute-in-definition": ": sq DUP * ; : ap ( n xt -- ) EXECUTE ; 9 ' sq ap .",
    "xt-table": ": a 10 ; : b 20 ; : c 30 ; CREATE tab ' a , ' b , ' c , "
                ": run CELLS tab + @ EXECUTE ; 2 run . 0 run . 1 run .",
    "execute-recursive-through-xt": "DEFER r : down DUP 0> IF DUP . 1- r THEN ; ' down IS r 4 down DROP",
    "noname": ":NONAME 2 * ; 21 SWAP EXECUTE .",
    "noname-twice": ":NONAME 1+ ; :NONAME 2* ; 5 SWAP EXECUTE SWAP EXECUTE .",
    "to-body": "CREATE q 7 , ' q >BODY @ .",
    "find": "CREATE nm 3 C, CHAR D C, CHAR U C, CHAR P C,  nm FIND NIP .  "
            "CREATE nx 3 C, CHAR Z C, CHAR Z C, CHAR Z C,  nx FIND NIP .",
    "find-immediate": ": imm 1 ; IMMEDIATE CREATE ni 3 C, CHAR I C, CHAR M C, CHAR M C, ni FIND NIP .",
    # defining words
    "does-constant": ": const CREATE , DOES> @ ;  7 const seven  seven .  seven seven + .",
    "does-array": ": arr CREATE CELLS ALLOT DOES> SWAP CELLS + ;  4 arr a  5 2 a !  9 3 a !  2 a @ 3 a @ + .",
    "does-two-children": ": k CREATE , DOES> @ 2* ; 3 k x 4 k y x y + .",
    "does-body": ": k CREATE , DOES> @ ; 5 k z ' z >BODY @ .",
    "create-in-definition": ": table CREATE 0 DO I , LOOP ;  5 table t  t 3 CELLS + @ .",
    "constant-in-definition": ": mk CONSTANT ; 42 mk answer answer .",
    "variable-in-definition": ": mkv VARIABLE ; mkv vv 7 vv ! vv @ .",
    "value-to": "5 VALUE v  v .  7 TO v  v .",
    "value-to-in-definition": "5 VALUE v : setv TO v ; 11 setv v .",
    "defer-is": "DEFER act  ' DUP IS act  4 act . .",
    "defer-in-definition": "DEFER act : setact IS act ; ' 1+ setact 4 act .",
    "action-of": "DEFER act  ' DUP IS act  ACTION-OF act ' DUP = .",
    "defer-fetch-store": "DEFER a ' 1+ ' a DEFER!  ' a DEFER@ ' 1+ = .  5 a .",
    # CASE
    "case": ": cs CASE 1 OF 10 ENDOF 2 OF 20 ENDOF 0 SWAP ENDCASE ; 2 cs . 1 cs . 7 cs .",
    "case-default-sees-selector": ": cs CASE 1 OF 10 ENDOF DUP 100 + SWAP ENDCASE ; 5 cs . 1 cs .",
    "case-nested": ": cs CASE 1 OF CASE 2 OF 12 ENDOF 13 SWAP ENDCASE ENDOF 9 SWAP ENDCASE ; 1 2 cs . 1 3 cs . 4 5 cs .",
    "case-empty": ": cs CASE ENDCASE ; 3 cs DEPTH .",
    # more defining and compile-time words
    "2constant": "1 2 2CONSTANT two  two . .",
    "2variable": "2VARIABLE d  1 2 d 2!  d 2@ . .",
    "2literal": ": f [ 1 2 ] 2LITERAL ; f . .",
    "fliteral": ": g [ 2e FSQRT ] FLITERAL ; g F>S .",
    "fvariable": "FVARIABLE x  3e x F!  x F@ F>S .",
    "defined": "[DEFINED] DUP . [UNDEFINED] DUP . [DEFINED] no-such-word .",
    "marker": "MARKER undo : tmp 7 ; tmp . undo [DEFINED] tmp .",
    "unused-pad": "UNUSED 0> . PAD 0<> .",
    # exceptions
    "catch-nothing-thrown": ": t1 9 ; ' t1 CATCH . .",
    "catch-restores-depth": ": t2 1 2 3 -7 THROW ; 5 ' t2 CATCH . . DEPTH .",
    "catch-division-by-zero": ": t3 1 0 / ; ' t3 CATCH .",
    "catch-abort": "' ABORT CATCH .",
    "catch-in-definition": ": t2 1 2 3 -7 THROW ; : ct ['] t2 CATCH ; ct .",
    "throw-zero": "0 THROW 5 .",
    "catch-restores-depth-not-cells": ": T4 1- DUP 0> IF RECURSE ELSE 999 THROW -222 THEN ; "
                                      ": C4 3 4 5 10 ['] T4 CATCH -111 ; C4 . . . . . .",
    "catch-abort-quote": ': T10 77 SWAP ABORT" no" ; : C6 CATCH ; 4 5 \' T10 C6 . . . 3 0 \' T10 C6 . . .',
    "nested-catch": ": in -3 THROW ; : mid ['] in CATCH 100 + THROW ; ' mid CATCH .",
    # two WHILEs (Forth-2012 3.2.3.2: the control-flow stack)
    "two-whiles-else": ": GI5 BEGIN DUP 2 > WHILE DUP 5 < WHILE DUP 1+ REPEAT 123 ELSE 345 THEN ; "
                       "1 GI5 2 GI5 3 GI5 4 GI5 5 GI5",
    "two-whiles-then": ": g2 BEGIN DUP WHILE DUP 3 < WHILE 1+ REPEAT 100 + THEN ; 0 g2 . 1 g2 . 7 g2 .",
    "two-whiles-in-a-host-word": ": mk CREATE BEGIN DUP WHILE DUP 5 < WHILE DUP , 1+ REPEAT 9 , ELSE 8 , THEN DROP ; "
                                 "1 mk t5 t5 @ t5 CELL+ @ t5 2 CELLS + @ t5 3 CELLS + @ t5 4 CELLS + @ . . . . .",
    # locals after other code (gforth's { }; Forth-2012's {: :} below, gforth 0.7.3 lacks it)
    "locals-after-code": ": g 1 2 + { x } x 10 * x + ; g .",
    "locals-to": ": h2 5 { n } n 1+ TO n n ; h2 .",
    "locals-twice": ": two { a } a 1+ { b } a b * ; 4 two .",
    "locals-in-loop-body-use": ": s { n } 0 n 0 DO I + LOOP ; 5 s .",
    "locals-with-comment": ": mm { row col -- prod } row col * ; 6 7 mm .",
    # defining words that define colon definitions, POSTPONEd comments
    "colon-in-definition": ": NOP : POSTPONE ; ; NOP NOP1 NOP NOP2 NOP1 NOP2 DEPTH .",
    "postpone-backslash": ": \\? POSTPONE \\ ; IMMEDIATE  \\? 1 2 3\n4 .",
    "postpone-paren": ": (( POSTPONE ( ; IMMEDIATE  (( 1 2 ) 3 .",
    # >NUMBER
    "to-number": '0. S" 123x" >NUMBER . DROP . .  HEX 0. S" fF" >NUMBER . DROP . . DECIMAL',
    "to-number-empty": '7. S" " >NUMBER . DROP . .',
    # double output, 2ROT, SLITERAL, heap memory, SAVE-INPUT
    "d-dot": "-12. D. 5. D. 123456789012345678901234567890. D. -7. 6 D.R 99. 1 D.R",
    "2rot": "1 2 3 4 5 6 2ROT . . . . . .",
    "sliteral": ': f [ S" abc" ] SLITERAL ; f TYPE f NIP .',
    "allocate-free": "100 ALLOCATE . DUP 7 SWAP ! DUP @ . FREE .",
    "resize-keeps-contents": "8 ALLOCATE DROP 42 OVER ! 64 RESIZE . DUP @ . FREE .",
    "save-restore-input": 'VARIABLE SI_INC 0 SI_INC ! : SI1 SI_INC @ >IN +! 15 SI_INC ! ; '
                          ': S$ S" SAVE-INPUT SI1 RESTORE-INPUT 12345" ; S$ EVALUATE SI_INC @ . . .',
    # structures, AHEAD, name tokens
    "structures": "BEGIN-STRUCTURE pt FIELD: pt.x FIELD: pt.y END-STRUCTURE pt . 0 4 +FIELD f1 8 +FIELD f2 . "
                  "100 f2 . 1 FIELD: c1 . 0 c1 . 3 CFIELD: c2 .  CREATE p pt ALLOT 5 p pt.y ! p pt.y @ .",
    "ahead": ": f 1 AHEAD 2 THEN 3 ; f . .",
    # IMMEDIATE on any definition, several ELSEs, BEGIN .. REPEAT without WHILE, :NONAME after literals
    "immediate-constant": "123 CONSTANT IW1 IMMEDIATE : IW2 IW1 LITERAL ; IW2 .",
    "immediate-variable": "VARIABLE IW3 IMMEDIATE 234 IW3 ! : IW4 IW3 [ @ ] LITERAL ; IW4 .",
    "immediate-does": ": IW6 CREATE , IMMEDIATE DOES> @ 1+ ; 111 IW6 IW7 : IW8 IW7 LITERAL 1+ ; IW8 .",
    "many-elses": ": MELSE IF 1 ELSE 2 ELSE 3 ELSE 4 ELSE 5 THEN ; 0 MELSE . . -1 MELSE . . .",
    "repeat-without-while": ": UNS1 DUP 0 > IF 9 SWAP BEGIN 1+ DUP 3 > IF EXIT THEN REPEAT ; -6 UNS1 . 1 UNS1 . .",
    "noname-after-literals": "42 43 :NONAME { W X } X W ; EXECUTE . .",
    "locals-in-a-defining-word": ": LT23 { P Q } CREATE P Q 2* + , DOES> @ ; 45 46 LT23 LT24 LT24 .",
    "parse-name-to-end-of-line": ": S= COMPARE 0= ; : PNT PARSE-NAME PARSE-NAME S= ; PNT abcde abcde\n. PNT ab abc .",
    # word lists and the search order
    "wordlist-definitions": "WORDLIST CONSTANT W1 GET-ORDER W1 SWAP 1+ SET-ORDER DEFINITIONS : hi 42 ; hi . "
                            "PREVIOUS DEFINITIONS : hi 7 ; hi . GET-ORDER W1 SWAP 1+ SET-ORDER hi . ONLY FORTH hi .",
    "search-wordlist": 'WORDLIST CONSTANT W2 W2 SET-CURRENT : yo 5 ; FORTH-WORDLIST SET-CURRENT '
                       'S" YO" W2 SEARCH-WORDLIST . EXECUTE . S" YO" FORTH-WORDLIST SEARCH-WORDLIST .',
    # host-level words: loops, the return stack, EXIT and RECURSE walked on the host
    "host-plus-loop": ": t1 CREATE 10 0 DO I , 3 +LOOP ; t1 a  a @ a CELL+ @ a 2 CELLS + @ a 3 CELLS + @ . . . .",
    "host-minus-loop": ": t9 CREATE 0 5 DO I , -1 +LOOP ; t9 m  m @ m 5 CELLS + @ . .",
    "host-leave": ": t2 CREATE 10 0 DO I 5 = IF LEAVE THEN I , LOOP 99 , ; t2 b  b 4 CELLS + @ b 5 CELLS + @ . .",
    "host-nested-j": ": t3 CREATE 3 0 DO 2 0 DO J 10 * I + , LOOP LOOP ; t3 c  c 5 CELLS + @ c 2 CELLS + @ . .",
    "host-rstack": ": t4 CREATE 5 >R R@ , R> 1+ , ; t4 d  d @ d CELL+ @ . .",
    "host-until": ": t5 CREATE 0 BEGIN DUP , 1+ DUP 4 = UNTIL DROP ; t5 e  e 3 CELLS + @ .",
    "host-while": ": t6 CREATE 0 BEGIN DUP 3 < WHILE DUP , 1+ REPEAT DROP ; t6 g  g 2 CELLS + @ .",
    "host-recurse-exit": ": t7 DUP 0= IF DROP EXIT THEN DUP , 1- RECURSE ; CREATE h 3 t7  h @ h CELL+ @ h 2 CELLS + @ . . .",
    "host-unloop-exit": ": t8 CREATE 10 0 DO I 3 = IF I , UNLOOP EXIT THEN LOOP 77 , ; t8 k  k @ .",
    # wrong results of issue 11
    "i-after-unloop": ": T1 3 0 DO 10 5 DO I UNLOOP I UNLOOP EXIT LOOP LOOP ; T1 . .",
    "hex-compiled-under-hex": "HEX : H2 HEX ; DECIMAL H2 BASE @ DECIMAL .",
    "base-change-before-number": "DECIMAL : D{ DECIMAL ;\nHEX D{ 10 .",
    "base-change-through-a-call": "DECIMAL : D{ DECIMAL ; : D2 D{ ;\nHEX D2 10 .",
    "bracket-if-skips-word-by-word": "0 [IF] \\ x [ELSE] 2 [THEN] .",
    "rstack-taken-in-both-branches": ": T2 >R IF R> ELSE R> NEGATE THEN ; 1 5 T2 . 0 5 T2 .",
    "create-aligns": "1 C, CREATE 1ST 5 , 1ST @ .  1ST 7 AND .",
    # the return stack changed inside loops and branches (R> 1+ >R): the new value goes around the loop
    "rstack-in-while": ": t >R BEGIN R@ WHILE R@ R> 1- >R REPEAT R> DROP ; 5 t . . . . .",
    "rstack-in-until": ": t3 >R BEGIN R> 1- DUP >R 0= UNTIL R> ; 4 t3 .",
    "rstack-pushed-in-branches": ": t4 IF 1 >R ELSE 2 >R THEN R> ; 0 t4 . 1 t4 .",
    "rstack-changed-in-a-branch": ": t5 >R DUP IF R> 10 + >R THEN DROP R> ; 1 5 t5 . 0 5 t5 .",
    # CS-PICK and CS-ROLL in the two forms a tree of control structures can follow (toolstest.fth's PT5, PT6)
    "cs-pick-repeat": ": ?REPEAT 0 CS-PICK POSTPONE UNTIL ; IMMEDIATE VARIABLE PT4 "
                      ": PT5 PT4 ! BEGIN -1 PT4 +! PT4 @ 4 > 0= ?REPEAT 111 PT4 @ 3 > 0= ?REPEAT 222 "
                      "PT4 @ 2 > 0= ?REPEAT 333 PT4 @ 1 = UNTIL ; 6 PT5 .S",
    "cs-pick-in-again": ": ?REPEAT 0 CS-PICK POSTPONE UNTIL ; IMMEDIATE "
                        ": f 0 BEGIN 1+ DUP 2 MOD 0= ?REPEAT DUP . DUP 6 = IF EXIT THEN AGAIN ; f .",
    "brackets-inside-a-loop": ": t 3 0 DO [ HEX ] 10 [ DECIMAL ] . LOOP ; t  : t2 1 IF [ 2 3 + ] LITERAL . THEN ; t2",
    "char-reads-when-the-word-runs": ": c2 CHAR ; c2 Q . CHAR z .  : MARK CHAR EMIT ; MARK x  : c3 [CHAR] y ; c3 .",
    # other reorderings become jumps (toolstest.fth's PT7 and PT8, and more)
    "cs-roll-three-origs": ": MIX_UP 2 CS-ROLL ; IMMEDIATE "
                           ": PT7 IF 1111 ROT ROT IF 2222 SWAP IF 3333 MIX_UP THEN 4444 THEN 5555 THEN 6666 ; "
                           "-1 -1 -1 PT7 .S CLEARSTACK 0 -1 -1 PT7 .S CLEARSTACK 0 0 -1 PT7 .S CLEARSTACK "
                           "0 0 0 PT7 .S CLEARSTACK",
    "cs-roll-into-a-loop": ": [1CS-ROLL] 1 CS-ROLL ; IMMEDIATE "
                           ": PT8 >R AHEAD 111 BEGIN 222 [1CS-ROLL] THEN 333 R> 1- >R R@ 0< UNTIL R> DROP ; 1 PT8 .S",
    "cs-roll-else-and-while": ": [R] 1 CS-ROLL ; IMMEDIATE "
                              ": f 0 SWAP BEGIN DUP WHILE [R] [R] 1- SWAP 1+ SWAP REPEAT DROP ; 5 f .",
    "cs-roll-if-else": ": [R] 1 CS-ROLL ; IMMEDIATE "
                       ": g IF 1 SWAP DROP ELSE 2 SWAP IF 3 [R] THEN 4 THEN 5 ; 0 -1 g .S CLEARSTACK "
                       "-1 0 g .S CLEARSTACK 0 0 g .S",
    "cs-pick-a-deeper-dest": ": [P] 1 CS-PICK ; IMMEDIATE "
                             ": h 0 BEGIN 1+ DUP 3 < IF DUP 2 = [P] UNTIL 100 + THEN DUP 200 < UNTIL ; h .",
    "three-whiles": ": t BEGIN DUP 10 < WHILE DUP 2 MOD WHILE DUP 7 <> WHILE 2 + REPEAT 100 + THEN 1000 + THEN ; "
                    "1 t . 2 t . 11 t . 3 t .",
    "four-whiles-else": ": u BEGIN DUP WHILE DUP 5 < WHILE DUP 2 <> WHILE DUP 3 <> WHILE 1- REPEAT 30 ELSE 20 THEN "
                        "ELSE 10 THEN ELSE 0 THEN ; 4 u . . 1 u . . 9 u . . 0 u . .",
    "cs-roll-while": ": ?DONE POSTPONE IF 1 CS-ROLL ; IMMEDIATE "
                     ": PT6 >R BEGIN R@ ?DONE R@ R> 1- >R REPEAT R> DROP ; 5 PT6 .S",
}


@gforth_only
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_like_gforth(name):
    same_as_gforth(PROGRAMS[name])


def test_fconstant_of_nan_on_one_thread_and_on_many():
    for shape in (ONE_THREAD, "1 1 1 GRID 32 1 1 THREADS"):
        f = fresh(shape)
        assert f.eval("0E 0E F/ FCONSTANT NAN NAN F.") == "NaN "  # (the same output of every thread, once)
        assert f.float_stack() == []


def test_execute_runs_each_threads_own_token():
    f = fresh("1 1 1 GRID 32 1 1 THREADS")
    f.eval(": a 1 ; : b 2 ; CREATE tab ' a , ' b ,")
    f.eval("TID-X 2 MOD CELLS tab + @ EXECUTE")
    assert f.data_stack(lane=None) == [[1 + t % 2] for t in range(32)]
    f.eval("DROP : pick-one CELLS tab + @ EXECUTE ; TID-X 1 AND pick-one")
    assert f.data_stack(lane=None) == [[1 + t % 2] for t in range(32)]


def test_a_deferred_word_can_be_changed_after_its_callers_are_compiled():
    f = fresh()
    f.eval("DEFER op : apply 3 4 op ; ' + IS op")
    assert f.eval("apply .") == "7 "
    f.eval(": mul * ; ' mul IS op")  # a token made after apply was compiled
    assert f.eval("apply .") == "12 "


def test_errors_name_what_to_do():
    f = fresh()
    with pytest.raises(ForthError, match="not an execution token"):
        f.eval("12345 EXECUTE")
    with pytest.raises(ForthError, match="unset DEFER"):
        f.eval("DEFER nothing-yet nothing-yet")
    with pytest.raises(ForthError, match="CREATE needs a name"):  # at one thread it runs, as in gforth (F7)
        f.eval(": mk CREATE ; : call-it ['] mk EXECUTE ; call-it")
    with pytest.raises(ForthError, match="runs on the host .*only a one-thread launch"):
        fresh("1 1 1 GRID 32 1 1 THREADS").eval(": mk CREATE ; : call-it ['] mk EXECUTE ; call-it")
    with pytest.raises(ForthError, match="not made by\\s+CREATE"):
        f.eval(": bad VARIABLE DOES> @ ; : ok 1 ; bad x")
    with pytest.raises(ForthError, match="only inside a definition"):
        f.eval("5 LITERAL")
    with pytest.raises(ForthError, match="is not a VALUE"):
        f.eval(": w 1 ; 5 TO w")
    with pytest.raises(ForthError, match="is not defined"):
        f.eval("' no-such-word")
    with pytest.raises(ForthError, match="OF without CASE"):
        f.eval(": c 1 OF ENDOF ;")
    assert f.data_stack() == []


def test_a_failed_line_inside_a_definition_keeps_the_session():
    f = fresh()
    f.eval("1 2")
    with pytest.raises(ForthError):
        f.eval(": half [ 1 0 / ] LITERAL ;")
    assert f.data_stack() == [1, 2] and "HALF" not in f.dict and not f.compiling
    assert f.eval(": half [ 8 2 / ] LITERAL ; half .") == "4 "


def test_host_level_loops_are_bounded_by_the_step_budget():
    f = fresh()
    f.step_budget = 1000
    with pytest.raises(ForthError, match="looks infinite"):
        f.eval(": forever BEGIN 0 , AGAIN ; forever")
    assert f.data_stack() == []


def test_a_defining_word_with_a_host_loop_stores_from_the_host():
    """`: table CREATE 0 DO I , LOOP ;` compiles no kernel: it is walked on
    the host; device words in such a loop compile once, not once per index."""
    f = fresh()
    f.eval(": table CREATE 0 DO I , LOOP ;  : squares CREATE 0 DO I DUP * , LOOP ;")
    kernels = len(f.kcache)
    f.eval("100 table ints")
    assert len(f.kcache) == kernels
    f.eval("100 squares sq")
    assert len(f.kcache) <= kernels + 1
    for name, want in (("INTS", range(100)), ("SQ", [i * i for i in range(100)])):
        base = f.dict[name].value
        assert f.backend.read(base, 800).view(np.int64).tolist() == list(want)


def test_plus_to():  # Forth-2012 +TO (gforth 0.7.3 lacks it)
    f = fresh()
    assert f.eval("5 VALUE v  2 +TO v  v .  : up 10 +TO v ; up up v .") == "7 27 "


def test_execute_compiles_for_the_gpu():
    from tileforth.backends.cuda.ptx import ptxas, ptxas_path
    from tileforth.export.kernels import word_ptx
    if ptxas_path() is None:
        pytest.skip("ptxas (nvidia-cuda-nvcc wheel) not installed")
    from tileforth.export.kernels import segment_ptx
    f = fresh()
    f.eval(": sq DUP * ; : cube DUP DUP * * ; : k ( n -- m ) DUP 3 MOD 1 AND IF ['] sq ELSE ['] cube THEN EXECUTE ;")
    lines = []
    f.on_segment = lambda nodes, tiles: lines.append((nodes, tiles))
    assert f.eval("7 k . 8 k .") == "49 512 "
    for arch in ("sm_80", "sm_90"):
        ptx = segment_ptx(f, *lines[-1], arch)
        ptxas(ptx, arch)
    f.eval(": c7 CREATE , DOES> @ 7 + ; 5 c7 twelve : uses-does ( -- ) twelve DROP ;")
    for arch in ("sm_80", "sm_90"):
        ptxas(word_ptx(f, "uses-does", arch), arch)


def test_fvalue_and_synonym():  # Forth-2012 words gforth 0.7.3 lacks
    f = fresh()
    assert f.eval("1.5e FVALUE y  y F.  2.5e TO y  y F.") == "1.5 2.5 "
    assert f.eval("SYNONYM twice 2* 5 twice .") == "10 "


def test_uncaught_exceptions_say_what_they_mean():
    f = fresh()
    with pytest.raises(ForthError, match=r"uncaught exception -3 \(thread 0\): stack overflow") as info:
        f.eval("-3 THROW")
    assert info.value.code == -3 and info.value.pos.col == 4
    with pytest.raises(ForthError, match='no!') as info:
        f.eval(': f ABORT" no!" ; 0 f 1 f')
    assert info.value.code == -2
    f.step_budget = 1000
    with pytest.raises(ForthError, match="looks infinite"):  # a runaway loop is not the program's to catch
        f.eval(": spin BEGIN AGAIN ; ' spin CATCH")
    assert f.data_stack() == []


def test_forth_2012_locals():
    f = fresh()
    assert f.eval(": f {: a b :} a b - ; 5 3 f .") == "2 "
    assert f.eval(": g 1 2 + {: x | y :} x 10 * TO y y x + ; g .") == "33 "  # y starts at 0, TO sets it
    assert f.eval(": h 3 {: n :} 0 n 0 DO I + LOOP 5 +TO n n + ; h .") == "11 "
    assert f.eval(": mm 2 3 {: row col -- p :} row col * ; mm .") == "6 "
    assert f.eval(": z {: | u v :} u v + ; 9 z . .") == "0 9 "
    with pytest.raises(ForthError, match="outside IF, loops"):
        f.eval(": bad IF {: a :} THEN ;")
    with pytest.raises(ForthError, match="close the locals list"):
        f.eval(": bad2 {: a ")
    assert not f.compiling and f.data_stack() == []


def test_2value_substitute_and_dump():  # Forth-2012 words gforth 0.7.3 lacks (DUMP's layout is the system's)
    f = fresh()
    assert f.eval("1 2 2VALUE p  p . .  3 4 TO p  p . .") == "2 1 4 3 "
    assert f.eval('S" world" S" who" REPLACES S" hello %who% 100%% %x%" PAD 84 SUBSTITUTE . TYPE') == \
        "1 hello world 100% %x%"
    assert f.eval('S" a%b" PAD UNESCAPE TYPE') == "a%%b"
    assert f.eval('S" %who%%who%" PAD 5 SUBSTITUTE . . DROP') == "-78 0 "  # 10 bytes do not fit in 5
    out = f.eval('S" hi!" DUMP')
    assert out.endswith(": 68 69 21" + " " * 41 + "hi!\n")
    assert f.eval("5 FREE . 5 0 RESIZE . DROP") == "-60 -61 "


def test_traverse_wordlist_and_name_tokens():  # gforth 0.7.3 lacks TRAVERSE-WORDLIST
    f = fresh()
    f.eval(": zz 1 ; : yy 2 ;")
    assert f.eval(":NONAME NAME>STRING TYPE SPACE -1 ; VARIABLE n 0 n ! "
                  ":NONAME 1 n +! n @ 3 < ; FORTH-WORDLIST TRAVERSE-WORDLIST n @ .") == "3 "
    assert f.eval(":NONAME NAME>STRING TYPE 0 ; FORTH-WORDLIST TRAVERSE-WORDLIST") == "n"  # the newest word
    assert f.eval("' DUP NAME>STRING TYPE") == "DUP"
    assert f.eval("' zz NAME>INTERPRET EXECUTE .") == "1 "
    assert f.eval("' IF NAME>COMPILE ' EXECUTE = . DROP") == "-1 "  # an immediate word executes to compile
    with pytest.raises(ForthError, match="7 is not a word list"):
        f.eval("' zz 7 TRAVERSE-WORDLIST")


def test_paren_local():  # Forth-2012 13.6.1.0086, which gforth 0.7.3 spells differently
    f = fresh()
    f.eval(": LOCAL BL WORD COUNT (LOCAL) ; IMMEDIATE : END-LOCALS 99 0 (LOCAL) ; IMMEDIATE")
    assert f.eval(": LT32 LOCAL A LOCAL B LOCAL C END-LOCALS A B C ; 61 62 63 LT32 . . .") == "61 62 63 "


def test_the_search_order_starts_with_forth_only():  # gforth's starts with more word lists
    f = fresh()
    assert f.eval("GET-ORDER . . GET-CURRENT FORTH-WORDLIST = . ALSO GET-ORDER . 2DROP PREVIOUS GET-ORDER . DROP") \
        == "1 1 -1 2 1 "
    assert f.eval("ORDER") == "FORTH  (definitions go into FORTH)\n"
    f.eval("WORDLIST SET-CURRENT : only-there 1 ;")
    assert "ONLY-THERE" not in f.dict and f.lookup("ONLY-THERE") is None  # defined, but not searched


def test_marker_forgets_word_lists_and_tokens():
    f = fresh()
    f.eval("MARKER undo : keep 1 ;")
    xts, lists = len(f.tokens), len(f.wordlists)  # FORTH-WORDLIST, ROOT's and ENVIRONMENT-WORDLIST's
    f.eval("VOCABULARY v WORDLIST SET-CURRENT : hidden 2 ; FORTH-WORDLIST SET-CURRENT : tokme 4 ; ' tokme DROP")
    assert len(f.wordlists) == lists + 2 and len(f.tokens) == xts + 1
    f.eval("undo")
    assert len(f.wordlists) == lists and f.current == 1 and len(f.tokens) == xts
    assert f.eval("WORDLIST >ORDER ORDER PREVIOUS") == "wid4 FORTH  (definitions go into FORTH)\n"  # not v
    assert "KEEP" not in f.dict and "TOKME" not in f.dict
    assert f.eval(": again 3 ; again .") == "3 "


def test_a_host_level_word_is_not_a_kernel():
    f = fresh()
    f.eval(": mk CREATE ; : uses-mk 5 mk ;")
    for export in (lambda: f.ptx("uses-mk"), lambda: f.kernel("uses-mk")(), lambda: f.ptx("mk")):
        with pytest.raises(ForthError, match="runs on the host"):
            export()


def test_bye_and_clearstack():
    from tileforth.core.errors import Bye
    f = Forth(backend="cpu")  # 32 threads: CLEARSTACK empties every one
    assert f.eval("TID-X 1.5e CLEARSTACK DEPTH . FDEPTH .") == "0 0 "
    with pytest.raises(Bye) as info:
        f.eval(": done 1 2 + . BYE ; done 5 .")
    assert info.value.output == "3 "


def test_bye_in_a_script_ends_the_run(tmp_path):
    import subprocess
    import sys
    script = tmp_path / "bye.fth"
    script.write_text("1 2 + . BYE\n7 .\n")
    r = subprocess.run([sys.executable, "-m", "tileforth.repl.cli", str(script)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("3") and "7" not in r.stdout, (r.stdout, r.stderr)


def test_n_to_r_and_n_r_from():
    """N>R NR> (Forth-2012 15.6.2.1908, which gforth 0.7.3 lacks): the expected
    stacks are those of the Forth-2012 suite's toolstest.fth."""
    f = fresh()
    f.eval(": NTR N>R -1 NR> ;  : NTR2 N>R N>R -1 NR> -2 NR> ;")
    for program, expected in [("1 2 3 4 5 6 7 4 NTR", [1, 2, 3, -1, 4, 5, 6, 7, 4]), ("1 0 NTR", [1, -1, 0]),
                              ("1 2 2 3 4 5 3 NTR2", [-1, 1, 2, 2, -2, 3, 4, 5, 3]),
                              ("1 0 0 NTR2", [1, -1, 0, -2, 0])]:
        f.eval(program)
        assert f.data_stack() == expected, program
        f.eval("CLEARSTACK")
    # in a word walked on the host (CREATE makes it host-level) the host keeps them
    f.eval(": HNTR CREATE N>R 7 , NR> ; 1 2 2 HNTR hn hn @")
    assert f.data_stack() == [1, 2, 2, 7]
    f.eval("CLEARSTACK")
    with pytest.raises(ForthError, match="data stack underflow"):
        f.eval("1 5 NTR")
    with pytest.raises(ForthError, match="NR> needs what N>R put on the return stack"):
        f.eval(": bad 1 >R NR> ;")
    from tileforth.backends.cuda.ptx import ptxas, ptxas_path
    from tileforth.export.kernels import segment_ptx
    if ptxas_path() is not None:
        f.eval(": MIX_UP 2 CS-ROLL ; IMMEDIATE  : PT7 IF 1 IF 2 IF 3 MIX_UP THEN 4 THEN 5 THEN 6 ; "
               ": [1CS-ROLL] 1 CS-ROLL ; IMMEDIATE : PT8 >R AHEAD 111 BEGIN 222 [1CS-ROLL] THEN 333 R> 1- >R "
               "R@ 0< UNTIL R> DROP ;")
        lines = []
        f.on_segment = lambda nodes, tiles: lines.append((nodes, tiles))
        f.eval("0 0 0 PT7 1 PT8")
        f.eval("CLEARSTACK")
        for arch in ("sm_80", "sm_90"):  # CS-ROLL's jumps, in kernels ptxas accepts
            ptxas(segment_ptx(f, *lines[0], arch), arch)
        lines = []
        f.on_segment = lambda nodes, tiles: lines.append((nodes, tiles))
        f.eval("CLEARSTACK 1 2 2 3 4 5 3 NTR2")
        for arch in ("sm_80", "sm_90"):
            ptxas(segment_ptx(f, *lines[-1], arch), arch)


def test_execute_refuses_words_of_a_definitions_frame():
    """>R, R>, I ... work on the definition they are written in: EXECUTE of
    their tokens is an error that says so (and does not break EXECUTE of others)."""
    f = fresh()
    f.eval(": sq DUP * ; : run ( xt -- ) EXECUTE ;")
    with pytest.raises(ForthError, match=">R works on the return stack or the DO loops"):
        f.eval("5 ' >R run")
    f.eval("CLEARSTACK 7 ' sq run")
    assert f.data_stack() == [49]


def test_traverse_wordlist_sees_hidden_words():
    """Every word of the list, also those a later definition of the name hides
    (toolstest.fth's GET-ALL): each name newest first, then the words it hid."""
    f = fresh()
    f.eval("WORDLIST CONSTANT W  W SET-CURRENT : T3 3 ; : T3 33 ; : T7 7 ; : T3 333 ; FORTH-WORDLIST SET-CURRENT")
    out = f.eval(":NONAME NAME>INTERPRET EXECUTE . -1 ; W TRAVERSE-WORDLIST")
    assert out == "333 33 3 7 "


@pytest.mark.parametrize("src, says", [
    (": [P] 0 CS-PICK ; IMMEDIATE : f IF [P] THEN THEN ;", "would copy an orig"),
    (": ?R 0 CS-PICK POSTPONE AGAIN ; IMMEDIATE : f BEGIN ?R 1 UNTIL ;", "unreachable"),
    (": ?R 0 CS-PICK POSTPONE UNTIL ; IMMEDIATE : f BEGIN DUP ?R 1 WHILE REPEAT ;", "ends with UNTIL or AGAIN"),
    (": [R] 1 CS-ROLL ; IMMEDIATE : f 5 0 DO IF [R] LOOP THEN ;", "reaches past DO"),
    (": [R] 9 CS-ROLL ; IMMEDIATE : f IF [R] THEN ;", "holds 1 item"),
    (": [R] 1 CS-ROLL ; IMMEDIATE : f IF BEGIN [R] THEN CREATE 0 UNTIL ; 1 f", "jumps made by CS-ROLL"),
])
def test_cs_pick_and_cs_roll_say_what_they_cannot_do(src, says):
    """An orig picked twice, a roll past a DO loop, more items than there are,
    jumps in a word walked on the host: a clear error, and the session goes on."""
    f = fresh()
    with pytest.raises(ForthError, match=says):
        f.eval(src)
    assert f.eval("1 2 + .") == "3 "


def test_return_stack_items_from_outside_a_do_loop():
    """The standard hides them inside DO (gforth's loop control sits on top of
    them); tileforth keeps loop control apart, so R> 1+ >R counts around the loop."""
    f = fresh()
    assert f.eval(": t2 >R 3 0 DO R> 1+ >R LOOP R> ; 10 t2 .") == "13 "
    assert f.eval(": t6 >R 10 0 DO R> 1+ >R I 3 = IF LEAVE THEN LOOP R> ; 0 t6 .") == "4 "


def test_name_to_compile_executed_while_compiling():
    """toolstest.fth's N>C: NAME>COMPILE EXECUTE inside an IMMEDIATE word runs
    an immediate word now (its 6 goes to LITERAL) and compiles any other."""
    f = fresh()
    f.eval(": T6 6 ; IMMEDIATE : T2 2 ; : n>c ' NAME>COMPILE EXECUTE ; IMMEDIATE")
    assert f.eval(": c2 n>c T6 LITERAL ; c2 . : c3 n>c T2 ; c3 .") == "6 2 "
