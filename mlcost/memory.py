"""Memory per GPU for one training step, and "will it fit?".

Terms (each a quantity in bytes, with its formula and source in :meth:`MemoryBreakdown.explain`):

* **Model states** (Rajbhandari et al. 2020, "ZeRO", section 3.1): for ``Psi`` parameters, weights
  ``w·Psi``, gradients ``g·Psi``, FP32 master weights ``m·Psi`` and optimizer states ``K·Psi``,
  with bytes per parameter from the numeric format policy (:data:`mlcost.workload.config.
  PRECISION_POLICIES`) and the optimizer (:data:`OPTIMIZER_STATES`). Sharded over the
  data-parallel degree ``N_d`` (not the world size) by ZeRO stage (section 5): stage 1 shards
  master weights and optimizer states, stage 2 also gradients, stage 3 also weights. Tensor and
  pipeline parallelism divide the parameters held by a GPU by ``t·p`` (norms and biases, which
  Megatron replicates, are ignored: under 0.1% of a large model). CPU offload (ZeRO-Offload, Ren
  et al. 2021) keeps master weights and optimizer states in host memory.
* **Activations** saved for backward, by profile:
  ``megatron``: Korthikanti et al. 2022, Table 2, bytes per layer for 16-bit activations and
  1-byte dropout masks: ``s·b·h·(34 + 5·a·s/h)``; with tensor parallelism
  ``s·b·h·(10 + 24/t + 5·a·s/(h·t))``; with sequence parallelism ``s·b·h·(34 + 5·a·s/h)/t``;
  selective recomputation (or FlashAttention) drops the ``5·a·s/h`` term; full recomputation keeps
  only the layer input, ``2·s·b·h``. ``pytorch``: the bytes each operator of the workload table
  saves (:mod:`mlcost.workload.transformer`), i.e. what an eager implementation keeps.
  With pipeline parallelism and 1F1B the first stage holds ``p`` micro-batches of its ``L/p``
  layers (Narayanan et al. 2021, section 2.2), i.e. the activations of ``L`` layers; that stage
  is the one reported, and the logits (last stage) are then left out.
* **Logits and loss**: the logits upcast to FP32 for the cross-entropy, ``4·b·s·V`` bytes
  (divided by ``t`` under tensor parallelism), often the largest single tensor.
* **Transient peak in backward**: when the backward pass starts, the dense FP32 gradient of the
  loss with respect to the log-probabilities (``nll_loss`` backward) and the one with respect to
  the logits (``log_softmax`` backward) coexist: ``2·4·b·s·V`` bytes.
* **Framework overhead** as explicit inputs (:class:`Overheads`).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import pint
from pydantic import Field

from mlcost.errors import MlcostError
from mlcost.specs import Accelerator, ConvNetSpec, Spec, TransformerSpec
from mlcost.specs._base import BytesOrZero, Model, PositiveInt
from mlcost.units import Q_
from mlcost.workload import TrainingConfig, operators, transformer_operators
from mlcost.workload.config import PRECISION_POLICIES

Number = Any
Profile = Literal["pytorch", "megatron"]

#: Optimizer states per parameter: (name, bytes). Sources: PyTorch ``torch.optim`` docs (the
#: state each optimizer keeps, in the parameter's dtype; FP32 under mixed precision);
#: bitsandbytes 8-bit Adam (Dettmers et al. 2022: two 8-bit states, block-wise quantization
#: statistics neglected); Adafactor (Shazeer & Stern 2018: factored second moment, row and
#: column sums, about 0 bytes per parameter of a matrix; no first moment by default);
#: Lion (Chen et al. 2023: one momentum buffer).
OPTIMIZER_STATES: dict[str, tuple[tuple[str, float], ...]] = {
    "sgd": (),
    "sgd-momentum": (("momentum buffer (fp32)", 4),),
    "rmsprop": (("square average (fp32)", 4),),
    "adam": (("exp_avg (fp32)", 4), ("exp_avg_sq (fp32)", 4)),
    "adamw": (("exp_avg (fp32)", 4), ("exp_avg_sq (fp32)", 4)),
    "adam-8bit": (("exp_avg (int8)", 1), ("exp_avg_sq (int8)", 1)),
    "adafactor": (("factored second moment (rows + columns)", 0),),
    "lion": (("exp_avg (fp32)", 4),),
}


class Parallelism(Model):
    """How a run is split across GPUs (memory side)."""

    data_parallel: PositiveInt = 1
    tensor_parallel: PositiveInt = 1
    pipeline_parallel: PositiveInt = 1
    zero_stage: Literal[0, 1, 2, 3] = 0
    sequence_parallel: bool = False
    cpu_offload: bool = False


class Overheads(Model):
    """Memory that is not model state or activations. Defaults and where they come from:

    * ``cuda_context``: the CUDA context and kernels loaded by PyTorch, not visible to
      ``torch.cuda.memory_allocated``; a few hundred MiB, varying with the driver and the
      libraries loaded (PyTorch "CUDA semantics" notes, memory management). Default 512 MiB is
      an assumption to replace with a measured figure.
    * ``communication_buffers``: DDP's gradient buckets, ``bucket_cap_mb`` = 25 MB by default
      (PyTorch ``DistributedDataParallel`` docs), two in flight; counted when data parallel > 1
      and ZeRO stage < 2.
    * ``fragmentation``: the caching allocator's reserved-but-unallocated share, as a fraction of
      everything else; default 5%, an assumption (PyTorch "CUDA semantics": the allocator rounds
      and caches blocks; ``expandable_segments`` reduces it).
    """

    cuda_context: BytesOrZero = Q_(512, "MiB")
    communication_bucket: BytesOrZero = Q_(25, "MB")
    buckets_in_flight: int = Field(default=2, ge=0)
    fragmentation: float = Field(default=0.05, ge=0.0, lt=1.0)


@dataclass(frozen=True)
class Term:
    """One line of a memory breakdown."""

    name: str
    bytes: pint.Quantity
    formula: str
    source: str


@dataclass(frozen=True)
class MemoryBreakdown:
    """Bytes per GPU, term by term, against an optional GPU's capacity."""

    terms: tuple[Term, ...]
    capacity: pint.Quantity | None = None
    gpu: str | None = None
    description: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> pint.Quantity:
        total = Q_(0, "byte")
        for term in self.terms:
            total = total + term.bytes
        return total.to("GiB")

    def term(self, name: str) -> pint.Quantity:
        for term in self.terms:
            if term.name == name:
                return term.bytes
        raise MlcostError(f"term: got {name!r}, expected one of {[t.name for t in self.terms]}")

    @property
    def headroom(self) -> pint.Quantity:
        """Capacity minus total (negative when it does not fit), in GiB."""
        if self.capacity is None:
            raise MlcostError("headroom: no GPU given, so no capacity to compare with")
        return (self.capacity - self.total).to("GiB")

    def fits(self) -> Any:
        """True where the total is within the GPU's capacity (bytes compared with bytes)."""
        return self.headroom.to("byte").magnitude >= 0

    def why_not(self) -> str:
        """A sentence saying whether it fits, by how much, and the largest terms."""
        if self.capacity is None:
            return "no GPU given"
        headroom = self.headroom
        biggest = sorted(self.terms, key=lambda t: -float(np.max(t.bytes.to("byte").magnitude)))
        top = ", ".join(f"{t.name} {_gib(t.bytes)}" for t in biggest[:3])
        if np.all(self.fits()):
            return (
                f"fits: {_gib(self.total)} of {_gib(self.capacity)} "
                f"({_gib(headroom)} = {headroom.to('GB').magnitude:.2f} GB free)"
            )
        return (
            f"does not fit: needs {_gib(self.total)}, the GPU has {_gib(self.capacity)}; "
            f"short by {_gib(-headroom)}; largest terms: {top}"
        )

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {
                    "term": t.name,
                    "GiB": t.bytes.to("GiB").magnitude,
                    "GB": t.bytes.to("GB").magnitude,
                    "formula": t.formula,
                    "source": t.source,
                }
                for t in self.terms
            ]
        )

    def explain(self) -> str:
        """Each term with its formula, the value and its source."""
        lines = [self.description]
        for t in self.terms:
            lines.append(f"- {t.name}: {_gib(t.bytes)} = {t.formula}  [{t.source}]")
        lines.append(f"= total {_gib(self.total)}")
        if self.capacity is not None:
            lines.append(self.why_not())
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return f"<p>{html.escape(self.why_not())}</p>" + self.to_frame().to_html()

    def plot(self, ax: Any = None) -> Any:
        """A stacked bar of the terms against the GPU's capacity (matplotlib Axes)."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(4, 5))
        bottom = 0.0
        for t in self.terms:
            value = float(t.bytes.to("GiB").magnitude)
            ax.bar([0], [value], bottom=bottom, label=f"{t.name} ({value:.1f} GiB)")
            bottom += value
        if self.capacity is not None:
            ax.axhline(
                float(self.capacity.to("GiB").magnitude),
                color="black",
                linestyle="--",
                label=f"{self.gpu} capacity",
            )
        ax.set_xticks([])
        ax.set_ylabel("GiB per GPU")
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1))
        return ax


def _gib(quantity: Any) -> str:
    magnitude = quantity.to("GiB").magnitude
    if np.ndim(magnitude):
        return f"{np.min(magnitude):.2f}..{np.max(magnitude):.2f} GiB"
    return f"{magnitude:.2f} GiB"


# ----- model states -------------------------------------------------------------------------
def model_state_bytes_per_parameter(precision: str, optimizer: str) -> dict[str, float]:
    """Bytes per parameter of weights, gradients, master weights and optimizer states."""
    policy = PRECISION_POLICIES[precision]
    return {
        "weights": policy.weight if precision != "fp8" else 2.0,  # TE keeps BF16 weights
        "gradients": policy.gradient,
        "master weights": policy.master_weight,
        "optimizer states": sum(b for _, b in OPTIMIZER_STATES[optimizer]),
    }


def zero_model_state_bytes(
    parameters: Number,
    per_parameter: dict[str, float],
    *,
    zero_stage: int,
    data_parallel: Number,
    cpu_offload: bool = False,
) -> dict[str, pint.Quantity]:
    """Model-state bytes per GPU under ZeRO stage 0-3 over ``data_parallel`` ranks.

    Rajbhandari et al. 2020, section 5 and Figure 1: baseline ``(w + g + K)·Psi``; stage 1
    ``(w + g)·Psi + K·Psi/N_d``; stage 2 ``w·Psi + (g + K)·Psi/N_d``; stage 3
    ``(w + g + K)·Psi/N_d``, where K includes the FP32 master weights.
    """
    psi, n_d = parameters, data_parallel
    sharded = {
        "weights": zero_stage >= 3,
        "gradients": zero_stage >= 2,
        "master weights": zero_stage >= 1,
        "optimizer states": zero_stage >= 1,
    }
    result = {}
    for name, nbytes in per_parameter.items():
        if cpu_offload and name in ("master weights", "optimizer states"):
            result[name] = Q_(0 * psi, "byte")
            continue
        divisor = n_d if sharded[name] else 1
        result[name] = Q_(nbytes * psi / divisor, "byte")
    return result


# ----- activations --------------------------------------------------------------------------
def megatron_activation_bytes_per_layer(
    sequence: Number,
    batch: Number,
    hidden: int,
    heads: int,
    *,
    tensor_parallel: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
    flash: bool = False,
) -> pint.Quantity:
    """Korthikanti et al. 2022, Table 2 (16-bit activations, 1-byte dropout masks)."""
    s, b, h, a, t = sequence, batch, hidden, heads, tensor_parallel
    if recompute == "full":
        return Q_(2 * s * b * h, "byte")
    attention_scores = 0 if (recompute == "selective" or flash) else 5 * a * s / h
    if sequence_parallel:
        return Q_(s * b * h * (34 + attention_scores) / t, "byte")
    return Q_(s * b * h * (10 + 24 / t + attention_scores / t), "byte")


MLP_INTERMEDIATES = ("mlp activation", "mlp gate x up")


def _layer_and_head_activations(
    model: TransformerSpec,
    config: TrainingConfig,
    parallel: Parallelism,
    profile: Profile,
    batch: Number,
    sequence: Number,
    mini_sequences: int,
) -> tuple[pint.Quantity, pint.Quantity, str, str]:
    """Activation bytes of all layers on the most loaded pipeline stage, and of the head."""
    t = parallel.tensor_parallel
    layers = model.num_layers
    if profile == "megatron":

        def per_layer(recompute: str) -> pint.Quantity:
            return megatron_activation_bytes_per_layer(
                sequence,
                batch,
                model.hidden_size,
                model.num_attention_heads,
                tensor_parallel=t,
                sequence_parallel=parallel.sequence_parallel,
                recompute=recompute,
                flash=config.attention == "flash",
            )

        # Mini-sequences shrink the MLP's 4h-wide intermediates (16·s·b·h of the 34; Korthikanti
        # section 4.1: fc1 output 8sbh and GeLU output 8sbh) by M.
        mst = Q_(
            16
            * sequence
            * batch
            * model.hidden_size
            * (1 - 1 / mini_sequences)
            / (t if parallel.sequence_parallel else 1),
            "byte",
        )
        if config.recompute == "every-k":
            every = config.recompute_every or 1
            recomputed = layers // every
            kept = layers - recomputed
            total = per_layer("full") * recomputed + (per_layer("none") - mst) * kept
        elif config.recompute == "full":
            total = per_layer("full") * layers
        else:
            total = (per_layer(config.recompute) - mst) * layers
        formula = "L x s·b·h·(34 + 5·a·s/h) with Table 2's parallel/recompute variants"
        source = "Korthikanti et al. 2022, Table 2"
        head = Q_(0 * batch, "byte")
    else:
        table = transformer_operators(
            model, config, micro_batch_size=batch, sequence_length=sequence
        )
        micro = config.gradient_accumulation_steps
        layer_bytes: Number = 0
        head_bytes: Number = 0
        for op in table.operators:
            saved = op.saved_bytes_after_recompute * op.count / micro
            if op.name.startswith(MLP_INTERMEDIATES):
                saved = saved / mini_sequences
            if op.block == "layer":
                layer_bytes = layer_bytes + saved
            elif op.kind not in ("loss", "optimizer"):
                head_bytes = head_bytes + saved
        total = Q_(layer_bytes / t, "byte")
        head = Q_(head_bytes / t, "byte")
        formula = "sum over operators of bytes saved for backward (workload table)"
        source = "mlcost.workload operator table (PyTorch eager / Hugging Face layout)"
    return total, head, formula, source


def memory_breakdown(
    model: Spec,
    config: TrainingConfig | None = None,
    gpu: Accelerator | None = None,
    *,
    parallel: Parallelism | None = None,
    profile: Profile = "pytorch",
    overheads: Overheads | None = None,
    micro_batch_size: Number | None = None,
    sequence_length: Number | None = None,
    mini_sequences: int = 1,
) -> MemoryBreakdown:
    """Per-GPU memory of one training step (see the module docstring for every term).

    ``micro_batch_size`` and ``sequence_length`` may be numpy arrays (one breakdown per value);
    ``mini_sequences`` (Mini-Sequence Transformer, Luo et al. 2024) splits the MLP and LM-head
    intermediates into M chunks, dividing their activation memory by about M.
    """
    config = config or TrainingConfig()
    parallel = parallel or Parallelism()
    overheads = overheads or Overheads()
    batch = config.micro_batch_size if micro_batch_size is None else micro_batch_size
    sequence = config.sequence_length if sequence_length is None else sequence_length
    if not isinstance(model, (TransformerSpec, ConvNetSpec)):
        raise MlcostError(f"model: {model.name!r} is a {model.KIND}, expected a model")
    psi = model.parameter_count / (parallel.tensor_parallel * parallel.pipeline_parallel)
    per_param = model_state_bytes_per_parameter(config.precision, config.optimizer)
    states = zero_model_state_bytes(
        psi,
        per_param,
        zero_stage=parallel.zero_stage,
        data_parallel=parallel.data_parallel,
        cpu_offload=parallel.cpu_offload,
    )
    zero_source = "Rajbhandari et al. 2020 (ZeRO), section 5"
    terms = [
        Term(
            name,
            value,
            f"{per_param[name]:g} B/param x {psi:,.0f} params"
            + (
                f" / {parallel.data_parallel} (ZeRO-{parallel.zero_stage})"
                if parallel.zero_stage
                else ""
            ),
            zero_source,
        )
        for name, value in states.items()
    ]
    if isinstance(model, TransformerSpec):
        layers, head, formula, source = _layer_and_head_activations(
            model, config, parallel, profile, batch, sequence, mini_sequences
        )
        p = parallel.pipeline_parallel
        if p > 1:
            # 1F1B: the first stage holds min(p, m) micro-batches of its L/p layers (Narayanan
            # et al. 2021, section 2.2); the logits live on the last stage, which holds one.
            in_flight = min(p, config.gradient_accumulation_steps)
            layers = layers * in_flight / p
            formula += f" x {in_flight} in flight / {p} stages (first stage, 1F1B)"
        terms.append(Term("activations", layers.to("byte"), formula, source))
        if profile == "pytorch":
            terms.append(
                Term("head activations", head.to("byte"), "final norm and LM-head inputs", source)
            )
        last_stage_only = 0 if parallel.pipeline_parallel > 1 else 1
        logits = Q_(
            4
            * batch
            * sequence
            * model.vocab_size
            / parallel.tensor_parallel
            / mini_sequences
            * last_stage_only,
            "byte",
        )
        terms.append(
            Term(
                "logits and loss (fp32)",
                logits,
                "4 B x b·s·V / t (/ M with MST)",
                "cross-entropy on FP32 logits (HF ForCausalLMLoss upcasts)",
            )
        )
        terms.append(
            Term(
                "transient backward peak",
                2 * logits,
                "2 x 4 B x b·s·V / t: the FP32 gradients w.r.t. the log-probabilities and "
                "w.r.t. the logits coexist",
                "PyTorch nll_loss and log_softmax backward",
            )
        )
    else:
        table = operators(model, config.model_copy(update={"micro_batch_size": int(batch)}))
        terms.append(
            Term(
                "activations",
                table.saved_bytes.to("byte"),
                "sum of bytes saved by each operator",
                "mlcost.workload convnet table",
            )
        )
    communication: pint.Quantity = Q_(0, "byte")
    if parallel.data_parallel > 1 and parallel.zero_stage < 2:
        communication = overheads.communication_bucket * overheads.buckets_in_flight
    terms.append(
        Term(
            "communication buffers",
            communication.to("byte"),
            f"{overheads.buckets_in_flight} x DDP bucket",
            "PyTorch DistributedDataParallel bucket_cap_mb default 25",
        )
    )
    terms.append(
        Term(
            "CUDA context",
            overheads.cuda_context.to("byte"),
            "input",
            "assumption (Overheads docstring)",
        )
    )
    subtotal = Q_(0, "byte")
    for term in terms:
        subtotal = subtotal + term.bytes
    terms.append(
        Term(
            "allocator fragmentation",
            (subtotal * overheads.fragmentation).to("byte"),
            f"{overheads.fragmentation:.0%} of the rest",
            "assumption (Overheads docstring)",
        )
    )
    capacity = None
    if gpu is not None:
        capacity = gpu.memory_visible or gpu.memory_capacity
    return MemoryBreakdown(
        terms=tuple(terms),
        capacity=capacity,
        gpu=gpu.name if gpu else None,
        description=f"{model.name}, b={batch}, s={sequence}, {config.precision}, "
        f"{config.optimizer}, recompute {config.recompute}, {profile} profile",
    )


# ----- solvers ------------------------------------------------------------------------------
def _require_transformer(model: Spec, what: str) -> TransformerSpec:
    if not isinstance(model, TransformerSpec):
        raise MlcostError(
            f"{what}: {model.name!r} is a {model.KIND}; the solvers take transformers"
        )
    return model


def max_micro_batch_size(
    model: Spec,
    config: TrainingConfig,
    gpu: Accelerator,
    *,
    limit: int = 4096,
    **options: Any,
) -> int:
    """The largest micro-batch (1..``limit``) that fits, 0 if none: every candidate is
    evaluated in one vectorized call (memory grows with batch)."""
    _require_transformer(model, "max_micro_batch_size")
    candidates = np.arange(1, limit + 1)
    fits = memory_breakdown(model, config, gpu, micro_batch_size=candidates, **options).fits()
    return int(candidates[fits].max()) if np.any(fits) else 0


def max_sequence_length(
    model: Spec,
    config: TrainingConfig,
    gpu: Accelerator,
    *,
    multiple: int = 128,
    limit: int = 1_048_576,
    **options: Any,
) -> int:
    """The longest sequence (a multiple of ``multiple`` up to ``limit``) that fits, 0 if none.
    Learned position embeddings cap it at ``max_position_embeddings``."""
    spec = _require_transformer(model, "max_sequence_length")
    if spec.position_encoding == "learned":
        limit = min(limit, spec.max_position_embeddings)
    candidates = np.arange(multiple, limit + 1, multiple)
    fits = memory_breakdown(model, config, gpu, sequence_length=candidates, **options).fits()
    return int(candidates[fits].max()) if np.any(fits) else 0


def min_gpus(
    model: Spec,
    config: TrainingConfig,
    gpu: Accelerator,
    *,
    zero_stage: int = 3,
    tensor_parallel: int = 1,
    pipeline_parallel: int = 1,
    limit: int = 65_536,
    profile: Profile = "pytorch",
    overheads: Overheads | None = None,
) -> int:
    """Fewest GPUs (data parallel x tensor x pipeline) that fit, with ZeRO ``zero_stage`` over
    the data-parallel ranks; 0 if none up to ``limit`` data-parallel ranks. All candidate
    data-parallel degrees are evaluated at once."""
    overheads = overheads or Overheads()
    base = memory_breakdown(
        model,
        config,
        gpu,
        profile=profile,
        overheads=overheads,
        parallel=Parallelism(
            tensor_parallel=tensor_parallel, pipeline_parallel=pipeline_parallel, zero_stage=0
        ),
    )
    states = ("weights", "gradients", "master weights", "optimizer states")
    rest = sum(
        float(t.bytes.to("byte").magnitude)
        for t in base.terms
        if t.name not in (*states, "allocator fragmentation", "communication buffers")
    )
    psi = model.parameter_count / (tensor_parallel * pipeline_parallel)  # type: ignore[attr-defined]
    n_d = np.arange(1, limit + 1)
    sharded = zero_model_state_bytes(
        psi,
        model_state_bytes_per_parameter(config.precision, config.optimizer),
        zero_stage=zero_stage,
        data_parallel=n_d,
    )
    total = rest + sum(q.to("byte").magnitude for q in sharded.values())
    if zero_stage < 2:
        comm = (overheads.communication_bucket * overheads.buckets_in_flight).to("byte").magnitude
        total = total + np.where(n_d > 1, comm, 0)
    total = total * (1 + overheads.fragmentation)
    capacity = (gpu.memory_visible or gpu.memory_capacity).to("byte").magnitude
    fits = total <= capacity
    if not np.any(fits):
        return 0
    return int(n_d[fits].min()) * tensor_parallel * pipeline_parallel


def smallest_gpu(
    model: Spec, config: TrainingConfig, gpus: list[Accelerator], **options: Any
) -> Accelerator | None:
    """The catalog GPU with the least memory on which the run fits (``None`` if none)."""
    for candidate in sorted(gpus, key=lambda g: g.memory_capacity.to("byte").magnitude):
        if bool(np.all(memory_breakdown(model, config, candidate, **options).fits())):
            return candidate
    return None
