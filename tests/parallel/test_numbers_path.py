"""One layout evaluated on Python numbers equals the same layout evaluated on one-element arrays,
bit for bit.

The evaluator (:func:`mlcost.parallel.step.evaluate`: the shard's compute, every strategy's
communication terms, their placement and algorithms) runs on arrays for a search and on Python
numbers for one layout (:meth:`Degrees.of_layout`, parts of one micro-batch size given as an
int). The arrays path is the one the hand derivations of ``test_step.py``,
``test_chapter_and_papers.py`` and ``tests/comms`` check; this test holds the numbers path to it:
every field of the step and of every term, the same IEEE double (NaN equal to NaN, and the sign
of a zero kept), and a Python number (so the test fails if the numbers path is not taken).
"""

from __future__ import annotations

import datetime
import math
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mlcost
from mlcost.comms import Collective, collective_seconds, placement
from mlcost.implementation import implementation
from mlcost.layout import Layout
from mlcost.parallel.compute import compute_parts, model_dims
from mlcost.parallel.degrees import CommOptions, Degrees
from mlcost.parallel.step import evaluate
from mlcost.results import first_largest
from mlcost.specs import Accelerator
from mlcost.specs.hardware import CollectiveFit, Measured
from mlcost.systems import system
from mlcost.units import Q_
from mlcost.workload import TrainingConfig

NUMBERS = (int, float, bool)


def same(number: Any, array: Any) -> bool:
    """``number`` (a Python number) is the one value of ``array``, to the bit, and of the type
    numpy's value converts to (an int for an integer array, a float for a float one)."""
    value = np.asarray(array).reshape(-1)
    if value.size != 1 or type(number) not in NUMBERS:
        return False
    other = value[0].item()
    if type(number) is not type(other):
        return False
    if isinstance(number, float) and math.isnan(number):
        return isinstance(other, float) and math.isnan(other)
    if number != other:
        return False
    return not (isinstance(number, float) and number == 0.0) or (
        math.copysign(1.0, number) == math.copysign(1.0, other)
    )


def _calibrated() -> Any:
    """A DGX H100 whose GPU carries measured all-reduce and all-gather fits (the fitted
    intra-node tier of :func:`mlcost.comms.placement.group_links`)."""
    base = mlcost.accelerator("h100-sxm5-80gb")
    fits = (
        CollectiveFit(
            collective="all_reduce", alpha=Q_(20, "us"), bandwidth=Q_(200, "GB/s"), r_squared=1.0
        ),
        CollectiveFit(
            collective="all_gather", alpha=Q_(9, "us"), bandwidth=Q_(150, "GB/s"), r_squared=1.0
        ),
    )
    measured = Measured(measured_on="test", date=datetime.date(2025, 1, 1), collectives=fits)
    profile = Accelerator(**{**base.model_dump(), "measured": measured})
    return system("dgx-h100", accelerator=profile)


SYSTEMS = {
    "dgx-h100": lambda: mlcost.system("dgx-h100"),
    "dgx-a100": lambda: mlcost.system("dgx-a100"),
    "pcie-server-8gpu": lambda: mlcost.system("pcie-server-8gpu"),
    "calibrated dgx-h100": _calibrated,
}
MODELS = {"llama-2-7b": 32, "mixtral-8x7b": 32, "gpt2": 12}


@st.composite
def layouts(draw: Any) -> tuple[str, Layout]:
    """A model and a layout it can be split by (heads, layers and experts divisible)."""
    name = draw(st.sampled_from(sorted(MODELS)))
    tp = draw(st.sampled_from([1, 2, 4] if name == "gpt2" else [1, 2, 4, 8]))
    pp = draw(st.sampled_from([1, 2, 4]))
    cp = draw(st.sampled_from([1, 2]))
    dp = draw(st.sampled_from([1, 2, 4, 8, 16]))
    # The expert-parallel group is taken from the data-parallel ranks: a divisor of dp.
    experts = [e for e in (1, 2, 4, 8) if dp % e == 0]
    ep = draw(st.sampled_from(experts)) if name == "mixtral-8x7b" else 1
    virtual = draw(st.sampled_from([1, 2])) if pp > 1 else 1
    micro = draw(st.sampled_from([1, 2]))
    sequence_parallel = tp > 1 and draw(st.booleans())
    layout = Layout(
        dp=dp, tp=tp, pp=pp, cp=cp, ep=ep, virtual_stages=virtual, micro_batch_size=micro,
        global_batch_size=dp * micro * draw(st.sampled_from([1, 4, 16])),
        zero_stage=draw(st.integers(0, 3)), sequence_parallel=sequence_parallel,
        recompute=draw(st.sampled_from(["none", "selective", "full"])),
        tp_overlap=sequence_parallel and draw(st.booleans()),
    )  # fmt: skip
    return name, layout


@given(
    case=layouts(),
    system_name=st.sampled_from(sorted(SYSTEMS)),
    software=st.sampled_from([None, "megatron-core", "fsdp", "deepspeed"]),
    overlap=st.booleans(),
    bucket_mb=st.sampled_from([25, 1000]),
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_one_layout_on_numbers_equals_it_on_arrays(
    case: tuple[str, Layout], system_name: str, software: str | None, overlap: bool,
    bucket_mb: int,
) -> None:  # fmt: skip
    name, layout = case
    model = mlcost.model(name)
    config = TrainingConfig(sequence_length=1024)
    sw = implementation(software)
    if layout.tp_overlap and not sw.spec.tp_comm_overlap:
        layout = layout.model_copy(update={"tp_overlap": False})
    resolved = SYSTEMS[system_name]().for_gpus(layout.gpus)
    dims = model_dims(model, config, sw)
    options = CommOptions(overlap=overlap, bucket=Q_(bucket_mb, "MB"))
    per_node = min(resolved.gpus_per_node, layout.gpus)
    gpu = resolved.accelerator

    size = layout.micro_batch_size
    on_numbers = evaluate(
        dims, resolved, Degrees.of_layout(layout, MODELS[name]),
        compute_parts(model, config, gpu, layout, int(size), software=sw),
        gpus_per_node=per_node, options=options, software=sw,
    )  # fmt: skip
    on_arrays = evaluate(
        dims, resolved, Degrees.from_layouts([layout], MODELS[name]),
        compute_parts(model, config, gpu, layout, np.array([size]), software=sw),
        gpus_per_node=np.array([per_node]), options=options, software=sw,
    )  # fmt: skip
    for field in ("compute", "bubble", "exposed", "communication", "total", "model_flops", "mfu"):
        assert same(getattr(on_numbers, field), getattr(on_arrays, field)), field
    for field in ("micro_batch", "forward", "backward", "attention", "all_stages", "optimizer",
                  "layer_gemm"):  # fmt: skip
        assert same(getattr(on_numbers.shard, field), getattr(on_arrays.shard, field)), field
    assert [t.strategy for t in on_numbers.terms] == [t.strategy for t in on_arrays.terms]
    for number, array in zip(on_numbers.terms, on_arrays.terms, strict=True):
        for field in ("message_bytes", "calls", "ranks", "link_code", "time_seconds",
                      "exposed_seconds"):  # fmt: skip
            assert same(getattr(number, field), getattr(array, field)), (number.strategy, field)


@given(
    collective=st.sampled_from(list(Collective)),
    ranks=st.sampled_from([1, 2, 3, 4, 8, 16, 64]),
    stride=st.sampled_from([1, 2, 8]),
    size=st.sampled_from([0.0, 1.0, 4096.0, 3e6, 1.4e10]),
    system_name=st.sampled_from(sorted(SYSTEMS)),
)
@settings(max_examples=150, deadline=None)
def test_a_collective_on_numbers_equals_it_on_arrays(
    collective: Collective, ranks: int, stride: int, size: float, system_name: str
) -> None:
    # Every algorithm ``auto`` weighs (ring, tree, hierarchical, in-network, direct), placed in
    # one node or across nodes, with and without a measured fit.
    resolved = SYSTEMS[system_name]().for_gpus(ranks * stride)
    where = placement(resolved, ranks, stride)
    on_numbers = collective_seconds(resolved, collective, size, where)
    arrays = placement(resolved, np.array([ranks]), np.array([stride]))
    on_arrays = collective_seconds(resolved, collective, np.array([size]), arrays)
    assert same(on_numbers, on_arrays)
    assert same(where.nodes, arrays.nodes) and same(where.per_node, arrays.per_node)


@given(
    st.lists(
        st.sampled_from([0.0, -0.0, 1.0, 2.0, 2.0, math.inf, math.nan]), min_size=3, max_size=3
    )
)
def test_the_slowest_stage_of_numbers_is_numpys_argmax(values: list[float]) -> None:
    # Ties pick the first stage and a NaN is the largest, as np.argmax does: the stage whose
    # layer count the shard's attention and GEMM windows use.
    assert first_largest(values) == int(np.argmax(np.array(values)))
