"""What specs and the catalog compute once and keep: never answered from a stale memo.

A spec keeps what it derives from its fields (its parameter count, an accelerator's ceilings);
a copy with a changed field must count afresh. The catalog keeps each system it resolved; other
settings must resolve another one. Expected values are derived by hand in each test.
"""

from __future__ import annotations

import copy

import mlcost
from mlcost.assumptions import Assumptions
from mlcost.roofline import Ceilings
from mlcost.specs import default_catalog
from mlcost.units import Q_


def llama2_7b_parameters(layers: int) -> int:
    """Llama-2-7B by hand (h 4096, FFN 11008, vocabulary 32000, untied head, RMSNorm without
    bias): per layer ``4·h² + 3·h·f + 2·h``, plus the embedding, the head and the final norm."""
    h, f, v = 4096, 11008, 32000
    per_layer = 4 * h * h + 3 * h * f + 2 * h
    return layers * per_layer + 2 * v * h + h


def test_a_copy_with_fewer_layers_counts_its_own_parameters() -> None:
    model = mlcost.model("llama-2-7b")
    assert model.parameter_count == llama2_7b_parameters(32) == 6_738_415_616
    two = model.model_copy(update={"num_layers": 2})
    assert two.parameter_count == llama2_7b_parameters(2)
    assert two.active_parameter_count == llama2_7b_parameters(2)
    assert model.parameter_count == llama2_7b_parameters(32)  # the original keeps its own
    assert copy.deepcopy(model).parameter_count == llama2_7b_parameters(32)
    assert copy.deepcopy(model) == model  # what a spec keeps is not part of its equality


def test_a_copy_of_an_accelerator_derives_its_own_ceilings() -> None:
    gpu = mlcost.accelerator("h100-sxm5-80gb")
    peak = Ceilings.from_accelerator(gpu, "bf16").peak_flops
    entries = [
        e.model_copy(update={"dense": e.dense / 2}) if e.format == "bf16" else e
        for e in gpu.peak_compute
    ]
    halved = gpu.model_copy(update={"peak_compute": entries})
    assert Ceilings.from_accelerator(halved, "bf16").peak_flops == peak / 2
    assert Ceilings.from_accelerator(gpu, "bf16").peak_flops == peak


def test_the_catalog_resolves_a_system_once_per_settings() -> None:
    catalog = default_catalog()
    first = mlcost.system("mi300x", catalog=catalog)
    assert mlcost.system("mi300x", catalog=catalog) is first
    # The MI300X node has no power figure: its host power is the assumption (25 W per GPU by
    # default); other assumptions resolve another system with theirs.
    assert first.host_power_per_gpu.to("W").magnitude == 25
    other = mlcost.system(
        "mi300x", catalog=catalog, assumptions=Assumptions(host_power_per_gpu=Q_(99, "W"))
    )
    assert other.host_power_per_gpu.to("W").magnitude == 99
    assert mlcost.system("mi300x", catalog=catalog).host_power_per_gpu.to("W").magnitude == 25
    assert mlcost.system("mi300x", gpus=16, catalog=catalog).nodes == 2


def test_a_copy_of_an_implementation_dispatches_at_its_own_overhead() -> None:
    # The previous landing kept the original's converted overhead in a copy (a cached property
    # copied with the fields): 6 us where 99 us was given.
    software = default_catalog().implementation("megatron-core")
    assert software.dispatch_seconds == software.dispatch_overhead.to("s").magnitude
    slower = software.model_copy(update={"dispatch_overhead": Q_(99, "us")})
    assert slower.dispatch_seconds == 99e-6
