"""tileforth/core/records.py against its reference, the standard library's dataclasses: the same class
declared both ways makes the same records (fields, order, defaults, repr, equality, hashing,
frozenness, pattern matching, replace, asdict) and refuses the same wrong calls."""
from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
from typing import ClassVar

import pytest
from tileforth.core import records


def both(make):
    """make(decorator, field) -> class, once with dataclasses and once with records."""
    return make(dataclasses.dataclass, dataclasses.field), make(records.record, records.field)


def point(deco, field):
    @deco
    class Point:
        """A point."""

        x: int
        y: int = 0
        tags: list = field(default_factory=list)
        kind: ClassVar[str] = "point"  # not a field

        def norm(self) -> int:
            return abs(self.x) + abs(self.y)

    return Point


def frozen_pair(deco, field):
    @deco(frozen=True)
    class Pair:
        """Two values."""

        a: object
        b: object = None

    return Pair


def identity(deco, field):
    @deco(eq=False)
    class Node:
        """Compared by identity."""

        value: int

    return Node


def family(deco, field):
    @deco(frozen=True)
    class Base:
        """A base."""

        dst: int
        size: int = 4

    @deco(frozen=True)
    class Child(Base):
        """A subclass with one more field."""

        extra: str = "e"

    class Plain(Child):
        """A subclass that is no record itself."""

    return Base, Child, Plain


def posted(deco, field):
    @deco
    class Counted:
        """Runs __post_init__."""

        n: int
        double: int = 0

        def __post_init__(self) -> None:
            self.double = 2 * self.n

    return Counted


def fields_of(cls, mod) -> list[tuple]:
    """(name, default, default factory) of each field, MISSING as records has it."""
    def missing(x):
        return records.MISSING if x is dataclasses.MISSING else x

    return [(f.name, missing(f.default), missing(f.default_factory)) for f in mod.fields(cls)]


CALLS = [((1,), {}), ((1, 2), {}), ((1, 2, [3]), {}), ((), {"x": 5, "tags": ["t"]}), ((1,), {"y": 7})]
BAD_CALLS = [((), {}), ((1, 2, 3, 4), {}), ((1,), {"x": 2}), ((1,), {"nope": 2})]


@pytest.mark.parametrize("args,kwargs", CALLS)
def test_init_repr_eq_and_fields_are_dataclasses(args, kwargs):
    D, R = both(point)
    d, r = D(*args, **kwargs), R(*args, **kwargs)
    assert repr(r) == repr(d)
    assert vars(r) == vars(d)
    assert r == R(*args, **kwargs) and r != R(99) and (r == d) is False  # records of another class differ
    assert fields_of(R, records) == fields_of(D, dataclasses)
    assert R.__match_args__ == D.__match_args__ == ("x", "y", "tags")
    assert R.kind == "point" and r.norm() == d.norm()
    assert (R.__hash__ is None) == (D.__hash__ is None) is True  # eq without frozen: unhashable
    assert R(1).tags is not R(1).tags  # a factory per record


@pytest.mark.parametrize("args,kwargs", BAD_CALLS)
def test_wrong_calls_are_refused_alike(args, kwargs):
    D, R = both(point)
    with pytest.raises(TypeError):
        D(*args, **kwargs)
    with pytest.raises(TypeError):
        R(*args, **kwargs)


def test_frozen_records_hash_and_refuse_changes_like_dataclasses():
    D, R = both(frozen_pair)
    for a, b in [(1, 2), ("s", None), ((1, 2), 3.5)]:
        assert hash(R(a, b)) == hash(D(a, b))
        assert R(a, b) == R(a, b) and {R(a, b): 1}[R(a, b)] == 1
    nan = math.nan
    assert (R(nan) == R(nan)) == (D(nan) == D(nan))  # the same NaN object: equal, as in a tuple
    for obj, error in ((R(1), records.FrozenInstanceError), (D(1), dataclasses.FrozenInstanceError)):
        with pytest.raises(error):
            obj.a = 2
        with pytest.raises(AttributeError):
            del obj.b
    assert issubclass(records.FrozenInstanceError, AttributeError)


def test_eq_false_is_identity_and_keeps_the_hash():
    D, R = both(identity)
    for cls in (D, R):
        one = cls(1)
        assert one == one and one != cls(1) and hash(one) == object.__hash__(one)


def test_subclasses_inherit_fields_in_order():
    (DB, DC, DP), (RB, RC, RP) = both(family)
    assert [f.name for f in records.fields(RC)] == [f.name for f in dataclasses.fields(DC)] == ["dst", "size", "extra"]
    assert repr(RP(1)) == repr(DP(1)) and RP.__match_args__ == DP.__match_args__
    assert RP(1) != RC(1) and DP(1) != DC(1)  # another class: not equal
    assert RC(1, 2, "x") == RC(1, 2, "x") and hash(RC(1, 2, "x")) == hash(DC(1, 2, "x"))

    def match(obj):
        match obj:
            case RC(dst, size, extra) | DC(dst, size, extra):
                return dst, size, extra
        return None

    assert match(RC(1, 2, "x")) == match(DC(1, 2, "x")) == (1, 2, "x")


def test_a_subclass_that_gives_a_field_a_default_keeps_its_place():
    def make(deco, field):
        @deco
        class Base:
            """Two fields."""

            a: int
            b: int

        @deco
        class Again(Base):
            """b again, now with a default, and c after it."""

            b: int = 5
            c: int = 6

        return Again

    D, R = both(make)
    assert R.__match_args__ == D.__match_args__ == ("a", "b", "c")
    assert repr(R(1)) == repr(D(1)).replace(D.__qualname__, R.__qualname__)


def test_post_init_runs_after_the_fields():
    D, R = both(posted)
    assert vars(R(4)) == vars(D(4)) == {"n": 4, "double": 8}


def test_replace_and_asdict_are_dataclasses():
    D, R = both(point)
    (DB, DC, _), (RB, RC, _) = both(family)
    assert vars(records.replace(R(1, 2, ["a"]), y=9)) == vars(dataclasses.replace(D(1, 2, ["a"]), y=9))
    assert records.replace(RC(1), extra="z") == RC(1, 4, "z")
    nested_r, nested_d = R(1, 2, [RC(3)]), D(1, 2, [DC(3)])
    assert records.asdict(nested_r) == dataclasses.asdict(nested_d)
    for mod, bad in ((records, 5), (dataclasses, 5)):
        with pytest.raises(TypeError):
            mod.replace(bad)
        with pytest.raises(TypeError):
            mod.asdict(bad)


def test_methods_the_class_defines_are_kept():
    @records.record
    class Own:
        """Its own repr."""

        a: int

        def __repr__(self) -> str:
            return "own"

    assert repr(Own(1)) == "own" and Own(1) == Own(1)


def test_init_is_compiled_on_first_use_and_fields_may_take_any_name():
    """__init__ is compiled when the class is first instantiated (then it is the class's own); the
    names the compiled code uses itself cannot clash with a field's."""
    def make(deco, field):
        @deco
        class Names:
            """Fields named as the generated code's locals might be."""

            d: int
            env: int = 2
            MISSING: list = field(default_factory=list)
            self_: int = 4

        return Names

    D, R = both(make)
    lazy = R.__init__
    assert vars(R(1)) == vars(D(1)) and R.__init__ is not lazy  # replaced by the compiled one
    assert vars(R(1, 5, [6], 7)) == vars(D(1, 5, [6], 7)) and vars(R(d=0, MISSING=[1])) == vars(D(d=0, MISSING=[1]))


def test_declaration_mistakes_are_refused():
    with pytest.raises(TypeError):  # dataclasses refuses it too: a field without a default after one with
        @records.record
        class Order:
            a: int = 0
            b: int

    with pytest.raises(ValueError):  # a list default would be shared by every record
        @records.record
        class Shared:
            a: list = []


def test_importing_the_core_loads_no_dataclasses():
    """The reason records exist: dataclasses (with inspect, ast, dis) and its exec of each class's
    methods cost about half of `import tileforth.core` on Python 3.11."""
    code = "import sys, tileforth.core; print(sorted(m for m in ('dataclasses', 'inspect', 'ast') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_records_copy_and_pickle_as_dataclasses_do():
    """The session snapshots with copy; frozen records (their __setattr__ refuses) copy all the same."""
    import copy
    import pickle

    from tileforth.core.compile.tiles import TileConfig
    from tileforth.core.errors import SourcePos

    (_, DC, _), (_, RC, _) = both(family)
    for d, r in ((DC(1, 2, "x"), RC(1, 2, "x")), (DC(3), RC(3))):
        assert vars(copy.deepcopy(r)) == vars(copy.deepcopy(d)) and copy.copy(r) == r
    for value in (TileConfig(), SourcePos(3, 4, "DUP", "<input>")):  # module-level records pickle
        assert pickle.loads(pickle.dumps(value)) == value and hash(copy.deepcopy(value)) == hash(value)
