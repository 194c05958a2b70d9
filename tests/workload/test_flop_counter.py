"""GEMM FLOPs of a training step against PyTorch's own FLOP counter on the Hugging Face
reference implementations, built on the meta device from config dicts written here.

Oracle: ``torch.utils.flop_counter.FlopCounterMode`` around ``model(**inputs).loss.backward()``
with eager attention (which executes the full score matrix, i.e. the "executed" convention).
Tolerance: the issue allows 0.5%; the counts are in fact exact, and the test says so by also
printing the difference when it fails. Deep models are counted on one to three layer periods and
extended to their depth (``tests.oracles.at_full_depth``), the same count exactly.
"""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

from mlcost.layout import Layout  # noqa: E402
from mlcost.specs import Catalog  # noqa: E402
from mlcost.workload import TrainingConfig, operators  # noqa: E402
from tests.oracles import (  # noqa: E402
    HF_CONFIGS,
    at_full_depth,
    hf_model,
    layer_count_key,
    training_inputs,
)

POINTS = [(1, 128), (2, 256), (3, 512)]
MODELS = ["gpt2", "gpt2-xl", "bert-base", "llama-2-7b", "llama-3-8b", "mistral-7b", "qwen2-7b"]


def hf_training_step_flops(model: Any, config: dict[str, Any], batch: int, seq: int) -> int:
    """FLOPs of one forward and backward of ``model`` (built once from ``config`` on the meta
    device, its gradients dropped before each count)."""
    model.zero_grad(set_to_none=True)
    with FlopCounterMode(display=False) as counter:
        model(**training_inputs(config, batch, seq)).loss.backward()
    return int(counter.get_total_flops())


def hf_flops_at_points(config: dict[str, Any]) -> list[int]:
    """:func:`hf_training_step_flops` of the model of ``config`` at every point."""
    reference = hf_model(config)
    return [hf_training_step_flops(reference, config, batch, seq) for batch, seq in POINTS]


@pytest.mark.parametrize("name", MODELS)
def test_gemm_flops_equal_flop_counter(catalog: Catalog, name: str) -> None:
    # The whole model's count, taken on models of one, two and three layer periods and
    # extended to the full depth (tests.oracles.at_full_depth, which checks the count is linear
    # in the layer count; test_the_extension_equals_the_deep_model checks it on a deep model).
    model = catalog.transformer(name)
    assert HF_CONFIGS[name][layer_count_key(HF_CONFIGS[name])] == model.num_layers
    expected_at = at_full_depth(HF_CONFIGS[name], hf_flops_at_points)
    for (batch, seq), expected in zip(POINTS, expected_at.tolist(), strict=True):
        config = TrainingConfig(sequence_length=seq, attention="eager", attention_flops="executed")
        ours = operators(model, config, Layout(micro_batch_size=batch)).matmul_flops()
        ours = ours.to("flop").magnitude
        assert ours == pytest.approx(expected, rel=0.005), (name, batch, seq, ours / expected - 1)


def test_the_extension_equals_the_deep_model() -> None:
    # The oracle's shortcut against PyTorch on the whole 12-layer GPT-2: the same counts, exactly.
    config = HF_CONFIGS["gpt2"]
    assert at_full_depth(config, hf_flops_at_points).tolist() == hf_flops_at_points(config)
    # and a count that is not linear in the depth is refused, not extended
    with pytest.raises(AssertionError, match="not linear"):
        at_full_depth(config, lambda c: [c["n_layer"] ** 2])


def test_resnet50_training_step_equals_flop_counter(catalog: Catalog) -> None:
    # HF's ResNet-50 (same architecture as torchvision v1.5) forward + backward at 224 x 224:
    # convolutions and the classifier; the stem convolution gets no input gradient.
    with torch.device("meta"):
        model = transformers.ResNetForImageClassification(
            transformers.ResNetConfig(num_labels=1000)
        )
    model.train()
    pixels = torch.zeros(2, 3, 224, 224, device="meta")
    labels = torch.zeros(2, dtype=torch.long, device="meta")
    with FlopCounterMode(display=False) as counter:
        model(pixel_values=pixels, labels=labels).loss.backward()
    ours = operators(catalog.model("resnet-50"), TrainingConfig(), Layout(micro_batch_size=2))
    assert ours.matmul_flops().to("flop").magnitude == pytest.approx(
        counter.get_total_flops(), rel=0.005
    )
