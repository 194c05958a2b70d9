"""What-if sweeps of a plan: every combination of the given axes, one row each.

Structural axes (:data:`STRUCTURAL_AXES`: model, GPU, precision, attention, optimizer and the
layout's structure) are evaluated once per distinct combination; numeric axes
(:data:`NUMERIC_AXES`) go through the chain as numpy arrays in one call per group, so 100,000
configurations take a few calls, not 100,000. The sweep varies the plan's own layout (as given,
or as searched for the plan's GPU count): ``micro_batch_size`` replaces its micro-batch, ``gpus``
its data-parallel degree. A combination that cannot run (FP8 on a GPU without FP8 peaks, a GPU
count that ``tp·pp·cp`` does not divide) or does not fit gets a ``problem``, and no time, energy,
cost or CO2e.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import pint

from mlcost.errors import MlcostError, UnknownNameError
from mlcost.plan.chain import Numbers, evaluate_run
from mlcost.plan.inputs import PlanInputs
from mlcost.plan.resolve import Run, resolve
from mlcost.site import region_electricity, region_pue, resolve_grid
from mlcost.specs import Spec, default_catalog
from mlcost.specs.catalog import as_accelerator
from mlcost.units import format_quantity, in_unit, magnitude_in

if TYPE_CHECKING:
    import pandas as pd


#: Axes that change the operator table, the device or the layout's structure.
CONFIG_AXES = ("precision", "attention", "optimizer")
LAYOUT_AXES = ("tp", "pp", "cp", "zero_stage", "recompute", "gradient_accumulation")
STRUCTURAL_AXES = ("model", "gpu", *CONFIG_AXES, *LAYOUT_AXES)
#: Axes evaluated as numpy arrays in one call.
NUMERIC_AXES = (
    "micro_batch_size",
    "sequence_length",
    "gpus",
    "tokens",
    "region",
    "pue",
    "price_per_gpu_hour",
)
#: Columns that price a run: not shown for a configuration that does not fit.
PRICED = (
    "steps",
    "wall_s",
    "wall_days",
    "gpu_hours",
    "mfu",
    "model_flops",
    "gpu_power_w",
    "it_power_w",
    "step_kwh",
    "energy_kwh",
    "rental_usd",
    "electricity_usd",
    "ownership_usd",
    "break_even_runs",
    "break_even_months",
    "operational_t",
    "embodied_gpu_t",
    "embodied_server_t",
    "embodied_t",
    "total_t",
)


def label(value: Any) -> Any:
    """How a sweep value is shown in its column."""
    if isinstance(value, Spec):
        return value.name
    if isinstance(value, pint.Quantity):
        return format_quantity(value)
    return value


def _group_plan(plan: PlanInputs, base: Run, setting: dict[str, Any]) -> Run:
    """The run of one structural combination: the plan with its resolved layout, changed."""
    config_updates = {k: v for k, v in setting.items() if k in CONFIG_AXES}
    layout_updates = {k: v for k, v in setting.items() if k in LAYOUT_AXES}
    config = base.config
    if config_updates:
        config = type(config)(**{**config.model_dump(), **config_updates})
    layout = base.layout
    if layout_updates:
        if "gradient_accumulation" in layout_updates:
            layout_updates["global_batch_size"] = None
        data = {**layout.model_dump(), **layout_updates}
        data["dp"] = max(1, base.gpus // (data["tp"] * data["pp"] * data["cp"]))
        if "recompute" in layout_updates:
            data["recompute_every"] = None
        layout = type(layout)(**data)
    changes: dict[str, Any] = {"config": config, "layout": layout, "global_batch_size": None}
    if "model" in setting:
        changes["model"] = setting["model"]
    if "gpu" in setting:
        changes["gpu"] = setting["gpu"]
        accelerator = as_accelerator(setting["gpu"], plan.catalog or default_catalog())
        if plan.system is not None and accelerator.name != base.system.accelerator.name:
            # Another GPU runs in its own standard node (its host power, links, price), on as
            # many GPUs: a DGX H100's 1,050 W per GPU is not an A100's.
            changes.update(system=None, gpus=base.gpus)
    return resolve(dataclasses.replace(plan, **changes))


def _numbers(
    plan: PlanInputs, run: Run, numeric: dict[str, list[Any]]
) -> tuple[Numbers, dict[str, Any]]:
    """The numeric axes as a flat grid of arrays, and the index of each axis per row."""
    base = Numbers.of(run)
    names = list(numeric)
    mesh = np.meshgrid(*(np.arange(len(numeric[n])) for n in names), indexing="ij") if names else []
    index = {n: m.ravel() for n, m in zip(names, mesh, strict=True)}
    size = len(next(iter(index.values()))) if index else 1

    def column(name: str, default: Any, unit: str | None = None) -> np.ndarray:
        if name not in index:
            return np.broadcast_to(default, (size,)).copy()
        raw = [magnitude_in(v, unit, name, bare=True) if unit else v for v in numeric[name]]
        return np.asarray(raw, dtype=np.float64)[index[name]]

    catalog = plan.catalog if plan.catalog is not None else default_catalog()
    grids = [resolve_grid(r, catalog) for r in numeric.get("region", [])]
    assumptions = run.assumptions
    by_region = {
        "intensity": [in_unit(g.carbon_intensity, "gCO2e/kWh") for g in grids],
        "pue": [
            region_pue(plan.pue, plan.facility, grid=g, assumptions=assumptions)["pue"]
            for g in grids
        ],
        "electricity_price": [
            region_electricity(plan.electricity_price, grid=g, assumptions=assumptions)[
                "electricity_price"
            ]
            for g in grids
        ],
    }

    def regional(name: str, default: np.ndarray) -> np.ndarray:
        if not grids:
            return np.broadcast_to(default, (size,)).copy()
        return np.asarray(by_region[name], dtype=np.float64)[index["region"]]

    numbers = Numbers(
        micro_batch_size=column("micro_batch_size", base.micro_batch_size).astype(np.int64),
        sequence_length=column("sequence_length", base.sequence_length).astype(np.int64),
        gpus=column("gpus", base.gpus).astype(np.int64),
        tokens=column("tokens", base.tokens, "token"),
        intensity=regional("intensity", base.intensity),
        pue=column("pue", base.pue) if "pue" in index else regional("pue", base.pue),
        price=column("price_per_gpu_hour", base.price, "USD/hour"),
        electricity_price=regional("electricity_price", base.electricity_price),
    )
    labels = {n: np.asarray([label(v) for v in numeric[n]], dtype=object)[index[n]] for n in names}
    if grids:
        labels["region"] = np.asarray([g.name for g in grids], dtype=object)[index["region"]]
    return numbers, labels


def _problems(run: Run, numbers: Numbers, frame: pd.DataFrame) -> np.ndarray:
    """Why each row cannot be priced ('' when it can)."""
    problems = np.full(len(frame), "", dtype=object)
    uneven = numbers.gpus % run.layout.model_parallel != 0
    parallel = run.layout.model_parallel
    problems[uneven] = (
        f"gpus: not a multiple of tp x pp x cp = {parallel} ({run.layout.describe()})"
    )
    positions = getattr(run.model, "max_position_embeddings", None)
    long = (
        numbers.sequence_length > positions if positions is not None else np.zeros(len(frame), bool)
    )
    problems[long & ~uneven] = (
        f"sequence_length: more than the {positions} positions of {run.model.name}"
    )
    uneven = uneven | long
    short = ~frame["fits"].to_numpy() & ~uneven
    if short.any():  # one message per distinct (memory, capacity) pair, not per row
        pairs = np.column_stack(
            (frame["memory_gib"].to_numpy()[short], frame["capacity_gib"].to_numpy()[short])
        )
        distinct, inverse = np.unique(pairs, axis=0, return_inverse=True)
        messages = np.asarray(
            [f"does not fit: needs {m:.4g} GiB of {c:.4g} GiB per GPU" for m, c in distinct],
            dtype=object,
        )
        problems[short] = messages[np.ravel(inverse)]
    return problems


def _group_frame(
    plan: PlanInputs, base: Run, setting: dict[str, Any], numeric: dict[str, list[Any]]
) -> pd.DataFrame:
    import pandas as pd

    run = _group_plan(plan, base, setting)
    numbers, labels = _numbers(plan, run, numeric)
    frame = pd.DataFrame(evaluate_run(run, numbers).columns())
    for name in reversed(list(setting)):
        frame.insert(0, name, label(setting[name]))
    for name, values in labels.items():
        frame[name] = values
    frame["layout"] = run.layout.describe()
    frame["problem"] = _problems(run, numbers, frame)
    priced = frame["problem"].to_numpy() != ""
    frame.loc[priced, list(PRICED)] = np.nan
    return frame


def _unsupported_rows(
    setting: dict[str, Any], numeric: dict[str, list[Any]], problem: str
) -> pd.DataFrame:
    """Rows for a combination that cannot run, with the reason (other columns empty)."""
    import pandas as pd

    product = list(itertools.product(*numeric.values())) if numeric else [()]
    frame = pd.DataFrame(
        [[label(v) for v in row] for row in product], columns=list(numeric), dtype=object
    )
    for name in reversed(list(setting)):
        frame.insert(0, name, label(setting[name]))
    frame["fits"] = False
    frame["problem"] = problem
    return frame


#: What each numeric axis accepts, checked element by element before anything is evaluated:
#: (unit for magnitude_in or None, whole numbers only, lowest, highest, lowest excluded).
AXIS_RANGES: dict[str, tuple[str | None, bool, float, float, bool]] = {
    "micro_batch_size": (None, True, 1, math.inf, False),
    "sequence_length": (None, True, 1, math.inf, False),
    "gpus": (None, True, 1, math.inf, False),
    "tokens": ("token", False, 0.0, math.inf, True),
    "pue": (None, False, 1.0, 5.0, False),
    "price_per_gpu_hour": ("USD/hour", False, 0.0, math.inf, False),
}


def check_axis(name: str, values: list[Any]) -> None:
    """Refuse the first value of a numeric axis that no run can have (a negative batch, an
    infinite token budget, a PUE below 1), naming the axis, the position and the value."""
    if name not in AXIS_RANGES:
        return
    unit, whole, low, high, open_low = AXIS_RANGES[name]
    for position, value in enumerate(values):
        number = magnitude_in(value, unit, name, bare=True) if unit else value
        try:
            number = float(number)
        except (TypeError, ValueError):
            raise MlcostError(f"{name}[{position}]: got {value!r}, expected a number") from None
        above = number > low if open_low else number >= low
        if not (math.isfinite(number) and above and number <= high) or (
            whole and not number.is_integer()
        ):
            kind = "a whole number" if whole else "a finite number"
            bound = f"{'>' if open_low else '>='} {low:g}"
            if math.isfinite(high):
                bound += f" and <= {high:g}"
            raise MlcostError(f"{name}[{position}]: got {value!r}, expected {kind} {bound}")


def sweep(plan: PlanInputs, base: Run, axes: dict[str, Iterable[Any]]) -> pd.DataFrame:
    """Every combination of ``axes``, one row each (module docstring)."""
    import pandas as pd

    known = STRUCTURAL_AXES + NUMERIC_AXES
    for name in axes:
        if name not in known:
            raise UnknownNameError("sweep axis", name, known)
    values = {name: list(v) if not isinstance(v, str) else [v] for name, v in axes.items()}
    for name, v in values.items():
        if not v:
            raise MlcostError(f"sweep: axis {name} is empty; expected at least one value")
        check_axis(name, v)
    structural = [n for n in STRUCTURAL_AXES if n in values]
    numeric = {n: values[n] for n in NUMERIC_AXES if n in values}
    frames = []
    for combo in itertools.product(*(values[n] for n in structural)):
        setting = dict(zip(structural, combo, strict=True))
        try:
            frames.append(_group_frame(plan, base, setting, numeric))
        except MlcostError as error:  # e.g. fp8 on a GPU without FP8 tensor cores
            frames.append(_unsupported_rows(setting, numeric, str(error)))
    return pd.concat(frames, ignore_index=True)
