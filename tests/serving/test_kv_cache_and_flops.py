"""The serving workload against Hugging Face ``transformers`` itself, on the meta device.

Oracles, all outside mlcost:

* KV-cache bytes: the ``DynamicCache`` a Hugging Face model fills during a prefill and after one
  decode step (each layer's key and value tensors, ``numel x element_size``), in BF16. The
  models keep their catalog widths (hidden size, heads, head size, window) from the configs
  written in ``tests/oracles.py``; the layer count is cut to 2 or 4 (the cache is a per-layer
  sum, and Gemma 2 keeps its local/global alternation), and the sliding windows are shrunk to 8
  tokens so that prompts of 37 tokens overflow them.
* FLOPs: ``torch.utils.flop_counter.FlopCounterMode`` around the same forward calls, eager
  attention (the whole score matrix is executed, so the table is built with
  ``attention="executed"``), logits of the last position only (``logits_to_keep=1``, as the
  serving table assumes). GEMM FLOPs are exact, so the comparison is exact.
"""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

from mlcost.serving.kv_cache import kv_cache_bytes, paged_fragmentation, paged_tokens  # noqa: E402
from mlcost.serving.workload import decode_operators, prefill_operators  # noqa: E402
from mlcost.specs import Catalog, TransformerSpec  # noqa: E402
from tests.oracles import HF_CONFIGS, hf_model  # noqa: E402

WINDOW = 8
#: catalog name -> (kind of attention, layers kept, config overrides)
CASES: dict[str, tuple[str, int, dict[str, Any]]] = {
    "gpt2": ("MHA", 2, {"n_layer": 2}),
    "llama-3-8b": ("GQA", 2, {"num_hidden_layers": 2}),
    "mistral-7b": ("GQA, sliding window", 2, {"num_hidden_layers": 2, "sliding_window": WINDOW}),
    "gemma-2-9b": (
        "GQA, local/global",
        4,
        {"num_hidden_layers": 4, "sliding_window": WINDOW},
    ),
}


def _spec(catalog: Catalog, name: str) -> TransformerSpec:
    _, layers, overrides = CASES[name]
    update: dict[str, Any] = {"num_layers": layers}
    if "sliding_window" in overrides:
        update["sliding_window"] = WINDOW
    return catalog.transformer(name).model_copy(update=update)


def _hf(name: str) -> Any:
    model = hf_model({**HF_CONFIGS[name], **CASES[name][2]}, dtype=torch.bfloat16)
    model.eval()
    return model


def _cache_bytes(cache: Any) -> int:
    return sum(
        layer.keys.numel() * layer.keys.element_size()
        + layer.values.numel() * layer.values.element_size()
        for layer in cache.layers
    )


def _prefill(model: Any, batch: int, prompt: int) -> tuple[Any, int]:
    ids = torch.zeros(batch, prompt, dtype=torch.long, device="meta")
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        out = model(input_ids=ids, use_cache=True, logits_to_keep=1)
    return out.past_key_values, int(counter.get_total_flops())


def _decode(model: Any, cache: Any, batch: int) -> tuple[Any, int]:
    ids = torch.zeros(batch, 1, dtype=torch.long, device="meta")
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        out = model(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1)
    return out.past_key_values, int(counter.get_total_flops())


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize(("batch", "prompt"), [(1, 5), (2, 37)])
def test_kv_bytes_and_forward_flops_equal_hugging_face(
    catalog: Catalog, name: str, batch: int, prompt: int
) -> None:
    spec = _spec(catalog, name)
    model = _hf(name)
    cache, prefill_flops = _prefill(model, batch, prompt)
    assert kv_cache_bytes(spec, prompt, batch).to("byte").magnitude == _cache_bytes(cache), name
    table = prefill_operators(spec, batch, prompt, attention="executed")
    assert table.matmul_flops().to("flop").magnitude == prefill_flops, (name, "prefill")

    cache, decode_flops = _decode(model, cache, batch)
    assert kv_cache_bytes(spec, prompt + 1, batch).to("byte").magnitude == _cache_bytes(cache)
    table = decode_operators(spec, batch, prompt, attention="executed")
    assert table.matmul_flops().to("flop").magnitude == decode_flops, (name, "decode")
    # A decode step's query sees every cached key (within the window): masked == executed.
    masked = decode_operators(spec, batch, prompt).matmul_flops()
    assert masked.to("flop").magnitude == decode_flops


def test_window_caps_the_cache_hand_derivation(catalog: Catalog) -> None:
    # Mistral-7B, 32 layers, 8 KV heads of 128, BF16, window 4096: a 10,000-token sequence keeps
    # 4095 tokens per layer: 32 x 2 x 8 x 128 x 2 bytes x 4095 = 536,739,840 bytes.
    mistral = catalog.transformer("mistral-7b")
    assert kv_cache_bytes(mistral, 10_000).to("byte").magnitude == 32 * 2 * 8 * 128 * 2 * 4095
    # Llama-3-70B at 8192 tokens, FP8 cache: 80 x 2 x 8 x 128 x 1 x 8192 = 1.34 GB.
    llama = catalog.transformer("llama-3-70b")
    assert kv_cache_bytes(llama, 8192, kv_format="fp8").to("byte").magnitude == (
        80 * 2 * 8 * 128 * 8192
    )


def test_paged_blocks_hand_derivation() -> None:
    # 33 tokens in blocks of 16: 3 blocks, 48 slots, 15 empty: 15/48 = 31.25% fragmentation.
    assert paged_tokens(33, 16) == 48
    assert paged_fragmentation(33, 16) == pytest.approx(15 / 48)
    assert paged_fragmentation(32, 16) == 0.0


def test_latent_attention_caches_the_compressed_latent() -> None:
    """DeepSeek-V2 (arXiv 2405.04434) section 2.1.2 and Table 1: MLA caches (d_c + d_R^h) x l
    elements per token, d_c = 512 and d_R^h = 64 for DeepSeek-V3 (its config.json:
    kv_lora_rank 512, qk_rope_head_dim 64, 61 layers): 61 x 576 x 2 bytes = 70,272 bytes per
    token in bf16, the same on every tensor-parallel rank."""
    import mlcost
    from mlcost.serving.kv_cache import attention_kind, kv_bytes_per_token

    deepseek = mlcost.model("deepseek-v3")
    assert attention_kind(deepseek) == "mla"
    for tp in (1, 8):
        per_token = kv_bytes_per_token(deepseek, "bf16", tensor_parallel=tp)
        assert per_token.to("byte/token").magnitude == 70_272


def test_a_small_decode_batch_reads_only_the_experts_it_routes_to() -> None:
    """Mixtral-8x7B (k = 2 of E = 8 experts per layer): one decoding sequence touches 2 experts
    per layer, so its expert GEMMs read 2/8 of the expert weights; b sequences touch
    1 - (6/8)^b of them in expectation. Hand count: each expert has 3 x 4096 x 14336 weights."""
    import mlcost
    from mlcost.serving.workload import decode_operators

    mixtral = mlcost.model("mixtral-8x7b")
    per_expert = 3 * 4096 * 14336
    for batch, share in ((1, 2 / 8), (4, 1 - (6 / 8) ** 4)):
        table = decode_operators(mixtral, batch, 1024)
        experts = [op for op in table.operators if op.name.startswith("expert ") and op.m]
        weights = sum(op.count * (op.bytes_read - op.m * op.k * 2) for op in experts)
        assert weights == pytest.approx(32 * 8 * per_expert * 2 * share, rel=1e-9)
