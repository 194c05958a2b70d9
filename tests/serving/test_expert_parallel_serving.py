"""Expert parallelism with attention data parallelism in ServePlan (issue 63): the bytes by
hand from Qwen3-235B-A22B's Hugging Face config (hidden 4096, 94 layers, 64 query and 4
key-value heads of 128, 128 routed experts of 1536, top 8, vocabulary 151,936, untied head)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import mlcost
from mlcost.comms.placement import collective_seconds, placement
from mlcost.errors import MlcostError
from mlcost.serving.latency import expert_parallel_seconds
from mlcost.serving.workload import decode_operators


def _plan(**kw: object) -> mlcost.ServePlan:
    options: dict[str, object] = {
        "system": "dgx-h200", "tp": 8, "ep": 8, "weights": "fp8", "kv_format": "fp8",
        "prompt": 128, "output": 2048, "engine": "tensorrt-llm", "batch": 2048,
    }  # fmt: skip
    options.update(kw)
    return mlcost.ServePlan("qwen3-235b-a22b", **options)  # type: ignore[arg-type]


def test_memory_per_rank_by_hand() -> None:
    """One of 8 ranks holds 128 / 8 = 16 whole experts of every layer, 94 x 16 x 3 x 4096 x
    1536 = 28,387,049,472 FP8 bytes; the whole attention and router of every layer, 94 x (4096
    x 8192 + 2 x 4096 x 512 + 8192 x 4096 + 4096 x 128) = 6,751,780,864 FP8 bytes; and, in 16
    bits, the embedding and the head (2 x 151,936 x 4096) and the norms (94 x (2 x 4096 + 2 x
    128) + 4096): 2 x 1,245,457,920 bytes. Its KV cache holds whole key-value heads for its
    own sequences: 94 layers x 2 x 4 x 128 x 1 byte = 96,256 bytes a token, 2,176 tokens a
    sequence (136 blocks of 16) = 209,453,056 bytes; the replica holds 8 ranks' sequences. (Under
    tensor parallelism of 8 each rank keeps 1 of the 4 heads, replicated, for all sequences:
    twice the KV bytes per rank for the same batch.)"""
    plan = _plan()
    experts = 94 * 16 * 3 * 4096 * 1536
    attention = 94 * (4096 * 8192 + 2 * 4096 * 512 + 8192 * 4096 + 4096 * 128)
    rest = 2 * 151_936 * 4096 + 94 * (2 * 4096 + 2 * 128) + 4096
    assert experts == 28_387_049_472 and attention == 6_751_780_864 and rest == 1_245_457_920
    assert plan.memory["weights"] == pytest.approx(experts + attention + 2 * rest, rel=1e-12)
    assert plan.memory["sequence"] == pytest.approx(94 * 2 * 4 * 128 * 2176, rel=1e-12)
    per_rank = math.floor(plan.memory["free"] / plan.memory["sequence"])
    assert plan.memory["max_batch"] == 8 * per_rank
    tensor = _plan(ep=1)
    assert tensor.memory["sequence"] == pytest.approx(94 * 2 * 1 * 128 * 2176, rel=1e-12)
    # for the same 2048 sequences: 256 x 4 heads per rank against 2048 x 1 head
    assert 256 * plan.memory["sequence"] == pytest.approx(2048 * tensor.memory["sequence"] / 2)


def test_dispatch_and_combine_bytes_by_hand() -> None:
    """A rank's 256 decoding sequences send 256 x 8 copies of 4096 16-bit values to the ranks of
    their experts and get as many back: two all-to-alls of 16,777,216 bytes per rank in each of
    the 94 MoE layers, on the DGX H200's NVLink (the pairwise all-to-all of mlcost.comms)."""
    plan = _plan()
    system = plan.resolved_system
    size = 256 * 8 * 4096 * 2
    assert size == 16_777_216
    one = float(np.asarray(collective_seconds(system, "all-to-all", size, placement(system, 8))))
    expected = 2 * 94 * one
    got = float(np.asarray(expert_parallel_seconds(system, 8, 4096, 94, 256, 8)))
    assert got == pytest.approx(expected, rel=1e-12)
    assert float(np.asarray(expert_parallel_seconds(system, 1, 4096, 94, 256, 8))) == 0.0
    # (n-1)/n of it crosses the links: at NVLink's hundreds of GB/s, tens of microseconds a layer
    assert 1e-6 < one < 1e-3


def test_rank_forward_and_throughput() -> None:
    """A rank's decode step runs the whole attention for its 256 sequences (64 query heads) and
    its 16 local experts on the tokens routed from all 8 ranks: 2048 x 8 / 128 = 128 rows per
    expert; every expert is touched (1 - (1 - 8/128)^2048 ~ 1). The replica's 2048 sequences
    each get a token per iteration: throughput = 8 x 256 / iteration, TPOT = iteration."""
    plan = _plan()
    table = decode_operators(
        plan.transformer, 256, 1000, weights="fp8", kv_format="fp8", expert_parallel=8
    )
    experts = [op for op in table.operators if op.gemm_group]
    assert experts and all(float(op.m) == pytest.approx(2048 * 8 / 128) for op in experts)
    assert all(float(op.count) == 94 * 16 for op in experts)
    scores = next(op for op in table.operators if op.name.startswith("attention scores QK^T"))
    assert float(scores.gemm_batch) == 256 * 64
    t = plan.timing(2048)
    assert float(t["output_rate"]) == pytest.approx(8 * 256 / float(t["iteration"]), rel=1e-12)
    row = plan.row()
    assert row["tpot_ms"] == pytest.approx(float(t["iteration"]) * 1e3, rel=1e-12)
    assert row["gpus"] == 8


@pytest.mark.parametrize(
    ("model", "kw", "field"),
    [
        ("llama-3-8b", {"tp": 1, "ep": 2, "system": "dgx-h100"}, "is dense"),
        ("qwen3-235b-a22b", {"tp": 8, "ep": 4, "system": "dgx-h200"}, "ep = tp"),
        ("qwen3-235b-a22b", {"tp": 8, "ep": 0, "system": "dgx-h200"}, "whole number"),
    ],
)
def test_expert_parallel_bad_input(model: str, kw: dict[str, object], field: str) -> None:
    with pytest.raises(MlcostError, match=field):
        mlcost.ServePlan(model, weights="fp8", **kw)  # type: ignore[arg-type]


def test_closed_loop_first_token_by_hand() -> None:
    """Mean value analysis by hand. One client: its prompt's prefill, S. No decode phase (O =
    1): the N clients queue for the prefill server in turn, R = N x S (response-time law N =
    X x R with think time 0 and X = 1 / S). Two clients, S = 0.4 s, Z = 499 x 0.02 s = 9.98 s:
    Q(1) = 0.4 / 10.38, R(2) = 0.4 x (1 + 0.4 / 10.38) = 0.415414... s."""
    from mlcost.serving.latency import closed_loop_time_to_first_token as ttft

    assert ttft(0.4, 0.02, 1, 500) == pytest.approx(0.4)
    assert ttft(0.4, 0.02, 5, 1) == pytest.approx(5 * 0.4)
    r2 = 0.4 * (1 + 0.4 / (0.4 + 499 * 0.02))
    assert ttft(0.4, 0.02, 2, 500) == pytest.approx(r2, rel=1e-12)
    # response-time law for N = 50: X = N / (Z + R) with Q = X R, the queue below N
    r = ttft(0.4, 0.06, 50, 500)
    assert 0.4 < r < 50 * 0.4


def test_fp8_context_attention_rows() -> None:
    """TensorRT-LLM runs its context attention in FP8 under an FP8 KV cache (the engine
    profile's fp8_attention, sourced to its attention op): the two attention matmuls of a
    prefill carry the FP8 format, with the same FLOPs (Llama-3.1-8B, 2,048 tokens: 4 x 128 x 32
    heads x 2048 x 2049 / 2 pairs = 34,376,515,584 FLOPs per layer for the two matmuls), and a BF16
    weight plan with an FP8 cache gets the GPU's FP8 ceilings for them."""
    from mlcost.serving.latency import serving_ceilings
    from mlcost.serving.workload import prefill_operators
    from mlcost.specs import default_catalog

    catalog = default_catalog()
    assert catalog.engine("tensorrt-llm").fp8_attention
    assert not catalog.engine("vllm").fp8_attention
    model = catalog.transformer("llama-3.1-8b")

    def attention(**kw: object) -> list[object]:
        table = prefill_operators(model, 1, 2048, kv_format="fp8", **kw)  # type: ignore[arg-type]
        return [op for op in table.operators if op.name.startswith("attention scores")]

    fp8, plain = attention(fp8_attention=True), attention()
    assert [op.format for op in fp8] == ["fp8", "fp8"]  # type: ignore[attr-defined]
    assert [op.format for op in plain] == ["", ""]  # type: ignore[attr-defined]
    flops = sum(float(op.forward_flops) for op in fp8)  # type: ignore[attr-defined]
    assert flops == pytest.approx(4 * 128 * 32 * 2048 * 2049 / 2)
    gpu = catalog.accelerator("h100-sxm5-80gb")
    assert set(serving_ceilings(gpu, "bf16", "fp8")) == {"", "fp8"}
    assert set(serving_ceilings(gpu, "bf16", "bf16")) == {""}


def test_serve_plan_closed_loop_by_hand() -> None:
    """Two clients in a closed loop (Llama-3-8B, H100, vLLM, prompts of 1024 and outputs of
    256 tokens): the first token waits for the other client's prefill with probability its
    share of the cycle, R(2) = S (1 + S / (S + Z)) with S the prompt's prefill and Z = 255
    iterations at batch 2 (the plan's own prefill and iteration, so only the queue is under
    test); one client: S alone, no running step and no queue."""
    plan = mlcost.ServePlan(
        "llama-3-8b", gpu="h100-sxm5-80gb", prompt=1024, output=256, batch=2,
        arrivals="closed-loop",
    )  # fmt: skip
    t = plan.timing(2)
    s, z = float(t["prefill"]), 255 * float(t["iteration"])
    assert plan.row()["ttft_ms"] == pytest.approx(1e3 * s * (1 + s / (s + z)), rel=1e-12)
    one = mlcost.ServePlan(
        "llama-3-8b", gpu="h100-sxm5-80gb", prompt=1024, output=256, batch=1,
        arrivals="closed-loop",
    )  # fmt: skip
    assert one.row()["ttft_ms"] == pytest.approx(1e3 * float(one.timing(1)["prefill"]))
    poisson = mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", prompt=1024, output=256, batch=1)
    assert poisson.row()["ttft_ms"] > one.row()["ttft_ms"]  # the Poisson queue adds step / 2


@pytest.mark.parametrize(
    ("kw", "fragment"),
    [({"arrivals": "burst"}, "expected one of poisson, closed-loop"),
     ({"arrivals": "closed-loop", "pp": 2, "system": "dgx-h100"}, "aggregated continuous")],
)  # fmt: skip
def test_arrivals_bad_input(kw: dict[str, object], fragment: str) -> None:
    options: dict[str, object] = {"gpu": "h100-sxm5-80gb"}
    options.update(kw)
    if "system" in options:
        del options["gpu"]
    with pytest.raises(MlcostError, match=fragment) as caught:
        mlcost.ServePlan("llama-3-8b", **options)  # type: ignore[arg-type]
    assert str(caught.value).startswith("arrivals: got")


def test_closed_loop_steady_state_laws() -> None:
    """The closed loop's steady state obeys the response-time law exactly, N = X (TTFT + (O -
    1) I), and its iteration carries the prefills that arrive during it, I = step + X I s_p
    (to the fixed point's precision); with no prompt cost the iteration is the step and TTFT
    the mean value analysis at it. Numbers by hand: S = 0.4 s, step 0.02 s, s_p = 0.3 s, N =
    10, O = 500."""
    from mlcost.serving.latency import closed_loop_steady_state, closed_loop_time_to_first_token

    iteration, ttft, rate = (float(v) for v in closed_loop_steady_state(0.4, 0.02, 0.3, 10, 500))
    assert rate * (ttft + 499 * iteration) == pytest.approx(10, rel=1e-12)
    assert iteration == pytest.approx(0.02 + rate * iteration * 0.3, rel=1e-6)
    assert ttft == pytest.approx(closed_loop_time_to_first_token(0.4, iteration, 10, 500))
    free, first, _ = (float(v) for v in closed_loop_steady_state(0.4, 0.02, 0.0, 10, 500))
    assert free == pytest.approx(0.02)
    assert first == pytest.approx(closed_loop_time_to_first_token(0.4, 0.02, 10, 500))


def test_cli_serve_takes_ep() -> None:
    # `mlcost serve --tp 8 --ep 8` is the same layout: the weights per rank by hand (the
    # docstring of test_memory_per_rank_by_hand), 28,387,049,472 + 6,751,780,864 + 2 x
    # 1,245,457,920 bytes.
    from tests.cli.conftest import invoke

    result = invoke(
        "serve", "qwen3-235b-a22b", "--system", "dgx-h200", "--tp", "8", "--ep", "8",
        "--weights", "fp8", "--kv-format", "fp8", "--engine", "tensorrt-llm", "--prompt", "128",
        "--output-tokens", "2048", "--concurrency", "2048", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["tp"], data["ep"]) == (8, 8)
    weights = next(f for f in data["figures"] if f["name"] == "weights per GPU")
    expected = 28_387_049_472 + 6_751_780_864 + 2 * 1_245_457_920
    assert weights["value"]["value"] * 1e9 == pytest.approx(expected, rel=1e-9)
