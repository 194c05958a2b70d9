"""One result vocabulary: every result type of mlcost offers the same verbs, and they work.

Each result type is built here through its public function; the check that the set below covers
every subclass of :class:`mlcost.results.Result` in the package makes a new result type without
an example fail this test.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Callable

import pandas as pd
import pytest

import mlcost
from mlcost import Q_, Layout, TrainingConfig
from mlcost.checkpointing import (
    cheapest_recompute,
    goodput_plan,
    tradeoff_curve,
    transformer_layer_chain,
)
from mlcost.comms import collective_time
from mlcost.diagnosis import diagnose
from mlcost.flops import training_flops
from mlcost.memory import memory_breakdown
from mlcost.parallel import multi_gpu_step_time, network_wall, scaling_curve, search
from mlcost.published import validate_published
from mlcost.results import Result
from mlcost.serving.slo import search_slo
from mlcost.timing import iron_law, step_time, time_to_train
from mlcost.workload import operators
from mlcost.workload.packing import packing_report

CONFIG = TrainingConfig(sequence_length=1024)
SMALL = Layout(micro_batch_size=2)


def _trace_comparison() -> Result:
    """The H200 trace of GPT-3 125M (micro-batch 8) against its prediction on the datasheet."""
    from pathlib import Path

    from mlcost.bench.model import GPTConfig, spec_of
    from mlcost.trace_fit import compare_trace
    from mlcost.validate import bench_training

    trace = Path(__file__).resolve().parents[1] / (
        "benchmarks/data/h200-2026-11-27/traces/gpt3-125m_mb8_none.json.gz"
    )
    model = spec_of(
        GPTConfig(vocab_size=50304, sequence_length=2048, layers=12, hidden=768, heads=12)
    )
    config = bench_training(2048, "bf16-mixed")
    return compare_trace(trace, model, config, "h200-sxm-141gb", Layout(micro_batch_size=8))


def _plan() -> mlcost.Plan:
    return mlcost.Plan("gpt2", gpu="h100-sxm5-80gb", gpus=8, tokens=1e9, layout=Layout(dp=8))


EXAMPLES: dict[str, Callable[[], Result]] = {
    "MemoryBreakdown": lambda: memory_breakdown("gpt2", CONFIG, "h100-sxm5-80gb", SMALL),
    "StepTime": lambda: step_time("gpt2", CONFIG, "h100-sxm5-80gb", SMALL),
    "IronLaw": lambda: iron_law(Q_(1e21, "flop"), Q_(989, "TFLOP/s"), 0.5),
    "TimeToTrain": lambda: time_to_train(1e9, 8192, Q_(1, "s"), 8),
    "OperatorTable": lambda: operators(mlcost.model("gpt2"), CONFIG, SMALL),
    "FlopsSummary": lambda: training_flops("gpt2", CONFIG, SMALL),
    "CollectiveTime": lambda: collective_time("dgx-h100", "all-reduce", Q_(1, "GB"), nodes=2),
    "MultiGpuStep": lambda: multi_gpu_step_time(
        "gpt2", CONFIG, "dgx-h100", Layout(dp=4, tp=2, micro_batch_size=2)
    ),
    "ScalingCurve": lambda: scaling_curve(
        "gpt2", CONFIG, "dgx-h100", [8, 16], kind="weak", layout=SMALL
    ),
    "SearchResult": lambda: search("gpt2", "dgx-h100", 64, config=CONFIG),
    "NetworkWall": lambda: network_wall(Q_(7e9, "param"), 2, Q_(12.5, "GB/s")),
    "RecomputePlan": lambda: cheapest_recompute("gpt2", CONFIG, "h100-sxm5-80gb", SMALL),
    "TradeoffCurve": lambda: tradeoff_curve(
        transformer_layer_chain("gpt2", CONFIG, "h100-sxm5-80gb", SMALL)
    ),
    "GoodputPlan": lambda: goodput_plan(Q_(1, "GB"), 1024, write_bandwidth=Q_(10, "GB/s")),
    "Diagnosis": lambda: diagnose(step_time("gpt2", CONFIG, "h100-sxm5-80gb", SMALL)),
    "PackingReport": lambda: packing_report([100, 500, 3000], 2048),
    "PublishedValidation": validate_published,
    "SpecDescription": lambda: mlcost.describe(mlcost.accelerator("h100-sxm5-80gb")),
    "Plan": _plan,
    "PlanStep": lambda: _plan().step_time(),
    "Figures": lambda: _plan().cost(),
    "FineTuningFit": lambda: mlcost.finetuning_fit("gpt2", "a100-sxm4-40gb", CONFIG),
    "ServePlan": lambda: mlcost.ServePlan("gpt2", gpu="h100-sxm5-80gb", prompt=256, output=64),
    "SloSearch": lambda: search_slo("gpt2", ttft="500 ms", tpot="50 ms", gpus=["h100-sxm5-80gb"]),
    "TraceComparison": _trace_comparison,
}


def _subclasses(base: type) -> set[type]:
    found = set(base.__subclasses__())
    for sub in list(found):
        found |= _subclasses(sub)
    return found


def test_every_result_type_has_an_example() -> None:
    for module in pkgutil.walk_packages(mlcost.__path__, "mlcost."):
        if module.name.startswith(("mlcost.bench", "mlcost.cli")):
            continue  # torch-dependent measurement code and the command line hold no results
        importlib.import_module(module.name)
    names = {cls.__name__ for cls in _subclasses(Result) if cls.__module__.startswith("mlcost.")}
    assert names == set(EXAMPLES)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_result_speaks_the_vocabulary(name: str) -> None:
    result = EXAMPLES[name]()
    assert type(result).__name__ == name
    figures = result.figures()
    assert figures and all(f.name for f in figures)
    explained = result.explain()
    assert result.title() in explained
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0
    # Strict JSON: quantities as {"value", "unit"}, no NaN or infinity.
    json.dumps(result.to_json(), allow_nan=False)
    assert "<table" in result._repr_html_()


def test_distinct_agrees_with_numpy_unique() -> None:
    """``distinct`` equals ``np.unique`` (numpy the oracle) on numbers without NaN: empty, one
    value, repeats, negatives and zeros, floats, integers and 2-D input (flattened), with the
    same dtype; and it is a new array, never a view the caller could change the input through."""
    import numpy as np

    from mlcost.arrays import distinct

    rng = np.random.default_rng(7)
    cases = [np.array([], dtype=np.int64), np.array([5]), np.array([3, 3, 3]),
             np.array([4, -1, 0, 4, 2, -1]), np.array([2.5, -0.0, 0.0, 1e300, 2.5]),
             rng.integers(0, 9, size=(6, 7)), rng.normal(size=50), [4096, 8192, 4096]]  # fmt: skip
    for values in cases:
        got, expected = distinct(values), np.unique(values)
        np.testing.assert_array_equal(got, expected, err_msg=repr(values))
        assert got.dtype == expected.dtype
    one = np.array([7])
    distinct(one)[0] = 1
    assert one[0] == 7


@pytest.mark.parametrize(
    ("value", "text"),
    [
        # Below 10,000: 4 significant digits, thousands separated.
        ((5.39, "ms"), "5.39 ms"),
        ((131.06, "ms"), "131.1 ms"),
        ((1049.7, "W"), "1,050 W"),
        ((9999.4, "hour"), "9,999 h"),
        # From 10,000 (and what rounds to it) below a million: the whole number, separated,
        # never Python's "3.193e+04" (the default plan's step time, GPU-hours and cost).
        ((9999.7, "hour"), "10,000 h"),
        ((31934.2, "ms"), "31,934 ms"),
        ((-31934.2, "ms"), "-31,934 ms"),
        ((291234.6, "USD"), "291,235 USD"),
        # Whole numbers below a million as they are; larger ones in scientific notation.
        ((476838, "dimensionless"), "476,838"),
        ((6.738e9, "param"), "6.738e+09 param"),
        ((2e12, "token"), "2e+12 token"),
    ],
)
def test_value_text_writes_large_values_without_an_exponent_below_a_million(
    value: tuple[float, str], text: str
) -> None:
    from mlcost.results import value_text
    from mlcost.units import Q_

    assert value_text(Q_(*value)) == text


def test_a_plan_answer_pickles_whole() -> None:
    """A plan's answer pickles and reads back equal, figure by figure."""
    import pickle

    plan = mlcost.Plan("gpt2", gpu="h100-sxm5-80gb", tokens=1e9)
    energy = plan.energy()
    again = pickle.loads(pickle.dumps(energy))
    assert again.heading == energy.heading and list(again.entries) == list(energy.entries)
