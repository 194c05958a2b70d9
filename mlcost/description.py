"""A spec shown for people and machines: its numbers, their sources, and derived values.

:func:`describe` returns a :class:`SpecDescription` that prints as a table in a notebook
(``_repr_html_``), converts to pandas (``to_frame``) and to the documented JSON form
(``to_json``), in which every quantity is ``{"value": <number>, "unit": "<pint unit>"}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pint
from pydantic import BaseModel

if TYPE_CHECKING:
    import pandas as pd


from mlcost.errors import MlcostError
from mlcost.records import Record, field
from mlcost.results import Figure, Result, json_value
from mlcost.specs import (
    Accelerator,
    Catalog,
    ConvNetSpec,
    Link,
    Node,
    NumericFormat,
    Spec,
    Storage,
    TransformerSpec,
    default_catalog,
)
from mlcost.units import format_quantity, unit_text

#: Formats whose weight bytes ``describe`` lists for a model.
WEIGHT_FORMATS = ("fp32", "bf16", "fp8-e4m3", "int4")


class Row(Record, frozen=True):
    """One line of a description."""

    section: str
    field: str
    value: Any
    source: str | None = None


class SpecDescription(Record, Result, frozen=True):
    """The fields of a spec with their sources, and what mlcost derives from them."""

    spec: Spec
    rows: tuple[Row, ...] = field(default_factory=tuple)

    def title(self) -> str:
        return f"{self.spec.display_name or self.spec.name} ({self.spec.name})"

    def figures(self) -> list[Figure]:
        """One figure per row: the spec's fields (their source) and what mlcost derives."""
        return [
            Figure(row.field, row.value, row.section, "", row.source or "", key=row.field)
            for row in self.rows
        ]

    def explain(self) -> str:
        """Every field and derived value at datasheet precision, with its source."""
        return str(self)

    def to_frame(self) -> pd.DataFrame:
        """One row per field: section, field, value, unit, source."""
        import pandas as pd

        records = []
        for row in self.rows:
            if isinstance(row.value, pint.Quantity):
                value, unit = row.value.magnitude, unit_text(row.value)
            elif isinstance(row.value, BaseModel):
                value, unit = item_text(row.value), ""
            else:
                value, unit = row.value, ""
            records.append(
                {
                    "section": row.section,
                    "field": row.field,
                    "value": value,
                    "unit": unit,
                    "source": row.source or "",
                }
            )
        return pd.DataFrame.from_records(
            records, columns=["section", "field", "value", "unit", "source"]
        )

    def to_json(self) -> dict[str, Any]:
        """The documented JSON form (docs/cli.md, "JSON output")."""
        sections: dict[str, dict[str, Any]] = {"fields": {}, "derived": {}}
        for row in self.rows:
            sections.setdefault(row.section, {})[row.field] = json_value(row.value)
        return {
            "kind": self.spec.KIND,
            "name": self.spec.name,
            "display_name": self.spec.display_name,
            "aliases": list(self.spec.aliases),
            **sections,
            "sources": {
                row.field: row.source for row in self.rows if row.section == "fields" and row.source
            },
            "references": dict(self.spec.references),
            "notes": self.spec.notes,
        }

    def _repr_html_(self) -> str:
        import html  # on use: html.entities' table costs ~1.2 ms to import

        title = html.escape(self.spec.display_name or self.spec.name)
        lines = [
            f"<b>{title}</b> <code>{html.escape(self.spec.name)}</code>",
            "<table><tr><th>section</th><th>field</th><th>value</th><th>source</th></tr>",
        ]
        for row in self.rows:
            lines.append(
                "<tr>"
                + "".join(
                    f"<td>{html.escape(text)}</td>"
                    for text in (
                        row.section,
                        row.field,
                        spec_value_text(row.value),
                        row.source or "",
                    )
                )
                + "</tr>"
            )
        lines.append("</table>")
        return "\n".join(lines)

    def __str__(self) -> str:
        width = max((len(r.field) for r in self.rows), default=10)
        out = [f"{self.spec.display_name or self.spec.name} ({self.spec.name})"]
        for row in self.rows:
            source = f"  [{row.source}]" if row.source else ""
            out.append(
                f"  {row.section:8} {row.field:{width}}  {spec_value_text(row.value)}{source}"
            )
        return "\n".join(out)


def spec_value_text(value: Any) -> str:
    """Text of a spec's field at the precision its datasheet gives (6 significant digits; a
    computed figure shows 4, :func:`mlcost.results.value_text`)."""
    if isinstance(value, pint.Quantity):
        return (
            format_quantity(value)
            if not isinstance(value.magnitude, float)
            else (f"{value.magnitude:,.6g} {unit_text(value)}")
        )
    if isinstance(value, BaseModel):
        return item_text(value)
    if isinstance(value, (tuple, list)):
        # A measured curve's points: each written as one value is, without thousands separators
        # (the commas separate the items), the unit they share once, "(333, 16384) TFLOP / s";
        # anything else item by item, never a Python repr.
        def item(v: Any) -> str:
            text = spec_value_text(v)
            return text.replace(",", "") if isinstance(v, int | float | pint.Quantity) else text

        quantities = value and all(isinstance(v, pint.Quantity) for v in value)
        if quantities and len({v.units for v in value}) == 1:
            unit = unit_text(value[0])
            numbers = ", ".join(item(v).removesuffix(f" {unit}") for v in value)
            return f"({numbers}) {unit}".rstrip()
        return f"({', '.join(item(v) for v in value)})"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    return str(value)


def _field_rows(spec: Spec) -> list[Row]:
    rows = []
    for name in type(spec).model_fields:
        if name in ("name", "aliases", "display_name", "notes", "references", "sources", "kind"):
            continue
        value = getattr(spec, name)
        if value is None or value == ():
            continue
        if isinstance(value, tuple) and isinstance(value[0], BaseModel):
            for index, item in enumerate(value):
                rows.append(
                    Row(
                        "fields",
                        _item_label(name, index, item),
                        item,
                        spec.source_of(f"{name}.{index}"),
                    )
                )
        elif isinstance(value, BaseModel):
            rows.append(Row("fields", name, value, spec.source_of(name)))
        else:
            shown = list(value) if isinstance(value, tuple) else value
            rows.append(Row("fields", name, shown, spec.source_of(name)))
    return rows


def _item_label(name: str, index: int, item: Any) -> str:
    if name == "peak_compute":
        return f"peak {item.format} ({item.engine})"
    return f"{name}[{index}]"


def item_text(item: BaseModel) -> str:
    """A nested part (peak throughput, price, NIC) as one line of text."""
    parts = []
    for key in type(item).model_fields:
        value = getattr(item, key)
        if value is None or key in ("format", "engine"):
            continue
        parts.append(f"{key} {spec_value_text(value)}")
    return ", ".join(parts)


def _derived_rows(spec: Spec, catalog: Catalog | None) -> list[Row]:
    rows: list[Row] = []
    if isinstance(spec, Accelerator):
        for format_name, ridge in spec.ridge_points().items():
            rows.append(
                Row(
                    "derived",
                    f"ridge point {format_name} (dense)",
                    ridge,
                    "peak / memory_bandwidth (roofline, Williams et al. 2009)",
                )
            )
        rows.append(Row("derived", "memory_capacity in GB", spec.memory_capacity.to("GB"), None))
        if catalog is not None and spec.name in catalog:
            for price in catalog.prices_for(spec.name):
                rows.append(
                    Row(
                        "derived",
                        f"cloud price: {price.name} ({price.date})",
                        price.price_per_gpu_hour,
                        f"{price.provider}, {price.offering}",
                    )
                )
    elif isinstance(spec, (TransformerSpec, ConvNetSpec)):
        rows.append(
            Row(
                "derived",
                "parameters",
                spec.parameter_count,
                "derived from the architecture (exact)",
            )
        )
        for part, count in spec.parameter_breakdown().items():
            rows.append(Row("derived", f"parameters: {part}", count, None))
        if isinstance(spec, TransformerSpec):
            rows.append(
                Row(
                    "derived",
                    "non-embedding parameters",
                    int(spec.non_embedding_parameters.magnitude),
                    "Kaplan et al. 2020",
                )
            )
            if spec.moe is not None:
                rows.append(
                    Row(
                        "derived",
                        "active parameters per token",
                        spec.active_parameter_count,
                        f"all but (E - k)/E of the routed experts, k = "
                        f"{spec.moe.experts_per_token} of E = {spec.moe.num_experts} "
                        "(Fedus et al. 2022)",
                    )
                )
        if catalog is not None:
            for fmt_name in WEIGHT_FORMATS:
                fmt = catalog.numeric_format(fmt_name)
                weight_bytes = (spec.parameter_count * fmt.storage_bytes).to("GB")
                rows.append(
                    Row(
                        "derived",
                        f"weights in {fmt_name}",
                        weight_bytes,
                        f"{spec.parameter_count:,} params x {spec_value_text(fmt.storage_bytes)}",
                    )
                )
                rows.append(
                    Row("derived", f"weights in {fmt_name} (GiB)", weight_bytes.to("GiB"), None)
                )
    elif isinstance(spec, Link):
        rows.append(Row("derived", "per direction", spec.per_direction.to("GB/s"), None))
        rows.append(Row("derived", "both directions", spec.both_directions.to("GB/s"), None))
    elif isinstance(spec, Storage):
        for label, rate in (("random read", spec.random_read), ("random write", spec.random_write)):
            if rate is not None:
                rows.append(Row("derived", label, rate, "IOPS x random_io_size"))
    elif isinstance(spec, Node) and catalog is not None:
        gpu = catalog.accelerator(spec.accelerator)
        count = spec.accelerators_per_node
        rows.append(
            Row(
                "derived",
                "accelerator memory per node",
                (count * gpu.memory_capacity).to("GiB"),
                f"{count} x {spec_value_text(gpu.memory_capacity)} ({gpu.name})",
            )
        )
        for format_name in ("bf16", "fp16"):
            if format_name in gpu.formats:
                rows.append(
                    Row(
                        "derived",
                        f"peak {format_name} per node (dense)",
                        (count * gpu.peak(format_name)).to("PFLOP/s"),
                        f"{count} x {spec_value_text(gpu.peak(format_name))}",
                    )
                )
                break
        if spec.intra_node_link:
            link = catalog.link(spec.intra_node_link)
            rows.append(
                Row(
                    "derived",
                    "intra-node bandwidth per GPU, per direction",
                    link.per_direction.to("GB/s"),
                    link.name,
                )
            )
    elif isinstance(spec, NumericFormat):
        for label, limit in spec.derived().items():
            rows.append(Row("derived", label, limit, "from the bit layout"))
    return rows


def describe(spec: Spec | str, catalog: Catalog | None = None) -> SpecDescription:
    """Describe ``spec`` (or a catalog name): each field with its source, then derived values."""
    if isinstance(spec, str):
        catalog = catalog if catalog is not None else default_catalog()
        spec = catalog.get(spec)
    if not isinstance(spec, Spec):
        raise MlcostError(
            f"spec: got {type(spec).__name__} {spec!r:.40}, expected a spec or a catalog name"
        )
    return SpecDescription(spec, tuple(_field_rows(spec) + _derived_rows(spec, catalog)))


__all__ = ["Row", "SpecDescription", "describe"]
