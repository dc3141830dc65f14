"""gforth's words beyond the standard that real programs use, and
ENVIRONMENT?'s answers, compared with gforth 0.7.3 (issue 25, point 6 and F4).

Each word runs at one thread, as an ordinary Forth program does, and leaves
the stack (or prints the text) gforth does. Where the answer differs by nature
(a float is an f32 here, an f64 in gforth; the stacks have other sizes;
gforth's division floors), the test holds tileforth to the meaning instead:
`FLOAT` is `1 FLOATS`, STACK-CELLS cells fit on the data stack, and so on.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gforth
from forthtest import check, check_many, check_output, one_thread_session, raises

TTESTER = Path("/usr/share/gforth/0.7.3/test/ttester.fs")  # the standard's ttester, as gforth ships it


@pytest.fixture
def f():
    gforth.require()
    return one_thread_session("gforth-ext")


# ---- words of the prelude ---------------------------------------------------------------------
def test_cell_float_noop_bounds(f):
    check_many(f, ["CELL", "CELL 1 CELLS =", "FLOAT 1 FLOATS =", "1 NOOP 2", "' NOOP EXECUTE 3",
                   "100 10 BOUNDS", "-8 3 BOUNDS", "0 0 BOUNDS"])


def test_str_equals(f):
    check_many(f, ['S" abc" S" abc" STR=', 'S" abc" S" abd" STR=', 'S" ab" S" abc" STR=', 'S" abc" S" ab" STR=',
                   'S" " S" " STR=', 'S" a" S" A" STR='])


DOUBLES = ["0 0", "1 0", "-1 -1", "-1 0", "0 1", "0 -1", "5 0", "-5 -1", "0 9223372036854775807",
           "-1 -9223372036854775808"]


@pytest.mark.parametrize("word", ["D<>", "D>"])
def test_double_comparisons(f, word):
    check_many(f, [f"{a} {b} {word}" for a in DOUBLES for b in DOUBLES], chunk=16)


def test_pi(f):
    """gforth's PI is an f64; here it is the nearest float of the float stack's type."""
    check(f, "PI 3.1415927e F- FABS 1e-6 F< 3.1415e PI F< PI 3.1416e F<")


# ---- output ---------------------------------------------------------------------------------
def test_hex_dot(f):
    check_output(f, "255 HEX. -1 HEX. 0 HEX. 4096 HEX. -256 HEX. 10 .")


def test_hex_dot_leaves_base_and_works_in_a_definition(f):
    check_output(f, ": hx HEX. ; 255 hx 2 BASE ! 11111111 hx 101 . DECIMAL BASE @ .")


# ---- data space -------------------------------------------------------------------------------
def test_f_comma_stores_a_float_and_does_not_align(f):
    check_output(f, "FALIGN HERE 2.5e F, -0.75e F, DUP F@ F. FLOAT+ F@ F. "
                    "ALIGN 1 C, HERE 1e F, HERE SWAP - 1 FLOATS = .")


def test_counted_string_comma(f):
    check_output(f, 'CREATE s1 ," abc"  s1 COUNT TYPE  HERE s1 - .  CREATE s2 ," abcdefg"  HERE s2 - . '
                    'CREATE s3 ," "  s3 C@ .  HERE s3 - .')


def test_s_comma(f):
    check_output(f, 'CREATE t1  S" xyz" S,  t1 COUNT TYPE  HERE t1 - .  CREATE t2 1 C,  S" abcd" S,  HERE t2 - . '
                    't2 1+ COUNT TYPE')


def test_counted_string_of_256_characters_is_an_error(f):
    raises(f, "CREATE big  HERE 256 S,", word="S,")


# ---- compiling --------------------------------------------------------------------------------
def test_right_bracket_l(f):
    check_output(f, ": t1 [ 2 3 + ]L ; t1 .  : t2 [ 6 7 * ]L 1+ ; t2 .  : t3 1 [ 10 ]L [ 20 ]L + + ; t3 .")


def test_postpone_all(f):
    check_output(f, ": sq ]] DUP * [[ ; IMMEDIATE  : g sq ; 4 g .  "
                    ": plus5 ]] 5 + [[ ; IMMEDIATE  : h plus5 ; 1 h .  "
                    ": my-if ]] IF [[ ; IMMEDIATE  : k my-if 1 ELSE 2 THEN ; 0 k . -1 k .  "
                    ": twice ]] DUP + [[ ; IMMEDIATE  : m twice twice ; 3 m .")


def test_postpone_all_compiles_a_float_literal(f):
    """gforth 0.7.3's ]] takes no float literal (later gforths do): here it compiles one, as a number."""
    check_output(f, ": half ]] 0.5e F* [[ ; IMMEDIATE  : hf half ; 3e hf F.", gsrc=": hf 0.5e F* ; 3e hf F.")


def test_postpone_all_errors(f):
    raises(f, ": x1 ]] DUP", word="]]")
    assert not f.compiling
    raises(f, ": x2 ]] no-such-word [[ ;", word="no-such-word")
    raises(f, "[[", word="[[")
    raises(f, ": x3 ]L ;", word="]L")


# ---- definitions ------------------------------------------------------------------------------
def test_alias(f):
    check_output(f, "' DUP ALIAS mydup  3 mydup . .  ' 2* ALIAS twice  5 twice .  : t mydup + ; 4 t . "
                    ": sq DUP * ;  ' sq ALIAS sq2  7 sq2 .")


def test_nextname(f):
    check_output(f, 'S" bar" NEXTNAME : 7 ;  bar .  S" seven" NEXTNAME 7 CONSTANT  seven . '
                    'S" vv" NEXTNAME VARIABLE  9 vv !  vv @ .  S" cc" NEXTNAME CREATE 11 ,  cc @ .')


def test_nextname_names_only_the_next_definition(f):
    check_output(f, 'S" one" NEXTNAME : 1 ;  : two 2 ;  one . two .  S" tick" NEXTNAME  \' one EXECUTE . '
                    ': 3 ; tick .')


def test_latestxt(f):
    check_output(f, ": foo 5 ; LATESTXT EXECUTE .  : bar 6 ;  LATESTXT ' bar = .  7 CONSTANT c  LATESTXT ' c = .")


# ---- word lists -------------------------------------------------------------------------------
HELPERS = ": drop-n ( x*i n -- ) 0 ?DO DROP LOOP ;  : first-wid ( -- wid ) GET-ORDER SWAP >R 1- drop-n R> ;  "


def test_vocabulary(f):
    check_output(f, "VOCABULARY v  ALSO v DEFINITIONS : vw 99 ; PREVIOUS DEFINITIONS  ALSO v vw . PREVIOUS "
                    'S" vw" FORTH-WORDLIST SEARCH-WORDLIST .  GET-CURRENT FORTH-WORDLIST = .')


def test_vocabulary_replaces_the_first_word_list(f):
    check_output(f, HELPERS + "VOCABULARY v2  ALSO v2 first-wid CONSTANT v2-wid  ALSO FORTH first-wid v2-wid <> .  "
                 "PREVIOUS first-wid v2-wid = .  FORTH first-wid FORTH-WORDLIST = . PREVIOUS")


def test_root_holds_gforths_root_words(f):
    check_output(f, HELPERS + ": in-root ( c-addr u -- flag ) ALSO ROOT first-wid PREVIOUS SEARCH-WORDLIST "
                 "DUP IF NIP THEN ;  "
                 'S" ORDER" in-root .  S" SET-ORDER" in-root .  S" FORTH-WORDLIST" in-root .  S" FORTH" in-root . '
                 'S" WORDS" in-root .  S" DUP" in-root .  S" ROOT" in-root .')


def test_to_order(f):
    check_output(f, HELPERS + "WORDLIST CONSTANT w  w >ORDER first-wid w = .  w SET-CURRENT : zz 3 ; "
                 "FORTH-WORDLIST SET-CURRENT  zz .  PREVIOUS  first-wid FORTH-WORDLIST = . "
                 'S" zz" w SEARCH-WORDLIST NIP .')


def test_to_order_refuses_what_is_not_a_word_list(f):
    raises(f, "123456 >ORDER", word=">ORDER")


def test_environment_wordlist(f):
    check_output(f, "ENVIRONMENT-WORDLIST >ORDER MAX-N . MAX-U . MAX-D . . MAX-UD . . ADDRESS-UNIT-BITS . "
                    "MAX-CHAR . /COUNTED-STRING . CORE . FLOATING . PREVIOUS "
                    'S" MAX-N" ENVIRONMENT-WORDLIST SEARCH-WORDLIST NIP .  '
                    'S" NO-SUCH-QUERY" ENVIRONMENT-WORDLIST SEARCH-WORDLIST .')


# ---- ENVIRONMENT? -----------------------------------------------------------------------------
SAME_BY_NATURE = ["MAX-N", "MAX-U", "MAX-D", "MAX-UD", "ADDRESS-UNIT-BITS", "MAX-CHAR", "/COUNTED-STRING",
                  "max-n", "XCHAR", "XCHAR-EXT", "NO-SUCH-QUERY", ""]
# the word sets tileforth provides (wordsets.py), whose obsolescent queries gforth answers true as well
PROVIDED = ["CORE", "CORE-EXT", "DOUBLE", "DOUBLE-EXT", "EXCEPTION", "EXCEPTION-EXT", "FILE", "FILE-EXT",
            "FLOATING", "FLOATING-EXT", "LOCALS", "LOCALS-EXT", "MEMORY-ALLOC", "MEMORY-ALLOC-EXT", "TOOLS",
            "SEARCH-ORDER", "SEARCH-ORDER-EXT", "STRING", "STRING-EXT", "BLOCK", "BLOCK-EXT", "floating"]


def _query(q: str) -> str:
    return f'S" {q}" ENVIRONMENT?'


def test_environment_answers_as_gforth_where_the_answer_is_the_same_by_nature(f):
    check_many(f, [_query(q) for q in SAME_BY_NATURE + PROVIDED], chunk=6)


def test_the_word_sets_it_lacks_answer_false():
    """FACILITY-EXT (no K- constants) and TOOLS-EXT (no EDITOR, FORGET) are not provided, so their queries
    are unknown: false (gforth has them all). FACILITY is (AT-XY and PAGE print gforth's sequences; KEY?,
    like CORE's KEY, cannot be on a GPU), so it answers true, as gforth's does."""
    from forthtest import new_forth
    from tileforth.core.session.wordsets import status
    f = new_forth()
    lacking = {st.wordset.name for st in status(f.dict) if set(st.missing) - set(st.wordset.cannot)}
    assert {"FACILITY-EXT", "PROGRAMMING-TOOLS-EXT"} <= lacking
    assert "FACILITY" not in lacking
    for q in ("FACILITY-EXT", "TOOLS-EXT"):
        f.eval(_query(q))
        assert f.data_stack() == [0], q
        f.eval("DROP")
    f.eval(_query("FACILITY"))
    assert f.data_stack() == [-1, -1]
    f.eval("2DROP")


def test_the_numbers_that_differ_by_nature_mean_what_they_say(f):
    f.eval(_query("STACK-CELLS") + " DROP")
    (cells,) = f.data_stack()
    f.eval("DROP")
    assert cells == f.machine.ds_max  # and it is what the stack holds:
    f.eval(f": fill 0 ?DO I LOOP ;  {cells - 1} fill")  # the count itself is the last cell
    assert len(f.data_stack()) == cells - 1
    f.eval("CLEARSTACK")
    raises(f, f"{cells + 1} fill")
    f.eval(_query("FLOATING-STACK") + " DROP")
    (floats,) = f.data_stack()
    f.eval(f"DROP : ffill 0 ?DO 1e LOOP ;  {floats} ffill")
    assert len(f.float_stack()) == floats
    f.eval("CLEARSTACK")
    raises(f, f"{floats + 1} ffill")
    f.eval(_query("MAX-FLOAT"))
    assert f.data_stack() == [-1] and f.float_stack() == [float(np.finfo(np.float32).max)]  # an f32 session's
    f.eval("DROP FDROP")
    f.eval(_query("FLOORED") + " -7 2 /")  # tileforth's division floors, as gforth's: FLOORED is true
    assert f.data_stack() == [-1, -1, -4]
    f.eval("CLEARSTACK")
    f.eval(_query("WORDLISTS") + " DROP")
    (n,) = f.data_stack()
    f.eval(f"DROP : many 0 ?DO FORTH-WORDLIST LOOP ;  {n} many {n} SET-ORDER ONLY")
    f.eval(f"{n + 1} many")
    raises(f, f"{n + 1} SET-ORDER", word="SET-ORDER")
    f.eval("CLEARSTACK")


@pytest.mark.skipif(not TTESTER.exists(), reason="gforth's test files are not installed")
def test_the_standards_ttester_loads_with_its_float_part(f):
    """ttester.fs asks ENVIRONMENT? for FLOATING (and FLOATING-EXT) and defines its float words only then."""
    program = (f"include {TTESTER}  T{{ 1 2 + -> 3 }}T  T{{ 1.5e 2e F+ -> 3.5e }}T "
               'S" REL-NEAR" FORTH-WORDLIST SEARCH-WORDLIST NIP .')
    check_output(f, program)


# ---- the gforth words FFL's config.fs needs (issue 25: tests/programs/ffl_*.fth) -----------------
def test_newline(f):
    check_output(f, "NEWLINE NIP . NEWLINE DROP C@ .  : nl NEWLINE TYPE ;  1 . nl 2 .")


def test_string_comma_stores_a_counted_string_and_does_not_align(f):
    check_output(f, 'CREATE s1  S" abcde" STRING,  HERE s1 - .  s1 COUNT TYPE  S" xy" STRING,  HERE s1 - . '
                    's1 6 + COUNT TYPE  CREATE s2  S" " STRING,  HERE s2 - . s2 C@ .')


def test_string_comma_in_a_definition(f):
    check_output(f, ': str, STRING, ;  CREATE s3  S" hello" str,  s3 COUNT TYPE  HERE s3 - .')


def test_string_comma_of_256_characters_is_an_error(f):
    raises(f, "CREATE big2  HERE 256 STRING,", word="STRING,")


def test_cstring_to_sstring(f):
    check_output(f, 'CREATE z  S" hello" HERE SWAP DUP ALLOT MOVE 0 C,  z CSTRING>SSTRING TYPE  '
                    'z CSTRING>SSTRING NIP .  CREATE e 0 C,  e CSTRING>SSTRING NIP .  z CSTRING>SSTRING DROP z = .')


def test_utime_is_the_hosts_microseconds(f):
    """gforth's UTIME: microseconds since 1970 as an unsigned double (its value differs by nature)."""
    import time
    before = time.time_ns() // 1000
    f.eval("UTIME")
    lo, hi = f.data_stack()
    after = time.time_ns() // 1000
    f.eval("2DROP")
    assert hi == 0 and before <= lo <= after
    check(f, "UTIME 1 1000 M*/ DROP 0>  UTIME UTIME 2SWAP D< 0=")  # FFL's ms@; it never goes back


def test_argc_argv_are_variables_of_the_arguments(f):
    """gforth's ARGC ARGV hold its command line (the count differs by nature: a tileforth program sees
    only its name); both are variables, ARGV's array of C strings ends with 0, as gforth's."""
    check(f, "ARGC @ 1 >=  ARGV @ @ CSTRING>SSTRING NIP 0>  ARGV @ ARGC @ CELLS + @ 0=")
    f.eval("CLEARSTACK ARGC @ ARGV @ @ CSTRING>SSTRING")
    argc, addr, n = f.data_stack()
    f.eval("CLEARSTACK")
    assert argc == 1 and f.read_bytes(addr, n) == b"tileforth"


def test_exception_gives_gforths_codes():
    gforth.require()
    f = one_thread_session("gforth-ext-exception")  # a session of its own: the codes count from its first
    check_output(f, 'S" first" EXCEPTION .  S" second" EXCEPTION .  : ex S" third" EXCEPTION ; ex . '
                    'S" caught" EXCEPTION CONSTANT c4  : thr c4 THROW ;  \' thr CATCH c4 = .')


def test_an_uncaught_exception_shows_its_message():
    gforth.require()
    f = one_thread_session("gforth-ext-exception-message")
    f.eval('S" Index out of range" EXCEPTION CONSTANT exp-index')
    err = raises(f, ": fail exp-index THROW ;  fail", word="THROW")
    assert "Index out of range" in str(err) and "-2051" in str(err)
    ref = gforth.run('S" Index out of range" EXCEPTION : fail THROW ; \' fail CATCH .')
    assert ref.output.split() == ["-2051"]


# ---- F>R FR> FR@: FFL's toolbelt words (later gforths have them; 0.7.3 has not) ----------------
def test_float_on_the_return_stack(f):
    """FFL's tlb.fs defines them through RP@ RP! where they are missing; gforth runs that definition."""
    defs = (": f>r r> rp@ float - rp! rp@ f! >r ; : fr> r> rp@ f@ float rp@ + rp! >r ; : fr@ r> rp@ f@ >r ; ")
    src = (": t1 F>R 1e FR> F+ ; 2e t1 F.  : t2 F>R FR@ FR> F+ ; 2.5e t2 F.  "
           ": t3 7 >R F>R 3 FR> R> . F. . ; 1.5e t3  : t4 1e F>R 2e F>R FR> FR> F- ; t4 F.")
    check_output(f, src, gsrc=defs + src)


def test_float_on_the_return_stack_in_a_host_level_word(f):
    """A word that defines words runs on the host: its F>R keeps the float there."""
    defs = ": f>r r> rp@ float - rp! rp@ f! >r ; : fr> r> rp@ f@ float rp@ + rp! >r ; "
    src = ": mk F>R CREATE 7 , FR> F. ; 1.5e mk zz zz @ ."
    check_output(f, src, gsrc=defs + src)


def test_fr_from_without_f_to_r_is_an_error(f):
    raises(f, ": bad FR> ;", word="FR>")
    raises(f, ": bad2 FR@ ;", word="FR@")


# ---- DOES> outside a definition (gforth runs it; rosetta_roman_table.fth) ----------------------
def test_does_outside_a_definition(f):
    check_output(f, "CREATE r 10 , 20 , 30 ,\nDOES> SWAP CELLS + @ ;\n1 r . 2 r . : use 0 r 1 r + ; use .\n"
                    "CREATE dbl 21 , DOES> @ 2* ; dbl .  ' dbl >BODY @ .")


def test_does_outside_a_definition_needs_a_created_word(f):
    raises(f, ": k 3 ;  DOES> 1 ;", word="DOES>")
    assert f.colon is None
    f.eval("CREATE ok1 5 ,  DOES> @ 1+ ;  ok1")  # the session goes on
    assert f.data_stack()[-1:] == [6]
    f.eval("CLEARSTACK")


# ---- gforth's 16- and 32-bit memory words (FFL's fwt.fs uses them where they are defined) ------
def test_w_and_l_fetch_and_store(f):
    check_output(f, "CREATE wl -1 , 0 ,  wl W@ . wl L@ . wl SW@ . wl SL@ .  5 wl L! wl @ .  -2 wl W! wl @ . "
                    "wl 4 + L@ . wl 6 + SW@ .  7 wl 10 + W!  wl 10 + W@ . wl 8 + L@ .  70000 wl 12 + W! wl 12 + W@ . "
                    ": lw wl 4 + L@ wl 2 + W@ ; lw . .")


def test_w_and_l_need_their_alignment(f):
    f.eval("CREATE wa 16 ALLOT")
    raises(f, "wa 1+ W@", word="W@")
    raises(f, "wa 2 + L@", word="L@")
    raises(f, "1 wa 3 + L!", word="L!")


def test_float_on_the_return_stack_keeps_an_f64():
    """In the f64 mode a return-stack cell holds all 64 bits (gforth's floats are f64)."""
    gforth.require()
    from tileforth.core import Forth
    f64 = Forth(backend="cpu", float_bits=64)
    f64.eval("1 1 1 GRID 1 1 1 THREADS")
    defs = ": f>r r> rp@ float - rp! rp@ f! >r ; : fr> r> rp@ f@ float rp@ + rp! >r ; : fr@ r> rp@ f@ >r ; "
    src = ": t F>R 1e FR> F+ ; 0.1e t F.  : t2 F>R FR@ FR> F+ ; 1.000000001e t2 F."
    check_output(f64, src, gsrc=defs + src)


def test_f2_star_and_f2_slash(f):
    check_output(f, "1.25e F2* F. 5e F2/ F. -3e F2/ F. 0.75e F2* F2/ F.")
