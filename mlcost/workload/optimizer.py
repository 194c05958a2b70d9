"""Optimizers: the one table of their FLOPs and state bytes per parameter, and the update as an
operator (once per step).

Sources of the table:

* FLOPs per parameter, element-wise, counted as in :data:`mlcost.workload.table.
  ELEMENTWISE_FLOPS`: SGD ``p -= lr·g`` 2; momentum adds ``b = mu·b + g`` 2; RMSprop
  ``v = a·v + (1-a)·g^2`` 4 and ``p -= lr·g/(sqrt(v)+eps)`` 4; Adam (Kingma & Ba 2015,
  Algorithm 1) first moment 3, second moment 4, two bias corrections 2, sqrt 1, eps 1, divide 1,
  lr 1, update 1 = 14; AdamW adds decoupled weight decay 2 (Loshchilov & Hutter 2019); 8-bit
  Adam adds dequantize/quantize of both states 4 (Dettmers et al. 2022); Adafactor about 12
  (factored second moment, update clipping; Shazeer & Stern 2018); Lion 10 (interpolate 3,
  sign 1, update with decay 3, momentum 3; Chen et al. 2023).
* States per parameter: PyTorch ``torch.optim`` docs (the state each optimizer keeps, in the
  parameter's dtype; FP32 under mixed precision); bitsandbytes 8-bit Adam (Dettmers et al. 2022:
  two 8-bit states; bitsandbytes ``Optimizer8bit`` with ``block_wise=True`` keeps an FP32 absmax
  per block of :data:`ADAM_8BIT_BLOCK` = 256 values for each state, ``2·4/256`` bytes per
  parameter more; tensors under ``min_8bit_size`` = 4096 values keep 32-bit states, neglected;
  the 256-entry quantization maps are shared); Adafactor (Shazeer & Stern
  2018: factored second moment, row and column sums, about 0 bytes per parameter of a matrix;
  no first moment by default); Lion (Chen et al. 2023: one momentum buffer); AdamW with BF16
  moments (DeepSeek-V3 technical report, arXiv 2412.19437 section 3.3.3, "Low-Precision
  Optimizer States": the first and second moments tracked in BF16, the master weights and
  gradients kept in FP32), the same FLOPs as AdamW.
"""

from __future__ import annotations

from functools import cached_property

from mlcost.records import Record
from mlcost.workload.config import TrainingConfig
from mlcost.workload.table import Operator, OperatorKind

#: Values per block of bitsandbytes' block-wise 8-bit optimizer states (``Optimizer8bit.
#: init_state``: ``blocks = ceil(n / 256)``, one FP32 absmax per block and state; Dettmers et al.
#: 2022, "8-bit Optimizers via Block-wise Quantization", used blocks of 2048).
ADAM_8BIT_BLOCK = 256


class OptimizerProfile(Record, frozen=True, dict=True):
    """FLOPs per parameter of one update and the state it keeps per parameter."""

    name: str
    flops_per_parameter: float
    states: tuple[tuple[str, float], ...]  # (state, bytes per parameter)

    @cached_property
    def state_bytes(self) -> float:
        """Bytes of optimizer state per parameter (summed once per profile)."""
        return float(sum(nbytes for _, nbytes in self.states))


OPTIMIZERS: dict[str, OptimizerProfile] = {
    "sgd": OptimizerProfile("sgd", 2, ()),
    "sgd-momentum": OptimizerProfile("sgd-momentum", 4, (("momentum buffer (fp32)", 4),)),
    "rmsprop": OptimizerProfile("rmsprop", 8, (("square average (fp32)", 4),)),
    "adam": OptimizerProfile("adam", 14, (("exp_avg (fp32)", 4), ("exp_avg_sq (fp32)", 4))),
    "adamw": OptimizerProfile("adamw", 16, (("exp_avg (fp32)", 4), ("exp_avg_sq (fp32)", 4))),
    "adamw-bf16": OptimizerProfile(
        "adamw-bf16", 16, (("exp_avg (bf16)", 2), ("exp_avg_sq (bf16)", 2))
    ),
    "adam-8bit": OptimizerProfile(
        "adam-8bit",
        20,
        (
            ("exp_avg (int8)", 1),
            ("exp_avg_sq (int8)", 1),
            ("block absmax of both (fp32 per 256)", 2 * 4 / ADAM_8BIT_BLOCK),
        ),
    ),
    "adafactor": OptimizerProfile(
        "adafactor", 12, (("factored second moment (rows + columns)", 0),)
    ),
    "lion": OptimizerProfile("lion", 10, (("exp_avg (fp32)", 4),)),
}


def optimizer_operator(parameters: int, config: TrainingConfig) -> Operator:
    """The update of ``parameters`` weights: reads the master weights, the gradient and the
    optimizer states, writes the master weights, the states and (mixed precision) the working
    copy of the weights used by the next forward pass."""
    policy = config.policy
    optimizer = OPTIMIZERS[config.optimizer]
    states = optimizer.state_bytes
    master = policy.master_weight or policy.stored_weight
    working_copy = policy.stored_weight if policy.master_weight else 0
    return Operator(
        name=f"optimizer update ({config.optimizer})",
        kind=OperatorKind.OPTIMIZER,
        block="optimizer",
        count=1,
        forward_flops=optimizer.flops_per_parameter * parameters,
        bytes_read=parameters * (master + policy.gradient + states),
        bytes_written=parameters * (master + states + working_copy),
        parameters=parameters,
        note="once per step, after all micro-batches",
    )
