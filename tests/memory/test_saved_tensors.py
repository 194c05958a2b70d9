"""Activations saved for backward against PyTorch itself.

Oracle: the Hugging Face ``transformers`` implementation (eager attention, training mode) run
forward on the meta device under ``torch.autograd.graph.saved_tensors_hooks``, each storage
counted once, parameters and buffers excluded. On the meta device dropout takes PyTorch's
composite path, which keeps its mask in the activation dtype, hence ``dropout_mask="dtype"``.
Compared: mlcost's PyTorch-eager profile (layer activations + head activations + the
log-softmax of the loss), for every transformer of the catalog. Tolerance 3% (the issue's);
observed differences are below 0.001% for most models and below 0.1% for Gemma 2 (the int64
label copies, the scalar loss and the small sliding-window mask are not modelled). Deep models are
measured on one to three layer periods and extended to their depth (``tests.oracles.
at_full_depth``), the same bytes exactly.
"""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import mlcost  # noqa: E402
from mlcost.layout import Layout  # noqa: E402
from mlcost.memory import memory_breakdown  # noqa: E402
from mlcost.specs import from_hf_config  # noqa: E402
from mlcost.workload import TrainingConfig  # noqa: E402
from tests.oracles import (  # noqa: E402
    HF_CONFIGS,
    at_full_depth,
    hf_model,
    layer_count_key,
    saved_tensor_bytes,
    training_inputs,
)

POINTS = [(1, 128), (2, 256), (4, 512)]
#: Every transformer of the catalog (the test below checks none is missing).
MODELS = sorted(HF_CONFIGS)
TERMS = ("activations", "head activations", "logits and loss (fp32)")


def test_every_catalog_transformer_has_an_oracle() -> None:
    # Mixture-of-experts models route on real values (not on the meta device): their saved
    # tensors are checked on small CPU models in test_moe_activations.py.
    catalog = {
        m.name
        for m in mlcost.catalog().items("models")
        if m.KIND == "transformer" and m.moe is None  # type: ignore[attr-defined]
    }
    assert catalog == set(HF_CONFIGS)


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_eager_profile_equals_saved_tensors(name: str, precision: str) -> None:
    # The whole model's bytes, measured on models of one, two and three layer periods and
    # extended to its depth (tests.oracles.at_full_depth, which checks they are linear in the
    # layer count; test_the_extension_equals_the_deep_model checks it on a deep model).
    dtype = torch.float32 if precision == "fp32" else torch.bfloat16
    config = HF_CONFIGS[name]
    assert config[layer_count_key(config)] == mlcost.model(name).num_layers
    measured_at = at_full_depth(config, lambda c: saved_at_points(c, dtype))
    for (batch, seq), measured in zip(POINTS, measured_at.tolist(), strict=True):
        config = TrainingConfig(
            sequence_length=seq, attention="eager", precision=precision, dropout_mask="dtype"
        )
        breakdown = memory_breakdown(
            mlcost.model(name), config, None, Layout(micro_batch_size=batch)
        )
        ours = sum(breakdown.term(term).to("byte").magnitude for term in TERMS)
        assert ours == pytest.approx(measured, rel=0.03), (
            name,
            precision,
            batch,
            seq,
            ours / measured - 1,
        )


def saved_at_points(config: dict[str, Any], dtype: Any) -> list[int]:
    """Bytes the model of ``config`` saves for backward at every point."""
    model = hf_model(config, dtype=dtype)
    return [saved_tensor_bytes(model, training_inputs(config, b, s)) for b, s in POINTS]


def test_the_extension_equals_the_deep_model() -> None:
    # The oracle's shortcut against PyTorch on the whole 42-layer Gemma 2 (two kinds of layers
    # alternating): the same bytes, exactly.
    config = HF_CONFIGS["gemma-2-9b"]
    extended = at_full_depth(config, lambda c: saved_at_points(c, torch.bfloat16))
    assert extended.tolist() == saved_at_points(config, torch.bfloat16)


TINY = {
    "gpt2": {
        "model_type": "gpt2",
        "n_embd": 128,
        "n_layer": 2,
        "n_head": 4,
        "vocab_size": 1000,
        "n_positions": 256,
        "resid_pdrop": 0.0,
        "embd_pdrop": 0.0,
        "attn_pdrop": 0.0,
    },
    "llama": {
        "model_type": "llama",
        "hidden_size": 128,
        "intermediate_size": 344,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "vocab_size": 1000,
        "max_position_embeddings": 256,
    },
}


@pytest.mark.parametrize("family", sorted(TINY))
@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_fused_sdpa_path_on_cpu(family: str, precision: str) -> None:
    # Real CPU tensors and PyTorch's scaled_dot_product_attention (the fused CPU kernel, which
    # keeps q, k, v, the output and the log-sum-exp instead of the score matrix).
    config = TINY[family]
    dtype = torch.float32 if precision == "fp32" else torch.bfloat16
    model = hf_model(config, attention="sdpa", dtype=dtype, meta=False, seed=0)
    spec = from_hf_config(config, name=f"tiny-{family}")
    for batch, seq in ((1, 64), (2, 128)):
        measured = saved_tensor_bytes(model, training_inputs(config, batch, seq, meta=False))
        training = TrainingConfig(
            sequence_length=seq, attention="flash", precision=precision, dropout=False
        )
        breakdown = memory_breakdown(spec, training, None, Layout(micro_batch_size=batch))
        ours = sum(breakdown.term(term).to("byte").magnitude for term in TERMS)
        assert ours == pytest.approx(measured, rel=0.03), (family, batch, seq, ours / measured)
