"""A strategy none of the candidates uses (every group of one rank) records its terms inactive
without evaluating its formulas (``_Terms.inactive``). Oracle: the same builders with that
shortcut switched off, so every formula is evaluated and ``_Terms.term`` masks the one-rank
groups out: both must give the same terms, field by field, values, shapes and dtypes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import mlcost
from mlcost.implementation import implementation
from mlcost.layout import Layout
from mlcost.parallel import traffic
from mlcost.parallel.compute import compute_parts, model_dims, shard_compute
from mlcost.parallel.degrees import CommOptions, CommTerm, Degrees
from mlcost.workload import TrainingConfig

BUILDERS = (
    traffic.tensor_parallel_terms,
    traffic.context_parallel_terms,
    traffic.pipeline_terms,
    traffic.data_parallel_terms,
    traffic.zero_staged_terms,
    traffic.zero3_terms,
    traffic.expert_parallel_terms,
)
DENSE = [
    Layout(),
    Layout(dp=8, zero_stage=1, micro_batch_size=1, global_batch_size=64),
    Layout(dp=8, micro_batch_size=1, global_batch_size=64),
    Layout(tp=8, micro_batch_size=2, global_batch_size=16),
    Layout(tp=2, pp=2, dp=2, zero_stage=3, micro_batch_size=1, global_batch_size=16),
    Layout(tp=2, cp=2, dp=2, zero_stage=2, sequence_parallel=True, micro_batch_size=1,
           global_batch_size=16),
    Layout(pp=4, virtual_stages=2, dp=4, micro_batch_size=1, global_batch_size=64),
]  # fmt: skip
EXPERTS = [
    Layout(dp=8, micro_batch_size=1, global_batch_size=64),
    Layout(dp=8, ep=2, zero_stage=1, micro_batch_size=1, global_batch_size=64),
    Layout(tp=2, dp=4, ep=4, micro_batch_size=1, global_batch_size=64),
]


def _context(name: str, layouts: list[Layout]) -> traffic._Terms:
    model = mlcost.model(name)
    config = TrainingConfig(sequence_length=1024)
    software = implementation(None)
    system = mlcost.system("dgx-h100", gpus=max(layout.gpus for layout in layouts))
    degrees = Degrees.from_layouts(layouts, model.num_layers)
    parts = compute_parts(
        model, config, system.accelerator, layouts[0], np.array([1]), software=software
    ).take(np.zeros(len(layouts), dtype=np.int64))
    return traffic._Terms(
        model_dims(model, config, software),
        system,
        degrees,
        shard_compute(parts, degrees, model.num_layers),
        np.minimum(system.gpus_per_node, degrees.gpus),
        CommOptions().for_software(software),
    )


CONTEXTS = [("llama-2-7b", [layout]) for layout in DENSE] + [("llama-2-7b", DENSE[1:])]
CONTEXTS += [("mixtral-8x7b", [layout]) for layout in EXPERTS] + [("mixtral-8x7b", EXPERTS)]


def _same(ours: CommTerm, evaluated: CommTerm) -> None:
    for field in CommTerm.__struct_fields__:
        a, b = getattr(ours, field), getattr(evaluated, field)
        if isinstance(b, np.ndarray):
            assert isinstance(a, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape, field
            assert np.array_equal(a, b), field
        else:
            assert a == b and type(a) is type(b), field


@pytest.mark.parametrize(("name", "layouts"), CONTEXTS)
def test_inactive_terms_equal_the_evaluated_ones(
    name: str, layouts: list[Layout], monkeypatch: pytest.MonkeyPatch
) -> None:
    context = _context(name, layouts)
    ours = {builder.__name__: builder(context) for builder in BUILDERS}
    shortcuts = sum(context.unused(term.ranks) for terms in ours.values() for term in terms)
    monkeypatch.setattr(traffic._Terms, "unused", lambda self, ranks: False)
    evaluated: dict[str, Any] = {builder.__name__: builder(context) for builder in BUILDERS}
    for builder, terms in ours.items():
        assert len(terms) == len(evaluated[builder]), builder
        for term, full in zip(terms, evaluated[builder], strict=True):
            _same(term, full)
            if not np.any(np.asarray(term.ranks) > 1):  # inactive: nothing sent
                assert not np.any(term.time_seconds) and not np.any(term.calls)
                assert np.all(np.asarray(term.link) == "none")
    if len(layouts) == 1:  # a single layout leaves some strategy unused
        assert shortcuts > 0


def test_one_layout_step_is_unchanged_by_the_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Layout(dp=8, zero_stage=1, micro_batch_size=1, global_batch_size=1024)
    config = TrainingConfig(sequence_length=4096)
    ours = mlcost.multi_gpu_step_time("llama-2-7b", config, "dgx-h100", layout).to_json()
    monkeypatch.setattr(traffic._Terms, "unused", lambda self, ranks: False)
    evaluated = mlcost.multi_gpu_step_time("llama-2-7b", config, "dgx-h100", layout).to_json()
    assert ours == evaluated
