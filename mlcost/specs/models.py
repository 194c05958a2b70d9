"""Model specs: transformers (decoder and encoder) and ResNet-style conv nets.

The parameter count is derived from the architecture and is exact: it equals what the reference
implementation (Hugging Face ``transformers``; torchvision for ResNet) allocates, which the test
suite checks by building those implementations on PyTorch's meta device.

Transformer count, per layer (h = hidden size, d = head dim, n_q / n_kv = query / key-value
heads, f = FFN size; Vaswani et al. 2017, with GQA from Ainslie et al. 2023):

    attention = h·d·n_q (Q) + 2·h·d·n_kv (K, V) + d·n_q·h (O)   [+ biases d·n_q + 2·d·n_kv, + h]
    mlp       = 2·h·f (plain) or 3·h·f (gated: gate, up, down)     [+ biases f (2f gated) + h]
    norms     = k·h, k = 2 (pre/post-LN, reordered) or 4 (Gemma sandwich)   [x2 with LayerNorm bias]

plus embeddings V·h, learned positions P·h, token types T·h, final norm, and an LM head V·h
when it is not tied to the embeddings. For large h this is the familiar 12·L·h^2 (GPT-2/3).

Mixture-of-experts layers (:class:`MixtureOfExperts`; Shazeer et al. 2017, Fedus et al. 2022,
Jiang et al. 2024 for Mixtral, Dai et al. 2024 for DeepSeekMoE's shared experts) replace the
MLP of their layer by ``E`` routed experts of FFN size ``f_e`` (gated: ``3·h·f_e`` each), a
router ``h·E`` (``+ E`` with a bias), and shared experts always on (``3·h·f_s``; Qwen2-MoE adds
a sigmoid gate ``h``). A token uses ``k`` of the ``E`` routed experts, so the active parameters
are the total less ``(E - k)/E`` of the routed experts (Fedus et al. 2022, section 2).

Multi-head latent attention (:class:`LatentAttention`; DeepSeek-AI 2024, arXiv 2405.04434
section 2.1, and arXiv 2412.19437 section 2.1) replaces Q, K, V by low-rank projections: with
``r_q`` / ``r_kv`` the query / KV compression ranks, ``d_n`` / ``d_r`` / ``d_v`` the per-head
non-rotary, rotary and value dims and ``n`` heads,

    attention = h·r_q + r_q + r_q·n·(d_n + d_r)     (query down, its RMSNorm, query up)
              + h·(r_kv + d_r) + r_kv                 (KV down with the shared rotary key, norm)
              + r_kv·n·(d_n + d_v) + n·d_v·h          (KV up, output)
"""

from functools import cached_property
from typing import ClassVar, Literal

import pint
from pydantic import Field, model_validator

from mlcost.specs.base import Model, ParamCount, PositiveInt, Spec
from mlcost.units import Q_

Activation = Literal["gelu", "gelu-tanh", "silu", "relu", "relu2"]


class ModelSpec(Spec):
    """Base of the model specs: an exact parameter count derived from the architecture."""

    def parameter_breakdown(self) -> dict[str, int]:
        """Exact parameter counts by component."""
        raise NotImplementedError

    @cached_property
    def parameter_count(self) -> int:
        """Total parameters, counted once (tied embeddings and LM head count once; computed
        once per spec)."""
        return sum(self.parameter_breakdown().values())

    @property
    def parameters(self) -> pint.Quantity:
        """Total parameters as a quantity in ``param``."""
        return Q_(self.parameter_count, "param")


class MixtureOfExperts(Model):
    """The experts of a mixture-of-experts transformer (module docstring for the counts).

    Layer ``i`` (0-based) is an MoE layer when ``i >= first_dense_layers``, ``(i + 1) % every ==
    0`` and ``i`` is not in ``dense_layers`` (DeepSeek-V3's ``first_k_dense_replace``, Qwen2-MoE's
    ``decoder_sparse_step`` and ``mlp_only_layers``); the others keep the dense MLP of size
    ``ffn_hidden_size``. ``capacity_factor`` caps the tokens an expert takes at
    ``capacity_factor x T·k/E`` and drops the rest (Fedus et al. 2022, section 2.2; ``None``:
    dropless, as the Hugging Face implementations and Megatron's default run).
    ``score_correction_bias`` is DeepSeek-V3's auxiliary-loss-free balancing bias (arXiv
    2412.19437 section 2.1.2): ``E`` numbers per MoE layer updated by a rule, not by gradients,
    hence a buffer and not a parameter. ``aux_loss`` says whether training adds the
    load-balancing loss (Fedus et al. 2022, eq. 4) over the router probabilities.
    ``router_score`` is the gating function (softmax; DeepSeek-V3's sigmoid, section 2.1.2) and
    ``router_in_fp32`` that the router GEMM runs on FP32 copies of its input and weight (Hugging
    Face DeepSeek-V3; Megatron's ``--moe-router-dtype fp32``).
    """

    num_experts: PositiveInt
    experts_per_token: PositiveInt
    expert_ffn_size: PositiveInt
    num_shared_experts: int = Field(default=0, ge=0)
    shared_expert_ffn_size: PositiveInt | None = None
    shared_expert_gate: bool = False
    first_dense_layers: int = Field(default=0, ge=0)
    every: PositiveInt = 1
    dense_layers: tuple[int, ...] = ()
    router_bias: bool = False
    score_correction_bias: bool = False
    normalize_top_k: bool = True
    capacity_factor: float | None = Field(default=None, gt=0)
    aux_loss: bool = True
    router_score: Literal["softmax", "sigmoid"] = "softmax"
    router_in_fp32: bool = False

    @model_validator(mode="after")
    def _top_k_fits(self) -> "MixtureOfExperts":
        if self.experts_per_token > self.num_experts:
            raise ValueError(
                f"experts_per_token: got {self.experts_per_token}, expected at most num_experts "
                f"({self.num_experts})"
            )
        return self

    @property
    def shared_ffn_size(self) -> int:
        """FFN width of the shared experts together (0 without them): ``shared_expert_ffn_size``
        when given, else ``num_shared_experts x expert_ffn_size`` (DeepSeek's fused shared MLP)."""
        if self.num_shared_experts == 0:
            return 0
        return self.shared_expert_ffn_size or self.num_shared_experts * self.expert_ffn_size

    def is_moe_layer(self, index: int) -> bool:
        """Whether layer ``index`` (0-based) holds experts (class docstring)."""
        return (
            index >= self.first_dense_layers
            and (index + 1) % self.every == 0
            and index not in self.dense_layers
        )

    def moe_layer_count(self, layers: int) -> int:
        """MoE layers among ``layers``."""
        return sum(self.is_moe_layer(i) for i in range(layers))

    @property
    def routed_fraction(self) -> float:
        """Share of tokens x experts an expert processes: ``k / E`` (before any capacity cap)."""
        return self.experts_per_token / self.num_experts

    @property
    def processed_fraction(self) -> float:
        """Share of the routed token copies the experts compute: ``min(1, capacity_factor)``
        (with a capacity below one the overflow is dropped, Fedus et al. 2022 section 2.2;
        expected load, balanced routing)."""
        return 1.0 if self.capacity_factor is None else min(1.0, self.capacity_factor)


class LatentAttention(Model):
    """Multi-head latent attention (DeepSeek-V2/V3; module docstring): ``q_lora_rank`` (``None``:
    a full-rank query projection, as DeepSeek-V2-Lite), ``kv_lora_rank``, per-head
    ``qk_nope_head_dim`` (non-rotary), ``qk_rope_head_dim`` (rotary, its key shared by all heads)
    and ``v_head_dim``; RMSNorms on the two compressed latents."""

    q_lora_rank: PositiveInt | None = None
    kv_lora_rank: PositiveInt
    qk_nope_head_dim: PositiveInt
    qk_rope_head_dim: PositiveInt
    v_head_dim: PositiveInt

    @property
    def qk_head_dim(self) -> int:
        """Query/key width per head: ``d_n + d_r``."""
        return self.qk_nope_head_dim + self.qk_rope_head_dim

    def parameters(self, hidden: int, heads: int, *, bias: bool) -> int:
        """Parameters of one layer's attention (module docstring); ``bias`` adds the biases of the
        query-down, KV-down and output projections (``attention_bias``)."""
        n, r_kv, d_r = heads, self.kv_lora_rank, self.qk_rope_head_dim
        if self.q_lora_rank is None:
            query = hidden * n * self.qk_head_dim
        else:
            r_q = self.q_lora_rank
            query = hidden * r_q + r_q + r_q * n * self.qk_head_dim + (r_q if bias else 0)
        kv = hidden * (r_kv + d_r) + r_kv + r_kv * n * (self.qk_nope_head_dim + self.v_head_dim)
        output = n * self.v_head_dim * hidden
        if bias:
            kv += r_kv + d_r
            output += hidden
        return query + kv + output


class TransformerSpec(ModelSpec):
    """A transformer general enough for GPT-2/3, BERT, Llama 2/3, Mistral, Qwen2 and Gemma-2."""

    KIND: ClassVar[str] = "transformer"
    kind: Literal["transformer"] = "transformer"
    hf_id: str | None = None
    architecture: Literal["decoder", "encoder"] = "decoder"
    hidden_size: PositiveInt
    num_layers: PositiveInt
    num_attention_heads: PositiveInt
    num_kv_heads: PositiveInt | None = None
    head_dim: PositiveInt | None = None
    ffn_hidden_size: PositiveInt
    gated_mlp: bool = False
    activation: Activation = "gelu"
    norm: Literal["layernorm", "rmsnorm"] = "layernorm"
    norm_bias: bool | None = None
    # pre: norm before each sublayer (GPT-2, Llama); post: after each residual add (BERT);
    # sandwich: before and after each sublayer (Gemma 2/3); reordered: after each sublayer,
    # before its residual add, none before it (OLMo 2's reordered norm; Team OLMo 2024,
    # '2 OLMo 2 Furious', arXiv 2501.00656).
    norm_placement: Literal["pre", "post", "sandwich", "reordered"] = "pre"
    final_norm: bool = True
    embedding_norm: bool = False
    vocab_size: PositiveInt
    max_position_embeddings: PositiveInt
    position_encoding: Literal["learned", "rotary", "alibi", "sinusoidal"] = "rotary"
    type_vocab_size: int = Field(default=0, ge=0)
    tie_word_embeddings: bool = False
    qkv_bias: bool = False
    attn_out_bias: bool = False
    mlp_bias: bool = False
    lm_head: bool = True
    lm_head_bias: bool = False
    lm_head_transform: bool = False
    pooler: bool = False
    nsp_head: bool = False
    hidden_dropout: float = Field(default=0.0, ge=0.0, lt=1.0)
    attention_dropout: float = Field(default=0.0, ge=0.0, lt=1.0)
    sliding_window: PositiveInt | None = None
    global_attention_every: PositiveInt | None = None
    rope_theta: float | None = Field(default=None, gt=0)
    attention_logit_softcap: float | None = Field(default=None, gt=0)
    final_logit_softcap: float | None = Field(default=None, gt=0)
    reported_parameters: ParamCount | None = None
    # How the reference implementation computes (what it saves for backward depends on it):
    fused_qkv: bool = False  # one projection for Q, K and V (GPT-2's c_attn)
    softmax_in_fp32: bool = False  # attention softmax upcast to FP32 (HF Llama-family eager)
    activation_decomposed: bool = False  # activation written as element-wise ops (HF gelu_new)
    norm_in_fp32: bool = False  # the norm's weight applied in FP32 (Gemma's RMSNorm x·(1 + w))
    loss_in_fp32: bool = True  # logits upcast to FP32 for the loss (HF causal LMs; not BERT)
    qk_norm: bool = False  # RMSNorm on the whole query and key projections (OLMoE)
    # QK-norm over each head's d elements with one weight of d shared by the heads (Qwen3,
    # transformers' Qwen3MoeAttention q_norm/k_norm) instead of over the whole projection.
    qk_norm_per_head: bool = False
    moe: MixtureOfExperts | None = None
    latent_attention: LatentAttention | None = None

    @model_validator(mode="after")
    def _heads_consistent(self) -> "TransformerSpec":
        heads, kv = self.num_attention_heads, self.kv_heads
        if heads % kv:
            raise ValueError(
                f"num_kv_heads: got {kv}, expected a divisor of num_attention_heads ({heads})"
            )
        if self.head_dim is None and self.hidden_size % heads:
            raise ValueError(
                f"head_dim: hidden_size {self.hidden_size} is not divisible by "
                f"num_attention_heads {heads}; give head_dim explicitly"
            )
        if self.lm_head_transform and not self.lm_head:
            raise ValueError("lm_head_transform: needs lm_head: true")
        if self.moe is not None and self.moe.moe_layer_count(self.num_layers) == 0:
            raise ValueError(
                f"moe: no layer of {self.num_layers} is an MoE layer (first_dense_layers "
                f"{self.moe.first_dense_layers}, every {self.moe.every}); expected at least one"
            )
        return self

    # ----- derived shape ----------------------------------------------------------------
    @property
    def kv_heads(self) -> int:
        """Key/value heads (= attention heads for MHA, fewer for GQA, 1 for MQA)."""
        return self.num_kv_heads or self.num_attention_heads

    @property
    def head_size(self) -> int:
        """Per-head dimension d."""
        return self.head_dim or self.hidden_size // self.num_attention_heads

    @property
    def has_norm_bias(self) -> bool:
        """LayerNorm has a bias unless told otherwise; RMSNorm has none."""
        if self.norm_bias is not None:
            return self.norm_bias
        return self.norm == "layernorm"

    @property
    def norms_per_layer(self) -> int:
        return 4 if self.norm_placement == "sandwich" else 2

    @property
    def attention_kind(self) -> str:
        """``mla`` (latent attention), ``mqa`` (one KV head), ``gqa`` or ``mha``."""
        if self.latent_attention is not None:
            return "mla"
        if self.kv_heads == 1:
            return "mqa"
        return "gqa" if self.kv_heads < self.num_attention_heads else "mha"

    @property
    def moe_layers(self) -> int:
        """Layers holding experts (0 for a dense model)."""
        return 0 if self.moe is None else self.moe.moe_layer_count(self.num_layers)

    @property
    def dense_mlp_layers(self) -> int:
        """Layers with the dense MLP of size ``ffn_hidden_size``."""
        return self.num_layers - self.moe_layers

    # ----- parameter count --------------------------------------------------------------
    def parameter_breakdown(self) -> dict[str, int]:
        """Exact parameter counts by component (see the module docstring for the formulas)."""
        h, d, f, v = self.hidden_size, self.head_size, self.ffn_hidden_size, self.vocab_size
        q_width, kv_width = d * self.num_attention_heads, d * self.kv_heads
        norm_params = h * (2 if self.has_norm_bias else 1)

        if self.latent_attention is not None:
            attention = self.latent_attention.parameters(
                h, self.num_attention_heads, bias=self.qkv_bias
            )
        else:
            attention = h * q_width + 2 * h * kv_width + q_width * h
            if self.qkv_bias:
                attention += q_width + 2 * kv_width
            if self.attn_out_bias:
                attention += h
        if self.qk_norm:
            attention += 2 * d if self.qk_norm_per_head else q_width + kv_width
        norms = self.norms_per_layer * norm_params

        embeddings = v * h
        if self.position_encoding == "learned":
            embeddings += self.max_position_embeddings * h
        embeddings += self.type_vocab_size * h
        if self.embedding_norm:
            embeddings += norm_params

        head = 0
        if self.lm_head:
            if not self.tie_word_embeddings:
                head += v * h
            if self.lm_head_bias:
                head += v
            if self.lm_head_transform:
                head += h * h + h + norm_params
        if self.pooler:
            head += h * h + h
        if self.nsp_head:
            head += 2 * h + 2

        counts = {
            "embeddings": embeddings,
            "attention": attention * self.num_layers,
            "mlp": self.mlp_parameters(f) * self.dense_mlp_layers,
            "norms": norms * self.num_layers + (norm_params if self.final_norm else 0),
            "head": head,
        }
        moe = self.moe
        if moe is not None:
            layers = self.moe_layers
            counts["router"] = layers * (h * moe.num_experts + (moe.num_experts if moe.router_bias
                                                              else 0))  # fmt: skip
            counts["routed experts"] = (
                layers * moe.num_experts * self.mlp_parameters(moe.expert_ffn_size)
            )
            shared = self.mlp_parameters(moe.shared_ffn_size) if moe.shared_ffn_size else 0
            counts["shared experts"] = layers * (shared + (h if moe.shared_expert_gate else 0))
        return counts

    def mlp_parameters(self, ffn: int) -> int:
        """One MLP (or expert) of FFN width ``ffn``: ``3·h·f`` gated, ``2·h·f`` plain (+ biases)."""
        h = self.hidden_size
        matrices = 3 if self.gated_mlp else 2
        mlp = matrices * h * ffn
        if self.mlp_bias:
            mlp += (matrices - 1) * ffn + h
        return mlp

    @property
    def routed_experts(self) -> int:
        """Routed experts per MoE layer (``moe.num_experts``), 0 for a dense model: what expert
        parallelism splits."""
        return 0 if self.moe is None else self.moe.num_experts

    @cached_property
    def expert_parameter_count(self) -> int:
        """Parameters of the routed experts (0 for a dense model): what expert parallelism
        shards over its ``ep`` ranks (shared experts and routers stay replicated like the dense
        layers; Lepikhin et al. 2021 section 2.3, Megatron-Core's expert parallelism)."""
        return self.parameter_breakdown().get("routed experts", 0)

    @cached_property
    def active_parameter_count(self) -> int:
        """Parameters one token uses: all but ``(E - k)/E`` of the routed experts (equal to the
        total for a dense model; Fedus et al. 2022; embeddings and LM head included, as
        DeepSeek-AI 2024 and Jiang et al. 2024 count their "activated" parameters)."""
        if self.moe is None:
            return self.parameter_count
        routed = self.parameter_breakdown()["routed experts"]
        idle = routed * (self.moe.num_experts - self.moe.experts_per_token)
        return self.parameter_count - idle // self.moe.num_experts

    @property
    def active_parameters(self) -> pint.Quantity:
        """:attr:`active_parameter_count` as a quantity in ``param``."""
        return Q_(self.active_parameter_count, "param")

    @property
    def non_embedding_parameters(self) -> pint.Quantity:
        """Parameters outside the token/position embeddings (Kaplan et al. 2020 count N)."""
        breakdown = self.parameter_breakdown()
        return Q_(self.parameter_count - breakdown["embeddings"], "param")


class ConvNetSpec(ModelSpec):
    """A ResNet-family conv net (He et al. 2016): stem, four stages of residual blocks, classifier.

    Convolutions have no bias; every convolution is followed by batch norm (weight and bias:
    2·C parameters; running statistics are buffers, not parameters). The first block of a stage
    gets a 1x1 projection shortcut when the stride or channel count changes.
    """

    KIND: ClassVar[str] = "convnet"
    kind: Literal["convnet"] = "convnet"
    block: Literal["basic", "bottleneck"] = "bottleneck"
    stage_blocks: tuple[PositiveInt, ...]
    stage_widths: tuple[PositiveInt, ...]
    stage_strides: tuple[PositiveInt, ...] = (1, 2, 2, 2)
    expansion: PositiveInt = 4
    stem_channels: PositiveInt = 64
    stem_kernel: PositiveInt = 7
    input_channels: PositiveInt = 3
    num_classes: PositiveInt = 1000
    image_size: PositiveInt = 224
    reported_parameters: ParamCount | None = None

    @model_validator(mode="after")
    def _stages_consistent(self) -> "ConvNetSpec":
        lengths = {len(self.stage_blocks), len(self.stage_widths), len(self.stage_strides)}
        if len(lengths) != 1:
            raise ValueError(
                "stage_blocks, stage_widths and stage_strides: expected the same length, got "
                f"{len(self.stage_blocks)}, {len(self.stage_widths)}, {len(self.stage_strides)}"
            )
        return self

    @property
    def block_expansion(self) -> int:
        return self.expansion if self.block == "bottleneck" else 1

    def parameter_breakdown(self) -> dict[str, int]:
        """Exact parameter counts: stem, each stage, classifier."""

        def conv_bn(c_in: int, c_out: int, kernel: int) -> int:
            return c_in * c_out * kernel * kernel + 2 * c_out

        counts = {"stem": conv_bn(self.input_channels, self.stem_channels, self.stem_kernel)}
        channels = self.stem_channels
        for index, (blocks, width, stride) in enumerate(
            zip(self.stage_blocks, self.stage_widths, self.stage_strides, strict=True), start=1
        ):
            out = width * self.block_expansion
            total = 0
            for block in range(blocks):
                c_in = channels if block == 0 else out
                if self.block == "bottleneck":
                    total += conv_bn(c_in, width, 1) + conv_bn(width, width, 3)
                    total += conv_bn(width, out, 1)
                else:
                    total += conv_bn(c_in, width, 3) + conv_bn(width, width, 3)
                if block == 0 and (stride != 1 or c_in != out):
                    total += conv_bn(c_in, out, 1)
            counts[f"stage{index}"] = total
            channels = out
        counts["classifier"] = channels * self.num_classes + self.num_classes
        return counts
