"""Prefill and decode time, tensor-parallel weights, speculative decoding and continuous
batching against hand derivations written here. The parameter count is Hugging Face's own
(the model built on the meta device), never mlcost's."""

from __future__ import annotations

import numpy as np
import pytest

import mlcost
from mlcost.roofline import Ceilings
from mlcost.serving.latency import (
    expected_accepted_tokens,
    forward_seconds,
    forward_time,
    mean_context,
    serving_ceilings,
)
from mlcost.serving.workload import decode_operators, prefill_operators
from mlcost.specs import Catalog

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.oracles import HF_CONFIGS, hf_model, parameter_count  # noqa: E402

LLAMA3_8B_PARAMETERS = parameter_count(hf_model(HF_CONFIGS["llama-3-8b"]))


def test_decode_step_is_weights_and_kv_over_bandwidth(catalog: Catalog) -> None:
    """Llama-3-8B, batch 1, 1024 tokens cached, BF16 weights and cache, on an H100 SXM.

    Hand derivation. A decode step reads every weight once except the token embedding table
    (the embedding is a gather of one row): ``2 bytes x (N - V·h)`` with ``N`` the Hugging Face
    parameter count (8,030,261,248: embedding and LM head untied) and ``V·h = 128,256 x 4,096``;
    the row it gathers, ``2·h``. It reads the keys and values of the 1024 cached tokens and of
    the new one in every layer: ``2 (K and V) x 32 layers x 8 heads x 128 x 2 bytes x 1025``.
    Both over the achievable bandwidth of the GPU's ceilings (datasheet 3.35 TB/s x the memory
    efficiency of its profile; the H100 profile measures no read stream, so reads run at the
    triad's rate); the serving ceilings carry no per-row launch gap (the engine adds its cost
    per kernel). Plus each kernel's class latency from the profile (``kernel_latency``), per
    layer: four GEMM launches (Q, K, V fused; output; gate and up fused; down), two norms and one
    attention core; outside the layers the LM head's GEMM and the final norm. Tolerance 0.1%:
    the hand sum leaves out the activations (a few vectors of ``h`` per operator, about 8 MB of
    the 15 GB).
    """
    gpu = catalog.accelerator("h100-sxm5-80gb")
    ceilings = Ceilings.from_accelerator(gpu, "bf16")
    bandwidth = gpu.memory_bandwidth.to("byte/s").magnitude * ceilings.memory_efficiency
    h, vocab = 4096, 128256
    weights = 2 * (LLAMA3_8B_PARAMETERS - vocab * h) + 2 * h
    kv = 2 * 32 * 8 * 128 * 2 * 1025
    assert gpu.measured is not None
    latency = {kind: value.to("s").magnitude for kind, value in gpu.measured.kernel_latency.items()}
    per_layer = 4 * latency["matmul"] + 2 * latency["norm"] + latency["attention"]
    expected = (weights + kv) / bandwidth + 32 * per_layer + latency["matmul"] + latency["norm"]

    model = catalog.transformer("llama-3-8b")
    table = decode_operators(model, 1, 1024)
    step = forward_time(table, serving_ceilings(gpu))
    assert step.seconds == pytest.approx(expected, rel=1e-3)
    bounds = step.by_kind()["bound"]
    assert bounds["matmul"] == "memory" and bounds["attention"] == "memory"


def test_decode_step_on_a_measured_bandwidth(catalog: Catalog) -> None:
    """The same derivation on a GPU whose catalog profile carries a measured memory bandwidth
    (A100 SXM4 80GB: 1794 GB/s, the spec's ``measured.memory_bandwidth`` with its source), read
    straight from the spec: the bytes of the step over it. (The H200's profile also measures
    attention kernels, whose small-size efficiency makes the batch-1 score matmul compute-bound
    there, so the pure bandwidth derivation is not its prediction.)"""
    gpu = catalog.accelerator("a100-sxm4-80gb")
    assert gpu.measured is not None and gpu.measured.memory_bandwidth is not None
    bandwidth = gpu.measured.memory_bandwidth.to("byte/s").magnitude
    h, vocab = 4096, 128256
    moved = 2 * (LLAMA3_8B_PARAMETERS - vocab * h) + 2 * h + 2 * 32 * 8 * 128 * 2 * 1025
    table = decode_operators(catalog.transformer("llama-3-8b"), 1, 1024)
    step = forward_time(table, serving_ceilings(gpu))
    assert step.seconds == pytest.approx(moved / bandwidth, rel=1e-3)


def test_long_prefill_is_compute_bound_and_decode_memory_bound(catalog: Catalog) -> None:
    gpu = catalog.accelerator("h100-sxm5-80gb")
    ceilings = serving_ceilings(gpu)
    model = catalog.transformer("llama-3-8b")
    prefill = forward_time(prefill_operators(model, 1, 4096), ceilings).by_kind()
    decode = forward_time(decode_operators(model, 1, 4096), ceilings).by_kind()
    assert prefill.loc["matmul", "bound"] == "compute"
    assert decode.loc["matmul", "bound"] == "memory"
    assert decode.loc["attention", "bound"] == "memory"


def test_decode_time_grows_with_batch_and_context(catalog: Catalog) -> None:
    gpu = catalog.accelerator("h100-sxm5-80gb")
    model = catalog.transformer("llama-3-8b")
    ceilings = serving_ceilings(gpu)
    batches = np.array([1, 2, 4, 8, 16, 64, 256])
    engine = catalog.engine("cuda-graphs")
    by_batch = forward_seconds(
        decode_operators(model, batches, 2048), ceilings, engine, layers=32, graph=True
    )
    assert np.all(np.diff(by_batch) >= 0)
    contexts = np.array([128, 1024, 4096, 8000])
    by_context = forward_seconds(
        decode_operators(model, 8, contexts), ceilings, engine, layers=32, graph=True
    )
    assert np.all(np.diff(by_context) > 0)


def test_weights_per_gpu_hand_derivation(catalog: Catalog) -> None:
    """BF16: ``2·N`` bytes on one GPU and ``N`` per GPU at tp=2 (every weight split, the
    vocabulary-parallel embedding too). INT4 weight-only with groups of 128: the layers' GEMM
    weights ``G = L·(h·n_q·d + 2·h·n_kv·d + n_q·d·h + 3·h·f)`` take ``0.5 + (2 + 0.5)/128``
    bytes each (a 4-bit value, an FP16 scale and a 4-bit zero point per group), the rest 2."""
    n = LLAMA3_8B_PARAMETERS
    one = mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", batch=1)
    assert one.memory["weights"] == pytest.approx(2 * n, rel=1e-12)
    two = mlcost.ServePlan("llama-3-8b", system="dgx-h100", tp=2, batch=1)
    assert two.memory["weights"] == pytest.approx(n, rel=1e-12)
    h, d, f, layers = 4096, 128, 14336, 32
    gemm = layers * (h * 32 * d + 2 * h * 8 * d + 32 * d * h + 3 * h * f)
    int4 = mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", batch=1, weights="int4")
    assert int4.memory["weights"] == pytest.approx(
        2 * (n - gemm) + gemm * (0.5 + 2.5 / 128), rel=1e-12
    )


def test_speculative_tokens_per_step_hand_derivation() -> None:
    # Leviathan et al. 2023 eq. 1: (1 - a^(k+1)) / (1 - a); a = 0.8, k = 4: 3.3616.
    assert expected_accepted_tokens(0.8, 4) == pytest.approx((1 - 0.8**5) / 0.2)
    assert expected_accepted_tokens(0.8, 4) == pytest.approx(3.3616)
    assert expected_accepted_tokens(0.0, 4) == 1.0
    assert expected_accepted_tokens(1.0, 4) == 5.0


def test_speculative_decoding_lowers_time_per_token_when_drafts_are_accepted() -> None:
    base = {"gpu": "h100-sxm5-80gb", "batch": 1, "prompt": 512, "output": 256}
    plain = mlcost.ServePlan("llama-3-8b", **base)
    # A draft with the target's tokenizer (Llama 3.2 1B shares Llama 3's 128,256 tokens).
    good = mlcost.ServePlan("llama-3-8b", draft="llama-3.2-1b", acceptance=0.9, **base)
    bad = mlcost.ServePlan("llama-3-8b", draft="llama-3.2-1b", acceptance=0.0, **base)
    assert good.row()["tpot_ms"] < plain.row()["tpot_ms"] < bad.row()["tpot_ms"]


def test_a_draft_with_another_vocabulary_or_an_encoder_is_refused() -> None:
    """Issue 65: speculative decoding verifies the draft's token ids, so the draft must share
    the target's vocabulary (GPT-2's 50,257 tokens are not Llama 3's 128,256); an encoder
    (BERT) generates no tokens to time."""
    with pytest.raises(mlcost.MlcostError, match="draft: gpt2-medium has a vocabulary of 50,257"):
        mlcost.ServePlan("llama-3-8b", gpu="h100-sxm5-80gb", draft="gpt2-medium", acceptance=0.9)
    with pytest.raises(mlcost.MlcostError, match="bert-base is an encoder"):
        mlcost.ServePlan("bert-base", gpu="h100-sxm5-80gb", prompt=128, output=16)


def test_mean_context_hand_derivation() -> None:
    # One request, P = 100, O = 50: its tokens see 100..150 cached tokens, 125 on average.
    assert mean_context(100, 50) == pytest.approx(125.0)
    # Mix (100, 50) and (300, 150): E[P·O + O^2/2] = (6250 + 56250) / 2 = 31250, E[O] = 100.
    assert mean_context([100, 300], [50, 150]) == pytest.approx(312.5)


def test_tensor_parallel_decode_is_faster_per_step_with_its_all_reduces() -> None:
    one = mlcost.ServePlan("llama-3-70b", system="dgx-h100", tp=2, batch=8)
    four = mlcost.ServePlan("llama-3-70b", system="dgx-h100", tp=4, batch=8)
    assert four.row()["tpot_ms"] < one.row()["tpot_ms"]
    # Each rank reads half the weights at tp=4 of tp=2, but the step is more than half as long:
    # the all-reduces and the replicated operators do not shrink.
    assert four.row()["tpot_ms"] > one.row()["tpot_ms"] / 2


def test_time_to_first_token_hand_derivation() -> None:
    """Prefill 0.4 s, decode step 0.05 s, an iteration of 0.09 s for 50 sequences of 500 output
    tokens: 0.1 prompts admitted per iteration, so the prefill load is rho = 0.1 x 0.4 / 0.09
    = 0.444; the M/D/1 mean wait is rho x 0.4 / (2 (1 - rho)) = 0.16 s, and TTFT = 0.4 + 0.025
    + 0.16 = 0.585 s."""
    from mlcost.serving.latency import prefill_share, time_to_first_token

    rho = 50 / 500 * 0.4 / 0.09
    assert prefill_share(0.4, 0.09, 50, 500) == pytest.approx(rho)
    assert time_to_first_token(0.4, 0.05, 0.09, 50, 500) == pytest.approx(
        0.4 + 0.025 + rho * 0.4 / (2 * (1 - rho))
    )
    assert time_to_first_token(0.4, 0.05, 0.09, 50, 500) == pytest.approx(0.585, abs=1e-3)


def test_an_engine_runs_only_on_its_vendors_gpus() -> None:
    # TensorRT-LLM is NVIDIA's (CUDA and TensorRT only): an MI300X plan under it is refused,
    # one under vLLM (which has a ROCm backend) is answered.
    from mlcost.errors import MlcostError

    with pytest.raises(MlcostError, match="engine: tensorrt-llm runs on NVIDIA GPUs"):
        mlcost.ServePlan("llama-3-8b", gpu="mi300x-192gb", engine="tensorrt-llm")
    assert mlcost.ServePlan("llama-3-8b", gpu="mi300x-192gb", engine="vllm").fits


def test_time_to_first_token_queues_each_prompt_at_its_share_of_a_batched_prefill() -> None:
    """Batched prefill: a prompt alone takes 0.4 s, but admitted prompts share forwards, so each
    adds only 0.25 s to the iteration (its share of the batched forward). An iteration of 0.09 s
    for 50 sequences of 500 output tokens admits 0.1 prompts: rho = 0.1 x 0.25 / 0.09 = 0.278,
    the M/D/1 wait rho x 0.25 / (2 (1 - rho)) = 0.0481 s, and TTFT = 0.4 (the prompt's own
    forward) + 0.025 + 0.0481 = 0.473 s. Charging the queue the 0.4 s alone gives rho 0.444,
    and with a slightly shorter iteration (0.035 s) rho above 1 and a negative wait."""
    from mlcost.serving.latency import prefill_share, time_to_first_token

    rho = 50 / 500 * 0.25 / 0.09
    assert prefill_share(0.25, 0.09, 50, 500) == pytest.approx(rho)
    assert time_to_first_token(0.4, 0.05, 0.09, 50, 500, 0.25) == pytest.approx(
        0.4 + 0.025 + rho * 0.25 / (2 * (1 - rho))
    )
    assert time_to_first_token(0.4, 0.05, 0.09, 50, 500, 0.25) == pytest.approx(0.473, abs=1e-3)


def test_a_loaded_batched_prefill_engine_keeps_a_positive_first_token_time() -> None:
    """Regression (found by the slo63 search work): Mixtral-8x7B on 8 H200 at 897 sequences
    charged each queued prompt its prefill alone where the iteration holds only its share of a
    batched forward, so rho reached 1.03 and TTFT -191 ms. The queue's load is below 1 by
    construction (the iteration contains the prefills it admits), and the first token waits at
    least its own prefill and half a decode step."""
    from mlcost.serving import ServePlan
    from mlcost.systems import system

    t = ServePlan("mixtral-8x7b", system=system("h200-sxm-141gb"), tp=8).timing(897)
    assert 0 < float(t["prefill_share"]) < 1
    assert float(t["ttft"]) >= float(t["prefill"]) + float(t["step"]) / 2
