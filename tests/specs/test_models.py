"""Derived parameter counts against the reference implementations.

The oracle is Hugging Face ``transformers`` building each model on PyTorch's meta device (no
weights, no network) from the config dicts of :mod:`tests.oracles`, copied by hand from each
model's ``config.json`` on the Hugging Face Hub (ids in the catalog files). Counts must be equal: a
parameter count is an integer and there is no rounding anywhere.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")  # dev dependency; present in CI (see pyproject [dev])
transformers = pytest.importorskip("transformers")

from mlcost.specs import Catalog, ConvNetSpec, from_hf_config  # noqa: E402
from tests.oracles import HF_CONFIGS, MOE_HF_CONFIGS, hf_model, parameter_count  # noqa: E402


@pytest.mark.parametrize("name", sorted(HF_CONFIGS))
def test_catalog_parameter_count_equals_transformers(catalog: Catalog, name: str) -> None:
    config = HF_CONFIGS[name]
    expected = parameter_count(hf_model(config))
    spec = catalog.transformer(name)
    assert spec.parameter_count == expected
    assert spec.parameters.to("param").magnitude == expected
    # The offline importer reads the same config.json into an equal architecture.
    imported = from_hf_config(config, name=name)
    assert imported.parameter_count == expected


def test_every_catalog_transformer_is_checked(catalog: Catalog) -> None:
    # Mixture-of-experts models are checked in test_moe_models.py (MOE_HF_CONFIGS).
    transformers_in_catalog = {s.name for s in catalog.items("models") if s.KIND == "transformer"}
    assert transformers_in_catalog == set(HF_CONFIGS) | set(MOE_HF_CONFIGS)


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


# Model cards and reports (outside figures, rounded as printed): Qwen/Qwen3-* "Number of
# Parameters" and "(Non-Embedding)", the Phi-3 Technical Report (3.8B mini, 14B medium), and
# OLMo 2 13B's checkpoint (model.safetensors.index.json total_size 54,864,793,600 bytes of FP32
# = 13,716,198,400 parameters, exact). Phi-4's "14-billion" names a class (it counts 14.66B).
PUBLISHED = {
    "qwen3-0.6b": ("0.6", "0.44"),
    "qwen3-1.7b": ("1.7", "1.4"),
    "qwen3-4b": ("4.0", "3.6"),
    "qwen3-8b": ("8.2", "6.95"),
    "qwen3-14b": ("14.8", "13.2"),
    "qwen3-32b": ("32.8", "31.2"),
    "phi-3-mini": ("3.8", None),
    "phi-3-medium": ("14", None),
}


def _rounds_to(count: int, printed: str) -> bool:
    """Whether ``count`` parameters round to ``printed`` billions at the printed digits."""
    digits = len(printed.split(".")[1]) if "." in printed else 0
    return round(count / 1e9, digits) == float(printed)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_counts_round_to_the_published_figures(catalog: Catalog, name: str) -> None:
    spec = catalog.transformer(name)
    total, non_embedding = PUBLISHED[name]
    assert _rounds_to(spec.parameter_count, total)
    if non_embedding is not None:
        # Qwen's "non-embedding" leaves out the input embedding and, when untied, the LM head.
        parts = spec.parameter_breakdown()
        body = spec.parameter_count - parts["embeddings"] - parts["head"]
        assert _rounds_to(body, non_embedding)


def test_olmo2_13b_equals_its_checkpoint(catalog: Catalog) -> None:
    assert catalog.transformer("olmo-2-13b").parameter_count == 54_864_793_600 // 4
