"""The weights of a served model in its serving format, and what one rank holds.

Bytes per parameter of a quantized GEMM weight: the format's element size, plus for weight-only
integer formats one FP16 scale and one zero point (in the weight's own width) per group of
``g`` input channels, the layout of AWQ and GPTQ checkpoints (Lin et al. 2024, "AWQ", section
3.3 and the AutoAWQ ``WQLinear`` buffers ``qweight``, ``scales``, ``qzeros``; Frantar et al.
2023, "GPTQ", section 5): ``e + (2 + e) / g``. INT4 with ``g = 128``: ``0.5 + 2.5 / 128 =
0.5195`` bytes per parameter. FP8 checkpoints carry one scale per tensor (negligible). Only the
transformer layers' GEMMs are quantized; the embedding, the LM head and the norms stay in 16
bits (AWQ, GPTQ and vLLM's FP8 keep ``lm_head`` unquantized).
"""

from __future__ import annotations

import pint

from mlcost.errors import MlcostError
from mlcost.serving.formats import check_format, element_bytes
from mlcost.units import Q_
from mlcost.workload.table import OperatorKind, OperatorTable

#: Bytes of one group scale (FP16), AWQ and GPTQ.
SCALE_BYTES = 2.0
#: Bytes per parameter of what stays unquantized (BF16/FP16).
HIGH_PRECISION_BYTES = 2.0


def weight_bytes_per_parameter(weights: str, group_size: int | None = None) -> float:
    """``e`` for floating-point formats, ``e + (SCALE_BYTES + e) / g`` for weight-only integer
    ones (module docstring); ``group_size`` defaults to
    :attr:`mlcost.assumptions.Assumptions.quantization_group_size`."""
    check_format(weights, "weights")
    e = element_bytes(weights, field="weights")
    if weights not in ("int8", "int4"):
        return e
    if group_size is None:
        from mlcost.assumptions import DEFAULT_ASSUMPTIONS

        group_size = DEFAULT_ASSUMPTIONS.quantization_group_size
    if not (isinstance(group_size, int) and group_size >= 1):
        raise MlcostError(f"group_size: got {group_size!r}, expected a whole number >= 1, e.g. 128")
    return e + (SCALE_BYTES + e) / group_size


def weight_bytes(
    table: OperatorTable,
    parameters: float,
    weights: str = "bf16",
    *,
    tensor_parallel: int = 1,
    group_size: int | None = None,
    expert_parallel: int = 1,
) -> pint.Quantity:
    """Bytes of weights one rank holds for the forward ``table``
    (:func:`mlcost.serving.workload.forward_operators`, one rank's rows): the layers' GEMM
    parameters in ``weights`` (:func:`weight_bytes_per_parameter`), split or replicated as the
    rows say, and the rest of the model's ``parameters`` (embedding, LM head, norms) in 16 bits,
    split over the ranks (vocabulary-parallel embedding and LM head). The rest is the model's
    parameters less the layers' GEMMs of all ranks together (a split row's parameters times
    ``t``, a replicated row's once), so replicated GEMMs (DeepSeek-V3's latent down projections
    and router) never eat into the embedding and the head. Under expert parallelism
    (``expert_parallel`` ``e``) a rank's routed-expert rows are ``E/e`` of the experts: the
    model's are ``e`` times them."""
    quantized = 0.0
    whole = 0.0  # the layers' GEMM parameters of the model, not one rank's
    for op in table.operators:
        if op.kind == OperatorKind.MATMUL and op.block == "layer":
            held = float(op.parameters) * float(op.count)
            quantized += held
            whole += (
                held
                * (tensor_parallel if op.tensor_parallel else 1)
                * (expert_parallel if op.gemm_group else 1)
            )
    rest = max(parameters - whole, 0.0) / tensor_parallel
    per_parameter = weight_bytes_per_parameter(weights, group_size)
    return Q_(quantized * per_parameter + HIGH_PRECISION_BYTES * rest, "byte")


__all__ = ["HIGH_PRECISION_BYTES", "SCALE_BYTES", "weight_bytes", "weight_bytes_per_parameter"]
