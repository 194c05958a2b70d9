"""Model specs: transformers (decoder and encoder) and ResNet-style conv nets.

The parameter count is derived from the architecture and is exact: it equals what the reference
implementation (Hugging Face ``transformers``; torchvision for ResNet) allocates, which the test
suite checks by building those implementations on PyTorch's meta device.

Transformer count, per layer (h = hidden size, d = head dim, n_q / n_kv = query / key-value
heads, f = FFN size; Vaswani et al. 2017, with GQA from Ainslie et al. 2023):

    attention = h·d·n_q (Q) + 2·h·d·n_kv (K, V) + d·n_q·h (O)   [+ biases d·n_q + 2·d·n_kv, + h]
    mlp       = 2·h·f (plain) or 3·h·f (gated: gate, up, down)     [+ biases f (2f gated) + h]
    norms     = k·h, k = 2 (pre/post-LN) or 4 (Gemma-2 sandwich)   [x2 with LayerNorm bias]

plus embeddings V·h, learned positions P·h, token types T·h, final norm, and an LM head V·h
when it is not tied to the embeddings. For large h this is the familiar 12·L·h^2 (GPT-2/3).
"""

from __future__ import annotations

from typing import ClassVar, Literal

import pint
from pydantic import Field, model_validator

from mlcost.specs.base import ParamCount, PositiveInt, Spec
from mlcost.units import Q_

Activation = Literal["gelu", "gelu-tanh", "silu", "relu", "relu2"]


class ModelSpec(Spec):
    """Base of the model specs: an exact parameter count derived from the architecture."""

    def parameter_breakdown(self) -> dict[str, int]:
        """Exact parameter counts by component."""
        raise NotImplementedError

    @property
    def parameter_count(self) -> int:
        """Total parameters, counted once (tied embeddings and LM head count once)."""
        return sum(self.parameter_breakdown().values())

    @property
    def parameters(self) -> pint.Quantity:
        """Total parameters as a quantity in ``param``."""
        return Q_(self.parameter_count, "param")


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
    norm_placement: Literal["pre", "post", "sandwich"] = "pre"
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

    @model_validator(mode="after")
    def _heads_consistent(self) -> TransformerSpec:
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

    # ----- parameter count --------------------------------------------------------------
    def parameter_breakdown(self) -> dict[str, int]:
        """Exact parameter counts by component (see the module docstring for the formulas)."""
        h, d, f, v = self.hidden_size, self.head_size, self.ffn_hidden_size, self.vocab_size
        q_width, kv_width = d * self.num_attention_heads, d * self.kv_heads
        norm_params = h * (2 if self.has_norm_bias else 1)

        attention = h * q_width + 2 * h * kv_width + q_width * h
        if self.qkv_bias:
            attention += q_width + 2 * kv_width
        if self.attn_out_bias:
            attention += h
        matrices = 3 if self.gated_mlp else 2
        mlp = matrices * h * f
        if self.mlp_bias:
            mlp += (matrices - 1) * f + h
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

        return {
            "embeddings": embeddings,
            "attention": attention * self.num_layers,
            "mlp": mlp * self.num_layers,
            "norms": norms * self.num_layers + (norm_params if self.final_norm else 0),
            "head": head,
        }

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
    def _stages_consistent(self) -> ConvNetSpec:
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
