"""The page's answers, from the public API only (:class:`mlcost.Plan`, :class:`mlcost.ServePlan`,
:func:`mlcost.finetuning_fit`), so the page shows exactly the numbers the API gives. Each
function takes a :class:`~mlcost.ui.state.UiState` and the resolved model (a catalog name or an
uploaded spec) and returns the API's own objects; :mod:`mlcost.ui.render` draws them."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import mlcost
from mlcost.ui.state import COMPARED_COUNTS, COMPARED_GPUS, UiState


def training_config(state: UiState) -> mlcost.TrainingConfig:
    """The :class:`mlcost.TrainingConfig` of the state (pre-training or a fine-tuning method)."""
    finetune = None
    if state.mode == "full":
        finetune = mlcost.FineTuning(method="full")
    elif state.mode in ("lora", "qlora"):
        finetune = mlcost.FineTuning(
            method=state.mode, rank=state.rank, target_modules=("all-linear",)
        )
    extra: dict[str, Any] = {} if finetune is None else {"finetune": finetune}
    return mlcost.TrainingConfig(
        sequence_length=state.seq,
        precision=state.precision,  # checked by UiState.check
        **extra,
    )


def layout(state: UiState) -> mlcost.Layout | None:
    """The layout set by hand, or ``None``: the plan searches for the fastest that fits."""
    if state.layout != "manual":
        return None
    return mlcost.Layout(
        dp=state.dp,
        tp=state.tp,
        pp=state.pp,
        micro_batch_size=state.mbs,
        zero_stage=state.zero,
        recompute=state.recompute,
        global_batch_size=state.gbs or None,
    )


def plan(state: UiState, model: Any, gpu: Any = None, gpus: int | None = None) -> mlcost.Plan:
    """The training plan of the state (``gpu``/``gpus`` override the state's: the comparison)."""
    given = layout(state)
    if given is not None and gpus is not None and gpus != state.gpus:
        given = None  # a hand-set layout is for its own GPU count; other counts search
    # a named system, unless the comparison asks for another GPU type
    system = state.system if state.system and gpu is None else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the compute-optimal note: shown as a figure instead
        return mlcost.Plan(
            model,
            gpu=None if system else gpu or state.gpu,
            system=system,
            gpus=gpus or (given.gpus if given is not None else state.gpus),
            tokens=state.tokens,
            config=training_config(state),
            layout=given,
            global_batch_size=state.gbs or None if given is None else None,
            implementation=state.impl,
            region=state.region,
            price=f"{state.price} USD/hour" if state.price else None,
        )


def serve_plan(state: UiState, model: Any, gpu: Any = None) -> mlcost.ServePlan:
    """The serving plan of the state."""
    system = state.system if state.system and gpu is None else None
    return mlcost.ServePlan(
        model,
        gpu=None if system else gpu or state.gpu,
        system=system,
        tp=state.tpsrv,
        prompt=state.prompt,
        output=state.output,
        batch=state.batch or None,
        engine=state.engine,
        weights=state.weights,
        ttft=f"{state.ttft} ms" if state.ttft else None,
        tpot=f"{state.tpot} ms" if state.tpot else None,
        region=state.region,
        price=f"{state.price} USD/hour" if state.price else None,
    )


def fit(state: UiState, model: Any, gpu: Any = None) -> Any:
    """Which of full fine-tuning, LoRA and QLoRA fit one ``gpu`` (:func:`mlcost.finetuning_fit`)."""
    return mlcost.finetuning_fit(model, gpu or state.gpu, training_config(state))


@dataclass(frozen=True)
class Row:
    """One configuration of the comparison: a plan's headline numbers, or why it has none."""

    gpu: str
    gpus: int
    fits: bool
    memory_gib: float
    capacity_gib: float
    hours: float | None = None  # wall clock
    usd: float | None = None
    problem: str = ""


def comparison(state: UiState, model: Any) -> list[Row]:
    """The state's training run on each compared GPU type and count (each one :class:`Plan`)."""
    gpus = list(dict.fromkeys([state.gpu, *COMPARED_GPUS]))
    counts = sorted({state.gpus, *COMPARED_COUNTS})
    rows = []
    for gpu in gpus:
        for count in counts:
            try:
                the_plan = plan(state, model, gpu=gpu, gpus=count)
                memory = the_plan.memory()
                capacity = memory.capacity.to("GiB").magnitude if memory.capacity else 0.0
                used = memory.total.to("GiB").magnitude
                if not the_plan.fits:
                    rows.append(Row(gpu, count, False, used, capacity))
                    continue
                wall = the_plan.train()["wall clock"].to("hour").magnitude
                usd = the_plan.cost()["rental cost"].to("USD").magnitude
                rows.append(Row(gpu, count, True, used, capacity, wall, usd))
            except mlcost.MlcostError as error:
                rows.append(Row(gpu, count, False, 0.0, 0.0, problem=str(error)))
    return rows


def pareto(rows: Sequence[Row]) -> list[Row]:
    """The rows no other row beats on both wall clock and cost (lower is better on each)."""
    priced = [r for r in rows if r.hours is not None and r.usd is not None]
    front = [
        r
        for r in priced
        if not any(
            (o.hours <= r.hours and o.usd <= r.usd) and (o.hours < r.hours or o.usd < r.usd)  # type: ignore[operator]
            for o in priced
        )
    ]
    return sorted(front, key=lambda r: r.hours or 0.0)


__all__ = ["Row", "comparison", "fit", "layout", "pareto", "plan", "serve_plan", "training_config"]
