"""The plain-PyTorch engine profiles count what PyTorch's own profiler counts: the operations one
decode step of ``scripts/measure_serving.py`` dispatches and the kernels among them, per layer
(the difference between a 4-layer and a 2-layer model) and outside the layers."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import pytest
import torch
from torch.profiler import ProfilerActivity, profile

from mlcost.specs import Catalog

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "measure_serving.py"
#: aten operations that return a view (no kernel): what the profiler lists and the GPU never runs.
VIEWS = {"aten::slice", "aten::select", "aten::transpose", "aten::view", "aten::alias",
         "aten::split_with_sizes", "aten::chunk"}  # fmt: skip


def _script() -> object:
    spec = importlib.util.spec_from_file_location("measure_serving", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _decode_step_ops(layers: int) -> Counter[str]:
    script = _script()
    shape = script.shape_of("llama-3.2-1b", True)  # type: ignore[attr-defined]
    shape["layers"] = layers
    model = script.Decoder(shape, "cpu", torch.bfloat16)  # type: ignore[attr-defined]
    model.allocate_cache(10**6, 128)
    tokens = torch.randint(0, shape["vocab"], (2, 1))
    cache = model.cache_view(2, 65)
    with torch.inference_mode():
        model.forward(tokens, 64, cache)
        with profile(activities=[ProfilerActivity.CPU]) as profiler:
            model.forward(tokens, 64, cache)
    return Counter(e.name for e in profiler.events() if e.cpu_parent is None)


@pytest.mark.parametrize("name", ["pytorch-eager", "pytorch-cuda-graphs"])
def test_engine_counts_equal_the_profilers(catalog: Catalog, name: str) -> None:
    two, four = _decode_step_ops(2), _decode_step_ops(4)

    def split(ops: Counter[str]) -> tuple[int, int]:
        return sum(ops.values()), sum(n for op, n in ops.items() if op not in VIEWS)

    (ops2, kernels2), (ops4, kernels4) = split(two), split(four)
    engine = catalog.engine(name)
    assert engine.host_ops_per_layer == (ops4 - ops2) // 2
    assert engine.host_ops_outside_layers == ops2 - 2 * (ops4 - ops2) // 2
    assert engine.kernels_per_layer == (kernels4 - kernels2) // 2
    assert engine.kernels_outside_layers == kernels2 - 2 * (kernels4 - kernels2) // 2
