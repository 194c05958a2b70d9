"""The names of the terms of a per-GPU memory breakdown (the keys every model uses)."""

from __future__ import annotations

from enum import StrEnum


class MemoryTerm(StrEnum):
    """One line of a memory breakdown; its value is the display name."""

    WEIGHTS = "weights"
    GRADIENTS = "gradients"
    MASTER_WEIGHTS = "master weights"
    OPTIMIZER_STATES = "optimizer states"
    ACTIVATIONS = "activations"
    HEAD_ACTIVATIONS = "head activations"
    LOGITS = "logits and loss (fp32)"
    TRANSIENT = "transient backward peak"
    DEQUANTIZED = "dequantized weight (QLoRA)"
    COMMUNICATION = "communication buffers"
    CUDA_CONTEXT = "CUDA context"
    FRAGMENTATION = "allocator fragmentation"

    def __str__(self) -> str:
        return self.value


#: The model-state terms, in the order ZeRO shards them (Rajbhandari et al. 2020, section 5).
MODEL_STATES: tuple[MemoryTerm, ...] = (
    MemoryTerm.WEIGHTS,
    MemoryTerm.GRADIENTS,
    MemoryTerm.MASTER_WEIGHTS,
    MemoryTerm.OPTIMIZER_STATES,
)
