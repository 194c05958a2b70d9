"""Issue 63, the SLO search's speed: the forwards of an iteration, and the decode steps of the
engines a search tries on one GPU and layout, are the sequences of one operator table placed on
the roofline once (:meth:`mlcost.ServePlan.timing`). The operator rows work element by element,
so each forward must take exactly the seconds of its own table: checked here against the tables
built one forward at a time (:func:`prefill_operators`, :func:`decode_operators`), and the
search against the same search one engine at a time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import mlcost
from mlcost.serving.latency import forward_seconds, serving_ceilings, tensor_parallel_seconds
from mlcost.serving.slo import Candidate, search_slo
from mlcost.serving.workload import decode_operators, prefill_operators

CASES = [
    {"model": "llama-3-8b", "gpu": "h100-sxm5-80gb", "engine": "vllm"},
    {"model": "llama-3-70b", "system": "dgx-h100", "tp": 4, "weights": "fp8",
     "kv_format": "fp8", "engine": "tensorrt-llm"},
    {"model": "mixtral-8x7b", "system": "dgx-h100", "tp": 2, "engine": "sglang"},
    {"model": "llama-3-70b", "system": "dgx-h100", "tp": 4, "pp": 2, "engine": "vllm"},
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['model']}-{c['engine']}")
def test_each_forward_takes_the_seconds_of_its_own_table(case: dict[str, Any]) -> None:
    args = dict(case)
    model_name = args.pop("model")
    plan = mlcost.ServePlan(model_name, prompt=1024, output=256, calibrated=False, **args)
    batches = np.array([1.0, 7.0, 64.0])
    timing = plan.timing(batches)
    model, engine, system = plan.transformer, plan.resolved_engine, plan.resolved_system
    weights, kv = args.get("weights", "bf16"), args.get("kv_format", "bf16")
    tp, pp = args.get("tp", 1), args.get("pp", 1)
    ceilings = serving_ceilings(plan.accelerator, weights, kv)
    options = {
        "weights": weights, "kv_format": kv, "tensor_parallel": tp,
        "grouped_kv_reads": engine.gqa_aware_attention,
        "fp8_attention": engine.fp8_attention and kv == "fp8",
    }  # fmt: skip
    layers, h = model.num_layers, model.hidden_size

    def alone(table: Any, graph: bool, tokens: Any) -> Any:
        seconds = forward_seconds(table, ceilings, engine, layers=layers, graph=graph)
        return np.asarray(seconds) + tensor_parallel_seconds(system, tp, h, layers, tokens)

    # engines batch admitted prompts into forwards of prefill_tokens (8192): 8 prompts of 1024
    assert engine.prefill_tokens == 8192
    prefill = alone(prefill_operators(model, 1, 1024.0, **options), False, 1024.0)
    shared = alone(prefill_operators(model, 8, 1024.0, **options), False, 8 * 1024.0)
    context = 1024 + 256 / 2  # mean context of a generated token: P + O/2 for one request mix
    micro = batches / pp
    step = alone(decode_operators(model, micro, context, **options), engine.decode_graphs, micro)
    # the prefill with the engine's step cost, and through pp - 1 stage hops
    hops = (pp - 1) * np.asarray(plan.stage_hop_seconds(1024.0))
    assert timing["prefill"] == pytest.approx(prefill + engine.step_seconds + hops, rel=1e-12)
    # a pipeline's largest stage sets its pace (1 for even stages: 80 layers over 2)
    assert np.allclose(timing["per_prompt_token"], shared / (8 * 1024), rtol=1e-12)
    if pp == 1:
        assert np.allclose(timing["step"], step + engine.step_seconds, rtol=1e-12)
    else:
        hop = pp * np.asarray(plan.stage_hop_seconds(micro))
        assert np.allclose(timing["step"], step + engine.step_seconds + hop, rtol=1e-12)


def test_decode_steps_evaluated_alongside_others_are_their_own() -> None:
    plan = mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", tp=2, system="dgx-h100")
    batches = np.array([1.0, 3.0, 48.0, 300.0])
    own = plan.timing(batches)
    shared = plan.timing(batches, alongside=np.array([2.5, 48.0, 1000.0, 0.5]))
    assert own.keys() == shared.keys()
    for key in own:
        assert np.allclose(own[key], shared[key], rtol=1e-12), key


def test_engines_searched_together_find_what_each_finds_alone() -> None:
    # The engines of a layout evaluate their decode steps in one table: every configuration
    # must come out as when each engine is searched on its own.
    args: dict[str, Any] = {"ttft": "500 ms", "tpot": "50 ms",
                            "gpus": ["h100-sxm5-80gb", "mi300x-192gb"]}  # fmt: skip
    engines = ("vllm", "tensorrt-llm", "sglang")
    together = search_slo("llama-3-8b", engines=engines, **args)
    apart = [c for e in engines for c in search_slo("llama-3-8b", engines=(e,), **args).candidates]

    def key(c: Candidate) -> tuple[Any, ...]:
        return (c.gpu, c.tp, c.pp, c.weights, c.kv_format, c.engine, c.disaggregated)

    assert sorted(map(key, together.candidates)) == sorted(map(key, apart))
    alone = {key(c): c for c in apart}
    for c in together.candidates:
        other = alone[key(c)]
        assert (c.batch, c.problem, c.limit) == (other.batch, other.problem, other.limit)
        for field in ("ttft_ms", "tpot_ms", "usd_per_m_output"):
            mine, theirs = getattr(c, field), getattr(other, field)
            assert mine == pytest.approx(theirs, rel=1e-12, nan_ok=True), (key(c), field)
