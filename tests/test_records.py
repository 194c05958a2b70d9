"""``quick_init`` against the dataclass constructor it replaces (the oracle: ``dataclasses``' own
generated ``__init__``, kept as ``__init__.__wrapped__``), on every class of the package that
uses it."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import pkgutil
from typing import Any

import pytest

import mlcost
from mlcost.records import quick_init, quick_replace


def _quick_classes() -> list[type]:
    found = []
    for info in pkgutil.walk_packages(mlcost.__path__, "mlcost."):
        if ".cli" in info.name or info.name.endswith("__main__") or ".bench" in info.name:
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            init = getattr(value, "__init__", None)
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and "__init__" in value.__dict__
                and getattr(init, "__qualname__", "") == f"{value.__qualname__}.__init__"
                and hasattr(init, "__wrapped__")
                and dataclasses.is_dataclass(value)
            ):
                found.append(value)
    return sorted(found, key=lambda c: f"{c.__module__}.{c.__qualname__}")


CLASSES = _quick_classes()


def test_the_hot_records_use_it() -> None:
    names = {c.__name__ for c in CLASSES}
    assert {"Operator", "OperatorTime", "CommTerm", "GroupPlacement", "Figure"} <= names


def _built_by(init: Any, cls: type, *args: Any, **kwargs: Any) -> dict[str, Any]:
    instance = object.__new__(cls)
    init(instance, *args, **kwargs)
    return dict(vars(instance))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_same_signature_and_same_fields_as_the_dataclass_constructor(cls: type) -> None:
    new, old = cls.__init__, cls.__init__.__wrapped__  # type: ignore[misc]
    ours = inspect.signature(new, follow_wrapped=False).parameters.values()
    theirs = inspect.signature(old).parameters.values()
    assert [(p.name, p.kind, p.default) for p in ours] == [
        (p.name, p.kind, p.default) for p in theirs
    ]
    fields = dataclasses.fields(cls)
    values = {f.name: object() for f in fields}  # a distinct marker per field
    # Every field by keyword, then the positional ones by position, then the defaults omitted.
    assert _built_by(new, cls, **values) == _built_by(old, cls, **values) == values
    positional = [f.name for f in fields if not f.kw_only]
    args = [values[name] for name in positional]
    rest = {name: v for name, v in values.items() if name not in positional}
    assert _built_by(new, cls, *args, **rest) == _built_by(old, cls, *args, **rest)
    required = {
        f.name: values[f.name]
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    assert _built_by(new, cls, **required) == _built_by(old, cls, **required)
    with pytest.raises(TypeError):
        new(object.__new__(cls), **values, not_a_field=1)


def _point(quick: bool) -> Any:
    """A frozen dataclass with a default and a keyword-only field, with or without quick_init
    (the plain one is the oracle)."""

    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 2
        _: dataclasses.KW_ONLY
        label: str = "p"

    return quick_init(Point) if quick else Point


def test_still_frozen_equal_hashable_and_replaceable() -> None:
    point, plain = _point(quick=True), _point(quick=False)
    p = point(1)
    assert (p.x, p.y, p.label) == (1, 2, "p")
    assert repr(p) == repr(plain(1)) and vars(p) == vars(plain(1))
    assert p == point(1, 2, label="p") and hash(p) == hash(point(1, 2, label="p"))
    assert hash(p) == hash(plain(1))
    assert dataclasses.replace(p, y=5, label="q") == point(1, 5, label="q")
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 3
    for cls in (point, plain):  # the label is keyword-only in both
        with pytest.raises(TypeError):
            cls(1, 2, "positional label")


def test_classes_it_cannot_serve_are_refused() -> None:
    @dataclasses.dataclass
    class Mutable:
        x: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Slotted:
        x: int

    @dataclasses.dataclass(frozen=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True)
    class Factory:
        x: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True)
    class Hidden:
        x: int
        y: int = dataclasses.field(default=0, init=False)

    for cls in (Mutable, Slotted, Checked, Factory, Hidden, int):
        with pytest.raises(TypeError, match="quick_init"):
            quick_init(cls)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_quick_replace_equals_dataclasses_replace(cls: type) -> None:
    # The oracle: dataclasses.replace on the same record, field by field.
    fields = dataclasses.fields(cls)
    record = cls(**{f.name: object() for f in fields})
    changed = {fields[0].name: object(), fields[-1].name: object()}
    ours, theirs = quick_replace(record, **changed), dataclasses.replace(record, **changed)
    assert type(ours) is cls and vars(ours) == vars(theirs)
    assert vars(quick_replace(record)) == vars(record)
    with pytest.raises(TypeError):
        quick_replace(record, not_a_field=1)


def test_quick_replace_leaves_what_a_record_kept_behind() -> None:
    # A value a record derived and kept (a cached property) is not a field: a replaced record
    # computes its own, as dataclasses.replace's does.
    @quick_init
    @dataclasses.dataclass(frozen=True)
    class Square:
        side: float

        @functools.cached_property
        def area(self) -> float:
            return self.side * self.side

    square = Square(2.0)
    assert square.area == 4.0
    assert quick_replace(square, side=3.0).area == 9.0


def test_quick_replace_of_a_plain_dataclass_is_dataclasses_replace() -> None:
    plain = _point(quick=False)
    assert quick_replace(plain(1), y=5) == plain(1, 5)
