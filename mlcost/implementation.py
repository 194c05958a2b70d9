"""The software that runs a step: an implementation profile resolved once, and what it changes in
a step's time.

An :class:`mlcost.specs.Implementation` (``megatron-core``, ``fsdp``, ``ddp-eager`` in the
catalog, or a YAML file of your own) says which attention kernel the framework calls, whether its
element-wise kernels are fused, which communications overlap compute, the bytes per parameter of
its gradient reduction, its optimizer kernel and its host time per dispatched operation.
:func:`implementation` resolves one (default :data:`DEFAULT_IMPLEMENTATION`) together with its
measured kernels; :func:`attention_kernel_seconds` is the time of a fused attention kernel from
its published throughput:

    t = F_fwd / R_fwd(s) + 2.5 · F_fwd / R_bwd(s)   (or 3.5 · F_fwd / R_fwd+bwd(s))

with ``F_fwd = 4 · pairs · d · heads · b`` the FlashAttention papers' forward FLOPs (``pairs`` the
scores under the mask, ``s²/2`` causal) and ``R`` the throughput measured at sequence length
``s`` for the nearest head size. Where the kernel was measured over launch sizes (batch x heads
per launch, e.g. cuDNN's on the H100), ``R`` is read at the launch's size too: a launch of few
heads (one micro-batch, heads split over tensor-parallel ranks) fills the GPU less and pays its
fixed costs over less work. Where it was measured with attention dropout, a model with dropout
reads those curves (the kernel draws a random number per score, forward and again backward). A
causal backward measured only without a mask is scaled by the forward's causal/non-causal ratio
at the same length. A recomputed forward adds ``F_fwd / R_fwd``.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from mlcost.arrays import Real
from mlcost.errors import MlcostError
from mlcost.records import Record
from mlcost.specs import Accelerator, Catalog, Implementation, Kernel, Spec, default_catalog

#: The implementation a prediction assumes when none is given: Megatron-Core with Transformer
#: Engine, the software behind most published large training runs (the Megatron-LM README's H100
#: table, the Llama 3 and Nemotron reports).
DEFAULT_IMPLEMENTATION = "megatron-core"
#: The implementation of a plain eager training loop on a host-executed device (a CPU): what
#: ``mlcost bench``'s end-to-end step runs there (for-loop AdamW, eager FP32 cross-entropy).
HOST_IMPLEMENTATION = "pytorch-cpu"


def default_implementation(accelerator: Accelerator) -> str:
    """The implementation a plan runs when none is named: :data:`HOST_IMPLEMENTATION` on a
    host-executed device (a profile ``mlcost calibrate`` measured on the CPU: its
    ``measured_on`` names the CPU), else :data:`DEFAULT_IMPLEMENTATION`."""
    measured = accelerator.measured
    on_cpu = measured is not None and measured.measured_on.lower().startswith("cpu")
    return HOST_IMPLEMENTATION if on_cpu else DEFAULT_IMPLEMENTATION


class Software(Record, frozen=True, dict=True):
    """An implementation profile with the kernels it names, resolved from the catalog."""

    spec: Implementation
    kernels: tuple[Kernel, ...] = ()

    @property
    def name(self) -> str:
        return self.spec.name

    def attention_kernel(self, accelerators: tuple[str, ...]) -> Kernel | None:
        """The first of the profile's attention kernels measured on one of ``accelerators``."""
        return self.attention_kernel_on(accelerators)[0]

    def attention_kernel_on(self, accelerators: tuple[str, ...]) -> tuple[Kernel | None, str]:
        """:meth:`attention_kernel` and the first of ``accelerators`` it was measured on (``""``
        without a kernel), looked up once per accelerators (every step asks)."""
        found = self._kernels_on.get(accelerators)
        if found is None:
            found = (None, "")
            for kernel in self.kernels:
                measured = kernel.measured_on()
                if set(measured) & set(accelerators):
                    found = (kernel, next(a for a in accelerators if a in measured))
                    break
            self._kernels_on[accelerators] = found
        return found

    @cached_property
    def _kernels_on(self) -> dict[tuple[str, ...], tuple[Kernel | None, str]]:
        """:meth:`attention_kernel_on`'s answers, by accelerators (this profile's own)."""
        return {}

    def describe(self) -> str:
        return self._description

    @cached_property
    def _description(self) -> str:
        """What :meth:`describe` says, written once (every step's details quote it)."""
        kernels = ", ".join(k.name for k in self.kernels) or "the operator table's attention"
        return f"{self.spec.name} ({self.spec.framework}; attention: {kernels})"


SoftwareLike = str | Path | Implementation | Software | None


def implementation(target: SoftwareLike = None, catalog: Catalog | None = None) -> Software:
    """Resolve an implementation profile (catalog name or alias, YAML file, spec) with its
    kernels; ``None`` is :data:`DEFAULT_IMPLEMENTATION`."""
    if isinstance(target, Software):
        return target
    catalog = catalog if catalog is not None else default_catalog()
    if target is None:  # the catalog's entry (never a file of that name in the working folder),
        # resolved once per catalog: every step asks for it
        return catalog.derived(
            "software",
            DEFAULT_IMPLEMENTATION,
            lambda: _with_kernels(catalog.implementation(DEFAULT_IMPLEMENTATION), catalog, target),
        )
    spec = (
        target
        if isinstance(target, Implementation)
        else catalog.resolve(target, ("implementation",))
    )
    return _with_kernels(spec, catalog, target)


def _with_kernels(spec: Spec, catalog: Catalog, target: SoftwareLike) -> Software:
    """``spec`` (resolved from ``target``: an implementation profile, else an error) with its
    kernels from ``catalog``."""
    if not isinstance(spec, Implementation):
        raise MlcostError(f"implementation: got {target!r}, expected an implementation profile")
    return Software(spec=spec, kernels=tuple(catalog.kernel(n) for n in spec.attention_kernels))


def attention_kernel_seconds(
    kernel: Kernel,
    accelerator: str,
    forward_flops: Real,
    *,
    head_dim: int,
    causal: bool,
    sequence: Real,
    recompute: Real = 0.0,
    batch_heads: Real | None = None,
    dropout: bool = False,
) -> Real | None:
    """Seconds of one fused attention forward + backward (+ ``recompute`` forwards) of
    ``forward_flops`` (the papers' convention) at ``sequence`` (module docstring), one launch
    carrying ``batch_heads`` heads' worth of work where the kernel was measured over launch
    sizes, with attention ``dropout`` where it was measured with it; ``None`` when the kernel
    was not measured on ``accelerator``."""

    both, forward, backward, unmasked = kernel.directions(
        accelerator, head_dim=head_dim, causal=causal, dropout=dropout
    )
    factor = kernel.backward_factor
    if forward is not None and backward is not None:
        rate_f = forward.at(sequence, batch_heads)
        rate_b = backward.at(sequence, batch_heads)
        # A causal backward measured only unmasked (its curve's mask not the one asked), the
        # forward measured with it: scaled by the forward's causal / unmasked ratio.
        if (
            causal
            and backward.causal != causal
            and forward.causal == causal
            and unmasked is not None
        ):
            rate_b = rate_b * rate_f / unmasked.at(sequence, batch_heads)
        return (
            forward_flops / rate_f
            + factor * forward_flops / rate_b
            + (recompute * forward_flops / rate_f)
        )
    if both is not None:
        return (1 + factor + recompute) * forward_flops / both.at(sequence, batch_heads)
    return None


__all__ = [
    "DEFAULT_IMPLEMENTATION",
    "HOST_IMPLEMENTATION",
    "Software",
    "SoftwareLike",
    "attention_kernel_seconds",
    "default_implementation",
    "implementation",
]
