"""Roofline, step time, the Iron Law, time to train, the diagnosis, and the chapter's worked
examples (mlcost.roofline, mlcost.timing, mlcost.diagnosis)."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mlcost
from mlcost import plot
from mlcost.diagnosis import diagnose
from mlcost.layout import Layout
from mlcost.roofline import (
    Ceilings,
    attainable_throughput,
    elementwise_intensity,
    gemm_intensity,
    warp_quantization_efficiency,
)
from mlcost.specs import PeakThroughput
from mlcost.timing import iron_law, operator_times, step_time, time_to_train
from mlcost.units import Q_
from mlcost.workload import TrainingConfig, operators

matplotlib.use("Agg")


@pytest.mark.parametrize(
    ("gpu", "fmt", "expected"),
    [
        # 312e12 / 2.039e12; 989.4e12 / 3.35e12; 125e12 / 0.9e12 (catalog datasheet peaks).
        ("a100-sxm4-80gb", "bf16", 153),
        ("h100-sxm5-80gb", "bf16", 295),
        ("v100-sxm2-32gb", "fp16", 139),
    ],
)
def test_ridge_points(gpu: str, fmt: str, expected: int) -> None:
    ceilings = Ceilings.from_accelerator(mlcost.accelerator(gpu), fmt)
    assert round(ceilings.ridge_point.magnitude) == expected


def test_gemm_intensity_by_hand() -> None:
    # Square 4096, BF16: 2·4096^3 / (2·3·4096^2) = 4096/3.
    assert gemm_intensity(4096, 4096, 4096).magnitude == pytest.approx(4096 / 3, rel=1e-12)
    # One token through a 4096 x 14336 projection (M = 1): 2·14336·4096 FLOPs over
    # 2·(4096 + 4096·14336 + 14336) bytes, about 1 FLOP/byte: memory-bound.
    m1 = gemm_intensity(1, 14336, 4096).magnitude
    assert m1 == pytest.approx(2 * 14336 * 4096 / (2 * (4096 + 4096 * 14336 + 14336)), rel=1e-12)
    # M = 8192 tokens: 2·8192·14336·4096 / (2·(8192·4096 + 4096·14336 + 8192·14336)).
    big = gemm_intensity(8192, 14336, 4096).magnitude
    expected = 8192 * 14336 * 4096 / (8192 * 4096 + 4096 * 14336 + 8192 * 14336)
    assert big == pytest.approx(expected, rel=1e-12)
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    peak, bandwidth = gpu.peak("bf16"), gpu.memory_bandwidth
    small = attainable_throughput(Q_(m1, "flop/byte"), peak, bandwidth)
    assert small.to("TFLOP/s").magnitude == pytest.approx(m1 * 3.35, rel=1e-9)  # I x 3.35 TB/s
    large = attainable_throughput(Q_(big, "flop/byte"), peak, bandwidth)
    assert large.to("TFLOP/s").magnitude == pytest.approx(989.4, rel=1e-12)  # the peak


def test_elementwise_intensities_against_the_chapter() -> None:
    # ReLU in FP16: 1 FLOP per element, 2 bytes in, 2 out: the chapter's 0.25 FLOP/byte.
    assert elementwise_intensity(1, 2).magnitude == 0.25
    # LayerNorm (7 FLOPs/element) and softmax (5) in FP16: 1.75 and 1.25 FLOP/byte, not the
    # table's hard-coded ~10 and ~5 (its own text later says LayerNorm is ~1 FLOP/byte).
    assert elementwise_intensity(7, 2).magnitude == 1.75
    assert elementwise_intensity(5, 2).magnitude == 1.25


def test_warp_quantization_chapter_example() -> None:
    # Batch 32 fills a warp; 33 needs two (33/64 = 51.6%, "52%"); 65 needs three (67.7%).
    assert warp_quantization_efficiency([32, 33, 65]) == pytest.approx([1.0, 33 / 64, 65 / 96])


def test_iron_law_gpt2_xl_on_v100() -> None:
    # Chapter W-02: 296,674,865,971,200 FLOPs per step at 125 TFLOP/s, 100% utilization.
    law = iron_law(Q_(296_674_865_971_200, "flop"), Q_(125, "TFLOP/s"), 1.0)
    assert law.time.to("s").magnitude == pytest.approx(296_674_865_971_200 / 125e12, rel=1e-12)
    assert "Iron Law" in law.explain()
    with pytest.raises(mlcost.MlcostError, match="operations"):
        iron_law(8.4e23, Q_(125, "TFLOP/s"))  # a bare number is not a FLOP count
    with pytest.raises(mlcost.MlcostError, match="efficiency"):
        iron_law(Q_(1, "flop"), Q_(125, "TFLOP/s"), 1.5)


def test_iron_law_llama2_70b_run() -> None:
    # Chapter W-12: 6 x 70e9 x 2e12 = 8.4e23 FLOPs on 1,000 H100 at 50% of 989 TFLOP/s.
    flops = Q_(6 * 70e9 * 2e12, "flop")
    assert flops.magnitude == pytest.approx(8.4e23)
    chapter = iron_law(flops, 1000 * Q_(989, "TFLOP/s"), 0.5)
    assert chapter.time.to("day").magnitude == pytest.approx(
        8.4e23 / (1000 * 989e12 * 0.5) / 86400, rel=1e-12
    )
    datasheet = iron_law(flops, 1000 * mlcost.accelerator("h100-sxm5-80gb").peak("bf16"), 0.5)
    assert round(datasheet.time.to("day").magnitude, 2) == 19.65


def test_mfu_below_ideal_and_rising_with_batch() -> None:
    model, gpu = mlcost.model("llama-3-8b"), mlcost.accelerator("h100-sxm5-80gb")
    batches = np.array([1, 2, 4, 8, 16])
    step = step_time(model, TrainingConfig(sequence_length=2048), gpu, micro_batch_size=batches)
    mfu = step.mfu()
    assert np.all(np.diff(mfu) > 0)
    # The same workload with every operator at the compute peak (infinite bandwidth, no launch
    # cost, efficiency 1): MFU = model FLOPs / all FLOPs, an upper bound the prediction stays under.
    table = step.table
    ideal = table.model_flops.magnitude / (table.hardware_flops.magnitude)
    assert np.all(mfu < ideal)


@given(
    name=st.sampled_from(["gpt2", "llama-2-7b", "mistral-7b", "bert-base"]),
    batch=st.integers(1, 32),
    seq=st.integers(64, 4096),
    mode=st.sampled_from(["roofline", "no-overlap"]),
)
@settings(max_examples=40, deadline=None)
def test_more_flops_never_less_time(name: str, batch: int, seq: int, mode: str) -> None:
    gpu = mlcost.accelerator("a100-sxm4-80gb")
    model = mlcost.model(name)
    base = step_time(
        model,
        TrainingConfig(),
        gpu,
        mode=mode,
        micro_batch_size=np.array([batch, batch + 1]),
        sequence_length=seq,
    )  # type: ignore[arg-type]
    assert np.all(np.diff(base.total.magnitude) >= 0)
    longer = step_time(
        model,
        TrainingConfig(),
        gpu,
        mode=mode,
        micro_batch_size=batch,
        sequence_length=np.array([seq, seq + 64]),
    )  # type: ignore[arg-type]
    assert np.all(np.diff(longer.total.magnitude) >= 0)
    config, layout = TrainingConfig(sequence_length=seq), Layout(micro_batch_size=batch)
    roof = step_time(model, config, gpu, layout)
    flat = step_time(model, config, gpu, layout, mode="no-overlap")
    assert roof.total <= flat.total  # max <= sum: roofline is the lower bound


def test_breakdown_by_kind_and_diagnosis() -> None:
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    step = step_time(mlcost.model("gpt2"), TrainingConfig(sequence_length=128), gpu)
    # The element-wise operators of a step sit far below the ridge point (a norm reads and
    # writes 2 bytes per element for 4-7 FLOPs) and are memory-bound on any GPU.
    kinds = step.by_kind()
    assert kinds.loc["norm", "bound"] == "memory" and kinds.loc["elementwise", "bound"] == "memory"
    report = diagnose(step, data_wait_fraction=0.1).to_frame()
    assert report.loc["data-bound", "share of step"] == pytest.approx(0.1, rel=1e-12)
    # A small GPT-2 step is dominated by memory-bound operators and launches.
    assert report.loc["memory-bound", "share of step"] > 0.3


def test_time_to_train_and_ceilings_are_a_parameter() -> None:
    model, gpu = mlcost.model("gpt2"), mlcost.accelerator("a100-sxm4-80gb")
    config, layout = TrainingConfig(sequence_length=1024), Layout(micro_batch_size=8)
    step = step_time(model, config, gpu, layout)
    # 8 x 1024 x 1000 tokens at 8 x 1024 per step: 1000 steps; wall = 1000 x step; GPU-hours
    # on 4 GPUs = 4 x wall; with goodput 0.5 twice the wall clock.
    result = time_to_train(8 * 1024 * 1000, 8 * 1024, step.total, 4)
    assert result.steps == 1000
    assert result.wall_clock.to("s").magnitude == pytest.approx(
        1000 * step.total.to("s").magnitude, rel=1e-12
    )
    assert result.gpu_hours.to("hour").magnitude == pytest.approx(
        4 * result.wall_clock.to("hour").magnitude, rel=1e-12
    )
    halved = time_to_train(8 * 1024 * 1000, 8 * 1024, step.total, 4, goodput=0.5)
    assert halved.wall_clock == 2 * result.wall_clock
    slow = Ceilings.from_accelerator(gpu, "bf16", compute_efficiency=0.4, memory_efficiency=0.4)
    assert step_time(model, config, slow, layout).total > step.total


def test_plots_explain_themselves() -> None:
    # Readable on its own: a title, both axes labelled with their units, and a legend where
    # several series share the axes.
    step = step_time(
        mlcost.model("llama-3-8b"),
        TrainingConfig(sequence_length=2048),
        mlcost.accelerator("h100-sxm5-80gb"),
        Layout(micro_batch_size=2),
    )
    roofline = plot.roofline(
        [mlcost.accelerator("a100-sxm4-80gb"), mlcost.accelerator("h100-sxm5-80gb")],
        step,
        measured=[(100.0, 300.0, "measured GEMM")],
    ).axes[0]
    assert roofline.get_title() and "(FLOP/byte)" in roofline.get_xlabel()
    assert "(TFLOP/s)" in roofline.get_ylabel()
    # One line per GPU with its datasheet peak and bandwidth (A100: 312 TFLOP/s BF16 dense,
    # 2.039 TB/s; H100 SXM5: 989 TFLOP/s, 3.35 TB/s), then what bounds the operators.
    assert [t.get_text() for t in roofline.get_legend().get_texts()] == [
        "a100-sxm4-80gb (bf16): 312 TFLOP/s, 2.04 TB/s",
        "h100-sxm5-80gb (bf16): 989 TFLOP/s, 3.35 TB/s",
        "compute-bound",
        "memory-bound",
        "latency-bound",
    ]
    # A CPU's peak is a fraction of a TFLOP/s: its legend keeps three digits, never "0".
    cpu = mlcost.accelerator("h100-sxm5-80gb").model_copy(
        update={
            "name": "a-cpu",
            "peak_compute": (
                PeakThroughput(format="bf16", engine="vector", dense=Q_(51.2, "GFLOP/s")),
            ),
        }
    )
    label = plot.roofline([cpu]).axes[0].get_legend().get_texts()[0].get_text()
    assert label.startswith("a-cpu (bf16): 0.0512 TFLOP/s")
    waterfall = plot.waterfall(step).axes[0]
    assert waterfall.get_title() and "(ms)" in waterfall.get_ylabel()
    mfu = plot.mfu_curve([1, 2, 4], [0.3, 0.4, 0.5]).axes[0]
    assert mfu.get_title() and mfu.get_xlabel() == "batch size"


def test_operator_times_mode_is_checked() -> None:
    table = operators(mlcost.model("gpt2"), TrainingConfig())
    ceilings = Ceilings.from_accelerator(mlcost.accelerator("a100-sxm4-80gb"))
    with pytest.raises(mlcost.MlcostError, match="mode"):
        operator_times(table, ceilings, mode="fast")  # type: ignore[arg-type]


def test_a_system_keeps_its_ceilings_and_a_copied_spec_gets_its_own() -> None:
    """A resolved system builds its GPU's ceilings once per format, and an accelerator copied
    with another bandwidth (the H100 SXM5 datasheet's 3.35 TB/s changed to 4 TB/s) gets ceilings
    of its own bandwidth."""
    import copy

    from mlcost.systems import system

    gpu = mlcost.accelerator("h100-sxm5-80gb")
    dgx = system("dgx-h100")
    assert dgx.ceilings("bf16") is dgx.ceilings("bf16")
    assert dgx.ceilings("bf16").bandwidth_bytes == 3.35e12
    other = gpu.model_copy(update={"memory_bandwidth": mlcost.Q_(4, "TB/s")})
    assert Ceilings.from_accelerator(other).bandwidth_bytes == 4e12
    assert Ceilings.from_accelerator(copy.deepcopy(gpu)).bandwidth_bytes == 3.35e12


def _gemm_seconds_by_hand(op, ceilings, grouped: bool, shard=(1, 1)):  # type: ignore[no-untyped-def]
    """One GEMM row from its definition, pass by pass: ``F / (peak · eta · w · d)``, forward
    ``[m x k]·[k x n]`` (with its recomputation), input gradient ``[m x n]·[n x k]``, weight
    gradient ``[k x m]·[m x n]``; a grouped launch fills the waves with ``gemm_group`` GEMMs.
    ``shard = (t, c)``: the efficiencies at the GEMM one rank runs (Shoeybi et al. 2019,
    section 3; Liu et al. 2023): ``ceil(m / c)`` rows; a split column-parallel GEMM
    ``ceil(n / t)`` output features, a row-parallel one ``ceil(k / t)`` input features, the
    attention core ``ceil(batch / t)`` heads; ``eta`` at the rank's FLOPs, ``F · 1/(c·t)``."""
    from mlcost.workload import OperatorKind

    batch = op.gemm_group if grouped else (op.gemm_batch if np.any(op.gemm_batch) else 1)
    attention = op.kind == OperatorKind.ATTENTION
    m, n, k, flops = op.m, op.n, op.k, op.forward_flops
    if shard != (1, 1):
        t, c = shard
        t = t if op.tensor_parallel else 1
        m = np.ceil(m / c)
        if op.tensor_parallel and attention:
            batch = np.ceil(batch / t)
        elif op.tensor_parallel and op.row_parallel:
            k = np.ceil(k / t)
        elif op.tensor_parallel:
            n = np.ceil(n / t)
        flops = flops * (1.0 / (c * t))
    seconds = 0.0
    for part, layout, (rows, cols, depth) in (
        (op.forward_flops + op.recompute_flops, "nn", (m, n, k)),
        (op.backward_input_flops, "nt", (m, k, n)),
        (op.backward_weight_flops, "tn", (k, n, m)),
    ):
        if not np.any(part):
            continue
        eta = ceilings.gemm_efficiency(flops, attention=attention, layout=layout)
        if ceilings.sustained_curve:  # the clock sustained under load (H100 at 700 W), in log FLOPs
            points = np.asarray(ceilings.sustained_curve)
            eta = eta * np.interp(np.log10(flops), np.log10(points[:, 0]), points[:, 1])
        shape = ceilings.gemm_wave_efficiency(rows, cols, batch) * ceilings.gemm_depth_efficiency(
            depth
        )
        seconds = seconds + part / (ceilings.peak_flops * eta * shape)
    return seconds


def test_gemm_rows_evaluated_together_equal_each_row_by_hand() -> None:
    """``gemm_compute`` evaluates all GEMM rows of one format at once; the oracle is each row's
    formula written out above, to the last bit: a plain table, a micro-batch sweep, rows of
    different widths together, the FP8 recipe's two formats, an MoE layer's grouped experts,
    and measured size and attention curves."""
    import dataclasses

    from mlcost.operator_time import gemm_compute

    gpu = mlcost.accelerator("h100-sxm5-80gb")
    llama, moe = mlcost.model("llama-2-7b"), mlcost.model("mixtral-8x7b")
    plain_table = operators(llama, TrainingConfig(sequence_length=1024))
    sweep = operators(
        llama, TrainingConfig(sequence_length=1024), micro_batch_size=np.array([1, 3, 8])
    )
    fp8 = operators(llama, TrainingConfig(precision="fp8", sequence_length=512))
    experts = operators(moe, TrainingConfig(sequence_length=512))
    bf16 = Ceilings.from_accelerator(gpu, "bf16")
    curves = dataclasses.replace(
        bf16,
        gemm_curve=((1e6, 0.2), (1e9, 0.6), (1e12, 0.75)),
        gemm_curve_nt=((1e6, 0.15), (1e12, 0.7)),
        attention_curve=((1e6, 0.1), (1e11, 0.5)),
    )
    cases = [
        (plain_table.operators, bf16, False),
        (sweep.operators, bf16, False),
        (plain_table.operators + sweep.operators, bf16, False),  # numbers beside the sweep's arrays
        (
            [op for op in fp8.operators if op.format == ""],
            Ceilings.from_accelerator(gpu, "fp8"),
            False,
        ),
        ([op for op in fp8.operators if op.format == "bf16"], bf16, False),
        (experts.operators, bf16, True),
        (plain_table.operators, curves, False),
    ]
    for ops, ceilings, grouped in cases:
        gemms = [op for op in ops if op.is_matmul]
        flags = [grouped and bool(np.any(op.gemm_group)) for op in gemms]
        assert any(flags) == grouped and len(gemms) > 1
        together = gemm_compute(gemms, ceilings, flags)
        for op, flag, seconds in zip(gemms, flags, together, strict=True):
            expected = _gemm_seconds_by_hand(op, ceilings, flag)
            assert np.shape(seconds) == np.shape(expected), op.name
            np.testing.assert_array_equal(seconds, expected, err_msg=op.name)


def test_divide_is_ieee_division() -> None:
    """``arrays.divide``: a zero denominator gives an infinity of the quotient's sign, or NaN
    for 0 / 0 (IEEE 754), not ``ZeroDivisionError``; arrays as numpy's ``/``."""
    from mlcost.arrays import divide

    assert divide(3.0, 2) == 1.5
    assert divide(1.0, 0.0) == np.inf and divide(-1.0, 0.0) == -np.inf
    assert divide(1.0, -0.0) == -np.inf and divide(0, 0) != divide(0, 0)  # NaN
    np.testing.assert_array_equal(divide(np.array([1.0, 0.0]), 0.0), [np.inf, np.nan])


def test_gemm_rows_at_several_shards_equal_each_shard_by_hand() -> None:
    """``gemm_compute_by_shard`` times GEMM rows at several tensor- and context-parallel
    shards in one array call (a search's tables); each shard's seconds equal the rank's
    GEMM written out by hand (:func:`_gemm_seconds_by_hand`), to the last bit: a plain table,
    a micro-batch sweep, and an MoE layer's grouped experts, with the whole GEMM among the
    shards."""
    from mlcost.operator_time import gemm_compute_by_shard

    gpu = mlcost.accelerator("h100-sxm5-80gb")
    bf16 = Ceilings.from_accelerator(gpu, "bf16")
    llama, moe = mlcost.model("llama-2-7b"), mlcost.model("mixtral-8x7b")
    plain_table = operators(llama, TrainingConfig(sequence_length=1024))
    sweep = operators(
        llama, TrainingConfig(sequence_length=1024), micro_batch_size=np.array([1, 3, 8])
    )
    experts = operators(moe, TrainingConfig(sequence_length=512))
    shards = [(1, 1), (2, 1), (8, 1), (1, 4), (4, 2), (3, 3)]
    for table, grouped in ((plain_table, False), (sweep, False), (experts, True)):
        gemms = [op for op in table.operators if op.is_matmul]
        flags = [grouped and bool(np.any(op.gemm_group)) for op in gemms]
        assert any(op.tensor_parallel and op.row_parallel for op in gemms)
        per_shard = gemm_compute_by_shard(gemms, bf16, flags, shards)
        assert len(per_shard) == len(shards)
        for shard, together in zip(shards, per_shard, strict=True):
            for op, flag, seconds in zip(gemms, flags, together, strict=True):
                expected = _gemm_seconds_by_hand(op, bf16, flag, shard)
                assert np.shape(seconds) == np.shape(expected), (op.name, shard)
                np.testing.assert_array_equal(seconds, expected, err_msg=f"{op.name} {shard}")
        # A split GEMM is slower per FLOP on a rank's narrower shape than on the whole one.
        whole, split = per_shard[0], per_shard[2]
        assert any(np.all(b > a) for a, b in zip(whole, split, strict=True))


def test_a_step_at_several_shards_equals_each_shard_alone() -> None:
    """``operator_times_by_shard`` (one evaluation for all shards: the rows no shard changes
    timed once, the GEMMs in one array call, the measured attention kernel looked up per
    tensor-parallel degree) gives each shard the rows ``operator_times`` gives it alone, under
    Megatron-Core on an H100 (a measured fused attention kernel, fused projections) and
    without an implementation."""
    from mlcost.implementation import implementation
    from mlcost.timing import operator_times_by_shard, step_ceilings

    gpu = mlcost.accelerator("h100-sxm5-80gb")
    config = TrainingConfig(sequence_length=4096)
    table = operators(mlcost.model("llama-2-7b"), config)
    shards = [(1, 1), (2, 1), (8, 1), (1, 2), (4, 2)]
    ceilings = step_ceilings(gpu, config)
    for software in (implementation("megatron-core"), None):
        together = operator_times_by_shard(
            table, ceilings, shards, software=software, accelerators=(gpu.name,)
        )
        for shard, step in zip(shards, together, strict=True):
            alone = operator_times(
                table, ceilings, software=software, accelerators=(gpu.name,), shard=shard
            )
            assert step.details == alone.details
            if software is not None:
                assert "attention_kernel" in step.details
            for a, b in zip(step.rows, alone.rows, strict=True):
                assert a == b, (shard, a.name)
    assert operator_times_by_shard(table, ceilings, []) == []


def _same_row(a: object, b: object, where: str) -> None:
    """Two operator rows equal field by field, to the last bit, values of the same type (a
    Python number stays one; an array keeps its shape)."""
    for name in type(a).__struct_fields__:  # type: ignore[attr-defined]
        x, y = getattr(a, name), getattr(b, name)
        assert type(x) is type(y), (where, name, type(x), type(y))
        if isinstance(x, np.ndarray):
            assert x.shape == y.shape and x.dtype == y.dtype, (where, name)
            np.testing.assert_array_equal(x, y, err_msg=f"{where} {name}")
        else:
            assert x == y or (x != x and y != y), (where, name, x, y)


def test_a_sweep_at_several_shards_equals_each_shard_alone() -> None:
    """A micro-batch sweep's step at several shards in one evaluation (a search's tables: the
    GEMM rows timed at every shard in one call each, the measured attention kernel looked up at
    every tensor-parallel degree in one call, the compute parts split for every shard at once)
    gives each shard what it gets alone: every field of every operator row, and every compute
    part, to the last bit. Under Megatron-Core on an H100 (a measured fused attention kernel
    over launch sizes, fused projections), without an implementation, and with full
    recomputation."""
    from mlcost.implementation import implementation
    from mlcost.parallel.compute import compute_parts, compute_parts_by_shard
    from mlcost.timing import operator_times_by_shard, step_ceilings

    gpu = mlcost.accelerator("h100-sxm5-80gb")
    model = mlcost.model("llama-2-7b")
    config = TrainingConfig(sequence_length=4096)
    sizes = np.array([1, 2, 3, 8])
    shards = [(1, 1), (2, 1), (8, 1), (1, 2), (4, 2)]
    ceilings = step_ceilings(gpu, config)
    for software in (implementation("megatron-core"), None):
        for recompute in ("none", "full"):
            layout = Layout(recompute=recompute)
            table = operators(model, config, layout, micro_batch_size=sizes)
            together = operator_times_by_shard(
                table, ceilings, shards, software=software, accelerators=(gpu.name,)
            )
            parts = compute_parts_by_shard(
                model, config, gpu, layout, sizes, shards, software=software
            )
            for shard, step, split in zip(shards, together, parts, strict=True):
                alone = operator_times(
                    table, ceilings, software=software, accelerators=(gpu.name,), shard=shard
                )
                assert step.details == alone.details
                assert (software is not None) == ("attention_kernel" in step.details)
                for a, b in zip(step.rows, alone.rows, strict=True):
                    _same_row(a, b, f"{shard} {recompute} {a.name}")
                one = compute_parts(
                    model, config, gpu, layout.model_copy(update={"tp": shard[0], "cp": shard[1]}),
                    sizes, software=software,
                )  # fmt: skip
                _same_row(split, one, f"{shard} {recompute} parts")
            # The shards differ: a rank's narrower GEMMs, a launch of fewer heads.
            assert not np.array_equal(parts[0].layers_gemm, parts[2].layers_gemm)
            if software is not None:
                assert not np.array_equal(parts[0].attention, parts[2].attention)


def test_time_to_train_by_hand() -> None:
    """``training_time``: 2e12 tokens at 1024 x 4096 = 4,194,304 tokens per step is
    476,837.16 -> 476,838 whole steps; at 1.5 s per step and goodput 0.97 the wall clock is
    476,838 x 1.5 / 0.97 s, and on 8 GPUs the GPU-hours 8 x that / 3600 (hand derivation); the
    same numbers as a sweep's arrays; a goodput of 0 gives an infinite wall clock (IEEE), not an
    error."""
    from mlcost.timing import training_time

    one = training_time(2e12, 1024 * 4096, 1.5, 8, 0.97)
    assert one.steps == 476_838.0
    assert one.wall_seconds == pytest.approx(476_838 * 1.5 / 0.97, rel=1e-15)
    assert one.gpu_hours == pytest.approx(8 * 476_838 * 1.5 / 0.97 / 3600, rel=1e-15)
    swept = training_time(np.array([2e12, 4e12]), 1024 * 4096, 1.5, 8, np.array([0.97, 1.0]))
    np.testing.assert_array_equal(swept.steps, [476_838.0, 953_675.0])
    assert swept.wall_seconds[0] == one.wall_seconds
    assert training_time(5e11, 1000, 1.25, 16, 0.0).wall_seconds == math.inf


def test_fused_residual_add_is_not_called_compute_bound() -> None:
    # The default implementation folds each residual add into the kernel before it (a
    # bias-dropout-add): the row runs no kernel, so it has neither compute nor memory time.
    # With both times zero, "compute >= memory" holds trivially; the label must say "fused",
    # not "compute" (a residual add does one FLOP per element it reads twice and writes once,
    # well under 1 FLOP/B, far below any ridge point).
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    step = step_time(mlcost.model("gpt2"), TrainingConfig(sequence_length=128), gpu)
    adds = [r for r in step.rows if r.name.endswith("residual add")]
    assert adds and all(float(np.sum(r.compute)) == float(np.sum(r.memory)) == 0 for r in adds)
    assert {str(r.bound) for r in adds} == {"fused"}
    others = [r for r in step.rows if float(np.sum(r.memory)) > 0]
    assert {str(r.bound) for r in others} <= {"compute", "memory"}
