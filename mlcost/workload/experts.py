"""The operators of a mixture-of-experts layer's feed-forward block.

Notation: ``T`` tokens of the micro-batch, ``h`` hidden size, ``E`` routed experts, ``k``
experts per token, ``f_e`` / ``f_s`` routed / shared expert FFN size, ``c`` the capacity factor.
In execution order as the Hugging Face reference implementations run them in training
(``MixtralSparseMoeBlock``, ``Qwen2MoeSparseMoeBlock``, ``OlmoeSparseMoeBlock``,
``DeepseekV3MoE`` with the eager experts), per MoE layer:

* router: a ``T x E x h`` GEMM (``2·T·h·E`` FLOPs forward), softmax over the ``E`` logits in
  FP32, top-``k`` (and the renormalization of the ``k`` weights);
* permute: each token copied to its ``k`` experts (a gather of ``T·k`` rows of ``h``);
* the routed experts: expert ``e`` runs its MLP on the ``T_e`` tokens routed to it; with
  balanced routing ``T_e = T·k/E`` (Fedus et al. 2022, section 2.2), capped at ``c·T·k/E`` when a
  capacity factor drops the overflow. The table has one GEMM row per expert and layer, each of
  ``M = T·k/E·min(1, c)`` rows: the small-M grouped GEMM whose efficiency the step-time model
  reads at that shape. Under expert parallelism ``e`` (the layout's ``ep``) a GPU runs its
  ``E/e`` local experts on ``e·T·k/E`` rows each (the same FLOPs in fewer, larger GEMMs; one
  launch for them all where the implementation groups them, ``grouped_expert_gemm``). Their
  FLOPs total ``2·T·k·(3·h·f_e)`` forward for gated experts whatever
  the routing, since the ``T_e`` sum to ``T·k`` (exact for dropless routing);
* the routing-weight product and the unpermute (a scatter-add of the ``T·k`` rows back to ``T``);
* shared experts: a dense MLP of width ``f_s`` on all ``T`` tokens (Qwen2-MoE: times a sigmoid
  gate ``h -> 1``);
* the auxiliary load-balancing loss (Fedus et al. 2022, eq. 4; the Hugging Face
  ``load_balancing_loss_func``): the softmax and top-k of the router logits again, and the
  product of the two per-expert fractions.

What is saved for backward follows PyTorch: the router its input (which the shared experts
share), the softmax its FP32 output, top-k its int64 indices, the gather and the scatter-add
the int64 token indices (the scatter-add also the rows it adds), each expert MLP what a dense
MLP saves (its input rows, the gate and up outputs, the activation output, the down
projection's input) and the weight product the expert output and the gathered FP32 weights.

An implementation profile may say that its MoE layer keeps less
(:class:`mlcost.specs.MoeSaving`; Megatron-Core's): the router its input as given, the
routing weights applied inside a fused weighted activation that keeps its input and the FP32
weight of each row (no product after the experts), the unpermute only its int64 index.
Selective recomputation of Megatron-Core's ``moe_act``, ``moe`` and ``shared_experts``
modules (:data:`mlcost.layout.RECOMPUTE_MODULES`) replays the experts' activation, the whole
MoE block or the shared experts from the inputs their checkpoints keep.
"""

from __future__ import annotations

from typing import Any

from mlcost.arrays import Real
from mlcost.errors import MlcostError
from mlcost.records import replace
from mlcost.workload.builder import StepBuilder, feed_forward_ops, recomputed_region
from mlcost.workload.table import Operator, OperatorKind, elementwise_operator

#: Bytes of an int64 index, as PyTorch's top-k, gather and scatter keep them.
INDEX_BYTES = 8
#: Bytes of an FP32 value: the router softmax and the routing weights run in FP32 in the
#: Hugging Face MoE models (``softmax(router_logits.float())``).
FP32_BYTES = 4


def tokens_per_expert(model_tokens: Real, experts: int, top_k: int, processed: float) -> Real:
    """Expected tokens an expert computes: ``T·k/E·min(1, c)`` (balanced routing; Fedus et al.
    2022 section 2.2, the capacity ``c·T·k/E`` drops the overflow when ``c < 1``)."""
    return model_tokens * top_k / experts * processed


def moe_block_ops(step: StepBuilder, *, norm_output_discarded: bool = False) -> list[Operator]:
    """The feed-forward operators of the MoE layers (module docstring); none for a dense model.
    ``norm_output_discarded``: the pre-MLP norm's output, the block's input, is discarded and
    recomputed (Megatron-Core's ``layernorm`` module), so the router keeps nothing of it."""
    model = step.model
    moe = model.moe
    count = step.moe_count
    if moe is None or not count:
        return []
    tokens, act, rf = step.tokens, step.act, step.layer_rf
    h, experts, top_k = model.hidden_size, moe.num_experts, moe.experts_per_token
    routed = tokens * top_k  # token copies sent to experts
    processed = routed * moe.processed_fraction
    if experts % step.ep:
        raise MlcostError(
            f"ep: got {step.ep}, expected a divisor of the {experts} experts per MoE layer"
        )
    # Under expert parallelism a GPU holds E/ep experts, each taking the tokens routed to it
    # from all ep ranks: ep·T·k/E rows, E/ep GEMMs (the same FLOPs, larger GEMMs).
    local = experts // step.ep
    rows = tokens_per_expert(tokens, experts, top_k, moe.processed_fraction) * step.ep
    block = "layer"
    common: dict[str, Any] = {"recompute_fraction": rf}
    saving = step.moe_saving
    router_saves_input = saving is not None and saving.router_saves_input
    weighted = saving is not None and saving.probs_in_activation
    index_only = saving is not None and saving.unpermute_keeps_index
    router = step.layer_gemm(
        "moe router", experts, h, bias=moe.router_bias, count=count, saved_replicated=True,
        note="T x E logits; replicated across tensor-parallel ranks",
    )  # fmt: skip
    if router_saves_input:
        # Megatron-Core's RouterGatingLinearFunction keeps its input as given (the shared
        # experts' input too) and casts to FP32 inside.
        router = replace(
            router,
            saved_bytes=0.0 if norm_output_discarded else tokens * h * act,
            note="casts to FP32 inside; keeps its input as given",
        )
    elif moe.router_in_fp32 and act != FP32_BYTES:
        # FP32 copies (when the activations are not FP32 already) of the input and the weight
        # are what the GEMM keeps; the input in the
        # activation format is still kept by the shared experts when there are some.
        router = replace(
            router,
            saved_bytes=tokens * h * FP32_BYTES + experts * h * FP32_BYTES
            + (tokens * h * act if moe.shared_ffn_size and not norm_output_discarded else 0),
            note="on FP32 copies of its input and weight (both saved)",
        )  # fmt: skip
    elif norm_output_discarded:
        router = replace(router, saved_bytes=0.0)
    score = moe.router_score
    expert_ops = [
        replace(op, gemm_group=local) if op.kind == OperatorKind.MATMUL else op
        for op in feed_forward_ops(
            step, "expert", moe.expert_ffn_size, count * local, tokens=rows, fused_gate_up=True
        )
    ]
    f_e = moe.expert_ffn_size
    intermediate = 2 * f_e if model.gated_mlp else f_e  # the activation's input per row
    if weighted:
        expert_ops = _weighted_activation(expert_ops, rows * (intermediate * act + FP32_BYTES))
    if step.recomputes("moe_act"):
        expert_ops = _recomputed_activation(step, expert_ops, weighted,
                                            rows * intermediate * act)  # fmt: skip
    ops = [
        router,
        elementwise_operator(
            f"moe router {score} (fp32)",
            block,
            count,
            tokens * experts,
            "softmax" if score == "softmax" else "sigmoid",
            activation_bytes=FP32_BYTES,
            saved_elements=tokens * experts,
            **common,
            kind=OperatorKind.SOFTMAX,
            note=f"{score} of the FP32 router logits; saves its output",
        ),
        Operator(
            name="moe router top-k",
            kind=OperatorKind.ELEMENTWISE,
            block=block,
            count=count,
            bytes_read=tokens * experts * FP32_BYTES,
            bytes_written=routed * (FP32_BYTES + INDEX_BYTES),
            backward_bytes=routed * (FP32_BYTES + INDEX_BYTES) + tokens * experts * FP32_BYTES,
            saved_bytes=routed * INDEX_BYTES
            + (routed * FP32_BYTES + tokens * FP32_BYTES if moe.normalize_top_k else 0),
            recompute_fraction=rf,
            note="top-k of the E probabilities: saves the int64 indices"
            + (
                "; the renormalization saves the k weights and their sum"
                if moe.normalize_top_k
                else ""
            ),
        ),
        Operator(
            name="moe permute (gather to experts)",
            kind=OperatorKind.ELEMENTWISE,
            block=block,
            count=count,
            bytes_read=processed * h * act + processed * INDEX_BYTES,
            bytes_written=processed * h * act,
            backward_bytes=2 * processed * h * act,
            saved_bytes=processed * 2 * INDEX_BYTES,
            recompute_fraction=rf,
            tensor_parallel=True,
            note="copies each token to its k experts; saves the token and slot indices",
        ),
        *expert_ops,
        elementwise_operator(
            "routing weight x expert activation (in the weighted activation)",
            block,
            count,
            processed * f_e,
            "multiply",
            inputs=2,
            activation_bytes=act,
            tensor_parallel=True,
            note="inside the fused weighted activation, which keeps what backward needs",
            **common,
        )
        if weighted
        else elementwise_operator(
            "expert output x routing weight",
            block,
            count,
            processed * h,
            "multiply",
            inputs=2,
            activation_bytes=act,
            saved_elements=1,
            saved_element_bytes=processed * (h * act + FP32_BYTES),
            tensor_parallel=True,
            note="saves the expert output and the gathered FP32 routing weights",
            **common,
        ),
        Operator(
            name="moe unpermute (scatter-add)",
            kind=OperatorKind.ELEMENTWISE,
            block=block,
            count=count,
            forward_flops=processed * h,
            backward_input_flops=0,
            bytes_read=processed * h * act + tokens * h * act,
            bytes_written=tokens * h * act,
            backward_bytes=processed * h * act + tokens * h * act,
            saved_bytes=processed * INDEX_BYTES if index_only else processed * h * act,
            recompute_fraction=rf,
            tensor_parallel=True,
            note="scatter_add_ of the k expert outputs of each token: keeps the int64 index"
            if index_only
            else "index_add_ of the k expert outputs of each token: keeps the rows it adds",
        ),
    ]
    if moe.shared_ffn_size:
        shared = feed_forward_ops(
            step, "shared expert", moe.shared_ffn_size, count, saves_input=False
        )
        if step.recomputes("shared_experts"):
            # checkpointed on its own; its input is the router's (kept there)
            shared = [recomputed_region(step, op, 0.0, "shared_experts") for op in shared]
        ops += shared
        if moe.shared_expert_gate:
            ops.append(
                step.layer_gemm(
                    "shared expert gate", 1, h, bias=False, count=count, saves_input=False
                )
            )
            ops.append(
                elementwise_operator(
                    "shared expert sigmoid x output", block, count, tokens * h, "multiply",
                    inputs=2, activation_bytes=act, saved_elements=tokens * (h + 1), **common,
                    note="sigmoid(gate) saves its output; the product both operands",
                )
            )  # fmt: skip
        ops.append(step.hidden("shared + routed add", block, count, "add", rf, inputs=2))
    if step.recomputes("moe"):  # the whole block checkpointed (MoELayer.forward): its input kept
        kept = 0.0 if norm_output_discarded else tokens * h * act
        ops = [recomputed_region(step, op, kept if op is router else 0.0, "moe") for op in ops]
    if moe.aux_loss:
        ops.append(
            elementwise_operator(
                "moe load-balancing loss", "head", count, tokens * experts, "softmax",
                activation_bytes=FP32_BYTES, saved_elements=1,
                saved_element_bytes=tokens * experts * FP32_BYTES + routed * INDEX_BYTES,
                note="softmax and top-k of the router logits again (Fedus et al. 2022 eq. 4): "
                "saves the probabilities and the int64 indices",
            )
        )  # fmt: skip
    return ops


def _weighted_activation(expert_ops: list[Operator], kept: Real) -> list[Operator]:
    """The experts' rows with the routing weights applied inside a fused weighted activation
    (Megatron-Core's ``weighted_bias_swiglu_impl``: ``WeightedSwiGLUFunction`` saves its input
    and the weights): the activation row keeps ``kept``, the gate and up outputs and the FP32
    weight of each row; the product of the gated pair, inside the same kernel, keeps nothing."""
    out = []
    for op in expert_ops:
        if op.kind == OperatorKind.ACTIVATION:
            op = replace(op, saved_bytes=kept, note="fused weighted activation: keeps its input "
                         "and the FP32 routing weight of each row")  # fmt: skip
        elif op.name == "expert gate x up":
            op = replace(op, saved_bytes=0.0, note="inside the fused weighted activation")
        out.append(op)
    return out


def _recomputed_activation(
    step: StepBuilder, expert_ops: list[Operator], weighted: bool, intermediate: Real
) -> list[Operator]:
    """Megatron-Core's ``moe_act`` module (TEGroupedMLP.forward under CheckpointWithoutOutput;
    under FP8 ``linear_fc2`` keeps its original input, set_save_original_input): the experts'
    activation (and the gated product) is replayed from the kept gate and up outputs
    (``intermediate``, plus the routing weights where the activation applies them, kept by the
    activation row already), and the down projection keeps nothing of its discarded input."""
    out = []
    for op in expert_ops:
        if op.kind == OperatorKind.ACTIVATION:
            kept = op.saved_bytes if weighted else intermediate
            op = recomputed_region(step, op, kept, "moe_act")
        elif op.name == "expert gate x up":
            op = recomputed_region(step, op, 0.0, "moe_act")
        elif op.name == "expert down projection":
            op = replace(op, saved_bytes=0.0, note="its input, the discarded activation output, "
                         "is recomputed (moe_act)")  # fmt: skip
        out.append(op)
    return out
