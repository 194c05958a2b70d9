"""Shared machinery of the spec schemas: quantity fields, provenance, YAML round trip.

A spec is an immutable pydantic model. Quantity fields accept ``"80 GiB"``-style strings,
``{"value": .., "unit": ..}`` mappings or pint quantities, and are checked for dimension and sign
when the spec is built. Every number carries a source: ``sources`` maps a field path (or a parent
path, or ``"*"`` for all fields) to a key of ``references`` or a free-text citation.
"""

import math
import re
from collections.abc import Callable, Iterator
from typing import Annotated, Any, ClassVar, TypeVar

import pint
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationError,
    WithJsonSchema,
    field_validator,
)

from mlcost.errors import SpecError, UnitError, closest_names
from mlcost.units import check_dimension, format_quantity, parse_quantity

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9.\-]*$")


def _quantity_validator(unit: str, *, allow_zero: bool) -> Callable[[Any], pint.Quantity]:
    def validate(value: Any) -> pint.Quantity:
        try:
            quantity = parse_quantity(value)
            check_dimension(quantity, unit)
        except UnitError as error:
            raise ValueError(f"expected {error.expected}") from None
        magnitude = quantity.magnitude
        if not math.isfinite(magnitude):
            raise ValueError(f"expected a finite number in {unit}, got {magnitude}")
        if magnitude < 0 or (magnitude == 0 and not allow_zero):
            bound = ">= 0" if allow_zero else "> 0"
            raise ValueError(f"expected a quantity in {unit} that is {bound}")
        return quantity

    return validate


def quantity_type(unit: str, *, allow_zero: bool = False) -> Any:
    """A pydantic field type: a pint quantity with the dimension of ``unit``, positive.

    Serialized as exact text (``format_quantity``), so YAML -> object -> YAML is lossless.
    """
    return Annotated[
        pint.Quantity,
        BeforeValidator(_quantity_validator(unit, allow_zero=allow_zero)),
        PlainSerializer(format_quantity, return_type=str),
        WithJsonSchema({"type": "string", "description": f"a quantity in {unit}"}),
    ]


Bytes = quantity_type("byte")
BytesOrZero = quantity_type("byte", allow_zero=True)
ByteRate = quantity_type("byte/second")
BitRate = quantity_type("bit/second")
FlopRate = quantity_type("flop/second")
Power = quantity_type("watt")
Frequency = quantity_type("hertz")
Duration = quantity_type("second")
DurationOrZero = quantity_type("second", allow_zero=True)
Money = quantity_type("USD")
MoneyRate = quantity_type("USD/hour")
EnergyPrice = quantity_type("USD/kWh")
CarbonIntensity = quantity_type("gCO2e/kWh", allow_zero=True)
ParamCount = quantity_type("param")
TokenRate = quantity_type("token/second")
CarbonMass = quantity_type("gCO2e")

PositiveInt = Annotated[int, Field(gt=0)]


M = TypeVar("M", bound=BaseModel)


class Model(BaseModel):
    """Base of mlcost's pydantic models: immutable, strict about unknown fields, and raising
    :class:`mlcost.errors.SpecError` (one line per problem) when built with bad values."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        arbitrary_types_allowed=True,
        allow_inf_nan=False,
        defer_build=True,
    )

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as error:
            known = set(type(self).model_fields)
            raise SpecError(validation_problems(error, known)) from None

    # What a model derives from its fields and keeps (``functools.cached_property``: a spec's
    # parameter count, an accelerator's ceilings) is not copied: ``model_copy(update=...)``,
    # ``copy.copy`` and ``copy.deepcopy`` start without it, so a changed field is never answered
    # from the original's memo.
    def __copy__(self: M) -> M:
        return _without_derived(super().__copy__())

    def __deepcopy__(self: M, memo: dict[int, Any] | None = None) -> M:
        return _without_derived(super().__deepcopy__(memo))


def _without_derived(model: M) -> M:
    """``model`` with the values its cached properties kept removed (its fields stay)."""
    fields = type(model).model_fields
    for key in [key for key in model.__dict__ if key not in fields]:
        del model.__dict__[key]
    return model


class Spec(Model):
    """Base of every catalog item: a name, aliases and the sources of its numbers."""

    #: The discriminator written as ``kind:`` in YAML; each subclass fixes it.
    KIND: ClassVar[str] = ""

    name: str
    aliases: tuple[str, ...] = ()
    #: Aliases shared with other entries that name this one when given alone (``h100`` is the
    #: SXM module). Only those among ``aliases`` count (a copy with its aliases cleared, such as
    #: a calibrated profile, claims nothing); the catalog's own files must list only aliases,
    #: and a shared alias has one default at most (:class:`mlcost.specs.Catalog`).
    default_for: tuple[str, ...] = ()

    @property
    def defaults(self) -> tuple[str, ...]:
        """The shared aliases this spec is the default of: ``default_for`` among ``aliases``."""
        return tuple(name for name in self.default_for if name in self.aliases)

    display_name: str | None = None
    notes: str | None = None
    references: dict[str, str] = Field(default_factory=dict)
    sources: dict[str, str] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _name_is_canonical(cls, value: str) -> str:
        if not NAME_PATTERN.match(value):
            raise ValueError(
                "expected a lower-case, hyphenated name such as 'h100-sxm5-80gb' "
                "(letters, digits, '.', '-')"
            )
        return value

    @field_validator("aliases", "default_for")
    @classmethod
    def _aliases_lower(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(alias.strip().lower() for alias in value)

    # ----- provenance -------------------------------------------------------------------
    def numeric_paths(self) -> list[str]:
        """Dotted paths of every number set in this spec (quantities, ints and floats)."""
        return [path for path, _ in _walk_numbers(self, "")]

    def source_entry(self, path: str) -> str | None:
        """The ``sources`` entry covering a field path (the longest covering path, else ``"*"``):
        a key of ``references`` or a free-text citation; ``None`` when nothing covers it."""
        sources = self.sources
        if "." not in path:  # a top-level field (every lookup on a plan's path): one look-up
            found = sources.get(path)
            return found if found is not None else sources.get("*")
        parts = path.split(".")
        for end in range(len(parts), 0, -1):
            key = ".".join(parts[:end])
            if key in self.sources:
                return self.sources[key]
        return self.sources.get("*")

    def source_of(self, path: str) -> str | None:
        """The full citation for a field path (``source_entry`` resolved through
        ``references``)."""
        entry = self.source_entry(path)
        return None if entry is None else self.references.get(entry, entry)

    def unsourced_paths(self) -> list[str]:
        """Numeric fields that no entry of ``sources`` covers."""
        return [path for path in self.numeric_paths() if self.source_entry(path) is None]

    # ----- serialization ----------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A plain mapping (quantities as exact text) with ``kind`` first; defaults left out."""
        data = self.model_dump(mode="json", exclude_defaults=True)
        data.pop("kind", None)
        head: dict[str, Any] = {
            key: data.pop(key)
            for key in ("name", "aliases", "default_for", "display_name")
            if key in data
        }
        tail: dict[str, Any] = {
            key: data.pop(key) for key in ("notes", "references", "sources") if key in data
        }
        return {"kind": self.KIND, **head, **data, **tail}

    def to_yaml(self) -> str:
        """YAML text that :func:`mlcost.specs.load_spec_text` reads back into an equal spec."""
        import yaml  # only here: a process that reads specs back needs no YAML

        return yaml.safe_dump(self.to_dict(), sort_keys=False, allow_unicode=True)


def _walk_numbers(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, BaseModel):
        for field_name in type(value).model_fields:
            if field_name in ("references", "sources"):
                continue
            child = getattr(value, field_name)
            yield from _walk_numbers(child, f"{path}.{field_name}" if path else field_name)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _walk_numbers(item, f"{path}.{index}")
    elif isinstance(value, pint.Quantity) or (
        isinstance(value, (int, float)) and not isinstance(value, bool)
    ):
        yield path, value


def validation_problems(error: ValidationError, known_fields: set[str]) -> list[str]:
    """One readable line per pydantic error: field path, value given, what was expected."""
    problems = []
    for item in error.errors():
        location = [str(part) for part in item["loc"]]
        path = ".".join(location) or "(top level)"
        kind = item["type"]
        given = item.get("input")
        if kind == "extra_forbidden":
            field = location[-1] if location else "?"
            hint = closest_names(field, known_fields)
            suggestion = f"; did you mean {', '.join(repr(h) for h in hint)}?" if hint else ""
            problems.append(f"{path}: unknown field{suggestion}")
            continue
        if kind == "missing":
            problems.append(f"{path}: required field is missing")
            continue
        message = str(item["msg"]).removeprefix("Value error, ")
        if kind == "literal_error" and isinstance(given, str):
            choices = re.findall(r"'([^']*)'", str(item.get("ctx", {}).get("expected", "")))
            hint = closest_names(given, choices)
            if hint:
                message += f"; did you mean {hint[0]!r}?"
        if isinstance(given, (dict, list)):
            # A check across fields (model validator): its message names the field itself.
            problems.append(f"{path}: {message}" if location else message)
        else:
            problems.append(f"{path}: got {_short(given)}, {message}")
    return problems


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
