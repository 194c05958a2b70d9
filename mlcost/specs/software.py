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

from functools import cached_property
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field, model_validator

from mlcost.specs.base import Duration, FlopRate, Model, PositiveInt, Spec
from mlcost.units import Q_, in_unit

Direction = Literal["forward", "backward", "forward+backward"]
OptimizerKernel = Literal["fused", "foreach", "for-loop"]


class _Part(Model):
    """A part of a software spec: frozen, and what it derives and keeps (a curve's points) is
    never carried into a copy with other fields (:class:`mlcost.specs.base.Model`)."""


class KernelCurve(_Part):
    """Throughput of one kernel on some accelerators, at one head size, mask and direction, over
    sequence lengths (FLOPs per the kernel's ``flop_convention``).

    ``batch_heads`` (optional): the launch sizes (batch x heads per launch) the kernel was
    measured at; ``throughput`` then holds one value per sequence length and launch size, all
    launch sizes of the first length first. Without it the curve stands for every launch size
    (as the papers measure: a fixed number of tokens per point). ``dropout``: measured with
    attention dropout on (any rate: the kernel draws a random number per score either way)."""

    accelerators: tuple[str, ...] = Field(min_length=1)
    format: str = "bf16"
    head_dim: PositiveInt
    causal: bool
    direction: Direction
    dropout: bool = False
    sequence: tuple[PositiveInt, ...] = Field(min_length=1)
    batch_heads: tuple[PositiveInt, ...] = ()
    throughput: tuple[FlopRate, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _same_length(self) -> "KernelCurve":
        if self.batch_heads and min(len(self.batch_heads), len(self.sequence)) < 2:
            raise ValueError(
                f"batch_heads: a grid needs two launch sizes and two sequence lengths at least, "
                f"got {len(self.batch_heads)} and {len(self.sequence)}; leave batch_heads out "
                "for a curve over sequence length alone"
            )
        sizes = max(len(self.batch_heads), 1)
        if len(self.throughput) != len(self.sequence) * sizes:
            grid = f" x {sizes} launch sizes" if self.batch_heads else ""
            per = " and launch size" if self.batch_heads else ""
            raise ValueError(
                f"throughput: got {len(self.throughput)} values for {len(self.sequence)} "
                f"sequence lengths{grid}, expected one per length{per}"
            )
        for name in ("sequence", "batch_heads"):
            values = list(getattr(self, name))
            if values != sorted(set(values)):
                raise ValueError(f"{name}: expected increasing values, got {values}")
        return self

    @cached_property
    def _points(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """log2 of the sequence lengths and launch sizes, and the throughputs in FLOP/s (one
        row per length), converted once."""
        xs = np.log2(np.asarray(self.sequence, dtype=np.float64))
        bs = np.log2(np.asarray(self.batch_heads or (1,), dtype=np.float64))
        rates = np.asarray([in_unit(t, "flop/s") for t in self.throughput], dtype=np.float64)
        return xs, bs, rates.reshape(len(xs), len(bs))

    def at(self, sequence: Any, batch_heads: Any = None) -> Any:
        """FLOP/s at ``sequence`` (and, for a curve measured over launch sizes, ``batch_heads``;
        ``None``: the largest measured): interpolated in log sequence and log launch size,
        flat beyond the measured ends; an array (0-dimensional for numbers)."""
        xs, bs, rates = self._points
        x = np.log2(np.maximum(np.asarray(sequence, dtype=np.float64), 1.0))
        if len(bs) == 1:
            return np.asarray(np.interp(x, xs, rates[:, 0]))
        size = bs[-1] if batch_heads is None else np.asarray(batch_heads, dtype=np.float64)
        b = np.log2(np.maximum(size, 1.0)) if batch_heads is not None else size
        x, b = np.broadcast_arrays(np.clip(x, xs[0], xs[-1]), np.clip(b, bs[0], bs[-1]))
        i = np.clip(np.searchsorted(xs, x, side="right") - 1, 0, len(xs) - 2)
        j = np.clip(np.searchsorted(bs, b, side="right") - 1, 0, len(bs) - 2)
        u = (x - xs[i]) / (xs[i + 1] - xs[i])
        v = (b - bs[j]) / (bs[j + 1] - bs[j])
        return np.asarray(
            (1 - u) * (1 - v) * rates[i, j] + u * (1 - v) * rates[i + 1, j]
            + (1 - u) * v * rates[i, j + 1] + u * v * rates[i + 1, j + 1]
        )  # fmt: skip


class CrossEntropyKernels(_Part):
    """How an implementation computes the cross-entropy over the logits: the bytes it moves per
    logit (16-bit logits) in the forward and the backward pass, and the kernels it launches for
    both. Counted from the implementation's source: one read per input and one write per output
    of each kernel."""

    forward_bytes: float = Field(gt=0)
    backward_bytes: float = Field(gt=0)
    kernels: PositiveInt
    #: FP32 buffers of the logits' shape a step allocates afresh (eager ``F.cross_entropy`` in
    #: FP32: the logits, the log-probabilities, the zero-filled gradient and the logits'
    #: gradient): on a host-executed device, buffers at or above the allocator's mmap threshold
    #: pay the page faults of first touch every step
    #: (:meth:`mlcost.roofline.Ceilings.first_touch_seconds`). Absent: not counted.
    logit_buffers: PositiveInt | None = None


class MoeSaving(_Part):
    """What a framework's mixture-of-experts layer keeps for backward where it differs from the
    Hugging Face eager modules (:mod:`mlcost.workload.experts`, the default: every flag off).

    ``router_saves_input``: the router GEMM casts to FP32 inside its own autograd function and
    keeps its input as given (one ``T x h`` tensor in the activation format), not FP32 copies of
    input and weight. ``probs_in_activation``: the routing weights multiply the experts'
    intermediate inside the fused activation (a weighted SwiGLU), which keeps its input (the gate
    and up outputs) and the FP32 weight of each row; no product after the experts.
    ``unpermute_keeps_index``: the unpermute is a ``scatter_add_`` whose backward gathers the
    output gradient, so it keeps only the int64 index, not the rows it adds."""

    router_saves_input: bool = False
    probs_in_activation: bool = False
    unpermute_keeps_index: bool = False


class Kernel(Spec):
    """Published throughput of one kernel (see the module docstring)."""

    KIND: ClassVar[str] = "kernel"
    kind: Literal["kernel"] = "kernel"
    operation: Literal["attention"] = "attention"
    flop_convention: str
    backward_factor: float = Field(default=2.5, gt=0)
    curves: tuple[KernelCurve, ...] = Field(min_length=1)

    def curve(
        self,
        accelerator: str,
        direction: Direction,
        *,
        head_dim: int,
        causal: bool,
        dropout: bool = False,
    ) -> KernelCurve | None:
        """The measured curve for ``accelerator`` in ``direction``: measured with attention
        dropout as asked where such curves exist (else without), the mask matching when
        measured (else the other mask's), the closest head size, and among those one measured
        over launch sizes first; ``None`` if the accelerator was not measured in that
        direction. Chosen once per question and kernel (a step asks the same ones for every
        layer pattern and every configuration)."""
        key = (accelerator, direction, head_dim, causal, dropout)
        if key not in self._chosen:
            self._chosen[key] = self._choose(accelerator, direction, head_dim, causal, dropout)
        return self._chosen[key]

    def directions(
        self, accelerator: str, *, head_dim: int, causal: bool, dropout: bool = False
    ) -> tuple[KernelCurve | None, KernelCurve | None, KernelCurve | None, KernelCurve | None]:
        """The curves a fused forward + backward is timed from (:meth:`curve` of each): the
        ``forward+backward`` one, the ``forward`` and ``backward`` ones, and the ``forward``
        one without a mask (what a causal backward measured only unmasked is scaled by);
        chosen once per question, as :meth:`curve`."""
        key = ("directions", accelerator, head_dim, causal, dropout)
        found = self._chosen.get(key)
        if found is None:
            gpu, d, drop = accelerator, head_dim, dropout
            found = self._chosen[key] = (
                self.curve(gpu, "forward+backward", head_dim=d, causal=causal, dropout=drop),
                self.curve(gpu, "forward", head_dim=d, causal=causal, dropout=drop),
                self.curve(gpu, "backward", head_dim=d, causal=causal, dropout=drop),
                self.curve(gpu, "forward", head_dim=d, causal=False, dropout=drop),
            )
        return found

    @cached_property
    def _chosen(self) -> dict[tuple[Any, ...], Any]:
        """The curves :meth:`curve` chose, by question (this kernel's own: a copy starts
        without them, :class:`mlcost.specs.base.Model`)."""
        return {}

    def _choose(
        self, accelerator: str, direction: Direction, head_dim: int, causal: bool, dropout: bool
    ) -> KernelCurve | None:
        mine = [
            c for c in self.curves if accelerator in c.accelerators and c.direction == direction
        ]
        if not mine:
            return None
        mine = (
            [c for c in mine if c.dropout == dropout] or [c for c in mine if not c.dropout] or mine
        )
        matching = [c for c in mine if c.causal == causal] or mine
        return min(
            matching,
            key=lambda c: (abs(np.log2(c.head_dim / head_dim)), -c.head_dim, not c.batch_heads),
        )

    def measured_on(self) -> tuple[str, ...]:
        """Every accelerator some curve covers."""
        return self._measured_on

    @cached_property
    def _measured_on(self) -> tuple[str, ...]:
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
    #: Full recomputation stops once the tensors backward needs are recomputed (PyTorch's
    #: non-reentrant ``torch.utils.checkpoint``): a layer's last GEMM and the element-wise rows
    #: after it are not recomputed (:func:`mlcost.operator_time.recomputed_rows`). False:
    #: the whole layer's forward is replayed (Megatron-Core's reentrant checkpoint).
    recompute_stops_early: bool = False
    #: Each bias's gradient is its own reduction in backward (eager autograd: ``addmm``'s
    #: backward sums the output gradient over the tokens, ``grad.sum(0)``), reading the GEMM's
    #: output gradient once (:func:`mlcost.operator_time.operator_time`). False: folded into
    #: the weight-gradient GEMM's epilogue (cuBLASLt's BGRADB, Transformer Engine) or no bias.
    bias_gradient_sums: bool = False
    # Bytes per parameter of the gradients held from backward to the optimizer step under mixed
    # precision (Megatron's FP32 main_grad buffers); absent: the precision policy's.
    held_gradient_bytes: float | None = Field(default=None, gt=0)
    # Sequence parallelism: the all-gathered input of the QKV and first MLP GEMMs is not saved
    # but all-gathered again in backward for the weight gradient, asynchronously behind the
    # input-gradient GEMM (Megatron's LinearWithGradAccumulationAndAsyncCommunication).
    sequence_parallel_regather: bool = False
    # Pipeline point-to-point sends wait on the critical path every micro-batch (blocking
    # send/receive pairs of the 1F1B schedule), not only on the fill and drain.
    pipeline_sends_exposed: bool = False
    # Its collectives (NCCL kernels) take SMs from the compute they hide behind
    # (mlcost.parallel.degrees.COLLECTIVE_COMPUTE_SHARE).
    collectives_take_compute: bool = False
    # The micro-batch a run of this framework uses when its configuration states none (Megatron-
    # LM's examples run --micro-batch-size 1); absent: the plan's search chooses it
    # (mlcost.parallel.search.unstated_knobs).
    default_micro_batch_size: int | None = Field(default=None, ge=1)
    # What its MoE layer keeps for backward (absent: the Hugging Face eager modules', every
    # MoeSaving flag off).
    moe_saving: MoeSaving | None = None

    def references_to(self) -> list[tuple[str, str]]:
        """(kind, name) of the catalog items this profile names."""
        return [("kernel", name) for name in self.attention_kernels]

    @cached_property
    def dispatch_seconds(self) -> float:
        """``dispatch_overhead`` in seconds, converted once per profile."""
        return float(in_unit(self.dispatch_overhead, "s"))


class Engine(Spec):
    """A serving engine: how its forward passes reach the GPU, as a cost per kernel.

    A forward of ``L`` layers launches ``K = kernels_per_layer · L + kernels_outside_layers``
    kernels (absent: one per operator row of the forward table). Each costs the GPU
    ``kernel_overhead`` beyond its roofline time (the launch and the ramp of a short kernel: about
    1.3 us per kernel replayed from a CUDA graph on an H200, 2.5 us queued on a stream, RRZE-HPC
    gpu-benches ``gpu-small-kernels``). A step the engine dispatches eagerly (prefill always;
    decode when ``decode_graphs`` is false) also costs the host ``dispatch_overhead`` per
    operation it dispatches (``host_ops_per_layer · L + host_ops_outside_layers``; absent: one per
    kernel), and the GPU waits for a host that falls behind: ``max(GPU, host)``
    (:func:`mlcost.serving.latency.forward_seconds`). Every engine step (one scheduler iteration:
    a decode step with the prefill chunks it carries, a speculative draft-and-verify round, a
    prompt's own prefill) then waits ``step_overhead`` for the engine's own host work between
    steps (scheduling, input preparation, sampling, output processing). Every request's first
    token also waits ``request_overhead``, the serving front end's time on its path and off the
    GPU's (the HTTP request, the OpenAI-compatible API server, tokenization, the first token's
    detokenization and streamed chunk): the part of a client's time to first token outside the
    engine's steps (NVIDIA NIM benchmarking guide, "Metrics": TTFT includes tokenization,
    de-tokenization and network latency besides queueing and prefill).

    How it serves (:class:`mlcost.ServePlan`): ``prefill_tokens``, the tokens of one batched or
    chunked prefill forward (absent: each prompt prefilled alone, re-reading every weight);
    ``max_batch``, the most sequences it schedules; ``continuous_batching`` (false: a static
    batch, Hugging Face ``generate``); the formats it serves (``weight_formats``,
    ``kv_formats``; empty: any); descriptive ``attention_kernels``, ``paged_kv`` and
    ``moe_kernel``, each with its source in the profile.
    """

    KIND: ClassVar[str] = "engine"
    kind: Literal["engine"] = "engine"
    framework: str
    decode_graphs: bool
    kernel_overhead: Duration
    graph_kernel_overhead: Duration
    dispatch_overhead: Duration
    kernels_per_layer: PositiveInt | None = None
    kernels_outside_layers: int | None = Field(default=None, ge=0)
    host_ops_per_layer: PositiveInt | None = None
    host_ops_outside_layers: int | None = Field(default=None, ge=0)
    # Host time per engine step (a decode step, a prompt's own prefill) that the GPU waits for:
    # scheduling, input preparation, sampling and output processing not overlapped with the
    # kernels (None: none).
    step_overhead: Duration | None = None
    # The serving front end's time per request on its first token's path, off the GPU's (HTTP,
    # API server, tokenization, the first chunk's detokenization and streaming; None: none).
    request_overhead: Duration | None = None
    # Tokens one prefill forward takes (vLLM max_num_batched_tokens, TensorRT-LLM max_num_tokens,
    # SGLang chunked_prefill_size): admitted prompts are prefilled together, or in chunks, in
    # forwards of up to this many tokens; None: each prompt alone (a static batch).
    prefill_tokens: PositiveInt | None = None
    # The largest batch the engine schedules (vLLM max_num_seqs, TensorRT-LLM max_batch_size).
    max_batch: PositiveInt | None = None
    continuous_batching: bool = True
    attention_kernels: tuple[str, ...] = ()
    # The decode attention kernel reads each key-value head once for its query group (GQA-aware;
    # false: once per query head, mlcost.serving.workload.cached_attention_ops).
    gqa_aware_attention: bool = True
    paged_kv: bool = True
    # Accelerator vendors the engine runs on (empty: any); checked by ServePlan.
    vendors: tuple[str, ...] = ()
    # Formats the engine serves (empty: any of mlcost's); checked by ServePlan.
    weight_formats: tuple[str, ...] = ()
    kv_formats: tuple[str, ...] = ()
    moe_kernel: str = ""
    # The experts of an MoE layer run as one launch for all local experts (a fused or grouped
    # MoE kernel) instead of one per expert (mlcost.serving.latency.engine_counts).
    grouped_expert_gemm: bool = False
    # Under an FP8 KV cache the attention matmuls (prefill's context attention, decode's) run
    # on the FP8 tensor cores (mlcost.serving.workload.cached_attention_ops).
    fp8_attention: bool = False

    def kernel_seconds(self, graph: bool) -> float:
        """Seconds per kernel beyond its roofline time, replayed from a graph or launched."""
        return self._kernel_seconds[graph]

    @cached_property
    def _kernel_seconds(self) -> tuple[float, float]:
        """``kernel_overhead`` and ``graph_kernel_overhead`` in seconds, converted once per
        profile."""
        return (
            float(in_unit(self.kernel_overhead, "s")),
            float(in_unit(self.graph_kernel_overhead, "s")),
        )

    @cached_property
    def dispatch_seconds(self) -> float:
        """``dispatch_overhead`` in seconds, converted once per profile."""
        return float(in_unit(self.dispatch_overhead, "s"))

    @cached_property
    def step_seconds(self) -> float:
        """``step_overhead`` in seconds (0 without one), converted once per profile."""
        return 0.0 if self.step_overhead is None else float(in_unit(self.step_overhead, "s"))

    @cached_property
    def request_seconds(self) -> float:
        """``request_overhead`` in seconds (0 without one), converted once per profile."""
        if self.request_overhead is None:
            return 0.0
        return float(in_unit(self.request_overhead, "s"))


__all__ = [
    "CrossEntropyKernels",
    "Direction",
    "Engine",
    "Implementation",
    "Kernel",
    "KernelCurve",
    "MoeSaving",
    "OptimizerKernel",
]
