"""What every operator builder of a transformer step shares: the model, the per-GPU numerics,
the micro-batch and the recomputed shares (:class:`StepBuilder`), and how a GEMM, a norm or an
element-wise operator over the hidden states becomes an :class:`~mlcost.workload.table.Operator`
row (FLOPs ``2·M·N·K`` per GEMM pass, Narayanan et al. 2021 section 5.1; what PyTorch saves for
backward, as the module docstrings of :mod:`mlcost.workload.transformer` describe).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from mlcost.arrays import Real
from mlcost.records import Record, replace
from mlcost.specs.models import TransformerSpec
from mlcost.specs.software import MoeSaving
from mlcost.workload.config import PrecisionPolicy, TrainingConfig
from mlcost.workload.table import Operator, OperatorKind, OperatorRole, elementwise_operator


def gemm_operator(
    name: str,
    block: str,
    count: Real,
    m: Real,
    n: int,
    k: int,
    *,
    policy: PrecisionPolicy,
    bias: bool,
    saves_input: bool = True,
    input_needs_grad: bool = True,
    recompute_fraction: float = 0.0,
    tensor_parallel: bool = False,
    row_parallel: bool = False,
    fuse_group: str = "",
    saved_replicated: bool = False,
    note: str = "",
) -> Operator:
    """A GEMM ``[m x k] · [k x n]`` against a weight of ``k·n`` parameters (plus ``n`` bias), in
    the policy's format for its block (BF16 outside the layers under an FP8 recipe)."""
    fmt = policy.format_of(block)
    low = fmt == policy.compute_format
    gemm_input_bytes = policy.gemm_input if low else policy.activation
    weight_bytes = policy.weight if low else policy.stored_weight
    activation_bytes, gradient_bytes = policy.activation, policy.gradient
    forward = 2 * m * n * k
    return Operator(
        name=name,
        kind=OperatorKind.MATMUL,
        block=block,
        count=count,
        forward_flops=forward,
        backward_input_flops=forward if input_needs_grad else 0,
        backward_weight_flops=forward,
        bytes_read=m * k * gemm_input_bytes + k * n * weight_bytes,
        bytes_written=m * n * activation_bytes,
        # dX = dY·W^T reads dY and W, writes dX; dW = X^T·dY reads X and dY, writes dW.
        backward_bytes=(m * n * activation_bytes + k * n * weight_bytes + m * k * activation_bytes)
        + (m * k * gemm_input_bytes + m * n * activation_bytes + k * n * gradient_bytes),
        saved_bytes=m * k * gemm_input_bytes if saves_input else 0,
        parameters=k * n + (n if bias else 0),
        parameter_tensors=2 if bias else 1,
        recompute_fraction=recompute_fraction,
        m=m,
        n=n,
        k=k,
        tensor_parallel=tensor_parallel,
        row_parallel=row_parallel,
        fuse_group=fuse_group,
        saved_replicated=saved_replicated,
        format="" if low else fmt,
        note=note,
    )


def attention_layers(
    model: TransformerSpec, config: TrainingConfig
) -> list[tuple[str, int, dict[str, Any]]]:
    """(label, number of layers, pattern keywords for ``attention_pairs``) per attention pattern.

    A pattern in the config (window or dilation) applies to every layer; otherwise Gemma-2
    alternates sliding-window and global layers and Mistral uses its window in every layer.
    """
    if config.dilated_segments:
        dilated = {
            "dilated_segments": config.dilated_segments,
            "dilation_rates": config.dilation_rates,
        }
        return [("dilated", model.num_layers, dilated)]
    if config.attention_window is not None:
        return [("", model.num_layers, {"window": config.attention_window})]
    window = model.sliding_window
    if window is not None and model.global_attention_every:
        every = model.global_attention_every
        global_layers = model.num_layers // every
        return [
            ("local", model.num_layers - global_layers, {"window": window}),
            ("global", global_layers, {}),
        ]
    return [("", model.num_layers, {} if window is None else {"window": window})]


class StepBuilder(Record, frozen=True, dict=True):
    """What every block builder needs: the model, the per-GPU numerics and the micro-batch
    (``b`` sequences of ``s`` tokens, ``m`` micro-batches per step), the recomputed shares of
    the layers (``layer_rf``) and of the attention core (``core_rf``), the other regions
    selective recomputation replays on their own (``modules``, Megatron-Core's names:
    :data:`mlcost.layout.RECOMPUTE_MODULES`), what the implementation's MoE layer keeps
    (``moe_saving``) and the byte sizes."""

    model: TransformerSpec
    config: TrainingConfig
    b: Any
    s: Any
    micro: int
    layer_rf: float
    core_rf: float
    layers: int | None = None  # layers these rows stand for (all of the model's when None)
    frozen_norms: bool = False  # norm weights that do not train (fine-tuning)
    ep: int = 1  # expert-parallel degree: E/ep local experts, each taking ep·T·k/E tokens
    modules: frozenset[str] = frozenset()  # regions recomputed on their own (selective)
    moe_saving: MoeSaving | None = None  # None: the Hugging Face eager modules'

    def recomputes(self, module: str) -> bool:
        """Whether selective recomputation replays the region ``module`` on its own."""
        return module in self.modules

    @cached_property
    def policy(self) -> PrecisionPolicy:
        return self.config.policy

    @cached_property
    def tokens(self) -> Any:
        return self.b * self.s

    @cached_property
    def act(self) -> float:
        return self.policy.activation

    @cached_property
    def layer_count(self) -> int:
        """Executions of a per-layer operator per step: ``L x m`` (``layers`` of them when the
        rows stand for a part of the layers, e.g. frozen ones)."""
        layers = self.model.num_layers if self.layers is None else self.layers
        return layers * self.micro

    @cached_property
    def causal(self) -> bool:
        if self.config.causal is None:
            return self.model.architecture == "decoder"
        return self.config.causal

    @cached_property
    def dropout_on(self) -> bool:
        if self.config.dropout is None:
            return self.model.hidden_dropout > 0 or self.model.attention_dropout > 0
        return self.config.dropout

    @cached_property
    def mask_bytes(self) -> float:
        """Bytes per element of a dropout mask (``TrainingConfig.dropout_mask``)."""
        return self.act if self.config.dropout_mask == "dtype" else 1.0

    def norm(
        self, name: str, block: str, count: Any, rf: float = 0.0, *, discard_output: bool = False
    ) -> Operator:
        """A LayerNorm or RMSNorm over the ``T x h`` hidden states, with what PyTorch saves:
        torch.layer_norm its input, mean and 1/sigma (FP32); HF's RMSNorm an FP32 copy of the
        input, 1/rms (FP32) and the normalized value before the weight (FP32 where the weight is
        applied in FP32, ``TransformerSpec.norm_in_fp32``). A frozen RMSNorm weight needs no
        gradient, so the normalized value is not kept (``frozen_norms``); torch.layer_norm keeps
        the same either way. ``discard_output``: recomputed on its own with its output
        discarded (Megatron-Core's ``layernorm`` module, :func:`recomputed_region`): it keeps its
        input, ``T·h`` in the activation format, and the readers of its output keep nothing
        of it."""
        model, tokens, act = self.model, self.tokens, self.act
        h = model.hidden_size
        if model.norm == "layernorm":
            saved = tokens * h * act + tokens * 2 * 4
        else:
            normalized = 0 if self.frozen_norms else (4 if model.norm_in_fp32 else act)
            saved = tokens * h * 4 + tokens * 4 + tokens * h * normalized
        op = elementwise_operator(
            name,
            block,
            count,
            tokens * h,
            model.norm,
            activation_bytes=act,
            kind=OperatorKind.NORM,
            parameters=h * (2 if model.has_norm_bias else 1),
            parameter_tensors=2 if model.has_norm_bias else 1,
            saved_elements=1,
            saved_element_bytes=saved,
            recompute_fraction=rf,
        )
        if not discard_output:
            return op
        return recomputed_region(self, op, tokens * h * act, "its output discarded (layernorm)")

    def hidden(
        self, name: str, block: str, count: Any, key: str, rf: float = 0.0, **extra: Any
    ) -> Operator:
        """An element-wise operator over the ``T x h`` hidden states (replicated across
        tensor-parallel ranks unless sequence parallelism splits them)."""
        elements = self.tokens * self.model.hidden_size
        if key == "dropout":
            extra = {
                "kind": OperatorKind.DROPOUT,
                "saved_elements": elements,
                "saved_element_bytes": self.mask_bytes,
                **extra,
            }
        return elementwise_operator(
            name,
            block,
            count,
            elements,
            key,
            activation_bytes=self.act,
            recompute_fraction=rf,
            **extra,
        )

    def _layers_share(self, of_kind: int) -> Real:
        """Layers of one kind (dense-MLP or MoE) among the rows' layers: all ``of_kind`` when
        the rows stand for every layer, else their share of ``layers`` (``layer_count``)."""
        if self.layers is None:
            return of_kind
        if of_kind == self.model.num_layers:
            return self.layers
        return of_kind * self.layers / self.model.num_layers

    @property
    def dense_mlp_count(self) -> Real:
        """Executions of the dense MLP per step: its layers (all but the MoE layers) x ``m``."""
        return self._layers_share(self.model.dense_mlp_layers) * self.micro

    @property
    def moe_count(self) -> Real:
        """Executions of an MoE layer's per-layer operators per step: MoE layers x ``m``."""
        return self._layers_share(self.model.moe_layers) * self.micro

    def layer_gemm(
        self,
        name: str,
        n: int,
        k: int,
        *,
        bias: bool,
        count: Any = None,
        m: Any = None,
        saves_input: bool = True,
        input_needs_grad: bool = True,
        tensor_parallel: bool = False,
        row_parallel: bool = False,
        fuse_group: str = "",
        saved_replicated: bool = False,
        note: str = "",
    ) -> Operator:
        """A GEMM of every layer: ``T`` tokens (or ``m`` rows) against a ``k x n`` weight, ``L x
        m`` times a step (or ``count``), recomputed with the layer; the other keywords as
        :func:`gemm_operator`'s."""
        return gemm_operator(
            name,
            "layer",
            self.layer_count if count is None else count,
            self.tokens if m is None else m,
            n,
            k,
            policy=self.policy,
            bias=bias,
            saves_input=saves_input,
            input_needs_grad=input_needs_grad,
            recompute_fraction=self.layer_rf,
            tensor_parallel=tensor_parallel,
            row_parallel=row_parallel,
            fuse_group=fuse_group,
            saved_replicated=saved_replicated,
            note=note,
        )

    def gemm(
        self,
        name: str,
        block: str,
        count: Any,
        m: Any,
        n: int,
        k: int,
        *,
        bias: bool,
        rf: float = 0.0,
        **extra: Any,
    ) -> Operator:
        return gemm_operator(
            name,
            block,
            count,
            m,
            n,
            k,
            policy=self.policy,
            bias=bias,
            recompute_fraction=rf,
            **extra,
        )


def recomputed_region(
    step: StepBuilder, op: Operator, region_input: Real = 0.0, why: str = ""
) -> Operator:
    """``op`` inside a region that selective recomputation replays on its own (Megatron-Core's
    ``recompute_modules``): what it saves is dropped and its forward replayed in backward
    (``recompute_fraction`` 1); ``region_input``: the bytes of the region's inputs the checkpoint
    keeps in its place (``CheckpointFunction`` and ``CheckpointWithoutOutput`` save the inputs
    of the function they wrap; NVIDIA/Megatron-LM megatron/core/tensor_parallel/random.py),
    booked on this row."""
    note = f"recomputed on its own{f': {why}' if why else ''}"
    return replace(
        op,
        recompute_fraction=1.0,
        region_input_bytes=region_input,
        recomputed_alone=1.0 - step.layer_rf,
        note=f"{op.note}; {note}" if op.note else note,
    )


def feed_forward_ops(
    step: StepBuilder,
    label: str,
    f: int,
    count: Real,
    *,
    tokens: Real | None = None,
    saves_input: bool = True,
    fused_gate_up: bool = False,
) -> list[Operator]:
    """An MLP of width ``f`` over ``tokens`` rows (default ``T``), ``count`` times a step: (gate,)
    up, activation, (gate x up,) down. With ``fused_gate_up`` the gate and up projections are one
    ``h x 2f`` GEMM (the experts of the Hugging Face MoE models); the bytes it saves are the same.
    ``saves_input=False`` when another operator already keeps the input."""
    model, rf, act = step.model, step.layer_rf, step.act
    rows = step.tokens if tokens is None else tokens
    h = model.hidden_size
    block = "layer"
    bias = model.mlp_bias
    # The first projection keeps the MLP's input (replicated across tensor-parallel ranks),
    # unless another operator already keeps it; a second one reading it shares it.
    shared_note = f"shares its saved input with the {label} gate projection"
    keeps, note = (True, "") if saves_input else (False, "shares its saved input")
    if model.gated_mlp and fused_gate_up:
        projections, fuse_group = [(f"{label} gate+up projection", 2 * f)], ""
    elif model.gated_mlp:
        projections = [(f"{label} gate projection", f), (f"{label} up projection", f)]
        fuse_group = f"{label} gate-up"
    else:
        projections, fuse_group = [(f"{label} up projection", f)], ""
    ops = []
    for name, width in projections:
        ops.append(
            step.layer_gemm(
                name,
                width,
                h,
                bias=bias,
                count=count,
                m=rows,
                tensor_parallel=True,
                saved_replicated=keeps,
                saves_input=keeps,
                note=note,
                fuse_group=fuse_group,
            )
        )
        keeps, note = False, shared_note  # the next one reads the same input
    # A fused activation keeps its input; one written as element-wise ops (HF's gelu_new:
    # x^3, the tanh argument, tanh and the final product) keeps four f-wide tensors.
    ops.append(
        elementwise_operator(
            f"{label} activation ({model.activation})",
            block,
            count,
            rows * f,
            model.activation,
            activation_bytes=act,
            kind=OperatorKind.ACTIVATION,
            saved_elements=rows * f * (4 if model.activation_decomposed else 1),
            recompute_fraction=rf,
            role=OperatorRole.MLP_INTERMEDIATE,
            tensor_parallel=True,
        )
    )
    if model.gated_mlp:
        ops.append(
            elementwise_operator(
                f"{label} gate x up",
                block,
                count,
                rows * f,
                "multiply",
                activation_bytes=act,
                inputs=2,
                saved_elements=2 * rows * f,
                recompute_fraction=rf,
                role=OperatorRole.MLP_INTERMEDIATE,
                tensor_parallel=True,
                note="saves both operands: the activation output and the up projection",
            )
        )
    ops.append(
        step.layer_gemm(
            f"{label} down projection",
            h,
            f,
            bias=bias,
            count=count,
            m=rows,
            tensor_parallel=True,
            row_parallel=True,
        )
    )
    return ops
