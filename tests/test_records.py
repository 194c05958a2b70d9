"""mlcost's records (``msgspec.Struct`` subclasses of :class:`mlcost.records.Record`) against the
frozen dataclass with the same fields (the oracle: the standard library's ``dataclasses``, what
these records were before): the same constructor (positions, keywords, defaults, unknown names
refused), equality, hashing, ``repr``, ``replace`` and refused assignment, on every record class
of the package."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pickle
import pkgutil
from typing import Any

import pytest

import mlcost
from mlcost.records import Record, field, replace


def _record_classes() -> list[type[Record]]:
    found = []
    for info in pkgutil.walk_packages(mlcost.__path__, "mlcost."):
        if ".cli" in info.name or info.name.endswith("__main__") or ".bench" in info.name:
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Record)
                and value is not Record
                and value.__module__ == module.__name__
            ):
                found.append(value)
    return sorted(found, key=lambda c: f"{c.__module__}.{c.__qualname__}")


CLASSES = _record_classes()


class _WithFactory(Record, frozen=True):
    items: dict[str, Any] = field(default_factory=dict)


_Factory = type(_WithFactory.__struct_defaults__[0])  # how a class keeps a default factory


def _declared(cls: type[Record]) -> dict[str, Any]:
    """Each field's default (``dataclasses.MISSING`` for none) as the class declares it, read
    without resolving the annotations (``msgspec.structs.fields`` evaluates them, and some
    name types imported for type checkers only)."""
    names, defaults = cls.__struct_fields__, cls.__struct_defaults__
    missing = (dataclasses.MISSING,) * (len(names) - len(defaults))
    return dict(zip(names, (*missing, *defaults), strict=True))


def _as_dataclass(cls: type[Record]) -> type:
    """The frozen dataclass with ``cls``'s fields, in order, with their defaults."""
    spec = []
    for name, default in _declared(cls).items():
        if isinstance(default, _Factory):
            declared = dataclasses.field(default_factory=default.factory)
        else:
            declared = dataclasses.field(default=default)
        spec.append((name, Any, declared))
    return dataclasses.make_dataclass(cls.__name__, spec, frozen=True)


def _values(record: Any, names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(getattr(record, name) for name in names)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_a_record_builds_compares_and_prints_as_the_frozen_dataclass(cls: type[Record]) -> None:
    oracle = _as_dataclass(cls)
    names = cls.__struct_fields__
    assert names == tuple(f.name for f in dataclasses.fields(oracle))
    markers = {name: f"<{name}>" for name in names}  # a distinct, hashable value per field
    required = {
        name: markers[name]
        for name, default in _declared(cls).items()
        if default is dataclasses.MISSING
    }
    # Every field by keyword, every field by position, and the required ones alone.
    for args, kwargs in (((), markers), (tuple(markers.values()), {}), ((), required)):
        ours, theirs = cls(*args, **kwargs), oracle(*args, **kwargs)
        assert _values(ours, names) == _values(theirs, names)
        assert repr(ours) == repr(theirs)
        assert ours == cls(*args, **kwargs)
        try:
            hash(theirs)
        except TypeError:  # a default the dataclass cannot hash (a dict) is unhashable here too
            with pytest.raises(TypeError):
                hash(ours)
        else:
            assert hash(ours) == hash(cls(*args, **kwargs))
        assert pickle.loads(pickle.dumps(ours)) == ours
    record = cls(**markers)
    assert record != cls(**{**markers, names[0]: "other"})
    with pytest.raises(TypeError):
        cls(**markers, not_a_field=1)
    with pytest.raises(TypeError):
        oracle(**markers, not_a_field=1)
    with pytest.raises(AttributeError):
        setattr(record, names[0], "assigned")  # the frozen record refuses it


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_replace_is_dataclasses_replace(cls: type[Record]) -> None:
    oracle = _as_dataclass(cls)
    names = cls.__struct_fields__
    markers = {name: f"<{name}>" for name in names}
    changed = {names[0]: "first", names[-1]: "last"}
    ours = replace(cls(**markers), **changed)
    theirs = dataclasses.replace(oracle(**markers), **changed)
    assert type(ours) is cls and _values(ours, names) == _values(theirs, names)
    with pytest.raises(TypeError):
        replace(cls(**markers), not_a_field=1)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_a_record_with_cached_properties_has_a_dict_to_keep_them_in(cls: type[Record]) -> None:
    # A cached property stores its value in the instance's __dict__: a record without one
    # (msgspec's default) would fail on the first read.
    cached = [
        name for name in dir(cls) if isinstance(getattr(cls, name, None), functools.cached_property)
    ]
    if cached:
        assert cls.__struct_config__.dict, f"{cls.__name__}: cached {cached} without dict=True"


def test_replace_leaves_what_a_record_kept_behind() -> None:
    # A value a record derived and kept (a cached property) is not a field: a replaced record
    # computes its own, as dataclasses.replace's does.
    class Square(Record, frozen=True, dict=True):
        side: float

        @functools.cached_property
        def area(self) -> float:
            return self.side * self.side

    square = Square(2.0)
    assert square.area == 4.0
    assert replace(square, side=3.0).area == 9.0
