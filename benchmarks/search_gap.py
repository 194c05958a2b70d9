"""How far the layout search moves the Megatron-Core H100 rows of the validation set (issue 61):
per row, the family's configuration (``mlcost.published.megatron_step``: micro-batch 1, no
interleaving, TP overlap where TP > 1) against the layouts the search finds when it may choose
what the README does not publish (micro-batch, interleaving, TP overlap) at the published TP,
PP, DP and batch: the fastest, and the one a plan runs (of the layouts within the step-time
band's resolution, the fewest model-parallel dimensions, then Megatron's defaults:
:meth:`mlcost.parallel.search.SearchResult.simplest_of_ties`). Errors against the measurement,
in points of TFLOP/s per GPU.

Run: ``.venv/bin/python benchmarks/search_gap.py`` (about a minute).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mlcost.parallel.search import SearchSpace, search
from mlcost.published import megatron_flops, megatron_gpt, megatron_step, published_cases
from mlcost.uncertainty import step_time_band
from mlcost.workload import TrainingConfig


def row_gaps(case: dict[str, Any], tolerance: float) -> tuple[float, float, float, dict[str, Any]]:
    """The family configuration's error, the fastest searched layout's and the plan's (as
    fractions), and the plan's layout knobs."""
    c = case["conditions"]
    gpt = (c["hidden"], c["layers"], c["heads"], c["vocab"], c["seq"])
    _, _, rate = megatron_step(gpt, c["global_batch"], c["gpus"], c["TP"], c["PP"])
    space = SearchSpace(
        tensor_parallel=(c["TP"],), pipeline_parallel=(c["PP"],), context_parallel=(1,),
        zero_stages=(1,), recompute=("none",), sequence_parallel=(c["TP"] > 1,),
        virtual_stages=(1, 2, 3, 4) if c["PP"] > 1 else (1,),
        tp_overlap=(False, True) if c["TP"] > 1 else (False,),
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

    chosen = result.simplest_of_ties(tolerance)
    knobs = {k: frame[k].iloc[chosen].item() for k in ("micro_batch", "v", "tp_overlap")}
    return rate / 1e12 / float(case["value"]) - 1, error(0), error(chosen), knobs


def main() -> None:
    tolerance = step_time_band().resolution
    print(f"ties: layouts within {tolerance:.1%} of the fastest (the band's resolution)\n")
    print(f"{'row':28s} {'family':>8s} {'fastest':>8s} {'plan':>8s} {'gap':>6s}  plan's layout")
    fastest, chosen = [], []
    for case in published_cases():
        if not case["id"].startswith("run.megatron_h100.") or "strong" in case["id"]:
            continue
        family, best, plan, knobs = row_gaps(case, tolerance)
        fastest.append(100 * (best - family))
        chosen.append(100 * (plan - family))
        print(
            f"{case['id']:28s} {100 * family:+7.1f}% {100 * best:+7.1f}% {100 * plan:+7.1f}% "
            f"{chosen[-1]:+6.1f}  {knobs}"
        )
    print(
        f"\ngap against the family's configuration, points: fastest median "
        f"{np.median(fastest):.1f} (max {max(fastest):.1f}); plan median "
        f"{np.median(chosen):.1f} (max {max(chosen):.1f})"
    )


if __name__ == "__main__":
    main()
