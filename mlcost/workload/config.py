"""The training configuration and the numeric format policies it names.

A :class:`TrainingConfig` holds the numbers one GPU computes with: sequence length, number format
policy, attention implementation and FLOP-counting convention, optimizer and dropout. How the
step is split across GPUs and micro-batches (micro-batch size, accumulation, recomputation,
parallel degrees, ZeRO) is the :class:`mlcost.layout.Layout`. It is validated when built; bad
values raise :class:`mlcost.errors.SpecError` naming the field.
"""

from typing import Literal

from pydantic import Field, model_validator

from mlcost.errors import MlcostError
from mlcost.finetune import FineTuning, check_finetuning
from mlcost.records import Record
from mlcost.specs.base import Model, PositiveInt
from mlcost.specs.models import TransformerSpec

Precision = Literal["fp32", "fp16-mixed", "bf16-mixed", "bf16", "fp8", "fp8-params"]
AttentionImplementation = Literal["eager", "flash"]
AttentionFlops = Literal["executed", "causal"]
Optimizer = Literal[
    "sgd",
    "sgd-momentum",
    "rmsprop",
    "adam",
    "adamw",
    "adamw-bf16",
    "adam-8bit",
    "adafactor",
    "lion",
]


class PrecisionPolicy(Record, frozen=True):
    """Bytes per element of each tensor class under a numeric format policy.

    Mixed precision after Micikevicius et al. 2018 ("Mixed Precision Training", section 3):
    FP32 master weights, 16-bit copies for the forward and backward pass, 16-bit activations and
    gradients. FP8 after NVIDIA Transformer Engine (docs, "Using FP8 with Transformer Engine"):
    GEMM inputs are cast to FP8 (E4M3 forward, E5M2 for gradients) with per-tensor scales, while
    activations between GEMMs, norms and softmax stay in BF16; the module's parameters stay in
    their BF16 ``params_dtype`` (``stored_weight`` 2 bytes) and are cast to FP8 for each GEMM
    (``weight`` 1 byte is what the GEMM reads). Only the GEMMs of the transformer layers run in FP8
    (``layer_gemms_only``; ``te.Linear`` modules under ``fp8_autocast``): the attention core and
    the output layer (LM head) stay in ``high_precision_format`` (Megatron-LM's ``--fp8`` keeps
    the output layer in BF16; llm-foundry's FP8 runs use ``te.Linear`` for the attention and MLP
    projections only).

    ``fp8-params`` is the FP8 recipe with FP8 storage of those weights: Transformer Engine's
    ``fp8_model_init`` (docs, "fp8_model_init": the modules' parameters are created and kept in
    FP8, and the optimizer keeps the high-precision master copy) and Megatron-LM's
    ``--fp8-param-gather`` (the distributed optimizer gathers the FP8 parameters). The layers'
    linear weights are held in 1 byte (``stored_linear_weight``; their biases ride along, a few
    per mille of them), the embeddings, norms, router and output layer in BF16; the master
    weights stay FP32.
    """

    name: str
    activation: float  # activations stored between operators
    gemm_input: float  # what a GEMM reads for its activation operand
    weight: float  # weights as a GEMM reads them
    stored_weight: float  # the working copy of the weights held in memory between steps
    gradient: float  # parameter gradients
    master_weight: float  # FP32 master copy (0 when the weights themselves are updated)
    compute_format: str  # key of the accelerator's peak_compute that GEMMs run at
    layer_gemms_only: bool = False  # only the layers' GEMMs run in compute_format (FP8 recipes)
    high_precision_format: str = ""  # the format of the other GEMMs (BF16 under FP8)
    stored_linear_weight: float = 0.0  # the layers' linear weights held in (0: stored_weight)

    @property
    def compute_formats(self) -> tuple[str, ...]:
        """Every format the step's GEMMs run in: a GPU without a peak in each cannot run it."""
        return tuple(f for f in (self.compute_format, self.high_precision_format) if f)

    def format_of(self, block: str) -> str:
        """The format a GEMM of ``block`` (``layer``, ``head``, ...) runs in."""
        if self.layer_gemms_only and block != "layer":
            return self.high_precision_format
        return self.compute_format


PRECISION_POLICIES: dict[str, PrecisionPolicy] = {
    "fp32": PrecisionPolicy("fp32", 4, 4, 4, 4, 4, 0, "fp32"),
    "fp16-mixed": PrecisionPolicy("fp16-mixed", 2, 2, 2, 2, 2, 4, "fp16"),
    "bf16-mixed": PrecisionPolicy("bf16-mixed", 2, 2, 2, 2, 2, 4, "bf16"),
    "bf16": PrecisionPolicy("bf16", 2, 2, 2, 2, 2, 0, "bf16"),
    "fp8": PrecisionPolicy("fp8", 2, 1, 1, 2, 2, 4, "fp8", True, "bf16"),
    "fp8-params": PrecisionPolicy("fp8-params", 2, 1, 1, 2, 2, 4, "fp8", True, "bf16", 1),
}


class TrainingConfig(Model):
    """How one training step runs.

    ``attention_flops`` is the counting convention for the two attention matmuls:

    * ``executed`` (default): every score the kernel computes. Eager attention computes the full
      ``s x s`` score matrix even under a causal mask, and the published MFU formulas
      (Narayanan et al. 2021 eq. 3, PaLM appendix B) count it too, so this default makes MFU
      comparable with papers and equal to what ``torch.utils.flop_counter`` reports.
      FlashAttention-style kernels skip masked blocks, so under ``attention="flash"`` only the
      unmasked scores are executed (counted per element; block-granularity waste is ignored).
    * ``causal``: only the unmasked scores, whatever the kernel (``s(s+1)/2`` per head for a
      causal mask), which is the useful work.

    ``dropout_mask``: what a dropout keeps for backward. ``bool`` (default): CUDA's fused
    ``native_dropout`` keeps a 1-byte mask; ``dtype``: the composite path PyTorch takes on the
    CPU and the meta device keeps the mask in the activation's dtype.

    ``attention_window`` (a sliding window of that many keys for every layer, as Longformer or
    Mistral) and ``dilated_segments`` with ``dilation_rates`` (LongNet) override the model's own
    attention pattern; ``causal`` overrides the model's (decoders are causal, encoders not).

    ``finetune`` (:class:`mlcost.finetune.FineTuning`): full training (default), frozen parts,
    LoRA or QLoRA: which weights train and how the frozen ones are stored.
    """

    sequence_length: PositiveInt = 2048
    precision: Precision = "bf16-mixed"
    attention: AttentionImplementation = "flash"
    attention_flops: AttentionFlops = "executed"
    causal: bool | None = None
    attention_window: PositiveInt | None = None
    dilated_segments: tuple[PositiveInt, ...] = ()
    dilation_rates: tuple[PositiveInt, ...] = ()
    optimizer: Optimizer = "adamw"
    dropout: bool | None = None
    dropout_mask: Literal["bool", "dtype"] = "bool"
    image_size: PositiveInt | None = Field(default=None, description="conv nets only")
    finetune: FineTuning = FineTuning()

    @model_validator(mode="after")
    def _consistent(self) -> "TrainingConfig":
        if len(self.dilated_segments) != len(self.dilation_rates):
            raise ValueError(
                "dilation_rates: expected one rate per entry of dilated_segments, got "
                f"{len(self.dilation_rates)} for {len(self.dilated_segments)}"
            )
        if self.dilated_segments and self.attention_window:
            raise ValueError("attention_window: give a window or dilated segments, not both")
        return self

    @property
    def policy(self) -> PrecisionPolicy:
        """The :class:`PrecisionPolicy` named by ``precision``."""
        return PRECISION_POLICIES[self.precision]


def config_for_model(config: TrainingConfig, model: object) -> TrainingConfig:
    """The configuration ``model`` trains with: a sequence length left at its default (2048) is
    capped at the model's positions (``max_position_embeddings``: GPT-2 trains on 1024), and one
    given longer than the positions is refused, since the model has no embedding (or trained
    rotary range) for the extra positions. The fine-tuning is checked against the model
    (:func:`mlcost.finetune.check_finetuning`: targets, ranks, frozen layers, something to train).

    Raises :class:`mlcost.errors.MlcostError` naming the field, the value and the limit.
    """
    if not isinstance(model, TransformerSpec):
        return config
    check_finetuning(model, config.finetune)
    positions = model.max_position_embeddings
    if config.sequence_length <= positions:
        return config
    if "sequence_length" not in config.model_fields_set:
        return config.model_copy(update={"sequence_length": positions})
    raise MlcostError(
        f"sequence_length: got {config.sequence_length:,}, expected at most {positions:,}, the "
        f"positions of {model.name} (max_position_embeddings); use --seq {positions} or a model "
        "spec with a longer context (e.g. RoPE scaling)"
    )
