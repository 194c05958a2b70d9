"""``ServePlan`` and ``mlcost serve``: the verbs every result has, capacity and cost relations
derived by hand, and bad input as one line (exit status 2 on the command line)."""

from __future__ import annotations

import json
import math

import pytest

import mlcost
from mlcost.errors import MlcostError
from mlcost.units import Q_
from tests.cli.conftest import invoke


@pytest.fixture(scope="module")
def plan() -> mlcost.ServePlan:
    return mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", prompt=1024, output=256)


def test_verbs(plan: mlcost.ServePlan) -> None:
    summary = plan.summary()
    assert summary.index[0] == "fit" and summary.iloc[0]["value"].startswith("fits")
    assert "time per output token" in summary.index
    text = plan.explain()
    assert "formula:" in text and "source:" in text
    data = json.loads(json.dumps(plan.to_json(), allow_nan=False))
    assert data["model"] == "llama-3-8b" and data["fits"] is True
    assert "<table" in plan._repr_html_()
    frame = plan.to_frame()
    assert {"quantity", "value", "unit"} <= set(frame.columns)
    tpot = plan.figures()[[f.name for f in plan.figures()].index("time per output token")]
    assert tpot.value.check("[time]")


def test_largest_batch_hand_derivation(plan: mlcost.ServePlan) -> None:
    """Llama-3-8B on an H100 SXM (81,559 MiB visible), 90% for the engine, BF16 weights of
    2 x 8,030,261,248 bytes; a sequence of 1024 + 256 = 1280 tokens in blocks of 16 (80 whole
    blocks) takes 1280 x 131,072 bytes (32 layers x 2 x 8 x 128 x 2 bytes per token)."""
    capacity = 81559 * 2**20
    free = capacity * 0.9 - 2 * 8_030_261_248
    assert plan.memory["max_batch"] == math.floor(free / (1280 * 131_072))


def test_default_batch_meets_the_latency_target_not_the_memory_limit(
    plan: mlcost.ServePlan,
) -> None:
    # Issue 63: the default batch is the largest that meets the stated target (TTFT <= 450 ms,
    # TPOT <= 40 ms: MLPerf Inference v5.0's interactive constraint), not the largest that fits.
    batch, why = plan.chosen_batch
    assert "TPOT <= 40 ms" in why and batch < plan.memory["max_batch"]
    timing = plan.timing([batch, batch + 1])
    assert timing["tpot"][0] <= 0.040 and timing["ttft"][0] <= 0.450
    assert timing["tpot"][1] > 0.040 or timing["ttft"][1] > 0.450
    looser = mlcost.ServePlan(
        "llama-3-8b", gpu="h100-sxm5-80gb", prompt=1024, output=256, tpot="80 ms"
    )
    assert looser.chosen_batch[0] > batch


def test_fp8_cache_and_int4_weights_fit_more(plan: mlcost.ServePlan) -> None:
    fp8 = mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", kv_format="fp8")
    assert fp8.memory["sequence"] == pytest.approx(plan.memory["sequence"] / 2)
    assert fp8.memory["max_batch"] >= 2 * plan.memory["max_batch"]
    int4 = mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", weights="int4", batch=1)
    assert (
        int4.row()["tpot_ms"]
        < mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", batch=1).row()["tpot_ms"]
    )


def test_throughput_and_latency_grow_with_batch(plan: mlcost.ServePlan) -> None:
    frame = plan.sweep(batch=[1, 4, 16, 64, 256])
    assert (frame["problem"] == "").all()
    assert frame["tpot_ms"].is_monotonic_increasing
    assert frame["output_tokens_per_s"].is_monotonic_increasing
    assert frame["usd_per_m_output"].is_monotonic_decreasing


def test_price_per_million_output_tokens_hand_derivation() -> None:
    """At a given 3.6 USD per GPU-hour (0.001 USD per GPU-second) on one GPU, a million output
    tokens cost 1e6 x 0.001 x (the decode part of an iteration / tokens it yields); the input
    tokens their prefill seconds each. With batch 1, O = 256 and P = 512, an iteration is a
    decode step plus the prefill of 512/256 prompt tokens."""
    plan = mlcost.ServePlan(
        "llama-3-8b", gpu="h100-sxm5-80gb", batch=1, prompt=512, output=256,
        price=Q_(3.6, "USD/hour"),
    )  # fmt: skip
    t = plan.timing(1)
    decode = float(t["iteration"]) - 2 * float(t["per_prompt_token"])
    assert float(t["step"]) == pytest.approx(decode)
    assert plan.row()["usd_per_m_output"] == pytest.approx(1e6 * 0.001 * decode)
    assert plan.row()["usd_per_m_input"] == pytest.approx(
        1e6 * 0.001 * float(t["per_prompt_token"])
    )
    # vLLM prefills admitted prompts together, up to 8192 tokens a forward: 16 prompts of 512,
    # one weight read for all, so a prompt token costs less than in a prefill of its own.
    assert float(t["per_prompt_token"]) < float(t["prefill"]) / 512


def test_batched_prefill_prices_prompts_in_forwards_of_the_engine_budget() -> None:
    from mlcost.serving.latency import prompts_per_prefill

    # floor(8192 / P) prompts a forward (Sarathi-Serve / vLLM max_num_batched_tokens), at
    # least one; an engine without a budget prefills each prompt alone.
    assert [prompts_per_prefill(8192, p) for p in (128, 512, 1000, 8192, 20000)] == [
        64,
        16,
        8,
        1,
        1,
    ]
    assert prompts_per_prefill(None, 128) == 1
    alone = mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", prompt=128, output=128,
                             batch=64, engine="cuda-graphs")  # fmt: skip
    chunked = mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", prompt=128, output=128,
                               batch=64)  # fmt: skip
    # A prefill of one 128-token prompt reads all 2 x 8,030,261,248 bytes of weights at most at
    # the H100's 3.35 TB/s: at least 37.4 us per prompt token. 64 prompts together read them
    # once, so a prompt token costs less than that floor.
    floor = 2 * 8_030_261_248 / 3.35e12 / 128
    assert float(alone.timing(64)["per_prompt_token"]) >= floor
    assert float(chunked.timing(64)["per_prompt_token"]) < floor


def test_rate_sizes_batch_and_replicas() -> None:
    small = mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", rate=1.0)
    batch, why = small.chosen_batch
    assert "smallest" in why
    assert small.timing(batch)["request_rate"] >= 1.0 > small.timing(batch - 1)["request_rate"]
    big = mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", rate=1000.0)
    per_replica = big.row()["requests_per_s"]
    assert big.row()["gpus"] == math.ceil(1000.0 / per_replica)


def test_seventy_billion_does_not_fit_one_gpu_and_says_so() -> None:
    plan = mlcost.ServePlan("llama-3-70b", gpu="h100-sxm5-80gb")
    assert not plan.fits
    with pytest.raises(MlcostError, match="does not fit"):
        plan.row()
    frame = mlcost.ServePlan("llama-3-70b", system="dgx-h100", tp=2, batch=1).sweep(tp=[1, 2])
    assert frame.loc[0, "problem"].startswith("does not fit") and frame.loc[1, "problem"] == ""


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tp": 3}, "tp: got 3"),
        ({"tp": 0}, "tp: got 0"),
        ({"prompt": 0}, "prompt"),
        ({"prompt": 9000}, "max_position_embeddings"),
        ({"output": [1, 2, 3], "prompt": [4, 5]}, "output"),
        ({"weights": "fp7"}, "weights"),
        ({"kv_format": 8}, "kv_format"),
        ({"rate": -1.0}, "rate"),
        ({"batch": 0}, "batch"),
        ({"draft": "gpt2"}, "acceptance"),
        ({"draft": "gpt2", "acceptance": 2.0}, "acceptance"),
        ({"block_size": 0}, "block_size"),
        ({"pp": 0}, "pp: got 0"),
        ({"pp": 33}, "pp: got 33"),
        ({"pp": 2, "disaggregated": True}, "pp: got 2"),
        ({"pp": 2, "engine": "hf-generate"}, "pp: got 2"),
        ({"pp": 4, "tp": 4}, "pp: got tp 4 x pp 4"),
    ],
)
def test_bad_input_is_one_line(options: dict[str, object], message: str) -> None:
    with pytest.raises(MlcostError, match=message) as caught:
        mlcost.ServePlan("llama-3-8b", system="dgx-h100", **options).row()  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)


def test_cli_table_and_json() -> None:
    result = invoke("serve", "llama-3-8b", "--gpu", "h100-sxm5-80gb", "--prompt", "512")
    assert result.exit_code == 0 and "time per output token" in result.stdout
    result = invoke("serve", "llama-3-70b", "--system", "dgx-h100", "--tp", "4", "--rate", "5",
                    "--json")  # fmt: skip
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["tp"] == 4 and data["fits"] is True


@pytest.mark.parametrize(
    "args",
    [
        ["llama-3-8b", "--tp", "3", "--system", "dgx-h100"],
        ["llama-3-8b", "--tp", "16"],
        ["llama-3-8b", "--prompt", "0"],
        ["llama-3-8b", "--prompt", "abc"],
        ["llama-3-8b", "--output-tokens", "9000"],
        ["llama-3-8b", "--rate", "-2"],
        ["llama-3-8b", "--concurrency", "100000"],
        ["llama-3-8b", "--weights", "fp7"],
        ["llama-3-8b", "--kv-format", "int3"],
        ["llama-3-8b", "--draft", "gpt2"],
        ["resnet-50"],
        ["nope"],
    ],
)
def test_cli_bad_input_one_line_exit_2(args: list[str]) -> None:
    result = invoke("serve", *args)
    assert result.exit_code == 2, result
    assert result.stderr.startswith("error:") and result.stderr.strip().count("\n") == 0


def test_largest_batch_under_tensor_parallel_keeps_replicated_embedding_and_head() -> None:
    """Issue 63: DeepSeek-V3 in FP8 on the 8 H200s of a DGX H200 (tp 8), prompts of 2048 and
    outputs of 512 tokens. By hand from its config.json (h 7168, 61 layers of which 3 dense
    (FFN 18,432) and 58 MoE (256 experts and one shared of 2048, router 7168 x 256), latent
    attention q_lora 1536, kv_lora 512, rope 64, 128 heads of 128 + 64, vocabulary 129,280):

    * replicated on every rank, in FP8 (1 byte): the latent down projections 7168 x 1536 and
      7168 x (512 + 64) of each layer, the router of each MoE layer;
    * split over the 8 ranks, in FP8: q up 1536 x 128·192, kv up 512 x 128·256, output
      128·128 x 7168, the dense MLPs 3 x 7168 x 18,432, the experts 257 x 3 x 7168 x 2048;
    * split over the 8 ranks, in BF16: the embedding and the LM head, 129,280 x 7168 each (the
      norms, 1 M parameters, 0.25 MB per rank, below the tolerance).

    The KV cache of MLA is the latent and rotary key, replicated: (512 + 64) x 2 bytes x 61
    layers per token; 2560 tokens per sequence (whole blocks of 16). The rank has 143,771 MiB
    (the catalog's H200 spec), 90% of it for the engine (vLLM's gpu_memory_utilization)."""
    h, layers, dense, moe = 7168, 61, 3, 58
    replicated = layers * (h * 1536 + h * (512 + 64)) + moe * h * 256
    attention = 1536 * 128 * 192 + 512 * 128 * 256 + 128 * 128 * h
    split = layers * attention + dense * 3 * h * 18_432 + moe * 257 * 3 * h * 2048
    embedding_and_head = 2 * 129_280 * h
    weights = replicated + split / 8 + 2 * embedding_and_head / 8
    sequence = (512 + 64) * 2 * layers * 2560
    budget = 0.9 * 143_771 * 2**20
    plan = mlcost.ServePlan(
        "deepseek-v3", system="dgx-h200", tp=8, weights="fp8", prompt=2048, output=512
    )
    assert plan.memory["weights"] == pytest.approx(weights, rel=1e-5)
    assert plan.memory["sequence"] == sequence
    assert plan.memory["max_batch"] == math.floor((budget - weights) / sequence) == 281


def test_tensor_parallel_across_nodes() -> None:
    """Issue 63: --tp 16 on a cluster spans two DGX H100 nodes. Every weight of Llama 3.1 405B is
    split (layers, embedding and head vocabulary-parallel): a rank holds half of what it holds at
    tp 8. Its 2 x 126 all-reduces per step cross the 400 Gb/s InfiniBand (47 GB/s per GPU,
    against NVLink's 370 GB/s within a node), so a step is slower than at tp 8 despite half the
    weight reads."""
    args = {"system": "dgx-h100-superpod-su", "weights": "fp8", "batch": 32}
    sixteen = mlcost.ServePlan("llama-3.1-405b", tp=16, **args)
    eight = mlcost.ServePlan("llama-3.1-405b", tp=8, **args)
    assert sixteen.memory["weights"] == pytest.approx(eight.memory["weights"] / 2)
    assert sixteen.row()["tpot_ms"] > eight.row()["tpot_ms"]
    assert sixteen.row()["gpus"] == 16
    with pytest.raises(MlcostError, match="tp: got 16, but dgx-h100 has 8 GPUs"):
        mlcost.ServePlan("llama-3-70b", system="dgx-h100", tp=16)


def test_disaggregated_prefill_and_decode() -> None:
    """Issue 63: prefill and decode on separate replicas (DistServe). A decode iteration is the
    decode step alone (TPOT = step); the first token waits for the prompt's prefill, the KV
    cache's transfer, half a step and the prefill pool's queue. Across two DGX H100 nodes each
    rank sends Llama-3-8B's cache of 1024 tokens, 32 layers x 2 x 8 heads x 128 x 2 bytes x
    1024 = 134,217,728 bytes, over its share of the node's InfiniBand: 8 x 400 Gb/s NICs for 8
    GPUs, 50 GB/s a GPU at most, so at least 2.68 ms; within one node over NVLink, less."""
    args = {"prompt": 1024, "output": 256, "batch": 64, "disaggregated": True}
    apart = mlcost.ServePlan("llama-3-8b", system="dgx-h100-superpod-su", **args)
    together = mlcost.ServePlan("llama-3-8b", system="dgx-h100", **args)
    assert apart.kv_transfer_seconds >= 134_217_728 / 50e9
    assert together.kv_transfer_seconds < apart.kv_transfer_seconds
    t = apart.timing(64)
    assert float(t["tpot"]) == pytest.approx(float(t["step"]))
    # ...plus the prefill pool's queue, which fills what the 450 ms default target leaves.
    fixed = float(t["prefill"]) + apart.kv_transfer_seconds + float(t["step"]) / 2
    assert fixed < 0.450
    assert float(t["ttft"]) == pytest.approx(0.450, rel=1e-6)
    aggregated = mlcost.ServePlan("llama-3-8b", system="dgx-h100-superpod-su", prompt=1024,
                                  output=256, batch=64)  # fmt: skip
    # Without prefills in its iterations a decode replica is faster per token...
    assert apart.row()["tpot_ms"] < aggregated.row()["tpot_ms"]
    # ...and a replica pair (one prefill, one decode) uses twice the GPUs.
    assert apart.row()["gpus"] == 2 * aggregated.row()["gpus"]
    with pytest.raises(MlcostError, match="disaggregated"):
        mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", engine="hf-generate",
                         disaggregated=True)  # fmt: skip


def test_pipeline_parallel_serving_hand_derivation() -> None:
    """Llama-3-8B BF16 on a DGX H100 in two pipeline stages (tp 1, pp 2), batch 16, prompts of
    1024 and outputs of 256 tokens, vLLM.

    Memory of the largest stage, by hand from Hugging Face's parameter count (8,030,261,248):
    the embedding and the LM head are 128,256 x 4,096 = 525,336,576 parameters each, the final
    norm 4,096, so a layer holds (8,030,261,248 - 2 x 525,336,576 - 4,096) / 32 = 218,112,000;
    a stage holds 16 layers and (an upper bound) the embedding, head and norm: 2 bytes x
    (16 x 218,112,000 + 2 x 525,336,576 + 4,096) = 9,080,938,496 bytes. Its KV cache per
    sequence: 16 layers x 2 x 8 x 128 x 2 bytes x 1280 tokens = 83,886,080 bytes.

    Time: two micro-batches of m = 8 in flight, so a round is the whole model's decode step at
    8 sequences with the engine's step cost, the prefill of the m x 1024 / 256 = 32 prompt
    tokens replacing its finished sequences, and two stage-to-stage transfers of 8 x 4096 x 2
    bytes; its 16 tokens come out per round: TPOT = round, throughput = 16 / round, 2 GPUs."""
    from mlcost.serving.latency import forward_seconds, serving_ceilings
    from mlcost.serving.workload import decode_operators

    plan = mlcost.ServePlan(
        "llama-3-8b",
        system="dgx-h100",
        pp=2,
        batch=16,
        prompt=1024,
        output=256,
        calibrated=False,
    )
    layer = (8_030_261_248 - 2 * 525_336_576 - 4096) / 32
    assert layer == 218_112_000
    assert plan.memory["weights"] == pytest.approx(2 * (16 * layer + 2 * 525_336_576 + 4096))
    assert plan.memory["sequence"] == pytest.approx(16 * 2 * 8 * 128 * 2 * 1280)

    engine = plan.resolved_engine
    model = plan.transformer
    decode = forward_seconds(
        decode_operators(model, 8, plan.timing(16)["context"], weights="bf16"),
        serving_ceilings(plan.accelerator),
        engine,
        layers=32,
        graph=True,
    )
    per_token = float(plan.timing(16)["per_prompt_token"])
    hop = float(plan.stage_hop_seconds(8))
    expected = float(decode) + engine.step_seconds + 8 * 1024 / 256 * per_token + 2 * hop
    row = plan.row()
    assert row["tpot_ms"] == pytest.approx(expected * 1e3, rel=1e-9)
    assert row["output_tokens_per_s"] == pytest.approx(16 / expected, rel=1e-9)
    assert row["gpus"] == 2
    # The transfer: alpha + S / beta over NVLink, S = 8 x 4096 x 2 bytes, under a microsecond
    # of bandwidth time at hundreds of GB/s: far below the decode step.
    assert 0 < hop < 1e-4 < float(decode)
