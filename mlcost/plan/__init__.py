"""One training run, end to end: memory, step time, time to train, energy, dollars and CO2.

``Plan`` wires the formula modules for a model, a GPU or a system of nodes, a layout, a training
configuration and a token (or step) budget, and answers the user's questions with figures that
carry their unit, formula, the numbers substituted and a source::

    >>> import mlcost
    >>> plan = mlcost.Plan("llama-2-7b", gpu="h100-sxm5-80gb", gpus=64, tokens=2e12, region="us")
    >>> plan.summary()            # one table; leads with whether the run fits
    >>> print(plan.explain())     # each figure derived
    >>> plan.sweep(gpu=["a100-sxm4-80gb", "h100-sxm5-80gb"], micro_batch_size=[1, 2, 4, 8])

The stages (:mod:`mlcost.plan.resolve` then :mod:`mlcost.plan.chain`): the inputs are resolved
once (model, the system sized for the GPUs, the layout, grid, prices, storage); the step of the
layout (compute of the slowest pipeline stage, bubble, exposed communication of every strategy),
the input pipeline overlapped with it, memory per GPU of the most loaded stage, then steps, wall
clock divided by the goodput of the failure model, GPU-hours and MFU; power, energy, dollars and
CO2e (:mod:`mlcost.plan.figures` explains each). With more than one GPU and no ``layout``, the
plan takes the fastest layout that fits (:func:`mlcost.parallel.search`) and says so. A run that
does not fit is never priced: its summary leads with "does not fit", ``train()``, ``energy()``,
``cost()`` and ``carbon()`` raise :class:`DoesNotFitError`, and :meth:`Plan.suggestions` lists
the nearest layouts and settings that fit.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import pint

from mlcost import scaling
from mlcost.arrays import only
from mlcost.checkpointing.failures import GoodputPlan, GoodputSchedule
from mlcost.checks import argument
from mlcost.errors import RunDoesNotFitError
from mlcost.layout import Layout
from mlcost.memory import MemoryBreakdown, memory_breakdown
from mlcost.parallel.step import MultiGpuStep, multi_gpu_step_time
from mlcost.plan.chain import (
    MoneyArrays,
    Numbers,
    TimeArrays,
    evaluate_money,
    evaluate_time,
    goodput_of,
)
from mlcost.plan.figures import (
    PREDICTED_GPU_HOURS,
    fit_verdict,
    plan_figures,
    report_mode_disagreement,
)
from mlcost.plan.inputs import PlanInputs
from mlcost.plan.resolve import Run, resolve
from mlcost.plan.sweep import NUMERIC_AXES, STRUCTURAL_AXES, sweep
from mlcost.records import Record
from mlcost.results import Figure, Figures, Result
from mlcost.specs import Accelerator
from mlcost.systems import System
from mlcost.units import Q_, in_unit, magnitude_in
from mlcost.workload import TrainingConfig

if TYPE_CHECKING:
    import pandas as pd

    from mlcost.checkpointing.recompute import RecomputePlan
    from mlcost.plan.fit import Suggestion


class ComputeOptimalWarning(UserWarning):
    """A plan's model size is far from compute-optimal for its FLOPs (Hoffmann et al. 2022)."""


class ReportModeWarning(UserWarning):
    """Report mode: the published GPU-hours are far from the plan's own prediction of the same
    run (:meth:`Plan.report_mode_note`); the figures still use the published ones."""


class DoesNotFitError(RunDoesNotFitError):
    """A run whose memory exceeds its GPU's: no time, energy, cost or CO2e for it. The message
    (one line) ends with the nearest layouts that fit; ``suggestions`` holds them."""

    def __init__(self, verdict: str, found: list[Suggestion]) -> None:
        self.suggestions = found
        tried = "; ".join(s.text() for s in found) if found else "no nearby layout fits"
        super().__init__(f"{verdict}; these fit: {tried}")


class PlanStep(Record, Result, frozen=True):
    """One optimizer step: compute (with the bubble), exposed communication, the overlapped
    input pipeline, and the multi-GPU step it comes from (``detail``, every communication term)."""

    compute: pint.Quantity
    communication: pint.Quantity
    data: pint.Quantity
    data_stages: dict[str, pint.Quantity]
    total: pint.Quantity
    detail: MultiGpuStep
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

    def title(self) -> str:
        return f"one step: {self.detail.layout.describe()} ({self.bound}-bound)"

    def figures(self) -> list[Figure]:
        return [
            Figure("compute", self.compute.to("ms"), "m x t_stage + t_opt + bubble"),
            Figure("exposed communication", self.communication.to("ms"), "sum of exposed terms"),
            Figure("input pipeline", self.data.to("ms"), "max(read, tokenize, transfer)"),
            Figure("step", self.total.to("ms"), "max(compute + communication, input pipeline)"),
            *self.detail.figures(),
        ]


@dataclass(frozen=True, eq=False)
class Plan(PlanInputs, Result):
    """A training run to be costed (see the module docstring for the chain).

    ``model``, ``gpu``, ``system``, ``region``, ``price`` and ``storage`` accept catalog names or
    specs (a GPU may be a calibrated profile). ``system`` (a node or cluster) supplies the GPU,
    GPUs per node, links, host power and storage; with only ``gpu`` its standard catalog node
    does. ``gpus`` defaults to the layout's, else the system's size (or 1). ``layout`` is the
    execution strategy (:class:`mlcost.layout.Layout`; a layout with ``dp = 1`` fills the GPUs);
    without one the plan searches for the fastest that fits, for ``global_batch_size`` sequences
    per step (default: Llama 2's 4M tokens, ``Assumptions.global_batch_tokens``).
    ``implementation`` is the software that runs the step (:mod:`mlcost.implementation`; default
    ``megatron-core``). Give ``tokens`` or ``steps``; with neither the budget is Chinchilla's 20
    tokens per parameter (Hoffmann et al. 2022). Time, energy, cost and CO2e carry the 80% band of
    the published validation set (:mod:`mlcost.uncertainty`).

    Failures: with ``failures`` (default) the wall clock is divided by the goodput of
    :func:`mlcost.checkpointing.goodput_plan` (Daly 2006 interval, per-GPU MTBF from the Llama 3
    paper unless ``mtbf_per_gpu`` is given), the sharded training state written to
    ``checkpoint_storage`` (a storage spec or an aggregate write bandwidth; default: the node's
    local drives on every node). Without any storage to write to, no failure model is applied.

    Energy: ``accounting`` is the convention (:data:`mlcost.energy.ACCOUNTING`; default
    ``measured-node``), ``facility`` or ``pue`` the PUE, ``power_per_gpu`` a measured power per
    GPU, ``idle_power`` the idle infrastructure's power per GPU (BLOOM's life-cycle split:
    reported apart from the dynamic energy and summed; default none counted, said so). Report
    mode: ``gpu_hours`` (published GPU-hours) replaces the predicted wall clock, so energy, cost
    and CO2e are those of the GPU-hours a report states (no uncertainty band on them).

    Napkin-math mode: ``sustained`` (FLOP/s achieved per GPU, e.g. ``Q_(150, "TFLOP/s")``)
    replaces the roofline step time by ``FLOPs per step / (GPUs x sustained)``, and
    ``flop_count="6ND"`` counts ``6·N`` FLOPs per token (Kaplan et al. 2020) instead of the
    operator table, as the textbook chapter's worked examples do.
    """

    run: Run = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # The records a plan is given, checked once here (a dict of fields is accepted).
        if self.config is not None:
            object.__setattr__(self, "config", argument(self.config, TrainingConfig, "config"))
        if self.layout is not None:
            object.__setattr__(self, "layout", argument(self.layout, Layout, "layout"))
        object.__setattr__(self, "run", resolve(self))

    # ----- the chain: two cached stages ------------------------------------------------------
    @cached_property
    def _time(self) -> TimeArrays:
        """Stages 1-4 of the chain (:func:`mlcost.plan.chain.evaluate_time`): the step, memory,
        the input pipeline and the time to train, computed once per plan."""
        return evaluate_time(self.run, Numbers.of(self.run))

    @cached_property
    def _money(self) -> MoneyArrays:
        """Stages 5-7 (:func:`mlcost.plan.chain.evaluate_money`): energy, cost and CO2e,
        computed once per plan, when an answer first needs them."""
        return evaluate_money(self.run, Numbers.of(self.run), self._time)

    def _values(self, *, money: bool = False) -> dict[str, Any]:
        """The chain's values of this one configuration by name, as Python numbers: the time
        stage's, and with ``money`` the money stage's too."""
        columns = self._time.columns()
        if money:
            columns.update(self._money.columns())
        return {name: only(column) for name, column in columns.items()}

    @property
    def fits(self) -> bool:
        """Whether one step fits the GPU's usable memory."""
        return bool(only(self._time.fits))

    @property
    def accelerator(self) -> Accelerator:
        """The GPU this plan runs on."""
        return self.run.system.accelerator

    @property
    def gpu_count(self) -> int:
        return self.run.gpus

    @property
    def resolved_system(self) -> System:
        """The system the run uses, with as many nodes as its GPUs need."""
        return self.run.system

    @property
    def description(self) -> str:
        r = self.run
        return (
            f"{r.model.name} on {r.gpus} x {r.system.accelerator.name} ({r.system.name}), "
            f"{r.layout.describe()}, {r.config.precision}, {r.config.sequence_length} tokens per "
            f"sequence, {r.grid.name} grid"
            + (
                f", fine-tuning: {r.config.finetune.describe()}"
                if not r.config.finetune.is_default
                else ""
            )
        )

    def require_fit(self) -> None:
        """Raise :class:`DoesNotFitError` (with the nearest layouts that fit) unless one step
        fits the GPU's memory; every priced answer calls it first."""
        if not self.fits:
            raise DoesNotFitError(fit_verdict(self.run, self._values()), self.suggestions())

    # ----- the answers --------------------------------------------------------------------
    def memory(self) -> MemoryBreakdown:
        """Per-GPU memory of one step (:func:`mlcost.memory.memory_breakdown`)."""
        r = self.run
        return memory_breakdown(
            r.model, r.config, r.system.accelerator, r.layout, implementation=r.software
        )

    def step_time(self) -> PlanStep:
        """One step: compute, exposed communication, the overlapped input pipeline."""
        v, r = self._values(), self.run
        detail = multi_gpu_step_time(
            r.model, r.config, r.system, r.layout, implementation=r.software
        )
        return PlanStep(
            compute=Q_(v["compute_s"], "s"),
            communication=Q_(v["communication_s"], "s"),
            data=Q_(v["data_s"], "s"),
            data_stages={k: Q_(v[f"{k}_s"], "s") for k in ("read", "preprocess", "transfer")},
            total=Q_(v["step_s"], "s"),
            detail=detail,
            mfu=float(v["mfu"]),
        )

    @cached_property
    def _goodput_plan(self) -> GoodputPlan | None:
        return goodput_of(self.run, self.run.gpus)

    def goodput(self) -> GoodputPlan | None:
        """The failure model of this run, or None when no checkpoint target is known or
        ``failures=False`` (computed once per plan)."""
        return self._goodput_plan

    @cached_property
    def _schedule(self) -> GoodputSchedule | None:
        """The checkpoint schedule the figures cite: the one the chain's goodput came from
        (:func:`mlcost.plan.chain.goodput_schedule`, the failure model on magnitudes, evaluated
        once with the chain), None where the run does not fit."""
        schedule = self._time.schedule
        return schedule.one_configuration() if schedule is not None and self.fits else None

    def cheapest_recompute(self, budget: pint.Quantity | None = None) -> RecomputePlan:
        """The least recomputation that makes one step fit this plan's GPU (activation
        checkpoint placement, :func:`mlcost.checkpointing.cheapest_recompute`)."""
        from mlcost.checkpointing.recompute import cheapest_recompute  # the optimizer, on use

        r = self.run
        return cheapest_recompute(r.model, r.config, r.system.accelerator, r.layout, budget)

    def suggestions(self, limit: int = 4) -> list[Suggestion]:
        """Layouts and settings on which this run fits (:mod:`mlcost.plan.fit`)."""
        from mlcost.plan.fit import suggestions  # only a run that does not fit asks

        return suggestions(self.run, limit)

    def _answer(self, title: str, names: tuple[str, ...], stages: tuple[str, ...]) -> Figures:
        """The figures called ``names`` under ``title``, built from the plan's figure ``stages``
        (:func:`mlcost.plan.figures.plan_figures`); raises :class:`DoesNotFitError` for a run
        that does not fit."""
        self.require_fit()
        money = any(stage in ("energy", "cost", "carbon") for stage in stages)
        built = plan_figures(self.run, self._values(money=money), self._schedule, stages)
        return Figures(f"{title}: {self.description}", tuple(f for f in built if f.name in names))

    def train(self) -> Figures:
        """Time to train: steps, wall clock, GPU-hours, MFU, goodput and N / N_opt."""
        self.require_fit()
        self._warn_if_far_from_optimal()
        self._warn_if_report_disagrees()
        names = (
            "tokens",
            "steps",
            "step time",
            "goodput",
            "wall clock",
            "GPU-hours",
            PREDICTED_GPU_HOURS,
            "MFU",
            "N / N_opt",
        )
        return self._answer("time to train", names, ("run", "step", "time"))

    def energy(self) -> Figures:
        """Power and facility energy of the run."""
        return self._answer("energy", ("GPU power", "IT power", "energy"), ("energy",))

    def cost(self) -> Figures:
        """Rental, ownership, and the rent-vs-buy break-even."""
        return self._answer(
            "cost",
            ("rental cost", "ownership cost of this run", "rent-vs-buy break-even"),
            ("cost",),
        )

    def carbon(self) -> Figures:
        """Operational and embodied CO2e, reported separately."""
        return self._answer(
            "carbon",
            (
                "operational CO2e",
                "embodied CO2e (GPUs)",
                "embodied CO2e (servers)",
                "embodied CO2e",
                "total CO2e",
            ),
            ("carbon",),
        )

    # ----- the result vocabulary ------------------------------------------------------------
    #: The short answer: fits?, the layout, time, GPU-hours, cost, energy, CO2e (each with its
    #: band where it has one).
    VERDICT: ClassVar[tuple[str, ...]] = (
        "fits", "layout", "step time", "wall clock", "GPU-hours", "rental cost", "energy",
        "total CO2e",
    )  # fmt: skip

    def title(self) -> str:
        return f"Plan: {self.description}"

    def figures(self) -> list[Figure]:
        """Every figure of the plan with its formula, numbers substituted and source (a run
        that does not fit: its memory and why, no time, energy, cost or CO2e)."""
        return plan_figures(self.run, self._values(money=self.fits), self._schedule)

    def to_json(self) -> dict[str, Any]:
        r = self.run
        data = super().to_json()
        data.update(
            {
                "model": r.model.name,
                "gpu": r.system.accelerator.name,
                "system": r.system.name,
                "gpus": r.gpus,
                "layout": r.layout.model_dump(mode="json"),
                "layout_source": r.layout_source,
                "fits": self.fits,
                "region": r.grid.name,
            }
        )
        return data

    def report_mode_note(self) -> str | None:
        """In report mode, one line when the published GPU-hours and this plan's prediction of
        the same run are more than ``Assumptions.report_mode_factor`` apart; else None."""
        if self.run.gpu_hours is None or not self.fits:
            return None
        return report_mode_disagreement(self.run, self._values())

    def _warn_if_report_disagrees(self) -> None:
        note = self.report_mode_note()
        if note is not None:
            warnings.warn(note, ReportModeWarning, stacklevel=3)

    def _warn_if_far_from_optimal(self) -> None:
        if self.run.config.finetune.adapters:  # Hoffmann et al.'s law is about pre-training
            return
        ratio = float(self._values()["n_over_n_opt"])
        factor = self.assumptions.far_from_optimal_factor
        if ratio > factor or ratio < 1 / factor:
            warnings.warn(
                f"{self.run.model.name} with {self.run.tokens:.3g} tokens is {ratio:.2g}x the "
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

    # ----- sweeps and inverse questions -----------------------------------------------------
    def sweep(self, **axes: Iterable[Any]) -> pd.DataFrame:
        """Every combination of the given axes, one row each, evaluated vectorized
        (:mod:`mlcost.plan.sweep`: :data:`STRUCTURAL_AXES` once per combination,
        :data:`NUMERIC_AXES` as arrays). Rows that cannot run or do not fit say why in
        ``problem`` and carry no time, energy, cost or CO2e."""
        return sweep(self, self.run, axes)

    def best_model_for(
        self,
        *,
        usd: pint.Quantity | float | None = None,
        days: pint.Quantity | float | None = None,
        tco2e: pint.Quantity | float | None = None,
        fit: scaling.LossFit = scaling.HOFFMANN,
    ) -> Figures:
        """The compute-optimal ``(N, D)`` this plan's system can afford under a budget in USD,
        days or tCO2e (:func:`mlcost.scaling.budget_flops` with this plan's MFU, price, power and
        grid), and the loss the fit predicts for it. Assumes the candidate model keeps this
        plan's MFU."""
        self.require_fit()
        v = self._values(money=True)
        per_gpu_rate = Q_(float(v["mfu"]) * self.run.peak, "flop/s")
        carbon_per_hour = Q_(v["operational_t"] / max(v["gpu_hours"], 1e-300), "tCO2e/hour")

        def given(value: Any, unit: str) -> pint.Quantity | None:
            return None if value is None else Q_(magnitude_in(value, unit, unit, bare=True), unit)

        flops = scaling.budget_flops(
            per_gpu_rate,
            self.run.gpus,
            usd=given(usd, "USD"),
            days=given(days, "day"),
            tco2e=given(tco2e, "tCO2e"),
            price_per_gpu_hour=Q_(v["price"], "USD/hour"),
            carbon_per_gpu_hour=carbon_per_hour,
        )
        n, d = fit.compute_optimal(in_unit(flops, "flop"))
        source = f"{fit.source}; MFU and prices of this plan"
        return Figures(
            f"the compute-optimal model for the budget: {self.description}",
            (
                Figure("FLOPs", flops, "the tightest budget x achieved FLOP/s", "", source),
                Figure("parameters", Q_(float(n), "param"), "N_opt(C)", "", fit.source),
                Figure("tokens", Q_(float(d), "token"), "D_opt(C)", "", fit.source),
                Figure("loss", float(fit.loss(n, d)), "E + A/N^alpha + B/D^beta", "", fit.source),
            ),
        )


def __getattr__(name: str) -> Any:
    if name == "Suggestion":  # defined with the fit search, imported on first use (PEP 562)
        from mlcost.plan.fit import Suggestion

        return Suggestion
    raise AttributeError(f"module 'mlcost.plan' has no attribute {name!r}")


__all__ = [
    "NUMERIC_AXES",
    "STRUCTURAL_AXES",
    "ComputeOptimalWarning",
    "DoesNotFitError",
    "Plan",
    "PlanStep",
    "ReportModeWarning",
    "Suggestion",
]
