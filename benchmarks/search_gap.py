"""How far the layout search moves the Megatron-Core H100 rows of the validation set (issue 61):
per row, the family's configuration (``mlcost.published.megatron_step``: micro-batch 1, no
interleaving, TP overlap where TP > 1, as the README states --tp-comm-overlap) against the
layouts the search finds when it may choose what the README does not publish (micro-batch and
interleaving) at the published TP, PP, DP and batch: the fastest; the one of the layouts within
the step-time band's resolution with the fewest model-parallel dimensions, then Megatron's
defaults, when the search chooses those knobs too (``Assumptions.search_layout_knobs=True``);
and the one a plan runs by default, with the unpublished knobs held at the implementation's
defaults (:func:`mlcost.parallel.search.unstated_knobs`, then
:meth:`mlcost.parallel.search.SearchResult.simplest_of_ties`). Errors against the measurement,
in points of TFLOP/s per GPU.

Run: ``.venv/bin/python benchmarks/search_gap.py`` (about a minute).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mlcost.parallel.search import SearchSpace, search, unstated_knobs
from mlcost.published import megatron_flops, megatron_gpt, megatron_step, published_cases
from mlcost.uncertainty import step_time_band
from mlcost.workload import TrainingConfig


def row_gaps(case: dict[str, Any], tolerance: float) -> tuple[float, list[float], dict[str, Any]]:
    """The family configuration's error; the fastest searched layout's, the ties-only choice's
    and the plan's (as fractions); and the plan's layout knobs."""
    c = case["conditions"]
    gpt = (c["hidden"], c["layers"], c["heads"], c["vocab"], c["seq"])
    _, _, rate = megatron_step(gpt, c["global_batch"], c["gpus"], c["TP"], c["PP"])
    space = SearchSpace(
        tensor_parallel=(c["TP"],), pipeline_parallel=(c["PP"],), context_parallel=(1,),
        zero_stages=(1,), recompute=("none",), sequence_parallel=(c["TP"] > 1,),
        virtual_stages=(1, 2, 3, 4) if c["PP"] > 1 else (1,), tp_overlap=(c["TP"] > 1,),
    )  # fmt: skip
    result = search(
        megatron_gpt(*gpt), "dgx-h100", c["global_batch"], gpus=c["gpus"], space=space,
        config=TrainingConfig(sequence_length=c["seq"]), implementation="megatron-core",
    )  # fmt: skip
    flops = megatron_flops(c["global_batch"], c["seq"], c["layers"], c["hidden"], c["vocab"])
    frame = result.frame

    def error(index: int) -> float:
        achieved = flops / float(frame["step_s"].iloc[index]) / c["gpus"] / 1e12
        return achieved / float(case["value"]) - 1

    ties = result.simplest_of_ties(tolerance)
    plan = result.simplest_of_ties(tolerance, unstated_knobs("megatron-core"))
    knobs = {k: frame[k].iloc[plan].item() for k in ("micro_batch", "v", "tp_overlap")}
    family = rate / 1e12 / float(case["value"]) - 1
    return family, [error(0), error(ties), error(plan)], knobs


def main() -> None:
    tolerance = step_time_band().resolution
    print(f"ties: layouts within {tolerance:.1%} of the fastest (the band's resolution)\n")
    print(
        f"{'row':28s} {'family':>8s} {'fastest':>8s} {'ties':>8s} {'plan':>8s} {'gap':>6s}  "
        "plan's layout"
    )
    gaps: list[list[float]] = [[], [], []]
    for case in published_cases():
        if not case["id"].startswith("run.megatron_h100.") or "strong" in case["id"]:
            continue
        family, errors, knobs = row_gaps(case, tolerance)
        for gap, value in zip(gaps, errors, strict=True):
            gap.append(100 * (value - family))
        shown = " ".join(f"{100 * e:+7.1f}%" for e in errors)
        print(f"{case['id']:28s} {100 * family:+7.1f}% {shown} {gaps[2][-1]:+6.1f}  {knobs}")
    for name, gap in zip(("fastest", "ties, knobs searched", "plan"), gaps, strict=True):
        print(
            f"gap against the family's configuration, {name}: median "
            f"{np.median(np.abs(gap)):.1f} points, max {max(np.abs(gap)):.1f}"
        )


if __name__ == "__main__":
    main()
