"""PyTorch oracles shared by the tests: the Hugging Face reference implementations built from
config dicts written here (copied by hand from each model's ``config.json`` on the Hugging Face
Hub; ids in the catalog files), on PyTorch's meta device (no weights, no network) or on the CPU,
and what they save for backward.

Importing this module needs ``torch`` and ``transformers`` (the ``dev`` extra).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import transformers

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
MISTRAL_5120 = {
    "model_type": "mistral",
    "vocab_size": 131072,
    "hidden_size": 5120,
    "num_hidden_layers": 40,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "hidden_act": "silu",
    "sliding_window": None,
    "tie_word_embeddings": False,
}
# Qwen2 and Qwen2.5 share these config.json values (Qwen/Qwen2-7B, Qwen/Qwen2.5-*).
QWEN2 = {
    "model_type": "qwen2",
    "vocab_size": 152064,
    "hidden_act": "silu",
    "max_position_embeddings": 131072,
    "rope_theta": 1000000.0,
    "tie_word_embeddings": False,
    "use_sliding_window": False,
    "sliding_window": 131072,
}
GEMMA2 = {
    "model_type": "gemma2",
    "vocab_size": 256000,
    "hidden_activation": "gelu_pytorch_tanh",
    "max_position_embeddings": 8192,
    "sliding_window": 4096,
    "attn_logit_softcapping": 50.0,
    "final_logit_softcapping": 30.0,
    "rope_theta": 10000.0,
}

HF_CONFIGS: dict[str, dict[str, Any]] = {
    "gpt2": {**GPT2, "n_embd": 768, "n_layer": 12, "n_head": 12},
    "gpt2-medium": {**GPT2, "n_embd": 1024, "n_layer": 24, "n_head": 16},
    "gpt2-large": {**GPT2, "n_embd": 1280, "n_layer": 36, "n_head": 20},
    "gpt2-xl": {**GPT2, "n_embd": 1600, "n_layer": 48, "n_head": 25},
    # GPT-3 175B: Brown et al. 2020 Table 2.1 in the GPT-2 architecture, n_ctx 2048, without
    # dropout as the catalog spec has it (the paper states none).
    "gpt3-175b": {
        **GPT2,
        "n_embd": 12288,
        "n_layer": 96,
        "n_head": 96,
        "n_positions": 2048,
        "resid_pdrop": 0.0,
        "embd_pdrop": 0.0,
        "attn_pdrop": 0.0,
    },
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
    # Llama 3.2 1B and 3B: meta-llama/Llama-3.2-1B and -3B config.json (tied embeddings).
    "llama-3.2-1b": {
        **LLAMA3,
        "hidden_size": 2048,
        "intermediate_size": 8192,
        "num_hidden_layers": 16,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "max_position_embeddings": 131072,
        "tie_word_embeddings": True,
    },
    "llama-3.2-3b": {
        **LLAMA3,
        "hidden_size": 3072,
        "intermediate_size": 8192,
        "num_hidden_layers": 28,
        "num_attention_heads": 24,
        "num_key_value_heads": 8,
        "max_position_embeddings": 131072,
        "tie_word_embeddings": True,
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
    # Llama 3.1 8B/70B and 3.3 70B: meta-llama/Llama-3.1-8B, -3.1-70B, -3.3-70B-Instruct
    # config.json (131,072 positions; rope_scaling changes no parameter and is left out).
    "llama-3.1-8b": {
        **LLAMA3,
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "max_position_embeddings": 131072,
    },
    "llama-3.1-70b": {
        **LLAMA3,
        "hidden_size": 8192,
        "intermediate_size": 28672,
        "num_hidden_layers": 80,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "max_position_embeddings": 131072,
    },
    # Mistral NeMo 12B and Mistral Small 3 24B: mistralai/Mistral-Nemo-Base-2407 and
    # Mistral-Small-24B-Base-2501 config.json (head_dim 128 apart from hidden / heads = 160).
    "mistral-nemo-12b": {
        **MISTRAL_5120,
        "intermediate_size": 14336,
        "max_position_embeddings": 1024000,
        "rope_theta": 1000000.0,
    },
    "mistral-small-24b": {
        **MISTRAL_5120,
        "intermediate_size": 32768,
        "max_position_embeddings": 32768,
        "rope_theta": 100000000.0,
    },
    # Qwen2.5 0.5B/7B/14B/32B/72B: Qwen/Qwen2.5-* config.json.
    "qwen2.5-0.5b": {
        **QWEN2,
        "vocab_size": 151936,
        "hidden_size": 896,
        "intermediate_size": 4864,
        "num_hidden_layers": 24,
        "num_attention_heads": 14,
        "num_key_value_heads": 2,
        "max_position_embeddings": 32768,
        "sliding_window": 32768,
        "tie_word_embeddings": True,
    },
    "qwen2.5-7b": {
        **QWEN2,
        "hidden_size": 3584,
        "intermediate_size": 18944,
        "num_hidden_layers": 28,
        "num_attention_heads": 28,
        "num_key_value_heads": 4,
    },
    "qwen2.5-14b": {
        **QWEN2,
        "hidden_size": 5120,
        "intermediate_size": 13824,
        "num_hidden_layers": 48,
        "num_attention_heads": 40,
        "num_key_value_heads": 8,
    },
    "qwen2.5-32b": {
        **QWEN2,
        "hidden_size": 5120,
        "intermediate_size": 27648,
        "num_hidden_layers": 64,
        "num_attention_heads": 40,
        "num_key_value_heads": 8,
    },
    "qwen2.5-72b": {
        **QWEN2,
        "hidden_size": 8192,
        "intermediate_size": 29568,
        "num_hidden_layers": 80,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
    },
    # Gemma 2 2B and 27B: google/gemma-2-2b and -27b config.json.
    "gemma-2-2b": {
        **GEMMA2,
        "hidden_size": 2304,
        "intermediate_size": 9216,
        "num_hidden_layers": 26,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "query_pre_attn_scalar": 256,
    },
    "gemma-2-27b": {
        **GEMMA2,
        "hidden_size": 4608,
        "intermediate_size": 36864,
        "num_hidden_layers": 46,
        "num_attention_heads": 32,
        "num_key_value_heads": 16,
        "head_dim": 128,
        "query_pre_attn_scalar": 144,
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
        **QWEN2,
        "hidden_size": 3584,
        "intermediate_size": 18944,
        "num_hidden_layers": 28,
        "num_attention_heads": 28,
        "num_key_value_heads": 4,
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

# Dense Qwen3: Qwen/Qwen3-0.6B ... Qwen/Qwen3-32B config.json (head_dim 128 throughout; the
# three smallest tie the LM head to the embedding).
QWEN3 = {
    "model_type": "qwen3",
    "vocab_size": 151936,
    "head_dim": 128,
    "hidden_act": "silu",
    "max_position_embeddings": 40960,
    "rope_theta": 1000000.0,
    "attention_bias": False,
    "use_sliding_window": False,
    "sliding_window": None,
}
for _name, (_h, _layers, _heads, _f, _tie) in {
    "qwen3-0.6b": (1024, 28, 16, 3072, True),
    "qwen3-1.7b": (2048, 28, 16, 6144, True),
    "qwen3-4b": (2560, 36, 32, 9728, True),
    "qwen3-8b": (4096, 36, 32, 12288, False),
    "qwen3-14b": (5120, 40, 40, 17408, False),
    "qwen3-32b": (5120, 64, 64, 25600, False),
}.items():
    HF_CONFIGS[_name] = {
        **QWEN3, "hidden_size": _h, "num_hidden_layers": _layers, "num_attention_heads": _heads,
        "num_key_value_heads": 8, "intermediate_size": _f, "tie_word_embeddings": _tie,
    }  # fmt: skip

# Gemma 3's text models: google/gemma-3-1b-pt config.json, and the text_config of
# google/gemma-3-4b-pt, -12b-pt and -27b-pt (their vision towers are not modelled). Keys a
# text_config leaves out take Gemma3TextConfig's defaults, written here.
GEMMA3 = {
    "model_type": "gemma3_text",
    "hidden_activation": "gelu_pytorch_tanh",
    "rope_theta": 1000000.0,
    "rope_local_base_freq": 10000.0,
    "sliding_window_pattern": 6,
    "vocab_size": 262208,
    "max_position_embeddings": 131072,
    "sliding_window": 1024,
    "query_pre_attn_scalar": 256,
    "head_dim": 256,
}
for _name, (_h, _f, _layers, _heads, _kv, _extra) in {
    "gemma-3-1b": (
        1152,
        6912,
        26,
        4,
        1,
        {"vocab_size": 262144, "max_position_embeddings": 32768, "sliding_window": 512},
    ),
    "gemma-3-4b": (2560, 10240, 34, 8, 4, {}),
    "gemma-3-12b": (3840, 15360, 48, 16, 8, {}),
    "gemma-3-27b": (5376, 21504, 62, 32, 16, {"head_dim": 128, "query_pre_attn_scalar": 168}),
}.items():
    HF_CONFIGS[_name] = {
        **GEMMA3, "hidden_size": _h, "intermediate_size": _f, "num_hidden_layers": _layers,
        "num_attention_heads": _heads, "num_key_value_heads": _kv, **_extra,
    }  # fmt: skip

# OLMo 2: allenai/OLMo-2-1124-7B, -1124-13B and -0325-32B config.json.
OLMO2 = {
    "model_type": "olmo2",
    "vocab_size": 100352,
    "hidden_act": "silu",
    "max_position_embeddings": 4096,
    "rope_theta": 500000.0,
    "attention_bias": False,
    "tie_word_embeddings": False,
}
for _name, (_h, _f, _layers, _heads, _kv) in {
    "olmo-2-7b": (4096, 11008, 32, 32, 32),
    "olmo-2-13b": (5120, 13824, 40, 40, 40),
    "olmo-2-32b": (5120, 27648, 64, 40, 8),
}.items():
    HF_CONFIGS[_name] = {
        **OLMO2, "hidden_size": _h, "intermediate_size": _f, "num_hidden_layers": _layers,
        "num_attention_heads": _heads, "num_key_value_heads": _kv,
    }  # fmt: skip

# Phi-3 mini and medium (microsoft/Phi-3-mini-4k-instruct, -medium-4k-instruct) and Phi-4
# (microsoft/phi-4) config.json: model_type phi3.
PHI3 = {
    "model_type": "phi3",
    "hidden_act": "silu",
    "attention_bias": False,
    "tie_word_embeddings": False,
    "resid_pdrop": 0.0,
    "embd_pdrop": 0.0,
    "attention_dropout": 0.0,
}
HF_CONFIGS["phi-3-mini"] = {
    **PHI3, "vocab_size": 32064, "hidden_size": 3072, "intermediate_size": 8192,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 32,
    "max_position_embeddings": 4096, "rope_theta": 10000.0, "sliding_window": 2047,
}  # fmt: skip
HF_CONFIGS["phi-3-medium"] = {
    **PHI3, "vocab_size": 32064, "hidden_size": 5120, "intermediate_size": 17920,
    "num_hidden_layers": 40, "num_attention_heads": 40, "num_key_value_heads": 10,
    "max_position_embeddings": 4096, "rope_theta": 10000.0, "sliding_window": 2047,
}  # fmt: skip
HF_CONFIGS["phi-4"] = {
    **PHI3, "vocab_size": 100352, "hidden_size": 5120, "intermediate_size": 17920,
    "num_hidden_layers": 40, "num_attention_heads": 40, "num_key_value_heads": 10,
    "max_position_embeddings": 16384, "rope_theta": 250000.0, "sliding_window": None,
}  # fmt: skip

# meta-llama/Llama-3.3-70B-Instruct's config.json gives Llama 3.1 70B's values.
HF_CONFIGS["llama-3.3-70b"] = dict(HF_CONFIGS["llama-3.1-70b"])

# Mixture-of-experts models, kept apart from HF_CONFIGS: their routing needs real tensors, so
# the meta-device activation and FLOP tests of the dense models do not apply to them (the MoE
# tests run small real models on the CPU instead). Copied by hand from each model's config.json.
MOE_HF_CONFIGS: dict[str, dict[str, Any]] = {
    "mixtral-8x7b": {
        "model_type": "mixtral",
        "vocab_size": 32000,
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "hidden_act": "silu",
        "max_position_embeddings": 32768,
        "rope_theta": 1000000.0,
        "sliding_window": None,
        "num_local_experts": 8,
        "num_experts_per_tok": 2,
        "tie_word_embeddings": False,
    },
    "qwen1.5-moe-a2.7b": {
        "model_type": "qwen2_moe",
        "vocab_size": 151936,
        "hidden_size": 2048,
        "intermediate_size": 5632,
        "num_hidden_layers": 24,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "hidden_act": "silu",
        "max_position_embeddings": 8192,
        "rope_theta": 1000000.0,
        "decoder_sparse_step": 1,
        "moe_intermediate_size": 1408,
        "shared_expert_intermediate_size": 5632,
        "num_experts": 60,
        "num_experts_per_tok": 4,
        "norm_topk_prob": False,
        "use_sliding_window": False,
        "tie_word_embeddings": False,
    },
    "olmoe-1b-7b": {
        "model_type": "olmoe",
        "vocab_size": 50304,
        "hidden_size": 2048,
        "intermediate_size": 1024,
        "num_hidden_layers": 16,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "hidden_act": "silu",
        "max_position_embeddings": 4096,
        "rope_theta": 10000.0,
        "num_experts": 64,
        "num_experts_per_tok": 8,
        "norm_topk_prob": False,
        "tie_word_embeddings": False,
    },
    "qwen3-235b-a22b": {
        "model_type": "qwen3_moe",
        "vocab_size": 151936,
        "hidden_size": 4096,
        "intermediate_size": 12288,
        "moe_intermediate_size": 1536,
        "num_hidden_layers": 94,
        "num_attention_heads": 64,
        "num_key_value_heads": 4,
        "head_dim": 128,
        "num_experts": 128,
        "num_experts_per_tok": 8,
        "decoder_sparse_step": 1,
        "mlp_only_layers": [],
        "norm_topk_prob": True,
        "hidden_act": "silu",
        "max_position_embeddings": 40960,
        "rope_theta": 1000000.0,
        "tie_word_embeddings": False,
    },
    "deepseek-v3": {
        "model_type": "deepseek_v3",
        "vocab_size": 129280,
        "hidden_size": 7168,
        "intermediate_size": 18432,
        "moe_intermediate_size": 2048,
        "num_hidden_layers": 61,
        "num_attention_heads": 128,
        "num_key_value_heads": 128,
        "n_shared_experts": 1,
        "n_routed_experts": 256,
        "num_experts_per_tok": 8,
        "first_k_dense_replace": 3,
        "n_group": 8,
        "topk_group": 4,
        "routed_scaling_factor": 2.5,
        "norm_topk_prob": True,
        "kv_lora_rank": 512,
        "q_lora_rank": 1536,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "v_head_dim": 128,
        "hidden_act": "silu",
        "max_position_embeddings": 163840,
        "rope_theta": 10000.0,
        "num_nextn_predict_layers": 1,
        "tie_word_embeddings": False,
    },
}

# Small MoE models of each family, run for real on the CPU (routing needs values): a dense
# layer among MoE layers (Qwen2-MoE's mlp_only_layers, DeepSeek-V3's first_k_dense_replace), a
# shared expert, QK-norm (OLMoE), latent attention (DeepSeek-V3). The eager experts
# implementation runs each expert on the tokens routed to it (transformers 5.x).
_TINY = {"vocab_size": 1000, "hidden_size": 128, "max_position_embeddings": 512,
         "experts_implementation": "eager"}  # fmt: skip
TINY_MOE_CONFIGS: dict[str, dict[str, Any]] = {
    "mixtral": {
        **_TINY,
        "model_type": "mixtral",
        "intermediate_size": 96,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "num_local_experts": 8,
        "num_experts_per_tok": 2,
    },
    "qwen2_moe": {
        **_TINY,
        "model_type": "qwen2_moe",
        "intermediate_size": 256,
        "moe_intermediate_size": 64,
        "shared_expert_intermediate_size": 192,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "num_experts": 6,
        "num_experts_per_tok": 3,
        "mlp_only_layers": [1],
    },
    "olmoe": {
        **_TINY,
        "model_type": "olmoe",
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "num_experts": 8,
        "num_experts_per_tok": 2,
        "eos_token_id": 1,
    },
    "deepseek_v3": {
        **_TINY,
        "model_type": "deepseek_v3",
        "intermediate_size": 256,
        "moe_intermediate_size": 64,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "n_shared_experts": 1,
        "n_routed_experts": 8,
        "num_experts_per_tok": 2,
        "first_k_dense_replace": 1,
        "n_group": 2,
        "topk_group": 1,
        "kv_lora_rank": 32,
        "q_lora_rank": 48,
        "qk_nope_head_dim": 16,
        "qk_rope_head_dim": 8,
        "v_head_dim": 16,
    },
}


def importable(config: dict[str, Any]) -> dict[str, Any]:
    """A config dict without the keys that only choose a transformers implementation."""
    return {k: v for k, v in config.items() if k != "experts_implementation"}


# The class each family is trained as: a causal LM, and BERT with its pre-training heads.
HF_CLASSES = {
    "gpt2": ("GPT2Config", "GPT2LMHeadModel"),
    "bert": ("BertConfig", "BertForPreTraining"),
    "llama": ("LlamaConfig", "LlamaForCausalLM"),
    "mistral": ("MistralConfig", "MistralForCausalLM"),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM"),
    "qwen3": ("Qwen3Config", "Qwen3ForCausalLM"),
    "gemma2": ("Gemma2Config", "Gemma2ForCausalLM"),
    "gemma3_text": ("Gemma3TextConfig", "Gemma3ForCausalLM"),
    "olmo2": ("Olmo2Config", "Olmo2ForCausalLM"),
    "phi3": ("Phi3Config", "Phi3ForCausalLM"),
    "mixtral": ("MixtralConfig", "MixtralForCausalLM"),
    "qwen2_moe": ("Qwen2MoeConfig", "Qwen2MoeForCausalLM"),
    "olmoe": ("OlmoeConfig", "OlmoeForCausalLM"),
    "deepseek_v3": ("DeepseekV3Config", "DeepseekV3ForCausalLM"),
    "deepseek_v2": ("DeepseekV2Config", "DeepseekV2ForCausalLM"),
    "qwen3_moe": ("Qwen3MoeConfig", "Qwen3MoeForCausalLM"),
}


def hf_model(
    config: dict[str, Any],
    *,
    attention: str = "eager",
    dtype: Any = None,
    meta: bool = True,
    seed: int | None = None,
) -> Any:
    """The Hugging Face model of ``config`` (its training class), in training mode, on the meta
    device (or on the CPU with ``meta=False``), with the given attention implementation."""
    config_name, model_name = HF_CLASSES[config["model_type"]]
    hf_config = getattr(transformers, config_name)(
        **{k: v for k, v in config.items() if k != "model_type"}
    )
    hf_config._attn_implementation = attention
    if seed is not None:
        torch.manual_seed(seed)
    if meta:
        with torch.device("meta"):
            model = getattr(transformers, model_name)(hf_config)
    else:
        model = getattr(transformers, model_name)(hf_config)
    if dtype is not None:
        model = model.to(dtype)
    model.train()
    return model


def training_inputs(
    config: dict[str, Any], batch: int, seq: int, *, meta: bool = True
) -> dict[str, Any]:
    """Token ids as inputs and labels (and BERT's next-sentence label)."""
    device = "meta" if meta else "cpu"
    vocab = int(config.get("vocab_size", 1000))
    ids = (
        torch.zeros(batch, seq, dtype=torch.long, device=device)
        if meta
        else torch.randint(0, vocab, (batch, seq))
    )
    inputs: dict[str, Any] = {"input_ids": ids, "labels": ids}
    if config["model_type"] == "bert":
        inputs["next_sentence_label"] = torch.zeros(batch, dtype=torch.long, device=device)
    return inputs


def saved_tensor_bytes(model: Any, inputs: dict[str, Any]) -> int:
    """Bytes the forward pass of ``model`` saves for backward, under
    ``torch.autograd.graph.saved_tensors_hooks``: each storage saved during the forward counted
    once, parameters and buffers excluded."""
    exclude = {id(p.untyped_storage()) for p in model.parameters()}
    exclude |= {id(b.untyped_storage()) for b in model.buffers()}
    # Keyed by the storage object's id, each storage held until the end: a storage released
    # during the forward (DeepSeek-V3's router saves one on a branch whose graph dies) could
    # otherwise hand its id to a later storage, which would then go uncounted, as often as the
    # allocator reuses the address (0.9 % under on DeepSeek-V3 in most runs, once 14 %).
    seen: dict[int, tuple[int, Any]] = {}

    def pack(tensor: Any) -> Any:
        storage = tensor.untyped_storage()
        key = id(storage)
        if key not in exclude and key not in seen:
            seen[key] = (int(storage.nbytes()), storage)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(**inputs)
    return sum(nbytes for nbytes, _ in seen.values())


def parameter_count(model: Any) -> int:
    """Parameters of a module (``parameters()`` yields tied tensors once)."""
    return sum(p.numel() for p in model.parameters())


def layer_count_key(config: dict[str, Any]) -> str:
    """The key of a config dict that holds its number of layers."""
    return "n_layer" if config["model_type"] == "gpt2" else "num_hidden_layers"


def layer_period(config: dict[str, Any]) -> int:
    """After how many layers a model's layers repeat: Gemma 2 alternates sliding-window and
    global attention layers (2), Gemma 3 has a global layer every ``sliding_window_pattern``
    (6); the other dense models repeat one layer (1)."""
    if config["model_type"] == "gemma2":
        return 2
    if config["model_type"] == "gemma3_text":
        return int(config.get("sliding_window_pattern", 6))
    return 1


def at_full_depth(config: dict[str, Any], measure: Callable[[dict[str, Any]], Any]) -> Any:
    """``measure`` (a count, or an array of counts, taken on a model built from a config) at the
    full depth ``L = k·p + r`` of ``config`` (``p`` :func:`layer_period`, ``0 <= r < p``),
    measured on models of ``p + r``, ``2p + r`` and ``3p + r`` layers instead of on the deep
    model itself.

    Every ``p`` layers are the same modules running the same operations, and the ``r`` layers
    after the last whole period are the first ``r`` of a period, so a count of the whole model
    is ``a + b·k``: ``f(L) = f(p + r) + (k - 1)·(f(2p + r) - f(p + r))``. The third depth checks
    that this holds exactly (``f(3p + r) - f(2p + r) == f(2p + r) - f(p + r)``) and raises
    AssertionError where it does not, so a model whose layers differ cannot pass through the
    extrapolation."""
    key, period = layer_count_key(config), layer_period(config)
    layers = int(config[key])
    periods, rest = divmod(layers, period)
    if periods < 1:
        raise AssertionError(f"{layers} layers is less than one period of {period}")
    first, second, third = (measure({**config, key: period * j + rest}) for j in (1, 2, 3))
    step = np.asarray(second) - np.asarray(first)
    if not np.array_equal(np.asarray(third) - np.asarray(second), step):
        raise AssertionError(f"not linear in the layer count: {first}, {second}, {third}")
    return np.asarray(first) + (periods - 1) * step
