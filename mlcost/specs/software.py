"""The software that runs a training step, as data: implementation profiles and measured kernels.

* :class:`Implementation` (``kind: implementation``): what a training framework does beyond the
  operator table, each field with its source: the attention kernel it calls, whether its
  element-wise kernels are fused, which communications overlap compute, the bytes per parameter
  it reduces gradients in, its optimizer kernel, the host time it spends per dispatched
  operation.
* :class:`Kernel` (``kind: kernel``): the measured throughput of a named kernel (a
  FlashAttention version, cuDNN's fused attention) on named accelerators, over sequence length,
  per head size and mask, as its authors published it, with the FLOP convention of the
  publication (FlashAttention papers: forward ``4·s²·d·heads·b``, halved under a causal mask;
  backward 2.5 x forward, since it recomputes the scores).
"""

from __future__ import annotations

from functools import cached_property
from typing import ClassVar, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from mlcost.specs.base import Duration, FlopRate, PositiveInt, Spec
from mlcost.units import Q_, in_unit

Direction = Literal["forward", "backward", "forward+backward"]
OptimizerKernel = Literal["fused", "foreach", "for-loop"]


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)


class KernelCurve(_Part):
    """Throughput of one kernel on some accelerators, at one head size, mask and direction, over
    sequence lengths (FLOPs per the kernel's ``flop_convention``)."""

    accelerators: tuple[str, ...] = Field(min_length=1)
    format: str = "bf16"
    head_dim: PositiveInt
    causal: bool
    direction: Direction
    sequence: tuple[PositiveInt, ...] = Field(min_length=1)
    throughput: tuple[FlopRate, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _same_length(self) -> KernelCurve:
        if len(self.sequence) != len(self.throughput):
            raise ValueError(
                f"throughput: got {len(self.throughput)} values for {len(self.sequence)} "
                "sequence lengths, expected one per length"
            )
        if list(self.sequence) != sorted(self.sequence):
            raise ValueError("sequence: expected increasing lengths")
        return self

    @cached_property
    def _points(self) -> tuple[np.ndarray, np.ndarray]:
        """log2 of the sequence lengths and the throughputs in FLOP/s, converted once."""
        xs = np.log2(np.asarray(self.sequence, dtype=np.float64))
        return xs, np.asarray([in_unit(t, "flop/s") for t in self.throughput])

    def at(self, sequence: object) -> np.ndarray:
        """FLOP/s at ``sequence`` (interpolated in log sequence, flat beyond the measured ends)."""
        x = np.log2(np.maximum(np.asarray(sequence, dtype=np.float64), 1.0))
        xs, ys = self._points
        return np.asarray(np.interp(x, xs, ys))


class CrossEntropyKernels(_Part):
    """How an implementation computes the cross-entropy over the logits: the bytes it moves per
    logit (16-bit logits) in the forward and the backward pass, and the kernels it launches for
    both. Counted from the implementation's source: one read per input and one write per output
    of each kernel."""

    forward_bytes: float = Field(gt=0)
    backward_bytes: float = Field(gt=0)
    kernels: PositiveInt


class Kernel(Spec):
    """Published throughput of one kernel (see the module docstring)."""

    KIND: ClassVar[str] = "kernel"
    kind: Literal["kernel"] = "kernel"
    operation: Literal["attention"] = "attention"
    flop_convention: str
    backward_factor: float = Field(default=2.5, gt=0)
    curves: tuple[KernelCurve, ...] = Field(min_length=1)

    def curve(
        self, accelerator: str, direction: Direction, *, head_dim: int, causal: bool
    ) -> KernelCurve | None:
        """The measured curve for ``accelerator`` in ``direction`` closest in head size (the mask
        matching when measured; else the other mask's curve); ``None`` if the accelerator was not
        measured in that direction."""
        mine = [
            c for c in self.curves if accelerator in c.accelerators and c.direction == direction
        ]
        if not mine:
            return None
        matching = [c for c in mine if c.causal == causal] or mine
        return min(matching, key=lambda c: (abs(np.log2(c.head_dim / head_dim)), -c.head_dim))

    def measured_on(self) -> tuple[str, ...]:
        """Every accelerator some curve covers."""
        return tuple(sorted({name for c in self.curves for name in c.accelerators}))


class Implementation(Spec):
    """A training framework's implementation of the step (see the module docstring).

    ``attention_kernels`` names :class:`Kernel` s of the catalog in the order the framework prefers
    them (the first measured on the accelerator is used; none: the attention of the operator
    table itself at the GEMM ceiling). ``gradient_reduce_bytes``
    is what one parameter's gradient weighs in the data-parallel collectives (4: FP32 main
    gradients). ``optimizer_passes`` is the memory traffic of the optimizer update relative to
    one fused kernel; ``optimizer_ops_per_tensor`` the operations dispatched per parameter
    tensor (for-loop optimizers), each costing ``dispatch_overhead`` of host time.
    ``fsdp_backward_prefetch``: ZeRO-3 / FSDP issues the next layer's all-gather before the
    current layer's gradient computation (``pre``, hidden behind it) or after it (``post``,
    PyTorch's ``BACKWARD_POST``: the gather, queued with the reduce-scatters on one stream, is
    waited for). ``cross_entropy``: the loss kernels (:class:`CrossEntropyKernels`; absent: one
    fused kernel each way, moving what the operator table counts).
    """

    KIND: ClassVar[str] = "implementation"
    kind: Literal["implementation"] = "implementation"
    framework: str
    attention_kernels: tuple[str, ...] = ()
    fused_elementwise: bool = False
    tp_comm_overlap: bool = False
    overlap_grad_reduce: bool = True
    overlap_param_gather: bool = False
    # Expert-parallel all-to-all hidden behind another micro-batch's compute (Megatron-Core's
    # --overlap-moe-expert-parallel-comm, DeepSeek-V3's DualPipe, arXiv 2412.19437 section
    # 3.2.1); off unless the profile says so.
    overlap_moe_alltoall: bool = False
    # The experts of an MoE layer run as one grouped GEMM launch (Transformer Engine's
    # GroupedLinear, Megatron-Core's --moe-grouped-gemm) instead of one GEMM per expert (the
    # Hugging Face eager experts).
    grouped_expert_gemm: bool = False
    # The projections that read one input run as one GEMM of their output widths concatenated:
    # Q, K and V (Megatron-Core's linear_qkv) and a gated MLP's gate and up (linear_fc1 of twice
    # the FFN width), instead of one GEMM each (the Hugging Face Llama modules).
    fused_projections: bool = False
    fsdp_forward_prefetch: bool = True
    fsdp_backward_prefetch: Literal["pre", "post"] = "pre"
    gradient_reduce_bytes: float | None = Field(default=None, gt=0)
    optimizer_kernel: OptimizerKernel = "fused"
    optimizer_passes: float = Field(default=1.0, ge=1.0)
    optimizer_ops_per_tensor: float = Field(default=0.0, ge=0.0)
    cross_entropy: CrossEntropyKernels | None = None
    dispatch_overhead: Duration = Q_(5, "us")

    def references_to(self) -> list[tuple[str, str]]:
        """(kind, name) of the catalog items this profile names."""
        return [("kernel", name) for name in self.attention_kernels]

    @cached_property
    def dispatch_seconds(self) -> float:
        """``dispatch_overhead`` in seconds, converted once per profile (the step-time hot
        path reads it on every call)."""
        return float(in_unit(self.dispatch_overhead, "s"))


__all__ = [
    "CrossEntropyKernels",
    "Direction",
    "Implementation",
    "Kernel",
    "KernelCurve",
    "OptimizerKernel",
]
