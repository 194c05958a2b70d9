"""Invariants of the serving model (hypothesis): more context or more sequences never need less
KV cache, a window never holds more than ``w - 1`` tokens per layer, paging never allocates
less than it stores and wastes less than one block per layer, a longer decode context never
takes less time, and bad serving inputs raise mlcost's own errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlcost.errors import MlcostError
from mlcost.serving import ServePlan
from mlcost.serving.kv_cache import kv_bytes_per_token, kv_cache_bytes
from mlcost.serving.latency import expected_accepted_tokens, forward_seconds, serving_ceilings
from mlcost.serving.workload import decode_operators, forward_operators
from mlcost.specs import default_catalog

CATALOG = default_catalog()
MODELS = ["gpt2", "llama-3-8b", "mistral-7b", "gemma-2-9b"]


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(MODELS),
    context=st.integers(1, 20_000),
    more=st.integers(0, 5_000),
    batch=st.integers(1, 64),
    block=st.sampled_from([None, 1, 16, 32]),
)
def test_kv_cache_is_monotone_and_bounded(
    name: str, context: int, more: int, batch: int, block: int | None
) -> None:
    model = CATALOG.transformer(name)
    size = kv_cache_bytes(model, context, batch, block_size=block).magnitude
    assert kv_cache_bytes(model, context + more, batch, block_size=block).magnitude >= size
    assert kv_cache_bytes(model, context, batch + 1, block_size=block).magnitude > size
    full = batch * context * kv_bytes_per_token(model).magnitude
    plain = kv_cache_bytes(model, context, batch).magnitude
    assert plain <= full
    if model.sliding_window is None:
        assert plain == full
    if block:
        per_token_layer = kv_bytes_per_token(model).magnitude / model.num_layers
        assert plain <= size < plain + batch * model.num_layers * block * per_token_layer


@settings(max_examples=25, deadline=None)
@given(context=st.integers(1, 8000), more=st.integers(1, 4000), batch=st.integers(1, 128))
def test_longer_context_never_decodes_faster(context: int, more: int, batch: int) -> None:
    model = CATALOG.transformer("llama-3-8b")
    ceilings = serving_ceilings(CATALOG.accelerator("h100-sxm5-80gb"))
    times = forward_seconds(
        decode_operators(model, batch, np.array([context, context + more])), ceilings,
        CATALOG.engine("pytorch-eager"), layers=model.num_layers, graph=False,
    )  # fmt: skip
    assert times[1] >= times[0]


@settings(max_examples=40, deadline=None)
@given(acceptance=st.floats(0, 1), k=st.integers(1, 16))
def test_speculative_yield_between_one_and_k_plus_one(acceptance: float, k: int) -> None:
    tokens = expected_accepted_tokens(acceptance, k)
    assert 1 - 1e-12 <= tokens <= k + 1 + 1e-12


@pytest.mark.parametrize(
    "options",
    [{"tensor_parallel": 3}, {"tensor_parallel": 0}, {"weights": "fp7"}, {"kv_format": "x"},
     {"attention": "some"}, {"weights": "int4", "group_size": 0}],
)  # fmt: skip
def test_bad_workload_options_raise_mlcost_errors(options: dict[str, object]) -> None:
    with pytest.raises(MlcostError):
        forward_operators(CATALOG.transformer("llama-3-8b"), 1, 1, 10, **options)  # type: ignore[arg-type]


@settings(max_examples=30, deadline=None)
@given(
    tp=st.one_of(st.integers(-2, 10), st.just(1.5), st.just("2")),
    prompt=st.one_of(
        st.integers(-5, 9000), st.just(math.nan), st.lists(st.integers(1, 3000), max_size=3)
    ),
    output=st.one_of(st.integers(-5, 3000), st.just(0.5)),
    batch=st.one_of(st.none(), st.integers(-1, 600)),
    weights=st.sampled_from(["bf16", "fp8", "int4", "int3", ""]),
    rate=st.one_of(st.none(), st.floats(-1, 1e4), st.just(math.nan)),
)
def test_serve_plan_answers_or_raises_its_own_error(
    tp: object, prompt: object, output: object, batch: object, weights: str, rate: object
) -> None:
    """Any input: a result whose headline numbers are finite, or one line of MlcostError."""
    try:
        row = ServePlan(
            "llama-3-8b", system="dgx-h100", tp=tp, prompt=prompt, output=output, batch=batch,
            weights=weights, rate=rate,
        ).row()  # type: ignore[arg-type]  # fmt: skip
    except MlcostError as error:
        assert "\n" not in str(error)
        return
    assert all(math.isfinite(float(v)) for v in row.values())
