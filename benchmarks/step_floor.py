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
* the step's GEMMs evaluated at their shapes in one call
  (:func:`mlcost.operator_time.gemm_compute_by_shard`: size, wave and depth efficiencies; for
  one configuration row by row on Python numbers, :meth:`mlcost.roofline.Ceilings.
  gemm_row_seconds`), with the arguments the step itself passes (captured from one
  ``step_time`` call: the fused Q/K/V and gate/up projections as one GEMM each, the attention
  core left to the measured kernel);
* the whole step (``step_time``, as ``peers.py`` times it).

The first two over the peer's call are what today's table and GEMM evaluation already take of
the 1x target: the other rows, the fused attention kernel, the launches and the result must fit
in the target minus that sum (the floor the row-by-row model sets until these two parts change).

It then times what a step evaluated on columns (one array per field over the rows, no record per
row) could not avoid either, with the same arguments:

* the same GEMMs' size, wave and depth efficiencies as the array calls alone
  (:meth:`mlcost.roofline.Ceilings.gemm_wave_efficiency`, ``gemm_depth_efficiency``,
  ``gemm_pass_efficiencies``) on arrays already built, checked equal to the step's own
  (where they take longer than the step's own row-by-row evaluation, columns would not help
  the GEMMs of one configuration);
* the measured attention kernel's time (:func:`mlcost.implementation.attention_kernel_seconds`,
  the arguments its own call passes).

Their sum over the peer is the part of the 1x target those evaluations would take in such a
design; the rest of it (building the columns from the model, the roofline of every row, the
result) is array arithmetic over a few dozen rows.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from peers import _median_us, configuration, interleaved, paired_ratio, setup


def gemm_arrays(arguments: tuple[Any, ...], own: list[list[float]]) -> Callable[[], Any]:
    """The GEMM seconds of one ``gemm_compute_by_shard`` call (whole GEMMs, numbers only) as the
    three efficiency array calls alone, their arrays built before: what a step evaluated on
    columns computes for its GEMMs. Checked equal, to the bit, to the call's own result, ``own``."""
    ops, ceilings, grouped, shards = arguments
    if any(grouped) or list(shards) != [(1, 1)]:
        raise SystemExit("expected the whole, ungrouped GEMMs of a one-GPU step")
    m, n, k, flops = (
        np.array([float(getattr(op, f)) for op in ops]) for f in ("m", "n", "k", "forward_flops")
    )
    batch = np.array([float(op.gemm_batch) or 1.0 for op in ops])
    values = np.array(
        [
            [float(op.forward_flops + op.recompute_flops) for op in ops],
            [float(op.backward_input_flops) for op in ops],
            [float(op.backward_weight_flops) for op in ops],
        ]
    )
    attention = np.array([op.kind == "attention" for op in ops])
    aligned = np.where(~attention, ceilings.gemm_alignment_efficiency(n, k), 1.0)

    def seconds() -> Any:
        waves = ceilings.gemm_wave_efficiency(np.stack((m, m, k)), np.stack((n, k, n)), batch)
        depths = ceilings.gemm_depth_efficiency(np.stack((k, n, m)))
        layouts = ceilings.gemm_pass_efficiencies(flops, attention) * aligned
        timed = values / (ceilings.peak_flops * layouts * (waves * depths))
        return np.where(values != 0, timed, 0.0).sum(axis=0)

    if not np.array_equal(seconds(), own[0]):
        raise SystemExit("the GEMM arrays do not give the step's own GEMM seconds")
    return seconds


def main() -> None:
    found = setup(__doc__.splitlines()[0])
    if found is None:
        return
    repeats, peer = found

    import mlcost.operator_time
    from mlcost import Layout
    from mlcost.implementation import attention_kernel_seconds
    from mlcost.timing import step_time
    from mlcost.workload import operators

    model, gpu, config = configuration()
    module = mlcost.operator_time
    evaluate = module.gemm_compute_by_shard
    kernel = attention_kernel_seconds
    captured: list[tuple[Any, ...]] = []
    kernel_calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def capture(*arguments: Any) -> Any:
        captured.append(arguments)
        return evaluate(*arguments)

    def capture_kernel(*arguments: Any, **keywords: Any) -> Any:
        kernel_calls.append((arguments, keywords))
        return kernel(*arguments, **keywords)

    setattr(module, "gemm_compute_by_shard", capture)  # noqa: B010 - one call's arguments
    setattr(module, "attention_kernel_seconds", capture_kernel)  # noqa: B010 - likewise
    try:
        step_time(model, config, gpu, Layout(micro_batch_size=1))
    finally:
        setattr(module, "gemm_compute_by_shard", evaluate)  # noqa: B010 - restored
        setattr(module, "attention_kernel_seconds", kernel)  # noqa: B010 - restored
    if len(captured) != 1 or len(kernel_calls) != 1:
        raise SystemExit(
            f"expected one GEMM evaluation and one attention kernel per step, the step made "
            f"{len(captured)} and {len(kernel_calls)}"
        )
    (arguments,) = captured
    ((kernel_arguments, kernel_keywords),) = kernel_calls
    gemms = f"its {len(arguments[0])} GEMMs' efficiencies"
    parts: dict[str, Callable[[], Any]] = {
        "operator table": lambda: operators(model, config, Layout(micro_batch_size=1)),
        gemms: lambda: evaluate(*arguments),
        "whole one-GPU step": lambda: step_time(model, config, gpu, Layout(micro_batch_size=1)),
        "GEMM efficiencies, arrays alone": gemm_arrays(arguments, evaluate(*arguments)),
        "attention kernel": lambda: kernel(*kernel_arguments, **kernel_keywords),
    }

    ours, paired = interleaved(parts, peer, repeats)
    peer_us = _median_us([sample for samples in paired.values() for sample in samples])
    print(
        f"Llama-2-7B, seq 4096, one H100, micro-batch 1; {repeats} interleaved repeats, "
        f"medians; llm-analysis train() {peer_us:,.0f} us"
    )
    print(f"{'part':34s} {'mlcost':>10s} {'paired / peer [95% CI]':>24s}")
    ratios: dict[str, float] = {}
    for name, samples in ours.items():
        ratio, low, high = paired_ratio(samples, paired[name])
        ratios[name] = ratio
        print(f"{name:34s} {_median_us(samples):7,.0f} us {ratio:9.2f}x [{low:.2f}, {high:.2f}]")
    floor = ratios["operator table"] + ratios[gemms]
    print(
        f"floor (table + GEMM efficiencies): {floor:.2f}x of the peer's call; left at the 1x "
        f"target for every other part of the step: {max(1.0 - floor, 0.0):.2f}x"
    )
    columns = ratios["GEMM efficiencies, arrays alone"] + ratios["attention kernel"]
    print(
        f"on columns (GEMM arrays + attention kernel): {columns:.2f}x of the peer's call; left "
        f"at the 1x target for building the columns, every row's roofline and the result: "
        f"{max(1.0 - columns, 0.0):.2f}x"
    )


if __name__ == "__main__":
    main()
