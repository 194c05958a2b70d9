"""The Megatron-Core H100 rows (issue 61) under three readings of what the model charges beside
the layers: each published step over the model's layers (micro-batches of compute, the optimizer,
the exposed tensor-parallel and pipeline sends; uncorrected), with

* the bubble and data-parallel exposure as modelled (1F1B, gradients reduced during the last
  micro-batch's backward);
* the data-parallel traffic hidden, the 1F1B bubble kept;
* the data-parallel traffic hidden, the bubble divided by 4 (interleaved schedule, v = 4).

A reading under which every row sits at one ratio is one per-layer factor away from all of them;
docs/validation.md says why the data-parallel one is not adopted. The measured step is the
uncorrected prediction's step times ``1 + `` the row's uncorrected throughput error.

Run: ``.venv/bin/python benchmarks/megatron_readings.py`` (a few seconds).
"""

from __future__ import annotations

from mlcost.parallel.traffic import (
    DATA_PARALLEL,
    ZERO3_GRADIENTS,
    ZERO3_PARAMETERS,
    ZERO_GRADIENTS,
    ZERO_PARAMETERS,
)
from mlcost.published import predict_case, published_cases, training_runs
from mlcost.units import in_unit

#: The communication terms the data-parallel readings hide.
HIDDEN = {
    t.strategy
    for t in (DATA_PARALLEL, ZERO_GRADIENTS, ZERO_PARAMETERS, ZERO3_GRADIENTS, ZERO3_PARAMETERS)
}


def main() -> None:
    errors = {
        p.id: p.uncorrected_speed_error
        for case in published_cases()
        if case["id"].startswith("run.megatron_h100.")
        for p in predict_case(case)
    }
    print(f"{'row':44s} {'layers s':>9s} {'bubble s':>9s} {'DP exp. s':>9s} {'measured s':>10s}"
          f"  {'modelled':>8s} {'DP hidden':>9s} {'+ v = 4':>8s}")  # fmt: skip
    for run in training_runs():
        error = errors.get(run.id)
        if error is None:
            continue
        step = run.step()
        bubble = in_unit(step.bubble, "s")
        exposed = {t.strategy: in_unit(t.exposed, "s") for t in step.communication}
        data = sum(v for k, v in exposed.items() if k in HIDDEN)
        layers = in_unit(step.compute, "s") + sum(exposed.values()) - data
        total = in_unit(step.uncorrected_total, "s")
        measured = total * (1 + error)
        print(f"{run.id:44s} {layers:9.3f} {bubble:9.3f} {data:9.3f} {measured:10.3f}  "
              f"{measured / total:8.2f} {measured / (layers + bubble):9.2f} "
              f"{measured / (layers + bubble / 4):8.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
