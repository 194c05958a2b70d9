"""Issue 63, serving across nodes: pipeline stages and disaggregated prefill/decode, each figure
derived by hand, and the SLO search over them.

The links, by hand from the catalog specs: a DGX H100 joins its GPUs with NVLink 4 (450 GB/s a
direction, of which NCCL achieves 370, 3.4 us a hop) and its nodes with one 400 Gb/s NDR
InfiniBand NIC per GPU (50 GB/s, achievable 47/50 of it: 47 GB/s, 14 us a hop; NCCL's tuning
table, ``mlcost.systems``). A point-to-point transfer of S bytes takes ``alpha + S / beta``
(Hockney 1994).

Llama-3-70B by hand from its config (80 layers, hidden 8192, 64 heads, 8 KV heads of 128, FFN
28672, vocabulary 128256, untied): a layer holds 8192 x 8192 x 2 (q, o) + 8192 x 1024 x 2 (k, v)
+ 3 x 8192 x 28672 (gate, up, down) + 2 x 8192 (norms) = 855,654,400 parameters; the embedding
and the head 128256 x 8192 = 1,050,673,152 each, the final norm 8192: 70,553,706,496 in all
(Hugging Face reports 70.55B).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import mlcost
from mlcost.serving.latency import forward_seconds, serving_ceilings, tensor_parallel_seconds
from mlcost.serving.slo import search_slo
from mlcost.serving.workload import decode_operators
from tests.cli.conftest import invoke

LAYER = 8192 * 8192 * 2 + 8192 * 1024 * 2 + 3 * 8192 * 28672 + 2 * 8192
EMBEDDING = 128256 * 8192
IB_ALPHA, IB_BETA = 14e-6, 400e9 / 8 * 47 / 50
NVLINK_ALPHA, NVLINK_BETA = 3.4e-6, 370e9


def test_llama_3_70b_parameters_by_hand() -> None:
    assert LAYER == 855_654_400
    assert 80 * LAYER + 2 * EMBEDDING + 8192 == 70_553_706_496
    assert mlcost.model("llama-3-70b").parameter_count == 70_553_706_496


def two_nodes_plan(**args: object) -> mlcost.ServePlan:
    return mlcost.ServePlan(
        "llama-3-70b", system=mlcost.system("dgx-h100", nodes=2), prompt=1024, output=256,
        calibrated=False, **args,  # type: ignore[arg-type]
    )  # fmt: skip


def test_tp8_pp2_on_two_dgx_h100_by_hand() -> None:
    """Llama-3-70B BF16 on 2 nodes of 8 H100: tensor parallel 8 within each node, 2 pipeline
    stages across them, 64 sequences, prompts of 1024 and outputs of 256 tokens.

    A stage's weights on one GPU: 40 layers and (an upper bound) the embedding, head and final
    norm, in 2 bytes, split 8 ways: 2 x (40 x 855,654,400 + 2 x 1,050,673,152 + 8192) / 8 =
    9,081,882,624 bytes. Its KV cache per sequence of 1280 tokens: 40 layers x 2 (K and V) x
    8 / 8 KV heads x 128 x 2 bytes x 1280 = 26,214,400 bytes.

    A round: 2 micro-batches of m = 32; the whole model's decode step at 32 sequences with its
    all-reduces and the engine's step cost, the prefill of the 32 x 1024 / 256 = 128 prompt
    tokens replacing the finished sequences, and 2 stage-to-stage transfers of 32 x 8192 x 2
    bytes over InfiniBand: 14 us + 524,288 / 47e9 s = 25.16 us each. TPOT = round; 64 tokens
    a round; 16 GPUs; an output token costs 16 x round / 64 GPU-seconds, of which the prefill
    part, 16 x 128 x t_prefill per token / 64, is charged to the input tokens."""
    plan = two_nodes_plan(tp=8, pp=2, batch=64)
    assert plan.memory["weights"] == 2 * (40 * LAYER + 2 * EMBEDDING + 8192) / 8
    assert plan.memory["weights"] == 9_081_882_624
    assert plan.memory["sequence"] == 40 * 2 * 1 * 128 * 2 * 1280 == 26_214_400

    hop = IB_ALPHA + 32 * 8192 * 2 / IB_BETA
    assert float(plan.stage_hop_seconds(32)) == pytest.approx(hop, rel=1e-12)
    assert hop == pytest.approx(25.155e-6, rel=1e-4)

    t = plan.timing(64)
    engine, model = plan.resolved_engine, plan.transformer
    decode = forward_seconds(
        decode_operators(model, 32, t["context"], weights="bf16", tensor_parallel=8),
        serving_ceilings(plan.accelerator), engine, layers=80, graph=engine.decode_graphs,
    )  # fmt: skip
    all_reduce = tensor_parallel_seconds(plan.resolved_system, 8, 8192, 80, 32)
    per_token = float(t["per_prompt_token"])
    expected = float(decode) + float(all_reduce) + engine.step_seconds + 128 * per_token + 2 * hop
    row = plan.row()
    assert row["tpot_ms"] == pytest.approx(expected * 1e3, rel=1e-9)
    assert row["output_tokens_per_s"] == pytest.approx(64 / expected, rel=1e-9)
    assert row["gpus"] == 16

    price = 8.6  # USD per H100 SXM GPU-hour, the catalog's default offer
    assert plan._values["price"] == price
    output_s = 16 * (expected - 128 * per_token) / 64
    assert row["usd_per_m_output"] == pytest.approx(price * output_s * 1e6 / 3600, rel=1e-9)
    # Input and output together pay for the whole round: 16 x round / 64 per output token.
    whole = row["usd_per_m_output"] + 1024 / 256 * row["usd_per_m_input"]
    assert whole == pytest.approx(price * 16 * expected / 64 * 1e6 / 3600, rel=1e-9)
    assert row["usd_per_m_output"] > 0


def test_uneven_stages_wait_for_the_largest() -> None:
    """Llama-3-8B (32 layers) in 3 stages: 11 + 11 + 10 layers (vLLM splits them so); the
    largest stage sets the pace, so a round's decode and prefill work is 3 x 11 / 32 = 33/32 of
    the whole model's. One GPU a stage (no all-reduce), 48 sequences: m = 16."""
    plan = mlcost.ServePlan("llama-3-8b", system="dgx-h100", pp=3, batch=48, prompt=1024,
                            output=256, calibrated=False)  # fmt: skip
    even = mlcost.ServePlan("llama-3-8b", system="dgx-h100", pp=1, prompt=1024, output=256,
                            calibrated=False)  # fmt: skip
    t = plan.timing(48)
    engine = plan.resolved_engine
    decode = forward_seconds(
        decode_operators(plan.transformer, 16, t["context"], weights="bf16"),
        serving_ceilings(plan.accelerator), engine, layers=32, graph=engine.decode_graphs,
    )  # fmt: skip
    per_token = float(even.timing(16)["per_prompt_token"])
    hop = NVLINK_ALPHA + 16 * 4096 * 2 / NVLINK_BETA
    expected = (33 / 32 * float(decode) + engine.step_seconds + 16 * 1024 / 256 * 33 / 32
                * per_token + 3 * hop)  # fmt: skip
    assert float(t["tpot"]) == pytest.approx(expected, rel=1e-9)
    # The largest stage holds 11 layers' weights and KV cache.
    assert plan.memory["sequence"] == 11 * 2 * 8 * 128 * 2 * 1280


@pytest.mark.parametrize(
    ("system", "tp", "kv_bytes", "alpha", "beta"),
    [
        # Prefill and decode replicas on separate nodes: each of 8 ranks sends its share over
        # its InfiniBand NIC: 80 x 2 x 8 / 8 x 128 x 2 x 1024 = 41,943,040 bytes, 906.4 us.
        (("dgx-h100", 2), 8, 41_943_040, IB_ALPHA, IB_BETA),
        # Both on one node (tp 4 + 4): each rank's 2 KV heads over NVLink, 83,886,080 bytes.
        (("dgx-h100", 1), 4, 83_886_080, NVLINK_ALPHA, NVLINK_BETA),
    ],
    ids=("two-nodes", "one-node"),
)
def test_kv_transfer_bytes_and_time_by_hand(
    system: tuple[str, int], tp: int, kv_bytes: int, alpha: float, beta: float
) -> None:
    """KV bytes a rank sends per request = layers x 2 (K and V) x KV heads / tp x head size x
    bytes x prompt tokens (Llama-3-70B, BF16, 1024 tokens); the time alpha + S / beta. The
    first token waits for the prefill S, the transfer, half a decode step and the prefill
    pool's M/D/1 queue, its wait rho·S / (2(1 - rho)) filling what the 450 ms TTFT target
    leaves: rho = 2x / (1 + 2x), x = budget / S. The prefill pool's GPU-seconds per prompt
    token are divided by rho; TPOT is the decode step alone."""
    assert 80 * 2 * (8 // tp) * 128 * 2 * 1024 == kv_bytes
    name, nodes = system
    plan = mlcost.ServePlan("llama-3-70b", system=mlcost.system(name, nodes=nodes), tp=tp,
                            batch=32, prompt=1024, output=256, disaggregated=True)  # fmt: skip
    assert plan.kv_transfer_seconds == pytest.approx(alpha + kv_bytes / beta, rel=1e-12)
    t = plan.timing(32)
    s, step = float(t["prefill"]), float(t["step"])
    fixed = s + alpha + kv_bytes / beta + step / 2
    x = (0.450 - fixed) / s
    assert x > 0
    rho = 2 * x / (1 + 2 * x)
    assert float(t["prefill_pool_load"]) == pytest.approx(rho, rel=1e-6)
    assert float(t["ttft"]) == pytest.approx(fixed + rho * s / (2 * (1 - rho)), rel=1e-6)
    assert float(t["ttft"]) == pytest.approx(0.450, rel=1e-6)
    per_token = float(t["per_prompt_token"])
    assert float(t["gpu_s_per_output_token"]) == pytest.approx(
        tp * (step / (32 * float(t["tokens_per_step"])) + 1024 / 256 * per_token / rho),
        rel=1e-9,
    )
    assert float(t["tpot"]) == pytest.approx(step, rel=1e-12)
    if nodes == 2:
        assert plan.kv_transfer_seconds == pytest.approx(906.4e-6, rel=1e-4)


def test_disaggregated_timing_is_the_aggregated_parts_recombined() -> None:
    # The search times the disaggregated layout from the aggregated plan's parts; a plan built
    # disaggregated from the start gives the same numbers.
    batches = np.array([1.0, 8.0, 64.0])
    args = {"system": "dgx-h100", "tp": 2, "prompt": 1024, "output": 256}
    together = mlcost.ServePlan("llama-3-8b", **args)  # type: ignore[arg-type]
    apart = mlcost.ServePlan("llama-3-8b", disaggregated=True, **args)  # type: ignore[arg-type]
    derived = apart.disaggregated_timing(together.timing(batches), batches)
    direct = apart.timing(batches)
    for key in ("ttft", "tpot", "gpu_s_per_output_token", "output_rate"):
        assert np.allclose(derived[key], direct[key], rtol=1e-12), key


SEARCH = {"ttft": "500 ms", "tpot": "50 ms", "engines": ("vllm",)}


def test_405b_in_bf16_needs_two_nodes() -> None:
    """Llama-3.1-405B in BF16: 2 x 405.9e9 = 812 GB of weights against 8 x 80 GB = 640 GB on a
    DGX H100, so every configuration that meets the target spans 2 nodes (16 GPUs a replica:
    tp 16, or tp 8 x pp 2, or tp 4 x pp 4)."""
    # a TPOT of 80 ms: vLLM's BF16 405B over 16 H100s needs more than 60 ms less the band
    # (set when the band's upper end was x1.46, one band for AMD's uncorrected rows too)
    search = {**SEARCH, "tpot": "80 ms"}
    result = search_slo("llama-3.1-405b", gpus=["h100-sxm5-80gb"], weights=("bf16",),
                        kv_formats=("bf16",), **search)  # type: ignore[arg-type]  # fmt: skip
    assert 2 * 405e9 > 8 * 80e9
    assert result.feasible
    for c in result.feasible:
        assert c.tp * c.pp == 16 and c.nodes >= 2
    assert any(c.pp > 1 for c in result.feasible)
    one_node = [c for c in result.candidates if c.tp * c.pp <= 8 and not c.disaggregated]
    assert one_node and all(c.problem == "does not fit" for c in one_node)


@pytest.mark.parametrize("model", ["llama-3-70b", "llama-3.1-405b"])
def test_pruned_pipeline_layouts_never_win(model: str) -> None:
    """Pipeline layouts are tried only where fewer stages are stopped by memory (slo module
    docstring): the exhaustive search chooses the same configuration, and a pruned layout
    costs no less than the same GPUs, formats and degree with fewer stages at their own batch,
    within one step of the batch grid (under 6%) and the rounding of b / pp to whole sequences.
    The front may differ: a pruned pipeline
    point can sit on it at a latency no kept layout reaches at its cost."""
    args = {"gpus": ["h100-sxm5-80gb", "a100-sxm4-40gb"], **SEARCH}
    pruned = search_slo(model, **args)  # type: ignore[arg-type]
    every = search_slo(model, prune=False, **args)  # type: ignore[arg-type]
    assert pruned.pruned > 0 and len(every.candidates) > len(pruned.candidates)
    assert pruned.chosen is not None and every.chosen is not None
    assert pruned.chosen.label == every.chosen.label
    kept = {c.label for c in pruned.candidates}
    for c in every.feasible:
        if c.label in kept:
            continue
        fewer = [o for o in pruned.feasible if o.pp < c.pp and not o.disaggregated
                 and (o.gpu, o.tp, o.weights, o.kv_format, o.engine)
                 == (c.gpu, c.tp, c.weights, c.kv_format, c.engine)]  # fmt: skip
        assert fewer, c.label
        # The bound m = b / pp of the slo docstring takes whole micro-batches: an unstaged
        # replica runs floor(b / pp) sequences, so a pruned layout may undercut it by
        # (b / pp) / floor(b / pp) (13 over 4 stages: 3.25 / 3) on top of the grid step.
        whole = (c.batch / c.pp) / max(c.batch // c.pp, 1)
        assert min(o.usd_per_m_output for o in fewer) <= c.usd_per_m_output * 1.06 * whole, c.label


def test_cli_serve_pp_and_nodes() -> None:
    args = ("serve", "llama-3-70b", "--gpu", "h100-sxm5-80gb", "--tp", "8", "--pp", "2",
            "--nodes", "2", "--concurrency", "64")  # fmt: skip
    shown = invoke(*args)
    assert shown.exit_code == 0, shown.stderr
    assert "x2 (pipeline" in shown.stdout and "16" in shown.stdout
    data = json.loads(invoke(*args, "--json").stdout)
    assert (data["tp"], data["pp"], data["nodes"]) == (8, 2, 2)
    weights = next(f for f in data["figures"] if f["name"] == "weights per GPU")
    assert weights["value"]["value"] == pytest.approx(9.081882624)


def test_cli_search_with_one_pipeline_degree() -> None:
    result = invoke("serve", "llama-3-70b", "--ttft", "500ms", "--tpot", "50ms", "--pp", "2",
                    "--engine", "vllm", "--json")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["pareto"] and all(c["pp"] == 2 for c in data["pareto"])
    assert all(math.isfinite(c["usd_per_m_output"]) for c in data["pareto"])


def test_cli_search_of_the_disaggregated_layout_alone() -> None:
    result = invoke("serve", "llama-3-8b", "--ttft", "500ms", "--tpot", "50ms", "--engine",
                    "vllm", "--disaggregated", "--json")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    front = json.loads(result.stdout)["pareto"]
    assert front and all(c["disaggregated"] and c["pp"] == 1 for c in front)
    # a pair of replicas: twice the GPUs of one
    assert all(c["gpus"] == 2 * c["tp"] for c in front)
