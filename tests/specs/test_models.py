"""Derived parameter counts against the reference implementations.

The oracle is Hugging Face ``transformers`` building each model on PyTorch's meta device (no
weights, no network) from the config dict written below, copied by hand from the model's
``config.json`` on the Hugging Face Hub (ids in the catalog files). Counts must be equal: a
parameter count is an integer and there is no rounding anywhere.
"""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")  # dev dependency; present in CI (see pyproject [dev])
transformers = pytest.importorskip("transformers")

from mlcost.specs import Catalog, from_hf_config  # noqa: E402

GPT2 = {
    "model_type": "gpt2",
    "vocab_size": 50257,
    "n_positions": 1024,
    "activation_function": "gelu_new",
}
LLAMA2 = {
    "model_type": "llama",
    "vocab_size": 32000,
    "max_position_embeddings": 4096,
    "hidden_act": "silu",
    "rope_theta": 10000.0,
    "tie_word_embeddings": False,
}
LLAMA3 = {**LLAMA2, "vocab_size": 128256, "max_position_embeddings": 8192, "rope_theta": 500000.0}

HF_CONFIGS: dict[str, dict[str, Any]] = {
    "gpt2": {**GPT2, "n_embd": 768, "n_layer": 12, "n_head": 12},
    "gpt2-medium": {**GPT2, "n_embd": 1024, "n_layer": 24, "n_head": 16},
    "gpt2-large": {**GPT2, "n_embd": 1280, "n_layer": 36, "n_head": 20},
    "gpt2-xl": {**GPT2, "n_embd": 1600, "n_layer": 48, "n_head": 25},
    # GPT-3 175B: Brown et al. 2020 Table 2.1 in the GPT-2 architecture, n_ctx 2048.
    "gpt3-175b": {**GPT2, "n_embd": 12288, "n_layer": 96, "n_head": 96, "n_positions": 2048},
    "bert-base": {
        "model_type": "bert",
        "vocab_size": 30522,
        "hidden_size": 768,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "intermediate_size": 3072,
        "hidden_act": "gelu",
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
    },
    "bert-large": {
        "model_type": "bert",
        "vocab_size": 30522,
        "hidden_size": 1024,
        "num_hidden_layers": 24,
        "num_attention_heads": 16,
        "intermediate_size": 4096,
        "hidden_act": "gelu",
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
    },
    "llama-2-7b": {
        **LLAMA2,
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 32,
    },
    "llama-2-13b": {
        **LLAMA2,
        "hidden_size": 5120,
        "intermediate_size": 13824,
        "num_hidden_layers": 40,
        "num_attention_heads": 40,
        "num_key_value_heads": 40,
    },
    "llama-2-70b": {
        **LLAMA2,
        "hidden_size": 8192,
        "intermediate_size": 28672,
        "num_hidden_layers": 80,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
    },
    "llama-3-8b": {
        **LLAMA3,
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
    },
    "llama-3-70b": {
        **LLAMA3,
        "hidden_size": 8192,
        "intermediate_size": 28672,
        "num_hidden_layers": 80,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
    },
    "llama-3.1-405b": {
        **LLAMA3,
        "hidden_size": 16384,
        "intermediate_size": 53248,
        "num_hidden_layers": 126,
        "num_attention_heads": 128,
        "num_key_value_heads": 8,
        "max_position_embeddings": 131072,
    },
    "mistral-7b": {
        "model_type": "mistral",
        "vocab_size": 32000,
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "hidden_act": "silu",
        "sliding_window": 4096,
        "max_position_embeddings": 32768,
        "rope_theta": 10000.0,
        "tie_word_embeddings": False,
    },
    "qwen2-7b": {
        "model_type": "qwen2",
        "vocab_size": 152064,
        "hidden_size": 3584,
        "intermediate_size": 18944,
        "num_hidden_layers": 28,
        "num_attention_heads": 28,
        "num_key_value_heads": 4,
        "hidden_act": "silu",
        "max_position_embeddings": 131072,
        "rope_theta": 1000000.0,
        "tie_word_embeddings": False,
        "use_sliding_window": False,
        "sliding_window": 131072,
    },
    "gemma-2-9b": {
        "model_type": "gemma2",
        "vocab_size": 256000,
        "hidden_size": 3584,
        "intermediate_size": 14336,
        "num_hidden_layers": 42,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "head_dim": 256,
        "hidden_activation": "gelu_pytorch_tanh",
        "max_position_embeddings": 8192,
        "sliding_window": 4096,
        "attn_logit_softcapping": 50.0,
        "final_logit_softcapping": 30.0,
        "query_pre_attn_scalar": 256,
        "rope_theta": 10000.0,
    },
}

# The class each family is trained as: a causal LM, and BERT with its pre-training heads.
HF_CLASSES = {
    "gpt2": ("GPT2Config", "GPT2LMHeadModel"),
    "bert": ("BertConfig", "BertForPreTraining"),
    "llama": ("LlamaConfig", "LlamaForCausalLM"),
    "mistral": ("MistralConfig", "MistralForCausalLM"),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM"),
    "gemma2": ("Gemma2Config", "Gemma2ForCausalLM"),
}


def hf_parameter_count(config: dict[str, Any]) -> int:
    config_name, model_name = HF_CLASSES[config["model_type"]]
    fields = {k: v for k, v in config.items() if k != "model_type"}
    hf_config = getattr(transformers, config_name)(**fields)
    with torch.device("meta"):
        model = getattr(transformers, model_name)(hf_config)
    # parameters() yields each tensor once, so tied embeddings count once.
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("name", sorted(HF_CONFIGS))
def test_catalog_parameter_count_equals_transformers(catalog: Catalog, name: str) -> None:
    config = HF_CONFIGS[name]
    expected = hf_parameter_count(config)
    spec = catalog.transformer(name)
    assert spec.parameter_count == expected
    assert spec.parameters.to("param").magnitude == expected
    # The offline importer reads the same config.json into an equal architecture.
    imported = from_hf_config(config, name=name)
    assert imported.parameter_count == expected


def test_every_catalog_transformer_is_checked(catalog: Catalog) -> None:
    transformers_in_catalog = {s.name for s in catalog.items("models") if s.KIND == "transformer"}
    assert transformers_in_catalog == set(HF_CONFIGS)


def test_resnet50_parameter_count(catalog: Catalog) -> None:
    resnet = catalog.model("resnet-50")
    # torchvision's published figure (ResNet50_Weights.IMAGENET1K_V1.meta["num_params"]).
    assert resnet.parameter_count == 25_557_032
    # And Hugging Face's independent implementation (ResNetConfig defaults are ResNet-50).
    with torch.device("meta"):
        hf = transformers.ResNetForImageClassification(transformers.ResNetConfig(num_labels=1000))
    assert resnet.parameter_count == sum(p.numel() for p in hf.parameters())


def test_resnet18_basic_blocks() -> None:
    # He et al. 2016 Table 1: ResNet-18 is basic blocks [2, 2, 2, 2]; torchvision publishes
    # 11,689,512 parameters for it (ResNet18_Weights.IMAGENET1K_V1).
    from mlcost.specs import ConvNetSpec

    resnet18 = ConvNetSpec(
        name="resnet-18", block="basic", stage_blocks=(2, 2, 2, 2), stage_widths=(64, 128, 256, 512)
    )
    assert resnet18.parameter_count == 11_689_512


def test_gpt2_small_hand_derivation(catalog: Catalog) -> None:
    # 12·L·h² + 13·L·h + (V + P)·h + 2·h for GPT-2 (tied head), written out:
    h, layers, vocab, positions = 768, 12, 50257, 1024
    per_layer = (3 * h * h + 3 * h) + (h * h + h) + (2 * h * 4 * h + 4 * h + h) + 2 * (2 * h)
    total = layers * per_layer + (vocab + positions) * h + 2 * h
    assert catalog.model("gpt2").parameter_count == total == 124_439_808
