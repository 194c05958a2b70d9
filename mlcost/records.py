"""Immutable records that are cheap to build: :func:`quick_init` gives a frozen dataclass a
constructor that stores its fields in one step.

A frozen dataclass's generated ``__init__`` stores each field through ``object.__setattr__``
(``dataclasses`` has to bypass the frozen ``__setattr__`` it installs), about 0.1 us per field:
3 us for the 24 fields of an :class:`mlcost.workload.table.Operator`, of which a single
configuration's step builds dozens. :func:`quick_init` replaces that constructor with one of the
same signature (names, order, defaults, keyword-only marker) that fills the instance's
``__dict__`` in one update, which is what the field-by-field stores leave behind. Everything
else is the dataclass's own: equality, hashing, ``repr``, ``dataclasses.replace`` (which calls
the new constructor), and the frozen ``__setattr__`` that refuses assignment afterwards.

Only plain frozen dataclasses qualify: every field an ``__init__`` parameter with a plain
default or none, no ``__post_init__``, no ``__slots__`` (the instance needs a ``__dict__``).
Anything else is refused when the class is defined, never silently built differently.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, TypeVar

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """``cls`` (a frozen dataclass) with a constructor that stores every field at once (module
    docstring); raises ``TypeError`` for a class it cannot serve."""
    if not dataclasses.is_dataclass(cls) or not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise TypeError(f"quick_init: {cls.__name__} is not a frozen dataclass")
    if "__slots__" in cls.__dict__ or hasattr(cls, "__post_init__"):
        raise TypeError(f"quick_init: {cls.__name__} has __slots__ or __post_init__")
    fields = dataclasses.fields(cls)
    signature = inspect.signature(cls.__init__)
    parameters = list(signature.parameters.values())[1:]  # without self
    if [p.name for p in parameters] != [f.name for f in fields]:
        raise TypeError(f"quick_init: {cls.__name__}'s constructor takes more than its fields")
    for f in fields:
        if not f.init or f.default_factory is not dataclasses.MISSING:
            raise TypeError(
                f"quick_init: {cls.__name__}.{f.name} has a default factory or no parameter"
            )
    names: dict[str, object] = {}
    declared, keyword_only = [], False
    for p in parameters:
        if p.kind is inspect.Parameter.KEYWORD_ONLY and not keyword_only:
            declared.append("*")
            keyword_only = True
        if p.default is inspect.Parameter.empty:
            declared.append(p.name)
        else:
            names[f"_default_{p.name}"] = p.default
            declared.append(f"{p.name}=_default_{p.name}")
    stored = ", ".join(f"{p.name!r}: {p.name}" for p in parameters)
    source = f"def __init__(self, {', '.join(declared)}):\n    self.__dict__.update({{{stored}}})\n"
    exec(source, names)
    init: Any = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    init.__wrapped__ = cls.__init__  # the dataclass's own
    setattr(cls, "__init__", init)  # noqa: B010 - a method replaced on the class
    return cls


def quick_replace(record: T, **changes: Any) -> T:
    """``dataclasses.replace(record, **changes)`` for a :func:`quick_init` record: a new record
    with ``record``'s fields and ``changes``, built by the one-step constructor (what ``replace``
    also calls in the end, after checking each field one at a time: about 4x the cost on an
    :class:`mlcost.workload.table.Operator`). An unknown field raises ``TypeError`` as
    ``replace`` does; anything but a :func:`quick_init` record goes to ``replace``."""
    cls = type(record)
    if getattr(cls.__init__, "__wrapped__", None) is None:
        return dataclasses.replace(record, **changes)  # type: ignore[type-var]
    state = record.__dict__
    values = {name: state[name] for name in cls.__dataclass_fields__}  # type: ignore[attr-defined]
    unknown = changes.keys() - values.keys()
    if unknown:
        raise TypeError(f"{cls.__name__}: no fields {sorted(unknown)}")
    values.update(changes)
    return cls(**values)
