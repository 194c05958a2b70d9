"""Property tests: valid specs round-trip YAML -> object -> YAML; bad fields raise SpecError."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlcost.errors import SpecError
from mlcost.specs import Catalog, load_spec_text, spec_from_dict

positive = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False)
formats = st.sampled_from(["fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"])


@st.composite
def accelerators(draw: st.DrawFn) -> dict[str, Any]:
    chosen = draw(st.lists(formats, min_size=1, max_size=4, unique=True))
    peaks = []
    for fmt in chosen:
        dense = draw(positive)
        entry: dict[str, Any] = {"format": fmt, "engine": "tensor", "dense": f"{dense!r} TFLOP/s"}
        if draw(st.booleans()):
            entry["sparse"] = f"{2 * dense!r} TFLOP/s"
        peaks.append(entry)
    return {
        "kind": "accelerator",
        "name": draw(st.from_regex(r"[a-z][a-z0-9\-]{0,12}", fullmatch=True)),
        "vendor": draw(st.sampled_from(["NVIDIA", "AMD", "Acme"])),
        "memory_capacity": f"{draw(positive)!r} {draw(st.sampled_from(['GiB', 'GB', 'MiB']))}",
        "memory_bandwidth": f"{draw(positive)!r} {draw(st.sampled_from(['TB/s', 'GB/s']))}",
        "tdp": f"{draw(positive)!r} W",
        "compute_units": draw(st.integers(1, 1000)),
        "peak_compute": peaks,
        "references": {"ds": "a datasheet"},
        "sources": {"*": "ds"},
    }


@st.composite
def transformers(draw: st.DrawFn) -> dict[str, Any]:
    kv = draw(st.integers(1, 8))
    heads = kv * draw(st.integers(1, 8))
    return {
        "kind": "transformer",
        "name": "t",
        "hidden_size": heads * draw(st.integers(1, 64)),
        "num_layers": draw(st.integers(1, 100)),
        "num_attention_heads": heads,
        "num_kv_heads": kv,
        "ffn_hidden_size": draw(st.integers(1, 10000)),
        "gated_mlp": draw(st.booleans()),
        "norm": draw(st.sampled_from(["layernorm", "rmsnorm"])),
        "vocab_size": draw(st.integers(1, 300000)),
        "max_position_embeddings": draw(st.integers(1, 200000)),
        "position_encoding": draw(st.sampled_from(["learned", "rotary"])),
        "tie_word_embeddings": draw(st.booleans()),
    }


@given(data=st.one_of(accelerators(), transformers()))
@settings(max_examples=60, deadline=None)
def test_yaml_round_trip(data: dict[str, Any]) -> None:
    spec = spec_from_dict(data)
    text = spec.to_yaml()
    again = load_spec_text(text)
    assert again == spec
    assert again.to_yaml() == text


def test_every_catalog_item_round_trips(catalog: Catalog) -> None:
    for spec in catalog.items():
        assert load_spec_text(spec.to_yaml()) == spec, spec.name


QUANTITY_FIELDS = ["memory_capacity", "memory_bandwidth", "tdp"]


@given(
    data=accelerators(),
    field=st.sampled_from(QUANTITY_FIELDS),
    bad=st.one_of(
        st.floats(max_value=-1e-9, min_value=-1e9).map(lambda x: f"{x!r} GiB"),
        st.sampled_from(["5 kg", "3 USD", "1 flop", "2 param", "7 s", "12 token", "4 gCO2e"]),
    ),
)
@settings(max_examples=80, deadline=None)
def test_negative_or_wrong_dimension_is_rejected(
    data: dict[str, Any], field: str, bad: str
) -> None:
    data = {**data, field: bad}
    with pytest.raises(SpecError, match=field):
        spec_from_dict(data)


@given(negative=st.integers(max_value=0))
def test_non_positive_counts_are_rejected(negative: int) -> None:
    data = {
        "kind": "transformer",
        "name": "t",
        "hidden_size": 64,
        "num_layers": negative,
        "num_attention_heads": 8,
        "ffn_hidden_size": 128,
        "vocab_size": 10,
        "max_position_embeddings": 16,
    }
    with pytest.raises(SpecError, match="num_layers"):
        spec_from_dict(data)
