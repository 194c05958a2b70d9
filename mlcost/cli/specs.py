"""``mlcost specs ...`` (list, show, validate, import-hf) and ``mlcost summary``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from mlcost.cli.options import (
    DEFAULT_GPU,
    DEFAULT_MODEL,
    ForceOption,
    JsonOption,
    renamed,
    resolve_accelerator,
    resolve_model,
    resolve_spec,
)
from mlcost.cli.output import print_json, stdout_console
from mlcost.description import Row, SpecDescription, describe, spec_value_text
from mlcost.errors import MlcostError
from mlcost.io import YAML, check_output, write_output
from mlcost.specs import GROUPS, Spec, default_catalog, from_hf_config, load_spec

specs_app = typer.Typer(help="List, show, validate and import specs.", no_args_is_help=True)


def render(description: SpecDescription, console: Console) -> None:
    """One spec as a table of fields, values and sources, with its notes and references."""
    spec = description.spec
    table = Table(title=f"{spec.display_name or spec.name}  ({spec.name})", title_justify="left")
    table.add_column("", style="dim")
    table.add_column("field")
    table.add_column("value", justify="right")
    table.add_column("source", overflow="fold", max_width=60)
    for row in description.rows:
        table.add_row(
            row.section, row.field, spec_value_text(row.value), Text(_short_source(spec, row))
        )
    console.print(table)
    if spec.notes:
        console.print(Text.assemble(("notes: ", "dim"), spec.notes))
    for key, text in spec.references.items():
        console.print(Text.assemble((f"[{key}] ", "dim"), text))


def _short_source(spec: Spec, row: Row) -> str:
    """In tables a field's source is its reference key (the references are listed below the
    table); derived rows show their formula."""
    if row.section == "fields":
        entry = spec.source_entry(row.field.split(" ")[0]) if " " not in row.field else None
        if row.field.startswith("peak "):
            entry = spec.source_entry("peak_compute")
        if entry is not None and entry in spec.references:
            return f"[{entry}]"
    return row.source or ""


@specs_app.command("list")
def specs_list(
    group: Annotated[
        str | None, typer.Argument(help=f"One of: {', '.join(GROUPS)}. All when left out.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """List the catalog (all of it, or one group)."""
    items = default_catalog().items(group)
    if as_json:
        print_json(
            [
                {"name": s.name, "kind": s.KIND, "display_name": s.display_name,
                 "aliases": list(s.aliases)}
                for s in items
            ]
        )  # fmt: skip
        return
    table = Table(
        title=f"mlcost catalog: {group or 'everything'} ({len(items)})", title_justify="left"
    )
    for column, style in (("name", None), ("kind", "dim"), ("description", None),
                          ("aliases", "dim")):  # fmt: skip
        table.add_column(column, style=style)
    for spec in items:
        table.add_row(spec.name, spec.KIND, spec.display_name or "", ", ".join(spec.aliases))
    stdout_console().print(table)


@specs_app.command("show")
def specs_show(
    names: Annotated[
        list[str],
        typer.Argument(help="Catalog names or aliases, spec YAML paths, or HF config.json paths."),
    ],
    as_json: JsonOption = False,
) -> None:
    """Show specs with every number's unit and source, and derived values."""
    catalog = default_catalog()
    descriptions = [describe(resolve_spec(name), catalog) for name in names]
    if as_json:
        payload = [d.to_json() for d in descriptions]
        print_json(payload[0] if len(payload) == 1 else payload)
        return
    console = stdout_console()
    for description in descriptions:
        render(description, console)


@specs_app.command("validate")
def specs_validate(
    paths: Annotated[list[Path], typer.Argument(help="Spec YAML files to check.")],
) -> None:
    """Check spec files: schema, units, signs, and that every number has a source."""
    failed = []
    for path in paths:
        spec = load_spec(path)
        missing = spec.unsourced_paths()
        if missing:
            failed.append(f"{path}: numbers without a source: {', '.join(missing)}")
        else:
            typer.echo(f"{path}: ok ({spec.KIND} {spec.name})")
    if failed:  # a user error like any other: one line, exit status 2
        raise MlcostError(
            f"{len(failed)} of {len(paths)} spec(s) fail: {'; '.join(failed)}; expected a "
            "source for every number (a 'sources' entry per field)"
        )


@specs_app.command("import-hf")
def specs_import_hf(
    config: Annotated[Path, typer.Argument(help="A Hugging Face config.json.")],
    name: Annotated[str | None, typer.Option(help="Canonical name for the spec.")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write YAML here.")] = None,
    old_output: Annotated[
        Path | None, typer.Option("--output", hidden=True, help="Deprecated: --out.")
    ] = None,
    force: ForceOption = False,
) -> None:
    """Turn a Hugging Face config.json into an mlcost transformer spec (YAML)."""
    option = "--out" if old_output is None else "--output"
    output = renamed(out, old_output, "--output", "--out")
    if output is not None:
        check_output(output, option=option, suffixes=YAML, force=force, inputs=(config,))
    spec = from_hf_config(config, name=name)
    text = spec.to_yaml()
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_output(output, text, option=option, suffixes=YAML, force=force, inputs=(config,))
        typer.echo(f"wrote {output} ({spec.parameter_count:,} parameters)")


def summary(
    model: Annotated[str, typer.Option(help="Model name, alias or spec path.")] = DEFAULT_MODEL,
    gpu: Annotated[str, typer.Option(help="Accelerator name, alias or spec path.")] = DEFAULT_GPU,
    as_json: JsonOption = False,
) -> None:
    """A model and a GPU side by side, with their sources."""
    catalog = default_catalog()
    descriptions = [
        describe(resolve_accelerator(gpu), catalog),
        describe(resolve_model(model), catalog),
    ]
    if as_json:
        print_json({"accelerator": descriptions[0].to_json(), "model": descriptions[1].to_json()})
        return
    console = stdout_console()
    for description in descriptions:
        render(description, console)
