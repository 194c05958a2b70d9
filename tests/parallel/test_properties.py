"""Invariants of the multi-GPU model (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mlcost
from mlcost.memory import memory_breakdown
from mlcost.parallel import CommOptions, Layout, multi_gpu_step_time, scaling_curve
from mlcost.workload import TrainingConfig

CONFIG = TrainingConfig(sequence_length=1024)
MODEL = mlcost.model("llama-2-7b")  # 32 layers, 32 heads: every t, p below divides them
GPU = mlcost.accelerator("h100-sxm5-80gb")
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

layouts = st.fixed_dictionaries(
    {
        "tp": st.sampled_from([1, 2, 4, 8]),
        "pp": st.sampled_from([1, 2, 4]),
        "cp": st.sampled_from([1, 2]),
        "micro_batch_size": st.sampled_from([1, 2, 4]),
        "zero_stage": st.sampled_from([0, 1, 2, 3]),
        "sequence_parallel": st.booleans(),
        "recompute": st.sampled_from(["none", "selective", "full"]),
    }
)


@SETTINGS
@given(fields=layouts, dp_exponent=st.integers(1, 3))
def test_memory_and_compute_never_grow_with_more_gpus(fields: dict, dp_exponent: int) -> None:  # type: ignore[type-arg]
    # fixed global batch; doubling the data-parallel degree from dp >= 2 (a single replica keeps
    # no DDP buckets, so going from 1 to 2 GPUs adds 50 MB of buffers)
    global_batch = 64
    dp = 2**dp_exponent
    small = Layout(dp=dp, global_batch_size=global_batch, **fields)
    large = Layout(dp=2 * dp, global_batch_size=global_batch, **fields)
    nodes = max(1, large.gpus // 8)
    one = multi_gpu_step_time(MODEL, CONFIG, "dgx-h100", small, nodes=nodes)
    two = multi_gpu_step_time(MODEL, CONFIG, "dgx-h100", large, nodes=nodes)
    assert two.compute <= one.compute * (1 + 1e-12)
    assert memory_breakdown(MODEL, CONFIG, GPU, large).total <= memory_breakdown(
        MODEL, CONFIG, GPU, small
    ).total * (1 + 1e-12)


@SETTINGS
@given(fields=layouts, dp=st.sampled_from([1, 2, 4, 8]))
def test_hidden_communication_fits_in_the_compute(fields: dict, dp: int) -> None:  # type: ignore[type-arg]
    # Communication can only hide behind compute that exists: what all terms hide together is
    # at most the step's compute time; and switching overlap off never shortens the step.
    layout = Layout(dp=dp, gradient_accumulation=4, **fields)
    step = multi_gpu_step_time(MODEL, CONFIG, "dgx-h100", layout)
    assert step.hidden_communication <= step.compute * (1 + 1e-12)
    exposed = multi_gpu_step_time(
        MODEL, CONFIG, "dgx-h100", layout, options=CommOptions(overlap=False)
    )
    assert exposed.total >= step.total * (1 - 1e-12)


@SETTINGS
@given(
    tp=st.sampled_from([1, 2, 8]),
    pp=st.sampled_from([1, 2, 4]),
    zero=st.sampled_from([0, 1, 3]),
    kind=st.sampled_from(["strong", "weak"]),
    system=st.sampled_from(["dgx-h100", "dgx-a100", "dgx-1-v100"]),
)
def test_scaling_efficiency_in_unit_interval(
    tp: int, pp: int, zero: int, kind: str, system: str
) -> None:
    base = tp * pp
    gpus = [base * 2**k for k in range(0, 6)]
    layout = Layout(tp=tp, pp=pp, zero_stage=zero, micro_batch_size=1, global_batch_size=32)
    config = TrainingConfig(sequence_length=1024, precision="fp16-mixed")  # V100: no bf16
    curve = scaling_curve(MODEL, config, system, gpus, layout=layout, kind=kind).frame
    assert ((curve["efficiency"] > 0) & (curve["efficiency"] <= 1 + 1e-12)).all()
