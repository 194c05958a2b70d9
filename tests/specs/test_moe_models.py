"""Mixture-of-experts and latent-attention specs against the reference implementations.

Oracles: Hugging Face ``transformers`` building each MoE catalog model on PyTorch's meta device
from the config dicts of :data:`tests.oracles.MOE_HF_CONFIGS` (copied by hand from each model's
``config.json``); hand counts of the active parameters written out below; the papers' published
totals. Parameter counts are integers: equal, no tolerance.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import mlcost  # noqa: E402
from mlcost.errors import SpecError  # noqa: E402
from mlcost.specs import Catalog, from_hf_config  # noqa: E402
from mlcost.specs.models import MixtureOfExperts  # noqa: E402
from tests.oracles import MOE_HF_CONFIGS, hf_model, parameter_count  # noqa: E402


@pytest.mark.parametrize("name", sorted(MOE_HF_CONFIGS))
def test_moe_parameter_count_equals_transformers(catalog: Catalog, name: str) -> None:
    # DeepSeek-V3: transformers' DeepseekV3ForCausalLM does not build the multi-token-prediction
    # module (num_nextn_predict_layers is read but unused), so neither count includes it.
    config = MOE_HF_CONFIGS[name]
    expected = parameter_count(hf_model(config))
    assert catalog.transformer(name).parameter_count == expected
    assert from_hf_config(config, name=name).parameter_count == expected


def test_every_moe_catalog_model_is_checked(catalog: Catalog) -> None:
    moe = {s.name for s in catalog.items("models") if getattr(s, "moe", None) is not None}
    assert moe == set(MOE_HF_CONFIGS)


def _swiglu(h: int, f: int) -> int:
    return 3 * h * f


def test_mixtral_active_parameters_by_hand(catalog: Catalog) -> None:
    # Per layer: attention Q, O (4096 x 4096) and K, V (4096 x 1024); 2 RMSNorms; router 4096 x 8;
    # 2 of the 8 SwiGLU experts (3 x 4096 x 14336 each). Plus embedding, head, final norm.
    h, f, layers, vocab = 4096, 14336, 32, 32000
    per_layer = 2 * h * h + 2 * h * 1024 + 2 * h + h * 8 + 2 * _swiglu(h, f)
    active = layers * per_layer + 2 * vocab * h + h
    model = catalog.transformer("mixtral-8x7b")
    assert model.active_parameter_count == active == 12_879_925_248
    # Jiang et al. 2024 section 2.1: "47B" total, "13B" active.
    assert round(model.parameter_count / 1e9) == 47
    assert round(model.active_parameter_count / 1e9) == 13


def test_qwen_moe_active_parameters_by_hand(catalog: Catalog) -> None:
    # Per layer: Q, K, V with biases and O (2048 x 2048, 16 heads of 128); 2 norms; router
    # 2048 x 60; 4 of 60 experts of width 1408; the shared expert (width 5632) and its gate 2048.
    h, layers, vocab = 2048, 24, 151936
    attention = 4 * h * h + 3 * h
    per_layer = attention + 2 * h + h * 60 + 4 * _swiglu(h, 1408) + _swiglu(h, 5632) + h
    active = layers * per_layer + 2 * vocab * h + h
    model = catalog.transformer("qwen1.5-moe-a2.7b")
    assert model.active_parameter_count == active
    # Model card: 14.3B in total, 2.7B activated.
    assert round(model.parameter_count / 1e8) == 143
    assert round(model.active_parameter_count / 1e8) == 27


def test_olmoe_active_parameters_by_hand(catalog: Catalog) -> None:
    # Per layer: Q, K, V, O (2048 x 2048); QK-norm weights (2048 + 2048); 2 norms; router
    # 2048 x 64; 8 of 64 experts of width 1024.
    h, layers, vocab = 2048, 16, 50304
    per_layer = 4 * h * h + 2 * h + 2 * h + h * 64 + 8 * _swiglu(h, 1024)
    active = layers * per_layer + 2 * vocab * h + h
    model = catalog.transformer("olmoe-1b-7b")
    assert model.active_parameter_count == active
    # Muennighoff et al. 2024 Table 1: 6.9B total, 1.3B active.
    assert round(model.parameter_count / 1e8) == 69
    assert round(model.active_parameter_count / 1e8) == 13


def test_deepseek_v3_published_total_and_active(catalog: Catalog) -> None:
    # Hand count. MLA per layer (h 7168, 128 heads, r_q 1536, r_kv 512, d_n 128, d_r 64, d_v 128):
    h, n, r_q, r_kv, d_n, d_r, d_v = 7168, 128, 1536, 512, 128, 64, 128
    mla = h * r_q + r_q + r_q * n * (d_n + d_r) + h * (r_kv + d_r) + r_kv
    mla += r_kv * n * (d_n + d_v) + n * d_v * h
    vocab, layers, dense, moe = 129280, 61, 3, 58
    norms = layers * 2 * h + h
    dense_mlp = dense * _swiglu(h, 18432)
    router = moe * h * 256
    shared = moe * _swiglu(h, 2048)
    routed_one = _swiglu(h, 2048)
    total = layers * mla + norms + dense_mlp + router + shared + moe * 256 * routed_one
    total += 2 * vocab * h
    active = total - moe * (256 - 8) * routed_one
    model = catalog.transformer("deepseek-v3")
    assert model.parameter_count == total
    assert model.active_parameter_count == active
    # arXiv 2412.19437, abstract and section 4.2: 671B total, 37B activated per token, the 14B
    # multi-token-prediction module excluded. Our
    # active count includes the input embedding and the LM head (0.93B each): 37.55B, within the
    # paper's two significant figures (1.5%); without the input embedding it is 36.63B.
    assert round(model.parameter_count / 1e9) == 671
    assert model.active_parameter_count == pytest.approx(37e9, rel=0.015)
    assert model.attention_kind == "mla"
    assert model.moe_layers == moe


def test_layer_pattern_first_dense_every_and_listed() -> None:
    moe = MixtureOfExperts(
        num_experts=8, experts_per_token=2, expert_ffn_size=64, first_dense_layers=1, every=2,
        dense_layers=(5,),
    )  # fmt: skip
    # Layers 0..7: MoE when i >= 1, (i + 1) even and i != 5 -> 1, 3, 7.
    assert [i for i in range(8) if moe.is_moe_layer(i)] == [1, 3, 7]
    assert moe.moe_layer_count(8) == 3


def test_qwen_moe_sparse_step_matches_transformers() -> None:
    # decoder_sparse_step 2 and an mlp-only layer: transformers builds dense MLPs there.
    config = {
        **MOE_HF_CONFIGS["qwen1.5-moe-a2.7b"],
        "num_hidden_layers": 6,
        "decoder_sparse_step": 2,
        "mlp_only_layers": [3],
        "vocab_size": 1000,
    }
    assert from_hf_config(config).parameter_count == parameter_count(hf_model(config))


def test_latent_attention_without_query_compression_matches_transformers() -> None:
    config = {
        **MOE_HF_CONFIGS["deepseek-v3"],
        "num_hidden_layers": 3,
        "first_k_dense_replace": 1,
        "q_lora_rank": None,
        "attention_bias": True,
        "vocab_size": 1000,
        "n_routed_experts": 16,
    }
    assert from_hf_config(config).parameter_count == parameter_count(hf_model(config))


def test_bad_moe_input_is_one_clear_error() -> None:
    with pytest.raises(SpecError, match="experts_per_token"):
        MixtureOfExperts(num_experts=4, experts_per_token=8, expert_ffn_size=64)
    base = mlcost.model("mixtral-8x7b").model_dump()
    base["moe"] = {**base["moe"], "first_dense_layers": 40}
    with pytest.raises(SpecError, match="moe"):
        type(mlcost.model("mixtral-8x7b"))(**base)


def test_moe_config_missing_a_shape_field_is_one_clear_error() -> None:
    config = {k: v for k, v in MOE_HF_CONFIGS["deepseek-v3"].items() if k != "kv_lora_rank"}
    with pytest.raises(SpecError, match="kv_lora_rank: got None, expected a whole number"):
        from_hf_config(config)
    config = {k: v for k, v in MOE_HF_CONFIGS["mixtral-8x7b"].items() if k != "num_local_experts"}
    with pytest.raises(SpecError, match="num_local_experts"):
        from_hf_config(config)


def test_router_bias_and_score_correction_bias_by_hand(catalog: Catalog) -> None:
    # A router with a bias adds E parameters per MoE layer (Mixtral: 8 x 32 layers); DeepSeek-V3's
    # score-correction bias is a buffer, not trained by gradients, so it adds none.
    mixtral = catalog.transformer("mixtral-8x7b")
    assert mixtral.moe is not None
    biased = mixtral.model_copy(
        update={"moe": mixtral.moe.model_copy(update={"router_bias": True})}
    )
    assert biased.parameter_count - mixtral.parameter_count == 8 * 32
    assert biased.active_parameter_count - mixtral.active_parameter_count == 8 * 32
    deepseek = catalog.transformer("deepseek-v3")
    assert deepseek.moe is not None and deepseek.moe.score_correction_bias
    plain = deepseek.model_copy(
        update={"moe": deepseek.moe.model_copy(update={"score_correction_bias": False})}
    )
    assert plain.parameter_count == deepseek.parameter_count


#: config.json of models outside the catalog whose families the importer reads (issue 63),
#: copied by hand from the Hugging Face hub: deepseek-ai/DeepSeek-V2-Lite (a full-rank query:
#: q_lora_rank null), deepseek-ai/DeepSeek-V2 and Qwen/Qwen3-30B-A3B.
IMPORTED_CONFIGS: dict[str, dict[str, object]] = {
    "deepseek-v2-lite": {
        "model_type": "deepseek_v2", "vocab_size": 102400, "hidden_size": 2048,
        "intermediate_size": 10944, "moe_intermediate_size": 1408, "num_hidden_layers": 27,
        "num_attention_heads": 16, "num_key_value_heads": 16, "n_shared_experts": 2,
        "n_routed_experts": 64, "num_experts_per_tok": 6, "first_k_dense_replace": 1,
        "kv_lora_rank": 512, "q_lora_rank": None, "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64, "v_head_dim": 128, "topk_method": "greedy", "n_group": 1,
        "topk_group": 1, "norm_topk_prob": False, "routed_scaling_factor": 1.0,
        "hidden_act": "silu", "max_position_embeddings": 163840, "tie_word_embeddings": False,
    },
    "deepseek-v2": {
        "model_type": "deepseek_v2", "vocab_size": 102400, "hidden_size": 5120,
        "intermediate_size": 12288, "moe_intermediate_size": 1536, "num_hidden_layers": 60,
        "num_attention_heads": 128, "num_key_value_heads": 128, "n_shared_experts": 2,
        "n_routed_experts": 160, "num_experts_per_tok": 6, "first_k_dense_replace": 1,
        "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64, "v_head_dim": 128, "topk_method": "group_limited_greedy",
        "n_group": 8, "topk_group": 3, "norm_topk_prob": False, "routed_scaling_factor": 16.0,
        "hidden_act": "silu", "max_position_embeddings": 163840, "tie_word_embeddings": False,
    },
    "qwen3-30b-a3b": {
        "model_type": "qwen3_moe", "vocab_size": 151936, "hidden_size": 2048,
        "intermediate_size": 6144, "moe_intermediate_size": 768, "num_hidden_layers": 48,
        "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
        "num_experts": 128, "num_experts_per_tok": 8, "decoder_sparse_step": 1,
        "mlp_only_layers": [], "norm_topk_prob": True, "hidden_act": "silu",
        "max_position_embeddings": 40960, "rope_theta": 1000000.0, "tie_word_embeddings": False,
    },
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(IMPORTED_CONFIGS))
def test_deepseek_v2_and_qwen3_moe_configs_import_as_transformers_builds_them(name: str) -> None:
    # Issue 63: these config.json files were refused. The oracle: transformers' own config and
    # model classes (DeepseekV2ForCausalLM, Qwen3MoeForCausalLM) on the meta device.
    config = IMPORTED_CONFIGS[name]
    assert from_hf_config(config, name=name).parameter_count == parameter_count(hf_model(config))


def test_imported_totals_match_the_published_ones() -> None:
    # DeepSeek-V2 paper (arXiv 2405.04434) abstract: 236B total; its DeepSeek-V2-Lite model card:
    # 15.7B total; the Qwen3-30B-A3B model card: 30.5B total. (The activated counts are left
    # out: the publications do not say whether they include the embedding.)
    totals = {"deepseek-v2": 236, "deepseek-v2-lite": 15.7, "qwen3-30b-a3b": 30.5}
    for name, total in totals.items():
        model = from_hf_config(IMPORTED_CONFIGS[name], name=name)
        assert model.parameter_count / 1e9 == pytest.approx(total, rel=0.01), name
