"""The inverse questions: the largest micro-batch, the longest sequence, the fewest GPUs and the
smallest GPU on which a training step fits. Every candidate is evaluated in one vectorized call
of the memory model (memory grows with batch and sequence and shrinks with data parallelism)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mlcost.errors import MlcostError
from mlcost.finetune import dequantized_weight_bytes
from mlcost.layout import Layout
from mlcost.memory.activations import Profile, activation_parts
from mlcost.memory.breakdown import DEFAULT_OVERHEADS, Overheads, memory_breakdown, per_gpu_memory
from mlcost.memory.states import model_state_bytes_per_parameter
from mlcost.specs import Accelerator, ModelSpec, TransformerSpec
from mlcost.specs.catalog import as_accelerator, as_model
from mlcost.units import in_unit
from mlcost.workload import TrainingConfig


def _transformer(model: ModelSpec | str, what: str) -> TransformerSpec:
    spec = as_model(model)
    if not isinstance(spec, TransformerSpec):
        raise MlcostError(f"{what}: {spec.name!r} is a {spec.KIND}; the solvers take transformers")
    return spec


def _largest_fitting(candidates: np.ndarray, fits: Any) -> int:
    """The largest candidate whose step fits, 0 when none does."""
    fitting = candidates[np.asarray(fits, dtype=bool)]
    return int(fitting.max()) if fitting.size else 0


def max_micro_batch_size(
    model: ModelSpec | str,
    config: TrainingConfig,
    gpu: Accelerator | str,
    layout: Layout | None = None,
    *,
    limit: int = 4096,
    profile: Profile = "pytorch",
    overheads: Overheads | None = None,
) -> int:
    """The largest micro-batch (1..``limit``) that fits under ``layout``, 0 if none."""
    spec = _transformer(model, "max_micro_batch_size")
    candidates = np.arange(1, limit + 1)
    breakdown = memory_breakdown(
        spec,
        config,
        gpu,
        layout,
        profile=profile,
        overheads=overheads,
        micro_batch_size=candidates,
    )
    return _largest_fitting(candidates, breakdown.fits())


def max_sequence_length(
    model: ModelSpec | str,
    config: TrainingConfig,
    gpu: Accelerator | str,
    layout: Layout | None = None,
    *,
    multiple: int = 128,
    limit: int = 1_048_576,
    profile: Profile = "pytorch",
    overheads: Overheads | None = None,
) -> int:
    """The longest sequence (a multiple of ``multiple`` up to ``limit``) that fits, 0 if none.
    Learned position embeddings cap it at ``max_position_embeddings``."""
    spec = _transformer(model, "max_sequence_length")
    if spec.position_encoding == "learned":
        limit = min(limit, spec.max_position_embeddings)
    layout = layout or Layout()
    step = multiple * layout.cp // np.gcd(multiple, layout.cp)
    candidates = np.arange(step, limit + 1, step)
    breakdown = memory_breakdown(
        spec,
        config,
        gpu,
        layout,
        profile=profile,
        overheads=overheads,
        sequence_length=candidates,
    )
    return _largest_fitting(candidates, breakdown.fits())


def min_gpus(
    model: ModelSpec | str,
    config: TrainingConfig,
    gpu: Accelerator | str,
    layout: Layout | None = None,
    *,
    limit: int = 65_536,
    profile: Profile = "pytorch",
    overheads: Overheads | None = None,
) -> int:
    """Fewest GPUs ``dp x tp x pp x cp`` that fit, growing the data-parallel degree of
    ``layout`` (default: ZeRO-3, so that model states shard over the ranks) up to ``limit``
    ranks; 0 if none. All candidate degrees are evaluated at once."""
    spec = _transformer(model, "min_gpus")
    accelerator = as_accelerator(gpu)
    layout = layout or Layout(zero_stage=3)
    layout.check_model(
        spec.num_layers,
        spec.num_attention_heads,
        config.sequence_length,
        experts=spec.routed_experts,
    )
    overheads = overheads or DEFAULT_OVERHEADS
    parts = activation_parts(
        spec,
        config,
        layout,
        profile,
        layout.micro_batch_size,
        config.sequence_length // layout.cp,
    )
    dp = np.arange(1, limit + 1)
    memory = per_gpu_memory(
        parts,
        parameters=float(spec.parameter_count),
        layers=spec.num_layers,
        per_parameter=model_state_bytes_per_parameter(
            config.precision, config.optimizer, model=spec, finetune=config.finetune
        ),
        stage_layers=layout.stage_layer_counts(spec.num_layers),
        virtual_stages=layout.virtual_stages,
        tensor_parallel=layout.tp,
        weight_replicas=dp * layout.cp,
        zero_stage=layout.zero_stage,
        sequence_parallel=layout.sequence_parallel,
        micro_batches=layout.micro_batches,
        offload=layout.offload,
        overheads=overheads,
        dequantized_weight=dequantized_weight_bytes(
            spec, config.finetune, config.policy.stored_weight
        ),
        expert_parameters=float(spec.expert_parameter_count),
        expert_parallel=layout.ep,
    )
    fits = memory.total <= in_unit(accelerator.memory_available, "byte")
    if not np.any(fits):
        return 0
    return int(dp[fits].min()) * layout.model_parallel


def smallest_gpu(
    model: ModelSpec | str,
    config: TrainingConfig,
    gpus: list[Accelerator],
    layout: Layout | None = None,
    **options: Any,
) -> Accelerator | None:
    """The GPU of ``gpus`` with the least memory on which the step fits (``None`` if none),
    among those that compute in the run's precision (a V100 has no BF16: never the answer for a
    ``bf16-mixed`` run) and that the memory model describes (:func:`modelled_gpus`: no TPU,
    Gaudi or ROCm GPU); ``options`` are :func:`memory_breakdown`'s keywords (profile,
    overheads)."""
    spec = as_model(model)
    candidates = modelled_gpus(able_gpus(config, gpus))[0]
    for candidate in sorted(candidates, key=lambda g: in_unit(g.memory_available, "byte")):
        breakdown = memory_breakdown(spec, config, candidate, layout, **options)
        if bool(np.all(breakdown.fits())):
            return candidate
    return None


#: The vendors whose accelerators the memory model describes: it is PyTorch on CUDA's (the
#: caching allocator's blocks and fragmentation, the CUDA context of :class:`Overheads`, the
#: saved tensors of PyTorch's eager kernels, checked against ``torch.cuda`` counters).
MODELLED_VENDORS = frozenset({"NVIDIA"})

#: What each other vendor's accelerators run instead (why the model does not describe them).
_OTHER_STACKS = {
    "Google": "XLA (which plans a step's buffers itself)",
    "AMD": "PyTorch on ROCm (HIP's allocator and context, not measured here)",
    "Intel": "PyTorch on the Gaudi bridge (Habana's allocator and graph mode)",
}


def other_stack(gpu: Accelerator) -> str | None:
    """What ``gpu`` runs in place of PyTorch on CUDA, ``None`` for a GPU the memory model
    describes (:data:`MODELLED_VENDORS`)."""
    if gpu.vendor in MODELLED_VENDORS:
        return None
    return _OTHER_STACKS.get(gpu.vendor, f"{gpu.vendor}'s own software stack")


#: Why the memory model does not describe an accelerator of another vendor.
MEMORY_MODEL_SCOPE = "the memory model is PyTorch on CUDA's (caching allocator, CUDA context)"


def unmodelled_reason(gpu: Accelerator) -> str | None:
    """``None`` where the memory model describes ``gpu``, else one sentence saying why not:
    what it runs instead (:func:`other_stack`) and :data:`MEMORY_MODEL_SCOPE`."""
    stack = other_stack(gpu)
    return None if stack is None else f"{gpu.name} runs {stack}; {MEMORY_MODEL_SCOPE}"


def modelled_gpus(gpus: list[Accelerator]) -> tuple[list[Accelerator], dict[str, str]]:
    """``gpus`` split into those the memory model describes (in their order) and the others,
    each with what it runs instead (:func:`other_stack`)."""
    stacks = {g.name: stack for g in gpus if (stack := other_stack(g)) is not None}
    return [g for g in gpus if g.name not in stacks], stacks


def able_gpus(config: TrainingConfig, gpus: list[Accelerator]) -> list[Accelerator]:
    """The GPUs of ``gpus`` with a peak in every format the run computes in
    (:attr:`~mlcost.workload.PrecisionPolicy.compute_formats`), in their order."""
    needed = set(config.policy.compute_formats)
    return [g for g in gpus if needed <= set(g.formats)]
