"""The session's declared shape (tileforth/core/session/interpreter.py and its parts): a session
holds only what it declares, each façade name is kept by one part, and a failed line puts every
part back as it was, part by part (against what the line changed)."""
from __future__ import annotations

import pytest
from tileforth.core import Forth, ForthError
from tileforth.core.session.device import Device
from tileforth.core.session.parts import Builder, DataSpace, HostIO, TextInput, Views
from tileforth.core.session.wordlists import Dictionary

PARTS = {"device": Device, "words": Dictionary, "space": DataSpace, "builder": Builder, "text": TextInput,
         "io": HostIO, "views": Views}


def facade_names() -> dict[str, str]:
    """Each façade name and the part that keeps it (the properties _Part made)."""
    return {name: prop.__doc__.split()[1] for name, prop in vars(Forth).items()
            if isinstance(prop, property) and (prop.__doc__ or "").startswith("the ")}


def test_nothing_can_be_added_to_a_session_or_its_parts_from_outside():
    f = Forth()
    with pytest.raises(AttributeError):
        f.profiling_of_my_own = 1  # a module would once add attributes of its own like this
    for name, cls in PARTS.items():
        assert isinstance(getattr(f, name), cls)
        assert not hasattr(getattr(f, name), "__dict__"), name  # slots: only the declared state
        with pytest.raises(AttributeError):
            getattr(f, name).undeclared = 1


def test_every_facade_name_is_an_attribute_of_its_part():
    f = Forth()
    names = facade_names()
    assert {"here", "dict", "colon", "backend", "reader", "files", "view_warp"} <= set(names)
    for name, part in names.items():
        assert part in PARTS, (name, part)
        holder = getattr(f, part)
        target = "forth" if name == "dict" else name
        assert getattr(f, name) is getattr(holder, target), name
    f.here = 128
    assert f.space.here == 128  # set through the façade, kept by the part


def test_a_failed_line_puts_each_part_back():
    f = Forth()
    f.eval("VARIABLE keep  5 keep !  4 1 1 GRID  64 1 1 THREADS  7")
    before = (f.here, f.base(), f.launch_shape, f.data_stack(lane=None), list(f.dict), f.order, f.current,
              f.shared_bytes)
    with pytest.raises(ForthError):
        f.eval("HEX 100 ALLOT : half 2/ ; 16 SHARED: tmp WORDLIST SET-CURRENT 2 1 1 GRID 1 2 3 NOPE")
    after = (f.here, f.base(), f.launch_shape, f.data_stack(lane=None), list(f.dict), f.order, f.current,
             f.shared_bytes)
    assert after == before
    assert f.colon is None and f.frames == [] and f.segment == []
    assert f.eval("keep @ .") == "5 "  # every thread reads the VARIABLE the line did not change
