"""One training run, end to end: memory, step time, time to train, energy, dollars and CO2.

``Plan`` wires the formula modules for a model, a GPU (or a system of nodes), a training
configuration and a token (or step) budget, and answers the user's questions with figures that
carry their unit, formula, the numbers substituted and a source::

    >>> import mlcost
    >>> plan = mlcost.Plan("llama-2-7b", gpu="h100-sxm5-80gb", gpus=64, tokens=2e12, region="us")
    >>> plan.summary()            # one table
    >>> print(plan.explain())     # each figure derived
    >>> plan.sweep(gpu=["a100-sxm4-80gb", "h100-sxm5-80gb"], micro_batch_size=[1, 2, 4, 8])

The chain for one step of one data-parallel replica (every term vectorized over numpy arrays):

1. compute ``t_c``: the roofline step time of :func:`mlcost.timing.step_time` on one GPU's shard;
2. communication ``t_comm`` exposed beside compute (:mod:`mlcost.parallel` when GPUs > 1);
3. input pipeline ``t_data = max(read, preprocess, transfer)`` (:mod:`mlcost.datapipe`, the
   chapter's F-36), overlapped with compute by prefetching, so
   ``t_step = max(t_c + t_comm, t_data)``; the step is *data-bound* when ``t_data`` is larger;
4. steps ``ceil(D / (tokens per step))``, wall clock ``steps · t_step``, GPU-hours
   ``N_gpu · wall``, MFU ``model FLOPs / (t_step · peak)``;
5. power ``N_gpu · P_gpu(u) + N_host · P_host`` with ``u`` the GPU's busy share of the step
   (:mod:`mlcost.energy`), facility energy ``· PUE``;
6. dollars: rental ``GPU-hours · price``; ownership ``N_gpu · purchase · wall / (lifetime ·
   use rate) + kWh · electricity price``; break-even (:mod:`mlcost.cost`);
7. carbon: operational ``kWh · grid intensity``, embodied ``per-GPU embodied · GPU-hours /
   (lifetime · use rate)`` (Luccioni et al. 2022's amortization; reported separately).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pint

from mlcost import cost as cost_formulas
from mlcost import datapipe, scaling
from mlcost import energy as energy_formulas
from mlcost.assumptions import ASSUMPTION_SOURCES, Assumptions
from mlcost.errors import MlcostError, UnknownNameError
from mlcost.memory import MemoryBreakdown, Parallelism, memory_breakdown
from mlcost.roofline import Ceilings
from mlcost.specs import (
    Accelerator,
    Catalog,
    Cluster,
    Grid,
    Node,
    Spec,
    Storage,
    TransformerSpec,
    default_catalog,
)
from mlcost.timing import StepTime, step_time
from mlcost.units import Q_, format_quantity
from mlcost.workload import TrainingConfig

Number = Any

#: Sweep axes that change the operator table or the device (evaluated per distinct value).
STRUCTURAL_AXES = (
    "model",
    "gpu",
    "precision",
    "recompute",
    "attention",
    "optimizer",
    "gradient_accumulation_steps",
)
#: Sweep axes evaluated as numpy arrays in one call.
NUMERIC_AXES = (
    "micro_batch_size",
    "sequence_length",
    "gpus",
    "tokens",
    "region",
    "pue",
    "price_per_gpu_hour",
)


class ComputeOptimalWarning(UserWarning):
    """A plan's model size is far from compute-optimal for its FLOPs (Hoffmann et al. 2022)."""


@dataclass(frozen=True)
class Figure:
    """One number of a plan: its value, how it is computed, the numbers put in, and its source."""

    name: str
    value: Any
    formula: str
    substituted: str
    source: str

    def text(self) -> str:
        return _text(self.value)


@dataclass(frozen=True)
class PlanStep:
    """One optimizer step of one replica, with the input pipeline folded in."""

    compute: pint.Quantity
    communication: pint.Quantity
    data: pint.Quantity
    data_stages: dict[str, pint.Quantity]
    total: pint.Quantity
    detail: StepTime
    mfu: float

    @property
    def data_bound(self) -> bool:
        """True when the input pipeline, not the GPU, sets the pace."""
        return bool(self.data > self.compute + self.communication)

    @property
    def bound(self) -> str:
        if self.data_bound:
            slowest = max(self.data_stages, key=lambda k: self.data_stages[k].to("s").magnitude)
            return f"data ({slowest})"
        return "compute" if self.communication.magnitude == 0 else "compute + communication"


@dataclass(frozen=True)
class _Context:
    """Everything fixed within one group of a sweep (the structural axes)."""

    model: Spec
    gpu: Accelerator
    config: TrainingConfig
    parallel: Parallelism
    gpus_per_node: int
    host_power_per_gpu: pint.Quantity
    host_power_source: str
    storage: Storage | None
    host_link: pint.Quantity | None
    host_link_name: str | None
    embodied_per_gpu: pint.Quantity
    embodied_source: str
    purchase_price: pint.Quantity | None
    assumptions: Assumptions
    pretokenized: bool
    sustained: pint.Quantity | None = None
    flop_count: str = "operators"
    data_parallel_follows_gpus: bool = False
    checkpoint_bandwidth_per_node: pint.Quantity | None = None
    checkpoint_bandwidth_shared: pint.Quantity | None = None
    checkpoint_source: str = ""
    mtbf_per_gpu: pint.Quantity | None = None
    async_checkpoint: bool = False
    comm_system: Node | Cluster | None = None
    comm_source: str = ""


@dataclass(frozen=True)
class _Numbers:
    """Per-configuration inputs that vary along numeric axes (arrays broadcast together)."""

    micro_batch_size: Number
    sequence_length: Number
    gpus: Number
    tokens: Number
    intensity: Number  # gCO2e/kWh
    pue: Number
    price: Number  # USD per GPU-hour (NaN when unknown)
    electricity_price: Number  # USD/kWh (NaN when unknown)


@dataclass
class Plan:
    """A training run to be costed. See the module docstring for the chain of formulas.

    ``model``, ``gpu``, ``system``, ``region`` and ``price`` accept catalog names or specs.
    ``system`` (a node or cluster) supplies the GPU, GPUs per node, host power and storage;
    ``gpus`` defaults to the system's size (or 1). Give ``tokens`` or ``steps``; with neither,
    the budget is Chinchilla's 20 tokens per parameter (Hoffmann et al. 2022).

    Failures: with ``failures`` (default) the wall clock is divided by the goodput of
    :func:`mlcost.checkpointing.goodput_plan` (Daly 2006 interval, per-GPU MTBF from the Llama 3
    paper unless ``mtbf_per_gpu`` is given), the sharded training state written to
    ``checkpoint_storage`` (a storage spec or an aggregate write bandwidth; default: the node's
    local drives on every node). Without any storage to write to, no failure model is applied.

    Napkin-math mode: ``sustained`` (FLOP/s achieved per GPU, e.g. ``Q_(150, "TFLOP/s")``)
    replaces the roofline step time by ``FLOPs per step / sustained``, and ``flop_count="6ND"``
    counts ``6·N`` FLOPs per token (Kaplan et al. 2020) instead of the operator table, as the
    textbook chapter's worked examples do.
    """

    model: str | Spec
    gpu: str | Accelerator | None = None
    gpus: int | None = None
    tokens: float | pint.Quantity | None = None
    steps: int | None = None
    config: TrainingConfig | None = None
    system: str | Node | Cluster | None = None
    region: str | Grid = "world"
    price: str | pint.Quantity | None = None
    pue: float | None = None
    purchase_price: pint.Quantity | None = None
    electricity_price: pint.Quantity | None = None
    storage: str | Storage | None = None
    pretokenized: bool = False
    parallel: Parallelism | None = None
    zero_stage: int = 0
    sustained: pint.Quantity | None = None
    flop_count: str = "operators"
    failures: bool = True
    checkpoint_storage: str | Storage | pint.Quantity | None = None
    mtbf_per_gpu: pint.Quantity | None = None
    async_checkpoint: bool = False
    assumptions: Assumptions = field(default_factory=Assumptions)
    catalog: Catalog | None = None

    def __post_init__(self) -> None:
        catalog = self.catalog or default_catalog()
        self._catalog = catalog
        self._model = self.model if isinstance(self.model, Spec) else catalog.model(self.model)
        node, nodes = self._resolve_system(catalog)
        self._node = node
        if self.gpu is not None:
            self._gpu = (
                self.gpu if isinstance(self.gpu, Accelerator) else catalog.accelerator(self.gpu)
            )
        elif node is not None:
            self._gpu = catalog.accelerator(node.accelerator)
        else:
            raise MlcostError(
                "Plan: give gpu= (e.g. 'h100-sxm5-80gb') or system= (e.g. 'dgx-h100')"
            )
        per_node = node.accelerators_per_node if node else self.assumptions.gpus_per_host
        self._gpus = int(self.gpus) if self.gpus is not None else (nodes * per_node if node else 1)
        if self._gpus < 1:
            raise MlcostError(f"Plan: gpus: got {self.gpus}, expected a positive count")
        self._config = self.config or TrainingConfig()
        self._grid = self.region if isinstance(self.region, Grid) else catalog.grid(self.region)
        if (self.tokens is None) == (self.steps is None) and self.tokens is not None:
            raise MlcostError("Plan: give tokens= or steps=, not both")
        if self.flop_count not in ("operators", "6ND"):
            raise UnknownNameError("flop_count", self.flop_count, ["operators", "6ND"])
        if self.sustained is not None:
            self.sustained = _checked(self.sustained, "flop/s", "sustained")
        if self.pue is not None and not 1.0 <= self.pue <= 5.0:
            raise MlcostError(f"Plan: pue: got {self.pue}, expected a value between 1.0 and 5.0")

    # -- resolution -------------------------------------------------------------------------

    def _resolve_system(self, catalog: Catalog) -> tuple[Node | None, int]:
        """The node (and node count) of ``system``; keeps the resolved spec as ``_system``."""
        system = self.system
        self._system: Node | Cluster | None = None
        if system is None:
            return None, 1
        spec = catalog.get(system, ("node", "cluster")) if isinstance(system, str) else system
        if isinstance(spec, (Node, Cluster)):
            self._system = spec
        if isinstance(spec, Cluster):
            return catalog.node(spec.node), spec.nodes
        if isinstance(spec, Node):
            return spec, 1
        raise MlcostError(f"Plan: system: got {type(spec).__name__}, expected a node or cluster")

    def _price(self, gpu: Accelerator) -> tuple[float, str]:
        """USD per GPU-hour and where it comes from (NaN when none is known)."""
        price = self.price
        if isinstance(price, pint.Quantity):
            return float(price.to("USD/hour").magnitude), "given"
        if isinstance(price, str):
            offer = self._catalog.price(price)
            return float(offer.price_per_gpu_hour.to("USD/hour").magnitude), _offer_source(offer)
        offers = self._catalog.prices_for(gpu.name)
        if not offers:
            return math.nan, "no catalog price for this GPU; pass price="
        cheapest = min(offers, key=lambda o: o.price_per_gpu_hour.to("USD/hour").magnitude)
        return float(cheapest.price_per_gpu_hour.to("USD/hour").magnitude), _offer_source(cheapest)

    def _context(self, model: Spec, gpu: Accelerator, config: TrainingConfig) -> _Context:
        a = self.assumptions
        node = self._node
        per_node = node.accelerators_per_node if node else a.gpus_per_host
        host_power, host_source = a.host_power_per_gpu, ASSUMPTION_SOURCES["host_power_per_gpu"]
        if node is not None and node.power is not None and gpu.tdp is not None:
            rest = node.power - gpu.tdp * node.accelerators_per_node
            if rest.magnitude > 0:
                host_power = (rest / node.accelerators_per_node).to("W")
                host_source = (
                    f"{node.name}: node power {format_quantity(node.power)} minus "
                    f"{node.accelerators_per_node} x {format_quantity(gpu.tdp)} GPU TDP, per GPU "
                    f"({node.source_of('power') or 'node spec'})"
                )
        storage = self._storage(node)
        link_name = gpu.host_interface
        link = self._catalog.link(link_name).per_direction if link_name else None
        embodied, embodied_source = (
            a.embodied_carbon_per_gpu,
            ASSUMPTION_SOURCES["embodied_carbon_per_gpu"],
        )
        purchase = self.purchase_price if self.purchase_price is not None else gpu.list_price
        return _Context(
            model=model,
            gpu=gpu,
            config=config,
            parallel=self._parallelism(),
            gpus_per_node=per_node,
            host_power_per_gpu=host_power,
            host_power_source=host_source,
            storage=storage,
            host_link=link,
            host_link_name=link_name,
            embodied_per_gpu=embodied,
            embodied_source=embodied_source,
            purchase_price=purchase,
            assumptions=a,
            pretokenized=self.pretokenized,
            sustained=self.sustained,
            flop_count=self.flop_count,
            data_parallel_follows_gpus=self.parallel is None,
            **self._checkpoint_target(node),
            **self._communication_system(gpu),
        )

    def _communication_system(self, gpu: Accelerator) -> dict[str, Any]:
        """The node or cluster whose links carry the data-parallel traffic: the plan's system,
        else the catalog node built from this GPU (e.g. dgx-h100 for an H100 SXM5)."""
        if self._system is not None:
            return {"comm_system": self._system, "comm_source": f"{self._system.name} links"}
        for candidate in self._catalog.items("systems"):
            if isinstance(candidate, Node) and candidate.accelerator == gpu.name:
                return {
                    "comm_system": candidate,
                    "comm_source": f"{candidate.name} links (the catalog node with {gpu.name}; "
                    "pass system= to choose another)",
                }
        return {}

    def _checkpoint_target(self, node: Node | None) -> dict[str, Any]:
        """Where the training state is written, for the failure model."""
        target = self.checkpoint_storage
        common = {"mtbf_per_gpu": self.mtbf_per_gpu, "async_checkpoint": self.async_checkpoint}
        if not self.failures:
            return common
        if isinstance(target, pint.Quantity):
            bandwidth = _checked(target, "byte/s", "checkpoint_storage")
            return {
                **common,
                "checkpoint_bandwidth_shared": bandwidth,
                "checkpoint_source": "given",
            }
        if target is not None:
            spec = target if isinstance(target, Storage) else self._catalog.storage(target)
            return {
                **common,
                "checkpoint_bandwidth_shared": spec.sequential_write,
                "checkpoint_source": f"{spec.name} sequential write "
                f"({spec.source_of('sequential_write') or 'spec'}), shared by all GPUs",
            }
        if node is not None and node.storage:
            drive = self._catalog.storage(node.storage[0].target)
            per_node = drive.sequential_write * node.storage[0].count
            return {
                **common,
                "checkpoint_bandwidth_per_node": per_node,
                "checkpoint_source": f"{node.storage[0].count} x {drive.name} per node, sequential "
                f"write ({drive.source_of('sequential_write') or 'spec'}), every node writing its "
                "shards",
            }
        return common

    def _storage(self, node: Node | None) -> Storage | None:
        if isinstance(self.storage, Storage):
            return self.storage
        if isinstance(self.storage, str):
            return self._catalog.storage(self.storage)
        if node is not None and node.storage:
            return self._catalog.storage(node.storage[0].target)
        return None

    def _numbers(self, gpu: Accelerator, config: TrainingConfig) -> _Numbers:
        price, _ = self._price(gpu)
        return _Numbers(
            micro_batch_size=np.asarray([config.micro_batch_size]),
            sequence_length=np.asarray([config.sequence_length]),
            gpus=np.asarray([self._gpus]),
            tokens=np.asarray([self._token_budget(config)], dtype=np.float64),
            intensity=np.asarray([self._grid.carbon_intensity.to("gCO2e/kWh").magnitude]),
            pue=np.asarray([self._pue(self._grid)]),
            price=np.asarray([price]),
            electricity_price=np.asarray([self._electricity_price(self._grid)]),
        )

    def _token_budget(self, config: TrainingConfig) -> float:
        if self.steps is not None:
            return float(self.steps * config.tokens_per_step * self._gpus)
        if self.tokens is None:
            return 20.0 * float(_parameters(self._model))
        if isinstance(self.tokens, pint.Quantity):
            return float(self.tokens.to("token").magnitude)
        return float(self.tokens)

    def _pue(self, grid: Grid) -> float:
        if self.pue is not None:
            return self.pue
        return grid.pue if grid.pue is not None else self.assumptions.fallback_pue

    def _electricity_price(self, grid: Grid) -> float:
        if self.electricity_price is not None:
            return float(self.electricity_price.to("USD/kWh").magnitude)
        if grid.electricity_price is not None:
            return float(grid.electricity_price.to("USD/kWh").magnitude)
        return float(self.assumptions.fallback_electricity_price.to("USD/kWh").magnitude)

    # -- results ----------------------------------------------------------------------------

    def _evaluated(self) -> dict[str, Any]:
        if not hasattr(self, "_cache"):
            context = self._context(self._model, self._gpu, self._config)
            self._cache = _evaluate(context, self._numbers(self._gpu, self._config))
        return self._cache

    def memory(self) -> MemoryBreakdown:
        """Per-GPU memory of one step (:func:`mlcost.memory.memory_breakdown`)."""
        return memory_breakdown(self._model, self._config, self._gpu, parallel=self._parallelism())

    def _parallelism(self) -> Parallelism:
        """The memory model's split: the given one, or pure data parallel over all GPUs."""
        if self.parallel is not None:
            return self.parallel
        if self.zero_stage not in (0, 1, 2, 3):
            raise MlcostError(f"Plan: zero_stage: got {self.zero_stage}, expected 0, 1, 2 or 3")
        return Parallelism(data_parallel=self._gpus, zero_stage=self.zero_stage)

    @property
    def accelerator(self) -> Accelerator:
        """The GPU this plan runs on."""
        return self._gpu

    @property
    def gpu_count(self) -> int:
        return self._gpus

    @property
    def description(self) -> str:
        c = self._config
        return (
            f"{self._model.name} on {self._gpus} x {self._gpu.name}, {c.precision}, micro-batch "
            f"{c.micro_batch_size} x {c.sequence_length} tokens, {self._grid.name} grid"
        )

    def step_time(self) -> PlanStep:
        """One step: compute, exposed communication, the overlapped input pipeline."""
        r = self._evaluated()
        return PlanStep(
            compute=Q_(float(r["compute_s"][0]), "s"),
            communication=Q_(float(r["communication_s"][0]), "s"),
            data=Q_(float(r["data_s"][0]), "s"),
            data_stages={k: Q_(float(r[f"{k}_s"][0]), "s") for k in _STAGES},
            total=Q_(float(r["step_s"][0]), "s"),
            detail=r["detail"],
            mfu=float(r["mfu"][0]),
        )

    def goodput(self) -> Any:
        """The failure model of this run (:class:`mlcost.checkpointing.GoodputPlan`), or None
        when no checkpoint target is known or ``failures=False``."""
        return _goodput_plan(self._context(self._model, self._gpu, self._config), self._gpus)

    def cheapest_recompute(self, budget: pint.Quantity | None = None) -> Any:
        """The least recomputation that makes one step fit this plan's GPU (activation
        checkpoint placement, :func:`mlcost.checkpointing.cheapest_recompute`)."""
        from mlcost.checkpointing import cheapest_recompute

        return cheapest_recompute(
            self._model, self._config, self._gpu, budget, parallel=self._parallelism()
        )

    def train(self) -> dict[str, Any]:
        """Time to train: steps, wall clock, GPU-hours, MFU, and distance from compute-optimal."""
        r = self._evaluated()
        self._warn_if_far_from_optimal(r)
        return {
            "steps": int(r["steps"][0]),
            "tokens": Q_(float(r["tokens"][0]), "token"),
            "step time": Q_(float(r["step_s"][0]), "s"),
            "wall clock": Q_(float(r["wall_s"][0]), "s").to("day"),
            "GPU-hours": Q_(float(r["gpu_hours"][0]), "hour"),
            "MFU": float(r["mfu"][0]),
            "training FLOPs": Q_(float(r["model_flops"][0]), "flop"),
            "N / N_opt": float(r["n_over_n_opt"][0]),
            "goodput": float(r["goodput"][0]),
        }

    def energy(self) -> dict[str, pint.Quantity]:
        """Power and facility energy per step and per run."""
        r = self._evaluated()
        return {
            "GPU power": Q_(float(r["gpu_power_w"][0]), "W"),
            "IT power": Q_(float(r["it_power_w"][0]), "W").to("kW"),
            "PUE": Q_(float(r["pue"][0]), "dimensionless"),
            "energy per step": Q_(float(r["step_kwh"][0]), "kWh").to("Wh"),
            "energy": Q_(float(r["energy_kwh"][0]), "kWh").to("MWh"),
        }

    def cost(self) -> dict[str, pint.Quantity]:
        """Rental, ownership, and the rent-vs-buy break-even."""
        r = self._evaluated()
        return {
            "price per GPU-hour": Q_(float(r["price"][0]), "USD/hour"),
            "rental": Q_(float(r["rental_usd"][0]), "USD"),
            "purchase": Q_(float(r["purchase_usd"][0]), "USD"),
            "ownership for this run": Q_(float(r["ownership_usd"][0]), "USD"),
            "electricity": Q_(float(r["electricity_usd"][0]), "USD"),
            "break-even runs": Q_(float(r["break_even_runs"][0]), "dimensionless"),
            "break-even months": Q_(float(r["break_even_months"][0]), "dimensionless"),
        }

    def carbon(self) -> dict[str, pint.Quantity]:
        """Operational and embodied CO2e, reported separately."""
        r = self._evaluated()
        return {
            "grid intensity": self._grid.carbon_intensity,
            "operational": Q_(float(r["operational_t"][0]), "tCO2e"),
            "embodied": Q_(float(r["embodied_t"][0]), "tCO2e"),
        }

    def figures(self) -> list[Figure]:
        """Every figure of the plan with its formula, numbers substituted and source."""
        return _figures(self, self._evaluated())

    def summary(self) -> pd.DataFrame:
        """One table: quantity, value, formula."""
        return pd.DataFrame(
            [{"quantity": f.name, "value": f.text(), "formula": f.formula} for f in self.figures()]
        ).set_index("quantity")

    def explain(self) -> str:
        """Each figure: formula, the numbers substituted, and the source."""
        lines = [f"Plan: {self.description}"]
        for figure in self.figures():
            lines.append(f"{figure.name} = {figure.text()}")
            lines.append(f"    formula: {figure.formula}")
            lines.append(f"    numbers: {figure.substituted}")
            lines.append(f"    source:  {figure.source}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self._model.name,
            "gpu": self._gpu.name,
            "gpus": self._gpus,
            "region": self._grid.name,
            "figures": [
                {
                    "name": f.name,
                    "value": _json_value(f.value),
                    "formula": f.formula,
                    "substituted": f.substituted,
                    "source": f.source,
                }
                for f in self.figures()
            ],
        }

    def _repr_html_(self) -> str:
        return self.summary().to_html()

    def _warn_if_far_from_optimal(self, r: Mapping[str, Any]) -> None:
        ratio = float(r["n_over_n_opt"][0])
        factor = self.assumptions.far_from_optimal_factor
        if ratio > factor or ratio < 1 / factor:
            warnings.warn(
                f"{self._model.name} with {float(r['tokens'][0]):.3g} tokens is {ratio:.2g}x the "
                f"compute-optimal model size for its FLOPs (Hoffmann et al. 2022); the same "
                "compute would reach a lower loss with a "
                + (
                    "smaller model and more tokens"
                    if ratio > 1
                    else "larger model and fewer tokens"
                ),
                ComputeOptimalWarning,
                stacklevel=3,
            )

    # -- sweeps and inverse questions -------------------------------------------------------

    def sweep(self, **axes: Iterable[Any]) -> pd.DataFrame:
        """Every combination of the given axes, one row each, evaluated vectorized.

        Structural axes (:data:`STRUCTURAL_AXES`: model, gpu, precision, ...) are evaluated once
        per distinct combination; numeric axes (:data:`NUMERIC_AXES`: micro_batch_size,
        sequence_length, gpus, tokens, region, pue, price_per_gpu_hour) as numpy arrays in one
        call per group, so 100,000 configurations take a few calls, not 100,000. A combination
        that cannot run (fp8 on a GPU without FP8 peaks) gets rows whose ``problem`` says why.
        """
        known = STRUCTURAL_AXES + NUMERIC_AXES
        for name in axes:
            if name not in known:
                raise UnknownNameError("sweep axis", name, known)
        values = {name: list(v) if not isinstance(v, str) else [v] for name, v in axes.items()}
        for name, v in values.items():
            if not v:
                raise MlcostError(f"sweep: axis {name} is empty; expected at least one value")
        structural = [n for n in STRUCTURAL_AXES if n in values]
        numeric = [n for n in NUMERIC_AXES if n in values]
        frames = []
        numeric_values = {n: values[n] for n in numeric}
        for combo in itertools.product(*(values[n] for n in structural)):
            setting = dict(zip(structural, combo, strict=True))
            try:
                frame = self._sweep_group(setting, numeric_values)
                frame["problem"] = ""
            except MlcostError as error:  # e.g. fp8 on a GPU without FP8 tensor cores
                frame = _unsupported_rows(setting, numeric_values, str(error))
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)

    def _sweep_group(self, setting: dict[str, Any], numeric: dict[str, list[Any]]) -> pd.DataFrame:
        model = setting.get("model", self._model)
        model = model if isinstance(model, Spec) else self._catalog.model(model)
        gpu = setting.get("gpu", self._gpu)
        gpu = gpu if isinstance(gpu, Accelerator) else self._catalog.accelerator(gpu)
        updates = {k: v for k, v in setting.items() if k not in ("model", "gpu")}
        config = self._config.model_copy(update=updates) if updates else self._config
        if updates:
            config = TrainingConfig(**config.model_dump())  # re-validate the updated fields
        grid_axes = list(numeric)
        mesh = (
            np.meshgrid(*(np.arange(len(numeric[n])) for n in grid_axes), indexing="ij")
            if grid_axes
            else []
        )
        index = {n: m.ravel() for n, m in zip(grid_axes, mesh, strict=True)}
        size = len(next(iter(index.values()))) if index else 1
        base = self._numbers(gpu, config)

        def column(name: str, default: Number, convert: Any = None) -> Number:
            if name not in index:
                return np.broadcast_to(default, (size,))
            raw = numeric[name]
            table = np.asarray([convert(v) if convert else v for v in raw], dtype=np.float64)
            return table[index[name]]

        regions = numeric.get("region", [])
        grids = [r if isinstance(r, Grid) else self._catalog.grid(r) for r in regions]
        numbers = _Numbers(
            micro_batch_size=column("micro_batch_size", base.micro_batch_size).astype(np.int64),
            sequence_length=column("sequence_length", base.sequence_length).astype(np.int64),
            gpus=column("gpus", base.gpus),
            tokens=column("tokens", base.tokens, _tokens),
            intensity=(
                np.asarray([g.carbon_intensity.to("gCO2e/kWh").magnitude for g in grids])[
                    index["region"]
                ]
                if grids
                else np.broadcast_to(base.intensity, (size,))
            ),
            pue=(
                column("pue", base.pue)
                if "pue" in index or not grids or self.pue is not None
                else np.asarray([self._pue(g) for g in grids])[index["region"]]
            ),
            price=column("price_per_gpu_hour", base.price, _usd_per_hour),
            electricity_price=(
                np.asarray([self._electricity_price(g) for g in grids])[index["region"]]
                if grids
                else np.broadcast_to(base.electricity_price, (size,))
            ),
        )
        result = _evaluate(self._context(model, gpu, config), numbers)
        frame = pd.DataFrame({k: v for k, v in result.items() if k != "detail"})
        for name in setting:
            frame.insert(0, name, _label(setting[name]))
        for name in grid_axes:
            labels = np.asarray([_label(v) for v in numeric[name]], dtype=object)
            if name not in frame.columns:  # the evaluated columns already hold the others
                frame[name] = labels[index[name]]
        if "region" in index:
            frame["region"] = np.asarray([g.name for g in grids], dtype=object)[index["region"]]
        return frame

    def best_model_for(
        self,
        *,
        usd: pint.Quantity | float | None = None,
        days: pint.Quantity | float | None = None,
        tco2e: pint.Quantity | float | None = None,
        fit: scaling.LossFit = scaling.HOFFMANN,
    ) -> dict[str, Any]:
        """The compute-optimal ``(N, D)`` this plan's system can afford under a budget in USD,
        days or tCO2e (:func:`mlcost.scaling.budget_flops` with this plan's measured MFU, price,
        power and grid), and the loss the fit predicts for it."""
        r = self._evaluated()
        per_gpu_rate = Q_(float(r["mfu"][0]) * _peak(self._gpu, self._config), "flop/s")
        gpu_hour_carbon = Q_(
            float(r["operational_t"][0] / max(r["gpu_hours"][0], 1e-300)), "tCO2e/hour"
        )
        flops = scaling.budget_flops(
            per_gpu_rate,
            self._gpus,
            usd=_as(usd, "USD"),
            days=_as(days, "day"),
            tco2e=_as(tco2e, "tCO2e"),
            price_per_gpu_hour=Q_(float(r["price"][0]), "USD/hour"),
            carbon_per_gpu_hour=gpu_hour_carbon,
        )
        n, d = fit.compute_optimal(flops.to("flop").magnitude)
        return {
            "FLOPs": flops,
            "parameters": Q_(float(n), "param"),
            "tokens": Q_(float(d), "token"),
            "loss": float(fit.loss(n, d)),
            "fit": fit.source,
        }


_STAGES = ("read", "preprocess", "transfer")


def _evaluate(ctx: _Context, x: _Numbers) -> dict[str, Any]:
    """The whole chain for arrays of configurations sharing one structural context."""
    a = ctx.assumptions
    mb = np.asarray(x.micro_batch_size)
    seq = np.asarray(x.sequence_length)
    gpus = np.asarray(x.gpus, dtype=np.float64)
    # Evaluate the step once per distinct (micro-batch, sequence) pair, then broadcast.
    pairs, inverse = np.unique(np.stack([mb, seq]), axis=1, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    detail = step_time(
        ctx.model, ctx.config, ctx.gpu, micro_batch_size=pairs[0], sequence_length=pairs[1]
    )
    compute_s = np.atleast_1d(detail.total.to("s").magnitude)[inverse]
    model_flops_step = np.atleast_1d(detail.table.model_flops.to("flop").magnitude)
    model_flops_step = np.broadcast_to(model_flops_step, pairs[0].shape)[inverse]
    if ctx.flop_count == "6ND":
        tokens_step = mb * seq * ctx.config.gradient_accumulation_steps
        model_flops_step = 6.0 * float(_parameters(ctx.model)) * tokens_step
    if ctx.sustained is not None:
        compute_s = model_flops_step / float(ctx.sustained.to("flop/s").magnitude)
    communication_s = np.zeros_like(compute_s)
    if ctx.comm_system is not None and ctx.sustained is None and np.any(gpus > 1):
        compute_s, communication_s = _data_parallel_step(ctx, mb, seq, gpus, compute_s)
    memory_gib = _memory_gib(ctx, pairs, inverse, gpus)
    capacity_gib = float(ctx.gpu.memory_capacity.to("GiB").magnitude)

    tokens_per_gpu_step = mb * seq * ctx.config.gradient_accumulation_steps
    stages = datapipe.data_stage_times(
        tokens_per_gpu_step,
        storage=ctx.storage.sequential_read if ctx.storage is not None else None,
        stored_bytes_per_token=a.token_id_bytes if ctx.pretokenized else a.stored_bytes_per_token,
        readers_sharing_storage=np.minimum(gpus, ctx.gpus_per_node),
        access_factor=a.storage_access_factor,
        tokenization_rate=None if ctx.pretokenized else a.tokenization_rate_per_core,
        workers=a.loader_workers,
        host_link=ctx.host_link,
        token_id_bytes=a.token_id_bytes,
    )
    stage_s = {k: np.asarray(v.to("s").magnitude, dtype=np.float64) for k, v in stages.items()}
    data_s = datapipe.pipelined_time(*stages.values()).to("s").magnitude
    busy_s = compute_s + communication_s
    step_s = np.maximum(busy_s, data_s)

    tokens = np.asarray(x.tokens, dtype=np.float64)
    tokens_per_step = tokens_per_gpu_step * gpus
    steps = np.ceil(tokens / tokens_per_step)
    goodput = _goodput(ctx, gpus)
    wall_s = steps * step_s / goodput
    gpu_hours = wall_s * gpus / 3600.0
    peak = _peak(ctx.gpu, ctx.config)
    mfu = model_flops_step / (step_s * peak)
    run_model_flops = model_flops_step * gpus * steps

    utilization = compute_s / step_s
    tdp = ctx.gpu.tdp if ctx.gpu.tdp is not None else None
    if tdp is None:
        raise MlcostError(f"Plan: {ctx.gpu.name} has no tdp in its spec; energy needs one")
    gpu_power = energy_formulas.accelerator_power(
        utilization, tdp, idle_fraction=a.gpu_idle_fraction
    )
    it_power = energy_formulas.cluster_power(gpus, gpu_power) + ctx.host_power_per_gpu * gpus
    pue = np.asarray(x.pue, dtype=np.float64)
    energy_kwh = energy_formulas.energy(it_power, Q_(wall_s, "s"), pue=pue).to("kWh").magnitude
    step_kwh = energy_formulas.energy(it_power, Q_(step_s, "s"), pue=pue).to("kWh").magnitude

    price = np.asarray(x.price, dtype=np.float64)
    hours = Q_(gpu_hours, "hour")
    used = Q_(energy_kwh, "kWh")
    busy_life = a.gpu_lifetime * a.gpu_use_rate  # amortization over busy hours
    each = ctx.purchase_price if ctx.purchase_price is not None else Q_(math.nan, "USD")
    rental = cost_formulas.rental_cost(hours, Q_(price, "USD/hour")).magnitude
    purchase = (gpus * each).to("USD").magnitude
    electricity = cost_formulas.electricity_cost(
        used, Q_(np.asarray(x.electricity_price, dtype=np.float64), "USD/kWh")
    ).magnitude
    ownership = cost_formulas.ownership_cost(
        gpus,
        each,
        used_for=Q_(wall_s, "s"),
        lifetime=busy_life,
        energy_used=used,
        electricity_price=Q_(np.asarray(x.electricity_price, dtype=np.float64), "USD/kWh"),
    ).magnitude
    with np.errstate(divide="ignore", invalid="ignore"):
        break_even_runs = cost_formulas.break_even_runs(
            Q_(purchase, "USD"), Q_(rental, "USD")
        ).magnitude
        break_even_months = cost_formulas.break_even_months(
            Q_(purchase, "USD"), gpus, Q_(price, "USD/hour"), a.gpu_use_rate
        ).magnitude
    operational_t = energy_formulas.operational_carbon(
        used, Q_(np.asarray(x.intensity, dtype=np.float64), "gCO2e/kWh")
    ).magnitude
    embodied_t = energy_formulas.embodied_carbon(hours, ctx.embodied_per_gpu, busy_life).magnitude
    parameters = float(_parameters(ctx.model))
    n_opt, _ = scaling.HOFFMANN.compute_optimal(6.0 * parameters * tokens)
    return {
        "micro_batch_size": mb,
        "sequence_length": seq,
        "gpus": gpus.astype(np.int64),
        "tokens": tokens,
        "compute_s": compute_s,
        "communication_s": communication_s,
        "read_s": stage_s["read"] * np.ones_like(compute_s),
        "preprocess_s": stage_s["preprocess"] * np.ones_like(compute_s),
        "transfer_s": stage_s["transfer"] * np.ones_like(compute_s),
        "data_s": data_s * np.ones_like(compute_s),
        "step_s": step_s,
        "data_bound": data_s > busy_s,
        "memory_gib": memory_gib,
        "capacity_gib": np.full_like(compute_s, capacity_gib),
        "fits": memory_gib <= capacity_gib,
        "steps": steps,
        "wall_s": wall_s,
        "wall_days": wall_s / 86400.0,
        "gpu_hours": gpu_hours,
        "mfu": mfu,
        "model_flops": run_model_flops,
        "gpu_power_w": gpu_power.to("W").magnitude * np.ones_like(compute_s),
        "it_power_w": it_power.to("W").magnitude * np.ones_like(compute_s),
        "pue": pue * np.ones_like(compute_s),
        "step_kwh": step_kwh * np.ones_like(compute_s),
        "energy_kwh": energy_kwh,
        "price": price * np.ones_like(compute_s),
        "rental_usd": rental,
        "purchase_usd": purchase * np.ones_like(compute_s),
        "electricity_usd": electricity,
        "ownership_usd": ownership,
        "break_even_runs": break_even_runs,
        "break_even_months": break_even_months * np.ones_like(compute_s),
        "intensity_g_per_kwh": np.asarray(x.intensity, dtype=np.float64) * np.ones_like(compute_s),
        "operational_t": operational_t,
        "embodied_t": embodied_t,
        "n_over_n_opt": parameters / n_opt * np.ones_like(compute_s),
        "goodput": goodput * np.ones_like(compute_s),
        "detail": detail,
    }


def _data_parallel_step(
    ctx: _Context, mb: np.ndarray, seq: np.ndarray, gpus: np.ndarray, single_gpu: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Compute and exposed communication of pure data parallelism (with the plan's ZeRO stage)
    over ``gpus`` on the plan's system, from :func:`mlcost.parallel.step.evaluate` (one
    vectorized pass per distinct sequence length). One GPU keeps the single-GPU step."""
    from mlcost.comms import topology
    from mlcost.parallel.step import compute_parts, evaluate, model_dims, recompute_fraction
    from mlcost.parallel.strategies import Degrees

    compute = np.array(single_gpu, dtype=np.float64, copy=True)
    exposed = np.zeros_like(compute)
    if not isinstance(ctx.model, TransformerSpec) or ctx.comm_system is None:
        return compute, exposed
    base = topology(ctx.comm_system)
    per_node = base.gpus_per_node
    topo = topology(ctx.comm_system, nodes=max(base.nodes, math.ceil(float(gpus.max()) / per_node)))
    many = gpus > 1
    for length in np.unique(seq[many]):
        mask = many & (seq == length)
        config = ctx.config.model_copy(update={"sequence_length": int(length)})
        sizes, inverse = np.unique(mb[mask], return_inverse=True)
        parts = compute_parts(ctx.model, config, ctx.gpu, sizes).take(np.asarray(inverse).ravel())
        ones = np.ones(int(mask.sum()), dtype=np.int64)
        degrees = Degrees(
            dp=gpus[mask].astype(np.int64),
            tp=ones,
            pp=ones,
            cp=ones,
            ep=ones,
            micro_batch=mb[mask].astype(np.int64),
            micro_batches=ones * ctx.config.gradient_accumulation_steps,
            zero=ones * ctx.parallel.zero_stage,
            sequence_parallel=np.zeros(ones.shape, dtype=bool),
            virtual=ones,
            recompute_fraction=np.asarray(recompute_fraction(config, ctx.model.num_layers)),
        )
        result = evaluate(
            model_dims(ctx.model, config),
            topo,
            degrees,
            parts,
            gpus_per_node=np.minimum(per_node, gpus[mask]),
        )
        compute[mask] = result.compute + result.bubble
        exposed[mask] = result.exposed
    return compute, exposed


def _checkpoint_bandwidth(ctx: _Context, gpus: int) -> pint.Quantity:
    """Aggregate write bandwidth for a checkpoint of ``gpus`` GPUs: the shared target's, or the
    per-node drives times the nodes."""
    if ctx.checkpoint_bandwidth_shared is not None:
        return ctx.checkpoint_bandwidth_shared
    if ctx.checkpoint_bandwidth_per_node is None:
        raise MlcostError("Plan: no checkpoint storage known; pass checkpoint_storage=")
    return ctx.checkpoint_bandwidth_per_node * math.ceil(gpus / ctx.gpus_per_node)


def _goodput_plan(ctx: _Context, gpus: int) -> Any:
    """The failure model (:func:`mlcost.checkpointing.goodput_plan`) of the sharded training
    state on ``gpus`` GPUs, or None when no checkpoint target is known."""
    from mlcost.checkpointing import checkpoint_bytes_per_gpu, goodput_plan

    if ctx.checkpoint_bandwidth_per_node is None and ctx.checkpoint_bandwidth_shared is None:
        return None
    parameters = float(_parameters(ctx.model))
    state = checkpoint_bytes_per_gpu(parameters, gpus, ctx.config.precision, ctx.config.optimizer)
    return goodput_plan(
        state,
        gpus,
        write_bandwidth=_checkpoint_bandwidth(ctx, gpus),
        mtbf_per_gpu=ctx.mtbf_per_gpu,
        asynchronous=ctx.async_checkpoint,
    )


def _goodput(ctx: _Context, gpus: np.ndarray) -> Any:
    """Goodput per configuration (1 where no checkpoint target is known), evaluated once per
    distinct GPU count."""
    out = np.ones(gpus.shape, dtype=np.float64)
    for count in np.unique(gpus):
        plan = _goodput_plan(ctx, int(count))
        if plan is None:
            break
        out[gpus == count] = plan.goodput
    return out


def _unsupported_rows(
    setting: dict[str, Any], numeric: dict[str, list[Any]], problem: str
) -> pd.DataFrame:
    """Rows for a combination that cannot run, with the reason (other columns empty)."""
    product = list(itertools.product(*numeric.values())) if numeric else [()]
    frame = pd.DataFrame(
        [[_label(v) for v in row] for row in product], columns=list(numeric), dtype=object
    )
    for name, value in setting.items():
        frame.insert(0, name, _label(value))
    frame["fits"] = False
    frame["problem"] = problem
    return frame


def _memory_gib(ctx: _Context, pairs: np.ndarray, inverse: np.ndarray, gpus: np.ndarray) -> Any:
    """Per-GPU memory for every configuration. With the plan's own data-parallel split and a
    ZeRO stage > 0 the sharding depends on the GPU count, so memory is evaluated once per
    distinct count (vectorized over micro-batch and sequence within each)."""
    counts = np.unique(gpus) if ctx.data_parallel_follows_gpus and ctx.parallel.zero_stage else None
    out = np.empty(inverse.shape, dtype=np.float64)
    groups: list[tuple[int | None, Any]] = [(None, np.ones(inverse.shape, dtype=bool))]
    if counts is not None:
        groups = [(int(c), gpus == c) for c in counts]
    for count, mask in groups:
        parallel = (
            ctx.parallel
            if count is None
            else ctx.parallel.model_copy(update={"data_parallel": count})
        )
        breakdown = memory_breakdown(
            ctx.model,
            ctx.config,
            ctx.gpu,
            parallel=parallel,
            micro_batch_size=pairs[0],
            sequence_length=pairs[1],
        )
        values = np.broadcast_to(np.atleast_1d(breakdown.total.to("GiB").magnitude), pairs[0].shape)
        out[mask] = values[inverse[mask]]
    return out


def _figures(plan: Plan, r: Mapping[str, Any]) -> list[Figure]:
    ctx = plan._context(plan._model, plan._gpu, plan._config)
    a = plan.assumptions
    g = plan._gpu
    c = plan._config
    n = plan._gpus
    v = {k: (float(val[0]) if isinstance(val, np.ndarray) else val) for k, val in r.items()}
    peak = _peak(g, c)
    price_value, price_source = plan._price(g)
    grid = plan._grid
    grid_source = grid.source_of("carbon_intensity") or grid.name
    pue_source = (
        "given"
        if plan.pue is not None
        else (grid.source_of("pue") if grid.pue is not None else ASSUMPTION_SOURCES["fallback_pue"])
    )
    tdp = g.tdp if g.tdp is not None else Q_(math.nan, "W")
    figures = [
        Figure(
            "parameters",
            Q_(_parameters(plan._model), "param"),
            "exact count from the architecture",
            f"{plan._model.name}",
            f"{plan._model.name} spec ({plan._model.source_of('*') or 'catalog'})",
        ),
        Figure(
            "tokens",
            Q_(v["tokens"], "token"),
            "given (or 20 tokens per parameter)",
            f"{v['tokens']:.4g}",
            "given"
            if plan.tokens is not None or plan.steps is not None
            else "Hoffmann et al. 2022 (Chinchilla), 20 tokens per parameter",
        ),
        Figure(
            "compute time per step",
            Q_(v["compute_s"], "s").to("ms"),
            "sum over operators of max(F/(peak·eta), B/(BW·eta)) + launches"
            + ("; the data-parallel shard's compute when GPUs > 1" if n > 1 else ""),
            f"{len(r['detail'].rows)} operators on {g.name} "
            f"(peak {peak / 1e12:.4g} TFLOP/s {c.policy.compute_format}, "
            f"{format_quantity(g.memory_bandwidth)})",
            f"mlcost.timing.step_time (roofline, Williams et al. 2009); {g.name} spec "
            f"({g.source_of('peak_compute') or 'datasheet'})",
        ),
        Figure(
            "exposed communication per step",
            Q_(v["communication_s"], "s").to("ms"),
            "gradient all-reduce (or ZeRO reduce-scatter + all-gather) not hidden behind backward",
            f"{n} GPUs, ZeRO-{ctx.parallel.zero_stage}, "
            + (ctx.comm_source or "no system: communication not modelled"),
            "mlcost.parallel (alpha-beta collectives: Patarasuk and Yuan 2009; Thakur et al. "
            "2005; ZeRO volumes: Rajbhandari et al. 2020 section 7)"
            if n > 1
            else "one GPU: nothing to communicate",
        ),
        Figure(
            "input pipeline per step",
            Q_(v["data_s"], "s").to("ms"),
            "max(read, tokenize, host-to-device) per GPU (prefetch overlaps the stages)",
            f"read {v['read_s'] * 1e3:.3g} ms, tokenize {v['preprocess_s'] * 1e3:.3g} ms "
            f"({a.loader_workers} workers x {format_quantity(a.tokenization_rate_per_core)}), "
            f"transfer {v['transfer_s'] * 1e3:.3g} ms over {ctx.host_link_name or 'no link'}",
            "textbook chapter F-29..F-39 (data pipeline); " + ASSUMPTION_SOURCES["loader_workers"],
        ),
        Figure(
            "step time",
            Q_(v["step_s"], "s").to("ms"),
            "max(compute + exposed communication, input pipeline)",
            f"max({v['compute_s'] * 1e3:.4g} + {v['communication_s'] * 1e3:.4g}, "
            f"{v['data_s'] * 1e3:.4g}) ms -> "
            + ("data-bound" if v["data_bound"] else "compute-bound"),
            "textbook chapter F-33 (T_system = min(T_pipeline, T_compute))",
        ),
        Figure(
            "memory per GPU",
            Q_(v["memory_gib"], "GiB"),
            "weights + gradients + optimizer states + activations + overheads",
            f"{v['memory_gib']:.4g} GiB of {v['capacity_gib']:.4g} GiB "
            f"({'fits' if v['fits'] else 'does NOT fit'})",
            "mlcost.memory.memory_breakdown (Korthikanti et al. 2022; Rajbhandari et al. 2020)",
        ),
        Figure(
            "steps",
            Q_(v["steps"], "dimensionless"),
            "ceil(D / (micro-batch · sequence · accumulation · GPUs))",
            f"ceil({v['tokens']:.4g} / ({c.micro_batch_size} x {c.sequence_length} x "
            f"{c.gradient_accumulation_steps} x {n}))",
            "definition",
        ),
        _goodput_figure(plan, v),
        Figure(
            "wall clock",
            Q_(v["wall_s"], "s").to("day"),
            "steps · step time / goodput",
            f"{v['steps']:.6g} x {v['step_s']:.4g} s / {v['goodput']:.4g}",
            "definition (Iron Law of training, textbook chapter); goodput as above",
        ),
        Figure(
            "GPU-hours",
            Q_(v["gpu_hours"], "hour"),
            "GPUs · wall clock",
            f"{n} x {v['wall_s'] / 3600:.6g} h",
            "definition",
        ),
        Figure(
            "MFU",
            Q_(v["mfu"], "dimensionless").to("percent"),
            "model FLOPs per step / (step time · dense peak)",
            f"{v['model_flops'] / max(v['steps'], 1) / n:.4g} FLOP / ({v['step_s']:.4g} s x "
            f"{peak:.4g} FLOP/s)",
            "Chowdhery et al. 2022 (PaLM), appendix B",
        ),
        Figure(
            "GPU power",
            Q_(v["gpu_power_w"], "W"),
            "P_idle + (TDP - P_idle)·u, u = busy share of the step",
            f"{a.gpu_idle_fraction} x {tdp.magnitude:g} W + (1 - {a.gpu_idle_fraction}) x "
            f"{tdp.magnitude:g} W x {v['compute_s'] / v['step_s']:.3f}",
            f"{g.name} TDP ({g.source_of('tdp') or 'datasheet'}); idle share: "
            + ASSUMPTION_SOURCES["gpu_idle_fraction"],
        ),
        Figure(
            "IT power",
            Q_(v["it_power_w"], "W").to("kW"),
            "N_gpu · P_gpu + N_gpu · P_host per GPU",
            f"{n} x {v['gpu_power_w']:.4g} W + {n} x "
            f"{ctx.host_power_per_gpu.to('W').magnitude:.4g} W",
            ctx.host_power_source,
        ),
        Figure(
            "energy",
            Q_(v["energy_kwh"], "kWh").to("MWh"),
            "IT power · wall clock · PUE",
            f"{v['it_power_w'] / 1e3:.5g} kW x {v['wall_s'] / 3600:.6g} h x {v['pue']:g}",
            f"PUE: {pue_source}",
        ),
        Figure(
            "rental cost",
            Q_(v["rental_usd"], "USD"),
            "GPU-hours · price per GPU-hour",
            f"{v['gpu_hours']:.6g} h x {price_value:g} USD/h",
            price_source,
        ),
        Figure(
            "ownership cost of this run",
            Q_(v["ownership_usd"], "USD"),
            "N_gpu · purchase · wall / (lifetime · use rate) + energy · electricity price",
            f"{n} x {v['purchase_usd'] / n:.6g} USD x {v['wall_s'] / 3600:.6g} h / "
            f"({a.gpu_lifetime.to('hour').magnitude:.6g} h x {a.gpu_use_rate:g}) + "
            f"{v['energy_kwh']:.6g} kWh x "
            f"{plan._electricity_price(grid):.4g} USD/kWh",
            f"purchase: {g.source_of('list_price') or 'given'}; lifetime: "
            f"{ASSUMPTION_SOURCES['gpu_lifetime']}; use rate: "
            f"{ASSUMPTION_SOURCES['gpu_use_rate']}; electricity: "
            + (
                "given"
                if plan.electricity_price is not None
                else grid.source_of("electricity_price")
                or ASSUMPTION_SOURCES["fallback_electricity_price"]
            ),
        ),
        Figure(
            "rent-vs-buy break-even",
            Q_(v["break_even_runs"], "dimensionless"),
            "N_gpu · purchase / rental cost of one run (runs)",
            f"{v['purchase_usd']:.6g} USD / {v['rental_usd']:.6g} USD; in months of steady use: "
            f"{v['break_even_months']:.3g}",
            "textbook chapter F-62 (rent-or-buy economics)",
        ),
        Figure(
            "operational CO2e",
            Q_(v["operational_t"], "tCO2e"),
            "energy · grid carbon intensity",
            f"{v['energy_kwh']:.6g} kWh x {v['intensity_g_per_kwh']:.5g} gCO2e/kWh",
            f"{grid.name} grid ({grid.year}): {grid_source}",
        ),
        Figure(
            "embodied CO2e",
            Q_(v["embodied_t"], "tCO2e"),
            "embodied per GPU · GPU-hours / (lifetime · use rate)",
            f"{format_quantity(ctx.embodied_per_gpu)} x {v['gpu_hours']:.6g} h / "
            f"({a.gpu_lifetime.to('hour').magnitude:.6g} h x {a.gpu_use_rate:g})",
            ctx.embodied_source
            + "; lifetime: "
            + ASSUMPTION_SOURCES["gpu_lifetime"]
            + "; use rate: "
            + ASSUMPTION_SOURCES["gpu_use_rate"],
        ),
        Figure(
            "N / N_opt",
            Q_(v["n_over_n_opt"], "dimensionless"),
            "N / N_opt(C = 6·N·D), N_opt = G·(C/6)^(beta/(alpha+beta))",
            f"{_parameters(plan._model):.4g} / N_opt(6 x {_parameters(plan._model):.4g} x "
            f"{v['tokens']:.4g})",
            scaling.HOFFMANN.source,
        ),
    ]
    return figures


def _checked(value: Any, unit: str, name: str) -> pint.Quantity:
    if not isinstance(value, pint.Quantity) or not value.check(unit) or value.magnitude <= 0:
        raise MlcostError(f"Plan: {name}: got {value!r}, expected a positive quantity in {unit}")
    return value


def _goodput_figure(plan: Plan, v: Mapping[str, Any]) -> Figure:
    detail = plan.goodput()
    if detail is None:
        return Figure(
            "goodput",
            Q_(1.0, "dimensionless"),
            "1 (no failure model: no checkpoint storage known, or failures=False)",
            "-",
            "pass system= with drives or checkpoint_storage= to model failures",
        )
    ctx = plan._context(plan._model, plan._gpu, plan._config)
    return Figure(
        "goodput",
        Q_(v["goodput"], "dimensionless"),
        "useful time / expected wall time with checkpoints, failures and restarts "
        f"(interval: {detail.interval_rule})",
        f"checkpoint {detail.checkpoint_bytes.to('TB').magnitude:.4g} TB in "
        f"{detail.checkpoint_time.to('s').magnitude:.4g} s, system MTBF "
        f"{detail.system_mtbf.to('hour').magnitude:.4g} h, interval "
        f"{detail.interval.to('minute').magnitude:.4g} min, restart "
        f"{detail.restart_time.to('minute').magnitude:.4g} min",
        "Daly 2006 (FGCS 22(3)), Young 1974; MTBF: "
        + detail.sources.get("mtbf", "Llama 3 paper (Dubey et al. 2024) section 3.3.4")
        + "; storage: "
        + ctx.checkpoint_source,
    )


def _peak(gpu: Accelerator, config: TrainingConfig) -> float:
    return float(
        Ceilings.from_accelerator(gpu, config.policy.compute_format).peak.to("flop/s").magnitude
    )


def _parameters(model: Spec) -> int:
    if isinstance(model, TransformerSpec):
        return model.parameter_count
    count = getattr(model, "parameter_count", None)
    if count is None:
        raise MlcostError(f"Plan: {model.name} has no parameter count")
    return int(count)


def _offer_source(offer: Any) -> str:
    where = offer.source_of("price_per_gpu_hour") or "catalog"
    return f"{offer.name}: {offer.provider} {offer.offering}, {offer.date} ({where})"


def _tokens(value: Any) -> float:
    if isinstance(value, pint.Quantity):
        return float(value.to("token").magnitude)
    return float(value)


def _usd_per_hour(value: Any) -> float:
    if isinstance(value, pint.Quantity):
        return float(value.to("USD/hour").magnitude)
    return float(value)


def _as(value: pint.Quantity | float | None, unit: str) -> pint.Quantity | None:
    if value is None:
        return None
    return value.to(unit) if isinstance(value, pint.Quantity) else Q_(float(value), unit)


def _label(value: Any) -> Any:
    if isinstance(value, Spec):
        return value.name
    if isinstance(value, pint.Quantity):
        return format_quantity(value)
    return value


def _text(value: Any) -> str:
    if isinstance(value, pint.Quantity):
        magnitude = value.magnitude
        if value.dimensionless and str(value.units) == "percent":
            return f"{magnitude:.1f} %"
        if isinstance(magnitude, float) and math.isnan(magnitude):
            return "unknown"
        return (
            f"{magnitude:,.4g} {value.units:~P}"
            if abs(magnitude) < 1e6
            else f"{magnitude:.4g} {value.units:~P}"
        )
    return str(value)


def _json_value(value: Any) -> Any:
    if isinstance(value, pint.Quantity):
        magnitude = float(value.magnitude)
        return {"value": None if math.isnan(magnitude) else magnitude, "unit": f"{value.units:~D}"}
    return value


__all__ = [
    "NUMERIC_AXES",
    "STRUCTURAL_AXES",
    "ComputeOptimalWarning",
    "Figure",
    "Plan",
    "PlanStep",
]
