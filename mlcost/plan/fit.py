"""When a run does not fit: the nearest layouts and settings that do.

Candidates, each checked with :func:`mlcost.memory.memory_breakdown` before it is offered: the
fastest layouts that fit on the same GPUs for the same global batch (:func:`mlcost.parallel.
search`), the same layout with ZeRO-3, with full recomputation, with a micro-batch of 1 (more
micro-batches, the same global batch), with the optimizer states offloaded to the host, and the
fewest GPUs on which the layout fits with ZeRO-3 (:func:`mlcost.memory.min_gpus`).
"""

from __future__ import annotations

from dataclasses import dataclass

import pint

from mlcost.errors import MlcostError
from mlcost.layout import Layout
from mlcost.memory import memory_breakdown, min_gpus
from mlcost.parallel.search import search
from mlcost.plan.resolve import Run, describe_layout_options
from mlcost.specs import TransformerSpec


@dataclass(frozen=True)
class Suggestion:
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
                for i, lay in enumerate(found.layouts())
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
            memory = memory_breakdown(run.model, run.config, run.system.accelerator, layout)
        except MlcostError:
            continue
        if bool(memory.fits()):
            found.append(Suggestion(change, layout, gpus, memory.total))
        if len(found) >= limit:
            break
    return found
