"""When a run does not fit: the nearest layouts and settings that do.

Candidates, each checked with :func:`mlcost.memory.memory_breakdown` before it is offered: the
fastest layouts that fit on the same GPUs for the same global batch (:func:`mlcost.parallel.
search`), the same layout with ZeRO-3, with full recomputation, with a micro-batch of 1 (more
micro-batches, the same global batch), with the optimizer states offloaded to the host, and the
fewest GPUs on which the layout fits with ZeRO-3 (:func:`mlcost.memory.min_gpus`).

:func:`finetuning_fit` asks the other question of a fine-tuning run: which of full fine-tuning,
LoRA and QLoRA fits on a GPU, and at which micro-batch and sequence length.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pint

from mlcost.checks import argument
from mlcost.errors import MlcostError
from mlcost.finetune import METHODS, FineTuning, trainable_parameters
from mlcost.layout import Layout
from mlcost.memory import (
    Profile,
    max_micro_batch_size,
    max_sequence_length,
    memory_breakdown,
    min_gpus,
)
from mlcost.parallel.search import search
from mlcost.plan.resolve import Run, describe_layout_options
from mlcost.records import Record
from mlcost.results import Figure, Result
from mlcost.specs import Accelerator, ModelSpec, TransformerSpec
from mlcost.specs.catalog import as_accelerator, as_model
from mlcost.units import Q_, in_unit
from mlcost.workload import TrainingConfig

if TYPE_CHECKING:
    import pandas as pd


class Suggestion(Record, frozen=True):
    """A layout (and GPU count) on which the run fits, what changed, and its memory per GPU."""

    change: str
    layout: Layout
    gpus: int
    memory: pint.Quantity

    def options(self) -> str:
        """As ``mlcost plan`` options."""
        return f"--gpus {self.gpus} {describe_layout_options(self.layout)}"

    def text(self) -> str:
        return f"{self.change}: {self.options()} ({self.memory.to('GiB').magnitude:.1f} GiB)"


def _candidates(run: Run) -> list[tuple[str, Layout, int]]:
    layout, gpus = run.layout, run.gpus
    out: list[tuple[str, Layout, int]] = []
    model = run.model
    if gpus > 1 and isinstance(model, TransformerSpec):
        try:
            # The plan's own search where it searched the layout: the same question (its model,
            # system, GPUs, configuration, implementation and the layout's batch).
            found = run.search
            if found is None:
                found = search(
                    model,
                    run.system,
                    layout.global_batch,
                    config=run.config,
                    gpus=gpus,
                    top=2,
                    implementation=run.software,
                )
            out += [
                (f"layout {i + 1} of the search", lay, gpus)
                for i, lay in enumerate(found.layouts(2))
            ]
        except MlcostError:
            pass
    if layout.zero_stage < 3 and layout.dp * layout.cp > 1:
        out.append(("ZeRO-3", layout.model_copy(update={"zero_stage": 3}), gpus))
    if layout.recompute != "full":
        out.append(
            (
                "full recomputation",
                layout.model_copy(update={"recompute": "full", "recompute_every": None}),
                gpus,
            )
        )
    if layout.micro_batch_size > 1:
        smaller = layout.model_copy(
            update={
                "micro_batch_size": 1,
                "gradient_accumulation": layout.micro_batches * layout.micro_batch_size,
                "global_batch_size": None,
            }
        )
        out.append(("micro-batch 1", smaller, gpus))
    if not layout.offload:
        out.append(
            ("optimizer states offloaded", layout.model_copy(update={"offload": True}), gpus)
        )
    if isinstance(model, TransformerSpec):
        sharded = layout.model_copy(update={"zero_stage": 3, "dp": 1, "global_batch_size": None})
        fewest = min_gpus(model, run.config, run.system.accelerator, sharded)
        if fewest > gpus:
            more = sharded.model_copy(update={"dp": fewest // sharded.model_parallel})
            out.append((f"{fewest} GPUs with ZeRO-3", more, fewest))
    return out


def suggestions(run: Run, limit: int = 4) -> list[Suggestion]:
    """Up to ``limit`` changes on which the run fits (module docstring), nearest first."""
    found: list[Suggestion] = []
    seen: set[str] = set()
    for change, layout, gpus in _candidates(run):
        key = f"{gpus} {layout.describe()}"
        if key in seen:
            continue
        seen.add(key)
        try:
            memory = memory_breakdown(
                run.model, run.config, run.system.accelerator, layout, implementation=run.software
            )
        except MlcostError:
            continue
        if bool(memory.fits()):
            found.append(Suggestion(change, layout, gpus, memory.total))
        if len(found) >= limit:
            break
    return found


# ----- which fine-tuning method fits ------------------------------------------------------------
class MethodFit(Record, frozen=True):
    """One fine-tuning method on one GPU: its trainable parameters, its memory per GPU at the
    asked micro-batch and sequence, and the largest micro-batch and longest sequence that fit."""

    method: str
    tuning: FineTuning
    trainable_parameters: int
    memory: pint.Quantity
    fits: bool
    max_micro_batch_size: int
    max_sequence_length: int


class FineTuningFit(Record, Result, frozen=True):
    """Which of full fine-tuning, LoRA and QLoRA fits a model on a GPU, and at which batch and
    sequence (:func:`finetuning_fit`)."""

    model: str
    gpu: str
    capacity: pint.Quantity
    micro_batch_size: int
    sequence_length: int
    methods: tuple[MethodFit, ...]

    def title(self) -> str:
        return (
            f"fine-tuning {self.model} on {self.gpu} ({self.capacity.to('GiB').magnitude:.1f} "
            f"GiB): b={self.micro_batch_size}, s={self.sequence_length}"
        )

    def figures(self) -> list[Figure]:
        source = "mlcost.memory.memory_breakdown per method (mlcost.finetune)"
        out = []
        for row in self.methods:
            name = row.tuning.describe()
            out += [
                Figure(f"{name}: trainable parameters", Q_(row.trainable_parameters, "param"),
                       "mlcost.finetune.trainable_parameters", "", source),
                Figure(f"{name}: memory per GPU", row.memory.to("GiB"),
                       "sum of the memory terms", "", source),
                Figure(f"{name}: largest micro-batch", row.max_micro_batch_size,
                       f"at s={self.sequence_length}", "", source),
                Figure(f"{name}: longest sequence", row.max_sequence_length,
                       f"at b={self.micro_batch_size}", "", source),
            ]  # fmt: skip
        return out

    def to_frame(self) -> pd.DataFrame:
        """One row per method: trainable parameters, GiB per GPU, fits, largest micro-batch
        and longest sequence that fit."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "method": row.tuning.describe(),
                    "trainable parameters": row.trainable_parameters,
                    "GiB per GPU": in_unit(row.memory, "GiB"),
                    "fits": row.fits,
                    f"largest micro-batch (s={self.sequence_length})": row.max_micro_batch_size,
                    f"longest sequence (b={self.micro_batch_size})": row.max_sequence_length,
                }
                for row in self.methods
            ]
        )


def _method_tuning(method: str, given: FineTuning) -> FineTuning:
    """``given`` when it is of ``method``; else the method with ``given``'s LoRA settings
    (rank, alpha, dropout, targets, bias) where it has adapters, else the defaults."""
    if given.method == method:
        return given
    if method == "full":
        return FineTuning()
    if given.adapters:
        return given.model_copy(update={"method": method, "paged_optimizer": None})
    return FineTuning(method=method)


def finetuning_fit(
    model: ModelSpec | str,
    gpu: Accelerator | str,
    config: TrainingConfig | None = None,
    layout: Layout | None = None,
    *,
    methods: tuple[str, ...] = METHODS,
    profile: Profile = "pytorch",
) -> FineTuningFit:
    """Which of ``methods`` (full, LoRA, QLoRA) fits ``model`` on ``gpu`` under ``layout``:
    per method the memory per GPU at the layout's micro-batch and the config's sequence, the
    largest micro-batch and the longest sequence that fit (:mod:`mlcost.memory.solve`). The
    LoRA settings (rank, targets...) come from ``config.finetune`` when it has adapters; the
    precision, optimizer and recomputation are the config's and layout's for every method.

    >>> import mlcost
    >>> fit = finetuning_fit("llama-3-8b", "a100-sxm4-40gb")  # doctest: +SKIP
    >>> fit.to_frame()  # doctest: +SKIP
    """
    spec, accelerator = as_model(model), as_accelerator(gpu)
    config = TrainingConfig() if config is None else argument(config, TrainingConfig, "config")
    layout = Layout() if layout is None else argument(layout, Layout, "layout")
    rows = []
    for method in methods:
        tuning = _method_tuning(method, config.finetune)
        tuned = config.model_copy(update={"finetune": tuning})
        memory = memory_breakdown(spec, tuned, accelerator, layout, profile=profile)
        rows.append(
            MethodFit(
                method=method,
                tuning=tuning,
                trainable_parameters=trainable_parameters(spec, tuning)
                if isinstance(spec, TransformerSpec)
                else spec.parameter_count,
                memory=memory.total,
                fits=bool(memory.fits()),
                max_micro_batch_size=max_micro_batch_size(
                    spec, tuned, accelerator, layout, profile=profile
                ),
                max_sequence_length=max_sequence_length(
                    spec, tuned, accelerator, layout, profile=profile
                ),
            )
        )
    return FineTuningFit(
        model=spec.name,
        gpu=accelerator.name,
        capacity=accelerator.memory_available,
        micro_batch_size=layout.micro_batch_size,
        sequence_length=config.sequence_length,
        methods=tuple(rows),
    )
