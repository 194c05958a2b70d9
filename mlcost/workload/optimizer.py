"""The optimizer update as an operator: FLOPs and bytes per parameter, once per step."""

from __future__ import annotations

from mlcost.workload.config import TrainingConfig
from mlcost.workload.table import Operator

#: Optimizer update FLOPs per parameter (element-wise, counted as in :data:`ELEMENTWISE_FLOPS`):
#: SGD ``p -= lr·g`` 2; momentum adds ``b = mu·b + g`` 2; RMSprop ``v = a·v + (1-a)·g^2`` 4 and
#: ``p -= lr·g/(sqrt(v)+eps)`` 4; Adam (Kingma & Ba 2015, Algorithm 1) first moment 3, second
#: moment 4, two bias corrections 2, sqrt 1, eps 1, divide 1, lr 1, update 1 = 14; AdamW adds
#: decoupled weight decay 2 (Loshchilov & Hutter 2019); 8-bit Adam adds dequantize/quantize of
#: both states 4 (Dettmers et al. 2022); Adafactor ~12 (factored second moment, update
#: clipping; Shazeer & Stern 2018); Lion 10 (interpolate 3, sign 1, update with decay 3,
#: momentum 3; Chen et al. 2023).
OPTIMIZER_FLOPS_PER_PARAM: dict[str, float] = {
    "sgd": 2,
    "sgd-momentum": 4,
    "rmsprop": 8,
    "adam": 14,
    "adamw": 16,
    "adam-8bit": 20,
    "adafactor": 12,
    "lion": 10,
}

#: Optimizer state bytes per parameter (what the update reads and writes besides weight and
#: gradient): Adam/AdamW two FP32 moments, 8-bit Adam two 1-byte moments, momentum/RMSprop/Lion
#: one FP32 buffer, SGD none, Adafactor factored (row and column sums, ~0 per element).
OPTIMIZER_STATE_BYTES: dict[str, float] = {
    "sgd": 0,
    "sgd-momentum": 4,
    "rmsprop": 4,
    "adam": 8,
    "adamw": 8,
    "adam-8bit": 2,
    "adafactor": 0,
    "lion": 4,
}


def optimizer_operator(parameters: int, config: TrainingConfig) -> Operator:
    """The update of ``parameters`` weights: reads the master weights, the gradient and the
    optimizer states, writes the master weights, the states and (mixed precision) the
    low-precision copy used by the next forward pass."""
    policy = config.policy
    states = OPTIMIZER_STATE_BYTES[config.optimizer]
    master = policy.master_weight or policy.weight
    low_precision_copy = policy.weight if policy.master_weight else 0
    return Operator(
        name=f"optimizer update ({config.optimizer})",
        kind="optimizer",
        block="optimizer",
        count=1,
        forward_flops=OPTIMIZER_FLOPS_PER_PARAM[config.optimizer] * parameters,
        bytes_read=parameters * (master + policy.gradient + states),
        bytes_written=parameters * (master + states + low_precision_copy),
        parameters=parameters,
        note="once per step, after all micro-batches",
    )
