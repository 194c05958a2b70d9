"""Megatron-Core's selective recomputation regions (``Layout.recompute_modules``) and what its MoE
layer keeps for backward (``Implementation.moe_saving``), against hand derivations from the
shapes and PyTorch's own saved-tensor counters.

What each module keeps and replays is read from NVIDIA/Megatron-LM at commit d98e8a64
(megatron/core/transformer/transformer_config.py recompute_modules; transformer_layer.py,
multi_latent_attention.py, moe/experts.py, moe/moe_layer.py, moe/shared_experts.py):
``layernorm``, ``mla_up_proj`` and ``moe_act`` discard their output (``CheckpointWithoutOutput``:
the function runs under ``no_grad``, its inputs are kept, its output's storage is freed after the
readers saved it and recomputed in backward); ``mlp``, ``moe`` and ``shared_experts`` checkpoint
normally (their inputs kept, everything inside replayed).

The model: the tiny DeepSeek-V3 of :data:`tests.oracles.TINY_MOE_CONFIGS` (h = 128, 4 heads,
q rank 48, KV rank 32, rotary 8, nope and value heads 16; 8 routed experts of width 64, 2 per
token, one shared expert of width 64; one dense layer of width 256 and two MoE layers), one
sequence of T = 32 tokens, BF16 (2 bytes, GEMM inputs too), fused attention.
"""

from __future__ import annotations

import pytest

from mlcost.errors import MlcostError
from mlcost.implementation import implementation
from mlcost.layout import Layout
from mlcost.specs import Implementation, TransformerSpec, from_hf_config
from mlcost.specs.catalog import as_model
from mlcost.workload import OperatorTable, TrainingConfig, transformer_operators
from tests.oracles import TINY_MOE_CONFIGS, importable

T, H, ACT = 32, 128, 2  # tokens, hidden size, bytes of a BF16 activation
HEADS, R_Q, R_KV, D_R, D_NOPE, D_V = 4, 48, 32, 8, 16, 16
EXPERTS, TOP_K, F_E, F_S, F_DENSE = 8, 2, 64, 64, 256
DENSE_LAYERS, MOE_LAYERS = 1, 2
ROWS = T * TOP_K  # token copies the routed experts compute
CONFIG = TrainingConfig(sequence_length=T, precision="bf16", attention="flash")


@pytest.fixture(scope="module")
def spec() -> TransformerSpec:
    model = from_hf_config(importable(TINY_MOE_CONFIGS["deepseek_v3"]))
    assert isinstance(model, TransformerSpec)
    return model


def _saved(
    spec: TransformerSpec, modules: tuple[str, ...], software: Implementation | None = None
) -> float:
    """Bytes the layers of one micro-batch keep for backward under ``modules``."""
    layout = Layout(recompute="selective", recompute_modules=modules)
    table = transformer_operators(spec, CONFIG, layout, implementation=software)
    return float(
        sum(
            op.saved_bytes_after_recompute * op.count
            for op in table.operators
            if op.block == "layer"
        )
    )


MEGATRON = implementation("megatron-core").spec


def test_layernorm_keeps_the_norm_inputs_and_frees_what_reads_their_output(spec) -> None:
    # Each of the two norms of a layer (3 layers): the Hugging Face RMSNorm keeps an FP32 copy of
    # its input (4·T·h), 1/rms (4·T) and the normalized value (2·T·h); recomputed, the
    # checkpoint keeps its BF16 input (2·T·h) instead. The GEMM that reads the output keeps
    # nothing of it: the q down projection (every layer), the dense gate projection (1) and the
    # router's copy of its input kept for the shared experts (2 MoE layers), 2·T·h each.
    norm_before = 4 * T * H + 4 * T + ACT * T * H
    norms = 2 * 3 * (ACT * T * H - norm_before)
    readers = -(3 + DENSE_LAYERS + MOE_LAYERS) * ACT * T * H
    assert _saved(spec, ("layernorm",)) - _saved(spec, ()) == norms + readers  # -148,224


def test_mla_up_proj_keeps_the_latents_and_drops_q_k_v(spec) -> None:
    # Per layer, dropped: the q latent norm (FP32 input copy, 1/rms, BF16 output: 8·T·r_q + 4·T)
    # and the q up projection's input (2·T·r_q); the same for KV at r_kv; q, k and v the fused
    # attention kernel keeps (2·T·n·(2·(d_nope + d_r) + d_v)). Kept: the compressed query and
    # KV with the rotary key, 2·T·(r_q + r_kv + d_r).
    dropped = 8 * T * R_Q + 4 * T + 8 * T * R_KV + 4 * T
    qkv = ACT * T * HEADS * (2 * (D_NOPE + D_R) + D_V)
    kept = ACT * T * (R_Q + R_KV + D_R)
    assert _saved(spec, ("mla_up_proj",)) - _saved(spec, ()) == 3 * (kept - dropped - qkv)


def test_moe_act_keeps_the_gate_and_up_outputs_only(spec) -> None:
    # Eager experts: SiLU keeps its input (2·rows·f), the gated product both operands
    # (2·2·rows·f), the down projection its input (2·rows·f); recomputed, the activation's
    # input, the gate and up outputs (2·2·rows·f), is all that stays.
    eager = _saved(spec, ("moe_act",)) - _saved(spec, ())
    assert eager == MOE_LAYERS * ACT * ROWS * F_E * (2 - 1 - 2 - 1)
    # Megatron-Core's weighted SwiGLU keeps its input and the weights already: only the down
    # projection's input, the discarded output, goes.
    megatron = _saved(spec, ("moe_act",), MEGATRON) - _saved(spec, (), MEGATRON)
    assert megatron == -MOE_LAYERS * ACT * ROWS * F_E


def test_mlp_keeps_the_dense_mlp_input_only(spec) -> None:
    # The dense layer's MLP: its input stays (the gate projection's), SiLU input (2·T·f), the
    # gated product's operands (2·2·T·f) and the down projection's input (2·T·f) go.
    assert _saved(spec, ("mlp",)) - _saved(spec, ()) == -DENSE_LAYERS * 4 * ACT * T * F_DENSE


def test_shared_experts_keep_nothing_of_their_own(spec) -> None:
    # Their input is the router's (kept there): SiLU input, gated operands, down input go.
    assert _saved(spec, ("shared_experts",)) - _saved(spec, ()) == (-MOE_LAYERS * 4 * ACT * T * F_S)


def test_moe_keeps_only_the_block_input(spec) -> None:
    # Megatron-Core's MoE block per layer, kept before: the router's BF16 input (2·T·h), the
    # sigmoid's FP32 scores (4·T·E), top-k's int64 indices (8·T·k) and the renormalized FP32
    # weights and their sums (4·T·k + 4·T), the permute's token and slot indices (16·T·k); per
    # routed copy the gate+up input (2·h), the weighted SwiGLU's input and weight (2·2·f + 4),
    # the down input (2·f); the unpermute's index (8·T·k); the shared expert (4·2·T·f_s).
    # Recomputed whole, the block keeps its input, 2·T·h.
    before = (
        ACT * T * H
        + 4 * T * EXPERTS
        + 8 * ROWS
        + 4 * ROWS
        + 4 * T
        + 16 * ROWS
        + ROWS * (ACT * H + 2 * ACT * F_E + 4 + ACT * F_E)
        + 8 * ROWS
        + 4 * ACT * T * F_S
    )
    change = _saved(spec, ("moe",), MEGATRON) - _saved(spec, (), MEGATRON)
    assert change == MOE_LAYERS * (ACT * T * H - before)


def test_megatron_core_moe_keeps_less_than_the_eager_modules(spec) -> None:
    # Per MoE layer, Megatron-Core against the Hugging Face modules: the router keeps its BF16
    # input, not FP32 copies of input and weight beside it (4·T·h + 4·E·h); the weighted SwiGLU
    # keeps its input and weight where SiLU and the gated product kept 3 f-wide tensors; no
    # routing-weight product after the experts (its output copy and weight, (2·h + 4) a row);
    # the unpermute's int64 index where index_add_ kept the rows (2·h a row).
    router = -(4 * T * H + 4 * EXPERTS * H)
    activation = ROWS * (2 * ACT * F_E + 4) - ROWS * 3 * ACT * F_E
    product = -ROWS * (ACT * H + 4)
    unpermute = 8 * ROWS - ROWS * ACT * H
    change = _saved(spec, (), MEGATRON) - _saved(spec, ())
    assert change == MOE_LAYERS * (router + activation + product + unpermute)


def test_the_default_module_is_the_selective_recomputation_of_the_attention_core(spec) -> None:
    # ("core_attn",) is what recompute "selective" has always meant: the fused kernel keeps
    # q, k, v either way; only its row log-sum-exp (FP32, T per head) goes, every layer.
    selective = Layout(recompute="selective")
    assert selective.recompute_modules == ("core_attn",)
    assert _saved(spec, ("core_attn",)) - _saved(spec, ()) == -3 * 4 * T * HEADS
    table = transformer_operators(spec, CONFIG, selective)
    assert table.saved_bytes.magnitude == pytest.approx(
        _saved(spec, ("core_attn",)) + _non_layer(table)
    )


def _non_layer(table: OperatorTable) -> float:
    return float(
        sum(
            op.saved_bytes_after_recompute * op.count
            for op in table.operators
            if op.block != "layer" and op.kind != "optimizer"
        )
    )


def test_recomputed_regions_replay_their_forward(spec) -> None:
    # The time model sees the replay: the recomputed rows' forward FLOPs once more. mla_up_proj
    # replays the q and KV up projections, 2·T·r_q·n·(d_nope + d_r) + 2·T·r_kv·n·(d_nope + d_v)
    # FLOPs per layer, plus the latent norms (4 FLOPs per element) and rotary (3 per element).
    def recomputed(modules: tuple[str, ...]) -> float:
        layout = Layout(recompute="selective", recompute_modules=modules)
        table = transformer_operators(spec, CONFIG, layout)
        return float(table.recompute_flops.magnitude)

    gemms = 2 * T * R_Q * HEADS * (D_NOPE + D_R) + 2 * T * R_KV * HEADS * (D_NOPE + D_V)
    norms = 4 * T * (R_Q + R_KV)
    rotary = 3 * T * (HEADS + 1) * D_R
    assert recomputed(("mla_up_proj",)) - recomputed(()) == 3 * (gemms + norms + rotary)


# ----- PyTorch's own counters ----------------------------------------------------------------


def _held_bytes(run, weights=()) -> int:  # type: ignore[no-untyped-def]
    """Bytes of the storages the forward ``run`` saves for backward that are still allocated
    when it returns (each storage once; a storage freed by a discard counts 0; ``weights``,
    the parameters, left out as in tests.oracles.saved_tensor_bytes)."""
    torch = pytest.importorskip("torch")
    seen: dict[int, object] = {}
    excluded = {id(w.untyped_storage()) for w in weights}

    def pack(tensor):  # type: ignore[no-untyped-def]
        if id(tensor.untyped_storage()) not in excluded:
            seen.setdefault(id(tensor.untyped_storage()), tensor.untyped_storage())
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        keep = run()
    del keep
    return sum(int(s.nbytes()) for s in seen.values())  # type: ignore[attr-defined]


def test_scatter_add_keeps_only_its_index_as_the_megatron_unpermute_row_says(spec) -> None:
    # Megatron-Core's unpermute (moe_utils.unpermute): output.scatter_add_(0, index expanded to
    # h, permuted tokens). Its backward gathers the output gradient at the index: PyTorch keeps
    # the int64 index (an expanded view of T·k values), not the rows.
    torch = pytest.importorskip("torch")
    rows = torch.randn(ROWS, H, dtype=torch.bfloat16, requires_grad=True)
    index = torch.randint(0, T, (ROWS,))

    def unpermute():  # type: ignore[no-untyped-def]
        out = torch.zeros(T, H, dtype=torch.bfloat16)
        return out.scatter_add_(0, index.unsqueeze(1).expand(-1, H), rows * 1)

    table = transformer_operators(spec, CONFIG, Layout(), implementation=MEGATRON)
    (row,) = [op for op in table.operators if op.name == "moe unpermute (scatter-add)"]
    assert _held_bytes(unpermute) == row.saved_bytes == 8 * ROWS


def test_a_discarded_norm_output_leaves_only_the_norm_input(spec) -> None:
    # Megatron-Core's CheckpointWithoutOutput reproduced in plain PyTorch: the RMSNorm runs
    # under no_grad, its input is kept by a function that recomputes it, the projection saves
    # the output, whose storage is then freed (discard_output_and_register_recompute). What
    # stays held is the norm's input, as the table's two rows (attention norm, q down
    # projection) say under the layernorm module.
    torch = pytest.importorskip("torch")
    x = torch.randn(T, H, dtype=torch.bfloat16, requires_grad=True)
    weight = torch.randn(R_Q, H, dtype=torch.bfloat16, requires_grad=True)

    class Recompute(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp):  # type: ignore[no-untyped-def]
            ctx.save_for_backward(inp)
            with torch.no_grad():
                variance = inp.float().pow(2).mean(-1, keepdim=True)
                return (inp.float() * torch.rsqrt(variance + 1e-6)).to(inp.dtype)

    def block():  # type: ignore[no-untyped-def]
        normed = Recompute.apply(x * 1)
        out = torch.nn.functional.linear(normed, weight)
        normed.untyped_storage().resize_(0)  # the discard
        return out

    held = _held_bytes(block, (weight,))
    layout = Layout(recompute="selective", recompute_modules=("layernorm",))
    table = transformer_operators(spec, CONFIG, layout)
    rows = {op.name: op for op in table.operators}
    ours = (
        rows["attention norm"].saved_bytes_after_recompute
        + rows["q down projection"].saved_bytes_after_recompute
    )
    assert held == ours == ACT * T * H


# ----- the layout option ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"recompute": "selective", "recompute_modules": ("attn",)}, ["'attn'", "core_attn"]),
        ({"recompute": "full", "recompute_modules": ("layernorm",)}, ["selective", "full"]),
        ({"recompute": "selective", "recompute_modules": ("mlp", "mlp")}, ["at most once"]),
    ],
)
def test_a_bad_module_list_is_one_line_naming_the_field(kwargs, words) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(Exception) as caught:
        Layout(**kwargs)
    text = str(caught.value)
    assert "recompute_modules" in text and "\n" not in text.strip()
    assert all(word in text for word in words)


@pytest.mark.parametrize(
    ("model", "module", "missing"),
    [("llama-2-7b", "mla_up_proj", "latent attention"), ("llama-2-7b", "moe_act", "mixture")],
)
def test_a_module_the_model_lacks_is_refused(model: str, module: str, missing: str) -> None:
    layout = Layout(recompute="selective", recompute_modules=(module,))
    with pytest.raises(MlcostError, match=missing):
        transformer_operators(as_model(model), TrainingConfig(sequence_length=64), layout)


def test_describe_names_the_modules() -> None:
    layout = Layout(recompute="selective", recompute_modules=("layernorm", "moe_act"))
    assert layout.describe().endswith("recompute selective (layernorm,moe_act)")
    assert Layout(recompute="selective").describe().endswith("recompute selective")


def test_layernorm_leaves_a_model_without_input_norms_alone() -> None:
    # OLMo 2 normalizes the outputs of attention and MLP (its reordered norms), not their
    # inputs: there is no input_layernorm or pre_mlp_layernorm to recompute (Megatron-Core skips
    # an IdentityOp norm), so nothing changes.
    model = as_model("olmo-2-7b")
    config = TrainingConfig(sequence_length=64, precision="bf16", attention="flash")

    def saved(modules: tuple[str, ...]) -> float:
        layout = Layout(recompute="selective", recompute_modules=modules)
        return float(transformer_operators(model, config, layout).saved_bytes.magnitude)

    assert saved(("core_attn", "layernorm")) == saved(("core_attn",))
