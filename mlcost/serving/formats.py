"""The numeric formats a served model keeps its weights and its KV cache in.

A serving format name (``bf16``, ``fp16``, ``fp8``, ``int8``, ``int4``) maps to a catalog
numeric format (``specs/formats/``), whose ``storage_bits`` give the bytes per element, and to
the compute format its GEMMs run in: FP8 weights with FP8 activations run on the FP8 tensor
cores (W8A8, as vLLM's and TensorRT-LLM's FP8 checkpoints do); INT8 and INT4 weights are
weight-only (W8A16 / W4A16, dequantized to BF16 inside the GEMM, as AWQ and GPTQ kernels do;
Lin et al. 2024, "AWQ", section 4; Frantar et al. 2023, "GPTQ", section 5), so they run at the
BF16 peak and only the bytes they read shrink.
"""

from __future__ import annotations

from typing import Literal

from mlcost.errors import MlcostError, UnknownNameError
from mlcost.specs import Catalog, default_catalog

ServingFormat = Literal["bf16", "fp16", "fp8", "int8", "int4"]

#: serving format -> (catalog numeric format, compute format of the GEMMs that read it).
SERVING_FORMATS: dict[str, tuple[str, str]] = {
    "bf16": ("bf16", "bf16"),
    "fp16": ("fp16", "fp16"),
    "fp8": ("fp8-e4m3", "fp8"),
    "int8": ("int8", "bf16"),
    "int4": ("int4", "bf16"),
}


def check_format(name: str, field: str) -> str:
    """``name`` if it is a serving format, else :class:`UnknownNameError` naming ``field``."""
    if not isinstance(name, str):
        raise MlcostError(f"{field}: got {name!r}, expected one of {', '.join(SERVING_FORMATS)}")
    if name not in SERVING_FORMATS:
        raise UnknownNameError(field, name, SERVING_FORMATS)
    return name


def element_bytes(name: str, *, field: str = "format", catalog: Catalog | None = None) -> float:
    """Bytes per element of serving format ``name``: the catalog format's ``storage_bits / 8``
    (INT4 packs two per byte: 0.5)."""
    spec = (catalog if catalog is not None else default_catalog()).numeric_format(
        SERVING_FORMATS[check_format(name, field)][0]
    )
    return spec.storage_bits / 8


def compute_format(name: str) -> str:
    """The accelerator peak (``peak_compute`` key) the GEMMs reading ``name`` weights run at."""
    return SERVING_FORMATS[check_format(name, "weights")][1]
