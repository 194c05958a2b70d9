"""Memory per GPU for one training step, and "will it fit?".

* :mod:`mlcost.memory.states`: weights, gradients, master weights and optimizer states under ZeRO;
* :mod:`mlcost.memory.activations`: activations saved for backward (PyTorch-eager profile from
  the operator table, or Korthikanti et al. 2022's Table 2);
* :mod:`mlcost.memory.breakdown`: the per-GPU total of the most loaded pipeline stage, term by
  term (:func:`memory_breakdown`, :func:`per_gpu_memory`);
* :mod:`mlcost.memory.solve`: largest micro-batch, longest sequence, fewest GPUs, smallest GPU.
"""

from __future__ import annotations

from mlcost.memory.activations import (
    PROFILES,
    ActivationParts,
    Profile,
    activation_parts,
    megatron_activation_bytes_per_layer,
)
from mlcost.memory.breakdown import (
    DEFAULT_OVERHEADS,
    MemoryBreakdown,
    Overheads,
    StageMemory,
    gib_text,
    in_flight_micro_batches,
    memory_breakdown,
    per_gpu_memory,
)
from mlcost.memory.solve import (
    MEMORY_MODEL_SCOPE,
    MODELLED_VENDORS,
    able_gpus,
    max_micro_batch_size,
    max_sequence_length,
    min_gpus,
    modelled_gpus,
    smallest_gpu,
    unmodelled_reason,
)
from mlcost.memory.states import model_state_bytes_per_parameter, zero_model_state_bytes
from mlcost.memory.terms import MODEL_STATES, MemoryTerm

__all__ = [
    "DEFAULT_OVERHEADS",
    "MEMORY_MODEL_SCOPE",
    "MODELLED_VENDORS",
    "MODEL_STATES",
    "PROFILES",
    "ActivationParts",
    "MemoryBreakdown",
    "MemoryTerm",
    "Overheads",
    "Profile",
    "StageMemory",
    "able_gpus",
    "activation_parts",
    "gib_text",
    "in_flight_micro_batches",
    "max_micro_batch_size",
    "max_sequence_length",
    "megatron_activation_bytes_per_layer",
    "memory_breakdown",
    "min_gpus",
    "model_state_bytes_per_parameter",
    "modelled_gpus",
    "per_gpu_memory",
    "smallest_gpu",
    "unmodelled_reason",
    "zero_model_state_bytes",
]
