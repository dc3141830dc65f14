"""Records: classes of named fields, as the standard library's dataclasses make them, without
their cost at import.

    from tileforth.core.records import field, record

    @record(frozen=True)
    class Tile:
        rows: int
        cols: int
        notes: list[str] = field(default_factory=list)

On Python 3.11 `@dataclass` compiles each class's methods from source with exec (about
0.35 ms a class, 0.6 ms a frozen one), and importing dataclasses loads inspect, ast and
dis (9 ms): together 38 of the 72 ms `import tileforth.core` took with its 68 classes.
`@record` reads the same annotations and gives the same methods. All but one are written
once, here, and read each class's fields from a table; `__init__`, on which making records
costs most, is compiled for each class as dataclasses compiles it, but on its first call:
a class never instantiated (most views, the profile's records) pays nothing.

- `__init__(self, *fields in order, **by name)`, defaults and default factories as
  dataclasses has them, then `__post_init__()` if the class defines one;
- `__repr__` (`Tile(rows=16, cols=16, notes=[])`), `__match_args__` (the fields in order,
  for `case Tile(rows, cols)`);
- `__eq__` on the fields, for records of the same class (eq=False: identity); a record that
  compares its fields is not hashable unless frozen, when its hash is its fields';
- frozen=True: setting or deleting an attribute raises FrozenInstanceError.

A subclass's fields follow its bases'. Methods a class defines itself are kept. `record` is
declared with typing.dataclass_transform (PEP 681), so mypy, pyright and editors read each
record's __init__ from its fields, as they do a dataclass's. The
functions fields(), replace() and asdict() are dataclasses' own, for records. What is
left out: InitVar, KW_ONLY, slots, order, field options other than the default. A field's
name may not be a property of its class (its value lives in the instance's __dict__).
"""
from __future__ import annotations

import reprlib
from typing import Any, Callable, TypeVar, dataclass_transform, overload

_T = TypeVar("_T")

MISSING: Any = type("MISSING", (), {"__repr__": lambda self: "MISSING"})()


class FrozenInstanceError(AttributeError):
    """An attribute of a frozen record was set or deleted."""


class Field:
    __slots__ = ("name", "default", "default_factory")

    def __init__(self, default: Any = MISSING, default_factory: Callable[[], Any] = MISSING) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("a field has a default or a default_factory, not both")
        self.name = ""
        self.default, self.default_factory = default, default_factory

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r})"


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] = MISSING) -> Any:
    """A field's default value, or the function that makes one for each record (a list, a dict)."""
    return Field(default, default_factory)


@overload
def record(cls: type[_T], /) -> type[_T]: ...


@overload
def record(*, frozen: bool = False, eq: bool = True) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(field_specifiers=(field, Field))  # type checkers and editors see the constructors
def record(cls: type | None = None, /, *, frozen: bool = False, eq: bool = True) -> Any:
    """The class decorator: see the module's documentation."""
    def wrap(c: type) -> type:
        return _process(c, frozen, eq)

    return wrap if cls is None else wrap(cls)


def fields(obj_or_class) -> tuple[Field, ...]:
    """The record's fields, in order (what its __init__ takes)."""
    try:
        return tuple(obj_or_class.__record_fields__)
    except AttributeError:
        raise TypeError(f"{obj_or_class!r} is not a record") from None


def replace(obj, /, **changes):
    """A new record of obj's class, with obj's fields but for those changed."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = obj.__dict__[f.name]
    return obj.__class__(**changes)


def asdict(obj) -> dict:
    """A record as a dict of its fields, records in it (also in lists, tuples and dicts) as dicts too."""
    def convert(x):
        if hasattr(type(x), "__record_fields__"):
            return {f.name: convert(x.__dict__[f.name]) for f in x.__record_fields__}
        if isinstance(x, (list, tuple)):
            return type(x)(convert(v) for v in x)
        if isinstance(x, dict):
            return {convert(k): convert(v) for k, v in x.items()}
        return x

    if not hasattr(type(obj), "__record_fields__"):
        raise TypeError(f"{obj!r} is not a record")
    return convert(obj)


def _is_classvar(annotation) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))


def _process(cls: Any, frozen: bool, eq: bool) -> type:  # Any: it writes the class's methods
    inherited: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get("__record_fields__", ()):
            inherited[f.name] = f
    own = cls.__dict__.get("__annotations__", {})
    for name, annotation in own.items():
        if _is_classvar(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        f = value if isinstance(value, Field) else Field(default=value)
        f.name = name
        if isinstance(value, Field):  # the class attribute is the default, as dataclasses leaves it
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        if isinstance(f.default, (list, dict, set)):
            raise ValueError(f"{cls.__name__}.{name}: a mutable default is shared by every record; "
                             "use field(default_factory=...)")
        inherited[name] = f  # a field a base has keeps its place, as in dataclasses
    table = tuple(inherited.values())
    seen_default = False
    for f in table:
        has_default = f.default is not MISSING or f.default_factory is not MISSING
        if seen_default and not has_default:
            raise TypeError(f"{cls.__name__}: the field {f.name!r} without a default follows one with a default")
        seen_default = seen_default or has_default
        if isinstance(getattr(cls, f.name, None), property):
            raise TypeError(f"{cls.__name__}: the field {f.name!r} is also a property of the class")
    cls.__record_fields__ = table
    cls.__match_args__ = tuple(f.name for f in table)  # type: ignore[misc]  # (mypy guards the name)
    body = cls.__dict__
    if "__init__" not in body:
        cls.__init__ = _init(cls, table, hasattr(cls, "__post_init__"), frozen)
    if "__repr__" not in body:
        cls.__repr__ = _repr
    if eq and "__eq__" not in body:
        cls.__eq__ = _eq
    explicit_hash = "__hash__" in body and not (body["__hash__"] is None and "__eq__" in body)
    if eq and not explicit_hash:
        cls.__hash__ = _hash if frozen else None
    if frozen:
        cls.__setattr__ = _frozen_setattr
        cls.__delattr__ = _frozen_delattr
    return cls


def _init(cls: Any, table: tuple[Field, ...], post: bool, frozen: bool):
    """The class's __init__: on its first call it compiles the class's own (as dataclasses does at
    once), puts it in the class's place, and runs it. A class never made pays nothing."""
    def __init__(self, *args, **kwargs) -> None:
        own = _compiled_init(cls.__qualname__, table, post, frozen)
        if cls.__dict__.get("__init__") is __init__:
            cls.__init__ = own
        own(self, *args, **kwargs)

    return __init__


def _compiled_init(name: str, table: tuple[Field, ...], post: bool, frozen: bool):
    """__init__(self, field, ..., field=default, ...) that sets each field (a frozen record's in its
    __dict__: its __setattr__ refuses), then runs __post_init__ if the class has one."""
    env: dict[str, Any] = {"_rec_MISSING": MISSING}  # names no field takes
    params, body = [], []
    for i, f in enumerate(table):
        target = f"self.__dict__[{f.name!r}]" if frozen else f"self.{f.name}"
        if f.default_factory is not MISSING:
            env[f"_rec_factory{i}"] = f.default_factory
            params.append(f"{f.name}=_rec_MISSING")
            body.append(f"{target} = _rec_factory{i}() if {f.name} is _rec_MISSING else {f.name}")
        else:
            if f.default is not MISSING:
                env[f"_rec_default{i}"] = f.default
                params.append(f"{f.name}=_rec_default{i}")
            else:
                params.append(f.name)
            body.append(f"{target} = {f.name}")
    if post:
        body.append("self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body or ["pass"]) + "\n"
    exec(source, env)
    init = env["__init__"]
    init.__qualname__ = f"{name}.__init__"
    init.__module__ = __name__
    return init


@reprlib.recursive_repr()
def _repr(self) -> str:
    d = self.__dict__
    return f"{type(self).__qualname__}({', '.join(f'{f.name}={d[f.name]!r}' for f in self.__record_fields__)})"


def _values(self) -> tuple:
    d = self.__dict__
    return tuple(d[f.name] for f in self.__record_fields__)


def _eq(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _values(self) == _values(other)  # as tuples compare (an object equals itself: a NaN too)


def _hash(self) -> int:
    return hash(_values(self))


def _frozen_setattr(self, name: str, value) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")


def _frozen_delattr(self, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")
