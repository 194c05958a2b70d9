"""compute_parts sums the one-GPU step's operator rows into the parts a layout shards
differently. The expected parts are added here row by row from the step's own rows, by the
rule of ComputeParts' docstring (a pass operator's time less its launches goes to its block
and tensor-parallel group, that times its backward share to the group's backward part, its
launches to its block's launch part; attention and softmax rows also to ``attention``, the
layers' GEMMs to ``layers_gemm``; the optimizer's body, gaps and host time to their parts),
for one micro-batch size and for a sweep of them."""

from __future__ import annotations

import numpy as np
import pytest

import mlcost
from mlcost import Layout, TrainingConfig
from mlcost.errors import MlcostError
from mlcost.implementation import implementation
from mlcost.parallel.compute import compute_parts
from mlcost.timing import step_time
from mlcost.workload import operators

GROUP = {
    ("layer", True): "layers_split",
    ("layer", False): "layers_replicated",
    ("embedding", True): "embedding",
    ("embedding", False): "embedding",
    ("head", True): "head_split",
    ("head", False): "head_replicated",
    ("loss", True): "head_split",
    ("loss", False): "head_replicated",
}


def _by_hand(step: object, sizes: np.ndarray) -> dict[str, np.ndarray]:
    parts: dict[str, np.ndarray] = {}

    def add(name: str, value: object) -> None:
        parts[name] = parts.get(name, np.zeros(sizes.shape)) + np.broadcast_to(
            np.asarray(value, dtype=np.float64), sizes.shape
        )

    for op, row in zip(step.table.operators, step.rows, strict=True):  # type: ignore[attr-defined]
        if op.kind == "optimizer":
            add("optimizer", row.total - row.launch)
            add("optimizer_gaps", row.gaps)
            add("optimizer_host", row.host)
            continue
        flops = np.asarray(op.total_flops, dtype=np.float64)
        backward = np.asarray(op.backward_flops + op.recompute_flops, dtype=np.float64)
        share = np.where(flops > 0, backward / np.where(flops > 0, flops, 1.0), 2 / 3)
        group = GROUP[(op.block, bool(op.tensor_parallel))]
        block = group.split("_")[0]
        add(group, row.total - row.launch)
        add(f"{group}_backward", (row.total - row.launch) * share)
        add(f"{block}_launch", row.launch)
        add(f"{block}_launch_backward", row.launch * share)
        if op.kind in ("attention", "softmax"):
            add("attention", row.total)
        if op.kind == "matmul" and op.block == "layer":
            add("layers_gemm", row.total)
    return parts


@pytest.mark.parametrize("sizes", [np.array([2]), np.array([1, 2, 4])])
@pytest.mark.parametrize("software", ["megatron-core", "ddp-eager"])
def test_parts_are_the_rows_summed_by_group(sizes: np.ndarray, software: str) -> None:
    model, gpu = mlcost.model("llama-2-7b"), mlcost.accelerator("h100-sxm5-80gb")
    config = TrainingConfig(sequence_length=2048)
    layout = Layout(micro_batch_size=1, recompute="selective")
    impl = implementation(software)
    parts = compute_parts(model, config, gpu, layout, sizes, software=impl)
    batch = int(sizes[0]) if sizes.size == 1 else sizes
    step = step_time(model, config, gpu, layout, micro_batch_size=batch, implementation=impl)
    expected = _by_hand(step, sizes)
    assert set(expected) <= {
        f for f in parts.__struct_fields__ if f not in ("peak", "micro_batch_size")
    }
    for name, value in expected.items():
        np.testing.assert_allclose(getattr(parts, name), value, rtol=1e-12, err_msg=name)
    for name in (
        set(parts.__struct_fields__) - set(expected) - {"peak", "micro_batch_size", "model_flops"}
    ):
        np.testing.assert_array_equal(getattr(parts, name), 0.0, err_msg=name)
    flops = step.table.forward_flops + step.table.backward_flops
    np.testing.assert_allclose(parts.model_flops, flops.to("flop").magnitude, rtol=1e-12)
    np.testing.assert_array_equal(parts.micro_batch_size, sizes)


def test_a_table_built_by_the_caller_gives_the_parts_of_the_table_built_inside() -> None:
    # The plan's chain builds one micro-batch's operator table once for its step and memory
    # stages and hands it to compute_parts: the parts must be those compute_parts builds itself.
    model, gpu = mlcost.model("llama-2-7b"), mlcost.accelerator("h100-sxm5-80gb")
    config = TrainingConfig(sequence_length=2048)
    layout = Layout(tp=2, dp=4, micro_batch_size=2, gradient_accumulation=6, recompute="every-k",
                    recompute_every=3)  # fmt: skip
    impl = implementation("megatron-core")
    table = operators(model, config, layout.one_micro_batch(), micro_batch_size=2)
    given = compute_parts(model, config, gpu, layout, 2, software=impl, table=table)
    built = compute_parts(model, config, gpu, layout, 2, software=impl)
    for name in built.__struct_fields__:
        np.testing.assert_array_equal(getattr(given, name), getattr(built, name), err_msg=name)
    # A table of several micro-batches (its counts per step, not per micro-batch) is refused.
    whole_step = operators(model, config, layout, micro_batch_size=2)
    refused = r"table: got the table of 6 micro-batch\(es\) of 'llama-2-7b', expected one"
    with pytest.raises(MlcostError, match=refused):
        compute_parts(model, config, gpu, layout, 2, software=impl, table=whole_step)
    # So is another model's table, and a table for a model that is not a transformer.
    other = operators(mlcost.model("gpt2"), TrainingConfig(sequence_length=1024), Layout())
    with pytest.raises(MlcostError, match="of 'gpt2', expected one micro-batch of 'llama-2-7b'"):
        compute_parts(model, config, gpu, layout, 2, software=impl, table=other)
    with pytest.raises(MlcostError, match=r"'resnet-50' is a convnet; .* transformers only"):
        compute_parts(mlcost.model("resnet-50"), config, gpu, Layout(), 2, table=table)
