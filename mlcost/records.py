"""Immutable records: :class:`Record`, the base of mlcost's frozen value types (operator rows and
their times, the degrees and communication terms of the parallel model, the plan's resolved run
and its columns, figures), with :func:`field` (a default factory: ``field(default_factory=dict)``)
and :func:`replace`. The one module that names msgspec.

A record is a ``msgspec.Struct`` with ``frozen=True`` (msgspec, "Structs":
https://jcristharif.com/msgspec/structs.html). It reads like a frozen dataclass and behaves as
one: it compares, hashes, prints and pickles as a frozen dataclass does, and refuses assignment
(``AttributeError``); its class and constructor are built in C, so defining the package's
records adds little to import time.

A record is declared ``class R(Record, frozen=True)``: the keyword repeats the base's, as type
checkers read it per class (PEP 681, ``dataclass_transform``). A record with a
``functools.cached_property`` also declares ``dict=True``, which gives its instances the
``__dict__`` the property stores its value in. :func:`replace` builds a new record from the
fields alone, so a cached value is never carried over to a record whose fields changed.
"""

from __future__ import annotations

import msgspec
from msgspec import field
from msgspec.structs import replace


class Record(msgspec.Struct, frozen=True):
    """The base of mlcost's immutable records (module docstring): fields declared as class
    annotations, with defaults after the fields without; frozen."""


__all__ = ["Record", "field", "replace"]
