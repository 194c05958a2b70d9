"""Model states per GPU: weights, gradients, master weights and optimizer states, sharded by
ZeRO (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter
Models", sections 3.1 and 5).

For ``Psi`` parameters held by a GPU's model replica, with bytes per parameter from the numeric
format policy (:data:`mlcost.workload.config.PRECISION_POLICIES`: the working copy of the weights,
the gradients and the FP32 master weights) and the optimizer (:data:`mlcost.workload.optimizer.
OPTIMIZERS`), sharded over the ``N_d`` ranks that hold the same weights: stage 1 shards the
master weights and optimizer states, stage 2 also the gradients, stage 3 also the weights.
CPU offload (ZeRO-Offload, Ren et al. 2021) keeps master weights and optimizer states in host
memory.
"""

from __future__ import annotations

import numpy as np
import pint

from mlcost.arrays import Real, plain
from mlcost.finetune import (
    FineTuning,
    frozen_parameters,
    quantized_bits_per_parameter,
    quantized_parameters,
    trainable_parameters,
)
from mlcost.memory.terms import MemoryTerm
from mlcost.specs import ModelSpec, TransformerSpec
from mlcost.units import Q_, magnitude_in
from mlcost.workload.config import PRECISION_POLICIES
from mlcost.workload.optimizer import OPTIMIZERS

#: The stage from which ZeRO shards each model state (Rajbhandari et al. 2020, section 5).
ZERO_SHARDS_FROM: dict[MemoryTerm, int] = {
    MemoryTerm.WEIGHTS: 3,
    MemoryTerm.GRADIENTS: 2,
    MemoryTerm.MASTER_WEIGHTS: 1,
    MemoryTerm.OPTIMIZER_STATES: 1,
}
#: What ZeRO-Offload keeps in host memory (Ren et al. 2021, section 4).
OFFLOADED = (MemoryTerm.MASTER_WEIGHTS, MemoryTerm.OPTIMIZER_STATES)


def model_state_bytes_per_parameter(
    precision: str,
    optimizer: str,
    *,
    model: ModelSpec | None = None,
    finetune: FineTuning | None = None,
    gradient_bytes: float | None = None,
) -> dict[MemoryTerm, float]:
    """Bytes per parameter of the working weights, gradients, master weights and optimizer
    states under a precision policy and an optimizer (the one table of each, module docstring).

    With ``finetune`` (and the transformer ``model``), bytes per parameter of the base model,
    averaged over its ``P`` parameters: ``P_t`` trainable ones (adapters, trained biases or the
    unfrozen base) carry the working weights, gradients, master weights and optimizer states
    of the policy and optimizer; the ``P_f`` frozen ones only their stored weight, in the
    policy's working format or, under QLoRA, the NF4 bits per weight with their block
    constants (:func:`mlcost.finetune.quantized_bits_per_parameter`) for the ``P_q`` weights of
    the layers' linears. So ``weights = (w·(P_f - P_q) + q/8·P_q + w·P_t) / P`` and
    ``gradients = g·P_t / P`` and so on; multiplied by ``P`` (and sharded by ZeRO) they are the
    exact totals. Paged optimizer states (``FineTuning.paged``) are counted in host memory.

    ``gradient_bytes``: what the implementation holds a gradient in under mixed precision (a
    policy with master weights), e.g. 4 for Megatron's FP32 ``main_grad`` buffers: FP16 weights
    2 + gradients 4 + master weights 4 + Adam 8 = 18 bytes, the parameters-and-optimizer bar of
    Korthikanti et al. 2022, Figure 1 (:attr:`mlcost.specs.Implementation.held_gradient_bytes`).
    """
    policy = PRECISION_POLICIES[precision]
    mixed = gradient_bytes is not None and policy.master_weight > 0
    stored = policy.stored_weight
    linear_share = 0.0
    if policy.stored_linear_weight and isinstance(model, TransformerSpec):
        linear_share = layer_linear_parameters(model) / model.parameter_count
    dense = {
        MemoryTerm.WEIGHTS: stored + (policy.stored_linear_weight - stored) * linear_share,
        MemoryTerm.GRADIENTS: gradient_bytes if mixed and gradient_bytes else policy.gradient,
        MemoryTerm.MASTER_WEIGHTS: policy.master_weight,
        MemoryTerm.OPTIMIZER_STATES: OPTIMIZERS[optimizer].state_bytes,
    }
    if finetune is None or finetune.is_default or not isinstance(model, TransformerSpec):
        return dense
    total = float(model.parameter_count)
    trainable = trainable_parameters(model, finetune) / total
    quantized = quantized_parameters(model, finetune) / total
    frozen = frozen_parameters(model, finetune) / total
    # FP8-stored linears (``fp8-params``): a frozen base's layer linears in 1 byte; the
    # adapters, and a full fine-tune's trained weights, at the model's average.
    fp8_linears = 0.0 if quantized or not finetune.adapters else linear_share
    frozen_weights = (
        (frozen - quantized - fp8_linears) * stored
        + fp8_linears * policy.stored_linear_weight
        + quantized * (quantized_bits_per_parameter(finetune) / 8)
    )
    averaged = {term: nbytes * trainable for term, nbytes in dense.items()}
    if finetune.adapters:
        averaged[MemoryTerm.WEIGHTS] = stored * trainable
    averaged[MemoryTerm.WEIGHTS] += frozen_weights
    if finetune.paged:  # paged optimizer: states evictable to host memory (QLoRA section 3)
        averaged[MemoryTerm.OPTIMIZER_STATES] = 0.0
    return averaged


def layer_linear_parameters(model: TransformerSpec) -> int:
    """Parameters of the layers' linears (attention projections, MLPs, routed and shared
    experts, with their biases), the weights an FP8 recipe runs its GEMMs on and
    ``fp8-params`` stores in FP8 (:data:`mlcost.workload.config.PRECISION_POLICIES`); the
    embeddings, norms, router and output layer are not among them."""
    breakdown = model.parameter_breakdown()
    parts = ("attention", "mlp", "routed experts", "shared experts")
    return sum(breakdown.get(part, 0) for part in parts)


def state_bytes(
    parameters: Real,
    per_parameter: dict[MemoryTerm, float],
    *,
    zero_stage: Real,
    data_parallel: Real,
    offload: bool = False,
) -> dict[MemoryTerm, Real]:
    """:func:`zero_model_state_bytes` on magnitudes (bytes; numbers or arrays), for the
    vectorized callers: each term ``bytes per parameter x Psi``, over the ``data_parallel``
    ranks from the ZeRO stage that shards it (:data:`ZERO_SHARDS_FROM`)."""
    stage = np.asarray(zero_stage)
    psi = np.asarray(parameters, dtype=np.float64)
    result: dict[MemoryTerm, Real] = {}
    for term, nbytes in per_parameter.items():
        if offload and term in OFFLOADED:
            value = 0 * psi
        else:
            value = nbytes * psi / np.where(stage >= ZERO_SHARDS_FROM[term], data_parallel, 1)
        result[term] = plain(value)
    return result


def zero_model_state_bytes(
    parameters: Real,
    per_parameter: dict[MemoryTerm, float],
    *,
    zero_stage: Real,
    data_parallel: Real,
    offload: bool = False,
) -> dict[MemoryTerm, pint.Quantity]:
    """Model-state bytes per GPU under ZeRO ``zero_stage`` over ``data_parallel`` ranks, for
    ``parameters`` (a count or a quantity in ``param``) held by the GPU's replica.

    Rajbhandari et al. 2020, section 5 and Figure 1: baseline ``(w + g + K)·Psi``; stage 1
    ``(w + g)·Psi + K·Psi/N_d``; stage 2 ``w·Psi + (g + K)·Psi/N_d``; stage 3
    ``(w + g + K)·Psi/N_d``, where K includes the FP32 master weights.
    """
    psi = magnitude_in(parameters, "param", "parameters", bare=True)
    values = state_bytes(
        psi, per_parameter, zero_stage=zero_stage, data_parallel=data_parallel, offload=offload
    )
    return {term: Q_(value, "byte") for term, value in values.items()}
