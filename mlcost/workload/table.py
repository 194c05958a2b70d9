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

from enum import StrEnum
from typing import TYPE_CHECKING, Any

import numpy as np
import pint

from mlcost.arrays import Real, plain
from mlcost.errors import MlcostError
from mlcost.records import Record, field
from mlcost.results import Figure, Result
from mlcost.units import Q_

if TYPE_CHECKING:
    import pandas as pd

#: Forward FLOPs per element of the non-GEMM operators. A convention, stated so it can be
#: checked and changed: LayerNorm 7 (mean, centre, square, variance sum, scale by 1/sigma, gamma,
#: beta), RMSNorm 4 (square, sum, scale, gamma), softmax 5 (max, subtract, exp, sum, divide),
#: GELU-tanh 9 and GELU-erf 8 (polynomial or erf, tanh, the products), SiLU 4 (exp, add,
#: divide, multiply), ReLU 1, squared ReLU 2, dropout 2 (mask, rescale), residual add 1,
#: gated product 1, rotary 3 (x·cos + rot(x)·sin), soft-capping 3 (divide, tanh, multiply),
#: cross-entropy 5 per logit (max, subtract, exp, sum, log-and-pick amortized), batch norm 4
#: (normalize and affine with running statistics reduced), max pool k*k compares per output,
#: block-wise dequantization 2 (code-book lookup, multiply by the block's absmax; bitsandbytes
#: dequantize_4bit; the double-quantized absmax's own dequantization is per block, neglected),
#: sigmoid 3 (exp, add, divide).
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
    "dequantize": 2,
    "sigmoid": 3,
}

#: Backward FLOPs of an element-wise operator as a multiple of its forward FLOPs (a convention:
#: the derivative costs about as much as the function, applied once per input).
ELEMENTWISE_BACKWARD_FACTOR = 2.0


class OperatorKind(StrEnum):
    """What an operator computes; the step-time and memory models dispatch on it.

    ``matmul`` (a GEMM with a weight), ``attention`` (the two batched matmuls of attention,
    scores and score x V), ``conv``, ``softmax``, ``norm``, ``activation``, ``elementwise``,
    ``dropout``, ``embedding``, ``loss``, ``pool``, ``optimizer``, ``checkpoint`` (bytes kept at
    a recomputation boundary).
    """

    MATMUL = "matmul"
    ATTENTION = "attention"
    CONV = "conv"
    SOFTMAX = "softmax"
    NORM = "norm"
    ACTIVATION = "activation"
    ELEMENTWISE = "elementwise"
    DROPOUT = "dropout"
    EMBEDDING = "embedding"
    LOSS = "loss"
    POOL = "pool"
    OPTIMIZER = "optimizer"
    CHECKPOINT = "checkpoint"


#: The GEMM-like kinds (what ``torch.utils.flop_counter`` counts): :attr:`Operator.is_matmul`.
MATMUL_KINDS = (OperatorKind.MATMUL, OperatorKind.ATTENTION, OperatorKind.CONV)


class OperatorRole(StrEnum):
    """What other models need to know about an operator beyond its kind.

    ``mlp-intermediate``: saves FFN-width tensors, which Mini-Sequence Transformer chunking
    shrinks (Luo et al. 2024); ``attention-core``: the attention scores, softmax, attention
    dropout and scores x V, which selective recomputation replays (Korthikanti et al. 2022,
    section 4.2).
    """

    NONE = ""
    MLP_INTERMEDIATE = "mlp-intermediate"
    ATTENTION_CORE = "attention-core"


class Operator(Record, frozen=True):
    """One kind of operation in a training step. Per-execution figures; ``count`` per step.

    ``kind`` is an :class:`OperatorKind` (or its value); ``block`` the part of the model it
    belongs to (``embedding``, ``layer``, ``head``, ``loss``, ``optimizer``); ``pattern`` the
    attention pattern of the layers it runs in (``local``, ``global``, ``dilated`` or empty for
    every layer); ``tensor_parallel`` whether Megatron-style tensor parallelism splits its work
    and saved tensors over the ``t`` ranks (the attention and MLP between the f and g operators)
    rather than replicating them (the norms, residual adds and dropouts on the full hidden
    state); ``row_parallel`` that a split GEMM is row-parallel, its weight split along its
    ``k`` input features (the attention output and MLP down projections, which end a
    tensor-parallel region), where a column-parallel one splits its ``n`` output features and
    the attention core its heads (Shoeybi et al. 2019, section 3); ``saved_replicated`` that
    what it saves for backward is replicated even though its work is split (the full
    hidden-state input of the QKV, first MLP and LM-head GEMMs); ``fuse_group`` names GEMMs
    that read the same input and that a model's or framework's code may run as one GEMM of
    their output widths concatenated (``qkv``; ``<mlp> gate-up``). Only
    sequence parallelism splits the replicated parts (Korthikanti et al. 2022, section 4.2 and
    Table 2: the ``10·s·b·h`` of ``10 + 24/t``).
    """

    name: str
    kind: str
    block: str
    count: Real
    forward_flops: Real = 0
    backward_input_flops: Real = 0
    backward_weight_flops: Real = 0
    bytes_read: Real = 0
    bytes_written: Real = 0
    backward_bytes: Real = 0
    saved_bytes: Real = 0
    parameters: Real = 0
    # The parameter tensors of one execution as the model's code holds them (a weight and a
    # bias: two); 0 with parameters counts as one (:func:`mlcost.operator_time.parameter_tensors`).
    parameter_tensors: Real = 0
    recompute_fraction: float = 0.0
    # The inputs of a region recomputed on its own (the attention core's q, k and v, on its
    # scores row), kept for backward on the share ``recomputed_alone`` of its executions whose
    # region, not the whole layer, is recomputed (selective recomputation).
    region_input_bytes: Real = 0.0
    recomputed_alone: float = 0.0
    m: Real = 0
    n: Real = 0
    k: Real = 0
    gemm_batch: Real = 0
    gemm_group: Real = 0  # GEMMs one grouped launch can run together (a GPU's local experts)
    role: OperatorRole = OperatorRole.NONE
    pattern: str = ""
    tensor_parallel: bool = False
    row_parallel: bool = False
    fuse_group: str = ""
    saved_replicated: bool = False
    format: str = ""  # the compute format of a GEMM when not the table's (BF16 heads under FP8)
    note: str = ""

    @property
    def is_matmul(self) -> bool:
        """GEMM-like: what ``torch.utils.flop_counter`` counts (:data:`MATMUL_KINDS`)."""
        return self.kind in MATMUL_KINDS

    @property
    def total_flops(self) -> Real:
        """FLOPs per execution on the hardware: forward, backward and recomputed forward."""
        return self.forward_flops + self.backward_flops + self.recompute_flops

    @property
    def bytes_moved(self) -> Real:
        """Bytes per execution to and from memory: forward reads and writes, backward traffic,
        and the recomputed forward's reads and writes."""
        forward = self.bytes_read + self.bytes_written
        return forward + self.backward_bytes + forward * self.recompute_fraction

    @property
    def intensity(self) -> Real:
        """Arithmetic intensity ``total_flops / bytes_moved`` in FLOP/byte (0 without bytes;
        Williams et al. 2009)."""
        moved = np.asarray(self.bytes_moved, dtype=np.float64)
        flops = np.asarray(self.total_flops, dtype=np.float64)
        return plain(np.where(moved > 0, flops / np.where(moved > 0, moved, 1.0), 0.0))

    @property
    def backward_flops(self) -> Real:
        return self.backward_input_flops + self.backward_weight_flops

    @property
    def recompute_flops(self) -> Real:
        """Forward FLOPs repeated in the backward pass under the recomputation policy."""
        return self.forward_flops * self.recompute_fraction

    @property
    def saved_bytes_after_recompute(self) -> Real:
        """Bytes this operator still saves for backward once recomputation drops its share."""
        kept = self.region_input_bytes * self.recomputed_alone
        return self.saved_bytes * (1.0 - self.recompute_fraction) + kept


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
    "role",
    "pattern",
    "tensor_parallel",
    "saved_replicated",
)
#: The per-execution columns :meth:`OperatorTable.by_kind` sums over a step.
PER_EXECUTION_TOTALS = (
    "forward_flops",
    "backward_input_flops",
    "backward_weight_flops",
    "recompute_flops",
    "bytes_read",
    "bytes_written",
    "saved_bytes",
)


class OperatorTable(Record, Result, frozen=True):
    """The operators of one training step (all micro-batches and the optimizer update)."""

    operators: tuple[Operator, ...]
    description: str = ""
    tokens_per_step: Real = 0
    metadata: dict[str, Any] = field(default_factory=dict)

    # ----- totals (pint quantities) -------------------------------------------------------
    def _total(self, attribute: str, *, matmul_only: bool = False) -> Real:
        """Sum of ``attribute x count`` over the pass operators (the optimizer update, which is
        not part of the forward or backward pass, is left out)."""
        total: Real = 0
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
        total: Real = 0
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
        return Q_(self.model_flop_count, "flop")

    @property
    def model_flop_count(self) -> Real:
        """:attr:`model_flops` in FLOP, a plain number (array in sweeps): forward and backward
        FLOPs each summed over the pass operators (:meth:`_total`'s order), in one pass."""
        forward: Real = 0
        backward: Real = 0
        for op in self.operators:
            if op.kind == "optimizer":
                continue
            count = op.count
            forward = forward + op.forward_flops * count
            backward = backward + op.backward_flops * count
        return forward + backward

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

    def require_one_micro_batch(self, model: str) -> None:
        """Raise :class:`MlcostError` unless this is the table of one micro-batch of ``model``:
        what a caller that built it once hands to the stages reading one micro-batch's time
        and saved bytes (a table of ``m`` micro-batches counts every operator ``m`` times)."""
        micro, name = self.metadata.get("micro_batches"), self.metadata.get("model")
        if micro != 1 or name != model:
            raise MlcostError(
                f"table: got the table of {micro!r} micro-batch(es) of {name!r}, expected one "
                f"micro-batch of {model!r} (build it under layout.one_micro_batch())"
            )

    def by_kind(self) -> pd.DataFrame:
        """Totals per step grouped by operator kind."""
        frame = self.to_frame()
        columns = list(PER_EXECUTION_TOTALS)
        totals = frame[columns].multiply(frame["count"], axis=0)
        totals["kind"] = frame["kind"]
        return totals.groupby("kind", sort=False).sum()

    # ----- the result vocabulary ----------------------------------------------------------
    def title(self) -> str:
        return f"operators of one training step: {self.description}"

    def figures(self) -> list[Figure]:
        """The step's totals: tokens, FLOPs by pass, and bytes saved for backward."""
        source = "mlcost.workload operator table (2 FLOPs per multiply-add; docs/counting.md)"
        micro = self.metadata.get("micro_batches", 1)
        return [
            Figure("tokens per step", Q_(self.tokens_per_step, "token"), "b x s x m", "", source),
            Figure("forward FLOPs", self.forward_flops, "sum of forward x count", "", source),
            Figure("backward FLOPs", self.backward_flops, "sum of backward x count", "", source),
            Figure(
                "recomputed FLOPs", self.recompute_flops, "forward x recompute share", "", source
            ),
            Figure("model FLOPs (MFU)", self.model_flops, "forward + backward", "", source),
            Figure("hardware FLOPs (HFU)", self.hardware_flops, "model + recomputed", "", source),
            Figure(
                "saved for backward per micro-batch",
                self.saved_bytes.to("GiB"),
                "sum of bytes saved after recomputation / micro-batches",
                f"m = {micro}",
                source,
            ),
        ]

    # ----- conversion ---------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """One row per operator; FLOP and byte columns are per execution (multiply by count).

        Units: ``*_flops`` in FLOP, ``*bytes*`` in bytes, ``parameters`` in params.
        """
        import pandas as pd

        rows = []
        for op in self.operators:
            row = {name: _scalar(getattr(op, name)) for name in COLUMNS}
            row["kind"], row["role"] = str(op.kind), str(op.role)
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
    count: Real,
    elements: Real,
    flops_key: str,
    *,
    activation_bytes: float,
    inputs: int = 1,
    saved_elements: Real = 0,
    saved_element_bytes: float | None = None,
    kind: str = "elementwise",
    parameters: Real = 0,
    parameter_tensors: Real = 0,
    recompute_fraction: float = 0.0,
    role: OperatorRole = OperatorRole.NONE,
    pattern: str = "",
    tensor_parallel: bool = False,
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
        parameter_tensors=parameter_tensors,
        recompute_fraction=recompute_fraction,
        role=role,
        pattern=pattern,
        tensor_parallel=tensor_parallel,
        note=note,
    )
