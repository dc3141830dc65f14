"""Strings, characters and pictured numeric output, compared with gforth:

    S" hello" TYPE                \\ hello
    12345. <# #S #> TYPE          \\ 12345
    -5 6 .R                       \\     -5

Strings live in device memory (tileforth/core/session/words/strings.py), so every word here
runs on the device. Addresses differ between the two Forths, so the programs
consume them (TYPE, NIP, differences) before the stacks are compared. Words
that write memory run in a one-thread session (the `f1` fixture), as in gforth.
"""

import re

import pytest

import gforth
from forthtest import check_output, raises
from tileforth.core import ForthError

# HOLDS is Forth-2012; gforth 0.7.3 lacks it, so its side gets the standard's definition
GF_HOLDS = ": holds ( c-addr u -- ) begin dup while 1- 2dup + c@ hold repeat 2drop ;\n"


def check(f, src, *, wrap=False, holds=False):
    gsrc = gforth.wrap(src) if wrap else src
    check_output(f, src, gsrc=(GF_HOLDS if holds else "") + gsrc)


CHARACTERS = [
    "BL .",
    "SPACE",
    "65 EMIT SPACE 66 EMIT",
    "42 EMIT 3 SPACES 42 EMIT",
    "42 EMIT 0 SPACES 42 EMIT",
    "42 EMIT -2 SPACES 42 EMIT",
    'S" hello" TYPE',
    'S" hello world" TYPE CR',
    'S" " TYPE',
    'S" " NIP .',
    'S" abc" NIP .',
    'S" a  b" TYPE 42 EMIT',
    'S" héllo" TYPE',
    'S" é" NIP .',
    'S" abc" DROP C@ .',
    'S" abc" DROP 2 + C@ .',
    'S" abc" DROP 0 TYPE',
    'S" one" S" two" TYPE TYPE',
    'S\\" a\\tb" TYPE',
    'S\\" \\a\\b\\e\\f\\l\\m\\n\\q\\r\\t\\v\\z\\"\\\\" NIP .',
    'S\\" \\x41\\x7e\\x7E" TYPE',
    'S\\" \\m" DROP DUP C@ . 1+ C@ .',
    'S\\" \\z" DROP C@ .',
    'S\\" say \\"hi\\"" TYPE',
    'S\\" " NIP .',
    'S" abcdef" 2 /STRING TYPE',
    'S" abcdef" 0 /STRING TYPE',
    'S" abcdef" 6 /STRING NIP .',
    'S" abcdef" 3 /STRING -1 /STRING TYPE',
    'S" ab   " -TRAILING NIP .',
    'S" a b " -TRAILING TYPE 42 EMIT',
    'S"     " -TRAILING NIP .',
    'S" " -TRAILING NIP .',
    'S" abc" -TRAILING TYPE',
    "VARIABLE v 7 v ! v ?",
    "VARIABLE v -3 v ! v ? v ?",
]


@pytest.mark.parametrize("src", CHARACTERS)
def test_characters_and_strings_at_the_prompt(f1, need_gforth, src):
    check(f1, src)


MEMORY = [
    'CREATE b 16 ALLOT  S" abcdef" b SWAP CMOVE  b 6 TYPE',
    'CREATE b 16 ALLOT  S" abcdef" b SWAP CMOVE>  b 6 TYPE',
    'CREATE b 16 ALLOT  S" abcdef" b SWAP MOVE  b 6 TYPE',
    # overlapping: CMOVE copies low first (the first byte propagates), CMOVE> high first
    'CREATE b 16 ALLOT  S" abcdef" b SWAP MOVE  b b 1+ 5 CMOVE  b 6 TYPE',
    'CREATE b 16 ALLOT  S" abcdef" b SWAP MOVE  b b 1+ 5 CMOVE>  b 6 TYPE',
    'CREATE b 16 ALLOT  S" abcdef" b SWAP MOVE  b 1+ b 5 CMOVE  b 6 TYPE',
    'CREATE b 16 ALLOT  S" abcdef" b SWAP MOVE  b b 1+ 5 MOVE  b 6 TYPE',
    'CREATE b 16 ALLOT  S" abcdef" b SWAP MOVE  b 1+ b 5 MOVE  b 6 TYPE',
    'CREATE b 16 ALLOT  S" abcdef" b SWAP MOVE  b 2 + b 4 MOVE  b 6 TYPE',
    # u = 0 copies and fills nothing
    'CREATE b 16 ALLOT  S" abcdef" b SWAP MOVE  b b 1+ 0 MOVE  b 1+ b 0 CMOVE  b b 2 + 0 CMOVE>  b 6 TYPE',
    'CREATE b 16 ALLOT  S" abcdef" b SWAP MOVE  b 0 65 FILL  b 0 ERASE  b 0 BLANK  b 6 TYPE',
    'CREATE b 16 ALLOT  b 6 42 FILL  b 6 TYPE',
    'CREATE b 16 ALLOT  b 16 42 FILL  b 2 + 3 43 FILL  b 6 TYPE',
    'CREATE b 16 ALLOT  b 16 43 FILL  b 6 42 FILL  b 6 ERASE  b C@ . b 5 + C@ . b 6 + C@ .',
    'CREATE b 16 ALLOT  b 6 ERASE  b 3 BLANK  b C@ . b 2 + C@ . b 3 + C@ .',
    'CREATE b 16 ALLOT  S" abc   " b SWAP MOVE  b 6 -TRAILING TYPE 124 EMIT',
    'CREATE b 16 ALLOT  5 b C!  b COUNT NIP .  b COUNT DROP b - .',
    'CREATE b 16 ALLOT  0 b C!  b COUNT NIP .',
    'CREATE b 16 ALLOT  3 b C!  S" xyz" b 1+ SWAP MOVE  b COUNT TYPE',
]


@pytest.mark.parametrize("src", MEMORY)
def test_memory_words(f1, need_gforth, src):
    check(f1, src)


COMPARES = [
    ('abc', 'abc'), ('abc', 'abd'), ('abd', 'abc'), ('ab', 'abc'), ('abc', 'ab'), ('', ''),
    ('', 'a'), ('a', ''), ('b', 'abc'), ('abc', 'b'), ('ABC', 'abc'), ('a b', 'a'), ('zzz', 'zzz '),
]


def test_compare_orders_like_gforth(f1, need_gforth):
    src = " ".join(f'S" {a}" S" {b}" COMPARE .' for a, b in COMPARES)
    check(f1, src)


def test_compare_is_unsigned_per_byte(f1, need_gforth):
    check(f1, 'S\\" \\xff" S" a" COMPARE . S" a" S\\" \\x80" COMPARE . S\\" \\x00" S" " COMPARE .')


SEARCHES = [
    ('hello world', 'o w'), ('hello world', 'wor'), ('hello', 'xyz'), ('hello', 'hello'), ('hello', 'hello!'),
    ('hello', 'h'), ('hello', 'o'), ('hello', ''), ('', ''), ('', 'a'), ('aaab', 'aab'), ('abab', 'ba'),
]


@pytest.mark.parametrize("hay,needle", SEARCHES)
def test_search(f1, need_gforth, hay, needle):
    check(f1, f'S" {hay}" S" {needle}" SEARCH . 124 EMIT TYPE 124 EMIT')


def test_search_returns_the_address_of_the_match(f1, need_gforth):
    check(f1, 'S" hello world" 2DUP S" wor" SEARCH 2DROP NIP SWAP - .')


PICTURED = [
    "12345. <# #S #> TYPE",
    "0. <# #S #> TYPE",
    "0 0 <# #> NIP .",
    "42 0 <# #S #> TYPE",
    "123 0 <# # #> TYPE",
    "123 0 <# # # #> TYPE",
    "7 0 <# # # # #> TYPE",
    "-1. <# #S #> TYPE",
    "-1 0 <# #S #> TYPE",
    "1 1 <# #S #> TYPE",
    "0 1 <# #S #> TYPE",
    "HEX 255 0 <# #S #> DECIMAL TYPE",
    "HEX -1 -1 <# #S #> DECIMAL TYPE",
    "HEX 0ABCDEF 0 <# #S #> DECIMAL TYPE",
    "2 BASE ! 1010 0 <# #S #> DECIMAL TYPE",
    "2 BASE ! -1 0 <# #S #> DECIMAL TYPE",
    "36 BASE ! Z 0 <# #S #> DECIMAL TYPE",
    "-12 DUP ABS 0 <# #S ROT SIGN #> TYPE",
    "12 DUP ABS 0 <# #S ROT SIGN #> TYPE",
    "0 DUP ABS 0 <# #S ROT SIGN #> TYPE",
    "-9223372036854775808 DUP ABS 0 <# #S ROT SIGN #> TYPE",
    "5 0 <# # 36 HOLD #> TYPE",
    "5 0 <# 37 HOLD # #> TYPE",
    "1234 0 <# # # 58 HOLD # # #> TYPE",
    "3 0 <# #S #> 2DROP 45 0 <# #S #> TYPE",
    "12345. <# #S #> NIP .",
]


@pytest.mark.parametrize("src", PICTURED)
def test_pictured_numeric_output(f1, need_gforth, src):
    check(f1, src)


@pytest.mark.parametrize("src", [
    '5 0 <# # S" x=" HOLDS #> TYPE',
    '5 0 <# S" " HOLDS # #> TYPE',
    '5 0 <# S" kg" HOLDS #S S" $" HOLDS #> TYPE',
])
def test_holds(f1, need_gforth, src):
    check(f1, src, holds=True)


DOT_R = [
    "5 3 .R", "-5 6 .R", "123 1 .R", "123 3 .R", "5 0 .R", "5 -3 .R", "0 0 .R", "-1 6 U.R", "42 6 U.R",
    "42 1 U.R", "-9223372036854775808 25 .R", "HEX FF 6 .R DECIMAL", "HEX -FF 6 .R DECIMAL",
    "HEX -1 20 U.R DECIMAL", "1 2 .R 3 4 .R 5 6 U.R", "7 3 .R CR 8 3 .R",
]


@pytest.mark.parametrize("src", DOT_R)
def test_dot_r(f, need_gforth, src):
    check(f, src)


DEFINITIONS = [
    ': t S" abc" TYPE ; t t',
    ': t S" " TYPE S" x" TYPE ; t',
    ': t 3 0 DO S" ab" TYPE LOOP ; t',
    ': t S\\" x\\ty\\q" TYPE ; t',
    ': t C" hello" COUNT TYPE ; t',
    ': t C" " COUNT NIP . ; t',
    ': t C" abc" C@ . ; t',
    ': t S" abc" ; t TYPE t NIP .',
    ': t S" hello world" S" wor" SEARCH ; t . TYPE',
    ': t S" abc" S" abd" COMPARE ; t .',
    ': t ( n -- ) DUP ABS 0 <# #S ROT SIGN #> TYPE ; -42 t 42 t 0 t',
    ': u.4 ( u -- ) 0 <# # # # # #> TYPE ; 42 u.4 7 u.4',
    ': t ( n w -- ) .R 124 EMIT ; 5 4 t -5 4 t 12345 2 t',
    ': t ( u w -- ) U.R 124 EMIT ; 5 4 t -1 2 t',
    ': t 5 SPACES BL EMIT 42 EMIT ; t',
    ': t S" ab   " -TRAILING TYPE 124 EMIT ; t',
    ': t S" abcdef" 2 /STRING TYPE ; t',
    ': t ( addr -- ) ? ; VARIABLE v 9 v ! v t',
]


@pytest.mark.parametrize("src", DEFINITIONS)
def test_inside_definitions(f1, need_gforth, src):
    check(f1, src)


@pytest.mark.parametrize("src", [
    '3 0 DO S" ab" TYPE LOOP',
    '4 0 DO I 3 .R LOOP',
    '3 0 DO I 0 <# #S #> TYPE 32 EMIT LOOP',
    '2 0 DO S" xy" S" y" SEARCH . TYPE LOOP',
])
def test_in_control_structures_at_the_prompt(f1, need_gforth, src):
    check(f1, src, wrap=True)


def test_memory_words_in_definitions(f1, need_gforth):
    check(f1, 'CREATE b 16 ALLOT : t ( -- ) S" abcdef" b SWAP MOVE b b 1+ 5 MOVE b 1+ b 2 MOVE b 4 BLANK '
              'b 6 TYPE 124 EMIT b 16 ERASE b 2 + 2 45 FILL b 4 TYPE ; t')


# ---- many threads ------------------------------------------------------------------------
def _per_thread(texts: list[str]) -> str:
    return "".join(f"[thread {t}] {s}\n" for t, s in enumerate(texts))


def test_each_thread_prints_its_own_dot_r(f):
    """.R sends the number and width in each thread's own output record."""
    assert f.eval("TID-X 10 * 4 .R") == _per_thread([f"{10 * t:>4}" for t in range(32)])
    assert f.eval("TID-X NEGATE 2 .R") == _per_thread([f"{-t:>2}" for t in range(32)])
    assert f.eval("TID-X 31 - 5 U.R") == _per_thread([f"{(t - 31) % 2**64:>5}" for t in range(32)])


def test_the_same_number_from_every_thread_prints_once(f):
    assert f.eval("7 3 .R") == "  7"
    assert f.eval('S" hi" TYPE') == "hi"


def test_pictured_output_per_thread_on_the_emulator(f):
    """The hold area is shared, but the emulator runs each thread's <# ... #> TYPE whole."""
    assert f.eval("TID-X 100 * 0 <# #S #> TYPE") == _per_thread([str(100 * t) for t in range(32)])


def test_each_thread_reads_the_string_and_its_own_copy(f):
    f.eval("1 1 1 GRID 4 1 1 THREADS")
    assert f.eval('S" abcd" DROP TID-X + C@ EMIT') == _per_thread(list("abcd"))
    assert f.eval(": t S\" wxyz\" TID-X /STRING TYPE ; t") == _per_thread(["wxyz", "xyz", "yz", "z"])


# ---- where strings live -----------------------------------------------------------------
def test_prompt_strings_do_not_use_data_space(f1):
    here = f1.here
    f1.eval('S" a string typed at the prompt" 2DROP')
    assert f1.here == here


def test_the_same_prompt_line_reuses_its_string(f1):
    f1.eval('S" same text" DROP')
    f1.eval('S" same text" DROP')
    a, b = f1.data_stack()
    assert a == b
    f1.eval("2DROP")


def test_a_prompt_string_written_over_is_placed_again(f1):
    f1.eval('S" xyz" DROP 65 SWAP C!')
    assert f1.eval('S" xyz" TYPE') == "xyz"


def test_the_prompt_ring_wraps_and_strings_stay_whole(f1):
    text = "x" * 1000
    addrs = []
    for i in range(80):  # 80 KB of prompt strings through the 64 KiB ring
        s = f'{i:04d}{text}'
        assert f1.eval(f'S" {s}" 2DUP TYPE DROP') == s
        addrs += f1.data_stack()
        f1.eval("DROP")
    assert any(b < a for a, b in zip(addrs, addrs[1:]))  # the ring came round
    assert max(addrs) - min(addrs) < 1 << 16
    assert f1.eval('S" after" TYPE') == "after"


def test_definition_strings_live_in_data_space_and_keep_here_aligned(f1):
    here = f1.here
    f1.eval(': t-here S" abc" ;')
    assert f1.here - here == 8
    assert f1.eval("t-here TYPE") == "abc"
    f1.eval(": t-empty S\" \" ;")
    assert f1.eval("t-empty NIP .") == "0 "


def test_a_failed_definition_gives_its_string_bytes_back(f1):
    here = f1.here
    with pytest.raises(ForthError, match="no-such-word"):
        f1.eval(': t-bad S" some text" no-such-word ;')
    assert f1.here == here


def test_c_quote_at_the_prompt(f1):
    """gforth 0.7.3 has C" only in definitions; tileforth allows it at the prompt."""
    assert f1.eval('C" counted" COUNT TYPE') == "counted"
    assert f1.eval('C" " C@ .') == "0 "


def test_utf8_bytes_decode_but_single_high_bytes_stay_characters(f1):
    assert f1.eval('S" naïve €" TYPE') == "naïve €"
    assert f1.eval("233 EMIT") == "\u00e9"  # a lone byte: Latin-1, as EMIT always printed it
    assert f1.eval("195 EMIT 169 EMIT") == "é"  # its UTF-8 bytes together


# ---- errors -------------------------------------------------------------------------------
@pytest.mark.parametrize("src,match", [
    ('S" no end', 'S" needs a closing "'),
    ('S\\" no end', 'needs a closing "'),
    ('S\\" bad \\k"', r"unknown escape \\k"),
    ('S\\" \\x4"', "two hex digits"),
    ('C" no end', 'C" needs a closing "'),
    ('C" ' + "x" * 256 + '"', "at most 255"),
])
def test_string_errors_say_what_to_do(f1, src, match):
    err = raises(f1, src)
    assert re.search(match, str(err)), str(err)


def test_hold_area_overflow_is_an_error_not_a_silent_write(f1):
    err = raises(f1, "0 0 <# 300 0 DO 65 HOLD LOOP #> 2DROP")
    assert "bad address" in str(err)


def test_the_old_array_fill_syntax_now_underflows(f1):
    """The standard FILL ( c-addr u char -- ) took the name; the array fill is AFILL."""
    f1.eval("4 F32 ARRAY xs4  1.5e AFILL xs4")
    assert [float(x) for x in f1.array("xs4")] == [1.5] * 4
    raises(f1, "1.5e FILL xs4")
