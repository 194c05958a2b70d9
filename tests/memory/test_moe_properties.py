"""Invariants of mixture-of-experts models (hypothesis): counts, FLOPs and memory.

* active parameters never exceed the total, and the difference is exactly the idle ``(E - k)/E``
  share of the routed experts (Fedus et al. 2022, section 2);
* the step's matmul FLOPs do not depend on the expert-parallel degree (it only regroups the
  same GEMMs) and never grow when a capacity factor drops tokens;
* more expert parallelism never needs more memory per GPU, and ZeRO-3 never more than ZeRO-2.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import mlcost
from mlcost.layout import Layout
from mlcost.memory import memory_breakdown
from mlcost.specs.models import MixtureOfExperts, TransformerSpec
from mlcost.workload import TrainingConfig, operators

BASE = mlcost.model("mixtral-8x7b")
assert isinstance(BASE, TransformerSpec)


@st.composite
def moe_models(draw: st.DrawFn) -> TransformerSpec:
    experts = draw(st.sampled_from([4, 8, 16, 64]))
    moe = MixtureOfExperts(
        num_experts=experts,
        experts_per_token=draw(st.integers(1, min(experts, 8))),
        expert_ffn_size=draw(st.sampled_from([256, 1024, 14336])),
        num_shared_experts=draw(st.integers(0, 2)),
        first_dense_layers=draw(st.integers(0, 3)),
        every=draw(st.integers(1, 2)),
        router_bias=draw(st.booleans()),
    )
    return TransformerSpec(**{**BASE.model_dump(exclude={"moe"}), "moe": moe.model_dump()})


@settings(max_examples=30, deadline=None)
@given(model=moe_models())
def test_active_parameters_are_the_total_less_the_idle_experts(model: TransformerSpec) -> None:
    moe = model.moe
    assert moe is not None
    routed = model.expert_parameter_count
    per_expert = 3 * model.hidden_size * moe.expert_ffn_size
    assert routed == model.moe_layers * moe.num_experts * per_expert
    idle = model.moe_layers * (moe.num_experts - moe.experts_per_token) * per_expert
    assert model.parameter_count - model.active_parameter_count == idle
    assert model.active_parameter_count <= model.parameter_count


@settings(max_examples=20, deadline=None)
@given(
    model=moe_models(),
    ep_power=st.integers(0, 2),
    capacity=st.sampled_from([0.25, 0.5, 1.0, 2.0]),
    batch=st.integers(1, 4),
)
def test_flops_ignore_ep_and_shrink_with_dropping(
    model: TransformerSpec, ep_power: int, capacity: float, batch: int
) -> None:
    moe = model.moe
    assert moe is not None
    ep = 2**ep_power
    config = TrainingConfig(sequence_length=256)
    base = operators(model, config, Layout(micro_batch_size=batch)).matmul_flops()
    spread = operators(model, config, Layout(dp=4, ep=ep, micro_batch_size=batch)).matmul_flops()
    assert spread.magnitude == base.magnitude or abs(spread.magnitude / base.magnitude - 1) < 1e-12
    capped = model.model_copy(update={"moe": moe.model_copy(update={"capacity_factor": capacity})})
    dropped = operators(capped, config, Layout(micro_batch_size=batch)).matmul_flops()
    assert dropped.magnitude <= base.magnitude * (1 + 1e-12)


@settings(max_examples=20, deadline=None)
@given(model=moe_models(), zero=st.integers(0, 3), batch=st.integers(1, 4))
def test_more_expert_parallelism_never_needs_more_memory(
    model: TransformerSpec, zero: int, batch: int
) -> None:
    config = TrainingConfig(sequence_length=1024)
    totals = [
        memory_breakdown(
            model, config, None, Layout(dp=8, ep=ep, zero_stage=zero, micro_batch_size=batch)
        ).total.magnitude
        for ep in (1, 2, 4)
    ]
    assert totals[0] >= totals[1] >= totals[2]
    if zero == 2:
        three = memory_breakdown(
            model, config, None, Layout(dp=8, ep=4, zero_stage=3, micro_batch_size=batch)
        ).total.magnitude
        assert three <= totals[2]
