"""Import a Hugging Face ``config.json`` into a :class:`TransformerSpec`, offline.

No ``transformers`` and no network: the file is read as JSON and mapped field by field for the
families whose reference implementations we match exactly (``gpt2``, ``llama``, ``mistral``,
``qwen2``, ``qwen3``, ``gemma2``, ``gemma3_text`` (and ``gemma3``'s text model), ``olmo2``,
``phi3`` (Phi-3 and Phi-4), ``bert``, and the mixture-of-experts families ``mixtral``,
``qwen2_moe``, ``qwen3_moe``, ``olmoe``, ``deepseek_v2`` and ``deepseek_v3``). Defaults for keys
a config omits are those of the matching ``transformers`` configuration class.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from mlcost.errors import SpecError, closest_names
from mlcost.io import read_input_text
from mlcost.specs.kinds import spec_from_dict
from mlcost.specs.models import TransformerSpec

_ACTIVATIONS = {
    "gelu": "gelu",
    "gelu_new": "gelu-tanh",
    "gelu_pytorch_tanh": "gelu-tanh",
    "gelu_fast": "gelu-tanh",
    "silu": "silu",
    "swish": "silu",
    "relu": "relu",
    "relu2": "relu2",
}


def _activation(value: Any) -> str:
    key = str(value)
    if key not in _ACTIVATIONS:
        raise SpecError([f"hidden_act: got {key!r}, expected one of {', '.join(_ACTIVATIONS)}"])
    return _ACTIVATIONS[key]


def _required(c: Mapping[str, Any], key: str) -> int:
    """A shape field the config must give (a library default would be a guess presented as
    the model's own number)."""
    value = c.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SpecError(
            [
                f"{key}: got {value!r}, expected a whole number >= 1 (the config.json of the model "
                "gives it; it is not defaulted)"
            ]
        )
    return value


def _gpt2(c: Mapping[str, Any]) -> dict[str, Any]:
    h = _required(c, "n_embd")
    return {
        "hidden_size": h,
        "num_layers": _required(c, "n_layer"),
        "num_attention_heads": _required(c, "n_head"),
        "ffn_hidden_size": c.get("n_inner") or 4 * h,
        "activation": _activation(c.get("activation_function", "gelu_new")),
        "norm": "layernorm",
        "vocab_size": _required(c, "vocab_size"),
        "max_position_embeddings": c.get("n_positions", 1024),
        "position_encoding": "learned",
        "tie_word_embeddings": c.get("tie_word_embeddings", True),
        "qkv_bias": True,
        "attn_out_bias": True,
        "mlp_bias": True,
        "hidden_dropout": c.get("resid_pdrop", 0.1),
        "attention_dropout": c.get("attn_pdrop", 0.1),
        "fused_qkv": True,
        "activation_decomposed": c.get("activation_function", "gelu_new") == "gelu_new",
    }


def _llama_like(c: Mapping[str, Any], *, tie_default: bool = False) -> dict[str, Any]:
    heads = _required(c, "num_attention_heads")
    hidden = _required(c, "hidden_size")
    attention_bias = bool(c.get("attention_bias", False))
    spec: dict[str, Any] = {
        "hidden_size": hidden,
        "num_layers": _required(c, "num_hidden_layers"),
        "num_attention_heads": heads,
        "num_kv_heads": c.get("num_key_value_heads") or heads,
        "ffn_hidden_size": _required(c, "intermediate_size"),
        "gated_mlp": True,
        "activation": _activation(c.get("hidden_act", "silu")),
        "norm": "rmsnorm",
        "vocab_size": _required(c, "vocab_size"),
        "max_position_embeddings": c.get("max_position_embeddings", 2048),
        "position_encoding": "rotary",
        "tie_word_embeddings": c.get("tie_word_embeddings", tie_default),
        "qkv_bias": attention_bias,
        "attn_out_bias": attention_bias,
        "mlp_bias": bool(c.get("mlp_bias", False)),
        "softmax_in_fp32": True,
    }
    if c.get("head_dim"):
        spec["head_dim"] = c["head_dim"]
    if c.get("rope_theta"):
        spec["rope_theta"] = float(c["rope_theta"])
    if c.get("attention_dropout"):
        spec["attention_dropout"] = float(c["attention_dropout"])
    return spec


def _llama(c: Mapping[str, Any]) -> dict[str, Any]:
    return _llama_like(c)


def _mistral(c: Mapping[str, Any]) -> dict[str, Any]:
    spec = _llama_like(c)
    if c.get("sliding_window"):
        spec["sliding_window"] = c["sliding_window"]
    return spec


def _qwen2(c: Mapping[str, Any]) -> dict[str, Any]:
    spec = _llama_like(c)
    spec["qkv_bias"], spec["attn_out_bias"] = True, False
    if c.get("use_sliding_window") and c.get("sliding_window"):
        spec["sliding_window"] = c["sliding_window"]
    return spec


def _gemma2(c: Mapping[str, Any]) -> dict[str, Any]:
    spec = _llama_like(c, tie_default=True)
    spec["activation"] = _activation(
        c.get("hidden_activation") or c.get("hidden_act", "gelu_pytorch_tanh")
    )
    spec["norm_placement"] = "sandwich"
    spec["head_dim"] = c.get("head_dim", 256)
    if c.get("sliding_window"):
        spec["sliding_window"] = c["sliding_window"]
        spec["global_attention_every"] = 2
    for key, field in (
        ("attn_logit_softcapping", "attention_logit_softcap"),
        ("final_logit_softcapping", "final_logit_softcap"),
    ):
        if c.get(key):
            spec[field] = float(c[key])
    return spec


def _gemma3(c: Mapping[str, Any]) -> dict[str, Any]:
    """Gemma 3's text model (transformers ``Gemma3TextConfig``, ``model_type`` ``gemma3_text``;
    a ``gemma3`` config.json nests it under ``text_config``, read alone: the vision tower is not
    modelled): Gemma 2's sandwich norms and scaled, tied embeddings, per-head QK-norm in place
    of the logit soft-capping, and a sliding-window layer pattern where every
    ``sliding_window_pattern``-th layer (6 by default) is global."""
    spec = _gemma2(c)
    spec["qk_norm"], spec["qk_norm_per_head"] = True, True
    spec["norm_in_fp32"] = True
    spec["max_position_embeddings"] = c.get("max_position_embeddings", 131072)
    if c.get("sliding_window"):
        spec["global_attention_every"] = _global_every(c)
    return spec


def _global_every(c: Mapping[str, Any]) -> int:
    """Every how many layers Gemma 3 attends globally: ``sliding_window_pattern`` (6 by
    default), or read from ``layer_types`` where the config lists them, which must then follow
    that rule (layer ``i`` global when ``(i + 1) % every == 0``)."""
    every = int(c.get("sliding_window_pattern") or c.get("_sliding_window_pattern") or 6)
    types = c.get("layer_types")
    if not types:
        return every
    if "full_attention" in types:
        every = list(types).index("full_attention") + 1
    expected = [
        "full_attention" if (i + 1) % every == 0 else "sliding_attention" for i in range(len(types))
    ]
    if list(types) != expected:
        raise SpecError(
            [
                "layer_types: expected a global ('full_attention') layer every "
                f"{every} layers and sliding ones between; another pattern is not modelled"
            ]
        )
    return every


def _gemma3_outer(c: Mapping[str, Any]) -> dict[str, Any]:
    text = c.get("text_config")
    if not isinstance(text, Mapping):
        raise SpecError(["text_config: missing; a gemma3 config.json nests the text model there"])
    return _gemma3(text)


def _phi3(c: Mapping[str, Any]) -> dict[str, Any]:
    """Phi-3 and Phi-4 (transformers ``Phi3Config``): Llama's shapes with the query, key and
    value projections in one GEMM (``qkv_proj``) and the gate and up projections in one
    (``gate_up_proj``): the same parameters and FLOPs as separate ones, and what they save
    equals the separate projections' (q and k leave through the rotary embedding, v as a view
    of the fused output, gate and up as two views of one output). A sliding window where the
    config gives one. A partial rotary factor (Phi-4-mini) is refused: not modelled."""
    if float(c.get("partial_rotary_factor", 1.0)) != 1.0:
        raise SpecError(
            [
                f"partial_rotary_factor: got {c['partial_rotary_factor']!r}, expected 1.0 (rotary "
                "embedding on part of each head is not modelled)"
            ]
        )
    spec = _llama_like(c)
    if c.get("sliding_window"):
        spec["sliding_window"] = c["sliding_window"]
    return spec


def _olmo2(c: Mapping[str, Any]) -> dict[str, Any]:
    """OLMo 2 (transformers ``Olmo2Config``): Llama-like, with RMSNorm on each sublayer's output
    before its residual add and none before it (``reordered``), QK-norm over the whole query and
    key projections (OLMoE's), and the norm weight applied in FP32 (``Olmo2RMSNorm``:
    ``(self.weight * hidden_states).to(input_dtype)`` on FP32 hidden states)."""
    spec = _llama_like(c)
    spec["norm_placement"] = "reordered"
    spec["qk_norm"] = True
    spec["norm_in_fp32"] = True
    return spec


def _bert(c: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "architecture": "encoder",
        "hidden_size": _required(c, "hidden_size"),
        "num_layers": _required(c, "num_hidden_layers"),
        "num_attention_heads": _required(c, "num_attention_heads"),
        "ffn_hidden_size": _required(c, "intermediate_size"),
        "activation": _activation(c.get("hidden_act", "gelu")),
        "norm": "layernorm",
        "norm_placement": "post",
        "final_norm": False,
        "embedding_norm": True,
        "vocab_size": _required(c, "vocab_size"),
        "max_position_embeddings": c.get("max_position_embeddings", 512),
        "position_encoding": "learned",
        "type_vocab_size": c.get("type_vocab_size", 2),
        "tie_word_embeddings": c.get("tie_word_embeddings", True),
        "qkv_bias": True,
        "attn_out_bias": True,
        "mlp_bias": True,
        "lm_head_bias": True,
        "lm_head_transform": True,
        "pooler": True,
        "nsp_head": True,
        "hidden_dropout": c.get("hidden_dropout_prob", 0.1),
        "attention_dropout": c.get("attention_probs_dropout_prob", 0.1),
    }


def _experts(c: Mapping[str, Any], count_key: str, ffn_key: str) -> dict[str, Any]:
    """The fields of a :class:`~mlcost.specs.models.MixtureOfExperts` every MoE family shares."""
    return {
        "num_experts": _required(c, count_key),
        "experts_per_token": _required(c, "num_experts_per_tok"),
        "expert_ffn_size": _required(c, ffn_key),
        # transformers adds the load-balancing loss only when the config asks for router logits
        "aux_loss": bool(c.get("output_router_logits", False)),
    }


def _mixtral(c: Mapping[str, Any]) -> dict[str, Any]:
    spec = _mistral(c)
    spec["moe"] = {**_experts(c, "num_local_experts", "intermediate_size")}
    return spec


def _qwen2_moe(c: Mapping[str, Any]) -> dict[str, Any]:
    spec = _qwen2(c)
    spec["qkv_bias"] = bool(c.get("qkv_bias", True))
    shared = c.get("shared_expert_intermediate_size", 5632)
    spec["moe"] = {
        **_experts(c, "num_experts", "moe_intermediate_size"),
        "every": c.get("decoder_sparse_step", 1),
        "dense_layers": tuple(c.get("mlp_only_layers") or ()),
        "normalize_top_k": bool(c.get("norm_topk_prob", False)),
        **({"num_shared_experts": 1, "shared_expert_ffn_size": shared} if shared else {}),
        "shared_expert_gate": bool(shared),
    }
    return spec


def _qwen3(c: Mapping[str, Any]) -> dict[str, Any]:
    """Dense Qwen3 (transformers ``Qwen3Config``): Llama-like attention without bias and with
    per-head QK-norm (``head_dim`` given, 128 in the released configs)."""
    spec = _llama_like(c)
    spec["qk_norm"], spec["qk_norm_per_head"] = True, True
    if c.get("use_sliding_window") and c.get("sliding_window"):
        spec["sliding_window"] = c["sliding_window"]
    return spec


def _qwen3_moe(c: Mapping[str, Any]) -> dict[str, Any]:
    """Qwen3-MoE (transformers ``Qwen3MoeConfig``): dense Qwen3's attention (:func:`_qwen3`),
    no shared expert, routed experts every ``decoder_sparse_step`` layers except
    ``mlp_only_layers``."""
    spec = _qwen3(c)
    spec["moe"] = {
        **_experts(c, "num_experts", "moe_intermediate_size"),
        "every": c.get("decoder_sparse_step", 1),
        "dense_layers": tuple(c.get("mlp_only_layers") or ()),
        "normalize_top_k": bool(c.get("norm_topk_prob", False)),
    }
    return spec


def _olmoe(c: Mapping[str, Any]) -> dict[str, Any]:
    spec = _llama_like(c)
    spec["qk_norm"] = True
    spec["moe"] = {
        **_experts(c, "num_experts", "intermediate_size"),
        "normalize_top_k": bool(c.get("norm_topk_prob", False)),
    }
    return spec


def _deepseek_v3(c: Mapping[str, Any]) -> dict[str, Any]:
    spec = _llama_like(c)
    spec.pop("head_dim", None)
    shared = c.get("n_shared_experts", 1) or 0
    spec["moe"] = {
        **_experts(c, "n_routed_experts", "moe_intermediate_size"),
        "num_shared_experts": shared,
        "first_dense_layers": c.get("first_k_dense_replace", 3) or 0,
        "score_correction_bias": True,
        "router_score": "sigmoid",
        "router_in_fp32": True,
        "normalize_top_k": bool(c.get("norm_topk_prob", True)),
    }
    spec["latent_attention"] = {
        "q_lora_rank": c.get("q_lora_rank", 1536),
        "kv_lora_rank": _required(c, "kv_lora_rank"),
        "qk_nope_head_dim": _required(c, "qk_nope_head_dim"),
        "qk_rope_head_dim": _required(c, "qk_rope_head_dim"),
        "v_head_dim": _required(c, "v_head_dim"),
    }
    return spec


def _deepseek_v2(c: Mapping[str, Any]) -> dict[str, Any]:
    """DeepSeek-V2 (transformers ``DeepseekV2Config``): the latent attention and shared experts of
    V3 (``q_lora_rank`` null: a full-rank query, V2-Lite), a softmax router in FP32 without
    V3's score-correction bias, ``first_k_dense_replace`` 0 and 2 shared experts by default."""
    spec = _deepseek_v3(c)
    moe = spec["moe"]
    moe["num_shared_experts"] = c.get("n_shared_experts", 2) or 0
    moe["first_dense_layers"] = c.get("first_k_dense_replace", 0) or 0
    moe["score_correction_bias"] = False
    moe["router_score"] = "softmax"
    moe["normalize_top_k"] = bool(c.get("norm_topk_prob", False))
    return spec


FAMILIES: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "gpt2": _gpt2,
    "llama": _llama,
    "mistral": _mistral,
    "qwen2": _qwen2,
    "qwen3": _qwen3,
    "gemma2": _gemma2,
    "gemma3_text": _gemma3,
    "gemma3": _gemma3_outer,
    "olmo2": _olmo2,
    "phi3": _phi3,
    "bert": _bert,
    "mixtral": _mixtral,
    "qwen2_moe": _qwen2_moe,
    "qwen3_moe": _qwen3_moe,
    "olmoe": _olmoe,
    "deepseek_v2": _deepseek_v2,
    "deepseek_v3": _deepseek_v3,
}


def _default_name(config: Mapping[str, Any], source: str | None) -> str:
    raw = str(config.get("_name_or_path") or (Path(source).parent.name if source else "") or "")
    raw = raw.rsplit("/", 1)[-1].lower()
    name = re.sub(r"[^a-z0-9.\-]+", "-", raw).strip("-.")
    fallback = re.sub(r"[^a-z0-9.\-]+", "-", str(config.get("model_type", "model")).lower())
    return name or fallback.strip("-.") or "model"


def _refuse_constant(name: str) -> float:
    raise json.JSONDecodeError(f"{name} is not a finite number; expected a finite number", name, 0)


def from_hf_config(
    config: Mapping[str, Any] | str | Path, *, name: str | None = None
) -> TransformerSpec:
    """Build a :class:`TransformerSpec` from a Hugging Face ``config.json`` (a path or a dict).

    The spec's parameter count then equals that of the ``*ForCausalLM`` class of the family
    (``BertForPreTraining`` for BERT).
    """
    source: str | None = None
    if isinstance(config, (str, Path)):
        source = str(config)
        text = read_input_text(config)
        try:
            data = json.loads(text, parse_constant=_refuse_constant)
        except json.JSONDecodeError as error:
            raise SpecError(
                [f"line {error.lineno}, column {error.colno}: not valid JSON ({error.msg})"],
                source=source,
            ) from None
    elif isinstance(config, Mapping):
        data = dict(config)
    else:
        raise SpecError(
            [f"config: got {type(config).__name__}, expected a config.json path or a dict"]
        )
    if not isinstance(data, Mapping):
        raise SpecError(["expected a JSON object"], source=source)
    model_type = str(data.get("model_type", ""))
    if model_type not in FAMILIES:
        hint = closest_names(model_type, FAMILIES)
        suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
        raise SpecError(
            [f"model_type: got {model_type!r}, expected one of {', '.join(FAMILIES)}{suggestion}"],
            source=source,
        )
    try:
        fields = FAMILIES[model_type](data)
    except SpecError as error:
        raise SpecError(error.problems, source=source) from None
    spec_name = name or _default_name(data, source)
    citation = f"Hugging Face config.json ({source or data.get('_name_or_path') or model_type})"
    spec = spec_from_dict(
        {
            "kind": "transformer",
            "name": spec_name,
            **({"hf_id": data["_name_or_path"]} if data.get("_name_or_path") else {}),
            **fields,
            "references": {"config": citation},
            "sources": {"*": "config"},
        },
        source=source,
    )
    if not isinstance(spec, TransformerSpec):  # spec_from_dict follows "kind"
        raise SpecError(["expected a transformer"], source=source)
    return spec
