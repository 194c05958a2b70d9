"""The operator table: what one training step executes.

Each :class:`Operator` is one kind of operation with its count per step and, per execution,
its FLOPs (forward; backward split into input-gradient and weight-gradient), the bytes it reads
and writes, the bytes it saves for the backward pass, the parameters it touches and the GEMM
shape where it is a matrix multiply. :class:`OperatorTable` sums them (with units) and converts
to a pandas DataFrame.

Counting conventions (see ``docs/counting.md``): a multiply-add is 2 FLOPs; bias adds inside a
GEMM are not counted (as in ``torch.utils.flop_counter``); element-wise FLOPs per element follow
:data:`ELEMENTWISE_FLOPS`, and their backward costs :data:`ELEMENTWISE_BACKWARD_FACTOR` times the
forward.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pint

from mlcost.units import Q_

#: Forward FLOPs per element of the non-GEMM operators. A convention, stated so it can be
#: checked and changed: LayerNorm 7 (mean, centre, square, variance sum, scale by 1/sigma, gamma,
#: beta), RMSNorm 4 (square, sum, scale, gamma), softmax 5 (max, subtract, exp, sum, divide),
#: GELU-tanh 9 and GELU-erf 8 (polynomial or erf, tanh, the products), SiLU 4 (exp, add,
#: divide, multiply), ReLU 1, squared ReLU 2, dropout 2 (mask, rescale), residual add 1,
#: gated product 1, rotary 3 (x·cos + rot(x)·sin), soft-capping 3 (divide, tanh, multiply),
#: cross-entropy 5 per logit (max, subtract, exp, sum, log-and-pick amortized), batch norm 4
#: (normalize and affine with running statistics reduced), max pool k*k compares per output.
ELEMENTWISE_FLOPS: dict[str, float] = {
    "layernorm": 7,
    "rmsnorm": 4,
    "softmax": 5,
    "gelu": 8,
    "gelu-tanh": 9,
    "silu": 4,
    "relu": 1,
    "relu2": 2,
    "dropout": 2,
    "add": 1,
    "multiply": 1,
    "rotary": 3,
    "softcap": 3,
    "cross-entropy": 5,
    "batchnorm": 4,
    "scale": 1,
}

#: Backward FLOPs of an element-wise operator as a multiple of its forward FLOPs (a convention:
#: the derivative costs about as much as the function, applied once per input).
ELEMENTWISE_BACKWARD_FACTOR = 2.0

Number = Any  # an int, a float or a numpy array of them (vectorized sweeps)


@dataclass(frozen=True)
class Operator:
    """One kind of operation in a training step. Per-execution figures; ``count`` per step.

    ``kind`` is one of: ``matmul`` (a GEMM with a weight), ``attention`` (the two batched
    matmuls of attention, scores and score x V), ``conv``, ``softmax``, ``norm``,
    ``activation``, ``elementwise``, ``dropout``, ``embedding``, ``loss``, ``pool``,
    ``optimizer``, ``checkpoint`` (bytes kept at a recomputation boundary).
    """

    name: str
    kind: str
    block: str
    count: Number
    forward_flops: Number = 0
    backward_input_flops: Number = 0
    backward_weight_flops: Number = 0
    bytes_read: Number = 0
    bytes_written: Number = 0
    backward_bytes: Number = 0
    saved_bytes: Number = 0
    parameters: Number = 0
    recompute_fraction: float = 0.0
    m: Number = 0
    n: Number = 0
    k: Number = 0
    gemm_batch: Number = 0
    note: str = ""

    @property
    def is_matmul(self) -> bool:
        """GEMM-like: what ``torch.utils.flop_counter`` counts."""
        return self.kind in ("matmul", "attention", "conv")

    @property
    def backward_flops(self) -> Number:
        return self.backward_input_flops + self.backward_weight_flops

    @property
    def recompute_flops(self) -> Number:
        """Forward FLOPs repeated in the backward pass under the recomputation policy."""
        return self.forward_flops * self.recompute_fraction

    @property
    def saved_bytes_after_recompute(self) -> Number:
        """Bytes this operator still saves for backward once recomputation drops its share."""
        return self.saved_bytes * (1.0 - self.recompute_fraction)


COLUMNS = (
    "name",
    "kind",
    "block",
    "count",
    "forward_flops",
    "backward_input_flops",
    "backward_weight_flops",
    "recompute_flops",
    "bytes_read",
    "bytes_written",
    "backward_bytes",
    "saved_bytes",
    "saved_bytes_after_recompute",
    "parameters",
    "m",
    "n",
    "k",
    "gemm_batch",
)


@dataclass(frozen=True)
class OperatorTable:
    """The operators of one training step (all micro-batches and the optimizer update)."""

    operators: tuple[Operator, ...]
    description: str = ""
    tokens_per_step: Number = 0
    metadata: dict[str, Any] = field(default_factory=dict)

    # ----- totals (pint quantities) -------------------------------------------------------
    def _total(self, attribute: str, *, matmul_only: bool = False) -> Number:
        """Sum of ``attribute x count`` over the pass operators (the optimizer update, which is
        not part of the forward or backward pass, is left out)."""
        total: Number = 0
        for op in self.operators:
            if op.kind == "optimizer" or (matmul_only and not op.is_matmul):
                continue
            total = total + getattr(op, attribute) * op.count
        return total

    @property
    def forward_flops(self) -> pint.Quantity:
        """Forward FLOPs of one step (all micro-batches)."""
        return Q_(self._total("forward_flops"), "flop")

    @property
    def optimizer_flops(self) -> pint.Quantity:
        """FLOPs of the optimizer update, once per step; in neither model nor hardware FLOPs."""
        total: Number = 0
        for op in self.operators:
            if op.kind == "optimizer":
                total = total + op.forward_flops * op.count
        return Q_(total, "flop")

    @property
    def backward_flops(self) -> pint.Quantity:
        """Backward FLOPs (input and weight gradients) of one step."""
        return Q_(self._total("backward_flops"), "flop")

    @property
    def recompute_flops(self) -> pint.Quantity:
        """Forward FLOPs repeated for activation recomputation."""
        return Q_(self._total("recompute_flops"), "flop")

    @property
    def model_flops(self) -> pint.Quantity:
        """Forward + backward: the work MFU counts (no recomputation)."""
        return self.forward_flops + self.backward_flops

    @property
    def hardware_flops(self) -> pint.Quantity:
        """Forward + backward + recomputation: the work HFU counts."""
        return self.model_flops + self.recompute_flops

    def matmul_flops(self) -> pint.Quantity:
        """Forward + backward FLOPs of GEMM-like operators only (matmul, attention, conv)."""
        forward = self._total("forward_flops", matmul_only=True)
        backward = self._total("backward_flops", matmul_only=True)
        return Q_(forward + backward, "flop")

    @property
    def saved_bytes(self) -> pint.Quantity:
        """Bytes saved for backward by one micro-batch under the recomputation policy."""
        per_step = self._total("saved_bytes_after_recompute")
        micro_batches = self.metadata.get("micro_batches", 1)
        return Q_(per_step / micro_batches, "byte")

    def by_kind(self) -> pd.DataFrame:
        """Totals per step grouped by operator kind."""
        frame = self.to_frame()
        columns = [
            "forward_flops",
            "backward_input_flops",
            "backward_weight_flops",
            "recompute_flops",
            "bytes_read",
            "bytes_written",
            "saved_bytes",
        ]
        totals = frame[columns].multiply(frame["count"], axis=0)
        totals["kind"] = frame["kind"]
        return totals.groupby("kind", sort=False).sum()

    # ----- conversion ---------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """One row per operator; FLOP and byte columns are per execution (multiply by count).

        Units: ``*_flops`` in FLOP, ``*bytes*`` in bytes, ``parameters`` in params.
        """
        rows = []
        for op in self.operators:
            row = {name: _scalar(getattr(op, name)) for name in COLUMNS}
            rows.append(row)
        return pd.DataFrame.from_records(rows, columns=list(COLUMNS))

    def __len__(self) -> int:
        return len(self.operators)

    def _repr_html_(self) -> str:
        return self.to_frame().to_html()


def _scalar(value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.item()
    return value


def elementwise_operator(
    name: str,
    block: str,
    count: Number,
    elements: Number,
    flops_key: str,
    *,
    activation_bytes: float,
    inputs: int = 1,
    saved_elements: Number = 0,
    saved_element_bytes: float | None = None,
    kind: str = "elementwise",
    parameters: Number = 0,
    recompute_fraction: float = 0.0,
    note: str = "",
) -> Operator:
    """An element-wise operator over ``elements`` values: reads ``inputs`` tensors, writes one."""
    forward = ELEMENTWISE_FLOPS[flops_key] * elements
    saved_size = activation_bytes if saved_element_bytes is None else saved_element_bytes
    return Operator(
        name=name,
        kind=kind,
        block=block,
        count=count,
        forward_flops=forward,
        backward_input_flops=ELEMENTWISE_BACKWARD_FACTOR * forward,
        bytes_read=inputs * elements * activation_bytes,
        bytes_written=elements * activation_bytes,
        backward_bytes=(inputs + 1) * elements * activation_bytes,
        saved_bytes=saved_elements * saved_size,
        parameters=parameters,
        recompute_fraction=recompute_fraction,
        note=note,
    )
