"""Importing a Hugging Face config.json offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlcost.errors import SpecError
from mlcost.specs import from_hf_config, load_spec_text

# Mistral-7B-v0.1's config.json as published on the Hub (abridged to the keys it sets).
MISTRAL_CONFIG = {
    "_name_or_path": "mistralai/Mistral-7B-v0.1",
    "architectures": ["MistralForCausalLM"],
    "hidden_act": "silu",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 32768,
    "model_type": "mistral",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "rms_norm_eps": 1e-05,
    "rope_theta": 10000.0,
    "sliding_window": 4096,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 32000,
}


def test_import_from_file(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(MISTRAL_CONFIG))
    spec = from_hf_config(path)
    assert spec.name == "mistral-7b-v0.1"
    assert spec.hf_id == "mistralai/Mistral-7B-v0.1"
    assert spec.sliding_window == 4096
    assert spec.kv_heads == 8
    # Mistral 7B: 7,241,732,096 parameters (MistralForCausalLM on the meta device; see
    # tests/specs/test_models.py, which checks the same config against transformers).
    assert spec.parameter_count == 7_241_732_096
    assert spec.unsourced_paths() == []
    assert load_spec_text(spec.to_yaml()) == spec


def test_unknown_model_type_suggests(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="did you mean 'llama'"):
        from_hf_config({**MISTRAL_CONFIG, "model_type": "lama"})


def test_unknown_activation_is_named() -> None:
    with pytest.raises(SpecError, match="hidden_act"):
        from_hf_config({**MISTRAL_CONFIG, "hidden_act": "mish"})


def test_invalid_json_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "llama",')
    with pytest.raises(SpecError, match="not valid JSON"):
        from_hf_config(path)


def test_invalid_values_are_named() -> None:
    with pytest.raises(SpecError, match="hidden_size"):
        from_hf_config({**MISTRAL_CONFIG, "hidden_size": -1})
