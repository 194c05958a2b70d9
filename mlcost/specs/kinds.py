"""Which spec class a YAML ``kind`` names, and the validation of a mapping into it.

A spec file's ``kind`` field (``accelerator``, ``transformer``, ``price``, ...) picks its pydantic
schema. :data:`SPEC_TYPES` maps each kind to its class. :func:`spec_from_dict` validates a mapping
(as read from YAML or built from a Hugging Face ``config.json``) into that class. The catalog
(:mod:`mlcost.specs.catalog`) and the Hugging Face import (:mod:`mlcost.specs.hf`) both read specs
through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from mlcost.errors import SpecError, closest_names
from mlcost.specs.base import Spec, validation_problems
from mlcost.specs.economics import Grid, Price
from mlcost.specs.formats import NumericFormat
from mlcost.specs.hardware import Accelerator, Cluster, Host, Link, Node, Storage
from mlcost.specs.models import ConvNetSpec, TransformerSpec
from mlcost.specs.software import Engine, Implementation, Kernel

#: Every spec class by its ``kind``.
SPEC_TYPES: dict[str, type[Spec]] = {
    cls.KIND: cls
    for cls in (
        Accelerator,
        Link,
        Storage,
        Host,
        Node,
        Cluster,
        TransformerSpec,
        ConvNetSpec,
        Grid,
        Price,
        NumericFormat,
        Implementation,
        Kernel,
        Engine,
    )
}

#: Every field any spec class has (and ``kind``): a misspelt field is matched against these.
_ALL_FIELDS = {name for cls in SPEC_TYPES.values() for name in cls.model_fields} | {"kind"}


def spec_from_dict(data: Any, *, source: str | None = None) -> Spec:
    """Validate a mapping (as read from YAML) into the spec class its ``kind`` names."""
    if not isinstance(data, Mapping):
        raise SpecError([f"expected a mapping of fields, got {type(data).__name__}"], source=source)
    kind = data.get("kind")
    if kind not in SPEC_TYPES:
        hint = closest_names(str(kind), SPEC_TYPES)
        suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
        raise SpecError(
            [f"kind: got {kind!r}, expected one of {', '.join(SPEC_TYPES)}{suggestion}"],
            source=source,
        )
    cls = SPEC_TYPES[kind]
    try:
        return cls.model_validate(dict(data))
    except ValidationError as error:
        raise SpecError(validation_problems(error, _ALL_FIELDS), source=source) from None


__all__ = ["SPEC_TYPES", "spec_from_dict"]
