"""Descriptions print, convert to pandas and to JSON, and carry sources."""

from __future__ import annotations

import json

import pytest

import mlcost
from mlcost.description import describe


def test_model_description_frame_and_json(catalog: mlcost.Catalog) -> None:
    description = describe(catalog.model("gpt2"), catalog)
    frame = description.to_frame()
    assert list(frame.columns) == ["section", "field", "value", "unit", "source"]
    row = frame[frame.field == "weights in fp32"].iloc[0]
    # 124,439,808 params x 4 bytes = 0.497759232 GB, by hand.
    assert row.value == pytest.approx(0.497759232, rel=1e-12)
    assert row.unit == "GB"
    data = description.to_json()
    json.dumps(data)  # serializable as is
    assert data["fields"]["hidden_size"] == 768
    assert data["derived"]["parameters"] == 124_439_808
    assert "<table>" in description._repr_html_()
    assert "gpt2" in str(description)


def test_describe_by_name_uses_the_catalog() -> None:
    description = mlcost.describe("nvlink-4")
    derived = description.to_json()["derived"]
    # NVLink 4: 900 GB/s per GPU both directions together (H100 datasheet) = 450 each way.
    assert derived["per direction"] == {"value": 450, "unit": "GB / s"}


def test_node_derived_values(catalog: mlcost.Catalog) -> None:
    derived = describe(catalog.node("dgx-h100"), catalog).to_json()["derived"]
    # 8 x 80 GiB = 640 GiB; 8 x 989.4 TFLOP/s = 7.9152 PFLOP/s (DGX H100: 8 H100 SXM5).
    assert derived["accelerator memory per node"] == {"value": 640, "unit": "GiB"}
    assert derived["peak bf16 per node (dense)"]["value"] == pytest.approx(7.9152, rel=1e-9)


def test_nested_parts_in_json_keep_quantities_as_objects() -> None:
    fields = mlcost.describe("a100-sxm4-80gb").to_json()["fields"]
    # A100 datasheet: BF16 tensor 312 TFLOP/s dense, 624 with sparsity.
    bf16 = fields["peak bf16 (tensor)"]
    assert bf16["dense"] == {"value": 312, "unit": "TFLOP / s"}
    assert bf16["sparse"] == {"value": 624, "unit": "TFLOP / s"}
    json.dumps(fields)
