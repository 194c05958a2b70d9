"""The cuDNN fused attention on the H100 read at the launch's size and with its dropout (issue 14).

The oracle is the raw measurement the catalog's curves were transcribed from
(``benchmarks/data/h100-2026-11-25/attention_grid.json``: each point the kernels' device time on
an H100, written by ``benchmarks/gpu_rank_layers.py``), and, for the model's use of it, the
attention kernels profiled inside a whole training step of a 1.7B GPT on the same GPU
(``rank_layers.json``), a separate run."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import mlcost
from mlcost.implementation import attention_kernel_seconds
from mlcost.layout import Layout
from mlcost.published import megatron_gpt
from mlcost.timing import step_time
from mlcost.workload import TrainingConfig

H100 = "h100-sxm5-80gb"
DATA = Path(__file__).resolve().parents[1] / "benchmarks/data/h100-2026-11-25"


def measured(
    bh: int, seq: int, head_dim: int, causal: bool, dropout: float, file: str = "attention_grid"
) -> dict:
    grid = json.loads((DATA / f"{file}.json").read_text())["attention_grid"]
    (point,) = [
        e for e in grid
        if (e["bh"], e["seq"], e["head_dim"], e["causal"], e["dropout"])
        == (bh, seq, head_dim, causal, dropout)
    ]  # fmt: skip
    return point


def kernel_seconds(flops: float, name: str = "cudnn-fused-attention", **kw: object) -> float:
    kernel = mlcost.catalog().kernel(name)
    return float(attention_kernel_seconds(kernel, H100, flops, **kw))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("bh", "seq", "head_dim", "causal", "dropout"),
    [(16, 4096, 128, True, 0.1), (8, 2048, 128, True, 0.0), (128, 8192, 128, False, 0.1),
     (4, 1024, 64, True, 0.0)],
)  # fmt: skip
def test_a_measured_launch_takes_its_measured_time(
    bh: int, seq: int, head_dim: int, causal: bool, dropout: float
) -> None:
    # The launch's forward FLOPs in the papers' convention, 4·b·h·d·s² (halved causal); at a
    # measured point the time is the measured forward plus backward device time (the curves
    # round throughput to whole TFLOP/s, hence the tolerance).
    point = measured(bh, seq, head_dim, causal, dropout)
    flops = 4 * bh * head_dim * seq**2 / (2 if causal else 1)
    seconds = kernel_seconds(
        flops, head_dim=head_dim, causal=causal, sequence=seq, batch_heads=bh,
        dropout=dropout > 0,
    )  # fmt: skip
    assert seconds == pytest.approx(point["fwd_kernels_s"] + point["bwd_kernels_s"], rel=5e-3)


@pytest.mark.parametrize(
    ("bh", "seq", "head_dim", "causal", "dropout"),
    [(16, 4096, 128, True, 0.1), (64, 2048, 64, True, 0.0), (4, 8192, 128, False, 0.1)],
)  # fmt: skip
def test_pytorch_flash_attention_on_the_h100_takes_its_measured_time(
    bh: int, seq: int, head_dim: int, causal: bool, dropout: float
) -> None:
    # PyTorch's FlashAttention-2 backend (what ddp-eager's flash-attn-2 stands for), measured
    # on the same H100 (attention_grid_flash.json).
    point = measured(bh, seq, head_dim, causal, dropout, file="attention_grid_flash")
    flops = 4 * bh * head_dim * seq**2 / (2 if causal else 1)
    seconds = kernel_seconds(
        flops, "flash-attn-2", head_dim=head_dim, causal=causal, sequence=seq, batch_heads=bh,
        dropout=dropout > 0,
    )  # fmt: skip
    assert seconds == pytest.approx(point["fwd_kernels_s"] + point["bwd_kernels_s"], rel=5e-3)


def test_between_launch_sizes_the_rate_is_interpolated_in_log_size() -> None:
    # At the geometric middle of 8 and 16 heads each rate is the mean of the two measured rates
    # (linear in log2 of the launch size). Rates in the curves' convention: forward F / t,
    # backward 2.5·F / t.
    def rates(bh: int) -> tuple[float, float]:
        point = measured(bh, 4096, 128, True, 0.1)
        flops = 4 * bh * 128 * 4096**2 / 2
        return flops / point["fwd_kernels_s"], 2.5 * flops / point["bwd_kernels_s"]

    (f8, b8), (f16, b16) = rates(8), rates(16)
    middle = math.sqrt(8 * 16)
    flops = 4 * middle * 128 * 4096**2 / 2
    expected = flops / ((f8 + f16) / 2) + 2.5 * flops / ((b8 + b16) / 2)
    seconds = kernel_seconds(
        flops, head_dim=128, causal=True, sequence=4096, batch_heads=middle, dropout=True
    )
    assert seconds == pytest.approx(expected, rel=5e-3)


def test_dropout_costs_what_was_measured_and_only_where_measured() -> None:
    point_on = measured(16, 4096, 128, True, 0.1)
    point_off = measured(16, 4096, 128, True, 0.0)
    flops = 4 * 16 * 128 * 4096**2 / 2
    common = {"head_dim": 128, "causal": True, "sequence": 4096, "batch_heads": 16}
    on = kernel_seconds(flops, dropout=True, **common)
    off = kernel_seconds(flops, dropout=False, **common)
    measured_on = point_on["fwd_kernels_s"] + point_on["bwd_kernels_s"]
    measured_off = point_off["fwd_kernels_s"] + point_off["bwd_kernels_s"]
    assert on / off == pytest.approx(measured_on / measured_off, rel=1e-2)
    assert on > 1.2 * off
    # the A100's FlashAttention-2 curves (the paper's) were measured without dropout: unchanged
    kernel = mlcost.catalog().kernel("flash-attn-2")
    a100 = {"head_dim": 128, "causal": True, "sequence": 4096}
    with_dropout = attention_kernel_seconds(kernel, "a100-sxm4-80gb", flops, dropout=True, **a100)
    without = attention_kernel_seconds(kernel, "a100-sxm4-80gb", flops, **a100)
    assert with_dropout == without


@pytest.mark.parametrize("name", ["cudnn-fused-attention", "flash-attn-2"])
def test_the_h200_reads_its_own_measurement(name: str) -> None:
    # measured on an H200 the same way (benchmarks/data/h200-2026-11-25)
    file = "attention_grid" if name.startswith("cudnn") else "attention_grid_flash"
    grid = json.loads((DATA.parent / "h200-2026-11-25" / f"{file}.json").read_text())
    key = (8, 4096, 128, True, 0.1)
    (point,) = [
        e for e in grid["attention_grid"]
        if (e["bh"], e["seq"], e["head_dim"], e["causal"], e["dropout"]) == key
    ]  # fmt: skip
    flops = 4 * 8 * 128 * 4096**2 / 2
    kernel = mlcost.catalog().kernel(name)
    seconds = attention_kernel_seconds(
        kernel, "h200-sxm-141gb", flops, head_dim=128, causal=True, sequence=4096,
        batch_heads=8, dropout=True,
    )  # fmt: skip
    assert seconds == pytest.approx(point["fwd_kernels_s"] + point["bwd_kernels_s"], rel=5e-3)


def _attention_ms_per_layer(tp: int, dropout: bool) -> float:
    model = megatron_gpt(2048, 24, 16, 131072, 4096)
    if not dropout:
        model = model.model_copy(update={"attention_dropout": 0.0})
    layout = Layout(tp=tp, micro_batch_size=1, global_batch_size=1, sequence_parallel=tp > 1)
    step = step_time(
        model, TrainingConfig(sequence_length=4096), H100, layout,
        implementation="megatron-core", shard=(tp, 1),
    )  # fmt: skip
    frame = step.to_frame()
    return float(frame[frame.kind == "attention"]["time_s"].sum()) / 24 / tp * 1e3


@pytest.mark.parametrize(("tp", "dropout"), [(1, True), (2, True), (1, False)])
def test_a_layer_reads_the_launch_of_its_rank(tp: int, dropout: bool) -> None:
    # Megatron's 1.7B GPT, micro-batch 1: one launch per layer of 16 heads, 16/t on each of t
    # tensor-parallel ranks; each rank runs 1/t of the FLOPs at the rate of its launch. The
    # attention row's time per layer on one rank is the measured forward + backward of that
    # launch (plus one kernel launch's latency, 5 us x 3 dispatched passes).
    point = measured(16 // tp, 4096, 128, True, 0.1 if dropout else 0.0)
    expected = (point["fwd_kernels_s"] + point["bwd_kernels_s"]) * 1e3
    assert _attention_ms_per_layer(tp, dropout) == pytest.approx(expected + 0.015 / tp, rel=1e-2)


def test_the_grid_agrees_with_the_attention_inside_a_training_step() -> None:
    # A different run: the 1.7B GPT (dropout 0.1) trained on the same H100, its attention
    # kernels profiled inside the forward + backward of the whole model (24 launches). 5 %: two
    # runs at different clocks (the step at about 1,800 MHz under the power cap, the grid's
    # kernels alone near 1,980 MHz), and the model adds one launch latency per pass.
    run = json.loads((DATA / "rank_layers.json").read_text())["gpt_1p7b"]
    in_step = run["profile"]["seconds"]["attention"] / 24 * 1e3
    assert run["row"]["heads"] == 16 and run["row"]["dropout"] == 0.1
    assert _attention_ms_per_layer(1, True) == pytest.approx(in_step, rel=0.05)


KERNEL = """kind: kernel
name: my-attention
operation: attention
flop_convention: forward 4·s²·d·heads·batch, halved under a causal mask
curves:
- accelerators: [h100-sxm5-80gb]
  head_dim: 128
  causal: true
  direction: forward
  sequence: [2048, 4096]
  batch_heads: BH
  throughput: [1 TFLOP/s, 2 TFLOP/s, 3 TFLOP/s, 4 TFLOP/s, 5 TFLOP/s, 6 TFLOP/s]
"""


@pytest.mark.parametrize(
    ("batch_heads", "message"),
    [("[8, 16]", "got 6 values for 2 sequence lengths x 2 launch sizes"),
     ("[16, 8, 64]", "batch_heads: expected increasing values, got \\[16, 8, 64\\]"),
     ("[8]", "batch_heads: a grid needs two launch sizes")],
)  # fmt: skip
def test_a_kernel_grid_of_the_wrong_shape_is_refused(batch_heads: str, message: str) -> None:
    with pytest.raises(mlcost.MlcostError, match=message):
        mlcost.specs.load_spec_text(KERNEL.replace("BH", batch_heads))
    # the same values over three launch sizes are a valid grid: 2 lengths x 3 sizes
    kernel = mlcost.specs.load_spec_text(KERNEL.replace("BH", "[8, 16, 64]"))
    curve = kernel.curves[0]
    assert float(curve.at(4096, 16)) == pytest.approx(5e12)
    assert float(curve.at(2048, 32)) == pytest.approx(2.5e12)  # halfway from 16 to 64 in log2


def test_a_copied_curve_with_other_rates_answers_its_own() -> None:
    # a curve keeps its converted points; a copy with other throughput must not reuse them
    kernel = mlcost.specs.load_spec_text(KERNEL.replace("BH", "[8, 16, 64]"))
    curve = kernel.curves[0]
    assert float(curve.at(4096, 16)) == pytest.approx(5e12)
    faster = curve.model_copy(
        update={"throughput": tuple(mlcost.Q_(10 * t.magnitude, t.units) for t in curve.throughput)}
    )
    assert float(faster.at(4096, 16)) == pytest.approx(5e13)
    assert float(faster.at(4096, 16.0)) == float(faster.at(np.array([4096]), np.array([16.0]))[0])


def test_a_copied_kernel_with_other_curves_chooses_from_its_own() -> None:
    # a kernel keeps the curve it chose for each question; a copy with other curves must not
    # answer from the original's choices
    kernel = mlcost.specs.load_spec_text(KERNEL.replace("BH", "[8, 16, 64]"))
    question = {"head_dim": 128, "causal": True}
    assert kernel.curve("h100-sxm5-80gb", "forward", **question) is kernel.curves[0]
    other = kernel.curves[0].model_copy(update={"accelerators": ("h200-sxm-141gb",)})
    copy = kernel.model_copy(update={"curves": (other,)})
    assert copy.curve("h100-sxm5-80gb", "forward", **question) is None
    assert copy.curve("h200-sxm-141gb", "forward", **question) is other
    assert copy.measured_on() == ("h200-sxm-141gb",)
    assert kernel.measured_on() == ("h100-sxm5-80gb",)
