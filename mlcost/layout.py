"""How a training step runs across GPUs and micro-batches: the one execution strategy.

A :class:`Layout` holds everything that says how the work of one optimizer step is split, and
nothing about the numbers a GPU computes with (precision, attention kernel, optimizer and sequence
length stay in :class:`mlcost.workload.TrainingConfig`):

* parallel degrees: data ``dp``, tensor ``tp``, pipeline ``pp`` (with ``virtual_stages`` model
  chunks per GPU, Megatron's interleaved 1F1B), context ``cp`` and expert ``ep`` (experts split
  over ``ep`` of the data-parallel ranks); ``dp·tp·pp·cp`` GPUs;
* the batch: ``micro_batch_size`` sequences per micro-batch, and either ``global_batch_size``
  (sequences per optimizer step) or ``gradient_accumulation`` (micro-batches per step per
  data-parallel replica), which fix ``m`` micro-batches per step;
* memory strategies: ZeRO stage (Rajbhandari et al. 2020) over the ``dp·cp`` ranks that hold the
  same weights, sequence parallelism (Korthikanti et al. 2022), activation recomputation
  (``none``, ``selective``, ``full``, ``every-k``; under ``selective`` the regions
  ``recompute_modules`` names, Megatron-Core's ``--recompute-modules``) and ``offload`` of the
  optimizer states and master weights to host memory (ZeRO-Offload, Ren et al. 2021);
  ``tp_overlap``: tensor-parallel communication overlapped with the layer's GEMMs (Transformer
  Engine userbuffers, Megatron's ``--tp-comm-overlap``; it needs sequence parallelism);
* ``stage_layers``: transformer layers per pipeline stage, when they are not spread evenly.

**Pipeline stages.** The ``L`` layers are cut into ``pp·v`` model chunks (stage ``i`` holds
chunks ``i, i+pp, ...``). When ``L`` is a multiple of ``pp·v`` every chunk has ``L/(pp·v)``
layers. Otherwise each chunk gets ``ceil(L/(pp·v))`` and the surplus is taken away one layer at a
time from the chunks at the two ends of the pipeline (first, last, second, second-to-last, ...),
because those also run the embedding and the LM head with the loss: this is what Llama 3 did,
126 layers on 16 stages as 7 + 14 x 8 + 7 (Dubey et al. 2024, "The Llama 3 Herd of Models",
section 3.3.2). ``stage_layers`` gives the split explicitly instead. Step-time models cost the
slowest stage; memory models report the most loaded one.
"""

import math
from functools import cached_property
from typing import Literal

from pydantic import Field, model_validator

from mlcost.errors import MlcostError
from mlcost.specs.base import Model, PositiveInt

Recompute = Literal["none", "selective", "full", "every-k"]
RECOMPUTE_POLICIES: tuple[str, ...] = ("none", "selective", "full", "every-k")
ZeroStage = Literal[0, 1, 2, 3]

#: The regions selective recomputation can replay, as Megatron-Core names them
#: (``TransformerConfig.recompute_modules``, NVIDIA/Megatron-LM at commit d98e8a64,
#: megatron/core/transformer/transformer_config.py lines 560-585 and 1940-1972):
#: ``core_attn`` the attention core (the default), ``layernorm`` the input and pre-MLP norms,
#: ``mla_up_proj`` multi-head latent attention's up projections and rotary, ``moe_act`` the
#: routed experts' activation, ``mlp`` the dense MLP, ``moe`` the whole MoE layer,
#: ``shared_experts`` the shared experts. ``moe_act``, ``layernorm`` and ``mla_up_proj`` discard
#: their output (``CheckpointWithoutOutput``), the others checkpoint normally. What each keeps and
#: replays: :func:`mlcost.workload.builder.recomputed_region` and the block builders
#: (:mod:`mlcost.workload.layer`, :mod:`mlcost.workload.experts`).
RECOMPUTE_MODULES: tuple[str, ...] = (
    "core_attn",
    "moe_act",
    "layernorm",
    "mla_up_proj",
    "mlp",
    "moe",
    "shared_experts",
)
DEFAULT_RECOMPUTE_MODULES: tuple[str, ...] = ("core_attn",)
#: The modules that need a mixture-of-experts model, and the one that needs latent attention.
MOE_MODULES: tuple[str, ...] = ("moe_act", "moe", "shared_experts")


def chunk_layer_counts(layers: int, chunks: int) -> tuple[int, ...]:
    """Layers of each of ``chunks`` pipeline model chunks, in pipeline order (module docstring:
    as even as possible, the surplus taken from the chunks at the two ends first)."""
    if chunks < 1 or layers < chunks:
        raise MlcostError(
            f"pp: {chunks} pipeline chunks (pp x virtual_stages) for {layers} layers; expected "
            "at most one chunk per layer"
        )
    if chunks == 1:  # no pipeline: every layer in one chunk
        return (layers,)
    per_chunk = math.ceil(layers / chunks)
    counts = [per_chunk] * chunks
    order: list[int] = []
    low, high = 0, chunks - 1
    while low <= high:
        order.append(low)
        if high != low:
            order.append(high)
        low, high = low + 1, high - 1
    for index in order[: per_chunk * chunks - layers]:
        counts[index] -= 1
    return tuple(counts)


class Layout(Model):
    """The execution strategy of one training run (see the module docstring)."""

    dp: PositiveInt = 1
    tp: PositiveInt = 1
    pp: PositiveInt = 1
    cp: PositiveInt = 1
    ep: PositiveInt = 1
    virtual_stages: PositiveInt = 1
    stage_layers: tuple[PositiveInt, ...] | None = None
    micro_batch_size: PositiveInt = 1
    global_batch_size: PositiveInt | None = None
    gradient_accumulation: PositiveInt | None = None
    zero_stage: ZeroStage = 0
    sequence_parallel: bool = False
    recompute: Recompute = "none"
    recompute_every: PositiveInt | None = Field(
        default=None, description="k of recompute 'every-k': one layer in k is recomputed"
    )
    recompute_modules: tuple[str, ...] = Field(
        default=DEFAULT_RECOMPUTE_MODULES,
        description="regions recomputed under recompute 'selective' (RECOMPUTE_MODULES)",
    )
    offload: bool = False
    tp_overlap: bool = False
    ep_overlap: bool = False

    @model_validator(mode="after")
    def _consistent(self) -> "Layout":
        per_step = self.dp * self.micro_batch_size
        both = self.global_batch_size is not None and self.gradient_accumulation is not None
        if both and self.global_batch_size != per_step * (self.gradient_accumulation or 1):
            raise ValueError(
                f"global_batch_size: got {self.global_batch_size}, but dp x micro_batch_size"
                f" x gradient_accumulation = {per_step * (self.gradient_accumulation or 1)}; "
                "give one of the two"
            )
        if self.global_batch_size is not None and self.global_batch_size % per_step:
            raise ValueError(
                f"global_batch_size: got {self.global_batch_size}, expected a multiple of "
                f"dp x micro_batch_size = {self.dp} x {self.micro_batch_size} = {per_step}"
            )
        if self.virtual_stages > 1 and self.pp == 1:
            raise ValueError(
                f"virtual_stages: got {self.virtual_stages}, expected 1 without pipeline "
                "parallelism (pp = 1)"
            )
        if self.dp % self.ep:
            raise ValueError(
                f"ep: got {self.ep}, expected a divisor of dp = {self.dp} (experts are split "
                "over data-parallel ranks)"
            )
        if self.stage_layers is not None:
            if len(self.stage_layers) != self.pp:
                raise ValueError(
                    f"stage_layers: got {len(self.stage_layers)} stages, expected pp = {self.pp}"
                )
            if self.virtual_stages > 1:
                raise ValueError("stage_layers: give it only without virtual stages")
        if self.tp_overlap and (self.tp == 1 or not self.sequence_parallel):
            raise ValueError(
                "tp_overlap: overlaps tensor-parallel communication with the layer's GEMMs; it "
                "needs tp > 1 and sequence_parallel (as Megatron's --tp-comm-overlap does)"
            )
        if self.ep_overlap and self.ep == 1:
            raise ValueError(
                "ep_overlap: hides the expert-parallel all-to-all behind another micro-batch's "
                "compute; it needs ep > 1 (e.g. ep=8 on a mixture-of-experts model)"
            )
        unknown = [m for m in self.recompute_modules if m not in RECOMPUTE_MODULES]
        if unknown:
            raise ValueError(
                f"recompute_modules: got {unknown[0]!r}, expected some of "
                f"{', '.join(RECOMPUTE_MODULES)} (Megatron-Core's names)"
            )
        if len(set(self.recompute_modules)) != len(self.recompute_modules):
            raise ValueError(
                f"recompute_modules: got {list(self.recompute_modules)}, expected each at most once"
            )
        custom = self.recompute_modules != DEFAULT_RECOMPUTE_MODULES
        if custom and self.recompute != "selective":
            raise ValueError(
                f"recompute_modules: got {','.join(self.recompute_modules) or 'none'} with "
                f"recompute {self.recompute!r}, expected recompute 'selective' (the modules are "
                "what selective recomputation replays; set recompute to selective)"
            )
        if (self.recompute == "every-k") != (self.recompute_every is not None):
            raise ValueError(
                "recompute_every: required with recompute 'every-k' (e.g. 2), and only then"
            )
        return self

    # ----- sizes ------------------------------------------------------------------------
    @property
    def gpus(self) -> int:
        """``dp x tp x pp x cp`` (expert parallelism reuses the data-parallel ranks)."""
        return self.dp * self.tp * self.pp * self.cp

    @property
    def model_parallel(self) -> int:
        """GPUs of one model replica: ``tp x pp x cp``."""
        return self.tp * self.pp * self.cp

    @property
    def micro_batches(self) -> int:
        """Micro-batches per optimizer step per data-parallel replica (``m``)."""
        if self.gradient_accumulation is not None:
            return self.gradient_accumulation
        if self.global_batch_size is not None:
            return self.global_batch_size // (self.dp * self.micro_batch_size)
        return 1

    @property
    def global_batch(self) -> int:
        """Sequences per optimizer step: ``dp x micro_batch x m``."""
        return self.dp * self.micro_batch_size * self.micro_batches

    @property
    def sequences_per_replica(self) -> int:
        """Sequences one data-parallel replica processes per step: ``micro_batch x m``."""
        return self.micro_batch_size * self.micro_batches

    def tokens_per_step(self, sequence_length: int) -> int:
        """Tokens per optimizer step over all replicas: ``global batch x sequence``."""
        return self.global_batch * sequence_length

    def one_micro_batch(self) -> "Layout":
        """This layout with one micro-batch per step: its operator table is one micro-batch's
        operators and the optimizer update (what a micro-batch's time and saved bytes are read
        from). Derived once per layout (a layout is immutable; a copy starts without it)."""
        return self._one_micro_batch

    @cached_property
    def _one_micro_batch(self) -> "Layout":
        return self.model_copy(update={"gradient_accumulation": 1, "global_batch_size": None})

    # ----- recomputation --------------------------------------------------------------
    def recompute_fraction(self, layers: int) -> float:
        """Share of layers whose whole forward (and its tensor-parallel traffic) is repeated in
        backward: 1 for ``full``, ``floor(L/k)/L`` for ``every-k``, 0 otherwise (``selective``
        repeats only the attention-score kernels, no collective; Korthikanti et al. 2022)."""
        if self.recompute == "full":
            return 1.0
        if self.recompute == "every-k":
            return (layers // (self.recompute_every or 1)) / layers
        return 0.0

    @property
    def selective_modules(self) -> frozenset[str]:
        """The regions recomputed on their own: ``recompute_modules`` under ``selective``,
        none otherwise (``full`` and ``every-k`` replay whole layers)."""
        if self.recompute != "selective":
            return frozenset()
        return frozenset(self.recompute_modules)

    def modules_text(self) -> str:
        """`` (layernorm,moe_act)`` where selective recomputation replays other regions than
        the attention core alone (``nothing`` for none), else an empty string."""
        if self.recompute != "selective" or self.recompute_modules == DEFAULT_RECOMPUTE_MODULES:
            return ""
        return f" ({','.join(self.recompute_modules) or 'nothing'})"

    def check_recompute_modules(
        self, model: str, *, latent_attention: bool, experts: int, shared_experts: bool
    ) -> None:
        """Raise :class:`MlcostError` where ``recompute_modules`` names a region ``model`` does
        not have (as Megatron-Core refuses ``mla_up_proj`` without latent attention)."""
        for module in self.selective_modules:
            if module == "mla_up_proj" and not latent_attention:
                missing = "multi-head latent attention (DeepSeek-V2/V3)"
            elif module in MOE_MODULES and not experts:
                missing = "mixture-of-experts layers"
            elif module == "shared_experts" and not shared_experts:
                missing = "shared experts"
            else:
                continue
            raise MlcostError(
                f"recompute_modules: got {module!r} for {model}, which has no {missing}; "
                "expected core_attn, layernorm or mlp for it"
            )

    # ----- pipeline stages ------------------------------------------------------------
    def chunk_layers(self, layers: int) -> tuple[int, ...]:
        """Layers of each of the ``pp·v`` model chunks, in pipeline order."""
        if self.stage_layers is not None:
            if sum(self.stage_layers) != layers:
                raise MlcostError(
                    f"stage_layers: {list(self.stage_layers)} add up to "
                    f"{sum(self.stage_layers)}, the model has {layers} layers"
                )
            return self.stage_layers
        return chunk_layer_counts(layers, self.pp * self.virtual_stages)

    def stage_layer_counts(self, layers: int) -> tuple[int, ...]:
        """Layers held by each pipeline stage (GPU): the sum of its ``v`` chunks."""
        chunks = self.chunk_layers(layers)
        if self.pp == 1:  # one stage holds every chunk
            return (sum(chunks),)
        return tuple(sum(chunks[stage :: self.pp]) for stage in range(self.pp))

    # ----- checks and text ------------------------------------------------------------
    def check_model(
        self, layers: int, heads: int, sequence: int | None = None, *, experts: int | None = None
    ) -> None:
        """Raise :class:`MlcostError` where a model of ``layers`` layers and ``heads`` attention
        heads (and a ``sequence`` of tokens, ``experts`` routed experts per MoE layer: 0 for a
        dense model, None where not known) cannot be split this way."""
        if experts is not None and self.ep > 1 and (experts == 0 or experts % self.ep):
            expected = (
                "1: the model is dense (no experts to split); leave --ep out"
                if experts == 0
                else f"a divisor of the {experts} experts per MoE layer"
            )
            raise MlcostError(f"ep: got {self.ep}, expected {expected}")
        self.chunk_layers(layers)
        if heads % self.tp:
            raise MlcostError(
                f"tp: got {self.tp}, expected a divisor of the {heads} attention heads"
            )
        if sequence is not None and sequence % self.cp:
            raise MlcostError(
                f"cp: got {self.cp}, expected a divisor of the sequence length {sequence}"
            )

    def describe(self) -> str:
        """``dp=8 tp=2 pp=2 mb=2 m=4 ZeRO-1 SP recompute full`` (written once per layout: every
        plan's heading quotes it; a layout is immutable, a copy starts without it)."""
        return self._description

    @cached_property
    def _description(self) -> str:
        parts = [f"dp={self.dp}", f"tp={self.tp}", f"pp={self.pp}"]
        if self.virtual_stages > 1:
            parts.append(f"v={self.virtual_stages}")
        if self.stage_layers is not None:
            parts.append("stages=" + "/".join(str(n) for n in self.stage_layers))
        if self.cp > 1:
            parts.append(f"cp={self.cp}")
        if self.ep > 1:
            parts.append(f"ep={self.ep}")
        parts.append(f"mb={self.micro_batch_size}")
        parts.append(f"m={self.micro_batches}")
        if self.zero_stage:
            parts.append(f"ZeRO-{self.zero_stage}")
        if self.sequence_parallel:
            parts.append("SP")
        if self.tp_overlap:
            parts.append("TP-overlap")
        if self.ep_overlap:
            parts.append("EP-overlap")
        if self.recompute != "none":
            every = f" every {self.recompute_every}" if self.recompute == "every-k" else ""
            modules = self.modules_text()
            parts.append(f"recompute {self.recompute}{every}{modules}")
        if self.offload:
            parts.append("offload")
        return " ".join(parts)


__all__ = [
    "DEFAULT_RECOMPUTE_MODULES",
    "MOE_MODULES",
    "RECOMPUTE_MODULES",
    "RECOMPUTE_POLICIES",
    "Layout",
    "Recompute",
    "ZeroStage",
    "chunk_layer_counts",
]
