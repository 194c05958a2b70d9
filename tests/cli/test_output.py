"""What the commands print is printed as it is: text from specs, names and formulas is never
read as rich markup or emoji codes (a bracketed ``[fa3]`` kept, a ``[/fast]`` that closes no
tag printed instead of failing the command, ``:thumbs_up:`` left as written)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import yaml

import mlcost.specs
from mlcost.cli.output import print_result
from mlcost.description import spec_value_text
from mlcost.results import Figure, Figures
from mlcost.units import Q_
from tests.cli.conftest import Cli

ROOT = Path(__file__).resolve().parents[2]
#: Text that rich markup would change: a tag-like word, a closing tag of no open tag, an emoji.
BRACKETED = "measured with [fa3] kernels; the tf32 path [/fast] is off :thumbs_up:"


def test_a_user_specs_notes_print_as_written(cli: Cli, tmp_path: Path) -> None:
    spec = yaml.safe_load((ROOT / "specs/accelerators/a100-sxm4-40gb.yaml").read_text())
    spec.update(name="my-a100", notes=BRACKETED)
    path = tmp_path / "my-a100.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    result = cli("specs", "show", str(path))
    assert result.exit_code == 0, result.stderr
    assert f"notes: {BRACKETED}" in result.stdout


def test_a_results_names_values_and_formulas_print_as_written() -> None:
    figures = Figures(
        "GEMM [m x k]·[k x n] [/fast]",
        (Figure(f"time [a] {BRACKETED}", Q_(1.5, "s"), formula="F / [peak x eta] :fire:"),),
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_result(figures)
    text = " ".join(out.getvalue().split())  # the table's borders and wrapping aside
    for written in ("GEMM [m x k]·[k x n] [/fast]", "time [a]", "[fa3]", "[/fast]",
                    ":thumbs_up:", "F / [peak x eta] :fire:"):  # fmt: skip
        assert written in text, written


def test_a_measured_curve_prints_its_numbers_not_python_reprs(cli: Cli) -> None:
    """A kernel's curves hold tuples of quantities and numbers: shown with their unit once, as
    the YAML writes them (specs/kernels/flash-attn-3.yaml), not ``<Quantity(333.0, ...)>``."""
    spec = yaml.safe_load((ROOT / "specs/kernels/flash-attn-3.yaml").read_text())
    first = spec["curves"][0]
    rates = ", ".join(t.split()[0] for t in first["throughput"])  # "333 TFLOP/s" -> "333"
    curve = mlcost.specs.default_catalog().get("flash-attn-3").curves[0]
    assert spec_value_text(curve.throughput) == f"({rates}) TFLOP / s"
    assert spec_value_text(curve.accelerators) == f"({', '.join(first['accelerators'])})"
    # 16384 without a thousands separator: the commas separate the items.
    assert spec_value_text(curve.sequence) == f"({', '.join(map(str, first['sequence']))})"
    result = cli("specs", "show", "flash-attn-3")
    assert result.exit_code == 0, result.stderr
    assert "Quantity(" not in result.stdout


def test_bare_mlcost_prints_its_commands_and_no_error(cli: Cli) -> None:
    """``mlcost`` alone is a request for help (typer's ``no_args_is_help``): the usage and the
    command list, exit 0, and no ``error:`` line (it used to end in ``error: mlcost: ;``)."""
    result = cli()
    assert result.exit_code == 0
    assert "Usage:" in result.stdout and "Commands" in result.stdout and " plan " in result.stdout
    assert "error" not in result.stderr
