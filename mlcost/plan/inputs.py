"""The inputs of a training run to be costed: what :class:`mlcost.plan.Plan` is given, in one
record that the plan's stages (:mod:`mlcost.plan.resolve`, :mod:`mlcost.plan.sweep`) read
without importing the plan itself."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from pathlib import Path

import pint

from mlcost.assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from mlcost.layout import Layout
from mlcost.specs import (
    Accelerator,
    Catalog,
    Cluster,
    Grid,
    Implementation,
    ModelSpec,
    Node,
    Storage,
)
from mlcost.workload import TrainingConfig


@dataclass(frozen=True, eq=False)
class PlanInputs:
    """What a plan is given (:class:`mlcost.plan.Plan` documents every field)."""

    model: str | ModelSpec
    _: KW_ONLY
    gpu: str | Path | Accelerator | None = None
    system: str | Path | Node | Cluster | None = None
    gpus: int | None = None
    layout: Layout | None = None
    config: TrainingConfig | None = None
    implementation: str | Path | Implementation | None = None
    tokens: float | pint.Quantity | None = None
    steps: int | None = None
    global_batch_size: int | None = None
    region: str | Grid = "world"
    price: str | pint.Quantity | None = None
    pue: float | None = None
    accounting: str = "measured-node"
    facility: str | None = None
    power_per_gpu: pint.Quantity | None = None
    idle_power: pint.Quantity | None = None
    gpu_hours: float | pint.Quantity | None = None
    purchase_price: pint.Quantity | None = None
    electricity_price: pint.Quantity | None = None
    storage: str | Storage | None = None
    pretokenized: bool = False
    sustained: pint.Quantity | None = None
    flop_count: str = "operators"
    failures: bool = True
    checkpoint_storage: str | Storage | pint.Quantity | None = None
    mtbf_per_gpu: pint.Quantity | None = None
    async_checkpoint: bool = False
    assumptions: Assumptions = DEFAULT_ASSUMPTIONS
    catalog: Catalog | None = None


__all__ = ["PlanInputs"]
