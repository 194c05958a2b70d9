"""Fine-tuning: which weights train, how the frozen ones are stored, and the exact counts.

A :class:`FineTuning` (a field of :class:`mlcost.workload.TrainingConfig`) says how a step of
fine-tuning differs from pre-training:

* ``full``: every weight trains, except the parts named in ``frozen`` (``embeddings``,
  ``lm_head``, ``norms``) and the first ``frozen_layers`` transformer layers;
* ``lora`` (Hu et al. 2021, "LoRA: Low-Rank Adaptation of Large Language Models", section 4.1):
  the base model is frozen; each targeted linear ``W`` (``d_in x d_out``) gets ``A`` (``r x
  d_in``) and ``B`` (``d_out x r``) and computes ``W·x + (alpha/r)·B·A·dropout(x)``, so it
  trains ``r·(d_in + d_out)`` parameters per targeted linear per layer (Hugging Face ``peft``
  ``LoraLayer``); ``bias`` = ``none`` | ``all`` | ``lora_only`` trains no bias, every bias, or
  the biases of the targeted linears (peft ``LoraConfig.bias``);
* ``qlora`` (Dettmers et al. 2023, "QLoRA: Efficient Finetuning of Quantized LLMs", arXiv
  2305.14314, section 3): LoRA on a base whose transformer-layer linears are stored as 4-bit
  NormalFloat (NF4) in blocks of ``quantization_block`` weights, each block with an absmax
  constant that double quantization stores as an 8-bit float, itself scaled by one FP32 constant
  per ``double_quantization_block`` blocks; computation in BF16 (each weight is dequantized for
  each use, forward and backward); paged optimizer states (``paged_optimizer``, on by default
  with QLoRA: the states may be evicted to host memory, so the GPU need not hold them).
  Embeddings, norms and the LM head stay
  in 16 bits (bitsandbytes replaces only ``nn.Linear`` layers and keeps the output layer, as
  Hugging Face ``transformers``' bitsandbytes integration does).

Target modules use ``peft``'s names: ``q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj,
down_proj`` (Llama, Mistral, Qwen2, Gemma 2), ``c_attn, c_proj, c_fc`` (GPT-2, whose ``c_proj``
names both the attention output and the MLP down projection), or ``all-linear`` (every linear of
the layers, not the LM head: peft's ``INCLUDE_LINEAR_LAYERS_SHORTHAND``). Left empty, peft's
default for the family: ``q_proj, v_proj`` or GPT-2's ``c_attn`` (peft's
``TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING``).

Every default constant is a field with its source in :data:`FINETUNING_SOURCES`. Not modelled:
vision towers (no multimodal model in the catalog), adapters other than LoRA (DoRA, IA3), LoRA on
encoders and on the embedding or LM head (peft's ``modules_to_save``).
"""

from functools import cached_property
from typing import Literal

from pydantic import Field, model_validator

from mlcost.errors import MlcostError
from mlcost.records import Record
from mlcost.specs.base import Model, PositiveInt
from mlcost.specs.models import TransformerSpec

Method = Literal["full", "lora", "qlora"]
FrozenPart = Literal["embeddings", "lm_head", "norms"]
METHODS: tuple[str, ...] = ("full", "lora", "qlora")
ALL_LINEAR = "all-linear"
LLAMA_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
GPT2_MODULES = ("c_attn", "c_proj", "c_fc")
#: The linears of a mixture-of-experts feed-forward block as peft names them on transformers 5:
#: the router ``gate``, the routed experts' fused ``gate_up_proj`` and ``down_proj`` (3-D
#: parameters, targeted through ``target_parameters``), the shared experts' projections.
MOE_MODULES = ("gate", "gate_up_proj", "shared_expert_gate")
#: Multi-head latent attention's linears as Hugging Face's DeepSeek-V2/V3 modelling code names
#: them (``DeepseekV3Attention``): the query's ``q_proj`` (full rank) or ``q_a_proj`` /
#: ``q_b_proj`` (down, up), the KV down projection ``kv_a_proj_with_mqa``, its up projection
#: ``kv_b_proj``, and ``o_proj``. peft names no default for these models; mlcost's default is
#: the query's last projection and ``kv_b_proj`` (the analogues of ``q_proj, v_proj``).
#: An MoE layer's routers: narrower (``h -> E``, ``h -> 1``) than a typical rank.
ROUTER_MODULES = ("gate", "shared_expert_gate")
LATENT_MODULES = ("q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj")


class FineTuning(Model):
    """How a fine-tuning step trains (module docstring); the default is full training."""

    method: Method = "full"
    rank: PositiveInt = 8
    alpha: float = Field(default=8.0, gt=0)
    dropout: float = Field(default=0.0, ge=0.0, lt=1.0)
    target_modules: tuple[str, ...] = ()
    bias: Literal["none", "all", "lora_only"] = "none"
    frozen: tuple[FrozenPart, ...] = ()
    frozen_layers: int = Field(default=0, ge=0)
    quantization_block: PositiveInt = 64
    quantization_bits: PositiveInt = 4
    double_quantization: bool = True
    double_quantization_block: PositiveInt = 256
    double_quantization_bits: PositiveInt = 8
    constant_bits: PositiveInt = 32
    paged_optimizer: bool | None = None

    @model_validator(mode="after")
    def _consistent(self) -> "FineTuning":
        adapters = self.method != "full"
        if not adapters and (self.target_modules or self.bias != "none"):
            raise ValueError(
                "target_modules: LoRA options given with method 'full'; use method lora or qlora"
            )
        if adapters and (self.frozen or self.frozen_layers):
            raise ValueError(
                "frozen: LoRA and QLoRA freeze the whole base model already; frozen parts are for "
                "method 'full'"
            )
        known = (*LLAMA_MODULES, *GPT2_MODULES, *MOE_MODULES, *LATENT_MODULES, ALL_LINEAR)
        for name in self.target_modules:
            if name not in known:
                raise ValueError(
                    f"target_modules: got {name!r}, expected peft module names ({', '.join(known)})"
                )
        return self

    @cached_property
    def is_default(self) -> bool:
        """Whether this is ``FineTuning()``, full training with every default (what the step,
        memory and plan builders test before counting or describing fine-tuning; compared once
        per instance instead of validating a new default on every test)."""
        return self == FineTuning()

    @property
    def adapters(self) -> bool:
        """LoRA adapters on a frozen base (``lora`` and ``qlora``)."""
        return self.method != "full"

    @property
    def quantized(self) -> bool:
        return self.method == "qlora"

    @property
    def paged(self) -> bool:
        """Optimizer states in paged (unified) memory: the QLoRA recipe's default."""
        return self.quantized if self.paged_optimizer is None else self.paged_optimizer

    @property
    def scaling(self) -> float:
        """The adapter's output scale ``alpha / r`` (Hu et al. 2021, section 4.1)."""
        return self.alpha / self.rank

    def method_name(self) -> str:
        """The method and its rank: ``LoRA r=16``, ``QLoRA (NF4) r=16`` or ``full``."""
        if not self.adapters:
            return "full"
        return f"{'QLoRA (NF4)' if self.quantized else 'LoRA'} r={self.rank}"

    def describe(self) -> str:
        """A short text: ``LoRA r=16 alpha=16 on q_proj,v_proj`` or ``full (frozen:
        embeddings)``."""
        if self.adapters:
            targets = ",".join(self.target_modules) or "the default targets"
            return f"{self.method_name()} alpha={self.alpha:g} on {targets}"
        parts = [*self.frozen] + (
            [f"first {self.frozen_layers} layers"] if self.frozen_layers else []
        )
        return "full" + (f" (frozen: {', '.join(parts)})" if parts else "")


#: Where every default of :class:`FineTuning` comes from.
FINETUNING_SOURCES: dict[str, str] = {
    "rank": "peft LoraConfig default r=8",
    "alpha": "peft LoraConfig default lora_alpha=8",
    "dropout": "peft LoraConfig default lora_dropout=0.0",
    "target_modules": (
        "peft TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING: llama/mistral/qwen2/gemma2 "
        "q_proj, v_proj; gpt2 c_attn"
    ),
    "quantization_block": (
        "Dettmers et al. 2023 (QLoRA), section 3 'Double Quantization': block size 64 for W; "
        "bitsandbytes quantize_4bit blocksize=64 default"
    ),
    "quantization_bits": "Dettmers et al. 2023, section 3: 4-bit NormalFloat (NF4)",
    "double_quantization": "Dettmers et al. 2023, section 3: double quantization in the recipe",
    "double_quantization_block": (
        "Dettmers et al. 2023, section 3: 8-bit floats with a block size of 256 for the second "
        "quantization (bitsandbytes compress_statistics nested blocksize 256)"
    ),
    "double_quantization_bits": "Dettmers et al. 2023, section 3: c2 quantized to 8-bit floats",
    "constant_bits": (
        "Dettmers et al. 2023, section 3: 32-bit constants (absmax c2 without double "
        "quantization, c1 with it): 32/64 = 0.5 bits per parameter"
    ),
    "paged_optimizer": (
        "Dettmers et al. 2023, section 3 'Paged Optimizers': NVIDIA unified memory pages the "
        "optimizer states to CPU RAM when the GPU runs out (on by default with qlora); Figure 6: "
        "'paged optimizers provide enough memory to make these models fit'. Paged states are "
        "counted in host memory (what the GPU must hold at least); the step then pays the paging"
    ),
}


def quantized_bits_per_parameter(tuning: FineTuning) -> float:
    """Bits per weight of a block-wise quantized weight with its constants (Dettmers et al.
    2023, section 3): without double quantization ``q + c/B`` (4 + 32/64 = 4.5); with it
    ``q + k2/B + c/(B·B2)`` (4 + 8/64 + 32/(64·256) = 4.127: the paper's 0.127 bits of
    overhead against 0.5)."""
    q, block, constant = tuning.quantization_bits, tuning.quantization_block, tuning.constant_bits
    if not tuning.double_quantization:
        return q + constant / block
    second = tuning.double_quantization_block
    return q + tuning.double_quantization_bits / block + constant / (block * second)


# ----- the linear modules of a layer -----------------------------------------------------------
class LinearModule(Record, frozen=True):
    """One linear of a transformer layer as ``peft`` names it: its input and output widths,
    whether it has a bias, and the GEMM rows of the operator table it computes. ``copies``: the
    experts that each hold one (1 for a dense linear); ``rank_multiple``: the rank of its adapter
    in units of ``r`` (2 for an expert's fused gate and up projection: peft gives a fused
    parameter the rank of the projections fused, ``r x 2``, ``_convert_peft_config_moe``)."""

    name: str
    d_in: int
    d_out: int
    bias: bool
    gemms: tuple[str, ...]
    copies: int = 1
    rank_multiple: int = 1

    def lora_parameters(self, rank: int) -> int:
        """``c·r'·(d_in + d_out)`` with ``r' = r x rank_multiple``: A is ``r' x d_in``, B is
        ``d_out x r'`` (no adapter biases), for each of the ``c`` copies (peft's ``ParamWrapper``
        on a 3-D expert parameter stacks one adapter per expert: A ``E·r' x d_in``, B ``d_out x
        E·r'``)."""
        return self.copies * rank * self.rank_multiple * (self.d_in + self.d_out)


def layer_linears(model: TransformerSpec) -> tuple[LinearModule, ...]:
    """The linears of one layer of a decoder, in execution order, with peft's names."""
    if model.architecture != "decoder":
        raise MlcostError(
            f"finetune: LoRA is modelled for decoder language models; {model.name} is an "
            f"{model.architecture} (use method full)"
        )
    h, f, d = model.hidden_size, model.ffn_hidden_size, model.head_size
    q, kv = model.num_attention_heads * d, model.kv_heads * d
    qkv = ("q projection", "k projection", "v projection")
    down = ("mlp down projection",)
    mlp: tuple[LinearModule, ...] = (
        *((LinearModule("gate_proj", h, f, model.mlp_bias, ("mlp gate projection",)),)
          if model.gated_mlp else ()),
        LinearModule("up_proj", h, f, model.mlp_bias, ("mlp up projection",)),
        LinearModule("down_proj", f, h, model.mlp_bias, down),
    )  # fmt: skip
    if model.latent_attention is not None:
        return (*latent_attention_linears(model), *mlp)
    if model.fused_qkv:
        return (
            LinearModule("c_attn", h, q + 2 * kv, model.qkv_bias, qkv),
            LinearModule("c_proj", q, h, model.attn_out_bias, ("output projection",)),
            LinearModule("c_fc", h, f, model.mlp_bias, ("mlp up projection",)),
            LinearModule("c_proj", f, h, model.mlp_bias, down),
        )
    attention = (
        LinearModule("q_proj", h, q, model.qkv_bias, qkv[:1]),
        LinearModule("k_proj", h, kv, model.qkv_bias, qkv[1:2]),
        LinearModule("v_proj", h, kv, model.qkv_bias, qkv[2:]),
        LinearModule("o_proj", q, h, model.attn_out_bias, ("output projection",)),
    )
    return (*attention, *mlp)


def latent_attention_linears(model: TransformerSpec) -> tuple[LinearModule, ...]:
    """Multi-head latent attention's linears (:data:`LATENT_MODULES`), with the widths of
    :meth:`mlcost.specs.models.LatentAttention.parameters` and the GEMM rows of
    :func:`mlcost.workload.layer.latent_attention_projection_ops`."""
    mla = model.latent_attention
    if mla is None:
        return ()
    h, n, bias = model.hidden_size, model.num_attention_heads, model.qkv_bias
    query_width = n * mla.qk_head_dim
    if mla.q_lora_rank is None:
        query: tuple[LinearModule, ...] = (
            LinearModule("q_proj", h, query_width, False, ("q projection",)),
        )
    else:
        r_q = mla.q_lora_rank
        query = (
            LinearModule("q_a_proj", h, r_q, bias, ("q down projection",)),
            LinearModule("q_b_proj", r_q, query_width, False, ("q up projection",)),
        )
    r_kv = mla.kv_lora_rank
    return (
        *query,
        LinearModule(
            "kv_a_proj_with_mqa", h, r_kv + mla.qk_rope_head_dim, bias, ("kv down projection",)
        ),
        LinearModule(
            "kv_b_proj", r_kv, n * (mla.qk_nope_head_dim + mla.v_head_dim), False,
            ("kv up projection",),
        ),
        LinearModule("o_proj", n * mla.v_head_dim, h, model.attn_out_bias, ("output projection",)),
    )  # fmt: skip


def expert_block_linears(model: TransformerSpec) -> tuple[LinearModule, ...]:
    """The linears of a mixture-of-experts layer (attention, then the feed-forward block) with
    peft's names on transformers 5: the router ``gate`` (``h -> E``); the ``E`` routed experts'
    ``experts.gate_up_proj`` (``h -> 2·f_e``, one fused parameter, adapter rank ``2r``) and
    ``experts.down_proj`` (``f_e -> h``), or ``experts.up_proj`` without a gate; the shared
    experts' ``shared_expert.gate_proj``, ``up_proj``, ``down_proj`` (``h -> f_s``) and
    Qwen2-MoE's ``shared_expert_gate`` (``h -> 1``). Routed experts have no GEMM rows of their
    own here (their adapters are counted, not timed). Empty for a dense model."""
    moe = model.moe
    if moe is None:
        return ()
    h, f, e = model.hidden_size, moe.expert_ffn_size, moe.num_experts
    attention = tuple(m for m in layer_linears(model) if not m.gemms[0].startswith("mlp"))
    router = LinearModule("gate", h, e, moe.router_bias, ())
    if model.gated_mlp:
        routed: tuple[LinearModule, ...] = (
            LinearModule("experts.gate_up_proj", h, 2 * f, False, (), e, 2),
        )
    else:
        routed = (LinearModule("experts.up_proj", h, f, False, (), e),)
    routed += (LinearModule("experts.down_proj", f, h, False, (), e),)
    shared: tuple[LinearModule, ...] = ()
    fs = moe.shared_ffn_size
    if fs:
        gate = (LinearModule("shared_expert.gate_proj", h, fs, False, ()),)
        shared = (
            *(gate if model.gated_mlp else ()),
            LinearModule("shared_expert.up_proj", h, fs, False, ()),
            LinearModule("shared_expert.down_proj", fs, h, False, ()),
            *((LinearModule("shared_expert_gate", h, 1, False, ()),) if moe.shared_expert_gate
              else ()),
        )  # fmt: skip
    return (*attention, router, *routed, *shared)


def _chosen(
    model: TransformerSpec, linears: tuple[LinearModule, ...], names: tuple[str, ...]
) -> tuple[LinearModule, ...]:
    """The linears whose name, or its last dotted part, is one of ``names`` (peft matches a
    target name against the end of a module's name), all of them for ``all-linear``."""
    if ALL_LINEAR in names:
        return linears
    return tuple(m for m in linears if m.name in names or m.name.rsplit(".", 1)[-1] in names)


def default_targets(model: TransformerSpec) -> tuple[str, ...]:
    """The target modules when none are given: peft's default for the family (module
    docstring), and for latent attention mlcost's (:data:`LATENT_MODULES`)."""
    mla = model.latent_attention
    if mla is not None:
        return ("q_proj" if mla.q_lora_rank is None else "q_b_proj", "kv_b_proj")
    return ("c_attn",) if model.fused_qkv else ("q_proj", "v_proj")


def _target_names(model: TransformerSpec, tuning: FineTuning) -> tuple[str, ...]:
    names = tuning.target_modules or default_targets(model)
    if ALL_LINEAR in names:
        return names
    everything = layer_linears(model) + expert_block_linears(model)
    known = {m.name for m in everything} | {m.name.rsplit(".", 1)[-1] for m in everything}
    missing = [name for name in names if name not in known]
    if missing:
        raise MlcostError(
            f"target_modules: {', '.join(missing)} not in {model.name}'s layers; expected some "
            f"of {', '.join(sorted(known))} or all-linear"
        )
    return names


def targeted_linears(model: TransformerSpec, tuning: FineTuning) -> tuple[LinearModule, ...]:
    """The linears of a dense layer that get adapters (none for full fine-tuning); an MoE
    layer's are :func:`targeted_expert_linears`."""
    if not tuning.adapters:
        return ()
    return _chosen(model, layer_linears(model), _target_names(model, tuning))


def targeted_expert_linears(model: TransformerSpec, tuning: FineTuning) -> tuple[LinearModule, ...]:
    """The linears of a mixture-of-experts layer that get adapters (:func:`expert_block_linears`;
    none for a dense model or full fine-tuning)."""
    if not tuning.adapters:
        return ()
    return _chosen(model, expert_block_linears(model), _target_names(model, tuning))


# ----- exact parameter counts ------------------------------------------------------------------
def adapter_parameters(model: TransformerSpec, tuning: FineTuning) -> int:
    """LoRA parameters: over the layers, the sum over targeted linears of ``r·(d_in + d_out)``
    per copy (peft): the dense layers' linears (:func:`targeted_linears`) and the MoE layers'
    (:func:`targeted_expert_linears`: attention, router, every routed and shared expert)."""
    rank = tuning.rank
    dense = sum(m.lora_parameters(rank) for m in targeted_linears(model, tuning))
    moe = sum(m.lora_parameters(rank) for m in targeted_expert_linears(model, tuning))
    return dense * model.dense_mlp_layers + moe * model.moe_layers


def _bias_parameters(model: TransformerSpec, linears: tuple[LinearModule, ...]) -> int:
    return model.num_layers * sum(m.d_out for m in linears if m.bias)


def _all_biases(model: TransformerSpec) -> int:
    """Every bias of the model: the layers' linears, LayerNorm biases and the LM head's."""
    norm = model.hidden_size if model.has_norm_bias else 0
    norms = norm * (model.norms_per_layer * model.num_layers + (1 if model.final_norm else 0))
    head = model.vocab_size if model.lm_head and model.lm_head_bias else 0
    return _bias_parameters(model, layer_linears(model)) + norms + head


def frozen_parts(model: TransformerSpec, tuning: FineTuning) -> set[str]:
    """The parts frozen as a whole: all of them under LoRA; under full fine-tuning the named
    ones, where a tied LM head and token embedding are one tensor: freezing the embeddings
    freezes the head, and freezing the head freezes the token embedding (not the positions)."""
    if tuning.adapters:
        return {"embeddings", "lm_head", "norms"}
    parts: set[str] = set(tuning.frozen)
    if model.tie_word_embeddings and "embeddings" in parts:
        parts.add("lm_head")
    return parts


def frozen_parameters(model: TransformerSpec, tuning: FineTuning) -> int:
    """Base-model parameters that do not train (all of them under LoRA, less the trained
    biases; under full fine-tuning the frozen parts and layers)."""
    breakdown = model.parameter_breakdown()
    total = model.parameter_count
    if tuning.adapters:
        if tuning.bias == "all":
            return total - _all_biases(model)
        if tuning.bias == "lora_only":
            return total - _bias_parameters(model, targeted_linears(model, tuning))
        return total
    frozen, parts = 0, frozen_parts(model, tuning)
    if "embeddings" in parts:
        frozen += breakdown["embeddings"]
    if "lm_head" in parts:
        frozen += breakdown["head"]
        if model.tie_word_embeddings and "embeddings" not in parts:
            frozen += model.vocab_size * model.hidden_size  # the tied token embedding
    per_layer = (breakdown["attention"] + breakdown["mlp"]) // model.num_layers
    norm = model.hidden_size * (2 if model.has_norm_bias else 1)
    norms_per_layer = model.norms_per_layer * norm
    if tuning.frozen_layers > model.num_layers:
        raise MlcostError(
            f"frozen_layers: got {tuning.frozen_layers}, expected at most {model.num_layers}, "
            f"the layers of {model.name}"
        )
    frozen += tuning.frozen_layers * (per_layer + norms_per_layer)
    if "norms" in parts:
        frozen += (model.num_layers - tuning.frozen_layers) * norms_per_layer
        frozen += norm if model.final_norm else 0
    return frozen


def trainable_parameters(model: TransformerSpec, tuning: FineTuning) -> int:
    """Parameters the optimizer updates: adapters plus trained biases (LoRA), or the base model
    less its frozen parts (full). Equals ``sum(p.numel() for p in model.parameters() if
    p.requires_grad)`` of the peft-wrapped or partly frozen Hugging Face model."""
    base_trained = model.parameter_count - frozen_parameters(model, tuning)
    return adapter_parameters(model, tuning) + base_trained


def check_finetuning(model: TransformerSpec, tuning: FineTuning) -> None:
    """Refuse (one line naming the field) a fine-tuning ``model`` cannot run: target modules it
    does not have (:func:`targeted_linears`, MoE and latent attention included), a LoRA rank
    above a targeted linear's ``min(d_in, d_out)`` (the rank of its weight: a larger adapter
    adds parameters, not expressiveness), more frozen layers than the model has, or nothing
    left to train (a fully frozen model). The routers (:data:`ROUTER_MODULES`, ``h -> E`` and
    ``h -> 1``) are narrower than most ranks and are adapted at any rank, as peft does."""
    if tuning.is_default:
        return
    if tuning.adapters:
        for linear in targeted_linears(model, tuning) + targeted_expert_linears(model, tuning):
            if linear.name in ROUTER_MODULES:
                continue
            widest = min(linear.d_in, linear.d_out)
            rank = tuning.rank * linear.rank_multiple
            if rank > widest:
                raise MlcostError(
                    f"rank: got {tuning.rank}, expected at most {widest // linear.rank_multiple}"
                    f" for {model.name}'s {linear.name} ({linear.d_in} -> {linear.d_out}: a "
                    "LoRA rank above min(d_in, d_out) adds parameters, not rank); use a smaller "
                    "--lora-rank (e.g. 8 to 64)"
                )
    if tuning.frozen_layers > model.num_layers:
        raise MlcostError(
            f"frozen_layers: got {tuning.frozen_layers}, expected at most {model.num_layers}, "
            f"the layers of {model.name}"
        )
    if trainable_parameters(model, tuning) <= 0:
        raise MlcostError(
            f"frozen: {tuning.describe()} freezes every parameter of {model.name}; expected "
            "something left to train; freeze fewer parts or layers, or use LoRA"
        )


def quantized_parameters(model: TransformerSpec, tuning: FineTuning) -> int:
    """Frozen weights stored block-wise quantized under QLoRA: the weights (not the biases) of
    every linear of the layers; 0 otherwise."""
    if not tuning.quantized:
        return 0
    return model.num_layers * sum(m.d_in * m.d_out for m in layer_linears(model))


def dequantized_weight_bytes(
    model: TransformerSpec, tuning: FineTuning, weight_bytes: float
) -> int:
    """The largest weight QLoRA holds dequantized at once: bitsandbytes dequantizes one linear's
    weight to the compute format for its GEMM and frees it after (``MatMul4Bit``), so the peak
    is the largest linear of a layer, ``max(d_in·d_out)·w`` bytes; 0 unless quantized."""
    if not tuning.quantized:
        return 0
    return int(max(m.d_in * m.d_out for m in layer_linears(model)) * weight_bytes)


__all__ = [
    "ALL_LINEAR",
    "FINETUNING_SOURCES",
    "METHODS",
    "FineTuning",
    "LinearModule",
    "adapter_parameters",
    "check_finetuning",
    "default_targets",
    "dequantized_weight_bytes",
    "expert_block_linears",
    "frozen_parameters",
    "frozen_parts",
    "latent_attention_linears",
    "layer_linears",
    "quantized_bits_per_parameter",
    "quantized_parameters",
    "targeted_expert_linears",
    "targeted_linears",
    "trainable_parameters",
]
