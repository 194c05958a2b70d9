"""Training configuration validation, recomputation accounting, vectorized sweeps."""

from __future__ import annotations

import numpy as np
import pytest

from mlcost.errors import SpecError
from mlcost.flops import training_flops
from mlcost.layout import Layout
from mlcost.specs import Catalog
from mlcost.workload import TrainingConfig, operators, transformer_operators


def test_config_errors_name_the_field() -> None:
    with pytest.raises(SpecError, match="recompute_every: required"):
        Layout(recompute="every-k")
    with pytest.raises(SpecError, match=r"precision: got 'bf16-mixd'.*did you mean 'bf16-mixed'"):
        TrainingConfig(precision="bf16-mixd")
    with pytest.raises(SpecError, match="micro_batch_size"):
        Layout(micro_batch_size=0)
    with pytest.raises(SpecError, match=r"unknown field.*did you mean 'sequence_length'"):
        TrainingConfig(sequence_lenght=5)  # type: ignore[call-arg]


def layer_forward(table: object) -> float:
    return sum(
        op.forward_flops * op.count
        for op in table.operators  # type: ignore[attr-defined]
        if op.block == "layer"
    )


def test_recomputation_policies(catalog: Catalog) -> None:
    model = catalog.transformer("llama-2-7b")
    base, layout = TrainingConfig(sequence_length=2048), Layout(micro_batch_size=2)
    none = operators(model, base, layout)
    assert none.recompute_flops.magnitude == 0
    assert none.hardware_flops == none.model_flops
    # Full: every layer's forward is replayed once in the backward pass.
    full = operators(model, base, layout.model_copy(update={"recompute": "full"}))
    assert full.recompute_flops.magnitude == pytest.approx(layer_forward(none), rel=1e-12)
    assert full.model_flops == none.model_flops  # MFU does not count recomputation
    # Every 2nd layer: half of the 32 layers.
    half = operators(
        model, base, Layout(micro_batch_size=2, recompute="every-k", recompute_every=2)
    )
    assert half.recompute_flops.magnitude == pytest.approx(layer_forward(none) / 2, rel=1e-12)
    # Selective (Korthikanti et al. 2022): only the attention core (QK^T, softmax, PV).
    selective = operators(model, base, layout.model_copy(update={"recompute": "selective"}))
    core = sum(
        op.forward_flops * op.count for op in none.operators if op.kind in ("attention", "softmax")
    )
    assert selective.recompute_flops.magnitude == pytest.approx(core, rel=1e-12)
    assert selective.saved_bytes < none.saved_bytes
    assert full.saved_bytes < selective.saved_bytes


def test_full_recompute_is_about_eight_nd(catalog: Catalog) -> None:
    # With full recomputation hardware FLOPs ≈ (8/6) x model FLOPs for a large model, less the
    # head and embeddings, which are not recomputed: within 2% for Llama-2-70B at s = 2048.
    summary = training_flops(
        catalog.transformer("llama-2-70b"),
        TrainingConfig(sequence_length=2048, attention="eager"),
        Layout(recompute="full"),
    )
    ratio = (summary.hardware_flops / summary.model_flops).to("").magnitude
    assert ratio == pytest.approx(8 / 6, rel=0.02)


def test_gradient_accumulation_scales_passes_not_the_optimizer(catalog: Catalog) -> None:
    model = catalog.transformer("gpt2")
    config = TrainingConfig(sequence_length=512)
    one = operators(model, config, Layout(micro_batch_size=4))
    four = operators(model, config, Layout(micro_batch_size=4, gradient_accumulation=4))
    assert four.model_flops == 4 * one.model_flops
    assert four.optimizer_flops == one.optimizer_flops
    assert four.tokens_per_step == 4 * one.tokens_per_step


def test_vectorized_sweep_equals_scalar_calls(catalog: Catalog) -> None:
    model = catalog.transformer("qwen2-7b")
    batches = np.array([1, 2, 4, 8])
    seqs = np.array([512, 1024, 4096, 8192])
    swept = (
        transformer_operators(
            model, TrainingConfig(), micro_batch_size=batches, sequence_length=seqs
        )
        .model_flops.to("flop")
        .magnitude
    )
    one_by_one = [
        operators(model, TrainingConfig(sequence_length=int(s)), Layout(micro_batch_size=int(b)))
        .model_flops.to("flop")
        .magnitude
        for b, s in zip(batches, seqs, strict=True)
    ]
    assert swept == pytest.approx(one_by_one, rel=1e-12)


def test_table_converts_to_a_frame(catalog: Catalog) -> None:
    frame = operators(catalog.model("bert-base"), TrainingConfig(sequence_length=128)).to_frame()
    assert {
        "name",
        "kind",
        "count",
        "forward_flops",
        "backward_weight_flops",
        "saved_bytes",
        "parameters",
        "m",
        "n",
        "k",
    } <= set(frame.columns)
    # BERT has dropout (p = 0.1 in its config) and a pooler and NSP head.
    assert {"embedding dropout", "attention dropout", "pooler", "next-sentence head"} <= set(
        frame["name"]
    )


def test_parameters_touched_add_up_to_the_model(catalog: Catalog) -> None:
    # Each weight appears in exactly one operator row, executed once per micro-batch per layer
    # it lives in (one micro-batch here, so a row's count is the number of layers holding it:
    # all layers, the dense or the MoE layers, or each expert of each MoE layer); the totals
    # equal the parameter counts that test_models.py and test_moe_models.py check against
    # transformers.
    for spec in catalog.items("models"):
        if spec.KIND != "transformer":
            continue
        table = operators(spec, TrainingConfig(sequence_length=128))
        total = 0
        for op in table.operators:
            if op.kind == "optimizer":
                continue
            total += op.parameters * op.count
        assert total == spec.parameter_count, spec.name  # type: ignore[attr-defined]


def test_a_sweeps_description_names_its_range() -> None:
    """A table's description names a sweep's micro-batch sizes and sequence lengths by their
    range and count (``b=1..8 (3 values)``), a single configuration by its numbers; a memory
    breakdown's does the same."""
    import mlcost
    from mlcost.memory import memory_breakdown

    llama = mlcost.model("llama-2-7b")
    config = TrainingConfig(sequence_length=1024)
    one = operators(llama, config, micro_batch_size=2)
    assert "b=2, s=1024," in one.description
    sweep = operators(llama, config, micro_batch_size=np.array([1, 3, 8]))
    assert "b=1..8 (3 values), s=1024," in sweep.description
    lengths = operators(
        llama, config, micro_batch_size=np.array([4, 4]), sequence_length=np.array([512, 2048])
    )
    assert "b=4, s=512..2048 (2 values)," in lengths.description
    empty = operators(llama, config, micro_batch_size=np.array([], dtype=np.int64))
    assert "b=[], s=1024," in empty.description  # an empty sweep is described, not a crash
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    memory = memory_breakdown(llama, config, gpu, micro_batch_size=np.array([1, 2]))
    assert "b=1..2 (2 values), s=1024," in memory.description
