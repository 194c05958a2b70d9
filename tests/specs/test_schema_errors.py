"""Bad input gets mlcost's own error naming the field, the value and what was expected."""

from __future__ import annotations

import pytest

from mlcost.errors import SpecError
from mlcost.specs import Accelerator, load_spec, load_spec_text, spec_from_dict
from tests.conftest import under_test_env

GOOD_GPU = """
kind: accelerator
name: my-gpu
vendor: Acme
memory_capacity: 24 GiB
memory_bandwidth: 1 TB/s
tdp: 300 W
peak_compute:
  - {format: bf16, engine: tensor, dense: 100 TFLOP/s}
"""


def test_good_file_loads() -> None:
    spec = load_spec_text(GOOD_GPU)
    assert isinstance(spec, Accelerator)
    assert spec.ridge_point("bf16").to("flop/byte").magnitude == pytest.approx(100.0, rel=1e-12)


def test_bandwidth_in_watts_names_the_field() -> None:
    text = GOOD_GPU.replace("memory_bandwidth: 1 TB/s", "memory_bandwidth: 700 W")
    with pytest.raises(SpecError) as error:
        load_spec_text(text, source="gpu.yaml")
    message = str(error.value)
    assert "memory_bandwidth" in message
    assert "700 W" in message
    assert "byte/second" in message
    assert message.startswith("gpu.yaml: ")
    assert "\n" not in message  # one clear line


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("memory_capacity: 24 GiB", "memory_capacity: -24 GiB", "memory_capacity"),
        ("tdp: 300 W", "tdp: 0 W", "tdp"),
        ("tdp: 300 W", "tdp: 300", "tdp"),
        ("tdp: 300 W", "tdp: three hundred watts", "tdp"),
        ("dense: 100 TFLOP/s", "dense: 100 TB/s", "peak_compute.0.dense"),
        ("format: bf16", "format: bf17", "peak_compute.0"),
        ("name: my-gpu", "name: My GPU", "name"),
    ],
)
def test_wrong_values_are_rejected_with_the_path(old: str, new: str, field: str) -> None:
    with pytest.raises(SpecError, match=field.replace(".", r"\.")):
        load_spec_text(GOOD_GPU.replace(old, new))


def test_misspelled_field_gets_a_suggestion() -> None:
    with pytest.raises(SpecError, match="did you mean 'memory_bandwidth'"):
        load_spec_text(GOOD_GPU.replace("memory_bandwidth:", "memory_bandwith:"))


def test_missing_field_is_named() -> None:
    with pytest.raises(SpecError, match="memory_bandwidth: required field is missing"):
        load_spec_text(GOOD_GPU.replace("memory_bandwidth: 1 TB/s\n", ""))


def test_unknown_kind_gets_a_suggestion() -> None:
    with pytest.raises(SpecError, match="did you mean 'accelerator'"):
        load_spec_text(GOOD_GPU.replace("kind: accelerator", "kind: accelerater"))


def test_bad_yaml_is_one_line_with_position() -> None:
    with pytest.raises(SpecError) as error:
        load_spec_text("kind: accelerator\nname: [unclosed\n", source="bad.yaml")
    assert "bad.yaml: line" in str(error.value)
    assert "not valid YAML" in str(error.value)


def test_not_a_mapping() -> None:
    with pytest.raises(SpecError, match="expected a mapping"):
        spec_from_dict(["a", "list"])


def test_missing_file(tmp_path: object) -> None:
    with pytest.raises(SpecError, match="cannot read the file"):
        load_spec("/nonexistent/gpu.yaml")


def test_link_needs_consistent_bandwidths() -> None:
    base = {"kind": "link", "name": "l", "family": "nvlink"}
    with pytest.raises(SpecError, match="bandwidth_per_direction"):
        spec_from_dict(base)
    with pytest.raises(SpecError, match="twice"):
        spec_from_dict(
            {**base, "bandwidth_per_direction": "450 GB/s", "bandwidth_both_directions": "450 GB/s"}
        )
    link = spec_from_dict({**base, "bandwidth_both_directions": "900 GB/s"})
    assert link.per_direction.to("GB/s").magnitude == 450  # type: ignore[attr-defined]


def test_gqa_heads_must_divide() -> None:
    with pytest.raises(SpecError, match="num_kv_heads"):
        spec_from_dict(
            {
                "kind": "transformer",
                "name": "t",
                "hidden_size": 64,
                "num_layers": 1,
                "num_attention_heads": 8,
                "num_kv_heads": 3,
                "ffn_hidden_size": 128,
                "vocab_size": 10,
                "max_position_embeddings": 16,
            }
        )


def test_unsourced_numbers_are_reported() -> None:
    spec = load_spec_text(GOOD_GPU)
    assert set(spec.unsourced_paths()) == {
        "memory_capacity",
        "memory_bandwidth",
        "tdp",
        "peak_compute.0.dense",
    }
    sourced = load_spec_text(GOOD_GPU + "references: {ds: Acme datasheet}\nsources: {'*': ds}\n")
    assert sourced.unsourced_paths() == []
    assert sourced.source_of("peak_compute.0.dense") == "Acme datasheet"


def test_misspelled_format_gets_a_suggestion() -> None:
    expected = r"peak_compute\.0: format: got 'bf17'.*did you mean 'bf16'"
    with pytest.raises(SpecError, match=expected):
        load_spec_text(GOOD_GPU.replace("format: bf16", "format: bf17"))


def test_a_bare_number_is_not_bytes() -> None:
    # Bytes have their own dimension: "24" without a unit is rejected, not read as 24 bytes.
    with pytest.raises(SpecError, match="memory_capacity"):
        load_spec_text(GOOD_GPU.replace("memory_capacity: 24 GiB", "memory_capacity: 24"))


def test_importing_the_specs_builds_no_validation_schema() -> None:
    """A fresh interpreter: importing mlcost.specs builds no pydantic schema (each is built on
    a model's first validation, several ms apiece of every command line's start-up), and a part
    validates as before once asked: a bad format is still refused."""
    import subprocess
    import sys

    code = (
        "import pydantic, mlcost.specs as s\n"
        "def models(c):\n"
        "    for k in c.__subclasses__():\n"
        "        yield k\n"
        "        yield from models(k)\n"
        "mine = {m for m in models(pydantic.BaseModel) if m.__module__.startswith('mlcost')}\n"
        "print(len(mine), sorted(m.__name__ for m in mine if m.__pydantic_complete__))\n"
        "print(s.PeakThroughput(format='bf16', dense='1 TFLOP/s').dense.to('flop/s').magnitude)\n"
        "try:\n    s.PeakThroughput(format='bf17', dense='1 TFLOP/s')\n"
        "except pydantic.ValidationError as e:\n    print('refused', 'bf17' in str(e))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env=under_test_env(),
    )  # fmt: skip
    count, built = done.stdout.split("\n")[0].split(" ", 1)
    assert int(count) >= 20 and built == "[]"
    assert done.stdout.split("\n")[1:3] == ["1000000000000.0", "refused True"]


@pytest.mark.parametrize("ratio", ["0", "-0.3", "nan"])
def test_an_unaligned_gemm_ratio_must_be_positive(ratio: str) -> None:
    """``measured.gemm_unaligned`` divides a GEMM's time: zero or a negative ratio would give an
    infinite or negative step, so the spec is refused, naming the field."""
    text = GOOD_GPU + (
        "measured:\n  measured_on: my-gpu\n  date: 2026-11-26\n"
        f"  gemm_unaligned: {{bf16: {ratio}}}\n"
    )
    with pytest.raises(SpecError, match=r"measured\.gemm_unaligned\.bf16"):
        load_spec_text(text)
    good = text.replace(f"bf16: {ratio}", "bf16: 0.26")
    assert load_spec_text(good).measured.gemm_unaligned == {"bf16": 0.26}  # type: ignore[attr-defined]
