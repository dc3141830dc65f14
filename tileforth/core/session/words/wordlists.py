"""Word lists and the search order (Forth-2012 16, 15.6.2): FORTH-WORDLIST
WORDLIST GET-ORDER SET-ORDER GET-CURRENT SET-CURRENT DEFINITIONS
SEARCH-WORDLIST ONLY ALSO PREVIOUS FORTH ORDER, gforth's VOCABULARY ROOT
>ORDER ENVIRONMENT-WORDLIST, and name tokens (NAME>STRING
NAME>INTERPRET NAME>COMPILE TRAVERSE-WORDLIST). Forth.wordlists holds the
lists (FORTH-WORDLIST is the session's dictionary), Forth.order the search
order and Forth.current where definitions go."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ForthError
from ...front.dictionary import Colon, is_immediate
from ...front.reader import Token
from ...front.tree import HostOp
from ..wordlists import ENVIRONMENT_WORDLIST, ROOT_WORDLIST
from .strings import place
from .table import NEW, Parse, host
from .textin import _name

if TYPE_CHECKING:
    from ..interpreter import Forth


FORTH_WORDLIST = 1  # the dictionary's word list (its id)


@host("NAME>STRING", "( nt -- c-addr u )", "The name of a word (a name token is its execution token).",
      "' DUP NAME>STRING TYPE \\ DUP", wordset="PROGRAMMING-TOOLS-EXT")
def w_name_to_string(f: "Forth", tok: Token) -> None:
    (nt,) = f.pop_uniform(1, "NAME>STRING")
    name = f.tokens.entry_of(nt, "NAME>STRING").name.encode("latin-1", "replace")
    f.push_uniform(place(f, name, tok), len(name))


@host("NAME>INTERPRET", "( nt -- xt )", "The execution token of a name token (the same number here).",
      "' DUP NAME>INTERPRET ' DUP = . \\ -1", wordset="PROGRAMMING-TOOLS-EXT")
def w_name_to_interpret(f: "Forth", tok: Token) -> None:
    (nt,) = f.pop_uniform(1, "NAME>INTERPRET")
    f.tokens.entry_of(nt, "NAME>INTERPRET")
    f.push_uniform(nt)


@host("NAME>COMPILE", "( nt -- x xt )", "What compiles the word: x and the token of COMPILE, (or EXECUTE "
      "for an immediate word).", "' DUP NAME>COMPILE ' COMPILE, = . DROP \\ -1", wordset="PROGRAMMING-TOOLS-EXT")
def w_name_to_compile(f: "Forth", tok: Token) -> None:
    (nt,) = f.pop_uniform(1, "NAME>COMPILE")
    entry = f.tokens.entry_of(nt, "NAME>COMPILE")
    f.push_uniform(nt, f.tokens.xt_of(f.dict["EXECUTE" if is_immediate(entry) else "COMPILE,"]))


def _wordlist(f: "Forth", wid: int, word: str) -> dict:
    if not 1 <= wid <= len(f.wordlists):
        raise ForthError(f"{word}: {wid} is not a word list; FORTH-WORDLIST and WORDLIST give them")
    return f.wordlists[wid - 1]


@host("TRAVERSE-WORDLIST", "( i*x xt wid -- j*x )", "Run xt ( nt -- flag ) on each word, newest first, "
      "while it returns true.", ": zz 1 ; :NONAME NAME>STRING TYPE 0 ; FORTH-WORDLIST TRAVERSE-WORDLIST \\ zz",
      wordset="PROGRAMMING-TOOLS-EXT")
def w_traverse_wordlist(f: "Forth", tok: Token) -> None:
    xt, wid = f.pop_uniform(2, "TRAVERSE-WORDLIST")
    words = _wordlist(f, wid, "TRAVERSE-WORDLIST")
    visit = f.tokens.entry_of(xt, "TRAVERSE-WORDLIST")
    for newest in reversed(list(words.values())):  # the newest name first, then the words it hides
        entry = newest
        while entry is not None:
            f.push_uniform(f.tokens.xt_of(entry))
            f.run_entry(visit, tok)
            (go_on,) = f.pop_uniform(1, "TRAVERSE-WORDLIST")
            if not go_on:
                return
            entry = f.hidden_by(entry)


@host("FORTH-WORDLIST", "( -- wid )", "The word list of the dictionary's words.", "FORTH-WORDLIST .",
      wordset="SEARCH")
def w_forth_wordlist(f: "Forth", tok: Token) -> None:
    f.push_uniform(FORTH_WORDLIST)


@host("WORDLIST", "( -- wid )", "A new, empty word list.", "WORDLIST DROP", wordset="SEARCH")
def w_wordlist(f: "Forth", tok: Token) -> None:
    f.wordlists.append({})
    f.push_uniform(len(f.wordlists))


@host("GET-ORDER", "( -- widn .. wid1 n )", "The search order (wid1 is searched first).", "GET-ORDER . . \\ 1 1",
      wordset="SEARCH")
def w_get_order(f: "Forth", tok: Token) -> None:
    f.push_uniform(*reversed(f.order), len(f.order))


@host("SET-ORDER", "( widn .. wid1 n -- )", "Set the search order (n = -1: the minimum, FORTH only).", "-1 SET-ORDER",
      wordset="SEARCH")
def w_set_order(f: "Forth", tok: Token) -> None:
    (n,) = f.pop_uniform(1, "SET-ORDER")
    if n == -1:
        f.order = [FORTH_WORDLIST]
        return
    if not 0 <= n <= 64:
        raise ForthError(f"SET-ORDER: {n} word lists: give 0 to 64 (or -1 for the minimum order)")
    wids = list(reversed(f.pop_uniform(n, "SET-ORDER"))) if n else []
    for wid in wids:
        _wordlist(f, wid, "SET-ORDER")
    f.order = wids


@host("GET-CURRENT", "( -- wid )", "The word list new definitions go into.", "GET-CURRENT . \\ 1", wordset="SEARCH")
def w_get_current(f: "Forth", tok: Token) -> None:
    f.push_uniform(f.current)


@host("SET-CURRENT", "( wid -- )", "Make new definitions go into wid.", "FORTH-WORDLIST SET-CURRENT",
      wordset="SEARCH")
def w_set_current(f: "Forth", tok: Token) -> None:
    (wid,) = f.pop_uniform(1, "SET-CURRENT")
    _wordlist(f, wid, "SET-CURRENT")
    f.current = wid


@host("DEFINITIONS", "( -- )", "New definitions go into the first word list of the search order.", "DEFINITIONS",
      wordset="SEARCH")
def w_definitions(f: "Forth", tok: Token) -> None:
    if not f.order:
        raise ForthError("DEFINITIONS: the search order is empty; ONLY or SET-ORDER first")
    f.current = f.order[0]


@host("SEARCH-WORDLIST", "( c-addr u wid -- 0 | xt 1 | xt -1 )", "Look a name up in one word list.",
      'S" DUP" FORTH-WORDLIST SEARCH-WORDLIST . DROP \\ -1', wordset="SEARCH")
def w_search_wordlist(f: "Forth", tok: Token) -> None:
    addr, n, wid = f.pop_uniform(3, "SEARCH-WORDLIST")
    name = f.read_bytes(addr, n).decode("latin-1").upper()
    entry = _wordlist(f, wid, "SEARCH-WORDLIST").get(name)
    if entry is None:
        f.push_uniform(0)
    else:
        f.push_uniform(f.tokens.xt_of(entry), 1 if is_immediate(entry) else -1)


@host("ONLY", "( -- )", "The minimum search order: FORTH-WORDLIST only.", "ONLY", wordset="SEARCH-EXT")
def w_only(f: "Forth", tok: Token) -> None:
    f.order = [FORTH_WORDLIST]


@host("ALSO", "( -- )", "Duplicate the first word list of the search order.", "ALSO PREVIOUS", wordset="SEARCH-EXT")
def w_also(f: "Forth", tok: Token) -> None:
    if not f.order:
        raise ForthError("ALSO: the search order is empty; ONLY first")
    f.order.insert(0, f.order[0])


@host("PREVIOUS", "( -- )", "Remove the first word list from the search order.", "ALSO PREVIOUS",
      wordset="SEARCH-EXT")
def w_previous(f: "Forth", tok: Token) -> None:
    if not f.order:
        raise ForthError("PREVIOUS: the search order is already empty")
    f.order.pop(0)


@host("FORTH", "( -- )", "Replace the first word list of the search order with FORTH-WORDLIST.", "ONLY FORTH",
      wordset="SEARCH-EXT")
def w_forth(f: "Forth", tok: Token) -> None:
    if f.order:
        f.order[0] = FORTH_WORDLIST
    else:
        f.order = [FORTH_WORDLIST]


@host("ORDER", "( -- )", "Print the search order and where definitions go.",
      "ORDER \\ FORTH  (definitions go into FORTH)", wordset="SEARCH-EXT")
def w_order(f: "Forth", tok: Token) -> None:
    names = [f.words.names.get(w, f"wid{w}") for w in f.order]
    cur = f.words.names.get(f.current, f"wid{f.current}")
    f.print_text(" ".join(names) + f"  (definitions go into {cur})\n")


# ---- gforth's vocabularies ----------------------------------------------------------------------
ROOT_WORDS = ("ORDER", "SET-ORDER", "FORTH-WORDLIST", "FORTH", "WORDS")  # what gforth 0.7.3's ROOT holds


def _replace_first(f: "Forth", wid: int) -> None:
    """What a vocabulary does: its word list replaces the first of the search order."""
    if f.order:
        f.order[0] = wid
    else:
        f.order = [wid]


@host("VOCABULARY", '( "name" -- )', "Define name with a new word list: running name makes that word list the "
      "first of the search order (as FORTH does for FORTH-WORDLIST), ORDER shows its name.",
      "VOCABULARY v  ALSO v DEFINITIONS : vw 9 ;  PREVIOUS DEFINITIONS  ALSO v vw . PREVIOUS \\ 9",
      wordset="gforth", parses=Parse(NEW, defines="colon"))
def w_vocabulary(f: "Forth", tok: Token) -> None:
    name = _name(f, tok)
    f.wordlists.append({})
    wid = len(f.wordlists)
    f.words.names[wid] = name.text
    f.define(Colon(name.text, [HostOp(name.text, lambda f, node: _replace_first(f, node.arg), wid, name.pos)],
                   name.pos))


def _root(f: "Forth") -> int:
    words = f.wordlists[ROOT_WORDLIST - 1]
    for key in ROOT_WORDS:
        if key not in words and key in f.dict:
            words[key] = f.dict[key]
    return ROOT_WORDLIST


@host("ROOT", "( -- )", "gforth's Root vocabulary: make its word list (ORDER SET-ORDER FORTH-WORDLIST FORTH "
      "WORDS) the first of the search order.", "ROOT ORDER FORTH \\ ROOT  (definitions go into FORTH)",
      wordset="gforth")
def w_root(f: "Forth", tok: Token) -> None:
    _replace_first(f, _root(f))


@host(">ORDER", "( wid -- )", "Put wid first in the search order (in front of the others).",
      "WORDLIST >ORDER PREVIOUS", wordset="gforth")
def w_to_order(f: "Forth", tok: Token) -> None:
    (wid,) = f.pop_uniform(1, ">ORDER")
    _wordlist(f, wid, ">ORDER")
    f.order.insert(0, wid)


@host("ENVIRONMENT-WORDLIST", "( -- wid )", "The word list of ENVIRONMENT?'s queries: each word pushes what "
      "ENVIRONMENT? answers (without the flag).", "ENVIRONMENT-WORDLIST >ORDER MAX-N . PREVIOUS \\ "
      "9223372036854775807", wordset="gforth")
def w_environment_wordlist(f: "Forth", tok: Token) -> None:
    from .system import environment_words
    words = f.wordlists[ENVIRONMENT_WORDLIST - 1]
    for key, entry in environment_words(f).items():
        words.setdefault(key, entry)
    f.push_uniform(ENVIRONMENT_WORDLIST)
