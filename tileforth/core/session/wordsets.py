"""The word sets of Forth-2012 and how much of each a session has.

The lists are the glossaries of the standard (Forth 2012, the release of
the standard's source of 2014-11-18): section 6.1 (CORE) and 6.2 (CORE
EXT), and x.6.1 and x.6.2 of the optional word sets, sections 7 to 17
(the XCHAR set, section 18, is left out). Obsolescent words the standard
removed (#TIB CONVERT EXPECT QUERY SPAN TIB) are not in them.

`status(names)` compares a list with a session's dictionary (`Forth().dict`),
so the table of docs/words.md (tileforth/core/session/reference.py) stays true as
words are added. Two kinds of name are not counted as present although the
dictionary has them: a name tileforth uses for something else (DIFFERENT,
none at present), and a word that is there only to refuse with a reason (KEY:
its declaration in the word table says so, words/table.py). Each host word,
immediate word and constant of the word table names the word set that defines
it (`wordset`: the first of these lists that has it, or "gforth" or
"tileforth" for a word of neither); tests/test_wordsets.py holds the
declarations to these lists.

Each set may carry a note for the words that cannot make sense on a GPU
(`cannot`) and what tileforth offers instead (`instead`); tests check that
the first are absent (or refused) and the second present.
"""
from __future__ import annotations

from typing import Iterable

from ..front.dictionary import HostWord
from ..records import record
from .words.table import WORDS


@record(frozen=True)
class WordSet:
    name: str
    section: str
    words: tuple[str, ...]
    note: str = ""  # what cannot make sense on a GPU, and what tileforth does instead
    cannot: tuple[str, ...] = ()  # the words the note says cannot make sense here
    instead: tuple[str, ...] = ()  # the words the note names as what tileforth offers


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# Names the dictionary has with another meaning than the standard's: not counted as present.
DIFFERENT: dict[str, str] = {}

# Words in the dictionary only to refuse with a reason (declared so in the word table, words/table.py:
# `refuses`): not counted as present.
REFUSED: dict[str, str] = {w.name: w.refuses for w in WORDS if isinstance(w, HostWord) and w.refuses}

WORDSETS: list[WordSet] = [
    WordSet("CORE", "6.1", _words(r"""
        ! # #> #S ' ( * */ */MOD + +! +LOOP , - . ." / /MOD 0< 0= 1+ 1- 2! 2* 2/ 2@ 2DROP 2DUP 2OVER
        2SWAP : ; < <# = > >BODY >IN >NUMBER >R ?DUP @ ABORT ABORT" ABS ACCEPT ALIGN ALIGNED ALLOT AND
        BASE BEGIN BL C! C, C@ CELL+ CELLS CHAR CHAR+ CHARS CONSTANT COUNT CR CREATE DECIMAL DEPTH DO
        DOES> DROP DUP ELSE EMIT ENVIRONMENT? EVALUATE EXECUTE EXIT FILL FIND FM/MOD HERE HOLD I IF
        IMMEDIATE INVERT J KEY LEAVE LITERAL LOOP LSHIFT M* MAX MIN MOD MOVE NEGATE OR OVER POSTPONE
        QUIT R> R@ RECURSE REPEAT ROT RSHIFT S" S>D SIGN SM/REM SOURCE SPACE SPACES STATE SWAP THEN
        TYPE U. U< UM* UM/MOD UNLOOP UNTIL VARIABLE WHILE WORD XOR [ ['] [CHAR] ]"""),
        "KEY reads a keyboard, which a launch has not: it refuses with a reason, and the data goes in the "
        "source or in an array (LOAD-NPY). ACCEPT reads the next line a program feeding lines hands over "
        "(Forth.more_input), and refuses without one. QUIT would restart the text interpreter, which is "
        "the host's loop (the REPL), not a word's.", cannot=("KEY", "QUIT"), instead=("LOAD-NPY",)),
    WordSet("CORE-EXT", "6.2", _words(r"""
        .( .R 0<> 0> 2>R 2R> 2R@ :NONAME <> ?DO ACTION-OF AGAIN BUFFER: C" CASE COMPILE, DEFER DEFER!
        DEFER@ ENDCASE ENDOF ERASE FALSE HEX HOLDS IS MARKER NIP OF PAD PARSE PARSE-NAME PICK REFILL
        RESTORE-INPUT ROLL S\" SAVE-INPUT SOURCE-ID TO TRUE TUCK U.R U> UNUSED VALUE WITHIN [COMPILE] \
        """)),
    WordSet("DOUBLE", "8.6.1", _words("""
        2CONSTANT 2LITERAL 2VARIABLE D+ D- D. D.R D0< D0= D2* D2/ D< D= D>S DABS DMAX DMIN DNEGATE
        M*/ M+""")),
    WordSet("DOUBLE-EXT", "8.6.2", _words("2ROT 2VALUE DU<")),
    WordSet("EXCEPTION", "9.6.1", _words("CATCH THROW"),
            "THROW runs on the device: a code that is not 0 ends the whole launch (every thread) with it. "
            "CATCH runs on the host: it runs its token as a launch of its own (or on the host) and, when "
            "that ends with an exception, puts the stacks back and pushes the code."),
    WordSet("EXCEPTION-EXT", "9.6.2", _words('ABORT ABORT"')),
    WordSet("FACILITY", "10.6.1", _words("AT-XY KEY? PAGE"),
            "AT-XY and PAGE print the ANSI sequences gforth prints (output like any other); KEY? needs a "
            "terminal to ask, which a launch has not.", cannot=("KEY?",)),
    WordSet("FACILITY-EXT", "10.6.2", _words("""
        +FIELD BEGIN-STRUCTURE CFIELD: EKEY EKEY>CHAR EKEY>FKEY EKEY? EMIT? END-STRUCTURE FIELD:
        K-ALT-MASK K-CTRL-MASK K-DELETE K-DOWN K-END K-F1 K-F10 K-F11 K-F12 K-F2 K-F3 K-F4 K-F5 K-F6 K-F7
        K-F8 K-F9 K-HOME K-INSERT K-LEFT K-NEXT K-PRIOR K-RIGHT K-SHIFT-MASK K-UP MS TIME&DATE"""),
            "The keyboard words (EKEY, EKEY?, EKEY>CHAR, EKEY>FKEY, the K- constants) and EMIT? need a "
            "terminal, which a launch has not.",
            cannot=("EKEY", "EKEY?", "EKEY>CHAR", "EKEY>FKEY", "EMIT?")),
    WordSet("FILE", "11.6.1", _words("""
        ( BIN CLOSE-FILE CREATE-FILE DELETE-FILE FILE-POSITION FILE-SIZE INCLUDE-FILE INCLUDED OPEN-FILE
        R/O R/W READ-FILE READ-LINE REPOSITION-FILE RESIZE-FILE S" SOURCE-ID W/O WRITE-FILE WRITE-LINE"""),
            "The file words run on the host, between launches: files live there and device code cannot "
            "reach them, so a definition that uses one is host-level and runs on the host. A file id is a "
            "small integer the session hands out; an ior is 0 or a code of table 9.1: -38 no such file, -36 "
            "a position REPOSITION-FILE cannot take, -24 a negative length, -37 any other failure (a file id "
            "that is not open too). "
            "SOURCE-ID gives 0 in an included file, not its file id. Array data moves between files and the "
            "device with LOAD-NPY and SAVE-NPY.",
            instead=("LOAD-NPY", "SAVE-NPY")),
    WordSet("FILE-EXT", "11.6.2", _words(r"FILE-STATUS FLUSH-FILE INCLUDE REFILL RENAME-FILE REQUIRE REQUIRED S\""),
            "FILE-STATUS, FLUSH-FILE and RENAME-FILE run on the host, as the FILE words do (files are "
            "unbuffered, so FLUSH-FILE has nothing to write)."),
    WordSet("FLOATING", "12.6.1", _words("""
        >FLOAT D>F F! F* F+ F- F/ F0< F0= F< F>D F@ FALIGN FALIGNED FCONSTANT FDEPTH FDROP FDUP FLITERAL
        FLOAT+ FLOATS FLOOR FMAX FMIN FNEGATE FOVER FROT FROUND FSWAP FVARIABLE REPRESENT"""),
            "Floats are f32, the GPU's fast type, on a float stack of their own."),
    WordSet("FLOATING-EXT", "12.6.2", _words("""
        DF! DF@ DFALIGN DFALIGNED DFFIELD: DFLOAT+ DFLOATS F** F. F>S FABS FACOS FACOSH FALOG FASIN FASINH
        FATAN FATAN2 FATANH FCOS FCOSH FE. FEXP FEXPM1 FFIELD: FLN FLNP1 FLOG FS. FSIN FSINCOS FSINH
        FSQRT FTAN FTANH FTRUNC FVALUE F~ PRECISION S>F SET-PRECISION SF! SF@ SFALIGN SFALIGNED SFFIELD:
        SFLOAT+ SFLOATS""")),
    WordSet("LOCALS", "13.6.1", _words("(LOCAL)"),
            "Locals are written {: a b | c -- :} (or gforth's { a b }), anywhere in a definition outside "
            "control structures; they become registers.", instead=("{:", "{")),
    WordSet("LOCALS-EXT", "13.6.2", _words("LOCALS| {:")),
    WordSet("MEMORY", "14.6.1", _words("ALLOCATE FREE RESIZE"),
            "ALLOCATE, FREE and RESIZE run on the host, between launches, and take memory from the backend as "
            "ARRAY and MATRIX do (device memory on the cuda backend), so device code can use it; a kernel "
            "cannot allocate.", instead=("ARRAY", "MATRIX")),
    WordSet("PROGRAMMING-TOOLS", "15.6.1", _words(".S ? DUMP SEE WORDS"),
            "Typed at the REPL's prompt, .S shows every stack of every thread (.STACKS); the inspection "
            "words .LANES, .TILE and SEE-IR show what a GPU adds.", instead=(".S", ".STACKS", ".LANES", ".TILE",
                                                                             "SEE-IR")),
    WordSet("PROGRAMMING-TOOLS-EXT", "15.6.2", _words("""
        ;CODE AHEAD ASSEMBLER BYE CODE CS-PICK CS-ROLL EDITOR FORGET N>R NAME>COMPILE NAME>INTERPRET
        NAME>STRING NR> STATE SYNONYM TRAVERSE-WORDLIST [DEFINED] [ELSE] [IF] [THEN] [UNDEFINED]"""),
            "CODE, ;CODE and ASSEMBLER would write machine code; tileforth generates LLVM IR (SEE-IR shows "
            "it). BYE ends the session (the REPL, the CLI; from Python, f.eval raises Bye); MARKER forgets "
            "words where FORGET would.", cannot=("CODE", ";CODE", "ASSEMBLER"), instead=("SEE-IR", "MARKER")),
    WordSet("SEARCH", "16.6.1", _words("""
        DEFINITIONS FIND FORTH-WORDLIST GET-CURRENT GET-ORDER SEARCH-WORDLIST SET-CURRENT SET-ORDER
        WORDLIST""")),
    WordSet("SEARCH-EXT", "16.6.2", _words("ALSO FORTH ONLY ORDER PREVIOUS")),
    WordSet("STRING", "17.6.1", _words("-TRAILING /STRING BLANK CMOVE CMOVE> COMPARE SEARCH SLITERAL")),
    WordSet("STRING-EXT", "17.6.2", _words("REPLACES SUBSTITUTE UNESCAPE")),
    WordSet("BLOCK", "7.6.1", _words("BLK BLOCK BUFFER EVALUATE FLUSH LOAD SAVE-BUFFERS UPDATE"),
            "The block words run on the host, between launches, on a block file as gforth's (blocks.fb in the "
            "current directory, or the file OPEN-BLOCKS names; block u at byte u*1024, created when a block is "
            "first written). The block buffers are device memory, so device code reads and writes them with C@ C! "
            "and the rest; a definition that uses a block word is host-level. Blocks are numbered from 1: BLK 0 "
            "means the input is not a block."),
    WordSet("BLOCK-EXT", "7.6.2", _words("EMPTY-BUFFERS LIST REFILL SCR THRU \\"),
            "LIST shows a block as gforth does, 16 lines of 64 characters; inside a block \\ skips to the end "
            "of such a line and REFILL goes on to the next block."),
]


@record(frozen=True)
class Status:
    wordset: WordSet
    present: tuple[str, ...]  # in the dictionary, with the standard's meaning
    missing: tuple[str, ...]  # not there, there with another meaning (DIFFERENT), or only refusing (REFUSED)


def status(names: Iterable[str]) -> list[Status]:
    """How much of each word set the dictionary `names` (Forth().dict) has."""
    have = {n.upper() for n in names}
    out = []
    for ws in WORDSETS:
        present = tuple(w for w in ws.words if w in have and w not in DIFFERENT and w not in REFUSED)
        out.append(Status(ws, present, tuple(w for w in ws.words if w not in present)))
    return out
