"""Format limits derived from the bit layout equal numpy's and ml_dtypes' (which are
implemented independently from the same standards)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from mlcost.specs import Catalog

FLOAT_ORACLES = {
    "fp64": np.finfo(np.float64),
    "fp32": np.finfo(np.float32),
    "fp16": np.finfo(np.float16),
    "bf16": ml_dtypes.finfo(ml_dtypes.bfloat16),
    "fp8-e4m3": ml_dtypes.finfo(ml_dtypes.float8_e4m3fn),
    "fp8-e5m2": ml_dtypes.finfo(ml_dtypes.float8_e5m2),
    "fp6-e2m3": ml_dtypes.finfo(ml_dtypes.float6_e2m3fn),
    "fp6-e3m2": ml_dtypes.finfo(ml_dtypes.float6_e3m2fn),
    "fp4-e2m1": ml_dtypes.finfo(ml_dtypes.float4_e2m1fn),
}


@pytest.mark.parametrize("name", sorted(FLOAT_ORACLES))
def test_float_limits_equal_finfo(catalog: Catalog, name: str) -> None:
    fmt = catalog.numeric_format(name)
    info = FLOAT_ORACLES[name]
    # Exact equality: every limit is a power of two times a short mantissa, exact in float64.
    assert fmt.max_finite == float(info.max)
    assert fmt.min_finite == float(info.min)
    assert fmt.smallest_normal == float(info.smallest_normal)
    assert fmt.smallest_subnormal == float(info.smallest_subnormal)
    assert fmt.machine_epsilon == float(info.eps)
    assert fmt.storage_bits == info.bits


def test_tf32_by_hand(catalog: Catalog) -> None:
    # TF32: 8 exponent bits (bias 127) as FP32, 10 mantissa bits as FP16 (A100 whitepaper).
    fmt = catalog.numeric_format("tf32")
    assert fmt.max_finite == (2 - 2**-10) * 2.0**127
    assert fmt.smallest_normal == 2.0**-126
    assert fmt.smallest_subnormal == 2.0**-136
    assert fmt.storage_bytes.to("byte").magnitude == 4  # stored as FP32


@pytest.mark.parametrize(
    ("name", "oracle"), [("int8", np.iinfo(np.int8)), ("int4", ml_dtypes.iinfo(ml_dtypes.int4))]
)
def test_int_limits_equal_iinfo(catalog: Catalog, name: str, oracle: object) -> None:
    fmt = catalog.numeric_format(name)
    assert fmt.max_finite == oracle.max  # type: ignore[attr-defined]
    assert fmt.min_finite == oracle.min  # type: ignore[attr-defined]
    assert fmt.storage_bits == oracle.bits  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("name", "nbytes"),
    [
        ("fp64", 8),
        ("fp32", 4),
        ("bf16", 2),
        ("fp16", 2),
        ("fp8-e4m3", 1),
        ("int8", 1),
        ("int4", 0.5),
    ],
)
def test_storage_bytes(catalog: Catalog, name: str, nbytes: float) -> None:
    assert catalog.numeric_format(name).storage_bytes.to("byte").magnitude == nbytes


def test_aliases(catalog: Catalog) -> None:
    assert catalog.numeric_format("BFloat16").name == "bf16"
    assert catalog.numeric_format("float8_e4m3fn").name == "fp8-e4m3"
