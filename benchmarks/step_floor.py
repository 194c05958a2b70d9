"""How much of issue 17's one-GPU step target the step's two largest parts already take.

Each part is timed alone against llm-analysis's one ``train()`` call, in one process,
interleaved: ``python benchmarks/step_floor.py [--repeats 30]``.

Issue 17 asks for the one-GPU step in at most the time of the peer's whole call. The step is
the operator table of one micro-batch (:func:`mlcost.workload.operators`: one record per
operator row, built from the model's blocks) and each row's time on the GPU's roofline
(:func:`mlcost.timing.step_time`). This script times, with the configuration and the pairing
discipline of ``benchmarks/peers.py`` (each call after an untimed call of itself, the pair's
order alternating, a bootstrap 95% interval of the median paired ratio):

* the operator table alone;
* the step's GEMMs evaluated at their shapes in one array call
  (:func:`mlcost.operator_time.gemm_compute_by_shard`: size, wave and depth efficiencies), with
  the arguments the step itself passes (captured from one ``step_time`` call: the fused Q/K/V
  and gate/up projections as one GEMM each, the attention core left to the measured kernel);
* the whole step (``step_time``, as ``peers.py`` times it).

The first two over the peer's call are what today's table and GEMM evaluation already take of
the 1x target: the other rows, the fused attention kernel, the launches and the result must fit
in the target minus that sum (the floor the row-by-row model sets until these two parts change).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from peers import _median_us, configuration, interleaved, paired_ratio, setup


def main() -> None:
    found = setup(__doc__.splitlines()[0])
    if found is None:
        return
    repeats, peer = found

    import mlcost.operator_time
    from mlcost import Layout
    from mlcost.timing import step_time
    from mlcost.workload import operators

    model, gpu, config = configuration()
    evaluate = mlcost.operator_time.gemm_compute_by_shard
    captured: list[tuple[Any, ...]] = []

    def capture(*arguments: Any) -> Any:
        captured.append(arguments)
        return evaluate(*arguments)

    module = mlcost.operator_time
    setattr(module, "gemm_compute_by_shard", capture)  # noqa: B010 - one call's arguments
    try:
        step_time(model, config, gpu, Layout(micro_batch_size=1))
    finally:
        setattr(module, "gemm_compute_by_shard", evaluate)  # noqa: B010 - restored
    if len(captured) != 1:
        raise SystemExit(f"expected one GEMM evaluation per step, the step made {len(captured)}")
    (arguments,) = captured
    parts: dict[str, Callable[[], Any]] = {
        "operator table": lambda: operators(model, config, Layout(micro_batch_size=1)),
        f"its {len(arguments[0])} GEMMs' efficiencies": lambda: evaluate(*arguments),
        "whole one-GPU step": lambda: step_time(model, config, gpu, Layout(micro_batch_size=1)),
    }

    ours, paired = interleaved(parts, peer, repeats)
    peer_us = _median_us([sample for samples in paired.values() for sample in samples])
    print(
        f"Llama-2-7B, seq 4096, one H100, micro-batch 1; {repeats} interleaved repeats, "
        f"medians; llm-analysis train() {peer_us:,.0f} us"
    )
    print(f"{'part':34s} {'mlcost':>10s} {'paired / peer [95% CI]':>24s}")
    floor = 0.0
    for name, samples in ours.items():
        ratio, low, high = paired_ratio(samples, paired[name])
        print(f"{name:34s} {_median_us(samples):7,.0f} us {ratio:9.2f}x [{low:.2f}, {high:.2f}]")
        if name != "whole one-GPU step":
            floor += ratio
    print(
        f"floor (table + GEMM efficiencies): {floor:.2f}x of the peer's call; left at the 1x "
        f"target for every other part of the step: {max(1.0 - floor, 0.0):.2f}x"
    )


if __name__ == "__main__":
    main()
