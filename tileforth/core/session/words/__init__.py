"""Every host word, immediate word and built-in constant of a session, one
module per kind of word, each declaring its words in the one table of
table.py (`WORDS`) as it is imported. In the reference's order:

    definitions   : ; :NONAME DOES> IMMEDIATE CONSTANT VARIABLE CREATE BUFFER: VALUE TO DEFER IS SYNONYM MARKER
    control       IF ELSE THEN BEGIN WHILE REPEAT UNTIL AGAIN DO LOOP LEAVE CASE OF AHEAD CS-PICK CS-ROLL
    locals        {: :}  { }  LOCALS|  (LOCAL)
    compiling     [ ] LITERAL POSTPONE [COMPILE] COMPILE, ' ['] FIND CATCH STATE
    textin        ( \\ ." .( CHAR [CHAR] SOURCE >IN WORD PARSE PARSE-NAME REFILL EVALUATE KEY ACCEPT
    strings       S" S\\" C" ABORT" SLITERAL REPLACES SUBSTITUTE UNESCAPE HLD
    dataspace     HERE , C, ALLOT ALIGN PAD UNUSED BASE HEX DECIMAL
    double        2CONSTANT 2VARIABLE 2VALUE 2LITERAL
    floats        FCONSTANT FVARIABLE FVALUE FLITERAL >FLOAT REPRESENT SET-PRECISION FALIGN
    conditional   [IF] [ELSE] [THEN] [DEFINED] [UNDEFINED]
    wordlists     the search order and name tokens (SEARCH, SEARCH-EXT, NAME>STRING ...)
    system        ENVIRONMENT? BYE MS TIME&DATE CLEARSTACK and the step budget
    memory        ALLOCATE FREE RESIZE
    launch        GRID THREADS SHARED: (the SIMT launch)
    smem          SMEM-TILE SMEM-TILE-SWZ (shared-memory tiles for cp.async)
    arrays        ARRAY MATRIX and the element types I8 ... F64
    hopper        TMAP (tensor maps for the TMA words)
    arraydata     ZEROS AFILL RAMP IDENTITY RANDOM LOAD-NPY SAVE-NPY
    devices       DEVICES DEVICE DEVICE? .ARRAYS ACOPY (several GPUs in one session)
    tiles         TILE-SHAPE TILE-GRID TILE-IN TILE-ACC TILES-KEPT?
    inspection    .STACKS .LANES .TILE .FRAG VIEW-WARP .M SEE SEE-IR SEE-PTX HELP WORDS DUMP
    profiling     PROFILE PROFILE{ }PROFILE
    debug         DEBUG BREAK UNBREAK WATCH DSTEP DSYNC DCONT DFINISH DWARP DBLOCK DQUIT
    files         the FILE words, INCLUDED INCLUDE REQUIRED REQUIRE
    blocks        the BLOCK words, OPEN-BLOCKS

The primitives (device words) have their own registry
(tileforth/core/compile/primitives.py) and the words written in Forth are in
prelude.fth.
"""
from __future__ import annotations

from . import (  # noqa: F401 - imported for the words they declare, in this order
    definitions,
    control,
    locals,
    compiling,
    textin,
    strings,
    dataspace,
    double,
    floats,
    conditional,
    wordlists,
    system,
    memory,
    launch,
    smem,
    arrays,
    hopper,
    arraydata,
    devices,
    tiles,
    inspection,
    profiling,
    debug,
    files,
    blocks,
)
from .table import WORDS, BuiltinConstant, WordTable

__all__ = ["WORDS", "WordTable", "BuiltinConstant"]
