"""The key-value cache: what a served transformer keeps per token, per sequence and per batch.

Per layer and per cached token, an attention kind stores (elements):

* multi-head, grouped-query and multi-query attention (Vaswani et al. 2017; Ainslie et al. 2023,
  "GQA"; Shazeer 2019, "MQA"): a key and a value per key-value head, ``2 · n_kv · d``;
* multi-head latent attention (DeepSeek-AI 2024, "DeepSeek-V2", section 2.1.2 and Table 1):
  the compressed latent and the decoupled rotary key, ``d_c + d_rope`` (512 + 64 for
  DeepSeek-V2/V3), once for all heads, as serving engines cache it (vLLM's and SGLang's MLA
  backends); the latent is not split by tensor parallelism (every rank keeps it whole). Hugging
  Face ``transformers`` caches the expanded per-head keys and values instead; the decode FLOPs
  of the table stay those of the expanded attention (the absorbed form computes scores over
  ``d_c + d_rope`` per head: more FLOPs, the same bytes).

A layer of a sliding window ``w`` (Mistral, Gemma 2's local layers) keeps only the last ``w - 1``
tokens between steps (the next query brings its own key, so it attends to ``w``): Hugging Face's
``DynamicSlidingWindowLayer`` allocates exactly that, and the tests check it. Under tensor
parallelism each rank holds ``max(1, n_kv / t)`` heads (vLLM replicates a key-value head when
there are more ranks than heads).

Paged allocation (Kwon et al. 2023, "Efficient Memory Management for Large Language Model
Serving with PagedAttention", section 4.2): a sequence of ``n`` cached tokens takes
``ceil(n / B)`` blocks of ``B`` tokens; the unused slots of its last block are the internal
fragmentation ``1 - n / (B · ceil(n / B))``.

All functions accept numpy arrays for the counts (context lengths, batch sizes).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pint

from mlcost.arrays import Real, plain
from mlcost.checks import counts, finite
from mlcost.errors import MlcostError
from mlcost.serving.formats import element_bytes
from mlcost.specs import TransformerSpec
from mlcost.specs.catalog import as_model
from mlcost.units import Q_
from mlcost.workload import TrainingConfig
from mlcost.workload.builder import attention_layers


def _transformer(model: TransformerSpec | str) -> TransformerSpec:
    """The model a cache formula is given (a spec or a catalog name), checked to be a
    transformer."""
    spec = as_model(model)
    if not isinstance(spec, TransformerSpec):
        raise MlcostError(f"model: {spec.name} is a {spec.KIND}; a KV cache needs a transformer")
    return spec


def attention_kind(model: TransformerSpec | str) -> str:
    """The attention kind of the spec (:attr:`mlcost.specs.TransformerSpec.attention_kind`:
    ``mha``, ``gqa``, ``mqa`` or ``mla``), which keys :data:`CACHE_WIDTHS`."""
    return _transformer(model).attention_kind


def _key_value_width(model: TransformerSpec, tensor_parallel: int) -> float:
    heads = max(1.0, model.kv_heads / tensor_parallel)
    return 2.0 * heads * model.head_size


def _latent_width(model: TransformerSpec, tensor_parallel: int) -> float:
    latent = model.latent_attention
    if latent is None:
        raise MlcostError(f"{model.name}: the mla cache width needs latent_attention in the spec")
    return float(latent.kv_lora_rank + latent.qk_rope_head_dim)


#: Elements cached per token per layer on one tensor-parallel rank, by attention kind.
CACHE_WIDTHS: dict[str, Callable[[TransformerSpec, int], float]] = {
    "mha": _key_value_width,
    "gqa": _key_value_width,
    "mqa": _key_value_width,
    "mla": _latent_width,
}


def cache_elements_per_token(model: TransformerSpec | str, tensor_parallel: int = 1) -> float:
    """Elements one layer caches per token on one rank (module docstring)."""
    spec = _transformer(model)
    counts(tensor_parallel, "tensor_parallel")
    return CACHE_WIDTHS[attention_kind(spec)](spec, tensor_parallel)


def cached_tokens(context: Real, window: Real | None = None) -> Real:
    """Tokens a layer keeps after ``context`` tokens: all of them, or ``min(context, w - 1)``
    under a sliding window of ``w``."""
    context = np.asarray(finite(context, "context"), dtype=np.float64)
    if window is not None:
        counts(window, "window")
    if window is None:
        return plain(context)
    return plain(np.minimum(context, float(window) - 1.0))


def cache_layers(model: TransformerSpec | str) -> list[tuple[int, int | None]]:
    """``(layers, window)`` per attention pattern of the model (window ``None``: global)."""
    return [
        (count, pattern.get("window"))
        for _, count, pattern in attention_layers(_transformer(model), TrainingConfig())
        if count
    ]


def kv_bytes_per_token(
    model: TransformerSpec | str, kv_format: str = "bf16", *, tensor_parallel: int = 1
) -> pint.Quantity:
    """Bytes one token adds to the cache of every layer on one rank (before any window cap):
    ``L · width · e`` with ``width`` from :func:`cache_elements_per_token` and ``e`` the bytes
    per element of ``kv_format``. Llama-3-8B in BF16: ``32 · 2 · 8 · 128 · 2 = 131,072`` bytes
    (128 KiB) per token."""
    e = element_bytes(kv_format, field="kv_format")
    width = cache_elements_per_token(model, tensor_parallel)
    return Q_(_transformer(model).num_layers * width * e, "byte/token")


def paged_tokens(tokens: Real, block_size: int | None) -> Real:
    """Token slots ``B · ceil(n / B)`` that ``n`` cached tokens take in blocks of ``B`` (``n``
    itself without paging, ``block_size`` None; 0 is refused, never read as "no paging")."""
    tokens = np.asarray(finite(tokens, "tokens"), dtype=np.float64)
    if block_size is None:
        return plain(tokens)
    counts(block_size, "block_size")
    return plain(block_size * np.ceil(tokens / block_size))


def paged_fragmentation(tokens: Real, block_size: int) -> Real:
    """Share of the allocated slots left empty: ``1 - n / (B · ceil(n / B))`` (0 for no token)."""
    tokens = np.asarray(tokens, dtype=np.float64)
    slots = np.asarray(paged_tokens(tokens, block_size), dtype=np.float64)
    return plain(np.where(slots > 0, 1.0 - tokens / np.where(slots > 0, slots, 1.0), 0.0))


def kv_cache_bytes(
    model: TransformerSpec | str,
    context: Real,
    batch: Real = 1,
    kv_format: str = "bf16",
    *,
    tensor_parallel: int = 1,
    block_size: int | None = None,
) -> pint.Quantity:
    """Bytes of the cache of ``batch`` sequences of ``context`` tokens on one rank:
    ``b · e · width · sum over patterns of layers · slots(cached_tokens(C, w))``. ``context``
    and ``batch`` are finite and >= 0 (arrays: every element)."""
    e = element_bytes(kv_format, field="kv_format")
    spec = _transformer(model)
    finite(batch, "batch")
    width = cache_elements_per_token(spec, tensor_parallel)
    total: Real = 0.0
    for layers, window in cache_layers(spec):
        slots = paged_tokens(cached_tokens(context, window), block_size)
        total = total + layers * np.asarray(slots, dtype=np.float64)
    return Q_(plain(np.asarray(batch, dtype=np.float64) * total * width * e), "byte")


__all__ = [
    "CACHE_WIDTHS",
    "attention_kind",
    "cache_elements_per_token",
    "cache_layers",
    "cached_tokens",
    "kv_bytes_per_token",
    "kv_cache_bytes",
    "paged_fragmentation",
    "paged_tokens",
]
